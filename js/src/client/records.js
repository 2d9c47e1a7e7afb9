/**
 * What a fetch returns (client/src/records.rs): {@link FetchResponse}, whole
 * record batches as the broker sent them, and the {@link Record}s in them,
 * views into those bytes (no copy).
 *
 * @module client/records
 */

import { ClientError } from '../protocol/error.js';
import { batches, parseBatch, records as payloadRecords, verifyCrc } from '../protocol/record.js';

/**
 * @typedef {object} Record
 * @property {string} topic
 * @property {number} partition
 * @property {number} offset
 * @property {bigint} timestampNs  the batch's timestamp (ns since the Unix epoch)
 * @property {Uint8Array} key      the batch key (empty for none)
 * @property {Uint8Array} value
 */

/**
 * Whole record batches returned by a fetch (Rust's `FetchResponse`).
 */
export class FetchResponse {
  /**
   * @param {string} topic
   * @param {number} partition
   * @param {number} highWatermark
   * @param {number} logStart
   * @param {Uint8Array} batches
   */
  constructor(topic, partition, highWatermark, logStart, batches) {
    /** @type {string} */
    this.topic = topic;
    /** @type {number} */
    this.partition = partition;
    /** Offset the next record will get. @type {number} */
    this.highWatermark = highWatermark;
    /** First offset still stored. @type {number} */
    this.logStart = logStart;
    /** The raw batches. @type {Uint8Array} */
    this.batches = batches;
  }

  /**
   * The offset after the last record of the last batch, or `null` when the
   * response holds none. Checks batch structure, not CRCs.
   * @returns {number|null}
   */
  nextOffset() {
    let next = null;
    for (const b of batches(this.batches)) next = b.header.baseOffset + b.header.recordCount;
    return next;
  }

  /**
   * The records at or after `fromOffset` (the first batch may start before
   * the offset asked for), each batch's CRC checked when it is entered.
   * Throws `CorruptBatch` at a batch that fails its CRC or layout.
   * @param {number} [fromOffset]
   * @returns {Generator<Record>}
   */
  *records(fromOffset = 0) {
    let at = 0;
    while (at < this.batches.length) {
      const b = parseBatch(this.batches, at);
      at += b.length;
      const h = b.header;
      if (h.baseOffset + h.recordCount <= fromOffset) continue; // wholly before: not checked either
      let recs;
      try {
        verifyCrc(b);
        recs = [...payloadRecords(b.payload, h.recordCount)];
      } catch (e) {
        throw new ClientError('CorruptBatch', `corrupt batch at ${this.topic}/${this.partition} offset ${h.baseOffset}: ${e instanceof Error ? e.message : e}`, {
          cause: e,
          topic: this.topic,
          partition: this.partition,
          baseOffset: h.baseOffset,
        });
      }
      for (let i = 0; i < recs.length; i++) {
        const offset = h.baseOffset + i;
        if (offset < fromOffset) continue;
        yield { topic: this.topic, partition: this.partition, offset, timestampNs: h.timestampNs, key: b.key, value: recs[i] };
      }
    }
  }
}
