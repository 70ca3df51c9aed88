//! Classes (RULES.md section 8): the roster, the class pools by circle size (R2.8), the
//! selection ritual (R2.7) and the class rules, one module per family. Turn code never tests a
//! class itself: it calls [`crate::hooks`] or the functions of these modules.
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

use crate::state::State;
use serde::{Deserialize, Serialize};

/// R8.0.1: the 38 classes of the current roster, in the order of the roster table (R8.0.2).
/// Serialised in snake_case (`clown`, `grimoire_of_rejection`, `voodoo_doll`, …). The Shadow
/// class is `ShadowClass` here (serialised `shadow`) to keep it apart from the zone (R8.26).
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassId {
    /// R8.1.
    Clown,
    /// R8.2.
    Cryptkeeper,
    /// R8.3.
    Doomreader,
    /// R8.4.
    Exorcist,
    /// R8.5.
    Fatalist,
    /// R8.6.
    FuneralBell,
    /// R8.7.
    Gatekeeper,
    /// R8.8.
    Gravedigger,
    /// R8.9.
    GrimoireOfRejection,
    /// R8.10.
    Hex,
    /// R8.11.
    Hoarder,
    /// R8.12.
    Judge,
    /// R8.13.
    Leech,
    /// R8.14.
    Lich,
    /// R8.15.
    Martyr,
    /// R8.16.
    Mime,
    /// R8.17.
    Mimic,
    /// R8.18.
    Occultist,
    /// R8.19.
    Phantom,
    /// R8.20.
    Plague,
    /// R8.21.
    Priest,
    /// R8.22.
    Pyromaniac,
    /// R8.23.
    Sadist,
    /// R8.24.
    Sealbinder,
    /// R8.25.
    Seer,
    /// R8.26 (the class, not the zone).
    #[serde(rename = "shadow")]
    ShadowClass,
    /// R8.27.
    Silence,
    /// R8.28.
    Skeptic,
    /// R8.29.
    Sufferer,
    /// R8.30.
    Survivor,
    /// R8.31.
    Trader,
    /// R8.32.
    Unseen,
    /// R8.33.
    Usurer,
    /// R8.34.
    VoodooDoll,
    /// R8.35.
    Vulture,
    /// R8.36.
    Warlock,
    /// R8.37.
    Watcher,
    /// R8.38.
    Witness,
}

impl ClassId {
    /// R8.0.1: the whole roster, in roster-table order.
    pub const ALL: [ClassId; 38] = [
        ClassId::Clown,
        ClassId::Cryptkeeper,
        ClassId::Doomreader,
        ClassId::Exorcist,
        ClassId::Fatalist,
        ClassId::FuneralBell,
        ClassId::Gatekeeper,
        ClassId::Gravedigger,
        ClassId::GrimoireOfRejection,
        ClassId::Hex,
        ClassId::Hoarder,
        ClassId::Judge,
        ClassId::Leech,
        ClassId::Lich,
        ClassId::Martyr,
        ClassId::Mime,
        ClassId::Mimic,
        ClassId::Occultist,
        ClassId::Phantom,
        ClassId::Plague,
        ClassId::Priest,
        ClassId::Pyromaniac,
        ClassId::Sadist,
        ClassId::Sealbinder,
        ClassId::Seer,
        ClassId::ShadowClass,
        ClassId::Silence,
        ClassId::Skeptic,
        ClassId::Sufferer,
        ClassId::Survivor,
        ClassId::Trader,
        ClassId::Unseen,
        ClassId::Usurer,
        ClassId::VoodooDoll,
        ClassId::Vulture,
        ClassId::Warlock,
        ClassId::Watcher,
        ClassId::Witness,
    ];

    /// R2.8: the smallest circle whose pool holds this class (2, 3 or 4).
    pub fn min_players(self) -> usize {
        match self {
            ClassId::Occultist | ClassId::Witness | ClassId::FuneralBell => 4,
            ClassId::Mime
            | ClassId::Watcher
            | ClassId::Plague
            | ClassId::Vulture
            | ClassId::Lich
            | ClassId::Gravedigger => 3,
            _ => 2,
        }
    }

    /// The snake_case name used in JSON (`voodoo_doll`).
    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }
}

/// R2.8: the class pool of a circle of `players` (29 for 2, 35 for 3, all 38 for 4 or more),
/// in roster order.
pub fn pool_for(players: usize) -> Vec<ClassId> {
    ClassId::ALL.iter().copied().filter(|c| c.min_players() <= players).collect()
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
pub(crate) fn live_ghost(state: &State, g: &crate::state::Ghost, class: ClassId) -> bool {
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
