// Topic listings against a real `hermit broker` over WebSocket
// (helpers/broker.mjs; build it with `cargo build -p hermit-cli`):
// ListTopics pages, allTopics, the frame-size cut, the ACL filter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { INBOX_POLICY, startBroker } from './helpers/broker.mjs';

/**
 * Every page of a listing: [names, next] each.
 * @param {import('../src/client/connection.js').Client} client
 * @param {number} [limit]
 */
async function pages(client, limit) {
  /** @type {Array<[string[], string|null]>} */
  const out = [];
  /** @type {string|null} */
  let after = null;
  for (;;) {
    const page = await client.listTopics({ after, limit });
    out.push([page.topics.map((t) => t.name), page.next]);
    if (page.next === null) return out;
    after = page.next;
  }
}

/** @param {AsyncIterable<{ name: string }>} iter */
async function collect(iter) {
  const out = [];
  for await (const t of iter) out.push(t.name);
  return out;
}

test('listTopics pages every topic once, in name order; allTopics walks them all', async (t) => {
  const broker = await startBroker({ args: ['--set', 'fsync=never'] });
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const names = Array.from({ length: 25 }, (_, i) => `p.${String(i).padStart(2, '0')}`);
  await Promise.all(names.map((n) => client.createTopic(n, { partitions: 2 })));
  // A group commit creates the internal offsets topic: never listed.
  await client.commit('g', 'p.00', 0, 0);

  const got = await pages(client, 10);
  assert.deepEqual(got, [
    [names.slice(0, 10), 'p.09'],
    [names.slice(10, 20), 'p.19'],
    [names.slice(20), null],
  ]);
  const first = await client.listTopics({ limit: 1 });
  assert.equal(first.topics[0].partitions.length, 2);
  assert.deepEqual(await collect(client.allTopics()), names);
  assert.deepEqual(await collect(client.allTopics({ limit: 3 })), names);
  // Metadata of all topics still answers on a small broker.
  assert.equal((await client.metadata()).length, 25);
  // An internal name is a fine cursor; bad arguments are refused before sending.
  assert.equal((await client.listTopics({ after: '__consumer_offsets', limit: 2 })).topics.length, 2);
  await assert.rejects(client.listTopics({ limit: 0 }), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  await assert.rejects(client.listTopics({ limit: 1001 }), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  await assert.rejects(client.listTopics({ after: 'a b' }), (/** @type {any} */ e) => e.code === 'InvalidName');
  await client.ping();
});

test('over small WebSocket messages a page stops before outgrowing the frame', async (t) => {
  // ws_max_message 4096: the broker's frames over WebSocket are 4,092 bytes.
  const broker = await startBroker({ args: ['--set', 'fsync=never', '--set', 'ws_max_message=4096'] });
  t.after(() => broker.stop());
  const client = await connect(broker.url);
  t.after(() => client.close());
  assert.equal(client.maxFrame, 4092);
  const names = Array.from({ length: 100 }, (_, i) => `f.${String(i).padStart(3, '0')}`);
  await Promise.all(names.map((n) => client.createTopic(n)));
  const got = await pages(client, 1000);
  // 47 bytes of metadata per topic: 81 fit in a page's room.
  assert.deepEqual(got.map(([n]) => n.length), [81, 19]);
  assert.deepEqual(got.flatMap(([n]) => n), names);
});

test('a principal lists only the topics it may describe', async (t) => {
  const broker = await startBroker({ config: INBOX_POLICY });
  t.after(() => broker.stop());
  const alice = await Identity.generate();
  const client = await connect(broker.url, { identity: alice });
  t.after(() => client.close());
  const own = `inbox.${client.principalHex}`;
  // Anyone may create (by producing to) anyone's inbox; only its owner may describe it.
  const others = await Promise.all(Array.from({ length: 12 }, async () => `inbox.${(await Identity.generate()).fingerprint().toHex()}`));
  await Promise.all([own, ...others].map((n) => client.createTopic(n)));
  assert.deepEqual(await collect(client.allTopics({ limit: 2 })), [own]);
  assert.deepEqual((await client.metadata()).map((m) => m.name), [own]);
});
