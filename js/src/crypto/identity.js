// Identities: P-256 ECDH key pairs, byte-compatible with Rust's
// client/src/crypto/identity.rs and with what Web Crypto exports.
//
// - `Identity` is a private key, imported/exported as PKCS#8 DER (138 bytes with
//   the public key inside, what `exportKey('pkcs8')` gives).
// - `PublicKey` always holds the canonical 91-byte SPKI (uncompressed point),
//   re-encoded from whatever was parsed, so one key has one fingerprint.
// - fp = SHA-256(canonical SPKI), kid = fp[0..8].
//
// Private keys and Web Crypto: the keys that do the work (ECDH `deriveBits`,
// ECDSA `sign` for `signAuthBound`) are imported non-extractable. Web Crypto cannot
// use one CryptoKey for ECDH and ECDSA, so the PKCS#8 is imported twice. To
// export the key again (`toPkcs8`, `KeyFile.wrap`) an identity keeps a third,
// extractable copy unless it was created with `{ extractable: false }`: that
// copy is the trade-off — script running in the page could export it — so an
// application that never needs to save the key should pass
// `{ extractable: false }` (then `toPkcs8` throws `KeyError` kind `NotExtractable`).

import { checkBytes, equal, fromBase64, toBase64, toHex } from '../bytes.js';
import { MAX_CHANNEL_BINDING, authTranscriptBound, dialledName } from '../protocol/auth.js';
import { ECDH, ECDSA, ECDSA_SHA256, randomBytes, sha256, subtle } from './webcrypto.js';

/** Length of an exported PKCS#8 private key (with the public key inside). */
export const PKCS8_LEN = 138;
/** Length of a canonical SPKI public key (uncompressed P-256 point). */
export const SPKI_LEN = 91;
/** Length of a fingerprint. */
export const FINGERPRINT_LEN = 32;
/** Length of a key id. */
export const KID_LEN = 8;
/** Length of an `Identity.signAuthBound` signature (raw r‖s). */
export const AUTH_SIGNATURE_LEN = 64;
/** Length of the broker hello's nonce that `signAuthBound` signs. */
export const AUTH_NONCE_LEN = 32;

// The fixed first 26 bytes of a compressed-point P-256 SPKI (59 bytes in all).
const COMPRESSED_SPKI_PREFIX = Uint8Array.from([
  0x30, 0x39, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
  0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x22, 0x00,
]);

/**
 * Decodes standard padded base64 of PKCS#8 DER (surrounding white space
 * ignored), imports it with `importer`, and wipes the decoded bytes.
 * Internal: shared by `Identity` and `SigningIdentity`.
 * @template T
 * @param {string} text
 * @param {(der: Uint8Array) => Promise<T>} importer
 * @returns {Promise<T>}
 * @throws {KeyError} kind `Base64`, or what `importer` throws
 */
export async function importPkcs8Base64(text, importer) {
  let der;
  try {
    der = fromBase64(String(text).trim());
  } catch (e) {
    throw new KeyError('Base64', 'PKCS#8 is not standard padded base64', { what: 'PKCS#8', cause: e });
  }
  try {
    return await importer(der);
  } finally {
    der.fill(0);
  }
}

/**
 * Standard padded base64 of secret `der`, which is wiped afterwards.
 * Internal: shared by `Identity` and `SigningIdentity`.
 * @param {Uint8Array} der
 * @returns {string}
 */
export function wipedBase64(der) {
  try {
    return toBase64(der);
  } finally {
    der.fill(0);
  }
}

/** Why a key could not be imported, exported or generated. */
export class KeyError extends Error {
  /**
   * @param {'Base64'|'InvalidPkcs8'|'InvalidSpki'|'InvalidPoint'|'NotExtractable'|'InvalidArgument'} kind
   * @param {string} message
   * @param {{ what?: string, len?: number, cause?: unknown }} [details]
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'KeyError';
    /** @type {'HERMIT_KEY'} */
    this.code = 'HERMIT_KEY';
    /** Mirrors Rust's `KeyError` variant (plus `NotExtractable`, `InvalidArgument`). */
    this.kind = kind;
    if (details.what !== undefined) this.what = details.what;
    if (details.len !== undefined) this.len = details.len;
  }
}

/**
 * True if `der` is one DER SEQUENCE spanning exactly all of its bytes.
 * @param {Uint8Array} der
 */
function isOneDerSequence(der) {
  if (der.length < 2 || der[0] !== 0x30) return false;
  let len = der[1];
  let hdr = 2;
  if (len === 0x81) {
    if (der.length < 3 || der[2] < 0x80) return false;
    len = der[2];
    hdr = 3;
  } else if (len === 0x82) {
    if (der.length < 4 || der[2] === 0) return false;
    len = (der[2] << 8) | der[3];
    hdr = 4;
  } else if (len > 0x80) {
    return false;
  }
  return hdr + len === der.length;
}

/** A key id: the first 8 bytes of a fingerprint. */
export class Kid {
  #bytes;

  /** @param {Uint8Array} bytes 8 bytes */
  constructor(bytes) {
    checkBytes(bytes, 'kid');
    if (bytes.length !== KID_LEN) throw new KeyError('InvalidArgument', `a kid is ${KID_LEN} bytes`);
    this.#bytes = Uint8Array.from(bytes);
  }

  /**
   * @param {Uint8Array} bytes 8 bytes
   * @returns {Kid}
   */
  static fromBytes(bytes) {
    return new Kid(bytes);
  }

  /** @returns {Uint8Array} a copy of the 8 bytes */
  asBytes() {
    return Uint8Array.from(this.#bytes);
  }

  /**
   * @param {Kid} other
   * @returns {boolean}
   */
  equals(other) {
    return other instanceof Kid && equal(this.#bytes, other.#bytes);
  }

  /** @returns {string} 16 lower-case hex digits */
  toHex() {
    return toHex(this.#bytes);
  }

  /** @returns {string} hex, as Rust's `Display` */
  toString() {
    return this.toHex();
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Kid(${this.toHex()})`;
  }
}

/** `SHA-256(canonical SPKI)`: the one identifier of a public key. */
export class Fingerprint {
  #bytes;

  /** @param {Uint8Array} bytes 32 bytes */
  constructor(bytes) {
    checkBytes(bytes, 'fingerprint');
    if (bytes.length !== FINGERPRINT_LEN) {
      throw new KeyError('InvalidArgument', `a fingerprint is ${FINGERPRINT_LEN} bytes`);
    }
    this.#bytes = Uint8Array.from(bytes);
  }

  /**
   * Wraps raw fingerprint bytes (e.g. read back from a contact list).
   * @param {Uint8Array} bytes
   * @returns {Fingerprint}
   */
  static fromBytes(bytes) {
    return new Fingerprint(bytes);
  }

  /** @returns {Uint8Array} a copy of the 32 bytes */
  asBytes() {
    return Uint8Array.from(this.#bytes);
  }

  /** @returns {Kid} the first 8 bytes */
  kid() {
    return new Kid(this.#bytes.subarray(0, KID_LEN));
  }

  /**
   * @param {Fingerprint} other
   * @returns {boolean}
   */
  equals(other) {
    return other instanceof Fingerprint && equal(this.#bytes, other.#bytes);
  }

  /** @returns {string} 64 lower-case hex digits */
  toHex() {
    return toHex(this.#bytes);
  }

  /** @returns {string} 16 groups of 4 hex digits, for people to compare (`3f2a 9c01 …`) */
  toString() {
    return this.toHex().replace(/(.{4})(?!$)/g, '$1 ');
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Fingerprint(${this.toHex()})`;
  }
}

/** A peer's P-256 public key with its canonical SPKI and fingerprint. */
export class PublicKey {
  /** @type {CryptoKey} */
  #key;
  /** @type {Uint8Array} */
  #spki;
  /** @type {Fingerprint} */
  #fp;

  /**
   * Use `PublicKey.fromSpki` & co.
   * @private
   * @param {CryptoKey} key
   * @param {Uint8Array} spki
   * @param {Fingerprint} fp
   * @param {symbol} token
   */
  constructor(key, spki, fp, token) {
    if (token !== CONSTRUCT) throw new TypeError('use PublicKey.fromSpki()');
    this.#key = key;
    this.#spki = spki;
    this.#fp = fp;
  }

  /**
   * @param {CryptoKey} key
   * @returns {Promise<PublicKey>} from an ECDH public CryptoKey
   */
  static async fromCryptoKey(key) {
    const spki = new Uint8Array(await subtle().exportKey('spki', key));
    if (spki.length !== SPKI_LEN) throw new KeyError('InvalidSpki', 'not a P-256 public key', { len: spki.length });
    // Re-import so the held key is a public ECDH key whatever was given.
    const ecdh = await subtle().importKey('spki', spki, ECDH, true, []);
    return new PublicKey(ecdh, spki, new Fingerprint(await sha256(spki)), CONSTRUCT);
  }

  /**
   * Parses SPKI DER (strict: one DER structure, no trailing bytes; compressed or
   * uncompressed point, never hybrid) and re-encodes it canonically.
   * @param {Uint8Array} der
   * @returns {Promise<PublicKey>}
   * @throws {KeyError} kind `InvalidSpki`
   */
  static async fromSpki(der) {
    checkBytes(der, 'SPKI');
    /** @param {unknown} [cause] */
    const invalid = (cause) => new KeyError('InvalidSpki', `not an SPKI P-256 public key (${der.length} bytes)`, { len: der.length, cause });
    if (!isOneDerSequence(der)) throw invalid();
    let key;
    try {
      key = await subtle().importKey('spki', /** @type {BufferSource} */ (der), ECDH, true, []);
    } catch (e) {
      throw invalid(e);
    }
    const pk = await PublicKey.fromCryptoKey(key);
    if (!equal(der, pk.#spki)) {
      // Only the compressed form of the same point is another valid encoding.
      const canon = pk.#spki;
      const ok =
        der.length === 59 &&
        equal(der.subarray(0, 26), COMPRESSED_SPKI_PREFIX) &&
        (der[26] === 0x02 || der[26] === 0x03) &&
        equal(der.subarray(27), canon.subarray(27, 59)) &&
        (der[26] & 1) === (canon[90] & 1);
      if (!ok) throw invalid();
    }
    return pk;
  }

  /**
   * Parses standard padded base64 of SPKI DER (Web Crypto's `exportKey('spki')`);
   * surrounding white space is ignored.
   * @param {string} text
   * @returns {Promise<PublicKey>}
   * @throws {KeyError} kind `Base64` or `InvalidSpki`
   */
  static async fromSpkiBase64(text) {
    let der;
    try {
      der = fromBase64(String(text).trim());
    } catch (e) {
      throw new KeyError('Base64', 'SPKI is not standard padded base64', { what: 'SPKI', cause: e });
    }
    return PublicKey.fromSpki(der);
  }

  /**
   * Parses a SEC1 point (Web Crypto's `exportKey('raw')`: 65 bytes uncompressed).
   * @param {Uint8Array} bytes
   * @returns {Promise<PublicKey>}
   * @throws {KeyError} kind `InvalidPoint`
   */
  static async fromSec1Bytes(bytes) {
    checkBytes(bytes, 'point');
    let key;
    try {
      if (bytes.length !== 65 && bytes.length !== 33) throw new Error('length');
      if (bytes[0] !== 0x04 && bytes[0] !== 0x02 && bytes[0] !== 0x03) throw new Error('format');
      key = await subtle().importKey('raw', /** @type {BufferSource} */ (bytes), ECDH, true, []);
    } catch (e) {
      throw new KeyError('InvalidPoint', `not a SEC1 P-256 point (${bytes.length} bytes)`, { len: bytes.length, cause: e });
    }
    return PublicKey.fromCryptoKey(key);
  }

  /**
   * The uncompressed SEC1 point (65 bytes, `0x04‖x‖y`): the tail of the
   * canonical SPKI, what Web Crypto's `exportKey('raw')` gives.
   * @returns {Uint8Array}
   */
  toSec1() {
    return this.#spki.slice(SPKI_LEN - 65);
  }

  /** @returns {Uint8Array} a copy of the canonical 91-byte SPKI DER */
  toSpki() {
    return Uint8Array.from(this.#spki);
  }

  /** @returns {string} standard padded base64 of the canonical SPKI */
  toSpkiBase64() {
    return toBase64(this.#spki);
  }

  /** @returns {Fingerprint} */
  fingerprint() {
    return this.#fp;
  }

  /** @returns {Kid} */
  kid() {
    return this.#fp.kid();
  }

  /** The ECDH public CryptoKey (for code written against Web Crypto directly). */
  get cryptoKey() {
    return this.#key;
  }

  /**
   * Equal by fingerprint, i.e. by the point itself.
   * @param {PublicKey} other
   * @returns {boolean}
   */
  equals(other) {
    return other instanceof PublicKey && this.#fp.equals(other.#fp);
  }

  /** @returns {string} */
  toString() {
    return `PublicKey(${this.#fp.toHex()})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}

const CONSTRUCT = Symbol('construct');

/**
 * Internal: `K_pair(own, peer)`; set by Identity's static block. Not exported from index.js.
 * @type {(identity: Identity, peer: PublicKey) => Promise<Uint8Array>}
 */
let pairKeyImpl;

/**
 * Internal: ECDSA P-256 SHA-256 with the identity's non-extractable key, raw
 * r‖s; set by Identity's static block.
 * @type {(identity: Identity, message: Uint8Array) => Promise<Uint8Array>}
 */
let signRawImpl;

/** One's own P-256 ECDH key pair. `toString`/inspect show only the key id. */
export class Identity {
  /** @type {CryptoKey} */
  #ecdh;
  /** @type {CryptoKey} */
  #ecdsa;
  /** @type {CryptoKey|null} */
  #exportable;
  /** @type {PublicKey} */
  #public;

  /**
   * Use `Identity.generate()` / `Identity.fromPkcs8()`.
   * @private
   * @param {CryptoKey} ecdh
   * @param {CryptoKey} ecdsa
   * @param {CryptoKey|null} exportable
   * @param {PublicKey} pub
   * @param {symbol} token
   */
  constructor(ecdh, ecdsa, exportable, pub, token) {
    if (token !== CONSTRUCT) throw new TypeError('use Identity.generate() or Identity.fromPkcs8()');
    this.#ecdh = ecdh;
    this.#ecdsa = ecdsa;
    this.#exportable = exportable;
    this.#public = pub;
  }

  static {
    signRawImpl = async (identity, message) =>
      new Uint8Array(await subtle().sign(ECDSA_SHA256, identity.#ecdsa, /** @type {BufferSource} */ (message)));
    pairKeyImpl = async (identity, peer) => {
      const bits = await subtle().deriveBits({ name: 'ECDH', public: peer.cryptoKey }, identity.#ecdh, 256);
      return sha256(new Uint8Array(bits));
    };
  }

  /**
   * Generates a fresh key pair.
   * @param {{ extractable?: boolean }} [options] `extractable: false` keeps no
   *   exportable copy (then `toPkcs8` and `KeyFile.wrap` refuse it).
   * @returns {Promise<Identity>}
   */
  static async generate(options = {}) {
    const { privateKey } = await subtle().generateKey(ECDH, true, ['deriveBits']);
    const pkcs8 = new Uint8Array(await subtle().exportKey('pkcs8', privateKey));
    try {
      return await Identity.fromPkcs8(pkcs8, options);
    } finally {
      pkcs8.fill(0);
    }
  }

  /**
   * Imports PKCS#8 DER. The embedded public key (Web Crypto's always has one)
   * must belong to the private scalar.
   * @param {Uint8Array} der
   * @param {{ extractable?: boolean }} [options]
   * @returns {Promise<Identity>}
   * @throws {KeyError} kind `InvalidPkcs8`
   */
  static async fromPkcs8(der, { extractable = true } = {}) {
    checkBytes(der, 'PKCS#8');
    /** @param {unknown} [cause] */
    const invalid = (cause) => new KeyError('InvalidPkcs8', `not a PKCS#8 P-256 private key (${der.length} bytes)`, { len: der.length, cause });
    if (!isOneDerSequence(der)) throw invalid();
    const s = subtle();
    let full, ecdh, ecdsa, jwk;
    try {
      const bytes = /** @type {BufferSource} */ (der);
      full = await s.importKey('pkcs8', bytes, ECDH, true, ['deriveBits']);
      ecdh = await s.importKey('pkcs8', bytes, ECDH, false, ['deriveBits']);
      ecdsa = await s.importKey('pkcs8', bytes, ECDSA, false, ['sign']);
      jwk = await s.exportKey('jwk', full);
    } catch (e) {
      throw invalid(e);
    }
    const pubJwk = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
    jwk.d = '';
    let pub;
    try {
      // The public point Web Crypto reports may be the one embedded in the file:
      // prove it belongs to the scalar with one signature, as Rust's import does.
      const verifier = await s.importKey('jwk', pubJwk, ECDSA, false, ['verify']);
      const probe = randomBytes(32);
      const sig = await s.sign(ECDSA_SHA256, ecdsa, /** @type {BufferSource} */ (probe));
      if (!(await s.verify(ECDSA_SHA256, verifier, sig, /** @type {BufferSource} */ (probe)))) throw new Error('public key does not match the private key');
      pub = await PublicKey.fromCryptoKey(await s.importKey('jwk', pubJwk, ECDH, true, []));
    } catch (e) {
      throw invalid(e);
    }
    return new Identity(ecdh, ecdsa, extractable ? full : null, pub, CONSTRUCT);
  }

  /**
   * Imports standard padded base64 of PKCS#8 DER (surrounding white space ignored).
   * @param {string} text
   * @param {{ extractable?: boolean }} [options]
   * @returns {Promise<Identity>}
   * @throws {KeyError} kind `Base64` or `InvalidPkcs8`
   */
  static async fromPkcs8Base64(text, options) {
    return importPkcs8Base64(text, (der) => Identity.fromPkcs8(der, options));
  }

  /**
   * Exports PKCS#8 DER (138 bytes, public key inside). The caller should
   * `fill(0)` the result when done.
   * @returns {Promise<Uint8Array>}
   * @throws {KeyError} kind `NotExtractable`
   */
  async toPkcs8() {
    if (!this.#exportable) throw new KeyError('NotExtractable', 'this identity was created with { extractable: false }');
    return new Uint8Array(await subtle().exportKey('pkcs8', this.#exportable));
  }

  /**
   * Standard padded base64 of `toPkcs8()`.
   * @returns {Promise<string>}
   */
  async toPkcs8Base64() {
    return wipedBase64(await this.toPkcs8());
  }

  /** Whether `toPkcs8` works (an exportable copy is kept). */
  get extractable() {
    return this.#exportable !== null;
  }

  /** @returns {PublicKey} */
  get publicKey() {
    return this.#public;
  }

  /** @returns {Fingerprint} */
  fingerprint() {
    return this.#public.fingerprint();
  }

  /** @returns {Kid} */
  kid() {
    return this.#public.kid();
  }

  /**
   * The canonical 91-byte SPKI DER of the public key (what `Authenticate` sends).
   * @returns {Promise<Uint8Array>}
   */
  async spki() {
    return this.#public.toSpki();
  }

  /**
   * The mechanism-2 `Authenticate` signature for one connection: ECDSA
   * P-256 SHA-256, raw r‖s (64 bytes), over `protocol/src/auth.rs`'s
   * `transcript_bound` — `"hermit-auth/v2" ‖ nonce(32) ‖ u8 len ‖ broker_id ‖
   * u8 len ‖ name ‖ u8 len ‖ channel binding ‖ SPKI`. `connect` calls it with
   * the name it dialled and, in Node over `wss://`, the TLS exporter value.
   * Unlike Rust's RFC 6979 signatures, Web Crypto's are randomized; both
   * verify the same way.
   * @param {Uint8Array} nonce 32 bytes from the broker hello
   * @param {Uint8Array} brokerId
   * @param {string} name the dialled name, normalized (`dialledName`)
   * @param {Uint8Array} channelBinding empty, or the 32-byte TLS exporter value
   * @returns {Promise<Uint8Array>}
   * @throws {KeyError} `InvalidArgument`: a nonce not 32 bytes, a name that
   *   is not normalized, a binding longer than 32 bytes
   */
  async signAuthBound(nonce, brokerId, name, channelBinding) {
    checkBytes(nonce, 'nonce');
    checkBytes(brokerId, 'brokerId');
    checkBytes(channelBinding, 'channelBinding');
    if (nonce.length !== AUTH_NONCE_LEN) throw new KeyError('InvalidArgument', `the auth nonce is ${AUTH_NONCE_LEN} bytes, got ${nonce.length}`);
    let normalized;
    try {
      normalized = dialledName(String(name));
    } catch (e) {
      throw new KeyError('InvalidArgument', e instanceof Error ? e.message : String(e), { cause: e });
    }
    // Signing another spelling than the one sent would only fail at the broker.
    if (normalized !== name) throw new KeyError('InvalidArgument', `the dialled name ${JSON.stringify(name)} is not normalized (${JSON.stringify(normalized)})`);
    if (channelBinding.length > MAX_CHANNEL_BINDING) throw new KeyError('InvalidArgument', `a channel binding is at most ${MAX_CHANNEL_BINDING} bytes, got ${channelBinding.length}`);
    const message = authTranscriptBound(nonce, brokerId, name, channelBinding, this.#public.toSpki());
    return new Uint8Array(await subtle().sign(ECDSA_SHA256, this.#ecdsa, /** @type {BufferSource} */ (message)));
  }

  /**
   * Equal when the public keys are.
   * @param {Identity} other
   * @returns {boolean}
   */
  equals(other) {
    return other instanceof Identity && this.#public.equals(other.#public);
  }

  /** @returns {string} the key id only, never the secret */
  toString() {
    return `Identity(kid=${this.kid().toHex()})`;
  }

  toJSON() {
    return { kid: this.kid().toHex() };
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}

/**
 * Internal (not re-exported by index.js): `K_pair(own, peer) = SHA-256(ECDH x)`,
 * 32 bytes, the same on both sides. The caller owns (and should wipe) the result.
 * @param {Identity} identity
 * @param {PublicKey} peer
 * @returns {Promise<Uint8Array>}
 */
export function pairKey(identity, peer) {
  return pairKeyImpl(identity, peer);
}

/**
 * Internal (not re-exported by index.js): ECDSA P-256 SHA-256 of `message`
 * with the identity's own (non-extractable) key, raw r‖s (64 bytes), as Web
 * Crypto signs: randomized, and high-S about half the time. Callers that
 * sign a labelled message (MLS bindings, device lists, leaves) put the label
 * in `message`.
 * @param {Identity} identity
 * @param {Uint8Array} message
 * @returns {Promise<Uint8Array>}
 */
export function signRaw(identity, message) {
  return signRawImpl(identity, message);
}
