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

/** @internal The replay state of one (topic, sender) stream. */
export class ReplayWindow {
  /** @param {bigint} highest @param {boolean} allSeen */
  constructor(highest, allSeen) {
    this.highest = highest;
    this.seen = new Uint8Array(Number(WINDOW)).fill(allSeen ? 1 : 0);
  }

  /** A window whose first record is `seq`. */
  static startingWith(seq) {
    const w = new ReplayWindow(seq, false);
    w.seen[Number(seq % WINDOW)] = 1;
    return w;
  }

  /** Restored from a persisted high-water mark: everything up to it counts as seen. */
  static restored(highest) {
    return new ReplayWindow(highest, true);
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
