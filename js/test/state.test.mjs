// Sealed state records without a broker: the byte format of docs/ENVELOPE.md
// §13 (sealState/openState), the consumer and budget encodings with their
// checks, the opener's floor and window starts, ChatCrypto's count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatCrypto, COMPAT_LIMIT } from '../src/chat.js';
import { CompatError } from '../src/crypto-errors.js';
import { Fingerprint, Identity } from '../src/identity.js';
import { Opener, WindowStart } from '../src/open.js';
import { paddedLen } from '../src/pad.js';
import { Sealer } from '../src/seal.js';
import {
  BudgetState,
  ConsumerState,
  MAX_STATE_LEN,
  MAX_STATE_SENDERS,
  STATE_MAGIC,
  StateError,
  consumerKey,
  openState,
  sealState,
  stateTopic,
} from '../src/state.js';

const enc = new TextEncoder();

async function kind(p) {
  try {
    await p;
  } catch (e) {
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

test('consumer state round-trips byte for byte and refuses lies', () => {
  const s = new ConsumerState();
  s.committed.set(3, 7);
  s.committed.set(0, 42);
  s.floor = 99n;
  s.senders.set('02'.repeat(32), 5n);
  s.senders.set('01'.repeat(32), 1n << 40n);
  const bytes = s.encode();
  // The layout of ENVELOPE §13, partitions and fingerprints ascending (as Rust's BTreeMaps).
  const expect = Buffer.concat([
    Buffer.from([1, 0, 0, 0, 2]),
    Buffer.from('00000000000000000000002a', 'hex'),
    Buffer.from('000000030000000000000007', 'hex'),
    Buffer.from('0000000000000063', 'hex'),
    Buffer.from([0, 0, 0, 2]),
    Buffer.from('01'.repeat(32) + '0000010000000000', 'hex'),
    Buffer.from('02'.repeat(32) + '0000000000000005', 'hex'),
  ]);
  assert.deepEqual(Buffer.from(bytes), expect);
  const back = ConsumerState.decode(bytes);
  assert.deepEqual([...back.committed].sort(), [...s.committed].sort());
  assert.equal(back.floor, 99n);
  assert.deepEqual(new Map(back.senders), new Map(s.senders));
  for (let cut = 0; cut < bytes.length; cut++) assert.equal(ConsumerState.decode(bytes.subarray(0, cut)), null, `cut at ${cut}`);
  const big = Uint8Array.from(bytes);
  big.set([0xff, 0xff, 0xff, 0xff], 1);
  assert.equal(ConsumerState.decode(big), null, 'a count beyond the bytes');
  const v2 = Uint8Array.from(bytes);
  v2[0] = 2;
  assert.equal(ConsumerState.decode(v2), null, 'another version');
  assert.equal(ConsumerState.decode(Uint8Array.of(...bytes, 0)), null, 'trailing bytes');
});

test('too many senders fold the oldest marks into the floor', () => {
  const s = new ConsumerState();
  for (let i = 0; i < MAX_STATE_SENDERS + 3; i++) s.senders.set(i.toString(16).padStart(16, '0') + '00'.repeat(24), 1000n + BigInt(i));
  s.bound();
  assert.equal(s.senders.size, MAX_STATE_SENDERS);
  assert.equal(s.floor, 1002n, 'the three lowest marks went into the floor');
  assert.ok([...s.senders.values()].every((hw) => hw > 1002n));
});

test('budget state round-trips and refuses a cut record', async () => {
  const peer = await Identity.generate();
  const b = new BudgetState();
  b.peers.set(peer.fingerprint().toHex(), { key: peer.publicKey, reserved: 1 << 20 });
  const bytes = b.encode();
  assert.equal(bytes.length, 5 + 91 + 8);
  const back = await BudgetState.decode(bytes);
  const got = back.peers.get(peer.fingerprint().toHex());
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
  assert.ok(e instanceof CompatError && e.kind === 'BudgetExhausted' && e.limit === COMPAT_LIMIT, String(e));
  assert.equal(ca.encryptions(), COMPAT_LIMIT);
  assert.equal(COMPAT_LIMIT, 2 ** 30);
});

test('fingerprint bytes survive the hex keys of a consumer state', () => {
  const fp = Fingerprint.fromBytes(new Uint8Array(32).map((_, i) => 255 - i));
  const s = new ConsumerState();
  s.senders.set(fp.toHex(), 9n);
  assert.equal(ConsumerState.decode(s.encode()).senders.get(fp.toHex()), 9n);
});
