//! `key=value` overrides of a TOML-backed configuration (`timing.erase_ns=3500000`).
//!
//! The value is parsed as TOML (number, bool, string, array); a bare word that is not valid
//! TOML is taken as a string. Unknown keys are errors, never silently ignored.

use serde::{de::DeserializeOwned, Serialize};

/// Apply `key=value` overrides to a serializable configuration.
pub fn apply<T: Serialize + DeserializeOwned>(cfg: &T, overrides: &[String]) -> Result<T, String> {
    if overrides.is_empty() {
        let v = toml::Value::try_from(cfg).map_err(|e| format!("internal: {e}"))?;
        return v.try_into().map_err(|e: toml::de::Error| format!("internal: config does not round-trip: {e}"));
    }
    let mut root = toml::Value::try_from(cfg).map_err(|e| format!("internal: {e}"))?;
    for ov in overrides {
        let (key, raw) = ov
            .split_once('=')
            .ok_or_else(|| format!("override '{ov}' must look like key=value (e.g. ftl.over_provisioning=0.2)"))?;
        let key = key.trim();
        let raw = raw.trim();
        let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
            Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.to_string())),
            Err(_) => toml::Value::String(raw.to_string()),
        };
        let parts: Vec<&str> = key.split('.').collect();
        set_path(&mut root, &parts, value, key)?;
    }
    let out: Result<T, toml::de::Error> = root.try_into();
    out.map_err(|e| {
        // Find the override that breaks the configuration, to name its key.
        let culprit = overrides.iter().find(|ov| single_fails(cfg, ov));
        match culprit {
            Some(ov) => format!("override '{ov}' rejected: {}", e.message()),
            None => format!("overrides rejected: {}", e.message()),
        }
    })
}

/// Does this one override, alone, fail to deserialize?
fn single_fails<T: Serialize + DeserializeOwned>(cfg: &T, ov: &str) -> bool {
    let Ok(mut root) = toml::Value::try_from(cfg) else { return true };
    let Some((key, raw)) = ov.split_once('=') else { return true };
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {}", raw.trim())) {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.trim().to_string())),
        Err(_) => toml::Value::String(raw.trim().to_string()),
    };
    let parts: Vec<&str> = key.trim().split('.').collect();
    if set_path(&mut root, &parts, value, key).is_err() {
        return true;
    }
    let r: Result<T, _> = root.try_into();
    r.is_err()
}

fn set_path(node: &mut toml::Value, parts: &[&str], value: toml::Value, key: &str) -> Result<(), String> {
    let table = node.as_table_mut().ok_or_else(|| format!("override '{key}': not a section"))?;
    let (head, rest) = parts.split_first().ok_or_else(|| format!("override '{key}': empty key"))?;
    if rest.is_empty() {
        if !table.contains_key(*head) && !allowed_new_key(head) {
            let known: Vec<&String> = table.keys().collect();
            return Err(format!("override '{key}': unknown key '{head}' (known here: {known:?})"));
        }
        table.insert(head.to_string(), value);
        return Ok(());
    }
    let child = table.get_mut(*head).ok_or_else(|| format!("override '{key}': unknown section '{head}'"))?;
    set_path(child, rest, value, key)
}

/// Optional keys that may be absent from a serialized config yet are valid to set.
fn allowed_new_key(k: &str) -> bool {
    matches!(k, "fill" | "ratio" | "free_blocks_margin" | "model" | "gc_soft_threshold_blocks" | "gc_hard_threshold_blocks")
}

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
    }
}
