/**
 * The errors of the connection, producer and consumer: {@link ClientError}
 * (Rust's `hermit_client::ClientError`) and {@link WireError}, its
 * `Protocol` code (Rust's `hermit_protocol::WireError`).
 *
 * `ClientError` lives here, at the bottom of the SDK, and not in `client/`:
 * the protocol's encoders check their arguments and throw it
 * (`InvalidArgument`, `InvalidName`), and `WireError` is one of its codes.
 *
 * @module protocol/error
 */

import { RETRIABLE_STATUSES } from './status.js';

/**
 * Every error of the connection, producer and consumer (Rust's `ClientError`).
 * `code` says which kind:
 * `Connect`, `ConnectionLost`, `Timeout`, `Protocol`, `UnsupportedVersion`,
 * `OffsetOutOfRange`, `EndMoved` (a conditional produce expected another log
 * end; `Client.conditionalProduce` answers it as an outcome), `Broker`, `AuthRequired`, `AuthFailed`, `CorruptBatch`,
 * `InvalidName`, `RequestTooLarge`, `InvalidArgument`, `Closed`,
 * `BrokerIdChanged` (a `BrokerIdChanged`, client/known-brokers.js),
 * `KnownBrokers` (the known-brokers store failed).
 */
/**
 * @typedef {'Connect'|'ConnectionLost'|'Timeout'|'Protocol'|'UnsupportedVersion'|'OffsetOutOfRange'
 *   |'EndMoved'|'Broker'|'AuthRequired'|'AuthFailed'|'CorruptBatch'|'InvalidName'|'RequestTooLarge'
 *   |'InvalidArgument'|'Closed'|'BrokerIdChanged'|'KnownBrokers'|'StateAnchors'|'StateDirectory'} ClientErrorCode
 */
export class ClientError extends Error {
  /**
   * @param {ClientErrorCode} code
   * @param {string} message
   * @param {{ cause?: unknown, status?: string, statusCode?: number,
   *   logStart?: number, highWatermark?: number, end?: number, topic?: string,
   *   partition?: number, baseOffset?: number }} [details]
   */
  constructor(code, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ClientError';
    /** @type {ClientErrorCode} */
    this.code = code;
    /** The broker's status name (`Unauthorized`, …) when the broker refused the request. @type {string|undefined} */
    this.status = details.status;
    /** Its numeric code. @type {number|undefined} */
    this.statusCode = details.statusCode;
    if (details.logStart !== undefined) {
      /** For `OffsetOutOfRange` and `EndMoved`: the first offset still stored. */
      this.logStart = details.logStart;
    }
    if (details.highWatermark !== undefined) {
      /** For `OffsetOutOfRange`: the offset the next record will get. */
      this.highWatermark = details.highWatermark;
    }
    if (details.end !== undefined) {
      /** For `EndMoved`: the log end, the offset the next record gets. */
      this.end = details.end;
    }
    if (details.topic !== undefined) {
      this.topic = details.topic;
      this.partition = details.partition;
      this.baseOffset = details.baseOffset;
    }
  }

  /**
   * Whether trying the same operation again (on a new connection) may
   * succeed: connection failures, timeouts, and the statuses Rust's
   * `Status::is_retriable` marks.
   * @returns {boolean}
   */
  get retriable() {
    if (this.code === 'Connect' || this.code === 'ConnectionLost' || this.code === 'Timeout') return true;
    return this.code === 'Broker' && RETRIABLE_STATUSES.has(this.status ?? '');
  }

  /**
   * Whether this is about authentication or authorization (`AuthRequired`,
   * `AuthFailed`, `BrokerIdChanged`, or a request refused `Unauthorized`).
   * @returns {boolean}
   */
  get isAuth() {
    return this.code === 'AuthRequired' || this.code === 'AuthFailed' || this.code === 'BrokerIdChanged' || this.status === 'Unauthorized';
  }
}

/**
 * Bytes that do not follow the protocol (`code` = `Protocol`); `kind` names
 * the rule that was broken, as Rust's `WireError` variants do
 * (`UnexpectedEof`, `BadMagic`, `CrcMismatch`, `FrameTooShort`,
 * `FrameTooLarge`, `LengthMismatch`, `InvalidField`, `UnknownOp`,
 * `BadHello`, `EmptyBatch`, `BadPayload`, `TooLong`, `KeyTooLarge`,
 * `PayloadTooLarge`, `InvalidName`).
 */
export class WireError extends ClientError {
  /**
   * @param {string} kind
   * @param {string} message
   */
  constructor(kind, message) {
    super('Protocol', `protocol error: ${message}`);
    this.name = 'WireError';
    /** @type {string} */
    this.kind = kind;
  }
}
