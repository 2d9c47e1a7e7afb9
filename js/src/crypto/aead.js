// Internal Web Crypto helpers of the sealing layer (not re-exported by index.js).
//
// Web Crypto's types take a `BufferSource` (bytes over an ArrayBuffer, not a
// SharedArrayBuffer). The SDK's bytes always are: the `BufferSource` casts
// below only tell the type checker so.

import { subtle } from './webcrypto.js';

export const ZERO_IV = new Uint8Array(12);
const AES = { name: 'AES-GCM', length: 256 };
const HMAC = { name: 'HMAC', hash: 'SHA-256' };

/**
 * A non-extractable AES-256-GCM key from 32 raw bytes.
 * @param {Uint8Array} raw
 * @param {KeyUsage[]} [usages]
 * @returns {Promise<CryptoKey>}
 */
export function aesKey(raw, usages = ['encrypt', 'decrypt']) {
  return subtle().importKey('raw', /** @type {BufferSource} */ (raw), AES, false, usages);
}

/**
 * A non-extractable HKDF key from raw input keying material.
 * @param {Uint8Array} ikm
 * @returns {Promise<CryptoKey>}
 */
export function hkdfKey(ikm) {
  return subtle().importKey('raw', /** @type {BufferSource} */ (ikm), 'HKDF', false, ['deriveKey']);
}

/**
 * A non-extractable HMAC-SHA256 key.
 * @param {Uint8Array} raw
 * @param {KeyUsage[]} [usages]
 * @returns {Promise<CryptoKey>}
 */
export function hmacKey(raw, usages = ['sign']) {
  return subtle().importKey('raw', /** @type {BufferSource} */ (raw), HMAC, false, usages);
}

/**
 * HKDF-SHA256(ikm key, salt, info) → a non-extractable AES-256-GCM key.
 * @param {CryptoKey} ikmKey
 * @param {Uint8Array} salt
 * @param {Uint8Array} info
 * @param {KeyUsage[]} usages
 * @returns {Promise<CryptoKey>}
 */
export function hkdfAesKey(ikmKey, salt, info, usages) {
  const params = { name: 'HKDF', hash: 'SHA-256', salt: /** @type {BufferSource} */ (salt), info: /** @type {BufferSource} */ (info) };
  return subtle().deriveKey(params, ikmKey, AES, false, usages);
}

/**
 * AES-GCM encrypt: ciphertext || 16-byte tag.
 * @param {CryptoKey} key
 * @param {Uint8Array} iv
 * @param {Uint8Array|null|undefined} aad
 * @param {Uint8Array} plaintext
 * @returns {Promise<Uint8Array>}
 */
export async function gcmEncrypt(key, iv, aad, plaintext) {
  /** @type {AesGcmParams} */
  const params = { name: 'AES-GCM', iv: /** @type {BufferSource} */ (iv), tagLength: 128 };
  if (aad) params.additionalData = /** @type {BufferSource} */ (aad);
  return new Uint8Array(await subtle().encrypt(params, key, /** @type {BufferSource} */ (plaintext)));
}

/**
 * AES-GCM decrypt of ciphertext || tag; resolves to `undefined` if it does not authenticate.
 * @param {CryptoKey} key
 * @param {Uint8Array} iv
 * @param {Uint8Array|null|undefined} aad
 * @param {Uint8Array} sealed
 * @returns {Promise<Uint8Array|undefined>}
 */
export async function gcmDecrypt(key, iv, aad, sealed) {
  /** @type {AesGcmParams} */
  const params = { name: 'AES-GCM', iv: /** @type {BufferSource} */ (iv), tagLength: 128 };
  if (aad) params.additionalData = /** @type {BufferSource} */ (aad);
  try {
    return new Uint8Array(await subtle().decrypt(params, key, /** @type {BufferSource} */ (sealed)));
  } catch {
    return undefined;
  }
}

/**
 * HMAC-SHA256 tag.
 * @param {CryptoKey} key
 * @param {Uint8Array} data
 * @returns {Promise<Uint8Array>}
 */
export async function hmacSign(key, data) {
  return new Uint8Array(await subtle().sign('HMAC', key, /** @type {BufferSource} */ (data)));
}

/**
 * Constant-time HMAC-SHA256 check (Web Crypto's verify).
 * @param {CryptoKey} key
 * @param {Uint8Array} tag
 * @param {Uint8Array} data
 * @returns {Promise<boolean>}
 */
export function hmacVerify(key, tag, data) {
  return subtle().verify('HMAC', key, /** @type {BufferSource} */ (tag), /** @type {BufferSource} */ (data));
}
