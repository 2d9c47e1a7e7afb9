/**
 * {@link Consumer}: reads a topic's partitions with one long-poll fetch in
 * flight per partition, so the next batch is on its way while the
 * application handles the current one (client/src/consumer.rs).
 *
 * Positions and commits, as in Rust:
 * - A partition's *position* is the offset of the next record `next()`
 *   returns from it.
 * - A record is *finished* once the application calls `next()` again after
 *   receiving it. The periodic commit (`autoCommitMs`, with a group) stores the
 *   position after the last finished record of each partition; `close()` does
 *   a final one.
 * - `commit()` stores the position after the last record *returned*, the one
 *   being handled included.
 * - A committed offset is the next offset the group will read.
 *
 * Errors: a batch that fails its CRC is reported by `next()` and never
 * skipped — the partition stays at that batch until `seek` moves it.
 * `OffsetOutOfRange` follows `reset`. A retriable failure (a retriable
 * broker status, a timeout) is retried after `retryBackoffMs` while the
 * client lives; a client that is over (closed, gave up reconnecting, or
 * made with `reconnect: false` and its connection died) is reported.
 *
 * Streaming fetches (min bytes, as in Rust): a fetch may ask the broker to
 * hold it until `minBytes` of whole batches are there (or `minWaitMs`
 * passed with some data there): fewer, larger answers for a consumer
 * following a busy log. The consumer chooses per partition: after an
 * answer that carried records (it is catching up, or following a busy
 * log) the next fetch asks `streamMinBytes` with `streamMinWaitMs`; after
 * an empty answer (a quiet log, a chat) or a seek it asks `minBytes` (1 by
 * default), so the first record after a quiet spell is answered at once. A
 * record that follows another within a stream may so wait up to
 * `streamMinWaitMs` (2 ms by default); `streamMinBytes: 1` turns streaming
 * fetches off. Only a broker that announced it is asked (older ones answer
 * on any data).
 *
 * Reconnects: a fetch in flight when the connection dies is sent again,
 * unchanged (but for a min bytes part the new broker does not read), on
 * the next connection (client/connection.js), so reading goes
 * on from this consumer's own positions — the records it returned — never
 * from the group's committed offsets: nothing returned before the drop is
 * returned again, nothing after it is skipped.
 *
 * @module client/consumer
 */

import { ClientError } from '../protocol/error.js';
import { checkGroup, checkTopic } from '../protocol/topic.js';

/**
 * @typedef {object} ConsumerOptions
 * @property {string|null} [group] Consumer group whose offsets are read and
 *   committed; `null` reads without committing. Default `null`.
 * @property {number[]|null} [partitions] Partitions to read; `null` for all. Default `null`.
 * @property {'committed'|'earliest'|'latest'|{ offset: number }} [start]
 *   Where to start: the group's committed offset (else `fallback`), the
 *   oldest stored record, the end, or an offset. Default `'committed'`.
 * @property {'earliest'|'latest'} [fallback] Start without a committed offset. Default `'earliest'`.
 * @property {'earliest'|'latest'|'error'} [reset] Out-of-range handling. Default `'earliest'`.
 * @property {number} [maxBytes] Soft limit on one fetch's bytes (capped to the
 *   broker's frame limit). Default 1 MiB.
 * @property {number} [maxWaitMs] How long a fetch waits at the end of a partition. Default 500.
 * @property {number} [minBytes] Bytes of whole batches the broker waits for
 *   before answering a fetch after an empty answer; 1: answered as soon as
 *   anything is there. Ignored by brokers that do not announce it. Default 1.
 * @property {number} [minWaitMs] With `minBytes > 1`: how long the broker
 *   may hold such a fetch once some data is there (capped by `maxWaitMs`). Default 5.
 * @property {number} [streamMinBytes] Bytes of whole batches the broker waits
 *   for before answering a fetch after an answer that carried records
 *   (catching up, or following a busy log); 1 turns streaming fetches off.
 *   Ignored by brokers that do not announce it. Default 65536 (64 KiB).
 * @property {number} [streamMinWaitMs] How long the broker may hold a
 *   streaming fetch once some data is there (capped by `maxWaitMs`): the
 *   most a record in a stream waits for others to join it. Default 2.
 * @property {number|null} [autoCommitMs] Commit finished records this often
 *   (with a group); `null` never. Default 5000.
 * @property {number} [retryBackoffMs] Wait before refetching after a retriable error. Default 100.
 */

/**
 * @typedef {import('./records.js').Record} Record
 */

/**
 * @typedef {object} Part
 * @property {number} partition
 * @property {number} position   next offset `next()` returns
 * @property {number} fetchAt    offset of the next fetch
 * @property {boolean} inFlight
 * @property {boolean} streaming the last answer carried records: the next fetch asks `streamMinBytes`
 * @property {number} generation bumped to disown fetches in flight (seek, reset, error)
 * @property {number|null} returned  after the last record returned
 * @property {number|null} finished  after the last finished record
 * @property {number|null} committed what the broker last acknowledged
 */

/** Reads records from a topic; create it with {@link Consumer.create}. */
export class Consumer {
  /** @type {import('./connection.js').Client} */
  #client;
  /** @type {string|null} */
  #group;
  /** @type {'earliest'|'latest'|'error'} */
  #reset;
  /** @type {number} */
  #maxBytes;
  /** @type {number} */
  #maxWaitMs;
  /** After an empty answer or a seek. @type {{ minBytes: number, minWaitMs: number }} */
  #plainMin;
  /** After an answer with records (a streaming fetch). @type {{ minBytes: number, minWaitMs: number }} */
  #streamMin;
  /** @type {number|null} */
  #autoCommitMs;
  /** @type {number} */
  #retryBackoffMs;
  /** @type {Part[]} */
  #parts;
  /** Fetches answered, not handled yet. @type {Array<{ pidx: number, generation: number, offset: number, result?: import('./records.js').FetchResponse, error?: any }>} */
  #done;
  /** @type {(() => void) | null} */
  #wake;
  /** @type {{ pidx: number, it: Generator<Record> } | null} */
  #current;
  /** @type {number|null} */
  #nextAutoCommit;
  /** @type {boolean} */
  #closed;

  /**
   * Start consuming `topic`: look up its partitions (creating the topic if
   * the broker auto-creates), resolve every start position and send the
   * first fetches.
   * @param {import('./connection.js').Client} client
   * @param {string} topic
   * @param {ConsumerOptions} [options]
   * @returns {Promise<Consumer>}
   */
  static async create(client, topic, options = {}) {
    checkTopic(topic);
    if (options.group != null) checkGroup(options.group);
    let meta;
    try {
      meta = await client.metadata(topic);
    } catch (e) {
      if (!(e instanceof ClientError) || e.status !== 'UnknownTopic') throw e;
      // A fetch creates it when the broker auto-creates topics.
      await client.fetch(topic, 0, 0, 1, 0);
      meta = await client.metadata(topic);
    }
    const t = meta.find((m) => m.name === topic);
    if (!t) throw new ClientError('Broker', `broker refused: UnknownTopic: metadata does not describe ${topic}`, { status: 'UnknownTopic', statusCode: 1 });
    const wanted = options.partitions ?? t.partitions.map((p) => p.partition);
    const start = options.start ?? 'committed';
    const fallback = options.fallback ?? 'earliest';
    /** @type {Part[]} */
    const parts = [];
    for (const partition of wanted) {
      const pm = t.partitions.find((p) => p.partition === partition);
      if (!pm) throw new ClientError('Broker', `broker refused: UnknownPartition: ${topic} has no partition ${partition}`, { status: 'UnknownPartition', statusCode: 11 });
      const pick = (/** @type {string} */ f) => (f === 'latest' ? pm.highWatermark : pm.logStart);
      let committed = null;
      let position;
      if (typeof start === 'object') position = start.offset;
      else if (start === 'committed') {
        if (options.group != null) committed = await client.committed(options.group, topic, partition);
        position = committed ?? pick(fallback);
      } else position = pick(start);
      parts.push({ partition, position, fetchAt: position, inFlight: false, streaming: false, generation: 0, returned: null, finished: null, committed });
    }
    if (parts.length === 0) throw new ClientError('InvalidArgument', `invalid argument: no partitions to consume in ${topic}`);
    return new Consumer(client, topic, options, parts);
  }

  /**
   * Use {@link Consumer.create}.
   * @param {import('./connection.js').Client} client
   * @param {string} topic
   * @param {ConsumerOptions} options
   * @param {Part[]} parts
   */
  constructor(client, topic, options, parts) {
    this.#client = client;
    /** The topic. @type {string} */
    this.topic = topic;
    this.#group = options.group ?? null;
    this.#reset = options.reset ?? 'earliest';
    this.#maxBytes = options.maxBytes ?? 1 << 20;
    this.#maxWaitMs = options.maxWaitMs ?? 500;
    this.#plainMin = { minBytes: options.minBytes ?? 1, minWaitMs: options.minWaitMs ?? 5 };
    this.#streamMin = { minBytes: options.streamMinBytes ?? 1 << 16, minWaitMs: options.streamMinWaitMs ?? 2 };
    this.#autoCommitMs = options.autoCommitMs === undefined ? 5000 : options.autoCommitMs;
    this.#retryBackoffMs = options.retryBackoffMs ?? 100;
    this.#parts = parts;
    this.#done = [];
    this.#wake = null;
    this.#current = null;
    this.#nextAutoCommit = this.#group !== null && this.#autoCommitMs !== null ? Date.now() + this.#autoCommitMs : null;
    this.#closed = false;
    this.#startFetches();
  }

  /**
   * The position (next offset to return) of `partition`, or `null` if it is not consumed.
   * @param {number} partition
   * @returns {number|null}
   */
  position(partition) {
    return this.#parts.find((p) => p.partition === partition)?.position ?? null;
  }

  /**
   * Move `partition` to `offset`: what was fetched beyond is dropped.
   * @param {number} partition
   * @param {number} offset
   */
  seek(partition, offset) {
    const pidx = this.#parts.findIndex((p) => p.partition === partition);
    if (pidx < 0) throw new ClientError('InvalidArgument', `invalid argument: partition ${partition} is not consumed`);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new ClientError('InvalidArgument', `invalid argument: offset ${offset}`);
    this.#reposition(pidx, offset);
  }

  /**
   * @param {number} pidx
   * @param {number} offset
   */
  #reposition(pidx, offset) {
    if (this.#current?.pidx === pidx) this.#current = null;
    const p = this.#parts[pidx];
    p.generation++;
    p.inFlight = false;
    p.position = offset;
    p.streaming = false;
    p.fetchAt = offset;
  }

  /**
   * @param {number} pidx
   * @param {number} [delayMs]
   */
  #spawnFetch(pidx, delayMs = 0) {
    const p = this.#parts[pidx];
    p.inFlight = true;
    const { generation, fetchAt: offset, partition } = p;
    const params = { maxBytes: this.#maxBytes, maxWaitMs: this.#maxWaitMs, ...(p.streaming ? this.#streamMin : this.#plainMin) };
    const run = () => {
      if (this.#closed) return;
      this.#client.fetchWith(this.topic, partition, offset, params).then(
        (result) => this.#deliver({ pidx, generation, offset, result }),
        (error) => this.#deliver({ pidx, generation, offset, error }),
      );
    };
    if (delayMs > 0) setTimeout(run, delayMs);
    else run();
  }

  /**
   * @param {{ pidx: number, generation: number, offset: number, result?: any, error?: any }} done
   */
  #deliver(done) {
    if (this.#closed) return;
    this.#done.push(done);
    const w = this.#wake;
    this.#wake = null;
    if (w) w();
  }

  #startFetches() {
    for (let i = 0; i < this.#parts.length; i++) if (!this.#parts[i].inFlight) this.#spawnFetch(i);
  }

  /**
   * Handle a fetch's outcome; throws what is for the application.
   * @param {{ pidx: number, generation: number, offset: number, result?: import('./records.js').FetchResponse, error?: any }} done
   */
  #onFetch(done) {
    const p = this.#parts[done.pidx];
    if (done.generation !== p.generation) return; // disowned by a seek or reset
    p.inFlight = false;
    if (done.result) {
      let next;
      try {
        next = done.result.nextOffset();
      } catch (e) {
        p.generation++;
        throw e;
      }
      p.streaming = next !== null;
      if (next === null) {
        this.#spawnFetch(done.pidx);
      } else if (next <= done.offset) {
        // The batch holding the offset asked for must come first; refetching would loop.
        p.generation++;
        throw new ClientError('Protocol', `protocol error: fetch response ends at ${next}, before the offset ${done.offset} asked for`);
      } else {
        p.fetchAt = next;
        const it = done.result.records(p.position);
        // Keep the next fetch in flight while these are handled.
        this.#spawnFetch(done.pidx);
        this.#current = { pidx: done.pidx, it };
      }
      return;
    }
    const e = done.error;
    if (e instanceof ClientError && e.code === 'OffsetOutOfRange') {
      if (this.#reset === 'error') throw e;
      const to = this.#reset === 'latest' ? /** @type {number} */ (e.highWatermark) : /** @type {number} */ (e.logStart);
      this.#reposition(done.pidx, to);
      this.#spawnFetch(done.pidx);
      return;
    }
    if (e instanceof ClientError && e.retriable && !this.#client.isClosed) {
      this.#spawnFetch(done.pidx, this.#retryBackoffMs);
      return;
    }
    throw e;
  }

  #finishReturned() {
    for (const p of this.#parts) p.finished = p.returned;
  }

  /**
   * A record from the current fetch response, if any is left.
   * @returns {Record|null}
   */
  #takeBuffered() {
    const cur = this.#current;
    if (!cur) return null;
    let r;
    try {
      r = cur.it.next();
    } catch (e) {
      // Stay at the bad batch: disown the prefetch beyond it.
      this.#current = null;
      this.#reposition(cur.pidx, this.#parts[cur.pidx].position);
      throw e;
    }
    if (r.done) {
      this.#current = null;
      return null;
    }
    const p = this.#parts[cur.pidx];
    p.position = r.value.offset + 1;
    p.returned = p.position;
    return r.value;
  }

  /**
   * The next record if one is already fetched: no waiting, no I/O. `null`
   * means call {@link Consumer.next}. Marks every record returned before as finished.
   * @returns {Record|null}
   */
  tryNext() {
    if (!this.#current || (this.#nextAutoCommit !== null && this.#nextAutoCommit <= Date.now())) return null;
    this.#finishReturned();
    return this.#takeBuffered();
  }

  /**
   * The next record, waiting for one as long as it takes. Calling it marks
   * every record returned before as finished.
   * @returns {Promise<Record>}
   */
  async next() {
    this.#finishReturned();
    if (this.#closed) throw new ClientError('Closed', 'closed: the consumer was closed');
    if (this.#nextAutoCommit !== null && this.#nextAutoCommit <= Date.now()) await this.#autoCommit();
    for (;;) {
      const r = this.#takeBuffered();
      if (r) return r;
      const done = this.#done.shift();
      if (done) {
        this.#onFetch(done);
        continue;
      }
      this.#startFetches();
      /** @type {any} */
      let timer = null;
      await new Promise((resolve) => {
        this.#wake = () => resolve(undefined);
        if (this.#nextAutoCommit !== null) {
          timer = setTimeout(() => resolve(undefined), Math.max(0, this.#nextAutoCommit - Date.now()));
        }
      });
      this.#wake = null;
      clearTimeout(timer);
      if (this.#closed) throw new ClientError('Closed', 'closed: the consumer was closed');
      if (this.#nextAutoCommit !== null && this.#nextAutoCommit <= Date.now()) await this.#autoCommit();
    }
  }

  /**
   * Records as an async iterator: `for await (const r of consumer)`.
   * @returns {AsyncGenerator<Record>}
   */
  async *[Symbol.asyncIterator]() {
    for (;;) yield await this.next();
  }

  async #autoCommit() {
    if (this.#autoCommitMs !== null) this.#nextAutoCommit = Date.now() + this.#autoCommitMs;
    try {
      await this.#commitPositions((p) => p.finished);
    } catch {
      // Retried at the next period, as in Rust (which logs a warning).
    }
  }

  /**
   * @param {(p: Part) => number|null} which
   */
  async #commitPositions(which) {
    if (this.#group === null) throw new ClientError('InvalidArgument', 'invalid argument: commit needs a consumer group (options.group)');
    for (const p of this.#parts) {
      const offset = which(p);
      if (offset === null || p.committed === offset) continue;
      await this.#client.commit(this.#group, this.topic, p.partition, offset);
      p.committed = offset;
    }
  }

  /**
   * Commit the position after the last record returned by `next()` in each
   * partition (the record being handled included).
   * @returns {Promise<void>}
   */
  async commit() {
    await this.#commitPositions((p) => p.returned);
  }

  /**
   * The committed offsets this consumer knows of, by partition.
   * @returns {Array<[number, number|null]>}
   */
  committed() {
    return this.#parts.map((p) => [p.partition, p.committed]);
  }

  /**
   * Stop: with a group and auto-commit, commit everything returned; fetches
   * in flight are abandoned (their answers are ignored). A `next()` waiting
   * meanwhile fails with `Closed`.
   * @returns {Promise<void>}
   */
  async close() {
    if (this.#closed) return;
    const commit = this.#group !== null && this.#autoCommitMs !== null;
    this.#closed = true;
    const w = this.#wake;
    this.#wake = null;
    if (w) w();
    if (commit) await this.commit();
  }
}
