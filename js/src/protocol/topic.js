/**
 * Topic, group and cursor naming rules (`protocol/src/topic.rs`).
 *
 * @module protocol/topic
 */

import { ClientError } from './error.js';

/** Longest topic or group name, in bytes. */
export const MAX_NAME_LEN = 249;

const utf8 = new TextEncoder();

/**
 * Why `name` is not a valid user topic name, or `null` if it is
 * (1–249 bytes of `[A-Za-z0-9._-]`, not `.` or `..`, no `__` prefix).
 * @param {string} name
 * @returns {string|null}
 */
export function topicNameError(name) {
  const why = nameCharsError(name);
  if (why !== null) return why;
  if (name.startsWith('__')) return "the '__' prefix is reserved for internal topics";
  return null;
}

/**
 * The charset rules of topic names (every rule but the `__` prefix).
 * @param {string} name
 * @returns {string|null}
 */
function nameCharsError(name) {
  if (typeof name !== 'string' || name.length === 0) return 'name is empty';
  if (name.length > MAX_NAME_LEN) return `name is ${name.length} bytes long (max ${MAX_NAME_LEN})`;
  const bad = name.search(/[^A-Za-z0-9._-]/);
  if (bad >= 0) return `character ${JSON.stringify(name[bad])} at position ${bad} is not allowed (use A-Z a-z 0-9 . _ -)`;
  if (name === '.' || name === '..') return "'.' and '..' are not names";
  return null;
}

/**
 * Why `name` is not a valid ListTopics cursor, or `null` if it is: a topic
 * name by the charset rules, the internal `__` prefix allowed (a cursor is
 * a place in the order of names, and the broker may hand out an internal
 * name as the last one it looked at).
 * @param {string} name
 * @returns {string|null}
 */
export function cursorNameError(name) {
  return nameCharsError(name);
}

/**
 * Why `name` is not a valid group name, or `null` if it is (1–249 bytes of
 * UTF-8 without control characters).
 * @param {string} name
 * @returns {string|null}
 */
export function groupNameError(name) {
  if (typeof name !== 'string' || name.length === 0) return 'name is empty';
  const len = utf8.encode(name).length;
  if (len > MAX_NAME_LEN) return `name is ${len} bytes long (max ${MAX_NAME_LEN})`;
  // Rust's char::is_control: C0, DEL and C1 (control characters are the point here).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'group names must be printable UTF-8';
  return null;
}

/**
 * @param {string} name
 * @returns {Uint8Array}
 */
export function checkTopic(name) {
  const why = topicNameError(name);
  if (why !== null) throw new ClientError('InvalidName', `invalid topic name ${JSON.stringify(name)}: ${why}`);
  return utf8.encode(name);
}

/**
 * @param {string} name
 * @returns {Uint8Array}
 */
export function checkGroup(name) {
  const why = groupNameError(name);
  if (why !== null) throw new ClientError('InvalidName', `invalid group name ${JSON.stringify(name)}: ${why}`);
  return utf8.encode(name);
}
