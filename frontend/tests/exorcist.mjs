// Browser test of Let's Call the Exorcist: a person creates a practice table of the game from
// the practice page and plays it to its end at phone width, every prompt of its seat answered by
// tapping (cards in the other players' rows, peeks, players, tie picks), bots in the other
// seats; the private log (X11.3) survives a reload; then the replay renders the game's steps.
// An organiser creates a 20-bot gathering of the game from the console (its own settings only,
// X2.1's 4 players to start), and a phone follows its gathering page live to the winner in the
// game's words. Registered by run.mjs (which starts the server and the browser).

/**
 * @param {{ test: (name: string, fn: () => Promise<string>) => void, call: Function, newPage: Function,
 *   shot: Function, uiSignUp: Function, base: string, sleep: (ms: number) => Promise<void>, RUN: string }} h
 */
export function exorcistTests(h) {
  const { test, call, newPage, shot, uiSignUp, base, sleep, RUN } = h;
  const PHONE = { width: 390, height: 844 };

  /** @param {import('playwright-core').Page} page @param {string} what */
  async function noSideScroll(page, what) {
    const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
    if (scroll > width) throw new Error(`${what}: the page scrolls sideways (${scroll} px wide at ${width} px)`);
  }

  /** Every visible tappable control of the table is at least 44 px each way. @param {import('playwright-core').Page} page @param {string} what */
  async function tapTargets(page, what) {
    const small = await page.evaluate(() => [...document.querySelectorAll('.xo-page button.xo-card, .xo-prompt button')]
      .map((b) => ({ r: b.getBoundingClientRect(), t: (b.textContent || '').trim().slice(0, 20) }))
      .filter(({ r }) => r.width > 0 && (r.width < 44 || r.height < 44))
      .map(({ r, t }) => `${t} ${Math.round(r.width)}x${Math.round(r.height)}`));
    if (small.length) throw new Error(`${what}: tap targets under 44 px: ${small.join(', ')}`);
  }

  test("Let's Call the Exorcist: a practice game played to its end by tapping, at phone width", async () => {
    const { context, page, errors } = await newPage(PHONE);
    const me = `exo-${RUN}`;
    await uiSignUp(page, me, 'player');
    await page.goto(`${base}/practice`);
    await page.getByTestId('practice-game').selectOption('lets-call-the-exorcist');
    // X2.1: the seat range follows the game.
    const range = await page.locator('input[name=players]').evaluate((e) => [/** @type {HTMLInputElement} */ (e).min, /** @type {HTMLInputElement} */ (e).max]);
    if (range.join('-') !== '4-8') throw new Error(`the Exorcist's seat range is ${range.join('-')}`);
    await page.fill('input[name=players]', '5');
    await page.getByTestId('practice-target').fill('3');
    await page.fill('input[name=bot_delay_ms]', '100');
    // X3.4: the person seeks first, so that it selects a card by hand whatever the deal; the tie
    // mini-game's pick rounds close at the reaction clock's deadline (R10.6.5): a short one.
    await page.getByTestId('practice-first-seeker').selectOption('me');
    await page.fill('input[name=reaction_secs]', '3');
    await noSideScroll(page, 'the practice page with the Exorcist');
    await shot(page, 'exorcist-practice-phone');
    await page.getByTestId('start-practice').click();
    await page.locator('[data-testid=table-page][data-game=exorcist]').waitFor();
    await page.locator('[data-testid=viewer]', { hasText: `You play ${me}` }).waitFor();
    const tableId = page.url().split('/tables/')[1].split(/[?#/]/)[0];
    const t0 = await call('GET', `/tables/${tableId}`);
    if (t0.table.game !== 'lets-call-the-exorcist' || t0.table.seats.length !== 5 || t0.table.settings.target !== 3 || t0.table.settings.first_seeker !== 0) {
      throw new Error(`the table: ${JSON.stringify(t0.table)}`);
    }
    // X11.3: the private log shows the seat's own dealt cards and Role look.
    await page.getByTestId('xo-note-list').filter({ hasText: 'you were dealt' }).waitFor();
    await page.getByTestId('xo-note-list').filter({ hasText: 'Your Role tile showed' }).waitFor();

    const prompt = page.getByTestId('prompt');
    /** @type {Record<string, number>} */
    const seen = {};
    const shotKinds = new Set();
    let reloaded = false;
    let declined = false;
    let lastId = '';
    let same = 0;
    const deadline = Date.now() + 240_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`the game did not end in time; prompts answered: ${JSON.stringify(seen)}`);
      if (await page.getByTestId('result').count()) break;
      const kind = await prompt.getAttribute('data-kind', { timeout: 1500 }).catch(() => null);
      if (!kind) {
        await sleep(100);
        continue;
      }
      const id = (await prompt.getAttribute('data-prompt-id').catch(() => '')) || '';
      same = id === lastId ? same + 1 : 0;
      lastId = id;
      if (same > 80) throw new Error(`stuck on the ${kind} prompt ${id}`);
      // One tap per prompt; again only if it is still open 2 s later (a tap lost to a re-render).
      if (same > 0 && same % 20 !== 0) {
        await sleep(100);
        continue;
      }
      // Once, mid-game: a reload keeps what the seat saw (X11.3, served by the server).
      if (!reloaded && (seen.select_card || 0) >= 1) {
        reloaded = true;
        const before = await page.getByTestId('xo-note-list').locator('li').count();
        await page.reload();
        await page.locator('[data-testid=table-page][data-game=exorcist]').waitFor();
        await page.getByTestId('xo-note-list').filter({ hasText: 'you were dealt' }).waitFor();
        const after = await page.getByTestId('xo-note-list').locator('li').count();
        if (after < before) throw new Error(`the private log lost entries on reload: ${before} -> ${after}`);
        lastId = '';
        continue;
      }
      if (!shotKinds.has(kind)) {
        shotKinds.add(kind);
        await noSideScroll(page, `the ${kind} prompt`);
        await tapTargets(page, `the ${kind} prompt`);
        await shot(page, `exorcist-${kind}-phone`);
      }
      seen[kind] = (seen[kind] || 0) + 1;
      try {
        switch (kind) {
          case 'select_card':
          case 'hijinx_select':
          case 'violation_peek': {
            // A card position in another player's row, tapped on the board.
            const cards = page.locator('button[data-testid=xo-card]:not([disabled])');
            const n = await cards.count();
            if (!n) throw new Error(`the ${kind} prompt offers no card on the board`);
            const card = cards.nth(Math.floor(Math.random() * n));
            if ((await card.getAttribute('data-owner')) === String(t0.table.seats.indexOf(me))) throw new Error('an own card is offered (X6.1)');
            await card.click({ timeout: 3000 });
            break;
          }
          case 'tablet_peek':
          case 'prepuce_peek':
          case 'pazuzu_peek':
            // Decline once, peek otherwise.
            if (!declined) {
              declined = true;
              await prompt.getByTestId('xo-decline').click({ timeout: 3000 });
            } else await prompt.getByTestId('xo-peek').click({ timeout: 3000 });
            break;
          case 'book_peek':
          case 'satan_peek':
          case 'ring_target':
          case 'sanction_target':
          case 'name_seeker':
          case 'tie_pick': {
            const choices = prompt.getByTestId('xo-choice');
            const n = await choices.count();
            await choices.nth(Math.floor(Math.random() * n)).click({ timeout: 3000 });
            break;
          }
          default:
            throw new Error(`an Exorcist prompt the test does not know: ${kind}`);
        }
      } catch (e) {
        // The prompt changed under the tap (a time-out, a bot): read it again.
        if (!/Timeout|detached|not attached|disabled|not visible|intercepts/.test(String(e))) throw e;
      }
      await sleep(80);
    }
    const result = ((await page.getByTestId('result').textContent()) || '').trim();
    if (!/\bwins?\b|Game over/.test(result)) throw new Error(`the result reads "${result}"`);
    // X7.4, X11.4: every Role of the finished round is shown.
    await page.getByTestId('xo-history').waitFor();
    const roles = await page.locator('[data-testid=xo-history] .xo-roles li').count();
    if (roles < 5) throw new Error(`the round reveal shows ${roles} Roles`);
    if (!seen.select_card) throw new Error(`no card was selected by hand: ${JSON.stringify(seen)}`);
    await noSideScroll(page, 'the finished Exorcist table');
    await shot(page, 'exorcist-end-phone');
    // X8: during the tie mini-game no deal is in play: the board never shows "This deal: nothing
    // turned up yet" then, but the mini-game. The view is this table's own, as the engine shows
    // it during a tie (no round: deal 0, an empty centre), rendered by the page's own module.
    const final = (await call('GET', `/tables/${tableId}`)).view;
    const tie = await page.evaluate(async (v) => {
      const [{ ExorcistBoard }, { html }, { render }] = await Promise.all([import('/src/exorcist.js'), import('/src/lib.js'), import('preact')]);
      const view = { ...v, result: null, deal: 0, deal_revealed: 0, centre: [], holy: 0, cursed: 0, holy_revealed: 0, cursed_revealed: 0,
        tie: { players: [0, 1], layout: 1, available: [1, 2, 3, 4, 5], revealed: [], pick_rounds: 2, picks: [] } };
      const el = document.createElement('div');
      document.body.append(el);
      render(html`<${ExorcistBoard} view=${view} table=${null} me=${0} />`, el);
      const out = { text: el.innerText, centre: !!el.querySelector('.xo-centre'), status: (el.querySelector('[data-testid=xo-tie-status]') || {}).textContent || '',
        tie: !!el.querySelector('[data-testid=xo-tie]') };
      render(null, el);
      el.remove();
      return out;
    }, final);
    if (tie.centre || /nothing turned up/.test(tie.text)) throw new Error(`during the tie mini-game the board shows a deal: ${tie.text}`);
    if (!tie.tie || !/tie mini-game · pick round 3/.test(tie.status)) throw new Error(`during the tie mini-game the status reads "${tie.status}"`);
    // The seat never timed out: every prompt was answered by tapping.
    const seat = t0.table.seats.indexOf(me);
    const all = await call('GET', `/tables/${tableId}/replay/steps`);
    const timeouts = all.steps.filter((/** @type {any} */ s) => s.event.type === 'timed_out' && (s.event.payload.seats || []).includes(seat)).length;
    if (timeouts) throw new Error(`the seat timed out ${timeouts} time(s)`);
    // X11.3, X11.4: after the game a spectator's table page lists what each seat saw under its
    // seer's name (the log names the seer of every entry).
    const watcher = await newPage({ width: 390, height: 844 });
    await watcher.page.goto(`${base}/tables/${tableId}`);
    const seers = watcher.page.locator('[data-testid=xo-note-list] li[data-seer]');
    await seers.first().waitFor();
    const seerSet = new Set(await seers.evaluateAll((els) => els.map((e) => e.getAttribute('data-seer'))));
    if (seerSet.size !== 5) throw new Error(`a spectator's "What the players saw" names ${seerSet.size} seers, not 5`);
    await watcher.context.close();
    // The replay renders the game's steps with the same board.
    await page.getByTestId('replay-link').click();
    await page.getByTestId('replay-page').waitFor();
    await page.getByTestId('xo-board').waitFor();
    await page.getByTestId('end').click();
    await page.locator('[data-testid=xo-board] [data-testid=result]').waitFor();
    await noSideScroll(page, 'the Exorcist replay');
    await shot(page, 'exorcist-replay-phone');
    const steps = await page.getByTestId('step').textContent();
    // X11.3, X11.4: after the game the replay shows, at each step, what every seat had seen: at
    // the round's start each seat's own Role look is new; at the end every seat's dealt cards,
    // and each Role peek under its peeker.
    const panel = page.getByTestId('xo-seen');
    const seats = panel.getByTestId('xo-seen-seat');
    if ((await seats.count()) !== 5) throw new Error(`the replay's "What players saw" lists ${await seats.count()} seats`);
    const startStep = all.steps.findIndex((/** @type {any} */ s) => (s.event.type === 'full' ? s.event.event : s.event).type === 'round_started') + 1;
    await page.getByTestId('move').nth(startStep - 1).click();
    await page.getByTestId('step').filter({ hasText: `${startStep} /` }).waitFor();
    if ((await panel.getByTestId('xo-seen-new').count()) !== 5) throw new Error(`at the round's start ${await panel.getByTestId('xo-seen-new').count()} seats saw something new`);
    for (let s = 0; s < 5; s++) {
      await seats.nth(s).locator('summary').click();
      await seats.nth(s).locator('li', { hasText: 'own Role tile' }).waitFor();
    }
    await noSideScroll(page, 'the replay\'s "What players saw" at phone width');
    await shot(page, 'exorcist-replay-seen-start-phone');
    await page.getByTestId('end').click();
    await page.getByTestId('step').filter({ hasText: `${all.total} / ${all.total}` }).waitFor();
    for (let s = 0; s < 5; s++) await seats.nth(s).locator('li', { hasText: 'dealt' }).first().waitFor();
    const peeks = all.steps.map((/** @type {any} */ s) => (s.event.type === 'full' ? s.event.event : s.event))
      .filter((/** @type {any} */ e) => e.type === 'role_peeked' && e.payload.peeker !== e.payload.target && e.payload.seen);
    for (const e of peeks) {
      const target = t0.table.seats[e.payload.target] || `Seat ${e.payload.target + 1}`;
      await seats.nth(e.payload.peeker).locator('li', { hasText: `${target}'s Role tile` }).first().waitFor({ timeout: 3000 });
    }
    await noSideScroll(page, 'the replay\'s "What players saw" at the end');
    await panel.scrollIntoViewIfNeeded();
    await shot(page, 'exorcist-replay-seen-phone');
    // A rematch: a new practice table of the game with the same settings, seats and bots.
    await page.goto(`${base}/tables/${tableId}`);
    await page.getByTestId('rematch').click();
    await page.waitForFunction((old) => /^\/tables\/[^/]+$/.test(location.pathname) && !location.pathname.endsWith(old), tableId);
    await page.locator('[data-testid=table-page][data-game=exorcist]').waitFor();
    const again = page.url().split('/tables/')[1].split(/[?#/]/)[0];
    const t1 = (await call('GET', `/tables/${again}`)).table;
    const alike = (/** @type {any} */ t) => JSON.stringify([t.game, t.practice, t.seats, t.bots, t.settings.target, t.settings.first_seeker, t.clocks]);
    if (alike(t1) !== alike(t0.table) || t1.status === 'open') throw new Error(`the rematch: ${JSON.stringify(t1)} after ${JSON.stringify(t0.table)}`);
    await page.locator('[data-testid=viewer]', { hasText: `You play ${me}` }).waitFor();
    await shot(page, 'exorcist-rematch-phone');
    // Conceding from the page: the seat stays, marked conceded, and the button goes.
    page.once('dialog', (d) => d.accept());
    await page.getByTestId('concede').click();
    await page.locator('.badge', { hasText: 'conceded' }).first().waitFor();
    await page.getByTestId('concede').waitFor({ state: 'detached' });
    if (!(await call('GET', `/tables/${again}`)).view?.conceded?.includes(t1.seats.indexOf(me))) throw new Error('the concession was not recorded');
    const real = errors.filter((e) => !/status of 409/.test(e));
    if (real.length) throw new Error(`page errors: ${real.join('; ')}`);
    await context.close();
    return `${result}; answered by tapping ${Object.entries(seen).map(([k, n]) => `${k}×${n}`).join(', ')}; 0 time-outs; replay ${steps}, ${peeks.length} Role peeks of others shown; rematch ${again.slice(0, 8)}`;
  });

  /** The Final Flicker's own words, which an Exorcist gathering's pages never use. */
  const FLICKER_WORDS = /Final Ritual|Last Lit|Ritual|Salt|classes/;

  test("Let's Call the Exorcist: an organiser runs a 20-bot gathering from the console, followed live on a phone to its winner", async () => {
    const { context, page, errors } = await newPage({ width: 1366, height: 900 });
    const org = `org-xo-${RUN}`;
    await uiSignUp(page, org, 'organiser');
    await page.click('nav >> text=Organiser');
    const form = page.getByTestId('create-gathering');
    await form.getByTestId('gathering-game').selectOption('lets-call-the-exorcist');
    await page.locator('[data-testid=create-gathering][data-game=lets-call-the-exorcist]').waitFor();
    // Only the settings that apply (rules decision 72): none of The Final Flicker's.
    for (const sel of ['select[name=ruleset]', 'select[name=final_dark]', 'select[name=salt_window]', 'input[name=round_limit]', '[data-testid=class-settings]']) {
      if (await form.locator(sel).count()) throw new Error(`the Exorcist form shows The Final Flicker's ${sel}`);
    }
    await form.getByTestId('min-players').filter({ hasText: 'X2.1' }).waitFor();
    await form.getByTestId('help-target').filter({ hasText: 'X4.5' }).waitFor();
    if ((await form.locator('select[name=advance]').inputValue()) !== '1') throw new Error('the Exorcist advances 1 by default (rules decision 73)');
    if ((await form.locator('input[name=max_circle]').getAttribute('max')) !== '8') throw new Error('the largest circle is not bounded by X2.1');
    await form.locator('input[name=name]').fill('Exorcism Night');
    await form.locator('input[name=target]').fill('3');
    await form.locator('select[name=advance]').selectOption('2');
    await form.locator('input[name=bot_delay_ms]').fill('10');
    await shot(page, 'exorcist-console-form');
    await form.locator('button[type=submit]').click();
    const consoleBox = page.locator('[data-testid=console][data-game=lets-call-the-exorcist]');
    await consoleBox.waitFor();
    await page.locator('[data-testid=set-game]', { hasText: "Let's Call the Exorcist" }).waitFor();
    await page.locator('[data-testid=set-target]', { hasText: '3' }).waitFor();
    await page.locator('[data-testid=set-min-players]', { hasText: 'at least 4' }).waitFor();
    const mine = (await call('GET', '/gatherings')).filter((/** @type {any} */ g) => g.organiser === org);
    const s = mine.length === 1 ? mine[0].settings : {};
    if (s.game !== 'lets-call-the-exorcist' || s.target !== 3 || s.advance !== 2 || s.bot_delay_ms !== 10) throw new Error(`the settings: ${JSON.stringify(s)}`);
    // X2.1: three players are too few to start.
    await page.fill('input[name=bots]', '3');
    await page.getByTestId('add-bots').click();
    await page.locator('[data-testid=console] summary', { hasText: '3 registered' }).waitFor();
    await page.getByTestId('too-few').filter({ hasText: 'at least 4' }).waitFor();
    if (!(await page.getByTestId('start').isDisabled())) throw new Error('Start is offered with 3 players');
    await page.fill('input[name=bots]', '17');
    await page.getByTestId('add-bots').click();
    await page.locator('[data-testid=console] summary', { hasText: '20 registered' }).waitFor();
    await page.locator('[data-testid=preview]', { hasText: '7+7+6' }).waitFor();
    await page.getByTestId('start').click();
    const gid = ((await page.getByTestId('open-gathering').getAttribute('href')) || '').split('/').pop();
    // A phone follows the gathering page live, from the circles to the winner, with no reload.
    const phone = await newPage(PHONE);
    await phone.page.goto(`${base}/gatherings/${gid}`);
    await phone.page.locator('[data-testid=gathering-page] [data-testid=stage]').first().waitFor();
    await phone.page.getByTestId('gathering-game').filter({ hasText: "Let's Call the Exorcist" }).waitFor();
    await noSideScroll(phone.page, 'the live Exorcist gathering page');
    await shot(phone.page, 'exorcist-gathering-live-phone');
    await phone.page.getByTestId('winner').waitFor({ timeout: 60_000 });
    const winner = ((await phone.page.getByTestId('winner').textContent()) || '').trim();
    // The last stage is the Final table; circles show each player's points, and so do the standings.
    const stages = await phone.page.getByTestId('stage').locator('h3').allTextContents();
    if (stages.length < 2 || stages[stages.length - 1] !== 'Final table') throw new Error(`the stages read ${stages.join(' | ')}`);
    await phone.page.getByTestId('progress').filter({ hasText: 'the Final table has ended' }).waitFor();
    await phone.page.locator('[data-testid=standings] tbody tr').nth(19).waitFor();
    const points = await phone.page.getByTestId('standing-points').allTextContents();
    if (points.length !== 20 || points.some((p) => !/^\d+$/.test(p.trim()))) throw new Error(`the standings' points: ${points.join(', ')}`);
    if (!(await phone.page.getByTestId('circle-points').count())) throw new Error('no circle shows its points');
    const words = (await phone.page.locator('#content main').innerText()) || '';
    if (FLICKER_WORDS.test(words)) throw new Error(`the Exorcist gathering page speaks The Final Flicker: ${words.match(FLICKER_WORDS)}`);
    await noSideScroll(phone.page, 'the finished Exorcist gathering page');
    await shot(phone.page, 'exorcist-gathering-phone');
    // Rules decision 73: a finished circle of stage 1 says who advances (two here), not only who won.
    const bracket = await call('GET', `/gatherings/${gid}/bracket`);
    const first = bracket.stages[0].circles.find((/** @type {any} */ c) => c.status === 'finished' && c.last_lit.length === 2);
    if (!first) throw new Error(`no circle of stage 1 sent on two: ${JSON.stringify(bracket.stages[0].circles.map((/** @type {any} */ c) => c.last_lit))}`);
    await phone.page.goto(`${base}/tables/${first.table_id}`);
    await phone.page.locator('[data-testid=table-page][data-game=exorcist]').waitFor();
    await phone.page.getByTestId('advancing').filter({ hasText: `${first.last_lit[0]} and ${first.last_lit[1]} advance` }).waitFor();
    const advanced = ((await phone.page.getByTestId('result').textContent()) || '').trim();
    await noSideScroll(phone.page, 'a finished Exorcist circle');
    await shot(phone.page, 'exorcist-circle-advance-phone');
    await phone.page.goto(`${base}/gatherings/${gid}`);
    // The Final table's own page says so, with the gathering's bar.
    await phone.page.getByTestId('stage').last().getByTestId('circle-link').click();
    await phone.page.locator('[data-testid=table-page][data-game=exorcist]').waitFor();
    await phone.page.getByTestId('table-title').filter({ hasText: 'The Final table' }).waitFor();
    await phone.page.getByTestId('circle-nav').filter({ hasText: 'Final table' }).waitFor();
    await noSideScroll(phone.page, 'the Exorcist Final table');
    await shot(phone.page, 'exorcist-final-table-phone');
    // The console shows the same winner.
    await page.getByTestId('console-winner').waitFor({ timeout: 30_000 });
    const consoleWinner = ((await page.getByTestId('console-winner').textContent()) || '').replace('Winner:', '').trim();
    if (!winner.startsWith(consoleWinner)) throw new Error(`the console's winner ${consoleWinner}, the page's ${winner}`);
    await shot(page, 'exorcist-console');
    await page.setViewportSize(PHONE);
    await noSideScroll(page, 'the Exorcist console at phone width');
    await shot(page, 'exorcist-console-phone');
    const all = [...errors, ...phone.errors];
    if (all.length) throw new Error(`page errors: ${all.join('; ')}`);
    await phone.context.close();
    await context.close();
    return `${winner}; stages ${stages.join(' → ')}; a circle: "${advanced}"`;
  });
}
