// Opening sealed records, as client/src/crypto/open.rs. For each record, in order:
//
// 1. structure: version, mode, flags, reserved byte, lengths, n (RecordView);
// 2. sender: refuse one's own kid (a reflection), look the sender up by kid;
// 3. addressing: a DIRECT record's recipient must be us; a MULTI record must
//    hold exactly one entry for us;
// 4. replay pre-check: a duplicate or too-old seq is refused before decrypting;
// 5. authentication and decryption (DIRECT: AES-GCM under K_pair; MULTI: wrap
//    key, unwrap CK, ck_commit checked in constant time, payload);
// 6. the signature trailer if SIGNED (or its absence if signatures are required);
// 7. padding if PADDED;
// 8. only then the window of (topic, sender) moves; a skipped range is a Gap.
//
// Every failure is an OpenError with its own `kind`. JS-specific: opens run
// concurrently (Web Crypto is async), so step 8 checks the window again,
// synchronously, before accepting — two concurrent opens of one record cannot
// both succeed. Legacy `{"iv","data"}` records are refused unless allowLegacy.

import { checkBytes, concat, equal, utf8 } from '../bytes.js';
import { CompatMessage, decodeParts } from './compat.js';
import { CompatError, OpenError, TrustError } from './errors.js';
import { COMMIT_LABEL, Mode, RecordView, SIG_LABEL, WRAP_LABEL, ctxDigest } from './envelope.js';
import { Identity, PublicKey, pairKey } from './identity.js';
import { sha256 } from './webcrypto.js';
import { aesKey, gcmDecrypt, hkdfAesKey, hkdfKey, hmacKey, hmacVerify, ZERO_IV } from './aead.js';
import { ReplayWindow } from './replay.js';
import { unpaddedLen } from './pad.js';
import { SigningPublicKey } from './signing.js';

/** How an opened record was sealed. */
export const OpenedMode = Object.freeze({ Direct: 'direct', Multi: 'multi', Legacy: 'legacy' });

/**
 * What the replay check of an opened record stood on (Rust's `WindowStart`):
 * `continued` (the sender's window was already in use by this opener),
 * `restored` (the first record after a persisted window or high-water mark
 * was restored: replays of what the previous run accepted are refused), `new`
 * (the first record ever seen from this sender on this topic, nothing
 * persisted for it: accepted on its own seq, above the topic's restored
 * floor if any), `unchecked` (a legacy record: no seq, no replay check).
 */
export const WindowStart = Object.freeze({ Continued: 'continued', Restored: 'restored', New: 'new', Unchecked: 'unchecked' });

/** @import { Fingerprint } from './identity.js' */
/** @import { Gap } from './replay.js' */
/** @typedef {import('./envelope.js').DirectBody} DirectBody */
/** @typedef {import('./envelope.js').MultiBody} MultiBody */
/** @typedef {'direct'|'multi'|'legacy'} OpenedModeName an {@link OpenedMode} value */
/** @typedef {'continued'|'restored'|'new'|'unchecked'} WindowStartName a {@link WindowStart} value */

/**
 * What `Opener.open` tells about a record besides its plaintext.
 * @typedef {object} Opened
 * @property {Fingerprint} sender
 * @property {OpenedModeName} mode
 * @property {bigint|undefined} seq undefined for legacy records
 * @property {boolean} signed
 * @property {boolean} padded
 * @property {Gap|undefined} gap
 * @property {boolean} late
 * @property {WindowStartName} window how the sender's replay window stood before this record
 * @property {number} len
 */

/**
 * A trusted sender: its key, the keys derived from K_pair, its signing key.
 * @typedef {{ key: PublicKey, aes: CryptoKey, hkdf: CryptoKey, signing: SigningPublicKey|null }} Peer
 */

/**
 * One (topic, sender) stream: its context digests and replay window.
 * @typedef {{ directCtx: Uint8Array, multiCtx: Uint8Array, window: ReplayWindow, restored: boolean }} Stream
 */

/**
 * @param {bigint} seq
 * @param {bigint} floor
 */
function floorError(seq, floor) {
  return new OpenError('TooOld', `record seq ${seq} is too old to check (highest ${floor}, window 1024)`, { seq, highest: floor });
}

/**
 * @param {bigint} seq
 * @param {{ kind: 'Replayed'|'TooOld', highest: bigint }} check
 */
function staleError(seq, check) {
  return check.kind === 'Replayed'
    ? new OpenError('Replayed', `replayed record: seq ${seq} already seen (highest ${check.highest})`, { seq, highest: check.highest })
    : new OpenError('TooOld', `record seq ${seq} is too old to check (highest ${check.highest}, window 1024)`, { seq, highest: check.highest });
}

/** Opens records addressed to one identity. */
export class Opener {
  /** @type {Identity} */
  #identity;
  /** kid hex → { key: PublicKey, aes, hkdf, signing: SigningPublicKey|null } @type {Map<string, Peer>} */
  #peers = new Map();
  /** topic → Map(sender fp hex → { directCtx, multiCtx, window, restored }) @type {Map<string, Map<string, Stream>>} */
  #streams = new Map();
  /** topic → the highest seq a sender without a window may not reach (bigint) @type {Map<string, bigint>} */
  #floors = new Map();
  #allowLegacy = false;
  #requireSignatures = false;

  /**
   * An opener for records addressed to `identity`, trusting no sender yet,
   * refusing legacy records and accepting unsigned ones.
   * @param {Identity} identity
   */
  constructor(identity) {
    if (!(identity instanceof Identity)) throw new TypeError('Opener needs an Identity');
    this.#identity = identity;
  }

  /** @returns {Identity} */
  get identity() {
    return this.#identity;
  }

  /**
   * Trusts `sender` (runs ECDH once). Trusting a key again is a no-op.
   * @param {PublicKey} sender
   * @returns {Promise<void>}
   * @throws {TrustError} OwnKey, KidCollision
   */
  async trust(sender) {
    return this.#trust(sender, null);
  }

  /**
   * Trusts `sender` and the separate key it signs records with.
   * @param {PublicKey} sender
   * @param {SigningPublicKey} signing
   * @returns {Promise<void>}
   */
  async trustSigner(sender, signing) {
    if (!(signing instanceof SigningPublicKey)) throw new TypeError('trustSigner needs a SigningPublicKey');
    return this.#trust(sender, signing);
  }

  /**
   * @param {PublicKey} sender
   * @returns {Peer|undefined}
   */
  #checkTrust(sender) {
    if (sender.equals(this.#identity.publicKey)) throw new TrustError('OwnKey', 'cannot trust our own key as a sender');
    const kid = sender.kid();
    const peer = this.#peers.get(kid.toHex());
    if (peer && !peer.key.equals(sender)) {
      throw new TrustError('KidCollision', `key id ${kid} already belongs to a different trusted key`, { kid });
    }
    return peer;
  }

  /**
   * @param {PublicKey} sender
   * @param {SigningPublicKey|null} signing
   */
  async #trust(sender, signing) {
    if (!(sender instanceof PublicKey)) throw new TypeError('trust needs a PublicKey');
    let peer = this.#checkTrust(sender);
    if (!peer) {
      const k = await pairKey(this.#identity, sender);
      let aes, hkdf;
      try {
        [aes, hkdf] = await Promise.all([aesKey(k, ['decrypt']), hkdfKey(k)]);
      } finally {
        k.fill(0);
      }
      // Checked again: another trust may have finished meanwhile.
      peer = this.#checkTrust(sender);
      if (!peer) {
        peer = { key: sender, aes, hkdf, signing: null };
        this.#peers.set(sender.kid().toHex(), peer);
      }
    }
    if (signing) peer.signing = signing;
  }

  /**
   * Stops trusting a sender; returns whether it was trusted. Its replay state is
   * kept, so trusting it again does not reopen old records.
   * @param {Fingerprint} sender
   * @returns {boolean}
   */
  distrust(sender) {
    const kid = sender.kid().toHex();
    const peer = this.#peers.get(kid);
    if (peer && peer.key.fingerprint().equals(sender)) {
      this.#peers.delete(kid);
      return true;
    }
    return false;
  }

  /**
   * Accepts legacy ChatCrypto records (off by default): no sender, topic or
   * seq; the sender is found by trying every trusted key.
   * @param {boolean} allow
   */
  allowLegacy(allow) {
    this.#allowLegacy = Boolean(allow);
  }

  /** Refuses unsigned records (off by default). @param {boolean} require */
  requireSignatures(require) {
    this.#requireSignatures = Boolean(require);
  }

  /**
   * Highest seq accepted from `sender` on `topic`, to persist across restarts.
   * @param {string} topic
   * @param {Fingerprint} sender
   * @returns {bigint|undefined}
   */
  highWater(topic, sender) {
    return this.#streams.get(topic)?.get(sender.toHex())?.window.highest;
  }

  /**
   * @param {Uint8Array} topicBytes
   * @param {Fingerprint} senderFp
   */
  async #streamCtx(topicBytes, senderFp) {
    const own = this.#identity.fingerprint();
    const [directCtx, multiCtx] = await Promise.all([
      ctxDigest(Mode.Direct, topicBytes, senderFp, own),
      ctxDigest(Mode.Multi, topicBytes, senderFp),
    ]);
    // The topic's length was checked (#topicBytes): both digests exist.
    return { directCtx: /** @type {Uint8Array} */ (directCtx), multiCtx: /** @type {Uint8Array} */ (multiCtx) };
  }

  /**
   * Restores a persisted high-water mark: every seq at or below it from
   * `sender` on `topic` is then refused.
   * @param {string} topic
   * @param {Fingerprint} sender
   * @param {bigint} highest
   * @returns {Promise<void>}
   * @throws {OpenError} TopicTooLong
   */
  async restoreHighWater(topic, sender, highest) {
    const topicBytes = this.#topicBytes(topic);
    const ctx = await this.#streamCtx(topicBytes, sender);
    let m = this.#streams.get(topic);
    if (!m) this.#streams.set(topic, (m = new Map()));
    m.set(sender.toHex(), { ...ctx, window: ReplayWindow.restored(BigInt(highest)), restored: true });
  }

  /**
   * Restores a persisted window of `sender` on `topic` (Rust's
   * `restore_window`): the numbers it marks seen are refused as replays, the
   * others in it accepted as late. The opener keeps its own copy. Its first
   * accepted record reports {@link WindowStart}.Restored.
   * @param {string} topic
   * @param {Fingerprint} sender
   * @param {ReplayWindow} window
   * @returns {Promise<void>}
   * @throws {OpenError} TopicTooLong
   */
  async restoreWindow(topic, sender, window) {
    if (!(window instanceof ReplayWindow)) throw new TypeError('restoreWindow needs a ReplayWindow');
    const topicBytes = this.#topicBytes(topic);
    const ctx = await this.#streamCtx(topicBytes, sender);
    let m = this.#streams.get(topic);
    if (!m) this.#streams.set(topic, (m = new Map()));
    m.set(sender.toHex(), { ...ctx, window: window.clone(), restored: true });
  }

  /**
   * Restores a floor for `topic`: a record from a sender this opener has no
   * window for is refused as `TooOld` unless its seq is above `floor`.
   * Persisted state that had to forget some senders keeps the highest of
   * their marks as the floor. Floors only go up.
   * @param {string} topic
   * @param {bigint} floor
   */
  restoreFloor(topic, floor) {
    const f = BigInt(floor);
    if (f > (this.#floors.get(topic) ?? 0n)) this.#floors.set(topic, f);
  }

  /**
   * The floor restored for `topic` (`0n` when none).
   * @param {string} topic
   * @returns {bigint}
   */
  floor(topic) {
    return this.#floors.get(topic) ?? 0n;
  }

  /** @param {string} topic */
  #topicBytes(topic) {
    if (typeof topic !== 'string') throw new TypeError('topic must be a string');
    const b = utf8(topic);
    if (b.length > 0xffff) throw new OpenError('TopicTooLong', `topic name is ${b.length} bytes; at most 65535 can be opened on`, { len: b.length });
    return b;
  }

  /**
   * Opens `record`, read from `topic`.
   * @param {string} topic
   * @param {Uint8Array} record
   * @returns {Promise<{ opened: Opened, plaintext: Uint8Array }>}
   * @throws {OpenError}
   */
  async open(topic, record) {
    checkBytes(record, 'record');
    if (record[0] === 0x7b /* { */) return this.#openLegacy(record);
    return this.#openSealed(topic, record);
  }

  /**
   * @param {Uint8Array} record
   * @returns {Promise<{ opened: Opened, plaintext: Uint8Array }>}
   */
  async #openLegacy(record) {
    if (!this.#allowLegacy) {
      throw new OpenError('LegacyRefused', 'legacy compatibility record refused (no sender, topic or seq; opt in to accept)');
    }
    let parts;
    try {
      const msg = CompatMessage.fromJson(record);
      parts = decodeParts(msg.data, msg.iv);
    } catch (e) {
      if (e instanceof CompatError) throw new OpenError('LegacyMalformed', `malformed legacy record: ${e.message}`, { cause: e });
      throw e;
    }
    for (const peer of [...this.#peers.values()]) {
      const plaintext = await gcmDecrypt(peer.aes, parts.iv, undefined, parts.data);
      if (plaintext) {
        return {
          opened: { sender: peer.key.fingerprint(), mode: OpenedMode.Legacy, seq: undefined, signed: false, padded: false, gap: undefined, late: false, window: WindowStart.Unchecked, len: plaintext.length },
          plaintext,
        };
      }
    }
    throw new OpenError('LegacyAuthFailed', 'legacy record does not authenticate under any trusted sender\'s key');
  }

  /**
   * @param {string} topic
   * @param {Uint8Array} record
   * @returns {Promise<{ opened: Opened, plaintext: Uint8Array }>}
   */
  async #openSealed(topic, record) {
    const view = RecordView.parse(record);
    const header = view.header;
    const ownKid = this.#identity.kid();
    if (header.sender.equals(ownKid)) throw new OpenError('Reflected', 'record was sealed by our own key (reflected)');
    const peer = this.#peers.get(header.sender.toHex());
    if (!peer) throw new OpenError('UnknownSender', `sender ${header.sender} is not trusted`, { kid: header.sender });
    const topicBytes = this.#topicBytes(topic);
    const senderFp = peer.key.fingerprint();
    const fpHex = senderFp.toHex();
    const existing = this.#streams.get(topic)?.get(fpHex);
    const ownKidBytes = ownKid.asBytes();

    // Addressing before replay: a record for someone else is NotForMe /
    // NotARecipient whatever its seq.
    /** @type {{ kidBytes: Uint8Array, wrapped: Uint8Array }|undefined} */
    let ownEntry;
    if (header.mode === Mode.Direct) {
      const body = /** @type {DirectBody} */ (view.body);
      if (!body.recipient.equals(ownKid)) {
        throw new OpenError('NotForMe', `DIRECT record is addressed to ${body.recipient}, not to us`, { recipient: body.recipient });
      }
    } else {
      for (const e of /** @type {MultiBody} */ (view.body).entries) {
        if (equal(e.kidBytes, ownKidBytes)) {
          if (ownEntry) throw new OpenError('DuplicateEntry', `MULTI record has two entries for key id ${ownKid}`, { kid: ownKid });
          ownEntry = e;
        }
      }
      if (!ownEntry) throw new OpenError('NotARecipient', 'MULTI record has no entry for us');
    }
    if (existing) {
      const c = existing.window.check(header.seq);
      if (!c.ok) throw staleError(header.seq, c);
    } else {
      const floor = this.#floors.get(topic);
      if (floor !== undefined && header.seq <= floor) throw floorError(header.seq, floor);
    }
    const { directCtx, multiCtx } = existing ?? (await this.#streamCtx(topicBytes, senderFp));

    let ctx;
    let plain;
    if (header.mode === Mode.Direct) {
      const b = /** @type {DirectBody} */ (view.body);
      plain = await gcmDecrypt(peer.aes, b.iv, concat(b.prefix, directCtx), b.sealed);
      if (!plain) throw new OpenError('DirectAuthFailed', 'DIRECT record does not authenticate');
      ctx = directCtx;
    } else {
      const b = /** @type {MultiBody} */ (view.body);
      const rcpt = await sha256(concat(...b.entries.map((e) => e.kidBytes)));
      const wrapAad = concat(b.prefix, rcpt, await sha256(b.payload));
      const kw = await hkdfAesKey(peer.hkdf, b.msgSalt, concat(WRAP_LABEL, multiCtx, ownKidBytes), ['decrypt']);
      const ck = await gcmDecrypt(kw, ZERO_IV, wrapAad, /** @type {{ wrapped: Uint8Array }} */ (ownEntry).wrapped);
      if (!ck) throw new OpenError('WrapAuthFailed', 'MULTI key wrap does not authenticate');
      try {
        if (!(await hmacVerify(await hmacKey(ck, ['verify']), b.ckCommit, COMMIT_LABEL))) {
          throw new OpenError('CkCommitMismatch', 'MULTI content key does not match its commitment');
        }
        plain = await gcmDecrypt(await aesKey(ck, ['decrypt']), ZERO_IV, concat(b.prefix, rcpt, multiCtx), b.payload);
      } finally {
        ck.fill(0);
      }
      if (!plain) throw new OpenError('PayloadAuthFailed', 'MULTI payload does not authenticate');
      ctx = multiCtx;
    }

    try {
      if (view.signature) {
        if (!peer.signing) throw new OpenError('UnknownSigner', `record is signed but no signing key is trusted for sender ${header.sender}`, { kid: header.sender });
        if (!(await peer.signing.verify(view.signature, concat(SIG_LABEL, ctx, view.signedPart)))) {
          throw new OpenError('SignatureInvalid', 'record signature does not verify');
        }
      } else if (this.#requireSignatures) {
        throw new OpenError('Unsigned', 'record is not signed and signatures are required');
      }
      if (header.padded) {
        const len = unpaddedLen(plain);
        if (len === undefined) throw new OpenError('BadPadding', 'padded plaintext has malformed padding');
        const inner = plain.slice(0, len);
        plain.fill(0);
        plain = inner;
      }
    } catch (e) {
      plain.fill(0);
      throw e;
    }

    // Authenticated. Check again and move the window with no await in between.
    let streams = this.#streams.get(topic);
    const stream = streams?.get(fpHex);
    let gap;
    let late = false;
    let window;
    if (stream) {
      const c = stream.window.check(header.seq);
      if (!c.ok) {
        plain.fill(0);
        throw staleError(header.seq, c);
      }
      gap = c.gap;
      late = c.late;
      stream.window.accept(header.seq);
      window = stream.restored ? WindowStart.Restored : WindowStart.Continued;
      stream.restored = false;
    } else {
      // A floor restored while this record was being opened counts too.
      const floor = this.#floors.get(topic);
      if (floor !== undefined && header.seq <= floor) {
        plain.fill(0);
        throw floorError(header.seq, floor);
      }
      if (!streams) this.#streams.set(topic, (streams = new Map()));
      streams.set(fpHex, { directCtx, multiCtx, window: ReplayWindow.startingWith(header.seq), restored: false });
      window = WindowStart.New;
    }
    return {
      opened: {
        sender: senderFp,
        mode: header.mode === Mode.Direct ? OpenedMode.Direct : OpenedMode.Multi,
        seq: header.seq,
        signed: view.signature !== undefined,
        padded: header.padded,
        gap,
        late,
        window,
        len: plain.length,
      },
      plaintext: plain,
    };
  }

  toString() {
    return `Opener(kid=${this.#identity.kid().toHex()}, trusted=${this.#peers.size})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}
