//! Name → scheduler tables. Host schedulers (`host::sched`) order block
//! requests before the device queue; transaction schedulers
//! (`device::sched`) order flash transactions below the FTL.
//!
//! An entry carries everything about a scheduler the rest of the simulator
//! needs, as Linux's `struct elevator_type` carries name, ops and attributes
//! together: its name, a one-line description, its tunables' type (with
//! defaults, so the config knows its keys, and with validation) and its
//! constructor. A scheduler with tunables is therefore one file plus one
//! registry line: the config finds its `[host.<name>]` or
//! `[controller.<name>]` table through the registry.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{SimError, SimResult};

/// Tunables of one scheduler, read from its config table. Fields take their
/// defaults when absent (`#[serde(default)]`), unknown fields are errors
/// (`#[serde(deny_unknown_fields)]`) and choices are enums, so a bad value is
/// an error naming the key and the allowed values.
pub trait Params: Serialize + DeserializeOwned + Default + Clone + Send + 'static {
    /// Range checks the types do not express; errors name `key.<field>`,
    /// where `key` is the table's own key (e.g. `host.deadline`).
    fn validate(&self, _key: &str) -> SimResult<()> {
        Ok(())
    }
}

/// The tunables of a scheduler that has none (an empty table).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

impl Params for NoParams {}

/// One registered scheduler; `B` is its layer's constructor type.
pub struct Entry<B: 'static> {
    /// The name users select it by (`host.scheduler = "..."`) and the key of
    /// its tunables' table.
    pub name: &'static str,
    /// One line for listings (`flashsched schedulers`).
    pub about: &'static str,
    defaults: fn() -> toml::Value,
    check: fn(&toml::Value, &str) -> SimResult<()>,
    pub(crate) build: B,
}

impl<B: Copy> Entry<B> {
    /// An entry whose tunables are `P`; `build` parses them itself (it is
    /// generic over the scheduler type, see the layers' `entry`).
    pub const fn new<P: Params>(name: &'static str, about: &'static str, build: B) -> Self {
        Entry {
            name,
            about,
            defaults: defaults::<P>,
            check: check::<P>,
            build,
        }
    }
}

fn defaults<P: Params>() -> toml::Value {
    // A derived Serialize of plain fields cannot fail to become TOML.
    toml::Value::try_from(P::default())
        .unwrap_or_else(|_| toml::Value::Table(toml::map::Map::new()))
}

fn check<P: Params>(table: &toml::Value, key: &str) -> SimResult<()> {
    parse::<P>(table, key).map(|_| ())
}

/// Read and validate the tunables `P` from `table`, the config table at
/// `key`. A value that does not fit is reported under its own key.
pub fn parse<P: Params>(table: &toml::Value, key: &str) -> SimResult<P> {
    let p: P = table.clone().try_into().map_err(|e: toml::de::Error| {
        let field = culprit::<P>(table).map_or_else(|| key.to_string(), |f| format!("{key}.{f}"));
        SimError::config(field, e.message().to_string())
    })?;
    p.validate(key)?;
    Ok(p)
}

/// The field of `table` that makes it fail to parse as `P`: the first one
/// that, reset to its default (or removed if it has none), lets it parse.
/// Error path only.
fn culprit<P: Params>(table: &toml::Value) -> Option<String> {
    let fields = table.as_table()?;
    let defaults = defaults::<P>();
    fields.keys().find_map(|k| {
        let mut t = fields.clone();
        match defaults.get(k) {
            Some(d) => t.insert(k.clone(), d.clone()),
            None => t.remove(k),
        };
        toml::Value::Table(t)
            .try_into::<P>()
            .is_ok()
            .then(|| k.clone())
    })
}

/// A layer's registry: its entries in listing order.
pub struct Registry<B: 'static> {
    /// What the entries are, for error messages ("host scheduler").
    pub kind: &'static str,
    /// The config section holding the selected name and the tunables'
    /// tables (`host`, `controller`).
    pub section: &'static str,
    /// The registered schedulers, in listing order.
    pub entries: &'static [Entry<B>],
}

impl<B: Copy> Registry<B> {
    /// Registered names, in registry order.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.name).collect()
    }

    /// (name, description) of every entry, in registry order.
    pub fn describe(&self) -> Vec<(&'static str, &'static str)> {
        self.entries.iter().map(|e| (e.name, e.about)).collect()
    }

    /// The entry called `name`, or an error listing the known names.
    pub fn get(&self, name: &str) -> SimResult<&'static Entry<B>> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| SimError::unknown(self.kind, name, &self.names()))
    }

    /// Every entry's tunables at their defaults, keyed by name (what a
    /// resolved config holds for tables the user did not give).
    pub fn default_tables(&self) -> toml::map::Map<String, toml::Value> {
        self.entries
            .iter()
            .map(|e| (e.name.to_string(), (e.defaults)()))
            .collect()
    }

    /// Validate the selected name and every tunables table in `tables`.
    pub fn validate(&self, selected: &str, tables: &SchedTables) -> SimResult<()> {
        self.get(selected)
            .map_err(|e| SimError::config(format!("{}.scheduler", self.section), e.to_string()))?;
        for (name, table) in tables {
            let key = format!("{}.{name}", self.section);
            let entry = self
                .get(name)
                .map_err(|e| SimError::config(&key, e.to_string()))?;
            (entry.check)(table, &key)?;
        }
        Ok(())
    }

    /// The tunables table of `name` in `tables` (its defaults if absent) and
    /// its config key.
    pub fn table_of(&self, name: &str, tables: &SchedTables) -> SimResult<(toml::Value, String)> {
        let entry = self.get(name)?;
        let table = tables
            .get(name)
            .cloned()
            .unwrap_or_else(|| (entry.defaults)());
        Ok((table, format!("{}.{name}", self.section)))
    }
}

/// Scheduler tunables tables of one config section, by scheduler name.
pub type SchedTables = std::collections::BTreeMap<String, toml::Value>;

/// Range check of tunable `field` of the table at `key`.
pub fn check_range(key: &str, field: &str, v: f64, lo: f64, hi: f64) -> SimResult<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(SimError::config(
            format!("{key}.{field}"),
            format!("{v} is outside [{lo}, {hi}]"),
        ))
    }
}
