// The replay's "What players saw" panel of a Let's Call the Exorcist table: at the current step,
// what each seat had legitimately seen so far (X11.3: its dealt sets, its Role looks and its
// peeks, with what they showed). After the game the complete record is public (X11.4), so the
// replay's views carry every seat's private log; the seat a Role or card peek belongs to comes
// from the peek's event (`role_peeked`, `card_peeked`: the peeker), every other note being the
// owner's own (the look at its tile, its dealt cards, its own row's cards by Cleansing Whip, Cloth
// of Transcendence or The Blessed Prepuce).
import { html } from './lib.js';
import { useMemo } from 'preact/hooks';
import { seatName } from './board.js';
import { cardName } from './exorcist.js';

/**
 * @typedef {import('./api.js').ReplaySteps} ReplaySteps
 * @typedef {import('./api.js').TableInfo} TableInfo
 * @typedef {import('./api.js').Schemas['ExorcistNoteView']} NoteView
 */

const ROLE = { innocent: 'Innocent', possessed: 'Possessed' };

/**
 * The stored event of a replay step (a complete record's steps may wrap it in `full`).
 * @param {any} ev
 * @returns {any}
 */
function inner(ev) {
  return ev && ev.type === 'full' && ev.event ? ev.event : ev;
}

/**
 * The peeker of every Role and card peek of a replay, by the stream index of its event (the
 * `at` of the notes it produced).
 * @param {ReplaySteps} replay
 * @returns {Map<number, number>}
 */
export function peekersOf(replay) {
  /** @type {Map<number, number>} */
  const by = new Map();
  for (const step of replay.steps) {
    const ev = inner(step.event);
    const p = ev && ev.payload;
    if (!p || (ev.type !== 'role_peeked' && ev.type !== 'card_peeked') || !p.seen || typeof p.seen.at !== 'number') continue;
    by.set(p.seen.at, p.peeker);
  }
  return by;
}

/**
 * Whose sight a note of the log is (X11.3).
 * @param {any} n a note
 * @param {Map<number, number>} peekers
 * @returns {number}
 */
export function noteSeat(n, peekers) {
  if (n.note === 'dealt') return n.seat;
  const by = peekers.get(n.at);
  if (by !== undefined) return by;
  return n.note === 'role' ? n.seat : n.owner;
}

/**
 * A note in words, from its seat's side.
 * @param {any} n @param {number} seat @param {TableInfo | null} table
 */
function noteText(n, seat, table) {
  const whose = (/** @type {number} */ s) => (s === seat ? 'own' : `${seatName(table, s)}'s`);
  if (n.note === 'role') return `Round ${n.round}: ${whose(n.seat)} Role tile: ${ROLE[/** @type {'innocent' | 'possessed'} */ (n.role)] || n.role}`;
  if (n.note === 'dealt') return `Round ${n.round}, deal ${n.deal}: dealt ${(n.dealt || []).map(cardName).join(', ')}`;
  if (n.note === 'card') return `${n.owner === seat ? 'Own' : `${seatName(table, n.owner)}'s`} card ${n.position} (then): ${cardName(n.card)}`;
  return '';
}

/**
 * The panel: one collapsible list per seat, the notes of the current step marked.
 * @param {{ replay: ReplaySteps, n: number, table: TableInfo | null }} props
 */
export function SeenBySeat({ replay, n, table }) {
  const peekers = useMemo(() => peekersOf(replay), [replay]);
  const step = replay.steps[n - 1];
  const log = /** @type {any[]} */ ((step && /** @type {any} */ (step.view).log) || []);
  const before = n > 1 ? /** @type {any[]} */ (/** @type {any} */ (replay.steps[n - 2].view).log || []) : [];
  const old = new Set(before.map((x) => JSON.stringify(x)));
  const players = /** @type {number} */ (/** @type {any} */ (step.view).players || (table ? table.seats.length : 0));
  /** @type {{ n: any, fresh: boolean }[][]} */
  const bySeat = Array.from({ length: players }, () => []);
  for (const note of log) {
    const s = noteSeat(note, peekers);
    if (bySeat[s]) bySeat[s].push({ n: note, fresh: !old.has(JSON.stringify(note)) });
  }
  return html`<section class="log xo-seen" aria-label="What players saw" data-testid="xo-seen"><h3>What players saw</h3>
    <p class="hint">By this step: each seat's dealt cards, Role looks and peeks (X11.3), public after the game (X11.4).</p>
    ${bySeat.map((notes, s) => {
      const fresh = notes.filter((x) => x.fresh).length;
      return html`<details class="xo-seen-seat" data-testid="xo-seen-seat" data-seat=${s}>
        <summary><b>${seatName(table, s)}</b> <span class="muted">· ${notes.length} seen</span>${fresh > 0 && html` <span class="badge new" data-testid="xo-seen-new">+${fresh} this step</span>`}</summary>
        <ol>${notes.length === 0 ? html`<li class="muted">Nothing yet.</li>` : notes.map((x, i) => html`<li key=${i} class=${x.fresh ? 'new' : ''}>${noteText(x.n, s, table)}</li>`)}</ol>
      </details>`;
    })}</section>`;
}
