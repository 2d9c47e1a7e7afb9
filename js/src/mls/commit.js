// Changing the group (docs/MLS.md §3, §6.1; Rust client/src/mls/commit.rs):
// an intent (add these devices, remove these, update my leaf) becomes a
// Commit made only when the whole topic is processed, appended by
// conditional produce at the end this device read, and applied when read
// back in log order. When only application messages came in meanwhile the
// same Commit is sent again at the new end; when a Commit or Proposal came
// in, ours is dropped and the intent retried on the new epoch — or dropped
// when someone else's Commit fulfilled it.

import { equal } from '../bytes.js';
import { PublicKey } from '../crypto/identity.js';
import { Ack } from '../protocol/frame.js';
import { checkBoundLeaf } from './credential.js';
import { oneRecord } from './device.js';
import { MlsError } from './error.js';
import { commit, deliveryExtension, encodeState, proposeLeave, wipe } from './library.js';

/** @import { Fingerprint } from '../crypto/identity.js' */
/** @import { Conversation } from './conversation.js' */
/** @import { KeyPackage } from 'ts-mls/keyPackage.js' */
/** @import { Proposal } from 'ts-mls/proposal.js' */

/** How many conditional produces an intent may take before `CommitStalled`. */
export const MAX_COMMIT_ATTEMPTS = 64;
/** From this attempt on, a losing committer waits a random while first. */
const BACKOFF_FROM = 8;

/**
 * What a commit operation did: `committed` at `offset`, the group now at
 * `epoch`, after `attempts` conditional produces; or `alreadyDone` (other
 * members' Commits did it). Rust's `CommitOutcome`.
 * @typedef {{ outcome: 'committed', offset: number, epoch: number, attempts: number } | { outcome: 'alreadyDone' }} CommitOutcome
 */

/**
 * A device to add, with its claimed KeyPackage.
 * @typedef {{ device: Fingerprint, keyPackage: KeyPackage }} Claimed
 */

/**
 * @param {Conversation} c
 * @param {Fingerprint} device
 */
function leafOf(c, device) {
  for (const [i, m] of c.roster) if (m.device.equals(device)) return i;
  return undefined;
}

/**
 * Claims a KeyPackage for each device not yet a member.
 * @param {Conversation} c
 * @param {PublicKey[]} devices
 * @returns {Promise<Claimed[]>}
 */
async function claimFor(c, devices) {
  /** @type {Claimed[]} */
  const out = [];
  for (const key of devices) {
    const fp = key.fingerprint();
    if (leafOf(c, fp) !== undefined || out.some((a) => a.device.equals(fp))) continue;
    const keyPackage = await c.device.claimKeyPackage(key.toSec1(), fp);
    await checkListed(c, keyPackage, key);
    out.push({ device: fp, keyPackage });
  }
  return out;
}

/**
 * Checks a claimed KeyPackage's device against its account's device list at
 * the binding's version or newer (docs/MLS.md §4.1).
 * @param {Conversation} c
 * @param {KeyPackage} keyPackage
 * @param {PublicKey} key
 */
async function checkListed(c, keyPackage, key) {
  const { member, listVersion } = await checkBoundLeaf(keyPackage.leafNode.credential, keyPackage.leafNode.signaturePublicKey);
  const list = await c.device.ensureList(member.account, member.device, listVersion);
  if (!list.lists(key.toSec1())) {
    throw new MlsError(
      'NotListed',
      `device ${member.device.toHex()} is not on the device list of account ${member.account.toHex()} (version ${list.version}): its leaf is refused`,
      { account: member.account.toHex(), device: member.device.toHex() },
    );
  }
}

/**
 * The proposals still to make on the current epoch.
 * @param {Conversation} c
 * @param {{ adds: Claimed[], removes: Fingerprint[], update: boolean }} intent
 * @returns {{ proposals: Proposal[], welcomeTo: string[] } | null} null: nothing left to do
 */
function plan(c, intent) {
  /** @type {Proposal[]} */
  const proposals = [];
  /** @type {string[]} */
  const welcomeTo = [];
  for (const fp of intent.removes) {
    const leaf = leafOf(c, fp);
    if (leaf !== undefined) proposals.push({ proposalType: 'remove', remove: { removed: leaf } });
  }
  for (const a of intent.adds) {
    const leaf = leafOf(c, a.device);
    // Already in (someone else added it): dropped, unless this leaf is
    // being replaced by this Commit.
    if (leaf !== undefined && !intent.removes.some((r) => r.equals(a.device))) continue;
    proposals.push({ proposalType: 'add', add: { keyPackage: a.keyPackage } });
    welcomeTo.push(a.device.toHex());
  }
  if (proposals.length === 0 && !intent.update) return null;
  return { proposals, welcomeTo };
}

/**
 * Commits an intent (docs/MLS.md §3).
 * @param {Conversation} c
 * @param {{ adds: Claimed[], removes: Fingerprint[], update: boolean }} intent
 * @returns {Promise<CommitOutcome>}
 */
async function commitIntent(c, intent) {
  const client = c.device.client;
  let attempts = 0;
  while (attempts < MAX_COMMIT_ATTEMPTS) {
    if (attempts >= BACKOFF_FROM) await new Promise((r) => setTimeout(r, Math.random() * 10 * attempts));
    await c.catchUpRecords();
    c.checkUsable();
    const p = plan(c, intent);
    if (!p) return { outcome: 'alreadyDone' };
    let expected = c.record.next;
    const epoch = c.epoch;
    const made = await commit(c.state, p.proposals, p.welcomeTo.length ? deliveryExtension(c.topic, expected + 1) : null);
    c.record.pending = { record: made.record, state: encodeState(made.state), welcome: made.welcome, welcomeTo: p.welcomeTo, epoch };
    // Saved before it is sent: a crash between sends its Welcome later.
    await c.save();
    const batch = oneRecord(new Uint8Array(0), made.record);
    for (;;) {
      attempts++;
      const answer = await client.conditionalProduce(c.topic, 0, expected, batch, { ack: Ack.Durable });
      if (answer.outcome === 'appended') {
        await c.catchUpRecords();
        if (c.record.pending && equal(c.record.pending.record, made.record)) {
          throw new MlsError('Mls', `our Commit was appended at ${expected} but not read back there`, { topic: c.topic });
        }
        wipe(made.consumed);
        await c.flushWelcomes();
        return { outcome: 'committed', offset: expected, epoch: c.epoch, attempts };
      }
      // The end moved: read what came in.
      await c.catchUpRecords();
      if (!c.record.pending || attempts >= MAX_COMMIT_ATTEMPTS) break; // a Commit or Proposal came in: remake
      expected = c.record.next; // only application messages: the same Commit at the new end
    }
  }
  throw new MlsError('CommitStalled', `the commit did not land after ${attempts} attempts: others kept committing first; try again`, {
    topic: c.topic,
    attempts,
  });
}

/**
 * Invites an account: adds each device of its published device list not yet
 * a member, one claimed KeyPackage each.
 * @param {Conversation} c
 * @param {Fingerprint} account
 * @returns {Promise<CommitOutcome>}
 */
export async function invite(c, account) {
  const list = await c.device.deviceList(account);
  const keys = await Promise.all(list.devices.map((d) => PublicKey.fromSec1Bytes(d.key)));
  return addDevices(c, keys);
}

/**
 * Adds these devices (their keys), one claimed KeyPackage each; devices
 * already in the group are left out.
 * @param {Conversation} c
 * @param {PublicKey[]} devices
 * @returns {Promise<CommitOutcome>}
 */
export async function addDevices(c, devices) {
  c.checkUsable();
  await c.catchUp();
  const adds = await claimFor(c, devices);
  if (adds.length === 0) return { outcome: 'alreadyDone' };
  return commitIntent(c, { adds, removes: [], update: false });
}

/**
 * Removes these devices (by fingerprint).
 * @param {Conversation} c
 * @param {Fingerprint[]} devices
 * @returns {Promise<CommitOutcome>}
 */
export async function removeDevices(c, devices) {
  c.checkUsable();
  return commitIntent(c, { adds: [], removes: devices, update: false });
}

/**
 * Removes every device of an account.
 * @param {Conversation} c
 * @param {Fingerprint} account
 * @returns {Promise<CommitOutcome>}
 */
export async function removeAccount(c, account) {
  c.checkUsable();
  await c.catchUp();
  const devices = [...c.roster.values()].filter((m) => m.account.equals(account)).map((m) => m.device);
  return commitIntent(c, { adds: [], removes: devices, update: false });
}

/**
 * On a device of an account: removes the group's devices of that account
 * that its newest device list (fetched now) no longer names — dropped
 * devices (docs/MLS.md §4.4); never this device itself. Run by
 * `Conversation.catchUp`.
 * @param {Conversation} c
 * @returns {Promise<void>}
 */
export async function removeDroppedDevices(c) {
  if (c.removed || c.stuck) return;
  const account = c.device.account.fingerprint();
  const me = c.device.fingerprint;
  const mine = (/** @type {import('./credential.js').MemberId} */ m) => m.account.equals(account) && !m.device.equals(me);
  if (!c.members.some(mine)) return;
  try {
    await c.device.deviceList(account);
  } catch (e) {
    if (e instanceof MlsError && e.code === 'NoDeviceList') return;
    throw e;
  }
  const dropped = c.unlistedMembers(mine).map((u) => u.member.device);
  if (dropped.length > 0) await commitIntent(c, { adds: [], removes: dropped, update: false });
}

/**
 * Commits a fresh leaf secret for this device (post-compromise security).
 * @param {Conversation} c
 * @returns {Promise<CommitOutcome>}
 */
export async function update(c) {
  c.checkUsable();
  return commitIntent(c, { adds: [], removes: [], update: true });
}

/**
 * Leaves: sends a Remove Proposal for this device's own leaf, which the
 * next member to commit includes; `removed` follows when that Commit is read.
 * @param {Conversation} c
 * @returns {Promise<number>} the Proposal's offset
 */
export async function leave(c) {
  c.checkUsable();
  await c.catchUp();
  const p = await proposeLeave(c.state);
  c.state = p.state;
  c.record.outbox.push(p.record);
  await c.rememberSent(p.record);
  await c.save();
  return (await c.resendOutbox())[0];
}

