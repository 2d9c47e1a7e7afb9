/**
 * {@link SealedProducer}: the crypto layer's `Sealer` on top of the
 * {@link Producer}, mirroring client/src/sealed/producer.rs.
 * {@link SealedProducer.send} seals a plaintext to one recipient (DIRECT) or
 * several (MULTI) and blinds the record key; {@link SealedProducer.sendGroup}
 * does the same for a {@link SealedGroup} with a shared key secret.
 *
 * Record keys are blinded: the batch key the broker sees is
 * `HMAC-SHA256(K_conv, "sealed-record/v1 key" ‖ k)[0..16]` with `K_conv` =
 * `K_pair(sender, recipient)` for one recipient, the sender's own
 * `K_self = K_pair(s, S)` over `u16(n) ‖ sorted fp(r_i) ‖ k` for several, and
 * the group secret for a {@link SealedGroup} (client/src/sealed.rs says why).
 *
 * The producer keeps its DIRECT counts in the identity's state topic
 * (`persistBudgets`, reserved {@link BUDGET_RESERVE} at a time before the
 * first DIRECT record to each peer in a run; sealed/state.js).
 *
 * Differences from Rust: records are sealed before they enter the producer
 * (Web Crypto is asynchronous, so there is no sealing in place under the
 * producer's lock); sealing runs concurrently, and records enter the producer
 * in the order `send` was called.
 *
 * @module sealed/producer
 */

import { BlindingKey } from '../crypto/blind.js';
import { PublicKey } from '../crypto/identity.js';
import { Sealer } from '../crypto/seal.js';
import { StateError } from '../crypto/state.js';
import { BUDGET_KEY, BudgetState, MAX_BUDGET_PEERS, StateStore } from './state.js';

/** @import { Identity } from '../crypto/identity.js' */

const utf8 = new TextEncoder();
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * @param {Uint8Array|string} key
 * @returns {Uint8Array}
 */
function keyBytes(key) {
  return typeof key === 'string' ? utf8.encode(key) : key;
}

/**
 * A MULTI record's blinded key: `K_self` over `u16(n) ‖ sorted recipient
 * fingerprints ‖ key` (Rust's `SealedProducer::multi_blind`). Internal (not
 * re-exported by index.js); the interop tests compare it with Rust's.
 * @param {BlindingKey} own `K_self = K_pair(s, S)`
 * @param {PublicKey[]} recipients
 * @param {Uint8Array} key
 * @returns {Promise<import('../crypto/blind.js').BlindedKey>}
 */
export async function multiBlind(own, recipients, key) {
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
  return own.blind(input);
}

/**
 * A group whose members share a key secret for blinding record keys, so
 * equal logical keys compact together whoever sent them. Records to the group
 * are MULTI records to every member but the sender.
 */
export class SealedGroup {
  /** Every member but the last sender, cached. @type {{ fp: string, others: PublicKey[] } | null} */
  #others;

  /**
   * @param {PublicKey[]} members the sender may be among them (it is left out of each record's recipients)
   * @param {BlindingKey} key the shared secret, from {@link SealedGroup.generate} or
   *   `BlindingKey.fromGroupSecret` of what a member sent
   */
  constructor(members, key) {
    /** @type {PublicKey[]} */
    this.members = [...members];
    /** @type {BlindingKey} */
    this.key = key;
    this.#others = null;
  }

  /**
   * A group with a fresh random secret; send `group.key.groupSecretBytes()`
   * to the other members inside a sealed record.
   * @param {PublicKey[]} members
   * @returns {Promise<SealedGroup>}
   */
  static async generate(members) {
    return new SealedGroup(members, await BlindingKey.generateGroup());
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
   * @param {import('../crypto/identity.js').Fingerprint} own
   * @returns {PublicKey[]}
   */
  others(own) {
    const fp = own.toHex();
    if (this.#others?.fp !== fp) {
      this.#others = { fp, others: this.members.filter((m) => !m.fingerprint().equals(own)) };
    }
    return this.#others.others;
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
   * @param {import('../client/producer.js').Delivery} delivery
   * @param {bigint} seq
   * @param {import('../crypto/envelope.js').ModeName} mode
   */
  constructor(delivery, seq, mode) {
    /** The plain delivery. */
    this.delivery = delivery;
    /** The record's sequence number (per sender and topic). @type {bigint} */
    this.seq = seq;
    /** `Mode.Direct` or `Mode.Multi` (DIRECT switches to MULTI past the per-pair limit). @type {import('../crypto/envelope.js').ModeName} */
    this.mode = mode;
    /** The partition the record was assigned to. @type {number} */
    this.partition = delivery.partition;
  }

  /** Resolves to `{ partition, offset }` once acknowledged. @returns {Promise<import('../client/producer.js').Delivered>} */
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
 * @property {import('../crypto/signing.js').SigningIdentity|null} [signing] Sign every
 *   record with this separate key (SIGNED flag). Default none.
 * @property {boolean} [persistBudgets] Keep the DIRECT count per peer in the
 *   identity's state topic, reserved ahead of use ({@link BUDGET_RESERVE} at
 *   a time), so the switch to MULTI before a pairwise key's random-IV budget
 *   is spent holds across restarts. The first DIRECT record to each peer in a
 *   run waits for one durable write. Default on.
 * @property {import('./state.js').StateAnchors|null} [stateAnchors] Where this
 *   device anchors its budget state (docs/ENVELOPE.md §13), as the sealed
 *   consumer's option: an older state than anchored is refused
 *   (`StateRolledBack`). Default none.
 */

/**
 * With persistBudgets: per peer (fp hex) the DIRECT count this run may reach
 * before saving a new reservation; `io` serializes loading and saving;
 * `store` is opened on first use.
 * @typedef {{ reserved: Map<string, number>, io: Promise<void>, store: StateStore|null, state: BudgetState, anchors: import('./state.js').StateAnchors|null }} Budgets
 */

/** DIRECT records reserved per write of the budget state. */
export const BUDGET_RESERVE = 65536;

/**
 * Seals records end to end and sends them through a {@link Producer}. One
 * sealer per SealedProducer numbers records per (sender, topic): share one
 * SealedProducer rather than making two for one identity and topic.
 */
export class SealedProducer {
  /** @type {Identity} */
  #identity;
  /** @type {Sealer} */
  #sealer;
  /** K_self. @type {BlindingKey} */
  #own;
  /** K_pair by peer fingerprint. @type {Map<string, Promise<BlindingKey>>} */
  #pairwise;
  /** Records enter the producer in call order. @type {Promise<void>} */
  #chain;
  /** With persistBudgets, else `null`. @type {Budgets|null} */
  #budgets;

  /**
   * Seals as `identity` and sends through `producer`.
   * @param {import('../client/producer.js').Producer} producer
   * @param {Identity} identity
   * @param {SealedProducerOptions} [options]
   * @returns {Promise<SealedProducer>}
   */
  static async create(producer, identity, options = {}) {
    const sealer = await Sealer.create(identity);
    sealer.setPadding(options.padding ?? true);
    sealer.setSigningIdentity(options.signing ?? null);
    const own = await BlindingKey.pairwise(identity, identity.publicKey);
    const sp = new SealedProducer(producer, identity, sealer, own);
    sp.#budgets = (options.persistBudgets ?? true) ? { reserved: new Map(), io: Promise.resolve(), store: null, state: new BudgetState(), anchors: options.stateAnchors ?? null } : null;
    return sp;
  }

  /**
   * Use {@link SealedProducer.create}.
   * @param {import('../client/producer.js').Producer} producer
   * @param {Identity} identity
   * @param {Sealer} sealer
   * @param {BlindingKey} own
   */
  constructor(producer, identity, sealer, own) {
    /** The producer records go through. */
    this.producer = producer;
    this.#identity = identity;
    this.#sealer = sealer;
    this.#own = own;
    this.#pairwise = new Map();
    this.#chain = Promise.resolve();
    this.#budgets = null;
  }

  /** The sender's public key. @returns {PublicKey} */
  get publicKey() {
    return this.#identity.publicKey;
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
      ? this.#sealDirect(topic, recipients[0], plaintext)
      : this.#sealer.sealMultiDetailed(topic, recipients, plaintext);
    const blinded =
      key === null || key === undefined
        ? Promise.resolve(null)
        : direct
          ? this.#pairwiseBlind(recipients[0], keyBytes(key))
          : multiBlind(this.#own, recipients, keyBytes(key));
    return this.#enqueue(topic, sealed, blinded);
  }

  /**
   * A DIRECT seal covered by a persisted reservation: the count is checked
   * and taken with no await in between, so concurrent sends never pass it.
   * @param {string} topic
   * @param {PublicKey} peer
   * @param {Uint8Array} plaintext
   */
  async #sealDirect(topic, peer, plaintext) {
    if (this.#budgets && peer instanceof PublicKey && !peer.equals(this.#identity.publicKey)) {
      while (!this.#covered(peer)) await this.#reserve(peer);
    }
    return this.#sealer.sealDirectDetailed(topic, peer, plaintext);
  }

  /** @param {PublicKey} peer */
  #covered(peer) {
    const fp = peer.fingerprint();
    const r = /** @type {Budgets} */ (this.#budgets).reserved.get(fp.toHex());
    return r !== undefined && this.#sealer.directSeals(fp) < r;
  }

  /**
   * Make sure this run has a persisted reservation covering the next DIRECT
   * record to `peer` (loading the saved state on first use, which also
   * restores the counts it holds). Serialized: one load/save at a time.
   * @param {PublicKey} peer
   */
  #reserve(peer) {
    const b = /** @type {Budgets} */ (this.#budgets);
    const run = b.io.then(async () => {
      if (!b.store) {
        const store = await StateStore.open(this.producer.client, this.#identity, b.anchors);
        const loaded = await store.loadRecord(BUDGET_KEY);
        const state = loaded ? await BudgetState.decode(loaded.plaintext) : null;
        if (loaded && !state) throw new StateError('Store', `sealed state in topic ${store.topic}: the latest budget record is not one this version reads`, { topic: store.topic });
        // An older reservation than this device anchored would let DIRECT
        // counts go back (StateRolledBack); a newer one (a crash between the
        // durable write and the anchor's, or a new device) stands, and the
        // anchor follows.
        const found = state && loaded ? { generation: state.generation, record: loaded.record } : null;
        if ((await store.check(BUDGET_KEY, found)) === 'Ahead' && found) await store.anchor(BUDGET_KEY, found.generation, found.record);
        if (state) {
          // Every reserved record may have been sealed before the previous
          // run stopped: count them all.
          for (const { key, reserved } of state.peers.values()) this.#sealer.restoreDirectSeals(key, reserved);
          b.state = state;
        }
        b.store = store;
      }
      if (this.#covered(peer)) return;
      const fp = peer.fingerprint().toHex();
      const ceiling = this.#sealer.directSeals(peer.fingerprint()) + BUDGET_RESERVE;
      const next = b.state.clone();
      next.peers.set(fp, { key: peer, reserved: ceiling });
      // One generation per attempt (a failed save may still be stored).
      next.generation = b.state.generation + 1n;
      b.state.generation = next.generation;
      if (next.peers.size > MAX_BUDGET_PEERS) {
        throw new StateError('Store', `sealed state in topic ${b.store.topic}: DIRECT budgets for more than ${MAX_BUDGET_PEERS} peers: send to new peers as MULTI, or use another identity`, { topic: b.store.topic });
      }
      const record = await b.store.save(BUDGET_KEY, next.encode());
      b.state = next;
      b.reserved.set(fp, ceiling);
      // After the durable ack, never before. Should this write fail, the
      // reservation stands (it is durable); a restart finds the state ahead
      // of the anchor and accepts it.
      await b.store.anchor(BUDGET_KEY, next.generation, record);
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
    const recipients = group.others(this.#identity.fingerprint());
    const sealed = this.#sealer.sealMultiDetailed(topic, recipients, plaintext);
    const blinded = key === null || key === undefined ? Promise.resolve(null) : group.blind(keyBytes(key));
    return this.#enqueue(topic, sealed, blinded);
  }

  /**
   * Wait for the seal, then hand the record to the producer after every
   * record sent before it (sealing itself runs concurrently).
   * @param {string} topic
   * @param {Promise<import('../crypto/seal.js').Sealed>} sealed
   * @param {Promise<import('../crypto/blind.js').BlindedKey|null>} blinded
   * @returns {Promise<SealedDelivery>}
   */
  #enqueue(topic, sealed, blinded) {
    // Neither may reject unobserved while an earlier record is being queued.
    sealed.catch(() => {});
    blinded.catch(() => {});
    const queued = this.#chain.then(async () => {
      const s = await sealed;
      const b = await blinded;
      const delivery = await this.producer.send(topic, b ? b.asBytes() : null, s.record);
      return new SealedDelivery(delivery, s.seq, s.mode);
    });
    this.#chain = queued.then(
      () => {},
      () => {},
    );
    return queued;
  }

  /**
   * @param {PublicKey} peer
   * @param {Uint8Array} key
   */
  async #pairwiseBlind(peer, key) {
    const fp = peer.fingerprint().toHex();
    let conv = this.#pairwise.get(fp);
    if (!conv) {
      conv = BlindingKey.pairwise(this.#identity, peer);
      conv.catch(() => this.#pairwise.get(fp) === conv && this.#pairwise.delete(fp));
      this.#pairwise.set(fp, conv);
    }
    return (await conv).blind(key);
  }

  /** Send everything buffered and wait until every record sent before is finished. */
  async flush() {
    await this.#chain;
    await this.producer.flush();
  }

  /**
   * The sequence number the next record on `topic` will carry, if sealed to before.
   * @param {string} topic
   * @returns {bigint|undefined}
   */
  nextSeq(topic) {
    return this.#sealer.nextSeq(topic);
  }

  /**
   * Continue `topic`'s sequence above `lastSeq` (a persisted `nextSeq - 1`).
   * @param {string} topic
   * @param {bigint} lastSeq
   */
  resumeTopic(topic, lastSeq) {
    this.#sealer.resumeTopic(topic, lastSeq);
  }

  /**
   * DIRECT records sealed so far to `peer`.
   * @param {import('../crypto/identity.js').Fingerprint} peer
   * @returns {number}
   */
  directSeals(peer) {
    return this.#sealer.directSeals(peer);
  }

  /**
   * Restore a persisted DIRECT count for `peer` (counts only go up).
   * @param {PublicKey} peer
   * @param {number} count
   */
  restoreDirectSeals(peer, count) {
    this.#sealer.restoreDirectSeals(peer, count);
  }

  /**
   * With `persistBudgets`: the DIRECT count this run may reach to `peer`
   * before it saves a new reservation (`undefined` before the first DIRECT
   * record to it in this run, or without persistence).
   * @param {import('../crypto/identity.js').Fingerprint} peer
   * @returns {number|undefined}
   */
  reservedDirectSeals(peer) {
    return this.#budgets?.reserved.get(peer.toHex());
  }

  toString() {
    return `SealedProducer(${this.#identity.fingerprint().toHex()})`;
  }

  [INSPECT]() {
    return this.toString();
  }
}
