// Split views, first step (docs/MLS.md §4.7; Rust client/src/mls/views.rs,
// the same bytes and the same rules): members tell each other, inside the
// encrypted content of an ordinary application message, which device list
// they hold for each member account — its version and the SHA-256 of its
// signed bytes — so a broker that shows two members two lists for one
// account is noticed by both.
//
// The views body: u16 count (≤ MAX_VIEWS), then per account 32 account
// fp, u64 version, 32 SHA-256; accounts strictly ascending.
//
// A member sends its views after a Commit that adds or removes members,
// when a views message it read differs from what it holds, and when its
// device-list memory accepted a newer list of a member account; never the
// same views twice in one epoch, never with a Commit of its own pending.
// On receipt, per member account: the same version with another digest is
// a `splitView` event; a higher version (or one not held) is fetched
// through the memory, and a broker that still serves an older list is a
// split view too (withheld); a lower version is nothing.

import { equal } from '../bytes.js';
import { Fingerprint } from '../crypto/identity.js';
import { Ack } from '../protocol/frame.js';
import { Writer } from '../protocol/codec.js';
import { encodeViewsContent } from './content.js';
import { oneRecord } from './device.js';
import { MlsError } from './error.js';
import { seal, wipe } from './library.js';

/** @import { Conversation } from './conversation.js' */
/** @import { MemberId } from './credential.js' */
/** @import { MlsEvent } from './group-record.js' */

/** The most accounts one views message names (Rust `MAX_VIEWS`). */
export const MAX_VIEWS = 1024;
const VIEW_LEN = 32 + 8 + 32;

/**
 * The device list a member holds for one account (Rust `View`).
 * @typedef {{ account: Fingerprint, version: bigint, digest: Uint8Array }} View
 */

/**
 * A claim to check against the broker.
 * @typedef {{ offset: number, member: MemberId, view: View }} Check
 */

/**
 * What a conversation keeps (in memory) for its views.
 * @typedef {{ baseline: View[], sentEpoch: number | null, due: boolean, checks: Check[] }} ViewsState
 */

/** @param {string} why */
const bad = (why) => new MlsError('Content', `message content: a views message is malformed (${why})`);

/**
 * @param {Fingerprint} a
 * @param {Fingerprint} b
 */
function compare(a, b) {
  const x = a.asBytes();
  const y = b.asBytes();
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

/** @param {View[]} views */
const ascending = (views) => views.every((v, i) => i === 0 || compare(views[i - 1].account, v.account) < 0);

/**
 * The body of a views message.
 * @param {View[]} views in ascending account order
 * @returns {Uint8Array}
 * @throws {MlsError} code `Content`
 */
export function encodeViews(views) {
  if (views.length > MAX_VIEWS) throw bad('too many accounts');
  if (!ascending(views)) throw bad('accounts not in ascending order');
  const w = new Writer(2 + views.length * VIEW_LEN);
  w.u16(views.length);
  for (const v of views) {
    w.bytes(v.account.asBytes());
    w.u64(v.version);
    w.bytes(v.digest);
  }
  return w.finish();
}

/**
 * Parses a views body; bounds are checked before anything is allocated.
 * @param {Uint8Array} body
 * @returns {View[]}
 * @throws {MlsError} code `Content`
 */
export function decodeViews(body) {
  if (body.length < 2) throw bad('truncated');
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const count = dv.getUint16(0);
  if (count > MAX_VIEWS) throw bad('too many accounts');
  if (body.length !== 2 + count * VIEW_LEN) throw bad('not whole entries');
  /** @type {View[]} */
  const views = [];
  for (let at = 2; at < body.length; at += VIEW_LEN) {
    views.push({
      account: new Fingerprint(body.slice(at, at + 32)),
      version: dv.getBigUint64(at + 32),
      digest: body.slice(at + 40, at + VIEW_LEN),
    });
  }
  if (!ascending(views)) throw bad('accounts not in ascending order');
  return views;
}

/** @returns {ViewsState} */
export function newViewsState() {
  return { baseline: [], sentEpoch: null, due: false, checks: [] };
}

/**
 * @param {View} a
 * @param {View} b
 */
const sameView = (a, b) => a.account.equals(b.account) && a.version === b.version && equal(a.digest, b.digest);

/**
 * @param {View[]} a
 * @param {View[]} b
 */
const sameViews = (a, b) => a.length === b.length && a.every((v, i) => sameView(v, b[i]));

/**
 * The member accounts of the conversation, each once, ascending.
 * @param {Conversation} c
 * @returns {Fingerprint[]}
 */
function memberAccounts(c) {
  /** @type {Map<string, Fingerprint>} */
  const m = new Map();
  for (const id of c.roster.values()) m.set(id.account.toHex(), id.account);
  return [...m.values()].sort(compare);
}

/**
 * The device's views now: every member account whose list the device-list
 * memory holds, ascending.
 * @param {Conversation} c
 * @returns {View[]}
 */
export function currentViews(c) {
  /** @type {View[]} */
  const out = [];
  for (const account of memberAccounts(c)) {
    const seen = c.device.deviceListSeen(account);
    if (seen && out.length < MAX_VIEWS) out.push({ account, version: BigInt(seen.version), digest: seen.digest });
  }
  return out;
}

/**
 * What the device holds when a conversation is opened is what it has shown.
 * @param {Conversation} c
 */
export function startViews(c) {
  c.views.baseline = currentViews(c);
}

/**
 * Compares a views message `sender` sent at `offset` with the memory;
 * returns the split views found now (newer claims are checked later).
 * @param {Conversation} c
 * @param {number} offset
 * @param {MemberId} sender
 * @param {View[]} views
 * @returns {MlsEvent[]}
 */
export function viewsReceived(c, offset, sender, views) {
  const mine = currentViews(c);
  const members = memberAccounts(c);
  const theirs = views.filter((v) => members.some((m) => m.equals(v.account)));
  /** @type {MlsEvent[]} */
  const events = [];
  for (const view of theirs) {
    const seen = c.device.deviceListSeen(view.account);
    if (seen && BigInt(seen.version) === view.version) {
      if (!equal(seen.digest, view.digest)) {
        events.push({ type: 'splitView', offset, account: view.account, member: sender, version: Number(view.version), seen: seen.version });
      }
    } else if (!seen || BigInt(seen.version) < view.version) {
      c.views.checks.push({ offset, member: sender, view });
    }
  }
  // Views that differ from ours (either way) ask for ours.
  if (!sameViews(theirs, mine)) c.views.due = true;
  return events;
}

/**
 * Seals our views into the outbox when they are due (before the state
 * write that persists it); returns the record and the secrets to wipe.
 * @param {Conversation} c
 * @returns {Promise<{ record: Uint8Array, consumed: Uint8Array[] } | null>}
 */
export async function sealViewsIfDue(c) {
  if (c.record.removed || c.record.stuck || c.record.pending) return null;
  const now = currentViews(c);
  const changed = !sameViews(now, c.views.baseline);
  if (!(c.views.due || changed)) return null;
  if (now.length === 0 || (!changed && c.views.sentEpoch === c.epoch)) {
    c.views.due = false;
    return null;
  }
  let sealed;
  try {
    sealed = await seal(c.state, encodeViewsContent(now, Date.now()));
  } catch {
    return null; // the library refuses for now (proposals waiting): later
  }
  c.state = sealed.state;
  await c.rememberSent(sealed.record);
  c.record.outbox.push(sealed.record);
  c.views.baseline = now;
  c.views.sentEpoch = c.epoch;
  c.views.due = false;
  return { record: sealed.record, consumed: sealed.consumed };
}

/**
 * Produces a views record (saved already); out of the outbox with the next
 * write (a crash before it resends, and readers skip the copy).
 * @param {Conversation} c
 * @param {Uint8Array} record
 */
async function produce(c, record) {
  await c.device.client.produce(c.topic, 0, Ack.Durable, oneRecord(new Uint8Array(0), record));
  c.record.outbox = c.record.outbox.filter((o) => !equal(o, record));
}

/**
 * Produces `sealed` (if any), then checks the claims that need a list
 * fetched: their split views go to `deliver`, the state is saved, and our
 * views sent when due. A transport failure keeps the remaining claims.
 * @param {Conversation} c
 * @param {Uint8Array | null} sealed
 * @param {(event: MlsEvent) => void} deliver
 */
export async function sendViews(c, sealed, deliver) {
  if (sealed) await produce(c, sealed);
  if (c.views.checks.length === 0) return;
  const checks = c.views.checks;
  c.views.checks = [];
  /** @type {Set<string>} */
  const fetched = new Set();
  while (checks.length > 0) {
    const check = checks[0];
    const account = check.view.account;
    if (!fetched.has(account.toHex())) {
      try {
        await c.device.deviceList(account);
      } catch (e) {
        // A refused list (rolled back, another at our version, forged) or
        // none leaves the memory where it was; anything else is retried.
        if (!(e instanceof MlsError && (e.code === 'DeviceList' || e.code === 'NoDeviceList'))) {
          c.views.checks = checks;
          throw e;
        }
      }
      fetched.add(account.toHex());
    }
    checks.shift();
    const seen = c.device.deviceListSeen(account);
    const version = seen ? BigInt(seen.version) : 0n;
    if (version < check.view.version || (version === check.view.version && seen && !equal(seen.digest, check.view.digest))) {
      deliver({ type: 'splitView', offset: check.offset, account, member: check.member, version: Number(check.view.version), seen: seen ? seen.version : 0 });
    }
  }
  const again = await sealViewsIfDue(c);
  await c.save();
  if (again) {
    wipe(again.consumed);
    await produce(c, again.record);
  }
}
