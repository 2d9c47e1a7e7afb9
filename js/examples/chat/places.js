// Where the chat page's conversations show, and who is in them: pure
// lookups of `state` (ui.js) — the list entry a topic shows under, a
// contact's pairwise topic, the accounts of a conversation or of a list
// entry, the name to show for an account — and the list entries' titles.
// No DOM beyond `state`, no network, no MLS operation.
//
// Layers (imports run one way, nothing imports back up):
//   app.js → conversations.js → trust.js → places.js → ui.js, store.js
// This module is the floor shared by conversations.js and trust.js: it
// imports only ui.js and store.js.

import * as store from './store.js';
import { shortFp, state } from './ui.js';

/** @import { Contact, Entry } from './ui.js' */

/** @param {Contact} c @returns {Entry} */
export function contactEntry(c) {
  const flag = c.rotation ? ' · key changed: not confirmed' : c.verified ? ' · verified' : '';
  return { id: `c:${c.fp}`, title: c.name, kind: 'contact', info: `fingerprint ${c.key.fingerprint().toString()}${flag}` };
}

/** @param {string} topic @returns {Entry} */
export function groupEntry(topic) {
  const place = state.placements[topic];
  const f = state.followed.get(topic);
  const accounts = f ? [...new Set(f.conv.members.map((m) => m.account.toHex()))] : [];
  const names = accounts.map((a) => (a === state.account ? 'you' : displayName(a)));
  // A group made here has the name given; one joined is named by its members (MLS carries no name).
  const title = (place?.kind === 'group' && place.name) || names.filter((n) => n !== 'you').join(', ') || 'group';
  const devices = f ? f.conv.members.length : 0;
  const info = f ? `${accounts.length} members (${devices} devices): ${names.join(', ')} · epoch ${f.conv.epoch}${f.conv.removed ? ' · you were removed' : ''}` : `topic ${topic}`;
  return { id: `g:${topic}`, title, kind: 'group', info };
}

/** The name to show for an account fingerprint: own contact name first. @param {string} fp */
export function displayName(fp) {
  if (fp === state.account) return state.name;
  const c = state.contacts.get(fp);
  if (c) return c.name;
  for (const x of state.contacts.values()) {
    if (x.rotation?.key.fingerprint().toHex() === fp) return `${x.name} (new key, not confirmed)`;
    if (x.previous?.includes(fp)) return `${x.name} (old key)`;
  }
  return `unknown ${shortFp(fp)}`;
}

/**
 * The list entry a topic's messages show under.
 * @param {string} topic
 */
export function entryOf(topic) {
  const place = state.placements[topic];
  return place?.kind === 'contact' ? `c:${place.peer}` : `g:${topic}`;
}

/** The MLS topic a contact's chat sends to: the first (by topic) pairwise one. @param {string} peer */
export function pairwiseTopic(peer) {
  return Object.entries(state.placements)
    .filter(([t, p]) => p.kind === 'contact' && p.peer === peer && state.followed.has(t) && !state.followed.get(t)?.conv.removed)
    .map(([t]) => t)
    .sort()[0];
}

/** Saves where each conversation shows (`state.placements`: under a contact, or as a group and its name). */
export async function savePlacements() {
  await store.put('convs', state.placements);
}

/** The accounts (fingerprint hex) with devices in a followed conversation. @param {string} topic */
export function membersOf(topic) {
  const f = state.followed.get(topic);
  return f ? [...new Set(f.conv.members.map((m) => m.account.toHex()))] : [];
}

/** The accounts a list entry sends to. @param {string} entryId */
export function accountsOf(entryId) {
  if (entryId.startsWith('c:')) {
    const topic = pairwiseTopic(entryId.slice(2));
    return [entryId.slice(2), ...(topic ? membersOf(topic) : [])];
  }
  return entryId.startsWith('g:') ? membersOf(entryId.slice(2)) : [];
}
