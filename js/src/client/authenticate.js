/**
 * The `Authenticate` step of a connection's handshake (mechanism 2,
 * docs/PROTOCOL.md §1, Authentication) and what it is bound to besides the
 * nonce and the broker id: the **dialled name** — the host of the URL
 * `connect` opened — and the **channel binding** — the RFC 9266
 * `tls-exporter` value of the TLS 1.3 connection under the WebSocket, which
 * only Node can get (a browser has no API for it; there the binding is
 * empty and the name binds the proof).
 *
 * @module client/authenticate
 */

import { equal, toHex } from '../bytes.js';
import { MECHANISM_P256_ECDSA_BOUND, TLS_EXPORTER_LABEL, TLS_EXPORTER_LEN, dialledName } from '../protocol/auth.js';
import { ClientError, WireError } from '../protocol/error.js';
import { Op, decodeResponse, encodeRequest, opName } from '../protocol/frame.js';

/**
 * The dialled name and port of a `ws:`/`wss:` URL: the name as
 * `dialledName` normalizes the URL's hostname, the port as given or the
 * scheme's default (80, or 443 for `wss:`/`https:`). This is what the SDK
 * signs and what known brokers are pinned by.
 * @param {string} url
 * @returns {{ name: string, port: number }}
 * @throws {ClientError} `InvalidArgument`: not a URL, or no host name in it
 */
export function dialledEndpoint(url) {
  let u;
  try {
    u = new URL(url);
  } catch (e) {
    throw new ClientError('InvalidArgument', `invalid argument: ${JSON.stringify(url)} is not a URL`, { cause: e });
  }
  const secure = u.protocol === 'wss:' || u.protocol === 'https:';
  return { name: dialledName(u.hostname), port: u.port ? Number(u.port) : secure ? 443 : 80 };
}

/**
 * The channel binding to sign for a connection to `url`.
 *
 * - `socket` is the socket under a Node `ws` WebSocket (its `upgrade`
 *   response's socket), or `null` where there is none to see (a browser, a
 *   WebSocket constructor given by the caller): then the binding is empty.
 * - A TLS socket must run TLS 1.3 (`connect` offers nothing older through
 *   `ws`); its exporter value (`EXPORTER-Channel-Binding`, no context,
 *   32 bytes) is the binding.
 * - A `wss:` URL over a socket that is not TLS is refused: the proof would
 *   be signed without the binding that protects it.
 *
 * @param {string} url
 * @param {any} socket
 * @returns {Uint8Array}
 * @throws {ClientError} `AuthFailed` when no binding can be made where one is needed
 */
export function channelBinding(url, socket) {
  const secure = /^(wss|https):/i.test(url);
  if (socket === null || socket === undefined) return new Uint8Array(0);
  if (socket.encrypted !== true || typeof socket.exportKeyingMaterial !== 'function') {
    if (secure) throw new ClientError('AuthFailed', `refusing to authenticate to ${url}: the connection under the WebSocket is not TLS, so the proof could not be bound to it`);
    return new Uint8Array(0);
  }
  const version = socket.getProtocol?.();
  if (version !== 'TLSv1.3') {
    throw new ClientError('AuthFailed', `refusing to authenticate to ${url}: the connection runs ${version ?? 'an unknown TLS version'}, and binding the proof to it needs TLS 1.3`);
  }
  const b = socket.exportKeyingMaterial(TLS_EXPORTER_LEN, TLS_EXPORTER_LABEL);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice();
}

/**
 * Prove the identity's key on a connection: sign mechanism 2's transcript
 * for the hello's nonce and broker id, the dialled name and the channel
 * binding, send `Authenticate`, and check the answer names the identity's
 * principal.
 * @param {{ url: string, identity: import('./connection.js').AuthIdentity,
 *   hello: { nonce: Uint8Array, brokerId: Uint8Array }, name: string, socket: any,
 *   correlationId: number, maxResponseBytes: number,
 *   exchange: (frame: Uint8Array) => Promise<Uint8Array> }} step
 *   `socket`: as {@link channelBinding} takes it; `exchange` sends a frame
 *   and resolves with the next message.
 * @returns {Promise<Uint8Array>} the principal
 * @throws {ClientError} `AuthFailed` (refused, another principal named, no
 *   binding where one is needed), `Connect` (a notice instead of the answer)
 */
export async function authenticate({ url, identity, hello, name, socket, correlationId, maxResponseBytes, exchange }) {
  const binding = channelBinding(url, socket);
  const spki = await identity.spki();
  const signature = await identity.signAuthBound(hello.nonce, hello.brokerId, name, binding);
  const frame = encodeRequest(correlationId, { op: 'authenticate', mechanism: MECHANISM_P256_ECDSA_BOUND, spki, signature, name, channelBinding: binding });
  const resp = decodeResponse(await exchange(frame), maxResponseBytes);
  if (resp.correlationId === 0 && !resp.ok) {
    // A connection-level notice instead of the answer (TooManyConnections, ShuttingDown).
    throw new ClientError('Connect', `cannot connect to ${url}: ${resp.error?.status}: ${resp.error?.message}`, { status: resp.error?.status, statusCode: resp.error?.statusCode });
  }
  if (resp.correlationId !== correlationId || resp.op !== Op.Authenticate) {
    throw new WireError('InvalidField', `answer to Authenticate has correlation id ${resp.correlationId}, op ${opName(resp.op)}`);
  }
  if (!resp.ok) {
    const bound = `signed for the name ${name}${binding.length ? ' and this TLS connection' : ''}`;
    throw new ClientError('AuthFailed', `authentication to ${url} (${bound}) failed: ${resp.error?.message}`, { status: resp.error?.status, statusCode: resp.error?.statusCode });
  }
  const want = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', /** @type {BufferSource} */ (spki)));
  // A principal is public (a hash of a public key): no need for a constant-time compare.
  if (!equal(resp.body.principal, want)) {
    throw new ClientError('AuthFailed', `authentication to ${url} failed: the broker named principal ${toHex(resp.body.principal)}, not the identity's ${toHex(want)}`);
  }
  return resp.body.principal;
}
