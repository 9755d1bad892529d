//! The key schema of a device config and the checks made against it before
//! deserialization: every key must exist (renamed keys name their new
//! place), every value must have the schema's type (integers widen to
//! floats), and a value serde still rejects is traced back to its key.

use super::tree::{join, leaves, lookup, preset_tree, set_path};
use super::DeviceConfig;
use crate::error::{SimError, SimResult};

/// Keys that moved, with where they live now. Scheduler tunables used to be
/// flat `controller.<sched>_<key>` fields; they are each scheduler's own
/// table now (looked up through its registry).
const RENAMED: &[(&str, &str)] = &[
    (
        "controller.suspend_program",
        "controller.pe-suspend.suspend_program",
    ),
    (
        "controller.suspend_erase",
        "controller.pe-suspend.suspend_erase",
    ),
    (
        "controller.write_suspend_erase",
        "controller.pe-suspend.write_suspend_erase",
    ),
    (
        "controller.suspend_min_remaining_program_us",
        "controller.pe-suspend.min_remaining_program_us",
    ),
    (
        "controller.suspend_min_remaining_erase_us",
        "controller.pe-suspend.min_remaining_erase_us",
    ),
    (
        "controller.write_queue_limit",
        "controller.pe-suspend.write_queue_limit",
    ),
    (
        "controller.piq_max_read_batches",
        "controller.piq.max_read_batches (and controller.vios.max_read_batches)",
    ),
    ("controller.piq_granularity", "controller.piq.granularity"),
    (
        "controller.aos_dispatch_region_pages",
        "controller.aos.dispatch_region_pages",
    ),
    ("controller.aos_rs_per_chip", "controller.aos.rs_per_chip"),
    ("controller.aos_multiplane", "controller.aos.multiplane"),
    ("ftl.write_buffer_mib", "cache.mib"),
];

/// The complete key schema: the default preset with every scheduler's
/// tunables table at its defaults, deserialized (so every optional key takes
/// its serde default) and serialized back. Every key a config may hold, with
/// its type, lives here and nowhere else.
pub(super) fn schema_tree() -> SimResult<&'static toml::Value> {
    static SCHEMA: std::sync::OnceLock<Result<toml::Value, String>> = std::sync::OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let mut tree = preset_tree("default").map_err(|e| e.to_string())?;
            fill_sched_tables(&mut tree).map_err(|e| e.to_string())?;
            let cfg: DeviceConfig = tree
                .try_into()
                .map_err(|e: toml::de::Error| e.to_string())?;
            toml::Value::try_from(cfg).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| SimError::config("schema", e.clone()))
}

/// Give every registered scheduler its tunables table: its defaults,
/// overlaid with whatever the tree already holds for it.
pub(super) fn fill_sched_tables(tree: &mut toml::Value) -> SimResult<()> {
    let sections = [
        (
            crate::host::sched::REGISTRY.section,
            crate::host::sched::REGISTRY.default_tables(),
        ),
        (
            crate::device::sched::REGISTRY.section,
            crate::device::sched::REGISTRY.default_tables(),
        ),
    ];
    for (section, defaults) in sections {
        for (name, mut table) in defaults {
            let key = format!("{section}.{name}");
            match lookup(tree, &key) {
                // Not a table: left for the type check to name.
                Some(given) if !given.is_table() => continue,
                Some(given) => super::tree::merge(&mut table, given.clone()),
                None => {}
            }
            set_path(tree, &key, table)?;
        }
    }
    Ok(())
}

/// Every key of `tree` must exist in `schema`.
pub(super) fn check_keys(tree: &toml::Value, schema: &toml::Value, prefix: &str) -> SimResult<()> {
    let Some(table) = tree.as_table() else {
        return Ok(());
    };
    for (k, v) in table {
        let path = join(prefix, k);
        match schema.get(k) {
            Some(sub) => check_keys(v, sub, &path)?,
            None => {
                if let Some((_, now)) = RENAMED.iter().find(|(old, _)| *old == path) {
                    return Err(SimError::config(
                        path,
                        format!("this key moved: use `{now}`"),
                    ));
                }
                let mut known: Vec<String> = schema
                    .as_table()
                    .map(|t| t.keys().cloned().collect())
                    .unwrap_or_default();
                known.sort();
                return Err(SimError::config(
                    path,
                    format!("unknown key (known here: {})", known.join(", ")),
                ));
            }
        }
    }
    Ok(())
}

/// Check every leaf against the schema's type, naming the key on a mismatch;
/// integers given for float keys are widened, negative integers rejected.
pub(super) fn normalize_types(
    tree: &mut toml::Value,
    schema: &toml::Value,
    prefix: &str,
) -> SimResult<()> {
    let Some(table) = tree.as_table_mut() else {
        return Ok(());
    };
    for (k, v) in table.iter_mut() {
        let path = join(prefix, k);
        // check_keys ran first, so every key is in the schema.
        let Some(expected) = schema.get(k) else {
            continue;
        };
        match (expected, &*v) {
            (toml::Value::Table(_), toml::Value::Table(_)) => normalize_types(v, expected, &path)?,
            (toml::Value::Float(_), toml::Value::Integer(i)) => *v = toml::Value::Float(*i as f64),
            (toml::Value::Integer(_), toml::Value::Integer(i)) if *i < 0 => {
                return Err(SimError::config(path, format!("{i} must not be negative")));
            }
            (e, got) if std::mem::discriminant(e) == std::mem::discriminant(got) => {}
            (e, got) => {
                return Err(SimError::config(
                    path,
                    format!("expected {}, got {} `{got}`", e.type_str(), got.type_str()),
                ));
            }
        }
    }
    Ok(())
}

/// The key whose value makes deserialization fail (e.g. an integer beyond
/// u32, a choice not in its list): the first leaf that, reset to its schema
/// default, lets the tree deserialize. Error path only (one attempt per leaf).
pub(super) fn culprit(tree: &toml::Value, schema: &toml::Value) -> Option<String> {
    let mut paths = Vec::new();
    leaves(tree, "", &mut paths);
    paths.into_iter().find(|path| {
        let (Some(default), Some(current)) = (lookup(schema, path), lookup(tree, path)) else {
            return false;
        };
        if default == current {
            return false;
        }
        let mut t = tree.clone();
        set_path(&mut t, path, default.clone()).is_ok() && t.try_into::<DeviceConfig>().is_ok()
    })
}
