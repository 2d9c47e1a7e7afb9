// (c) Broker CPU per message over WebSocket vs TCP: the same Node load
// generator (the SDK's Producer and Consumer, the same pre-sealed records)
// over both transports — for TCP through tcp-transport.mjs, a WebSocket
// look-alike on node:net, so not one byte of the frames differs. The
// broker's user+system CPU time is read from /proc/<pid>/stat before and
// after each phase. Transports alternate within each run (WS first on odd
// runs) to spread the machine's noise evenly.
//   node bench/cpu.mjs [--n 20000] [--size 256] [--runs 3]
import { connect } from '../src/index.js';
import { cpuMs, emit, flags, machine, median, startBroker } from './common.mjs';
import { plainLoad, presealed } from './load.js';
import { TcpWebSocket } from './tcp-transport.mjs';

const o = flags({ n: 20000, size: 256, runs: 3 });
const broker = await startBroker();
try {
  /** @type {Record<string, Array<{ produce_us_per_msg: number, consume_us_per_msg: number, produce_msgs_per_s: number, consume_msgs_per_s: number }>>} */
  const results = { ws: [], tcp: [] };
  for (let run = 1; run <= o.runs; run++) {
    const order = run % 2 ? ['ws', 'tcp'] : ['tcp', 'ws'];
    for (const transport of order) {
      const topic = `bench.cpu.${transport}.${run}.${Date.now()}`;
      const records = await presealed(o.n, o.size, topic);
      const client =
        transport === 'ws'
          ? await connect(`ws://${broker.ws}/`)
          : await connect(`tcp://${broker.tcp}`, { WebSocket: TcpWebSocket });
      const cpu = [cpuMs(broker.pid)];
      const wall = await plainLoad(client, topic, records, () => void cpu.push(cpuMs(broker.pid)));
      await client.close();
      const r = {
        produce_us_per_msg: Number((((cpu[1] - cpu[0]) * 1000) / o.n).toFixed(2)),
        consume_us_per_msg: Number((((cpu[2] - cpu[1]) * 1000) / o.n).toFixed(2)),
        produce_msgs_per_s: Math.round((o.n * 1000) / wall.produceMs),
        consume_msgs_per_s: Math.round((o.n * 1000) / wall.consumeMs),
      };
      results[transport].push(r);
      emit({ bench: 'broker-cpu', transport, run, n: o.n, size: o.size, ...r });
    }
  }
  for (const transport of ['ws', 'tcp']) {
    const rs = results[transport];
    emit({
      bench: 'broker-cpu',
      transport,
      summary: 'median',
      runs: o.runs,
      n: o.n,
      size: o.size,
      produce_us_per_msg: median(rs.map((r) => r.produce_us_per_msg)),
      consume_us_per_msg: median(rs.map((r) => r.consume_us_per_msg)),
      produce_msgs_per_s: median(rs.map((r) => r.produce_msgs_per_s)),
      consume_msgs_per_s: median(rs.map((r) => r.consume_msgs_per_s)),
      broker: broker.bin,
      ...machine(),
    });
  }
} finally {
  await broker.stop();
}
