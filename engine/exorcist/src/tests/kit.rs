//! Test helpers: random playouts through the Game contract, and exact positions built by
//! editing a created game's state (tests only: a real game's state is always a fold).
#![allow(dead_code)]

use crate::game::Exorcist;
use crate::model::card::{CardId, CardKind, TileId};
use crate::model::command::{Answer, Command};
use crate::model::event::Event;
use crate::model::settings::Settings;
use crate::model::state::State;
use crate::rules::decide::{create, decide};
use crate::rules::evolve::apply;
use crate::rules::prompt::{Prompt, prompts};
use flicker_game::{Bot, kit};
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

/// The random bot: a uniformly random legal answer, from the prompt only.
pub struct Random;

impl Bot<Exorcist> for Random {
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &Prompt, _view: &crate::View, rng: &mut R) -> Answer {
        *prompt.legal_answers().choose(rng).expect("a legal answer")
    }
}

/// A random game of `settings` through the contract (seeded).
pub fn random_game(settings: &Settings, seed: u64) -> kit::Playout<Exorcist> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bot = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    kit::play::<Exorcist, _, _, _>(settings, &mut [Random], &mut rng, &mut bot, 20_000).expect("a finished game")
}

/// A table under test: the live state and its events.
pub struct Table {
    /// The state.
    pub state: State,
    /// The events so far.
    pub events: Vec<Event>,
    /// The table's generator.
    pub rng: ChaCha8Rng,
}

impl Table {
    /// A new game of `players` seats, first Seeker 0, seeded.
    pub fn new(players: u8, seed: u64) -> Self {
        let mut s = Settings::new(players);
        s.first_seeker = Some(0);
        Self::with(s, seed)
    }

    /// A new game of `settings`.
    pub fn with(settings: Settings, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let events = create(&settings, &mut rng).expect("created");
        let mut state = State::default();
        for e in &events {
            apply(&mut state, e);
        }
        Table { state, events, rng }
    }

    /// Sends `command`; the events are applied and returned.
    pub fn send(&mut self, command: Command) -> Result<Vec<Event>, flicker_game::RuleError> {
        let new = decide(&self.state, &command, &mut self.rng)?;
        for e in &new {
            apply(&mut self.state, e);
        }
        self.events.extend(new.clone());
        Ok(new)
    }

    /// `seat` answers its open prompt.
    pub fn answer(&mut self, seat: u8, answer: Answer) -> Vec<Event> {
        self.send(Command::Answer { seat, prompt: None, answer }).unwrap_or_else(|e| panic!("{answer:?}: {e}"))
    }

    /// The open prompts.
    pub fn prompts(&self) -> Vec<Prompt> {
        prompts(&self.state)
    }

    /// The single open prompt.
    pub fn prompt(&self) -> Prompt {
        let p = self.prompts();
        assert_eq!(p.len(), 1, "one prompt open: {p:?}");
        p[0].clone()
    }

    /// Sets the rows (test positions only; the events no longer fold to the state).
    pub fn set_rows(&mut self, rows: Vec<Vec<CardKind>>) {
        let mut free: Vec<CardId> = CardId::all().collect();
        let r = self.state.round.as_mut().expect("a round");
        r.rows = rows
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|k| {
                        let i = free.iter().position(|c| c.kind() == k).expect("a free card of that kind");
                        free.remove(i)
                    })
                    .collect()
            })
            .collect();
        r.known_cards.iter_mut().for_each(Vec::clear);
    }

    /// Sets the tiles by Role (true: Possessed).
    pub fn set_tiles(&mut self, possessed: &[bool]) {
        let (mut inn, mut pos) = (0u8, 5u8);
        let r = self.state.round.as_mut().expect("a round");
        r.tiles = possessed
            .iter()
            .map(|&p| {
                if p {
                    pos += 1;
                    TileId(pos - 1)
                } else {
                    inn += 1;
                    TileId(inn - 1)
                }
            })
            .collect();
    }

    /// Sets the Seeker.
    pub fn set_seeker(&mut self, seat: u8) {
        let r = self.state.round.as_mut().expect("a round");
        r.seeker = seat;
        self.state.point = self.state.version;
    }

    /// Sets the deck's Artifact counts (what ends the round, X4.2).
    pub fn set_goal(&mut self, holy: u8, cursed: u8) {
        let r = self.state.round.as_mut().expect("a round");
        r.holy = holy;
        r.cursed = cursed;
    }

    /// The Seeker reveals `owner`'s card at `position`.
    pub fn reveal(&mut self, owner: u8, position: u8) -> Vec<Event> {
        let seat = self.prompt().seat;
        self.answer(seat, Answer::Card { owner, position })
    }

    /// The kinds of `seat`'s row.
    pub fn row(&self, seat: u8) -> Vec<CardKind> {
        self.state.round.as_ref().expect("a round").rows[seat as usize].iter().map(|c| c.kind()).collect()
    }
}

impl Table {
    /// Lays 4-card rows (the first deal's size) with the given cards at (owner, position) and
    /// other cards of the box elsewhere (Mischiefs first), Seeker 0.
    pub fn lay(&mut self, specs: &[(u8, u8, CardKind)]) {
        let n = self.state.players() as usize;
        let mut free: Vec<CardId> = CardId::all().collect();
        let mut rows: Vec<Vec<Option<CardId>>> = vec![vec![None; 4]; n];
        for &(o, p, k) in specs {
            let i = free.iter().position(|c| c.kind() == k).expect("a free card of that kind");
            rows[o as usize][p as usize - 1] = Some(free.remove(i));
        }
        let r = self.state.round.as_mut().expect("a round");
        r.rows = rows
            .into_iter()
            .map(|row| row.into_iter().map(|c| c.unwrap_or_else(|| free.pop().unwrap())).collect())
            .collect();
        r.known_cards.iter_mut().for_each(Vec::clear);
        self.set_seeker(0);
    }
}

/// A 4-player table (seed 1) laid with `specs`, Seeker 0.
pub fn table(specs: &[(u8, u8, CardKind)]) -> Table {
    let mut t = Table::new(4, 1);
    t.lay(specs);
    t
}
