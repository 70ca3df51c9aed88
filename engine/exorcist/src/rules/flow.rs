//! What happens next in a game (R10.4.1: the state always says who must answer what): a
//! function of the state only, read by the prompts and by the decider's automatic steps.

use crate::model::state::{Ask, Stage, State};

/// The next step of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Not created yet.
    NotCreated,
    /// The game is over.
    Over,
    /// X3, X7.6: between rounds: end the game, start the mini-game, or deal a new round.
    BetweenRounds,
    /// X5.1, X7.2: a deal is due.
    Deal,
    /// X6.1: `seeker` selects (after a Hellish Hijinx! when `hijinx`, X9.12).
    Select {
        /// The Seeker.
        seeker: u8,
        /// The selection continues a Hijinx chain.
        hijinx: bool,
    },
    /// X9: an automatic effect is due.
    Auto,
    /// X12: an effect prompt for `seat`.
    Ask {
        /// Who answers.
        seat: u8,
        /// What.
        ask: Ask,
    },
    /// X6.3, X6.4: the turn ends.
    EndTurn,
    /// X7.4: the round ends.
    EndRound,
    /// X8.2: a mini-game row is laid.
    TieLay,
    /// X8.3: these players still have to pick.
    TiePick {
        /// The players who have not picked.
        waiting: Vec<u8>,
    },
    /// X8.4: every pick is in; the reveal is due (or waits for the platform's close, R10.6.5).
    TieReveal,
    /// X8.5: the mini-game has its winner.
    TieWon {
        /// The winner.
        winner: u8,
    },
    /// X8.6: 20 pick rounds without a winner: the winner is drawn.
    TieDraw,
}

/// X8.6: pick rounds after which the mini-game's winner is drawn.
pub const TIE_PICK_ROUNDS: u32 = 20;

/// The next step of `state`.
pub fn next(state: &State) -> Next {
    let Some(settings) = &state.settings else { return Next::NotCreated };
    if state.result.is_some() {
        return Next::Over;
    }
    if let Some(r) = &state.round {
        if let Some(t) = &r.turn {
            return match t.stage {
                Stage::Auto => Next::Auto,
                Stage::Done => Next::EndTurn,
                Stage::Ask(ask) => {
                    let seat = match ask {
                        Ask::TabletSeeker | Ask::Pazuzu => t.seeker,
                        _ => t.chosen,
                    };
                    Next::Ask { seat, ask }
                }
            };
        }
        if r.winner().is_some() {
            return Next::EndRound;
        }
        if !r.chain.is_empty() {
            return Next::Select { seeker: r.seeker, hijinx: true };
        }
        if r.deal == 0 || r.deal_revealed >= settings.players {
            return Next::Deal;
        }
        return Next::Select { seeker: r.seeker, hijinx: false };
    }
    if let Some(t) = &state.tie {
        if let Some(winner) = t.winner {
            return Next::TieWon { winner };
        }
        if t.pick_rounds >= TIE_PICK_ROUNDS {
            return Next::TieDraw;
        }
        if t.relay {
            return Next::TieLay;
        }
        let waiting: Vec<u8> = t.players.iter().copied().filter(|s| !t.picks.iter().any(|(p, _)| p == s)).collect();
        if waiting.is_empty() {
            return Next::TieReveal;
        }
        return Next::TiePick { waiting };
    }
    Next::BetweenRounds
}
