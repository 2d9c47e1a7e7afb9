/**
 * `connect(url, opts)` → {@link Client}: requests to a HermitMQ broker over
 * WebSocket, pipelined and matched by correlation id, on a connection that
 * is reopened when it dies.
 *
 * The parts: client/link.js opens one WebSocket and runs its handshake (the
 * version-3 hello, the broker id checked, `Authenticate`);
 * client/reconnect.js decides when to open the next link after one died
 * (backoff with full jitter, `gave-up`) and tells state listeners; this
 * module sends requests on the link in use and decides what becomes of
 * those in flight when it dies: reads and commits are sent again, unchanged,
 * on the next link ({@link resendable}); anything else (a produce) fails
 * with a retriable `ConnectionLost`, and the caller decides — the
 * {@link Producer} resends the batch's identical bytes. Requests made while
 * there is no link wait for the next one (no timer runs until a request is
 * sent).
 *
 * Differences from the Rust `Client` (client/src/client.rs): the next
 * connection is opened at once, in the background, and requests wait for
 * it; reads and commits in flight are resent (Rust fails every request in
 * flight); every reconnect must find the first connection's broker id.
 * `reconnect: false` gives one connection, never reopened.
 *
 * @module client/connection
 */

import { toHex } from '../bytes.js';
import { ClientError, WireError } from '../protocol/error.js';
import { BrokerFlags } from '../protocol/hello.js';
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
import { CLOSE_PROTOCOL_ERROR, CLOSE_TIMEOUT, openLink } from './link.js';
import { ClaimId, claimed, conditional } from './outcome.js';
import { Reconnector, endsReconnecting, reconnectPolicy, resendable } from './reconnect.js';
import { FetchResponse } from './records.js';

export { CLOSE_PROTOCOL_ERROR, CLOSE_TIMEOUT, SUBPROTOCOL } from './link.js';

/**
 * What `connect` needs of an identity (an `Identity` has both).
 * @typedef {{ spki(): Promise<Uint8Array>,
 *   signAuthBound(nonce: Uint8Array, brokerId: Uint8Array, name: string, channelBinding: Uint8Array): Promise<Uint8Array> }} AuthIdentity
 */

/**
 * What a fetch asks for past its offset ({@link Client.fetchWith}; Rust `FetchParams`).
 * @typedef {object} FetchParams
 * @property {number} [maxBytes] Soft limit on the bytes returned (at least
 *   one batch is always returned; capped to the broker's frame limit). Default 1 MiB.
 * @property {number} [maxWaitMs] The longest the broker holds the fetch when
 *   there is nothing at the offset — or, with `minBytes > 1`, fewer than
 *   `minBytes`. Default 0.
 * @property {number} [minBytes] Hold the fetch until at least this many
 *   bytes of whole batches are there (capped by `maxBytes`): fewer, larger
 *   answers for a consumer following a busy log. 1: answered as soon as
 *   anything is there. Sent only to a broker that announced it. Default 1.
 * @property {number} [minWaitMs] With `minBytes > 1`: how long the broker
 *   may hold the fetch once some data is there (capped by `maxWaitMs`). Default 0.
 */

/**
 * @typedef {object} ConnectOptions
 * @property {AuthIdentity} [identity]
 *   The key this client authenticates with (an `Identity`): when the broker
 *   offers or requires authentication, the connection signs its hello's
 *   nonce, the broker id, the dialled name and (Node, `wss:`) the TLS
 *   exporter value (mechanism 2) before any request is sent — again on
 *   every reconnect. Default none (anonymous).
 * @property {import('./known-brokers.js').KnownBrokers} [knownBrokers]
 *   Where the broker ids of known brokers are pinned, by dialled name and
 *   port: a broker presenting another id than the pinned one is refused
 *   with `BrokerIdChanged` before anything is signed; one without a pin is
 *   pinned once the handshake completes (trust on first use). Checked at
 *   every reconnect too. Default none (nothing pinned: any broker id is
 *   taken at the first connect; a reconnect must still find that one).
 * @property {boolean|import('./reconnect.js').ReconnectOptions} [reconnect]
 *   Reopen the connection when it dies (backoff, attempts:
 *   {@link import('./reconnect.js').ReconnectOptions}); `false`: one
 *   connection, never reopened — every request then fails with
 *   `ConnectionLost` and later ones too. Default `true` (never gives up).
 * @property {(change: import('./reconnect.js').ConnectionStateChange) => void} [onStateChange]
 *   Told every state change from the first `connecting` on (the same as
 *   {@link Client#onStateChange}, which only sees what follows `connect`).
 * @property {number} [timeoutMs] Limit on waiting for any answer once the
 *   request is sent (a fetch gets its `maxWaitMs` on top). When it passes
 *   the request fails with `Timeout` and the connection is closed (and
 *   reopened). Default 30 000.
 * @property {number} [connectTimeoutMs] Limit on opening a connection
 *   (WebSocket upgrade, hello, Authenticate). Default 5 000.
 * @property {number} [maxInFlight] Most requests in flight (or waiting for
 *   a connection); further ones wait until an answer comes. Default 512.
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
 * A request not answered yet: sent on `link`, or waiting for one (`null`).
 * `frame` is kept to send again, byte for byte, on the next link — but for
 * a fetch's min bytes part: `minPart` says whether the frame carries it, and
 * it is re-encoded for a link whose broker differs in `FETCH_MIN_BYTES`.
 * @typedef {{ req: import('../protocol/frame.js').Request, frame: Uint8Array, op: number, extraMs: number, minPart: boolean,
 *   resolve: (v: any) => void, reject: (e: any) => void, timer: any, link: import('./link.js').Link|null }} Pending
 */

/**
 * Internal: `connect` opens a new client's first connection through this;
 * set by Client's static block (it is private).
 * @type {(client: Client) => Promise<void>}
 */
let start;

/**
 * Open a connection to `url` (`ws://host:port/` or `wss://…`) and return once
 * it is ready: hello exchanged and, with an identity, authenticated. The
 * first connection is not retried: a client that never connected is not
 * made. Later ones are (`reconnect`).
 *
 * Fails with `Connect` (no connection, no hello in time), `UnsupportedVersion`,
 * `BrokerIdChanged` (another broker id than the one pinned in
 * `knownBrokers`: nothing is signed or sent after the hello),
 * `KnownBrokers` (the store failed), `AuthRequired` (the broker requires
 * authentication and no identity was given: nothing is sent after the
 * hello), `AuthFailed` (the broker refused the proof — a name it does not
 * serve, another TLS connection's binding, a bad signature — or named
 * another principal; or, over `wss:`, the connection is not TLS 1.3) or
 * `InvalidArgument` (bad `reconnect` options).
 *
 * @param {string} url
 * @param {ConnectOptions} [opts]
 * @returns {Promise<Client>}
 */
export async function connect(url, opts = {}) {
  const client = new Client(url, opts);
  await start(client);
  return client;
}

/**
 * A connection to a broker, reopened when it dies: many requests in flight
 * at once, answers matched by correlation id (they may come back in any
 * order). Create it with {@link connect}.
 */
export class Client {
  /** @type {number} */
  #timeoutMs;
  /** @type {number} */
  #maxInFlight;
  /** @type {number} */
  #maxResponseBytes;
  /** Insertion order is request order: waiting requests go out in it. @type {Map<number, Pending>} */
  #pending;
  /** Requests waiting until fewer than maxInFlight are in flight. @type {Array<() => void>} */
  #inFlightWaiters;
  /** @type {number} */
  #nextCorr;
  /** Why the client is over (closed, gave up). @type {ClientError|null} */
  #dead;
  /** @type {Reconnector} */
  #reconnector;
  /** The link requests go out on, `null` between two. @type {import('./link.js').Link|null} */
  #link = null;
  /** The last link, whose close `closed` reports. @type {import('./link.js').Link|null} */
  #lastLink = null;
  /** @type {Promise<{code: number, reason: string}>} */
  #closed;
  /** @type {((closed: {code: number, reason: string}) => void) | undefined} */
  #resolveClosed;

  static {
    start = (client) => client.#reconnector.start();
  }

  /**
   * @param {string} url
   * @param {ConnectOptions} opts
   */
  constructor(url, opts) {
    /** The URL given to {@link connect}. @type {string} */
    this.url = url;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#maxInFlight = Math.max(1, opts.maxInFlight ?? 512);
    this.#maxResponseBytes = opts.maxResponseBytes ?? 128 << 20;
    this.#pending = new Map();
    this.#inFlightWaiters = [];
    this.#nextCorr = 1;
    this.#dead = null;
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
    this.#reconnector = new Reconnector(
      reconnectPolicy(opts.reconnect),
      (expected, onCreate) => openLink(url, opts, expected, onCreate),
      {
        attach: (link) => this.#attach(link),
        detach: (link, err, final) => this.#detach(link, err, final),
        over: (err) => this.#end(err),
      },
    );
    if (opts.onStateChange) this.#reconnector.onStateChange(opts.onStateChange);
  }

  /** The principal as lowercase hex (as ACLs and inbox names show it), or `null`. */
  get principalHex() {
    return this.principal ? toHex(this.principal) : null;
  }

  /** Requests in flight (sent and not answered, or waiting for a connection). */
  get inFlight() {
    return this.#pending.size;
  }

  /** Whether the client is over: closed, or it gave up reconnecting (with `reconnect: false`: the connection died). */
  get isClosed() {
    return this.#dead !== null;
  }

  /**
   * Resolves with the close code and reason of the last WebSocket once the
   * client is over (closed, or gave up) and that WebSocket has closed.
   */
  get closed() {
    return this.#closed;
  }

  /**
   * The connection's state: `connecting`, `connected`, `disconnected`,
   * `gave-up` or `closed` ({@link ConnectionState}).
   * @returns {import('./reconnect.js').ConnectionStateName}
   */
  get state() {
    return this.#reconnector.state;
  }

  /** How many connections this client has opened (1 until the first reconnect). */
  get connectionsOpened() {
    return this.#reconnector.connections;
  }

  /**
   * Call `listener` on every state change from now on (`connecting`,
   * `connected`, `disconnected` with its `reason` and `retryInMs`,
   * `gave-up` with its `reason`, `closed`); returns a function that stops it.
   * @param {(change: import('./reconnect.js').ConnectionStateChange) => void} listener
   * @returns {() => void}
   */
  onStateChange(listener) {
    return this.#reconnector.onStateChange(listener);
  }

  /**
   * A link is up: take its hello's values and send what waits, in request
   * order (requests resent from a dead link keep their place).
   * @param {import('./link.js').Link} link
   */
  #attach(link) {
    this.#link = link;
    this.#lastLink = link;
    this.maxFrame = link.maxFrame;
    this.brokerFlags = link.brokerFlags;
    this.brokerId = link.brokerId;
    this.principal = link.principal;
    link.onFrame = (bytes) => this.#onFrame(link, bytes);
    for (const [corr, p] of [...this.#pending]) {
      if (p.link !== null || this.#link !== link) continue;
      // A broker restarted with a smaller frame limit: refuse here rather
      // than have it close the connection.
      const len = p.frame.length - 4;
      const max = carriesBatch(p.req.op) ? link.maxFrame : Math.min(MAX_CONTROL_FRAME, link.maxFrame);
      if (len > max) {
        this.#settle(corr);
        p.reject(new ClientError('RequestTooLarge', `request of ${len} bytes exceeds the broker's frame limit of ${max} bytes`));
        continue;
      }
      this.#send(corr, p, link);
    }
  }

  /**
   * A link died: what was sent on it and may be sent again waits for the
   * next link (unless `final`); the rest fails with a retriable
   * `ConnectionLost` naming why.
   * @param {import('./link.js').Link} link
   * @param {ClientError} err
   * @param {boolean} final
   */
  #detach(link, err, final) {
    if (this.#link === link) this.#link = null;
    for (const [corr, p] of [...this.#pending]) {
      if (p.link !== link) continue;
      clearTimeout(p.timer);
      p.timer = null;
      p.link = null;
      if (!final && resendable(p.req)) continue;
      this.#settle(corr);
      p.reject(lostError(this.url, err));
    }
  }

  /**
   * The client is over with `err`: every request, sent or waiting, and
   * every waiter is rejected; later requests fail too.
   * @param {ClientError} err
   */
  #end(err) {
    if (this.#dead) return;
    this.#dead = err;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(this.#deadError());
    }
    for (const w of this.#inFlightWaiters.splice(0)) w();
    const last = this.#lastLink;
    (last ? last.closed : Promise.resolve({ code: 1006, reason: '' })).then((c) => this.#resolveClosed?.(c));
  }

  /**
   * @param {import('./link.js').Link} link
   * @param {Uint8Array} bytes
   */
  #onFrame(link, bytes) {
    if (link !== this.#link) return;
    let resp;
    try {
      resp = decodeResponse(bytes, this.#maxResponseBytes);
    } catch (e) {
      link.fail(/** @type {ClientError} */ (e), CLOSE_PROTOCOL_ERROR, 'malformed response');
      return;
    }
    if (resp.correlationId === 0) {
      // A connection-level notice (ShuttingDown, Timeout, TooManyConnections): the broker closes next.
      const why = resp.ok ? 'notice' : `${resp.error?.status}: ${resp.error?.message}`;
      link.fail(new ClientError('ConnectionLost', `connection to ${this.url} lost: ${why}`, { status: resp.error?.status, statusCode: resp.error?.statusCode }), 1000, 'notice received');
      return;
    }
    const p = this.#pending.get(resp.correlationId);
    if (!p || p.link !== link || p.op !== resp.op) {
      const what = p?.link === link ? `op ${opName(resp.op)} for a ${opName(p.op)} request` : `unknown correlation id ${resp.correlationId}`;
      link.fail(new WireError('InvalidField', `the broker answered with ${what}`), CLOSE_PROTOCOL_ERROR, 'unexpected response');
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
   * The error a request gets on a client that is over: `Closed` after
   * {@link Client.close}; the refusal itself when a reconnect was refused
   * (`BrokerIdChanged`, `AuthFailed`…); else `ConnectionLost` naming why
   * (the close code and reason, the broker's notice, the protocol error, the
   * attempts given up on), with it as `cause`.
   * @returns {ClientError}
   */
  #deadError() {
    const dead = /** @type {ClientError} */ (this.#dead);
    if (dead.code !== 'ConnectionLost' && dead.code !== 'Closed' && endsReconnecting(dead)) return dead;
    return lostError(this.url, dead);
  }

  /**
   * Send a request on `link` and start its timer.
   * @param {number} corr
   * @param {Pending} p
   * @param {import('./link.js').Link} link
   */
  #send(corr, p, link) {
    p.link = link;
    const minPart = sendsMinBytes(p.req, link.brokerFlags);
    if (minPart !== p.minPart) {
      // A fetch made for another broker (a reconnect reached an older or
      // newer one): its min bytes part only where it is read.
      p.frame = encodeRequest(corr, minPart ? p.req : plainFetch(p.req));
      p.minPart = minPart;
    }
    const after = this.#timeoutMs + p.extraMs;
    p.timer = setTimeout(() => {
      if (this.#pending.get(corr) !== p) return;
      this.#settle(corr);
      p.reject(new ClientError('Timeout', `${opName(p.op)} timed out after ${after} ms`));
      // The connection's state is unknown: end it, as the Rust client does.
      link.fail(new ClientError('ConnectionLost', `connection to ${this.url} lost: a request timed out`), CLOSE_TIMEOUT, 'request timed out');
    }, after);
    link.send(p.frame);
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
    const minPart = sendsMinBytes(req, this.brokerFlags);
    const frame = encodeRequest(corr, minPart ? req : plainFetch(req));
    const len = frame.length - 4;
    const max = carriesBatch(req.op) ? this.maxFrame : Math.min(MAX_CONTROL_FRAME, this.maxFrame);
    if (len > max) {
      throw new ClientError('RequestTooLarge', `request of ${len} bytes exceeds the broker's frame limit of ${max} bytes`);
    }
    const opCode = frame[4];
    return new Promise((resolve, reject) => {
      /** @type {Pending} */
      const p = { req, frame, op: opCode, extraMs, minPart, resolve, reject, timer: null, link: null };
      this.#pending.set(corr, p);
      // Without a link it waits: #attach sends it.
      if (this.#link) this.#send(corr, p, this.#link);
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
    return this.fetchWith(topic, partition, offset, { maxBytes, maxWaitMs });
  }

  /**
   * {@link Client.fetch} with every parameter, among them `minBytes` (min
   * bytes): the broker holds the fetch until that many bytes of whole
   * batches are there (capped by `maxBytes`), `minWaitMs` passed with some
   * data there, or `maxWaitMs` passed. `minBytes` goes only to a broker
   * whose hello announced `BrokerFlags.FETCH_MIN_BYTES` (an older one
   * answers on any data), checked on each connection the fetch goes out
   * on: a reconnect to an older broker drops it. (Rust: `Client::fetch_with`.)
   * @param {string} topic
   * @param {number} partition
   * @param {number} offset
   * @param {FetchParams} [params]
   * @returns {Promise<FetchResponse>}
   */
  async fetchWith(topic, partition, offset, { maxBytes = 1 << 20, maxWaitMs = 0, minBytes = 1, minWaitMs = 0 } = {}) {
    const cap = Math.max(1, this.maxFrame - (FETCH_RESPONSE_HEADER_LEN - 4));
    const body = await this.#request(
      { op: 'fetch', topic, partition, offset, maxBytes: Math.min(maxBytes, cap), maxWaitMs, minBytes, minWaitMs },
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
   * Close the connection and stop reconnecting: pending requests fail with
   * `Closed`. Resolves once the WebSocket has closed.
   * @returns {Promise<void>}
   */
  async close() {
    const link = this.#reconnector.close();
    this.#end(new ClientError('Closed', 'closed: Client.close() was called'));
    if (!link) return;
    link.fail(new ClientError('Closed', 'closed: Client.close() was called'), 1000, 'client closed');
    if (link.socketClosed) return;
    await link.closed;
  }
}

/**
 * Whether `req` goes out with a fetch's min bytes part to a broker whose
 * hello had `flags`: a fetch asking `minBytes > 1`, to a broker that
 * announced `FETCH_MIN_BYTES` (an older one refuses the longer body).
 * @param {import('../protocol/frame.js').Request} req
 * @param {number} flags
 * @returns {boolean}
 */
function sendsMinBytes(req, flags) {
  return req.op === 'fetch' && (req.minBytes ?? 1) > 1 && (flags & BrokerFlags.FETCH_MIN_BYTES) !== 0;
}

/**
 * `req` without a fetch's min bytes part (anything else unchanged).
 * @param {import('../protocol/frame.js').Request} req
 * @returns {import('../protocol/frame.js').Request}
 */
function plainFetch(req) {
  return req.op === 'fetch' ? { ...req, minBytes: 1, minWaitMs: 0 } : req;
}

/**
 * The error of a request whose connection died: `ConnectionLost` (or
 * `Closed`) naming why, with the link's error as `cause`.
 * @param {string} url
 * @param {ClientError} err
 * @returns {ClientError}
 */
function lostError(url, err) {
  if (err.code === 'Closed' || err.code === 'ConnectionLost') {
    return new ClientError(err.code, err.message, { cause: err, status: err.status, statusCode: err.statusCode });
  }
  return new ClientError('ConnectionLost', `connection to ${url} lost: ${err.message}`, { cause: err });
}
