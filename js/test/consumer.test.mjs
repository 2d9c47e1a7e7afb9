// Consumer logic against the in-memory stand-in; consumer-broker.test.mjs
// runs against the real broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Consumer } from '../src/client/consumer.js';
import { Ack, Op, encodeResponse } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { BrokerFlags } from '../src/protocol/hello.js';
import { fakeBroker, memoryBroker, parseFetch } from './helpers/fake-broker.mjs';

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

// A timeout: a client that sends the part to a broker without the flag
// reconnects and resends forever.
test('min bytes goes only to a broker that announced it: streaming after records, plain after an empty answer or a seek', { timeout: 20_000 }, async (t) => {
  for (const announced of [false, true]) {
    /** @type {Array<ReturnType<typeof parseFetch>>} */
    const fetches = [];
    /** @type {() => void} */
    let thirdFetch = () => {};
    const threeFetches = new Promise((resolve) => { thirdFetch = () => resolve(undefined); });
    const hold = (/** @type {import('./helpers/fake-broker.mjs').FakeRequest} */ req) => {
      if (req.op === Op.Fetch && fetches.push(parseFetch(req.body)) === 3) thirdFetch();
      return false;
    };
    const broker = await memoryBroker({ flags: announced ? BrokerFlags.FETCH_MIN_BYTES : 0, hold });
    t.after(() => broker.close());
    const client = await connect(broker.url);
    t.after(() => client.close());
    await produce(client, 'mb', ['a', 'b', 'c']);
    const c = await Consumer.create(client, 'mb', { maxWaitMs: 50, streamMinBytes: 4096, streamMinWaitMs: 3 });
    for (let i = 0; i < 3; i++) assert.equal((await c.next()).offset, i);
    // The first fetch (nothing read yet), the one after the records
    // (streaming), the one after its empty answer (at maxWaitMs).
    const waiting = c.next();
    await threeFetches;
    const seen = fetches.slice(0, 3).map((f) => [f.minBytes, f.minWaitMs, f.trailing]);
    const streaming = announced ? [4096, 3, true] : [1, 0, false];
    assert.deepEqual(seen, [[1, 0, false], streaming, [1, 0, false]], `announced: ${announced}`);
    // The connection stayed up: nothing was refused.
    await produce(client, 'mb', ['d']);
    assert.equal((await waiting).offset, 3);
    // That answer carried records, but a seek starts plain again.
    c.seek(0, 0);
    assert.equal((await c.next()).offset, 0);
    const afterSeek = fetches.filter((f) => f.offset === 0).at(-1);
    assert.deepEqual([afterSeek?.minBytes, afterSeek?.trailing], [1, false], 'the fetch after a seek');
    assert.ok(fetches.filter((f) => f.offset === 0).length >= 2);
    assert.equal(client.connectionsOpened, 1);
    await c.close();
  }
});

test('a fetch in flight loses its min bytes part when the reconnect reaches a broker without the flag', { timeout: 20_000 }, async (t) => {
  /** @type {Array<ReturnType<typeof parseFetch>>} */
  const fetches = [];
  /** @type {{ flags: number, onRequest: (req: any, ws: any) => void }} */
  const behaviour = {
    flags: BrokerFlags.FETCH_MIN_BYTES,
    onRequest: (req, ws) => {
      if (req.op !== Op.Fetch) return ws.send(encodeResponse(req.correlationId, req.op, { body: {} }));
      const f = parseFetch(req.body);
      fetches.push(f);
      // The first connection dies with the fetch in flight; an older
      // broker refuses the longer body.
      if (fetches.length === 1 || (f.trailing && (behaviour.flags & BrokerFlags.FETCH_MIN_BYTES) === 0)) return ws.terminate();
      ws.send(encodeResponse(req.correlationId, req.op, { body: { highWatermark: 0, logStart: 0, records: new Uint8Array(0) } }));
    },
  };
  const broker = await fakeBroker(behaviour);
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: { initialDelayMs: 1, maxDelayMs: 5, stableAfterMs: 0 } });
  t.after(() => client.close());
  // The next connection's broker is an older one.
  client.onStateChange((change) => { if (change.state === 'disconnected') behaviour.flags = 0; });
  const answer = client.fetchWith('t', 0, 0, { maxWaitMs: 100, minBytes: 4096, minWaitMs: 7 });
  const r = await answer;
  assert.equal(r.highWatermark, 0);
  assert.deepEqual(fetches.map((f) => [f.minBytes, f.minWaitMs, f.trailing]), [[4096, 7, true], [1, 0, false]]);
  assert.equal(client.connectionsOpened, 2);
});
