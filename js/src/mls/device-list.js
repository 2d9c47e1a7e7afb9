// An account's signed list of its devices, in its compacted topic
// `dir.<account fp>` under key `devices` (docs/MLS.md §4.2; Rust
// client/src/mls/device_list.rs — the same bytes):
//
//   4 bytes "HMQL", u8 version 1, u64 list version, u64 issued_at,
//   u16 count, per device 65 bytes key + u64 added_at, 65 bytes account key,
//   64 bytes raw r‖s by the account over "HermitMQ device list v1\0" ‖ all above.

import { concat, equal, toHex, utf8 } from '../bytes.js';
import { sha256 } from '../crypto/webcrypto.js';
import { PublicKey, signRaw } from '../crypto/identity.js';
import { Reader, Writer } from '../protocol/codec.js';
import { lowS, RAW_SIGNATURE_LEN, SEC1_LEN, verifyRaw } from './ecdsa.js';
import { MlsError } from './error.js';

/** @import { Fingerprint, Identity } from '../crypto/identity.js' */

/** The list's magic. */
/**
 * The digest by which devices compare one account's lists (the device-list
 * memory, docs/MLS.md §4.2, and views messages, §4.7): SHA-256 of what the
 * account signed, the encoded list without its signature, hex. ECDSA
 * signatures are malleable (anyone can turn `s` into `n − s` without the
 * key), so one list can travel in two encodings; both are one list.
 * @param {Uint8Array} bytes an encoded list
 * @returns {Promise<string>}
 */
export async function listDigest(bytes) {
  return toHex(await sha256(bytes.subarray(0, Math.max(0, bytes.length - RAW_SIGNATURE_LEN))));
}

export const LIST_MAGIC = utf8('HMQL');
/** The list format's version. */
export const LIST_FORMAT = 1;
/** The most devices one list holds. */
export const MAX_DEVICES = 64;
/** The record key of the list in `dir.<account fp>`. */
export const DEVICES_KEY = utf8('devices');
/**
 * How old (ms, by its `issuedAt`) a device list is when it is flagged stale:
 * 30 days. A broker can withhold a newer list; an account's device re-signs
 * its list well before this (LIST_RESIGN_AFTER_MS), so a list this old says
 * the account is gone quiet or newer lists are being withheld.
 */
export const LIST_STALE_AFTER_MS = 30 * 24 * 3600 * 1000;
/** How old (ms) the published list is when the account's device re-signs it (same devices, version + 1): 7 days. */
export const LIST_RESIGN_AFTER_MS = 7 * 24 * 3600 * 1000;
const LABEL = utf8('HermitMQ device list v1\0');
const HEADER_LEN = 4 + 1 + 8 + 8 + 2;
const ENTRY_LEN = SEC1_LEN + 8;

/**
 * An account's directory topic.
 * @param {Fingerprint} account
 * @returns {string}
 */
export function directoryTopic(account) {
  return `dir.${account.toHex()}`;
}

/**
 * One listed device: its MLS signature key (uncompressed SEC1) and when it
 * was added (ms since the Unix epoch).
 * @typedef {{ key: Uint8Array, addedAt: number }} ListedDevice
 */

/** @param {string} why */
const malformed = (why) => new MlsError('DeviceList', `a device list is malformed: ${why}`);

/** A verified (or freshly made) device list. */
export class DeviceList {
  /**
   * @param {PublicKey} account
   * @param {number} version
   * @param {number} issuedAt
   * @param {ListedDevice[]} devices
   */
  constructor(account, version, issuedAt, devices) {
    if (devices.length > MAX_DEVICES) throw new MlsError('DeviceList', `a device list holds at most ${MAX_DEVICES} devices, not ${devices.length}`);
    /** The account it belongs to. */
    this.account = account;
    /** Its version (strictly increasing). */
    this.version = version;
    /** When it was signed (ms). */
    this.issuedAt = issuedAt;
    /** The devices. @type {ReadonlyArray<ListedDevice>} */
    this.devices = Object.freeze(devices.map((d) => Object.freeze({ key: Uint8Array.from(d.key), addedAt: d.addedAt })));
  }

  /**
   * Whether `key` (uncompressed SEC1) is listed.
   * @param {Uint8Array} key
   */
  lists(key) {
    return this.devices.some((d) => equal(d.key, key));
  }

  /**
   * Whether the list was signed more than LIST_STALE_AFTER_MS before `now`.
   * @param {number} [now] ms since the Unix epoch
   * @returns {boolean}
   */
  isStale(now = Date.now()) {
    return now - this.issuedAt > LIST_STALE_AFTER_MS;
  }

  /** @returns {Uint8Array} */
  #unsigned() {
    const w = new Writer(HEADER_LEN + this.devices.length * ENTRY_LEN + SEC1_LEN);
    w.bytes(LIST_MAGIC);
    w.u8(LIST_FORMAT);
    w.u64(this.version);
    w.u64(this.issuedAt);
    w.u16(this.devices.length);
    for (const d of this.devices) {
      w.bytes(d.key);
      w.u64(d.addedAt);
    }
    w.bytes(this.account.toSec1());
    return w.finish();
  }

  /**
   * The encoded list, signed by its account.
   * @param {Identity} account
   * @returns {Promise<Uint8Array>}
   */
  async sign(account) {
    if (!account.publicKey.equals(this.account)) throw new MlsError('Invalid', 'a device list is signed by its own account');
    const unsigned = this.#unsigned();
    return concat(unsigned, lowS(await signRaw(account, concat(LABEL, unsigned))));
  }

  /**
   * Parses and checks a signed list filed under `account` (its `dir.`
   * topic's fingerprint), refusing one older than `seen` (the newest
   * version this device accepted for that account).
   * @param {Uint8Array} bytes
   * @param {Fingerprint} account
   * @param {number|null} [seen]
   * @returns {Promise<DeviceList>}
   * @throws {MlsError} code `DeviceList`
   */
  static async verify(bytes, account, seen = null) {
    const min = HEADER_LEN + SEC1_LEN + RAW_SIGNATURE_LEN;
    if (bytes.length < min) throw malformed('too short');
    const r = new Reader(bytes);
    if (!equal(r.bytes(4), LIST_MAGIC)) throw malformed('wrong magic');
    if (r.u8() !== LIST_FORMAT) throw malformed('unknown version');
    let version, issuedAt;
    try {
      version = r.u64('version');
      issuedAt = r.u64('issued_at');
    } catch (e) {
      throw new MlsError('DeviceList', 'a device list is malformed: a version or time beyond 2^53', { cause: e });
    }
    const count = r.u16();
    if (count > MAX_DEVICES) throw new MlsError('DeviceList', `a device list holds at most ${MAX_DEVICES} devices, not ${count}`);
    if (bytes.length !== min + count * ENTRY_LEN) throw malformed('length does not match the count');
    /** @type {ListedDevice[]} */
    const devices = [];
    for (let i = 0; i < count; i++) {
      const key = r.bytes(SEC1_LEN);
      if (key[0] !== 0x04) throw malformed('a device key is not a P-256 point');
      try {
        await PublicKey.fromSec1Bytes(key);
      } catch {
        throw malformed('a device key is not a P-256 point');
      }
      devices.push({ key, addedAt: Number(r.u64n()) });
    }
    const accountKey = r.bytes(SEC1_LEN);
    let pub;
    try {
      pub = await PublicKey.fromSec1Bytes(accountKey);
    } catch {
      throw malformed('the account key is not a P-256 point');
    }
    if (!pub.fingerprint().equals(account)) {
      throw new MlsError('DeviceList', `the device list in ${directoryTopic(account)} is signed by another account (${pub.fingerprint().toHex()})`, {
        account: account.toHex(),
      });
    }
    const signed = bytes.subarray(0, bytes.length - RAW_SIGNATURE_LEN);
    if (!(await verifyRaw(accountKey, concat(LABEL, signed), r.bytes(RAW_SIGNATURE_LEN)))) {
      throw new MlsError('DeviceList', `the device list of ${account.toHex()} does not verify`, { account: account.toHex() });
    }
    if (seen !== null && version < seen) {
      throw new MlsError(
        'DeviceList',
        `the device list of ${account.toHex()} is version ${version}, older than version ${seen} already seen: a rolled-back list is refused`,
        { account: account.toHex() },
      );
    }
    return new DeviceList(pub, version, issuedAt, devices);
  }
}
