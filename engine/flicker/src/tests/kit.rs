//! Test kit: builds exact positions (hands, Shadows, Candles, The Dark) and plays commands on
//! them. Positions are set by writing the crate-private state directly, as a practice position
//! would (R10.13); every card of the pool is kept somewhere (unused cards lie out of play), so
//! the conservation invariant still holds.

// Not every test uses every helper of the kit.
#![allow(dead_code)]

use crate::model::action::Action;
use crate::model::card::{CardId, Face, Rank, Suit};
use crate::model::command::{Answer, Command};
use crate::model::error::RuleError;
use crate::model::event::Event;
use crate::model::handle::{CardRef, handle};
use crate::model::settings::{FirstPlayer, SaltWindow, Settings};
use crate::model::state::{Ghost, State, Step};
use crate::rules::decide::{create, decide_mut};
use crate::rules::evolve::apply;
use crate::rules::invariants;
use crate::rules::prompt::{Prompt, prompt_for, prompts};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Parses `7H`, `10S`, `QC`, `AD`, `Joker` (the practice-position card syntax).
pub fn face(s: &str) -> Face {
    crate::rules::position::parse_card(s).unwrap_or_else(|e| panic!("{e}"))
}

/// Short text of a face, as [`face`] parses it.
pub fn name(f: Face) -> String {
    match f.suit {
        None => "Joker".into(),
        Some(s) => format!(
            "{}{}",
            f.rank.label(),
            match s {
                Suit::Spades => "S",
                Suit::Hearts => "H",
                Suit::Clubs => "C",
                Suit::Diamonds => "D",
            }
        ),
    }
}

/// A table in a chosen position.
pub struct Kit {
    pub state: State,
    pub rng: ChaCha8Rng,
    pub events: Vec<Event>,
    used: Vec<bool>,
    filler: Vec<bool>,
}

/// Default test settings: sequential windows (one prompt at a time), seat 0 first.
pub fn settings(n: u8) -> Settings {
    let mut s = Settings::new(n);
    s.salt_window = SaltWindow::Sequential;
    s.first_player = FirstPlayer::First { seat: 0 };
    s
}

impl Kit {
    /// A freshly created game of `n` players (sequential Salt windows, seat 0 first), as dealt.
    pub fn dealt(n: u8) -> Kit {
        Kit::dealt_with(settings(n))
    }

    /// A freshly created game with these settings, as dealt.
    pub fn dealt_with(s: Settings) -> Kit {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let events = create(&s, &mut rng).expect("create");
        let mut state = State::new();
        for e in &events {
            apply(&mut state, e);
        }
        let used = vec![true; state.pool.len()];
        let filler = vec![false; state.pool.len()];
        Kit { state, rng, events, used, filler }
    }

    /// An empty position of `n` players: every zone empty, every card out of play, each
    /// Candle given up to 20 filler cards (number cards other than Aces and 5s) (Jokers are never fillers, so BOO! and Panic stay
    /// predictable unless a test sets the Candle), seat 0 active in round 1 at its Ritual.
    pub fn new(n: u8) -> Kit {
        Kit::with(settings(n))
    }

    /// Like [`Kit::new`] with these settings.
    pub fn with(s: Settings) -> Kit {
        let mut k = Kit::dealt_with(s);
        let st = &mut k.state;
        for p in st.players.iter_mut() {
            p.candle.clear();
            p.hand.clear();
            p.shadow.clear();
        }
        st.dark.clear();
        st.resolving.clear();
        st.out_of_play = (0..st.pool.len() as u16).map(CardId).collect();
        k.used = vec![false; st.pool.len()];
        k.filler = vec![false; st.pool.len()];
        k.events.clear();
        let per_seat = 20.min(k.state.pool.len() * 8 / 13 / n_of(&k) as usize);
        for seat in 0..n_of(&k) {
            let filler = k.fillers(per_seat);
            k.state.players[seat as usize].candle = filler.into_iter().collect();
        }
        k.at_ritual(0);
        k
    }

    /// Takes an unused instance of `f` out of the out-of-play pile.
    pub fn take(&mut self, f: Face) -> CardId {
        let i = match (0..self.state.pool.len()).find(|&i| !self.used[i] && self.state.pool[i].face == f) {
            Some(i) => i,
            None => self.steal_filler(f),
        };
        self.used[i] = true;
        let c = CardId(i as u16);
        self.state.out_of_play.retain(|&x| x != c);
        c
    }

    /// Frees an instance of `f` that serves as a filler in some Candle, putting another unused
    /// filler card in its place.
    fn steal_filler(&mut self, f: Face) -> usize {
        let i = (0..self.state.pool.len())
            .find(|&i| self.filler[i] && self.state.pool[i].face == f)
            .unwrap_or_else(|| panic!("no unused {f} left in the pool"));
        let c = CardId(i as u16);
        let replacement = self.fillers(1);
        for p in self.state.players.iter_mut() {
            if let Some(pos) = p.candle.iter().position(|&x| x == c) {
                match replacement.first() {
                    Some(&r) => p.candle[pos] = r,
                    None => {
                        p.candle.remove(pos);
                    }
                }
            }
        }
        self.filler[i] = false;
        self.used[i] = false;
        self.state.out_of_play.push(c);
        i
    }

    fn fillers(&mut self, k: usize) -> Vec<CardId> {
        let mut v = Vec::new();
        for i in 0..self.state.pool.len() {
            if v.len() == k {
                break;
            }
            // Fillers: number cards other than Aces and 5s; never Jokers or face cards.
            let f = self.state.pool[i].face;
            if !self.used[i] && f.rank.is_number() && !matches!(f.rank, Rank::Ace | Rank::Five) {
                self.used[i] = true;
                self.filler[i] = true;
                let c = CardId(i as u16);
                self.state.out_of_play.retain(|&x| x != c);
                v.push(c);
            }
        }
        v
    }

    fn release(&mut self, cards: impl IntoIterator<Item = CardId>) {
        for c in cards {
            self.used[c.0 as usize] = false;
            self.filler[c.0 as usize] = false;
            self.state.out_of_play.push(c);
        }
    }

    /// Sets the hand of `seat` (oldest first).
    pub fn hand(mut self, seat: u8, cards: &[&str]) -> Self {
        let old = std::mem::take(&mut self.state.players[seat as usize].hand);
        self.release(old);
        let ids: Vec<CardId> = cards.iter().map(|c| self.take(face(c))).collect();
        self.state.players[seat as usize].hand = ids;
        self
    }

    /// Sets the Shadow of `seat`: (card, haunter) in entry order.
    pub fn shadow(mut self, seat: u8, ghosts: &[(&str, Option<u8>)]) -> Self {
        let old: Vec<CardId> =
            std::mem::take(&mut self.state.players[seat as usize].shadow).into_iter().map(|g| g.card).collect();
        self.release(old);
        let gs: Vec<Ghost> = ghosts
            .iter()
            .map(|(c, h)| {
                let id = self.take(face(c));
                Ghost { card: id, haunter: *h, suit: self.state.face(id).suit, visited: vec![seat] }
            })
            .collect();
        self.state.players[seat as usize].shadow = gs;
        self
    }

    /// Sets the Candle of `seat`, top first.
    pub fn candle(mut self, seat: u8, cards: &[&str]) -> Self {
        let old: Vec<CardId> = std::mem::take(&mut self.state.players[seat as usize].candle).into_iter().collect();
        self.release(old);
        let ids: Vec<CardId> = cards.iter().map(|c| self.take(face(c))).collect();
        self.state.players[seat as usize].candle = ids.into_iter().collect();
        self
    }

    /// Gives `seat` a Candle of `k` filler cards.
    pub fn candle_size(mut self, seat: u8, k: usize) -> Self {
        let old: Vec<CardId> = std::mem::take(&mut self.state.players[seat as usize].candle).into_iter().collect();
        self.release(old);
        let f = self.fillers(k);
        assert_eq!(f.len(), k, "not enough filler cards");
        self.state.players[seat as usize].candle = f.into_iter().collect();
        self
    }

    /// Sets The Dark, listed top first.
    pub fn dark(mut self, top_first: &[&str]) -> Self {
        let old = std::mem::take(&mut self.state.dark);
        self.release(old);
        let mut ids: Vec<CardId> = top_first.iter().map(|c| self.take(face(c))).collect();
        ids.reverse();
        self.state.dark = ids;
        self
    }

    /// Gives `seat` a class (and turns classes on).
    pub fn class(mut self, seat: u8, c: crate::model::classes::ClassId) -> Self {
        self.state.players[seat as usize].class = Some(c);
        if let Some(s) = &mut self.state.settings {
            s.classes = true;
        }
        self
    }

    /// Sets the Walls lying in `seat`'s Shadow: (card, builder).
    pub fn walls(mut self, seat: u8, cards: &[(&str, u8)]) -> Self {
        let ws =
            cards.iter().map(|(c, b)| crate::model::state::Wall { card: self.take(face(c)), builder: *b }).collect();
        self.state.players[seat as usize].walls = ws;
        self
    }

    /// Sets the Grimoire pages of `seat`.
    pub fn pages(mut self, seat: u8, cards: &[&str]) -> Self {
        let ps = cards.iter().map(|c| self.take(face(c))).collect();
        self.state.players[seat as usize].pages = ps;
        self
    }

    /// Faces of the Walls in `seat`'s Shadow.
    pub fn walls_of(&self, seat: u8) -> Vec<String> {
        self.state.players[seat as usize].walls.iter().map(|w| name(self.state.face(w.card))).collect()
    }

    /// The handle of the Wall `f` in `seat`'s Shadow.
    pub fn wall(&self, seat: u8, f: &str) -> CardRef {
        let fc = face(f);
        let c = self.state.players[seat as usize]
            .walls
            .iter()
            .map(|w| w.card)
            .find(|&c| self.state.face(c) == fc)
            .unwrap_or_else(|| panic!("no Wall {f} in seat {seat}'s Shadow"));
        handle(&self.state, c)
    }

    /// The handle of the page `f` of `seat`.
    pub fn page(&self, seat: u8, f: &str) -> CardRef {
        let fc = face(f);
        let c = self.state.players[seat as usize]
            .pages
            .iter()
            .copied()
            .find(|&c| self.state.face(c) == fc)
            .unwrap_or_else(|| panic!("no page {f} of seat {seat}"));
        handle(&self.state, c)
    }

    /// Every seat with an open prompt passes / declines / yields until none is a Salt, reaction
    /// or counter prompt (a quiet table).
    pub fn quiet(&mut self) {
        use crate::rules::prompt::PromptKind;
        for _ in 0..100 {
            let Some(p) = prompts(&self.state).into_iter().next() else { return };
            let a = match p.kind {
                PromptKind::Salt { .. } => Answer::Pass,
                PromptKind::CounterSalt { .. } => Answer::Yield,
                PromptKind::Reaction { .. } => Answer::Decline,
                _ => return,
            };
            self.answer(p.seat, a).expect("quiet answer");
        }
    }

    /// The last `action_resolved` effect.
    pub fn last_effect(&self) -> Option<crate::model::event::Effect> {
        self.events.iter().rev().find_map(|e| match e {
            Event::ActionResolved { effect, .. } => Some(effect.clone()),
            _ => None,
        })
    }

    /// Marks `seat` as eliminated with the given placing (its zones must be empty).
    pub fn out(mut self, seat: u8, placing: u8) -> Self {
        let p = &mut self.state.players[seat as usize];
        let cards: Vec<CardId> =
            p.candle.drain(..).chain(p.hand.drain(..)).chain(p.shadow.drain(..).map(|g| g.card)).collect();
        p.lit = false;
        p.placing = Some(placing);
        self.release(cards);
        self.state.eliminated.push(seat);
        self
    }

    /// Puts `seat` at the start of its Ritual (budget 1, no action yet).
    pub fn at_ritual(&mut self, seat: u8) {
        self.state.turn.active = seat;
        self.state.turn.round = self.state.turn.round.max(1);
        self.state.turn.budget = 1;
        self.state.turn.declared = 0;
        self.state.step = Step::Ritual;
    }

    /// Builder form of [`Kit::at_ritual`].
    pub fn ritual(mut self, seat: u8) -> Self {
        self.at_ritual(seat);
        self
    }

    /// Puts the game just before the turn of `seat` in `round` (the next command or
    /// [`Kit::settle`] starts it).
    pub fn turn_start(mut self, seat: u8, round: u16) -> Self {
        self.state.turn.round = round;
        self.state.step = Step::StartTurn { seat, round };
        self
    }

    /// Puts `seat` at its Burden (after its Ritual).
    pub fn burden(mut self, seat: u8) -> Self {
        self.at_ritual(seat);
        self.state.turn.budget = 0;
        self.state.step = Step::Burden;
        self
    }

    /// Puts `seat` at Am I Alive? (the next settle runs the checks).
    pub fn am_i_alive(mut self, seat: u8) -> Self {
        self.at_ritual(seat);
        self.state.turn.budget = 0;
        self.state.step = Step::AmIAlive;
        self
    }

    /// Runs the automatic steps from the current position and checks the invariants.
    pub fn settle(&mut self) -> &mut Self {
        let mut out = Vec::new();
        crate::rules::decide::advance(&mut self.state, &mut self.rng, &mut out);
        self.events.extend(out);
        invariants::check(&self.state).expect("invariants after settle");
        self
    }

    /// Builder form of [`Kit::settle`].
    pub fn settled(mut self) -> Self {
        self.settle();
        self
    }

    /// Sends a command; returns the events it caused.
    pub fn send(&mut self, cmd: Command) -> Result<Vec<Event>, RuleError> {
        let before = self.state.clone();
        let mut out = Vec::new();
        let r = decide_mut(&mut self.state, &cmd, &mut self.rng, &mut out);
        match r {
            Ok(()) => {
                invariants::check(&self.state).expect("invariants after command");
                self.events.extend(out.clone());
                Ok(out)
            }
            Err(e) => {
                assert_eq!(self.state, before, "a refused command changed the state");
                assert!(out.is_empty());
                Err(e)
            }
        }
    }

    /// `seat` answers its open prompt.
    pub fn answer(&mut self, seat: u8, answer: Answer) -> Result<Vec<Event>, RuleError> {
        self.send(Command::Answer { seat, prompt: None, answer })
    }

    /// `seat` declares `action` (cards as handles).
    pub fn act(&mut self, seat: u8, action: Action<CardRef>) -> Result<Vec<Event>, RuleError> {
        self.answer(seat, Answer::Act { action })
    }

    /// The handle of the card `f` in `seat`'s hand.
    pub fn in_hand(&self, seat: u8, f: &str) -> CardRef {
        let fc = face(f);
        let c = self.state.players[seat as usize]
            .hand
            .iter()
            .copied()
            .find(|&c| self.state.face(c) == fc)
            .unwrap_or_else(|| panic!("no {f} in seat {seat}'s hand"));
        handle(&self.state, c)
    }

    /// The handle of the ghost `f` in `seat`'s Shadow.
    pub fn ghost(&self, seat: u8, f: &str) -> CardRef {
        let fc = face(f);
        let c = self.state.players[seat as usize]
            .shadow
            .iter()
            .map(|g| g.card)
            .find(|&c| self.state.face(c) == fc)
            .unwrap_or_else(|| panic!("no ghost {f} in seat {seat}'s Shadow"));
        handle(&self.state, c)
    }

    /// The open prompt of `seat`.
    pub fn prompt(&self, seat: u8) -> Option<Prompt> {
        prompt_for(&self.state, seat)
    }

    /// Seats with an open prompt.
    pub fn asked(&self) -> Vec<u8> {
        prompts(&self.state).into_iter().map(|p| p.seat).collect()
    }

    /// Faces in `seat`'s hand, oldest first.
    pub fn hand_of(&self, seat: u8) -> Vec<String> {
        self.state.players[seat as usize].hand.iter().map(|&c| name(self.state.face(c))).collect()
    }

    /// Faces in `seat`'s Shadow, entry order, with haunters.
    pub fn shadow_of(&self, seat: u8) -> Vec<(String, Option<u8>)> {
        self.state.players[seat as usize].shadow.iter().map(|g| (name(self.state.face(g.card)), g.haunter)).collect()
    }

    /// Faces in `seat`'s Candle, top first.
    pub fn candle_of(&self, seat: u8) -> Vec<String> {
        self.state.players[seat as usize].candle.iter().map(|&c| name(self.state.face(c))).collect()
    }

    /// The Dark, top first.
    pub fn dark_of(&self) -> Vec<String> {
        self.state.dark.iter().rev().map(|&c| name(self.state.face(c))).collect()
    }

    /// Is `seat` Lit?
    pub fn lit(&self, seat: u8) -> bool {
        self.state.is_lit(seat)
    }

    /// The active player's budget.
    pub fn budget(&self) -> u8 {
        self.state.turn.budget
    }

    /// The current step, for assertions.
    pub fn step(&self) -> &Step {
        &self.state.step
    }
}

fn n_of(k: &Kit) -> u8 {
    k.state.players.len() as u8
}
