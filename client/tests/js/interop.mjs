// Driver for client/tests/webcrypto_interop.rs: reads one JSON request on stdin,
// writes one JSON response on stdout. Binary values travel as standard base64.
//
//   {op: "keygen", count, alg: "ECDH"|"ECDSA"}             -> [{pkcs8, spki}]
//   {op: "reexport", keys: [{pkcs8, spki}], alg}            -> [{pkcs8, spki}]
//   {op: "chat_encrypt", my_pkcs8, their_spki, texts}        -> [{iv, data}]
//   {op: "chat_decrypt", my_pkcs8, their_spki, messages}     -> [text]
//   {op: "seal", mode: "direct"|"multi", sender_pkcs8, recipients: [spki],
//    topic, padded, signer_pkcs8?, items: [{seq, plaintext}]} -> [record]
//   {op: "open", me_pkcs8, sender_spki, verifier_spki?, topic, records}
//                                                            -> [{ok: plaintext} | {err}]

import { ChatCrypto, fromBase64, toBase64 } from './chat_crypto.mjs';
import * as sr from './sealed_record.mjs';
import { crypto } from './webcrypto.mjs';

const ALGS = {
  ECDH: { params: { name: 'ECDH', namedCurve: 'P-256' }, privUsages: ['deriveBits'], pubUsages: [] },
  ECDSA: { params: { name: 'ECDSA', namedCurve: 'P-256' }, privUsages: ['sign'], pubUsages: ['verify'] },
};

async function exportPair(privateKey, publicKey) {
  return {
    pkcs8: toBase64(new Uint8Array(await crypto.subtle.exportKey('pkcs8', privateKey))),
    spki: toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', publicKey))),
  };
}

async function chat(req) {
  const me = await sr.importPrivate(fromBase64(req.my_pkcs8));
  const them = await sr.importPublic(fromBase64(req.their_spki));
  return new ChatCrypto().init(me.priv, them.pub);
}

const ops = {
  async keygen({ count, alg }) {
    const a = ALGS[alg];
    const out = [];
    for (let i = 0; i < count; i++) {
      const { privateKey, publicKey } = await crypto.subtle.generateKey(a.params, true, a.privUsages);
      out.push(await exportPair(privateKey, publicKey));
    }
    return out;
  },
  async reexport({ keys, alg }) {
    const a = ALGS[alg];
    const out = [];
    for (const k of keys) {
      const priv = await crypto.subtle.importKey('pkcs8', fromBase64(k.pkcs8), a.params, true, a.privUsages);
      const pub = await crypto.subtle.importKey('spki', fromBase64(k.spki), a.params, true, a.pubUsages);
      out.push(await exportPair(priv, pub));
    }
    return out;
  },
  async chat_encrypt(req) {
    const c = await chat(req);
    const out = [];
    for (const text of req.texts) out.push(await c.encrypt(text));
    return out;
  },
  async chat_decrypt(req) {
    const c = await chat(req);
    const out = [];
    for (const m of req.messages) out.push(await c.decrypt(m.data, m.iv));
    return out;
  },
  async seal(req) {
    const sender = await sr.importPrivate(fromBase64(req.sender_pkcs8));
    const recipients = await Promise.all(req.recipients.map((s) => sr.importPublic(fromBase64(s))));
    const signer = req.signer_pkcs8 ? await sr.importSigner(fromBase64(req.signer_pkcs8)) : undefined;
    const out = [];
    for (const item of req.items) {
      const args = {
        sender,
        topic: req.topic,
        seq: BigInt(item.seq),
        plaintext: fromBase64(item.plaintext),
        padded: req.padded,
        signer,
      };
      const record =
        req.mode === 'direct'
          ? await sr.sealDirect({ ...args, recipient: recipients[0] })
          : await sr.sealMulti({ ...args, recipients });
      out.push(toBase64(record));
    }
    return out;
  },
  async open(req) {
    const me = await sr.importPrivate(fromBase64(req.me_pkcs8));
    const sender = await sr.importPublic(fromBase64(req.sender_spki));
    const verifier = req.verifier_spki ? await sr.importVerifier(fromBase64(req.verifier_spki)) : undefined;
    const out = [];
    for (const r of req.records) {
      try {
        const plain = await sr.open({ me, sender, topic: req.topic, record: fromBase64(r), verifier });
        out.push({ ok: toBase64(plain) });
      } catch (e) {
        out.push({ err: String(e && e.message ? e.message : e) });
      }
    }
    return out;
  },
};

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const req = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const op = ops[req.op];
if (!op) throw new Error(`unknown op ${req.op}`);
process.stdout.write(JSON.stringify(await op(req)));
