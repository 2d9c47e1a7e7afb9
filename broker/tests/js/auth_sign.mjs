// Signs an `Authenticate` transcript with the Web Crypto API, as a browser
// client will, for broker/src/auth/verify.rs's interop test.
//
// usage: node auth_sign.mjs <ecdsa|ecdh-pkcs8> <nonce hex (32 bytes)> <broker id hex (16 bytes)>
// prints: spki=<hex>  sig=<hex>  fp=<hex of SHA-256(spki)>, one per line.
//
// `ecdh-pkcs8` makes an ECDH identity (what the SDKs seal with), exports its
// PKCS#8 and imports that as an ECDSA signing key: one key for both uses.
// The transcript is built here independently of the Rust code:
// "hermit-auth/v1" ‖ nonce ‖ u8 len ‖ broker_id ‖ SPKI.

const { subtle } = globalThis.crypto;
const [mode, nonceHex, brokerIdHex] = process.argv.slice(2);

const fromHex = (h) => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
const toHex = (u8) => Buffer.from(u8).toString('hex');

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' };
let signKey;
let spki;
if (mode === 'ecdsa') {
  const pair = await subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  signKey = pair.privateKey;
  spki = new Uint8Array(await subtle.exportKey('spki', pair.publicKey));
} else if (mode === 'ecdh-pkcs8') {
  const pair = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const pkcs8 = await subtle.exportKey('pkcs8', pair.privateKey);
  signKey = await subtle.importKey('pkcs8', pkcs8, ecdsa, false, ['sign']);
  spki = new Uint8Array(await subtle.exportKey('spki', pair.publicKey));
} else {
  throw new Error(`unknown mode ${mode}`);
}

const label = new TextEncoder().encode('hermit-auth/v1');
const nonce = fromHex(nonceHex);
const brokerId = fromHex(brokerIdHex);
if (nonce.length !== 32 || brokerId.length !== 16) throw new Error('bad nonce or broker id');
const transcript = new Uint8Array([...label, ...nonce, brokerId.length, ...brokerId, ...spki]);

const sig = new Uint8Array(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signKey, transcript));
const fp = new Uint8Array(await subtle.digest('SHA-256', spki));
console.log(`spki=${toHex(spki)}`);
console.log(`sig=${toHex(sig)}`);
console.log(`fp=${toHex(fp)}`);
