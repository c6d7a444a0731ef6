//! The configuration layer: TOML parsing, defaults, round trip, and error messages that name
//! the file, line and field.

use flashtail::workload::{AddressPattern, Arrival, ConfigError, GapDist, GenConfig, SizeDist};

const EXAMPLE: &str = r#"
count = 5000
span_bytes = 1073741824
read_ratio = 0.25
seed = 7

[address]
kind = "zipf"
theta = 0.99
extent_bytes = 65536

[read_address]
kind = "recent_writes"
window = 1024

[size]
kind = "weighted"
sizes = [ { bytes = 4096, weight = 3 }, { bytes = 8192, weight = 1 } ]

[arrival]
kind = "onoff"
burst_iops = 2000
target_idle_share = 0.5
mean_idle_ms = 20
idle_dist = { kind = "lognormal", sigma = 1.0 }

[content]
dup_rate = 0.3
dup_theta = 0.8
"#;

#[test]
fn example_toml_parses_with_defaults_for_missing_fields() {
    let c = GenConfig::from_toml_str(EXAMPLE, "example.toml").expect("example parses");
    assert_eq!(c.count, Some(5000));
    assert_eq!(c.align_bytes, 4096, "default alignment");
    assert_eq!(c.sequential_share, 0.0);
    assert_eq!(c.address, AddressPattern::Zipf { theta: 0.99, extent_bytes: Some(65536) });
    assert_eq!(c.read_address, Some(AddressPattern::RecentWrites { window: 1024 }));
    assert_eq!(
        c.arrival,
        Arrival::Onoff {
            burst_iops: 2000.0,
            target_idle_share: 0.5,
            mean_idle_ms: 20.0,
            idle_dist: GapDist::Lognormal { sigma: 1.0 }
        }
    );
    assert!(matches!(c.size, SizeDist::Weighted { ref sizes } if sizes.len() == 2));
    assert!(c.content.fingerprints, "default on");
    assert!(c.validate().is_ok());
}

#[test]
fn toml_round_trip_is_identity() {
    let c = GenConfig::from_toml_str(EXAMPLE, "example.toml").expect("parses");
    let text = c.to_toml_string().expect("serializes");
    let back = GenConfig::from_toml_str(&text, "round.toml").expect("re-parses");
    assert_eq!(c, back);
}

#[test]
fn unknown_field_is_an_error_with_file_and_line() {
    let text = "count = 10\nspan_bytes = 4096\nread_ration = 0.5\n";
    let e = GenConfig::from_toml_str(text, "typo.toml").expect_err("typo must fail");
    let msg = e.to_string();
    assert!(msg.starts_with("typo.toml:"), "{msg}");
    assert!(msg.contains("read_ration"), "{msg}");
    assert!(msg.contains("line 3"), "{msg}");
}

#[test]
fn validation_names_the_field() {
    let base = GenConfig::default().with_span(1 << 30);
    assert!(base.validate().is_ok());
    let cases: Vec<(GenConfig, &str)> = vec![
        (GenConfig::default(), "span_bytes"),
        (GenConfig { read_ratio: 1.5, ..base.clone() }, "read_ratio"),
        (GenConfig { span_bytes: (1 << 30) + 1, ..base.clone() }, "span_bytes"),
        (GenConfig { size: SizeDist::Fixed { bytes: 5000 }, ..base.clone() }, "size"),
        (GenConfig { arrival: Arrival::Poisson { iops: 0.0 }, ..base.clone() }, "arrival.iops"),
        (
            GenConfig {
                arrival: Arrival::Onoff {
                    burst_iops: 10.0,
                    target_idle_share: 1.0,
                    mean_idle_ms: 1.0,
                    idle_dist: GapDist::Exponential,
                },
                ..base.clone()
            },
            "arrival.target_idle_share",
        ),
        (GenConfig { count: None, duration_s: None, ..base.clone() }, "count"),
        (GenConfig { count: Some(0), ..base.clone() }, "count"),
    ];
    for (c, field) in cases {
        match c.validate() {
            Err(ConfigError::Invalid { field: f, .. }) => assert_eq!(f, field),
            other => panic!("expected invalid {field}, got {other:?}"),
        }
    }
}
