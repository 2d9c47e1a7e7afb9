// Sealed record v1 (docs/ENVELOPE.md, client/src/crypto/envelope.rs): the wire
// format, parsed without copying (subarrays of the record).
//
//   common header (20): version=0x01 | mode | flags | 0x00 | sender_kid(8) | seq u64
//   DIRECT (0x01):  header | recipient_kid(8) | iv(12) | AES-GCM(K_pair) ct || tag(16) [| sig(64)]
//   MULTI  (0x02):  header | msg_salt(16) | ck_commit(32) | n u16
//                   | n × (kid(8) | wrapped CK(32) | tag(16)) | payload ct || tag(16) [| sig(64)]
//
// `Header.parse` / `RecordView.parse` check structure only; the Opener authenticates.

import { Kid } from './identity.js';
import { sha256 } from './webcrypto.js';
import { OpenError } from './errors.js';

/** The only record version this code reads or writes. */
export const VERSION = 0x01;
/** Length of the common header. */
export const HEADER_LEN = 20;
/** AES-GCM IV length in DIRECT records. */
export const IV_LEN = 12;
/** AES-GCM tag length everywhere. */
export const TAG_LEN = 16;
/** Bytes before the ciphertext in a DIRECT record. */
export const DIRECT_PREFIX_LEN = HEADER_LEN + 8 + IV_LEN;
/** DIRECT overhead over the plaintext (unpadded, unsigned): 56 bytes. */
export const DIRECT_OVERHEAD = DIRECT_PREFIX_LEN + TAG_LEN;
/** Length of a MULTI msg_salt. */
export const MSG_SALT_LEN = 16;
/** Bytes before the first MULTI entry. */
export const MULTI_PREFIX_LEN = HEADER_LEN + MSG_SALT_LEN + 32 + 2;
/** Length of one MULTI entry: kid, wrapped 32-byte CK, tag. */
export const MULTI_ENTRY_LEN = 8 + 32 + TAG_LEN;
/** Largest recipient count a MULTI record may carry. */
export const MAX_RECIPIENTS = 4096;
/** Length of the optional ECDSA P-256 signature trailer (raw r || s). */
export const SIGNATURE_LEN = 64;

const enc = new TextEncoder();
export const CTX_LABEL = enc.encode('sealed-record/v1');
export const WRAP_LABEL = enc.encode('sealed-record/v1 wrap');
export const COMMIT_LABEL = enc.encode('sealed-record/v1 ck-commit');
export const SIG_LABEL = enc.encode('sealed-record/v1 sig');

/** Record modes. */
export const Mode = Object.freeze({
  /** 0x01: one recipient, encrypted directly under K_pair. */
  Direct: 'direct',
  /** 0x02: a fresh content key wrapped for each of 1..=4096 recipients. */
  Multi: 'multi',
});

/** @typedef {'direct'|'multi'} ModeName a {@link Mode} value */

/** Mode byte of a `Mode` value. @param {ModeName} mode @returns {number} */
export function modeByte(mode) {
  return mode === Mode.Direct ? 0x01 : 0x02;
}

/** Flag bits. */
export const Flags = Object.freeze({ SIGNED: 0x01, PADDED: 0x02, KNOWN: 0x03 });

/**
 * @param {number} need
 * @param {number} have
 */
function truncated(need, have) {
  return new OpenError('Truncated', `record truncated: need ${need} more bytes, have ${have}`, { need, have });
}

/** The 20-byte common header. */
export class Header {
  /**
   * @param {ModeName} mode `Mode.Direct` or `Mode.Multi`
   * @param {number} flags
   * @param {Kid} sender
   * @param {bigint} seq
   */
  constructor(mode, flags, sender, seq) {
    /** @type {ModeName} */
    this.mode = mode;
    /** @type {number} */
    this.flags = flags;
    /** @type {Kid} */
    this.sender = sender;
    /** @type {bigint} */
    this.seq = seq;
  }

  /** @returns {boolean} */
  get signed() {
    return (this.flags & Flags.SIGNED) !== 0;
  }

  /** @returns {boolean} */
  get padded() {
    return (this.flags & Flags.PADDED) !== 0;
  }

  /**
   * Parses and checks the common header at the start of `record`.
   * @param {Uint8Array} record
   * @returns {Header}
   * @throws {OpenError} Truncated, UnsupportedVersion, UnknownMode, ReservedFlags, ReservedByte
   */
  static parse(record) {
    const have = record.length;
    if (have < 1) throw truncated(1, have);
    if (record[0] !== VERSION) throw new OpenError('UnsupportedVersion', `unsupported record version ${record[0]}`, { found: record[0] });
    if (have < 2) throw truncated(1, 0);
    const m = record[1];
    if (m !== 0x01 && m !== 0x02) throw new OpenError('UnknownMode', `unknown record mode ${m}`, { found: m });
    if (have < 3) throw truncated(1, 0);
    const flags = record[2];
    if (flags & ~Flags.KNOWN) throw new OpenError('ReservedFlags', `reserved flag bits set in ${flags}`, { flags });
    if (have < 4) throw truncated(1, 0);
    if (record[3] !== 0) throw new OpenError('ReservedByte', `reserved header byte is ${record[3]}, not 0`, { found: record[3] });
    if (have < 12) throw truncated(8, have - 4);
    const sender = new Kid(record.subarray(4, 12));
    if (have < 20) throw truncated(8, have - 12);
    const seq = new DataView(record.buffer, record.byteOffset + 12, 8).getBigUint64(0);
    return new Header(m === 0x01 ? Mode.Direct : Mode.Multi, flags, sender, seq);
  }

  /** @returns {Uint8Array} the 20 header bytes */
  encode() {
    const out = new Uint8Array(HEADER_LEN);
    out[0] = VERSION;
    out[1] = modeByte(this.mode);
    out[2] = this.flags;
    out.set(this.sender.asBytes(), 4);
    new DataView(out.buffer).setBigUint64(12, this.seq);
    return out;
  }
}

/**
 * @typedef {object} DirectBody
 * @property {Kid} recipient
 * @property {Uint8Array} prefix
 * @property {Uint8Array} iv
 * @property {Uint8Array} ciphertext
 * @property {Uint8Array} tag
 * @property {Uint8Array} sealed
 */

/**
 * @typedef {object} MultiBody
 * @property {Uint8Array} prefix
 * @property {Uint8Array} msgSalt
 * @property {Uint8Array} ckCommit
 * @property {number} n
 * @property {Array<{ kidBytes: Uint8Array, wrapped: Uint8Array }>} entries
 * @property {Uint8Array} entryBytes
 * @property {Uint8Array} payload
 */

/**
 * A structurally valid record as subarrays of its fields.
 *
 * `body` is `{ recipient, prefix, iv, ciphertext, tag }` for DIRECT and
 * `{ prefix, msgSalt, ckCommit, n, entries: [{ kid, wrapped }], payload }` for MULTI.
 */
export class RecordView {
  /**
   * @param {Header} header
   * @param {DirectBody|MultiBody} body
   * @param {Uint8Array} signedPart
   * @param {Uint8Array|undefined} signature
   */
  constructor(header, body, signedPart, signature) {
    /** @type {Header} */
    this.header = header;
    /** @type {DirectBody|MultiBody} */
    this.body = body;
    /** Everything the signature covers (the whole record if unsigned). @type {Uint8Array} */
    this.signedPart = signedPart;
    /** The 64-byte trailer, if SIGNED. @type {Uint8Array|undefined} */
    this.signature = signature;
  }

  /**
   * Checks a record's structure and splits it into fields.
   * @param {Uint8Array} record
   * @returns {RecordView}
   * @throws {OpenError} any header error, Truncated, NoRecipients, TooManyRecipients
   */
  static parse(record) {
    const header = Header.parse(record);
    let signedPart = record;
    let signature;
    if (header.signed) {
      if (record.length < SIGNATURE_LEN) throw truncated(SIGNATURE_LEN, record.length);
      signedPart = record.subarray(0, record.length - SIGNATURE_LEN);
      signature = record.subarray(record.length - SIGNATURE_LEN);
    }
    const r = signedPart;
    if (r.length < HEADER_LEN) throw truncated(HEADER_LEN, r.length);
    let body;
    if (header.mode === Mode.Direct) {
      if (r.length < 28) throw truncated(8, r.length - 20);
      if (r.length < 40) throw truncated(IV_LEN, r.length - 28);
      if (r.length < 40 + TAG_LEN) throw truncated(TAG_LEN, r.length - 40);
      body = {
        recipient: new Kid(r.subarray(20, 28)),
        prefix: r.subarray(0, DIRECT_PREFIX_LEN),
        iv: r.subarray(28, 40),
        ciphertext: r.subarray(40, r.length - TAG_LEN),
        tag: r.subarray(r.length - TAG_LEN),
        sealed: r.subarray(40),
      };
    } else {
      if (r.length < 36) throw truncated(MSG_SALT_LEN, r.length - 20);
      if (r.length < 68) throw truncated(32, r.length - 36);
      if (r.length < 70) throw truncated(2, r.length - 68);
      const n = (r[68] << 8) | r[69];
      if (n === 0) throw new OpenError('NoRecipients', 'MULTI record with no recipients');
      if (n > MAX_RECIPIENTS) throw new OpenError('TooManyRecipients', `MULTI record claims ${n} recipients; at most 4096 are allowed`, { n });
      const entriesEnd = MULTI_PREFIX_LEN + n * MULTI_ENTRY_LEN;
      if (r.length < entriesEnd) throw truncated(n * MULTI_ENTRY_LEN, r.length - MULTI_PREFIX_LEN);
      if (r.length < entriesEnd + TAG_LEN) throw truncated(TAG_LEN, r.length - entriesEnd);
      const entries = [];
      for (let i = 0; i < n; i++) {
        const at = MULTI_PREFIX_LEN + i * MULTI_ENTRY_LEN;
        entries.push({ kidBytes: r.subarray(at, at + 8), wrapped: r.subarray(at + 8, at + MULTI_ENTRY_LEN) });
      }
      body = {
        prefix: r.subarray(0, MULTI_PREFIX_LEN),
        msgSalt: r.subarray(20, 36),
        ckCommit: r.subarray(36, 68),
        n,
        entries,
        entryBytes: r.subarray(MULTI_PREFIX_LEN, entriesEnd),
        payload: r.subarray(entriesEnd),
      };
    }
    return new RecordView(header, body, signedPart, signature);
  }
}

/**
 * `ctx_digest = SHA-256("sealed-record/v1" || mode || u16(len topic) || topic ||
 * fp(sender) [|| fp(recipient) in DIRECT])`; `undefined` if the topic is longer
 * than 65535 UTF-8 bytes.
 * @param {ModeName} mode
 * @param {Uint8Array} topicBytes UTF-8 of the topic
 * @param {import('./identity.js').Fingerprint} sender
 * @param {import('./identity.js').Fingerprint} [recipient]
 * @returns {Promise<Uint8Array|undefined>}
 */
export async function ctxDigest(mode, topicBytes, sender, recipient) {
  const len = topicBytes.length;
  if (len > 0xffff) return undefined;
  const parts = [CTX_LABEL, Uint8Array.of(modeByte(mode), len >> 8, len & 0xff), topicBytes, sender.asBytes()];
  if (recipient) parts.push(recipient.asBytes());
  return sha256(...parts);
}
