//! Compiling a notebook's program with `rustc` against the `attention_zoo` library this test
//! binary was built with (so no second build of the dependencies is needed), and reading
//! rustc's diagnostics back as errors located by line.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Marks the line after a displayed value that borrows the cell's variables, as evcxr does when
/// it keeps them: a last expression that moved one fails to compile there, as it fails in evcxr
/// (which then shows the value as `Debug` text instead of through `evcxr_display`).
pub(super) const KEEP_MARK: &str = "/*__nb_keep*/";

/// The directory holding the libraries this test binary was linked with.
fn deps_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("notebook runner: no current exe: {e}"))?;
    exe.parent().map(Path::to_path_buf).ok_or_else(|| "notebook runner: test binary has no folder".to_string())
}

/// The integration-test crate this runner is part of (`[[test]]` in Cargo.toml).
const TEST_TARGET: &str = "zoo";

/// The `libattention_zoo` rlib this test binary was linked with, as cargo itself reports it:
/// `cargo test --no-run --message-format=json --test zoo` (a no-op once built, about half a
/// second) lists the test executable and the library it links; the executable must be this very
/// binary, so a stale rlib of another profile or feature set is never picked.
fn library_rlib(deps: &Path) -> Result<PathBuf, String> {
    static FOUND: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| ask_cargo_for_rlib(deps)).clone()
}

fn ask_cargo_for_rlib(deps: &Path) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("notebook runner: no current exe: {e}"))?;
    let profile_dir = deps.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("debug");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["test", "--no-run", "--message-format=json", "--test", TEST_TARGET, "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    match profile_dir {
        "debug" => {}
        "release" => {
            cmd.arg("--release");
        }
        other => {
            cmd.args(["--profile", other]);
        }
    }
    let out = cmd.output().map_err(|e| format!("notebook runner: cannot start cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("notebook runner: `cargo test --no-run` failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    let (mut rlib, mut linked) = (None, false);
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if msg.get("reason").and_then(|r| r.as_str()) != Some("compiler-artifact") {
            continue;
        }
        let name = msg.pointer("/target/name").and_then(|n| n.as_str()).unwrap_or("");
        if name == "attention_zoo" {
            let files = msg.get("filenames").and_then(|f| f.as_array()).cloned().unwrap_or_default();
            rlib = files.iter().filter_map(|f| f.as_str()).find(|f| f.ends_with(".rlib")).map(PathBuf::from);
        } else if name == TEST_TARGET {
            let built = msg.get("executable").and_then(|e| e.as_str()).map(PathBuf::from);
            let same = |p: &Path| std::fs::canonicalize(p).ok();
            linked = built.as_deref().and_then(same).is_some_and(|b| Some(b) == same(&exe));
        }
    }
    match (rlib, linked) {
        (Some(r), true) => Ok(r),
        (None, _) => Err("notebook runner: cargo reported no libattention_zoo rlib".into()),
        (Some(_), false) => {
            Err(format!("notebook runner: cargo's {TEST_TARGET} test is not this binary ({}); run it through `cargo test`", exe.display()))
        }
    }
}

pub(super) struct CompileError {
    pub cell: Option<usize>,
    pub rendered: String,
    pub missing_evcxr_display: bool,
    /// A variable the cell defines, borrowed on a keep line after being moved: its name and the
    /// line where it moved.
    pub moved_kept: Option<(String, usize)>,
    /// A variable the cell defines holds a reference into another, so evcxr cannot keep it.
    pub borrows: bool,
}

pub(super) fn compile(src_path: &Path, exe: &Path) -> Result<Vec<CompileError>, String> {
    let deps = deps_dir()?;
    let rlib = library_rlib(&deps)?;
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("--edition=2024")
        .arg("--crate-type=bin")
        .arg("--error-format=json")
        .arg("-Copt-level=0")
        .arg("-Cdebuginfo=0")
        .arg(format!("--extern=attention_zoo={}", rlib.display()))
        .arg(format!("-Ldependency={}", deps.display()))
        .arg("-o")
        .arg(exe)
        .arg(src_path)
        .output()
        .map_err(|e| format!("notebook runner: cannot start rustc: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut errors = vec![];
    for line in stderr.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if msg.get("level").and_then(|l| l.as_str()) != Some("error") {
            continue;
        }
        let rendered = msg.get("rendered").and_then(|r| r.as_str()).unwrap_or("").to_string();
        let message = msg.get("message").and_then(|r| r.as_str()).unwrap_or("");
        let line_no = msg
            .get("spans")
            .and_then(|s| s.as_array())
            .and_then(|s| s.iter().find(|sp| sp.get("is_primary").and_then(|p| p.as_bool()) == Some(true)))
            .and_then(|sp| sp.get("line_start").and_then(|l| l.as_u64()))
            .map(|l| l as usize);
        let moved_at = msg
            .get("spans")
            .and_then(|s| s.as_array())
            .and_then(|s| s.iter().find(|sp| sp.get("label").and_then(|l| l.as_str()).is_some_and(|l| l.contains("moved"))))
            .and_then(|sp| sp.get("line_start").and_then(|l| l.as_u64()))
            .map(|l| l as usize);
        // Whether the error involves the line that keeps the cell's variables (the spans carry
        // whole source lines; `rendered` may cut long ones).
        let on_keep_line = msg.get("spans").and_then(|s| s.as_array()).is_some_and(|spans| {
            spans.iter().any(|sp| {
                sp.get("text")
                    .and_then(|t| t.as_array())
                    .is_some_and(|t| t.iter().any(|l| l.get("text").and_then(|x| x.as_str()).is_some_and(|x| x.contains(KEEP_MARK))))
            })
        });
        // a kept variable that borrows from another: evcxr cannot keep it
        let borrows = on_keep_line
            && (message.contains("does not live long enough")
                || message.contains("borrowed data escapes")
                || message.contains("temporary value dropped"));
        let moved_kept = match (message.strip_prefix("borrow of moved value: `"), on_keep_line, moved_at) {
            (Some(rest), true, Some(at)) => rest.split('`').next().map(|v| (v.to_string(), at)),
            _ => None,
        };
        errors.push(CompileError {
            cell: line_no,
            rendered,
            missing_evcxr_display: message.contains("no method named `evcxr_display`"),
            moved_kept,
            borrows,
        });
    }
    if !out.status.success() && errors.is_empty() {
        return Err(format!("notebook runner: rustc failed without a diagnostic:\n{stderr}"));
    }
    Ok(errors)
}
