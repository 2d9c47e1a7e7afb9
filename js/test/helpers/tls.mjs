// A development CA and a certificate for the tests' TLS listeners, made by
// the broker binary (`hermit tls self-signed`, docs/OPERATIONS.md "TLS"):
// the same CA the broker's own wss listener and the tests' relays present.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hermitBin } from './broker.mjs';

/**
 * @param {string[]} names DNS names the certificate is valid for
 * @returns {Promise<{ dir: string, caPath: string, certPath: string, keyPath: string, ca: string, cert: string, key: string, remove: () => Promise<void> }>}
 */
export async function testCertificates(names) {
  const dir = await mkdtemp(join(tmpdir(), 'hermit-js-tls-'));
  await promisify(execFile)(hermitBin(), ['tls', 'self-signed', '--out', dir, ...names.flatMap((n) => ['--name', n])]);
  const [caPath, certPath, keyPath] = ['ca.pem', 'broker.pem', 'broker.key'].map((f) => join(dir, f));
  const [ca, cert, key] = await Promise.all([caPath, certPath, keyPath].map((p) => readFile(p, 'utf8')));
  return { dir, caPath, certPath, keyPath, ca, cert, key, remove: () => rm(dir, { recursive: true, force: true }) };
}
