// MLS ciphersuite 2 (MLS_128_DHKEMP256_AES128GCM_SHA256_P256) for ts-mls on
// Web Crypto only, and the parameters of docs/MLS.md §5.3 — the same values
// as the Rust SDK's client/src/mls/config.rs.
//
// ts-mls's own provider does hashing, HKDF, AES-GCM and HPKE on
// `crypto.subtle` but ECDSA with `@noble/curves`; this provider takes its
// Web Crypto parts and signs and verifies on Web Crypto instead. The
// device's signing key is never bytes: ts-mls keeps a "signature private
// key" in its group state and hands it to `sign`; ours is a handle (a hash
// of the device's public key), looked up in a registry of open devices'
// non-extractable keys. A group state read back from storage signs only
// once its device is open again.
//
// ts-mls is imported module by module: its index pulls `@noble/hashes`,
// which it does not declare (docs/MLS.md §11.1).
// Internal (not re-exported by index.js).

import { getCiphersuiteFromName } from 'ts-mls/crypto/ciphersuite.js';
import { makeHashImpl } from 'ts-mls/crypto/implementation/default/makeHashImpl.js';
import { makeHpke } from 'ts-mls/crypto/implementation/default/makeHpke.js';
import { makeKdf, makeKdfImpl } from 'ts-mls/crypto/implementation/default/makeKdfImpl.js';
import { defaultRng } from 'ts-mls/crypto/implementation/default/rng.js';
import { defaultKeyPackageEqualityConfig } from 'ts-mls/keyPackageEqualityConfig.js';

import { toHex, utf8 } from '../bytes.js';
import { signRaw } from '../crypto/identity.js';
import { sha256, subtle } from '../crypto/webcrypto.js';
import { checkLeaf } from './credential.js';
import { derToRaw, lowS, rawToDer, verifyRaw } from './ecdsa.js';
import { MlsError } from './error.js';

/** @import { Identity } from '../crypto/identity.js' */
/** @import { CiphersuiteImpl } from 'ts-mls/crypto/ciphersuite.js' */
/** @import { Signature } from 'ts-mls/crypto/signature.js' */
/** @import { ClientConfig } from 'ts-mls/clientConfig.js' */

/** The one ciphersuite's name in ts-mls. */
export const CIPHER_SUITE_NAME = /** @type {const} */ ('MLS_128_DHKEMP256_AES128GCM_SHA256_P256');
/** The one ciphersuite's number (RFC 9420 §17.1). */
export const CIPHER_SUITE = 2;
/** Past epochs whose secrets are kept (docs/MLS.md §5.3); Rust `PAST_EPOCHS`. */
export const PAST_EPOCHS = 4;
/** How far ahead within an epoch a message may be (generations). */
export const MAX_FORWARD_GENERATIONS = 1024;
/** How long a KeyPackage is valid, in seconds (90 days); Rust `KEY_PACKAGE_LIFETIME`. */
export const KEY_PACKAGE_LIFETIME_S = 90n * 24n * 3600n;
/** The private GroupInfo extension naming the group topic and start offset. */
export const DELIVERY_EXTENSION = 0xf0a1;

const HANDLE_LABEL = utf8('HermitMQ MLS signer handle v1\0');

/** Open devices' signing keys by handle (hex). @type {Map<string, Identity>} */
const signers = new Map();

/**
 * The handle ts-mls keeps in place of `identity`'s signing key, and makes
 * `identity` the key that signs for it (until the page or process ends).
 * @param {Identity} identity
 * @returns {Promise<Uint8Array>} 32 bytes
 */
export async function signerHandle(identity) {
  const handle = await sha256(HANDLE_LABEL, identity.publicKey.toSec1());
  signers.set(toHex(handle), identity);
  return handle;
}

/** @type {Signature} */
const webCryptoSignature = {
  async sign(handle, message) {
    const identity = signers.get(toHex(handle));
    if (!identity) throw new MlsError('State', 'this group state signs with a device key that is not open');
    return rawToDer(lowS(await signRaw(identity, message)));
  },
  async verify(publicKey, message, signature) {
    const raw = derToRaw(signature);
    return raw !== null && verifyRaw(publicKey, message, raw);
  },
  async keygen() {
    // Every HermitMQ leaf signs with its device key (docs/MLS.md §4).
    throw new MlsError('Invalid', 'HermitMQ leaves sign with the device key; no other signature key is made');
  },
};

/** @type {Promise<CiphersuiteImpl> | null} */
let suite = null;

/**
 * Ciphersuite 2 on Web Crypto: ts-mls's hash, KDF, HPKE (with `@hpke/core`)
 * and random source, and our signature.
 * @returns {Promise<CiphersuiteImpl>}
 */
export function cipherSuite() {
  if (!suite) {
    suite = (async () => {
      const cs = getCiphersuiteFromName(CIPHER_SUITE_NAME);
      return {
        kdf: makeKdfImpl(makeKdf(cs.hpke.kdf)),
        hash: makeHashImpl(subtle(), cs.hash),
        signature: webCryptoSignature,
        hpke: await makeHpke(cs.hpke),
        rng: defaultRng,
        name: cs.name,
      };
    })();
  }
  return suite;
}

/**
 * The client configuration every device uses (docs/MLS.md §5.3): past
 * epochs 4; out of order up to 1,024 generations ahead, skipped keys kept;
 * no MLS padding (our framing pads); KeyPackage lifetimes checked on
 * receipt; every leaf's credential checked (docs/MLS.md §4.1).
 * @type {ClientConfig}
 */
export const CLIENT_CONFIG = Object.freeze({
  keyRetentionConfig: {
    retainKeysForGenerations: MAX_FORWARD_GENERATIONS,
    retainKeysForEpochs: PAST_EPOCHS,
    maximumForwardRatchetSteps: MAX_FORWARD_GENERATIONS,
  },
  lifetimeConfig: {
    // mls-rs and ts-mls both make not_after − not_before = the lifetime;
    // an hour more for clocks.
    maximumTotalLifetime: KEY_PACKAGE_LIFETIME_S + 3600n,
    validateLifetimeOnReceive: true,
  },
  keyPackageEqualityConfig: defaultKeyPackageEqualityConfig,
  paddingConfig: { kind: /** @type {const} */ ('padUntilLength'), padUntilLength: 0 },
  authService: {
    /**
     * @param {import('ts-mls/credential.js').Credential} credential
     * @param {Uint8Array} signaturePublicKey
     */
    async validateCredential(credential, signaturePublicKey) {
      try {
        await checkLeaf(credential, signaturePublicKey);
        return true;
      } catch {
        return false;
      }
    },
  },
});

