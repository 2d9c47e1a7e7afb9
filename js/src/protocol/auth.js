/**
 * What an `Authenticate` request signs (`protocol/src/auth.rs`).
 *
 * @module protocol/auth
 */

/** Largest SPKI or signature an Authenticate may carry. */
export const MAX_AUTH_FIELD = 512;
/** Authenticate mechanism: ECDSA P-256 with SHA-256, raw r‖s, DER SPKI. */
export const MECHANISM_P256_ECDSA = 1;
/** Domain-separation label of the authentication transcript. */
export const AUTH_LABEL = new TextEncoder().encode('hermit-auth/v1');

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
