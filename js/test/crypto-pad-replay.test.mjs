import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pad, padme, paddedLen, unpaddedLen } from '../src/crypto/pad.js';
import { Gap, ReplayWindow } from '../src/crypto/replay.js';

test('padme matches the Rust vectors and bounds its overhead', () => {
  const cases = [[0, 0], [1, 1], [2, 2], [3, 3], [9, 10], [28, 28], [29, 30], [100, 104], [1000, 1024], [1025, 1088], [65537, 67584]];
  for (const [len, want] of cases) assert.equal(padme(len), want, `padme(${len})`);
  for (let len = 0; len < 5000; len++) {
    const p = padme(len);
    assert.ok(p >= len && p - len <= Math.floor(len / 8) + 1, `${len} -> ${p}`);
  }
  assert.equal(padme(2 ** 32), 2 ** 32);
  assert.equal(padme(2 ** 32 + 1), 2 ** 32 + 2 ** 26);
  assert.throws(() => padme(-1), RangeError);
  assert.equal(paddedLen(99), 104);
});

test('pad and unpad', () => {
  const p = pad(Uint8Array.of(1, 2));
  assert.equal(p.length, paddedLen(2));
  assert.deepEqual([...p], [1, 2, 0x80]);
  assert.equal(unpaddedLen(Uint8Array.of(1, 2, 0x80, 0, 0)), 2);
  assert.equal(unpaddedLen(Uint8Array.of(0x80)), 0);
  assert.equal(unpaddedLen(Uint8Array.of(1, 2, 0x81, 0)), undefined);
  assert.equal(unpaddedLen(Uint8Array.of(0, 0)), undefined);
  assert.equal(unpaddedLen(new Uint8Array(0)), undefined);
});

/** @param {Gap} [gap] */
const ahead = (gap) => (gap ? { ok: true, late: false, gap } : { ok: true, late: false });

test('replay window: duplicates, old and late records (Rust vectors)', () => {
  const w = ReplayWindow.startingWith(100n);
  assert.deepEqual(w.check(100n), { ok: false, kind: 'Replayed', highest: 100n });
  assert.deepEqual(w.check(101n), ahead());
  w.accept(101n);
  assert.deepEqual(w.check(110n), ahead(new Gap(102n, 109n)));
  w.accept(110n);
  assert.deepEqual(w.check(105n), { ok: true, late: true });
  w.accept(105n);
  assert.deepEqual(w.check(105n), { ok: false, kind: 'Replayed', highest: 110n });
  assert.deepEqual(w.check(99n), { ok: true, late: true });
  w.accept(110n + 1023n);
  assert.deepEqual(w.check(110n), { ok: false, kind: 'Replayed', highest: 1133n });
  assert.deepEqual(w.check(109n), { ok: false, kind: 'TooOld', highest: 1133n });
  assert.deepEqual(w.check(111n), { ok: true, late: true });
});

test('replay window: a big jump clears it, ring bits are reused', () => {
  const w = ReplayWindow.startingWith(5n);
  w.accept(5005n);
  for (let s = 5000n - 1023n + 5n; s < 5005n; s++) assert.deepEqual(w.check(s), { ok: true, late: true });
  assert.equal(/** @type {any} */ (w.check(5005n)).kind, 'Replayed');

  const r = ReplayWindow.startingWith(0n);
  for (let s = 1n; s < 3000n; s++) {
    assert.deepEqual(r.check(s), ahead());
    r.accept(s);
  }
  assert.equal(/** @type {any} */ (r.check(1975n)).kind, 'TooOld');
  assert.equal(/** @type {any} */ (r.check(1976n)).kind, 'Replayed');
  r.accept(3002n);
  assert.deepEqual(r.check(3001n), { ok: true, late: true });
  assert.deepEqual(r.check(3000n), { ok: true, late: true });
});

test('restored window and gaps', () => {
  const w = ReplayWindow.restored(500n);
  assert.equal(/** @type {any} */ (w.check(500n)).kind, 'Replayed');
  assert.equal(/** @type {any} */ (w.check(1n)).kind, 'Replayed');
  assert.deepEqual(w.check(501n), ahead());
  assert.ok(new Gap(7n, 0xffffn).looksLikeRestart());
  assert.ok(!new Gap(7n, 9n).looksLikeRestart());
  assert.equal(new Gap(7n, 9n).len(), 3n);
});
