// The browser article's ChatCrypto (client/src/crypto/compat.rs), for talking to
// existing Web Crypto code:
//
//   K = SHA-256(ECDH(myPrivate, theirPublic) x-coordinate)  -> AES-GCM 256
//   encrypt(text) -> { iv: base64(12 random bytes), data: base64(ciphertext || tag) }
//   decrypt(data, iv) -> text
//
// These messages carry no sender, topic or sequence number: nothing stops a
// replay, a reorder or a reflection, so the sealed-record Opener refuses them
// unless its caller opts in (`allowLegacy`). Text is decoded with
// `TextDecoder('utf-8', { fatal: true, ignoreBOM: true })`: a leading BOM is
// kept and invalid UTF-8 is an error, never U+FFFD.
//
// Differences from Rust's ChatCrypto: `decrypt` returns text, as the article's
// does (Rust's `decrypt_to_string`); `decryptBytes` is Rust's `decrypt`;
// `encrypt` takes a string or bytes (Rust's `encrypt_str` / `encrypt`).

import { fromBase64, fromUtf8, toBase64, utf8 } from '../bytes.js';
import { CompatError } from './errors.js';
import { Identity, PublicKey, pairKey } from './identity.js';
import { randomBytes, sha256, subtle } from './webcrypto.js';
import { aesKey, gcmDecrypt, gcmEncrypt } from './aead.js';

/** AES-GCM IV length; Web Crypto accepts others, this format does not. */
export const IV_LEN = 12;
/** AES-GCM tag length. */
export const TAG_LEN = 16;

/** One compatibility message: base64 IV and base64 `ciphertext || tag`. */
export class CompatMessage {
  /**
   * @param {string} iv standard padded base64 of the 12-byte IV
   * @param {string} data standard padded base64 of ciphertext || tag
   */
  constructor(iv, data) {
    this.iv = iv;
    this.data = data;
  }

  /** @returns {string} `{"iv":"…","data":"…"}`, as `JSON.stringify({iv, data})` writes it */
  toJson() {
    return JSON.stringify({ iv: this.iv, data: this.data });
  }

  /**
   * Parses exactly the JSON object `{"iv": "…", "data": "…"}` (members in either
   * order, JSON white space, no other members, no escapes), as strictly as Rust.
   * @param {Uint8Array|string} json
   * @returns {CompatMessage}
   * @throws {CompatError} kind `Json`
   */
  static fromJson(json) {
    const s = typeof json === 'string' ? utf8(json) : json;
    let pos = 0;
    const fail = (/** @type {string} */ reason) => new CompatError('Json', `legacy record is not {"iv": …, "data": …} JSON: ${reason}`, { reason });
    const ws = () => {
      while (pos < s.length && (s[pos] === 0x20 || s[pos] === 0x09 || s[pos] === 0x0a || s[pos] === 0x0d)) pos++;
    };
    const expect = (/** @type {number} */ byte, /** @type {string} */ reason) => {
      ws();
      if (s[pos] !== byte) throw fail(reason);
      pos++;
    };
    const string = () => {
      expect(0x22, 'expected a string');
      const start = pos;
      for (;;) {
        if (pos >= s.length) throw fail('unterminated string');
        const c = s[pos];
        if (c === 0x22) break;
        if (c === 0x5c) throw fail('escape in string');
        if (c <= 0x1f) throw fail('control character in string');
        pos++;
      }
      let text;
      try {
        text = fromUtf8(s.subarray(start, pos));
      } catch {
        throw fail('string is not UTF-8');
      }
      pos++;
      return text;
    };
    expect(0x7b, 'expected an object');
    /** @type {{ iv?: string, data?: string }} */
    const got = {};
    for (let i = 0; i < 2; i++) {
      if (i === 1) expect(0x2c, 'expected two members');
      const name = string();
      expect(0x3a, "expected ':'");
      const value = string();
      if (name !== 'iv' && name !== 'data') throw fail('unknown member');
      if (Object.hasOwn(got, name)) throw fail('duplicate member');
      got[name] = value;
    }
    expect(0x7d, 'expected exactly two members');
    ws();
    if (pos !== s.length) throw fail('trailing bytes');
    return new CompatMessage(/** @type {string} */ (got.iv), /** @type {string} */ (got.data));
  }
}

/**
 * Decodes and checks a message's IV and data (Rust's `decode_parts`).
 * @param {string} dataB64
 * @param {string} ivB64
 * @returns {{ iv: Uint8Array, data: Uint8Array }}
 */
export function decodeParts(dataB64, ivB64) {
  let iv;
  try {
    iv = fromBase64(ivB64);
  } catch (e) {
    throw new CompatError('IvBase64', 'iv is not standard padded base64', { cause: e });
  }
  if (iv.length !== IV_LEN) throw new CompatError('IvLength', `iv must be exactly ${IV_LEN} bytes, got ${iv.length}`, { len: iv.length });
  let data;
  try {
    data = fromBase64(dataB64);
  } catch (e) {
    throw new CompatError('DataBase64', 'data is not standard padded base64', { cause: e });
  }
  if (data.length < TAG_LEN) {
    throw new CompatError('TruncatedTag', `data must end with a ${TAG_LEN}-byte tag, got only ${data.length} bytes`, { len: data.length });
  }
  return { iv, data };
}

/**
 * Messages one ChatCrypto encrypts before refusing: K_pair is also the key of
 * DIRECT records (see DIRECT_LIMIT in seal.js), and a random 96-bit IV is
 * good for 2^32 encryptions under one key in all.
 */
export const COMPAT_LIMIT = 2 ** 30;

/**
 * The article's class: one AES-GCM key per peer, random IVs, no associated
 * data. It counts its encryptions and refuses past {@link COMPAT_LIMIT};
 * persist {@link ChatCrypto#encryptions} with the application's state and
 * give it back with {@link ChatCrypto#restoreEncryptions}.
 */
export class ChatCrypto {
  /** @type {CryptoKey|null} */
  #key = null;
  #encryptions = 0;

  /** An uninitialised instance, as in the article; call `init` (or use `ChatCrypto.create`). */
  constructor() {}

  /**
   * The article's set-up from Web Crypto keys.
   * @param {CryptoKey} myPrivateKey ECDH P-256 private key with `deriveBits`
   * @param {CryptoKey} theirPublicKey ECDH P-256 public key
   * @returns {Promise<ChatCrypto>} this
   */
  async init(myPrivateKey, theirPublicKey) {
    const bits = await subtle().deriveBits({ name: 'ECDH', public: theirPublicKey }, myPrivateKey, 256);
    const key = await sha256(new Uint8Array(bits));
    try {
      this.#key = await aesKey(key);
    } finally {
      key.fill(0);
    }
    return this;
  }

  /**
   * Rust's `ChatCrypto::new(own, peer)`.
   * @param {Identity} own
   * @param {PublicKey} peer
   * @returns {Promise<ChatCrypto>}
   */
  static async create(own, peer) {
    if (!(own instanceof Identity) || !(peer instanceof PublicKey)) throw new TypeError('ChatCrypto.create(identity, publicKey)');
    const c = new ChatCrypto();
    const key = await pairKey(own, peer);
    try {
      c.#key = await aesKey(key);
    } finally {
      key.fill(0);
    }
    return c;
  }

  #ready() {
    if (!this.#key) throw new TypeError('ChatCrypto is not initialised: call init() first');
    return this.#key;
  }

  /**
   * Messages encrypted so far (including a restored count).
   * @returns {number}
   */
  encryptions() {
    return this.#encryptions;
  }

  /**
   * Restores a persisted count (counts only go up).
   * @param {number} count
   */
  restoreEncryptions(count) {
    const n = Number(count);
    if (!(n >= 0)) throw new RangeError('count must be a non-negative number');
    this.#encryptions = Math.max(this.#encryptions, n);
  }

  /**
   * Encrypts a string (as UTF-8, BOM kept) or bytes.
   * @param {string|Uint8Array} plaintext
   * @returns {Promise<CompatMessage>}
   * @throws {CompatError} kind `BudgetExhausted` after {@link COMPAT_LIMIT}
   *   messages: the format has no other key to switch to; use sealed records.
   */
  async encrypt(plaintext) {
    const key = this.#ready();
    // Counted before the first await, so concurrent calls cannot overshoot.
    if (this.#encryptions >= COMPAT_LIMIT) {
      throw new CompatError('BudgetExhausted', `${COMPAT_LIMIT} messages were encrypted under this key pair: its random-IV budget is spent`, { limit: COMPAT_LIMIT });
    }
    this.#encryptions += 1;
    const bytes = typeof plaintext === 'string' ? utf8(plaintext) : plaintext;
    const iv = randomBytes(IV_LEN);
    const data = await gcmEncrypt(key, iv, undefined, bytes);
    return new CompatMessage(toBase64(iv), toBase64(data));
  }

  /**
   * Decrypts to bytes (Rust's `decrypt`).
   * @param {string} data
   * @param {string} iv
   * @returns {Promise<Uint8Array>}
   * @throws {CompatError} IvBase64, IvLength, DataBase64, TruncatedTag, Decrypt
   */
  async decryptBytes(data, iv) {
    const key = this.#ready();
    const parts = decodeParts(data, iv);
    const plain = await gcmDecrypt(key, parts.iv, undefined, parts.data);
    if (!plain) throw new CompatError('Decrypt', 'message does not authenticate (wrong key or modified)');
    return plain;
  }

  /**
   * Decrypts to text, as the article's `decrypt` (Rust's `decrypt_to_string`).
   * @param {string} data
   * @param {string} iv
   * @returns {Promise<string>}
   * @throws {CompatError} as `decryptBytes`, or InvalidUtf8
   */
  async decrypt(data, iv) {
    const plain = await this.decryptBytes(data, iv);
    try {
      return fromUtf8(plain);
    } catch (e) {
      throw new CompatError('InvalidUtf8', 'plaintext is not valid UTF-8', { cause: e });
    }
  }

  toString() {
    return 'ChatCrypto(<redacted>)';
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}

