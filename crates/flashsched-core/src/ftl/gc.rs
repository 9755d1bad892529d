//! Garbage-collection victim selection policies.

use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::rng::Rng;

/// How GC picks the block to reclaim in a plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VictimPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Maximise age * (1 - u) / 2u (Rosenblum & Ousterhout, LFS).
    CostBenefit,
    /// Uniformly random full block.
    Random,
    /// Oldest sealed block.
    Fifo,
    /// Greedy among `d` random candidates.
    DChoice(u32),
}

pub const POLICY_NAMES: &[&str] = &["greedy", "cost-benefit", "random", "fifo", "d-choice"];

impl VictimPolicy {
    pub fn parse(s: &str, d: u32) -> SimResult<VictimPolicy> {
        Ok(match s {
            "greedy" => VictimPolicy::Greedy,
            "cost-benefit" => VictimPolicy::CostBenefit,
            "random" => VictimPolicy::Random,
            "fifo" => VictimPolicy::Fifo,
            "d-choice" => VictimPolicy::DChoice(d.max(1)),
            _ => {
                return Err(SimError::config(
                    "ftl.gc_policy",
                    format!("`{s}` is not one of {}", POLICY_NAMES.join(", ")),
                ))
            }
        })
    }
}

/// What a policy may look at for one candidate block.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    pub block: u32,
    pub valid: u32,
    /// Last time a page of the block was programmed or invalidated.
    pub mtime: Ns,
    /// Order in which the block was sealed (filled).
    pub sealed_seq: u64,
}

/// Choose a victim among `cands` (all full, not active). Ties go to the
/// lowest block index so results are deterministic.
pub fn select(
    policy: VictimPolicy,
    cands: &[Candidate],
    pages_per_block: u32,
    now: Ns,
    rng: &mut Rng,
) -> Option<u32> {
    if cands.is_empty() {
        return None;
    }
    let best = match policy {
        VictimPolicy::Greedy => cands.iter().min_by_key(|c| (c.valid, c.block)),
        VictimPolicy::Fifo => cands.iter().min_by_key(|c| (c.sealed_seq, c.block)),
        VictimPolicy::Random => cands.get(rng.below(cands.len() as u64) as usize),
        VictimPolicy::DChoice(d) => {
            let mut best: Option<&Candidate> = None;
            for _ in 0..d {
                let c = &cands[rng.below(cands.len() as u64) as usize];
                if best.is_none_or(|b| (c.valid, c.block) < (b.valid, b.block)) {
                    best = Some(c);
                }
            }
            best
        }
        VictimPolicy::CostBenefit => {
            let score = |c: &Candidate| {
                let u = c.valid as f64 / pages_per_block as f64;
                if u == 0.0 {
                    return f64::INFINITY;
                }
                let age = (now.saturating_sub(c.mtime) + 1) as f64;
                age * (1.0 - u) / (2.0 * u)
            };
            cands
                .iter()
                .fold(None, |acc: Option<&Candidate>, c| match acc {
                    Some(b) if score(b) >= score(c) => Some(b),
                    _ => Some(c),
                })
        }
    };
    best.map(|c| c.block)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(block: u32, valid: u32, mtime: Ns, seq: u64) -> Candidate {
        Candidate {
            block,
            valid,
            mtime,
            sealed_seq: seq,
        }
    }

    #[test]
    fn greedy_fifo_costbenefit() {
        let cands = [c(0, 10, 100, 5), c(1, 3, 900, 9), c(2, 5, 0, 1)];
        let mut r = Rng::new(1);
        assert_eq!(
            select(VictimPolicy::Greedy, &cands, 16, 1000, &mut r),
            Some(1)
        );
        assert_eq!(
            select(VictimPolicy::Fifo, &cands, 16, 1000, &mut r),
            Some(2)
        );
        // block 2: age 1001 * (11/16)/(10/16) = 1101; block 1: 101 * (13/16)/(6/16) = 218
        assert_eq!(
            select(VictimPolicy::CostBenefit, &cands, 16, 1000, &mut r),
            Some(2)
        );
        assert!(select(VictimPolicy::Random, &cands, 16, 0, &mut r).is_some());
        // d-choice with d large enough finds the global minimum.
        assert_eq!(
            select(VictimPolicy::DChoice(64), &cands, 16, 0, &mut r),
            Some(1)
        );
        assert_eq!(select(VictimPolicy::Greedy, &[], 16, 0, &mut r), None);
    }
}
