// The MLS layer refuses leaves whose device is not on its account's signed
// device list (issue 37, item 3; docs/MLS.md §4.1, §4.4), in the JavaScript
// SDK against a real broker — the same cases as Rust's
// client/tests/mls_device_list_leaves.rs: a device bound but dropped from
// the list is refused; a list older than the binding's version is no
// evidence (the broker withholds the newer one); a dropped device is removed
// by its account's other device, and the members see who removed it, when; a
// Welcome with a dropped member is accepted (deviceNotListed), one with a
// leaf whose list is withheld is refused and reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Conversation, Device, MemoryStore, directoryTopic } from '../src/mls/index.js';
import { startBroker } from './helpers/broker.mjs';
import { rollBack } from './helpers/mls.mjs';

/** @import { MlsEvent } from '../src/mls/index.js' */
/** @import { Fingerprint } from '../src/types/crypto.js' */
/** @typedef {import('node:test').TestContext} TestContext */

/**
 * A device of `identity` on its own connection, with `store`.
 * @param {string} url @param {Identity} identity @param {MemoryStore} store @param {TestContext} t
 */
async function open(url, identity, store, t) {
  const client = await connect(url, { identity });
  t.after(() => client.close());
  return Device.open(client, identity, store);
}

/** A fresh account's device with KeyPackages and its list. @param {string} url @param {TestContext} t */
async function account(url, t) {
  const d = await open(url, await Identity.generate({ extractable: false }), new MemoryStore(), t);
  await d.publishKeyPackages(2);
  return d;
}

/**
 * A device bound to `acct` (the list naming it published first).
 * @param {Device} acct @param {string} url @param {TestContext} t
 */
async function bound(acct, url, t) {
  const identity = await Identity.generate({ extractable: false });
  const store = new MemoryStore();
  await Device.storeBinding(identity, store, await acct.bind(identity.publicKey));
  const device = await open(url, identity, store, t);
  await device.publishKeyPackages(2);
  return { device, identity, store };
}

/**
 * Receives (acknowledging) until `pred` holds for an event; every event seen.
 * @param {Conversation} c @param {(e: MlsEvent) => boolean} pred
 */
async function receiveUntil(c, pred) {
  /** @type {MlsEvent[]} */
  const seen = [];
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = await c.receive({ maxWaitMs: 500 });
    await c.ack(events.length);
    seen.push(...events);
    if (events.some(pred)) return seen;
    assert.ok(Date.now() < deadline, `no matching event within 20 s; saw ${JSON.stringify(seen.map((e) => e.type))}`);
  }
}

/** Alice's conversation with Mallory in it. @param {Device} alice @param {Device} mallory */
async function aliceAndMallory(alice, mallory) {
  const a = await Conversation.create(alice);
  await a.invite(mallory.account.fingerprint());
  await Conversation.acceptWelcomes(mallory);
  const m = await Conversation.open(mallory, a.topic);
  for (const c of [a, m]) {
    await c.catchUp();
    await c.ack((await c.receive()).length);
  }
  return { a, m };
}

/** The newest list record's bytes. @param {import('../src/client/connection.js').Client} c @param {Fingerprint} acct */
async function newestListBytes(c, acct) {
  const r = await c.fetch(directoryTopic(acct), 0, 0);
  let last;
  for (const rec of r.records(0)) last = rec;
  assert.ok(last);
  return Uint8Array.from(last.value);
}

/** @param {MlsEvent[]} events */
const refused = (events) => events.flatMap((e) => (e.type === 'leafRefused' ? [e] : []));

test('a device bound but no longer listed is refused', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const alice = await account(broker.url, t);
  const mallory = await account(broker.url, t);
  const bob = await account(broker.url, t);
  const bobFp = bob.account.fingerprint();
  const { a, m } = await aliceAndMallory(alice, mallory);

  const laptop = await bound(bob, broker.url, t);
  assert.equal((await mallory.deviceList(bobFp)).version, 2, 'Mallory holds the list naming the laptop');
  const { list } = await bob.dropDevice(laptop.device.fingerprint);
  assert.equal(list.version, 3);
  assert.ok(!list.lists(laptop.identity.publicKey.toSec1()));

  const epoch = a.epoch;
  await m.addDevices([laptop.identity.publicKey]);
  const events = await receiveUntil(a, (e) => e.type === 'leafRefused');
  const r = refused(events);
  assert.equal(r.length, 1);
  assert.ok(r[0].account.equals(bobFp) && r[0].device.equals(laptop.device.fingerprint));
  assert.match(r[0].reason, /not on the device list/);
  assert.equal(a.epoch, epoch, 'the Commit is invalid: Alice stays');
  assert.ok(!a.members.some((x) => x.device.equals(laptop.device.fingerprint)));
  // Mallory went on in the epoch her Commit made; what she sends there
  // (her views message, §4.7) is a fork to Alice, who refused that Commit.
  const all = events.some((e) => e.type === 'forkSuspected') ? events : [...events, ...(await receiveUntil(a, (e) => e.type === 'forkSuspected'))];
  assert.ok(all.some((e) => e.type === 'forkSuspected' && e.epoch === epoch + 1), JSON.stringify(all.map((e) => e.type)));
});

test('a list older than the binding’s version is no evidence', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const admin = await connect(broker.url);
  t.after(() => admin.close());
  const alice = await account(broker.url, t);
  const mallory = await account(broker.url, t);
  const bob = await account(broker.url, t);
  const bobFp = bob.account.fingerprint();
  const { a, m } = await aliceAndMallory(alice, mallory);

  assert.equal((await alice.deviceList(bobFp)).version, 1);
  const v1 = await newestListBytes(admin, bobFp);
  const laptop = await bound(bob, broker.url, t);
  assert.equal((await mallory.deviceList(bobFp)).version, 2);
  await rollBack(admin, bobFp, v1);
  assert.equal((await alice.deviceList(bobFp)).version, 1, 'Alice sees no rollback: version 1 is what she accepted');

  const epoch = a.epoch;
  await m.addDevices([laptop.identity.publicKey]);
  const r = refused(await receiveUntil(a, (e) => e.type === 'leafRefused'));
  assert.equal(r.length, 1);
  assert.ok(r[0].account.equals(bobFp) && r[0].device.equals(laptop.device.fingerprint));
  assert.match(r[0].reason, /names version 2.*withheld/);
  assert.equal(a.epoch, epoch);
  assert.ok(!a.members.some((x) => x.device.equals(laptop.device.fingerprint)));
});

test('a dropped device is removed by its account, and members see who removed it and when', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const alice1 = await account(broker.url, t);
  const alice2 = await bound(alice1, broker.url, t);
  const bob = await account(broker.url, t);
  const alice = alice1.account.fingerprint();

  const a1 = await Conversation.create(alice1);
  await a1.invite(bob.account.fingerprint());
  await a1.invite(alice);
  await Conversation.acceptWelcomes(bob);
  await Conversation.acceptWelcomes(alice2.device);
  const b = await Conversation.open(bob, a1.topic);
  const a2 = await Conversation.open(alice2.device, a1.topic);
  for (const c of [b, a2]) {
    await c.catchUp();
    await c.ack((await c.receive()).length);
  }
  assert.equal(a1.members.length, 3);
  // What the dropped device's store holds now (a device that keeps its state).
  const oldStore = new MemoryStore();
  for (const n of await alice2.store.names('')) await oldStore.put([[n, /** @type {Uint8Array} */ (await alice2.store.get(n))]]);

  const before = Date.now();
  const { list, removedFrom } = await alice1.dropDevice(alice2.device.fingerprint);
  const after = Date.now();
  assert.deepEqual(removedFrom, [a1.topic]);

  const events = await receiveUntil(b, (e) => e.type === 'deviceRemoved');
  const removed = events.flatMap((e) => (e.type === 'deviceRemoved' ? [e] : []));
  assert.equal(removed.length, 1);
  const r = removed[0];
  assert.ok(r.account.equals(alice));
  assert.ok(r.device.equals(alice2.device.fingerprint));
  assert.ok(r.byDevice.equals(alice1.fingerprint), 'who removed it');
  assert.ok(before <= r.at && r.at <= after, `when: ${before} ≤ ${r.at} ≤ ${after}`);
  assert.equal(r.listVersion, list.version);
  assert.ok(!events.some((e) => e.type === 'memberRemoved'), 'told once, as a dropped device');
  assert.equal(b.members.length, 2);

  await receiveUntil(a2, (e) => e.type === 'removed');
  assert.ok(a2.removed);

  await b.send('after the drop');
  const a1again = await Conversation.open(alice1, a1.topic);
  const got = await receiveUntil(a1again, (e) => e.type === 'message');
  assert.deepEqual(
    got.flatMap((e) => (e.type === 'message' ? [e.text] : [])),
    ['after the drop'],
  );
  // The dropped device's old state opens nothing sent after.
  const old = await open(broker.url, alice2.identity, oldStore, t);
  const o = await Conversation.open(old, a1.topic);
  await o.catchUp();
  const seen = await o.receive();
  assert.deepEqual(
    seen.filter((e) => e.type === 'message'),
    [],
  );
  assert.ok(o.removed);
});

test('another device of the account removes a dropped one when it catches up', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const alice1 = await account(broker.url, t);
  const alice2 = await bound(alice1, broker.url, t);
  const alice3 = await bound(alice1, broker.url, t);
  const bob = await account(broker.url, t);
  const b = await Conversation.create(bob);
  await b.addDevices([alice2.identity.publicKey, alice3.identity.publicKey]);
  await Conversation.acceptWelcomes(alice2.device);
  await Conversation.acceptWelcomes(alice3.device);
  const a3 = await Conversation.open(alice3.device, b.topic);
  const { removedFrom } = await alice1.dropDevice(alice2.device.fingerprint);
  assert.deepEqual(removedFrom, []);
  await a3.catchUp();
  assert.ok(!a3.members.some((m) => m.device.equals(alice2.device.fingerprint)));
  const events = await receiveUntil(b, (e) => e.type === 'deviceRemoved');
  assert.ok(events.some((e) => e.type === 'deviceRemoved' && e.byDevice.equals(alice3.device.fingerprint)));
});

test('a Welcome with a dropped member is accepted and the joiner told', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const alice = await account(broker.url, t);
  const bob = await account(broker.url, t);
  const carol = await account(broker.url, t);
  const laptop = await bound(bob, broker.url, t);
  // Alice's group has Bob's laptop, not his account device.
  const a = await Conversation.create(alice);
  await a.addDevices([laptop.identity.publicKey]);
  assert.deepEqual(await Conversation.acceptWelcomes(laptop.device), [a.topic]);
  // Bob's account drops it: no group of its own to remove it from.
  const { list, removedFrom } = await bob.dropDevice(laptop.device.fingerprint);
  assert.deepEqual(removedFrom, []);
  assert.equal(list.version, 3);
  assert.ok(a.members.some((m) => m.device.equals(laptop.device.fingerprint)));

  await a.invite(carol.account.fingerprint());
  assert.deepEqual(await Conversation.acceptWelcomes(carol), [a.topic], 'accepted: the laptop’s binding (version 2) is valid');
  const c = await Conversation.open(carol, a.topic);
  const events = await c.receive();
  const notListed = events.filter((e) => e.type === 'deviceNotListed');
  assert.equal(notListed.length, 1, JSON.stringify(events.map((e) => e.type)));
  const e = /** @type {Extract<MlsEvent, { type: 'deviceNotListed' }>} */ (notListed[0]);
  assert.ok(e.account.equals(bob.account.fingerprint()));
  assert.ok(e.device.equals(laptop.device.fingerprint));
  assert.equal(e.listVersion, 3);
});

test('a Welcome with a leaf whose list is withheld is refused and reported', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const admin = await connect(broker.url);
  t.after(() => admin.close());
  const alice = await account(broker.url, t);
  const bob = await account(broker.url, t);
  const carol = await account(broker.url, t);
  const v1 = await newestListBytes(admin, bob.account.fingerprint());
  // Bob's laptop is bound with version 2 and in Alice's group.
  const laptop = await bound(bob, broker.url, t);
  const a = await Conversation.create(alice);
  await a.addDevices([laptop.identity.publicKey]);
  await a.invite(carol.account.fingerprint());
  // The broker withholds version 2 from Carol, who never saw Bob's list.
  await rollBack(admin, bob.account.fingerprint(), v1);

  const welcomes = await Conversation.acceptWelcomesReporting(carol);
  assert.deepEqual(welcomes.joined, []);
  assert.equal(welcomes.refused.length, 1, JSON.stringify(welcomes));
  const r = welcomes.refused[0];
  assert.equal(r.offset, 0, 'the first record of Carol’s welcome topic');
  assert.ok(r.account.equals(bob.account.fingerprint()));
  assert.ok(r.device.equals(laptop.device.fingerprint));
  assert.match(r.reason, /names version 2: the newer list is withheld/);
  assert.deepEqual(await Conversation.list(carol), [], 'nothing joined');
  assert.deepEqual(await Conversation.acceptWelcomesReporting(carol), { joined: [], refused: [] }, 'reported once');
});
