// Issue 34's proof: a real broker (helpers/broker.mjs) killed with SIGKILL
// and started again on the same data directory and ports, 20 times, while
// Alice's producer sends 10,000 sealed records (DIRECT to Bob, keyless, so
// spread over the topic's 3 partitions one batch at a time) and Bob's
// SealedConsumer (a group, its replay state persisted) reads them — both
// through reconnecting clients that authenticate again every time.
//
// What must hold at the end:
// - every record whose delivery was acknowledged is delivered to Bob's
//   application exactly once, in the partition it was acknowledged in;
// - every record whose delivery was not acknowledged was reported (its
//   `delivered` rejected with a ClientError) and delivered at most once;
// - in each partition, Bob gets the records in the order Alice sent them;
// - no record is reported as failing to open (no Replayed, no TooOld);
// - Bob's reader dropped exactly as many records as the log holds second
//   copies of (its own position, not the group's commit, says where it
//   reads on after a reconnect: re-reading would drop more);
// - nothing in the log is missing from what Bob got.
//
// The kills follow progress (one every ~470 records settled, acknowledged
// or reported, once both clients are connected again), with up to 800 records
// outstanding, so batches are in flight at each kill. Nothing sleeps: each
// step awaits the event it needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Consumer } from '../src/client/consumer.js';
import { Producer } from '../src/client/producer.js';
import { ClientError } from '../src/protocol/error.js';
import { Identity } from '../src/crypto/identity.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { SealedProducer } from '../src/sealed/producer.js';
import { STATE_RULE, startBroker } from './helpers/broker.mjs';

const TOTAL = 10_000;
const KILLS = 20;
const PARTITIONS = 3;
/** Records sent and not yet settled, at most: keeps batches in flight at every kill. */
const AHEAD = 800;

const CONFIG = `auth = "required"
[[acl]]
principal = "*"
topics = "chaos.*"
allow = ["produce", "consume", "create", "describe"]
${STATE_RULE}`;

/** A counter whose conditions can be awaited. */
function progress() {
  /** @type {Array<{ when: () => boolean, resolve: () => void }>} */
  const waiters = [];
  return {
    /** Check the waiting conditions (after any change). */
    changed() {
      for (const w of [...waiters]) {
        if (w.when()) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    },
    /** @param {() => boolean} when */
    until(when) {
      return when() ? Promise.resolve() : new Promise((resolve) => waiters.push({ when, resolve: () => resolve(undefined) }));
    },
  };
}

test('the broker killed (SIGKILL) and restarted 20 times while 10,000 sealed records are produced and read: every acknowledged record delivered exactly once, in order per partition; the others reported', { timeout: 180_000 }, async (t) => {
  const started = Date.now();
  const broker = await startBroker({ config: CONFIG });
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const topic = `chaos.${bob.fingerprint().toHex().slice(0, 16)}`;
  const group = `${bob.fingerprint().toHex()}.chaos`;
  const reconnect = { initialDelayMs: 5, maxDelayMs: 100 };
  const p = progress();
  /** Records settled: acknowledged or reported. */
  let settledCount = 0;
  const a = await connect(broker.url, { identity: alice, reconnect, onStateChange: () => p.changed() });
  const b = await connect(broker.url, { identity: bob, reconnect, onStateChange: () => p.changed() });
  t.after(() => Promise.all([a.close(), b.close()]));
  await b.createTopic(topic, { partitions: PARTITIONS });

  let kills = 0;
  /** Per record: where it was acknowledged, or why it was given up on. @type {Array<{ partition: number, offset: number } | { error: unknown }>} */
  const outcomes = new Array(TOTAL);
  /** Per record: how often Bob's application got it. */
  const deliveries = new Array(TOTAL).fill(0);
  /** Per record: the partition Bob got it from. @type {number[]} */
  const deliveredIn = new Array(TOTAL);
  /** Per partition: the indexes Bob got, in order. @type {number[][]} */
  const order = Array.from({ length: PARTITIONS }, () => []);
  /** @type {unknown[]} */
  const openErrors = [];
  /** Partitions whose end marker Bob got. @type {Set<number>} */
  const ends = new Set();

  // Bob reads (small fetches, so the partitions stay close in Alice's
  // sequence numbers, which are per topic: docs/ENVELOPE.md §11 "Partitions").
  const reader = await SealedConsumer.create(b, bob, [alice.publicKey], topic, { group, autoCommitMs: 200, maxBytes: 8 * 1024 });
  const reading = (async () => {
    while (ends.size < PARTITIONS) {
      const r = await reader.next();
      if (!r.ok) {
        openErrors.push(String(r));
        continue;
      }
      const text = r.text();
      if (text === 'end') {
        ends.add(r.partition);
      } else {
        const i = Number(text.slice('record '.length));
        deliveries[i]++;
        deliveredIn[i] = r.partition;
        order[r.partition].push(i);
      }
      p.changed();
    }
  })();

  // The killer: one SIGKILL and restart per ~470 settled records, each
  // once both clients are connected again (so every kill cuts both).
  const killing = (async () => {
    for (let k = 1; k <= KILLS; k++) {
      await p.until(() => settledCount >= Math.floor((k * TOTAL) / (KILLS + 1)) && a.state === 'connected' && b.state === 'connected');
      await broker.restart({ signal: 'SIGKILL' });
      kills++;
    }
  })();

  // Alice sends, keeping at most AHEAD records unsettled.
  const sp = await SealedProducer.create(new Producer(a, { lingerMs: 2 }), alice);
  /** @type {Promise<void>[]} */
  const settled = [];
  for (let i = 0; i < TOTAL; i++) {
    if (i >= AHEAD) await settled[i - AHEAD];
    const d = await sp.send(topic, null, new TextEncoder().encode(`record ${i}`), [bob.publicKey]);
    settled.push(
      d.delivered.then(
        (at) => {
          outcomes[i] = at;
          settledCount++;
          p.changed();
        },
        (error) => {
          outcomes[i] = { error };
          settledCount++;
          p.changed();
        },
      ),
    );
  }
  await Promise.all(settled);
  await killing;
  // An end marker in every partition, sent after every record settled (so
  // after every retry): Bob has read everything once he has all of them.
  /** @type {Set<number>} */
  const marked = new Set();
  let endsSent = 0;
  while (marked.size < PARTITIONS) {
    endsSent++;
    marked.add((await (await sp.send(topic, null, new TextEncoder().encode('end'), [bob.publicKey])).delivered).partition);
  }
  await reading;

  assert.equal(kills, KILLS);
  assert.deepEqual([a.connectionsOpened, b.connectionsOpened], [KILLS + 1, KILLS + 1], 'both clients reconnected after every kill');
  assert.deepEqual(openErrors, [], 'no record failed to open: no Replayed, no TooOld');
  let failed = 0;
  for (let i = 0; i < TOTAL; i++) {
    const o = outcomes[i];
    if ('error' in o) {
      failed++;
      assert.ok(o.error instanceof ClientError, `record ${i} reported with ${o.error}`);
      assert.ok(deliveries[i] <= 1, `record ${i}, not acknowledged, delivered ${deliveries[i]} times`);
    } else {
      assert.equal(deliveries[i], 1, `record ${i}, acknowledged at ${o.partition}/${o.offset}, delivered ${deliveries[i]} times`);
      assert.equal(deliveredIn[i], o.partition, `record ${i}'s partition`);
    }
  }
  for (const [partition, got] of order.entries()) {
    for (let j = 1; j < got.length; j++) assert.ok(got[j - 1] < got[j], `partition ${partition}: record ${got[j]} after ${got[j - 1]}`);
  }

  // The log itself: every record in it reached Bob once; the second copies are exactly what his reader dropped.
  const raw = await Consumer.create(b, topic, { start: 'earliest' });
  const ends0 = (await b.metadata(topic))[0].partitions.map((x) => x.highWatermark);
  const seen = new Set();
  let copies = 0;
  let inLog = 0;
  const positions = () => [...ends0.keys()].every((q) => (raw.position(q) ?? 0) >= ends0[q]);
  while (!positions()) {
    const r = await raw.next();
    const key = Buffer.from(r.value).toString('base64');
    if (seen.has(key)) copies++;
    else {
      seen.add(key);
      inLog++;
    }
  }
  await raw.close();
  const got = deliveries.reduce((n, x) => n + x, 0);
  assert.equal(inLog, got + endsSent, 'every distinct record in the log (end markers aside) reached Bob once');
  assert.equal(reader.duplicatesDropped, copies, 'the reader dropped the second copies in the log, and nothing else');
  await reader.close();
  t.diagnostic(`${TOTAL - failed} acknowledged, ${failed} reported, ${copies} second copies in the log dropped, ${a.connectionsOpened} + ${b.connectionsOpened} connections, ${Date.now() - started} ms`);
});
