// A reconnecting client (client/reconnect.js, client/connection.js) against a
// stand-in broker that drops connections exactly where a test needs it
// (helpers/fake-broker.mjs): which requests in flight are sent again on the
// next connection (byte for byte) and which fail; requests made while
// disconnected wait; backoff with full jitter; giving up; close(); a broker
// that stops offering authentication. The real broker, killed and
// restarted, is in reconnect-broker.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { backoffDelay, reconnectPolicy } from '../src/client/reconnect.js';
import { Identity } from '../src/crypto/identity.js';
import { BrokerFlags } from '../src/protocol/hello.js';
import { Ack, Op } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { fakeBroker, parseAuthenticate, verifiesBound } from './helpers/fake-broker.mjs';

/** @typedef {import('./helpers/fake-broker.mjs').FakeRequest} FakeRequest */
/** @typedef {import('./helpers/fake-broker.mjs').Socket} Socket */

const FAST = { initialDelayMs: 1, maxDelayMs: 5 };

/**
 * Record every state change; `until(state)` resolves at the next change to it.
 * @param {import('../src/client/connection.js').Client|null} [client]
 */
function stateLog(client = null) {
  /** @type {import('../src/client/reconnect.js').ConnectionStateChange[]} */
  const changes = [];
  /** @type {Array<{ state: string, resolve: (c: any) => void }>} */
  const waiters = [];
  const listener = (/** @type {import('../src/client/reconnect.js').ConnectionStateChange} */ c) => {
    changes.push(c);
    for (const w of waiters.filter((x) => x.state === c.state)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(c);
    }
  };
  client?.onStateChange(listener);
  return {
    changes,
    listener,
    states: () => changes.map((c) => c.state),
    /** @param {string} state @returns {Promise<any>} */
    until: (state) => new Promise((resolve) => waiters.push({ state, resolve })),
  };
}

/** An answer body for the ops these tests send. @param {FakeRequest} req */
function answerFor(req) {
  switch (req.op) {
    case Op.Committed:
      return { body: { offset: 7 } };
    case Op.Fetch:
      return { body: { highWatermark: 0, logStart: 0, records: new Uint8Array(0) } };
    case Op.Metadata:
      return { body: [] };
    case Op.ListTopics:
      return { body: { topics: [], next: null } };
    case Op.Produce:
      return { body: { baseOffset: 0 } };
    default:
      return { body: {} };
  }
}

test('backoff: full jitter in [0, cap], the cap doubling from initialDelayMs up to maxDelayMs; options are checked', () => {
  const policy = /** @type {import('../src/client/reconnect.js').ReconnectPolicy} */ (reconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1000 }));
  const caps = [0, 1, 2, 3, 4, 5, 40].map((f) => backoffDelay(policy, f, () => 0.999999));
  assert.deepEqual(caps, [99, 199, 399, 799, 999, 999, 999]);
  assert.equal(backoffDelay(policy, 3, () => 0), 0, 'full jitter reaches 0');
  assert.deepEqual(reconnectPolicy(undefined), { initialDelayMs: 100, maxDelayMs: 5000, maxAttempts: Infinity, stableAfterMs: 1000 });
  assert.equal(reconnectPolicy(false), null);
  for (const bad of [{ maxAttempts: 0 }, { initialDelayMs: -1 }, { maxDelayMs: 10, initialDelayMs: 20 }, { stableAfterMs: NaN }]) {
    assert.throws(() => reconnectPolicy(bad), (/** @type {any} */ e) => e.code === 'InvalidArgument', JSON.stringify(bad));
  }
});

test('a dropped connection: reads and commits in flight go out again, byte for byte, on the next one; produce and createTopic fail with a retriable ConnectionLost', { timeout: 20000 }, async (t) => {
  /** @type {Array<{ conn: number, op: number, raw: Uint8Array }>} */
  const seen = [];
  const broker = await fakeBroker({
    onRequest: (req, ws, raw) => {
      const conn = [...broker.sockets].indexOf(ws);
      seen.push({ conn, op: req.op, raw: raw.slice() });
      if (conn > 0) return broker.answer(ws, req, answerFor(req));
      // The first connection answers nothing and dies at the createTopic, the last request.
      if (req.op === Op.CreateTopic) ws.terminate();
    },
  });
  t.after(() => broker.close());
  const log = stateLog();
  const client = await connect(broker.url, { reconnect: FAST, onStateChange: log.listener });
  t.after(() => client.close());
  const batch = new BatchBuilder();
  batch.push(new Uint8Array([1, 2, 3]));
  const settled = (/** @type {Promise<any>} */ p) => p.then((v) => ({ v }), (e) => ({ e }));
  const asked = {
    ping: settled(client.ping()),
    committed: settled(client.committed('g', 't', 0)),
    commit: settled(client.commit('g', 't', 0, 5)),
    fetch: settled(client.fetch('t', 0, 0, 100, 0)),
    metadata: settled(client.metadata('t')),
    list: settled(client.listTopics({ after: 'a', limit: 10 })),
    produce: settled(client.produce('t', 0, Ack.Durable, batch.finish())),
    create: settled(client.createTopic('new')),
  };
  const r = Object.fromEntries(await Promise.all(Object.entries(asked).map(async ([k, p]) => [k, await p])));
  assert.equal(r.committed.v, 7);
  assert.equal(r.fetch.v.batches.length, 0);
  assert.ok(r.ping.v >= 0 && r.commit.e === undefined && r.metadata.e === undefined && r.list.e === undefined);
  for (const k of ['produce', 'create']) {
    assert.ok(r[k].e?.code === 'ConnectionLost' && r[k].e.retriable, `${k}: ${r[k].e}`);
  }
  // The second connection got exactly the resendable ones, in their original order, unchanged.
  const first = seen.filter((s) => s.conn === 0);
  const again = seen.filter((s) => s.conn === 1);
  assert.deepEqual(again.map((s) => s.op), [Op.Ping, Op.Committed, Op.Commit, Op.Fetch, Op.Metadata, Op.ListTopics]);
  for (const s of again) assert.deepEqual(s.raw, first.find((f) => f.op === s.op)?.raw, `op ${s.op} resent byte for byte`);
  assert.equal(client.connectionsOpened, 2);
  assert.deepEqual(log.states(), ['connecting', 'connected', 'disconnected', 'connecting', 'connected']);
  const dropped = /** @type {any} */ (log.changes[2]);
  assert.equal(dropped.reason.code, 'ConnectionLost');
  assert.ok(dropped.retryInMs >= 0 && dropped.retryInMs < FAST.initialDelayMs + 1);
  assert.equal(client.state, 'connected');
});

test('a page cursor that is valid only on its connection is not sent again: that listTopics fails', { timeout: 20000 }, async (t) => {
  const broker = await fakeBroker({
    onRequest: (req, ws) => {
      if ([...broker.sockets].indexOf(ws) > 0) return broker.answer(ws, req, answerFor(req));
      if (req.op === Op.Ping) ws.terminate();
    },
  });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: FAST });
  t.after(() => client.close());
  const list = client.listTopics({ after: '__cursor.3', limit: 10 });
  const ping = client.ping();
  await assert.rejects(list, (/** @type {any} */ e) => e.code === 'ConnectionLost' && e.retriable);
  assert.ok((await ping) >= 0);
});

test('requests made while disconnected wait, without failing or timing out; close() stops reconnecting and fails them with Closed', { timeout: 20000 }, async (t) => {
  /** @type {number[]} */
  const ops = [];
  const broker = await fakeBroker({ onRequest: (req, ws) => (ops.push(req.op), broker.answer(ws, req, answerFor(req))) });
  const client = await connect(broker.url, { reconnect: FAST, timeoutMs: 20 });
  t.after(() => client.close());
  const log = stateLog(client);
  await broker.close();
  await log.until('disconnected');
  const waiting = [client.ping(), client.committed('g', 't', 0)].map((p) => p.then((v) => ({ v }), (e) => ({ e })));
  // Many attempts (and many request timeouts' worth of time) later, they still wait.
  await log.until('connecting');
  await log.until('disconnected');
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(client.inFlight, 2, 'waiting, not failed');
  assert.equal(ops.length, 0);
  await client.close();
  for (const r of await Promise.all(waiting)) assert.equal(/** @type {any} */ (r).e?.code, 'Closed');
  assert.equal(client.state, 'closed');
  assert.equal(log.changes.at(-1)?.state, 'closed');
  assert.ok(client.isClosed);
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'Closed');
  // No attempt after close (an absence: give it many backoff periods).
  const before = log.changes.length;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(log.changes.length, before);
});

test('maxAttempts failed attempts in a row: gave-up with the last error; waiting requests fail; closed resolves', { timeout: 20000 }, async (t) => {
  const broker = await fakeBroker({ onRequest: (req, ws) => broker.answer(ws, req, answerFor(req)) });
  // stableAfterMs 0: the drop itself is not a failed attempt (a connection that died young would be).
  const client = await connect(broker.url, { reconnect: { initialDelayMs: 2, maxDelayMs: 8, maxAttempts: 3, stableAfterMs: 0 } });
  t.after(() => client.close());
  const log = stateLog(client);
  const gaveUp = log.until('gave-up');
  await broker.close();
  const waiting = client.ping().then(() => null, (e) => e);
  const g = await gaveUp;
  assert.deepEqual(log.states(), ['disconnected', 'connecting', 'disconnected', 'connecting', 'disconnected', 'connecting', 'gave-up']);
  const delays = log.changes.filter((c) => c.state === 'disconnected').map((c) => /** @type {any} */ (c).retryInMs);
  delays.forEach((d, i) => assert.ok(d >= 0 && d < Math.min(8, 2 * 2 ** i), `delay ${i}: ${d}`));
  assert.equal(g.reason.code, 'ConnectionLost');
  assert.match(g.reason.message, /gave up reconnecting after 3 failed attempts: cannot connect/);
  const e = await waiting;
  assert.ok(e?.code === 'ConnectionLost' && /gave up reconnecting after 3 failed attempts/.test(e.message), String(e));
  assert.ok(client.isClosed);
  assert.equal(typeof (await client.closed).code, 'number');
});

test('a broker that stops offering authentication is refused on reconnect (AuthFailed): the client gives up rather than go on anonymously', { timeout: 20000 }, async (t) => {
  const identity = await Identity.generate();
  const behaviour = {
    flags: /** @type {number} */ (BrokerFlags.AUTH_AVAILABLE),
    /** @param {FakeRequest} req @param {Socket} ws */
    onRequest: async (req, ws) => {
      if (req.op !== Op.Authenticate) return broker.answer(ws, req, answerFor(req));
      const a = parseAuthenticate(req.body);
      if (!(await verifiesBound(broker, a))) return broker.answer(ws, req, { error: { status: 'Unauthorized', message: 'bad signature' } });
      broker.answer(ws, req, { body: { principal: new Uint8Array(await crypto.subtle.digest('SHA-256', a.spki)) } });
    },
  };
  const broker = await fakeBroker(behaviour);
  t.after(() => broker.close());
  const client = await connect(broker.url, { identity, reconnect: FAST });
  t.after(() => client.close());
  assert.equal(client.principalHex, identity.fingerprint().toHex());
  const log = stateLog(client);
  const gaveUp = log.until('gave-up');
  behaviour.flags = 0;
  for (const s of broker.sockets) s.terminate();
  const g = await gaveUp;
  assert.equal(g.reason.code, 'AuthFailed');
  assert.match(g.reason.message, /no longer offers authentication/);
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'AuthFailed' && !e.retriable);
  assert.equal(broker.sockets.size, 2, 'one attempt, then no more');
});

test('reconnect: false keeps the one-connection behaviour: gave-up at the first drop, nothing resent', { timeout: 20000 }, async (t) => {
  let n = 0;
  const broker = await fakeBroker({ onRequest: (req, ws) => (++n === 1 ? ws.terminate() : broker.answer(ws, req, answerFor(req))) });
  t.after(() => broker.close());
  const log = stateLog();
  const client = await connect(broker.url, { reconnect: false, onStateChange: log.listener });
  await assert.rejects(client.fetch('t', 0, 0, 100, 0), (/** @type {any} */ e) => e.code === 'ConnectionLost');
  assert.deepEqual(log.states(), ['connecting', 'connected', 'gave-up']);
  assert.ok(client.isClosed);
  assert.equal(broker.sockets.size, 1);
  await client.closed;
});
