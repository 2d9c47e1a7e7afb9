/**
 * Stable numeric status codes (docs/PROTOCOL.md §4, `protocol/src/status.rs`).
 *
 * @module protocol/status
 */

/** Status names by code (PROTOCOL.md §4); numbers are stable and never reused. */
export const STATUS_NAMES = Object.freeze([
  'Ok',
  'UnknownTopic',
  'InvalidTopicName',
  'OffsetOutOfRange',
  'PayloadTooLarge',
  'CorruptBatch',
  'StorageError',
  'InvalidRequest',
  'NotDurable',
  'ShuttingDown',
  'Unauthorized',
  'UnknownPartition',
  'TopicExists',
  'UnknownOp',
  'KeyTooLarge',
  'CorruptData',
  'UnsupportedVersion',
  'TooManyConnections',
  'Timeout',
  'OffsetAheadOfLog',
  'EndMoved',
  'NothingToClaim',
  'RateLimited',
]);

/** Status codes by name, e.g. `Status.Unauthorized === 10`. */
export const Status = Object.freeze(Object.fromEntries(STATUS_NAMES.map((n, i) => [n, i])));

/**
 * Whether a refusal with this status carries two offsets after its message
 * (Rust's `Status::carries_bounds`): `[logStart, highWatermark]` for
 * `OffsetOutOfRange`, `[logStart, end]` for `EndMoved`.
 * @param {number} code
 * @returns {boolean}
 */
export function carriesBounds(code) {
  return code === Status.OffsetOutOfRange || code === Status.EndMoved;
}

/** The statuses Rust's `Status::is_retriable` marks: trying again may succeed. */
export const RETRIABLE_STATUSES = new Set(['StorageError', 'ShuttingDown', 'TooManyConnections', 'Timeout']);
