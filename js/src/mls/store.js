// A device's MLS state at rest (docs/MLS.md §11.4): named entries — the
// binding, the KeyPackages' private keys, the Welcome cursor, one entry per
// group — each sealed with AES-256-GCM under the device's state key, with
// the entry's name as associated data (an entry cannot be swapped for
// another's). A `put` of several entries is one atomic write: a processed
// record's MLS state, next offset and delivered events land together or
// not at all.
//
// Where the sealed bytes live is a `StateStore`: `MemoryStore` (tests, a
// process that keeps nothing), `IndexedDbStore` (a browser: one object store,
// one transaction per `put`), or the application's own.

import { concat, utf8 } from '../bytes.js';
import { pairKey } from '../crypto/identity.js';
import { randomBytes, subtle } from '../crypto/webcrypto.js';
import { MlsError } from './error.js';

/** @import { Identity } from '../crypto/identity.js' */

/**
 * Where sealed entries are kept. `put` applies every write (a `null` value
 * deletes) atomically: all or none, even across a crash.
 * @typedef {{
 *   get(name: string): Promise<Uint8Array|undefined>,
 *   put(writes: Array<[string, Uint8Array|null]>): Promise<void>,
 *   names(prefix: string): Promise<string[]>,
 * }} StateStore
 */

const NONCE_LEN = 12;
const SEAL_VERSION = 1;
const AAD_LABEL = utf8('hermit-mls-state/v1\0');
const KEY_INFO = utf8('hermit-mls-state/v1 key');

/**
 * The state key a device computes from its own key alone, as the Rust SDK
 * does: HKDF-SHA-256 of `K_pair(own, own)` with info
 * `hermit-mls-state/v1 key`; a non-extractable AES-256-GCM key. A page may
 * pass another key instead (the chat page's storage key scheme).
 * @param {Identity} identity
 * @returns {Promise<CryptoKey>}
 */
export async function deviceStateKey(identity) {
  const ikm = await pairKey(identity, identity.publicKey);
  try {
    const base = await subtle().importKey('raw', /** @type {BufferSource} */ (ikm), 'HKDF', false, ['deriveKey']);
    return await subtle().deriveKey(
      { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: /** @type {BufferSource} */ (KEY_INFO) },
      base,
      { name: 'AES-GCM', length: 256 },
      false,
      ['encrypt', 'decrypt'],
    );
  } finally {
    ikm.fill(0);
  }
}

/** Entries in memory, lost with the process. @implements {StateStore} */
export class MemoryStore {
  /** @type {Map<string, Uint8Array>} */
  #entries = new Map();

  /** @param {string} name */
  async get(name) {
    const v = this.#entries.get(name);
    return v && Uint8Array.from(v);
  }

  /** @param {Array<[string, Uint8Array|null]>} writes */
  async put(writes) {
    for (const [name, value] of writes) {
      if (value === null) this.#entries.delete(name);
      else this.#entries.set(name, Uint8Array.from(value));
    }
  }

  /** @param {string} prefix */
  async names(prefix) {
    return [...this.#entries.keys()].filter((n) => n.startsWith(prefix)).sort();
  }
}

/** The device's entries, sealed under its state key. */
export class SealedStore {
  #store;
  #key;

  /**
   * @param {StateStore} store
   * @param {CryptoKey} key AES-GCM, 256 bits
   */
  constructor(store, key) {
    this.#store = store;
    this.#key = key;
  }

  /**
   * @param {string} name
   * @returns {Promise<Uint8Array|undefined>}
   * @throws {MlsError} code `State` when the entry does not open (another
   *   key, or changed)
   */
  async get(name) {
    const sealed = await this.#store.get(name);
    if (sealed === undefined) return undefined;
    if (sealed.length < 1 + NONCE_LEN + 16 || sealed[0] !== SEAL_VERSION) {
      throw new MlsError('State', `the MLS state entry ${name} is not a sealed entry`);
    }
    try {
      const plain = await subtle().decrypt(
        { name: 'AES-GCM', iv: /** @type {BufferSource} */ (sealed.subarray(1, 1 + NONCE_LEN)), additionalData: /** @type {BufferSource} */ (concat(AAD_LABEL, utf8(name))) },
        this.#key,
        /** @type {BufferSource} */ (sealed.subarray(1 + NONCE_LEN)),
      );
      return new Uint8Array(plain);
    } catch (e) {
      throw new MlsError('State', `the MLS state entry ${name} does not open under this device's state key (another key, or changed)`, { cause: e });
    }
  }

  /**
   * Seals and writes every entry (`null` deletes) in one atomic write.
   * @param {Array<[string, Uint8Array|null]>} writes
   */
  async put(writes) {
    /** @type {Array<[string, Uint8Array|null]>} */
    const sealed = [];
    for (const [name, plain] of writes) {
      if (plain === null) {
        sealed.push([name, null]);
        continue;
      }
      const nonce = randomBytes(NONCE_LEN);
      const ct = await subtle().encrypt(
        { name: 'AES-GCM', iv: /** @type {BufferSource} */ (nonce), additionalData: /** @type {BufferSource} */ (concat(AAD_LABEL, utf8(name))) },
        this.#key,
        /** @type {BufferSource} */ (plain),
      );
      sealed.push([name, concat(Uint8Array.of(SEAL_VERSION), nonce, new Uint8Array(ct))]);
    }
    try {
      await this.#store.put(sealed);
    } catch (e) {
      throw new MlsError('State', `the MLS state could not be written: ${e instanceof Error ? e.message : e}`, { cause: e });
    }
  }

  /** @param {string} prefix */
  names(prefix) {
    return this.#store.names(prefix);
  }
}
