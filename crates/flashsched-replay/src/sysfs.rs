//! What the kernel says about a block device (sysfs, mountinfo, swaps):
//! sizes, queue settings, and whether it or a part of it is in use.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Major/minor of a device number (glibc's encoding).
pub fn dev_pair(rdev: u64) -> (u32, u32) {
    (libc::major(rdev), libc::minor(rdev))
}

/// `/sys/dev/block/MAJ:MIN`, resolved (a partition's directory sits inside
/// its disk's).
pub fn sys_dir((ma, mi): (u32, u32)) -> Option<PathBuf> {
    fs::canonicalize(format!("/sys/dev/block/{ma}:{mi}")).ok()
}

fn read_trim(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

fn parse_pair(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The disk a (possibly partition) directory belongs to.
fn disk_dir(dir: &Path) -> PathBuf {
    if dir.join("partition").exists() {
        dir.parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.into())
    } else {
        dir.into()
    }
}

/// A sysfs attribute of the device's queue (held by the disk).
pub fn queue_attr(dir: &Path, name: &str) -> Option<String> {
    read_trim(&disk_dir(dir).join("queue").join(name))
}

/// Size in bytes (sysfs counts 512-byte sectors whatever the block size).
pub fn size_bytes(dir: &Path) -> Option<u64> {
    read_trim(&dir.join("size"))?
        .parse::<u64>()
        .ok()
        .map(|s| s * 512)
}

/// Device model string, when the driver gives one.
pub fn model(dir: &Path) -> Option<String> {
    read_trim(&disk_dir(dir).join("device").join("model"))
}

/// The device and every partition of it (and, for a partition, its disk),
/// as (name, major:minor).
fn family(dir: &Path) -> Vec<(String, (u32, u32))> {
    let mut dirs = vec![dir.to_path_buf()];
    let disk = disk_dir(dir);
    if disk != dir {
        dirs.push(disk.clone());
    }
    if let Ok(rd) = fs::read_dir(&disk) {
        for e in rd.flatten() {
            let p = e.path();
            if p.join("partition").exists() && !dirs.contains(&p) {
                dirs.push(p);
            }
        }
    }
    dirs.iter()
        .filter_map(|d| {
            let name = d.file_name()?.to_string_lossy().into_owned();
            Some((name, parse_pair(&read_trim(&d.join("dev"))?)?))
        })
        .collect()
}

/// Mounts in this namespace: (device number, source, mount point, fs type).
fn mounts() -> Vec<((u32, u32), String, String, String)> {
    let text = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let dev = parse_pair(f.get(2)?)?;
            let sep = f.iter().position(|&x| x == "-")?;
            Some((
                dev,
                f.get(sep + 2)?.to_string(),
                f.get(4)?.to_string(),
                f.get(sep + 1)?.to_string(),
            ))
        })
        .collect()
}

/// Why writing to the block device at `path` (sysfs directory `dir`) is
/// unsafe: it, its disk or one of its partitions is mounted, used as swap,
/// or held by another driver (device mapper, md, LVM). `None` when free.
pub fn in_use(path: &Path, dir: &Path) -> Option<String> {
    let fam = family(dir);
    let canon = |p: &str| fs::canonicalize(p).ok();
    let fam_paths: Vec<PathBuf> = fam
        .iter()
        .map(|(n, _)| PathBuf::from("/dev").join(n))
        .chain(std::iter::once(path.to_path_buf()))
        .filter_map(|p| fs::canonicalize(p).ok())
        .collect();
    for (dev, source, point, _) in mounts() {
        let hit = fam.iter().find(|(_, d)| *d == dev).map(|(n, _)| n.clone());
        let by_source = canon(&source).filter(|s| fam_paths.contains(s));
        if let Some(n) = hit.or(by_source.map(|s| s.display().to_string())) {
            return Some(format!("{n} is mounted on {point}"));
        }
    }
    let swaps = fs::read_to_string("/proc/swaps").unwrap_or_default();
    for l in swaps.lines().skip(1) {
        if let Some(p) = l.split_whitespace().next().and_then(canon) {
            if fam_paths.contains(&p) {
                return Some(format!("{} is used as swap", p.display()));
            }
        }
    }
    for (n, _) in &fam {
        let holders = PathBuf::from("/sys/class/block").join(n).join("holders");
        if fs::read_dir(&holders).is_ok_and(|mut d| d.next().is_some()) {
            return Some(format!(
                "{n} is held by another driver (device mapper, md or LVM)"
            ));
        }
    }
    None
}

/// The mount (point, fs type, source) holding a file with device number `dev`.
pub fn mount_of(path: &Path) -> Option<(String, String, String)> {
    let dev = dev_pair(fs::metadata(path).ok()?.dev());
    mounts()
        .into_iter()
        .filter(|m| m.0 == dev)
        .map(|(_, src, point, fstype)| (point, fstype, src))
        .next_back()
}
