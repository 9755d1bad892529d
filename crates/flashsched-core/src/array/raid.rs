//! RAID-0 and RAID-5 address mapping (chunk striping; RAID-5 with the
//! left-symmetric parity layout of Linux md, its default).
//!
//! Volume offsets are split at chunk boundaries; chunk `c` of the volume
//! lives on one SSD at `stripe × chunk + (offset mod chunk)`.

/// A piece of a volume request on one SSD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// SSD index in the array.
    pub ssd: u32,
    /// Byte offset on the SSD.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
}

/// RAID-0: chunk `c` goes to SSD `c mod n`, stripe `c / n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raid0 {
    /// SSDs striped over.
    pub ssds: u32,
    /// Chunk (stripe unit), bytes.
    pub chunk: u64,
}

impl Raid0 {
    /// SSD and SSD offset of volume byte `off`.
    pub fn locate(&self, off: u64) -> (u32, u64) {
        let c = off / self.chunk;
        let ssd = (c % self.ssds as u64) as u32;
        let stripe = c / self.ssds as u64;
        (ssd, stripe * self.chunk + off % self.chunk)
    }

    /// Split `[off, off+len)` into per-chunk extents, in volume order.
    pub fn map(&self, off: u64, len: u32, out: &mut Vec<Extent>) {
        split_chunks(off, len, self.chunk, |o, l| {
            let (ssd, offset) = self.locate(o);
            out.push(Extent {
                ssd,
                offset,
                len: l,
            });
        });
    }
}

/// RAID-5, left-symmetric: in stripe `s` the parity chunk is on SSD
/// `n - 1 - (s mod n)` and data chunk `d` of the stripe on SSD
/// `(parity + 1 + d) mod n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raid5 {
    /// SSDs striped over (one chunk of each stripe holds parity).
    pub ssds: u32,
    /// Chunk (stripe unit), bytes.
    pub chunk: u64,
}

/// The part of a write that falls in one stripe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StripeWrite {
    /// Stripe number.
    pub stripe: u64,
    /// New data extents.
    pub data: Vec<Extent>,
    /// The parity extent to rewrite (whole chunk for a full-stripe write,
    /// else the union of the touched in-chunk ranges).
    pub parity: Extent,
    /// Every data chunk of the stripe is fully overwritten: parity is
    /// computed from the new data alone (no reads).
    pub full: bool,
}

impl Raid5 {
    /// Data chunks per stripe.
    pub fn data_chunks(&self) -> u64 {
        self.ssds as u64 - 1
    }

    /// Parity SSD of `stripe`.
    pub fn parity_ssd(&self, stripe: u64) -> u32 {
        self.ssds - 1 - (stripe % self.ssds as u64) as u32
    }

    /// SSD and SSD offset of volume byte `off`.
    pub fn locate(&self, off: u64) -> (u32, u64) {
        let c = off / self.chunk;
        let stripe = c / self.data_chunks();
        let d = c % self.data_chunks();
        let p = self.parity_ssd(stripe) as u64;
        let ssd = ((p + 1 + d) % self.ssds as u64) as u32;
        (ssd, stripe * self.chunk + off % self.chunk)
    }

    /// Split a read into per-chunk data extents.
    pub fn map_read(&self, off: u64, len: u32, out: &mut Vec<Extent>) {
        split_chunks(off, len, self.chunk, |o, l| {
            let (ssd, offset) = self.locate(o);
            out.push(Extent {
                ssd,
                offset,
                len: l,
            });
        });
    }

    /// Split a write into per-stripe parts.
    pub fn map_write(&self, off: u64, len: u32) -> Vec<StripeWrite> {
        let stripe_bytes = self.chunk * self.data_chunks();
        let mut out: Vec<StripeWrite> = Vec::new();
        split_chunks(off, len, self.chunk, |o, l| {
            let stripe = o / stripe_bytes;
            let (ssd, offset) = self.locate(o);
            let e = Extent {
                ssd,
                offset,
                len: l,
            };
            match out.last_mut() {
                Some(sw) if sw.stripe == stripe => sw.data.push(e),
                _ => out.push(StripeWrite {
                    stripe,
                    data: vec![e],
                    parity: e,
                    full: false,
                }),
            }
        });
        for sw in &mut out {
            let base = sw.stripe * self.chunk;
            let lo = sw.data.iter().map(|e| e.offset - base).min().unwrap_or(0);
            let hi = sw
                .data
                .iter()
                .map(|e| e.offset - base + e.len as u64)
                .max()
                .unwrap_or(0);
            sw.full = sw.data.len() as u64 == self.data_chunks()
                && sw.data.iter().all(|e| e.len as u64 == self.chunk);
            sw.parity = Extent {
                ssd: self.parity_ssd(sw.stripe),
                offset: base + lo,
                len: (hi - lo) as u32,
            };
        }
        out
    }
}

/// Call `f(offset, len)` for each chunk-bounded piece of `[off, off+len)`.
fn split_chunks(off: u64, len: u32, chunk: u64, mut f: impl FnMut(u64, u32)) {
    let end = off + len as u64;
    let mut o = off;
    while o < end {
        let next = ((o / chunk) + 1) * chunk;
        let e = next.min(end);
        f(o, (e - o) as u32);
        o = e;
    }
}
