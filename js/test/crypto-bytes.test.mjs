import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Base64Error, concat, equal, fromBase64, fromHex, fromUtf8, toBase64, toHex, utf8 } from '../src/bytes.js';

test('base64 round-trips every length and matches Node', () => {
  for (let n = 0; n < 70; n++) {
    const b = crypto.getRandomValues(new Uint8Array(n));
    const s = toBase64(b);
    assert.equal(s, Buffer.from(b).toString('base64'));
    assert.deepEqual(fromBase64(s), b);
  }
  const big = new Uint8Array(300_000).map((_, i) => i * 7);
  assert.deepEqual(fromBase64(toBase64(big)), big);
});

test('base64 decoding is strict and canonical, like Rust STANDARD', () => {
  for (const bad of ['A', 'AAA', 'AAAAA', 'AB==', 'AAB=', 'A===', 'AA=A', '=AAA', 'AA AA', 'AA\nAA', '-_AA', 'AAAA====', 'QQ', 'QUI']) {
    assert.throws(() => fromBase64(bad), Base64Error, bad);
  }
  assert.equal(new Base64Error('x').code, 'HERMIT_BASE64');
  assert.deepEqual(fromBase64('QQ=='), Uint8Array.of(0x41));
  assert.deepEqual(fromBase64('QUI='), Uint8Array.of(0x41, 0x42));
  assert.deepEqual(fromBase64(''), new Uint8Array(0));
});

test('utf8 keeps a BOM and refuses invalid bytes', () => {
  const bom = '\ufeffhi';
  assert.equal(fromUtf8(utf8(bom)), bom);
  assert.throws(() => fromUtf8(Uint8Array.of(0xff, 0xfe)), TypeError);
});

test('concat, equal and hex', () => {
  assert.deepEqual(concat(Uint8Array.of(1), [2, 3], new Uint8Array(0)), Uint8Array.of(1, 2, 3));
  assert.ok(equal(Uint8Array.of(1, 2), Uint8Array.of(1, 2)));
  assert.ok(!equal(Uint8Array.of(1, 2), Uint8Array.of(1, 3)));
  assert.ok(!equal(Uint8Array.of(1), Uint8Array.of(1, 0)));
  assert.equal(toHex(Uint8Array.of(0, 15, 255)), '000fff');
  assert.deepEqual(fromHex('000FfF'), Uint8Array.of(0, 15, 255));
  assert.throws(() => fromHex('abc'), TypeError);
  assert.throws(() => fromHex('zz'), TypeError);
});
