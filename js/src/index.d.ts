// Hand-written declarations of the public API (keep in sync with the modules).

// ---- blind.js ---------------------------------------------------------------

export const BLINDED_KEY_LEN: 16;

/** A 16-byte blinded record key, safe to show the broker. */
export class BlindedKey {
  constructor(bytes: Uint8Array);
  asBytes(): Uint8Array;
  equals(other: BlindedKey): boolean;
  toHex(): string;
}

/** A conversation key K_conv (pairwise key or group secret). */
export class ConversationKey {
  private constructor();
  static pairwise(own: Identity, peer: PublicKey): Promise<ConversationKey>;
  static generateGroup(): Promise<ConversationKey>;
  static fromGroupSecret(secret: Uint8Array): Promise<ConversationKey>;
  /** Group keys only; throws KeyError kind NotExtractable for a pairwise key. */
  groupSecretBytes(): Uint8Array;
  blind(logicalKey: Uint8Array | string): Promise<BlindedKey>;
}

// ---- bytes.js ---------------------------------------------------------------

export class Base64Error extends Error {
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

// ---- chat.js ----------------------------------------------------------------

export class CompatMessage {
  constructor(iv: string, data: string);
  iv: string;
  data: string;
  toJson(): string;
  static fromJson(json: Uint8Array | string): CompatMessage;
}

/** The browser article's ChatCrypto. */
export class ChatCrypto {
  constructor();
  init(myPrivateKey: CryptoKey, theirPublicKey: CryptoKey): Promise<this>;
  static create(own: Identity, peer: PublicKey): Promise<ChatCrypto>;
  encrypt(plaintext: string | Uint8Array): Promise<CompatMessage>;
  decrypt(data: string, iv: string): Promise<string>;
  decryptBytes(data: string, iv: string): Promise<Uint8Array>;
}

// ---- crypto-errors.js -------------------------------------------------------

export type OpenErrorKind =
  | 'Truncated' | 'UnsupportedVersion' | 'UnknownMode' | 'ReservedFlags' | 'ReservedByte'
  | 'NoRecipients' | 'TooManyRecipients' | 'TopicTooLong' | 'Reflected' | 'UnknownSender'
  | 'NotForMe' | 'NotARecipient' | 'DuplicateEntry' | 'DirectAuthFailed' | 'WrapAuthFailed'
  | 'CkCommitMismatch' | 'PayloadAuthFailed' | 'Replayed' | 'TooOld' | 'UnknownSigner'
  | 'SignatureInvalid' | 'Unsigned' | 'BadPadding' | 'LegacyRefused' | 'LegacyMalformed'
  | 'LegacyAuthFailed';

export class OpenError extends Error {
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
  readonly code: 'HERMIT_TRUST';
  readonly kind: 'OwnKey' | 'KidCollision';
  readonly kid?: Kid;
}

export class SealError extends Error {
  readonly code: 'HERMIT_SEAL';
  readonly kind:
    | 'TopicTooLong' | 'SelfRecipient' | 'NoRecipients' | 'TooManyRecipients'
    | 'DuplicateRecipient' | 'PlaintextTooLarge' | 'SeqExhausted' | 'SigningKeyIsIdentityKey';
  readonly len?: number;
  readonly n?: number;
  readonly kid?: Kid;
}

export class CompatError extends Error {
  readonly code: 'HERMIT_COMPAT';
  readonly kind: 'IvBase64' | 'DataBase64' | 'IvLength' | 'TruncatedTag' | 'Decrypt' | 'InvalidUtf8' | 'Json';
  readonly len?: number;
  readonly reason?: string;
}

// ---- envelope.js ------------------------------------------------------------

export const DIRECT_OVERHEAD: 56;
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
  header: Header;
  body: DirectBody | MultiBody;
  signedPart: Uint8Array;
  signature: Uint8Array | undefined;
  static parse(record: Uint8Array): RecordView;
}

// ---- identity.js ------------------------------------------------------------

export const PKCS8_LEN: 138;
export const SPKI_LEN: 91;

export interface KeyOptions {
  /** Keep an exportable copy for toPkcs8 / KeyFile.wrap (default true). */
  extractable?: boolean;
}

export class KeyError extends Error {
  readonly code: 'HERMIT_KEY';
  readonly kind: 'Base64' | 'InvalidPkcs8' | 'InvalidSpki' | 'InvalidPoint' | 'NotExtractable' | 'InvalidArgument';
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

// ---- keyfile.js -------------------------------------------------------------

export class KeyFileError extends Error {
  readonly code: 'HERMIT_KEYFILE';
  readonly kind:
    | 'TooLarge' | 'Armor' | 'Base64' | 'Truncated' | 'BadMagic' | 'UnsupportedVersion'
    | 'UnsupportedKdf' | 'KdfParamOutOfRange' | 'KdfBelowFloor' | 'SaltLength'
    | 'UnsupportedAead' | 'NonceLength' | 'UnsupportedKeyType' | 'PublicKeyLength'
    | 'InvalidPublicKey' | 'CiphertextLength' | 'TrailingBytes' | 'WrongPasswordOrModified'
    | 'InvalidPrivateKey' | 'PublicKeyMismatch' | 'Kdf';
  readonly [detail: string]: unknown;
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

// ---- open.js ----------------------------------------------------------------

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
  len: number;
}

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
  open(topic: string, record: Uint8Array): Promise<{ opened: Opened; plaintext: Uint8Array }>;
}

// ---- pad.js -----------------------------------------------------------------

export function padme(len: number): number;
export function paddedLen(len: number): number;

// ---- replay.js --------------------------------------------------------------

export class Gap {
  constructor(first: bigint, last: bigint);
  first: bigint;
  last: bigint;
  len(): bigint;
  looksLikeRestart(): boolean;
}

// ---- seal.js ----------------------------------------------------------------

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

// ---- signing.js -------------------------------------------------------------

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
