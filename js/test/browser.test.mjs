// The chat page in a real Chromium (Debian's, headless, driven by
// puppeteer-core) against a real broker: auth = "required", the chat-inbox
// preset, the page and the SDK served by the broker's own web_root over the
// same port as its WebSocket listener. Every conversation is an MLS group
// (docs/MLS.md §11), its cryptography on the browser's Web Crypto.
//
// Alice, Bob and Mallory each create an identity in their own browser
// context (so each has its own IndexedDB); Carol imports a key file made by
// `hermit keygen`. Contacts make pairwise conversations (Carol adds Alice
// from Alice's invite link; the two compare safety numbers); Alice makes a group
// of three; Bob links a second device, which his first device adds to his
// conversations (the others' pages say a new device joined); Alice removes
// Carol, whose page keeps its old state, still fetches the topic, cannot open
// what follows (a key error) and still shows what came before. Mallory, not a
// member, reads the group topic and opens nothing. The broker's data dir and
// the pages' IndexedDB hold none of the texts. A reload unlocks with the
// password only and goes on; a second tab of Alice's waits while the first is
// open, then takes over without forking her state. All under the broker's
// Content-Security-Policy, which no page violates. Screenshots go to
// target/screenshots/ (untracked); to refresh docs/images/ run with
// HERMITMQ_SCREENSHOT_DIR=docs/images.
//
// Then the broker restarts under two chatting pages (issue 34): both status
// badges show the drop and the recovery, a message typed during the outage
// is shown pending and arrives once after it, and the chat goes on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker } from './helpers/broker.mjs';
import { launchChromium } from './helpers/chromium.mjs';
import { keygen } from './helpers/cli.mjs';
import { MLS_POLICY } from './helpers/mls.mjs';
import {
  PASSWORD,
  openChatPage,
  violations,
  waitReady,
  pageErrors,
  setValue,
  createIdentity,
  importIdentity,
  idle,
  addContact,
  selectConversation,
  send,
  received,
  systemLine,
  listed,
  groupOf,
} from './helpers/chat-page.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const JS_DIR = resolve(here, '..');
const SHOTS = resolve(process.env.HERMITMQ_SCREENSHOT_DIR ?? resolve(here, '../../target/screenshots'));

/** @type {Awaited<ReturnType<typeof startBroker>> | undefined} */
let broker;
/** @type {import('puppeteer-core').Browser | undefined} */
let browser;
let tmp = '';

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'hermit-browser-'));
  broker = await startBroker({ config: MLS_POLICY, args: ['--web-root', JS_DIR] });
  browser = await launchChromium({ userDataDir: join(tmp, 'profile'), protocolTimeout: 30000 });
});

after(async () => {
  // Both even when a step failed; the browser first (its pages hold connections).
  await browser?.close().catch(() => {});
  await broker?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/**
 * A chat page of its own browser context, or a new tab of `context`'s.
 * @param {string} who
 * @param {import('puppeteer-core').BrowserContext} [context]
 */
function openPage(who, context) {
  return openChatPage(/** @type {import('puppeteer-core').Browser} */ (browser), /** @type {any} */ (broker).wsAddr, who, context);
}

/**
 * Every record of every IndexedDB database of the page's origin as text,
 * bytes as Latin-1 (what a copied profile holds), and how many message
 * records the chat's database has.
 * @param {import('puppeteer-core').Page} page
 */
function rawDatabase(page) {
  return page.evaluate(async () => {
    /** @type {Record<string, any[]>} */
    const out = {};
    let messages = 0;
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const d = await new Promise((res, rej) => {
        const r = indexedDB.open(name);
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      for (const store of d.objectStoreNames) {
        const rows = await new Promise((res, rej) => {
          const q = d.transaction(store).objectStore(store).getAll();
          q.onsuccess = () => res(q.result);
          q.onerror = () => rej(q.error);
        });
        out[`${name}/${store}`] = rows;
        if (name === 'hermit-chat' && store === 'messages') messages = rows.length;
      }
      d.close();
    }
    const latin1 = new TextDecoder('latin1');
    const bytes = (/** @type {any} */ v) => (v instanceof Uint8Array || v instanceof ArrayBuffer ? latin1.decode(v) : v);
    return { text: JSON.stringify(out, (_k, v) => bytes(v)), messages, stores: Object.keys(out) };
  });
}

test('MLS chats in Chromium: pairs, a group of three, a second device, a removal, a reload and a second tab', { timeout: 180000 }, async () => {
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
  assert.ok((await readFile(join(tmp, 'carol.pub'), 'utf8')).includes(C.spki), 'the imported key is the one `hermit keygen` made');
  assert.equal(new Set([A.fingerprint, B.fingerprint, C.fingerprint, M.fingerprint]).size, 4);
  const stored = await alice.evaluate(async () => {
    const { get } = await import(new URL('store.js', location.href).href);
    return get('identity');
  });
  assert.match(stored.armor, /^-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----/);

  // Contacts, one after the other: the first to add makes the pairwise
  // conversation and invites; the other finds it in its Welcomes.
  await addContact(alice, 'Bob', B);
  await addContact(alice, 'Carol', C);
  await addContact(bob, 'Alice', A);
  await addContact(bob, 'Carol', C);
  // Carol adds Alice from Alice's invite link (its fragment names her account; the key comes from her device list).
  assert.match(A.invite, new RegExp(`#contact=${A.fingerprint}&name=Alice$`));
  await addContact(carol, 'Alice', { spki: A.invite, fingerprint: A.fingerprint });
  await addContact(carol, 'Bob', B);

  // Alice and Carol compare safety numbers: the same 60 digits on both pages; Alice marks Carol verified.
  await selectConversation(alice, `c:${C.fingerprint}`);
  await selectConversation(carol, `c:${A.fingerprint}`);
  const digits = await Promise.all(
    [alice, carol].map(async (p) => {
      await p.waitForFunction(() => /^(\d{5} ){11}\d{5}$/.test(document.getElementById('safety-digits')?.textContent ?? ''), { timeout: 30000 });
      return p.$eval('#safety-digits', (el) => el.textContent);
    }),
  );
  assert.equal(digits[0], digits[1], 'one safety number on both sides');
  await alice.click('#safety-mark');
  await alice.waitForSelector('#safety-state[data-verified="true"]');
  await mkdir(SHOTS, { recursive: true });
  await alice.evaluate(() => document.querySelector('.sidebar')?.scrollTo(0, 0));
  await alice.screenshot({ path: join(SHOTS, 'chat-safety-number.png') });

  const hello = 'Hello Bob! This is Alice, in an MLS group of two.';
  await send(alice, `c:${B.fingerprint}`, hello);
  assert.equal(await received(bob, `c:${A.fingerprint}`, hello, A.fingerprint), 'Alice');
  const reply = 'Hi Alice — forward secret now, and the broker only saw ciphertext.';
  await send(bob, `c:${A.fingerprint}`, reply);
  assert.equal(await received(alice, `c:${B.fingerprint}`, reply, B.fingerprint), 'Bob');
  const toCarol = 'Carol, <b>not bold</b>: text is never markup.';
  await send(alice, `c:${C.fingerprint}`, toCarol);
  await received(carol, `c:${A.fingerprint}`, toCarol, A.fingerprint);
  assert.equal(await carol.$$eval('#messages .text b', (els) => els.length), 0);

  // A group of three.
  await setValue(alice, '#group-name', 'Weekend plans');
  for (const fp of [B.fingerprint, C.fingerprint]) await alice.click(`#group-members input[value="${fp}"]`);
  await alice.click('#group-create');
  await idle(alice);
  const groupConv = await groupOf(alice);
  assert.match(groupConv, /^g:mls\.[0-9a-f]{64}$/);
  await Promise.all([bob, carol].map((p) => listed(p, groupConv)));
  const q = 'Who is in for Saturday? Départ à 9 h.';
  await send(alice, groupConv, q);
  await Promise.all([received(bob, groupConv, q, A.fingerprint), received(carol, groupConv, q, A.fingerprint)]);
  const yes = 'Count me in!';
  await send(bob, groupConv, yes);
  await Promise.all([received(alice, groupConv, yes, B.fingerprint), received(carol, groupConv, yes, B.fingerprint)]);

  // Bob's second device: it shows its key, Bob's first device binds it and
  // (once it is online) adds it to every conversation; the others see it join.
  const bob2 = await openPage('bob-2nd-device');
  await bob2.waitForSelector('#create-panel:not([hidden])');
  await setValue(bob2, '#new-name', 'Bob (laptop)');
  await setValue(bob2, '#new-password', PASSWORD);
  await bob2.click('#new-linked');
  await bob2.click('#create-btn');
  await bob2.waitForSelector('#link-panel:not([hidden])');
  const bob2Key = await bob2.$eval('#link-pubkey', (el) => /** @type {HTMLTextAreaElement} */ (el).value);
  await setValue(bob, '#device-key', bob2Key);
  await bob.click('#device-add');
  await bob.waitForSelector('#device-binding-box:not([hidden])');
  const binding = await bob.$eval('#device-binding', (el) => /** @type {HTMLTextAreaElement} */ (el).value);
  await setValue(bob2, '#link-binding', binding);
  await bob2.click('#link-btn');
  const B2 = await waitReady(bob2);
  assert.match(await bob2.$eval('#own-account', (el) => el.textContent ?? ''), /a device of account/);
  await systemLine(alice, groupConv, /^Bob added a new device/);
  await systemLine(alice, `c:${B.fingerprint}`, /^Bob added a new device/);
  await listed(bob2, groupConv);
  const both = 'Hello to both of your devices, Bob.';
  await send(alice, groupConv, both);
  await Promise.all([received(bob, groupConv, both, A.fingerprint), received(bob2, groupConv, both, A.fingerprint), received(carol, groupConv, both, A.fingerprint)]);
  const fromLaptop = 'Writing from my laptop.';
  await send(bob2, groupConv, fromLaptop);
  // Sent by Bob's account from another device: his first device shows it as his.
  await Promise.all([received(alice, groupConv, fromLaptop, B.fingerprint), received(carol, groupConv, fromLaptop, B.fingerprint)]);
  assert.notEqual(B2.fingerprint, B.fingerprint);

  // Alice removes Carol: Carol's page says so, still fetches the topic,
  // opens nothing sent after (a key error), and keeps what came before.
  await selectConversation(alice, groupConv);
  await alice.click(`#conv-members button[data-account="${C.fingerprint}"]`);
  await idle(alice);
  await systemLine(alice, groupConv, /^Carol \(device .*\) left the conversation/);
  await systemLine(carol, groupConv, /^You were removed from this conversation/);
  const after = 'Carol is no longer here.';
  await send(alice, groupConv, after);
  await Promise.all([received(bob, groupConv, after, A.fingerprint), received(bob2, groupConv, after, A.fingerprint)]);
  await systemLine(carol, groupConv, /^A message that cannot be opened here: this device was removed from the group: it has no keys for epoch/);
  const carolTexts = await carol.$$eval('#messages li.message .text', (els) => els.map((el) => el.textContent));
  assert.ok(carolTexts.includes(q) && carolTexts.includes(both), 'what came before the removal still shows (positive control)');
  assert.ok(!carolTexts.includes(after), 'what came after does not');

  // Mallory is no member: the group topic is readable (mls.*), nothing opens.
  await mallory.click('details.card summary');
  await setValue(mallory, '#listen-topic', groupConv.slice(2));
  await mallory.click('#listen-btn');
  await mallory.waitForFunction(() => /records?, none of which opens/.test(document.getElementById('conv-info')?.textContent ?? ''), { timeout: 10000 });
  assert.equal(await mallory.$$eval('#messages li.message[data-dir="in"]', (l) => l.length), 0);

  // The broker stored ciphertext only; the pages keep texts and MLS state encrypted.
  const texts = [hello, reply, toCarol, q, yes, both, fromLaptop, after];
  for (const t of texts) assert.equal(await b.dataContains(t), false, `plaintext ${JSON.stringify(t)} in the data dir`);
  for (const [name, p] of /** @type {const} */ ([['alice', alice], ['bob', bob], ['bob2', bob2], ['carol', carol]])) {
    const raw = await rawDatabase(p);
    assert.ok(raw.messages > 0, `${name}: messages stored`);
    assert.ok(raw.stores.some((st) => st.startsWith('hermit-mls-')), `${name}: MLS state stored`);
    for (const t of texts) assert.ok(!raw.text.includes(t), `${name}'s IndexedDB holds ${JSON.stringify(t)} in the clear`);
  }
  for (const [name, p] of /** @type {const} */ ([['alice', alice], ['bob', bob], ['bob2', bob2], ['carol', carol]])) assert.deepEqual(await pageErrors(p), [], name);

  // Screenshots for docs/ and the README.
  await mkdir(SHOTS, { recursive: true });
  await selectConversation(alice, groupConv);
  await selectConversation(carol, groupConv);
  await selectConversation(bob2, groupConv);
  for (const p of [alice, carol, bob2]) await p.evaluate(() => document.querySelector('.sidebar')?.scrollTo(0, 0));
  await alice.screenshot({ path: join(SHOTS, 'chat-alice.png') });
  await carol.screenshot({ path: join(SHOTS, 'chat-carol-removed.png') });
  await bob2.screenshot({ path: join(SHOTS, 'chat-bob-second-device.png') });

  // A reload: the key file unlocks only with the password; history and MLS state are back; sending goes on.
  await alice.reload({ waitUntil: 'load' });
  await alice.waitForSelector('#unlock-panel:not([hidden])');
  await setValue(alice, '#unlock-password', 'not the password');
  await alice.click('#unlock-btn');
  await alice.waitForSelector('#errors li[data-code="WrongPasswordOrModified"]', { timeout: 15000 });
  await alice.click('#errors li .dismiss');
  await setValue(alice, '#unlock-password', PASSWORD);
  await alice.click('#unlock-btn');
  assert.equal((await waitReady(alice)).fingerprint, A.fingerprint);
  await received(alice, groupConv, fromLaptop, B.fingerprint);
  const again = 'Back after a reload, same MLS state.';
  await send(alice, groupConv, again);
  await received(bob, groupConv, again, A.fingerprint);

  // A second tab of Alice's: it waits while the first is open, then takes over; no fork.
  const tab2 = await openPage('alice-tab-2', alice.browserContext());
  await tab2.waitForSelector('#unlock-panel:not([hidden])');
  await setValue(tab2, '#unlock-password', PASSWORD);
  await tab2.click('#unlock-btn');
  await tab2.waitForSelector('#tab-wait:not([hidden])', { timeout: 30000 });
  assert.equal(await tab2.evaluate(() => document.body.dataset.ready ?? ''), '', 'the second tab does not go online while the first holds the identity');
  const whileTwo = 'Sent from the first tab while a second one waits.';
  // (A background tab gets no animation frames, which the page waits poll on.)
  await alice.bringToFront();
  await send(alice, groupConv, whileTwo);
  await received(bob, groupConv, whileTwo, A.fingerprint);
  await alice.close();
  await tab2.bringToFront();
  assert.equal((await waitReady(tab2)).fingerprint, A.fingerprint);
  const fromTab2 = 'The second tab took over.';
  await send(tab2, groupConv, fromTab2);
  await Promise.all([received(bob, groupConv, fromTab2, A.fingerprint), received(bob2, groupConv, fromTab2, A.fingerprint)]);
  assert.deepEqual(await pageErrors(bob), [], 'Bob opened every message of both tabs: one MLS state, no fork');
  for (const [name, p] of /** @type {const} */ ([['tab2', tab2], ['bob', bob], ['bob2', bob2], ['carol', carol], ['mallory', mallory]])) {
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
  await addContact(alice, 'Bob', B);
  await addContact(bob, 'Alice', A);
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
