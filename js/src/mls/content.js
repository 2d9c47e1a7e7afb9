// What an application message's MLS `application_data` holds (docs/MLS.md
// §2.1; Rust client/src/mls/content.rs — the same bytes):
//
//   u8 version 1, u8 kind (1 = text, 2 = views), u64 sent_at (ms),
//   u32 body length n, n bytes body (UTF-8 for text; for views, views.js),
//   0x80 0x00* up to padme(14 + n + 1).

import { fromUtf8, utf8 } from '../bytes.js';
import { paddedLen } from '../crypto/pad.js';
import { Writer } from '../protocol/codec.js';
import { MlsError } from './error.js';
import { decodeViews, encodeViews } from './views.js';

/** @import { View } from './views.js' */

/** The framing's version. */
export const CONTENT_VERSION = 1;
/** The kind of a text message. */
export const KIND_TEXT = 1;
/** The kind of a views message (views.js; docs/MLS.md §4.7). */
export const KIND_VIEWS = 2;
/** The largest body. */
export const MAX_BODY = 1 << 20;
const HEAD_LEN = 1 + 1 + 8 + 4;

/** @param {string} why */
const bad = (why) => new MlsError('Content', `message content: ${why}`);

/**
 * Frames `body` as content of `kind` sent at `sentAt` (ms), padded.
 * @param {number} kind
 * @param {Uint8Array} body
 * @param {number} sentAt
 * @returns {Uint8Array}
 */
function frame(kind, body, sentAt) {
  if (body.length > MAX_BODY) throw bad(`a body is at most ${MAX_BODY} bytes, not ${body.length}`);
  const end = HEAD_LEN + body.length;
  const w = new Writer(paddedLen(end));
  w.u8(CONTENT_VERSION);
  w.u8(kind);
  w.u64(sentAt);
  w.u32(body.length);
  w.bytes(body);
  w.u8(0x80);
  const out = new Uint8Array(paddedLen(end));
  out.set(w.finish());
  return out;
}

/**
 * The application data of a text message sent at `sentAt` (ms).
 * @param {string} text
 * @param {number} sentAt
 * @returns {Uint8Array}
 */
export function encodeText(text, sentAt) {
  return frame(KIND_TEXT, utf8(text), sentAt);
}

/**
 * The application data of a views message sent at `sentAt` (ms); `views`
 * in ascending account order.
 * @param {View[]} views
 * @param {number} sentAt
 * @returns {Uint8Array}
 */
export function encodeViewsContent(views, sentAt) {
  return frame(KIND_VIEWS, encodeViews(views), sentAt);
}

/**
 * Parses and checks decrypted application data of either kind.
 * @param {Uint8Array} bytes
 * @returns {{ kind: 'text', sentAt: number, text: string } | { kind: 'views', sentAt: number, views: View[] }}
 * @throws {MlsError} code `Content`
 */
export function decodeContent(bytes) {
  if (bytes.length < HEAD_LEN) throw bad('truncated');
  if (bytes[0] !== CONTENT_VERSION) throw bad(`unknown version ${bytes[0]}`);
  if (bytes[1] !== KIND_TEXT && bytes[1] !== KIND_VIEWS) throw bad(`unknown kind ${bytes[1]}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sentAt = view.getBigUint64(2);
  const n = view.getUint32(10);
  if (n > MAX_BODY) throw bad(`a body of ${n} bytes is over ${MAX_BODY}`);
  const end = HEAD_LEN + n;
  if (bytes.length <= end) throw bad('truncated');
  if (bytes.length !== paddedLen(end) || bytes[end] !== 0x80 || bytes.subarray(end + 1).some((b) => b !== 0)) throw bad('bad padding');
  if (sentAt > BigInt(Number.MAX_SAFE_INTEGER)) throw bad('a send time beyond 2^53 ms');
  const body = bytes.subarray(HEAD_LEN, end);
  if (bytes[1] === KIND_VIEWS) return { kind: 'views', sentAt: Number(sentAt), views: decodeViews(body) };
  let text;
  try {
    text = fromUtf8(body);
  } catch (e) {
    throw new MlsError('Content', 'message content: a text body that is not UTF-8', { cause: e });
  }
  return { kind: 'text', sentAt: Number(sentAt), text };
}

/**
 * Parses and checks the application data of a text message.
 * @param {Uint8Array} bytes
 * @returns {{ sentAt: number, text: string }}
 * @throws {MlsError} code `Content` (a views message too)
 */
export function decodeText(bytes) {
  const c = decodeContent(bytes);
  if (c.kind !== 'text') throw bad(`unknown kind ${bytes[1]}`);
  return { sentAt: c.sentAt, text: c.text };
}
