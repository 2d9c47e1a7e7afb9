import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { fromBase64, toBase64, utf8 } from '../src/bytes.js';
import { BlindedKey, BlindingKey, ConversationKey } from '../src/crypto/blind.js';
import { ChatCrypto, CompatMessage } from '../src/crypto/compat.js';
import { CompatError } from '../src/crypto/errors.js';
import { Identity, KeyError } from '../src/crypto/identity.js';
import { Opener } from '../src/crypto/open.js';

async function pair() {
  const a = await Identity.generate();
  const b = await Identity.generate();
  return { a, b, ab: await ChatCrypto.create(a, b.publicKey), ba: await ChatCrypto.create(b, a.publicKey) };
}

const kind = async (/** @type {Promise<unknown>} */ p) => (await p.then(() => assert.fail('accepted'), (/** @type {any} */ e) => e)).kind;

test('ChatCrypto round-trips text (BOM kept) and bytes', async () => {
  const { ab, ba } = await pair();
  const t = '\ufeffhéllo wörld ✓';
  const m = await ab.encrypt(t);
  assert.equal(fromBase64(m.iv).length, 12);
  assert.equal(await ba.decrypt(m.data, m.iv), t);
  const raw = await ab.encrypt(Uint8Array.of(0xff, 0xfe, 0));
  assert.deepEqual(await ba.decryptBytes(raw.data, raw.iv), Uint8Array.of(0xff, 0xfe, 0));
  assert.equal(await kind(ba.decrypt(raw.data, raw.iv)), 'InvalidUtf8');
  assert.equal(String(ab), 'ChatCrypto(<redacted>)');
  assert.equal(inspect(ab), 'ChatCrypto(<redacted>)');
});

test('the article\'s init(CryptoKey, CryptoKey) matches create(identity, peer)', async () => {
  const { a, b, ba } = await pair();
  const ecdh = { name: 'ECDH', namedCurve: 'P-256' };
  const priv = await crypto.subtle.importKey('pkcs8', /** @type {BufferSource} */ (await a.toPkcs8()), ecdh, false, ['deriveBits']);
  const c = await new ChatCrypto().init(priv, b.publicKey.cryptoKey);
  const m = await c.encrypt('from the article');
  assert.equal(await ba.decrypt(m.data, m.iv), 'from the article');
  await assert.rejects(new ChatCrypto().encrypt('x'), TypeError);
});

test('ChatCrypto enforces IV and tag lengths, base64 and authenticity', async () => {
  const { ab, ba } = await pair();
  const m = await ab.encrypt('x');
  assert.equal(await kind(ba.decrypt(m.data, toBase64(new Uint8Array(16)))), 'IvLength');
  assert.equal(await kind(ba.decrypt(toBase64(new Uint8Array(15)), m.iv)), 'TruncatedTag');
  assert.equal(await kind(ba.decrypt('%%', m.iv)), 'DataBase64');
  assert.equal(await kind(ba.decrypt(m.data, 'AAAA=')), 'IvBase64');
  const data = fromBase64(m.data);
  data[0] ^= 1;
  assert.equal(await kind(ba.decrypt(toBase64(data), m.iv)), 'Decrypt');
  const e = await ba.decrypt(toBase64(data), m.iv).catch((x) => x);
  assert.ok(e instanceof CompatError && e.code === 'HERMIT_COMPAT');
});

test('CompatMessage JSON is parsed as strictly as Rust', () => {
  const m = CompatMessage.fromJson(' {"data" : "QQ==",\n"iv":"AAAA"} ');
  assert.deepEqual([m.iv, m.data], ['AAAA', 'QQ==']);
  assert.equal(new CompatMessage('a', 'b').toJson(), '{"iv":"a","data":"b"}');
  for (const bad of ['', '[]', '{"iv":"a"}', '{"iv":"a","iv":"b"}', '{"iv":"a","data":"b","x":"c"}', '{"iv":"a","x":"b"}', '{"iv":"a\\n","data":"b"}', '{"iv":"a","data":"b"} x', '{"iv":"a","data":"b', '{"iv":1,"data":"b"}']) {
    assert.throws(() => CompatMessage.fromJson(bad), (/** @type {any} */ e) => e instanceof CompatError && e.kind === 'Json', bad);
  }
  assert.throws(() => CompatMessage.fromJson(Uint8Array.of(0x7b, 0x22, 0xff, 0x22)), (/** @type {any} */ e) => e.kind === 'Json');
});

test('the Opener takes legacy records only when allowed, from any trusted sender', async () => {
  const { a, b, ab } = await pair();
  const opener = new Opener(b);
  await opener.trust(a.publicKey);
  const record = utf8((await ab.encrypt('legacy')).toJson());
  assert.equal(await kind(opener.open('t', record)), 'LegacyRefused');
  opener.allowLegacy(true);
  const { opened, plaintext } = await opener.open('t', record);
  assert.deepEqual([opened.mode, opened.seq], ['legacy', undefined]);
  assert.ok(opened.sender.equals(a.fingerprint()));
  assert.deepEqual(plaintext, utf8('legacy'));
  assert.equal(await kind(opener.open('t', utf8('{"iv":"x"}'))), 'LegacyMalformed');
  const stranger = await ChatCrypto.create(await Identity.generate(), b.publicKey);
  assert.equal(await kind(opener.open('t', utf8((await stranger.encrypt('x')).toJson()))), 'LegacyAuthFailed');
});

test('blinded keys: both sides alike, pairs and keys differ', async () => {
  const a = await Identity.generate();
  const b = await Identity.generate();
  const c = await Identity.generate();
  const ab = await BlindingKey.pairwise(a, b.publicKey);
  const ba = await BlindingKey.pairwise(b, a.publicKey);
  const ac = await BlindingKey.pairwise(a, c.publicKey);
  const k = await ab.blind('order-17');
  assert.ok(k instanceof BlindedKey);
  assert.equal(k.asBytes().length, 16);
  assert.ok(k.equals(await ba.blind(utf8('order-17'))));
  assert.ok(!k.equals(await ab.blind('order-18')));
  assert.ok(!k.equals(await ac.blind('order-17')));
  const g = await BlindingKey.generateGroup();
  const g2 = await BlindingKey.fromGroupSecret(g.groupSecretBytes());
  assert.ok((await g.blind('k')).equals(await g2.blind('k')));
  assert.throws(() => ab.groupSecretBytes(), (/** @type {any} */ e) => e instanceof KeyError && e.kind === 'NotExtractable');
  assert.equal(String(g), 'BlindingKey(<redacted>)');
  // HMAC-SHA256(K, "sealed-record/v1 key" || k)[0..16], by hand.
  const secret = new Uint8Array(32).fill(7);
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const tag = new Uint8Array(await crypto.subtle.sign('HMAC', key, /** @type {BufferSource} */ (utf8('sealed-record/v1 keyabc'))));
  assert.deepEqual((await (await BlindingKey.fromGroupSecret(secret)).blind('abc')).asBytes(), tag.subarray(0, 16));
});

test('ConversationKey is the deprecated name of BlindingKey', async () => {
  const a = await Identity.generate();
  const b = await Identity.generate();
  assert.equal(ConversationKey, BlindingKey);
  const old = await ConversationKey.pairwise(a, b.publicKey);
  assert.ok(old instanceof BlindingKey);
  assert.ok((await old.blind('k')).equals(await (await BlindingKey.pairwise(b, a.publicKey)).blind('k')));
});
