//! R10.8, X11.1: the state as one viewer may see it, by allow-list. A seat sees the public
//! table, its own prompt, what it knows now from its own look and peeks, and its private log
//! (X11.3); a spectator the public table; the commentary view what some seat knows (no prompt);
//! [`Viewer::Everything`] (and everyone once the game is over, X11.4) everything.

use crate::model::card::{CardKind, Role, TieCard};
use crate::model::event::{EndReason, Limit};
use crate::model::state::{Note, State};
use crate::projection::shown::{CardKnown, CardSeen, CardShown, DealtShown, PickShown, RoleShown, TieShown};
use crate::rules::flow::{Next, next};
use crate::rules::prompt::{Prompt, PromptKind, prompt_for, prompts};
use flicker_game::Viewer;
use serde::Serialize;

/// A row as shown: its size; its cards in order only to an omniscient viewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistRowView))]
pub struct RowView {
    /// The owner.
    pub seat: u8,
    /// X11.1: row sizes are public.
    pub size: u8,
    /// The cards in order (omniscient only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<Vec<CardKind>>,
}

/// X6.5: a selection limit in force (public).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistLimitView))]
pub struct LimitView {
    /// Which.
    pub limit: Limit,
    /// On whose cards.
    pub seat: u8,
}

/// Who must answer what (public; the mini-game's picks stay listed until the reveal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistAwaiting))]
pub struct Awaiting {
    /// The seat.
    pub seat: u8,
    /// The prompt's name (`select_card`, ...).
    pub prompt: &'static str,
}

/// One entry of a seat's private log (X11.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistNoteView))]
#[serde(tag = "note", rename_all = "snake_case")]
pub enum NoteView {
    /// A Role tile seen.
    Role(RoleShown),
    /// A deal's cards, as a set.
    Dealt(DealtShown),
    /// A card seen by a peek.
    Card(CardSeen),
}

/// X11.3: one entry of a private log, with whose sight it is (in the commentary view and after
/// the game the log holds every seat's entries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistLogNote))]
pub struct LogNote {
    /// The seat that looked, peeked or was dealt (X11.5: that a peek happened, by whom and at
    /// what, is public; what it showed is the seer's).
    pub seer: u8,
    /// What it saw.
    #[serde(flatten)]
    pub note: NoteView,
}

/// X7.4, X11.4: a finished round (public).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistRoundView))]
pub struct RoundView {
    /// The round.
    pub round: u32,
    /// The team that won it.
    pub winning_team: Role,
    /// Every tile at the end.
    pub roles: Vec<RoleShown>,
    /// Who gained 2 points.
    pub scorers: Vec<u8>,
}

/// X8: the mini-game as shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistTieView))]
pub struct TieView {
    /// The players in it.
    pub players: Vec<u8>,
    /// The current row (from 1).
    pub layout: u32,
    /// Positions still holding a card.
    pub available: Vec<u8>,
    /// Cards revealed on the current row.
    pub revealed: Vec<TieShown>,
    /// Pick rounds played (X8.6: the winner is drawn after 20).
    pub pick_rounds: u32,
    /// Picks not yet revealed that the viewer may see (its own).
    pub picks: Vec<PickShown>,
}

/// The game's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistResultView))]
pub struct ResultView {
    /// The winner.
    pub winner: Option<u8>,
    /// Why it ended.
    pub reason: EndReason,
}

/// The state as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistView))]
pub struct View {
    /// Who is looking.
    pub viewer: Viewer,
    /// Seats.
    pub players: u8,
    /// X4.5: the points target.
    pub target: u32,
    /// X4: everyone's points (public).
    pub points: Vec<u32>,
    /// R10.10: conceded seats.
    pub conceded: Vec<u8>,
    /// The round (0 before the first).
    pub round: u32,
    /// X3.6: Holy Artifacts in this round's deck.
    pub holy: u8,
    /// X3.6: Cursed Artifacts in this round's deck.
    pub cursed: u8,
    /// Holy Artifacts revealed this round.
    pub holy_revealed: u8,
    /// Cursed Artifacts revealed this round.
    pub cursed_revealed: u8,
    /// X5.1: the deal.
    pub deal: u8,
    /// X5.4: the deal's revealed count.
    pub deal_revealed: u8,
    /// X0.2: the rows.
    pub table: Vec<RowView>,
    /// X6.3: this deal's revealed cards.
    pub centre: Vec<CardShown>,
    /// X7.2: earlier deals' revealed cards, by deal.
    pub set_aside: Vec<Vec<CardShown>>,
    /// X0.3: the Seeker.
    pub seeker: Option<u8>,
    /// X0.3: the Chosen of the turn resolving.
    pub chosen: Option<u8>,
    /// The card being resolved.
    pub resolving: Option<CardShown>,
    /// X6.5: limits on the next selection.
    pub limits: Vec<LimitView>,
    /// X9.12: players already Chosen in the Hijinx chain.
    pub chain: Vec<u8>,
    /// Who must answer what.
    pub awaiting: Vec<Awaiting>,
    /// The viewer's own open prompt (seats only).
    pub prompt: Option<Prompt>,
    /// Role tiles the viewer knows now (its look and peeks, not shuffled since).
    pub known_roles: Vec<RoleShown>,
    /// Face-down cards whose current place the viewer knows from its peeks.
    pub known_cards: Vec<CardKnown>,
    /// X11.3: the viewer's private log (for the commentary view and after the game, every
    /// seat's, each entry naming its seer).
    pub log: Vec<LogNote>,
    /// Every tile now (omniscient only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roles_now: Option<Vec<Role>>,
    /// X11.4: the finished rounds.
    pub history: Vec<RoundView>,
    /// X8: the mini-game.
    pub tie: Option<TieView>,
    /// The result.
    pub result: Option<ResultView>,
}

/// The name of a prompt kind.
pub fn prompt_name(k: &PromptKind) -> &'static str {
    match k {
        PromptKind::SelectCard { .. } => "select_card",
        PromptKind::HijinxSelect { .. } => "hijinx_select",
        PromptKind::TabletPeek => "tablet_peek",
        PromptKind::PrepucePeek => "prepuce_peek",
        PromptKind::BookPeek { .. } => "book_peek",
        PromptKind::RingTarget { .. } => "ring_target",
        PromptKind::PazuzuPeek { .. } => "pazuzu_peek",
        PromptKind::SanctionTarget { .. } => "sanction_target",
        PromptKind::NameSeeker { .. } => "name_seeker",
        PromptKind::ViolationPeek { .. } => "violation_peek",
        PromptKind::SatanPeek { .. } => "satan_peek",
        PromptKind::TiePick { .. } => "tie_pick",
    }
}

/// The seats whose sight `viewer` shares: its own seat; every seat for the commentary view.
pub fn eyes(state: &State, viewer: Viewer) -> Vec<u8> {
    match viewer {
        Viewer::Seat { seat } if seat < state.players() => vec![seat],
        Viewer::Commentary => (0..state.players()).collect(),
        _ => vec![],
    }
}

/// True when `viewer` sees everything: the omniscient viewer, or anyone once the game is over
/// (X11.4).
pub fn sees_all(state: &State, viewer: Viewer) -> bool {
    viewer == Viewer::Everything || state.is_finished()
}

/// A note as shown.
pub fn note_view(seat: u8, n: &Note) -> NoteView {
    match n {
        Note::Role { at, round, seat: s, role } => {
            NoteView::Role(RoleShown { round: *round, seat: *s, role: *role, at: Some(*at), since: None })
        }
        Note::Dealt { at, round, deal, cards } => {
            NoteView::Dealt(DealtShown { seat, dealt: cards.clone(), at: *at, round: *round, deal: *deal })
        }
        Note::Card(s) => NoteView::Card(CardSeen::from(s)),
    }
}

/// R10.8: `state` as `viewer` sees it.
pub fn view(state: &State, viewer: Viewer) -> View {
    let all = sees_all(state, viewer);
    let eyes = if all { (0..state.players()).collect() } else { eyes(state, viewer) };
    let r = state.round.as_ref();
    let settings = state.settings.as_ref();
    let mut known_roles = Vec::new();
    let mut known_cards = Vec::new();
    if let Some(r) = r {
        for &e in &eyes {
            for &(seat, role, since) in &r.known_tiles[e as usize] {
                known_roles.push(RoleShown { round: r.number, seat, role, at: None, since: Some(since) });
            }
            for &(card, since) in &r.known_cards[e as usize] {
                if let Some((owner, i)) =
                    r.rows.iter().enumerate().find_map(|(o, row)| row.iter().position(|c| *c == card).map(|i| (o, i)))
                {
                    known_cards.push(CardKnown { card: card.kind(), since, owner: owner as u8, position: i as u8 + 1 });
                }
            }
        }
    }
    let log = eyes
        .iter()
        .flat_map(|&e| state.notes[e as usize].iter().map(move |n| LogNote { seer: e, note: note_view(e, n) }))
        .collect();
    let open = prompts(state);
    let awaiting = open.iter().map(|p| Awaiting { seat: p.seat, prompt: prompt_name(&p.kind) }).collect();
    let prompt = match viewer {
        Viewer::Seat { seat } => prompt_for(state, seat),
        _ => None,
    };
    let tie = state.tie.as_ref().map(|t| TieView {
        players: t.players.clone(),
        layout: t.layout,
        available: t.available.clone(),
        revealed: t
            .revealed
            .iter()
            .map(|&position| TieShown {
                tie_card: if position == t.blessing { TieCard::Blessing } else { TieCard::Mischief },
                layout: t.layout,
                position,
            })
            .collect(),
        pick_rounds: t.pick_rounds,
        picks: t
            .picks
            .iter()
            .filter(|(s, _)| all || eyes.contains(s))
            .map(|&(seat, pick)| PickShown { seat, pick })
            .collect(),
    });
    View {
        viewer,
        players: state.players(),
        target: settings.map_or(0, |s| s.target),
        points: state.points.clone(),
        conceded: (0..state.players()).filter(|&s| state.conceded[s as usize]).collect(),
        round: state.rounds,
        holy: r.map_or(0, |r| r.holy),
        cursed: r.map_or(0, |r| r.cursed),
        holy_revealed: r.map_or(0, |r| r.holy_revealed),
        cursed_revealed: r.map_or(0, |r| r.cursed_revealed),
        deal: r.map_or(0, |r| r.deal),
        deal_revealed: r.map_or(0, |r| r.deal_revealed),
        table: r.map_or(vec![], |r| {
            r.rows
                .iter()
                .enumerate()
                .map(|(s, row)| RowView {
                    seat: s as u8,
                    size: row.len() as u8,
                    order: all.then(|| row.iter().map(|c| c.kind()).collect()),
                })
                .collect()
        }),
        centre: r.map_or(vec![], |r| r.centre.iter().map(CardShown::from).collect()),
        set_aside: r.map_or(vec![], |r| r.set_aside.iter().map(|d| d.iter().map(CardShown::from).collect()).collect()),
        seeker: r.map(|r| r.turn.map_or(r.seeker, |t| t.seeker)),
        chosen: r.and_then(|r| r.turn.map(|t| t.chosen)),
        resolving: r.and_then(|r| {
            r.turn.map(|t| CardShown {
                card: t.card.kind(),
                round: r.number,
                reveal: t.reveal,
                deal: r.deal,
                seeker: t.seeker,
                chosen: t.chosen,
            })
        }),
        limits: r.map_or(vec![], |r| r.limits().into_iter().map(|(limit, seat)| LimitView { limit, seat }).collect()),
        chain: r.map_or(vec![], |r| r.chain.clone()),
        awaiting,
        prompt,
        known_roles,
        known_cards,
        log,
        roles_now: if all { r.map(|r| r.tiles.iter().map(|t| t.role()).collect()) } else { None },
        history: state
            .history
            .iter()
            .map(|h| RoundView {
                round: h.number,
                winning_team: h.winner,
                roles: h
                    .roles
                    .iter()
                    .enumerate()
                    .map(|(s, &role)| RoleShown { round: h.number, seat: s as u8, role, at: None, since: None })
                    .collect(),
                scorers: h.scorers.clone(),
            })
            .collect(),
        tie,
        result: state.result.as_ref().map(|g| ResultView { winner: g.winner, reason: g.reason }),
    }
}

/// Whether the game waits for the platform's close of a held mini-game pick (R10.6.5).
pub fn held(state: &State) -> bool {
    next(state) == Next::TieReveal
}
