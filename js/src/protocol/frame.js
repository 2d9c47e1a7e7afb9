/**
 * Request and response frames of the HermitMQ wire protocol, version 3
 * (docs/PROTOCOL.md; `protocol/src/frame.rs` is the reference): the op
 * codes, {@link encodeRequest} and {@link decodeResponse}. The hellos, record
 * batches, names and status codes are the other files of `protocol/`.
 *
 * Everything in `protocol/` is sans-I/O, like the Rust `hermit-protocol`
 * crate: functions turn values into bytes and bytes into values, and every
 * length is checked before it is used or anything is allocated for it. Malformed input throws a {@link WireError};
 * the connection that received it closes.
 *
 * Integers: every u32 is a `number`. Offsets, high watermarks, log ends and
 * log starts are `number`s too, checked to be safe integers (below 2^53, some nine
 * quadrillion records) when decoded. Timestamps (ns since the Unix epoch,
 * ~1.7e18) and retention values (`u64::MAX` means unlimited) do not fit a
 * double: they are `bigint`s.
 *
 * @module protocol/frame
 */

import { MAX_AUTH_FIELD, MAX_AUTH_NAME, MAX_CHANNEL_BINDING, MECHANISM_P256_ECDSA, MECHANISM_P256_ECDSA_BOUND } from './auth.js';
import { Reader, U64_MAX, Writer, checkUint, offsetArg, u32Arg, u64Arg } from './codec.js';
import { ClientError, WireError } from './error.js';
import { parseBatch } from './record.js';
import { STATUS_NAMES, Status, carriesBounds } from './status.js';
import { checkGroup, checkTopic, cursorNameError } from './topic.js';

/** Bytes before a request's body: length, op, correlation id. */
export const REQUEST_HEADER_LEN = 9;
/** Bytes before a response's body: length, op, correlation id, status. */
export const RESPONSE_HEADER_LEN = 11;
/** Bytes of a successful fetch response before its record bytes. */
export const FETCH_RESPONSE_HEADER_LEN = RESPONSE_HEADER_LEN + 8 + 8 + 4;
/** Set on the op byte of every response. */
export const RESPONSE_BIT = 0x80;
/** Largest frame (after the length prefix) of any request that carries no batch ({@link carriesBatch}). */
export const MAX_CONTROL_FRAME = 1024;
/** Largest partition count a topic may have. */
export const MAX_PARTITIONS = 4096;
/**
 * Most topics one ListTopics page may hold (its `limit` is 1..=this), and
 * the most a Metadata of all topics answers with.
 */
export const MAX_LIST_LIMIT = 1000;

/** Operation codes. */
export const Op = Object.freeze({
  Produce: 0x01,
  Fetch: 0x02,
  Commit: 0x03,
  Committed: 0x04,
  Metadata: 0x05,
  CreateTopic: 0x06,
  DeleteTopic: 0x07,
  Ping: 0x08,
  Authenticate: 0x09,
  ListTopics: 0x0a,
  ConditionalProduce: 0x0b,
  Claim: 0x0c,
});

/** Bytes of a claim id (Rust's `frame::CLAIM_ID_LEN`). */
export const CLAIM_ID_LEN = 16;

/**
 * Whether a request of this op ends with a record batch (Rust's
 * `Op::carries_batch`): its frame may be as large as the broker's
 * `maxFrame`; every other request is a control frame of at most
 * {@link MAX_CONTROL_FRAME} bytes.
 * @param {string} op a {@link Request}'s `op`
 * @returns {boolean}
 */
export function carriesBatch(op) {
  return op === 'produce' || op === 'conditionalProduce';
}

/** @type {Map<number, string>} */
const OP_NAMES = new Map(Object.entries(Op).map(([k, v]) => [v, k]));

/** When a producer wants its acknowledgement (Rust's `Ack`). */
export const Ack = Object.freeze({
  /** After the batch is written to the log (page cache). */
  Written: 0,
  /** After an fsync covers the batch. */
  Durable: 1,
});

/** A topic's cleanup policy. */
export const Cleanup = Object.freeze({ Delete: 0, Compact: 1 });

const utf8 = new TextEncoder();

/**
 * @param {Writer} w
 * @param {Uint8Array} b
 */
function put8(w, b) {
  w.u8(b.length);
  w.bytes(b);
}

/**
 * @param {Writer} w
 * @param {Uint8Array} b
 * @param {string} field
 */
function put16(w, b, field) {
  if (!(b instanceof Uint8Array) || b.length > MAX_AUTH_FIELD) {
    throw new ClientError('InvalidArgument', `invalid argument: ${field} must be at most ${MAX_AUTH_FIELD} bytes`);
  }
  w.u16(b.length);
  w.bytes(b);
}

/**
 * @param {Writer} w
 * @param {Uint8Array} b
 * @param {number} max
 * @param {string} field
 */
function putMax8(w, b, max, field) {
  if (!(b instanceof Uint8Array) || b.length > max) {
    throw new ClientError('InvalidArgument', `invalid argument: ${field} must be at most ${max} bytes`);
  }
  put8(w, b);
}

// ---------------------------------------------------------------------------
// Requests

/**
 * @typedef {{ op: 'produce', topic: string, partition: number, ack: number, batch: Uint8Array }
 *   | { op: 'conditionalProduce', topic: string, partition: number, ack: number, expectedEnd: number, batch: Uint8Array }
 *   | { op: 'claim', topic: string, partition: number, claimId: Uint8Array }
 *   | { op: 'fetch', topic: string, partition: number, offset: number, maxBytes: number, maxWaitMs: number, minBytes?: number, minWaitMs?: number }
 *   | { op: 'commit', group: string, topic: string, partition: number, offset: number }
 *   | { op: 'committed', group: string, topic: string, partition: number }
 *   | { op: 'metadata', topic?: string|null }
 *   | { op: 'listTopics', after?: string|null, limit: number }
 *   | { op: 'createTopic', topic: string, partitions: number, cleanup?: number, retentionMs?: number|bigint, retentionBytes?: number|bigint }
 *   | { op: 'deleteTopic', topic: string }
 *   | { op: 'ping' }
 *   | { op: 'authenticate', mechanism?: number, spki: Uint8Array, signature: Uint8Array, name?: string, channelBinding?: Uint8Array }} Request
 *
 * Authenticate: `mechanism` defaults to 2 (bound), which needs `name` (the
 * dialled name) and takes `channelBinding` (default empty); mechanism 1
 * sends neither. ConditionalProduce is Produce's body with `expectedEnd`
 * (u64) after the ack; Claim's `claimId` is {@link CLAIM_ID_LEN} bytes.
 * Fetch's optional trailing part, `minBytes u32, minWaitMs u32` (min
 * bytes: hold the fetch until that many bytes of whole batches are there),
 * is written only when `minBytes > 1` (default 1, `minWaitMs` default 0),
 * so a default fetch is byte for byte the old one; send it only to a broker
 * whose hello set `BrokerFlags.FETCH_MIN_BYTES` (protocol/hello.js).
 */

/**
 * Write the topic, partition and ack of a request that carries a batch,
 * checked, and check the batch: it must be one whole, well-formed batch
 * (the broker closes the connection over a bad one, failing every other
 * request on it). The caller writes what follows the ack, then the batch.
 * @param {Writer} w
 * @param {{ topic: string, partition: number, ack: number, batch: Uint8Array }} req
 */
function putProducePrefix(w, req) {
  const topic = checkTopic(req.topic);
  const partition = u32Arg(req.partition, 'partition');
  if (req.ack !== Ack.Written && req.ack !== Ack.Durable) {
    throw new ClientError('InvalidArgument', `invalid argument: ack must be Ack.Written or Ack.Durable`);
  }
  const { length } = parseBatch(req.batch, 0);
  if (length !== req.batch.length) {
    throw new ClientError('InvalidArgument', `invalid argument: the batch has ${req.batch.length - length} bytes after its end`);
  }
  put8(w, topic);
  w.u32(partition);
  w.u8(req.ack);
}

/**
 * A fetch's optional trailing part: written only when `minBytes > 1`
 * (protocol/src/op/fetch.rs), both values checked either way.
 * @param {Writer} w
 * @param {number} minBytes
 * @param {number} minWaitMs
 */
function putMinBytes(w, minBytes, minWaitMs) {
  u32Arg(minBytes, 'minBytes');
  u32Arg(minWaitMs, 'minWaitMs');
  if (minBytes <= 1) return;
  w.u32(minBytes);
  w.u32(minWaitMs);
}

/**
 * Encode one request frame. Arguments are checked (names, integer ranges,
 * a produce batch's header) before anything is written; the caller checks
 * the frame against the broker's `maxFrame`.
 *
 * @param {number} correlationId 1..2^32-1
 * @param {Request} req
 * @returns {Uint8Array} the whole frame, length prefix included
 */
export function encodeRequest(correlationId, req) {
  u32Arg(correlationId, 'correlation id');
  const opName = req.op.charAt(0).toUpperCase() + req.op.slice(1);
  const op = /** @type {Record<string, number>} */ (Op)[opName];
  if (op === undefined) throw new ClientError('InvalidArgument', `invalid argument: unknown op ${req.op}`);
  const w = new Writer(req.op === 'produce' || req.op === 'conditionalProduce' ? REQUEST_HEADER_LEN + 1 + 255 + 5 + 8 + req.batch.length : 64);
  w.u32(0); // patched below
  w.u8(op);
  w.u32(correlationId);
  switch (req.op) {
    case 'produce':
      putProducePrefix(w, req);
      w.bytes(req.batch);
      break;
    case 'conditionalProduce': {
      const expectedEnd = offsetArg(req.expectedEnd, 'expectedEnd');
      putProducePrefix(w, req);
      w.u64(expectedEnd);
      w.bytes(req.batch);
      break;
    }
    case 'claim': {
      const topic = checkTopic(req.topic);
      const partition = u32Arg(req.partition, 'partition');
      if (!(req.claimId instanceof Uint8Array) || req.claimId.length !== CLAIM_ID_LEN) {
        throw new ClientError('InvalidArgument', `invalid argument: a claim id is ${CLAIM_ID_LEN} bytes`);
      }
      put8(w, topic);
      w.u32(partition);
      w.bytes(req.claimId);
      break;
    }
    case 'fetch':
      put8(w, checkTopic(req.topic));
      w.u32(u32Arg(req.partition, 'partition'));
      w.u64(offsetArg(req.offset, 'offset'));
      w.u32(u32Arg(req.maxBytes, 'maxBytes'));
      w.u32(u32Arg(req.maxWaitMs, 'maxWaitMs'));
      putMinBytes(w, req.minBytes ?? 1, req.minWaitMs ?? 0);
      break;
    case 'commit':
      put8(w, checkGroup(req.group));
      put8(w, checkTopic(req.topic));
      w.u32(u32Arg(req.partition, 'partition'));
      w.u64(offsetArg(req.offset, 'offset'));
      break;
    case 'committed':
      put8(w, checkGroup(req.group));
      put8(w, checkTopic(req.topic));
      w.u32(u32Arg(req.partition, 'partition'));
      break;
    case 'metadata':
      if (req.topic !== undefined && req.topic !== null) put8(w, checkTopic(req.topic));
      break;
    case 'listTopics': {
      if (req.after === undefined || req.after === null) {
        w.u8(0);
      } else {
        const why = cursorNameError(req.after);
        if (why !== null) throw new ClientError('InvalidName', `invalid ListTopics cursor ${JSON.stringify(req.after)}: ${why}`);
        put8(w, utf8.encode(req.after));
      }
      const limit = checkUint(req.limit, 'limit', MAX_LIST_LIMIT);
      if (limit === 0) throw new ClientError('InvalidArgument', `invalid argument: limit must be 1..=${MAX_LIST_LIMIT}`);
      w.u32(limit);
      break;
    }
    case 'createTopic': {
      put8(w, checkTopic(req.topic));
      const n = checkUint(req.partitions, 'partitions', MAX_PARTITIONS);
      if (n === 0) throw new ClientError('InvalidArgument', 'invalid argument: partitions must be 1..=4096');
      w.u32(n);
      const cleanup = req.cleanup ?? Cleanup.Delete;
      if (cleanup !== Cleanup.Delete && cleanup !== Cleanup.Compact) {
        throw new ClientError('InvalidArgument', 'invalid argument: cleanup must be Cleanup.Delete or Cleanup.Compact');
      }
      w.u8(cleanup);
      w.u64(u64Arg(req.retentionMs ?? 0, 'retentionMs'));
      w.u64(u64Arg(req.retentionBytes ?? 0, 'retentionBytes'));
      break;
    }
    case 'deleteTopic':
      put8(w, checkTopic(req.topic));
      break;
    case 'ping':
      break;
    case 'authenticate': {
      const mechanism = req.mechanism ?? MECHANISM_P256_ECDSA_BOUND;
      w.u8(mechanism);
      put16(w, req.spki, 'spki');
      put16(w, req.signature, 'signature');
      if (mechanism === MECHANISM_P256_ECDSA) break;
      if (typeof req.name !== 'string' || req.name.length === 0) {
        throw new ClientError('InvalidArgument', 'invalid argument: a bound Authenticate needs the dialled name');
      }
      putMax8(w, utf8.encode(req.name), MAX_AUTH_NAME, 'name');
      putMax8(w, req.channelBinding ?? new Uint8Array(0), MAX_CHANNEL_BINDING, 'channel binding');
      break;
    }
    default:
      throw new ClientError('InvalidArgument', `invalid argument: unknown op ${/** @type {any} */ (req).op}`);
  }
  const frame = w.finish();
  new DataView(frame.buffer, frame.byteOffset).setUint32(0, frame.length - 4);
  return frame;
}

// ---------------------------------------------------------------------------
// Responses

/**
 * @typedef {object} PartitionMetadata
 * @property {number} partition
 * @property {number} logStart       first offset still stored
 * @property {number} highWatermark  offset the next record will get
 */

/**
 * @typedef {object} TopicMetadata
 * @property {string} name
 * @property {number} cleanup           {@link Cleanup}
 * @property {bigint} retentionMs       effective; `U64_MAX` = forever
 * @property {bigint} retentionBytes    effective; `U64_MAX` = unlimited
 * @property {PartitionMetadata[]} partitions
 */

/**
 * @typedef {object} TopicPage
 * @property {TopicMetadata[]} topics  in name order; maybe none (a page is
 *   also cut short by the broker's bounded scan and by the frame size)
 * @property {string|null} next  where the next page starts (pass it as
 *   `after`); `null`: the listing is complete. It may name a topic not in
 *   `topics` (the last one the broker looked at).
 */

/**
 * @typedef {object} ErrorBody
 * @property {string} status    status name
 * @property {number} statusCode
 * @property {string} message   the broker's message
 * @property {[number, number]|null} bounds  `[logStart, highWatermark]` for
 *   `OffsetOutOfRange`, `[logStart, end]` for `EndMoved`; present exactly
 *   for those two ({@link carriesBounds})
 */

/**
 * @typedef {object} ResponseFrame
 * @property {number} correlationId
 * @property {number} op      the op answered (without the response bit)
 * @property {boolean} ok
 * @property {any} [body]     decoded body when `ok` (per op: see {@link decodeResponse})
 * @property {ErrorBody} [error]  when not `ok`
 */

/**
 * Decode one whole response frame (one WebSocket message).
 *
 * Bodies by op: Produce and ConditionalProduce `{ baseOffset }`; Fetch
 * `{ highWatermark, logStart, records /* Uint8Array view *\/ }`; Claim
 * `{ offset, next, batch /* Uint8Array view *\/ }` (the batch as the broker
 * sent it: the client checks it against `offset` and `next`); Committed
 * `{ offset /* number|null *\/ }`; Metadata `TopicMetadata[]`; ListTopics
 * {@link TopicPage}; Authenticate `{ principal /* 32 bytes *\/ }`; the
 * others `{}`.
 *
 * @param {Uint8Array} frame
 * @param {number} [maxFrame] largest frame accepted (after the length prefix)
 * @returns {ResponseFrame}
 */
export function decodeResponse(frame, maxFrame = 0xffff_ffff) {
  const r = new Reader(frame);
  const len = r.u32();
  if (len < RESPONSE_HEADER_LEN - 4) {
    throw new WireError('FrameTooShort', `response frame of ${len} bytes (at least ${RESPONSE_HEADER_LEN - 4})`);
  }
  if (len > maxFrame) throw new WireError('FrameTooLarge', `response frame of ${len} bytes exceeds ${maxFrame}`);
  if (len !== frame.length - 4) {
    throw new WireError('LengthMismatch', `frame length ${len} but the message holds ${frame.length - 4} bytes`);
  }
  const opByte = r.u8();
  if ((opByte & RESPONSE_BIT) === 0) throw new WireError('InvalidField', `response op 0x${opByte.toString(16)}`);
  const op = opByte & ~RESPONSE_BIT;
  if (!OP_NAMES.has(op)) throw new WireError('UnknownOp', `unknown op 0x${op.toString(16)}`);
  const correlationId = r.u32();
  const code = r.u16();
  if (code >= STATUS_NAMES.length) throw new WireError('InvalidField', `status ${code}`);
  if (code !== 0) {
    const message = r.str16('error message');
    /** @type {[number, number]|null} */
    let bounds = null;
    if (carriesBounds(code)) bounds = [r.u64('log_start'), r.u64(code === Status.EndMoved ? 'end' : 'high_watermark')];
    r.finish();
    return { correlationId, op, ok: false, error: { status: STATUS_NAMES[code], statusCode: code, message, bounds } };
  }
  const body = decodeBody(op, r);
  r.finish();
  return { correlationId, op, ok: true, body };
}

/**
 * @param {number} n
 * @param {number} minEach
 * @param {Reader} r
 */
function checkCount(n, minEach, r) {
  if (n * minEach > r.remaining) {
    throw new WireError('UnexpectedEof', `a count of ${n} needs at least ${n * minEach} bytes, ${r.remaining} left`);
  }
}

/**
 * The topic list of Metadata and ListTopics; `max` bounds the count.
 * @param {Reader} r
 * @param {number} max
 * @returns {TopicMetadata[]}
 */
function decodeTopics(r, max) {
  const n = r.u32();
  if (n > max) throw new WireError('InvalidField', `topic count ${n} (at most ${max})`);
  // Each topic takes at least 22 bytes: refuse counts the frame cannot hold.
  checkCount(n, 22, r);
  /** @type {TopicMetadata[]} */
  const topics = [];
  for (let i = 0; i < n; i++) {
    const name = r.str8('topic');
    const cleanup = r.u8();
    if (cleanup > 1) throw new WireError('InvalidField', `cleanup ${cleanup}`);
    const retentionMs = r.u64n();
    const retentionBytes = r.u64n();
    const np = r.u32();
    checkCount(np, 20, r);
    /** @type {PartitionMetadata[]} */
    const partitions = [];
    for (let j = 0; j < np; j++) {
      partitions.push({ partition: r.u32(), logStart: r.u64('log_start'), highWatermark: r.u64('high_watermark') });
    }
    topics.push({ name, cleanup, retentionMs, retentionBytes, partitions });
  }
  return topics;
}

/**
 * @param {number} op
 * @param {Reader} r
 */
function decodeBody(op, r) {
  switch (op) {
    case Op.Produce:
    case Op.ConditionalProduce:
      return { baseOffset: r.u64('base_offset') };
    case Op.Claim: {
      const offset = r.u64('offset');
      const next = r.u64('next');
      const n = r.u32();
      return { offset, next, batch: r.bytes(n) };
    }
    case Op.Fetch: {
      const highWatermark = r.u64('high_watermark');
      const logStart = r.u64('log_start');
      const n = r.u32();
      return { highWatermark, logStart, records: r.bytes(n) };
    }
    case Op.Committed: {
      const has = r.u8();
      const offset = r.u64('offset');
      if (has > 1) throw new WireError('InvalidField', `has ${has}`);
      return { offset: has === 1 ? offset : null };
    }
    case Op.Metadata:
      return decodeTopics(r, Infinity);
    case Op.ListTopics: {
      const topics = decodeTopics(r, MAX_LIST_LIMIT);
      const next = r.str8('next');
      if (next === '') return { topics, next: null };
      const why = cursorNameError(next);
      if (why !== null) throw new WireError('InvalidName', `invalid ListTopics cursor ${JSON.stringify(next)}: ${why}`);
      return { topics, next };
    }
    case Op.Authenticate:
      return { principal: r.bytes(32).slice() };
    default:
      return {};
  }
}

/**
 * Encode a response frame (for tests and stand-in brokers). `error` makes an
 * error frame; otherwise `body` is encoded for `op`.
 * @param {number} correlationId
 * @param {number} op
 * @param {{ error?: { status: string, message: string, bounds?: [number, number] }, body?: any }} what
 * @returns {Uint8Array}
 */
export function encodeResponse(correlationId, op, what) {
  const w = new Writer(64);
  w.u32(0);
  w.u8(op | RESPONSE_BIT);
  w.u32(correlationId);
  if (what.error) {
    const code = Status[what.error.status];
    if (code === undefined || code === 0) throw new ClientError('InvalidArgument', `invalid argument: status ${what.error.status}`);
    w.u16(code);
    const m = utf8.encode(what.error.message);
    w.u16(m.length);
    w.bytes(m);
    if (carriesBounds(code)) {
      const [a, b] = what.error.bounds ?? [0, 0];
      w.u64(a);
      w.u64(b);
    }
  } else {
    w.u16(0);
    const b = what.body ?? {};
    switch (op) {
      case Op.Produce:
      case Op.ConditionalProduce:
        w.u64(b.baseOffset);
        break;
      case Op.Claim:
        w.u64(b.offset);
        w.u64(b.next);
        w.u32(b.batch.length);
        w.bytes(b.batch);
        break;
      case Op.Fetch:
        w.u64(b.highWatermark);
        w.u64(b.logStart);
        w.u32(b.records.length);
        w.bytes(b.records);
        break;
      case Op.Committed:
        w.u8(b.offset === null ? 0 : 1);
        w.u64(b.offset ?? 0);
        break;
      case Op.Metadata:
        encodeTopics(w, b);
        break;
      case Op.ListTopics:
        encodeTopics(w, b.topics);
        put8(w, utf8.encode(b.next ?? ''));
        break;
      case Op.Authenticate:
        w.bytes(b.principal);
        break;
      default:
        break;
    }
  }
  const frame = w.finish();
  new DataView(frame.buffer, frame.byteOffset).setUint32(0, frame.length - 4);
  return frame;
}

/**
 * @param {Writer} w
 * @param {any[]} topics
 */
function encodeTopics(w, topics) {
  w.u32(topics.length);
  for (const t of topics) {
    put8(w, utf8.encode(t.name));
    w.u8(t.cleanup ?? 0);
    w.u64(t.retentionMs ?? U64_MAX);
    w.u64(t.retentionBytes ?? U64_MAX);
    w.u32(t.partitions.length);
    for (const p of t.partitions) {
      w.u32(p.partition);
      w.u64(p.logStart);
      w.u64(p.highWatermark);
    }
  }
}

/**
 * The error a refused request gets (Rust's `ClientError::Broker` /
 * `OffsetOutOfRange` / `EndMoved`). An `Unauthorized` refusal's message is
 * the broker's as it is: it already names the action, the topic and the
 * principal.
 * @param {ErrorBody} e
 * @returns {ClientError}
 */
export function brokerError(e) {
  if (e.status === 'OffsetOutOfRange' && e.bounds) {
    const [logStart, highWatermark] = e.bounds;
    return new ClientError(
      'OffsetOutOfRange',
      `offset out of range: the partition holds ${logStart}..${highWatermark} (${e.message})`,
      { status: e.status, statusCode: e.statusCode, logStart, highWatermark },
    );
  }
  if (e.status === 'EndMoved' && e.bounds) {
    const [logStart, end] = e.bounds;
    return new ClientError(
      'EndMoved',
      `the log ends at ${end}, not where expected (${e.message})`,
      { status: e.status, statusCode: e.statusCode, logStart, end },
    );
  }
  const message = e.status === 'Unauthorized' ? e.message : `broker refused: ${e.status}: ${e.message}`;
  return new ClientError('Broker', message, { status: e.status, statusCode: e.statusCode });
}

/**
 * The name of an op code, for messages.
 * @param {number} op
 * @returns {string}
 */
export function opName(op) {
  return OP_NAMES.get(op) ?? `0x${op.toString(16)}`;
}
