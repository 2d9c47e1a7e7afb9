// Hand-written declarations of the public API (keep in sync with the modules).

// ---- crypto/blind.js --------------------------------------------------------

export const BLINDED_KEY_LEN: 16;

/** A 16-byte blinded record key, safe to show the broker. */
export class BlindedKey {
  constructor(bytes: Uint8Array);
  asBytes(): Uint8Array;
  equals(other: BlindedKey): boolean;
  toHex(): string;
}

/** A blinding key K_conv (of a pair or group, used only to blind record keys). */
export class BlindingKey {
  private constructor();
  static pairwise(own: Identity, peer: PublicKey): Promise<BlindingKey>;
  static generateGroup(): Promise<BlindingKey>;
  static fromGroupSecret(secret: Uint8Array): Promise<BlindingKey>;
  /** Group keys only; throws KeyError kind NotExtractable for a pairwise key. */
  groupSecretBytes(): Uint8Array;
  blind(logicalKey: Uint8Array | string): Promise<BlindedKey>;
}

/** @deprecated Use `BlindingKey` ("conversation" is reserved for MLS conversations). */
export const ConversationKey: typeof BlindingKey;
/** @deprecated Use `BlindingKey`. */
export type ConversationKey = BlindingKey;

// ---- bytes.js ---------------------------------------------------------------

export class Base64Error extends Error {
  constructor(message: string);
  readonly code: 'HERMIT_BASE64';
}
export function toBase64(bytes: Uint8Array): string;
/** Canonical standard padded base64 only. */
export function fromBase64(text: string): Uint8Array;
export function utf8(text: string): Uint8Array;
/** Strict UTF-8 (fatal, BOM kept). */
export function fromUtf8(bytes: Uint8Array): string;
export function concat(...parts: Array<Uint8Array | number[]>): Uint8Array;
export function equal(a: Uint8Array, b: Uint8Array): boolean;
export function toHex(bytes: Uint8Array): string;
export function fromHex(text: string): Uint8Array;

// ---- crypto/compat.js -------------------------------------------------------

export class CompatMessage {
  constructor(iv: string, data: string);
  iv: string;
  data: string;
  toJson(): string;
  static fromJson(json: Uint8Array | string): CompatMessage;
}

/** Messages one ChatCrypto encrypts before refusing (2^30). */
export const COMPAT_LIMIT: number;

/** The browser article's ChatCrypto, counting its encryptions. */
export class ChatCrypto {
  constructor();
  init(myPrivateKey: CryptoKey, theirPublicKey: CryptoKey): Promise<this>;
  static create(own: Identity, peer: PublicKey): Promise<ChatCrypto>;
  /** Messages encrypted so far (including a restored count): persist it. */
  encryptions(): number;
  /** Restores a persisted count (counts only go up). */
  restoreEncryptions(count: number): void;
  /** Throws CompatError kind 'BudgetExhausted' after COMPAT_LIMIT messages. */
  encrypt(plaintext: string | Uint8Array): Promise<CompatMessage>;
  decrypt(data: string, iv: string): Promise<string>;
  decryptBytes(data: string, iv: string): Promise<Uint8Array>;
}

// ---- client/connection.js, client/records.js --------------------------------

export const SUBPROTOCOL: 'hermitmq.v3';
export const CLOSE_PROTOCOL_ERROR: 4002;
export const CLOSE_TIMEOUT: 4008;

/** What `connect` needs of an identity (an `Identity` has both). */
export interface AuthIdentity {
  spki(): Promise<Uint8Array>;
  signAuth(nonce: Uint8Array, brokerId: Uint8Array): Promise<Uint8Array>;
}

export interface ConnectOptions {
  /** Authenticate as this key when the broker offers or requires it. */
  identity?: AuthIdentity;
  /** Limit on any answer (a fetch gets its maxWaitMs on top); default 30 000. */
  timeoutMs?: number;
  /** Limit on upgrade + hello + Authenticate; default 5 000. */
  connectTimeoutMs?: number;
  /** Most requests in flight; default 512. */
  maxInFlight?: number;
  /** Largest response frame; default 128 MiB. */
  maxResponseBytes?: number;
  /** A WebSocket constructor; default globalThis.WebSocket, else the `ws` package. */
  WebSocket?: unknown;
  /** Extra options for the `ws` package (Node only). */
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

/** One WebSocket connection to a broker with pipelined requests. */
export class Client {
  private constructor();
  readonly url: string;
  /** Largest frame the broker accepts (after the length prefix). */
  readonly maxFrame: number;
  readonly brokerFlags: number;
  readonly brokerId: Uint8Array | null;
  /** SHA-256 of the identity's SPKI once authenticated, else null. */
  readonly principal: Uint8Array | null;
  readonly principalHex: string | null;
  readonly inFlight: number;
  readonly isClosed: boolean;
  /** Resolves with the close code and reason once the WebSocket closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  produce(topic: string, partition: number, ack: number, batch: Uint8Array): Promise<number>;
  fetch(topic: string, partition: number, offset: number, maxBytes?: number, maxWaitMs?: number): Promise<FetchResponse>;
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

// ---- protocol/crc32c.js -----------------------------------------------------

export function crc32c(bytes: Uint8Array, start?: number, end?: number): number;
export function crc32cUpdate(crc: number, bytes: Uint8Array, start?: number, end?: number): number;

// ---- crypto/errors.js -------------------------------------------------------

export type OpenErrorKind =
  | 'Truncated' | 'UnsupportedVersion' | 'UnknownMode' | 'ReservedFlags' | 'ReservedByte'
  | 'NoRecipients' | 'TooManyRecipients' | 'TopicTooLong' | 'Reflected' | 'UnknownSender'
  | 'NotForMe' | 'NotARecipient' | 'DuplicateEntry' | 'DirectAuthFailed' | 'WrapAuthFailed'
  | 'CkCommitMismatch' | 'PayloadAuthFailed' | 'Replayed' | 'TooOld' | 'UnknownSigner'
  | 'SignatureInvalid' | 'Unsigned' | 'BadPadding' | 'LegacyRefused' | 'LegacyMalformed'
  | 'LegacyAuthFailed';

export class OpenError extends Error {
  constructor(kind: OpenErrorKind, message: string, details?: { [detail: string]: unknown });
  readonly code: 'HERMIT_OPEN';
  readonly kind: OpenErrorKind;
  readonly need?: number;
  readonly have?: number;
  readonly found?: number;
  readonly flags?: number;
  readonly n?: number;
  readonly len?: number;
  readonly kid?: Kid;
  readonly recipient?: Kid;
  readonly seq?: bigint;
  readonly highest?: bigint;
}

export class TrustError extends Error {
  constructor(kind: 'OwnKey' | 'KidCollision', message: string, details?: { [detail: string]: unknown });
  readonly code: 'HERMIT_TRUST';
  readonly kind: 'OwnKey' | 'KidCollision';
  readonly kid?: Kid;
}

export type SealErrorKind =
  | 'TopicTooLong' | 'SelfRecipient' | 'NoRecipients' | 'TooManyRecipients'
  | 'DuplicateRecipient' | 'PlaintextTooLarge' | 'SeqExhausted' | 'SigningKeyIsIdentityKey';

export class SealError extends Error {
  constructor(kind: SealErrorKind, message: string, details?: { [detail: string]: unknown });
  readonly code: 'HERMIT_SEAL';
  readonly kind: SealErrorKind;
  readonly len?: number;
  readonly n?: number;
  readonly kid?: Kid;
}

export type CompatErrorKind = 'IvBase64' | 'DataBase64' | 'IvLength' | 'TruncatedTag' | 'Decrypt' | 'BudgetExhausted' | 'InvalidUtf8' | 'Json';

export class CompatError extends Error {
  constructor(kind: CompatErrorKind, message: string, details?: { [detail: string]: unknown });
  readonly code: 'HERMIT_COMPAT';
  readonly kind: CompatErrorKind;
  readonly len?: number;
  /** For BudgetExhausted: COMPAT_LIMIT. */
  readonly limit?: number;
  readonly reason?: string;
}

// ---- crypto/envelope.js -----------------------------------------------------

/** 56: header, recipient kid and IV before the ciphertext, the tag after it. */
export const DIRECT_OVERHEAD: number;
export const MAX_RECIPIENTS: 4096;
export const SIGNATURE_LEN: 64;

export type ModeName = 'direct' | 'multi';
export const Mode: { readonly Direct: 'direct'; readonly Multi: 'multi' };
export const Flags: { readonly SIGNED: 1; readonly PADDED: 2; readonly KNOWN: 3 };

export class Header {
  constructor(mode: ModeName, flags: number, sender: Kid, seq: bigint);
  mode: ModeName;
  flags: number;
  sender: Kid;
  seq: bigint;
  readonly signed: boolean;
  readonly padded: boolean;
  static parse(record: Uint8Array): Header;
  encode(): Uint8Array;
}

export interface DirectBody {
  recipient: Kid;
  prefix: Uint8Array;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  tag: Uint8Array;
  sealed: Uint8Array;
}

export interface MultiBody {
  prefix: Uint8Array;
  msgSalt: Uint8Array;
  ckCommit: Uint8Array;
  n: number;
  entries: Array<{ kidBytes: Uint8Array; wrapped: Uint8Array }>;
  entryBytes: Uint8Array;
  payload: Uint8Array;
}

export class RecordView {
  private constructor();
  header: Header;
  body: DirectBody | MultiBody;
  signedPart: Uint8Array;
  signature: Uint8Array | undefined;
  static parse(record: Uint8Array): RecordView;
}

// ---- crypto/identity.js -----------------------------------------------------

export const PKCS8_LEN: 138;
export const SPKI_LEN: 91;

export interface KeyOptions {
  /** Keep an exportable copy for toPkcs8 / KeyFile.wrap (default true). */
  extractable?: boolean;
}

export type KeyErrorKind = 'Base64' | 'InvalidPkcs8' | 'InvalidSpki' | 'InvalidPoint' | 'NotExtractable' | 'InvalidArgument';

export class KeyError extends Error {
  constructor(kind: KeyErrorKind, message: string, details?: { what?: string; len?: number; cause?: unknown });
  readonly code: 'HERMIT_KEY';
  readonly kind: KeyErrorKind;
  readonly what?: string;
  readonly len?: number;
}

export class Kid {
  constructor(bytes: Uint8Array);
  static fromBytes(bytes: Uint8Array): Kid;
  asBytes(): Uint8Array;
  equals(other: Kid): boolean;
  toHex(): string;
}

export class Fingerprint {
  constructor(bytes: Uint8Array);
  static fromBytes(bytes: Uint8Array): Fingerprint;
  asBytes(): Uint8Array;
  kid(): Kid;
  equals(other: Fingerprint): boolean;
  toHex(): string;
  /** 16 groups of 4 hex digits. */
  toString(): string;
}

export class PublicKey {
  private constructor();
  static fromCryptoKey(key: CryptoKey): Promise<PublicKey>;
  static fromSpki(der: Uint8Array): Promise<PublicKey>;
  static fromSpkiBase64(text: string): Promise<PublicKey>;
  static fromSec1Bytes(bytes: Uint8Array): Promise<PublicKey>;
  toSpki(): Uint8Array;
  toSpkiBase64(): string;
  fingerprint(): Fingerprint;
  kid(): Kid;
  readonly cryptoKey: CryptoKey;
  equals(other: PublicKey): boolean;
}

export class Identity {
  private constructor();
  static generate(options?: KeyOptions): Promise<Identity>;
  static fromPkcs8(der: Uint8Array, options?: KeyOptions): Promise<Identity>;
  static fromPkcs8Base64(text: string, options?: KeyOptions): Promise<Identity>;
  toPkcs8(): Promise<Uint8Array>;
  toPkcs8Base64(): Promise<string>;
  readonly extractable: boolean;
  readonly publicKey: PublicKey;
  fingerprint(): Fingerprint;
  kid(): Kid;
  /** The canonical 91-byte SPKI DER. */
  spki(): Promise<Uint8Array>;
  /** 64-byte raw r‖s ECDSA-P256-SHA256 over protocol/src/auth.rs's transcript. */
  signAuth(nonce: Uint8Array, brokerId: Uint8Array): Promise<Uint8Array>;
  equals(other: Identity): boolean;
}

// ---- crypto/keyfile.js ------------------------------------------------------

export type KeyFileErrorKind =
  | 'TooLarge' | 'Armor' | 'Base64' | 'Truncated' | 'BadMagic' | 'UnsupportedVersion'
  | 'UnsupportedKdf' | 'KdfParamOutOfRange' | 'KdfBelowFloor' | 'SaltLength'
  | 'UnsupportedAead' | 'NonceLength' | 'UnsupportedKeyType' | 'PublicKeyLength'
  | 'InvalidPublicKey' | 'CiphertextLength' | 'TrailingBytes' | 'WrongPasswordOrModified'
  | 'InvalidPrivateKey' | 'PublicKeyMismatch' | 'Kdf';

export class KeyFileError extends Error {
  constructor(kind: KeyFileErrorKind, message: string, details?: { [detail: string]: unknown });
  readonly code: 'HERMIT_KEYFILE';
  readonly kind: KeyFileErrorKind;
  /** KdfParamOutOfRange: which parameter, its value and its bounds. */
  readonly param?: string;
  readonly value?: number;
  readonly min?: number;
  readonly max?: number;
  /** Truncated. */
  readonly need?: number;
  readonly have?: number;
  /** UnsupportedVersion, UnsupportedKdf, UnsupportedAead, UnsupportedKeyType: the byte found. */
  readonly found?: number;
  /** SaltLength, NonceLength, PublicKeyLength, CiphertextLength, TooLarge. */
  readonly len?: number;
  /** TrailingBytes. */
  readonly extra?: number;
  /** Armor. */
  readonly reason?: string;
}

export class KdfParams {
  /** Within the caps and at or above the OWASP floor (19 MiB, t = 2). */
  constructor(mCostKib: number, tCost: number, pCost: number);
  static readonly RECOMMENDED: KdfParams;
  /** Tests only: within the caps, possibly below the floor. */
  static insecureForTests(mCostKib: number, tCost: number, pCost: number): KdfParams;
  readonly mCostKib: number;
  readonly tCost: number;
  readonly pCost: number;
}

export class KeyFile {
  private constructor();
  static wrap(identity: Identity, password: string | Uint8Array, params?: KdfParams): Promise<KeyFile>;
  static fromBytes(bytes: Uint8Array): Promise<KeyFile>;
  static fromArmor(text: string): Promise<KeyFile>;
  toBytes(): Uint8Array;
  toArmor(): string;
  readonly publicKey: PublicKey;
  kdfParams(): KdfParams;
  unlock(password: string | Uint8Array, options?: KeyOptions): Promise<Identity>;
  /** Tests only: no OWASP floor. */
  unlockInsecureForTests(password: string | Uint8Array, options?: KeyOptions): Promise<Identity>;
}

// ---- crypto/open.js ---------------------------------------------------------

export type OpenedModeName = 'direct' | 'multi' | 'legacy';
export const OpenedMode: { readonly Direct: 'direct'; readonly Multi: 'multi'; readonly Legacy: 'legacy' };

export interface Opened {
  sender: Fingerprint;
  mode: OpenedModeName;
  /** undefined for legacy records. */
  seq: bigint | undefined;
  signed: boolean;
  padded: boolean;
  gap: Gap | undefined;
  late: boolean;
  /** How the sender's replay window stood before this record. */
  window: WindowStartName;
  len: number;
}

export type WindowStartName = 'continued' | 'restored' | 'new' | 'unchecked';
export const WindowStart: { readonly Continued: 'continued'; readonly Restored: 'restored'; readonly New: 'new'; readonly Unchecked: 'unchecked' };

export class Opener {
  constructor(identity: Identity);
  readonly identity: Identity;
  trust(sender: PublicKey): Promise<void>;
  trustSigner(sender: PublicKey, signing: SigningPublicKey): Promise<void>;
  distrust(sender: Fingerprint): boolean;
  allowLegacy(allow: boolean): void;
  requireSignatures(require: boolean): void;
  highWater(topic: string, sender: Fingerprint): bigint | undefined;
  restoreHighWater(topic: string, sender: Fingerprint, highest: bigint): Promise<void>;
  /** Exactly the numbers `window` marks seen are then refused; the others in it open as late. */
  restoreWindow(topic: string, sender: Fingerprint, window: ReplayWindow): Promise<void>;
  /** Senders without a window are refused as TooOld at or below `floor` (floors only go up). */
  restoreFloor(topic: string, floor: bigint): void;
  floor(topic: string): bigint;
  open(topic: string, record: Uint8Array): Promise<{ opened: Opened; plaintext: Uint8Array }>;
}

// ---- crypto/pad.js ----------------------------------------------------------

export function padme(len: number): number;
export function paddedLen(len: number): number;

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

// ---- protocol/ (error, status, frame, record, hello, auth, topic, codec) ----

export type ClientErrorCode =
  | 'Connect' | 'ConnectionLost' | 'Timeout' | 'Protocol' | 'UnsupportedVersion' | 'OffsetOutOfRange'
  | 'Broker' | 'AuthRequired' | 'AuthFailed' | 'CorruptBatch' | 'InvalidName' | 'RequestTooLarge'
  | 'InvalidArgument' | 'Closed';

/** Every error of the connection, producer and consumer. */
export class ClientError extends Error {
  constructor(
    code: ClientErrorCode,
    message: string,
    details?: {
      cause?: unknown; status?: string; statusCode?: number; logStart?: number; highWatermark?: number;
      topic?: string; partition?: number; baseOffset?: number;
    },
  );
  readonly code: ClientErrorCode;
  /** The broker's status name when it refused the request. */
  readonly status?: string;
  readonly statusCode?: number;
  /** OffsetOutOfRange only. */
  readonly logStart?: number;
  readonly highWatermark?: number;
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
export const Op: { readonly Produce: 1; readonly Fetch: 2; readonly Commit: 3; readonly Committed: 4; readonly Metadata: 5; readonly CreateTopic: 6; readonly DeleteTopic: 7; readonly Ping: 8; readonly Authenticate: 9; readonly ListTopics: 10 };
/** Most topics in one ListTopics page. */
export const MAX_LIST_LIMIT: 1000;
export const Ack: { readonly Written: 0; readonly Durable: 1 };
export const Cleanup: { readonly Delete: 0; readonly Compact: 1 };
export const BrokerFlags: { readonly AUTH_REQUIRED: 1; readonly AUTH_AVAILABLE: 2; readonly TLS: 4; readonly AUTHENTICATED: 8 };
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
export function authTranscript(nonce: Uint8Array, brokerId: Uint8Array, spki: Uint8Array): Uint8Array;
export function encodeRequest(correlationId: number, req: { op: string; [field: string]: unknown }): Uint8Array;
export function decodeResponse(frame: Uint8Array, maxFrame?: number): ResponseFrame;
export function topicNameError(name: string): string | null;
export function groupNameError(name: string): string | null;
/** Why `name` is not a valid ListTopics cursor (topic charset, `__` allowed), or null. */
export function cursorNameError(name: string): string | null;

// ---- crypto/replay.js -------------------------------------------------------

export class Gap {
  constructor(first: bigint, last: bigint);
  first: bigint;
  last: bigint;
  len(): bigint;
  looksLikeRestart(): boolean;
}

/** Bytes of a persisted window bitmap (16 big-endian u64 words). */
export const BITMAP_LEN: number;

/** The replay window of one (topic, sender) stream, as persisted in a consumer state. */
export class ReplayWindow {
  private constructor();
  static startingWith(seq: bigint): ReplayWindow;
  /** `bitmap`: 128 bytes, bit `s mod 1024` in word `(s mod 1024) / 64` (big-endian), bit `(s mod 1024) mod 64`. */
  static fromParts(highest: bigint, bitmap: Uint8Array): ReplayWindow;
  readonly highest: bigint;
  bitmap(): Uint8Array;
  clone(): ReplayWindow;
  /** Record `seq` as seen: ahead moves the window, inside sets its bit, too old is ignored. */
  note(seq: bigint): void;
}

// ---- crypto/seal.js ---------------------------------------------------------

/** 2^30 DIRECT records per K_pair, then one-recipient MULTI. */
export const DIRECT_LIMIT: number;
export const MAX_PLAINTEXT_LEN: number;

export interface Sealed {
  record: Uint8Array;
  mode: ModeName;
  seq: bigint;
  len: number;
}

export class Sealer {
  constructor(identity: Identity);
  static create(identity: Identity): Promise<Sealer>;
  readonly identity: Identity;
  /** Padding is on by default. */
  setPadding(on: boolean): void;
  setSigningIdentity(signer: SigningIdentity | null): void;
  resumeTopic(topic: string, lastSeq: bigint): void;
  nextSeq(topic: string): bigint | undefined;
  directSeals(peer: Fingerprint): number;
  restoreDirectSeals(peer: PublicKey, count: number): void;
  forgetPeer(peer: Fingerprint): void;
  sealDirect(topic: string, recipient: PublicKey, plaintext: Uint8Array): Promise<Uint8Array>;
  sealDirectDetailed(topic: string, recipient: PublicKey, plaintext: Uint8Array): Promise<Sealed>;
  sealMulti(topic: string, recipients: PublicKey[], plaintext: Uint8Array): Promise<Uint8Array>;
  sealMultiDetailed(topic: string, recipients: PublicKey[], plaintext: Uint8Array): Promise<Sealed>;
}

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
  /** Held records per partition before the oldest is released. Default 1000. */
  maxHeld?: number;
  /** How long a record may hold the commit back. Default 3600000. */
  maxHeldAgeMs?: number;
}

export type StateOrigin = { kind: 'NotPersisted' } | { kind: 'Fresh' } | { kind: 'Restored'; senders: number; floor: bigint };

export class SealedConsumer implements AsyncIterable<OpenedRecord | SealedRecordError> {
  private constructor();
  /** Throws TrustError, StateError (kind 'Store'), ClientError. */
  static create(client: Client, identity: Identity, trusted: PublicKey[], topic: string, options?: SealedConsumerOptions): Promise<SealedConsumer>;
  stateOrigin(): StateOrigin;
  readonly topic: string;
  readonly identity: Identity;
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

// ---- crypto/state.js, sealed/state.js ---------------------------------------

export const STATE_MAGIC: Uint8Array;
export const MAX_STATE_LEN: number;
export const MAX_STATE_SENDERS: number;
export const MAX_BUDGET_PEERS: number;
export const BUDGET_KEY: Uint8Array;

export type StateErrorKind = 'Malformed' | 'AuthFailed' | 'Length' | 'Name' | 'Store';

export class StateError extends Error {
  constructor(kind: StateErrorKind, message: string, details?: { cause?: unknown; topic?: string; status?: string });
  readonly code: 'HERMIT_STATE';
  readonly kind: StateErrorKind;
  /** For Store: the state topic. */
  readonly topic?: string;
  /** For Store: the broker's status name when it refused. */
  readonly status?: string;
}

/** "HST1" ‖ iv ‖ AES-256-GCM(K_state, iv, aad, Padmé body) ‖ tag (docs/ENVELOPE.md §13). */
export function sealState(identity: Identity, topic: string, key: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>;
export function openState(identity: Identity, topic: string, key: Uint8Array, record: Uint8Array): Promise<Uint8Array>;
export function stateTopic(identity: Identity): string;
export function consumerKey(group: string, topic: string): Uint8Array;

export class ConsumerState {
  constructor();
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
  /** peer fingerprint hex → key and reserved count */
  peers: Map<string, { key: PublicKey; reserved: number }>;
  clone(): BudgetState;
  encode(): Uint8Array;
  static decode(bytes: Uint8Array): Promise<BudgetState | null>;
}

export class StateStore {
  private constructor();
  static open(client: Client, identity: Identity): Promise<StateStore>;
  readonly topic: string;
  load(logical: Uint8Array): Promise<Uint8Array | null>;
  save(logical: Uint8Array, plaintext: Uint8Array): Promise<void>;
}

// ---- crypto/signing.js ------------------------------------------------------

export class SigningPublicKey {
  private constructor();
  static fromSpki(der: Uint8Array): Promise<SigningPublicKey>;
  static fromSpkiBase64(text: string): Promise<SigningPublicKey>;
  toSpki(): Uint8Array;
  toSpkiBase64(): string;
  fingerprint(): Fingerprint;
  verify(signature: Uint8Array, message: Uint8Array): Promise<boolean>;
  equals(other: SigningPublicKey): boolean;
}

export class SigningIdentity {
  private constructor();
  static generate(options?: KeyOptions): Promise<SigningIdentity>;
  static fromPkcs8(der: Uint8Array, options?: KeyOptions): Promise<SigningIdentity>;
  static fromPkcs8Base64(text: string, options?: KeyOptions): Promise<SigningIdentity>;
  toPkcs8(): Promise<Uint8Array>;
  toPkcs8Base64(): Promise<string>;
  readonly publicKey: SigningPublicKey;
}
