// The chat page's storage: one IndexedDB database per browser profile.
//
// - `kv`: `identity` → { armor, name, linked } (the SEALKEY v1 armor: the
//   private key only ever stored encrypted under the user's password; `linked`
//   when this browser is another device of an account), `storageKey` → the
//   storage key wrapped under the password (below), `contacts` →
//   [{ name, spki }] (accounts), `titles` → { topic: name } (conversation names
//   given here), `known-brokers` → { "<dialled name> <port>": broker id hex } (the broker
//   ids this page pinned, `knownBrokers` below).
// - `messages`: what was sent and received, keyed by where the record is
//   stored (`topic/partition/offset`), so a record is stored and shown once.
// - the MLS state (the SDK's `IndexedDbStore`): its own database
//   `hermit-mls-<device fingerprint>`, every entry sealed by the SDK under the
//   storage key (mlsStateKey). Each is
//   encrypted: { id, v: 1, iv, ct } with ct = AES-256-GCM(storage key, iv,
//   JSON of the message, aad = MESSAGE_AAD ‖ id).
//
// The storage key (the scheme the MLS state reuses; the chat README and
// docs/SECURITY.md §5 say which threat each part covers): 32 random bytes
// made once per identity by Web Crypto, kept in `kv` only wrapped — AES-KW
// (RFC 3394) under a KEK = Argon2id(password, own 16-byte salt) with the
// identity file's own Argon2id parameters (never cheaper: a copied profile
// would otherwise offer a faster way to test password guesses than the
// SEALKEY file beside it) — and in memory only as a non-extractable
// CryptoKey, from the unlock until the page closes. Records written before
// this scheme (database version 1, plaintext) are deleted on upgrade.

import { argon2id } from 'hash-wasm';
import { fromHex, toHex } from '../../src/bytes.js';

const DB_NAME = 'hermit-chat';
/** 1: plaintext messages; 2: encrypted messages (version 1's are deleted). */
const DB_VERSION = 2;
/** The `kv` key of the pinned broker ids. */
const KNOWN_BROKERS = 'known-brokers';
/** The `kv` key of the sealed-state anchors. */
/** The `kv` key of the wrapped storage key. */
const STORAGE_KEY = 'storageKey';
/** Associated data of a message record: this label, then its id. */
const MESSAGE_AAD = 'hermit-chat/message v1\n';
const SALT_LEN = 16;
const NONCE_LEN = 12;

/** @type {Promise<IDBDatabase> | null} */
let opening = null;
/** The storage key after `unlockStorage` (non-extractable, never stored as such). @type {CryptoKey | null} */
let storageKey = null;

/** Why the message store cannot be used. */
export class StoreError extends Error {
  /** @param {'Locked'|'WrongPasswordOrModified'|'BadParams'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
  }
}

/** @returns {Promise<IDBDatabase>} */
function db() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const req = indexedDB.open(DB_NAME, DB_VERSION);
      req.onupgradeneeded = (ev) => {
        const d = req.result;
        if (!d.objectStoreNames.contains('kv')) d.createObjectStore('kv');
        // Version 1 kept the texts in the clear, and there is no key to
        // encrypt them with before the password is typed: they go, rather
        // than wait in the clear for an unlock that may never come.
        if (ev.oldVersion < 2 && d.objectStoreNames.contains('messages')) d.deleteObjectStore('messages');
        if (!d.objectStoreNames.contains('messages')) d.createObjectStore('messages', { keyPath: 'id' });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error('IndexedDB cannot be opened'));
      req.onblocked = () => reject(new Error('IndexedDB is blocked by another tab of this page'));
    });
  }
  return opening;
}

/**
 * Run one request in a transaction and resolve when the transaction is done.
 * @template T
 * @param {string} store
 * @param {IDBTransactionMode} mode
 * @param {(s: IDBObjectStore) => IDBRequest<T>} op
 * @returns {Promise<T>}
 */
async function run(store, mode, op) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const tx = d.transaction(store, mode);
    const req = op(tx.objectStore(store));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** @param {string} key @returns {Promise<any>} */
export function get(key) {
  return run('kv', 'readonly', (s) => s.get(key));
}

/** @param {string} key @param {any} value */
export function put(key, value) {
  return run('kv', 'readwrite', (s) => s.put(value, key));
}

/** @param {string} key */
export function remove(key) {
  return run('kv', 'readwrite', (s) => s.delete(key));
}

/**
 * Change one `kv` entry in one transaction (read, `change`, write), so two
 * tabs of the page never write over each other's change.
 * @param {string} key
 * @param {(value: any) => any} change
 * @returns {Promise<void>}
 */
async function update(key, change) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const tx = d.transaction('kv', 'readwrite');
    const s = tx.objectStore('kv');
    const req = s.get(key);
    req.onsuccess = () => {
      try {
        s.put(change(req.result), key);
      } catch (e) {
        tx.abort();
        reject(e);
      }
    };
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** @param {string} name @param {number} port */
const brokerKey = (name, port) => `${name} ${port}`;

/**
 * The broker ids this page pinned (the SDK's `KnownBrokers` store, which
 * `connect` takes): the id of the broker the page first authenticated to
 * under each dialled name and port, in `kv` under `known-brokers`. A changed
 * id is refused by `connect` (`BrokerIdChanged`) before anything is signed;
 * `forget` removes a pin (the user says the broker was replaced on purpose).
 * A stored id that is not 32 hex digits (a modified profile) is an error,
 * not "no pin": that would pin whatever answers next.
 * @type {import('../../src/client/known-brokers.js').KnownBrokers & { forget(name: string, port: number): Promise<void> }}
 */
export const knownBrokers = {
  location: "this page's known brokers",
  async get(name, port) {
    const hex = ((await get(KNOWN_BROKERS)) ?? {})[brokerKey(name, port)];
    if (hex === undefined) return undefined;
    if (typeof hex !== 'string' || !/^[0-9a-f]{32}$/.test(hex)) throw new Error(`the pin for ${name}:${port} is not a broker id (${JSON.stringify(hex)})`);
    return fromHex(hex);
  },
  set(name, port, brokerId) {
    return update(KNOWN_BROKERS, (pins) => ({ ...pins, [brokerKey(name, port)]: toHex(brokerId) }));
  },
  forget(name, port) {
    return update(KNOWN_BROKERS, (pins) => {
      const { [brokerKey(name, port)]: _gone, ...rest } = pins ?? {};
      return rest;
    });
  },
};

/**
 * Argon2id parameters from a stored record, refused outside what a SEALKEY
 * file may carry (a modified profile must not make the page spend a GiB or
 * an hour).
 * @param {{ m: unknown, t: unknown, p: unknown }} r
 * @returns {{ m: number, t: number, p: number }}
 */
function checkedParams(r) {
  const { m, t, p } = r;
  const ok =
    Number.isInteger(m) && Number.isInteger(t) && Number.isInteger(p) && /** @type {number} */ (p) >= 1 && /** @type {number} */ (p) <= 16 &&
    /** @type {number} */ (t) >= 1 && /** @type {number} */ (t) <= 16 && /** @type {number} */ (m) >= 8 * /** @type {number} */ (p) && /** @type {number} */ (m) <= 1024 * 1024;
  if (!ok) throw new StoreError('BadParams', `the stored key's Argon2id parameters are out of bounds (m ${m} KiB, t ${t}, p ${p})`);
  return { m: /** @type {number} */ (m), t: /** @type {number} */ (t), p: /** @type {number} */ (p) };
}

/**
 * The AES-KW key from `password`: Argon2id, then imported non-extractable.
 * @param {string} password @param {Uint8Array} salt @param {{ m: number, t: number, p: number }} params
 */
async function deriveKek(password, salt, params) {
  const raw = /** @type {Uint8Array<ArrayBuffer>} */ (await argon2id({
    password: new TextEncoder().encode(password),
    salt,
    parallelism: params.p,
    iterations: params.t,
    memorySize: params.m,
    hashLength: 32,
    outputType: 'binary',
  }));
  try {
    return await crypto.subtle.importKey('raw', raw, 'AES-KW', false, ['wrapKey', 'unwrapKey']);
  } finally {
    raw.fill(0);
  }
}

/**
 * Unlock the message store with the identity's password: unwrap the storage
 * key, or on this identity's first unlock (a new or imported identity, or one
 * kept by version 1) make one and store it wrapped. Call after the SEALKEY
 * file opened with the same password; `params` are its Argon2id parameters.
 * @param {string} password
 * @param {{ mCostKib: number, tCost: number, pCost: number }} params
 * @throws {StoreError} WrongPasswordOrModified, BadParams
 */
export async function unlockStorage(password, params) {
  const usage = /** @type {KeyUsage[]} */ (['encrypt', 'decrypt']);
  const stored = await get(STORAGE_KEY);
  if (stored) {
    const kek = await deriveKek(password, stored.salt, checkedParams(stored));
    try {
      storageKey = await crypto.subtle.unwrapKey('raw', stored.wrapped, kek, 'AES-KW', 'AES-GCM', false, usage);
    } catch {
      throw new StoreError('WrongPasswordOrModified', 'the message store key does not open with this password (the profile was modified)');
    }
    return;
  }
  const p = checkedParams({ m: params.mCostKib, t: params.tCost, p: params.pCost });
  const salt = crypto.getRandomValues(new Uint8Array(SALT_LEN));
  const kek = await deriveKek(password, salt, p);
  // Extractable only until it is wrapped; the page keeps the unwrapped,
  // non-extractable copy.
  const fresh = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, usage);
  const wrapped = new Uint8Array(await crypto.subtle.wrapKey('raw', fresh, kek, 'AES-KW'));
  const key = await crypto.subtle.unwrapKey('raw', wrapped, kek, 'AES-KW', 'AES-GCM', false, usage);
  // `add`, not `put`: a key another tab stored meanwhile is never replaced
  // (messages under it would become unreadable); then that one is used.
  try {
    await run('kv', 'readwrite', (s) => s.add({ v: 1, kdf: 'argon2id', ...p, salt, wrapped }, STORAGE_KEY));
  } catch (e) {
    if (/** @type {any} */ (e)?.name !== 'ConstraintError') throw e;
    return unlockStorage(password, params);
  }
  storageKey = key;
}

/** @param {string} id */
function aad(id) {
  return new TextEncoder().encode(MESSAGE_AAD + id);
}

function unlocked() {
  if (!storageKey) throw new StoreError('Locked', 'the message store is locked (unlock the identity first)');
  return storageKey;
}

/**
 * Store a message encrypted under the storage key, with a fresh nonce and
 * its id bound as associated data.
 * @param {{ id: string }} message
 */
export async function putMessage(message) {
  const iv = crypto.getRandomValues(new Uint8Array(NONCE_LEN));
  const plain = new TextEncoder().encode(JSON.stringify(message));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad(message.id) }, unlocked(), plain));
  return run('messages', 'readwrite', (s) => s.put({ id: message.id, v: 1, iv, ct }));
}

/**
 * Every stored message, decrypted; `unreadable`: the ids of records that do
 * not open under their own id (modified, or moved under another id).
 * @returns {Promise<{ messages: any[], unreadable: string[] }>}
 */
export async function allMessages() {
  const key = unlocked();
  const rows = await run('messages', 'readonly', (s) => s.getAll());
  const messages = [];
  const unreadable = [];
  for (const r of rows) {
    try {
      const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: r.iv, additionalData: aad(r.id) }, key, r.ct);
      // Opened under its own id (the associated data): it is that record.
      messages.push({ ...JSON.parse(new TextDecoder().decode(plain)), id: r.id });
    } catch {
      unreadable.push(String(r.id));
    }
  }
  return { messages, unreadable };
}

/**
 * The key the SDK seals this device's MLS state with (docs/MLS.md §11.4):
 * the storage key itself, non-extractable; MLS entries carry their own
 * associated-data label (`hermit-mls-state/v1`), messages theirs
 * (MESSAGE_AAD), so neither opens as the other.
 * @returns {CryptoKey}
 */
export function mlsStateKey() {
  return unlocked();
}

/**
 * Forget everything (the identity, its storage key, contacts and messages,
 * and the MLS state database of `fpHex`'s device). Deleting is not secure
 * deletion: docs/SECURITY.md §5.
 * @param {string} fpHex
 */
export async function clear(fpHex) {
  storageKey = null;
  await run('kv', 'readwrite', (s) => s.clear());
  await run('messages', 'readwrite', (s) => s.clear());
  await new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(`hermit-mls-${fpHex}`);
    req.onsuccess = () => resolve(undefined);
    req.onerror = () => reject(req.error ?? new Error('the MLS state database cannot be deleted'));
    req.onblocked = () => reject(new Error('the MLS state database is open in another tab: close it first'));
  });
}
