//! Gathering arithmetic (RULES.md section 9), pure: how a stage splits into circles (R9.2),
//! each circle's pool (R1.6, R9.3), and how many stages a field needs (R9.6, R9.7). The process
//! manager that runs gatherings (server side) builds on these.

use crate::model::pool::{PoolSize, pool_size};

/// R9.1.1: the smallest legal maximum circle size.
pub const MIN_CIRCLE_MAX: usize = 4;
/// R9.1.1: the default maximum circle size.
pub const DEFAULT_CIRCLE_MAX: usize = 8;

/// R9.2: the circle sizes of a stage of `m` players with maximum circle size `c` (`None`:
/// unbounded, one table). k = ceil(m / c) circles; r = m − k·q of them hold q + 1 players and
/// the rest q, where q = floor(m / k): sizes differ by at most one, none exceeds `c`, larger
/// circles first. `m = 0` gives no circle.
///
/// Panics if `c` is below [`MIN_CIRCLE_MAX`] (R9.7.2).
pub fn circle_sizes(m: usize, c: Option<usize>) -> Vec<usize> {
    if let Some(c) = c {
        assert!(c >= MIN_CIRCLE_MAX, "R9.7.2: the maximum circle size is at least {MIN_CIRCLE_MAX}");
    }
    if m == 0 {
        return Vec::new();
    }
    let c = c.unwrap_or(m);
    if m <= c {
        return vec![m];
    }
    let k = m.div_ceil(c);
    let q = m / k;
    let r = m - k * q;
    (0..k).map(|i| if i < r { q + 1 } else { q }).collect()
}

/// R9.3, R1.6: the pool of each circle of a stage.
pub fn circle_pools(m: usize, c: Option<usize>) -> Vec<PoolSize> {
    circle_sizes(m, c).into_iter().map(pool_size).collect()
}

/// R9.5, R9.6: the number of players a stage sends on, when every circle sends on `advance`
/// players (A = 1 or 2), or all of its players when it holds no more than A (R9.5.5). Witness
/// and concession outcomes can only lower it.
pub fn advancing(sizes: &[usize], advance: usize) -> usize {
    sizes.iter().map(|&s| s.min(advance)).sum()
}

/// R9.6-R9.7: the circle sizes of every stage of a gathering of `n` players, assuming each
/// circle sends on exactly `advance` players, ending with the Final Ritual (a single circle).
/// Empty for n = 0; `[[1]]` stands for a walkover when n = 1 (R9.10.1).
pub fn stage_plan(n: usize, c: Option<usize>, advance: usize) -> Vec<Vec<usize>> {
    let mut stages = Vec::new();
    let mut m = n;
    while m > 0 {
        let sizes = circle_sizes(m, c);
        let single = sizes.len() == 1;
        let next = advancing(&sizes, advance);
        stages.push(sizes);
        if single {
            break;
        }
        debug_assert!(next < m, "R9.7.1: every qualifying stage reduces the field");
        m = next;
    }
    stages
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R9.2.2 for every n from 2 to 100 (C = 8): k = ceil(n/8) circles, sizes differ by at
    /// most one, none above 8, all players placed.
    #[test]
    fn r9_2_split_sizes_for_2_to_100() {
        for n in 2..=100 {
            let s = circle_sizes(n, Some(8));
            assert_eq!(s.len(), n.div_ceil(8), "n = {n}");
            assert_eq!(s.iter().sum::<usize>(), n, "n = {n}");
            assert!(s.iter().all(|&x| x <= 8), "n = {n}: {s:?}");
            assert!(s.iter().max().unwrap() - s.iter().min().unwrap() <= 1, "n = {n}: {s:?}");
            assert!(s.windows(2).all(|w| w[0] >= w[1]), "larger circles first: {s:?}");
        }
    }

    /// R9.2.2 examples, B2, B3, B4.
    #[test]
    fn r9_2_2_examples() {
        assert_eq!(circle_sizes(9, Some(8)), [5, 4]);
        assert_eq!(circle_sizes(16, Some(8)), [8, 8]);
        assert_eq!(circle_sizes(17, Some(8)), [6, 6, 5]);
        assert_eq!(circle_sizes(20, Some(8)), [7, 7, 6]);
        let hundred = circle_sizes(100, Some(8));
        assert_eq!(hundred.iter().filter(|&&x| x == 8).count(), 9);
        assert_eq!(hundred.iter().filter(|&&x| x == 7).count(), 4);
        assert_eq!(circle_sizes(8, Some(8)), [8]);
        assert_eq!(circle_sizes(9, None), [9], "C unbounded: one table");
    }

    /// B2, B3 (R1.6, R9.3): the pool of each circle.
    #[test]
    fn b2_b3_pools_per_circle() {
        let p = circle_pools(9, Some(8));
        assert_eq!((p[0].decks, p[0].jokers, p[0].dealt, p[0].surplus), (3, 6, 135, 27));
        assert_eq!((p[1].decks, p[1].jokers, p[1].dealt, p[1].surplus), (2, 4, 108, 0));
        let p = circle_pools(20, Some(8));
        assert_eq!(p.iter().map(|x| x.total).collect::<Vec<_>>(), [216, 216, 162]);
        let one = circle_pools(9, None);
        assert_eq!((one[0].decks, one[0].jokers, one[0].dealt), (5, 10, 243));
    }

    /// R9.3, R1.6: for every n from 2 to 100, each circle's pool holds ceil(size/2) decks and
    /// twice as many Jokers, deals 27 to each player and leaves 0 or 27 over.
    #[test]
    fn r9_3_pools_per_circle_for_2_to_100() {
        for n in 2..=100 {
            let sizes = circle_sizes(n, Some(8));
            let pools = circle_pools(n, Some(8));
            assert_eq!(pools.len(), sizes.len());
            for (size, p) in sizes.iter().zip(&pools) {
                assert_eq!(p.decks, size.div_ceil(2), "n = {n}");
                assert_eq!(p.jokers, 2 * p.decks);
                assert_eq!(p.total, 54 * p.decks);
                assert_eq!(p.dealt, 27 * size);
                assert_eq!(p.surplus, if size % 2 == 1 { 27 } else { 0 });
            }
        }
    }

    /// B3, B4 (R9.6, R9.7): stages of 20 and 100 players with A = 1 and A = 2.
    #[test]
    fn b3_b4_stage_plans() {
        assert_eq!(stage_plan(20, Some(8), 2), vec![vec![7, 7, 6], vec![6]]);
        assert_eq!(stage_plan(20, Some(8), 1), vec![vec![7, 7, 6], vec![3]]);
        let p = stage_plan(100, Some(8), 2);
        assert_eq!(p[1], [7, 7, 6, 6]);
        assert_eq!(p[2], [8]);
        assert_eq!(p.len(), 3);
        let p = stage_plan(100, Some(8), 1);
        assert_eq!(p[1], [7, 6]);
        assert_eq!(p[2], [2]);
        assert_eq!(stage_plan(1, Some(8), 1), vec![vec![1]]);
        assert!(stage_plan(0, Some(8), 1).is_empty());
        // R9.5.5: C = 4, A = 2, five players split 3 + 2; the circle of 2 sends both on.
        assert_eq!(stage_plan(5, Some(4), 2), vec![vec![3, 2], vec![4]]);
    }

    /// R9.7.1: every stage plan terminates and ends in one circle, for any n up to 2000.
    #[test]
    fn r9_7_every_gathering_reaches_a_final_ritual() {
        for c in [4, 5, 8, 12] {
            for a in [1, 2] {
                for n in 1..=2000 {
                    let p = stage_plan(n, Some(c), a);
                    assert_eq!(p.last().unwrap().len(), 1, "n = {n}, C = {c}, A = {a}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "R9.7.2")]
    fn r9_7_2_a_maximum_below_four_is_refused() {
        circle_sizes(10, Some(3));
    }
}
