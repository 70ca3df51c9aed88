//! The heuristic bot: plays from what its seat may see (its [`View`] and open [`Prompt`]),
//! never from the state. It keeps its own Shadow clear of Possession (three ghosts of one suit,
//! R7.3), prefers removals that Siphon (R5.4, they refill its Candle), pushes neighbours toward
//! Possession with its Haunts, Salts actions that hurt it, and keeps 5s and Aces in its Burden.
//! Simple rules, no search: a baseline opponent that plays sensibly, unlike the random bot.

use final_flicker::action::{Action, MediumMode};
use final_flicker::card::{Face, Rank, Suit};
use final_flicker::classes::abilities::{Ability, AbilityOption};
use final_flicker::classes::reactions::ReactionKind;
use final_flicker::command::Answer;
use final_flicker::handle::CardRef;
use final_flicker::prompt::{ClassActionOption, Prompt, PromptKind, UseOption};
use final_flicker::view::{GhostView, View, Viewer};
use rand::Rng;

fn seat_of(view: &View) -> Option<u8> {
    match view.viewer {
        Viewer::Seat { seat } => Some(seat),
        _ => None,
    }
}

fn shadow(view: &View, seat: u8) -> &[GhostView] {
    view.players.get(seat as usize).map_or(&[], |p| p.shadow.as_slice())
}

/// Ghost counts per suit (♠, ♥, ♣, ♦) in a Shadow.
fn suit_counts(ghosts: &[GhostView]) -> [usize; 4] {
    let mut c = [0; 4];
    for g in ghosts {
        if let Some(s) = g.suit {
            c[(4 - s.tier()) as usize] += 1;
        }
    }
    c
}

fn count_of(ghosts: &[GhostView], suit: Option<Suit>) -> usize {
    suit.map_or(0, |s| suit_counts(ghosts)[(4 - s.tier()) as usize])
}

/// How much a ghost threatens its owner: the number of ghosts sharing its suit.
fn threat(ghosts: &[GhostView], handle: CardRef) -> usize {
    ghosts.iter().find(|g| g.card.handle == handle).map_or(0, |g| count_of(ghosts, g.suit))
}

/// The heuristic answer to `prompt`, seen from `view` (the view of the prompt's seat).
pub fn heuristic_answer<R: Rng + ?Sized>(prompt: &Prompt, view: &View, rng: &mut R) -> Answer {
    let me = seat_of(view).unwrap_or(prompt.seat);
    let mine = shadow(view, me);
    match &prompt.kind {
        PromptKind::HauntingChoice { aces, panic, ghosts } => {
            if let Some(a) = aces.first()
                && *ghosts >= 2
            {
                return Answer::Reprieve { ace: a.handle };
            }
            // Panic on the most threatening low ghost when several would burn a lot.
            if *ghosts >= 3
                && let Some(g) = panic.iter().min_by_key(|g| (usize::MAX - threat(mine, g.handle), g.face.value()))
            {
                return Answer::Panic { ghost: g.handle };
            }
            match aces.first() {
                Some(a) => Answer::Reprieve { ace: a.handle },
                None => Answer::Endure,
            }
        }
        // A6 Omen, A12.3: the best play among the revealed cards, else the prompt's default play.
        PromptKind::OmenPlay { options, .. } => ritual(view, me, options).unwrap_or_else(|| prompt.default.clone()),
        PromptKind::Ritual { ability: Some(a), .. } if let Some(ab) = use_ability(view, me, a) => {
            Answer::Ability { ability: ab }
        }
        PromptKind::Ritual { options, budget, class_actions, .. } if *budget > 0 => ritual(view, me, options)
            .or_else(|| match class_actions.first() {
                // R8.33: Usurp a neighbour with the larger hand.
                Some(ClassActionOption::Usurp { targets }) => targets
                    .iter()
                    .max_by_key(|&&t| view.players.get(t as usize).map_or(0, |p| p.hand_size))
                    .map(|&t| Answer::Act { action: Action::Usurp { target: t } }),
                None => None,
            })
            .unwrap_or(Answer::EndRitual),
        PromptKind::Ritual { .. } => Answer::EndRitual,
        PromptKind::ChooseClass { offer } => {
            Answer::ChooseClass { class: offer.first().copied().unwrap_or(final_flicker::classes::ClassId::Clown) }
        }
        // Class reactions against a Haunt or a card play: always used when possible.
        PromptKind::Reaction { reaction: ReactionKind::ShadowCancel, .. } => Answer::React { card: None },
        PromptKind::Reaction { cards, .. } => match cards.first() {
            Some(c) => Answer::React { card: Some(*c) },
            None => Answer::Decline,
        },
        PromptKind::MartyrDraw => Answer::Draw,
        PromptKind::TraderSwap { .. } => Answer::Decline,
        PromptKind::PlagueSpread { .. } => prompt.default.clone(),
        PromptKind::WatcherPick { hands, per_hand } => {
            let mut cards = Vec::new();
            for (_, h) in hands {
                let mut h = h.clone();
                h.sort_by_key(|c| std::cmp::Reverse(keep_value(is_classic(view), c.face)));
                cards.extend(h.iter().take(*per_hand).map(|c| c.handle));
            }
            Answer::Pick { cards }
        }
        PromptKind::Salt { actor, action, fives, boo, .. } => {
            let hurts = *boo || salt_worthy(view, me, *actor, action);
            match fives.first() {
                Some(f) if hurts => Answer::Salt { card: f.handle },
                _ => Answer::Pass,
            }
        }
        PromptKind::CounterSalt { fives, .. } => match fives.first() {
            Some(f) => Answer::Salt { card: f.handle },
            None => Answer::Yield,
        },
        PromptKind::SightPick { hand, count, .. } => {
            let mut h = hand.clone();
            h.sort_by_key(|c| std::cmp::Reverse(keep_value(is_classic(view), c.face)));
            Answer::Pick { cards: h.iter().take(*count).map(|c| c.handle).collect() }
        }
        // A9 row 7: discard the neighbour's most useful cards.
        PromptKind::SadistPick { hand, count, .. } => {
            let mut h = hand.clone();
            h.sort_by_key(|c| std::cmp::Reverse(keep_value(is_classic(view), c.face)));
            Answer::Pick { cards: h.iter().take(*count).map(|c| c.handle).collect() }
        }
        PromptKind::MediumPick { choices } => Answer::Pick {
            cards: choices
                .iter()
                .max_by_key(|c| keep_value(is_classic(view), c.face))
                .map(|c| c.handle)
                .into_iter()
                .collect(),
        },
        PromptKind::BurdenDiscard { count, hand } => {
            let mut h = hand.clone();
            h.sort_by_key(|c| keep_value(is_classic(view), c.face));
            Answer::Pick { cards: h.iter().take(*count).map(|c| c.handle).collect() }
        }
        PromptKind::DeathSplit { .. } | PromptKind::TurnOrderChoice => {
            let _ = rng.next_u32();
            prompt.default.clone()
        }
    }
}

/// How much the bot wants to keep a card: 5s (Salt) and Aces (Reprieve) most, then Kings and
/// Jokers, then by value; in classic (A6-A8) 4s (Salt) most, then Kings, Jokers and 6s (Cleanse).
fn keep_value(classic: bool, f: Face) -> u8 {
    match (classic, f.rank) {
        (false, Rank::Five) | (true, Rank::Four) => 30,
        (false, Rank::Ace) => 28,
        (_, Rank::King | Rank::Joker) => 25,
        (false, Rank::Seven) | (true, Rank::Six) => 22,
        (_, r) => r.value(),
    }
}

/// A1: whether the viewed game is played under `classic-1.0`.
fn is_classic(view: &View) -> bool {
    view.ruleset.id == final_flicker::settings::CLASSIC_RULESET
}

/// Whether an action of `actor` is worth a Salt for `me`.
fn salt_worthy(view: &View, me: u8, actor: u8, action: &str) -> bool {
    let targets_me = view
        .action
        .as_ref()
        .map(|a| match &a.action {
            Action::Haunt { target, .. }
            | Action::Draft { target, .. }
            | Action::Scare { target, .. }
            | Action::Sight { target, .. }
            | Action::Mirror { target, .. }
            | Action::Greed { target, .. } => *target == me && actor != me,
            Action::Possess { destination, .. } => *destination == me,
            Action::Recall { owner, .. } => *owner == me && actor != me,
            Action::Drain { .. } => true,
            _ => false,
        })
        .unwrap_or(false);
    if !targets_me {
        return false;
    }
    match (action, view.action.as_ref().map(|a| &a.action)) {
        // A Haunt that would give me a second or third ghost of one suit.
        ("haunt", Some(Action::Haunt { card: Some(card), .. })) => count_of(shadow(view, me), card.face.suit) >= 1,
        ("greed", _) => false,
        _ => true,
    }
}

fn ritual(view: &View, me: u8, options: &[final_flicker::prompt::CardOptions]) -> Option<Answer> {
    let mine = shadow(view, me);
    let worst = suit_counts(mine).into_iter().max().unwrap_or(0);
    let ghost_face = |h: CardRef| mine.iter().find(|g| g.card.handle == h).map(|g| g.card.face);
    let mut best: Option<(i32, Answer)> = None;
    let mut consider = |score: i32, a: Action<CardRef>| {
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, Answer::Act { action: a }));
        }
    };
    for o in options {
        let card = o.card.handle;
        let cf = o.card.face;
        for u in &o.uses {
            match u {
                UseOption::Banish { ghosts } => {
                    for &g in ghosts {
                        let gf = ghost_face(g).unwrap_or(cf);
                        let siphon = gf.suit != Some(Suit::Spades)
                            && (gf.rank == cf.rank || (gf.rank.is_face() && gf.suit == cf.suit));
                        let score = 40 + 15 * threat(mine, g) as i32 + if siphon { 20 } else { 0 }
                            - keep_value(is_classic(view), cf) as i32;
                        consider(score, Action::Banish { card, ghost: g });
                    }
                }
                UseOption::Cleanse { ghosts, two } => {
                    for &g in ghosts {
                        // R8.4.1: The Exorcist names a second ghost too.
                        let second = if *two { ghosts.iter().copied().find(|&x| x != g) } else { None };
                        consider(35 + 15 * threat(mine, g) as i32, Action::Cleanse { card, ghost: g, second });
                    }
                }
                UseOption::Purge if mine.len() >= 2 => consider(30 + 10 * mine.len() as i32, Action::Purge { card }),
                UseOption::Possess { ghosts, destinations } => {
                    if let Some(&g) = ghosts.iter().max_by_key(|&&g| threat(mine, g)) {
                        let gs = mine.iter().find(|x| x.card.handle == g).and_then(|x| x.suit);
                        if let Some(&d) = destinations.iter().max_by_key(|&&d| count_of(shadow(view, d), gs)) {
                            consider(
                                30 + 15 * threat(mine, g) as i32,
                                Action::Possess { card, ghost: g, destination: d },
                            );
                        }
                    }
                }
                UseOption::Haunt { targets } => {
                    // Push a neighbour toward three of a suit; spend low cards, never a 5 or Ace.
                    if let Some(&t) = targets.iter().max_by_key(|&&t| count_of(shadow(view, t), cf.suit)) {
                        let pressure = count_of(shadow(view, t), cf.suit) as i32;
                        let score = 20 + 12 * pressure - keep_value(is_classic(view), cf) as i32 / 2;
                        consider(score, Action::Haunt { card, target: t });
                    }
                }
                UseOption::Rekindle => {
                    let candle = view.players.get(me as usize).map_or(0, |p| p.candle_size);
                    if candle < 10 {
                        consider(25, Action::Rekindle { card });
                    }
                }
                UseOption::Greed { targets } if targets.contains(&me) => {
                    consider(15, Action::Greed { card, target: me })
                }
                UseOption::Drain => consider(18, Action::Drain { card }),
                // A6 Draft: Burn 2 of the neighbour with the shorter Candle.
                UseOption::Draft { targets } => {
                    let candle = |s: u8| view.players.get(s as usize).map_or(0, |p| p.candle_size);
                    if let Some(&t) = targets.iter().min_by_key(|&&t| candle(t)) {
                        consider(18 + if candle(t) <= 4 { 20 } else { 0 }, Action::Draft { card, target: t });
                    }
                }
                UseOption::Boo => consider(16, Action::Boo { card }),
                UseOption::Medium { .. } => consider(8, Action::Medium { card, mode: MediumMode::Search }),
                // A6 Omen: three cards to choose from beat a weak play.
                UseOption::Omen => consider(12, Action::Omen { card }),
                _ => {}
            }
        }
    }
    // Abstain rather than play something pointless, unless the Shadow is dangerous.
    match best {
        Some((score, a)) if score > 10 || worst >= 2 => Some(a),
        _ => None,
    }
}

/// A free ability worth using now (R5.9): The Seer always looks, The Pyromaniac burns the
/// neighbour with the smaller Candle, The Doomreader removes its most threatening ghost with its
/// least useful card, The Grimoire keeps a page when the hand is large, The Mimic swaps for a
/// clearly larger Candle. The Trader never trades.
fn use_ability(view: &View, me: u8, a: &AbilityOption) -> Option<Ability<CardRef>> {
    let candle = |s: u8| view.players.get(s as usize).map_or(0, |p| p.candle_size);
    let hand: Vec<final_flicker::handle::CardView> =
        view.players.get(me as usize).and_then(|p| p.hand.clone()).unwrap_or_default();
    let face = |h: CardRef| hand.iter().find(|c| c.handle == h).map(|c| c.face);
    let mine = shadow(view, me);
    match a {
        AbilityOption::Seer { targets } => targets.first().map(|&t| Ability::Seer { target: t }),
        AbilityOption::Pyromaniac { cards, targets } => {
            let t = *targets.iter().min_by_key(|&&t| candle(t))?;
            let c = *cards.iter().min_by_key(|&&c| face(c).map_or(0, |f| keep_value(is_classic(view), f)))?;
            Some(Ability::Pyromaniac { card: c, target: t })
        }
        AbilityOption::Doomreader { choices } => {
            let best = choices.iter().min_by_key(|c| face(c.card).map_or(0, |f| keep_value(is_classic(view), f)))?;
            let g = *best.ghosts.iter().max_by_key(|&&g| threat(mine, g))?;
            (threat(mine, g) >= 2).then_some(Ability::Doomreader { card: best.card, ghost: g })
        }
        AbilityOption::GrimoirePage { cards } if hand.len() >= 4 => {
            let c = *cards.iter().min_by_key(|&&c| face(c).map_or(0, |f| keep_value(is_classic(view), f)))?;
            Some(Ability::GrimoirePage { card: c })
        }
        AbilityOption::Mimic { targets } => {
            let t = *targets.iter().max_by_key(|&&t| candle(t))?;
            (candle(t) > candle(me) + 6).then_some(Ability::Mimic { target: t })
        }
        _ => None,
    }
}
