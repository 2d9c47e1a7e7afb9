/**
 * Sealed producer and consumer: the crypto layer (`Sealer`, `Opener`) on top
 * of the {@link Producer} and {@link Consumer}, mirroring client/src/sealed.rs.
 *
 * - {@link SealedProducer.send} seals a plaintext to one recipient (DIRECT) or
 *   several (MULTI) and blinds the record key; {@link SealedProducer.sendGroup}
 *   does the same for a {@link SealedGroup} with a shared key secret.
 * - {@link SealedConsumer.next} yields, per record, either an
 *   {@link OpenedRecord} (`ok: true`) or a {@link SealedRecordError}
 *   (`ok: false`) naming the record's topic, partition and offset — nothing is
 *   skipped silently. Transport errors are thrown (`ClientError`).
 *
 * Record keys are blinded: the batch key the broker sees is
 * `HMAC-SHA256(K_conv, "sealed-record/v1 key" ‖ k)[0..16]` with `K_conv` =
 * `K_pair(sender, recipient)` for one recipient, the sender's own
 * `K_self = K_pair(s, S)` over `u16(n) ‖ sorted fp(r_i) ‖ k` for several, and
 * the group secret for a {@link SealedGroup} (see sealed.rs for why).
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
 * after a restart is refused as `Replayed`. The producer likewise keeps its
 * DIRECT counts there (`persistBudgets`, reserved {@link BUDGET_RESERVE} at a
 * time before the first DIRECT record to each peer in a run). With
 * authentication the ACL needs a rule `topics = "state.{principal}"` allowing
 * produce, consume, create and describe (docs/SECURITY.md §3).
 *
 * Differences from Rust: records are sealed before they enter the producer
 * (Web Crypto is asynchronous, so there is no sealing in place under the
 * producer's lock); sealing runs concurrently, and records enter the producer
 * in the order `send` was called. Whole-call failures are thrown as they are
 * (`SealError`, `TrustError`, `OpenError`, `ClientError`) instead of being
 * wrapped in a `SealedError`.
 *
 * @module sealed
 */

import { ConversationKey } from './blind.js';
import { Consumer } from './consumer.js';
import { OpenError } from './crypto-errors.js';
import { fromHex } from './bytes.js';
import { Mode, RecordView } from './envelope.js';
import { Fingerprint, Identity, PublicKey } from './identity.js';
import { Opener } from './open.js';
import { ClientError } from './protocol.js';
import { Sealer } from './seal.js';
import { BUDGET_KEY, BudgetState, ConsumerState, MAX_BUDGET_PEERS, StateError, StateStore, consumerKey, stateTopic } from './state.js';

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * @param {Uint8Array|string} key
 * @returns {Uint8Array}
 */
function keyBytes(key) {
  return typeof key === 'string' ? utf8.encode(key) : key;
}

/**
 * A group whose members share a key secret for blinding record keys, so
 * equal logical keys compact together whoever sent them. Records to the group
 * are MULTI records to every member but the sender.
 */
export class SealedGroup {
  /**
   * @param {PublicKey[]} members the sender may be among them (it is left out of each record's recipients)
   * @param {ConversationKey} key the shared secret, from {@link SealedGroup.generate} or
   *   `ConversationKey.fromGroupSecret` of what a member sent
   */
  constructor(members, key) {
    /** @type {PublicKey[]} */
    this.members = [...members];
    /** @type {ConversationKey} */
    this.key = key;
    /** @private @type {{ fp: string, others: PublicKey[] } | null} */
    this._others = null;
  }

  /**
   * A group with a fresh random secret; send `group.key.groupSecretBytes()`
   * to the other members inside a sealed record.
   * @param {PublicKey[]} members
   * @returns {Promise<SealedGroup>}
   */
  static async generate(members) {
    return new SealedGroup(members, await ConversationKey.generateGroup());
  }

  /**
   * The batch key the broker sees for `logicalKey` in this group.
   * @param {Uint8Array|string} logicalKey
   */
  blind(logicalKey) {
    return this.key.blind(logicalKey);
  }

  /**
   * Every member but `own` (cached for the last sender).
   * @param {import('./identity.js').Fingerprint} own
   * @returns {PublicKey[]}
   */
  others(own) {
    const fp = own.toHex();
    if (this._others?.fp !== fp) {
      this._others = { fp, others: this.members.filter((m) => !m.fingerprint().equals(own)) };
    }
    return this._others.others;
  }

  toString() {
    return `SealedGroup(${this.members.length} members)`;
  }
}

/**
 * A sealed record queued in the producer: its sequence number and mode are
 * known at once; `delivered` resolves to where the broker stored it.
 */
export class SealedDelivery {
  /**
   * @param {import('./producer.js').Delivery} delivery
   * @param {bigint} seq
   * @param {string} mode
   */
  constructor(delivery, seq, mode) {
    /** The plain delivery. */
    this.delivery = delivery;
    /** The record's sequence number (per sender and topic). @type {bigint} */
    this.seq = seq;
    /** `Mode.Direct` or `Mode.Multi` (DIRECT switches to MULTI past the per-pair limit). @type {string} */
    this.mode = mode;
    /** The partition the record was assigned to. @type {number} */
    this.partition = delivery.partition;
  }

  /** Resolves to `{ partition, offset }` once acknowledged. @returns {Promise<import('./producer.js').Delivered>} */
  get delivered() {
    return this.delivery.delivered;
  }

  /** The outcome if known yet (see `Delivery.tryResult`). */
  tryResult() {
    return this.delivery.tryResult();
  }
}

/**
 * @typedef {object} SealedProducerOptions
 * @property {boolean} [padding] Pad every plaintext to a Padmé bucket, so the
 *   broker sees only O(log log n) bits of its length (at most 12 % more
 *   bytes). Default on: an unpadded record tells the broker its exact length.
 * @property {import('./signing.js').SigningIdentity|null} [signing] Sign every
 *   record with this separate key (SIGNED flag). Default none.
 * @property {boolean} [persistBudgets] Keep the DIRECT count per peer in the
 *   identity's state topic, reserved ahead of use ({@link BUDGET_RESERVE} at
 *   a time), so the switch to MULTI before a pairwise key's random-IV budget
 *   is spent holds across restarts. The first DIRECT record to each peer in a
 *   run waits for one durable write. Default on.
 */

/** DIRECT records reserved per write of the budget state. */
export const BUDGET_RESERVE = 65536;

/**
 * Seals records end to end and sends them through a {@link Producer}. One
 * sealer per SealedProducer numbers records per (sender, topic): share one
 * SealedProducer rather than making two for one identity and topic.
 */
export class SealedProducer {
  /**
   * Seals as `identity` and sends through `producer`.
   * @param {import('./producer.js').Producer} producer
   * @param {Identity} identity
   * @param {SealedProducerOptions} [options]
   * @returns {Promise<SealedProducer>}
   */
  static async create(producer, identity, options = {}) {
    const sealer = await Sealer.create(identity);
    sealer.setPadding(options.padding ?? true);
    sealer.setSigningIdentity(options.signing ?? null);
    const own = await ConversationKey.pairwise(identity, identity.publicKey);
    const sp = new SealedProducer(producer, identity, sealer, own);
    sp._budgets = (options.persistBudgets ?? true) ? { reserved: new Map(), io: Promise.resolve(), store: null, state: new BudgetState() } : null;
    return sp;
  }

  /**
   * Use {@link SealedProducer.create}.
   * @param {import('./producer.js').Producer} producer
   * @param {Identity} identity
   * @param {Sealer} sealer
   * @param {ConversationKey} own
   */
  constructor(producer, identity, sealer, own) {
    /** The producer records go through. */
    this.producer = producer;
    /** @private */
    this._identity = identity;
    /** @private */
    this._sealer = sealer;
    /** @private K_self */
    this._own = own;
    /** @private @type {Map<string, Promise<ConversationKey>>} K_pair by peer fingerprint */
    this._pairwise = new Map();
    /** @private Records enter the producer in call order. */
    this._chain = Promise.resolve();
    /**
     * @private With persistBudgets: per peer (fp hex) the DIRECT count this
     * run may reach before saving a new reservation; `io` serializes loading
     * and saving; `store` is opened on first use.
     * @type {{ reserved: Map<string, number>, io: Promise<void>, store: StateStore|null, state: BudgetState } | null}
     */
    this._budgets = null;
  }

  /** The sender's public key. @returns {PublicKey} */
  get publicKey() {
    return this._identity.publicKey;
  }

  /**
   * Seal `plaintext` to `recipients` on `topic` and queue it: one recipient →
   * DIRECT (MULTI past the per-pair limit), several → MULTI. `key` is the
   * logical record key, sent blinded; `null` sends the record keyless.
   *
   * Throws `SealError` (empty or repeated recipients, one's own key,
   * plaintext too large…: nothing is queued) or `ClientError` (producer
   * closed, invalid topic…).
   *
   * @param {string} topic
   * @param {Uint8Array|string|null} key
   * @param {Uint8Array} plaintext
   * @param {PublicKey[]} recipients
   * @returns {Promise<SealedDelivery>}
   */
  async send(topic, key, plaintext, recipients) {
    if (!Array.isArray(recipients)) throw new TypeError('recipients must be an array of PublicKey');
    const direct = recipients.length === 1;
    const sealed = direct
      ? this._sealDirect(topic, recipients[0], plaintext)
      : this._sealer.sealMultiDetailed(topic, recipients, plaintext);
    const blinded =
      key === null || key === undefined
        ? Promise.resolve(null)
        : direct
          ? this._pairwiseBlind(recipients[0], keyBytes(key))
          : this._multiBlind(recipients, keyBytes(key));
    return this._enqueue(topic, sealed, blinded);
  }

  /**
   * A DIRECT seal covered by a persisted reservation: the count is checked
   * and taken with no await in between, so concurrent sends never pass it.
   * @private
   * @param {string} topic
   * @param {PublicKey} peer
   * @param {Uint8Array} plaintext
   */
  async _sealDirect(topic, peer, plaintext) {
    if (this._budgets && peer instanceof PublicKey && !peer.equals(this._identity.publicKey)) {
      while (!this._covered(peer)) await this._reserve(peer);
    }
    return this._sealer.sealDirectDetailed(topic, peer, plaintext);
  }

  /** @private @param {PublicKey} peer */
  _covered(peer) {
    const fp = peer.fingerprint();
    const r = /** @type {NonNullable<SealedProducer['_budgets']>} */ (this._budgets).reserved.get(fp.toHex());
    return r !== undefined && this._sealer.directSeals(fp) < r;
  }

  /**
   * Make sure this run has a persisted reservation covering the next DIRECT
   * record to `peer` (loading the saved state on first use, which also
   * restores the counts it holds). Serialized: one load/save at a time.
   * @private
   * @param {PublicKey} peer
   */
  _reserve(peer) {
    const b = /** @type {NonNullable<SealedProducer['_budgets']>} */ (this._budgets);
    const run = b.io.then(async () => {
      if (!b.store) {
        const store = await StateStore.open(this.producer.client, this._identity);
        const bytes = await store.load(BUDGET_KEY);
        if (bytes) {
          const state = await BudgetState.decode(bytes);
          if (!state) throw new StateError('Store', `sealed state in topic ${store.topic}: the latest budget record is not one this version reads`, { topic: store.topic });
          // Every reserved record may have been sealed before the previous
          // run stopped: count them all.
          for (const { key, reserved } of state.peers.values()) this._sealer.restoreDirectSeals(key, reserved);
          b.state = state;
        }
        b.store = store;
      }
      if (this._covered(peer)) return;
      const fp = peer.fingerprint().toHex();
      const ceiling = this._sealer.directSeals(peer.fingerprint()) + BUDGET_RESERVE;
      const next = b.state.clone();
      next.peers.set(fp, { key: peer, reserved: ceiling });
      if (next.peers.size > MAX_BUDGET_PEERS) {
        throw new StateError('Store', `sealed state in topic ${b.store.topic}: DIRECT budgets for more than ${MAX_BUDGET_PEERS} peers: send to new peers as MULTI, or use another identity`, { topic: b.store.topic });
      }
      await b.store.save(BUDGET_KEY, next.encode());
      b.state = next;
      b.reserved.set(fp, ceiling);
    });
    b.io = run.catch(() => {});
    return run;
  }

  /**
   * Seal `plaintext` to every member of `group` but the sender (a MULTI
   * record) and queue it; `key` is blinded with the group's secret.
   * @param {string} topic
   * @param {SealedGroup} group
   * @param {Uint8Array|string|null} key
   * @param {Uint8Array} plaintext
   * @returns {Promise<SealedDelivery>}
   */
  async sendGroup(topic, group, key, plaintext) {
    const recipients = group.others(this._identity.fingerprint());
    const sealed = this._sealer.sealMultiDetailed(topic, recipients, plaintext);
    const blinded = key === null || key === undefined ? Promise.resolve(null) : group.blind(keyBytes(key));
    return this._enqueue(topic, sealed, blinded);
  }

  /**
   * Wait for the seal, then hand the record to the producer after every
   * record sent before it (sealing itself runs concurrently).
   * @private
   * @param {string} topic
   * @param {Promise<{ record: Uint8Array, mode: string, seq: bigint }>} sealed
   * @param {Promise<import('./blind.js').BlindedKey|null>} blinded
   * @returns {Promise<SealedDelivery>}
   */
  _enqueue(topic, sealed, blinded) {
    // Neither may reject unobserved while an earlier record is being queued.
    sealed.catch(() => {});
    blinded.catch(() => {});
    const queued = this._chain.then(async () => {
      const s = await sealed;
      const b = await blinded;
      const delivery = await this.producer.send(topic, b ? b.asBytes() : null, s.record);
      return new SealedDelivery(delivery, s.seq, s.mode);
    });
    this._chain = queued.then(
      () => {},
      () => {},
    );
    return queued;
  }

  /**
   * @private
   * @param {PublicKey} peer
   * @param {Uint8Array} key
   */
  async _pairwiseBlind(peer, key) {
    const fp = peer.fingerprint().toHex();
    let conv = this._pairwise.get(fp);
    if (!conv) {
      conv = ConversationKey.pairwise(this._identity, peer);
      conv.catch(() => this._pairwise.get(fp) === conv && this._pairwise.delete(fp));
      this._pairwise.set(fp, conv);
    }
    return (await conv).blind(key);
  }

  /**
   * `K_self` over `u16(n) ‖ sorted recipient fingerprints ‖ key`.
   * @private
   * @param {PublicKey[]} recipients
   * @param {Uint8Array} key
   */
  async _multiBlind(recipients, key) {
    const fps = recipients.map((r) => r.fingerprint().asBytes());
    fps.sort((a, b) => {
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
      return 0;
    });
    const n = Math.min(fps.length, 0xffff);
    const input = new Uint8Array(2 + 32 * fps.length + key.length);
    input[0] = n >> 8;
    input[1] = n & 0xff;
    fps.forEach((fp, i) => input.set(fp, 2 + 32 * i));
    input.set(key, 2 + 32 * fps.length);
    return this._own.blind(input);
  }

  /** Send everything buffered and wait until every record sent before is finished. */
  async flush() {
    await this._chain;
    await this.producer.flush();
  }

  /**
   * The sequence number the next record on `topic` will carry, if sealed to before.
   * @param {string} topic
   * @returns {bigint|undefined}
   */
  nextSeq(topic) {
    return this._sealer.nextSeq(topic);
  }

  /**
   * Continue `topic`'s sequence above `lastSeq` (a persisted `nextSeq - 1`).
   * @param {string} topic
   * @param {bigint} lastSeq
   */
  resumeTopic(topic, lastSeq) {
    this._sealer.resumeTopic(topic, lastSeq);
  }

  /**
   * DIRECT records sealed so far to `peer`.
   * @param {import('./identity.js').Fingerprint} peer
   * @returns {number}
   */
  directSeals(peer) {
    return this._sealer.directSeals(peer);
  }

  /**
   * Restore a persisted DIRECT count for `peer` (counts only go up).
   * @param {PublicKey} peer
   * @param {number} count
   */
  restoreDirectSeals(peer, count) {
    this._sealer.restoreDirectSeals(peer, count);
  }

  /**
   * With `persistBudgets`: the DIRECT count this run may reach to `peer`
   * before it saves a new reservation (`undefined` before the first DIRECT
   * record to it in this run, or without persistence).
   * @param {import('./identity.js').Fingerprint} peer
   * @returns {number|undefined}
   */
  reservedDirectSeals(peer) {
    return this._budgets?.reserved.get(peer.toHex());
  }

  toString() {
    return `SealedProducer(${this._identity.fingerprint().toHex()})`;
  }

  [INSPECT]() {
    return this.toString();
  }
}

/**
 * A record that was opened. `ok` is `true` (a {@link SealedRecordError} has `ok: false`).
 * Its `toString` and Node's `inspect` show the plaintext's length only.
 */
export class OpenedRecord {
  /** @param {object} f */
  constructor(f) {
    /** @type {true} */
    this.ok = true;
    /** @type {string} */
    this.topic = f.topic;
    /** @type {number} */
    this.partition = f.partition;
    /** @type {number} */
    this.offset = f.offset;
    /** The batch timestamp, unauthenticated (the broker can change it). @type {bigint} */
    this.timestampNs = f.timestampNs;
    /** The blinded batch key as stored (empty for none). @type {Uint8Array} */
    this.key = f.key;
    /** The authenticated sender. @type {import('./identity.js').Fingerprint} */
    this.sender = f.sender;
    /** The sender's sequence number on this topic (`undefined` for legacy records). @type {bigint|undefined} */
    this.seq = f.seq;
    /** `OpenedMode.Direct`, `Multi` or `Legacy`. @type {string} */
    this.mode = f.mode;
    /** Sequence numbers of this sender skipped since its previous record on this topic. */
    this.gap = f.gap;
    /** The record arrived late, inside the window. @type {boolean} */
    this.late = f.late;
    /**
     * How this sender's replay window stood before this record (`WindowStart`):
     * `new` on the first record from a sender no persisted state knew
     * (accepted on its own seq), `restored` on the first after a restored
     * mark, `continued` after that, `unchecked` for legacy records.
     * @type {string}
     */
    this.window = f.window;
    /** A signature was verified. @type {boolean} */
    this.signed = f.signed;
    /** Padding was stripped. @type {boolean} */
    this.padded = f.padded;
    /** The plaintext, exactly as sealed. @type {Uint8Array} */
    this.plaintext = f.plaintext;
  }

  /**
   * The plaintext as UTF-8 text: invalid UTF-8 throws, a leading BOM is kept.
   * @returns {string}
   */
  text() {
    return strictUtf8.decode(this.plaintext);
  }

  toString() {
    return `OpenedRecord(${this.topic}/${this.partition}@${this.offset}, <${this.plaintext.length} bytes redacted>)`;
  }

  [INSPECT]() {
    return this.toString();
  }
}

/**
 * A record that was not opened, with where it is stored. Returned (not
 * thrown) by {@link SealedConsumer.next}; the consumer goes on to the next record.
 *
 * `kind` is `NotForMe` (a well-formed sealed record with nothing for this
 * reader, one's own echoes included: `own`; counts as handled), `Open`
 * (`openError` says which check failed; holds commits back until
 * {@link SealedConsumer.ack}, or until the bound on held records releases
 * it) or `Released` (a record reported earlier as `Open` stopped holding
 * commits back without being acknowledged: `why` is `{ count }` — more than
 * `maxHeld` were held in its partition — or `{ ageMs }` — held longer than
 * `maxHeldAgeMs`; the commit may now pass it, and this notice is the record
 * of that).
 */
export class SealedRecordError extends Error {
  /**
   * @param {{ topic: string, partition: number, offset: number, timestampNs: bigint, kind: 'NotForMe'|'Open'|'Released',
   *   openError?: OpenError, sender?: import('./identity.js').Kid, own?: boolean, mode?: string,
   *   why?: { count: number } | { ageMs: number } }} f
   */
  constructor(f) {
    const what =
      f.kind === 'NotForMe'
        ? `addressed to others (sender ${f.sender}, ${f.mode})`
        : f.kind === 'Released'
          ? `skipped: released from holding the commit (${'count' in /** @type {object} */ (f.why) ? `more than ${/** @type {any} */ (f.why).count} records held` : `held longer than ${Math.floor(/** @type {any} */ (f.why).ageMs / 1000)} s`})`
          : /** @type {OpenError} */ (f.openError).message;
    super(`record ${f.topic}/${f.partition} at offset ${f.offset}: ${what}`, f.openError ? { cause: f.openError } : undefined);
    this.name = 'SealedRecordError';
    /** @type {false} */
    this.ok = false;
    /** `HERMIT_SEALED_RECORD`. */
    this.code = 'HERMIT_SEALED_RECORD';
    this.topic = f.topic;
    this.partition = f.partition;
    this.offset = f.offset;
    this.timestampNs = f.timestampNs;
    /** @type {'NotForMe'|'Open'|'Released'} */
    this.kind = f.kind;
    /** For `Open`: the opener's error (its `kind` names the check). */
    this.openError = f.openError;
    /** For `NotForMe`: the sender kid in the header (unauthenticated). */
    this.sender = f.sender;
    /** For `NotForMe`: the record is our own echo. */
    this.own = f.own;
    /** For `NotForMe`: DIRECT or MULTI. */
    this.mode = f.mode;
    /** For `Released`: which bound released it, `{ count }` or `{ ageMs }`. */
    this.why = f.why;
  }

  /** Whether the record is addressed to others (ignore it quietly). */
  isNotForMe() {
    return this.kind === 'NotForMe';
  }

  /**
   * Whether it holds its partition's committed offset back until
   * acknowledged: every failure to open; not records for others, nor a
   * `Released` notice.
   */
  holdsCommit() {
    return this.kind === 'Open';
  }
}

/**
 * The header of a well-formed sealed record that holds nothing for `own`.
 * @param {Uint8Array} value
 * @param {import('./identity.js').Kid} own
 * @returns {{ sender: import('./identity.js').Kid, own: boolean, mode: string } | null}
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
 * @typedef {import('./consumer.js').ConsumerOptions & {
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
   * @param {import('./connection.js').Client} client
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
   * @param {import('./connection.js').Client} client
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
   * @param {import('./signing.js').SigningPublicKey} signing
   */
  trustSigner(sender, signing) {
    return this._opener.trustSigner(sender, signing);
  }

  /** Stop trusting a sender; returns whether it was trusted. @param {import('./identity.js').Fingerprint} sender */
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
   * @param {import('./identity.js').Fingerprint} sender
   * @returns {bigint|undefined}
   */
  highWater(sender) {
    return this._opener.highWater(this.topic, sender);
  }

  /**
   * Restore a persisted high-water mark for `sender` (on top of what
   * `persistState` restores).
   * @param {import('./identity.js').Fingerprint} sender
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
   * @param {import('./connection.js').Record} record
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

