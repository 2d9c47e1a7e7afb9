// `npm run vendor`: copy exactly the files the chat page loads from npm
// packages into js/examples/chat/vendor/, from the versions package-lock.json
// pins (run `npm ci` first). The page is served with `script-src 'self'`
// (docs/SECURITY.md §5): every file on its origin is a script it may load, so
// the origin holds these few files and never node_modules (the broker does
// not serve a node_modules directory at all). The copies are committed;
// test/vendor.test.mjs fails when one differs from the pinned package's file.
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** js/ */
export const JS_DIR = resolve(here, '..');
/** Where the copies go (the import map in examples/chat/index.html points here). */
export const VENDOR_DIR = join(JS_DIR, 'examples/chat/vendor');

/**
 * Every vendored file: the package, its file, and where the copy goes
 * (relative to VENDOR_DIR). hash-wasm: Argon2id for SEALKEY files and the
 * chat page's storage key; its MIT licence travels with the copy.
 * @type {ReadonlyArray<{ pkg: string, file: string, to: string }>}
 */
export const FILES = Object.freeze([
  { pkg: 'hash-wasm', file: 'dist/index.esm.js', to: 'hash-wasm/index.esm.js' },
  { pkg: 'hash-wasm', file: 'LICENSE', to: 'hash-wasm/LICENSE' },
]);

/**
 * The version package-lock.json pins for `pkg`, and the version installed in
 * node_modules; they differ when `npm ci` was not run after a lock change.
 * @param {string} pkg
 * @returns {Promise<{ locked: string, installed: string }>}
 */
export async function versions(pkg) {
  const lock = JSON.parse(await readFile(join(JS_DIR, 'package-lock.json'), 'utf8'));
  const locked = lock.packages?.[`node_modules/${pkg}`]?.version;
  if (typeof locked !== 'string') throw new Error(`package-lock.json pins no ${pkg}`);
  const installed = JSON.parse(await readFile(join(JS_DIR, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  return { locked, installed };
}

/** Copy every file of FILES; refuses when node_modules is not what the lock pins. */
export async function vendor() {
  for (const { pkg, file, to } of FILES) {
    const { locked, installed } = await versions(pkg);
    if (locked !== installed) throw new Error(`node_modules has ${pkg} ${installed}, package-lock.json pins ${locked}: run \`npm ci\` first`);
    const dest = join(VENDOR_DIR, to);
    await mkdir(dirname(dest), { recursive: true });
    await copyFile(join(JS_DIR, 'node_modules', pkg, file), dest);
    console.log(`${pkg}@${installed} ${file} -> ${join('examples/chat/vendor', to)}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  vendor().catch((e) => {
    console.error(`vendor: ${e.message}`);
    process.exitCode = 1;
  });
}
