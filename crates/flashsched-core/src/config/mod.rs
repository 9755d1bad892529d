//! Device configuration: the sections of each layer composed into one
//! device, built-in presets, and strict loading.
//!
//! Each layer owns its section and its checks ([`GeometryConfig`],
//! [`TimingConfig`] and [`VariationConfig`] in `flash`, [`FtlConfig`] in
//! `ftl`, [`HostConfig`] in `host`, [`ControllerConfig`] in `device`);
//! scheduler tunables are tables found through the schedulers' registries.
//! A config is assembled as a TOML tree (preset → user file → `--set`
//! overrides), checked key by key against the schema (an unknown key is an
//! error that names it), deserialized, then validated (a bad value is an
//! error naming the key and the allowed range or values).

mod legacy;
mod schema;
mod tree;

use serde::{Deserialize, Serialize};
use std::path::Path;

pub use crate::device::config::{
    CacheConfig, CachePolicy, ControllerConfig, InterfaceConfig, LinkKind, MappingConfig, SsdSpec,
};
use crate::error::{SimError, SimResult};
use crate::flash::Geometry;
pub use crate::flash::{Cell, GeometryConfig, TimingConfig, VariationConfig};
pub use crate::ftl::{Allocation, FtlConfig, GcPolicy};
pub use crate::host::config::HostConfig;
pub use legacy::SSDSIM_PLAIN;
use schema::{check_keys, culprit, fill_sched_tables, normalize_types, schema_tree};
use tree::{apply_override, load_file_tree, merge_over_preset, preset_tree, set_path, PRESETS};

/// A whole device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// One line on what the device models (`flashsched presets`).
    #[serde(default)]
    pub description: String,
    /// Name of the preset this config starts from (informational once loaded).
    #[serde(default)]
    pub preset: String,
    /// `[geometry]`: the flash array's shape.
    pub geometry: GeometryConfig,
    /// `[timing]`: NAND and bus latencies.
    pub timing: TimingConfig,
    /// `[ftl]`: mapping, allocation, GC and preconditioning.
    pub ftl: FtlConfig,
    /// `[host]`: queue depth and the host I/O scheduler.
    pub host: HostConfig,
    /// `[controller]`: the transaction scheduler and flash command rules.
    #[serde(default)]
    pub controller: ControllerConfig,
    /// `[variation]`: per-block program speeds.
    #[serde(default)]
    pub variation: VariationConfig,
    /// `[interface]`: the host link.
    #[serde(default)]
    pub interface: InterfaceConfig,
    /// `[cache]`: the DRAM data cache.
    #[serde(default)]
    pub cache: CacheConfig,
    /// `[mapping]`: where the mapping table lives.
    #[serde(default)]
    pub mapping: MappingConfig,
}

impl DeviceConfig {
    /// Names and descriptions of the built-in presets.
    pub fn presets() -> Vec<(&'static str, String)> {
        PRESETS
            .iter()
            .map(|(n, text)| {
                let desc = toml::from_str::<toml::Value>(text)
                    .ok()
                    .and_then(|v| {
                        v.get("description")
                            .and_then(|d| d.as_str().map(String::from))
                    })
                    .unwrap_or_default();
                (*n, desc)
            })
            .collect()
    }

    /// Load a preset by name.
    pub fn preset(name: &str) -> SimResult<DeviceConfig> {
        Self::load(name, &[])
    }

    /// Load `spec` (a preset name, or a path to a `.toml` file) and apply
    /// `key=value` overrides in order.
    pub fn load(spec: &str, overrides: &[String]) -> SimResult<DeviceConfig> {
        let mut tree = if spec.ends_with(".toml") || Path::new(spec).is_file() {
            load_file_tree(Path::new(spec))?
        } else {
            let mut t = preset_tree(spec)?;
            set_path(&mut t, "preset", toml::Value::String(spec.to_string()))?;
            t
        };
        for ov in overrides {
            apply_override(&mut tree, ov)?;
        }
        Self::from_tree(tree)
    }

    /// Parse a complete TOML document (may start from `preset = "..."`).
    pub fn from_toml_str(text: &str, origin: &str) -> SimResult<DeviceConfig> {
        let user: toml::Value = toml::from_str(text)
            .map_err(|e| SimError::config(origin, format!("invalid TOML: {e}")))?;
        Self::from_tree(merge_over_preset(user)?)
    }

    fn from_tree(mut tree: toml::Value) -> SimResult<DeviceConfig> {
        let schema = schema_tree()?;
        check_keys(&tree, schema, "")?;
        normalize_types(&mut tree, schema, "")?;
        fill_sched_tables(&mut tree)?;
        let cfg: DeviceConfig = tree.clone().try_into().map_err(|e: toml::de::Error| {
            let key = culprit(&tree, schema).unwrap_or_else(|| "device".to_string());
            SimError::config(key, e.message().to_string())
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The config as TOML text (what a run used, for reports).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Every section's checks and those across sections; each error names
    /// its key and the allowed range or values.
    pub fn validate(&self) -> SimResult<()> {
        self.ssd().validate()?;
        self.host.validate()
    }

    /// The sections an SSD is built from.
    pub fn ssd(&self) -> SsdSpec<'_> {
        SsdSpec {
            geometry: &self.geometry,
            timing: &self.timing,
            ftl: &self.ftl,
            controller: &self.controller,
            variation: &self.variation,
            interface: &self.interface,
            cache: &self.cache,
            mapping: &self.mapping,
        }
    }

    /// The device's geometry with its derived numbering.
    pub fn geometry(&self) -> Geometry {
        Geometry::new(&self.geometry)
    }

    /// Logical pages the device exposes.
    pub fn logical_pages(&self) -> u32 {
        crate::ftl::Ftl::logical_pages_for(&self.geometry(), &self.ftl)
    }

    /// Logical capacity in bytes.
    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages() as u64 * self.geometry.page_size as u64
    }
}

#[cfg(test)]
mod tests;
