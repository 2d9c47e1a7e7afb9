//! The structure check over the real workspace, and the binary's contract.

use std::path::{Path, PathBuf};
use std::process::Command;

use hermit_structure::{Options, WORKSPACE_CRATES, check_src_dir, render};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Checks `crates` (directories under the workspace root) and renders them.
fn check(crates: &[&str]) -> hermit_structure::Rendered {
    check_with(crates, Options::default())
}

fn check_with(crates: &[&str], options: Options) -> hermit_structure::Rendered {
    let root = workspace_root();
    let reports: Vec<_> = crates
        .iter()
        .map(|c| {
            let src = root.join(c).join("src");
            let report = check_src_dir(&src)
                .unwrap_or_else(|e| panic!("{} cannot be read: {e}", src.display()));
            (format!("{c}/src"), report)
        })
        .collect();
    render(&reports, options)
}

/// No crate of the workspace has files that use each other in a loop.
#[test]
fn the_workspace_has_no_circles() {
    let rendered = check_with(
        WORKSPACE_CRATES,
        Options {
            max_file_lines: usize::MAX,
            ..Options::default()
        },
    );
    assert!(
        rendered.clean,
        "the structure check found:\n{}",
        rendered.text
    );
}

/// The product's crates have no file over 1,000 lines (the load generator
/// and the test crates are measured for circles only).
#[test]
fn the_products_crates_have_no_file_over_1000_lines() {
    let rendered = check(&["protocol", "broker", "client", "cli"]);
    assert!(
        rendered.clean,
        "the structure check found:\n{}",
        rendered.text
    );
}

#[test]
fn this_crate_keeps_its_own_rule() {
    let rendered = check(&["tools/structure"]);
    assert!(rendered.clean, "{}", rendered.text);
}

#[test]
fn the_binary_exits_0_when_clean_and_1_on_a_circle() {
    let bin = env!("CARGO_BIN_EXE_hermit-structure");
    let clean = Command::new(bin)
        .arg(workspace_root().join("tools/structure"))
        .output()
        .expect("the binary runs");
    assert_eq!(clean.status.code(), Some(0));
    let text = String::from_utf8_lossy(&clean.stdout);
    assert!(text.starts_with("no circles; largest file "), "{text}");

    let dir = std::env::temp_dir().join(format!("hermit-structure-bin-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(&src).expect("temp dir is writable");
    std::fs::write(src.join("lib.rs"), "mod a; mod b;").expect("temp dir is writable");
    std::fs::write(src.join("a.rs"), "pub fn f() { crate::b::g(); }")
        .expect("temp dir is writable");
    std::fs::write(src.join("b.rs"), "pub fn g() { super::a::f(); }")
        .expect("temp dir is writable");
    let found = Command::new(bin)
        .args(["--max-file-lines", "5"])
        .arg(&dir)
        .output()
        .expect("the binary runs");
    std::fs::remove_dir_all(&dir).expect("temp dir is removable");
    assert_eq!(found.status.code(), Some(1));
    let text = String::from_utf8_lossy(&found.stdout);
    assert!(
        text.contains("circle 1: 2 files: a.rs, b.rs\n  a.rs -> b.rs: g\n  b.rs -> a.rs: f\n"),
        "{text}"
    );
    assert!(
        text.ends_with("1 circle, no files over 5 lines\n"),
        "{text}"
    );
}
