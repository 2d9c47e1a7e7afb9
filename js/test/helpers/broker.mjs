// Starts and stops a real `hermit broker` for the tests: a temp data dir,
// plain TCP and WebSocket listeners on free ports (port 0), an optional TOML
// config. The binary: env HERMITMQ_BIN, else ../target/debug/hermit relative
// to js/. Stopped with SIGTERM and awaited (the broker drains and exits).
// `restart` ends it (SIGKILL by default: a crash) and starts it again on the
// same data dir and the same ports, so clients reconnect to the same URL.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The ACL rule giving each principal its own state topic (docs/SECURITY.md §3). */
export const STATE_RULE = `# Each principal's own state topic: the SDKs keep their sealed replay state
# and DIRECT budgets there (docs/ENVELOPE.md §13).
[[acl]]
principal = "*"
topics = "state.{principal}"
allow = ["produce", "consume", "create", "describe"]
`;

/**
 * The chat-inbox policy of docs/SECURITY.md: anyone authenticated may write
 * to any inbox (and so create it), only its owner may read and describe it.
 */
export const INBOX_POLICY = `
auth = "required"
[[acl]]
principal = "*"
topics = "inbox.*"
allow = ["produce", "create"]
[[acl]]
principal = "*"
topics = "inbox.{principal}"
allow = ["consume", "describe", "create"]
${STATE_RULE}`;

/** The broker binary the tests run. */
export function hermitBin() {
  return process.env.HERMITMQ_BIN ?? resolve(here, '../../../target/debug/hermit');
}

/** Whether the binary exists (tests say why they cannot run otherwise). */
export function haveBroker() {
  return existsSync(hermitBin());
}

/**
 * Start a broker and wait until both listeners are up (and the wss one, with `wss`).
 * @param {{ config?: string, args?: string[], env?: Record<string,string>, wss?: boolean, dataDir?: string }} [opts]
 *   `config`: TOML text written to a file passed with --config; `wss`: the
 *   config has a `wss_listen` (with `tls_cert`, `tls_key`): wait for it too.
 *   `restart`: end the broker (`signal`, default SIGKILL) and start it again
 *   on the same data dir, tcp, ws and admin ports (a `wss_listen` of the
 *   config keeps its configured port); `dataDir`: start on this data dir
 *   (not removed by `stop`) instead of a new one.
 * @returns {Promise<{ url: string, tcpAddr: string, wsAddr: string, wssAddr: string|null, dataDir: string, brokerId: () => Promise<string>,
 *   counter: (name: string, labels?: string) => Promise<number>, counterTotal: (name: string) => Promise<number>,
 *   stderr: () => string, stop: () => Promise<number|string|null>, dataContains: (needle: Uint8Array|string) => Promise<boolean>,
 *   restart: (how?: { signal?: NodeJS.Signals, beforeStart?: () => Promise<void> }) => Promise<void>, kill: (signal?: NodeJS.Signals) => Promise<number|string|null>,
 *   start: () => Promise<void> }>}
 */
export async function startBroker(opts = {}) {
  const bin = hermitBin();
  if (!existsSync(bin)) throw new Error(`no broker binary at ${bin}: build it with \`cargo build -p hermit-cli\` or set HERMITMQ_BIN`);
  const dir = await mkdtemp(join(tmpdir(), 'hermit-js-'));
  const dataDir = opts.dataDir ?? join(dir, 'data');
  /** @type {string[]} */
  const extra = [];
  if (opts.config !== undefined) {
    const path = join(dir, 'hermit.toml');
    await writeFile(path, opts.config);
    extra.push('--config', path);
  }
  extra.push(...(opts.args ?? []));
  let log = '';
  /** The running process and its exit. @type {{ child: import('node:child_process').ChildProcessWithoutNullStreams | any, exited: Promise<number|string|null> }} */
  let proc;
  /**
   * Spawn the broker on these listen addresses; resolves with the addresses it listens on.
   * @param {{ tcp: string, ws: string, admin: string }} listen
   * @returns {Promise<{ tcp: string, ws: string, wss: string|null }>}
   */
  const launch = (listen) => {
    const args = ['broker', '--data-dir', dataDir, '--listen', listen.tcp, '--ws-listen', listen.ws, '--admin-listen', listen.admin, '--log-format', 'text', ...extra];
    const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'info', NO_COLOR: '1', ...opts.env } });
    /** @type {Promise<number|string|null>} exit code, or the signal that ended it */
    const exited = new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal)));
    proc = { child, exited };
    const from = log.length;
    return listening(child, exited, from);
  };
  /**
   * @param {any} child
   * @param {Promise<number|string|null>} exited
   * @param {number} from where this run's log starts
   * @returns {Promise<{ tcp: string, ws: string, wss: string|null }>}
   */
  const listening = (child, exited, from) => new Promise((resolveAddrs, reject) => {
    /** @type {string|null} */
    let tcp = null;
    /** @type {string|null} */
    let ws = null;
    /** @type {string|null} */
    let wss = null;
    let done = false;
    const onData = (/** @type {Buffer} */ chunk) => {
      log += chunk.toString();
      if (done) return;
      // Strip ANSI colours, should the log be coloured anyway.
      // eslint-disable-next-line no-control-regex
      for (const line of log.slice(from).replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
        const m = /addr=([0-9.]+:\d+)/.exec(line);
        if (!m || !/listening/.test(line)) continue;
        if (/WebSocket over TLS/.test(line)) wss = m[1];
        else if (/WebSocket/.test(line)) ws = m[1];
        else if (!/TLS|admin|metrics|wss/i.test(line)) tcp = tcp ?? m[1];
      }
      if (tcp && ws && (wss || !opts.wss)) {
        done = true;
        resolveAddrs({ tcp, ws, wss });
      }
    };
    child.stderr.on('data', onData);
    exited.then((code) => reject(new Error(`broker exited (${code}) before listening:\n${log.slice(from)}`)));
  });
  const addrs = await launch({ tcp: '127.0.0.1:0', ws: '127.0.0.1:0', admin: '127.0.0.1:0' });
  /** The admin listener's address, from the first run's log. */
  const adminAddr = () => {
    // eslint-disable-next-line no-control-regex
    const admin = /admin listening.*?addr=([0-9.]+:\d+)|addr=([0-9.]+:\d+).*admin listening/.exec(log.replace(/\x1b\[[0-9;]*m/g, ''));
    if (!admin) throw new Error(`no admin listener in the log:\n${log}`);
    return admin[1] ?? admin[2];
  };
  /** @type {Promise<number|string|null>|null} */
  let stopped = null;
  /** The lines of the admin listener's /metrics. */
  const metrics = async () => (await (await fetch(`http://${adminAddr()}/metrics`)).text()).split('\n');
  /** End the running broker with `signal` and wait for it. @param {NodeJS.Signals} [signal] */
  const kill = (signal = 'SIGKILL') => {
    const { child, exited } = proc;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  const admin = adminAddr();
  /** Start it again (after `kill`) on the same data dir and ports. */
  const start = async () => {
    const again = await launch({ tcp: addrs.tcp, ws: addrs.ws, admin });
    if (again.tcp !== addrs.tcp || again.ws !== addrs.ws) throw new Error(`the restarted broker listens on ${JSON.stringify(again)}, not ${JSON.stringify(addrs)}`);
  };
  return {
    url: `ws://${addrs.ws}/`,
    tcpAddr: addrs.tcp,
    wsAddr: addrs.ws,
    wssAddr: addrs.wss,
    dataDir,
    // The broker id it presents (<data_dir>/BROKER_ID, lowercase hex).
    brokerId: async () => (await readFile(join(dataDir, 'BROKER_ID'), 'utf8')).trim(),
    // A counter from the admin listener's /metrics (`labels` as written
    // there, e.g. 'reason="name_not_served"'); 0 when it is not listed.
    counter: async (name, labels = '') => {
      const want = `${name}${labels ? `{${labels}}` : ''} `;
      const line = (await metrics()).find((l) => l.startsWith(want));
      return line ? Number(line.slice(want.length)) : 0;
    },
    // A counter summed over all its labels (every reason of
    // hermit_auth_failures_total, say); 0 when it is not listed.
    counterTotal: async (name) =>
      (await metrics())
        .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0),
    stderr: () => log,
    stop: () => {
      if (!stopped) {
        stopped = kill('SIGTERM').then(async (code) => {
          await rm(dir, { recursive: true, force: true });
          return code;
        });
      }
      return stopped;
    },
    kill,
    start,
    restart: async ({ signal = 'SIGKILL', beforeStart } = {}) => {
      await kill(signal);
      await beforeStart?.();
      await start();
    },
    // Whether any file under the data dir holds `needle` (plaintext checks).
    dataContains: async (needle) => {
      const n = typeof needle === 'string' ? Buffer.from(needle) : Buffer.from(needle);
      /** @type {(d: string) => Promise<boolean>} */
      const walk = async (d) => {
        for (const e of await readdir(d, { withFileTypes: true })) {
          const p = join(d, e.name);
          if (e.isDirectory()) {
            if (await walk(p)) return true;
          } else if ((await readFile(p)).includes(n)) return true;
        }
        return false;
      };
      return walk(dataDir);
    },
  };
}
