// The client state directory in Node: one process of an identity at a time,
// with the Rust CLI too (the same `lock` file: Rust flocks it and writes its
// pid; Node writes its pid and refuses another live one).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';

import { StateDirectory, StateDirectoryError } from '../src/node.js';

const HERMIT = process.env.HERMITMQ_BIN;

test('a state directory is held: another live pid refuses it, a dead one is taken over, close lets go', async () => {
  const base = await mkdtemp(join(tmpdir(), 'hermit-statedir-'));
  try {
    const dir = join(base, 'state');
    const held = await StateDirectory.open(dir);
    assert.equal((await readFile(join(dir, 'lock'), 'utf8')).trim(), String(process.pid));
    // Another live process named in the lock (this test's parent).
    await writeFile(join(dir, 'lock'), `${process.ppid}\n`);
    await assert.rejects(StateDirectory.open(dir), (/** @type {any} */ e) => {
      assert.ok(e instanceof StateDirectoryError, String(e));
      assert.equal(e.kind, 'Locked');
      assert.equal(e.pid, process.ppid);
      assert.match(e.message, /in use by another process/);
      return true;
    });
    // A pid that no longer runs: taken over.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(join(dir, 'lock'), `${gone}\n`);
    const again = await StateDirectory.open(dir);
    await again.close();
    assert.equal(await readFile(join(dir, 'lock'), 'utf8'), '');
    await held.close();
    // Exposed: refused.
    await chmod(dir, 0o755);
    await assert.rejects(StateDirectory.open(dir), (/** @type {any} */ e) => e.kind === 'Permissions' && /chmod 700/.test(e.message));
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test('the Rust CLI and Node refuse a state directory the other holds', { skip: HERMIT ? false : 'HERMITMQ_BIN not set' }, async () => {
  const base = await mkdtemp(join(tmpdir(), 'hermit-statedir-'));
  try {
    const dir = join(base, 'state');
    // Node holds it: the CLI refuses before it connects anywhere.
    const held = await StateDirectory.open(dir);
    const out = spawnSync(/** @type {string} */ (HERMIT), ['topics', 'list', '--broker', '127.0.0.1:1', '--state-dir', dir], { encoding: 'utf8' });
    assert.notEqual(out.status, 0);
    assert.match(out.stderr, new RegExp(`in use by another process \\(pid ${process.pid}\\)`), out.stderr);
    await held.close();
    // The CLI holds it while it waits for the hello of a server that
    // accepts and never answers (up to its connect timeout): Node refuses.
    const silent = createServer(() => {});
    await new Promise((r) => silent.listen(0, '127.0.0.1', () => r(undefined)));
    const port = /** @type {import('node:net').AddressInfo} */ (silent.address()).port;
    const child = spawn(/** @type {string} */ (HERMIT), ['topics', 'list', '--broker', `127.0.0.1:${port}`, '--state-dir', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      // Wait until the CLI has written its pid into the lock (a file
      // gives no event to await: polled, bounded by the CLI's own exit).
      let exited = false;
      child.on('exit', () => { exited = true; });
      for (;;) {
        const text = await readFile(join(dir, 'lock'), 'utf8').catch(() => '');
        if (text.trim() === String(child.pid)) break;
        assert.ok(!exited, 'the CLI exited before it held the directory');
        await new Promise((r) => setTimeout(r, 10));
      }
      await assert.rejects(StateDirectory.open(dir), (/** @type {any} */ e) => e.kind === 'Locked' && e.pid === child.pid);
    } finally {
      child.kill('SIGKILL');
      silent.close();
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});
