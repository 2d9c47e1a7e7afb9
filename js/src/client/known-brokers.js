/**
 * Known brokers: the broker id a client saw at each dialled name and port,
 * **pinned** the first time (trust on first use) and required from then on
 * (docs/PROTOCOL.md §1; ../shared/DESIGN.md §10). Binding the proof to the
 * dialled name and the TLS connection stops a relay; the pin stops a
 * different broker — another data directory, another broker id — from
 * answering under the same name: `connect` refuses it with
 * {@link BrokerIdChanged} before it signs anything.
 *
 * A store is anything with `get` and `set` ({@link KnownBrokers}); the SDK
 * ships a file store for Node (`KnownBrokersFile`, from `hermitmq/node`).
 *
 * @module client/known-brokers
 */

import { equal, toHex } from '../bytes.js';
import { ClientError } from '../protocol/error.js';

/**
 * Where a client keeps its pins (Rust: `KnownBrokers`).
 * @typedef {object} KnownBrokers
 * @property {(name: string, port: number) => Promise<Uint8Array|undefined>} get
 *   The broker id pinned for a dialled name and port, if any.
 * @property {(name: string, port: number, brokerId: Uint8Array) => Promise<void>} set
 *   Pin `brokerId` for the name and port (called only when none is pinned).
 * @property {string} [location] Where the pins are kept (a file's path), for messages.
 */

/**
 * A broker presented another broker id than the one pinned for the name
 * and port the client dialled (code `BrokerIdChanged`), or, on a
 * reconnect (`reconnect: true`), than the one this client's first
 * connection saw. Nothing was signed or sent after the hello.
 */
export class BrokerIdChanged extends ClientError {
  /**
   * @param {{ name: string, port: number, pinned: Uint8Array, presented: Uint8Array, location?: string, reconnect?: boolean }} what
   */
  constructor({ name, port, pinned, presented, location, reconnect = false }) {
    const where = location ?? (reconnect ? 'this client (the broker id its first connection saw)' : 'the known-brokers store');
    const advice = reconnect
      ? 'The client stopped reconnecting. If that broker was replaced on purpose (a new data directory; a restore or a move keeps BROKER_ID), connect again'
      : `If that broker was replaced on purpose (a new data directory; a restore or a move keeps BROKER_ID), remove the line "${name} ${port} ${toHex(pinned)}" from ${where} and connect again`;
    super(
      'BrokerIdChanged',
      `the broker at ${name}:${port} presented broker id ${toHex(presented)}, but ${toHex(pinned)} is pinned for ${name}:${port} in ${where}: ` +
        'another broker answers under this name, so nothing was signed. ' +
        `${advice}; otherwise do not connect to it.`,
    );
    this.name = 'BrokerIdChanged';
    /** The dialled name. @type {string} */
    this.dialledName = name;
    /** The dialled port. @type {number} */
    this.port = port;
    /** The broker id pinned for them. @type {Uint8Array} */
    this.pinned = pinned;
    /** The broker id this broker's hello presented. @type {Uint8Array} */
    this.presented = presented;
    /** Where the pin is kept (the file's path for `KnownBrokersFile`). @type {string} */
    this.location = where;
    /** Whether a reconnect found it (the pin was the client's first connection's broker id). @type {boolean} */
    this.reconnect = reconnect;
  }
}

/**
 * Call a store; what it throws becomes a `ClientError` with code
 * `KnownBrokers` (a `ClientError` it throws stays as it is).
 * @template T
 * @param {KnownBrokers} store
 * @param {() => Promise<T>} call
 * @returns {Promise<T>}
 */
async function ask(store, call) {
  try {
    return await call();
  } catch (e) {
    if (e instanceof ClientError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw new ClientError('KnownBrokers', `the known brokers${store.location ? ` in ${store.location}` : ''} cannot be read or written: ${msg}`, { cause: e });
  }
}

/**
 * Check the hello's broker id against the pin for the dialled name and port.
 * @param {KnownBrokers} store
 * @param {{ name: string, port: number }} endpoint
 * @param {Uint8Array} brokerId
 * @returns {Promise<boolean>} whether a pin exists (and matched)
 * @throws {BrokerIdChanged} a different id is pinned
 */
export async function checkPin(store, { name, port }, brokerId) {
  const pinned = await ask(store, () => store.get(name, port));
  if (pinned === undefined) return false;
  // Broker ids are public: no need for a constant-time compare.
  if (!equal(pinned, brokerId)) {
    throw new BrokerIdChanged({ name, port, pinned, presented: brokerId, location: store.location });
  }
  return true;
}

/**
 * Pin `brokerId` for the dialled name and port (trust on first use).
 * @param {KnownBrokers} store
 * @param {{ name: string, port: number }} endpoint
 * @param {Uint8Array} brokerId
 * @returns {Promise<void>}
 */
export async function pin(store, { name, port }, brokerId) {
  await ask(store, () => store.set(name, port, brokerId));
}
