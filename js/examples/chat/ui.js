// What the chat page's modules share (app.js, conversations.js, trust.js,
// places.js): the page's state, its elements, errors and the status line,
// the queues that keep one operation at a time on the device and on each
// conversation, and the message list. The floor of the page's layers:
// it imports none of them.

/** @import { Conversation, Device, IndexedDbStore } from '../../src/mls/index.js' */
/** @import { Identity, PublicKey } from '../../src/index.js' */

export const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/**
 * The broker's WebSocket: the page's own host (the broker serves the page
 * from `web_root`), unless the deployed page names another in
 * `<meta name="hermitmq-broker" content="wss://broker.example.com">` (a page
 * with an origin of its own, docs/OPERATIONS.md; its Content-Security-Policy
 * `connect-src` must name the same broker). No URL parameter may point it
 * elsewhere: a link to this page naming another broker would hand that broker
 * who talks to whom.
 */
export const WS_URL = brokerUrl();

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
 * A contact: an account (its key and fingerprint) and the name given here;
 * whether the user marked it verified; `rotation`: a valid rotation
 * statement moves it to another key, not confirmed yet (nothing is sent to
 * it meanwhile); `previous`: the keys (fingerprint hex) it moved from;
 * `staleDays`: its device list is that old (over LIST_STALE_AFTER_MS);
 * `trustError`: what was refused in its directory topic (a forged list or
 * rotation, a rollback, an equivocation). The last two are not stored.
 * @typedef {{ name: string, key: PublicKey, fp: string, verified?: boolean, rotation?: { key: PublicKey, issuedAt: number },
 *   previous?: string[], staleDays?: number, trustError?: string }} Contact
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

export const state = {
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
export function showError(context, err, message) {
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
export function setStatus(s, text, detail = '') {
  const el = $('status');
  el.dataset.state = s;
  el.textContent = text;
  el.title = detail;
}

/**
 * Outgoing messages not acknowledged yet, from one state to the other.
 * @param {'pending'|'sending'} from
 * @param {'pending'|'sending'} to
 */
export function markOutgoing(from, to) {
  for (const li of document.querySelectorAll(`#messages li.message[data-dir="out"][data-state="${from}"]`)) setMessageState(/** @type {HTMLElement} */ (li), to);
}

/**
 * An outgoing message's state, on the element and in words.
 * @param {HTMLElement} li
 * @param {string} s
 */
export function setMessageState(li, s) {
  li.dataset.state = s;
  const label = li.querySelector('.state');
  if (label) label.textContent = { pending: 'pending: sent when the connection is back', sending: 'sending…', failed: 'not sent' }[s] ?? '';
}

/**
 * Run an async UI action with the busy indicator, reporting its error.
 * @param {string} context
 * @param {() => Promise<void>} fn
 */
export async function action(context, fn) {
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
export function hue(id) {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

/** "3f2a 9c01 5be7 0d11" (the first 64 bits, for labels). @param {string} hex */
export const shortFp = (hex) => hex.slice(0, 16).replace(/(.{4})(?=.)/g, '$1 ');

/**
 * Runs a device-wide operation after the ones before it.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export function onDevice(fn) {
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
export function onConversation(f, fn) {
  const run = f.queue.then(() => fn(f.conv), () => fn(f.conv));
  f.queue = run.catch(() => {});
  return run;
}

export function scrollDown() {
  const list = $('messages');
  list.scrollTop = list.scrollHeight;
}

// ---- rendering ---------------------------------------------------------------

/** A note in the selected conversation (not stored). @param {string} text */
export function systemNote(text) {
  if (state.selected) systemMessage(state.selected, text);
}

/** @param {string} conv @param {string} text */
export function systemMessage(conv, text) {
  renderMessage({ id: `sys:${crypto.randomUUID()}`, conv, dir: 'system', from: '', fromName: '', text, ts: Date.now(), state: 'system' });
}

/**
 * Add a message to the list (once per id), text via textContent only.
 * @param {any} m
 * @returns {HTMLElement}
 */
export function renderMessage(m) {
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
  // A system line's look: notice (a new device), warning (a key change), error (something refused).
  if (m.dir === 'system') li.dataset.tier = m.tier ?? 'notice';
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

