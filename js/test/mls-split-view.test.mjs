// Split views, first step (issue 37 item 6, docs/MLS.md §4.7), in the
// JavaScript SDK against the real broker: members exchange, inside
// encrypted views messages, the version and SHA-256 of the device list
// they hold per member account. An admin who rewrites `dir.<account>` with
// lists the test signs with Bob's account key (Bob's account compromised,
// or buggy) and shows Alice and Carol different lists for Bob is noticed
// by both; a newer list withheld from Alice is noticed by her; honest
// lists raise nothing. The views content is byte-identical to Rust's
// (client/tests/vectors/mls_views.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fromHex, toHex } from '../src/bytes.js';
import { connect } from '../src/client/connection.js';
import { Fingerprint, Identity } from '../src/crypto/identity.js';
import { decodeContent, encodeViewsContent } from '../src/mls/content.js';
import { Conversation, Device, DeviceList, MemoryStore } from '../src/mls/index.js';
import { MAX_VIEWS, decodeViews, encodeViews } from '../src/mls/views.js';
import { startBroker } from './helpers/broker.mjs';
import { refill, writeList } from './helpers/mls.mjs';

/** @import { MlsEvent } from '../src/mls/index.js' */

/**
 * A list of Bob's signed with his account key: his device, and `extra`.
 * @param {Identity} bobKey @param {number} version @param {number} issuedAt @param {Identity[]} extra
 */
function bobList(bobKey, version, issuedAt, extra) {
  const devices = [{ key: bobKey.publicKey.toSec1(), addedAt: 1 }, ...extra.map((d) => ({ key: d.publicKey.toSec1(), addedAt: issuedAt }))];
  return new DeviceList(bobKey.publicKey, version, issuedAt, devices).sign(bobKey);
}

/**
 * An account's own device on its own connection, with KeyPackages (and so a device list).
 * @param {string} url @param {Identity} identity @param {import('node:test').TestContext} t
 */
async function member(url, identity, t) {
  const client = await connect(url, { identity });
  t.after(() => client.close());
  const d = await Device.open(client, identity, new MemoryStore());
  await d.publishKeyPackages(2);
  return d;
}

/**
 * Every member reads until a round in which the topic did not grow (views
 * sent in reply are read too); every event.
 * @param {Conversation[]} convs
 * @param {import('../src/client/connection.js').Client} raw
 */
async function settle(convs, raw) {
  const end = async () => (await raw.fetch(convs[0].topic, 0, 0, 1, 0)).highWatermark;
  /** @type {MlsEvent[]} */
  const all = [];
  for (let round = 0; round < 10; round++) {
    const before = await end();
    for (const c of convs) {
      await c.catchUp();
      const events = await c.receive();
      await c.ack(events.length);
      all.push(...events);
    }
    if ((await end()) === before) return all;
  }
  throw new Error(`the views exchange did not settle in 10 rounds: ${JSON.stringify(all.map((e) => e.type))}`);
}

/**
 * Reads `c` until a split view (up to 20 s); every event seen.
 * @param {Conversation} c
 */
async function untilSplit(c) {
  /** @type {MlsEvent[]} */
  const seen = [];
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = await c.receive({ maxWaitMs: 500 });
    await c.ack(events.length);
    seen.push(...events);
    if (events.some((e) => e.type === 'splitView')) return seen;
    if (Date.now() > deadline) throw new Error(`no split view within 20 s; saw ${JSON.stringify(seen.map((e) => e.type))}`);
  }
}

/**
 * The split views among `events`, as [account, sender account, version, seen].
 * @param {MlsEvent[]} events
 */
const splits = (events) =>
  events.flatMap((e) => (e.type === 'splitView' ? [[e.account.toHex(), e.member.account.toHex(), e.version, e.seen]] : []));

/**
 * Alice's conversation with Bob and Carol, the views of the joins
 * exchanged (no split view among honest lists).
 * @param {import('node:test').TestContext} t
 */
async function three(t) {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [aliceKey, bobKey, carolKey] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const alice = await member(broker.url, aliceKey, t);
  const bob = await member(broker.url, bobKey, t);
  const carol = await member(broker.url, carolKey, t);
  const a = await Conversation.create(alice);
  await a.invite(bob.account.fingerprint());
  await a.invite(carol.account.fingerprint());
  await Conversation.acceptWelcomes(bob);
  await Conversation.acceptWelcomes(carol);
  const convs = [a, await Conversation.open(bob, a.topic), await Conversation.open(carol, a.topic)];
  const admin = await connect(broker.url);
  t.after(() => admin.close());
  assert.deepEqual(splits(await settle(convs, admin)), [], 'honest joins: no split view');
  return { alice, bob, bobKey, carol, convs, admin };
}

test('the views content is the bytes Rust makes, and bad views are refused', async () => {
  const v = JSON.parse(await readFile(new URL('../../client/tests/vectors/mls_views.json', import.meta.url), 'utf8'));
  /** @type {import('../src/mls/views.js').View[]} */
  const views = v.views.map((/** @type {{ account: string, version: string, digest: string }} */ e) => ({
    account: new Fingerprint(fromHex(e.account)),
    version: BigInt(e.version),
    digest: fromHex(e.digest),
  }));
  const bytes = encodeViewsContent(views, v.sent_at);
  assert.equal(toHex(bytes), v.content);
  const back = decodeContent(bytes);
  assert.equal(back.kind, 'views');
  assert.ok(back.kind === 'views' && back.sentAt === v.sent_at && back.views.length === 3);
  assert.ok(back.kind === 'views' && back.views.every((w, i) => w.account.equals(views[i].account) && w.version === views[i].version && toHex(w.digest) === toHex(views[i].digest)));

  const body = encodeViews(views);
  assert.throws(() => decodeViews(body.subarray(0, 1)), /truncated/);
  assert.throws(() => decodeViews(body.subarray(0, body.length - 1)), /not whole entries/);
  const huge = Uint8Array.from(body);
  huge[0] = 0xff;
  assert.throws(() => decodeViews(huge), /too many accounts/);
  assert.throws(() => encodeViews([views[1], views[0]]), /ascending/);
  const swapped = Uint8Array.from(body);
  swapped.set(body.subarray(2 + 72, 2 + 144), 2);
  swapped.set(body.subarray(2, 2 + 72), 2 + 72);
  assert.throws(() => decodeViews(swapped), /ascending/);
  assert.equal(MAX_VIEWS, 1024);
});

test('two lists with one version are a split view for both members', async (t) => {
  const { alice, bob, bobKey, carol, convs, admin } = await three(t);
  const bobFp = bob.fingerprint;
  const mallory = await Identity.generate();
  // Alice accepts L1 v5; the admin replaces it with L2 v5, which Carol accepts.
  await writeList(admin, bobFp, await bobList(bobKey, 5, 100, []));
  assert.equal((await alice.deviceList(bobFp)).version, 5);
  await writeList(admin, bobFp, await bobList(bobKey, 5, 200, [mallory]));
  assert.equal((await carol.deviceList(bobFp)).version, 5);
  // Carol restarts: her views go out only because Alice's differ.
  convs[2] = await Conversation.open(carol, convs[0].topic);

  await convs[0].receive();
  const atCarol = await untilSplit(convs[2]);
  const atAlice = await untilSplit(convs[0]);
  assert.deepEqual(splits(atCarol), [[bobFp.toHex(), alice.fingerprint.toHex(), 5, 5]], 'Carol: Alice holds another v5');
  assert.deepEqual(splits(atAlice), [[bobFp.toHex(), carol.fingerprint.toHex(), 5, 5]], 'Alice: Carol holds another v5');
  // Bob's own device (at v1, its publish) fetches v5 when told, gets L2, disagrees with Alice.
  const atBob = await untilSplit(convs[1]);
  assert.ok(splits(atBob).some((s) => s[1] === alice.fingerprint.toHex() && s[2] === 5), JSON.stringify(splits(atBob)));
  assert.ok([...atCarol, ...atAlice].every((e) => e.type !== 'message'), 'views are not texts');
});

test('a newer list withheld from one member is a split view', async (t) => {
  const { alice, bob, bobKey, carol, convs, admin } = await three(t);
  const bobFp = bob.fingerprint;
  const v5 = await bobList(bobKey, 5, 100, []);
  await writeList(admin, bobFp, v5);
  await alice.deviceList(bobFp);
  await carol.deviceList(bobFp);
  const phone = await Identity.generate();
  await writeList(admin, bobFp, await bobList(bobKey, 6, 300, [phone]));
  assert.equal((await carol.deviceList(bobFp)).version, 6);
  await refill(admin, bobFp);
  await writeList(admin, bobFp, v5);

  await convs[2].receive();
  const atAlice = await untilSplit(convs[0]);
  assert.deepEqual(splits(atAlice), [[bobFp.toHex(), carol.fingerprint.toHex(), 6, 5]], 'Alice: Carol holds v6, the broker serves her v5');
  assert.equal(alice.deviceListVersionSeen(bobFp), 5);
});

test('honest lists raise no split view, and a newer one spreads', async (t) => {
  const { alice, bob, carol, convs, admin } = await three(t);
  const bobFp = bob.fingerprint;
  const laptop = await Identity.generate();
  await bob.publishDeviceList([laptop.publicKey]);
  assert.equal((await alice.deviceList(bobFp)).version, 2);
  assert.equal(carol.deviceListVersionSeen(bobFp), 1);

  await convs[0].send('hello');
  const events = await settle(convs, admin);
  assert.deepEqual(splits(events), [], JSON.stringify(events.map((e) => e.type)));
  assert.deepEqual(
    events.flatMap((e) => (e.type === 'message' ? [e.text] : [])),
    ['hello', 'hello'],
    'Bob and Carol each read the one text; views are not shown',
  );
  assert.equal(carol.deviceListVersionSeen(bobFp), 2, 'Carol fetched v2 because Alice’s views named it');
});
