//! The machine a replay ran on: kernel release and the io_uring switch.

use serde::Serialize;

/// Kernel facts recorded with every replay and probe.
#[derive(Debug, Clone, Serialize)]
pub struct KernelInfo {
    pub sysname: String,
    pub release: String,
    pub version: String,
    pub machine: String,
    /// `/proc/sys/kernel/io_uring_disabled` (0 = allowed), when present.
    pub io_uring_disabled: Option<u8>,
}

fn field(b: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = b
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What `uname` and procfs say.
pub fn kernel() -> KernelInfo {
    // Safety: `uname` fills the zeroed struct.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::uname(&mut u) } == 0;
    let get = |b: &[libc::c_char]| if ok { field(b) } else { String::new() };
    KernelInfo {
        sysname: get(&u.sysname),
        release: get(&u.release),
        version: get(&u.version),
        machine: get(&u.machine),
        io_uring_disabled: std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
            .ok()
            .and_then(|s| s.trim().parse().ok()),
    }
}
