// Optional record signatures (client/src/crypto/signing.rs): ECDSA P-256 with
// SHA-256, raw r || s (64 bytes), over "sealed-record/v1 sig" || ctx_digest ||
// record. Made with a *separate* key: the Sealer refuses the ECDH identity's
// own key. Keys travel as PKCS#8 / SPKI like identities. The private CryptoKey
// is non-extractable unless `{ extractable: true }` (the default, for `toPkcs8`).

import { checkBytes } from '../bytes.js';
import { Identity, KeyError, PublicKey, importPkcs8Base64, wipedBase64 } from './identity.js';
import { ECDSA, ECDSA_SHA256, subtle } from './webcrypto.js';

const CONSTRUCT = Symbol('construct');
/** Set by SigningIdentity's static block. @type {(signer: SigningIdentity, message: Uint8Array) => Promise<Uint8Array>} */
let signImpl;

/** A sender's ECDSA P-256 verifying key, with the canonical SPKI fingerprint. */
export class SigningPublicKey {
  /** @type {CryptoKey} */
  #key;
  /** @type {PublicKey} */
  #spki;

  /**
   * @private
   * @param {CryptoKey} key
   * @param {PublicKey} spki
   * @param {symbol} token
   */
  constructor(key, spki, token) {
    if (token !== CONSTRUCT) throw new TypeError('use SigningPublicKey.fromSpki()');
    this.#key = key;
    this.#spki = spki;
  }

  /**
   * Parses SPKI DER (Web Crypto's `exportKey('spki')` of an ECDSA key), strictly.
   * @param {Uint8Array} der
   * @returns {Promise<SigningPublicKey>}
   * @throws {KeyError} kind `InvalidSpki`
   */
  static async fromSpki(der) {
    const spki = await PublicKey.fromSpki(der);
    const key = await subtle().importKey('spki', /** @type {BufferSource} */ (spki.toSpki()), ECDSA, true, ['verify']);
    return new SigningPublicKey(key, spki, CONSTRUCT);
  }

  /**
   * @param {string} text standard padded base64 of SPKI DER
   * @returns {Promise<SigningPublicKey>}
   */
  static async fromSpkiBase64(text) {
    const spki = await PublicKey.fromSpkiBase64(text);
    return SigningPublicKey.fromSpki(spki.toSpki());
  }

  /** @returns {Uint8Array} canonical 91-byte SPKI */
  toSpki() {
    return this.#spki.toSpki();
  }

  /** @returns {string} */
  toSpkiBase64() {
    return this.#spki.toSpkiBase64();
  }

  /** @returns {import('./identity.js').Fingerprint} */
  fingerprint() {
    return this.#spki.fingerprint();
  }

  /**
   * Verifies a raw r‖s signature over `message`.
   * @param {Uint8Array} signature
   * @param {Uint8Array} message
   * @returns {Promise<boolean>}
   */
  async verify(signature, message) {
    if (signature.length !== 64) return false;
    return subtle().verify(ECDSA_SHA256, this.#key, /** @type {BufferSource} */ (signature), /** @type {BufferSource} */ (message));
  }

  /** @param {SigningPublicKey} other @returns {boolean} */
  equals(other) {
    return other instanceof SigningPublicKey && this.fingerprint().equals(other.fingerprint());
  }

  toString() {
    return `SigningPublicKey(${this.fingerprint().toHex()})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}

/** A private ECDSA P-256 signing key; `toString` shows only its fingerprint. */
export class SigningIdentity {
  /** @type {CryptoKey} */
  #sign;
  /** @type {CryptoKey|null} */
  #exportable;
  /** @type {SigningPublicKey} */
  #public;

  /**
   * @private
   * @param {CryptoKey} sign
   * @param {CryptoKey|null} exportable
   * @param {SigningPublicKey} pub
   * @param {symbol} token
   */
  constructor(sign, exportable, pub, token) {
    if (token !== CONSTRUCT) throw new TypeError('use SigningIdentity.generate()');
    this.#sign = sign;
    this.#exportable = exportable;
    this.#public = pub;
  }

  static {
    signImpl = async (signer, message) => new Uint8Array(await subtle().sign(ECDSA_SHA256, signer.#sign, /** @type {BufferSource} */ (message)));
  }

  /**
   * @param {{ extractable?: boolean }} [options]
   * @returns {Promise<SigningIdentity>}
   */
  static async generate(options = {}) {
    const { privateKey } = await subtle().generateKey(ECDSA, true, ['sign']);
    const der = new Uint8Array(await subtle().exportKey('pkcs8', privateKey));
    try {
      return await SigningIdentity.fromPkcs8(der, options);
    } finally {
      der.fill(0);
    }
  }

  /**
   * Imports PKCS#8 DER (the same checks as `Identity.fromPkcs8`).
   * @param {Uint8Array} der
   * @param {{ extractable?: boolean }} [options]
   * @returns {Promise<SigningIdentity>}
   * @throws {KeyError} kind `InvalidPkcs8`
   */
  static async fromPkcs8(der, { extractable = true } = {}) {
    checkBytes(der, 'PKCS#8');
    // Identity's import checks structure and that the public key matches.
    const asIdentity = await Identity.fromPkcs8(der, { extractable: false });
    const s = subtle();
    const bytes = /** @type {BufferSource} */ (der);
    const sign = await s.importKey('pkcs8', bytes, ECDSA, false, ['sign']);
    const exportable = extractable ? await s.importKey('pkcs8', bytes, ECDSA, true, ['sign']) : null;
    const pub = await SigningPublicKey.fromSpki(asIdentity.publicKey.toSpki());
    return new SigningIdentity(sign, exportable, pub, CONSTRUCT);
  }

  /**
   * @param {string} text standard padded base64 of PKCS#8 DER
   * @param {{ extractable?: boolean }} [options]
   * @returns {Promise<SigningIdentity>}
   */
  static async fromPkcs8Base64(text, options) {
    return importPkcs8Base64(text, (der) => SigningIdentity.fromPkcs8(der, options));
  }

  /** @returns {Promise<Uint8Array>} PKCS#8 DER (138 bytes) */
  async toPkcs8() {
    if (!this.#exportable) throw new KeyError('NotExtractable', 'this signing key was created with { extractable: false }');
    return new Uint8Array(await subtle().exportKey('pkcs8', this.#exportable));
  }

  /** @returns {Promise<string>} */
  async toPkcs8Base64() {
    return wipedBase64(await this.toPkcs8());
  }

  /** @returns {SigningPublicKey} */
  get publicKey() {
    return this.#public;
  }

  toString() {
    return `SigningIdentity(${this.#public.fingerprint().toHex()})`;
  }

  toJSON() {
    return { fingerprint: this.#public.fingerprint().toHex() };
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}

/**
 * Internal (not re-exported): signs `message` with `signer`.
 * @param {SigningIdentity} signer
 * @param {Uint8Array} message
 * @returns {Promise<Uint8Array>}
 */
export function signWith(signer, message) {
  return signImpl(signer, message);
}
