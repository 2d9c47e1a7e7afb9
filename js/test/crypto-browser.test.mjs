// The crypto modules run as-is in a real browser (Chromium through
// puppeteer-core): no build step, no Node APIs, hash-wasm through an import
// map. What the browser seals, Node opens, and the other way round.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fromBase64, toBase64, utf8 } from '../src/bytes.js';
import { Identity, PublicKey } from '../src/crypto/identity.js';
import { KeyFile } from '../src/crypto/keyfile.js';
import { Opener } from '../src/crypto/open.js';
import { Sealer } from '../src/crypto/seal.js';
import { launchChromium, serveSdk } from './helpers/chromium.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @type {Awaited<ReturnType<typeof serveSdk>>} */
let server;
/** @type {import('puppeteer-core').Browser} */
let browser;
/** @type {import('puppeteer-core').Page} */
let page;

before(async () => {
  server = await serveSdk(ROOT);
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(server.url);
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('the browser seals and opens with the SDK, and Node opens what it sealed', async () => {
  const node = await Identity.generate();
  const out = await page.evaluate(async (nodeSpki) => {
    /** @type {typeof import('../src/index.js')} */
    // @ts-expect-error -- the page's server (helpers/chromium.mjs) serves the SDK at /src/
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
    /** @type {typeof import('../src/index.js')} */
    // @ts-expect-error -- the page's server (helpers/chromium.mjs) serves the SDK at /src/
    const sdk = await import('/src/index.js');
    const opener = new sdk.Opener(await sdk.Identity.fromPkcs8Base64(pkcs8));
    await opener.trust(await sdk.PublicKey.fromSpkiBase64(nodeSpki));
    return sdk.fromUtf8((await opener.open('t', sdk.fromBase64(rec))).plaintext);
  }, out.senderPkcs8, node.publicKey.toSpkiBase64(), toBase64(record));
  assert.equal(text, 'from node');
});
