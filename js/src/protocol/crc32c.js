/**
 * CRC-32C (Castagnoli), the checksum of every record batch (PROTOCOL.md §5):
 * reflected polynomial 0x82F63B78, initial value and final xor 0xFFFFFFFF.
 *
 * Table-driven, eight bytes per step ("slicing by 8"): eight 256-entry tables
 * built once at load, so a 1 MiB fetch is checked in about a millisecond
 * without WebAssembly or a native addon.
 *
 * @module protocol/crc32c
 */

const POLY = 0x82f63b78;

/** @type {Uint32Array[]} T[k][b]: the CRC of byte b followed by k zero bytes. */
const T = (() => {
  const tables = [];
  for (let k = 0; k < 8; k++) tables.push(new Uint32Array(256));
  for (let b = 0; b < 256; b++) {
    let c = b;
    for (let i = 0; i < 8; i++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    tables[0][b] = c >>> 0;
  }
  for (let b = 0; b < 256; b++) {
    let c = tables[0][b];
    for (let k = 1; k < 8; k++) {
      c = tables[0][c & 0xff] ^ (c >>> 8);
      tables[k][b] = c >>> 0;
    }
  }
  return tables;
})();

/**
 * Continue a CRC-32C over `bytes`.
 *
 * `crc32cUpdate(crc32cUpdate(0, a), b) === crc32c(concat(a, b))`.
 *
 * @param {number} crc the CRC so far (0 to start)
 * @param {Uint8Array} bytes
 * @param {number} [start] first byte to include (default 0)
 * @param {number} [end] byte after the last one to include (default `bytes.length`)
 * @returns {number} the CRC as an unsigned 32-bit number
 */
export function crc32cUpdate(crc, bytes, start = 0, end = bytes.length) {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = T;
  let c = ~crc >>> 0;
  let i = start;
  const stop8 = end - ((end - start) & 7);
  while (i < stop8) {
    const lo = (c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))) >>> 0;
    c =
      t7[lo & 0xff] ^
      t6[(lo >>> 8) & 0xff] ^
      t5[(lo >>> 16) & 0xff] ^
      t4[lo >>> 24] ^
      t3[bytes[i + 4]] ^
      t2[bytes[i + 5]] ^
      t1[bytes[i + 6]] ^
      t0[bytes[i + 7]];
    i += 8;
  }
  while (i < end) {
    c = t0[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    i++;
  }
  return ~c >>> 0;
}

/**
 * CRC-32C of `bytes[start..end]`.
 *
 * @param {Uint8Array} bytes
 * @param {number} [start]
 * @param {number} [end]
 * @returns {number} unsigned 32-bit CRC
 */
export function crc32c(bytes, start = 0, end = bytes.length) {
  return crc32cUpdate(0, bytes, start, end);
}
