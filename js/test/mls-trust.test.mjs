// Who is who (issue 37), in the JavaScript SDK: a device remembers the
// newest device list it accepted per account (trust on first use), in its
// state, and refuses what a broker with admin rights can do to
// `dir.<account>` — a list signed by another key, an older list served
// again (the topic deleted and refilled, or emptied), another list at the
// version already accepted (equivocation); a restart keeps the memory. Two
// concurrent publishes of one account's list are not equivocation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Cleanup } from '../src/protocol/frame.js';
import { Device, DeviceList, MemoryStore, MlsError, directoryTopic } from '../src/mls/index.js';
import { startBroker } from './helpers/broker.mjs';
import { refill, writeList } from './helpers/mls.mjs';

/**
 * A device of a fresh account on its own connection, with `store`.
 * @param {string} url @param {Identity} identity @param {MemoryStore} store @param {import('node:test').TestContext} t
 */
async function device(url, identity, store, t) {
  const client = await connect(url, { identity });
  t.after(() => client.close());
  return Device.open(client, identity, store);
}

test('forged, rolled-back and equivocating device lists are refused; the memory survives a restart', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [aliceKey, bobKey, mallory] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const aliceStore = new MemoryStore();
  const alice = await device(broker.url, aliceKey, aliceStore, t);
  const bob = await device(broker.url, bobKey, new MemoryStore(), t);
  const admin = await connect(broker.url);
  t.after(() => admin.close());
  const bobFp = bobKey.fingerprint();

  await bob.publishDeviceList();
  const v1 = await alice.deviceList(bobFp);
  assert.equal(v1.version, 1);
  assert.equal(alice.deviceListVersionSeen(bobFp), 1);
  const v1Bytes = await v1.sign(bobKey);
  const laptop = await Identity.generate();
  await bob.publishDeviceList([laptop.publicKey]);
  assert.equal((await alice.deviceList(bobFp)).version, 2);

  // Forged: signed by Mallory's key.
  const forged = await new DeviceList(mallory.publicKey, 3, 1, [{ key: mallory.publicKey.toSec1(), addedAt: 1 }]).sign(mallory);
  await writeList(admin, bobFp, forged);
  await assert.rejects(alice.deviceList(bobFp), /signed by another account/);

  // Rolled back: emptied and Bob's authentic version 1 put back; then emptied altogether.
  await refill(admin, bobFp);
  await writeList(admin, bobFp, v1Bytes);
  await assert.rejects(alice.deviceList(bobFp), /version 1, older than version 2 already seen/);
  await refill(admin, bobFp);
  await assert.rejects(alice.deviceList(bobFp), /older than version 2 already seen/);

  // Equivocation: another list Bob's key signed, with version 2.
  const otherV2 = await new DeviceList(bobKey.publicKey, 2, 7, [{ key: bobKey.publicKey.toSec1(), addedAt: 7 }]).sign(bobKey);
  await writeList(admin, bobFp, otherV2);
  await assert.rejects(alice.deviceList(bobFp), /equivocation/);

  // The memory is in Alice's state: a restart refuses the same.
  const again = await device(broker.url, aliceKey, aliceStore, t);
  assert.equal(again.deviceListVersionSeen(bobFp), 2);
  await assert.rejects(again.deviceList(bobFp), /equivocation/);

  // A newer list Bob signs is accepted.
  const v3 = await new DeviceList(bobKey.publicKey, 3, 9, [...v1.devices]).sign(bobKey);
  await writeList(admin, bobFp, v3);
  assert.equal((await again.deviceList(bobFp)).version, 3);
});

test('two publishers of one account do not equivocate', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [aliceKey, bobKey, phone, laptop] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate(), Identity.generate()]);
  const alice = await device(broker.url, aliceKey, new MemoryStore(), t);
  const bob = await device(broker.url, bobKey, new MemoryStore(), t);
  const bobAgain = await device(broker.url, bobKey, new MemoryStore(), t);
  await bob.publishDeviceList();
  const [a, b] = await Promise.all([bob.publishDeviceList([phone.publicKey]), bobAgain.publishDeviceList([laptop.publicKey])]);
  assert.deepEqual([a.version, b.version].sort(), [2, 3], 'one after the other, never one version twice');
  const list = await alice.deviceList(bobKey.fingerprint());
  assert.equal(list.version, 3);
  assert.ok(list.lists(phone.publicKey.toSec1()) && list.lists(laptop.publicKey.toSec1()), 'both devices listed');
});

// A broker that lost or withholds an account's own list (a replaced broker,
// the topic emptied) does not stop the account: its device goes on from the
// list it published last (kept in its state), at the next version with the
// same devices; another list at its accepted version stays refused.
test('the account goes on from its own list when the broker lost it', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [aliceKey, bobKey, phone] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const alice = await device(broker.url, aliceKey, new MemoryStore(), t);
  const bob = await device(broker.url, bobKey, new MemoryStore(), t);
  const admin = await connect(broker.url);
  t.after(() => admin.close());
  const bobFp = bobKey.fingerprint();
  const { version } = await bob.publishDeviceList([phone.publicKey]);
  await refill(admin, bobFp);
  const next = await bob.publishDeviceList();
  assert.equal(next.version, version + 1, 'the next version, not 1');
  assert.ok(next.lists(phone.publicKey.toSec1()), 'its other devices stay listed');
  assert.equal((await alice.deviceList(bobFp)).version, version + 1);
  await refill(admin, bobFp);
  const again = await bob.refreshDeviceList();
  assert.equal(again?.version, version + 2, 'a list the broker lost is published again, though fresh');
  assert.equal(await bob.refreshDeviceList(), null, 'served and fresh: nothing to re-sign');
  await refill(admin, bobFp);
  const other = await new DeviceList(bobKey.publicKey, version + 2, 1, []).sign(bobKey);
  await writeList(admin, bobFp, other);
  await assert.rejects(bob.publishDeviceList(), (e) => e instanceof MlsError && e.code === 'DeviceList' && /equivocation/.test(e.message));
});

// An ECDSA signature is malleable: anyone, the broker included, turns `s`
// into `n − s` without the key and the list still verifies. The same list in
// its other encoding is the same list, not equivocation.
test('a list with its signature re-encoded (s → n − s) is the same list', async (t) => {
  const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [aliceKey, bobKey] = await Promise.all([Identity.generate(), Identity.generate()]);
  const alice = await device(broker.url, aliceKey, new MemoryStore(), t);
  const admin = await connect(broker.url);
  t.after(() => admin.close());
  const bobFp = bobKey.fingerprint();
  const signed = await new DeviceList(bobKey.publicKey, 1, 2, [{ key: bobKey.publicKey.toSec1(), addedAt: 1 }]).sign(bobKey);
  await admin.createTopic(directoryTopic(bobFp), { partitions: 1, cleanup: Cleanup.Compact });
  await writeList(admin, bobFp, signed);
  assert.equal((await alice.deviceList(bobFp)).version, 1);
  const n = signed.length;
  const s = BigInt(`0x${Buffer.from(signed.subarray(n - 32)).toString('hex')}`);
  const twin = Uint8Array.from(signed);
  twin.set(Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex'), n - 32);
  assert.notDeepEqual(twin, signed);
  await writeList(admin, bobFp, twin);
  assert.equal((await alice.deviceList(bobFp)).version, 1, 'the same list, re-encoded: accepted');
});
