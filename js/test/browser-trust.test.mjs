// Who is who in the chat page (issue 37, items 2–4), in a real Chromium
// against a real broker (auth required, the chat-inbox preset, one admin
// principal). Alice's page has two contacts whose devices run in Node on
// the SDK: Carol and Bob. The safety-number QR code is the vendored
// encoder's matrix of `hermit-safety:0:<60 digits>`, module for module.
// Carol rotates her account key (`Device.publishRotation`): Alice's page
// shows the blocking warning in the pair conversation and in the group with
// Carol, with the new safety number; "verified" is reset, the send box is
// disabled, and a send forced past the disabled box puts nothing on either
// topic. Alice confirms: Carol's new device replaces the old one in both
// conversations, reads what Alice sends next. A rotation for Bob forged by
// the admin (signed by another key) is an error in Bob's conversation and
// changes nothing; so is a device list for Bob forged by the admin, and a
// list of Bob's signed 40 days ago is a notice. Screenshot: chat-key-changed.png (the warning) in
// target/screenshots/ (HERMITMQ_SCREENSHOT_DIR to refresh docs/images/).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { concat, utf8 } from '../src/bytes.js';
import { connect } from '../src/client/connection.js';
import { Identity, PublicKey, signRaw } from '../src/crypto/identity.js';
import { safetyNumber } from '../src/index.js';
import { Ack } from '../src/protocol/frame.js';
import { oneRecord } from '../src/mls/device.js';
import { lowS } from '../src/mls/ecdsa.js';
import { Conversation, DEVICES_KEY, Device, DeviceList, MemoryStore, ROTATION_KEY, directoryTopic } from '../src/mls/index.js';
// (The package's file: test/vendor.test.mjs holds the page's copy byte-identical to it.)
import { encode as encodeQr } from 'uqr';
import { startBroker } from './helpers/broker.mjs';
import { launchChromium } from './helpers/chromium.mjs';
import { MLS_POLICY } from './helpers/mls.mjs';
import { addContact, createIdentity, groupOf, idle, openChatPage, pageErrors, selectConversation, send, setValue, violations } from './helpers/chat-page.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const JS_DIR = resolve(here, '..');
const DAY = 24 * 3600 * 1000;
const SHOTS = resolve(process.env.HERMITMQ_SCREENSHOT_DIR ?? resolve(here, '../../target/screenshots'));

/** @type {Awaited<ReturnType<typeof startBroker>> | undefined} */
let broker;
/** @type {import('puppeteer-core').Browser | undefined} */
let browser;
/** @type {Identity} */
let admin;

before(async () => {
  admin = await Identity.generate();
  broker = await startBroker({ config: `${MLS_POLICY}admins = ["${admin.fingerprint().toHex()}"]\n`, args: ['--web-root', JS_DIR] });
  browser = await launchChromium({ protocolTimeout: 30000 });
});

after(async () => {
  await browser?.close().catch(() => {});
  await broker?.stop();
});

/**
 * A device of a fresh account in Node, invitable.
 * @param {import('node:test').TestContext} t
 */
async function nodeAccount(t) {
  const identity = await Identity.generate();
  const client = await connect(/** @type {any} */ (broker).url, { identity });
  t.after(() => client.close());
  const device = await Device.open(client, identity, new MemoryStore());
  await device.publishKeyPackages(3);
  return device;
}

/** What the page needs to add `d`'s account as a contact. @param {Device} d */
const contactOf = (d) => ({ spki: d.account.toSpkiBase64(), fingerprint: d.account.fingerprint().toHex() });

/**
 * The dark modules of a QR SVG the page shows (`M x y h1v1h-1z` each), and
 * its payload and size.
 * @param {import('puppeteer-core').Page} page @param {string} selector
 */
function pageQr(page, selector) {
  return page.$eval(selector, (svg) => ({
    payload: /** @type {HTMLElement} */ (/** @type {unknown} */ (svg)).dataset.payload ?? '',
    viewBox: svg.getAttribute('viewBox'),
    d: svg.querySelector('path')?.getAttribute('d') ?? '',
  }));
}

/**
 * Module matrix equality: the page's path against the vendored encoder's
 * matrix of `payload` (ecc M, quiet zone 4), in Node.
 * @param {{ payload: string, viewBox: string|null, d: string }} shown @param {string} payload
 */
function assertQr(shown, payload) {
  assert.equal(shown.payload, payload);
  const qr = encodeQr(payload, { ecc: 'M', border: 4 });
  assert.equal(shown.viewBox, `0 0 ${qr.size} ${qr.size}`);
  const dark = new Set();
  for (const m of shown.d.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) dark.add(`${m[1]},${m[2]}`);
  assert.equal(shown.d.replace(/M(\d+) (\d+)h1v1h-1z/g, ''), '', 'the path is unit squares only');
  const want = new Set();
  qr.data.forEach((row, y) => row.forEach((on, x) => on && want.add(`${x},${y}`)));
  assert.ok(want.size > 100);
  assert.deepEqual([...dark].sort(), [...want].sort(), 'the QR shown is the encoder’s, module for module');
}

/** The end offset of a topic's partition 0. @param {Device} d @param {string} topic */
async function endOf(d, topic) {
  return (await d.client.fetch(topic, 0, 0, 1, 0)).highWatermark;
}

/**
 * Types `text` and submits the compose form past its disabled state (as a
 * modified page would); waits until the page shows the message's outcome.
 * @param {import('puppeteer-core').Page} page @param {string} text
 */
async function forceSend(page, text) {
  await page.evaluate((t) => {
    const input = /** @type {HTMLInputElement} */ (document.getElementById('compose-text'));
    input.disabled = false;
    /** @type {HTMLButtonElement} */ (document.getElementById('send-btn')).disabled = false;
    input.value = t;
    /** @type {HTMLFormElement} */ (document.getElementById('compose')).requestSubmit();
  }, text);
  const state = await page.waitForFunction(
    (t) => {
      const li = [...document.querySelectorAll('#messages li.message[data-dir="out"]')].find((l) => l.querySelector('.text')?.textContent === t);
      const s = li && /** @type {HTMLElement} */ (li).dataset.state;
      return s === 'sent' || s === 'failed' ? s : null;
    },
    { timeout: 15000 },
    text,
  );
  return state.jsonValue();
}

/** Whether the send box is disabled. @param {import('puppeteer-core').Page} page */
function sendDisabled(page) {
  return page.evaluate(() => /** @type {HTMLInputElement} */ (document.getElementById('compose-text')).disabled && /** @type {HTMLButtonElement} */ (document.getElementById('send-btn')).disabled);
}

/** The text of the header's alerts of `tier`. @param {import('puppeteer-core').Page} page @param {string} tier */
async function alertText(page, tier) {
  const el = await page.waitForSelector(`#conv-alerts [data-tier="${tier}"]`, { timeout: 15000 });
  return /** @type {NonNullable<typeof el>} */ (el).evaluate((e) => e.textContent ?? '');
}

test('the chat page: the safety-number QR; a key rotation blocks sending until confirmed; a forged rotation or list is an error, a stale list a notice', { timeout: 120000 }, async (t) => {
  const [carol, bob] = await Promise.all([nodeAccount(t), nodeAccount(t)]);
  const alice = await openChatPage(/** @type {any} */ (browser), /** @type {any} */ (broker).wsAddr, 'alice');
  const A = await createIdentity(alice, 'Alice');
  const C = contactOf(carol);
  const B = contactOf(bob);
  await addContact(alice, 'Carol', C);
  await addContact(alice, 'Bob', B);
  await setValue(alice, '#group-name', 'Trip');
  for (const fp of [B.fingerprint, C.fingerprint]) await alice.click(`#group-members input[value="${fp}"]`);
  await alice.click('#group-create');
  await idle(alice);
  const group = await groupOf(alice);
  const [pair] = (await Conversation.acceptWelcomes(carol)).filter((topic) => topic !== group.slice(2));
  assert.ok(pair, "Carol's device was invited to the pair conversation");

  // The safety number with Carol, as digits and as a QR code: the encoder's matrix of hermit-safety:0:<digits>.
  const aliceKey = await PublicKey.fromSpkiBase64(A.spki);
  const expected = (await safetyNumber(aliceKey, carol.account)).digits;
  await selectConversation(alice, `c:${C.fingerprint}`);
  await alice.waitForSelector('#safety-qr svg');
  assert.equal((await alice.$eval('#safety-digits', (el) => el.textContent ?? '')).replace(/ /g, ''), expected);
  assertQr(await pageQr(alice, '#safety-qr svg'), `hermit-safety:0:${expected}`);
  await alice.click('#safety-mark');
  await alice.waitForSelector('#safety-state[data-verified="true"]');

  // Carol moves to a new key (her new account's device, on its own connection).
  const newCarol = await nodeAccount(t);
  const newFp = newCarol.account.fingerprint().toHex();
  await carol.publishRotation(newCarol);
  const groupEnd = await endOf(carol, group.slice(2));
  const pairEnd = await endOf(carol, pair);

  // Opening the pair conversation reads Carol's directory topic: the blocking warning.
  await selectConversation(alice, `c:${C.fingerprint}`);
  const warning = await alertText(alice, 'warning');
  assert.match(warning, /^Carol's account key changed .*Nothing is sent to Carol until you confirm/);
  const newNumber = (await safetyNumber(aliceKey, newCarol.account)).toString();
  await alice.waitForFunction((n) => document.querySelector('[data-testid="new-safety-number"]')?.textContent === n, { timeout: 30000 }, newNumber);
  assertQr(await pageQr(alice, '#conv-alerts [data-testid="safety-qr"]'), `hermit-safety:0:${newNumber.replace(/ /g, '')}`);
  assert.match(await alice.$eval('#conv-info', (el) => el.textContent ?? ''), /· key changed: not confirmed$/, '"verified" is reset');
  assert.equal(await alice.$eval('#conv-safety', (el) => /** @type {HTMLElement} */ (el).hidden), true, 'the old safety number is not offered for comparison');
  assert.equal(await sendDisabled(alice), true, 'the send box is disabled');
  await mkdir(SHOTS, { recursive: true });
  await alice.evaluate(() => document.querySelector('.sidebar')?.scrollTo(0, 0));
  await alice.screenshot({ path: join(SHOTS, 'chat-key-changed.png') });
  assert.equal(await forceSend(alice, 'Forced past the disabled box, to Carol.'), 'failed');

  // The group with Carol: the same warning, the same refusal.
  await selectConversation(alice, group);
  assert.match(await alertText(alice, 'warning'), /^Carol's account key changed/);
  assert.equal(await sendDisabled(alice), true);
  assert.equal(await forceSend(alice, 'Forced past the disabled box, to the group.'), 'failed');
  assert.equal(await endOf(carol, group.slice(2)), groupEnd, 'nothing reached the group topic');
  assert.equal(await endOf(carol, pair), pairEnd, 'nothing reached the pair topic');
  for (const e of await pageErrors(alice)) assert.match(e, /Carol's account key changed: nothing is sent to Carol until you confirm the new key/);
  await alice.$$eval('#errors li .dismiss', (bs) => bs.forEach((b) => /** @type {HTMLButtonElement} */ (b).click()));

  // Alice confirms: the contact is Carol's new account; her new device replaces the old one; sending works again.
  await selectConversation(alice, `c:${C.fingerprint}`);
  await alice.click('[data-testid="confirm-key"]');
  await alice.waitForSelector(`#conversations li[data-conv="c:${newFp}"]`, { timeout: 30000 });
  await idle(alice);
  assert.deepEqual(await pageErrors(alice), []);
  assert.equal(await alice.$(`#conversations li[data-conv="c:${C.fingerprint}"]`), null, 'the old key is no contact any more');
  assert.equal(await alice.$('#conv-alerts [data-tier="warning"]'), null);
  await alice.waitForSelector('#safety-state[data-verified="false"]');
  assert.equal((await alice.$eval('#safety-digits', (el) => el.textContent ?? '')), newNumber, 'verified stays reset: the new number is to compare');
  const hello = 'Hello Carol, on your new key.';
  await send(alice, `c:${newFp}`, hello);
  const inGroup = 'And in the group, too.';
  await send(alice, group, inGroup);
  assert.ok((await endOf(carol, pair)) > pairEnd);
  const joined = await Conversation.acceptWelcomes(newCarol);
  assert.deepEqual(joined.sort(), [pair, group.slice(2)].sort(), "Carol's new device is in both conversations");
  for (const [topic, text] of [[pair, hello], [group.slice(2), inGroup]]) {
    const conv = await Conversation.open(newCarol, topic);
    const texts = (await conv.receive()).filter((e) => e.type === 'message').map((e) => /** @type {any} */ (e).text);
    assert.deepEqual(texts, [text], `Carol's new device reads ${topic}`);
  }

  // A rotation for Bob forged by the admin (Mallory's key signs for Bob's): an error in Bob's conversation, nothing changes.
  const mallory = await Identity.generate();
  const at = new Uint8Array(8);
  new DataView(at.buffer).setBigUint64(0, BigInt(Date.now()));
  const signed = concat(utf8('HermitMQ account rotation v1\0'), bob.account.toSec1(), mallory.publicKey.toSec1(), at);
  const sig = lowS(await signRaw(mallory, signed));
  const forged = concat(utf8('HMQR'), Uint8Array.of(1), bob.account.toSec1(), mallory.publicKey.toSec1(), at, sig, sig);
  const adminClient = await connect(/** @type {any} */ (broker).url, { identity: admin });
  t.after(() => adminClient.close());
  await adminClient.produce(directoryTopic(bob.account.fingerprint()), 0, Ack.Durable, oneRecord(ROTATION_KEY, forged));
  const bobEnd = await endOf(bob, group.slice(2));
  await selectConversation(alice, `c:${B.fingerprint}`);
  assert.match(await alertText(alice, 'error'), /^Refused what the broker serves for Bob: an account rotation is refused: the old key's signature does not verify/);
  assert.equal(await alice.$('#conv-alerts [data-tier="warning"]'), null, 'a forged rotation is no warning');
  assert.equal(await sendDisabled(alice), false, 'Bob stays reachable');
  assert.match((await pageErrors(alice)).join('\n'), /Nothing changed: Bob's pinned key stays/);
  const toBob = 'Bob, your key did not change.';
  await send(alice, group, toBob);
  assert.ok((await endOf(bob, group.slice(2))) > bobEnd);

  // Bob's list as a broker could keep serving it, signed 40 days ago: a notice in his header.
  const list = await bob.deviceList(bob.fingerprint);
  const devices = list.devices.map((d) => ({ key: d.key, addedAt: d.addedAt }));
  const old = new DeviceList(bob.account, list.version + 1, Date.now() - 40 * DAY, devices);
  await bob.client.produce(directoryTopic(bob.fingerprint), 0, Ack.Durable, oneRecord(DEVICES_KEY, await old.sign(bob.identity)));
  await selectConversation(alice, group);
  await selectConversation(alice, `c:${B.fingerprint}`);
  assert.match(await alertText(alice, 'notice'), /^Bob's device list was signed 40 days ago/);
  // A list for Bob forged by the admin (signed by Mallory): an error, in the header and in the conversation.
  const forgedList = new DeviceList(mallory.publicKey, list.version + 2, Date.now(), devices);
  await adminClient.produce(directoryTopic(bob.fingerprint), 0, Ack.Durable, oneRecord(DEVICES_KEY, await forgedList.sign(mallory)));
  await selectConversation(alice, group);
  await selectConversation(alice, `c:${B.fingerprint}`);
  await alice.waitForFunction(
    () => [...document.querySelectorAll('#messages li.message[data-tier="error"]')].some((li) => !(/** @type {HTMLElement} */ (li).hidden) && /is signed by another account/.test(li.textContent ?? '')),
    { timeout: 15000 },
  );
  assert.match(await alertText(alice, 'error'), /signed by another account/);
  assert.equal(await alice.$('#conv-alerts [data-tier="warning"]'), null, 'a forged list is no warning either');
  assert.deepEqual(await violations(alice), [], "Alice's page broke its Content-Security-Policy");
});
