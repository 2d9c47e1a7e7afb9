// The connection, producer and sealed layers run as-is in Chromium
// (puppeteer-core): the page connects to a real broker over the browser's own
// WebSocket, authenticates, seals to a Node reader's inbox; Node seals back
// and the page opens it. The broker's inbox ACL holds for the page too.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect } from '../src/client/connection.js';
import { Identity, PublicKey } from '../src/crypto/identity.js';
import { Producer } from '../src/client/producer.js';
import { SealedConsumer } from '../src/sealed/consumer.js';
import { SealedProducer } from '../src/sealed/producer.js';
import { INBOX_POLICY, startBroker } from './helpers/broker.mjs';
import { launchChromium, serveSdk } from './helpers/chromium.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const enc = new TextEncoder();

/** @type {Awaited<ReturnType<typeof serveSdk>>} */
let server;
/** @type {import('puppeteer-core').Browser} */
let browser;
/** @type {import('puppeteer-core').Page} */
let page;
/** @type {Awaited<ReturnType<typeof startBroker>>} */
let broker;

before(async () => {
  broker = await startBroker({ config: INBOX_POLICY });
  server = await serveSdk(ROOT);
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(server.url);
});

after(async () => {
  await browser?.close();
  server?.close();
  await broker?.stop();
});

test('a page authenticates over WebSocket and exchanges sealed records with Node through the broker', async () => {
  const node = await Identity.generate();
  const nodeInbox = `inbox.${node.fingerprint().toHex()}`;
  const out = await page.evaluate(async (url, nodeSpki, nodeInbox) => {
    /** @type {typeof import('../src/index.js')} */
    // @ts-expect-error -- the page's server (helpers/chromium.mjs) serves the SDK at /src/
    const sdk = await import('/src/index.js');
    const me = await sdk.Identity.generate();
    const client = await sdk.connect(url, { identity: me });
    const peer = await sdk.PublicKey.fromSpkiBase64(nodeSpki);
    const sp = await sdk.SealedProducer.create(new sdk.Producer(client, { lingerMs: 1 }), me);
    const d = await sp.send(nodeInbox, 'browser-conversation', sdk.utf8('hello from the page'), [peer]);
    const { offset } = await d.delivered;
    // The ACL holds for the page: it may not read the inbox it wrote to.
    let denied = null;
    try {
      await client.fetch(nodeInbox, 0, 0);
    } catch (/** @type {any} */ e) {
      denied = `${e.code}/${e.status}: ${e.message}`;
    }
    /** @type {any} */ (globalThis).hermit = { sdk, me, client };
    return { offset, denied, principal: client.principalHex, spki: me.publicKey.toSpkiBase64(), pkcs8: await me.toPkcs8Base64() };
  }, broker.url, node.publicKey.toSpkiBase64(), nodeInbox);
  assert.equal(out.offset, 0);
  assert.match(/** @type {string} */ (out.denied), /^Broker\/Unauthorized: not authorized to consume/);
  const pageKey = await PublicKey.fromSpkiBase64(out.spki);
  assert.equal(out.principal, pageKey.fingerprint().toHex());

  // Node opens what the page sealed.
  const client = await connect(broker.url, { identity: node });
  const reader = await SealedConsumer.create(client, node, [pageKey], nodeInbox);
  const r = await reader.next();
  assert.ok(r.ok, String(r));
  assert.equal(r.text(), 'hello from the page');
  assert.ok(r.sender.equals(pageKey.fingerprint()));
  assert.equal(await broker.dataContains('hello from the page'), false);

  // Node seals back to the page's inbox; the page's SealedConsumer opens it.
  const pageInbox = `inbox.${pageKey.fingerprint().toHex()}`;
  const sp = await SealedProducer.create(new Producer(client, { lingerMs: 1 }), node);
  await (await sp.send(pageInbox, null, enc.encode('hello from node'), [pageKey])).delivered;
  const text = await page.evaluate(async (nodeSpki, pageInbox) => {
    /** @type {{ sdk: typeof import('../src/index.js'), me: import('../src/index.js').Identity, client: import('../src/index.js').Client }} */
    const { sdk, me, client } = /** @type {any} */ (globalThis).hermit;
    const c = await sdk.SealedConsumer.create(client, me, [await sdk.PublicKey.fromSpkiBase64(nodeSpki)], pageInbox, { maxWaitMs: 2000 });
    const rec = await c.next();
    await client.close();
    return rec.ok ? rec.text() : `not opened: ${rec.message}`;
  }, node.publicKey.toSpkiBase64(), pageInbox);
  assert.equal(text, 'hello from node');
  await client.close();
});
