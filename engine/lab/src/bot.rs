//! The random bot: answers a prompt uniformly within its constraints (R10.5). It sees only the
//! prompt it is given, never the state.

use final_flicker::action::{Action, MediumMode};
use final_flicker::classes::abilities::{Ability, AbilityOption};
use final_flicker::classes::reactions::ReactionKind;
use final_flicker::command::Answer;
use final_flicker::event::TurnOrder;
use final_flicker::prompt::{ClassActionOption, Prompt, PromptKind, UseOption};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, RngExt};

/// A uniformly random legal answer to `prompt`: first uniformly among the prompt's kinds of
/// answer, then uniformly within the chosen answer's constraints.
pub fn random_answer<R: Rng + ?Sized>(prompt: &Prompt, rng: &mut R) -> Answer {
    match &prompt.kind {
        PromptKind::TurnOrderChoice => {
            Answer::TurnOrder { choice: if rng.random_bool(0.5) { TurnOrder::First } else { TurnOrder::Last } }
        }
        PromptKind::HauntingChoice { aces, panic, .. } => {
            let mut kinds = vec![0u8];
            if !aces.is_empty() {
                kinds.push(1);
            }
            if !panic.is_empty() {
                kinds.push(2);
            }
            match kinds.choose(rng) {
                Some(1) => Answer::Reprieve { ace: aces.choose(rng).expect("ace").handle },
                Some(2) => Answer::Panic { ghost: panic.choose(rng).expect("ghost").handle },
                _ => Answer::Endure,
            }
        }
        PromptKind::Ritual { options, class_actions, ability, .. } => {
            // One in (options + class actions + ability + 1) chance to end the Ritual; otherwise a
            // random card and use, a class action or the free ability.
            let extra = class_actions.len() + usize::from(ability.is_some());
            let i = rng.random_range(0..=options.len() + extra);
            if i == options.len() + extra {
                return Answer::EndRitual;
            }
            if i >= options.len() {
                let j = i - options.len();
                if j < class_actions.len() {
                    return match &class_actions[j] {
                        ClassActionOption::Usurp { targets } => {
                            Answer::Act { action: Action::Usurp { target: *targets.choose(rng).expect("t") } }
                        }
                    };
                }
                return Answer::Ability { ability: random_ability(ability.as_ref().expect("ability"), rng) };
            }
            Answer::Act { action: random_use(&options[i], rng) }
        }
        // A6 Omen: one of the revealed cards' plays, chosen like a Ritual use.
        PromptKind::OmenPlay { options, .. } => {
            Answer::Act { action: random_use(options.choose(rng).expect("an Omen play is offered"), rng) }
        }
        PromptKind::Salt { fives, .. } => {
            if !fives.is_empty() && rng.random_bool(0.5) {
                Answer::Salt { card: fives.choose(rng).expect("5").handle }
            } else {
                Answer::Pass
            }
        }
        PromptKind::CounterSalt { fives, .. } => {
            if !fives.is_empty() && rng.random_bool(0.5) {
                Answer::Salt { card: fives.choose(rng).expect("5").handle }
            } else {
                Answer::Yield
            }
        }
        PromptKind::SightPick { hand, count, .. } | PromptKind::SadistPick { hand, count, .. } => {
            Answer::Pick { cards: hand.sample(rng, *count).map(|c| c.handle).collect() }
        }
        PromptKind::MediumPick { choices } => {
            Answer::Pick { cards: choices.choose(rng).map(|c| c.handle).into_iter().collect() }
        }
        PromptKind::BurdenDiscard { count, hand } => {
            Answer::Pick { cards: hand.sample(rng, *count).map(|c| c.handle).collect() }
        }
        PromptKind::ChooseClass { offer } => Answer::ChooseClass { class: *offer.choose(rng).expect("an offer") },
        PromptKind::Reaction { reaction, cards, .. } => {
            if !rng.random_bool(0.5) {
                Answer::Decline
            } else if *reaction == ReactionKind::ShadowCancel {
                Answer::React { card: None }
            } else {
                match cards.choose(rng) {
                    Some(c) => Answer::React { card: Some(*c) },
                    None => Answer::Decline,
                }
            }
        }
        PromptKind::MartyrDraw => {
            if rng.random_bool(0.5) {
                Answer::Draw
            } else {
                Answer::Decline
            }
        }
        PromptKind::TraderSwap { hand, own, .. } => match (hand.choose(rng), own.choose(rng)) {
            (Some(t), Some(g)) if rng.random_bool(0.5) => Answer::Trade { give: *g, take: t.handle },
            _ => Answer::Decline,
        },
        PromptKind::PlagueSpread { recipients, .. } => Answer::Spread { to: *recipients.choose(rng).expect("r") },
        PromptKind::WatcherPick { hands, per_hand } => {
            let mut cards = Vec::new();
            for (_, h) in hands {
                let k = rng.random_range(0..=(*per_hand).min(h.len()));
                cards.extend(h.sample(rng, k).map(|c| c.handle));
            }
            Answer::Pick { cards }
        }
        PromptKind::DeathSplit { ghosts, sizes, .. } => {
            let mut g: Vec<_> = ghosts.iter().map(|c| c.handle).collect();
            g.shuffle(rng);
            let k = *sizes.choose(rng).expect("size");
            let right = g.split_off(k);
            Answer::Split { left: g, right }
        }
    }
}

/// A uniformly random use of a free ability option (R5.9).
pub(crate) fn random_ability<R: Rng + ?Sized>(
    o: &AbilityOption,
    rng: &mut R,
) -> Ability<final_flicker::handle::CardRef> {
    match o {
        AbilityOption::Doomreader { choices } => {
            let c = choices.choose(rng).expect("choice");
            Ability::Doomreader { card: c.card, ghost: *c.ghosts.choose(rng).expect("g") }
        }
        AbilityOption::GrimoirePage { cards } => Ability::GrimoirePage { card: *cards.choose(rng).expect("c") },
        AbilityOption::Mimic { targets } => Ability::Mimic { target: *targets.choose(rng).expect("t") },
        AbilityOption::Pyromaniac { cards, targets } => {
            Ability::Pyromaniac { card: *cards.choose(rng).expect("c"), target: *targets.choose(rng).expect("t") }
        }
        AbilityOption::Seer { targets } => Ability::Seer { target: *targets.choose(rng).expect("t") },
        AbilityOption::Trader { cards, targets } => {
            Ability::Trader { card: *cards.choose(rng).expect("c"), target: *targets.choose(rng).expect("t") }
        }
    }
}

/// A uniformly random use of one card option (a Ritual card or an Omen's revealed card), with
/// uniformly random choices within its constraints.
fn random_use<R: Rng + ?Sized>(
    opt: &final_flicker::prompt::CardOptions,
    rng: &mut R,
) -> Action<final_flicker::handle::CardRef> {
    let card = opt.card.handle;
    let u = opt.uses.choose(rng).expect("a listed card has a use");
    match u {
        UseOption::Haunt { targets } => Action::Haunt { card, target: *targets.choose(rng).expect("t") },
        UseOption::Banish { ghosts } => Action::Banish { card, ghost: *ghosts.choose(rng).expect("g") },
        UseOption::Draft { targets } => Action::Draft { card, target: *targets.choose(rng).expect("t") },
        UseOption::Omen => Action::Omen { card },
        UseOption::Greed { targets } => Action::Greed { card, target: *targets.choose(rng).expect("t") },
        UseOption::Scare { targets } => Action::Scare { card, target: *targets.choose(rng).expect("t") },
        UseOption::Drain => Action::Drain { card },
        UseOption::Sight { targets } => Action::Sight { card, target: *targets.choose(rng).expect("t") },
        UseOption::Cleanse { ghosts, two } => {
            let k = if *two { 2 } else { 1 };
            let g: Vec<_> = ghosts.sample(rng, k).copied().collect();
            Action::Cleanse { card, ghost: g[0], second: g.get(1).copied() }
        }
        UseOption::Recall { ghosts } => {
            let g = ghosts.choose(rng).expect("g");
            Action::Recall { card, owner: g.owner, ghost: g.ghost }
        }
        UseOption::Possess { ghosts, destinations } => Action::Possess {
            card,
            ghost: *ghosts.choose(rng).expect("g"),
            destination: *destinations.choose(rng).expect("d"),
        },
        UseOption::Rekindle => Action::Rekindle { card },
        UseOption::Mirror { targets } => Action::Mirror { card, target: *targets.choose(rng).expect("t") },
        UseOption::Medium { modes } => Action::Medium { card, mode: *modes.choose(rng).unwrap_or(&MediumMode::Search) },
        UseOption::Purge => Action::Purge { card },
        UseOption::Boo => Action::Boo { card },
        UseOption::BuildWall => Action::BuildWall { card },
        UseOption::AlterSuit { choices } => {
            let c = choices.choose(rng).expect("c");
            Action::AlterSuit { card, owner: c.owner, ghost: c.ghost, suit: *c.suits.choose(rng).expect("s") }
        }
        UseOption::WatcherSight => Action::WatcherSight { card },
    }
}
