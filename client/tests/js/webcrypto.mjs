// The Web Crypto API for the drivers, on Node.js 18 and later: Node 18 has it
// as node:crypto's `webcrypto` (its global `crypto` only with
// --experimental-global-webcrypto); Node 19+ also as the global `crypto`, the
// same object a browser has.

import { webcrypto } from 'node:crypto';

export const crypto = webcrypto ?? globalThis.crypto;
