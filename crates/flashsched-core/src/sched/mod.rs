//! Pluggable schedulers. Host schedulers order block requests before the
//! device queue; device (transaction) schedulers order flash transactions on
//! dies below the FTL. Each policy is one file plus a line in its registry.

pub mod device;
pub mod host;
