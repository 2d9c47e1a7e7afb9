/**
 * The known-brokers file (Node only): `KnownBrokers` pins kept in
 * `<state directory>/known-brokers`, the same file the Rust SDK and the CLI
 * keep.
 *
 * Format: UTF-8 text, one pin per line — `<dialled name> <port> <broker id>`
 * (fields separated by white space; the name as `dialledName` writes it,
 * the port 1–65535 in decimal, the broker id 32 lowercase hex digits; a
 * name or id written otherwise by hand is read as normalized). Blank lines
 * and lines starting with `#` are ignored; any other line that does not
 * parse, and a second line for the same name and port, is an error naming
 * the file and the line.
 *
 * Writes replace the file atomically (`known-brokers.tmp`, fsync, rename,
 * fsync of the directory). The directory is created mode 0700 and the file
 * 0600; a directory or file that its group or others may access, or that
 * another user owns, is refused.
 *
 * @module client/known-brokers-file
 */

import { mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { fromHex, toHex } from '../bytes.js';
import { dialledName } from '../protocol/auth.js';
import { ClientError } from '../protocol/error.js';
import { BrokerIdChanged } from './known-brokers.js';
import { writeWhole } from './state-file.js';

/** The file's name inside the state directory. */
export const KNOWN_BROKERS_FILE = 'known-brokers';

/** The first lines of a new known-brokers file. */
const HEADER = `# HermitMQ known brokers: <dialled name> <port> <broker id>, one line each,
# pinned the first time this client completed a handshake with that broker.
# Remove a line only if that broker was replaced on purpose (a new data
# directory): a different broker id under a known name is refused.
`;

/** Whether modes and owners mean anything here (not on Windows). */
const POSIX = process.platform !== 'win32';

/**
 * The known-brokers file cannot be used (code `KnownBrokers`); `kind` says
 * why: `Malformed` (a line that does not parse, `line` says which),
 * `Permissions` (group or others may access it, or another user owns it)
 * or `Io` (the file system failed). `path` is the file or directory at fault.
 */
export class KnownBrokersError extends ClientError {
  /**
   * @param {'Malformed'|'Permissions'|'Io'} kind
   * @param {string} message
   * @param {{ path: string, line?: number, cause?: unknown }} details
   */
  constructor(kind, message, details) {
    super('KnownBrokers', message, { cause: details.cause });
    this.name = 'KnownBrokersError';
    /** @type {'Malformed'|'Permissions'|'Io'} */
    this.kind = kind;
    /** The file or directory at fault. @type {string} */
    this.path = details.path;
    /** For `Malformed`: the line (from 1). @type {number|undefined} */
    this.line = details.line;
  }
}

/**
 * @param {string} path
 * @param {string} what
 * @param {unknown} e
 */
function ioError(path, what, e) {
  return new KnownBrokersError('Io', `cannot ${what} ${path}: ${e instanceof Error ? e.message : String(e)}`, { path, cause: e });
}

/**
 * Refuse what another user owns or its group or others may access.
 * @param {import('node:fs').Stats} st
 * @param {string} path
 * @param {'directory'|'file'} kind
 */
function checkPrivate(st, path, kind) {
  if (kind === 'directory' ? !st.isDirectory() : !st.isFile()) {
    throw new KnownBrokersError('Permissions', `${path} is not a ${kind}`, { path });
  }
  if (!POSIX) return;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new KnownBrokersError('Permissions', `the ${kind} ${path} is owned by user ${st.uid}, not by this process's user ${uid}: pins must be the client's own`, { path });
  }
  if ((st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    const fix = kind === 'directory' ? '700' : '600';
    throw new KnownBrokersError('Permissions', `the ${kind} ${path} may be accessed by its group or others (mode ${mode}): run chmod ${fix} ${path}`, { path });
  }
}

/**
 * Parse a known-brokers file.
 * @param {Uint8Array} bytes
 * @param {string} path for messages
 * @returns {Map<string, { name: string, port: number, brokerId: string, line: number }>} by `"name port"`
 */
function parse(bytes, path) {
  // As Rust reads it (from_utf8_lossy, trim, split_whitespace): a byte
  // that is not UTF-8 spoils only its own line.
  const text = new TextDecoder('utf-8').decode(bytes);
  /** @type {Map<string, { name: string, port: number, brokerId: string, line: number }>} */
  const pins = new Map();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const t = lines[i].trim();
    if (t === '' || t.startsWith('#')) continue;
    const bad = (/** @type {string} */ why) => new KnownBrokersError('Malformed', `${path} line ${line}: ${why}`, { path, line });
    const fields = t.split(/\s+/);
    if (fields.length !== 3) throw bad(`expected "<dialled name> <port> <broker id>", found ${fields.length} field${fields.length === 1 ? '' : 's'}`);
    const [host, portText, hex] = fields;
    let name;
    try {
      // A name written by hand counts as the SDKs normalize it.
      name = dialledName(host);
    } catch (e) {
      throw bad(`${JSON.stringify(host)} is not a host name or address: ${e instanceof Error ? e.message : String(e)}`);
    }
    const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : 0;
    if (port < 1 || port > 65535) throw bad(`the port ${JSON.stringify(portText)} is not a number from 1 to 65535`);
    if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw bad(`the broker id ${JSON.stringify(hex)} is not 32 hex digits`);
    const brokerId = hex.toLowerCase();
    const key = `${name} ${port}`;
    const first = pins.get(key);
    if (first) throw bad(`a second pin for ${name} ${port} (the first is on line ${first.line})`);
    pins.set(key, { name, port, brokerId, line });
  }
  return pins;
}

/**
 * Check a name and port as the SDK dials them.
 * @param {string} name
 * @param {number} port
 */
function checkEndpoint(name, port) {
  if (dialledName(name) !== name) throw new ClientError('InvalidArgument', `invalid argument: ${JSON.stringify(name)} is not a normalized dialled name`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ClientError('InvalidArgument', `invalid argument: the port ${port} is not 1..65535`);
}

/**
 * Known brokers kept in a state directory's `known-brokers` file: a
 * `KnownBrokers` store for `connect({ knownBrokers })`. The file is read
 * at each lookup, so a line removed by hand counts at the next connect.
 */
export class KnownBrokersFile {
  /** @type {string} */
  #dir;
  /** @type {string} */
  #path;
  /** Writes in this process, one at a time. @type {Promise<unknown>} */
  #writes = Promise.resolve();

  /**
   * @param {string} dir
   */
  constructor(dir) {
    this.#dir = dir;
    this.#path = join(dir, KNOWN_BROKERS_FILE);
  }

  /**
   * The known brokers of state directory `dir`: the directory is created
   * (mode 0700) if missing; the directory, and the file if it exists, must
   * be private to this user, and the file must parse.
   * @param {string} dir
   * @returns {Promise<KnownBrokersFile>}
   * @throws {KnownBrokersError}
   */
  static async open(dir) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw ioError(dir, 'create the state directory', e);
    }
    const store = new KnownBrokersFile(dir);
    await store.#read();
    return store;
  }

  /** The file's path (what `BrokerIdChanged` tells the user to edit). */
  get path() {
    return this.#path;
  }

  /** Where the pins are kept, for messages: the file's path. */
  get location() {
    return this.#path;
  }

  /**
   * The broker id pinned for a dialled name and port.
   * @param {string} name
   * @param {number} port
   * @returns {Promise<Uint8Array|undefined>}
   */
  async get(name, port) {
    checkEndpoint(name, port);
    const pin = (await this.#read()).get(`${name} ${port}`);
    return pin ? fromHex(pin.brokerId) : undefined;
  }

  /**
   * Pin `brokerId` (16 bytes) for a dialled name and port: a line is added
   * and the file replaced atomically. Pinning the id already pinned does
   * nothing; another one is refused (`BrokerIdChanged`: only a person may
   * replace a pin, by editing the file).
   * @param {string} name
   * @param {number} port
   * @param {Uint8Array} brokerId
   * @returns {Promise<void>}
   */
  async set(name, port, brokerId) {
    checkEndpoint(name, port);
    if (!(brokerId instanceof Uint8Array) || brokerId.length !== 16) throw new ClientError('InvalidArgument', 'invalid argument: a broker id is 16 bytes');
    const write = this.#writes.then(() => this.#add(name, port, toHex(brokerId)));
    this.#writes = write.catch(() => undefined);
    return write;
  }

  /**
   * Every pin, in file order.
   * @returns {Promise<Array<{ name: string, port: number, brokerId: Uint8Array }>>}
   */
  async list() {
    return [...(await this.#read()).values()].map((p) => ({ name: p.name, port: p.port, brokerId: fromHex(p.brokerId) }));
  }

  /**
   * The file's bytes ('' when it does not exist yet), after checking the
   * directory and the file are private.
   * @returns {Promise<Uint8Array>}
   */
  async #bytes() {
    let dirStat;
    try {
      dirStat = await stat(this.#dir);
    } catch (e) {
      throw ioError(this.#dir, 'read the state directory', e);
    }
    checkPrivate(dirStat, this.#dir, 'directory');
    let fh;
    try {
      fh = await open(this.#path, 'r');
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return new Uint8Array(0);
      throw ioError(this.#path, 'open', e);
    }
    try {
      checkPrivate(await fh.stat(), this.#path, 'file');
      return new Uint8Array(await fh.readFile());
    } catch (e) {
      if (e instanceof KnownBrokersError) throw e;
      throw ioError(this.#path, 'read', e);
    } finally {
      await fh.close();
    }
  }

  async #read() {
    return parse(await this.#bytes(), this.#path);
  }

  /**
   * @param {string} name
   * @param {number} port
   * @param {string} hex
   */
  async #add(name, port, hex) {
    const bytes = await this.#bytes();
    const pinned = parse(bytes, this.#path).get(`${name} ${port}`);
    if (pinned?.brokerId === hex) return;
    if (pinned) {
      throw new BrokerIdChanged({ name, port, pinned: fromHex(pinned.brokerId), presented: fromHex(hex), location: this.#path });
    }
    const text = new TextDecoder().decode(bytes);
    const before = text === '' ? HEADER : text.endsWith('\n') ? text : `${text}\n`;
    await this.#replace(`${before}${name} ${port} ${hex}\n`);
  }

  /**
   * Replace the file with `text`: write a temporary file (mode 0600),
   * fsync it, rename it over the file, fsync the directory.
   * @param {string} text
   */
  async #replace(text) {
    try {
      await writeWhole(this.#dir, this.#path, text);
    } catch (e) {
      throw ioError(this.#path, 'write', e);
    }
  }
}
