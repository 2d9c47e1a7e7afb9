/**
 * The client state directory (Node only), held: one process of an identity
 * at a time, as the Rust SDK and the CLI hold it (docs/SECURITY.md §1, "The
 * client state directory").
 *
 * The directory is created mode 0700 and refused when its group or others
 * may access it, or another user owns it. Its `lock` file names the process
 * that holds it: the Rust SDK and the CLI hold an exclusive `flock` on it
 * and write their pid there; Node cannot `flock`, so this writes its pid and
 * refuses a `lock` that names another live process. A process that died
 * leaves a pid that is no longer running, and the next one takes over. The
 * check and the write are two steps: two Node processes starting at the
 * same instant could both pass (a Rust process cannot: it checks the pid
 * after taking its lock).
 *
 * @module client/state-directory
 */

import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ClientError } from '../protocol/error.js';
import { KnownBrokersFile } from './known-brokers-file.js';
import { StateAnchorsFile } from './state-anchors-file.js';

/** The lock file's name, as in the Rust SDK. */
export const STATE_LOCK_FILE = /** @type {const} */ ('lock');

/**
 * The state directory cannot be used (code `StateDirectory`); `kind` says
 * why: `Locked` (another live process holds it; `pid` names it),
 * `Permissions` (its group or others may access it, or another user owns
 * it) or `Io`.
 */
export class StateDirectoryError extends ClientError {
  /**
   * @param {'Locked'|'Permissions'|'Io'} kind
   * @param {string} message
   * @param {{ path: string, pid?: number, cause?: unknown }} details
   */
  constructor(kind, message, details) {
    super('StateDirectory', message, { cause: details.cause });
    this.name = 'StateDirectoryError';
    /** @type {'Locked'|'Permissions'|'Io'} */
    this.kind = kind;
    /** The directory. @type {string} */
    this.path = details.path;
    /** The process holding it, for `Locked`. @type {number | undefined} */
    this.pid = details.pid;
  }
}

/**
 * Whether a process with `pid` runs (signal 0 only checks).
 * @param {number} pid
 * @returns {boolean}
 */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return /** @type {NodeJS.ErrnoException} */ (e).code === 'EPERM';
  }
}

/** A client state directory held by this process until `close()`. */
export class StateDirectory {
  /** @type {string} */
  #path;
  /** @type {boolean} */
  #open = true;

  /** @param {string} path */
  constructor(path) {
    this.#path = path;
  }

  /**
   * Create (mode 0700) if missing, check and hold the state directory `dir`.
   * @param {string} dir
   * @returns {Promise<StateDirectory>}
   * @throws {StateDirectoryError}
   */
  static async open(dir) {
    const io = (/** @type {string} */ what, /** @type {unknown} */ cause) =>
      new StateDirectoryError('Io', `state directory ${dir}: cannot ${what}: ${/** @type {Error} */ (cause).message}`, { path: dir, cause });
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw io('create it', e);
    }
    const st = await stat(dir).catch((e) => { throw io('read it', e); });
    if (process.platform !== 'win32') {
      const uid = process.getuid?.();
      if (uid !== undefined && st.uid !== uid) {
        throw new StateDirectoryError('Permissions', `state directory ${dir} is owned by user ${st.uid}, not by this process's user ${uid}`, { path: dir });
      }
      if ((st.mode & 0o077) !== 0) {
        const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
        throw new StateDirectoryError('Permissions', `state directory ${dir} has mode ${mode}: others may read it; run chmod 700 ${dir}`, { path: dir });
      }
    }
    const lock = join(dir, STATE_LOCK_FILE);
    /** @type {string} */
    let text = '';
    try {
      text = await readFile(lock, 'utf8');
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'ENOENT') throw io('read its lock', e);
    }
    const holder = Number.parseInt(text.trim(), 10);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new StateDirectoryError(
        'Locked',
        `state directory ${dir} is in use by another process (pid ${holder}): two processes of one identity must not share it unknowingly; give this one its own`,
        { path: dir, pid: holder },
      );
    }
    try {
      await writeFile(lock, `${process.pid}\n`, { mode: 0o600 });
    } catch (e) {
      throw io('write its lock', e);
    }
    return new StateDirectory(dir);
  }

  /** The directory. */
  get path() {
    return this.#path;
  }

  /**
   * The known-brokers file of this directory (`connect`'s `knownBrokers`).
   * @returns {Promise<KnownBrokersFile>}
   */
  knownBrokers() {
    return KnownBrokersFile.open(this.#path);
  }

  /**
   * The state-anchors file of this directory (the sealed consumer's and
   * producer's `stateAnchors`).
   * @returns {Promise<StateAnchorsFile>}
   */
  stateAnchors() {
    return StateAnchorsFile.open(this.#path);
  }

  /** Let go of the directory: its lock is emptied if it still names this process. */
  async close() {
    if (!this.#open) return;
    this.#open = false;
    const lock = join(this.#path, STATE_LOCK_FILE);
    const text = await readFile(lock, 'utf8').catch(() => '');
    if (Number.parseInt(text.trim(), 10) === process.pid) await writeFile(lock, '');
  }
}
