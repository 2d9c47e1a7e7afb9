//! `hermit-structure [--max-file-lines N] [--show-lines] [DIR...]`: checks
//! each crate for circles between its files and for files over the line
//! limit. A DIR is a crate directory (its `src/` is checked) or a `src/`
//! directory; without one, the workspace's crates are checked, the
//! workspace found from the current directory up.
//!
//! Exit status: 0 when clean, 1 when a circle or an oversized file was
//! found, 2 on a usage or read error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hermit_structure::{Options, WORKSPACE_CRATES, check_src_dir, render};

const USAGE: &str = "usage: hermit-structure [--max-file-lines N] [--show-lines] [DIR...]";

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("hermit-structure: {message}");
            ExitCode::from(2)
        }
    }
}

/// Checks and prints; `Ok(true)` when clean.
fn run() -> Result<bool, String> {
    let mut options = Options::default();
    let mut dirs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--max-file-lines" => {
                let n = args.next().ok_or(USAGE)?;
                options.max_file_lines = n
                    .parse()
                    .map_err(|e| format!("--max-file-lines {n}: {e}"))?;
            }
            "--show-lines" => options.show_lines = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(true);
            }
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ => dirs.push(arg),
        }
    }
    let targets = if dirs.is_empty() {
        workspace_crates()?
    } else {
        dirs.iter().map(|d| src_of(Path::new(d))).collect()
    };
    let mut reports = Vec::new();
    for (label, src) in targets {
        let report = check_src_dir(&src).map_err(|e| format!("{e:#}"))?;
        reports.push((label, report));
    }
    let rendered = render(&reports, options);
    print!("{}", rendered.text);
    Ok(rendered.clean)
}

/// (label, `src/` path) of each default crate.
fn workspace_crates() -> Result<Vec<(String, PathBuf)>, String> {
    let here = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let root = here
        .ancestors()
        .find(|dir| is_workspace_root(dir))
        .map(Path::to_path_buf)
        .or_else(|| {
            // Run from outside the workspace: the one this tool is part of.
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            manifest
                .ancestors()
                .find(|dir| is_workspace_root(dir))
                .map(Path::to_path_buf)
        })
        .ok_or("no Cargo workspace found above the current directory")?;
    Ok(WORKSPACE_CRATES
        .iter()
        .map(|c| (format!("{c}/src"), root.join(c).join("src")))
        .collect())
}

fn is_workspace_root(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .is_ok_and(|text| text.lines().any(|l| l.trim() == "[workspace]"))
}

/// A crate directory's `src/`, or the directory itself.
fn src_of(dir: &Path) -> (String, PathBuf) {
    let src = dir.join("src");
    let src = if src.is_dir() { src } else { dir.to_path_buf() };
    let label = src.to_string_lossy().trim_end_matches('/').to_owned();
    (label, src)
}
