//! `decide`: validates a command against the open prompt and returns the events it causes,
//! followed by every automatic event up to the next decision point (R10.1.2, R10.4.1).
//! Randomness comes only from the generator passed in; outcomes are stored in the events.

use crate::model::action::Action;
use crate::model::card::{CardId, Rank};
use crate::model::classes::{Ability, AbilityEffect};
use crate::model::command::{Answer, Command};
use crate::model::edition::Rules;
use crate::model::error::{ErrorKind, RuleError};
use crate::model::event::{EliminationCause, EndReason, Event, GameCreated, PanicOutcome};
use crate::model::handle::{CardRef, handle, prompt_id};
use crate::model::pool::{MAX_PLAYERS, build_pool_for, pool_size_for};
use crate::model::settings::{DarkMode, FirstPlayer, MIN_ROUND_LIMIT, RulesetName, Settings, Surplus};
use crate::model::state::{ActionStage, State, Step};
use crate::rules::classes::abilities;
use crate::rules::classes::{passives, reactions, selection, triggers};
use crate::rules::evolve::apply;
use crate::rules::hooks;
use crate::rules::prompt::{Open, default_split, open_for, open_prompts, split_neighbours, timeout_answer};
use crate::rules::resolve;
use crate::rules::window::{self, WindowNext};
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

/// R1.6, R2.1-R2.6, R10.1.3: creates a game: validates the settings, shuffles and deals the pool,
/// draws the first player if Random, and returns the creation event followed by the automatic
/// events up to the first prompt.
///
/// Errors: `BadSettings` (R0.2 seat count 2..=64, R7.9.2 round limit >= 10, R2.6 seat range,
/// R9.8.4 seat_classes needs classes on and one class per seat).
pub fn create<R: Rng + ?Sized>(settings: &Settings, rng: &mut R) -> Result<Vec<Event>, RuleError> {
    validate(settings)?;
    let n = settings.players as usize;
    let rules = Rules::for_settings(settings);
    let pool = build_pool_for(rules, n);
    let size = pool_size_for(rules, n);
    // R2.2: shuffle the pool into a single stack; R2.3: deal 27 to each player.
    let mut stack: Vec<CardId> = (0..pool.len() as u16).map(CardId).collect();
    stack.shuffle(rng);
    let candles: Vec<Vec<CardId>> =
        stack[..size.dealt].chunks(crate::model::pool::CANDLE_SIZE).map(|c| c.to_vec()).collect();
    let surplus = stack[size.dealt..].to_vec();
    let (dark, set_aside) = match settings.surplus {
        Surplus::TheDark => (surplus, Vec::new()),
        Surplus::OutOfPlay => (Vec::new(), surplus),
    };
    create_dealt(settings, pool, candles, dark, set_aside, rng)
}

/// Checks the settings (see [`create`] for the errors).
pub fn validate(settings: &Settings) -> Result<(), RuleError> {
    let n = settings.players as usize;
    if !(2..=MAX_PLAYERS).contains(&n) {
        return Err(RuleError::new(
            ErrorKind::BadSettings,
            "R0.2",
            format!("a table seats 2 to {MAX_PLAYERS} players, not {n}"),
        ));
    }
    if !(1..=2).contains(&settings.last_lit) {
        return Err(RuleError::new(ErrorKind::BadSettings, "R9.1.2", "last_lit (A) is 1 or 2"));
    }
    if settings.round_limit < MIN_ROUND_LIMIT {
        return Err(RuleError::new(
            ErrorKind::BadSettings,
            "R7.9.2",
            format!("round_limit must be at least {MIN_ROUND_LIMIT}"),
        ));
    }
    if let Some(sc) = &settings.seat_classes {
        if !settings.classes {
            return Err(RuleError::new(ErrorKind::BadSettings, "R9.8.4", "seat_classes needs classes on"));
        }
        if sc.len() != n {
            return Err(RuleError::new(
                ErrorKind::BadSettings,
                "R9.8.4",
                format!("seat_classes names {} classes for {n} seats", sc.len()),
            ));
        }
    }
    if settings.ruleset == RulesetName::Classic {
        validate_classic(settings)?;
    } else if settings.dark_mode != DarkMode::Standard {
        return Err(RuleError::new(ErrorKind::BadSettings, "R10.11", "dark_mode is a setting of classic-1.0 only"));
    }
    let named = match settings.first_player {
        FirstPlayer::Random => None,
        FirstPlayer::First { seat } | FirstPlayer::Last { seat } | FirstPlayer::Ask { seat } => Some(seat),
    };
    if let Some(seat) = named
        && seat as usize >= n
    {
        return Err(RuleError::new(ErrorKind::BadSettings, "R2.6", format!("no seat {seat} at a table of {n}")));
    }
    Ok(())
}

/// A2.5: what `classic-1.0` refuses of the settings.
fn validate_classic(settings: &Settings) -> Result<(), RuleError> {
    if matches!(settings.first_player, FirstPlayer::Last { .. } | FirstPlayer::Ask { .. }) {
        return Err(RuleError::new(
            ErrorKind::BadSettings,
            "A2.5",
            "classic-1.0 has no first/last choice: first_player is random or a named first player",
        ));
    }
    Ok(())
}

/// Creates a game from a deal already made (validated settings): the creation event, then the
/// automatic events up to the first prompt.
pub(crate) fn create_dealt<R: Rng + ?Sized>(
    settings: &Settings,
    pool: Vec<crate::model::card::CardInstance>,
    candles: Vec<Vec<CardId>>,
    dark: Vec<CardId>,
    set_aside: Vec<CardId>,
    rng: &mut R,
) -> Result<Vec<Event>, RuleError> {
    validate(settings)?;
    let first_player = match settings.first_player {
        FirstPlayer::Random => Some(rng.random_range(0..settings.players)),
        FirstPlayer::First { seat } => Some(seat),
        FirstPlayer::Last { seat } => Some((seat + 1) % settings.players),
        FirstPlayer::Ask { .. } => None,
    };
    let created = Event::GameCreated(Box::new(GameCreated {
        ruleset: settings.ruleset.latest(),
        settings: settings.clone(),
        pool,
        candles,
        dark,
        set_aside,
        first_player,
        handle_key: [rng.next_u64(), rng.next_u64()],
        position: None,
    }));
    let mut state = State::new();
    apply(&mut state, &created);
    let mut out = vec![created];
    advance(&mut state, rng, &mut out);
    Ok(out)
}

/// R10.1.2: the events `command` causes in `state`, followed by the automatic events up to the
/// next decision point. A refused command returns an error naming its rule and changes nothing.
pub fn decide<R: Rng + ?Sized>(state: &State, command: &Command, rng: &mut R) -> Result<Vec<Event>, RuleError> {
    let mut scratch = state.clone();
    let mut out = Vec::new();
    decide_mut(&mut scratch, command, rng, &mut out)?;
    Ok(out)
}

/// Like [`decide`], but folds the events into `state` as it goes and appends them to `out`
/// (the fast path for simulation). On error, `state` and `out` are unchanged.
pub fn decide_mut<R: Rng + ?Sized>(
    state: &mut State,
    command: &Command,
    rng: &mut R,
    out: &mut Vec<Event>,
) -> Result<(), RuleError> {
    if state.settings.is_none() || state.is_finished() {
        return Err(RuleError::new(ErrorKind::NotInPlay, "R10.1.2", "the game is not in play"));
    }
    if state.rules.is_none() {
        let r = state.ruleset.as_ref().expect("created");
        return Err(RuleError::new(
            ErrorKind::NotInPlay,
            "R10.1.3",
            format!("this game was created under ruleset `{}` v{}, which this engine does not play", r.id, r.version),
        ));
    }
    let first = command_events(state, command, rng)?;
    for e in first {
        apply(state, &e);
        out.push(e);
    }
    advance(state, rng, out);
    Ok(())
}

fn command_events<R: Rng + ?Sized>(state: &State, command: &Command, rng: &mut R) -> Result<Vec<Event>, RuleError> {
    match command {
        Command::Answer { seat, prompt, answer } => {
            if state.conceding.contains(seat) {
                // R10.10.2: until the concession takes effect, its prompts get their defaults.
                return Err(RuleError::new(ErrorKind::NotYourPrompt, "R10.10.2", format!("seat {seat} has conceded")));
            }
            let open = open_for(state, *seat).ok_or_else(|| {
                RuleError::new(ErrorKind::NotYourPrompt, "R10.1.2", format!("seat {seat} has no open prompt"))
            })?;
            if let Some(id) = prompt
                && *id != prompt_id(state, *seat)
            {
                return Err(RuleError::new(ErrorKind::StalePrompt, "R10.4.2", "that prompt is no longer open"));
            }
            if crate::rules::prompt::holds(state, &open) {
                // R10.6.5: checked now, applied when the server closes the prompt.
                answer_events(state, *seat, &open, answer, rng)?;
                return Ok(vec![Event::AnswerHeld { seat: *seat, answer: answer.clone() }]);
            }
            let events = answer_events(state, *seat, &open, answer, rng)?;
            match open {
                // R10.6.6: a repeated answer stores nothing; changes are bounded.
                Open::Salt { simultaneous: true, .. } => window::private_answer(state, *seat, events),
                _ => Ok(events),
            }
        }
        Command::Concede { seat } => {
            if !state.is_lit(*seat) {
                return Err(RuleError::illegal("R10.10.1", format!("seat {seat} is not a seated Lit player")));
            }
            let own_elimination = matches!(&state.step, Step::Eliminating(el) if el.seat == *seat);
            if own_elimination || state.conceding.contains(seat) {
                // R10.10.2: ignored during its own elimination; a repeat changes nothing.
                return Ok(Vec::new());
            }
            Ok(vec![Event::ConcessionRequested { seat: *seat }])
        }
        Command::Timeout if state.held.is_some() => held_events(state, rng),
        Command::Timeout => {
            let open = open_prompts(state);
            if open.is_empty() {
                return Err(RuleError::new(ErrorKind::NothingToDo, "R10.7.1", "no prompt is open"));
            }
            if matches!(window::next(state), Some(WindowNext::AnswerAll | WindowNext::HeldOpen)) {
                // R10.6.6: at the deadline, unanswered players Pass (R10.7.1: their time-out is
                // recorded first; a window held open after every answer came in times out nobody).
                let seats: Vec<u8> = match state.flow().map(|f| &f.stage) {
                    Some(ActionStage::Window(w)) => {
                        w.answers.iter().filter(|(_, a)| a.is_none()).map(|(s, _)| *s).collect()
                    }
                    _ => Vec::new(),
                };
                let mut out = Vec::with_capacity(2);
                if !seats.is_empty() {
                    out.push(Event::TimedOut { seats });
                }
                out.push(Event::AnswersClosed);
                return Ok(out);
            }
            let (seat, o) = &open[0];
            let answer = timeout_answer(state, *seat, o, rng);
            // R10.7.1: the time-out mark, then the default answer's events.
            let mut out = vec![Event::TimedOut { seats: vec![*seat] }];
            out.extend(answer_events(state, *seat, o, &answer, rng)?);
            Ok(out)
        }
        Command::CloseWindow if state.held.is_some() => held_events(state, rng),
        Command::CloseWindow => {
            if matches!(window::next(state), Some(WindowNext::AnswerAll | WindowNext::HeldOpen)) {
                Ok(vec![Event::AnswersClosed])
            } else {
                Err(RuleError::new(ErrorKind::NothingToDo, "R10.6.5", "no simultaneous window is taking answers"))
            }
        }
    }
}

/// R10.6.5: the events of a held answer, now that the server closes its prompt (at its close
/// time, or its deadline: the answer was given, so nobody timed out). A seat that has conceded
/// since gets its prompt's default instead (R10.10.2).
fn held_events<R: Rng + ?Sized>(state: &State, rng: &mut R) -> Result<Vec<Event>, RuleError> {
    let (seat, answer) = state.held.clone().expect("a held answer");
    let open = crate::rules::prompt::asked(state)
        .into_iter()
        .find(|(s, _)| *s == seat)
        .map(|(_, o)| o)
        .ok_or_else(|| RuleError::new(ErrorKind::NothingToDo, "R10.6.5", "the held prompt is no longer asked"))?;
    if !state.conceding.contains(&seat)
        && let Ok(events) = answer_events(state, seat, &open, &answer, rng)
    {
        return Ok(events);
    }
    let default = crate::rules::prompt::timeout_answer(state, seat, &open, rng);
    answer_events(state, seat, &open, &default, rng)
}

fn wrong(open: &Open) -> RuleError {
    let expected = match open {
        Open::TurnOrder => "turn_order",
        Open::ChooseClass => "choose_class",
        Open::Reaction(_) => "react or decline",
        Open::Martyr => "draw or decline",
        Open::TraderSwap { .. } => "trade or decline",
        Open::Spread { .. } => "spread",
        Open::WatcherPick { .. } => "pick",
        Open::Haunting => "reprieve, endure or panic",
        Open::Ritual => "act or end_ritual",
        Open::Salt { .. } => "pass or salt",
        Open::Counter => "salt or yield",
        Open::SightPick { .. } | Open::SadistPick { .. } | Open::MediumPick | Open::Burden => "pick",
        Open::OmenPlay { .. } => "act",
        Open::DeathSplit { .. } => "split",
    };
    RuleError::new(ErrorKind::WrongAnswer, "R10.5", format!("the open prompt takes {expected}"))
}

/// Finds the card among `candidates` whose current handle is `r`.
fn find(
    state: &State,
    candidates: impl IntoIterator<Item = CardId>,
    r: CardRef,
    rule: &'static str,
    zone: &str,
) -> Result<CardId, RuleError> {
    candidates
        .into_iter()
        .find(|&c| handle(state, c) == r)
        .ok_or_else(|| RuleError::new(ErrorKind::UnknownCard, rule, format!("no such card in {zone}")))
}

fn in_hand(state: &State, seat: u8, r: CardRef, rule: &'static str) -> Result<CardId, RuleError> {
    find(state, state.players[seat as usize].hand.iter().copied(), r, rule, "your hand")
}

fn in_shadow(state: &State, seat: u8, r: CardRef, rule: &'static str) -> Result<CardId, RuleError> {
    find(state, state.players[seat as usize].shadow.iter().map(|g| g.card), r, rule, "that Shadow")
}

/// Resolves a list of distinct cards among `candidates`, of exactly `count` cards.
fn pick_exact(
    state: &State,
    candidates: &[CardId],
    cards: &[CardRef],
    count: usize,
    rule: &'static str,
    zone: &str,
) -> Result<Vec<CardId>, RuleError> {
    if cards.len() != count {
        return Err(RuleError::illegal(rule, format!("choose exactly {count} cards, not {}", cards.len())));
    }
    let mut out = Vec::with_capacity(count);
    for &r in cards {
        let c = find(state, candidates.iter().copied(), r, rule, zone)?;
        if out.contains(&c) {
            return Err(RuleError::illegal(rule, "the same card was chosen twice"));
        }
        out.push(c);
    }
    Ok(out)
}

/// R6.5 (a 5), A8 (classic: a 4): the Salt card named by `r`.
fn five(state: &State, seat: u8, r: CardRef) -> Result<CardId, RuleError> {
    let c = in_hand(state, seat, r, "R6.5.5")?;
    let salt = state.rules().salt_rank();
    if state.face(c).rank != salt {
        let rule = if state.rules().classic() { "A8" } else { "R6.5" };
        return Err(RuleError::illegal(rule, format!("only a {} is Salt, not {}", salt.label(), state.face(c))));
    }
    Ok(c)
}

fn answer_events<R: Rng + ?Sized>(
    state: &State,
    seat: u8,
    open: &Open,
    answer: &Answer,
    rng: &mut R,
) -> Result<Vec<Event>, RuleError> {
    let p = &state.players[seat as usize];
    match (open, answer) {
        (Open::TurnOrder, Answer::TurnOrder { choice }) => Ok(vec![Event::TurnOrderChosen { seat, choice: *choice }]),
        (Open::Haunting, Answer::Reprieve { ace }) => {
            let c = in_hand(state, seat, *ace, "R4.2.2")?;
            if state.face(c).rank != Rank::Ace {
                return Err(RuleError::illegal("R4.2.3", "Reprieve needs an Ace"));
            }
            Ok(vec![Event::Reprieved { seat, ace: c }])
        }
        (Open::Haunting, Answer::Endure) => {
            let k = hooks::haunting_burns(state, seat, p.shadow.len());
            Ok(vec![Event::Endured { seat, burned: p.candle.iter().take(k).copied().collect() }])
        }
        (Open::Haunting, Answer::Panic { ghost }) => {
            let Some(&revealed) = p.candle.front() else {
                return Err(RuleError::illegal("R4.2.2", "Panic needs at least one card in your Candle (R11.26)"));
            };
            let g = in_shadow(state, seat, *ghost, "R4.2.2")?;
            let rec = p.shadow.iter().find(|x| x.card == g).expect("ghost found");
            let rf = state.face(revealed);
            let mut after: Vec<CardId> = p.candle.iter().skip(1).copied().collect();
            let (outcome, ghosts_after) = if rf.rank == Rank::Joker {
                let siphoned = !resolve::spade_cursed(state, rec);
                if siphoned {
                    after.push(g);
                }
                (PanicOutcome::Joker { siphoned }, p.shadow.len() - 1)
            } else if rf.value() >= state.face(g).value() {
                (PanicOutcome::Success, p.shadow.len() - 1)
            } else {
                (PanicOutcome::Failure, p.shadow.len() + 1)
            };
            let k = hooks::haunting_burns(state, seat, ghosts_after);
            let burned = after.into_iter().take(k).collect();
            Ok(vec![Event::Panicked { seat, ghost: g, revealed, outcome, burned }])
        }
        (Open::Ritual, Answer::Act { action }) => {
            if state.turn.budget == 0 {
                return Err(RuleError::illegal("R4.4.3", "no action left this turn"));
            }
            if let Action::Usurp { target } = action {
                if *target as usize >= state.players.len() {
                    return Err(RuleError::illegal("R0.2", format!("no seat {target} at this table")));
                }
                let a = Action::Usurp { target: *target };
                crate::rules::legal::check_action(state, seat, &a)?;
                return Ok(vec![Event::ActionDeclared { actor: seat, action: a }]);
            }
            let card = in_hand(state, seat, *action.card().expect("a card action"), "R5.1.2")?;
            let a = bind(state, seat, action, card)?;
            Ok(vec![Event::ActionDeclared { actor: seat, action: a }])
        }
        (Open::OmenPlay { revealed }, Answer::Act { action }) => {
            let r = action.card().ok_or_else(|| RuleError::illegal("A6", "an Omen plays one of the revealed cards"))?;
            let card = find(state, revealed.iter().copied(), *r, "A6", "the revealed cards")?;
            if matches!(action, Action::Omen { .. }) {
                return Err(RuleError::illegal("A12.3", "an Omen cannot play another Omen"));
            }
            let a = bind(state, seat, action, card)?;
            let rest = revealed.iter().copied().filter(|&c| c != card).collect();
            Ok(vec![Event::OmenChosen { seat, play: Some(a), rest }])
        }
        (Open::Ritual, Answer::EndRitual) => Ok(vec![Event::RitualEnded { seat, abstained: state.turn.declared == 0 }]),
        (Open::Ritual, Answer::Ability { ability }) => {
            let a: Ability<CardId> = match ability {
                Ability::Doomreader { card, ghost } => Ability::Doomreader {
                    card: in_hand(state, seat, *card, "R8.3.1")?,
                    ghost: in_shadow(state, seat, *ghost, "R8.3.1")?,
                },
                other => {
                    let mut err = None;
                    let mapped = other.map_cards(|r| match in_hand(state, seat, *r, "R5.9") {
                        Ok(c) => c,
                        Err(e) => {
                            err = Some(e);
                            CardId(0)
                        }
                    });
                    if let Some(e) = err {
                        return Err(e);
                    }
                    mapped
                }
            };
            if let Ability::Mimic { target }
            | Ability::Pyromaniac { target, .. }
            | Ability::Seer { target }
            | Ability::Trader { target, .. } = &a
                && *target as usize >= state.players.len()
            {
                return Err(RuleError::illegal("R0.2", format!("no seat {target} at this table")));
            }
            Ok(vec![abilities::declare(state, seat, a)?])
        }
        (Open::ChooseClass, Answer::ChooseClass { class }) => {
            let offered = state.selection.as_ref().and_then(|s| s.offer.as_ref()).is_some_and(|o| o.contains(class));
            if !offered {
                return Err(RuleError::illegal("R2.7.3", format!("{} was not offered to you", class.name())));
            }
            Ok(vec![Event::ClassChosen { seat, class: *class }])
        }
        (Open::Reaction(_), Answer::React { card }) => Ok(vec![reactions::react(state, seat, *card)?]),
        (Open::Reaction(_) | Open::Martyr | Open::TraderSwap { .. }, Answer::Decline) => {
            Ok(vec![Event::Declined { seat }])
        }
        (Open::Martyr, Answer::Draw) => {
            let card = *p.candle.front().ok_or_else(|| RuleError::illegal("R8.15.1", "your Candle is empty"))?;
            Ok(vec![Event::Triggered { owner: seat, effect: triggers::TriggerEffect::MartyrDraw { card } }])
        }
        (Open::TraderSwap { target }, Answer::Trade { give, take }) => {
            let give = in_hand(state, seat, *give, "R8.31.1")?;
            let take =
                find(state, state.players[*target as usize].hand.iter().copied(), *take, "R8.31.1", "their hand")?;
            Ok(vec![Event::AbilityResolved {
                seat,
                effect: AbilityEffect::Traded { target: *target, swap: Some((give, take)) },
            }])
        }
        (Open::Spread { ghost, recipients }, Answer::Spread { to }) => {
            if !recipients.contains(to) {
                return Err(RuleError::illegal("R8.20.3", format!("seat {to} cannot receive this ghost")));
            }
            if matches!(state.step, Step::Ability(_)) {
                Ok(vec![Event::AbilityResolved {
                    seat,
                    effect: AbilityEffect::Doomread { ghost: *ghost, spread: Some(*to) },
                }])
            } else {
                Ok(vec![Event::SpreadChosen { seat, ghost: *ghost, to: *to }])
            }
        }
        (Open::WatcherPick { targets }, Answer::Pick { cards }) => {
            let mut picked = Vec::new();
            let all: Vec<CardId> =
                targets.iter().flat_map(|&t| state.players[t as usize].hand.iter().copied()).collect();
            for &r in cards {
                let c = find(state, all.iter().copied(), r, "R8.37.1", "the seen hands")?;
                if picked.contains(&c) {
                    return Err(RuleError::illegal("R8.37.1", "the same card was chosen twice"));
                }
                picked.push(c);
            }
            for &t in targets {
                let from = picked.iter().filter(|c| state.players[t as usize].hand.contains(c)).count();
                if from > crate::rules::classes::ritual::WATCHER_TAKE {
                    return Err(RuleError::illegal("R8.37.1", "take at most 2 cards from each hand"));
                }
            }
            Ok(vec![resolved(state, Some(&picked), rng)])
        }
        (Open::Salt { simultaneous: true, .. }, Answer::Pass) => Ok(vec![Event::SaltAnswered { seat, salt: None }]),
        (Open::Salt { simultaneous: true, .. }, Answer::Salt { card }) => {
            Ok(vec![Event::SaltAnswered { seat, salt: Some(five(state, seat, *card)?) }])
        }
        (Open::Salt { simultaneous: false, .. }, Answer::Pass) => Ok(vec![Event::Passed { seat }]),
        (Open::Salt { simultaneous: false, .. } | Open::Counter, Answer::Salt { card }) => {
            Ok(vec![Event::Salted { seat, card: five(state, seat, *card)? }])
        }
        (Open::Counter, Answer::Yield) => Ok(vec![Event::Yielded { seat }]),
        (Open::SightPick { target }, Answer::Pick { cards }) => {
            let hand = &state.players[*target as usize].hand;
            let take = hand.len().min(state.rules().sight_takes());
            let picked = pick_exact(state, hand, cards, take, "R5.5.6", "the seen hand")?;
            Ok(vec![resolved(state, Some(&picked), rng)])
        }
        (Open::SadistPick { target }, Answer::Pick { cards }) => {
            let hand = &state.players[*target as usize].hand;
            let picked = pick_exact(state, hand, cards, hand.len().min(2), "A9", "the seen hand")?;
            Ok(vec![resolved(state, Some(&picked), rng)])
        }
        (Open::MediumPick, Answer::Pick { cards }) => {
            let choices = resolve::medium_choices(state);
            let count = choices.len().min(1);
            let picked = pick_exact(state, &choices, cards, count, "R5.6.2", "The Dark (Jokers excluded)")?;
            Ok(vec![resolved(state, Some(&picked), rng)])
        }
        (Open::Burden, Answer::Pick { cards }) => {
            let k = p.hand.len().saturating_sub(hooks::hand_limit(state, seat));
            let picked = pick_exact(state, &p.hand, cards, k, "R4.5.2", "your hand")?;
            Ok(vec![Event::BurdenDiscarded { seat, cards: picked }])
        }
        (Open::DeathSplit { left, right }, Answer::Split { left: l, right: r }) => {
            let ghosts: Vec<CardId> = p.shadow.iter().map(|g| g.card).collect();
            let g = ghosts.len();
            if l.len() + r.len() != g || (l.len() != g / 2 && l.len() != g.div_ceil(2)) {
                return Err(RuleError::illegal(
                    "R7.5.3",
                    format!("give every ghost away: {} to one neighbour and {} to the other", g / 2, g.div_ceil(2)),
                ));
            }
            let lc = pick_exact(state, &ghosts, l, l.len(), "R7.5.3", "your Shadow")?;
            let rc = pick_exact(state, &ghosts, r, r.len(), "R7.5.3", "your Shadow")?;
            if lc.iter().any(|c| rc.contains(c)) {
                return Err(RuleError::illegal("R7.5.3", "a ghost was given to both neighbours"));
            }
            if matches!(state.step, Step::Reviving(_)) {
                return Ok(vec![revived(state, seat, Some((*left, lc)), Some((*right, rc)))]);
            }
            Ok(vec![eliminated(state, seat, Some((*left, lc)), Some((*right, rc)))])
        }
        (o, _) => Err(wrong(o)),
    }
}

/// R5.1.2: the declaration `action` of `seat` with its card `card` (found by the caller in the
/// hand, or among an Omen's revealed cards, A6): its ghosts and seats resolved and its Requires
/// clause checked.
fn bind(state: &State, seat: u8, action: &Action<CardRef>, card: CardId) -> Result<Action<CardId>, RuleError> {
    let a: Action<CardId> = match action {
        Action::Banish { ghost, .. } => Action::Banish { card, ghost: in_shadow(state, seat, *ghost, "R5.3.1")? },
        Action::Cleanse { ghost, second, .. } => Action::Cleanse {
            card,
            ghost: in_shadow(state, seat, *ghost, "R5.5.7")?,
            second: match second {
                Some(g) => Some(in_shadow(state, seat, *g, "R8.4.1")?),
                None => None,
            },
        },
        Action::AlterSuit { owner, ghost, suit, .. } => {
            if !state.is_lit(*owner) {
                return Err(RuleError::illegal("R8.5.1", format!("seat {owner} is not Lit")));
            }
            Action::AlterSuit { card, owner: *owner, ghost: in_shadow(state, *owner, *ghost, "R8.5.1")?, suit: *suit }
        }
        Action::Possess { ghost, destination, .. } => {
            Action::Possess { card, ghost: in_shadow(state, seat, *ghost, "R5.5.9")?, destination: *destination }
        }
        Action::Recall { owner, ghost, .. } => {
            if !state.is_lit(*owner) {
                return Err(RuleError::illegal("R5.5.8", format!("seat {owner} is not Lit")));
            }
            Action::Recall { card, owner: *owner, ghost: in_shadow(state, *owner, *ghost, "R5.5.8")? }
        }
        other => other.map_cards(|_| card),
    };
    for s in seat_args(&a) {
        if s as usize >= state.players.len() {
            return Err(RuleError::illegal("R0.2", format!("no seat {s} at this table")));
        }
    }
    crate::rules::legal::check_action(state, seat, &a)?;
    Ok(a)
}

fn seat_args(a: &Action<CardId>) -> Vec<u8> {
    match a {
        Action::Haunt { target, .. }
        | Action::Draft { target, .. }
        | Action::Greed { target, .. }
        | Action::Scare { target, .. }
        | Action::Sight { target, .. }
        | Action::Mirror { target, .. } => vec![*target],
        Action::Recall { owner, .. } | Action::AlterSuit { owner, .. } => vec![*owner],
        Action::Possess { destination, .. } => vec![*destination],
        Action::Usurp { target } => vec![*target],
        _ => Vec::new(),
    }
}

/// The ActionResolved event of the action in flight.
fn resolved<R: Rng + ?Sized>(state: &State, pick: Option<&[CardId]>, rng: &mut R) -> Event {
    let flow = state.flow().expect("action in flight");
    let protected: &[u8] = match &flow.stage {
        ActionStage::Ready { protected } => protected,
        _ => &[],
    };
    let effect = resolve::effect(state, flow.actor, &flow.action, pick, protected, &flow.spreads, rng);
    Event::ActionResolved { actor: flow.actor, effect }
}

/// R8.14.1 (a)-(b): the Revived event: the split (as on death) and the thefts.
fn revived(state: &State, e: u8, left: Option<(u8, Vec<CardId>)>, right: Option<(u8, Vec<CardId>)>) -> Event {
    let Event::Eliminated { shares, .. } = eliminated(state, e, left, right) else { unreachable!() };
    Event::Revived { seat: e, shares, thefts: triggers::lich_thefts(state, e), to_dark: Vec::new() }
}

/// R7.4 steps 3-6: the Eliminated event, with the shares in E's entry order (left first).
fn eliminated(state: &State, e: u8, left: Option<(u8, Vec<CardId>)>, right: Option<(u8, Vec<CardId>)>) -> Event {
    let p = &state.players[e as usize];
    let order =
        |cards: Vec<CardId>| -> Vec<CardId> { p.shadow.iter().map(|g| g.card).filter(|c| cards.contains(c)).collect() };
    let mut shares = Vec::new();
    for (to, cards) in [left, right].into_iter().flatten() {
        if !cards.is_empty() {
            shares.push((to, order(cards)));
        }
    }
    // R7.4 step 4: The Gravedigger takes the Candle; step 5: the rest goes out of play.
    let gravedigger = triggers::gravedigger(state, e).map(|g| (g, p.candle.iter().copied().collect::<Vec<_>>()));
    let candle: Vec<CardId> = if gravedigger.is_some() { Vec::new() } else { p.candle.iter().copied().collect() };
    let out_of_play = p
        .hand
        .iter()
        .copied()
        .chain(candle)
        .chain(p.walls.iter().map(|w| w.card))
        .chain(p.pages.iter().copied())
        .collect();
    Event::Eliminated { seat: e, shares, out_of_play, gravedigger, to_dark: Vec::new() }
}

/// R8.14 without a prompt: like [`eliminated_auto`], for The Lich's revival.
fn revived_auto(state: &State, e: u8) -> Event {
    let Event::Eliminated { shares, to_dark, .. } = eliminated_auto(state, e) else { unreachable!() };
    Event::Revived { seat: e, shares, thefts: triggers::lich_thefts(state, e), to_dark }
}

/// R7.4-R7.5 without a prompt: the default split (concession), or everything to the only
/// neighbour (R7.5.2), or nothing (R7.5.1).
fn eliminated_auto(state: &State, e: u8) -> Event {
    if state.rules().death_ghosts_to_dark(state.settings_ref()) {
        // A3.3: classic, dark_mode standard: every ghost to The Dark in entry order.
        let Event::Eliminated { seat, out_of_play, gravedigger, .. } = eliminated(state, e, None, None) else {
            unreachable!()
        };
        let to_dark = state.players[e as usize].shadow.iter().map(|g| g.card).collect();
        return Event::Eliminated { seat, shares: Vec::new(), out_of_play, gravedigger, to_dark };
    }
    match split_neighbours(state, e) {
        Some((l, r)) => {
            let (lc, rc) = default_split(state, e);
            eliminated(state, e, Some((l, lc)), Some((r, rc)))
        }
        None => {
            let all: Vec<CardId> = state.players[e as usize].shadow.iter().map(|g| g.card).collect();
            let to = state.left_of(e);
            eliminated(state, e, to.map(|t| (t, all)), None)
        }
    }
}

/// Runs the automatic steps until a prompt is open or the game has ended.
pub(crate) fn advance<R: Rng + ?Sized>(state: &mut State, rng: &mut R, out: &mut Vec<Event>) {
    while let Some(events) = auto_step(state, rng) {
        for e in events {
            apply(state, &e);
            out.push(e);
        }
    }
}

/// R10.10.2: a pending concession takes effect at a safe point.
fn concession(state: &State) -> Option<Vec<Event>> {
    let &seat = state.conceding.iter().find(|&&s| state.is_lit(s))?;
    Some(vec![Event::EliminationStarted { seat, cause: EliminationCause::Conceded, placing: state.lit_count() as u8 }])
}

/// The automatic event(s) for the current step, or `None` when waiting for a prompt.
fn auto_step<R: Rng + ?Sized>(state: &State, rng: &mut R) -> Option<Vec<Event>> {
    if state.is_finished() || matches!(state.step, Step::Empty) {
        return None;
    }
    // R7.4 step 7, R6.9.3: death triggers resolve one at a time, before the end check.
    if let Some(p) = state.pending_triggers.first() {
        return Some(vec![Event::Triggered { owner: p.owner, effect: triggers::death_effect(state, p, rng) }]);
    }
    // R2.7, R9.5.5: classes are chosen before anything ends the game.
    let setting_up = matches!(state.step, Step::Selecting)
        || (matches!(state.step, Step::TurnOrder { .. }) && selection::selects(state.settings_ref()));
    let ending = !setting_up && !matches!(state.step, Step::Eliminating(_) | Step::Reviving(_));
    // R2.9, R7.8: two Lit players including The Witness (or The Witness alone): no winner.
    if ending && passives::witnessed(state) {
        return Some(vec![game_ended_witnessed(state)]);
    }
    // R7.7.1: exactly one player Lit (checked after every elimination).
    // R9.5.2, R9.5.5: a qualifying circle with A = 2 stops as soon as two players are Lit
    // (at once when it starts with two).
    if ending && state.lit_count() <= state.settings_ref().last_lit.max(1) as usize {
        return Some(vec![game_ended_last_lit(state)]);
    }
    // R10.10.2: prompts of a conceding player are answered at once with their default.
    for (seat, open) in open_prompts(state) {
        if !state.conceding.contains(&seat) {
            continue;
        }
        // A private Salt given before conceding is withdrawn like any open answer: the
        // conceder's prompt gets its default, Pass (docs/rules-decisions.md).
        let simultaneous_answered = matches!(open, Open::Salt { simultaneous: true, .. })
            && matches!(state.flow().map(|f| &f.stage), Some(ActionStage::Window(w))
                if w.answers.iter().any(|(s, a)| *s == seat && *a == Some(None)));
        let safe_point = matches!(open, Open::Haunting | Open::Ritual | Open::Burden);
        if !simultaneous_answered && !safe_point {
            let answer = timeout_answer(state, seat, &open, rng);
            return answer_events(state, seat, &open, &answer, rng).ok();
        }
    }
    // R10.10.2: a concession takes effect as soon as no action, window or elimination runs.
    if !matches!(
        state.step,
        Step::Action(_)
            | Step::Eliminating(_)
            | Step::TurnOrder { .. }
            | Step::Selecting
            | Step::Ability(_)
            | Step::Reviving(_)
            | Step::Voodoo
            | Step::Martyr
    ) && let Some(events) = concession(state)
    {
        return Some(events);
    }
    match &state.step {
        Step::StartTurn { seat, round } => concession(state).or_else(|| {
            let seat = if state.is_lit(*seat) { *seat } else { state.left_of(*seat)? };
            Some(start_turn(state, seat, *round))
        }),
        // A4.1: classic Burns 1 card for every ghost, with no choice.
        Step::Haunting if !state.rules().haunting_choice() => concession(state).or_else(|| {
            let seat = state.turn.active;
            let p = &state.players[seat as usize];
            let k = hooks::haunting_burns(state, seat, p.shadow.len());
            Some(vec![Event::Endured { seat, burned: p.candle.iter().take(k).copied().collect() }])
        }),
        Step::Haunting | Step::Burden => concession(state),
        Step::Ritual => concession(state).or_else(|| {
            let active = state.turn.active;
            (state.turn.budget == 0 && !hooks::free_ability_available(state, active))
                .then(|| vec![Event::RitualEnded { seat: active, abstained: state.turn.declared == 0 }])
        }),
        Step::Draw => {
            let seat = state.turn.active;
            Some(vec![match state.players[seat as usize].candle.front() {
                Some(&card) => Event::Drew { seat, card },
                // R4.3, R7.2.1: drawing from an empty Candle: Consumed.
                None => elimination_started(state, seat, EliminationCause::Consumed),
            }])
        }
        Step::Selecting => selection::auto(state, rng).map(|e| vec![e]),
        Step::Voodoo => {
            let seat = state.turn.active;
            let burns = triggers::voodoo(state, seat).unwrap_or_default();
            Some(vec![Event::Triggered { owner: seat, effect: triggers::TriggerEffect::Voodoo { burns } }])
        }
        Step::Martyr | Step::Ability(_) => None,
        Step::Reviving(el) => {
            let needs_prompt = split_neighbours(state, el.seat).is_some();
            (!needs_prompt).then(|| vec![revived_auto(state, el.seat)])
        }
        Step::AmIAlive => {
            let seat = state.turn.active;
            if state.players[seat as usize].candle.is_empty() && state.rules().candle_check_at_end() {
                // R4.6.1; A4.5: not in classic (Consumed only at the draw)
                Some(vec![elimination_started(state, seat, EliminationCause::Consumed)])
            } else if state.is_possessed(seat, hooks::possession_threshold(state, seat)) {
                // R4.6.2, R7.3
                Some(vec![elimination_started(state, seat, EliminationCause::Possessed)])
            } else {
                Some(pass_turn(state))
            }
        }
        Step::PassTurn => concession(state).or_else(|| Some(pass_turn(state))),
        Step::Eliminating(el) => {
            let needs_prompt = el.cause != EliminationCause::Conceded
                && !state.conceding.contains(&el.seat)
                && split_neighbours(state, el.seat).is_some();
            (!needs_prompt).then(|| vec![eliminated_auto(state, el.seat)])
        }
        Step::Action(flow) => match &flow.stage {
            ActionStage::Window(_) => match window::next(state)? {
                WindowNext::Cancel(salter) => Some(vec![Event::ActionCancelled { actor: flow.actor, salter }]),
                WindowNext::AutoYield(seat) => Some(vec![Event::Yielded { seat }]),
                WindowNext::AutoSalt(seat, card) => Some(vec![Event::Salted { seat, card }]),
                WindowNext::CloseAnswers => Some(vec![Event::AnswersClosed]),
                WindowNext::Done => Some(vec![Event::WindowClosed]),
                _ => None,
            },
            ActionStage::Ready { .. } => Some(vec![resolved(state, None, rng)]),
            // A12.3: an Omen with no legal play plays none.
            ActionStage::OmenPlay { revealed }
                if crate::rules::legal::omen_plays(state, flow.actor, revealed).is_empty() =>
            {
                Some(vec![Event::OmenChosen { seat: flow.actor, play: None, rest: revealed.clone() }])
            }
            ActionStage::Target => crate::rules::classes::reactions::architect_block(state).map(|e| vec![e]),
            ActionStage::OmenPlay { .. }
            | ActionStage::SadistPick { .. }
            | ActionStage::SightPick { .. }
            | ActionStage::MediumPick
            | ActionStage::Grimoire { .. }
            | ActionStage::WatcherPick { .. }
            | ActionStage::Spread { .. } => None,
        },
        Step::TurnOrder { .. } | Step::Empty | Step::Finished => None,
    }
}

fn elimination_started(state: &State, seat: u8, cause: EliminationCause) -> Event {
    // R7.4 step 1, R8.14.1: The Lich revives instead, once per game.
    if triggers::lich_revives(state, seat, cause) {
        return Event::RevivalStarted { seat, cause };
    }
    // R7.4 step 2: the placing is the number of Lit players just before the elimination.
    Event::EliminationStarted { seat, cause, placing: state.lit_count() as u8 }
}

/// R7.8.2-R7.8.4, R7.7.3: no winner; the Lit players share the placing equal to their number;
/// the circle sends nobody on (R9.5.3).
fn game_ended_witnessed(state: &State) -> Event {
    let lit = state.lit_count() as u8;
    let placings = state.players.iter().map(|p| if p.lit { lit } else { p.placing.unwrap_or(lit) }).collect();
    Event::GameEnded { winner: None, reason: EndReason::Witnessed, placings, last_lit: Vec::new() }
}

/// R4.1.1, R7.9.3: the TurnStarted event, with the Guttering Burns from round L + 1.
fn start_turn(state: &State, seat: u8, round: u16) -> Vec<Event> {
    let limit = state.settings_ref().round_limit;
    let extra = round.saturating_sub(limit) as usize;
    let guttering = state.players[seat as usize].candle.iter().take(extra).copied().collect();
    vec![Event::TurnStarted { seat, round, guttering }]
}

/// R4.7, R7.9.1, R7.9.4: the next turn; a new round when the turn passes to the first player
/// or, when that player is no longer Lit, to the nearest Lit player clockwise from that seat;
/// the hard end at round 2L + 1.
fn pass_turn(state: &State) -> Vec<Event> {
    let from = state.turn.active;
    let Some(next) = state.left_of(from) else {
        return vec![game_ended_last_lit(state)];
    };
    let first = state.first_player.unwrap_or(0);
    let round_start = if state.is_lit(first) { Some(first) } else { state.left_of(first) };
    let round = state.turn.round + u16::from(round_start == Some(next));
    if round > 2 * state.settings_ref().round_limit {
        return vec![game_ended_guttered(state)];
    }
    start_turn(state, next, round)
}

/// R7.7.1, R9.5.1-R9.5.2: the Lit players are the Last Lit; one alone wins. With A = 2 the two
/// Last Lit share placing 1, provisionally: their standing comes from the later stage (R9.5.4).
fn game_ended_last_lit(state: &State) -> Event {
    let last_lit: Vec<u8> = (0..state.n()).filter(|&s| state.is_lit(s)).collect();
    let winner = (last_lit.len() == 1).then(|| last_lit[0]);
    let placings = state
        .players
        .iter()
        .enumerate()
        .map(|(s, p)| if last_lit.contains(&(s as u8)) { 1 } else { p.placing.unwrap_or(1) })
        .collect();
    Event::GameEnded { winner, reason: EndReason::LastLit, placings, last_lit }
}

/// R7.9.4: Lit players ranked by Candle size, then hand size (larger better), then fewer ghosts.
fn game_ended_guttered(state: &State) -> Event {
    let key = |p: &crate::model::state::PlayerState| {
        (std::cmp::Reverse(p.candle.len()), std::cmp::Reverse(p.hand.len()), p.shadow.len())
    };
    let lit: Vec<usize> = (0..state.players.len()).filter(|&s| state.players[s].lit).collect();
    let placings: Vec<u8> = state
        .players
        .iter()
        .map(|p| {
            if p.lit {
                1 + lit.iter().filter(|&&o| key(&state.players[o]) < key(p)).count() as u8
            } else {
                p.placing.unwrap_or(state.players.len() as u8)
            }
        })
        .collect();
    let firsts: Vec<usize> = lit.iter().copied().filter(|&s| placings[s] == 1).collect();
    // R7.8.1: The Witness never wins.
    let winner = (firsts.len() == 1)
        .then(|| firsts[0] as u8)
        .filter(|&w| !crate::rules::classes::is(state, w, crate::model::classes::ClassId::Witness));
    // R7.9.4-R7.9.5: the best-placed go on (the best two with A = 2; equal players all go).
    let advance = state.settings_ref().last_lit.max(1);
    let last_lit = lit.iter().copied().filter(|&s| placings[s] <= advance).map(|s| s as u8).collect();
    Event::GameEnded { winner, reason: EndReason::Guttered, placings, last_lit }
}
