//! Resolution of an action that stood (R5.1.5): computes the [`Effect`] event, drawing any random
//! outcome (Scare, shuffles) here, once, so that the event records it (R10.2.1).

use crate::model::action::{Action, MediumMode};
use crate::model::card::{CardId, Rank, Suit};
use crate::model::event::{BooReveal, Effect, Removed, SeatCards};
use crate::model::state::{Ghost, State};
use crate::rules::classes::{passives, triggers};
use crate::rules::hooks::{self, Removal};
use rand::Rng;
use rand::seq::SliceRandom;

/// R5.4.2: Spade-cursed when the printed or the effective suit is ♠.
pub(crate) fn spade_cursed(state: &State, g: &Ghost) -> bool {
    state.face(g.card).suit == Some(Suit::Spades) || g.suit == Some(Suit::Spades)
}

/// R5.4.3: whether removing ghost `g` with `card` by `removal` Siphons it.
pub(crate) fn siphons(state: &State, remover: u8, removal: Removal, card: CardId, g: &Ghost) -> bool {
    // A5.2, A10: classic has no Siphon and no Spade curse; A9 row 18: The Leech's Banished
    // ghosts go to the bottom of its Candle, Spades too.
    if !state.rules().siphon() {
        return removal == Removal::Banish && passives::leech(state, remover);
    }
    if spade_cursed(state, g) {
        return false;
    }
    if hooks::siphon_always(state, remover, removal) {
        return true;
    }
    let cf = state.face(card);
    let gf = state.face(g.card);
    match removal {
        // Same rank (A…K), or a face ghost and the card's suit equals the ghost's effective suit.
        Removal::Banish => {
            (cf.rank == gf.rank && gf.rank != Rank::Joker)
                || (gf.rank.is_face() && cf.suit.is_some() && cf.suit == g.suit)
        }
        // Rank 7 ghost, or the Cleanse card's suit equals the ghost's effective suit.
        Removal::Cleanse => gf.rank == Rank::Seven || (cf.suit.is_some() && cf.suit == g.suit),
        // The King's suit equals the ghost's effective suit.
        Removal::Purge => cf.suit.is_some() && cf.suit == g.suit,
    }
}

fn ghost(state: &State, owner: u8, c: CardId) -> Option<&Ghost> {
    state.players[owner as usize].shadow.iter().find(|g| g.card == c)
}

/// R5.6.2 Search: the non-Joker cards of The Dark, top first (A7, A12.6: classic takes any card,
/// Jokers included).
pub(crate) fn medium_choices(state: &State) -> Vec<CardId> {
    let jokers = state.rules().medium_classic();
    state.dark.iter().rev().copied().filter(|&c| jokers || state.face(c).rank != Rank::Joker).collect()
}

/// The top `n` cards of a Candle, top first (R0.9: as many as there are).
fn top(state: &State, seat: u8, n: usize) -> Vec<CardId> {
    state.players[seat as usize].candle.iter().take(n).copied().collect()
}

/// Shuffles `seat`'s Candle together with `extra` (R5.5.10, R5.6.2 Depths), top first.
fn shuffled_candle<R: Rng + ?Sized>(state: &State, seat: u8, extra: &[CardId], rng: &mut R) -> Vec<CardId> {
    let mut all: Vec<CardId> = state.players[seat as usize].candle.iter().copied().collect();
    all.extend_from_slice(extra);
    all.shuffle(rng);
    all
}

/// The ghosts an action removes from the actor's Shadow, in order, and whether each is
/// Siphoned (R5.3.4, R5.5.7, R8.4.1, R5.6.3).
pub(crate) fn removal_plan(state: &State, actor: u8, action: &Action<CardId>) -> Vec<(CardId, bool)> {
    let one = |card: CardId, g: CardId, kind: Removal| {
        ghost(state, actor, g).map(|gr| (g, siphons(state, actor, kind, card, gr)))
    };
    match action {
        Action::Banish { card, ghost } => one(*card, *ghost, Removal::Banish).into_iter().collect(),
        Action::Cleanse { card, ghost, second } => {
            let mut v: Vec<(CardId, bool)> = one(*card, *ghost, Removal::Cleanse).into_iter().collect();
            if let Some(s) = second {
                v.extend(one(*card, *s, Removal::Cleanse));
            }
            v
        }
        Action::Purge { card } => state.players[actor as usize]
            .shadow
            .iter()
            .map(|g| (g.card, siphons(state, actor, Removal::Purge, *card, g)))
            .collect(),
        _ => Vec::new(),
    }
}

/// R8.20.3: where a removed, un-Siphoned ghost spreads (`None`: The Dark).
fn spread(state: &State, actor: u8, g: CardId, siphoned: bool, chosen: &[(CardId, u8)]) -> Option<u8> {
    if siphoned {
        return None;
    }
    ghost(state, actor, g).and_then(|gr| triggers::spread_to(state, actor, gr, chosen))
}

/// Computes the effect of the action in flight. `pick` carries the resolution choice of
/// SightPick, WatcherPick or MediumPick when one was prompted; `protected` lists BOO!'s
/// protected players; `chosen` the PlagueSpread choices made (R8.20.3).
pub(crate) fn effect<R: Rng + ?Sized>(
    state: &State,
    actor: u8,
    action: &Action<CardId>,
    pick: Option<&[CardId]>,
    protected: &[u8],
    chosen: &[(CardId, u8)],
    rng: &mut R,
) -> Effect {
    match action {
        Action::Haunt { target, .. } => {
            // R6.7.4: a redirect that stood lands on The Mime's other neighbour.
            let t = state.flow().and_then(|f| f.haunt_target()).unwrap_or(*target);
            Effect::Haunted { target: t }
        }
        Action::Banish { card, ghost: g } => {
            let siphoned = ghost(state, actor, *g).is_some_and(|gr| siphons(state, actor, Removal::Banish, *card, gr));
            Effect::Banished {
                ghost: *g,
                siphoned,
                spread: spread(state, actor, *g, siphoned, chosen),
                priest: triggers::priest_takes(state, actor),
            }
        }
        // A6 Draft: a Burn takes the top of the Candle (fewer when it runs out; A12.2: no
        // Consumption before the draw).
        // A6 Omen: the top 3 of the Candle (fewer when it holds fewer), top first.
        Action::Omen { .. } => Effect::OmenRevealed { revealed: top(state, actor, 3) },
        // A9 row 1: The Skeptic Burns nothing (the A is spent).
        Action::Draft { target, .. } => Effect::Drafted {
            target: *target,
            burned: if passives::draft_immune(state, *target) { Vec::new() } else { top(state, *target, 2) },
        },
        Action::Greed { target, .. } => Effect::Greed { target: *target, drawn: top(state, *target, 2) },
        Action::Scare { target, .. } => {
            // R5.5.3: 2 cards of the hand chosen uniformly at random, in the order drawn
            // (R8.23.1 The Sadist: 3).
            let hand = &state.players[*target as usize].hand;
            let k = hand.len().min(passives::scare_count(state, actor));
            // A9 row 7: the classic Sadist's choice (its whole hand when 2 cards or fewer).
            if passives::sadist_chooses(state, actor) {
                let discarded = match pick {
                    Some(p) => p.to_vec(),
                    None => crate::rules::prompt::neutral_order(state, hand),
                };
                return Effect::Scared { target: *target, discarded };
            }
            let idx = rand::seq::index::sample(rng, hand.len(), k);
            Effect::Scared { target: *target, discarded: idx.iter().map(|i| hand[i]).collect() }
        }
        Action::Drain { .. } => {
            // R5.5.4: each distinct neighbour, clockwise starting with the left neighbour.
            // R8.28.1: The Skeptic is skipped.
            let packets = state
                .neighbours(actor)
                .into_iter()
                .filter(|&s| !passives::drain_immune(state, s))
                .map(|seat| SeatCards { seat, cards: top(state, seat, 2) })
                .collect();
            Effect::Drained { packets }
        }
        Action::Sight { target, .. } => {
            let taken = match pick {
                Some(p) => p.to_vec(),
                // R10.12: a small hand taken whole joins in the neutral order, never its owner's.
                None => crate::rules::prompt::neutral_order(state, &state.players[*target as usize].hand),
            };
            Effect::SightTaken { target: *target, taken, burned: triggers::judge_burns(state, actor, *target) }
        }
        Action::Cleanse { .. } => {
            let plan = removal_plan(state, actor, action);
            let mut it = plan.into_iter().map(|(g, siphoned)| Removed {
                ghost: g,
                siphoned,
                spread: spread(state, actor, g, siphoned, chosen),
            });
            let first = it.next().expect("a Cleansed ghost");
            Effect::Cleansed { ghost: first.ghost, siphoned: first.siphoned, spread: first.spread, second: it.next() }
        }
        Action::Recall { owner, ghost, .. } => Effect::Recalled { owner: *owner, ghost: *ghost },
        Action::Possess { ghost, destination, .. } => Effect::Possessed {
            ghost: *ghost,
            destination: *destination,
            bonus: triggers::occultist_bonus(state, actor, *destination),
        },
        Action::Rekindle { .. } => {
            let taken: Vec<CardId> = state.dark.iter().rev().take(3).copied().collect();
            let candle = if state.rules().rekindle_shuffles() {
                shuffled_candle(state, actor, &taken, rng)
            } else {
                // A6 row 10, R0.8: under the Candle one at a time, the top of The Dark first.
                state.players[actor as usize].candle.iter().chain(&taken).copied().collect()
            };
            Effect::Rekindled { taken, candle }
        }
        Action::Mirror { target, .. } => Effect::Mirrored { target: *target },
        Action::Medium { mode: MediumMode::Search, .. } => {
            let taken = match pick {
                Some(p) => p.first().copied(),
                None => medium_choices(state).first().copied(),
            };
            Effect::MediumSearched { taken }
        }
        Action::Medium { mode: MediumMode::Depths, .. } => {
            let taken: Vec<CardId> = state.dark.iter().take(2).copied().collect();
            let candle = shuffled_candle(state, actor, &taken, rng);
            Effect::MediumDepths { taken, candle }
        }
        Action::Purge { .. } => {
            let removed = removal_plan(state, actor, action)
                .into_iter()
                .map(|(ghost, siphoned)| Removed {
                    ghost,
                    siphoned,
                    spread: spread(state, actor, ghost, siphoned, chosen),
                })
                .collect();
            Effect::Purged { removed }
        }
        Action::BuildWall { .. } => Effect::WallBuilt,
        Action::AlterSuit { owner, ghost, suit, .. } => {
            Effect::SuitAltered { owner: *owner, ghost: *ghost, suit: *suit }
        }
        Action::Usurp { target } => {
            // R8.33.1: 2 random cards (fewer if fewer), then the neighbour draws 1.
            let hand = &state.players[*target as usize].hand;
            let idx = rand::seq::index::sample(rng, hand.len(), hand.len().min(2));
            let taken = idx.iter().map(|i| hand[i]).collect();
            Effect::Usurped { target: *target, taken, drawn: state.players[*target as usize].candle.front().copied() }
        }
        Action::WatcherSight { .. } => {
            let targets = crate::rules::classes::ritual::watcher_targets(state, actor);
            let taken = targets
                .into_iter()
                .map(|t| {
                    let hand = &state.players[t as usize].hand;
                    let cards =
                        pick.map(|p| p.iter().copied().filter(|c| hand.contains(c)).collect()).unwrap_or_default();
                    SeatCards { seat: t, cards }
                })
                .collect();
            Effect::WatcherTaken { taken }
        }
        Action::Boo { .. } => {
            // R5.6.4: each unprotected other Lit player, clockwise from the actor's left.
            let reveals = state
                .others_clockwise(actor)
                .into_iter()
                .filter(|s| !protected.contains(s))
                .map(|seat| {
                    let mut to_dark = Vec::new();
                    let mut ghost = None;
                    for &c in &state.players[seat as usize].candle {
                        if state.face(c).rank.is_number() {
                            ghost = Some(c);
                            break;
                        }
                        to_dark.push(c);
                    }
                    BooReveal { seat, to_dark, ghost }
                })
                .collect();
            Effect::Boo { reveals }
        }
    }
}
