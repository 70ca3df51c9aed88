//! `evolve`: folds one event into the state (R10.1.1). Pure and total: it never draws a random
//! number (R10.2.2) and never reads a clock.

use crate::model::action::Action;
use crate::model::card::CardId;
use crate::model::classes::{Ability, AbilityEffect, Reaction, TriggerEffect};
use crate::rules::classes::reactions;
use crate::rules::classes::triggers;
use crate::rules::classes::{selection, triggers as trig};

use crate::model::event::{Effect, Event, PanicOutcome, Removed, SeatCards};
use crate::model::state::{
    AbilityFlow, AbilityStage, ActionFlow, ActionStage, Elimination, Exchange, GameResult, Ghost, HandleKey,
    PlayerState, Redirect, SaltWindowState, Selection, State, Step, Wall,
};

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
    if !matches!(
        event,
        Event::SaltAnswered { .. }
            | Event::ConcessionRequested { .. }
            | Event::TimedOut { .. }
            | Event::AnswerHeld { .. }
    ) {
        state.decision_opened_at = state.version;
    }
    // R10.6.5: a held answer lasts until the events of its prompt's close.
    if !matches!(event, Event::AnswerHeld { .. } | Event::ConcessionRequested { .. } | Event::TimedOut { .. }) {
        state.held = None;
    }
    // R8.25.1: The Seer's peek lasts for the event that shows it only.
    state.peek = None;
    match event {
        Event::GameCreated(g) => {
            let n = g.candles.len();
            state.ruleset = Some(g.ruleset.clone());
            state.rules = crate::model::edition::Rules::of(&g.ruleset);
            state.settings = Some(g.settings.clone());
            state.pool = g.pool.clone();
            state.epochs = vec![0; g.pool.len()];
            state.handle_key = HandleKey(g.handle_key);
            state.players = g
                .candles
                .iter()
                .map(|c| PlayerState { candle: c.iter().copied().collect(), lit: true, ..Default::default() })
                .collect();
            // R9.8.4: fixed classes (later gathering stages) need no selection.
            if let (true, Some(sc)) = (g.settings.classes, &g.settings.seat_classes) {
                for (p, c) in state.players.iter_mut().zip(sc) {
                    p.class = Some(*c);
                }
            }
            state.dark = g.dark.clone();
            state.out_of_play = g.set_aside.clone();
            // R2.5, A2.4: each player draws the top 3 (classic: 5) cards of their Candle.
            let starting_hand = state.rules().starting_hand();
            for p in 0..n {
                for _ in 0..starting_hand {
                    if let Some(c) = state.players[p].candle.pop_front() {
                        state.players[p].hand.push(c);
                    }
                }
            }
            state.first_player = g.first_player;
            state.step = match g.first_player {
                Some(seat) => selection::after_turn_order(&g.settings, seat),
                None => match g.settings.first_player {
                    crate::model::settings::FirstPlayer::Ask { seat } => Step::TurnOrder { seat },
                    _ => Step::StartTurn { seat: 0, round: 1 },
                },
            };
            // R10.13: a game started from a full position is in that position.
            if let Some(setup) = &g.position {
                crate::rules::position::import::apply_setup(state, setup);
            }
        }
        Event::TurnOrderChosen { seat, choice } => {
            let first = match choice {
                crate::model::event::TurnOrder::First => *seat,
                crate::model::event::TurnOrder::Last => (*seat + 1) % state.n(),
            };
            state.first_player = Some(first);
            state.step = selection::after_turn_order(state.settings_ref(), first);
        }
        Event::TurnStarted { seat, round, guttering } => {
            // R4.1.1: per-turn counters reset; R4.4.1: budget 1.
            state.turn.active = *seat;
            state.turn.round = *round;
            state.turn.budget = 1;
            state.turn.declared = 0;
            state.turn.free_used = false;
            state.turn.bonus_used = false;
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
            state.step = trig::after_haunting(state, *seat, !burned.is_empty(), false);
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
            state.step = trig::after_haunting(state, *seat, !burned.is_empty(), false);
        }
        Event::Drew { seat, card } => {
            take_from_candle(state, *seat, *card);
            to_hand(state, *seat, *card);
            state.step = Step::Ritual;
        }
        Event::ActionDeclared { actor, action } => declare(state, *actor, action),
        Event::SaltAnswered { seat, salt } => {
            if let Some(w) = window_mut(state)
                && let Some(slot) = w.answers.iter_mut().find(|(s, _)| s == seat)
            {
                // R10.6.6: a different answer after the first counts as a change.
                if slot.1.is_some_and(|a| a != *salt) {
                    match w.changes.iter_mut().find(|(s, _)| s == seat) {
                        Some((_, n)) => *n = n.saturating_add(1),
                        None => w.changes.push((*seat, 1)),
                    }
                }
                slot.1 = Some(*salt);
            }
        }
        Event::AnswerHeld { seat, answer } => state.held = Some((*seat, answer.clone())),
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
            let actor = state.flow().map(|f| f.window_actor());
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
            let actor = state.flow().map(|f| f.window_actor());
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
                let pending = spread_choices(state, f);
                match &f.action {
                    _ if !pending.is_empty() => ActionStage::Spread { pending, chosen: Vec::new() },
                    Action::Scare { target, .. }
                        if crate::rules::classes::passives::sadist_chooses(state, f.actor)
                            && state.players[*target as usize].hand.len() > 2 =>
                    {
                        ActionStage::SadistPick { target: *target }
                    }
                    Action::Sight { target, .. }
                        if state.players[*target as usize].hand.len() > state.rules().sight_takes() =>
                    {
                        ActionStage::SightPick { target: *target }
                    }
                    Action::WatcherSight { .. } => {
                        let targets = crate::rules::classes::ritual::watcher_targets(state, f.actor);
                        if targets.iter().any(|&t| !state.players[t as usize].hand.is_empty()) {
                            ActionStage::WatcherPick { targets }
                        } else {
                            ActionStage::Ready { protected }
                        }
                    }
                    // R10.4.3: only the size of The Dark is public, so the caster is asked
                    // whenever it holds a card, even if no card (or one) is eligible.
                    Action::Medium { mode: crate::model::action::MediumMode::Search, .. } if !state.dark.is_empty() => {
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
            // R6.7.4: a Salt standing against a redirect leaves the ghost with The Mime (haunter
            // X); X's Ritual continues (R6.7.5).
            let redirect = state.flow().and_then(|f| f.redirect.clone().map(|r| (r, f.action.card().copied())));
            if let Some((r, Some(card))) = redirect {
                remove_from_resolving(state, card);
                add_ghost(state, r.mime, card, Some(*actor));
                cleanup(state);
                end_action(state, *actor, false);
            } else {
                cleanup(state);
                end_action(state, *actor, true);
            }
        }
        Event::ActionResolved { actor, effect } => {
            let boo_salt_stood = matches!(
                state.flow().map(|f| &f.stage),
                Some(ActionStage::Ready { protected }) if !protected.is_empty()
            );
            // R4.4.4; A4.3: no extra action in classic.
            let greed_first = state.rules().greed_extra_action()
                && matches!(state.flow(), Some(f) if f.first && matches!(f.action, Action::Greed { .. }));
            apply_effect(state, *actor, effect);
            if let Effect::OmenRevealed { revealed } = effect {
                // A6 Omen: the revealed cards wait face up for the OmenPlay choice.
                if let Some(f) = state.flow_mut() {
                    f.stage = ActionStage::OmenPlay { revealed: revealed.clone() };
                }
                return;
            }
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
            selection::skip_conceder(state, *seat);
        }
        // R10.7.1: only a mark; the default answers that follow change the state.
        Event::TimedOut { .. } => {}
        Event::OmenChosen { seat, play, rest } => {
            // A6 Omen: the other revealed cards go to the bottom of the Candle in the order
            // revealed, before the chosen play begins.
            for &c in rest {
                remove_from_resolving(state, c);
                to_candle_bottom(state, *seat, c);
            }
            match play {
                Some(a) => declare(state, *seat, a),
                None => {
                    // A12.3: nothing could be played: the Omen is over.
                    cleanup(state);
                    end_action(state, *seat, false);
                }
            }
        }
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
        Event::Eliminated { seat, shares, out_of_play, gravedigger, to_dark: ghosts_to_dark } => {
            let e = *seat;
            move_shares(state, e, shares);
            // A3.3: classic standard: the ghosts go to The Dark in entry order.
            for &g in ghosts_to_dark {
                remove_ghost(state, e, g);
                to_dark(state, g);
            }
            // R7.4 step 4, R8.8.1: The Gravedigger takes the Candle beneath its own.
            if let Some((g, cards)) = gravedigger {
                for &c in cards {
                    take_from_candle(state, e, c);
                    to_candle_bottom(state, *g, c);
                }
            }
            for &c in out_of_play {
                let p = &mut state.players[e as usize];
                if let Some(i) = p.hand.iter().position(|&x| x == c) {
                    p.hand.remove(i);
                } else if let Some(i) = p.candle.iter().position(|&x| x == c) {
                    p.candle.remove(i);
                } else if let Some(i) = p.walls.iter().position(|w| w.card == c) {
                    p.walls.remove(i);
                } else if let Some(i) = p.pages.iter().position(|&x| x == c) {
                    p.pages.remove(i);
                }
                bump(state, c);
                state.out_of_play.push(c);
            }
            // R7.4 step 7: death triggers, decided while E still has its neighbours (R7.4.1).
            let pending = triggers::death_triggers(state, e);
            state.pending_triggers.extend(pending);
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
        Event::ClassSelectionStarted { bans_ignored } => {
            state.selection =
                Some(Selection { order: selection::order(state), bans_ignored: *bans_ignored, offer: None });
            if state.selection.as_ref().is_some_and(|s| s.order.is_empty()) {
                selection::next_pick(state);
            }
        }
        Event::ClassOffered { offer, .. } => {
            if let Some(sel) = &mut state.selection {
                sel.offer = Some(offer.clone());
            }
        }
        Event::ClassChosen { seat, class } => {
            state.players[*seat as usize].class = Some(*class);
            selection::next_pick(state);
        }
        Event::Reacted { seat, reaction } => apply_reaction(state, *seat, reaction),
        Event::Declined { seat } => apply_decline(state, *seat),
        Event::AbilityUsed { seat, ability, effect } => {
            let seat = *seat;
            match ability {
                Ability::Mimic { .. } => state.players[seat as usize].once_used = true,
                _ => state.turn.free_used = true,
            }
            match ability {
                Ability::GrimoirePage { card } => {
                    // R5.9.3, R8.9.1: straight from the hand into the pages, face down.
                    remove_from_hand(state, seat, *card);
                    bump(state, *card);
                    state.players[seat as usize].pages.push(*card);
                }
                a => {
                    if let Some(&c) = a.card() {
                        remove_from_hand(state, seat, c);
                        to_resolving(state, c);
                    }
                }
            }
            match effect {
                Some(eff) => {
                    apply_ability(state, seat, eff);
                    cleanup(state);
                }
                None => {
                    let stage = match ability {
                        Ability::Trader { target, .. } => AbilityStage::TraderSwap { target: *target },
                        _ => AbilityStage::Spread,
                    };
                    state.step = Step::Ability(Box::new(AbilityFlow { seat, ability: ability.clone(), stage }));
                }
            }
        }
        Event::AbilityResolved { seat, effect } => {
            apply_ability(state, *seat, effect);
            cleanup(state);
            state.step = Step::Ritual;
        }
        Event::SpreadChosen { ghost, to, .. } => {
            if let Some(f) = state.flow_mut()
                && let ActionStage::Spread { pending, chosen } = &mut f.stage
            {
                chosen.push((*ghost, *to));
                f.spreads.push((*ghost, *to));
                if chosen.len() >= pending.len() {
                    let st = ready_stage(state);
                    if let Some(f) = state.flow_mut() {
                        f.stage = st;
                    }
                }
            }
        }
        Event::Triggered { owner, effect } => apply_trigger(state, *owner, effect),
        Event::RevivalStarted { seat, cause } => {
            state.players[*seat as usize].once_used = true;
            // R8.14.2: at The Draw it draws again from its new Candle; at Am I Alive? its turn
            // ends normally.
            let resume = if matches!(state.step, Step::Draw) { Step::Draw } else { Step::PassTurn };
            state.step = Step::Reviving(Box::new(Elimination { seat: *seat, cause: *cause, resume }));
        }
        Event::Revived { seat, shares, thefts, to_dark: ghosts_to_dark } => {
            move_shares(state, *seat, shares);
            for &g in ghosts_to_dark {
                remove_ghost(state, *seat, g);
                to_dark(state, g);
            }
            for (from, cards) in thefts {
                for &c in cards {
                    take_from_candle(state, *from, c);
                    to_candle_bottom(state, *seat, c);
                }
            }
            state.step = match std::mem::take(&mut state.step) {
                Step::Reviving(el) => el.resume,
                other => other,
            };
        }
    }
}

/// R7.5.4, R8.14.1(a): the shares of a split move in order, each ghost keeping its record.
fn move_shares(state: &mut State, e: u8, shares: &[(u8, Vec<CardId>)]) {
    for (to, ghosts) in shares {
        for &g in ghosts {
            if let Some(rec) = take_ghost(state, e, g) {
                bump(state, g);
                put_ghost(state, *to, rec);
            }
        }
    }
}

/// R8.20.3: the live Plague ghosts that an action standing now will remove without Siphon and
/// whose spread needs the remover's choice (two eligible recipients), in removal order.
fn spread_choices(state: &State, f: &ActionFlow) -> Vec<CardId> {
    let removal = crate::rules::resolve::removal_plan(state, f.actor, &f.action);
    removal
        .into_iter()
        .filter(|(_, siphoned)| !siphoned)
        .filter_map(|(c, _)| state.players[f.actor as usize].shadow.iter().find(|g| g.card == c))
        .filter(|g| triggers::spread_recipients(state, f.actor, g).len() == 2)
        .map(|g| g.card)
        .collect()
}

/// The stage after the spread choices: a resolution prompt, or ready.
fn ready_stage(state: &State) -> ActionStage {
    match state.flow().map(|f| &f.action) {
        Some(Action::Sight { target, .. })
            if state.players[*target as usize].hand.len() > state.rules().sight_takes() =>
        {
            ActionStage::SightPick { target: *target }
        }
        _ => ActionStage::Ready { protected: Vec::new() },
    }
}

/// R6.3, R6.4, R6.7: folds a class reaction.
fn apply_reaction(state: &mut State, seat: u8, reaction: &Reaction<CardId>) {
    let Some(flow) = state.flow() else { return };
    let actor = flow.actor;
    let haunt_card = flow.action.card().copied();
    match reaction {
        Reaction::GrimoireReject { page } => {
            // R6.3.2: X's card, then the page, go to The Dark; the Ritual continues (R4.4.6).
            let p = &mut state.players[seat as usize].pages;
            p.retain(|c| c != page);
            to_resolving(state, *page);
            cleanup(state);
            end_action(state, actor, false);
        }
        Reaction::HexReflect { card } => {
            // R8.10.2: the Haunt card enters X's own Shadow with haunter X.
            remove_from_hand(state, seat, *card);
            to_resolving(state, *card);
            if let Some(h) = haunt_card {
                remove_from_resolving(state, h);
                add_ghost(state, actor, h, Some(actor));
            }
            cleanup(state);
            end_action(state, actor, false);
        }
        Reaction::MimeRedirect { card } => {
            remove_from_hand(state, seat, *card);
            to_resolving(state, *card);
            let target = reactions::mime_other(state, seat, actor).unwrap_or(actor);
            if let Some(f) = state.flow_mut() {
                f.redirect = Some(Redirect { mime: seat, target });
            }
            let stage = state.flow().map(|f| reactions::after_w1(state, f));
            if let (Some(st), Some(f)) = (stage, state.flow_mut()) {
                f.stage = st;
            }
        }
        Reaction::UnseenCancel { card } => {
            // R6.4.3: the Haunt card, then the discard, to The Dark.
            remove_from_hand(state, seat, *card);
            to_resolving(state, *card);
            cleanup(state);
            end_action(state, actor, false);
        }
        Reaction::ShadowCancel { burned } => {
            // R6.4.4: the burned card reaches The Dark first, then the Haunt card.
            burn(state, seat, *burned);
            cleanup(state);
            end_action(state, actor, false);
        }
        Reaction::WallBlock { wall } => {
            // R6.4.5: the Wall enters the Resolving area face up; the Haunt card, then the Wall.
            state.players[seat as usize].walls.retain(|w| w.card != *wall);
            to_resolving(state, *wall);
            cleanup(state);
            end_action(state, actor, false);
        }
    }
}

/// A declined optional class prompt: the window moves on, or the turn goes on.
fn apply_decline(state: &mut State, seat: u8) {
    match &state.step {
        Step::Martyr => state.step = Step::Draw,
        Step::Ability(_) => {
            // R8.31.1: The Trader declines the swap.
            let target = match &state.step {
                Step::Ability(a) => match a.stage {
                    AbilityStage::TraderSwap { target } => target,
                    _ => seat,
                },
                _ => seat,
            };
            apply_ability(state, seat, &AbilityEffect::Traded { target, swap: None });
            cleanup(state);
            state.step = Step::Ritual;
        }
        _ => {
            let next = state.flow().map(|f| match &f.stage {
                ActionStage::Grimoire { queue } if queue.len() > 1 => {
                    ActionStage::Grimoire { queue: queue[1..].to_vec() }
                }
                ActionStage::Grimoire { .. } => reactions::after_w1(state, f),
                _ => reactions::salt_stage(state, f),
            });
            if let (Some(st), Some(f)) = (next, state.flow_mut()) {
                f.stage = st;
            }
        }
    }
}

/// R5.9: folds the effect of a free ability (its card already lies in the Resolving area).
fn apply_ability(state: &mut State, seat: u8, effect: &AbilityEffect) {
    match effect {
        AbilityEffect::Doomread { ghost, spread } => {
            // R8.3.1: never Siphoned; spread or The Dark, below the discard.
            if let Some(rec) = take_ghost(state, seat, *ghost) {
                bump(state, *ghost);
                match spread {
                    Some(to) => put_ghost(state, *to, rec),
                    None => state.dark.push(*ghost),
                }
            }
        }
        AbilityEffect::PageAdded | AbilityEffect::Peeked { .. } => {
            if let AbilityEffect::Peeked { card: Some(c), .. } = effect {
                state.peek = Some((seat, *c));
            }
        }
        AbilityEffect::CandlesSwapped { target } => {
            let a = std::mem::take(&mut state.players[seat as usize].candle);
            let b = std::mem::take(&mut state.players[*target as usize].candle);
            for &c in a.iter().chain(b.iter()) {
                bump(state, c);
            }
            state.players[seat as usize].candle = b;
            state.players[*target as usize].candle = a;
        }
        AbilityEffect::Burned { target, burned } => {
            for &c in burned {
                burn(state, *target, c);
            }
        }
        AbilityEffect::Traded { target, swap } => {
            if let Some((give, take)) = swap {
                remove_from_hand(state, seat, *give);
                remove_from_hand(state, *target, *take);
                to_hand(state, *target, *give);
                to_hand(state, seat, *take);
            }
            // R10.3.2: the hand The Trader saw gets fresh handles.
            let seen: Vec<CardId> = state.players[*target as usize].hand.clone();
            for c in seen {
                bump(state, c);
            }
        }
    }
}

/// R6.9: folds a class trigger.
fn apply_trigger(state: &mut State, owner: u8, effect: &TriggerEffect) {
    match effect {
        TriggerEffect::Voodoo { burns } => {
            for (h, cards) in burns {
                for &c in cards {
                    burn(state, *h, c);
                }
            }
            let seat = state.turn.active;
            state.step = trig::after_haunting(state, seat, true, true);
        }
        TriggerEffect::MartyrDraw { card } => {
            take_from_candle(state, owner, *card);
            to_hand(state, owner, *card);
            state.step = Step::Draw;
        }
        TriggerEffect::Vulture { taken, candle, .. } => {
            if !state.pending_triggers.is_empty() {
                state.pending_triggers.remove(0);
            }
            for &c in taken {
                remove_from_dark(state, c);
                to_candle_bottom(state, owner, c);
            }
            // A9 row 10: the classic Vulture's Candle, shuffled.
            if let Some(candle) = candle {
                state.players[owner as usize].candle = candle.iter().copied().collect();
                for &c in candle {
                    bump(state, c);
                }
            }
        }
        TriggerEffect::FuneralBell { burns, .. } => {
            if !state.pending_triggers.is_empty() {
                state.pending_triggers.remove(0);
            }
            for (s, cards) in burns {
                for &c in cards {
                    burn(state, *s, c);
                }
            }
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
/// R5.1.3: a declaration: its card leaves the hand for the Resolving area (a card an Omen
/// revealed is there already, A6), the budget drops, and the first reaction stage opens.
fn declare(state: &mut State, actor: u8, action: &Action<CardId>) {
    if let Some(&card) = action.card() {
        remove_from_hand(state, actor, card);
        if !state.resolving.contains(&card) {
            to_resolving(state, card);
        }
    }
    let first = state.turn.declared == 0;
    state.turn.declared += 1;
    state.turn.budget = state.turn.budget.saturating_sub(1);
    let mut flow = ActionFlow {
        actor,
        action: action.clone(),
        first,
        stage: ActionStage::Ready { protected: Vec::new() },
        redirect: None,
        spreads: Vec::new(),
    };
    // R6.2: W1, then W2, then W3.
    flow.stage = reactions::first_stage(state, &flow);
    state.step = Step::Action(Box::new(flow));
}

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
    if state.players[seat as usize].hand.len() > crate::rules::hooks::hand_limit(state, seat) {
        Step::Burden
    } else {
        Step::AmIAlive
    }
}

fn apply_effect(state: &mut State, actor: u8, effect: &Effect) {
    let card = state.flow().and_then(|f| f.action.card().copied());
    match effect {
        Effect::Haunted { target } => {
            // R5.2: the Haunt card leaves the Resolving area as a ghost; haunter = actor.
            if let Some(c) = card {
                remove_from_resolving(state, c);
                add_ghost(state, *target, c, Some(actor));
            }
        }
        Effect::Banished { ghost, siphoned, spread, priest } => {
            // R8.21.1: The Priest's card first, before the ghost moves; A9 row 2 (classic): drawn
            // from its Candle after the Banish.
            if state.rules().classic() {
                remove_one(state, actor, *ghost, *siphoned, *spread);
                if let Some(p) = priest {
                    take_from_candle(state, actor, *p);
                    to_hand(state, actor, *p);
                }
            } else {
                if let Some(p) = priest {
                    remove_from_dark(state, *p);
                    to_hand(state, actor, *p);
                }
                remove_one(state, actor, *ghost, *siphoned, *spread);
            }
        }
        Effect::Cleansed { ghost, siphoned, spread, second } => {
            remove_one(state, actor, *ghost, *siphoned, *spread);
            if let Some(Removed { ghost, siphoned, spread }) = second {
                remove_one(state, actor, *ghost, *siphoned, *spread);
            }
        }
        Effect::OmenRevealed { revealed } => {
            for &c in revealed {
                take_from_candle(state, actor, c);
                to_resolving(state, c);
            }
        }
        Effect::Drafted { target, burned } => {
            for &c in burned {
                burn(state, *target, c);
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
            // A9 row 7, R10.3.2: the cards the classic Sadist saw and left get fresh handles.
            if crate::rules::classes::passives::sadist_chooses(state, actor) {
                let seen: Vec<CardId> = state.players[*target as usize].hand.clone();
                for c in seen {
                    bump(state, c);
                }
            }
        }
        Effect::Drained { packets } => {
            for SeatCards { seat: from, cards: packet } in packets {
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
        Effect::SightTaken { target, taken, burned } => {
            for &c in taken {
                remove_from_hand(state, *target, c);
                to_hand(state, actor, c);
            }
            // R8.12.1: The Judge's target Burns after the cards are taken.
            for &c in burned {
                burn(state, *target, c);
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
        Effect::Possessed { ghost, destination, bonus } => {
            if let Some(rec) = take_ghost(state, actor, *ghost) {
                bump(state, *ghost);
                put_ghost(state, *destination, rec);
            }
            // R8.18.2: The Occultist's bonus, once per turn.
            if !bonus.is_empty() {
                state.turn.bonus_used = true;
            }
            for &c in bonus {
                remove_from_dark(state, c);
                to_candle_bottom(state, actor, c);
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
            // R8.20.2: Plague ghosts (every ghost keeps the record) add their new owner.
            state.players[actor as usize].shadow = visit(b, actor);
            state.players[*target as usize].shadow = visit(a, *target);
            // R8.2.4: Walls move with the rest of the Shadow; A12.5: not in classic.
            if !state.rules().classic() {
                let wa = std::mem::take(&mut state.players[actor as usize].walls);
                let wb = std::mem::take(&mut state.players[*target as usize].walls);
                for w in wa.iter().chain(wb.iter()) {
                    bump(state, w.card);
                }
                state.players[actor as usize].walls = wb;
                state.players[*target as usize].walls = wa;
            }
        }
        Effect::MediumSearched { taken } => {
            if let Some(c) = taken {
                remove_from_dark(state, *c);
                to_hand(state, actor, *c);
            }
        }
        Effect::Purged { removed } => {
            for r in removed {
                remove_one(state, actor, r.ghost, r.siphoned, r.spread);
            }
        }
        Effect::WallBuilt => {
            if let Some(c) = card {
                remove_from_resolving(state, c);
                bump(state, c);
                state.players[actor as usize].walls.push(Wall { card: c, builder: actor });
            }
        }
        Effect::SuitAltered { owner, ghost, suit } => {
            if let Some(g) = state.players[*owner as usize].shadow.iter_mut().find(|g| g.card == *ghost) {
                g.suit = Some(*suit);
            }
        }
        Effect::Usurped { target, taken, drawn } => {
            for &c in taken {
                remove_from_hand(state, *target, c);
                to_hand(state, actor, c);
            }
            if let Some(c) = drawn {
                take_from_candle(state, *target, *c);
                to_hand(state, *target, *c);
            }
        }
        Effect::WatcherTaken { taken } => {
            for SeatCards { seat: t, cards } in taken {
                for &c in cards {
                    remove_from_hand(state, *t, c);
                    to_hand(state, actor, c);
                }
                // R10.3.2: the hand The Watcher saw gets fresh handles.
                let seen: Vec<CardId> = state.players[*t as usize].hand.clone();
                for c in seen {
                    bump(state, c);
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
    state.players[seat as usize].shadow.push(Ghost { card: c, haunter, suit, visited: vec![seat] });
}

/// Appends a moved ghost record to `seat`'s Shadow; it visits `seat` (R8.20.2).
fn put_ghost(state: &mut State, seat: u8, mut g: Ghost) {
    if !g.visited.contains(&seat) {
        g.visited.push(seat);
    }
    state.players[seat as usize].shadow.push(g);
}

fn visit(mut shadow: Vec<Ghost>, seat: u8) -> Vec<Ghost> {
    for g in &mut shadow {
        if !g.visited.contains(&seat) {
            g.visited.push(seat);
        }
    }
    shadow
}

/// R5.4, R8.20.3: a ghost leaves `seat`'s Shadow: Siphoned, spread, or to The Dark.
fn remove_one(state: &mut State, seat: u8, ghost: CardId, siphoned: bool, spread: Option<u8>) {
    let Some(rec) = take_ghost(state, seat, ghost) else { return };
    if siphoned {
        to_candle_bottom(state, seat, ghost);
    } else if let Some(to) = spread {
        bump(state, ghost);
        put_ghost(state, to, rec);
    } else {
        to_dark(state, ghost);
    }
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
