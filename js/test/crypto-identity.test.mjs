import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { concat, fromBase64, toBase64 } from '../src/bytes.js';
import { Fingerprint, Identity, KeyError, Kid, PublicKey, pairKey } from '../src/crypto/identity.js';
import { SigningIdentity, SigningPublicKey } from '../src/crypto/signing.js';
import { authTranscript, authTranscriptBound } from '../src/protocol/auth.js';

const ECDH = { name: 'ECDH', namedCurve: 'P-256' };
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' };

test('PKCS#8 and SPKI have Web Crypto lengths and round-trip byte-identically', async () => {
  const id = await Identity.generate();
  const pkcs8 = await id.toPkcs8();
  assert.equal(pkcs8.length, 138);
  assert.equal(id.publicKey.toSpki().length, 91);
  const back = await Identity.fromPkcs8Base64(` ${await id.toPkcs8Base64()}\n`);
  assert.deepEqual(await back.toPkcs8(), pkcs8);
  assert.ok(back.equals(id));
  const pub = await PublicKey.fromSpkiBase64(id.publicKey.toSpkiBase64());
  assert.ok(pub.equals(id.publicKey));
  assert.deepEqual(await id.spki(), id.publicKey.toSpki());
  // fp = SHA-256(SPKI), kid = fp[0..8]
  const fp = new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {BufferSource} */ (id.publicKey.toSpki())));
  assert.deepEqual(id.fingerprint().asBytes(), fp);
  assert.deepEqual(id.kid().asBytes(), fp.subarray(0, 8));
  assert.ok(id.kid().equals(id.fingerprint().kid()));
  assert.match(id.fingerprint().toString(), /^([0-9a-f]{4} ){15}[0-9a-f]{4}$/);
  assert.equal(id.fingerprint().toHex().length, 64);
});

test('keys made by plain Web Crypto import, and ours export to it', async () => {
  const { privateKey, publicKey } = await crypto.subtle.generateKey(ECDH, true, ['deriveBits']);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', privateKey));
  const spki = new Uint8Array(await crypto.subtle.exportKey('spki', publicKey));
  const id = await Identity.fromPkcs8(pkcs8);
  assert.deepEqual(id.publicKey.toSpki(), spki);
  assert.deepEqual(await id.toPkcs8(), pkcs8);
});

test('one key, one fingerprint: a compressed point gets the same id', async () => {
  const id = await Identity.generate();
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', id.publicKey.cryptoKey));
  const compressed = concat([0x02 | (raw[64] & 1)], raw.subarray(1, 33));
  const fromPoint = await PublicKey.fromSec1Bytes(compressed);
  assert.ok(fromPoint.fingerprint().equals(id.fingerprint()));
  const spki59 = concat(id.publicKey.toSpki().subarray(0, 26), compressed);
  spki59[1] = 0x39;
  spki59[24] = 0x22;
  const fromSpki = await PublicKey.fromSpki(spki59);
  assert.deepEqual(fromSpki.toSpki(), id.publicKey.toSpki());
  // The wrong parity is another point (or none): never the same key.
  const flipped = Uint8Array.from(spki59);
  flipped[26] ^= 1;
  await PublicKey.fromSpki(flipped).then(
    (k) => assert.ok(!k.equals(id.publicKey)),
    (e) => assert.equal(e.kind, 'InvalidSpki'),
  );
});

test('malformed keys are typed errors', async () => {
  const id = await Identity.generate();
  const spki = id.publicKey.toSpki();
  const reject = async (/** @type {Promise<unknown>} */ p, /** @type {string} */ kind) => assert.equal((await p.then(() => assert.fail('accepted'), (/** @type {any} */ e) => e)).kind, kind);
  await reject(PublicKey.fromSpki(concat(spki, [0])), 'InvalidSpki'); // Node itself accepts trailing bytes
  await reject(PublicKey.fromSpki(spki.subarray(0, 90)), 'InvalidSpki');
  const hybrid = Uint8Array.from(spki);
  hybrid[26] = 0x06 | (spki[90] & 1);
  await reject(PublicKey.fromSpki(hybrid), 'InvalidSpki');
  const offCurve = Uint8Array.from(spki);
  offCurve[90] ^= 1;
  await reject(PublicKey.fromSpki(offCurve), 'InvalidSpki');
  await reject(PublicKey.fromSpkiBase64('not base64!'), 'Base64');
  await reject(PublicKey.fromSec1Bytes(new Uint8Array(65)), 'InvalidPoint');
  const pkcs8 = await id.toPkcs8();
  await reject(Identity.fromPkcs8(concat(pkcs8, [0])), 'InvalidPkcs8');
  await reject(Identity.fromPkcs8(pkcs8.subarray(0, 100)), 'InvalidPkcs8');
  await reject(Identity.fromPkcs8Base64('%%%%'), 'Base64');
  // The embedded public key must belong to the scalar.
  const other = await Identity.generate();
  const swapped = Uint8Array.from(pkcs8);
  swapped.set(other.publicKey.toSpki().subarray(27), 138 - 64);
  await reject(Identity.fromPkcs8(swapped), 'InvalidPkcs8');
  assert.throws(() => new Kid(new Uint8Array(7)), KeyError);
  assert.throws(() => new Fingerprint(new Uint8Array(31)), KeyError);
});

test('non-extractable identities work but do not export', async () => {
  const id = await Identity.generate({ extractable: false });
  assert.equal(id.extractable, false);
  await assert.rejects(id.toPkcs8(), (/** @type {any} */ e) => e instanceof KeyError && e.kind === 'NotExtractable');
  const peer = await Identity.generate();
  assert.deepEqual(await pairKey(id, peer.publicKey), await pairKey(peer, id.publicKey));
});

test('K_pair is SHA-256 of the ECDH x-coordinate, as the article derives it', async () => {
  const a = await Identity.generate();
  const b = await Identity.generate();
  const priv = await crypto.subtle.importKey('pkcs8', /** @type {BufferSource} */ (await a.toPkcs8()), ECDH, false, ['deriveBits']);
  const x = await crypto.subtle.deriveBits({ name: 'ECDH', public: b.publicKey.cryptoKey }, priv, 256);
  const want = new Uint8Array(await crypto.subtle.digest('SHA-256', x));
  assert.deepEqual(await pairKey(a, b.publicKey), want);
  assert.deepEqual(await pairKey(b, a.publicKey), want);
});

test('signAuthBound signs mechanism 2 (name and channel binding too), and only it', async () => {
  const id = await Identity.generate();
  const nonce = crypto.getRandomValues(new Uint8Array(32));
  const brokerId = crypto.getRandomValues(new Uint8Array(16));
  const binding = crypto.getRandomValues(new Uint8Array(32));
  const spki = id.publicKey.toSpki();
  const verifier = await crypto.subtle.importKey('spki', /** @type {BufferSource} */ (spki), ECDSA, false, ['verify']);
  const alg = { name: 'ECDSA', hash: 'SHA-256' };
  const verifies = async (/** @type {Uint8Array} */ sig, /** @type {Uint8Array} */ message) => crypto.subtle.verify(alg, verifier, /** @type {BufferSource} */ (sig), /** @type {BufferSource} */ (message));
  const sig = await id.signAuthBound(nonce, brokerId, 'broker.example', binding);
  assert.equal(sig.length, 64);
  assert.ok(await verifies(sig, authTranscriptBound(nonce, brokerId, 'broker.example', binding, spki)));
  assert.ok(!(await verifies(sig, authTranscriptBound(nonce, brokerId, 'relay.example', binding, spki))), 'bound to the name');
  assert.ok(!(await verifies(sig, authTranscriptBound(nonce, brokerId, 'broker.example', new Uint8Array(32), spki))), 'bound to the channel');
  assert.ok(!(await verifies(sig, authTranscript(nonce, brokerId, spki))), 'not a mechanism-1 proof');
  // An empty binding (a browser) and an IPv6 name are signed as they are.
  const bare = await id.signAuthBound(nonce, brokerId, '::1', new Uint8Array(0));
  assert.ok(await verifies(bare, authTranscriptBound(nonce, brokerId, '::1', new Uint8Array(0), spki)));
  // Only a normalized name is signed (what is sent must be what was signed), a binding of at most 32 bytes.
  for (const name of ['Broker.Example', 'broker.example.', '[::1]', '']) {
    await assert.rejects(id.signAuthBound(nonce, brokerId, name, binding), (/** @type {any} */ e) => e instanceof KeyError && e.kind === 'InvalidArgument', name);
  }
  await assert.rejects(id.signAuthBound(nonce, brokerId, 'b', new Uint8Array(33)), KeyError);
  await assert.rejects(id.signAuthBound(new Uint8Array(31), brokerId, 'b', binding), KeyError);
});

test('no secret in toString, inspect or JSON', async () => {
  const id = await Identity.generate();
  const b64 = await id.toPkcs8Base64();
  const d = (await crypto.subtle.exportKey('jwk', await crypto.subtle.importKey('pkcs8', /** @type {BufferSource} */ (fromBase64(b64)), ECDH, true, ['deriveBits']))).d;
  for (const text of [String(id), inspect(id), JSON.stringify(id), inspect(id, { showHidden: true, depth: 5 })]) {
    assert.ok(!text.includes(b64.slice(40, 80)) && !text.includes(/** @type {string} */ (d)), text);
    assert.ok(text.includes(id.kid().toHex()), text);
  }
  const s = await SigningIdentity.generate();
  assert.ok(!inspect(s).includes((await s.toPkcs8Base64()).slice(40, 80)));
});

test('signing keys round-trip and are separate from identities', async () => {
  const s = await SigningIdentity.generate();
  const pkcs8 = await s.toPkcs8();
  assert.equal(pkcs8.length, 138);
  const back = await SigningIdentity.fromPkcs8Base64(toBase64(pkcs8));
  assert.deepEqual(await back.toPkcs8(), pkcs8);
  const pub = await SigningPublicKey.fromSpkiBase64(s.publicKey.toSpkiBase64());
  assert.ok(pub.equals(s.publicKey));
  const none = await SigningIdentity.generate({ extractable: false });
  await assert.rejects(none.toPkcs8(), (/** @type {any} */ e) => e.kind === 'NotExtractable');
});
