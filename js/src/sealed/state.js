/**
 * What a sealed consumer and producer remember across restarts
 * (docs/ENVELOPE.md §13, client/src/sealed/state.rs) — a consumer's replay
 * state, a producer's DIRECT budgets — kept on the broker in the identity's
 * own compacted topic `state.<fingerprint hex>`, each record sealed to the
 * identity itself under a blinded key (crypto/state.js seals and opens them).
 * With authentication the ACL needs a rule `topics = "state.{principal}"`
 * allowing produce, consume, create and describe (docs/SECURITY.md §3).
 *
 * JS notes: offsets are JS numbers (a state whose offsets are past 2^53 is
 * refused as unreadable); sequence numbers and floors are BigInt; a budget's
 * reserved count is a number (exact up to 2^53, far past DIRECT_LIMIT).
 *
 * @module sealed/state
 */

import { concat, equal, fromHex, toHex, utf8 } from '../bytes.js';
import { BlindingKey } from '../crypto/blind.js';
import { FINGERPRINT_LEN, Fingerprint, PublicKey, SPKI_LEN } from '../crypto/identity.js';
import { BITMAP_LEN, ReplayWindow } from '../crypto/replay.js';
import { StateError, openState, sealState } from '../crypto/state.js';
import { ClientError } from '../protocol/error.js';
import { Ack, Cleanup, MAX_PARTITIONS } from '../protocol/frame.js';
import { BatchBuilder, nowNs } from '../protocol/record.js';

/** @import { Identity } from '../crypto/identity.js' */

/**
 * What is anchored for one state key: the newest generation this device
 * wrote (acknowledged durable) or accepted, and SHA-256 of that record as
 * stored (docs/ENVELOPE.md §13 "The anchor").
 * @typedef {{ generation: bigint, record: Uint8Array }} StateAnchor
 */

/**
 * Where a client keeps its anchors, out of the broker's reach: per broker
 * address (the URL the client dialled) and blinded state key (32 lowercase
 * hex digits). `set` only ever moves an anchor up (one below the anchored
 * generation is ignored). Node: `StateAnchorsFile` (`hermitmq/node`), the
 * Rust SDK's `state-anchors` file; a browser: IndexedDB. `location` names
 * it in errors.
 * @typedef {{ get(broker: string, keyHex: string): Promise<StateAnchor|undefined>|StateAnchor|undefined,
 *   set(broker: string, keyHex: string, anchor: StateAnchor): Promise<void>|void, location?: string }} StateAnchors
 */

/**
 * How a loaded state stands against the anchor: `Unanchored` (no anchor
 * store: taken as served), `Ahead` (newer than the anchor, or none anchored
 * yet: a crash between the durable write and the anchor's, or a new device —
 * accepted, the anchor moves up), `AtAnchor` (exactly the anchored record).
 * @typedef {'Unanchored'|'Ahead'|'AtAnchor'} Standing
 */

/**
 * The broker served an older sealed state than this device wrote: its
 * generation is below the anchored one, or it is another record at the
 * anchored generation, or there is none at all (Rust's
 * `SealedError::StateRolledBack`). Nothing was read or sealed.
 */
export class StateRolledBack extends StateError {
  /**
   * @param {{ topic: string, anchored: bigint, found: bigint|null, location: string, line: string }} d
   */
  constructor(d) {
    const found = d.found === null ? 'none' : d.found === d.anchored ? `another record at ${d.found}` : String(d.found);
    super(
      'StateRolledBack',
      `sealed state in topic ${d.topic}: the broker served an older state than this device wrote ` +
        `(anchored generation ${d.anchored} in ${d.location}, found ${found}): records already delivered would be ` +
        'delivered again (or a DIRECT count repeat), so nothing was read or sent. Treat the broker as hostile; ' +
        `if it was restored from a backup on purpose, remove the anchor starting \`${d.line}\` from ${d.location} ` +
        'to accept the older state (what this device handled since may then be handled again)',
      { topic: d.topic },
    );
    this.name = 'StateRolledBack';
    /** The generation anchored on this device. @type {bigint} */
    this.anchored = d.anchored;
    /** The generation the broker served (`null`: none). @type {bigint|null} */
    this.found = d.found;
    /** Where the anchor is kept. @type {string} */
    this.location = d.location;
    /** How the anchor's line starts: broker address and blinded key. @type {string} */
    this.line = d.line;
  }
}

/**
 * The group's committed offset on the broker is below the one in the sealed
 * state this device anchored after the broker acknowledged that commit
 * (Rust's `SealedError::CommitRolledBack`). Nothing was read.
 */
export class CommitRolledBack extends StateError {
  /**
   * @param {{ topic: string, group: string, partition: number, committed: number|null, state: number, location: string, line: string }} d
   */
  constructor(d) {
    super(
      'CommitRolledBack',
      `group ${d.group} on topic ${d.topic}, partition ${d.partition}: the broker's committed offset ` +
        `(${d.committed ?? 'none'}) is below ${d.state}, which this device committed and anchored in ${d.location}: ` +
        'the broker moved the commit back, and records already delivered would be delivered again, so nothing was ' +
        'read. Treat the broker as hostile; if the group was reset on purpose, remove the anchor starting ' +
        `\`${d.line}\` from ${d.location} (reading then resumes at the sealed state's offsets)`,
      { topic: d.topic },
    );
    this.name = 'CommitRolledBack';
    /** @type {string} */
    this.group = d.group;
    /** @type {number} */
    this.partition = d.partition;
    /** The broker's committed offset (`null`: none). @type {number|null} */
    this.committed = d.committed;
    /** The offset saved in the sealed state. @type {number} */
    this.state = d.state;
    /** @type {string} */
    this.location = d.location;
    /** @type {string} */
    this.line = d.line;
  }
}

/**
 * SHA-256 of `bytes`.
 * @param {Uint8Array} bytes
 * @returns {Promise<Uint8Array>}
 */
async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (bytes)));
}

/**
 * A broker address as one field of a `state-anchors` line, as Rust writes
 * it: bytes outside printable ASCII, `%` and `#` as `%XX`.
 * @param {string} broker
 * @returns {string}
 */
export function escapeBroker(broker) {
  let out = '';
  for (const b of utf8(broker)) {
    out += b > 0x20 && b < 0x7f && b !== 0x25 && b !== 0x23 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Senders a consumer state remembers one by one; past that the lowest marks fold into the floor. */
export const MAX_STATE_SENDERS = 4096;
/** Peers a producer's budget state remembers. */
export const MAX_BUDGET_PEERS = 4096;
/** The logical key of a producer's DIRECT budgets. */
export const BUDGET_KEY = utf8('producer-budgets/v1');

/** The state formats: 2 carries a generation; 1 (none: read as 0n) is still read. */
const CONSUMER_VERSION = 2;
const BUDGET_VERSION = 2;
const VERSION_WITHOUT_GENERATION = 1;
const U64_MAX = (1n << 64n) - 1n;

/**
 * The state topic of `identity`: `state.<fingerprint hex>`.
 * @param {Identity} identity
 * @returns {string}
 */
export function stateTopic(identity) {
  return `state.${identity.fingerprint().toHex()}`;
}

/**
 * The logical key of a consumer's state: `"consumer/v1\0" ‖ group ‖ 0x00 ‖ topic`.
 * @param {string} group
 * @param {string} topic
 * @returns {Uint8Array}
 */
export function consumerKey(group, topic) {
  return concat(utf8('consumer/v1\0'), utf8(group), [0], utf8(topic));
}

/** Reads big-endian integers, refusing to read past the end (`null`). */
class Cursor {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    this.b = bytes;
    this.v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = 0;
  }
  get left() {
    return this.b.length - this.at;
  }
  /** @param {number} n */
  take(n) {
    if (this.left < n) return null;
    const s = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return s;
  }
  u8() {
    return this.left < 1 ? null : this.b[this.at++];
  }
  u32() {
    if (this.left < 4) return null;
    const x = this.v.getUint32(this.at);
    this.at += 4;
    return x;
  }
  u64() {
    if (this.left < 8) return null;
    const x = this.v.getBigUint64(this.at);
    this.at += 8;
    return x;
  }
}

/** A growable big-endian writer. */
class Writer {
  /** @param {number} n */
  constructor(n) {
    this.b = new Uint8Array(n);
    this.v = new DataView(this.b.buffer);
    this.at = 0;
  }
  /** @param {number} x */
  u8(x) {
    this.b[this.at++] = x;
  }
  /** @param {number} x */
  u32(x) {
    this.v.setUint32(this.at, x);
    this.at += 4;
  }
  /** @param {bigint|number} x */
  u64(x) {
    this.v.setBigUint64(this.at, BigInt(x));
    this.at += 8;
  }
  /** @param {Uint8Array} x */
  bytes(x) {
    this.b.set(x, this.at);
    this.at += x.length;
  }
}

/**
 * The version byte and, in `version`, the generation after it; version 1
 * has none (0n). `null` for another version or too few bytes.
 * @param {Cursor} c
 * @param {number} version
 * @returns {bigint|null}
 */
function readGeneration(c, version) {
  const v = c.u8();
  if (v === VERSION_WITHOUT_GENERATION) return 0n;
  if (v !== version) return null;
  return c.u64();
}

/** Bytes of one sender in a consumer state: fingerprint, highest, bitmap. */
const SENDER_LEN = FINGERPRINT_LEN + 8 + BITMAP_LEN;

/**
 * A consumer's replay state as of one commit (Rust's `ConsumerState`):
 * per partition the next offset to read, a floor (a sender without a window
 * is refused at or below it) and per sender (fingerprint hex) the replay
 * window of the records opened below the committed offsets: the highest
 * `seq` and which of the 1024 up to it were seen — exactly those, so a
 * record of another partition not yet committed (a lower `seq`, not seen) is
 * still accepted after a restart.
 */
export class ConsumerState {
  constructor() {
    /**
     * One more than the state saved before it (0n: never saved, or saved in
     * format version 1). With a state directory the Rust SDK anchors it and
     * refuses a state below its anchor, so every save must count up.
     * @type {bigint}
     */
    this.generation = 0n;
    /** Per partition, the next offset to read. @type {Map<number, number>} */
    this.committed = new Map();
    /** @type {bigint} */
    this.floor = 0n;
    /** Per sender fingerprint (hex), its replay window. @type {Map<string, ReplayWindow>} */
    this.senders = new Map();
  }

  /** @returns {ConsumerState} a copy */
  clone() {
    const c = new ConsumerState();
    c.generation = this.generation;
    c.committed = new Map(this.committed);
    c.floor = this.floor;
    c.senders = new Map([...this.senders].map(([fp, w]) => [fp, w.clone()]));
    return c;
  }

  /**
   * Record that `sender`'s `seq` was opened below the next commit (Rust's
   * `note`); past {@link MAX_STATE_SENDERS} senders, {@link ConsumerState#bound}.
   * @param {string} sender fingerprint hex
   * @param {bigint} seq
   */
  note(sender, seq) {
    const w = this.senders.get(sender);
    if (w) w.note(seq);
    else this.senders.set(sender, ReplayWindow.startingWith(seq));
    if (this.senders.size > MAX_STATE_SENDERS) this.bound();
  }

  /**
   * Keep at most {@link MAX_STATE_SENDERS} windows: the lowest highest
   * numbers go into the floor (sequence numbers start at the sender's clock,
   * so the lowest are the senders heard from longest ago). Ties go in
   * fingerprint order, as Rust's `min_by_key` over its BTreeMap.
   */
  bound() {
    const excess = this.senders.size - MAX_STATE_SENDERS;
    if (excess <= 0) return;
    const byMark = [...this.senders]
      .map(([fp, w]) => /** @type {[string, bigint]} */ ([fp, w.highest]))
      .sort(([fa, a], [fb, b]) => (a < b ? -1 : a > b ? 1 : fa < fb ? -1 : fa > fb ? 1 : 0));
    for (const [fp, hw] of byMark.slice(0, excess)) {
      this.senders.delete(fp);
      if (hw > this.floor) this.floor = hw;
    }
  }

  /**
   * `u8 2 ‖ u64 generation ‖ u32 n ‖ n × (u32 partition, u64 offset) ‖
   * u64 floor ‖ u32 m ‖ m × (32 fingerprint, u64 highest, 16 × u64 bitmap)`,
   * partitions and fingerprints in ascending order (as Rust's BTreeMaps).
   * @returns {Uint8Array}
   */
  encode() {
    const w = new Writer(25 + this.committed.size * 12 + this.senders.size * SENDER_LEN);
    w.u8(CONSUMER_VERSION);
    w.u64(this.generation);
    w.u32(this.committed.size);
    for (const p of [...this.committed.keys()].sort((a, b) => a - b)) {
      w.u32(p);
      w.u64(/** @type {number} */ (this.committed.get(p)));
    }
    w.u64(this.floor);
    w.u32(this.senders.size);
    for (const fp of [...this.senders.keys()].sort()) {
      const win = /** @type {ReplayWindow} */ (this.senders.get(fp));
      w.bytes(fromHex(fp));
      w.u64(win.highest);
      w.bytes(win.bitmap());
    }
    return w.b;
  }

  /**
   * The inverse of {@link ConsumerState#encode}, and of version 1 (no
   * generation: read as 0n); counts are checked against the bytes present
   * before anything is allocated. `null` if malformed.
   * @param {Uint8Array} bytes
   * @returns {ConsumerState|null}
   */
  static decode(bytes) {
    const c = new Cursor(bytes);
    const generation = readGeneration(c, CONSUMER_VERSION);
    if (generation === null) return null;
    const n = c.u32();
    if (n === null || n > MAX_PARTITIONS || c.left < n * 12) return null;
    const s = new ConsumerState();
    s.generation = generation;
    for (let i = 0; i < n; i++) {
      const p = /** @type {number} */ (c.u32());
      const o = /** @type {bigint} */ (c.u64());
      if (o > BigInt(Number.MAX_SAFE_INTEGER)) return null;
      s.committed.set(p, Number(o));
    }
    const floor = c.u64();
    const m = c.u32();
    if (floor === null || m === null || m > MAX_STATE_SENDERS || c.left !== m * SENDER_LEN) return null;
    s.floor = floor;
    for (let i = 0; i < m; i++) {
      const fp = /** @type {Uint8Array} */ (c.take(FINGERPRINT_LEN));
      const highest = /** @type {bigint} */ (c.u64());
      const bitmap = /** @type {Uint8Array} */ (c.take(BITMAP_LEN));
      s.senders.set(Fingerprint.fromBytes(fp).toHex(), ReplayWindow.fromParts(highest, bitmap));
    }
    return s;
  }
}

/**
 * A producer's DIRECT budgets (Rust's `BudgetState`): per peer (fingerprint
 * hex) its key and the DIRECT count reserved so far.
 */
export class BudgetState {
  constructor() {
    /** As {@link ConsumerState#generation}. @type {bigint} */
    this.generation = 0n;
    /** @type {Map<string, { key: PublicKey, reserved: number }>} */
    this.peers = new Map();
  }

  /** @returns {BudgetState} a copy */
  clone() {
    const b = new BudgetState();
    b.generation = this.generation;
    b.peers = new Map(this.peers);
    return b;
  }

  /**
   * `u8 2 ‖ u64 generation ‖ u32 n ‖ n × (91-byte SPKI, u64 reserved)`, in
   * fingerprint order.
   * @returns {Uint8Array}
   */
  encode() {
    const w = new Writer(13 + this.peers.size * (SPKI_LEN + 8));
    w.u8(BUDGET_VERSION);
    w.u64(this.generation);
    w.u32(this.peers.size);
    for (const fp of [...this.peers.keys()].sort()) {
      const { key, reserved } = /** @type {{ key: PublicKey, reserved: number }} */ (this.peers.get(fp));
      w.bytes(key.toSpki());
      const r = BigInt(Math.max(0, Math.floor(reserved)));
      w.u64(r > U64_MAX ? U64_MAX : r);
    }
    return w.b;
  }

  /**
   * The inverse of {@link BudgetState#encode}, and of version 1 (no
   * generation: read as 0n); `null` if malformed.
   * @param {Uint8Array} bytes
   * @returns {Promise<BudgetState|null>}
   */
  static async decode(bytes) {
    const c = new Cursor(bytes);
    const generation = readGeneration(c, BUDGET_VERSION);
    if (generation === null) return null;
    const n = c.u32();
    if (n === null || n > MAX_BUDGET_PEERS || c.left !== n * (SPKI_LEN + 8)) return null;
    const b = new BudgetState();
    b.generation = generation;
    for (let i = 0; i < n; i++) {
      let key;
      try {
        key = await PublicKey.fromSpki(/** @type {Uint8Array} */ (c.take(SPKI_LEN)));
      } catch {
        return null;
      }
      // Past 2^53 the count is only approximate, but far past DIRECT_LIMIT either way.
      b.peers.set(key.fingerprint().toHex(), { key, reserved: Number(c.u64()) });
    }
    return b;
  }
}

/**
 * A `StateError` of kind `Store` for a failed request, with the ACL hint on `Unauthorized`.
 * @param {string} topic
 * @param {string} what
 * @param {unknown} e
 */
function storeError(topic, what, e) {
  const status = e instanceof ClientError ? e.status : undefined;
  const hint =
    status === 'Unauthorized'
      ? '; the ACL must let this principal create, produce to, consume and describe its state topic ' +
        '(a rule `topics = "state.{principal}"`, docs/SECURITY.md), or turn persistence off ' +
        '(replays then open again after a restart)'
      : '';
  const msg = e instanceof Error ? e.message : String(e);
  return new StateError('Store', `sealed state in topic ${topic}: ${what}: ${msg}${hint}`, { cause: e, topic, status });
}

/**
 * The state topic of one identity, as a client reads and writes it (Rust's
 * `StateStore`). Create it with {@link StateStore.open}.
 */
export class StateStore {
  /** @type {import('../client/connection.js').Client} */
  #client;
  /** @type {Identity} */
  #identity;
  /** K_self, which blinds the logical keys. @type {BlindingKey} */
  #own;
  /** The anchor store, or `null` (nothing anchored or checked). @type {StateAnchors|null} */
  #anchors;

  /**
   * The state topic of `identity`, created (compacted, one partition) if
   * missing. A topic of that name that is not compacted is refused: its
   * state would expire with retention.
   * With `anchors`, the state is held to the anchors kept there
   * ({@link StateStore#check}, {@link StateStore#anchor}).
   * @param {import('../client/connection.js').Client} client
   * @param {Identity} identity
   * @param {StateAnchors|null} [anchors]
   * @returns {Promise<StateStore>}
   * @throws {StateError} kind `Store`
   */
  static async open(client, identity, anchors = null) {
    const topic = stateTopic(identity);
    try {
      await client.createTopic(topic, { partitions: 1, cleanup: Cleanup.Compact, retentionMs: 0, retentionBytes: 0 });
    } catch (e) {
      if (!(e instanceof ClientError) || e.status !== 'TopicExists') throw storeError(topic, 'cannot create the state topic', e);
      let meta;
      try {
        meta = await client.metadata(topic);
      } catch (e2) {
        throw storeError(topic, 'cannot describe the state topic', e2);
      }
      const t = meta.find((m) => m.name === topic) ?? meta[0];
      if (t && t.cleanup !== Cleanup.Compact) {
        throw new StateError(
          'Store',
          `sealed state in topic ${topic}: the topic exists but is not compacted (cleanup = delete would expire the state); delete it or recreate it with cleanup = compact`,
          { topic },
        );
      }
    }
    return new StateStore(client, identity, topic, await BlindingKey.pairwise(identity, identity.publicKey), anchors);
  }

  /**
   * Use {@link StateStore.open}.
   * @param {import('../client/connection.js').Client} client
   * @param {Identity} identity
   * @param {string} topic
   * @param {BlindingKey} own
   * @param {StateAnchors|null} [anchors]
   */
  constructor(client, identity, topic, own, anchors = null) {
    this.#client = client;
    this.#identity = identity;
    /** The state topic. @type {string} */
    this.topic = topic;
    this.#own = own;
    this.#anchors = anchors;
  }

  /** Whether an anchor store holds this state. @returns {boolean} */
  get anchored() {
    return this.#anchors !== null;
  }

  /** Where the anchors are kept (named in errors). @returns {string} */
  anchorLocation() {
    return this.#anchors?.location ?? 'the state anchors';
  }

  /**
   * How the anchor line of `logical` starts (named in errors): the broker's
   * address, escaped, and the blinded key in hex.
   * @param {Uint8Array} logical
   * @returns {Promise<string>}
   */
  async anchorLine(logical) {
    return `${escapeBroker(this.#client.url)} ${toHex((await this.#own.blind(logical)).asBytes())}`;
  }

  /**
   * How the state found under `logical` — its generation and record hash,
   * or `null` when the broker served none — stands against the anchor.
   * @param {Uint8Array} logical
   * @param {{ generation: bigint, record: Uint8Array }|null} found
   * @returns {Promise<Standing>}
   * @throws {StateRolledBack} below the anchored generation, another record at it, or none while one is anchored
   * @throws {StateError} kind `Anchor`: the anchors cannot be read
   */
  async check(logical, found) {
    const anchors = this.#anchors;
    if (!anchors) return 'Unanchored';
    const keyHex = toHex((await this.#own.blind(logical)).asBytes());
    let anchor;
    try {
      anchor = await anchors.get(this.#client.url, keyHex);
    } catch (e) {
      throw new StateError('Anchor', `cannot use the sealed-state anchors in ${this.anchorLocation()}: ${e instanceof Error ? e.message : e}`, { cause: e, topic: this.topic });
    }
    if (!anchor) return 'Ahead';
    const refuse = async (/** @type {bigint|null} */ g) =>
      new StateRolledBack({ topic: this.topic, anchored: anchor.generation, found: g, location: this.anchorLocation(), line: await this.anchorLine(logical) });
    if (!found) throw await refuse(null);
    if (found.generation < anchor.generation) throw await refuse(found.generation);
    if (found.generation === anchor.generation) {
      if (equal(found.record, anchor.record)) return 'AtAnchor';
      throw await refuse(found.generation);
    }
    return 'Ahead';
  }

  /**
   * Anchor `generation` (whose record hashes to `record`) for `logical` —
   * only ever after the broker acknowledged that record as durable. Anchors
   * only move up. Without an anchor store, nothing.
   * @param {Uint8Array} logical
   * @param {bigint} generation
   * @param {Uint8Array} record
   * @returns {Promise<void>}
   * @throws {StateError} kind `Anchor`: the anchor cannot be written (the state itself was saved)
   */
  async anchor(logical, generation, record) {
    const anchors = this.#anchors;
    if (!anchors) return;
    const keyHex = toHex((await this.#own.blind(logical)).asBytes());
    try {
      const now = await anchors.get(this.#client.url, keyHex);
      if (now && (now.generation > generation || (now.generation === generation && equal(now.record, record)))) return;
      await anchors.set(this.#client.url, keyHex, { generation, record: record.slice() });
    } catch (e) {
      throw new StateError('Anchor', `cannot use the sealed-state anchors in ${this.anchorLocation()}: ${e instanceof Error ? e.message : e}`, { cause: e, topic: this.topic });
    }
  }

  /**
   * The latest state saved under `logical`, opened; `null` if there is none.
   * @param {Uint8Array} logical
   * @returns {Promise<Uint8Array|null>}
   * @throws {StateError} kind `Store`
   */
  async load(logical) {
    return (await this.loadRecord(logical))?.plaintext ?? null;
  }

  /**
   * As {@link StateStore#load}, with SHA-256 of the record as stored (what
   * the anchor holds). Not checked against the anchor: the generation is in
   * the plaintext, which the caller decodes and gives to {@link StateStore#check}.
   * @param {Uint8Array} logical
   * @returns {Promise<{ plaintext: Uint8Array, record: Uint8Array }|null>}
   * @throws {StateError} kind `Store`
   */
  async loadRecord(logical) {
    const key = (await this.#own.blind(logical)).asBytes();
    let offset = 0;
    /** @type {Uint8Array|null} */
    let latest = null;
    for (;;) {
      let r;
      try {
        r = await this.#client.fetch(this.topic, 0, offset, 1 << 20, 0);
      } catch (e) {
        throw storeError(this.topic, 'cannot read the state topic', e);
      }
      let any = false;
      try {
        for (const rec of r.records(offset)) {
          offset = rec.offset + 1;
          any = true;
          if (equal(rec.key, key)) latest = rec.value;
        }
      } catch (e) {
        throw storeError(this.topic, 'corrupt state batch', e);
      }
      if (!any || offset >= r.highWatermark) break;
    }
    if (latest === null) return null;
    const record = await sha256(latest);
    try {
      return { plaintext: await openState(this.#identity, this.topic, key, latest), record };
    } catch (e) {
      throw new StateError(
        'Store',
        `sealed state in topic ${this.topic}: the latest state record does not open (${e instanceof Error ? e.message : e}): written by another identity, or changed`,
        { cause: e, topic: this.topic },
      );
    }
  }

  /**
   * Save `plaintext` under `logical`, acknowledged once durable; returns
   * SHA-256 of the record written (to anchor).
   * @param {Uint8Array} logical
   * @param {Uint8Array} plaintext
   * @returns {Promise<Uint8Array>}
   * @throws {StateError}
   */
  async save(logical, plaintext) {
    const key = (await this.#own.blind(logical)).asBytes();
    const record = await sealState(this.#identity, this.topic, key, plaintext);
    const b = new BatchBuilder(key);
    b.push(record);
    try {
      await this.#client.produce(this.topic, 0, Ack.Durable, b.finish(nowNs()));
    } catch (e) {
      throw storeError(this.topic, 'cannot save the state', e);
    }
    return sha256(record);
  }

  toString() {
    return `StateStore(${this.topic})`;
  }
}
