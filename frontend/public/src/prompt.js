// The player's controls: only the legal answers of the open prompt, built from its options.
// Targets (seats, ghosts) are chosen by clicking them on the board or with the buttons here.
import { html } from './lib.js';
import { useEffect, useState } from 'preact/hooks';
import { Card, cardText, RANK_POWER } from './cards.js';
import { Clock, PROMPT_KIND, seatName } from './board.js';

/**
 * @typedef {import('./board.js').TableInfo} TableInfo
 * @typedef {import('./board.js').View} View
 * @typedef {import('./board.js').Targeting} Targeting
 * @typedef {import('./board.js').ClockView} ClockView
 */

/** @type {Record<string, string>} */
const USE_LABEL = {
  haunt: 'Haunt', banish: 'Banish', greed: 'Greed', scare: 'Scare', drain: 'Drain', sight: 'Sight',
  cleanse: 'Cleanse', recall: 'Recall', possess: 'Possess', rekindle: 'Rekindle', mirror: 'Mirror',
  medium: 'Medium', purge: 'Purge', boo: 'BOO!',
};

/** Seat-valued fields of a use option and the declaration field each fills. */
const SEAT_LISTS = /** @type {const} */ ([['targets', 'target'], ['destinations', 'destination']]);

/**
 * The prompt panel.
 * @param {{ prompt: any, clock: ClockView | null, view: View, table: TableInfo | null,
 *   answer: (answer: any) => Promise<void>, busy: boolean, setTargeting: (t: Targeting | undefined) => void }} props
 */
export function PromptPanel({ prompt, clock, view, table, answer, busy, setTargeting }) {
  const [sel, setSel] = useState(/** @type {any} */ (null)); // ritual: { card, use, partial }
  const [picks, setPicks] = useState(/** @type {number[]} */ ([]));
  const [split, setSplit] = useState(/** @type {Record<number, 'left' | 'right'>} */ ({}));
  const [panicking, setPanicking] = useState(false);
  const pid = prompt && prompt.id;
  useEffect(() => {
    setSel(null);
    setPicks([]);
    setSplit({});
    setPanicking(false);
  }, [pid]);

  const name = (/** @type {number} */ s) => seatName(table, s);

  // Board targeting follows the current selection.
  useEffect(() => {
    if (!prompt) return setTargeting(undefined);
    if (prompt.kind === 'haunting_choice' && panicking) {
      const ghosts = new Map(prompt.panic.map((/** @type {any} */ g) => [g.handle, `Panic against ${cardText(g)}`]));
      return setTargeting({ ghosts, onGhost: (h) => answer({ answer: 'panic', ghost: h }) });
    }
    if (prompt.kind === 'ritual' && sel) {
      const need = nextNeed(sel.use, sel.partial);
      if (need && need.kind === 'seat') {
        const seats = new Map(need.values.map((/** @type {number} */ s) => [s, `${USE_LABEL[sel.use.action] || sel.use.action} ${s === view.players[prompt.seat]?.seat ? 'yourself' : name(s)}`]));
        return setTargeting({ seats, onSeat: (s) => choose(need.field, s) });
      }
      if (need && need.kind === 'ghost') {
        const ghosts = new Map(need.values.map((/** @type {any} */ g) => [typeof g === 'object' && g !== null && 'ghost' in g ? g.ghost : g, `${USE_LABEL[sel.use.action]} this ghost`]));
        return setTargeting({
          ghosts,
          onGhost: (h, owner) => (sel.use.action === 'recall' ? chooseMany({ ghost: h, owner }) : choose('ghost', h)),
        });
      }
    }
    setTargeting(undefined);
  }, [prompt, sel, panicking]);

  if (!prompt) {
    return html`<div class="prompt idle" data-testid="prompt" data-kind="none"><p>${view.result ? 'The game has ended.' : 'Waiting for the others…'}</p></div>`;
  }

  /** Completes one field of the selected ritual use. @param {string} field @param {any} value */
  function choose(field, value) {
    chooseMany({ [field]: value });
  }
  /** @param {Record<string, any>} fields */
  function chooseMany(fields) {
    const partial = { ...sel.partial, ...fields };
    const next = { ...sel, partial };
    if (!nextNeed(sel.use, partial)) {
      setSel(null);
      answer({ answer: 'act', action: { action: sel.use.action, card: sel.card.handle, ...partial } });
    } else setSel(next);
  }
  /** @param {any} card @param {any} use */
  function pickUse(card, use) {
    const s = { card, use, partial: {} };
    if (!nextNeed(use, {})) {
      setSel(null);
      answer({ answer: 'act', action: { action: use.action, card: card.handle } });
    } else setSel(s);
  }

  const kindLabel = PROMPT_KIND[prompt.kind] || prompt.kind;
  const header = html`<header><h3>Your ${kindLabel}</h3><${Clock} clock=${clock} label="your clock" /></header>`;
  const wrap = (/** @type {any} */ body) => html`<div class=${`prompt kind-${prompt.kind}`} data-testid="prompt" data-kind=${prompt.kind}
    role="region" aria-label="Your decision" aria-live="polite" aria-busy=${busy ? 'true' : 'false'}>${header}${body}</div>`;

  switch (prompt.kind) {
    case 'turn_order_choice':
      return wrap(html`<p>You won the tiebreaker. Go first or last?</p><div class="actions">
        <button type="button" disabled=${busy} onClick=${() => answer({ answer: 'turn_order', choice: 'first' })}>First</button>
        <button type="button" disabled=${busy} onClick=${() => answer({ answer: 'turn_order', choice: 'last' })}>Last</button></div>`);

    case 'haunting_choice':
      return wrap(html`<p>${prompt.ghosts} ghost${prompt.ghosts === 1 ? '' : 's'} haunt your Shadow. Choose one:</p>
        <div class="actions">
          ${prompt.aces.map((/** @type {any} */ a) => html`<button type="button" disabled=${busy}
            onClick=${() => answer({ answer: 'reprieve', ace: a.handle })}>Reprieve with ${cardText(a)}</button>`)}
          <button type="button" disabled=${busy} onClick=${() => answer({ answer: 'endure' })}>Endure (Burn ${prompt.ghosts})</button>
          ${prompt.panic.length > 0 && html`<button type="button" aria-pressed=${panicking ? 'true' : 'false'} disabled=${busy}
            onClick=${() => setPanicking(!panicking)}>Panic…</button>`}
        </div>
        ${panicking && html`<p class="hint">Click a ghost in your Shadow, or:</p><div class="actions">${prompt.panic.map((/** @type {any} */ g) =>
          html`<button type="button" disabled=${busy} onClick=${() => answer({ answer: 'panic', ghost: g.handle })}>Panic against ${cardText(g)}</button>`)}</div>`}`);

    case 'ritual': {
      const options = /** @type {any[]} */ (prompt.options || []);
      const need = sel ? nextNeed(sel.use, sel.partial) : null;
      const abilities = /** @type {any[]} */ (prompt.abilities || []);
      return wrap(html`
        <p>${prompt.budget > 0 ? `${prompt.budget} action${prompt.budget === 1 ? '' : 's'} left. Choose a card to play, or end your Ritual.` : 'No actions left.'}</p>
        <div class="hand-row" role="group" aria-label="Your hand">
          ${handOf(view, prompt.seat).map((c) => {
            const opt = options.find((o) => o.card.handle === c.handle);
            return html`<${Card} card=${c} size="lg" dim=${!opt} selected=${sel && sel.card.handle === c.handle}
              title=${opt ? opt.uses.map((/** @type {any} */ u) => USE_LABEL[u.action] || u.action).join(' / ') : 'no legal use now'}
              testid=${opt ? 'playable' : 'unplayable'}
              onClick=${opt && !busy ? () => (opt.uses.length === 1 ? pickUse(opt.card, opt.uses[0]) : setSel({ card: opt.card, use: null, partial: {} })) : undefined} />`;
          })}
        </div>
        ${sel && !sel.use && html`<div class="actions" data-testid="uses"><span>${cardText(sel.card)}:</span>
          ${options.find((o) => o.card.handle === sel.card.handle).uses.map((/** @type {any} */ u) =>
            html`<button type="button" disabled=${busy} onClick=${() => pickUse(sel.card, u)}>${USE_LABEL[u.action] || u.action}</button>`)}</div>`}
        ${sel && sel.use && need && html`<div class="actions choose" data-testid="choose">
          <span>${USE_LABEL[sel.use.action] || sel.use.action} with ${cardText(sel.card)}: ${need.prompt}</span>
          ${need.values.map((/** @type {any} */ v) => html`<button type="button" disabled=${busy}
            onClick=${() => (need.kind === 'seat' ? choose(need.field, v) : need.kind === 'mode' ? choose('mode', v)
              : sel.use.action === 'recall' ? chooseMany({ ghost: v.ghost, owner: v.owner }) : choose('ghost', v))}>${
            need.kind === 'seat' ? name(v) : need.kind === 'mode' ? (v === 'search' ? 'Search The Dark' : 'the Depths')
              : sel.use.action === 'recall' ? `${ghostText(view, v.ghost)} (${name(v.owner)})` : ghostText(view, v)}</button>`)}
        </div>`}
        <div class="actions">
          ${sel && html`<button type="button" class="secondary" onClick=${() => setSel(null)}>Cancel</button>`}
          ${abilities.map((a) => html`<button type="button" class="ability" disabled=${busy} data-testid="ability"
            onClick=${() => answer(a.answer || { answer: 'ability', ability: a.ability || a.name })}>${a.label || a.name || a.ability}</button>`)}
          <button type="button" class="end" disabled=${busy} data-testid="end-ritual"
            onClick=${() => answer({ answer: 'end_ritual' })}>${view.budget > 0 && !hasActed(view, prompt) ? 'Abstain' : 'End Ritual'}</button>
        </div>`);
    }

    case 'salt':
    case 'counter_salt': {
      const fives = /** @type {any[]} */ (prompt.fives || []);
      const what = prompt.kind === 'salt'
        ? `${name(prompt.actor)} declared ${prompt.boo ? 'BOO!' : USE_LABEL[prompt.action] || prompt.action}${view.action && view.action.action && 'card' in view.action.action && view.action.action.card ? ` (${cardText(view.action.action.card)})` : ''}${
          view.action && view.action.action && 'target' in view.action.action ? ` on ${view.action.action.target === prompt.seat ? 'you' : name(view.action.action.target)}` : ''}.${prompt.confirm ? ' Confirm your Salt?' : ' Salt it, or Pass?'}`
        : `${name(prompt.opponent)} Salted back. Salt again, or yield?`;
      const current = prompt.current ? (prompt.current.answer === 'salt' ? 'Salt' : 'Pass') : null;
      return wrap(html`<p class="salt-what">${what}</p>
        ${current && html`<p class="hint">Your current answer: ${current} (you may change it until the window closes).</p>`}
        <div class="actions">
          ${fives.map((f) => html`<button type="button" class="salt" disabled=${busy} data-testid="salt"
            onClick=${() => answer({ answer: 'salt', card: f.handle })}>Salt with ${cardText(f)}</button>`)}
          ${fives.length === 0 && html`<span class="hint">You hold no 5.</span>`}
          <button type="button" disabled=${busy} data-testid="pass"
            onClick=${() => answer(prompt.kind === 'salt' ? { answer: 'pass' } : { answer: 'yield' })}>${prompt.kind === 'salt' ? 'Pass' : 'Yield'}</button>
        </div>`);
    }

    case 'sight_pick':
    case 'burden_discard':
    case 'medium_pick': {
      const cards = /** @type {any[]} */ (prompt.kind === 'medium_pick' ? prompt.choices : prompt.hand);
      const count = prompt.kind === 'medium_pick' ? Math.min(1, cards.length) : prompt.count;
      const text = prompt.kind === 'sight_pick' ? `Take ${count} card${count === 1 ? '' : 's'} from ${name(prompt.target)}'s hand.`
        : prompt.kind === 'burden_discard' ? `Your hand is over the limit: discard ${count} card${count === 1 ? '' : 's'} to The Dark, in order (the last ends on top).`
        : cards.length ? 'Take one card from The Dark.' : 'The Dark holds nothing you may take.';
      /** @param {number} h */
      const toggle = (h) => setPicks(picks.includes(h) ? picks.filter((x) => x !== h) : picks.length < count ? [...picks, h] : picks);
      return wrap(html`<p>${text}</p>
        <div class="hand-row" role="group" aria-label="Cards to choose from">
          ${cards.map((c) => html`<${Card} card=${c} size="lg" selected=${picks.includes(c.handle)} testid="pickable"
            marker=${picks.includes(c.handle) && count > 1 ? String(picks.indexOf(c.handle) + 1) : ''}
            onClick=${busy ? undefined : () => toggle(c.handle)} />`)}
        </div>
        <div class="actions"><button type="button" disabled=${busy || picks.length !== count} data-testid="confirm-pick"
          onClick=${() => answer({ answer: 'pick', cards: picks })}>${prompt.kind === 'burden_discard' ? 'Discard' : 'Take'} ${picks.length}/${count}</button></div>`);
    }

    case 'death_split': {
      const ghosts = /** @type {any[]} */ (prompt.ghosts);
      const left = ghosts.filter((g) => (split[g.handle] || 'left') === 'left').map((g) => g.handle);
      const right = ghosts.filter((g) => (split[g.handle] || 'left') === 'right').map((g) => g.handle);
      const ok = prompt.sizes.includes(left.length);
      return wrap(html`<p>You flicker out. Share your ghosts: ${name(prompt.left)} (left) gets ${prompt.sizes.join(' or ')}, ${name(prompt.right)} (right) the rest.</p>
        <div class="split">${ghosts.map((g) => html`<div class="split-row"><${Card} card=${g} size="sm" />
          <button type="button" aria-pressed=${(split[g.handle] || 'left') === 'left' ? 'true' : 'false'} onClick=${() => setSplit({ ...split, [g.handle]: 'left' })}>◀ ${name(prompt.left)}</button>
          <button type="button" aria-pressed=${split[g.handle] === 'right' ? 'true' : 'false'} onClick=${() => setSplit({ ...split, [g.handle]: 'right' })}>${name(prompt.right)} ▶</button></div>`)}</div>
        <div class="actions"><button type="button" disabled=${busy || !ok} onClick=${() => answer({ answer: 'split', left, right })}>Split ${left.length} / ${right.length}</button></div>`);
    }

    default:
      // A prompt this page does not know (a class prompt): offer its default answer.
      return wrap(html`<p>${kindLabel}</p><div class="actions"><button type="button" disabled=${busy}
        onClick=${() => answer(prompt.default)}>Answer with the default</button></div>`);
  }
}

/** The hand of `seat` in the view. @param {View} view @param {number} seat @returns {any[]} */
function handOf(view, seat) {
  const p = view.players[seat];
  return (p && p.hand) || [];
}

/** @param {View} view @param {any} prompt */
function hasActed(view, prompt) {
  // The budget starts at 1; a Greed can add one. Once below the start, an action was taken.
  return prompt.budget < 1 || view.budget < 1;
}

/** A ghost's face by handle. @param {View} view @param {number} h */
function ghostText(view, h) {
  for (const p of view.players) for (const g of p.shadow) if (g.card.handle === h) return cardText(g.card);
  return 'ghost';
}

/**
 * The next field a use still needs, or null when the declaration is complete.
 * @param {any} use @param {Record<string, any>} partial
 * @returns {{ kind: 'seat' | 'ghost' | 'mode', field: string, values: any[], prompt: string } | null}
 */
export function nextNeed(use, partial) {
  if (!use) return null;
  if (use.ghosts && partial.ghost === undefined) {
    return { kind: 'ghost', field: 'ghost', values: use.ghosts, prompt: 'click a ghost' };
  }
  for (const [list, field] of SEAT_LISTS) {
    if (use[list] && partial[field] === undefined) {
      return { kind: 'seat', field, values: use[list], prompt: 'click a player' };
    }
  }
  if (use.modes && partial.mode === undefined) return { kind: 'mode', field: 'mode', values: use.modes, prompt: 'choose a mode' };
  return null;
}

export { RANK_POWER };
