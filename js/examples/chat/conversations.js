// The chat page's conversations (docs/MLS.md §11.8): the conversation list
// and its header (members, alerts, safety number), contacts and MLS groups
// and their members, the devices of this account, following each
// conversation and this device's Welcomes, and sending. Who is who
// (safety numbers, rotations, stale and refused lists) is trust.js.
//
// Layers (imports run one way, nothing imports back up):
//   app.js → conversations.js → trust.js → places.js → ui.js, store.js
// trust.js does not import this module: what it calls here (select,
// addEntry, renderMemberChoices, drainEvents) is handed to it below, once,
// by `registerUpcalls`.

import { ClientError, Fingerprint, PublicKey, fromHex, toBase64 } from '../../src/index.js';
import { Conversation, MlsError } from '../../src/mls/index.js';
import { accountsOf, contactEntry, displayName, entryOf, groupEntry, membersOf, pairwiseTopic, savePlacements } from './places.js';
import * as store from './store.js';
import { blockers, checkEntry, parseContact, refuseIfBlocked, registerUpcalls, renderAlerts, saveContacts, showSafety, trustLine } from './trust.js';
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

// What trust.js calls up here (function declarations: defined before this runs).
registerUpcalls({ select, addEntry, renderMemberChoices, drainEvents });

// ---- contacts, conversations ---------------------------------------------------

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
 * Puts `text` (an invite) in the contact field, as if typed.
 * @param {string} text
 */
export function setContactField(text) {
  const input = /** @type {HTMLTextAreaElement} */ ($('contact-key'));
  input.value = text;
  input.dispatchEvent(new Event('input'));
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
    case 'splitView': {
      // Another member holds another list of an account than this device (docs/MLS.md §4.7): an error, once per record, account and member.
      const held = e.seen === 0 ? 'none' : `version ${e.seen}`;
      const text =
        `The broker showed ${displayName(e.member.account.toHex())} a different device list of ${displayName(e.account.toHex())} ` +
        `(version ${e.version}; you hold ${held}): your views of who is in this conversation differ — compare safety numbers.`;
      trustLine(conv, 'error', text, `${topic}/0/${e.offset}/split-view/${e.account.toHex()}/${e.member.device.toHex()}`);
      showError(`Conversation ${topic}`, new Error(text));
      return;
    }
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
  const { joined: topics, refused } = await onDevice(() => Conversation.acceptWelcomesReporting(device));
  // A Welcome the device-list check refused (docs/MLS.md §4.3): not joined, shown.
  for (const r of refused) {
    showError('An invitation was refused', new Error(r.reason), `device ${shortFp(r.device.toHex())} of account ${displayName(r.account.toHex())} is not on its device list: ${r.reason}`);
  }
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
