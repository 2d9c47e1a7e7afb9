// SEALKEY v1, the password-wrapped private key file (client/src/crypto/keyfile.rs,
// docs/ENVELOPE.md §3): Argon2id v1.3 (from hash-wasm, the SDK's only bare
// import — this is the only module that imports it, lazily on first use), AES-256-GCM with the
// whole header as associated data, RFC 7468 armor.
//
//   "SEALKEY" | 0x01 | kdf 0x01 | m_cost KiB u32 | t_cost u32 | p_cost u32
//   | salt_len | salt | aead 0x01 | nonce_len 12 | nonce | key type 0x01
//   | pub_len u16 (91) | SPKI | ct_len u32 | AES-GCM(KEK, nonce, PKCS#8, aad = all before)
//
// Hostile parameters are refused before Argon2 runs: m ≤ 1 GiB, 1 ≤ t ≤ 16,
// 1 ≤ p ≤ 16, m ≥ 8·p KiB, salt 16..=64; `unlock` also refuses anything below
// the OWASP floor (19 MiB, t = 2) — `unlockInsecureForTests` does not.
// hash-wasm runs Argon2 in one thread, so p lanes cost p times one lane here.

import { checkBytes, concat, equal, fromBase64, toBase64, utf8 } from '../bytes.js';
import { Identity, PublicKey, SPKI_LEN } from './identity.js';
import { randomBytes } from './webcrypto.js';
import { aesKey, gcmDecrypt, gcmEncrypt } from './aead.js';

const MAGIC = utf8('SEALKEY');
const VERSION = 0x01;
const KDF_ARGON2ID = 0x01;
const AEAD_AES256GCM = 0x01;
const KEY_TYPE_P256_ECDH = 0x01;
const NONCE_LEN = 12;
const TAG_LEN = 16;
/** Salt length written. */
export const SALT_LEN = 16;
/** Shortest salt accepted. */
export const MIN_SALT_LEN = 16;
/** Longest salt accepted. */
export const MAX_SALT_LEN = 64;
/** Largest m_cost accepted (1 GiB, in KiB). */
export const MAX_M_COST_KIB = 1024 * 1024;
/** Largest t_cost accepted. */
export const MAX_T_COST = 16;
/** Largest p_cost accepted. */
export const MAX_P_COST = 16;
/** OWASP floor for m_cost: 19 MiB, in KiB. */
export const FLOOR_M_COST_KIB = 19 * 1024;
/** OWASP floor for t_cost. */
export const FLOOR_T_COST = 2;
/** Longest armored text accepted. */
export const MAX_ARMOR_LEN = 16 * 1024;
const MAX_CT_LEN = 1024;
const ARMOR_BEGIN = '-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----';
const ARMOR_END = '-----END SEALKEY ENCRYPTED PRIVATE KEY-----';

/**
 * Why a key file could not be written, read or unlocked; `kind` is Rust's
 * `KeyFileError` variant: TooLarge, Armor, Base64, Truncated, BadMagic,
 * UnsupportedVersion, UnsupportedKdf, KdfParamOutOfRange, KdfBelowFloor,
 * SaltLength, UnsupportedAead, NonceLength, UnsupportedKeyType, PublicKeyLength,
 * InvalidPublicKey, CiphertextLength, TrailingBytes, WrongPasswordOrModified,
 * InvalidPrivateKey, PublicKeyMismatch, Kdf.
 */
export class KeyFileError extends Error {
  /**
   * @param {'TooLarge'|'Armor'|'Base64'|'Truncated'|'BadMagic'|'UnsupportedVersion'
   *   |'UnsupportedKdf'|'KdfParamOutOfRange'|'KdfBelowFloor'|'SaltLength'
   *   |'UnsupportedAead'|'NonceLength'|'UnsupportedKeyType'|'PublicKeyLength'
   *   |'InvalidPublicKey'|'CiphertextLength'|'TrailingBytes'|'WrongPasswordOrModified'
   *   |'InvalidPrivateKey'|'PublicKeyMismatch'|'Kdf'} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details]
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'KeyFileError';
    /** @type {'HERMIT_KEYFILE'} */
    this.code = 'HERMIT_KEYFILE';
    this.kind = kind;
    for (const [k, v] of Object.entries(details)) if (k !== 'cause' && v !== undefined) /** @type {Record<string, unknown>} */ (this)[k] = v;
  }
}

/**
 * @param {string} param
 * @param {number} value
 * @param {number} min
 * @param {number} max
 */
function range(param, value, min, max) {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new KeyFileError('KdfParamOutOfRange', `KDF parameter ${param} = ${value} is outside ${min}..=${max}`, { param, value, min, max });
  }
}

// Set only while `KdfParams.insecureForTests` runs the constructor.
let insecure = false;

/** Argon2id cost parameters. */
export class KdfParams {
  #m;
  #t;
  #p;

  /**
   * Parameters within the caps and at or above the OWASP floor.
   * @param {number} mCostKib
   * @param {number} tCost
   * @param {number} pCost
   * @throws {KeyFileError} KdfParamOutOfRange, KdfBelowFloor
   */
  constructor(mCostKib, tCost, pCost) {
    range('p_cost', pCost, 1, MAX_P_COST);
    range('t_cost', tCost, 1, MAX_T_COST);
    // Argon2 needs 8 KiB of memory per lane.
    range('m_cost', mCostKib, 8 * pCost, MAX_M_COST_KIB);
    this.#m = mCostKib;
    this.#t = tCost;
    this.#p = pCost;
    if (!insecure) this.checkFloor();
  }

  /**
   * Parameters within the caps but possibly below the floor. **Tests only**: a
   * file wrapped with these opens only with `unlockInsecureForTests`.
   * @param {number} mCostKib
   * @param {number} tCost
   * @param {number} pCost
   * @returns {KdfParams}
   */
  static insecureForTests(mCostKib, tCost, pCost) {
    insecure = true;
    try {
      return new KdfParams(mCostKib, tCost, pCost);
    } finally {
      insecure = false;
    }
  }

  /** @internal @throws {KeyFileError} KdfBelowFloor */
  checkFloor() {
    if (this.#m < FLOOR_M_COST_KIB || this.#t < FLOOR_T_COST) {
      throw new KeyFileError(
        'KdfBelowFloor',
        `KDF parameters m_cost = ${this.#m} KiB, t_cost = ${this.#t} are below the floor (${FLOOR_M_COST_KIB} KiB, t = ${FLOOR_T_COST})`,
        { mCostKib: this.#m, tCost: this.#t },
      );
    }
  }

  /** Memory cost in KiB. */
  get mCostKib() {
    return this.#m;
  }

  /** Number of passes. */
  get tCost() {
    return this.#t;
  }

  /** Degree of parallelism (lanes). */
  get pCost() {
    return this.#p;
  }

  /**
   * @internal Argon2id → 32-byte KEK.
   * @param {Uint8Array} password
   * @param {Uint8Array} salt
   * @returns {Promise<Uint8Array>}
   */
  async deriveKek(password, salt) {
    let argon2id;
    try {
      // Loaded on first use: importing the SDK needs no hash-wasm (and, in a
      // browser, no import map) until a key file is wrapped or unlocked.
      ({ argon2id } = await import('hash-wasm'));
    } catch (e) {
      throw new KeyFileError('Kdf', 'argon2 is unavailable: the hash-wasm package could not be loaded', { cause: e });
    }
    try {
      return await argon2id({
        password,
        salt,
        parallelism: this.#p,
        iterations: this.#t,
        memorySize: this.#m,
        hashLength: 32,
        outputType: 'binary',
      });
    } catch (e) {
      throw new KeyFileError('Kdf', 'argon2 failed', { cause: e });
    }
  }
}

/** m = 64 MiB, t = 3, p = 4: RFC 9106's second recommended option. */
KdfParams.RECOMMENDED = new KdfParams(64 * 1024, 3, 4);
Object.freeze(KdfParams);

/** @param {string|Uint8Array} password */
function passwordBytes(password) {
  if (typeof password === 'string') return utf8(password);
  return checkBytes(password, 'password');
}

const CONSTRUCT = Symbol('construct');

/** A parsed (still locked) SEALKEY v1 file. `toString` shows only the public key. */
export class KeyFile {
  /** @type {Uint8Array} */
  #bytes;
  /** @type {KdfParams} */
  #params;
  /** @type {Uint8Array} */
  #salt;
  /** @type {Uint8Array} */
  #nonce;
  /** @type {PublicKey} */
  #public;
  /** @type {number} */
  #ctStart;

  /**
   * @private
   * @param {Uint8Array} bytes
   * @param {KdfParams} params
   * @param {Uint8Array} salt
   * @param {Uint8Array} nonce
   * @param {PublicKey} pub
   * @param {number} ctStart
   * @param {symbol} token
   */
  constructor(bytes, params, salt, nonce, pub, ctStart, token) {
    if (token !== CONSTRUCT) throw new TypeError('use KeyFile.wrap() / fromBytes() / fromArmor()');
    this.#bytes = bytes;
    this.#params = params;
    this.#salt = salt;
    this.#nonce = nonce;
    this.#public = pub;
    this.#ctStart = ctStart;
  }

  /**
   * Wraps `identity` under `password` with a fresh random salt and nonce. The
   * identity must be extractable (see identity.js).
   * @param {Identity} identity
   * @param {string|Uint8Array} password (a string is UTF-8 encoded)
   * @param {KdfParams} [params] default `KdfParams.RECOMMENDED`
   * @returns {Promise<KeyFile>}
   */
  static async wrap(identity, password, params = KdfParams.RECOMMENDED) {
    if (!(identity instanceof Identity)) throw new TypeError('KeyFile.wrap needs an Identity');
    if (!(params instanceof KdfParams)) throw new TypeError('params must be KdfParams');
    const pw = passwordBytes(password);
    const salt = randomBytes(SALT_LEN);
    const nonce = randomBytes(NONCE_LEN);
    const pkcs8 = await identity.toPkcs8();
    try {
      const u32 = (/** @type {number} */ v) => {
        const b = new Uint8Array(4);
        new DataView(b.buffer).setUint32(0, v);
        return b;
      };
      const header = concat(
        MAGIC,
        [VERSION, KDF_ARGON2ID],
        u32(params.mCostKib),
        u32(params.tCost),
        u32(params.pCost),
        [SALT_LEN],
        salt,
        [AEAD_AES256GCM, NONCE_LEN],
        nonce,
        [KEY_TYPE_P256_ECDH, SPKI_LEN >> 8, SPKI_LEN & 0xff],
        identity.publicKey.toSpki(),
        u32(pkcs8.length + TAG_LEN),
      );
      const kek = await params.deriveKek(pw, salt);
      let ct;
      try {
        ct = await gcmEncrypt(await aesKey(kek, ['encrypt']), nonce, header, pkcs8);
      } finally {
        kek.fill(0);
      }
      return await KeyFile.fromBytes(concat(header, ct));
    } finally {
      pkcs8.fill(0);
    }
  }

  /**
   * Parses and checks a binary key file without the password (Argon2 does not run).
   * @param {Uint8Array} bytes
   * @returns {Promise<KeyFile>}
   * @throws {KeyFileError}
   */
  static async fromBytes(bytes) {
    checkBytes(bytes, 'key file');
    let pos = 0;
    const need = (/** @type {number} */ n) => {
      if (bytes.length - pos < n) {
        throw new KeyFileError('Truncated', `key file truncated: need ${n} more bytes, have ${bytes.length - pos}`, { need: n, have: bytes.length - pos });
      }
    };
    const take = (/** @type {number} */ n) => {
      need(n);
      const out = bytes.subarray(pos, pos + n);
      pos += n;
      return out;
    };
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const u8 = () => take(1)[0];
    const u16 = () => {
      need(2);
      pos += 2;
      return dv.getUint16(pos - 2);
    };
    const u32 = () => {
      need(4);
      pos += 4;
      return dv.getUint32(pos - 4);
    };
    if (!equal(take(MAGIC.length), MAGIC)) throw new KeyFileError('BadMagic', 'not a SEALKEY file (bad magic)');
    const version = u8();
    if (version !== VERSION) throw new KeyFileError('UnsupportedVersion', `unsupported SEALKEY version ${version}`, { found: version });
    const kdf = u8();
    if (kdf !== KDF_ARGON2ID) throw new KeyFileError('UnsupportedKdf', `unsupported KDF ${kdf}`, { found: kdf });
    const m = u32();
    const t = u32();
    const p = u32();
    const params = KdfParams.insecureForTests(m, t, p);
    const saltLen = u8();
    if (saltLen < MIN_SALT_LEN || saltLen > MAX_SALT_LEN) {
      throw new KeyFileError('SaltLength', `salt length ${saltLen} is outside ${MIN_SALT_LEN}..=${MAX_SALT_LEN}`, { len: saltLen });
    }
    const salt = take(saltLen);
    const aead = u8();
    if (aead !== AEAD_AES256GCM) throw new KeyFileError('UnsupportedAead', `unsupported AEAD ${aead}`, { found: aead });
    const nonceLen = u8();
    if (nonceLen !== NONCE_LEN) throw new KeyFileError('NonceLength', `nonce length must be ${NONCE_LEN}, got ${nonceLen}`, { len: nonceLen });
    const nonce = take(NONCE_LEN);
    const keyType = u8();
    if (keyType !== KEY_TYPE_P256_ECDH) throw new KeyFileError('UnsupportedKeyType', `unsupported key type ${keyType}`, { found: keyType });
    const pubLen = u16();
    if (pubLen !== SPKI_LEN) throw new KeyFileError('PublicKeyLength', `public key length must be ${SPKI_LEN}, got ${pubLen}`, { len: pubLen });
    const spki = take(SPKI_LEN);
    let pub;
    try {
      pub = await PublicKey.fromSpki(spki);
    } catch (e) {
      throw new KeyFileError('InvalidPublicKey', 'the key file\'s public key is not a canonical P-256 SPKI', { cause: e });
    }
    if (!equal(pub.toSpki(), spki)) throw new KeyFileError('InvalidPublicKey', 'the key file\'s public key is not a canonical P-256 SPKI');
    const ctLen = u32();
    if (ctLen < TAG_LEN + 1 || ctLen > MAX_CT_LEN) {
      throw new KeyFileError('CiphertextLength', `ciphertext length ${ctLen} is outside ${TAG_LEN + 1}..=${MAX_CT_LEN}`, { len: ctLen });
    }
    const ctStart = pos;
    take(ctLen);
    if (pos !== bytes.length) {
      throw new KeyFileError('TrailingBytes', `${bytes.length - pos} bytes after the end of the key file`, { extra: bytes.length - pos });
    }
    const own = Uint8Array.from(bytes);
    return new KeyFile(own, params, Uint8Array.from(salt), Uint8Array.from(nonce), pub, ctStart, CONSTRUCT);
  }

  /**
   * Parses RFC 7468 armor; CRLF and surrounding white space are accepted.
   * @param {string} text
   * @returns {Promise<KeyFile>}
   * @throws {KeyFileError} TooLarge, Armor, Base64, or anything `fromBytes` throws
   */
  static async fromArmor(text) {
    if (typeof text !== 'string') throw new TypeError('armor must be a string');
    // Rust measures UTF-8 bytes; for the ASCII armor that is the string length.
    const len = utf8(text).length;
    if (len > MAX_ARMOR_LEN) throw new KeyFileError('TooLarge', `key file text is ${len} bytes, more than the ${MAX_ARMOR_LEN} a key file can be`, { len, max: MAX_ARMOR_LEN });
    const trimmed = text.trim();
    if (!trimmed.startsWith(ARMOR_BEGIN)) throw new KeyFileError('Armor', 'not a SEALKEY armored key file: missing BEGIN line', { reason: 'missing BEGIN line' });
    const afterBegin = trimmed.slice(ARMOR_BEGIN.length);
    if (!afterBegin.endsWith(ARMOR_END)) throw new KeyFileError('Armor', 'not a SEALKEY armored key file: missing END line', { reason: 'missing END line' });
    const body = afterBegin.slice(0, afterBegin.length - ARMOR_END.length);
    if (!(body.startsWith('\n') || body.startsWith('\r'))) {
      const reason = 'BEGIN line not followed by a line break';
      throw new KeyFileError('Armor', `not a SEALKEY armored key file: ${reason}`, { reason });
    }
    let bytes;
    try {
      bytes = fromBase64(body.replace(/[\t\n\f\r ]/g, ''));
    } catch (e) {
      throw new KeyFileError('Base64', 'the armored key file body is not standard base64', { cause: e });
    }
    return KeyFile.fromBytes(bytes);
  }

  /** @returns {Uint8Array} a copy of the binary file */
  toBytes() {
    return Uint8Array.from(this.#bytes);
  }

  /** @returns {string} the armored text: base64 in 64-column lines, ending with a newline */
  toArmor() {
    const b64 = toBase64(this.#bytes);
    const lines = [ARMOR_BEGIN];
    for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
    lines.push(ARMOR_END, '');
    return lines.join('\n');
  }

  /** The public key stored in clear: who the file belongs to, without the password. */
  get publicKey() {
    return this.#public;
  }

  /** @returns {KdfParams} the Argon2id parameters recorded in the file */
  kdfParams() {
    return this.#params;
  }

  /**
   * Derives the KEK with Argon2id and decrypts the identity.
   * @param {string|Uint8Array} password
   * @param {{ extractable?: boolean }} [options] for the returned Identity
   * @returns {Promise<Identity>}
   * @throws {KeyFileError} KdfBelowFloor (before Argon2 runs), WrongPasswordOrModified,
   *   InvalidPrivateKey, PublicKeyMismatch, Kdf
   */
  async unlock(password, options) {
    this.#params.checkFloor();
    return this.#unlock(password, options);
  }

  /**
   * `unlock` without the OWASP floor. **Tests only**.
   * @param {string|Uint8Array} password
   * @param {{ extractable?: boolean }} [options]
   * @returns {Promise<Identity>}
   */
  async unlockInsecureForTests(password, options) {
    return this.#unlock(password, options);
  }

  /**
   * @param {string|Uint8Array} password
   * @param {{ extractable?: boolean }} [options]
   * @returns {Promise<Identity>}
   */
  async #unlock(password, options) {
    const pw = passwordBytes(password);
    const kek = await this.#params.deriveKek(pw, this.#salt);
    let pkcs8;
    try {
      pkcs8 = await gcmDecrypt(await aesKey(kek, ['decrypt']), this.#nonce, this.#bytes.subarray(0, this.#ctStart), this.#bytes.subarray(this.#ctStart));
    } finally {
      kek.fill(0);
    }
    if (!pkcs8) throw new KeyFileError('WrongPasswordOrModified', 'wrong password, or the key file was modified');
    let identity;
    try {
      identity = await Identity.fromPkcs8(pkcs8, options);
    } catch (e) {
      throw new KeyFileError('InvalidPrivateKey', 'the decrypted private key is not a PKCS#8 P-256 key', { cause: e });
    } finally {
      pkcs8.fill(0);
    }
    if (!identity.publicKey.equals(this.#public)) {
      throw new KeyFileError('PublicKeyMismatch', 'the private key does not match the key file\'s public key');
    }
    return identity;
  }

  toString() {
    return `KeyFile(${this.#public.fingerprint().toHex()})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}
