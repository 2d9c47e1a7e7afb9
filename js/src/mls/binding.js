// The account's signature over a device's MLS signature key: the identity
// of every leaf's basic credential (docs/MLS.md §4.1; Rust
// client/src/mls/binding.rs — the same bytes).
//
//   4 bytes "HMQD", u8 version 2, 65 bytes account key (uncompressed SEC1),
//   u64 list_version (the account's device list that first names the
//   device), u64 issued_at (ms), 64 bytes raw r‖s ECDSA P-256 SHA-256 by the
//   account over "HermitMQ device binding v2\0" ‖ account key ‖ device key
//   ‖ list_version ‖ issued_at. Version 1 (never released) is refused.

import { concat, equal, utf8 } from '../bytes.js';
import { PublicKey, signRaw } from '../crypto/identity.js';
import { Reader, Writer } from '../protocol/codec.js';
import { lowS, RAW_SIGNATURE_LEN, SEC1_LEN, verifyRaw } from './ecdsa.js';
import { MlsError } from './error.js';

/** @import { Identity } from '../crypto/identity.js' */

/** The binding's magic. */
export const BINDING_MAGIC = utf8('HMQD');
/** The binding format's version. */
export const BINDING_VERSION = 2;
/** Length of an encoded binding. */
export const BINDING_LEN = 4 + 1 + SEC1_LEN + 8 + 8 + RAW_SIGNATURE_LEN;
const LABEL = utf8('HermitMQ device binding v2\0');

/**
 * @param {Uint8Array} account
 * @param {Uint8Array} deviceKey
 * @param {number} listVersion
 * @param {number} issuedAt
 */
function signedBytes(account, deviceKey, listVersion, issuedAt) {
  const w = new Writer(16);
  w.u64(listVersion);
  w.u64(issuedAt);
  return concat(LABEL, account, deviceKey, w.finish());
}

/** @param {string} why */
const malformed = (why) => new MlsError('Binding', `a device binding is malformed: ${why}`);

/** An account's binding of one device key. */
export class DeviceBinding {
  /**
   * @param {PublicKey} account
   * @param {number} listVersion the account's device list that first names the device
   * @param {number} issuedAt ms since the Unix epoch
   * @param {Uint8Array} signature raw r‖s
   */
  constructor(account, listVersion, issuedAt, signature) {
    /** The account that issued it. */
    this.account = account;
    /** The version of the account's device list that first names the device. */
    this.listVersion = listVersion;
    /** When it was issued (ms since the Unix epoch). */
    this.issuedAt = issuedAt;
    /** @private */
    this.signature = signature;
  }

  /**
   * The account's binding of `deviceKey` (uncompressed SEC1), first named
   * by the account's device list `listVersion` (`Device.bind` publishes the
   * list first and passes the version it got).
   * @param {Identity} account
   * @param {Uint8Array} deviceKey
   * @param {number} listVersion
   * @param {number} [issuedAt]
   * @returns {Promise<DeviceBinding>}
   */
  static async issue(account, deviceKey, listVersion, issuedAt = Date.now()) {
    if (deviceKey.length !== SEC1_LEN || deviceKey[0] !== 0x04) throw new MlsError('Invalid', 'a device key is an uncompressed P-256 point');
    if (!Number.isSafeInteger(listVersion) || listVersion < 1) throw new MlsError('Invalid', 'a list version is a positive integer');
    const message = signedBytes(account.publicKey.toSec1(), deviceKey, listVersion, issuedAt);
    return new DeviceBinding(account.publicKey, listVersion, issuedAt, lowS(await signRaw(account, message)));
  }

  /** @returns {Uint8Array} the 150 bytes of the credential's identity */
  toBytes() {
    const w = new Writer(BINDING_LEN);
    w.bytes(BINDING_MAGIC);
    w.u8(BINDING_VERSION);
    w.bytes(this.account.toSec1());
    w.u64(this.listVersion);
    w.u64(this.issuedAt);
    w.bytes(this.signature);
    return w.finish();
  }

  /**
   * Parses an encoded binding (not yet checked: see `verify`).
   * @param {Uint8Array} bytes
   * @returns {Promise<DeviceBinding>}
   * @throws {MlsError} code `Binding`
   */
  static async fromBytes(bytes) {
    if (bytes.length !== BINDING_LEN) throw malformed('wrong length');
    const r = new Reader(bytes);
    if (!equal(r.bytes(4), BINDING_MAGIC)) throw malformed('wrong magic');
    if (r.u8() !== BINDING_VERSION) throw malformed('unknown version');
    const key = r.bytes(SEC1_LEN);
    if (key[0] !== 0x04) throw malformed('account key not uncompressed');
    let account;
    try {
      account = await PublicKey.fromSec1Bytes(key);
    } catch (e) {
      throw new MlsError('Binding', 'the binding names an account key that is not a P-256 point', { cause: e });
    }
    const listVersion = r.u64('list_version');
    const issuedAt = r.u64('issued_at');
    return new DeviceBinding(account, listVersion, issuedAt, Uint8Array.from(r.bytes(RAW_SIGNATURE_LEN)));
  }

  /**
   * Checks that the account signed `deviceKey` (the leaf's signature key).
   * @param {Uint8Array} deviceKey
   * @returns {Promise<void>}
   * @throws {MlsError} code `Binding`
   */
  async verify(deviceKey) {
    const account = this.account.toSec1();
    if (!(await verifyRaw(account, signedBytes(account, deviceKey, this.listVersion, this.issuedAt), this.signature))) {
      throw new MlsError('Binding', `the device binding does not verify under account ${this.account.fingerprint().toHex()}`, {
        account: this.account.fingerprint().toHex(),
      });
    }
  }
}
