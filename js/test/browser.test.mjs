// The chat page in a real Chromium (Debian's, headless, driven by
// puppeteer-core) against a real broker: auth = "required", the chat-inbox
// ACL, the page and the SDK served by the broker's own web_root over the
// same port as its WebSocket listener.
//
// Alice, Bob and Mallory each create an identity in their own browser
// context (so each has its own IndexedDB); Carol imports a key file made by
// `hermit keygen`. They exchange public keys, Alice's sealed text shows on
// Bob's page; `hermit consume` (Carol's key) opens what Alice's page sent and
// Bob's page opens what `hermit produce` sent; the group of three works; the
// broker's data dir holds none of the texts, and neither does any page's
// IndexedDB (messages are stored encrypted); Mallory's page, asked to read
// Bob's inbox, shows the broker's Unauthorized. All of it under the
// broker's Content-Security-Policy, which no page violates. Screenshots of
// Alice's and Bob's pages go to target/screenshots/ (untracked); to refresh
// the ones in docs/images/ run with HERMITMQ_SCREENSHOT_DIR=docs/images.
//
// Then the broker restarts under two chatting pages (issue 34): both status
// badges show the drop and the recovery, a message typed during the outage
// is shown pending and arrives once after it, and the chat goes on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker } from './helpers/broker.mjs';
import { launchChromium } from './helpers/chromium.mjs';
import { CHAT_POLICY, consumeJsonl, keygen, produceLines } from './helpers/cli.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const JS_DIR = resolve(here, '..');
const SHOTS = resolve(process.env.HERMITMQ_SCREENSHOT_DIR ?? resolve(here, '../../target/screenshots'));
const PASSWORD = 'a long passphrase for the test';

/** @type {Awaited<ReturnType<typeof startBroker>> | undefined} */
let broker;
/** @type {import('puppeteer-core').Browser | undefined} */
let browser;
let tmp = '';
/** Console errors and page crashes, printed when a step fails. */
const pageLog = /** @type {string[]} */ ([]);

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'hermit-browser-'));
  broker = await startBroker({ config: CHAT_POLICY, args: ['--web-root', JS_DIR] });
  browser = await launchChromium({ userDataDir: join(tmp, 'profile'), protocolTimeout: 30000 });
});

after(async () => {
  // Both even when a step failed; the browser first (its pages hold connections).
  await browser?.close().catch(() => {});
  await broker?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/**
 * A chat page of its own browser context (its own IndexedDB).
 * @param {string} who
 */
async function openPage(who) {
  const ctx = await /** @type {import('puppeteer-core').Browser} */ (browser).createBrowserContext();
  const page = await ctx.newPage();
  await page.setViewport({ width: 1200, height: 780 });
  page.on('console', (m) => m.type() === 'error' && pageLog.push(`[${who}] console: ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`[${who}] pageerror: ${e}`));
  // Every CSP violation, from before the page's own scripts (through the DevTools protocol, outside the policy).
  await page.evaluateOnNewDocument(() => {
    const seen = /** @type {any} */ (window).__violations = /** @type {string[]} */ ([]);
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(`http://${/** @type {any} */ (broker).wsAddr}/examples/chat/`, { waitUntil: 'load' });
  assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self' 'wasm-unsafe-eval' 'sha256-/, 'the page is served under the policy');
  return page;
}

/** The CSP violations the page reported. @param {import('puppeteer-core').Page} page @returns {Promise<string[]>} */
function violations(page) {
  return page.evaluate(() => /** @type {any} */ (window).__violations);
}

/**
 * Every record of the page's IndexedDB as text, bytes as Latin-1 (what a
 * copied profile holds), and how many message records it has.
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
    const out = {};
    for (const name of d.objectStoreNames) {
      out[name] = await new Promise((res, rej) => {
        const q = d.transaction(name).objectStore(name).getAll();
        q.onsuccess = () => res(q.result);
        q.onerror = () => rej(q.error);
      });
    }
    d.close();
    return { text: JSON.stringify(out, (_k, v) => (v instanceof Uint8Array ? String.fromCharCode(...v) : v)), messages: out.messages.length };
  });
}

/** @param {import('puppeteer-core').Page} page */
async function waitReady(page) {
  await page.waitForFunction(
    () => document.body.dataset.ready === 'true' || document.querySelector('#errors li') !== null,
    { timeout: 30000 },
  );
  const errors = await pageErrors(page);
  assert.deepEqual(errors, [], 'the page reported errors while starting');
  return page.evaluate(() => ({
    spki: /** @type {HTMLTextAreaElement} */ (document.getElementById('own-pubkey')).value,
    fingerprint: /** @type {HTMLElement} */ (document.getElementById('own-fingerprint')).textContent?.replace(/ /g, '') ?? '',
  }));
}

/** The texts of the page's error list. @param {import('puppeteer-core').Page} page */
function pageErrors(page) {
  return page.$$eval('#errors li', (lis) => lis.map((li) => li.textContent ?? ''));
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

/** @param {import('puppeteer-core').Page} page @param {string} name */
async function createIdentity(page, name) {
  await page.waitForSelector('#create-panel:not([hidden])');
  await setValue(page, '#new-name', name);
  await setValue(page, '#new-password', PASSWORD);
  await page.click('#create-btn');
  return waitReady(page);
}

/** @param {import('puppeteer-core').Page} page @param {string} name @param {string} armor */
async function importIdentity(page, name, armor) {
  await page.waitForSelector('#import-panel:not([hidden])');
  await setValue(page, '#import-name', name);
  await setValue(page, '#import-armor', armor);
  await setValue(page, '#import-password', PASSWORD);
  await page.click('#import-btn');
  return waitReady(page);
}

/** @param {import('puppeteer-core').Page} page @param {string} name @param {{ spki: string, fingerprint: string }} key */
async function addContact(page, name, key) {
  await setValue(page, '#contact-name', name);
  await setValue(page, '#contact-key', key.spki);
  // The fingerprint is shown before the contact is added.
  await page.waitForFunction((fp) => document.getElementById('contact-fp-preview')?.textContent?.replace(/ /g, '').includes(fp), {}, key.fingerprint);
  await page.click('#contact-add');
  await page.waitForSelector(`#conversations li[data-conv="c:${key.fingerprint}"]`);
}

/** @param {import('puppeteer-core').Page} page @param {string} conv */
async function selectConversation(page, conv) {
  await page.waitForSelector(`#conversations li[data-conv="${conv}"] button`);
  await page.click(`#conversations li[data-conv="${conv}"] button`);
  await page.waitForFunction((c) => document.getElementById('messages')?.dataset.conv === c, {}, conv);
}

/** Type and send `text` in `conv`; resolves once the broker acknowledged it. @param {import('puppeteer-core').Page} page @param {string} conv @param {string} text */
async function send(page, conv, text) {
  await selectConversation(page, conv);
  await page.type('#compose-text', text);
  await page.click('#send-btn');
  await page.waitForFunction(
    (c, t) =>
      [...document.querySelectorAll('#messages li.message[data-dir="out"]')].some(
        (li) => /** @type {HTMLElement} */ (li).dataset.conv === c && li.querySelector('.text')?.textContent === t && /** @type {HTMLElement} */ (li).dataset.state !== 'sending',
      ),
    {},
    conv,
    text,
  );
  const state = await page.$$eval('#messages li.message[data-dir="out"]', (lis, t) => lis.filter((li) => li.querySelector('.text')?.textContent === t).map((li) => /** @type {HTMLElement} */ (li).dataset.state), text);
  assert.deepEqual(state, ['sent'], `sending ${JSON.stringify(text)}: ${await pageErrors(page)}`);
}

/**
 * Wait until the page shows `text` received in `conv` from `from` (a fingerprint); returns the sender's shown name.
 * @param {import('puppeteer-core').Page} page @param {string} conv @param {string} text @param {string} from
 */
async function received(page, conv, text, from) {
  try {
    await page.waitForFunction(
      (c, t) =>
        [...document.querySelectorAll('#messages li.message[data-dir="in"]')].some(
          (li) => /** @type {HTMLElement} */ (li).dataset.conv === c && li.querySelector('.text')?.textContent === t,
        ),
      { timeout: 15000 },
      conv,
      text,
    );
  } catch (e) {
    throw new Error(`${JSON.stringify(text)} never showed in ${conv}; page errors: ${JSON.stringify(await pageErrors(page))}; log: ${pageLog.join('\n')}`, { cause: e });
  }
  return page.$$eval(
    '#messages li.message[data-dir="in"]',
    (lis, c, t) => {
      const li = /** @type {HTMLElement} */ (lis.find((l) => /** @type {HTMLElement} */ (l).dataset.conv === c && l.querySelector('.text')?.textContent === t));
      return { from: li.dataset.from, name: li.querySelector('.who')?.textContent };
    },
    conv,
    text,
  ).then((r) => {
    assert.equal(r.from, from, `sender of ${JSON.stringify(text)}`);
    return r.name;
  });
}

test('two browsers chat sealed through a real broker; the CLI reads and writes the same inboxes; a group of three; Mallory is refused', { timeout: 90000 }, async () => {
  const b = /** @type {NonNullable<typeof broker>} */ (broker);
  const carolKeyFile = join(tmp, 'carol.key');
  const [alice, bob, carol, mallory] = await Promise.all([openPage('alice'), openPage('bob'), openPage('carol'), openPage('mallory'), keygen(carolKeyFile, PASSWORD)]);

  // Identities: three made in the pages (Web Crypto + SEALKEY in IndexedDB), Carol's from `hermit keygen`.
  const carolArmor = await readFile(carolKeyFile, 'utf8');
  const [A, B, C, M] = await Promise.all([
    createIdentity(alice, 'Alice'),
    createIdentity(bob, 'Bob'),
    importIdentity(carol, 'Carol', carolArmor),
    createIdentity(mallory, 'Mallory'),
  ]);
  const carolPubFile = join(tmp, 'carol.pub');
  assert.ok((await readFile(carolPubFile, 'utf8')).includes(C.spki), 'the imported key is the one `hermit keygen` made');
  assert.equal(new Set([A.fingerprint, B.fingerprint, C.fingerprint, M.fingerprint]).size, 4);
  // The SEALKEY armor is in the page's IndexedDB, not the private key in the clear.
  const stored = await alice.evaluate(async () => {
    const { get } = await import(new URL('store.js', location.href).href);
    return get('identity');
  });
  assert.match(stored.armor, /^-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----/);
  assert.equal(stored.name, 'Alice');

  // Everyone adds everyone (Mallory adds no one and no one adds Mallory).
  await Promise.all([
    addContact(alice, 'Bob', B).then(() => addContact(alice, 'Carol', C)),
    addContact(bob, 'Alice', A).then(() => addContact(bob, 'Carol', C)),
    addContact(carol, 'Alice', A).then(() => addContact(carol, 'Bob', B)),
  ]);

  // Alice → Bob, DIRECT into Bob's inbox; Bob's page shows Alice's text, named as Bob named her.
  const hello = 'Hello Bob! This is Alice, sealed in my browser.';
  await send(alice, `c:${B.fingerprint}`, hello);
  assert.equal(await received(bob, `c:${A.fingerprint}`, hello, A.fingerprint), 'Alice');
  const reply = 'Hi Alice — got it, and the broker only saw ciphertext.';
  await send(bob, `c:${A.fingerprint}`, reply);
  assert.equal(await received(alice, `c:${B.fingerprint}`, reply, B.fingerprint), 'Bob');

  // Browser → `hermit consume`: Alice's page writes to Carol's inbox, the CLI opens it with carol.key.
  const toCarol = 'Carol, can your terminal read this? <b>not bold</b>';
  await send(alice, `c:${C.fingerprint}`, toCarol);
  const alicePub = join(tmp, 'alice.pub');
  const bobPub = join(tmp, 'bob.pub');
  await writeFile(alicePub, `${A.spki}\n`);
  await writeFile(bobPub, `${B.spki}\n`);
  const cli = await consumeJsonl({ broker: b.tcpAddr, topic: `inbox.${C.fingerprint}`, identity: carolKeyFile, trust: [alicePub], password: PASSWORD });
  assert.deepEqual(cli.map((r) => [r.payload, r.sender, r.mode]), [[toCarol, A.fingerprint, 'direct']]);
  // Carol's page (the same key, imported) shows it too, as text: no markup was interpreted.
  await received(carol, `c:${A.fingerprint}`, toCarol, A.fingerprint);
  assert.equal(await carol.$$eval('#messages .text b', (els) => els.length), 0);

  // `hermit produce` → browser: the CLI (Carol's key) writes to Bob's inbox, Bob's page opens it.
  const fromCli = 'Hello Bob, from the hermit CLI over TCP';
  await produceLines({ broker: b.tcpAddr, topic: `inbox.${B.fingerprint}`, identity: carolKeyFile, to: [bobPub], password: PASSWORD, lines: [fromCli] });
  assert.equal(await received(bob, `c:${C.fingerprint}`, fromCli, C.fingerprint), 'Carol');

  // A group of three: Alice creates it (invites go DIRECT into Bob's and Carol's inboxes), then MULTI on the group topic.
  await selectConversation(alice, `c:${B.fingerprint}`);
  await setValue(alice, '#group-name', 'Weekend plans');
  for (const fp of [B.fingerprint, C.fingerprint]) await alice.click(`#group-members input[value="${fp}"]`);
  await alice.click('#group-create');
  const groupConv = await alice
    .waitForSelector('#conversations li[data-kind="group"]')
    .then((el) => /** @type {NonNullable<typeof el>} */ (el).evaluate((li) => /** @type {HTMLElement} */ (li).dataset.conv ?? ''));
  assert.match(groupConv, /^g:group\.[0-9a-f]{32}$/);
  await Promise.all([bob, carol].map((p) => p.waitForSelector(`#conversations li[data-conv="${groupConv}"]`, { timeout: 15000 })));
  const q = 'Who is in for Saturday? Départ à 9 h.';
  await send(alice, groupConv, q);
  await Promise.all([received(bob, groupConv, q, A.fingerprint), received(carol, groupConv, q, A.fingerprint)]);
  const yes = 'Count me in!';
  await send(bob, groupConv, yes);
  await Promise.all([received(alice, groupConv, yes, B.fingerprint), received(carol, groupConv, yes, B.fingerprint)]);
  const yesToo = 'Me too — I will bring the map.';
  await send(carol, groupConv, yesToo);
  await Promise.all([received(alice, groupConv, yesToo, C.fingerprint), received(bob, groupConv, yesToo, C.fingerprint)]);

  // Mallory has no key of Bob's: asked to read Bob's inbox, the broker refuses (over WebSocket) and the page says so.
  await mallory.click('details.card summary');
  await setValue(mallory, '#listen-topic', `inbox.${B.fingerprint}`);
  await mallory.click('#listen-btn');
  const refusal = await mallory
    .waitForSelector('#errors li[data-code="Unauthorized"]', { timeout: 10000 })
    .then((el) => /** @type {NonNullable<typeof el>} */ (el).evaluate((li) => li.textContent ?? ''));
  assert.match(refusal, /not authorized/);
  assert.match(refusal, new RegExp(`inbox\\.${B.fingerprint}`));
  assert.equal(await mallory.$$eval('#messages li.message[data-dir="in"]', (l) => l.length), 0);
  // The group topic is readable by anyone authenticated (group.*), but what is on it opens only for its members.
  await setValue(mallory, '#listen-topic', groupConv.slice(2));
  await mallory.click('#listen-btn');
  await mallory.waitForFunction(() => document.getElementById('conv-info')?.textContent?.endsWith('3 records sealed for others'), { timeout: 10000 });
  assert.equal(await mallory.$$eval('#messages li.message[data-dir="in"]', (l) => l.length), 0);
  assert.equal((await pageErrors(mallory)).length, 1, 'only the Unauthorized');

  // The broker stored ciphertext only.
  const texts = [hello, reply, toCarol, fromCli, q, yes, yesToo];
  for (const t of texts) assert.equal(await b.dataContains(t), false, `plaintext ${JSON.stringify(t)} in the data dir`);
  // And the pages keep what they sent and received encrypted (store.js).
  for (const [name, p, n] of /** @type {const} */ ([['alice', alice, 6], ['bob', bob, 6], ['carol', carol, 4]])) {
    // A message is stored right after it is shown: wait for the last write.
    await p.waitForFunction(
      (want) =>
        new Promise((res) => {
          const r = indexedDB.open('hermit-chat');
          r.onsuccess = () => {
            const c = r.result.transaction('messages').objectStore('messages').count();
            c.onsuccess = () => (r.result.close(), res(c.result >= want));
          };
        }),
      { timeout: 10000 },
      n,
    );
    const raw = await rawDatabase(p);
    assert.equal(raw.messages, n, `${name}: messages stored`);
    for (const t of texts) assert.ok(!raw.text.includes(t), `${name}'s IndexedDB holds ${JSON.stringify(t)} in the clear`);
  }
  // Nothing went wrong on the way (errors are shown on the page, never dropped).
  for (const [name, p] of /** @type {const} */ ([['alice', alice], ['bob', bob], ['carol', carol]])) assert.deepEqual(await pageErrors(p), [], name);

  // Screenshots for docs/ and the README: Alice in the group, Bob with Alice.
  await mkdir(SHOTS, { recursive: true });
  await selectConversation(alice, groupConv);
  await selectConversation(bob, `c:${A.fingerprint}`);
  for (const p of [alice, bob]) await p.evaluate(() => document.querySelector('.sidebar')?.scrollTo(0, 0));
  await alice.screenshot({ path: join(SHOTS, 'chat-alice.png') });
  await bob.screenshot({ path: join(SHOTS, 'chat-bob.png') });

  // A reload: the key file from IndexedDB unlocks only with the password; the history is back; sending goes on.
  await alice.reload({ waitUntil: 'load' });
  await alice.waitForSelector('#unlock-panel:not([hidden])');
  assert.equal((await alice.$eval('#stored-fingerprint', (el) => el.textContent ?? '')).replace(/ /g, '').endsWith(A.fingerprint), true);
  await setValue(alice, '#unlock-password', 'not the password');
  await alice.click('#unlock-btn');
  await alice.waitForSelector('#errors li[data-code="WrongPasswordOrModified"]', { timeout: 15000 });
  await alice.click('#errors li .dismiss');
  await setValue(alice, '#unlock-password', PASSWORD);
  await alice.click('#unlock-btn');
  assert.equal((await waitReady(alice)).fingerprint, A.fingerprint);
  await received(alice, `c:${B.fingerprint}`, reply, B.fingerprint);
  await received(alice, groupConv, yesToo, C.fingerprint);
  // What Alice sent to Bob's inbox she never reads back: only her (encrypted) store has it.
  const shownOut = await alice.$$eval('#messages li.message[data-dir="out"] .text', (els) => els.map((el) => el.textContent));
  assert.ok(shownOut.includes(hello) && shownOut.includes(toCarol), JSON.stringify(shownOut));
  const again = 'Back after a reload, still sealed.';
  await send(alice, `c:${B.fingerprint}`, again);
  await received(bob, `c:${A.fingerprint}`, again, A.fingerprint);
  assert.deepEqual(await pageErrors(bob), []);
  // The page anchors its sealed state in IndexedDB (store.js `stateAnchors`,
  // docs/ENVELOPE.md §13): its DIRECT budgets and its inbox consumer at
  // least; the reload above started at those anchors without a refusal.
  await alice.waitForFunction(
    () =>
      new Promise((res) => {
        const r = indexedDB.open('hermit-chat');
        r.onsuccess = () => {
          const q = r.result.transaction('kv').objectStore('kv').get('state-anchors');
          q.onsuccess = () => (r.result.close(), res(Object.values(q.result ?? {}).filter((a) => /^[1-9][0-9]*$/.test(a?.g) && /^[0-9a-f]{64}$/.test(a?.r)).length >= 2));
        };
      }),
    { timeout: 10000 },
  );
  assert.deepEqual(await pageErrors(alice), []);
  for (const [name, p] of /** @type {const} */ ([['alice', alice], ['bob', bob], ['carol', carol], ['mallory', mallory]])) {
    assert.deepEqual(await violations(p), [], `${name}'s page broke its Content-Security-Policy`);
  }
});

/**
 * Record every state the status badge takes from now on (`window.__badge`).
 * @param {import('puppeteer-core').Page} page
 */
function recordBadge(page) {
  return page.evaluate(() => {
    const el = /** @type {HTMLElement} */ (document.getElementById('status'));
    const seen = /** @type {string[]} */ ([el.dataset.state ?? '']);
    /** @type {any} */ (window).__badge = seen;
    new MutationObserver(() => seen.push(el.dataset.state ?? '')).observe(el, { attributes: true, attributeFilter: ['data-state'] });
  });
}

/** The badge's states since recordBadge. @param {import('puppeteer-core').Page} page @returns {Promise<string[]>} */
function badgeStates(page) {
  return page.evaluate(() => /** @type {any} */ (window).__badge);
}

/** Wait until the badge is in one of `states`. @param {import('puppeteer-core').Page} page @param {string[]} states */
function badgeIn(page, states) {
  return page.waitForFunction((s) => s.includes(document.getElementById('status')?.dataset.state ?? ''), { timeout: 30000 }, states);
}

test('the broker restarts under two chatting pages: both badges show the drop and the recovery; a message typed during the outage is pending, then arrives once', { timeout: 120000 }, async () => {
  const b = /** @type {NonNullable<typeof broker>} */ (broker);
  const [alice, bob] = await Promise.all([openPage('alice-2'), openPage('bob-2')]);
  const [A, B] = await Promise.all([createIdentity(alice, 'Alice'), createIdentity(bob, 'Bob')]);
  await Promise.all([addContact(alice, 'Bob', B), addContact(bob, 'Alice', A)]);
  const before = 'Before the restart.';
  await send(alice, `c:${B.fingerprint}`, before);
  await received(bob, `c:${A.fingerprint}`, before, A.fingerprint);
  await Promise.all([recordBadge(alice), recordBadge(bob)]);

  // The broker goes away (a graceful stop: it tells its clients it is shutting down).
  await b.kill('SIGTERM');
  await Promise.all([alice, bob].map((p) => badgeIn(p, ['disconnected', 'connecting'])));
  assert.match(await alice.$eval('#status', (el) => el.textContent ?? ''), /^(disconnected · retrying in|reconnecting to)/);

  // Alice types while it is away: shown, marked pending, not sent.
  const during = 'Typed while the broker was down.';
  await selectConversation(alice, `c:${B.fingerprint}`);
  await alice.type('#compose-text', during);
  await alice.click('#send-btn');
  const pending = await alice.waitForFunction(
    (t) => {
      const li = [...document.querySelectorAll('#messages li.message[data-dir="out"]')].find((l) => l.querySelector('.text')?.textContent === t);
      return li && /** @type {HTMLElement} */ (li).dataset.state === 'pending' ? li.querySelector('.state')?.textContent : null;
    },
    { timeout: 10000 },
    during,
  );
  assert.match(String(await pending.jsonValue()), /^pending/);

  // Back on the same data directory and port: both pages reconnect by themselves.
  await b.start();
  await Promise.all([alice, bob].map((p) => badgeIn(p, ['connected'])));
  await received(bob, `c:${A.fingerprint}`, during, A.fingerprint);
  await alice.waitForFunction(
    (t) => [...document.querySelectorAll('#messages li.message[data-dir="out"]')].some((li) => li.querySelector('.text')?.textContent === t && /** @type {HTMLElement} */ (li).dataset.state === 'sent'),
    { timeout: 15000 },
    during,
  );
  // And the chat goes on, both ways, over the new connections.
  const reply = 'Got it, after the restart.';
  await send(bob, `c:${A.fingerprint}`, reply);
  await received(alice, `c:${B.fingerprint}`, reply, B.fingerprint);

  for (const [name, p] of /** @type {const} */ ([['alice', alice], ['bob', bob]])) {
    const states = await badgeStates(p);
    assert.equal(states[0], 'connected', `${name}: ${states}`);
    assert.ok(states.includes('disconnected') || states.includes('connecting'), `${name}'s badge showed the drop: ${states}`);
    assert.equal(states.at(-1), 'connected', `${name}'s badge shows the recovery: ${states}`);
    assert.deepEqual(await pageErrors(p), [], `${name}: the outage is shown on the badge, not as an error`);
  }
  // Once: Bob's page shows each text once, and so does Alice's.
  const count = (/** @type {import('puppeteer-core').Page} */ p, /** @type {string} */ t) =>
    p.$$eval('#messages li.message .text', (els, x) => els.filter((el) => el.textContent === x).length, t);
  assert.deepEqual(await Promise.all([count(bob, before), count(bob, during), count(alice, during), count(alice, reply)]), [1, 1, 1, 1]);
  for (const [name, p] of /** @type {const} */ ([['alice', alice], ['bob', bob]])) {
    assert.deepEqual(await violations(p), [], `${name}'s page broke its Content-Security-Policy`);
  }
});
