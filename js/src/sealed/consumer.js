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
 * Duplicates (docs/ENVELOPE.md §11, "Retried records"): a producer that
 * lost its connection before the answer resends the batch's identical bytes,
 * so a record can be in the log twice. A record byte-for-byte identical to
 * one this consumer returned opened — among the last `duplicateWindow` it
 * returned — is dropped quietly: not returned, not a `Replayed` error,
 * counted in {@link SealedConsumer#duplicatesDropped}; commits pass it. Any
 * other record whose (sender, seq) was seen is still refused as `Replayed`.
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

import { fromHex, toHex } from '../bytes.js';
import { Consumer } from '../client/consumer.js';
import { Mode, RecordView } from '../crypto/envelope.js';
import { OpenError } from '../crypto/errors.js';
import { Fingerprint } from '../crypto/identity.js';
import { Opener } from '../crypto/open.js';
import { StateError } from '../crypto/state.js';
import { sha256 } from '../crypto/webcrypto.js';
import { ClientError } from '../protocol/error.js';
import { OpenedRecord, SealedRecordError } from './record.js';
import { CommitRolledBack, ConsumerState, StateStore, consumerKey, stateTopic } from './state.js';

/** @import { Identity, PublicKey } from '../crypto/identity.js' */

/**
 * The header of a well-formed sealed record that holds nothing for `own`.
 * @param {Uint8Array} value
 * @param {import('../crypto/identity.js').Kid} own
 * @returns {{ sender: import('../crypto/identity.js').Kid, own: boolean, mode: import('../crypto/envelope.js').ModeName } | null}
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
      ? /** @type {import('../crypto/envelope.js').DirectBody} */ (view.body).recipient.equals(own)
      : /** @type {import('../crypto/envelope.js').MultiBody} */ (view.body).entries.some((e) => same(e.kidBytes));
  if (forMe) return null;
  return { sender: view.header.sender, own: view.header.sender.equals(own), mode: view.header.mode };
}

/**
 * @typedef {import('../client/consumer.js').ConsumerOptions & {
 *   persistState?: boolean, maxHeld?: number, maxHeldAgeMs?: number, duplicateWindow?: number,
 *   stateAnchors?: import('./state.js').StateAnchors|null }} SealedConsumerOptions
 * The {@link Consumer}'s options, plus:
 * - `duplicateWindow`: how many of the records it returned opened this
 *   consumer remembers (SHA-256 of their bytes), so that a second,
 *   identical copy — a producer's retry — is dropped quietly instead of
 *   refused as `Replayed`. Default 16384 (about 1.5 MB); 0 turns it off.
 * - `stateAnchors`: where this device anchors its sealed state, out of the
 *   broker's reach (docs/ENVELOPE.md §13): the state's generation and record
 *   hash, written after the state's durable ack and its commits. At start a
 *   state below the anchor is refused (`StateRolledBack`), and so is a group
 *   commit below the anchored state's offsets (`CommitRolledBack`); a newer
 *   state (a crash between the two writes) is accepted and the anchor moves
 *   up. Node: `StateAnchorsFile` (`hermitmq/node`). Default: none (the state
 *   is taken as served).
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

/**
 * With persistState: the state topic, the state's logical key, and the state
 * as of the next commit.
 * @typedef {{ store: StateStore, logical: Uint8Array, state: ConsumerState }} Persist
 */

/**
 * @param {number|null} [committed]
 * @returns {Track}
 */
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
  /** @type {import('../client/connection.js').Client} */
  #client;
  /** @type {Consumer} */
  #inner;
  /** @type {Opener} */
  #opener;
  /** @type {import('../crypto/identity.js').Kid} */
  #ownKid;
  /** @type {string|null} */
  #group;
  /** @type {number|null} */
  #autoCommitMs;
  /** @type {number|null} */
  #nextAutoCommit;
  /** @type {Map<number, Track>} */
  #tracks;
  /** An inner next() still running. @type {Promise<{ v?: any, e?: any }> | null} */
  #pendingNext;
  /** @type {number} */
  #maxHeld;
  /** @type {number} */
  #maxHeldAgeMs;
  /** Released records, returned by next() before any other. @type {SealedRecordError[]} */
  #notices;
  /** @type {Persist|null} */
  #persist;
  /** @type {StateOrigin} */
  #origin;
  /** Commits run one at a time (the periodic one and the application's). @type {Promise<void>} */
  #commitChain;
  /** SHA-256 (hex) of the records returned opened, oldest first. @type {Set<string>} */
  #delivered = new Set();
  /** @type {number} */
  #duplicateWindow = 16384;
  /** @type {number} */
  #duplicates = 0;

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
    /** @type {Persist|null} */
    let persist = null;
    /** @type {StateOrigin} */
    let origin = { kind: 'NotPersisted' };
    /** How the restored state stood against the anchor. @type {{ standing: import('./state.js').Standing, record: Uint8Array }|null} */
    let restored = null;
    if (group !== null && (options.persistState ?? true)) {
      const store = await StateStore.open(client, identity, options.stateAnchors ?? null);
      const logical = consumerKey(group, topic);
      const loaded = await store.loadRecord(logical);
      let saved = null;
      if (loaded) {
        saved = ConsumerState.decode(loaded.plaintext);
        loaded.plaintext.fill(0);
        if (!saved) throw new StateError('Store', `sealed state in topic ${stateTopic(identity)}: the latest state record is not a consumer state this version reads`, { topic: store.topic });
      }
      // Before anything of it reaches the opener: an older state than this
      // device anchored is refused here (StateRolledBack).
      const found = saved && loaded ? { generation: saved.generation, record: loaded.record } : null;
      const standing = await store.check(logical, found);
      restored = found ? { standing, record: found.record } : null;
      if (saved) {
        // Exactly the windows, not "everything up to the highest": a record
        // of another partition not committed yet opens after the restart.
        for (const [fp, w] of saved.senders) await opener.restoreWindow(topic, Fingerprint.fromBytes(fromHex(fp)), w);
        opener.restoreFloor(topic, saved.floor);
        origin = { kind: 'Restored', senders: saved.senders.size, floor: saved.floor };
      } else origin = { kind: 'Fresh' };
      persist = { store, logical, state: saved ?? new ConsumerState() };
    }
    // The inner consumer must not commit: its rule would pass records that failed to open.
    const { persistState: _p, maxHeld: _m, maxHeldAgeMs: _a, stateAnchors: _s, duplicateWindow: _d, ...plain } = options;
    const inner = await Consumer.create(client, topic, { ...plain, autoCommitMs: null });
    const c = new SealedConsumer(client, inner, opener, identity, group, autoCommitMs);
    c.#maxHeld = Math.max(1, options.maxHeld ?? 1000);
    c.#maxHeldAgeMs = options.maxHeldAgeMs ?? 3_600_000;
    c.#duplicateWindow = Math.max(0, options.duplicateWindow ?? 16384);
    c.#persist = persist;
    c.#origin = origin;
    // A crash after the state was saved but before the commit: the state's
    // offsets are the truth (its windows know those records).
    if (persist && (options.start ?? 'committed') === 'committed') {
      for (const [partition, offset] of persist.state.committed) {
        let t = c.#tracks.get(partition);
        if (!t) c.#tracks.set(partition, (t = newTrack()));
        if ((t.committed === null || t.committed < offset) && inner.position(partition) !== null) {
          inner.seek(partition, offset);
          t.returned = offset;
        }
      }
    }
    if (persist && restored && group !== null) await c.#settleAnchor(persist, restored.standing, restored.record, (options.start ?? 'committed') === 'committed');
    return c;
  }

  /**
   * At start, with a restored state (Rust's `Persist::settle_anchor`): hold
   * the broker to the anchor, or move the anchor up to a newer state
   * (finishing the commit it was saved for).
   * @param {Persist} persist
   * @param {import('./state.js').Standing} standing
   * @param {Uint8Array} record
   * @param {boolean} fromCommit
   */
  async #settleAnchor(persist, standing, record, fromCommit) {
    const group = /** @type {string} */ (this.#group);
    if (standing === 'AtAnchor' && fromCommit) {
      // This device anchored this state after the broker acknowledged its
      // commits: a commit below its offsets is the broker's doing.
      for (const [partition, state] of persist.state.committed) {
        const t = this.#tracks.get(partition);
        if (!t) continue;
        if (t.committed === null || t.committed < state) {
          throw new CommitRolledBack({
            topic: this.topic,
            group,
            partition,
            committed: t.committed,
            state,
            location: persist.store.anchorLocation(),
            line: await persist.store.anchorLine(persist.logical),
          });
        }
      }
    } else if (standing === 'Ahead') {
      // Finish the commit the state was saved for, so that the anchor about
      // to be written holds (the broker acknowledged both).
      for (const [partition, offset] of persist.state.committed) {
        const committed = await this.#client.committed(group, this.topic, partition);
        if (committed === null || committed === undefined || committed < offset) {
          await this.#client.commit(group, this.topic, partition, offset);
          const t = this.#tracks.get(partition);
          if (t) t.committed = offset;
        }
      }
      await persist.store.anchor(persist.logical, persist.state.generation, record);
    }
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
    this.#client = client;
    this.#inner = inner;
    this.#opener = opener;
    this.#ownKid = identity.kid();
    this.#group = group;
    this.#autoCommitMs = autoCommitMs;
    this.#nextAutoCommit = group !== null && autoCommitMs !== null ? Date.now() + autoCommitMs : null;
    this.#tracks = new Map(inner.committed().map(([p, committed]) => [p, newTrack(committed)]));
    this.#pendingNext = null;
    this.#maxHeld = 1000;
    this.#maxHeldAgeMs = 3_600_000;
    this.#notices = [];
    this.#persist = null;
    this.#origin = { kind: 'NotPersisted' };
    this.#commitChain = Promise.resolve();
  }

  /**
   * Where the replay windows came from at start.
   * @returns {StateOrigin}
   */
  stateOrigin() {
    return { ...this.#origin };
  }

  /** The topic. */
  get topic() {
    return this.#inner.topic;
  }

  /**
   * Second copies of records this consumer had returned, dropped quietly
   * (identical bytes: a producer's retry, or a broker serving one again).
   */
  get duplicatesDropped() {
    return this.#duplicates;
  }

  /** The identity records are opened for. @returns {Identity} */
  get identity() {
    return this.#opener.identity;
  }

  /** Trust one more sender. @param {PublicKey} sender */
  trust(sender) {
    return this.#opener.trust(sender);
  }

  /**
   * Trust `sender` and the separate key it signs with.
   * @param {PublicKey} sender
   * @param {import('../crypto/signing.js').SigningPublicKey} signing
   */
  trustSigner(sender, signing) {
    return this.#opener.trustSigner(sender, signing);
  }

  /** Stop trusting a sender; returns whether it was trusted. @param {import('../crypto/identity.js').Fingerprint} sender */
  distrust(sender) {
    return this.#opener.distrust(sender);
  }

  /** Accept legacy ChatCrypto records (off by default). @param {boolean} allow */
  allowLegacy(allow) {
    this.#opener.allowLegacy(allow);
  }

  /** Refuse unsigned records (off by default). @param {boolean} require */
  requireSignatures(require) {
    this.#opener.requireSignatures(require);
  }

  /**
   * Highest `seq` opened from `sender` on this topic.
   * @param {import('../crypto/identity.js').Fingerprint} sender
   * @returns {bigint|undefined}
   */
  highWater(sender) {
    return this.#opener.highWater(this.topic, sender);
  }

  /**
   * Restore a persisted high-water mark for `sender` (on top of what
   * `persistState` restores).
   * @param {import('../crypto/identity.js').Fingerprint} sender
   * @param {bigint} seq
   */
  restoreHighWater(sender, seq) {
    return this.#opener.restoreHighWater(this.topic, sender, seq);
  }

  /**
   * The next record, opened (`OpenedRecord`, `ok: true`) or not
   * (`SealedRecordError`, `ok: false`, including `Released` notices),
   * waiting as long as it takes; second copies of records returned before
   * are skipped (see {@link SealedConsumer#duplicatesDropped}). Calling it
   * marks every record returned before as finished. Throws only the
   * transport's errors (connection, corrupt batch: see `Consumer.next`).
   * @returns {Promise<OpenedRecord|SealedRecordError>}
   */
  async next() {
    for (;;) {
      const r = await this.#nextOrDuplicate();
      if (r !== null) return r;
    }
  }

  /**
   * One record: as {@link SealedConsumer#next}, or `null` for a duplicate.
   * @returns {Promise<OpenedRecord|SealedRecordError|null>}
   */
  async #nextOrDuplicate() {
    this.#releaseOld();
    const notice = this.#notices.shift();
    if (notice) return notice;
    if (this.#nextAutoCommit !== null && this.#nextAutoCommit <= Date.now()) await this.#autoCommit();
    if (!this.#pendingNext) {
      const buffered = this.#inner.tryNext();
      if (buffered) return this.#open(buffered);
      const p = this.#inner.next();
      this.#pendingNext = p.then(
        (v) => ({ v }),
        (e) => ({ e }),
      );
    }
    for (;;) {
      /** @type {any} */
      let timer = null;
      const due = this.#nextDeadline();
      const tick = due === null ? null : new Promise((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, due - Date.now()))));
      const r = await (tick ? Promise.race([this.#pendingNext, tick]) : this.#pendingNext);
      clearTimeout(timer);
      if (r === null) {
        // A held record may be due for release while waiting for records.
        this.#releaseOld();
        const n = this.#notices.shift();
        if (n) return n;
        // The periodic commit runs while waiting for records too.
        if (this.#nextAutoCommit !== null && this.#nextAutoCommit <= Date.now()) await this.#autoCommit();
        continue;
      }
      this.#pendingNext = null;
      if (r.e) throw r.e;
      return this.#open(r.v);
    }
  }

  /**
   * The earliest of the next periodic commit and the next held record's
   * release by age, or `null`.
   * @returns {number|null}
   */
  #nextDeadline() {
    let due = this.#nextAutoCommit;
    for (const t of this.#tracks.values()) {
      const o = oldestHeld(t);
      if (o === undefined) continue;
      const at = /** @type {{ since: number }} */ (t.held.get(o)).since + this.#maxHeldAgeMs;
      if (due === null || at < due) due = at;
    }
    return due;
  }

  /**
   * Release held records older than `maxHeldAgeMs` (as notices), oldest
   * offset first, as Rust does.
   */
  #releaseOld() {
    const now = Date.now();
    for (const [partition, t] of this.#tracks) {
      for (;;) {
        const o = oldestHeld(t);
        if (o === undefined) break;
        const h = /** @type {{ since: number, timestampNs: bigint }} */ (t.held.get(o));
        if (now - h.since < this.#maxHeldAgeMs) break;
        t.held.delete(o);
        this.#notices.push(this.#released(partition, o, h.timestampNs, { ageMs: this.#maxHeldAgeMs }));
      }
    }
  }

  /**
   * @param {number} partition
   * @param {number} offset
   * @param {bigint} timestampNs
   * @param {{ count: number } | { ageMs: number }} why
   */
  #released(partition, offset, timestampNs, why) {
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
   * @param {import('../client/records.js').Record} record
   * @returns {Promise<OpenedRecord|SealedRecordError|null>} `null`: a duplicate, dropped
   */
  async #open(record) {
    const { topic, partition, offset, timestampNs, key, value } = record;
    let track = this.#tracks.get(partition);
    if (!track) {
      track = newTrack();
      this.#tracks.set(partition, track);
    }
    track.returned = offset + 1;
    // Identical bytes to a record returned opened: the same sender, seq and
    // ciphertext, already handed out. Checked before the replay window,
    // which would call it Replayed (or, far enough behind, TooOld).
    const digest = this.#duplicateWindow > 0 ? toHex(await sha256(value)) : null;
    if (digest !== null && this.#delivered.has(digest)) {
      this.#duplicates++;
      return null;
    }
    try {
      const { opened, plaintext } = await this.#opener.open(topic, value);
      if (digest !== null) this.#remember(digest);
      if (opened.seq !== undefined && this.#persist) {
        // Note the record in the replay state: at once if nothing is held
        // (every commit from now on covers it), else once a commit passes it.
        if (track.held.size === 0) this.#persist.state.note(opened.sender.toHex(), opened.seq);
        else track.pending.push({ offset, fp: opened.sender, seq: opened.seq });
      }
      return new OpenedRecord({ topic, partition, offset, timestampNs, key, ...opened, plaintext });
    } catch (e) {
      if (!(e instanceof OpenError)) throw e;
      const elsewhere = addressedElsewhere(value, this.#ownKid);
      if (elsewhere) return new SealedRecordError({ topic, partition, offset, timestampNs, kind: 'NotForMe', ...elsewhere });
      track.held.set(offset, { since: Date.now(), timestampNs });
      while (track.held.size > this.#maxHeld) {
        const o = /** @type {number} */ (oldestHeld(track));
        const h = /** @type {{ timestampNs: bigint }} */ (track.held.get(o));
        track.held.delete(o);
        this.#notices.push(this.#released(partition, o, h.timestampNs, { count: this.#maxHeld }));
      }
      return new SealedRecordError({ topic, partition, offset, timestampNs, kind: 'Open', openError: e });
    }
  }

  /**
   * Remember a record returned opened, forgetting the oldest past `duplicateWindow`.
   * @param {string} digest
   */
  #remember(digest) {
    this.#delivered.add(digest);
    if (this.#delivered.size > this.#duplicateWindow) {
      this.#delivered.delete(/** @type {string} */ (this.#delivered.values().next().value));
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
    return this.#tracks.get(partition)?.held.delete(offset) ?? false;
  }

  /**
   * Move `partition` to `offset`; the commit position follows it, except
   * that held records before `offset` stay held.
   * @param {number} partition
   * @param {number} offset
   */
  seek(partition, offset) {
    this.#inner.seek(partition, offset);
    this.#pendingNext = null; // its answer, if any, belongs to the old position
    let t = this.#tracks.get(partition);
    if (!t) {
      t = newTrack();
      this.#tracks.set(partition, t);
    }
    for (const h of [...t.held.keys()]) if (h >= offset) t.held.delete(h);
    t.pending = t.pending.filter((p) => p.offset < offset);
    t.returned = offset;
  }

  /** The position of `partition`, or `null`. @param {number} partition */
  position(partition) {
    return this.#inner.position(partition);
  }

  /**
   * The offsets still held per partition.
   * @returns {Array<[number, number[]]>}
   */
  held() {
    return [...this.#tracks].filter(([, t]) => t.held.size > 0).map(([p, t]) => [p, [...t.held.keys()].sort((a, b) => a - b)]);
  }

  /**
   * The committed offsets this consumer knows of, by partition.
   * @returns {Array<[number, number|null]>}
   */
  committed() {
    return [...this.#tracks].map(([p, t]) => [p, t.committed]);
  }

  async #autoCommit() {
    if (this.#autoCommitMs !== null) this.#nextAutoCommit = Date.now() + this.#autoCommitMs;
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
    const run = this.#commitChain.then(() => this.#commitNow());
    this.#commitChain = run.catch(() => {});
    return run;
  }

  async #commitNow() {
    if (this.#group === null) throw new ClientError('InvalidArgument', 'invalid argument: commit needs a consumer group (options.group)');
    /** @type {Array<[number, number]>} */
    const targets = [];
    for (const [partition, t] of this.#tracks) {
      if (t.returned === null) continue;
      const h = oldestHeld(t);
      const offset = h === undefined ? t.returned : Math.min(t.returned, h);
      if (t.committed === offset) continue;
      // Note the pending records below the target: the commit covers them.
      const state = this.#persist?.state;
      while (state && t.pending.length > 0 && t.pending[0].offset < offset) {
        const p = /** @type {{ fp: Fingerprint, seq: bigint }} */ (t.pending.shift());
        state.note(p.fp.toHex(), p.seq);
      }
      targets.push([partition, offset]);
    }
    if (targets.length === 0) return;
    const persist = this.#persist;
    /** @type {Uint8Array|null} */
    let record = null;
    if (persist) {
      // Updated in place, as Rust: if saving fails, the next commit saves
      // these offsets and windows again (positions only move on).
      for (const [partition, offset] of targets) persist.state.committed.set(partition, offset);
      persist.state.bound();
      // One generation per attempt, as Rust: a failed save may still be
      // stored, and no two records may share a generation.
      persist.state.generation += 1n;
      const bytes = persist.state.encode();
      try {
        record = await persist.store.save(persist.logical, bytes);
      } finally {
        bytes.fill(0);
      }
    }
    for (const [partition, offset] of targets) {
      await this.#client.commit(this.#group, this.topic, partition, offset);
      const t = this.#tracks.get(partition);
      if (t) t.committed = offset;
    }
    // After the state's durable ack and its commits, never before. Should
    // this write fail, a restart finds the state ahead of the anchor and
    // accepts it.
    if (persist && record) await persist.store.anchor(persist.logical, persist.state.generation, record);
  }

  /** Stop: with a group and auto-commit, a final commit. */
  async close() {
    if (this.#group !== null && this.#autoCommitMs !== null) await this.commit();
    await this.#inner.close();
  }
}
