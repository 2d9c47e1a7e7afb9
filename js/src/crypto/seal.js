// Writing sealed records, as client/src/crypto/seal.rs.
//
// A Sealer belongs to one identity. It caches per peer the pairwise key (as
// non-extractable AES-GCM and HKDF CryptoKeys: ECDH runs once per peer), per
// topic a sequence generator and the context digests. All methods that touch
// Web Crypto are async; sequence numbers and DIRECT counts are taken
// synchronously, so concurrent calls never share a number (records may then
// finish out of order, which the opener's window accepts as late records).
//
// A random-IV key is good for 2^32 records (both directions together), so the
// sealer counts DIRECT records per K_pair and writes a one-recipient MULTI
// record past DIRECT_LIMIT = 2^30 (legacy ChatCrypto counts its own 2^30 under
// the same key: 2^30 + 2^30 per side, 2^32 for both). The count lives in
// memory: persist it with `directSeals` / `restoreDirectSeals` (the
// SealedProducer does, in the identity's state topic).
//
// Records are padded (Padmé) by default, as in Rust: an unpadded record tells
// the broker its plaintext's exact length.
//
// Sequence numbers (BigInt, u64): a topic's run starts at `Date.now() << 16`
// and counts up by one (see client/src/crypto/seq.rs); `resumeTopic` continues
// above a persisted value.

import { checkBytes, concat, utf8 } from '../bytes.js';
import { Identity, PublicKey, pairKey } from './identity.js';
import { randomBytes, sha256 } from './webcrypto.js';
import {
  COMMIT_LABEL,
  Flags,
  Header,
  MAX_RECIPIENTS,
  Mode,
  SIG_LABEL,
  WRAP_LABEL,
  ctxDigest,
} from './envelope.js';
import { SealError } from './errors.js';
import { aesKey, gcmEncrypt, hkdfAesKey, hkdfKey, hmacKey, hmacSign, ZERO_IV } from './aead.js';
import { pad } from './pad.js';
import { SigningIdentity, signWith } from './signing.js';

/**
 * DIRECT records sealed under one K_pair before the sealer switches to MULTI:
 * 2^30, so that with the legacy ChatCrypto path's own COMPAT_LIMIT (2^30) and
 * both directions the key stays within 2^32 random-IV encryptions.
 */
export const DIRECT_LIMIT = 2 ** 30;
/** Largest plaintext accepted. */
export const MAX_PLAINTEXT_LEN = 2 ** 32;
const U64_MAX = (1n << 64n) - 1n;

function nowFloor() {
  return BigInt(Date.now()) << 16n;
}

/**
 * What a sealer returns with a record (Rust's `Sealed`).
 * @typedef {object} Sealed
 * @property {Uint8Array} record
 * @property {import('./envelope.js').ModeName} mode
 * @property {bigint} seq
 * @property {number} len
 */

/**
 * A peer: its pairwise keys (derived once) and the DIRECT records sealed under them.
 * @typedef {{ keys: Promise<{ aes: CryptoKey, hkdf: CryptoKey }>, directSeals: number }} Pair
 */

/**
 * A topic: its bytes, the next sequence number (`null`: exhausted) and context digests.
 * @typedef {{ bytes: Uint8Array, next: bigint|null, multiCtx: Promise<Uint8Array>, direct: Map<string, Promise<Uint8Array>> }} TopicState
 */

/**
 * Derives and caches a peer's pairwise CryptoKeys.
 * @param {Identity} identity
 * @param {PublicKey} peer
 */
async function derivePair(identity, peer) {
  const k = await pairKey(identity, peer);
  try {
    return { aes: await aesKey(k, ['encrypt', 'decrypt']), hkdf: await hkdfKey(k) };
  } finally {
    k.fill(0);
  }
}

/** Seals records from one identity. */
export class Sealer {
  /** @type {Identity} */
  #identity;
  /** @type {SigningIdentity|null} */
  #signer = null;
  #pad = true;
  /** fp hex → { peer, keys: Promise<{aes, hkdf}>, directSeals: number } @type {Map<string, Pair>} */
  #pairs = new Map();
  /** topic → { bytes, next: bigint|null, multiCtx: Promise, direct: Map<fp hex, Promise<ctx>> } @type {Map<string, TopicState>} */
  #topics = new Map();

  /**
   * A sealer for `identity`; records are padded (Padmé: the broker sees
   * O(log log n) bits of a plaintext's length) and unsigned until
   * `setPadding` / `setSigningIdentity` say otherwise.
   * @param {Identity} identity
   */
  constructor(identity) {
    if (!(identity instanceof Identity)) throw new TypeError('Sealer needs an Identity');
    this.#identity = identity;
  }

  /**
   * The same as `new Sealer(identity)` (Rust's fallible `Sealer::new`).
   * @param {Identity} identity
   * @returns {Promise<Sealer>}
   */
  static async create(identity) {
    return new Sealer(identity);
  }

  /** @returns {Identity} */
  get identity() {
    return this.#identity;
  }

  /** Pads every following record to a Padmé bucket (PADDED flag). @param {boolean} on */
  setPadding(on) {
    this.#pad = Boolean(on);
  }

  /**
   * Signs every following record with `signer` (SIGNED flag), or stops (`null`).
   * @param {SigningIdentity|null} signer
   * @throws {SealError} kind `SigningKeyIsIdentityKey`
   */
  setSigningIdentity(signer) {
    if (signer != null) {
      if (!(signer instanceof SigningIdentity)) throw new TypeError('setSigningIdentity needs a SigningIdentity or null');
      if (signer.publicKey.fingerprint().equals(this.#identity.fingerprint())) {
        throw new SealError('SigningKeyIsIdentityKey', 'the signing key must be separate from the ECDH identity key');
      }
    }
    this.#signer = signer ?? null;
  }

  /**
   * @param {string} topic
   * @returns {TopicState}
   */
  #topicState(topic) {
    let ts = this.#topics.get(topic);
    if (ts) return ts;
    if (typeof topic !== 'string') throw new TypeError('topic must be a string');
    const bytes = utf8(topic);
    if (bytes.length > 0xffff) {
      throw new SealError('TopicTooLong', `topic name is ${bytes.length} bytes; at most 65535 can be sealed to`, { len: bytes.length });
    }
    const own = this.#identity.fingerprint();
    // The topic's length was checked above: its digests exist.
    const multiCtx = /** @type {Promise<Uint8Array>} */ (ctxDigest(Mode.Multi, bytes, own));
    ts = { bytes, next: nowFloor(), multiCtx, direct: new Map() };
    this.#topics.set(topic, ts);
    return ts;
  }

  /**
   * @param {PublicKey} peer
   * @returns {Pair}
   */
  #pair(peer) {
    const fp = peer.fingerprint().toHex();
    let p = this.#pairs.get(fp);
    if (!p) {
      p = { keys: derivePair(this.#identity, peer), directSeals: 0 };
      // A failed derivation must not stay cached.
      p.keys.catch(() => this.#pairs.get(fp) === p && this.#pairs.delete(fp));
      this.#pairs.set(fp, p);
    }
    return p;
  }

  /**
   * Continues `topic`'s sequence above `lastSeq` (a persisted `nextSeq - 1`),
   * never below `Date.now() << 16`.
   * @param {string} topic
   * @param {bigint} lastSeq
   * @throws {SealError} kind `TopicTooLong`
   */
  resumeTopic(topic, lastSeq) {
    const last = BigInt(lastSeq);
    if (last < 0n || last > U64_MAX) throw new RangeError('lastSeq must be a u64');
    const ts = this.#topicState(topic);
    const floor = nowFloor();
    ts.next = last === U64_MAX ? null : last + 1n > floor ? last + 1n : floor;
  }

  /**
   * The sequence number the next record on `topic` will carry, if the topic has been used.
   * @param {string} topic
   * @returns {bigint|undefined}
   */
  nextSeq(topic) {
    return this.#topics.get(topic)?.next ?? undefined;
  }

  /**
   * DIRECT records sealed so far under K_pair with `peer`.
   * @param {import('./identity.js').Fingerprint} peer
   * @returns {number}
   */
  directSeals(peer) {
    return this.#pairs.get(peer.toHex())?.directSeals ?? 0;
  }

  /**
   * Restores a persisted DIRECT count for `peer` (counts only go up).
   * @param {PublicKey} peer
   * @param {number} count
   */
  restoreDirectSeals(peer, count) {
    const p = this.#pair(peer);
    p.directSeals = Math.max(p.directSeals, Number(count));
  }

  /**
   * Forgets a peer's cached pairwise key (its DIRECT count restarts unless restored).
   * @param {import('./identity.js').Fingerprint} peer
   */
  forgetPeer(peer) {
    const fp = peer.toHex();
    this.#pairs.delete(fp);
    for (const ts of this.#topics.values()) ts.direct.delete(fp);
  }

  /** @param {TopicState} ts */
  #takeSeq(ts) {
    const seq = ts.next;
    if (seq === null) throw new SealError('SeqExhausted', 'sequence numbers exhausted (the next would exceed u64::MAX)');
    ts.next = seq === U64_MAX ? null : seq + 1n;
    return seq;
  }

  /**
   * @param {Uint8Array} plaintext
   * @param {boolean} padded
   */
  #body(plaintext, padded) {
    checkBytes(plaintext, 'plaintext');
    if (plaintext.length > MAX_PLAINTEXT_LEN) {
      throw new SealError('PlaintextTooLarge', `plaintext of ${plaintext.length} bytes exceeds the ${MAX_PLAINTEXT_LEN}-byte limit`, { len: plaintext.length });
    }
    return padded ? pad(plaintext) : plaintext;
  }

  /**
   * @param {Uint8Array} record
   * @param {Uint8Array} ctx
   * @param {SigningIdentity|null} signer
   */
  async #finish(record, ctx, signer) {
    if (!signer) return record;
    return concat(record, await signWith(signer, concat(SIG_LABEL, ctx, record)));
  }

  /**
   * Seals a DIRECT record to `recipient` on `topic`.
   * @param {string} topic
   * @param {PublicKey} recipient
   * @param {Uint8Array} plaintext
   * @returns {Promise<Uint8Array>}
   * @throws {SealError} TopicTooLong, SelfRecipient, PlaintextTooLarge, SeqExhausted
   */
  async sealDirect(topic, recipient, plaintext) {
    return (await this.sealDirectDetailed(topic, recipient, plaintext)).record;
  }

  /**
   * `sealDirect` that also says which mode was used (MULTI past DIRECT_LIMIT)
   * and the sequence number: Rust's `seal_direct_into` result.
   * @param {string} topic
   * @param {PublicKey} recipient
   * @param {Uint8Array} plaintext
   * @returns {Promise<Sealed>}
   */
  async sealDirectDetailed(topic, recipient, plaintext) {
    if (!(recipient instanceof PublicKey)) throw new TypeError('recipient must be a PublicKey');
    if (recipient.equals(this.#identity.publicKey)) throw new SealError('SelfRecipient', 'cannot seal to one\'s own key');
    const padded = this.#pad;
    const signer = this.#signer;
    const body = this.#body(plaintext, padded);
    const ts = this.#topicState(topic);
    const pair = this.#pair(recipient);
    if (pair.directSeals >= DIRECT_LIMIT) return this.sealMultiDetailed(topic, [recipient], plaintext);
    const fp = recipient.fingerprint().toHex();
    let ctxP = ts.direct.get(fp);
    if (!ctxP) {
      ctxP = /** @type {Promise<Uint8Array>} */ (ctxDigest(Mode.Direct, ts.bytes, this.#identity.fingerprint(), recipient.fingerprint()));
      ts.direct.set(fp, ctxP);
    }
    // Number and count are taken before any await.
    const seq = this.#takeSeq(ts);
    pair.directSeals += 1;
    const iv = randomBytes(12);
    const header = new Header(Mode.Direct, (signer ? Flags.SIGNED : 0) | (padded ? Flags.PADDED : 0), this.#identity.kid(), seq);
    const prefix = concat(header.encode(), recipient.kid().asBytes(), iv);
    const [ctx, keys] = await Promise.all([ctxP, pair.keys]);
    const sealed = await gcmEncrypt(keys.aes, iv, concat(prefix, ctx), body);
    if (body !== plaintext) body.fill(0); // the padded copy is ours to wipe
    const record = await this.#finish(concat(prefix, sealed), ctx, signer);
    return { record, mode: Mode.Direct, seq, len: record.length };
  }

  /**
   * Seals a MULTI record to `recipients` (1..=4096 distinct keys, not one's own).
   * A fresh content key is drawn for every record.
   * @param {string} topic
   * @param {PublicKey[]} recipients
   * @param {Uint8Array} plaintext
   * @returns {Promise<Uint8Array>}
   * @throws {SealError} NoRecipients, TooManyRecipients, SelfRecipient, DuplicateRecipient,
   *   TopicTooLong, PlaintextTooLarge, SeqExhausted
   */
  async sealMulti(topic, recipients, plaintext) {
    return (await this.sealMultiDetailed(topic, recipients, plaintext)).record;
  }

  /**
   * `sealMulti` with the mode and sequence number (Rust's `seal_multi_into` result).
   * @param {string} topic
   * @param {PublicKey[]} recipients
   * @param {Uint8Array} plaintext
   * @returns {Promise<Sealed>}
   */
  async sealMultiDetailed(topic, recipients, plaintext) {
    if (!Array.isArray(recipients)) throw new TypeError('recipients must be an array of PublicKey');
    const n = recipients.length;
    if (n === 0) throw new SealError('NoRecipients', 'a MULTI record needs at least one recipient');
    if (n > MAX_RECIPIENTS) throw new SealError('TooManyRecipients', `${n} recipients; a MULTI record holds at most ${MAX_RECIPIENTS}`, { n });
    const padded = this.#pad;
    const signer = this.#signer;
    const body = this.#body(plaintext, padded);
    const own = this.#identity.fingerprint();
    const kids = new Set();
    for (const r of recipients) {
      if (!(r instanceof PublicKey)) throw new TypeError('recipients must be an array of PublicKey');
      if (r.fingerprint().equals(own)) throw new SealError('SelfRecipient', 'cannot seal to one\'s own key');
    }
    for (const r of recipients) {
      const kid = r.kid();
      if (kids.has(kid.toHex())) throw new SealError('DuplicateRecipient', `recipient key id ${kid} appears twice`, { kid });
      kids.add(kid.toHex());
    }
    const ts = this.#topicState(topic);
    const pairs = recipients.map((r) => this.#pair(r));
    const seq = this.#takeSeq(ts);

    const ck = randomBytes(32);
    try {
      const msgSalt = randomBytes(16);
      const commit = await hmacSign(await hmacKey(ck), COMMIT_LABEL);
      const header = new Header(Mode.Multi, (signer ? Flags.SIGNED : 0) | (padded ? Flags.PADDED : 0), this.#identity.kid(), seq);
      const prefix = concat(header.encode(), msgSalt, commit, [n >> 8, n & 0xff]);
      const kidBytes = recipients.map((r) => r.kid().asBytes());
      const rcpt = await sha256(concat(...kidBytes));
      const ctx = await ts.multiCtx;
      const payload = await gcmEncrypt(await aesKey(ck, ['encrypt']), ZERO_IV, concat(prefix, rcpt, ctx), body);
      if (body !== plaintext) body.fill(0);
      const wrapAad = concat(prefix, rcpt, await sha256(payload));
      const entries = await Promise.all(
        pairs.map(async (p, i) => {
          const keys = await p.keys;
          const kw = await hkdfAesKey(keys.hkdf, msgSalt, concat(WRAP_LABEL, ctx, kidBytes[i]), ['encrypt']);
          return concat(kidBytes[i], await gcmEncrypt(kw, ZERO_IV, wrapAad, ck));
        }),
      );
      const record = await this.#finish(concat(prefix, ...entries, payload), ctx, signer);
      return { record, mode: Mode.Multi, seq, len: record.length };
    } finally {
      ck.fill(0);
    }
  }

  toString() {
    return `Sealer(kid=${this.#identity.kid().toHex()}, signed=${this.#signer !== null}, padded=${this.#pad})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}
