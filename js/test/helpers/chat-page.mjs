// The chat page driven in Chromium, shared by the browser tests: open a
// page under the broker's CSP (every violation recorded), make or import an
// identity, add contacts, pick conversations, send and wait for what shows.
import assert from 'node:assert/strict';

/** The password of every identity the tests make. */
export const PASSWORD = 'a long passphrase for the test';
/** Console errors and page crashes, printed when a step fails. */
export const pageLog = /** @type {string[]} */ ([]);

/**
 * A chat page of its own browser context (its own IndexedDB), or a new tab
 * of `context`'s, from the broker at `wsAddr` (its web_root serves js/).
 * @param {import('puppeteer-core').Browser} browser
 * @param {string} wsAddr
 * @param {string} who
 * @param {import('puppeteer-core').BrowserContext} [context]
 */
export async function openChatPage(browser, wsAddr, who, context) {
  const ctx = context ?? (await browser.createBrowserContext());
  const page = await ctx.newPage();
  await page.setViewport({ width: 1200, height: 780 });
  page.on('console', (m) => m.type() === 'error' && pageLog.push(`[${who}] console: ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`[${who}] pageerror: ${e}`));
  // Every CSP violation, from before the page's own scripts (through the DevTools protocol, outside the policy).
  await page.evaluateOnNewDocument(() => {
    const seen = /** @type {any} */ (window).__violations = /** @type {string[]} */ ([]);
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(`http://${wsAddr}/examples/chat/`, { waitUntil: 'load' });
  assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self' 'wasm-unsafe-eval' 'sha256-/, 'the page is served under the policy');
  return page;
}

/** The CSP violations the page reported. @param {import('puppeteer-core').Page} page @returns {Promise<string[]>} */
export function violations(page) {
  return page.evaluate(() => /** @type {any} */ (window).__violations);
}

/** @param {import('puppeteer-core').Page} page */
export async function waitReady(page) {
  await page.waitForFunction(
    () => document.body.dataset.ready === 'true' || document.querySelector('#errors li') !== null,
    { timeout: 30000 },
  );
  const errors = await pageErrors(page);
  assert.deepEqual(errors, [], 'the page reported errors while starting');
  return page.evaluate(() => ({
    spki: /** @type {HTMLTextAreaElement} */ (document.getElementById('own-pubkey')).value,
    fingerprint: /** @type {HTMLElement} */ (document.getElementById('own-fingerprint')).textContent?.replace(/ /g, '') ?? '',
    invite: /** @type {HTMLTextAreaElement} */ (document.getElementById('own-invite')).value,
  }));
}

/** The texts of the page's error list. @param {import('puppeteer-core').Page} page */
export function pageErrors(page) {
  return page.$$eval('#errors li', (lis) => lis.map((li) => li.textContent ?? ''));
}

/** @param {import('puppeteer-core').Page} page @param {string} selector @param {string} value */
export async function setValue(page, selector, value) {
  await page.$eval(
    selector,
    (el, v) => {
      const input = /** @type {HTMLInputElement} */ (el);
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    value,
  );
}

/** @param {import('puppeteer-core').Page} page @param {string} name */
export async function createIdentity(page, name) {
  await page.waitForSelector('#create-panel:not([hidden])');
  await setValue(page, '#new-name', name);
  await setValue(page, '#new-password', PASSWORD);
  await page.click('#create-btn');
  return waitReady(page);
}

/** @param {import('puppeteer-core').Page} page @param {string} name @param {string} armor */
export async function importIdentity(page, name, armor) {
  await page.waitForSelector('#import-panel:not([hidden])');
  await setValue(page, '#import-name', name);
  await setValue(page, '#import-armor', armor);
  await setValue(page, '#import-password', PASSWORD);
  await page.click('#import-btn');
  return waitReady(page);
}

/** Wait until the page's current action is done (its busy line hidden). @param {import('puppeteer-core').Page} page */
export function idle(page) {
  return page.waitForFunction(() => /** @type {HTMLElement} */ (document.getElementById('busy')).hidden, { timeout: 30000 });
}

/**
 * Add a contact; the page makes (or finds) the pairwise conversation.
 * @param {import('puppeteer-core').Page} page @param {string} name @param {{ spki: string, fingerprint: string }} key
 */
export async function addContact(page, name, key) {
  await setValue(page, '#contact-name', name);
  await setValue(page, '#contact-key', key.spki);
  // The fingerprint is shown before the contact is added.
  await page.waitForFunction((fp) => document.getElementById('contact-fp-preview')?.textContent?.replace(/ /g, '').includes(fp), {}, key.fingerprint);
  await page.click('#contact-add');
  await page.waitForSelector(`#conversations li[data-conv="c:${key.fingerprint}"]`);
  await idle(page);
  assert.deepEqual(await pageErrors(page), [], `adding ${name}`);
}

/** @param {import('puppeteer-core').Page} page @param {string} conv */
export async function selectConversation(page, conv) {
  await page.waitForSelector(`#conversations li[data-conv="${conv}"] button`);
  await page.click(`#conversations li[data-conv="${conv}"] button`);
  await page.waitForFunction((c) => document.getElementById('messages')?.dataset.conv === c, {}, conv);
}

/** Type and send `text` in `conv`; resolves once the broker acknowledged it. @param {import('puppeteer-core').Page} page @param {string} conv @param {string} text */
export async function send(page, conv, text) {
  await selectConversation(page, conv);
  await page.type('#compose-text', text);
  await page.click('#send-btn');
  await page.waitForFunction(
    (c, t) =>
      [...document.querySelectorAll('#messages li.message[data-dir="out"]')].some(
        (li) => /** @type {HTMLElement} */ (li).dataset.conv === c && li.querySelector('.text')?.textContent === t && /** @type {HTMLElement} */ (li).dataset.state !== 'sending',
      ),
    {},
    conv,
    text,
  );
  const state = await page.$$eval('#messages li.message[data-dir="out"]', (lis, t) => lis.filter((li) => li.querySelector('.text')?.textContent === t).map((li) => /** @type {HTMLElement} */ (li).dataset.state), text);
  assert.deepEqual(state, ['sent'], `sending ${JSON.stringify(text)}: ${await pageErrors(page)}`);
}

/**
 * Wait until the page shows `text` received in `conv` from `from` (a fingerprint); returns the sender's shown name.
 * @param {import('puppeteer-core').Page} page @param {string} conv @param {string} text @param {string} from
 */
export async function received(page, conv, text, from) {
  try {
    await page.waitForFunction(
      (c, t) =>
        [...document.querySelectorAll('#messages li.message[data-dir="in"]')].some(
          (li) => /** @type {HTMLElement} */ (li).dataset.conv === c && li.querySelector('.text')?.textContent === t,
        ),
      { timeout: 15000 },
      conv,
      text,
    );
  } catch (e) {
    throw new Error(`${JSON.stringify(text)} never showed in ${conv}; page errors: ${JSON.stringify(await pageErrors(page))}; log: ${pageLog.join('\n')}`, { cause: e });
  }
  return page.$$eval(
    '#messages li.message[data-dir="in"]',
    (lis, c, t) => {
      const li = /** @type {HTMLElement} */ (lis.find((l) => /** @type {HTMLElement} */ (l).dataset.conv === c && l.querySelector('.text')?.textContent === t));
      return { from: li.dataset.from, name: li.querySelector('.who')?.textContent };
    },
    conv,
    text,
  ).then((r) => {
    assert.equal(r.from, from, `sender of ${JSON.stringify(text)}`);
    return r.name;
  });
}

/**
 * A system line shown in `conv` whose text matches `re`.
 * @param {import('puppeteer-core').Page} page @param {string} conv @param {RegExp} re
 */
export async function systemLine(page, conv, re) {
  try {
    await page.waitForFunction(
      (c, src) => [...document.querySelectorAll('#messages li.message[data-dir="system"]')].some((li) => /** @type {HTMLElement} */ (li).dataset.conv === c && new RegExp(src).test(li.textContent ?? '')),
      { timeout: 20000 },
      conv,
      re.source,
    );
  } catch (e) {
    throw new Error(`no line ${re} in ${conv}; page errors: ${JSON.stringify(await pageErrors(page))}; log: ${pageLog.join('\n')}`, { cause: e });
  }
}

/**
 * Wait until the page lists `conv`.
 * @param {import('puppeteer-core').Page} page @param {string} conv
 */
export async function listed(page, conv) {
  try {
    await page.waitForSelector(`#conversations li[data-conv="${conv}"]`, { timeout: 30000 });
  } catch (e) {
    throw new Error(`${conv} never listed; page errors: ${JSON.stringify(await pageErrors(page))}; log: ${pageLog.join('\n')}`, { cause: e });
  }
}

/** The group entry (`g:mls.…`) the page shows, waiting for one. @param {import('puppeteer-core').Page} page */
export async function groupOf(page) {
  const el = await page.waitForSelector('#conversations li[data-kind="group"]', { timeout: 20000 });
  return /** @type {NonNullable<typeof el>} */ (el).evaluate((li) => /** @type {HTMLElement} */ (li).dataset.conv ?? '');
}
