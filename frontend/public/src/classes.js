// The classes of the current roster (RULES.md section 8): the name a person reads and a short
// description of what the class does, keyed by the API's `ClassId` (snake_case).

/**
 * @typedef {{ name: string, kind: string, text: string, classic?: boolean }} ClassInfo
 */

/** R8.1-R8.38: every class, by its API id. @type {Record<string, ClassInfo>} */
export const CLASSES = {
  clown: { name: 'The Clown', kind: 'Passive', text: 'Your ghosts cannot be Banished with a number card (only J, Q, K, Cleanse, Purge or Panic remove them).' },
  cryptkeeper: { name: 'The Cryptkeeper', kind: 'Ritual action + Reaction', text: 'Build Walls face down in your Shadow (up to 3); discard a Wall to block a Haunt aimed at you.' },
  doomreader: { name: 'The Doomreader', kind: 'Free, once a turn', text: 'Discard a card to remove a ghost of your own Shadow, no comparison needed.' },
  exorcist: { name: 'The Exorcist', kind: 'Passive', text: 'Your Cleanse removes two different ghosts of your Shadow instead of one.' },
  fatalist: { name: 'The Fatalist', kind: 'Ritual action', text: 'Discard a card to give any ghost another suit.' },
  funeral_bell: { name: 'The Funeral Bell', kind: 'Trigger', text: 'When another player is eliminated, every other Lit player Burns 1.' },
  gatekeeper: { name: 'The Gatekeeper', kind: 'Passive', text: 'Nobody else may Possess onto you or Mirror with you.' },
  gravedigger: { name: 'The Gravedigger', kind: 'Trigger', text: "When a neighbour is eliminated, their remaining Candle goes beneath yours." },
  grimoire_of_rejection: { name: 'The Grimoire of Rejection', kind: 'Free, once a turn + Reaction', text: 'Put a hand card face down as a page (up to 3); reveal a page to reject a card played at you.' },
  hex: { name: 'The Hex', kind: 'Reaction', text: 'Reveal a hand card of the same suit to turn a number-card Haunt back on its player.' },
  hoarder: { name: 'The Hoarder', kind: 'Passive', text: 'Your hand limit is 8 instead of 5.' },
  judge: { name: 'The Judge', kind: 'Trigger', text: 'When your Sight resolves, the neighbour you saw Burns 3.' },
  leech: { name: 'The Leech', kind: 'Passive', text: 'Every ghost you Banish is Siphoned into your Candle (unless Spade-cursed).' },
  lich: { name: 'The Lich', kind: 'Trigger, once a game', text: 'The first time you would be eliminated, you come back with 2 Candle cards from each other player.' },
  martyr: { name: 'The Martyr', kind: 'Optional trigger', text: 'After you Burn in your own Haunting, you may draw 1 card.' },
  mime: { name: 'The Mime', kind: 'Reaction', text: 'Discard a card to redirect a Haunt aimed at you to your other neighbour.' },
  mimic: { name: 'The Mimic', kind: 'Free, once a game', text: 'Exchange your whole Candle with a neighbour’s.' },
  occultist: { name: 'The Occultist', kind: 'Passive + Trigger', text: 'Your Possess may reach any Lit player; reaching a non-neighbour moves 2 cards of The Dark under your Candle.' },
  phantom: { name: 'The Phantom', kind: 'Passive', text: 'While your hand is empty, no Haunt may target you.' },
  plague: { name: 'The Plague', kind: 'Passive + Trigger', text: 'Your ghosts spread to a neighbour instead of leaving when Banished without a Siphon.' },
  priest: { name: 'The Priest', kind: 'Trigger', text: 'When you Banish, first take the top card of The Dark into your hand.' },
  pyromaniac: { name: 'The Pyromaniac', kind: 'Free, once a turn', text: 'Discard a red card (♥ or ♦): a neighbour Burns 2.' },
  sadist: { name: 'The Sadist', kind: 'Passive', text: 'Your Scare discards 3 random cards instead of 2.' },
  sealbinder: { name: 'The Sealbinder', kind: 'Passive', text: 'Your ghosts cannot be Possessed or Recalled, and no Mirror may move them.' },
  seer: { name: 'The Seer', kind: 'Free, once a turn', text: 'Secretly see the top card of any Lit player’s Candle, yours included.' },
  shadow: { name: 'The Shadow', kind: 'Reaction', text: 'Burn 1 to cancel a Haunt aimed at you.' },
  silence: { name: 'The Silence', kind: 'Passive', text: 'Nobody may Salt your actions.' },
  skeptic: { name: 'The Skeptic', kind: 'Passive', text: 'A Drain takes nothing from you.' },
  sufferer: { name: 'The Sufferer', kind: 'Passive', text: 'You are Possessed only by 4 ghosts of one suit.' },
  survivor: { name: 'The Survivor', kind: 'Passive', text: 'Holding 2 cards or fewer when your Haunting begins, you Burn nothing in it.' },
  trader: { name: 'The Trader', kind: 'Free, once a turn', text: 'Discard a card to see a neighbour’s hand; you may swap one of your cards for one of theirs.' },
  unseen: { name: 'The Unseen', kind: 'Reaction', text: 'Discard a hand card to cancel a Haunt aimed at you.' },
  usurer: { name: 'The Usurer', kind: 'Ritual action', text: 'Usurp: take 2 random cards from a neighbour’s hand (they draw 1), playing no card.' },
  voodoo_doll: { name: 'The Voodoo Doll', kind: 'Trigger', text: 'When you Burn in your Haunting, each haunter of a ♠, ♣ or ♦ ghost in your Shadow Burns 1.' },
  vulture: { name: 'The Vulture', kind: 'Trigger', text: 'When a neighbour is eliminated, move up to 5 cards of The Dark under your Candle.' },
  warlock: { name: 'The Warlock', kind: 'Passive', text: 'You may Haunt with J, Q, K or a Joker (a ghost of value 10).' },
  watcher: { name: 'The Watcher', kind: 'Passive', text: 'Your Sight sees both neighbours’ hands and takes up to 2 cards from each.' },
  witness: { name: 'The Witness', kind: 'Passive', text: 'You cannot win: when you and one other are the last Lit, the game ends Witnessed, with no winner.' },
  // A9: the classes of the classic roster only.
  binder: { name: 'The Binder', kind: 'Passive', text: 'Ghosts you Haunted cannot be moved by Possess or taken by Vanish (Mirror still swaps them).', classic: true },
  jester: { name: 'The Jester', kind: 'Reaction', text: 'Discard a card to redirect a Haunt aimed at you to your other neighbour (as The Mime).', classic: true },
  architect: { name: 'The Architect', kind: 'Ritual action', text: 'Build Walls face down in your Shadow (up to 3); your oldest Wall absorbs each Haunt aimed at you. A Mirror leaves your Walls.', classic: true },
};

/** A class's display name: "The Grimoire of Rejection"; unknown ids are spelled out. @param {string | null | undefined} id */
export function className(id) {
  if (!id) return '';
  const c = CLASSES[id];
  return c ? c.name : id.replace(/_/g, ' ');
}

/** A9: the classic roster's effects where they differ from the current class. @type {Record<string, string>} */
export const CLASSIC_TEXT = {
  skeptic: 'A Draft on you Burns nothing.',
  priest: 'After each of your Banish actions, draw 1 card from your Candle.',
  exorcist: 'Your Cleanse removes two different ghosts of your Shadow instead of one.',
  sadist: 'Your Scare lets you look at the hand and choose the 2 cards discarded.',
  vulture: 'When a neighbour dies, take the top 5 cards of The Dark into your Candle, then shuffle it.',
  occultist: 'Your Possess may target any player.',
  hoarder: 'Your hand limit is 10 instead of 7.',
  leech: 'Every ghost you Banish goes to the bottom of your Candle, Spades too.',
  clown: 'Your ghosts cannot be Banished with number cards; a face card may Banish them (and only them), and Cleanse or Purge remove them.',
};

/** A9: the classic roster, in its table's order. */
export const CLASSIC_ROSTER = ['skeptic', 'priest', 'shadow', 'exorcist', 'survivor', 'pyromaniac', 'sadist', 'binder', 'warlock',
  'vulture', 'occultist', 'trader', 'seer', 'hoarder', 'mimic', 'gravedigger', 'fatalist', 'leech', 'martyr', 'lich', 'judge',
  'jester', 'architect', 'clown', 'phantom'];

/** The short description of a class (under `classic-1.0` when `ruleset` says so), or ''.
 * @param {string | null | undefined} id @param {string} [ruleset] */
export function classText(id, ruleset) {
  if (id && ruleset === 'classic-1.0' && CLASSIC_TEXT[id]) return CLASSIC_TEXT[id];
  return (id && CLASSES[id] && CLASSES[id].text) || '';
}
