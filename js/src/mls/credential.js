// Who a leaf is (docs/MLS.md §4.1; Rust client/src/mls/credential.rs): a
// basic credential whose identity is the account's DeviceBinding of the
// leaf's signature key. ts-mls calls CLIENT_CONFIG.authService (suite.js)
// for KeyPackages being added, the tree of a Welcome and the leaves of every
// Commit; that calls `checkLeaf`.

import { concat, toHex } from '../bytes.js';
import { PublicKey } from '../crypto/identity.js';
import { sha256 } from '../crypto/webcrypto.js';
import { DeviceBinding } from './binding.js';
import { SEC1_LEN } from './ecdsa.js';
import { MlsError } from './error.js';

/** @import { Fingerprint } from '../crypto/identity.js' */
/** @import { Credential } from 'ts-mls/credential.js' */

/**
 * A member as its leaf names it: the account (who the user sees) and the
 * device (which of the account's keys). Rust's `MemberId`.
 * @typedef {{ account: Fingerprint, device: Fingerprint }} MemberId
 */

/** How many verified (binding, device key) pairs are remembered. */
const VERIFIED_CACHE = 4096;
/** SHA-256 (hex) of binding ‖ 0xff ‖ device key of leaves that passed → member and list version. @type {Map<string, { member: MemberId, listVersion: number }>} */
const verified = new Map();

/**
 * Parses a leaf's credential and checks its binding; the member it names.
 * (The device-list check is the device's: `Device.authService`.)
 * @param {Credential} credential
 * @param {Uint8Array} signatureKey the leaf's signature key
 * @returns {Promise<MemberId>}
 * @throws {MlsError} code `Binding`
 */
export async function checkLeaf(credential, signatureKey) {
  return (await checkBoundLeaf(credential, signatureKey)).member;
}

/**
 * As `checkLeaf`, with the binding's list version: the account's device
 * list at that version or newer must name the leaf's key.
 * @param {Credential} credential
 * @param {Uint8Array} signatureKey
 * @returns {Promise<{ member: MemberId, listVersion: number }>}
 * @throws {MlsError} code `Binding`
 */
export async function checkBoundLeaf(credential, signatureKey) {
  if (credential.credentialType !== 'basic') {
    throw new MlsError('Binding', `a HermitMQ leaf has a basic credential, not ${credential.credentialType}`);
  }
  const identity = credential.identity;
  const digest = toHex(await sha256(concat(identity, Uint8Array.of(0xff), signatureKey)));
  const known = verified.get(digest);
  if (known) return known;
  const binding = await DeviceBinding.fromBytes(identity);
  if (signatureKey.length !== SEC1_LEN || signatureKey[0] !== 0x04) {
    throw new MlsError('Binding', "the leaf's signature key is not an uncompressed P-256 point");
  }
  let device;
  try {
    device = await PublicKey.fromSec1Bytes(signatureKey);
  } catch (e) {
    throw new MlsError('Binding', "the leaf's signature key is not an uncompressed P-256 point", { cause: e });
  }
  await binding.verify(signatureKey);
  const member = Object.freeze({ account: binding.account.fingerprint(), device: device.fingerprint() });
  const bound = Object.freeze({ member, listVersion: binding.listVersion });
  if (verified.size >= VERIFIED_CACHE) verified.clear();
  verified.set(digest, bound);
  return bound;
}

/**
 * Whether two members are the same account and device.
 * @param {MemberId} a
 * @param {MemberId} b
 */
export function sameMember(a, b) {
  return a.account.equals(b.account) && a.device.equals(b.device);
}
