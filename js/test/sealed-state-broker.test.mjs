// Sealed state through a real broker (docs/ENVELOPE.md §13): a restarted JS
// consumer (a new object, and a new node process) refuses a record replayed
// through the broker; the state topic's files hold nothing that names a
// sender, a seq, the group or the topic; held records are bounded; DIRECT
// budgets survive a restart; padding is on by default; a missing ACL rule
// gives an error naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Producer } from '../src/client/producer.js';
import { Ack } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { DIRECT_LIMIT, Sealer } from '../src/crypto/seal.js';
import { BUDGET_RESERVE, SealedProducer } from '../src/sealed/producer.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { StateError } from '../src/crypto/state.js';
import { stateTopic } from '../src/sealed/state.js';
import { INBOX_POLICY, startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();
const srcIndex = fileURLToPath(new URL('../src/index.js', import.meta.url));

/** @typedef {import('../src/client/connection.js').Client} Client */
/** @typedef {import('../src/sealed/record.js').SealedRecordError} SealedRecordError */

/**
 * The raw value stored at `offset` of partition 0.
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
 * Append `value` again (what anyone who may write the topic can do); its new offset.
 * @param {Client} client
 * @param {string} topic
 * @param {{ key: Uint8Array, value: Uint8Array }} rec
 */
async function replay(client, topic, rec) {
  const b = new BatchBuilder(rec.key);
  b.push(rec.value);
  return client.produce(topic, 0, Ack.Durable, b.finish());
}

/**
 * Contents of every file under `dir` whose path names `part`.
 * @param {string} dir
 * @param {string} part
 */
async function filesUnder(dir, part) {
  /** @type {Buffer[]} */
  const out = [];
  /** @type {(d: string, inside: boolean) => Promise<void>} */
  const walk = async (d, inside) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const within = inside || e.name.includes(part);
      if (e.isDirectory()) await walk(p, within);
      else if (within) out.push(await readFile(p));
    }
  };
  await walk(dir, false);
  return out;
}

/**
 * @param {bigint} x
 * @param {boolean} little
 */
function u64(x, little) {
  const b = Buffer.alloc(8);
  if (little) b.writeBigUInt64LE(x);
  else b.writeBigUInt64BE(x);
  return b;
}

test('a restarted consumer (new object, new process) refuses a replayed record; the state topic leaks no names', async (t) => {
  // Partitions in directories, not slots: the leak check below reads the
  // state topic's own files, found by their directory's name.
  const broker = await startBroker({ config: INBOX_POLICY, args: ['--set', 'partition_slots=false'] });
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const a = await connect(broker.url, { identity: alice });
  const b = await connect(broker.url, { identity: bob });
  t.after(() => Promise.all([a.close(), b.close()]));
  const inbox = `inbox.${bob.fingerprint().toHex()}`;
  const group = `${bob.fingerprint().toHex()}.phone`;
  const sp = await SealedProducer.create(new Producer(a, { lingerMs: 1 }), alice);
  const sent = [];
  for (const m of ['one', 'two', 'three']) sent.push(await sp.send(inbox, 'conv', enc.encode(m), [bob.publicKey]));
  await sp.flush();

  const c1 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null });
  assert.deepEqual(c1.stateOrigin(), { kind: 'Fresh' });
  const got = [];
  for (let i = 0; i < 3; i++) {
    const r = await c1.next();
    assert.ok(r.ok, String(r));
    assert.ok(r.padded, 'padding is on by default');
    assert.equal(r.window, i === 0 ? 'new' : 'continued');
    got.push(r.text());
  }
  assert.deepEqual(got, ['one', 'two', 'three']);
  await c1.commit();
  await c1.close();
  assert.equal(await b.committed(group, inbox, 0), 3);

  // Whoever may write the inbox appends an old record again.
  const at = await replay(a, inbox, await rawAt(b, inbox, 1));
  assert.equal(at, 3);

  const c2 = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null });
  assert.deepEqual(c2.stateOrigin(), { kind: 'Restored', senders: 1, floor: 0n });
  const r = await c2.next();
  assert.equal(r.ok, false);
  assert.equal(r.offset, 3);
  assert.equal(/** @type {SealedRecordError} */ (r).kind, 'Open');
  assert.equal(/** @type {any} */ (r).openError.kind, 'Replayed');
  // A new record after the restart opens, continuing the restored window.
  await sp.send(inbox, 'conv', enc.encode('four'), [bob.publicKey]);
  await sp.flush();
  const r4 = await c2.next();
  assert.ok(r4.ok && r4.text() === 'four' && r4.window === 'restored', String(r4));
  assert.equal(c2.ack(0, 3), true);
  await c2.commit();
  await c2.close();

  // Without persistence the same replay opens again (what the state prevents).
  const plain = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group: `${bob.fingerprint().toHex()}.other`, persistState: false, start: { offset: 3 }, autoCommitMs: null });
  assert.deepEqual(plain.stateOrigin(), { kind: 'NotPersisted' });
  const again = await plain.next();
  assert.ok(again.ok && again.text() === 'two' && again.window === 'new', String(again));
  await plain.close();

  // A new node process with the same identity and group refuses a second replay.
  await replay(a, inbox, await rawAt(b, inbox, 0));
  const script = `
    import { connect, Identity, SealedConsumer, PublicKey } from ${JSON.stringify(srcIndex)};
    const bob = await Identity.fromPkcs8Base64(process.env.BOB);
    const alice = await PublicKey.fromSpkiBase64(process.env.ALICE);
    const c = await connect(process.env.URL, { identity: bob });
    const sc = await SealedConsumer.create(c, bob, [alice], process.env.TOPIC, { group: process.env.GROUP, autoCommitMs: null });
    const r = await sc.next();
    console.log(JSON.stringify({ origin: sc.stateOrigin().kind, ok: r.ok, offset: r.offset, kind: r.openError?.kind }));
    await sc.close();
    await c.close();
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, BOB: await bob.toPkcs8Base64(), ALICE: alice.publicKey.toSpkiBase64(), URL: broker.url, TOPIC: inbox, GROUP: group },
  });
  assert.deepEqual(JSON.parse(stdout), { origin: 'Restored', ok: false, offset: 5, kind: 'Replayed' });

  // The state topic's files: no sender kid or fingerprint, no seq (either
  // byte order), no group or topic name.
  const files = await filesUnder(broker.dataDir, stateTopic(bob));
  assert.ok(files.length > 0 && files.some((f) => f.includes(Buffer.from('HST1'))), 'the state topic holds state records');
  const needles = [
    ['sender kid', Buffer.from(alice.kid().asBytes())],
    ['sender fingerprint', Buffer.from(alice.fingerprint().asBytes())],
    ['sender fingerprint hex', Buffer.from(alice.fingerprint().toHex())],
    ['group', Buffer.from(group)],
    ['topic', Buffer.from(inbox)],
    ['consumer key label', Buffer.from('consumer/v1')],
  ];
  for (const d of sent) needles.push([`seq ${d.seq} BE`, u64(d.seq, false)], [`seq ${d.seq} LE`, u64(d.seq, true)]);
  for (const [what, n] of needles) assert.ok(!files.some((f) => f.includes(n)), `the state topic's files hold the ${what}`);
});

/**
 * Append `value` to `partition`; its offset.
 * @param {Client} client
 * @param {string} topic
 * @param {number} partition
 * @param {Uint8Array} value
 */
async function produceAt(client, topic, partition, value) {
  const b = new BatchBuilder(new Uint8Array(0));
  b.push(value);
  return client.produce(topic, partition, Ack.Durable, b.finish());
}

test('a restart restores the windows, not marks: a record of a partition not committed yet still opens (late), replays stay refused', async (t) => {
  // As client/tests/sealed_commit.rs a_failed_record_holds_its_partition_until_acked_and_restarts_resume_there.
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const c = await connect(broker.url);
  t.after(() => c.close());
  const topic = 'commits';
  await c.createTopic(topic, { partitions: 2 });
  const sealer = new Sealer(alice);
  const seal = (/** @type {string} */ text) => sealer.sealDirect(topic, bob.publicKey, enc.encode(text));
  assert.equal(await produceAt(c, topic, 0, await seal('p0 r0')), 0);
  assert.equal(await produceAt(c, topic, 0, enc.encode('\x01garbage')), 1);
  assert.equal(await produceAt(c, topic, 0, await seal('p0 r2')), 2); // a lower seq than partition 1's
  assert.equal(await produceAt(c, topic, 1, await seal('p1 r0')), 0);
  const p1r1 = await seal('p1 r1');
  assert.equal(await produceAt(c, topic, 1, p1r1), 1);

  const at = (/** @type {{ partition: number, offset: number }} */ r) => `${r.partition}@${r.offset}`;
  const c1 = await SealedConsumer.create(c, bob, [alice.publicKey], topic, { group: 'g', autoCommitMs: null });
  /** @type {Record<string, boolean>} */
  const got = {};
  for (let i = 0; i < 5; i++) {
    const r = await c1.next();
    got[at(r)] = r.ok;
  }
  assert.deepEqual(got, { '0@0': true, '0@1': false, '0@2': true, '1@0': true, '1@1': true });
  await c1.commit();
  assert.equal(await c.committed('g', topic, 0), 1, 'partition 0 only up to the failed record');
  assert.equal(await c.committed('g', topic, 1), 2);
  await c1.close();

  // Someone appends partition 1's last record again.
  assert.equal(await produceAt(c, topic, 1, p1r1), 2);

  const c2 = await SealedConsumer.create(c, bob, [alice.publicKey], topic, { group: 'g', autoCommitMs: null });
  assert.deepEqual(c2.stateOrigin(), { kind: 'Restored', senders: 1, floor: 0n });
  /** @type {Record<string, any>} */
  const again = {};
  for (let i = 0; i < 3; i++) {
    const r = await c2.next();
    again[at(r)] = r;
  }
  assert.deepEqual(Object.keys(again).sort(), ['0@1', '0@2', '1@2']);
  assert.equal(again['0@1'].ok, false, 'the failed record again');
  const late = again['0@2'];
  // With a high-water mark (everything up to partition 1's seq seen) this was refused as Replayed.
  assert.ok(late.ok && late.text() === 'p0 r2', String(late));
  assert.equal(late.late, true, 'below the restored highest: a late record');
  assert.equal(late.window, 'restored');
  assert.equal(again['1@2'].ok, false);
  assert.equal(again['1@2'].openError.kind, 'Replayed', 'a number the window marks seen');
  await c2.close();
});

test('held records are bounded by count and by age, each release reported once as a notice', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const c = await connect(broker.url);
  t.after(() => c.close());
  const topic = 'held';
  await c.createTopic(topic);
  for (let i = 0; i < 3; i++) await replay(c, topic, { key: new Uint8Array(0), value: enc.encode(`garbage ${i}`) });

  const byCount = await SealedConsumer.create(c, bob, [alice.publicKey], topic, { group: 'g1', maxHeld: 2, autoCommitMs: null });
  const seen = [];
  for (let i = 0; i < 4; i++) {
    const r = /** @type {SealedRecordError} */ (await byCount.next());
    seen.push([r.kind, r.offset, r.why, r.holdsCommit()]);
  }
  assert.deepEqual(seen, [
    ['Open', 0, undefined, true],
    ['Open', 1, undefined, true],
    ['Open', 2, undefined, true],
    ['Released', 0, { count: 2 }, false],
  ]);
  assert.deepEqual(byCount.held(), [[0, [1, 2]]]);
  await byCount.commit();
  assert.equal(await c.committed('g1', topic, 0), 1, 'the commit passes the released record, not the held ones');
  await byCount.close();

  // By age: the notice comes while next() waits for records (no sleep here).
  const byAge = await SealedConsumer.create(c, bob, [alice.publicKey], topic, { group: 'g2', maxHeldAgeMs: 50, autoCommitMs: null, start: 'earliest' });
  const first = /** @type {SealedRecordError} */ (await byAge.next());
  assert.equal(first.kind, 'Open');
  const started = Date.now();
  const kinds = [];
  while (kinds.filter((k) => k[0] === 'Released').length < 3) {
    const r = /** @type {SealedRecordError} */ (await byAge.next());
    kinds.push([r.kind, r.offset]);
  }
  assert.ok(Date.now() - started >= 40, 'released only once old enough');
  const released = kinds.filter((k) => k[0] === 'Released').map((k) => k[1]);
  assert.deepEqual(released, [0, 1, 2]);
  assert.deepEqual(byAge.held(), []);
  await byAge.commit();
  assert.equal(await c.committed('g2', topic, 0), 3);
  await byAge.close();
});

test('DIRECT budgets are reserved in the state topic: a restarted producer switches to MULTI where the last run stopped', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const c = await connect(broker.url);
  t.after(() => c.close());

  const run1 = await SealedProducer.create(new Producer(c, { lingerMs: 1 }), alice);
  const d1 = await run1.send('t', null, enc.encode('x'), [bob.publicKey]);
  assert.equal(d1.mode, 'direct');
  assert.equal(run1.reservedDirectSeals(bob.fingerprint()), BUDGET_RESERVE, 'reserved before the first DIRECT record');
  await run1.flush();

  // The next run counts every reserved record as spent.
  const run2 = await SealedProducer.create(new Producer(c, { lingerMs: 1 }), alice);
  await run2.send('t', null, enc.encode('y'), [bob.publicKey]);
  assert.equal(run2.directSeals(bob.fingerprint()), BUDGET_RESERVE + 1);
  assert.equal(run2.reservedDirectSeals(bob.fingerprint()), 2 * BUDGET_RESERVE);

  // Near the limit: this run seals the last DIRECT records, the next one MULTI.
  run2.restoreDirectSeals(bob.publicKey, DIRECT_LIMIT - 1);
  const last = await run2.send('t', null, enc.encode('last'), [bob.publicKey]);
  assert.equal(last.mode, 'direct');
  await run2.flush();
  const run3 = await SealedProducer.create(new Producer(c, { lingerMs: 1 }), alice);
  const after = await run3.send('t', null, enc.encode('after restart'), [bob.publicKey]);
  assert.equal(after.mode, 'multi', 'the budget held across the restart');
  // Without persistence a new run would start counting from zero again.
  const forgetful = await SealedProducer.create(new Producer(c, { lingerMs: 1 }), alice, { persistBudgets: false });
  assert.equal((await forgetful.send('t', null, enc.encode('z'), [bob.publicKey])).mode, 'direct');
  await Promise.all([run3.flush(), forgetful.flush()]);

  // Concurrent first sends to one peer share one reservation.
  const carol = await Identity.generate();
  const run4 = await SealedProducer.create(new Producer(c, { lingerMs: 1 }), alice);
  const many = await Promise.all(Array.from({ length: 20 }, (_, i) => run4.send('t', null, enc.encode(`${i}`), [carol.publicKey])));
  assert.ok(many.every((d) => d.mode === 'direct'));
  assert.equal(run4.directSeals(carol.fingerprint()), 20);
  assert.equal(run4.reservedDirectSeals(carol.fingerprint()), BUDGET_RESERVE);
  await run4.flush();
});

test('without the state.{principal} ACL rule a persisting consumer fails with an error naming it', async (t) => {
  const policy = INBOX_POLICY.slice(0, INBOX_POLICY.indexOf('# Each principal'));
  assert.ok(!policy.includes('state.'));
  const broker = await startBroker({ config: policy });
  t.after(() => broker.stop());
  const bob = await Identity.generate();
  const b = await connect(broker.url, { identity: bob });
  t.after(() => b.close());
  const inbox = `inbox.${bob.fingerprint().toHex()}`;
  const group = `${bob.fingerprint().toHex()}.g`;
  const e = await SealedConsumer.create(b, bob, [], inbox, { group }).catch((x) => x);
  assert.ok(e instanceof StateError, String(e));
  assert.equal(e.kind, 'Store');
  assert.equal(e.status, 'Unauthorized');
  assert.equal(e.topic, stateTopic(bob));
  assert.match(e.message, /state\.\{principal\}/);
  // Opting out works without the rule.
  const c = await SealedConsumer.create(b, bob, [], inbox, { group, persistState: false, autoCommitMs: null });
  assert.deepEqual(c.stateOrigin(), { kind: 'NotPersisted' });
  await c.close();
});
