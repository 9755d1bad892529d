//! The fallback backend: worker threads doing blocking pread / pwrite /
//! fallocate on the O_DIRECT descriptor. Used only where io_uring is
//! unavailable (or asked for by name); every report says so, because its
//! latencies include the hand-off between threads.

use std::os::unix::io::RawFd;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use super::{Backend, IoCmd, IoDone, IoKind};
use crate::error::{ReplayError, ReplayResult};

/// A command with its buffer pointer made sendable: the trait's contract
/// keeps the memory alive and untouched until the completion is returned.
struct Job(IoCmd);
unsafe impl Send for Job {}

pub struct ThreadPool {
    tx: Option<Sender<Job>>,
    done: Receiver<IoDone>,
    workers: Vec<JoinHandle<()>>,
    in_flight: u32,
}

fn run(fd: RawFd, cmd: &IoCmd) -> i32 {
    // Safety: `buf` is valid for `len` bytes (the trait's contract).
    let r = unsafe {
        match cmd.kind {
            IoKind::Read => libc::pread(fd, cmd.buf.cast(), cmd.len as usize, cmd.offset as i64),
            IoKind::Write => libc::pwrite(fd, cmd.buf.cast(), cmd.len as usize, cmd.offset as i64),
            IoKind::Trim => {
                let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
                match libc::fallocate(fd, mode, cmd.offset as i64, cmd.len as i64) {
                    0 => 0,
                    _ => -1,
                }
            }
        }
    };
    if r < 0 {
        -std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    } else {
        r as i32
    }
}

impl ThreadPool {
    /// `depth` workers (at most 256), so up to `depth` I/Os block at once.
    pub fn new(fd: RawFd, depth: u32) -> ReplayResult<ThreadPool> {
        let (tx, rx) = mpsc::channel::<Job>();
        let (dtx, done) = mpsc::channel();
        let rx = Arc::new(Mutex::new(rx));
        let mut workers = Vec::new();
        for i in 0..depth.clamp(1, 256) {
            let (rx, dtx) = (Arc::clone(&rx), dtx.clone());
            let h = std::thread::Builder::new()
                .name(format!("replay-io-{i}"))
                .spawn(move || loop {
                    let job = match rx.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    let Ok(Job(cmd)) = job else { return };
                    let result = run(fd, &cmd);
                    if dtx
                        .send(IoDone {
                            token: cmd.token,
                            result,
                        })
                        .is_err()
                    {
                        return;
                    }
                })
                .map_err(|e| ReplayError::Unavailable(format!("spawn I/O thread: {e}")))?;
            workers.push(h);
        }
        Ok(ThreadPool {
            tx: Some(tx),
            done,
            workers,
            in_flight: 0,
        })
    }
}

impl Backend for ThreadPool {
    fn name(&self) -> &'static str {
        "threads"
    }

    unsafe fn push(&mut self, cmd: IoCmd) -> ReplayResult<()> {
        let tx = self
            .tx
            .as_ref()
            .ok_or_else(|| ReplayError::Invalid("backend closed".into()))?;
        tx.send(Job(cmd))
            .map_err(|_| ReplayError::Unavailable("I/O threads exited".into()))?;
        self.in_flight += 1;
        Ok(())
    }

    fn wait(&mut self, deadline: Option<Instant>, out: &mut Vec<IoDone>) -> ReplayResult<()> {
        if self.in_flight == 0 {
            match deadline {
                None => return Err(ReplayError::Invalid("wait with nothing in flight".into())),
                Some(d) => {
                    std::thread::sleep(d.saturating_duration_since(Instant::now()));
                    return Ok(());
                }
            }
        }
        let first = match deadline {
            None => self.done.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => self
                .done
                .recv_timeout(d.saturating_duration_since(Instant::now())),
        };
        let before = out.len();
        match first {
            Ok(d) => out.push(d),
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(ReplayError::Unavailable("I/O threads exited".into()))
            }
        }
        out.extend(self.done.try_iter());
        self.in_flight -= (out.len() - before) as u32;
        Ok(())
    }

    fn in_flight(&self) -> u32 {
        self.in_flight
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "backend": "threads",
            "warning": "FALLBACK: blocking pread/pwrite on a thread pool, not io_uring",
            "workers": self.workers.len(),
            "o_direct": true,
        })
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.tx = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
