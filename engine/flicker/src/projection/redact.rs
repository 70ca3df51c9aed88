//! Per-viewer projections of events (R10.6.3, R10.8, R10.8.2). A hidden card is shown only as a
//! count; a hidden event (a Pass, a private simultaneous answer) is not shown at all.
//!
//! Cards are named with the handle they have where the viewer can see them: a card leaving a
//! public zone keeps its old handle in the event (so a client knows which ghost left), a card
//! entering a zone the viewer sees gets its new handle (R10.3.2). A card leaving a zone the
//! viewer sees for one it does not (the cards Sight takes, as their former owner sees them) is
//! named only as it was, never with the handle it has where the viewer cannot follow it.

use crate::model::action::Action;
use crate::model::card::{CardId, Suit};
use crate::model::classes::ClassId;
use crate::model::classes::Reaction;
use crate::model::classes::TriggerEffect;
use crate::model::classes::{Ability, AbilityEffect};
use crate::model::event::{Effect, EliminationCause, EndReason, Event, PanicOutcome, TurnOrder};
use crate::model::handle::{CardView, card_view};
use crate::model::settings::{RulesetId, Settings};
use crate::model::state::State;
use crate::projection::view::Viewer;
use crate::rules::prompt::neutral_order;
use serde::{Deserialize, Serialize};

/// Cards of a move that a viewer may or may not see.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cards {
    /// The cards, named.
    Shown(Vec<CardView>),
    /// Only how many.
    Hidden {
        /// The number of cards.
        count: usize,
    },
}

/// R5.6.4 as seen: what BOO! turned up for one player (all public).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooRevealView {
    /// The player.
    pub seat: u8,
    /// Face cards and Jokers sent to The Dark.
    pub to_dark: Vec<CardView>,
    /// The new ghost.
    pub ghost: Option<CardView>,
}

/// An [`Effect`] as a viewer sees it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum EffectView {
    /// A6 Omen: the revealed cards, face up in the Resolving area (public).
    OmenRevealed {
        /// The cards, top of the Candle first.
        revealed: Vec<CardView>,
    },
    /// A6 Draft: the Burned cards, face up in The Dark (public).
    Drafted {
        /// Who Burned.
        target: u8,
        /// The cards, in the order Burned.
        burned: Vec<CardView>,
    },
    /// R5.2.
    Haunted {
        /// The Shadow's owner.
        target: u8,
        /// The new ghost.
        ghost: CardView,
    },
    /// R5.3.4.
    Banished {
        /// The ghost (as it was in the Shadow).
        ghost: CardView,
        /// Siphoned to the bottom of the actor's Candle.
        siphoned: bool,
        /// R8.20.3: spread to this player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spread: Option<u8>,
        /// R8.21.1: the top card of The Dark The Priest took (as it lay there).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        priest: Option<CardView>,
    },
    /// R5.5.2.
    Greed {
        /// Who drew.
        target: u8,
        /// The cards (shown to the drawer only).
        drawn: Cards,
    },
    /// R5.5.3: public as they enter The Dark.
    Scared {
        /// Whose hand.
        target: u8,
        /// The cards, in order.
        discarded: Vec<CardView>,
    },
    /// R5.5.4: nobody sees the cards.
    Drained {
        /// (neighbour, number of cards taken).
        packets: Vec<(u8, usize)>,
    },
    /// R5.5.6: the actor sees the cards as they now lie in its hand; the target sees them as
    /// they lay in its own hand (the handles it knew), in the neutral order of R10.12, so it
    /// cannot follow them into the actor's hand (R10.3.2); everyone else sees a count.
    SightTaken {
        /// Whose hand.
        target: u8,
        /// The cards.
        taken: Cards,
        /// R8.12.1: cards The Judge's target Burned.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        burned: Vec<CardView>,
    },
    /// R5.5.7.
    Cleansed {
        /// The ghost (as it was in the Shadow).
        ghost: CardView,
        /// Siphoned.
        siphoned: bool,
        /// R8.20.3: spread to this player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spread: Option<u8>,
        /// R8.4.1: The Exorcist's second ghost (ghost as it was, siphoned, spread).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        second: Option<(CardView, bool, Option<u8>)>,
    },
    /// R5.5.8.
    Recalled {
        /// The Shadow's owner.
        owner: u8,
        /// The ghost as it was in the Shadow.
        ghost: CardView,
        /// Its new handle in the actor's hand (actor only).
        #[serde(skip_serializing_if = "Option::is_none")]
        in_hand: Option<CardView>,
    },
    /// R5.5.9.
    Possessed {
        /// The ghost, as it now lies in the destination's Shadow.
        ghost: CardView,
        /// The receiving player.
        destination: u8,
        /// R8.18.2: cards The Occultist moved from The Dark (the former top named, R10.8.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bonus: Option<DarkTake>,
    },
    /// R5.5.10: the top card of The Dark is named; the rest and the shuffle are hidden.
    Rekindled {
        /// The card that was on top of The Dark.
        top: Option<CardView>,
        /// How many cards were taken.
        taken: usize,
        /// The Candle's new size.
        candle_size: usize,
    },
    /// R5.6.1.
    Mirrored {
        /// The other player.
        target: u8,
    },
    /// R5.6.2 Search: the actor sees the card; others only when it was the top of The Dark.
    MediumSearched {
        /// The card taken, if any.
        taken: Option<Cards>,
    },
    /// R5.6.2 Depths: nobody sees the cards.
    MediumDepths {
        /// How many cards were taken.
        taken: usize,
        /// The Candle's new size.
        candle_size: usize,
    },
    /// R5.6.3.
    Purged {
        /// (ghost as it was, siphoned).
        removed: Vec<(CardView, bool)>,
        /// R8.20.3: (ghost as it now lies, recipient) for ghosts that spread.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        spreads: Vec<(CardView, u8)>,
    },
    /// R5.6.4.
    Boo {
        /// One entry per affected player.
        reveals: Vec<BooRevealView>,
    },
    /// R8.2.1: a Wall was built (its face shown to the builder only).
    WallBuilt {
        /// The Wall, for its builder.
        #[serde(skip_serializing_if = "Option::is_none")]
        wall: Option<CardView>,
    },
    /// R8.5.2.
    SuitAltered {
        /// The ghost's owner.
        owner: u8,
        /// The ghost.
        ghost: CardView,
        /// The new suit.
        suit: Suit,
    },
    /// R8.33.1: as Sight: the Usurer and the target see the cards, others a count.
    Usurped {
        /// Whose hand.
        target: u8,
        /// The cards taken.
        taken: Cards,
        /// The card the target drew (the target only).
        drawn: Cards,
    },
    /// R8.37.1.
    WatcherTaken {
        /// (neighbour, cards taken).
        taken: Vec<(u8, Cards)>,
    },
}

/// Cards taken from the top of The Dark: the former top is named (it was public), the rest
/// are counted (R10.8.2).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DarkTake {
    /// The card that was the top of The Dark.
    pub top: Option<CardView>,
    /// How many cards were taken.
    pub count: usize,
}

/// A free ability's effect as seen (R10.8.2).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum AbilityEffectView {
    /// R8.3.1.
    Doomread {
        /// The ghost, as it was.
        ghost: CardView,
        /// The spread's recipient.
        spread: Option<u8>,
    },
    /// R8.9.1.
    PageAdded,
    /// R8.17.1.
    CandlesSwapped {
        /// The neighbour.
        target: u8,
    },
    /// R8.22.1.
    Burned {
        /// The neighbour.
        target: u8,
        /// Cards Burned.
        burned: Vec<CardView>,
    },
    /// R8.25.1: the card, for The Seer only.
    Peeked {
        /// The Candle's owner.
        target: u8,
        /// The card (The Seer only).
        #[serde(skip_serializing_if = "Option::is_none")]
        card: Option<CardView>,
    },
    /// R8.31.1, R10.8.2: whether The Trader swapped is public; the cards only to the two players.
    Traded {
        /// The neighbour.
        target: u8,
        /// True when cards were swapped.
        swapped: bool,
        /// The card The Trader gave (The Trader and the neighbour only).
        #[serde(skip_serializing_if = "Option::is_none")]
        given: Option<CardView>,
        /// The card The Trader took (The Trader and the neighbour only).
        #[serde(skip_serializing_if = "Option::is_none")]
        taken: Option<CardView>,
    },
}

/// A class trigger as seen.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "trigger", rename_all = "snake_case")]
pub enum TriggerView {
    /// R8.34.1.
    Voodoo {
        /// (haunter, cards Burned).
        burns: Vec<(u8, Vec<CardView>)>,
    },
    /// R8.15.1: the card, for The Martyr only.
    MartyrDraw {
        /// The card drawn.
        card: Cards,
    },
    /// R8.35.1.
    Vulture {
        /// The eliminated neighbour.
        dead: u8,
        /// The cards taken.
        taken: DarkTake,
    },
    /// R8.6.1.
    FuneralBell {
        /// The eliminated player.
        dead: u8,
        /// (player, cards Burned).
        burns: Vec<(u8, Vec<CardView>)>,
    },
}

/// An [`Event`] as a viewer sees it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ViewEvent {
    /// The game was created and dealt.
    GameCreated {
        /// Ruleset.
        ruleset: RulesetId,
        /// Settings.
        settings: Settings,
        /// R1.6: decks in the pool.
        decks: usize,
        /// R1.6: Jokers in the pool.
        jokers: usize,
        /// R2.3: cards dealt to each Candle.
        candle_size: usize,
        /// R2.4: The Dark as placed face up (last is top).
        dark: Vec<CardView>,
        /// R9.8.2: cards set aside face down (a later gathering stage): a count.
        #[serde(default, skip_serializing_if = "is_zero")]
        set_aside: usize,
        /// R2.5: the viewer's own starting hand.
        #[serde(skip_serializing_if = "Option::is_none")]
        hand: Option<Vec<CardView>>,
        /// R10.8: every seat's starting hand, in seat order (the commentary view only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hands: Option<Vec<Vec<CardView>>>,
        /// R2.6: the first player, if already known.
        first_player: Option<u8>,
        /// R10.13: a game started from a full position: that position as the viewer may see
        /// it (unknown cards as `?`, R10.8), in its text form.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        position: Option<String>,
    },
    /// R2.6.
    TurnOrderChosen {
        /// The tiebreaker winner.
        seat: u8,
        /// First or Last.
        choice: TurnOrder,
    },
    /// R4.1, R7.9.3.
    TurnStarted {
        /// The active player.
        seat: u8,
        /// The round.
        round: u16,
        /// Guttering Burns.
        guttering: Vec<CardView>,
    },
    /// R4.2.3.
    Reprieved {
        /// The active player.
        seat: u8,
        /// The Ace.
        ace: CardView,
    },
    /// R4.2.4.
    Endured {
        /// The active player.
        seat: u8,
        /// Burned cards.
        burned: Vec<CardView>,
    },
    /// R4.2.5.
    Panicked {
        /// The active player.
        seat: u8,
        /// The targeted ghost (as it was).
        ghost: CardView,
        /// The revealed card, where it now lies.
        revealed: CardView,
        /// Outcome.
        outcome: PanicOutcome,
        /// Burns that followed.
        burned: Vec<CardView>,
    },
    /// R4.3: the card is shown to the drawer only.
    Drew {
        /// The active player.
        seat: u8,
        /// The card.
        card: Cards,
    },
    /// R5.1.2.
    ActionDeclared {
        /// The actor.
        actor: u8,
        /// The declaration (`null` for a Wall being built, except for its builder).
        action: Action<Option<CardView>>,
    },
    /// R10.6.6: the viewer's own private answer.
    SaltAnswered {
        /// The viewer's seat.
        seat: u8,
        /// The chosen 5, if Salting.
        salt: Option<CardView>,
    },
    /// R10.6.5: the viewer's own answer, held until the prompt closes.
    AnswerHeld {
        /// The viewer's seat.
        seat: u8,
        /// The answer as the viewer gave it.
        answer: crate::model::command::Answer,
    },
    /// R10.6.6.
    AnswersClosed,
    /// R6.5.4: the viewer's own Pass.
    Passed {
        /// The viewer's seat.
        seat: u8,
    },
    /// R6.5.5.
    Salted {
        /// Who.
        seat: u8,
        /// The 5.
        card: CardView,
    },
    /// R6.5.5.
    Yielded {
        /// Who.
        seat: u8,
    },
    /// R6.5.7.
    WindowClosed,
    /// R6.5.6.
    ActionCancelled {
        /// The actor.
        actor: u8,
        /// Whose Salt stood.
        salter: u8,
    },
    /// R5.1.5.
    ActionResolved {
        /// The actor.
        actor: u8,
        /// The effect as seen.
        effect: EffectView,
    },
    /// R4.4.7.
    RitualEnded {
        /// The active player.
        seat: u8,
        /// No action this turn.
        abstained: bool,
    },
    /// R4.5.2.
    BurdenDiscarded {
        /// The active player.
        seat: u8,
        /// The cards (public as they enter The Dark).
        cards: Vec<CardView>,
    },
    /// R10.10.1.
    ConcessionRequested {
        /// Who.
        seat: u8,
    },
    /// R10.7.1: the viewer's own time-out (shown to no one else during the game).
    TimedOut {
        /// The viewer's seat only: whether others timed out is hidden (R10.6.4).
        seats: Vec<u8>,
    },
    /// R7.4.
    EliminationStarted {
        /// Who.
        seat: u8,
        /// Why.
        cause: EliminationCause,
        /// Placing.
        placing: u8,
    },
    /// A6 Omen: the others of the revealed cards went to the bottom of the actor's Candle in the
    /// order revealed (as they lay face up: they were shown), and the play of one revealed card
    /// began (its card as it lies face up in the Resolving area), if any could be played.
    OmenChosen {
        /// The actor.
        seat: u8,
        /// The declaration played.
        play: Option<Action<CardView>>,
        /// The others, as they lay face up.
        rest: Vec<CardView>,
    },
    /// R7.4-R7.5.
    Eliminated {
        /// Who.
        seat: u8,
        /// Ghost shares, as they now lie in each recipient's Shadow.
        shares: Vec<(u8, Vec<CardView>)>,
        /// Cards put out of play (count).
        out_of_play: usize,
        /// A3.3: ghosts that went to The Dark, in entry order (public).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        to_dark: Vec<CardView>,
        /// R8.8.1: The Gravedigger and the number of Candle cards it took.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gravedigger: Option<(u8, usize)>,
    },
    /// R7.7.
    GameEnded {
        /// The winner.
        winner: Option<u8>,
        /// Why.
        reason: EndReason,
        /// Placings per seat.
        placings: Vec<u8>,
        /// The circle's Last Lit.
        last_lit: Vec<u8>,
    },
    /// R2.7.
    ClassSelectionStarted {
        /// R2.7.7: the ban list is ignored at this table.
        bans_ignored: bool,
    },
    /// R2.7.2: the offer, for its chooser only.
    ClassOffered {
        /// The picker.
        seat: u8,
        /// The offer (the picker only).
        #[serde(skip_serializing_if = "Option::is_none")]
        offer: Option<Vec<ClassId>>,
    },
    /// R2.7.5.
    ClassChosen {
        /// The picker.
        seat: u8,
        /// The class.
        class: ClassId,
    },
    /// R6.3, R6.4: a class reaction (its card is public).
    Reacted {
        /// Who.
        seat: u8,
        /// The reaction.
        reaction: Reaction<CardView>,
    },
    /// The viewer's own declined class prompt.
    Declined {
        /// The viewer's seat.
        seat: u8,
    },
    /// R5.9.
    AbilityUsed {
        /// The owner.
        seat: u8,
        /// The ability (a new Grimoire page is shown to its owner only).
        ability: Ability<Option<CardView>>,
        /// The effect, when it resolved at once.
        effect: Option<AbilityEffectView>,
    },
    /// R5.9.
    AbilityResolved {
        /// The owner.
        seat: u8,
        /// The effect.
        effect: AbilityEffectView,
    },
    /// R8.20.3.
    SpreadChosen {
        /// The remover.
        seat: u8,
        /// The ghost.
        ghost: CardView,
        /// The recipient.
        to: u8,
    },
    /// R6.9.
    Triggered {
        /// The owner.
        owner: u8,
        /// The effect.
        effect: TriggerView,
    },
    /// R8.14.1.
    RevivalStarted {
        /// The Lich.
        seat: u8,
        /// How it would have been eliminated.
        cause: EliminationCause,
    },
    /// R8.14.1.
    Revived {
        /// The Lich.
        seat: u8,
        /// Ghost shares, as they now lie.
        shares: Vec<(u8, Vec<CardView>)>,
        /// (player, number of Candle cards given).
        thefts: Vec<(u8, usize)>,
        /// A3.3: ghosts that went to The Dark, in entry order (public).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        to_dark: Vec<CardView>,
    },
    /// The unredacted event, for a complete view (after the game, R10.8).
    Full {
        /// The event as stored (`type` and `payload`).
        event: Event,
    },
}

/// R10.8: `event` as `viewer` may see it, or `None` when the event is hidden from that viewer.
/// `before` is the state the event was folded into; `after` the state it produced.
///
/// A `Viewer::Seat` naming no seat of the table sees what a spectator sees.
pub fn redact(before: &State, event: &Event, after: &State, viewer: Viewer) -> Option<ViewEvent> {
    if viewer == Viewer::Everything || before.is_finished() {
        return Some(ViewEvent::Full { event: event.clone() });
    }
    let seats = before.players.len().max(after.players.len());
    let me = match viewer {
        Viewer::Seat { seat } if (seat as usize) < seats => Some(seat),
        _ => None,
    };
    // R10.8: the commentary view knows what any one player knows (never a Candle, The Dark's
    // order or the handle key).
    let commentary = viewer == Viewer::Commentary;
    let knows = |s: u8| commentary || me == Some(s);
    let pre = |c: &CardId| card_view(before, *c);
    let post = |c: &CardId| card_view(after, *c);
    let posts = |cs: &[CardId]| cs.iter().map(post).collect::<Vec<_>>();
    let shown_to = |cs: &[CardId], who: &[u8]| {
        if who.iter().any(|&w| knows(w)) { Cards::Shown(posts(cs)) } else { Cards::Hidden { count: cs.len() } }
    };
    // R10.8.2: cards taken from the top of The Dark: the former top is named.
    let dark_take = |cs: &[CardId]| DarkTake {
        top: cs.first().filter(|c| before.dark.last() == Some(c)).map(pre),
        count: cs.len(),
    };
    // Cards moved between two hands (Sight, Usurp, The Watcher): the taker sees them where they
    // now lie, their former owner as they lay (neutral order), others a count.
    let hand_move = |cs: &[CardId], taker: u8, from: u8| {
        if knows(taker) {
            Cards::Shown(posts(cs))
        } else if me == Some(from) {
            Cards::Shown(neutral_order(before, cs).iter().map(pre).collect())
        } else {
            Cards::Hidden { count: cs.len() }
        }
    };
    Some(match event {
        Event::GameCreated(g) => {
            let rules = crate::model::edition::Rules::of(&g.ruleset).unwrap_or_default();
            let size = crate::model::pool::pool_size_for(rules, g.candles.len());
            ViewEvent::GameCreated {
                ruleset: g.ruleset.clone(),
                settings: g.settings.clone(),
                decks: size.decks,
                jokers: size.jokers,
                candle_size: crate::model::pool::CANDLE_SIZE,
                dark: posts(&g.dark),
                set_aside: g.set_aside.len(),
                hand: me.map(|m| posts(&after.players[m as usize].hand)),
                hands: commentary.then(|| after.players.iter().map(|p| posts(&p.hand)).collect()),
                first_player: g.first_player,
                position: g.position.as_ref().map(|_| {
                    let v = match me {
                        Some(seat) => Viewer::Seat { seat },
                        None if commentary => Viewer::Commentary,
                        None => Viewer::Spectator,
                    };
                    crate::projection::position::position_for(after, v).to_string()
                }),
            }
        }
        Event::TurnOrderChosen { seat, choice } => ViewEvent::TurnOrderChosen { seat: *seat, choice: *choice },
        Event::TurnStarted { seat, round, guttering } => {
            ViewEvent::TurnStarted { seat: *seat, round: *round, guttering: posts(guttering) }
        }
        Event::Reprieved { seat, ace } => ViewEvent::Reprieved { seat: *seat, ace: post(ace) },
        Event::Endured { seat, burned } => ViewEvent::Endured { seat: *seat, burned: posts(burned) },
        Event::Panicked { seat, ghost, revealed, outcome, burned } => ViewEvent::Panicked {
            seat: *seat,
            ghost: pre(ghost),
            revealed: post(revealed),
            outcome: *outcome,
            burned: posts(burned),
        },
        Event::Drew { seat, card } => ViewEvent::Drew { seat: *seat, card: shown_to(&[*card], &[*seat]) },
        Event::ActionDeclared { actor, action } => {
            // R3.1: a Wall being built is face down; only its builder sees it.
            let hidden = matches!(action, Action::BuildWall { .. }) && !knows(*actor);
            ViewEvent::ActionDeclared { actor: *actor, action: action.map_cards(|c| (!hidden).then(|| post(c))) }
        }
        Event::SaltAnswered { seat, salt } => {
            if !knows(*seat) {
                return None;
            }
            ViewEvent::SaltAnswered { seat: *seat, salt: salt.as_ref().map(pre) }
        }
        Event::AnswerHeld { seat, answer } => {
            // R10.6.3, R10.6.5: a held answer is shown only to the player who gave it.
            if me != Some(*seat) {
                return None;
            }
            ViewEvent::AnswerHeld { seat: *seat, answer: answer.clone() }
        }
        Event::AnswersClosed => ViewEvent::AnswersClosed,
        Event::Passed { seat } => {
            // R10.6.3: Passes are never shown to others during the game.
            if !knows(*seat) {
                return None;
            }
            ViewEvent::Passed { seat: *seat }
        }
        Event::Salted { seat, card } => ViewEvent::Salted { seat: *seat, card: post(card) },
        Event::Yielded { seat } => ViewEvent::Yielded { seat: *seat },
        Event::WindowClosed => ViewEvent::WindowClosed,
        Event::ActionCancelled { actor, salter } => ViewEvent::ActionCancelled { actor: *actor, salter: *salter },
        Event::ActionResolved { actor, effect } => {
            let action_card = before.flow().and_then(|f| f.action.card().copied());
            let effect = match effect {
                Effect::Haunted { target } => {
                    EffectView::Haunted { target: *target, ghost: post(&action_card.expect("haunt card")) }
                }
                Effect::Banished { ghost, siphoned, spread, priest } => EffectView::Banished {
                    ghost: pre(ghost),
                    siphoned: *siphoned,
                    spread: *spread,
                    // A9 row 2: the classic Priest draws from its own Candle: only it sees the card.
                    priest: if before.rules().classic() {
                        priest.as_ref().filter(|_| knows(*actor)).map(post)
                    } else {
                        priest.as_ref().map(pre)
                    },
                },
                Effect::OmenRevealed { revealed } => EffectView::OmenRevealed { revealed: posts(revealed) },
                Effect::Drafted { target, burned } => EffectView::Drafted { target: *target, burned: posts(burned) },
                Effect::Greed { target, drawn } => {
                    EffectView::Greed { target: *target, drawn: shown_to(drawn, &[*target]) }
                }
                Effect::Scared { target, discarded } => {
                    EffectView::Scared { target: *target, discarded: posts(discarded) }
                }
                Effect::Drained { packets } => {
                    EffectView::Drained { packets: packets.iter().map(|p| (p.seat, p.cards.len())).collect() }
                }
                Effect::SightTaken { target, taken, burned } => EffectView::SightTaken {
                    burned: posts(burned),
                    target: *target,
                    taken: if knows(*actor) {
                        // The caster: the cards as they now lie in its hand.
                        Cards::Shown(posts(taken))
                    } else if me == Some(*target) {
                        // R10.3.2, R10.12: the target sees the cards as they lay in its own hand
                        // (old handles), in the neutral order, never as the caster now holds them.
                        Cards::Shown(neutral_order(before, taken).iter().map(pre).collect())
                    } else {
                        Cards::Hidden { count: taken.len() }
                    },
                },
                Effect::Cleansed { ghost, siphoned, spread, second } => EffectView::Cleansed {
                    ghost: pre(ghost),
                    siphoned: *siphoned,
                    spread: *spread,
                    second: second.as_ref().map(|r| (pre(&r.ghost), r.siphoned, r.spread)),
                },
                Effect::Recalled { owner, ghost } => EffectView::Recalled {
                    owner: *owner,
                    ghost: pre(ghost),
                    in_hand: knows(*actor).then(|| post(ghost)),
                },
                Effect::Possessed { ghost, destination, bonus } => EffectView::Possessed {
                    ghost: post(ghost),
                    destination: *destination,
                    bonus: (!bonus.is_empty()).then(|| dark_take(bonus)),
                },
                Effect::Rekindled { taken, candle } => {
                    EffectView::Rekindled { top: taken.first().map(pre), taken: taken.len(), candle_size: candle.len() }
                }
                Effect::Mirrored { target } => EffectView::Mirrored { target: *target },
                Effect::MediumSearched { taken } => EffectView::MediumSearched {
                    taken: taken.map(|c| {
                        if knows(*actor) {
                            Cards::Shown(vec![post(&c)])
                        } else if before.dark.last() == Some(&c) {
                            // R10.8.2: the top of The Dark was public where it lay.
                            Cards::Shown(vec![pre(&c)])
                        } else {
                            Cards::Hidden { count: 1 }
                        }
                    }),
                },
                Effect::MediumDepths { taken, candle } => {
                    EffectView::MediumDepths { taken: taken.len(), candle_size: candle.len() }
                }
                Effect::Purged { removed } => EffectView::Purged {
                    removed: removed.iter().map(|r| (pre(&r.ghost), r.siphoned)).collect(),
                    // R8.20.3: the ghosts that spread, in removal order, as they now lie.
                    spreads: removed.iter().filter_map(|r| Some((post(&r.ghost), r.spread?))).collect(),
                },
                Effect::WallBuilt => {
                    EffectView::WallBuilt { wall: action_card.filter(|_| knows(*actor)).map(|c| post(&c)) }
                }
                Effect::SuitAltered { owner, ghost, suit } => {
                    EffectView::SuitAltered { owner: *owner, ghost: post(ghost), suit: *suit }
                }
                Effect::Usurped { target, taken, drawn } => EffectView::Usurped {
                    target: *target,
                    taken: hand_move(taken, *actor, *target),
                    drawn: shown_to(&drawn.iter().copied().collect::<Vec<_>>(), &[*target]),
                },
                Effect::WatcherTaken { taken } => EffectView::WatcherTaken {
                    taken: taken.iter().map(|t| (t.seat, hand_move(&t.cards, *actor, t.seat))).collect(),
                },
                Effect::Boo { reveals } => EffectView::Boo {
                    reveals: reveals
                        .iter()
                        .map(|r| BooRevealView {
                            seat: r.seat,
                            to_dark: posts(&r.to_dark),
                            ghost: r.ghost.as_ref().map(post),
                        })
                        .collect(),
                },
            };
            ViewEvent::ActionResolved { actor: *actor, effect }
        }
        Event::RitualEnded { seat, abstained } => ViewEvent::RitualEnded { seat: *seat, abstained: *abstained },
        Event::BurdenDiscarded { seat, cards } => ViewEvent::BurdenDiscarded { seat: *seat, cards: posts(cards) },
        Event::ConcessionRequested { seat } => ViewEvent::ConcessionRequested { seat: *seat },
        Event::TimedOut { seats } => {
            // R10.7.1, R10.6.4: a time-out is timing information; only the timed-out player
            // sees its own mark during the game.
            if commentary {
                ViewEvent::TimedOut { seats: seats.clone() }
            } else {
                let m = me.filter(|m| seats.contains(m))?;
                ViewEvent::TimedOut { seats: vec![m] }
            }
        }
        Event::EliminationStarted { seat, cause, placing } => {
            ViewEvent::EliminationStarted { seat: *seat, cause: *cause, placing: *placing }
        }
        Event::OmenChosen { seat, play, rest } => ViewEvent::OmenChosen {
            seat: *seat,
            play: play.as_ref().map(|a| a.map_cards(post)),
            rest: rest.iter().map(pre).collect(),
        },
        Event::Eliminated { seat, shares, out_of_play, gravedigger, to_dark } => ViewEvent::Eliminated {
            seat: *seat,
            shares: shares.iter().map(|(s, g)| (*s, posts(g))).collect(),
            out_of_play: out_of_play.len(),
            to_dark: posts(to_dark),
            gravedigger: gravedigger.as_ref().map(|(g, c)| (*g, c.len())),
        },
        Event::ClassSelectionStarted { bans_ignored } => {
            ViewEvent::ClassSelectionStarted { bans_ignored: *bans_ignored }
        }
        Event::ClassOffered { seat, offer } => {
            ViewEvent::ClassOffered { seat: *seat, offer: knows(*seat).then(|| offer.clone()) }
        }
        Event::ClassChosen { seat, class } => ViewEvent::ClassChosen { seat: *seat, class: *class },
        Event::Reacted { seat, reaction } => ViewEvent::Reacted { seat: *seat, reaction: reaction.map_cards(post) },
        Event::Declined { seat } => {
            // Like a Pass (R10.6.3): shown only to the player who declined.
            if !knows(*seat) {
                return None;
            }
            ViewEvent::Declined { seat: *seat }
        }
        Event::AbilityUsed { seat, ability, effect } => {
            let page = matches!(ability, Ability::GrimoirePage { .. });
            let ability = match ability {
                Ability::Doomreader { card, ghost } => {
                    Ability::Doomreader { card: Some(post(card)), ghost: Some(pre(ghost)) }
                }
                a => a.map_cards(|c| if page && !knows(*seat) { None } else { Some(post(c)) }),
            };
            ViewEvent::AbilityUsed {
                seat: *seat,
                ability,
                effect: effect.as_ref().map(|e| ability_view(before, after, *seat, e, &knows)),
            }
        }
        Event::AbilityResolved { seat, effect } => {
            ViewEvent::AbilityResolved { seat: *seat, effect: ability_view(before, after, *seat, effect, &knows) }
        }
        Event::SpreadChosen { seat, ghost, to } => ViewEvent::SpreadChosen { seat: *seat, ghost: pre(ghost), to: *to },
        Event::Triggered { owner, effect } => ViewEvent::Triggered {
            owner: *owner,
            effect: match effect {
                TriggerEffect::Voodoo { burns } => {
                    TriggerView::Voodoo { burns: burns.iter().map(|(s, c)| (*s, posts(c))).collect() }
                }
                TriggerEffect::MartyrDraw { card } => TriggerView::MartyrDraw { card: shown_to(&[*card], &[*owner]) },
                TriggerEffect::Vulture { dead, taken, .. } => {
                    TriggerView::Vulture { dead: *dead, taken: dark_take(taken) }
                }
                TriggerEffect::FuneralBell { dead, burns } => {
                    TriggerView::FuneralBell { dead: *dead, burns: burns.iter().map(|(s, c)| (*s, posts(c))).collect() }
                }
            },
        },
        Event::RevivalStarted { seat, cause } => ViewEvent::RevivalStarted { seat: *seat, cause: *cause },
        Event::Revived { seat, shares, thefts, to_dark } => ViewEvent::Revived {
            seat: *seat,
            shares: shares.iter().map(|(s, g)| (*s, posts(g))).collect(),
            thefts: thefts.iter().map(|(s, c)| (*s, c.len())).collect(),
            to_dark: posts(to_dark),
        },
        Event::GameEnded { winner, reason, placings, last_lit } => ViewEvent::GameEnded {
            winner: *winner,
            reason: *reason,
            placings: placings.clone(),
            last_lit: last_lit.clone(),
        },
    })
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A free ability's effect as a viewer who `knows` what the given seats know may see it
/// (R10.8.2).
fn ability_view(
    before: &State,
    after: &State,
    seat: u8,
    e: &AbilityEffect,
    knows: &dyn Fn(u8) -> bool,
) -> AbilityEffectView {
    let pre = |c: &CardId| card_view(before, *c);
    let post = |c: &CardId| card_view(after, *c);
    match e {
        AbilityEffect::Doomread { ghost, spread } => AbilityEffectView::Doomread { ghost: pre(ghost), spread: *spread },
        AbilityEffect::PageAdded => AbilityEffectView::PageAdded,
        AbilityEffect::CandlesSwapped { target } => AbilityEffectView::CandlesSwapped { target: *target },
        AbilityEffect::Burned { target, burned } => {
            AbilityEffectView::Burned { target: *target, burned: burned.iter().map(post).collect() }
        }
        AbilityEffect::Peeked { target, card } => {
            AbilityEffectView::Peeked { target: *target, card: card.filter(|_| knows(seat)).map(|c| post(&c)) }
        }
        AbilityEffect::Traded { target, swap } => {
            let (given, taken) = match swap {
                Some((g, t)) if knows(seat) => (Some(pre(g)), Some(post(t))),
                Some((g, t)) if knows(*target) => (Some(post(g)), Some(pre(t))),
                _ => (None, None),
            };
            AbilityEffectView::Traded { target: *target, swapped: swap.is_some(), given, taken }
        }
    }
}
