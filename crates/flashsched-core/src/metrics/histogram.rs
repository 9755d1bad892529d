//! Log-linear latency histogram (HDR-style): values below 2^SUB are exact,
//! larger ones fall in buckets 2^-SUB wide relative to their magnitude
//! (0.1 % with SUB = 10). Mean, min and max are exact.

const SUB: u32 = 10;
const SUB_COUNT: u64 = 1 << SUB;

/// Histogram of `u64` values (nanoseconds here).
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn index(v: u64) -> usize {
    if v < SUB_COUNT {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // msb position, >= SUB
    let shift = e - SUB;
    (((shift + 1) as u64) << SUB) as usize + ((v >> shift) - SUB_COUNT) as usize
}

/// Smallest value that maps to bucket `i`, and the bucket width.
#[inline]
fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB_COUNT {
        return (i, 1);
    }
    let shift = (i >> SUB) - 1;
    let mant = (i & (SUB_COUNT - 1)) + SUB_COUNT;
    (mant << shift, 1 << shift)
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Histogram {
            counts: Vec::new(),
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Add one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let i = index(v);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// Largest value (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Smallest value (0 when empty).
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }

    /// Value at quantile `q` in [0, 1]: the midpoint of the bucket holding the
    /// ceil(q·n)-th smallest value, clamped to the observed min/max.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        if rank == self.n {
            return self.max as f64;
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bucket_range(i);
                let mid = lo as f64 + (w as f64 - 1.0) / 2.0;
                return mid.clamp(self.min as f64, self.max as f64);
            }
        }
        self.max as f64
    }

    /// Add every value of `o`.
    pub fn merge(&mut self, o: &Histogram) {
        if o.counts.len() > self.counts.len() {
            self.counts.resize(o.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_and_range_agree() {
        for v in [0u64, 1, 1023, 1024, 1025, 4096, 123_456_789, u64::MAX / 3] {
            let (lo, w) = bucket_range(index(v));
            assert!(lo <= v && v < lo + w, "{v}: [{lo}, {})", lo + w);
            assert!(w as f64 / lo.max(1) as f64 <= 1.0 / 1024.0 + 1e-12 || v < 1024);
        }
    }

    #[test]
    fn quantiles_within_resolution() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        assert_eq!(h.mean(), 50_000.5 * 1000.0);
        for (q, exact) in [
            (0.5, 50_000_000.0),
            (0.99, 99_000_000.0),
            (0.999, 99_900_000.0),
        ] {
            let got = h.quantile(q);
            assert!(
                (got - exact).abs() / exact < 0.001,
                "q{q}: {got} vs {exact}"
            );
        }
        assert_eq!(h.quantile(1.0), 100_000_000.0);
        assert_eq!(h.max(), 100_000_000);
    }

    #[test]
    fn small_values_exact() {
        let mut h = Histogram::new();
        for v in [5u64, 7, 9] {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), 7.0);
        assert_eq!(h.min(), 5);
    }
}
