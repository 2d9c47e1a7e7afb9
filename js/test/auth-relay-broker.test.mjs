// Issue 32's must-show for the JavaScript SDK in Node, against a real
// `hermit broker` (helpers/broker.mjs; `cargo build -p hermit-cli`):
// Authenticate mechanism 2 over ws: and wss: to a broker with
// auth = "required", and a relay (helpers/relay.mjs) that forwards the
// broker's hello and the client's Authenticate — plain TCP under its own
// name, and TLS under the broker's own name with a valid certificate from
// the broker's CA — whose forwarded proof the broker refuses.
//
// Names: the broker serves `broker.test` (public_names, and its
// certificate); every name resolves to 127.0.0.1 through the client's
// `lookup`, so no name is a loopback name the broker would accept from a
// loopback peer anyway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { startBroker } from './helpers/broker.mjs';
import { loopbackLookup } from './helpers/fake-broker.mjs';
import { startRelay } from './helpers/relay.mjs';
import { testCertificates } from './helpers/tls.mjs';

const certs = await testCertificates(['broker.test']);
const broker = await startBroker({
  wss: true,
  config: `auth = "required"
public_names = ["broker.test"]
wss_listen = "127.0.0.1:0"
tls_cert = ${JSON.stringify(certs.certPath)}
tls_key = ${JSON.stringify(certs.keyPath)}
`,
});
test.after(async () => {
  await broker.stop();
  await certs.remove();
});

const port = (/** @type {string} */ addr) => Number(addr.slice(addr.lastIndexOf(':') + 1));
const wsPort = port(broker.wsAddr);
const wssPort = port(/** @type {string} */ (broker.wssAddr));
const wsOptions = { ca: certs.ca, lookup: loopbackLookup };
/** The broker's count of proofs refused for `reason` (hermit_auth_failures_total). */
const refused = (/** @type {string} */ reason) => broker.counter('hermit_auth_failures_total', `reason="${reason}"`);

test('Node authenticates with mechanism 2 to a broker with auth = "required", over ws: and over wss:', async () => {
  const identity = await Identity.generate();
  for (const url of [`ws://broker.test:${wsPort}/`, `wss://broker.test:${wssPort}/`, `wss://Broker.Test.:${wssPort}/`]) {
    const client = await connect(url, { identity, wsOptions });
    assert.equal(client.principalHex, identity.fingerprint().toHex(), url);
    await client.ping();
    await client.close();
  }
});

test('a relay dialled under its own name forwards hello and proof; the broker refuses the proof, the client says for which name', async (t) => {
  const relay = await startRelay({ upstream: () => ({ host: '127.0.0.1', port: wsPort }) });
  t.after(() => relay.close());
  const identity = await Identity.generate();
  const before = await refused('name_not_served');
  const err = await connect(`ws://relay.test:${relay.port}/`, { identity, wsOptions }).then(() => null, (e) => e);
  assert.ok(err, 'the relayed proof was accepted');
  assert.equal(err.code, 'AuthFailed', err.message);
  assert.equal(err.status, 'Unauthorized');
  assert.match(err.message, /signed for the name relay\.test\)/);
  // The broker's answer: it does not answer to that name.
  assert.match(err.message, /failed: .*"relay\.test"/);
  assert.equal(relay.connections, 1);
  assert.equal(await refused('name_not_served'), before + 1, 'the broker refused it for the name');
  // The same client, direct, under the broker's name: authenticated.
  const direct = await connect(`ws://broker.test:${wsPort}/`, { identity, wsOptions });
  assert.equal(direct.principalHex, identity.fingerprint().toHex());
  await direct.close();
});

test('a TLS relay with a valid certificate for the broker\'s own name passes the name check; the channel binding stops it', async (t) => {
  const relay = await startRelay({
    upstream: () => ({ host: '127.0.0.1', port: wssPort }),
    tls: { cert: certs.cert, key: certs.key, ca: certs.ca, servername: 'broker.test' },
  });
  t.after(() => relay.close());
  const identity = await Identity.generate();
  const [names, bindings] = [await refused('name_not_served'), await refused('channel_binding')];
  // The client trusts the relay: its certificate is valid for broker.test.
  const err = await connect(`wss://broker.test:${relay.port}/`, { identity, wsOptions }).then(() => null, (e) => e);
  assert.ok(err, 'the relayed proof was accepted');
  assert.equal(err.code, 'AuthFailed', err.message);
  assert.equal(err.status, 'Unauthorized');
  assert.match(err.message, /signed for the name broker\.test and this TLS connection\)/);
  assert.match(err.message, /failed: .*channel binding/i);
  assert.equal(relay.connections, 1);
  assert.equal(await refused('channel_binding'), bindings + 1, 'the broker refused it for the binding');
  assert.equal(await refused('name_not_served'), names, 'not for the name');
  // Direct over wss: authenticated.
  const direct = await connect(`wss://broker.test:${wssPort}/`, { identity, wsOptions });
  assert.equal(direct.principalHex, identity.fingerprint().toHex());
  await direct.close();
});
