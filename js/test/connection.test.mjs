// Connection behaviour that needs a misbehaving broker: a stand-in WebSocket
// server (helpers/fake-broker.mjs). The real broker is in connection-broker.test.mjs.
// Tests of what ends a connection run with `reconnect: false` (one
// connection, as a client that does not reconnect sees it); what a
// reconnecting client does instead is in reconnect.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { BrokerFlags } from '../src/protocol/hello.js';
import { Op, encodeResponse } from '../src/protocol/frame.js';
import { Identity } from '../src/crypto/identity.js';
import { fakeBroker, loopbackLookup, parseAuthenticate, verifiesBound } from './helpers/fake-broker.mjs';

/** @typedef {import('./helpers/fake-broker.mjs').FakeRequest} FakeRequest */
/** @typedef {import('./helpers/fake-broker.mjs').Socket} Socket */

test('hello, then pipelined requests answered out of order reach their callers', async (t) => {
  /** @type {Array<[FakeRequest, Socket]>} */
  const held = [];
  const broker = await fakeBroker({
    onRequest: (req, ws) => {
      held.push([req, ws]);
      if (held.length === 3) {
        // Answer in reverse order: metadata for 3, produce for 2, ping for 1.
        for (const [r, w] of held.reverse()) {
          if (r.op === Op.Produce) broker.answer(w, r, { body: { baseOffset: 40 + r.correlationId } });
          else if (r.op === Op.Committed) broker.answer(w, r, { body: { offset: r.correlationId } });
          else broker.answer(w, r, { body: {} });
        }
      }
    },
  });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  assert.equal(client.maxFrame, 1048572);
  assert.equal(client.principal, null);
  const ping = client.ping();
  const committed = client.committed('g', 't', 0);
  const ping2 = client.ping();
  assert.equal(client.inFlight, 3);
  assert.ok((await ping) >= 0);
  assert.equal(await committed, 2);
  assert.ok((await ping2) >= 0);
  assert.equal(client.inFlight, 0);
  await client.close();
});

test('requests beyond maxInFlight wait for a slot', async (t) => {
  /** @type {Array<[FakeRequest, Socket]>} */
  const held = [];
  const broker = await fakeBroker({ onRequest: (req, ws) => held.push([req, ws]) });
  t.after(() => broker.close());
  const client = await connect(broker.url, { maxInFlight: 2 });
  const pings = [client.ping(), client.ping(), client.ping()];
  await new Promise((r) => setImmediate(r));
  while (held.length < 2) await new Promise((r) => setImmediate(r));
  // The third request is not sent until an answer frees a slot.
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(held.length, 2);
  const [req, ws] = held[0];
  broker.answer(ws, req, { body: {} });
  await pings[0];
  while (held.length < 3) await new Promise((r) => setImmediate(r));
  for (const [r, w] of held.slice(1)) broker.answer(w, r, { body: {} });
  await Promise.all(pings);
  await client.close();
});

test('a close mid-request rejects every pending request naming the close code and reason', async (t) => {
  let count = 0;
  const broker = await fakeBroker({
    onRequest: (req, ws) => {
      if (++count === 2) ws.close(4321, 'going away for a test');
    },
  });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: false });
  const a = client.fetch('t', 0, 0, 100, 1000);
  const b = client.ping();
  for (const p of [a, b]) {
    await assert.rejects(p, (/** @type {any} */ e) => e.code === 'ConnectionLost' && /4321/.test(e.message) && /going away for a test/.test(e.message) && e.retriable);
  }
  assert.ok(client.isClosed);
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'ConnectionLost');
  assert.deepEqual(await client.closed, { code: 4321, reason: 'going away for a test' });
});

test('client.close() fails pending requests with Closed', async (t) => {
  const broker = await fakeBroker({ onRequest: () => {} });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  const p = assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'Closed' && /close\(\) was called/.test(e.message));
  await client.close();
  await p;
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'Closed');
});

test('a request timeout fails it with Timeout and closes the connection', async (t) => {
  const broker = await fakeBroker({ onRequest: () => {} });
  t.after(() => broker.close());
  const client = await connect(broker.url, { timeoutMs: 100, reconnect: false });
  const p = client.ping();
  const q = client.committed('g', 't', 0);
  await assert.rejects(p, (/** @type {any} */ e) => e.code === 'Timeout' && /Ping timed out after 100 ms/.test(e.message));
  await assert.rejects(q, (/** @type {any} */ e) => e.code === 'ConnectionLost' && /timed out/.test(e.message));
  await client.closed;
});

test('a malformed response is a protocol error that closes the connection', async (t) => {
  const broker = await fakeBroker({
    onRequest: (req, ws) => {
      const frame = encodeResponse(req.correlationId, req.op, { body: { baseOffset: 1 } });
      frame[10] = 77; // status 77 does not exist
      ws.send(frame);
    },
  });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: false });
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'ConnectionLost' && e.cause?.code === 'Protocol' && /status 77/.test(e.message));
  const closed = await client.closed;
  assert.equal(closed.code, 4002);
});

test('an answer for an unknown correlation id or another op is a protocol error', async (t) => {
  const broker = await fakeBroker({ onRequest: (req, ws) => ws.send(encodeResponse(req.correlationId, Op.Produce, { body: { baseOffset: 0 } })) });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: false });
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.cause?.kind === 'InvalidField' && /Produce for a Ping/.test(e.message));
});

test('a text message from the broker closes the connection', async (t) => {
  const broker = await fakeBroker({ onRequest: (req, ws) => ws.send('hello') });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: false });
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'ConnectionLost' && /text message/.test(e.message));
});

test('a connection-level notice (correlation id 0) fails pending requests with its status', async (t) => {
  const broker = await fakeBroker({ onRequest: (req, ws) => ws.send(encodeResponse(0, Op.Ping, { error: { status: 'ShuttingDown', message: 'broker shutting down' } })) });
  t.after(() => broker.close());
  const client = await connect(broker.url, { reconnect: false });
  await assert.rejects(client.ping(), (/** @type {any} */ e) => e.code === 'ConnectionLost' && e.status === 'ShuttingDown' && /broker shutting down/.test(e.message) && e.retriable);
});

test('frames over the broker limit are refused before sending', async (t) => {
  let seen = 0;
  const broker = await fakeBroker({ maxFrame: 100, onRequest: (req, ws) => { seen++; broker.answer(ws, req, { body: { baseOffset: 0 } }); } });
  t.after(() => broker.close());
  const client = await connect(broker.url);
  const { BatchBuilder } = await import('../src/protocol/record.js');
  const { Ack } = await import('../src/protocol/frame.js');
  const b = new BatchBuilder();
  b.push(new Uint8Array(200));
  await assert.rejects(client.produce('t', 0, Ack.Written, b.finish()), (/** @type {any} */ e) => e.code === 'RequestTooLarge' && /exceeds the broker's frame limit of 100/.test(e.message));
  assert.equal(seen, 0);
  await client.ping();
  await client.close();
});

test('AuthRequired without an identity: nothing is sent after the hello', async (t) => {
  let requests = 0;
  const broker = await fakeBroker({ flags: BrokerFlags.AUTH_REQUIRED | BrokerFlags.AUTH_AVAILABLE, onRequest: () => requests++ });
  t.after(() => broker.close());
  await assert.rejects(connect(broker.url), (/** @type {any} */ e) => e.code === 'AuthRequired' && e.isAuth && !e.retriable);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(requests, 0);
});

test('Authenticate: mechanism 2, the signature over the bound transcript with the dialled name, the principal returned', async (t) => {
  const identity = await Identity.generate();
  /** @type {string[]} */
  const names = [];
  const broker = await fakeBroker({
    flags: BrokerFlags.AUTH_AVAILABLE,
    onRequest: async (req, ws) => {
      if (req.op !== Op.Authenticate) return broker.answer(ws, req, { body: {} });
      assert.equal(req.correlationId, 1);
      const a = parseAuthenticate(req.body);
      assert.equal(a.mechanism, 2);
      assert.equal(a.rest, 0);
      // Plain ws: no channel binding; the name is the URL's host.
      assert.equal(a.channelBinding.length, 0);
      names.push(a.name);
      if (!(await verifiesBound(broker, a))) return broker.answer(ws, req, { error: { status: 'Unauthorized', message: 'bad signature' } });
      broker.answer(ws, req, { body: { principal: new Uint8Array(await crypto.subtle.digest('SHA-256', a.spki)) } });
    },
  });
  t.after(() => broker.close());
  const client = await connect(broker.url, { identity });
  const fp = new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {BufferSource} */ (await identity.spki())));
  assert.deepEqual(client.principal, fp);
  assert.equal(client.principalHex, identity.fingerprint().toHex());
  assert.match(client.principalHex, /^[0-9a-f]{64}$/);
  await client.ping();
  await client.close();

  // The name is the URL's host as dialled, normalized: 127.0.0.1, localhost.
  await (await connect(broker.url.replace('127.0.0.1', 'Broker.Test.'), { identity, wsOptions: { lookup: loopbackLookup } })).close();
  assert.deepEqual(names, ['127.0.0.1', 'broker.test']);

  // A signature over another nonce, or for another name, is refused: AuthFailed.
  const liar = { spki: () => identity.spki(), signAuthBound: (/** @type {Uint8Array} */ nonce, /** @type {Uint8Array} */ id, /** @type {string} */ name, /** @type {Uint8Array} */ cb) => identity.signAuthBound(new Uint8Array(32), id, name, cb) };
  await assert.rejects(connect(broker.url, { identity: liar }), (/** @type {any} */ e) => e.code === 'AuthFailed' && /bad signature/.test(e.message) && /signed for the name 127\.0\.0\.1\)/.test(e.message));
  const elsewhere = { spki: () => identity.spki(), signAuthBound: (/** @type {Uint8Array} */ nonce, /** @type {Uint8Array} */ id, /** @type {string} */ name, /** @type {Uint8Array} */ cb) => identity.signAuthBound(nonce, id, 'elsewhere.example', cb) };
  await assert.rejects(connect(broker.url, { identity: elsewhere }), (/** @type {any} */ e) => e.code === 'AuthFailed' && /bad signature/.test(e.message));
});

test('a broker naming another principal fails the connect with AuthFailed', async (t) => {
  const identity = await Identity.generate();
  const broker = await fakeBroker({ flags: BrokerFlags.AUTH_REQUIRED | BrokerFlags.AUTH_AVAILABLE, onRequest: (req, ws) => broker.answer(ws, req, { body: { principal: new Uint8Array(32) } }) });
  t.after(() => broker.close());
  await assert.rejects(connect(broker.url, { identity }), (/** @type {any} */ e) => e.code === 'AuthFailed' && /not the identity's/.test(e.message));
});

test('connect failures: nothing listening, wrong subprotocol, another version, silence', async (t) => {
  await assert.rejects(connect('ws://127.0.0.1:1/'), (/** @type {any} */ e) => e.code === 'Connect' && /127\.0\.0\.1:1/.test(e.message));
  const noProto = await fakeBroker({ protocol: false });
  t.after(() => noProto.close());
  await assert.rejects(connect(noProto.url), (/** @type {any} */ e) => e.code === 'Connect');
  const v2 = await fakeBroker({ hello: Uint8Array.of(0x48, 0x4d, 0x51, 2, 0, 1, 0, 0) });
  t.after(() => v2.close());
  await assert.rejects(connect(v2.url), (/** @type {any} */ e) => e.code === 'UnsupportedVersion');
  const silent = await fakeBroker({ hello: new Uint8Array(0) });
  // An empty hello message is malformed; a broker that says nothing times out.
  await assert.rejects(connect(silent.url), (/** @type {any} */ e) => e.code === 'Protocol');
  await silent.close();
});

test('a notice instead of the Authenticate answer fails the connect with its status', async (t) => {
  const identity = await Identity.generate();
  const broker = await fakeBroker({ flags: BrokerFlags.AUTH_AVAILABLE, onRequest: (req, ws) => ws.send(encodeResponse(0, Op.Ping, { error: { status: 'TooManyConnections', message: 'over max_connections' } })) });
  t.after(() => broker.close());
  await assert.rejects(connect(broker.url, { identity }), (/** @type {any} */ e) => e.code === 'Connect' && e.status === 'TooManyConnections' && e.retriable && /over max_connections/.test(e.message));
});
