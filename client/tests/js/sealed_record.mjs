// Sealed record v1 (docs/ENVELOPE.md), DIRECT and MULTI, written against the
// document with Web Crypto only: ECDH deriveBits, SHA-256 digest, HKDF and HMAC
// through crypto.subtle, AES-GCM 256, ECDSA P-256 signatures (raw r || s).
//
// A party is { priv?: CryptoKey, pub: CryptoKey, fp: Uint8Array(32) } where
// fp = SHA-256(canonical SPKI) and kid = fp[0..8].

import { crypto } from './webcrypto.mjs';

const enc = new TextEncoder();
const CTX_LABEL = enc.encode('sealed-record/v1');
const WRAP_LABEL = enc.encode('sealed-record/v1 wrap');
const COMMIT_LABEL = enc.encode('sealed-record/v1 ck-commit');
const SIG_LABEL = enc.encode('sealed-record/v1 sig');
const ZERO_IV = new Uint8Array(12);
const SIGNED = 0x01;
const PADDED = 0x02;
const ECDH = { name: 'ECDH', namedCurve: 'P-256' };
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' };

export function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function sha256(...parts) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', concat(...parts)));
}

function equal(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// --- keys -------------------------------------------------------------------

export async function importPrivate(pkcs8) {
  const priv = await crypto.subtle.importKey('pkcs8', pkcs8, ECDH, true, ['deriveBits']);
  // Web Crypto cannot derive a public key from a private one directly: go via JWK.
  const { x, y } = await crypto.subtle.exportKey('jwk', priv);
  const pub = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x, y }, ECDH, true, []);
  return { priv, pub, fp: await fingerprint(pub) };
}

export async function importPublic(spki) {
  const pub = await crypto.subtle.importKey('spki', spki, ECDH, true, []);
  return { pub, fp: await fingerprint(pub) };
}

export async function importSigner(pkcs8) {
  return crypto.subtle.importKey('pkcs8', pkcs8, ECDSA, false, ['sign']);
}

export async function importVerifier(spki) {
  return crypto.subtle.importKey('spki', spki, ECDSA, false, ['verify']);
}

async function fingerprint(pub) {
  // Re-export: Web Crypto always writes the canonical (uncompressed) SPKI.
  return sha256(new Uint8Array(await crypto.subtle.exportKey('spki', pub)));
}

const kid = (party) => party.fp.subarray(0, 8);

// K_pair = SHA-256(ECDH x-coordinate), exactly as the ChatCrypto article.
async function kPair(priv, pub) {
  const bits = await crypto.subtle.deriveBits({ name: 'ECDH', public: pub }, priv, 256);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bits));
}

async function ctxDigest(mode, topic, senderFp, recipientFp) {
  const t = enc.encode(topic);
  return sha256(CTX_LABEL, [mode], [t.length >> 8, t.length & 0xff], t, senderFp, recipientFp ?? []);
}

async function aesGcm(op, keyBytes, iv, aad, data) {
  const key = await crypto.subtle.importKey('raw', keyBytes, 'AES-GCM', false, [op]);
  const out = await crypto.subtle[op]({ name: 'AES-GCM', iv, additionalData: aad, tagLength: 128 }, key, data);
  return new Uint8Array(out);
}

async function hmac(keyBytes, data) {
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
}

async function wrapKey(kpair, salt, ctx, recipientKid) {
  const ikm = await crypto.subtle.importKey('raw', kpair, 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt, info: concat(WRAP_LABEL, ctx, recipientKid) },
    ikm,
    256,
  );
  return new Uint8Array(bits);
}

// --- padding (Padmé) --------------------------------------------------------

export function padme(len) {
  if (len < 2) return len;
  const e = 31 - Math.clz32(len);
  const s = 32 - Math.clz32(e);
  const mask = 2 ** (e - s) - 1;
  return Math.floor((len + mask) / (mask + 1)) * (mask + 1);
}

function pad(plaintext) {
  const out = new Uint8Array(padme(plaintext.length + 1));
  out.set(plaintext);
  out[plaintext.length] = 0x80;
  return out;
}

function unpad(padded) {
  let i = padded.length - 1;
  while (i >= 0 && padded[i] === 0) i--;
  if (i < 0 || padded[i] !== 0x80) throw new Error('bad padding');
  return padded.subarray(0, i);
}

// --- sealing ----------------------------------------------------------------

function header(mode, flags, sender, seq) {
  const h = new Uint8Array(20);
  h.set([0x01, mode, flags, 0x00]);
  h.set(kid(sender), 4);
  new DataView(h.buffer).setBigUint64(12, BigInt(seq));
  return h;
}

async function finish(record, ctx, signer) {
  if (!signer) return record;
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signer, concat(SIG_LABEL, ctx, record));
  return concat(record, new Uint8Array(sig));
}

export async function sealDirect({ sender, recipient, topic, seq, plaintext, padded, signer }) {
  const flags = (signer ? SIGNED : 0) | (padded ? PADDED : 0);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const prefix = concat(header(0x01, flags, sender, seq), kid(recipient), iv);
  const ctx = await ctxDigest(0x01, topic, sender.fp, recipient.fp);
  const body = padded ? pad(plaintext) : plaintext;
  const ct = await aesGcm('encrypt', await kPair(sender.priv, recipient.pub), iv, concat(prefix, ctx), body);
  return finish(concat(prefix, ct), ctx, signer);
}

export async function sealMulti({ sender, recipients, topic, seq, plaintext, padded, signer }) {
  const flags = (signer ? SIGNED : 0) | (padded ? PADDED : 0);
  const ck = crypto.getRandomValues(new Uint8Array(32)); // fresh for every record
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const n = recipients.length;
  const prefix = concat(header(0x02, flags, sender, seq), salt, await hmac(ck, COMMIT_LABEL), [n >> 8, n & 0xff]);
  const rcpt = await sha256(...recipients.map(kid));
  const ctx = await ctxDigest(0x02, topic, sender.fp);
  const body = padded ? pad(plaintext) : plaintext;
  const payload = await aesGcm('encrypt', ck, ZERO_IV, concat(prefix, rcpt, ctx), body);
  const wrapAad = concat(prefix, rcpt, await sha256(payload));
  const entries = [];
  for (const r of recipients) {
    const kw = await wrapKey(await kPair(sender.priv, r.pub), salt, ctx, kid(r));
    entries.push(kid(r), await aesGcm('encrypt', kw, ZERO_IV, wrapAad, ck));
  }
  return finish(concat(prefix, ...entries, payload), ctx, signer);
}

// --- opening (no replay state: that is the SDK's job) -----------------------

export async function open({ me, sender, topic, record, verifier }) {
  if (record.length < 20) throw new Error('truncated');
  const [version, mode, flags, reserved] = record;
  if (version !== 0x01 || reserved !== 0 || (flags & ~(SIGNED | PADDED)) !== 0) throw new Error('bad header');
  if (!equal(record.subarray(4, 12), kid(sender))) throw new Error('unexpected sender');
  const signed = (flags & SIGNED) !== 0;
  if (signed && record.length < 84) throw new Error('truncated');
  const body = signed ? record.subarray(0, record.length - 64) : record;
  let ctx;
  let plain;
  if (mode === 0x01) {
    if (body.length < 56) throw new Error('truncated');
    if (!equal(body.subarray(20, 28), kid(me))) throw new Error('not for me');
    ctx = await ctxDigest(0x01, topic, sender.fp, me.fp);
    plain = await aesGcm(
      'decrypt',
      await kPair(me.priv, sender.pub),
      body.subarray(28, 40),
      concat(body.subarray(0, 40), ctx),
      body.subarray(40),
    );
  } else if (mode === 0x02) {
    const n = (body[68] << 8) | body[69];
    if (n < 1 || n > 4096 || body.length < 70 + 56 * n + 16) throw new Error('bad n');
    const prefix = body.subarray(0, 70);
    const entries = [];
    for (let i = 0; i < n; i++) entries.push(body.subarray(70 + 56 * i, 70 + 56 * (i + 1)));
    const payload = body.subarray(70 + 56 * n);
    const mine = entries.filter((e) => equal(e.subarray(0, 8), kid(me)));
    if (mine.length !== 1) throw new Error('not a recipient');
    const rcpt = await sha256(...entries.map((e) => e.subarray(0, 8)));
    ctx = await ctxDigest(0x02, topic, sender.fp);
    const kw = await wrapKey(await kPair(me.priv, sender.pub), body.subarray(20, 36), ctx, kid(me));
    const ck = await aesGcm('decrypt', kw, ZERO_IV, concat(prefix, rcpt, await sha256(payload)), mine[0].subarray(8));
    const commitKey = await crypto.subtle.importKey('raw', ck, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    if (!(await crypto.subtle.verify('HMAC', commitKey, body.subarray(36, 68), COMMIT_LABEL))) {
      throw new Error('ck_commit mismatch');
    }
    plain = await aesGcm('decrypt', ck, ZERO_IV, concat(prefix, rcpt, ctx), payload);
  } else {
    throw new Error('unknown mode');
  }
  if (signed) {
    if (!verifier) throw new Error('signed, but no verifying key');
    const ok = await crypto.subtle.verify(
      { name: 'ECDSA', hash: 'SHA-256' },
      verifier,
      record.subarray(record.length - 64),
      concat(SIG_LABEL, ctx, body),
    );
    if (!ok) throw new Error('bad signature');
  }
  return (flags & PADDED) !== 0 ? unpad(plain) : plain;
}
