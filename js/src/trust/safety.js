// Safety numbers: Signal's numeric fingerprint, adapted to HermitMQ accounts
// (docs/SECURITY.md §6), byte-identical with Rust's
// client/src/trust/safety.rs; both are checked against
// client/tests/vectors/safety_numbers.json.
//
// Each account gets 30 digits (its half) from its key alone; the safety
// number of two accounts is their two halves in ascending order, so both
// people see the same 60 digits.

import { concat } from '../bytes.js';
import { KeyError, PublicKey } from '../crypto/identity.js';
import { subtle } from '../crypto/webcrypto.js';

// The format version, hashed first as a big-endian u16.
const VERSION = 0;
// SHA-512 iterations after the first hash: Signal's count, a work factor for
// anyone searching for a key whose half matches someone else's.
const ITERATIONS = 5200;
// Each half is read from this many 5-byte chunks of the final hash.
const CHUNKS = 6;
const CHUNK_LEN = 5;
const CHUNK_DIGITS = 5;

/** Digits of one account's half (`CHUNKS × CHUNK_DIGITS`). */
export const HALF_DIGITS = 30;
/** Digits of a safety number. */
export const SAFETY_NUMBER_DIGITS = 60;

/**
 * @param {Uint8Array} data
 * @returns {Promise<Uint8Array>}
 */
async function sha512(data) {
  return new Uint8Array(await subtle().digest('SHA-512', /** @type {BufferSource} */ (data)));
}

/**
 * @param {unknown} key
 * @param {string} name
 * @returns {PublicKey}
 */
function checkKey(key, name) {
  if (!(key instanceof PublicKey)) throw new KeyError('InvalidArgument', `${name} must be a PublicKey`);
  return key;
}

/**
 * The 30 digits of one account, from its key alone: what the account's owner
 * and everyone who holds the same key compute for it.
 *
 * `h = SHA-512(u16 0 ‖ SPKI ‖ fingerprint)`, then 5,200 times
 * `h = SHA-512(h ‖ SPKI)`; the first 30 bytes of `h` as six big-endian 5-byte
 * integers, each mod 100,000 and written as 5 digits.
 * @param {PublicKey} publicKey
 * @returns {Promise<string>}
 * @throws {KeyError} kind `InvalidArgument` if `publicKey` is not a `PublicKey`
 */
export async function accountHalf(publicKey) {
  const key = checkKey(publicKey, 'publicKey');
  const spki = key.toSpki();
  const version = Uint8Array.of(VERSION >> 8, VERSION & 0xff);
  let h = await sha512(concat(version, spki, key.fingerprint().asBytes()));
  // One buffer `h ‖ SPKI` for every iteration: the SPKI part never changes.
  const input = new Uint8Array(h.length + spki.length);
  input.set(spki, h.length);
  for (let i = 0; i < ITERATIONS; i++) {
    input.set(h, 0);
    h = await sha512(input);
  }
  let out = '';
  for (let c = 0; c < CHUNKS; c++) {
    // 40 bits: exact in a double (2^53).
    let n = 0;
    for (const b of h.subarray(c * CHUNK_LEN, (c + 1) * CHUNK_LEN)) n = n * 256 + b;
    out += String(n % 10 ** CHUNK_DIGITS).padStart(CHUNK_DIGITS, '0');
  }
  return out;
}

/**
 * The safety number of two accounts: the same whichever is `a`.
 * @param {PublicKey} a
 * @param {PublicKey} b
 * @returns {Promise<SafetyNumber>}
 * @throws {KeyError} kind `InvalidArgument` if either is not a `PublicKey`
 */
export async function safetyNumber(a, b) {
  const [ha, hb] = await Promise.all([accountHalf(checkKey(a, 'a')), accountHalf(checkKey(b, 'b'))]);
  return new SafetyNumber(ha <= hb ? ha + hb : hb + ha, CONSTRUCT);
}

const CONSTRUCT = Symbol('construct');

/**
 * The 60 digits two people compare to check each other's account key.
 * `toString()` gives 12 groups of 5 digits separated by spaces, for reading
 * aloud; `digits` gives them without separators.
 */
export class SafetyNumber {
  #digits;

  /**
   * Use `safetyNumber(a, b)` (the declarations make this constructor private;
   * the token stops a call from outside this module).
   * @param {string} digits
   * @param {symbol} token
   */
  constructor(digits, token) {
    if (token !== CONSTRUCT) throw new TypeError('use safetyNumber(a, b)');
    this.#digits = digits;
  }

  /** @returns {string} the 60 digits, no separators */
  get digits() {
    return this.#digits;
  }

  /**
   * @param {SafetyNumber} other
   * @returns {boolean}
   */
  equals(other) {
    return other instanceof SafetyNumber && this.#digits === other.#digits;
  }

  /** @returns {string} 12 groups of 5 digits separated by spaces */
  toString() {
    return this.#digits.replace(/(\d{5})(?!$)/g, '$1 ');
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `SafetyNumber(${this.toString()})`;
  }
}
