import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, utf8 } from '../src/bytes.js';
import { OpenError, SealError, TrustError } from '../src/crypto/errors.js';
import { COMMIT_LABEL, CTX_LABEL, DIRECT_OVERHEAD, Flags, Header, Mode, WRAP_LABEL, ctxDigest } from '../src/crypto/envelope.js';
import { Identity, pairKey } from '../src/crypto/identity.js';
import { sha256 } from '../src/crypto/webcrypto.js';
import { OpenedMode, Opener } from '../src/crypto/open.js';
import { paddedLen } from '../src/crypto/pad.js';
import { DIRECT_LIMIT, Sealer } from '../src/crypto/seal.js';
import { SigningIdentity } from '../src/crypto/signing.js';
import { aesKey, gcmEncrypt, hkdfAesKey, hkdfKey, hmacKey, hmacSign, ZERO_IV } from '../src/crypto/aead.js';

const TOPIC = 'chat.room-7';
const text = (/** @type {string} */ s) => utf8(s);

async function party() {
  const id = await Identity.generate();
  return { id, opener: new Opener(id), sealer: new Sealer(id) };
}

/** @param {Promise<unknown>} promise */
async function kindOf(promise) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof OpenError || e instanceof SealError || e instanceof TrustError, String(e));
    assert.ok(typeof e.code === 'string');
    return e.kind;
  }
  return 'ok';
}

test('DIRECT and MULTI round-trip with sender, seq, mode and flags', async () => {
  const a = await party();
  const b = await party();
  const c = await party();
  await b.opener.trust(a.id.publicKey);
  await c.opener.trust(a.id.publicKey);
  a.sealer.setPadding(false); // exact lengths below (padding is on by default)
  const d = await a.sealer.sealDirectDetailed(TOPIC, b.id.publicKey, text('hi b'));
  assert.equal(d.record.length, 4 + DIRECT_OVERHEAD);
  assert.equal(d.mode, Mode.Direct);
  const { opened, plaintext } = await b.opener.open(TOPIC, d.record);
  assert.deepEqual(plaintext, text('hi b'));
  assert.ok(opened.sender.equals(a.id.fingerprint()));
  assert.equal(opened.seq, d.seq);
  assert.equal(opened.mode, OpenedMode.Direct);
  assert.deepEqual([opened.signed, opened.padded, opened.late, opened.gap], [false, false, false, undefined]);
  assert.equal(opened.window, 'new', 'the first record from a sender starts its window');
  assert.equal(a.sealer.directSeals(b.id.fingerprint()), 1);
  const m = await a.sealer.sealMultiDetailed(TOPIC, [b.id.publicKey, c.id.publicKey], text('hi all'));
  assert.equal(m.seq, d.seq + 1n);
  assert.equal(m.record.length, 70 + 2 * 56 + 6 + 16);
  for (const r of [b, c]) {
    const o = await r.opener.open(TOPIC, m.record);
    assert.deepEqual(o.plaintext, text('hi all'));
    assert.equal(o.opened.mode, OpenedMode.Multi);
  }
  // c sees a gap: the DIRECT record to b was on the same topic.
  assert.equal(a.sealer.nextSeq(TOPIC), m.seq + 1n);
  assert.equal(b.opener.highWater(TOPIC, a.id.fingerprint()), m.seq);
  // Records are bound to their topic.
  assert.equal(await kindOf(b.opener.open('other', (await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('x'))))), 'DirectAuthFailed');
});

test('padded records hide the exact length in Padmé buckets', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  a.sealer.setPadding(true);
  for (const n of [0, 1, 2, 9, 100, 1000, 1025, 70000]) {
    const pt = new Uint8Array(n).fill(n & 0xff);
    const r = await a.sealer.sealDirect(TOPIC, b.id.publicKey, pt);
    assert.equal(r.length, DIRECT_OVERHEAD + paddedLen(n), `n = ${n}`);
    assert.equal(r[2], Flags.PADDED);
    const { opened, plaintext } = await b.opener.open(TOPIC, r);
    assert.deepEqual(plaintext, pt);
    assert.ok(opened.padded);
  }
  const m = await a.sealer.sealMulti(TOPIC, [b.id.publicKey], new Uint8Array(100));
  assert.equal(m.length, 70 + 56 + paddedLen(100) + 16);
  assert.equal((await b.opener.open(TOPIC, m)).plaintext.length, 100);
});

/**
 * Flips one bit of every byte in turn; `expect(i)` is the kind for byte i.
 * @param {Opener} opener
 * @param {Uint8Array} record
 * @param {(i: number) => string|undefined} expect
 */
async function flipEveryByte(opener, record, expect, topic = TOPIC) {
  for (let i = 0; i < record.length; i++) {
    const bad = Uint8Array.from(record);
    bad[i] ^= i === 2 ? 0x04 : 0x01; // byte 2 (flags): a reserved bit
    assert.equal(await kindOf(opener.open(topic, bad)), expect(i), `byte ${i}`);
  }
  // Forgeries never moved the window: the real record still opens, once.
  assert.equal(await kindOf(opener.open(topic, record)), 'ok');
  assert.equal(await kindOf(opener.open(topic, record)), 'Replayed');
}

const header = (/** @type {number} */ i) => ['UnsupportedVersion', 'UnknownMode', 'ReservedFlags', 'ReservedByte'][i] ?? (i < 12 ? 'UnknownSender' : undefined);

test('every byte flip of a DIRECT record fails with the right kind', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  const r = await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('tamper me'));
  await flipEveryByte(b.opener, r, (i) => header(i) ?? (i >= 20 && i < 28 ? 'NotForMe' : 'DirectAuthFailed'));
});

test('every byte flip of a signed DIRECT record fails with the right kind', async () => {
  const a = await party();
  const b = await party();
  const signer = await SigningIdentity.generate();
  a.sealer.setSigningIdentity(signer);
  a.sealer.setPadding(true);
  await b.opener.trustSigner(a.id.publicKey, signer.publicKey);
  const r = await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('signed'));
  assert.equal(r[2], Flags.SIGNED | Flags.PADDED);
  const sigAt = r.length - 64;
  await flipEveryByte(b.opener, r, (i) => header(i) ?? (i >= 20 && i < 28 ? 'NotForMe' : i >= sigAt ? 'SignatureInvalid' : 'DirectAuthFailed'));
});

test('every byte flip of a MULTI record fails with the right kind', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  const r = await a.sealer.sealMulti(TOPIC, [b.id.publicKey], text('group'));
  // n (bytes 68, 69) changes; our kid (70..78) disappears; the wrap binds the
  // header, the recipient list and the payload hash.
  await flipEveryByte(b.opener, r, (i) => {
    if (header(i)) return header(i);
    if (i === 68) return 'Truncated'; // n = 257
    if (i === 69) return 'NoRecipients'; // n = 0
    return i >= 70 && i < 78 ? 'NotARecipient' : 'WrapAuthFailed';
  });
});

test('in a signed MULTI record even another member\'s entry is covered', async () => {
  const a = await party();
  const b = await party();
  const c = await party();
  const signer = await SigningIdentity.generate();
  a.sealer.setSigningIdentity(signer);
  await b.opener.trustSigner(a.id.publicKey, signer.publicKey);
  const r = await a.sealer.sealMulti(TOPIC, [b.id.publicKey, c.id.publicKey], text('group'));
  // Entry 2 (c's) spans 126..182: its kid is in the rcpt digest, its wrapped
  // key only under the signature (without one, b cannot tell, c can).
  const sigAt = r.length - 64;
  await flipEveryByte(b.opener, r, (i) => {
    if (header(i)) return header(i);
    if (i === 68 || i === 69) return 'Truncated';
    if (i >= 70 && i < 78) return 'NotARecipient';
    if (i >= 134 && i < 182) return 'SignatureInvalid';
    if (i >= sigAt) return 'SignatureInvalid';
    return 'WrapAuthFailed';
  });
  const unsigned = new Sealer(a.id);
  const r2 = await unsigned.sealMulti(TOPIC, [b.id.publicKey, c.id.publicKey], text('group'));
  const bad = Uint8Array.from(r2);
  bad[150] ^= 1;
  assert.equal(await kindOf(b.opener.open(TOPIC, bad)), 'ok');
  await c.opener.trust(a.id.publicKey);
  assert.equal(await kindOf(c.opener.open(TOPIC, bad)), 'WrapAuthFailed');
});

test('structure errors: truncation, n, reflection, senders and addressing', async () => {
  const a = await party();
  const b = await party();
  const c = await party();
  await b.opener.trust(a.id.publicKey);
  const r = await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('x'));
  for (let len = 0; len < 56; len++) {
    const k = await kindOf(b.opener.open(TOPIC, r.subarray(0, len)));
    assert.equal(k, 'Truncated', `length ${len}`);
  }
  assert.equal(await kindOf(c.opener.open(TOPIC, r)), 'UnknownSender');
  await c.opener.trust(a.id.publicKey);
  assert.equal(await kindOf(c.opener.open(TOPIC, r)), 'NotForMe');
  assert.equal(await kindOf(a.opener.open(TOPIC, r)), 'Reflected');
  const m = await a.sealer.sealMulti(TOPIC, [b.id.publicKey], text('x'));
  assert.equal(await kindOf(c.opener.open(TOPIC, m)), 'NotARecipient');
  const zero = Uint8Array.from(m);
  zero[68] = 0;
  zero[69] = 0;
  assert.equal(await kindOf(b.opener.open(TOPIC, zero)), 'NoRecipients');
  const many = Uint8Array.from(m);
  many[68] = 0x10;
  many[69] = 0x01;
  assert.equal(await kindOf(b.opener.open(TOPIC, many)), 'TooManyRecipients');
  assert.equal(await kindOf(b.opener.open('t'.repeat(65536), r)), 'TopicTooLong');
  assert.equal(await kindOf(b.opener.open(TOPIC, text('{"iv":"x","data":"y"}'))), 'LegacyRefused');
});

test('replays are refused, gaps reported, late records accepted once', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  /** @type {import('../src/crypto/seal.js').Sealed[]} */
  const recs = [];
  for (let i = 0; i < 6; i++) recs.push(await a.sealer.sealDirectDetailed(TOPIC, b.id.publicKey, Uint8Array.of(i)));
  const open = (/** @type {number} */ i) => b.opener.open(TOPIC, recs[i].record);
  assert.equal((await open(0)).opened.gap, undefined);
  const o3 = /** @type {any} */ ((await open(3)).opened);
  assert.deepEqual([o3.gap.first, o3.gap.last], [recs[1].seq, recs[2].seq]);
  assert.equal(o3.gap.len(), 2n);
  assert.equal(await kindOf(open(3)), 'Replayed');
  assert.equal(await kindOf(open(0)), 'Replayed');
  const o1 = (await open(1)).opened;
  assert.deepEqual([o1.late, o1.gap], [true, undefined]);
  assert.equal(await kindOf(open(1)), 'Replayed');
  // Concurrent opens of one record: exactly one succeeds.
  const kinds = await Promise.all([kindOf(open(4)), kindOf(open(4)), kindOf(open(4))]);
  assert.deepEqual(kinds.sort(), ['Replayed', 'Replayed', 'ok']);
  // A restored high-water mark refuses everything up to it.
  const fresh = new Opener(b.id);
  await fresh.trust(a.id.publicKey);
  await fresh.restoreHighWater(TOPIC, a.id.fingerprint(), recs[4].seq);
  assert.equal(await kindOf(fresh.open(TOPIC, recs[2].record)), 'Replayed');
  assert.equal(await kindOf(fresh.open(TOPIC, recs[5].record)), 'ok');
  // Distrusting keeps the replay state.
  assert.ok(b.opener.distrust(a.id.fingerprint()));
  assert.ok(!b.opener.distrust(a.id.fingerprint()));
  assert.equal(await kindOf(open(5)), 'UnknownSender');
  await b.opener.trust(a.id.publicKey);
  assert.equal(await kindOf(open(0)), 'Replayed');
});

test('a record more than 1024 behind is too old', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  const old = await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('old'));
  const seq = Header.parse(old).seq;
  a.sealer.resumeTopic(TOPIC, seq + 1100n);
  await b.opener.open(TOPIC, await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('new')));
  assert.equal(await kindOf(b.opener.open(TOPIC, old)), 'TooOld');
});

test('concurrent seals get distinct, dense sequence numbers', async () => {
  const a = await party();
  const b = await party();
  const all = await Promise.all(Array.from({ length: 50 }, (_, i) => a.sealer.sealDirectDetailed(TOPIC, b.id.publicKey, Uint8Array.of(i))));
  const seqs = all.map((s) => s.seq).sort((x, y) => (x < y ? -1 : 1));
  for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[0] + BigInt(i));
  assert.ok(seqs[0] >= BigInt(Date.now() - 60_000) << 16n, 'a run starts at unix_ms << 16');
  assert.equal(a.sealer.directSeals(b.id.fingerprint()), 50);
});

test('resumeTopic continues above a persisted value, and seq ends at u64::MAX', async () => {
  const a = await party();
  const b = await party();
  const future = (BigInt(Date.now()) + 10_000_000n) << 16n;
  a.sealer.resumeTopic(TOPIC, future);
  assert.equal(a.sealer.nextSeq(TOPIC), future + 1n);
  a.sealer.resumeTopic(TOPIC, 5n); // never below the clock
  assert.ok(/** @type {bigint} */ (a.sealer.nextSeq(TOPIC)) > 5n);
  const max = (1n << 64n) - 1n;
  a.sealer.resumeTopic('t2', max - 1n);
  assert.equal((await a.sealer.sealDirectDetailed('t2', b.id.publicKey, text('last'))).seq, max);
  assert.equal(await kindOf(a.sealer.sealDirect('t2', b.id.publicKey, text('x'))), 'SeqExhausted');
  a.sealer.resumeTopic('t3', max);
  assert.equal(await kindOf(a.sealer.sealDirect('t3', b.id.publicKey, text('x'))), 'SeqExhausted');
});

test('records are padded by default, as in Rust', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  const r = await a.sealer.sealDirect(TOPIC, b.id.publicKey, new Uint8Array(100));
  assert.equal(r.length, DIRECT_OVERHEAD + paddedLen(100));
  assert.equal(r[2] & 0x02, 0x02, 'the PADDED flag');
  assert.ok((await b.opener.open(TOPIC, r)).opened.padded);
  a.sealer.setPadding(false);
  assert.equal((await a.sealer.sealDirect(TOPIC, b.id.publicKey, new Uint8Array(100))).length, DIRECT_OVERHEAD + 100);
});

test('past the DIRECT budget the sealer writes one-recipient MULTI records', async () => {
  assert.equal(DIRECT_LIMIT, 2 ** 30, 'as Rust: 2^30 per side, leaving ChatCrypto its own 2^30');
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  a.sealer.restoreDirectSeals(b.id.publicKey, DIRECT_LIMIT - 1);
  const last = await a.sealer.sealDirectDetailed(TOPIC, b.id.publicKey, text('last direct'));
  assert.equal(last.mode, Mode.Direct);
  assert.equal(a.sealer.directSeals(b.id.fingerprint()), DIRECT_LIMIT);
  const next = await a.sealer.sealDirectDetailed(TOPIC, b.id.publicKey, text('now multi'));
  assert.equal(next.mode, Mode.Multi);
  assert.equal(next.record[1], 0x02);
  const o = await b.opener.open(TOPIC, next.record);
  assert.equal(o.opened.mode, OpenedMode.Multi);
  assert.deepEqual(o.plaintext, text('now multi'));
  a.sealer.restoreDirectSeals(b.id.publicKey, 3); // counts only go up
  assert.equal(a.sealer.directSeals(b.id.fingerprint()), DIRECT_LIMIT);
  a.sealer.forgetPeer(b.id.fingerprint());
  assert.equal(a.sealer.directSeals(b.id.fingerprint()), 0);
});

test('seal errors are typed', async () => {
  const a = await party();
  const b = await party();
  const kind = (/** @type {Promise<unknown>} */ p) => kindOf(p);
  assert.equal(await kind(a.sealer.sealDirect(TOPIC, a.id.publicKey, text('x'))), 'SelfRecipient');
  assert.equal(await kind(a.sealer.sealMulti(TOPIC, [b.id.publicKey, a.id.publicKey], text('x'))), 'SelfRecipient');
  assert.equal(await kind(a.sealer.sealMulti(TOPIC, [], text('x'))), 'NoRecipients');
  assert.equal(await kind(a.sealer.sealMulti(TOPIC, new Array(4097).fill(b.id.publicKey), text('x'))), 'TooManyRecipients');
  assert.equal(await kind(a.sealer.sealMulti(TOPIC, [b.id.publicKey, b.id.publicKey], text('x'))), 'DuplicateRecipient');
  assert.equal(await kind(a.sealer.sealDirect('t'.repeat(65536), b.id.publicKey, text('x'))), 'TopicTooLong');
  // A topic of exactly 65535 bytes works.
  await b.opener.trust(a.id.publicKey);
  const long = 'é'.repeat(32767) + 't';
  assert.equal(utf8(long).length, 65535);
  assert.equal(await kind(b.opener.open(long, await a.sealer.sealDirect(long, b.id.publicKey, text('x')))), 'ok');
  // The ECDH identity cannot sign records.
  const same = await SigningIdentity.fromPkcs8(await a.id.toPkcs8());
  assert.throws(() => a.sealer.setSigningIdentity(same), (/** @type {any} */ e) => e instanceof SealError && e.kind === 'SigningKeyIsIdentityKey');
  await assert.rejects(a.opener.trust(a.id.publicKey), (/** @type {any} */ e) => e instanceof TrustError && e.kind === 'OwnKey');
  await b.opener.trust(a.id.publicKey); // again: a no-op
});

test('signature policy: unknown signer, required signatures', async () => {
  const a = await party();
  const b = await party();
  const signer = await SigningIdentity.generate();
  await b.opener.trust(a.id.publicKey);
  a.sealer.setSigningIdentity(signer);
  const signed = await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('s'));
  assert.equal(await kindOf(b.opener.open(TOPIC, signed)), 'UnknownSigner');
  const other = await SigningIdentity.generate();
  await b.opener.trustSigner(a.id.publicKey, other.publicKey);
  assert.equal(await kindOf(b.opener.open(TOPIC, signed)), 'SignatureInvalid');
  await b.opener.trustSigner(a.id.publicKey, signer.publicKey);
  assert.equal((await b.opener.open(TOPIC, signed)).opened.signed, true);
  a.sealer.setSigningIdentity(null);
  b.opener.requireSignatures(true);
  assert.equal(await kindOf(b.opener.open(TOPIC, await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('u')))), 'Unsigned');
  b.opener.requireSignatures(false);
  assert.equal(await kindOf(b.opener.open(TOPIC, await a.sealer.sealDirect(TOPIC, b.id.publicKey, text('u')))), 'ok');
});

// --- records a malicious sender could write, built by hand ----------------------

/**
 * @param {{ sender: Identity, recipient: import('../src/crypto/identity.js').PublicKey, plaintext: Uint8Array,
 *   commitOf?: Uint8Array, payloadCtx?: Uint8Array, entries?: number }} what
 */
async function craftMulti({ sender, recipient, plaintext, commitOf, payloadCtx, entries = 1 }) {
  const ck = crypto.getRandomValues(new Uint8Array(32));
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const h = new Header(Mode.Multi, 0, sender.kid(), 7n).encode();
  const commit = await hmacSign(await hmacKey(commitOf ?? ck), COMMIT_LABEL);
  const n = entries;
  const prefix = concat(h, salt, commit, [0, n]);
  const kid = recipient.kid().asBytes();
  const rcpt = await sha256(concat(...new Array(n).fill(kid)));
  const ctx = /** @type {Uint8Array} */ (await ctxDigest(Mode.Multi, utf8(TOPIC), sender.fingerprint()));
  const payload = await gcmEncrypt(await aesKey(ck), ZERO_IV, concat(prefix, rcpt, payloadCtx ?? ctx), plaintext);
  const k = await pairKey(sender, recipient);
  const kw = await hkdfAesKey(await hkdfKey(k), salt, concat(WRAP_LABEL, ctx, kid), ['encrypt']);
  const entry = concat(kid, await gcmEncrypt(kw, ZERO_IV, concat(prefix, rcpt, await sha256(payload)), ck));
  return concat(prefix, ...new Array(n).fill(entry), payload);
}

test('a sender cannot give members different keys or payloads', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  const ok = await craftMulti({ sender: a.id, recipient: b.id.publicKey, plaintext: text('fine') });
  assert.deepEqual((await b.opener.open(TOPIC, ok)).plaintext, text('fine'));
  const other = crypto.getRandomValues(new Uint8Array(32));
  const o2 = new Opener(b.id);
  await o2.trust(a.id.publicKey);
  assert.equal(await kindOf(o2.open(TOPIC, await craftMulti({ sender: a.id, recipient: b.id.publicKey, plaintext: text('x'), commitOf: other }))), 'CkCommitMismatch');
  assert.equal(await kindOf(o2.open(TOPIC, await craftMulti({ sender: a.id, recipient: b.id.publicKey, plaintext: text('x'), payloadCtx: new Uint8Array(32) }))), 'PayloadAuthFailed');
  assert.equal(await kindOf(o2.open(TOPIC, await craftMulti({ sender: a.id, recipient: b.id.publicKey, plaintext: text('x'), entries: 2 }))), 'DuplicateEntry');
});

test('a PADDED record without the 0x80 marker is BadPadding', async () => {
  const a = await party();
  const b = await party();
  await b.opener.trust(a.id.publicKey);
  const h = new Header(Mode.Direct, Flags.PADDED, a.id.kid(), 1n).encode();
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const prefix = concat(h, b.id.kid().asBytes(), iv);
  const ctx = /** @type {Uint8Array} */ (await ctxDigest(Mode.Direct, utf8(TOPIC), a.id.fingerprint(), b.id.fingerprint()));
  const k = await aesKey(await pairKey(a.id, b.id.publicKey));
  const record = concat(prefix, await gcmEncrypt(k, iv, concat(prefix, ctx), Uint8Array.of(1, 2, 0, 0)));
  assert.equal(await kindOf(b.opener.open(TOPIC, record)), 'BadPadding');
  assert.ok(CTX_LABEL.length === 16);
});
