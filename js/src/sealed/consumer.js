/**
 * {@link SealedConsumer}: the crypto layer's `Opener` on top of the
 * {@link Consumer}, mirroring client/src/sealed/consumer.rs.
 * {@link SealedConsumer.next} yields, per record, either an
 * {@link OpenedRecord} (`ok: true`) or a {@link SealedRecordError}
 * (`ok: false`) naming the record's topic, partition and offset — nothing is
 * skipped silently. Transport errors are thrown (`ClientError`).
 *
 * Commits never pass a record that failed to open and was not acknowledged
 * with {@link SealedConsumer.ack}: the oldest such record is as far as a
 * commit goes — but not forever: past `maxHeld` held records in a partition
 * (default 1000) or `maxHeldAgeMs` (default 1 hour) the oldest is released,
 * reported once more as a `Released` notice with its offset. Records
 * addressed to others (`NotForMe`) count as handled.
 *
 * Replay state across restarts (docs/ENVELOPE.md §13): with a group (and
 * `persistState`, the default) the consumer saves, before every commit, per
 * sender the highest `seq` opened below the positions being committed,
 * sealed to its own identity in the identity's state topic
 * `state.<fingerprint hex>`, and restores it at start, so a record replayed
 * after a restart is refused as `Replayed` (sealed/state.js).
 *
 * @module sealed/consumer
 */

import { fromHex } from '../bytes.js';
import { Consumer } from '../client/consumer.js';
import { Mode, RecordView } from '../crypto/envelope.js';
import { OpenError } from '../crypto/errors.js';
import { Fingerprint } from '../crypto/identity.js';
import { Opener } from '../crypto/open.js';
import { StateError } from '../crypto/state.js';
import { ClientError } from '../protocol/error.js';
import { OpenedRecord, SealedRecordError } from './records.js';
import { ConsumerState, StateStore, consumerKey, stateTopic } from './state.js';

/**
 * The header of a well-formed sealed record that holds nothing for `own`.
 * @param {Uint8Array} value
 * @param {import('../crypto/identity.js').Kid} own
 * @returns {{ sender: import('../crypto/identity.js').Kid, own: boolean, mode: string } | null}
 */
function addressedElsewhere(value, own) {
  let view;
  try {
    view = RecordView.parse(value);
  } catch {
    return null;
  }
  const ownBytes = own.asBytes();
  const same = (/** @type {Uint8Array} */ a) => a.length === ownBytes.length && a.every((x, i) => x === ownBytes[i]);
  const forMe =
    view.header.mode === Mode.Direct
      ? view.body.recipient.equals(own)
      : view.body.entries.some((/** @type {{ kidBytes: Uint8Array }} */ e) => same(e.kidBytes));
  if (forMe) return null;
  return { sender: view.header.sender, own: view.header.sender.equals(own), mode: view.header.mode };
}

/**
 * @typedef {import('../client/consumer.js').ConsumerOptions & {
 *   persistState?: boolean, maxHeld?: number, maxHeldAgeMs?: number }} SealedConsumerOptions
 * The {@link Consumer}'s options, plus:
 * - `persistState`: with a group, save the replay state (per sender the
 *   highest seq opened below the committed offsets) in the identity's state
 *   topic, sealed to itself, before every commit, and restore it at start,
 *   so a record replayed after a restart is refused as `Replayed`. Default
 *   true; without a group it does nothing.
 * - `maxHeld`: most records of one partition that failed to open and hold
 *   the commit back; past it the oldest is released (a `Released` notice).
 *   Default 1000.
 * - `maxHeldAgeMs`: longest a record that failed to open holds the commit
 *   back before it is released. Default 3600000 (1 hour).
 */

/**
 * Where a consumer's replay windows came from at start (Rust's `StateOrigin`):
 * `{ kind: 'NotPersisted' }` (no group, or `persistState` off: windows start
 * empty), `{ kind: 'Fresh' }` (persisted, but nothing saved yet for this
 * group and topic: each sender's first record starts its window) or
 * `{ kind: 'Restored', senders, floor }` (windows for `senders` senders, and
 * records from the others at or below `floor` are refused).
 * @typedef {{ kind: 'NotPersisted' } | { kind: 'Fresh' } | { kind: 'Restored', senders: number, floor: bigint }} StateOrigin
 */

/**
 * One partition's commit bookkeeping.
 * @typedef {object} Track
 * @property {number|null} returned  after the last record returned
 * @property {Map<number, { since: number, timestampNs: bigint }>} held records that failed to open, not acknowledged
 * @property {number|null} committed what the broker last acknowledged
 * @property {Array<{ offset: number, fp: Fingerprint, seq: bigint }>} pending with persistState:
 *   records opened after the oldest held one, noted in the state once a commit target passes them
 */

/** @returns {Track} */
function newTrack(committed = null) {
  return { returned: null, held: new Map(), committed, pending: [] };
}

/** @param {Track} t @returns {number|undefined} the oldest held offset */
function oldestHeld(t) {
  let min;
  for (const o of t.held.keys()) if (min === undefined || o < min) min = o;
  return min;
}

/**
 * Reads a topic and opens every record for one identity. Create it with
 * {@link SealedConsumer.create}.
 */
export class SealedConsumer {
  /**
   * Start reading `topic` as `identity`, trusting records from `trusted`.
   * `options` are the {@link Consumer}'s plus `persistState`, `maxHeld` and
   * `maxHeldAgeMs` ({@link SealedConsumerOptions}): with a `group`, reading
   * starts at the group's committed offsets, the replay state saved with the
   * last commit is restored (see {@link SealedConsumer#stateOrigin}), and
   * `autoCommitMs` commits as described in the module docs (never past a
   * held record).
   *
   * Throws `TrustError`, `StateError` (kind `Store`: the state topic cannot
   * be created or read, or its latest record does not open), `ClientError`.
   *
   * The state's offsets replace the broker's commit (when ahead of it, a
   * crash between saving and committing) only when `start` is `'committed'`
   * (the default), as in Rust.
   * @param {import('../client/connection.js').Client} client
   * @param {Identity} identity
   * @param {PublicKey[]} trusted
   * @param {string} topic
   * @param {SealedConsumerOptions} [options]
   * @returns {Promise<SealedConsumer>}
   */
  static async create(client, identity, trusted, topic, options = {}) {
    const opener = new Opener(identity);
    for (const k of trusted) await opener.trust(k);
    const autoCommitMs = options.autoCommitMs === undefined ? 5000 : options.autoCommitMs;
    const group = options.group ?? null;
    // `state`: the state as of the next commit — the one restored or last
    // saved, plus the records opened since at offsets every commit now covers.
    /** @type {{ store: StateStore, logical: Uint8Array, state: ConsumerState } | null} */
    let persist = null;
    /** @type {StateOrigin} */
    let origin = { kind: 'NotPersisted' };
    if (group !== null && (options.persistState ?? true)) {
      const store = await StateStore.open(client, identity);
      const logical = consumerKey(group, topic);
      const bytes = await store.load(logical);
      let saved = null;
      if (bytes) {
        saved = ConsumerState.decode(bytes);
        bytes.fill(0);
        if (!saved) throw new StateError('Store', `sealed state in topic ${stateTopic(identity)}: the latest state record is not a consumer state this version reads`, { topic: store.topic });
        // Exactly the windows, not "everything up to the highest": a record
        // of another partition not committed yet opens after the restart.
        for (const [fp, w] of saved.senders) await opener.restoreWindow(topic, Fingerprint.fromBytes(fromHex(fp)), w);
        opener.restoreFloor(topic, saved.floor);
        origin = { kind: 'Restored', senders: saved.senders.size, floor: saved.floor };
      } else origin = { kind: 'Fresh' };
      persist = { store, logical, state: saved ?? new ConsumerState() };
    }
    // The inner consumer must not commit: its rule would pass records that failed to open.
    const { persistState: _p, maxHeld: _m, maxHeldAgeMs: _a, ...plain } = options;
    const inner = await Consumer.create(client, topic, { ...plain, autoCommitMs: null });
    const c = new SealedConsumer(client, inner, opener, identity, group, autoCommitMs);
    c._maxHeld = Math.max(1, options.maxHeld ?? 1000);
    c._maxHeldAgeMs = options.maxHeldAgeMs ?? 3_600_000;
    c._persist = persist;
    c._origin = origin;
    // A crash after the state was saved but before the commit: the state's
    // offsets are the truth (its windows know those records).
    if (persist && (options.start ?? 'committed') === 'committed') {
      for (const [partition, offset] of persist.state.committed) {
        let t = c._tracks.get(partition);
        if (!t) c._tracks.set(partition, (t = newTrack()));
        if ((t.committed === null || t.committed < offset) && inner.position(partition) !== null) {
          inner.seek(partition, offset);
          t.returned = offset;
        }
      }
    }
    return c;
  }

  /**
   * Use {@link SealedConsumer.create}.
   * @param {import('../client/connection.js').Client} client
   * @param {Consumer} inner
   * @param {Opener} opener
   * @param {Identity} identity
   * @param {string|null} group
   * @param {number|null} autoCommitMs
   */
  constructor(client, inner, opener, identity, group, autoCommitMs) {
    /** @private */
    this._client = client;
    /** @private */
    this._inner = inner;
    /** @private */
    this._opener = opener;
    /** @private */
    this._ownKid = identity.kid();
    /** @private */
    this._group = group;
    /** @private */
    this._autoCommitMs = autoCommitMs;
    /** @private */
    this._nextAutoCommit = group !== null && autoCommitMs !== null ? Date.now() + autoCommitMs : null;
    /** @private @type {Map<number, Track>} */
    this._tracks = new Map(inner.committed().map(([p, committed]) => [p, newTrack(committed)]));
    /** @private @type {Promise<{ v?: any, e?: any }> | null} an inner next() still running */
    this._pendingNext = null;
    /** @private */
    this._maxHeld = 1000;
    /** @private */
    this._maxHeldAgeMs = 3_600_000;
    /** @private @type {SealedRecordError[]} released records, returned by next() before any other */
    this._notices = [];
    /** @private @type {{ store: StateStore, logical: Uint8Array, state: ConsumerState } | null} */
    this._persist = null;
    /** @private @type {StateOrigin} */
    this._origin = { kind: 'NotPersisted' };
    /** @private commits run one at a time (the periodic one and the application's) */
    this._commitChain = Promise.resolve();
  }

  /**
   * Where the replay windows came from at start.
   * @returns {StateOrigin}
   */
  stateOrigin() {
    return { ...this._origin };
  }

  /** The topic. */
  get topic() {
    return this._inner.topic;
  }

  /** The identity records are opened for. @returns {Identity} */
  get identity() {
    return this._opener.identity;
  }

  /** Trust one more sender. @param {PublicKey} sender */
  trust(sender) {
    return this._opener.trust(sender);
  }

  /**
   * Trust `sender` and the separate key it signs with.
   * @param {PublicKey} sender
   * @param {import('../crypto/signing.js').SigningPublicKey} signing
   */
  trustSigner(sender, signing) {
    return this._opener.trustSigner(sender, signing);
  }

  /** Stop trusting a sender; returns whether it was trusted. @param {import('../crypto/identity.js').Fingerprint} sender */
  distrust(sender) {
    return this._opener.distrust(sender);
  }

  /** Accept legacy ChatCrypto records (off by default). @param {boolean} allow */
  allowLegacy(allow) {
    this._opener.allowLegacy(allow);
  }

  /** Refuse unsigned records (off by default). @param {boolean} require */
  requireSignatures(require) {
    this._opener.requireSignatures(require);
  }

  /**
   * Highest `seq` opened from `sender` on this topic.
   * @param {import('../crypto/identity.js').Fingerprint} sender
   * @returns {bigint|undefined}
   */
  highWater(sender) {
    return this._opener.highWater(this.topic, sender);
  }

  /**
   * Restore a persisted high-water mark for `sender` (on top of what
   * `persistState` restores).
   * @param {import('../crypto/identity.js').Fingerprint} sender
   * @param {bigint} seq
   */
  restoreHighWater(sender, seq) {
    return this._opener.restoreHighWater(this.topic, sender, seq);
  }

  /**
   * The next record, opened (`OpenedRecord`, `ok: true`) or not
   * (`SealedRecordError`, `ok: false`, including `Released` notices),
   * waiting as long as it takes. Calling it marks every record returned
   * before as finished. Throws only the transport's errors (connection,
   * corrupt batch: see `Consumer.next`).
   * @returns {Promise<OpenedRecord|SealedRecordError>}
   */
  async next() {
    this._releaseOld();
    const notice = this._notices.shift();
    if (notice) return notice;
    if (this._nextAutoCommit !== null && this._nextAutoCommit <= Date.now()) await this._autoCommit();
    if (!this._pendingNext) {
      const buffered = this._inner.tryNext();
      if (buffered) return this._open(buffered);
      const p = this._inner.next();
      this._pendingNext = p.then(
        (v) => ({ v }),
        (e) => ({ e }),
      );
    }
    for (;;) {
      /** @type {any} */
      let timer = null;
      const due = this._nextDeadline();
      const tick = due === null ? null : new Promise((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, due - Date.now()))));
      const r = await (tick ? Promise.race([this._pendingNext, tick]) : this._pendingNext);
      clearTimeout(timer);
      if (r === null) {
        // A held record may be due for release while waiting for records.
        this._releaseOld();
        const n = this._notices.shift();
        if (n) return n;
        // The periodic commit runs while waiting for records too.
        if (this._nextAutoCommit !== null && this._nextAutoCommit <= Date.now()) await this._autoCommit();
        continue;
      }
      this._pendingNext = null;
      if (r.e) throw r.e;
      return this._open(r.v);
    }
  }

  /**
   * The earliest of the next periodic commit and the next held record's
   * release by age, or `null`.
   * @private
   * @returns {number|null}
   */
  _nextDeadline() {
    let due = this._nextAutoCommit;
    for (const t of this._tracks.values()) {
      const o = oldestHeld(t);
      if (o === undefined) continue;
      const at = /** @type {{ since: number }} */ (t.held.get(o)).since + this._maxHeldAgeMs;
      if (due === null || at < due) due = at;
    }
    return due;
  }

  /**
   * Release held records older than `maxHeldAgeMs` (as notices), oldest
   * offset first, as Rust does.
   * @private
   */
  _releaseOld() {
    const now = Date.now();
    for (const [partition, t] of this._tracks) {
      for (;;) {
        const o = oldestHeld(t);
        if (o === undefined) break;
        const h = /** @type {{ since: number, timestampNs: bigint }} */ (t.held.get(o));
        if (now - h.since < this._maxHeldAgeMs) break;
        t.held.delete(o);
        this._notices.push(this._released(partition, o, h.timestampNs, { ageMs: this._maxHeldAgeMs }));
      }
    }
  }

  /**
   * @private
   * @param {number} partition
   * @param {number} offset
   * @param {bigint} timestampNs
   * @param {{ count: number } | { ageMs: number }} why
   */
  _released(partition, offset, timestampNs, why) {
    return new SealedRecordError({ topic: this.topic, partition, offset, timestampNs, kind: 'Released', why });
  }

  /**
   * Records as an async iterator.
   * @returns {AsyncGenerator<OpenedRecord|SealedRecordError>}
   */
  async *[Symbol.asyncIterator]() {
    for (;;) yield await this.next();
  }

  /**
   * @private
   * @param {import('../client/records.js').Record} record
   * @returns {Promise<OpenedRecord|SealedRecordError>}
   */
  async _open(record) {
    const { topic, partition, offset, timestampNs, key, value } = record;
    let track = this._tracks.get(partition);
    if (!track) {
      track = newTrack();
      this._tracks.set(partition, track);
    }
    track.returned = offset + 1;
    try {
      const { opened, plaintext } = await this._opener.open(topic, value);
      if (opened.seq !== undefined && this._persist) {
        // Note the record in the replay state: at once if nothing is held
        // (every commit from now on covers it), else once a commit passes it.
        if (track.held.size === 0) this._persist.state.note(opened.sender.toHex(), opened.seq);
        else track.pending.push({ offset, fp: opened.sender, seq: opened.seq });
      }
      return new OpenedRecord({ topic, partition, offset, timestampNs, key, ...opened, plaintext });
    } catch (e) {
      if (!(e instanceof OpenError)) throw e;
      const elsewhere = addressedElsewhere(value, this._ownKid);
      if (elsewhere) return new SealedRecordError({ topic, partition, offset, timestampNs, kind: 'NotForMe', ...elsewhere });
      track.held.set(offset, { since: Date.now(), timestampNs });
      while (track.held.size > this._maxHeld) {
        const o = /** @type {number} */ (oldestHeld(track));
        const h = /** @type {{ timestampNs: bigint }} */ (track.held.get(o));
        track.held.delete(o);
        this._notices.push(this._released(partition, o, h.timestampNs, { count: this._maxHeld }));
      }
      return new SealedRecordError({ topic, partition, offset, timestampNs, kind: 'Open', openError: e });
    }
  }

  /**
   * Let commits move past a record that failed to open; returns whether it
   * was holding commits back.
   * @param {number} partition
   * @param {number} offset
   * @returns {boolean}
   */
  ack(partition, offset) {
    return this._tracks.get(partition)?.held.delete(offset) ?? false;
  }

  /**
   * Move `partition` to `offset`; the commit position follows it, except
   * that held records before `offset` stay held.
   * @param {number} partition
   * @param {number} offset
   */
  seek(partition, offset) {
    this._inner.seek(partition, offset);
    this._pendingNext = null; // its answer, if any, belongs to the old position
    let t = this._tracks.get(partition);
    if (!t) {
      t = newTrack();
      this._tracks.set(partition, t);
    }
    for (const h of [...t.held.keys()]) if (h >= offset) t.held.delete(h);
    t.pending = t.pending.filter((p) => p.offset < offset);
    t.returned = offset;
  }

  /** The position of `partition`, or `null`. @param {number} partition */
  position(partition) {
    return this._inner.position(partition);
  }

  /**
   * The offsets still held per partition.
   * @returns {Array<[number, number[]]>}
   */
  held() {
    return [...this._tracks].filter(([, t]) => t.held.size > 0).map(([p, t]) => [p, [...t.held.keys()].sort((a, b) => a - b)]);
  }

  /**
   * The committed offsets this consumer knows of, by partition.
   * @returns {Array<[number, number|null]>}
   */
  committed() {
    return [...this._tracks].map(([p, t]) => [p, t.committed]);
  }

  /** @private */
  async _autoCommit() {
    if (this._autoCommitMs !== null) this._nextAutoCommit = Date.now() + this._autoCommitMs;
    try {
      await this.commit();
    } catch {
      // Retried at the next period.
    }
  }

  /**
   * Commit, per partition, the position after the last record returned — but
   * not past the oldest record that failed to open and was not acknowledged.
   * With `persistState`, the replay state for those positions is saved first
   * (acknowledged durable); if that fails nothing is committed (`StateError`).
   * @returns {Promise<void>}
   */
  commit() {
    const run = this._commitChain.then(() => this._commitNow());
    this._commitChain = run.catch(() => {});
    return run;
  }

  /** @private */
  async _commitNow() {
    if (this._group === null) throw new ClientError('InvalidArgument', 'invalid argument: commit needs a consumer group (options.group)');
    /** @type {Array<[number, number]>} */
    const targets = [];
    for (const [partition, t] of this._tracks) {
      if (t.returned === null) continue;
      const h = oldestHeld(t);
      const offset = h === undefined ? t.returned : Math.min(t.returned, h);
      if (t.committed === offset) continue;
      // Note the pending records below the target: the commit covers them.
      const state = this._persist?.state;
      while (state && t.pending.length > 0 && t.pending[0].offset < offset) {
        const p = /** @type {{ fp: Fingerprint, seq: bigint }} */ (t.pending.shift());
        state.note(p.fp.toHex(), p.seq);
      }
      targets.push([partition, offset]);
    }
    if (targets.length === 0) return;
    const persist = this._persist;
    if (persist) {
      // Updated in place, as Rust: if saving fails, the next commit saves
      // these offsets and windows again (positions only move on).
      for (const [partition, offset] of targets) persist.state.committed.set(partition, offset);
      persist.state.bound();
      const bytes = persist.state.encode();
      try {
        await persist.store.save(persist.logical, bytes);
      } finally {
        bytes.fill(0);
      }
    }
    for (const [partition, offset] of targets) {
      await this._client.commit(this._group, this.topic, partition, offset);
      const t = this._tracks.get(partition);
      if (t) t.committed = offset;
    }
  }

  /** Stop: with a group and auto-commit, a final commit. */
  async close() {
    if (this._group !== null && this._autoCommitMs !== null) await this.commit();
    await this._inner.close();
  }
}
