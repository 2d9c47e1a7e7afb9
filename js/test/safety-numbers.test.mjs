// Safety numbers (docs/SECURITY.md §6) against the vectors the Rust SDK wrote
// and checks (client/tests/safety_numbers.rs): the two SDKs give the same
// digits for the same keys.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { Identity, KeyError, PublicKey } from '../src/crypto/identity.js';
import { SafetyNumber, accountHalf, safetyNumber } from '../src/trust/safety.js';

/**
 * @typedef {{ scalar: string, spki: string, half: string }} Account
 * @typedef {{ name: string, a: Account, b: Account, digits: string, display: string }} Case
 */

/** @type {{ cases: Case[], keys: Account[] }} */
const vectors = JSON.parse(
  await readFile(new URL('../../client/tests/vectors/safety_numbers.json', import.meta.url), 'utf8'),
);

// Each half is 5,201 awaited digests: the tests run their keys concurrently
// (Web Crypto works on a thread pool), or they would take half a minute.

test('every case gives the stored digits, either way round', async () => {
  assert.ok(vectors.cases.length >= 6);
  // Each case's halves are checked with the keys (next test): every account
  // of a case is one of them.
  const keyHalves = new Map(vectors.keys.map(({ spki, half }) => [spki, half]));
  await Promise.all(
    vectors.cases.map(async ({ name, a, b, digits, display }) => {
      assert.equal(keyHalves.get(a.spki), a.half, `${name}: a is one of the keys`);
      assert.equal(keyHalves.get(b.spki), b.half, `${name}: b is one of the keys`);
      assert.equal(digits, [a.half, b.half].sort().join(''), `${name}: the halves in ascending order`);
      const [ka, kb] = await Promise.all([PublicKey.fromSpkiBase64(a.spki), PublicKey.fromSpkiBase64(b.spki)]);
      const [ab, ba] = await Promise.all([safetyNumber(ka, kb), safetyNumber(kb, ka)]);
      assert.ok(ab instanceof SafetyNumber);
      assert.equal(ab.digits, digits, `${name}: digits`);
      assert.equal(ab.toString(), display, `${name}: display`);
      assert.equal(ba.digits, digits, `${name}: b, a`);
      assert.ok(ab.equals(ba), `${name}: the same both ways round`);
    }),
  );
});

test('thirty-two keys give the thirty-two stored halves, all different', async () => {
  assert.equal(vectors.keys.length, 32);
  const halves = await Promise.all(
    vectors.keys.map(async ({ scalar, spki, half }) => {
      const got = await accountHalf(await PublicKey.fromSpkiBase64(spki));
      assert.equal(got, half, scalar);
      return got;
    }),
  );
  assert.equal(new Set(halves).size, 32);
});

test('another key on either side changes the number', async () => {
  const [a, b, ...others] = await Promise.all(vectors.keys.slice(0, 5).map(({ spki }) => PublicKey.fromSpkiBase64(spki)));
  const numbers = await Promise.all([
    safetyNumber(a, b),
    ...others.flatMap((other) => [safetyNumber(other, b), safetyNumber(a, other)]),
  ]);
  assert.equal(new Set(numbers.map((n) => n.digits)).size, numbers.length);
});

test('a fresh key: 30 digits, 12 groups of 5, shown without secrets', async () => {
  const [a, b] = await Promise.all([Identity.generate(), Identity.generate()]);
  assert.match(await accountHalf(a.publicKey), /^\d{30}$/);
  const n = await safetyNumber(a.publicKey, b.publicKey);
  assert.match(n.digits, /^\d{60}$/);
  assert.match(n.toString(), /^(\d{5} ){11}\d{5}$/);
  assert.equal(inspect(n), `SafetyNumber(${n})`);
});

test('anything but a PublicKey is refused with a KeyError', async () => {
  const id = await Identity.generate();
  const spki = /** @type {PublicKey} */ (/** @type {unknown} */ (id.publicKey.toSpki()));
  const asKey = /** @type {PublicKey} */ (/** @type {unknown} */ (id));
  for (const bad of [spki, asKey]) {
    await assert.rejects(accountHalf(bad), (e) => e instanceof KeyError && e.code === 'HERMIT_KEY' && e.kind === 'InvalidArgument');
    await assert.rejects(safetyNumber(id.publicKey, bad), KeyError);
    await assert.rejects(safetyNumber(bad, id.publicKey), KeyError);
  }
  assert.throws(() => new SafetyNumber('0'.repeat(60), Symbol('construct')), TypeError);
});
