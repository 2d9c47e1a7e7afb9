// (d) The SDK's own CPU time on its hot paths, for comparing two checkouts
// on a busy machine: both SDKs load into one process and take turns in small
// chunks (sealing 500 DIRECT records, opening them, 2,000 records through a
// Producer whose client answers at once, reading the batches back through a
// FetchResponse), so the machine's load falls on both alike. No broker. JSON
// lines: per run the CPU ms (user + system) of each side, then the medians.
//   node bench/sdk-cpu.mjs --a ../../before/js --b . [--chunks 40] [--runs 5]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { emit, flags, machine, median } from './common.mjs';

const o = flags({ a: '', b: '.', chunks: 40, runs: 5 });
if (!o.a) throw new Error('--a DIR: the js/ directory of the checkout to compare with (--b, default this one)');
const CHUNK = 500;
const PLAINTEXT = new Uint8Array(256).fill(7);
const KEY = new Uint8Array([1, 2, 3]);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * One side: an SDK and what its chunks use, with CPU ms per path.
 * @param {string} dir a js/ directory
 */
async function side(dir) {
  /** @type {typeof import('../src/index.js')} */
  const sdk = await import(pathToFileURL(resolve(dir, 'src/index.js')).href);
  const [a, b] = await Promise.all([sdk.Identity.generate(), sdk.Identity.generate()]);
  const opener = new sdk.Opener(b);
  await opener.trust(a.publicKey);
  /** @type {Uint8Array[]} */
  const batches = [];
  let base = 0;
  const client = {
    maxFrame: 1 << 20,
    metadata: async (/** @type {string} */ topic) => [{ name: topic, partitions: [0, 1].map((partition) => ({ partition, logStart: 0, highWatermark: 0 })) }],
    produce: async (/** @type {string} */ _t, /** @type {number} */ _p, /** @type {number} */ _a, /** @type {Uint8Array} */ batch) => {
      if (batches.length < 200) batches.push(batch);
      base += 100;
      return base - 100;
    },
  };
  const producer = new sdk.Producer(/** @type {any} */ (client), { lingerMs: 0 });
  return { sdk, sealer: new sdk.Sealer(a), opener, to: b.publicKey, producer, batches, ms: { seal: 0, open: 0, produce: 0, read: 0 } };
}

/** @param {Awaited<ReturnType<typeof side>>} s */
async function chunk(s) {
  let t = cpuMs();
  const recs = await Promise.all(Array.from({ length: CHUNK }, () => s.sealer.sealDirect('t', s.to, PLAINTEXT)));
  s.ms.seal += cpuMs() - t;
  t = cpuMs();
  await Promise.all(recs.map((r) => s.opener.open('t', r)));
  s.ms.open += cpuMs() - t;
  t = cpuMs();
  for (let i = 0; i < CHUNK * 4; i++) await s.producer.send('p', i % 2 ? KEY : null, PLAINTEXT);
  await s.producer.flush();
  s.ms.produce += cpuMs() - t;
  const all = new Uint8Array(s.batches.reduce((n, x) => n + x.length, 0));
  let at = 0;
  for (const x of s.batches) {
    all.set(x, at);
    at += x.length;
  }
  t = cpuMs();
  let n = 0;
  for (const r of new s.sdk.FetchResponse('p', 0, 0, 0, all).records()) n += r.value.length > 0 ? 1 : 0;
  s.ms.read += cpuMs() - t;
  return n;
}

const [A, B] = await Promise.all([side(o.a), side(o.b)]);
/** @type {Array<{ a: Record<string, number>, b: Record<string, number> }>} */
const runs = [];
for (let run = 1; run <= o.runs; run++) {
  for (const s of [A, B]) for (const k of Object.keys(s.ms)) /** @type {Record<string, number>} */ (s.ms)[k] = 0;
  // Warm-up, then the measured chunks, alternating which side goes first.
  for (let i = 0; i < 4; i++) await chunk(i % 2 ? B : A);
  for (const s of [A, B]) for (const k of Object.keys(s.ms)) /** @type {Record<string, number>} */ (s.ms)[k] = 0;
  for (let i = 0; i < o.chunks; i++) {
    const [first, second] = i % 2 ? [B, A] : [A, B];
    await chunk(first);
    await chunk(second);
  }
  /** @param {Record<string, number>} ms */
  const rounded = (ms) => Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)]));
  const r = { a: rounded(A.ms), b: rounded(B.ms) };
  runs.push(r);
  emit({ bench: 'sdk-cpu', run, chunks: o.chunks, a_ms: r.a, b_ms: r.b });
}
/** @param {'a'|'b'} which @param {string} path */
const med = (which, path) => Number(median(runs.map((r) => r[which][path])).toFixed(0));
emit({
  bench: 'sdk-cpu',
  summary: 'median',
  runs: o.runs,
  chunks: o.chunks,
  a: resolve(o.a),
  b: resolve(o.b),
  a_ms: { seal: med('a', 'seal'), open: med('a', 'open'), produce: med('a', 'produce'), read: med('a', 'read') },
  b_ms: { seal: med('b', 'seal'), open: med('b', 'open'), produce: med('b', 'produce'), read: med('b', 'read') },
  ...machine(),
});
