// The declarations cannot drift from the code. src/index.d.ts (with
// src/types/*.d.ts) is written by hand (it is the public API: literal types,
// unions, private constructors); this file holds it to the modules, two ways:
//
// - At type-check time (`npm run typecheck`): `sdk` below is typed by the
//   declarations, the modules are read as JavaScript (allowJs, their JSDoc),
//   and `implemented` must satisfy "every declared value, with its declared
//   type": a declared name that is missing, extra, or whose implementation's
//   type does not fit the declaration fails the type check, at its line.
// - At run time (this test): index.js must export exactly those names, each
//   the very object the type check looked at.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as sdk from '../src/index.js';
import * as sdkNode from '../src/node.js';
import * as bytes from '../src/bytes.js';
import * as clientAuthenticate from '../src/client/authenticate.js';
import * as clientConnection from '../src/client/connection.js';
import * as clientKnownBrokers from '../src/client/known-brokers.js';
import * as clientKnownBrokersFile from '../src/client/known-brokers-file.js';
import * as clientStateAnchorsFile from '../src/client/state-anchors-file.js';
import * as clientStateDirectory from '../src/client/state-directory.js';
import * as clientConsumer from '../src/client/consumer.js';
import * as clientOutcome from '../src/client/outcome.js';
import * as clientReconnect from '../src/client/reconnect.js';
import * as clientPartitioner from '../src/client/partitioner.js';
import * as clientProducer from '../src/client/producer.js';
import * as clientRecords from '../src/client/records.js';
import * as cryptoBlind from '../src/crypto/blind.js';
import * as cryptoCompat from '../src/crypto/compat.js';
import * as cryptoEnvelope from '../src/crypto/envelope.js';
import * as cryptoErrors from '../src/crypto/errors.js';
import * as cryptoIdentity from '../src/crypto/identity.js';
import * as cryptoKeyfile from '../src/crypto/keyfile.js';
import * as cryptoOpen from '../src/crypto/open.js';
import * as cryptoPad from '../src/crypto/pad.js';
import * as cryptoReplay from '../src/crypto/replay.js';
import * as cryptoSeal from '../src/crypto/seal.js';
import * as cryptoSigning from '../src/crypto/signing.js';
import * as cryptoState from '../src/crypto/state.js';
import * as protocolAuth from '../src/protocol/auth.js';
import * as protocolCodec from '../src/protocol/codec.js';
import * as protocolCrc32c from '../src/protocol/crc32c.js';
import * as protocolError from '../src/protocol/error.js';
import * as protocolFrame from '../src/protocol/frame.js';
import * as protocolHello from '../src/protocol/hello.js';
import * as protocolRecord from '../src/protocol/record.js';
import * as protocolStatus from '../src/protocol/status.js';
import * as protocolTopic from '../src/protocol/topic.js';
import * as sealedConsumer from '../src/sealed/consumer.js';
import * as sealedProducer from '../src/sealed/producer.js';
import * as sealedRecord from '../src/sealed/record.js';
import * as sealedState from '../src/sealed/state.js';
import * as trustSafety from '../src/trust/safety.js';

/**
 * What of a declared value the check compares. The declarations and the
 * modules are two copies of each class, and a class with `#private` members
 * accepts only itself, so:
 * - a function is compared the way a method is (its parameters either way
 *   round; methods and constructors are compared like that anyway): one
 *   taking an `Identity` takes the modules' `Identity`, not the declared one;
 * - a class the declarations give a private constructor (made by `create`,
 *   `connect`… only) is compared by its static members (as methods) and its
 *   instances, not by the parameters of a constructor users never call.
 * @template T
 * @typedef {T extends (...args: infer A) => infer R ? { call(...args: A): R }['call'] : T} AsMethod
 */

/**
 * @template T
 * @typedef {T extends (...args: any) => any ? AsMethod<T>
 *   : T extends new (...args: any) => any ? T
 *   : T extends object ? { [K in keyof T]: AsMethod<T[K]> } : T} Checked
 */

/**
 * Every value `src/index.d.ts` declares, taken from the module that implements it.
 * @satisfies {{ [K in keyof typeof sdk]: Checked<(typeof sdk)[K]> }}
 */
const implemented = {
  // protocol/error.js
  ClientError: protocolError.ClientError,
  WireError: protocolError.WireError,
  // protocol/status.js
  STATUS_NAMES: protocolStatus.STATUS_NAMES,
  Status: protocolStatus.Status,
  // protocol/topic.js
  cursorNameError: protocolTopic.cursorNameError,
  groupNameError: protocolTopic.groupNameError,
  topicNameError: protocolTopic.topicNameError,
  // protocol/codec.js
  U64_MAX: protocolCodec.U64_MAX,
  // protocol/hello.js
  BrokerFlags: protocolHello.BrokerFlags,
  PROTOCOL_VERSION: protocolHello.PROTOCOL_VERSION,
  decodeBrokerHello: protocolHello.decodeBrokerHello,
  encodeClientHello: protocolHello.encodeClientHello,
  // protocol/auth.js
  authTranscript: protocolAuth.authTranscript,
  authTranscriptBound: protocolAuth.authTranscriptBound,
  dialledName: protocolAuth.dialledName,
  // protocol/record.js
  BatchBuilder: protocolRecord.BatchBuilder,
  batches: protocolRecord.batches,
  nowNs: protocolRecord.nowNs,
  parseBatch: protocolRecord.parseBatch,
  records: protocolRecord.records,
  verifyCrc: protocolRecord.verifyCrc,
  // protocol/crc32c.js
  crc32c: protocolCrc32c.crc32c,
  crc32cUpdate: protocolCrc32c.crc32cUpdate,
  // protocol/frame.js
  Ack: protocolFrame.Ack,
  CLAIM_ID_LEN: protocolFrame.CLAIM_ID_LEN,
  Cleanup: protocolFrame.Cleanup,
  MAX_LIST_LIMIT: protocolFrame.MAX_LIST_LIMIT,
  Op: protocolFrame.Op,
  decodeResponse: protocolFrame.decodeResponse,
  encodeRequest: protocolFrame.encodeRequest,
  // client/connection.js
  CLOSE_PROTOCOL_ERROR: clientConnection.CLOSE_PROTOCOL_ERROR,
  CLOSE_TIMEOUT: clientConnection.CLOSE_TIMEOUT,
  Client: clientConnection.Client,
  SUBPROTOCOL: clientConnection.SUBPROTOCOL,
  connect: clientConnection.connect,
  // client/reconnect.js
  ConnectionState: clientReconnect.ConnectionState,
  // client/authenticate.js
  dialledEndpoint: clientAuthenticate.dialledEndpoint,
  // client/known-brokers.js
  BrokerIdChanged: clientKnownBrokers.BrokerIdChanged,
  // client/records.js
  FetchResponse: clientRecords.FetchResponse,
  // client/outcome.js
  ClaimId: clientOutcome.ClaimId,
  // client/producer.js
  Delivery: clientProducer.Delivery,
  Producer: clientProducer.Producer,
  // client/partitioner.js
  fnv1a32: clientPartitioner.fnv1a32,
  partitionForKey: clientPartitioner.partitionForKey,
  // client/consumer.js
  Consumer: clientConsumer.Consumer,
  // crypto/identity.js
  Fingerprint: cryptoIdentity.Fingerprint,
  Identity: cryptoIdentity.Identity,
  KeyError: cryptoIdentity.KeyError,
  Kid: cryptoIdentity.Kid,
  PKCS8_LEN: cryptoIdentity.PKCS8_LEN,
  PublicKey: cryptoIdentity.PublicKey,
  SPKI_LEN: cryptoIdentity.SPKI_LEN,
  // crypto/keyfile.js
  KdfParams: cryptoKeyfile.KdfParams,
  KeyFile: cryptoKeyfile.KeyFile,
  KeyFileError: cryptoKeyfile.KeyFileError,
  // crypto/envelope.js
  DIRECT_OVERHEAD: cryptoEnvelope.DIRECT_OVERHEAD,
  Flags: cryptoEnvelope.Flags,
  Header: cryptoEnvelope.Header,
  MAX_RECIPIENTS: cryptoEnvelope.MAX_RECIPIENTS,
  Mode: cryptoEnvelope.Mode,
  RecordView: cryptoEnvelope.RecordView,
  SIGNATURE_LEN: cryptoEnvelope.SIGNATURE_LEN,
  // crypto/seal.js
  DIRECT_LIMIT: cryptoSeal.DIRECT_LIMIT,
  MAX_PLAINTEXT_LEN: cryptoSeal.MAX_PLAINTEXT_LEN,
  Sealer: cryptoSeal.Sealer,
  // crypto/open.js
  OpenedMode: cryptoOpen.OpenedMode,
  Opener: cryptoOpen.Opener,
  WindowStart: cryptoOpen.WindowStart,
  // crypto/replay.js
  BITMAP_LEN: cryptoReplay.BITMAP_LEN,
  Gap: cryptoReplay.Gap,
  ReplayWindow: cryptoReplay.ReplayWindow,
  // crypto/signing.js
  SigningIdentity: cryptoSigning.SigningIdentity,
  SigningPublicKey: cryptoSigning.SigningPublicKey,
  // crypto/blind.js
  BLINDED_KEY_LEN: cryptoBlind.BLINDED_KEY_LEN,
  BlindedKey: cryptoBlind.BlindedKey,
  BlindingKey: cryptoBlind.BlindingKey,
  ConversationKey: cryptoBlind.ConversationKey,
  // crypto/pad.js
  padme: cryptoPad.padme,
  paddedLen: cryptoPad.paddedLen,
  // crypto/state.js
  MAX_STATE_LEN: cryptoState.MAX_STATE_LEN,
  STATE_MAGIC: cryptoState.STATE_MAGIC,
  StateError: cryptoState.StateError,
  openState: cryptoState.openState,
  sealState: cryptoState.sealState,
  // crypto/compat.js
  COMPAT_LIMIT: cryptoCompat.COMPAT_LIMIT,
  ChatCrypto: cryptoCompat.ChatCrypto,
  CompatMessage: cryptoCompat.CompatMessage,
  // crypto/errors.js
  CompatError: cryptoErrors.CompatError,
  OpenError: cryptoErrors.OpenError,
  SealError: cryptoErrors.SealError,
  TrustError: cryptoErrors.TrustError,
  // trust/safety.js
  HALF_DIGITS: trustSafety.HALF_DIGITS,
  SAFETY_NUMBER_DIGITS: trustSafety.SAFETY_NUMBER_DIGITS,
  SafetyNumber: trustSafety.SafetyNumber,
  accountHalf: trustSafety.accountHalf,
  safetyNumber: trustSafety.safetyNumber,
  // sealed/producer.js
  BUDGET_RESERVE: sealedProducer.BUDGET_RESERVE,
  SealedDelivery: sealedProducer.SealedDelivery,
  SealedGroup: sealedProducer.SealedGroup,
  SealedProducer: sealedProducer.SealedProducer,
  // sealed/consumer.js
  SealedConsumer: sealedConsumer.SealedConsumer,
  // sealed/record.js
  OpenedRecord: sealedRecord.OpenedRecord,
  SealedRecordError: sealedRecord.SealedRecordError,
  // sealed/state.js
  BUDGET_KEY: sealedState.BUDGET_KEY,
  BudgetState: sealedState.BudgetState,
  CommitRolledBack: sealedState.CommitRolledBack,
  ConsumerState: sealedState.ConsumerState,
  MAX_BUDGET_PEERS: sealedState.MAX_BUDGET_PEERS,
  MAX_STATE_SENDERS: sealedState.MAX_STATE_SENDERS,
  StateRolledBack: sealedState.StateRolledBack,
  StateStore: sealedState.StateStore,
  consumerKey: sealedState.consumerKey,
  stateTopic: sealedState.stateTopic,
  // bytes.js
  Base64Error: bytes.Base64Error,
  concat: bytes.concat,
  equal: bytes.equal,
  fromBase64: bytes.fromBase64,
  fromHex: bytes.fromHex,
  fromUtf8: bytes.fromUtf8,
  toBase64: bytes.toBase64,
  toHex: bytes.toHex,
  utf8: bytes.utf8,
};

/**
 * Every value `src/node.d.ts` declares (`hermitmq/node`), the same way.
 * @satisfies {{ [K in keyof typeof sdkNode]: Checked<(typeof sdkNode)[K]> }}
 */
const implementedNode = {
  // client/known-brokers-file.js
  KNOWN_BROKERS_FILE: clientKnownBrokersFile.KNOWN_BROKERS_FILE,
  KnownBrokersError: clientKnownBrokersFile.KnownBrokersError,
  KnownBrokersFile: clientKnownBrokersFile.KnownBrokersFile,
  // client/state-anchors-file.js
  STATE_ANCHORS_FILE: clientStateAnchorsFile.STATE_ANCHORS_FILE,
  StateAnchorsError: clientStateAnchorsFile.StateAnchorsError,
  StateAnchorsFile: clientStateAnchorsFile.StateAnchorsFile,
  // client/state-directory.js
  STATE_LOCK_FILE: clientStateDirectory.STATE_LOCK_FILE,
  StateDirectory: clientStateDirectory.StateDirectory,
  StateDirectoryError: clientStateDirectory.StateDirectoryError,
};

/**
 * The named keys of a key union (not an index signature's `string`).
 * @template K
 * @typedef {K extends string ? (string extends K ? never : K) : never} Named
 */

/**
 * The public members of a module's class (static or not) that its declared
 * class lacks: `Class.member` names.
 * @template I, D, N
 * @typedef {N extends string ? `${N}.${Named<(I extends { prototype: infer II } ? D extends { prototype: infer DI } ? Exclude<keyof II, keyof DI> : never : never)
 *   | (I extends new (...args: any) => any ? Exclude<keyof I, keyof D | 'prototype'> : never)>}` : never} Undeclared
 */

/**
 * Members the modules have and the declarations leave out on purpose: every
 * object's `toString` and `toJSON`, and what one module of the SDK uses of
 * another's class (so it cannot be `#private`) but users do not.
 * @typedef {`${string}.toString` | `${string}.toJSON`
 *   | 'BatchBuilder.key' | 'BatchBuilder.parts' | 'BatchBuilder.payloadLen'
 *   | 'KdfParams.checkFloor' | 'KdfParams.deriveKek'
 *   | 'ReplayWindow.accept' | 'ReplayWindow.check' | 'ReplayWindow.restored' | 'ReplayWindow.seen'} Internal
 */

/**
 * The other way round: a public member the code has and the declarations do
 * not (an undeclared API, or one renamed in the code only) fails the type
 * check here, naming it. (A type-only check: nothing reads the value.)
 * @type {[Exclude<{ [K in keyof typeof implemented]: Undeclared<(typeof implemented)[K], (typeof sdk)[K], K> }[keyof typeof implemented], Internal>] extends [never] ? true
 *   : Exclude<{ [K in keyof typeof implemented]: Undeclared<(typeof implemented)[K], (typeof sdk)[K], K> }[keyof typeof implemented], Internal>}
 */
// eslint-disable-next-line no-unused-vars
const nothingUndeclared = true;

/**
 * The same for `hermitmq/node`.
 * @type {[{ [K in keyof typeof implementedNode]: Undeclared<(typeof implementedNode)[K], (typeof sdkNode)[K], K> }[keyof typeof implementedNode]] extends [never] ? true
 *   : { [K in keyof typeof implementedNode]: Undeclared<(typeof implementedNode)[K], (typeof sdkNode)[K], K> }[keyof typeof implementedNode]}
 */
// eslint-disable-next-line no-unused-vars
const nothingUndeclaredInNode = true;

test('index.js and node.js export exactly the declared names, each from its module', () => {
  for (const [module, declared] of /** @type {const} */ ([[sdk, implemented], [sdkNode, implementedNode]])) {
    assert.deepEqual(Object.keys(module).sort(), Object.keys(declared).sort());
    const exported = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (module));
    for (const [name, value] of Object.entries(declared)) assert.equal(exported[name], value, name);
  }
});
