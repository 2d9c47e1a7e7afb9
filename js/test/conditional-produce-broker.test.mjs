// Client.conditionalProduce against a real `hermit broker` over WebSocket
// (helpers/broker.mjs; build it with `cargo build -p hermit-cli`): the race
// (exactly one of ten connections wins each round), what a late producer
// learns, and a refusal that is not an outcome.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Ack } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** @param {...string} values one batch of them */
function batch(...values) {
  const b = new BatchBuilder();
  for (const v of values) b.push(enc.encode(v));
  return b.finish();
}

/**
 * Every record of `topic/0` from offset 0 up to the high watermark.
 * @param {import('../src/client/connection.js').Client} client
 * @param {string} topic
 */
async function readAll(client, topic) {
  /** @type {Array<[number, string]>} */
  const out = [];
  for (;;) {
    const r = await client.fetch(topic, 0, out.length);
    for (const rec of r.records(out.length)) out.push([rec.offset, dec.decode(rec.value)]);
    if (out.length >= r.highWatermark) return { records: out, highWatermark: r.highWatermark };
  }
}

test('10 connections race for each of 200 offsets: exactly one wins, the others learn the end, the log has no gap or duplicate', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const clients = await Promise.all(Array.from({ length: 10 }, () => connect(broker.url)));
  t.after(() => Promise.all(clients.map((c) => c.close())));
  await clients[0].createTopic('race');
  const rounds = 200;
  /** @type {number[]} */
  const winners = [];
  for (let round = 0; round < rounds; round++) {
    const outcomes = await Promise.all(clients.map((c, i) => c.conditionalProduce('race', 0, round, batch(`${round},${i}`))));
    const won = outcomes.flatMap((o, i) => (o.outcome === 'appended' ? [i] : []));
    assert.equal(won.length, 1, `round ${round}: ${won.length} winners`);
    for (const [i, o] of outcomes.entries()) {
      if (o.outcome === 'appended') assert.equal(o.baseOffset, round, `round ${round}: appended elsewhere`);
      else assert.equal(o.end, round + 1, `round ${round}: client ${i} was told a wrong end`);
    }
    winners.push(won[0]);
  }
  // One record per round, the winner's, at offsets 0..rounds.
  const { records, highWatermark } = await readAll(clients[0], 'race');
  assert.equal(highWatermark, rounds, 'more records than rounds');
  assert.deepEqual(records, winners.map((w, round) => [round, `${round},${w}`]));
});

test('a stale or early expected end is told the end and appends nothing; a batch of three moves the end by three', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  // An auto-created partition starts empty: expecting 0 appends.
  assert.deepEqual(await client.conditionalProduce('cas', 0, 0, batch('a')), { outcome: 'appended', baseOffset: 0 });
  assert.equal(await client.produce('cas', 0, Ack.Durable, batch('b')), 1);
  for (const stale of [0, 1, 5]) {
    assert.deepEqual(await client.conditionalProduce('cas', 0, stale, batch('x'), { ack: Ack.Written }), { outcome: 'endMoved', end: 2 }, `expecting ${stale}`);
  }
  assert.equal((await client.metadata('cas'))[0].partitions[0].highWatermark, 2);
  assert.deepEqual(await client.conditionalProduce('cas', 0, 2, batch('1', '2', '3')), { outcome: 'appended', baseOffset: 2 });
  assert.deepEqual(await client.conditionalProduce('cas', 0, 2, batch('y')), { outcome: 'endMoved', end: 5 });
  assert.deepEqual((await readAll(client, 'cas')).records, [[0, 'a'], [1, 'b'], [2, '1'], [3, '2'], [4, '3']]);
});

test('a refusal that is not an outcome rejects: a durable ack from a broker that never fsyncs', async (t) => {
  const broker = await startBroker({ args: ['--fsync', 'never'] });
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  await assert.rejects(client.conditionalProduce('nd', 0, 0, batch('z')), (/** @type {any} */ e) => e.code === 'Broker' && e.status === 'NotDurable');
  // Written is fine there, and the refused one left nothing behind.
  assert.deepEqual(await client.conditionalProduce('nd', 0, 0, batch('w'), { ack: 'written' }), { outcome: 'appended', baseOffset: 0 });
  assert.deepEqual((await readAll(client, 'nd')).records, [[0, 'w']]);
});
