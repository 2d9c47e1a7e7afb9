// The sealed-state anchor through a real broker (docs/ENVELOPE.md §13 "The
// anchor", issue 32 §2): a broker that serves an authentic older state record
// and moves the group's commit back is refused by a restarted consumer that
// kept its anchors (StateRolledBack), accepted by one with a fresh store; a
// commit moved back alone is refused (CommitRolledBack); a crash between the
// state's durable write and the anchor's is no refusal and the anchor moves
// up; a producer's budget state is held to its anchor too. The anchors live
// in the Rust SDK's `state-anchors` file format (StateAnchorsFile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Producer } from '../src/client/producer.js';
import { Ack } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { SealedProducer } from '../src/sealed/producer.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { CommitRolledBack, StateRolledBack, stateTopic } from '../src/sealed/state.js';
import { StateAnchorsError, StateAnchorsFile } from '../src/client/state-anchors-file.js';
import { startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();

/** @typedef {import('../src/client/connection.js').Client} Client */

/**
 * The raw record at `offset` of partition 0.
 * @param {Client} client
 * @param {string} topic
 * @param {number} offset
 */
async function rawAt(client, topic, offset) {
  const r = await client.fetch(topic, 0, offset);
  for (const rec of r.records(offset)) if (rec.offset === offset) return rec;
  throw new Error(`no record at ${topic}/0@${offset}`);
}

/**
 * Append an authentic old record again (what the broker can do).
 * @param {Client} client
 * @param {string} topic
 * @param {{ key: Uint8Array, value: Uint8Array }} rec
 */
async function reappend(client, topic, rec) {
  const b = new BatchBuilder(rec.key);
  b.push(rec.value);
  return client.produce(topic, 0, Ack.Durable, b.finish());
}

/** @param {import('node:test').TestContext} t */
async function tempDir(t) {
  const d = await mkdtemp(join(tmpdir(), 'hermit-anchors-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  return join(d, 'state');
}

/** @param {SealedConsumer} c */
async function nextOk(c) {
  const r = await c.next();
  assert.ok(r.ok, String(r));
  return /** @type {import('../src/sealed/record.js').OpenedRecord} */ (r).text();
}

/**
 * The anchor lines of a state-anchors file.
 * @param {string} path
 */
async function anchorLines(path) {
  return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

test('a rolled-back state and commit are refused with the anchors kept, accepted with a fresh store; a commit moved back alone is refused', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const a = await connect(broker.url, { identity: alice });
  const b = await connect(broker.url, { identity: bob });
  t.after(() => Promise.all([a.close(), b.close()]));
  const inbox = `inbox.${bob.fingerprint().toHex()}`;
  const group = 'phone';
  const sp = await SealedProducer.create(new Producer(a, { lingerMs: 1 }), alice);
  for (const m of ['one', 'two']) await sp.send(inbox, 'conv', enc.encode(m), [bob.publicKey]);
  await sp.flush();

  const dir = await tempDir(t);
  const anchors = await StateAnchorsFile.open(dir);
  const c1 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: anchors });
  assert.equal(await nextOk(c1), 'one');
  await c1.commit(); // generation 1, offset 1: state topic offset 0
  assert.equal(await nextOk(c1), 'two');
  await c1.commit(); // generation 2, offset 2
  await c1.close();
  const lines = await anchorLines(anchors.path);
  assert.equal(lines.length, 1, lines.join('\n'));
  // The Rust SDK's line: escaped broker address, blinded key, generation, sha256.
  assert.match(lines[0], /^\S+ [0-9a-f]{32} 2 [0-9a-f]{64}$/);
  assert.ok(lines[0].startsWith(`${broker.url} `), lines[0]);

  // The broker serves the authentic older state (generation 1) and moves the commit back.
  const state = stateTopic(bob);
  await reappend(b, state, await rawAt(b, state, 0));
  await b.commit(group, inbox, 0, 1);

  // The same device refuses, naming the anchor and what to do.
  await assert.rejects(SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: await StateAnchorsFile.open(dir) }), (e) => {
    assert.ok(e instanceof StateRolledBack, String(e));
    assert.equal(e.kind, 'StateRolledBack');
    assert.equal(e.anchored, 2n);
    assert.equal(e.found, 1n);
    assert.match(e.message, /the broker served an older state than this device wrote \(anchored generation 2 in .*state-anchors, found 1\)/);
    assert.match(e.message, /remove the anchor starting `/);
    assert.ok(lines[0].startsWith(e.line), `${e.line} vs ${lines[0]}`);
    return true;
  });
  // A new device (a fresh store) has nothing to hold the broker to: it
  // accepts generation 1, and 'two' opens again — what the anchor prevents.
  const fresh = await StateAnchorsFile.open(await tempDir(t));
  const c2 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: fresh });
  assert.equal(c2.stateOrigin().kind, 'Restored');
  assert.equal(await nextOk(c2), 'two');
  await c2.commit(); // generation 2 again, anchored in the fresh store
  await c2.close();
  assert.match((await anchorLines(fresh.path))[0], / 2 [0-9a-f]{64}$/);

  // The commit alone moved back, the newest state record stays: CommitRolledBack.
  await b.commit(group, inbox, 0, 0);
  await assert.rejects(SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: fresh }), (e) => {
    assert.ok(e instanceof CommitRolledBack, String(e));
    assert.equal(e.partition, 0);
    assert.equal(e.committed, 0);
    assert.equal(e.state, 2);
    assert.match(e.message, /the broker's committed offset \(0\) is below 2, which this device committed and anchored in .*state-anchors: the broker moved the commit back/);
    return true;
  });
  // An explicit start is not held to the commit (as Rust).
  const c3 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: fresh, start: { offset: 2 } });
  await c3.close();
});

test('a crash between the durable state write and the anchor update is no refusal: the anchor moves up', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const a = await connect(broker.url, { identity: alice });
  const b = await connect(broker.url, { identity: bob });
  t.after(() => Promise.all([a.close(), b.close()]));
  const inbox = `inbox.${bob.fingerprint().toHex()}`;
  const group = 'phone';
  const sp = await SealedProducer.create(new Producer(a, { lingerMs: 1 }), alice);
  for (const m of ['one', 'two']) await sp.send(inbox, 'conv', enc.encode(m), [bob.publicKey]);
  await sp.flush();

  const dir = await tempDir(t);
  const anchors = await StateAnchorsFile.open(dir);
  const c1 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: anchors });
  assert.equal(await nextOk(c1), 'one');
  await c1.commit();
  const before = await readFile(anchors.path, 'utf8');
  assert.match(before, / 1 [0-9a-f]{64}\n$/);
  assert.equal(await nextOk(c1), 'two');
  await c1.commit();
  await c1.close();
  // The crash: the state record of generation 2 is durable, but neither the
  // commit nor the anchor were written.
  await writeFile(anchors.path, before);
  await b.commit(group, inbox, 0, 1);

  const c2 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: await StateAnchorsFile.open(dir) });
  assert.deepEqual(c2.stateOrigin().kind, 'Restored');
  assert.match(await readFile(anchors.path, 'utf8'), / 2 [0-9a-f]{64}\n$/, 'the anchor moved up');
  assert.equal(await b.committed(group, inbox, 0), 2, 'the commit the state was saved for was finished');
  await sp.send(inbox, 'conv', enc.encode('three'), [bob.publicKey]);
  await sp.flush();
  assert.equal(await nextOk(c2), 'three', "'two' is not delivered again");
  await c2.close();
  // And the next start is at the anchor: no refusal.
  const c3 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null, stateAnchors: anchors });
  await c3.close();
});

test("a producer's budget state is held to its anchor", async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob, carol] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const a = await connect(broker.url, { identity: alice });
  t.after(() => a.close());
  /** @type {Map<string, import('../src/sealed/state.js').StateAnchor>} */
  const m = new Map();
  // Any object with get and set is a store (the browser's is IndexedDB).
  const mem = {
    location: 'the test store',
    /** @param {string} broker @param {string} key */
    get: (broker, key) => m.get(`${broker} ${key}`),
    /** @param {string} broker @param {string} key @param {import('../src/sealed/state.js').StateAnchor} an */
    set: (broker, key, an) => void m.set(`${broker} ${key}`, an),
  };
  const run1 = await SealedProducer.create(new Producer(a, { lingerMs: 1 }), alice, { stateAnchors: mem });
  await run1.send('t', null, enc.encode('x'), [bob.publicKey]);
  await run1.send('t', null, enc.encode('y'), [carol.publicKey]);
  await run1.flush();
  assert.deepEqual([...m.values()].map((x) => x.generation), [2n]);
  const state = stateTopic(alice);
  await reappend(a, state, await rawAt(a, state, 0));
  const run2 = await SealedProducer.create(new Producer(a, { lingerMs: 1 }), alice, { stateAnchors: mem });
  await assert.rejects(run2.send('t', null, enc.encode('z'), [bob.publicKey]), (e) => e instanceof StateRolledBack && /anchored generation 2 in the test store, found 1/.test(e.message));
});

test('the state-anchors file: malformed lines are named, anchors only move up', async (t) => {
  const dir = await tempDir(t);
  const f = await StateAnchorsFile.open(dir);
  const key = '01'.repeat(16);
  await f.set('ws://a b%#/', key, { generation: 5n, record: new Uint8Array(32).fill(7) });
  await f.set('ws://a b%#/', key, { generation: 4n, record: new Uint8Array(32).fill(8) });
  assert.equal((await f.get('ws://a b%#/', key))?.generation, 5n);
  assert.ok((await readFile(f.path, 'utf8')).includes(`ws://a%20b%25%23/ ${key} 5 ${'07'.repeat(32)}\n`));
  const good = `h:1 ${'00'.repeat(16)} 3 ${'11'.repeat(32)}\n`;
  for (const [bad, line] of /** @type {Array<[string, number]>} */ ([
    [`# c\n${good}${good}`, 3],
    [`h:1 ${'01'.repeat(16)} +3 ${'11'.repeat(32)}\n`, 1],
    [`\nh:1 ${'01'.repeat(15)} 3 ${'11'.repeat(32)}\n`, 2],
    [`h:1 ${'01'.repeat(16)} 3\n`, 1],
    [`h%3a1 ${'01'.repeat(16)} 3 ${'11'.repeat(32)}\n`, 1],
  ])) {
    await writeFile(f.path, bad);
    await assert.rejects(f.get('h:1', key), (e) => e instanceof StateAnchorsError && e.kind === 'Malformed' && e.line === line);
  }
});
