// What the bench drivers share: a broker process of their own (so its pid
// and CPU time are known), CPU time from /proc, medians, JSON lines.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const JS_DIR = resolve(here, '..');
export const HERMIT = process.env.HERMITMQ_BIN ?? resolve(here, '../../target/release/hermit');
const FALLBACK = resolve(here, '../../target/debug/hermit');

/** Clock ticks per second for /proc/<pid>/stat. */
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** `--name value` flags with defaults. @param {Record<string, string|number>} defaults */
export function flags(defaults) {
  const out = { ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)$/.exec(argv[i]);
    if (!m || !(m[1] in out)) throw new Error(`unknown flag ${argv[i]}; flags: ${Object.keys(defaults).map((k) => `--${k}`).join(' ')}`);
    const v = argv[++i];
    out[m[1]] = typeof defaults[m[1]] === 'number' ? Number(v) : v;
  }
  return /** @type {any} */ (out);
}

/** The broker binary: $HERMITMQ_BIN, else target/release, else target/debug (say which). */
export function hermitBin() {
  if (process.env.HERMITMQ_BIN || existsSync(HERMIT)) return HERMIT;
  return FALLBACK;
}

/**
 * Start `hermit broker` (auth off, loopback, TCP + WebSocket on free ports, web_root js/).
 * @returns {Promise<{ pid: number, tcp: string, ws: string, bin: string, stop: () => Promise<void> }>}
 */
export async function startBroker() {
  const bin = hermitBin();
  const dir = await mkdtemp(join(tmpdir(), 'hermit-bench-'));
  const child = spawn(
    bin,
    ['broker', '--data-dir', join(dir, 'data'), '--listen', '127.0.0.1:0', '--ws-listen', '127.0.0.1:0', '--web-root', JS_DIR, '--log-format', 'text'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RUST_LOG: 'info', NO_COLOR: '1' } },
  );
  let log = '';
  const exited = new Promise((r) => child.once('exit', r));
  const addrs = await new Promise((res, rej) => {
    /** @type {string|null} */
    let tcp = null;
    /** @type {string|null} */
    let ws = null;
    child.stderr.on('data', (c) => {
      log += c;
      for (const line of log.split('\n')) {
        const m = /addr=([0-9.]+:\d+)/.exec(line);
        if (!m || !/listening/.test(line)) continue;
        if (/WebSocket/.test(line)) ws = m[1];
        else if (!/TLS|metrics/i.test(line)) tcp ??= m[1];
      }
      if (tcp && ws) res({ tcp, ws });
    });
    exited.then((code) => rej(new Error(`broker exited (${code}):\n${log}`)));
  });
  return {
    pid: /** @type {number} */ (child.pid),
    ...addrs,
    bin,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** User + system CPU time of a process so far, in ms. @param {number} pid */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the ")" that ends the command name: utime is field 14, stime 15.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

/** @param {number[]} xs */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Print one JSON line. @param {object} o */
export function emit(o) {
  process.stdout.write(`${JSON.stringify(o)}\n`);
}

/** What the numbers were measured on. */
export function machine() {
  return { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?', node: process.version, load1: Number(os.loadavg()[0].toFixed(2)) };
}
