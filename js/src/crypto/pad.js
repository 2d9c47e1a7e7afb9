// Padmé padding (client/src/crypto/envelope.rs): a PADDED plaintext ends with
// `0x80 0x00*` up to a Padmé bucket, so only O(log log L) bits of its length
// show. Lengths are JS numbers (exact up to 2^53; plaintexts stop at 2^32).

/**
 * Padmé: the bucket a length is rounded up to (at most ~12 % overhead).
 * @param {number} len a non-negative integer
 * @returns {number}
 */
export function padme(len) {
  if (!Number.isSafeInteger(len) || len < 0) throw new RangeError('padme: length must be a non-negative safe integer');
  if (len < 2) return len;
  const e = len.toString(2).length - 1; // floor(log2 len) >= 1
  const s = e.toString(2).length; // floor(log2 e) + 1
  const unit = 2 ** (e - s);
  return Math.ceil(len / unit) * unit;
}

/**
 * Length of a padded plaintext: `len + 1` (the 0x80 marker) rounded to Padmé.
 * @param {number} len
 * @returns {number}
 */
export function paddedLen(len) {
  return padme(len + 1);
}

/**
 * `plaintext` followed by `0x80 0x00*` up to `paddedLen(plaintext.length)`.
 * @param {Uint8Array} plaintext
 * @returns {Uint8Array}
 */
export function pad(plaintext) {
  const out = new Uint8Array(paddedLen(plaintext.length));
  out.set(plaintext);
  out[plaintext.length] = 0x80;
  return out;
}

/**
 * Length of the content before `0x80 0x00*`, or `undefined` if the padding is malformed.
 * @param {Uint8Array} padded
 * @returns {number|undefined}
 */
export function unpaddedLen(padded) {
  let i = padded.length - 1;
  while (i >= 0 && padded[i] === 0) i--;
  if (i < 0 || padded[i] !== 0x80) return undefined;
  return i;
}
