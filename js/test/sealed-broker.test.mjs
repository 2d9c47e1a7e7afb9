// Sealed round trip JS → JS through a real broker over WebSocket, with
// authentication and the chat-inbox ACL: the broker stores no plaintext and
// refuses other principals' reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Producer } from '../src/client/producer.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { SealedProducer } from '../src/sealed/producer.js';
import { INBOX_POLICY, startBroker } from './helpers/broker.mjs';

const enc = new TextEncoder();

test('Alice seals to Bob’s inbox, Bob opens it, commits; the data dir holds no plaintext; Mallory may not read it', async (t) => {
  const broker = await startBroker({ config: INBOX_POLICY });
  t.after(() => broker.stop());
  const [alice, bob, mallory] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const a = await connect(broker.url, { identity: alice });
  const b = await connect(broker.url, { identity: bob });
  const m = await connect(broker.url, { identity: mallory });
  t.after(() => Promise.all([a.close(), b.close(), m.close()]));
  const inbox = `inbox.${bob.fingerprint().toHex()}`;
  const sp = await SealedProducer.create(new Producer(a, { lingerMs: 2 }), alice, { padding: true });
  const texts = Array.from({ length: 50 }, (_, i) => `attack at dawn #${i}`);
  const sent = [];
  for (const text of texts) sent.push(await sp.send(inbox, 'conversation-key-1', enc.encode(text), [bob.publicKey]));
  await sp.flush();
  assert.deepEqual((await Promise.all(sent.map((d) => d.delivered))).map((d) => d.offset), [...texts.keys()]);

  const group = `${bob.fingerprint().toHex()}.chat`;
  const c = await SealedConsumer.create(b, bob, [alice.publicKey], inbox, { group, autoCommitMs: null });
  const got = [];
  for (let i = 0; i < texts.length; i++) {
    const r = await c.next();
    assert.ok(r.ok, String(r));
    assert.ok(r.sender.equals(alice.fingerprint()) && r.padded);
    got.push(r.text());
  }
  assert.deepEqual(got, texts);
  await c.commit();
  assert.equal(await b.committed(group, inbox, 0), texts.length);

  assert.equal(await broker.dataContains('attack at dawn'), false);
  assert.equal(await broker.dataContains('conversation-key-1'), false);
  await assert.rejects(SealedConsumer.create(m, mallory, [alice.publicKey], inbox), (/** @type {any} */ e) => e.status === 'Unauthorized');
  await assert.rejects(m.fetch(inbox, 0, 0), (/** @type {any} */ e) => e.status === 'Unauthorized' && e.message.includes(mallory.fingerprint().toHex()));
});
