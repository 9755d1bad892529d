//! One error type for the whole core. Every variant names *where* the problem is
//! (config key, trace file and line, scheduler name) so users can fix their input.

use std::path::PathBuf;

/// Errors produced by the simulator core. None of these are panics: bad input
/// always surfaces as one of these variants (and as a Python exception above).
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A configuration key is unknown or its value is out of range.
    #[error("config key `{key}`: {msg}")]
    Config {
        /// The key, `section.name` (or a file, spec or argument name).
        key: String,
        /// What is wrong with it.
        msg: String,
    },

    /// A trace line could not be parsed.
    #[error("{}:{line}: {msg}", file.display())]
    Trace {
        /// The trace file (`<stdin>` for standard input).
        file: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong with the line.
        msg: String,
    },

    /// A device config file could not be parsed (a TOML syntax error).
    #[error("{}:{line}: {msg}", file.display())]
    ConfigFile {
        /// The config file.
        file: PathBuf,
        /// 1-based line number.
        line: u64,
        /// The parser's message.
        msg: String,
    },

    /// A name (scheduler, preset, trace format, policy) is not registered.
    #[error("unknown {kind} `{name}` (known: {known})")]
    UnknownName {
        /// What was looked up (`host scheduler`, `preset`, ...).
        kind: &'static str,
        /// The name given.
        name: String,
        /// The registered names, comma-separated.
        known: String,
    },

    /// Reading a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// The run would need more memory than its limit (estimated before
    /// anything is built, or per-request records growing during the run).
    #[error("memory limit: {0}")]
    MemoryLimit(String),

    /// The simulation reached a state it cannot leave (a modelling bug or an
    /// impossible configuration such as a device with no free space at all).
    #[error("simulation error: {0}")]
    Invalid(String),
}

/// Result alias used across the core. The error is boxed: a `SimResult<()>`
/// is then one register wide, so the hot path's many fallible calls return
/// in a register instead of through a 64-byte slot in memory (~2 % fewer
/// instructions per simulated request, BENCHMARKS.md, session 54).
pub type SimResult<T> = Result<T, Box<SimError>>;

impl SimError {
    /// Shorthand for a config error on `key` (boxed, as [`SimResult`]
    /// carries it).
    pub fn config(key: impl Into<String>, msg: impl Into<String>) -> Box<Self> {
        Box::new(SimError::Config {
            key: key.into(),
            msg: msg.into(),
        })
    }

    /// Shorthand for an unknown-name error listing the known names (boxed).
    pub fn unknown(kind: &'static str, name: &str, known: &[&str]) -> Box<Self> {
        Box::new(SimError::UnknownName {
            kind,
            name: name.to_string(),
            known: known.join(", "),
        })
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

/// Run `f`, turning a panic (a bug in the core, never an input error) into
/// [`SimError::Invalid`] so it cannot unwind into a caller such as the
/// Python bindings. Values `f` had mutated may be inconsistent afterwards:
/// callers drop them (the bindings hold simulations behind a mutex, which
/// the unwinding poisons).
pub fn catch_panic<T>(f: impl FnOnce() -> SimResult<T>) -> SimResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|payload| Err(SimError::Invalid(panic_message(payload.as_ref())).into()))
}

/// The text of a caught panic payload, as an internal-error message.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string());
    format!("internal error (a flashsched bug, please report it): {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_errors() {
        let r: SimResult<u32> = catch_panic(|| panic!("boom {}", 7));
        let e = r.unwrap_err();
        assert!(matches!(*e, SimError::Invalid(_)));
        assert!(
            e.to_string().contains("internal error") && e.to_string().contains("boom 7"),
            "{e}"
        );
        let r: SimResult<u32> = catch_panic(|| {
            let v: Vec<u32> = Vec::new();
            Ok(v[3])
        });
        assert!(r.unwrap_err().to_string().contains("index out of bounds"));
        assert_eq!(catch_panic(|| Ok(5)).unwrap(), 5);
        let r: SimResult<()> = catch_panic(|| Err(SimError::Invalid("plain".into()).into()));
        assert_eq!(r.unwrap_err().to_string(), "simulation error: plain");
    }
}
