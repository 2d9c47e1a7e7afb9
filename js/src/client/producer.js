/**
 * {@link Producer}: records go into per-(topic, partition, key) batches, sent
 * when a batch is full (`batchRecords`, `batchBytes`) or has waited
 * `lingerMs`; many batches are in flight at once (client/src/producer.rs).
 *
 * Guarantees, as in Rust:
 * - **Order.** Records with the same topic, partition and key are written in
 *   the order `send` was called (keyless records of one partition too): every
 *   batch goes over the one connection, and the broker appends one
 *   connection's produces in request order.
 * - **Bounded memory.** A record's bytes count against `bufferBytes` from
 *   `send` until its batch is acknowledged or failed; `send` waits while the
 *   buffer is full.
 * - **Retries resend identical bytes.** A batch is encoded once; after a
 *   retriable failure (the connection died before the answer, a timeout, a
 *   retriable broker status) the same bytes go out again — same records,
 *   same timestamp, same sealed envelopes — once every batch of its
 *   partition in flight is answered, in the partition's original order. So
 *   a batch the broker wrote before the connection died is in the log twice
 *   (at-least-once): readers of sealed records drop the second copy
 *   (sealed/consumer.js); plain records are seen twice. A failed batch is
 *   not resent when a later batch of its partition was already written
 *   (that would reorder the partition), nor after `deliveryTimeoutMs`:
 *   then its records fail with the last error — reported, never dropped.
 * - **No sends while disconnected.** Batches wait in the producer while the
 *   client reconnects (client/reconnect.js) and go out, retries first, once
 *   it is connected.
 *
 * @module client/producer
 */

import { ClientError } from '../protocol/error.js';
import { Ack, REQUEST_HEADER_LEN } from '../protocol/frame.js';
import { BatchBuilder, HEADER_LEN, RECORD_LEN_PREFIX, nowNs } from '../protocol/record.js';
import { checkTopic } from '../protocol/topic.js';
import { partitionForKey } from './partitioner.js';

/**
 * @typedef {object} ProducerOptions
 * @property {number|'durable'|'written'} [ack] `Ack.Durable` (after an fsync
 *   covers the batch) or `Ack.Written`. Default durable.
 * @property {number} [lingerMs] How long a batch waits for more records. Default 5.
 * @property {number} [batchRecords] Records per batch. Default 100.
 * @property {number} [batchBytes] Bytes per batch (header, key, records);
 *   capped to what the broker's frame limit allows. Default 256 KiB.
 * @property {number} [bufferBytes] Bytes held from `send` until acknowledged. Default 32 MiB.
 * @property {number} [maxInFlight] Batches sent and not yet answered. Default 256.
 * @property {number} [deliveryTimeoutMs] How long after its batch was
 *   closed a record may still be (re)sent; past it, a batch that failed or
 *   still waits for a connection fails with the last error (or `Timeout`).
 *   `Infinity`: retry as long as it takes. Default 120 000 (as Rust).
 * @property {number} [retryBackoffMs] Wait before resending a partition's
 *   failed batches. Default 100.
 */

/**
 * @typedef {object} Delivered
 * @property {number} partition
 * @property {number} offset
 */

/** One record queued in a {@link Producer}: where it goes, and when it is stored. */
export class Delivery {
  /** @type {Batch} */
  #batch;

  /**
   * @param {Batch} batch
   * @param {number} index
   */
  constructor(batch, index) {
    this.#batch = batch;
    /** The record's index in its batch. @type {number} */
    this.index = index;
    /** The partition the record was assigned to. @type {number} */
    this.partition = batch.partition;
  }

  /**
   * Resolves to where the record was stored once its batch is acknowledged,
   * or rejects with why the producer gave up on it. Not awaiting it is fine:
   * a failure nobody waits for is not an unhandled rejection.
   * @returns {Promise<Delivered>}
   */
  get delivered() {
    return this.#batch.done.then((base) => ({ partition: this.partition, offset: base + this.index }));
  }

  /**
   * The outcome if known yet: `{ ok: true, value }`, `{ ok: false, error }` or `null`.
   * @returns {{ ok: true, value: Delivered } | { ok: false, error: ClientError } | null}
   */
  tryResult() {
    const b = this.#batch;
    if (b.error) return { ok: false, error: b.error };
    if (b.baseOffset === null) return null;
    return { ok: true, value: { partition: this.partition, offset: b.baseOffset + this.index } };
  }
}

/** A batch being filled, then in flight (and maybe resent). */
class Batch {
  /**
   * @param {string} topic
   * @param {number} partition
   * @param {Uint8Array} key
   * @param {number} seq
   */
  constructor(topic, partition, key, seq) {
    this.topic = topic;
    this.partition = partition;
    this.builder = new BatchBuilder(key);
    this.seq = seq;
    /** Bytes counted against the buffer. */
    this.reserved = HEADER_LEN + key.length;
    /** The encoded batch, made once when first sent and resent as it is. @type {Uint8Array|null} */
    this.bytes = null;
    /** When the batch was closed (`Date.now()`), for the delivery timeout. */
    this.closedAt = 0;
    /** Order of the last send among all sends (the reorder rule compares them). */
    this.sentNo = 0;
    /** The last retriable failure, reported if the batch is given up on. @type {ClientError|null} */
    this.lastError = null;
    /** The linger timer, then the delivery-timeout timer. @type {any} */
    this.timer = null;
    /** @type {number|null} */
    this.baseOffset = null;
    /** @type {ClientError|null} */
    this.error = null;
    /** @type {(v: number) => void} */
    this.resolve = () => {};
    /** @type {(e: ClientError) => void} */
    this.reject = () => {};
    /** @type {Promise<number>} */
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Failures nobody awaits must not crash Node with an unhandled rejection;
    // a `.then` on `done` still sees the rejection.
    this.done.catch(() => {});
  }
}

/**
 * One partition's sending: batches in flight, failures waiting to be
 * resent, and while any are, no new batch of it goes out.
 * @typedef {{ inFlight: number, failed: Batch[], maxOk: number|null, blocked: boolean, timer: any }} Lane
 */

/**
 * Batches records per topic, partition and key and sends them with many
 * batches in flight over one {@link Client}, resending what failed.
 */
export class Producer {
  /** @type {import('./connection.js').Client} */
  #client;
  /** @type {number} */
  #ack;
  /** @type {number} */
  #lingerMs;
  /** @type {number} */
  #batchRecords;
  /** @type {number} */
  #batchBytes;
  /** @type {number} */
  #bufferBytes;
  /** @type {number} */
  #maxInFlight;
  /** @type {Map<string, { partitions: number|null, known: boolean, sticky: number, ready: Promise<void>, open: Map<string, Batch> }>} */
  #topics;
  /** @type {number} */
  #buffered;
  /** @type {number} */
  #nextSeq;
  /** Batches not finished (open, queued or in flight). @type {Set<Batch>} */
  #outstanding;
  /** Closed, waiting until fewer than maxInFlight are in flight. @type {Batch[]} */
  #queue;
  /** @type {number} */
  #inFlight;
  /** @type {Array<() => void>} */
  #spaceWaiters;
  /** @type {Array<() => void>} */
  #progressWaiters;
  /** @type {boolean} */
  #closing;
  /** @type {number} */
  #deliveryTimeoutMs;
  /** @type {number} */
  #retryBackoffMs;
  /** Per topic and partition. @type {Map<string, Lane>} */
  #lanes = new Map();
  /** @type {number} */
  #nextSentNo = 0;
  /** Stops listening to the client's state. @type {() => void} */
  #unlisten;

  /**
   * @param {import('./connection.js').Client} client
   * @param {ProducerOptions} [options]
   */
  constructor(client, options = {}) {
    this.#client = client;
    const ack = options.ack ?? Ack.Durable;
    this.#ack = ack === 'durable' ? Ack.Durable : ack === 'written' ? Ack.Written : ack;
    if (this.#ack !== Ack.Durable && this.#ack !== Ack.Written) {
      throw new ClientError('InvalidArgument', `invalid argument: ack must be Ack.Durable or Ack.Written`);
    }
    this.#lingerMs = Math.max(0, options.lingerMs ?? 5);
    this.#batchRecords = Math.max(1, options.batchRecords ?? 100);
    // Never build a batch the broker cannot take in one frame (over WebSocket
    // the frame limit is the message limit, 1 MiB by default).
    const frameRoom = client.maxFrame - (REQUEST_HEADER_LEN - 4 + 1 + 255 + 4 + 1);
    this.#batchBytes = Math.max(HEADER_LEN + RECORD_LEN_PREFIX, Math.min(options.batchBytes ?? 256 * 1024, frameRoom));
    this.#bufferBytes = options.bufferBytes ?? 32 << 20;
    this.#maxInFlight = Math.max(1, options.maxInFlight ?? 256);
    this.#topics = new Map();
    this.#buffered = 0;
    this.#nextSeq = 0;
    this.#outstanding = new Set();
    this.#queue = [];
    this.#inFlight = 0;
    this.#spaceWaiters = [];
    this.#progressWaiters = [];
    this.#closing = false;
    this.#deliveryTimeoutMs = options.deliveryTimeoutMs ?? 120_000;
    this.#retryBackoffMs = Math.max(0, options.retryBackoffMs ?? 100);
    if (!(this.#deliveryTimeoutMs > 0)) throw new ClientError('InvalidArgument', 'invalid argument: deliveryTimeoutMs must be above 0');
    // Batches held while the client reconnects go out once it is back (or
    // fail at once when it is over).
    this.#unlisten = client.onStateChange((c) => {
      if (c.state !== 'connecting' && c.state !== 'disconnected') this.#pump();
    });
  }

  /** The client records are sent through. @returns {import('./connection.js').Client} */
  get client() {
    return this.#client;
  }

  /** Bytes held (records and batch overhead, from `send` until acknowledged). */
  get bufferedBytes() {
    return this.#buffered;
  }

  /**
   * Queue one record; waits only while the buffer is full (or, for a topic
   * not seen before, for its metadata: with no connection, at most
   * `deliveryTimeoutMs`, then it fails with `Timeout`). `key` (empty or `null` for none)
   * picks the partition — FNV-1a of the key, keyless records round robin
   * one batch at a time — and becomes the batch key.
   * @param {string} topic
   * @param {Uint8Array|null} key
   * @param {Uint8Array} value
   * @returns {Promise<Delivery>}
   */
  async send(topic, key, value) {
    const k = key ?? new Uint8Array(0);
    if (!(value instanceof Uint8Array) || !(k instanceof Uint8Array)) {
      throw new ClientError('InvalidArgument', 'invalid argument: key and value must be Uint8Arrays');
    }
    if (this.#closing) throw new ClientError('Closed', 'closed: the producer was closed');
    checkTopic(topic);
    const acc = await this.#topic(topic);
    const need = RECORD_LEN_PREFIX + value.length;
    while (this.#buffered > 0 && this.#buffered + need + HEADER_LEN + k.length > this.#bufferBytes) {
      // Full: lingering batches go now, so their acks free space.
      this.#closeAll();
      await new Promise((resolve) => this.#spaceWaiters.push(() => resolve(undefined)));
      if (this.#closing) throw new ClientError('Closed', 'closed: the producer was closed');
    }
    if (this.#closing) throw new ClientError('Closed', 'closed: the producer was closed');
    const n = acc.partitions ?? 1;
    const keyed = k.length > 0;
    const partition = keyed ? partitionForKey(k, n) : acc.sticky % n;
    const openKey = keyed ? `k:${partition}:${hexKey(k)}` : `p:${partition}`;
    let batch = acc.open.get(openKey);
    if (batch && batch.builder.recordCount > 0 && batch.builder.length + need > this.#batchBytes) {
      this.#closeBatch(acc, openKey, batch);
      batch = undefined;
    }
    if (!batch) {
      batch = new Batch(topic, partition, k, this.#nextSeq++);
      this.#outstanding.add(batch);
      this.#buffered += batch.reserved;
      acc.open.set(openKey, batch);
      const b = batch;
      b.timer = setTimeout(() => {
        if (acc.open.get(openKey) === b) this.#closeBatch(acc, openKey, b);
      }, this.#lingerMs);
    }
    batch.builder.push(value);
    batch.reserved += need;
    this.#buffered += need;
    const delivery = new Delivery(batch, batch.builder.recordCount - 1);
    if (batch.builder.recordCount >= this.#batchRecords || batch.builder.length >= this.#batchBytes) {
      this.#closeBatch(acc, openKey, batch);
    }
    return delivery;
  }

  /**
   * @param {string} topic
   */
  async #topic(topic) {
    let acc = this.#topics.get(topic);
    if (!acc) {
      const entry = { partitions: /** @type {number|null} */ (null), known: false, sticky: 0, ready: Promise.resolve(), open: new Map() };
      // Keyless records start at a random partition, so many producers (tabs)
      // do not all fill partition 0 first — as the Rust producer spreads them.
      entry.ready = this.#resolve(entry, topic).then(() => {
        entry.sticky = Math.floor(Math.random() * (entry.partitions ?? 1));
      });
      this.#topics.set(topic, entry);
      acc = entry;
    }
    if (Number.isFinite(this.#deliveryTimeoutMs)) {
      // A topic's first metadata waits for a connection: not longer than a
      // record may wait to be sent.
      let timer;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new ClientError('Timeout', `delivery timed out after ${this.#deliveryTimeoutMs} ms: no connection to read the metadata of ${topic} on`)), this.#deliveryTimeoutMs);
      });
      try {
        await Promise.race([acc.ready, timeout]);
      } finally {
        clearTimeout(timer);
      }
    } else {
      await acc.ready;
    }
    return acc;
  }

  /**
   * Look up a topic's partition count. An unknown topic (it is created by
   * the first produce when the broker auto-creates) or one whose metadata is
   * refused gets partition 0; after its first acknowledgement metadata is
   * asked once more.
   * @param {{ partitions: number|null, known: boolean }} entry
   * @param {string} topic
   */
  async #resolve(entry, topic) {
    try {
      const meta = await this.#client.metadata(topic);
      const t = meta.find((m) => m.name === topic);
      if (t) {
        entry.partitions = Math.max(1, t.partitions.length);
        entry.known = true;
      }
    } catch {
      // Unknown topic, or one the caller may produce to but not describe
      // (someone else's inbox): partition 0, as the Rust producer does. A
      // connection problem shows up again in the produce itself.
    }
  }

  #closeAll() {
    for (const acc of this.#topics.values()) {
      for (const [openKey, b] of [...acc.open]) this.#closeBatch(acc, openKey, b);
    }
  }

  /**
   * Close a batch to new records and queue it for sending.
   * @param {{ sticky: number, partitions: number|null, open: Map<string, Batch> }} acc
   * @param {string} openKey
   * @param {Batch} batch
   */
  #closeBatch(acc, openKey, batch) {
    clearTimeout(batch.timer);
    acc.open.delete(openKey);
    if (openKey.startsWith('p:') && batch.partition === acc.sticky % (acc.partitions ?? 1)) {
      acc.sticky = (acc.sticky + 1) % (acc.partitions ?? 1);
    }
    batch.closedAt = Date.now();
    if (Number.isFinite(this.#deliveryTimeoutMs)) {
      batch.timer = setTimeout(() => this.#expire(batch), this.#deliveryTimeoutMs);
    }
    this.#queue.push(batch);
    this.#pump();
  }

  /**
   * The delivery timeout of a batch passed: if it waits in the queue (not
   * on the wire), fail it; one in flight fails when answered with an error.
   * @param {Batch} batch
   */
  #expire(batch) {
    const i = this.#queue.indexOf(batch);
    if (i < 0) return;
    this.#queue.splice(i, 1);
    this.#finish(batch, null, batch.lastError ?? new ClientError('Timeout', `delivery timed out after ${this.#deliveryTimeoutMs} ms: no connection to send the batch on`));
  }

  /**
   * @param {Batch} batch
   * @returns {Lane}
   */
  #lane(batch) {
    const id = `${batch.topic}\0${batch.partition}`;
    let lane = this.#lanes.get(id);
    if (!lane) this.#lanes.set(id, (lane = { inFlight: 0, failed: [], maxOk: null, blocked: false, timer: null }));
    return lane;
  }

  /**
   * Send queued batches, oldest first, skipping partitions that are
   * resending; none while the client reconnects.
   */
  #pump() {
    const state = this.#client.state;
    if (state === 'connecting' || state === 'disconnected') return;
    for (let i = 0; i < this.#queue.length && this.#inFlight < this.#maxInFlight; ) {
      const batch = this.#queue[i];
      const lane = this.#lane(batch);
      if (lane.blocked) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      if (!batch.bytes) {
        try {
          batch.bytes = batch.builder.finish(nowNs());
        } catch (e) {
          this.#finish(batch, null, /** @type {ClientError} */ (e));
          continue;
        }
        batch.builder = /** @type {any} */ (null); // the records are in `bytes` now
      }
      this.#inFlight++;
      lane.inFlight++;
      batch.sentNo = this.#nextSentNo++;
      this.#client.produce(batch.topic, batch.partition, this.#ack, batch.bytes).then(
        (base) => this.#answered(batch, lane, base, null),
        (e) => this.#answered(batch, lane, null, e instanceof ClientError ? e : new ClientError('ConnectionLost', String(e), { cause: e })),
      );
    }
  }

  /**
   * A batch sent was answered: finished, or (a retriable failure) held to
   * be resent once its partition has nothing in flight.
   * @param {Batch} batch
   * @param {Lane} lane
   * @param {number|null} base
   * @param {ClientError|null} error
   */
  #answered(batch, lane, base, error) {
    this.#inFlight--;
    lane.inFlight--;
    if (error === null) {
      lane.maxOk = Math.max(lane.maxOk ?? -1, batch.sentNo);
      this.#finish(batch, base, null);
    } else if (error.retriable && !this.#client.isClosed && Date.now() - batch.closedAt < this.#deliveryTimeoutMs) {
      batch.lastError = error;
      lane.failed.push(batch);
      lane.blocked = true;
    } else {
      this.#finish(batch, null, error);
    }
    if (lane.inFlight === 0) {
      if (lane.failed.length > 0) this.#settle(lane);
      lane.maxOk = null;
    }
    this.#pump();
  }

  /**
   * Every batch of the partition in flight is answered and some failed:
   * queue the failures again at the front, in their original order — except
   * those a later batch of the partition was written after (resending would
   * reorder it), or past the delivery timeout, which fail — and send them
   * after `retryBackoffMs`.
   * @param {Lane} lane
   */
  #settle(lane) {
    const failed = lane.failed.splice(0).sort((a, b) => a.sentNo - b.sentNo);
    const now = Date.now();
    /** @type {Batch[]} */
    const retry = [];
    for (const batch of failed) {
      const error = /** @type {ClientError} */ (batch.lastError);
      if (lane.maxOk !== null && lane.maxOk > batch.sentNo) {
        this.#finish(batch, null, new ClientError(error.code, `${error.message} (not resent: a later batch of ${batch.topic}/${batch.partition} was written already, and resending this one would put it after)`, { cause: error, status: error.status, statusCode: error.statusCode }));
      } else if (now - batch.closedAt >= this.#deliveryTimeoutMs || this.#client.isClosed) {
        this.#finish(batch, null, error);
      } else {
        retry.push(batch);
      }
    }
    this.#queue.unshift(...retry);
    if (retry.length === 0) {
      lane.blocked = false;
      return;
    }
    lane.timer = setTimeout(() => {
      lane.timer = null;
      lane.blocked = false;
      this.#pump();
    }, this.#retryBackoffMs);
  }

  /**
   * @param {Batch} batch
   * @param {number|null} base
   * @param {ClientError|null} error
   */
  #finish(batch, base, error) {
    clearTimeout(batch.timer);
    this.#buffered -= batch.reserved;
    this.#outstanding.delete(batch);
    batch.bytes = null;
    if (error) {
      batch.error = error;
      batch.reject(error);
    } else {
      batch.baseOffset = base;
      batch.resolve(/** @type {number} */ (base));
      const acc = this.#topics.get(batch.topic);
      if (acc && !acc.known) {
        // The first ack of an auto-created topic: learn its partition count.
        acc.known = true;
        this.#resolve(acc, batch.topic).catch(() => {});
      }
    }
    for (const w of this.#spaceWaiters.splice(0)) w();
    for (const w of this.#progressWaiters.splice(0)) w();
  }

  /**
   * Send every buffered record now and wait until every record sent before
   * this call is finished (acknowledged, or failed: see each {@link Delivery}).
   * @returns {Promise<void>}
   */
  async flush() {
    const target = this.#nextSeq;
    this.#closeAll();
    const pendingBefore = () => [...this.#outstanding].some((b) => b.seq < target);
    while (pendingBefore()) {
      await new Promise((resolve) => this.#progressWaiters.push(() => resolve(undefined)));
    }
  }

  /**
   * Stop accepting records, send what is buffered and wait until every batch
   * is finished: acknowledged, or failed (retries included: at most
   * `deliveryTimeoutMs`, or until the client is closed or gives up). Later
   * sends fail with `Closed`. The client stays open.
   * @returns {Promise<void>}
   */
  async close() {
    this.#closing = true;
    for (const w of this.#spaceWaiters.splice(0)) w();
    await this.flush();
    this.#unlisten();
  }
}

/** @param {Uint8Array} b */
function hexKey(b) {
  let s = '';
  for (let i = 0; i < b.length; i++) s += b[i].toString(16).padStart(2, '0');
  return s;
}
