//! Division by a divisor fixed at set-up: a shift and a mask when it is a
//! power of two (the usual device geometry), the hardware division
//! otherwise. A division costs tens of cycles; the simulator divides by
//! the same few numbers (planes per unit, entries per translation page,
//! bytes per sector) many times per request. Also round-robin steps
//! (`add_mod`, `inc_mod`) that need no division at all.

/// A `u32` divisor, with its shift when it is a power of two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divisor {
    d: u32,
    /// `log2(d)`, or `u32::MAX` when `d` is not a power of two.
    sh: u32,
}

impl Divisor {
    /// Divide by `d` (0 divides as `/` would: it panics when used).
    pub fn new(d: u32) -> Divisor {
        let sh = if d.is_power_of_two() {
            d.trailing_zeros()
        } else {
            u32::MAX
        };
        Divisor { d, sh }
    }

    /// The divisor.
    #[inline(always)]
    pub fn get(self) -> u32 {
        self.d
    }

    /// `log2(d)` when `d` is a power of two.
    #[inline(always)]
    pub fn shift(self) -> Option<u32> {
        (self.sh != u32::MAX).then_some(self.sh)
    }

    /// `x / d`.
    #[inline(always)]
    pub fn quotient(self, x: u32) -> u32 {
        if self.sh != u32::MAX {
            x >> self.sh
        } else {
            x / self.d
        }
    }

    /// `x % d`.
    #[inline(always)]
    pub fn remainder(self, x: u32) -> u32 {
        if self.sh != u32::MAX {
            x & (self.d - 1)
        } else {
            x % self.d
        }
    }
}

/// `(a + b) mod n` for `a + b < 2n`, without a division.
#[inline(always)]
pub fn add_mod(a: u32, b: u32, n: u32) -> u32 {
    debug_assert!(a + b < 2 * n);
    let s = a + b;
    if s >= n {
        s - n
    } else {
        s
    }
}

/// `(a + 1) mod n` for `a < n`, without a division.
#[inline(always)]
pub fn inc_mod(a: u32, n: u32) -> u32 {
    debug_assert!(a < n);
    if a + 1 >= n {
        0
    } else {
        a + 1
    }
}

/// `ceil(y / unit)` for a `u64` unit (at least 1), by a shift when it is a
/// power of two.
#[inline(always)]
pub fn ceil_u64(y: u64, unit: u64) -> u64 {
    if unit.is_power_of_two() {
        (y >> unit.trailing_zeros()) + ((y & (unit - 1)) != 0) as u64
    } else {
        y.div_ceil(unit)
    }
}

/// `(x / unit, ceil(y / unit))` for a `u64` unit (at least 1), by shifts
/// when it is a power of two.
#[inline(always)]
pub fn floor_ceil_u64(x: u64, y: u64, unit: u64) -> (u64, u64) {
    let floor = if unit.is_power_of_two() {
        x >> unit.trailing_zeros()
    } else {
        x / unit
    };
    (floor, ceil_u64(y, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_division_operators() {
        for d in (1..=70).chain([96, 1000, 1024, 4096, 65_536, u32::MAX]) {
            let v = Divisor::new(d);
            assert_eq!(v.get(), d);
            assert_eq!(
                v.shift().map(|s| 1u32 << s),
                d.is_power_of_two().then_some(d)
            );
            for x in (0..300).chain([d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX]) {
                assert_eq!(v.quotient(x), x / d, "{x} / {d}");
                assert_eq!(v.remainder(x), x % d, "{x} % {d}");
            }
        }
        for unit in [1u64, 2, 3, 512, 1000, 4096] {
            for (x, y) in [
                (0, 0),
                (0, 1),
                (511, 513),
                (4096, 8191),
                (u64::MAX - 5, u64::MAX),
            ] {
                assert_eq!(floor_ceil_u64(x, y, unit), (x / unit, y.div_ceil(unit)));
            }
        }
    }

    #[test]
    fn modular_steps_agree_with_remainder() {
        for n in 1..=9u32 {
            for a in 0..n {
                assert_eq!(inc_mod(a, n), (a + 1) % n);
                for b in 0..=n {
                    if a + b < 2 * n {
                        assert_eq!(add_mod(a, b, n), (a + b) % n);
                    }
                }
            }
        }
    }
}
