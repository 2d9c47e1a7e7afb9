/**
 * Checked big-endian primitives every decoder and encoder uses
 * (`protocol/src/codec.rs`): a bounds-checked {@link Reader}, a growing
 * {@link Writer}, and the range checks of request arguments.
 *
 * @module protocol/codec
 */

import { ClientError, WireError } from './error.js';

/** `u64::MAX`: "unlimited" retention in metadata and CreateTopic. */
export const U64_MAX = 0xffff_ffff_ffff_ffffn;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
export class Writer {
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
export function checkUint(v, field, max) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw new ClientError('InvalidArgument', `invalid argument: ${field} must be an integer in 0..=${max}, got ${String(v)}`);
  }
  return v;
}

/** @param {unknown} v @param {string} field */
export const u32Arg = (v, field) => checkUint(v, field, 0xffff_ffff);
/** @param {unknown} v @param {string} field */
export const offsetArg = (v, field) => checkUint(v, field, Number.MAX_SAFE_INTEGER);

/**
 * @param {unknown} v
 * @param {string} field
 */
export function u64Arg(v, field) {
  const b = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : -1n;
  if (b < 0n || b > U64_MAX) {
    throw new ClientError('InvalidArgument', `invalid argument: ${field} must be a u64 (number or bigint), got ${String(v)}`);
  }
  return b;
}
