// Authenticate mechanism 2 against bytes the Rust reference made
// (vectors/auth-bound.json, see vectors/README.md): the bound transcript,
// the request frame, and the dialled name of every address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fromHex, toHex } from '../src/bytes.js';
import { dialledEndpoint } from '../src/client/authenticate.js';
import { authTranscript, authTranscriptBound, dialledName } from '../src/protocol/auth.js';
import { encodeRequest } from '../src/protocol/frame.js';

/** @type {{ nonce: string, brokerId: string, spki: string, signature: string, correlationId: number,
 *   bound: Array<{ name: string, channelBinding: string, transcript: string, frame: string }>, names: Array<[string, string]> }} */
const rust = JSON.parse(readFileSync(new URL('./vectors/auth-bound.json', import.meta.url), 'utf8'));
const [nonce, brokerId, spki, signature] = [rust.nonce, rust.brokerId, rust.spki, rust.signature].map(fromHex);

test('the bound transcript has the bytes of Rust transcript_bound', () => {
  assert.ok(rust.bound.length >= 3);
  for (const v of rust.bound) {
    assert.equal(toHex(authTranscriptBound(nonce, brokerId, v.name, fromHex(v.channelBinding), spki)), v.transcript, v.name);
  }
  // Every field changes the bytes; the length bytes keep fields apart.
  const base = toHex(authTranscriptBound(nonce, brokerId, 'b.example', new Uint8Array(32), spki));
  assert.notEqual(toHex(authTranscriptBound(nonce, brokerId, 'c.example', new Uint8Array(32), spki)), base);
  assert.notEqual(toHex(authTranscriptBound(nonce, brokerId, 'b.example', new Uint8Array(0), spki)), base);
  assert.notEqual(
    toHex(authTranscriptBound(nonce, brokerId, 'ab', new Uint8Array(0), new Uint8Array(0))),
    toHex(authTranscriptBound(nonce, brokerId, 'a', Uint8Array.of(0x62), new Uint8Array(0))),
  );
  // Never mechanism 1's bytes for the same fields.
  assert.notEqual(toHex(authTranscriptBound(nonce, brokerId, '', new Uint8Array(0), spki).subarray(14)), toHex(authTranscript(nonce, brokerId, spki).subarray(14)));
});

test('a mechanism-2 Authenticate frame has the bytes Rust encodes', () => {
  for (const v of rust.bound) {
    const frame = encodeRequest(rust.correlationId, { op: 'authenticate', spki, signature, name: v.name, channelBinding: fromHex(v.channelBinding) });
    assert.equal(toHex(frame), v.frame, v.name);
  }
  // Mechanism 2 needs a name; fields past their limits are refused.
  assert.throws(() => encodeRequest(1, { op: 'authenticate', spki, signature }), (/** @type {any} */ e) => e.code === 'InvalidArgument');
  assert.throws(() => encodeRequest(1, { op: 'authenticate', spki, signature, name: 'a'.repeat(254) }), (/** @type {any} */ e) => e.code === 'InvalidArgument' && /name/.test(e.message));
  assert.throws(() => encodeRequest(1, { op: 'authenticate', spki, signature, name: 'a', channelBinding: new Uint8Array(33) }), (/** @type {any} */ e) => e.code === 'InvalidArgument' && /channel binding/.test(e.message));
  // Mechanism 1 still encodes without them (for brokers that accept it).
  assert.equal(encodeRequest(1, { op: 'authenticate', mechanism: 1, spki, signature }).length, 9 + 1 + 2 + spki.length + 2 + signature.length);
});

test('the dialled name of a ws:/wss: URL is what Rust DialledName makes of the address', () => {
  assert.ok(rust.names.length > 10);
  for (const [address, name] of rust.names) {
    assert.equal(dialledEndpoint(`wss://${address}/`).name, name, address);
    // A bare host (brackets and all) normalizes the same way.
    const host = address.replace(/:\d+$/, '');
    assert.equal(dialledName(host), name, host);
  }
  // What a browser's URL does first: punycode, numeric IPv4 forms.
  assert.equal(dialledEndpoint('wss://Bücher.example/').name, 'xn--bcher-kva.example');
  assert.equal(dialledEndpoint('ws://127.1:9/').name, '127.0.0.1');
  assert.deepEqual(dialledEndpoint('ws://Broker.Example.COM.:9094/x'), { name: 'broker.example.com', port: 9094 });
  assert.deepEqual(dialledEndpoint('wss://[::1]/'), { name: '::1', port: 443 });
  assert.deepEqual(dialledEndpoint('ws://h/'), { name: 'h', port: 80 });
  assert.deepEqual(dialledEndpoint('wss://h:443/'), { name: 'h', port: 443 });
  assert.throws(() => dialledEndpoint('not a url'), (/** @type {any} */ e) => e.code === 'InvalidArgument');
});

test('names no host has are refused, as Rust refuses them', () => {
  for (const bad of ['.', '[]', '', 'fe80::1%eth0', 'bad name', 'bücher.example', 'a'.repeat(254), 'x/y', '1::]:80/#', '[::1]:9', '::g']) {
    assert.throws(() => dialledName(bad), (/** @type {any} */ e) => e.code === 'InvalidArgument' && e.message.includes('dialled name'), JSON.stringify(bad));
  }
  assert.equal(dialledName('a'.repeat(253)), 'a'.repeat(253));
  assert.equal(dialledName(`${'a'.repeat(253)}.`), 'a'.repeat(253));
});
