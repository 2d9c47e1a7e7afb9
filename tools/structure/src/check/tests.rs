use super::*;
use crate::model::Edge;

/// A crate from (path, text) pairs.
fn krate(files: &[(&str, &str)]) -> CrateReport {
    let files = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), (*t).to_owned()))
        .collect();
    check_sources(&files)
}

/// Every edge as `from -> to: names`.
fn edges(report: &CrateReport) -> Vec<String> {
    report.edges.iter().map(show).collect()
}

fn show(e: &Edge) -> String {
    let names: Vec<&str> = e.names.iter().map(|n| n.text.as_str()).collect();
    format!(
        "{} -> {}: {}",
        e.from.display(),
        e.to.display(),
        names.join(", ")
    )
}

fn circles(report: &CrateReport) -> Vec<Vec<String>> {
    report
        .circles
        .iter()
        .map(|c| c.files.iter().map(|f| f.display().to_string()).collect())
        .collect()
}

#[test]
fn use_trees_nested_renamed_and_globbed() {
    let r = krate(&[
        ("lib.rs", "mod a; mod x; mod w;"),
        (
            "a.rs",
            "use crate::x::{y::{self, Item}, Z as Zed};\nuse crate::w::*;\nuse crate::w as _;",
        ),
        ("x/mod.rs", "pub mod y; pub struct Z;"),
        ("x/y.rs", "pub struct Item;"),
        ("w.rs", ""),
    ]);
    assert_eq!(
        edges(&r),
        [
            "a.rs -> w.rs: *, w",
            "a.rs -> x/mod.rs: Z",
            "a.rs -> x/y.rs: Item, y",
        ]
    );
}

#[test]
fn inline_paths_resolve_by_the_longest_module_prefix() {
    let r = krate(&[
        ("lib.rs", "pub mod config; pub mod net;"),
        (
            "config.rs",
            "fn validate() { crate::net::Origins::check_entry(x); }",
        ),
        (
            "net/mod.rs",
            "mod http; mod quota; mod connection; pub use http::Origins;",
        ),
        ("net/http.rs", "pub struct Origins;"),
        ("net/quota.rs", "pub fn check() {} pub struct Admission;"),
        (
            "net/connection.rs",
            "use super::quota::{self, Admission};\n\
             fn f() { quota::check(); let a: super::quota::Admission; self::local::g(); }\n\
             mod local { pub fn g() { super::super::http::Origins::new(); } }",
        ),
    ]);
    assert_eq!(
        edges(&r),
        [
            // A re-export is not followed: `Origins` is net/mod.rs's.
            "config.rs -> net/mod.rs: Origins::check_entry",
            "net/connection.rs -> net/http.rs: Origins::new",
            "net/connection.rs -> net/quota.rs: Admission, check, quota",
            "net/mod.rs -> net/http.rs: Origins",
        ]
    );
}

#[test]
fn child_modules_start_paths_and_mod_declarations_are_not_edges() {
    let r = krate(&[
        ("lib.rs", "pub mod log;"),
        (
            "log/mod.rs",
            "mod partition;\nmod unused;\nfn f() -> partition::Partition { partition::Partition::open() }",
        ),
        ("log/partition.rs", "pub struct Partition;"),
        ("log/unused.rs", ""),
    ]);
    assert_eq!(
        edges(&r),
        ["log/mod.rs -> log/partition.rs: Partition, Partition::open"]
    );
}

#[test]
fn a_used_item_is_one_name_not_one_per_call() {
    let r = krate(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "use crate::b::Thing;\nfn f() { Thing::new(); Thing::other(); }",
        ),
        ("b.rs", "pub struct Thing;"),
    ]);
    assert_eq!(edges(&r), ["a.rs -> b.rs: Thing"]);
    assert_eq!(r.edges[0].names[0].line, 1);
}

#[test]
fn module_files_beside_a_non_mod_file_and_bin_roots() {
    let r = krate(&[
        ("lib.rs", "pub mod sealed;"),
        ("sealed.rs", "mod state; use state::Store;"),
        (
            "sealed/state.rs",
            "pub struct Store; fn f() { crate::sealed::g(); }",
        ),
        (
            "bin/tool.rs",
            "mod helper; fn main() { crate::helper::run(); }",
        ),
        ("bin/helper.rs", "pub fn run() { crate::main(); }"),
    ]);
    assert_eq!(
        edges(&r),
        [
            "bin/helper.rs -> bin/tool.rs: main",
            "bin/tool.rs -> bin/helper.rs: run",
            // Paths sort by component: `sealed/…` before `sealed.rs`.
            "sealed/state.rs -> sealed.rs: g",
            "sealed.rs -> sealed/state.rs: Store",
        ]
    );
    assert_eq!(
        circles(&r),
        [
            vec!["bin/helper.rs", "bin/tool.rs"],
            vec!["sealed/state.rs", "sealed.rs"]
        ]
    );
}

#[test]
fn comments_literals_and_other_crates_are_not_edges() {
    let r = krate(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "/// [`crate::b::X`]\n// crate::b::Y\n/* /* crate::b::Z */ */\n\
             const S: &str = \"crate::b::W\"; const R: &str = r#\"crate::b::V\"#;\n\
             use std::fmt; use hermit_protocol::b::Q; fn f() { ::b::P; fmt::Write; }",
        ),
        ("b.rs", ""),
    ]);
    assert!(r.edges.is_empty(), "{:?}", edges(&r));
}

#[test]
fn test_code_is_not_scanned() {
    let r = krate(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "pub fn f() {}\n#[cfg(test)]\nmod tests { use crate::b::X; }\n#[cfg(test)]\nmod more;",
        ),
        ("a/more.rs", "use crate::b::Y;"),
        ("b.rs", "use crate::a::f; pub struct X;"),
    ]);
    assert_eq!(edges(&r), ["b.rs -> a.rs: f"]);
    assert!(r.circles.is_empty());
    let files: Vec<_> = r
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    assert!(!files.contains(&"a/more.rs".to_owned()), "{files:?}");
}

#[test]
fn a_circle_is_found_with_its_edges() {
    let r = krate(&[
        ("lib.rs", "mod a; mod b; mod c; mod d;"),
        ("a.rs", "use crate::b::B;"),
        ("b.rs", "pub struct B; fn f() { crate::c::g(); }"),
        ("c.rs", "pub fn g() { super::a::h(); crate::d::k(); }"),
        ("d.rs", "pub fn k() {}"),
    ]);
    assert_eq!(circles(&r), [vec!["a.rs", "b.rs", "c.rs"]]);
    let inside: Vec<_> = r.circles[0].edges.iter().map(show).collect();
    assert_eq!(
        inside,
        ["a.rs -> b.rs: B", "b.rs -> c.rs: g", "c.rs -> a.rs: h"]
    );
}

#[test]
fn a_mod_rs_used_by_the_child_it_uses_is_a_circle() {
    let r = krate(&[
        ("lib.rs", "mod net;"),
        (
            "net/mod.rs",
            "mod ws; pub struct Metrics; fn f() { ws::Ws::new(); }",
        ),
        ("net/ws.rs", "use super::Metrics; pub struct Ws;"),
    ]);
    assert_eq!(circles(&r), [vec!["net/mod.rs", "net/ws.rs"]]);
}

#[test]
fn a_dag_is_clean() {
    let r = krate(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c; pub use a::A;"),
        ("a.rs", "use crate::b::B; pub struct A(B);"),
        ("b.rs", "use super::c::C; pub struct B(C);"),
        ("c.rs", "pub struct C;"),
    ]);
    assert_eq!(r.edges.len(), 3);
    assert!(r.circles.is_empty());
}

#[test]
fn file_sizes_count_raw_lines_largest_first() {
    let r = krate(&[
        ("lib.rs", "mod a;\n\n"),
        ("a.rs", "fn f() {}\n\n\n#[cfg(test)]\nmod tests {}\n"),
    ]);
    let sizes: Vec<_> = r
        .files
        .iter()
        .map(|f| (f.path.display().to_string(), f.lines))
        .collect();
    assert_eq!(sizes, [("a.rs".to_owned(), 5), ("lib.rs".to_owned(), 2)]);
    assert_eq!(r.oversize(4).count(), 1);
    assert_eq!(r.largest().map(|f| f.lines), Some(5));
}

#[test]
fn a_src_dir_on_disk() {
    let dir = std::env::temp_dir().join(format!("hermit-structure-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("x")).expect("temp dir is writable");
    std::fs::write(src.join("lib.rs"), "mod x;").expect("temp dir is writable");
    std::fs::write(src.join("x/mod.rs"), "mod y; use y::Y;").expect("temp dir is writable");
    std::fs::write(src.join("x/y.rs"), "pub struct Y; use super::super::x;")
        .expect("temp dir is writable");
    let report = check_src_dir(&src);
    std::fs::remove_dir_all(&dir).expect("temp dir is removable");
    let report = report.expect("the tree was just written");
    assert_eq!(circles(&report), [vec!["x/mod.rs", "x/y.rs"]]);
    assert!(check_src_dir(&dir.join("missing")).is_err());
}
