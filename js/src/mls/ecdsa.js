// ECDSA P-256 as RFC 9420 wants it, on Web Crypto (docs/MLS.md §11.2):
// signatures are DER in MLS and raw r‖s in Web Crypto; this converts both
// ways, strictly, and normalises to low S (n − s when s > n/2) what Web
// Crypto signs, which is high-S about half the time. Public keys are
// uncompressed SEC1 points (65 bytes), nothing else.
// Internal (not re-exported by index.js).

import { ECDSA, ECDSA_SHA256, subtle } from '../crypto/webcrypto.js';

/** The order of the P-256 group. */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HALF_N = N >> 1n;

/** Length of an uncompressed SEC1 P-256 point. */
export const SEC1_LEN = 65;
/** Length of a raw r‖s signature. */
export const RAW_SIGNATURE_LEN = 64;

/**
 * @param {Uint8Array} bytes 32 bytes, big-endian
 * @returns {bigint}
 */
function toBig(bytes) {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/**
 * @param {bigint} v
 * @returns {Uint8Array} 32 bytes, big-endian
 */
function fromBig(v) {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/**
 * `raw` (r‖s) with s replaced by n − s when s is in the upper half: the
 * same signature's low-S form, which every verifier accepts.
 * @param {Uint8Array} raw 64 bytes
 * @returns {Uint8Array}
 */
export function lowS(raw) {
  if (raw.length !== RAW_SIGNATURE_LEN) throw new RangeError('an ECDSA P-256 signature is 64 bytes r‖s');
  const s = toBig(raw.subarray(32));
  if (s <= HALF_N) return raw;
  const out = Uint8Array.from(raw);
  out.set(fromBig(N - s), 32);
  return out;
}

/**
 * One DER INTEGER of a positive value below 2^256, minimal.
 * @param {Uint8Array} v 32 bytes, big-endian
 * @returns {Uint8Array}
 */
function derInteger(v) {
  let i = 0;
  while (i < v.length - 1 && v[i] === 0) i++;
  const body = v.subarray(i);
  const pad = body[0] & 0x80 ? 1 : 0;
  const out = new Uint8Array(2 + pad + body.length);
  out[0] = 0x02;
  out[1] = pad + body.length;
  out.set(body, 2 + pad);
  return out;
}

/**
 * DER `SEQUENCE { r INTEGER, s INTEGER }` of a raw r‖s signature.
 * @param {Uint8Array} raw 64 bytes
 * @returns {Uint8Array}
 */
export function rawToDer(raw) {
  if (raw.length !== RAW_SIGNATURE_LEN) throw new RangeError('an ECDSA P-256 signature is 64 bytes r‖s');
  const r = derInteger(raw.subarray(0, 32));
  const s = derInteger(raw.subarray(32));
  const out = new Uint8Array(2 + r.length + s.length);
  out[0] = 0x30;
  out[1] = r.length + s.length;
  out.set(r, 2);
  out.set(s, 2 + r.length);
  return out;
}

/**
 * Reads one minimal DER INTEGER in 1..n−1 at `at`; its value (32 bytes) and
 * the offset after it, or null.
 * @param {Uint8Array} der
 * @param {number} at
 * @returns {[Uint8Array, number] | null}
 */
function readInteger(der, at) {
  if (at + 2 > der.length || der[at] !== 0x02) return null;
  const len = der[at + 1];
  if (len === 0 || len > 33 || at + 2 + len > der.length) return null;
  const body = der.subarray(at + 2, at + 2 + len);
  if (body[0] & 0x80) return null; // negative
  if (len > 1 && body[0] === 0 && !(body[1] & 0x80)) return null; // not minimal
  const value = body[0] === 0 ? body.subarray(1) : body;
  if (value.length > 32) return null;
  const out = new Uint8Array(32);
  out.set(value, 32 - value.length);
  const big = toBig(out);
  if (big === 0n || big >= N) return null;
  return [out, at + 2 + len];
}

/**
 * Raw r‖s of a strict DER signature (minimal integers in 1..n−1, short-form
 * lengths, nothing after), or null for anything else.
 * @param {Uint8Array} der
 * @returns {Uint8Array | null}
 */
export function derToRaw(der) {
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) return null;
  const r = readInteger(der, 2);
  if (!r) return null;
  const s = readInteger(der, r[1]);
  if (!s || s[1] !== der.length) return null;
  const out = new Uint8Array(RAW_SIGNATURE_LEN);
  out.set(r[0]);
  out.set(s[0], 32);
  return out;
}

/** Imported verification keys by point (hex), so a leaf's key is parsed once. */
const verifiers = new Map();
/** How many imported keys are kept. */
const VERIFIER_CACHE = 4096;

/**
 * The Web Crypto verification key of an uncompressed point, or null when
 * `point` is not one.
 * @param {Uint8Array} point
 * @returns {Promise<CryptoKey | null>}
 */
async function verifier(point) {
  if (point.length !== SEC1_LEN || point[0] !== 0x04) return null;
  const id = Array.from(point, (b) => b.toString(16).padStart(2, '0')).join('');
  const hit = verifiers.get(id);
  if (hit) return hit;
  let key;
  try {
    key = await subtle().importKey('raw', /** @type {BufferSource} */ (point), ECDSA, false, ['verify']);
  } catch {
    return null;
  }
  if (verifiers.size >= VERIFIER_CACHE) verifiers.delete(verifiers.keys().next().value);
  verifiers.set(id, key);
  return key;
}

/**
 * Verifies a raw r‖s ECDSA P-256 SHA-256 signature over `message` by the
 * uncompressed point `point`. False for any malformed input.
 * @param {Uint8Array} point
 * @param {Uint8Array} message
 * @param {Uint8Array} raw
 * @returns {Promise<boolean>}
 */
export async function verifyRaw(point, message, raw) {
  if (raw.length !== RAW_SIGNATURE_LEN) return false;
  const key = await verifier(point);
  if (!key) return false;
  return subtle().verify(ECDSA_SHA256, key, /** @type {BufferSource} */ (raw), /** @type {BufferSource} */ (message));
}
