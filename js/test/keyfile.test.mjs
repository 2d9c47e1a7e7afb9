import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { concat, fromBase64, toBase64 } from '../src/bytes.js';
import { Identity } from '../src/crypto/identity.js';
import { FLOOR_M_COST_KIB, KdfParams, KeyFile, KeyFileError, MAX_ARMOR_LEN } from '../src/crypto/keyfile.js';

const CHEAP = KdfParams.insecureForTests(64, 1, 1);
const kindOf = async (/** @type {Promise<unknown>} */ p) => {
  const e = await p.then(() => assert.fail('accepted'), (x) => x);
  assert.ok(e instanceof KeyFileError, String(e));
  assert.equal(e.code, 'HERMIT_KEYFILE');
  return e.kind;
};

test('wrap and unlock, binary and armor, with the layout of ENVELOPE.md §3', async () => {
  const id = await Identity.generate();
  const kf = await KeyFile.wrap(id, 'pässword', CHEAP);
  const b = kf.toBytes();
  assert.equal(b.length, 150 + 138 + 16);
  assert.equal(new TextDecoder().decode(b.subarray(0, 7)), 'SEALKEY');
  assert.deepEqual([...b.subarray(7, 9)], [1, 1]);
  const dv = new DataView(b.buffer);
  assert.deepEqual([dv.getUint32(9), dv.getUint32(13), dv.getUint32(17)], [64, 1, 1]);
  assert.deepEqual([b[21], b[38], b[39], b[52], dv.getUint16(53)], [16, 1, 12, 1, 91]);
  assert.deepEqual(b.subarray(55, 146), id.publicKey.toSpki());
  assert.equal(dv.getUint32(146), 154);
  const armor = kf.toArmor();
  assert.match(armor, /^-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----\n([A-Za-z0-9+/=]{64}\n)+[A-Za-z0-9+/=]{1,64}\n-----END SEALKEY ENCRYPTED PRIVATE KEY-----\n$/);
  const parsed = await KeyFile.fromArmor(`\r\n  ${armor.replaceAll('\n', '\r\n')}  `);
  assert.ok(parsed.publicKey.equals(id.publicKey));
  assert.deepEqual([parsed.kdfParams().mCostKib, parsed.kdfParams().tCost, parsed.kdfParams().pCost], [64, 1, 1]);
  const back = await parsed.unlockInsecureForTests(new TextEncoder().encode('pässword'));
  assert.deepEqual(await back.toPkcs8(), await id.toPkcs8());
  const locked = await (await KeyFile.fromBytes(b)).unlockInsecureForTests('pässword', { extractable: false });
  assert.ok(locked.equals(id) && !locked.extractable);
  assert.ok(!inspect(kf).includes(toBase64(b).slice(200, 240)));
});

test('wrong password, modified file and the floor are typed errors', async () => {
  const id = await Identity.generate();
  const kf = await KeyFile.wrap(id, 'pw', CHEAP);
  assert.equal(await kindOf(kf.unlockInsecureForTests('pW')), 'WrongPasswordOrModified');
  assert.equal(await kindOf(kf.unlock('pw')), 'KdfBelowFloor');
  const b = kf.toBytes();
  // Every header byte is associated data: no flip ever unlocks.
  for (let i = 0; i < b.length; i++) {
    const bad = Uint8Array.from(b);
    bad[i] ^= 0x01;
    const k = await KeyFile.fromBytes(bad).then((f) => f.unlockInsecureForTests('pw').then(() => 'ok'), (e) => e.kind).catch((e) => e.kind);
    assert.notEqual(k, 'ok', `byte ${i}`);
    if (i >= 150 || (i >= 22 && i < 38) || (i >= 40 && i < 52)) assert.equal(k, 'WrongPasswordOrModified', `byte ${i}`);
  }
  assert.equal(await kindOf(KeyFile.wrap(id, 'pw', KdfParams.insecureForTests(64, 1, 1)).then((f) => f.unlock('pw'))), 'KdfBelowFloor');
});

test('the floor and the caps are checked before Argon2 runs', async () => {
  assert.throws(() => new KdfParams(FLOOR_M_COST_KIB - 1, 3, 1), (/** @type {any} */ e) => e.kind === 'KdfBelowFloor');
  assert.throws(() => new KdfParams(FLOOR_M_COST_KIB, 1, 1), (/** @type {any} */ e) => e.kind === 'KdfBelowFloor');
  for (const [m, t, p, param] of /** @type {Array<[number, number, number, string]>} */ ([[64, 0, 1, 't_cost'], [64, 17, 1, 't_cost'], [64, 1, 0, 'p_cost'], [64, 1, 17, 'p_cost'], [15, 1, 2, 'm_cost'], [1024 * 1024 + 1, 1, 1, 'm_cost']])) {
    assert.throws(() => KdfParams.insecureForTests(m, t, p), (/** @type {any} */ e) => e instanceof KeyFileError && e.kind === 'KdfParamOutOfRange' && /** @type {any} */ (e).param === param);
  }
  assert.equal(KdfParams.RECOMMENDED.mCostKib, 65536);
  // A hostile file asking for 4 GiB of memory is refused at parse time, instantly.
  const id = await Identity.generate();
  const b = (await KeyFile.wrap(id, 'pw', CHEAP)).toBytes();
  new DataView(b.buffer).setUint32(9, 0xffffffff);
  assert.equal(await kindOf(KeyFile.fromBytes(b)), 'KdfParamOutOfRange');
});

test('structural errors have their own kinds', async () => {
  const id = await Identity.generate();
  const good = (await KeyFile.wrap(id, 'pw', CHEAP)).toBytes();
  const edit = (/** @type {(b: Uint8Array, dv: DataView) => unknown} */ f) => {
    const b = Uint8Array.from(good);
    f(b, new DataView(b.buffer));
    return KeyFile.fromBytes(b);
  };
  assert.equal(await kindOf(edit((b) => (b[0] = 0x41))), 'BadMagic');
  assert.equal(await kindOf(edit((b) => (b[7] = 2))), 'UnsupportedVersion');
  assert.equal(await kindOf(edit((b) => (b[8] = 2))), 'UnsupportedKdf');
  assert.equal(await kindOf(edit((b) => (b[21] = 15))), 'SaltLength');
  assert.equal(await kindOf(edit((b) => (b[38] = 2))), 'UnsupportedAead');
  assert.equal(await kindOf(edit((b) => (b[39] = 16))), 'NonceLength');
  assert.equal(await kindOf(edit((b) => (b[52] = 2))), 'UnsupportedKeyType');
  assert.equal(await kindOf(edit((b, dv) => dv.setUint16(53, 65))), 'PublicKeyLength');
  assert.equal(await kindOf(edit((b) => (b[145] ^= 1))), 'InvalidPublicKey');
  assert.equal(await kindOf(edit((b, dv) => dv.setUint32(146, 16))), 'CiphertextLength');
  assert.equal(await kindOf(edit((b, dv) => dv.setUint32(146, 2000))), 'CiphertextLength');
  assert.equal(await kindOf(KeyFile.fromBytes(concat(good, [0]))), 'TrailingBytes');
  for (const len of [0, 5, 20, 100, 149, good.length - 1]) assert.equal(await kindOf(KeyFile.fromBytes(good.subarray(0, len))), 'Truncated', `len ${len}`);
  const armor = (await KeyFile.fromBytes(good)).toArmor();
  assert.equal(await kindOf(KeyFile.fromArmor('x'.repeat(MAX_ARMOR_LEN + 1))), 'TooLarge');
  assert.equal(await kindOf(KeyFile.fromArmor(armor.replace('BEGIN', 'BEGIN X'))), 'Armor');
  assert.equal(await kindOf(KeyFile.fromArmor(armor.replace('-----END', '--END'))), 'Armor');
  assert.equal(await kindOf(KeyFile.fromArmor(armor.replace('KEY-----\n', 'KEY-----'))), 'Armor');
  assert.equal(await kindOf(KeyFile.fromArmor(armor.replace('\n', '\n!'))), 'Base64');
  // A file whose private key is not its public key is refused after decrypting.
  const other = await Identity.generate();
  const wrong = await KeyFile.wrap(other, 'pw', CHEAP);
  const swapped = wrong.toBytes();
  swapped.set(id.publicKey.toSpki(), 55); // changes the associated data too
  assert.equal(await kindOf((await KeyFile.fromBytes(swapped)).unlockInsecureForTests('pw')), 'WrongPasswordOrModified');
  assert.deepEqual(fromBase64(armor.split('\n').slice(1, -2).join('')), good);
});

test('the recommended parameters round-trip through the normal unlock', async () => {
  const id = await Identity.generate();
  const kf = await KeyFile.wrap(id, 'pw');
  assert.equal(kf.kdfParams().mCostKib, 64 * 1024);
  assert.ok((await kf.unlock('pw')).equals(id));
  await assert.rejects(KeyFile.wrap(await Identity.generate({ extractable: false }), 'pw', CHEAP), (/** @type {any} */ e) => e.kind === 'NotExtractable');
});
