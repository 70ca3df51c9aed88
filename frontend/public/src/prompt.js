// The player's controls: only the legal answers of the open prompt, built from its options.
// Targets (seats, ghosts) are chosen by clicking them on the board or with the buttons here.
// Every prompt kind of the API's `PromptKind` has a `case` below (checked by
// frontend/tests/prompt-kinds.mjs against openapi/openapi.json).
import { html } from './lib.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Card, cardText, RANK_POWER } from './cards.js';
import { Clock, PROMPT_KIND, seatName } from './board.js';
import { CLASSES, className, classText } from './classes.js';

/**
 * @typedef {import('./board.js').TableInfo} TableInfo
 * @typedef {import('./board.js').View} View
 * @typedef {import('./board.js').Targeting} Targeting
 * @typedef {import('./board.js').ClockView} ClockView
 * @typedef {{ kind: 'seat' | 'ghost' | 'mode' | 'card' | 'suit', field: string, values: any[], prompt: string }} Need
 * @typedef {{ via: 'use' | 'ability', card: any, use: any, partial: Record<string, any> }} Selection
 */

/** Names of Ritual uses (`UseOption.action`, R5, R8) and class actions (`ClassActionOption`). @type {Record<string, string>} */
export const USE_LABEL = {
  haunt: 'Haunt', banish: 'Banish', draft: 'Draft', omen: 'Omen', greed: 'Greed', scare: 'Scare', drain: 'Drain', sight: 'Sight',
  cleanse: 'Cleanse', recall: 'Recall', possess: 'Possess', rekindle: 'Rekindle', mirror: 'Mirror',
  medium: 'Medium', purge: 'Purge', boo: 'BOO!', build_wall: 'Build a Wall', alter_suit: 'Alter a suit',
  watcher_sight: 'Sight (both neighbours)', usurp: 'Usurp',
};

/** Names of free abilities (`AbilityOption.ability`, R5.9, R8). @type {Record<string, string>} */
export const ABILITY_LABEL = {
  doomreader: 'Doomread a ghost', grimoire_page: 'Add a page', mimic: 'Exchange Candles (once a game)',
  pyromaniac: 'Burn a neighbour (red discard)', seer: 'See a Candle top', trader: 'Trade (discard, see a hand)',
};

/** R6.3, R6.4, R8: what each class reaction (`ReactionKind`) does, in words for its button. @type {Record<string, { verb: string, text: string }>} */
export const REACTION = {
  grimoire_reject: { verb: 'Reject with page', text: 'Reveal a page of your Grimoire to reject it (the page and the card go to The Dark).' },
  hex_reflect: { verb: 'Reflect with', text: 'Reveal a hand card of the Haunt card’s suit: the ghost goes back to its player.' },
  mime_redirect: { verb: 'Redirect, discarding', text: 'Discard a card to send the Haunt on to your other neighbour.' },
  unseen_cancel: { verb: 'Cancel, discarding', text: 'Discard a hand card to cancel the Haunt.' },
  shadow_cancel: { verb: 'Burn 1 to cancel', text: 'Burn the top card of your Candle to cancel the Haunt.' },
  wall_block: { verb: 'Block with Wall', text: 'Discard a Wall of your Shadow to cancel the Haunt.' },
};

/** @type {Record<string, string>} */
const SUIT_SIGN = { spades: '♠', hearts: '♥', clubs: '♣', diamonds: '♦' };

/** Seat-valued fields of a use or ability option and the declaration field each fills. */
const SEAT_LISTS = /** @type {const} */ ([['targets', 'target'], ['destinations', 'destination'], ['recipients', 'to']]);

/** The answer that declines the prompt quietly (the P key), if the kind has one. @param {any} prompt */
export function passAnswer(prompt) {
  if (!prompt) return null;
  switch (prompt.kind) {
    case 'salt': return { answer: 'pass' };
    case 'counter_salt': return { answer: 'yield' };
    case 'reaction': case 'martyr_draw': case 'trader_swap': return { answer: 'decline' };
    default: return null;
  }
}

/**
 * The prompt panel.
 * @param {{ prompt: any, clock: ClockView | null, view: View, table: TableInfo | null,
 *   answer: (answer: any) => Promise<void>, busy: boolean, setTargeting: (t: Targeting | undefined) => void }} props
 */
export function PromptPanel({ prompt, clock, view, table, answer, busy, setTargeting }) {
  const [sel, setSel] = useState(/** @type {Selection | null} */ (null));
  const [picks, setPicks] = useState(/** @type {number[]} */ ([]));
  const [split, setSplit] = useState(/** @type {Record<number, 'left' | 'right'>} */ ({}));
  const [panicking, setPanicking] = useState(false);
  const [give, setGive] = useState(/** @type {number | null} */ (null));
  const ref = useRef(/** @type {HTMLDivElement | null} */ (null));
  const pid = prompt && prompt.id;
  useEffect(() => {
    setSel(null);
    setPicks([]);
    setSplit({});
    setPanicking(false);
    setGive(null);
  }, [pid]);

  // A new prompt takes the keyboard focus (its main button), so one key answers it.
  useEffect(() => {
    const el = ref.current;
    if (!el || !pid) return;
    const active = document.activeElement;
    if (active && active !== document.body && !el.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) return;
    const main = /** @type {HTMLElement | null} */ (el.querySelector('[data-main]') || el.querySelector('button:not([disabled]), .card.clickable'));
    if (main) main.focus({ preventScroll: true });
  }, [pid]);

  // P passes (Salt), yields (counter-Salt) or declines (an optional class prompt).
  useEffect(() => {
    const pass = passAnswer(prompt);
    if (!pass) return undefined;
    /** @param {KeyboardEvent} e */
    const onKey = (e) => {
      if (e.key !== 'p' && e.key !== 'P') return;
      if (e.ctrlKey || e.metaKey || e.altKey || busy) return;
      const t = /** @type {HTMLElement | null} */ (e.target);
      if (t && /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName)) return;
      e.preventDefault();
      answer(pass);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [pid, busy]);

  const name = (/** @type {number} */ s) => seatName(table, s);
  const me = prompt ? prompt.seat : null;

  /** Completes fields of the selection; answers once nothing more is needed. @param {Record<string, any>} fields */
  function chooseMany(fields) {
    if (!sel) return;
    const partial = { ...sel.partial, ...fields };
    if (!nextNeed(sel.use, partial)) {
      setSel(null);
      finish(sel, partial);
    } else setSel({ ...sel, partial });
  }
  /** @param {Need} need @param {any} v */
  function chooseValue(need, v) {
    if (need.kind === 'ghost' && v !== null && typeof v === 'object' && 'ghost' in v) chooseMany({ ghost: v.ghost, owner: v.owner });
    else chooseMany({ [need.field]: v });
  }
  /** @param {Selection} s @param {Record<string, any>} partial */
  function finish(s, partial) {
    if (s.via === 'ability') answer({ answer: 'ability', ability: { ability: s.use.ability, ...partial } });
    else answer({ answer: 'act', action: { action: s.use.action, ...(s.card ? { card: s.card.handle } : {}), ...partial } });
  }
  /** @param {'use' | 'ability'} via @param {any} card @param {any} use */
  function pick(via, card, use) {
    const s = { via, card, use, partial: {} };
    if (!nextNeed(use, {})) {
      setSel(null);
      finish(s, {});
    } else setSel(s);
  }

  // Board targeting follows the current selection.
  useEffect(() => {
    if (!prompt) return setTargeting(undefined);
    if (prompt.kind === 'haunting_choice' && panicking) {
      const ghosts = new Map(prompt.panic.map((/** @type {any} */ g) => [g.handle, `Panic against ${cardText(g)}`]));
      return setTargeting({ ghosts, onGhost: (h) => answer({ answer: 'panic', ghost: h }) });
    }
    if (prompt.kind === 'plague_spread') {
      const seats = new Map(prompt.recipients.map((/** @type {number} */ s) => [s, `Spread to ${name(s)}`]));
      return setTargeting({ seats, onSeat: (s) => answer({ answer: 'spread', to: s }) });
    }
    if (prompt.kind === 'ritual' && sel && sel.use) {
      const need = nextNeed(sel.use, sel.partial);
      const verb = sel.via === 'ability' ? ABILITY_LABEL[sel.use.ability] || sel.use.ability : USE_LABEL[sel.use.action] || sel.use.action;
      if (need && need.kind === 'seat') {
        const seats = new Map(need.values.map((/** @type {number} */ s) => [s, `${verb}: ${s === me ? 'yourself' : name(s)}`]));
        return setTargeting({ seats, onSeat: (s) => chooseMany({ [need.field]: s }) });
      }
      if (need && need.kind === 'ghost') {
        const ghosts = new Map(need.values.map((/** @type {any} */ g) => [typeof g === 'object' && g !== null && 'ghost' in g ? g.ghost : g, `${verb}: this ghost`]));
        return setTargeting({
          ghosts,
          onGhost: (h, owner) => {
            const v = need.values.find((/** @type {any} */ g) => (typeof g === 'object' && g !== null ? g.ghost === h && g.owner === owner : g === h));
            if (v !== undefined) chooseValue(need, v);
          },
        });
      }
    }
    setTargeting(undefined);
  }, [prompt, sel, panicking]);

  if (!prompt) {
    return html`<div class="prompt idle" data-testid="prompt" data-kind="none"><p>${view.result ? 'The game has ended.' : 'Waiting for the others…'}</p></div>`;
  }

  const kindLabel = PROMPT_KIND[prompt.kind] || prompt.kind.replace(/_/g, ' ');
  const pass = passAnswer(prompt);
  const header = html`<header><h3>Your ${kindLabel}</h3><${Clock} clock=${clock} label="your clock" /></header>`;
  const wrap = (/** @type {any} */ body) => html`<div ref=${ref} class=${`prompt kind-${prompt.kind}`} data-testid="prompt" data-kind=${prompt.kind}
    role="region" aria-label="Your decision" aria-live="polite" aria-busy=${busy ? 'true' : 'false'}>${header}${body}
    ${pass && html`<p class="hint keys">Key <kbd>P</kbd>: ${pass.answer === 'pass' ? 'Pass' : pass.answer === 'yield' ? 'Yield' : 'Decline'}.</p>`}</div>`;
  const decline = (/** @type {string} */ label) => html`<button type="button" class="secondary" disabled=${busy} data-testid="decline" data-main
    onClick=${() => answer({ answer: 'decline' })}>${label}</button>`;
  /** A card by handle among what the seat may see. @param {number} h */
  const face = (h) => findCard(view, me, h);

  switch (prompt.kind) {
    case 'turn_order_choice':
      return wrap(html`<p>You won the tiebreaker. Go first or last?</p><div class="actions">
        <button type="button" disabled=${busy} data-main onClick=${() => answer({ answer: 'turn_order', choice: 'first' })}>First</button>
        <button type="button" disabled=${busy} onClick=${() => answer({ answer: 'turn_order', choice: 'last' })}>Last</button></div>`);

    case 'choose_class': {
      const offer = /** @type {string[]} */ (prompt.offer || []);
      if (!offer.length) return wrap(html`<p>Your class offer is being drawn…</p>`);
      return wrap(html`<p>Choose your class for this game (it becomes public):</p>
        <ul class="class-offer" data-testid="class-offer">${offer.map((c, i) => html`<li>
          <button type="button" class="class-choice" disabled=${busy} data-testid="class-choice" data-class=${c} data-main=${i === 0 ? true : undefined}
            onClick=${() => answer({ answer: 'choose_class', class: c })}>
            <strong>${className(c)}</strong>${CLASSES[c] && html`<span class="class-kind">${CLASSES[c].kind}</span>
            <span class="class-text">${classText(c, view.ruleset && view.ruleset.id)}</span>`}</button></li>`)}</ul>`);
    }

    case 'haunting_choice': {
      const g = prompt.ghosts;
      return wrap(html`<p>${g} ghost${g === 1 ? ' haunts' : 's haunt'} your Shadow. Choose one:</p>
        <div class="actions">
          ${prompt.aces.map((/** @type {any} */ a) => html`<button type="button" disabled=${busy}
            onClick=${() => answer({ answer: 'reprieve', ace: a.handle })}>Reprieve with ${cardText(a)}</button>`)}
          <button type="button" disabled=${busy} data-main onClick=${() => answer({ answer: 'endure' })}>Endure (Burn ${g})</button>
          ${prompt.panic.length > 0 && html`<button type="button" aria-pressed=${panicking ? 'true' : 'false'} disabled=${busy}
            onClick=${() => setPanicking(!panicking)}>Panic…</button>`}
        </div>
        ${panicking && html`<p class="hint">Click a ghost in your Shadow, or:</p><div class="actions">${prompt.panic.map((/** @type {any} */ gh) =>
          html`<button type="button" disabled=${busy} onClick=${() => answer({ answer: 'panic', ghost: gh.handle })}>Panic against ${cardText(gh)}</button>`)}</div>`}`);
    }

    case 'martyr_draw':
      return wrap(html`<p>The Martyr: you Burned in your Haunting. Draw 1 card from your Candle?</p>
        <div class="actions"><button type="button" disabled=${busy} data-testid="martyr-draw" data-main onClick=${() => answer({ answer: 'draw' })}>Draw 1</button>
        ${decline('No, keep the Candle')}</div>`);

    case 'reaction': {
      const r = REACTION[prompt.reaction] || { verb: 'React with', text: '' };
      const cards = /** @type {number[]} */ (prompt.cards || []);
      const action = USE_LABEL[prompt.action] || prompt.action;
      return wrap(html`<p>${name(prompt.actor)} declared ${action}${view.action && view.action.action && /** @type {any} */ (view.action.action).target === me ? ' on you' : ''}. ${r.text}</p>
        <div class="actions">
          ${prompt.reaction === 'shadow_cancel'
            ? html`<button type="button" disabled=${busy} data-testid="react" onClick=${() => answer({ answer: 'react' })}>${r.verb}</button>`
            : cards.map((h) => html`<button type="button" disabled=${busy} data-testid="react"
                onClick=${() => answer({ answer: 'react', card: h })}>${r.verb} ${cardLabel(face(h))}</button>`)}
          ${prompt.reaction !== 'shadow_cancel' && cards.length === 0 && html`<span class="hint">You hold nothing that can do it now.</span>`}
          ${decline('Let it happen')}
        </div>`);
    }

    case 'trader_swap': {
      const theirs = /** @type {any[]} */ (prompt.hand || []);
      const own = /** @type {number[]} */ (prompt.own || []);
      const take = picks[0];
      return wrap(html`<p>The Trader: ${name(prompt.target)}'s hand. Swap one of your cards for one of theirs, or decline.</p>
        <p class="zlabel">Take from ${name(prompt.target)}</p>
        <div class="hand-row" role="group" aria-label=${`${name(prompt.target)}'s hand`}>${theirs.map((c) => html`<${Card} card=${c} size="md" testid="trade-take"
          selected=${take === c.handle} onClick=${busy ? undefined : () => setPicks(take === c.handle ? [] : [c.handle])} />`)}</div>
        <p class="zlabel">Give from your hand</p>
        <div class="hand-row" role="group" aria-label="Your hand">${own.map((h) => {
          const c = face(h);
          return c ? html`<${Card} card=${c} size="md" testid="trade-give" selected=${give === h} onClick=${busy ? undefined : () => setGive(give === h ? null : h)} />`
            : html`<button type="button" data-testid="trade-give" aria-pressed=${give === h ? 'true' : 'false'} onClick=${() => setGive(h)}>a card</button>`;
        })}</div>
        <div class="actions"><button type="button" disabled=${busy || take === undefined || give === null} data-testid="trade"
          onClick=${() => answer({ answer: 'trade', give, take })}>Trade</button>${decline('Keep my hand')}</div>`);
    }

    case 'plague_spread':
      return wrap(html`<p>The Plague: ${cardText(prompt.ghost)} spreads. Who receives it?</p>
        <div class="actions">${prompt.recipients.map((/** @type {number} */ s, /** @type {number} */ i) => html`<button type="button" disabled=${busy}
          data-testid="spread" data-main=${i === 0 ? true : undefined} onClick=${() => answer({ answer: 'spread', to: s })}>${name(s)}</button>`)}</div>`);

    case 'watcher_pick': {
      const hands = /** @type {[number, any[]][]} */ (prompt.hands || []);
      const per = prompt.per_hand;
      /** @param {any[]} cards @param {number} h */
      const toggle = (cards, h) => {
        if (picks.includes(h)) return setPicks(picks.filter((x) => x !== h));
        const inHand = cards.filter((c) => picks.includes(c.handle)).length;
        if (inHand < per) setPicks([...picks, h]);
      };
      return wrap(html`<p>The Watcher: take 0 to ${per} cards from each hand.</p>
        ${hands.map(([seat, cards]) => html`<p class="zlabel">${name(seat)}</p>
          <div class="hand-row" role="group" aria-label=${`${name(seat)}'s hand`}>${cards.map((c) => html`<${Card} card=${c} size="md"
            testid="pickable" selected=${picks.includes(c.handle)} onClick=${busy ? undefined : () => toggle(cards, c.handle)} />`)}</div>`)}
        <div class="actions"><button type="button" disabled=${busy} data-testid="confirm-pick" data-main
          onClick=${() => answer({ answer: 'pick', cards: picks })}>${picks.length ? `Take ${picks.length}` : 'Take nothing'}</button></div>`);
    }

    // A6 Omen (classic): the revealed cards are played like hand cards, and one must be played.
    case 'omen_play':
    case 'ritual': {
      const omen = prompt.kind === 'omen_play';
      const options = /** @type {any[]} */ (prompt.options || []);
      const classActions = /** @type {any[]} */ (omen ? [] : prompt.class_actions || []);
      const ability = omen ? null : prompt.ability || null;
      const row = omen ? /** @type {any[]} */ (prompt.revealed || []) : handOf(view, prompt.seat);
      const need = sel ? nextNeed(sel.use, sel.partial) : null;
      /** @param {Need} n @param {any} v */
      function valueText(n, v) {
        if (n.kind === 'seat') return v === me ? 'yourself' : name(v);
        if (n.kind === 'mode') return v === 'search' ? 'Search The Dark' : 'the Depths';
        if (n.kind === 'suit') return `${SUIT_SIGN[v] || ''} ${v}`;
        if (n.kind === 'card') return cardLabel(face(v));
        if (v !== null && typeof v === 'object' && 'ghost' in v) return `${ghostText(view, v.ghost)} (${name(v.owner)})`;
        return ghostText(view, v);
      }
      const verb = sel && sel.use ? (sel.via === 'ability' ? ABILITY_LABEL[sel.use.ability] || sel.use.ability : USE_LABEL[sel.use.action] || sel.use.action) : '';
      return wrap(html`
        <p>${omen ? 'Omen: play one of the revealed cards now (the others go under your Candle).'
          : prompt.budget > 0 ? `${prompt.budget} action${prompt.budget === 1 ? '' : 's'} left. Choose a card to play, or end your Ritual.` : 'No actions left.'}</p>
        <div class="hand-row" role="group" aria-label=${omen ? 'The revealed cards' : 'Your hand'} data-testid=${omen ? 'omen-revealed' : undefined}>
          ${row.map((c) => {
            const opt = options.find((o) => o.card.handle === c.handle);
            return html`<${Card} card=${c} size="lg" dim=${!opt} selected=${sel && sel.card && sel.card.handle === c.handle}
              title=${opt ? opt.uses.map((/** @type {any} */ u) => USE_LABEL[u.action] || u.action).join(' / ') : 'no legal use now'}
              testid=${opt ? 'playable' : 'unplayable'}
              onClick=${opt && !busy ? () => (opt.uses.length === 1 ? pick('use', opt.card, opt.uses[0]) : setSel({ via: 'use', card: opt.card, use: null, partial: {} })) : undefined} />`;
          })}
        </div>
        ${sel && !sel.use && html`<div class="actions" data-testid="uses"><span>${cardText(sel.card)}:</span>
          ${(options.find((o) => o.card.handle === sel.card.handle) || { uses: [] }).uses.map((/** @type {any} */ u) =>
            html`<button type="button" disabled=${busy} data-testid="use" data-use=${u.action} onClick=${() => pick('use', sel.card, u)}>${USE_LABEL[u.action] || u.action}</button>`)}</div>`}
        ${sel && sel.use && need && html`<div class="actions choose" data-testid="choose">
          <span>${verb}${sel.card ? ` with ${cardText(sel.card)}` : ''}: ${need.prompt}</span>
          ${need.values.map((/** @type {any} */ v) => html`<button type="button" disabled=${busy} data-testid="choice"
            onClick=${() => chooseValue(need, v)}>${valueText(need, v)}</button>`)}
        </div>`}
        ${(classActions.length > 0 || ability) && !sel && html`<div class="actions class-actions" data-testid="class-actions">
          ${classActions.map((a) => html`<button type="button" class="ability" disabled=${busy} data-testid="class-action" data-action=${a.action}
            onClick=${() => pick('use', null, a)}>${USE_LABEL[a.action] || a.action}</button>`)}
          ${ability && html`<button type="button" class="ability" disabled=${busy} data-testid="ability" data-ability=${ability.ability}
            title="A free ability: it uses no action" onClick=${() => pick('ability', null, ability)}>${ABILITY_LABEL[ability.ability] || ability.ability} (free)</button>`}
        </div>`}
        <div class="actions">
          ${sel && html`<button type="button" class="secondary" onClick=${() => setSel(null)}>Cancel</button>`}
          ${!omen && html`<button type="button" class="end" disabled=${busy} data-testid="end-ritual"
            onClick=${() => answer({ answer: 'end_ritual' })}>${view.budget > 0 && !hasActed(view, prompt) ? 'Abstain' : 'End Ritual'}</button>`}
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
          ${fives.length === 0 && html`<span class="hint">You hold no ${view.ruleset && view.ruleset.id === 'classic-1.0' ? '4' : '5'}.</span>`}
          <button type="button" disabled=${busy} data-testid="pass" data-main
            onClick=${() => answer(prompt.kind === 'salt' ? { answer: 'pass' } : { answer: 'yield' })}>${prompt.kind === 'salt' ? 'Pass' : 'Yield'}</button>
        </div>`);
    }

    case 'sight_pick':
    case 'sadist_pick':
    case 'burden_discard':
    case 'medium_pick': {
      const cards = /** @type {any[]} */ (prompt.kind === 'medium_pick' ? prompt.choices : prompt.hand);
      const count = prompt.kind === 'medium_pick' ? Math.min(1, cards.length) : prompt.count;
      const text = prompt.kind === 'sight_pick' ? `Take ${count} card${count === 1 ? '' : 's'} from ${name(prompt.target)}'s hand.`
        : prompt.kind === 'sadist_pick' ? `The Sadist: choose ${count} card${count === 1 ? '' : 's'} of ${name(prompt.target)}'s hand to discard to The Dark.`
        : prompt.kind === 'burden_discard' ? `Your hand is over the limit: discard ${count} card${count === 1 ? '' : 's'} to The Dark, in order (the last ends on top).`
        : cards.length ? 'Take one card from The Dark.' : 'The Dark holds nothing you may take.';
      /** @param {number} h */
      const toggle = (h) => setPicks(picks.includes(h) ? picks.filter((x) => x !== h) : picks.length < count ? [...picks, h] : picks);
      return wrap(html`<p>${text}</p>
        <div class=${`hand-row${cards.length > 10 ? ' many' : ''}`} role="group" aria-label="Cards to choose from">
          ${cards.map((c) => html`<${Card} card=${c} size=${cards.length > 10 ? 'sm' : 'lg'} selected=${picks.includes(c.handle)} testid="pickable"
            marker=${picks.includes(c.handle) && count > 1 ? String(picks.indexOf(c.handle) + 1) : ''}
            onClick=${busy ? undefined : () => toggle(c.handle)} />`)}
        </div>
        <div class="actions"><button type="button" disabled=${busy || picks.length !== count} data-testid="confirm-pick"
          onClick=${() => answer({ answer: 'pick', cards: picks })}>${prompt.kind === 'burden_discard' || prompt.kind === 'sadist_pick' ? 'Discard' : 'Take'} ${picks.length}/${count}</button></div>`);
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
        <div class="actions"><button type="button" disabled=${busy || !ok} data-testid="confirm-split" onClick=${() => answer({ answer: 'split', left, right })}>Split ${left.length} / ${right.length}</button></div>`);
    }

    default:
      // A kind newer than this page (prompt-kinds.mjs fails until it has a control): say so.
      return wrap(html`<p>This page cannot show a ${kindLabel} yet; reload it after an update.</p><div class="actions"><button type="button" disabled=${busy}
        onClick=${() => answer(prompt.default)}>Answer with the default</button></div>`);
  }
}

/** "7♥", or "a card" when the face is hidden. @param {any} c */
function cardLabel(c) {
  return c ? cardText(c) : 'a card';
}

/**
 * A card the seat may see, by handle: its hand, its Grimoire pages, its Walls, any Shadow.
 * @param {View} view @param {number | null} seat @param {number} h @returns {any}
 */
export function findCard(view, seat, h) {
  const p = seat === null ? null : /** @type {any} */ (view.players[seat]);
  if (p) {
    for (const c of p.hand || []) if (c.handle === h) return c;
    for (const c of p.page_cards || []) if (c.handle === h) return c;
    for (const w of Array.isArray(p.walls) ? p.walls : []) if (w.card && w.card.handle === h) return w.card;
  }
  for (const q of view.players) {
    for (const g of q.shadow) if (g.card.handle === h) return g.card;
    for (const w of Array.isArray(q.walls) ? q.walls : []) if (w && w.card && w.card.handle === h) return w.card;
  }
  return null;
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
 * The next field a Ritual use (`UseOption`), class action (`ClassActionOption`) or free
 * ability (`AbilityOption`) still needs, or null when the declaration is complete.
 * @param {any} use @param {Record<string, any>} partial
 * @returns {Need | null}
 */
export function nextNeed(use, partial) {
  if (!use) return null;
  const what = use.action || use.ability;
  if (what === 'doomreader') {
    // R8.3: the discard first, then one of the ghosts it may remove.
    if (partial.card === undefined) return { kind: 'card', field: 'card', values: use.choices.map((/** @type {any} */ c) => c.card), prompt: 'the card to discard' };
    if (partial.ghost === undefined) {
      const c = use.choices.find((/** @type {any} */ x) => x.card === partial.card);
      return { kind: 'ghost', field: 'ghost', values: c ? c.ghosts : [], prompt: 'the ghost to remove' };
    }
    return null;
  }
  if (what === 'alter_suit') {
    // R8.5.1: a ghost (with its owner), then a suit it may take.
    if (partial.ghost === undefined) {
      return { kind: 'ghost', field: 'ghost', values: use.choices.map((/** @type {any} */ c) => ({ ghost: c.ghost, owner: c.owner })), prompt: 'click a ghost' };
    }
    if (partial.suit === undefined) {
      const c = use.choices.find((/** @type {any} */ x) => x.ghost === partial.ghost && x.owner === partial.owner);
      return { kind: 'suit', field: 'suit', values: c ? c.suits : [], prompt: 'its new suit' };
    }
    return null;
  }
  if (use.cards && partial.card === undefined) {
    return { kind: 'card', field: 'card', values: use.cards, prompt: what === 'grimoire_page' ? 'the card to make a page' : 'the card to discard' };
  }
  if (use.ghosts && partial.ghost === undefined) {
    return { kind: 'ghost', field: 'ghost', values: use.ghosts, prompt: 'click a ghost' };
  }
  // R8.4.1: The Exorcist's Cleanse names a second, different ghost when there are two or more.
  if (what === 'cleanse' && use.two && use.ghosts.length > 1 && partial.second === undefined) {
    return { kind: 'ghost', field: 'second', values: use.ghosts.filter((/** @type {any} */ g) => g !== partial.ghost), prompt: 'click the second ghost' };
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
