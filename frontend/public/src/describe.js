// Plain-language lines for table events ("Mara Haunts Ilya with 7♥"), for events as a viewer
// sees them (ViewEvent) and for the complete record after the game (`full`, cards as pool
// indices resolved through the game's pool).
import { cardText } from './cards.js';

/**
 * @typedef {(c: any) => string} CardNamer
 */

/** @type {Record<string, string>} */
const VERB = {
  haunt: 'Haunts', banish: 'Banishes', greed: 'plays Greed on', scare: 'Scares', drain: 'Drains',
  sight: 'uses Sight on', cleanse: 'Cleanses', recall: 'Recalls', possess: 'Possesses', rekindle: 'Rekindles',
  mirror: 'Mirrors', medium: 'calls a Medium', purge: 'Purges', boo: 'plays BOO!',
};

/**
 * A namer for cards: card views by face; pool indices (numbers) through `pool`.
 * @param {any[] | null} pool
 * @returns {CardNamer}
 */
export function cardNamer(pool) {
  return (c) => {
    if (c === null || c === undefined) return 'a card';
    if (typeof c === 'number') {
      const inst = pool && pool[c];
      const face = inst && (inst.face || inst);
      return face && face.rank ? cardText(face) : 'a card';
    }
    if (typeof c === 'object' && 'count' in c && !('rank' in c)) return `${c.count} card${c.count === 1 ? '' : 's'}`;
    return cardText(c);
  };
}

/** @param {any[]} list @param {CardNamer} card */
function cards(list, card) {
  if (!list || list.length === 0) return 'nothing';
  return list.map(card).join(' ');
}

/** @param {any} x @param {CardNamer} card */
function cardsOrCount(x, card) {
  if (Array.isArray(x)) return `${x.length} card${x.length === 1 ? '' : 's'} (${cards(x, card)})`;
  if (x && typeof x === 'object' && 'count' in x) return `${x.count} card${x.count === 1 ? '' : 's'}`;
  return 'cards';
}

/**
 * One line for an event, or null for an event not worth a line.
 * @param {any} ev the event (a ViewEvent, or `{type: 'full', event: {type, payload}}`)
 * @param {(seat: number | null | undefined) => string} who seat to a name
 * @param {CardNamer} card
 * @returns {string | null}
 */
export function describe(ev, who, card) {
  if (!ev || !ev.type) return null;
  if (ev.type === 'full' && ev.event) return describe({ type: ev.event.type, ...(ev.event.payload || {}) }, who, card);
  switch (ev.type) {
    case 'game_created': {
      const n = ev.candles ? ev.candles.length : null;
      return `The game begins${n ? ` for ${n}` : ''}: Candles dealt${ev.candle_size ? ` (${ev.candle_size} cards each)` : ''}, The Dark shows ${
        ev.dark && ev.dark.length ? card(ev.dark[ev.dark.length - 1]) : 'nothing'}.`;
    }
    case 'turn_order_chosen':
      return `${who(ev.seat)} chooses to go ${ev.choice}.`;
    case 'turn_started':
      return `Round ${ev.round}: ${who(ev.seat)}'s turn.${ev.guttering && ev.guttering.length ? ` The Guttering burns ${cards(ev.guttering, card)}.` : ''}`;
    case 'reprieved':
      return `${who(ev.seat)} takes a Reprieve with ${card(ev.ace)}.`;
    case 'endured':
      return `${who(ev.seat)} Endures and Burns ${ev.burned.length} (${cards(ev.burned, card)}).`;
    case 'panicked': {
      const ok = ev.outcome && (ev.outcome === 'success' || typeof ev.outcome === 'object');
      return `${who(ev.seat)} Panics against ${card(ev.ghost)}: reveals ${card(ev.revealed)}, ${ok ? 'the ghost is gone' : 'it joins the Shadow'}${
        ev.burned && ev.burned.length ? `, then Burns ${ev.burned.length}` : ''}.`;
    }
    case 'drew':
      return `${who(ev.seat)} draws ${typeof ev.card === 'object' && ev.card && 'count' in ev.card && !('rank' in ev.card) ? 'a card' : card(Array.isArray(ev.card) ? ev.card[0] : ev.card)}.`;
    case 'action_declared':
      return declared(ev.actor, ev.action, who, card);
    case 'salt_answered':
      return ev.salt ? `You answer Salt with ${card(ev.salt)}.` : 'You answer Pass.';
    case 'answer_held':
      return 'Your answer is in; it takes effect when the prompt closes.';
    case 'answers_closed':
      return 'The Salt window closes to answers.';
    case 'passed':
      return `${who(ev.seat)} passes.`;
    case 'salted':
      return `${who(ev.seat)} Salts with ${card(ev.card)}!`;
    case 'yielded':
      return `${who(ev.seat)} yields.`;
    case 'window_closed':
      return null;
    case 'action_cancelled':
      return `${who(ev.salter)}'s Salt stands: ${who(ev.actor)}'s action is cancelled.`;
    case 'action_resolved':
      return resolved(ev.actor, ev.effect, who, card);
    case 'ritual_ended':
      return ev.abstained ? `${who(ev.seat)} Abstains.` : `${who(ev.seat)} ends the Ritual.`;
    case 'burden_discarded':
      return `${who(ev.seat)} discards ${cards(ev.cards, card)} to The Dark (the Burden).`;
    case 'concession_requested':
      return `${who(ev.seat)} concedes.`;
    case 'timed_out':
      return `Time ran out for ${(ev.seats || []).map(who).join(', ') || 'a player'}: the default answer applies.`;
    case 'elimination_started': {
      /** @type {Record<string, string>} */
      const why = { consumed: 'is Consumed', possessed: 'is Possessed', conceded: 'concedes' };
      return `${who(ev.seat)} ${why[ev.cause] || 'is eliminated'} and finishes ${ordinal(ev.placing)}.`;
    }
    case 'eliminated': {
      const shares = (ev.shares || []).filter((/** @type {any} */ s) => s[1] && s[1].length);
      return `${who(ev.seat)} flickers out${shares.length ? `; their ghosts pass to ${shares.map((/** @type {any} */ s) => `${who(s[0])} (${cards(s[1], card)})`).join(' and ')}` : ''}.`;
    }
    case 'game_ended':
      return ev.winner !== null && ev.winner !== undefined
        ? `${who(ev.winner)} wins the game!${ev.last_lit && ev.last_lit.length > 1 ? ` Last Lit: ${ev.last_lit.map(who).join(', ')}.` : ''}`
        : 'The game ends with no winner.';
    default:
      return null;
  }
}

/** @param {number} n */
export function ordinal(n) {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** @param {number} actor @param {any} a @param {(s: number) => string} who @param {CardNamer} card */
function declared(actor, a, who, card) {
  if (!a) return `${who(actor)} acts.`;
  const c = card(a.card);
  switch (a.action) {
    case 'haunt': return `${who(actor)} Haunts ${who(a.target)} with ${c}.`;
    case 'banish': return `${who(actor)} Banishes ${card(a.ghost)} with ${c}.`;
    case 'greed': return `${who(actor)} plays Greed (${c}) on ${a.target === actor ? 'themself' : who(a.target)}.`;
    case 'scare': return `${who(actor)} Scares ${who(a.target)} with ${c}.`;
    case 'drain': return `${who(actor)} Drains the neighbours' Candles with ${c}.`;
    case 'sight': return `${who(actor)} uses Sight (${c}) on ${who(a.target)}.`;
    case 'cleanse': return `${who(actor)} Cleanses ${card(a.ghost)} with ${c}.`;
    case 'recall': return `${who(actor)} Recalls ${card(a.ghost)} from ${a.owner === actor ? 'their own Shadow' : `${who(a.owner)}'s Shadow`} with ${c}.`;
    case 'possess': return `${who(actor)} Possesses ${who(a.destination)} with ${card(a.ghost)} (${c}).`;
    case 'rekindle': return `${who(actor)} Rekindles with ${c}.`;
    case 'mirror': return `${who(actor)} Mirrors Shadows with ${who(a.target)} (${c}).`;
    case 'medium': return `${who(actor)} calls a Medium (${c}) to ${a.mode === 'depths' ? 'the Depths' : 'Search The Dark'}.`;
    case 'purge': return `${who(actor)} Purges their Shadow with ${c}.`;
    case 'boo': return `${who(actor)} plays BOO!`;
    default: return `${who(actor)} ${VERB[a.action] || a.action}${a.card !== undefined ? ` with ${c}` : ''}.`;
  }
}

/** @param {number} actor @param {any} e @param {(s: number) => string} who @param {CardNamer} card */
function resolved(actor, e, who, card) {
  if (!e) return null;
  const siph = (/** @type {boolean} */ s) => (s ? ' (Siphoned into their Candle)' : '');
  switch (e.effect) {
    case 'haunted': return e.ghost ? `${card(e.ghost)} now haunts ${who(e.target)}'s Shadow.` : `The ghost now haunts ${who(e.target)}'s Shadow.`;
    case 'banished': return `${card(e.ghost)} is Banished${siph(e.siphoned)}.`;
    case 'greed': return `${who(e.target)} draws ${cardsOrCount(e.drawn, card)}.`;
    case 'scared': return `${who(e.target)} loses ${cards(e.discarded, card)} to The Dark.`;
    case 'drained': return `${who(actor)} drains ${(e.packets || []).map((/** @type {any} */ p) => `${Array.isArray(p[1]) ? p[1].length : p[1]} from ${who(p[0])}`).join(' and ')}.`;
    case 'sight_taken': return `${who(actor)} takes ${cardsOrCount(e.taken, card)} from ${who(e.target)}.`;
    case 'cleansed': return `${card(e.ghost)} is Cleansed${siph(e.siphoned)}.`;
    case 'recalled': return `${who(actor)} takes ${card(e.ghost)} back into their hand.`;
    case 'possessed': return `${card(e.ghost)} moves into ${who(e.destination)}'s Shadow.`;
    case 'rekindled': return `${who(actor)} rekindles ${Array.isArray(e.taken) ? e.taken.length : e.taken} card(s) from The Dark${e.top ? ` (${card(e.top)} on top)` : ''}.`;
    case 'mirrored': return `${who(actor)} and ${who(e.target)} exchange Shadows.`;
    case 'medium_searched': return e.taken ? `${who(actor)} takes ${card(e.taken)} from The Dark.` : `${who(actor)} finds nothing in The Dark.`;
    case 'medium_depths': return `${who(actor)} takes ${Array.isArray(e.taken) ? e.taken.length : e.taken} card(s) from the Depths of The Dark.`;
    case 'purged': return `${who(actor)} Purges ${(e.removed || []).length} ghost(s): ${(e.removed || []).map((/** @type {any} */ r) => card(r[0])).join(' ') || 'none'}.`;
    case 'boo': return `BOO! ${(e.reveals || []).map((/** @type {any} */ r) => `${who(r.seat)} ${r.ghost !== null && r.ghost !== undefined ? `gains ${card(r.ghost)}` : 'gains nothing'}`).join('; ')}.`;
    default: return `${who(actor)}'s action resolves.`;
  }
}
