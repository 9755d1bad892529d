//! Garbage-collection victim selection policies.

use super::BlockState;
use crate::engine::Ns;
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
    /// MQSim's randomized greedy: `d` distinct blocks of the whole plane.
    Rga(u32),
}

/// `ftl.gc_policy`: the victim policy's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Best age · (1 − u) / 2u (Rosenblum and Ousterhout, LFS).
    CostBenefit,
    /// A random full block.
    Random,
    /// Oldest sealed block.
    Fifo,
    /// Greedy among `ftl.gc_d_choice` random candidates.
    DChoice,
    /// MQSim's randomized greedy (RGA): `ftl.gc_d_choice` distinct blocks
    /// sampled from the whole plane — free and fully valid ones too, open
    /// blocks and victims excluded — and the full one with the most invalid
    /// pages taken; no victim if none of them has an invalid page.
    Rga,
}

impl VictimPolicy {
    /// The policy `p`; `d` candidates for d-choice.
    pub fn new(p: GcPolicy, d: u32) -> VictimPolicy {
        match p {
            GcPolicy::Greedy => VictimPolicy::Greedy,
            GcPolicy::CostBenefit => VictimPolicy::CostBenefit,
            GcPolicy::Random => VictimPolicy::Random,
            GcPolicy::Fifo => VictimPolicy::Fifo,
            GcPolicy::DChoice => VictimPolicy::DChoice(d.max(1)),
            GcPolicy::Rga => VictimPolicy::Rga(d.max(1)),
        }
    }
}

/// What a policy may look at for one candidate block.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    /// Global block index.
    pub block: u32,
    /// Valid pages it holds.
    pub valid: u32,
    /// Last time a page of the block was programmed or invalidated.
    pub mtime: Ns,
    /// Order in which the block was sealed (filled).
    pub sealed_seq: u64,
}

/// Greedy victim of one plane whose blocks start at `first`: the full block
/// with the fewest valid pages (but not all valid), ties to the lowest block.
/// Every GC invocation scans its whole plane, so the scan is two branch-free
/// passes the compiler turns into vector code: the least valid count among
/// the candidates (each block's count, or `u16::MAX` if it cannot be a
/// victim), then the first candidate with it. One pass keeping (count,
/// block) pairs ran a scalar loop: ~7 % of a GC-bound Postmark run on
/// `intel-x25e` (session 53).
pub fn greedy(
    state: &[BlockState],
    valid: &[u16],
    first: u32,
    pages_per_block: u32,
) -> Option<u32> {
    if pages_per_block > u16::MAX as u32 {
        // A candidate's count could then be `u16::MAX` itself.
        return greedy_wide(state, valid, first, pages_per_block);
    }
    let ppb = pages_per_block as u16;
    // Arithmetic, not `&&` (whose branch kept the loop scalar): a
    // non-candidate's count is ORed with all ones.
    let key = |st: BlockState, v: u16| {
        let candidate = (st == BlockState::Full) as u16 & (v < ppb) as u16;
        v | candidate.wrapping_sub(1)
    };
    // In lanes of 16, which the compiler keeps in vector registers.
    let n = state.len().min(valid.len());
    let (state, valid) = (&state[..n], &valid[..n]);
    let mut lanes = [u16::MAX; 16];
    let (st16, va16) = (state.chunks_exact(16), valid.chunks_exact(16));
    let tail = st16.remainder().iter().zip(va16.remainder());
    for (s, v) in st16.zip(va16) {
        for j in 0..16 {
            lanes[j] = lanes[j].min(key(s[j], v[j]));
        }
    }
    let least = tail.fold(
        lanes.into_iter().fold(u16::MAX, u16::min),
        |m, (&st, &v)| m.min(key(st, v)),
    );
    if least == u16::MAX {
        return None;
    }
    // The first block with it: a chunk of 16 is tested at once, then
    // searched.
    let hit =
        |st: &[BlockState], va: &[u16]| st.iter().zip(va).position(|(&s, &v)| key(s, v) == least);
    let mut base = 0;
    for (s, v) in state.chunks_exact(16).zip(valid.chunks_exact(16)) {
        if (0..16).fold(false, |any, j| any | (key(s[j], v[j]) == least)) {
            return hit(s, v).map(|i| first + (base + i) as u32);
        }
        base += 16;
    }
    hit(&state[base..], &valid[base..]).map(|i| first + (base + i) as u32)
}

/// `greedy` for blocks of more than `u16::MAX` pages.
fn greedy_wide(
    state: &[BlockState],
    valid: &[u16],
    first: u32,
    pages_per_block: u32,
) -> Option<u32> {
    (0..state.len().min(valid.len()))
        .filter(|&i| state[i] == BlockState::Full && (valid[i] as u32) < pages_per_block)
        .min_by_key(|&i| (valid[i], i))
        .map(|i| first + i as u32)
}

/// RGA victim of one plane whose blocks start at `first`: `d` distinct
/// blocks drawn uniformly from the free and full ones (all of them if there
/// are no more), then the full block among them with the most invalid
/// pages, ties to the lowest block; `None` if that block has no invalid
/// page (the sample held only free or fully valid blocks). `pool` is
/// scratch space.
pub fn rga(
    state: &[BlockState],
    valid: &[u16],
    first: u32,
    pages_per_block: u32,
    d: u32,
    rng: &mut Rng,
    pool: &mut Vec<u32>,
) -> Option<u32> {
    pool.clear();
    pool.extend(
        state
            .iter()
            .zip(first..)
            .filter(|(&st, _)| matches!(st, BlockState::Free | BlockState::Full))
            .map(|(_, b)| b),
    );
    // A partial Fisher-Yates shuffle puts the sample in pool[..k].
    let k = (d as usize).min(pool.len());
    for i in 0..k {
        let j = i + rng.below((pool.len() - i) as u64) as usize;
        pool.swap(i, j);
    }
    let best = pool[..k]
        .iter()
        .filter(|&&b| state[(b - first) as usize] == BlockState::Full)
        .map(|&b| (valid[(b - first) as usize], b))
        .min()?;
    ((best.0 as u32) < pages_per_block).then_some(best.1)
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
        // Sampled from the whole plane by `rga`, never from candidates.
        VictimPolicy::Rga(_) => None,
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

    /// The branch-free scan picks what the obvious filter-and-min picks.
    #[test]
    fn greedy_scan_matches_the_plain_definition() {
        let mut rng = Rng::new(3);
        let states = [
            BlockState::Free,
            BlockState::Active,
            BlockState::Full,
            BlockState::Victim,
        ];
        for n in [0usize, 1, 3, 4, 5, 17, 64, 301, 2048] {
            for _ in 0..50 {
                // Small blocks (many ties), and counts at the top of `u16`.
                let ppb = match rng.below(4) {
                    0 => 65_535,
                    1 => 70_000,
                    _ => 1 + rng.below(8) as u32,
                };
                let st: Vec<BlockState> = (0..n)
                    .map(|_| {
                        if rng.below(3) == 0 {
                            states[rng.below(4) as usize]
                        } else {
                            BlockState::Full
                        }
                    })
                    .collect();
                let valid: Vec<u16> = (0..n)
                    .map(|_| match rng.below(4) {
                        0 => ppb.min(u16::MAX as u32) as u16,
                        _ => rng.below(ppb as u64 + 1).min(u16::MAX as u64) as u16,
                    })
                    .collect();
                let first = 1000;
                let plain = (0..n)
                    .filter(|&i| st[i] == BlockState::Full && (valid[i] as u32) < ppb)
                    .min_by_key(|&i| (valid[i], i))
                    .map(|i| first + i as u32);
                assert_eq!(greedy(&st, &valid, first, ppb), plain, "n={n} ppb={ppb}");
            }
        }
    }

    /// RGA samples free and fully valid blocks too (never open blocks or
    /// victims) and takes the emptiest full one among them.
    #[test]
    fn rga_samples_the_whole_plane() {
        use BlockState::*;
        let mut rng = Rng::new(5);
        let mut pool = Vec::new();
        // Blocks 100..105: fully valid, 2 valid, free, open (0 valid), victim.
        let st = [Full, Full, Free, Active, Victim];
        let valid = [4u16, 2, 0, 0, 0];
        // Three blocks can be sampled; with d = 3 all are: the fully valid
        // block 100 is in the sample but block 101 (2 invalid) is taken.
        for d in [3, 4, 64] {
            assert_eq!(rga(&st, &valid, 100, 4, d, &mut rng, &mut pool), Some(101));
            assert_eq!(pool[..3].iter().copied().max(), Some(102));
            assert_eq!(pool[..3].iter().copied().min(), Some(100));
        }
        // A sample of the fully valid and the free block yields no victim.
        let st2 = [Full, Free, Active];
        let valid2 = [4u16, 0, 1];
        assert_eq!(rga(&st2, &valid2, 0, 4, 2, &mut rng, &mut pool), None);
        // One block at a time: over many draws each of the three is drawn,
        // and only draws of block 101 give a victim.
        let mut hits = [0u32; 2];
        for _ in 0..300 {
            match rga(&st, &valid, 100, 4, 1, &mut rng, &mut pool) {
                Some(101) => hits[0] += 1,
                None => hits[1] += 1,
                other => panic!("{other:?}"),
            }
        }
        assert!(hits[0] > 60 && hits[1] > 140, "{hits:?}");
    }

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
