//! The random bot: answers a prompt uniformly within its constraints (R10.5). It sees only the
//! prompt it is given, never the state.

use crate::action::{Action, MediumMode};
use crate::command::Answer;
use crate::event::TurnOrder;
use crate::prompt::{Prompt, PromptKind, UseOption};
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
        PromptKind::Ritual { options, .. } => {
            // One in (options + 1) chance to end the Ritual; otherwise a random card and use.
            let i = rng.random_range(0..=options.len());
            if i == options.len() {
                return Answer::EndRitual;
            }
            let opt = &options[i];
            let card = opt.card.handle;
            let u = opt.uses.choose(rng).expect("a listed card has a use");
            let action = match u {
                UseOption::Haunt { targets } => Action::Haunt { card, target: *targets.choose(rng).expect("t") },
                UseOption::Banish { ghosts } => Action::Banish { card, ghost: *ghosts.choose(rng).expect("g") },
                UseOption::Greed { targets } => Action::Greed { card, target: *targets.choose(rng).expect("t") },
                UseOption::Scare { targets } => Action::Scare { card, target: *targets.choose(rng).expect("t") },
                UseOption::Drain => Action::Drain { card },
                UseOption::Sight { targets } => Action::Sight { card, target: *targets.choose(rng).expect("t") },
                UseOption::Cleanse { ghosts } => Action::Cleanse { card, ghost: *ghosts.choose(rng).expect("g") },
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
                UseOption::Medium { modes } => {
                    Action::Medium { card, mode: *modes.choose(rng).unwrap_or(&MediumMode::Search) }
                }
                UseOption::Purge => Action::Purge { card },
                UseOption::Boo => Action::Boo { card },
            };
            Answer::Act { action }
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
        PromptKind::SightPick { hand, count, .. } => {
            Answer::Pick { cards: hand.sample(rng, *count).map(|c| c.handle).collect() }
        }
        PromptKind::MediumPick { choices } => {
            Answer::Pick { cards: choices.choose(rng).map(|c| c.handle).into_iter().collect() }
        }
        PromptKind::BurdenDiscard { count, hand } => {
            Answer::Pick { cards: hand.sample(rng, *count).map(|c| c.handle).collect() }
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
