//! The device of a job: a bundled preset, a TOML file or TOML text (the Python package's
//! dict), with `key=value` overrides applied and the result validated, in the command
//! line's words.

use crate::config::{overrides, presets, DeviceConfig};

/// Where a device comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceSource {
    /// A preset name or a path to a TOML file (`--device`).
    Named(String),
    /// TOML text; `origin` names it in errors.
    Toml { origin: String, text: String },
}

impl DeviceSource {
    /// How errors and tables name the device: the preset name, the path, or the origin.
    pub fn label(&self) -> &str {
        match self {
            DeviceSource::Named(n) => n,
            DeviceSource::Toml { origin, .. } => origin,
        }
    }
}

/// The device with `set` applied (`--set KEY=VALUE`, in order), validated.
pub fn load_device(src: &DeviceSource, set: &[String]) -> Result<DeviceConfig, String> {
    let base = match src {
        DeviceSource::Named(n) => presets::load_any(n)?,
        DeviceSource::Toml { origin, text } => presets::parse(origin, text)?,
    };
    let dev = overrides::apply_device(&base, set)?;
    dev.validate().map_err(|e| format!("device '{}' after --set overrides: {e}", src.label()))?;
    Ok(dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_apply_and_errors_name_the_key() {
        let d = load_device(&DeviceSource::Named("tiny".into()), &["ftl.over_provisioning=0.2".into()]).unwrap();
        assert_eq!(d.ftl.over_provisioning, 0.2);
        let e = load_device(&DeviceSource::Named("tiny".into()), &["ftl.nope=1".into()]).unwrap_err();
        assert!(e.contains("ftl.nope"), "{e}");
        let e = load_device(&DeviceSource::Named("no-such".into()), &[]).unwrap_err();
        assert!(e.starts_with("device 'no-such' is neither a preset"), "{e}");
    }
}
