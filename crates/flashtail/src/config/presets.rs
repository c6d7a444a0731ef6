//! Device presets shipped inside the binary (`flashtail presets` lists them). Each TOML
//! file names its source.

use super::device::DeviceConfig;

/// (name, TOML text) of every bundled preset.
pub const PRESETS: &[(&str, &str)] = &[
    ("dtrs-demo", include_str!("../../presets/dtrs-demo.toml")),
    ("ttflash", include_str!("../../presets/ttflash.toml")),
    ("splitgc", include_str!("../../presets/splitgc.toml")),
    ("rlgc-128gb", include_str!("../../presets/rlgc-128gb.toml")),
    ("rlgc-512gb", include_str!("../../presets/rlgc-512gb.toml")),
    ("bench-ref", include_str!("../../presets/bench-ref.toml")),
    ("mqsim-ref", include_str!("../../presets/mqsim-ref.toml")),
    ("tiny", include_str!("../../presets/tiny.toml")),
    ("qlc", include_str!("../../presets/qlc.toml")),
    ("wla-paper", include_str!("../../presets/wla-paper.toml")),
    ("venice", include_str!("../../presets/venice.toml")),
];

pub fn names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}

/// Parse a device from TOML text; `origin` names the file or preset in errors.
pub fn parse(origin: &str, text: &str) -> Result<DeviceConfig, String> {
    let d: DeviceConfig = toml::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
    d.validate().map_err(|e| format!("{origin}: {e}"))?;
    Ok(d)
}

/// A bundled preset by name.
pub fn load(name: &str) -> Result<DeviceConfig, String> {
    match PRESETS.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => parse(&format!("preset '{n}'"), text),
        None => Err(format!("unknown device preset '{name}' (known: {})", names().join(", "))),
    }
}

/// A preset name, or a path to a TOML file.
pub fn load_any(name_or_path: &str) -> Result<DeviceConfig, String> {
    if PRESETS.iter().any(|(n, _)| *n == name_or_path) {
        return load(name_or_path);
    }
    let p = std::path::Path::new(name_or_path);
    if p.exists() {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{name_or_path}: {e}"))?;
        return parse(name_or_path, &text);
    }
    let hint = crate::suggest::did_you_mean(name_or_path, names());
    Err(format!(
        "device '{name_or_path}' is neither a preset nor a readable file{hint} (presets: {})",
        names().join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_preset_parses_and_validates() {
        for n in names() {
            let d = load(n).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(d.name, n);
        }
        let t = load("ttflash").unwrap();
        assert_eq!(t.geometry.raw_bytes(), 8 * 8 * 4096 * 256 * 4096);
        assert_eq!(t.soft_threshold_blocks(), 1229);
        let r = load("rlgc-128gb").unwrap();
        assert_eq!(r.soft_threshold_blocks(), 11);
    }
    #[test]
    fn unknown_preset_names_the_known_ones() {
        let e = load("nope").unwrap_err();
        assert!(e.contains("tiny") && e.contains("nope"));
    }
}
