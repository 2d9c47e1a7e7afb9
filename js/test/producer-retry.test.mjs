// The producer's retries (client/producer.js) on the in-memory stand-in
// (helpers/fake-broker.mjs), which can hold a produce unanswered and drop
// the connection exactly there: a batch whose connection died is resent
// byte for byte, in its partition's order, before later batches; one that
// a later batch of its partition was written past is reported instead;
// records the producer gives up on (delivery timeout, the client closed)
// are reported. The real broker killed under a producer is in
// reconnect-kill-broker.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Producer } from '../src/client/producer.js';
import { memoryBroker } from './helpers/fake-broker.mjs';
import { Op } from '../src/protocol/frame.js';
import { parseBatch, records } from '../src/protocol/record.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const FAST = { initialDelayMs: 1, maxDelayMs: 5 };

/** @typedef {import('./helpers/fake-broker.mjs').FakeRequest} FakeRequest */
/** @typedef {import('./helpers/fake-broker.mjs').Socket} Socket */

/**
 * The stored records of a topic's partition 0, as text.
 * @param {Awaited<ReturnType<typeof memoryBroker>>} broker
 * @param {string} topic
 */
function stored(broker, topic) {
  return (broker.topics.get(topic)?.[0].batches ?? []).flatMap((bytes) => {
    const b = parseBatch(bytes);
    return [...records(b.payload, b.header.recordCount)].map((r) => dec.decode(r));
  });
}

test('a batch whose connection died is resent byte for byte on the next one, in its partition order, before the batches queued meanwhile', { timeout: 20000 }, async (t) => {
  /** @type {Array<{ conn: number, body: Uint8Array }>} */
  const produced = [];
  /** @type {Array<[FakeRequest, Socket]>} */
  const held = [];
  const broker = await memoryBroker({
    hold: (req, ws) => {
      if (req.op !== Op.Produce) return false;
      const conn = [...broker.sockets].indexOf(ws);
      produced.push({ conn, body: req.body.slice() });
      if (conn > 0) return false;
      held.push([req, ws]);
      return true;
    },
  });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: FAST });
  t.after(() => client.close());
  const producer = new Producer(client, { lingerMs: 0, batchRecords: 1 });
  const d1 = await producer.send('x', null, enc.encode('one'));
  const d2 = await producer.send('x', null, enc.encode('two'));
  while (held.length < 2) await new Promise((r) => setImmediate(r));
  const back = new Promise((resolve) => client.onStateChange((c) => c.state === 'disconnected' && resolve(undefined)));
  held[0][1].terminate();
  await back;
  // Sent while the client reconnects: it waits behind the resent ones.
  const d3 = await producer.send('x', null, enc.encode('three'));
  assert.deepEqual(await Promise.all([d1, d2, d3].map((d) => d.delivered)), [0, 1, 2].map((offset) => ({ partition: 0, offset })));
  assert.deepEqual(stored(broker, 'x'), ['one', 'two', 'three']);
  const first = produced.filter((p) => p.conn === 0);
  const again = produced.filter((p) => p.conn === 1);
  assert.equal(again.length, 3);
  assert.deepEqual(again[0].body, first[0].body, 'the same bytes: records, timestamp, CRC');
  assert.deepEqual(again[1].body, first[1].body);
  assert.equal(producer.bufferedBytes, 0);
});

test('a failed batch is not resent past a later batch of its partition that was written: its records are reported', { timeout: 20000 }, async (t) => {
  let produces = 0;
  /** @type {Array<[FakeRequest, Socket]>} */
  const held = [];
  const broker = await memoryBroker({ hold: (req, ws) => req.op === Op.Produce && ++produces === 1 && (held.push([req, ws]), true) });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: FAST });
  t.after(() => client.close());
  const producer = new Producer(client, { lingerMs: 0, batchRecords: 1 });
  const d1 = await producer.send('x', null, enc.encode('first, never answered'));
  const d2 = await producer.send('x', null, enc.encode('second, written'));
  assert.deepEqual(await d2.delivered, { partition: 0, offset: 0 });
  held[0][1].terminate();
  await assert.rejects(d1.delivered, (/** @type {any} */ e) => e.code === 'ConnectionLost' && e.retriable && /not resent: a later batch of x\/0 was written already/.test(e.message));
  await producer.flush();
  assert.equal(produces, 2, 'never resent');
  assert.deepEqual(stored(broker, 'x'), ['second, written']);
});

test('records the producer gives up on are reported: past deliveryTimeoutMs without a connection, and when the client is closed', { timeout: 20000 }, async (t) => {
  let produces = 0;
  const broker = await memoryBroker({ hold: (req) => req.op === Op.Produce && ++produces > 0 });
  const client = await connect(broker.url, { reconnect: FAST });
  const producer = new Producer(client, { lingerMs: 0, deliveryTimeoutMs: 150 });
  const inFlight = await producer.send('x', null, enc.encode('on the wire when the broker went away'));
  const gone = new Promise((resolve) => client.onStateChange((c) => c.state === 'disconnected' && resolve(undefined)));
  while (produces === 0) await new Promise((r) => setImmediate(r));
  await broker.close();
  await gone;
  const queued = await producer.send('x', null, enc.encode('sent while there is no broker'));
  const t0 = Date.now();
  await assert.rejects(inFlight.delivered, (/** @type {any} */ e) => e.code === 'ConnectionLost');
  await assert.rejects(queued.delivered, (/** @type {any} */ e) => e.code === 'Timeout' && /delivery timed out after 150 ms/.test(e.message));
  // A topic not seen before: its metadata waits no longer than a record would.
  await assert.rejects(producer.send('y', null, enc.encode('to a new topic')), (/** @type {any} */ e) => e.code === 'Timeout' && /metadata of y/.test(e.message));
  assert.ok(Date.now() - t0 < 2000);
  await producer.flush();
  assert.equal(producer.bufferedBytes, 0);

  // No timeout: the record waits for the broker — until the client is closed.
  const patient = new Producer(client, { lingerMs: 0, deliveryTimeoutMs: Infinity });
  const sending = patient.send('x', null, enc.encode('waits'));
  await client.close();
  await assert.rejects((await sending).delivered, (/** @type {any} */ e) => e.code === 'Closed');
  await patient.close();
  t.diagnostic('given up: reported with ConnectionLost, Timeout and Closed');
});
