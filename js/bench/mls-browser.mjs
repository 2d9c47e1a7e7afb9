// MLS inside Chromium (docs/BENCHMARKS.md "MLS in JavaScript (issue 36)"):
// the same measurements as bench/mls.mjs — application messages sealed and
// opened per second, and Add Commits at 2, 10 and 100 members — run by
// bench/mls-core.js in a page (the SDK and the vendored ts-mls served from
// js/), on the browser's Web Crypto. One fresh page per run.
//   node bench/mls-browser.mjs [--n 2000] [--size 27] [--runs 5]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveSdk } from '../test/helpers/chromium.mjs';
import { emit, flags } from './common.mjs';

const o = flags({ n: 2000, size: 27, runs: 5 });
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const profile = await mkdtemp(join(tmpdir(), 'hermit-bench-mls-'));
const server = await serveSdk(root, ['/bench/']);
/** @type {import('puppeteer-core').Browser | undefined} */
let browser;
try {
  browser = await launchChromium({ userDataDir: profile, protocolTimeout: 600000 });
  for (let run = 1; run <= o.runs; run++) {
    const page = await browser.newPage();
    await page.goto(server.url);
    const r = await page.evaluate(
      async (n, size, core) => {
        const m = await import(core);
        const messages = await m.messages(n, size);
        const commits = [];
        for (const members of [2, 10, 100]) commits.push({ members, ...(await m.addCommit(members)) });
        return { messages, commits, userAgent: navigator.userAgent };
      },
      o.n,
      o.size,
      '/bench/mls-core.js',
    );
    const env = r.userAgent.match(/Chrome\/[0-9.]+/)?.[0] ?? r.userAgent;
    emit({ bench: 'mls-messages', env, run, n: o.n, size: o.size, seal_per_s: Math.round((o.n * 1000) / r.messages.sealMs), open_per_s: Math.round((o.n * 1000) / r.messages.openMs) });
    for (const c of r.commits) emit({ bench: 'mls-add-commit', env, run, members: c.members, make_ms: Number(c.makeMs.toFixed(1)), process_ms: Number(c.processMs.toFixed(1)) });
    await page.close();
  }
} finally {
  await browser?.close();
  server.close();
  await rm(profile, { recursive: true, force: true });
}
