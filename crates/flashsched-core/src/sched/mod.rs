//! Pluggable schedulers. Host schedulers order block requests before the
//! device queue; device (transaction) schedulers order flash transactions on
//! dies below the FTL. Each policy is one file plus a line in its registry.

pub mod device;
pub mod host;

use crate::error::{SimError, SimResult};

/// A name → constructor table shared by both scheduler kinds.
pub(crate) struct Registry<C: 'static> {
    /// What the entries are, for error messages ("host scheduler").
    pub kind: &'static str,
    pub entries: &'static [(&'static str, C)],
}

impl<C: Copy> Registry<C> {
    /// Registered names, in registry order.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|(n, _)| *n).collect()
    }

    /// The constructor called `name`, or an error listing the known names.
    pub fn get(&self, name: &str) -> SimResult<C> {
        self.entries
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
            .ok_or_else(|| SimError::unknown(self.kind, name, &self.names()))
    }
}
