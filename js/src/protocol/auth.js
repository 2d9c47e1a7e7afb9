/**
 * What an `Authenticate` request signs, and the dialled name it is bound to
 * (`protocol/src/auth.rs`; docs/PROTOCOL.md §1, Authentication).
 *
 * Mechanism 2 ({@link authTranscriptBound}) signs the nonce, the broker id,
 * the **dialled name** (the host of the URL the client opened) and the
 * **channel binding** (the TLS exporter value of the client's TLS 1.3
 * connection, or empty), so a server the client dialled under another name
 * — or, over TLS, any server at all — cannot forward the proof to the
 * broker (a relay). Mechanism 1 ({@link authTranscript}) signs neither and
 * can be relayed; brokers refuse it wherever authentication is required.
 *
 * @module protocol/auth
 */

import { ClientError } from './error.js';

/** Largest SPKI or signature an Authenticate may carry. */
export const MAX_AUTH_FIELD = 512;
/** Mechanism 1: ECDSA P-256 with SHA-256 over {@link authTranscript} (unbound: can be relayed). */
export const MECHANISM_P256_ECDSA = 1;
/** Mechanism 2: as 1, over {@link authTranscriptBound}: bound to the dialled name and the TLS connection. */
export const MECHANISM_P256_ECDSA_BOUND = 2;
/** Domain-separation label of a mechanism-1 transcript. */
export const AUTH_LABEL = new TextEncoder().encode('hermit-auth/v1');
/** Domain-separation label of a mechanism-2 transcript. */
export const AUTH_LABEL_BOUND = new TextEncoder().encode('hermit-auth/v2');
/** The RFC 9266 exporter label a channel binding is made with (no context). */
export const TLS_EXPORTER_LABEL = 'EXPORTER-Channel-Binding';
/** Length of a `tls-exporter` channel binding. */
export const TLS_EXPORTER_LEN = 32;
/** Longest dialled name (a DNS name is at most 253 characters). */
export const MAX_AUTH_NAME = 253;
/** Longest channel binding an Authenticate may carry. */
export const MAX_CHANNEL_BINDING = TLS_EXPORTER_LEN;

/**
 * The bytes a mechanism-1 Authenticate signs: `"hermit-auth/v1" ‖ nonce ‖
 * u8 len ‖ broker_id ‖ SPKI` (`hermit_protocol::auth::transcript`). Kept
 * for brokers that still accept it; the SDK signs {@link authTranscriptBound}.
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

/**
 * The bytes a mechanism-2 Authenticate signs
 * (`hermit_protocol::auth::transcript_bound`):
 * `"hermit-auth/v2" ‖ nonce ‖ u8 len ‖ broker_id ‖ u8 len ‖ name ‖ u8 len ‖
 * channel binding ‖ SPKI`, each variable field cut to 255 bytes so its
 * length byte stays truthful (the request's own limits are lower).
 * @param {Uint8Array} nonce 32 bytes from the broker hello
 * @param {Uint8Array} brokerId
 * @param {string} name the dialled name, as {@link dialledName} gives it
 * @param {Uint8Array} channelBinding empty, or the 32-byte TLS exporter value
 * @param {Uint8Array} spki
 * @returns {Uint8Array}
 */
export function authTranscriptBound(nonce, brokerId, name, channelBinding, spki) {
  const fields = [brokerId, new TextEncoder().encode(name), channelBinding].map((f) => f.subarray(0, 255));
  const len = AUTH_LABEL_BOUND.length + nonce.length + fields.reduce((n, f) => n + 1 + f.length, 0) + spki.length;
  const out = new Uint8Array(len);
  out.set(AUTH_LABEL_BOUND, 0);
  out.set(nonce, AUTH_LABEL_BOUND.length);
  let at = AUTH_LABEL_BOUND.length + nonce.length;
  for (const f of fields) {
    out[at++] = f.length;
    out.set(f, at);
    at += f.length;
  }
  out.set(spki, at);
  return out;
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const DNS_CHARS = /^[A-Za-z0-9._-]+$/;

/**
 * A host as the client dialled it, normalized as Rust's `DialledName`
 * displays it: one pair of brackets and one trailing dot removed, a DNS name
 * in lowercase ASCII (an internationalized name in its `xn--` form, as
 * `URL` gives it), an IP literal in canonical form (IPv6 compressed as
 * RFC 5952, an IPv4-mapped address as `::ffff:a.b.c.d`). The port is not
 * part of it.
 *
 * @param {string} host a URL's `hostname`, or a bare host
 * @returns {string}
 * @throws {ClientError} `InvalidArgument` when nothing is left, it is longer
 *   than 253 bytes, or it has a character no host name has (an IPv6 zone too)
 */
export function dialledName(host) {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const bad = (/** @type {string} */ why) => new ClientError('InvalidArgument', `invalid argument: the dialled name ${JSON.stringify(host)} ${why}`);
  if (bare.includes(':')) {
    if (!/^[0-9A-Fa-f:.]+$/.test(bare)) throw bad('is not an IPv6 address (zones are not supported)');
    let canonical;
    try {
      // WHATWG URL's IPv6 serializer is RFC 5952's (as Rust's Display) but
      // for IPv4-mapped addresses, which Rust writes dotted.
      canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    } catch {
      throw bad('is not an IPv6 address (zones are not supported)');
    }
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
    if (!mapped) return canonical;
    const [hi, lo] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
    return `::ffff:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  if (IPV4.test(bare)) return bare;
  const name = bare.endsWith('.') ? bare.slice(0, -1) : bare;
  if (name.length === 0) throw bad('is empty');
  if (name.length > MAX_AUTH_NAME) throw bad(`is ${name.length} bytes long (at most ${MAX_AUTH_NAME})`);
  if (!DNS_CHARS.test(name)) throw bad('has a character no host name has');
  return name.toLowerCase();
}
