// MLS interop through a real broker (auth required, the chat-inbox preset)
// between the JavaScript SDK (ts-mls on Web Crypto, over WebSocket) and the
// Rust SDK (mls-rs, driven through `hermit`, over TCP), both ways: a
// Rust-created group joined by a JS member and a JS-created group joined by
// a Rust member; both send and read; the JS member commits an Add of a Rust
// member, a self-update and a Remove; every member on one epoch
// authenticator after every Commit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Conversation, Device, MemoryStore } from '../src/mls/index.js';
import { startBroker } from './helpers/broker.mjs';
import { hermit } from './helpers/cli.mjs';
import { MLS_POLICY, drain } from './helpers/mls.mjs';

const PASSWORD = 'correct horse battery staple';

/**
 * A Rust device: a key file and a state directory, driven through `hermit`.
 * @param {string} dir
 * @param {string} name
 * @param {string} broker `host:port`
 */
async function rustDevice(dir, name, broker) {
  const identity = await Identity.generate();
  const pkcs8 = join(dir, `${name}.pkcs8`);
  await writeFile(pkcs8, await identity.toPkcs8Base64());
  const key = join(dir, `${name}.key`);
  const env = { HERMIT_PASSWORD: PASSWORD };
  const imported = await hermit(['key', 'import', '--pkcs8-file', pkcs8, '--out', key], { env });
  assert.equal(imported.code, 0, imported.stderr);
  const common = ['-i', key, '-b', broker, '--state-dir', join(dir, `${name}.state`)];
  /** @param {string[]} args */
  const run = async (...args) => {
    const [group, cmd, ...rest] = args;
    const r = await hermit([group, cmd, ...common, ...rest], { env, timeoutMs: 60000 });
    if (r.code !== 0) throw new Error(`hermit ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
    return r.stdout;
  };
  /** Every event `read` returned, in order. @type {Array<Record<string, any>>} */
  const seen = [];
  return {
    fingerprint: identity.fingerprint(),
    run,
    seen,
    /** @param {string} topic the events of `group read`, parsed */
    async read(topic) {
      const events = (await run('group', 'read', topic, '--output', 'jsonl'))
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l));
      seen.push(...events);
      return events;
    },
    /** @param {string} topic epoch and authenticator as stored (after a read) */
    async state(topic) {
      const lines = (await run('group', 'list', '--output', 'jsonl')).split('\n').filter((l) => l.trim() !== '');
      const found = lines.map((l) => JSON.parse(l)).find((c) => c.topic === topic);
      assert.ok(found, `${name} has ${topic}`);
      return found;
    },
  };
}

/** @param {Uint8Array} a */
const hex = (a) => Buffer.from(a).toString('hex');

test('MLS between the JS and Rust SDKs through the broker, both ways', { timeout: 240000 }, async (t) => {
  const broker = await startBroker({ config: MLS_POLICY });
  t.after(() => broker.stop());
  const dir = await mkdtemp(join(tmpdir(), 'hermit-mls-interop-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const alice = await rustDevice(dir, 'alice', broker.tcpAddr);
  const carol = await rustDevice(dir, 'carol', broker.tcpAddr);
  const bobIdentity = await Identity.generate({ extractable: false });
  const client = await connect(broker.url, { identity: bobIdentity });
  t.after(() => client.close());
  const bob = await Device.open(client, bobIdentity, new MemoryStore());
  await bob.publishKeyPackages(4);
  await alice.run('keypackages', 'publish', '--count', '4');
  await carol.run('keypackages', 'publish', '--count', '4');

  /**
   * Every Rust member has read the topic and is where Bob is.
   * @param {Conversation} b
   * @param {Array<Awaited<ReturnType<typeof rustDevice>>>} rust
   */
  const agree = async (b, rust) => {
    await b.catchUp();
    for (const r of rust) {
      await r.read(b.topic);
      const s = await r.state(b.topic);
      assert.equal(s.epoch, b.epoch, 'one epoch');
      assert.equal(s.authenticator, hex(b.epochAuthenticator), 'one epoch authenticator');
    }
  };

  // 1. A Rust-created group, joined by the JS member.
  const t1 = (await alice.run('group', 'create')).trim();
  await alice.run('group', 'invite', t1, bob.fingerprint.toHex());
  assert.deepEqual(await Conversation.acceptWelcomes(bob), [t1]);
  const b1 = await Conversation.open(bob, t1);
  await agree(b1, [alice]);

  await b1.send('hello from js');
  await alice.run('group', 'send', t1, 'hello from rust');
  const atAlice = (await alice.read(t1)).filter((e) => e.event === 'message');
  assert.deepEqual(atAlice.map((e) => [e.text, e.sender]), [['hello from js', bob.fingerprint.toHex()]]);
  const atBob = (await drain(b1)).filter((e) => e.type === 'message');
  assert.deepEqual(atBob.map((e) => e.type === 'message' && [e.text, e.sender.account.toHex()]), [['hello from rust', alice.fingerprint.toHex()]]);

  // The JS member commits an Add of a Rust member…
  assert.equal((await b1.invite(carol.fingerprint)).outcome, 'committed');
  assert.equal((await carol.run('group', 'join')).trim(), t1);
  await agree(b1, [alice, carol]);
  // …a self-update…
  assert.equal((await b1.update()).outcome, 'committed');
  await agree(b1, [alice, carol]);
  await carol.run('group', 'send', t1, 'carol from rust');
  assert.deepEqual(
    (await drain(b1)).filter((e) => e.type === 'message').map((e) => e.type === 'message' && e.text),
    ['carol from rust'],
  );
  // …and a Remove.
  assert.equal((await b1.removeAccount(carol.fingerprint)).outcome, 'committed');
  await agree(b1, [alice]);
  const carolEvents = await carol.read(t1);
  assert.ok(carolEvents.some((e) => e.event === 'removed'), 'Carol (Rust) reads her removal');
  // A Rust Commit the JS member applies.
  await alice.run('group', 'update', t1);
  await agree(b1, [alice]);

  // 2. A JS-created group, joined by a Rust member.
  const b2 = await Conversation.create(bob);
  assert.equal((await b2.invite(alice.fingerprint)).outcome, 'committed');
  assert.equal((await alice.run('group', 'join')).trim(), b2.topic);
  await agree(b2, [alice]);
  await alice.run('group', 'send', b2.topic, 'rust in a js group');
  await b2.send('js in its own group');
  assert.deepEqual(
    (await alice.read(b2.topic)).filter((e) => e.event === 'message').map((e) => e.text),
    ['js in its own group'],
  );
  const atB2 = await drain(b2);
  assert.deepEqual(
    atB2.filter((e) => e.type === 'message').map((e) => e.type === 'message' && e.text),
    ['rust in a js group'],
  );
  // The Rust member adds a Rust member to the JS-created group.
  await alice.run('group', 'invite', b2.topic, carol.fingerprint.toHex());
  assert.equal((await carol.run('group', 'join')).trim(), b2.topic);
  await agree(b2, [alice, carol]);
  assert.deepEqual(
    b2.members.map((m) => m.account.toHex()).sort(),
    [alice.fingerprint.toHex(), bob.fingerprint.toHex(), carol.fingerprint.toHex()].sort(),
  );
  // Views messages (docs/MLS.md §4.7) went both ways after each Add — the
  // topic holds more than the two Commits and two texts — and neither SDK
  // refused one, nor saw a split view among honest lists.
  atB2.push(...(await drain(b2)));
  const end = (await client.fetch(b2.topic, 0, 0, 1, 0)).highWatermark;
  assert.ok(end > 4, `views messages in ${b2.topic}: ${end} records`);
  const rustSide = [...alice.seen, ...carol.seen].filter((e) => e.topic === b2.topic);
  assert.deepEqual(rustSide.filter((e) => e.event === 'record_refused' || e.event === 'split_view'), [], 'the Rust members understood the JS views');
  assert.deepEqual(atB2.filter((e) => e.type === 'recordRefused' || e.type === 'splitView'), [], 'the JS member understood the Rust views');
});
