// HermitMQ JavaScript SDK: everything public, re-exported by module.
//
// Layout — the folders mirror the Rust crates (`protocol/`, `client/src/`,
// `client/src/crypto/`, `client/src/sealed/`) and use their names
// (docs/GLOSSARY.md):
// - `protocol/`: the wire format, sans-I/O. `frame.js` request and response
//   frames and op codes; `record.js` record batches (header, views, builder,
//   payload layout) with `crc32c.js`; `hello.js` the hellos; `auth.js` what an
//   Authenticate signs; `status.js` status codes; `topic.js` topic, group and
//   cursor names; `codec.js` the checked big-endian reader and writer;
//   `error.js` `ClientError` and `WireError`.
// - `client/`: `connection.js` `connect` and `Client` (pipelined requests,
//   resent or failed when a connection dies); `link.js` one WebSocket and
//   its handshake; `reconnect.js` when to open the next one (backoff,
//   states); `authenticate.js` the Authenticate step, the
//   dialled name and the channel binding; `known-brokers.js` broker-id pins
//   and `BrokerIdChanged`; `records.js` `FetchResponse` and its records;
//   `outcome.js` the outcomes of a conditional produce and of a claim, and
//   `ClaimId`;
//   `producer.js` the batching `Producer`; `partitioner.js` key → partition;
//   `consumer.js` the long-polling `Consumer`.
// - `crypto/`: end-to-end sealing on Web Crypto, sans-I/O. `identity.js`
//   identities, public keys, fingerprints; `keyfile.js` SEALKEY key files;
//   `envelope.js` the ENVELOPE v1 byte layout; `seal.js` the `Sealer`;
//   `open.js` the `Opener`; `replay.js` replay windows; `signing.js` record
//   signatures; `blind.js` blinded record keys (`BlindingKey`, and its old
//   name `ConversationKey`); `pad.js` Padmé padding; `aead.js` the AES-GCM,
//   HKDF and HMAC calls; `state.js` state records sealed to oneself;
//   `compat.js` the seed's `ChatCrypto`; `errors.js` the typed errors of
//   sealing and opening; `webcrypto.js` the platform's Web Crypto (subtle,
//   random bytes, SHA-256).
// - `trust/`: checking other people's keys. `safety.js` safety numbers, the
//   digits two people compare to check each other's account key;
//   `rotation.js` account-key rotation statements (exported by
//   `hermitmq/mls`, whose `MlsError` and ECDSA form they use).
// - `sealed/`: the crypto layer on the client. `producer.js`
//   `SealedProducer`; `consumer.js` `SealedConsumer`; `record.js` what it
//   returns per record; `state.js` replay windows and DIRECT budgets kept in
//   the identity's state topic.
// - `bytes.js`: base64, hex, UTF-8 and byte helpers.
// - `node.js`, the package's `hermitmq/node` (Node only, not re-exported
//   here: it imports `node:fs`): `client/known-brokers-file.js`, the
//   known-brokers file.
// `sealed/` builds on `client/` and `crypto/`, `trust/` on `crypto/` (and
// `rotation.js` on `mls/ecdsa.js` and `mls/error.js`),
// `client/` on `protocol/`; nothing imports upwards. The types are
// `index.d.ts` and `types/*.d.ts` (one per folder), written by hand;
// test/types.test.mjs holds them to the code.
//
// One statement per module, in the order of the layout; each module's
// names in one statement.

export { ClientError, WireError } from './protocol/error.js';
export { STATUS_NAMES, Status } from './protocol/status.js';
export { cursorNameError, groupNameError, topicNameError } from './protocol/topic.js';
export { U64_MAX } from './protocol/codec.js';
export { BrokerFlags, PROTOCOL_VERSION, decodeBrokerHello, encodeClientHello } from './protocol/hello.js';
export { authTranscript, authTranscriptBound, dialledName } from './protocol/auth.js';
export { BatchBuilder, batches, nowNs, parseBatch, records, verifyCrc } from './protocol/record.js';
export { crc32c, crc32cUpdate } from './protocol/crc32c.js';
export { Ack, CLAIM_ID_LEN, Cleanup, MAX_LIST_LIMIT, Op, decodeResponse, encodeRequest } from './protocol/frame.js';

export { CLOSE_PROTOCOL_ERROR, CLOSE_TIMEOUT, Client, SUBPROTOCOL, connect } from './client/connection.js';
export { ConnectionState } from './client/reconnect.js';
export { dialledEndpoint } from './client/authenticate.js';
export { BrokerIdChanged } from './client/known-brokers.js';
export { FetchResponse } from './client/records.js';
export { ClaimId } from './client/outcome.js';
export { Delivery, Producer } from './client/producer.js';
export { fnv1a32, partitionForKey } from './client/partitioner.js';
export { Consumer } from './client/consumer.js';

export { Fingerprint, Identity, KeyError, Kid, PKCS8_LEN, PublicKey, SPKI_LEN } from './crypto/identity.js';
export { KdfParams, KeyFile, KeyFileError } from './crypto/keyfile.js';
export {
  DIRECT_OVERHEAD,
  Flags,
  Header,
  MAX_RECIPIENTS,
  Mode,
  RecordView,
  SIGNATURE_LEN,
} from './crypto/envelope.js';
export { DIRECT_LIMIT, MAX_PLAINTEXT_LEN, Sealer } from './crypto/seal.js';
export { OpenedMode, Opener, WindowStart } from './crypto/open.js';
export { BITMAP_LEN, Gap, ReplayWindow } from './crypto/replay.js';
export { SigningIdentity, SigningPublicKey } from './crypto/signing.js';
export { BLINDED_KEY_LEN, BlindedKey, BlindingKey, ConversationKey } from './crypto/blind.js';
export { padme, paddedLen } from './crypto/pad.js';
export { MAX_STATE_LEN, STATE_MAGIC, StateError, openState, sealState } from './crypto/state.js';
export { COMPAT_LIMIT, ChatCrypto, CompatMessage } from './crypto/compat.js';
export { CompatError, OpenError, SealError, TrustError } from './crypto/errors.js';

export { HALF_DIGITS, SAFETY_NUMBER_DIGITS, SafetyNumber, accountHalf, safetyNumber } from './trust/safety.js';

export { BUDGET_RESERVE, SealedDelivery, SealedGroup, SealedProducer } from './sealed/producer.js';
export { SealedConsumer } from './sealed/consumer.js';
export { OpenedRecord, SealedRecordError } from './sealed/record.js';
export {
  BUDGET_KEY,
  BudgetState,
  CommitRolledBack,
  ConsumerState,
  MAX_BUDGET_PEERS,
  MAX_STATE_SENDERS,
  StateRolledBack,
  StateStore,
  consumerKey,
  stateTopic,
} from './sealed/state.js';

export { Base64Error, concat, equal, fromBase64, fromHex, fromUtf8, toBase64, toHex, utf8 } from './bytes.js';
