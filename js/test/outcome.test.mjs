// Client.conditionalProduce and Client.claim against a stand-in broker
// (helpers/fake-broker.mjs) that answers what a test tells it to, hostile
// answers included: the outcomes, the checks an answer must pass before it
// is believed, and that a conditional produce is sent exactly once. The
// real broker is in conditional-produce-broker.test.mjs and
// claim-broker.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { ClaimId } from '../src/client/outcome.js';
import { Ack, CLAIM_ID_LEN, Op } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { concat } from '../src/bytes.js';
import { fakeBroker } from './helpers/fake-broker.mjs';

/** @typedef {import('./helpers/fake-broker.mjs').FakeRequest} FakeRequest */

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * A batch of `values`, stored at `base` (the base offset is not covered by the CRC).
 * @param {number} base
 * @param {...string} values
 */
function stored(base, ...values) {
  const b = new BatchBuilder();
  for (const v of values) b.push(enc.encode(v));
  const bytes = b.finish(1n);
  new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(1, BigInt(base));
  return bytes;
}

/**
 * A stand-in broker answering each request with `answer(req)` (or an
 * empty body), and recording every request it got.
 * @param {(req: FakeRequest) => import('./helpers/fake-broker.mjs').Answer | 'close'} answer
 */
async function standIn(answer) {
  /** @type {FakeRequest[]} */
  const seen = [];
  const broker = await fakeBroker({
    onRequest: (req, ws) => {
      seen.push({ ...req, body: req.body.slice() });
      const what = req.op === Op.Ping ? { body: {} } : answer(req);
      if (what === 'close') ws.close(4000, 'gone mid-request');
      else broker.answer(ws, req, what);
    },
  });
  return { broker, seen };
}

test('conditionalProduce: appended at the expected end, or told where the end moved; other refusals reject', async (t) => {
  const { broker, seen } = await standIn((req) => {
    // expected_end is the u64 after topic ("t": 2 bytes), partition and ack.
    const expected = Number(new DataView(req.body.buffer, req.body.byteOffset).getBigUint64(2 + 4 + 1));
    if (expected === 5) return { body: { baseOffset: 5 } };
    if (expected === 6) return { error: { status: 'EndMoved', message: 'the log ends at 9', bounds: [2, 9] } };
    return { error: { status: 'Unauthorized', message: 'not authorized to produce t as anonymous' } };
  });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const batch = stored(0, 'a');
  assert.deepEqual(await client.conditionalProduce('t', 0, 5, batch), { outcome: 'appended', baseOffset: 5 });
  assert.deepEqual(await client.conditionalProduce('t', 0, 6, batch, { ack: 'written' }), { outcome: 'endMoved', end: 9 });
  await assert.rejects(client.conditionalProduce('t', 0, 7, batch), (/** @type {any} */ e) => e.code === 'Broker' && e.status === 'Unauthorized');
  // The ack byte: durable by default, written when asked.
  assert.deepEqual(seen.map((r) => r.body[2 + 4]), [Ack.Durable, Ack.Written, Ack.Durable]);
  assert.ok(seen.every((r) => r.op === Op.ConditionalProduce));
  // Arguments are checked before anything is sent.
  await assert.rejects(client.conditionalProduce('t', 0, -1, batch), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  await assert.rejects(client.conditionalProduce('t', 0, 0, batch, { ack: 3 }), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  assert.equal(seen.length, 3);
});

test('conditionalProduce: an answer at another offset, or EndMoved at the expected end, breaks the protocol', async (t) => {
  const { broker } = await standIn((req) => {
    const expected = Number(new DataView(req.body.buffer, req.body.byteOffset).getBigUint64(2 + 4 + 1));
    return expected === 3
      ? { body: { baseOffset: 4 } }
      : { error: { status: 'EndMoved', message: 'moved', bounds: [0, expected] } };
  });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  await assert.rejects(client.conditionalProduce('t', 0, 3, stored(0, 'x')), (/** @type {any} */ e) => e.code === 'Protocol' && e.kind === 'InvalidField' && /appended at 4, not at the expected end 3/.test(e.message));
  await assert.rejects(client.conditionalProduce('t', 0, 8, stored(0, 'x')), (/** @type {any} */ e) => e.code === 'Protocol' && /EndMoved at the expected end 8/.test(e.message));
  // Only that request failed: the connection goes on.
  assert.ok((await client.ping()) >= 0);
});

test('conditionalProduce is sent once: a lost answer or a retriable refusal is not retried', async (t) => {
  let n = 0;
  const { broker, seen } = await standIn(() => (++n === 1 ? { error: { status: 'StorageError', message: 'disk' } } : 'close'));
  t.after(() => broker.close());
  const client = await connect(broker.url);
  // The client reconnects after the drop (and would wait for the stand-in forever).
  t.after(() => client.close());
  await assert.rejects(client.conditionalProduce('t', 0, 0, stored(0, 'once')), (/** @type {any} */ e) => e.code === 'Broker' && e.status === 'StorageError' && e.retriable);
  // The connection drops before the answer: the caller learns it, nothing is resent.
  await assert.rejects(client.conditionalProduce('t', 0, 0, stored(0, 'once')), (/** @type {any} */ e) => e.code === 'ConnectionLost' && e.retriable);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(seen.map((r) => r.op), [Op.ConditionalProduce, Op.ConditionalProduce]);
});

test('conditionalProduce carries a batch: sized against the broker frame limit, not the control-frame limit', async (t) => {
  const { broker } = await standIn(() => ({ body: { baseOffset: 0 } }));
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const big = stored(0, 'x'.repeat(4000));
  assert.deepEqual(await client.conditionalProduce('t', 0, 0, big), { outcome: 'appended', baseOffset: 0 });
});

test('claim: the batch and its records, nothingLeft, RateLimited; the claim id is sent as given', async (t) => {
  const batch = stored(10, 'job-10', 'job-11');
  const { broker, seen } = await standIn((req) => {
    const id = req.body.subarray(req.body.length - CLAIM_ID_LEN);
    if (id[0] === 1) return { body: { offset: 10, next: 12, batch } };
    if (id[0] === 2) return { error: { status: 'NothingToClaim', message: 'every durable batch is claimed' } };
    return { error: { status: 'RateLimited', message: 'slow down' } };
  });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const id = (/** @type {number} */ first) => new ClaimId(Uint8Array.from({ length: 16 }, (_, i) => (i === 0 ? first : i)));
  const got = await client.claim('jobs', 3, id(1));
  assert.equal(got.outcome, 'claimed');
  if (got.outcome !== 'claimed') return;
  assert.equal(got.offset, 10);
  assert.equal(got.next, 12);
  assert.deepEqual(got.batch, batch);
  assert.deepEqual([...got.records()].map((r) => [r.topic, r.partition, r.offset, dec.decode(r.value)]), [['jobs', 3, 10, 'job-10'], ['jobs', 3, 11, 'job-11']]);
  assert.deepEqual(await client.claim('jobs', 3, id(2)), { outcome: 'nothingLeft' });
  await assert.rejects(client.claim('jobs', 3, id(3)), (/** @type {any} */ e) => e.code === 'Broker' && e.status === 'RateLimited' && !e.retriable);
  // topic "jobs", partition 3, the id's 16 bytes.
  assert.deepEqual(seen[0].body, concat(Uint8Array.of(4), enc.encode('jobs'), Uint8Array.of(0, 0, 0, 3), id(1).asBytes()));
  assert.ok(seen.every((r) => r.op === Op.Claim));
  await assert.rejects(client.claim('jobs', 3, /** @type {any} */ (id(1).asBytes())), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  assert.equal(seen.length, 3);
});

test('claim: a batch that disagrees with the answer breaks the protocol; a bad CRC fails only its records', async (t) => {
  /** @type {Record<number, { offset: number, next: number, batch: Uint8Array }>} */
  const answers = {
    1: { offset: 10, next: 11, batch: stored(9, 'a') }, // the batch starts elsewhere
    2: { offset: 10, next: 12, batch: concat(stored(10, 'a'), stored(11, 'b')) }, // two batches
    3: { offset: 10, next: 12, batch: stored(10, 'a') }, // the batch ends elsewhere
    4: { offset: 10, next: 11, batch: stored(10, 'a').subarray(0, 36) }, // cut short (38 bytes whole)
    5: { offset: 10, next: 11, batch: new Uint8Array(0) }, // no batch
  };
  const corrupt = stored(10, 'abc');
  corrupt[corrupt.length - 1] ^= 1;
  answers[6] = { offset: 10, next: 11, batch: corrupt };
  const { broker } = await standIn((req) => ({ body: answers[req.body[req.body.length - CLAIM_ID_LEN]] }));
  t.after(() => broker.close());
  const client = await connect(broker.url);
  t.after(() => client.close());
  const id = (/** @type {number} */ first) => new ClaimId(Uint8Array.from({ length: 16 }, (_, i) => (i === 0 ? first : 0)));
  const broken = (/** @type {RegExp} */ why) => (/** @type {any} */ e) => e.code === 'Protocol' && e.kind === 'InvalidField' && why.test(e.message);
  await assert.rejects(client.claim('q', 0, id(1)), broken(/claimed offset 10, but the batch starts at 9/));
  await assert.rejects(client.claim('q', 0, id(2)), broken(/followed by \d+ more bytes/));
  await assert.rejects(client.claim('q', 0, id(3)), broken(/claim position 12, but the batch ends at 11/));
  await assert.rejects(client.claim('q', 0, id(4)), broken(/malformed/));
  await assert.rejects(client.claim('q', 0, id(5)), broken(/malformed/));
  // A CRC is checked when the records are read, as for a fetch: the claim
  // itself (offset, next, bytes) is still the caller's.
  const got = await client.claim('q', 0, id(6));
  assert.equal(got.outcome, 'claimed');
  if (got.outcome !== 'claimed') return;
  assert.equal(got.offset, 10);
  assert.throws(() => [...got.records()], (/** @type {any} */ e) => e.code === 'CorruptBatch' && e.baseOffset === 10);
  assert.ok((await client.ping()) >= 0);
});

test('ClaimId: 16 random bytes, kept as given, round trips through hex', () => {
  const a = ClaimId.random();
  const b = ClaimId.random();
  assert.equal(a.asBytes().length, CLAIM_ID_LEN);
  assert.ok(!a.equals(b));
  assert.ok(a.equals(ClaimId.fromHex(a.toHex())));
  assert.match(a.toHex(), /^[0-9a-f]{32}$/);
  // A copy in, a copy out: changing either changes nothing kept.
  const bytes = new Uint8Array(16).fill(7);
  const c = new ClaimId(bytes);
  bytes[0] = 0;
  c.asBytes()[1] = 0;
  assert.deepEqual(c.asBytes(), new Uint8Array(16).fill(7));
  for (const bad of [new Uint8Array(15), new Uint8Array(17), /** @type {any} */ ([1, 2])]) {
    assert.throws(() => new ClaimId(bad), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  }
  assert.throws(() => ClaimId.fromHex('zz'), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  assert.throws(() => ClaimId.fromHex('00'), (/** @type {any} */ e) => e.code === 'InvalidArgument');
});
