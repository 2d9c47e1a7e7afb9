// A stand-in broker over WebSocket for connection tests that need to misbehave
// on purpose (answers out of order, malformed frames, silence, closing
// mid-request). Tests of real behaviour use helpers/broker.mjs.
import { createServer } from 'node:https';
import { WebSocketServer } from 'ws';
import { Identity } from '../../src/crypto/identity.js';
import { authTranscriptBound } from '../../src/protocol/auth.js';
import { decodeResponse, encodeResponse, Op } from '../../src/protocol/frame.js';
import { BrokerFlags, encodeBrokerHello } from '../../src/protocol/hello.js';

/** @typedef {import('ws').WebSocket} Socket */
/** A request as the stand-in sees it. @typedef {{ op: number, correlationId: number, body: Uint8Array, isBinary: boolean }} FakeRequest */
/** What a stand-in answers: a body for the op, or an error. @typedef {Parameters<typeof encodeResponse>[2]} Answer */

/**
 * @param {{ flags?: number, maxFrame?: number, onRequest?: (req: FakeRequest, ws: Socket, raw: Uint8Array) => void, hello?: Uint8Array, protocol?: string|false,
 *   tls?: import('node:tls').TlsOptions, brokerId?: Uint8Array }} behaviour
 *   `tls`: serve `wss:` with these options (cert, key, minVersion, maxVersion…)
 */
export async function fakeBroker(behaviour = {}) {
  const https = behaviour.tls ? createServer(behaviour.tls) : null;
  const wss = new WebSocketServer({
    ...(https ? { server: https } : { host: '127.0.0.1', port: 0 }),
    handleProtocols: (protocols) => (behaviour.protocol === false ? false : behaviour.protocol ?? (protocols.has('hermitmq.v3') ? 'hermitmq.v3' : false)),
  });
  if (https) await new Promise((r) => https.listen(0, '127.0.0.1', () => r(undefined)));
  else await new Promise((r) => wss.once('listening', r));
  /** The TLS socket under each connection (wss only). @type {WeakMap<Socket, import('node:tls').TLSSocket>} */
  const tlsSockets = new WeakMap();
  const nonce = crypto.getRandomValues(new Uint8Array(32));
  const brokerId = behaviour.brokerId ?? crypto.getRandomValues(new Uint8Array(16));
  const sockets = new Set();
  wss.on('connection', (ws, request) => {
    sockets.add(ws);
    if (https) tlsSockets.set(ws, /** @type {import('node:tls').TLSSocket} */ (request.socket));
    let helloDone = false;
    ws.on('message', (data, isBinary) => {
      const raw = new Uint8Array(/** @type {Buffer} */ (data));
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
  const port = /** @type {import('node:net').AddressInfo} */ ((https ?? wss).address()).port;
  return {
    url: `${https ? 'wss' : 'ws'}://127.0.0.1:${port}/`,
    port,
    nonce,
    brokerId,
    sockets,
    /** The server's side of a wss connection's TLS socket. */
    tlsSocketOf: (/** @type {Socket} */ ws) => tlsSockets.get(ws),
    answer: (/** @type {Socket} */ ws, /** @type {FakeRequest} */ req, /** @type {Answer} */ what) => ws.send(encodeResponse(req.correlationId, req.op, what)),
    close: () => /** @type {Promise<void>} */ (new Promise((r) => {
      for (const s of sockets) s.terminate();
      wss.close(() => (https ? https.close(() => r()) : r()));
    })),
  };
}

/**
 * A `lookup` (for `wsOptions`) that resolves every name to 127.0.0.1: a
 * test dials brokers and relays under names of its own (`broker.test`).
 * @param {string} _hostname
 * @param {any} options
 * @param {(err: Error|null, address: any, family?: number) => void} callback
 */
export function loopbackLookup(_hostname, options, callback) {
  if (options?.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}

/**
 * A fresh identity that counts what it signs (`signed`): a test shows that
 * a refused connect signed nothing.
 */
export async function spyIdentity() {
  const identity = await Identity.generate();
  const spy = {
    identity,
    signed: 0,
    spki: () => identity.spki(),
    signAuthBound: (/** @type {[Uint8Array, Uint8Array, string, Uint8Array]} */ ...args) => {
      spy.signed++;
      return identity.signAuthBound(...args);
    },
  };
  return spy;
}

/**
 * The fields of an Authenticate body (mechanism 2 sends name and channel binding).
 * @param {Uint8Array} b
 */
export function parseAuthenticate(b) {
  const spkiLen = (b[1] << 8) | b[2];
  const spki = b.slice(3, 3 + spkiLen);
  let at = 3 + spkiLen;
  const sigLen = (b[at] << 8) | b[at + 1];
  const signature = b.slice(at + 2, at + 2 + sigLen);
  at += 2 + sigLen;
  if (b[0] === 1) return { mechanism: 1, spki, signature, name: '', channelBinding: new Uint8Array(0), rest: b.length - at };
  const name = new TextDecoder().decode(b.subarray(at + 1, at + 1 + b[at]));
  at += 1 + b[at];
  const channelBinding = b.slice(at + 1, at + 1 + b[at]);
  at += 1 + b[at];
  return { mechanism: b[0], spki, signature, name, channelBinding, rest: b.length - at };
}

/**
 * Whether a proof verifies as a broker checks it: the signature over the
 * bound transcript of this broker's nonce and id and the fields sent.
 * @param {{ nonce: Uint8Array, brokerId: Uint8Array }} broker
 * @param {ReturnType<typeof parseAuthenticate>} a
 */
export async function verifiesBound(broker, a) {
  const key = await crypto.subtle.importKey('spki', a.spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const message = authTranscriptBound(broker.nonce, broker.brokerId, a.name, a.channelBinding, a.spki);
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, a.signature, /** @type {BufferSource} */ (message));
}

export { Op, decodeResponse };

/**
 * Decode a Fetch request body as the broker does (protocol/src/op/fetch.rs):
 * without the trailing part `minBytes` is 1 and `minWaitMs` 0; any other
 * length than with or without the 8-byte part is refused.
 * @param {Uint8Array} b
 */
export function parseFetch(b) {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const at = 1 + b[0];
  const fixed = at + 4 + 8 + 4 + 4;
  if (b.length !== fixed && b.length !== fixed + 8) throw new Error(`a fetch body of ${b.length} bytes (${fixed} or ${fixed + 8} expected)`);
  const trailing = b.length === fixed + 8;
  return {
    topic: new TextDecoder().decode(b.subarray(1, at)),
    partition: dv.getUint32(at),
    offset: Number(dv.getBigUint64(at + 4)),
    maxBytes: dv.getUint32(at + 12),
    maxWaitMs: dv.getUint32(at + 16),
    minBytes: trailing ? dv.getUint32(fixed) : 1,
    minWaitMs: trailing ? dv.getUint32(fixed + 4) : 0,
    trailing,
  };
}

/**
 * An in-memory stand-in that keeps a log per partition: enough of the broker
 * for producer and consumer logic tests that need to control timing. The real
 * broker runs the same tests in *-broker.test.mjs.
 * @param {{ partitions?: number, hold?: (req: FakeRequest, ws: Socket) => boolean, flags?: number }} opts  `hold` returning true leaves a request unanswered (answer it later with `handle`);
 *   `flags`: its hello's flags (default 0); without `FETCH_MIN_BYTES` a fetch
 *   with the min bytes part closes the connection, as an older broker does.
 */
export async function memoryBroker(opts = {}) {
  const { parseBatch } = await import('../../src/protocol/record.js');
  /** @type {Map<string, Array<{ batches: Uint8Array[], next: number }>>} */
  const topics = new Map(); // name -> array of partitions: { batches: Uint8Array[], next: number }
  const commits = new Map();
  /** @type {Array<{ ws: Socket, req: FakeRequest, name: string, partition: number, offset: number, timer?: any }>} */
  const waiting = []; // long polls: { ws, req, topic, partition, offset, deadline timer }
  const stats = { produces: 0, fetches: 0 };
  const topic = (/** @type {string} */ name) => {
    if (!topics.has(name)) topics.set(name, Array.from({ length: opts.partitions ?? 1 }, () => ({ batches: /** @type {Uint8Array[]} */ ([]), next: 0 })));
    return /** @type {Array<{ batches: Uint8Array[], next: number }>} */ (topics.get(name));
  };
  /** @returns {[string, number]} */
  const readStr8 = (/** @type {Uint8Array} */ b, /** @type {number} */ at) => [new TextDecoder().decode(b.subarray(at + 1, at + 1 + b[at])), at + 1 + b[at]];
  /**
   * @param {Socket} ws
   * @param {FakeRequest} req
   * @param {Array<{ batches: Uint8Array[], next: number }>} parts
   * @param {number} partition
   * @param {number} offset
   */
  const answerFetch = (ws, req, parts, partition, offset) => {
    const p = parts[partition];
    const out = [];
    let n = 0;
    for (const b of p.batches) {
      const h = parseBatch(b).header;
      if (h.baseOffset + h.recordCount > offset) { out.push(b); n += b.length; }
    }
    const records = new Uint8Array(n);
    let at = 0;
    for (const b of out) { records.set(b, at); at += b.length; }
    ws.send(encodeResponse(req.correlationId, Op.Fetch, { body: { highWatermark: p.next, logStart: 0, records } }));
  };
  const handle = (/** @type {FakeRequest} */ req, /** @type {Socket} */ ws) => {
      const b = req.body;
      const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
      switch (req.op) {
        case Op.Metadata: {
          const list = b.length === 0 ? [...topics.keys()] : [readStr8(b, 0)[0]];
          if (b.length > 0 && !topics.has(list[0])) return broker.answer(ws, req, { error: { status: 'UnknownTopic', message: `unknown topic ${list[0]}` } });
          return broker.answer(ws, req, { body: list.map((name) => ({ name, partitions: /** @type {Array<{ next: number }>} */ (topics.get(name)).map((p, i) => ({ partition: i, logStart: 0, highWatermark: p.next })) })) });
        }
        case Op.Produce: {
          stats.produces++;
          const [name, at] = readStr8(b, 0);
          const partition = dv.getUint32(at);
          const batch = b.slice(at + 5);
          const p = topic(name)[partition];
          const base = p.next;
          new DataView(batch.buffer).setBigUint64(1, BigInt(base));
          p.next += parseBatch(batch).header.recordCount;
          p.batches.push(batch);
          broker.answer(ws, req, { body: { baseOffset: base } });
          for (const w of waiting.splice(0)) {
            if (w.name === name && w.partition === partition) { clearTimeout(w.timer); answerFetch(w.ws, w.req, topic(name), partition, w.offset); } else waiting.push(w);
          }
          return;
        }
        case Op.Fetch: {
          stats.fetches++;
          if (parseFetch(b).trailing && ((opts.flags ?? 0) & BrokerFlags.FETCH_MIN_BYTES) === 0) return ws.close(1002, 'malformed request');
          const [name, at] = readStr8(b, 0);
          const partition = dv.getUint32(at);
          const offset = Number(dv.getBigUint64(at + 4));
          const maxWait = dv.getUint32(at + 16);
          const parts = topic(name);
          const p = parts[partition];
          if (offset > p.next) return broker.answer(ws, req, { error: { status: 'OffsetOutOfRange', message: 'out of range', bounds: [0, p.next] } });
          if (offset === p.next && maxWait > 0) {
            /** @type {{ ws: Socket, req: FakeRequest, name: string, partition: number, offset: number, timer?: any }} */
            const w = { ws, req, name, partition, offset };
            w.timer = setTimeout(() => { waiting.splice(waiting.indexOf(w), 1); answerFetch(ws, req, parts, partition, offset); }, maxWait);
            waiting.push(w);
            return;
          }
          return answerFetch(ws, req, parts, partition, offset);
        }
        case Op.Commit: {
          const [group, a1] = readStr8(b, 0);
          const [name, a2] = readStr8(b, a1);
          commits.set(`${group}/${name}/${dv.getUint32(a2)}`, Number(dv.getBigUint64(a2 + 4)));
          return broker.answer(ws, req, { body: {} });
        }
        case Op.Committed: {
          const [group, a1] = readStr8(b, 0);
          const [name, a2] = readStr8(b, a1);
          const v = commits.get(`${group}/${name}/${dv.getUint32(a2)}`);
          return broker.answer(ws, req, { body: { offset: v ?? null } });
        }
        default:
          return broker.answer(ws, req, { body: {} });
      }
  };
  const broker = await fakeBroker({ flags: opts.flags, onRequest: (req, ws) => (opts.hold?.(req, ws) ? undefined : handle(req, ws)) });
  const close = broker.close;
  broker.close = () => { for (const w of waiting.splice(0)) clearTimeout(w.timer); return close(); };
  return Object.assign(broker, { topics, commits, stats, handle });
}
