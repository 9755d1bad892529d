//! One error type for the whole core. Every variant names *where* the problem is
//! (config key, trace file and line, scheduler name) so users can fix their input.

use std::path::PathBuf;

/// Errors produced by the simulator core. None of these are panics: bad input
/// always surfaces as one of these variants (and as a Python exception above).
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A configuration key is unknown or its value is out of range.
    #[error("config key `{key}`: {msg}")]
    Config { key: String, msg: String },

    /// A trace line could not be parsed.
    #[error("{}:{line}: {msg}", file.display())]
    Trace {
        file: PathBuf,
        line: u64,
        msg: String,
    },

    /// A name (scheduler, preset, trace format, policy) is not registered.
    #[error("unknown {kind} `{name}` (known: {known})")]
    UnknownName {
        kind: &'static str,
        name: String,
        known: String,
    },

    /// Reading a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The simulation reached a state it cannot leave (a modelling bug or an
    /// impossible configuration such as a device with no free space at all).
    #[error("simulation error: {0}")]
    Invalid(String),
}

/// Result alias used across the core.
pub type SimResult<T> = Result<T, SimError>;

impl SimError {
    /// Shorthand for a config error on `key`.
    pub fn config(key: impl Into<String>, msg: impl Into<String>) -> Self {
        SimError::Config {
            key: key.into(),
            msg: msg.into(),
        }
    }

    /// Shorthand for an unknown-name error listing the known names.
    pub fn unknown(kind: &'static str, name: &str, known: &[&str]) -> Self {
        SimError::UnknownName {
            kind,
            name: name.to_string(),
            known: known.join(", "),
        }
    }
}

/// Return early with a [`SimError::Config`] when `cond` is false.
#[macro_export]
macro_rules! ensure_config {
    ($cond:expr, $key:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::error::SimError::config($key, format!($($fmt)+)));
        }
    };
}
