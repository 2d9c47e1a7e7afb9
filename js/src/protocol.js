/**
 * The HermitMQ wire protocol, version 3 (docs/PROTOCOL.md; `protocol/src/*.rs`
 * is the reference): hellos, request and response frames, record batches.
 *
 * Sans-I/O, like the Rust `hermit-protocol` crate: functions turn values into
 * bytes and bytes into values, and every length is checked before it is used
 * or anything is allocated for it. Malformed input throws a {@link WireError};
 * the connection that received it closes.
 *
 * Integers: every u32 is a `number`. Offsets, high watermarks and log starts
 * are `number`s too, checked to be safe integers (below 2^53, some nine
 * quadrillion records) when decoded. Timestamps (ns since the Unix epoch,
 * ~1.7e18) and retention values (`u64::MAX` means unlimited) do not fit a
 * double: they are `bigint`s.
 *
 * @module protocol
 */

import { crc32c } from './crc32c.js';

// ---------------------------------------------------------------------------
// Errors

/**
 * Every error of the connection, producer and consumer (Rust's `ClientError`).
 * `code` says which kind:
 * `Connect`, `ConnectionLost`, `Timeout`, `Protocol`, `UnsupportedVersion`,
 * `OffsetOutOfRange`, `Broker`, `AuthRequired`, `AuthFailed`, `CorruptBatch`,
 * `InvalidName`, `RequestTooLarge`, `InvalidArgument`, `Closed`.
 */
export class ClientError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ cause?: unknown, status?: string, statusCode?: number,
   *   logStart?: number, highWatermark?: number, topic?: string,
   *   partition?: number, baseOffset?: number }} [details]
   */
  constructor(code, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ClientError';
    /** @type {string} */
    this.code = code;
    /** The broker's status name (`Unauthorized`, …) when the broker refused the request. @type {string|undefined} */
    this.status = details.status;
    /** Its numeric code. @type {number|undefined} */
    this.statusCode = details.statusCode;
    if (details.logStart !== undefined) {
      /** For `OffsetOutOfRange`: the first offset still stored. */
      this.logStart = details.logStart;
      /** For `OffsetOutOfRange`: the offset the next record will get. */
      this.highWatermark = details.highWatermark;
    }
    if (details.topic !== undefined) {
      this.topic = details.topic;
      this.partition = details.partition;
      this.baseOffset = details.baseOffset;
    }
  }

  /**
   * Whether trying the same operation again (on a new connection) may
   * succeed: connection failures, timeouts, and the statuses Rust's
   * `Status::is_retriable` marks.
   * @returns {boolean}
   */
  get retriable() {
    if (this.code === 'Connect' || this.code === 'ConnectionLost' || this.code === 'Timeout') return true;
    return this.code === 'Broker' && RETRIABLE_STATUSES.has(this.status ?? '');
  }

  /**
   * Whether this is about authentication or authorization (`AuthRequired`,
   * `AuthFailed`, or a request refused `Unauthorized`).
   * @returns {boolean}
   */
  get isAuth() {
    return this.code === 'AuthRequired' || this.code === 'AuthFailed' || this.status === 'Unauthorized';
  }
}

/**
 * Bytes that do not follow the protocol (`code` = `Protocol`); `kind` names
 * the rule that was broken, as Rust's `WireError` variants do
 * (`UnexpectedEof`, `BadMagic`, `CrcMismatch`, `FrameTooShort`,
 * `FrameTooLarge`, `LengthMismatch`, `InvalidField`, `UnknownOp`,
 * `BadHello`, `EmptyBatch`, `BadPayload`, `TooLong`, `KeyTooLarge`,
 * `PayloadTooLarge`, `InvalidName`).
 */
export class WireError extends ClientError {
  /**
   * @param {string} kind
   * @param {string} message
   */
  constructor(kind, message) {
    super('Protocol', `protocol error: ${message}`);
    this.name = 'WireError';
    /** @type {string} */
    this.kind = kind;
  }
}

// ---------------------------------------------------------------------------
// Constants

/** The protocol version this SDK speaks. */
export const PROTOCOL_VERSION = 3;
/** Length of the client's hello and of the head of every broker hello. */
export const HELLO_LEN = 8;
/** Length of the nonce in a version-3 broker hello. */
export const NONCE_LEN = 32;
/** Length of a broker id. */
export const BROKER_ID_LEN = 16;
/** Length of a whole version-3 broker hello. */
export const BROKER_HELLO_V3_LEN = HELLO_LEN + 4 + NONCE_LEN + 1 + BROKER_ID_LEN;
/** Bytes before a request's body: length, op, correlation id. */
export const REQUEST_HEADER_LEN = 9;
/** Bytes before a response's body: length, op, correlation id, status. */
export const RESPONSE_HEADER_LEN = 11;
/** Bytes of a successful fetch response before its record bytes. */
export const FETCH_RESPONSE_HEADER_LEN = RESPONSE_HEADER_LEN + 8 + 8 + 4;
/** Set on the op byte of every response. */
export const RESPONSE_BIT = 0x80;
/** Largest frame (after the length prefix) of any request other than Produce. */
export const MAX_CONTROL_FRAME = 1024;
/** Largest partition count a topic may have. */
export const MAX_PARTITIONS = 4096;
/**
 * Most topics one ListTopics page may hold (its `limit` is 1..=this), and
 * the most a Metadata of all topics answers with.
 */
export const MAX_LIST_LIMIT = 1000;
/** Longest topic or group name, in bytes. */
export const MAX_NAME_LEN = 249;
/** Largest SPKI or signature an Authenticate may carry. */
export const MAX_AUTH_FIELD = 512;
/** Authenticate mechanism: ECDSA P-256 with SHA-256, raw r‖s, DER SPKI. */
export const MECHANISM_P256_ECDSA = 1;
/** Domain-separation label of the authentication transcript. */
export const AUTH_LABEL = new TextEncoder().encode('hermit-auth/v1');

/** Record batch magic byte (version 2 batches, with CRC). */
export const MAGIC = 0x02;
/** Length of a record batch header. */
export const HEADER_LEN = 33;
/** First byte covered by a batch's CRC (the timestamp). */
export const CRC_START = 13;
/** Bytes of per-record framing inside a client payload (u32 length). */
export const RECORD_LEN_PREFIX = 4;
/** `u64::MAX`: "unlimited" retention in metadata and CreateTopic. */
export const U64_MAX = 0xffff_ffff_ffff_ffffn;

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
});

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

/** Flags of a version-3 broker hello. */
export const BrokerFlags = Object.freeze({
  /** Every op but Ping and Authenticate needs a principal. */
  AUTH_REQUIRED: 1,
  /** Authenticate is accepted. */
  AUTH_AVAILABLE: 1 << 1,
  /** The connection runs over TLS. */
  TLS: 1 << 2,
  /** A client certificate already named the principal. */
  AUTHENTICATED: 1 << 3,
});

/** Status names by code (PROTOCOL.md §4); numbers are stable and never reused. */
export const STATUS_NAMES = Object.freeze([
  'Ok',
  'UnknownTopic',
  'InvalidTopicName',
  'OffsetOutOfRange',
  'PayloadTooLarge',
  'CorruptBatch',
  'StorageError',
  'InvalidRequest',
  'NotDurable',
  'ShuttingDown',
  'Unauthorized',
  'UnknownPartition',
  'TopicExists',
  'UnknownOp',
  'KeyTooLarge',
  'CorruptData',
  'UnsupportedVersion',
  'TooManyConnections',
  'Timeout',
  'OffsetAheadOfLog',
]);

/** Status codes by name, e.g. `Status.Unauthorized === 10`. */
export const Status = Object.freeze(Object.fromEntries(STATUS_NAMES.map((n, i) => [n, i])));

const RETRIABLE_STATUSES = new Set(['StorageError', 'ShuttingDown', 'TooManyConnections', 'Timeout']);

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// ---------------------------------------------------------------------------
// Reading and writing

/** A bounds-checked big-endian reader over a byte view. */
export class Reader {
  /** @param {Uint8Array} buf */
  constructor(buf) {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = 0;
  }

  /** Bytes not read yet. */
  get remaining() {
    return this.buf.length - this.pos;
  }

  /** @param {number} n */
  need(n) {
    if (this.remaining < n) {
      throw new WireError('UnexpectedEof', `need ${this.pos + n} bytes, have ${this.buf.length}`);
    }
  }

  u8() {
    this.need(1);
    return this.buf[this.pos++];
  }

  u16() {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  u32() {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  /** A u64 as a bigint. */
  u64n() {
    this.need(8);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return v;
  }

  /**
   * A u64 that must be a safe integer (offsets).
   * @param {string} field
   */
  u64(field) {
    const v = this.u64n();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new WireError('InvalidField', `${field} ${v} is beyond 2^53`);
    }
    return Number(v);
  }

  /**
   * `n` bytes, as a view into the buffer (no copy).
   * @param {number} n
   */
  bytes(n) {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /**
   * A `u8 len` + UTF-8 string.
   * @param {string} field
   */
  str8(field) {
    return decodeUtf8(this.bytes(this.u8()), field);
  }

  /**
   * A `u16 len` + UTF-8 string.
   * @param {string} field
   */
  str16(field) {
    return decodeUtf8(this.bytes(this.u16()), field);
  }

  /** Fail unless every byte was read. */
  finish() {
    if (this.remaining !== 0) {
      throw new WireError('LengthMismatch', `${this.remaining} bytes left over after the body`);
    }
  }
}

/**
 * @param {Uint8Array} b
 * @param {string} field
 */
function decodeUtf8(b, field) {
  try {
    return strictUtf8.decode(b);
  } catch (e) {
    const err = new WireError('InvalidField', `${field} is not UTF-8`);
    err.cause = e;
    throw err;
  }
}

/** A growing big-endian writer. */
class Writer {
  /** @param {number} [capacity] */
  constructor(capacity = 64) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
    this.len = 0;
  }

  /** @param {number} n */
  reserve(n) {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** @param {number} v */
  u8(v) {
    this.reserve(1);
    this.buf[this.len++] = v;
  }

  /** @param {number} v */
  u16(v) {
    this.reserve(2);
    this.view.setUint16(this.len, v);
    this.len += 2;
  }

  /** @param {number} v */
  u32(v) {
    this.reserve(4);
    this.view.setUint32(this.len, v);
    this.len += 4;
  }

  /** @param {number|bigint} v */
  u64(v) {
    this.reserve(8);
    this.view.setBigUint64(this.len, BigInt(v));
    this.len += 8;
  }

  /** @param {Uint8Array} b */
  bytes(b) {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** The bytes written. */
  finish() {
    return this.buf.subarray(0, this.len);
  }
}

/**
 * @param {unknown} v
 * @param {string} field
 * @param {number} max
 */
function checkUint(v, field, max) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw new ClientError('InvalidArgument', `invalid argument: ${field} must be an integer in 0..=${max}, got ${String(v)}`);
  }
  return v;
}

/** @param {unknown} v @param {string} field */
const u32Arg = (v, field) => checkUint(v, field, 0xffff_ffff);
/** @param {unknown} v @param {string} field */
const offsetArg = (v, field) => checkUint(v, field, Number.MAX_SAFE_INTEGER);

/**
 * @param {unknown} v
 * @param {string} field
 */
function u64Arg(v, field) {
  const b = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : -1n;
  if (b < 0n || b > U64_MAX) {
    throw new ClientError('InvalidArgument', `invalid argument: ${field} must be a u64 (number or bigint), got ${String(v)}`);
  }
  return b;
}

// ---------------------------------------------------------------------------
// Names

/**
 * Why `name` is not a valid user topic name, or `null` if it is
 * (1–249 bytes of `[A-Za-z0-9._-]`, not `.` or `..`, no `__` prefix).
 * @param {string} name
 * @returns {string|null}
 */
export function topicNameError(name) {
  const why = nameCharsError(name);
  if (why !== null) return why;
  if (name.startsWith('__')) return "the '__' prefix is reserved for internal topics";
  return null;
}

/**
 * The charset rules of topic names (every rule but the `__` prefix).
 * @param {string} name
 * @returns {string|null}
 */
function nameCharsError(name) {
  if (typeof name !== 'string' || name.length === 0) return 'name is empty';
  if (name.length > MAX_NAME_LEN) return `name is ${name.length} bytes long (max ${MAX_NAME_LEN})`;
  const bad = name.search(/[^A-Za-z0-9._-]/);
  if (bad >= 0) return `character ${JSON.stringify(name[bad])} at position ${bad} is not allowed (use A-Z a-z 0-9 . _ -)`;
  if (name === '.' || name === '..') return "'.' and '..' are not names";
  return null;
}

/**
 * Why `name` is not a valid ListTopics cursor, or `null` if it is: a topic
 * name by the charset rules, the internal `__` prefix allowed (a cursor is
 * a place in the order of names, and the broker may hand out an internal
 * name as the last one it looked at).
 * @param {string} name
 * @returns {string|null}
 */
export function cursorNameError(name) {
  return nameCharsError(name);
}

/**
 * Why `name` is not a valid group name, or `null` if it is (1–249 bytes of
 * UTF-8 without control characters).
 * @param {string} name
 * @returns {string|null}
 */
export function groupNameError(name) {
  if (typeof name !== 'string' || name.length === 0) return 'name is empty';
  const len = utf8.encode(name).length;
  if (len > MAX_NAME_LEN) return `name is ${len} bytes long (max ${MAX_NAME_LEN})`;
  // Rust's char::is_control: C0, DEL and C1.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'group names must be printable UTF-8';
  return null;
}

/**
 * @param {string} name
 * @returns {Uint8Array}
 */
export function checkTopic(name) {
  const why = topicNameError(name);
  if (why !== null) throw new ClientError('InvalidName', `invalid topic name ${JSON.stringify(name)}: ${why}`);
  return utf8.encode(name);
}

/**
 * @param {string} name
 * @returns {Uint8Array}
 */
export function checkGroup(name) {
  const why = groupNameError(name);
  if (why !== null) throw new ClientError('InvalidName', `invalid group name ${JSON.stringify(name)}: ${why}`);
  return utf8.encode(name);
}

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

// ---------------------------------------------------------------------------
// Hellos

/**
 * The client's 8-byte hello: `"HMQ"`, version 3, flags 0.
 * @returns {Uint8Array}
 */
export function encodeClientHello() {
  return Uint8Array.of(0x48, 0x4d, 0x51, PROTOCOL_VERSION, 0, 0, 0, 0);
}

/**
 * @typedef {object} BrokerHello
 * @property {number} version   always 3 (anything else throws)
 * @property {number} maxFrame  largest frame the broker accepts (after the length prefix)
 * @property {number} flags     {@link BrokerFlags} bits
 * @property {Uint8Array} nonce     32 fresh bytes for this connection
 * @property {Uint8Array} brokerId  the broker's id (16 bytes)
 */

/**
 * Decode a broker hello (one whole WebSocket message).
 *
 * Throws `UnsupportedVersion` for a broker of another version (a version-2
 * broker's 8-byte hello included) and a {@link WireError} for anything else
 * that is not a version-3 hello.
 *
 * @param {Uint8Array} buf
 * @returns {BrokerHello}
 */
export function decodeBrokerHello(buf) {
  const r = new Reader(buf);
  if (buf.length < 3 || buf[0] !== 0x48 || buf[1] !== 0x4d || buf[2] !== 0x51) {
    throw new WireError('BadHello', 'the broker hello does not start with "HMQ"');
  }
  r.pos = 3;
  const version = r.u8();
  const maxFrame = r.u32();
  if (version !== PROTOCOL_VERSION) {
    throw new ClientError(
      'UnsupportedVersion',
      `the broker speaks protocol version ${version}; this client speaks ${PROTOCOL_VERSION}`,
    );
  }
  const flags = r.u32();
  const nonce = r.bytes(NONCE_LEN).slice();
  const idLen = r.u8();
  if (idLen !== BROKER_ID_LEN) {
    throw new WireError('InvalidField', `broker id length ${idLen} (expected ${BROKER_ID_LEN})`);
  }
  const brokerId = r.bytes(idLen).slice();
  r.finish();
  return { version, maxFrame, flags, nonce, brokerId };
}

/**
 * Encode a version-3 broker hello (for tests and stand-in brokers).
 * @param {{ maxFrame: number, flags: number, nonce: Uint8Array, brokerId: Uint8Array }} h
 * @returns {Uint8Array}
 */
export function encodeBrokerHello(h) {
  const w = new Writer(BROKER_HELLO_V3_LEN);
  w.bytes(Uint8Array.of(0x48, 0x4d, 0x51, PROTOCOL_VERSION));
  w.u32(h.maxFrame);
  w.u32(h.flags);
  w.bytes(h.nonce);
  w.u8(h.brokerId.length);
  w.bytes(h.brokerId);
  return w.finish();
}

/**
 * The bytes an Authenticate signs: `"hermit-auth/v1" ‖ nonce ‖ u8 len ‖
 * broker_id ‖ SPKI` (`hermit_protocol::auth::transcript`).
 * @param {Uint8Array} nonce
 * @param {Uint8Array} brokerId
 * @param {Uint8Array} spki
 * @returns {Uint8Array}
 */
export function authTranscript(nonce, brokerId, spki) {
  const id = brokerId.subarray(0, 255);
  const out = new Uint8Array(AUTH_LABEL.length + nonce.length + 1 + id.length + spki.length);
  let at = 0;
  out.set(AUTH_LABEL, at);
  at += AUTH_LABEL.length;
  out.set(nonce, at);
  at += nonce.length;
  out[at++] = id.length;
  out.set(id, at);
  at += id.length;
  out.set(spki, at);
  return out;
}

// ---------------------------------------------------------------------------
// Requests

/**
 * @typedef {{ op: 'produce', topic: string, partition: number, ack: number, batch: Uint8Array }
 *   | { op: 'fetch', topic: string, partition: number, offset: number, maxBytes: number, maxWaitMs: number }
 *   | { op: 'commit', group: string, topic: string, partition: number, offset: number }
 *   | { op: 'committed', group: string, topic: string, partition: number }
 *   | { op: 'metadata', topic?: string|null }
 *   | { op: 'listTopics', after?: string|null, limit: number }
 *   | { op: 'createTopic', topic: string, partitions: number, cleanup?: number, retentionMs?: number|bigint, retentionBytes?: number|bigint }
 *   | { op: 'deleteTopic', topic: string }
 *   | { op: 'ping' }
 *   | { op: 'authenticate', mechanism?: number, spki: Uint8Array, signature: Uint8Array }} Request
 */

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
  const w = new Writer(req.op === 'produce' ? REQUEST_HEADER_LEN + 1 + 255 + 5 + req.batch.length : 64);
  w.u32(0); // patched below
  w.u8(op);
  w.u32(correlationId);
  switch (req.op) {
    case 'produce': {
      const topic = checkTopic(req.topic);
      const partition = u32Arg(req.partition, 'partition');
      if (req.ack !== Ack.Written && req.ack !== Ack.Durable) {
        throw new ClientError('InvalidArgument', `invalid argument: ack must be Ack.Written or Ack.Durable`);
      }
      // The batch must be one whole, well-formed batch: the broker closes the
      // connection over a bad one, failing every other request on it.
      const { length } = parseBatch(req.batch, 0);
      if (length !== req.batch.length) {
        throw new ClientError('InvalidArgument', `invalid argument: the batch has ${req.batch.length - length} bytes after its end`);
      }
      put8(w, topic);
      w.u32(partition);
      w.u8(req.ack);
      w.bytes(req.batch);
      break;
    }
    case 'fetch':
      put8(w, checkTopic(req.topic));
      w.u32(u32Arg(req.partition, 'partition'));
      w.u64(offsetArg(req.offset, 'offset'));
      w.u32(u32Arg(req.maxBytes, 'maxBytes'));
      w.u32(u32Arg(req.maxWaitMs, 'maxWaitMs'));
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
    case 'authenticate':
      w.u8(req.mechanism ?? MECHANISM_P256_ECDSA);
      put16(w, req.spki, 'spki');
      put16(w, req.signature, 'signature');
      break;
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
 * @property {[number, number]|null} bounds  `[logStart, highWatermark]` for `OffsetOutOfRange`
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
 * Bodies by op: Produce `{ baseOffset }`; Fetch `{ highWatermark, logStart,
 * records /* Uint8Array view *\/ }`; Committed `{ offset /* number|null *\/ }`;
 * Metadata `TopicMetadata[]`; ListTopics {@link TopicPage}; Authenticate
 * `{ principal /* 32 bytes *\/ }`;
 * the others `{}`.
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
    if (code === Status.OffsetOutOfRange) bounds = [r.u64('log_start'), r.u64('high_watermark')];
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
      return { baseOffset: r.u64('base_offset') };
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
    if (code === Status.OffsetOutOfRange) {
      const [a, b] = what.error.bounds ?? [0, 0];
      w.u64(a);
      w.u64(b);
    }
  } else {
    w.u16(0);
    const b = what.body ?? {};
    switch (op) {
      case Op.Produce:
        w.u64(b.baseOffset);
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
 * `OffsetOutOfRange`). An `Unauthorized` refusal's message is the broker's as
 * it is: it already names the action, the topic and the principal.
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
  const message = e.status === 'Unauthorized' ? e.message : `broker refused: ${e.status}: ${e.message}`;
  return new ClientError('Broker', message, { status: e.status, statusCode: e.statusCode });
}

// ---------------------------------------------------------------------------
// Record batches

/**
 * @typedef {object} RecordHeader
 * @property {number} baseOffset   assigned by the broker (0 from producers)
 * @property {number} crc          CRC-32C of bytes 13..end
 * @property {bigint} timestampNs  producer clock, ns since the Unix epoch (0: the broker stamps)
 * @property {number} keyLen
 * @property {number} payloadLen
 * @property {number} recordCount  at least 1
 */

/**
 * @typedef {object} BatchView
 * @property {RecordHeader} header
 * @property {Uint8Array} bytes    the whole batch (a view, header included)
 * @property {Uint8Array} key      a view
 * @property {Uint8Array} payload  a view
 * @property {number} length       bytes the batch spans
 */

/**
 * Decode and check a batch header at `buf[at..]`: the magic, a non-zero
 * record count, and `recordCount <= max(1, payloadLen / 4)`.
 * @param {Uint8Array} buf
 * @param {number} [at]
 * @returns {RecordHeader}
 */
export function decodeRecordHeader(buf, at = 0) {
  if (buf.length - at < 1) throw new WireError('UnexpectedEof', `need ${at + 1} bytes, have ${buf.length}`);
  if (buf[at] !== MAGIC) throw new WireError('BadMagic', `batch magic 0x${buf[at].toString(16)} (expected 0x02)`);
  const r = new Reader(buf.subarray(at));
  r.need(HEADER_LEN);
  r.pos = 1;
  const baseOffset = r.u64('base_offset');
  const h = {
    baseOffset,
    crc: r.u32(),
    timestampNs: r.u64n(),
    keyLen: r.u32(),
    payloadLen: r.u32(),
    recordCount: r.u32(),
  };
  if (h.recordCount === 0) throw new WireError('EmptyBatch', 'a batch declares zero records');
  if (h.recordCount > Math.max(1, Math.floor(h.payloadLen / RECORD_LEN_PREFIX))) {
    throw new WireError('InvalidField', `record count ${h.recordCount} for a payload of ${h.payloadLen} bytes`);
  }
  return h;
}

/**
 * Parse the batch at `buf[at..]` (structure only; see {@link verifyCrc}).
 * @param {Uint8Array} buf
 * @param {number} [at]
 * @returns {BatchView}
 */
export function parseBatch(buf, at = 0) {
  const header = decodeRecordHeader(buf, at);
  const length = HEADER_LEN + header.keyLen + header.payloadLen;
  if (buf.length - at < length) {
    throw new WireError('UnexpectedEof', `a batch of ${length} bytes, ${buf.length - at} left`);
  }
  const bytes = buf.subarray(at, at + length);
  return {
    header,
    bytes,
    key: bytes.subarray(HEADER_LEN, HEADER_LEN + header.keyLen),
    payload: bytes.subarray(HEADER_LEN + header.keyLen),
    length,
  };
}

/**
 * Check a batch's stored CRC against its bytes; throws `CrcMismatch`.
 * @param {BatchView} batch
 */
export function verifyCrc(batch) {
  const computed = crc32c(batch.bytes, CRC_START);
  if (computed !== batch.header.crc) {
    throw new WireError(
      'CrcMismatch',
      `batch CRC 0x${batch.header.crc.toString(16).padStart(8, '0')} but the bytes give 0x${computed.toString(16).padStart(8, '0')}`,
    );
  }
}

/**
 * The batches in `buf` (e.g. a fetch response's records), one after the
 * other; throws at the first malformed one.
 * @param {Uint8Array} buf
 * @returns {Generator<BatchView>}
 */
export function* batches(buf) {
  let at = 0;
  while (at < buf.length) {
    const b = parseBatch(buf, at);
    at += b.length;
    yield b;
  }
}

/**
 * The records of a client payload: `count × (u32 len, bytes)`, as views. An
 * empty payload with a count of 1 is a tombstone: one empty record. Throws
 * `BadPayload` if a length runs past the payload, fewer records than declared
 * are there, or bytes are left over.
 * @param {Uint8Array} payload
 * @param {number} count
 * @returns {Generator<Uint8Array>}
 */
export function* records(payload, count) {
  if (payload.length === 0 && count === 1) {
    yield payload;
    return;
  }
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (payload.length - at < RECORD_LEN_PREFIX) throw new WireError('BadPayload', 'record length prefix cut short');
    const len = view.getUint32(at);
    at += RECORD_LEN_PREFIX;
    if (payload.length - at < len) throw new WireError('BadPayload', 'record runs past the payload');
    yield payload.subarray(at, at + len);
    at += len;
  }
  if (at !== payload.length) throw new WireError('BadPayload', 'bytes after the last record');
}

/**
 * The wall clock as a batch timestamp, ns since the Unix epoch, never 0.
 * (Millisecond resolution: browsers give no finer wall clock.)
 * @returns {bigint}
 */
export function nowNs() {
  const ms = Date.now();
  return ms > 0 ? BigInt(ms) * 1_000_000n : 1n;
}

/**
 * Builds a record batch in the client payload layout (Rust's `BatchBuilder`).
 *
 * ```js
 * const b = new BatchBuilder(utf8('key'));
 * b.push(utf8('hello'));
 * const batch = b.finish(nowNs());
 * ```
 */
export class BatchBuilder {
  /**
   * @param {Uint8Array} [key] the batch key (empty for none)
   */
  constructor(key = new Uint8Array(0)) {
    /** @type {Uint8Array} */
    this.key = key;
    /** @type {Uint8Array[]} */
    this.parts = [];
    this.payloadLen = 0;
  }

  /** Records so far. */
  get recordCount() {
    return this.parts.length;
  }

  /** Bytes of the batch so far, header included. */
  get length() {
    return HEADER_LEN + this.key.length + this.payloadLen;
  }

  /**
   * Append one record (kept by reference until `finish`).
   * @param {Uint8Array} record
   */
  push(record) {
    this.parts.push(record);
    this.payloadLen += RECORD_LEN_PREFIX + record.length;
  }

  /**
   * A tombstone for `key`: an empty payload with a record count of 1.
   * @param {Uint8Array} key
   * @param {bigint} timestampNs
   * @returns {Uint8Array}
   */
  static tombstone(key, timestampNs) {
    return encodeBatch(key, [], timestampNs, 1);
  }

  /**
   * Write header, records and CRC into one buffer (base offset 0).
   * @param {bigint} [timestampNs] default {@link nowNs}
   * @returns {Uint8Array}
   */
  finish(timestampNs = nowNs()) {
    if (this.parts.length === 0) throw new WireError('EmptyBatch', 'a batch needs at least one record');
    return encodeBatch(this.key, this.parts, timestampNs, this.parts.length);
  }
}

/**
 * @param {Uint8Array} key
 * @param {Uint8Array[]} recs
 * @param {bigint} timestampNs
 * @param {number} count
 */
function encodeBatch(key, recs, timestampNs, count) {
  let payloadLen = 0;
  for (const r of recs) payloadLen += RECORD_LEN_PREFIX + r.length;
  if (payloadLen > 0xffff_ffff || key.length > 0xffff_ffff) {
    throw new ClientError('InvalidArgument', `invalid argument: a batch payload of ${payloadLen} bytes does not fit a u32`);
  }
  const out = new Uint8Array(HEADER_LEN + key.length + payloadLen);
  const v = new DataView(out.buffer);
  out[0] = MAGIC;
  v.setBigUint64(13, u64Arg(timestampNs, 'timestampNs'));
  v.setUint32(21, key.length);
  v.setUint32(25, payloadLen);
  v.setUint32(29, count);
  out.set(key, HEADER_LEN);
  let at = HEADER_LEN + key.length;
  for (const r of recs) {
    v.setUint32(at, r.length);
    out.set(r, at + RECORD_LEN_PREFIX);
    at += RECORD_LEN_PREFIX + r.length;
  }
  v.setUint32(9, crc32c(out, CRC_START));
  return out;
}

/**
 * The name of an op code, for messages.
 * @param {number} op
 * @returns {string}
 */
export function opName(op) {
  return OP_NAMES.get(op) ?? `0x${op.toString(16)}`;
}
