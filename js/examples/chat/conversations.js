// The chat page's conversations (docs/MLS.md §11.8): contacts, MLS groups
// and their members, the devices of this account, following each
// conversation and this device's Welcomes, and sending; who is who: each
// contact's directory topic is read for a newer device list and for an
// account-key rotation, and the alerts are tiered — a new device is a
// notice, a rotation a blocking warning (nothing is sent to that contact
// until the user confirms the new key), a refused list or rotation an error.

import { encode as encodeQr } from 'uqr';
import { ClientError, Fingerprint, PublicKey, fromHex, safetyNumber, toBase64 } from '../../src/index.js';
import { Conversation, MlsError } from '../../src/mls/index.js';
import * as store from './store.js';
import {
  $,
  action,
  hue,
  onConversation,
  onDevice,
  renderMessage,
  scrollDown,
  setMessageState,
  systemNote,
  shortFp,
  showError,
  state,
  systemMessage,
} from './ui.js';

/** @import { Device } from '../../src/mls/index.js' */
/** @import { Contact, Entry, Followed, Placement } from './ui.js' */

/** How many accounts a group may have (the page's limit, not MLS's). */
const MAX_GROUP = 16;
/** How long one read waits for new records (ms). */
const LONG_POLL_MS = 20_000;
/** How often every contact's directory topic is read for a rotation or a newer list (ms). */
const TRUST_CHECK_MS = 60_000;
const DAY_MS = 24 * 3600 * 1000;
/** The safety number's QR payload: this prefix (with the format version), then the 60 digits. */
export const SAFETY_QR_PREFIX = 'hermit-safety:0:';

// ---- contacts, conversations ---------------------------------------------------

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
function displayName(fp) {
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
function entryOf(topic) {
  const place = state.placements[topic];
  return place?.kind === 'contact' ? `c:${place.peer}` : `g:${topic}`;
}

/** The MLS topic a contact's chat sends to: the first (by topic) pairwise one. @param {string} peer */
function pairwiseTopic(peer) {
  return Object.entries(state.placements)
    .filter(([t, p]) => p.kind === 'contact' && p.peer === peer && state.followed.has(t) && !state.followed.get(t)?.conv.removed)
    .map(([t]) => t)
    .sort()[0];
}

async function savePlacements() {
  await store.put('convs', state.placements);
}

/** @param {Entry} entry */
export function addEntry(entry) {
  state.entries.set(entry.id, entry);
  let li = /** @type {HTMLElement|null} */ (document.querySelector(`#conversations li[data-conv="${CSS.escape(entry.id)}"]`));
  if (!li) {
    li = document.createElement('li');
    li.dataset.conv = entry.id;
    li.dataset.kind = entry.kind;
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.testid = 'conversation';
    b.addEventListener('click', () => {
      select(entry.id);
      void checkEntry(entry.id);
    });
    li.append(b);
    $('conversations').append(li);
  }
  const b = /** @type {HTMLButtonElement} */ (li.firstElementChild);
  const badge = b.querySelector('.badge');
  b.replaceChildren();
  // An initial on a colour derived from the fingerprint (or topic): the same
  // person looks the same in every browser.
  const icon = document.createElement('span');
  icon.className = 'avatar';
  icon.textContent = entry.kind === 'topic' ? '#' : (entry.title.trim()[0] ?? '?').toUpperCase();
  icon.style.background = `hsl(${hue(entry.id)} 55% 45%)`;
  const title = document.createElement('span');
  title.className = 'title';
  title.textContent = entry.title;
  const fresh = document.createElement('span');
  fresh.className = 'badge';
  fresh.dataset.count = /** @type {HTMLElement|null} */ (badge)?.dataset.count ?? '0';
  fresh.textContent = fresh.dataset.count === '0' ? '' : fresh.dataset.count;
  b.append(icon, title, fresh);
  if (state.selected === entry.id) showHead(entry);
}

/** @param {Entry} entry */
function showHead(entry) {
  $('conv-title').textContent = entry.title;
  $('conv-info').textContent = entry.info;
  renderMembers(entry);
  renderAlerts(entry);
  const c = entry.kind === 'contact' ? state.contacts.get(entry.id.slice(2)) : undefined;
  // While a key change waits, the warning shows the new safety number instead.
  if (c && state.device && !c.rotation) showSafety(c);
  else $('conv-safety').hidden = true;
}

/** @param {string} id */
export function select(id) {
  const entry = state.entries.get(id);
  if (!entry) return;
  state.selected = id;
  for (const li of document.querySelectorAll('#conversations li')) {
    const el = /** @type {HTMLElement} */ (li);
    el.classList.toggle('selected', el.dataset.conv === id);
    if (el.dataset.conv === id) {
      const badge = /** @type {HTMLElement} */ (el.querySelector('.badge'));
      badge.dataset.count = '0';
      badge.textContent = '';
    }
  }
  showHead(entry);
  $('messages').dataset.conv = id;
  for (const m of document.querySelectorAll('#messages .message')) {
    const el = /** @type {HTMLElement} */ (m);
    el.hidden = el.dataset.conv !== id;
  }
  const f = entry.kind === 'group' ? state.followed.get(id.slice(2)) : undefined;
  const open = entry.kind === 'contact' || (entry.kind === 'group' && f !== undefined && !f.conv.removed);
  // A contact's key changed and the user has not confirmed it: nothing is sent here (sendText refuses too).
  const canSend = open && blockers(accountsOf(id)).length === 0;
  /** @type {HTMLInputElement} */ ($('compose-text')).disabled = !canSend;
  /** @type {HTMLButtonElement} */ ($('send-btn')).disabled = !canSend;
  scrollDown();
}

/**
 * The members of a group, each account with a Remove button, and an Add
 * form (contacts not in it).
 * @param {Entry} entry
 */
function renderMembers(entry) {
  const box = $('conv-members');
  box.replaceChildren();
  const f = entry.kind === 'group' ? state.followed.get(entry.id.slice(2)) : undefined;
  box.hidden = !f || f.conv.removed;
  if (!f || f.conv.removed) return;
  const accounts = [...new Set(f.conv.members.map((m) => m.account.toHex()))];
  for (const a of accounts) {
    const chip = document.createElement('span');
    chip.className = 'chip';
    chip.dataset.account = a;
    chip.textContent = a === state.account ? 'you' : displayName(a);
    if (a !== state.account) {
      const rm = document.createElement('button');
      rm.type = 'button';
      rm.className = 'dismiss';
      rm.dataset.testid = 'remove-member';
      rm.dataset.account = a;
      rm.title = `Remove ${displayName(a)} (every device) from this conversation`;
      rm.textContent = '×';
      rm.addEventListener('click', () =>
        action(`Cannot remove ${displayName(a)}`, async () => {
          refuseIfBlocked(membersOf(f.conv.topic));
          await onConversation(f, async (c) => c.removeAccount(Fingerprint.fromBytes(fromHex(a))));
          await drainEvents(f);
        }),
      );
      chip.append(rm);
    }
    box.append(chip);
  }
  const add = document.createElement('select');
  add.id = 'add-member';
  add.dataset.testid = 'add-member';
  const none = document.createElement('option');
  none.value = '';
  none.textContent = 'Add a contact…';
  add.append(none);
  for (const c of state.contacts.values()) {
    if (accounts.includes(c.fp)) continue;
    const o = document.createElement('option');
    o.value = c.fp;
    o.textContent = c.name;
    add.append(o);
  }
  add.addEventListener('change', () => {
    const fp = add.value;
    if (!fp) return;
    action(`Cannot add ${displayName(fp)}`, async () => {
      refuseIfBlocked([...membersOf(f.conv.topic), fp]);
      await onConversation(f, async (c) => c.invite(/** @type {Contact} */ (state.contacts.get(fp)).key.fingerprint()));
      await drainEvents(f);
    });
  });
  box.append(add);
}

/** A known account's key (a contact, or this device's own account). @param {string} fp */
async function accountKey(fp) {
  const c = state.contacts.get(fp);
  if (c) return c.key;
  const d = /** @type {Device} */ (state.device);
  if (fp === state.account) return d.account;
  throw new Error(`account ${shortFp(fp)} is not a contact`);
}

export function renderMemberChoices() {
  const box = $('group-members');
  box.replaceChildren();
  if (state.contacts.size === 0) {
    const p = document.createElement('p');
    p.className = 'hint';
    p.textContent = 'Add contacts first.';
    box.append(p);
  }
  for (const c of state.contacts.values()) {
    const label = document.createElement('label');
    label.className = 'member';
    const cb = document.createElement('input');
    cb.type = 'checkbox';
    cb.value = c.fp;
    cb.dataset.testid = 'group-member';
    label.append(cb, document.createTextNode(` ${c.name}`));
    box.append(label);
  }
}

/**
 * A new conversation with these accounts (and this account's other
 * devices), placed as given.
 * @param {Placement} place
 * @param {string[]} accounts
 */
async function newConversation(place, accounts) {
  refuseIfBlocked(accounts);
  const device = /** @type {Device} */ (state.device);
  const conv = await Conversation.create(device);
  state.placements[conv.topic] = place;
  await savePlacements();
  const f = await follow(conv.topic, conv);
  await onConversation(f, async (c) => {
    // Every device of every account (this account's other devices too), in
    // one Commit: a member joins with the whole roster, so its page places
    // the conversation right (two accounts: under the contact).
    const keys = [];
    for (const a of [state.account, ...accounts]) {
      const list = await device.deviceList((await accountKey(a)).fingerprint());
      for (const d of list.devices) keys.push(await PublicKey.fromSec1Bytes(d.key));
    }
    return c.addDevices(keys);
  });
  await drainEvents(f);
  return conv.topic;
}

export function setupForms() {
  const keyInput = /** @type {HTMLTextAreaElement} */ ($('contact-key'));
  keyInput.addEventListener('input', async () => {
    const preview = $('contact-fp-preview');
    const text = keyInput.value.trim();
    if (!text) return void (preview.textContent = '');
    const who = await parseContact(text);
    if (!who) {
      preview.textContent = 'not a public key, an invite or a fingerprint';
      preview.dataset.valid = 'false';
      return;
    }
    const fp = who.fp.replace(/(.{4})(?=.)/g, '$1 ');
    preview.textContent = who.key ? `fingerprint ${fp}` : `fingerprint ${fp} (its key comes from its signed device list)${who.hint ? ` · calls itself “${who.hint}” (unverified)` : ''}`;
    preview.dataset.valid = 'true';
    const name = /** @type {HTMLInputElement} */ ($('contact-name'));
    if (who.hint && !name.value) name.value = who.hint;
  });

  $('contact-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot add the contact', async () => {
      const who = await parseContact(keyInput.value.trim());
      if (!who) throw new Error('not a public key, an invite or a fingerprint');
      // An invite or a fingerprint: the key from the account's signed device list (remembered: trust on first use).
      const key = who.key ?? (await /** @type {Device} */ (state.device).deviceList(Fingerprint.fromBytes(fromHex(who.fp)))).account;
      const fp = key.fingerprint().toHex();
      const name = /** @type {HTMLInputElement} */ ($('contact-name')).value.trim() || who.hint || shortFp(fp);
      if (fp === state.account || fp === state.fp) throw new Error('that is your own account');
      /** @type {Contact} */
      const contact = { name, key, fp };
      state.contacts.set(fp, contact);
      await saveContacts();
      addEntry(contactEntry(contact));
      renderMemberChoices();
      /** @type {HTMLFormElement} */ ($('contact-form')).reset();
      $('contact-fp-preview').textContent = '';
      select(`c:${fp}`);
      // A chat of the two accounts, unless one came in already (or comes with the first message).
      await acceptWelcomes();
      if (!pairwiseTopic(fp)) await newConversation({ kind: 'contact', peer: fp }, [fp]);
      for (const f of state.followed.values()) refreshEntry(f.conv.topic);
    });
  });

  $('group-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot create the group', async () => {
      const name = /** @type {HTMLInputElement} */ ($('group-name')).value.trim();
      const chosen = [...document.querySelectorAll('#group-members input:checked')].map((el) => /** @type {HTMLInputElement} */ (el).value);
      if (chosen.length < 2) throw new Error('choose at least two contacts (a group of three or more)');
      if (chosen.length + 1 > MAX_GROUP) throw new Error(`at most ${MAX_GROUP} members`);
      const topic = await newConversation({ kind: 'group', name }, chosen);
      systemMessage(`g:${topic}`, `You created the group and invited ${chosen.map((fp) => displayName(fp)).join(', ')}.`);
      /** @type {HTMLFormElement} */ ($('group-form')).reset();
      select(`g:${topic}`);
    });
  });

  $('device-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot add the device', async () => {
      const key = await PublicKey.fromSpkiBase64(/** @type {HTMLTextAreaElement} */ ($('device-key')).value.trim());
      const device = /** @type {Device} */ (state.device);
      const binding = await onDevice(() => device.bind(key));
      /** @type {HTMLTextAreaElement} */ ($('device-binding')).value = toBase64(binding);
      $('device-binding-box').hidden = false;
      // Once the new device is online (it publishes KeyPackages), this device adds it to every conversation.
      void addOwnDevices(key);
    });
  });

  $('compose').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = /** @type {HTMLInputElement} */ ($('compose-text'));
    const text = input.value;
    if (!text || !state.selected) return;
    input.value = '';
    void sendText(state.selected, text);
  });

  $('listen-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const topic = /** @type {HTMLInputElement} */ ($('listen-topic')).value.trim();
    action(`Cannot read ${topic}`, async () => {
      addEntry({ id: `t:${topic}`, title: topic, kind: 'topic', info: `reading ${topic} (from the beginning)` });
      select(`t:${topic}`);
      await readForeign(topic);
    });
  });

  $('copy-pubkey').addEventListener('click', () => {
    const text = /** @type {HTMLTextAreaElement} */ ($('own-pubkey')).value;
    navigator.clipboard.writeText(text).catch((e) => showError('Cannot copy (select the text instead)', e));
  });
}

/**
 * What the contact field holds: a public key (SPKI base64), an invite
 * (`hermit-contact:<fp hex>#<name hint>`, as `hermit contacts invite`
 * prints, or this page's link `…#contact=<fp hex>&name=<hint>`) or a bare
 * fingerprint; null for anything else. The hint is what the invite says.
 * @param {string} text
 * @returns {Promise<{ fp: string, key: PublicKey | null, hint: string | null } | null>}
 */
async function parseContact(text) {
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

/**
 * Puts `text` (an invite) in the contact field, as if typed.
 * @param {string} text
 */
export function setContactField(text) {
  const input = /** @type {HTMLTextAreaElement} */ ($('contact-key'));
  input.value = text;
  input.dispatchEvent(new Event('input'));
}

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
function showSafety(c) {
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
  addEntry(contactEntry(c));
  showSafety(c);
}

/**
 * Adds this account's new device `key` to every conversation, once it has
 * KeyPackages (it publishes them when it first comes online): tried again
 * every 2 s for 5 minutes.
 * @param {PublicKey} key
 */
async function addOwnDevices(key) {
  const until = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      for (const f of state.followed.values()) {
        // (A conversation with a contact whose key change is not confirmed gets nothing: not even this Commit.)
        if (f.conv.removed || blockers(membersOf(f.conv.topic)).length > 0) continue;
        await onConversation(f, (c) => c.addDevices([key]));
        await drainEvents(f);
      }
      systemNote(`Your device ${key.fingerprint().toString()} is in every conversation.`);
      return;
    } catch (e) {
      if (!(e instanceof MlsError && e.code === 'NoKeyPackages') || Date.now() > until) {
        showError('Cannot add your new device to the conversations', e);
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

// ---- following conversations ---------------------------------------------------

/**
 * Follows an MLS conversation of this device: opens it, shows it, and reads
 * it (long polls; its events rendered and stored, then acknowledged).
 * @param {string} topic
 * @param {Conversation} [opened]
 * @returns {Promise<Followed>}
 */
export async function follow(topic, opened) {
  const had = state.followed.get(topic);
  if (had) return had;
  const conv = opened ?? (await Conversation.open(/** @type {Device} */ (state.device), topic));
  if (!state.placements[topic]) {
    // Joined from a Welcome: a chat of two accounts shows under the contact.
    const accounts = [...new Set(conv.members.map((m) => m.account.toHex()))].filter((a) => a !== state.account);
    state.placements[topic] = accounts.length === 1 ? { kind: 'contact', peer: accounts[0] } : { kind: 'group', name: '' };
    await savePlacements();
  }
  /** @type {Followed} */
  const f = { conv, place: state.placements[topic], queue: Promise.resolve() };
  state.followed.set(topic, f);
  refreshEntry(topic);
  void readLoop(f);
  return f;
}

/** Updates the list entry a topic shows under. @param {string} topic */
function refreshEntry(topic) {
  const id = entryOf(topic);
  if (id.startsWith('g:')) addEntry(groupEntry(topic));
  else {
    const c = state.contacts.get(id.slice(2));
    addEntry(c ? contactEntry(c) : { id, title: displayName(id.slice(2)), kind: 'contact', info: `fingerprint ${shortFp(id.slice(2))}…` });
  }
}

/** @param {Followed} f */
async function readLoop(f) {
  for (;;) {
    try {
      await drainEvents(f);
      if (f.conv.stuck) return;
      await f.conv.wait(LONG_POLL_MS);
    } catch (e) {
      if (e instanceof ClientError && e.code === 'Closed') return;
      if (e instanceof ClientError && e.retriable) continue;
      showError(`Reading ${f.conv.topic} stopped`, e);
      return;
    }
  }
}

/**
 * Processes what the topic holds, shows and stores the events, then
 * acknowledges them (a reload in between shows them again, once).
 * @param {Followed} f
 */
async function drainEvents(f) {
  await onConversation(f, async (c) => {
    const events = await c.receive();
    for (const e of events) await show(c.topic, e);
    await c.ack(events.length);
  });
  refreshEntry(f.conv.topic);
  if (state.selected === entryOf(f.conv.topic)) select(/** @type {string} */ (state.selected));
}

/**
 * @param {string} topic
 * @param {import('../../src/mls/index.js').MlsEvent} e
 */
async function show(topic, e) {
  const conv = entryOf(topic);
  switch (e.type) {
    case 'message': {
      const from = e.sender.account.toHex();
      const m = {
        id: `${topic}/0/${e.offset}`,
        conv,
        dir: from === state.account ? 'out' : 'in',
        from,
        fromName: displayName(from),
        device: e.sender.device.toHex(),
        text: e.text,
        ts: e.sentAt,
        state: from === state.account ? 'sent' : 'received',
      };
      renderMessage(m);
      await store.putMessage(m);
      return;
    }
    case 'memberAdded': {
      const a = e.member.account.toHex();
      const f = state.followed.get(topic);
      const others = f ? f.conv.members.filter((m) => m.account.toHex() === a && !m.device.equals(e.member.device)) : [];
      const text =
        others.length > 0
          ? `${displayName(a)} added a new device (${e.member.device.toString().slice(0, 19)}) to this conversation.`
          : `${displayName(a)} joined.`;
      return storeSystem(topic, e.offset, 'member-added', text);
    }
    case 'memberRemoved':
      return storeSystem(topic, e.offset, 'member-removed', `${displayName(e.member.account.toHex())} (device ${e.member.device.toString().slice(0, 19)}) left the conversation.`);
    case 'removed':
      return storeSystem(topic, e.offset, 'removed', 'You were removed from this conversation: nothing sent after this opens here.');
    case 'recordRefused':
      return storeSystem(topic, e.offset, 'refused', `A message that cannot be opened here: ${e.reason}.`, 'error');
    case 'forkSuspected':
      trustLine(conv, 'error', `A record of epoch ${e.epoch} (offset ${e.offset}) does not open: the broker may be showing members different logs.`);
      showError(`Conversation ${topic}`, new Error(`a record of epoch ${e.epoch} at offset ${e.offset} does not open: the broker may be showing members different logs; another member must re-add this device`));
      return;
    case 'catchUpImpossible':
      showError(`Conversation ${topic}`, new Error(`the records this device needs (from ${e.next}) are gone (the topic starts at ${e.logStart}); another member must re-add this device`));
      return;
    default:
      return; // epochChanged, commitLost: shown in the header (epoch), nothing to say
  }
}

/**
 * A system line at a record's place, stored like a message.
 * @param {string} topic @param {number} offset @param {string} kind @param {string} text
 * @param {'notice'|'warning'|'error'} [tier] how it looks (a new device: notice)
 */
async function storeSystem(topic, offset, kind, text, tier = 'notice') {
  const m = { id: `${topic}/0/${offset}/${kind}`, conv: entryOf(topic), dir: 'system', kind, tier, from: '', fromName: '', text, ts: Date.now(), state: 'system' };
  renderMessage(m);
  await store.putMessage(m);
}

/** Accepts the Welcomes waiting for this device and follows their conversations. */
async function acceptWelcomes() {
  const device = /** @type {Device} */ (state.device);
  const topics = await onDevice(() => Conversation.acceptWelcomes(device));
  for (const t of topics) await follow(t);
  // Used KeyPackages are replaced.
  if (device.keyPackagesHeld < 5) await onDevice(() => device.publishKeyPackages(10));
  return topics;
}

/** Long-polls this device's Welcome topic for as long as the page is open. */
export async function followWelcomes() {
  for (;;) {
    try {
      // The wait holds nothing: adding a contact meanwhile is not delayed.
      if (await Conversation.waitForWelcome(/** @type {Device} */ (state.device), LONG_POLL_MS)) await acceptWelcomes();
    } catch (e) {
      if (e instanceof ClientError && e.code === 'Closed') return;
      if (e instanceof ClientError && e.retriable) continue;
      showError('Reading invitations stopped', e);
      return;
    }
  }
}

/**
 * Reads a topic this device is not a member of (Advanced): how many
 * records it holds, none of which opens here.
 * @param {string} topic
 */
async function readForeign(topic) {
  const client = /** @type {import('../../src/index.js').Client} */ (state.client);
  const r = await client.fetch(topic, 0, 0, 1 << 20, 0);
  const n = [...r.records(0)].length;
  const entry = /** @type {Entry} */ (state.entries.get(`t:${topic}`));
  entry.info = `reading ${topic} from the beginning · ${n} record${n === 1 ? '' : 's'}, none of which opens without this group's keys`;
  if (state.selected === entry.id) $('conv-info').textContent = entry.info;
}

// ---- sending -----------------------------------------------------------------

/**
 * Seal `text` for the conversation (MLS) and send it.
 * @param {string} entryId
 * @param {string} text
 */
async function sendText(entryId, text) {
  // Typed while the connection is down: shown pending, sent once it is back.
  const pending = state.client?.state !== 'connected';
  const m = { id: `out:${crypto.randomUUID()}`, conv: entryId, dir: 'out', from: state.account, fromName: state.name, text, ts: Date.now(), state: pending ? 'pending' : 'sending' };
  const el = renderMessage(m);
  try {
    // Refused here, not only by the disabled send box: a contact's key changed, unconfirmed.
    refuseIfBlocked(accountsOf(entryId));
    let topic = entryId.startsWith('c:') ? pairwiseTopic(entryId.slice(2)) : entryId.slice(2);
    if (!topic) topic = await newConversation({ kind: 'contact', peer: entryId.slice(2) }, [entryId.slice(2)]);
    const f = /** @type {Followed} */ (state.followed.get(topic));
    const offset = await onConversation(f, (c) => c.send(text));
    m.state = 'sent';
    m.id = `${topic}/0/${offset}`;
    setMessageState(el, 'sent');
    el.dataset.id = m.id;
    await store.putMessage(m);
  } catch (e) {
    setMessageState(el, 'failed');
    showError(`Your message to ${state.entries.get(entryId)?.title ?? entryId} was not sent`, e);
  }
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

/** The accounts (fingerprint hex) with devices in a followed conversation. @param {string} topic */
function membersOf(topic) {
  const f = state.followed.get(topic);
  return f ? [...new Set(f.conv.members.map((m) => m.account.toHex()))] : [];
}

/** The accounts a list entry sends to. @param {string} entryId */
function accountsOf(entryId) {
  if (entryId.startsWith('c:')) {
    const topic = pairwiseTopic(entryId.slice(2));
    return [entryId.slice(2), ...(topic ? membersOf(topic) : [])];
  }
  return entryId.startsWith('g:') ? membersOf(entryId.slice(2)) : [];
}

/** The fingerprint (hex) a contact's key moves to, unconfirmed. @param {Contact} c */
const newFpOf = (c) => c.rotation?.key.fingerprint().toHex();

/**
 * The contacts whose key change is not confirmed, with a device of the old
 * or the new account among `accounts`.
 * @param {string[]} accounts
 * @returns {Contact[]}
 */
function blockers(accounts) {
  return [...state.contacts.values()].filter((c) => c.rotation && (accounts.includes(c.fp) || accounts.includes(/** @type {string} */ (newFpOf(c)))));
}

/**
 * Throws when `accounts` include a contact whose key changed unconfirmed:
 * no message, invite, add or removal goes there until the user confirms.
 * @param {string[]} accounts
 */
function refuseIfBlocked(accounts) {
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
async function checkEntry(entryId) {
  const accounts = accountsOf(entryId);
  const contacts = [...state.contacts.values()].filter((c) => accounts.includes(c.fp));
  let changed = false;
  for (const c of contacts) changed = (await checkContact(c).catch(() => false)) || changed;
  if (changed && state.selected === entryId) select(entryId);
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
    if (changed && state.selected) select(state.selected);
    await new Promise((r) => setTimeout(r, TRUST_CHECK_MS));
  }
}

/**
 * Reads `c`'s directory topic (once, if a read is under way: its answer):
 * its device list (a refused one is an error; one signed over
 * LIST_STALE_AFTER_MS ago is flagged stale) and, unless a key change
 * already waits, a rotation statement (a valid one: the key changed, a
 * blocking warning; a forged one: an error, nothing changes). Whether what
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
  if (!c.rotation) {
    try {
      const statement = await device.rotationOf(c.key);
      if (statement) await keyChanged(c, statement);
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
  addEntry(contactEntry(c));
}

/**
 * A line in a conversation, in the look of its tier (stored, once per `id`).
 * @param {string} conv @param {'notice'|'warning'|'error'} tier @param {string} text @param {string} [id]
 */
function trustLine(conv, tier, text, id = `trust:${crypto.randomUUID()}`) {
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
function renderAlerts(entry) {
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
  addEntry(contactEntry(next));
  renderMemberChoices();
  for (const f of [...state.followed.values()]) {
    if (f.conv.removed || !membersOf(f.conv.topic).includes(oldFp)) continue;
    await onConversation(f, (cv) => cv.removeAccount(Fingerprint.fromBytes(fromHex(oldFp))));
    await onConversation(f, (cv) => cv.invite(rotation.key.fingerprint()));
    await drainEvents(f);
    trustLine(entryOf(f.conv.topic), 'notice', `You confirmed ${c.name}'s new key: ${c.name}'s old devices were replaced by the new account's.`);
  }
  select(`c:${newFp}`);
  await checkContact(next);
  select(`c:${newFp}`);
}
