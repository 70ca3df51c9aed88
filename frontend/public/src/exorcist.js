// Let's Call the Exorcist in the browser (RULES-exorcist.md, X-ids): the table page of a seat or
// a spectator (at a gathering's table, with its circle bar and pause banner), the board (rows of
// face-down cards with their sizes, the revealed cards of the deal and those set aside by deal,
// points, Seeker and Chosen, selection limits, whom the game waits for, the tie mini-game, the
// Roles of every finished round, the result), the controls of every Exorcist prompt (X12) with
// the legal answers the prompt lists, and the seat's private log (X11.3: the view's `log`,
// `known_roles`, `known_cards`, served by the server, so it survives a reload). The replay page
// renders a step with the same `ExorcistBoard`.
import { ChatPanel } from './chat.js';
import { noteText } from './exorcist-seen.js';
import { api, ApiError, errorText, html, idempotencyKey, navigate, rememberTable, useData, useSession, useStream } from './lib.js';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Clock, seatName } from './board.js';
import { CircleNav, circleTitle } from './circle-nav.js';
import { EXORCIST } from './games.js';

/**
 * @typedef {import('./api.js').Schemas} Schemas
 * @typedef {Schemas['ExorcistView']} ExorcistView
 * @typedef {Schemas['ExorcistPrompt']} ExorcistPrompt
 * @typedef {Schemas['ExorcistAnswer']} ExorcistAnswer
 * @typedef {Schemas['ExorcistCardKind']} CardKind
 * @typedef {Schemas['ExorcistCardShown']} CardShown
 * @typedef {Schemas['ExorcistViewEvent']} ExorcistViewEvent
 * @typedef {import('./api.js').TableInfo} TableInfo
 * @typedef {import('./api.js').Bracket} Bracket
 */

/** X1.3: every card kind, its name, its type and its effect in a few words. */
export const CARDS = /** @type {Record<CardKind, { name: string, type: 'holy' | 'cursed' | 'blessing' | 'mischief', text: string }>} */ ({
  cleansing_whip: { name: 'Cleansing Whip', type: 'holy', text: 'Everyone peeks at their rightmost card and passes it right (X9.1).' },
  cloth_of_transcendence: { name: 'Cloth of Transcendence', type: 'holy', text: 'Everyone peeks at their leftmost card and passes it left (X9.2).' },
  collection_plate: { name: 'Collection Plate', type: 'holy', text: 'The players with the fewest points gain 1 (X9.3).' },
  blessed_prepuce: { name: 'The Blessed Prepuce', type: 'holy', text: 'First Holy of the round: the Chosen may look at its own row (X9.4).' },
  tablet_chunk: { name: 'Tablet Chunk', type: 'holy', text: 'Seeker, then Chosen, may look at their own Role (X9.5).' },
  book_of_the_mostly_dead: { name: 'Book of the Mostly Dead', type: 'cursed', text: "The Chosen may peek at any player's Role (X9.6)." },
  that_one_ring: { name: 'That One Ring', type: 'cursed', text: 'First Cursed of the round: the Chosen takes 1 point from another (X9.7).' },
  pazuzu_bust: { name: 'Pazuzu Bust', type: 'cursed', text: "The Seeker may peek at the Chosen's Role (X9.8)." },
  piety: { name: 'Piety', type: 'blessing', text: 'The Chosen gains 1 point (X9.9).' },
  divine_sanction: { name: 'Divine Sanction', type: 'blessing', text: 'The Chosen makes another player lose 1 point (X9.10).' },
  cruel_cowardice: { name: 'Cruel Cowardice', type: 'mischief', text: 'The Chosen names the next Seeker (X9.11).' },
  hellish_hijinx: { name: 'Hellish Hijinx!', type: 'mischief', text: "Goes back face down; the Seeker picks again from someone else (X9.12)." },
  satanic_spew: { name: 'Satanic Spew!', type: 'mischief', text: "Next selection: not the Seeker's cards (X9.13)." },
  vile_violation: { name: 'Vile Violation', type: 'mischief', text: "The Chosen peeks at another's card; next selection: not that player's (X9.14)." },
  wicked_whiff: { name: 'Wicked Whiff!', type: 'mischief', text: 'Seeker and Chosen exchange their rows (X9.15).' },
  is_that_you_satan: { name: 'Is That You, Satan?', type: 'mischief', text: "Seeker's and Chosen's Roles are shuffled; the Chosen may peek at one (X9.16)." },
});

/** X12: every prompt's name in words (the prompt-coverage test checks each schema kind has one). */
export const EXORCIST_PROMPT = {
  select_card: 'card to turn up',
  hijinx_select: 'Hijinx card to turn up',
  tablet_peek: 'Tablet Chunk look',
  prepuce_peek: 'Blessed Prepuce look',
  book_peek: 'Book of the Mostly Dead peek',
  ring_target: 'That One Ring target',
  pazuzu_peek: 'Pazuzu Bust peek',
  sanction_target: 'Divine Sanction target',
  name_seeker: 'next Seeker to name',
  violation_peek: 'Vile Violation peek',
  satan_peek: 'Is That You, Satan? peek',
  tie_pick: 'tie mini-game pick',
};

const ROLE = { innocent: 'Innocent', possessed: 'Possessed' };
/** X4.2: a team as the winners of a round. */
const TEAM = { innocent: 'The Innocents', possessed: 'The Possessed' };
const LIMIT = { spew: 'Satanic Spew!', violation: 'Vile Violation' };
const REASON = { points: 'on points', tie_game: 'after the tie mini-game', tie_drawn: 'drawn after 20 tie rounds', conceded: 'by concessions' };

/** @param {CardKind | null | undefined} k */
export const cardName = (k) => (k && CARDS[k] ? CARDS[k].name : 'a card');

/** A revealed card, face up. @param {{ c: CardShown, who: (s: number) => string, small?: boolean }} props */
function FaceUp({ c, who, small }) {
  const info = CARDS[c.card];
  return html`<div class=${`xo-face ${info ? info.type : ''}${small ? ' small' : ''}`} data-testid="xo-revealed"
    title=${`${info ? info.text : ''} Turned up by ${who(c.seeker)} from ${who(c.chosen)}.`}>
    <b>${cardName(c.card)}</b>${!small && html`<span class="xo-by">from ${who(c.chosen)}</span>`}</div>`;
}

/**
 * Rules decision 73: who advances from this table's finished gathering circle (its Last Lit in
 * the bracket), when that is more than the winner alone; none at a practice table or the Final
 * table.
 * @param {TableInfo} t @param {Bracket | null | undefined} bracket
 * @returns {string[]}
 */
export function advancersOf(t, bracket) {
  const g = t.gathering;
  if (!g || !bracket || !Array.isArray(bracket.stages)) return [];
  const stage = bracket.stages.find((st) => st.stage === g.stage);
  if (!stage || stage.final_ritual) return [];
  const circle = stage.circles.find((c) => c.table_id === t.table_id);
  return circle && circle.status === 'finished' && circle.last_lit.length > 1 ? circle.last_lit : [];
}

/**
 * The board of an Exorcist table, for a seat, a spectator or a replay step. When `prompt` asks
 * for a card (or a tie pick), the legal positions are buttons that answer with `onAnswer`.
 * `advancing`: the names a finished gathering circle sends on (rules decision 73), for the result.
 * @param {{ view: ExorcistView, table: TableInfo | null, me?: number | null, prompt?: ExorcistPrompt | null,
 *   onAnswer?: (a: ExorcistAnswer) => void, busy?: boolean, advancing?: string[] }} props
 */
export function ExorcistBoard({ view, table, me = null, prompt = null, onAnswer, busy = false, advancing = [] }) {
  const who = (/** @type {number} */ s) => (s === me ? 'You' : seatName(table, s));
  const p = /** @type {any} */ (prompt);
  /** @type {Set<string>} */
  const legal = new Set(p && Array.isArray(p.cards) ? p.cards.map((/** @type {any} */ c) => `${c.owner}:${c.position}`) : []);
  const rows = view.table || [];
  const waiting = new Map((view.awaiting || []).map((a) => [a.seat, a.prompt]));
  const knownRole = (/** @type {number} */ s) => (view.known_roles || []).find((r) => r.seat === s && r.since !== null && r.since !== undefined);
  const knownCard = (/** @type {number} */ s, /** @type {number} */ pos) => (view.known_cards || []).find((k) => k.owner === s && k.position === pos);
  const seats = Array.from({ length: view.players }, (_, i) => i);
  return html`<div class="xo-board" data-testid="xo-board">
    <div class="xo-status" data-testid="xo-status">
      <span>Round <b>${view.round || '–'}</b></span>
      ${view.tie && !view.result && html`<span data-testid="xo-tie-status">X8: tie mini-game · pick round ${view.tie.pick_rounds + 1}</span>`}
      ${view.deal > 0 && html`<span>Deal <b>${view.deal}</b> · ${view.deal_revealed}/${view.players} turned up</span>`}
      ${view.holy + view.cursed > 0 && html`<span class="xo-holy" title="X4.2: the Innocents win the round when all are turned up">Holy ${view.holy_revealed}/${view.holy}</span>
      <span class="xo-cursed" title="X4.2: the Possessed win the round when all are turned up">Cursed ${view.cursed_revealed}/${view.cursed}</span>`}
      <span>Target ${view.target} points</span>
    </div>
    ${view.result && html`<div class="xo-result" data-testid="result" role="status">
      ${view.result.winner !== null && view.result.winner !== undefined
        ? html`<b>${view.result.winner === me ? 'You win' : `${seatName(table, view.result.winner)} wins`}</b> ${REASON[view.result.reason] || ''}`
        : html`<b>Game over</b> ${REASON[view.result.reason] || ''}`}
      ${advancing.length > 0 && html`<span data-testid="advancing"> · ${advancing.join(' and ')} advance</span>`}</div>`}
    <ol class="xo-players" aria-label="Players">
      ${seats.map((s) => {
        const row = rows.find((r) => r.seat === s);
        const size = row ? row.size : 0;
        const role = knownRole(s);
        const limits = (view.limits || []).filter((l) => l.seat === s);
        const asked = waiting.get(s);
        const cls = `xo-player${s === view.seeker ? ' seeker' : ''}${s === view.chosen ? ' chosen' : ''}${s === me ? ' me' : ''}${asked ? ' asked' : ''}`;
        return html`<li class=${cls} data-testid="xo-player" data-seat=${s}>
          <div class="xo-who">
            <b>${who(s)}</b>
            <span class="xo-points" data-testid="xo-points" title="Points">${view.points[s] ?? 0} pt${view.points[s] === 1 ? '' : 's'}</span>
            ${s === view.seeker && html`<span class="badge seeker">Seeker</span>`}
            ${s === view.chosen && html`<span class="badge chosen">Chosen</span>`}
            ${role && !(view.roles_now && view.roles_now[s]) && html`<span class=${`badge role ${role.role}`} title="A Role you saw (and not shuffled since)">${ROLE[role.role]}?</span>`}
            ${view.roles_now && view.roles_now[s] && html`<span class=${`badge role ${view.roles_now[s]}`}>${ROLE[view.roles_now[s]]}</span>`}
            ${limits.map((l) => html`<span class="badge limit" title="X6.5: not selectable on the next selection">${LIMIT[l.limit]}: no pick</span>`)}
            ${(view.conceded || []).includes(s) && html`<span class="badge">conceded</span>`}
            ${asked && html`<span class="badge asked" data-testid="xo-asked">${EXORCIST_PROMPT[/** @type {keyof typeof EXORCIST_PROMPT} */ (asked)] || asked}…</span>`}
          </div>
          <div class="xo-row" aria-label=${`${who(s)}'s row: ${size} face-down card${size === 1 ? '' : 's'}`}>
            ${Array.from({ length: size }, (_, i) => {
              const pos = i + 1;
              const kc = knownCard(s, pos);
              const omni = row && row.order ? row.order[i] : null;
              const label = omni || (kc && kc.card);
              const text = label ? cardName(label) : '';
              if (legal.has(`${s}:${pos}`) && onAnswer) {
                return html`<button type="button" class="xo-card pick" data-testid="xo-card" data-owner=${s} data-position=${pos} disabled=${busy}
                  aria-label=${`${who(s)}'s card ${pos}${text ? ` (${text})` : ''}`}
                  onClick=${() => onAnswer({ answer: 'card', owner: s, position: pos })}>${pos}${text && html`<small>${text}</small>`}</button>`;
              }
              return html`<span class=${`xo-card${label ? ' known' : ''}`} data-owner=${s} data-position=${pos}
                title=${kc ? `You peeked: ${text}` : ''}>${pos}${text && html`<small>${text}</small>`}</span>`;
            })}
            ${size === 0 && html`<span class="muted">no cards</span>`}
          </div>
        </li>`;
      })}
    </ol>
    ${view.resolving && html`<div class="xo-resolving"><span>Resolving:</span> <${FaceUp} c=${view.resolving} who=${who} />
      <span class="hint">${CARDS[view.resolving.card] ? CARDS[view.resolving.card].text : ''}</span></div>`}
    ${(view.centre.length > 0 || (view.deal > 0 && !view.result && !view.tie)) && html`<section class="xo-centre" aria-label="This deal's revealed cards"><h4>This deal</h4>
      <div class="xo-faces">${view.centre.length ? view.centre.map((c) => html`<${FaceUp} c=${c} who=${who} />`) : html`<span class="muted">nothing turned up yet</span>`}</div>
    </section>`}
    ${view.set_aside.length > 0 && html`<section class="xo-aside" aria-label="Set aside by deal"><h4>Set aside</h4>
      ${view.set_aside.map((deal, i) => html`<div class="xo-deal"><span class="muted">Deal ${deal[0] ? deal[0].deal : i + 1}:</span>
        <div class="xo-faces">${deal.map((c) => html`<${FaceUp} c=${c} who=${who} small=${true} />`)}</div></div>`)}</section>`}
    ${view.tie && html`<${TieRow} view=${view} who=${who} prompt=${p && p.prompt === 'tie_pick' ? p : null} onAnswer=${onAnswer} busy=${busy} />`}
    ${view.history.length > 0 && html`<section class="xo-history" aria-label="Finished rounds" data-testid="xo-history"><h4>Rounds</h4>
      ${view.history.slice().reverse().map((r) => html`<div class="xo-round"><b>Round ${r.round}: ${TEAM[r.winning_team]} win</b>${' '}<span class="muted">(+2 for ${r.scorers.map(who).join(', ') || 'nobody'})</span>
        <ul class="xo-roles">${r.roles.map((x) => html`<li class=${`role ${x.role}`}>${who(x.seat)}: ${ROLE[x.role]}</li>`)}</ul></div>`)}</section>`}
  </div>`;
}

/**
 * X8: the tie mini-game's row: its five positions, the cards revealed on it, the pick.
 * @param {{ view: ExorcistView, who: (s: number) => string, prompt: any, onAnswer?: (a: ExorcistAnswer) => void, busy: boolean }} props
 */
function TieRow({ view, who, prompt, onAnswer, busy }) {
  const tie = view.tie;
  if (!tie) return null;
  const revealed = new Map(tie.revealed.map((r) => [r.position, r.tie_card]));
  return html`<section class="xo-tie" aria-label="Tie mini-game" data-testid="xo-tie"><h4>Tie mini-game (row ${tie.layout})</h4>
    <p class="hint">${tie.players.map(who).join(', ')} each pick a position; the one who alone finds the Blessing wins (X8).</p>
    <div class="xo-row">${[1, 2, 3, 4, 5].map((pos) => {
      const shown = revealed.get(pos);
      const mine = tie.picks.find((x) => x.pick === pos);
      if (prompt && prompt.positions.includes(pos) && onAnswer) {
        return html`<button type="button" class="xo-card pick" data-testid="xo-tie-pos" disabled=${busy}
          onClick=${() => onAnswer({ answer: 'pick', position: pos })}>${pos}</button>`;
      }
      return html`<span class=${`xo-card${shown ? ` ${shown}` : ''}${tie.available.includes(pos) ? '' : ' gone'}`}>${pos}
        ${shown && html`<small>${shown === 'blessing' ? 'Blessing' : 'Mischief'}</small>`}${mine && html`<small>picked</small>`}</span>`;
    })}</div></section>`;
}

/**
 * The open prompt's controls (X12): every kind with the legal answers the prompt lists.
 * @param {{ prompt: ExorcistPrompt | null, clock: any, view: ExorcistView, table: TableInfo | null,
 *   answer: (a: ExorcistAnswer) => void, busy: boolean }} props
 */
export function ExorcistPromptPanel({ prompt, clock, view, table, answer, busy }) {
  if (!prompt) {
    return html`<section class="prompt idle" data-testid="prompt-idle"><p>${view.result ? 'The game is over.' : 'Nothing to decide right now.'}</p></section>`;
  }
  const p = /** @type {any} */ (prompt);
  const who = (/** @type {number} */ s) => (s === prompt.seat ? 'yourself' : seatName(table, s));
  const kind = /** @type {keyof typeof EXORCIST_PROMPT} */ (p.prompt);
  const btn = (/** @type {string} */ label, /** @type {ExorcistAnswer} */ a, /** @type {string} */ testid, main = false) =>
    html`<button type="button" disabled=${busy} data-testid=${testid} data-main=${main ? '' : undefined}
      class=${a.answer === 'decline' ? 'secondary' : ''} onClick=${() => answer(a)}>${label}</button>`;
  const seatsAs = (/** @type {number[]} */ seats, /** @type {(s: number) => string} */ label, /** @type {'player' | 'peek_tile'} */ kindOf) =>
    html`<div class="xo-choices">${seats.map((s, i) => btn(label(s), kindOf === 'player' ? { answer: 'player', seat: s } : { answer: 'peek_tile', seat: s }, 'xo-choice', i === 0))}</div>`;
  const decline = btn('Decline', { answer: 'decline' }, 'xo-decline');
  const randomCard = () => {
    const cards = /** @type {{ owner: number, position: number }[]} */ (p.cards || []);
    const c = cards[Math.floor(Math.random() * cards.length)];
    if (c) answer({ answer: 'card', owner: c.owner, position: c.position });
  };
  /** @type {any} */
  let body;
  switch (p.prompt) {
    case 'select_card':
      body = html`<p>You are the Seeker: tap a highlighted card in another player's row to turn it up (X6.1).</p>
        ${p.lifted.length > 0 && html`<p class="hint">Lifted (no legal card otherwise): ${p.lifted.map((/** @type {'spew' | 'violation'} */ l) => LIMIT[l]).join(', ')}.</p>`}
        <button type="button" class="secondary" disabled=${busy} data-testid="xo-random-card" onClick=${randomCard}>Any card (at random)</button>`;
      break;
    case 'hijinx_select':
      body = html`<p>Hellish Hijinx! went back: tap a highlighted card of a player not yet Chosen in this chain (X9.12).</p>
        <button type="button" class="secondary" disabled=${busy} data-testid="xo-random-card" onClick=${randomCard}>Any card (at random)</button>`;
      break;
    case 'violation_peek':
      body = html`<p>Vile Violation: tap a highlighted card of another player to peek at it; that player's cards may not be picked next (X9.14).</p>
        <button type="button" class="secondary" disabled=${busy} data-testid="xo-random-card" onClick=${randomCard}>Any card (at random)</button>`;
      break;
    case 'tablet_peek':
      body = html`<p>Tablet Chunk: look at your own Role tile? (X9.5)</p><div class="xo-choices">${btn('Look at my Role', { answer: 'peek' }, 'xo-peek', true)}${decline}</div>`;
      break;
    case 'prepuce_peek':
      body = html`<p>The Blessed Prepuce: look at every card of your row? (X9.4)</p><div class="xo-choices">${btn('Look at my row', { answer: 'peek' }, 'xo-peek', true)}${decline}</div>`;
      break;
    case 'pazuzu_peek':
      body = html`<p>Pazuzu Bust: look at ${seatName(table, p.target)}'s Role tile? (X9.8)</p><div class="xo-choices">${btn(p.target === prompt.seat ? 'Look at my own Role' : `Look at ${seatName(table, p.target)}'s Role`, { answer: 'peek' }, 'xo-peek', true)}${decline}</div>`;
      break;
    case 'book_peek':
      body = html`<p>Book of the Mostly Dead: peek at one player's Role tile (X9.6).</p>
        ${seatsAs(p.seats, (s) => (s === prompt.seat ? 'My own Role' : `${seatName(table, s)}'s Role`), 'peek_tile')}<div class="xo-choices">${decline}</div>`;
      break;
    case 'satan_peek':
      body = html`<p>Is That You, Satan?: the two tiles were shuffled; look at one of them (X9.16).</p>
        ${seatsAs(p.seats, (s) => (s === prompt.seat ? 'My own Role' : `${seatName(table, s)}'s Role`), 'peek_tile')}<div class="xo-choices">${decline}</div>`;
      break;
    case 'ring_target':
      body = html`<p>That One Ring: take 1 point from (X9.7):</p>${seatsAs(p.seats, (s) => `${who(s)} (${view.points[s]} pts)`, 'player')}`;
      break;
    case 'sanction_target':
      body = html`<p>Divine Sanction: who loses 1 point? (X9.10)</p>${seatsAs(p.seats, (s) => `${who(s)} (${view.points[s]} pts)`, 'player')}`;
      break;
    case 'name_seeker':
      body = html`<p>Cruel Cowardice: name the next Seeker (X9.11).</p>${seatsAs(p.seats, (s) => who(s), 'player')}`;
      break;
    case 'tie_pick':
      body = html`<p>Tie mini-game: pick a position; the picks are revealed together (X8.3).</p>
        <div class="xo-choices">${p.positions.map((/** @type {number} */ pos, /** @type {number} */ i) => btn(`Position ${pos}`, { answer: 'pick', position: pos }, 'xo-choice', i === 0))}</div>`;
      break;
    default:
      // A prompt newer than this page: its default answer (X12) is still legal.
      body = html`<p>A decision this page does not know (${String(p.prompt)}).</p>${btn('Answer with the default', p.default, 'xo-default', true)}`;
  }
  return html`<section class=${`prompt xo-prompt kind-${p.prompt}`} data-testid="prompt" data-kind=${p.prompt} data-prompt-id=${String(p.id)} aria-live="polite">
    <header><h3>Your ${EXORCIST_PROMPT[kind] || 'decision'}</h3><${Clock} clock=${clock} /></header>
    ${p.cause && html`<p class="hint">Because of ${cardName(p.cause)}: ${CARDS[/** @type {CardKind} */ (p.cause)] ? CARDS[/** @type {CardKind} */ (p.cause)].text : ''}</p>`}
    ${body}</section>`;
}

/**
 * X11.3: what the viewer legitimately saw (the view's `log`), and what it knows now
 * (`known_roles`, `known_cards`: seen and not shuffled since).
 * @param {{ view: ExorcistView, table: TableInfo | null, me: number | null }} props
 */
export function PrivateLog({ view, table, me }) {
  const Who = (/** @type {number} */ s) => (s === me ? 'Your' : `${seatName(table, s)}'s`);
  const roles = (view.known_roles || []).filter((r) => r.since !== null && r.since !== undefined);
  const cards = view.known_cards || [];
  const notes = view.log || [];
  // Every seat's log (a spectator after the game, or a seat once the game has ended): by seer.
  const everyone = me === null || notes.some((n) => n.seer !== me);
  return html`<section class="log xo-notes" aria-label=${everyone ? 'What the players saw' : 'What you saw'} data-testid="xo-notes"><h3>${everyone ? 'What the players saw' : 'What you saw'}</h3>
    ${(roles.length > 0 || cards.length > 0) && html`<p class="xo-known" data-testid="xo-known"><b>Known now:</b>
      ${roles.map((r) => html`<span class=${`badge role ${r.role}`}>${Who(r.seat)} Role: ${ROLE[r.role]}</span> `)}
      ${cards.map((c) => html`<span class="badge">${Who(c.owner)} card ${c.position}: ${cardName(c.card)}</span> `)}</p>`}
    ${everyone && notes.length > 0 && html`<p class="hint">Each seat's own looks, deals and peeks (X11.3), public after the game.</p>`}
    <ol data-testid="xo-note-list">${notes.length === 0 ? html`<li class="muted">Nothing yet.</li>` : everyone ? notes.map((n, i) => html`<li key=${i} data-seer=${n.seer}><b>${seatName(table, n.seer)}</b>: ${noteText(n, n.seer, table)}</li>`) : notes.map((n, i) => {
      const a = /** @type {any} */ (n);
      let text = '';
      if (a.note === 'role') text = `Round ${a.round}: ${Who(a.seat)} Role tile showed ${ROLE[/** @type {'innocent' | 'possessed'} */ (a.role)]}.`;
      else if (a.note === 'dealt') text = `Round ${a.round}, deal ${a.deal}: ${a.seat === me ? 'you were' : `${seatName(table, a.seat)} was`} dealt ${a.dealt.map(cardName).join(', ')}.`;
      else if (a.note === 'card') text = `A peek: ${a.owner === me ? 'your' : `${seatName(table, a.owner)}'s`} card ${a.position} was ${cardName(a.card)} then.`;
      return html`<li key=${i}>${text}</li>`;
    })}</ol></section>`;
}

/**
 * One Exorcist event in words, for the table's log and the replay's move list (public facts and
 * what this viewer's own events show it).
 * @param {any} ev @param {(s: number) => string} who
 */
export function describeExorcist(ev, who) {
  if (!ev || typeof ev !== 'object') return '';
  if (ev.type === 'full' && ev.event) return describeExorcist(ev.event, who);
  const text = sentence(ev, who);
  return text && text[0].toUpperCase() + text.slice(1);
}

/** @param {any} ev @param {(s: number) => string} name */
function sentence(ev, name) {
  const p = ev.payload || {};
  const who = (/** @type {number} */ s) => name(s);
  const whose = (/** @type {number} */ s) => (name(s) === 'you' ? 'your' : `${name(s)}'s`);
  const is = (/** @type {number} */ s) => `${name(s)} ${name(s) === 'you' ? 'are' : 'is'}`;
  switch (ev.type) {
    case 'game_created':
      return `A game to ${p.settings ? p.settings.target : '?'} points; ${is(p.first_seeker)} the first Seeker${p.drawn ? ' (drawn)' : ''}.`;
    case 'round_started':
      return `Round ${p.round}: ${p.holy} Holy and ${p.cursed} Cursed Artifacts in a deck of ${p.deck_size}.`;
    case 'deal_started':
      return `Deal ${p.deal}: ${Array.isArray(p.sizes) && p.sizes[0] !== undefined ? `${p.sizes[0]} card${p.sizes[0] === 1 ? '' : 's'} each` : 'cards dealt'}.`;
    case 'card_revealed':
      return `${who(p.seeker)} turned up ${whose(p.chosen)} card ${p.position}: ${cardName(p.card && p.card.card)}.`;
    case 'cards_passed':
      return `Everyone passed a card to the ${p.direction}.`;
    case 'points_changed':
      return (p.changes || []).map((/** @type {any} */ c) => `${who(c.seat)} ${c.delta >= 0 ? '+' : ''}${c.delta}`).join(', ') + ` (${cardName(p.cause)}).`;
    case 'role_peeked':
      return `${who(p.peeker)} peeked at ${p.peeker === p.target ? (who(p.peeker) === 'you' ? 'your own' : 'their own') : whose(p.target)} Role${p.seen ? `: ${ROLE[/** @type {'innocent' | 'possessed'} */ (p.seen.role)]}` : ''}.`;
    case 'peek_declined':
      return `${who(p.seat)} declined to look (${cardName(p.cause)}).`;
    case 'row_peeked':
      return `${who(p.peeker)} looked at ${who(p.peeker) === 'you' ? 'your' : 'their'} row${Array.isArray(p.seen) && p.seen.length ? `: ${p.seen.map(cardName).join(', ')}` : ''}.`;
    case 'card_peeked':
      return `${who(p.peeker)} peeked at ${whose(p.owner)} card ${p.position}${p.seen ? `: ${cardName(p.seen.card || p.seen)}` : ''}.`;
    case 'seeker_named':
      return `${who(p.by)} named ${who(p.seeker)} the next Seeker.`;
    case 'hijinx_returned':
      return `Hellish Hijinx! went back into ${whose(p.chosen)} row.`;
    case 'limit_set':
      return `${LIMIT[/** @type {'spew' | 'violation'} */ (p.limit)] || p.limit}: ${whose(p.seat)} cards may not be picked next.`;
    case 'rows_exchanged':
      return `${who(p.seeker)} and ${who(p.chosen)} exchanged their rows.`;
    case 'tiles_shuffled':
      return `${whose(p.seeker)} and ${whose(p.chosen)} Role tiles were shuffled.`;
    case 'turn_ended':
      return `${is(p.next_seeker)} the Seeker.`;
    case 'round_ended':
      return `Round ${p.round} over: ${TEAM[/** @type {'innocent' | 'possessed'} */ (p.winning_team)]} win; +2 for ${(p.scorers || []).map(who).join(', ') || 'nobody'}.`;
    case 'tie_row_laid':
      return `Tie mini-game for ${(p.players || []).map(who).join(', ')}.`;
    case 'tie_picked':
      return p.pick ? `${who(p.pick.seat)} picked${p.pick.pick ? ` position ${p.pick.pick}` : ''}.` : 'A pick.';
    case 'tie_revealed':
      return `Picks revealed: ${(p.picks || []).map((/** @type {any} */ x) => `${who(x.seat)} ${x.pick}`).join(', ')}.`;
    case 'tie_drawn':
      return `${is(p.winner)} drawn the winner.`;
    case 'game_ended':
      return p.winner !== null && p.winner !== undefined ? `${who(p.winner)} ${who(p.winner) === 'you' ? 'win' : 'wins'} the game.` : 'The game is over.';
    case 'timed_out':
      return `Time ran out for ${(p.seats || []).map(who).join(', ')}.`;
    case 'conceded':
      return `${who(p.seat)} conceded.`;
    default:
      return '';
  }
}

/**
 * The table page of an Exorcist table: a seat (its prompt, its private log) or a spectator.
 * `info` is the table's `GET /tables/{id}` (loaded by the dispatching `TablePage`).
 * @param {{ id: string, search: string, info: { data: any, reload: () => void } }} props
 */
export function ExorcistTablePage({ id, search, info }) {
  const me = useSession();
  const params = new URLSearchParams(search);
  const table = /** @type {TableInfo} */ (info.data.table);
  const mySeats = me ? table.seats.map((n, i) => (n === me.name ? i : -1)).filter((i) => i >= 0) : [];
  const wanted = params.has('seat') ? Number(params.get('seat')) : null;
  const seat = wanted !== null && mySeats.includes(wanted) ? wanted : mySeats.length ? mySeats[0] : null;
  const q = seat !== null ? `?seat=${seat}` : '';
  const gid = table.gathering ? table.gathering.gathering_id : null;
  const bracket = useData(() => (gid ? api('GET', `/gatherings/${gid}/bracket`, { anonymous: true }) : Promise.resolve(null)), [gid]);
  const state = useData(async () => {
    const [t, p] = await Promise.all([
      api('GET', `/tables/${id}${q}`, { anonymous: seat === null }),
      seat !== null ? api('GET', `/tables/${id}/prompt${q}`) : Promise.resolve(null),
    ]);
    return { t, p };
  }, [id, seat]);
  const [lines, setLines] = useState(/** @type {{ id: string, text: string }[]} */ ([]));
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState('');
  const [note, setNote] = useState('');
  const [rematching, setRematching] = useState(false);
  const tableRef = useRef(table);
  tableRef.current = (state.data && state.data.t.table) || table;
  useEffect(() => setLines([]), [id, seat]);
  useEffect(() => {
    if (seat !== null && table.practice) rememberTable(id, `Exorcist practice, ${table.seats.length} players`);
  }, [id, seat]);
  const status = (state.data && state.data.t.table.status) || table.status;
  const streamUrl = status && status !== 'open' ? `/tables/${id}/stream${q}` : null;
  const live = useStream(streamUrl, (type, data, evId) => {
    if (type !== 'finished') {
      const text = describeExorcist(data, (s) => (s === seat ? 'you' : seatName(tableRef.current, s)));
      if (text) setLines((ls) => (ls.some((l) => l.id === evId && evId) ? ls : [...ls, { id: evId || String(ls.length), text }]));
    }
    state.reload();
  }, { token: seat !== null, deps: [seat] });
  const openPrompt = state.data && state.data.p ? state.data.p.prompt : null;
  useEffect(() => setErr(''), [openPrompt && openPrompt.id]);
  useEffect(() => {
    document.title = openPrompt ? `● Your ${EXORCIST_PROMPT[/** @type {keyof typeof EXORCIST_PROMPT} */ (openPrompt.prompt)] || 'decision'} · Flicker` : 'Flicker';
  }, [openPrompt && openPrompt.id]);
  useEffect(() => () => { document.title = 'Flicker'; }, []);
  useEffect(() => {
    if (!note) return undefined;
    const t = setTimeout(() => setNote(''), 4000);
    return () => clearTimeout(t);
  }, [note]);
  // A slow poll as a safety net (a prompt's clock, a bot's pace).
  useEffect(() => {
    const t = setInterval(() => state.reload(), 3000);
    return () => clearInterval(t);
  }, [id, seat]);
  // A gathering circle that just ended: the bracket names who advances once it has the result.
  const over = !!(state.data && state.data.t.view && state.data.t.view.result);
  const b = /** @type {Bracket | null} */ (bracket.data);
  const circle = b && table.gathering ? b.stages.flatMap((st) => st.circles).find((c) => c.table_id === id) : null;
  const settled = !!circle && circle.status === 'finished';
  useEffect(() => {
    if (!over || !gid || settled) return undefined;
    bracket.reload();
    const t = setInterval(() => bracket.reload(), 2000);
    return () => clearInterval(t);
  }, [over, gid, settled]);
  const logRef = useRef(/** @type {HTMLOListElement | null} */ (null));
  useEffect(() => {
    const el = logRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    // Also once the page has loaded: the lines read while it loaded are there at once.
  }, [lines.length, !!state.data]);
  const sorted = useMemo(() => lines, [lines]);

  if (!state.data) return html`<main class="page"><p class="loading">Loading the table…</p></main>`;
  const { t, p } = state.data;
  const view = /** @type {ExorcistView | null} */ (t.view);
  const tinfo = /** @type {TableInfo} */ (t.table);
  const prompt = /** @type {ExorcistPrompt | null} */ (p && p.prompt ? p.prompt : null);

  /** @param {ExorcistAnswer} answer */
  async function send(answer) {
    if (!prompt) return;
    setBusy(true);
    setErr('');
    try {
      await api('POST', `/tables/${id}/answers`, {
        body: { seat, prompt_id: prompt.id, answer },
        headers: { 'Idempotency-Key': idempotencyKey() },
      });
    } catch (e) {
      if (e instanceof ApiError && /stale-prompt$/.test(e.type)) setNote('That question had just closed; here is the current one.');
      else setErr(errorText(e));
    } finally {
      setBusy(false);
      state.reload();
    }
  }

  /** A new practice table like this one: the same game, settings, clocks, seats and bots. */
  async function rematch() {
    setRematching(true);
    setErr('');
    try {
      const players = tinfo.seats.length;
      const set = /** @type {any} */ (tinfo.settings) || {};
      const r = await api('POST', '/tables', {
        body: { game: EXORCIST, players, practice: true, bot_delay_ms: 600, clocks: tinfo.clocks,
          settings: { target: set.target ?? view?.target ?? 7, first_seeker: set.first_seeker ?? null } },
      });
      const nid = r.table.table_id;
      for (let s = 0; s < players; s++) {
        const bot = tinfo.bots[s];
        await api('POST', `/tables/${nid}/seats`, { body: bot ? { seat: s, bot } : { seat: s } });
      }
      await api('POST', `/tables/${nid}/start`);
      rememberTable(nid, `Exorcist practice, ${players} players`);
      navigate(`/tables/${nid}`);
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setRematching(false);
    }
  }

  /** Concedes the seat (its answers become the defaults, X12; its tile still scores). */
  async function concede() {
    if (!confirm('Concede this game? You stay at the table: your answers become the defaults and your Role tile still scores.')) return;
    try {
      await api('POST', `/tables/${id}/concede`, { body: { seat } });
    } catch (e) {
      setErr(errorText(e));
    } finally {
      state.reload();
    }
  }

  async function start() {
    try {
      await api('POST', `/tables/${id}/start`);
      info.reload();
      state.reload();
    } catch (e) {
      setErr(errorText(e));
    }
  }

  const waitingFor = view && !view.result ? (view.awaiting || []).map((a) => `${a.seat === seat ? 'you' : seatName(tinfo, a.seat)} (${EXORCIST_PROMPT[/** @type {keyof typeof EXORCIST_PROMPT} */ (a.prompt)] || a.prompt})`) : [];
  return html`<main class="page table-page xo-page" data-testid="table-page" data-game="exorcist">
    <div class="table-head">
      <h2 data-testid="table-title">${circleTitle(tinfo, bracket.data)}
        <span class="sub"> · Let's Call the Exorcist · ${tinfo.table_id.slice(0, 8)}</span></h2>
      <div class="head-meta">
        <span class=${`live-dot ${live}`} title=${`stream: ${live}`}>${live === 'live' ? 'live' : live}</span>
        <span data-testid="viewer">${seat !== null ? `You play ${seatName(tinfo, seat)}` : 'You are watching as a spectator'}</span>
        ${tinfo.gathering && html`<a href=${`/gatherings/${tinfo.gathering.gathering_id}`}>Gathering</a>`}
        ${(tinfo.status === 'finished' || (view && view.result)) && html`<a class="button" href=${`/tables/${id}/replay`} data-testid="replay-link">Replay</a>`}
        ${tinfo.practice && seat !== null && view && view.result && html`<button type="button" data-testid="rematch" disabled=${rematching}
          onClick=${rematch}>Rematch</button>`}
      </div>
    </div>
    <${CircleNav} gathering=${tinfo.gathering} tableId=${tinfo.table_id} />
    ${err && html`<p class="error" role="alert">${err}</p>`}
    ${note && html`<p class="note" role="status" data-testid="note">${note}</p>`}
    ${!view
      ? html`<section class="waiting"><p>Waiting for players: ${tinfo.seats.filter(Boolean).length}/${tinfo.seats.length} seated.</p>
          ${me && me.name === tinfo.creator && tinfo.seats.every(Boolean) && html`<button type="button" onClick=${start}>Start</button>`}
          <${ChatPanel} id=${id} seat=${seat} table=${tinfo} /></section>`
      : html`<div class="xo-layout">
          <div class="xo-main">
            ${seat !== null && html`<${ExorcistPromptPanel} prompt=${prompt} clock=${(p && p.clock) || t.clock} view=${view} table=${tinfo} answer=${send} busy=${busy} />`}
            ${waitingFor.length > 0 && !prompt && html`<p class="hint" data-testid="pending">Waiting for ${waitingFor.join(', ')}.</p>`}
            <${ExorcistBoard} view=${view} table=${tinfo} me=${seat} prompt=${prompt} onAnswer=${send} busy=${busy}
              advancing=${advancersOf(tinfo, bracket.data)} />
          </div>
          <aside class="side xo-side">
            <${PrivateLog} view=${view} table=${tinfo} me=${seat} />
            <${ChatPanel} id=${id} seat=${seat} table=${tinfo} />
            <section class="log" aria-label="Game log"><h3>Log</h3>
              <ol ref=${logRef} aria-live="polite" data-testid="log">${sorted.map((l) => html`<li key=${l.id}>${l.text}</li>`)}</ol></section>
            <details class="legend"><summary>Cards</summary><dl>${Object.values(CARDS).map((c) => html`<div><dt>${c.name}</dt><dd>${c.text}</dd></div>`)}</dl></details>
            ${seat !== null && !view.result && !(view.conceded || []).includes(seat) && html`<button type="button" class="danger"
              data-testid="concede" onClick=${concede}>Concede</button>`}
          </aside>
        </div>`}
  </main>`;
}
