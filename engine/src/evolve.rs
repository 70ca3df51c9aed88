//! `evolve`: folds one event into the state (R10.1.1). Pure and total: it never draws a random
//! number (R10.2.2) and never reads a clock.

use crate::action::Action;
use crate::card::CardId;
use crate::event::{Effect, Event, PanicOutcome};
use crate::pool::STARTING_HAND;
use crate::state::{
    ActionFlow, ActionStage, Elimination, Exchange, GameResult, Ghost, HandleKey, PlayerState, SaltWindowState, State,
    Step,
};
use crate::window;

/// Folds `event` into `state` and returns it (R10.1.1).
pub fn evolve(mut state: State, event: &Event) -> State {
    apply(&mut state, event);
    state
}

/// Folds `event` into `state` in place.
pub fn apply(state: &mut State, event: &Event) {
    state.version += 1;
    // Events that change no decision point keep the prompt ids (R10.4.2): a private answer in a
    // simultaneous window, a concession request, a time-out mark (its default answer follows).
    if !matches!(event, Event::SaltAnswered { .. } | Event::ConcessionRequested { .. } | Event::TimedOut { .. }) {
        state.decision_opened_at = state.version;
    }
    match event {
        Event::GameCreated(g) => {
            let n = g.candles.len();
            state.ruleset = Some(g.ruleset.clone());
            state.settings = Some(g.settings.clone());
            state.pool = g.pool.clone();
            state.epochs = vec![0; g.pool.len()];
            state.handle_key = HandleKey(g.handle_key);
            state.players = g
                .candles
                .iter()
                .map(|c| PlayerState { candle: c.iter().copied().collect(), lit: true, ..Default::default() })
                .collect();
            state.dark = g.dark.clone();
            state.out_of_play = g.set_aside.clone();
            // R2.5: each player draws the top 3 cards of their Candle.
            for p in 0..n {
                for _ in 0..STARTING_HAND {
                    if let Some(c) = state.players[p].candle.pop_front() {
                        state.players[p].hand.push(c);
                    }
                }
            }
            state.first_player = g.first_player;
            state.step = match g.first_player {
                Some(seat) => Step::StartTurn { seat, round: 1 },
                None => match g.settings.first_player {
                    crate::settings::FirstPlayer::Ask { seat } => Step::TurnOrder { seat },
                    _ => Step::StartTurn { seat: 0, round: 1 },
                },
            };
        }
        Event::TurnOrderChosen { seat, choice } => {
            let first = match choice {
                crate::event::TurnOrder::First => *seat,
                crate::event::TurnOrder::Last => (*seat + 1) % state.n(),
            };
            state.first_player = Some(first);
            state.step = Step::StartTurn { seat: first, round: 1 };
        }
        Event::TurnStarted { seat, round, guttering } => {
            // R4.1.1: per-turn counters reset; R4.4.1: budget 1.
            state.turn.active = *seat;
            state.turn.round = *round;
            state.turn.budget = 1;
            state.turn.declared = 0;
            for &c in guttering {
                burn(state, *seat, c);
            }
            state.step = if state.ghost_count(*seat) > 0 { Step::Haunting } else { Step::Draw };
        }
        Event::Reprieved { seat, ace } => {
            remove_from_hand(state, *seat, *ace);
            to_dark(state, *ace);
            state.step = Step::Draw;
        }
        Event::Endured { seat, burned } => {
            for &c in burned {
                burn(state, *seat, c);
            }
            state.step = Step::Draw;
        }
        Event::Panicked { seat, ghost, revealed, outcome, burned } => {
            take_from_candle(state, *seat, *revealed);
            match outcome {
                PanicOutcome::Joker { siphoned } => {
                    remove_ghost(state, *seat, *ghost);
                    if *siphoned {
                        to_candle_bottom(state, *seat, *ghost);
                    } else {
                        to_dark(state, *ghost);
                    }
                    to_dark(state, *revealed);
                }
                PanicOutcome::Success => {
                    remove_ghost(state, *seat, *ghost);
                    to_dark(state, *ghost);
                    to_dark(state, *revealed);
                }
                PanicOutcome::Failure => {
                    add_ghost(state, *seat, *revealed, None);
                }
            }
            for &c in burned {
                burn(state, *seat, c);
            }
            state.step = Step::Draw;
        }
        Event::Drew { seat, card } => {
            take_from_candle(state, *seat, *card);
            to_hand(state, *seat, *card);
            state.step = Step::Ritual;
        }
        Event::ActionDeclared { actor, action } => {
            let card = *action.card();
            remove_from_hand(state, *actor, card);
            to_resolving(state, card);
            let first = state.turn.declared == 0;
            state.turn.declared += 1;
            state.turn.budget = state.turn.budget.saturating_sub(1);
            let window = window::open(state, *actor, action);
            state.step = Step::Action(Box::new(ActionFlow {
                actor: *actor,
                action: action.clone(),
                first,
                stage: ActionStage::Window(window),
            }));
        }
        Event::SaltAnswered { seat, salt } => {
            if let Some(w) = window_mut(state)
                && let Some(slot) = w.answers.iter_mut().find(|(s, _)| s == seat)
            {
                slot.1 = Some(*salt);
            }
        }
        Event::AnswersClosed => {
            // R10.6.6: every eligible player stays in the queue, clockwise; the cursor goes to
            // the first Salter (past the end when nobody Salted).
            if let Some(w) = window_mut(state) {
                w.open = false;
                w.queue = w.answers.iter().map(|(s, _)| *s).collect();
                w.cursor = w.answers.iter().position(|(_, a)| matches!(a, Some(Some(_)))).unwrap_or(w.queue.len());
            }
        }
        Event::Passed { seat } => {
            if let Some(w) = window_mut(state)
                && let Some(i) = w.queue.iter().position(|s| s == seat)
            {
                w.cursor = i + 1;
            }
        }
        Event::Salted { seat, card } => {
            remove_from_hand(state, *seat, *card);
            to_resolving(state, *card);
            let actor = state.flow().map(|f| f.actor);
            if let (Some(actor), Some(w)) = (actor, window_mut(state)) {
                match &mut w.exchange {
                    Some(x) => {
                        x.waiting = if *seat == actor { x.salter } else { actor };
                    }
                    None => {
                        // R6.5.5: a new exchange; the Salter's place in the queue is passed.
                        if let Some(i) = w.queue.iter().position(|s| s == seat) {
                            w.cursor = i + 1;
                        }
                        w.exchanges_run += 1;
                        w.exchange = Some(Exchange { salter: *seat, waiting: actor });
                    }
                }
            }
        }
        Event::Yielded { seat } => {
            let actor = state.flow().map(|f| f.actor);
            if let (Some(actor), Some(w)) = (actor, window_mut(state))
                && let Some(x) = w.exchange.take()
            {
                // R6.5.6: the last 5 decides. The actor yielding means the Salter's 5 was last.
                if *seat == actor {
                    if w.boo {
                        w.protected.push(x.salter);
                    } else {
                        w.stood = Some(x.salter);
                    }
                }
            }
        }
        Event::WindowClosed => {
            // R6.5.7: the window is over and the action stands; a resolution prompt may follow.
            let stage = state.flow().map(|f| {
                let protected = match &f.stage {
                    ActionStage::Window(w) => w.protected.clone(),
                    _ => Vec::new(),
                };
                match &f.action {
                    Action::Sight { target, .. } if state.players[*target as usize].hand.len() > 2 => {
                        ActionStage::SightPick { target: *target }
                    }
                    // R10.4.3: only the size of The Dark is public, so the caster is asked
                    // whenever it holds a card, even if no card (or one) is eligible.
                    Action::Medium { mode: crate::action::MediumMode::Search, .. } if !state.dark.is_empty() => {
                        ActionStage::MediumPick
                    }
                    _ => ActionStage::Ready { protected },
                }
            });
            if let (Some(stage), Some(f)) = (stage, state.flow_mut()) {
                f.stage = stage;
            }
        }
        Event::ActionCancelled { actor, .. } => {
            cleanup(state);
            end_action(state, *actor, true);
        }
        Event::ActionResolved { actor, effect } => {
            let boo_salt_stood = matches!(
                state.flow().map(|f| &f.stage),
                Some(ActionStage::Ready { protected }) if !protected.is_empty()
            );
            let greed_first = matches!(state.flow(), Some(f) if f.first && matches!(f.action, Action::Greed { .. }));
            apply_effect(state, *actor, effect);
            cleanup(state);
            if greed_first {
                // R4.4.4: Greed's extra action.
                state.turn.budget += 1;
            }
            // R6.6.3: a Salt that stood against BOO! ends the Ritual after it resolved.
            end_action(state, *actor, boo_salt_stood);
        }
        Event::RitualEnded { seat, .. } => {
            state.turn.budget = 0;
            state.step = after_ritual(state, *seat);
        }
        Event::BurdenDiscarded { seat, cards } => {
            for &c in cards {
                remove_from_hand(state, *seat, c);
                to_dark(state, c);
            }
            state.step = Step::AmIAlive;
        }
        Event::ConcessionRequested { seat } => {
            if !state.conceding.contains(seat) {
                state.conceding.push(*seat);
            }
        }
        // R10.7.1: only a mark; the default answers that follow change the state.
        Event::TimedOut { .. } => {}
        Event::EliminationStarted { seat, cause, placing } => {
            state.conceding.retain(|s| s != seat);
            state.players[*seat as usize].placing = Some(*placing);
            // Between turns (or before the first) nobody is in the middle of a turn.
            let between_turns = matches!(state.step, Step::StartTurn { .. } | Step::PassTurn | Step::TurnOrder { .. });
            let was_active = state.turn.active == *seat && !between_turns;
            let current = std::mem::take(&mut state.step);
            let resume = if was_active { Step::PassTurn } else { current };
            state.step = Step::Eliminating(Box::new(Elimination { seat: *seat, cause: *cause, resume }));
        }
        Event::Eliminated { seat, shares, out_of_play } => {
            let e = *seat;
            for (to, ghosts) in shares {
                for &g in ghosts {
                    if let Some(rec) = take_ghost(state, e, g) {
                        bump(state, g);
                        state.players[*to as usize].shadow.push(rec);
                    }
                }
            }
            for &c in out_of_play {
                let p = &mut state.players[e as usize];
                if let Some(i) = p.hand.iter().position(|&x| x == c) {
                    p.hand.remove(i);
                } else if let Some(i) = p.candle.iter().position(|&x| x == c) {
                    p.candle.remove(i);
                }
                bump(state, c);
                state.out_of_play.push(c);
            }
            // R7.4 step 6: the circle closes.
            state.players[e as usize].lit = false;
            state.eliminated.push(e);
            let resume = match std::mem::take(&mut state.step) {
                Step::Eliminating(el) => el.resume,
                other => other,
            };
            state.step = resume;
        }
        Event::GameEnded { winner, reason, placings, last_lit } => {
            for (p, &pl) in state.players.iter_mut().zip(placings) {
                p.placing = Some(pl);
            }
            state.result = Some(GameResult {
                winner: *winner,
                reason: *reason,
                placings: placings.clone(),
                last_lit: last_lit.clone(),
            });
            state.step = Step::Finished;
        }
    }
}

fn window_mut(state: &mut State) -> Option<&mut SaltWindowState> {
    match state.flow_mut().map(|f| &mut f.stage) {
        Some(ActionStage::Window(w)) => Some(w),
        _ => None,
    }
}

/// After an action: back to the Ritual, or (R4.4.5) straight on when a Salt ended it.
fn end_action(state: &mut State, actor: u8, ends_ritual: bool) {
    if ends_ritual && actor == state.turn.active {
        // R4.4.5: the Ritual ends at once.
        state.turn.budget = 0;
        state.step = after_ritual(state, actor);
    } else {
        state.step = Step::Ritual;
    }
}

/// R4.5: the Burden prompt only when the hand exceeds the limit; otherwise Am I Alive?.
fn after_ritual(state: &State, seat: u8) -> Step {
    if state.players[seat as usize].hand.len() > crate::hooks::hand_limit(state, seat) {
        Step::Burden
    } else {
        Step::AmIAlive
    }
}

fn apply_effect(state: &mut State, actor: u8, effect: &Effect) {
    let card = state.flow().map(|f| *f.action.card());
    match effect {
        Effect::Haunted { target } => {
            // R5.2: the Haunt card leaves the Resolving area as a ghost; haunter = actor.
            if let Some(c) = card {
                remove_from_resolving(state, c);
                add_ghost(state, *target, c, Some(actor));
            }
        }
        Effect::Banished { ghost, siphoned } | Effect::Cleansed { ghost, siphoned } => {
            remove_ghost(state, actor, *ghost);
            if *siphoned {
                to_candle_bottom(state, actor, *ghost);
            } else {
                to_dark(state, *ghost);
            }
        }
        Effect::Greed { target, drawn } => {
            for &c in drawn {
                take_from_candle(state, *target, c);
                to_hand(state, *target, c);
            }
        }
        Effect::Scared { target, discarded } => {
            for &c in discarded {
                remove_from_hand(state, *target, c);
                to_dark(state, c);
            }
        }
        Effect::Drained { packets } => {
            for (from, packet) in packets {
                for &c in packet {
                    take_from_candle(state, *from, c);
                    bump(state, c);
                }
                // R5.5.4: the packet keeps its order and goes on top of the actor's Candle.
                let candle = &mut state.players[actor as usize].candle;
                for &c in packet.iter().rev() {
                    candle.push_front(c);
                }
            }
        }
        Effect::SightTaken { target, taken } => {
            for &c in taken {
                remove_from_hand(state, *target, c);
                to_hand(state, actor, c);
            }
            // R10.3.2: the cards the actor saw and left get fresh handles.
            let seen: Vec<CardId> = state.players[*target as usize].hand.clone();
            for c in seen {
                bump(state, c);
            }
        }
        Effect::Recalled { owner, ghost } => {
            remove_ghost(state, *owner, *ghost);
            to_hand(state, actor, *ghost);
        }
        Effect::Possessed { ghost, destination } => {
            if let Some(rec) = take_ghost(state, actor, *ghost) {
                bump(state, *ghost);
                state.players[*destination as usize].shadow.push(rec);
            }
        }
        Effect::Rekindled { taken, candle } | Effect::MediumDepths { taken, candle } => {
            for &c in taken {
                remove_from_dark(state, c);
            }
            let p = &mut state.players[actor as usize];
            p.candle = candle.iter().copied().collect();
            for &c in candle {
                bump(state, c);
            }
        }
        Effect::Mirrored { target } => {
            let a = std::mem::take(&mut state.players[actor as usize].shadow);
            let b = std::mem::take(&mut state.players[*target as usize].shadow);
            for g in a.iter().chain(b.iter()) {
                bump(state, g.card);
            }
            state.players[actor as usize].shadow = b;
            state.players[*target as usize].shadow = a;
        }
        Effect::MediumSearched { taken } => {
            if let Some(c) = taken {
                remove_from_dark(state, *c);
                to_hand(state, actor, *c);
            }
        }
        Effect::Purged { removed } => {
            for &(g, siphoned) in removed {
                remove_ghost(state, actor, g);
                if siphoned {
                    to_candle_bottom(state, actor, g);
                } else {
                    to_dark(state, g);
                }
            }
        }
        Effect::Boo { reveals } => {
            for r in reveals {
                for &c in &r.to_dark {
                    take_from_candle(state, r.seat, c);
                    to_dark(state, c);
                }
                if let Some(g) = r.ghost {
                    take_from_candle(state, r.seat, g);
                    add_ghost(state, r.seat, g, None);
                }
            }
        }
    }
}

/// R5.1.6: every card left in the Resolving area goes to The Dark in entry order.
fn cleanup(state: &mut State) {
    let cards = std::mem::take(&mut state.resolving);
    for c in cards {
        to_dark(state, c);
    }
}

pub(crate) fn bump(state: &mut State, c: CardId) {
    state.epochs[c.0 as usize] = state.epochs[c.0 as usize].wrapping_add(1);
}

fn to_dark(state: &mut State, c: CardId) {
    bump(state, c);
    state.dark.push(c);
}

fn to_resolving(state: &mut State, c: CardId) {
    bump(state, c);
    state.resolving.push(c);
}

fn to_hand(state: &mut State, seat: u8, c: CardId) {
    bump(state, c);
    state.players[seat as usize].hand.push(c);
}

fn to_candle_bottom(state: &mut State, seat: u8, c: CardId) {
    bump(state, c);
    state.players[seat as usize].candle.push_back(c);
}

fn add_ghost(state: &mut State, seat: u8, c: CardId, haunter: Option<u8>) {
    bump(state, c);
    let suit = state.face(c).suit;
    state.players[seat as usize].shadow.push(Ghost { card: c, haunter, suit });
}

/// R0.7: the top card of the Candle to The Dark.
fn burn(state: &mut State, seat: u8, c: CardId) {
    take_from_candle(state, seat, c);
    to_dark(state, c);
}

fn take_from_candle(state: &mut State, seat: u8, c: CardId) {
    let candle = &mut state.players[seat as usize].candle;
    if candle.front() == Some(&c) {
        candle.pop_front();
    } else if let Some(i) = candle.iter().position(|&x| x == c) {
        candle.remove(i);
    }
}

fn remove_from_hand(state: &mut State, seat: u8, c: CardId) {
    let hand = &mut state.players[seat as usize].hand;
    if let Some(i) = hand.iter().position(|&x| x == c) {
        hand.remove(i);
    }
}

fn remove_from_resolving(state: &mut State, c: CardId) {
    if let Some(i) = state.resolving.iter().position(|&x| x == c) {
        state.resolving.remove(i);
    }
}

fn remove_from_dark(state: &mut State, c: CardId) {
    if let Some(i) = state.dark.iter().rposition(|&x| x == c) {
        state.dark.remove(i);
    }
}

fn take_ghost(state: &mut State, seat: u8, c: CardId) -> Option<Ghost> {
    let shadow = &mut state.players[seat as usize].shadow;
    shadow.iter().position(|g| g.card == c).map(|i| shadow.remove(i))
}

fn remove_ghost(state: &mut State, seat: u8, c: CardId) {
    take_ghost(state, seat, c);
}
