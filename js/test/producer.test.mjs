// Producer logic against the in-memory stand-in (timing under control);
// producer-broker.test.mjs runs round trips through the real broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Producer } from '../src/client/producer.js';
import { fnv1a32, partitionForKey } from '../src/client/partitioner.js';
import { Ack } from '../src/protocol/frame.js';
import { BatchBuilder, parseBatch, records } from '../src/protocol/record.js';
import { memoryBroker } from './helpers/fake-broker.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

test('fnv1a32 matches the reference vectors and the Rust partitioner', () => {
  assert.equal(fnv1a32(enc.encode('')), 0x811c9dc5);
  assert.equal(fnv1a32(enc.encode('a')), 0xe40c292c);
  assert.equal(fnv1a32(enc.encode('foobar')), 0xbf9cf968);
  assert.equal(partitionForKey(enc.encode('x'), 0), 0);
  assert.equal(partitionForKey(enc.encode('foobar'), 7), 0xbf9cf968 % 7);
});

test('records batch by size and count, lingering ones go after lingerMs, offsets per record', async (t) => {
  const broker = await memoryBroker();
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const p = new Producer(client, { batchRecords: 10, lingerMs: 20, ack: Ack.Written });
  const deliveries = [];
  for (let i = 0; i < 25; i++) deliveries.push(await p.send('t', null, enc.encode(`r${i}`)));
  const done = await Promise.all(deliveries.map((d) => d.delivered));
  assert.deepEqual(done.map((d) => d.offset), [...Array(25).keys()]);
  assert.ok(done.every((d) => d.partition === 0));
  const stored = /** @type {Array<{ batches: Uint8Array[] }>} */ (broker.topics.get('t'))[0].batches.map((b) => parseBatch(b).header.recordCount);
  assert.deepEqual(stored, [10, 10, 5]);
  const values = /** @type {Array<{ batches: Uint8Array[] }>} */ (broker.topics.get('t'))[0].batches.flatMap((b) => { const v = parseBatch(b); return [...records(v.payload, v.header.recordCount)].map((r) => dec.decode(r)); });
  assert.deepEqual(values, deliveries.map((_, i) => `r${i}`));
  assert.deepEqual(deliveries[24].tryResult(), { ok: true, value: { partition: 0, offset: 24 } });
  assert.equal(p.bufferedBytes, 0);
});

test('keyed records go to their key’s partition in one batch per key; keyless round robin per batch', async (t) => {
  const broker = await memoryBroker({ partitions: 4 });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  // The topic exists with 4 partitions.
  const seed = new BatchBuilder();
  seed.push(enc.encode('seed'));
  await client.produce('k', 3, Ack.Written, seed.finish());
  const p = new Producer(client, { lingerMs: 1000, batchRecords: 3 });
  const a = [], b = [];
  for (let i = 0; i < 3; i++) {
    a.push(await p.send('k', enc.encode('alpha'), enc.encode(`a${i}`)));
    b.push(await p.send('k', enc.encode('beta'), enc.encode(`b${i}`)));
  }
  for (const d of a) assert.equal(d.partition, partitionForKey(enc.encode('alpha'), 4));
  for (const d of b) assert.equal(d.partition, partitionForKey(enc.encode('beta'), 4));
  await Promise.all([...a, ...b].map((d) => d.delivered));
  const keyless = [];
  for (let i = 0; i < 9; i++) keyless.push(await p.send('k', null, enc.encode(`n${i}`)));
  await p.flush();
  // One batch (3 records) per partition, then the next partition; the first is random.
  const first = keyless[0].partition;
  assert.deepEqual(keyless.map((d) => d.partition), [0, 0, 0, 1, 1, 1, 2, 2, 2].map((i) => (first + i) % 4));
});

test('flush sends lingering batches at once and waits for their acks', async (t) => {
  const broker = await memoryBroker();
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const p = new Producer(client, { lingerMs: 60_000 });
  const d = await p.send('f', enc.encode('key'), enc.encode('v'));
  assert.equal(d.tryResult(), null);
  await p.flush();
  assert.deepEqual(d.tryResult(), { ok: true, value: { partition: 0, offset: 0 } });
  await p.close();
  await assert.rejects(p.send('f', null, enc.encode('late')), (/** @type {any} */ e) => e.code === 'Closed');
});

test('a full buffer makes send wait until acks free space; many batches in flight', async (t) => {
  /** @type {Array<[import('./helpers/fake-broker.mjs').FakeRequest, import('./helpers/fake-broker.mjs').Socket]>} */
  const held = [];
  const broker = await memoryBroker({ hold: (req, ws) => req.op === 1 && (held.push([req, ws]), true) });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  // Each batch holds one 50-byte record: 33 + 4 + 50 = 87 bytes, so two fit in 200.
  const p = new Producer(client, { lingerMs: 0, batchRecords: 1, bufferBytes: 200, maxInFlight: 64 });
  const value = new Uint8Array(50);
  /** @type {number[]} */
  const queued = [];
  const sends = [];
  for (let i = 0; i < 6; i++) sends.push(p.send('b', null, value).then((d) => (queued.push(i), d)));
  while (held.length < 2) await new Promise((r) => setImmediate(r));
  assert.deepEqual(queued, [0, 1]);
  assert.equal(p.bufferedBytes, 174);
  // Both batches are in flight at once; acking them lets the next sends in.
  for (const [req, ws] of held.splice(0)) broker.handle(req, ws);
  while (held.length < 4 - 2) await new Promise((r) => setImmediate(r));
  assert.deepEqual(queued, [0, 1, 2, 3]);
  for (;;) {
    for (const [req, ws] of held.splice(0)) broker.handle(req, ws);
    if (queued.length === 6 && /** @type {number} */ (p.bufferedBytes) === 0) break;
    await new Promise((r) => setImmediate(r));
  }
  const delivered = await Promise.all((await Promise.all(sends)).map((d) => d.delivered));
  assert.deepEqual(delivered.map((d) => d.offset), [...Array(6).keys()]);
});

test('a batch without an answer fails every record of it; the dead connection fails later sends', async (t) => {
  const broker = await memoryBroker({ hold: (req) => req.op === 1 });
  t.after(() => broker.close());
  // One connection: a reconnecting client's producer resends (producer-retry-broker.test.mjs).
  const client = await connect(broker.url, { timeoutMs: 100, reconnect: false });
  const p = new Producer(client, { lingerMs: 0 });
  const d = await p.send('x', null, enc.encode('never acked'));
  await assert.rejects(d.delivered, (/** @type {any} */ e) => e.code === 'Timeout');
  assert.equal(/** @type {any} */ (d.tryResult()).ok, false);
  // Another record after the connection died fails too, and nothing is left buffered.
  const later = await p.send('y', null, enc.encode('z'));
  await assert.rejects(later.delivered, (/** @type {any} */ e) => e.code === 'ConnectionLost' && /timed out/.test(e.message));
  assert.equal(p.bufferedBytes, 0);
});

test('a batch the broker refuses fails each of its records with the broker status', async (t) => {
  const broker = await memoryBroker({ hold: (req, ws) => req.op === 1 && (broker.answer(ws, req, { error: { status: 'Unauthorized', message: 'not authorized to produce x as anonymous' } }), true) });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const p = new Producer(client, { lingerMs: 0 });
  const d = [await p.send('x', null, enc.encode('1')), await p.send('x', null, enc.encode('2'))];
  for (const x of d) await assert.rejects(x.delivered, (/** @type {any} */ e) => e.status === 'Unauthorized' && e.message === 'not authorized to produce x as anonymous');
  await client.ping(); // the connection stays open
});
