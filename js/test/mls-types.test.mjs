// src/mls/index.d.ts (the types of `hermitmq/mls`, written by hand) names
// exactly the values src/mls/index.js exports, and every class member the
// declarations promise exists on the class. (The type-level check of
// test/types.test.mjs, which also compares signatures, covers `hermitmq`
// and `hermitmq/node` only.)
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import * as mls from '../src/mls/index.js';

const dts = await readFile(new URL('../src/mls/index.d.ts', import.meta.url), 'utf8');

test('hermitmq/mls exports exactly the values its declarations name', () => {
  const declared = [...dts.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]).sort();
  assert.deepEqual(Object.keys(mls).sort(), declared);
});

test("each declared class member exists on the class (static or on instances' prototype chain)", () => {
  for (const [, name, body] of dts.matchAll(/^export class (\w+)[^{]*\{([\s\S]*?)^\}/gm)) {
    const cls = /** @type {any} */ (mls)[name];
    for (const [, isStatic, member] of body.matchAll(/^ {2}(static )?(?:readonly )?(\w+)[(:?]/gm)) {
      if (member === 'constructor') continue;
      const has = isStatic ? member in cls : member in cls.prototype || dts.includes(`readonly ${member}:`);
      assert.ok(has, `${name}${isStatic ? '.' : '#'}${member} is declared but not implemented`);
    }
  }
});
