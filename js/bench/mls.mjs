// MLS in Node (docs/BENCHMARKS.md "MLS in JavaScript (issue 36)"): seal and
// open of application messages, and Add Commits at 2, 10 and 100 members,
// on ts-mls with our Web Crypto ciphersuite; bench/mls-core.js does the work
// (Chromium runs the same module: bench/mls-browser.mjs).
//   node bench/mls.mjs [--n 2000] [--size 27] [--runs 5]
import { addCommit, messages } from './mls-core.js';
import { emit, flags } from './common.mjs';

const o = flags({ n: 2000, size: 27, runs: 5 });
for (let run = 1; run <= o.runs; run++) {
  const m = await messages(o.n, o.size);
  emit({ bench: 'mls-messages', env: `node ${process.version}`, run, n: o.n, size: o.size, seal_per_s: Math.round((o.n * 1000) / m.sealMs), open_per_s: Math.round((o.n * 1000) / m.openMs) });
  for (const size of [2, 10, 100]) {
    const c = await addCommit(size);
    emit({ bench: 'mls-add-commit', env: `node ${process.version}`, run, members: size, make_ms: Number(c.makeMs.toFixed(1)), process_ms: Number(c.processMs.toFixed(1)) });
  }
}
