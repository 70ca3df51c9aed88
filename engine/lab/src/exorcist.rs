//! *Let's Call the Exorcist* in the lab: the random bot, the heuristic bot and random playouts
//! with figures (games/s, rounds, team win rates) and invariant checks, for
//! `flicker simulate --game exorcist`, property tests and benchmarks. Pure: both generators are
//! passed in.

use exorcist::rules::invariants;
use exorcist::{Answer, CardKind, CardType, Event, Exorcist, LeakChecker, Prompt, PromptKind, Role, Settings, View};
use flicker_game::{Bot, Game, Viewer, kit};
use rand::seq::IndexedRandom;
use rand::{Rng, RngExt};

/// The random bot: a uniformly random legal answer, reading the prompt only.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomBot;

impl Bot<Exorcist> for RandomBot {
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &Prompt, _view: &View, rng: &mut R) -> Answer {
        *prompt.legal_answers().choose(rng).expect("a prompt has a legal answer")
    }
}

/// The heuristic bot ([`heuristic_answer`]): plays from its seat's view only.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicBot;

impl Bot<Exorcist> for HeuristicBot {
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &Prompt, view: &View, rng: &mut R) -> Answer {
        heuristic_answer(prompt, view, rng)
    }
}

/// What the seat believes its Role is: its Role known now, else its latest look at its own
/// tile this round (possibly stale after a shuffle), else Innocent (the likelier team).
pub fn believed_role(view: &View, seat: u8) -> Role {
    if let Some(r) = view.known_roles.iter().filter(|r| r.seat == seat).max_by_key(|r| r.since) {
        return r.role;
    }
    view.log
        .iter()
        .rev()
        .find_map(|n| match &n.note {
            exorcist::projection::view::NoteView::Role(r) if r.seat == seat && r.round == view.round => Some(r.role),
            _ => None,
        })
        .unwrap_or(Role::Innocent)
}

/// The Role the seat knows `other` holds now, if any.
fn known_role(view: &View, other: u8) -> Option<Role> {
    view.known_roles.iter().filter(|r| r.seat == other).max_by_key(|r| r.since).map(|r| r.role)
}

/// How much `seat`'s team wants `kind` turned up.
fn card_value(kind: CardKind, team: Role) -> i32 {
    match (kind.card_type(), team) {
        (CardType::Holy, Role::Innocent) | (CardType::Cursed, Role::Possessed) => 10,
        (CardType::Holy, Role::Possessed) | (CardType::Cursed, Role::Innocent) => -10,
        (CardType::Blessing, _) => 1,
        _ => 0,
    }
}

/// Sensible play from the seat's view only: reveal the cards it knows help its team (and avoid
/// those that help the other), look whenever a look is offered, take and sanction points from
/// the leaders not known to be teammates, name known teammates as Seeker.
pub fn heuristic_answer<R: Rng + ?Sized>(prompt: &Prompt, view: &View, rng: &mut R) -> Answer {
    let me = prompt.seat;
    let team = believed_role(view, me);
    let mate = |s: u8| known_role(view, s) == Some(team);
    match &prompt.kind {
        PromptKind::SelectCard { cards, .. }
        | PromptKind::HijinxSelect { cards, .. }
        | PromptKind::ViolationPeek { cards } => {
            let peeking = matches!(prompt.kind, PromptKind::ViolationPeek { .. });
            let scored: Vec<(i32, Answer)> = cards
                .iter()
                .map(|s| {
                    let known = view.known_cards.iter().find(|k| k.owner == s.owner && k.position == s.position);
                    let score = match known {
                        // A peek is worth most at a card not yet known.
                        Some(_) if peeking => -5,
                        Some(k) => card_value(k.card, team),
                        None => 0,
                    };
                    (score, Answer::Card { owner: s.owner, position: s.position })
                })
                .collect();
            let best = scored.iter().map(|(s, _)| *s).max().expect("a card");
            let top: Vec<Answer> = scored.iter().filter(|(s, _)| *s == best).map(|(_, a)| *a).collect();
            *top.choose(rng).expect("a card")
        }
        PromptKind::TabletPeek | PromptKind::PrepucePeek | PromptKind::PazuzuPeek { .. } => Answer::Peek,
        PromptKind::BookPeek { seats } => {
            let unknown: Vec<u8> =
                seats.iter().copied().filter(|&s| s != me && known_role(view, s).is_none()).collect();
            match unknown.choose(rng) {
                Some(&seat) => Answer::PeekTile { seat },
                None => Answer::PeekTile { seat: me },
            }
        }
        PromptKind::SatanPeek { .. } => Answer::PeekTile { seat: me },
        PromptKind::RingTarget { seats } | PromptKind::SanctionTarget { seats } => {
            let pick = seats
                .iter()
                .copied()
                .max_by_key(|&s| (!mate(s), view.points[s as usize], rng.random_range(0..8u8)))
                .expect("a player");
            Answer::Player { seat: pick }
        }
        PromptKind::NameSeeker { seats } => {
            let mates: Vec<u8> = seats.iter().copied().filter(|&s| mate(s)).collect();
            Answer::Player { seat: *mates.choose(rng).or(seats.choose(rng)).expect("a player") }
        }
        PromptKind::TiePick { positions } => Answer::Pick { position: *positions.choose(rng).expect("a position") },
    }
}

/// Which bot plays a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// [`RandomBot`].
    #[default]
    Random,
    /// [`HeuristicBot`].
    Heuristic,
}

/// A seat's bot, either policy.
#[derive(Debug, Clone, Copy)]
pub struct PolicyBot(pub Policy);

impl Bot<Exorcist> for PolicyBot {
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &Prompt, view: &View, rng: &mut R) -> Answer {
        match self.0 {
            Policy::Random => RandomBot.answer(prompt, view, rng),
            Policy::Heuristic => HeuristicBot.answer(prompt, view, rng),
        }
    }
}

/// One game's figures.
#[derive(Debug, Clone)]
pub struct Playout {
    /// Every event.
    pub events: Vec<Event>,
    /// The final state.
    pub state: exorcist::State,
    /// Commands sent.
    pub commands: u32,
}

/// Plays one game; seat `s` is played by `policies[s % len]`. With `check`, the invariants are
/// checked after every event, and fold == state, replay == live and the leak checker (every
/// viewer, every prefix) at the end (slow).
pub fn play<R: Rng + ?Sized, B: Rng + ?Sized>(
    settings: &Settings,
    policies: &[Policy],
    rng: &mut R,
    bot: &mut B,
    check: bool,
    max_commands: u32,
) -> Result<Playout, String> {
    let mut bots: Vec<PolicyBot> =
        (0..settings.players).map(|s| PolicyBot(policies[s as usize % policies.len()])).collect();
    let p = kit::play::<Exorcist, _, _, _>(settings, &mut bots, rng, bot, max_commands)?;
    if check {
        let mut state = exorcist::State::default();
        for (i, e) in p.events.iter().enumerate() {
            Exorcist::apply(&mut state, e);
            invariants::check(&state).map_err(|m| format!("after event {i}: {m}"))?;
        }
        kit::check_fold::<Exorcist>(&p.events, &p.state)?;
        let viewers = Viewer::all(settings.players);
        let views: Vec<_> = viewers.iter().map(|&v| (v, Exorcist::view(&p.state, v))).collect();
        kit::check_replay::<Exorcist>(&p.events, &p.state, &views, &[])?;
        kit::check_leaks::<Exorcist, _>(&p.events, &mut LeakChecker::new())?;
    }
    invariants::check_settled(&p.state)?;
    Ok(Playout { events: p.events, state: p.state, commands: p.commands })
}

/// Figures of a batch of games at one player count.
#[derive(Debug, Clone, Default)]
pub struct SimReport {
    /// Players per table.
    pub players: u8,
    /// Games played.
    pub games: u32,
    /// Wall-clock seconds (filled by the caller that times it; 0 otherwise).
    pub seconds: f64,
    /// Rounds played in all.
    pub rounds: u64,
    /// Rounds won by the Innocents (X4.2).
    pub innocent_rounds: u64,
    /// Rounds won by the Possessed.
    pub possessed_rounds: u64,
    /// Games won by each seat.
    pub wins_by_seat: Vec<u32>,
    /// Games decided by the mini-game (X8).
    pub tie_games: u32,
    /// Commands of the longest game.
    pub longest: u32,
    /// Events in all.
    pub events: u64,
}

impl SimReport {
    /// Mean rounds per game.
    pub fn mean_rounds(&self) -> f64 {
        self.rounds as f64 / self.games.max(1) as f64
    }
    /// The Innocents' share of round wins.
    pub fn innocent_rate(&self) -> f64 {
        self.innocent_rounds as f64 / self.rounds.max(1) as f64
    }
    /// The Possessed's share of round wins.
    pub fn possessed_rate(&self) -> f64 {
        self.possessed_rounds as f64 / self.rounds.max(1) as f64
    }
}

/// Plays `games` games at `players` seats (seeded generators per game from `seed`), with
/// `policy` in every seat, checking as [`play`] does; the first failure is returned.
pub fn simulate(players: u8, games: u32, policy: Policy, seed: u64, check: bool) -> Result<SimReport, String> {
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    let start = std::time::Instant::now();
    let settings = Settings::new(players);
    let mut rep = SimReport { players, wins_by_seat: vec![0; players as usize], ..SimReport::default() };
    for g in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(g as u64));
        let mut bot = ChaCha8Rng::seed_from_u64(seed.wrapping_add(g as u64) ^ 0xb07);
        let p = play(&settings, &[policy], &mut rng, &mut bot, check, 100_000)
            .map_err(|m| format!("game {g} (seed {}): {m}", seed.wrapping_add(g as u64)))?;
        rep.games += 1;
        rep.events += p.events.len() as u64;
        rep.longest = rep.longest.max(p.commands);
        for h in &p.state.history {
            rep.rounds += 1;
            match h.winner {
                Role::Innocent => rep.innocent_rounds += 1,
                Role::Possessed => rep.possessed_rounds += 1,
            }
        }
        if let Some(w) = p.state.result.as_ref().and_then(|r| r.winner) {
            rep.wins_by_seat[w as usize] += 1;
        }
        if p.state.tie.is_some() {
            rep.tie_games += 1;
        }
    }
    rep.seconds = start.elapsed().as_secs_f64();
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    /// Random and heuristic bots play 4 to 8 seats to the end with every check on.
    #[test]
    fn bots_play_checked_games_at_every_player_count() {
        for players in 4..=8u8 {
            for policy in [Policy::Random, Policy::Heuristic] {
                let r = simulate(players, 2, policy, players as u64 * 100, true).unwrap();
                assert_eq!(r.games, 2);
                assert!(r.rounds >= 2 && r.innocent_rounds + r.possessed_rounds == r.rounds);
            }
        }
    }

    /// The heuristic bots, playing every seat, win more rounds for the Innocents than random
    /// bots do: they turn up the Holy Artifacts they have seen and avoid the Cursed ones.
    #[test]
    fn heuristic_innocents_win_more_rounds_than_random_ones() {
        let r = simulate(6, 150, Policy::Random, 1, false).unwrap();
        let h = simulate(6, 150, Policy::Heuristic, 1, false).unwrap();
        println!("innocent round wins: random {:.3}, heuristic {:.3}", r.innocent_rate(), h.innocent_rate());
        assert!(h.innocent_rate() > r.innocent_rate());
    }

    /// A heuristic answer is always legal (the engine refuses illegal ones, failing the game).
    #[test]
    fn heuristic_answers_are_legal() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut bot = ChaCha8Rng::seed_from_u64(4);
        for players in [4u8, 8] {
            play(&Settings::new(players), &[Policy::Heuristic, Policy::Random], &mut rng, &mut bot, false, 100_000)
                .unwrap();
        }
    }
}
