// Why a conversation operation failed (Rust's `ConversationError`,
// client/src/mls/error.rs); `code` says which kind, the message what to do.

/**
 * `Mls` (the MLS library refused an operation), `State` (the state store),
 * `NoDeviceList`, `DeviceList` (one failed its checks), `DeviceListTooOld`
 * (the broker serves a list older than a binding names: withheld),
 * `NotListed` (a leaf's device is not on its account's device list),
 * `Binding` (a device binding failed its checks), `NoKeyPackages`, `BadKeyPackage`,
 * `CommitStalled`, `Removed`, `UnknownConversation`, `Stuck` (a suspected fork
 * or missing Commits: another member must re-add this device), `Content` (a
 * message could not be framed or read), `Rotation` (an account-key rotation
 * statement failed its checks: a forged rotation), `Invalid` (an argument).
 * @typedef {'Mls'|'State'|'NoDeviceList'|'DeviceList'|'DeviceListTooOld'|'NotListed'|'Binding'|'NoKeyPackages'|'BadKeyPackage'
 *   |'CommitStalled'|'Removed'|'UnknownConversation'|'Stuck'|'Content'|'Rotation'|'Invalid'} MlsErrorCode
 */

/** Why a conversation operation failed. */
export class MlsError extends Error {
  /**
   * @param {MlsErrorCode} code
   * @param {string} message
   * @param {{ cause?: unknown, topic?: string, account?: string, device?: string, attempts?: number }} [details]
   */
  constructor(code, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'MlsError';
    /** @type {MlsErrorCode} */
    this.code = code;
    /** The group topic, when about one conversation. @type {string|undefined} */
    this.topic = details.topic;
    /** The account fingerprint (hex), when about one account. @type {string|undefined} */
    this.account = details.account;
    /** The device fingerprint (hex), when about one device. @type {string|undefined} */
    this.device = details.device;
    /** For `CommitStalled`: how many times the Commit was tried. @type {number|undefined} */
    this.attempts = details.attempts;
  }
}

/**
 * Wraps a library error with what was being done (code `Mls`).
 * @param {string} what
 * @returns {(cause: unknown) => never}
 */
export function mlsFailed(what) {
  return (cause) => {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new MlsError('Mls', `MLS: ${what}: ${why}`, { cause });
  };
}
