// (a) Sealed messages per second over WebSocket from Node: SealedProducer
// (sealing included) and SealedConsumer (opening included), through a real
// broker. JSON lines: one per run, then the medians.
//   node bench/node-ws.mjs [--n 20000] [--size 256] [--runs 3]
import { emit, flags, machine, median, startBroker } from './common.mjs';
import { sealedRoundTrip } from './load.js';

const o = flags({ n: 20000, size: 256, runs: 3 });
const broker = await startBroker();
try {
  const runs = [];
  for (let i = 0; i < o.runs; i++) {
    const r = await sealedRoundTrip(`ws://${broker.ws}/`, { n: o.n, size: o.size });
    runs.push(r);
    emit({ bench: 'node-ws-sealed', run: i + 1, ...r });
  }
  emit({
    bench: 'node-ws-sealed',
    summary: 'median',
    runs: o.runs,
    n: o.n,
    size: o.size,
    produce_msgs_per_s: median(runs.map((r) => r.produce_msgs_per_s)),
    consume_msgs_per_s: median(runs.map((r) => r.consume_msgs_per_s)),
    broker: broker.bin,
    ...machine(),
  });
} finally {
  await broker.stop();
}
