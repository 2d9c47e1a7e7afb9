// One group's entry in the device's state (docs/MLS.md §11.4; the JS
// counterpart of Rust's group file, client/src/mls/group_file.rs): the MLS
// state, the next offset to process, the outbox, the recent record hashes
// (the resend rule), the delivered events not yet acknowledged, and what
// stops the group. Encoded as a versioned JSON header with its byte fields
// carried after it as length-prefixed blobs.

import { fromHex, toHex, utf8, fromUtf8 } from '../bytes.js';
import { Fingerprint } from '../crypto/identity.js';
import { Writer } from '../protocol/codec.js';
import { MlsError } from './error.js';

/** @import { MemberId } from './credential.js' */

/** The record format's version. */
const FORMAT = 1;
/** How many recent record hashes are kept (the resend rule; Rust `RECENT`). */
export const RECENT = 4096;

/**
 * What a conversation tells its application (Rust's `Event`), in log order.
 * `splitView` is of the error tier (docs/MLS.md §4.7): `member` holds
 * version `version` of `account`'s device list and this device `seen` —
 * the same version with another list, or (`seen < version`) a newer list
 * the broker does not serve this device (withheld; 0: none served).
 * @typedef {{ type: 'message', offset: number, sender: MemberId, sentAt: number, text: string }
 *   | { type: 'memberAdded', offset: number, member: MemberId }
 *   | { type: 'memberRemoved', offset: number, member: MemberId }
 *   | { type: 'epochChanged', offset: number, epoch: number, authenticator: Uint8Array }
 *   | { type: 'commitLost', epoch: number }
 *   | { type: 'removed', offset: number }
 *   | { type: 'recordRefused', offset: number, reason: string }
 *   | { type: 'forkSuspected', offset: number, epoch: number }
 *   | { type: 'catchUpImpossible', next: number, logStart: number }
 *   | { type: 'splitView', offset: number, account: import('../crypto/identity.js').Fingerprint, member: MemberId, version: number, seen: number }
 *   | { type: 'leafRefused', offset: number, account: Fingerprint, device: Fingerprint, reason: string }
 *   | { type: 'deviceNotListed', offset: number, account: Fingerprint, device: Fingerprint, listVersion: number }
 *   | { type: 'deviceRemoved', offset: number, account: Fingerprint, device: Fingerprint, byDevice: Fingerprint, at: number, listVersion: number }} MlsEvent
 */

/**
 * Our Commit, made and not yet seen in the log: its record, the state it
 * leads to, the Welcome for the devices it adds, the epoch it was made for.
 * @typedef {{ record: Uint8Array, state: Uint8Array, welcome: Uint8Array | null, welcomeTo: string[], epoch: number }} PendingCommit
 */

/**
 * @typedef {object} GroupRecord
 * @property {Uint8Array} groupId
 * @property {string} topic
 * @property {number} next the next offset to process
 * @property {Uint8Array} state ts-mls's encoded group state
 * @property {PendingCommit | null} pending
 * @property {Uint8Array[]} outbox sealed messages not yet seen in the log
 * @property {Array<{ to: string, welcome: Uint8Array }>} welcomes Welcomes to deliver (device fp hex → bytes)
 * @property {string[]} recent SHA-256 (hex) of recent records, oldest first
 * @property {MlsEvent[]} delivered events not yet acknowledged
 * @property {boolean} removed
 * @property {'fork' | 'catchUp' | null} stuck
 * @property {number} firstEpoch
 */

/**
 * The record of a group this device has just made or joined: nothing sent,
 * nothing delivered, reading from `next`.
 * @param {Uint8Array} groupId
 * @param {string} topic
 * @param {number} next
 * @param {number} firstEpoch
 * @returns {GroupRecord}
 */
export function newGroupRecord(groupId, topic, next, firstEpoch) {
  return {
    groupId: Uint8Array.from(groupId),
    topic,
    next,
    state: new Uint8Array(0),
    pending: null,
    outbox: [],
    welcomes: [],
    recent: [],
    delivered: [],
    removed: false,
    stuck: null,
    firstEpoch,
  };
}

/**
 * Replaces byte fields by blob references, for JSON.
 * @param {unknown} value
 * @param {Uint8Array[]} blobs
 * @returns {unknown}
 */
function out(value, blobs) {
  if (value instanceof Uint8Array) {
    blobs.push(value);
    return { $b: blobs.length - 1 };
  }
  if (value instanceof Fingerprint) return { $fp: value.toHex() };
  if (Array.isArray(value)) return value.map((v) => out(v, blobs));
  if (value && typeof value === 'object') {
    /** @type {Record<string, unknown>} */
    const o = {};
    for (const [k, v] of Object.entries(value)) o[k] = out(v, blobs);
    return o;
  }
  return value;
}

/**
 * @param {unknown} value
 * @param {Uint8Array[]} blobs
 * @returns {unknown}
 */
function back(value, blobs) {
  if (Array.isArray(value)) return value.map((v) => back(v, blobs));
  if (value && typeof value === 'object') {
    const o = /** @type {Record<string, unknown>} */ (value);
    if (typeof o.$b === 'number') {
      const b = blobs[o.$b];
      if (!b) throw new MlsError('State', 'a group entry refers to a missing blob');
      return b;
    }
    if (typeof o.$fp === 'string') return new Fingerprint(fromHex(o.$fp));
    /** @type {Record<string, unknown>} */
    const r = {};
    for (const [k, v] of Object.entries(o)) r[k] = back(v, blobs);
    return r;
  }
  return value;
}

/**
 * @param {GroupRecord} record
 * @returns {Uint8Array}
 */
export function encodeGroupRecord(record) {
  /** @type {Uint8Array[]} */
  const blobs = [];
  const header = utf8(JSON.stringify({ v: FORMAT, r: out(record, blobs) }));
  let total = 4 + header.length + 4;
  for (const b of blobs) total += 4 + b.length;
  const w = new Writer(total);
  w.u32(header.length);
  w.bytes(header);
  w.u32(blobs.length);
  for (const b of blobs) {
    w.u32(b.length);
    w.bytes(b);
  }
  return w.finish();
}

/**
 * @param {Uint8Array} bytes
 * @returns {GroupRecord}
 */
export function decodeGroupRecord(bytes) {
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const n = view.getUint32(0);
    const header = JSON.parse(fromUtf8(bytes.subarray(4, 4 + n)));
    if (header.v !== FORMAT) throw new Error(`format ${header.v}`);
    let at = 4 + n;
    const count = view.getUint32(at);
    at += 4;
    /** @type {Uint8Array[]} */
    const blobs = [];
    for (let i = 0; i < count; i++) {
      const len = view.getUint32(at);
      blobs.push(bytes.slice(at + 4, at + 4 + len));
      at += 4 + len;
    }
    if (at !== bytes.length) throw new Error('trailing bytes');
    return /** @type {GroupRecord} */ (back(header.r, blobs));
  } catch (e) {
    if (e instanceof MlsError) throw e;
    throw new MlsError('State', `a group entry does not decode: ${e instanceof Error ? e.message : e}`, { cause: e });
  }
}

/**
 * The entry name of a group.
 * @param {Uint8Array} groupId
 */
export function groupEntry(groupId) {
  return `mls-group-${toHex(groupId)}`;
}
