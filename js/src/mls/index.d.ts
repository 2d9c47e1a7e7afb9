// Types of `hermitmq/mls` (src/mls/index.js): MLS conversations on Web
// Crypto, the same API as the Rust SDK's `hermit_client::mls`
// (docs/MLS.md §11). test/mls-types.test.mjs holds the names to the code.

import type { Client } from '../types/client.js';
import type { Fingerprint, Identity, PublicKey } from '../types/crypto.js';

/** A member as its leaf names it: the account and the device. */
export interface MemberId {
  readonly account: Fingerprint;
  readonly device: Fingerprint;
}

/** What a conversation tells its application, in log order (Rust's `Event`). */
export type MlsEvent =
  | { type: 'message'; offset: number; sender: MemberId; sentAt: number; text: string }
  | { type: 'memberAdded'; offset: number; member: MemberId }
  | { type: 'memberRemoved'; offset: number; member: MemberId }
  | { type: 'epochChanged'; offset: number; epoch: number; authenticator: Uint8Array }
  | { type: 'commitLost'; epoch: number }
  | { type: 'removed'; offset: number }
  | { type: 'recordRefused'; offset: number; reason: string }
  | { type: 'forkSuspected'; offset: number; epoch: number }
  | { type: 'catchUpImpossible'; next: number; logStart: number }
  /** Error tier (docs/MLS.md §4.7): `member` holds version `version` of `account`'s device list, this device `seen` (equal: another list with one version; lower: a newer list withheld from this device; 0: none served). */
  | { type: 'splitView'; offset: number; account: Fingerprint; member: MemberId; version: number; seen: number }
  | { type: 'leafRefused'; offset: number; account: Fingerprint; device: Fingerprint; reason: string }
  | { type: 'deviceNotListed'; offset: number; account: Fingerprint; device: Fingerprint; listVersion: number }
  | { type: 'deviceRemoved'; offset: number; account: Fingerprint; device: Fingerprint; byDevice: Fingerprint; at: number; listVersion: number };

/** A Welcome refused because a leaf of its tree is not a listed device of its account at its binding's version: that list cannot be had (withheld, none published, not verifiable). Rust's `WelcomeRefused`. */
export interface WelcomeRefused {
  /** The Welcome's offset in this device's `welcome.` topic. */
  offset: number;
  /** The account the leaf's binding names. */
  account: Fingerprint;
  /** The leaf's device. */
  device: Fingerprint;
  /** Why, in words. */
  reason: string;
}

/** What `Conversation.acceptWelcomesReporting` did (Rust's `Welcomes`). */
export interface Welcomes {
  /** The topics of the conversations joined, in Welcome order. */
  joined: string[];
  /** The Welcomes the device-list check refused. */
  refused: WelcomeRefused[];
}

/** What a commit operation did (Rust's `CommitOutcome`). */
export type CommitOutcome = { outcome: 'committed'; offset: number; epoch: number; attempts: number } | { outcome: 'alreadyDone' };

/** Where a device's sealed state entries live; `put` is atomic. */
export interface StateStore {
  get(name: string): Promise<Uint8Array | undefined>;
  put(writes: Array<[string, Uint8Array | null]>): Promise<void>;
  names(prefix: string): Promise<string[]>;
}

export type MlsErrorCode =
  | 'Mls'
  | 'State'
  | 'NoDeviceList'
  | 'DeviceList'
  | 'DeviceListTooOld'
  | 'NotListed'
  | 'Binding'
  | 'NoKeyPackages'
  | 'BadKeyPackage'
  | 'CommitStalled'
  | 'Removed'
  | 'UnknownConversation'
  | 'Stuck'
  | 'Content'
  | 'Rotation'
  | 'Invalid';

/** Why a conversation operation failed. */
export class MlsError extends Error {
  constructor(code: MlsErrorCode, message: string, details?: { cause?: unknown; topic?: string; account?: string; device?: string; attempts?: number });
  readonly code: MlsErrorCode;
  readonly topic: string | undefined;
  readonly account: string | undefined;
  readonly device: string | undefined;
  readonly attempts: number | undefined;
}

/** Length of an encoded device binding. */
export const BINDING_LEN: number;

/** An account's binding of one device key (docs/MLS.md §4.1). */
export class DeviceBinding {
  private constructor();
  static issue(account: Identity, deviceKey: Uint8Array, listVersion: number, issuedAt?: number): Promise<DeviceBinding>;
  static fromBytes(bytes: Uint8Array): Promise<DeviceBinding>;
  readonly account: PublicKey;
  /** The version of the account's device list that first names the device. */
  readonly listVersion: number;
  readonly issuedAt: number;
  toBytes(): Uint8Array;
  verify(deviceKey: Uint8Array): Promise<void>;
}

/** One listed device. */
export interface ListedDevice {
  readonly key: Uint8Array;
  readonly addedAt: number;
}

/** The most devices one list holds. */
export const MAX_DEVICES: number;
/** The record key of the list in `dir.<account fp>`. */
export const DEVICES_KEY: Uint8Array;
/** An account's directory topic. */
export function directoryTopic(account: Fingerprint): string;
/** How old (ms) a device list is when it is flagged stale: 30 days. */
export const LIST_STALE_AFTER_MS: number;
/** How old (ms) the published list is when the account's device re-signs it: 7 days. */
export const LIST_RESIGN_AFTER_MS: number;

/** An account's signed list of its devices (docs/MLS.md §4.2). */
export class DeviceList {
  constructor(account: PublicKey, version: number, issuedAt: number, devices: ListedDevice[]);
  static verify(bytes: Uint8Array, account: Fingerprint, seen?: number | null): Promise<DeviceList>;
  readonly account: PublicKey;
  readonly version: number;
  readonly issuedAt: number;
  readonly devices: ReadonlyArray<ListedDevice>;
  lists(key: Uint8Array): boolean;
  /** Whether it was signed more than LIST_STALE_AFTER_MS before `now` (default: now). */
  isStale(now?: number): boolean;
  sign(account: Identity): Promise<Uint8Array>;
}

/** Length of an encoded rotation statement (271). */
export const ROTATION_LEN: number;
/** The record key of a rotation statement in `dir.<old account fp>`. */
export const ROTATION_KEY: Uint8Array;
/** How far past the reader's clock a rotation statement may be dated (ms); a later one is refused when read. */
export const ROTATION_MAX_SKEW_MS: number;

/** An account's statement, signed by its old and its new key, that its key changed (docs/MLS.md §4, account-key rotation). */
export class RotationStatement {
  private constructor();
  /** Signed by both identities; rejects with MlsError `Invalid` when they are one key. */
  static sign(oldIdentity: Identity, newIdentity: Identity, issuedAt?: number): Promise<RotationStatement>;
  /** Parses exactly one statement; rejects with MlsError `Rotation` otherwise. Not yet verified. */
  static decode(bytes: Uint8Array): Promise<RotationStatement>;
  /** decode, then verify against the pinned key. */
  static open(bytes: Uint8Array, pinned: PublicKey): Promise<RotationStatement>;
  readonly oldKey: PublicKey;
  readonly newKey: PublicKey;
  readonly issuedAt: number;
  encode(): Uint8Array;
  /** Rejects with MlsError `Rotation` unless the old key is `pinned`, the new key another, and both signatures verify. */
  verify(pinned: PublicKey): Promise<void>;
}

/** A device's KeyPackage topic. */
export function keyPackageTopic(device: Fingerprint): string;
/** A device's Welcome topic. */
export function welcomeTopic(device: Fingerprint): string;

/** One device of an account (Rust's `Device`). */
export class Device {
  private constructor();
  static open(client: Client, identity: Identity, store: StateStore, options?: { stateKey?: CryptoKey }): Promise<Device>;
  static storeBinding(identity: Identity, store: StateStore, binding: Uint8Array, options?: { stateKey?: CryptoKey }): Promise<void>;
  readonly client: Client;
  readonly identity: Identity;
  readonly binding: DeviceBinding;
  readonly fingerprint: Fingerprint;
  readonly account: PublicKey;
  readonly isAccount: boolean;
  readonly keyPackagesHeld: number;
  bind(deviceKey: PublicKey): Promise<Uint8Array>;
  publishKeyPackages(count?: number): Promise<number>;
  publishDeviceList(devices?: PublicKey[]): Promise<DeviceList>;
  /** Publishes the list when there is none, re-signs it when older than LIST_RESIGN_AFTER_MS; null when fresh. */
  refreshDeviceList(now?: number): Promise<DeviceList | null>;
  /** Publishes `newDevice`'s account list, then the rotation statement in this account's `dir.`. */
  publishRotation(newDevice: Device, issuedAt?: number): Promise<RotationStatement>;
  /** The newest rotation statement of the account pinned as `accountKey`, verified; null when none. */
  rotationOf(accountKey: PublicKey): Promise<RotationStatement | null>;
  deviceList(account: Fingerprint): Promise<DeviceList>;
  deviceListVersionSeen(account: Fingerprint): number | null;
  /** The newest version of `account`'s device list this device accepted and the SHA-256 of that list's bytes, or null. */
  deviceListSeen(account: Fingerprint): { version: number; digest: Uint8Array } | null;
  /** On the account's device: drops a device from the list, then removes it from this device's conversations; the list and the topics. */
  dropDevice(device: Fingerprint): Promise<{ list: DeviceList; removedFrom: string[] }>;
}

/** How many unacknowledged events stop further processing. */
export const MAX_PENDING_EVENTS: number;
/** How many conditional produces an intent may take. */
export const MAX_COMMIT_ATTEMPTS: number;
/** The group topic of a group id. */
export function groupTopic(groupId: Uint8Array): string;

/** One MLS conversation of a device (Rust's `Conversation`). Its methods must not run concurrently. */
export class Conversation {
  private constructor();
  static create(device: Device): Promise<Conversation>;
  static open(device: Device, topic: string): Promise<Conversation>;
  static list(device: Device): Promise<string[]>;
  /** The topics joined; a Welcome the device-list check refused is skipped (see `acceptWelcomesReporting`). */
  static acceptWelcomes(device: Device, options?: { maxWaitMs?: number }): Promise<string[]>;
  /** Like `acceptWelcomes`, and says which Welcomes the device-list check refused (docs/MLS.md §4.3). */
  static acceptWelcomesReporting(device: Device, options?: { maxWaitMs?: number }): Promise<Welcomes>;
  static waitForWelcome(device: Device, maxWaitMs: number): Promise<boolean>;
  readonly topic: string;
  readonly epoch: number;
  readonly epochAuthenticator: Uint8Array;
  readonly removed: boolean;
  readonly stuck: 'fork' | 'catchUp' | null;
  readonly members: MemberId[];
  send(text: string): Promise<number>;
  sendTexts(texts: string[]): Promise<number[]>;
  resendOutbox(): Promise<number[]>;
  receive(options?: { maxWaitMs?: number }): Promise<MlsEvent[]>;
  wait(maxWaitMs: number): Promise<boolean>;
  ack(count?: number): Promise<void>;
  catchUp(): Promise<void>;
  invite(account: Fingerprint): Promise<CommitOutcome>;
  addDevices(devices: PublicKey[]): Promise<CommitOutcome>;
  removeDevices(devices: Fingerprint[]): Promise<CommitOutcome>;
  removeAccount(account: Fingerprint): Promise<CommitOutcome>;
  update(): Promise<CommitOutcome>;
  leave(): Promise<number>;
}

/** Sealed entries in memory. */
export class MemoryStore implements StateStore {
  get(name: string): Promise<Uint8Array | undefined>;
  put(writes: Array<[string, Uint8Array | null]>): Promise<void>;
  names(prefix: string): Promise<string[]>;
}

/** Sealed entries in IndexedDB, one database per device (browsers). */
export class IndexedDbStore implements StateStore {
  private constructor();
  static open(device: Fingerprint): Promise<IndexedDbStore>;
  get(name: string): Promise<Uint8Array | undefined>;
  put(writes: Array<[string, Uint8Array | null]>): Promise<void>;
  names(prefix: string): Promise<string[]>;
  close(): void;
}

/** Holds the device's Web Lock until the returned function is called. */
export function holdDeviceLock(device: Fingerprint, options?: { onWait?: () => void }): Promise<() => void>;

/** The state key a device computes from its own key (as the Rust SDK). */
export function deviceStateKey(identity: Identity): Promise<CryptoKey>;

/** The one ciphersuite's number. */
export const CIPHER_SUITE: number;
/** The private GroupInfo extension type naming the topic and start offset. */
export const DELIVERY_EXTENSION: number;
/** KeyPackage lifetime in seconds. */
export const KEY_PACKAGE_LIFETIME_S: bigint;
/** Past epochs whose secrets are kept. */
export const PAST_EPOCHS: number;
