/**
 * Sealed state records (docs/ENVELOPE.md §13, client/src/crypto/state.rs): a
 * record a client seals to its own identity, to keep in the identity's own
 * compacted topic `state.<fingerprint hex>` under a blinded key (what goes in
 * them, and the topic: sealed/state.js).
 *
 * ```text
 * record  = "HST1" ‖ iv (12) ‖ AES-256-GCM(K_state, iv, aad, body) ‖ tag (16)
 * K_state = HKDF-SHA256(salt = none, IKM = K_pair(own, own), info = "hermit-state/v1 key")
 * aad     = "hermit-state/v1" ‖ u8 len ‖ topic ‖ u8 len ‖ record key
 * body    = u32 len ‖ plaintext ‖ 0x00 … up to padme(4 + len)
 * ```
 *
 * `K_pair(own, own)` only the identity can compute, and no pair or group uses
 * it as its key. The AAD binds a record to the topic and key it is stored
 * under, so the broker cannot move one state onto another. The broker sees
 * when a state is written, its length in Padmé buckets and the blinded key.
 *
 * @module crypto/state
 */

import { checkBytes, concat, equal, utf8 } from '../bytes.js';
import { gcmDecrypt, gcmEncrypt, hkdfAesKey, hkdfKey } from './aead.js';
import { Identity, pairKey } from './identity.js';
import { randomBytes } from './webcrypto.js';
import { padme } from './pad.js';

/** The first bytes of every state record. */
export const STATE_MAGIC = utf8('HST1');
/** Largest plaintext a state record holds. */
export const MAX_STATE_LEN = 1 << 20;
const LABEL = utf8('hermit-state/v1');
const KEY_INFO = utf8('hermit-state/v1 key');
const IV_LEN = 12;
const TAG_LEN = 16;
const HEAD = 4 + IV_LEN;

/**
 * Why a state record could not be sealed, opened or stored. `kind`, as
 * Rust's `StateError`: `Malformed` (not a state record), `AuthFailed`
 * (another identity's, topic's or key's record, or changed bytes), `Length`
 * (plaintext over {@link MAX_STATE_LEN} or a lying length field), `Name`
 * (topic or key over 255 bytes); and, as Rust's `SealedError::State`,
 * `Store`: the state topic could not be created, read or written, or its
 * latest record does not open or decode (`topic` names it, `status` is the
 * broker's refusal if any, `cause` the underlying error); `StateRolledBack`
 * and `CommitRolledBack` (subclasses of the same names in sealed/state.js:
 * the broker served an older state or commit than this device anchored) and
 * `Anchor` (the anchor store cannot be read or written).
 */
export class StateError extends Error {
  /**
   * @param {'Malformed'|'AuthFailed'|'Length'|'Name'|'Store'|'StateRolledBack'|'CommitRolledBack'|'Anchor'} kind
   * @param {string} message
   * @param {{ cause?: unknown, topic?: string, status?: string }} [details]
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'StateError';
    /** `HERMIT_STATE`. @type {'HERMIT_STATE'} */
    this.code = 'HERMIT_STATE';
    /** @type {'Malformed'|'AuthFailed'|'Length'|'Name'|'Store'|'StateRolledBack'|'CommitRolledBack'|'Anchor'} */
    this.kind = kind;
    /** For `Store`: the identity's state topic. @type {string|undefined} */
    this.topic = details.topic;
    /** For `Store`: the broker's status name when it refused. @type {string|undefined} */
    this.status = details.status;
  }
}

/** @type {WeakMap<Identity, Promise<CryptoKey>>} K_state per identity */
const stateKeys = new WeakMap();

/** @param {Identity} identity @returns {Promise<CryptoKey>} */
function stateKey(identity) {
  let k = stateKeys.get(identity);
  if (!k) {
    k = (async () => {
      const ikm = await pairKey(identity, identity.publicKey);
      try {
        return await hkdfAesKey(await hkdfKey(ikm), new Uint8Array(0), KEY_INFO, ['encrypt', 'decrypt']);
      } finally {
        ikm.fill(0);
      }
    })();
    k.catch(() => stateKeys.get(identity) === k && stateKeys.delete(identity));
    stateKeys.set(identity, k);
  }
  return k;
}

/** @param {string} topic @param {Uint8Array} key */
function stateAad(topic, key) {
  const t = utf8(topic);
  if (t.length > 255 || key.length > 255) throw new StateError('Name', 'state topic or key over 255 bytes');
  return concat(LABEL, [t.length], t, [key.length], key);
}

/**
 * Seal `plaintext` for `identity` itself, to be stored under `key` in `topic`.
 * @param {Identity} identity
 * @param {string} topic
 * @param {Uint8Array} key the (blinded) record key
 * @param {Uint8Array} plaintext
 * @returns {Promise<Uint8Array>}
 * @throws {StateError} Length, Name
 */
export async function sealState(identity, topic, key, plaintext) {
  if (!(identity instanceof Identity)) throw new TypeError('sealState needs an Identity');
  checkBytes(key, 'key');
  checkBytes(plaintext, 'plaintext');
  if (plaintext.length > MAX_STATE_LEN) throw new StateError('Length', 'state plaintext too long or badly framed');
  const aad = stateAad(topic, key);
  const body = new Uint8Array(padme(4 + plaintext.length));
  new DataView(body.buffer).setUint32(0, plaintext.length);
  body.set(plaintext, 4);
  const iv = randomBytes(IV_LEN);
  try {
    const sealed = await gcmEncrypt(await stateKey(identity), iv, aad, body);
    return concat(STATE_MAGIC, iv, sealed);
  } finally {
    body.fill(0);
  }
}

/**
 * Open a record {@link sealState} made for `identity`, `topic` and `key`.
 * @param {Identity} identity
 * @param {string} topic
 * @param {Uint8Array} key
 * @param {Uint8Array} record
 * @returns {Promise<Uint8Array>} the plaintext
 * @throws {StateError} Malformed, AuthFailed, Length, Name
 */
export async function openState(identity, topic, key, record) {
  if (!(identity instanceof Identity)) throw new TypeError('openState needs an Identity');
  checkBytes(key, 'key');
  checkBytes(record, 'record');
  if (record.length < HEAD + 4 + TAG_LEN || !equal(record.subarray(0, 4), STATE_MAGIC)) {
    throw new StateError('Malformed', 'not a sealed state record');
  }
  if (record.length > HEAD + TAG_LEN + 4 + MAX_STATE_LEN + MAX_STATE_LEN / 8) {
    throw new StateError('Length', 'state plaintext too long or badly framed');
  }
  const aad = stateAad(topic, key);
  const body = await gcmDecrypt(await stateKey(identity), record.subarray(4, HEAD), aad, record.subarray(HEAD));
  if (!body) throw new StateError('AuthFailed', 'the state record does not authenticate for this identity, topic and key');
  try {
    const len = new DataView(body.buffer, body.byteOffset).getUint32(0);
    if (len > MAX_STATE_LEN || 4 + len > body.length) throw new StateError('Length', 'state plaintext too long or badly framed');
    return body.slice(4, 4 + len);
  } finally {
    body.fill(0);
  }
}
