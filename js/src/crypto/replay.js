// Replay and reorder protection for one (topic, sender) stream, as
// client/src/crypto/replay.rs: the highest seq accepted and which of the 1024
// numbers up to it were seen (a ring bitmap, RFC 6479). At or below
// `highest - 1024` is too old to judge; seen before is a replay; a jump past
// `highest + 1` is reported as a Gap. `check` never mutates; `accept` runs only
// after a record authenticated. Sequence numbers are BigInt (u64).

/** Width of the window in records. */
export const WINDOW = 1024n;

/** Sequence numbers `first..=last` the sender issued that this reader has not seen. */
export class Gap {
  /**
   * @param {bigint} first
   * @param {bigint} last
   */
  constructor(first, last) {
    /** First missing sequence number. @type {bigint} */
    this.first = first;
    /** Last missing sequence number. @type {bigint} */
    this.last = last;
  }

  /** @returns {bigint} how many numbers are missing */
  len() {
    return this.last - this.first + 1n;
  }

  /**
   * Whether the record after the gap starts a new sender run (low 16 bits of
   * `last + 1` zero): then the gap is most likely a sender restart. Heuristic.
   * @returns {boolean}
   */
  looksLikeRestart() {
    return ((this.last + 1n) & 0xffffn) === 0n;
  }
}

/** Bytes of a persisted window bitmap: 16 u64 words. */
export const BITMAP_LEN = Number(WINDOW) / 8;

/**
 * Where bit `i` (= s mod 1024) of the window lives in the persisted bitmap:
 * word `i / 64`, big-endian, so bit `i mod 64` of the word is in its byte
 * `7 − (i mod 64) / 8`, bit `i mod 8` of that byte.
 * @param {number} i
 */
function bitmapByte(i) {
  return (i >> 6) * 8 + 7 - ((i & 63) >> 3);
}

/** The replay state of one (topic, sender) stream; persisted per sender in a consumer state (docs/ENVELOPE.md §13). */
export class ReplayWindow {
  /** @param {bigint} highest @param {boolean} allSeen */
  constructor(highest, allSeen) {
    /** @type {bigint} */
    this.highest = highest;
    this.seen = new Uint8Array(Number(WINDOW)).fill(allSeen ? 1 : 0);
  }

  /**
   * A window whose first record is `seq`.
   * @param {bigint} seq
   * @returns {ReplayWindow}
   */
  static startingWith(seq) {
    const w = new ReplayWindow(seq, false);
    w.seen[Number(seq % WINDOW)] = 1;
    return w;
  }

  /**
   * Restored from a persisted high-water mark: everything up to it counts as seen.
   * @param {bigint} highest
   * @returns {ReplayWindow}
   */
  static restored(highest) {
    return new ReplayWindow(highest, true);
  }

  /**
   * A window from its parts (Rust's `from_parts`): the highest number and the
   * ring bitmap as it is persisted (docs/ENVELOPE.md §13): 16 big-endian u64
   * words, 128 bytes; bit `s mod 1024` is bit `(s mod 1024) mod 64` of word
   * `(s mod 1024) / 64`, set iff `s` in `(highest − 1024, highest]` was seen.
   * @param {bigint} highest
   * @param {Uint8Array} bitmap 128 bytes
   * @returns {ReplayWindow}
   */
  static fromParts(highest, bitmap) {
    if (!(bitmap instanceof Uint8Array) || bitmap.length !== BITMAP_LEN) throw new TypeError(`a replay bitmap is ${BITMAP_LEN} bytes`);
    const w = new ReplayWindow(BigInt(highest), false);
    for (let i = 0; i < w.seen.length; i++) w.seen[i] = (bitmap[bitmapByte(i)] >> (i & 7)) & 1;
    return w;
  }

  /**
   * The ring bitmap as {@link ReplayWindow.fromParts} takes it (Rust's `seen`).
   * @returns {Uint8Array} 128 bytes
   */
  bitmap() {
    const out = new Uint8Array(BITMAP_LEN);
    for (let i = 0; i < this.seen.length; i++) if (this.seen[i]) out[bitmapByte(i)] |= 1 << (i & 7);
    return out;
  }

  /** @returns {ReplayWindow} a copy */
  clone() {
    const w = new ReplayWindow(this.highest, false);
    w.seen.set(this.seen);
    return w;
  }

  /**
   * Records `seq` as seen, whatever it is (Rust's `note`): ahead moves the
   * window, inside sets its bit, too old to be in the window is ignored.
   * @param {bigint} seq
   */
  note(seq) {
    if (seq > this.highest || this.highest - seq < WINDOW) this.accept(seq);
  }

  /**
   * @param {bigint} seq
   * @returns {{ ok: true, late: boolean, gap?: Gap } | { ok: false, kind: 'Replayed'|'TooOld', highest: bigint }}
   */
  check(seq) {
    const highest = this.highest;
    if (seq > highest) {
      return seq > highest + 1n ? { ok: true, late: false, gap: new Gap(highest + 1n, seq - 1n) } : { ok: true, late: false };
    }
    if (highest - seq >= WINDOW) return { ok: false, kind: 'TooOld', highest };
    if (this.seen[Number(seq % WINDOW)]) return { ok: false, kind: 'Replayed', highest };
    return { ok: true, late: true };
  }

  /** Records `seq` as seen; it must have passed `check`. @param {bigint} seq */
  accept(seq) {
    if (seq > this.highest) {
      const step = seq - this.highest;
      if (step >= WINDOW) this.seen.fill(0);
      else for (let s = this.highest + 1n; s < seq; s++) this.seen[Number(s % WINDOW)] = 0;
      this.highest = seq;
    }
    this.seen[Number(seq % WINDOW)] = 1;
  }
}
