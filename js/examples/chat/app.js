// The HermitMQ chat page: plain ES modules, no framework, no build step.
//
// Every conversation is an MLS group (RFC 9420, ciphersuite 2) on the SDK's
// `hermitmq/mls`, with the cryptography on Web Crypto: messages are sealed
// in this page and opened in the readers' pages; the broker stores and
// forwards ciphertext and never holds a key (docs/MLS.md §11). A chat with a
// contact is a group of the two accounts; a group is a group of three or
// more; a conversation's members are devices, so a second device of an
// account (linked here to the account's first device) reads and writes too.
// Topics (the chat-inbox preset, docs/SECURITY.md §3): `mls.<group id>` per
// conversation, `keypackages.<device fp>`, `welcome.<device fp>`,
// `dir.<account fp>` (the account's device list).
//
// One tab works on an identity at a time (Web Locks): a second tab of the
// same profile waits until the first is closed, so the MLS state is never
// changed by two writers.
//
// Message text is always rendered with textContent, never as HTML.
//
// The connection is the SDK's reconnecting client: when the broker restarts
// or the network drops, the status badge follows the client's states,
// messages typed meanwhile are shown as pending and go out once it is back
// (sealed once, the same bytes on every try), and reading goes on where it
// stopped.

import { BrokerIdChanged, ClientError, KeyFile, Identity, PublicKey, connect, fromBase64, toBase64, toHex } from '../../src/index.js';
import { Conversation, Device, IndexedDbStore, MlsError, holdDeviceLock } from '../../src/mls/index.js';
import * as store from './store.js';

/** How many accounts a group may have (the page's limit, not MLS's). */
const MAX_GROUP = 16;
/** How long one read waits for new records (ms). */
const LONG_POLL_MS = 20_000;

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
 * A contact: an account (its key and fingerprint) and the name given here.
 * @typedef {{ name: string, key: PublicKey, fp: string }} Contact
 * What the page shows in its list: a contact (`c:<account fp>`: the pairwise
 * MLS conversations with that account), a group (`g:<topic>`) or a topic
 * read by hand (`t:<topic>`).
 * @typedef {{ id: string, title: string, kind: 'contact'|'group'|'topic', info: string }} Entry
 * Where a topic belongs in the list, kept in `kv` under `convs`.
 * @typedef {{ kind: 'contact', peer: string } | { kind: 'group', name: string }} Placement
 * One MLS conversation the page follows: the SDK's object, its place, and a
 * queue that runs its operations one at a time (a Conversation's methods
 * must not overlap).
 * @typedef {{ conv: Conversation, place: Placement, queue: Promise<unknown> }} Followed
 */

const state = {
  /** @type {Identity|null} */ identity: null,
  /** @type {string} */ name: '',
  /** @type {string} */ fp: '',
  /** The account this device belongs to (its own fingerprint on the account's device). */ account: '',
  /** @type {import('../../src/index.js').Client|null} */ client: null,
  /** @type {Device|null} */ device: null,
  /** The MLS state's database. @type {IndexedDbStore|null} */ mls: null,
  /** Device-wide operations (Welcomes, KeyPackages) one at a time. @type {Promise<unknown>} */ deviceQueue: Promise.resolve(),
  /** @type {Map<string, Contact>} */ contacts: new Map(),
  /** @type {Map<string, Followed>} topic → conversation */ followed: new Map(),
  /** @type {Record<string, Placement>} */ placements: {},
  /** @type {Map<string, Entry>} */ entries: new Map(),
  /** @type {string|null} */ selected: null,
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
 * @param {'idle'|'waiting'|import('../../src/index.js').ConnectionStateName} s
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

// ---- setup: create, import, link or unlock an identity ----------------------

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
      const linked = /** @type {HTMLInputElement} */ ($('new-linked')).checked;
      const identity = await Identity.generate();
      const file = await KeyFile.wrap(identity, password);
      await store.put('identity', { armor: file.toArmor(), name, linked });
      await store.unlockStorage(password, file.kdfParams());
      await start(identity, name, file, linked);
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
      await store.put('identity', { armor: file.toArmor(), name, linked: false });
      await store.unlockStorage(password, file.kdfParams());
      await start(identity, name, file, false);
    });
  });

  $('unlock-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot unlock', async () => {
      const password = /** @type {HTMLInputElement} */ ($('unlock-password')).value;
      const file = await KeyFile.fromArmor(saved.armor);
      const identity = await file.unlock(password);
      // The same password opens the key that encrypts the stored messages and the MLS state.
      await store.unlockStorage(password, file.kdfParams());
      await start(identity, saved.name, file, Boolean(saved.linked));
    });
  });

  $('forget-btn').addEventListener('click', () => {
    if (!confirm('Delete the key file, contacts, conversations and messages from this browser? Without a backup the identity is gone.')) return;
    action('Cannot forget the identity', async () => {
      const file = await KeyFile.fromArmor(saved.armor);
      await store.clear(file.publicKey.fingerprint().toHex());
      location.reload();
    });
  });
}

/**
 * Show the chat, then (once this tab holds the identity, and a linked
 * device has its account's binding) connect and start reading.
 * @param {Identity} identity
 * @param {string} name
 * @param {KeyFile} file
 * @param {boolean} linked
 */
async function start(identity, name, file, linked) {
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
  state.placements = (await store.get('convs')) ?? {};
  for (const c of state.contacts.values()) addEntry(contactEntry(c));
  renderMemberChoices();
  const { messages: old, unreadable } = await store.allMessages();
  for (const m of old.sort((a, b) => a.ts - b.ts)) {
    if (!state.entries.has(m.conv) && m.conv.startsWith('g:')) addEntry(groupEntry(m.conv.slice(2)));
    renderMessage(m);
  }
  if (unreadable.length > 0) {
    showError('Stored messages do not open', new Error(`${unreadable.length} stored record(s) were modified or moved (${unreadable.slice(0, 3).join(', ')}); they are not shown`));
  }

  // One tab per identity: a second one waits here until the first is closed.
  await holdDeviceLock(identity.fingerprint(), {
    onWait: () => {
      setStatus('waiting', 'open in another tab · waiting');
      $('tab-wait').hidden = false;
    },
  });
  $('tab-wait').hidden = true;

  const mls = await IndexedDbStore.open(identity.fingerprint());
  state.mls = mls;
  if (linked && (await mls.get('mls-binding')) === undefined) {
    // A new device of an existing account: it needs the account's binding first.
    await new Promise((resolve) => showLinkPanel(identity, mls, resolve));
  }
  await goOnline(mls);
}

/**
 * On a new device: show its key (for the account's device) and wait for
 * the binding the account's device makes of it.
 * @param {Identity} identity
 * @param {IndexedDbStore} mls
 * @param {(v: unknown) => void} done
 */
function showLinkPanel(identity, mls, done) {
  $('link-panel').hidden = false;
  /** @type {HTMLTextAreaElement} */ ($('link-pubkey')).value = identity.publicKey.toSpkiBase64();
  $('link-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    action('Cannot link this device', async () => {
      const text = /** @type {HTMLTextAreaElement} */ ($('link-binding')).value.trim();
      await Device.storeBinding(identity, mls, fromBase64(text), { stateKey: store.mlsStateKey() });
      $('link-panel').hidden = true;
      done(undefined);
    });
  });
}

/**
 * Connect to the broker — refused if it presents another broker id than
 * the one this page pinned for its name and port (trust on first use) —
 * open the MLS device, make it invitable, then follow its conversations
 * and Welcomes. A failed connect is shown, and the page stays offline.
 * @param {IndexedDbStore} mls
 */
async function goOnline(mls) {
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
  const device = await Device.open(client, identity, mls, { stateKey: store.mlsStateKey() });
  state.device = device;
  state.account = device.account.fingerprint().toHex();
  $('devices-card').hidden = !device.isAccount;
  $('own-account').textContent = device.isAccount ? 'this device holds the account key' : `a device of account ${device.account.fingerprint().toString()}`;
  // Contacts add the account, whichever of its devices they got the key from.
  /** @type {HTMLTextAreaElement} */ ($('own-pubkey')).value = device.account.toSpkiBase64();
  // Invitable: a few KeyPackages (and, on the account's device, its device list).
  if (device.keyPackagesHeld < 5) await onDevice(() => device.publishKeyPackages(10));
  for (const topic of await Conversation.list(device)) await follow(topic);
  void followWelcomes();
  if (!state.selected) {
    const first = state.entries.keys().next();
    if (!first.done) select(first.value);
  }
  document.body.dataset.ready = 'true';
}

/**
 * Runs a device-wide operation after the ones before it.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
function onDevice(fn) {
  const run = state.deviceQueue.then(fn, fn);
  state.deviceQueue = run.catch(() => {});
  return run;
}

/**
 * Runs an operation of one conversation after the ones before it.
 * @template T
 * @param {Followed} f
 * @param {(c: Conversation) => Promise<T>} fn
 * @returns {Promise<T>}
 */
function onConversation(f, fn) {
  const run = f.queue.then(() => fn(f.conv), () => fn(f.conv));
  f.queue = run.catch(() => {});
  return run;
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
      await goOnline(/** @type {IndexedDbStore} */ (state.mls));
    });
  });
  li.insertBefore(forget, li.lastElementChild);
}

// ---- contacts, conversations ---------------------------------------------------

/** @param {Contact} c @returns {Entry} */
function contactEntry(c) {
  return { id: `c:${c.fp}`, title: c.name, kind: 'contact', info: `fingerprint ${c.key.fingerprint().toString()}` };
}

/** @param {string} topic @returns {Entry} */
function groupEntry(topic) {
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
  return state.contacts.get(fp)?.name ?? `unknown ${shortFp(fp)}`;
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
function addEntry(entry) {
  state.entries.set(entry.id, entry);
  let li = /** @type {HTMLElement|null} */ (document.querySelector(`#conversations li[data-conv="${CSS.escape(entry.id)}"]`));
  if (!li) {
    li = document.createElement('li');
    li.dataset.conv = entry.id;
    li.dataset.kind = entry.kind;
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.testid = 'conversation';
    b.addEventListener('click', () => select(entry.id));
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
}

/** @param {string} id */
function select(id) {
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
  const canSend = entry.kind === 'contact' || (entry.kind === 'group' && f !== undefined && !f.conv.removed);
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
          await onConversation(f, async (c) => {
            const key = await accountKey(a);
            return c.removeAccount(key.fingerprint());
          });
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

/**
 * A new conversation with these accounts (and this account's other
 * devices), placed as given.
 * @param {Placement} place
 * @param {string[]} accounts
 */
async function newConversation(place, accounts) {
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
      if (fp === state.account || fp === state.fp) throw new Error('that is your own account');
      const contact = { name, key, fp };
      state.contacts.set(fp, contact);
      await store.put('contacts', [...state.contacts.values()].map((c) => ({ name: c.name, spki: c.key.toSpkiBase64() })));
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
        if (f.conv.removed) continue;
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
async function follow(topic, opened) {
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
      return storeSystem(topic, e.offset, 'refused', `A message that cannot be opened here: ${e.reason}.`);
    case 'forkSuspected':
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
 */
async function storeSystem(topic, offset, kind, text) {
  const m = { id: `${topic}/0/${offset}/${kind}`, conv: entryOf(topic), dir: 'system', kind, from: '', fromName: '', text, ts: Date.now(), state: 'system' };
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
async function followWelcomes() {
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

// ---- rendering ---------------------------------------------------------------

/** A note in the selected conversation (not stored). @param {string} text */
function systemNote(text) {
  if (state.selected) systemMessage(state.selected, text);
}

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
