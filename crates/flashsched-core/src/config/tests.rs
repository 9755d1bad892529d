//! Config loading: presets, overrides, named errors, renamed keys.

use super::*;

#[test]
fn every_preset_loads_and_validates() {
    for (name, _) in DeviceConfig::presets() {
        let c = DeviceConfig::preset(name).unwrap();
        assert_eq!(c.preset, name);
    }
    let m = DeviceConfig::preset("mqsim-default").unwrap();
    assert_eq!(m.geometry.blocks_per_plane, 2048);
    assert_eq!(m.timing.program_us, 750.0);
}

#[test]
fn overrides_apply_and_widen_ints() {
    let c = DeviceConfig::load(
        "default",
        &["timing.read_us=50".into(), "host.queue_depth=1".into()],
    )
    .unwrap();
    assert_eq!(c.timing.read_us, 50.0);
    assert_eq!(c.host.queue_depth, 1);
    let c = DeviceConfig::load("default", &["ftl.gc_policy=cost-benefit".into()]).unwrap();
    assert_eq!(c.ftl.gc_policy, GcPolicy::CostBenefit);
}

#[test]
fn unknown_key_is_named() {
    let e = DeviceConfig::load("default", &["timing.raed_us=50".into()]).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("timing.raed_us"), "{msg}");
    assert!(msg.contains("read_us"), "{msg}");
    let e = DeviceConfig::from_toml_str("[geometri]\nchannels = 2\n", "x.toml").unwrap_err();
    assert!(e.to_string().contains("geometri"));
}

#[test]
fn bad_value_names_key_and_range() {
    let e = DeviceConfig::load("default", &["geometry.channels=0".into()]).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("geometry.channels") && msg.contains("[1, 1024]"),
        "{msg}"
    );
    let e = DeviceConfig::load("default", &["ftl.gc_policy=best".into()]).unwrap_err();
    assert!(e.to_string().contains("gc_policy"), "{e}");
    let e = DeviceConfig::load("default", &["host.scheduler=nope".into()]).unwrap_err();
    assert!(e.to_string().contains("host.scheduler"), "{e}");
    for (ov, key) in [
        ("timing.read_us=abc", "timing.read_us"),
        ("host.queue_depth=1.5", "host.queue_depth"),
        ("geometry.channels=-1", "geometry.channels"),
        ("ftl.copyback=3", "ftl.copyback"),
    ] {
        let e = DeviceConfig::load("default", &[ov.into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{ov}: {e}");
    }
    let c = DeviceConfig::from_toml_str("[timing]\nread_us = 50\n", "int.toml").unwrap();
    assert_eq!(
        c.timing.read_us, 50.0,
        "integers widen to floats in files too"
    );
    let e = DeviceConfig::load("no-such-preset", &[]).unwrap_err();
    assert!(e.to_string().contains("mqsim-default"), "{e}");
}

#[test]
fn controller_and_variation_keys() {
    let c = DeviceConfig::load(
        "vios-128g",
        &[
            "variation.enabled=true".into(),
            "variation.wear_pe=15000".into(),
            "variation.ecc_ber=1".into(),
            "controller.suspend_us=3".into(),
            "controller.scheduler=pe-suspend".into(),
        ],
    )
    .unwrap();
    assert!(c.variation.enabled);
    assert_eq!(c.variation.wear_pe, 15_000);
    assert_eq!(c.variation.ecc_ber, 1.0);
    assert_eq!(c.controller.suspend_us, 3.0);
    assert_eq!(c.controller.program_loops, 10);
    let e = DeviceConfig::load("default", &["variation.step_max=0.1".into()]).unwrap_err();
    assert!(e.to_string().contains("variation.step_max"), "{e}");
    let e = DeviceConfig::load("default", &["controller.erase_loops=0".into()]).unwrap_err();
    assert!(e.to_string().contains("controller.erase_loops"), "{e}");
    let e = DeviceConfig::load("default", &["variation.wear=1".into()]).unwrap_err();
    assert!(e.to_string().contains("wear"), "{e}");
    let e = DeviceConfig::load("default", &["controller.scheduler=nope".into()]).unwrap_err();
    assert!(e.to_string().contains("aos"), "{e}");
}

#[test]
fn partial_file_layers_over_preset() {
    let c = DeviceConfig::from_toml_str(
        "preset = \"ssdsim-default\"\n[timing]\nread_us = 30.0\n",
        "t.toml",
    )
    .unwrap();
    assert_eq!(c.geometry.page_size, 2048);
    assert_eq!(c.timing.read_us, 30.0);
    let round = DeviceConfig::from_toml_str(&c.to_toml(), "round").unwrap();
    assert_eq!(round, c);
}

#[test]
fn scheduler_tunables_are_tables_found_through_the_registry() {
    let c = DeviceConfig::load(
        "default",
        &[
            "controller.aos.rs_per_chip=4".into(),
            "controller.piq.granularity=die".into(),
            "host.deadline.fifo_batch=8".into(),
        ],
    )
    .unwrap();
    assert_eq!(
        c.controller.sched["aos"]["rs_per_chip"].as_integer(),
        Some(4)
    );
    assert_eq!(
        c.controller.sched["piq"]["granularity"].as_str(),
        Some("die")
    );
    assert_eq!(c.host.sched["deadline"]["fifo_batch"].as_integer(), Some(8));
    // Every registered scheduler has its table, at defaults where not given.
    for name in crate::device::sched::names() {
        assert!(c.controller.sched.contains_key(name), "{name}");
    }
    assert_eq!(
        c.host.sched["deadline"]["read_expire_ms"].as_float(),
        Some(500.0)
    );
    let round = DeviceConfig::from_toml_str(&c.to_toml(), "round").unwrap();
    assert_eq!(round, c, "tables survive a round trip through TOML");
    for (ov, key, says) in [
        (
            "controller.piq.granularity=chips",
            "controller.piq.granularity",
            "plane",
        ),
        (
            "controller.aos.rs_per_chip=0",
            "controller.aos.rs_per_chip",
            "[1, 1000000]",
        ),
        (
            "controller.aos.depth=1",
            "controller.aos.depth",
            "rs_per_chip",
        ),
        (
            "host.amphibian.gc_detect=magic",
            "host.amphibian.gc_detect",
            "oracle",
        ),
        ("host.nope.x=1", "host.nope", "unknown key"),
        ("ftl.gc_policy=best", "ftl.gc_policy", "cost-benefit"),
        ("timing.cell=plc", "timing.cell", "qlc"),
        ("ftl.allocation=static:CW", "ftl.allocation", "permutation"),
    ] {
        let e = DeviceConfig::load("default", &[ov.into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains(key) && e.contains(says), "{ov}: {e}");
    }
}

#[test]
fn old_flat_scheduler_keys_name_their_new_place() {
    for (old, new) in [
        ("controller.aos_rs_per_chip=2", "controller.aos.rs_per_chip"),
        (
            "controller.piq_max_read_batches=2",
            "controller.piq.max_read_batches",
        ),
        (
            "controller.write_queue_limit=8",
            "controller.pe-suspend.write_queue_limit",
        ),
    ] {
        let e = DeviceConfig::load("default", &[old.into()])
            .unwrap_err()
            .to_string();
        let key = old.split('=').next().unwrap_or_default();
        assert!(e.contains(key) && e.contains(new), "{old}: {e}");
    }
}
