// A device of an account in MLS conversations (docs/MLS.md §4, §5; Rust
// client/src/mls/device.rs): its binding, its KeyPackages (published to
// `keypackages.<device fp>`: partition 0 claimed once per record, partition
// 1 the last-resort one), its account's device list in `dir.<account fp>`,
// its Welcome topic, and the state that holds them.

import { equal, fromHex, fromUtf8, utf8 } from '../bytes.js';
import { PublicKey } from '../crypto/identity.js';
import { ClaimId } from '../client/outcome.js';
import { ClientError } from '../protocol/error.js';
import { Ack, Cleanup } from '../protocol/frame.js';
import { BatchBuilder } from '../protocol/record.js';
import { DeviceBinding } from './binding.js';
import { RotationStatement, ROTATION_KEY, ROTATION_MAX_SKEW_MS } from '../trust/rotation.js';
import { checkBoundLeaf } from './credential.js';
import { DEVICES_KEY, DeviceList, LIST_RESIGN_AFTER_MS, directoryTopic, listDigest } from './device-list.js';
import { MlsError } from './error.js';
import { checkKeyPackage, decodeHeld, encodeHeld, newKeyPackage } from './library.js';
import { SealedStore, deviceStateKey } from './store.js';
import { CLIENT_CONFIG, KEY_PACKAGE_LIFETIME_S, signerHandle } from './suite.js';

/** @import { Client } from '../client/connection.js' */
/** @import { Fingerprint, Identity } from '../crypto/identity.js' */
/** @import { Record } from '../client/records.js' */
/** @import { HeldKeyPackage, LeafSigner } from './library.js' */
/** @import { StateStore } from './store.js' */

/** The state entry of the device's binding. */
export const BINDING_ENTRY = 'mls-binding';
/** The state entry of the KeyPackages' private keys. */
export const KEY_PACKAGES_ENTRY = 'mls-keypackages';
/** The state entry of the device-list memory (newest version accepted per account). */
export const DEVICE_LISTS_ENTRY = 'mls-device-lists';
/** The state entry holding the signed bytes of the list this account device published last. */
export const OWN_LIST_ENTRY = 'mls-own-device-list';
/** The state entry of the Welcome cursor. */
export const WELCOME_CURSOR_ENTRY = 'mls-welcome-cursor';
/** How long a group topic keeps records (ms): 30 days. */
export const GROUP_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** How long Welcomes wait (ms): 7 days. */
export const WELCOME_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** The most a topic read whole (a device list, a last-resort KeyPackage) may hold. */
export const MAX_SMALL_TOPIC = 16 << 20;
/** How much one fetch asks for. */
export const FETCH_BYTES = 1 << 20;

/**
 * A device's KeyPackage topic.
 * @param {Fingerprint} device
 */
export function keyPackageTopic(device) {
  return `keypackages.${device.toHex()}`;
}

/**
 * A device's Welcome topic.
 * @param {Fingerprint} device
 */
export function welcomeTopic(device) {
  return `welcome.${device.toHex()}`;
}

/**
 * One record batch of one record.
 * @param {Uint8Array} key
 * @param {Uint8Array} value
 */
export function oneRecord(key, value) {
  const b = new BatchBuilder(key);
  b.push(value);
  return b.finish();
}

/**
 * One device of an account: its key, its binding, its MLS state.
 * Rust's `Device`. Open it with {@link Device.open}.
 */
export class Device {
  /** @type {Client} */
  client;
  /** @type {Identity} */
  identity;
  /** @type {DeviceBinding} */
  binding;
  /** @type {SealedStore} */
  state;
  /** @type {LeafSigner} */
  signer;
  /** @type {HeldKeyPackage[]} */
  #held;
  /** Newest device list accepted per account (hex): version and SHA-256 (hex); kept in the state. @type {Map<string, { v: number, h: string }>} */
  #seen;
  /** The newest verified device list held per account (hex), for the leaf check. @type {Map<string, DeviceList>} */
  #lists = new Map();
  /** The last leaf the device-list check refused. @type {{ account: Fingerprint, device: Fingerprint, reason: string } | null} */
  /**
   * Per client configuration (so per conversation, or per Welcome being
   * joined): the leaf its device-list check refused last, or the transport
   * error it met instead (thrown by `takeNoted`). Conversations of one
   * device process at once (the chat page reads several), so one
   * conversation never takes another's.
   * @type {WeakMap<object, { noted?: { account: Fingerprint, device: Fingerprint, reason: string }, transport?: ClientError }>}
   */
  #notes = new WeakMap();

  /**
   * @private
   * @param {Client} client
   * @param {Identity} identity
   * @param {DeviceBinding} binding
   * @param {SealedStore} state
   * @param {LeafSigner} signer
   * @param {HeldKeyPackage[]} held
   * @param {Map<string, { v: number, h: string }>} seen
   */
  constructor(client, identity, binding, state, signer, held, seen) {
    this.client = client;
    this.identity = identity;
    this.binding = binding;
    this.state = state;
    this.signer = signer;
    this.#held = held;
    this.#seen = seen;
  }

  /**
   * Opens the device of `identity` over `client`, its state in `store`
   * (sealed under `stateKey`, by default the key the device computes from
   * its own key, as the Rust SDK does). On the account's own device the
   * binding is made on first open; another device must have stored one
   * (`Device.storeBinding`) first.
   * @param {Client} client
   * @param {Identity} identity
   * @param {StateStore} store
   * @param {{ stateKey?: CryptoKey }} [options]
   * @returns {Promise<Device>}
   */
  static async open(client, identity, store, options = {}) {
    const state = new SealedStore(store, options.stateKey ?? (await deviceStateKey(identity)));
    const key = identity.publicKey.toSec1();
    let bytes = await state.get(BINDING_ENTRY);
    if (bytes === undefined) {
      // The account's own device binds itself. Every list the account
      // signs names its own device (publishDeviceList keeps it, dropDevice
      // refuses it), so the first list naming it is version 1.
      const binding = await DeviceBinding.issue(identity, key, 1);
      bytes = binding.toBytes();
      await state.put([[BINDING_ENTRY, bytes]]);
    }
    const binding = await DeviceBinding.fromBytes(bytes);
    await binding.verify(key);
    const heldBytes = await state.get(KEY_PACKAGES_ENTRY);
    const held = heldBytes ? decodeHeld(heldBytes) : [];
    const signer = { binding: bytes, publicKey: key, handle: await signerHandle(identity) };
    const seen = await readSeen(state);
    return new Device(client, identity, binding, state, signer, held, seen);
  }

  /**
   * Stores the account's binding of this device (made on the account's
   * device with {@link Device.bind}) before the first open.
   * @param {Identity} identity
   * @param {StateStore} store
   * @param {Uint8Array} bindingBytes
   * @param {{ stateKey?: CryptoKey }} [options]
   */
  static async storeBinding(identity, store, bindingBytes, options = {}) {
    const binding = await DeviceBinding.fromBytes(bindingBytes);
    await binding.verify(identity.publicKey.toSec1());
    const state = new SealedStore(store, options.stateKey ?? (await deviceStateKey(identity)));
    await state.put([[BINDING_ENTRY, binding.toBytes()]]);
  }

  /**
   * On the account's device: publishes the device list naming another
   * device's key first (conditional produce: after a lost race it gets a
   * higher version), then returns the binding signed with the version
   * actually published (docs/MLS.md §4.1), to hand to that device
   * (`Device.storeBinding`).
   * @param {PublicKey} deviceKey
   * @returns {Promise<Uint8Array>}
   */
  async bind(deviceKey) {
    if (!this.isAccount) throw new MlsError('Invalid', "only the account's own device binds devices");
    const list = await this.publishDeviceList([deviceKey]);
    return (await DeviceBinding.issue(this.identity, deviceKey.toSec1(), list.version)).toBytes();
  }

  /**
   * On the account's device: drops `device` from the account's device list
   * (publishes a list without it), then removes it from every conversation
   * of this device where it has a leaf (docs/MLS.md §4.4).
   * @param {Fingerprint} device
   * @returns {Promise<{ list: DeviceList, removedFrom: string[] }>}
   */
  async dropDevice(device) {
    if (device.equals(this.fingerprint)) throw new MlsError('Invalid', "the account's own device cannot be dropped from its list");
    const keep = /** @type {Array<{ key: Uint8Array, addedAt: number }>} */ ([]);
    const list = await this.#changeDeviceList(async (listed) => {
      keep.length = 0;
      for (const d of listed) {
        const k = await PublicKey.fromSec1Bytes(d.key);
        if (!k.fingerprint().equals(device)) keep.push(d);
      }
      listed.splice(0, listed.length, ...keep);
    });
    // Imported here: conversation.js imports this module.
    const { Conversation } = await import('./conversation.js');
    /** @type {string[]} */
    const removedFrom = [];
    for (const topic of await Conversation.list(this)) {
      const c = await Conversation.open(this, topic);
      if (c.removed || !c.members.some((m) => m.device.equals(device))) continue;
      await c.catchUp();
      if (!c.members.some((m) => m.device.equals(device))) removedFrom.push(topic);
    }
    return { list, removedFrom };
  }

  /** This device's fingerprint (its principal, its topics' name). */
  get fingerprint() {
    return this.identity.fingerprint();
  }

  /** The account's public key. */
  get account() {
    return this.binding.account;
  }

  /** Whether this device holds the account key. */
  get isAccount() {
    return this.identity.publicKey.equals(this.binding.account);
  }

  /** How many KeyPackage private keys this device holds (the last-resort one included). */
  get keyPackagesHeld() {
    return this.#held.length;
  }

  /** @returns {HeldKeyPackage[]} */
  get held() {
    return this.#held;
  }

  /**
   * The state write that stores `held` as the device's KeyPackages.
   * @param {HeldKeyPackage[]} held
   * @returns {[string, Uint8Array]}
   */
  heldEntry(held) {
    return [KEY_PACKAGES_ENTRY, encodeHeld(held)];
  }

  /** @param {HeldKeyPackage[]} held */
  setHeld(held) {
    this.#held = held;
  }

  /**
   * Creates `topic` unless it exists.
   * @param {string} topic
   * @param {{ partitions?: number, cleanup?: number, retentionMs?: number }} settings
   */
  async ensureTopic(topic, settings) {
    try {
      await this.client.createTopic(topic, settings);
    } catch (e) {
      if (!(e instanceof ClientError && e.status === 'TopicExists')) throw e;
    }
  }

  /**
   * Publishes `count` KeyPackages (their private keys saved first) and a
   * fresh last-resort one; makes the device's Welcome topic; on the
   * account's own device, publishes its device list when it has none.
   * Returns how many private keys are held.
   * @param {number} [count]
   * @returns {Promise<number>}
   */
  async publishKeyPackages(count = 20) {
    await this.ensureTopic(welcomeTopic(this.fingerprint), { partitions: 1, cleanup: Cleanup.Delete, retentionMs: WELCOME_RETENTION_MS });
    const topic = keyPackageTopic(this.fingerprint);
    await this.ensureTopic(topic, { partitions: 2, cleanup: Cleanup.Delete, retentionMs: Number(KEY_PACKAGE_LIFETIME_S) * 1000 });
    const made = [];
    for (let i = 0; i <= count; i++) made.push(await newKeyPackage(this.signer));
    const held = [...this.#held, ...made];
    // The private keys reach the store before any KeyPackage is public.
    await this.state.put([this.heldEntry(held)]);
    this.#held = held;
    const lastResort = /** @type {(typeof made)[number]} */ (made.pop());
    for (const kp of made) await this.client.produce(topic, 0, Ack.Durable, oneRecord(new Uint8Array(0), kp.message));
    await this.client.produce(topic, 1, Ack.Durable, oneRecord(new Uint8Array(0), lastResort.message));
    // The account's own device lists itself once (as `hermit keypackages
    // publish`), and re-signs its list when the published one is old.
    if (this.isAccount) await this.refreshDeviceList();
    return held.length;
  }

  /**
   * On the account's device: publishes its device list when it has none,
   * or re-signs it — the same devices, version + 1, issued now — when the
   * published one was signed more than LIST_RESIGN_AFTER_MS (7 days) before
   * `now`, so readers can tell a fresh list from one a broker keeps serving
   * after withholding newer ones (LIST_STALE_AFTER_MS). Null when the
   * published list is fresh.
   * @param {number} [now] ms since the Unix epoch
   * @returns {Promise<DeviceList | null>}
   */
  async refreshDeviceList(now = Date.now()) {
    if (!this.isAccount) throw new MlsError('Invalid', "only the account's own device signs its device list");
    const records = await this.readAll(directoryTopic(this.fingerprint), 0);
    const current = await this.#ownNewestList(records);
    // The broker lost or withholds the list this device published: published again.
    const withheld = current !== null && (await this.#newestList(records, this.fingerprint).then(() => false, () => true));
    if (current && !withheld && now - current.issuedAt <= LIST_RESIGN_AFTER_MS) return null;
    return this.publishDeviceList();
  }

  /**
   * On the account's device: moves the account to the key of `newDevice`
   * (the new account's own device, on its own connection: only an account
   * writes its `dir.` topic). The new account's device list is published
   * first (`dir.<new fp>`, naming at least its device), then the statement,
   * signed by both keys, under record key `rotation` in this account's
   * `dir.<old fp>`, where contacts who pinned the old key find it.
   * @param {Device} newDevice
   * @param {number} [issuedAt] ms since the Unix epoch
   * @returns {Promise<RotationStatement>}
   * @throws {MlsError} code `Invalid` when this is not the account's device, `newDevice` not the new account's, or both are one account
   */
  async publishRotation(newDevice, issuedAt = Date.now()) {
    if (!this.isAccount) throw new MlsError('Invalid', "only the account's own device rotates its key");
    if (!(newDevice instanceof Device) || !newDevice.isAccount) throw new MlsError('Invalid', "a rotation names the new account's own device");
    if (newDevice.account.equals(this.account)) throw new MlsError('Invalid', 'an account rotates to another key, not its own');
    await newDevice.refreshDeviceList();
    const statement = await RotationStatement.sign(this.identity, newDevice.identity, issuedAt);
    const topic = directoryTopic(this.fingerprint);
    await this.ensureTopic(topic, { partitions: 1, cleanup: Cleanup.Compact });
    await this.client.produce(topic, 0, Ack.Durable, oneRecord(ROTATION_KEY, statement.encode()));
    return statement;
  }

  /**
   * The newest rotation statement in the directory topic of the account
   * whose key this device pinned (`accountKey`), checked against that key;
   * null when there is none.
   * @param {PublicKey} accountKey
   * @returns {Promise<RotationStatement | null>}
   * @throws {MlsError} code `Rotation` for a forged statement (signed by another key, not both keys', not about `accountKey`, malformed)
   */
  async rotationOf(accountKey) {
    const records = await this.readAll(directoryTopic(accountKey.fingerprint()), 0);
    for (let i = records.length - 1; i >= 0; i--) {
      if (!equal(records[i].key, ROTATION_KEY)) continue;
      const statement = await RotationStatement.open(records[i].value, accountKey);
      if (statement.issuedAt > Date.now() + ROTATION_MAX_SKEW_MS) {
        const account = accountKey.fingerprint().toHex();
        throw new MlsError('Rotation', `the rotation statement of ${account} is dated ${statement.issuedAt - Date.now()} ms after this device's clock: refused`, { account });
      }
      return statement;
    }
    return null;
  }

  /**
   * One fetch of `topic/partition` from `offset`, or from the log start
   * when retention passed `offset`: the response and the offset its records
   * start at; null when the topic does not exist.
   * @param {string} topic
   * @param {number} partition
   * @param {number} offset
   * @param {number} [maxWaitMs]
   * @returns {Promise<{ r: import('../client/records.js').FetchResponse, offset: number } | null>}
   */
  async fetchFrom(topic, partition, offset, maxWaitMs = 0) {
    for (;;) {
      try {
        const r = await this.client.fetch(topic, partition, offset, FETCH_BYTES, maxWaitMs);
        return { r, offset: Math.max(offset, r.logStart) };
      } catch (e) {
        if (e instanceof ClientError && e.status === 'UnknownTopic') return null;
        if (e instanceof ClientError && e.code === 'OffsetOutOfRange' && e.logStart !== undefined && e.logStart > offset) {
          offset = e.logStart;
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * Every record of a small topic partition (a device list, a last-resort
   * KeyPackage), refused past MAX_SMALL_TOPIC bytes.
   * @param {string} topic
   * @param {number} partition
   * @returns {Promise<Record[]>}
   */
  async readAll(topic, partition) {
    /** @type {Record[]} */
    const out = [];
    let offset = 0;
    let bytes = 0;
    for (;;) {
      const got = await this.fetchFrom(topic, partition, offset);
      if (!got) return out;
      const { r } = got;
      offset = got.offset;
      let moved = false;
      for (const rec of r.records(offset)) {
        bytes += rec.value.length + rec.key.length;
        if (bytes > MAX_SMALL_TOPIC) throw new MlsError('Invalid', `${topic} holds more than ${MAX_SMALL_TOPIC} bytes: refused`);
        out.push({ ...rec, key: Uint8Array.from(rec.key), value: Uint8Array.from(rec.value) });
        offset = rec.offset + 1;
        moved = true;
      }
      if (!moved || offset >= r.highWatermark) return out;
    }
  }

  /**
   * Publishes the account's device list with `devices` added to the newest
   * published one (this device always listed), by conditional produce,
   * re-read and re-applied when another list was written meanwhile.
   * @param {PublicKey[]} [devices]
   * @returns {Promise<DeviceList>}
   */
  async publishDeviceList(devices = []) {
    return this.#changeDeviceList(async (listed, now) => {
      for (const key of devices) {
        const sec1 = key.toSec1();
        if (!listed.some((d) => equal(d.key, sec1))) listed.push({ key: sec1, addedAt: now });
      }
    });
  }

  /**
   * Publishes the account's device list as `change` makes it from the
   * newest published one (this device always stays listed).
   * @param {(listed: Array<{ key: Uint8Array, addedAt: number }>, now: number) => Promise<void>} change
   * @returns {Promise<DeviceList>}
   */
  async #changeDeviceList(change) {
    if (!this.isAccount) throw new MlsError('Invalid', "only the account's own device signs its device list");
    const account = this.identity.fingerprint();
    const topic = directoryTopic(account);
    await this.ensureTopic(topic, { partitions: 1, cleanup: Cleanup.Compact });
    for (let attempt = 0; attempt < 64; attempt++) {
      const records = await this.readAll(topic, 0);
      const end = records.length ? records[records.length - 1].offset + 1 : 0;
      const current = await this.#ownNewestList(records);
      const listed = current ? current.devices.map((d) => ({ key: d.key, addedAt: d.addedAt })) : [];
      const now = Date.now();
      const own = this.identity.publicKey.toSec1();
      if (!listed.some((d) => equal(d.key, own))) listed.unshift({ key: own, addedAt: now });
      await change(listed, now);
      const list = new DeviceList(this.identity.publicKey, current ? current.version + 1 : 1, now, listed);
      const signed = await list.sign(this.identity);
      const batch = oneRecord(DEVICES_KEY, signed);
      const answer = await this.client.conditionalProduce(topic, 0, end, batch);
      if (answer.outcome === 'appended') {
        // The account's own list is in its memory too: its views (§4.7)
        // then say what it published.
        await this.#remember(account, list.version, signed);
        await this.state.put([[OWN_LIST_ENTRY, signed]]);
        this.#hold(list);
        return list;
      }
    }
    throw new MlsError('CommitStalled', 'the device list did not land after 64 attempts: try again', { attempts: 64 });
  }

  /**
   * The newest device list held for `account` (the leaf check's cache), or
   * undefined.
   * @param {Fingerprint} account
   * @returns {DeviceList | undefined}
   */
  heldList(account) {
    return this.#lists.get(account.toHex());
  }

  /**
   * Makes sure this device holds `account`'s device list at `version` or
   * newer for the leaf check (docs/MLS.md §4.1): fetched (through the
   * device-list memory) unless already held.
   * @param {Fingerprint} account
   * @param {Fingerprint} device the device whose leaf needs it
   * @param {number} version
   * @returns {Promise<DeviceList>}
   * @throws {MlsError} code `DeviceListTooOld` when the broker serves an older one
   */
  async ensureList(account, device, version) {
    const held = this.heldList(account);
    if (held && held.version >= version) return held;
    const list = await this.deviceList(account);
    if (list.version < version) {
      throw new MlsError(
        'DeviceListTooOld',
        `the device list of ${account.toHex()} is version ${list.version}, but device ${device.toHex()}'s binding names version ${version}: the newer list is withheld, the leaf is refused`,
        { account: account.toHex(), device: device.toHex() },
      );
    }
    return this.heldList(account) ?? list;
  }

  /**
   * The ts-mls client configuration of this device: its authService checks
   * each leaf's binding and that the account's device list, at the
   * binding's version or newer (fetched when not held), names the leaf's
   * key. With `tolerateUnlisted` (a Welcome's tree: existing members may
   * have been dropped and not yet removed) an unlisted key is let through
   * and reported by the conversation. The reason of the last refusal is
   * kept with this configuration for the conversation (`takeNoted`).
   * @param {boolean} [tolerateUnlisted]
   * @returns {import('ts-mls/clientConfig.js').ClientConfig}
   */
  clientConfig(tolerateUnlisted = false) {
    const device = this;
    const config = {
      ...CLIENT_CONFIG,
      authService: {
        /**
         * @param {import('ts-mls/credential.js').Credential} credential
         * @param {Uint8Array} signaturePublicKey
         */
        async validateCredential(credential, signaturePublicKey) {
          let bound;
          try {
            bound = await checkBoundLeaf(credential, signaturePublicKey);
          } catch {
            return false;
          }
          const { account, device: leaf } = bound.member;
          try {
            const list = await device.ensureList(account, leaf, bound.listVersion);
            if (list.lists(signaturePublicKey) || tolerateUnlisted) return true;
            device.#notes.set(config, {
              noted: {
                account,
                device: leaf,
                reason: `device ${leaf.toHex()} is not on the device list of account ${account.toHex()} (version ${list.version}): its leaf is refused`,
              },
            });
          } catch (e) {
            // The broker could not be asked (a transport error): not a
            // refusal — the caller throws it and tries the record again.
            if (e instanceof ClientError) device.#notes.set(config, { transport: e });
            else device.#notes.set(config, { noted: { account, device: leaf, reason: e instanceof Error ? e.message : String(e) } });
          }
          return false;
        },
      },
    };
    return config;
  }

  /**
   * The last leaf the device-list check refused, cleared. Throws (and
   * clears) the transport error the check met instead, if any: a list the
   * broker could not be asked for refuses nothing. `clearOnly`: forget
   * both without throwing (before a check).
   * @param {object} config the client configuration the check ran under (`clientConfig`)
   * @param {boolean} [clearOnly]
   * @returns {{ account: Fingerprint, device: Fingerprint, reason: string } | null}
   */
  takeNoted(config, clearOnly = false) {
    const n = this.#notes.get(config);
    this.#notes.delete(config);
    if (n?.transport && !clearOnly) throw n.transport;
    return n?.noted ?? null;
  }

  /**
   * The newest device list of `account`, checked; refused when older than
   * one this device saw.
   * @param {Fingerprint} account
   * @returns {Promise<DeviceList>}
   * @throws {MlsError} code `NoDeviceList` when it has none
   */
  async deviceList(account) {
    const list = await this.#newestList(await this.readAll(directoryTopic(account), 0), account);
    if (!list) {
      throw new MlsError('NoDeviceList', `the account ${account.toHex()} has published no device list: it must open its MLS device once before it can be invited`, {
        account: account.toHex(),
      });
    }
    return list;
  }

  /**
   * The newest version of `account`'s device list this device accepted
   * (trust on first use: the first list seen is accepted), or null.
   * @param {Fingerprint} account
   * @returns {number | null}
   */
  deviceListVersionSeen(account) {
    return this.#seen.get(account.toHex())?.v ?? null;
  }

  /**
   * The newest version of `account`'s device list this device accepted and
   * the SHA-256 of that list's bytes, or null (the views message, §4.7).
   * @param {Fingerprint} account
   * @returns {{ version: number, digest: Uint8Array } | null}
   */
  deviceListSeen(account) {
    const seen = this.#seen.get(account.toHex());
    return seen ? { version: seen.v, digest: fromHex(seen.h) } : null;
  }

  /**
   * Remembers `bytes` (a checked list, newer than the one accepted) as the
   * list accepted for `account`, in the state.
   * @param {Fingerprint} account
   * @param {number} version
   * @param {Uint8Array} bytes
   */
  async #remember(account, version, bytes) {
    this.#seen.set(account.toHex(), { v: version, h: await listDigest(bytes) });
    await this.state.put([[DEVICE_LISTS_ENTRY, utf8(JSON.stringify(Object.fromEntries(this.#seen)))]]);
  }

  /**
   * The newest device list among a `dir.` topic's records, checked: signed
   * by the account the topic names, neither older than nor different at
   * the version this device accepted for it (a newer one is remembered, in
   * the state). A list that was there and is gone is a rollback too.
   * @param {Record[]} records
   * @param {Fingerprint} account
   * @returns {Promise<DeviceList | null>}
   */
  async #newestList(records, account) {
    const seen = this.#seen.get(account.toHex());
    let record;
    for (let i = records.length - 1; i >= 0 && !record; i--) if (equal(records[i].key, DEVICES_KEY)) record = records[i];
    if (!record) {
      if (seen) throw rolledBack(account, 0, seen.v);
      return null;
    }
    const list = await DeviceList.verify(record.value, account, seen?.v ?? null);
    const digest = await listDigest(record.value);
    if (seen && list.version === seen.v) {
      if (digest !== seen.h) {
        throw new MlsError(
          'DeviceList',
          `the device list of ${account.toHex()} differs from the one this device accepted with the same version ${seen.v}: two lists with one version are refused (equivocation)`,
          { account: account.toHex() },
        );
      }
      this.#hold(list);
      return list;
    }
    await this.#remember(account, list.version, record.value);
    this.#hold(list);
    return list;
  }


  /**
   * On the account's device: the newest list of its own among a `dir.`
   * topic's records, as `#newestList` checks it — except that when the
   * broker lost or withholds it (none, or an older one: a replaced broker,
   * a rollback), this device goes on from the list it published last,
   * which it keeps in its state (`OWN_LIST_ENTRY`): it signed that one,
   * so the next version follows it and keeps its devices. Another list
   * with the version this device accepted (equivocation) is still refused.
   * @param {Record[]} records
   * @returns {Promise<DeviceList | null>}
   */
  async #ownNewestList(records) {
    const account = this.fingerprint;
    try {
      return await this.#newestList(records, account);
    } catch (e) {
      const kept = await this.state.get(OWN_LIST_ENTRY);
      if (!(e instanceof MlsError && e.code === 'DeviceList') || !kept) throw e;
      const own = await DeviceList.verify(kept, account, null);
      const seen = this.#seen.get(account.toHex());
      if (!seen || own.version !== seen.v) throw e;
      let served = null;
      for (let i = records.length - 1; i >= 0 && !served; i--) if (equal(records[i].key, DEVICES_KEY)) served = records[i];
      if (served && (await DeviceList.verify(served.value, account, null)).version >= own.version) throw e;
      this.#hold(own);
      return own;
    }
  }

  /**
   * Keeps `list` as the newest held for its account, unless a newer one is.
   * @param {DeviceList} list
   */
  #hold(list) {
    const key = list.account.fingerprint().toHex();
    const held = this.#lists.get(key);
    if (!held || held.version < list.version) this.#lists.set(key, list);
  }

  /**
   * Claims one KeyPackage of the device `deviceKey` (uncompressed SEC1):
   * the next of its claim sequence, else its last-resort one. Checked.
   * @param {Uint8Array} deviceKey
   * @param {Fingerprint} deviceFp
   * @returns {Promise<import('ts-mls/keyPackage.js').KeyPackage>}
   */
  async claimKeyPackage(deviceKey, deviceFp) {
    const topic = keyPackageTopic(deviceFp);
    /** @type {Uint8Array | null} */
    let bytes = null;
    try {
      const c = await this.client.claim(topic, 0, ClaimId.random());
      if (c.outcome === 'claimed') {
        for (const r of c.records()) {
          bytes = Uint8Array.from(r.value);
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof ClientError && e.status === 'UnknownTopic')) throw e;
    }
    if (bytes === null) {
      const last = (await this.readAll(topic, 1)).pop();
      if (!last) {
        throw new MlsError('NoKeyPackages', `the device ${deviceFp.toHex()} has no KeyPackages left: its owner must publish more`, { device: deviceFp.toHex() });
      }
      bytes = last.value;
    }
    try {
      return await checkKeyPackage(bytes, deviceKey);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new MlsError('BadKeyPackage', `the KeyPackage claimed for device ${deviceFp.toHex()} is invalid: ${why}`, { device: deviceFp.toHex(), cause: e });
    }
  }

  /** @returns {Promise<number>} the next offset of the Welcome topic to read */
  async welcomeCursor() {
    const b = await this.state.get(WELCOME_CURSOR_ENTRY);
    return b && b.length === 8 ? Number(new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0)) : 0;
  }

  /**
   * The state write that sets the Welcome cursor.
   * @param {number} next
   * @returns {[string, Uint8Array]}
   */
  welcomeCursorEntry(next) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(next));
    return [WELCOME_CURSOR_ENTRY, b];
  }

  /** @returns {string} */
  toString() {
    return `Device(${this.fingerprint.toHex()})`;
  }
}

/**
 * The device-list memory from the state, checked entry by entry.
 * @param {SealedStore} state
 * @returns {Promise<Map<string, { v: number, h: string }>>}
 */
async function readSeen(state) {
  const bytes = await state.get(DEVICE_LISTS_ENTRY);
  if (!bytes) return new Map();
  try {
    const entries = Object.entries(JSON.parse(fromUtf8(bytes)));
    for (const [fp, e] of entries) {
      if (!/^[0-9a-f]{64}$/.test(fp) || !Number.isSafeInteger(e?.v) || !/^[0-9a-f]{64}$/.test(e?.h)) throw new Error(`entry ${fp}`);
    }
    return new Map(entries);
  } catch (e) {
    throw new MlsError('State', `the device-list memory (${DEVICE_LISTS_ENTRY}) does not parse: ${e instanceof Error ? e.message : e}`, { cause: e });
  }
}

/**
 * @param {Fingerprint} account
 * @param {number} found
 * @param {number} seen
 */
function rolledBack(account, found, seen) {
  return new MlsError(
    'DeviceList',
    `the device list of ${account.toHex()} is version ${found}, older than version ${seen} already seen: a rolled-back list is refused`,
    { account: account.toHex() },
  );
}

