// Debian's Chromium for the tests and the browser bench, started the one way
// this closed network needs: headless, no sandbox (root), and none of the
// background traffic whose refused connections Chromium would retry.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';
import puppeteer from 'puppeteer-core';

/** The flags every test and bench starts Chromium with. */
export const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The browser binary: $CHROMIUM, else Debian's. A missing browser is a
 * failure, not a skip: the suite installs it (scripts/test.sh).
 * @returns {string}
 */
export function chromiumPath() {
  const path = process.env.CHROMIUM ?? '/usr/bin/chromium';
  assert.ok(existsSync(path), `the browser tests need Chromium at ${path} (apt install chromium, or set CHROMIUM)`);
  return path;
}

/**
 * Launch headless Chromium.
 * @param {{ userDataDir?: string, protocolTimeout?: number }} [opts]
 * @returns {Promise<import('puppeteer-core').Browser>}
 */
export function launchChromium(opts = {}) {
  return puppeteer.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS, ...opts });
}

/** A blank page with the import map the SDK needs: hash-wasm, and ts-mls with @hpke (the chat page's vendored copies). */
export const SDK_PAGE = `<!doctype html><meta charset="utf-8">
<script type="importmap">{"imports":{"hash-wasm":"/node_modules/hash-wasm/dist/index.esm.js","ts-mls/":"/examples/chat/vendor/ts-mls/","@hpke/core":"/examples/chat/vendor/@hpke/core/mod.js","@hpke/common":"/examples/chat/vendor/@hpke/common/mod.js"}}</script>`;

/**
 * Serve `SDK_PAGE` at `/` and the SDK's modules (`/src/…`, hash-wasm, the
 * vendored ts-mls and @hpke, and `extra` path prefixes) from `root` (the js/
 * directory) on a loopback port — a secure context, so `crypto.subtle`
 * exists, and an origin the broker allows by default.
 * @param {string} root
 * @param {string[]} [extra] more path prefixes to serve, e.g. `/bench/`
 * @returns {Promise<{ url: string, close(): void }>}
 */
export async function serveSdk(root, extra = []) {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(SDK_PAGE);
    const file = normalize(join(root, path));
    const allowed = ['/src/', '/node_modules/hash-wasm/', '/examples/chat/vendor/', ...extra].some((prefix) => path.startsWith(prefix));
    if (!file.startsWith(root + '/') || !allowed) return void res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${address.port}/`, close: () => server.close() };
}
