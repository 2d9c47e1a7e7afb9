// Sealed state records without a broker: the byte format of docs/ENVELOPE.md
// §13 (sealState/openState), the consumer and budget encodings with their
// checks, the opener's floor and window starts, ChatCrypto's count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatCrypto, COMPAT_LIMIT } from '../src/crypto/compat.js';
import { CompatError } from '../src/crypto/errors.js';
import { Fingerprint, Identity } from '../src/crypto/identity.js';
import { Opener, WindowStart } from '../src/crypto/open.js';
import { paddedLen } from '../src/crypto/pad.js';
import { ReplayWindow } from '../src/crypto/replay.js';
import { Sealer } from '../src/crypto/seal.js';
import { BudgetState, ConsumerState, MAX_STATE_SENDERS, consumerKey, stateTopic } from '../src/sealed/state.js';
import { MAX_STATE_LEN, STATE_MAGIC, StateError, openState, sealState } from '../src/crypto/state.js';

const enc = new TextEncoder();

/** @param {Promise<unknown>} p */
async function kind(p) {
  try {
    await p;
  } catch (/** @type {any} */ e) {
    return e.kind;
  }
  return 'ok';
}

test('only the identity opens its state, under the same topic and key; every byte is checked', async () => {
  const [me, other] = await Promise.all([Identity.generate(), Identity.generate()]);
  const k1 = enc.encode('k1');
  const r = await sealState(me, 'state.x', k1, enc.encode('high water 42'));
  assert.deepEqual(r.subarray(0, 4), STATE_MAGIC);
  assert.deepEqual(await openState(me, 'state.x', k1, r), enc.encode('high water 42'));
  assert.equal(await kind(openState(other, 'state.x', k1, r)), 'AuthFailed');
  assert.equal(await kind(openState(me, 'state.y', k1, r)), 'AuthFailed');
  assert.equal(await kind(openState(me, 'state.x', enc.encode('k2'), r)), 'AuthFailed');
  for (let i = 0; i < r.length; i++) {
    const bad = Uint8Array.from(r);
    bad[i] ^= 1;
    assert.notEqual(await kind(openState(me, 'state.x', k1, bad)), 'ok', `byte ${i}`);
  }
  assert.equal(await kind(openState(me, 'state.x', k1, r.subarray(0, 20))), 'Malformed');
  const e = await openState(me, 'state.x', k1, r.subarray(0, 20)).catch((x) => x);
  assert.ok(e instanceof StateError && e.code === 'HERMIT_STATE');
  assert.equal(await kind(sealState(me, 'x'.repeat(256), k1, enc.encode('x'))), 'Name');
});

test('state lengths are Padmé buckets of 4 + len', async () => {
  const me = await Identity.generate();
  const k = enc.encode('k');
  const a = await sealState(me, 't', k, new Uint8Array(1000).fill(7));
  const b = await sealState(me, 't', k, new Uint8Array(1010).fill(7));
  assert.equal(a.length, b.length, '1000 and 1010 bytes share a bucket');
  assert.equal(a.length, 4 + 12 + paddedLen(1003) + 16, 'padme(4 + 1000) = padme(1004) = paddedLen(1003)');
  assert.deepEqual(await openState(me, 't', k, b), new Uint8Array(1010).fill(7));
  assert.equal(await kind(sealState(me, 't', k, new Uint8Array(MAX_STATE_LEN + 1))), 'Length');
});

/** @param {bigint} x */
function u64be(x) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(x);
  return b;
}

test('consumer state round-trips byte for byte and refuses lies', () => {
  const s = new ConsumerState();
  s.generation = 0x0102030405060708n;
  s.committed.set(3, 7);
  s.committed.set(0, 42);
  s.floor = 99n;
  s.note('02'.repeat(32), 5n);
  s.note('01'.repeat(32), 1n << 40n);
  s.note('01'.repeat(32), (1n << 40n) - 7n);
  const bytes = s.encode();
  // The layout of ENVELOPE §13, partitions and fingerprints ascending (as
  // Rust's BTreeMaps); per sender the highest seq and 16 big-endian u64
  // words, bit s mod 1024 in word (s mod 1024) / 64.
  const words = (/** @type {Record<number, bigint>} */ set) => Buffer.concat(Array.from({ length: 16 }, (_, i) => u64be(set[i] ?? 0n)));
  const expect = Buffer.concat([
    Buffer.from([2]),
    Buffer.from('0102030405060708', 'hex'),
    Buffer.from([0, 0, 0, 2]),
    Buffer.from('00000000000000000000002a', 'hex'),
    Buffer.from('000000030000000000000007', 'hex'),
    Buffer.from('0000000000000063', 'hex'),
    Buffer.from([0, 0, 0, 2]),
    // 2^40 mod 1024 = 0: word 0 bit 0; 2^40 - 7 mod 1024 = 1017: word 15 bit 57.
    Buffer.from('01'.repeat(32) + '0000010000000000', 'hex'),
    words({ 0: 1n, 15: 1n << 57n }),
    // 5: word 0 bit 5.
    Buffer.from('02'.repeat(32) + '0000000000000005', 'hex'),
    words({ 0: 1n << 5n }),
  ]);
  assert.deepEqual(Buffer.from(bytes), expect);
  const back = /** @type {ConsumerState} */ (ConsumerState.decode(bytes));
  assert.deepEqual([...back.committed].sort(), [...s.committed].sort());
  assert.equal(back.floor, 99n);
  assert.equal(back.generation, 0x0102030405060708n);
  assert.deepEqual(back.senders, s.senders);
  assert.deepEqual(Buffer.from(back.encode()), expect);
  for (let cut = 0; cut < bytes.length; cut++) assert.equal(ConsumerState.decode(bytes.subarray(0, cut)), null, `cut at ${cut}`);
  const big = Uint8Array.from(bytes);
  big.set([0xff, 0xff, 0xff, 0xff], 9);
  assert.equal(ConsumerState.decode(big), null, 'a count beyond the bytes');
  const v3 = Uint8Array.from(bytes);
  v3[0] = 3;
  assert.equal(ConsumerState.decode(v3), null, 'another version');
  // Version 1, before generations: the same fields without one, read as 0n.
  const v1 = Uint8Array.of(1, ...bytes.subarray(9));
  const old = /** @type {ConsumerState} */ (ConsumerState.decode(v1));
  assert.equal(old.generation, 0n);
  assert.equal(old.floor, 99n);
  assert.deepEqual(old.senders, s.senders);
  assert.equal(ConsumerState.decode(Uint8Array.of(...bytes, 0)), null, 'trailing bytes');
});

test('too many senders fold the oldest marks into the floor', () => {
  const s = new ConsumerState();
  for (let i = 0; i < MAX_STATE_SENDERS + 3; i++) s.note(i.toString(16).padStart(16, '0') + '00'.repeat(24), 1000n + BigInt(i));
  assert.equal(s.senders.size, MAX_STATE_SENDERS, 'note bounds the senders');
  assert.equal(s.floor, 1002n, 'the three lowest went into the floor');
  assert.ok([...s.senders.values()].every((w) => w.highest > 1002n));
  s.bound();
  assert.equal(s.senders.size, MAX_STATE_SENDERS);
});

test('budget state round-trips and refuses a cut record', async () => {
  const peer = await Identity.generate();
  const b = new BudgetState();
  b.generation = 7n;
  b.peers.set(peer.fingerprint().toHex(), { key: peer.publicKey, reserved: 1 << 20 });
  const bytes = b.encode();
  assert.equal(bytes.length, 13 + 91 + 8);
  assert.deepEqual([...bytes.subarray(0, 9)], [2, 0, 0, 0, 0, 0, 0, 0, 7]);
  const back = /** @type {BudgetState} */ (await BudgetState.decode(bytes));
  assert.equal(back.generation, 7n);
  const old = /** @type {BudgetState} */ (await BudgetState.decode(Uint8Array.of(1, ...bytes.subarray(9))));
  assert.equal(old.generation, 0n, 'version 1 reads as generation 0');
  assert.equal(old.peers.size, 1);
  const got = /** @type {{ key: import('../src/crypto/identity.js').PublicKey, reserved: number }} */ (back.peers.get(peer.fingerprint().toHex()));
  assert.ok(got.key.equals(peer.publicKey));
  assert.equal(got.reserved, 1 << 20);
  assert.equal(await BudgetState.decode(bytes.subarray(0, 50)), null);
});

test('names: the state topic and the consumer key', async () => {
  const me = await Identity.generate();
  assert.equal(stateTopic(me), `state.${me.fingerprint().toHex()}`);
  assert.deepEqual(consumerKey('g', 't'), enc.encode('consumer/v1\0g\0t'));
});

test('the opener reports how each window started; a restored floor refuses unknown senders at or below it', async () => {
  const [alice, bob, carol] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const sa = new Sealer(alice);
  const sc = new Sealer(carol);
  const o = new Opener(bob);
  await o.trust(alice.publicKey);
  await o.trust(carol.publicKey);
  const r1 = await sa.sealDirectDetailed('t', bob.publicKey, enc.encode('1'));
  const r2 = await sa.sealDirectDetailed('t', bob.publicKey, enc.encode('2'));
  const r3 = await sa.sealDirectDetailed('t', bob.publicKey, enc.encode('3'));
  await o.restoreHighWater('t', alice.fingerprint(), r1.seq);
  assert.equal(await kind(o.open('t', r1.record)), 'Replayed');
  assert.equal((await o.open('t', r2.record)).opened.window, WindowStart.Restored);
  assert.equal((await o.open('t', r3.record)).opened.window, WindowStart.Continued);
  // Carol has no mark: her records at or below the floor are too old.
  const c1 = await sc.sealDirectDetailed('t', bob.publicKey, enc.encode('c1'));
  o.restoreFloor('t', c1.seq);
  o.restoreFloor('t', 0n); // floors only go up
  assert.equal(o.floor('t'), c1.seq);
  assert.equal(await kind(o.open('t', c1.record)), 'TooOld');
  const c2 = await sc.sealDirectDetailed('t', bob.publicKey, enc.encode('c2'));
  assert.equal((await o.open('t', c2.record)).opened.window, WindowStart.New);
  assert.equal(o.floor('other'), 0n, 'per topic');
});

test('ChatCrypto counts its messages and stops at COMPAT_LIMIT', async () => {
  const [a, b] = await Promise.all([Identity.generate(), Identity.generate()]);
  const ca = await ChatCrypto.create(a, b.publicKey);
  const cb = await ChatCrypto.create(b, a.publicKey);
  await ca.encrypt('1');
  assert.equal(ca.encryptions(), 1);
  ca.restoreEncryptions(0);
  assert.equal(ca.encryptions(), 1, 'a count never goes down');
  ca.restoreEncryptions(COMPAT_LIMIT - 1);
  const last = await ca.encrypt('last');
  assert.equal(await cb.decrypt(last.data, last.iv), 'last');
  const e = await ca.encrypt('one too many').catch((x) => x);
  assert.ok(e instanceof CompatError && e.kind === 'BudgetExhausted' && /** @type {any} */ (e).limit === COMPAT_LIMIT, String(e));
  assert.equal(ca.encryptions(), COMPAT_LIMIT);
  assert.equal(COMPAT_LIMIT, 2 ** 30);
});

test('fingerprint bytes survive the hex keys of a consumer state', () => {
  const fp = Fingerprint.fromBytes(new Uint8Array(32).map((_, i) => 255 - i));
  const s = new ConsumerState();
  s.note(fp.toHex(), 9n);
  assert.equal(/** @type {any} */ (ConsumerState.decode(s.encode())).senders.get(fp.toHex()).highest, 9n);
});

test('a window noted and persisted refuses exactly what was seen; the others in it open late', () => {
  // As Rust's replay.rs noted_numbers_are_seen_and_others_in_the_window_stay_fresh.
  const w = ReplayWindow.startingWith(2010n);
  w.note(2020n);
  w.note(2015n);
  w.note(2020n - 1024n); // too old to record: must not set 2020's bit
  const back = ReplayWindow.fromParts(w.highest, w.bitmap());
  assert.deepEqual(back, w);
  assert.deepEqual(back.check(2015n), { ok: false, kind: 'Replayed', highest: 2020n });
  assert.deepEqual(back.check(2010n), { ok: false, kind: 'Replayed', highest: 2020n });
  assert.deepEqual(back.check(2012n), { ok: true, late: true }, 'not seen: a late record');
  assert.deepEqual(back.check(2021n), { ok: true, late: false });
  assert.deepEqual(back.check(2020n - 1024n), { ok: false, kind: 'TooOld', highest: 2020n });
  assert.throws(() => ReplayWindow.fromParts(1n, new Uint8Array(127)), TypeError);
});

test('the opener restores a window: seen numbers are replays, unseen ones inside it open as late', async () => {
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const sa = new Sealer(alice);
  const recs = [];
  for (let i = 0; i < 4; i++) recs.push(await sa.sealDirectDetailed('t', bob.publicKey, enc.encode(`${i}`)));
  // The previous run opened 0, 1 and 3 (2 was on a partition not committed yet).
  const s = new ConsumerState();
  for (const i of [0, 1, 3]) s.note(alice.fingerprint().toHex(), recs[i].seq);
  const saved = /** @type {any} */ (ConsumerState.decode(s.encode()));
  const o = new Opener(bob);
  await o.trust(alice.publicKey);
  await o.restoreWindow('t', alice.fingerprint(), saved.senders.get(alice.fingerprint().toHex()));
  for (const i of [0, 1, 3]) assert.equal(await kind(o.open('t', recs[i].record)), 'Replayed', `record ${i}`);
  const late = await o.open('t', recs[2].record);
  assert.equal(late.opened.late, true);
  assert.equal(late.opened.window, WindowStart.Restored);
  assert.equal(await kind(o.open('t', recs[2].record)), 'Replayed', 'now seen');
});
