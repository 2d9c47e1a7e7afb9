// What holds in the chat page's origin, in a real Chromium (Debian's,
// headless) against a real broker serving js/ as its web_root:
// - the Content-Security-Policy header stops markup injected into a page of
//   the origin: an inline <script>, an event-handler attribute and a
//   javascript: URL in a file under web_root, and an inline script and an
//   onerror attribute injected into the live chat page; each is reported as a
//   violation (securitypolicyviolation event, console message);
// - the messages kept in IndexedDB are encrypted under the storage key: no
//   text in the raw records, a record moved under another id does not open,
//   and plaintext records of database version 1 are deleted on upgrade;
// - the deployment of docs/OPERATIONS.md: the page on an origin of its own
//   (a static server with the same policy, the broker named in a <meta>)
//   talks to a broker elsewhere that lets only that origin in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker } from './helpers/broker.mjs';
import { launchChromium } from './helpers/chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const JS_DIR = resolve(here, '..');

/** @type {Awaited<ReturnType<typeof startBroker>> | undefined} */
let broker;
/** @type {import('puppeteer-core').Browser | undefined} */
let browser;
let tmp = '';

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'hermit-page-'));
  broker = await startBroker({ args: ['--web-root', JS_DIR] });
  browser = await launchChromium({ userDataDir: join(tmp, 'profile'), protocolTimeout: 30000 });
});

after(async () => {
  await browser?.close().catch(() => {});
  await broker?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const origin = () => `http://${/** @type {any} */ (broker).wsAddr}`;

/**
 * A page in a context of its own that records, from before any of the
 * document's own scripts, every CSP violation (the event) and console message.
 */
async function watchedPage() {
  const ctx = await /** @type {import('puppeteer-core').Browser} */ (browser).createBrowserContext();
  const page = await ctx.newPage();
  /** @type {string[]} */
  const console = [];
  page.on('console', (m) => console.push(m.text()));
  // Runs through the DevTools protocol, which the page's policy does not govern.
  await page.evaluateOnNewDocument(() => {
    const seen = /** @type {any} */ (window).__violations = /** @type {string[]} */ ([]);
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  return { page, console };
}

/** @param {import('puppeteer-core').Page} page @returns {Promise<string[]>} */
const violations = (page) => page.evaluate(() => /** @type {any} */ (window).__violations);

test('markup injected into a page of the origin does not run: inline script, handler attribute, javascript: URL', { timeout: 30000 }, async () => {
  const { page, console } = await watchedPage();
  const response = await page.goto(`${origin()}/test/fixtures/csp-inline.html`, { waitUntil: 'load' });
  const csp = response?.headers()['content-security-policy'] ?? '';
  assert.match(csp, /script-src 'self' /, 'the page came with the policy');
  // Wait for the outcome either way: the violations, or a marker set.
  /** @param {number} n */
  const outcome = async (n) => {
    await page.waitForFunction(
      (want) => /** @type {any} */ (window).__violations.length >= want || Object.keys(document.documentElement.dataset).length > 0,
      { timeout: 10000 },
      n,
    );
    const ran = await page.evaluate(() => ({ ...document.documentElement.dataset }));
    assert.deepEqual(ran, {}, `injected code ran: ${JSON.stringify(ran)}`);
  };
  await outcome(2);
  await page.click('#js-link');
  await outcome(3);
  const seen = await violations(page);
  assert.deepEqual(
    seen.map((v) => v.split(' ')[0]).sort(),
    ['script-src-attr', 'script-src-elem', 'script-src-elem'],
    `violations reported: ${JSON.stringify(seen)}`,
  );
  assert.ok(seen.every((v) => v.endsWith(' inline')), JSON.stringify(seen));
  // "Executing inline script violates…" (older Chromium: "Refused to execute inline script because it violates…").
  assert.ok(console.some((m) => /inline script.* violates the following Content Security Policy directive 'script-src /.test(m)), console.join('\n'));
});

test('script injected into the live chat page does not run, and the page keeps working', { timeout: 30000 }, async () => {
  const { page } = await watchedPage();
  await page.goto(`${origin()}/examples/chat/`, { waitUntil: 'load' });
  await page.waitForSelector('#create-panel:not([hidden])');
  // As a message rendered with innerHTML, or a DOM-built script, would be.
  await page.evaluate(() => {
    document.getElementById('errors')?.insertAdjacentHTML('beforeend', '<li><img src="/no-such-image.png" onerror="document.body.dataset.pwned = \'handler\'"></li>');
    const s = document.createElement('script');
    s.textContent = "document.body.dataset.pwned = 'script'";
    document.body.append(s);
  });
  await page.waitForFunction(() => /** @type {any} */ (window).__violations.length >= 2 || document.body.dataset.pwned !== undefined, { timeout: 10000 });
  assert.equal(await page.evaluate(() => document.body.dataset.pwned), undefined, 'injected code ran');
  assert.deepEqual((await violations(page)).map((v) => v.split(' ')[0]).sort(), ['script-src-attr', 'script-src-elem']);
});

/**
 * Every record of every store of the page's database, bytes as Latin-1 text
 * (what a copied profile holds, before IndexedDB's own encoding).
 * @param {import('puppeteer-core').Page} page
 */
function rawDatabase(page) {
  return page.evaluate(async () => {
    const d = await new Promise((res, rej) => {
      const r = indexedDB.open('hermit-chat');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    /** @type {Record<string, any[]>} */
    const out = { version: [d.version] };
    for (const name of d.objectStoreNames) {
      out[name] = await new Promise((res, rej) => {
        const q = d.transaction(name).objectStore(name).getAll();
        q.onsuccess = () => res(q.result);
        q.onerror = () => rej(q.error);
      });
    }
    d.close();
    return JSON.stringify(out, (_k, v) => (v instanceof Uint8Array ? { bytes: String.fromCharCode(...v) } : v));
  });
}

test('stored messages are encrypted, bound to their id; version 1 plaintext is deleted on upgrade', { timeout: 60000 }, async () => {
  const { page } = await watchedPage();
  // A version 1 database, as the page before issue 32 left it.
  await page.goto(`${origin()}/examples/chat/README.md`, { waitUntil: 'load' });
  await page.evaluate(
    () =>
      new Promise((res, rej) => {
        const r = indexedDB.open('hermit-chat', 1);
        r.onupgradeneeded = () => {
          r.result.createObjectStore('kv');
          r.result.createObjectStore('messages', { keyPath: 'id' }).put({ id: 'inbox.x/0/7', text: 'legacy plaintext marker', ts: 1 });
        };
        r.onsuccess = () => (r.result.close(), res(undefined));
        r.onerror = () => rej(r.error);
      }),
  );
  assert.match(await rawDatabase(page), /legacy plaintext marker/);

  await page.goto(`${origin()}/examples/chat/`, { waitUntil: 'load' });
  await page.waitForSelector('#create-panel:not([hidden])');
  await page.$eval('#new-name', (el) => (/** @type {HTMLInputElement} */ (el).value = 'Dora'));
  await page.$eval('#new-password', (el) => (/** @type {HTMLInputElement} */ (el).value = 'dora’s password'));
  await page.click('#create-btn');
  await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.querySelector('#errors li') !== null, { timeout: 45000 });
  assert.deepEqual(await page.$$eval('#errors li', (l) => l.map((li) => li.textContent)), []);
  const upgraded = JSON.parse(await rawDatabase(page));
  assert.deepEqual(upgraded.version, [2]);
  assert.deepEqual(upgraded.messages, [], 'the plaintext records of version 1 are gone');
  assert.equal(upgraded.kv.some((/** @type {any} */ v) => v?.kdf === 'argon2id' && v.wrapped?.bytes.length === 40), true, 'a wrapped storage key');

  // Two messages through the page's own store module (the instance app.js unlocked).
  const result = await page.evaluate(async () => {
    const store = await import(new URL('store.js', location.href).href);
    await store.putMessage({ id: 'inbox.d/0/1', text: 'first secret words', ts: 1 });
    await store.putMessage({ id: 'inbox.d/0/2', text: 'second secret words', ts: 2 });
    return store.allMessages();
  });
  assert.deepEqual(result.messages.map((/** @type {any} */ m) => m.text), ['first secret words', 'second secret words']);
  assert.deepEqual(result.unreadable, []);
  const raw = await rawDatabase(page);
  assert.doesNotMatch(raw, /secret words/, 'a message text is in IndexedDB in the clear');
  const records = JSON.parse(raw).messages;
  assert.deepEqual(records.map((/** @type {any} */ r) => Object.keys(r).sort()), [['ct', 'id', 'iv', 'v'], ['ct', 'id', 'iv', 'v']]);
  assert.notEqual(records[0].iv.bytes, records[1].iv.bytes);

  // Swapped under each other's ids (by someone with the profile), neither opens.
  const swapped = await page.evaluate(async () => {
    const d = await new Promise((res) => {
      const r = indexedDB.open('hermit-chat');
      r.onsuccess = () => res(r.result);
    });
    await new Promise((res) => {
      const tx = d.transaction('messages', 'readwrite');
      const s = tx.objectStore('messages');
      const all = s.getAll();
      all.onsuccess = () => {
        const [a, b] = all.result;
        s.put({ ...b, id: a.id });
        s.put({ ...a, id: b.id });
      };
      tx.oncomplete = res;
    });
    d.close();
    const store = await import(new URL('store.js', location.href).href);
    return store.allMessages();
  });
  assert.deepEqual(swapped.messages, []);
  assert.deepEqual(swapped.unreadable.sort(), ['inbox.d/0/1', 'inbox.d/0/2']);
});

test('the page on an origin of its own talks to a broker elsewhere that lets only that origin in', { timeout: 60000 }, async () => {
  // The static server first: its origin goes into the broker's allowed_origins.
  /** @type {string} */
  let policy = '';
  const web = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const served = /^\/(src|examples\/chat)\/[\w./@-]*$/.test(path) && !path.includes('..') && !path.includes('node_modules');
    const file = join(JS_DIR, path.endsWith('/') ? `${path}index.html` : path);
    try {
      if (!served) throw new Error('not served');
      let body = await readFile(file);
      if (file.endsWith('index.html')) {
        // The operator's copy names the broker (OPERATIONS.md).
        body = Buffer.from(body.toString().replace('<head>', `<head>\n  <meta name="hermitmq-broker" content="ws://${/** @type {any} */ (elsewhere).wsAddr}">`));
      }
      const type = file.endsWith('.html') ? 'text/html' : file.endsWith('.css') ? 'text/css' : 'text/javascript';
      res.writeHead(200, { 'content-type': type, 'content-security-policy': policy, 'x-content-type-options': 'nosniff' }).end(body);
    } catch {
      res.writeHead(404, { 'content-security-policy': policy }).end();
    }
  });
  await new Promise((r) => web.listen(0, '127.0.0.1', () => r(undefined)));
  const pageOrigin = `http://localhost:${/** @type {import('node:net').AddressInfo} */ (web.address()).port}`;
  /** @type {Awaited<ReturnType<typeof startBroker>> | undefined} */
  let elsewhere;
  try {
    elsewhere = await startBroker({ config: `allowed_origins = ["${pageOrigin}"]\n` });
    // The nginx example's header, with this test's broker in connect-src.
    policy =
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval' 'sha256-e9JSrX7LBs+K1KMIXH7Ksx1lRSjKvfb/v5bf6UkYjew='; style-src 'self'; img-src 'self'; " +
      `connect-src ws://${elsewhere.wsAddr}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'`;
    const { page } = await watchedPage();
    await page.goto(`${pageOrigin}/examples/chat/`, { waitUntil: 'load' });
    await page.waitForSelector('#create-panel:not([hidden])');
    await page.$eval('#new-name', (el) => (/** @type {HTMLInputElement} */ (el).value = 'Erin'));
    await page.$eval('#new-password', (el) => (/** @type {HTMLInputElement} */ (el).value = 'erin’s password'));
    await page.click('#create-btn');
    await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.querySelector('#errors li') !== null, { timeout: 45000 });
    assert.deepEqual(await page.$$eval('#errors li', (l) => l.map((li) => li.textContent)), []);
    assert.equal(await page.$eval('#status', (el) => el.textContent), `connected · ws://${elsewhere.wsAddr}`);
    assert.deepEqual(await violations(page), []);
    // A page of any other origin (a loopback one too, which the default would let in) is refused.
    const [host, port] = elsewhere.wsAddr.split(':');
    const status = await new Promise((res, rej) => {
      const req = request({
        host,
        port,
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Protocol': 'hermitmq.v3',
          Origin: origin(),
        },
      });
      req.on('response', (r) => (r.resume(), res(r.statusCode)));
      req.on('upgrade', (_r, socket) => (socket.destroy(), res(101)));
      req.on('error', rej);
      req.end();
    });
    assert.equal(status, 403, `an upgrade from ${origin()}`);
  } finally {
    web.close();
    await elsewhere?.stop();
  }
});
