//! The games this platform hosts, each registered by its [`Hosted`] implementation: *The Final
//! Flicker* ([`FinalFlicker`]) and *Let's Call the Exorcist* ([`Exorcist`]), each with the random
//! and heuristic bots of `flicker-lab`; [`GameName`] names them on the wire and in a table's
//! creation event.

use crate::bots::BotKind;
use crate::gatherings::{CircleGame, CircleSpec, FinalDark, GatheringSettings};
use crate::hosted::Hosted;
pub use crate::names::GameName;
pub use exorcist::Exorcist;
pub use final_flicker::FinalFlicker;
use final_flicker::{ClassId, Settings, Surplus};
use flicker_game::{Game, Viewer};
use rand::Rng;

impl Hosted for Exorcist {
    /// The bots of `flicker_lab::exorcist`, from the seat's view only.
    fn bot_answer<R: Rng + ?Sized>(
        kind: BotKind,
        state: &exorcist::State,
        seat: u8,
        prompt: &exorcist::Prompt,
        rng: &mut R,
    ) -> exorcist::Answer {
        use flicker_game::Bot;
        let view = Exorcist::view(state, Viewer::Seat { seat });
        match kind {
            BotKind::Random => flicker_lab::exorcist::RandomBot.answer(prompt, &view, rng),
            BotKind::Heuristic => flicker_lab::exorcist::HeuristicBot.answer(prompt, &view, rng),
        }
    }
}

impl Hosted for FinalFlicker {
    fn bot_answer<R: Rng + ?Sized>(
        kind: BotKind,
        state: &final_flicker::State,
        seat: u8,
        prompt: &final_flicker::Prompt,
        rng: &mut R,
    ) -> final_flicker::Answer {
        match kind {
            BotKind::Random => flicker_lab::bot::random_answer(prompt, rng),
            BotKind::Heuristic => {
                let view = FinalFlicker::view(state, Viewer::Seat { seat });
                flicker_lab::heuristic::heuristic_answer(prompt, &view, rng)
            }
        }
    }
}

impl CircleGame for Exorcist {
    /// Rules decision 72: every circle (a Final table too) plays one whole game to the
    /// gathering's points target (X4.5, default 7) with a drawn first Seeker (X3.4); the
    /// gathering, not the game, decides who advances.
    fn circle_settings(g: &GatheringSettings, circle: &CircleSpec) -> exorcist::Settings {
        let mut e = exorcist::Settings::new(circle.seats);
        e.target = g.target.unwrap_or(exorcist::model::settings::DEFAULT_TARGET);
        e.hold_windows = circle.hold_windows;
        e
    }

    fn kept_classes(state: &exorcist::State) -> Vec<Option<ClassId>> {
        vec![None; state.players() as usize]
    }

    /// Rules decision 73: the `advance` best-placed (the winner first, then by points), equal
    /// placings to the earlier seat.
    fn advancing(outcome: &flicker_game::Outcome, advance: u8) -> Vec<u8> {
        crate::gatherings::exorcist::advancing(&outcome.placings, advance)
    }

    fn points(state: &exorcist::State) -> Vec<u32> {
        state.points.clone()
    }
}

impl CircleGame for FinalFlicker {
    /// With classes on, stage 1 chooses classes (R2.7, with the ban list); later stages keep each
    /// player's class (R9.8.4). R9.5: a qualifying circle plays to the gathering's `advance`
    /// Last Lit, the Final Ritual to one. R9.8: from stage 2 an empty Final Dark puts the
    /// surplus out of play.
    fn circle_settings(g: &GatheringSettings, circle: &CircleSpec) -> Settings {
        let mut e = Settings::new(circle.seats);
        e.ruleset = g.ruleset;
        e.dark_mode = g.dark_mode;
        if g.classes {
            e.classes = true;
            e.class_bans = g.class_bans.clone();
            e.seat_classes = circle.kept_classes.clone();
        }
        e.last_lit = if circle.qualifying { g.advance } else { 1 };
        e.round_limit = g.round_limit;
        e.salt_window = g.salt_window;
        e.salt_targeted_only = g.salt_targeted_only;
        e.surplus =
            if circle.stage > 1 && g.final_dark == FinalDark::Empty { Surplus::OutOfPlay } else { Surplus::TheDark };
        e.hold_windows = circle.hold_windows;
        e
    }

    fn kept_classes(state: &final_flicker::State) -> Vec<Option<ClassId>> {
        final_flicker::seat_classes(state)
    }
}
