//! The I/Os on their way to the target: each one's aligned buffer, its
//! block range and (under `verify`) its stamps and the versions it may
//! read. Every command passes the window check here before it is sent.

use crate::backend::{Backend, IoCmd, IoDone, IoKind};
use crate::buf::{AlignedBuf, BufPool};
use crate::error::{ReplayError, ReplayResult};
use crate::target::Window;
use crate::verify::Oracle;

/// One I/O in flight.
struct Io {
    kind: IoKind,
    /// Window-relative byte range.
    start: u64,
    len: u64,
    buf: Option<AlignedBuf>,
    /// Reads under `verify`: the oldest version each block may return.
    lows: Vec<u32>,
}

/// A completed I/O, for error messages.
pub struct Finished {
    pub kind: IoKind,
    pub start: u64,
    pub len: u64,
    /// Window offset of the block that failed verification.
    pub bad_at: Option<u64>,
}

/// I/Os in flight, indexed by token.
pub struct InFlight {
    pub window: Window,
    pool: BufPool,
    ios: Vec<Option<Io>>,
    pub oracle: Option<Oracle>,
    versions: Vec<u32>,
    pub writable: bool,
}

impl InFlight {
    pub fn new(window: Window, writable: bool, oracle: Option<Oracle>, seed: u64) -> InFlight {
        InFlight {
            window,
            pool: BufPool::new(window.align as usize, seed),
            ios: Vec::new(),
            oracle,
            versions: Vec::new(),
            writable,
        }
    }

    /// Send `kind` over window bytes `[start, start + len)` as `token`.
    pub fn send(
        &mut self,
        backend: &mut dyn Backend,
        token: u32,
        kind: IoKind,
        start: u64,
        len: u64,
    ) -> ReplayResult<()> {
        if kind != IoKind::Read && !self.writable {
            return Err(ReplayError::Unsafe(format!(
                "a {} of {len} bytes at window offset {start}: the target is open read-only \
                 (writes and trims need allow_write / --allow-write)",
                if kind == IoKind::Write {
                    "write"
                } else {
                    "trim"
                }
            )));
        }
        let abs = self.window.absolute(start, len)?;
        let len32 = u32::try_from(len)
            .map_err(|_| ReplayError::Invalid(format!("an I/O of {len} bytes exceeds 4 GiB")))?;
        let a = self.window.align as u64;
        let (first, n) = (start / a, len / a);
        let mut buf = match kind {
            IoKind::Trim => None,
            _ => Some(self.pool.get(len as usize).ok_or_else(|| {
                ReplayError::Unavailable(format!("cannot allocate a {len}-byte I/O buffer"))
            })?),
        };
        let mut lows = Vec::new();
        if let Some(o) = &mut self.oracle {
            match (kind, &mut buf) {
                (IoKind::Read, _) => o.issue_read(first, n, &mut lows),
                (IoKind::Write, Some(b)) => {
                    o.issue_write(first, n, false, &mut self.versions);
                    let blocks = b.as_mut_slice()[..len as usize].chunks_exact_mut(a as usize);
                    for (k, (blk, &v)) in blocks.zip(&self.versions).enumerate() {
                        o.stamp(blk, first + k as u64, v);
                    }
                }
                _ => o.issue_write(first, n, true, &mut self.versions),
            }
        }
        let ptr = buf
            .as_mut()
            .map_or(std::ptr::null_mut(), |b| b.as_mut_ptr());
        let cmd = IoCmd {
            token: token as u64,
            kind,
            offset: abs,
            len: len32,
            buf: ptr,
        };
        let i = token as usize;
        if self.ios.len() <= i {
            self.ios.resize_with(i + 1, || None);
        }
        if self.ios[i].is_some() {
            return Err(ReplayError::Invalid(format!(
                "token {token} is already in flight"
            )));
        }
        // Safety: the buffer is moved into `ios[token]` and stays there,
        // untouched, until `finish` takes this token's completion.
        unsafe { backend.push(cmd)? };
        self.ios[i] = Some(Io {
            kind,
            start,
            len,
            buf,
            lows,
        });
        Ok(())
    }

    /// Account for completion `d`; `name` describes the request for errors
    /// (called only on failure).
    pub fn finish(
        &mut self,
        d: IoDone,
        name: impl Fn(&Finished) -> String,
    ) -> ReplayResult<Finished> {
        let io = self
            .ios
            .get_mut(d.token as usize)
            .and_then(Option::take)
            .ok_or_else(|| {
                ReplayError::Invalid(format!("completion for unknown token {}", d.token))
            })?;
        let mut fin = Finished {
            kind: io.kind,
            start: io.start,
            len: io.len,
            bad_at: None,
        };
        let want = if io.kind == IoKind::Trim {
            0
        } else {
            io.len as i64
        };
        if d.result < 0 || d.result as i64 != want {
            let err = if d.result < 0 {
                std::io::Error::from_raw_os_error(-d.result).to_string()
            } else {
                format!("short transfer: {} of {} bytes", d.result, io.len)
            };
            if let Some(b) = io.buf {
                self.pool.put(b);
            }
            return Err(ReplayError::Io {
                path: "target".into(),
                what: name(&fin),
                source: std::io::Error::other(err),
            });
        }
        let a = self.window.align as u64;
        let (first, n) = (io.start / a, io.len / a);
        let mut bad = None;
        if let Some(o) = &mut self.oracle {
            match (io.kind, &io.buf) {
                (IoKind::Read, Some(b)) => {
                    if let Err((blk, why)) =
                        o.check_read(first, &b.as_slice()[..io.len as usize], &io.lows)
                    {
                        fin.bad_at = Some(blk * a);
                        bad = Some(format!(
                            "{}: block {blk} (window offset {}) {why}",
                            name(&fin),
                            blk * a
                        ));
                    }
                }
                _ => o.complete_write(first, n),
            }
        }
        if let Some(b) = io.buf {
            self.pool.put(b);
        }
        match bad {
            Some(m) => Err(ReplayError::Verify(m)),
            None => Ok(fin),
        }
    }
}
