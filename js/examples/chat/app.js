// The HermitMQ chat page: plain ES modules, no framework, no build step.
//
// Every message is sealed in this page (ENVELOPE v1 through the SDK's
// SealedProducer) and opened in the reader's page; the broker stores and
// forwards ciphertext only. Topics:
// - `inbox.<fingerprint hex>`: one per user. Anyone authenticated may produce
//   to it, only its owner may read it (the chat-inbox ACL, docs/SECURITY.md §3).
//   A message to a contact is one DIRECT record in the contact's inbox.
// - `group.<32 hex>`: one per group; each message is one MULTI record for the
//   other members. A group is announced to its members by an invite (a DIRECT
//   message in their inboxes whose text starts with INVITE_PREFIX).
//
// Message text is always rendered with textContent, never as HTML.
//
// The connection is the SDK's reconnecting client: when the broker restarts
// or the network drops, the status badge follows the client's states
// (connecting, connected, disconnected with the reason and the next try,
// gave up), messages typed meanwhile are shown as pending and go out once it
// is back (the producer resends what was not acknowledged, byte for byte;
// the readers drop the second copy of a resent record), and reading goes on
// where it stopped.

import {
  BrokerIdChanged,
  ClientError,
  KeyFile,
  Identity,
  Producer,
  PublicKey,
  SealedConsumer,
  SealedProducer,
  connect,
  toHex,
  utf8,
} from '../../src/index.js';
import * as store from './store.js';

/** The first line of a group invite; the rest is JSON. */
const INVITE_PREFIX = 'hermit-chat/invite v1\n';
const GROUP_TOPIC = /^group\.[0-9a-f]{32}$/;
const MAX_GROUP = 16;

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/**
 * The broker's WebSocket: the page's own host (the broker serves the page
 * from `web_root`), unless the deployed page names another in
 * `<meta name="hermitmq-broker" content="wss://broker.example.com">` (a page
 * with an origin of its own, docs/OPERATIONS.md; its Content-Security-Policy
 * `connect-src` must name the same broker). No URL parameter may point it
 * elsewhere: a link to this page naming another broker would hand that broker
 * who talks to whom.
 */
const WS_URL = brokerUrl();

/** @returns {string} */
function brokerUrl() {
  const own = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
  const named = document.querySelector('meta[name="hermitmq-broker"]')?.getAttribute('content');
  if (!named) return own;
  const url = new URL(named);
  if ((url.protocol !== 'wss:' && url.protocol !== 'ws:') || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`<meta name="hermitmq-broker"> must be ws(s)://host[:port], not ${named}`);
  }
  return `${url.protocol}//${url.host}`;
}

/**
 * @typedef {{ name: string, key: PublicKey, fp: string }} Contact
 * @typedef {{ name: string, topic: string, members: Array<{ name: string, key: PublicKey, fp: string }> }} Group
 * @typedef {{ id: string, title: string, kind: 'contact'|'group'|'topic', info: string, notForMe?: number }} Conversation
 */

const state = {
  /** @type {Identity|null} */ identity: null,
  /** @type {string} */ name: '',
  /** @type {string} */ fp: '',
  /** @type {import('../../src/index.js').Client|null} */ client: null,
  /** @type {SealedProducer|null} */ sealed: null,
  /** @type {Map<string, Contact>} */ contacts: new Map(),
  /** @type {Map<string, Group>} */ groups: new Map(),
  /** @type {Map<string, SealedConsumer>} topic → consumer */ consumers: new Map(),
  /** @type {Map<string, Conversation>} */ conversations: new Map(),
  /** @type {string|null} */ selected: null,
  /** @type {Record<string, string>} */ seqs: {},
};

// ---- errors and status -------------------------------------------------------

/**
 * Show an error to the user (and the console); nothing is dropped silently.
 * @param {string} context
 * @param {unknown} err
 * @param {string} [message] what to say instead of the error's own message
 * @returns {HTMLLIElement}
 */
function showError(context, err, message) {
  const e = /** @type {any} */ (err);
  const li = document.createElement('li');
  li.dataset.testid = 'error';
  li.dataset.code = String(e?.status ?? e?.kind ?? e?.code ?? 'Error');
  const text = document.createElement('span');
  text.textContent = `${context}: ${message ?? e?.message ?? String(err)}`;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'dismiss';
  close.textContent = '×';
  close.title = 'Dismiss';
  close.addEventListener('click', () => li.remove());
  li.append(text, close);
  $('errors').append(li);
  console.error(context, err);
  return li;
}

/**
 * @param {'idle'|import('../../src/index.js').ConnectionStateName} s
 * @param {string} text
 * @param {string} [detail] shown on hover (the reason of a drop)
 */
function setStatus(s, text, detail = '') {
  const el = $('status');
  el.dataset.state = s;
  el.textContent = text;
  el.title = detail;
}

/**
 * The badge follows the connection; messages typed while it is down are
 * pending, and sending again once it is up.
 * @param {import('../../src/index.js').ConnectionStateChange} c
 * @param {boolean} connectedOnce whether `connect` returned (else a failure is its, and it says so)
 */
function onConnectionState(c, connectedOnce) {
  switch (c.state) {
    case 'connecting':
      setStatus('connecting', c.attempt > 1 ? `reconnecting to ${WS_URL} (attempt ${c.attempt})…` : `connecting to ${WS_URL}…`);
      break;
    case 'connected':
      setStatus('connected', `connected · ${WS_URL}`);
      markOutgoing('pending', 'sending');
      break;
    case 'disconnected':
      setStatus('disconnected', `disconnected · retrying in ${(c.retryInMs / 1000).toFixed(1)} s`, c.reason.message);
      markOutgoing('sending', 'pending');
      break;
    case 'gave-up':
      setStatus('gave-up', `not connected · ${WS_URL}`, c.reason.message);
      if (!connectedOnce) break;
      if (c.reason instanceof BrokerIdChanged) brokerChanged(c.reason);
      else showError('The connection to the broker is lost', c.reason, `${c.reason.message}; reload the page to connect again`);
      break;
    case 'closed':
      setStatus('closed', 'closed');
      break;
  }
}

/**
 * Outgoing messages not acknowledged yet, from one state to the other.
 * @param {'pending'|'sending'} from
 * @param {'pending'|'sending'} to
 */
function markOutgoing(from, to) {
  for (const li of document.querySelectorAll(`#messages li.message[data-dir="out"][data-state="${from}"]`)) setMessageState(/** @type {HTMLElement} */ (li), to);
}

/**
 * An outgoing message's state, on the element and in words.
 * @param {HTMLElement} li
 * @param {string} s
 */
function setMessageState(li, s) {
  li.dataset.state = s;
  const label = li.querySelector('.state');
  if (label) label.textContent = { pending: 'pending: sent when the connection is back', sending: 'sending…', failed: 'not sent' }[s] ?? '';
}

/**
 * Run an async UI action with the busy indicator, reporting its error.
 * @param {string} context
 * @param {() => Promise<void>} fn
 */
async function action(context, fn) {
  $('busy').hidden = false;
  try {
    await fn();
  } catch (e) {
    showError(context, e);
  } finally {
    $('busy').hidden = true;
  }
}

/** A hue from a conversation id (the hex of a fingerprint or a topic). @param {string} id */
function hue(id) {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

/** "3f2a 9c01 5be7 0d11" (the first 64 bits, for labels). @param {string} hex */
const shortFp = (hex) => hex.slice(0, 16).replace(/(.{4})(?=.)/g, '$1 ');

// ---- setup: create, import or unlock an identity ----------------------------

async function init() {
  const saved = await store.get('identity');
  if (saved) {
    const file = await KeyFile.fromArmor(saved.armor);
    $('stored-fingerprint').textContent = `${saved.name} · ${file.publicKey.fingerprint().toString()}`;
    $('unlock-panel').hidden = false;
  } else {
    $('create-panel').hidden = false;
    $('import-panel').hidden = false;
  }

  $('create-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot create the identity', async () => {
      const name = /** @type {HTMLInputElement} */ ($('new-name')).value.trim();
      const password = /** @type {HTMLInputElement} */ ($('new-password')).value;
      const identity = await Identity.generate();
      const file = await KeyFile.wrap(identity, password);
      await store.put('identity', { armor: file.toArmor(), name });
      await store.unlockStorage(password, file.kdfParams());
      await start(identity, name, file);
    });
  });

  $('import-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot import the key file', async () => {
      const name = /** @type {HTMLInputElement} */ ($('import-name')).value.trim();
      const armor = /** @type {HTMLTextAreaElement} */ ($('import-armor')).value;
      const password = /** @type {HTMLInputElement} */ ($('import-password')).value;
      const file = await KeyFile.fromArmor(armor.trim() + '\n');
      const identity = await file.unlock(password);
      await store.put('identity', { armor: file.toArmor(), name });
      await store.unlockStorage(password, file.kdfParams());
      await start(identity, name, file);
    });
  });

  $('unlock-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot unlock', async () => {
      const password = /** @type {HTMLInputElement} */ ($('unlock-password')).value;
      const file = await KeyFile.fromArmor(saved.armor);
      const identity = await file.unlock(password);
      // The same password opens the key that encrypts the stored messages.
      await store.unlockStorage(password, file.kdfParams());
      await start(identity, saved.name, file);
    });
  });

  $('forget-btn').addEventListener('click', () => {
    if (!confirm('Delete the key file, contacts and messages from this browser? Without a backup the identity is gone.')) return;
    action('Cannot forget the identity', async () => {
      await store.clear();
      location.reload();
    });
  });
}

/**
 * Show the chat, connect and start reading.
 * @param {Identity} identity
 * @param {string} name
 * @param {KeyFile} file
 */
async function start(identity, name, file) {
  state.identity = identity;
  state.name = name;
  state.fp = identity.fingerprint().toHex();
  $('setup').hidden = true;
  $('app').hidden = false;
  $('own-name').textContent = name;
  $('own-fingerprint').textContent = identity.fingerprint().toString();
  /** @type {HTMLTextAreaElement} */ ($('own-pubkey')).value = identity.publicKey.toSpkiBase64();
  /** @type {HTMLTextAreaElement} */ ($('own-armor')).value = file.toArmor();
  document.title = `${name} · HermitMQ chat`;

  for (const c of (await store.get('contacts')) ?? []) {
    const key = await PublicKey.fromSpkiBase64(c.spki);
    state.contacts.set(key.fingerprint().toHex(), { name: c.name, key, fp: key.fingerprint().toHex() });
  }
  for (const g of (await store.get('groups')) ?? []) state.groups.set(g.topic, await groupFromStored(g));
  state.seqs = (await store.get('seqs')) ?? {};
  for (const c of state.contacts.values()) addConversation(contactConversation(c));
  for (const g of state.groups.values()) addConversation(groupConversation(g));
  renderMemberChoices();
  const { messages: old, unreadable } = await store.allMessages();
  for (const m of old.sort((a, b) => a.ts - b.ts)) renderMessage(m);
  if (unreadable.length > 0) {
    showError('Stored messages do not open', new Error(`${unreadable.length} stored record(s) were modified or moved (${unreadable.slice(0, 3).join(', ')}); they are not shown`));
  }

  await goOnline();
}

/**
 * Connect to the broker — refused if it presents another broker id than
 * the one this page pinned for its name and port (trust on first use) —
 * then send and read. A failed connect is shown, and the page stays
 * offline.
 */
async function goOnline() {
  const identity = /** @type {Identity} */ (state.identity);
  let client;
  let connectedOnce = false;
  try {
    // Reconnects with backoff and full jitter, up to 10 s apart, for as long
    // as the page is open; every reconnect checks the pinned broker id and
    // authenticates again.
    client = await connect(WS_URL, {
      identity,
      knownBrokers: store.knownBrokers,
      reconnect: { initialDelayMs: 250, maxDelayMs: 10_000 },
      onStateChange: (c) => onConnectionState(c, connectedOnce),
    });
  } catch (e) {
    // The first connection is not retried: the page stays offline.
    if (e instanceof BrokerIdChanged) brokerChanged(e);
    else showError(`Cannot connect to ${WS_URL}`, e);
    return;
  }
  connectedOnce = true;
  state.client = client;
  // A message waits for the broker as long as the page is open (shown pending).
  const producer = new Producer(client, { lingerMs: 2, deliveryTimeoutMs: Infinity });
  state.sealed = await SealedProducer.create(producer, identity, { stateAnchors: store.stateAnchors });
  for (const [topic, last] of Object.entries(state.seqs)) state.sealed.resumeTopic(topic, BigInt(last));

  await listen(`inbox.${state.fp}`, [...state.contacts.values()].map((c) => c.key), 'inbox');
  for (const g of state.groups.values()) await listenGroup(g);
  if (!state.selected) {
    const first = state.conversations.keys().next();
    if (!first.done) select(first.value);
  }
  document.body.dataset.ready = 'true';
}

/**
 * Another broker answers under the pinned name and port: say so, and let
 * the user forget the pin if the broker was replaced on purpose.
 * @param {BrokerIdChanged} e
 */
function brokerChanged(e) {
  const where = `${e.dialledName}:${e.port}`;
  const li = showError(
    `Refused the broker at ${where}`,
    e,
    `it presented broker id ${toHex(e.presented)}, but this page pinned ${toHex(e.pinned)} for ${where}: ` +
      'another broker answers under this name, so this page signed and sent nothing. ' +
      'If the broker was replaced on purpose (a new data directory; a restore or a move keeps BROKER_ID), Forget it in this page and connect again; otherwise do not use it.',
  );
  const forget = document.createElement('button');
  forget.type = 'button';
  forget.className = 'forget-broker secondary';
  forget.textContent = `Forget ${where}`;
  forget.title = `Forget the broker id pinned for ${where} and connect, pinning the one it presents now`;
  forget.addEventListener('click', () => {
    forget.disabled = true;
    action(`Cannot forget the broker at ${where}`, async () => {
      await store.knownBrokers.forget(e.dialledName, e.port);
      li.remove();
      await goOnline();
    });
  });
  li.insertBefore(forget, li.lastElementChild);
}

// ---- contacts, groups, conversations ----------------------------------------

/** @param {Contact} c @returns {Conversation} */
function contactConversation(c) {
  return { id: `c:${c.fp}`, title: c.name, kind: 'contact', info: `fingerprint ${c.key.fingerprint().toString()}` };
}

/** @param {Group} g @returns {Conversation} */
function groupConversation(g) {
  const names = g.members.map((m) => (m.fp === state.fp ? 'you' : displayName(m.fp, m.name)));
  return { id: `g:${g.topic}`, title: g.name, kind: 'group', info: `group of ${g.members.length}: ${names.join(', ')} · topic ${g.topic}` };
}

/** @param {{ name: string, topic: string, members: Array<{ name: string, spki: string }> }} g @returns {Promise<Group>} */
async function groupFromStored(g) {
  const members = [];
  for (const m of g.members) {
    const key = await PublicKey.fromSpkiBase64(m.spki);
    members.push({ name: m.name, key, fp: key.fingerprint().toHex() });
  }
  return { name: g.name, topic: g.topic, members };
}

/** @param {Group} g */
function groupToStored(g) {
  return { name: g.name, topic: g.topic, members: g.members.map((m) => ({ name: m.name, spki: m.key.toSpkiBase64() })) };
}

async function saveGroups() {
  await store.put('groups', [...state.groups.values()].map(groupToStored));
}

/** The name to show for a fingerprint: own contact name first. @param {string} fp @param {string} [fallback] */
function displayName(fp, fallback) {
  if (fp === state.fp) return state.name;
  return state.contacts.get(fp)?.name ?? fallback ?? `unknown ${shortFp(fp)}`;
}

/** @param {Conversation} conv */
function addConversation(conv) {
  state.conversations.set(conv.id, conv);
  let li = /** @type {HTMLElement|null} */ (document.querySelector(`#conversations li[data-conv="${CSS.escape(conv.id)}"]`));
  if (!li) {
    li = document.createElement('li');
    li.dataset.conv = conv.id;
    li.dataset.kind = conv.kind;
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.testid = 'conversation';
    b.addEventListener('click', () => select(conv.id));
    li.append(b);
    $('conversations').append(li);
  }
  const b = /** @type {HTMLButtonElement} */ (li.firstElementChild);
  b.replaceChildren();
  // An initial on a colour derived from the fingerprint (or topic): the same
  // person looks the same in every browser.
  const icon = document.createElement('span');
  icon.className = 'avatar';
  icon.textContent = conv.kind === 'topic' ? '#' : (conv.title.trim()[0] ?? '?').toUpperCase();
  icon.style.background = `hsl(${hue(conv.id)} 55% 45%)`;
  const title = document.createElement('span');
  title.className = 'title';
  title.textContent = conv.title;
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.dataset.count = '0';
  b.append(icon, title, badge);
}

/** @param {string} id */
function select(id) {
  const conv = state.conversations.get(id);
  if (!conv) return;
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
  $('conv-title').textContent = conv.title;
  $('conv-info').textContent = conv.info;
  $('messages').dataset.conv = id;
  for (const m of document.querySelectorAll('#messages .message')) {
    const el = /** @type {HTMLElement} */ (m);
    el.hidden = el.dataset.conv !== id;
  }
  const canSend = conv.kind !== 'topic';
  /** @type {HTMLInputElement} */ ($('compose-text')).disabled = !canSend;
  /** @type {HTMLButtonElement} */ ($('send-btn')).disabled = !canSend;
  scrollDown();
}

function scrollDown() {
  const list = $('messages');
  list.scrollTop = list.scrollHeight;
}

function renderMemberChoices() {
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

function setupForms() {
  const keyInput = /** @type {HTMLTextAreaElement} */ ($('contact-key'));
  keyInput.addEventListener('input', async () => {
    const preview = $('contact-fp-preview');
    const text = keyInput.value.trim();
    if (!text) return void (preview.textContent = '');
    try {
      const key = await PublicKey.fromSpkiBase64(text);
      preview.textContent = `fingerprint ${key.fingerprint().toString()}`;
      preview.dataset.valid = 'true';
    } catch (e) {
      preview.textContent = `not a public key: ${/** @type {Error} */ (e).message}`;
      preview.dataset.valid = 'false';
    }
  });

  $('contact-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot add the contact', async () => {
      const name = /** @type {HTMLInputElement} */ ($('contact-name')).value.trim();
      const key = await PublicKey.fromSpkiBase64(keyInput.value.trim());
      const fp = key.fingerprint().toHex();
      if (fp === state.fp) throw new Error('that is your own public key');
      const contact = { name, key, fp };
      state.contacts.set(fp, contact);
      await store.put('contacts', [...state.contacts.values()].map((c) => ({ name: c.name, spki: c.key.toSpkiBase64() })));
      await state.consumers.get(`inbox.${state.fp}`)?.trust(key);
      addConversation(contactConversation(contact));
      renderMemberChoices();
      /** @type {HTMLFormElement} */ ($('contact-form')).reset();
      $('contact-fp-preview').textContent = '';
      select(`c:${fp}`);
    });
  });

  $('group-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot create the group', async () => {
      const name = /** @type {HTMLInputElement} */ ($('group-name')).value.trim();
      const chosen = [...document.querySelectorAll('#group-members input:checked')].map((el) => /** @type {HTMLInputElement} */ (el).value);
      if (chosen.length < 2) throw new Error('choose at least two contacts (a group of three or more)');
      if (chosen.length + 1 > MAX_GROUP) throw new Error(`at most ${MAX_GROUP} members`);
      const id = /** @type {Identity} */ (state.identity);
      const members = [{ name: state.name, key: id.publicKey, fp: state.fp }];
      for (const fp of chosen) {
        const c = /** @type {Contact} */ (state.contacts.get(fp));
        members.push({ name: c.name, key: c.key, fp });
      }
      const topic = `group.${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;
      const group = { name, topic, members };
      await joinGroup(group);
      const invite = INVITE_PREFIX + JSON.stringify(groupToStored(group));
      // One invite per member, DIRECT in their inbox: only they can read it.
      for (const m of members) {
        if (m.fp === state.fp) continue;
        const d = await /** @type {SealedProducer} */ (state.sealed).send(`inbox.${m.fp}`, null, utf8(invite), [m.key]);
        await d.delivered;
        await rememberSeq(`inbox.${m.fp}`, d.seq);
      }
      systemMessage(`g:${topic}`, `You created the group and invited ${members.slice(1).map((m) => m.name).join(', ')}.`);
      /** @type {HTMLFormElement} */ ($('group-form')).reset();
      select(`g:${topic}`);
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
      addConversation({ id: `t:${topic}`, title: topic, kind: 'topic', info: `reading ${topic} (from the beginning)` });
      select(`t:${topic}`);
      await listen(topic, [...state.contacts.values()].map((c) => c.key), 'topic');
    });
  });

  $('copy-pubkey').addEventListener('click', () => {
    const text = /** @type {HTMLTextAreaElement} */ ($('own-pubkey')).value;
    navigator.clipboard.writeText(text).catch((e) => showError('Cannot copy (select the text instead)', e));
  });
}

/**
 * Join a group (its creator, or on an invite): remember it and read its topic.
 * @param {Group} group
 */
async function joinGroup(group) {
  if (state.groups.has(group.topic)) return;
  state.groups.set(group.topic, group);
  await saveGroups();
  addConversation(groupConversation(group));
  await listenGroup(group);
}

/** @param {Group} g */
function listenGroup(g) {
  return listen(g.topic, g.members.filter((m) => m.fp !== state.fp).map((m) => m.key), 'group');
}

// ---- sending -----------------------------------------------------------------

/** @param {string} topic @param {bigint} seq */
async function rememberSeq(topic, seq) {
  const prev = state.seqs[topic] ? BigInt(state.seqs[topic]) : 0n;
  if (seq <= prev) return;
  state.seqs[topic] = seq.toString();
  await store.put('seqs', state.seqs);
}

/**
 * Seal `text` for the conversation and send it: DIRECT to a contact's inbox,
 * MULTI to the other members on a group's topic.
 * @param {string} convId
 * @param {string} text
 */
async function sendText(convId, text) {
  const sealed = /** @type {SealedProducer} */ (state.sealed);
  let topic;
  let recipients;
  if (convId.startsWith('c:')) {
    const c = /** @type {Contact} */ (state.contacts.get(convId.slice(2)));
    topic = `inbox.${c.fp}`;
    recipients = [c.key];
  } else {
    const g = /** @type {Group} */ (state.groups.get(convId.slice(2)));
    topic = g.topic;
    recipients = g.members.filter((m) => m.fp !== state.fp).map((m) => m.key);
  }
  // Typed while the connection is down: shown pending, sent once it is back.
  const pending = state.client?.state !== 'connected';
  const m = { id: `out:${crypto.randomUUID()}`, conv: convId, dir: 'out', from: state.fp, fromName: state.name, text, ts: Date.now(), state: pending ? 'pending' : 'sending' };
  const el = renderMessage(m);
  try {
    const d = await sealed.send(topic, null, utf8(text), recipients);
    const at = await d.delivered;
    await rememberSeq(topic, d.seq);
    m.state = 'sent';
    m.id = `${topic}/${at.partition}/${at.offset}`;
    setMessageState(el, 'sent');
    el.dataset.id = m.id;
    await store.putMessage(m);
  } catch (e) {
    setMessageState(el, 'failed');
    showError(`Your message to ${state.conversations.get(convId)?.title ?? convId} was not sent`, e);
  }
}

// ---- receiving ---------------------------------------------------------------

/**
 * Read `topic` with a SealedConsumer and show what opens.
 * @param {string} topic
 * @param {PublicKey[]} trusted
 * @param {'inbox'|'group'|'topic'} kind
 */
async function listen(topic, trusted, kind) {
  if (state.consumers.has(topic)) return;
  const client = /** @type {import('../../src/index.js').Client} */ (state.client);
  const identity = /** @type {Identity} */ (state.identity);
  // A group of our own (the ACL's default `{principal}.*`) keeps our place.
  const options = kind === 'topic' ? { start: /** @type {const} */ ('earliest') } : { group: `${state.fp}.chat`, autoCommitMs: 2000, stateAnchors: store.stateAnchors };
  const consumer = await SealedConsumer.create(client, identity, trusted, topic, options);
  state.consumers.set(topic, consumer);
  void (async () => {
    for (;;) {
      let r;
      try {
        r = await consumer.next();
      } catch (e) {
        state.consumers.delete(topic);
        if (!(e instanceof ClientError && e.code === 'Closed')) showError(`Reading ${topic} stopped`, e);
        return;
      }
      if (r.ok) {
        try {
          await received(topic, kind, r);
        } catch (e) {
          showError(`A message on ${topic} could not be shown`, e);
        }
      } else if (r.isNotForMe()) {
        if (kind === 'topic' && !r.own) countNotForMe(topic);
      } else if (r.kind === 'Released') {
        // Held too long (or too many held): the commit now passes it.
        showError(`A record on ${topic} (offset ${r.offset}) that could not be opened is skipped`, r);
      } else {
        // Commits stay held at this record (up to the SDK's bounds on held
        // records): after a reload (with the sender added as a contact, say)
        // it is read again. A replayed record shows here as `Replayed`: the
        // SDK keeps the replay windows in the state topic across reloads.
        showError(`A record on ${topic} (offset ${r.offset}) could not be opened`, r.openError ?? r);
      }
    }
  })();
}

/**
 * On a topic read by hand, say how many records were sealed for others
 * (what a reader without the keys gets from someone else's group topic).
 * @param {string} topic
 */
function countNotForMe(topic) {
  const conv = state.conversations.get(`t:${topic}`);
  if (!conv) return;
  conv.notForMe = (conv.notForMe ?? 0) + 1;
  conv.info = `reading ${topic} from the beginning · ${conv.notForMe} record${conv.notForMe === 1 ? '' : 's'} sealed for others`;
  if (state.selected === conv.id) $('conv-info').textContent = conv.info;
}

/**
 * @param {string} topic
 * @param {'inbox'|'group'|'topic'} kind
 * @param {import('../../src/index.js').OpenedRecord} r
 */
async function received(topic, kind, r) {
  const from = r.sender.toHex();
  let text;
  try {
    text = r.text();
  } catch {
    text = null;
  }
  if (kind === 'inbox' && text !== null && text.startsWith(INVITE_PREFIX)) return invited(from, text.slice(INVITE_PREFIX.length));
  const conv = kind === 'inbox' ? `c:${from}` : kind === 'group' ? `g:${topic}` : `t:${topic}`;
  if (!state.conversations.has(conv)) {
    // A trusted sender with no conversation yet (e.g. a key trusted by an earlier group).
    addConversation({ id: conv, title: displayName(from), kind: 'contact', info: `fingerprint ${r.sender.toString()}` });
  }
  const m = {
    id: `${topic}/${r.partition}/${r.offset}`,
    conv,
    dir: 'in',
    from,
    fromName: displayName(from),
    text: text ?? `(${r.plaintext.length} bytes that are not UTF-8 text)`,
    binary: text === null,
    ts: Number(r.timestampNs / 1000000n),
    mode: r.mode,
    state: 'received',
  };
  if (r.gap?.looksLikeRestart()) {
    // The sender's seqs jumped to its clock floor: a new session (a reload), not lost records.
    systemMessage(conv, `${m.fromName} started a new session.`);
  } else if (r.gap) {
    showError(`Messages from ${m.fromName} on ${topic} are missing`, new Error(`sequence numbers ${r.gap.first}–${r.gap.last} never arrived`));
  }
  renderMessage(m);
  await store.putMessage(m);
}

/** @param {string} from @param {string} json */
async function invited(from, json) {
  const g = JSON.parse(json);
  if (typeof g?.name !== 'string' || typeof g?.topic !== 'string' || !GROUP_TOPIC.test(g.topic) || !Array.isArray(g.members)) {
    throw new Error('malformed group invite');
  }
  if (g.members.length > MAX_GROUP) throw new Error(`group invite with ${g.members.length} members (at most ${MAX_GROUP})`);
  const group = await groupFromStored(g);
  if (!group.members.some((m) => m.fp === state.fp) || !group.members.some((m) => m.fp === from)) {
    throw new Error('group invite that does not list both you and its sender');
  }
  if (state.groups.has(group.topic)) return;
  await joinGroup(group);
  systemMessage(`g:${group.topic}`, `${displayName(from)} added you to “${group.name}”.`);
}

// ---- rendering ---------------------------------------------------------------

/** @param {string} conv @param {string} text */
function systemMessage(conv, text) {
  renderMessage({ id: `sys:${crypto.randomUUID()}`, conv, dir: 'system', from: '', fromName: '', text, ts: Date.now(), state: 'system' });
}

/**
 * Add a message to the list (once per id), text via textContent only.
 * @param {any} m
 * @returns {HTMLElement}
 */
function renderMessage(m) {
  const existing = /** @type {HTMLElement|null} */ (document.querySelector(`#messages li[data-id="${CSS.escape(m.id)}"]`));
  if (existing) return existing;
  const li = document.createElement('li');
  li.className = 'message';
  li.dataset.testid = 'message';
  li.dataset.id = m.id;
  li.dataset.conv = m.conv;
  li.dataset.dir = m.dir;
  li.dataset.from = m.from;
  li.dataset.state = m.state;
  if (m.dir !== 'system') {
    const meta = document.createElement('div');
    meta.className = 'meta';
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = m.dir === 'out' ? 'You' : m.fromName;
    const fp = document.createElement('code');
    fp.className = 'fp';
    fp.textContent = shortFp(m.from);
    const when = document.createElement('time');
    when.textContent = new Date(m.ts).toLocaleTimeString();
    meta.append(who, fp, when);
    if (m.dir === 'out') {
      const label = document.createElement('span');
      label.className = 'state';
      label.dataset.testid = 'message-state';
      meta.append(label);
    }
    li.append(meta);
  }
  const text = document.createElement('div');
  text.className = 'text';
  text.dataset.testid = 'message-text';
  text.textContent = m.text;
  li.append(text);
  if (m.dir === 'out') setMessageState(li, m.state);
  li.hidden = m.conv !== state.selected;
  $('messages').append(li);
  if (m.conv === state.selected) scrollDown();
  else {
    const badge = /** @type {HTMLElement|null} */ (document.querySelector(`#conversations li[data-conv="${CSS.escape(m.conv)}"] .badge`));
    if (badge && m.dir === 'in') {
      badge.dataset.count = String(Number(badge.dataset.count) + 1);
      badge.textContent = badge.dataset.count;
    }
  }
  return li;
}

window.addEventListener('unhandledrejection', (ev) => showError('Unexpected error', ev.reason));
setupForms();
init().catch((e) => showError('The page could not start', e));
