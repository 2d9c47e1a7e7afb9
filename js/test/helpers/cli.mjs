// Runs the Rust CLI (`hermit produce`, `consume`, `keygen`, …) for the
// interop tests: the same binary as helpers/broker.mjs starts. Passwords go
// in HERMIT_PASSWORD (never argv, as the CLI insists).
import { spawn } from 'node:child_process';
import { STATE_RULE, hermitBin } from './broker.mjs';

/** The chat-inbox policy of docs/SECURITY.md §3 (owners may also create their inbox) and open `group.*` topics. */
export const CHAT_POLICY = `
auth = "required"
[[acl]]
principal = "*"
topics = "inbox.*"
allow = ["produce"]
[[acl]]
principal = "*"
topics = "inbox.{principal}"
allow = ["consume", "describe", "create"]
# Group topics: readable by any authenticated user, but every record on them is
# MULTI-sealed to the group's members (others see only that it is not for them).
[[acl]]
principal = "*"
topics = "group.*"
allow = ["produce", "consume", "describe", "create"]
${STATE_RULE}`;

/**
 * Run `hermit ARGS…`, feeding `input` on stdin; resolves when it exits.
 * @param {string[]} args
 * @param {{ input?: string|Uint8Array, env?: Record<string,string>, timeoutMs?: number }} [opts]
 * @returns {Promise<{ code: number|null, stdout: string, stderr: string }>}
 */
export function hermit(args, opts = {}) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NO_COLOR: '1', ...opts.env };
    const child = spawn(hermitBin(), args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hermit ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 20000} ms:\n${stderr}`));
    }, opts.timeoutMs ?? 20000);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command that exits without reading stdin (`pubkey`, `key export`)
    // may close the pipe before this write lands (a loaded machine delays
    // it): EPIPE then is not a failure; its exit code and output still are.
    child.stdin.on('error', (e) => {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EPIPE') reject(e);
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * `hermit consume … --exit-on-end -o jsonl`: every line parsed.
 * @param {{ broker: string, topic: string, identity: string, trust: string[], password: string }} o
 * @returns {Promise<any[]>}
 */
export async function consumeJsonl(o) {
  const args = ['consume', '-b', o.broker, '-t', o.topic, '-i', o.identity, '--exit-on-end', '--output', 'jsonl'];
  for (const t of o.trust) args.push('--trust', t);
  const r = await hermit(args, { env: { HERMIT_PASSWORD: o.password } });
  if (r.code !== 0) throw new Error(`hermit consume exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    // seq is a u64: kept as a string (JSON numbers lose precision past 2^53).
    .map((l) => JSON.parse(l.replace(/"seq":(\d+)/, '"seq":"$1"')));
}

/**
 * `hermit produce`, one message per line of `lines`.
 * @param {{ broker: string, topic: string, identity: string, to: string[], password: string, lines: string[] }} o
 */
export async function produceLines(o) {
  const args = ['produce', '-b', o.broker, '-t', o.topic, '-i', o.identity, '--print-offsets'];
  for (const t of o.to) args.push('--to', t);
  const r = await hermit(args, { input: o.lines.map((l) => `${l}\n`).join(''), env: { HERMIT_PASSWORD: o.password } });
  if (r.code !== 0) throw new Error(`hermit produce exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

/**
 * `hermit keygen --out FILE` with the password in the environment.
 * @param {string} out
 * @param {string} password
 */
export async function keygen(out, password) {
  const r = await hermit(['keygen', '--out', out], { env: { HERMIT_PASSWORD: password } });
  if (r.code !== 0) throw new Error(`hermit keygen exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}
