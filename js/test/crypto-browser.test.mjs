// The crypto modules run as-is in a real browser (Chromium through
// puppeteer-core): no build step, no Node APIs, hash-wasm through an import
// map. What the browser seals, Node opens, and the other way round.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, normalize } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { fromBase64, toBase64, utf8 } from '../src/bytes.js';
import { Identity, PublicKey } from '../src/identity.js';
import { KeyFile } from '../src/keyfile.js';
import { Opener } from '../src/open.js';
import { Sealer } from '../src/seal.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BROWSER = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
const PAGE = `<!doctype html><meta charset="utf-8">
<script type="importmap">{"imports":{"hash-wasm":"/node_modules/hash-wasm/dist/index.esm.js"}}</script>`;

let server;
let browser;
let page;

before(async () => {
  // The suite installs Debian's chromium (scripts/test.sh): a missing
  // browser is a failure, not a skip.
  assert.ok(BROWSER, 'the browser test needs Chromium: /usr/bin/chromium (apt install chromium) or CHROME_PATH');
  server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    const file = normalize(join(ROOT, path));
    if (!file.startsWith(ROOT + '/') || !(path.startsWith('/src/') || path.startsWith('/node_modules/hash-wasm/'))) {
      res.writeHead(404).end();
      return;
    }
    try {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await puppeteer.launch({ executablePath: BROWSER, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  page = await browser.newPage();
  // 127.0.0.1 is a secure context, so crypto.subtle exists.
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('the browser seals and opens with the SDK, and Node opens what it sealed', async () => {
  const node = await Identity.generate();
  const out = await page.evaluate(async (nodeSpki) => {
    const sdk = await import('/src/index.js');
    const me = await sdk.Identity.generate();
    const peer = await sdk.Identity.generate();
    const nodeKey = await sdk.PublicKey.fromSpkiBase64(nodeSpki);
    const sealer = new sdk.Sealer(me);
    sealer.setPadding(true);
    const opener = new sdk.Opener(peer);
    await opener.trust(me.publicKey);
    const local = await opener.open('t', await sealer.sealMulti('t', [peer.publicKey, nodeKey], sdk.utf8('for both')));
    const forNode = await sealer.sealDirect('t', nodeKey, sdk.utf8('from the browser'));
    const kf = await sdk.KeyFile.wrap(me, 'pw', sdk.KdfParams.insecureForTests(64, 1, 1));
    const unlocked = await (await sdk.KeyFile.fromArmor(kf.toArmor())).unlockInsecureForTests('pw');
    return {
      local: sdk.fromUtf8(local.plaintext),
      mode: local.opened.mode,
      forNode: sdk.toBase64(forNode),
      sender: me.publicKey.toSpkiBase64(),
      senderPkcs8: await me.toPkcs8Base64(),
      keyFileOk: unlocked.equals(me),
      armor: kf.toArmor(),
    };
  }, node.publicKey.toSpkiBase64());
  assert.deepEqual([out.local, out.mode, out.keyFileOk], ['for both', 'multi', true]);
  const opener = new Opener(node);
  const sender = await PublicKey.fromSpkiBase64(out.sender);
  await opener.trust(sender);
  const { plaintext } = await opener.open('t', fromBase64(out.forNode));
  assert.deepEqual(plaintext, utf8('from the browser'));
  const fromBrowserKeyFile = await (await KeyFile.fromArmor(out.armor)).unlockInsecureForTests('pw');
  assert.equal(await fromBrowserKeyFile.toPkcs8Base64(), out.senderPkcs8);

  // Node seals back; the browser opens it with the sender's key from Node.
  const sealer = new Sealer(node);
  const record = await sealer.sealDirect('t', sender, utf8('from node'));
  const text = await page.evaluate(async (pkcs8, nodeSpki, rec) => {
    const sdk = await import('/src/index.js');
    const opener = new sdk.Opener(await sdk.Identity.fromPkcs8Base64(pkcs8));
    await opener.trust(await sdk.PublicKey.fromSpkiBase64(nodeSpki));
    return sdk.fromUtf8((await opener.open('t', sdk.fromBase64(rec))).plaintext);
  }, out.senderPkcs8, node.publicKey.toSpkiBase64(), toBase64(record));
  assert.equal(text, 'from node');
});
