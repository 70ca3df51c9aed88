//! R10.1.1: folding one event into the state. Never draws: every random outcome is in the event
//! (X11.2). The only rule evolve applies itself is where a turn's resolution starts
//! ([`crate::rules::effects::opening_stage`]), a function of the state.

use crate::model::card::{CardId, CardType, TileId};
use crate::model::event::{Direction, Event, Limit};
use crate::model::state::{Ask, Note, Revealed, Round, RoundSummary, Sighting, Stage, State, Tie, Turn};
use crate::rules::effects::opening_stage;

/// Folds `event` into `state`.
pub fn evolve(mut state: State, event: &Event) -> State {
    apply(&mut state, event);
    state
}

/// Forgets, for every seat, where the cards of `cards` lie (their row was shuffled).
fn forget_cards(round: &mut Round, cards: &[CardId]) {
    for k in &mut round.known_cards {
        k.retain(|(c, _)| !cards.contains(c));
    }
}

fn learn_card(state: &mut State, seat: u8, at: u64, owner: u8, position: u8, card: CardId) {
    state.notes[seat as usize].push(Note::Card(Sighting { at, owner, position, card }));
    let round = state.round.as_mut().expect("a round");
    let k = &mut round.known_cards[seat as usize];
    k.retain(|(c, _)| *c != card);
    k.push((card, at));
}

/// After an answer to an effect prompt: X9.5's second look, or the effect is resolved.
fn after_answer(round: &mut Round) {
    if let Some(t) = round.turn.as_mut() {
        t.stage = match t.stage {
            Stage::Ask(Ask::TabletSeeker) if t.chosen != t.seeker => Stage::Ask(Ask::TabletChosen),
            _ => Stage::Done,
        };
    }
}

fn resolved(round: &mut Round) {
    if let Some(t) = round.turn.as_mut() {
        t.stage = Stage::Done;
    }
}

/// Folds `event` into `state` in place.
pub fn apply(state: &mut State, event: &Event) {
    let at = state.version;
    state.version += 1;
    if !matches!(event, Event::TiePicked { .. } | Event::Conceded { .. } | Event::TimedOut { .. }) {
        state.point = at;
    }
    match event {
        Event::GameCreated { ruleset, settings, first_seeker, .. } => {
            let n = settings.players as usize;
            state.settings = Some(settings.clone());
            state.ruleset = Some(ruleset.clone());
            state.points = vec![0; n];
            state.conceded = vec![false; n];
            state.notes = vec![vec![]; n];
            state.next_seeker = *first_seeker;
        }
        Event::RoundStarted { round, deck, tiles, starting_point, first_seeker } => {
            let n = state.players() as usize;
            if *starting_point {
                state.points.iter_mut().for_each(|p| *p += 1);
            }
            let count = |t: CardType| deck.iter().filter(|c| c.kind().card_type() == t).count() as u8;
            state.rounds = *round;
            for (s, t) in tiles.iter().enumerate() {
                state.notes[s].push(Note::Role { at, round: *round, seat: s as u8, role: t.role() });
            }
            state.round = Some(Round {
                number: *round,
                deck: deck.clone(),
                holy: count(CardType::Holy),
                cursed: count(CardType::Cursed),
                holy_revealed: 0,
                cursed_revealed: 0,
                tiles: tiles.clone(),
                rows: vec![vec![]; n],
                deal: 0,
                deal_revealed: 0,
                centre: vec![],
                set_aside: vec![],
                reveals: 0,
                seeker: *first_seeker,
                turn: None,
                chain: vec![],
                spew: None,
                violation: None,
                known_cards: vec![vec![]; n],
                known_tiles: tiles.iter().enumerate().map(|(s, t)| vec![(s as u8, t.role(), at)]).collect(),
            });
        }
        Event::DealStarted { deal, rows } => {
            let r = state.round.as_mut().expect("a round");
            if !r.centre.is_empty() {
                r.set_aside.push(std::mem::take(&mut r.centre));
            }
            r.deal = *deal;
            r.deal_revealed = 0;
            r.rows = rows.clone();
            r.known_cards.iter_mut().for_each(Vec::clear);
            let number = r.number;
            for (s, row) in rows.iter().enumerate() {
                let mut cards: Vec<_> = row.iter().map(|c| c.kind()).collect();
                cards.sort();
                state.notes[s].push(Note::Dealt { at, round: number, deal: *deal, cards });
            }
        }
        Event::CardRevealed { seeker, chosen, position, card, .. } => {
            let points = state.points.clone();
            let r = state.round.as_mut().expect("a round");
            r.rows[*chosen as usize].remove(*position as usize - 1);
            forget_cards(r, &[*card]);
            match card.kind().card_type() {
                CardType::Holy => r.holy_revealed += 1,
                CardType::Cursed => r.cursed_revealed += 1,
                _ => {}
            }
            // X6.5: the limits applied to this selection; they lapse with it.
            r.spew = None;
            r.violation = None;
            let stage = opening_stage(r, &points, card.kind(), *seeker, *chosen);
            r.turn =
                Some(Turn { seeker: *seeker, chosen: *chosen, card: *card, reveal: r.reveals, stage, named: None });
            r.reveals += 1;
        }
        Event::CardsPassed { direction, passes } => {
            let r = state.round.as_mut().expect("a round");
            let mut taken = Vec::new();
            for p in passes {
                let row = &mut r.rows[p.from as usize];
                let position = match direction {
                    Direction::Right => {
                        let c = row.pop().expect("a card to pass");
                        debug_assert_eq!(c, p.card);
                        row.len() as u8 + 1
                    }
                    Direction::Left => {
                        let c = row.remove(0);
                        debug_assert_eq!(c, p.card);
                        1
                    }
                };
                taken.push((p.from, position, p.card));
            }
            for p in passes {
                let row = &mut r.rows[p.to as usize];
                match direction {
                    Direction::Right => row.push(p.card),
                    Direction::Left => row.insert(0, p.card),
                }
            }
            resolved(r);
            for (from, position, card) in taken {
                learn_card(state, from, at, from, position, card);
            }
        }
        Event::PointsChanged { changes, .. } => {
            for c in changes {
                let p = &mut state.points[c.seat as usize];
                *p = (*p as i64 + c.delta as i64).max(0) as u32;
            }
            if let Some(r) = state.round.as_mut() {
                resolved(r);
            }
        }
        Event::RolePeeked { peeker, target, tile, .. } => {
            let r = state.round.as_mut().expect("a round");
            let k = &mut r.known_tiles[*peeker as usize];
            k.retain(|(s, _, _)| s != target);
            k.push((*target, tile.role(), at));
            after_answer(r);
            let round = r.number;
            state.notes[*peeker as usize].push(Note::Role { at, round, seat: *target, role: tile.role() });
        }
        Event::PeekDeclined { .. } => after_answer(state.round.as_mut().expect("a round")),
        Event::RowPeeked { peeker, cards } => {
            resolved(state.round.as_mut().expect("a round"));
            for (i, c) in cards.iter().enumerate() {
                learn_card(state, *peeker, at, *peeker, i as u8 + 1, *c);
            }
        }
        Event::CardPeeked { peeker, owner, position, card } => {
            let r = state.round.as_mut().expect("a round");
            r.violation = Some(*owner);
            resolved(r);
            learn_card(state, *peeker, at, *owner, *position, *card);
        }
        Event::SeekerNamed { seeker, .. } => {
            let r = state.round.as_mut().expect("a round");
            if let Some(t) = r.turn.as_mut() {
                t.named = Some(*seeker);
            }
            resolved(r);
        }
        Event::HijinxReturned { chosen, row } => {
            let r = state.round.as_mut().expect("a round");
            r.rows[*chosen as usize] = row.clone();
            forget_cards(r, row);
            r.chain.push(*chosen);
            r.turn = None;
        }
        Event::LimitSet { limit, seat } => {
            let r = state.round.as_mut().expect("a round");
            match limit {
                Limit::Spew => r.spew = Some(*seat),
                Limit::Violation => r.violation = Some(*seat),
            }
            resolved(r);
        }
        Event::RowsExchanged { seeker, chosen, seeker_row, chosen_row } => {
            let r = state.round.as_mut().expect("a round");
            r.rows[*seeker as usize] = seeker_row.clone();
            r.rows[*chosen as usize] = chosen_row.clone();
            forget_cards(r, seeker_row);
            forget_cards(r, chosen_row);
            resolved(r);
        }
        Event::TilesShuffled { seeker, chosen, seeker_tile, chosen_tile } => {
            let r = state.round.as_mut().expect("a round");
            r.tiles[*seeker as usize] = *seeker_tile;
            r.tiles[*chosen as usize] = *chosen_tile;
            for k in &mut r.known_tiles {
                k.retain(|(s, _, _)| s != seeker && s != chosen);
            }
            if let Some(t) = r.turn.as_mut() {
                t.stage = Stage::Ask(Ask::Satan);
            }
        }
        Event::TurnEnded { next_seeker } => {
            let r = state.round.as_mut().expect("a round");
            let t = r.turn.take().expect("a turn");
            r.centre.push(Revealed {
                card: t.card,
                round: r.number,
                reveal: t.reveal,
                deal: r.deal,
                seeker: t.seeker,
                chosen: t.chosen,
            });
            r.deal_revealed += 1;
            r.seeker = *next_seeker;
            r.chain.clear();
            state.next_seeker = *next_seeker;
        }
        Event::RoundEnded { round, winner, scorers } => {
            let r = state.round.take().expect("a round");
            for s in scorers {
                state.points[*s as usize] += 2;
            }
            let roles = r.tiles.iter().map(|t: &TileId| t.role()).collect();
            state.history.push(RoundSummary { number: *round, winner: *winner, roles, scorers: scorers.clone() });
        }
        Event::TieRowLaid { players, blessing } => {
            let (layout, pick_rounds) = state.tie.as_ref().map_or((1, 0), |t| (t.layout + 1, t.pick_rounds));
            state.tie = Some(Tie {
                players: players.clone(),
                layout,
                blessing: *blessing,
                available: (1..=5).collect(),
                picks: vec![],
                pick_rounds,
                last_revealed: state.tie.as_ref().and_then(|t| t.last_revealed.clone()),
                revealed: vec![],
                relay: false,
                winner: None,
            });
        }
        Event::TiePicked { seat, position } => {
            state.tie.as_mut().expect("a mini-game").picks.push((*seat, *position));
        }
        Event::TieRevealed => {
            let t = state.tie.as_mut().expect("a mini-game");
            t.pick_rounds += 1;
            let picks = std::mem::take(&mut t.picks);
            let winners: Vec<u8> = picks.iter().filter(|(_, p)| *p == t.blessing).map(|(s, _)| *s).collect();
            for (_, p) in &picks {
                if !t.revealed.contains(p) {
                    t.revealed.push(*p);
                }
            }
            t.last_revealed = Some((t.layout, picks.clone()));
            match winners.len() {
                1 => t.winner = Some(winners[0]),
                0 => {
                    t.available.retain(|p| !picks.iter().any(|(_, q)| q == p));
                    // X8.5: no Mischief left: a new row for the same players.
                    t.relay = t.available.iter().all(|&p| p == t.blessing);
                }
                _ => {
                    t.players = winners;
                    t.relay = true;
                }
            }
        }
        Event::TieDrawn { winner } => state.tie.as_mut().expect("a mini-game").winner = Some(*winner),
        Event::GameEnded { winner, reason } => {
            state.result = Some(crate::model::state::GameResult { winner: *winner, reason: *reason });
        }
        Event::TimedOut { .. } => {}
        Event::Conceded { seat } => state.conceded[*seat as usize] = true,
    }
}
