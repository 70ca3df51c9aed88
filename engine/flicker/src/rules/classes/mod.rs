//! Classes (RULES.md section 8): the roster, the class pools by circle size (R2.8), the
//! selection ritual (R2.7) and the class rules, one module per family. Turn code never tests a
//! class itself: it calls [`crate::rules::hooks`] or the functions of these modules.
//!
//! | module | classes |
//! |---|---|
//! | [`selection`] | the selection ritual (R2.7, R2.9) |
//! | [`passives`] | Clown, Exorcist, Gatekeeper, Hoarder, Leech, Phantom, Sadist, Sealbinder, Silence, Skeptic, Sufferer, Survivor, Warlock, Witness |
//! | [`reactions`] | W1 Grimoire, W2 Hex, Mime, Unseen, Shadow, Cryptkeeper block (R6.3, R6.4, R6.7) |
//! | [`abilities`] | free abilities: Doomreader, Grimoire page, Mimic, Pyromaniac, Seer, Trader (R5.9) |
//! | [`ritual`] | class Ritual actions: Build a Wall, Alter a suit, Usurp; The Watcher's Sight (R5.7) |
//! | [`triggers`] | Priest, Judge, Occultist, Plague, Voodoo Doll, Martyr, Vulture, Gravedigger, Funeral Bell, Lich (R6.9) |

pub mod abilities;
pub mod passives;
pub mod reactions;
pub mod ritual;
pub mod selection;
pub mod triggers;

pub use crate::model::classes::ClassId;
use crate::model::state::State;

/// R2.8: the class pool of a circle of `players` (29 for 2, 35 for 3, all 38 for 4 or more),
/// in roster order.
pub fn pool_for(players: usize) -> Vec<ClassId> {
    ClassId::ALL.iter().copied().filter(|c| c.min_players() <= players).collect()
}

/// R2.8; A2.6: the class pool under `rules`: classic offers its whole roster (A9) at every size.
pub fn pool_for_rules(rules: crate::model::edition::Rules, players: usize) -> Vec<ClassId> {
    if rules.classic() { ClassId::CLASSIC.to_vec() } else { pool_for(players) }
}

/// The class of `seat`, if it has one (R2.7.6: fixed for the whole game).
pub fn class_of(state: &State, seat: u8) -> Option<ClassId> {
    state.players.get(seat as usize).and_then(|p| p.class)
}

/// True when `seat` holds `class` (whether Lit or not).
pub(crate) fn is(state: &State, seat: u8, class: ClassId) -> bool {
    class_of(state, seat) == Some(class)
}

/// R8.0.4: true when `seat` holds `class` and is Lit (its class effects are on).
pub(crate) fn live(state: &State, seat: u8, class: ClassId) -> bool {
    is(state, seat, class) && state.is_lit(seat)
}

/// R8.0.4: a "live X ghost": its tracked haunter holds `class` and is Lit.
pub(crate) fn live_ghost(state: &State, g: &crate::model::state::Ghost, class: ClassId) -> bool {
    g.haunter.is_some_and(|h| live(state, h, class))
}

/// R3.9: each seat's class (`None` before it is chosen, or at a class-free table). Public:
/// the server reads it for standings and for later gathering stages (R9.8.4).
pub fn seat_classes(state: &State) -> Vec<Option<ClassId>> {
    state.players.iter().map(|p| p.class).collect()
}

/// R6.9.3: `seats` sorted in trigger order: the active player first, then clockwise.
pub(crate) fn trigger_order(state: &State, mut seats: Vec<u8>) -> Vec<u8> {
    let n = state.n();
    let a = state.turn.active;
    seats.sort_by_key(|&s| (s + n - a) % n);
    seats
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R2.8, R8.0.1, B1: 29 classes for 2 players, 35 for 3, 38 for 4 or more.
    #[test]
    fn r2_8_pool_sizes() {
        assert_eq!(ClassId::ALL.len(), 38);
        assert_eq!(pool_for(2).len(), 29);
        assert_eq!(pool_for(3).len(), 35);
        assert_eq!(pool_for(4).len(), 38);
        assert_eq!(pool_for(9).len(), 38);
        for c in [ClassId::Mime, ClassId::Watcher, ClassId::Plague, ClassId::Vulture, ClassId::Lich] {
            assert!(!pool_for(2).contains(&c) && pool_for(3).contains(&c));
        }
        for c in [ClassId::Occultist, ClassId::Witness, ClassId::FuneralBell] {
            assert!(!pool_for(3).contains(&c) && pool_for(4).contains(&c));
        }
    }

    #[test]
    fn class_ids_serialise_in_snake_case() {
        assert_eq!(ClassId::GrimoireOfRejection.name(), "grimoire_of_rejection");
        assert_eq!(ClassId::VoodooDoll.name(), "voodoo_doll");
        assert_eq!(ClassId::FuneralBell.name(), "funeral_bell");
        assert_eq!(ClassId::ShadowClass.name(), "shadow");
        let back: ClassId = serde_json::from_str("\"clown\"").unwrap();
        assert_eq!(back, ClassId::Clown);
    }
}
