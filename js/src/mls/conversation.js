// One MLS conversation of a device (docs/MLS.md §3, §5.2; Rust
// client/src/mls/conversation.rs): the group topic `mls.<group id hex>`
// processed strictly in offset order, each record once; the MLS state, the
// next offset and the delivered events written together, in one atomic
// write per fetch; messages sealed and saved before they are produced.
// Changing the group is commit.js.

import { equal, toHex } from '../bytes.js';
import { PublicKey } from '../crypto/identity.js';
import { randomBytes, sha256 } from '../crypto/webcrypto.js';
import { ClientError } from '../protocol/error.js';
import { Ack, Cleanup } from '../protocol/frame.js';
import { BatchBuilder } from '../protocol/record.js';
import { decodeContent, encodeText } from './content.js';
import { sameMember } from './credential.js';
import { addDevices, invite, leave, removeAccount, removeDevices, removeDroppedDevices, update } from './commit.js';
import { FETCH_BYTES, GROUP_RETENTION_MS, oneRecord, welcomeTopic } from './device.js';
import { MlsError } from './error.js';
import { RECENT, decodeGroupRecord, encodeGroupRecord, groupEntry, newGroupRecord } from './group-record.js';
import {
  authenticatorOf,
  decodeMessage,
  decodeState,
  encodeState,
  epochOf,
  isRemoved,
  join,
  leafKey,
  newGroup,
  newKeyPackage,
  ownLeaf,
  processRecord,
  rosterOf,
  seal,
  wipe,
} from './library.js';
import { newViewsState, sealViewsIfDue, sendViews, startViews, viewsReceived } from './views.js';

/** @import { ClientState } from 'ts-mls/clientState.js' */
/** @import { Device } from './device.js' */
/** @import { MemberId } from './credential.js' */
/** @import { GroupRecord, MlsEvent } from './group-record.js' */
/** @import { Record } from '../client/records.js' */
/**
 * A Welcome the device-list check refused (Rust's `WelcomeRefused`).
 * @typedef {{ offset: number, account: import('../crypto/identity.js').Fingerprint, device: import('../crypto/identity.js').Fingerprint, reason: string }} WelcomeRefused
 */
/**
 * What `acceptWelcomesReporting` did (Rust's `Welcomes`).
 * @typedef {{ joined: string[], refused: WelcomeRefused[] }} Welcomes
 */

/** How many unacknowledged events stop further processing. */
export const MAX_PENDING_EVENTS = 1024;
/** The prefix of group entries in the state. */
const GROUP_PREFIX = 'mls-group-';

/**
 * The group topic of a group id.
 * @param {Uint8Array} groupId
 */
export function groupTopic(groupId) {
  return `mls.${toHex(groupId)}`;
}

/**
 * @param {Uint8Array} bytes
 * @returns {Promise<string>}
 */
async function hashHex(bytes) {
  return toHex(await sha256(bytes));
}

/** One conversation of a device. Rust's `Conversation`. */
export class Conversation {
  /** @type {Device} */
  device;
  /** @type {GroupRecord} */
  record;
  /** @type {ClientState} */
  state;
  /** Leaf index → member, for the current epoch. @type {Map<number, MemberId>} */
  roster = new Map();
  /** @type {Set<string>} */
  #recent;
  /** The topic's end as last read. */
  end = 0;
  /** Events that happened while committing (also delivered). @type {MlsEvent[]} */
  #log = [];
  /** The views message's state (docs/MLS.md §4.7; views.js). */
  views = newViewsState();

  /**
   * @private
   * @param {Device} device
   * @param {GroupRecord} record
   * @param {ClientState} state
   */
  constructor(device, record, state) {
    this.device = device;
    this.record = record;
    this.state = state;
    this.#recent = new Set(record.recent);
    this.end = record.next;
  }

  /**
   * @param {Device} device
   * @param {GroupRecord} record
   * @param {ClientState} state
   */
  static async #from(device, record, state) {
    const c = new Conversation(device, record, state);
    c.roster = await rosterOf(state);
    startViews(c);
    return c;
  }

  /**
   * A new conversation with only this device in it, on a fresh topic
   * `mls.<32 random bytes, hex>`.
   * @param {Device} device
   * @returns {Promise<Conversation>}
   */
  static async create(device) {
    const groupId = randomBytes(32);
    const topic = groupTopic(groupId);
    await device.ensureTopic(topic, { partitions: 1, cleanup: Cleanup.Delete, retentionMs: GROUP_RETENTION_MS });
    const state = await newGroup(groupId, await newKeyPackage(device.signer), device.clientConfig());
    const record = newGroupRecord(groupId, topic, 0, Number(epochOf(state)));
    const c = await Conversation.#from(device, record, state);
    await c.save();
    return c;
  }

  /**
   * Opens a conversation this device has (by its topic).
   * @param {Device} device
   * @param {string} topic
   * @returns {Promise<Conversation>}
   * @throws {MlsError} code `UnknownConversation`
   */
  static async open(device, topic) {
    const m = /^mls\.([0-9a-f]{64})$/.exec(topic);
    const bytes = m ? await device.state.get(`${GROUP_PREFIX}${m[1]}`) : undefined;
    if (!bytes) throw new MlsError('UnknownConversation', `no conversation ${topic} in this device's state`, { topic });
    const record = decodeGroupRecord(bytes);
    return Conversation.#from(device, record, decodeState(record.state, device.clientConfig()));
  }

  /**
   * The topics of this device's conversations.
   * @param {Device} device
   * @returns {Promise<string[]>}
   */
  static async list(device) {
    return (await device.state.names(GROUP_PREFIX)).map((n) => `mls.${n.slice(GROUP_PREFIX.length)}`);
  }

  /**
   * Joins every conversation whose Welcome waits in this device's Welcome
   * topic, one fetch at a time (anyone may write to it), the cursor saved
   * with each; returns their topics. A Welcome not for this device, or for
   * a group it already follows, is skipped; one the device-list check
   * refuses too — `acceptWelcomesReporting` says which.
   * @param {Device} device
   * @param {{ maxWaitMs?: number }} [options] long-poll this long for a
   *   first Welcome when none waits
   * @returns {Promise<string[]>}
   */
  static async acceptWelcomes(device, options = {}) {
    return (await Conversation.acceptWelcomesReporting(device, options)).joined;
  }

  /**
   * Joins every conversation whose Welcome waits in this device's
   * `welcome.` topic, like `acceptWelcomes`, and says which Welcomes the
   * device-list check refused (docs/MLS.md §4.3): a leaf of the Welcome's
   * tree whose account's list cannot be had at its binding's version
   * (withheld, none published, not verifiable). A refused Welcome is not
   * retried: it is reported once.
   * @param {Device} device
   * @param {{ maxWaitMs?: number }} [options] long-poll this long for a
   *   first Welcome when none waits
   * @returns {Promise<Welcomes>}
   */
  static async acceptWelcomesReporting(device, options = {}) {
    const topic = welcomeTopic(device.fingerprint);
    let cursor = await device.welcomeCursor();
    /** @type {Welcomes} */
    const welcomes = { joined: [], refused: [] };
    let wait = options.maxWaitMs ?? 0;
    for (;;) {
      const got = await device.fetchFrom(topic, 0, cursor, wait);
      wait = 0;
      if (!got) return welcomes;
      const { r } = got;
      cursor = got.offset;
      let next = cursor;
      for (const rec of r.records(cursor)) {
        next = rec.offset + 1;
        const msg = decodeMessage(rec.value);
        if (!msg || msg.wireformat !== 'mls_welcome') continue;
        let joinedGroup;
        const config = device.clientConfig(true);
        try {
          // The tree's leaves pass the device-list check; existing members
          // no longer listed are let through and reported (docs/MLS.md §4.3).
          joinedGroup = await join(msg.welcome, device.held, config);
        } catch {
          // Refused by the device-list check (reported), or invalid, or
          // not for us (skipped).
          const noted = device.takeNoted(config);
          if (noted) welcomes.refused.push({ offset: rec.offset, ...noted });
          continue;
        }
        if (!joinedGroup || !joinedGroup.delivery) continue;
        const t = await Conversation.#adopt(device, joinedGroup.state, joinedGroup.delivery, joinedGroup.used);
        if (t) welcomes.joined.push(t);
      }
      if (next === cursor) return welcomes;
      await device.state.put([device.welcomeCursorEntry(next)]);
      cursor = next;
    }
  }

  /**
   * Waits up to `maxWaitMs` for a record in this device's Welcome topic
   * after the ones read (without joining: call `acceptWelcomes`); whether
   * there is one. Lets an application long-poll without holding the device.
   * @param {Device} device
   * @param {number} maxWaitMs
   * @returns {Promise<boolean>}
   */
  static async waitForWelcome(device, maxWaitMs) {
    const cursor = await device.welcomeCursor();
    try {
      const r = await device.client.fetch(welcomeTopic(device.fingerprint), 0, cursor, 1, maxWaitMs);
      return r.highWatermark > cursor;
    } catch (e) {
      if (e instanceof ClientError && e.status === 'UnknownTopic') return false;
      if (e instanceof ClientError && e.code === 'OffsetOutOfRange') return true;
      throw e;
    }
  }

  /**
   * Stores a group just joined, with the KeyPackages less the one used, in
   * one write.
   * @param {Device} device
   * @param {ClientState} state
   * @param {{ topic: string, start: number }} delivery
   * @param {import('./library.js').HeldKeyPackage} used
   * @returns {Promise<string | null>}
   */
  static async #adopt(device, state, delivery, used) {
    const groupId = state.groupContext.groupId;
    if (delivery.topic !== groupTopic(groupId)) return null;
    const existing = await device.state.get(groupEntry(groupId));
    // A group this device follows keeps its state; one it was removed from
    // is replaced: being re-added is the way back.
    if (existing && !decodeGroupRecord(existing).removed) return null;
    const record = newGroupRecord(groupId, delivery.topic, delivery.start, Number(epochOf(state)));
    const c = await Conversation.#from(device, record, { ...state, clientConfig: device.clientConfig() });
    for (const { member, listVersion } of c.unlistedMembers(() => true)) {
      c.#deliver({ type: 'deviceNotListed', offset: delivery.start, account: member.account, device: member.device, listVersion });
    }
    const held = device.held.filter((h) => h !== used);
    await c.save([device.heldEntry(held)]);
    device.setHeld(held);
    return delivery.topic;
  }

  /** The group topic. */
  get topic() {
    return this.record.topic;
  }

  /** The group's epoch. */
  get epoch() {
    return Number(epochOf(this.state));
  }

  /** The current epoch's authenticator (compare out of band). */
  get epochAuthenticator() {
    return authenticatorOf(this.state);
  }

  /** What stops the conversation: `fork`, `catchUp`, or null. */
  get stuck() {
    return this.record.stuck;
  }

  /** Whether this device was removed. */
  get removed() {
    return this.record.removed;
  }

  /** The members: one entry per device. @returns {MemberId[]} */
  get members() {
    return [...this.roster.values()];
  }

  /**
   * The members (those `which` selects) whose device the newest held list
   * of their account does not name, with that list's version.
   * @param {(m: MemberId) => boolean} which
   * @returns {Array<{ member: MemberId, listVersion: number }>}
   */
  unlistedMembers(which) {
    /** @type {Array<{ member: MemberId, listVersion: number }>} */
    const out = [];
    for (const [i, member] of this.roster) {
      if (!which(member)) continue;
      const list = this.device.heldList(member.account);
      const key = leafKey(this.state, i);
      if (list && key && !list.lists(key)) out.push({ member, listVersion: list.version });
    }
    return out;
  }

  /**
   * Writes the record (and `extra` entries) in one atomic write.
   * @param {Array<[string, Uint8Array|null]>} [extra]
   */
  async save(extra = []) {
    this.record.state = encodeState(this.state);
    this.record.recent = [...this.#recent];
    await this.device.state.put([[groupEntry(this.record.groupId), encodeGroupRecord(this.record)], ...extra]);
  }

  /** @param {string} hash */
  #remember(hash) {
    this.#recent.add(hash);
    if (this.#recent.size > RECENT) {
      const oldest = this.#recent.values().next().value;
      if (oldest !== undefined) this.#recent.delete(oldest);
    }
  }

  /**
   * Notes a record this device sent, so that reading it back skips it.
   * @param {Uint8Array} record
   */
  async rememberSent(record) {
    this.#remember(await hashHex(record));
  }

  /**
   * Invites an account: each device of its device list not yet a member,
   * one claimed KeyPackage each (commit.js).
   * @param {import('../crypto/identity.js').Fingerprint} account
   * @returns {Promise<import('./commit.js').CommitOutcome>}
   */
  invite(account) {
    return invite(this, account);
  }

  /**
   * Adds devices (a new device of a member's account) by their keys.
   * @param {import('../crypto/identity.js').PublicKey[]} devices
   * @returns {Promise<import('./commit.js').CommitOutcome>}
   */
  addDevices(devices) {
    return addDevices(this, devices);
  }

  /**
   * Removes devices by fingerprint.
   * @param {import('../crypto/identity.js').Fingerprint[]} devices
   * @returns {Promise<import('./commit.js').CommitOutcome>}
   */
  removeDevices(devices) {
    return removeDevices(this, devices);
  }

  /**
   * Removes every device of an account.
   * @param {import('../crypto/identity.js').Fingerprint} account
   * @returns {Promise<import('./commit.js').CommitOutcome>}
   */
  removeAccount(account) {
    return removeAccount(this, account);
  }

  /**
   * Commits a fresh leaf secret for this device (PCS).
   * @returns {Promise<import('./commit.js').CommitOutcome>}
   */
  update() {
    return update(this);
  }

  /**
   * Proposes this device's own removal; resolves to the Proposal's offset.
   * @returns {Promise<number>}
   */
  leave() {
    return leave(this);
  }

  /** Throws when the group cannot be used. */
  checkUsable() {
    if (this.record.removed) throw new MlsError('Removed', `this device was removed from the conversation ${this.topic}`, { topic: this.topic });
    if (this.record.stuck) {
      const why = this.record.stuck === 'fork' ? 'a suspected fork' : 'commits it needs are gone';
      throw new MlsError('Stuck', `the conversation ${this.topic} cannot go on (${why}): another member must re-add this device`, { topic: this.topic });
    }
  }

  /**
   * Sends one text message; resolves to its offset.
   * @param {string} text
   * @returns {Promise<number>}
   */
  async send(text) {
    return (await this.sendTexts([text]))[0];
  }

  /**
   * Seals the texts (saving the advanced state and the sealed records in
   * the outbox first: a crash never reuses a message key), then sends them
   * as one batch; resolves to their offsets.
   * @param {string[]} texts
   * @returns {Promise<number[]>}
   */
  async sendTexts(texts) {
    this.checkUsable();
    /** @type {Uint8Array[]} */
    const records = [];
    /** @type {Uint8Array[]} */
    const consumed = [];
    for (const text of texts) {
      const s = await seal(this.state, encodeText(text, Date.now()));
      this.state = s.state;
      records.push(s.record);
      consumed.push(...s.consumed);
      this.#remember(await hashHex(s.record));
    }
    this.record.outbox.push(...records);
    await this.save();
    wipe(consumed);
    return this.#produceOutbox();
  }

  /**
   * Sends what the outbox holds (identical bytes: readers skip a copy they
   * have); resolves to their offsets.
   * @returns {Promise<number[]>}
   */
  async resendOutbox() {
    if (this.record.outbox.length === 0) return [];
    return this.#produceOutbox();
  }

  async #produceOutbox() {
    const records = this.record.outbox;
    const b = new BatchBuilder();
    for (const r of records) b.push(r);
    const base = await this.device.client.produce(this.topic, 0, Ack.Durable, b.finish());
    // Acknowledged durable: the outbox may forget them (they are in `recent`).
    this.record.outbox = this.record.outbox.slice(records.length);
    await this.save();
    return records.map((_, i) => base + i);
  }

  /**
   * The events delivered and not yet acknowledged, first processing what
   * the topic holds when fewer than MAX_PENDING_EVENTS wait. The same
   * events come back until {@link Conversation.ack}.
   * @param {{ maxWaitMs?: number }} [options] long-poll for new records
   * @returns {Promise<MlsEvent[]>}
   */
  async receive(options = {}) {
    // A removed device goes on reading: what comes after its removal is
    // refused (it has no keys for it), which its user may want to see.
    if (this.record.delivered.length < MAX_PENDING_EVENTS && !this.record.stuck) {
      await this.fetchAndProcess(options.maxWaitMs ?? 0);
    }
    return [...this.record.delivered];
  }

  /**
   * Waits up to `maxWaitMs` for records after the ones processed (without
   * processing them: call `receive`); whether there are some. Lets an
   * application long-poll without holding the conversation busy.
   * @param {number} maxWaitMs
   * @returns {Promise<boolean>}
   */
  async wait(maxWaitMs) {
    const r = await this.device.client.fetch(this.topic, 0, this.record.next, 1, maxWaitMs);
    this.end = r.highWatermark;
    return r.highWatermark > this.record.next;
  }

  /**
   * Acknowledges the first `count` delivered events (default: all).
   * @param {number} [count]
   */
  async ack(count = this.record.delivered.length) {
    if (count <= 0) return;
    this.record.delivered = this.record.delivered.slice(count);
    await this.save();
  }

  /**
   * Processes the whole topic, to its end; then, on a device of an account
   * with a member device its account's newest list no longer names
   * (dropped), commits its Remove (docs/MLS.md §4.4).
   * @returns {Promise<void>}
   */
  async catchUp() {
    await this.catchUpRecords();
    await removeDroppedDevices(this);
  }

  /**
   * Processes the whole topic, to its end.
   * @returns {Promise<void>}
   */
  async catchUpRecords() {
    for (;;) {
      const before = this.record.next;
      await this.fetchAndProcess(0);
      if (this.record.stuck || this.record.next >= this.end || this.record.next === before) return;
    }
  }

  /**
   * One fetch from `next`, processed and saved in one write.
   * @param {number} maxWaitMs
   */
  async fetchAndProcess(maxWaitMs) {
    let r;
    try {
      r = await this.device.client.fetch(this.topic, 0, this.record.next, FETCH_BYTES, maxWaitMs);
    } catch (e) {
      if (e instanceof ClientError && e.code === 'OffsetOutOfRange' && e.logStart !== undefined && e.logStart > this.record.next) {
        await this.#stuckCatchUp(e.logStart);
        return;
      }
      throw e;
    }
    this.end = r.highWatermark;
    if (r.logStart > this.record.next) {
      await this.#stuckCatchUp(r.logStart);
      return;
    }
    /** @type {Uint8Array[]} */
    const consumed = [];
    let any = false;
    const firstNew = this.record.delivered.length;
    for (const rec of r.records(this.record.next)) {
      any = true;
      await this.#process(rec, consumed);
      this.record.next = rec.offset + 1;
      if (this.record.stuck) break;
    }
    // Our views, when due, are sealed into this same state write (after
    // the claims to check, when there are some).
    if (any) await this.#confirmDeviceRemovals(firstNew);
    const views = this.views.checks.length === 0 ? await sealViewsIfDue(this) : null;
    if (views) consumed.push(...views.consumed);
    if (any || views) {
      await this.save();
      wipe(consumed);
      await this.flushWelcomes();
    }
    await sendViews(this, views ? views.record : null, (e) => this.#deliver(e));
  }

  /**
   * Keeps the `deviceRemoved` candidates among the events from `from` on
   * whose device the account's newest list (fetched now) does not name,
   * with its version; the others become `memberRemoved`.
   * @param {number} from
   */
  async #confirmDeviceRemovals(from) {
    const events = this.record.delivered;
    for (let i = from; i < events.length; i++) {
      const e = events[i];
      if (e.type !== 'deviceRemoved' || e.listVersion !== 0) continue;
      let version = 0;
      try {
        const list = await this.device.deviceList(e.account);
        let named = false;
        for (const d of list.devices) if ((await PublicKey.fromSec1Bytes(d.key)).fingerprint().equals(e.device)) named = true;
        if (!named) version = list.version;
      } catch {
        version = 0;
      }
      const replaced = version
        ? { ...e, listVersion: version }
        : /** @type {MlsEvent} */ ({ type: 'memberRemoved', offset: e.offset, member: Object.freeze({ account: e.account, device: e.device }) });
      events[i] = replaced;
      const j = this.#log.indexOf(e);
      if (j >= 0) this.#log[j] = replaced;
    }
  }

  /** @param {number} logStart */
  async #stuckCatchUp(logStart) {
    this.#deliver({ type: 'catchUpImpossible', next: this.record.next, logStart });
    this.record.stuck = 'catchUp';
    await this.save();
  }

  /** @param {MlsEvent} event */
  #deliver(event) {
    this.record.delivered.push(event);
    this.#log.push(event);
  }

  /**
   * Events noted since the last call (for commit.js: `commitLost` etc.).
   * @returns {MlsEvent[]}
   */
  takeLog() {
    const l = this.#log;
    this.#log = [];
    return l;
  }

  /**
   * The roster events between two rosters. A removal committed by another
   * device of the removed device's account (`by`) is a `deviceRemoved`
   * candidate (list version 0 until `#confirmDeviceRemovals`).
   * @param {number} offset
   * @param {Map<number, MemberId>} before
   * @param {Map<number, MemberId>} after
   * @param {MemberId} [by] the committer
   * @param {number} [at] the Commit's time (ms)
   */
  #rosterEvents(offset, before, after, by, at = 0) {
    const count = this.record.delivered.length;
    for (const [i, m] of before) {
      const now = after.get(i);
      if (now && sameMember(now, m)) continue;
      if (by && by.account.equals(m.account) && !by.device.equals(m.device)) {
        this.#deliver({ type: 'deviceRemoved', offset, account: m.account, device: m.device, byDevice: by.device, at, listVersion: 0 });
      } else {
        this.#deliver({ type: 'memberRemoved', offset, member: m });
      }
    }
    for (const [i, m] of after) {
      const was = before.get(i);
      if (!was || !sameMember(was, m)) this.#deliver({ type: 'memberAdded', offset, member: m });
    }
    // Who is in the group changed: our views are due (§4.7).
    if (this.record.delivered.length > count) this.views.due = true;
  }

  /**
   * Processes one record of the topic (docs/MLS.md §3's table).
   * @param {Record} rec
   * @param {Uint8Array[]} consumed
   */
  async #process(rec, consumed) {
    const { offset, value } = rec;
    const at = Number(rec.timestampNs / 1_000_000n);
    const refuse = (/** @type {string} */ reason) => this.#deliver({ type: 'recordRefused', offset, reason });
    const pending = this.record.pending;
    if (pending && equal(value, pending.record)) {
      // Our own Commit, read back where it landed: its state is ours now.
      const before = this.roster;
      const me = before.get(ownLeaf(this.state));
      this.state = decodeState(pending.state, this.device.clientConfig());
      this.roster = await rosterOf(this.state);
      this.record.pending = null;
      this.#rosterEvents(offset, before, this.roster, me, at);
      this.#deliver({ type: 'epochChanged', offset, epoch: this.epoch, authenticator: this.epochAuthenticator });
      if (pending.welcome) {
        for (const to of pending.welcomeTo) this.record.welcomes.push({ to, welcome: pending.welcome });
      }
      this.#remember(await hashHex(value));
      return;
    }
    const hash = await hashHex(value);
    if (this.#recent.has(hash)) {
      // A producer's retry, or our own message read back.
      this.record.outbox = this.record.outbox.filter((o) => !equal(o, value));
      return;
    }
    this.#remember(hash);
    const msg = decodeMessage(value);
    if (!msg || msg.wireformat !== 'mls_private_message') return refuse('not an MLS PrivateMessage');
    const pm = msg.privateMessage;
    if (!equal(pm.groupId, this.record.groupId)) return refuse('a message of another group');
    if (pm.authenticatedData.length !== 0) return refuse('non-empty authenticated data');
    const current = epochOf(this.state);
    if (this.record.removed && (pm.epoch > current || pm.contentType !== 'application')) {
      return refuse(`this device was removed from the group: it has no keys for epoch ${pm.epoch}`);
    }
    if (pm.epoch > current) {
      this.record.stuck = 'fork';
      return this.#deliver({ type: 'forkSuspected', offset, epoch: Number(pm.epoch) });
    }
    if (pm.epoch < current && pm.contentType !== 'application') return; // lost its epoch's race
    if (pm.epoch < BigInt(this.record.firstEpoch)) return; // from before this device joined
    let result;
    const config = this.state.clientConfig;
    this.device.takeNoted(config, true);
    try {
      result = await processRecord(this.state, msg);
    } catch (e) {
      // A new leaf the device-list check refused: the Commit is invalid.
      const noted = this.device.takeNoted(config);
      if (noted) return this.#deliver({ type: 'leafRefused', offset, account: noted.account, device: noted.device, reason: noted.reason });
      return refuse(e instanceof Error ? e.message : String(e));
    }
    if (result.kind === 'undecryptable') {
      if (pm.epoch < current) return refuse('a message of a past epoch whose secrets are gone');
      if (this.record.removed) return refuse(`this device was removed from the group: it has no keys for epoch ${pm.epoch}`);
      // Of our own epoch and not for our secrets: members were shown
      // different logs (docs/MLS.md §3 "Forks").
      this.record.stuck = 'fork';
      return this.#deliver({ type: 'forkSuspected', offset, epoch: Number(pm.epoch) });
    }
    if (result.kind === 'refused') return refuse(result.reason);
    if (result.kind === 'application') {
      const sender = (pm.epoch === current ? this.roster : await rosterOf(result.state, pm.epoch)).get(result.sender);
      this.state = result.state;
      consumed.push(...result.consumed);
      if (!sender) return refuse('a message from an empty leaf');
      let content;
      try {
        content = decodeContent(result.data);
      } catch (e) {
        return refuse(e instanceof Error ? e.message : String(e));
      }
      if (content.kind === 'views') {
        for (const e of viewsReceived(this, offset, sender, content.views)) this.#deliver(e);
        return;
      }
      return this.#deliver({ type: 'message', offset, sender, sentAt: content.sentAt, text: content.text });
    }
    if (result.kind === 'proposal') {
      this.state = result.state;
      // A proposal changes what the next Commit must hold: ours is remade.
      this.#dropPending();
      return;
    }
    // Another member's Commit.
    const after = await rosterOf(result.state);
    for (const [i, m] of this.roster) {
      const now = after.get(i);
      // A leaf may change only by being removed (and its slot reused); an
      // Update keeps account and device (Rust's `valid_successor`).
      if (now && !sameMember(now, m) && !result.removed.includes(i)) return refuse('a leaf changed its account or device');
    }
    const before = this.roster;
    this.state = result.state;
    this.roster = after;
    consumed.push(...result.consumed);
    this.#dropPending();
    if (isRemoved(this.state)) {
      this.record.removed = true;
      return this.#deliver({ type: 'removed', offset });
    }
    this.#rosterEvents(offset, before, after, before.get(result.sender), at);
    this.#deliver({ type: 'epochChanged', offset, epoch: this.epoch, authenticator: this.epochAuthenticator });
  }

  #dropPending() {
    const p = this.record.pending;
    if (!p) return;
    this.record.pending = null;
    this.#deliver({ type: 'commitLost', epoch: p.epoch });
  }

  /** Sends the Welcomes waiting in the record (identical bytes on a retry). */
  async flushWelcomes() {
    while (this.record.welcomes.length > 0) {
      const { to, welcome } = this.record.welcomes[0];
      await this.device.client.produce(`welcome.${to}`, 0, Ack.Durable, oneRecord(new Uint8Array(0), welcome));
      this.record.welcomes.shift();
      await this.save();
    }
  }

  /** @returns {string} */
  toString() {
    return `Conversation(${this.topic}, epoch ${this.epoch}, next ${this.record.next})`;
  }
}
