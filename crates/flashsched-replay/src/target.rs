//! The replay target: a regular file (created and preallocated when absent)
//! or a block device, opened with O_DIRECT, and the window of it a replay
//! may touch. Every safety refusal happens here, before any I/O.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{ReplayError, ReplayResult};
use crate::sysfs;

/// What the target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    File,
    Block,
}

/// How to open a target.
#[derive(Debug, Clone)]
pub struct TargetSpec {
    pub path: PathBuf,
    /// First byte of the window.
    pub offset: u64,
    /// Window length; 0 = to the end of an existing file or device.
    pub size: u64,
    /// Open for writing (writes and trims need it).
    pub allow_write: bool,
    /// I/O unit: offsets and sizes are rounded out to it; 0 = the larger
    /// of 4 KiB and the device's logical block size.
    pub align: u32,
}

/// `[offset, offset + size)` of the target, in units of `align`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    pub offset: u64,
    pub size: u64,
    pub align: u32,
}

impl Window {
    /// The aligned device range `[start, end)` (window-relative) covering
    /// the workload's `offset..offset+size`, clamped to the window; `None`
    /// if it lies outside the window entirely.
    pub fn cover(&self, offset: u64, size: u32) -> Option<(u64, u64)> {
        let a = self.align as u64;
        let start = offset / a * a;
        let end = (offset + size.max(1) as u64).div_ceil(a) * a;
        let end = end.min(self.size);
        (start < end).then_some((start, end))
    }

    /// Absolute device offset of window-relative `off`, refusing anything
    /// that would leave the window (the last line of defence: every I/O
    /// passes here).
    pub fn absolute(&self, off: u64, len: u64) -> ReplayResult<u64> {
        let a = self.align as u64;
        if !off.is_multiple_of(a) || !len.is_multiple_of(a) || len == 0 || off + len > self.size {
            return Err(ReplayError::Unsafe(format!(
                "I/O of {len} bytes at window offset {off} is outside the {}-byte window \
                 or not {a}-byte aligned",
                self.size
            )));
        }
        Ok(self.offset + off)
    }
}

/// Facts about the target reported with every run.
#[derive(Debug, Clone, Serialize)]
pub struct TargetInfo {
    pub path: String,
    pub kind: TargetKind,
    /// Bytes in the file or device.
    pub capacity: u64,
    /// The file was created (and preallocated) by this run.
    pub created: bool,
    pub writable: bool,
    pub logical_block_size: u32,
    pub physical_block_size: Option<u32>,
    /// The block device (of a file target: the device its file system is on).
    pub device: Option<String>,
    pub model: Option<String>,
    pub rotational: Option<bool>,
    pub kernel_scheduler: Option<String>,
    pub max_sectors_kb: Option<u32>,
    pub nr_requests: Option<u32>,
    /// A file target's file system and mount point.
    pub filesystem: Option<String>,
    pub mount_point: Option<String>,
}

/// An open target.
pub struct Target {
    pub file: File,
    pub window: Window,
    pub info: TargetInfo,
}

fn meta(path: &Path) -> ReplayResult<Option<std::fs::Metadata>> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ReplayError::io(path, "stat", e)),
    }
}

fn preallocate(file: &File, path: &Path, offset: u64, len: u64) -> ReplayResult<()> {
    // Mode 0 allocates holes and leaves existing data alone.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), 0, offset as i64, len as i64) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(ReplayError::io(
            path,
            format!("preallocate {len} bytes at {offset}"),
            e,
        ));
    }
    Ok(())
}

fn open_direct(path: &Path, write: bool, excl: bool) -> ReplayResult<File> {
    let mut flags = libc::O_DIRECT | libc::O_CLOEXEC;
    if excl {
        // On a block device, O_EXCL fails with EBUSY while the kernel has it
        // claimed (mounted, swap, dm/md member): a second, kernel-side check.
        flags |= libc::O_EXCL;
    }
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
            let hint = if e.raw_os_error() == Some(libc::EINVAL) {
                " (the file system may not support O_DIRECT, e.g. tmpfs)"
            } else {
                ""
            };
            ReplayError::io(path, format!("open with O_DIRECT{hint}"), e)
        })
}

fn num<T: std::str::FromStr>(s: Option<String>) -> Option<T> {
    s.and_then(|v| v.parse().ok())
}

/// Queue facts of the device behind sysfs directory `dir`.
fn device_facts(info: &mut TargetInfo, dir: &Path) {
    info.device = dir
        .file_name()
        .map(|n| format!("/dev/{}", n.to_string_lossy()));
    info.model = sysfs::model(dir);
    info.rotational = num::<u8>(sysfs::queue_attr(dir, "rotational")).map(|v| v == 1);
    info.kernel_scheduler = sysfs::queue_attr(dir, "scheduler");
    info.max_sectors_kb = num(sysfs::queue_attr(dir, "max_sectors_kb"));
    info.nr_requests = num(sysfs::queue_attr(dir, "nr_requests"));
    info.physical_block_size = num(sysfs::queue_attr(dir, "physical_block_size"));
    if let Some(l) = num(sysfs::queue_attr(dir, "logical_block_size")) {
        info.logical_block_size = l;
    }
}

impl Target {
    /// Open (or create) the target after every safety check.
    pub fn open(spec: &TargetSpec) -> ReplayResult<Target> {
        let path = spec.path.as_path();
        let mut info = TargetInfo {
            path: path.display().to_string(),
            kind: TargetKind::File,
            capacity: 0,
            created: false,
            writable: spec.allow_write,
            logical_block_size: 512,
            physical_block_size: None,
            device: None,
            model: None,
            rotational: None,
            kernel_scheduler: None,
            max_sectors_kb: None,
            nr_requests: None,
            filesystem: None,
            mount_point: None,
        };
        let file = match meta(path)? {
            Some(m) if m.file_type().is_block_device() => {
                info.kind = TargetKind::Block;
                let dir = sysfs::sys_dir(sysfs::dev_pair(m.rdev())).ok_or_else(|| {
                    ReplayError::Invalid(format!(
                        "{}: no sysfs entry for this device",
                        path.display()
                    ))
                })?;
                if spec.allow_write {
                    if let Some(why) = sysfs::in_use(path, &dir) {
                        return Err(ReplayError::Unsafe(format!(
                            "{}: {why}; a replay never writes to a device in use",
                            path.display()
                        )));
                    }
                }
                device_facts(&mut info, &dir);
                info.capacity = sysfs::size_bytes(&dir).unwrap_or(0);
                open_direct(path, spec.allow_write, spec.allow_write)?
            }
            Some(m) if m.is_file() => {
                info.capacity = m.len();
                Self::file_facts(&mut info, path);
                open_direct(path, spec.allow_write, false)?
            }
            Some(_) => {
                return Err(ReplayError::Invalid(format!(
                    "{}: not a regular file or block device",
                    path.display()
                )))
            }
            None => {
                if spec.size == 0 {
                    return Err(ReplayError::Invalid(format!(
                        "{}: does not exist; give a size to create it",
                        path.display()
                    )));
                }
                let f = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)
                    .map_err(|e| ReplayError::io(path, "create", e))?;
                preallocate(&f, path, 0, spec.offset + spec.size)?;
                drop(f);
                info.created = true;
                info.capacity = spec.offset + spec.size;
                Self::file_facts(&mut info, path);
                open_direct(path, spec.allow_write, false)?
            }
        };
        let window = Self::window(spec, &info)?;
        if info.kind == TargetKind::File && spec.allow_write {
            preallocate(&file, path, window.offset, window.size)?;
            info.capacity = info.capacity.max(window.offset + window.size);
        }
        Ok(Target { file, window, info })
    }

    fn file_facts(info: &mut TargetInfo, path: &Path) {
        if let Some((point, fstype, _)) = sysfs::mount_of(path) {
            info.mount_point = Some(point);
            info.filesystem = Some(fstype);
        }
        let dev = std::fs::metadata(path).map(|m| sysfs::dev_pair(m.dev()));
        if let Some(dir) = dev.ok().and_then(sysfs::sys_dir) {
            device_facts(info, &dir);
        }
    }

    fn window(spec: &TargetSpec, info: &TargetInfo) -> ReplayResult<Window> {
        let lbs = info.logical_block_size.max(512);
        let align = if spec.align == 0 {
            lbs.max(4096)
        } else {
            spec.align
        };
        if !align.is_power_of_two() || align % lbs != 0 {
            return Err(ReplayError::Invalid(format!(
                "align: {align} must be a power of two and a multiple of the device's \
                 {lbs}-byte logical block"
            )));
        }
        let a = align as u64;
        let grows = info.kind == TargetKind::File && spec.allow_write;
        let size = if spec.size == 0 {
            info.capacity.saturating_sub(spec.offset) / a * a
        } else {
            spec.size
        };
        if !spec.offset.is_multiple_of(a) || !size.is_multiple_of(a) {
            return Err(ReplayError::Invalid(format!(
                "offset {} and size {size} must be multiples of the {align}-byte I/O unit",
                spec.offset
            )));
        }
        if size == 0 {
            return Err(ReplayError::Invalid(format!(
                "{}: empty window (offset {} of {} bytes)",
                info.path, spec.offset, info.capacity
            )));
        }
        if !grows && spec.offset + size > info.capacity {
            return Err(ReplayError::Invalid(format!(
                "{}: window [{}, {}) ends past the end ({} bytes)",
                info.path,
                spec.offset,
                spec.offset + size,
                info.capacity
            )));
        }
        Ok(Window {
            offset: spec.offset,
            size,
            align,
        })
    }
}
