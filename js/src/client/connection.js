/**
 * `connect(url, opts)` → {@link Client}: one WebSocket to a HermitMQ broker
 * (subprotocol `hermitmq.v3`, one frame per binary message), the version-3
 * hello, the check of the broker id against `knownBrokers`' pin,
 * `Authenticate` when an identity is given (client/authenticate.js), then
 * pipelined requests matched by correlation id.
 *
 * Differences from the Rust `Client` (client/src/client.rs): one connection,
 * not reopened when it dies — every request then fails with `ConnectionLost`
 * and later ones with `Closed`; connect again for a new one. (A browser tab
 * usually wants to decide itself when to reconnect.)
 *
 * @module client/connection
 */

import { toHex } from '../bytes.js';
import { ClientError, WireError } from '../protocol/error.js';
import {
  Ack,
  FETCH_RESPONSE_HEADER_LEN,
  MAX_CONTROL_FRAME,
  MAX_LIST_LIMIT,
  brokerError,
  carriesBatch,
  decodeResponse,
  encodeRequest,
  opName,
} from '../protocol/frame.js';
import { BrokerFlags, decodeBrokerHello, encodeClientHello } from '../protocol/hello.js';
import { authenticate, dialledEndpoint } from './authenticate.js';
import { checkPin, pin } from './known-brokers.js';
import { ClaimId, claimed, conditional } from './outcome.js';
import { FetchResponse } from './records.js';

/** The WebSocket subprotocol of protocol version 3. */
export const SUBPROTOCOL = 'hermitmq.v3';

/** Close code this client uses for a broker that broke the protocol (4000–4999: application codes). */
export const CLOSE_PROTOCOL_ERROR = 4002;
/** Close code this client uses after a request timed out (the connection's state is unknown). */
export const CLOSE_TIMEOUT = 4008;

/**
 * What `connect` needs of an identity (an `Identity` has both).
 * @typedef {{ spki(): Promise<Uint8Array>,
 *   signAuthBound(nonce: Uint8Array, brokerId: Uint8Array, name: string, channelBinding: Uint8Array): Promise<Uint8Array> }} AuthIdentity
 */

/**
 * @typedef {object} ConnectOptions
 * @property {AuthIdentity} [identity]
 *   The key this client authenticates with (an `Identity`): when the broker
 *   offers or requires authentication, the connection signs its hello's
 *   nonce, the broker id, the dialled name and (Node, `wss:`) the TLS
 *   exporter value (mechanism 2) before any request is sent. Default none
 *   (anonymous).
 * @property {import('./known-brokers.js').KnownBrokers} [knownBrokers]
 *   Where the broker ids of known brokers are pinned, by dialled name and
 *   port: a broker presenting another id than the pinned one is refused
 *   with `BrokerIdChanged` before anything is signed; one without a pin is
 *   pinned once the handshake completes (trust on first use). Default none
 *   (nothing pinned: any broker id is taken).
 * @property {number} [timeoutMs] Limit on waiting for any answer (a fetch
 *   gets its `maxWaitMs` on top). When it passes the request fails with
 *   `Timeout` and the connection is closed. Default 30 000.
 * @property {number} [connectTimeoutMs] Limit on opening the connection
 *   (WebSocket upgrade, hello, Authenticate). Default 5 000.
 * @property {number} [maxInFlight] Most requests in flight; further ones
 *   wait until an answer comes. Default 512.
 * @property {number} [maxResponseBytes] Largest response frame accepted
 *   (Node's `ws` refuses larger messages before buffering them; a browser
 *   has no such knob, the frame is then refused after it arrived).
 *   Default 128 MiB.
 * @property {any} [WebSocket] A WebSocket constructor; default the `ws`
 *   package in Node (the only way to the TLS exporter value), else
 *   `globalThis.WebSocket`. With another constructor the channel binding is
 *   empty, as in a browser.
 * @property {Record<string, any>} [wsOptions] Extra options for the `ws`
 *   package's constructor (Node only: TLS `ca`, `lookup`, headers such as
 *   `Origin`). `minVersion` is always `'TLSv1.3'` and `followRedirects`
 *   always `false`: a server must not be able to make the client sign
 *   without a channel binding, or for a name it did not dial.
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
 * Internal: `connect` runs a new client's handshake and, if it fails, ends the
 * client through these two; set by Client's static block (both are private).
 * @type {(client: Client) => Promise<void>}
 */
let handshake;
/** @type {(client: Client, err: ClientError, code: number, reason: string) => void} */
let fail;
/** Tells a new client the socket under its WebSocket (Node's `ws` only). @type {(client: Client, socket: any) => void} */
let underlying;

/**
 * Open a connection to `url` (`ws://host:port/` or `wss://…`) and return once
 * it is ready: hello exchanged and, with an identity, authenticated.
 *
 * Fails with `Connect` (no connection, no hello in time), `UnsupportedVersion`,
 * `BrokerIdChanged` (another broker id than the one pinned in
 * `knownBrokers`: nothing is signed or sent after the hello),
 * `KnownBrokers` (the store failed), `AuthRequired` (the broker requires
 * authentication and no identity was given: nothing is sent after the
 * hello) or `AuthFailed` (the broker refused the proof — a name it does not
 * serve, another TLS connection's binding, a bad signature — or named
 * another principal; or, over `wss:`, the connection is not TLS 1.3).
 *
 * @param {string} url
 * @param {ConnectOptions} [opts]
 * @returns {Promise<Client>}
 */
export async function connect(url, opts = {}) {
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
  const client = new Client(url, ws, opts);
  if (isNodeWs) ws.once('upgrade', (/** @type {any} */ res) => underlying(client, res.socket));
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      reject(new ClientError('Connect', `cannot connect to ${url}: no hello within ${connectTimeoutMs} ms`));
    }, connectTimeoutMs);
  });
  try {
    await Promise.race([handshake(client), timeout]);
  } catch (e) {
    // A connection that ended during the handshake never connected; typed
    // refusals (AuthRequired, AuthFailed, UnsupportedVersion, Protocol) stay what they are.
    const err =
      e instanceof ClientError && e.code !== 'ConnectionLost'
        ? e
        : new ClientError('Connect', `cannot connect to ${url}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    fail(client, err, err.code === 'Protocol' ? CLOSE_PROTOCOL_ERROR : 1000, 'handshake failed');
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/**
 * One connection to a broker: many requests in flight at once, answers
 * matched by correlation id (they may come back in any order). Create it
 * with {@link connect}.
 */
export class Client {
  /** The WebSocket: the browser's, the `ws` package's, or a look-alike. @type {any} */
  #ws;
  /** @type {ConnectOptions} */
  #opts;
  /** @type {number} */
  #timeoutMs;
  /** @type {number} */
  #maxInFlight;
  /** @type {number} */
  #maxResponseBytes;
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: any) => void, timer: any, op: number }>} */
  #pending;
  /** Requests waiting until fewer than maxInFlight are in flight. @type {Array<() => void>} */
  #inFlightWaiters;
  /** @type {number} */
  #nextCorr;
  /** Why the connection is over. @type {ClientError|null} */
  #dead;
  /** Who takes the next message during the handshake. @type {((bytes: Uint8Array) => void) | null} */
  #handshakeTake;
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
    handshake = (client) => client.#handshake();
    fail = (client, err, code, reason) => client.#fail(err, code, reason);
    underlying = (client, socket) => {
      client.#socket = socket;
    };
  }

  /**
   * @param {string} url
   * @param {any} ws
   * @param {ConnectOptions} opts
   */
  constructor(url, ws, opts) {
    /** The URL given to {@link connect}. @type {string} */
    this.url = url;
    this.#ws = ws;
    this.#opts = opts;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#maxInFlight = Math.max(1, opts.maxInFlight ?? 512);
    this.#maxResponseBytes = opts.maxResponseBytes ?? 128 << 20;
    this.#pending = new Map();
    this.#inFlightWaiters = [];
    this.#nextCorr = 1;
    this.#dead = null;
    this.#handshakeTake = null;
    /** Largest frame the broker accepts (after the length prefix), from its hello. @type {number} */
    this.maxFrame = 0;
    /** The broker hello's flags ({@link BrokerFlags}). @type {number} */
    this.brokerFlags = 0;
    /** The broker's id (16 bytes). @type {Uint8Array|null} */
    this.brokerId = null;
    /** The principal this connection acts as (SHA-256 of the identity's SPKI), or `null` when anonymous. @type {Uint8Array|null} */
    this.principal = null;
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

  /** The principal as lowercase hex (as ACLs and inbox names show it), or `null`. */
  get principalHex() {
    return this.principal ? toHex(this.principal) : null;
  }

  /** Requests in flight. */
  get inFlight() {
    return this.#pending.size;
  }

  /** Whether the connection is over (closed by either side). */
  get isClosed() {
    return this.#dead !== null;
  }

  /** Resolves with the close code and reason once the WebSocket has closed. */
  get closed() {
    return this.#closed;
  }

  async #handshake() {
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
    const endpoint = knownBrokers || signs ? dialledEndpoint(this.url) : null;
    // Before anything is signed: is this the broker pinned for the name?
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
      this.principal = await authenticate({ ...step, correlationId: this.#nextCorr++ });
    } else if (has(BrokerFlags.AUTH_REQUIRED)) {
      throw new ClientError('AuthRequired', `the broker at ${this.url} requires authentication: give an identity`);
    }
    // Trust on first use: the first broker that completes a handshake under
    // this name and port is the one expected from then on.
    if (knownBrokers && endpoint && !pinned) await pin(knownBrokers, endpoint, hello.brokerId);
    this.#handshakeTake = null;
    this.#handshakeReject = null;
  }

  /**
   * @param {unknown} data
   */
  #onMessage(data) {
    if (this.#dead) return;
    const bytes = messageBytes(data);
    if (bytes === null) {
      this.#fail(new WireError('InvalidField', 'the broker sent a text message'), CLOSE_PROTOCOL_ERROR, 'text message');
      return;
    }
    if (this.#handshakeTake) {
      const take = this.#handshakeTake;
      this.#handshakeTake = null;
      take(bytes);
      return;
    }
    let resp;
    try {
      resp = decodeResponse(bytes, this.#maxResponseBytes);
    } catch (e) {
      this.#fail(/** @type {ClientError} */ (e), CLOSE_PROTOCOL_ERROR, 'malformed response');
      return;
    }
    if (resp.correlationId === 0) {
      // A connection-level notice (ShuttingDown, Timeout, TooManyConnections): the broker closes next.
      const why = resp.ok ? 'notice' : `${resp.error?.status}: ${resp.error?.message}`;
      this.#fail(new ClientError('ConnectionLost', `connection to ${this.url} lost: ${why}`, { status: resp.error?.status, statusCode: resp.error?.statusCode }), 1000, 'notice received');
      return;
    }
    const p = this.#pending.get(resp.correlationId);
    if (!p || p.op !== resp.op) {
      const what = p ? `op ${opName(resp.op)} for a ${opName(p.op)} request` : `unknown correlation id ${resp.correlationId}`;
      this.#fail(new WireError('InvalidField', `the broker answered with ${what}`), CLOSE_PROTOCOL_ERROR, 'unexpected response');
      return;
    }
    this.#settle(resp.correlationId);
    if (resp.ok) p.resolve(resp.body);
    else p.reject(brokerError(/** @type {any} */ (resp.error)));
  }

  /**
   * @param {number} corr
   */
  #settle(corr) {
    const p = this.#pending.get(corr);
    if (!p) return;
    clearTimeout(p.timer);
    this.#pending.delete(corr);
    const w = this.#inFlightWaiters.shift();
    if (w) w();
  }

  /**
   * @param {number} code
   * @param {string} reason
   */
  #onClose(code, reason) {
    const detail = `closed with code ${code}${reason ? ` (${reason})` : ''}${this.#lastError && code !== 1000 ? `: ${this.#lastError}` : ''}`;
    this.#fail(new ClientError('ConnectionLost', `connection to ${this.url} lost: ${detail}`), code, reason);
    this.#resolveClosed?.({ code, reason });
  }

  /**
   * End the connection with `err`: every pending request and waiter is
   * rejected with it, later requests fail with it too.
   * @param {ClientError} err
   * @param {number} code
   * @param {string} reason
   */
  #fail(err, code, reason) {
    if (this.#dead) return;
    this.#dead = err;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(this.#deadError());
    }
    for (const w of this.#inFlightWaiters.splice(0)) w();
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
  }

  /**
   * The error a request gets on a connection that is over: `Closed` after
   * {@link Client.close}, else `ConnectionLost` naming why (the close code and
   * reason, the broker's notice, or the protocol error), with it as `cause`.
   * @returns {ClientError}
   */
  #deadError() {
    const dead = /** @type {ClientError} */ (this.#dead);
    if (dead.code === 'Closed' || dead.code === 'ConnectionLost') {
      return new ClientError(dead.code, dead.message, { cause: dead, status: dead.status, statusCode: dead.statusCode });
    }
    return new ClientError('ConnectionLost', `connection to ${this.url} lost: ${dead.message}`, { cause: dead });
  }

  /**
   * Send one request and wait for its answer.
   * @param {import('../protocol/frame.js').Request} req
   * @param {number} [extraMs] added to the timeout (a fetch's long poll)
   * @returns {Promise<any>}
   */
  async #request(req, extraMs = 0) {
    while (!this.#dead && this.#pending.size >= this.#maxInFlight) {
      await new Promise((resolve) => this.#inFlightWaiters.push(() => resolve(undefined)));
    }
    if (this.#dead) throw this.#deadError();
    let corr = this.#nextCorr;
    this.#nextCorr = this.#nextCorr >= 0xffff_ffff ? 1 : this.#nextCorr + 1; // 0 is the broker's
    while (this.#pending.has(corr)) corr = corr >= 0xffff_ffff ? 1 : corr + 1;
    const frame = encodeRequest(corr, req);
    const len = frame.length - 4;
    const max = carriesBatch(req.op) ? this.maxFrame : Math.min(MAX_CONTROL_FRAME, this.maxFrame);
    if (len > max) {
      throw new ClientError('RequestTooLarge', `request of ${len} bytes exceeds the broker's frame limit of ${max} bytes`);
    }
    const opCode = frame[4];
    const after = this.#timeoutMs + extraMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.#pending.has(corr)) return;
        this.#settle(corr);
        reject(new ClientError('Timeout', `${opName(opCode)} timed out after ${after} ms`));
        // The connection's state is unknown: end it, as the Rust client does.
        this.#fail(new ClientError('ConnectionLost', `connection to ${this.url} lost: a request timed out`), CLOSE_TIMEOUT, 'request timed out');
      }, after);
      this.#pending.set(corr, { resolve, reject, timer, op: opCode });
      this.#ws.send(frame);
    });
  }

  /**
   * Append one record batch (a {@link BatchBuilder} result) to a partition;
   * resolves to the offset of its first record.
   * @param {string} topic
   * @param {number} partition
   * @param {number} ack `Ack.Written` or `Ack.Durable`
   * @param {Uint8Array} batch
   * @returns {Promise<number>}
   */
  async produce(topic, partition, ack, batch) {
    const body = await this.#request({ op: 'produce', topic, partition, ack, batch });
    return body.baseOffset;
  }

  /**
   * Append one record batch only if the partition's log ends at
   * `expectedEnd` (the offset its first record would get): of any number of
   * producers expecting one end, exactly one gets `{ outcome: 'appended',
   * baseOffset }` (`baseOffset` is `expectedEnd`); the others learn the end,
   * `{ outcome: 'endMoved', end }`, and nothing of theirs is appended. Any
   * other refusal rejects as a request does (`Broker`, `Unauthorized`…).
   *
   * One request, one answer: never through a {@link Producer}'s batching
   * and never sent twice. When the answer is lost (`ConnectionLost`,
   * `Timeout`) the batch may or may not be in the log — sending it again
   * could append it twice, or be told the end moved by its own first copy —
   * so read the partition to know. (Rust: `Client::conditional_produce`.)
   * @param {string} topic
   * @param {number} partition
   * @param {number} expectedEnd
   * @param {Uint8Array} batch one whole batch (a {@link BatchBuilder} result)
   * @param {{ ack?: number|'durable'|'written' }} [opts] `ack` as for
   *   {@link Client.produce}; default `Ack.Durable`
   * @returns {Promise<import('./outcome.js').Conditional>}
   */
  async conditionalProduce(topic, partition, expectedEnd, batch, { ack = Ack.Durable } = {}) {
    const a = ack === 'durable' ? Ack.Durable : ack === 'written' ? Ack.Written : ack;
    const answer = await this.#request({ op: 'conditionalProduce', topic, partition, ack: a, expectedEnd, batch }).then(
      (body) => ({ body }),
      (error) => ({ error }),
    );
    return conditional(expectedEnd, answer);
  }

  /**
   * Take the next unclaimed batch of `topic/partition`: `{ outcome:
   * 'claimed', offset, next, batch, records() }` — no other claimer gets it,
   * ever, across broker crashes — or `{ outcome: 'nothingLeft' }` when every
   * durable batch is claimed. Over the claimer's rate the broker refuses
   * with `Broker` (`status` `RateLimited`): try later.
   *
   * Keep `claimId` until the claim is answered: after a lost answer
   * (`ConnectionLost`, `Timeout`) claim again with the same id, on a new
   * connection as the same principal, and the broker hands out the same
   * batch rather than a second one. (Rust: `Client::claim`.)
   * @param {string} topic
   * @param {number} partition
   * @param {ClaimId} claimId e.g. `ClaimId.random()`
   * @returns {Promise<import('./outcome.js').Claim>}
   */
  async claim(topic, partition, claimId) {
    if (!(claimId instanceof ClaimId)) throw new ClientError('InvalidArgument', 'invalid argument: claimId must be a ClaimId');
    const answer = await this.#request({ op: 'claim', topic, partition, claimId: claimId.asBytes() }).then(
      (body) => ({ body }),
      (error) => ({ error }),
    );
    return claimed(topic, partition, answer);
  }

  /**
   * Read whole batches from `offset`, waiting up to `maxWaitMs` for data
   * when there is none (long poll). `maxBytes` is capped so the response fits
   * the broker's frame limit.
   * @param {string} topic
   * @param {number} partition
   * @param {number} offset
   * @param {number} [maxBytes] default 1 MiB
   * @param {number} [maxWaitMs] default 0
   * @returns {Promise<FetchResponse>}
   */
  async fetch(topic, partition, offset, maxBytes = 1 << 20, maxWaitMs = 0) {
    const cap = Math.max(1, this.maxFrame - (FETCH_RESPONSE_HEADER_LEN - 4));
    const body = await this.#request(
      { op: 'fetch', topic, partition, offset, maxBytes: Math.min(maxBytes, cap), maxWaitMs },
      maxWaitMs,
    );
    return new FetchResponse(topic, partition, body.highWatermark, body.logStart, body.records);
  }

  /**
   * Store `offset` as the next offset `group` will read.
   * @param {string} group
   * @param {string} topic
   * @param {number} partition
   * @param {number} offset
   * @returns {Promise<void>}
   */
  async commit(group, topic, partition, offset) {
    await this.#request({ op: 'commit', group, topic, partition, offset });
  }

  /**
   * The next offset `group` will read, or `null` if it never committed.
   * @param {string} group
   * @param {string} topic
   * @param {number} partition
   * @returns {Promise<number|null>}
   */
  async committed(group, topic, partition) {
    const body = await this.#request({ op: 'committed', group, topic, partition });
    return body.offset;
  }

  /**
   * Describe every topic the caller may describe (no argument) or one.
   * The broker answers "every topic" only when that fits in one page (at
   * most 1,000 topics the caller may describe, among at most 8,000);
   * otherwise it refuses with `PayloadTooLarge`: use {@link Client.listTopics}
   * or {@link Client.allTopics} there.
   * @param {string|null} [topic]
   * @returns {Promise<import('../protocol/frame.js').TopicMetadata[]>}
   */
  async metadata(topic = null) {
    return this.#request({ op: 'metadata', topic });
  }

  /**
   * One page of the topics the caller may describe, in name order, whose
   * names sort after `after` (`null` starts at the first; pass the previous
   * page's `next` to go on), at most `limit` (1..=1000) of them. The broker
   * bounds the work of each request, so a page may hold fewer topics, even
   * none, and still have a `next`: the listing is complete only when
   * `next` is `null`. A `next` of the form `__cursor.<n>` stands for a name
   * the caller may not see and is valid only on this connection.
   * (Rust: `Client::list_topics`.)
   * @param {{ after?: string|null, limit?: number }} [opts] `limit` default 1000
   * @returns {Promise<import('../protocol/frame.js').TopicPage>}
   */
  async listTopics({ after = null, limit = MAX_LIST_LIMIT } = {}) {
    /** @type {import('../protocol/frame.js').TopicPage} */
    const page = await this.#request({ op: 'listTopics', after, limit });
    // An opaque cursor (`__cursor.<n>`: a name the caller may not see,
    // known only to this connection) cannot be compared; it must not repeat.
    const opaque = (/** @type {string} */ c) => c.startsWith('__cursor.');
    if (after !== null && page.next !== null
        && (page.next === after || (!opaque(after) && !opaque(page.next) && page.next < after))) {
      // A cursor that does not move would page forever. (Names are ASCII:
      // string order is the broker's byte order.)
      throw new WireError('InvalidField', `ListTopics next cursor ${JSON.stringify(page.next)} does not sort after ${JSON.stringify(after)}`);
    }
    return page;
  }

  /**
   * Every topic the caller may describe, in name order, one page of
   * {@link Client.listTopics} at a time: only one page is held in memory,
   * however many topics the broker has. (Rust's `Client::all_topics`
   * collects them all in a `Vec` instead.)
   * @param {{ limit?: number }} [opts] topics per request, default 1000
   * @returns {AsyncGenerator<import('../protocol/frame.js').TopicMetadata, void, void>}
   */
  async *allTopics({ limit = MAX_LIST_LIMIT } = {}) {
    /** @type {string|null} */
    let after = null;
    for (;;) {
      const page = await this.listTopics({ after, limit });
      yield* page.topics;
      if (page.next === null) return;
      after = page.next;
    }
  }

  /**
   * Create a topic (`TopicExists` if it already does).
   * @param {string} topic
   * @param {{ partitions?: number, cleanup?: number, retentionMs?: number|bigint, retentionBytes?: number|bigint }} [settings]
   * @returns {Promise<void>}
   */
  async createTopic(topic, settings = {}) {
    await this.#request({ op: 'createTopic', topic, partitions: settings.partitions ?? 1, cleanup: settings.cleanup, retentionMs: settings.retentionMs, retentionBytes: settings.retentionBytes });
  }

  /**
   * Delete a topic and its data.
   * @param {string} topic
   * @returns {Promise<void>}
   */
  async deleteTopic(topic) {
    await this.#request({ op: 'deleteTopic', topic });
  }

  /**
   * Round trip to the broker; resolves to how long it took in ms.
   * @returns {Promise<number>}
   */
  async ping() {
    const t = performance.now();
    await this.#request({ op: 'ping' });
    return performance.now() - t;
  }

  /**
   * Close the connection: pending requests fail with `Closed`. Resolves
   * once the WebSocket has closed.
   * @returns {Promise<void>}
   */
  async close() {
    this.#fail(new ClientError('Closed', 'closed: Client.close() was called'), 1000, 'client closed');
    const ws = this.#ws;
    if (ws.readyState === 3) return;
    await this.#closed;
  }
}

