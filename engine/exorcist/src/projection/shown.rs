//! The shapes in which hidden information may appear in a view or a redacted event (R10.8,
//! X11.1). Every Role, every card identity and every mini-game card a projection shows is one
//! of these objects, so that the leak checker ([`crate::projection::leaks`]) can judge each:
//!
//! | shape | JSON | meaning |
//! |---|---|---|
//! | [`RoleShown`] | `{"round","seat","role"}` + `"at"` or `"since"` | a Role tile: public after the round (no stamp), seen by a peek or the look at stream index `at` (X11.3 log), or known now since `since` |
//! | [`CardShown`] | `{"card","round","reveal","deal","seeker","chosen"}` | a revealed card (public, X6.3) |
//! | [`CardSeen`] | `{"card","at","owner","position"}` | a card seen by a peek at `at`, where it lay then (X11.3 log) |
//! | [`CardKnown`] | `{"card","since","owner","position"}` | a card whose current place the viewer knows from its own peek |
//! | [`DealtShown`] | `{"seat","dealt","at","round","deal"}` | a seat's dealt cards as a set (X5.2) |
//! | [`TieShown`] | `{"tie_card","layout","position"}` | a revealed mini-game card (X8.4) |
//! | [`PickShown`] | `{"seat","pick"}` | a mini-game pick not yet revealed (the picker only, X11.1) |

use crate::model::card::{CardKind, Role, TieCard};
use crate::model::state::{Revealed, Sighting};
use serde::Serialize;

/// A Role tile as shown (X11.1, X11.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistRoleShown))]
pub struct RoleShown {
    /// The round.
    pub round: u32,
    /// Whose tile.
    pub seat: u8,
    /// The Role.
    pub role: Role,
    /// The stream index of the look or peek that showed it (a log entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    /// Known now: seen at this stream index and not shuffled since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
}

/// A revealed card (X6.3, X7.2): public.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistCardShown))]
pub struct CardShown {
    /// The kind.
    pub card: CardKind,
    /// The round.
    pub round: u32,
    /// Its index among the round's reveals.
    pub reveal: u32,
    /// The deal.
    pub deal: u8,
    /// Who turned it up.
    pub seeker: u8,
    /// Whose it was.
    pub chosen: u8,
}

impl From<&Revealed> for CardShown {
    fn from(r: &Revealed) -> Self {
        CardShown {
            card: r.card.kind(),
            round: r.round,
            reveal: r.reveal,
            deal: r.deal,
            seeker: r.seeker,
            chosen: r.chosen,
        }
    }
}

/// A card seen by a peek (X0.4), where it lay then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistCardSeen))]
pub struct CardSeen {
    /// The kind.
    pub card: CardKind,
    /// The stream index of the peek.
    pub at: u64,
    /// The row's owner then.
    pub owner: u8,
    /// The position then.
    pub position: u8,
}

impl From<&Sighting> for CardSeen {
    fn from(s: &Sighting) -> Self {
        CardSeen { card: s.card.kind(), at: s.at, owner: s.owner, position: s.position }
    }
}

/// A card whose current place the viewer knows from its own peek (not shuffled since).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistCardKnown))]
pub struct CardKnown {
    /// The kind.
    pub card: CardKind,
    /// The stream index of the peek.
    pub since: u64,
    /// The row's owner now.
    pub owner: u8,
    /// The position now.
    pub position: u8,
}

/// X5.2: a seat's dealt cards, as a set (sorted by kind).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistDealtShown))]
pub struct DealtShown {
    /// The seat.
    pub seat: u8,
    /// The kinds.
    pub dealt: Vec<CardKind>,
    /// The stream index of the deal.
    pub at: u64,
    /// The round.
    pub round: u32,
    /// The deal.
    pub deal: u8,
}

/// X8.4: a revealed mini-game card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistTieShown))]
pub struct TieShown {
    /// The card.
    pub tie_card: TieCard,
    /// The row it lies in (from 1).
    pub layout: u32,
    /// Its position.
    pub position: u8,
}

/// X8.3: a pick not yet revealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistPickShown))]
pub struct PickShown {
    /// The picker.
    pub seat: u8,
    /// The position picked.
    pub pick: u8,
}
