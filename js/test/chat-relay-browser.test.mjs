// Issue 32's must-show for the chat page, in a real Chromium (Debian's,
// headless) against real brokers with auth = "required" serving js/ as
// their web_root:
//
// - The relay: the page is loaded from a relay's origin — a byte forwarder
//   (helpers/relay.mjs) on 127.0.0.2 that passes everything, the page's files
//   and its WebSocket, to the broker on 127.0.0.1. The page dials the
//   relay's host, so its SDK signs the name 127.0.0.2, which the broker does
//   not serve (it answers to `localhost` and to the loopback address a
//   connection arrived at, 127.0.0.1): the broker refuses the forwarded proof
//   (hermit_auth_failures_total{reason="name_not_served"}) and the page
//   says so, naming the name. The relay's Origin is let in (the default
//   allowed_origins lets in loopback origins; a relay could rewrite the
//   header anyway): what stops it is the name in the proof. The same
//   identity, on the page loaded from the broker itself, authenticates.
//   (A browser cannot read the TLS exporter; plain TCP shows the name check.)
// - The pin: the page pins the broker id of the broker behind its address
//   (IndexedDB, store.js `known-brokers`); that broker is replaced by another
//   (another data directory, so another BROKER_ID) at the same address —
//   a forwarding relay on 127.0.0.1 whose upstream the test switches. After
//   a reload the page refuses it, says which broker, both ids and what to do,
//   and sends no Authenticate (the new broker counts no authentication and
//   logs none); "Forget" in the page lets it connect and pin the new id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker } from './helpers/broker.mjs';
import { launchChromium } from './helpers/chromium.mjs';
import { MLS_POLICY } from './helpers/mls.mjs';
import { startRelay } from './helpers/relay.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const JS_DIR = resolve(here, '..');
const PASSWORD = 'a long passphrase for the relay test';

/** @type {import('puppeteer-core').Browser | undefined} */
let browser;
let tmp = '';

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'hermit-chat-relay-'));
  browser = await launchChromium({ userDataDir: join(tmp, 'profile'), protocolTimeout: 30000 });
});

after(async () => {
  await browser?.close().catch(() => {});
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** @param {string} addr @returns {number} */
const portOf = (addr) => Number(addr.slice(addr.lastIndexOf(':') + 1));

/**
 * A chat page in a browser context of its own (its own IndexedDB) that
 * records every CSP violation, from before the page's own scripts.
 * @param {string} url
 */
async function openPage(url) {
  const ctx = await /** @type {import('puppeteer-core').Browser} */ (browser).createBrowserContext();
  const page = await ctx.newPage();
  await page.evaluateOnNewDocument(() => {
    const seen = /** @type {any} */ (window).__violations = /** @type {string[]} */ ([]);
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(url, { waitUntil: 'load' });
  return { page, csp: response?.headers()['content-security-policy'] ?? '' };
}

/** @param {import('puppeteer-core').Page} page @param {string} selector @param {string} value */
async function setValue(page, selector, value) {
  await page.$eval(
    selector,
    (el, v) => {
      const input = /** @type {HTMLInputElement} */ (el);
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    value,
  );
}

/**
 * Wait until the page is connected or shows an error; the error texts and
 * their codes, the status line and whether it is ready.
 * @param {import('puppeteer-core').Page} page
 */
async function outcome(page) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.querySelector('#errors li') !== null, { timeout: 45000 });
  return page.evaluate(() => ({
    ready: document.body.dataset.ready === 'true',
    errors: [...document.querySelectorAll('#errors li')].map((li) => ({ code: /** @type {HTMLElement} */ (li).dataset.code, text: li.querySelector('span')?.textContent ?? '' })),
    status: document.getElementById('status')?.textContent ?? '',
    fingerprint: document.getElementById('own-fingerprint')?.textContent?.replace(/ /g, '') ?? '',
  }));
}

/** @param {import('puppeteer-core').Page} page @param {string} name */
async function createIdentity(page, name) {
  await page.waitForSelector('#create-panel:not([hidden])');
  await setValue(page, '#new-name', name);
  await setValue(page, '#new-password', PASSWORD);
  await page.click('#create-btn');
  return outcome(page);
}

/** The page's pins (store.js `known-brokers`), read through its own store module. @param {import('puppeteer-core').Page} page */
function pins(page) {
  return page.evaluate(async () => {
    const store = await import(new URL('store.js', location.href).href);
    return store.get('known-brokers');
  });
}

/** @param {import('puppeteer-core').Page} page @returns {Promise<string[]>} */
const violations = (page) => page.evaluate(() => /** @type {any} */ (window).__violations);

test('the chat page loaded from a relay signs the relay\'s name; the broker refuses the forwarded proof; from the broker itself it authenticates', { timeout: 120000 }, async (t) => {
  const broker = await startBroker({ config: MLS_POLICY, args: ['--web-root', JS_DIR] });
  t.after(() => broker.stop());
  const relay = await startRelay({ host: '127.0.0.2', upstream: () => ({ host: '127.0.0.1', port: portOf(broker.wsAddr) }) });
  t.after(() => relay.close());
  const relayed = `127.0.0.2:${relay.port}`;
  const refused = () => broker.counter('hermit_auth_failures_total', 'reason="name_not_served"');
  const before = await refused();

  // The page and the SDK come from the broker, through the relay: its policy lets the page connect to the relay's host.
  const { page, csp } = await openPage(`http://${relayed}/examples/chat/`);
  assert.match(csp, new RegExp(`connect-src 'self' ws://${relayed.replace(/\./g, '\\.')};`), 'the broker served the page to the relay\'s host');
  const shown = await createIdentity(page, 'Victim');
  assert.equal(shown.ready, false, 'the relayed login was accepted');
  assert.equal(shown.errors.length, 1, JSON.stringify(shown.errors));
  const [err] = shown.errors;
  assert.equal(err.code, 'Unauthorized', err.text);
  // The page says where it dialled and what it signed; the broker's answer names the name it does not serve.
  assert.ok(err.text.startsWith(`Cannot connect to ws://${relayed}: authentication to ws://${relayed}`), err.text);
  assert.ok(err.text.includes('(signed for the name 127.0.0.2)'), err.text);
  assert.match(err.text, /failed: authentication failed: .*"127\.0\.0\.2"/);
  assert.equal(shown.status, `not connected · ws://${relayed}`);
  // The proof reached the broker (so the Origin was let in) and was refused for its name.
  assert.equal(await refused(), before + 1, 'the broker refused it for the name');
  assert.doesNotMatch(broker.stderr(), /audit: authenticated/);
  assert.equal(await pins(page), undefined, 'a refused handshake pins nothing');
  assert.deepEqual(await violations(page), []);

  // The same identity on the page from the broker itself (its key file, imported): authenticated.
  const armor = await page.$eval('#own-armor', (el) => /** @type {HTMLTextAreaElement} */ (el).value);
  const { page: direct } = await openPage(`http://${broker.wsAddr}/examples/chat/`);
  await direct.waitForSelector('#import-panel:not([hidden])');
  await setValue(direct, '#import-name', 'Victim');
  await setValue(direct, '#import-armor', armor);
  await setValue(direct, '#import-password', PASSWORD);
  await direct.click('#import-btn');
  const ok = await outcome(direct);
  assert.deepEqual(ok.errors, []);
  assert.equal(ok.ready, true);
  assert.equal(ok.fingerprint, shown.fingerprint, 'the same identity');
  assert.equal(ok.status, `connected · ws://${broker.wsAddr}`);
  assert.match(broker.stderr(), new RegExp(`audit: authenticated .*principal=${ok.fingerprint}`));
  assert.equal(await refused(), before + 1);
  assert.deepEqual(await pins(direct), { [`127.0.0.1 ${portOf(broker.wsAddr)}`]: await broker.brokerId() }, 'the broker is pinned');
  assert.deepEqual(await violations(direct), []);
});

test('the chat page refuses another broker at its pinned address with nothing signed, and connects once the user forgets the pin', { timeout: 120000 }, async (t) => {
  const [first, second] = await Promise.all([1, 2].map(() => startBroker({ config: MLS_POLICY, args: ['--web-root', JS_DIR] })));
  t.after(() => Promise.all([first.stop(), second.stop()]));
  const [firstId, secondId] = await Promise.all([first.brokerId(), second.brokerId()]);
  assert.notEqual(firstId, secondId);
  // One address, 127.0.0.1:<port>, for both brokers in turn (the page's origin, so its IndexedDB, stays the same).
  let behind = first;
  const front = await startRelay({ upstream: () => ({ host: '127.0.0.1', port: portOf(behind.wsAddr) }) });
  t.after(() => front.close());
  const where = `127.0.0.1:${front.port}`;

  // First contact: trust on first use.
  const { page } = await openPage(`http://${where}/examples/chat/`);
  const created = await createIdentity(page, 'Pia');
  assert.deepEqual(created.errors, []);
  assert.equal(created.ready, true);
  assert.deepEqual(await pins(page), { [`127.0.0.1 ${front.port}`]: firstId });

  // The broker is replaced: another data directory, so another broker id, at the same address.
  await first.stop();
  behind = second;
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#unlock-panel:not([hidden])');
  await setValue(page, '#unlock-password', PASSWORD);
  await page.click('#unlock-btn');
  const shown = await outcome(page);
  assert.equal(shown.ready, false, 'the page connected to the substitute');
  assert.equal(shown.errors.length, 1, JSON.stringify(shown.errors));
  const [err] = shown.errors;
  assert.equal(err.code, 'BrokerIdChanged', err.text);
  for (const part of [`Refused the broker at ${where}:`, `presented broker id ${secondId}`, `this page pinned ${firstId} for ${where}`, 'signed and sent nothing', 'If the broker was replaced on purpose', 'Forget it in this page']) {
    assert.ok(err.text.includes(part), `${JSON.stringify(part)} in: ${err.text}`);
  }
  assert.equal(shown.status, `not connected · ws://${where}`);
  // No Authenticate reached the substitute: it counted no refusal and logged no login.
  assert.equal(await second.counterTotal('hermit_auth_failures_total'), 0);
  assert.doesNotMatch(second.stderr(), /audit: authenticat/);
  assert.deepEqual(await pins(page), { [`127.0.0.1 ${front.port}`]: firstId }, 'the pin stays');

  // The replacement was on purpose: Forget it in the page; it connects and pins the new id.
  const forget = await page.waitForSelector(`#errors li[data-code="BrokerIdChanged"] button.forget-broker`);
  assert.equal(await forget?.evaluate((b) => b.textContent), `Forget ${where}`);
  await forget?.click();
  await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.querySelector('#errors li:not([data-code="BrokerIdChanged"])') !== null, { timeout: 30000 });
  const after = await outcome(page);
  assert.deepEqual(after.errors, []);
  assert.equal(after.status, `connected · ws://${where}`);
  assert.match(second.stderr(), new RegExp(`audit: authenticated .*principal=${after.fingerprint}`));
  assert.deepEqual(await pins(page), { [`127.0.0.1 ${front.port}`]: secondId });
  assert.deepEqual(await violations(page), []);
});
