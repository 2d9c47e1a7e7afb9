/**
 * What a {@link SealedConsumer} returns per record (client/src/sealed.rs):
 * either an {@link OpenedRecord} (`ok: true`) or a {@link SealedRecordError}
 * (`ok: false`) naming the record's topic, partition and offset — nothing is
 * skipped silently. Transport errors are thrown (`ClientError`).
 *
 * Differences from Rust: whole-call failures are thrown as they are
 * (`SealError`, `TrustError`, `OpenError`, `ClientError`) instead of being
 * wrapped in a `SealedError`.
 *
 * @module sealed/record
 */

/** @import { OpenError } from '../crypto/errors.js' */
/** @import { Fingerprint, Kid } from '../crypto/identity.js' */
/** @import { Opened, OpenedModeName, WindowStartName } from '../crypto/open.js' */
/** @import { ModeName } from '../crypto/envelope.js' */

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * A record that was opened. `ok` is `true` (a {@link SealedRecordError} has `ok: false`).
 * Its `toString` and Node's `inspect` show the plaintext's length only.
 */
export class OpenedRecord {
  /**
   * @param {Opened & { topic: string, partition: number, offset: number, timestampNs: bigint,
   *   key: Uint8Array, plaintext: Uint8Array }} f
   */
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
    /** The authenticated sender. @type {Fingerprint} */
    this.sender = f.sender;
    /** The sender's sequence number on this topic (`undefined` for legacy records). @type {bigint|undefined} */
    this.seq = f.seq;
    /** `OpenedMode.Direct`, `Multi` or `Legacy`. @type {OpenedModeName} */
    this.mode = f.mode;
    /** Sequence numbers of this sender skipped since its previous record on this topic. @type {import('../crypto/replay.js').Gap|undefined} */
    this.gap = f.gap;
    /** The record arrived late, inside the window. @type {boolean} */
    this.late = f.late;
    /**
     * How this sender's replay window stood before this record (`WindowStart`):
     * `new` on the first record from a sender no persisted state knew
     * (accepted on its own seq), `restored` on the first after a restored
     * mark, `continued` after that, `unchecked` for legacy records.
     * @type {WindowStartName}
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
   *   openError?: OpenError, sender?: Kid, own?: boolean, mode?: ModeName,
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
    /** `HERMIT_SEALED_RECORD`. @type {'HERMIT_SEALED_RECORD'} */
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
