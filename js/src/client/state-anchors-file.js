/**
 * The `state-anchors` file of a client state directory, the same file and
 * format the Rust SDK keeps (client/src/local/anchors.rs, docs/ENVELOPE.md
 * §13 "The anchor"): per broker and sealed-state key, the newest state
 * record this device wrote or accepted — its generation and SHA-256 of the
 * record.
 *
 *     # broker blinded-key generation sha256(record)
 *     ws://broker.example.com:9093/ 9c01…(32 hex digits) 17 3f2a…(64 hex digits)
 *
 * One line per broker and key, `#` comments and blank lines ignored; the
 * broker is the address the client was given (for the JS SDK its URL),
 * bytes outside printable ASCII, `%` and `#` written `%XX`. Nothing is
 * cached: each look-up reads the file, each update reads it again, changes
 * one line and replaces the file atomically (`state-anchors.tmp`, fsync,
 * rename, fsync of the directory), as `KnownBrokersFile` does.
 *
 * Node only (`hermitmq/node`).
 *
 * @module client/state-anchors-file
 */

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { fromHex, toHex } from '../bytes.js';
import { ClientError } from '../protocol/error.js';
import { escapeBroker } from '../sealed/state.js';
import { writeWhole } from './state-file.js';

/** The file's name inside the state directory. */
export const STATE_ANCHORS_FILE = 'state-anchors';

/** The first line Rust writes. */
const HEADER =
  '# broker blinded-key generation sha256(record): the newest sealed state this device wrote or accepted per broker and key (HermitMQ)\n';

const U64_MAX = (1n << 64n) - 1n;

/**
 * The `state-anchors` file cannot be used (code `StateAnchors`): `kind`
 * `Malformed` (a line that is not `broker blinded-key generation sha256`,
 * or a second line for one broker and key; `line` says which) or `Io`.
 */
export class StateAnchorsError extends ClientError {
  /**
   * @param {'Malformed'|'Io'} kind
   * @param {string} message
   * @param {{ path: string, line?: number, cause?: unknown }} details
   */
  constructor(kind, message, details) {
    super('StateAnchors', message, { cause: details.cause });
    this.name = 'StateAnchorsError';
    /** @type {'Malformed'|'Io'} */
    this.kind = kind;
    /** @type {string} */
    this.path = details.path;
    /** @type {number|undefined} */
    this.line = details.line;
  }
}

/**
 * The address a field names (`null`: not UTF-8, or `%` not followed by two hex digits).
 * @param {string} field
 * @returns {string|null}
 */
function unescapeBroker(field) {
  const out = [];
  for (let i = 0; i < field.length; ) {
    if (field[i] === '%') {
      const h = field.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(h)) return null;
      out.push(parseInt(h, 16));
      i += 3;
    } else {
      out.push(field.charCodeAt(i));
      i += 1;
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(out));
  } catch {
    return null;
  }
}

/**
 * Parse the file: anchors by `"<escaped broker> <key hex>"`.
 * @param {string} text
 * @param {string} path
 * @returns {Map<string, { generation: bigint, record: string }>}
 */
function parse(text, path) {
  /** @type {Map<string, { generation: bigint, record: string }>} */
  const anchors = new Map();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    const bad = () =>
      new StateAnchorsError('Malformed', `${path}, line ${i + 1}: expected \`broker blinded-key generation sha256\` (an address, 32 hex digits, a number, 64 hex digits), once per broker and key`, { path, line: i + 1 });
    const f = line.split(/\s+/);
    if (f.length !== 4) throw bad();
    const [broker, key, generation, record] = f;
    const b = unescapeBroker(broker);
    if (b === null || escapeBroker(b) !== broker) throw bad();
    if (!/^[0-9a-fA-F]{32}$/.test(key) || !/^[0-9a-fA-F]{64}$/.test(record) || !/^[0-9]+$/.test(generation)) throw bad();
    const g = BigInt(generation);
    if (g > U64_MAX) throw bad();
    const k = `${broker} ${key.toLowerCase()}`;
    if (anchors.has(k)) throw bad();
    anchors.set(k, { generation: g, record: record.toLowerCase() });
  }
  return anchors;
}

/**
 * State anchors in `<state directory>/state-anchors`, the `stateAnchors`
 * option of `SealedConsumer.create` and `SealedProducer.create`.
 */
export class StateAnchorsFile {
  /** @type {string} */
  #dir;
  /** @type {string} */
  #path;
  /** Writes in this process, one at a time. @type {Promise<unknown>} */
  #writes = Promise.resolve();

  /** @param {string} dir */
  constructor(dir) {
    this.#dir = dir;
    this.#path = join(dir, STATE_ANCHORS_FILE);
  }

  /**
   * The anchors of state directory `dir` (created, mode 0700, if missing);
   * the file, if present, must parse.
   * @param {string} dir
   * @returns {Promise<StateAnchorsFile>}
   * @throws {StateAnchorsError}
   */
  static async open(dir) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new StateAnchorsError('Io', `cannot create the state directory ${dir}: ${e instanceof Error ? e.message : e}`, { path: dir, cause: e });
    }
    const f = new StateAnchorsFile(dir);
    await f.#read();
    return f;
  }

  /** The file's path. */
  get path() {
    return this.#path;
  }

  /** Where the anchors are kept, for messages: the file's path. */
  get location() {
    return this.#path;
  }

  async #read() {
    let text = '';
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'ENOENT') {
        throw new StateAnchorsError('Io', `cannot read ${this.#path}: ${e instanceof Error ? e.message : e}`, { path: this.#path, cause: e });
      }
    }
    return parse(text, this.#path);
  }

  /**
   * What is anchored at `broker` (the URL dialled) for the blinded key `keyHex`.
   * @param {string} broker
   * @param {string} keyHex
   * @returns {Promise<{ generation: bigint, record: Uint8Array }|undefined>}
   */
  async get(broker, keyHex) {
    const a = (await this.#read()).get(`${escapeBroker(broker)} ${keyHex.toLowerCase()}`);
    return a ? { generation: a.generation, record: fromHex(a.record) } : undefined;
  }

  /**
   * Anchor `anchor` at `broker` for `keyHex`: the file is read, the line
   * changed and the file replaced atomically. Anchors only move up: one
   * below the generation already anchored is ignored.
   * @param {string} broker
   * @param {string} keyHex
   * @param {{ generation: bigint, record: Uint8Array }} anchor
   * @returns {Promise<void>}
   */
  set(broker, keyHex, anchor) {
    const write = this.#writes.then(() => this.#advance(broker, keyHex, anchor));
    this.#writes = write.catch(() => undefined);
    return write;
  }

  /**
   * @param {string} broker
   * @param {string} keyHex
   * @param {{ generation: bigint, record: Uint8Array }} anchor
   */
  async #advance(broker, keyHex, anchor) {
    if (!/^[0-9a-fA-F]{32}$/.test(keyHex) || anchor.record.length !== 32 || anchor.generation < 0n || anchor.generation > U64_MAX) {
      throw new ClientError('InvalidArgument', 'invalid argument: an anchor is a 16-byte key, a u64 generation and a 32-byte hash');
    }
    const anchors = await this.#read();
    const k = `${escapeBroker(broker)} ${keyHex.toLowerCase()}`;
    const now = anchors.get(k);
    const record = toHex(anchor.record);
    if (now && (now.generation > anchor.generation || (now.generation === anchor.generation && now.record === record))) return;
    anchors.set(k, { generation: anchor.generation, record });
    let text = HEADER;
    for (const key of [...anchors.keys()].sort(byBytes)) {
      const a = /** @type {{ generation: bigint, record: string }} */ (anchors.get(key));
      text += `${key} ${a.generation} ${a.record}\n`;
    }
    await this.#replace(text);
  }

  /**
   * Replace the file with `text`: a temporary file (mode 0600), fsync,
   * rename over the file, fsync the directory.
   * @param {string} text
   */
  async #replace(text) {
    try {
      await writeWhole(this.#dir, this.#path, text);
    } catch (e) {
      throw new StateAnchorsError('Io', `cannot write ${this.#path}: ${e instanceof Error ? e.message : e}`, { path: this.#path, cause: e });
    }
  }
}

/**
 * Order as Rust's BTreeMap of (escaped broker, key bytes): the fields are
 * ASCII, so code-unit order is byte order.
 * @param {string} a
 * @param {string} b
 */
function byBytes(a, b) {
  const [ab, ak] = a.split(' ');
  const [bb, bk] = b.split(' ');
  if (ab !== bb) return ab < bb ? -1 : 1;
  return ak < bk ? -1 : ak > bk ? 1 : 0;
}



