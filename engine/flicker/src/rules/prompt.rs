//! Pending decisions (R10.4) and the prompt catalogue (R10.5): who must answer what next, with
//! the legal answers as constraints and the default answer applied on time-out.

use crate::model::action::{Action, MediumMode};
use crate::model::card::{CardId, Rank, Suit};
use crate::model::command::Answer;
use crate::model::event::{EliminationCause, TurnOrder};
use crate::model::handle::{CardRef, CardView, PromptId, card_view, handle, prompt_id};
use crate::model::state::{ActionStage, State, Step};
use crate::rules::classes::abilities::{self, AbilityOption};
use crate::rules::classes::reactions::{self, ReactionKind};
use crate::rules::classes::{ClassId, ritual, triggers};
use crate::rules::legal::{self, Use};
use crate::rules::window::{self, WindowNext};
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
    /// A6 (classic 3): Omen (the revealed cards are offered in prompt OmenPlay).
    Omen,
    /// A6 (classic A): Draft one of `targets`.
    Draft {
        /// Neighbours.
        targets: Vec<u8>,
    },
    /// R5.5.2: Greed on one of `targets` (classic: oneself only).
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
    /// R5.5.7: Cleanse one of `ghosts` (The Exorcist: `two` different ones, R8.4.1).
    Cleanse {
        /// Ghosts of one's Shadow.
        ghosts: Vec<CardRef>,
        /// R8.4.1: declare two different ghosts (`ghost` and `second`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        two: bool,
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
    /// R8.2.1: build a Wall with this card.
    BuildWall,
    /// R8.5.1: discard this card to alter the suit of one of `choices`.
    AlterSuit {
        /// The ghosts and the suits each may take.
        choices: Vec<AlterChoice>,
    },
    /// R8.37.1: The Watcher's Sight.
    WatcherSight,
}

/// A ghost The Fatalist may alter (R8.5.1).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlterChoice {
    /// The ghost's owner.
    pub owner: u8,
    /// The ghost.
    pub ghost: CardRef,
    /// The suits it may be given.
    pub suits: Vec<Suit>,
}

/// A class Ritual action that plays no card (R8.33.2).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ClassActionOption {
    /// R8.33.1: Usurp one of `targets`.
    Usurp {
        /// Neighbours.
        targets: Vec<u8>,
    },
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
    /// #2 (R2.7.3): answer `choose_class` with one class of `offer`.
    ChooseClass {
        /// The offer, in its recorded order (private to the chooser).
        offer: Vec<ClassId>,
    },
    /// #6-#11 (R6.3, R6.4): answer `react` (with one of `cards`; The Shadow: no card) or `decline`.
    Reaction {
        /// Which reaction.
        reaction: ReactionKind,
        /// The actor of the action reacted to.
        actor: u8,
        /// The action's name.
        action: String,
        /// The cards that may be used (pages, hand cards or Walls; may be empty, R6.8).
        cards: Vec<CardRef>,
    },
    /// #4 (R8.15.1): answer `draw` or `decline`.
    MartyrDraw,
    /// #18 (R8.31.1): answer `trade` (one of `own` for one of `hand`) or `decline`.
    TraderSwap {
        /// The neighbour.
        target: u8,
        /// Their hand, in the neutral order of R10.12.
        hand: Vec<CardView>,
        /// Own hand cards that may be given.
        own: Vec<CardRef>,
    },
    /// #19 (R8.20.3): answer `spread` with one of `recipients`.
    PlagueSpread {
        /// The ghost spreading.
        ghost: CardView,
        /// The two eligible players, left neighbour first.
        recipients: Vec<u8>,
    },
    /// #16 (R8.37.1): answer `pick` with 0-2 cards of each hand.
    WatcherPick {
        /// (neighbour, hand in the neutral order).
        hands: Vec<(u8, Vec<CardView>)>,
        /// The most to take from each hand.
        per_hand: usize,
    },
    /// #3 (R4.2.2): answer `reprieve` (one of `aces`), `endure`, or `panic` (one of `panic`).
    HauntingChoice {
        /// Ghosts in the Shadow (G).
        ghosts: usize,
        /// Aces in hand.
        aces: Vec<CardView>,
        /// Ghosts a Panic may target (empty when the Candle is empty, R11.26).
        panic: Vec<CardView>,
    },
    /// A6 Omen, A12.3 (classic): answer `act` with one of `options`: a play of one of the
    /// revealed cards, as if from the hand (never another Omen). Only asked when one exists.
    OmenPlay {
        /// The revealed cards, top of the Candle first (face up in the Resolving area).
        revealed: Vec<CardView>,
        /// The legal plays of each revealed card.
        options: Vec<CardOptions>,
    },
    /// #5 (R4.4.2): answer `act` with one of `options`, or `end_ritual`.
    Ritual {
        /// Actions left (R4.4.1).
        budget: u8,
        /// Legal uses of each hand card (empty when the budget is 0).
        options: Vec<CardOptions>,
        /// R5.7: class Ritual actions that play no card (Usurp).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        class_actions: Vec<ClassActionOption>,
        /// R5.9: the free ability, when it may be used now (answer `ability`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ability: Option<AbilityOption>,
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
    /// A9 row 7 (classic): The Sadist's Scare: answer `pick` with exactly `count` cards of
    /// `hand` (shown in the neutral order of R10.12); they go to The Dark.
    SadistPick {
        /// The neighbour Scared.
        target: u8,
        /// Their hand.
        hand: Vec<CardView>,
        /// How many to discard.
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
    /// R10.7.2: whether this is a reaction prompt (catalogue rows 6-14: the class reactions of
    /// W1/W2, Salt, BOO! Salt and counter-Salt), whose default clock is the short one.
    pub fn is_reaction(&self) -> bool {
        matches!(self, PromptKind::Reaction { .. } | PromptKind::Salt { .. } | PromptKind::CounterSalt { .. })
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
    /// R10.5: a legal answer, the one applied on time-out unless `random_default` is set.
    pub default: Answer,
    /// R10.7.1: the time-out does not apply `default` but a legal answer drawn uniformly at
    /// random when the deadline passes (and recorded in the time-out's events), because a fixed
    /// default would name hidden cards or their order: SightPick, MediumPick and BurdenDiscard.
    /// Absent (false) for every other prompt, whose default depends only on public data.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub random_default: bool,
}

/// Internal description of what a seat is asked, without building card views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Open {
    TurnOrder,
    ChooseClass,
    Reaction(ReactionKind),
    Martyr,
    TraderSwap {
        target: u8,
    },
    /// R8.20.3: the ghost whose spread is chosen and the two recipients.
    Spread {
        ghost: CardId,
        recipients: Vec<u8>,
    },
    WatcherPick {
        targets: Vec<u8>,
    },
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
    /// A9 row 7: the classic Sadist's Scare.
    SadistPick {
        target: u8,
    },
    MediumPick,
    /// A6 Omen: the revealed cards, top first.
    OmenPlay {
        revealed: Vec<CardId>,
    },
    Burden,
    DeathSplit {
        left: u8,
        right: u8,
    },
}

/// R7.5: whether E's split needs a choice, and the two recipients.
pub(crate) fn split_neighbours(state: &State, e: u8) -> Option<(u8, u8)> {
    // A3.3: classic with dark_mode standard asks nothing: the ghosts go to The Dark.
    if state.players[e as usize].shadow.is_empty() || state.rules().death_ghosts_to_dark(state.settings_ref()) {
        return None;
    }
    match (state.left_of(e), state.right_of(e)) {
        (Some(l), Some(r)) if l != r => Some((l, r)),
        _ => None,
    }
}

/// The open decision point: every (seat, prompt) pair that may answer now (R10.4.1). None
/// while a held answer waits for the server to close its prompt (R10.6.5).
pub(crate) fn open_prompts(state: &State) -> Vec<(u8, Open)> {
    if state.held.is_some() {
        return Vec::new();
    }
    asked(state)
}

/// R10.6.5: whether answers to `open` are held until the server closes the prompt at this
/// table: the sequential reaction prompts (a Salt or BOO! Salt asked in turn, a confirm, a
/// counter-Salt, a W1/W2 class reaction) when `settings.hold_windows` is on.
pub(crate) fn holds(state: &State, open: &Open) -> bool {
    state.settings.as_ref().is_some_and(|s| s.hold_windows)
        && matches!(open, Open::Reaction(_) | Open::Salt { simultaneous: false, .. } | Open::Counter)
}

/// The prompts the decision point asks, held answers or not.
pub(crate) fn asked(state: &State) -> Vec<(u8, Open)> {
    let active = state.turn.active;
    match &state.step {
        Step::TurnOrder { seat } => vec![(*seat, Open::TurnOrder)],
        Step::Selecting => match &state.selection {
            Some(sel) if sel.offer.is_some() => {
                sel.order.first().map(|&s| vec![(s, Open::ChooseClass)]).unwrap_or_default()
            }
            _ => Vec::new(),
        },
        Step::Martyr => vec![(active, Open::Martyr)],
        Step::Ability(a) => match &a.stage {
            crate::model::state::AbilityStage::TraderSwap { target } => {
                vec![(a.seat, Open::TraderSwap { target: *target })]
            }
            crate::model::state::AbilityStage::Spread => match &a.ability {
                crate::model::classes::Ability::Doomreader { ghost, .. } => {
                    let g = state.players[a.seat as usize].shadow.iter().find(|g| g.card == *ghost);
                    let recipients = g.map(|g| triggers::spread_recipients(state, a.seat, g)).unwrap_or_default();
                    vec![(a.seat, Open::Spread { ghost: *ghost, recipients })]
                }
                _ => Vec::new(),
            },
        },
        Step::Reviving(el) => match split_neighbours(state, el.seat) {
            Some((left, right)) => vec![(el.seat, Open::DeathSplit { left, right })],
            None => Vec::new(),
        },
        // R4.2; A4.1: classic's Haunting asks nothing.
        Step::Haunting if state.rules().haunting_choice() => vec![(active, Open::Haunting)],
        Step::Haunting => Vec::new(),
        Step::Ritual => {
            if state.turn.budget > 0 || crate::rules::hooks::free_ability_available(state, active) {
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
            ActionStage::SadistPick { target } => vec![(flow.actor, Open::SadistPick { target: *target })],
            ActionStage::Grimoire { .. } | ActionStage::Target => match reactions::prompt_kind(state) {
                Some((s, k)) => vec![(s, Open::Reaction(k))],
                None => Vec::new(),
            },
            ActionStage::WatcherPick { targets } => vec![(flow.actor, Open::WatcherPick { targets: targets.clone() })],
            ActionStage::Spread { pending, chosen } => match pending.get(chosen.len()) {
                Some(&ghost) => {
                    let g = state.players[flow.actor as usize].shadow.iter().find(|g| g.card == ghost);
                    let recipients = g.map(|g| triggers::spread_recipients(state, flow.actor, g)).unwrap_or_default();
                    vec![(flow.actor, Open::Spread { ghost, recipients })]
                }
                None => Vec::new(),
            },
            ActionStage::MediumPick => vec![(flow.actor, Open::MediumPick)],
            // A12.3: asked only when some revealed card can be played.
            ActionStage::OmenPlay { revealed } if !legal::omen_plays(state, flow.actor, revealed).is_empty() => {
                vec![(flow.actor, Open::OmenPlay { revealed: revealed.clone() })]
            }
            ActionStage::OmenPlay { .. } | ActionStage::Ready { .. } => Vec::new(),
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
    let salt = state.rules().salt_rank();
    views(state, state.players[seat as usize].hand.iter().copied().filter(|&c| state.face(c).rank == salt))
}

/// R10.12: a hand shown to another player: by rank, then suit tier from ♠ down, then instance.
pub(crate) fn neutral_order(state: &State, cards: &[CardId]) -> Vec<CardId> {
    let mut v = cards.to_vec();
    v.sort_by_key(|&c| (state.face(c).display_key(), c));
    v
}

/// R10.5: the fixed default answer of a prompt, as internal card ids. For the prompts of
/// [`random_default`] it is only the legal answer shown as the prompt's `default`: their
/// time-out draws its answer instead ([`timeout_answer`], R10.7.1).
pub(crate) fn default_answer(state: &State, seat: u8, open: &Open) -> Answer {
    match open {
        Open::TurnOrder => Answer::TurnOrder { choice: TurnOrder::First },
        Open::ChooseClass => Answer::ChooseClass {
            class: state
                .selection
                .as_ref()
                .and_then(|s| s.offer.as_ref())
                .and_then(|o| o.first().copied())
                .unwrap_or(ClassId::Clown),
        },
        Open::Reaction(_) | Open::Martyr | Open::TraderSwap { .. } => Answer::Decline,
        Open::Spread { recipients, .. } => Answer::Spread { to: recipients.first().copied().unwrap_or(seat) },
        Open::WatcherPick { .. } => Answer::Pick { cards: Vec::new() },
        Open::Haunting => Answer::Endure,
        Open::Ritual => Answer::EndRitual,
        Open::Salt { .. } => Answer::Pass,
        Open::Counter => Answer::Yield,
        Open::SightPick { target } => {
            let hand = &state.players[*target as usize].hand;
            let shown = neutral_order(state, hand);
            Answer::Pick { cards: refs(state, shown.into_iter().take(state.rules().sight_takes())) }
        }
        Open::SadistPick { target } => {
            let shown = neutral_order(state, &state.players[*target as usize].hand);
            Answer::Pick { cards: refs(state, shown.into_iter().take(2)) }
        }
        Open::MediumPick => {
            Answer::Pick { cards: refs(state, crate::rules::resolve::medium_choices(state).into_iter().take(1)) }
        }
        Open::OmenPlay { revealed } => match legal::omen_plays(state, seat, revealed).first() {
            Some((card, uses)) => {
                Answer::Act { action: legal::first_play(*card, &uses[0]).map_cards(|&c| handle(state, c)) }
            }
            None => Answer::EndRitual,
        },
        Open::Burden => {
            // The most recently acquired cards, discarded oldest-first among them.
            let hand = &state.players[seat as usize].hand;
            let k = hand.len().saturating_sub(crate::rules::hooks::hand_limit(state, seat));
            Answer::Pick { cards: refs(state, hand[hand.len() - k..].iter().copied()) }
        }
        Open::DeathSplit { .. } => {
            let (l, r) = default_split(state, seat);
            Answer::Split { left: refs(state, l), right: refs(state, r) }
        }
    }
}

/// R10.7.1: whether the time-out answer of `open` is drawn at random (see
/// [`Prompt::random_default`]): the prompts whose canonical default depends on hidden cards (the
/// seen hand, the order of The Dark, the owner's acquisition order).
pub(crate) fn random_default(open: &Open) -> bool {
    matches!(open, Open::SightPick { .. } | Open::SadistPick { .. } | Open::MediumPick | Open::Burden)
}

/// R10.7.1, R10.2.1: the answer applied when `open` times out (or is answered for a conceding
/// seat, R10.10.2). For the prompts of [`random_default`] it is drawn uniformly from `rng` among
/// the legal answers: `count` distinct cards in a uniformly random order, sampled from the
/// candidates in the neutral order of R10.12, so that the draw is independent of any hidden
/// order. The cards drawn are recorded in the events the answer causes, so a replay never draws
/// again. Every other prompt gets its fixed default ([`default_answer`]).
pub(crate) fn timeout_answer<R: rand::Rng + ?Sized>(state: &State, seat: u8, open: &Open, rng: &mut R) -> Answer {
    let pick = |candidates: &[CardId], count: usize, rng: &mut R| {
        let canonical = neutral_order(state, candidates);
        let count = count.min(canonical.len());
        let drawn = rand::seq::index::sample(rng, canonical.len(), count);
        Answer::Pick { cards: refs(state, drawn.iter().map(|i| canonical[i])) }
    };
    match open {
        Open::SightPick { target } => {
            let hand = &state.players[*target as usize].hand;
            pick(hand, hand.len().min(state.rules().sight_takes()), rng)
        }
        Open::SadistPick { target } => {
            let hand = &state.players[*target as usize].hand;
            pick(hand, hand.len().min(2), rng)
        }
        Open::MediumPick => pick(&crate::rules::resolve::medium_choices(state), 1, rng),
        Open::Burden => {
            let hand = &state.players[seat as usize].hand;
            let k = hand.len().saturating_sub(crate::rules::hooks::hand_limit(state, seat));
            pick(hand, k, rng)
        }
        _ => default_answer(state, seat, open),
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
        Use::Draft(t) => UseOption::Draft { targets: t },
        Use::Omen => UseOption::Omen,
        Use::Greed(t) => UseOption::Greed { targets: t },
        Use::Scare(t) => UseOption::Scare { targets: t },
        Use::Drain => UseOption::Drain,
        Use::Sight(t) => UseOption::Sight { targets: t },
        Use::Cleanse(g, two) => UseOption::Cleanse { ghosts: refs(state, g), two },
        Use::Recall(g) => UseOption::Recall {
            ghosts: g.into_iter().map(|(owner, c)| RecallChoice { owner, ghost: handle(state, c) }).collect(),
        },
        Use::Possess(g, d) => UseOption::Possess { ghosts: refs(state, g), destinations: d },
        Use::Rekindle => UseOption::Rekindle,
        Use::Mirror(t) => UseOption::Mirror { targets: t },
        Use::Medium(m) => UseOption::Medium { modes: m },
        Use::Purge => UseOption::Purge,
        Use::Boo => UseOption::Boo,
        Use::BuildWall => UseOption::BuildWall,
        Use::AlterSuit(a) => UseOption::AlterSuit {
            choices: a
                .into_iter()
                .map(|(owner, g, suits)| AlterChoice { owner, ghost: handle(state, g), suits })
                .collect(),
        },
        Use::WatcherSight => UseOption::WatcherSight,
    }
}

fn build(state: &State, seat: u8, open: &Open) -> Prompt {
    let p = &state.players[seat as usize];
    let kind = match open {
        Open::TurnOrder => PromptKind::TurnOrderChoice,
        Open::ChooseClass => PromptKind::ChooseClass {
            offer: state.selection.as_ref().and_then(|s| s.offer.clone()).unwrap_or_default(),
        },
        Open::Reaction(kind) => {
            let flow = state.flow().expect("action in flight");
            PromptKind::Reaction {
                reaction: *kind,
                actor: flow.actor,
                action: flow.action.name().to_string(),
                cards: refs(state, reactions::reaction_cards(state, seat)),
            }
        }
        Open::Martyr => PromptKind::MartyrDraw,
        Open::TraderSwap { target } => PromptKind::TraderSwap {
            target: *target,
            hand: views(state, neutral_order(state, &state.players[*target as usize].hand)),
            own: refs(state, p.hand.iter().copied()),
        },
        Open::Spread { ghost, recipients } => {
            PromptKind::PlagueSpread { ghost: card_view(state, *ghost), recipients: recipients.clone() }
        }
        Open::WatcherPick { targets } => PromptKind::WatcherPick {
            hands: targets
                .iter()
                .map(|&t| (t, views(state, neutral_order(state, &state.players[t as usize].hand))))
                .collect(),
            per_hand: ritual::WATCHER_TAKE,
        },
        Open::Haunting => PromptKind::HauntingChoice {
            ghosts: p.shadow.len(),
            aces: views(state, p.hand.iter().copied().filter(|&c| state.face(c).rank == Rank::Ace)),
            panic: if p.candle.is_empty() { Vec::new() } else { views(state, p.shadow.iter().map(|g| g.card)) },
        },
        Open::OmenPlay { revealed } => PromptKind::OmenPlay {
            revealed: views(state, revealed.iter().copied()),
            options: legal::omen_plays(state, seat, revealed)
                .into_iter()
                .map(|(c, uses)| CardOptions {
                    card: card_view(state, c),
                    uses: uses.into_iter().map(|u| use_option(state, u)).collect(),
                })
                .collect(),
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
            class_actions: if state.turn.budget > 0 && crate::rules::classes::is(state, seat, ClassId::Usurer) {
                let t = state.neighbours(seat);
                if t.is_empty() { Vec::new() } else { vec![ClassActionOption::Usurp { targets: t }] }
            } else {
                Vec::new()
            },
            ability: abilities::options(state, seat),
        },
        Open::Salt { confirm, simultaneous } => {
            let flow = state.flow().expect("window open");
            let window_actor = flow.window_actor();
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
                actor: window_actor,
                action: flow.action.name().to_string(),
                boo: matches!(flow.action, Action::Boo { .. }),
                confirm: *confirm,
                fives: fives(state, seat),
                current,
            }
        }
        Open::Counter => {
            let flow = state.flow().expect("exchange open");
            let actor = flow.window_actor();
            let opponent = match &flow.stage {
                ActionStage::Window(w) => {
                    w.exchange.as_ref().map_or(actor, |x| if seat == actor { x.salter } else { actor })
                }
                _ => actor,
            };
            PromptKind::CounterSalt { opponent, fives: fives(state, seat) }
        }
        Open::SightPick { target } => {
            let hand = &state.players[*target as usize].hand;
            PromptKind::SightPick {
                target: *target,
                hand: views(state, neutral_order(state, hand)),
                count: hand.len().min(state.rules().sight_takes()),
            }
        }
        Open::SadistPick { target } => {
            let hand = &state.players[*target as usize].hand;
            PromptKind::SadistPick {
                target: *target,
                hand: views(state, neutral_order(state, hand)),
                count: hand.len().min(2),
            }
        }
        Open::MediumPick => {
            PromptKind::MediumPick { choices: views(state, crate::rules::resolve::medium_choices(state)) }
        }
        Open::Burden => PromptKind::BurdenDiscard {
            count: p.hand.len().saturating_sub(crate::rules::hooks::hand_limit(state, seat)),
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
    Prompt {
        id: prompt_id(state, seat),
        seat,
        kind,
        default: default_answer(state, seat, open),
        random_default: random_default(open),
    }
}
