// Consumer logic against the in-memory stand-in; consumer-broker.test.mjs
// runs against the real broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Consumer } from '../src/client/consumer.js';
import { Ack } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { memoryBroker } from './helpers/fake-broker.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * @param {import('../src/client/connection.js').Client} client
 * @param {string} topic
 * @param {string[]} values
 */
async function produce(client, topic, values, partition = 0, key = new Uint8Array(0)) {
  const b = new BatchBuilder(key);
  for (const v of values) b.push(enc.encode(v));
  return client.produce(topic, partition, Ack.Written, b.finish());
}

/**
 * @param {import('node:test').TestContext} t
 * @param {Parameters<typeof memoryBroker>[0]} [opts]
 */
async function setup(t, opts) {
  const broker = await memoryBroker(opts);
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  return { broker, client };
}

test('reads from the earliest record across batches, with offsets, keys and timestamps', async (t) => {
  const { client } = await setup(t);
  await produce(client, 'c', ['a', 'b'], 0, enc.encode('k1'));
  await produce(client, 'c', ['c']);
  const c = await Consumer.create(client, 'c');
  const got = [];
  for (let i = 0; i < 3; i++) got.push(await c.next());
  assert.deepEqual(got.map((r) => [r.offset, dec.decode(r.value), dec.decode(r.key)]), [[0, 'a', 'k1'], [1, 'b', 'k1'], [2, 'c', '']]);
  assert.equal(typeof got[0].timestampNs, 'bigint');
  assert.equal(c.position(0), 3);
  await c.close();
});

test('next() long-polls: a record produced later arrives without refetch loops', async (t) => {
  const { client, broker } = await setup(t);
  await produce(client, 'lp', ['first']);
  const c = await Consumer.create(client, 'lp', { maxWaitMs: 10_000 });
  assert.equal(dec.decode((await c.next()).value), 'first');
  const waiting = c.next();
  const fetchesBefore = broker.stats.fetches;
  await produce(client, 'lp', ['second']);
  assert.equal(dec.decode((await waiting).value), 'second');
  assert.ok(broker.stats.fetches - fetchesBefore <= 2, `${broker.stats.fetches - fetchesBefore} fetches`);
  await c.close();
});

test('a batch starting before the position is skipped up to it; seek moves and drops prefetched data', async (t) => {
  const { client } = await setup(t);
  await produce(client, 's', ['0', '1', '2', '3', '4']);
  const c = await Consumer.create(client, 's', { start: { offset: 3 } });
  assert.equal((await c.next()).offset, 3);
  c.seek(0, 1);
  assert.deepEqual([(await c.next()).offset, (await c.next()).offset], [1, 2]);
  assert.throws(() => c.seek(9, 0), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  await c.close();
});

test('commit stores the position after the last returned record; a new consumer of the group resumes there', async (t) => {
  const { client, broker } = await setup(t);
  await produce(client, 'g', ['a', 'b', 'c']);
  const c = await Consumer.create(client, 'g', { group: 'grp', autoCommitMs: null });
  await c.next();
  await c.next();
  await c.commit();
  assert.equal(broker.commits.get('grp/g/0'), 2);
  assert.deepEqual(c.committed(), [[0, 2]]);
  await c.close();
  const again = await Consumer.create(client, 'g', { group: 'grp' });
  assert.equal(dec.decode((await again.next()).value), 'c');
  assert.deepEqual(again.committed(), [[0, 2]]);
  const noGroup = await Consumer.create(client, 'g');
  await assert.rejects(noGroup.commit(), (/** @type {any} */ e) => e.code === 'InvalidArgument');
});

test('auto-commit stores only finished records; close commits what was returned', async (t) => {
  const { client, broker } = await setup(t);
  await produce(client, 'ac', ['a', 'b', 'c']);
  const c = await Consumer.create(client, 'ac', { group: 'g2', autoCommitMs: 0 });
  await c.next(); // a returned, not finished
  assert.equal(broker.commits.get('g2/ac/0'), undefined);
  await c.next(); // a finished: the auto-commit before returning b stores 1
  assert.equal(broker.commits.get('g2/ac/0'), 1);
  await c.close(); // b returned: close commits 2
  assert.equal(broker.commits.get('g2/ac/0'), 2);
});

test('a corrupt batch is reported and never skipped until seek', async (t) => {
  const { client, broker } = await setup(t);
  await produce(client, 'bad', ['good']);
  await produce(client, 'bad', ['flipped']);
  await produce(client, 'bad', ['after']);
  const stored = /** @type {Array<{ batches: Uint8Array[] }>} */ (broker.topics.get('bad'))[0].batches[1];
  stored[stored.length - 1] ^= 1;
  const c = await Consumer.create(client, 'bad');
  assert.equal(dec.decode((await c.next()).value), 'good');
  await assert.rejects(c.next(), (/** @type {any} */ e) => e.code === 'CorruptBatch' && e.baseOffset === 1 && e.cause?.kind === 'CrcMismatch');
  await assert.rejects(c.next(), (/** @type {any} */ e) => e.code === 'CorruptBatch');
  assert.equal(c.position(0), 1);
  c.seek(0, 2);
  assert.equal(dec.decode((await c.next()).value), 'after');
});

test('OffsetOutOfRange follows the reset policy', async (t) => {
  const { client } = await setup(t);
  await produce(client, 'oor', ['x', 'y']);
  const latest = await Consumer.create(client, 'oor', { start: { offset: 50 }, reset: 'latest', maxWaitMs: 10_000 });
  const waiting = latest.next();
  await produce(client, 'oor', ['z']);
  assert.equal((await waiting).offset, 2);
  const early = await Consumer.create(client, 'oor', { start: { offset: 50 } });
  assert.equal((await early.next()).offset, 0);
  const strict = await Consumer.create(client, 'oor', { start: { offset: 50 }, reset: 'error' });
  await assert.rejects(strict.next(), (/** @type {any} */ e) => e.code === 'OffsetOutOfRange' && e.highWatermark === 3);
});

test('close() ends a waiting next() with Closed; a lost connection is reported', async (t) => {
  const { client } = await setup(t);
  const c = await Consumer.create(client, 'idle', { maxWaitMs: 10_000 });
  const waiting = assert.rejects(c.next(), (/** @type {any} */ e) => e.code === 'Closed');
  await c.close();
  await waiting;
  const d = await Consumer.create(client, 'idle', { maxWaitMs: 10_000 });
  const lost = assert.rejects(d.next(), (/** @type {any} */ e) => e.code === 'Closed' || e.code === 'ConnectionLost');
  await client.close();
  await lost;
});
