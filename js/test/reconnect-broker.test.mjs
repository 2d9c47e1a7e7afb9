// Reconnecting to a real broker (helpers/broker.mjs), killed and started
// again on the same data directory and ports: the client opens a new
// connection and authenticates again (mechanism 2, the pin checked first),
// a long poll in flight is sent again and answered, the UI's states; a
// broker set up anew at the same address (another data directory, another
// broker id) is refused before anything is signed, pin store or not, and
// the client gives up. Then the producer's retry: a relay
// (helpers/ws-relay.mjs) drops the connection after the broker wrote a
// sealed batch and before its answer came back, so the resent batch lands
// twice in the log — the reader shows it once and reports no replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { toHex } from '../src/bytes.js';
import { connect } from '../src/client/connection.js';
import { Consumer } from '../src/client/consumer.js';
import { BrokerIdChanged } from '../src/client/known-brokers.js';
import { Producer } from '../src/client/producer.js';
import { Identity } from '../src/crypto/identity.js';
import { Ack, Op } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { SealedProducer } from '../src/sealed/producer.js';
import { INBOX_POLICY, startBroker } from './helpers/broker.mjs';
import { spyIdentity } from './helpers/fake-broker.mjs';
import { startWsRelay } from './helpers/ws-relay.mjs';

const FAST = { initialDelayMs: 10, maxDelayMs: 100 };
const enc = new TextEncoder();

/** A known-brokers store in memory that counts its lookups. */
function memoryPins() {
  /** @type {Map<string, Uint8Array>} */
  const pins = new Map();
  const store = {
    gets: 0,
    location: 'memory',
    /** @param {string} name @param {number} port */
    get: async (name, port) => (store.gets++, pins.get(`${name} ${port}`)),
    /** @param {string} name @param {number} port @param {Uint8Array} id */
    set: async (name, port, id) => void pins.set(`${name} ${port}`, id),
  };
  return store;
}

/**
 * Every state change of a client, and a way to await the next one of a kind.
 * @param {import('../src/client/connection.js').Client} client
 */
function watch(client) {
  /** @type {string[]} */
  const states = [];
  /** @type {Array<{ state: string, resolve: (c: any) => void }>} */
  const waiters = [];
  client.onStateChange((c) => {
    states.push(c.state);
    for (const w of waiters.filter((x) => x.state === c.state)) waiters.splice(waiters.indexOf(w), 1) && w.resolve(c);
  });
  return { states, until: (/** @type {string} */ state) => /** @type {Promise<any>} */ (new Promise((resolve) => waiters.push({ state, resolve }))) };
}

/** @param {string[]} values */
function batch(values) {
  const b = new BatchBuilder();
  for (const v of values) b.push(enc.encode(v));
  return b.finish();
}

test('the broker killed and restarted: the client reconnects, authenticates again with the pin checked first, and a long poll in flight is sent again and answered', { timeout: 30000 }, async (t) => {
  const broker = await startBroker({ config: INBOX_POLICY });
  t.after(() => broker.stop());
  const spy = await spyIdentity();
  const pins = memoryPins();
  const client = await connect(broker.url, { identity: spy, knownBrokers: pins, reconnect: FAST });
  t.after(() => client.close());
  const w = watch(client);
  const inbox = `inbox.${spy.identity.fingerprint().toHex()}`;
  await client.createTopic(inbox);
  assert.deepEqual([spy.signed, pins.gets], [1, 1]);
  const firstId = toHex(/** @type {Uint8Array} */ (client.brokerId));

  // A long poll at the end of the inbox, in flight while the broker dies.
  const poll = client.fetch(inbox, 0, 0, 1 << 20, 20_000);
  const back = w.until('connected');
  await broker.restart({ signal: 'SIGKILL' });
  const connected = await back;
  assert.equal(connected.connections, 2);
  assert.deepEqual(w.states.slice(0, 2), ['disconnected', 'connecting']);
  assert.equal(w.states.at(-1), 'connected');
  // A whole handshake again: the pin looked up before signing, a new proof (the broker's nonce is new).
  assert.deepEqual([spy.signed, pins.gets], [2, 2]);
  assert.equal(client.principalHex, spy.identity.fingerprint().toHex());
  assert.equal(toHex(/** @type {Uint8Array} */ (client.brokerId)), firstId);
  // The long poll went out again on the new connection and sees what is produced now.
  assert.equal(await client.produce(inbox, 0, Ack.Durable, batch(['after the restart'])), 0);
  const f = await poll;
  assert.deepEqual([...f.records()].map((r) => new TextDecoder().decode(r.value)), ['after the restart']);
  assert.equal(client.connectionsOpened, 2);
});

test('a broker with another id at the same address (set up anew) is refused on reconnect before anything is signed, pin store or not; the client gives up', { timeout: 30000 }, async (t) => {
  const broker = await startBroker({ config: INBOX_POLICY });
  t.after(() => broker.stop());
  const firstId = await broker.brokerId();
  const [plain, pinned] = [await spyIdentity(), await spyIdentity()];
  const pins = memoryPins();
  const clients = [
    await connect(broker.url, { identity: plain, reconnect: FAST }),
    await connect(broker.url, { identity: pinned, knownBrokers: pins, reconnect: FAST }),
  ];
  t.after(() => Promise.all(clients.map((c) => c.close())));
  const gaveUp = clients.map((c) => watch(c).until('gave-up'));
  // Same address, new data directory: a new BROKER_ID.
  await broker.restart({ signal: 'SIGKILL', beforeStart: () => rm(broker.dataDir, { recursive: true, force: true }) });
  const secondId = await broker.brokerId();
  assert.notEqual(secondId, firstId);
  for (const [i, g] of (await Promise.all(gaveUp)).entries()) {
    const e = g.reason;
    assert.ok(e instanceof BrokerIdChanged && e.reconnect, `client ${i}: ${e}`);
    assert.equal(toHex(e.pinned), firstId);
    assert.equal(toHex(e.presented), secondId);
    assert.match(e.message, /The client stopped reconnecting/);
    // What was waiting, and anything asked later, fails with the refusal itself.
    await assert.rejects(clients[i].ping(), (/** @type {any} */ x) => x === e && !x.retriable && x.isAuth);
    assert.equal(clients[i].state, 'gave-up');
  }
  assert.deepEqual([plain.signed, pinned.signed], [1, 1], 'nothing signed for the new broker');
  // A new connect to it: the pin store's own refusal (trust on first use stays with the first broker).
  await assert.rejects(connect(broker.url, { identity: pinned, knownBrokers: pins }), (/** @type {any} */ e) => e instanceof BrokerIdChanged && !e.reconnect);
});

test('a retried sealed record that landed twice in the log is shown once and reported as no replay; a plain reader sees both copies', { timeout: 30000 }, async (t) => {
  const broker = await startBroker({ config: INBOX_POLICY });
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const inbox = `inbox.${bob.fingerprint().toHex()}`;
  // Cut Alice's connection after the broker has written her first batch to
  // Bob's inbox, before its answer reaches her: the first copy is in the log.
  /** @type {Map<number, string>} */
  const produces = new Map();
  let cut = false;
  const relay = await startWsRelay({
    upstream: () => broker.url,
    cut: (f) => {
      if (f.dir === 'up' && f.op === Op.Produce) {
        const len = f.frame[9];
        produces.set(f.correlationId, new TextDecoder().decode(f.frame.subarray(10, 10 + len)));
      }
      if (cut || f.dir !== 'down' || f.op !== Op.Produce || produces.get(f.correlationId) !== inbox) return false;
      cut = true;
      return true;
    },
  });
  t.after(() => relay.close());
  const a = await connect(relay.url, { identity: alice, reconnect: FAST });
  const b = await connect(broker.url, { identity: bob });
  t.after(() => Promise.all([a.close(), b.close()]));
  await b.createTopic(inbox);
  const sp = await SealedProducer.create(new Producer(a, { lingerMs: 0 }), alice);
  const first = await sp.send(inbox, null, enc.encode('hello, once'), [bob.publicKey]);
  // Acknowledged once, for the resent copy; the connection it was first sent on is gone.
  assert.deepEqual(await first.delivered, { partition: 0, offset: 1 });
  assert.equal(relay.cuts, 1);
  assert.equal(a.connectionsOpened, 2);
  const second = await sp.send(inbox, null, enc.encode('and then this'), [bob.publicKey]);
  assert.equal((await second.delivered).offset, 2);

  // On the wire and in the log: the same record twice (offsets 0 and 1), byte for byte.
  const raw = await Consumer.create(b, inbox, { start: 'earliest' });
  const copies = [await raw.next(), await raw.next(), await raw.next()];
  await raw.close();
  assert.deepEqual(copies.map((r) => r.offset), [0, 1, 2]);
  assert.deepEqual(copies[0].value, copies[1].value);
  assert.deepEqual(copies[0].timestampNs, copies[1].timestampNs, 'the batch was resent, not rebuilt');

  // Bob's reader: the text once, then the next one; no replay reported, the copy counted.
  const reader = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group: `${bob.fingerprint().toHex()}.chat`, autoCommitMs: null });
  const shown = [await reader.next(), await reader.next()];
  assert.deepEqual(shown.map((r) => (r.ok ? [r.offset, r.text(), String(r.seq)] : String(r))), [[0, 'hello, once', String(first.seq)], [2, 'and then this', String(second.seq)]]);
  assert.equal(reader.duplicatesDropped, 1);
  assert.deepEqual(reader.held(), []);
  await reader.commit();
  assert.equal(await b.committed(`${bob.fingerprint().toHex()}.chat`, inbox, 0), 3, 'the commit passes the dropped copy');
});
