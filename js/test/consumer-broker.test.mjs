// The consumer's long polls, group offsets and restarts against a real broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Consumer } from '../src/client/consumer.js';
import { Producer } from '../src/client/producer.js';
import { BrokerFlags } from '../src/protocol/hello.js';
import { startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

test('a consumer waiting at the end gets records produced later; a restarted group member resumes after its commit', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const p = new Producer(client, { lingerMs: 0 });
  await (await p.send('events', null, enc.encode('one'))).delivered;
  const c = await Consumer.create(client, 'events', { group: 'readers', maxWaitMs: 20_000, autoCommitMs: null });
  assert.equal(dec.decode((await c.next()).value), 'one');
  const waiting = c.next();
  await p.send('events', null, enc.encode('two'));
  assert.equal(dec.decode((await waiting).value), 'two');
  await c.commit();
  await c.close();
  await p.send('events', null, enc.encode('three'));
  await p.flush();
  const again = await Consumer.create(client, 'events', { group: 'readers' });
  assert.equal(dec.decode((await again.next()).value), 'three');
  const latest = await Consumer.create(client, 'events', { start: 'latest', maxWaitMs: 20_000 });
  const next = latest.next();
  await p.send('events', null, enc.encode('four'));
  assert.equal(dec.decode((await next).value), 'four');
  const seeker = await Consumer.create(client, 'events', { start: 'earliest' });
  seeker.seek(0, 2);
  assert.equal(dec.decode((await seeker.next()).value), 'three');
});

test('a streaming fetch is held by the broker until streamMinBytes are there: the records come in one answer', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  assert.equal(client.brokerFlags & BrokerFlags.FETCH_MIN_BYTES, BrokerFlags.FETCH_MIN_BYTES);
  const p = new Producer(client, { lingerMs: 0 });
  await (await p.send('stream', null, enc.encode('one'))).delivered;
  // Held up to a minute once data is there: only enough bytes answer it
  // within the 20 s this test waits.
  const c = await Consumer.create(client, 'stream', { maxWaitMs: 60_000, streamMinBytes: 2048, streamMinWaitMs: 60_000 });
  t.after(() => c.close());
  assert.equal(dec.decode((await c.next()).value), 'one');
  // The next fetch streams (the answer carried records): a small record
  // does not answer it…
  const waiting = c.next();
  await (await p.send('stream', null, enc.encode('two'))).delivered;
  // …enough bytes do, and both records come in that one answer. (The
  // second append moves the new partition out of its slot: the broker
  // must still count the bytes that arrived.)
  await (await p.send('stream', null, new Uint8Array(4096).fill(7))).delivered;
  /** @type {any} */
  let timer;
  const bound = new Promise((resolve) => { timer = setTimeout(() => resolve(null), 20_000); });
  const two = await Promise.race([waiting, bound]);
  clearTimeout(timer);
  assert.ok(two, 'not answered when enough bytes were there');
  assert.equal(dec.decode(two.value), 'two');
  const big = c.tryNext();
  assert.equal(big?.value.length, 4096, 'the big record came in the same answer as the small one');
  assert.equal(await broker.counter('hermit_fetches_held_filled_total'), 1);
  assert.equal(await broker.counter('hermit_fetches_held_expired_total'), 0);
});
