//! Seed 004's radix-schedule search (section 3.2.2): the stages of an
//! N-point FFT as a graph whose nodes are the points transformed so far (the
//! product of the radices before a stage, 1 to N) and whose edges are radix-r
//! stages, from p to p·r where p·r divides N, each weighted by what that
//! stage costs at that position. Every path from 1 to N is a schedule, and
//! the cheapest, found by Dijkstra's algorithm, is the one to run.
//!
//! The seed times each radix at each position on its own. The stages of one
//! of our kernels share its registers, shared memory and occupancy, so they
//! are timed in place instead: whole kernels of many schedules are timed
//! (`fftgen tune --vary stage-graph`), and the cost of each (position, radix)
//! edge is fitted to those times by least squares, a kernel's time being a
//! fixed part (loads and stores) plus the costs of its stages. The cheapest
//! path over the fitted costs is then timed whole against the planner's
//! shape, since the fit is only a model.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// One stage of a schedule: `radix` applied when `before` points have been
/// transformed (the product of the radices before it; the stage's stride).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Edge {
    pub before: usize,
    pub radix: usize,
}

/// The edges of schedule `radices`, first stage first.
pub fn edges(radices: &[usize]) -> Vec<Edge> {
    let mut before = 1;
    radices
        .iter()
        .map(|&radix| {
            let edge = Edge { before, radix };
            before *= radix;
            edge
        })
        .collect()
}

/// The cost of each stage graph edge (milliseconds), and the fixed part every
/// schedule pays.
#[derive(Debug, Clone, PartialEq)]
pub struct StageCosts {
    pub n: usize,
    pub fixed: f64,
    pub edges: BTreeMap<Edge, f64>,
}

impl StageCosts {
    /// The costs that explain `timed` (each a schedule of `n` points and its
    /// time) best in the least-squares sense: time = fixed + the sum of its
    /// edges' costs. Edges that no timed schedule takes are not in the
    /// graph. Where the times do not determine every cost (fewer schedules
    /// than edges), a vanishing ridge term picks the smallest costs that fit.
    pub fn fit(n: usize, timed: &[(Vec<usize>, f64)]) -> StageCosts {
        let mut index: BTreeMap<Edge, usize> = BTreeMap::new();
        for (radices, _) in timed {
            for edge in edges(radices) {
                let next = index.len() + 1;
                index.entry(edge).or_insert(next);
            }
        }
        // Unknown 0 is the fixed part; unknown i > 0 the cost of edge i.
        let unknowns = index.len() + 1;
        let mut normal = vec![vec![0.0; unknowns]; unknowns];
        let mut rhs = vec![0.0; unknowns];
        for (radices, ms) in timed {
            let mut row = vec![0.0; unknowns];
            row[0] = 1.0;
            for edge in edges(radices) {
                row[index[&edge]] += 1.0;
            }
            for i in 0..unknowns {
                rhs[i] += row[i] * ms;
                for j in 0..unknowns {
                    normal[i][j] += row[i] * row[j];
                }
            }
        }
        for (i, line) in normal.iter_mut().enumerate() {
            line[i] += RIDGE;
        }
        let solution = solve(normal, rhs);
        StageCosts {
            n,
            fixed: solution[0],
            edges: index.into_iter().map(|(e, i)| (e, solution[i])).collect(),
        }
    }

    /// What the model predicts for schedule `radices`, if every stage of it
    /// is an edge of the graph.
    pub fn predict(&self, radices: &[usize]) -> Option<f64> {
        edges(radices)
            .iter()
            .try_fold(self.fixed, |sum, edge| Some(sum + self.edges.get(edge)?))
    }

    /// The cheapest schedule from 1 to `n` over the graph's edges and its
    /// predicted time, by Dijkstra's algorithm (a fitted cost below zero
    /// counts as zero: the algorithm needs none negative, and no stage
    /// takes less than nothing). None where no path reaches `n`.
    pub fn cheapest(&self) -> Option<(Vec<usize>, f64)> {
        let mut out: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
        for (edge, &cost) in &self.edges {
            out.entry(edge.before)
                .or_default()
                .push((edge.radix, cost.max(0.0)));
        }
        // Costs in integer nanoseconds order the heap exactly.
        let key = |cost: f64| (cost * 1e6).round() as u64;
        let mut best: BTreeMap<usize, (f64, Vec<usize>)> = BTreeMap::new();
        best.insert(1, (0.0, Vec::new()));
        let mut heap = BinaryHeap::from([Reverse((0u64, 1usize))]);
        while let Some(Reverse((_, node))) = heap.pop() {
            let (cost, path) = best[&node].clone();
            if node == self.n {
                return Some((path, self.fixed + cost));
            }
            for &(radix, step) in out.get(&node).into_iter().flatten() {
                let next = node * radix;
                if self.n % next != 0 {
                    continue;
                }
                let total = cost + step;
                if best.get(&next).is_none_or(|(known, _)| total < *known) {
                    let mut longer = path.clone();
                    longer.push(radix);
                    best.insert(next, (total, longer));
                    heap.push(Reverse((key(total), next)));
                }
            }
        }
        None
    }
}

/// Weight of the ridge term that makes an underdetermined fit unique.
const RIDGE: f64 = 1e-9;

/// Solves `a x = b` (symmetric positive definite) by Gaussian elimination
/// with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .expect("a column has rows");
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            for k in col..n {
                a[row][k] -= factor * a[col][k];
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 004's figure 8: the 32-point FFT with radices 2, 4 and 8.
    fn figure_8(mut cost: impl FnMut(Edge) -> f64) -> StageCosts {
        let mut edges = BTreeMap::new();
        for before in [1, 2, 4, 8, 16] {
            for radix in [2, 4, 8] {
                if 32 % (before * radix) == 0 {
                    let edge = Edge { before, radix };
                    edges.insert(edge, cost(edge));
                }
            }
        }
        StageCosts {
            n: 32,
            fixed: 1.0,
            edges,
        }
    }

    /// Every schedule of `n` over the graph's radices, by brute force.
    fn all_schedules(n: usize, radices: &[usize]) -> Vec<Vec<usize>> {
        if n == 1 {
            return vec![Vec::new()];
        }
        radices
            .iter()
            .filter(|&&r| n % r == 0)
            .flat_map(|&r| {
                all_schedules(n / r, radices)
                    .into_iter()
                    .map(move |mut rest| {
                        rest.insert(0, r);
                        rest
                    })
            })
            .collect()
    }

    #[test]
    fn the_cheapest_path_is_the_cheapest_schedule() {
        // Costs given as data: every stage costs 1 (a barrier, say), 11
        // where it starts at stride 4 (a bank conflict): two stages beat
        // three, and of [8, 4] and [4, 8] the second pays the conflict.
        let costs = figure_8(|e| if e.before == 4 { 11.0 } else { 1.0 });
        let (path, ms) = costs.cheapest().unwrap();
        assert_eq!(path, vec![8, 4]);
        assert_eq!(ms, 1.0 + 2.0);
        assert_eq!(costs.predict(&[4, 8]), Some(1.0 + 12.0));
        // Against brute force over every schedule, on pseudo-random costs.
        let mut seed = 7u64;
        for _ in 0..50 {
            let costs = figure_8(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 40) as f64 / 1e6
            });
            let (path, ms) = costs.cheapest().unwrap();
            let brute = all_schedules(32, &[2, 4, 8])
                .into_iter()
                .map(|s| costs.predict(&s).unwrap())
                .fold(f64::INFINITY, f64::min);
            assert!((ms - brute).abs() < 1e-9, "{path:?}: {ms} against {brute}");
            assert!((costs.predict(&path).unwrap() - ms).abs() < 1e-9);
        }
    }

    #[test]
    fn fitted_costs_reproduce_times_the_model_explains() {
        let truth = figure_8(|e| e.radix as f64 * 0.1 + e.before as f64 * 0.01);
        let timed: Vec<(Vec<usize>, f64)> = all_schedules(32, &[2, 4, 8])
            .into_iter()
            .map(|s| {
                let ms = truth.predict(&s).unwrap();
                (s, ms)
            })
            .collect();
        let fitted = StageCosts::fit(32, &timed);
        for (schedule, ms) in &timed {
            let predicted = fitted.predict(schedule).unwrap();
            assert!(
                (predicted - ms).abs() < 1e-6,
                "{schedule:?}: {predicted} against {ms}"
            );
        }
        assert_eq!(fitted.cheapest().unwrap().0, truth.cheapest().unwrap().0);
        // A stage no schedule took is not an edge: a schedule using it has
        // no prediction.
        let fitted = StageCosts::fit(32, &timed[..3]);
        assert!(fitted.edges.len() < truth.edges.len());
    }

    #[test]
    fn no_path_without_edges_that_reach_n() {
        let costs = StageCosts::fit(12, &[(vec![4, 3], 1.0)]);
        assert_eq!(costs.cheapest().map(|(p, _)| p), Some(vec![4, 3]));
        let costs = StageCosts {
            n: 12,
            fixed: 0.0,
            edges: BTreeMap::from([(
                Edge {
                    before: 1,
                    radix: 4,
                },
                1.0,
            )]),
        };
        assert_eq!(costs.cheapest(), None);
    }
}
