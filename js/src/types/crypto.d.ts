// Declarations of crypto/: identities, key files, the envelope, sealing and
// opening, replay windows, signatures, blinded keys, padding, state records,
// the seed's ChatCrypto and the typed errors.
// Part of the hand-written public API (../index.d.ts); test/types.test.mjs
// holds it to the code.

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
  /** The uncompressed SEC1 point (65 bytes, `0x04‖x‖y`). */
  toSec1(): Uint8Array;
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
  /** Mechanism 2: 64-byte raw r‖s ECDSA-P256-SHA256 over protocol/src/auth.rs's `transcript_bound`; `name` normalized (`dialledName`), `channelBinding` empty or 32 bytes. */
  signAuthBound(nonce: Uint8Array, brokerId: Uint8Array, name: string, channelBinding: Uint8Array): Promise<Uint8Array>;
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

// ---- crypto/state.js --------------------------------------------------------

export const STATE_MAGIC: Uint8Array;
export const MAX_STATE_LEN: number;

export type StateErrorKind = 'Malformed' | 'AuthFailed' | 'Length' | 'Name' | 'Store' | 'StateRolledBack' | 'CommitRolledBack' | 'Anchor';

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
