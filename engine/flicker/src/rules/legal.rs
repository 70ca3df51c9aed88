//! Legality of Ritual actions (R5.1.2 Requires clauses) and the per-card options listed in the
//! Ritual prompt. One place decides both, so a listed option is always accepted.

use crate::model::action::{Action, MediumMode};
use crate::model::card::{CardId, Face, Rank, Suit};
use crate::model::edition::Power;
use crate::model::error::RuleError;
use crate::model::state::{Ghost, State};
use crate::rules::classes::{ClassId, is, passives, ritual};

/// R5.3.2: `card` beats the ghost when its value is higher, or equal with a tier at least as high.
pub fn beats(card: Face, ghost_face: Face, ghost_suit_tier: u8) -> bool {
    card.value() > ghost_face.value() || (card.value() == ghost_face.value() && card.tier() >= ghost_suit_tier)
}

fn ghost_tier(g: &Ghost) -> u8 {
    g.suit.map_or(0, |s| s.tier())
}

fn find_ghost(state: &State, owner: u8, c: CardId) -> Option<&Ghost> {
    state.players[owner as usize].shadow.iter().find(|g| g.card == c)
}

/// Ghosts of `actor`'s Shadow that `card` may Banish (R5.3.1-R5.3.2; R8.1.1 not a live Clown
/// ghost with a number card).
pub(crate) fn banishable(state: &State, actor: u8, card: Face) -> Vec<CardId> {
    if card.rank == Rank::Joker {
        return Vec::new();
    }
    // A5.2: classic Banishes with number cards only, but for face cards against live Clown
    // ghosts (A12.4).
    let face_barred = card.rank.is_face() && !state.rules().face_cards_banish();
    state.players[actor as usize]
        .shadow
        .iter()
        .filter(|g| beats(card, state.face(g.card), ghost_tier(g)) && !passives::clown_bars(state, g, card.rank))
        .filter(|g| !face_barred || passives::clown_face_banish(state, g))
        .map(|g| g.card)
        .collect()
}

/// Ghosts `actor` may Recall (R5.5.8): any ghost of any Lit player's Shadow that is not a live
/// Sealbinder ghost (R8.24.1), as (owner, ghost).
pub(crate) fn recallable(state: &State, actor: u8) -> Vec<(u8, CardId)> {
    let mut v = Vec::new();
    let mut seats = vec![actor];
    seats.extend(state.others_clockwise(actor));
    for s in seats {
        for g in &state.players[s as usize].shadow {
            if !passives::sealed(state, g) {
                v.push((s, g.card));
            }
        }
    }
    v
}

/// R5.2, R8.19.1: the players `actor` may Haunt: neighbours, not The Phantom with an empty hand.
pub(crate) fn haunt_targets(state: &State, actor: u8) -> Vec<u8> {
    state.neighbours(actor).into_iter().filter(|&t| !passives::phantom_untouchable(state, t)).collect()
}

/// R5.5.9, R8.18.1, R8.7.1: Possess destinations: neighbours (The Occultist: any other Lit
/// player), never another player's Gatekeeper.
pub(crate) fn possess_destinations(state: &State, actor: u8) -> Vec<u8> {
    let base =
        if is(state, actor, ClassId::Occultist) { state.others_clockwise(actor) } else { state.neighbours(actor) };
    base.into_iter().filter(|&d| !passives::gatekeeper_shut(state, actor, d)).collect()
}

/// R5.5.9, R8.24.1: ghosts of `actor`'s Shadow that a Possess may move (no live Sealbinder ghost).
pub(crate) fn possessable(state: &State, actor: u8) -> Vec<CardId> {
    state.players[actor as usize].shadow.iter().filter(|g| !passives::sealed(state, g)).map(|g| g.card).collect()
}

/// R5.6.1, R8.7.2, R8.24.1: Mirror partners: neighbours that are not another player's
/// Gatekeeper, and none while either Shadow holds a live Sealbinder ghost.
pub(crate) fn mirror_targets(state: &State, actor: u8) -> Vec<u8> {
    if passives::shadow_sealed(state, actor) {
        return Vec::new();
    }
    state
        .neighbours(actor)
        .into_iter()
        .filter(|&t| !passives::gatekeeper_shut(state, actor, t) && !passives::shadow_sealed(state, t))
        .collect()
}

/// The Lit players a Greed may name (R5.5.2): the actor first, then clockwise (A6: classic names
/// the actor only).
pub(crate) fn greed_targets(state: &State, actor: u8) -> Vec<u8> {
    let mut v = vec![actor];
    if !state.rules().greed_any_player() {
        return v;
    }
    v.extend(state.others_clockwise(actor));
    v
}

/// R5.1.2: checks the Requires clause of a declaration whose card is in `actor`'s hand.
pub(crate) fn check_action(state: &State, actor: u8, a: &Action<CardId>) -> Result<(), RuleError> {
    if let Some(r) = ritual::check(state, actor, a) {
        return r;
    }
    let face = state.face(*a.card().expect("a card action"));
    let rules = state.rules();
    // R5.5, R5.6; A6, A7: the card's rank must have this power under the game's ruleset.
    let need = |power: Power, rule: &'static str, what: &str| {
        let (rule, rank) = match (rules.classic(), rules.rank_of(power)) {
            (false, rank) => (rule, rank),
            (true, Some(rank)) if !rank.is_number() => ("A7", Some(rank)),
            (true, rank) => ("A6", rank),
        };
        match rank {
            Some(rank) if face.rank == rank => Ok(()),
            Some(rank) => Err(RuleError::illegal(rule, format!("{what} needs a {}, not {face}", rank.label()))),
            None => Err(RuleError::illegal(rule, format!("{what} is not an action of this ruleset"))),
        }
    };
    let neighbour = |t: u8, rule: &'static str| {
        if state.is_neighbour(actor, t) {
            Ok(())
        } else {
            Err(RuleError::illegal(rule, format!("seat {t} is not your neighbour")))
        }
    };
    let own_ghost = |g: CardId, rule: &'static str| {
        find_ghost(state, actor, g)
            .map(|_| ())
            .ok_or_else(|| RuleError::illegal(rule, "that card is not a ghost in your Shadow"))
    };
    match a {
        Action::Haunt { target, .. } => {
            // R8.36.1: The Warlock may Haunt with any card.
            if !face.rank.is_number() && !passives::warlock(state, actor) {
                return Err(RuleError::illegal("R5.2", format!("only number cards (A-10) Haunt, not {face}")));
            }
            neighbour(*target, "R5.2")?;
            if passives::phantom_untouchable(state, *target) {
                return Err(RuleError::illegal("R8.19.1", "no Haunt may target The Phantom while its hand is empty"));
            }
            Ok(())
        }
        Action::Banish { ghost, .. } => {
            if face.rank == Rank::Joker {
                return Err(RuleError::illegal("R5.3.1", "a Joker can never be used to Banish"));
            }
            let g = find_ghost(state, actor, *ghost)
                .ok_or_else(|| RuleError::illegal("R5.3.1", "that card is not a ghost in your Shadow"))?;
            // A5.2, A12.4: classic face cards Banish live Clown ghosts only.
            if face.rank.is_face() && !rules.face_cards_banish() && !passives::clown_face_banish(state, g) {
                return Err(RuleError::illegal("A5.2", format!("face cards cannot Banish in classic-1.0, not {face}")));
            }
            let gf = state.face(g.card);
            if !beats(face, gf, ghost_tier(g)) {
                return Err(RuleError::illegal("R5.3.2", format!("{face} does not beat the ghost {gf}")));
            }
            if passives::clown_bars(state, g, face.rank) {
                return Err(RuleError::illegal("R8.1.1", "a live Clown ghost cannot be Banished with a number card"));
            }
            Ok(())
        }
        Action::Omen { .. } => need(Power::Omen, "A6", "Omen"),
        Action::Draft { target, .. } => {
            need(Power::Draft, "A6", "Draft")?;
            neighbour(*target, "A6")
        }
        Action::Greed { target, .. } => {
            need(Power::Greed, "R5.5.2", "Greed")?;
            if !rules.greed_any_player() && *target != actor {
                return Err(RuleError::illegal("A6", "a classic Greed draws for the actor only"));
            }
            if state.is_lit(*target) {
                Ok(())
            } else {
                Err(RuleError::illegal("R5.5.2", format!("seat {target} is not Lit")))
            }
        }
        Action::Scare { target, .. } => {
            need(Power::Scare, "R5.5.3", "Scare")?;
            neighbour(*target, "R5.5.3")
        }
        Action::Drain { .. } => need(Power::Drain, "R5.5.4", "Drain"),
        Action::Sight { target, .. } => {
            need(Power::Sight, "R5.5.6", "Sight")?;
            if is(state, actor, ClassId::Watcher) {
                return Err(RuleError::illegal("R8.37.1", "The Watcher's Sight declares no neighbour (watcher_sight)"));
            }
            neighbour(*target, "R5.5.6")
        }
        Action::Cleanse { ghost, second, .. } => {
            need(Power::Cleanse, "R5.5.7", "Cleanse")?;
            own_ghost(*ghost, "R5.5.7")?;
            let ghosts = state.players[actor as usize].shadow.len();
            match (passives::exorcist(state, actor), second) {
                (false, Some(_)) => Err(RuleError::illegal("R5.5.7", "Cleanse declares one ghost")),
                (true, None) if ghosts >= 2 => {
                    Err(RuleError::illegal("R8.4.1", "The Exorcist's Cleanse declares two different ghosts"))
                }
                (true, Some(s)) if s == ghost => {
                    Err(RuleError::illegal("R8.4.1", "The Exorcist's Cleanse declares two different ghosts"))
                }
                (true, Some(s)) => own_ghost(*s, "R8.4.1"),
                _ => Ok(()),
            }
        }
        Action::Recall { owner, ghost, .. } => {
            need(Power::Recall, "R5.5.8", "Recall")?;
            if !state.is_lit(*owner) {
                return Err(RuleError::illegal("R5.5.8", format!("seat {owner} is not Lit")));
            }
            let g = find_ghost(state, *owner, *ghost)
                .ok_or_else(|| RuleError::illegal("R5.5.8", "that card is not a ghost in that Shadow"))?;
            if passives::sealed(state, g) {
                return Err(RuleError::illegal("R8.24.1", "a live Sealbinder ghost cannot be Recalled"));
            }
            Ok(())
        }
        Action::Possess { ghost, destination, .. } => {
            need(Power::Possess, "R5.5.9", "Possess")?;
            own_ghost(*ghost, "R5.5.9")?;
            if find_ghost(state, actor, *ghost).is_some_and(|g| passives::sealed(state, g)) {
                return Err(RuleError::illegal("R8.24.1", "a live Sealbinder ghost cannot be Possessed"));
            }
            if is(state, actor, ClassId::Occultist) {
                // R8.18.1: any other Lit player.
                if *destination == actor || !state.is_lit(*destination) {
                    return Err(RuleError::illegal("R8.18.1", format!("seat {destination} is not another Lit player")));
                }
            } else {
                neighbour(*destination, "R5.5.9")?;
            }
            if passives::gatekeeper_shut(state, actor, *destination) {
                return Err(RuleError::illegal("R8.7.1", "another player's Possess cannot choose The Gatekeeper"));
            }
            Ok(())
        }
        Action::Rekindle { .. } => need(Power::Rekindle, "R5.5.10", "Rekindle"),
        Action::Mirror { target, .. } => {
            need(Power::Mirror, "R5.6.1", "Mirror")?;
            neighbour(*target, "R5.6.1")?;
            if passives::gatekeeper_shut(state, actor, *target) {
                return Err(RuleError::illegal("R8.7.2", "another player's Mirror cannot choose The Gatekeeper"));
            }
            if passives::shadow_sealed(state, actor) || passives::shadow_sealed(state, *target) {
                return Err(RuleError::illegal(
                    "R8.24.1",
                    "no Mirror while either Shadow holds a live Sealbinder ghost",
                ));
            }
            Ok(())
        }
        Action::Medium { mode, .. } => {
            need(Power::Medium, "R5.6.2", "Medium")?;
            if rules.medium_classic() && *mode == MediumMode::Depths {
                return Err(RuleError::illegal("A7", "the classic Medium has no Depths mode: declare search"));
            }
            Ok(())
        }
        Action::Purge { .. } => need(Power::Purge, "R5.6.3", "Purge"),
        Action::Boo { .. } => need(Power::Boo, "R5.6.4", "BOO!"),
        Action::BuildWall { .. } | Action::AlterSuit { .. } | Action::Usurp { .. } | Action::WatcherSight { .. } => {
            unreachable!("class actions are checked by classes::ritual")
        }
    }
}

/// One way a hand card may be played as an action, with its choices as constraints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Use {
    Haunt(Vec<u8>),
    Draft(Vec<u8>),
    Omen,
    Banish(Vec<CardId>),
    Greed(Vec<u8>),
    Scare(Vec<u8>),
    Drain,
    Sight(Vec<u8>),
    /// The ghosts, and whether two must be declared (The Exorcist, R8.4.1).
    Cleanse(Vec<CardId>, bool),
    Recall(Vec<(u8, CardId)>),
    Possess(Vec<CardId>, Vec<u8>),
    Rekindle,
    Mirror(Vec<u8>),
    Medium(Vec<MediumMode>),
    Purge,
    Boo,
    BuildWall,
    AlterSuit(Vec<(u8, CardId, Vec<Suit>)>),
    WatcherSight,
}

/// R4.4.2, R5: every legal use of the hand card `c` by `actor`.
pub(crate) fn uses(state: &State, actor: u8, c: CardId) -> Vec<Use> {
    let face = state.face(c);
    let mut v = Vec::with_capacity(2);
    let nbrs = || state.neighbours(actor);
    let own: Vec<CardId> = state.players[actor as usize].shadow.iter().map(|g| g.card).collect();
    let haunt = haunt_targets(state, actor);
    if (face.rank.is_number() || passives::warlock(state, actor)) && !haunt.is_empty() {
        v.push(Use::Haunt(haunt));
    }
    let b = banishable(state, actor, face);
    if !b.is_empty() {
        v.push(Use::Banish(b));
    }
    let rules = state.rules();
    match rules.power(face.rank) {
        Some(Power::Draft) => {
            let t = nbrs();
            if !t.is_empty() {
                v.push(Use::Draft(t));
            }
        }
        Some(Power::Omen) => v.push(Use::Omen),
        Some(Power::Greed) => v.push(Use::Greed(greed_targets(state, actor))),
        Some(Power::Scare) => v.push(Use::Scare(nbrs())),
        Some(Power::Drain) => v.push(Use::Drain),
        Some(Power::Sight) if is(state, actor, ClassId::Watcher) => v.push(Use::WatcherSight),
        Some(Power::Sight) => v.push(Use::Sight(nbrs())),
        Some(Power::Cleanse) if !own.is_empty() => {
            let two = passives::exorcist(state, actor) && own.len() >= 2;
            v.push(Use::Cleanse(own, two))
        }
        Some(Power::Recall) => {
            let r = recallable(state, actor);
            if !r.is_empty() {
                v.push(Use::Recall(r));
            }
        }
        Some(Power::Possess) => {
            let (g, d) = (possessable(state, actor), possess_destinations(state, actor));
            if !g.is_empty() && !d.is_empty() {
                v.push(Use::Possess(g, d));
            }
        }
        Some(Power::Rekindle) => v.push(Use::Rekindle),
        Some(Power::Mirror) => {
            let t = mirror_targets(state, actor);
            if !t.is_empty() {
                v.push(Use::Mirror(t));
            }
        }
        Some(Power::Medium) if rules.medium_classic() => v.push(Use::Medium(vec![MediumMode::Search])),
        Some(Power::Medium) => v.push(Use::Medium(vec![MediumMode::Search, MediumMode::Depths])),
        Some(Power::Purge) => v.push(Use::Purge),
        Some(Power::Boo) => v.push(Use::Boo),
        _ => {}
    }
    // R8.2.1 The Cryptkeeper: any card may become a Wall.
    if passives::builds_walls(state, actor) && state.players[actor as usize].walls.len() < ritual::WALL_CAP {
        v.push(Use::BuildWall);
    }
    // R8.5.1 The Fatalist: any card may pay for Alter a suit.
    if is(state, actor, ClassId::Fatalist) {
        let a = ritual::alterable(state, actor);
        if !a.is_empty() {
            v.push(Use::AlterSuit(a));
        }
    }
    v
}

/// A6 Omen, A12.3: every legal play of each revealed card, as if from the hand and never as
/// another Omen; cards with no legal play are left out (an empty list: none can be played).
pub(crate) fn omen_plays(state: &State, actor: u8, revealed: &[CardId]) -> Vec<(CardId, Vec<Use>)> {
    revealed
        .iter()
        .map(|&c| (c, uses(state, actor, c).into_iter().filter(|u| !matches!(u, Use::Omen)).collect::<Vec<_>>()))
        .filter(|(_, u)| !u.is_empty())
        .collect()
}

/// A12.3, R10.5: the default play of an Omen: the first listed use of the first playable card,
/// with its first listed target, ghost or mode (all public: the revealed cards are face up).
pub(crate) fn first_play(card: CardId, u: &Use) -> Action<CardId> {
    match u {
        Use::Haunt(t) => Action::Haunt { card, target: t[0] },
        Use::Banish(g) => Action::Banish { card, ghost: g[0] },
        Use::Draft(t) => Action::Draft { card, target: t[0] },
        Use::Omen => Action::Omen { card },
        Use::Greed(t) => Action::Greed { card, target: t[0] },
        Use::Scare(t) => Action::Scare { card, target: t[0] },
        Use::Drain => Action::Drain { card },
        Use::Sight(t) => Action::Sight { card, target: t[0] },
        Use::Cleanse(g, two) => {
            Action::Cleanse { card, ghost: g[0], second: if *two { g.get(1).copied() } else { None } }
        }
        Use::Recall(g) => Action::Recall { card, owner: g[0].0, ghost: g[0].1 },
        Use::Possess(g, d) => Action::Possess { card, ghost: g[0], destination: d[0] },
        Use::Rekindle => Action::Rekindle { card },
        Use::Mirror(t) => Action::Mirror { card, target: t[0] },
        Use::Medium(m) => Action::Medium { card, mode: m[0] },
        Use::Purge => Action::Purge { card },
        Use::Boo => Action::Boo { card },
        Use::BuildWall => Action::BuildWall { card },
        Use::AlterSuit(a) => Action::AlterSuit { card, owner: a[0].0, ghost: a[0].1, suit: a[0].2[0] },
        Use::WatcherSight => Action::WatcherSight { card },
    }
}
