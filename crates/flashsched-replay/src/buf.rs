//! Aligned I/O buffers (O_DIRECT needs the memory aligned too) and a pool
//! that reuses them by power-of-two size class.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// A zeroed heap buffer aligned to `align` bytes.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// The buffer is plain memory owned by this value.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// `len` > 0 bytes aligned to `align` (a power of two); `None` if the
    /// layout is invalid or memory is exhausted.
    pub fn new(len: usize, align: usize) -> Option<AlignedBuf> {
        let layout = Layout::from_size_align(len.max(1), align).ok()?;
        // Safety: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        Some(AlignedBuf { ptr, layout })
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn as_slice(&self) -> &[u8] {
        // Safety: `ptr` owns `len` initialised (zeroed) bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // Safety: as above, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // Safety: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// Buffers by size class (`align << k`), handed out and taken back.
pub struct BufPool {
    align: usize,
    free: Vec<Vec<AlignedBuf>>,
    /// Written into fresh buffers so unverified writes do not send zeros
    /// (which some devices compress or skip).
    fill_seed: u64,
}

impl BufPool {
    pub fn new(align: usize, fill_seed: u64) -> BufPool {
        BufPool {
            align,
            free: Vec::new(),
            fill_seed,
        }
    }

    fn class(&self, len: usize) -> usize {
        let units = len.div_ceil(self.align).max(1);
        units.next_power_of_two().trailing_zeros() as usize
    }

    /// A buffer of at least `len` bytes.
    pub fn get(&mut self, len: usize) -> Option<AlignedBuf> {
        let c = self.class(len);
        if let Some(b) = self.free.get_mut(c).and_then(Vec::pop) {
            return Some(b);
        }
        let mut b = AlignedBuf::new(self.align << c, self.align)?;
        fill_noise(b.as_mut_slice(), self.fill_seed ^ c as u64);
        Some(b)
    }

    /// Return a buffer for reuse.
    pub fn put(&mut self, b: AlignedBuf) {
        let c = self.class(b.len());
        if self.free.len() <= c {
            self.free.resize_with(c + 1, Vec::new);
        }
        self.free[c].push(b);
    }
}

/// SplitMix64 step: the pseudo-random words of write payloads and stamps.
#[inline]
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Fill `b` with a pseudo-random pattern from `seed`.
pub fn fill_noise(b: &mut [u8], seed: u64) {
    for (i, c) in b.chunks_mut(8).enumerate() {
        let w = mix(seed ^ (i as u64).wrapping_mul(0x2545_F491_4F6C_DD1D)).to_le_bytes();
        c.copy_from_slice(&w[..c.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_reuses_by_class_and_aligns() {
        let mut p = BufPool::new(4096, 1);
        let mut b = p.get(5000).unwrap();
        assert_eq!(b.len(), 8192, "5000 bytes round up to two 4 KiB units");
        assert_eq!(b.as_mut_ptr() as usize % 4096, 0);
        let addr = b.as_mut_ptr() as usize;
        p.put(b);
        let mut again = p.get(8192).unwrap();
        assert_eq!(again.as_mut_ptr() as usize, addr, "same class is reused");
        assert_eq!(p.get(4096).unwrap().len(), 4096);
    }
}
