// Declarations of client/: connect and Client, fetch responses, the producer
// and its partitioner, the consumer.
// Part of the hand-written public API (../index.d.ts); test/types.test.mjs
// holds it to the code.

import type { ClientError, TopicMetadata, TopicPage } from './protocol.js';

// ---- client/connection.js, client/records.js --------------------------------

export const SUBPROTOCOL: 'hermitmq.v3';
export const CLOSE_PROTOCOL_ERROR: 4002;
export const CLOSE_TIMEOUT: 4008;

/** What `connect` needs of an identity (an `Identity` has both). */
export interface AuthIdentity {
  spki(): Promise<Uint8Array>;
  /** Mechanism 2: sign the nonce, broker id, dialled name and channel binding. */
  signAuthBound(nonce: Uint8Array, brokerId: Uint8Array, name: string, channelBinding: Uint8Array): Promise<Uint8Array>;
}

/** Where a client pins broker ids by dialled name and port (Rust: `KnownBrokers`). */
export interface KnownBrokers {
  /** The broker id pinned for the name and port, if any. */
  get(name: string, port: number): Promise<Uint8Array | undefined>;
  /** Pin a broker id (called only when none is pinned). */
  set(name: string, port: number, brokerId: Uint8Array): Promise<void>;
  /** Where the pins are kept (a file's path), named in BrokerIdChanged. */
  readonly location?: string;
}

/**
 * Another broker id than the pinned one (code 'BrokerIdChanged'), or, on a
 * reconnect (`reconnect`), than the one the client's first connection saw;
 * nothing was signed.
 */
export class BrokerIdChanged extends ClientError {
  constructor(what: { name: string; port: number; pinned: Uint8Array; presented: Uint8Array; location?: string; reconnect?: boolean });
  readonly dialledName: string;
  readonly port: number;
  readonly pinned: Uint8Array;
  readonly presented: Uint8Array;
  readonly location: string;
  /** A reconnect found it: `pinned` is the first connection's broker id. */
  readonly reconnect: boolean;
}

/** The dialled name and port of a ws:/wss: URL (the port defaults to 80 / 443). */
export function dialledEndpoint(url: string): { name: string; port: number };

// ---- client/reconnect.js ----------------------------------------------------

/** The states of a client's connection (`Client.state`). */
export const ConnectionState: {
  readonly Connecting: 'connecting';
  readonly Connected: 'connected';
  readonly Disconnected: 'disconnected';
  readonly GaveUp: 'gave-up';
  readonly Closed: 'closed';
};
export type ConnectionStateName = 'connecting' | 'connected' | 'disconnected' | 'gave-up' | 'closed';

/**
 * A state change: `attempt` counts attempts since the connection was last
 * up; `reason` is why the connection or the attempt failed; `retryInMs`
 * when the next attempt starts.
 */
export type ConnectionStateChange =
  | { state: 'connecting'; attempt: number }
  | { state: 'connected'; attempt: number; connections: number }
  | { state: 'disconnected'; reason: ClientError; attempt: number; retryInMs: number }
  | { state: 'gave-up'; reason: ClientError }
  | { state: 'closed' };

export interface ReconnectOptions {
  /** Cap of the first wait after a drop (full jitter: uniform in [0, cap]); doubles per failed attempt. Default 100. */
  initialDelayMs?: number;
  /** Largest cap. Default 5000. */
  maxDelayMs?: number;
  /** Failed attempts in a row before giving up. Default Infinity (never). */
  maxAttempts?: number;
  /** A connection that lived this long resets the backoff; a younger death counts as a failed attempt. Default 1000. */
  stableAfterMs?: number;
}

// ---- client/connection.js (continued) ----------------------------------------

export interface ConnectOptions {
  /** Authenticate as this key (mechanism 2) when the broker offers or requires it, at every (re)connect. */
  identity?: AuthIdentity;
  /** Pin the broker id per dialled name and port: a changed id is refused (BrokerIdChanged) before anything is signed. */
  knownBrokers?: KnownBrokers;
  /** Reopen the connection when it dies (default true: never gives up); false: one connection. */
  reconnect?: boolean | ReconnectOptions;
  /** Told every state change from the first `connecting` on. */
  onStateChange?: (change: ConnectionStateChange) => void;
  /** Limit on any answer (a fetch gets its maxWaitMs on top); default 30 000. */
  timeoutMs?: number;
  /** Limit on upgrade + hello + Authenticate; default 5 000. */
  connectTimeoutMs?: number;
  /** Most requests in flight; default 512. */
  maxInFlight?: number;
  /** Largest response frame; default 128 MiB. */
  maxResponseBytes?: number;
  /** A WebSocket constructor; default the `ws` package in Node, else globalThis.WebSocket (then no channel binding). */
  WebSocket?: unknown;
  /** Extra options for the `ws` package (Node only); minVersion is always TLSv1.3, followRedirects always false. */
  wsOptions?: { [option: string]: unknown };
}

/** One record read from a partition. */
export interface Record {
  topic: string;
  partition: number;
  offset: number;
  /** ns since the Unix epoch. */
  timestampNs: bigint;
  /** The batch key (empty for none). */
  key: Uint8Array;
  value: Uint8Array;
}

export class FetchResponse {
  constructor(topic: string, partition: number, highWatermark: number, logStart: number, batches: Uint8Array);
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: number;
  readonly logStart: number;
  readonly batches: Uint8Array;
  nextOffset(): number | null;
  /** Records at or after fromOffset; throws ClientError CorruptBatch at a bad batch. */
  records(fromOffset?: number): Generator<Record>;
}

export interface TopicSettings {
  /** 1..=4096; default 1. */
  partitions?: number;
  cleanup?: number;
  /** 0 = broker default, U64_MAX = forever. */
  retentionMs?: number | bigint;
  retentionBytes?: number | bigint;
}

// ---- client/outcome.js ------------------------------------------------------

/**
 * The id of one claim: random, kept until the claim is answered; a retry
 * with the same id by the same principal gets the same batch.
 */
export class ClaimId {
  /** 16 bytes (copied); throws InvalidArgument otherwise. */
  constructor(bytes: Uint8Array);
  /** 16 bytes from crypto.getRandomValues. */
  static random(): ClaimId;
  /** From 32 hex digits (an id kept to retry after a restart). */
  static fromHex(hex: string): ClaimId;
  /** A copy of the 16 bytes. */
  asBytes(): Uint8Array;
  /** 32 lowercase hex digits. */
  toHex(): string;
  equals(other: ClaimId): boolean;
}

/** What a conditional produce did. */
export type Conditional =
  /** You were first: the batch's first record is at baseOffset, the expected end. */
  | { outcome: 'appended'; baseOffset: number }
  /** The log ends at `end`, not where expected; nothing was appended. */
  | { outcome: 'endMoved'; end: number };

/** One whole batch handed to this claimer and no other. */
export interface ClaimedBatch {
  outcome: 'claimed';
  /** Offset of the batch's first record. */
  offset: number;
  /** The offset after the batch: the partition's claim position now. */
  next: number;
  /** The batch as stored, header included. */
  batch: Uint8Array;
  /** Its records, the CRC checked before the first (throws ClientError CorruptBatch). */
  records(): Generator<Record>;
}

/** What a claim got: a batch, or nothing left (every durable batch is claimed). */
export type Claim = ClaimedBatch | { outcome: 'nothingLeft' };

/** A connection to a broker, reopened when it dies, with pipelined requests. */
export class Client {
  private constructor();
  readonly url: string;
  /** The connection's state. */
  readonly state: ConnectionStateName;
  /** Connections opened so far (1 until the first reconnect). */
  readonly connectionsOpened: number;
  /** Call `listener` on every state change; returns a function that stops it. */
  onStateChange(listener: (change: ConnectionStateChange) => void): () => void;
  /** Largest frame the broker accepts (after the length prefix). */
  readonly maxFrame: number;
  readonly brokerFlags: number;
  readonly brokerId: Uint8Array | null;
  /** SHA-256 of the identity's SPKI once authenticated, else null. */
  readonly principal: Uint8Array | null;
  readonly principalHex: string | null;
  readonly inFlight: number;
  /** Closed, or gave up reconnecting. */
  readonly isClosed: boolean;
  /** Resolves with the last WebSocket's close code and reason once the client is over. */
  readonly closed: Promise<{ code: number; reason: string }>;
  produce(topic: string, partition: number, ack: number, batch: Uint8Array): Promise<number>;
  /**
   * Append `batch` only if the log ends at `expectedEnd`; sent once, never
   * retried (a lost answer leaves the batch maybe appended). ack default Ack.Durable.
   */
  conditionalProduce(
    topic: string,
    partition: number,
    expectedEnd: number,
    batch: Uint8Array,
    opts?: { ack?: number | 'durable' | 'written' },
  ): Promise<Conditional>;
  /** Take the next unclaimed batch; retry a lost answer with the same claimId. */
  claim(topic: string, partition: number, claimId: ClaimId): Promise<Claim>;
  fetch(topic: string, partition: number, offset: number, maxBytes?: number, maxWaitMs?: number): Promise<FetchResponse>;
  /**
   * fetch with every parameter, among them minBytes (sent only to a broker
   * whose hello set BrokerFlags.FETCH_MIN_BYTES). Rust: Client::fetch_with.
   */
  fetchWith(topic: string, partition: number, offset: number, params?: FetchParams): Promise<FetchResponse>;
  commit(group: string, topic: string, partition: number, offset: number): Promise<void>;
  committed(group: string, topic: string, partition: number): Promise<number | null>;
  /** Every topic (one page at most: else PayloadTooLarge) or one. */
  metadata(topic?: string | null): Promise<TopicMetadata[]>;
  /** One page after the cursor `after` (null: from the first); `limit` 1..=1000, default 1000. */
  listTopics(opts?: { after?: string | null; limit?: number }): Promise<TopicPage>;
  /** Every topic the caller may describe, fetched one page at a time. */
  allTopics(opts?: { limit?: number }): AsyncGenerator<TopicMetadata, void, void>;
  createTopic(topic: string, settings?: TopicSettings): Promise<void>;
  deleteTopic(topic: string): Promise<void>;
  /** Round trip in ms. */
  ping(): Promise<number>;
  close(): Promise<void>;
}

/** What a fetch asks for past its offset (Client.fetchWith; Rust FetchParams). */
export interface FetchParams {
  /** Soft limit on the bytes returned; default 1 MiB (capped to the broker's frame limit). */
  maxBytes?: number;
  /** The longest the broker holds the fetch (nothing there, or fewer than minBytes); default 0. */
  maxWaitMs?: number;
  /** Hold the fetch until this many bytes of whole batches are there (capped by maxBytes); default 1: answer on any data. */
  minBytes?: number;
  /** With minBytes > 1: how long the broker may hold the fetch once some data is there (capped by maxWaitMs); default 0. */
  minWaitMs?: number;
}

/** Open a connection: hello v3, Authenticate with opts.identity when offered. */
export function connect(url: string, opts?: ConnectOptions): Promise<Client>;

// ---- client/consumer.js -----------------------------------------------------

export interface ConsumerOptions {
  group?: string | null;
  partitions?: number[] | null;
  /** Default 'committed'. */
  start?: 'committed' | 'earliest' | 'latest' | { offset: number };
  /** Start without a committed offset; default 'earliest'. */
  fallback?: 'earliest' | 'latest';
  /** Default 'earliest'. */
  reset?: 'earliest' | 'latest' | 'error';
  /** Default 1 MiB (capped to the broker's frame limit). */
  maxBytes?: number;
  /** Default 500. */
  maxWaitMs?: number;
  /** Min bytes of a fetch after an empty answer or a seek (1: answered on any data); default 1. */
  minBytes?: number;
  /** How long the broker may hold such a fetch once some data is there; default 5. */
  minWaitMs?: number;
  /** Min bytes of a streaming fetch (after an answer with records); 1 turns them off; default 65536. */
  streamMinBytes?: number;
  /** How long the broker may hold a streaming fetch once some data is there; default 2. */
  streamMinWaitMs?: number;
  /** Default 5000; null never. */
  autoCommitMs?: number | null;
  /** Default 100. */
  retryBackoffMs?: number;
}

export class Consumer implements AsyncIterable<Record> {
  private constructor();
  static create(client: Client, topic: string, options?: ConsumerOptions): Promise<Consumer>;
  readonly topic: string;
  position(partition: number): number | null;
  seek(partition: number, offset: number): void;
  tryNext(): Record | null;
  next(): Promise<Record>;
  [Symbol.asyncIterator](): AsyncGenerator<Record>;
  commit(): Promise<void>;
  committed(): Array<[number, number | null]>;
  close(): Promise<void>;
}

// ---- client/producer.js, client/partitioner.js ------------------------------

export function fnv1a32(bytes: Uint8Array): number;
export function partitionForKey(key: Uint8Array, partitions: number): number;

export interface ProducerOptions {
  /** Default Ack.Durable. */
  ack?: number | 'durable' | 'written';
  /** Default 5. */
  lingerMs?: number;
  /** Default 100. */
  batchRecords?: number;
  /** Default 256 KiB (capped to the broker's frame limit). */
  batchBytes?: number;
  /** Default 32 MiB. */
  bufferBytes?: number;
  /** Default 256. */
  maxInFlight?: number;
  /** How long after its batch closed a record may still be (re)sent; Infinity: as long as it takes. Default 120 000. */
  deliveryTimeoutMs?: number;
  /** Wait before resending a partition's failed batches. Default 100. */
  retryBackoffMs?: number;
}

export interface Delivered {
  partition: number;
  offset: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ClientError } | null;

export class Delivery {
  private constructor();
  readonly partition: number;
  readonly index: number;
  readonly delivered: Promise<Delivered>;
  tryResult(): Outcome<Delivered>;
}

export class Producer {
  constructor(client: Client, options?: ProducerOptions);
  readonly client: Client;
  readonly bufferedBytes: number;
  send(topic: string, key: Uint8Array | null, value: Uint8Array): Promise<Delivery>;
  flush(): Promise<void>;
  close(): Promise<void>;
}
