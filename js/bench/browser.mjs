// (b) Sealed messages per second inside Chromium: browser.html (served by
// the broker's web_root) runs load.js's round trip over the page's own
// WebSocket; puppeteer-core drives Debian's Chromium headless. One fresh
// page per run. JSON lines: one per run, then the medians.
//   node bench/browser.mjs [--n 20000] [--size 256] [--runs 3]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../test/helpers/chromium.mjs';
import { emit, flags, machine, median, startBroker } from './common.mjs';

const o = flags({ n: 20000, size: 256, runs: 3 });
const profile = await mkdtemp(join(tmpdir(), 'hermit-bench-chromium-'));
const broker = await startBroker();
/** @type {import('puppeteer-core').Browser | undefined} */
let browser;
try {
  browser = await launchChromium({ userDataDir: profile });
  const runs = [];
  let ua = '';
  for (let i = 0; i < o.runs; i++) {
    const page = await browser.newPage();
    await page.goto(`http://${broker.ws}/bench/browser.html?n=${o.n}&size=${o.size}`);
    await page.waitForFunction(() => 'benchResult' in window || 'benchError' in window, { timeout: 600000, polling: 200 });
    const err = await page.evaluate(() => /** @type {any} */ (window).benchError);
    if (err) throw new Error(`the bench page failed: ${err}`);
    const r = await page.evaluate(() => /** @type {any} */ (window).benchResult);
    ua = r.userAgent;
    delete r.userAgent;
    runs.push(r);
    emit({ bench: 'chromium-ws-sealed', run: i + 1, ...r });
    await page.close();
  }
  emit({
    bench: 'chromium-ws-sealed',
    summary: 'median',
    runs: o.runs,
    n: o.n,
    size: o.size,
    produce_msgs_per_s: median(runs.map((r) => r.produce_msgs_per_s)),
    consume_msgs_per_s: median(runs.map((r) => r.consume_msgs_per_s)),
    browser: ua,
    broker: broker.bin,
    ...machine(),
  });
} finally {
  await browser?.close();
  await broker.stop();
  await rm(profile, { recursive: true, force: true });
}
