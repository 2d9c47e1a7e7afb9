// HermitMQ JavaScript SDK, the part for Node only (`hermitmq/node`): what
// needs the file system. Everything else, for browsers and Node alike, is
// `hermitmq` (index.js), which never imports this file.

export { KNOWN_BROKERS_FILE, KnownBrokersError, KnownBrokersFile } from './client/known-brokers-file.js';
export { STATE_ANCHORS_FILE, StateAnchorsError, StateAnchorsFile } from './client/state-anchors-file.js';
export { STATE_LOCK_FILE, StateDirectory, StateDirectoryError } from './client/state-directory.js';
