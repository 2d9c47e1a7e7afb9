// The one module that calls ts-mls (with suite.js): KeyPackages, groups,
// messages, Commits, Welcomes and the state codec, in the SDK's terms. A
// switch of MLS library (ts-mls 2.x, a wasm build) changes this file.
// Internal (not re-exported by index.js).

import { createGroup, decodeGroupState, encodeGroupState, joinGroupWithExtensions } from 'ts-mls/clientState.js';
import { createCommit } from 'ts-mls/createCommit.js';
import { createApplicationMessage, createProposal } from 'ts-mls/createMessage.js';
import { defaultCapabilities } from 'ts-mls/defaultCapabilities.js';
import { decodeKeyPackage, encodeKeyPackage, generateKeyPackageWithKey, makeKeyPackageRef } from 'ts-mls/keyPackage.js';
import { decodeMlsMessage, encodeMlsMessage } from 'ts-mls/message.js';
import { decryptSenderData } from 'ts-mls/privateMessage.js';
import { processMessage } from 'ts-mls/processMessages.js';
import { emptyPskIndex } from 'ts-mls/pskIndex.js';

import { equal } from '../bytes.js';
import { Writer } from '../protocol/codec.js';
import { checkLeaf } from './credential.js';
import { MlsError } from './error.js';
import { CIPHER_SUITE_NAME, CLIENT_CONFIG, DELIVERY_EXTENSION, KEY_PACKAGE_LIFETIME_S, cipherSuite } from './suite.js';

/** @import { ClientState } from 'ts-mls/clientState.js' */
/** @import { ClientConfig } from 'ts-mls/clientConfig.js' */
/** @import { KeyPackage, PrivateKeyPackage } from 'ts-mls/keyPackage.js' */
/** @import { MLSMessage } from 'ts-mls/message.js' */
/** @import { Welcome } from 'ts-mls/welcome.js' */
/** @import { Proposal } from 'ts-mls/proposal.js' */
/** @import { MemberId } from './credential.js' */

/**
 * A device's MLS signing identity as ts-mls takes it: the basic credential
 * (the binding) and the signature key pair (the public point and the
 * handle that stands for the non-extractable private key, suite.js).
 * @typedef {{ binding: Uint8Array, publicKey: Uint8Array, handle: Uint8Array }} LeafSigner
 */

/**
 * A KeyPackage with its private keys and reference.
 * @typedef {{ ref: Uint8Array, publicPackage: KeyPackage, privatePackage: PrivateKeyPackage }} HeldKeyPackage
 */

/**
 * A new KeyPackage for `signer`, valid for KEY_PACKAGE_LIFETIME_S from now.
 * @param {LeafSigner} signer
 * @returns {Promise<HeldKeyPackage & { message: Uint8Array }>}
 */
export async function newKeyPackage(signer) {
  const cs = await cipherSuite();
  const now = BigInt(Math.floor(Date.now() / 1000));
  const { publicPackage, privatePackage } = await generateKeyPackageWithKey(
    { credentialType: 'basic', identity: signer.binding },
    defaultCapabilities(),
    { notBefore: now, notAfter: now + KEY_PACKAGE_LIFETIME_S },
    [],
    { signKey: signer.handle, publicKey: signer.publicKey },
    cs,
  );
  const ref = await makeKeyPackageRef(publicPackage, cs.hash);
  const message = encodeMlsMessage({ version: 'mls10', wireformat: 'mls_key_package', keyPackage: publicPackage });
  return { ref, publicPackage, privatePackage, message };
}

/**
 * Encodes held KeyPackages (their private keys included) for the state.
 * @param {HeldKeyPackage[]} held
 * @returns {Uint8Array}
 */
export function encodeHeld(held) {
  const w = new Writer();
  w.u32(held.length);
  for (const h of held) {
    for (const part of [
      h.ref,
      encodeKeyPackage(h.publicPackage),
      h.privatePackage.initPrivateKey,
      h.privatePackage.hpkePrivateKey,
      h.privatePackage.signaturePrivateKey,
    ]) {
      w.u32(part.length);
      w.bytes(part);
    }
  }
  return w.finish();
}

/**
 * @param {Uint8Array} bytes
 * @returns {HeldKeyPackage[]}
 */
export function decodeHeld(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const take = () => {
    const n = view.getUint32(at);
    const out = bytes.slice(at + 4, at + 4 + n);
    if (out.length !== n) throw new MlsError('State', 'the held KeyPackages entry is truncated');
    at += 4 + n;
    return out;
  };
  const count = view.getUint32(0);
  at = 4;
  /** @type {HeldKeyPackage[]} */
  const out = [];
  for (let i = 0; i < count; i++) {
    const ref = take();
    const decoded = decodeKeyPackage(take(), 0);
    if (!decoded) throw new MlsError('State', 'a held KeyPackage does not decode');
    out.push({
      ref,
      publicPackage: decoded[0],
      privatePackage: { initPrivateKey: take(), hpkePrivateKey: take(), signaturePrivateKey: take() },
    });
  }
  return out;
}

/**
 * Parses an MLSMessage, or null.
 * @param {Uint8Array} bytes
 * @returns {MLSMessage | null}
 */
export function decodeMessage(bytes) {
  try {
    const r = decodeMlsMessage(bytes, 0);
    if (!r || r[1] !== bytes.length) return null;
    return r[0];
  } catch {
    return null;
  }
}

/**
 * A claimed KeyPackage message, checked: suite 2, its leaf the key
 * `deviceKey`, its signature and binding valid.
 * @param {Uint8Array} bytes
 * @param {Uint8Array} deviceKey
 * @returns {Promise<KeyPackage>}
 * @throws {MlsError} code `BadKeyPackage`
 */
export async function checkKeyPackage(bytes, deviceKey) {
  const msg = decodeMessage(bytes);
  if (!msg || msg.wireformat !== 'mls_key_package') throw new MlsError('BadKeyPackage', 'not a KeyPackage message');
  const kp = msg.keyPackage;
  if (kp.cipherSuite !== CIPHER_SUITE_NAME) throw new MlsError('BadKeyPackage', `cipher suite ${kp.cipherSuite}`);
  if (!equal(kp.leafNode.signaturePublicKey, deviceKey)) throw new MlsError('BadKeyPackage', "its leaf is another device's key");
  // ts-mls checks that now is within the lifetime but not its length
  // (`maximumTotalLifetime` is never read in 1.6.4): both here.
  const leaf = kp.leafNode;
  if (leaf.leafNodeSource !== 'key_package') throw new MlsError('BadKeyPackage', 'its leaf is not a KeyPackage leaf');
  const now = BigInt(Math.floor(Date.now() / 1000));
  const { notBefore, notAfter } = leaf.lifetime;
  if (now < notBefore || now > notAfter) throw new MlsError('BadKeyPackage', 'it is outside its lifetime');
  if (notAfter - notBefore > CLIENT_CONFIG.lifetimeConfig.maximumTotalLifetime) {
    throw new MlsError('BadKeyPackage', `its lifetime is longer than ${KEY_PACKAGE_LIFETIME_S / 86400n} days`);
  }
  try {
    await checkLeaf(kp.leafNode.credential, kp.leafNode.signaturePublicKey);
  } catch (e) {
    throw new MlsError('BadKeyPackage', `its binding: ${e instanceof Error ? e.message : e}`, { cause: e });
  }
  return kp;
}

/**
 * A new group with only the holder of `held` in it.
 * @param {Uint8Array} groupId
 * @param {HeldKeyPackage} held
 * @param {ClientConfig} [config] the device's (its leaf check: `Device.clientConfig`)
 * @returns {Promise<ClientState>}
 */
export async function newGroup(groupId, held, config = CLIENT_CONFIG) {
  return createGroup(groupId, held.publicPackage, held.privatePackage, [], await cipherSuite(), config);
}

/**
 * @param {ClientState} state
 * @returns {Uint8Array}
 */
export function encodeState(state) {
  return encodeGroupState(state);
}

/**
 * @param {Uint8Array} bytes
 * @param {ClientConfig} [config] the device's (its leaf check: `Device.clientConfig`)
 * @returns {ClientState}
 */
export function decodeState(bytes, config = CLIENT_CONFIG) {
  const r = decodeGroupState(bytes, 0);
  if (!r || r[1] !== bytes.length) throw new MlsError('State', 'a group state does not decode (written by another ts-mls version?)');
  return { ...r[0], clientConfig: config };
}

/**
 * The group's epoch.
 * @param {ClientState} state
 * @returns {bigint}
 */
export function epochOf(state) {
  return state.groupContext.epoch;
}

/**
 * The current epoch's authenticator.
 * @param {ClientState} state
 * @returns {Uint8Array}
 */
export function authenticatorOf(state) {
  return Uint8Array.from(state.keySchedule.epochAuthenticator);
}

/**
 * This device's leaf index.
 * @param {ClientState} state
 * @returns {number}
 */
export function ownLeaf(state) {
  return state.privatePath.leafIndex;
}

/**
 * Whether this device has been removed from the group.
 * @param {ClientState} state
 */
export function isRemoved(state) {
  return state.groupActiveState.kind === 'removedFromGroup';
}

/**
 * Every occupied leaf: index → member (bindings were checked when the
 * leaves entered the tree; the cache makes this cheap), of the current
 * epoch or of a retained past one (empty when not retained).
 * @param {ClientState} state
 * @param {bigint} [epoch]
 * @returns {Promise<Map<number, MemberId>>}
 */
export async function rosterOf(state, epoch = state.groupContext.epoch) {
  /** @type {Map<number, MemberId>} */
  const out = new Map();
  const tree = epoch === state.groupContext.epoch ? state.ratchetTree : state.historicalReceiverData.get(epoch)?.ratchetTree;
  if (!tree) return out;
  for (let node = 0; node < tree.length; node += 2) {
    const n = tree[node];
    if (n && n.nodeType === 'leaf') out.set(node / 2, await checkLeaf(n.leaf.credential, n.leaf.signaturePublicKey));
  }
  return out;
}

/**
 * The leaf key of leaf `index`, or undefined.
 * @param {ClientState} state
 * @param {number} index
 * @returns {Uint8Array | undefined}
 */
export function leafKey(state, index) {
  const n = state.ratchetTree[2 * index];
  return n && n.nodeType === 'leaf' ? n.leaf.signaturePublicKey : undefined;
}

/**
 * Seals one application message.
 * @param {ClientState} state
 * @param {Uint8Array} data
 * @returns {Promise<{ state: ClientState, record: Uint8Array, consumed: Uint8Array[] }>}
 */
export async function seal(state, data) {
  const r = await createApplicationMessage(state, data, await cipherSuite());
  const record = encodeMlsMessage({ version: 'mls10', wireformat: 'mls_private_message', privateMessage: r.privateMessage });
  return { state: r.newState, record, consumed: r.consumed };
}

/**
 * The delivery extension's body: topic, then the offset a joiner starts at.
 * @param {string} topic
 * @param {number} start
 * @returns {Uint8Array}
 */
export function deliveryExtension(topic, start) {
  const w = new Writer();
  const name = new TextEncoder().encode(topic);
  w.u16(name.length);
  w.bytes(name);
  w.u64(start);
  return w.finish();
}

/**
 * @param {Uint8Array} body
 * @returns {{ topic: string, start: number } | null}
 */
export function parseDelivery(body) {
  if (body.length < 2) return null;
  const n = (body[0] << 8) | body[1];
  if (body.length !== 2 + n + 8) return null;
  let topic;
  try {
    topic = new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(2, 2 + n));
  } catch {
    return null;
  }
  const start = new DataView(body.buffer, body.byteOffset + 2 + n, 8).getBigUint64(0);
  if (start > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return { topic, start: Number(start) };
}

/**
 * A Commit of `proposals` (by value; pending by-reference ones are
 * included by ts-mls), as a PrivateMessage, with the ratchet tree and
 * `delivery` in the Welcome's GroupInfo when it adds members.
 * @param {ClientState} state
 * @param {Proposal[]} proposals
 * @param {Uint8Array | null} delivery
 * @returns {Promise<{ state: ClientState, record: Uint8Array, welcome: Uint8Array | null, consumed: Uint8Array[] }>}
 */
export async function commit(state, proposals, delivery) {
  const r = await createCommit(
    { state, cipherSuite: await cipherSuite() },
    {
      extraProposals: proposals,
      ratchetTreeExtension: true,
      groupInfoExtensions: delivery ? [{ extensionType: DELIVERY_EXTENSION, extensionData: delivery }] : [],
    },
  );
  const welcome = r.welcome ? encodeMlsMessage({ version: 'mls10', wireformat: 'mls_welcome', welcome: r.welcome }) : null;
  return { state: r.newState, record: encodeMlsMessage(r.commit), welcome, consumed: r.consumed };
}

/**
 * A Remove Proposal for this device's own leaf (by reference), as a
 * PrivateMessage: how a member leaves.
 * @param {ClientState} state
 * @returns {Promise<{ state: ClientState, record: Uint8Array }>}
 */
export async function proposeLeave(state) {
  const r = await createProposal(state, false, { proposalType: 'remove', remove: { removed: ownLeaf(state) } }, await cipherSuite());
  return { state: r.newState, record: encodeMlsMessage(r.message) };
}

/** The proposal types HermitMQ groups allow (docs/MLS.md §6.1). */
const ALLOWED = new Set(['add', 'update', 'remove']);

/**
 * What processing a record did.
 * @typedef {{ kind: 'application', state: ClientState, data: Uint8Array, sender: number, consumed: Uint8Array[] }
 *   | { kind: 'commit', state: ClientState, consumed: Uint8Array[], removed: number[], sender: number }
 *   | { kind: 'proposal', state: ClientState, consumed: Uint8Array[] }
 *   | { kind: 'undecryptable' }
 *   | { kind: 'refused', reason: string }} Processed
 */

/**
 * The sender's leaf index of a PrivateMessage, from its sender data.
 * @param {ClientState} state
 * @param {import('ts-mls/privateMessage.js').PrivateMessage} pm
 * @returns {Promise<number | undefined>}
 */
async function senderOf(state, pm) {
  const secret =
    pm.epoch === state.groupContext.epoch ? state.keySchedule.senderDataSecret : state.historicalReceiverData.get(pm.epoch)?.senderDataSecret;
  if (!secret) return undefined;
  try {
    const data = await decryptSenderData(pm, secret, await cipherSuite());
    return data?.leafIndex;
  } catch {
    return undefined;
  }
}

/**
 * Processes one PrivateMessage of the group: an application message (of
 * this epoch or a retained one), a Proposal or a Commit (of this epoch).
 * A Commit with a proposal other than Add, Update or Remove is refused, as
 * every member refuses it (Rust's `Rules`). `undecryptable` when its
 * sender data does not open (at the current epoch: a suspected fork);
 * throws what does not verify or apply.
 * @param {ClientState} state
 * @param {MLSMessage} message
 * @returns {Promise<Processed>}
 */
export async function processRecord(state, message) {
  if (message.wireformat !== 'mls_private_message') return { kind: 'refused', reason: 'not a PrivateMessage' };
  const sender = await senderOf(state, message.privateMessage);
  if (sender === undefined) return { kind: 'undecryptable' };
  let refusedKind = '';
  /** @type {number[]} */
  const removed = [];
  /** @type {import('ts-mls/incomingMessageAction.js').IncomingMessageCallback} */
  const rules = (incoming) => {
    const kinds = incoming.kind === 'commit' ? incoming.proposals.map((p) => p.proposal.proposalType) : [incoming.proposal.proposal.proposalType];
    const bad = kinds.find((k) => !ALLOWED.has(String(k)));
    if (bad !== undefined) {
      refusedKind = String(bad);
      return 'reject';
    }
    if (incoming.kind === 'commit') {
      for (const p of incoming.proposals) if (p.proposal.proposalType === 'remove') removed.push(p.proposal.remove.removed);
    }
    return 'accept';
  };
  const r = await processMessage(message, state, emptyPskIndex, rules, await cipherSuite());
  if (r.kind === 'applicationMessage') return { kind: 'application', state: r.newState, data: r.message, sender, consumed: r.consumed };
  if (r.actionTaken === 'reject') return { kind: 'refused', reason: `a proposal HermitMQ groups do not allow (${refusedKind})` };
  if (message.privateMessage.contentType === 'commit') return { kind: 'commit', state: r.newState, consumed: r.consumed, removed, sender };
  return { kind: 'proposal', state: r.newState, consumed: r.consumed };
}

/**
 * Joins from a Welcome with the held KeyPackage it names, or null when it
 * names none of ours. Returns the state and the delivery extension.
 * @param {Welcome} welcome
 * @param {HeldKeyPackage[]} held
 * @param {ClientConfig} [config] the device's (its leaf check: `Device.clientConfig`)
 * @returns {Promise<{ state: ClientState, used: HeldKeyPackage, delivery: { topic: string, start: number } | null } | null>}
 */
export async function join(welcome, held, config = CLIENT_CONFIG) {
  if (welcome.cipherSuite !== CIPHER_SUITE_NAME) return null;
  const used = held.find((h) => welcome.secrets.some((s) => equal(s.newMember, h.ref)));
  if (!used) return null;
  const [state, extensions] = await joinGroupWithExtensions(
    welcome,
    used.publicPackage,
    used.privatePackage,
    emptyPskIndex,
    await cipherSuite(),
    undefined,
    undefined,
    config,
  );
  const ext = extensions.find((e) => e.extensionType === DELIVERY_EXTENSION);
  return { state, used, delivery: ext ? parseDelivery(ext.extensionData) : null };
}

/**
 * Wipes secrets the library says it no longer needs.
 * @param {Uint8Array[]} consumed
 */
export function wipe(consumed) {
  for (const c of consumed) c.fill(0);
}
