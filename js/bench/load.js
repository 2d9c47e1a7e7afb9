// The sealed load both bench drivers run: in Node (node-ws.mjs, cpu.mjs) and
// inside Chromium (browser.html). Plain ES module, the SDK by relative path.
import { Consumer, Identity, Producer, SealedConsumer, SealedProducer, Sealer, connect } from '../src/index.js';

/**
 * N sealed DIRECT messages of `size` bytes from a fresh Alice to a fresh
 * Bob on a fresh topic: produced through SealedProducer (sealing included),
 * then read back and opened with SealedConsumer. Ack "written" (an fsync per
 * batch would measure the disk, not the transport).
 * @param {string} url
 * @param {{ n: number, size: number, WebSocket?: unknown }} o
 */
export async function sealedRoundTrip(url, o) {
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const a = await connect(url, { identity: alice, WebSocket: o.WebSocket });
  const b = await connect(url, { identity: bob, WebSocket: o.WebSocket });
  const topic = `bench.sealed.${Date.now()}.${Math.random().toString(16).slice(2, 10)}`;
  const text = new Uint8Array(o.size).fill(0x61);
  try {
    const sp = await SealedProducer.create(new Producer(a, { ack: 'written', lingerMs: 2 }), alice);
    const t0 = performance.now();
    const sent = [];
    for (let i = 0; i < o.n; i++) sent.push(sp.send(topic, null, text, [bob.publicKey]));
    const deliveries = await Promise.all(sent);
    await Promise.all(deliveries.map((d) => d.delivered));
    const produceMs = performance.now() - t0;

    const sc = await SealedConsumer.create(b, bob, [alice.publicKey], topic, { start: 'earliest' });
    const t1 = performance.now();
    for (let i = 0; i < o.n; i++) {
      const r = await sc.next();
      if (!r.ok) throw r;
    }
    const consumeMs = performance.now() - t1;
    await sc.close();
    return {
      n: o.n,
      size: o.size,
      produce_msgs_per_s: Math.round((o.n * 1000) / produceMs),
      consume_msgs_per_s: Math.round((o.n * 1000) / consumeMs),
    };
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

/**
 * Seal `n` DIRECT records of `size` bytes once, for loads that should cost
 * the broker the same bytes whatever the transport.
 * @param {number} n
 * @param {number} size
 * @param {string} topic
 */
export async function presealed(n, size, topic) {
  const [alice, bob] = await Promise.all([Identity.generate(), Identity.generate()]);
  const sealer = await Sealer.create(alice);
  const text = new Uint8Array(size).fill(0x61);
  const records = [];
  for (let i = 0; i < n; i++) records.push(await sealer.sealDirect(topic, bob.publicKey, text));
  return records;
}

/**
 * Produce `records` (already sealed) with a plain Producer, then fetch them
 * all back with a plain Consumer; `between()` runs after each phase (the CPU
 * sampling). Returns the phases' wall times.
 * @param {import('../src/index.js').Client} client
 * @param {string} topic
 * @param {Uint8Array[]} records
 * @param {() => Promise<void>|void} between
 */
export async function plainLoad(client, topic, records, between) {
  const p = new Producer(client, { ack: 'written', lingerMs: 2 });
  const t0 = performance.now();
  const ds = [];
  for (const r of records) ds.push(p.send(topic, null, r));
  await Promise.all((await Promise.all(ds)).map((d) => d.delivered));
  const produceMs = performance.now() - t0;
  await between();
  const c = await Consumer.create(client, topic, { start: 'earliest' });
  const t1 = performance.now();
  for (let i = 0; i < records.length; i++) await c.next();
  const consumeMs = performance.now() - t1;
  await c.close();
  await between();
  return { produceMs, consumeMs };
}
