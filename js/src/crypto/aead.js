// Internal Web Crypto helpers of the sealing layer (not re-exported by index.js).

import { subtle } from './identity.js';

export const ZERO_IV = new Uint8Array(12);
const AES = { name: 'AES-GCM', length: 256 };
const HMAC = { name: 'HMAC', hash: 'SHA-256' };

/** A non-extractable AES-256-GCM key from 32 raw bytes. */
export function aesKey(raw, usages = ['encrypt', 'decrypt']) {
  return subtle().importKey('raw', raw, AES, false, usages);
}

/** A non-extractable HKDF key from raw input keying material. */
export function hkdfKey(ikm) {
  return subtle().importKey('raw', ikm, 'HKDF', false, ['deriveKey']);
}

/** A non-extractable HMAC-SHA256 key. */
export function hmacKey(raw, usages = ['sign']) {
  return subtle().importKey('raw', raw, HMAC, false, usages);
}

/** HKDF-SHA256(ikm key, salt, info) → a non-extractable AES-256-GCM key. */
export function hkdfAesKey(ikmKey, salt, info, usages) {
  return subtle().deriveKey({ name: 'HKDF', hash: 'SHA-256', salt, info }, ikmKey, AES, false, usages);
}

/** AES-GCM encrypt: ciphertext || 16-byte tag. */
export async function gcmEncrypt(key, iv, aad, plaintext) {
  const params = { name: 'AES-GCM', iv, tagLength: 128 };
  if (aad) params.additionalData = aad;
  return new Uint8Array(await subtle().encrypt(params, key, plaintext));
}

/** AES-GCM decrypt of ciphertext || tag; resolves to `undefined` if it does not authenticate. */
export async function gcmDecrypt(key, iv, aad, sealed) {
  const params = { name: 'AES-GCM', iv, tagLength: 128 };
  if (aad) params.additionalData = aad;
  try {
    return new Uint8Array(await subtle().decrypt(params, key, sealed));
  } catch {
    return undefined;
  }
}

/** HMAC-SHA256 tag. */
export async function hmacSign(key, data) {
  return new Uint8Array(await subtle().sign('HMAC', key, data));
}

/** Constant-time HMAC-SHA256 check (Web Crypto's verify). */
export function hmacVerify(key, tag, data) {
  return subtle().verify('HMAC', key, tag, data);
}
