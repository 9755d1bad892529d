//! The io_uring backend: one ring, commands pushed to the submission queue
//! and sent with the wait; waits with a timeout use the kernel's extended
//! wait argument (5.11+), so open-loop arrivals are met without a timer
//! thread.

use std::os::unix::io::RawFd;
use std::time::{Duration, Instant};

use io_uring::{opcode, types, IoUring};

use super::{Backend, IoCmd, IoDone, IoKind};
use crate::error::{ReplayError, ReplayResult};

pub struct Uring {
    ring: IoUring,
    fd: RawFd,
    entries: u32,
    in_flight: u32,
    ext_arg: bool,
}

fn sys(what: &str, e: std::io::Error) -> ReplayError {
    ReplayError::Unavailable(format!("io_uring {what}: {e}"))
}

impl Uring {
    /// A ring sized for `depth` I/Os in flight.
    pub fn new(fd: RawFd, depth: u32) -> ReplayResult<Uring> {
        let entries = depth.clamp(8, 4096).next_power_of_two();
        let ring = IoUring::builder()
            .setup_cqsize(entries * 4)
            .build(entries)
            .map_err(|e| sys("setup", e))?;
        let ext_arg = ring.params().is_feature_ext_arg();
        Ok(Uring {
            ring,
            fd,
            entries,
            in_flight: 0,
            ext_arg,
        })
    }

    fn reap(&mut self, out: &mut Vec<IoDone>) -> usize {
        let before = out.len();
        for c in self.ring.completion() {
            out.push(IoDone {
                token: c.user_data(),
                result: c.result(),
            });
        }
        let n = out.len() - before;
        self.in_flight -= n as u32;
        n
    }

    /// `submit_*` results: EINTR (a signal) and ETIME (the timeout) are not
    /// errors; EBUSY means completions must be reaped first.
    fn benign(r: std::io::Result<usize>) -> ReplayResult<()> {
        match r {
            Ok(_) => Ok(()),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EINTR) | Some(libc::ETIME) | Some(libc::EBUSY) | Some(libc::EAGAIN)
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(ReplayError::Io {
                path: "io_uring".into(),
                what: "io_uring_enter".into(),
                source: e,
            }),
        }
    }
}

impl Backend for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    unsafe fn push(&mut self, cmd: IoCmd) -> ReplayResult<()> {
        let fd = types::Fd(self.fd);
        let e = match cmd.kind {
            IoKind::Read => opcode::Read::new(fd, cmd.buf, cmd.len)
                .offset(cmd.offset)
                .build(),
            IoKind::Write => opcode::Write::new(fd, cmd.buf, cmd.len)
                .offset(cmd.offset)
                .build(),
            IoKind::Trim => opcode::Fallocate::new(fd, cmd.len as u64)
                .offset(cmd.offset)
                .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                .build(),
        }
        .user_data(cmd.token);
        // Safety (of the entry): the caller keeps `buf` alive until the
        // completion is returned (the trait's contract).
        while unsafe { self.ring.submission().push(&e) }.is_err() {
            // Submission queue full: send what is there first.
            Self::benign(self.ring.submit())?;
        }
        self.in_flight += 1;
        Ok(())
    }

    fn wait(&mut self, deadline: Option<Instant>, out: &mut Vec<IoDone>) -> ReplayResult<()> {
        if self.reap(out) > 0 {
            return Self::benign(self.ring.submit());
        }
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            match left {
                _ if self.in_flight == 0 && deadline.is_none() => {
                    return Err(ReplayError::Invalid("wait with nothing in flight".into()))
                }
                Some(Duration::ZERO) => {
                    Self::benign(self.ring.submit())?;
                    self.reap(out);
                    return Ok(());
                }
                Some(d) if self.ext_arg => {
                    let ts = types::Timespec::from(d);
                    let args = types::SubmitArgs::new().timespec(&ts);
                    let want = usize::from(self.in_flight > 0);
                    Self::benign(self.ring.submitter().submit_with_args(want, &args))?;
                    if self.in_flight == 0 {
                        // Nothing can complete: the kernel did not sleep.
                        std::thread::sleep(d);
                    }
                }
                Some(d) => {
                    // Old kernel without timed waits: poll.
                    Self::benign(self.ring.submit())?;
                    std::thread::sleep(d.min(Duration::from_micros(20)));
                }
                None => Self::benign(self.ring.submit_and_wait(1))?,
            }
            if self.reap(out) > 0 || deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(());
            }
        }
    }

    fn in_flight(&self) -> u32 {
        self.in_flight
    }

    fn settings(&self) -> serde_json::Value {
        let p = self.ring.params();
        serde_json::json!({
            "backend": "io_uring",
            "sq_entries": p.sq_entries(),
            "cq_entries": p.cq_entries(),
            "requested_entries": self.entries,
            "sqpoll": p.is_setup_sqpoll(),
            "iopoll": p.is_setup_iopoll(),
            "feature_ext_arg": p.is_feature_ext_arg(),
            "feature_nodrop": p.is_feature_nodrop(),
            "feature_fast_poll": p.is_feature_fast_poll(),
            "registered_files": false,
            "registered_buffers": false,
            "o_direct": true,
        })
    }
}
