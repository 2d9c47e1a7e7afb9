// Declarations of sealed/: the sealed producer and consumer, what the
// consumer returns per record, the state topic.
// Part of the hand-written public API (../index.d.ts); test/types.test.mjs
// holds it to the code.

import type { Client, ConsumerOptions, Delivered, Delivery, Outcome, Producer } from './client.js';
import type {
  BlindedKey,
  BlindingKey,
  Fingerprint,
  Gap,
  Identity,
  Kid,
  ModeName,
  OpenedModeName,
  OpenError,
  PublicKey,
  ReplayWindow,
  SigningIdentity,
  SigningPublicKey,
  WindowStartName,
} from './crypto.js';
import { StateError } from './crypto.js';

// ---- sealed/producer.js, sealed/consumer.js, sealed/record.js ---------------

export class SealedGroup {
  constructor(members: PublicKey[], key: BlindingKey);
  static generate(members: PublicKey[]): Promise<SealedGroup>;
  readonly members: PublicKey[];
  readonly key: BlindingKey;
  blind(logicalKey: Uint8Array | string): Promise<BlindedKey>;
  others(own: Fingerprint): PublicKey[];
}

export class SealedDelivery {
  private constructor();
  readonly delivery: Delivery;
  readonly seq: bigint;
  readonly mode: ModeName;
  readonly partition: number;
  readonly delivered: Promise<Delivered>;
  tryResult(): Outcome<Delivered>;
}

export interface SealedProducerOptions {
  /** Pad to a Padmé bucket. Default true. */
  padding?: boolean;
  signing?: SigningIdentity | null;
  /** Reserve DIRECT counts in the identity's state topic (BUDGET_RESERVE at a time). Default true. */
  persistBudgets?: boolean;
  /** Where this device anchors its budget state (docs/ENVELOPE.md §13): an older state is refused (StateRolledBack). Default none. */
  stateAnchors?: StateAnchors | null;
}

/** DIRECT records reserved per write of the budget state (65536). */
export const BUDGET_RESERVE: number;

export class SealedProducer {
  private constructor();
  static create(producer: Producer, identity: Identity, options?: SealedProducerOptions): Promise<SealedProducer>;
  readonly producer: Producer;
  readonly publicKey: PublicKey;
  /** One recipient: DIRECT; several: MULTI. key null: keyless. Throws SealError / ClientError. */
  send(topic: string, key: Uint8Array | string | null, plaintext: Uint8Array, recipients: PublicKey[]): Promise<SealedDelivery>;
  sendGroup(topic: string, group: SealedGroup, key: Uint8Array | string | null, plaintext: Uint8Array): Promise<SealedDelivery>;
  flush(): Promise<void>;
  nextSeq(topic: string): bigint | undefined;
  resumeTopic(topic: string, lastSeq: bigint): void;
  directSeals(peer: Fingerprint): number;
  restoreDirectSeals(peer: PublicKey, count: number): void;
  /** The DIRECT count this run may reach to `peer` before saving a new reservation. */
  reservedDirectSeals(peer: Fingerprint): number | undefined;
}

export class OpenedRecord {
  private constructor();
  readonly ok: true;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestampNs: bigint;
  /** The blinded batch key as stored. */
  readonly key: Uint8Array;
  readonly sender: Fingerprint;
  readonly seq: bigint | undefined;
  readonly mode: OpenedModeName;
  readonly gap: Gap | undefined;
  readonly late: boolean;
  readonly window: WindowStartName;
  readonly signed: boolean;
  readonly padded: boolean;
  readonly plaintext: Uint8Array;
  /** Strict UTF-8. */
  text(): string;
}

export class SealedRecordError extends Error {
  private constructor();
  readonly ok: false;
  readonly code: 'HERMIT_SEALED_RECORD';
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestampNs: bigint;
  readonly kind: 'NotForMe' | 'Open' | 'Released';
  readonly openError?: OpenError;
  readonly sender?: Kid;
  readonly own?: boolean;
  readonly mode?: ModeName;
  /** For Released: which bound released it. */
  readonly why?: { count: number } | { ageMs: number };
  isNotForMe(): boolean;
  holdsCommit(): boolean;
}

export interface SealedConsumerOptions extends ConsumerOptions {
  /** With a group: save the replay state before every commit, restore it at start. Default true. */
  persistState?: boolean;
  /**
   * Where this device anchors its sealed state (docs/ENVELOPE.md §13), written after the state's durable ack
   * and its commits; at start an older state is refused (StateRolledBack), a group commit below the anchored
   * state's offsets too (CommitRolledBack), a newer state accepted and the anchor moved up. Default none.
   */
  stateAnchors?: StateAnchors | null;
  /** Held records per partition before the oldest is released. Default 1000. */
  maxHeld?: number;
  /** How long a record may hold the commit back. Default 3600000. */
  maxHeldAgeMs?: number;
  /**
   * Records returned opened whose SHA-256 is remembered, so that an identical second copy (a producer's retry)
   * is dropped quietly instead of refused as Replayed. Default 16384; 0 turns it off.
   */
  duplicateWindow?: number;
}

export type StateOrigin = { kind: 'NotPersisted' } | { kind: 'Fresh' } | { kind: 'Restored'; senders: number; floor: bigint };

export class SealedConsumer implements AsyncIterable<OpenedRecord | SealedRecordError> {
  private constructor();
  /** Throws TrustError, StateError (kind 'Store'), ClientError. */
  static create(client: Client, identity: Identity, trusted: PublicKey[], topic: string, options?: SealedConsumerOptions): Promise<SealedConsumer>;
  stateOrigin(): StateOrigin;
  readonly topic: string;
  readonly identity: Identity;
  /** Identical second copies of records returned before, dropped quietly. */
  readonly duplicatesDropped: number;
  trust(sender: PublicKey): Promise<void>;
  trustSigner(sender: PublicKey, signing: SigningPublicKey): Promise<void>;
  distrust(sender: Fingerprint): boolean;
  allowLegacy(allow: boolean): void;
  requireSignatures(require: boolean): void;
  highWater(sender: Fingerprint): bigint | undefined;
  restoreHighWater(sender: Fingerprint, seq: bigint): Promise<void>;
  /** Transport errors are thrown; per-record outcomes are returned. */
  next(): Promise<OpenedRecord | SealedRecordError>;
  [Symbol.asyncIterator](): AsyncGenerator<OpenedRecord | SealedRecordError>;
  ack(partition: number, offset: number): boolean;
  seek(partition: number, offset: number): void;
  position(partition: number): number | null;
  held(): Array<[number, number[]]>;
  committed(): Array<[number, number | null]>;
  /** With persistState, saves the replay state first (StateError if that fails: nothing is committed). */
  commit(): Promise<void>;
  close(): Promise<void>;
}

// ---- sealed/state.js --------------------------------------------------------

export const MAX_STATE_SENDERS: number;
export const MAX_BUDGET_PEERS: number;
export const BUDGET_KEY: Uint8Array;

export function stateTopic(identity: Identity): string;
export function consumerKey(group: string, topic: string): Uint8Array;

export class ConsumerState {
  constructor();
  /** One more than the state saved before it (0n: never saved, or read from format version 1). */
  generation: bigint;
  /** partition → next offset */
  committed: Map<number, number>;
  floor: bigint;
  /** sender fingerprint hex → its replay window (highest seq and which of the 1024 up to it were opened) */
  senders: Map<string, ReplayWindow>;
  clone(): ConsumerState;
  /** Record that `sender` (fingerprint hex) opened `seq` below the next commit. */
  note(sender: string, seq: bigint): void;
  bound(): void;
  encode(): Uint8Array;
  static decode(bytes: Uint8Array): ConsumerState | null;
}

export class BudgetState {
  constructor();
  /** As ConsumerState's. */
  generation: bigint;
  /** peer fingerprint hex → key and reserved count */
  peers: Map<string, { key: PublicKey; reserved: number }>;
  clone(): BudgetState;
  encode(): Uint8Array;
  static decode(bytes: Uint8Array): Promise<BudgetState | null>;
}

/** What is anchored for one state key: the newest generation written (acked durable) or accepted, and SHA-256 of its record. */
export interface StateAnchor {
  generation: bigint;
  record: Uint8Array;
}

/**
 * Where a client anchors its sealed state, out of the broker's reach, per broker URL and blinded key (32 hex
 * digits); `set` only moves an anchor up. Node: `StateAnchorsFile` (`hermitmq/node`); a browser: IndexedDB.
 */
export interface StateAnchors {
  get(broker: string, keyHex: string): Promise<StateAnchor | undefined> | StateAnchor | undefined;
  set(broker: string, keyHex: string, anchor: StateAnchor): Promise<void> | void;
  /** Where the anchors are kept, named in errors. */
  readonly location?: string;
}

/** How a loaded state stands against the anchor. */
export type Standing = 'Unanchored' | 'Ahead' | 'AtAnchor';

/** The broker served an older sealed state than this device wrote (docs/ENVELOPE.md §13). */
export class StateRolledBack extends StateError {
  constructor(d: { topic: string; anchored: bigint; found: bigint | null; location: string; line: string });
  readonly anchored: bigint;
  /** The generation served; null: none. */
  readonly found: bigint | null;
  readonly location: string;
  readonly line: string;
}

/** The broker's group commit is below the offsets of the state this device anchored. */
export class CommitRolledBack extends StateError {
  constructor(d: { topic: string; group: string; partition: number; committed: number | null; state: number; location: string; line: string });
  readonly group: string;
  readonly partition: number;
  readonly committed: number | null;
  readonly state: number;
  readonly location: string;
  readonly line: string;
}

export class StateStore {
  private constructor();
  static open(client: Client, identity: Identity, anchors?: StateAnchors | null): Promise<StateStore>;
  readonly topic: string;
  readonly anchored: boolean;
  anchorLocation(): string;
  anchorLine(logical: Uint8Array): Promise<string>;
  check(logical: Uint8Array, found: { generation: bigint; record: Uint8Array } | null): Promise<Standing>;
  anchor(logical: Uint8Array, generation: bigint, record: Uint8Array): Promise<void>;
  load(logical: Uint8Array): Promise<Uint8Array | null>;
  loadRecord(logical: Uint8Array): Promise<{ plaintext: Uint8Array; record: Uint8Array } | null>;
  /** Returns SHA-256 of the record written. */
  save(logical: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>;
}
