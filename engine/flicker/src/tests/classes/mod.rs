//! Class rule tests (RULES.md section 8), one file per family; each test names its R-ids.

mod abilities;
mod passives;
mod reactions;
mod ritual;
mod selection;
mod triggers;

use super::kit::*;
use crate::model::classes::ClassId;
use crate::model::event::Event;

/// Random 8-player class games reach every class mechanism: reactions, free abilities,
/// triggers, revivals, Walls and pages (a smoke check that the bots use class options).
#[test]
fn random_class_games_exercise_the_class_mechanisms() {
    use crate::sim::{Policy, play};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    let mut s = crate::model::settings::Settings::new(8);
    s.classes = true;
    let mut seen = std::collections::BTreeMap::new();
    for g in 0..60u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(g);
        let mut bot = ChaCha8Rng::seed_from_u64(g + 99);
        let p = play(&s, &[Policy::Random], &mut rng, &mut bot, g < 5, 1_000_000).expect("game");
        for e in &p.events {
            let key = match e {
                Event::Reacted { reaction, .. } => {
                    format!("reacted {}", serde_json::to_value(reaction).unwrap()["reaction"])
                }
                Event::AbilityUsed { ability, .. } => format!("ability {}", ability.class().name()),
                Event::Triggered { effect, .. } => {
                    format!("trigger {}", serde_json::to_value(effect).unwrap()["trigger"])
                }
                Event::ActionDeclared { action, .. } => format!("action {}", action.name()),
                e => e.type_name().to_string(),
            };
            *seen.entry(key).or_insert(0u32) += 1;
        }
    }
    println!("{seen:#?}");
    for k in [
        "class_chosen",
        "revival_started",
        "action build_wall",
        "action alter_suit",
        "action usurp",
        "action watcher_sight",
        "ability doomreader",
        "ability grimoire_of_rejection",
        "ability mimic",
        "ability pyromaniac",
        "ability seer",
        "ability trader",
        "trigger \"voodoo\"",
        "trigger \"martyr_draw\"",
        "trigger \"vulture\"",
        "trigger \"funeral_bell\"",
        "reacted \"hex_reflect\"",
        "reacted \"mime_redirect\"",
        "reacted \"unseen_cancel\"",
        "reacted \"shadow_cancel\"",
        "reacted \"wall_block\"",
        "reacted \"grimoire_reject\"",
    ] {
        assert!(seen.contains_key(k), "never seen: {k}");
    }
    let _ = ClassId::Clown;
    let _ = Kit::new(2);
}
