// The chat page's vendored files (scripts/vendor.mjs) are the lock-file-pinned
// packages' files byte for byte, nothing else is vendored, and the page's
// import map points at them. Needs `npm ci` (node_modules as the lock pins).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { FILES, JS_DIR, VENDOR_DIR, treeFiles, versions } from '../scripts/vendor.mjs';

/** Every file under `dir`, relative to it. @param {string} dir @returns {Promise<string[]>} */
async function walk(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

test('each vendored file equals the file of the package version package-lock.json pins', async () => {
  for (const { pkg, file, to } of [...FILES, ...(await treeFiles())]) {
    const { locked, installed } = await versions(pkg);
    assert.equal(installed, locked, `node_modules has ${pkg} ${installed}, the lock pins ${locked}: run npm ci`);
    const original = await readFile(join(JS_DIR, 'node_modules', pkg, file));
    const copy = await readFile(join(VENDOR_DIR, to));
    assert.ok(copy.equals(original), `examples/chat/vendor/${to} differs from ${pkg}@${locked} ${file}: run \`npm run vendor\``);
  }
});

test('nothing but the listed files is vendored', async () => {
  // The hash-wasm copy, and the static import closure of the SDK's MLS
  // modules in ts-mls and @hpke (no @noble, nothing loaded only dynamically).
  assert.deepEqual(await walk(VENDOR_DIR), [...FILES, ...(await treeFiles())].map((f) => f.to).sort());
});

test("the page's import map loads hash-wasm, ts-mls, @hpke and uqr from the vendored copies", async () => {
  const html = await readFile(join(JS_DIR, 'examples/chat/index.html'), 'utf8');
  const map = /<script type="importmap">([^<]*)<\/script>/.exec(html);
  assert.ok(map, 'the page has an import map');
  const imports = JSON.parse(map[1]).imports;
  assert.deepEqual(imports, {
    'hash-wasm': './vendor/hash-wasm/index.esm.js',
    'ts-mls/': './vendor/ts-mls/',
    '@hpke/core': './vendor/@hpke/core/mod.js',
    '@hpke/common': './vendor/@hpke/common/mod.js',
    uqr: './vendor/uqr/index.mjs',
  });
  assert.ok(FILES.some((f) => `./vendor/${f.to}` === imports.uqr));
  assert.ok(FILES.some((f) => `./vendor/${f.to}` === imports['hash-wasm']));
  const trees = (await treeFiles()).map((f) => `./vendor/${f.to}`);
  for (const entry of ['./vendor/@hpke/core/mod.js', './vendor/@hpke/common/mod.js', './vendor/ts-mls/clientState.js']) assert.ok(trees.includes(entry), entry);
  assert.ok(!html.includes('node_modules'), 'the page loads nothing from node_modules');
});
