// Declarations of bytes.js: base64, hex, UTF-8 and byte helpers.
// Part of the hand-written public API (../index.d.ts); test/types.test.mjs
// holds it to the code.

// ---- bytes.js ---------------------------------------------------------------

export class Base64Error extends Error {
  constructor(message: string);
  readonly code: 'HERMIT_BASE64';
}
export function toBase64(bytes: Uint8Array): string;
/** Canonical standard padded base64 only. */
export function fromBase64(text: string): Uint8Array;
export function utf8(text: string): Uint8Array;
/** Strict UTF-8 (fatal, BOM kept). */
export function fromUtf8(bytes: Uint8Array): string;
export function concat(...parts: Array<Uint8Array | number[]>): Uint8Array;
export function equal(a: Uint8Array, b: Uint8Array): boolean;
export function toHex(bytes: Uint8Array): string;
export function fromHex(text: string): Uint8Array;
