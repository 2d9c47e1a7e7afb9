// A WebSocket relay for the reconnect tests: the client dials it, it dials
// the real broker, and it forwards each message (one frame) both ways —
// until `cut` says to drop the connection. A test uses it to lose exactly
// the answer to a request the broker has already carried out (the first
// copy of a batch reaches the log, its acknowledgement never reaches the
// client), which is what makes a producer's retry land twice.
//
// It listens on 127.0.0.1 like the broker, so the name a client signs
// (the host, without the port) is one the broker serves: authentication
// passes through it.
import { WebSocket, WebSocketServer } from 'ws';

/**
 * A frame as the relay sees it: `dir` 'up' (client → broker) or 'down',
 * `op` the op code (a response's without its response bit), `correlationId`,
 * and the frame itself.
 * @typedef {{ dir: 'up'|'down', op: number, correlationId: number, frame: Uint8Array, conn: number }} RelayedFrame
 */

/**
 * @param {{ upstream: () => string, cut?: (f: RelayedFrame) => boolean }} opts
 *   `upstream`: the broker's ws URL, asked at each connection; `cut`:
 *   called for every frame before it is forwarded — true drops it and ends
 *   both connections (the frame is not forwarded).
 * @returns {Promise<{ url: string, connections: number, cuts: number, close: () => Promise<void> }>}
 */
export async function startWsRelay(opts) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (p) => (p.has('hermitmq.v3') ? 'hermitmq.v3' : false) });
  await new Promise((r) => wss.once('listening', r));
  /** @type {Set<WebSocket>} */
  const sockets = new Set();
  const relay = {
    url: `ws://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (wss.address()).port}/`,
    connections: 0,
    cuts: 0,
    close: () => /** @type {Promise<void>} */ (new Promise((r) => {
      for (const s of sockets) s.terminate();
      wss.close(() => r());
    })),
  };
  wss.on('connection', (client) => {
    const conn = relay.connections++;
    const broker = new WebSocket(opts.upstream(), 'hermitmq.v3');
    broker.binaryType = 'nodebuffer';
    for (const s of [client, broker]) {
      sockets.add(s);
      s.on('close', () => {
        sockets.delete(s);
        client.terminate();
        broker.terminate();
      });
      s.on('error', () => {
        client.terminate();
        broker.terminate();
      });
    }
    /** @type {Buffer[]} */
    const early = [];
    /**
     * @param {'up'|'down'} dir
     * @param {Buffer} data
     * @returns {boolean} whether to forward it
     */
    const judge = (dir, data) => {
      const frame = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      // The hellos are not frames (8-byte client hello, the broker's); judge only frames.
      if (frame.length < 9 || frame[0] === 0x48) return true;
      const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
      const f = { dir, op: frame[4] & 0x7f, correlationId: view.getUint32(5), frame, conn };
      if (!opts.cut?.(f)) return true;
      relay.cuts++;
      client.terminate();
      broker.terminate();
      return false;
    };
    client.on('message', (/** @type {Buffer} */ data) => {
      if (!judge('up', data)) return;
      if (broker.readyState === WebSocket.OPEN) broker.send(data);
      else early.push(data);
    });
    broker.on('open', () => {
      for (const d of early.splice(0)) broker.send(d);
    });
    broker.on('message', (/** @type {Buffer} */ data) => {
      if (judge('down', data)) client.send(data);
    });
  });
  return relay;
}
