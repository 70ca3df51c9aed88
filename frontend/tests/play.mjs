// Browser tests of the player's seat: a person plays a whole class game of a gathering through
// the UI, answering every prompt by hand, at desktop and at phone width; and a practice game
// ends with a rematch. Registered by run.mjs (which starts the server and the browser).

/** Classes whose abilities ask the player something, in the order the test prefers them. */
const PREFERRED = ['seer', 'trader', 'pyromaniac', 'usurer', 'grimoire_of_rejection', 'doomreader', 'cryptkeeper', 'fatalist',
  'mimic', 'martyr', 'watcher', 'hex', 'unseen', 'shadow', 'mime', 'plague', 'exorcist'];
/** Classes whose effects never ask anything: banned so that the offers hold classes that do. */
const QUIET = ['clown', 'gatekeeper', 'gravedigger', 'hoarder', 'judge', 'leech', 'lich', 'phantom', 'priest', 'sadist', 'sealbinder',
  'silence', 'skeptic', 'sufferer', 'survivor', 'voodoo_doll', 'vulture', 'warlock'];

/**
 * @param {{ test: (name: string, fn: () => Promise<string>) => void, call: Function, account: Function, newPage: Function,
 *   shot: Function, uiSignUp: Function, base: string, sleep: (ms: number) => Promise<void>, RUN: string }} h
 */
export function playTests(h) {
  const { test, call, account, newPage, shot, uiSignUp, base, sleep, RUN } = h;

  /**
   * Whether the element is wholly inside the viewport with the page scrolled to the top.
   * @param {import('playwright-core').Page} page @param {string} selector
   */
  async function onScreen(page, selector) {
    return page.evaluate((sel) => {
      window.scrollTo(0, 0);
      const el = document.querySelector(sel);
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight + 1 && r.right <= window.innerWidth + 1 && r.height > 0;
    }, selector);
  }

  /**
   * A person plays a whole class game of a 3-seat gathering (two bots) through the UI.
   * @param {{ width: number, height: number }} size @param {string} tag
   */
  async function wholeClassGame(size, tag) {
    const org = await account(`org-${tag}-${RUN}`, 'organiser');
    const { context, page, errors } = await newPage(size);
    const me = `${tag}-ivy-${RUN}`;
    await uiSignUp(page, me, 'player');
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('flicker.session') || '{}').access_token);
    const g = await call('POST', '/gatherings', {
      token: org,
      body: {
        name: `Seat test ${tag}`,
        settings: {
          max_circle: null, classes: true, class_bans: QUIET, round_limit: 10, salt_targeted_only: true, bot_delay_ms: 30,
          reaction_window_min_ms: 0, clocks: { decision_secs: 120, reaction_secs: 60 },
        },
      },
    });
    const gid = g.gathering_id;
    await call('POST', `/gatherings/${gid}/registrations`, { token });
    await call('POST', `/gatherings/${gid}/bots`, { token: org, body: { count: 2, kind: 'heuristic' } });
    await call('POST', `/gatherings/${gid}/start`, { token: org });
    let tableId = '';
    for (let i = 0; !tableId; i++) {
      const b = await call('GET', `/gatherings/${gid}/bracket`);
      tableId = b.stages?.[0]?.circles?.[0]?.table_id || '';
      if (i > 100) throw new Error('no table in the bracket');
      if (!tableId) await sleep(100);
    }
    await page.goto(`${base}/tables/${tableId}`);
    await page.locator('[data-testid=viewer]', { hasText: `You play ${me}` }).waitFor();
    // R9.4: the table of a one-circle stage is the Final Ritual (known once the bracket is read).
    await page.getByTestId('table-title').filter({ hasText: 'The Final Ritual' }).waitFor({ timeout: 10_000 })
      .catch(async () => { throw new Error(`a one-circle gathering's table is titled "${await page.getByTestId('table-title').textContent()}"`); });
    const prompt = page.getByTestId('prompt');
    /** @type {Record<string, number>} */
    const seen = {};
    /** @type {Set<string>} */
    const checked = new Set();
    const used = new Set();
    let lastId = '';
    let same = 0;
    const deadline = Date.now() + 240_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`the game did not end in time; prompts answered: ${JSON.stringify(seen)}`);
      if (await page.getByTestId('result').count()) break;
      const kind = await prompt.getAttribute('data-kind', { timeout: 2000 }).catch(() => null);
      if (!kind || kind === 'none') {
        await sleep(120);
        continue;
      }
      // The open prompt and its clock are on screen without scrolling (once per kind).
      if (!checked.has(kind)) {
        checked.add(kind);
        if (!(await onScreen(page, '[data-testid=prompt]'))) throw new Error(`the ${kind} prompt is not on screen at ${size.width}x${size.height}`);
        if (!(await onScreen(page, '[data-testid=prompt] [data-testid=clock]'))) throw new Error(`the clock of the ${kind} prompt is not on screen`);
        // The title changes in an effect after the prompt is drawn: wait for it (or for the
        // prompt to have gone meanwhile, when the check waits for the next prompt of its kind).
        const signalled = await page.waitForFunction(
          (k) => document.title.startsWith('●') || !document.querySelector(`[data-testid=prompt][data-kind="${k}"]`),
          kind, { timeout: 3000 },
        ).then(() => page.title()).catch(() => page.title());
        if (!signalled.startsWith('●')) {
          if (await page.locator(`[data-testid=prompt][data-kind="${kind}"]`).count()) throw new Error(`the title does not signal the ${kind} prompt: ${signalled}`);
          checked.delete(kind);
          continue;
        }
        const path = await shot(page, `play-${tag}-${kind}`);
        // At phone width, what the screen shows (the action bar is fixed to its bottom).
        if (size.width < 820) await page.screenshot({ path });
      }
      const id = `${kind}:${await page.locator('[data-testid=prompt] p').first().textContent().catch(() => '')}`;
      same = id === lastId ? same + 1 : 0;
      lastId = id;
      if (same > 40) throw new Error(`stuck on a ${kind} prompt: ${id}`);
      seen[kind] = (seen[kind] || 0) + 1;
      try {
        await answer(page, prompt, kind, used);
      } catch (e) {
        // The prompt changed under the click (a bot moved, a window closed): read it again.
        if (!/Timeout|detached|not attached|disabled|not visible|intercepts/.test(String(e))) throw e;
      }
      await sleep(150);
    }
    const result = (await page.getByTestId('result').textContent()) || '';
    await shot(page, `play-${tag}-end`);
    // Zero time-outs for the person's seat, from the game's full record.
    const t = await call('GET', `/tables/${tableId}`);
    const seat = t.table.seats.indexOf(me);
    let timeouts = 0;
    /** @type {string[]} */
    const before = [];
    let after = '';
    /** @type {string[]} */
    const pageOfTypes = [];
    for (;;) {
      const pageOf = await call('GET', `/tables/${tableId}/events?seat=${seat}&limit=500${after ? `&after=${encodeURIComponent(after)}` : ''}`, { token });
      for (const item of pageOf.events) {
        let e = item.event;
        if (e && e.type === 'full' && e.event) e = { type: e.event.type, ...(e.event.payload || {}) };
        if (e && e.type === 'timed_out' && (e.seats || []).includes(seat)) {
          timeouts++;
          before.push(`after ${pageOfTypes.slice(-3).join(', ')}`);
        }
        pageOfTypes.push(e ? e.type : '?');
      }
      if (!pageOf.events.length || !pageOf.next) break;
      after = pageOf.next;
    }
    if (timeouts) throw new Error(`the person's seat timed out ${timeouts} time(s) (${before.join('; ')}); prompts answered: ${JSON.stringify(seen)}`);
    if (!seen.choose_class) throw new Error('no class choice was offered');
    if (!seen.ritual) throw new Error('no Ritual was played');
    // The gathering's bracket: its Final Ritual and Winner without sideways scrolling.
    await page.goto(`${base}/gatherings/${gid}`);
    await page.getByTestId('winner').waitFor({ timeout: 30_000 });
    const wide = await page.evaluate(() => {
      const champion = document.querySelector('.stage.champion');
      const r = champion ? champion.getBoundingClientRect() : null;
      return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, bracket: document.querySelector('.bracket')?.scrollWidth || 0,
        bracketBox: document.querySelector('.bracket')?.clientWidth || 0, right: r ? r.right : Infinity };
    });
    if (wide.scroll > wide.inner || wide.bracket > wide.bracketBox + 1 || wide.right > wide.inner) {
      throw new Error(`the bracket scrolls sideways at ${size.width} px: ${JSON.stringify(wide)}`);
    }
    await shot(page, `play-${tag}-bracket`);
    // A 409 is an answer that raced a closing prompt (shown quietly, not an error of the page).
    const real = errors.filter((e) => !/status of 409/.test(e));
    if (real.length) throw new Error(`page errors: ${real.join('; ')}`);
    await context.close();
    return `${result.trim()}; answered by hand ${Object.entries(seen).map(([k, n]) => `${k}×${n}`).join(', ')}; class and abilities: ${[...used].filter((u) => !u.includes('@')).join(', ') || 'none'}; 0 time-outs`;
  }

  /**
   * Answers the open prompt by hand, as a person would.
   * @param {import('playwright-core').Page} page @param {import('playwright-core').Locator} prompt @param {string} kind @param {Set<string>} used
   */
  async function answer(page, prompt, kind, used) {
    const t = { timeout: 3000 };
    switch (kind) {
      case 'choose_class': {
        await prompt.getByTestId('class-choice').first().waitFor(t);
        const offers = await prompt.getByTestId('class-choice').evaluateAll((els) => els.map((e) => ({ id: e.getAttribute('data-class') || '', text: e.textContent || '' })));
        if (offers.length !== 3) throw new Error(`the class choice offers ${offers.length} classes`);
        for (const o of offers) if (!o.text.startsWith('The ') || o.text.includes('_')) throw new Error(`a class offer reads "${o.text}"`);
        const pickId = PREFERRED.find((c) => offers.some((o) => o.id === c)) || offers[0].id;
        await prompt.locator(`[data-testid=class-choice][data-class=${pickId}]`).click(t);
        used.add(`class ${pickId}`);
        return;
      }
      case 'omen_play':
      case 'ritual': {
        // A free ability or class action first (once per prompt text), then a card, then the end.
        const ability = prompt.getByTestId('ability');
        const classAction = prompt.getByTestId('class-action');
        const hand = await prompt.locator('[aria-label="Your hand"] .card').count();
        const key = `${hand}:${await prompt.locator('p').first().textContent()}`;
        if (await ability.count() && !used.has(`ability@${key}`)) {
          used.add(`ability@${key}`);
          used.add(`ability ${await ability.getAttribute('data-ability')}`);
          await ability.click(t);
        } else if (await classAction.count() && !used.has(`action@${key}`)) {
          used.add(`action@${key}`);
          used.add(`action ${await classAction.first().getAttribute('data-action')}`);
          await classAction.first().click(t);
        } else if (await prompt.getByTestId('playable').count()) {
          // A card with a class use (a Wall, Alter a suit, the Watcher's Sight) first, with that use.
          const classUse = prompt.locator('[data-testid=playable][title*="Wall"], [data-testid=playable][title*="Alter"], [data-testid=playable][title*="both neighbours"]');
          await ((await classUse.count()) ? classUse.first() : prompt.getByTestId('playable').first()).click(t);
          if (await prompt.getByTestId('uses').count()) {
            const special = prompt.locator('[data-testid=use][data-use=build_wall], [data-testid=use][data-use=alter_suit], [data-testid=use][data-use=watcher_sight]');
            if (await special.count()) used.add(`use ${await special.first().getAttribute('data-use')}`);
            await ((await special.count()) ? special.first() : prompt.getByTestId('use').first()).click(t);
          }
        } else {
          await prompt.getByTestId('end-ritual').click(t);
          return;
        }
        // Each declaration step: the first legal choice.
        for (let i = 0; i < 4 && (await prompt.getByTestId('choose').count()); i++) await prompt.getByTestId('choice').first().click(t);
        return;
      }
      case 'salt':
      case 'counter_salt':
        // One key: P (the prompt has the focus).
        await page.keyboard.press('p');
        return;
      case 'reaction':
        if (await prompt.getByTestId('react').count()) await prompt.getByTestId('react').first().click(t);
        else await prompt.getByTestId('decline').click(t);
        used.add('reaction');
        return;
      case 'martyr_draw':
        await prompt.getByTestId('martyr-draw').click(t);
        return;
      case 'trader_swap':
        // Nothing to give (the discard was the last card) or to take: decline.
        if (!(await prompt.getByTestId('trade-take').count()) || !(await prompt.getByTestId('trade-give').count())) {
          await prompt.getByTestId('decline').click(t);
          return;
        }
        await prompt.getByTestId('trade-take').first().click(t);
        await prompt.getByTestId('trade-give').first().click(t);
        await prompt.getByTestId('trade').click(t);
        used.add('trade');
        return;
      case 'plague_spread':
        await prompt.getByTestId('spread').first().click(t);
        return;
      case 'watcher_pick':
        if (await prompt.getByTestId('pickable').count()) await prompt.getByTestId('pickable').first().click(t);
        await prompt.getByTestId('confirm-pick').click(t);
        return;
      case 'haunting_choice':
        await prompt.getByRole('button', { name: /Endure/ }).click(t);
        return;
      case 'turn_order_choice':
        await prompt.getByRole('button', { name: 'First' }).click(t);
        return;
      case 'sight_pick':
      case 'sadist_pick':
      case 'medium_pick':
      case 'burden_discard': {
        const n = Number((await prompt.getByTestId('confirm-pick').textContent())?.split('/')[1] || 1);
        for (let i = 0; i < n; i++) await prompt.getByTestId('pickable').nth(i).click(t);
        await prompt.getByTestId('confirm-pick').click(t);
        return;
      }
      case 'death_split': {
        const rows = prompt.locator('.split-row');
        const n = await rows.count();
        for (let i = 0; i < Math.floor(n / 2); i++) await rows.nth(i).locator('button').nth(1).click(t);
        await prompt.getByTestId('confirm-split').click(t);
        return;
      }
      default:
        throw new Error(`no hand-made answer for a ${kind} prompt`);
    }
  }

  test('a person plays a whole class game of a gathering by hand (desktop 1366x900)', () => wholeClassGame({ width: 1366, height: 900 }, 'desk'));

  // A1, A9: the practice page deals a classic-1.0 game with the classic roster, and a person plays
  // it through to its end by hand at phone width (the Omen and Sadist prompts when they come).
  test('a person plays a whole classic-1.0 practice game with classes by hand (phone 390x844)', async () => {
    const { context, page, errors } = await newPage({ width: 390, height: 844 });
    const me = `classic-${RUN}`;
    await uiSignUp(page, me, 'player');
    await page.goto(`${base}/practice`);
    await page.locator('input[name=players]').fill('3');
    await page.getByTestId('practice-ruleset').selectOption('classic-1.0');
    await page.getByTestId('practice-classes').check();
    await page.locator('input[name=bot_delay_ms]').fill('100');
    await page.locator('label', { hasText: 'Reaction clock' }).locator('input').fill('5');
    await page.getByTestId('start-practice').click();
    await page.getByTestId('table-page').waitFor({ timeout: 15_000 }).catch(async () => {
      await shot(page, 'play-classic-start-failed');
      throw new Error(`no table page: ${(await page.locator('main').textContent())?.slice(0, 300)}`);
    });
    await page.getByTestId('ruleset').filter({ hasText: 'Classic 1.0 rules' }).waitFor({ timeout: 15_000 }).catch(async () => {
      await shot(page, 'play-classic-no-ruleset');
      throw new Error(`no classic ruleset shown: ${(await page.locator('.head-meta').textContent())?.slice(0, 300)}`);
    });
    const prompt = page.getByTestId('prompt');
    /** @type {Record<string, number>} */
    const seen = {};
    const used = new Set();
    const deadline = Date.now() + 240_000;
    while (!(await page.getByTestId('result').count())) {
      if (Date.now() > deadline) throw new Error(`the classic game did not end in time; prompts answered: ${JSON.stringify(seen)}`);
      const kind = await prompt.getAttribute('data-kind', { timeout: 2000 }).catch(() => null);
      // A simultaneous Salt window already answered waits for the others (R10.6.6).
      const answered = kind === 'salt' && (await prompt.locator('.hint', { hasText: 'Your current answer' }).count()) > 0;
      if (!kind || kind === 'none' || answered) {
        await sleep(120);
        continue;
      }
      seen[kind] = (seen[kind] || 0) + 1;
      try {
        await answer(page, prompt, kind, used);
      } catch (e) {
        // The prompt changed under the click (a bot moved, a window closed): read it again.
        if (!/Timeout|detached|not attached|disabled|not visible|intercepts/.test(String(e))) throw e;
      }
      await sleep(100);
    }
    if (seen.haunting_choice) throw new Error('a classic game asked a Haunting choice (A4.1: the Burns are mandatory)');
    if (!seen.choose_class) throw new Error('no class was chosen');
    const power = await page.locator('.card .power').allTextContents();
    if (power.some((p) => p === 'Reprieve' || p === 'Drain')) throw new Error(`a classic card names a current power: ${power.join(', ')}`);
    await shot(page, 'play-classic-phone');
    const real = errors.filter((e) => !/status of 409/.test(e));
    if (real.length) throw new Error(`page errors: ${real.join('; ')}`);
    await context.close();
    return `classic-1.0 with classes to its end; answered by hand ${Object.entries(seen).map(([k, n]) => `${k}×${n}`).join(', ')}`;
  });
  test('a person plays a whole class game of a gathering by hand (phone 390x844)', () => wholeClassGame({ width: 390, height: 844 }, 'phone'));

  test('an answer to a prompt that just closed is treated quietly; the title and favicon signal the turn', async () => {
    const { context, page, errors } = await newPage({ width: 1366, height: 900 });
    const me = `stale-${RUN}`;
    await uiSignUp(page, me, 'player');
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('flicker.session') || '{}').access_token);
    const tbl = await call('POST', '/tables', {
      token,
      body: { players: 2, practice: true, bot_delay_ms: 50, reaction_window_min_ms: 0, settings: { first_player: { mode: 'first', seat: 0 } }, clocks: { decision_secs: 600, reaction_secs: 600 } },
    });
    const id = tbl.table.table_id;
    await call('POST', `/tables/${id}/seats`, { token, body: { seat: 0 } });
    await call('POST', `/tables/${id}/seats`, { token, body: { seat: 1, bot: 'heuristic' } });
    await call('POST', `/tables/${id}/start`, { token });
    await page.goto(`${base}/tables/${id}`);
    await page.locator('[data-testid=prompt][data-kind=ritual]').waitFor();
    const title = await page.title();
    const icon = await page.locator('link[rel=icon]').getAttribute('href');
    if (!title.startsWith('● Your Ritual') || !icon?.includes('favicon-turn')) throw new Error(`no turn signal: title "${title}", icon ${icon}`);
    // The server answers 409 stale-prompt (as when the clock closed the prompt meanwhile).
    await page.route('**/api/v1/tables/*/answers', (route) => route.fulfill({
      status: 409, contentType: 'application/problem+json',
      body: JSON.stringify({ type: '/problems/stale-prompt', title: 'Stale prompt', status: 409, detail: 'that prompt is no longer open' }),
    }));
    await page.getByTestId('end-ritual').click();
    await page.getByTestId('note').waitFor();
    if (await page.locator('.error[role=alert]').count()) throw new Error('a stale prompt shows a red error');
    await shot(page, 'player-stale-prompt');
    await page.getByTestId('note').waitFor({ state: 'detached', timeout: 8000 });
    await page.unroute('**/api/v1/tables/*/answers');
    await page.getByTestId('end-ritual').click();
    await page.locator('[data-testid=log] li', { hasText: 'Abstains' }).first().waitFor({ timeout: 15_000 });
    const real = errors.filter((e) => !/status of 409/.test(e));
    if (real.length) throw new Error(`page errors: ${real.join('; ')}`);
    await context.close();
    return 'quiet note, no red banner';
  });

  test('every page at desktop and phone width (screenshots page-*)', async () => {
    const org = await account(`org-pages-${RUN}`, 'organiser');
    const g = await call('POST', '/gatherings', { token: org, body: { name: 'Pages', settings: { max_circle: null, bot_delay_ms: 0, round_limit: 10 } } });
    await call('POST', `/gatherings/${g.gathering_id}/bots`, { token: org, body: { count: 3, kind: 'heuristic' } });
    await call('POST', `/gatherings/${g.gathering_id}/start`, { token: org });
    let tid = '';
    for (let i = 0; ; i++) {
      const b = await call('GET', `/gatherings/${g.gathering_id}/bracket`);
      tid = b.stages?.[0]?.circles?.[0]?.table_id || '';
      if (b.winner || b.status === 'finished' || b.status === 'ended') break;
      if (i > 300) throw new Error('the bot gathering did not end');
      await sleep(100);
    }
    const pages = [['home', '/'], ['signin', '/signin'], ['practice', '/practice'], ['gathering', `/gatherings/${g.gathering_id}`],
      ['table', `/tables/${tid}`], ['replay', `/tables/${tid}/replay`]];
    let n = 0;
    for (const [w, h, tag] of /** @type {const} */ ([[1366, 900, 'desk'], [390, 844, 'phone']])) {
      const { context, page, errors } = await newPage({ width: w, height: h });
      for (const [name, path] of pages) {
        await page.goto(`${base}${path}`);
        await page.locator('main').first().waitFor();
        await page.waitForLoadState('load');
        await sleep(500); // the first data (pages stream, so there is no network idle)
        const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (wide > 1) throw new Error(`${name} scrolls sideways by ${wide} px at ${w} px`);
        await shot(page, `page-${name}-${tag}`);
        n++;
      }
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
      await context.close();
    }
    return `${n} screenshots`;
  });

  test('a practice game ends with a rematch button that deals a new game', async () => {
    const { context, page, errors } = await newPage({ width: 1366, height: 900 });
    const me = `rem-${RUN}`;
    await uiSignUp(page, me, 'player');
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('flicker.session') || '{}').access_token);
    const tbl = await call('POST', '/tables', { token, body: { players: 2, practice: true, bot_delay_ms: 50, reaction_window_min_ms: 0, clocks: { decision_secs: 600, reaction_secs: 600 } } });
    const id = tbl.table.table_id;
    await call('POST', `/tables/${id}/seats`, { token, body: { seat: 0 } });
    await call('POST', `/tables/${id}/seats`, { token, body: { seat: 1, bot: 'heuristic' } });
    await call('POST', `/tables/${id}/start`, { token });
    await page.goto(`${base}/tables/${id}`);
    await page.locator('[data-testid=viewer]', { hasText: `You play ${me}` }).waitFor();
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Concede' }).click();
    await page.getByTestId('rematch').waitFor({ timeout: 30_000 });
    await shot(page, 'practice-rematch');
    await page.getByTestId('rematch').click();
    await page.waitForURL((u) => u.pathname.startsWith('/tables/') && !u.pathname.includes(id), { timeout: 15_000 });
    await page.getByTestId('board').waitFor();
    const next = new URL(page.url()).pathname.split('/')[2];
    const t2 = await call('GET', `/tables/${next}`);
    if (t2.table.seats[0] !== me || !t2.table.bots[1]) throw new Error(`the rematch seats ${JSON.stringify(t2.table.seats)}`);
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    await context.close();
    return `rematch ${next.slice(0, 8)}`;
  });
}
