// `npm run vendor`: copy exactly the files the chat page loads from npm
// packages into js/examples/chat/vendor/, from the versions package-lock.json
// pins (run `npm ci` first). The page is served with `script-src 'self'`
// (docs/SECURITY.md §5): every file on its origin is a script it may load, so
// the origin holds these few files and never node_modules (the broker does
// not serve a node_modules directory at all). The copies are committed;
// test/vendor.test.mjs fails when one differs from the pinned package's file.
import { copyFile, mkdir, readFile, readdir } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** js/ */
export const JS_DIR = resolve(here, '..');
/** Where the copies go (the import map in examples/chat/index.html points here). */
export const VENDOR_DIR = join(JS_DIR, 'examples/chat/vendor');

/**
 * Every vendored file: the package, its file, and where the copy goes
 * (relative to VENDOR_DIR). hash-wasm: Argon2id for SEALKEY files and the
 * chat page's storage key; uqr: the safety number's QR code; their MIT
 * licences travel with the copies.
 * @type {ReadonlyArray<{ pkg: string, file: string, to: string }>}
 */
export const FILES = Object.freeze([
  { pkg: 'hash-wasm', file: 'dist/index.esm.js', to: 'hash-wasm/index.esm.js' },
  { pkg: 'hash-wasm', file: 'LICENSE', to: 'hash-wasm/LICENSE' },
  // uqr: the QR encoder of the safety-number QR code (Nayuki's QR Code
  // generator, ported; one ES module without imports), MIT.
  { pkg: 'uqr', file: 'dist/index.mjs', to: 'uqr/index.mjs' },
  { pkg: 'uqr', file: 'LICENSE', to: 'uqr/LICENSE' },
]);

/**
 * Packages vendored as the ES modules the SDK's MLS reaches (docs/MLS.md
 * §11.7): from each package's `root`, only the files in the static import
 * closure of the SDK's `ts-mls/*` imports (dynamic imports are for other
 * ciphersuites and are left out), under `vendor/<pkg>/`, with the licence.
 * The page's import map maps `ts-mls/` to the vendored directory and each
 * `@hpke` package to its `mod.js`.
 * @type {ReadonlyArray<{ pkg: string, root: string }>}
 */
export const TREES = Object.freeze([
  { pkg: 'ts-mls', root: 'dist/src' },
  { pkg: '@hpke/core', root: 'esm' },
  { pkg: '@hpke/common', root: 'esm' },
]);

/** The bare specifiers the vendored trees may import, and where they resolve in node_modules. */
const BARE = Object.freeze({ '@hpke/core': '@hpke/core/esm/mod.js', '@hpke/common': '@hpke/common/esm/mod.js' });

/** Static import and export-from specifiers of an ES module. @param {string} code @returns {string[]} */
function staticImports(code) {
  const out = [];
  const re = /(?:^|[;\n}])\s*(?:import|export)\s+(?:[^'"();]*?\sfrom\s*)?["']([^"']+)["']/g;
  for (let m = re.exec(code); m; m = re.exec(code)) out.push(m[1]);
  return out;
}

/**
 * Every file (path under node_modules) the SDK's MLS modules load, statically.
 * @returns {Promise<string[]>}
 */
export async function mlsClosure() {
  const src = join(JS_DIR, 'src/mls');
  /** @type {string[]} */
  const todo = [];
  for (const f of await readdir(src)) {
    if (!f.endsWith('.js')) continue;
    for (const spec of staticImports(await readFile(join(src, f), 'utf8'))) {
      if (spec.startsWith('ts-mls/')) todo.push(`ts-mls/dist/src/${spec.slice('ts-mls/'.length)}`);
    }
  }
  const seen = new Set();
  while (todo.length) {
    const file = /** @type {string} */ (todo.pop());
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticImports(await readFile(join(JS_DIR, 'node_modules', file), 'utf8'))) {
      if (spec.startsWith('.')) todo.push(posix.join(posix.dirname(file), spec));
      else if (spec in BARE) todo.push(BARE[/** @type {keyof typeof BARE} */ (spec)]);
      else throw new Error(`${file} imports ${spec}, which the vendored page cannot load`);
    }
  }
  return [...seen].sort();
}

/**
 * The vendored files of TREES: package, file (under the package) and where
 * the copy goes (relative to VENDOR_DIR).
 * @returns {Promise<Array<{ pkg: string, file: string, to: string }>>}
 */
export async function treeFiles() {
  const out = [];
  for (const file of await mlsClosure()) {
    const tree = TREES.find((t) => file.startsWith(`${t.pkg}/${t.root}/`));
    if (!tree) throw new Error(`${file} is outside the vendored trees`);
    const inPkg = file.slice(tree.pkg.length + 1);
    out.push({ pkg: tree.pkg, file: inPkg, to: `${tree.pkg}/${relative(tree.root, inPkg)}` });
  }
  for (const t of TREES) out.push({ pkg: t.pkg, file: 'LICENSE', to: `${t.pkg}/LICENSE` });
  return out;
}

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
  for (const { pkg, file, to } of [...FILES, ...(await treeFiles())]) {
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
