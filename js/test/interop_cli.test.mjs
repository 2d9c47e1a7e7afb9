// The JS SDK and the Rust CLI through one real broker: the JS side over
// WebSocket, `hermit produce`/`consume` over TCP, auth = "required" with the
// chat-inbox ACL. DIRECT and MULTI both ways, and SEALKEY files both ways (a
// key from `hermit keygen` unlocks in JS; a KeyFile JS wrapped is the CLI's
// `--identity`). Nothing here is a stand-in: the bytes cross the real broker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Identity, KeyFile, Producer, PublicKey, SealedConsumer, SealedProducer, connect, utf8 } from '../src/index.js';
import { startBroker } from './helpers/broker.mjs';
import { CHAT_POLICY, consumeJsonl, hermit, keygen, produceLines } from './helpers/cli.mjs';

const PASSWORD = 'correct horse battery staple';
/** Texts that catch encoding slips: non-ASCII, a BOM that must survive, a tab. */
const TEXTS = ['hello from node over WebSocket', 'Grüße, 世界 🔐', '\uFEFFBOM kept', 'tab\tinside'];

/** @type {Awaited<ReturnType<typeof startBroker>>} */
let broker;
let dir = '';
/** @type {Record<string, { identity: Identity, key: string, pub: string }>} */
const who = {};
/** @type {import('../src/index.js').Client[]} */
const clients = [];

before(async () => {
  broker = await startBroker({ config: CHAT_POLICY });
  dir = await mkdtemp(join(tmpdir(), 'hermit-interop-'));
  // Carol's key is made by the CLI; Alice's and Bob's by JS (Bob's wrapped in a SEALKEY file by JS).
  const carolKey = join(dir, 'carol.key');
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate(), keygen(carolKey, PASSWORD)]);
  const bobKey = join(dir, 'bob.key');
  await writeFile(bobKey, (await KeyFile.wrap(bob, PASSWORD)).toArmor(), { mode: 0o600 });
  const carol = await (await KeyFile.fromArmor(await readFile(carolKey, 'utf8'))).unlock(PASSWORD);
  for (const [name, identity, key] of /** @type {const} */ ([['alice', alice, ''], ['bob', bob, bobKey], ['carol', carol, carolKey]])) {
    const pub = join(dir, `${name}.pub`);
    if (name !== 'carol') await writeFile(pub, `${identity.publicKey.toSpkiBase64()}\n`);
    who[name] = { identity, key, pub };
  }
});

after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await broker?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A connection of `name`'s identity over WebSocket. @param {string} name */
async function client(name) {
  const c = await connect(broker.url, { identity: who[name].identity });
  clients.push(c);
  return c;
}

const hex = (/** @type {string} */ name) => who[name].identity.fingerprint().toHex();

test('a key made by `hermit keygen` unlocks in JS as the same identity; a wrong password is refused', async () => {
  const carol = who.carol.identity;
  // The CLI's .pub file is the same SPKI the JS identity has (the file may carry # comment lines).
  const pubText = await readFile(join(dir, 'carol.pub'), 'utf8');
  const spki = pubText.split('\n').find((l) => l && !l.startsWith('#'));
  assert.equal(carol.publicKey.toSpkiBase64(), spki);
  const fp = await hermit(['pubkey', '--fingerprint', who.carol.key]);
  assert.equal(fp.stdout.trim(), carol.fingerprint().toHex());
  const file = await KeyFile.fromArmor(await readFile(who.carol.key, 'utf8'));
  await assert.rejects(file.unlock('not the password'), (/** @type {any} */ e) => /** @type {any} */ (e).kind === 'WrongPasswordOrModified');
});

test('a KeyFile wrapped by JS is what `hermit pubkey` and `hermit key export` read', async () => {
  const fp = await hermit(['pubkey', '--fingerprint', who.bob.key]);
  assert.equal(fp.stdout.trim(), hex('bob'));
  const exported = await hermit(['key', 'export', who.bob.key], { env: { HERMIT_PASSWORD: PASSWORD } });
  assert.equal(exported.code, 0, exported.stderr);
  const j = JSON.parse(exported.stdout);
  assert.equal(j.pkcs8, await who.bob.identity.toPkcs8Base64());
  assert.equal(j.fingerprint, hex('bob'));
  const wrong = await hermit(['key', 'export', who.bob.key], { env: { HERMIT_PASSWORD: 'wrong' } });
  assert.notEqual(wrong.code, 0);
  assert.doesNotMatch(wrong.stdout, /pkcs8/);
});

test('JS SealedProducer (WebSocket) → broker → `hermit consume` (TCP): DIRECT to Bob (JS-wrapped key file), MULTI to Bob and Carol (CLI key file)', async () => {
  const a = await client('alice');
  const b = await client('bob');
  const inbox = `inbox.${hex('bob')}`;
  await b.createTopic(inbox); // only its owner may create (and read) an inbox
  const sp = await SealedProducer.create(new Producer(a, { lingerMs: 2 }), who.alice.identity);
  const direct = await Promise.all(TEXTS.map((t) => sp.send(inbox, null, utf8(t), [who.bob.identity.publicKey])));
  await Promise.all(direct.map((d) => d.delivered));
  assert.ok(direct.every((d) => d.mode === 'direct'));

  const multiTopic = `group.interop${Date.now()}`;
  const recipients = [who.bob.identity.publicKey, who.carol.identity.publicKey];
  const multi = await Promise.all(TEXTS.map((t) => sp.send(multiTopic, 'thread-1', utf8(`${t} (to both)`), recipients)));
  await Promise.all(multi.map((d) => d.delivered));
  assert.ok(multi.every((d) => d.mode === 'multi'));

  const got = await consumeJsonl({ broker: broker.tcpAddr, topic: inbox, identity: who.bob.key, trust: [who.alice.pub], password: PASSWORD });
  assert.deepEqual(got.map((r) => r.payload), TEXTS);
  assert.ok(got.every((r) => r.sender === hex('alice') && r.mode === 'direct' && r.topic === inbox), JSON.stringify(got));
  // The CLI reports the seqs the JS sealer chose (they start at a random point), in order.
  assert.deepEqual(got.map((r) => BigInt(r.seq)), direct.map((d) => d.seq));

  for (const reader of ['bob', 'carol']) {
    const lines = await consumeJsonl({ broker: broker.tcpAddr, topic: multiTopic, identity: who[reader].key, trust: [who.alice.pub], password: PASSWORD });
    assert.deepEqual(lines.map((r) => r.payload), TEXTS.map((t) => `${t} (to both)`), reader);
    assert.ok(lines.every((r) => r.sender === hex('alice') && r.mode === 'multi'), JSON.stringify(lines));
  }
  // Carol may not read Bob's inbox at all (the ACL, over TCP too), and the CLI says so.
  const refused = await hermit(['consume', '-b', broker.tcpAddr, '-t', inbox, '-i', who.carol.key, '--trust', who.alice.pub, '--exit-on-end'], {
    env: { HERMIT_PASSWORD: PASSWORD },
  });
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /not authorized/i);
  for (const t of TEXTS) assert.equal(await broker.dataContains(t), false, `plaintext ${JSON.stringify(t)} in the data dir`);
});

test('`hermit produce` (TCP, CLI key file) → broker → JS SealedConsumer (WebSocket): DIRECT to Alice, MULTI to Alice and Bob', async () => {
  const a = await client('alice');
  const b = await client('bob');
  const inbox = `inbox.${hex('alice')}`;
  await a.createTopic(inbox);
  await produceLines({ broker: broker.tcpAddr, topic: inbox, identity: who.carol.key, to: [who.alice.pub], password: PASSWORD, lines: TEXTS });
  const carolPub = who.carol.identity.publicKey;
  const c = await SealedConsumer.create(a, who.alice.identity, [carolPub], inbox, { group: `${hex('alice')}.chat`, autoCommitMs: null });
  const got = [];
  for (let i = 0; i < TEXTS.length; i++) {
    const r = await c.next();
    assert.ok(r.ok, String(r));
    assert.ok(r.sender.equals(who.carol.identity.fingerprint()) && r.mode === 'direct');
    got.push(r.text());
  }
  assert.deepEqual(got, TEXTS);
  await c.commit();
  assert.deepEqual(await a.committed(`${hex('alice')}.chat`, inbox, 0), TEXTS.length);

  const multiTopic = `group.cli${Date.now()}`;
  // A key file, not a .pub, names a recipient too (the CLI reads its clear public key).
  await produceLines({ broker: broker.tcpAddr, topic: multiTopic, identity: who.carol.key, to: [who.alice.pub, who.bob.key], password: PASSWORD, lines: TEXTS });
  for (const [name, conn] of /** @type {const} */ ([['alice', a], ['bob', b]])) {
    const sc = await SealedConsumer.create(conn, who[name].identity, [carolPub], multiTopic, { start: 'earliest' });
    const texts = [];
    for (let i = 0; i < TEXTS.length; i++) {
      const r = await sc.next();
      assert.ok(r.ok, String(r));
      assert.equal(r.mode, 'multi');
      texts.push(r.text());
    }
    assert.deepEqual(texts, TEXTS, name);
  }
  // A reader who does not trust Carol opens nothing (typed per-record error, not a crash).
  const strict = await SealedConsumer.create(b, who.bob.identity, [await PublicKey.fromSpkiBase64(who.alice.identity.publicKey.toSpkiBase64())], multiTopic, { start: 'earliest' });
  const r = await strict.next();
  assert.equal(r.ok, false);
  assert.equal(/** @type {any} */ (r).openError?.kind, 'UnknownSender');
  for (const t of TEXTS) assert.equal(await broker.dataContains(t), false);
});
