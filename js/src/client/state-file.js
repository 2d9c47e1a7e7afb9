/**
 * Writing a file of the client state directory whole or not at all (Node
 * only), as the Rust SDK's `StateDir::write` does.
 *
 * @module client/state-file
 */

import { open, rename, unlink } from 'node:fs/promises';

/**
 * Replace the file at `path` in directory `dir` with `text`: a temporary
 * file (`<path>.tmp`, mode 0600; one a crash left is started over)
 * written and fsynced, renamed over the file, the directory fsynced (not
 * on Windows, which cannot open a directory to fsync it).
 * @param {string} dir
 * @param {string} path
 * @param {string} text
 * @returns {Promise<void>} rejects with the file system's error
 */
export async function writeWhole(dir, path, text) {
  const tmp = `${path}.tmp`;
  await unlink(tmp).catch((e) => {
    if (e.code !== 'ENOENT') throw e;
  });
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  if (process.platform === 'win32') return;
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
