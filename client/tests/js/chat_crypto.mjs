// The browser article's ChatCrypto, written as a browser runs it: the Web Crypto
// API (`crypto.subtle`) and nothing else. The one line a browser does without
// is the import: `crypto` there is the global (see webcrypto.mjs).
//
//   K = SHA-256(ECDH(myPrivate, theirPublic) x-coordinate)   -> AES-GCM 256
//   encrypt(text) -> { iv: base64(12 random bytes), data: base64(ciphertext || tag) }
//   decrypt(data, iv) -> text
//
// Text goes through TextEncoder / TextDecoder. The decoder is created with
// `ignoreBOM: true` (keep a leading U+FEFF) and `fatal: true` (refuse invalid
// UTF-8 instead of inserting U+FFFD): the defaults would silently change data.

import { crypto } from './webcrypto.mjs';

export function toBase64(bytes) {
  let binary = '';
  // Chunked: String.fromCharCode(...bytes) overflows the stack on large inputs.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export class ChatCrypto {
  constructor() {
    this.sharedKey = null;
  }

  // myPrivateKey: ECDH P-256 CryptoKey (deriveBits); theirPublicKey: ECDH P-256 CryptoKey.
  async init(myPrivateKey, theirPublicKey) {
    const sharedBits = await crypto.subtle.deriveBits(
      { name: 'ECDH', public: theirPublicKey },
      myPrivateKey,
      256,
    );
    const keyBytes = await crypto.subtle.digest('SHA-256', sharedBits);
    this.sharedKey = await crypto.subtle.importKey(
      'raw',
      keyBytes,
      { name: 'AES-GCM', length: 256 },
      false,
      ['encrypt', 'decrypt'],
    );
    return this;
  }

  async encrypt(text) {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv },
      this.sharedKey,
      new TextEncoder().encode(text),
    );
    return { iv: toBase64(iv), data: toBase64(new Uint8Array(data)) };
  }

  async decrypt(data, iv) {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64(iv) },
      this.sharedKey,
      fromBase64(data),
    );
    return new TextDecoder('utf-8', { ignoreBOM: true, fatal: true }).decode(plain);
  }
}
