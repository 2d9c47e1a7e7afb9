// The chat page's storage: one IndexedDB database per browser profile.
//
// - `kv`: `identity` → { armor, name } (the SEALKEY v1 armor: the private key
//   only ever stored encrypted under the user's password), `contacts` →
//   [{ name, spki }], `groups` → [{ name, topic, members: [{ name, spki }] }],
//   `seqs` → { topic: last seq sent } (so a reload continues the sequence
//   numbers instead of restarting them, which readers would refuse as replays).
// - `messages`: what was sent and received, keyed by where the record is
//   stored (`topic/partition/offset`), so reading a record twice (after a
//   reload, commits are at most 5 s old) stores and shows it once.
//
// Plaintext messages are kept here, on the user's own device; the broker
// never has them.

const DB_NAME = 'hermit-chat';
const DB_VERSION = 1;

/** @type {Promise<IDBDatabase> | null} */
let opening = null;

/** @returns {Promise<IDBDatabase>} */
function db() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const req = indexedDB.open(DB_NAME, DB_VERSION);
      req.onupgradeneeded = () => {
        const d = req.result;
        if (!d.objectStoreNames.contains('kv')) d.createObjectStore('kv');
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

/** @param {{ id: string }} message */
export function putMessage(message) {
  return run('messages', 'readwrite', (s) => s.put(message));
}

/** @returns {Promise<any[]>} every stored message */
export function allMessages() {
  return run('messages', 'readonly', (s) => s.getAll());
}

/** Forget everything (the identity, contacts, groups and messages). */
export async function clear() {
  await run('kv', 'readwrite', (s) => s.clear());
  await run('messages', 'readwrite', (s) => s.clear());
}
