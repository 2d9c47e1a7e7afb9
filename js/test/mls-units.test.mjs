// The pieces of the JavaScript MLS layer on their own: the signature shim
// (strict DER, low S), bindings, device lists, the message framing, and the
// checks on a claimed KeyPackage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPackageWithKey } from 'ts-mls/keyPackage.js';
import { defaultCapabilities } from 'ts-mls/defaultCapabilities.js';
import { encodeMlsMessage } from 'ts-mls/message.js';
import { Identity } from '../src/crypto/identity.js';
import { signRaw } from '../src/crypto/identity.js';
import { readFile } from 'node:fs/promises';
import { fromHex, toHex } from '../src/bytes.js';
import { BINDING_LEN, BINDING_VERSION, DeviceBinding } from '../src/mls/binding.js';
import { decodeText, encodeText } from '../src/mls/content.js';
import { DeviceList } from '../src/mls/device-list.js';
import { derToRaw, lowS, rawToDer, verifyRaw } from '../src/mls/ecdsa.js';
import { checkKeyPackage, newKeyPackage } from '../src/mls/library.js';
import { cipherSuite, signerHandle } from '../src/mls/suite.js';
import { paddedLen } from '../src/crypto/pad.js';

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const big = (/** @type {Uint8Array} */ b) => b.reduce((v, x) => (v << 8n) | BigInt(x), 0n);

test('signatures leave the shim low-S and DER, and verify', async () => {
  const id = await Identity.generate({ extractable: false });
  const point = id.publicKey.toSec1();
  let sawHigh = false;
  for (let i = 0; i < 32; i++) {
    const msg = new Uint8Array([i]);
    const raw = await signRaw(id, msg);
    if (big(raw.subarray(32)) > N >> 1n) sawHigh = true;
    const low = lowS(raw);
    assert.ok(big(low.subarray(32)) <= N >> 1n);
    assert.ok(await verifyRaw(point, msg, low), 'the low-S form verifies');
    const der = rawToDer(low);
    assert.deepEqual(derToRaw(der), low, 'DER round trip');
  }
  assert.ok(sawHigh, 'Web Crypto signed high-S at least once in 32 (else the normalisation is untested)');
});

test('the DER parser refuses what is not strict DER', () => {
  const raw = new Uint8Array(64).fill(1);
  const der = rawToDer(raw);
  assert.deepEqual(derToRaw(der), raw);
  assert.equal(derToRaw(new Uint8Array([...der, 0])), null, 'trailing byte');
  const nonMinimal = new Uint8Array([0x30, der[1] + 1, 0x02, der[3] + 1, 0x00, ...der.subarray(4)]);
  assert.equal(derToRaw(nonMinimal), null, 'a leading zero that is not needed');
  const zero = new Uint8Array([0x30, 6, 0x02, 1, 0, 0x02, 1, 1]);
  assert.equal(derToRaw(zero), null, 'r = 0');
  const overN = rawToDer(new Uint8Array(64).fill(0xff));
  assert.equal(derToRaw(overN), null, 'r ≥ n');
  assert.equal(derToRaw(new Uint8Array([0x31, ...der.subarray(1)])), null, 'not a SEQUENCE');
});

test('bindings verify for their device only; a tampered binding fails', async () => {
  const account = await Identity.generate();
  const device = await Identity.generate();
  const other = await Identity.generate();
  const b = await DeviceBinding.issue(account, device.publicKey.toSec1(), 1, 1700000000000);
  const back = await DeviceBinding.fromBytes(b.toBytes());
  await back.verify(device.publicKey.toSec1());
  await assert.rejects(back.verify(other.publicKey.toSec1()), { code: 'Binding' });
  const bytes = b.toBytes();
  const listed = Uint8Array.from(bytes);
  listed[77] ^= 1; // list_version
  await assert.rejects((await DeviceBinding.fromBytes(listed)).verify(device.publicKey.toSec1()), { code: 'Binding' });
  bytes[85] ^= 1; // issued_at
  await assert.rejects((await DeviceBinding.fromBytes(bytes)).verify(device.publicKey.toSec1()), { code: 'Binding' });
  await assert.rejects(DeviceBinding.fromBytes(bytes.subarray(1)), { code: 'Binding' });
});

test('the binding v2 vector the Rust SDK wrote parses and verifies (client/tests/vectors/binding_v2.json)', async () => {
  const v = JSON.parse(await readFile(new URL('../../client/tests/vectors/binding_v2.json', import.meta.url), 'utf8'));
  const bytes = fromHex(v.binding);
  const device = fromHex(v.device_key);
  assert.equal(bytes.length, BINDING_LEN);
  assert.equal(bytes[4], BINDING_VERSION);
  const b = await DeviceBinding.fromBytes(bytes);
  assert.equal(toHex(b.account.toSec1()), v.account_key);
  assert.equal(b.listVersion, v.list_version);
  assert.equal(b.issuedAt, v.issued_at);
  await b.verify(device);
  const other = Uint8Array.from(bytes);
  other[77] ^= 1;
  await assert.rejects((await DeviceBinding.fromBytes(other)).verify(device), { code: 'Binding' });
  // The same bytes re-encoded: JS writes what Rust wrote.
  assert.deepEqual(b.toBytes(), bytes);
  const v1 = Uint8Array.from(bytes);
  v1[4] = 1;
  await assert.rejects(DeviceBinding.fromBytes(v1), { code: 'Binding' });
});

test('device lists verify under their account, refuse rollback and tampering', async () => {
  const account = await Identity.generate();
  const d = await Identity.generate();
  const list = new DeviceList(account.publicKey, 3, 5, [
    { key: account.publicKey.toSec1(), addedAt: 1 },
    { key: d.publicKey.toSec1(), addedAt: 2 },
  ]);
  const bytes = await list.sign(account);
  const back = await DeviceList.verify(bytes, account.fingerprint());
  assert.equal(back.version, 3);
  assert.ok(back.lists(d.publicKey.toSec1()));
  await assert.rejects(DeviceList.verify(bytes, account.fingerprint(), 4), /rolled-back/);
  await assert.rejects(DeviceList.verify(bytes, d.fingerprint()), /another account/);
  const t = Uint8Array.from(bytes);
  t[30] ^= 1;
  await assert.rejects(DeviceList.verify(t, account.fingerprint()), { code: 'DeviceList' });
});

test('text content is padded to Padmé and checked on the way in', () => {
  for (const n of [0, 1, 27, 1000]) {
    const text = 'é'.repeat(n);
    const bytes = encodeText(text, 123);
    assert.equal(bytes.length, paddedLen(14 + new TextEncoder().encode(text).length));
    assert.deepEqual(decodeText(bytes), { sentAt: 123, text });
  }
  const good = encodeText('hello', 5);
  assert.throws(() => decodeText(new Uint8Array([...good, 0])), { code: 'Content' });
  const marker = Uint8Array.from(good);
  marker[14 + 5] = 0x81;
  assert.throws(() => decodeText(marker), /padding/);
  const kind = Uint8Array.from(good);
  kind[1] = 9;
  assert.throws(() => decodeText(kind), /unknown kind 9/);
});

test('a claimed KeyPackage must be the device’s, bound, and within a 90-day lifetime', async () => {
  const id = await Identity.generate({ extractable: false });
  const key = id.publicKey.toSec1();
  const signer = { binding: (await DeviceBinding.issue(id, key, 1)).toBytes(), publicKey: key, handle: await signerHandle(id) };
  const kp = await newKeyPackage(signer);
  assert.ok(await checkKeyPackage(kp.message, key));
  const other = await Identity.generate();
  await assert.rejects(checkKeyPackage(kp.message, other.publicKey.toSec1()), /another device/);
  // A year-long KeyPackage (another client's default) is refused.
  const now = BigInt(Math.floor(Date.now() / 1000));
  const long = await generateKeyPackageWithKey(
    { credentialType: 'basic', identity: signer.binding },
    defaultCapabilities(),
    { notBefore: now, notAfter: now + 365n * 86400n },
    [],
    { signKey: signer.handle, publicKey: key },
    await cipherSuite(),
  );
  const longMsg = encodeMlsMessage({ version: 'mls10', wireformat: 'mls_key_package', keyPackage: long.publicPackage });
  await assert.rejects(checkKeyPackage(longMsg, key), /lifetime is longer/);
  // A leaf whose credential is not a binding of its key is refused.
  const unbound = await generateKeyPackageWithKey(
    { credentialType: 'basic', identity: new Uint8Array(142) },
    defaultCapabilities(),
    { notBefore: now, notAfter: now + 86400n },
    [],
    { signKey: signer.handle, publicKey: key },
    await cipherSuite(),
  );
  const unboundMsg = encodeMlsMessage({ version: 'mls10', wireformat: 'mls_key_package', keyPackage: unbound.publicPackage });
  await assert.rejects(checkKeyPackage(unboundMsg, key), /binding/);
  // Nor is one that carries another device's (valid) binding.
  const stolen = await generateKeyPackageWithKey(
    { credentialType: 'basic', identity: (await DeviceBinding.issue(other, other.publicKey.toSec1(), 1)).toBytes() },
    defaultCapabilities(),
    { notBefore: now, notAfter: now + 86400n },
    [],
    { signKey: signer.handle, publicKey: key },
    await cipherSuite(),
  );
  const stolenMsg = encodeMlsMessage({ version: 'mls10', wireformat: 'mls_key_package', keyPackage: stolen.publicPackage });
  await assert.rejects(checkKeyPackage(stolenMsg, key), /does not verify/);
});
