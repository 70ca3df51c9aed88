// The replay's "What players saw" panel of a Let's Call the Exorcist table: at the current step,
// what each seat had legitimately seen so far (X11.3: its dealt sets, its Role looks and its
// peeks, with what they showed). After the game the complete record is public (X11.4), so the
// replay's views carry every seat's private log, each entry naming its `seer`. The table page's
// "What the players saw" (a spectator after the game, the commentary view) groups the same way.
import { html } from './lib.js';
import { seatName } from './board.js';
import { cardName } from './exorcist.js';

/**
 * @typedef {import('./api.js').ReplaySteps} ReplaySteps
 * @typedef {import('./api.js').TableInfo} TableInfo
 * @typedef {import('./api.js').Schemas['ExorcistLogNote']} LogNote
 */

const ROLE = { innocent: 'Innocent', possessed: 'Possessed' };

/**
 * A note in words, from its seer's side.
 * @param {any} n @param {number} seat the seer @param {TableInfo | null} table
 */
export function noteText(n, seat, table) {
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
  const step = replay.steps[n - 1];
  const log = /** @type {any[]} */ ((step && /** @type {any} */ (step.view).log) || []);
  const before = n > 1 ? /** @type {any[]} */ (/** @type {any} */ (replay.steps[n - 2].view).log || []) : [];
  const old = new Set(before.map((x) => JSON.stringify(x)));
  const players = /** @type {number} */ (/** @type {any} */ (step.view).players || (table ? table.seats.length : 0));
  /** @type {{ n: any, fresh: boolean }[][]} */
  const bySeat = Array.from({ length: players }, () => []);
  for (const note of log) {
    const s = note.seer;
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
