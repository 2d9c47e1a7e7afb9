// Declarations of protocol/: the wire format (errors, status codes, names,
// hellos, record batches, frames).
// Part of the hand-written public API (../index.d.ts); test/types.test.mjs
// holds it to the code.

// ---- protocol/ (error, status, frame, record, hello, auth, topic, codec) ----

export type ClientErrorCode =
  | 'Connect' | 'ConnectionLost' | 'Timeout' | 'Protocol' | 'UnsupportedVersion' | 'OffsetOutOfRange'
  | 'EndMoved' | 'Broker' | 'AuthRequired' | 'AuthFailed' | 'CorruptBatch' | 'InvalidName' | 'RequestTooLarge'
  | 'InvalidArgument' | 'Closed' | 'BrokerIdChanged' | 'KnownBrokers' | 'StateAnchors' | 'StateDirectory';

/** Every error of the connection, producer and consumer. */
export class ClientError extends Error {
  constructor(
    code: ClientErrorCode,
    message: string,
    details?: {
      cause?: unknown; status?: string; statusCode?: number; logStart?: number; highWatermark?: number;
      end?: number; topic?: string; partition?: number; baseOffset?: number;
    },
  );
  readonly code: ClientErrorCode;
  /** The broker's status name when it refused the request. */
  readonly status?: string;
  readonly statusCode?: number;
  /** OffsetOutOfRange and EndMoved. */
  readonly logStart?: number;
  /** OffsetOutOfRange only. */
  readonly highWatermark?: number;
  /** EndMoved only: the log end, the offset the next record gets. */
  readonly end?: number;
  /** CorruptBatch only. */
  readonly topic?: string;
  readonly partition?: number;
  readonly baseOffset?: number;
  readonly retriable: boolean;
  readonly isAuth: boolean;
}

/** Bytes that break the protocol (code 'Protocol'). */
export class WireError extends ClientError {
  constructor(kind: string, message: string);
  readonly kind: string;
}

export const PROTOCOL_VERSION: 3;
export const U64_MAX: bigint;
export const Op: { readonly Produce: 1; readonly Fetch: 2; readonly Commit: 3; readonly Committed: 4; readonly Metadata: 5; readonly CreateTopic: 6; readonly DeleteTopic: 7; readonly Ping: 8; readonly Authenticate: 9; readonly ListTopics: 10; readonly ConditionalProduce: 11; readonly Claim: 12 };
/** Bytes of a claim id. */
export const CLAIM_ID_LEN: 16;
/** Most topics in one ListTopics page. */
export const MAX_LIST_LIMIT: 1000;
export const Ack: { readonly Written: 0; readonly Durable: 1 };
export const Cleanup: { readonly Delete: 0; readonly Compact: 1 };
export const BrokerFlags: { readonly AUTH_REQUIRED: 1; readonly AUTH_AVAILABLE: 2; readonly TLS: 4; readonly AUTHENTICATED: 8; readonly FETCH_MIN_BYTES: 16 };
export const STATUS_NAMES: readonly string[];
export const Status: { readonly [name: string]: number };

export interface PartitionMetadata {
  partition: number;
  logStart: number;
  highWatermark: number;
}
export interface TopicMetadata {
  name: string;
  cleanup: number;
  retentionMs: bigint;
  retentionBytes: bigint;
  partitions: PartitionMetadata[];
}
/** One page of a topic listing. */
export interface TopicPage {
  /** In name order; maybe none. */
  topics: TopicMetadata[];
  /** Pass as `after` for the next page; null: the listing is complete. */
  next: string | null;
}

export interface RecordHeader {
  baseOffset: number;
  crc: number;
  timestampNs: bigint;
  keyLen: number;
  payloadLen: number;
  recordCount: number;
}
export interface BatchView {
  header: RecordHeader;
  bytes: Uint8Array;
  key: Uint8Array;
  payload: Uint8Array;
  length: number;
}
export interface BrokerHello {
  version: number;
  maxFrame: number;
  flags: number;
  nonce: Uint8Array;
  brokerId: Uint8Array;
}
export interface ResponseFrame {
  correlationId: number;
  op: number;
  ok: boolean;
  body?: any;
  /** `bounds`: [logStart, highWatermark] for OffsetOutOfRange, [logStart, end] for EndMoved, else null. */
  error?: { status: string; statusCode: number; message: string; bounds: [number, number] | null };
}

export class BatchBuilder {
  constructor(key?: Uint8Array);
  readonly recordCount: number;
  readonly length: number;
  push(record: Uint8Array): void;
  finish(timestampNs?: bigint): Uint8Array;
  static tombstone(key: Uint8Array, timestampNs: bigint): Uint8Array;
}

export function nowNs(): bigint;
export function parseBatch(buf: Uint8Array, at?: number): BatchView;
export function verifyCrc(batch: BatchView): void;
export function batches(buf: Uint8Array): Generator<BatchView>;
export function records(payload: Uint8Array, count: number): Generator<Uint8Array>;
export function encodeClientHello(): Uint8Array;
export function decodeBrokerHello(buf: Uint8Array): BrokerHello;
/** Mechanism 1's transcript (unbound: can be relayed; refused where auth is required). */
export function authTranscript(nonce: Uint8Array, brokerId: Uint8Array, spki: Uint8Array): Uint8Array;
/** Mechanism 2's transcript: nonce, broker id, dialled name, channel binding, SPKI (protocol/src/auth.rs `transcript_bound`). */
export function authTranscriptBound(nonce: Uint8Array, brokerId: Uint8Array, name: string, channelBinding: Uint8Array, spki: Uint8Array): Uint8Array;
/** A host normalized as Rust's `DialledName` displays it (lowercase, no trailing dot, IPv6 without brackets, canonical IP); throws InvalidArgument. */
export function dialledName(host: string): string;
export function encodeRequest(correlationId: number, req: { op: string; [field: string]: unknown }): Uint8Array;
export function decodeResponse(frame: Uint8Array, maxFrame?: number): ResponseFrame;
export function topicNameError(name: string): string | null;
export function groupNameError(name: string): string | null;
/** Why `name` is not a valid ListTopics cursor (topic charset, `__` allowed), or null. */
export function cursorNameError(name: string): string | null;

// ---- protocol/crc32c.js -----------------------------------------------------

export function crc32c(bytes: Uint8Array, start?: number, end?: number): number;
export function crc32cUpdate(crc: number, bytes: Uint8Array, start?: number, end?: number): number;
