// Interop through the broker with the Rust SDK: what the JS SealedProducer
// sends over WebSocket, `hermit consume` (Rust, plain TCP) opens; what
// `hermit produce` sends, the JS SealedConsumer opens — DIRECT and MULTI, with
// record keys blinded byte-identically on both sides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BlindingKey } from '../src/crypto/blind.js';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { Producer } from '../src/client/producer.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { SealedProducer, multiBlind } from '../src/sealed/producer.js';
import { hermitBin, startBroker } from './helpers/broker.mjs';

const run = promisify(execFile);
const enc = new TextEncoder();

test('JS seals over WebSocket, hermit consume opens; hermit produce seals, JS opens; blinded keys agree', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const dir = await mkdtemp(join(tmpdir(), 'hermit-js-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [alice, bob, carol] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const pw = join(dir, 'pw');
  await writeFile(pw, 'correct horse\n');
  const pkcs8 = join(dir, 'bob.pkcs8');
  await writeFile(pkcs8, await bob.toPkcs8Base64());
  await run(hermitBin(), ['key', 'import', '--pkcs8-file', pkcs8, '--out', join(dir, 'bob.key'), '--password-file', pw]);
  const cli = (/** @type {string[]} */ args) => run(hermitBin(), [...args, '--identity', join(dir, 'bob.key'), '--password-file', pw, '--broker', broker.tcpAddr]);

  // JS → Rust.
  const client = await connect(broker.url, { identity: alice });
  t.after(() => client.close());
  const sp = await SealedProducer.create(new Producer(client, { lingerMs: 1 }), alice);
  await sp.send('to-bob', 'k1', enc.encode('direct from js'), [bob.publicKey]);
  await sp.send('to-bob', 'k2', enc.encode('multi from js'), [bob.publicKey, carol.publicKey]);
  await sp.flush();
  const { stdout } = await cli(['consume', '--topic', 'to-bob', '--trust', alice.publicKey.toSpkiBase64(), '--output', 'jsonl', '--exit-on-end']);
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.payload, l.mode.toLowerCase(), l.sender]), [
    ['direct from js', 'direct', alice.fingerprint().toHex()],
    ['multi from js', 'multi', alice.fingerprint().toHex()],
  ]);

  // Rust → JS.
  const produce = (/** @type {string[]} */ args, /** @type {string} */ input) =>
    new Promise((resolve, reject) => {
      const child = execFile(hermitBin(), [...args, '--identity', join(dir, 'bob.key'), '--password-file', pw, '--broker', broker.tcpAddr], (err, out) => (err ? reject(err) : resolve(out)));
      /** @type {import('node:stream').Writable} */ (child.stdin).end(input);
    });
  await produce(['produce', '--topic', 'to-alice', '--to', alice.publicKey.toSpkiBase64(), '--key', 'conv'], 'direct from rust\n');
  await produce(['produce', '--topic', 'to-alice', '--to', alice.publicKey.toSpkiBase64(), '--to', carol.publicKey.toSpkiBase64(), '--key', 'group-conv'], 'multi from rust\n');
  const reader = await SealedConsumer.create(client, alice, [bob.publicKey], 'to-alice');
  const r1 = await reader.next();
  const r2 = await reader.next();
  assert.ok(r1.ok && r2.ok, `${r1} ${r2}`);
  assert.deepEqual([r1.text(), r1.mode, r2.text(), r2.mode], ['direct from rust', 'direct', 'multi from rust', 'multi']);
  // DIRECT keys: K_pair, the same from both sides.
  assert.deepEqual(r1.key, (await (await BlindingKey.pairwise(alice, bob.publicKey)).blind('conv')).asBytes());
  // MULTI keys: Bob's K_self over the sorted recipients, as the JS producer would blind it for Bob.
  const bobSelf = await BlindingKey.pairwise(bob, bob.publicKey);
  assert.deepEqual(r2.key, (await multiBlind(bobSelf, [carol.publicKey, alice.publicKey], enc.encode('group-conv'))).asBytes());
});
