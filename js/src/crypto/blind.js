// Blinded record keys (client/src/crypto/blind.rs). The broker compacts by
// record key, so the SDK sends HMAC-SHA256(K_conv, "sealed-record/v1 key" ||
// logical_key)[0..16] instead of the key: equal logical keys of one pair or
// group still compact together and the broker learns no names. K_conv, the
// blinding key, is the pairwise key (1:1) or a group secret shared by the
// members.

import { checkBytes, concat, equal, toHex, utf8 } from '../bytes.js';
import { Identity, KeyError, PublicKey, pairKey } from './identity.js';
import { randomBytes } from './webcrypto.js';
import { hmacKey, hmacSign } from './aead.js';

const KEY_LABEL = utf8('sealed-record/v1 key');
/** Length of a blinded key. */
export const BLINDED_KEY_LEN = 16;

/** A 16-byte blinded record key, safe to show the broker. */
export class BlindedKey {
  #bytes;

  /** @param {Uint8Array} bytes 16 bytes */
  constructor(bytes) {
    checkBytes(bytes, 'blinded key');
    if (bytes.length !== BLINDED_KEY_LEN) throw new KeyError('InvalidArgument', `a blinded key is ${BLINDED_KEY_LEN} bytes`);
    this.#bytes = Uint8Array.from(bytes);
  }

  /** @returns {Uint8Array} a copy of the 16 bytes (use it as the record key) */
  asBytes() {
    return Uint8Array.from(this.#bytes);
  }

  /** @param {BlindedKey} other @returns {boolean} */
  equals(other) {
    return other instanceof BlindedKey && equal(this.#bytes, other.#bytes);
  }

  /** @returns {string} */
  toHex() {
    return toHex(this.#bytes);
  }

  toString() {
    return `BlindedKey(${this.toHex()})`;
  }
}

const CONSTRUCT = Symbol('construct');

/**
 * A blinding key K_conv (of a pair or a group, used only to blind record
 * keys), held as a non-extractable HMAC CryptoKey.
 *
 * Differs from Rust: `groupSecretBytes()` works only for group keys (from
 * `generateGroup` / `fromGroupSecret`); a pairwise key's bytes are K_pair, the
 * DIRECT record key, and are never handed out.
 */
export class BlindingKey {
  /** @type {CryptoKey} */
  #key;
  /** The group secret; `null` for a pairwise key. @type {Uint8Array|null} */
  #secret;

  /**
   * @private
   * @param {CryptoKey} key
   * @param {Uint8Array|null} secret
   * @param {symbol} token
   */
  constructor(key, secret, token) {
    if (token !== CONSTRUCT) throw new TypeError('use BlindingKey.pairwise() / generateGroup() / fromGroupSecret()');
    this.#key = key;
    this.#secret = secret;
  }

  /**
   * The blinding key of a pair, K_pair(own, peer) (the same on both sides).
   * @param {Identity} own
   * @param {PublicKey} peer
   * @returns {Promise<BlindingKey>}
   */
  static async pairwise(own, peer) {
    if (!(own instanceof Identity) || !(peer instanceof PublicKey)) throw new TypeError('pairwise(identity, publicKey)');
    const k = await pairKey(own, peer);
    try {
      return new BlindingKey(await hmacKey(k), null, CONSTRUCT);
    } finally {
      k.fill(0);
    }
  }

  /**
   * A fresh random group secret, to distribute to members inside sealed records.
   * @returns {Promise<BlindingKey>}
   */
  static async generateGroup() {
    return BlindingKey.fromGroupSecret(randomBytes(32));
  }

  /**
   * A group secret received from a member.
   * @param {Uint8Array} secret 32 bytes
   * @returns {Promise<BlindingKey>}
   */
  static async fromGroupSecret(secret) {
    checkBytes(secret, 'group secret');
    if (secret.length !== 32) throw new KeyError('InvalidArgument', 'a group secret is 32 bytes');
    const copy = Uint8Array.from(secret);
    return new BlindingKey(await hmacKey(copy), copy, CONSTRUCT);
  }

  /**
   * The group secret, to hand to another member inside a sealed record.
   * @returns {Uint8Array}
   * @throws {KeyError} kind `NotExtractable` for a pairwise key
   */
  groupSecretBytes() {
    if (!this.#secret) throw new KeyError('NotExtractable', 'a pairwise blinding key is not handed out');
    return Uint8Array.from(this.#secret);
  }

  /**
   * HMAC-SHA256(K_conv, "sealed-record/v1 key" || logicalKey)[0..16].
   * @param {Uint8Array|string} logicalKey (a string is UTF-8 encoded)
   * @returns {Promise<BlindedKey>}
   */
  async blind(logicalKey) {
    const k = typeof logicalKey === 'string' ? utf8(logicalKey) : checkBytes(logicalKey, 'logical key');
    const tag = await hmacSign(this.#key, concat(KEY_LABEL, k));
    return new BlindedKey(tag.subarray(0, BLINDED_KEY_LEN));
  }

  toString() {
    return 'BlindingKey(<redacted>)';
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}

/**
 * The old name of {@link BlindingKey}: "conversation" now means the MLS
 * conversations to come, not a pair or group of envelope v1 records.
 * @deprecated Use `BlindingKey`.
 */
export const ConversationKey = BlindingKey;
