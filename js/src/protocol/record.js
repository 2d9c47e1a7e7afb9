/**
 * Record batches (`protocol/src/record.rs`): the 33-byte header, batch views,
 * the client payload layout (`count × (u32 len, bytes)`) and a batch builder.
 *
 * @module protocol/record
 */

import { Reader, u64Arg } from './codec.js';
import { crc32c } from './crc32c.js';
import { ClientError, WireError } from './error.js';

/** Record batch magic byte (version 2 batches, with CRC). */
export const MAGIC = 0x02;
/** Length of a record batch header. */
export const HEADER_LEN = 33;
/** First byte covered by a batch's CRC (the timestamp). */
export const CRC_START = 13;
/** Bytes of per-record framing inside a client payload (u32 length). */
export const RECORD_LEN_PREFIX = 4;

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
