// Plain-language lines for table events ("Mara Haunts Ilya with 7♥"), for events as a viewer
// sees them (ViewEvent) and for the complete record after the game (`full`, cards as pool
// indices resolved through the game's pool).
import { cardText } from './cards.js';
import { className } from './classes.js';

/**
 * @typedef {(c: any) => string} CardNamer
 */

/** @type {Record<string, string>} */
const VERB = {
  haunt: 'Haunts', banish: 'Banishes', draft: 'Drafts', omen: 'casts an Omen', greed: 'plays Greed on', scare: 'Scares', drain: 'Drains',
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
    case 'omen_chosen': {
      const under = ev.rest && ev.rest.length ? ` ${cards(ev.rest, card)} go${ev.rest.length === 1 ? 'es' : ''} under the Candle.` : '';
      return ev.play ? `${declared(ev.seat, ev.play, who, card)}${under}` : `Nothing revealed can be played.${under}`;
    }
    case 'eliminated': {
      const shares = (ev.shares || []).filter((/** @type {any} */ s) => s[1] && s[1].length);
      const toDark = ev.to_dark && ev.to_dark.length ? `; their ghosts go to The Dark (${cards(ev.to_dark, card)})` : '';
      return `${who(ev.seat)} flickers out${shares.length ? `; their ghosts pass to ${shares.map((/** @type {any} */ s) => `${who(s[0])} (${cards(s[1], card)})`).join(' and ')}` : ''}${toDark}.`;
    }
    case 'game_ended':
      return ev.winner !== null && ev.winner !== undefined
        ? `${who(ev.winner)} wins the game!${ev.last_lit && ev.last_lit.length > 1 ? ` Last Lit: ${ev.last_lit.map(who).join(', ')}.` : ''}`
        : ev.reason === 'witnessed' ? 'The game ends Witnessed: no winner.'
        : ev.last_lit && ev.last_lit.length > 1 ? `The game ends: ${ev.last_lit.map(who).join(' and ')} are the Last Lit.`
        : 'The game ends with no winner.';
    // R2.7, R5.9, R6.3/R6.4, R8: classes.
    case 'class_selection_started':
      return `Classes are chosen${ev.bans_ignored ? ' (too few classes were left: the bans are ignored)' : ''}.`;
    case 'class_offered':
      return ev.offer && ev.offer.length ? `You are offered ${ev.offer.map(className).join(', ')}.` : `${who(ev.seat)} is offered classes.`;
    case 'class_chosen':
      return `${who(ev.seat)} plays ${className(ev.class)}.`;
    case 'reacted': {
      const r = ev.reaction || {};
      const used = r.card || r.page || r.wall;
      return `${who(ev.seat)} reacts: ${REACTED[r.reaction] || 'a class reaction'}${used ? ` (${card(used)})` : ''}.`;
    }
    case 'declined':
      return `${who(ev.seat)} declines.`;
    case 'ability_used':
      return `${who(ev.seat)} uses ${ABILITY_NAME[ev.ability && ev.ability.ability] || 'a free ability'}${
        ev.ability && ev.ability.target !== undefined ? ` on ${who(ev.ability.target)}` : ''}.`;
    case 'ability_resolved':
      return abilityResolved(ev.seat, ev.effect, who, card);
    case 'spread_chosen':
      return `${card(ev.ghost)} spreads to ${who(ev.to)}'s Shadow.`;
    case 'triggered': {
      const t = ev.effect || {};
      /** @type {Record<string, string>} */
      const what = { voodoo: 'The Voodoo Doll: its haunters Burn', martyr_draw: 'The Martyr draws a card', vulture: 'The Vulture feeds on The Dark', funeral_bell: 'The Funeral Bell tolls: the others Burn 1' };
      return `${who(ev.owner)}: ${what[t.trigger] || 'a class takes effect'}${t.trigger === 'martyr_draw' && t.card && t.card.rank ? ` (${card(t.card)})` : ''}.`;
    }
    case 'revival_started':
      return `${who(ev.seat)} would flicker out, but The Lich returns…`;
    case 'revived':
      return `${who(ev.seat)} is revived (The Lich) with Candle cards from every other player.`;
    default:
      return null;
  }
}

/** R5.9: what a free ability did. @param {number} seat @param {any} e @param {(s: number) => string} who @param {CardNamer} card */
function abilityResolved(seat, e, who, card) {
  if (!e) return null;
  switch (e.effect) {
    case 'doomread': return `${card(e.ghost)} leaves ${who(seat)}'s Shadow${e.spread !== null && e.spread !== undefined ? ` and spreads to ${who(e.spread)}` : ''}.`;
    case 'page_added': return `${who(seat)} adds a page to the Grimoire.`;
    case 'candles_swapped': return `${who(seat)} and ${who(e.target)} exchange Candles.`;
    case 'burned': return `${who(e.target)} Burns ${(e.burned || []).length}.`;
    case 'peeked': return e.card ? `You see ${card(e.card)} on top of ${who(e.target)}'s Candle.` : `${who(seat)} looks at the top of ${who(e.target)}'s Candle.`;
    case 'traded': return e.swapped ? `${who(seat)} trades a card with ${who(e.target)}${e.given && e.taken ? ` (gives ${card(e.given)}, takes ${card(e.taken)})` : ''}.` : `${who(seat)} keeps their hand.`;
    default: return null;
  }
}

/** @type {Record<string, string>} */
const REACTED = {
  grimoire_reject: 'a page of the Grimoire rejects the card', hex_reflect: 'The Hex reflects the Haunt',
  mime_redirect: 'The Mime redirects the Haunt', unseen_cancel: 'The Unseen cancels the Haunt',
  shadow_cancel: 'The Shadow Burns 1 to cancel the Haunt', wall_block: 'a Wall blocks the Haunt',
};
/** @type {Record<string, string>} */
const ABILITY_NAME = {
  doomreader: 'The Doomreader’s ability', grimoire_page: 'a new Grimoire page', mimic: 'The Mimic’s Candle exchange',
  pyromaniac: 'The Pyromaniac’s fire', seer: 'The Seer’s sight', trader: 'The Trader’s trade',
};

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
    case 'draft': return `${who(actor)} Drafts ${who(a.target)} with ${c}.`;
    case 'omen': return `${who(actor)} casts an Omen (${c}).`;
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
    case 'drafted': return `${who(e.target)} Burns ${cards(e.burned, card)}.`;
    case 'omen_revealed': return `The Omen reveals ${cards(e.revealed, card)} from ${who(actor)}'s Candle.`;
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
