// The connection, producer and sealed layers run as-is in Chromium
// (puppeteer-core): the page connects to a real broker over the browser's own
// WebSocket, authenticates, seals to a Node reader's inbox; Node seals back
// and the page opens it. The broker's inbox ACL holds for the page too.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, normalize } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { connect } from '../src/connection.js';
import { Identity, PublicKey } from '../src/identity.js';
import { Producer } from '../src/producer.js';
import { SealedConsumer, SealedProducer } from '../src/sealed.js';
import { INBOX_POLICY, startBroker } from './helpers/broker.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BROWSER = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
const PAGE = `<!doctype html><meta charset="utf-8">
<script type="importmap">{"imports":{"hash-wasm":"/node_modules/hash-wasm/dist/index.esm.js"}}</script>`;
const enc = new TextEncoder();

let server;
let browser;
let page;
let broker;

before(async () => {
  assert.ok(BROWSER, 'the browser test needs Chromium: /usr/bin/chromium (apt install chromium) or CHROME_PATH');
  broker = await startBroker({ config: INBOX_POLICY });
  server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    const file = normalize(join(ROOT, path));
    if (!file.startsWith(ROOT + '/') || !(path.startsWith('/src/') || path.startsWith('/node_modules/hash-wasm/'))) return void res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await puppeteer.launch({ executablePath: BROWSER, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  page = await browser.newPage();
  // A loopback page: a secure context (crypto.subtle), and an origin the broker allows by default.
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
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
    } catch (e) {
      denied = `${e.code}/${e.status}: ${e.message}`;
    }
    globalThis.hermit = { sdk, me, client };
    return { offset, denied, principal: client.principalHex, spki: me.publicKey.toSpkiBase64(), pkcs8: await me.toPkcs8Base64() };
  }, broker.url, node.publicKey.toSpkiBase64(), nodeInbox);
  assert.equal(out.offset, 0);
  assert.match(out.denied, /^Broker\/Unauthorized: not authorized to consume/);
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
    const { sdk, me, client } = globalThis.hermit;
    const c = await sdk.SealedConsumer.create(client, me, [await sdk.PublicKey.fromSpkiBase64(nodeSpki)], pageInbox, { maxWaitMs: 2000 });
    const rec = await c.next();
    await client.close();
    return rec.ok ? rec.text() : `not opened: ${rec.message}`;
  }, node.publicKey.toSpkiBase64(), pageInbox);
  assert.equal(text, 'hello from node');
  await client.close();
});
