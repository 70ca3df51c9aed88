//! Gatherings of *Let's Call the Exorcist* (`RULES-exorcist.md`; docs/rules-decisions.md 72-74):
//! the circle arithmetic within the game's 4-8 seats (X2.1), who advances from a circle (the
//! best-placed by points, 1 or 2, decision 73) and how a Final table short of 4 is filled
//! (decision 74). Pure functions; the process manager ([`super::manager`]) applies them.

use super::{CircleResult, Gathering};

/// X2.1: the fewest seats at a table of the game.
pub const MIN_SEATS: usize = 4;
/// X2.1: the most seats at a table of the game.
pub const MAX_SEATS: usize = 8;

/// X2.1, R9.2.2 (decision 72): the circle sizes of a stage of `m` players with maximum circle
/// size `c` (4 to 8). The Final Flicker's arithmetic (k = ceil(m / c) circles, sizes differing
/// by at most one, larger first), with k capped at floor(m / 4) so that no circle seats fewer
/// than 4 (20 -> 7+7+6; 9 with c = 4 -> 5+4). No circle for fewer than 4 players.
pub fn circle_sizes(m: usize, c: usize) -> Vec<usize> {
    let c = c.clamp(MIN_SEATS, MAX_SEATS);
    if m < MIN_SEATS {
        return Vec::new();
    }
    let k = m.div_ceil(c).min(m / MIN_SEATS);
    let q = m / k;
    let r = m - k * q;
    (0..k).map(|i| if i < r { q + 1 } else { q }).collect()
}

/// Decision 73: the seats of a finished circle in the order they advance: by placing (the
/// game's: the winner first, then by points, equal points sharing a placing), then the earlier
/// seat (the seats come from the recorded draw, R9.2.3).
pub fn advancing_order(placings: &[u8]) -> Vec<u8> {
    let mut seats: Vec<u8> = (0..placings.len() as u8).collect();
    seats.sort_by_key(|&s| (placings[s as usize], s));
    seats
}

/// Decision 73: the `advance` best-placed seats of a finished circle (1 or 2).
pub fn advancing(placings: &[u8], advance: u8) -> Vec<u8> {
    advancing_order(placings).into_iter().take(advance as usize).collect()
}

/// What follows a finished stage of several circles (decision 74).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Draw the next stage of these players (a Final table when they fit one).
    Stage(Vec<String>),
    /// Fewer than 4 remain in play: the best-placed wins by walkover (R9.10.1's analogue).
    Walkover(String),
    /// Nobody remains in play.
    NoWinner,
}

/// Decision 74: the players of the stage after `circles` (each circle's draw and result):
/// every circle's advancers ([`CircleResult::last_lit`]) still in play; when they are fewer
/// than 4, the best-placed others still in play fill the table to 4, ranked across circles by
/// their circle placing, then their points (more first), then registration order. Fewer than 4
/// in play in all: the best-placed of them wins by walkover.
pub fn next_stage<'a>(g: &Gathering, circles: impl Iterator<Item = (&'a [String], &'a CircleResult)> + Clone) -> Next {
    let advancers: Vec<String> =
        circles.clone().flat_map(|(_, r)| r.last_lit.iter().cloned()).filter(|n| g.in_play(n)).collect();
    let mut others: Vec<(u8, std::cmp::Reverse<u32>, usize, String)> = circles
        .flat_map(|(players, r)| {
            players.iter().enumerate().filter_map(move |(seat, name)| {
                let placing = r.placings.get(seat).copied().unwrap_or(u8::MAX);
                let points = r.points.get(seat).copied().unwrap_or(0);
                (!r.last_lit.contains(name)).then(|| (placing, std::cmp::Reverse(points), name.clone()))
            })
        })
        .filter(|(_, _, n)| g.in_play(n))
        .map(|(p, pts, n)| (p, pts, g.registrant_position(&n).unwrap_or(usize::MAX), n))
        .collect();
    others.sort();
    let mut field = advancers;
    let fill = MIN_SEATS.saturating_sub(field.len());
    field.extend(others.into_iter().take(fill).map(|(_, _, _, n)| n));
    match field.len() {
        0 => Next::NoWinner,
        n if n < MIN_SEATS => Next::Walkover(field.swap_remove(0)),
        _ => Next::Stage(field),
    }
}

/// R9.6-R9.7 for the game (decisions 72-74): every stage's circle sizes for `n` players when
/// each circle sends on `advance`, a Final table of 4 at least; empty below 4 players.
pub fn stage_plan(n: usize, c: usize, advance: u8) -> Vec<Vec<usize>> {
    let mut stages = Vec::new();
    let mut m = n;
    while m >= MIN_SEATS {
        let sizes = circle_sizes(m, c);
        let single = sizes.len() == 1;
        let next = (sizes.len() * advance as usize).max(MIN_SEATS);
        stages.push(sizes);
        if single {
            break;
        }
        m = next;
    }
    stages
}

#[cfg(test)]
mod tests {
    use super::super::{GatheringEvent, GatheringSettings, Registrant};
    use super::*;

    /// X2.1, R9.2.2 (decision 72): 20 players sit 7+7+6; every circle seats 4 to 8 whatever
    /// the field and the maximum; below 4 nobody sits.
    #[test]
    fn x2_1_circles_seat_four_to_eight() {
        assert_eq!(circle_sizes(20, 8), vec![7, 7, 6]);
        assert_eq!(circle_sizes(9, 8), vec![5, 4]);
        assert_eq!(circle_sizes(9, 4), vec![5, 4]);
        assert_eq!(circle_sizes(8, 8), vec![8]);
        assert_eq!(circle_sizes(5, 4), vec![5], "one table rather than a circle of 1");
        assert!(circle_sizes(3, 8).is_empty());
        for c in 4..=8 {
            for m in 4..400 {
                let s = circle_sizes(m, c);
                assert_eq!(s.iter().sum::<usize>(), m);
                assert!(s.iter().all(|&n| (MIN_SEATS..=MAX_SEATS).contains(&n)), "{m} in {c}: {s:?}");
            }
        }
    }

    /// Decision 73: the winner first (the mini-game's too: placing 1), then by points; equal
    /// placings go to the earlier seat.
    #[test]
    fn decision_73_the_best_placed_advance_ties_to_the_earlier_seat() {
        // Seat 3 won (the mini-game, say), seats 1 and 2 share second place on points.
        let placings = [4, 2, 2, 1, 5];
        assert_eq!(advancing(&placings, 1), vec![3]);
        assert_eq!(advancing(&placings, 2), vec![3, 1]);
        assert_eq!(advancing_order(&placings), vec![3, 1, 2, 0, 4]);
    }

    fn gathering(names: &[&str]) -> Gathering {
        let mut g = Gathering::empty("g");
        g.settings = GatheringSettings { game: super::super::GameName::LetsCallTheExorcist, ..Default::default() };
        let _ = GatheringEvent::GatheringStarted;
        g.players = names.iter().map(|n| Registrant { name: n.to_string(), bot: None, program: false }).collect();
        g.index_players();
        g
    }

    fn result(last_lit: &[&str], placings: &[u8], points: &[u32]) -> CircleResult {
        CircleResult {
            winner: last_lit.first().map(|s| s.to_string()),
            last_lit: last_lit.iter().map(|s| s.to_string()).collect(),
            placings: placings.to_vec(),
            reason: "points".into(),
            classes: vec![None; placings.len()],
            points: points.to_vec(),
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Decision 74: 20 players, advance 1: three advance, and the best-placed other across the
    /// circles fills the Final table to 4 (placing 2 before placing 3; at equal placing, more
    /// points; at equal points, the earlier registrant).
    #[test]
    fn decision_74_a_final_short_of_four_is_filled_by_the_best_placed() {
        let names: Vec<String> = (0..12).map(|i| format!("p{i:02}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let g = gathering(&refs);
        let a = strings(&refs[0..4]);
        let b = strings(&refs[4..8]);
        let c = strings(&refs[8..12]);
        // Circle a: p00 wins; p01 second with 5 points. Circle b: p04 wins, p05 second with 6.
        // Circle c: p08 wins, p09 and p10 second with 6 (p09 registered first).
        let ra = result(&["p00"], &[1, 2, 3, 4], &[8, 5, 4, 1]);
        let rb = result(&["p04"], &[1, 3, 2, 4], &[7, 2, 6, 1]);
        let rc = result(&["p08"], &[1, 2, 2, 4], &[9, 6, 6, 0]);
        let circles = [(&a[..], &ra), (&b[..], &rb), (&c[..], &rc)];
        let next = next_stage(&g, circles.iter().map(|(p, r)| (*p, *r)));
        assert_eq!(
            next,
            Next::Stage(strings(&["p00", "p04", "p08", "p06"])),
            "p06: placing 2, 6 points, first registered"
        );
        // With advance 2 (two from each circle), six go on and nobody fills.
        let ra = result(&["p00", "p01"], &[1, 2, 3, 4], &[8, 5, 4, 1]);
        let rb = result(&["p04", "p06"], &[1, 3, 2, 4], &[7, 2, 6, 1]);
        let rc = result(&["p08", "p09"], &[1, 2, 2, 4], &[9, 6, 6, 0]);
        let circles = [(&a[..], &ra), (&b[..], &rb), (&c[..], &rc)];
        let Next::Stage(field) = next_stage(&g, circles.iter().map(|(p, r)| (*p, *r))) else { panic!() };
        assert_eq!(field, strings(&["p00", "p01", "p04", "p06", "p08", "p09"]));
    }

    /// Decision 74: the dropped never fill; fewer than 4 in play in all: the best-placed of
    /// them wins by walkover; nobody: no winner.
    #[test]
    fn decision_74_fewer_than_four_in_play_is_a_walkover() {
        let mut g = gathering(&["a", "b", "c", "d", "e", "f", "g", "h"]);
        let one = strings(&["a", "b", "c", "d"]);
        let two = strings(&["e", "f", "g", "h"]);
        let r1 = result(&["a"], &[1, 2, 3, 4], &[7, 3, 2, 1]);
        let r2 = result(&["e"], &[1, 2, 3, 4], &[7, 3, 2, 1]);
        for n in ["b", "c", "d", "f", "g", "h"] {
            g.dropped.insert(n.to_string());
        }
        let circles = [(&one[..], &r1), (&two[..], &r2)];
        assert_eq!(next_stage(&g, circles.iter().map(|(p, r)| (*p, *r))), Next::Walkover("a".into()));
        g.dropped.insert("a".into());
        g.dropped.insert("e".into());
        assert_eq!(next_stage(&g, circles.iter().map(|(p, r)| (*p, *r))), Next::NoWinner);
    }

    /// Decision 72: The Final Flicker's own settings are refused in a gathering of the game,
    /// each named; `max_circle` is 4 to 8 (X2.1); `target` (X4.5) is the game's alone.
    #[test]
    fn decision_72_settings_of_the_other_game_are_refused_by_name() {
        let exo = || GatheringSettings { game: super::super::GameName::LetsCallTheExorcist, ..Default::default() };
        assert_eq!(exo().validate(), Ok(()));
        assert_eq!(GatheringSettings { target: Some(12), advance: 1, ..exo() }.validate(), Ok(()));
        let refused = |s: GatheringSettings, field: &str| {
            let e = s.validate().unwrap_err();
            assert!(e.starts_with(field), "{field}: {e}");
        };
        refused(GatheringSettings { classes: false, ..exo() }, "classes");
        refused(GatheringSettings { class_bans: vec![final_flicker::ClassId::Lich], ..exo() }, "class_bans");
        refused(GatheringSettings { ruleset: final_flicker::RulesetName::Classic, ..exo() }, "ruleset");
        refused(GatheringSettings { round_limit: 12, ..exo() }, "round_limit");
        refused(GatheringSettings { salt_window: final_flicker::SaltWindow::Sequential, ..exo() }, "salt_window");
        refused(GatheringSettings { salt_targeted_only: true, ..exo() }, "salt_targeted_only");
        refused(GatheringSettings { final_dark: super::super::FinalDark::AsNewGame, ..exo() }, "final_dark");
        refused(GatheringSettings { reaction_window_min_ms: Some(0), ..exo() }, "reaction_window_min_ms");
        refused(GatheringSettings { max_circle: None, ..exo() }, "X2.1");
        refused(GatheringSettings { max_circle: Some(9), ..exo() }, "X2.1");
        refused(GatheringSettings { target: Some(0), ..exo() }, "X4.5");
        refused(GatheringSettings { target: Some(7), ..Default::default() }, "target");
    }

    /// Decisions 72-74: the plan of 20 players ends in a Final of 4 (advance 1) or 6 (advance
    /// 2); 100 players go through a second stage of circles.
    #[test]
    fn the_stage_plan_ends_in_a_final_of_four_to_eight() {
        assert_eq!(stage_plan(20, 8, 1), vec![vec![7, 7, 6], vec![4]]);
        assert_eq!(stage_plan(20, 8, 2), vec![vec![7, 7, 6], vec![6]]);
        assert_eq!(
            stage_plan(100, 8, 1),
            vec![vec![8; 9].into_iter().chain(vec![7; 4]).collect(), vec![7, 6], vec![4]]
        );
        assert!(stage_plan(3, 8, 1).is_empty());
        assert_eq!(stage_plan(4, 8, 1), vec![vec![4]]);
    }
}
