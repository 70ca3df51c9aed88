//! Events: the facts a game is made of (R10.1.1). Every random outcome is stored as the outcome
//! itself (R10.2.1), never as a seed. Card lists name [`CardId`]s; views never show those ids
//! (see [`crate::projection::redact`]).

use crate::model::action::Action;
use crate::model::card::{CardId, CardInstance};
use crate::model::settings::{RulesetId, Settings};
use serde::{Deserialize, Serialize};

/// Schema version of the event payloads below. Bumped when a payload changes shape; older
/// schema versions keep being readable through the upcasters of [`crate::model::upcast`]
/// (R10.1.3). Schema 2: the card lists of `drained`, `purged` and `watcher_taken` effects are
/// named objects ([`SeatCards`], [`Removed`]) instead of positional arrays.
pub const EVENT_SCHEMA_VERSION: u32 = 2;

/// R2.6: the tiebreaker winner's choice.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOrder {
    /// The tiebreaker winner takes the first turn.
    First,
    /// The player to their left takes the first turn.
    Last,
}

/// R7.1: why a player is eliminated.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EliminationCause {
    /// R7.2: Consumed by the Darkness (empty Candle at The Draw or at Am I Alive?).
    Consumed,
    /// R7.3: Possessed (3 ghosts of one effective suit at Am I Alive?).
    Possessed,
    /// R10.10: conceded.
    Conceded,
}

/// R4.2.5: how a Panic ended.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PanicOutcome {
    /// R4.2.5(b): a Joker was revealed; the ghost was Siphoned (or sent to The Dark if Spade-cursed).
    Joker {
        /// Whether the ghost went to the bottom of the Candle.
        siphoned: bool,
    },
    /// R4.2.5(c): value(revealed) >= value(ghost): the ghost went to The Dark.
    Success,
    /// R4.2.5(d): the revealed card became a new ghost with no haunter.
    Failure,
}

/// R5.6.4: what BOO! turned up from one player's Candle.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooReveal {
    /// The player.
    pub seat: u8,
    /// Face cards and Jokers turned up and sent to The Dark, in order.
    pub to_dark: Vec<CardId>,
    /// The first number card turned up, which became a ghost with no haunter; `None` if the
    /// Candle ran out first.
    pub ghost: Option<CardId>,
}

/// The effect of an action that stood (R5.1.5). Each variant lists the exact cards moved.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// R5.2: the Haunt card entered `target`'s Shadow with the actor as tracked haunter.
    Haunted {
        /// The Shadow's owner.
        target: u8,
    },
    /// R5.3.4: the ghost left the actor's Shadow.
    Banished {
        /// The ghost.
        ghost: CardId,
        /// R5.4: to the bottom of the actor's Candle (true) or to The Dark (false).
        siphoned: bool,
        /// R8.20.3: a live Plague ghost spread to this player instead of going to The Dark.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spread: Option<u8>,
        /// R8.21.1: The Priest took this card from the top of The Dark first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        priest: Option<CardId>,
    },
    /// A6 Omen: the top cards of the actor's Candle (up to 3, top first) now lie face up in the
    /// Resolving area, waiting for the OmenPlay choice.
    OmenRevealed {
        /// The cards, top of the Candle first.
        revealed: Vec<CardId>,
    },
    /// A6 Draft: `target` Burned these cards, top of its Candle first (fewer than 2 if it ran out).
    Drafted {
        /// Who Burned.
        target: u8,
        /// The cards Burned, in order.
        burned: Vec<CardId>,
    },
    /// R5.5.2: `target` drew these cards from their Candle (fewer than 2 if it ran out).
    Greed {
        /// Who drew.
        target: u8,
        /// The cards drawn, top first.
        drawn: Vec<CardId>,
    },
    /// R5.5.3: these cards, drawn at random from `target`'s hand, went to The Dark in this order.
    Scared {
        /// Whose hand.
        target: u8,
        /// The cards, in the order drawn.
        discarded: Vec<CardId>,
    },
    /// R5.5.4: packets taken from each neighbour's Candle, in the order taken.
    Drained {
        /// Each neighbour (`seat`) and its packet (`cards`, top first).
        packets: Vec<SeatCards>,
    },
    /// R5.5.6: the actor took these cards from `target`'s hand.
    SightTaken {
        /// Whose hand.
        target: u8,
        /// The cards taken.
        taken: Vec<CardId>,
        /// R8.12.1: The Judge's Sight: the target Burned these cards.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        burned: Vec<CardId>,
    },
    /// R5.5.7: the ghost was Cleansed.
    Cleansed {
        /// The ghost.
        ghost: CardId,
        /// Siphoned (true) or to The Dark (false).
        siphoned: bool,
        /// R8.20.3: a live Plague ghost spread to this player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spread: Option<u8>,
        /// R8.4.1: The Exorcist's second ghost, removed after the first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        second: Option<Removed>,
    },
    /// R5.5.8: the ghost went from `owner`'s Shadow into the actor's hand.
    Recalled {
        /// The Shadow's owner.
        owner: u8,
        /// The ghost.
        ghost: CardId,
    },
    /// R5.5.9: the ghost moved from the actor's Shadow to `destination`'s.
    Possessed {
        /// The ghost.
        ghost: CardId,
        /// The receiving player.
        destination: u8,
        /// R8.18.2: The Occultist's bonus: cards from the top of The Dark to the bottom of its Candle.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bonus: Vec<CardId>,
    },
    /// R5.5.10: the top cards of The Dark went into the actor's Candle, then it was shuffled.
    Rekindled {
        /// The cards taken, top of The Dark first.
        taken: Vec<CardId>,
        /// The whole Candle after the shuffle, top first (the recorded shuffle, R10.2.1).
        candle: Vec<CardId>,
    },
    /// R5.6.1: the actor and `target` exchanged Shadows.
    Mirrored {
        /// The other player.
        target: u8,
    },
    /// R5.6.2 Search: the actor took this card from The Dark (`None`: no non-Joker card there).
    MediumSearched {
        /// The card taken.
        taken: Option<CardId>,
    },
    /// R5.6.2 Depths: the bottom cards of The Dark went into the Candle, then it was shuffled.
    MediumDepths {
        /// The cards taken, bottom of The Dark first.
        taken: Vec<CardId>,
        /// The whole Candle after the shuffle, top first.
        candle: Vec<CardId>,
    },
    /// R5.6.3: every ghost of the actor's Shadow, in entry order.
    Purged {
        /// Each ghost, whether it was Siphoned, and (R8.20.3) the recipient of a live Plague
        /// ghost that spread instead of going to The Dark.
        removed: Vec<Removed>,
    },
    /// R5.6.4: BOO! resolved for the unprotected players, clockwise from the actor's left.
    Boo {
        /// One entry per affected player.
        reveals: Vec<BooReveal>,
    },
    /// R8.2.1: the card entered The Cryptkeeper's Shadow face down as a Wall.
    WallBuilt,
    /// R8.5.2: the ghost's effective suit changed.
    SuitAltered {
        /// The ghost's owner.
        owner: u8,
        /// The ghost.
        ghost: CardId,
        /// The new effective suit.
        suit: crate::model::card::Suit,
    },
    /// R8.33.1: these cards, drawn at random from `target`'s hand, went to The Usurer's hand;
    /// then `target` drew `drawn`.
    Usurped {
        /// Whose hand.
        target: u8,
        /// The cards taken, in the order drawn.
        taken: Vec<CardId>,
        /// The card the target drew from its Candle, if any.
        drawn: Option<CardId>,
    },
    /// R8.37.1: The Watcher took these cards from each neighbour's hand.
    WatcherTaken {
        /// Each neighbour (`seat`) and the cards taken from its hand (`cards`).
        taken: Vec<SeatCards>,
    },
}

/// Cards moved from one seat: a Drain packet (R5.5.4) or what The Watcher took (R8.37.1).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCards {
    /// The seat the cards came from.
    pub seat: u8,
    /// The cards, in order.
    pub cards: Vec<CardId>,
}

/// A ghost removed by an action: R8.4.1's second ghost of a Cleanse, or one of a Purge (R5.6.3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Removed {
    /// The ghost.
    pub ghost: CardId,
    /// Siphoned (true) or not.
    pub siphoned: bool,
    /// R8.20.3: spread to this player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<u8>,
}

/// The creation event (R10.1.3): ruleset, settings, the deal and the first player.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameCreated {
    /// Ruleset id and version.
    pub ruleset: RulesetId,
    /// Settings (R10.11).
    pub settings: Settings,
    /// Every card instance of the pool, indexed by [`CardId`] (R10.3.1).
    pub pool: Vec<CardInstance>,
    /// R2.3, R10.2.1: each seat's Candle as dealt, top first (27 cards each).
    pub candles: Vec<Vec<CardId>>,
    /// R2.4: the surplus in the order placed face up; the last is the top of The Dark.
    pub dark: Vec<CardId>,
    /// R9.8.2: the surplus set aside face down instead (a later gathering stage); hidden
    /// until the game ends. Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<CardId>,
    /// R2.6: the first player, or `None` while the tiebreaker winner is asked.
    pub first_player: Option<u8>,
    /// Key for the card handles of views (R10.3.2). Drawn from the server's generator; it is
    /// not a seed of any game randomness and is never shown in a view during play.
    pub handle_key: [u64; 2],
    /// R10.13: a game started from a full position: the checked position with its card
    /// instances. `candles`, `dark` and `set_aside` are then empty and nobody draws a starting
    /// hand: the state is the position's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub position: Option<Box<crate::model::setup::Setup>>,
}

/// One event. Serialised with a `type` tag and a `payload` (see [`crate::replay`]).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum Event {
    /// R10.1.3, R2.2-R2.5: the game was created and dealt; each player drew their 3 starting cards.
    GameCreated(Box<GameCreated>),
    /// R2.6: the tiebreaker winner chose.
    TurnOrderChosen {
        /// The tiebreaker winner.
        seat: u8,
        /// The choice.
        choice: TurnOrder,
    },
    /// R4.1, R4.7, R7.9: a turn began; `guttering` lists the Guttering Burns (R7.9.3), in order.
    TurnStarted {
        /// The active player.
        seat: u8,
        /// The round number (R7.9.1).
        round: u16,
        /// Cards Burned by the Guttering, in the order they entered The Dark.
        guttering: Vec<CardId>,
    },
    /// R4.2.3: Reprieve with an Ace.
    Reprieved {
        /// The active player.
        seat: u8,
        /// The Ace, now in The Dark.
        ace: CardId,
    },
    /// R4.2.4: Endure: these cards were Burned.
    Endured {
        /// The active player.
        seat: u8,
        /// Burned cards in the order they entered The Dark.
        burned: Vec<CardId>,
    },
    /// R4.2.5: Panic against `ghost`.
    Panicked {
        /// The active player.
        seat: u8,
        /// The chosen ghost.
        ghost: CardId,
        /// The revealed top card of the Candle.
        revealed: CardId,
        /// What happened.
        outcome: PanicOutcome,
        /// R4.2.5(e): the Burns that followed.
        burned: Vec<CardId>,
    },
    /// R4.3: the active player drew the top card of their Candle.
    Drew {
        /// The active player.
        seat: u8,
        /// The card drawn.
        card: CardId,
    },
    /// R5.1.2-R5.1.3: an action was declared and its card moved to the Resolving area.
    ActionDeclared {
        /// The actor.
        actor: u8,
        /// The declaration.
        action: Action<CardId>,
    },
    /// R10.6.6: a private answer in a simultaneous window (Pass: `salt` is `None`).
    SaltAnswered {
        /// Who answered.
        seat: u8,
        /// The chosen 5, if Salting.
        salt: Option<CardId>,
    },
    /// R10.6.5: an answer to a sequential reaction prompt (Salt or BOO! Salt asked in turn, a
    /// confirm, a counter-Salt, a W1/W2 class reaction) at a table that holds its windows: it
    /// is kept, unseen by others, until the server closes the prompt (`CloseWindow` or
    /// `Timeout`), and only then takes effect.
    AnswerHeld {
        /// Who answered.
        seat: u8,
        /// The answer as given (cards named by the seat's handles).
        answer: crate::model::command::Answer,
    },
    /// R10.6.6: a simultaneous window stopped taking answers; the Salters are taken next (in a
    /// Salt window, after a failed exchange, every remaining eligible player is asked in turn).
    AnswersClosed,
    /// R6.5.4: a player passed when asked one at a time (a sequential window, or a simultaneous
    /// Salt window after a failed exchange), or withdrew at a confirm (R10.6.6).
    Passed {
        /// Who passed.
        seat: u8,
    },
    /// R6.5.5: a 5 was played (Salt, counter-Salt, re-Salt) into the Resolving area.
    Salted {
        /// Who played it.
        seat: u8,
        /// The 5.
        card: CardId,
    },
    /// R6.5.5: a side of an exchange yielded.
    Yielded {
        /// Who yielded.
        seat: u8,
    },
    /// R6.5.6-R6.5.7, R6.6.3: the Salt window is over and the action stands.
    WindowClosed,
    /// R6.5.6: a Salt stood: the action is cancelled; cleanup sends the Resolving area to The Dark.
    ActionCancelled {
        /// The actor.
        actor: u8,
        /// The player whose Salt stood.
        salter: u8,
    },
    /// R5.1.5-R5.1.6: the action resolved; then cleanup sent the Resolving area to The Dark.
    ActionResolved {
        /// The actor.
        actor: u8,
        /// What it did.
        effect: Effect,
    },
    /// R4.4.7: the Ritual ended (`abstained`: no action was declared this turn, R5.8).
    RitualEnded {
        /// The active player.
        seat: u8,
        /// True when no action was declared this turn.
        abstained: bool,
    },
    /// R4.5.2: cards discarded in the Burden, in the order chosen (the last ends on top).
    BurdenDiscarded {
        /// The active player.
        seat: u8,
        /// The cards.
        cards: Vec<CardId>,
    },
    /// R10.10.1: a player conceded; it takes effect by R10.10.2.
    ConcessionRequested {
        /// Who conceded.
        seat: u8,
    },
    /// R10.7.1: the deadline of the open decision point passed; the default answers of `seats`
    /// follow as the next events (for a simultaneous window, `seats` are the players that had not
    /// answered, who Pass). Shown during the game only to the timed-out players themselves
    /// (R10.6.4, R11.59); in the full record after the game.
    TimedOut {
        /// The players whose answer the deadline supplied, in seat order of the window.
        seats: Vec<u8>,
    },
    /// A6 Omen, A12.3: the OmenPlay choice: the `rest` of the revealed cards went to the bottom
    /// of the actor's Candle in the order revealed, then `play` (one revealed card's declaration,
    /// as if from the hand) began as an action with its own reactions; `None` when no revealed
    /// card could legally be played.
    OmenChosen {
        /// The actor.
        seat: u8,
        /// The declaration played.
        play: Option<Action<CardId>>,
        /// The other revealed cards, in the order revealed.
        rest: Vec<CardId>,
    },
    /// R7.4: the elimination procedure of `seat` began (placing fixed now, R7.4 step 2).
    EliminationStarted {
        /// The eliminated player.
        seat: u8,
        /// Why.
        cause: EliminationCause,
        /// R7.4 step 2: the number of players Lit just before.
        placing: u8,
    },
    /// R7.4 steps 3-6: the ghosts were split, the rest went out of play, the circle closed.
    Eliminated {
        /// The eliminated player.
        seat: u8,
        /// R7.5: ghosts given to each recipient, in E's entry order; left share first (R7.5.4).
        shares: Vec<(u8, Vec<CardId>)>,
        /// R7.4 step 5: hand, Candle, Wall and page cards put out of play.
        out_of_play: Vec<CardId>,
        /// A3.3: classic with `dark_mode` standard: every ghost went to The Dark, in entry order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        to_dark: Vec<CardId>,
        /// R7.4 step 4, R8.8.1: The Gravedigger that took E's remaining Candle (beneath its own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gravedigger: Option<(u8, Vec<CardId>)>,
    },
    /// R2.7: class selection begins (after the turn order is known). `bans_ignored`: R2.7.7.
    ClassSelectionStarted {
        /// R2.7.7: the ban list left fewer classes than players and is ignored.
        bans_ignored: bool,
    },
    /// R2.7.2: the classes offered to `seat`, in the recorded order (private to `seat`).
    ClassOffered {
        /// The picker.
        seat: u8,
        /// The offer.
        offer: Vec<crate::model::classes::ClassId>,
    },
    /// R2.7.3, R2.7.5: `seat` chose `class` (public at once).
    ClassChosen {
        /// The picker.
        seat: u8,
        /// The class.
        class: crate::model::classes::ClassId,
    },
    /// R6.3, R6.4, R6.7: a class reaction against the action in flight.
    Reacted {
        /// Who reacted.
        seat: u8,
        /// The reaction and its card.
        reaction: crate::model::classes::Reaction<CardId>,
    },
    /// An optional class prompt declined (GrimoireReject, HexReflect, MimeRedirect,
    /// UnseenCancel, ShadowCancel, WallBlock, MartyrDraw, TraderSwap). Hidden from others
    /// during the game, like a Pass (R10.6.3, R6.8).
    Declined {
        /// Who declined.
        seat: u8,
    },
    /// R5.9: a free ability was used; `effect` when it resolves at once, otherwise a
    /// resolution prompt follows (PlagueSpread, TraderSwap) and then `ability_resolved`.
    AbilityUsed {
        /// The owner.
        seat: u8,
        /// The ability and its declaration.
        ability: crate::model::classes::Ability<CardId>,
        /// The effect, when it resolved at once.
        effect: Option<crate::model::classes::AbilityEffect>,
    },
    /// R5.9: the free ability in progress resolved.
    AbilityResolved {
        /// The owner.
        seat: u8,
        /// What it did.
        effect: crate::model::classes::AbilityEffect,
    },
    /// R8.20.3 (prompt PlagueSpread): the remover chose where a live Plague ghost spreads.
    SpreadChosen {
        /// The remover.
        seat: u8,
        /// The ghost.
        ghost: CardId,
        /// The recipient.
        to: u8,
    },
    /// R6.9: a class trigger resolved.
    Triggered {
        /// The trigger's owner.
        owner: u8,
        /// What it did.
        effect: crate::model::classes::TriggerEffect,
    },
    /// R8.14.1: The Lich would be eliminated and revives instead (the revival is now used).
    RevivalStarted {
        /// The Lich.
        seat: u8,
        /// How it would have been eliminated.
        cause: EliminationCause,
    },
    /// R8.14.1 (a)-(c): the Lich's ghosts were split and each other Lit player gave it the top
    /// 2 cards of their Candle (to the bottom of The Lich's Candle, one at a time).
    Revived {
        /// The Lich.
        seat: u8,
        /// Ghost shares, as in `eliminated`.
        shares: Vec<(u8, Vec<CardId>)>,
        /// (player, cards given, top first), clockwise from The Lich's left.
        thefts: Vec<(u8, Vec<CardId>)>,
        /// A9 row 20, A3.3: classic with `dark_mode` standard: the ghosts went to The Dark, in
        /// entry order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        to_dark: Vec<CardId>,
    },
    /// R7.7, R7.9.4: the game ended.
    GameEnded {
        /// The winner, if any.
        winner: Option<u8>,
        /// Why it ended.
        reason: EndReason,
        /// Final placing of every seat (1 = best; equal values are shared placings).
        placings: Vec<u8>,
        /// R9.5: the players the circle sends on (its Last Lit); the winner alone when there is one.
        #[serde(default)]
        last_lit: Vec<u8>,
    },
}

/// Why a game ended.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// R7.7.1: exactly one player is Lit.
    LastLit,
    /// R7.9.4: round 2L + 1 would have begun.
    Guttered,
    /// R7.8.2-R7.8.4: two Lit players including The Witness (or The Witness alone): no winner.
    Witnessed,
}

impl Event {
    /// The `type` tag of the event as serialised.
    pub fn type_name(&self) -> &'static str {
        match self {
            Event::GameCreated(_) => "game_created",
            Event::TurnOrderChosen { .. } => "turn_order_chosen",
            Event::TurnStarted { .. } => "turn_started",
            Event::Reprieved { .. } => "reprieved",
            Event::Endured { .. } => "endured",
            Event::Panicked { .. } => "panicked",
            Event::Drew { .. } => "drew",
            Event::ActionDeclared { .. } => "action_declared",
            Event::SaltAnswered { .. } => "salt_answered",
            Event::AnswerHeld { .. } => "answer_held",
            Event::AnswersClosed => "answers_closed",
            Event::Passed { .. } => "passed",
            Event::Salted { .. } => "salted",
            Event::Yielded { .. } => "yielded",
            Event::WindowClosed => "window_closed",
            Event::ActionCancelled { .. } => "action_cancelled",
            Event::ActionResolved { .. } => "action_resolved",
            Event::RitualEnded { .. } => "ritual_ended",
            Event::BurdenDiscarded { .. } => "burden_discarded",
            Event::ConcessionRequested { .. } => "concession_requested",
            Event::TimedOut { .. } => "timed_out",
            Event::EliminationStarted { .. } => "elimination_started",
            Event::Eliminated { .. } => "eliminated",
            Event::OmenChosen { .. } => "omen_chosen",
            Event::GameEnded { .. } => "game_ended",
            Event::ClassSelectionStarted { .. } => "class_selection_started",
            Event::ClassOffered { .. } => "class_offered",
            Event::ClassChosen { .. } => "class_chosen",
            Event::Reacted { .. } => "reacted",
            Event::Declined { .. } => "declined",
            Event::AbilityUsed { .. } => "ability_used",
            Event::AbilityResolved { .. } => "ability_resolved",
            Event::SpreadChosen { .. } => "spread_chosen",
            Event::Triggered { .. } => "triggered",
            Event::RevivalStarted { .. } => "revival_started",
            Event::Revived { .. } => "revived",
        }
    }
}
