//! TOML trees before they become a config: presets, files layered over
//! their preset, and `section.key=value` overrides.

use std::path::Path;

use crate::error::{SimError, SimResult};

/// Built-in presets: (name, TOML text).
pub(super) const PRESETS: &[(&str, &str)] = &[
    ("default", include_str!("../../presets/default.toml")),
    (
        "mqsim-default",
        include_str!("../../presets/mqsim-default.toml"),
    ),
    (
        "ssdsim-default",
        include_str!("../../presets/ssdsim-default.toml"),
    ),
    ("vios-128g", include_str!("../../presets/vios-128g.toml")),
    ("intel-x25e", include_str!("../../presets/intel-x25e.toml")),
    (
        "intel-dc-s3700",
        include_str!("../../presets/intel-dc-s3700.toml"),
    ),
    ("intel-750", include_str!("../../presets/intel-750.toml")),
];

pub(super) fn preset_tree(name: &str) -> SimResult<toml::Value> {
    let text = PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            SimError::unknown("device preset", name, &names)
        })?;
    toml::from_str(text).map_err(|e| SimError::config(name, format!("preset is invalid TOML: {e}")))
}

pub(super) fn load_file_tree(path: &Path) -> SimResult<toml::Value> {
    let text = std::fs::read_to_string(path).map_err(|source| SimError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let user: toml::Value = toml::from_str(&text).map_err(|e| SimError::ConfigFile {
        file: path.to_path_buf(),
        // 1-based line of the error span (0 when the parser gives none).
        line: e.span().map_or(0, |r| {
            1 + text.as_bytes()[..r.start.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64
        }),
        msg: format!("invalid TOML: {}", e.message()),
    })?;
    merge_over_preset(user)
}

/// A user document is layered over its `preset` (or `default`), so files only
/// need the keys they change.
pub(super) fn merge_over_preset(user: toml::Value) -> SimResult<toml::Value> {
    let base_name = user
        .get("preset")
        .and_then(|v| v.as_str())
        .unwrap_or("default")
        .to_string();
    let mut base = preset_tree(&base_name)?;
    set_path(&mut base, "preset", toml::Value::String(base_name))?;
    merge(&mut base, user);
    Ok(base)
}

/// Lay `over` onto `base`, table by table.
pub(super) fn merge(base: &mut toml::Value, over: toml::Value) {
    match (base, over) {
        (toml::Value::Table(b), toml::Value::Table(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Apply one `section.key=value` override. The value is parsed as TOML
/// (numbers, booleans, quoted strings); anything else is taken as a string.
/// Types are checked (and integers for float keys widened) afterwards, with
/// the whole tree, by `schema::normalize_types`.
pub(super) fn apply_override(tree: &mut toml::Value, ov: &str) -> SimResult<()> {
    let (key, raw) = ov
        .split_once('=')
        .ok_or_else(|| SimError::config(ov, "override must look like section.key=value"))?;
    let key = key.trim();
    let raw = raw.trim();
    let value = toml::from_str::<toml::Value>(&format!("v = {raw}"))
        .ok()
        .and_then(|t| t.get("v").cloned())
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    set_path(tree, key, value)
}

pub(super) fn lookup<'a>(tree: &'a toml::Value, key: &str) -> Option<&'a toml::Value> {
    key.split('.').try_fold(tree, |t, k| t.get(k))
}

pub(super) fn set_path(tree: &mut toml::Value, key: &str, value: toml::Value) -> SimResult<()> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts
        .pop()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| SimError::config(key, "empty key"))?;
    let mut cur = tree;
    for p in parts {
        let table = cur
            .as_table_mut()
            .ok_or_else(|| SimError::config(key, format!("`{p}` is not a section")))?;
        cur = table
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()));
    }
    let table = cur
        .as_table_mut()
        .ok_or_else(|| SimError::config(key, "parent is not a section"))?;
    table.insert(last.to_string(), value);
    Ok(())
}

/// Every leaf of `v` as a dotted path.
pub(super) fn leaves(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
    match v.as_table() {
        Some(t) => {
            for (k, sub) in t {
                leaves(sub, &join(prefix, k), out);
            }
        }
        None => out.push(prefix.to_string()),
    }
}

/// `prefix.key`, or `key` at the top.
pub(super) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}
