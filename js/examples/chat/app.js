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
//
// Layers (imports run one way, nothing imports back up):
//   app.js → conversations.js → trust.js → places.js → ui.js, store.js
// app.js, the top, also imports the lower modules directly.

import { BrokerIdChanged, KeyFile, Identity, PublicKey, connect, fromBase64, toHex } from '../../src/index.js';
import { Conversation, Device, IndexedDbStore, holdDeviceLock } from '../../src/mls/index.js';
import { addEntry, follow, followWelcomes, renderMemberChoices, select, setContactField, setupForms } from './conversations.js';
import { contactEntry, groupEntry } from './places.js';
import * as store from './store.js';
import { markVerified, watchContacts } from './trust.js';
import { $, WS_URL, action, markOutgoing, onDevice, renderMessage, setStatus, showError, state } from './ui.js';

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

  /** Old account fingerprint → the contact's current one (its key was rotated and confirmed). @type {Map<string, string>} */
  const moved = new Map();
  for (const c of (await store.get('contacts')) ?? []) {
    const key = await PublicKey.fromSpkiBase64(c.spki);
    const fp = key.fingerprint().toHex();
    const rotation = c.rotation ? { key: await PublicKey.fromSpkiBase64(c.rotation.spki), issuedAt: Number(c.rotation.issuedAt) } : undefined;
    const previous = Array.isArray(c.previous) ? c.previous.filter((/** @type {unknown} */ p) => typeof p === 'string') : [];
    for (const p of previous) moved.set(p, fp);
    state.contacts.set(fp, { name: c.name, key, fp, verified: Boolean(c.verified), rotation, previous });
  }
  state.placements = (await store.get('convs')) ?? {};
  for (const c of state.contacts.values()) addEntry(contactEntry(c));
  renderMemberChoices();
  const { messages: old, unreadable } = await store.allMessages();
  for (const m of old.sort((a, b) => a.ts - b.ts)) {
    const to = m.conv.startsWith('c:') ? moved.get(m.conv.slice(2)) : undefined;
    if (to) m.conv = `c:${to}`;
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
  // The invite: a link whose fragment (never sent to a server) names the account; the name is a hint.
  /** @type {HTMLTextAreaElement} */ ($('own-invite')).value = `${location.origin}${location.pathname}#contact=${state.account}&name=${encodeURIComponent(state.name)}`;
  // Invitable: a few KeyPackages (and, on the account's device, its device list).
  if (device.keyPackagesHeld < 5) await onDevice(() => device.publishKeyPackages(10));
  // The account's device re-signs its device list weekly (readers flag one over 30 days old as stale).
  else if (device.isAccount) await onDevice(() => device.refreshDeviceList());
  for (const topic of await Conversation.list(device)) await follow(topic);
  // Opened from someone's invite link: the contact form is filled in.
  if (/[#&]contact=[0-9a-f]{64}/i.test(location.hash)) {
    setContactField(location.href);
    history.replaceState(null, '', location.pathname);
  }
  void followWelcomes();
  // Contacts' directory topics: a rotation, a refused or stale list; now, then every minute.
  void watchContacts();
  if (!state.selected) {
    const first = state.entries.keys().next();
    if (!first.done) select(first.value);
  }
  document.body.dataset.ready = 'true';
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

window.addEventListener('unhandledrejection', (ev) => showError('Unexpected error', ev.reason));
setupForms();
$('safety-mark').addEventListener('click', () => void action('Cannot mark the contact verified', markVerified));
init().catch((e) => showError('The page could not start', e));
