// Driver for client/tests/webcrypto_interop.rs: reads one JSON request on stdin,
// writes one JSON response on stdout. Binary values travel as standard base64,
// sequence numbers as decimal strings. Everything cryptographic is the
// JavaScript SDK itself (js/src), so these tests prove the SDK byte-compatible
// with the Rust one in both directions.
//
//   {op: "keygen", count, alg: "ECDH"|"ECDSA"}                 -> [{pkcs8, spki}]
//   {op: "reexport", keys: [{pkcs8, spki}], alg}                -> [{pkcs8, spki}]
//   {op: "chat_encrypt", my_pkcs8, their_spki, texts}            -> [{iv, data}]
//   {op: "chat_decrypt", my_pkcs8, their_spki, messages}         -> [text]
//   {op: "seal", mode: "direct"|"multi", sender_pkcs8, recipients: [spki],
//    topic, padded, signer_pkcs8?, items: [{seq, plaintext}]}     -> [{record, seq, mode}]
//   {op: "open", me_pkcs8, sender_spki, verifier_spki?, require_signatures?,
//    allow_legacy?, topic, records}
//        -> [{ok: plaintext, seq, mode, padded, signed, late, gap?: [first, last]} | {err, kind}]
//   {op: "blind", me_pkcs8, peer_spki?, group_secret?, keys: [b64]} -> [b64]
//   {op: "sign_auth", pkcs8, nonce, broker_id, name, binding}   -> {sig, spki}
//   {op: "keyfile_wrap", pkcs8, password, m, t, p}              -> {armor}
//   {op: "keyfile_unlock", armor, password, insecure}           -> {pkcs8} | {err, kind}

// Only the SDK's public entry, so moving its files cannot break this driver.
// hash-wasm (Argon2id) is still loaded only by the SEALKEY ops: keyfile.js
// imports it on first use.
import {
  BlindedKey,
  BlindingKey,
  ChatCrypto,
  Identity,
  KdfParams,
  KeyFile,
  Opener,
  PublicKey,
  Sealer,
  SigningIdentity,
  SigningPublicKey,
  fromBase64,
  toBase64,
  utf8,
} from '../../../js/src/index.js';

const ops = {
  async keygen({ count, alg }) {
    const out = [];
    for (let i = 0; i < count; i++) {
      const k = alg === 'ECDSA' ? await SigningIdentity.generate() : await Identity.generate();
      out.push({ pkcs8: await k.toPkcs8Base64(), spki: k.publicKey.toSpkiBase64() });
    }
    return out;
  },
  async reexport({ keys, alg }) {
    const out = [];
    for (const k of keys) {
      const [Priv, Pub] = alg === 'ECDSA' ? [SigningIdentity, SigningPublicKey] : [Identity, PublicKey];
      const priv = await Priv.fromPkcs8Base64(k.pkcs8);
      const pub = await Pub.fromSpkiBase64(k.spki);
      if (!priv.publicKey.equals(pub)) throw new Error('the private key does not match its public key');
      out.push({ pkcs8: await priv.toPkcs8Base64(), spki: pub.toSpkiBase64() });
    }
    return out;
  },
  async chat_encrypt(req) {
    // The article's set-up, from plain Web Crypto keys.
    const ecdh = { name: 'ECDH', namedCurve: 'P-256' };
    const mine = await crypto.subtle.importKey('pkcs8', fromBase64(req.my_pkcs8), ecdh, false, ['deriveBits']);
    const theirs = await crypto.subtle.importKey('spki', fromBase64(req.their_spki), ecdh, false, []);
    const c = await new ChatCrypto().init(mine, theirs);
    const out = [];
    for (const text of req.texts) {
      const m = await c.encrypt(text);
      out.push({ iv: m.iv, data: m.data });
    }
    return out;
  },
  async chat_decrypt(req) {
    const c = await ChatCrypto.create(await Identity.fromPkcs8Base64(req.my_pkcs8), await PublicKey.fromSpkiBase64(req.their_spki));
    const out = [];
    for (const m of req.messages) out.push(await c.decrypt(m.data, m.iv));
    return out;
  },
  async seal(req) {
    const sealer = new Sealer(await Identity.fromPkcs8Base64(req.sender_pkcs8));
    const recipients = await Promise.all(req.recipients.map((s) => PublicKey.fromSpkiBase64(s)));
    sealer.setPadding(req.padded);
    if (req.signer_pkcs8) sealer.setSigningIdentity(await SigningIdentity.fromPkcs8Base64(req.signer_pkcs8));
    if (req.items.length > 0) sealer.resumeTopic(req.topic, BigInt(req.items[0].seq) - 1n);
    const out = [];
    for (const item of req.items) {
      const plaintext = fromBase64(item.plaintext);
      const s =
        req.mode === 'direct'
          ? await sealer.sealDirectDetailed(req.topic, recipients[0], plaintext)
          : await sealer.sealMultiDetailed(req.topic, recipients, plaintext);
      out.push({ record: toBase64(s.record), seq: s.seq.toString(), mode: s.mode });
    }
    return out;
  },
  async open(req) {
    const opener = new Opener(await Identity.fromPkcs8Base64(req.me_pkcs8));
    const sender = await PublicKey.fromSpkiBase64(req.sender_spki);
    if (req.verifier_spki) await opener.trustSigner(sender, await SigningPublicKey.fromSpkiBase64(req.verifier_spki));
    else await opener.trust(sender);
    opener.requireSignatures(Boolean(req.require_signatures));
    opener.allowLegacy(Boolean(req.allow_legacy));
    const out = [];
    for (const r of req.records) {
      try {
        const { opened, plaintext } = await opener.open(req.topic, fromBase64(r));
        if (!opened.sender.equals(sender.fingerprint())) throw new Error('opened from the wrong sender');
        const o = { ok: toBase64(plaintext), seq: opened.seq?.toString() ?? null, mode: opened.mode, padded: opened.padded, signed: opened.signed, late: opened.late };
        if (opened.gap) o.gap = [opened.gap.first.toString(), opened.gap.last.toString()];
        out.push(o);
      } catch (e) {
        if (!e.kind) throw e;
        out.push({ err: e.message, kind: e.kind });
      }
    }
    return out;
  },
  async blind(req) {
    const me = await Identity.fromPkcs8Base64(req.me_pkcs8);
    const k = req.group_secret
      ? await BlindingKey.fromGroupSecret(fromBase64(req.group_secret))
      : await BlindingKey.pairwise(me, await PublicKey.fromSpkiBase64(req.peer_spki));
    const out = [];
    for (const key of req.keys) {
      const b = await k.blind(fromBase64(key));
      if (!(b instanceof BlindedKey)) throw new Error('blind returns a BlindedKey');
      out.push(toBase64(b.asBytes()));
    }
    return out;
  },
  async sign_auth(req) {
    const id = await Identity.fromPkcs8Base64(req.pkcs8, { extractable: false });
    const sig = await id.signAuthBound(fromBase64(req.nonce), fromBase64(req.broker_id), req.name, fromBase64(req.binding));
    return { sig: toBase64(sig), spki: toBase64(await id.spki()) };
  },
  async keyfile_wrap(req) {
    const params = req.insecure ? KdfParams.insecureForTests(req.m, req.t, req.p) : new KdfParams(req.m, req.t, req.p);
    const kf = await KeyFile.wrap(await Identity.fromPkcs8Base64(req.pkcs8), utf8(req.password), params);
    return { armor: kf.toArmor() };
  },
  async keyfile_unlock(req) {
    try {
      const kf = await KeyFile.fromArmor(req.armor);
      const id = req.insecure ? await kf.unlockInsecureForTests(req.password) : await kf.unlock(req.password);
      if (!id.publicKey.equals(kf.publicKey)) throw new Error('unlocked the wrong key');
      return { pkcs8: await id.toPkcs8Base64() };
    } catch (e) {
      if (!e.kind) throw e;
      return { err: e.message, kind: e.kind };
    }
  },
};

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const req = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const op = ops[req.op];
if (!op) throw new Error(`unknown op ${req.op}`);
process.stdout.write(JSON.stringify(await op(req)));
