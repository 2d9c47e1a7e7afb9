// Known brokers: the file store (format, atomic writes, permissions) and
// the pin check in `connect`, against a stand-in broker
// (helpers/fake-broker.mjs). The real broker: known-brokers-broker.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toHex } from '../src/bytes.js';
import { connect } from '../src/client/connection.js';
import { BrokerIdChanged } from '../src/client/known-brokers.js';
import { KnownBrokersError, KnownBrokersFile } from '../src/client/known-brokers-file.js';
import { Identity } from '../src/crypto/identity.js';
import { Op } from '../src/protocol/frame.js';
import { BrokerFlags } from '../src/protocol/hello.js';
import { fakeBroker, parseAuthenticate, spyIdentity, verifiesBound } from './helpers/fake-broker.mjs';

const ID_A = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);
const ID_B = Uint8Array.from({ length: 16 }, (_, i) => 0xb0 + i);

/** A fresh temporary directory; `state` inside it does not exist yet. */
async function scratch(/** @type {import('node:test').TestContext} */ t) {
  const dir = await mkdtemp(join(tmpdir(), 'hermit-js-pins-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return { dir, state: join(dir, 'state') };
}

test('the file store creates a private directory and file, one line per pin, written atomically', async (t) => {
  const { state } = await scratch(t);
  const pins = await KnownBrokersFile.open(state);
  assert.equal((await stat(state)).mode & 0o777, 0o700);
  assert.equal(pins.path, join(state, 'known-brokers'));
  assert.equal(await pins.get('broker.test', 9094), undefined);
  await pins.set('broker.test', 9094, ID_A);
  await pins.set('::1', 443, ID_B);
  await pins.set('broker.test', 9094, ID_A); // the same pin again: nothing changes
  assert.equal((await stat(pins.path)).mode & 0o777, 0o600);
  const text = await readFile(pins.path, 'utf8');
  const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
  assert.deepEqual(lines, [`broker.test 9094 ${toHex(ID_A)}`, `::1 443 ${toHex(ID_B)}`]);
  assert.ok(text.endsWith('\n'));
  assert.deepEqual(await readdir(state), ['known-brokers'], 'no temporary file left');
  // Another store on the same directory (another process) reads the same pins.
  const again = await KnownBrokersFile.open(state);
  assert.deepEqual(await again.get('broker.test', 9094), ID_A);
  assert.deepEqual(await again.get('::1', 443), ID_B);
  assert.equal(await again.get('broker.test', 9095), undefined);
  // Only a person replaces a pin: set refuses another id.
  await assert.rejects(again.set('broker.test', 9094, ID_B), (/** @type {any} */ e) => e instanceof BrokerIdChanged && e.location === pins.path);
  // Concurrent sets in one process all land.
  await Promise.all(Array.from({ length: 5 }, (_, i) => pins.set(`n${i}.test`, 1000 + i, ID_A)));
  assert.equal((await pins.list()).length, 7);
});

test('comments, blank lines and lines edited by hand are kept; a line removed by hand counts at once', async (t) => {
  const { state } = await scratch(t);
  const pins = await KnownBrokersFile.open(state);
  await writeFile(pins.path, `# mine\n\n  broker.test\t9094   ${toHex(ID_A)}  \r\n`, { mode: 0o600 });
  assert.deepEqual(await pins.get('broker.test', 9094), ID_A);
  await pins.set('other.test', 1, ID_B);
  assert.equal(await readFile(pins.path, 'utf8'), `# mine\n\n  broker.test\t9094   ${toHex(ID_A)}  \r\nother.test 1 ${toHex(ID_B)}\n`);
  await writeFile(pins.path, `# mine\nother.test 1 ${toHex(ID_B)}`, { mode: 0o600 });
  assert.equal(await pins.get('broker.test', 9094), undefined);
  await pins.set('broker.test', 9094, ID_B); // a file without a final newline gets one before the new line
  assert.equal(await readFile(pins.path, 'utf8'), `# mine\nother.test 1 ${toHex(ID_B)}\nbroker.test 9094 ${toHex(ID_B)}\n`);
});

test('a malformed line is an error naming the file and the line', async (t) => {
  const { state } = await scratch(t);
  const pins = await KnownBrokersFile.open(state);
  const good = `broker.test 9094 ${toHex(ID_A)}`;
  const cases = [
    ['broker.test 9094', /found 2 fields/],
    [`bad_name! 9094 ${toHex(ID_A)}`, /"bad_name!" is not a host name or address/],
    [`fe80::1%eth0 9094 ${toHex(ID_A)}`, /not a host name or address/],
    [`Broker.Test. 9094 ${toHex(ID_B)}`, /a second pin for broker\.test 9094 \(the first is on line 2\)/],
    [`broker.test 0 ${toHex(ID_A)}`, /port "0"/],
    [`broker.test 65536 ${toHex(ID_A)}`, /port "65536"/],
    [`broker.test +80 ${toHex(ID_A)}`, /port/],
    [`broker.test 9094 ${toHex(ID_A).slice(1)}g`, /32 hex digits/],
    [`broker.test 9094 ${toHex(ID_A)}00`, /32 hex digits/],
    [`broker.test 9094 ${toHex(ID_A)} extra`, /found 4 fields/],
    [good, /a second pin for broker\.test 9094 \(the first is on line 2\)/],
  ];
  for (const [line, why] of cases) {
    await writeFile(pins.path, `# pins\n${good}\n${line}\n`, { mode: 0o600 });
    await assert.rejects(pins.get('x.test', 1), (/** @type {any} */ e) => e instanceof KnownBrokersError && e.kind === 'Malformed' && e.code === 'KnownBrokers'
      && e.line === 3 && e.path === pins.path && e.message.startsWith(`${pins.path} line 3: `) && /** @type {RegExp} */ (why).test(e.message), String(line));
  }
  // Bytes that are not UTF-8 spoil only their line (as Rust reads it).
  await writeFile(pins.path, Buffer.concat([Buffer.from('# caf\xe9\n', 'latin1'), Buffer.from(`${good}\nbroker\xff.test 1 ${toHex(ID_B)}\n`, 'latin1')]), { mode: 0o600 });
  await assert.rejects(KnownBrokersFile.open(state), (/** @type {any} */ e) => e.kind === 'Malformed' && e.line === 3);
});

test('a line written by hand is read as the SDKs normalize it', async (t) => {
  const { state } = await scratch(t);
  const pins = await KnownBrokersFile.open(state);
  await writeFile(pins.path, `Broker.Test. 9094 ${toHex(ID_A).toUpperCase()}\n[::1]\u00a09 ${toHex(ID_B)}\n`, { mode: 0o600 });
  assert.deepEqual(await pins.get('broker.test', 9094), ID_A);
  assert.deepEqual(await pins.get('::1', 9), ID_B);
  await assert.rejects(pins.set('broker.test', 9094, ID_B), BrokerIdChanged);
});

test('a state directory or file its group or others may access is refused', { skip: process.platform === 'win32' }, async (t) => {
  const { dir, state } = await scratch(t);
  await chmod(dir, 0o755);
  const pins = await KnownBrokersFile.open(state);
  await pins.set('broker.test', 9094, ID_A);
  await chmod(state, 0o750);
  await assert.rejects(KnownBrokersFile.open(state), (/** @type {any} */ e) => e.kind === 'Permissions' && e.path === state && /mode 0750/.test(e.message) && e.message.includes(`chmod 700 ${state}`));
  await assert.rejects(pins.get('broker.test', 9094), (/** @type {any} */ e) => e.kind === 'Permissions');
  await chmod(state, 0o700);
  await chmod(pins.path, 0o644);
  await assert.rejects(pins.get('broker.test', 9094), (/** @type {any} */ e) => e.kind === 'Permissions' && e.path === pins.path && e.message.includes(`chmod 600 ${pins.path}`));
  await assert.rejects(pins.set('other.test', 1, ID_B), (/** @type {any} */ e) => e.kind === 'Permissions');
  await chmod(pins.path, 0o600);
  assert.deepEqual(await pins.get('broker.test', 9094), ID_A);
  // A file where the directory should be.
  await writeFile(join(dir, 'plain'), '');
  await assert.rejects(KnownBrokersFile.open(join(dir, 'plain')), (/** @type {any} */ e) => e instanceof KnownBrokersError);
});

/**
 * A stand-in broker that requires authentication and checks proofs, with a
 * fixed broker id, counting the requests it gets.
 * @param {Uint8Array} brokerId
 */
async function authBroker(brokerId) {
  const seen = { requests: 0 };
  const broker = await fakeBroker({
    brokerId,
    flags: BrokerFlags.AUTH_REQUIRED | BrokerFlags.AUTH_AVAILABLE,
    onRequest: async (req, ws) => {
      seen.requests++;
      if (req.op !== Op.Authenticate) return broker.answer(ws, req, { body: {} });
      const a = parseAuthenticate(req.body);
      if (!(await verifiesBound(broker, a))) return broker.answer(ws, req, { error: { status: 'Unauthorized', message: 'bad signature' } });
      broker.answer(ws, req, { body: { principal: new Uint8Array(await crypto.subtle.digest('SHA-256', a.spki)) } });
    },
  });
  return Object.assign(broker, { seen });
}

test('connect pins the broker id on first use and refuses another one before signing anything', async (t) => {
  const { state } = await scratch(t);
  const knownBrokers = await KnownBrokersFile.open(state);
  const a = await authBroker(ID_A);
  t.after(() => a.close());
  const identity = await spyIdentity();
  const client = await connect(a.url, { identity, knownBrokers });
  await client.close();
  assert.deepEqual(await knownBrokers.get('127.0.0.1', a.port), ID_A);
  // The same broker again: accepted.
  await (await connect(a.url, { identity, knownBrokers })).close();
  assert.equal(identity.signed, 2);

  // Another broker id under the same name and port (the pin edited to stand for one).
  const text = await readFile(knownBrokers.path, 'utf8');
  await writeFile(knownBrokers.path, text.replace(toHex(ID_A), toHex(ID_B)));
  const before = a.seen.requests;
  const err = await connect(a.url, { identity, knownBrokers }).then(() => null, (e) => e);
  assert.ok(err instanceof BrokerIdChanged, String(err));
  assert.equal(err.code, 'BrokerIdChanged');
  assert.ok(err.isAuth && !err.retriable);
  assert.deepEqual([err.dialledName, err.port, err.pinned, err.presented, err.location], ['127.0.0.1', a.port, ID_B, ID_A, knownBrokers.path]);
  for (const part of [`127.0.0.1:${a.port}`, toHex(ID_A), toHex(ID_B), knownBrokers.path, `remove the line "127.0.0.1 ${a.port} ${toHex(ID_B)}"`, 'replaced on purpose', 'new data directory']) {
    assert.ok(err.message.includes(part), `${part} in: ${err.message}`);
  }
  assert.equal(identity.signed, 2, 'nothing signed');
  assert.equal(a.seen.requests, before, 'nothing sent after the hello');
  // Still pinned to what the file says: the refusal changed nothing.
  assert.deepEqual(await knownBrokers.get('127.0.0.1', a.port), ID_B);
});

test('a refused proof pins nothing; an anonymous handshake pins; a failing store is a KnownBrokers error', async (t) => {
  /** @type {Map<string, Uint8Array>} */
  const map = new Map();
  const memory = {
    get: async (/** @type {string} */ name, /** @type {number} */ port) => map.get(`${name} ${port}`),
    set: async (/** @type {string} */ name, /** @type {number} */ port, /** @type {Uint8Array} */ id) => void map.set(`${name} ${port}`, id),
  };
  const a = await authBroker(ID_A);
  t.after(() => a.close());
  const identity = await Identity.generate();
  const liar = { spki: () => identity.spki(), signAuthBound: (/** @type {Uint8Array} */ n, /** @type {Uint8Array} */ id, /** @type {string} */ name, /** @type {Uint8Array} */ cb) => identity.signAuthBound(n, id, 'elsewhere.test', cb) };
  await assert.rejects(connect(a.url, { identity: liar, knownBrokers: memory }), (/** @type {any} */ e) => e.code === 'AuthFailed');
  await assert.rejects(connect(a.url, { knownBrokers: memory }), (/** @type {any} */ e) => e.code === 'AuthRequired');
  assert.equal(map.size, 0);
  const anonymous = await fakeBroker({ brokerId: ID_B });
  t.after(() => anonymous.close());
  await (await connect(anonymous.url, { knownBrokers: memory })).close();
  assert.deepEqual([...map], [[`127.0.0.1 ${anonymous.port}`, ID_B]]);

  const broken = { location: '/nowhere', get: async () => { throw new Error('disk on fire'); }, set: async () => {} };
  await assert.rejects(connect(a.url, { identity, knownBrokers: broken }), (/** @type {any} */ e) => e.code === 'KnownBrokers' && /\/nowhere/.test(e.message) && /disk on fire/.test(e.message) && !e.retriable);
});
