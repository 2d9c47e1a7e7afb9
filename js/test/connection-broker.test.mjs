// The connection against a real `hermit broker` over WebSocket
// (helpers/broker.mjs; build it with `cargo build -p hermit-cli`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Ack, Cleanup } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { U64_MAX } from '../src/protocol/codec.js';
import { INBOX_POLICY, startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** @param {string[]} values */
function batch(values, key = '') {
  const b = new BatchBuilder(enc.encode(key));
  for (const v of values) b.push(enc.encode(v));
  return b.finish();
}


test('anonymous broker: every operation round-trips over WebSocket', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  assert.equal(client.principal, null);
  assert.ok(client.maxFrame > 0 && client.maxFrame <= 1 << 20, `maxFrame ${client.maxFrame}`);
  assert.ok((await client.ping()) >= 0);
  await client.createTopic('rt', { partitions: 2, cleanup: Cleanup.Delete, retentionMs: U64_MAX });
  await assert.rejects(client.createTopic('rt'), (/** @type {any} */ e) => e.status === 'TopicExists');
  const [meta] = await client.metadata('rt');
  assert.equal(meta.name, 'rt');
  assert.equal(meta.partitions.length, 2);
  assert.equal(meta.retentionMs, U64_MAX);
  assert.equal(await client.produce('rt', 1, Ack.Durable, batch(['a', 'b'], 'k')), 0);
  assert.equal(await client.produce('rt', 1, Ack.Durable, batch(['c'])), 2);
  const f = await client.fetch('rt', 1, 1, 1 << 20, 0);
  assert.equal(f.highWatermark, 3);
  assert.deepEqual([...f.records(1)].map((r) => [r.offset, dec.decode(r.value)]), [[1, 'b'], [2, 'c']]);
  assert.equal(dec.decode([...f.records()][0].key), 'k');
  assert.equal(await client.committed('g', 'rt', 1), null);
  await client.commit('g', 'rt', 1, 2);
  assert.equal(await client.committed('g', 'rt', 1), 2);
  await assert.rejects(client.commit('g', 'rt', 1, 99), (/** @type {any} */ e) => e.status === 'OffsetAheadOfLog');
  await assert.rejects(client.fetch('rt', 1, 50), (/** @type {any} */ e) => e.code === 'OffsetOutOfRange' && e.highWatermark === 3 && e.logStart === 0);
  await assert.rejects(client.fetch('rt', 7, 0), (/** @type {any} */ e) => e.status === 'UnknownPartition');
  await client.deleteTopic('rt');
  await assert.rejects(client.metadata('rt'), (/** @type {any} */ e) => e.status === 'UnknownTopic');
  // Refusals left the connection open.
  await client.ping();
});

test('pipelining: many requests in flight on one connection; produces get offsets in request order', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url, { maxInFlight: 64 });
  t.after(() => client.close());
  const produces = [];
  for (let i = 0; i < 200; i++) produces.push(client.produce('pipe', 0, Ack.Written, batch([`r${i}`])));
  const pings = Array.from({ length: 50 }, () => client.ping());
  const offsets = await Promise.all(produces);
  await Promise.all(pings);
  assert.deepEqual(offsets, [...Array(200).keys()]);
});

test('a long-poll fetch waits for data and answers as soon as it is produced, without holding back other requests', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const reader = await connect(broker.url);
  const writer = await connect(broker.url);
  t.after(() => Promise.all([reader.close(), writer.close()]));
  // Durable: under fsync = always the high watermark is the durable end.
  await writer.produce('lp', 0, Ack.Durable, batch(['first']));
  const started = performance.now();
  const poll = reader.fetch('lp', 0, 1, 1 << 20, 20_000);
  // Other requests on the same connection are answered meanwhile.
  await reader.ping();
  await writer.produce('lp', 0, Ack.Durable, batch(['second']));
  const f = await poll;
  assert.ok(performance.now() - started < 15_000);
  assert.deepEqual([...f.records(1)].map((r) => dec.decode(r.value)), ['second']);
  // An empty long poll times out with zero bytes.
  const empty = await reader.fetch('lp', 0, 2, 1 << 20, 50);
  assert.equal(empty.batches.length, 0);
  assert.equal(empty.nextOffset(), null);
});

test('auth = "required": AuthRequired without an identity, the principal with one, Unauthorized where the ACL denies and nothing reaches the log', async (t) => {
  const broker = await startBroker({ config: INBOX_POLICY });
  t.after(() => broker.stop());
  await assert.rejects(connect(broker.url), (/** @type {any} */ e) => e.code === 'AuthRequired' && e.isAuth);
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const a = await connect(broker.url, { identity: alice });
  const b = await connect(broker.url, { identity: bob });
  t.after(() => Promise.all([a.close(), b.close()]));
  assert.equal(a.principalHex, alice.fingerprint().toHex());
  const bobInbox = `inbox.${bob.fingerprint().toHex()}`;
  // Alice may write to Bob's inbox…
  assert.equal(await a.produce(bobInbox, 0, Ack.Durable, batch(['for bob'])), 0);
  // …but not read it, describe it or commit in it.
  await assert.rejects(a.fetch(bobInbox, 0, 0), (/** @type {any} */ e) => e.status === 'Unauthorized' && e.message.includes(`consume ${bobInbox}`) && e.message.includes(alice.fingerprint().toHex()));
  await assert.rejects(a.metadata(bobInbox), (/** @type {any} */ e) => e.status === 'Unauthorized');
  // Outside inbox.*: refused, and the record is stored nowhere.
  await assert.rejects(a.produce('elsewhere', 0, Ack.Durable, batch(['secret-outside-the-acl'])), (/** @type {any} */ e) => e.isAuth && !e.retriable);
  assert.equal(await broker.dataContains('secret-outside-the-acl'), false);
  // Bob reads his own inbox.
  const f = await b.fetch(bobInbox, 0, 0);
  assert.deepEqual([...f.records()].map((r) => dec.decode(r.value)), ['for bob']);
  await b.commit(`${bob.fingerprint().toHex()}.chat`, bobInbox, 0, 1);
  // The connection stayed open through the refusals.
  await a.ping();
});

test('a broker shutting down mid-request: the long poll is drained, then the connection ends with a clear error', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  // One connection: what a reconnecting client does instead is in reconnect-broker.test.mjs.
  const client = await connect(broker.url, { reconnect: false });
  await client.produce('bye', 0, Ack.Durable, batch(['x']));
  const poll = client.fetch('bye', 0, 1, 1 << 20, 30_000).then(
    (f) => ({ f }),
    (e) => ({ e }),
  );
  const closed = client.closed;
  await broker.stop();
  // A graceful shutdown answers what it holds (an empty long poll) or fails it; it never hangs.
  const r = /** @type {{ f?: import('../src/client/records.js').FetchResponse, e?: any }} */ (await poll);
  if (r.f) assert.equal(r.f.batches.length, 0);
  else assert.ok(r.e.code === 'ConnectionLost' && r.e.retriable, String(r.e));
  const { code } = await closed;
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'ConnectionLost' && e.retriable && (/ShuttingDown/.test(e.message) || e.message.includes(`code ${code}`)));
});

test('client.close() mid-request rejects the pending fetch with Closed', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  const poll = assert.rejects(client.fetch('idle', 0, 0, 1 << 20, 30_000), (/** @type {any} */ e) => e.code === 'Closed');
  await client.close();
  await poll;
});
