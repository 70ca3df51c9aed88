// Browser tests: Playwright (playwright-core) driving Debian's Chromium, headless, against a
// `flicker` server started here on a free port with a fresh SQLite file.
//
//   FLICKER_BIN=target/debug/flicker node frontend/tests/run.mjs [name-filter]
//
// Every test saves a screenshot under target/browser-tests/. Any request that leaves 127.0.0.1
// fails the run. Exit status 1 if any test fails.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { playTests } from './play.mjs';
import { exorcistTests } from './exorcist.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const bin = resolve(repo, process.env.FLICKER_BIN || 'target/debug/flicker');
const out = resolve(repo, process.env.BROWSER_TESTS_OUT || 'target/browser-tests');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const filter = process.argv[2] || '';
// FLICKER_URL: test a server already running (its organiser key in FLICKER_ORGANISER_KEY).
const external = process.env.FLICKER_URL || '';
const RUN = Date.now().toString(36).slice(-5);
const MARA = external ? `mara-${RUN}` : 'mara';
const ORGANISER_KEY = external ? process.env.FLICKER_ORGANISER_KEY || '' : 'browser-test-organiser-key';

mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.startsWith('FAILED-')) rmSync(join(out, f)); // a previous run's
if (!external && !existsSync(bin)) throw new Error(`no flicker binary at ${bin} (cargo build first)`);

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => res(a.port));
    });
  });
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ the server
const dir = mkdtempSync(join(tmpdir(), 'flicker-browser-'));
const port = external ? 0 : await freePort();
const base = external || `http://127.0.0.1:${port}`;
const server = external
  ? null
  : spawn(bin, ['--addr', `127.0.0.1:${port}`, '--database-url', join(dir, 'flicker.db')], {
    env: { ...process.env, FLICKER_ORGANISER_KEY: ORGANISER_KEY, FLICKER_LOG: process.env.FLICKER_LOG || 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
let serverLog = '';
server?.stdout?.on('data', (d) => { serverLog += d; });
server?.stderr?.on('data', (d) => { serverLog += d; });
const stopServer = () => { try { server?.kill('SIGTERM'); } catch { /* gone */ } };
process.on('exit', () => { stopServer(); rmSync(dir, { recursive: true, force: true }); });
for (let i = 0; ; i++) {
  try {
    const r = await fetch(`${base}/readyz`);
    if (r.ok) break;
  } catch { /* not yet */ }
  if (i > 150 || (server && server.exitCode !== null)) {
    console.error(serverLog);
    throw new Error('the server did not become ready');
  }
  await sleep(100);
}

// ------------------------------------------------------------------ API helpers (test setup only)
/** @param {string} method @param {string} path @param {{ token?: string, body?: any, headers?: Record<string,string> }} [o] */
async function call(method, path, o = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...(o.headers || {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${base}/api/v1${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
/** @param {string} name @param {string} [role] */
async function account(name, role = 'player') {
  const headers = role === 'organiser' ? { 'X-Organiser-Key': ORGANISER_KEY } : {};
  await call('POST', '/accounts', { body: { name, password: 'correct-horse', role }, headers });
  return (await call('POST', '/auth/token', { body: { name, password: 'correct-horse' } })).access_token;
}
/** A table of built-in bots only, started. @param {string} token @param {number} n @param {number} delay */
async function botTable(token, n, delay) {
  const t = await call('POST', '/tables', {
    token,
    body: { players: n, practice: true, bot_delay_ms: delay, reaction_window_min_ms: 0, clocks: { decision_secs: 600, reaction_secs: 600 } },
  });
  const id = t.table.table_id;
  for (let s = 0; s < n; s++) await call('POST', `/tables/${id}/seats`, { token, body: { seat: s, bot: 'heuristic' } });
  await call('POST', `/tables/${id}/start`, { token });
  return id;
}

// ------------------------------------------------------------------ the browser
const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
/** Requests that left 127.0.0.1. @type {string[]} */
const outside = [];

/** A fresh page with request logging and console errors collected. @param {{ width?: number, height?: number }} [size] */
async function newPage(size = {}) {
  const context = await browser.newContext({ viewport: { width: size.width || 1440, height: size.height || 1000 } });
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.protocol === 'data:' || u.protocol === 'blob:') return;
    if (u.hostname !== '127.0.0.1') {
      outside.push(req.url());
      console.error(`  request left 127.0.0.1: ${req.url()}`);
    }
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { context, page, errors };
}

/** @param {import('playwright-core').Page} page @param {string} name */
async function shot(page, name) {
  const path = join(out, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs up through the UI. @param {import('playwright-core').Page} page @param {string} name @param {string} role */
async function uiSignUp(page, name, role) {
  await page.goto(`${base}/signin`);
  await page.getByTestId('tab-signup').click();
  await page.fill('input[name=name]', name);
  await page.fill('input[name=password]', 'correct-horse');
  await page.selectOption('select[name=role]', role);
  if (role === 'organiser') await page.fill('input[name=organiser_key]', ORGANISER_KEY);
  await page.getByRole('button', { name: 'Create and sign in' }).click();
  await page.getByTestId('me').waitFor();
}

/** @type {{ name: string, fn: () => Promise<string>, ms?: number, secs?: number, error?: string }[]} */
const tests = [];
/** @param {string} name @param {() => Promise<string>} fn */
const test = (name, fn) => tests.push({ name, fn });

// ------------------------------------------------------------------ tests
test('serving: content types, SPA fallback, API paths untouched', async () => {
  const index = await fetch(`${base}/gatherings/whatever`);
  if (!index.ok || !index.headers.get('content-type')?.startsWith('text/html')) throw new Error('SPA fallback is not the page');
  if (!index.headers.get('content-security-policy')?.includes("default-src 'self'")) throw new Error('no CSP on the page');
  const js = await fetch(`${base}/src/main.js`);
  if (!js.headers.get('content-type')?.startsWith('text/javascript')) throw new Error(`main.js served as ${js.headers.get('content-type')}`);
  const css = await fetch(`${base}/app.css`);
  if (!css.headers.get('content-type')?.startsWith('text/css')) throw new Error('app.css content type');
  const etag = js.headers.get('etag');
  const again = await fetch(`${base}/src/main.js`, { headers: { 'if-none-match': etag || '' } });
  if (again.status !== 304) throw new Error('no 304 for a fresh ETag');
  for (const p of ['/api/v1/nope', '/api/v2/tables', '/healthz/x', '/metrics/x', '/readyz/x', '/src/missing.js']) {
    const r = await fetch(base + p);
    if (r.status !== 404 || !r.headers.get('content-type')?.includes('problem+json')) throw new Error(`${p}: ${r.status} ${r.headers.get('content-type')}`);
  }
  // Swagger UI keeps its own paths (its own 404s), never the UI's page.
  const docs = await fetch(`${base}/docs/`);
  if (!docs.ok || !(await docs.text()).includes('swagger')) throw new Error('/docs/ is not Swagger UI');
  const docsMissing = await fetch(`${base}/docs/nope.js`);
  if (docsMissing.status !== 404 || docsMissing.headers.get('content-type')?.includes('text/html')) throw new Error('/docs/nope.js fell back to the page');
  const oa = await fetch(`${base}/openapi.json`);
  if (!oa.headers.get('content-type')?.includes('json')) throw new Error('openapi.json is not JSON');
  return '';
});

test('organiser runs a 20-player bot gathering from the console and sees its winner', async () => {
  const { context, page, errors } = await newPage();
  await uiSignUp(page, `org-ada-${RUN}`, 'organiser');
  await page.click('nav >> text=Organiser');
  await page.fill('[data-testid=create-gathering] input[name=name]', 'Friday Flicker');
  await page.fill('[data-testid=create-gathering] input[name=bot_delay_ms]', '10');
  await page.click('[data-testid=create-gathering] button[type=submit]');
  await page.getByTestId('console').waitFor();
  await page.fill('input[name=bots]', '20');
  await page.getByTestId('add-bots').click();
  await page.locator('[data-testid=console] summary', { hasText: '20 registered' }).waitFor();
  await page.getByTestId('start').click();
  // Pause and resume while the circles play.
  await page.getByTestId('pause').click();
  await page.locator('[data-testid=console][data-status=paused]').waitFor();
  await page.getByTestId('resume').click();
  await page.locator('[data-testid=console][data-status=running]').waitFor();
  // A second tab follows the gathering page live, from the circles to the winner, with no reload.
  const href = await page.getByTestId('open-gathering').getAttribute('href');
  const watcher = await context.newPage();
  watcher.on('pageerror', (e) => errors.push(String(e)));
  await watcher.goto(`${base}${href}`);
  await watcher.locator('[data-testid=gathering-page][data-status=running] [data-testid=stage]').first().waitFor();
  await shot(watcher, 'gathering-live');
  await watcher.getByTestId('winner').waitFor({ timeout: 90_000 });
  await page.getByTestId('console-winner').waitFor({ timeout: 90_000 });
  const winner = (await page.getByTestId('console-winner').textContent()) || '';
  await shot(page, 'organiser-console');
  await watcher.close();
  await page.getByTestId('open-gathering').click();
  await page.getByTestId('winner').waitFor();
  await page.locator('[data-testid=standings] tbody tr').nth(19).waitFor();
  const stages = await page.getByTestId('stage').count();
  if (stages < 2) throw new Error(`expected circles and a Final Ritual, saw ${stages} stage(s)`);
  await shot(page, 'gathering-bracket');
  await page.click('nav >> text=Home');
  await page.locator('.gathering-row', { hasText: 'Friday Flicker' }).first().waitFor();
  await shot(page, 'home');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `${winner.trim()}; ${stages} stages`;
});

test('an organiser registers a roster and invites a newcomer, who joins from a phone', async () => {
  const known = `rosa-${RUN}`;
  await account(known);
  const { context, page, errors } = await newPage();
  await uiSignUp(page, `org-ivy-${RUN}`, 'organiser');
  await page.click('nav >> text=Organiser');
  await page.fill('[data-testid=create-gathering] input[name=name]', 'Invited Flicker');
  await page.click('[data-testid=create-gathering] button[type=submit]');
  await page.getByTestId('console').waitFor();
  // A roster with one refused row registers nobody and names the row.
  await page.fill('[data-testid=roster] textarea', `name\n${known}\nnobody-${RUN}\n`);
  await page.getByTestId('roster-send').click();
  await page.getByTestId('roster-refused').filter({ hasText: 'line 3' }).waitFor();
  await page.fill('[data-testid=roster] textarea', `name\n${known}\n`);
  await page.getByTestId('roster-send').click();
  await page.getByTestId('roster-ok').filter({ hasText: '1 registered' }).waitFor();
  // One invitation link.
  await page.fill('[data-testid=invite] input[name=invitations]', '1');
  await page.getByTestId('invite-send').click();
  const link = (await page.locator('[data-testid=invite-links] textarea').inputValue()).trim();
  if (!link.includes('/join#code=inv-')) throw new Error(`not an invitation link: ${link}`);
  await shot(page, 'console-roster-invite');
  // The newcomer, on a phone: the link, a name and password, and the gathering page.
  const phone = await newPage({ width: 390, height: 844 });
  await phone.page.goto(link);
  await phone.page.getByTestId('join-page').waitFor();
  await phone.page.fill('input[name=name]', `newt-${RUN}`);
  await phone.page.fill('input[name=password]', 'correct-horse');
  await shot(phone.page, 'join-phone');
  await phone.page.getByTestId('join').click();
  await phone.page.getByTestId('gathering-page').waitFor();
  await phone.page.locator('.stage.reg', { hasText: `newt-${RUN}` }).waitFor();
  if (await phone.page.locator('button', { hasText: 'Register as' }).count()) throw new Error('the newcomer is offered to register again');
  const wide = await phone.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  if (wide) throw new Error('the gathering page scrolls sideways on a phone');
  await page.reload();
  await page.getByTestId('console').waitFor();
  await page.locator('[data-testid=console] summary', { hasText: '2 registered' }).waitFor();
  await page.getByTestId('invite-state').filter({ hasText: '1 claimed' }).waitFor();
  // The refused roster's 422 is the one failed request expected.
  const all = [...errors, ...phone.errors].filter((e) => !e.includes('status of 422'));
  if (all.length) throw new Error(`page errors: ${all.join('; ')}`);
  await phone.context.close();
  await context.close();
  return 'roster of 1, one invitation claimed';
});

test('a spectator follows a live table', async () => {
  const token = await account(`host-sam-${RUN}`);
  const id = await botTable(token, 5, 250);
  const { context, page, errors } = await newPage();
  await page.goto(`${base}/tables/${id}`);
  await page.getByTestId('board').waitFor();
  await page.locator('[data-testid=viewer]', { hasText: 'spectator' }).waitFor();
  // The log grows while we watch, and seats show no hand cards to a spectator.
  await page.locator('[data-testid=log] li').nth(5).waitFor({ timeout: 30_000 });
  const before = await page.locator('[data-testid=log] li').count();
  await page.locator('[data-testid=log] li').nth(before + 3).waitFor({ timeout: 30_000 });
  if (await page.locator('.seat .zone.hand .card.face').count()) throw new Error('a spectator sees a hand');
  const lines = await page.locator('[data-testid=log] li').allTextContents();
  if (!lines.some((l) => /Round \d+: .+'s turn/.test(l))) throw new Error(`no turn lines in the log: ${lines.slice(0, 5).join(' | ')}`);
  await shot(page, 'spectator-live-table');
  // The optional four-colour deck, then phone width: still usable.
  await page.getByLabel('4-colour').check();
  await page.waitForFunction(() => document.body.classList.contains('four-colour'), null, { timeout: 5000 });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('board').waitFor();
  await shot(page, 'spectator-phone');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `${lines.length} log lines`;
});

test('players talk in the table chat, a spectator reads it live, the moderator mutes a player, at phone width', async () => {
  const name = `chatty-${RUN}`;
  const { context, page, errors } = await newPage({ width: 390, height: 844 });
  await uiSignUp(page, name, 'player');
  const token = (await call('POST', '/auth/token', { body: { name, password: 'correct-horse' } })).access_token;
  const other = `talker-${RUN}`;
  const otherToken = await account(other);
  const t = await call('POST', '/tables', {
    token,
    body: { players: 3, practice: true, bot_delay_ms: 0, reaction_window_min_ms: 0, clocks: { decision_secs: 600, reaction_secs: 600 } },
  });
  const id = t.table.table_id;
  await call('POST', `/tables/${id}/seats`, { token, body: { seat: 0 } });
  await call('POST', `/tables/${id}/seats`, { token: otherToken, body: { seat: 1 } });
  await call('POST', `/tables/${id}/seats`, { token, body: { seat: 2, bot: 'random' } });
  await call('POST', `/tables/${id}/start`, { token });
  await page.goto(`${base}/tables/${id}`);
  await page.getByTestId('chat-input').fill('I hold nothing dangerous. Honestly.');
  await page.getByTestId('chat-send').click();
  await page.locator('[data-testid=chat-entry]', { hasText: 'I hold nothing dangerous' }).waitFor();
  if (await page.getByTestId('chat-input').inputValue()) throw new Error('the input kept the sent message');
  // Too long: a counter, and Send is disabled (the server counts characters, not bytes).
  await page.getByTestId('chat-input').fill('🕯'.repeat(281));
  await page.locator('[data-testid=chat-count]', { hasText: '281/280' }).waitFor();
  if (!(await page.getByTestId('chat-send').isDisabled())) throw new Error('Send is enabled for 281 characters');
  await page.getByTestId('chat-input').fill('');

  // A spectator reads it, and what is said next arrives live, with no reload; it cannot speak.
  const watcher = await newPage({ width: 390, height: 844 });
  await watcher.page.goto(`${base}/tables/${id}`);
  await watcher.page.locator('[data-testid=chat-entry]', { hasText: 'I hold nothing dangerous' }).waitFor();
  if (await watcher.page.getByTestId('chat-input').count()) throw new Error('a spectator has a chat input');
  await call('POST', `/tables/${id}/chat`, { token: otherToken, body: { text: 'Sure you do.' } });
  await watcher.page.locator('[data-testid=chat-entry]', { hasText: 'Sure you do.' }).waitFor({ timeout: 10_000 });

  // The creator moderates a practice table: it mutes the other player (never itself), and
  // everyone reads the mute; the muted player's input is gone, with the reason.
  const talker = await newPage({ width: 390, height: 844 });
  await talker.page.goto(`${base}/signin`);
  await talker.page.fill('input[name=name]', other);
  await talker.page.fill('input[name=password]', 'correct-horse');
  await talker.page.locator('form button[type=submit]').click();
  await talker.page.getByTestId('me').waitFor();
  await talker.page.goto(`${base}/tables/${id}`);
  await talker.page.getByTestId('chat-input').waitFor();
  await page.locator('[data-testid=chat-moderate] summary').click();
  if (await page.getByTestId('mute-0').count()) throw new Error('the moderator is offered to mute itself');
  await page.getByTestId('mute-1').click();
  await page.locator('[data-testid=mute-1][data-muted=true]').waitFor({ state: 'attached' });
  await watcher.page.locator('[data-testid=chat-entry][data-kind=muted]').waitFor({ timeout: 10_000 });
  await talker.page.locator('[data-testid=chat-entry][data-kind=muted]').waitFor({ timeout: 10_000 });
  await talker.page.reload();
  await talker.page.getByTestId('chat-muted').waitFor();
  if (await talker.page.getByTestId('chat-input').count()) throw new Error('a muted player still has the input');
  const wide = await watcher.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
  if (wide) throw new Error('the table page scrolls sideways on a phone');
  await watcher.page.getByTestId('chat').scrollIntoViewIfNeeded();
  await shot(watcher.page, 'table-chat-spectator-phone');
  await shot(talker.page, 'table-chat-muted-phone');
  await shot(page, 'table-chat-seat-phone');
  const all = [...errors, ...watcher.errors, ...talker.errors];
  if (all.length) throw new Error(`page errors: ${all.join('; ')}`);
  await talker.context.close();
  await watcher.context.close();
  await context.close();
  return '';
});

test('an organiser drops a no-show from the console and exports the results', async () => {
  const nora = `nora-${RUN}`;
  await account(nora);
  const { context, page, errors } = await newPage({ width: 390, height: 844 });
  page.on('dialog', (d) => d.accept());
  await uiSignUp(page, `org-noshow-${RUN}`, 'organiser');
  await page.click('nav >> text=Organiser');
  await page.fill('[data-testid=create-gathering] input[name=name]', 'No-show night');
  await page.fill('[data-testid=create-gathering] input[name=bot_delay_ms]', '10');
  await page.click('[data-testid=create-gathering] button[type=submit]');
  await page.getByTestId('console').waitFor();
  await page.fill('input[placeholder="account name"]', nora);
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.locator('[data-testid=console] summary', { hasText: '1 registered' }).waitFor();
  // One bot: a Final Ritual of two, which Nora's concession ends at once (windows held for a
  // person last their whole reaction clock, so a bigger circle would play for minutes).
  await page.fill('input[name=bots]', '1');
  await page.getByTestId('add-bots').click();
  await page.locator('[data-testid=console] summary', { hasText: '2 registered' }).waitFor();
  await page.locator('[data-testid=preview]', { hasText: '2 players' }).waitFor();
  const share = (await page.getByTestId('share-link').textContent()) || '';
  if (!share.includes('/gatherings/')) throw new Error(`share link: ${share}`);
  await page.getByTestId('start').click();
  await page.locator('[data-testid=console][data-status=running]').waitFor();
  // Nora never plays: drop her.
  await page.fill('[data-testid=no-shows] input[name=player]', nora);
  await page.getByTestId('drop').click();
  await page.locator('[data-testid=dropped]', { hasText: nora }).waitFor();
  await page.getByTestId('console-winner').waitFor({ timeout: 60_000 });
  await shot(page, 'organiser-no-show-phone');
  const csvHref = await page.getByTestId('export-csv').getAttribute('href');
  const jsonHref = await page.getByTestId('export-json').getAttribute('href');
  const csv = await (await fetch(`${base}${csvHref}`)).text();
  if (!csv.startsWith('rank,name,status,stage,circle,placing,bot,points') || !csv.includes(nora)) throw new Error(`csv: ${csv.slice(0, 300)}`);
  const json = await (await fetch(`${base}${jsonHref}`)).json();
  if (!json.winner || json.winner === nora || json.standings.length !== 2) throw new Error(`json: ${JSON.stringify(json).slice(0, 300)}`);
  await noSideScroll(page, 'the console on a phone');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `winner ${json.winner}; ${csv.trim().split('\n').length - 1} rows`;
});

test('a spectator finds a live table from the home list and is counted; a gathering too', async () => {
  const token = await account(`host-liv-${RUN}`);
  const id = await botTable(token, 4, 400);
  const org = await account(`org-liv-${RUN}`, 'organiser');
  const gathering = await call('POST', '/gatherings', { token: org, body: { name: `Watched ${RUN}` } });
  const { context, page, errors } = await newPage({ width: 390, height: 844 });
  await page.goto(`${base}/`);
  const link = page.locator(`[data-testid=live-table] a[href="/tables/${id}"]`);
  await link.waitFor();
  await link.click();
  await page.getByTestId('board').waitFor();
  await page.locator('[data-testid=viewer]', { hasText: 'spectator' }).waitFor();
  // A second viewer sees the first counted.
  const other = await context.newPage();
  other.on('pageerror', (e) => errors.push(String(e)));
  let watching = '';
  for (let i = 0; i < 40 && !/[1-9]\d* watching/.test(watching); i++) {
    await other.goto(`${base}/`);
    const row = other.locator('[data-testid=live-table]', { has: other.locator(`a[href="/tables/${id}"]`) });
    await row.waitFor();
    watching = (await row.getByTestId('spectators').textContent()) || '';
    if (!/[1-9]\d* watching/.test(watching)) await sleep(250);
  }
  if (!/[1-9]\d* watching/.test(watching)) throw new Error(`the spectator was not counted: ${watching}`);
  // The gathering's page follows its stream: the home list counts that reader.
  await page.goto(`${base}/gatherings/${gathering.gathering_id}`);
  let gWatching = '';
  for (let i = 0; i < 40 && gWatching !== '1 watching'; i++) {
    await other.goto(`${base}/`);
    const row = other.locator('.gathering-row', { has: other.locator(`a[href="/gatherings/${gathering.gathering_id}"]`) });
    await row.waitFor();
    gWatching = (await row.getByTestId('gathering-spectators').textContent()) || '';
    if (gWatching !== '1 watching') await sleep(250);
  }
  if (gWatching !== '1 watching') throw new Error(`the gathering's spectator was not counted: ${gWatching}`);
  await shot(other, 'home-live-tables-phone');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `${watching}; gathering ${gWatching}`;
});

test('a person in a seat plays a full turn against bots, with a Salt window', async () => {
  const { context, page, errors } = await newPage();
  await uiSignUp(page, MARA, 'player');
  // A practice table with built-in bots: Mara first, holding 5♥ (Salt) and 7♥ (to Haunt).
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem('flicker.session') || '{}').access_token);
  const t = await call('POST', '/tables', {
    token,
    body: {
      // No minimum window: with one, each reaction point lasts until its 600 s deadline (R10.6.5).
      players: 3, practice: true, bot_delay_ms: 300, position: '5H 7H 9S | |', reaction_window_min_ms: 0,
      settings: { first_player: { mode: 'first', seat: 0 } }, clocks: { decision_secs: 600, reaction_secs: 600 },
    },
  });
  const id = t.table.table_id;
  await call('POST', `/tables/${id}/seats`, { token, body: { seat: 0 } });
  for (const s of [1, 2]) await call('POST', `/tables/${id}/seats`, { token, body: { seat: s, bot: 'heuristic' } });
  await call('POST', `/tables/${id}/start`, { token });
  await page.goto(`${base}/tables/${id}`);
  await page.locator('[data-testid=viewer]', { hasText: `You play ${MARA}` }).waitFor();
  const prompt = page.getByTestId('prompt');
  let acted = false;
  let turnDone = false;
  let salted = false;
  const deadline = Date.now() + 90_000;
  while (!(acted && turnDone && salted)) {
    if (Date.now() > deadline) throw new Error(`timed out: acted ${acted}, turn done ${turnDone}, Salt window ${salted}`);
    if (acted && !turnDone) {
      // The turn is over once the log shows the next player's turn after the Haunt.
      const lines = await page.locator('[data-testid=log] li').allTextContents();
      const at = lines.findIndex((l) => l.startsWith(`${MARA} Haunts`));
      turnDone = at >= 0 && lines.slice(at).some((l) => /^Round \d+: .+'s turn/.test(l) && !l.includes(`${MARA}'s turn`));
    }
    const kind = await prompt.getAttribute('data-kind', { timeout: 2000 }).catch(() => null);
    if (kind === 'ritual' && !acted) {
      // Only legal cards are offered; 7♥ can Haunt a neighbour, chosen by clicking the seat.
      const playable = await page.getByTestId('playable').allTextContents();
      if (!playable.length) throw new Error('no playable card offered');
      // By keyboard: the card and the target are buttons.
      await page.locator('[data-testid=playable][data-card="7♥"]').first().focus();
      await page.keyboard.press('Enter');
      await page.locator('.seat.targetable').first().waitFor();
      if (await page.locator('.seat.targetable').count() !== 2) throw new Error('a Haunt should offer exactly the two neighbours');
      await shot(page, 'player-choose-target');
      await page.getByTestId('target-1').focus();
      await page.keyboard.press('Enter');
      acted = true;
    } else if (kind === 'ritual' && acted) {
      // The prompt may close under the click (the Ritual already ended): read it again.
      await page.getByTestId('end-ritual').click({ timeout: 3000 }).catch(() => {});
    } else if (kind === 'salt' || kind === 'counter_salt') {
      if (!(await page.getByTestId('clock').first().isVisible())) throw new Error('no clock on the Salt prompt');
      if (acted && !salted) await shot(page, 'player-salt-window');
      await page.getByTestId('pass').click();
      if (acted) salted = true;
    } else if (kind === 'haunting_choice') {
      await prompt.getByRole('button', { name: /Endure/ }).click();
    } else if (kind === 'burden_discard') {
      const n = Number((await prompt.locator('[data-testid=confirm-pick]').textContent())?.split('/')[1] || 1);
      for (let i = 0; i < n; i++) await prompt.getByTestId('pickable').nth(i).click();
      await prompt.getByTestId('confirm-pick').click();
    } else if (kind && kind !== 'none') {
      await prompt.locator('.actions button').first().click();
    }
    await sleep(200);
  }
  const log = await page.locator('[data-testid=log] li').allTextContents();
  if (!log.some((l) => l.startsWith(`${MARA} Haunts`) && l.includes('with 7♥'))) throw new Error(`the log does not tell the Haunt: ${log.join(' | ')}`);
  await shot(page, 'player-after-turn');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `${log.length} log lines`;
});

test('a replay is stepped through to the end and the reveal shows the hands', async () => {
  const token = await account(`host-ida-${RUN}`);
  const id = await botTable(token, 4, 0);
  for (let i = 0; ; i++) {
    const t = await call('GET', `/tables/${id}`);
    if (t.table.status === 'finished') break;
    if (i > 300) throw new Error('the bot game did not finish');
    await sleep(100);
  }
  const { context, page, errors } = await newPage();
  await page.goto(`${base}/tables/${id}/replay`);
  await page.getByTestId('step').waitFor();
  const total = Number(((await page.getByTestId('step').textContent()) || '').split('/')[1]);
  for (let i = 2; i <= 4; i++) {
    await page.getByTestId('forward').click();
    await page.locator('[data-testid=step]', { hasText: `${i} / ${total}` }).waitFor();
  }
  await page.getByTestId('back').click();
  await page.locator('[data-testid=step]', { hasText: `3 / ${total}` }).waitFor();
  // Play at 16× for a moment, then pause.
  await page.selectOption('[data-testid=speed]', '16');
  await page.getByTestId('play').click();
  await sleep(600);
  await page.getByTestId('play').click();
  const mid = Number(((await page.getByTestId('step').textContent()) || '').split('/')[0]);
  if (mid <= 3) throw new Error('play did not advance');
  if (await page.getByTestId('elimination').count()) {
    await page.getByTestId('elimination').first().click();
    await page.getByTestId('step-text').filter({ hasText: /flickers out|Consumed|Possessed|concedes/ }).waitFor();
  }
  // Step to the end with the scrubber's keyboard, then the last button.
  await page.getByTestId('end').click();
  await page.locator('[data-testid=step]', { hasText: `${total} / ${total}` }).waitFor();
  await page.getByTestId('step-text').filter({ hasText: /wins|no winner/ }).waitFor();
  const hiddenBefore = await page.locator('.seat .zone.hand .card.face').count();
  await page.getByTestId('reveal').check();
  await page.locator('[data-testid=revealed-candle]').first().waitFor();
  const faces = await page.locator('.seat .zone.hand .card.face').count();
  const handSizes = await page.locator('[data-testid=hand-size]').allTextContents();
  const cardsInHands = handSizes.map((s) => Number(s.replace(/\D/g, ''))).reduce((a, b) => a + b, 0);
  if (hiddenBefore !== 0) throw new Error('hands were shown before the reveal');
  if (faces !== cardsInHands) throw new Error(`reveal shows ${faces} hand cards, hands hold ${cardsInHands}`);
  await shot(page, 'replay-end-revealed');
  // Back to the first elimination, the reveal still on: every seat's hand and Candle face up.
  let shown = faces;
  if (await page.getByTestId('elimination').count()) {
    await page.getByTestId('elimination').first().click();
    await page.getByTestId('step-text').filter({ hasText: /flickers out|Consumed|Possessed|concedes|finishes/ }).waitFor();
    shown = await page.locator('.seat .zone.hand .card.face').count();
    const sizes = (await page.locator('[data-testid=hand-size]').allTextContents()).map((x) => Number(x.replace(/\D/g, '')));
    if (shown !== sizes.reduce((a, b) => a + b, 0)) throw new Error(`mid-game reveal shows ${shown} hand cards of ${sizes.join('+')}`);
  }
  await shot(page, 'replay-revealed');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `${total} steps; reveal showed ${faces} hand cards at the end, ${shown} at the first elimination`;
});

// ------------------------------------------------------------------ the player's seat (play.mjs)
playTests({ test, call, account, newPage, shot, uiSignUp, base, sleep, RUN });
exorcistTests({ test, call, newPage, shot, uiSignUp, base, sleep, RUN });

// ------------------------------------------------------------------ web contract: console form, pause banner, rules, replay moves
/** No sideways scrolling at the page's width. @param {import('playwright-core').Page} page @param {string} what */
async function noSideScroll(page, what) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  if (scroll > width) throw new Error(`${what}: the page scrolls sideways (${scroll} px wide at ${width} px)`);
}
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

test('console: a gathering created with classes, bans, spectator delay, commentary and abandonment', async () => {
  const { context, page, errors } = await newPage(DESKTOP);
  const org = `org-eve-${RUN}`;
  await uiSignUp(page, org, 'organiser');
  await page.click('nav >> text=Organiser');
  const form = page.getByTestId('create-gathering');
  await form.locator('input[name=name]').fill('Class Night');
  await form.getByTestId('help-advance').waitFor();
  await form.getByTestId('help-final-dark').waitFor();
  if (!(await form.locator('input[name=classes]').isChecked())) throw new Error('classes are off by default in the form');
  await form.locator('details.bans summary').click();
  await form.locator('input[name=ban][value=clown]').check();
  await form.locator('input[name=ban][value=witness]').check();
  await form.locator('select[name=spectator_delay]').selectOption('events');
  await form.locator('input[name=spectator_delay_by]').fill('3');
  await form.locator('input[name=commentary]').check();
  await form.locator('input[name=abandonment]').fill('2');
  await shot(page, 'console-form');
  await form.locator('button[type=submit]').click();
  await page.getByTestId('console').waitFor();
  await page.locator('[data-testid=set-classes]', { hasText: 'The Clown' }).waitFor();
  await page.locator('[data-testid=set-delay]', { hasText: '3 events' }).waitFor();
  await page.locator('[data-testid=set-commentary]', { hasText: 'on' }).waitFor();
  const mine = (await call('GET', '/gatherings')).filter((/** @type {any} */ g) => g.organiser === org);
  if (mine.length !== 1) throw new Error(`expected one gathering by ${org}, saw ${mine.length}`);
  const s = mine[0].settings;
  const want = { classes: true, class_bans: ['clown', 'witness'], spectator_delay_events: 3, spectator_delay_secs: 0, commentary: true, abandonment: 2 };
  for (const [k, v] of Object.entries(want)) {
    if (JSON.stringify(s[k]) !== JSON.stringify(v)) throw new Error(`settings.${k} is ${JSON.stringify(s[k])}, expected ${JSON.stringify(v)}`);
  }
  await shot(page, 'console-created');
  await page.setViewportSize(PHONE);
  await page.getByTestId('console').waitFor();
  await noSideScroll(page, 'organiser console at phone width');
  await shot(page, 'console-phone');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `settings ${JSON.stringify(want)}`;
});

test('a gathering table links its stage circles and shows a pause banner from the stream', async () => {
  const token = await account(`org-pia-${RUN}`, 'organiser');
  const g = await call('POST', '/gatherings', {
    token, body: { name: 'Pause Night', settings: { max_circle: 4, bot_delay_ms: 150, clocks: { decision_secs: 600, reaction_secs: 600 } } },
  });
  const gid = g.gathering_id;
  await call('POST', `/gatherings/${gid}/bots`, { token, body: { count: 8, kind: 'heuristic' } });
  await call('POST', `/gatherings/${gid}/start`, { token });
  /** @type {any} */
  let bracket = null;
  for (let i = 0; ; i++) {
    bracket = await call('GET', `/gatherings/${gid}/bracket`);
    if (bracket.stages.length && bracket.stages[0].circles.length === 2 && bracket.stages[0].circles.every((/** @type {any} */ c) => c.status !== 'starting')) break;
    if (i > 100) throw new Error('the stage was not drawn');
    await sleep(100);
  }
  const [c1, c2] = bracket.stages[0].circles;
  try {
    const { context, page, errors } = await newPage(DESKTOP);
    await page.goto(`${base}/tables/${c1.table_id}`);
    await page.getByTestId('circle-nav').waitFor();
    const other = page.getByTestId('other-circle');
    if ((await other.getAttribute('href')) !== `/tables/${c2.table_id}`) throw new Error('no link to the other circle of the stage');
    await page.getByTestId('table-rules').waitFor();
    if (await page.getByTestId('pause-banner').count()) throw new Error('a pause banner before any pause');
    await call('POST', `/gatherings/${gid}/pause`, { token });
    await page.getByTestId('pause-banner').waitFor();
    await shot(page, 'table-paused');
    await page.setViewportSize(PHONE);
    await noSideScroll(page, 'paused table at phone width');
    await shot(page, 'table-paused-phone');
    await call('POST', `/gatherings/${gid}/resume`, { token });
    await page.getByTestId('pause-banner').waitFor({ state: 'detached' });
    // The gathering page: ranked standings, classes named, at phone width too.
    await page.goto(`${base}/gatherings/${gid}`);
    await page.getByTestId('bracket').waitFor();
    await page.locator('[data-testid=class-badge]').first().waitFor();
    const badge = (await page.locator('[data-testid=class-badge]').first().textContent()) || '';
    if (!/^The /.test(badge.trim())) throw new Error(`a class is shown as ${badge}, not by its name`);
    await noSideScroll(page, 'gathering page at phone width');
    await shot(page, 'gathering-phone');
    await page.setViewportSize(DESKTOP);
    await shot(page, 'gathering-desktop');
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    await context.close();
  } finally {
    await call('POST', `/gatherings/${gid}/cancel`, { token, body: { reason: 'test over' } }).catch(() => {});
  }
  return `circles ${c1.circle} and ${c2.circle}`;
});

test('the rules page: every card and class, from the header', async () => {
  const { context, page, errors } = await newPage(DESKTOP);
  await page.goto(`${base}/`);
  await page.getByTestId('nav-rules').click();
  await page.getByTestId('rules-page').waitFor();
  const cards = await page.getByTestId('card-rule').count();
  const classes = await page.getByTestId('class-rule').count();
  if (cards !== 14) throw new Error(`${cards} cards on the rules page, expected 14 (A-10, J, Q, K, Joker)`);
  if (classes !== 38) throw new Error(`${classes} classes on the rules page, expected the roster's 38`);
  await shot(page, 'rules');
  await page.setViewportSize(PHONE);
  await noSideScroll(page, 'rules page at phone width');
  await shot(page, 'rules-phone');
  // The other pages of this half of the UI at phone width: no sideways scrolling either.
  for (const [path, name] of [['/', 'home-phone'], ['/practice', 'practice-phone'], ['/signin', 'signin-phone'], ['/organiser', 'organiser-signed-out-phone']]) {
    await page.goto(`${base}${path}`);
    await page.locator('#content main').waitFor();
    await noSideScroll(page, `${path} at phone width`);
    await shot(page, name);
  }
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `${cards} cards, ${classes} classes`;
});

test('the replay is fetched once and its move list jumps to a move', async () => {
  const token = await account(`host-ned-${RUN}`);
  const id = await botTable(token, 3, 0);
  for (let i = 0; ; i++) {
    const t = await call('GET', `/tables/${id}`);
    if (t.table.status === 'finished') break;
    if (i > 300) throw new Error('the bot game did not finish');
    await sleep(100);
  }
  const { context, page, errors } = await newPage(DESKTOP);
  /** @type {string[]} */
  const replayRequests = [];
  page.on('request', (r) => { if (/\/api\/v1\/tables\/[^/]+\/replay/.test(r.url())) replayRequests.push(r.url()); });
  await page.goto(`${base}/tables/${id}/replay`);
  await page.getByTestId('moves').waitFor();
  const total = Number(((await page.getByTestId('step').textContent()) || '').split('/')[1]);
  const moves = await page.getByTestId('move').count();
  if (moves !== total) throw new Error(`${moves} moves listed for ${total} steps`);
  const target = Math.min(total, 12);
  await page.getByTestId('move').nth(target - 1).click();
  await page.locator('[data-testid=step]', { hasText: `${target} / ${total}` }).waitFor();
  if ((await page.locator('[data-testid=move][aria-current=step]').textContent())?.trim() !== (await page.getByTestId('move').nth(target - 1).textContent())?.trim()) {
    throw new Error('the clicked move is not marked current');
  }
  // Step, scrub and play: no further request.
  await page.getByTestId('forward').click();
  await page.locator('[data-testid=step]', { hasText: `${Math.min(total, target + 1)} / ${total}` }).waitFor();
  await page.selectOption('[data-testid=speed]', '16');
  await page.getByTestId('play').click();
  await sleep(500);
  await page.getByTestId('play').click();
  const playIcon = await page.locator('[data-testid=play] path').getAttribute('d');
  const stepIcon = await page.locator('[data-testid=forward] path').getAttribute('d');
  if (playIcon === stepIcon) throw new Error('play and step forward have the same icon');
  if (replayRequests.length !== 1 || !replayRequests[0].includes('/replay/steps')) throw new Error(`replay requests: ${replayRequests.join(', ')}`);
  await shot(page, 'replay-moves');
  await page.setViewportSize(PHONE);
  await noSideScroll(page, 'replay at phone width');
  await shot(page, 'replay-phone');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `${total} steps in one request`;
});

test('the replay copies the position at a step and starts a practice table from it, at phone width', async () => {
  const token = await account(`host-pia-${RUN}`);
  const id = await botTable(token, 3, 0);
  for (let i = 0; ; i++) {
    const t = await call('GET', `/tables/${id}`);
    if (t.table.status === 'finished') break;
    if (i > 300) throw new Error('the bot game did not finish');
    await sleep(100);
  }
  // A step that awaits a decision (importable, and the new table stays there).
  const last = await call('GET', `/tables/${id}/position?format=json`);
  let at = 0;
  let text = '';
  for (let k = 4; k < last.total; k++) {
    const p = await call('GET', `/tables/${id}/position?format=json&at=${k}`);
    if (p.text.includes('step=ritual budget=1')) { at = k; text = p.text; break; }
  }
  if (!at) throw new Error('no Ritual with one action left in the game');
  const { context, page, errors } = await newPage(PHONE);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await uiSignUp(page, `pia-${RUN}`, 'player');
  await page.goto(`${base}/tables/${id}/replay`);
  await page.getByTestId('moves').waitFor();
  await page.getByTestId('move').nth(at - 1).click();
  await page.locator('[data-testid=step]', { hasText: `${at} / ${last.total}` }).waitFor();
  await page.getByTestId('copy-position').click();
  await page.locator('[data-testid=position-note]', { hasText: `Position at step ${at} copied` }).waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  if (copied !== text) throw new Error(`copied ${copied}, the position at ${at} is ${text}`);
  await noSideScroll(page, 'replay with the position buttons at phone width');
  await shot(page, 'replay-position-phone');
  await page.getByTestId('practice-from-here').click();
  await page.waitForURL((u) => /\/tables\/[^/]+$/.test(u.pathname) && !u.pathname.includes(id), { timeout: 20000 });
  const nid = new URL(page.url()).pathname.split('/').pop() || '';
  const t = await call('GET', `/tables/${nid}`);
  if (!t.table.practice || t.table.seats.length !== 3) throw new Error(`the new table: ${JSON.stringify(t.table)}`);
  const userToken = (await call('POST', '/auth/token', { body: { name: `pia-${RUN}`, password: 'correct-horse' } })).access_token;
  const now = await call('GET', `/tables/${nid}/position?format=json&at=1`, { token: userToken });
  // The server sets hold_windows for a table with a person in a seat (R10.6.5).
  const serverOwned = (/** @type {string} */ x) => x.replace(/ hold_windows\b/, '').replace(' | settings: |', ' |');
  if (serverOwned(now.text) !== serverOwned(text)) throw new Error(`the new table starts at ${now.text}, not at ${text}`);
  await shot(page, 'practice-from-here-phone');
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return `step ${at} of ${last.total} copied and practised from`;
});

// ------------------------------------------------------------------ run
const started = Date.now();
let failed = 0;
for (const t of tests) {
  if (filter && !t.name.includes(filter)) continue;
  const t0 = Date.now();
  try {
    const note = await t.fn();
    console.log(`ok   ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${note ? ` — ${note}` : ''}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n     ${String(/** @type {Error} */ (e).stack || e).split('\n').slice(0, 4).join('\n     ')}`);
    for (const ctx of browser.contexts()) {
      for (const p of ctx.pages()) await p.screenshot({ path: join(out, `FAILED-${t.name.slice(0, 30).replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => {});
      await ctx.close().catch(() => {});
    }
  }
}
await browser.close();
stopServer();
if (outside.length) {
  failed++;
  console.log(`FAIL ${outside.length} request(s) left 127.0.0.1:\n  ${[...new Set(outside)].join('\n  ')}`);
} else {
  console.log('ok   no request left 127.0.0.1');
}
console.log(`browser tests: ${failed ? `${failed} failed` : 'all passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${out}`);
process.exit(failed ? 1 : 0);
