// Sealed producer → sealed consumer, JS to JS, on the in-memory stand-in
// (sealed-broker.test.mjs runs the round trip through the real broker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Producer } from '../src/client/producer.js';
import { BlindingKey } from '../src/crypto/blind.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { SealedGroup, SealedProducer } from '../src/sealed/producer.js';
import { SealedRecordError } from '../src/sealed/record.js';
import { RecordView } from '../src/crypto/envelope.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { memoryBroker } from './helpers/fake-broker.mjs';

const enc = new TextEncoder();

/** @typedef {import('../src/sealed/record.js').OpenedRecord} OpenedRecord */
/** @typedef {import('../src/sealed/record.js').SealedRecordError} SealedRecordErrorType */

/** @param {import('node:test').TestContext} t */
async function setup(t) {
  const broker = await memoryBroker();
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const [alice, bob, carol] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const producer = new Producer(client, { lingerMs: 1 });
  const sp = await SealedProducer.create(producer, alice);
  return { broker, client, alice, bob, carol, producer, sp };
}

test('DIRECT and MULTI records open for their recipients in send order; the broker never sees the plaintext', async (t) => {
  const { broker, client, alice, bob, carol, sp } = await setup(t);
  const sent = [];
  for (let i = 0; i < 5; i++) sent.push(await sp.send('chat', 'conv-1', enc.encode(`hello bob ${i}`), [bob.publicKey]));
  sent.push(await sp.send('chat', null, enc.encode('to both'), [bob.publicKey, carol.publicKey]));
  await sp.flush();
  const delivered = await Promise.all(sent.map((d) => d.delivered));
  assert.deepEqual(delivered.map((d) => d.offset), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(sent.map((d) => d.mode), ['direct', 'direct', 'direct', 'direct', 'direct', 'multi']);
  for (let i = 1; i < sent.length; i++) assert.equal(sent[i].seq, sent[i - 1].seq + 1n);
  const stored = Buffer.concat(/** @type {Array<{ batches: Uint8Array[] }>} */ (broker.topics.get('chat'))[0].batches);
  assert.equal(stored.indexOf('hello bob'), -1);
  assert.equal(stored.indexOf('conv-1'), -1);

  const c = await SealedConsumer.create(client, bob, [alice.publicKey], 'chat');
  const got = [];
  for (let i = 0; i < 6; i++) got.push(await c.next());
  assert.ok(got.every((r) => r.ok));
  assert.deepEqual(got.map((r) => r.text()), ['hello bob 0', 'hello bob 1', 'hello bob 2', 'hello bob 3', 'hello bob 4', 'to both']);
  assert.ok(got.every((r) => r.sender.equals(alice.fingerprint())));
  assert.equal(got[0].seq, sent[0].seq);
  // The blinded key is K_pair's: Bob computes the same from his side.
  const k = await BlindingKey.pairwise(bob, alice.publicKey);
  assert.deepEqual(got[0].key, (await k.blind('conv-1')).asBytes());
  assert.equal(got[5].key.length, 0);
  assert.doesNotMatch(inspect(got[0]), /hello/);
  assert.match(String(got[0]), /11 bytes redacted/);
});

test('records for others are NotForMe and do not hold commits; a failed open holds them until ack', async (t) => {
  const { client, alice, bob, carol, sp } = await setup(t);
  const mallory = await Identity.generate();
  const sm = await SealedProducer.create(new Producer(client, { lingerMs: 1 }), mallory);
  await (await sp.send('inbox', null, enc.encode('for carol'), [carol.publicKey])).delivered; // 0: not for bob
  await (await sm.send('inbox', null, enc.encode('from a stranger'), [bob.publicKey])).delivered; // 1: untrusted sender
  await (await sp.send('inbox', null, enc.encode('for bob'), [bob.publicKey])).delivered; // 2
  const c = await SealedConsumer.create(client, bob, [alice.publicKey], 'inbox', { group: 'bob.g', autoCommitMs: null });
  const r0 = await c.next();
  assert.ok(r0 instanceof SealedRecordError && r0.isNotForMe() && !r0.holdsCommit() && r0.offset === 0 && r0.mode === 'direct');
  const r1 = /** @type {any} */ (await c.next());
  assert.ok(!r1.ok && r1.kind === 'Open' && r1.openError.kind === 'UnknownSender' && r1.holdsCommit() && r1.offset === 1);
  const r2 = /** @type {OpenedRecord} */ (await c.next());
  assert.equal(r2.text(), 'for bob');
  assert.deepEqual(c.held(), [[0, [1]]]);
  await c.commit();
  assert.deepEqual(c.committed(), [[0, 1]]); // not past the held record
  assert.equal(c.ack(0, 1), true);
  await c.commit();
  assert.deepEqual(c.committed(), [[0, 3]]);
  assert.equal(await client.committed('bob.g', 'inbox', 0), 3);
  // A restarted consumer of the group resumes after the commit.
  await (await sp.send('inbox', null, enc.encode('later'), [bob.publicKey])).delivered;
  const again = await SealedConsumer.create(client, bob, [alice.publicKey], 'inbox', { group: 'bob.g' });
  assert.equal(/** @type {OpenedRecord} */ (await again.next()).text(), 'later');
});

test('a second copy of a delivered record: identical bytes are dropped quietly (a retry), another record with the same sender and seq is refused as Replayed and holds the commit', async (t) => {
  const { client, broker, alice, bob, carol, sp } = await setup(t);
  await (await sp.send('r', null, enc.encode('once'), [bob.publicKey, carol.publicKey])).delivered;
  // The same batch again, byte for byte: what a producer's retry (or a broker serving it again) stores.
  const copy = /** @type {Array<{ batches: Uint8Array[] }>} */ (broker.topics.get('r'))[0].batches[0].slice();
  copy.fill(0, 1, 9); // base offset back to 0, as a producer sends it
  await client.produce('r', 0, 0, copy);
  // The same record with Carol's wrapped key changed: it still opens for Bob (his entry and the payload
  // are intact) under the same sender and seq, but it is not the record Bob was given.
  const [original] = (await client.fetch('r', 0, 0)).records();
  const altered = original.value.slice();
  const view = RecordView.parse(altered);
  const carolEntry = /** @type {import('../src/crypto/envelope.js').MultiBody} */ (view.body).entries.find((e) => e.kidBytes.every((x, i) => x === carol.kid().asBytes()[i]));
  /** @type {NonNullable<typeof carolEntry>} */ (carolEntry).wrapped[0] ^= 1;
  const b = new BatchBuilder();
  b.push(altered);
  await client.produce('r', 0, 0, b.finish());
  const c = await SealedConsumer.create(client, bob, [alice.publicKey], 'r', { group: 'bob.r', autoCommitMs: null });
  assert.equal(/** @type {OpenedRecord} */ (await c.next()).text(), 'once');
  const replayed = /** @type {any} */ (await c.next());
  assert.ok(!replayed.ok && replayed.openError.kind === 'Replayed' && replayed.offset === 2, String(replayed));
  assert.equal(c.duplicatesDropped, 1, 'the identical copy at offset 1 was skipped');
  await c.commit();
  assert.deepEqual(c.committed(), [[0, 2]], 'the Replayed record holds the commit; the duplicate does not');
  assert.ok(c.ack(0, 2));
  await c.commit();
  assert.deepEqual(c.committed(), [[0, 3]]);
});

test('group records go to every member but the sender, keys blinded with the group secret', async (t) => {
  const { client, alice, bob, carol, sp } = await setup(t);
  const group = await SealedGroup.generate([alice.publicKey, bob.publicKey, carol.publicKey]);
  const d = await sp.sendGroup('room', group, 'thread-7', enc.encode('hi all'));
  assert.equal(d.mode, 'multi');
  await d.delivered;
  for (const reader of [bob, carol]) {
    const c = await SealedConsumer.create(client, reader, [alice.publicKey], 'room');
    const r = /** @type {OpenedRecord} */ (await c.next());
    assert.equal(r.text(), 'hi all');
    const rebuilt = await BlindingKey.fromGroupSecret(group.key.groupSecretBytes());
    assert.deepEqual(r.key, (await rebuilt.blind('thread-7')).asBytes());
  }
  const own = await SealedConsumer.create(client, alice, [bob.publicKey], 'room');
  const echo = /** @type {SealedRecordErrorType} */ (await own.next());
  assert.ok(echo.isNotForMe() && echo.own === true);
});

test('seal errors are thrown and nothing is queued', async (t) => {
  const { alice, bob, sp, producer } = await setup(t);
  await assert.rejects(sp.send('x', null, enc.encode('me'), [alice.publicKey]), (/** @type {any} */ e) => e.kind === 'SelfRecipient');
  await assert.rejects(sp.send('x', null, enc.encode('none'), []), (/** @type {any} */ e) => e.kind === 'NoRecipients');
  await assert.rejects(sp.send('x', null, enc.encode('twice'), [bob.publicKey, bob.publicKey]), (/** @type {any} */ e) => e.kind === 'DuplicateRecipient');
  assert.equal(producer.bufferedBytes, 0);
  // A good send after failures still goes through.
  await (await sp.send('x', null, enc.encode('ok'), [bob.publicKey])).delivered;
});
