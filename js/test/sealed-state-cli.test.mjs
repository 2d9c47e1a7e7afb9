// Sealed state interop with the Rust SDK (docs/ENVELOPE.md §13), through the
// broker: a replay state saved by `hermit consume --group G` is restored by
// a JS SealedConsumer of the same identity and group, and the other way
// round; DIRECT budgets written by one side are read by the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Producer } from '../src/client/producer.js';
import { Ack } from '../src/protocol/frame.js';
import { BatchBuilder } from '../src/protocol/record.js';
import { BUDGET_RESERVE, SealedProducer } from '../src/sealed/producer.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { BUDGET_KEY, BudgetState, StateStore } from '../src/sealed/state.js';
import { startBroker } from './helpers/broker.mjs';
import { hermit } from './helpers/cli.mjs';

const enc = new TextEncoder();

/**
 * Append the record stored at `offset` again; its new offset.
 * @param {import('../src/client/connection.js').Client} client
 * @param {string} topic
 * @param {number} offset
 */
async function replay(client, topic, offset) {
  const r = await client.fetch(topic, 0, offset);
  const rec = /** @type {import('../src/client/records.js').Record} */ ([...r.records(offset)].find((x) => x.offset === offset));
  const b = new BatchBuilder(rec.key);
  b.push(rec.value);
  return client.produce(topic, 0, Ack.Durable, b.finish());
}

/** @param {import('node:test').TestContext} t */
async function setup(t) {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const dir = await mkdtemp(join(tmpdir(), 'hermit-js-state-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const pw = join(dir, 'pw');
  await writeFile(pw, 'correct horse\n');
  const keyFile = async (/** @type {string} */ name, /** @type {Identity} */ id) => {
    const pkcs8 = join(dir, `${name}.pkcs8`);
    await writeFile(pkcs8, await id.toPkcs8Base64());
    const out = join(dir, `${name}.key`);
    const r = await hermit(['key', 'import', '--pkcs8-file', pkcs8, '--out', out, '--password-file', pw]);
    assert.equal(r.code, 0, r.stderr);
    return out;
  };
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const client = await connect(broker.url);
  t.after(() => client.close());
  /**
   * `hermit ARGS --identity KEY --password-file PW --broker TCP`
   * @param {string} key
   * @param {string[]} args
   * @param {string} [input]
   */
  const cli = (key, args, input) => hermit([...args, '--identity', key, '--password-file', pw, '--broker', broker.tcpAddr], { input });
  return { broker, alice, bob, client, cli, aliceKey: await keyFile('alice', alice), bobKey: await keyFile('bob', bob) };
}

/**
 * The jsonl lines of `hermit consume`.
 * @param {string} stdout
 * @returns {any[]}
 */
function lines(stdout) {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l.replace(/"seq":(\d+)/, '"seq":"$1"')));
}

test('Rust saves the replay state, JS restores it; JS saves, Rust restores it: a replayed record is refused both ways', async (t) => {
  const { alice, bob, client, cli, bobKey } = await setup(t);
  const sp = await SealedProducer.create(new Producer(client, { lingerMs: 1 }), alice);
  for (const topic of ['rust-first', 'js-first']) {
    for (const m of ['one', 'two', 'three']) await sp.send(topic, 'conv', enc.encode(`${topic} ${m}`), [bob.publicKey]);
  }
  await sp.flush();
  const group = `${bob.fingerprint().toHex()}.g`;
  const consume = (/** @type {string} */ topic) => cli(bobKey, ['consume', '--topic', topic, '--group', group, '--trust', alice.publicKey.toSpkiBase64(), '--output', 'jsonl', '--exit-on-end']);

  // Rust reads and commits (saving its state first) …
  let r = await consume('rust-first');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stdout).map((l) => l.payload), ['rust-first one', 'rust-first two', 'rust-first three']);
  assert.equal(await client.committed(group, 'rust-first', 0), 3);
  // … a record is replayed, and JS, restoring Rust's state, refuses it.
  assert.equal(await replay(client, 'rust-first', 1), 3);
  const js = await SealedConsumer.create(client, bob, [alice.publicKey], 'rust-first', { group, autoCommitMs: null });
  assert.deepEqual(js.stateOrigin(), { kind: 'Restored', senders: 1, floor: 0n });
  const got = await js.next();
  assert.ok(!got.ok && got.offset === 3 && /** @type {any} */ (got).openError.kind === 'Replayed', String(got));
  await js.close();

  // JS reads and commits (saving its state first) …
  const js2 = await SealedConsumer.create(client, bob, [alice.publicKey], 'js-first', { group, autoCommitMs: null });
  assert.deepEqual(js2.stateOrigin(), { kind: 'Fresh' });
  for (let i = 0; i < 3; i++) assert.ok((await js2.next()).ok);
  await js2.commit();
  await js2.close();
  // … a record is replayed, and Rust, restoring JS's state, refuses it.
  assert.equal(await replay(client, 'js-first', 0), 3);
  r = await consume('js-first');
  assert.notEqual(r.code, 0, 'hermit consume reports records that failed to open');
  const out = lines(r.stdout);
  assert.equal(out.length, 1, r.stdout);
  assert.equal(out[0].offset, 3);
  assert.match(out[0].error, /replay/i);
  // Control: Rust without the state opens the replay again.
  r = await cli(bobKey, ['consume', '--topic', 'js-first', '--trust', alice.publicKey.toSpkiBase64(), '--output', 'jsonl', '--exit-on-end', '--offset', '3']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stdout).map((l) => l.payload), ['js-first one']);
});

test('DIRECT budgets written by JS are read by Rust and the other way round', async (t) => {
  const { alice, bob, client, cli, aliceKey } = await setup(t);
  const saved = async () => {
    const store = await StateStore.open(client, alice);
    return /** @type {BudgetState} */ (await BudgetState.decode(/** @type {Uint8Array} */ (await store.load(BUDGET_KEY))));
  };
  const budget = async () => /** @type {{ reserved: number }} */ ((await saved()).peers.get(bob.fingerprint().toHex())).reserved;
  // JS reserves 65536 …
  const run1 = await SealedProducer.create(new Producer(client, { lingerMs: 1 }), alice);
  await run1.send('b', null, enc.encode('from js'), [bob.publicKey]);
  await run1.flush();
  assert.equal(await budget(), BUDGET_RESERVE);
  // … Rust counts them as spent and reserves the next 65536 …
  const r = await cli(aliceKey, ['produce', '--topic', 'b', '--to', bob.publicKey.toSpkiBase64()], 'from rust\n');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await budget(), 2 * BUDGET_RESERVE);
  // … and JS counts Rust's reservation as spent.
  const run2 = await SealedProducer.create(new Producer(client, { lingerMs: 1 }), alice);
  await run2.send('b', null, enc.encode('from js again'), [bob.publicKey]);
  await run2.flush();
  assert.equal(run2.directSeals(bob.fingerprint()), 2 * BUDGET_RESERVE + 1);
  assert.equal(await budget(), 3 * BUDGET_RESERVE);
  // Every save counted the generation up, whichever SDK wrote it: the CLI
  // anchored generation 2 in its state directory and accepts JS's 3 (a
  // state below its anchor it would refuse, ENVELOPE.md §13).
  assert.equal((await saved()).generation, 3n);
  const again = await cli(aliceKey, ['produce', '--topic', 'b', '--to', bob.publicKey.toSpkiBase64()], 'from rust again\n');
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await saved()).generation, 4n);
  assert.equal(await budget(), 4 * BUDGET_RESERVE);
});

test('the state-anchors file is shared with the Rust SDK: the CLI and a JS consumer anchor in one state directory, each reads the other\'s lines', async (t) => {
  const { broker, alice, bob, client, cli, bobKey } = await setup(t);
  const { StateAnchorsFile } = await import('../src/client/state-anchors-file.js');
  const { readFile } = await import('node:fs/promises');
  const stateDir = join(await mkdtemp(join(tmpdir(), 'hermit-js-anchors-cli-')), 'state');
  t.after(() => rm(join(stateDir, '..'), { recursive: true, force: true }));
  const anchors = await StateAnchorsFile.open(stateDir);
  const sp = await SealedProducer.create(new Producer(client, { lingerMs: 1 }), alice);
  for (const topic of ['by-rust', 'by-js']) for (const m of ['one', 'two']) await sp.send(topic, 'conv', enc.encode(`${topic} ${m}`), [bob.publicKey]);
  await sp.flush();
  const group = `${bob.fingerprint().toHex()}.g`;
  const consume = () =>
    cli(bobKey, ['consume', '--topic', 'by-rust', '--group', group, '--trust', alice.publicKey.toSpkiBase64(), '--output', 'jsonl', '--exit-on-end', '--state-dir', stateDir]);
  let r = await consume();
  assert.equal(r.code, 0, r.stderr);
  const rustLines = (await readFile(anchors.path, 'utf8')).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  assert.equal(rustLines.length, 1, rustLines.join('\n'));
  const [addr, key, generation, hash] = rustLines[0].split(' ');
  assert.equal(addr, broker.tcpAddr);
  // JS reads the line Rust wrote.
  const got = await anchors.get(addr, key);
  assert.equal(got?.generation, BigInt(generation));
  assert.equal(Buffer.from(/** @type {Uint8Array} */ (got?.record)).toString('hex'), hash);

  // A JS consumer anchors in the same file; Rust's line stays as it was.
  const b = await connect(broker.url, { identity: bob });
  t.after(() => b.close());
  const js = await SealedConsumer.create(b, bob, [alice.publicKey], 'by-js', { group, autoCommitMs: null, stateAnchors: anchors });
  for (let i = 0; i < 2; i++) assert.ok((await js.next()).ok);
  await js.commit();
  await js.close();
  const both = (await readFile(anchors.path, 'utf8')).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  assert.equal(both.length, 2, both.join('\n'));
  assert.ok(both.includes(rustLines[0]), both.join('\n'));
  assert.ok(both.some((l) => l.startsWith(`${broker.url} `) && / 1 [0-9a-f]{64}$/.test(l)), both.join('\n'));
  // Rust reads the file with JS's line in it (at its own anchor: no refusal).
  r = await consume();
  assert.equal(r.code, 0, r.stderr);
});
