// The rules page (/rules): how to play, every card and every class, short, after the canonical
// RULES.md (rule ids in brackets so a reader can look them up there).
import { html } from './lib.js';
import { CLASSES, CLASSIC_ROSTER, className, classText } from './classes.js';
import { Card } from './cards.js';

/** R1.3, R5.5, R5.6, R6.5: what each rank does when played. @type {{ rank: string, name: string, text: string, rule: string }[]} */
export const CARD_RULES = [
  { rank: 'A', name: 'Reprieve', text: 'At the start of your Haunting, discard an Ace to Burn nothing this turn. Can Haunt or Banish (value 1); cannot be Cast.', rule: 'R4.2.3' },
  { rank: '2', name: 'Greed', text: 'A Lit player (you included) draws 2. As your first action it gives you one more action.', rule: 'R5.5.2' },
  { rank: '3', name: 'Scare', text: 'Two random cards of a neighbour’s hand go to The Dark.', rule: 'R5.5.3' },
  { rank: '4', name: 'Drain', text: 'Take the top 2 Candle cards of each neighbour onto the top of your Candle, unseen.', rule: 'R5.5.4' },
  { rank: '5', name: 'Salt', text: 'A reaction: when someone declares an action, play a 5 to cancel it. They may Salt back with a 5 of their own; the last 5 decides. Cannot be Cast.', rule: 'R6.5' },
  { rank: '6', name: 'Sight', text: 'Look at a neighbour’s hand and take 2 of its cards.', rule: 'R5.5.6' },
  { rank: '7', name: 'Cleanse', text: 'Remove one ghost of your own Shadow, whatever its value.', rule: 'R5.5.7' },
  { rank: '8', name: 'Recall', text: 'Take a ghost from any Lit player’s Shadow (yours too) into your hand.', rule: 'R5.5.8' },
  { rank: '9', name: 'Possess', text: 'Move a ghost of your Shadow into a neighbour’s Shadow.', rule: 'R5.5.9' },
  { rank: '10', name: 'Rekindle', text: 'Take the top 3 cards of The Dark into your Candle, which is then shuffled.', rule: 'R5.5.10' },
  { rank: 'J', name: 'Mirror', text: 'Swap your whole Shadow with a neighbour’s. Banishes as value 10.', rule: 'R5.6.1' },
  { rank: 'Q', name: 'Medium', text: 'Search: take any one card but a Joker from The Dark into your hand. Or Depths: put the bottom 2 cards of The Dark into your Candle, which is then shuffled. Banishes as value 10.', rule: 'R5.6.2' },
  { rank: 'K', name: 'Purge', text: 'Remove every ghost of your Shadow; those of the King’s suit are Siphoned into your Candle. Banishes as value 10.', rule: 'R5.6.3' },
  { rank: 'Joker', name: 'BOO!', text: 'Every other Lit player turns up Candle cards until a number card, which becomes a ghost in their Shadow.', rule: 'R5.6.4' },
];

/** A6, A7, A8: what each rank does under `classic-1.0`. @type {{ rank: string, name: string, text: string }[]} */
export const CLASSIC_CARD_RULES = [
  { rank: 'A', name: 'Draft', text: 'A chosen neighbour Burns 2.' },
  { rank: '2', name: 'Scare', text: 'A neighbour discards 2 cards at random.' },
  { rank: '3', name: 'Omen', text: 'Reveal the top 3 of your Candle and play one of them at once, as if from your hand (never another Omen); the others go under your Candle.' },
  { rank: '4', name: 'Salt', text: 'A reaction only: cancel an action that targets you. The actor may Salt back; the last 4 decides.' },
  { rank: '5', name: 'Greed', text: 'Draw 2 cards from your own Candle.' },
  { rank: '6', name: 'Cleanse', text: 'Remove one ghost of your Shadow to The Dark, whatever its value.' },
  { rank: '7', name: 'Sight', text: 'See a neighbour’s hand and take 1 card of it.' },
  { rank: '8', name: 'Vanish', text: 'Take a ghost from any Shadow into your hand.' },
  { rank: '9', name: 'Possess', text: 'Put one of your ghosts into a neighbour’s Shadow.' },
  { rank: '10', name: 'Rekindle', text: 'The top 3 cards of The Dark go under your Candle, with no shuffle.' },
  { rank: 'J', name: 'Mirror', text: 'Swap the ghosts of your Shadow with a neighbour’s.' },
  { rank: 'Q', name: 'Medium', text: 'Take any one card of The Dark, a Joker included.' },
  { rank: 'K', name: 'Purge', text: 'Remove every ghost of your Shadow to The Dark.' },
  { rank: 'Joker', name: 'The Haunted', text: 'Every opponent turns up Candle cards until a number card, which becomes a ghost in their Shadow.' },
];

/** The rules page. */
export function RulesPage() {
  const classes = Object.entries(CLASSES).filter(([, c]) => !c.classic);
  return html`<main class="page rules-page" data-testid="rules-page">
    <h2>How to play The Final Flicker</h2>
    <nav class="toc" aria-label="On this page"><a href="#how">How to play</a> · <a href="#turn">A turn</a> · <a href="#cards">The cards</a>
      · <a href="#salt">Salt</a> · <a href="#classes">The classes</a> · <a href="#classic">Classic 1.0</a> · <a href="#gatherings">Gatherings</a></nav>

    <section id="how"><h3>The aim</h3>
      <p>Each player guards a <strong>Candle</strong>: a face-down pile of 27 cards, 3 of which start in your hand (R2.3, R2.5).
        Ghosts that others <strong>Haunt</strong> you with lie face up in your <strong>Shadow</strong> and make you
        <strong>Burn</strong> your Candle: each Burn moves its top card onto <strong>The Dark</strong>, the shared face-up pile (R0.7).
        You flicker out when you must draw from an empty Candle (Consumed, R7.2) or when 3 ghosts of one suit lie in your
        Shadow (Possessed, R7.3). The last player still <strong>Lit</strong> wins (R7.7).</p>
      <p>Your neighbours are the nearest Lit players to your left and right (R0.4): most cards reach only them.</p></section>

    <section id="turn"><h3>A turn (R4.1)</h3>
      <ol>
        <li><strong>The Haunting.</strong> If ghosts lie in your Shadow, choose: <em>Endure</em> (Burn one per ghost),
          <em>Reprieve</em> (discard an Ace, Burn nothing) or <em>Panic</em> against one ghost: turn up your Candle's top card;
          if it is worth at least the ghost (or is a Joker), the ghost goes; if not, the card joins your Shadow as a new ghost.
          Then Burn one per ghost (R4.2).</li>
        <li><strong>The Draw.</strong> Draw the top card of your Candle (R4.3).</li>
        <li><strong>The Ritual.</strong> One action (R4.4): <em>Haunt</em> a neighbour with a number card (it becomes a ghost in
          their Shadow, R5.2), <em>Banish</em> a ghost of your Shadow with a card that beats it (higher value, or equal value and a
          suit as high: ♠ &gt; ♥ &gt; ♣ &gt; ♦, R5.3), <em>Cast</em> a number card's power, <em>Summon</em> with a face card or
          Joker, or a class action. You may also end the Ritual without acting.</li>
        <li><strong>The Burden.</strong> Discard down to 5 cards in hand (R4.5).</li>
        <li><strong>Am I Alive?</strong> An empty Candle or 3 ghosts of a suit, and you are out (R4.6).</li>
      </ol>
      <p>A ghost you Banish whose suit matches the card you used may be <strong>Siphoned</strong>: it goes under your Candle
        instead of to The Dark, unless it is a ♠ (the Spade curse, R5.4).</p></section>

    <section id="cards"><h3>The cards (R1.3)</h3>
      <p>Values: A = 1, 2–10 as printed, J Q K = 10 (R1.4). A–10 can also Haunt or Banish; J, Q and K can Banish.</p>
      <div class="card-rules">${CARD_RULES.map((c) => html`<div class="card-rule" data-testid="card-rule">
        <${Card} card=${{ rank: c.rank, suit: c.rank === 'Joker' ? null : c.rank === '5' ? 'hearts' : 'spades' }} size="xs" />
        <div><strong>${c.rank} · ${c.name}</strong> <span class="muted">${c.rule}</span><br />${c.text}</div></div>`)}</div></section>

    <section id="salt"><h3>Salt and reactions (R6)</h3>
      <p>After an action is declared, a window opens: every other Lit player holding a card is asked to Salt (play a 5) or Pass,
        whether they hold a 5 or not, so being asked says nothing about a hand (R6.5.4). A standing Salt cancels the action and
        ends the actor's Ritual (R4.4.5). Some classes have reactions of their own, asked before Salt.</p></section>

    <section id="classes"><h3>The classes (R8)</h3>
      <p>With classes on, each player picks one of three classes offered at the start (R2.7) and keeps it all game; chosen
        classes are public. Small circles use smaller pools (R2.8).</p>
      <dl class="class-rules">${classes.map(([id, c]) => html`<div class="class-rule" id=${`class-${id}`} data-testid="class-rule">
        <dt>${c.name} <span class="muted">${c.kind}</span></dt><dd>${c.text}</dd></div>`)}</dl></section>

    <section id="classic"><h3>Classic 1.0 rules (appendix A)</h3>
      <p>Tables and gatherings may play the rules of the 1.0 manual instead. What differs: two decks even for 2 players,
        a 5-card starting hand and a hand limit of 7; the Haunting Burns one card per ghost with no Reprieve, Endure or Panic;
        one action a turn; only number cards Banish and nothing is ever Siphoned; Salt is a 4 and only the player an action
        targets may Salt it; you are Consumed only when you must draw from an empty Candle; a dead player's ghosts go to The Dark
        (or, with <em>dark mode</em>, are split between the neighbours). Classic tables with classes offer the classic roster of
        25 classes to every circle size (A9).</p>
      <div class="card-rules">${CLASSIC_CARD_RULES.map((c) => html`<div class="card-rule" data-testid="classic-card-rule">
        <${Card} card=${{ rank: c.rank, suit: c.rank === 'Joker' ? null : c.rank === '4' ? 'hearts' : 'spades' }} size="xs" />
        <div><strong>${c.rank} · ${c.name}</strong> <span class="muted">A6–A8</span><br />${c.text}</div></div>`)}</div>
      <h4>The classic roster (A9)</h4>
      <dl class="class-rules">${CLASSIC_ROSTER.map((id) => html`<div class="class-rule" data-testid="classic-class-rule">
        <dt>${className(id)}</dt><dd>${classText(id, 'classic-1.0')}</dd></div>`)}</dl></section>

    <section id="gatherings"><h3>Gatherings (R9)</h3>
      <p>A gathering splits its players into circles of at most the organiser's largest size. Each qualifying circle sends on
        its Last Lit (1 or 2, as the organiser chose) to the next stage, until one circle remains: the
        <strong>Final Ritual</strong>, whose winner wins the gathering. A circle that ends <em>Witnessed</em> (The Witness and one
        other are the last Lit, R7.8) sends nobody on.</p></section>
    <p class="muted">The full rules, with every case settled: RULES.md (rule ids in brackets above).</p>
  </main>`;
}
