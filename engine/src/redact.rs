//! Per-viewer projections of events (R10.6.3, R10.8, R10.8.2). A hidden card is shown only as a
//! count; a hidden event (a Pass, a private simultaneous answer) is not shown at all.
//!
//! Cards are named with the handle they have where the viewer can see them: a card leaving a
//! public zone keeps its old handle in the event (so a client knows which ghost left), a card
//! entering a zone the viewer sees gets its new handle (R10.3.2). A card leaving a zone the
//! viewer sees for one it does not (the cards Sight takes, as their former owner sees them) is
//! named only as it was, never with the handle it has where the viewer cannot follow it.

use crate::action::Action;
use crate::card::CardId;
use crate::event::{Effect, EliminationCause, EndReason, Event, PanicOutcome, TurnOrder};
use crate::handle::{CardView, card_view};
use crate::pool::pool_size;
use crate::prompt::neutral_order;
use crate::settings::{RulesetId, Settings};
use crate::state::State;
use crate::view::Viewer;
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
    },
    /// R5.5.7.
    Cleansed {
        /// The ghost (as it was in the Shadow).
        ghost: CardView,
        /// Siphoned.
        siphoned: bool,
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
    },
    /// R5.6.4.
    Boo {
        /// One entry per affected player.
        reveals: Vec<BooRevealView>,
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
        /// R2.6: the first player, if already known.
        first_player: Option<u8>,
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
        /// The declaration.
        action: Action<CardView>,
    },
    /// R10.6.6: the viewer's own private answer.
    SaltAnswered {
        /// The viewer's seat.
        seat: u8,
        /// The chosen 5, if Salting.
        salt: Option<CardView>,
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
    /// R7.4-R7.5.
    Eliminated {
        /// Who.
        seat: u8,
        /// Ghost shares, as they now lie in each recipient's Shadow.
        shares: Vec<(u8, Vec<CardView>)>,
        /// Cards put out of play (count).
        out_of_play: usize,
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
    let pre = |c: &CardId| card_view(before, *c);
    let post = |c: &CardId| card_view(after, *c);
    let posts = |cs: &[CardId]| cs.iter().map(post).collect::<Vec<_>>();
    let shown_to = |cs: &[CardId], who: &[u8]| {
        if me.is_some_and(|m| who.contains(&m)) { Cards::Shown(posts(cs)) } else { Cards::Hidden { count: cs.len() } }
    };
    Some(match event {
        Event::GameCreated(g) => {
            let size = pool_size(g.candles.len());
            ViewEvent::GameCreated {
                ruleset: g.ruleset.clone(),
                settings: g.settings.clone(),
                decks: size.decks,
                jokers: size.jokers,
                candle_size: crate::pool::CANDLE_SIZE,
                dark: posts(&g.dark),
                set_aside: g.set_aside.len(),
                hand: me.map(|m| posts(&after.players[m as usize].hand)),
                first_player: g.first_player,
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
            ViewEvent::ActionDeclared { actor: *actor, action: action.map_cards(|c| post(c)) }
        }
        Event::SaltAnswered { seat, salt } => {
            if me != Some(*seat) {
                return None;
            }
            ViewEvent::SaltAnswered { seat: *seat, salt: salt.as_ref().map(pre) }
        }
        Event::AnswersClosed => ViewEvent::AnswersClosed,
        Event::Passed { seat } => {
            // R10.6.3: Passes are never shown to others during the game.
            if me != Some(*seat) {
                return None;
            }
            ViewEvent::Passed { seat: *seat }
        }
        Event::Salted { seat, card } => ViewEvent::Salted { seat: *seat, card: post(card) },
        Event::Yielded { seat } => ViewEvent::Yielded { seat: *seat },
        Event::WindowClosed => ViewEvent::WindowClosed,
        Event::ActionCancelled { actor, salter } => ViewEvent::ActionCancelled { actor: *actor, salter: *salter },
        Event::ActionResolved { actor, effect } => {
            let action_card = before.flow().map(|f| *f.action.card());
            let effect = match effect {
                Effect::Haunted { target } => {
                    EffectView::Haunted { target: *target, ghost: post(&action_card.expect("haunt card")) }
                }
                Effect::Banished { ghost, siphoned } => EffectView::Banished { ghost: pre(ghost), siphoned: *siphoned },
                Effect::Greed { target, drawn } => {
                    EffectView::Greed { target: *target, drawn: shown_to(drawn, &[*target]) }
                }
                Effect::Scared { target, discarded } => {
                    EffectView::Scared { target: *target, discarded: posts(discarded) }
                }
                Effect::Drained { packets } => {
                    EffectView::Drained { packets: packets.iter().map(|(s, p)| (*s, p.len())).collect() }
                }
                Effect::SightTaken { target, taken } => EffectView::SightTaken {
                    target: *target,
                    taken: if me == Some(*actor) {
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
                Effect::Cleansed { ghost, siphoned } => EffectView::Cleansed { ghost: pre(ghost), siphoned: *siphoned },
                Effect::Recalled { owner, ghost } => EffectView::Recalled {
                    owner: *owner,
                    ghost: pre(ghost),
                    in_hand: (me == Some(*actor)).then(|| post(ghost)),
                },
                Effect::Possessed { ghost, destination } => {
                    EffectView::Possessed { ghost: post(ghost), destination: *destination }
                }
                Effect::Rekindled { taken, candle } => {
                    EffectView::Rekindled { top: taken.first().map(pre), taken: taken.len(), candle_size: candle.len() }
                }
                Effect::Mirrored { target } => EffectView::Mirrored { target: *target },
                Effect::MediumSearched { taken } => EffectView::MediumSearched {
                    taken: taken.map(|c| {
                        if me == Some(*actor) {
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
                Effect::Purged { removed } => {
                    EffectView::Purged { removed: removed.iter().map(|(g, s)| (pre(g), *s)).collect() }
                }
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
            let m = me.filter(|m| seats.contains(m))?;
            ViewEvent::TimedOut { seats: vec![m] }
        }
        Event::EliminationStarted { seat, cause, placing } => {
            ViewEvent::EliminationStarted { seat: *seat, cause: *cause, placing: *placing }
        }
        Event::Eliminated { seat, shares, out_of_play } => ViewEvent::Eliminated {
            seat: *seat,
            shares: shares.iter().map(|(s, g)| (*s, posts(g))).collect(),
            out_of_play: out_of_play.len(),
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
