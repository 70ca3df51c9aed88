// What a table of a gathering shows of its gathering (for spectators and players alike, at
// either game's table): its title, links to the other circles of its stage and to the
// gathering, and a pause banner that appears as soon as the gathering stream says it paused
// (not at the next poll).
import { api, html, useData, useStream } from './lib.js';
import { useState } from 'preact/hooks';
import { gatheringWords } from './games.js';

/**
 * @typedef {import('./api.js').TableGathering} TableGathering
 * @typedef {import('./api.js').TableInfo} TableInfo
 * @typedef {import('./api.js').Bracket} Bracket
 */

/**
 * The table's title: a practice table, a circle of a stage, or the gathering's last stage of
 * a single circle (R9.4's Final Ritual; the Exorcist's Final table, rules decision 74), from
 * the bracket.
 * @param {TableInfo} t @param {Bracket | null | undefined} bracket
 */
export function circleTitle(t, bracket) {
  const g = t.gathering;
  if (!g) return 'Practice table';
  const stage = bracket && Array.isArray(bracket.stages) ? bracket.stages.find((s) => s.stage === g.stage) : null;
  if (stage && stage.final_ritual) return `The ${gatheringWords(bracket && bracket.game).final}`;
  return `Stage ${g.stage}, circle ${g.circle}`;
}

/**
 * Whether a gathering event leaves the gathering paused, running or neither (`null`: no change).
 * @param {string} type a `GatheringEvent` type
 * @returns {boolean | null}
 */
export function pausedAfter(type) {
  if (type === 'gathering_paused') return true;
  if (type === 'gathering_resumed' || type === 'gathering_cancelled' || type === 'gathering_ended') return false;
  return null;
}

/**
 * The gathering bar of a table: the gathering's name, its stage's circles (this one marked),
 * and a pause banner. Renders nothing for a table outside a gathering.
 * @param {{ gathering: TableGathering | null | undefined, tableId: string }} props
 */
export function CircleNav({ gathering, tableId }) {
  const gid = gathering ? gathering.gathering_id : null;
  const bracket = useData(() => (gid ? /** @type {Promise<Bracket>} */ (api('GET', `/gatherings/${gid}/bracket`, { anonymous: true })) : Promise.resolve(null)), [gid]);
  // The stream's word wins over the bracket's status once anything arrived.
  const [paused, setPaused] = useState(/** @type {boolean | null} */ (null));
  const over = !!bracket.data && (bracket.data.status === 'finished' || bracket.data.status === 'cancelled');
  useStream(gid && !over ? `/gatherings/${gid}/stream` : null, (type) => {
    const p = pausedAfter(type);
    if (p !== null) setPaused(p);
    if (type === 'stage_drawn' || type === 'stage_opened' || type === 'circle_ended' || type === 'gathering_ended') bracket.reload();
  });
  if (!gathering || !gid) return null;
  const b = bracket.data;
  const isPaused = paused ?? (!!b && b.status === 'paused');
  const stage = b ? b.stages.find((st) => st.stage === gathering.stage) : undefined;
  const words = gatheringWords(b && b.game);
  return html`<nav class="circle-nav" aria-label="Circles of this stage" data-testid="circle-nav">
    ${isPaused && html`<p class="pause-banner" role="status" data-testid="pause-banner">Paused by the organiser: clocks and bots are stopped until the gathering resumes.</p>`}
    <a href=${`/gatherings/${gid}`}>${b ? b.name : 'Gathering'}</a>
    ${stage && html`<span class="muted">${stage.final_ritual ? words.final : `Stage ${stage.stage}`}:</span>
      ${stage.circles.map((c) => c.table_id === tableId
        ? html`<span class="current" aria-current="page">${stage.final_ritual ? 'Final table' : `Circle ${c.circle}`}</span>`
        : html`<a href=${`/tables/${c.table_id}`} data-testid="other-circle">Circle ${c.circle}<span class="muted"> · ${c.status}</span></a>`)}`}
  </nav>`;
}
