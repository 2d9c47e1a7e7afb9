/**
 * When a {@link Client}'s connection dies, open the next one: the
 * {@link Reconnector} owns the lifecycle of a client's links
 * (client/link.js) — the first connect, then, after every drop, attempts
 * with exponential backoff and full jitter up to a cap, each a whole new
 * handshake (hello, broker id checked against the first connection's and
 * the pin store's, `Authenticate` with mechanism 2 and its binding) — and
 * tells listeners what state the connection is in. What happens to the
 * requests of a link that died is the client's (client/connection.js):
 * {@link resendable} says which may be sent again.
 *
 * Differences from Rust's client (client/src/transport/hermit/mod.rs):
 * Rust reconnects when a request needs a connection and fails that request
 * with the connect error; here the next connection is opened in the
 * background as soon as one dies (a page wants its badge to say so), and
 * requests wait for it. Rust checks the broker id against the state
 * directory's pins only; here every reconnect must also find the broker id
 * of the client's first connection, pin store or not.
 *
 * @module client/reconnect
 */

import { ClientError } from '../protocol/error.js';
import { BrokerFlags } from '../protocol/hello.js';

/** @typedef {import('./link.js').Link} Link */
/** @typedef {import('./link.js').Expected} Expected */

/**
 * The states a client's connection goes through (`Client.state`):
 * `connecting` (an attempt is under way), `connected`, `disconnected` (the
 * connection died or an attempt failed; the next attempt is scheduled),
 * `gave-up` (no more attempts: the client is over) and `closed`
 * (`Client.close()` was called).
 */
export const ConnectionState = Object.freeze({
  Connecting: 'connecting',
  Connected: 'connected',
  Disconnected: 'disconnected',
  GaveUp: 'gave-up',
  Closed: 'closed',
});

/** @typedef {'connecting'|'connected'|'disconnected'|'gave-up'|'closed'} ConnectionStateName a {@link ConnectionState} value */

/**
 * What a state listener is told. `attempt` counts the attempts since the
 * connection was last up (1 for the first); `connections` how many this
 * client has opened so far; `reason` why the connection or the attempt
 * failed (a `ClientError`); `retryInMs` when the next attempt starts.
 * @typedef {{ state: 'connecting', attempt: number }
 *   | { state: 'connected', attempt: number, connections: number }
 *   | { state: 'disconnected', reason: ClientError, attempt: number, retryInMs: number }
 *   | { state: 'gave-up', reason: ClientError }
 *   | { state: 'closed' }} ConnectionStateChange
 */

/**
 * @typedef {object} ReconnectOptions
 * @property {number} [initialDelayMs] Cap of the wait before the first
 *   attempt after a drop; each failed attempt doubles the cap. The wait is
 *   drawn uniformly between 0 and the cap (full jitter), so clients dropped
 *   together do not come back together. Default 100.
 * @property {number} [maxDelayMs] Largest cap. Default 5000.
 * @property {number} [maxAttempts] Failed attempts in a row before the
 *   client gives up (`gave-up`, every waiting request fails). Default
 *   `Infinity`: a client waits for its broker as long as it takes, and
 *   only `close()` stops it.
 * @property {number} [stableAfterMs] A connection that lived at least this
 *   long before dying starts the backoff again from `initialDelayMs`; one
 *   that died younger (a broker refusing right after the hello) counts as a
 *   failed attempt. Default 1000.
 */

/**
 * The options in force, checked (`InvalidArgument`); `null` when
 * reconnecting is off (`reconnect: false`).
 * @typedef {{ initialDelayMs: number, maxDelayMs: number, maxAttempts: number, stableAfterMs: number }} ReconnectPolicy
 */

/**
 * @param {ReconnectOptions|boolean|undefined} option
 * @returns {ReconnectPolicy|null}
 */
export function reconnectPolicy(option) {
  if (option === false) return null;
  const o = option === true || option === undefined ? {} : option;
  if (typeof o !== 'object' || o === null) throw new ClientError('InvalidArgument', 'invalid argument: reconnect must be true, false or an object of options');
  const policy = {
    initialDelayMs: o.initialDelayMs ?? 100,
    maxDelayMs: o.maxDelayMs ?? 5000,
    maxAttempts: o.maxAttempts ?? Infinity,
    stableAfterMs: o.stableAfterMs ?? 1000,
  };
  for (const [name, v] of Object.entries(policy)) {
    if (typeof v !== 'number' || Number.isNaN(v) || v < 0) throw new ClientError('InvalidArgument', `invalid argument: reconnect.${name} must be a number ≥ 0, not ${String(v)}`);
  }
  if (policy.maxAttempts < 1) throw new ClientError('InvalidArgument', 'invalid argument: reconnect.maxAttempts must be at least 1');
  if (policy.maxDelayMs < policy.initialDelayMs) throw new ClientError('InvalidArgument', 'invalid argument: reconnect.maxDelayMs must not be below initialDelayMs');
  return policy;
}

/**
 * How long to wait before the next attempt after `failures` failed ones in
 * a row: uniform in `[0, min(maxDelayMs, initialDelayMs · 2^failures)]`
 * ("full jitter").
 * @param {ReconnectPolicy} policy
 * @param {number} failures
 * @param {() => number} [random] in [0, 1)
 * @returns {number} ms
 */
export function backoffDelay(policy, failures, random = Math.random) {
  const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(failures, 30));
  return Math.floor(random() * cap);
}

/**
 * Refusals another attempt would meet again, or must not try to get past:
 * the broker id changed (a substitute under the name), the pin store
 * failed, the proof was refused or cannot be made, another protocol
 * version. The client gives up at once.
 * @param {unknown} err
 */
export function endsReconnecting(err) {
  if (!(err instanceof ClientError)) return true;
  return ['BrokerIdChanged', 'KnownBrokers', 'AuthRequired', 'AuthFailed', 'UnsupportedVersion', 'InvalidArgument'].includes(err.code);
}

/**
 * Whether a request sent on a connection that died before its answer may be
 * sent again on the next one, unchanged: reads (fetch, metadata, committed,
 * ping, a page of topics — unless its cursor is an opaque one, valid only
 * on the connection that handed it out) and commit (storing the same
 * offset again changes nothing — though a commit another member of the
 * group made meanwhile is overwritten, as it would be had the first copy
 * arrived late). Everything else (produce, conditionalProduce, claim,
 * createTopic, deleteTopic, and any op added later) fails with a retriable
 * `ConnectionLost`: whether the broker carried it out is unknown, and the
 * caller decides (the {@link Producer} resends a batch's identical bytes; a
 * conditional produce is never resent; a claim is made again with the same
 * claim id).
 * @param {import('../protocol/frame.js').Request} req
 * @returns {boolean}
 */
export function resendable(req) {
  switch (req.op) {
    case 'fetch':
    case 'metadata':
    case 'committed':
    case 'ping':
    case 'commit':
      return true;
    case 'listTopics':
      return !(req.after ?? '').startsWith('__cursor.');
    default:
      return false;
  }
}

/**
 * What the {@link Reconnector} tells its client: a link is up (`attach`),
 * a link died (`detach`; `final` when no other link will follow), the
 * client is over (`over`: gave up, with why).
 * @typedef {{ attach(link: Link): void, detach(link: Link, err: ClientError, final: boolean): void, over(err: ClientError): void }} Hooks
 */

/**
 * Opens a client's links, one at a time, and the next one after each dies.
 * Internal to the client (client/connection.js).
 */
export class Reconnector {
  /** @type {ReconnectPolicy|null} */
  #policy;
  /** Opens a link (a whole handshake); `onCreate` gets it before the handshake, to abort it. @type {(expected: Expected|null, onCreate: (link: Link) => void) => Promise<Link>} */
  #open;
  /** @type {Hooks} */
  #hooks;
  /** @type {ConnectionStateName} */
  #state = 'connecting';
  /** @type {Set<(change: ConnectionStateChange) => void>} */
  #listeners = new Set();
  /** The link in use. @type {Link|null} */
  #link = null;
  /** The link of the attempt under way (its handshake running). @type {Link|null} */
  #opening = null;
  /** Failed attempts (and young deaths) since the connection was last up for long. */
  #failures = 0;
  /** @type {any} */
  #timer = null;
  /** `close()` was called or the client gave up. */
  #stopped = false;
  /** What every link after the first must find. @type {Expected|null} */
  #expected = null;
  #connections = 0;

  /**
   * @param {ReconnectPolicy|null} policy `null`: one connection, no reconnect
   * @param {(expected: Expected|null, onCreate: (link: Link) => void) => Promise<Link>} open
   * @param {Hooks} hooks
   */
  constructor(policy, open, hooks) {
    this.#policy = policy;
    this.#open = open;
    this.#hooks = hooks;
  }

  /** @returns {ConnectionStateName} */
  get state() {
    return this.#state;
  }

  /** Connections opened so far (1 until the first reconnect). */
  get connections() {
    return this.#connections;
  }

  /**
   * Call `listener` on every state change from now on; returns a function
   * that stops it. A listener that throws does not stop the others.
   * @param {(change: ConnectionStateChange) => void} listener
   * @returns {() => void}
   */
  onStateChange(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** @param {ConnectionStateChange} change */
  #emit(change) {
    this.#state = change.state;
    for (const l of [...this.#listeners]) {
      try {
        l(change);
      } catch (e) {
        // A UI callback's bug must not break the connection; show it where it can be seen.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }

  /**
   * The first connection: throws what the attempt failed with (no retry:
   * as Rust's `Client::connect`, a client that never connected is not made).
   * @returns {Promise<void>}
   */
  async start() {
    this.#emit({ state: 'connecting', attempt: 1 });
    let link;
    try {
      link = await this.#open(null, (l) => (this.#opening = l));
    } catch (e) {
      this.#stopped = true;
      const err = e instanceof ClientError ? e : new ClientError('Connect', String(e), { cause: e });
      this.#emit({ state: 'gave-up', reason: err });
      throw err;
    } finally {
      this.#opening = null;
    }
    this.#attach(link, 1);
  }

  /**
   * @param {Link} link
   * @param {number} attempt
   */
  #attach(link, attempt) {
    this.#link = link;
    this.#connections++;
    const authenticated = link.principal !== null || (link.brokerFlags & BrokerFlags.AUTHENTICATED) !== 0;
    this.#expected ??= { brokerId: /** @type {Uint8Array} */ (link.brokerId), authenticated };
    link.onEnd = (err) => this.#onEnd(link, err);
    this.#hooks.attach(link);
    this.#emit({ state: 'connected', attempt, connections: this.#connections });
    // It may have died between its handshake and now.
    const dead = link.error;
    if (dead) this.#onEnd(link, dead);
  }

  /**
   * @param {Link} link
   * @param {ClientError} err
   */
  #onEnd(link, err) {
    if (link !== this.#link || this.#stopped) return;
    this.#link = null;
    const policy = this.#policy;
    if (!policy) {
      this.#stopped = true;
      this.#hooks.detach(link, err, true);
      this.#emit({ state: 'gave-up', reason: err });
      this.#hooks.over(err);
      return;
    }
    // A connection that died young counts as a failed attempt, so a broker
    // that accepts and then refuses does not get a tight loop.
    this.#failures = Date.now() - link.openedAt < policy.stableAfterMs ? this.#failures + 1 : 0;
    this.#hooks.detach(link, err, false);
    this.#schedule(err);
  }

  /** @param {ClientError} reason */
  #schedule(reason) {
    const policy = /** @type {ReconnectPolicy} */ (this.#policy);
    if (this.#failures >= policy.maxAttempts) return this.#giveUp(reason, `gave up reconnecting after ${this.#failures} failed attempts`);
    const delay = backoffDelay(policy, this.#failures);
    this.#emit({ state: 'disconnected', reason, attempt: this.#failures + 1, retryInMs: delay });
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#attempt();
    }, delay);
    // The timer keeps Node running, as an open connection does: a client
    // is there until it is closed or gives up.
  }

  async #attempt() {
    if (this.#stopped) return;
    const attempt = this.#failures + 1;
    this.#emit({ state: 'connecting', attempt });
    let link;
    try {
      link = await this.#open(this.#expected, (l) => (this.#opening = l));
    } catch (e) {
      if (this.#stopped) return;
      const err = e instanceof ClientError ? e : new ClientError('Connect', String(e), { cause: e });
      this.#failures++;
      if (endsReconnecting(err)) return this.#giveUp(err, null);
      this.#schedule(err);
      return;
    } finally {
      this.#opening = null;
    }
    if (this.#stopped) {
      link.fail(new ClientError('Closed', 'closed: Client.close() was called'), 1000, 'client closed');
      return;
    }
    this.#attach(link, attempt);
  }

  /**
   * @param {ClientError} reason
   * @param {string|null} why  said in front of the reason (`null`: the reason says it all)
   */
  #giveUp(reason, why) {
    this.#stopped = true;
    const err = why === null ? reason : new ClientError('ConnectionLost', `${why}: ${reason.message}`, { cause: reason, status: reason.status, statusCode: reason.statusCode });
    this.#emit({ state: 'gave-up', reason: err });
    this.#hooks.over(err);
  }

  /**
   * Stop: no more attempts (one under way is abandoned, its socket
   * closed). Returns the link in use, for the client to close. Emits
   * `closed` unless the client had given up already.
   * @returns {Link|null}
   */
  close() {
    const wasStopped = this.#stopped;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#opening?.fail(new ClientError('Closed', 'closed: Client.close() was called'), 1000, 'client closed');
    const link = this.#link;
    this.#link = null;
    if (!wasStopped) this.#emit({ state: 'closed' });
    return link;
  }
}
