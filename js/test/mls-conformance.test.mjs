// RFC 9420 conformance: the passive-client test vectors of the MLS working
// group, every ciphersuite-2 case, run through ts-mls on **our**
// cipherSuite() (src/mls/suite.js: ts-mls's Web Crypto hash, KDF and HPKE,
// our Web Crypto ECDSA shim). The JavaScript twin of the Rust SDK's
// client/tests/mls_conformance.rs; see docs/MLS.md §8.
//
// The vectors are not in this repository: they are read, exactly as the Rust
// harness reads them, from the copy the published `openmls` 0.5.0 crate ships
// in `test_vectors/`, which cargo downloads from crates.io (`cargo fetch
// --locked --manifest-path scripts/mls-vectors/Cargo.toml`; nothing of it is
// compiled) into `$CARGO_HOME/registry/src/*/openmls-0.5.0/test_vectors/`
// (`$CARGO_HOME` defaults to `~/.cargo`), or from the directory
// `HERMIT_MLS_VECTORS` names. A missing file fails the test (it is not
// skipped). Each file is checked against the same SHA-256 as the Rust
// harness, and against its number of suite-2 cases (8 and 13), so a file
// that lost cases fails instead of passing on fewer.
//
// A passive client is given the vector's KeyPackage with its private keys
// (init, encryption and signature: raw 32-byte P-256 scalars, which is also
// the form ts-mls's HPKE `importPrivateKey` / `exportPrivateKey` use, the
// `d` of the key in @hpke/core), joins from the Welcome (with the vector's
// ratchet tree when it carries one outside the Welcome, and its external
// PSKs in a ts-mls PskIndex), and then processes each epoch's proposals and
// commit. After the join and after every commit its epoch authenticator
// must equal the vector's. Failures are reported per case with the step
// (join, proposal p of epoch n, commit n) and the error, every failure of a
// file together.
//
// The client configuration is CLIENT_CONFIG's (key retention, padding,
// KeyPackage equality) with two checks relaxed, as the vectors require:
//  - `lifetimeConfig.validateLifetimeOnReceive: false`: the vectors' leaves
//    were valid from 2023-03-03 to 2024-03-02, and ts-mls 1.6.4 checks
//    lifetimes only against the current clock (the Rust harness instead
//    validates as of 2023-09-01, which mls-rs allows);
//  - an authService that accepts every credential: the vectors' leaves carry
//    basic credentials of test identities, not HermitMQ device bindings
//    (src/mls/credential.js), which our policy would refuse.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { joinGroup, makePskIndex } from 'ts-mls/clientState.js';
import { acceptAll } from 'ts-mls/incomingMessageAction.js';
import { decodeMlsMessage } from 'ts-mls/message.js';
import { processMessage } from 'ts-mls/processMessages.js';
import { decodeRatchetTree } from 'ts-mls/ratchetTree.js';

import { CLIENT_CONFIG, cipherSuite } from '../src/mls/suite.js';

/** @import { ClientConfig } from 'ts-mls/clientConfig.js' */
/** @import { ClientState } from 'ts-mls/clientState.js' */
/** @import { MLSMessage } from 'ts-mls/message.js' */
/** @import { CiphersuiteImpl } from 'ts-mls/crypto/ciphersuite.js' */

/** The ciphersuite under test. */
const SUITE = 2;

/**
 * Each file: its SHA-256 as the `openmls` 0.5.0 crate ships it (the same
 * constants as client/tests/mls_conformance.rs) and its number of suite-2
 * cases.
 */
const FILES = /** @type {const} */ ({
  welcome: {
    name: 'passive-client-welcome.json',
    sha256: '92ebb04b67b1aca4290965ae363650921842ceebe275bd79a2733414078d849c',
    cases: 8,
  },
  handlingCommit: {
    name: 'passive-client-handling-commit.json',
    sha256: '23a1b353a0ef94b1aac4ab90630b7c7b41da9e95850890d6da479241eed79fd6',
    cases: 13,
  },
});

const FETCH = 'cargo fetch --locked --manifest-path scripts/mls-vectors/Cargo.toml';

/**
 * CLIENT_CONFIG with the lifetime check on receipt off and every credential
 * accepted (see the header).
 * @type {ClientConfig}
 */
const VECTOR_CONFIG = {
  keyRetentionConfig: CLIENT_CONFIG.keyRetentionConfig,
  lifetimeConfig: { ...CLIENT_CONFIG.lifetimeConfig, validateLifetimeOnReceive: false },
  keyPackageEqualityConfig: CLIENT_CONFIG.keyPackageEqualityConfig,
  paddingConfig: CLIENT_CONFIG.paddingConfig,
  authService: {
    async validateCredential() {
      return true;
    },
  },
};

/**
 * One passive-client test case (RFC 9420 test-vectors.md, "Passive Client").
 * @typedef {{
 *   cipherSuite: number,
 *   externalPsks: { pskId: Uint8Array, psk: Uint8Array }[],
 *   keyPackage: Uint8Array,
 *   signaturePriv: Uint8Array,
 *   encryptionPriv: Uint8Array,
 *   initPriv: Uint8Array,
 *   welcome: Uint8Array,
 *   ratchetTree: Uint8Array | null,
 *   initialEpochAuthenticator: Uint8Array,
 *   epochs: { proposals: Uint8Array[], commit: Uint8Array, epochAuthenticator: Uint8Array }[],
 * }} Case
 */

/**
 * Where a case failed: the step, and either ts-mls's error (or an input of
 * the wrong kind) or an epoch authenticator that differs from the vector's.
 */
class CaseFailure extends Error {
  /**
   * @param {string} step
   * @param {string} message
   * @param {'error' | 'authenticator'} [kind]
   */
  constructor(step, message, kind = 'error') {
    super(`${step}: ${message}`);
    this.name = 'CaseFailure';
    this.step = step;
    this.kind = kind;
  }
}

/**
 * The directory HERMIT_MLS_VECTORS names, else `test_vectors/` of the
 * `openmls-0.5.0` crate in cargo's registry; throws naming how to get it.
 * @returns {string}
 */
function vectorsDir() {
  const named = process.env.HERMIT_MLS_VECTORS;
  if (named) return named;
  const registry = join(process.env.CARGO_HOME || join(homedir(), '.cargo'), 'registry', 'src');
  /** @type {string[]} */
  let indexes = [];
  try {
    indexes = readdirSync(registry);
  } catch {
    // No registry: the error below.
  }
  for (const index of indexes) {
    const dir = join(registry, index, 'openmls-0.5.0', 'test_vectors');
    if (existsSync(dir) && statSync(dir).isDirectory()) return dir;
  }
  throw new Error(
    `the RFC 9420 test vectors were not found under ${registry}/*/openmls-0.5.0/test_vectors: ` +
      `run \`${FETCH}\` (scripts/test.sh does), or point HERMIT_MLS_VECTORS at a directory holding ` +
      `${FILES.welcome.name} and ${FILES.handlingCommit.name}`,
  );
}

/**
 * @param {unknown} v
 * @returns {Uint8Array}
 */
function unhex(v) {
  if (typeof v !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) throw new Error(`not a hex string: ${String(v).slice(0, 40)}`);
  return Uint8Array.from(Buffer.from(v, 'hex'));
}

/**
 * The suite-2 cases of a vector file, checked against its SHA-256 and case count.
 * @param {{ name: string, sha256: string, cases: number }} file
 * @returns {Case[]}
 */
function load(file) {
  const path = join(vectorsDir(), file.name);
  /** @type {Buffer} */
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)} (run \`${FETCH}\`, or set HERMIT_MLS_VECTORS)`, { cause: e });
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  assert.equal(digest, file.sha256, `${path}: not the expected file`);
  /** @type {Record<string, unknown>[]} */
  const all = JSON.parse(bytes.toString('utf8'));
  const cases = all
    .filter((c) => c.cipher_suite === SUITE)
    .map((c) => /** @type {Case} */ ({
      cipherSuite: Number(c.cipher_suite),
      externalPsks: /** @type {Record<string, unknown>[]} */ (c.external_psks).map((p) => ({ pskId: unhex(p.psk_id), psk: unhex(p.psk) })),
      keyPackage: unhex(c.key_package),
      signaturePriv: unhex(c.signature_priv),
      encryptionPriv: unhex(c.encryption_priv),
      initPriv: unhex(c.init_priv),
      welcome: unhex(c.welcome),
      ratchetTree: c.ratchet_tree == null ? null : unhex(c.ratchet_tree),
      initialEpochAuthenticator: unhex(c.initial_epoch_authenticator),
      epochs: /** @type {Record<string, unknown>[]} */ (c.epochs).map((e) => ({
        proposals: /** @type {unknown[]} */ (e.proposals).map(unhex),
        commit: unhex(e.commit),
        epochAuthenticator: unhex(e.epoch_authenticator),
      })),
    }));
  assert.equal(cases.length, file.cases, `${file.name}: suite-${SUITE} cases`);
  return cases;
}

/**
 * @param {unknown} e
 * @returns {string}
 */
function reason(e) {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * Runs `fn` as step `step`, its error (or a null result) a CaseFailure.
 * @template T
 * @param {string} step
 * @param {() => T | Promise<T>} fn
 * @returns {Promise<NonNullable<T>>}
 */
async function at(step, fn) {
  let out;
  try {
    out = await fn();
  } catch (e) {
    throw new CaseFailure(step, reason(e));
  }
  if (out == null) throw new CaseFailure(step, 'no result');
  return out;
}

/**
 * An MLSMessage, wholly decoded.
 * @param {Uint8Array} bytes
 * @returns {MLSMessage}
 */
function decodeMessage(bytes) {
  const r = decodeMlsMessage(bytes, 0);
  if (!r) throw new Error('the MLSMessage does not decode');
  if (r[1] !== bytes.length) throw new Error(`${bytes.length - r[1]} bytes after the MLSMessage`);
  return r[0];
}

/**
 * The checker: an epoch authenticator must equal the vector's.
 * @param {string} step
 * @param {Uint8Array} got
 * @param {Uint8Array} expected
 * @throws {CaseFailure} when they differ
 */
function checkAuthenticator(step, got, expected) {
  if (got.length !== expected.length || !got.every((b, i) => b === expected[i])) {
    throw new CaseFailure(
      step,
      `epoch authenticator ${Buffer.from(got).toString('hex')}, the vector's ${Buffer.from(expected).toString('hex')}`,
      'authenticator',
    );
  }
}

/**
 * Runs one case as a passive client; returns the number of epochs processed
 * after the join.
 * @param {Case} c
 * @param {CiphersuiteImpl} cs
 * @returns {Promise<number>}
 */
async function runCase(c, cs) {
  const kpMessage = await at('decode the KeyPackage', () => decodeMessage(c.keyPackage));
  if (kpMessage.wireformat !== 'mls_key_package') throw new CaseFailure('decode the KeyPackage', `a ${kpMessage.wireformat}`);
  const keyPackage = kpMessage.keyPackage;
  const privateKeys = { initPrivateKey: c.initPriv, hpkePrivateKey: c.encryptionPriv, signaturePrivateKey: c.signaturePriv };
  // ts-mls keys external PSKs by the base64 of their id (makePskIndex).
  /** @type {Record<string, Uint8Array>} */
  const externalPsks = {};
  for (const { pskId, psk } of c.externalPsks) externalPsks[Buffer.from(pskId).toString('base64')] = psk;

  const welcomeMessage = await at('decode the Welcome', () => decodeMessage(c.welcome));
  if (welcomeMessage.wireformat !== 'mls_welcome') throw new CaseFailure('decode the Welcome', `a ${welcomeMessage.wireformat}`);
  const tree = c.ratchetTree === null
    ? undefined
    : await at('decode the ratchet tree', () => {
        const bytes = /** @type {Uint8Array} */ (c.ratchetTree);
        const r = decodeRatchetTree(bytes, 0);
        if (!r) throw new Error('the ratchet tree does not decode');
        if (r[1] !== bytes.length) throw new Error(`${bytes.length - r[1]} bytes after the ratchet tree`);
        return r[0];
      });
  /** @type {ClientState} */
  let state = await at('join', () =>
    joinGroup(welcomeMessage.welcome, keyPackage, privateKeys, makePskIndex(undefined, externalPsks), cs, tree, undefined, VECTOR_CONFIG),
  );
  checkAuthenticator('join', state.keySchedule.epochAuthenticator, c.initialEpochAuthenticator);

  for (const [i, epoch] of c.epochs.entries()) {
    const n = i + 1;
    const steps = [
      ...epoch.proposals.map((bytes, p) => ({ step: `proposal ${p} of epoch ${n}`, bytes })),
      { step: `commit ${n}`, bytes: epoch.commit },
    ];
    for (const { step, bytes } of steps) {
      const message = await at(step, () => decodeMessage(bytes));
      if (message.wireformat !== 'mls_public_message' && message.wireformat !== 'mls_private_message') {
        throw new CaseFailure(step, `a ${message.wireformat}`);
      }
      const current = state;
      const r = await at(step, () => processMessage(message, current, makePskIndex(current, externalPsks), acceptAll, cs));
      if (r.kind !== 'newState') throw new CaseFailure(step, 'an application message');
      if (r.actionTaken !== 'accept') throw new CaseFailure(step, `action ${r.actionTaken}`);
      state = r.newState;
    }
    checkAuthenticator(`commit ${n}`, state.keySchedule.epochAuthenticator, epoch.epochAuthenticator);
  }
  return c.epochs.length;
}

/**
 * Runs every suite-2 case of `file`; fails listing every case that did not pass.
 * @param {{ name: string, sha256: string, cases: number }} file
 * @param {{ diagnostic(message: string): void }} t
 */
async function runFile(file, t) {
  const cases = load(file);
  const cs = await cipherSuite();
  /** @type {string[]} */
  const failures = [];
  let epochs = 0;
  for (const [i, c] of cases.entries()) {
    try {
      epochs += await runCase(c, cs);
    } catch (e) {
      failures.push(`case ${i}: ${reason(e)}`);
    }
  }
  assert.ok(
    failures.length === 0,
    `${file.name}: ${failures.length} of ${cases.length} suite-${SUITE} cases failed:\n  ${failures.join('\n  ')}`,
  );
  t.diagnostic(`${file.name}: ${cases.length} cases passed, ${epochs} epochs after the joins`);
}

test('passive-client-welcome.json: every suite-2 case', async (t) => {
  await runFile(FILES.welcome, t);
});

test('passive-client-handling-commit.json: every suite-2 case', async (t) => {
  await runFile(FILES.handlingCommit, t);
});

test('one flipped byte of one expected authenticator is a failure', async () => {
  /** @param {string} step */
  const mismatchAt = (step) => (/** @type {unknown} */ e) => e instanceof CaseFailure && e.kind === 'authenticator' && e.step === step;
  const a = Uint8Array.from({ length: 32 }, (_, i) => i);
  const flipped = a.slice();
  flipped[7] ^= 0x01;
  assert.doesNotThrow(() => checkAuthenticator('commit 2', a, a.slice()));
  assert.throws(() => checkAuthenticator('commit 2', a, flipped), mismatchAt('commit 2'));
  assert.throws(() => checkAuthenticator('join', a, a.subarray(0, 31)), mismatchAt('join'));

  // Through a whole case, on the vectors' values: case 12 of
  // -handling-commit (6 proposals by reference in epoch 2) passes, and with
  // one byte of epoch 2's expected authenticator flipped (in memory) fails
  // as an authenticator mismatch at commit 2.
  const cs = await cipherSuite();
  const c = load(FILES.handlingCommit)[12];
  assert.equal(await runCase(c, cs), 2);
  const epochs = c.epochs.map((e) => ({ ...e }));
  const expected = epochs[1].epochAuthenticator.slice();
  expected[0] ^= 0x80;
  epochs[1].epochAuthenticator = expected;
  await assert.rejects(runCase({ ...c, epochs }, cs), mismatchAt('commit 2'));
});
