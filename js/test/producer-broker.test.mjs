// Producer → Consumer through a real broker over WebSocket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Consumer } from '../src/client/consumer.js';
import { Producer } from '../src/client/producer.js';
import { partitionForKey } from '../src/client/partitioner.js';
import { Ack } from '../src/protocol/frame.js';
import { startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

test('10 000 records in batches, many in flight, read back in order per key and committed', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  await client.createTopic('bulk', { partitions: 3 });
  const p = new Producer(client, { lingerMs: 2, batchRecords: 200, ack: Ack.Durable });
  const deliveries = [];
  for (let i = 0; i < 10_000; i++) deliveries.push(await p.send('bulk', enc.encode(`key-${i % 7}`), enc.encode(`value-${i}`)));
  await p.flush();
  const done = await Promise.all(deliveries.map((d) => d.delivered));
  for (let i = 0; i < done.length; i++) assert.equal(done[i].partition, partitionForKey(enc.encode(`key-${i % 7}`), 3));
  const meta = (await client.metadata('bulk'))[0];
  assert.equal(meta.partitions.reduce((n, x) => n + x.highWatermark, 0), 10_000);

  const c = await Consumer.create(client, 'bulk', { group: 'g', autoCommitMs: null, maxWaitMs: 100 });
  const perKey = new Map();
  for (let n = 0; n < 10_000; n++) {
    const r = await c.next();
    const k = dec.decode(r.key);
    const i = Number(dec.decode(r.value).slice(6));
    const last = perKey.get(k) ?? -1;
    assert.ok(i > last, `${k}: ${i} after ${last}`);
    perKey.set(k, i);
  }
  await c.commit();
  for (const [partition, offset] of c.committed()) {
    assert.equal(await client.committed('g', 'bulk', partition), offset);
    assert.equal(offset, meta.partitions[partition].highWatermark);
  }
});

test('a record too large for the WebSocket frame limit fails alone; others go through', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const p = new Producer(client, { lingerMs: 1 });
  const big = await p.send('lim', null, new Uint8Array(client.maxFrame + 1));
  const small = await p.send('lim', null, enc.encode('fine'));
  await assert.rejects(big.delivered, (/** @type {any} */ e) => e.code === 'RequestTooLarge');
  assert.equal((await small.delivered).offset, 0);
});

test('ack = durable against fsync = never is refused with NotDurable; written works', async (t) => {
  const broker = await startBroker({ args: ['--fsync', 'never'] });
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const durable = new Producer(client, { lingerMs: 0 });
  await assert.rejects((await durable.send('nd', null, enc.encode('x'))).delivered, (/** @type {any} */ e) => e.status === 'NotDurable');
  const written = new Producer(client, { lingerMs: 0, ack: 'written' });
  assert.equal((await (await written.send('nd', null, enc.encode('y'))).delivered).offset, 0);
});
