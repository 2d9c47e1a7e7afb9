// Pinning against real brokers (helpers/broker.mjs; `cargo build -p
// hermit-cli`): a client with a known-brokers file pins the broker it first
// authenticates to; a second broker (another data directory, so another
// BROKER_ID) answering under the same name and port is refused before the
// client signs anything, with an error naming the file and the line to
// remove; after the line is removed (the replacement was on purpose) the
// new broker is pinned.
//
// Both brokers sit behind one address, `broker.test:<port>` of a forwarding
// relay (helpers/relay.mjs) whose upstream the test switches: a substitute
// under a known name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toHex } from '../src/bytes.js';
import { connect } from '../src/client/connection.js';
import { BrokerIdChanged } from '../src/client/known-brokers.js';
import { KnownBrokersFile } from '../src/client/known-brokers-file.js';
import { startBroker } from './helpers/broker.mjs';
import { loopbackLookup, spyIdentity } from './helpers/fake-broker.mjs';
import { startRelay } from './helpers/relay.mjs';

const CONFIG = `auth = "required"
public_names = ["broker.test"]
`;

test('a substitute broker under a pinned name is refused with nothing signed; removing the pin (on purpose) lets the client pin it', async (t) => {
  const [first, second] = await Promise.all([startBroker({ config: CONFIG }), startBroker({ config: CONFIG })]);
  t.after(() => Promise.all([first.stop(), second.stop()]));
  const [firstId, secondId] = await Promise.all([first.brokerId(), second.brokerId()]);
  assert.notEqual(firstId, secondId);
  let behind = first;
  const relay = await startRelay({ upstream: () => ({ host: '127.0.0.1', port: Number(behind.wsAddr.split(':')[1]) }) });
  t.after(() => relay.close());
  const state = await mkdtemp(join(tmpdir(), 'hermit-js-state-'));
  t.after(() => rm(state, { recursive: true, force: true }));
  const knownBrokers = await KnownBrokersFile.open(join(state, 'client'));

  const spy = await spyIdentity();
  const { identity } = spy;
  const url = `ws://broker.test:${relay.port}/`;
  const opts = { identity: spy, knownBrokers, wsOptions: { lookup: loopbackLookup } };

  // First contact: trust on first use.
  const client = await connect(url, opts);
  assert.equal(client.principalHex, identity.fingerprint().toHex());
  await client.close();
  const line = `broker.test ${relay.port} ${firstId}`;
  assert.ok((await readFile(knownBrokers.path, 'utf8')).split('\n').includes(line));
  assert.equal(spy.signed, 1);

  // Another broker behind the same name and port.
  behind = second;
  const err = await connect(url, opts).then(() => null, (e) => e);
  assert.ok(err instanceof BrokerIdChanged, `refused with BrokerIdChanged, got ${err}`);
  assert.equal(toHex(err.pinned), firstId);
  assert.equal(toHex(err.presented), secondId);
  for (const part of [`broker.test:${relay.port}`, firstId, secondId, knownBrokers.path, `remove the line "${line}"`]) {
    assert.ok(err.message.includes(part), `${part} in: ${err.message}`);
  }
  assert.equal(spy.signed, 1, 'nothing signed for the substitute');
  assert.equal(relay.connections, 2, 'the refusal came from the second broker\'s hello');

  // The same broker under its own address is another name and port: pinned on its own.
  const direct = await connect(`ws://broker.test:${second.wsAddr.split(':')[1]}/`, opts);
  await direct.close();

  // The replacement was on purpose: remove the line, as the message says.
  const text = await readFile(knownBrokers.path, 'utf8');
  await writeFile(knownBrokers.path, text.replace(`${line}\n`, ''));
  const again = await connect(url, opts);
  assert.equal(again.principalHex, identity.fingerprint().toHex());
  await again.close();
  assert.deepEqual(await knownBrokers.get('broker.test', relay.port), Uint8Array.from(Buffer.from(secondId, 'hex')));
});
