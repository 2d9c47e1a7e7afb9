// The JavaScript suite runs with every `@noble/*` module replaced by one that
// throws on import (test/helpers/no-noble.mjs, loaded by scripts/test.sh):
// the MLS tests that pass under it pass on Web Crypto alone. This test fails
// when the hook is not in force, so the claim cannot silently lapse.
import { test } from 'node:test';
import assert from 'node:assert/strict';

test('@noble modules throw on import in this run (MLS on Web Crypto only)', async () => {
  assert.ok(
    process.execArgv.some((a) => a.includes('no-noble.mjs')),
    'run the JavaScript suite with `node --import ./test/helpers/no-noble.mjs --test test/`',
  );
  // Specifiers in variables: the type check need not resolve them.
  for (const specifier of ['@noble/curves/nist.js', '@noble/ciphers/chacha.js']) {
    await assert.rejects(import(specifier), /@noble is blocked/, specifier);
  }
});
