//! X12, R10.4, R10.5: the open prompts, with their legal answers as constraints and their
//! defaults.

use crate::model::card::CardKind;
use crate::model::command::{Answer, PromptId};
use crate::model::event::Limit;
use crate::model::state::{Ask, State};
use crate::rules::effects::left_of;
use crate::rules::flow::{Next, next};
use crate::rules::legal::{
    Slot, book_targets, first_clockwise, hijinx_targets, nameable, ring_targets, sanction_targets, satan_targets,
    selectable, violation_targets,
};
use serde::Serialize;

/// What a prompt asks, with its legal answers: `{"prompt": "select_card", "cards": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistPromptKind))]
#[serde(tag = "prompt", rename_all = "snake_case")]
pub enum PromptKind {
    /// X6.1, X6.5: choose a card of another player's row (answer `card`).
    SelectCard {
        /// The legal cards.
        cards: Vec<Slot>,
        /// X6.5: limits lifted because they left no legal card.
        lifted: Vec<Limit>,
    },
    /// X9.12: choose a card of a player not yet Chosen in the chain (answer `card`).
    HijinxSelect {
        /// The legal cards.
        cards: Vec<Slot>,
        /// The players already Chosen in the chain.
        chain: Vec<u8>,
    },
    /// X9.5: look at one's own Role tile (answer `peek` or `decline`).
    TabletPeek,
    /// X9.4: look at every card of one's own row (answer `peek` or `decline`).
    PrepucePeek,
    /// X9.6: look at one player's Role tile (answer `peek_tile` or `decline`).
    BookPeek {
        /// The tiles that may be looked at.
        seats: Vec<u8>,
    },
    /// X9.7: take 1 point from one of these players (answer `player`).
    RingTarget {
        /// The eligible players.
        seats: Vec<u8>,
    },
    /// X9.8: look at the Chosen's Role tile (answer `peek` or `decline`).
    PazuzuPeek {
        /// The Chosen.
        target: u8,
    },
    /// X9.10: one of these players loses 1 point (answer `player`).
    SanctionTarget {
        /// The eligible players.
        seats: Vec<u8>,
    },
    /// X9.11: name the next Seeker (answer `player`).
    NameSeeker {
        /// The eligible players.
        seats: Vec<u8>,
    },
    /// X9.14: peek at one card of another player's row (answer `card`).
    ViolationPeek {
        /// The legal cards.
        cards: Vec<Slot>,
    },
    /// X9.16: look at one of these tiles (answer `peek_tile` or `decline`).
    SatanPeek {
        /// The tiles that may be looked at (own first).
        seats: Vec<u8>,
    },
    /// X8.3: pick a position of the mini-game's row (answer `pick`).
    TiePick {
        /// The positions that still hold a card.
        positions: Vec<u8>,
    },
}

/// An open prompt: who, what (with the legal answers), the default (R10.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistPrompt))]
pub struct Prompt {
    /// R10.4.2: the prompt's id (answers may name it).
    pub id: PromptId,
    /// Who answers.
    pub seat: u8,
    /// The card whose effect asks, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<CardKind>,
    /// What is asked.
    #[serde(flatten)]
    pub kind: PromptKind,
    /// X12: the default answer (the first legal answer when the default is random).
    pub default: Answer,
    /// X12: a time-out draws a uniformly random legal answer (recorded).
    pub random_default: bool,
}

impl Prompt {
    /// R10.5: whether `answer` is legal for this prompt.
    pub fn allows(&self, answer: &Answer) -> bool {
        match (&self.kind, answer) {
            (
                PromptKind::SelectCard { cards, .. }
                | PromptKind::HijinxSelect { cards, .. }
                | PromptKind::ViolationPeek { cards },
                Answer::Card { owner, position },
            ) => cards.contains(&Slot { owner: *owner, position: *position }),
            (
                PromptKind::TabletPeek | PromptKind::PrepucePeek | PromptKind::PazuzuPeek { .. },
                Answer::Peek | Answer::Decline,
            ) => true,
            (PromptKind::BookPeek { .. } | PromptKind::SatanPeek { .. }, Answer::Decline) => true,
            (PromptKind::BookPeek { seats } | PromptKind::SatanPeek { seats }, Answer::PeekTile { seat }) => {
                seats.contains(seat)
            }
            (
                PromptKind::RingTarget { seats }
                | PromptKind::SanctionTarget { seats }
                | PromptKind::NameSeeker { seats },
                Answer::Player { seat },
            ) => seats.contains(seat),
            (PromptKind::TiePick { positions }, Answer::Pick { position }) => positions.contains(position),
            _ => false,
        }
    }

    /// Every legal answer, in a fixed order (for bots and time-outs).
    pub fn legal_answers(&self) -> Vec<Answer> {
        let cards = |c: &[Slot]| c.iter().map(|s| Answer::Card { owner: s.owner, position: s.position }).collect();
        let players = |s: &[u8]| s.iter().map(|&seat| Answer::Player { seat }).collect();
        let tiles = |s: &[u8]| {
            let mut v: Vec<Answer> = s.iter().map(|&seat| Answer::PeekTile { seat }).collect();
            v.push(Answer::Decline);
            v
        };
        match &self.kind {
            PromptKind::SelectCard { cards: c, .. }
            | PromptKind::HijinxSelect { cards: c, .. }
            | PromptKind::ViolationPeek { cards: c } => cards(c),
            PromptKind::TabletPeek | PromptKind::PrepucePeek | PromptKind::PazuzuPeek { .. } => {
                vec![Answer::Peek, Answer::Decline]
            }
            PromptKind::BookPeek { seats } | PromptKind::SatanPeek { seats } => tiles(seats),
            PromptKind::RingTarget { seats }
            | PromptKind::SanctionTarget { seats }
            | PromptKind::NameSeeker { seats } => players(seats),
            PromptKind::TiePick { positions } => positions.iter().map(|&position| Answer::Pick { position }).collect(),
        }
    }
}

fn card_answer(cards: &[Slot]) -> Answer {
    let s = cards.first().expect("a prompt with cards has one");
    Answer::Card { owner: s.owner, position: s.position }
}

/// R10.4: every open prompt (several only for the mini-game's simultaneous picks, X8.3).
pub fn prompts(state: &State) -> Vec<Prompt> {
    let id = PromptId(state.point);
    let n = state.players();
    let prompt = |seat, cause, kind: PromptKind, default, random_default| Prompt {
        id,
        seat,
        cause,
        kind,
        default,
        random_default,
    };
    match next(state) {
        Next::Select { seeker, hijinx } => {
            let r = state.round.as_ref().expect("a round");
            if hijinx {
                let cards = hijinx_targets(r, seeker, &r.chain);
                let d = card_answer(&cards);
                vec![prompt(
                    seeker,
                    Some(CardKind::HellishHijinx),
                    PromptKind::HijinxSelect { cards, chain: r.chain.clone() },
                    d,
                    true,
                )]
            } else {
                let (cards, lifted) = selectable(r, seeker);
                if cards.is_empty() {
                    return vec![]; // X6.6: the decider reveals one of the Seeker's own cards.
                }
                let d = card_answer(&cards);
                vec![prompt(seeker, None, PromptKind::SelectCard { cards, lifted }, d, true)]
            }
        }
        Next::Ask { seat, ask } => {
            let r = state.round.as_ref().expect("a round");
            let t = r.turn.expect("a turn");
            let card = Some(t.card.kind());
            let (kind, default, random) = match ask {
                Ask::TabletSeeker | Ask::TabletChosen => (PromptKind::TabletPeek, Answer::Decline, false),
                Ask::Prepuce => (PromptKind::PrepucePeek, Answer::Decline, false),
                Ask::Pazuzu => (PromptKind::PazuzuPeek { target: t.chosen }, Answer::Decline, false),
                Ask::Book => (PromptKind::BookPeek { seats: book_targets(n) }, Answer::Decline, false),
                Ask::Satan => {
                    (PromptKind::SatanPeek { seats: satan_targets(t.seeker, t.chosen) }, Answer::Decline, false)
                }
                Ask::Ring => {
                    let seats = ring_targets(&state.points, t.chosen);
                    let d = first_clockwise(t.chosen, n, &seats).expect("an eligible player");
                    (PromptKind::RingTarget { seats }, Answer::Player { seat: d }, false)
                }
                Ask::Sanction => {
                    let seats = sanction_targets(n, t.chosen);
                    (PromptKind::SanctionTarget { seats }, Answer::Player { seat: left_of(t.chosen, n) }, false)
                }
                Ask::NameSeeker => {
                    let seats = nameable(r, t.chosen, n, r.deal_revealed + 1 >= n);
                    let d = first_clockwise(t.chosen, n, &seats).expect("an eligible player");
                    (PromptKind::NameSeeker { seats }, Answer::Player { seat: d }, false)
                }
                Ask::Violation => {
                    let cards = violation_targets(r, t.chosen);
                    let d = card_answer(&cards);
                    (PromptKind::ViolationPeek { cards }, d, true)
                }
            };
            vec![prompt(seat, card, kind, default, random)]
        }
        Next::TiePick { waiting } => {
            let t = state.tie.as_ref().expect("a mini-game");
            waiting
                .into_iter()
                .map(|seat| {
                    let positions = t.available.clone();
                    let d = Answer::Pick { position: positions[0] };
                    prompt(seat, None, PromptKind::TiePick { positions }, d, true)
                })
                .collect()
        }
        _ => vec![],
    }
}

/// R10.4: the prompt open for `seat`, if any.
pub fn prompt_for(state: &State, seat: u8) -> Option<Prompt> {
    prompts(state).into_iter().find(|p| p.seat == seat)
}
