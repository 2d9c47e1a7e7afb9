/**
 * {@link openLink} → {@link Link}: one WebSocket to a HermitMQ broker
 * (subprotocol `hermitmq.v3`, one frame per binary message) with its
 * handshake done — the version-3 hello, the broker id checked against the
 * id this client saw before and against `knownBrokers`' pin, `Authenticate`
 * when an identity is given (client/authenticate.js). After that a link
 * only carries frames: {@link Link#send} out, `onFrame` in, `onEnd` once
 * when it is over. What a frame means, which request it answers and what
 * happens to requests when a link dies is the {@link Client}'s
 * (client/connection.js); when to open the next link is the reconnector's
 * (client/reconnect.js).
 *
 * @module client/link
 */

import { equal } from '../bytes.js';
import { ClientError, WireError } from '../protocol/error.js';
import { BrokerFlags, decodeBrokerHello, encodeClientHello } from '../protocol/hello.js';
import { authenticate, dialledEndpoint } from './authenticate.js';
import { BrokerIdChanged, checkPin, pin } from './known-brokers.js';

/** @typedef {import('./connection.js').ConnectOptions} ConnectOptions */

/** The WebSocket subprotocol of protocol version 3. */
export const SUBPROTOCOL = 'hermitmq.v3';

/** Close code this client uses for a broker that broke the protocol (4000–4999: application codes). */
export const CLOSE_PROTOCOL_ERROR = 4002;
/** Close code this client uses after a request timed out (the connection's state is unknown). */
export const CLOSE_TIMEOUT = 4008;

/**
 * What a link opened again for the same client must find: the broker id
 * the first link saw (a broker presenting another is refused before
 * anything is signed, pinned store or not) and whether it authenticated
 * (a broker that stops offering authentication is refused too: the
 * requests waiting would otherwise go out anonymously).
 * @typedef {{ brokerId: Uint8Array, authenticated: boolean }} Expected
 */

/**
 * @param {ConnectOptions} opts
 */
async function webSocketClass(opts) {
  if (opts.WebSocket) return { WS: opts.WebSocket, isNodeWs: false };
  // Node (even with a global WebSocket, Node 22+): the `ws` package, loaded
  // only here, whose TLS socket gives the channel binding.
  if (typeof globalThis.process?.versions?.node === 'string' || typeof globalThis.WebSocket !== 'function') {
    const mod = await import('ws');
    return { WS: mod.default ?? mod.WebSocket, isNodeWs: true };
  }
  return { WS: globalThis.WebSocket, isNodeWs: false };
}

/**
 * @param {unknown} data
 * @returns {Uint8Array|null}
 */
function messageBytes(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null; // text (or a Blob, which binaryType 'arraybuffer' rules out)
}

/**
 * Internal: {@link openLink} runs a new link's handshake through this; set
 * by Link's static block (the handshake is private).
 * @type {(link: Link, expected: Expected|null) => Promise<void>}
 */
let handshake;
/** Tells a new link the socket under its WebSocket (Node's `ws` only). @type {(link: Link, socket: any) => void} */
let underlying;

/**
 * Open a WebSocket to `url` and run the handshake; resolves once the link
 * is ready (hello exchanged and, with an identity, authenticated).
 *
 * Fails with `Connect` (no connection, no hello in time), `UnsupportedVersion`,
 * `BrokerIdChanged` (another broker id than `expected`'s or than the one
 * pinned in `knownBrokers`: nothing is signed or sent after the hello),
 * `KnownBrokers` (the store failed), `AuthRequired`, `AuthFailed` (the
 * broker refused the proof or named another principal; over `wss:` the
 * connection is not TLS 1.3; or, with `expected`, the broker no longer
 * authenticates) or `Protocol`.
 *
 * @param {string} url
 * @param {ConnectOptions} opts
 * @param {Expected|null} [expected] what an earlier link of the same client saw
 * @param {(link: Link) => void} [onCreate] gets the link before its
 *   handshake (to abandon it: `link.fail(…)`)
 * @returns {Promise<Link>}
 */
export async function openLink(url, opts, expected = null, onCreate = () => {}) {
  const { WS, isNodeWs } = await webSocketClass(opts);
  const connectTimeoutMs = opts.connectTimeoutMs ?? 5000;
  const maxResponseBytes = opts.maxResponseBytes ?? 128 << 20;
  /** @type {any} */
  let ws;
  try {
    ws = isNodeWs
      ? new WS(url, SUBPROTOCOL, { maxPayload: maxResponseBytes + 4, ...opts.wsOptions, minVersion: 'TLSv1.3', followRedirects: false })
      : new WS(url, SUBPROTOCOL);
  } catch (e) {
    throw new ClientError('Connect', `cannot connect to ${url}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  ws.binaryType = 'arraybuffer';
  const link = new Link(url, ws, opts);
  onCreate(link);
  if (isNodeWs) ws.once('upgrade', (/** @type {any} */ res) => underlying(link, res.socket));
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      reject(new ClientError('Connect', `cannot connect to ${url}: no hello within ${connectTimeoutMs} ms`));
    }, connectTimeoutMs);
  });
  try {
    await Promise.race([handshake(link, expected), timeout]);
  } catch (e) {
    // A connection that ended during the handshake never connected; typed
    // refusals (AuthRequired, AuthFailed, UnsupportedVersion, Protocol,
    // BrokerIdChanged) stay what they are.
    const err =
      e instanceof ClientError && e.code !== 'ConnectionLost'
        ? e
        : new ClientError('Connect', `cannot connect to ${url}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    link.fail(err, err.code === 'Protocol' ? CLOSE_PROTOCOL_ERROR : 1000, 'handshake failed');
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return link;
}

/**
 * One WebSocket whose handshake is done. Create it with {@link openLink}.
 */
export class Link {
  /** The WebSocket: the browser's, the `ws` package's, or a look-alike. @type {any} */
  #ws;
  /** @type {ConnectOptions} */
  #opts;
  /** @type {number} */
  #maxResponseBytes;
  /** Why the link is over. @type {ClientError|null} */
  #dead = null;
  /** Who takes the next message during the handshake. @type {((bytes: Uint8Array) => void) | null} */
  #handshakeTake = null;
  /** Fails the handshake while it waits for the socket or a message. @type {((e: unknown) => void) | null | undefined} */
  #handshakeReject;
  /** @type {Promise<{code: number, reason: string}>} */
  #closed;
  /** @type {((closed: {code: number, reason: string}) => void) | undefined} */
  #resolveClosed;
  /** The last WebSocket error's message, named when the close follows. @type {string|undefined} */
  #lastError;
  /** The TCP or TLS socket under the WebSocket, where it can be seen (Node's `ws`). @type {any} */
  #socket = null;

  static {
    handshake = (link, expected) => link.#handshake(expected);
    underlying = (link, socket) => {
      link.#socket = socket;
    };
  }

  /**
   * @param {string} url
   * @param {any} ws
   * @param {ConnectOptions} opts
   */
  constructor(url, ws, opts) {
    /** @type {string} */
    this.url = url;
    this.#ws = ws;
    this.#opts = opts;
    this.#maxResponseBytes = opts.maxResponseBytes ?? 128 << 20;
    /** Largest frame the broker accepts (after the length prefix), from its hello. @type {number} */
    this.maxFrame = 0;
    /** The broker hello's flags ({@link BrokerFlags}). @type {number} */
    this.brokerFlags = 0;
    /** The broker's id (16 bytes). @type {Uint8Array|null} */
    this.brokerId = null;
    /** The principal this link acts as, or `null` when anonymous. @type {Uint8Array|null} */
    this.principal = null;
    /** When the handshake completed (`Date.now()`), 0 before. @type {number} */
    this.openedAt = 0;
    /** Takes every message after the handshake. @type {(bytes: Uint8Array) => void} */
    this.onFrame = () => {};
    /** Called once, with why, when the link is over. @type {(err: ClientError) => void} */
    this.onEnd = () => {};
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    ws.addEventListener('message', (/** @type {any} */ ev) => this.#onMessage(ev.data));
    ws.addEventListener('close', (/** @type {any} */ ev) => this.#onClose(ev.code, ev.reason ?? ''));
    ws.addEventListener('error', (/** @type {any} */ ev) => {
      // The close event follows with the code; keep the message for it.
      this.#lastError = ev?.message ?? ev?.error?.message ?? 'WebSocket error';
    });
  }

  /** Whether the link is over (closed by either side, or failed). */
  get isOver() {
    return this.#dead !== null;
  }

  /** Why the link is over, or `null`. @returns {ClientError|null} */
  get error() {
    return this.#dead;
  }

  /** Resolves with the close code and reason once the WebSocket has closed. */
  get closed() {
    return this.#closed;
  }

  /** Whether the WebSocket has closed (not only closing). */
  get socketClosed() {
    return this.#ws.readyState === 3;
  }

  /**
   * Send one frame. Only after the handshake, and only on a link that is not over.
   * @param {Uint8Array} frame
   */
  send(frame) {
    this.#ws.send(frame);
  }

  /**
   * @param {Expected|null} expected
   */
  async #handshake(expected) {
    const ws = this.#ws;
    const next = () =>
      new Promise((resolve, reject) => {
        if (this.#dead) return reject(this.#dead);
        this.#handshakeTake = resolve;
        this.#handshakeReject = reject;
      });
    await new Promise((resolve, reject) => {
      if (ws.readyState === 1) return resolve(undefined);
      ws.addEventListener('open', () => resolve(undefined), { once: true });
      this.#handshakeReject = reject;
    });
    if (ws.protocol !== SUBPROTOCOL) {
      throw new ClientError('Connect', `cannot connect to ${this.url}: the server chose subprotocol ${JSON.stringify(ws.protocol)}, not ${SUBPROTOCOL}`);
    }
    const helloMsg = next();
    ws.send(encodeClientHello());
    const hello = decodeBrokerHello(/** @type {Uint8Array} */ (await helloMsg));
    this.maxFrame = hello.maxFrame;
    this.brokerFlags = hello.flags;
    this.brokerId = hello.brokerId;
    const has = (/** @type {number} */ f) => (hello.flags & f) === f;
    const { identity, knownBrokers } = this.#opts;
    const signs = identity && !has(BrokerFlags.AUTHENTICATED) && (has(BrokerFlags.AUTH_AVAILABLE) || has(BrokerFlags.AUTH_REQUIRED));
    const endpoint = knownBrokers || signs || expected ? dialledEndpoint(this.url) : null;
    // Before anything is signed: is this the broker this client spoke to
    // before (a reconnect), and the one pinned for the name?
    if (expected && endpoint && !equal(expected.brokerId, hello.brokerId)) {
      throw new BrokerIdChanged({ name: endpoint.name, port: endpoint.port, pinned: expected.brokerId, presented: hello.brokerId, reconnect: true });
    }
    const pinned = knownBrokers && endpoint ? await checkPin(knownBrokers, endpoint, hello.brokerId) : true;
    if (has(BrokerFlags.AUTHENTICATED)) {
      // A client certificate named the principal (wss with mutual TLS).
    } else if (identity && endpoint && signs) {
      const exchange = (/** @type {Uint8Array} */ frame) => {
        const answer = next();
        ws.send(frame);
        return /** @type {Promise<Uint8Array>} */ (answer);
      };
      const step = { url: this.url, identity, hello, name: endpoint.name, socket: this.#socket, maxResponseBytes: this.#maxResponseBytes, exchange };
      // Correlation id 1: the first request of every connection.
      this.principal = await authenticate({ ...step, correlationId: 1 });
    } else if (has(BrokerFlags.AUTH_REQUIRED)) {
      throw new ClientError('AuthRequired', `the broker at ${this.url} requires authentication: give an identity`);
    } else if (expected?.authenticated) {
      throw new ClientError('AuthFailed', `the broker at ${this.url} authenticated this client before the connection was lost and no longer offers authentication: not reconnecting anonymously`);
    }
    // Trust on first use: the first broker that completes a handshake under
    // this name and port is the one expected from then on.
    if (knownBrokers && endpoint && !pinned) await pin(knownBrokers, endpoint, hello.brokerId);
    this.#handshakeTake = null;
    this.#handshakeReject = null;
    this.openedAt = Date.now();
  }

  /**
   * @param {unknown} data
   */
  #onMessage(data) {
    if (this.#dead) return;
    const bytes = messageBytes(data);
    if (bytes === null) {
      this.fail(new WireError('InvalidField', 'the broker sent a text message'), CLOSE_PROTOCOL_ERROR, 'text message');
      return;
    }
    if (this.#handshakeTake) {
      const take = this.#handshakeTake;
      this.#handshakeTake = null;
      take(bytes);
      return;
    }
    this.onFrame(bytes);
  }

  /**
   * @param {number} code
   * @param {string} reason
   */
  #onClose(code, reason) {
    const detail = `closed with code ${code}${reason ? ` (${reason})` : ''}${this.#lastError && code !== 1000 ? `: ${this.#lastError}` : ''}`;
    this.fail(new ClientError('ConnectionLost', `connection to ${this.url} lost: ${detail}`), code, reason);
    this.#resolveClosed?.({ code, reason });
  }

  /**
   * End the link with `err` (once): the handshake, if running, fails with
   * it, the WebSocket is closed, `onEnd` is told.
   * @param {ClientError} err
   * @param {number} code
   * @param {string} reason
   */
  fail(err, code, reason) {
    if (this.#dead) return;
    this.#dead = err;
    this.#handshakeReject?.(err);
    this.#handshakeTake = null;
    const ws = this.#ws;
    if (ws.readyState === 0 || ws.readyState === 1) {
      try {
        ws.close(code >= 3000 && code <= 4999 ? code : 1000, reason.slice(0, 120));
      } catch {
        // Already closing.
      }
    }
    this.onEnd(err);
  }
}
