// The public API's declarations, written by hand, by layer (types/*.d.ts, as
// the folders of src/). test/types.test.mjs holds them to the code: a
// declared value the code lacks or types otherwise, or a public member the
// code has and they do not, fails the type check.

export * from './types/protocol.js';
export * from './types/client.js';
export * from './types/crypto.js';
export * from './types/trust.js';
export * from './types/sealed.js';
export * from './types/bytes.js';
