// A WebSocket look-alike over plain TCP (node:net), so the SDK's Client,
// Producer and Consumer run unchanged over the broker's TCP listener: the
// bytes are the same (the broker's 61-byte hello, then u32-length-prefixed
// frames; docs/PROTOCOL.md §1 and §6), only the framing around them differs.
// For the CPU comparison in cpu.mjs; not part of the SDK.
import net from 'node:net';

/** The broker's version-3 hello on TCP. */
const HELLO_LEN = 61;

export class TcpWebSocket extends EventTarget {
  /** Bytes received and not yet handed out as messages. @type {Buffer} */
  #buf;
  /** Whether the broker's hello (unframed) was handed out. */
  #helloSeen;
  /** @type {net.Socket} */
  #socket;

  /**
   * @param {string} url `tcp://host:port`
   * @param {string} protocol the subprotocol the Client asks for (echoed: TCP has none)
   */
  constructor(url, protocol) {
    super();
    const { hostname, port } = new URL(url);
    this.url = url;
    this.protocol = protocol;
    this.binaryType = 'arraybuffer';
    /** 0 connecting, 1 open, 2 closing, 3 closed (as WebSocket). */
    this.readyState = 0;
    this.#buf = Buffer.alloc(0);
    this.#helloSeen = false;
    this.#socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
    this.#socket.on('connect', () => {
      this.readyState = 1;
      this.dispatchEvent(new Event('open'));
    });
    this.#socket.on('data', (chunk) => this.#onData(chunk));
    this.#socket.on('error', (e) => {
      const ev = new Event('error');
      /** @type {any} */ (ev).message = e.message;
      this.dispatchEvent(ev);
    });
    this.#socket.on('close', () => {
      const was = this.readyState;
      this.readyState = 3;
      const ev = new Event('close');
      Object.assign(ev, { code: was === 2 ? 1000 : 1006, reason: '' });
      this.dispatchEvent(ev);
    });
  }

  /** @param {Buffer} chunk */
  #onData(chunk) {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    for (;;) {
      let len;
      if (!this.#helloSeen) len = HELLO_LEN;
      else if (this.#buf.length >= 4) len = 4 + this.#buf.readUInt32BE(0);
      else return;
      if (this.#buf.length < len) return;
      const msg = this.#buf.subarray(0, len);
      this.#buf = this.#buf.subarray(len);
      this.#helloSeen = true;
      const ev = new Event('message');
      /** @type {any} */ (ev).data = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
      this.dispatchEvent(ev);
    }
  }

  /** @param {Uint8Array} bytes one hello or frame */
  send(bytes) {
    this.#socket.write(bytes);
  }

  close() {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    this.#socket.end();
  }
}
