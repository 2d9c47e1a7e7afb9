// A relay for the tests (issue 32's attacker): a server the client dials
// that opens its own connection to a real broker and forwards bytes both
// ways — so the broker's hello reaches the client and the client's
// Authenticate reaches the broker.
//
// - Plain: TCP in, TCP out; the relay sees every byte.
// - TLS: it terminates the client's TLS with a certificate of its own
//   (in the tests one valid for the broker's own name, from the broker's
//   CA) and opens its own TLS connection to the broker: it sees the
//   plaintext, but the two TLS connections have different exporter values.
//
// `upstream` is asked at each connection, so a test can put another broker
// behind the same address (a substitute under a known name). `host`: the
// loopback address it listens on (127.0.0.1 unless given; a browser test
// dials the relay at 127.0.0.2, an address the broker does not answer to).
import net from 'node:net';
import tls from 'node:tls';

/**
 * @param {{ upstream: () => { host: string, port: number }, host?: string,
 *   tls?: { cert: string, key: string, ca: string, servername: string } }} opts
 * @returns {Promise<{ port: number, connections: number, fromClient: number, close: () => Promise<void> }>}
 */
export async function startRelay(opts) {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const relay = { port: 0, connections: 0, fromClient: 0, close };
  /** @param {net.Socket} client */
  const forward = (client) => {
    relay.connections++;
    const { host, port } = opts.upstream();
    const broker = opts.tls
      ? tls.connect({ host, port, ca: opts.tls.ca, servername: opts.tls.servername, minVersion: 'TLSv1.3' })
      : net.connect({ host, port });
    for (const s of [client, broker]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        broker.destroy();
      });
    }
    client.on('data', (chunk) => {
      relay.fromClient += chunk.length;
    });
    client.pipe(broker);
    broker.pipe(client);
  };
  const server = opts.tls
    ? tls.createServer({ cert: opts.tls.cert, key: opts.tls.key, minVersion: 'TLSv1.3' }, forward)
    : net.createServer(forward);
  await new Promise((resolve) => server.listen(0, opts.host ?? '127.0.0.1', () => resolve(undefined)));
  relay.port = /** @type {net.AddressInfo} */ (server.address()).port;
  function close() {
    for (const s of sockets) s.destroy();
    return /** @type {Promise<void>} */ (new Promise((resolve) => server.close(() => resolve())));
  }
  return relay;
}
