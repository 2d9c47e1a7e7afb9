/**
 * The partitioner (client/src/partitioner.rs): a keyed record goes to
 * `fnv1a32(key) % partitions`, the same partition from every SDK. (Keyless
 * records go round robin, one batch at a time: that is the producer's.)
 *
 * @module client/partitioner
 */

/**
 * FNV-1a, 32 bits: the partitioner's hash (client/src/partitioner.rs), so a
 * key lands in the same partition from every SDK.
 * @param {Uint8Array} bytes
 * @returns {number}
 */
export function fnv1a32(bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The partition of a keyed record among `partitions` (≥ 1).
 * @param {Uint8Array} key
 * @param {number} partitions
 * @returns {number}
 */
export function partitionForKey(key, partitions) {
  return fnv1a32(key) % Math.max(1, partitions);
}
