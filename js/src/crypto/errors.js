// Typed errors of the sealing layer. Each `kind` is the name of the matching
// Rust enum variant (client/src/crypto/{open,seal,compat}.rs), so code and logs
// read the same in both SDKs. Messages never contain key material or plaintext.

/**
 * Copies an error's details (need/have, found, seq/highest, kid…) onto it.
 * @param {object} err
 * @param {Record<string, unknown>} details
 */
function setDetails(err, details) {
  for (const [k, v] of Object.entries(details)) if (k !== 'cause' && v !== undefined) /** @type {Record<string, unknown>} */ (err)[k] = v;
}

/**
 * @typedef {'Truncated'|'UnsupportedVersion'|'UnknownMode'|'ReservedFlags'|'ReservedByte'
 *   |'NoRecipients'|'TooManyRecipients'|'TopicTooLong'|'Reflected'|'UnknownSender'
 *   |'NotForMe'|'NotARecipient'|'DuplicateEntry'|'DirectAuthFailed'|'WrapAuthFailed'
 *   |'CkCommitMismatch'|'PayloadAuthFailed'|'Replayed'|'TooOld'|'UnknownSigner'
 *   |'SignatureInvalid'|'Unsigned'|'BadPadding'|'LegacyRefused'|'LegacyMalformed'
 *   |'LegacyAuthFailed'} OpenErrorKind
 * @typedef {'OwnKey'|'KidCollision'} TrustErrorKind
 * @typedef {'TopicTooLong'|'SelfRecipient'|'NoRecipients'|'TooManyRecipients'
 *   |'DuplicateRecipient'|'PlaintextTooLarge'|'SeqExhausted'|'SigningKeyIsIdentityKey'} SealErrorKind
 * @typedef {'IvBase64'|'DataBase64'|'IvLength'|'TruncatedTag'|'Decrypt'|'BudgetExhausted'
 *   |'InvalidUtf8'|'Json'} CompatErrorKind
 */

/**
 * Why a record was not opened: one `kind` per failed check, as Rust's `OpenError`:
 * Truncated, UnsupportedVersion, UnknownMode, ReservedFlags, ReservedByte,
 * NoRecipients, TooManyRecipients, TopicTooLong, Reflected, UnknownSender,
 * NotForMe, NotARecipient, DuplicateEntry, DirectAuthFailed, WrapAuthFailed,
 * CkCommitMismatch, PayloadAuthFailed, Replayed, TooOld, UnknownSigner,
 * SignatureInvalid, Unsigned, BadPadding, LegacyRefused, LegacyMalformed,
 * LegacyAuthFailed.
 */
export class OpenError extends Error {
  /**
   * @param {OpenErrorKind} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details] e.g. need/have, found, seq/highest, kid
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'OpenError';
    /** @type {'HERMIT_OPEN'} */
    this.code = 'HERMIT_OPEN';
    /** @type {OpenErrorKind} */
    this.kind = kind;
    setDetails(this, details);
  }
}

/** Why a key could not be trusted: kind `OwnKey` or `KidCollision`. */
export class TrustError extends Error {
  /**
   * @param {TrustErrorKind} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details]
   */
  constructor(kind, message, details = {}) {
    super(message);
    this.name = 'TrustError';
    /** @type {'HERMIT_TRUST'} */
    this.code = 'HERMIT_TRUST';
    /** @type {TrustErrorKind} */
    this.kind = kind;
    setDetails(this, details);
  }
}

/**
 * Why a record could not be sealed, as Rust's `SealError`: TopicTooLong,
 * SelfRecipient, NoRecipients, TooManyRecipients, DuplicateRecipient,
 * PlaintextTooLarge, SeqExhausted, SigningKeyIsIdentityKey.
 */
export class SealError extends Error {
  /**
   * @param {SealErrorKind} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details]
   */
  constructor(kind, message, details = {}) {
    super(message);
    this.name = 'SealError';
    /** @type {'HERMIT_SEAL'} */
    this.code = 'HERMIT_SEAL';
    /** @type {SealErrorKind} */
    this.kind = kind;
    setDetails(this, details);
  }
}

/**
 * Why a ChatCrypto message could not be decrypted, as Rust's `CompatError`:
 * IvBase64, DataBase64, IvLength, TruncatedTag, Decrypt, BudgetExhausted (with `limit`),
 * InvalidUtf8, Json.
 */
export class CompatError extends Error {
  /**
   * @param {CompatErrorKind} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details]
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'CompatError';
    /** @type {'HERMIT_COMPAT'} */
    this.code = 'HERMIT_COMPAT';
    /** @type {CompatErrorKind} */
    this.kind = kind;
    setDetails(this, details);
  }
}
