// Cards drawn in CSS: face up (rank, suit pips), face down (Candle, Walls), with readable suits
// and an optional four-colour deck (set on <body> by the settings toggle).
import { html } from './lib.js';
import { Icon } from './icons.js';

/**
 * @typedef {{ handle?: number, rank: string, suit?: string | null }} CardFace
 */

/** @type {Record<string, string>} */
export const SUIT_SYMBOL = { spades: '♠', hearts: '♥', clubs: '♣', diamonds: '♦' };
/** @type {Record<string, string>} */
const SUIT_NAME = { spades: 'Spades', hearts: 'Hearts', clubs: 'Clubs', diamonds: 'Diamonds' };
/** @type {Record<string, string>} */
const RANK_NAME = { A: 'Ace', J: 'Jack', Q: 'Queen', K: 'King', Joker: 'Joker' };
/** @type {Record<string, string>} */
export const RANK_POWER = {
  A: 'Reprieve', 2: 'Greed', 3: 'Scare', 4: 'Drain', 5: 'Salt', 6: 'Sight', 7: 'Cleanse', 8: 'Recall',
  9: 'Possess', 10: 'Rekindle', J: 'Mirror', Q: 'Medium', K: 'Purge', Joker: 'BOO!',
};

/** A6, A7: what each rank does under `classic-1.0`. @type {Record<string, string>} */
export const CLASSIC_POWER = {
  A: 'Draft', 2: 'Scare', 3: 'Omen', 4: 'Salt', 5: 'Greed', 6: 'Cleanse', 7: 'Sight', 8: 'Vanish',
  9: 'Possess', 10: 'Rekindle', J: 'Mirror', Q: 'Medium', K: 'Purge', Joker: 'The Haunted',
};

/** The power names of a ruleset (R10.1.3: `current` or `classic-1.0`). @param {string | undefined} ruleset */
export function powersFor(ruleset) {
  return ruleset === 'classic-1.0' ? CLASSIC_POWER : RANK_POWER;
}

/** The ruleset of the game on screen: cards name their power under it. */
let shownPowers = RANK_POWER;

/** Sets the ruleset whose power names cards show (the table and replay views call it). @param {string | undefined} ruleset */
export function showRuleset(ruleset) {
  shownPowers = powersFor(ruleset);
}

/** R10.1.3: a ruleset as people read it ("Classic 1.0 rules"). @param {{ id: string, version: number } | null | undefined} r */
export function rulesetLabel(r) {
  if (!r) return '';
  return `${r.id === 'classic-1.0' ? 'Classic 1.0 rules' : 'Current rules'} (v${r.version})`;
}

/** "7♥", "Joker". @param {CardFace | null | undefined} c */
export function cardText(c) {
  if (!c) return 'a card';
  if (c.rank === 'Joker' || !c.suit) return 'Joker';
  return `${c.rank}${SUIT_SYMBOL[c.suit] || ''}`;
}

/** "7 of Hearts". @param {CardFace} c */
export function cardName(c) {
  if (c.rank === 'Joker' || !c.suit) return 'Joker';
  return `${RANK_NAME[c.rank] || c.rank} of ${SUIT_NAME[c.suit] || c.suit}`;
}

/**
 * A face-up card. Clickable (a button, keyboard reachable) when `onClick` is given.
 * @param {{ card: CardFace, size?: 'xs' | 'sm' | 'md' | 'lg', onClick?: () => void, selected?: boolean,
 *   dim?: boolean, title?: string, marker?: string, testid?: string }} props
 */
export function Card({ card, size = 'md', onClick, selected, dim, title, marker, testid }) {
  const joker = card.rank === 'Joker' || !card.suit;
  const suit = joker ? 'joker' : /** @type {string} */ (card.suit);
  const sym = joker ? '★' : SUIT_SYMBOL[suit];
  const cls = `card face ${size} suit-${suit}${selected ? ' selected' : ''}${dim ? ' dim' : ''}${onClick ? ' clickable' : ''}`;
  const label = `${cardName(card)}${shownPowers[card.rank] ? `, ${shownPowers[card.rank]}` : ''}${title ? `: ${title}` : ''}`;
  const body = html`
    <span class="corner">${joker ? 'JK' : card.rank}<br />${sym}</span>
    <span class="pip" aria-hidden="true">${joker ? html`<${Icon} name="ghost" size=${size === 'xs' ? 12 : 22} />` : sym}</span>
    ${size !== 'xs' && html`<span class="power" aria-hidden="true">${shownPowers[card.rank] || ''}</span>`}
    ${marker && html`<span class="marker" aria-hidden="true">${marker}</span>`}
  `;
  if (onClick) {
    return html`<button type="button" class=${cls} aria-label=${label} aria-pressed=${selected ? 'true' : 'false'}
      title=${label} data-card=${cardText(card)} data-testid=${testid} onClick=${onClick}>${body}</button>`;
  }
  return html`<span class=${cls} role="img" aria-label=${label} title=${label} data-card=${cardText(card)}
    data-testid=${testid}>${body}</span>`;
}

/**
 * A face-down card (a Candle, a hidden hand card, a Wall), optionally with a count on it.
 * @param {{ size?: 'xs' | 'sm' | 'md' | 'lg', count?: number, label?: string, wall?: boolean }} props
 */
export function CardBack({ size = 'sm', count, label, wall }) {
  return html`<span class=${`card back ${size}${wall ? ' wall' : ''}`} role="img" aria-label=${label || 'face-down card'}
    title=${label || ''}>${count !== undefined && html`<span class="count">${count}</span>`}</span>`;
}
