// The consumer's long polls, group offsets and restarts against a real broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Consumer } from '../src/client/consumer.js';
import { Producer } from '../src/client/producer.js';
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
