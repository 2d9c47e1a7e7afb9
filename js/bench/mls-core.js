// The MLS measurements, in one place for Node (bench/mls.mjs) and Chromium
// (the same module loaded by a page): application messages sealed and
// opened per second, and the time of an Add Commit (made by one member,
// processed by another) at a group size. In memory, no broker: the library
// and Web Crypto only.
import { Identity } from '../src/crypto/identity.js';
import { DeviceBinding } from '../src/mls/binding.js';
import { encodeText, decodeText } from '../src/mls/content.js';
import { commit, decodeMessage, join, newGroup, newKeyPackage, processRecord, seal } from '../src/mls/library.js';
import { signerHandle } from '../src/mls/suite.js';

/** @param {Identity} id */
async function signer(id) {
  const key = id.publicKey.toSec1();
  const b = await DeviceBinding.issue(id, key, 1);
  return { binding: b.toBytes(), publicKey: key, handle: await signerHandle(id) };
}

/**
 * A group of `size` members built by one creator; returns the creator's
 * state and the state of the last member to join (a receiver).
 * @param {number} size
 */
async function group(size) {
  const creator = await signer(await Identity.generate({ extractable: false }));
  let state = await newGroup(crypto.getRandomValues(new Uint8Array(32)), await newKeyPackage(creator));
  const kps = [];
  for (let i = 1; i < size; i++) kps.push(await newKeyPackage(await signer(await Identity.generate({ extractable: false }))));
  const c = await commit(state, kps.map((kp) => ({ proposalType: /** @type {const} */ ('add'), add: { keyPackage: kp.publicPackage } })), new Uint8Array([0, 1, 65, 0, 0, 0, 0, 0, 0, 0, 0]));
  state = c.state;
  const last = kps[kps.length - 1];
  const msg = c.welcome && decodeMessage(c.welcome);
  if (!msg || msg.wireformat !== 'mls_welcome') throw new Error('no welcome');
  const joined = await join(msg.welcome, [last]);
  if (!joined) throw new Error('not joined');
  return { sender: state, receiver: joined.state };
}

/**
 * Seal and open `n` messages of `size` bytes of text in a 2-member group:
 * milliseconds for each phase.
 * @param {number} n
 * @param {number} size
 */
export async function messages(n, size) {
  let { sender, receiver } = await group(2);
  const text = 'x'.repeat(size);
  const records = [];
  let t = performance.now();
  for (let i = 0; i < n; i++) {
    const s = await seal(sender, encodeText(text, Date.now()));
    sender = s.state;
    records.push(s.record);
  }
  const sealMs = performance.now() - t;
  t = performance.now();
  for (const r of records) {
    const msg = decodeMessage(r);
    if (!msg) throw new Error('undecodable');
    const p = await processRecord(receiver, msg);
    if (p.kind !== 'application') throw new Error(p.kind);
    decodeText(p.data);
    receiver = p.state;
  }
  return { sealMs, openMs: performance.now() - t };
}

/**
 * One Add Commit in a group of `size`: ms to make it (the committer) and to
 * process it (another member).
 * @param {number} size
 */
export async function addCommit(size) {
  const { sender, receiver } = await group(size);
  const kp = await newKeyPackage(await signer(await Identity.generate({ extractable: false })));
  let t = performance.now();
  const c = await commit(sender, [{ proposalType: 'add', add: { keyPackage: kp.publicPackage } }], new Uint8Array([0, 1, 65, 0, 0, 0, 0, 0, 0, 0, 0]));
  const makeMs = performance.now() - t;
  const msg = decodeMessage(c.record);
  if (!msg) throw new Error('undecodable');
  t = performance.now();
  const p = await processRecord(receiver, msg);
  if (p.kind !== 'commit') throw new Error(p.kind);
  return { makeMs, processMs: performance.now() - t };
}
