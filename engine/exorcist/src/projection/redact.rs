//! R10.8, X11.1, X11.5: one event as one viewer may see it. That a peek happened and at what is
//! public; what it showed goes to the peeker only. Shuffles, deals and tile exchanges show
//! sizes and who, never an order or a tile. Round ends turn every tile up (X7.4); after the
//! game every event is shown whole (X11.4).

use crate::model::card::{CardKind, Role, TieCard};
use crate::model::event::{Direction, EndReason, Event, Limit, PointChange};
use crate::model::settings::Settings;
use crate::model::state::{Sighting, State};
use crate::projection::shown::{CardSeen, CardShown, DealtShown, PickShown, RoleShown, TieShown};
use crate::projection::view::{eyes, sees_all};
use flicker_game::{Ruleset, Viewer};
use serde::Serialize;

/// A pass as shown: who passed to whom (public).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistPassView))]
pub struct PassView {
    /// The passer.
    pub from: u8,
    /// The receiver.
    pub to: u8,
}

/// An event as one viewer sees it: `{"type": "...", "payload": {...}}` like [`Event`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistViewEvent))]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum ViewEvent {
    /// R10.1.3, X3.4.
    GameCreated {
        /// The ruleset.
        ruleset: Ruleset,
        /// The settings.
        settings: Settings,
        /// The first Seeker.
        first_seeker: u8,
        /// Drawn at random.
        drawn: bool,
    },
    /// X3: a round begins; the viewer's own look at its tile (X3.3).
    RoundStarted {
        /// The round.
        round: u32,
        /// X3.6: Holy Artifacts in the deck.
        holy: u8,
        /// X3.6: Cursed Artifacts in the deck.
        cursed: u8,
        /// Deck size.
        deck_size: u8,
        /// X3.1.
        starting_point: bool,
        /// The first Seeker.
        first_seeker: u8,
        /// The looks the viewer saw (its own; every seat's for the commentary view).
        looks: Vec<RoleShown>,
        /// The deck (omniscient only).
        #[serde(skip_serializing_if = "Option::is_none")]
        deck: Option<Vec<CardKind>>,
    },
    /// X5: a deal; the viewer's dealt set (X5.2), never an order.
    DealStarted {
        /// The deal.
        deal: u8,
        /// Each row's size.
        sizes: Vec<u8>,
        /// The dealt sets the viewer saw.
        sets: Vec<DealtShown>,
        /// The rows in order (omniscient only).
        #[serde(skip_serializing_if = "Option::is_none")]
        order: Option<Vec<Vec<CardKind>>>,
    },
    /// X6.1: a card turned up (public).
    CardRevealed {
        /// The Seeker.
        seeker: u8,
        /// The Chosen.
        chosen: u8,
        /// Its position.
        position: u8,
        /// X6.6.
        own: bool,
        /// The card.
        card: CardShown,
    },
    /// X9.1, X9.2: who passed to whom; the viewer's own passed card.
    CardsPassed {
        /// The direction.
        direction: Direction,
        /// The passes.
        passes: Vec<PassView>,
        /// The cards the viewer peeked at while passing.
        seen: Vec<CardSeen>,
    },
    /// Points change (public).
    PointsChanged {
        /// The cause.
        cause: CardKind,
        /// The changes.
        changes: Vec<PointChange>,
    },
    /// X11.5: a Role peek: who at whose tile (public); the Role to the peeker.
    RolePeeked {
        /// Who looked.
        peeker: u8,
        /// Whose tile.
        target: u8,
        /// The card.
        cause: CardKind,
        /// What it showed (the peeker only).
        #[serde(skip_serializing_if = "Option::is_none")]
        seen: Option<RoleShown>,
    },
    /// X11.5: an optional peek declined.
    PeekDeclined {
        /// Who.
        seat: u8,
        /// The card.
        cause: CardKind,
    },
    /// X9.4: the Chosen looked at its row; the cards to it only.
    RowPeeked {
        /// Who.
        peeker: u8,
        /// The row's size.
        size: u8,
        /// What it showed (the peeker only).
        seen: Vec<CardSeen>,
    },
    /// X9.14: a card peek: who at which card (public); the card to the peeker.
    CardPeeked {
        /// Who.
        peeker: u8,
        /// The row's owner.
        owner: u8,
        /// The position.
        position: u8,
        /// What it showed (the peeker only).
        #[serde(skip_serializing_if = "Option::is_none")]
        seen: Option<CardSeen>,
    },
    /// X9.11.
    SeekerNamed {
        /// The Chosen.
        by: u8,
        /// The next Seeker.
        seeker: u8,
    },
    /// X9.12: the Hijinx went back into the Chosen's row, shuffled.
    HijinxReturned {
        /// The Chosen.
        chosen: u8,
        /// The row's new size.
        size: u8,
        /// The new order (omniscient only).
        #[serde(skip_serializing_if = "Option::is_none")]
        order: Option<Vec<CardKind>>,
    },
    /// X9.13, X9.14.
    LimitSet {
        /// Which.
        limit: Limit,
        /// On whose cards.
        seat: u8,
    },
    /// X9.15: rows exchanged and shuffled.
    RowsExchanged {
        /// The Seeker.
        seeker: u8,
        /// The Chosen.
        chosen: u8,
        /// The new orders, Seeker's then Chosen's (omniscient only).
        #[serde(skip_serializing_if = "Option::is_none")]
        order: Option<Vec<Vec<CardKind>>>,
    },
    /// X9.16: tiles shuffled unseen.
    TilesShuffled {
        /// The Seeker.
        seeker: u8,
        /// The Chosen.
        chosen: u8,
        /// The Roles now, Seeker's then Chosen's (omniscient only).
        #[serde(skip_serializing_if = "Option::is_none")]
        roles_now: Option<Vec<Role>>,
    },
    /// X6.4.
    TurnEnded {
        /// The next Seeker.
        next_seeker: u8,
    },
    /// X7.4: every tile turned up.
    RoundEnded {
        /// The round.
        round: u32,
        /// The team that won.
        winning_team: Role,
        /// Every tile.
        roles: Vec<RoleShown>,
        /// Who gained 2 points.
        scorers: Vec<u8>,
    },
    /// X8.2: a mini-game row laid.
    TieRowLaid {
        /// The players.
        players: Vec<u8>,
        /// The row's number.
        layout: u32,
        /// Where the Blessing lies (omniscient only).
        #[serde(skip_serializing_if = "Option::is_none")]
        blessing: Option<u8>,
    },
    /// X8.3: a pick (the picker only until the reveal).
    TiePicked {
        /// The pick.
        pick: PickShown,
    },
    /// X8.4: the picks and the cards they show.
    TieRevealed {
        /// The picks.
        picks: Vec<PickShown>,
        /// The cards revealed.
        cards: Vec<TieShown>,
    },
    /// X8.6.
    TieDrawn {
        /// The winner.
        winner: u8,
    },
    /// X7.6.
    GameEnded {
        /// The winner.
        winner: Option<u8>,
        /// Why.
        reason: EndReason,
    },
    /// R10.7.1: a time-out (shown to the timed-out seat only, X11.5).
    TimedOut {
        /// The seats.
        seats: Vec<u8>,
    },
    /// R10.10.
    Conceded {
        /// The seat.
        seat: u8,
    },
}

fn seen(s: Sighting) -> CardSeen {
    CardSeen::from(&s)
}

/// R10.8: `event`, folded from `before` to `after`, as `viewer` sees it (`None`: hidden).
pub fn redact(before: &State, event: &Event, after: &State, viewer: Viewer) -> Option<ViewEvent> {
    let all = viewer == Viewer::Everything || sees_all(before, viewer);
    let eyes = if all { (0..after.players()).collect() } else { eyes(after, viewer) };
    let sees = |seat: u8| eyes.contains(&seat);
    let at = before.version;
    let round = after.round.as_ref().or(before.round.as_ref());
    Some(match event {
        Event::GameCreated { ruleset, settings, first_seeker, drawn } => ViewEvent::GameCreated {
            ruleset: ruleset.clone(),
            settings: settings.clone(),
            first_seeker: *first_seeker,
            drawn: *drawn,
        },
        Event::RoundStarted { round, deck, tiles, starting_point, first_seeker } => {
            let r = after.round.as_ref().expect("a round");
            ViewEvent::RoundStarted {
                round: *round,
                holy: r.holy,
                cursed: r.cursed,
                deck_size: deck.len() as u8,
                starting_point: *starting_point,
                first_seeker: *first_seeker,
                looks: tiles
                    .iter()
                    .enumerate()
                    .filter(|(s, _)| sees(*s as u8))
                    .map(|(s, t)| RoleShown { round: *round, seat: s as u8, role: t.role(), at: Some(at), since: None })
                    .collect(),
                deck: all.then(|| deck.iter().map(|c| c.kind()).collect()),
            }
        }
        Event::DealStarted { deal, rows } => {
            let number = round.expect("a round").number;
            ViewEvent::DealStarted {
                deal: *deal,
                sizes: rows.iter().map(|r| r.len() as u8).collect(),
                sets: rows
                    .iter()
                    .enumerate()
                    .filter(|(s, _)| sees(*s as u8))
                    .map(|(s, row)| {
                        let mut dealt: Vec<CardKind> = row.iter().map(|c| c.kind()).collect();
                        dealt.sort();
                        DealtShown { seat: s as u8, dealt, at, round: number, deal: *deal }
                    })
                    .collect(),
                order: all.then(|| rows.iter().map(|r| r.iter().map(|c| c.kind()).collect()).collect()),
            }
        }
        Event::CardRevealed { seeker, chosen, position, card, own } => {
            let r = after.round.as_ref().expect("a round");
            let t = r.turn.expect("a turn");
            ViewEvent::CardRevealed {
                seeker: *seeker,
                chosen: *chosen,
                position: *position,
                own: *own,
                card: CardShown {
                    card: card.kind(),
                    round: r.number,
                    reveal: t.reveal,
                    deal: r.deal,
                    seeker: *seeker,
                    chosen: *chosen,
                },
            }
        }
        Event::CardsPassed { direction, passes } => {
            let r = before.round.as_ref().expect("a round");
            ViewEvent::CardsPassed {
                direction: *direction,
                passes: passes.iter().map(|p| PassView { from: p.from, to: p.to }).collect(),
                seen: passes
                    .iter()
                    .filter(|p| sees(p.from))
                    .map(|p| {
                        let position = match direction {
                            Direction::Right => r.rows[p.from as usize].len() as u8,
                            Direction::Left => 1,
                        };
                        seen(Sighting { at, owner: p.from, position, card: p.card })
                    })
                    .collect(),
            }
        }
        Event::PointsChanged { cause, changes } => ViewEvent::PointsChanged { cause: *cause, changes: changes.clone() },
        Event::RolePeeked { peeker, target, cause, tile } => ViewEvent::RolePeeked {
            peeker: *peeker,
            target: *target,
            cause: *cause,
            seen: sees(*peeker).then(|| RoleShown {
                round: round.expect("a round").number,
                seat: *target,
                role: tile.role(),
                at: Some(at),
                since: None,
            }),
        },
        Event::PeekDeclined { seat, cause } => ViewEvent::PeekDeclined { seat: *seat, cause: *cause },
        Event::RowPeeked { peeker, cards } => ViewEvent::RowPeeked {
            peeker: *peeker,
            size: cards.len() as u8,
            seen: if sees(*peeker) {
                cards
                    .iter()
                    .enumerate()
                    .map(|(i, c)| seen(Sighting { at, owner: *peeker, position: i as u8 + 1, card: *c }))
                    .collect()
            } else {
                vec![]
            },
        },
        Event::CardPeeked { peeker, owner, position, card } => ViewEvent::CardPeeked {
            peeker: *peeker,
            owner: *owner,
            position: *position,
            seen: sees(*peeker).then(|| seen(Sighting { at, owner: *owner, position: *position, card: *card })),
        },
        Event::SeekerNamed { by, seeker } => ViewEvent::SeekerNamed { by: *by, seeker: *seeker },
        Event::HijinxReturned { chosen, row } => ViewEvent::HijinxReturned {
            chosen: *chosen,
            size: row.len() as u8,
            order: all.then(|| row.iter().map(|c| c.kind()).collect()),
        },
        Event::LimitSet { limit, seat } => ViewEvent::LimitSet { limit: *limit, seat: *seat },
        Event::RowsExchanged { seeker, chosen, seeker_row, chosen_row } => ViewEvent::RowsExchanged {
            seeker: *seeker,
            chosen: *chosen,
            order: all.then(|| {
                vec![seeker_row.iter().map(|c| c.kind()).collect(), chosen_row.iter().map(|c| c.kind()).collect()]
            }),
        },
        Event::TilesShuffled { seeker, chosen, seeker_tile, chosen_tile } => ViewEvent::TilesShuffled {
            seeker: *seeker,
            chosen: *chosen,
            roles_now: all.then(|| vec![seeker_tile.role(), chosen_tile.role()]),
        },
        Event::TurnEnded { next_seeker } => ViewEvent::TurnEnded { next_seeker: *next_seeker },
        Event::RoundEnded { round, winner, scorers } => {
            let h = after.history.last().expect("the round's summary");
            ViewEvent::RoundEnded {
                round: *round,
                winning_team: *winner,
                roles: h
                    .roles
                    .iter()
                    .enumerate()
                    .map(|(s, &role)| RoleShown { round: *round, seat: s as u8, role, at: None, since: None })
                    .collect(),
                scorers: scorers.clone(),
            }
        }
        Event::TieRowLaid { players, blessing } => ViewEvent::TieRowLaid {
            players: players.clone(),
            layout: after.tie.as_ref().expect("a mini-game").layout,
            blessing: all.then_some(*blessing),
        },
        Event::TiePicked { seat, position } => {
            if !sees(*seat) {
                return None;
            }
            ViewEvent::TiePicked { pick: PickShown { seat: *seat, pick: *position } }
        }
        Event::TieRevealed => {
            let t = before.tie.as_ref().expect("a mini-game");
            let mut cards: Vec<TieShown> = Vec::new();
            for &(_, p) in &t.picks {
                if !cards.iter().any(|c| c.position == p) {
                    let tie_card = if p == t.blessing { TieCard::Blessing } else { TieCard::Mischief };
                    cards.push(TieShown { tie_card, layout: t.layout, position: p });
                }
            }
            ViewEvent::TieRevealed {
                picks: t.picks.iter().map(|&(seat, pick)| PickShown { seat, pick }).collect(),
                cards,
            }
        }
        Event::TieDrawn { winner } => ViewEvent::TieDrawn { winner: *winner },
        Event::GameEnded { winner, reason } => ViewEvent::GameEnded { winner: *winner, reason: *reason },
        Event::TimedOut { seats } => {
            if all || viewer == Viewer::Commentary {
                ViewEvent::TimedOut { seats: seats.clone() }
            } else {
                let me = viewer.seat().filter(|m| seats.contains(m))?;
                ViewEvent::TimedOut { seats: vec![me] }
            }
        }
        Event::Conceded { seat } => ViewEvent::Conceded { seat: *seat },
    })
}
