// Byte helpers shared by the SDK: strict standard base64, UTF-8, concatenation,
// comparison and hex. Everything takes and returns Uint8Array.

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Int16Array(256).fill(-1);
for (let i = 0; i < B64.length; i++) B64_INDEX[B64.charCodeAt(i)] = i;

const ENCODER = new TextEncoder();

/** Thrown when a base64 string is not canonical standard padded base64. */
export class Base64Error extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'Base64Error';
    /** @type {'HERMIT_BASE64'} */
    this.code = 'HERMIT_BASE64';
  }
}

/**
 * Standard base64 (RFC 4648 §4) with padding.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toBase64(bytes) {
  let out = '';
  const n = bytes.length;
  let i = 0;
  // Chunks of 3 bytes; the string is built in pieces so huge inputs do not
  // hit argument-count limits.
  const parts = [];
  for (; i + 3 <= n; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
    if (out.length >= 0x10000) {
      parts.push(out);
      out = '';
    }
  }
  if (n - i === 1) {
    const v = bytes[i] << 16;
    out += B64[v >> 18] + B64[(v >> 12) & 63] + '==';
  } else if (n - i === 2) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + '=';
  }
  parts.push(out);
  return parts.join('');
}

/**
 * Decodes canonical standard padded base64, as Rust's `base64::STANDARD` does:
 * no whitespace, no missing padding, no non-zero trailing bits, no URL alphabet.
 * @param {string} text
 * @returns {Uint8Array}
 * @throws {Base64Error}
 */
export function fromBase64(text) {
  if (typeof text !== 'string') throw new Base64Error('base64 input must be a string');
  if (text.length % 4 !== 0) throw new Base64Error('base64 length is not a multiple of 4');
  let pad = 0;
  if (text.endsWith('==')) pad = 2;
  else if (text.endsWith('=')) pad = 1;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    let v = 0;
    for (let j = 0; j < 4; j++) {
      const c = text.charCodeAt(i + j);
      let d;
      if (last && c === 61 /* = */ && j >= 4 - pad) d = 0;
      else {
        d = c < 256 ? B64_INDEX[c] : -1;
        if (d < 0) throw new Base64Error('invalid base64 character');
      }
      v = (v << 6) | d;
    }
    out[o++] = v >> 16;
    if (o < out.length) out[o++] = (v >> 8) & 0xff;
    if (o < out.length) out[o++] = v & 0xff;
    if (last && ((pad === 1 && (v & 0xff) !== 0) || (pad === 2 && (v & 0xffff) !== 0))) {
      throw new Base64Error('non-canonical base64 (trailing bits set)');
    }
  }
  return out;
}

/**
 * UTF-8 encoding of a string.
 * @param {string} text
 * @returns {Uint8Array}
 */
export function utf8(text) {
  return ENCODER.encode(text);
}

/**
 * Strict UTF-8 decoding: invalid UTF-8 throws (no U+FFFD), a leading BOM is kept.
 * @param {Uint8Array} bytes
 * @returns {string}
 * @throws {TypeError} on invalid UTF-8
 */
export function fromUtf8(bytes) {
  // A fresh decoder each time: a fatal decoder that threw is not reused mid-stream.
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
}

/**
 * Concatenates byte arrays (or arrays of numbers).
 * @param {...(Uint8Array|number[])} parts
 * @returns {Uint8Array}
 */
export function concat(...parts) {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Whether two byte arrays are equal. Not constant-time: use it on public values
 * only (the SDK compares secrets through Web Crypto's `verify`).
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 * @returns {boolean}
 */
export function equal(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Lower-case hex, no separators.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toHex(bytes) {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

/**
 * Parses hex (either case, even length).
 * @param {string} text
 * @returns {Uint8Array}
 * @throws {TypeError}
 */
export function fromHex(text) {
  if (typeof text !== 'string' || text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) {
    throw new TypeError('not an even-length hex string');
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
  return out;
}

/**
 * Checks that `value` is a Uint8Array (so errors name the argument, not a
 * Web Crypto internal).
 * @param {unknown} value
 * @param {string} what
 * @returns {Uint8Array}
 */
export function checkBytes(value, what) {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  return value;
}
