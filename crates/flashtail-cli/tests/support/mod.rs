//! What the command-line test files share: starting the binary, checking that a command
//! failed cleanly or succeeded, scratch directories and small files, and reading reports.
//! Each test file wraps these in the `fails` / `succeeds` / `scratch` shapes it needs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_flashtail");

pub fn flashtail(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"))
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs a command that must fail cleanly (an exit code other than 0, no panic) and whose
/// stderr mentions every `needle`; returns its stderr.
pub fn fails_with(args: &[&str], needles: &[&str]) -> String {
    let out = flashtail(args);
    let err = text(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| c != 0),
        "{args:?} should fail ({:?}); stdout:\n{}\nstderr:\n{err}",
        out.status,
        text(&out.stdout)
    );
    assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: stderr should mention {n:?}:\n{err}");
    }
    err
}

/// Runs a command that must succeed; returns (stdout, stderr).
pub fn succeeds_both(args: &[&str]) -> (String, String) {
    let out = flashtail(args);
    assert!(out.status.success(), "{args:?} failed ({:?}):\n{}\n{}", out.status, text(&out.stdout), text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

/// A fresh, empty directory `<prefix>-<name>` for one test (tests run in parallel, and the
/// test files share one temporary directory, so each file passes its own prefix).
pub fn scratch_dir(prefix: &str, name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("creating {}: {e}", d.display()));
    d
}

pub fn write(path: &Path, content: impl AsRef<[u8]>) {
    std::fs::write(path, content).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("scratch paths are UTF-8")
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
}

pub fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&read(p)).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// An MSR Cambridge CSV line: FILETIME ticks (100 ns), host, disk, type, offset, size, response.
pub fn msr_line(ticks: u64, op: &str, offset: u64, size: u64) -> String {
    format!("{ticks},hm,0,{op},{offset},{size},100\n")
}

/// `reproduce`'s `claims.json` in `dir`.
pub fn claims(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("claims.json")).expect("claims.json");
    serde_json::from_str::<Vec<serde_json::Value>>(&text).expect("claims.json parses")
}

/// The claim `id` of `cs`.
pub fn claim<'a>(cs: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    cs.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no claim {id}"))
}

/// flashtail's number for claim `id` (it must have been measured).
pub fn ours(cs: &[serde_json::Value], id: &str) -> f64 {
    claim(cs, id)["ours"].as_f64().unwrap_or_else(|| panic!("claim {id} not measured"))
}
