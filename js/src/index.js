// HermitMQ JavaScript SDK: everything public, re-exported by module
// (alphabetical by module; each module's names in one statement).

export { BLINDED_KEY_LEN, BlindedKey, ConversationKey } from './blind.js';
export { Base64Error, concat, equal, fromBase64, fromHex, fromUtf8, toBase64, toHex, utf8 } from './bytes.js';
export { COMPAT_LIMIT, ChatCrypto, CompatMessage } from './chat.js';
export { CLOSE_PROTOCOL_ERROR, CLOSE_TIMEOUT, Client, FetchResponse, SUBPROTOCOL, connect } from './connection.js';
export { Consumer } from './consumer.js';
export { crc32c, crc32cUpdate } from './crc32c.js';
export { CompatError, OpenError, SealError, TrustError } from './crypto-errors.js';
export {
  DIRECT_OVERHEAD,
  Flags,
  Header,
  MAX_RECIPIENTS,
  Mode,
  RecordView,
  SIGNATURE_LEN,
} from './envelope.js';
export { Fingerprint, Identity, KeyError, Kid, PKCS8_LEN, PublicKey, SPKI_LEN } from './identity.js';
export { KdfParams, KeyFile, KeyFileError } from './keyfile.js';
export { OpenedMode, Opener, WindowStart } from './open.js';
export { padme, paddedLen } from './pad.js';
export { Delivery, Producer, fnv1a32, partitionForKey } from './producer.js';
export {
  Ack,
  BatchBuilder,
  BrokerFlags,
  Cleanup,
  ClientError,
  MAX_LIST_LIMIT,
  Op,
  PROTOCOL_VERSION,
  STATUS_NAMES,
  Status,
  U64_MAX,
  WireError,
  authTranscript,
  batches,
  cursorNameError,
  decodeBrokerHello,
  decodeResponse,
  encodeClientHello,
  encodeRequest,
  groupNameError,
  nowNs,
  parseBatch,
  records,
  topicNameError,
  verifyCrc,
} from './protocol.js';
export { BITMAP_LEN, Gap, ReplayWindow } from './replay.js';
export { DIRECT_LIMIT, MAX_PLAINTEXT_LEN, Sealer } from './seal.js';
export { BUDGET_RESERVE, OpenedRecord, SealedConsumer, SealedDelivery, SealedGroup, SealedProducer, SealedRecordError } from './sealed.js';
export { SigningIdentity, SigningPublicKey } from './signing.js';
export {
  BUDGET_KEY,
  BudgetState,
  ConsumerState,
  MAX_BUDGET_PEERS,
  MAX_STATE_LEN,
  MAX_STATE_SENDERS,
  STATE_MAGIC,
  StateError,
  StateStore,
  consumerKey,
  openState,
  sealState,
  stateTopic,
} from './state.js';
