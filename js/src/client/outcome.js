/**
 * The typed answers of the two single-request ops whose refusals are
 * expected outcomes, not failures (client/src/outcome.rs):
 * `Client.conditionalProduce` ("you were first" / "the end moved to N")
 * and `Client.claim` ("this batch is yours" / "nothing left to claim"),
 * and {@link ClaimId}, the claimer's id for one claim.
 *
 * Each answer is checked against what was asked before it is believed: a
 * broker that answers a conditional produce at another offset than the
 * expected one, or hands a claim a batch whose offsets disagree with its
 * answer, breaks the protocol (a `WireError`, code `Protocol`, for that
 * request; the connection stays open, as in Rust).
 *
 * @module client/outcome
 */

import { equal, fromHex, toHex } from '../bytes.js';
import { ClientError, WireError } from '../protocol/error.js';
import { CLAIM_ID_LEN } from '../protocol/frame.js';
import { parseBatch } from '../protocol/record.js';
import { FetchResponse } from './records.js';

/**
 * @typedef {{ outcome: 'appended', baseOffset: number }
 *   | { outcome: 'endMoved', end: number }} Conditional
 * What a conditional produce did (Rust's `Conditional`): `appended` — you
 * were first, the batch's first record is at `baseOffset` (the expected
 * end); `endMoved` — the log ends at `end`, elsewhere than expected, and
 * nothing was appended.
 */

/**
 * @typedef {{ outcome: 'claimed', offset: number, next: number, batch: Uint8Array,
 *     records(): Generator<import('./records.js').Record> }
 *   | { outcome: 'nothingLeft' }} Claim
 * What a claim got (Rust's `Claim`): `claimed` — one whole batch, this
 * claimer's and no other's: `offset` its first record's, `next` the offset
 * after it (the partition's claim position now), `batch` its bytes as
 * stored (header included), `records()` its records, the CRC checked
 * before the first is yielded (`CorruptBatch` otherwise); `nothingLeft` —
 * every durable batch of the partition is claimed.
 */

/**
 * The id of one claim: chosen by the claimer, random, and kept until the
 * claim is answered. A claim retried with the same id by the same principal
 * — after a lost answer, on a new connection or after the broker restarted
 * — gets the same batch again, never a second one (Rust's `ClaimId`).
 */
export class ClaimId {
  #bytes;

  /** @param {Uint8Array} bytes {@link CLAIM_ID_LEN} (16) bytes, copied */
  constructor(bytes) {
    if (!(bytes instanceof Uint8Array) || bytes.length !== CLAIM_ID_LEN) {
      throw new ClientError('InvalidArgument', `invalid argument: a claim id is ${CLAIM_ID_LEN} bytes`);
    }
    this.#bytes = Uint8Array.from(bytes);
  }

  /**
   * A fresh id: 16 bytes from the platform's CSPRNG (`crypto.getRandomValues`).
   * @returns {ClaimId}
   */
  static random() {
    return new ClaimId(globalThis.crypto.getRandomValues(new Uint8Array(CLAIM_ID_LEN)));
  }

  /**
   * An id kept as hex (to retry a claim after a restart).
   * @param {string} hex 32 hex digits
   * @returns {ClaimId}
   */
  static fromHex(hex) {
    let bytes;
    try {
      bytes = fromHex(hex);
    } catch (e) {
      throw new ClientError('InvalidArgument', `invalid argument: a claim id is ${2 * CLAIM_ID_LEN} hex digits`, { cause: e });
    }
    return new ClaimId(bytes);
  }

  /** @returns {Uint8Array} a copy of the 16 bytes */
  asBytes() {
    return Uint8Array.from(this.#bytes);
  }

  /** @returns {string} 32 lower-case hex digits */
  toHex() {
    return toHex(this.#bytes);
  }

  /**
   * @param {ClaimId} other
   * @returns {boolean}
   */
  equals(other) {
    return other instanceof ClaimId && equal(this.#bytes, other.#bytes);
  }
}

/**
 * @param {string} what
 * @returns {WireError}
 */
const broke = (what) => new WireError('InvalidField', what);

/**
 * The outcome of a conditional produce expecting `expectedEnd`, from its
 * answer: the success body, or the error it was refused with (an `EndMoved`
 * error becomes the `endMoved` outcome; any other is thrown).
 * @param {number} expectedEnd
 * @param {{ body: { baseOffset: number } } | { error: unknown }} answer
 * @returns {Conditional}
 */
export function conditional(expectedEnd, answer) {
  if ('error' in answer) {
    const e = answer.error;
    if (!(e instanceof ClientError) || e.code !== 'EndMoved') throw e;
    const end = /** @type {number} */ (e.end);
    // Told the end moved to where it was expected: the broker contradicts itself.
    if (end === expectedEnd) throw broke(`ConditionalProduce refused with EndMoved at the expected end ${end}`);
    return { outcome: 'endMoved', end };
  }
  const { baseOffset } = answer.body;
  if (baseOffset !== expectedEnd) {
    throw broke(`ConditionalProduce appended at ${baseOffset}, not at the expected end ${expectedEnd}`);
  }
  return { outcome: 'appended', baseOffset };
}

/**
 * The outcome of a claim on `topic/partition`, from its answer: the success
 * body, checked (exactly one whole batch, starting at `offset` and ending
 * at `next`), or the error it was refused with (`NothingToClaim` becomes
 * the `nothingLeft` outcome; any other is thrown).
 * @param {string} topic
 * @param {number} partition
 * @param {{ body: { offset: number, next: number, batch: Uint8Array } } | { error: unknown }} answer
 * @returns {Claim}
 */
export function claimed(topic, partition, answer) {
  if ('error' in answer) {
    const e = answer.error;
    if (e instanceof ClientError && e.code === 'Broker' && e.status === 'NothingToClaim') return { outcome: 'nothingLeft' };
    throw e;
  }
  const { offset, next, batch } = answer.body;
  let view;
  try {
    view = parseBatch(batch, 0);
  } catch (e) {
    const err = broke(`the claimed batch is malformed: ${e instanceof Error ? e.message : String(e)}`);
    err.cause = e;
    throw err;
  }
  if (view.length !== batch.length) {
    throw broke(`the claimed batch is followed by ${batch.length - view.length} more bytes (a claim hands out one batch)`);
  }
  const { baseOffset, recordCount } = view.header;
  if (baseOffset !== offset) throw broke(`claimed offset ${offset}, but the batch starts at ${baseOffset}`);
  if (baseOffset + recordCount !== next) {
    throw broke(`claim position ${next}, but the batch ends at ${baseOffset + recordCount}`);
  }
  // A view into the answer's message, as a fetch's batches are (no copy).
  const response = new FetchResponse(topic, partition, next, offset, batch);
  return { outcome: 'claimed', offset, next, batch, records: () => response.records() };
}
