// `node --import ./test/helpers/no-noble.mjs`: every `@noble/*` module
// (ts-mls's pure-JavaScript ECDSA and ciphers, its undeclared hashes) is
// replaced by one that throws on import, so a test run under it shows the
// SDK's MLS uses Web Crypto only (docs/MLS.md §11.1). scripts/test.sh runs
// the whole JavaScript suite so; test/mls-webcrypto-only.test.mjs checks
// that the hook is in force.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@noble/')) {
    return { url: 'data:text/javascript,' + encodeURIComponent('throw new Error("@noble is blocked: HermitMQ MLS runs on Web Crypto only (imported: ' + specifier + ')");'), shortCircuit: true };
  }
  return next(specifier, context);
}
`),
);
