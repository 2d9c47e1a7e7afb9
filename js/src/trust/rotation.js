// An account-key rotation statement (docs/MLS.md §4, account-key rotation; Rust
// client/src/trust/rotation.rs — the same bytes): the old account key and
// the new one both sign that the account moved from the first to the
// second. Published in the old account's directory topic `dir.<old fp>`
// under record key `rotation`; all integers big-endian:
//
//   4 bytes "HMQR", u8 format 1, 65 bytes old account key, 65 bytes new
//   account key (uncompressed SEC1), u64 issued_at (ms since the Unix
//   epoch), 64 bytes raw r‖s by the OLD key, 64 bytes raw r‖s by the NEW
//   key — both ECDSA P-256 SHA-256 (low S) over
//   "HermitMQ account rotation v1\0" ‖ old key ‖ new key ‖ issued_at.
//
// A reader who pinned key K for a contact accepts a statement only when it
// parses exactly, its old key is K, its new key is another key, and both
// signatures verify; anything else is a forged rotation, refused (an
// error), never shown as a key change.

import { concat, equal, utf8 } from '../bytes.js';
import { PublicKey, signRaw } from '../crypto/identity.js';
import { Reader, Writer } from '../protocol/codec.js';
import { lowS, RAW_SIGNATURE_LEN, SEC1_LEN, verifyRaw } from '../mls/ecdsa.js';
import { MlsError } from '../mls/error.js';

/** @import { Identity } from '../crypto/identity.js' */

/** The statement's magic. */
export const ROTATION_MAGIC = utf8('HMQR');
/** The statement format's version. */
export const ROTATION_FORMAT = 1;
/** Length of an encoded statement. */
export const ROTATION_LEN = 4 + 1 + SEC1_LEN + SEC1_LEN + 8 + RAW_SIGNATURE_LEN + RAW_SIGNATURE_LEN;
/** The record key of the statement in `dir.<old account fp>`. */
export const ROTATION_KEY = utf8('rotation');
/**
 * How far past the reader's clock a statement may be dated (one day): a
 * later one is refused when read (`Device.rotationOf`), so that a thief of
 * the old key cannot date a statement so late that the owner's later one
 * never looks newer. As the Rust SDK's `ROTATION_MAX_SKEW_MS`.
 */
export const ROTATION_MAX_SKEW_MS = 24 * 3600 * 1000;
const LABEL = utf8('HermitMQ account rotation v1\0');

/**
 * What both keys sign.
 * @param {Uint8Array} oldKey
 * @param {Uint8Array} newKey
 * @param {number} issuedAt
 */
function signedBytes(oldKey, newKey, issuedAt) {
  const w = new Writer(8);
  w.u64(issuedAt);
  return concat(LABEL, oldKey, newKey, w.finish());
}

/**
 * @param {string} why
 * @param {{ account?: string, cause?: unknown }} [details]
 */
const refused = (why, details) => new MlsError('Rotation', `an account rotation is refused: ${why}`, details);

/** An account's statement that its key changed from `oldKey` to `newKey`. */
export class RotationStatement {
  #oldSignature;
  #newSignature;

  /**
   * Use {@link RotationStatement.sign} or {@link RotationStatement.decode}.
   * @param {PublicKey} oldKey
   * @param {PublicKey} newKey
   * @param {number} issuedAt
   * @param {Uint8Array} oldSignature raw r‖s
   * @param {Uint8Array} newSignature raw r‖s
   */
  constructor(oldKey, newKey, issuedAt, oldSignature, newSignature) {
    /** The account key given up. */
    this.oldKey = oldKey;
    /** The account key that replaces it. */
    this.newKey = newKey;
    /** When it was signed (ms since the Unix epoch). */
    this.issuedAt = issuedAt;
    this.#oldSignature = Uint8Array.from(oldSignature);
    this.#newSignature = Uint8Array.from(newSignature);
  }

  /**
   * The statement that the account of `oldIdentity` moves to
   * `newIdentity`'s key, signed by both.
   * @param {Identity} oldIdentity
   * @param {Identity} newIdentity
   * @param {number} [issuedAt] ms since the Unix epoch
   * @returns {Promise<RotationStatement>}
   * @throws {MlsError} code `Invalid` when both are one key
   */
  static async sign(oldIdentity, newIdentity, issuedAt = Date.now()) {
    if (oldIdentity.publicKey.equals(newIdentity.publicKey)) throw new MlsError('Invalid', 'an account rotates to another key, not its own');
    const message = signedBytes(oldIdentity.publicKey.toSec1(), newIdentity.publicKey.toSec1(), issuedAt);
    const [a, b] = await Promise.all([signRaw(oldIdentity, message), signRaw(newIdentity, message)]);
    return new RotationStatement(oldIdentity.publicKey, newIdentity.publicKey, issuedAt, lowS(a), lowS(b));
  }

  /** @returns {Uint8Array} the 271 bytes of the record */
  encode() {
    const w = new Writer(ROTATION_LEN);
    w.bytes(ROTATION_MAGIC);
    w.u8(ROTATION_FORMAT);
    w.bytes(this.oldKey.toSec1());
    w.bytes(this.newKey.toSec1());
    w.u64(this.issuedAt);
    w.bytes(this.#oldSignature);
    w.bytes(this.#newSignature);
    return w.finish();
  }

  /**
   * Parses a statement (its signatures not yet checked: see `verify`).
   * @param {Uint8Array} bytes
   * @returns {Promise<RotationStatement>}
   * @throws {MlsError} code `Rotation` for anything but exactly one statement
   */
  static async decode(bytes) {
    if (!(bytes instanceof Uint8Array) || bytes.length !== ROTATION_LEN) throw refused(`a statement is ${ROTATION_LEN} bytes, not ${bytes?.length}`);
    const r = new Reader(bytes);
    if (!equal(r.bytes(4), ROTATION_MAGIC)) throw refused('wrong magic');
    if (r.u8() !== ROTATION_FORMAT) throw refused('unknown format');
    /** @type {PublicKey[]} */
    const keys = [];
    for (const which of ['old', 'new']) {
      try {
        const point = r.bytes(SEC1_LEN);
        if (point[0] !== 0x04) throw new Error('not uncompressed');
        keys.push(await PublicKey.fromSec1Bytes(point));
      } catch (e) {
        throw refused(`the ${which} key is not a P-256 point`, { cause: e });
      }
    }
    let issuedAt;
    try {
      issuedAt = r.u64('issued_at');
    } catch (e) {
      throw refused('a time beyond 2^53', { cause: e });
    }
    return new RotationStatement(keys[0], keys[1], issuedAt, r.bytes(RAW_SIGNATURE_LEN), r.bytes(RAW_SIGNATURE_LEN));
  }

  /**
   * Checks the statement for a reader who pinned `pinned` as the account's
   * key: the old key must be `pinned`, the new key another, and both keys'
   * signatures must verify.
   * @param {PublicKey} pinned
   * @returns {Promise<void>}
   * @throws {MlsError} code `Rotation` (a forged rotation)
   */
  async verify(pinned) {
    const account = pinned.fingerprint().toHex();
    if (!this.oldKey.equals(pinned)) {
      throw refused(`it rotates ${this.oldKey.fingerprint().toHex()}, not the pinned key of ${account}`, { account });
    }
    if (this.newKey.equals(this.oldKey)) throw refused('the new key is the old key', { account });
    const oldSec1 = this.oldKey.toSec1();
    const newSec1 = this.newKey.toSec1();
    const message = signedBytes(oldSec1, newSec1, this.issuedAt);
    if (!(await verifyRaw(oldSec1, message, this.#oldSignature))) throw refused(`the old key's signature does not verify (account ${account})`, { account });
    if (!(await verifyRaw(newSec1, message, this.#newSignature))) throw refused(`the new key's signature does not verify (account ${account})`, { account });
  }

  /**
   * Decodes and verifies a statement for a reader who pinned `pinned`.
   * @param {Uint8Array} bytes
   * @param {PublicKey} pinned
   * @returns {Promise<RotationStatement>}
   * @throws {MlsError} code `Rotation`
   */
  static async open(bytes, pinned) {
    const s = await RotationStatement.decode(bytes);
    await s.verify(pinned);
    return s;
  }

  /** @returns {string} */
  toString() {
    return `RotationStatement(${this.oldKey.fingerprint().toHex()} -> ${this.newKey.fingerprint().toHex()})`;
  }
}
