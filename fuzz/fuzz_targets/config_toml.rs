#![no_main]
//! The config loader on arbitrary TOML text: a valid config or a keyed
//! error, never a panic.

use flashsched_core::config::DeviceConfig;
use flashsched_core::error::SimError;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match DeviceConfig::from_toml_str(text, "fuzz.toml").map_err(|e| *e) {
        Ok(cfg) => cfg.validate().unwrap(),
        Err(SimError::Config { .. } | SimError::UnknownName { .. }) => {}
        Err(e) => panic!("unexpected error kind: {e:?}"),
    }
});
