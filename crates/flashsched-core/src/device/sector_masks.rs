//! The valid sectors of partly written pages (`update_read.rs`), one mask
//! per logical page in chunks allocated when a page of the chunk first
//! holds a partial mask. A mask is a bit per sector unit, so the element is
//! as wide as a page has units (16 bits for 8 KiB pages): at most that many
//! bytes per logical page however long the run, and a direct index instead
//! of a hash lookup. 0 means "no partial mask" (a partial mask is never 0).

use std::mem::size_of;

use crate::divisor::floor_ceil_u64;

/// Pages per chunk.
const CHUNK: usize = 1 << 12;

/// The bytes `[lo, hi)` of page `raw` (unfolded; pages of `page` bytes)
/// that `size` bytes at `offset` cover.
#[inline]
pub(super) fn span_in_page(page: u64, offset: u64, size: u32, raw: u64) -> (u64, u64) {
    let base = raw * page;
    let lo = offset.max(base) - base;
    let hi = (offset + size.max(1) as u64).min(base + page) - base;
    (lo, hi)
}

/// The bits of the `unit`-byte parts of a page that bytes `[lo, hi)`
/// touch (bit k = bytes `k × unit ..`; a mask of up to 64 parts).
#[inline]
pub(super) fn unit_bits(lo: u64, hi: u64, unit: u64) -> u64 {
    let (a, b) = floor_ceil_u64(lo, hi, unit);
    if b - a >= 64 {
        u64::MAX
    } else {
        ((1u64 << (b - a)) - 1) << a
    }
}

/// An unsigned word a mask is stored in.
trait Word: Copy + Default + PartialEq {
    fn get(self) -> u64;
    fn of(x: u64) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            #[inline]
            fn get(self) -> u64 {
                self as u64
            }
            #[inline]
            fn of(x: u64) -> Self {
                x as $t
            }
        }
    };
}
word!(u8);
word!(u16);
word!(u32);
word!(u64);

#[derive(Debug)]
struct Paged<T> {
    chunks: Vec<Option<Box<[T]>>>,
}

impl<T: Word> Paged<T> {
    fn new(pages: u32) -> Self {
        Paged {
            chunks: (0..(pages as usize).div_ceil(CHUNK))
                .map(|_| None)
                .collect(),
        }
    }

    #[inline]
    fn get(&self, lpn: u32) -> u64 {
        let i = lpn as usize;
        match self.chunks.get(i / CHUNK) {
            Some(Some(c)) => c[i % CHUNK].get(),
            _ => 0,
        }
    }

    #[inline]
    fn prefetch(&self, lpn: u32) {
        let i = lpn as usize;
        if let Some(Some(c)) = self.chunks.get(i / CHUNK) {
            crate::engine::prefetch(&c[i % CHUNK]);
        }
    }

    /// Set `lpn`'s mask (0 clears it); returns the previous one, or
    /// `None` past the last page (nothing stored).
    fn set(&mut self, lpn: u32, mask: u64) -> Option<u64> {
        let i = lpn as usize;
        let slot = self.chunks.get_mut(i / CHUNK)?;
        if slot.is_none() {
            if mask == 0 {
                return Some(0);
            }
            *slot = Some(vec![T::default(); CHUNK].into_boxed_slice());
        }
        let c = slot.as_mut()?;
        Some(std::mem::replace(&mut c[i % CHUNK], T::of(mask)).get())
    }
}

/// Masks of `bits` bits per page for `pages` logical pages.
#[derive(Debug)]
pub(super) struct SectorMasks {
    store: Store,
    /// Pages holding a partial mask.
    len: u64,
}

#[derive(Debug)]
enum Store {
    W8(Paged<u8>),
    W16(Paged<u16>),
    W32(Paged<u32>),
    W64(Paged<u64>),
}

macro_rules! each {
    ($s:expr, $p:ident => $e:expr) => {
        match $s {
            Store::W8($p) => $e,
            Store::W16($p) => $e,
            Store::W32($p) => $e,
            Store::W64($p) => $e,
        }
    };
}

impl SectorMasks {
    pub(super) fn new(pages: u32, bits: u32) -> SectorMasks {
        let store = match bits {
            0..=8 => Store::W8(Paged::new(pages)),
            9..=16 => Store::W16(Paged::new(pages)),
            17..=32 => Store::W32(Paged::new(pages)),
            _ => Store::W64(Paged::new(pages)),
        };
        SectorMasks { store, len: 0 }
    }

    /// Bytes these masks take at most (every chunk allocated).
    pub(super) fn footprint(pages: u32, bits: u32) -> u64 {
        let width = match bits {
            0..=8 => size_of::<u8>(),
            9..=16 => size_of::<u16>(),
            17..=32 => size_of::<u32>(),
            _ => size_of::<u64>(),
        } as u64;
        let chunks = (pages as u64).div_ceil(CHUNK as u64);
        chunks * (CHUNK as u64 * width + size_of::<Option<Box<[u8]>>>() as u64)
    }

    /// `lpn`'s partial mask, if it has one.
    #[inline]
    pub(super) fn get(&self, lpn: u32) -> Option<u64> {
        let m = each!(&self.store, p => p.get(lpn));
        (m != 0).then_some(m)
    }

    /// Start fetching `lpn`'s mask into the CPU cache (a hint only).
    #[inline]
    pub(super) fn prefetch(&self, lpn: u32) {
        each!(&self.store, p => p.prefetch(lpn));
    }

    /// Give `lpn` the partial mask `mask` (non-zero).
    pub(super) fn insert(&mut self, lpn: u32, mask: u64) {
        if let Some(old) = each!(&mut self.store, p => p.set(lpn, mask)) {
            self.len += (old == 0) as u64;
        }
    }

    /// `lpn` holds no partial mask.
    pub(super) fn remove(&mut self, lpn: u32) {
        if self.len == 0 {
            return;
        }
        if let Some(old) = each!(&mut self.store, p => p.set(lpn, 0)) {
            self.len -= (old != 0) as u64;
        }
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_round_trip_at_every_width() {
        for (bits, top) in [(4, 0xF), (16, 0xFFFF), (32, 0xFFFF_FFFF), (64, u64::MAX)] {
            let mut m = SectorMasks::new(3 * CHUNK as u32 + 5, bits);
            assert!(m.is_empty() && m.get(7).is_none());
            m.insert(7, top >> 1);
            m.insert(3 * CHUNK as u32 + 4, 1);
            m.insert(7, top >> 2); // an update, not a new page
            assert_eq!(m.get(7), Some(top >> 2), "{bits} bits");
            assert_eq!(m.get(3 * CHUNK as u32 + 4), Some(1));
            assert_eq!(m.get(8), None);
            m.remove(7);
            m.remove(9); // absent: no change
            assert_eq!(m.get(7), None);
            assert!(!m.is_empty());
            m.remove(3 * CHUNK as u32 + 4);
            assert!(m.is_empty());
            // Past the last page: ignored, never a panic.
            m.insert(4 * CHUNK as u32, 1);
            assert_eq!(m.get(4 * CHUNK as u32), None);
            assert!(m.is_empty());
        }
        assert_eq!(
            SectorMasks::footprint(2 * CHUNK as u32, 16),
            2 * (CHUNK as u64 * 2 + 16)
        );
    }
}
