//! R10.1.2: the decider. `create` and `decide` return the events a command causes, drawing
//! every random outcome from the caller's generator and storing it in an event (X11.2); a
//! refusal changes nothing. After an answer the decider runs every automatic step
//! ([`advance`]) until a prompt is open or the game is over, so the state it leaves always
//! says who must answer what.

use crate::model::card::{CardId, CardKind, CardType, TileId, chart};
use crate::model::command::{Answer, Command};
use crate::model::event::{EndReason, Event, PointChange};
use crate::model::settings::{MAX_TARGET, RULESET_ID, RULESET_VERSION, Settings};
use crate::model::state::{Ask, State};
use crate::rules::effects::auto_effect;
use crate::rules::evolve::apply;
use crate::rules::flow::{Next, next};
use crate::rules::legal::selectable;
use crate::rules::prompt::{Prompt, prompts};
use flicker_game::{ErrorKind, RuleError, Ruleset};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, RngExt};

/// The ruleset new games are recorded under (R10.1.3).
pub fn current_ruleset() -> Ruleset {
    Ruleset { id: RULESET_ID.to_string(), version: RULESET_VERSION }
}

/// X2.1, X3.4, X4.5: checks settings before anything is stored.
pub fn validate(settings: &Settings) -> Result<(), RuleError> {
    let bad = |rule, m: String| Err(RuleError::new(ErrorKind::BadSettings, rule, m));
    if !(4..=8).contains(&settings.players) {
        return bad("X2.1", format!("Let's Call the Exorcist is for 4 to 8 players, not {}", settings.players));
    }
    if settings.target == 0 || settings.target > MAX_TARGET {
        return bad("X4.5", format!("the points target must be 1 to {MAX_TARGET}, not {}", settings.target));
    }
    if let Some(s) = settings.first_seeker
        && s >= settings.players
    {
        return bad("X3.4", format!("first_seeker {s} is not a seat of a {}-player table", settings.players));
    }
    Ok(())
}

/// A state being decided on: the events so far and the state they lead to.
struct Scratch {
    state: State,
    events: Vec<Event>,
}

impl Scratch {
    fn emit(&mut self, e: Event) {
        apply(&mut self.state, &e);
        self.events.push(e);
    }
}

/// X3.4 and the first round: the creation events of a new game.
pub fn create<R: Rng + ?Sized>(settings: &Settings, rng: &mut R) -> Result<Vec<Event>, RuleError> {
    validate(settings)?;
    let (first_seeker, drawn) = match settings.first_seeker {
        Some(s) => (s, false),
        None => (rng.random_range(0..settings.players), true),
    };
    let mut s = Scratch { state: State::default(), events: vec![] };
    s.emit(Event::GameCreated { ruleset: current_ruleset(), settings: settings.clone(), first_seeker, drawn });
    advance(&mut s, rng);
    Ok(s.events)
}

fn not_in_play(m: &str) -> RuleError {
    RuleError::new(ErrorKind::NotInPlay, "R10.1.2", m)
}

/// R10.1.2: the events `command` causes in `state`.
pub fn decide<R: Rng + ?Sized>(state: &State, command: &Command, rng: &mut R) -> Result<Vec<Event>, RuleError> {
    let Some(ruleset) = &state.ruleset else { return Err(not_in_play("the game has not been created")) };
    if ruleset != &current_ruleset() {
        return Err(RuleError::new(
            ErrorKind::NotInPlay,
            "R10.1.3",
            format!(
                "this engine plays {RULESET_ID} version {RULESET_VERSION}, not {} version {}",
                ruleset.id, ruleset.version
            ),
        ));
    }
    if state.is_finished() {
        return Err(not_in_play("the game is over"));
    }
    let mut s = Scratch { state: state.clone(), events: vec![] };
    match command {
        Command::Answer { seat, prompt, answer } => {
            let open = prompts(state);
            let Some(p) = open.iter().find(|p| p.seat == *seat) else {
                return Err(RuleError::new(
                    ErrorKind::NotYourPrompt,
                    "R10.1.2",
                    format!("seat {seat} has no open prompt"),
                ));
            };
            if let Some(id) = prompt
                && *id != p.id
            {
                return Err(RuleError::new(ErrorKind::StalePrompt, "R10.4.2", "that prompt is no longer open"));
            }
            if !p.allows(answer) {
                return Err(refusal(p, answer));
            }
            answer_events(&mut s, p, *answer);
        }
        Command::Timeout => {
            let open: Vec<Prompt> = prompts(state);
            if open.is_empty() && next(state) == Next::TieReveal {
                // R10.6.5: the deadline of a held pick closes it like the close command.
                s.emit(Event::TieRevealed);
            } else if open.is_empty() {
                return Err(RuleError::new(ErrorKind::NothingToDo, "R10.7.1", "no prompt is open"));
            } else {
                s.emit(Event::TimedOut { seats: open.iter().map(|p| p.seat).collect() });
                for p in &open {
                    let a = default_for(p, rng);
                    answer_events(&mut s, p, a);
                }
            }
        }
        Command::CloseWindow => {
            if next(state) != Next::TieReveal {
                return Err(RuleError::new(ErrorKind::NothingToDo, "R10.6.5", "no held pick to close"));
            }
            s.emit(Event::TieRevealed);
        }
        Command::Concede { seat } => {
            if !may_concede(state, *seat) {
                return Err(RuleError::illegal("R10.10", format!("seat {seat} may not concede")));
            }
            s.emit(Event::Conceded { seat: *seat });
            let left: Vec<u8> = (0..state.players()).filter(|&p| !s.state.conceded[p as usize]).collect();
            if left.len() <= 1 {
                s.emit(Event::GameEnded { winner: left.first().copied(), reason: EndReason::Conceded });
                return Ok(s.events);
            }
        }
    }
    advance(&mut s, rng);
    Ok(s.events)
}

/// R10.10: a seated player still in the game may concede.
pub fn may_concede(state: &State, seat: u8) -> bool {
    !state.is_finished() && (seat as usize) < state.conceded.len() && !state.conceded[seat as usize]
}

/// Why `answer` does not fit prompt `p` (naming only what the sender sees).
fn refusal(p: &Prompt, answer: &Answer) -> RuleError {
    use crate::rules::prompt::PromptKind as K;
    let fits = p.legal_answers().iter().any(|a| std::mem::discriminant(a) == std::mem::discriminant(answer));
    let rule = match p.kind {
        K::SelectCard { .. } => "X6.5",
        K::HijinxSelect { .. } => "X9.12",
        K::TabletPeek => "X9.5",
        K::PrepucePeek => "X9.4",
        K::BookPeek { .. } => "X9.6",
        K::RingTarget { .. } => "X9.7",
        K::PazuzuPeek { .. } => "X9.8",
        K::SanctionTarget { .. } => "X9.10",
        K::NameSeeker { .. } => "X9.11",
        K::ViolationPeek { .. } => "X9.14",
        K::SatanPeek { .. } => "X9.16",
        K::TiePick { .. } => "X8.3",
    };
    if fits {
        RuleError::illegal(rule, format!("{answer:?} is not one of the prompt's legal answers"))
    } else {
        RuleError::new(ErrorKind::WrongAnswer, rule, format!("{answer:?} does not answer this prompt"))
    }
}

/// X12: the answer a time-out (or a conceded seat) gives: the default, or a uniformly random
/// legal answer where the default is random (recorded as the answer's events, X11.2).
fn default_for<R: Rng + ?Sized>(p: &Prompt, rng: &mut R) -> Answer {
    if p.random_default { *p.legal_answers().choose(rng).expect("a legal answer") } else { p.default }
}

/// The events of a legal `answer` to `p`.
fn answer_events(s: &mut Scratch, p: &Prompt, answer: Answer) {
    use crate::rules::prompt::PromptKind as K;
    let seat = p.seat;
    let cause = p.cause.unwrap_or(CardKind::HellishHijinx);
    let tile = |s: &Scratch, t: u8| s.state.round.as_ref().expect("a round").tiles[t as usize];
    let e = match (&p.kind, answer) {
        (K::SelectCard { .. } | K::HijinxSelect { .. }, Answer::Card { owner, position }) => {
            let r = s.state.round.as_ref().expect("a round");
            let card = r.rows[owner as usize][position as usize - 1];
            Event::CardRevealed { seeker: seat, chosen: owner, position, card, own: false }
        }
        (K::ViolationPeek { .. }, Answer::Card { owner, position }) => {
            let card = s.state.round.as_ref().expect("a round").rows[owner as usize][position as usize - 1];
            Event::CardPeeked { peeker: seat, owner, position, card }
        }
        (_, Answer::Decline) => Event::PeekDeclined { seat, cause },
        (K::TabletPeek, Answer::Peek) => Event::RolePeeked { peeker: seat, target: seat, cause, tile: tile(s, seat) },
        (K::PazuzuPeek { target }, Answer::Peek) => {
            Event::RolePeeked { peeker: seat, target: *target, cause, tile: tile(s, *target) }
        }
        (K::PrepucePeek, Answer::Peek) => Event::RowPeeked {
            peeker: seat,
            cards: s.state.round.as_ref().expect("a round").rows[seat as usize].clone(),
        },
        (K::BookPeek { .. } | K::SatanPeek { .. }, Answer::PeekTile { seat: t }) => {
            Event::RolePeeked { peeker: seat, target: t, cause, tile: tile(s, t) }
        }
        (K::RingTarget { .. }, Answer::Player { seat: t }) => Event::PointsChanged {
            cause,
            changes: vec![PointChange { seat: t, delta: -1 }, PointChange { seat, delta: 1 }],
        },
        (K::SanctionTarget { .. }, Answer::Player { seat: t }) => {
            let delta = if s.state.points[t as usize] > 0 { -1 } else { 0 };
            Event::PointsChanged { cause, changes: vec![PointChange { seat: t, delta }] }
        }
        (K::NameSeeker { .. }, Answer::Player { seat: t }) => Event::SeekerNamed { by: seat, seeker: t },
        (K::TiePick { .. }, Answer::Pick { position }) => Event::TiePicked { seat, position },
        _ => unreachable!("answer {answer:?} checked against {p:?}"),
    };
    s.emit(e);
}

/// X3.2, X3.3: the deck drawn from the box and the tiles dealt, for a round of `players`.
fn draw_round<R: Rng + ?Sized>(players: u8, rng: &mut R) -> (Vec<CardId>, Vec<TileId>) {
    let c = chart(players).expect("a validated seat count");
    let pile = |t: CardType| CardId::all().filter(move |id| id.kind().card_type() == t);
    let take = |mut v: Vec<CardId>, k: u8, rng: &mut R| {
        v.shuffle(rng);
        v.truncate(k as usize);
        v
    };
    let mut deck = take(pile(CardType::Holy).collect(), c.holy, rng);
    deck.extend(take(pile(CardType::Cursed).collect(), c.cursed, rng));
    deck.extend(take(pile(CardType::Blessing).chain(pile(CardType::Mischief)).collect(), c.mixed, rng));
    deck.shuffle(rng);
    let mut tiles: Vec<TileId> = (0..c.innocent).map(TileId).chain((5..5 + c.possessed).map(TileId)).collect();
    tiles.shuffle(rng);
    (deck, tiles)
}

/// Runs every automatic step until a prompt is open for a seat that has not conceded, a held
/// pick waits for its close, or the game is over.
fn advance<R: Rng + ?Sized>(s: &mut Scratch, rng: &mut R) {
    let n = s.state.players();
    loop {
        let step = next(&s.state);
        match step {
            Next::NotCreated | Next::Over => return,
            Next::BetweenRounds => between_rounds(s, rng),
            Next::Deal => {
                let r = s.state.round.as_ref().expect("a round");
                let mut cards: Vec<CardId> =
                    if r.deal == 0 { r.deck.clone() } else { r.rows.iter().flatten().copied().collect() };
                cards.shuffle(rng);
                let k = cards.len() / n as usize;
                let rows = cards.chunks(k).map(<[CardId]>::to_vec).collect();
                s.emit(Event::DealStarted { deal: r.deal + 1, rows });
            }
            Next::Select { seeker, hijinx } => {
                let r = s.state.round.as_ref().expect("a round");
                if !hijinx && selectable(r, seeker).0.is_empty() {
                    // X6.6: every unrevealed card is the Seeker's own: one drawn at random.
                    let row = &r.rows[seeker as usize];
                    let i = rng.random_range(0..row.len());
                    let e =
                        Event::CardRevealed { seeker, chosen: seeker, position: i as u8 + 1, card: row[i], own: true };
                    s.emit(e);
                } else if !answer_for_conceded(s, rng) {
                    return;
                }
            }
            Next::Auto => {
                let e = auto_effect(&s.state, rng);
                s.emit(e);
            }
            Next::Ask { .. } | Next::TiePick { .. } => {
                if !answer_for_conceded(s, rng) {
                    return;
                }
            }
            Next::EndTurn => {
                let t = s.state.round.as_ref().and_then(|r| r.turn).expect("a turn");
                s.emit(Event::TurnEnded { next_seeker: t.named.unwrap_or(t.chosen) });
            }
            Next::EndRound => {
                let r = s.state.round.as_ref().expect("a round");
                let winner = r.winner().expect("a winner");
                let scorers = (0..n).filter(|&p| r.role(p) == winner).collect();
                s.emit(Event::RoundEnded { round: r.number, winner, scorers });
            }
            Next::TieLay => {
                let players = s.state.tie.as_ref().expect("a mini-game").players.clone();
                s.emit(Event::TieRowLaid { players, blessing: rng.random_range(1..=5) });
            }
            Next::TieReveal => {
                if s.state.settings.as_ref().is_some_and(|x| x.hold_windows) {
                    return; // R10.6.5: the platform closes it.
                }
                s.emit(Event::TieRevealed);
            }
            Next::TieWon { winner } => s.emit(Event::GameEnded { winner: Some(winner), reason: EndReason::TieGame }),
            Next::TieDraw => {
                let players = s.state.tie.as_ref().expect("a mini-game").players.clone();
                let winner = *players.choose(rng).expect("players");
                s.emit(Event::TieDrawn { winner });
                s.emit(Event::GameEnded { winner: Some(winner), reason: EndReason::TieDrawn });
            }
        }
    }
}

/// R10.10: answers by default every open prompt of a conceded seat; false when a prompt of a
/// seat that has not conceded is open (the loop stops).
fn answer_for_conceded<R: Rng + ?Sized>(s: &mut Scratch, rng: &mut R) -> bool {
    let open = prompts(&s.state);
    let conceded: Vec<Prompt> = open.iter().filter(|p| s.state.conceded[p.seat as usize]).cloned().collect();
    if conceded.is_empty() {
        return false;
    }
    for p in &conceded {
        let a = default_for(p, rng);
        answer_events(s, p, a);
    }
    true
}

/// X7.6, X3.5: after a round: the game ends (one leader at or over the target), the mini-game
/// starts (tied leaders), or a new round is dealt.
fn between_rounds<R: Rng + ?Sized>(s: &mut Scratch, rng: &mut R) {
    let settings = s.state.settings.clone().expect("created");
    let n = settings.players;
    let top = *s.state.points.iter().max().expect("players");
    if s.state.rounds > 0 && top >= settings.target {
        let leaders: Vec<u8> = (0..n).filter(|&p| s.state.points[p as usize] == top).collect();
        if leaders.len() == 1 {
            s.emit(Event::GameEnded { winner: Some(leaders[0]), reason: EndReason::Points });
        } else {
            s.emit(Event::TieRowLaid { players: leaders, blessing: rng.random_range(1..=5) });
        }
        return;
    }
    let (deck, tiles) = draw_round(n, rng);
    let round = s.state.rounds + 1;
    s.emit(Event::RoundStarted { round, deck, tiles, starting_point: round == 1, first_seeker: s.state.next_seeker });
}

/// Which effect prompt is open, if any (for tests).
pub fn open_ask(state: &State) -> Option<Ask> {
    match next(state) {
        Next::Ask { ask, .. } => Some(ask),
        _ => None,
    }
}
