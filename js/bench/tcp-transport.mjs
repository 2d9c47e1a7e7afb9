// A WebSocket look-alike over plain TCP (node:net), so the SDK's Client,
// Producer and Consumer run unchanged over the broker's TCP listener: the
// bytes are the same (the broker's 61-byte hello, then u32-length-prefixed
// frames; docs/PROTOCOL.md §1 and §6), only the framing around them differs.
// For the CPU comparison in cpu.mjs; not part of the SDK.
import net from 'node:net';

/** The broker's version-3 hello on TCP. */
const HELLO_LEN = 61;

export class TcpWebSocket extends EventTarget {
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
    this._buf = Buffer.alloc(0);
    this._helloSeen = false;
    this._socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
    this._socket.on('connect', () => {
      this.readyState = 1;
      this.dispatchEvent(new Event('open'));
    });
    this._socket.on('data', (chunk) => this._onData(chunk));
    this._socket.on('error', (e) => {
      const ev = new Event('error');
      /** @type {any} */ (ev).message = e.message;
      this.dispatchEvent(ev);
    });
    this._socket.on('close', () => {
      const was = this.readyState;
      this.readyState = 3;
      const ev = new Event('close');
      Object.assign(ev, { code: was === 2 ? 1000 : 1006, reason: '' });
      this.dispatchEvent(ev);
    });
  }

  /** @param {Buffer} chunk */
  _onData(chunk) {
    this._buf = this._buf.length === 0 ? chunk : Buffer.concat([this._buf, chunk]);
    for (;;) {
      let len;
      if (!this._helloSeen) len = HELLO_LEN;
      else if (this._buf.length >= 4) len = 4 + this._buf.readUInt32BE(0);
      else return;
      if (this._buf.length < len) return;
      const msg = this._buf.subarray(0, len);
      this._buf = this._buf.subarray(len);
      this._helloSeen = true;
      const ev = new Event('message');
      /** @type {any} */ (ev).data = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
      this.dispatchEvent(ev);
    }
  }

  /** @param {Uint8Array} bytes one hello or frame */
  send(bytes) {
    this._socket.write(bytes);
  }

  close() {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    this._socket.end();
  }
}
