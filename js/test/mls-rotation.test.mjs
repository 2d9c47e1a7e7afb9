// Account-key rotation and device-list freshness (issue 37, items 1–2) in
// the JavaScript SDK, against a real broker: an account moves to a new key
// (`Device.publishRotation`) and a contact who pinned the old key finds the
// statement (`Device.rotationOf`) and the new account's list; every forged
// statement a broker admin can write in `dir.<account>` is refused as an
// error (signed by another key, one signature bad, about another key,
// truncated, to the same key). A list older than LIST_STALE_AFTER_MS is
// stale; the account's device re-signs a list older than
// LIST_RESIGN_AFTER_MS when it publishes KeyPackages, and leaves a fresh one
// alone. The JS-made vectors (test/vectors/account_rotation_js.json, for the
// Rust SDK to cross-check) decode and verify as they say; regenerate with
// HERMITMQ_WRITE_VECTORS=1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { concat, fromHex, toHex, utf8 } from '../src/bytes.js';
import { connect } from '../src/client/connection.js';
import { Identity, PublicKey, signRaw } from '../src/crypto/identity.js';
import { Ack } from '../src/protocol/frame.js';
import { oneRecord } from '../src/mls/device.js';
import { lowS } from '../src/mls/ecdsa.js';
import {
  DEVICES_KEY,
  Device,
  DeviceList,
  LIST_RESIGN_AFTER_MS,
  LIST_STALE_AFTER_MS,
  MemoryStore,
  MlsError,
  ROTATION_KEY,
  ROTATION_LEN,
  RotationStatement,
  directoryTopic,
} from '../src/mls/index.js';
import { startBroker } from './helpers/broker.mjs';
import { account } from './helpers/mls.mjs';

const VECTORS = new URL('./vectors/account_rotation_js.json', import.meta.url);
const DAY = 24 * 3600 * 1000;

/**
 * A statement built by hand from the format (not by the SDK): `oldSigner`
 * and `newSigner` sign label ‖ old ‖ new ‖ issued_at.
 * @param {{ toSec1(): Uint8Array }} oldKey @param {{ toSec1(): Uint8Array }} newKey @param {number} issuedAt
 * @param {any} oldSigner @param {any} newSigner (Identity)
 */
async function forge(oldKey, newKey, issuedAt, oldSigner, newSigner) {
  const at = new Uint8Array(8);
  new DataView(at.buffer).setBigUint64(0, BigInt(issuedAt));
  const message = concat(utf8('HermitMQ account rotation v1\0'), oldKey.toSec1(), newKey.toSec1(), at);
  const sigs = [lowS(await signRaw(oldSigner, message)), lowS(await signRaw(newSigner, message))];
  return concat(utf8('HMQR'), Uint8Array.of(1), oldKey.toSec1(), newKey.toSec1(), at, ...sigs);
}

/** @param {Promise<unknown>} p @param {RegExp} re */
async function refused(p, re) {
  await assert.rejects(p, (e) => e instanceof MlsError && e.code === 'Rotation' && re.test(e.message));
}

/** A copy of `bytes` with byte `i` set to `v`. @param {Uint8Array} bytes @param {number} i @param {number} v */
function withByte(bytes, i, v) {
  const out = Uint8Array.from(bytes);
  out[i] = v;
  return out;
}

/** A copy of `bytes` with byte `i` flipped. @param {Uint8Array} bytes @param {number} i */
function flip(bytes, i) {
  const out = Uint8Array.from(bytes);
  out[i] ^= 1;
  return out;
}

test('a rotation statement is the format, byte for byte, and round-trips', async () => {
  const [a, b] = await Promise.all([Identity.generate(), Identity.generate()]);
  const s = await RotationStatement.sign(a, b, 1_700_000_000_123);
  const bytes = s.encode();
  assert.equal(bytes.length, 271);
  assert.equal(ROTATION_LEN, 271);
  assert.equal(new TextDecoder().decode(ROTATION_KEY), 'rotation');
  assert.deepEqual(bytes.subarray(0, 5), Uint8Array.of(0x48, 0x4d, 0x51, 0x52, 1));
  assert.deepEqual(bytes.subarray(5, 70), a.publicKey.toSec1());
  assert.deepEqual(bytes.subarray(70, 135), b.publicKey.toSec1());
  assert.equal(new DataView(bytes.buffer, bytes.byteOffset + 135, 8).getBigUint64(0), 1_700_000_000_123n);
  const back = await RotationStatement.open(bytes, a.publicKey);
  assert.deepEqual(back.encode(), bytes);
  assert.ok(back.newKey.equals(b.publicKey));
  // A hand-built statement (the format, not the SDK) verifies too.
  await RotationStatement.open(await forge(a.publicKey, b.publicKey, 5, a, b), a.publicKey);
  await assert.rejects(RotationStatement.sign(a, a), (e) => e instanceof MlsError && e.code === 'Invalid');
});

test('a valid rotation is found by a contact, with the new account list; forged ones are refused', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([account(broker.url, t), account(broker.url, t)]);
  const admin = await connect(broker.url);
  t.after(() => admin.close());
  const bobKey = bob.account;
  const bobFp = bobKey.fingerprint();
  const write = (/** @type {Uint8Array} */ v) => admin.produce(directoryTopic(bobFp), 0, Ack.Durable, oneRecord(ROTATION_KEY, v));

  assert.equal(await alice.rotationOf(bobKey), null, 'no statement: no rotation');
  await alice.deviceList(bobFp); // Alice pins Bob's list (trust on first use)

  // Bob moves to a new key: its own device, on its own connection.
  const newBob = await account(broker.url, t);
  const statement = await bob.publishRotation(newBob);
  const seen = await alice.rotationOf(bobKey);
  assert.ok(seen, 'the rotation is found');
  assert.ok(seen.oldKey.equals(bobKey) && seen.newKey.equals(newBob.account));
  assert.deepEqual(seen.encode(), statement.encode());
  const newList = await alice.deviceList(newBob.account.fingerprint());
  assert.ok(newList.account.equals(newBob.account) && newList.lists(newBob.identity.publicKey.toSec1()), "the new account's list names its device");

  const [mallory, mallory2] = await Promise.all([Identity.generate(), Identity.generate()]);
  const now = Date.now();
  const genuine = await forge(bobKey, mallory.publicKey, now, bob.identity, mallory);
  /** @type {Array<[string, Uint8Array, RegExp]>} */
  const forged = [
    ['signed by another key (Mallory for Bob)', await forge(bobKey, mallory.publicKey, now, mallory, mallory), /old key's signature does not verify/],
    ["only the new key's signature valid", flip(genuine, 143 + 10), /old key's signature does not verify/],
    ["only the old key's signature valid", flip(genuine, 207 + 10), /new key's signature does not verify/],
    ['about another key than the pinned one', await forge(mallory.publicKey, mallory2.publicKey, now, mallory, mallory2), /not the pinned key/],
    ['to the same key', await forge(bobKey, bobKey, now, bob.identity, bob.identity), /new key is the old key/],
    ['truncated', genuine.subarray(0, 270), /271 bytes, not 270/],
    ['one byte too many', concat(genuine, Uint8Array.of(0)), /271 bytes, not 272/],
    ['wrong magic', flip(genuine, 0), /wrong magic/],
    ['unknown format', flip(genuine, 4), /unknown format/],
    // Validly signed (a thief of Bob's key could), but dated two days ahead
    // so that Bob's own later statement would never look newer.
    ['dated two days after the clock', await forge(bobKey, mallory.publicKey, now + 2 * DAY, bob.identity, mallory), /ms after this device's clock/],
  ];
  for (const [what, bytes, re] of forged) {
    await write(bytes);
    await refused(alice.rotationOf(bobKey), re).catch((e) => assert.fail(`${what}: ${e.message}`));
  }
  // Positive control: the same place, a statement both keys signed, accepted.
  await write(genuine);
  assert.ok((await alice.rotationOf(bobKey))?.newKey.equals(mallory.publicKey));
});

test("a stale list is flagged; the account's device re-signs an old list when it publishes KeyPackages, not a fresh one", async (t) => {
  const broker = await startBroker();
  t.after(() => broker.stop());
  const [alice, bob] = await Promise.all([account(broker.url, t), account(broker.url, t)]);
  const bobFp = bob.fingerprint;
  const now = Date.now();
  assert.equal(LIST_STALE_AFTER_MS, 30 * DAY);
  assert.equal(LIST_RESIGN_AFTER_MS, 7 * DAY);

  const first = await alice.deviceList(bobFp);
  assert.equal(first.isStale(), false);
  // Bob's list as a broker could keep serving it: signed 31 days ago.
  const devices = first.devices.map((d) => ({ key: d.key, addedAt: d.addedAt }));
  const old = new DeviceList(bob.account, first.version + 1, now - 31 * DAY, devices);
  await bob.client.produce(directoryTopic(bobFp), 0, Ack.Durable, oneRecord(DEVICES_KEY, await old.sign(bob.identity)));
  const stale = await alice.deviceList(bobFp);
  assert.equal(stale.version, first.version + 1);
  assert.equal(stale.isStale(), true, 'signed 31 days ago: stale');
  assert.equal(stale.isStale(now - 2 * DAY), false, 'seen 29 days after signing: not yet');

  // Publishing KeyPackages re-signs it: same devices, version + 1, issued now.
  await bob.publishKeyPackages(1);
  const resigned = await alice.deviceList(bobFp);
  assert.equal(resigned.version, stale.version + 1);
  assert.ok(resigned.issuedAt >= now && !resigned.isStale());
  assert.deepEqual(resigned.devices.map((d) => toHex(d.key)), devices.map((d) => toHex(d.key)));

  // A list 6 days old is left alone; past 7 days it is re-signed.
  const sixDays = new DeviceList(bob.account, resigned.version + 1, now - 6 * DAY, devices);
  await bob.client.produce(directoryTopic(bobFp), 0, Ack.Durable, oneRecord(DEVICES_KEY, await sixDays.sign(bob.identity)));
  await bob.publishKeyPackages(1);
  assert.equal((await alice.deviceList(bobFp)).version, sixDays.version, 'a fresh list is not re-signed');
  assert.equal(await bob.refreshDeviceList(now + DAY - 60_000), null, "at 7 days less a minute: fresh");
  const later = await bob.refreshDeviceList(now + DAY + 60_000);
  assert.equal(later?.version, sixDays.version + 1, 'past 7 days it is');
  await assert.rejects(otherDevice(bob, broker.url, t), (e) => e instanceof MlsError && e.code === 'Invalid' && /only the account's own device/.test(e.message));
});

/**
 * A second device of `device`'s account asked to re-sign the list: refused.
 * @param {Device} device @param {string} url @param {import('node:test').TestContext} t
 */
async function otherDevice(device, url, t) {
  const key = await Identity.generate();
  const store = new MemoryStore();
  await Device.storeBinding(key, store, await device.bind(key.publicKey));
  const client = await connect(url, { identity: key });
  t.after(() => client.close());
  const second = await Device.open(client, key, store);
  return second.refreshDeviceList();
}

test('the JS-made vectors (test/vectors/account_rotation_js.json) decode and verify as they say', async () => {
  if (process.env.HERMITMQ_WRITE_VECTORS) await writeVectors();
  const v = JSON.parse(await readFile(VECTORS, 'utf8'));
  assert.equal(v.label, 'HermitMQ account rotation v1\\0');
  assert.ok(v.cases.length >= 6);
  for (const c of v.cases) {
    const bytes = fromHex(c.statement);
    const pinned = await PublicKey.fromSec1Bytes(fromHex(c.pinned));
    if (c.valid) {
      const s = await RotationStatement.open(bytes, pinned);
      assert.deepEqual(s.encode(), bytes, c.name);
      assert.equal(s.issuedAt, c.issued_at, c.name);
      assert.equal(toHex(s.newKey.toSec1()), c.new_key, c.name);
    } else {
      await assert.rejects(RotationStatement.open(bytes, pinned), (e) => e instanceof MlsError && e.code === 'Rotation', c.name);
    }
  }
});

// The Rust SDK's vectors (client/tests/vectors/account_rotation.json): this
// SDK accepts exactly the statements it accepts and makes the same bytes
// from them — except a time beyond 2^53 ms, which JavaScript numbers do not
// hold: refused here as malformed (the Rust SDK takes u64::MAX; no clock
// reaches either).
const RUST_VECTORS = new URL('../../client/tests/vectors/account_rotation.json', import.meta.url);

test("the Rust SDK's rotation vectors: the same statements accepted, byte for byte, the same refused", async () => {
  const v = JSON.parse(await readFile(RUST_VECTORS, 'utf8'));
  const keys = await Promise.all(v.keys.map((/** @type {{ sec1: string }} */ k) => PublicKey.fromSec1Bytes(fromHex(k.sec1))));
  let accepted = 0;
  for (const c of v.cases) {
    const bytes = fromHex(c.statement);
    const pinned = keys[c.account];
    if (c.valid && c.issued_at <= Number.MAX_SAFE_INTEGER) {
      const s = await RotationStatement.open(bytes, pinned);
      assert.deepEqual(s.encode(), bytes, c.name);
      assert.ok(s.newKey.equals(keys[c.new]), c.name);
      assert.equal(s.issuedAt, c.issued_at, c.name);
      accepted++;
    } else {
      await assert.rejects(RotationStatement.open(bytes, pinned), (e) => e instanceof MlsError && e.code === 'Rotation', c.name);
    }
  }
  assert.equal(accepted, 3, 'three valid statements fit in a JavaScript number');
});

/** Regenerates the vectors file (fresh keys; ECDSA signatures are randomised). */
async function writeVectors() {
  const [a, b, m] = await Promise.all([Identity.generate(), Identity.generate(), Identity.generate()]);
  const at = 1_760_000_000_000;
  const good = (await RotationStatement.sign(a, b, at)).encode();
  const pinned = toHex(a.publicKey.toSec1());
  const cases = [
    { name: 'valid', statement: good, valid: true },
    { name: 'old signature by another key', statement: await forge(a.publicKey, b.publicKey, at, m, b), valid: false },
    { name: 'new signature by another key', statement: await forge(a.publicKey, b.publicKey, at, a, m), valid: false },
    { name: 'old signature altered', statement: flip(good, 150), valid: false },
    { name: 'issued_at altered', statement: flip(good, 142), valid: false },
    { name: 'old key is not the pinned key', statement: (await RotationStatement.sign(m, b, at)).encode(), valid: false },
    { name: 'new key is the old key', statement: await forge(a.publicKey, a.publicKey, at, a, a), valid: false },
    { name: 'truncated', statement: good.subarray(0, 270), valid: false },
    { name: 'trailing byte', statement: concat(good, Uint8Array.of(0)), valid: false },
    { name: 'format 2', statement: withByte(good, 4, 2), valid: false },
  ].map((c) => ({
    name: c.name,
    pinned,
    statement: toHex(c.statement),
    valid: c.valid,
    ...(c.valid ? { issued_at: at, new_key: toHex(b.publicKey.toSec1()) } : {}),
  }));
  const out = {
    about: 'Account-key rotation statements made by the JavaScript SDK (js/test/mls-rotation.test.mjs, HERMITMQ_WRITE_VECTORS=1); format: docs/MLS.md §4 (account-key rotation). Each case: the statement (hex), the key the reader pinned (uncompressed SEC1 hex), and whether it is accepted.',
    label: 'HermitMQ account rotation v1\\0',
    cases,
  };
  await writeFile(VECTORS, `${JSON.stringify(out, null, 2)}\n`);
}
