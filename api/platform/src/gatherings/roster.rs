//! Bulk registration (an organiser's roster): many existing accounts registered in one
//! command, all or nothing. The server resolves each row's account (I/O); [`register_roster`]
//! decides, as a pure function of the folded gathering, which rows are refused and why, or
//! gives the registrations to append in one event batch.

use super::{Gathering, GatheringEvent, Registrant, Status};
use crate::accounts::Role;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use utoipa::ToSchema;

/// The most rows a roster takes (a whole gathering, [`super::MAX_PLAYERS`]).
pub const MAX_ROWS: usize = super::MAX_PLAYERS;

/// One row of a roster as the server resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterRow {
    /// Where the row came from: the 1-based index in the JSON list, or the CSV line number.
    pub row: usize,
    /// The name as given (white space trimmed).
    pub name: String,
    /// The account's stored (lower-case) name and role; `None` when no account has the name.
    pub account: Option<(String, Role)>,
}

/// Why a row is refused (stable, kebab-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RowReason {
    /// Not an account name (3-32 characters of letters, digits, `_` or `-`).
    InvalidName,
    /// No account has this name.
    UnknownAccount,
    /// The account is an organiser or spectator: only player and bot accounts play.
    NotAPlayer,
    /// The account is registered in the gathering already.
    AlreadyRegistered,
    /// The account is named on an earlier row of the same roster.
    Duplicate,
}

/// A refused row of a roster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RefusedRow {
    /// The 1-based index in the JSON list, or the CSV line number.
    pub row: usize,
    /// The name as given.
    pub name: String,
    /// Why.
    pub reason: RowReason,
}

/// Why a roster is refused as a whole (nothing is registered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RosterRefusal {
    /// The gathering has started.
    Started,
    /// The roster names nobody.
    Empty,
    /// More rows than [`MAX_ROWS`].
    TooLong(usize),
    /// Some rows are refused: every one of them, in row order.
    Rows(Vec<RefusedRow>),
    /// Every row is fine but the gathering cannot hold them all.
    Full {
        /// The gathering's capacity.
        capacity: usize,
        /// Registered now.
        registered: usize,
        /// Rows in the roster.
        adding: usize,
    },
}

/// Registers every row of `rows` in `g`, all or nothing: the `PlayerRegistered` events (in row
/// order) or why not. A bot account registers as a program (`program: true`), like a bot
/// registering itself.
pub fn register_roster(g: &Gathering, rows: &[RosterRow]) -> Result<Vec<GatheringEvent>, RosterRefusal> {
    if g.status != Status::Registering {
        return Err(RosterRefusal::Started);
    }
    if rows.is_empty() {
        return Err(RosterRefusal::Empty);
    }
    if rows.len() > MAX_ROWS {
        return Err(RosterRefusal::TooLong(rows.len()));
    }
    let mut seen = HashSet::with_capacity(rows.len());
    let mut refused = Vec::new();
    let mut events = Vec::with_capacity(rows.len());
    for r in rows {
        let refuse = |reason| RefusedRow { row: r.row, name: r.name.clone(), reason };
        let reason = match &r.account {
            _ if !crate::accounts::valid_name(&r.name) => Some(RowReason::InvalidName),
            None => Some(RowReason::UnknownAccount),
            Some((_, role)) if !matches!(role, Role::Player | Role::Bot) => Some(RowReason::NotAPlayer),
            Some((name, _)) if g.registrant(name).is_some() => Some(RowReason::AlreadyRegistered),
            Some((name, _)) if !seen.insert(name.clone()) => Some(RowReason::Duplicate),
            Some(_) => None,
        };
        match (reason, &r.account) {
            (Some(reason), _) => refused.push(refuse(reason)),
            (None, Some((name, role))) => events.push(GatheringEvent::PlayerRegistered(Registrant {
                name: name.clone(),
                bot: None,
                program: *role == Role::Bot,
            })),
            (None, None) => unreachable!("a row without an account is refused"),
        }
    }
    if !refused.is_empty() {
        return Err(RosterRefusal::Rows(refused));
    }
    let capacity = g.settings.capacity();
    if g.players.len() + events.len() > capacity {
        return Err(RosterRefusal::Full { capacity, registered: g.players.len(), adding: events.len() });
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(row: usize, name: &str, role: Option<Role>) -> RosterRow {
        RosterRow { row, name: name.into(), account: role.map(|r| (name.to_ascii_lowercase(), r)) }
    }

    fn gathering(names: &[&str]) -> Gathering {
        let mut g = Gathering::empty("g");
        g.players = names.iter().map(|n| Registrant { name: n.to_string(), bot: None, program: false }).collect();
        g.index_players();
        g
    }

    /// R9.1: a roster registers every row in order, a bot account as a program.
    #[test]
    fn a_roster_registers_every_row_in_order() {
        let g = gathering(&["ann"]);
        let events =
            register_roster(&g, &[row(1, "bob", Some(Role::Player)), row(2, "bot-7", Some(Role::Bot))]).unwrap();
        assert_eq!(
            events,
            vec![
                GatheringEvent::PlayerRegistered(Registrant { name: "bob".into(), bot: None, program: false }),
                GatheringEvent::PlayerRegistered(Registrant { name: "bot-7".into(), bot: None, program: true }),
            ]
        );
    }

    /// All or nothing: every refused row is reported with its reason, and nothing is registered.
    #[test]
    fn every_refused_row_is_reported() {
        let g = gathering(&["ann"]);
        let rows = [
            row(2, "bob", Some(Role::Player)),
            row(3, "x", None),
            row(4, "nobody", None),
            row(5, "org", Some(Role::Organiser)),
            row(6, "ann", Some(Role::Player)),
            row(7, "BOB", Some(Role::Player)),
        ];
        let Err(RosterRefusal::Rows(refused)) = register_roster(&g, &rows) else { panic!("refused") };
        let got: Vec<(usize, RowReason)> = refused.iter().map(|r| (r.row, r.reason)).collect();
        assert_eq!(
            got,
            vec![
                (3, RowReason::InvalidName),
                (4, RowReason::UnknownAccount),
                (5, RowReason::NotAPlayer),
                (6, RowReason::AlreadyRegistered),
                (7, RowReason::Duplicate),
            ]
        );
        assert_eq!(refused[4].name, "BOB", "the name as given");
    }

    /// The cap holds for a roster as for one registration; a started gathering takes none.
    #[test]
    fn a_roster_respects_the_cap_and_the_start() {
        let mut g = gathering(&["ann"]);
        g.settings.registration_cap = Some(2);
        let rows = [row(1, "bob", Some(Role::Player)), row(2, "cat", Some(Role::Player))];
        assert_eq!(register_roster(&g, &rows), Err(RosterRefusal::Full { capacity: 2, registered: 1, adding: 2 }));
        assert!(register_roster(&g, &rows[..1]).is_ok());
        assert_eq!(register_roster(&g, &[]), Err(RosterRefusal::Empty));
        g.status = Status::Running;
        assert_eq!(register_roster(&g, &rows[..1]), Err(RosterRefusal::Started));
    }
}
