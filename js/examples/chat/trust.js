// Who is who, on the chat page (docs/MLS.md §4.5, issue 37): the
// safety number of this account and a contact (digits and QR code, "mark
// verified"), and each contact's directory topic read for a newer device
// list and for an account-key rotation, with tiered alerts — a stale list
// is a notice, a rotation a blocking warning (nothing is sent to that
// contact until the user confirms the new key), a refused list or rotation
// an error. Also what the contact field holds (a key, an invite or a
// fingerprint), the contacts' storage, and the check every sending path
// makes (`refuseIfBlocked`).
//
// Layers (imports run one way, nothing imports back up):
//   app.js → conversations.js → trust.js → places.js → ui.js, store.js
// This module sits below conversations.js and does not import it. The few
// things it must call back up there — select a list entry, add or refresh
// one, redraw the group form's member choices, process a conversation's
// new records — conversations.js hands in once, when it loads
// (`registerUpcalls`), before anything here runs.

import { encode as encodeQr } from 'uqr';
import { ClientError, Fingerprint, PublicKey, fromHex, safetyNumber } from '../../src/index.js';
import { MlsError } from '../../src/mls/index.js';
import { accountsOf, contactEntry, entryOf, membersOf, savePlacements } from './places.js';
import * as store from './store.js';
import { $, action, onConversation, renderMessage, shortFp, showError, state } from './ui.js';

/** @import { Device } from '../../src/mls/index.js' */
/** @import { Contact, Entry, Followed } from './ui.js' */

/** How often every contact's directory topic is read for a rotation or a newer list (ms). */
const TRUST_CHECK_MS = 60_000;
const DAY_MS = 24 * 3600 * 1000;
/** The safety number's QR payload: this prefix (with the format version), then the 60 digits. */
export const SAFETY_QR_PREFIX = 'hermit-safety:0:';

/**
 * What this module calls in conversations.js, the layer above it
 * (importing that module here would make a circle).
 * @typedef {object} Upcalls
 * @property {(id: string) => void} select shows a list entry (`c:<fp>`, `g:<topic>`) as the open conversation
 * @property {(entry: Entry) => void} addEntry adds or refreshes a list entry
 * @property {() => void} renderMemberChoices redraws the contacts offered by the new-group form
 * @property {(f: Followed) => Promise<void>} drainEvents processes, shows and acknowledges a conversation's new records
 */

/** @type {Upcalls | undefined} */
let upcalls;

/**
 * Hands this module what it calls in conversations.js; called once, by
 * conversations.js when it loads.
 * @param {Upcalls} calls
 */
export function registerUpcalls(calls) {
  upcalls = calls;
}

/** @returns {Upcalls} */
function up() {
  if (!upcalls) throw new Error('trust.js: conversations.js has not registered its callbacks');
  return upcalls;
}

// ---- the contact field: a key, an invite or a fingerprint ----------------------

/**
 * What the contact field holds: a public key (SPKI base64), an invite
 * (`hermit-contact:<fp hex>#<name hint>`, as `hermit contacts invite`
 * prints, or this page's link `…#contact=<fp hex>&name=<hint>`) or a bare
 * fingerprint; null for anything else. The hint is what the invite says.
 * @param {string} text
 * @returns {Promise<{ fp: string, key: PublicKey | null, hint: string | null } | null>}
 */
export async function parseContact(text) {
  try {
    const key = await PublicKey.fromSpkiBase64(text);
    return { fp: key.fingerprint().toHex(), key, hint: null };
  } catch {
    // not a key: an invite?
  }
  const decode = (/** @type {string|undefined} */ h) => {
    try {
      return h ? decodeURIComponent(h).trim().slice(0, 64) || null : null;
    } catch {
      return null;
    }
  };
  let m = /^hermit-contact:([0-9a-fA-F]{64})(?:#(.*))?$/.exec(text);
  if (m) return { fp: m[1].toLowerCase(), key: null, hint: decode(m[2]) };
  m = /#(?:.*&)?contact=([0-9a-fA-F]{64})(?:&|$)/.exec(text);
  if (m) return { fp: m[1].toLowerCase(), key: null, hint: decode(/[#&]name=([^&]*)/.exec(text)?.[1]) };
  m = /^([0-9a-fA-F]{64})$/.exec(text.replace(/\s/g, ''));
  return m ? { fp: m[1].toLowerCase(), key: null, hint: null } : null;
}

// ---- safety numbers ------------------------------------------------------------

/** Safety numbers computed, per account fingerprint (5,200 SHA-512s per key: once). @type {Map<string, Promise<string>>} */
const safetyNumbers = new Map();

/**
 * The safety number of this account and `key` (12 groups of 5 digits), computed once per key.
 * @param {PublicKey} key
 * @returns {Promise<string>}
 */
function safetyOf(key) {
  const fp = key.fingerprint().toHex();
  let number = safetyNumbers.get(fp);
  if (!number) {
    number = safetyNumber(/** @type {Device} */ (state.device).account, key).then((n) => n.toString());
    safetyNumbers.set(fp, number);
  }
  return number;
}

/**
 * Shows the safety number of this account and the contact in the
 * conversation's header, as digits and as a QR code (`hermit-safety:0:` and
 * the 60 digits), with its verified state and the button to mark it.
 * @param {Contact} c
 */
export function showSafety(c) {
  const box = $('conv-safety');
  box.hidden = false;
  void safetyOf(c.key).then((digits) => {
    if (state.selected !== `c:${c.fp}`) return;
    $('safety-digits').textContent = digits;
    $('safety-qr').replaceChildren(qrSvg(SAFETY_QR_PREFIX + digits.replace(/ /g, '')));
    $('safety-state').textContent = c.verified ? 'verified' : 'not verified: compare these digits with theirs (in person, or over a channel you trust), or scan their QR code';
    $('safety-state').dataset.verified = String(Boolean(c.verified));
    /** @type {HTMLButtonElement} */ ($('safety-mark')).hidden = Boolean(c.verified) || Boolean(c.rotation);
  });
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * A QR code of `text` as an SVG element made with the DOM (no markup
 * parsed, no inline style: the page's CSP allows neither): one path whose
 * dark modules are unit squares, `M x y h1v1h-1z` each, on a light
 * background, the quiet zone included (4 modules).
 * @param {string} text
 * @returns {SVGSVGElement}
 */
export function qrSvg(text) {
  const qr = encodeQr(text, { ecc: 'M', border: 4 });
  const svg = /** @type {SVGSVGElement} */ (document.createElementNS(SVG_NS, 'svg'));
  svg.setAttribute('viewBox', `0 0 ${qr.size} ${qr.size}`);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'QR code of the safety number');
  svg.dataset.testid = 'safety-qr';
  svg.dataset.payload = text;
  const bg = document.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', String(qr.size));
  bg.setAttribute('height', String(qr.size));
  bg.setAttribute('fill', '#fff');
  let d = '';
  qr.data.forEach((row, y) => row.forEach((dark, x) => void (dark && (d += `M${x} ${y}h1v1h-1z`))));
  const path = document.createElementNS(SVG_NS, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(bg, path);
  return svg;
}

/** Marks the selected contact verified (per device: not synced to your other devices). */
export async function markVerified() {
  const fp = state.selected?.startsWith('c:') ? state.selected.slice(2) : null;
  const c = fp ? state.contacts.get(fp) : undefined;
  if (!c) return;
  c.verified = true;
  await saveContacts();
  up().addEntry(contactEntry(c));
  showSafety(c);
}

// ---- who is who: rotations, stale lists, refused lists -------------------------

/** Saves the contacts: name, key, verified, a key change not confirmed, keys given up. */
export async function saveContacts() {
  await store.put(
    'contacts',
    [...state.contacts.values()].map((c) => ({
      name: c.name,
      spki: c.key.toSpkiBase64(),
      verified: Boolean(c.verified),
      rotation: c.rotation ? { spki: c.rotation.key.toSpkiBase64(), issuedAt: c.rotation.issuedAt } : undefined,
      previous: c.previous ?? [],
    })),
  );
}

/** The fingerprint (hex) a contact's key moves to, unconfirmed. @param {Contact} c */
const newFpOf = (c) => c.rotation?.key.fingerprint().toHex();

/**
 * The contacts whose key change is not confirmed, with a device of the old
 * or the new account among `accounts`.
 * @param {string[]} accounts
 * @returns {Contact[]}
 */
export function blockers(accounts) {
  return [...state.contacts.values()].filter((c) => c.rotation && (accounts.includes(c.fp) || accounts.includes(/** @type {string} */ (newFpOf(c)))));
}

/**
 * Throws when `accounts` include a contact whose key changed unconfirmed:
 * no message, invite, add or removal goes there until the user confirms.
 * @param {string[]} accounts
 */
export function refuseIfBlocked(accounts) {
  const b = blockers(accounts);
  if (b.length === 0) return;
  const names = b.map((c) => c.name).join(', ');
  throw new Error(`${names}'s account key changed: nothing is sent to ${names} until you confirm the new key`);
}

/** The read of each contact's directory topic under way (one at a time per contact). @type {Map<string, Promise<boolean>>} */
const checking = new Map();

/**
 * Reads the directory topics of the contacts of a list entry (opened by the user).
 * @param {string} entryId
 */
export async function checkEntry(entryId) {
  const accounts = accountsOf(entryId);
  const contacts = [...state.contacts.values()].filter((c) => accounts.includes(c.fp));
  let changed = false;
  for (const c of contacts) changed = (await checkContact(c).catch(() => false)) || changed;
  if (changed && state.selected === entryId) up().select(entryId);
}

/**
 * Every TRUST_CHECK_MS, every contact's directory topic (the page reads
 * them when it starts, too). Runs for as long as the page is open.
 */
export async function watchContacts() {
  for (;;) {
    let changed = false;
    for (const c of [...state.contacts.values()]) {
      try {
        changed = (await checkContact(c)) || changed;
      } catch (e) {
        if (e instanceof ClientError && e.code === 'Closed') return;
      }
    }
    if (changed && state.selected) up().select(state.selected);
    await new Promise((r) => setTimeout(r, TRUST_CHECK_MS));
  }
}

/**
 * Reads `c`'s directory topic (once, if a read is under way: its answer):
 * its device list (a refused one is an error; one signed over
 * LIST_STALE_AFTER_MS ago is flagged stale) and its rotation statement (a
 * valid one other than the change already waiting: the key changed, a
 * blocking warning; a forged or future-dated one: an error, nothing
 * changes). Whether what
 * the page shows changed.
 * @param {Contact} c
 * @returns {Promise<boolean>}
 */
function checkContact(c) {
  const running = checking.get(c.fp);
  if (running) return running;
  const run = readDirectory(c).finally(() => checking.delete(c.fp));
  checking.set(c.fp, run);
  return run;
}

/** @param {Contact} c @returns {Promise<boolean>} */
async function readDirectory(c) {
  const device = state.device;
  if (!device || state.contacts.get(c.fp) !== c) return false;
  const now = Date.now();
  const before = JSON.stringify([c.staleDays, c.trustError, newFpOf(c)]);
  /** @type {unknown} */
  let trouble = null;
  try {
    const list = await device.deviceList(c.key.fingerprint());
    c.staleDays = list.isStale(now) ? Math.floor((now - list.issuedAt) / DAY_MS) : undefined;
  } catch (e) {
    if (e instanceof ClientError) throw e;
    if (!(e instanceof MlsError && e.code === 'NoDeviceList')) trouble = e;
  }
  {
    try {
      // Another statement than the pending one (its owner's later one, or a
      // thief's) is a change of its own: shown again.
      const statement = await device.rotationOf(c.key);
      const same = statement && c.rotation && c.rotation.key.equals(statement.newKey) && c.rotation.issuedAt === statement.issuedAt;
      if (statement && !same) await keyChanged(c, statement);
    } catch (e) {
      if (e instanceof ClientError) throw e;
      trouble ??= e;
    }
  }
  const message = trouble === null ? undefined : trouble instanceof Error ? trouble.message : String(trouble);
  if (message !== undefined && message !== c.trustError) {
    // Refused (a forged list or rotation, a rollback, an equivocation): an error; the pinned key stays.
    showError(`Refused what the broker serves for ${c.name}`, trouble, `${message}. Nothing changed: ${c.name}'s pinned key stays.`);
    for (const conv of entriesWith(c)) trustLine(conv, 'error', `Refused: ${message}. Nothing changed: ${c.name}'s pinned key stays.`);
  }
  c.trustError = message;
  return before !== JSON.stringify([c.staleDays, c.trustError, newFpOf(c)]);
}

/** The list entries of the conversations with `c` (the pair, and each group with its old or new account). @param {Contact} c */
function entriesWith(c) {
  const fps = [c.fp, newFpOf(c)];
  const out = new Set([`c:${c.fp}`]);
  for (const topic of state.followed.keys()) if (membersOf(topic).some((a) => fps.includes(a))) out.add(entryOf(topic));
  return [...out];
}

/**
 * A valid rotation statement for `c`: the key changed, not confirmed.
 * "Verified" is reset and nothing is sent to either key until the user confirms.
 * @param {Contact} c
 * @param {import('../../src/mls/index.js').RotationStatement} statement
 */
async function keyChanged(c, statement) {
  c.rotation = { key: statement.newKey, issuedAt: statement.issuedAt };
  c.verified = false;
  await saveContacts();
  const newFp = statement.newKey.fingerprint().toHex();
  for (const conv of entriesWith(c)) {
    trustLine(conv, 'warning', `${c.name}'s account key changed (to ${shortFp(newFp)}…, signed ${new Date(statement.issuedAt).toLocaleString()}). Nothing is sent to ${c.name} here until you confirm the new key.`, `rotation:${c.fp}:${newFp}:${conv}`);
  }
  up().addEntry(contactEntry(c));
}

/**
 * A line in a conversation, in the look of its tier (stored, once per `id`).
 * @param {string} conv @param {'notice'|'warning'|'error'} tier @param {string} text @param {string} [id]
 */
export function trustLine(conv, tier, text, id = `trust:${crypto.randomUUID()}`) {
  const m = { id, conv, dir: 'system', kind: `trust-${tier}`, tier, from: '', fromName: '', text, ts: Date.now(), state: 'system' };
  renderMessage(m);
  void store.putMessage(m).catch((e) => showError('Cannot store a line', e));
}

/**
 * The header's alerts for a conversation, one per contact in it: a refused
 * list or rotation (error), a key change to confirm (blocking warning, with
 * the new safety number and the Confirm button), a stale list (notice).
 * @param {Entry} entry
 */
export function renderAlerts(entry) {
  const box = $('conv-alerts');
  box.replaceChildren();
  const accounts = accountsOf(entry.id);
  for (const c of state.contacts.values()) {
    if (!accounts.includes(c.fp) && !accounts.includes(/** @type {string} */ (newFpOf(c)))) continue;
    if (c.trustError) box.append(alert('error', `Refused what the broker serves for ${c.name}: ${c.trustError}. Nothing changed: ${c.name}'s pinned key stays.`));
    if (c.rotation) box.append(rotationAlert(c, c.rotation));
    if (c.staleDays !== undefined) {
      box.append(alert('notice', `${c.name}'s device list was signed ${c.staleDays} days ago: ${c.name}'s devices renew it weekly, so newer ones may be withheld from you.`));
    }
  }
  box.hidden = box.childElementCount === 0;
}

/** @param {'notice'|'warning'|'error'} tier @param {string} text */
function alert(tier, text) {
  const div = document.createElement('div');
  div.className = 'alert';
  div.dataset.tier = tier;
  div.dataset.testid = `alert-${tier}`;
  const p = document.createElement('p');
  p.textContent = text;
  div.append(p);
  return div;
}

/**
 * The blocking warning of a key change: what happened, the new safety
 * number, and Confirm.
 * @param {Contact} c @param {{ key: PublicKey, issuedAt: number }} rotation
 */
function rotationAlert(c, rotation) {
  const div = alert(
    'warning',
    `${c.name}'s account key changed (a statement signed by the old key and the new one, ${new Date(rotation.issuedAt).toLocaleString()}). ` +
      `Nothing is sent to ${c.name} until you confirm. "Verified" was reset: compare the new safety number with ${c.name} first.`,
  );
  const digits = document.createElement('code');
  digits.dataset.testid = 'new-safety-number';
  const qr = document.createElement('div');
  qr.className = 'qr';
  void safetyOf(rotation.key).then((n) => {
    digits.textContent = n;
    qr.replaceChildren(qrSvg(SAFETY_QR_PREFIX + n.replace(/ /g, '')));
  });
  const label = document.createElement('span');
  label.className = 'small';
  label.textContent = `New safety number with ${c.name}`;
  const confirm = document.createElement('button');
  confirm.type = 'button';
  confirm.dataset.testid = 'confirm-key';
  confirm.textContent = 'Confirm new key';
  confirm.addEventListener('click', () => {
    confirm.disabled = true;
    void action(`Cannot confirm ${c.name}'s new key`, () => confirmRotation(c)).finally(() => (confirm.disabled = false));
  });
  div.append(label, digits, qr, confirm);
  return div;
}

/**
 * The user confirms `c`'s new key: the new account's device list is
 * fetched (signed by the new key, remembered: trust on first use of the new
 * list), the contact's key is replaced (its name kept, "verified" reset),
 * and in every conversation with the old account its devices are replaced
 * by the new account's. A further rotation of the new key shows as its own
 * warning (one step per confirmation).
 * @param {Contact} c
 */
async function confirmRotation(c) {
  const device = /** @type {Device} */ (state.device);
  const rotation = c.rotation;
  if (!rotation || state.contacts.get(c.fp) !== c) return;
  const list = await device.deviceList(rotation.key.fingerprint());
  if (!list.account.equals(rotation.key)) throw new Error(`the device list of ${c.name}'s new account is not signed by the new key`);
  const oldFp = c.fp;
  const newFp = rotation.key.fingerprint().toHex();
  /** @type {Contact} */
  const next = { name: c.name, key: rotation.key, fp: newFp, verified: false, previous: [...(c.previous ?? []), oldFp] };
  state.contacts.delete(oldFp);
  state.contacts.set(newFp, next);
  for (const place of Object.values(state.placements)) if (place.kind === 'contact' && place.peer === oldFp) place.peer = newFp;
  await savePlacements();
  await saveContacts();
  // The old entry's lines now show under the new one.
  state.entries.delete(`c:${oldFp}`);
  document.querySelector(`#conversations li[data-conv="c:${oldFp}"]`)?.remove();
  for (const li of document.querySelectorAll(`#messages li[data-conv="c:${oldFp}"]`)) /** @type {HTMLElement} */ (li).dataset.conv = `c:${newFp}`;
  up().addEntry(contactEntry(next));
  up().renderMemberChoices();
  for (const f of [...state.followed.values()]) {
    if (f.conv.removed || !membersOf(f.conv.topic).includes(oldFp)) continue;
    await onConversation(f, (cv) => cv.removeAccount(Fingerprint.fromBytes(fromHex(oldFp))));
    await onConversation(f, (cv) => cv.invite(rotation.key.fingerprint()));
    await up().drainEvents(f);
    trustLine(entryOf(f.conv.topic), 'notice', `You confirmed ${c.name}'s new key: ${c.name}'s old devices were replaced by the new account's.`);
  }
  up().select(`c:${newFp}`);
  await checkContact(next);
  up().select(`c:${newFp}`);
}
