// The platform's Web Crypto (browsers and Node 18+) as the crypto modules
// reach it: SubtleCrypto, the CSPRNG, SHA-256 and the P-256 algorithms.
// Internal (not re-exported by index.js).

import { concat } from '../bytes.js';

export const ECDH = Object.freeze({ name: 'ECDH', namedCurve: 'P-256' });
export const ECDSA = Object.freeze({ name: 'ECDSA', namedCurve: 'P-256' });
export const ECDSA_SHA256 = Object.freeze({ name: 'ECDSA', hash: 'SHA-256' });

/** Web Crypto's SubtleCrypto (browsers and Node 18+). */
export function subtle() {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available');
  return s;
}

/**
 * `n` random bytes from the platform CSPRNG.
 * @param {number} n
 * @returns {Uint8Array}
 */
export function randomBytes(n) {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

/**
 * SHA-256 of the concatenation of `parts`.
 * @param {...Uint8Array} parts
 * @returns {Promise<Uint8Array>}
 */
export async function sha256(...parts) {
  const data = parts.length === 1 ? parts[0] : concat(...parts);
  return new Uint8Array(await subtle().digest('SHA-256', /** @type {BufferSource} */ (data)));
}
