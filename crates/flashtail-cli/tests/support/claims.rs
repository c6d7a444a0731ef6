//! Reading what `flashtail reproduce` wrote: its claims (`claims.json`) and every cell's
//! reports (`summary.json`).

pub fn claims(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("claims.json")).expect("claims.json");
    serde_json::from_str::<Vec<serde_json::Value>>(&text).expect("claims.json parses")
}

pub fn claim<'a>(cs: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    cs.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no claim {id}"))
}

pub fn ours(cs: &[serde_json::Value], id: &str) -> f64 {
    claim(cs, id)["ours"].as_f64().unwrap_or_else(|| panic!("claim {id} not measured"))
}

pub fn verdict<'a>(cs: &'a [serde_json::Value], id: &str) -> &'a str {
    claim(cs, id)["verdict"].as_str().expect("verdict")
}

/// Every cell directory's summary.json: (scheme, report) pairs.
pub fn summaries(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("out dir") {
        let p = e.expect("entry").path().join("summary.json");
        if p.is_file() {
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
            out.extend(v["reports"].as_array().expect("reports").iter().cloned());
        }
    }
    out
}
