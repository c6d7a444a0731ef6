//! "Did you mean …?" for names a user types: schemes, device and workload presets, trace
//! formats, `--set` keys. A candidate is suggested when it is close in Jaro–Winkler
//! similarity (which favours a shared prefix, as typos of long names have) or differs
//! only in `-`/`_` and case; at most the [`MAX_SUGGESTIONS`] closest are named, and only
//! those about as close as the closest ([`TIE`]).

/// A candidate at least this similar (Jaro–Winkler, 0..1) is suggested.
pub const MIN_SIMILARITY: f64 = 0.85;

/// Names within this similarity of the closest one are suggested with it.
pub const TIE: f64 = 0.03;

/// At most this many names are suggested.
pub const MAX_SUGGESTIONS: usize = 2;

/// The candidates close to `input`, closest first.
pub fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    let want = norm(input);
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|c| {
            let score = if norm(c) == want { 1.0 } else { strsim::jaro_winkler(&want, &norm(c)) };
            (score, c)
        })
        .filter(|(s, _)| *s >= MIN_SIMILARITY)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    // Only names about as close as the closest: a clear winner is named alone.
    let best = scored.first().map_or(0.0, |s| s.0);
    scored.into_iter().filter(|(s, _)| best - s <= TIE).take(MAX_SUGGESTIONS).map(|(_, c)| c).collect()
}

/// `"; did you mean 'x'?"` (or `'x' or 'y'`), or an empty string when nothing is close:
/// ready to append to an error message.
pub fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let close = closest(input, candidates);
    if close.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = close.iter().map(|c| format!("'{c}'")).collect();
    format!("; did you mean {}?", quoted.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMES: [&str; 6] = ["base", "ttflash", "ttflash-rgc", "ttflash-gtr", "rlgc", "nogc"];

    #[test]
    fn typos_find_their_name() {
        assert_eq!(closest("ttfash", SCHEMES), ["ttflash"]);
        assert_eq!(did_you_mean("ttflash_rgc", SCHEMES), "; did you mean 'ttflash-rgc'?");
        assert_eq!(closest("dtrs-dmeo", ["dtrs-demo", "tiny", "qlc"]), ["dtrs-demo"]);
        assert_eq!(closest("overprovisioning", ["over_provisioning", "unit", "allocation"]), ["over_provisioning"]);
        assert_eq!(did_you_mean("zzz", SCHEMES), "");
    }
}
