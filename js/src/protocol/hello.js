/**
 * The hellos exchanged once per connection (`protocol/src/hello.rs`): the
 * client's 8 bytes, the broker's version-3 hello with its flags, nonce and id.
 *
 * @module protocol/hello
 */

import { Reader, Writer } from './codec.js';
import { ClientError, WireError } from './error.js';

/** The protocol version this SDK speaks. */
export const PROTOCOL_VERSION = 3;
/** Length of the client's hello and of the head of every broker hello. */
export const HELLO_LEN = 8;
/** Length of the nonce in a version-3 broker hello. */
export const NONCE_LEN = 32;
/** Length of a broker id. */
export const BROKER_ID_LEN = 16;
/** Length of a whole version-3 broker hello. */
export const BROKER_HELLO_V3_LEN = HELLO_LEN + 4 + NONCE_LEN + 1 + BROKER_ID_LEN;

/** Flags of a version-3 broker hello. */
export const BrokerFlags = Object.freeze({
  /** Every op but Ping and Authenticate needs a principal. */
  AUTH_REQUIRED: 1,
  /** Authenticate is accepted. */
  AUTH_AVAILABLE: 0b10,
  /** The connection runs over TLS. */
  TLS: 0b100,
  /** A client certificate already named the principal. */
  AUTHENTICATED: 0b1000,
  /**
   * The broker reads a Fetch's optional `minBytes`/`minWaitMs` part: the
   * client sends that part only when this is set (an older broker refuses
   * the longer body and closes the connection).
   */
  FETCH_MIN_BYTES: 0b1_0000,
});

/**
 * The client's 8-byte hello: `"HMQ"`, version 3, flags 0.
 * @returns {Uint8Array}
 */
export function encodeClientHello() {
  return Uint8Array.of(0x48, 0x4d, 0x51, PROTOCOL_VERSION, 0, 0, 0, 0);
}

/**
 * @typedef {object} BrokerHello
 * @property {number} version   always 3 (anything else throws)
 * @property {number} maxFrame  largest frame the broker accepts (after the length prefix)
 * @property {number} flags     {@link BrokerFlags} bits
 * @property {Uint8Array} nonce     32 fresh bytes for this connection
 * @property {Uint8Array} brokerId  the broker's id (16 bytes)
 */

/**
 * Decode a broker hello (one whole WebSocket message).
 *
 * Throws `UnsupportedVersion` for a broker of another version (a version-2
 * broker's 8-byte hello included) and a {@link WireError} for anything else
 * that is not a version-3 hello.
 *
 * @param {Uint8Array} buf
 * @returns {BrokerHello}
 */
export function decodeBrokerHello(buf) {
  const r = new Reader(buf);
  if (buf.length < 3 || buf[0] !== 0x48 || buf[1] !== 0x4d || buf[2] !== 0x51) {
    throw new WireError('BadHello', 'the broker hello does not start with "HMQ"');
  }
  r.pos = 3;
  const version = r.u8();
  const maxFrame = r.u32();
  if (version !== PROTOCOL_VERSION) {
    throw new ClientError(
      'UnsupportedVersion',
      `the broker speaks protocol version ${version}; this client speaks ${PROTOCOL_VERSION}`,
    );
  }
  const flags = r.u32();
  const nonce = r.bytes(NONCE_LEN).slice();
  const idLen = r.u8();
  if (idLen !== BROKER_ID_LEN) {
    throw new WireError('InvalidField', `broker id length ${idLen} (expected ${BROKER_ID_LEN})`);
  }
  const brokerId = r.bytes(idLen).slice();
  r.finish();
  return { version, maxFrame, flags, nonce, brokerId };
}

/**
 * Encode a version-3 broker hello (for tests and stand-in brokers).
 * @param {{ maxFrame: number, flags: number, nonce: Uint8Array, brokerId: Uint8Array }} h
 * @returns {Uint8Array}
 */
export function encodeBrokerHello(h) {
  const w = new Writer(BROKER_HELLO_V3_LEN);
  w.bytes(Uint8Array.of(0x48, 0x4d, 0x51, PROTOCOL_VERSION));
  w.u32(h.maxFrame);
  w.u32(h.flags);
  w.bytes(h.nonce);
  w.u8(h.brokerId.length);
  w.bytes(h.brokerId);
  return w.finish();
}
