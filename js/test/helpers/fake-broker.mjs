// A stand-in broker over WebSocket for connection tests that need to misbehave
// on purpose (answers out of order, malformed frames, silence, closing
// mid-request). Tests of real behaviour use helpers/broker.mjs.
import { WebSocketServer } from 'ws';
import { decodeResponse, encodeBrokerHello, encodeResponse, Op } from '../../src/protocol.js';

/**
 * @param {{ flags?: number, maxFrame?: number, onRequest?: (req, ws, raw) => void, hello?: Uint8Array, protocol?: string|false }} behaviour
 */
export async function fakeBroker(behaviour = {}) {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    handleProtocols: (protocols) => (behaviour.protocol === false ? false : behaviour.protocol ?? (protocols.has('hermitmq.v3') ? 'hermitmq.v3' : false)),
  });
  await new Promise((r) => wss.once('listening', r));
  const nonce = crypto.getRandomValues(new Uint8Array(32));
  const brokerId = crypto.getRandomValues(new Uint8Array(16));
  const sockets = new Set();
  wss.on('connection', (ws) => {
    sockets.add(ws);
    let helloDone = false;
    ws.on('message', (data, isBinary) => {
      const raw = new Uint8Array(data);
      if (!helloDone) {
        helloDone = true;
        ws.send(behaviour.hello ?? encodeBrokerHello({ maxFrame: behaviour.maxFrame ?? 1048572, flags: behaviour.flags ?? 0, nonce, brokerId }));
        return;
      }
      const dv = new DataView(raw.buffer, raw.byteOffset);
      const req = { op: raw[4], correlationId: dv.getUint32(5), body: raw.subarray(9), isBinary };
      if (behaviour.onRequest) behaviour.onRequest(req, ws, raw);
      else ws.send(encodeResponse(req.correlationId, req.op, { body: {} }));
    });
  });
  const port = wss.address().port;
  return {
    url: `ws://127.0.0.1:${port}/`,
    nonce,
    brokerId,
    sockets,
    answer: (ws, req, what) => ws.send(encodeResponse(req.correlationId, req.op, what)),
    close: () => new Promise((r) => { for (const s of sockets) s.terminate(); wss.close(() => r()); }),
  };
}

export { Op, decodeResponse };
