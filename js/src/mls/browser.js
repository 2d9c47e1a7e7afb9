// A device's MLS state in a browser (docs/MLS.md §11.4): IndexedDB, one
// database per device, one transaction per `put` (all entries or none,
// `durability: 'strict'` where the browser has it), and one writer per
// device across the tabs of a profile (Web Locks): a second tab that opens
// the same device waits until the first lets go — it never works on a copy
// of the state the first is changing (two writers would fork the group
// state: both would seal with the same message keys).

/** @import { StateStore } from './store.js' */
/** @import { Fingerprint } from '../crypto/identity.js' */

const STORE = 'entries';

/**
 * @template T
 * @param {IDBRequest<T> | IDBTransaction} req
 * @returns {Promise<T>}
 */
function done(req) {
  return new Promise((resolve, reject) => {
    if ('objectStore' in req) {
      req.oncomplete = () => resolve(/** @type {T} */ (undefined));
      req.onerror = () => reject(req.error ?? new Error('IndexedDB transaction failed'));
      req.onabort = () => reject(req.error ?? new Error('IndexedDB transaction aborted'));
    } else {
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
    }
  });
}

/** Sealed entries in IndexedDB (browsers). @implements {StateStore} */
export class IndexedDbStore {
  /** @type {IDBDatabase} */
  #db;

  /** @param {IDBDatabase} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * Opens (or creates) the database `hermit-mls-<device fp hex>`.
   * @param {Fingerprint} device
   * @returns {Promise<IndexedDbStore>}
   */
  static async open(device) {
    const req = indexedDB.open(`hermit-mls-${device.toHex()}`, 1);
    req.onupgradeneeded = () => {
      if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
    };
    return new IndexedDbStore(await done(req));
  }

  /** @param {string} name @returns {Promise<Uint8Array|undefined>} */
  async get(name) {
    const v = await done(this.#db.transaction(STORE, 'readonly').objectStore(STORE).get(name));
    return v === undefined ? undefined : new Uint8Array(v);
  }

  /** @param {Array<[string, Uint8Array|null]>} writes */
  async put(writes) {
    const tx = this.#db.transaction(STORE, 'readwrite', { durability: 'strict' });
    const s = tx.objectStore(STORE);
    for (const [name, value] of writes) {
      if (value === null) s.delete(name);
      else s.put(value, name);
    }
    await done(tx);
  }

  /** @param {string} prefix @returns {Promise<string[]>} */
  async names(prefix) {
    const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
    const keys = await done(this.#db.transaction(STORE, 'readonly').objectStore(STORE).getAllKeys(range));
    return keys.map(String).sort();
  }

  /** Closes the database. */
  close() {
    this.#db.close();
  }
}

/**
 * Holds the device's lock (Web Locks, `hermit-mls-<device fp hex>`) until
 * the returned function is called or the page goes. Resolves once held; a
 * tab whose lock is held by another waits (`onWait` is told first).
 * @param {Fingerprint} device
 * @param {{ onWait?: () => void }} [options]
 * @returns {Promise<() => void>} releases the lock
 */
export async function holdDeviceLock(device, options = {}) {
  const name = `hermit-mls-${device.toHex()}`;
  /** @type {() => void} */
  let release = () => {};
  const held = new Promise((resolve) => {
    const granted = (/** @type {Lock | null} */ lock) => {
      if (!lock) return null;
      resolve(undefined);
      return new Promise((r) => (release = () => r(undefined)));
    };
    navigator.locks.request(name, { ifAvailable: true }, async (lock) => {
      if (lock) return granted(lock);
      options.onWait?.();
      // Queue for it: granted when the other tab releases or closes.
      navigator.locks.request(name, granted);
      return null;
    });
  });
  await held;
  return () => release();
}
