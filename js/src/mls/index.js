// MLS conversations (RFC 9420, ciphersuite 2) on Web Crypto, interoperable
// with the Rust SDK's `hermit_client::mls` (docs/MLS.md §11).

export { DeviceBinding, BINDING_LEN } from './binding.js';
export { Conversation, MAX_PENDING_EVENTS, groupTopic } from './conversation.js';
export { MAX_COMMIT_ATTEMPTS } from './commit.js';
export { DEVICES_KEY, DeviceList, LIST_RESIGN_AFTER_MS, LIST_STALE_AFTER_MS, MAX_DEVICES, directoryTopic } from './device-list.js';
export { Device, keyPackageTopic, welcomeTopic } from './device.js';
export { MlsError } from './error.js';
export { MemoryStore, deviceStateKey } from './store.js';
export { ROTATION_KEY, ROTATION_LEN, ROTATION_MAX_SKEW_MS, RotationStatement } from '../trust/rotation.js';
export { CIPHER_SUITE, DELIVERY_EXTENSION, KEY_PACKAGE_LIFETIME_S, PAST_EPOCHS } from './suite.js';
export { IndexedDbStore, holdDeviceLock } from './browser.js';
