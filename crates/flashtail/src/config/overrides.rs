//! `key=value` overrides of a TOML-backed configuration (`timing.erase_ns=3500000`).
//!
//! The value is parsed as TOML (number, bool, string, array); a bare word that is not valid
//! TOML is taken as a string. Unknown keys are errors, never silently ignored, and so is a
//! known key the configuration does not use (a key of another preconditioning model).

use super::{DeviceConfig, Precondition};
use serde::{de::DeserializeOwned, Serialize};

/// Apply `key=value` overrides to a serializable configuration.
pub fn apply<T: Serialize + DeserializeOwned>(cfg: &T, overrides: &[String]) -> Result<T, String> {
    let root = toml::Value::try_from(cfg).map_err(|e| format!("internal: {e}"))?;
    if overrides.is_empty() {
        return root.try_into().map_err(|e: toml::de::Error| format!("internal: config does not round-trip: {e}"));
    }
    apply_to::<T>(root, overrides)
}

/// Apply `overrides` to the TOML form of a configuration and deserialize the result.
fn apply_to<T: Serialize + DeserializeOwned>(start: toml::Value, overrides: &[String]) -> Result<T, String> {
    let mut root = start.clone();
    for ov in overrides {
        let (key, raw) = ov
            .split_once('=')
            .ok_or_else(|| format!("override '{ov}' must look like key=value (e.g. ftl.over_provisioning=0.2)"))?;
        let key = key.trim();
        let parts: Vec<&str> = key.split('.').collect();
        set_path(&mut root, &parts, parse_value(raw), key)?;
    }
    let out: Result<T, toml::de::Error> = root.try_into();
    let out = out.map_err(|e| {
        // Find the override that breaks the configuration, to name its key.
        let culprit = overrides.iter().find(|ov| single_fails::<T>(&start, ov));
        match culprit {
            Some(ov) => format!("override '{ov}' rejected: {}", e.message()),
            None => format!("overrides rejected: {}", e.message()),
        }
    })?;
    // Serde drops some fields without a word (the fields of an internally tagged enum's unit
    // variant: `precondition.ratio` under model `none`). A key missing from the result was
    // ignored: say so rather than run without it.
    let back = toml::Value::try_from(&out).map_err(|e| format!("internal: {e}"))?;
    for ov in overrides {
        let key = ov.split_once('=').map_or(ov.as_str(), |(k, _)| k).trim();
        if !has_path(&back, key) {
            return Err(format!("override '{ov}' has no effect: this configuration does not use '{key}'"));
        }
    }
    Ok(out)
}

/// Apply `--set` overrides to a device: [`apply`], plus the rules of `precondition`, whose
/// keys depend on its `model`. A key of another model is rejected, naming the active model,
/// its keys and how to switch; `precondition.model=NAME` switches models, dropping the old
/// model's keys (so `--set precondition.model=steady --set precondition.fill=0.5` turns an
/// aged device into a steady one).
pub fn apply_device(dev: &DeviceConfig, overrides: &[String]) -> Result<DeviceConfig, String> {
    let current = dev.precondition.model();
    // The model the overrides leave: the last `precondition.model=` wins.
    let mut model = current.to_string();
    let mut switched_by = None;
    for ov in overrides {
        if let Some((k, raw)) = ov.split_once('=') {
            if k.trim() == "precondition.model" {
                let v = parse_value(raw);
                model = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                switched_by = Some(ov.as_str());
            }
        }
    }
    let listing = || {
        Precondition::MODELS
            .iter()
            .map(|(m, keys)| if keys.is_empty() { format!("{m} (no keys)") } else { format!("{m} ({})", keys.join(", ")) })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let Some((_, keys)) = Precondition::MODELS.iter().find(|(m, _)| *m == model) else {
        return Err(format!("override '{}': unknown preconditioning model '{model}' (models and their keys: {})", switched_by.unwrap_or(""), listing()));
    };
    for ov in overrides {
        let key = ov.split_once('=').map_or(ov.as_str(), |(k, _)| k).trim();
        let Some(field) = key.strip_prefix("precondition.") else { continue };
        if field == "model" || keys.contains(&field) {
            continue;
        }
        let active = match switched_by {
            Some(s) => format!("the preconditioning model (after '{s}') is '{model}'"),
            None => format!("the device's preconditioning model is '{model}'"),
        };
        let has = match keys {
            [] => "which has no keys".to_string(),
            [k] => format!("whose only key is {k}"),
            ks => format!("whose keys are {}", ks.join(", ")),
        };
        return Err(match Precondition::MODELS.iter().find(|(_, ks)| ks.contains(&field)) {
            Some((owner, _)) => format!(
                "override '{ov}': {active}, {has}; '{field}' belongs to model '{owner}' (add --set precondition.model={owner} to switch models)"
            ),
            None => format!("override '{ov}': unknown key '{field}': {active}, {has} (models and their keys: {})", listing()),
        });
    }
    let mut root = toml::Value::try_from(dev).map_err(|e| format!("internal: {e}"))?;
    if model != current {
        // Switching models: start from the new model with nothing set, so the old model's
        // keys do not linger (serde would reject them as unknown fields of the new variant).
        if let Some(t) = root.get_mut("precondition").and_then(toml::Value::as_table_mut) {
            t.retain(|k, _| k == "model");
        }
    }
    apply_to(root, overrides)
}

/// An override's value: TOML (number, bool, string, array), or a bare word taken as a string.
fn parse_value(raw: &str) -> toml::Value {
    let raw = raw.trim();
    match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

/// Whether the dotted `key` names a value in `root`.
fn has_path(root: &toml::Value, key: &str) -> bool {
    key.split('.').try_fold(root, |node, part| node.get(part)).is_some()
}

/// Does this one override, alone, fail to deserialize?
fn single_fails<T: DeserializeOwned>(start: &toml::Value, ov: &str) -> bool {
    let mut root = start.clone();
    let Some((key, raw)) = ov.split_once('=') else { return true };
    let parts: Vec<&str> = key.trim().split('.').collect();
    if set_path(&mut root, &parts, parse_value(raw), key).is_err() {
        return true;
    }
    let r: Result<T, _> = root.try_into();
    r.is_err()
}

fn set_path(node: &mut toml::Value, parts: &[&str], value: toml::Value, key: &str) -> Result<(), String> {
    let mut node = node;
    for (i, head) in parts.iter().enumerate() {
        let Some(table) = node.as_table_mut() else {
            // `geometry.channels.x`: say which part is a setting (it read "not a section").
            let setting = parts[..i].join(".");
            return Err(format!("override '{key}': '{setting}' is a setting, not a section"));
        };
        if head.is_empty() {
            return Err(format!("override '{key}': empty key part (a doubled, leading or trailing '.'?)"));
        }
        if i + 1 == parts.len() {
            if !table.contains_key(*head) && !allowed_new_key(head) {
                let section = parts[..i].join(".");
                let mut known: Vec<&str> = table.keys().map(String::as_str).collect();
                known.extend(OPTIONAL_KEYS.iter().filter(|(s, _)| *s == section).map(|(_, k)| *k));
                known.sort_unstable();
                known.dedup();
                let hint = crate::suggest::did_you_mean(head, known.iter().copied());
                let place = if section.is_empty() { "at the top level".to_string() } else { format!("in [{section}]") };
                return Err(format!("override '{key}': unknown key '{head}'{hint} (keys {place}: {})", known.join(", ")));
            }
            table.insert(head.to_string(), value);
            return Ok(());
        }
        node = table.get_mut(*head).ok_or_else(|| format!("override '{key}': unknown section '{head}'"))?;
    }
    Err(format!("override '{key}': empty key"))
}

/// Optional keys that may be absent from a serialized config yet are valid to set.
fn allowed_new_key(k: &str) -> bool {
    OPTIONAL_KEYS.iter().any(|(_, key)| *key == k)
}

/// Keys a configuration may leave out (so they are absent from its table), by section:
/// they may be set by an override, and are listed with the keys present.
const OPTIONAL_KEYS: [(&str, &str); 9] = [
    ("precondition", "fill"),
    ("precondition", "ratio"),
    ("precondition", "settle"),
    ("precondition", "free_blocks_margin"),
    ("precondition", "model"),
    ("ftl", "gc_soft_threshold_blocks"),
    ("ftl", "gc_hard_threshold_blocks"),
    ("ftl", "max_queued_writes"),
    ("ftl", "power_loss_protection"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    #[test]
    fn override_number_and_reject_unknown() {
        let d = presets::load("tiny").unwrap();
        let d2 = apply(&d, &["timing.erase_ns=123456".into(), "ftl.over_provisioning=0.25".into()]).unwrap();
        assert_eq!(d2.timing.erase_ns, 123456);
        assert_eq!(d2.ftl.over_provisioning, 0.25);
        let e = apply(&d, &["timing.erase_nz=1".into()]).unwrap_err();
        assert!(e.contains("erase_nz"), "{e}");
        let e = apply(&d, &["ftl.over_provisioning=0.3".into(), "timing.erase_ns=fast".into()]).unwrap_err();
        assert!(e.contains("override 'timing.erase_ns=fast' rejected"), "{e}");
        let e = apply(&d, &["nonsense".into()]).unwrap_err();
        assert!(e.contains("key=value"), "{e}");
        // A path through a setting, and empty parts, say what is wrong with the key.
        let e = apply(&d, &["geometry.channels.x=1".into()]).unwrap_err();
        assert_eq!(e, "override 'geometry.channels.x': 'geometry.channels' is a setting, not a section");
        for k in ["ftl..x=3", "=3", ".ftl.over_provisioning=0.3", "ftl.=1"] {
            let e = apply(&d, &[k.to_string()]).unwrap_err();
            assert!(e.ends_with("empty key part (a doubled, leading or trailing '.'?)"), "{k}: {e}");
        }
    }

    /// A key the result does not keep is an error even through the generic `apply`: serde
    /// drops `ratio` under the unit variant `none` without a word.
    #[test]
    fn an_override_that_would_be_ignored_is_an_error() {
        let d = presets::load("tiny").unwrap();
        assert_eq!(d.precondition, Precondition::None);
        let e = apply(&d, &["precondition.ratio=0.5".into()]).unwrap_err();
        assert_eq!(e, "override 'precondition.ratio=0.5' has no effect: this configuration does not use 'precondition.ratio'");
    }

    #[test]
    fn precondition_keys_follow_the_model_and_the_model_can_switch() {
        let tiny = presets::load("tiny").unwrap();
        let aged = presets::load("ttflash").unwrap();
        assert_eq!(aged.precondition.model(), "aged");
        let e = apply_device(&aged, &["precondition.fill=0.5".into()]).unwrap_err();
        assert_eq!(e, "override 'precondition.fill=0.5': the device's preconditioning model is 'aged', whose keys are ratio, settle; 'fill' belongs to model 'steady' (add --set precondition.model=steady to switch models)");
        let sets = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let d = apply_device(&aged, &sets(&["precondition.model=steady", "precondition.fill=0.5"])).unwrap();
        assert_eq!(d.precondition, Precondition::Steady { fill: 0.5, free_blocks_margin: 1 });
        let d = apply_device(&tiny, &sets(&["precondition.model=\"aged\"", "precondition.ratio=0.25"])).unwrap();
        assert_eq!(d.precondition, Precondition::Aged { ratio: 0.25, settle: true });
        let d = apply_device(&tiny, &sets(&["precondition.model=aged", "precondition.ratio=0.25", "precondition.settle=false"])).unwrap();
        assert_eq!(d.precondition, Precondition::Aged { ratio: 0.25, settle: false });
        let d = apply_device(&aged, &sets(&["precondition.model=none"])).unwrap();
        assert_eq!(d.precondition, Precondition::None);
        let e = apply_device(&aged, &sets(&["precondition.model=steady", "precondition.ratio=0.5"])).unwrap_err();
        assert!(e.contains("the preconditioning model (after 'precondition.model=steady') is 'steady', whose keys are fill, free_blocks_margin; 'ratio' belongs to model 'aged'"), "{e}");
        let e = apply_device(&tiny, &sets(&["precondition.model=wet"])).unwrap_err();
        assert!(e.contains("unknown preconditioning model 'wet'"), "{e}");
        // Other keys behave as in `apply`.
        assert_eq!(apply_device(&tiny, &sets(&["timing.erase_ns=5"])).unwrap().timing.erase_ns, 5);
    }
}
