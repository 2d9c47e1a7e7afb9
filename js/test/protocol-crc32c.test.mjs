import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c, crc32cUpdate } from '../src/protocol/crc32c.js';

const enc = new TextEncoder();

test('crc32c matches the RFC 3720 and check vectors', () => {
  assert.equal(crc32c(enc.encode('123456789')), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(0)), 0);
  assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa);
  assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43);
  assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
  assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c);
});

test('crc32c over ranges and in pieces equals the one-shot value at every split', () => {
  const data = Uint8Array.from({ length: 101 }, (_, i) => (i * 37 + 11) & 0xff);
  // The byte-at-a-time reference: no tables beyond the bitwise definition.
  const reference = (/** @type {Uint8Array} */ bytes) => {
    let c = 0xffffffff;
    for (const b of bytes) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    }
    return ~c >>> 0;
  };
  const whole = crc32c(data);
  assert.equal(whole, reference(data));
  for (let split = 0; split <= data.length; split++) {
    assert.equal(crc32cUpdate(crc32c(data, 0, split), data, split), whole, `split at ${split}`);
    assert.equal(crc32c(data, split), reference(data.subarray(split)));
  }
});
