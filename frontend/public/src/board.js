// The circle: every seat (name, class, Candle, hand, Shadow halves with haunter markers, Walls),
// The Dark, the Resolving area, whose turn and what is pending, and the clock.
import { html, useNow } from './lib.js';
import { Card, CardBack, cardText } from './cards.js';
import { ordinal } from './describe.js';
import { Icon } from './icons.js';
import { className, classText } from './classes.js';

/**
 * The API's shapes, generated from openapi/openapi.json (see api.js).
 * @typedef {import('./api.js').CardView} CardView
 * @typedef {import('./api.js').GhostView} GhostView
 * @typedef {import('./api.js').PlayerView} PlayerView
 * @typedef {import('./api.js').View} View
 * @typedef {import('./api.js').ClockView} ClockView
 * @typedef {import('./api.js').TableInfo} TableInfo
 */

/**
 * What the board lets the viewer click: seats (targets) and ghosts.
 * @typedef {{ seats?: Map<number, string>, ghosts?: Map<number, string>, onSeat?: (seat: number) => void,
 *   onGhost?: (handle: number, owner: number) => void }} Targeting
 */

/** @type {Record<string, string>} */
const PHASE = {
  turn_order: 'Choosing the turn order', haunting: 'The Haunting', draw: 'The Draw', ritual: 'The Ritual',
  action: 'An action resolves', burden: 'The Burden', am_i_alive: 'Am I Alive?', elimination: 'An elimination',
  finished: 'The game has ended',
};

/** @type {Record<string, string>} */
export const PROMPT_KIND = {
  turn_order_choice: 'turn order choice', haunting_choice: 'Haunting choice', ritual: 'Ritual',
  salt: 'Salt or Pass', counter_salt: 'counter-Salt', sight_pick: 'Sight pick', medium_pick: 'Medium pick',
  burden_discard: 'Burden discard', death_split: 'death split', choose_class: 'class choice', reaction: 'class reaction',
  martyr_draw: 'Martyr draw', trader_swap: 'Trader swap', plague_spread: 'Plague spread', watcher_pick: 'Watcher pick',
  omen_play: 'Omen play', sadist_pick: 'Sadist pick',
};

/** A seat's display name. @param {TableInfo | null | undefined} table @param {number | null | undefined} seat */
export function seatName(table, seat) {
  if (seat === null || seat === undefined) return 'nobody';
  const n = table && table.seats && table.seats[seat];
  return n || `Seat ${seat + 1}`;
}

/** Whom the game waits for, in words. @param {View} view @param {TableInfo | null} table */
export function pendingText(view, table) {
  if (view.result) return '';
  const a = view.awaiting;
  if (!a || a.awaiting === 'nothing') return view.result ? 'The game has ended' : 'Nothing pending';
  if (a.awaiting === 'window') {
    const name = view.action && view.action.action ? view.action.action.action : 'action';
    return `Salt window open on ${seatName(table, a.actor)}'s ${name}`;
  }
  const seat = /** @type {number} */ (a.seat);
  /** @type {Record<string, string>} */
  const byPhase = {
    turn_order: 'turn order choice', haunting: 'Haunting choice', ritual: 'Ritual', burden: 'Burden discard',
    elimination: 'death split',
  };
  // In an action (a counter-Salt, a pick, a class reaction) which question is asked is not
  // always public: name only whom the table waits for.
  // R2.7: once the first player is known, the turn-order phase is the class selection.
  const what = view.phase === 'turn_order' && /** @type {any} */ (view).first_player != null ? 'class choice' : byPhase[view.phase];
  return what ? `${seatName(table, seat)}: ${what}` : `Waiting for ${seatName(table, seat)}`;
}

/**
 * The end of a game in words: the winner; R9.5.2: the two Last Lit a qualifying circle sends on;
 * R7.8: a Witnessed end. @param {View} view @param {TableInfo | null} table
 */
export function resultText(view, table) {
  const r = view.result;
  if (!r) return '';
  if (r.winner !== null && r.winner !== undefined) return `${seatName(table, r.winner)} wins`;
  const lastLit = /** @type {number[]} */ (r.last_lit || []);
  const names = lastLit.map((s) => seatName(table, s)).join(' and ');
  if (r.reason === 'witnessed') return 'Witnessed: no winner';
  if (lastLit.length > 1 && table && table.gathering) return `${names} advance (Last Lit)`;
  return lastLit.length > 1 ? `No winner (Last Lit: ${names})` : 'No winner';
}

/** A countdown to `deadline`. @param {{ clock: ClockView | null | undefined, label?: string }} props */
export function Clock({ clock, label }) {
  const now = useNow(250);
  if (!clock) return html`<span class="clock none" data-testid="clock">no clock</span>`;
  if (clock.paused || !clock.deadline) return html`<span class="clock paused" data-testid="clock">⏸ paused</span>`;
  const left = Math.max(0, new Date(clock.deadline).getTime() - now);
  const secs = Math.ceil(left / 1000);
  const mm = Math.floor(secs / 60);
  const text = mm > 0 ? `${mm}:${String(secs % 60).padStart(2, '0')}` : `${secs}s`;
  return html`<span class=${`clock${secs <= 5 ? ' urgent' : ''}`} role="timer" aria-label=${`${label || 'time left'}: ${text}`}
    data-testid="clock"><${Icon} name="clock" size=${14} /> ${text}</span>`;
}

/**
 * One seat.
 * @param {{ p: PlayerView, view: View, table: TableInfo | null, me: number | null, reveal: boolean,
 *   targeting?: Targeting, style?: any }} props
 */
function Seat({ p, view, table, me, reveal, targeting, style }) {
  const name = seatName(table, p.seat);
  const bot = table && table.bots && table.bots[p.seat];
  const active = view.active === p.seat && !view.result;
  const cls = p.class || (table && /** @type {any} */ (table).classes && /** @type {any} */ (table).classes[p.seat]);
  const target = targeting && targeting.seats && targeting.seats.get(p.seat);
  const halves = { left: /** @type {GhostView[]} */ ([]), middle: /** @type {GhostView[]} */ ([]), right: /** @type {GhostView[]} */ ([]) };
  for (const g of p.shadow) (halves[g.half] || halves.middle).push(g);
  const walls = typeof p.walls === 'number' ? p.walls : Array.isArray(p.walls) ? p.walls.length : 0;
  const showHand = p.hand && (p.seat === me || reveal);
  const winner = view.result && view.result.winner === p.seat;
  /** @param {GhostView} g */
  const ghost = (g) => {
    const gt = targeting && targeting.ghosts && targeting.ghosts.get(g.card.handle);
    const haunter = g.haunter === null || g.haunter === undefined ? '' : seatName(table, g.haunter);
    const title = haunter ? `haunted by ${haunter}` : 'no haunter';
    return html`<${Card} card=${g.card} size="sm" title=${gt || title} marker=${haunter ? abbrev(haunter) : ''}
      selected=${!!gt} onClick=${gt && targeting && targeting.onGhost ? () => targeting.onGhost?.(g.card.handle, p.seat) : undefined} />`;
  };
  const left = view.players.length > 2 ? leftOf(view, p.seat) : null;
  const right = view.players.length > 2 ? rightOf(view, p.seat) : null;
  return html`<section class=${`seat${active ? ' active' : ''}${p.lit ? '' : ' out'}${p.seat === me ? ' mine' : ''}${target ? ' targetable' : ''}${winner ? ' winner' : ''}`}
    style=${style} data-seat=${p.seat} data-testid=${`seat-${p.seat}`} aria-label=${`Seat ${p.seat + 1}: ${name}`}>
    <header>
      <span class="name">${active && html`<span class="turn-dot" aria-label="their turn">●</span>`}${name}</span>
      ${bot && html`<span class="badge bot" title=${`built-in ${bot} bot`}><${Icon} name="bot" size=${12} /> bot</span>`}
      ${p.seat === me && html`<span class="badge you">you</span>`}
      ${cls && html`<span class="badge class" data-testid="class" title=${classText(cls, view.ruleset && view.ruleset.id)}>${className(cls)}</span>`}
      ${!p.lit && html`<span class="badge out">${p.placing ? ordinal(p.placing) : 'out'}</span>`}
      ${winner && html`<span class="badge win">winner</span>`}
    </header>
    <div class="zones">
      <div class="zone candle" title="Candle (face down)">
        <${CardBack} size="sm" count=${p.candle_size} label=${`Candle: ${p.candle_size} cards`} />
        <span class="zlabel">Candle</span>
      </div>
      <div class="zone hand" title="Hand">
        ${showHand
          ? html`<div class="fan">${/** @type {CardView[]} */ (p.hand).map((c) => html`<${Card} card=${c} size="xs" />`)}</div>`
          : html`<${CardBack} size="sm" count=${p.hand_size} label=${`Hand: ${p.hand_size} cards`} />`}
        <span class="zlabel" data-testid="hand-size">Hand ${p.hand_size}</span>
      </div>
    </div>
    ${reveal && p.candle && p.candle.length > 0 && html`<div class="revealed-candle" data-testid="revealed-candle">
      <span class="zlabel">Candle, top first</span>
      <div class="fan">${p.candle.map((c) => html`<${Card} card=${c} size="xs" />`)}</div></div>`}
    <div class="shadow" aria-label="Shadow">
      <div class="half left" title=${left !== null ? `Left half: haunted by ${seatName(table, left)}` : 'Left half'}>
        <span class="zlabel">${left !== null ? `◀ ${seatName(table, left)}` : 'left'}</span>
        <div class="ghosts">${halves.left.map(ghost)}</div>
      </div>
      ${(halves.middle.length > 0 || view.players.length <= 2) && html`<div class="half middle">
        <span class="zlabel">Shadow</span><div class="ghosts">${halves.middle.map(ghost)}</div></div>`}
      <div class="half right" title=${right !== null ? `Right half: haunted by ${seatName(table, right)}` : 'Right half'}>
        <span class="zlabel">${right !== null ? `${seatName(table, right)} ▶` : 'right'}</span>
        <div class="ghosts">${halves.right.map(ghost)}</div>
      </div>
      ${walls > 0 && html`<div class="half walls"><span class="zlabel">Walls</span>
        <div class="ghosts">${Array.from({ length: walls }, () => html`<${CardBack} size="xs" wall label="Wall (face down)" />`)}</div></div>`}
    </div>
    ${target && html`<button type="button" class="target-btn" data-testid=${`target-${p.seat}`}
      onClick=${() => targeting && targeting.onSeat && targeting.onSeat(p.seat)}>${target}</button>`}
  </section>`;
}

/** A short mark for a name: "mara" -> "Ma", "heuristic-bot#3" -> "H3". @param {string} name */
export function abbrev(name) {
  const digits = name.match(/(\d+)$/);
  if (digits) return `${name[0].toUpperCase()}${digits[1].replace(/^0+(?=\d)/, '')}`;
  return name.slice(0, 1).toUpperCase() + name.slice(1, 2);
}

/** Nearest Lit seat clockwise. @param {View} view @param {number} seat */
function leftOf(view, seat) {
  const n = view.players.length;
  for (let i = 1; i < n; i++) {
    const s = (seat + i) % n;
    if (view.players[s].lit) return s;
  }
  return null;
}
/** Nearest Lit seat counter-clockwise. @param {View} view @param {number} seat */
function rightOf(view, seat) {
  const n = view.players.length;
  for (let i = 1; i < n; i++) {
    const s = (seat - i + n) % n;
    if (view.players[s].lit) return s;
  }
  return null;
}

/**
 * The whole table.
 * @param {{ view: View, table: TableInfo | null, clock?: ClockView | null, me?: number | null, reveal?: boolean,
 *   targeting?: Targeting }} props
 */
export function Board({ view, table, clock, me = null, reveal = false, targeting }) {
  const n = view.players.length;
  // Seats around the table, the viewer's own seat at the bottom and its left neighbour (the next
  // seat clockwise) to its left: each seat's angle picks a cell of a 3×3 grid, the centre holding
  // The Dark. A grid (not absolute positions) keeps tall seats (a revealed Candle) from overlapping.
  const base = me === null || me === undefined ? 0 : me;
  /** @type {{ k: number, x: number, y: number, p: PlayerView }[][]} */
  const cells = Array.from({ length: 9 }, () => []);
  for (const p of view.players) {
    const k = (p.seat - base + n) % n;
    const angle = Math.PI / 2 + (2 * Math.PI * k) / n;
    const x = 50 + 40 * Math.cos(angle);
    const y = 50 + 40 * Math.sin(angle);
    const col = x < 34 ? 0 : x > 66 ? 2 : 1;
    const row = y < 29 ? 0 : y > 71 ? 2 : 1;
    cells[row * 3 + col === 4 ? (y < 50 ? 1 : 7) : row * 3 + col].push({ k, x, y, p });
  }
  const grid = cells.map((list, i) => {
    if (i === 4) return null;
    list.sort((a, b) => (i % 3 === 1 ? a.x - b.x : a.y - b.y));
    return html`<div class=${`cell c${i}`}>${list.map(({ k, p }) => html`<${Seat} p=${p} view=${view} table=${table} me=${me}
      reveal=${reveal} targeting=${targeting} style=${{ order: k }} />`)}</div>`;
  });
  const act = view.action;
  /** @type {Record<string, string>} */
  const ACT = { haunt: 'Haunt', banish: 'Banish', draft: 'Draft', omen: 'Omen', greed: 'Greed', scare: 'Scare', drain: 'Drain', sight: 'Sight', cleanse: 'Cleanse',
    recall: 'Recall', possess: 'Possess', rekindle: 'Rekindle', mirror: 'Mirror', medium: 'Medium', purge: 'Purge', boo: 'BOO!' };
  return html`<div class=${`circle n${n}`} data-testid="board">
    ${grid.slice(0, 4)}
    <div class="cell c4"><div class="centre" style=${{ order: -1 }}>
      <div class="status-line">
        <span data-testid="round">Round ${view.round || '–'}</span>
        <span class="phase" data-testid="phase">${view.phase === 'turn_order' && /** @type {any} */ (view).first_player != null ? 'Choosing classes' : PHASE[view.phase] || view.phase}</span>
      </div>
      <div class="turn" data-testid="turn">${view.result
        ? html`<strong data-testid="result">${resultText(view, table)}</strong>`
        : html`<span>${view.active !== null ? html`<strong>${seatName(table, view.active)}</strong>'s turn` : 'Setting up'}</span>`}</div>
      ${!view.result && html`<div class="pending" data-testid="pending">${pendingText(view, table)}</div>`}
      ${!view.result && clock !== undefined && html`<${Clock} clock=${clock} />`}
      <div class="piles">
        <div class="pile dark" data-testid="dark">
          ${view.dark.top ? html`<${Card} card=${view.dark.top} size="md" />` : html`<span class="card empty md">empty</span>`}
          <span class="zlabel">The Dark · ${view.dark.size}</span>
        </div>
        ${view.resolving && view.resolving.length > 0 && html`<div class="pile resolving">
          <div class="fan">${view.resolving.map((c) => html`<${Card} card=${c} size="sm" />`)}</div>
          <span class="zlabel">Resolving</span></div>`}
      </div>
      ${act && act.action && html`<div class="in-flight">${seatName(table, act.actor)}: ${ACT[act.action.action] || act.action.action}${
        'card' in act.action && act.action.card ? ` (${cardText(act.action.card)})` : ''}${'target' in act.action ? ` on ${seatName(table, act.action.target)}` : ''}</div>`}
      ${reveal && view.dark.cards && html`<details class="dark-all"><summary>All of The Dark (${view.dark.cards.length})</summary>
        <div class="fan">${view.dark.cards.map((c) => html`<${Card} card=${c} size="xs" />`)}</div></details>`}
    </div></div>
    ${grid.slice(5)}
  </div>`;
}
