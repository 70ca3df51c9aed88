//! R10.1.3, A1: the rules a game decides and folds under (data: the rule code asks it), from the ruleset id and version its
//! creation event recorded. Every rule that differs between rulesets, or between versions of one
//! ruleset, asks [`Rules`]; nothing else reads the ruleset. A rule change adds a version here and
//! keeps the old answer for the old version, so a stored game folds the same forever.
//!
//! | question | `current` | `classic-1.0` |
//! |---|---|---|
//! | [`Rules::decks`] | ceil(n/2) (R1.6) | 2 for 2-4 players, then ceil(n/2) (A2.2, A12.1) |
//! | [`Rules::starting_hand`] | 3 (R2.5) | 5 (A2.4) |
//! | [`Rules::hand_limit`] | 5, The Hoarder 8 (R4.5.1) | 7, The Hoarder 10 (A4.4) |
//! | [`Rules::power`] | R5.5, R5.6 | A6, A7 |
//! | [`Rules::salt_rank`] | 5 (R6.5) | 4 (A5.3, A8) |
//! | [`Rules::haunting_choice`] | Reprieve, Endure or Panic (R4.2) | mandatory Burns (A4.1) |

use crate::model::card::Rank;
use crate::model::settings::{CLASSIC_RULESET, CURRENT_RULESET, DarkMode, RulesetId, Settings};

/// The two editions of The Final Flicker the engine plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Edition {
    /// `current` (RULES.md sections 0-11).
    #[default]
    Current,
    /// `classic-1.0` (RULES.md appendix A).
    Classic,
}

/// What a card does when played for its own effect (R5.5 Cast and R5.6 Summon; A6 Invoke and
/// A7 Summon), named by the [`crate::model::action::Action`] that plays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Power {
    /// A6: a chosen neighbour Burns 2 (classic A).
    Draft,
    /// A6, A12.3: reveal the top 3 of one's Candle and play one of them at once (classic 3).
    Omen,
    /// R5.5.2 (current 2) / A6 (classic 5, the actor only).
    Greed,
    /// R5.5.3 (current 3) / A6 (classic 2).
    Scare,
    /// R5.5.4 (current 4; none in classic).
    Drain,
    /// R5.5.6 (current 6, take 2) / A6 (classic 7, take 1).
    Sight,
    /// R5.5.7 (current 7) / A6 (classic 6, no Siphon).
    Cleanse,
    /// R5.5.8 Recall (current 8) / A6 Vanish (classic 8).
    Recall,
    /// R5.5.9 / A6 (9 in both).
    Possess,
    /// R5.5.10 (shuffled in) / A6 (under the Candle, no shuffle).
    Rekindle,
    /// R5.6.1 / A7 (J).
    Mirror,
    /// R5.6.2 / A7 (Q: Search only, Jokers allowed).
    Medium,
    /// R5.6.3 / A7 (K, no Siphon).
    Purge,
    /// R5.6.4 BOO! / A7 The Haunted (Joker).
    Boo,
}

/// The rules of one game: its ruleset's edition and the version of the engine's implementation
/// it was created under (R10.1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The edition.
    pub edition: Edition,
    /// The version of that edition's implementation (1-based).
    pub version: u32,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::CURRENT
    }
}

/// The test-only version 2 of `current`: the same rules with a hand limit of 6, to show that a
/// changed rule leaves games of version 1 folding as before (issue 20's check).
#[cfg(test)]
pub(crate) const TEST_CHANGED_VERSION: u32 = 2;

impl Rules {
    /// `current`, version 1.
    pub const CURRENT: Rules = Rules { edition: Edition::Current, version: 1 };
    /// `classic-1.0`, version 1.
    pub const CLASSIC: Rules = Rules { edition: Edition::Classic, version: 1 };

    /// The rules of a recorded ruleset, or `None` when the engine does not play that id or
    /// version (a game written by a newer engine).
    pub fn of(id: &RulesetId) -> Option<Rules> {
        let edition = match id.id.as_str() {
            CURRENT_RULESET => Edition::Current,
            CLASSIC_RULESET => Edition::Classic,
            _ => return None,
        };
        let latest = match edition {
            Edition::Current => crate::model::settings::CURRENT_RULESET_VERSION,
            Edition::Classic => crate::model::settings::CLASSIC_RULESET_VERSION,
        };
        #[cfg(test)]
        let latest = if edition == Edition::Current { TEST_CHANGED_VERSION } else { latest };
        (1..=latest).contains(&id.version).then_some(Rules { edition, version: id.version })
    }

    /// The rules a new table with `settings` is created under: the latest version of its ruleset.
    pub fn for_settings(settings: &Settings) -> Rules {
        Rules::of(&settings.ruleset.latest()).expect("the latest version of a served ruleset is played")
    }

    /// True under `classic-1.0`.
    pub fn classic(self) -> bool {
        self.edition == Edition::Classic
    }

    /// R1.6, A2.2, A12.1: standard 54-card decks (52 cards and 2 Jokers) for `n` players.
    pub fn decks(self, n: usize) -> usize {
        match self.edition {
            Edition::Current => n.div_ceil(2),
            Edition::Classic => n.div_ceil(2).max(2),
        }
    }

    /// R2.5 (3), A2.4 (5): cards drawn into the starting hand.
    pub fn starting_hand(self) -> usize {
        match self.edition {
            Edition::Current => 3,
            Edition::Classic => 5,
        }
    }

    /// R4.5.1 (5; R8.11 The Hoarder 8), A4.4 (7; A9 row 14 The Hoarder 10): the hand limit.
    pub fn hand_limit(self, hoarder: bool) -> usize {
        let base = match self.edition {
            Edition::Current => 5,
            Edition::Classic => 7,
        };
        #[cfg(test)]
        let base = if self.edition == Edition::Current && self.version >= TEST_CHANGED_VERSION { 6 } else { base };
        if hoarder { base + 3 } else { base }
    }

    /// R6.5 (5), A5.3/A8 (4): the rank that is Salt.
    pub fn salt_rank(self) -> Rank {
        match self.edition {
            Edition::Current => Rank::Five,
            Edition::Classic => Rank::Four,
        }
    }

    /// R5.5, R5.6, A6, A7: what `rank` does when played for its own effect (`None`: nothing,
    /// such as the Ace and Salt in `current`, and Salt in classic).
    pub fn power(self, rank: Rank) -> Option<Power> {
        use Power::*;
        match (self.edition, rank) {
            (Edition::Current, Rank::Two) | (Edition::Classic, Rank::Five) => Some(Greed),
            (Edition::Current, Rank::Three) | (Edition::Classic, Rank::Two) => Some(Scare),
            (Edition::Current, Rank::Four) => Some(Drain),
            (Edition::Current, Rank::Six) | (Edition::Classic, Rank::Seven) => Some(Sight),
            (Edition::Current, Rank::Seven) | (Edition::Classic, Rank::Six) => Some(Cleanse),
            (Edition::Classic, Rank::Ace) => Some(Draft),
            (Edition::Classic, Rank::Three) => Some(Omen),
            (_, Rank::Eight) => Some(Recall),
            (_, Rank::Nine) => Some(Possess),
            (_, Rank::Ten) => Some(Rekindle),
            (_, Rank::Jack) => Some(Mirror),
            (_, Rank::Queen) => Some(Medium),
            (_, Rank::King) => Some(Purge),
            (_, Rank::Joker) => Some(Boo),
            _ => None,
        }
    }

    /// The rank whose power is `power` under these rules, if any.
    pub fn rank_of(self, power: Power) -> Option<Rank> {
        Rank::SUITED.into_iter().chain([Rank::Joker]).find(|&r| self.power(r) == Some(power))
    }

    /// R4.2 (a choice of Reprieve, Endure or Panic) or A4.1 (the Burns are mandatory: no prompt).
    pub fn haunting_choice(self) -> bool {
        self.edition == Edition::Current
    }

    /// R4.4.4: the first action of a turn being Greed grants another action (none in classic, A4.3).
    pub fn greed_extra_action(self) -> bool {
        self.edition == Edition::Current
    }

    /// R4.6.1: an empty Candle at the end of the turn Consumes (classic: only at the draw, A4.5,
    /// A12.2).
    pub fn candle_check_at_end(self) -> bool {
        self.edition == Edition::Current
    }

    /// R5.4: removals may Siphon (classic has no Siphon and no Spade curse, A5.2, A10).
    pub fn siphon(self) -> bool {
        self.edition == Edition::Current
    }

    /// R5.3.1: face cards Banish (classic: only number cards, A5.2).
    pub fn face_cards_banish(self) -> bool {
        self.edition == Edition::Current
    }

    /// R5.5.6 (2), A6 row 7 (1): cards a Sight takes.
    pub fn sight_takes(self) -> usize {
        match self.edition {
            Edition::Current => 2,
            Edition::Classic => 1,
        }
    }

    /// R5.5.2 (any Lit player draws) or A6 row 5 (the actor draws).
    pub fn greed_any_player(self) -> bool {
        self.edition == Edition::Current
    }

    /// R5.5.10 (shuffled into the Candle) or A6 row 10 (under the Candle, one at a time).
    pub fn rekindle_shuffles(self) -> bool {
        self.edition == Edition::Current
    }

    /// R5.6.2 (Search without Jokers, or Depths) or A7, A12.6 (Search only, Jokers allowed).
    pub fn medium_classic(self) -> bool {
        self.edition == Edition::Classic
    }

    /// R6.5.2 as a setting, or always on in classic (A8.1).
    pub fn salt_targeted_only(self, settings: &Settings) -> bool {
        self.classic() || settings.salt_targeted_only
    }

    /// R7.5 (the ghosts are split between the neighbours) or A3.3 (standard: to The Dark in
    /// entry order; `dark_mode = dark`: split as R7.5).
    pub fn death_ghosts_to_dark(self, settings: &Settings) -> bool {
        self.classic() && settings.dark_mode == DarkMode::Standard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A6, A7: the classic meaning of every rank; A5.3: 4 is Salt only.
    #[test]
    fn a6_a7_classic_ranks() {
        let r = Rules::CLASSIC;
        let table = [
            (Rank::Ace, Some(Power::Draft)),
            (Rank::Two, Some(Power::Scare)),
            (Rank::Three, Some(Power::Omen)),
            (Rank::Four, None),
            (Rank::Five, Some(Power::Greed)),
            (Rank::Six, Some(Power::Cleanse)),
            (Rank::Seven, Some(Power::Sight)),
            (Rank::Eight, Some(Power::Recall)),
            (Rank::Nine, Some(Power::Possess)),
            (Rank::Ten, Some(Power::Rekindle)),
            (Rank::Jack, Some(Power::Mirror)),
            (Rank::Queen, Some(Power::Medium)),
            (Rank::King, Some(Power::Purge)),
            (Rank::Joker, Some(Power::Boo)),
        ];
        for (rank, power) in table {
            assert_eq!(r.power(rank), power, "{rank:?}");
        }
        assert_eq!(r.salt_rank(), Rank::Four);
        assert_eq!(r.rank_of(Power::Drain), None);
        assert_eq!(Rules::CURRENT.rank_of(Power::Draft), None);
        assert_eq!(Rules::CURRENT.salt_rank(), Rank::Five);
    }

    /// A2.2, A12.1: 2 decks for 2-4 players, 3 for 5-6, 4 for 7-8, ceil(n/2) from 9.
    #[test]
    fn a2_2_a12_1_classic_deck_count() {
        for (n, d) in [(2, 2), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (8, 4), (9, 5), (20, 10)] {
            assert_eq!(Rules::CLASSIC.decks(n), d, "n = {n}");
        }
        assert_eq!(Rules::CURRENT.decks(2), 1);
    }

    /// A1, R10.1.3: only known ids and versions are played.
    #[test]
    fn a1_known_rulesets_only() {
        let id = |id: &str, version| RulesetId { id: id.into(), version };
        assert_eq!(Rules::of(&id("classic-1.0", 1)), Some(Rules::CLASSIC));
        assert_eq!(Rules::of(&id("current", 1)), Some(Rules::CURRENT));
        assert_eq!(Rules::of(&id("classic-1.0", 2)), None);
        assert_eq!(Rules::of(&id("classic-1.0", 0)), None);
        assert_eq!(Rules::of(&id("classic", 1)), None);
    }
}
