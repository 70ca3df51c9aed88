//! Pending decisions (R10.4) and the prompt catalogue (R10.5): who must answer what next, with
//! the legal answers as constraints and the default answer applied on time-out.

use crate::action::{Action, MediumMode};
use crate::card::{CardId, Rank};
use crate::command::Answer;
use crate::event::{EliminationCause, TurnOrder};
use crate::handle::{CardRef, CardView, PromptId, card_view, handle, prompt_id};
use crate::legal::{self, Use};
use crate::state::{ActionStage, State, Step};
use crate::window::{self, WindowNext};
use serde::{Deserialize, Serialize};

/// A ghost a Recall may take: its owner and the ghost.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecallChoice {
    /// The Shadow's owner.
    pub owner: u8,
    /// The ghost.
    pub ghost: CardRef,
}

/// One legal use of a hand card in the Ritual, its choices given as constraints: pick one
/// value from each list.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum UseOption {
    /// R5.2: Haunt one of `targets`.
    Haunt {
        /// Neighbours.
        targets: Vec<u8>,
    },
    /// R5.3: Banish one of `ghosts`.
    Banish {
        /// Ghosts of one's Shadow this card beats.
        ghosts: Vec<CardRef>,
    },
    /// R5.5.2: Greed on one of `targets`.
    Greed {
        /// Lit players, oneself first.
        targets: Vec<u8>,
    },
    /// R5.5.3: Scare one of `targets`.
    Scare {
        /// Neighbours.
        targets: Vec<u8>,
    },
    /// R5.5.4: Drain.
    Drain,
    /// R5.5.6: Sight on one of `targets`.
    Sight {
        /// Neighbours.
        targets: Vec<u8>,
    },
    /// R5.5.7: Cleanse one of `ghosts`.
    Cleanse {
        /// Ghosts of one's Shadow.
        ghosts: Vec<CardRef>,
    },
    /// R5.5.8: Recall one of `ghosts`.
    Recall {
        /// Ghosts of Lit players' Shadows.
        ghosts: Vec<RecallChoice>,
    },
    /// R5.5.9: Possess one of `ghosts` onto one of `destinations`.
    Possess {
        /// Ghosts of one's Shadow.
        ghosts: Vec<CardRef>,
        /// Neighbours.
        destinations: Vec<u8>,
    },
    /// R5.5.10: Rekindle.
    Rekindle,
    /// R5.6.1: Mirror with one of `targets`.
    Mirror {
        /// Neighbours.
        targets: Vec<u8>,
    },
    /// R5.6.2: Medium in one of `modes`.
    Medium {
        /// Search and Depths.
        modes: Vec<MediumMode>,
    },
    /// R5.6.3: Purge.
    Purge,
    /// R5.6.4: BOO!.
    Boo,
}

/// The legal uses of one hand card.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardOptions {
    /// The card.
    pub card: CardView,
    /// Its uses; empty lists are never given.
    pub uses: Vec<UseOption>,
}

/// R10.5: the kind of a prompt and its legal answers.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptKind {
    /// #1 (R2.6): answer `turn_order` First or Last.
    TurnOrderChoice,
    /// #3 (R4.2.2): answer `reprieve` (one of `aces`), `endure`, or `panic` (one of `panic`).
    HauntingChoice {
        /// Ghosts in the Shadow (G).
        ghosts: usize,
        /// Aces in hand.
        aces: Vec<CardView>,
        /// Ghosts a Panic may target (empty when the Candle is empty, R11.26).
        panic: Vec<CardView>,
    },
    /// #5 (R4.4.2): answer `act` with one of `options`, or `end_ritual`.
    Ritual {
        /// Actions left (R4.4.1).
        budget: u8,
        /// Legal uses of each hand card (empty when the budget is 0).
        options: Vec<CardOptions>,
    },
    /// #12 / #13 (R6.5, R6.6, R10.6.6): answer `pass` or `salt` with one of `fives`.
    Salt {
        /// The actor of the action.
        actor: u8,
        /// The action's name.
        action: String,
        /// True for a BOO! window (a standing Salt protects only its Salter).
        boo: bool,
        /// True when confirming an earlier simultaneous Salt (R10.6.6): the seat answered Salt
        /// while the window took answers, and is now asked in turn after a failed exchange. Only
        /// the seat itself ever sees this prompt.
        confirm: bool,
        /// The 5s in hand (may be empty: every eligible player is asked, R6.5.4).
        fives: Vec<CardView>,
        /// Simultaneous window: this seat's current answer, which it may change.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        current: Option<Answer>,
    },
    /// #14 (R6.5.5): answer `salt` with one of `fives`, or `yield`.
    CounterSalt {
        /// The other side of the exchange.
        opponent: u8,
        /// The 5s in hand.
        fives: Vec<CardView>,
    },
    /// #15 (R5.5.6): answer `pick` with exactly `count` cards of `hand` (shown in the neutral
    /// order of R10.12).
    SightPick {
        /// The neighbour seen.
        target: u8,
        /// Their hand.
        hand: Vec<CardView>,
        /// How many to take.
        count: usize,
    },
    /// #17 (R5.6.2): answer `pick` with exactly one of `choices` (The Dark, top first, Jokers
    /// excluded), or with no card when `choices` is empty.
    MediumPick {
        /// Eligible cards.
        choices: Vec<CardView>,
    },
    /// #21 (R4.5.2): answer `pick` with exactly `count` cards of your hand, in discard order.
    BurdenDiscard {
        /// Cards to discard.
        count: usize,
        /// Your hand, in acquisition order (R10.12).
        hand: Vec<CardView>,
    },
    /// #20 (R7.5.3): answer `split`: `left` gets one of `sizes` ghosts, `right` the rest.
    DeathSplit {
        /// Left neighbour.
        left: u8,
        /// Right neighbour.
        right: u8,
        /// The ghosts, in entry order.
        ghosts: Vec<CardView>,
        /// The allowed sizes of the left share (floor(g/2) and ceil(g/2)).
        sizes: Vec<usize>,
    },
}

impl PromptKind {
    /// R10.7.2: whether this is a reaction prompt (catalogue rows 6-14: Salt, BOO! Salt and
    /// counter-Salt here), whose default clock is the short one.
    pub fn is_reaction(&self) -> bool {
        matches!(self, PromptKind::Salt { .. } | PromptKind::CounterSalt { .. })
    }
}

/// An open prompt (R10.4.2): the seat that must answer, the kind with its legal answers, and
/// the default answer the engine applies on time-out (R10.5). The deadline is the server's.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    /// Opaque id; answers may name it.
    pub id: PromptId,
    /// Who must answer.
    pub seat: u8,
    /// What is asked.
    #[serde(flatten)]
    pub kind: PromptKind,
    /// R10.5: the answer applied on time-out.
    pub default: Answer,
}

/// Internal description of what a seat is asked, without building card views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Open {
    TurnOrder,
    Haunting,
    Ritual,
    /// `simultaneous`: the seat answers privately in an open simultaneous window.
    Salt {
        confirm: bool,
        simultaneous: bool,
    },
    Counter,
    SightPick {
        target: u8,
    },
    MediumPick,
    Burden,
    DeathSplit {
        left: u8,
        right: u8,
    },
}

/// R7.5: whether E's split needs a choice, and the two recipients.
pub(crate) fn split_neighbours(state: &State, e: u8) -> Option<(u8, u8)> {
    if state.players[e as usize].shadow.is_empty() {
        return None;
    }
    match (state.left_of(e), state.right_of(e)) {
        (Some(l), Some(r)) if l != r => Some((l, r)),
        _ => None,
    }
}

/// The open decision point: every (seat, prompt) pair that may answer now (R10.4.1).
pub(crate) fn open_prompts(state: &State) -> Vec<(u8, Open)> {
    let active = state.turn.active;
    match &state.step {
        Step::TurnOrder { seat } => vec![(*seat, Open::TurnOrder)],
        Step::Haunting => vec![(active, Open::Haunting)],
        Step::Ritual => {
            if state.turn.budget > 0 || crate::hooks::free_ability_available(state, active) {
                vec![(active, Open::Ritual)]
            } else {
                Vec::new()
            }
        }
        Step::Burden => vec![(active, Open::Burden)],
        Step::Action(flow) => match &flow.stage {
            ActionStage::Window(w) => match window::next(state) {
                Some(WindowNext::AnswerAll | WindowNext::HeldOpen) => {
                    w.answers.iter().map(|(s, _)| (*s, Open::Salt { confirm: false, simultaneous: true })).collect()
                }
                Some(WindowNext::Ask(s)) => vec![(s, Open::Salt { confirm: false, simultaneous: false })],
                Some(WindowNext::Confirm(s)) => vec![(s, Open::Salt { confirm: true, simultaneous: false })],
                Some(WindowNext::Exchange(s)) => vec![(s, Open::Counter)],
                _ => Vec::new(),
            },
            ActionStage::SightPick { target } => {
                vec![(flow.actor, Open::SightPick { target: *target })]
            }
            ActionStage::MediumPick => vec![(flow.actor, Open::MediumPick)],
            ActionStage::Ready { .. } => Vec::new(),
        },
        Step::Eliminating(el) if el.cause != EliminationCause::Conceded => match split_neighbours(state, el.seat) {
            Some((left, right)) => vec![(el.seat, Open::DeathSplit { left, right })],
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The prompt open for `seat`, if any.
pub(crate) fn open_for(state: &State, seat: u8) -> Option<Open> {
    open_prompts(state).into_iter().find(|(s, _)| *s == seat).map(|(_, o)| o)
}

/// R10.4: every prompt of the open decision point (several only in a simultaneous window).
pub fn prompts(state: &State) -> Vec<Prompt> {
    open_prompts(state).into_iter().map(|(seat, open)| build(state, seat, &open)).collect()
}

/// R10.4: the prompt open for `seat`, if any.
pub fn prompt_for(state: &State, seat: u8) -> Option<Prompt> {
    open_for(state, seat).map(|o| build(state, seat, &o))
}

fn views(state: &State, cards: impl IntoIterator<Item = CardId>) -> Vec<CardView> {
    cards.into_iter().map(|c| card_view(state, c)).collect()
}

fn refs(state: &State, cards: impl IntoIterator<Item = CardId>) -> Vec<CardRef> {
    cards.into_iter().map(|c| handle(state, c)).collect()
}

fn fives(state: &State, seat: u8) -> Vec<CardView> {
    views(state, state.players[seat as usize].hand.iter().copied().filter(|&c| state.face(c).rank == Rank::Five))
}

/// R10.12: a hand shown to another player: by rank, then suit tier from ♠ down, then instance.
pub(crate) fn neutral_order(state: &State, cards: &[CardId]) -> Vec<CardId> {
    let mut v = cards.to_vec();
    v.sort_by_key(|&c| (state.face(c).display_key(), c));
    v
}

/// R10.5: the default answer of a prompt, as internal card ids.
pub(crate) fn default_answer(state: &State, seat: u8, open: &Open) -> Answer {
    match open {
        Open::TurnOrder => Answer::TurnOrder { choice: TurnOrder::First },
        Open::Haunting => Answer::Endure,
        Open::Ritual => Answer::EndRitual,
        Open::Salt { .. } => Answer::Pass,
        Open::Counter => Answer::Yield,
        Open::SightPick { target } => {
            let hand = &state.players[*target as usize].hand;
            let shown = neutral_order(state, hand);
            Answer::Pick { cards: refs(state, shown.into_iter().take(2)) }
        }
        Open::MediumPick => {
            Answer::Pick { cards: refs(state, crate::resolve::medium_choices(state).into_iter().take(1)) }
        }
        Open::Burden => {
            // The most recently acquired cards, discarded oldest-first among them.
            let hand = &state.players[seat as usize].hand;
            let k = hand.len().saturating_sub(crate::hooks::hand_limit(state, seat));
            Answer::Pick { cards: refs(state, hand[hand.len() - k..].iter().copied()) }
        }
        Open::DeathSplit { .. } => {
            let (l, r) = default_split(state, seat);
            Answer::Split { left: refs(state, l), right: refs(state, r) }
        }
    }
}

/// R10.5 #20 default: ghosts in entry order alternately left, right, left…
pub(crate) fn default_split(state: &State, e: u8) -> (Vec<CardId>, Vec<CardId>) {
    let mut l = Vec::new();
    let mut r = Vec::new();
    for (i, g) in state.players[e as usize].shadow.iter().enumerate() {
        if i % 2 == 0 { l.push(g.card) } else { r.push(g.card) }
    }
    (l, r)
}

fn use_option(state: &State, u: Use) -> UseOption {
    match u {
        Use::Haunt(t) => UseOption::Haunt { targets: t },
        Use::Banish(g) => UseOption::Banish { ghosts: refs(state, g) },
        Use::Greed(t) => UseOption::Greed { targets: t },
        Use::Scare(t) => UseOption::Scare { targets: t },
        Use::Drain => UseOption::Drain,
        Use::Sight(t) => UseOption::Sight { targets: t },
        Use::Cleanse(g) => UseOption::Cleanse { ghosts: refs(state, g) },
        Use::Recall(g) => UseOption::Recall {
            ghosts: g.into_iter().map(|(owner, c)| RecallChoice { owner, ghost: handle(state, c) }).collect(),
        },
        Use::Possess(g, d) => UseOption::Possess { ghosts: refs(state, g), destinations: d },
        Use::Rekindle => UseOption::Rekindle,
        Use::Mirror(t) => UseOption::Mirror { targets: t },
        Use::Medium(m) => UseOption::Medium { modes: m },
        Use::Purge => UseOption::Purge,
        Use::Boo => UseOption::Boo,
    }
}

fn build(state: &State, seat: u8, open: &Open) -> Prompt {
    let p = &state.players[seat as usize];
    let kind = match open {
        Open::TurnOrder => PromptKind::TurnOrderChoice,
        Open::Haunting => PromptKind::HauntingChoice {
            ghosts: p.shadow.len(),
            aces: views(state, p.hand.iter().copied().filter(|&c| state.face(c).rank == Rank::Ace)),
            panic: if p.candle.is_empty() { Vec::new() } else { views(state, p.shadow.iter().map(|g| g.card)) },
        },
        Open::Ritual => PromptKind::Ritual {
            budget: state.turn.budget,
            options: if state.turn.budget == 0 {
                Vec::new()
            } else {
                p.hand
                    .iter()
                    .map(|&c| CardOptions {
                        card: card_view(state, c),
                        uses: legal::uses(state, seat, c).into_iter().map(|u| use_option(state, u)).collect(),
                    })
                    .filter(|o| !o.uses.is_empty())
                    .collect()
            },
        },
        Open::Salt { confirm, simultaneous } => {
            let flow = state.flow().expect("window open");
            let current = if *simultaneous {
                match &flow.stage {
                    ActionStage::Window(w) => w.answers.iter().find(|(s, _)| *s == seat).and_then(|(_, a)| {
                        a.map(|a| match a {
                            Some(c) => Answer::Salt { card: handle(state, c) },
                            None => Answer::Pass,
                        })
                    }),
                    _ => None,
                }
            } else {
                None
            };
            PromptKind::Salt {
                actor: flow.actor,
                action: flow.action.name().to_string(),
                boo: matches!(flow.action, Action::Boo { .. }),
                confirm: *confirm,
                fives: fives(state, seat),
                current,
            }
        }
        Open::Counter => {
            let flow = state.flow().expect("exchange open");
            let opponent = match &flow.stage {
                ActionStage::Window(w) => {
                    w.exchange.as_ref().map_or(flow.actor, |x| if seat == flow.actor { x.salter } else { flow.actor })
                }
                _ => flow.actor,
            };
            PromptKind::CounterSalt { opponent, fives: fives(state, seat) }
        }
        Open::SightPick { target } => {
            let hand = &state.players[*target as usize].hand;
            PromptKind::SightPick {
                target: *target,
                hand: views(state, neutral_order(state, hand)),
                count: hand.len().min(2),
            }
        }
        Open::MediumPick => PromptKind::MediumPick { choices: views(state, crate::resolve::medium_choices(state)) },
        Open::Burden => PromptKind::BurdenDiscard {
            count: p.hand.len().saturating_sub(crate::hooks::hand_limit(state, seat)),
            hand: views(state, p.hand.iter().copied()),
        },
        Open::DeathSplit { left, right } => {
            let g = p.shadow.len();
            let mut sizes = vec![g / 2];
            if g % 2 == 1 {
                sizes.push(g / 2 + 1);
            }
            PromptKind::DeathSplit {
                left: *left,
                right: *right,
                ghosts: views(state, p.shadow.iter().map(|g| g.card)),
                sizes,
            }
        }
    };
    Prompt { id: prompt_id(state, seat), seat, kind, default: default_answer(state, seat, open) }
}
