// The channel binding and the TLS version in Node over wss:, against a
// stand-in broker (helpers/fake-broker.mjs) that sees its own side of the
// TLS connection. Certificates come from the broker binary
// (helpers/tls.mjs; `cargo build -p hermit-cli`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../src/client/connection.js';
import { Identity } from '../src/crypto/identity.js';
import { toHex } from '../src/bytes.js';
import { Op } from '../src/protocol/frame.js';
import { BrokerFlags } from '../src/protocol/hello.js';
import { fakeBroker, loopbackLookup, parseAuthenticate, spyIdentity, verifiesBound } from './helpers/fake-broker.mjs';
import { testCertificates } from './helpers/tls.mjs';

const certs = await testCertificates(['broker.test']);
test.after(() => certs.remove());

/**
 * A stand-in broker over TLS that checks a proof as the broker does: the
 * signature, and the binding against its own exporter value.
 * @param {import('node:tls').TlsOptions} tls
 */
async function tlsBroker(tls) {
  /** @type {Array<{ name: string, sent: string, own: string }>} */
  const proofs = [];
  const broker = await fakeBroker({
    flags: BrokerFlags.AUTH_REQUIRED | BrokerFlags.AUTH_AVAILABLE | BrokerFlags.TLS,
    tls: { cert: certs.cert, key: certs.key, ...tls },
    onRequest: async (req, ws) => {
      if (req.op !== Op.Authenticate) return broker.answer(ws, req, { body: {} });
      const a = parseAuthenticate(req.body);
      const socket = /** @type {import('node:tls').TLSSocket} */ (broker.tlsSocketOf(ws));
      const own = toHex(socket.exportKeyingMaterial(32, 'EXPORTER-Channel-Binding', Buffer.alloc(0)));
      proofs.push({ name: a.name, sent: toHex(a.channelBinding), own });
      if (!(await verifiesBound(broker, a)) || toHex(a.channelBinding) !== own) {
        return broker.answer(ws, req, { error: { status: 'Unauthorized', message: 'refused' } });
      }
      broker.answer(ws, req, { body: { principal: new Uint8Array(await crypto.subtle.digest('SHA-256', a.spki)) } });
    },
  });
  return Object.assign(broker, { proofs, url: `wss://broker.test:${broker.port}/` });
}

test('over wss: (TLS 1.3) the proof carries this TLS connection exporter value', async (t) => {
  const broker = await tlsBroker({});
  t.after(() => broker.close());
  const identity = await Identity.generate();
  const wsOptions = { ca: certs.ca, lookup: loopbackLookup };
  const a = await connect(broker.url, { identity, wsOptions });
  const b = await connect(broker.url, { identity, wsOptions });
  await Promise.all([a.close(), b.close()]);
  assert.equal(a.principalHex, identity.fingerprint().toHex());
  assert.equal(broker.proofs.length, 2);
  for (const p of broker.proofs) {
    assert.equal(p.name, 'broker.test');
    assert.match(p.sent, /^[0-9a-f]{64}$/);
    assert.equal(p.sent, p.own);
  }
  // Each connection has its own.
  assert.notEqual(broker.proofs[0].sent, broker.proofs[1].sent);
});

test('a server that offers only TLS 1.2 gets no proof: the client offers TLS 1.3 only, whatever wsOptions say', async (t) => {
  const broker = await tlsBroker({ maxVersion: 'TLSv1.2' });
  t.after(() => broker.close());
  const spy = await spyIdentity();
  for (const wsOptions of [{}, { minVersion: 'TLSv1.2' }]) {
    await assert.rejects(
      connect(broker.url, { identity: spy, wsOptions: { ca: certs.ca, lookup: loopbackLookup, ...wsOptions } }),
      (/** @type {any} */ e) => e.code === 'Connect' && /version/i.test(e.message),
    );
  }
  assert.equal(spy.signed, 0);
  assert.equal(broker.proofs.length, 0);
});
