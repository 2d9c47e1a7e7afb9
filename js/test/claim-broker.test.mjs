// Client.claim against a real `hermit broker` over WebSocket
// (helpers/broker.mjs; build it with `cargo build -p hermit-cli`): every
// batch handed to exactly one of many concurrent claimers, then nothing
// left; a retry with the same claim id gets the same batch. Each claimer is
// its own principal on its own connection (claim ids and rates are a
// principal's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { ClaimId } from '../src/client/outcome.js';
import { Identity } from '../src/crypto/identity.js';
import { Ack } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

const CONFIG = `
auth = "required"
[[acl]]
principal = "*"
topics = "jobs.*"
allow = ["produce", "create", "describe", "claim"]
`;

/**
 * Produce `n` batches of one record each (`job-<offset>`), durably: a
 * claim hands out durable batches only.
 * @param {import('../src/client/connection.js').Client} client
 * @param {string} topic
 * @param {number} n
 */
async function produceJobs(client, topic, n) {
  for (let i = 0; i < n; i++) {
    const b = new BatchBuilder();
    b.push(enc.encode(`job-${i}`));
    assert.equal(await client.produce(topic, 0, Ack.Durable, b.finish()), i);
  }
}

/**
 * Claim with `id`, asking again with the same id while the broker says the
 * claimer's rate is spent (what a claimer is told to do).
 * @param {import('../src/client/connection.js').Client} client
 * @param {string} topic
 * @param {ClaimId} id
 */
async function claim(client, topic, id) {
  for (;;) {
    try {
      return await client.claim(topic, 0, id);
    } catch (e) {
      if (!(e instanceof Error && /** @type {any} */ (e).status === 'RateLimited')) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** @param {import('../src/client/outcome.js').Claim} c */
function summary(c) {
  if (c.outcome !== 'claimed') return c;
  const values = [...c.records()].map((r) => [r.offset, dec.decode(r.value)]);
  return { outcome: c.outcome, offset: c.offset, next: c.next, values };
}

test('16 claimers on their own connections: each of 20 batches is handed out once, then nothing is left', async (t) => {
  const broker = await startBroker({ config: CONFIG });
  t.after(() => broker.stop());
  const producer = await connect(broker.url, { identity: await Identity.generate() });
  t.after(() => producer.close());
  await producer.createTopic('jobs.all');
  await produceJobs(producer, 'jobs.all', 20);
  const claimers = await Promise.all(Array.from({ length: 16 }, async () => connect(broker.url, { identity: await Identity.generate() })));
  t.after(() => Promise.all(claimers.map((c) => c.close())));
  /** @type {Array<{ claimer: number, offset: number, next: number, values: any[] }>} */
  const got = [];
  await Promise.all(claimers.map(async (client, claimer) => {
    // No claimer can get more than the 20 batches there are.
    for (let n = 0; n <= 20; n++) {
      const c = await claim(client, 'jobs.all', ClaimId.random());
      if (c.outcome === 'nothingLeft') return;
      const s = /** @type {{ offset: number, next: number, values: any[] }} */ (summary(c));
      got.push({ claimer, ...s });
    }
    assert.fail(`claimer ${claimer} got more than 20 batches`);
  }));
  got.sort((a, b) => a.offset - b.offset);
  // Every batch exactly once: no batch twice, none skipped.
  assert.deepEqual(got.map((g) => g.offset), Array.from({ length: 20 }, (_, i) => i));
  for (const g of got) {
    assert.equal(g.next, g.offset + 1);
    assert.deepEqual(g.values, [[g.offset, `job-${g.offset}`]]);
  }
  // And nothing is left for anyone afterwards.
  assert.deepEqual(await claim(claimers[0], 'jobs.all', ClaimId.random()), { outcome: 'nothingLeft' });
  assert.deepEqual(await claim(producer, 'jobs.all', ClaimId.random()), { outcome: 'nothingLeft' });
});

test('a claim retried with the same id, on another connection, gets the same batch; another id the next one', async (t) => {
  const broker = await startBroker({ config: CONFIG });
  t.after(() => broker.stop());
  const alice = await Identity.generate();
  const first = await connect(broker.url, { identity: alice });
  t.after(() => first.close());
  await produceJobs(first, 'jobs.retry', 3);
  const x = ClaimId.random();
  const claimed = await claim(first, 'jobs.retry', x);
  assert.equal(claimed.outcome, 'claimed');
  if (claimed.outcome !== 'claimed') return;
  assert.equal(claimed.offset, 0);
  const bytes = claimed.batch.slice();
  // The answer was "lost": ask again with the same id, as the same
  // principal, on a new connection.
  await first.close();
  const second = await connect(broker.url, { identity: alice });
  t.after(() => second.close());
  const again = await claim(second, 'jobs.retry', ClaimId.fromHex(x.toHex()));
  assert.equal(again.outcome, 'claimed');
  if (again.outcome !== 'claimed') return;
  assert.deepEqual({ offset: again.offset, next: again.next }, { offset: 0, next: 1 });
  assert.deepEqual(again.batch, bytes);
  // The retry handed out nothing new: a new id gets the next batch.
  assert.deepEqual(summary(await claim(second, 'jobs.retry', ClaimId.random())), { outcome: 'claimed', offset: 1, next: 2, values: [[1, 'job-1']] });
  // An id is its principal's: another principal with the same id gets its
  // own batch, not alice's.
  const bob = await connect(broker.url, { identity: await Identity.generate() });
  t.after(() => bob.close());
  assert.deepEqual(summary(await claim(bob, 'jobs.retry', x)), { outcome: 'claimed', offset: 2, next: 3, values: [[2, 'job-2']] });
  assert.deepEqual(await claim(second, 'jobs.retry', ClaimId.random()), { outcome: 'nothingLeft' });
});
