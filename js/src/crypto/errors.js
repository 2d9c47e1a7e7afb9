// Typed errors of the sealing layer. Each `kind` is the name of the matching
// Rust enum variant (client/src/crypto/{open,seal,compat}.rs), so code and logs
// read the same in both SDKs. Messages never contain key material or plaintext.

function init(err, name, code, kind, details) {
  err.name = name;
  /** @type {string} */
  err.code = code;
  err.kind = kind;
  for (const [k, v] of Object.entries(details)) if (k !== 'cause' && v !== undefined) err[k] = v;
}

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
   * @param {string} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details] e.g. need/have, found, seq/highest, kid
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    init(this, 'OpenError', 'HERMIT_OPEN', kind, details);
  }
}

/** Why a key could not be trusted: kind `OwnKey` or `KidCollision`. */
export class TrustError extends Error {
  /**
   * @param {string} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details]
   */
  constructor(kind, message, details = {}) {
    super(message);
    init(this, 'TrustError', 'HERMIT_TRUST', kind, details);
  }
}

/**
 * Why a record could not be sealed, as Rust's `SealError`: TopicTooLong,
 * SelfRecipient, NoRecipients, TooManyRecipients, DuplicateRecipient,
 * PlaintextTooLarge, SeqExhausted, SigningKeyIsIdentityKey.
 */
export class SealError extends Error {
  /**
   * @param {string} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details]
   */
  constructor(kind, message, details = {}) {
    super(message);
    init(this, 'SealError', 'HERMIT_SEAL', kind, details);
  }
}

/**
 * Why a ChatCrypto message could not be decrypted, as Rust's `CompatError`:
 * IvBase64, DataBase64, IvLength, TruncatedTag, Decrypt, BudgetExhausted (with `limit`),
 * InvalidUtf8, Json.
 */
export class CompatError extends Error {
  /**
   * @param {string} kind
   * @param {string} message
   * @param {Record<string, unknown>} [details]
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    init(this, 'CompatError', 'HERMIT_COMPAT', kind, details);
  }
}
