use super::*;

fn paths(scan: &FileScan) -> Vec<String> {
    scan.paths.iter().map(|p| p.segments.join("::")).collect()
}

fn uses(scan: &FileScan) -> Vec<(String, Option<String>)> {
    scan.uses
        .iter()
        .map(|u| (u.path.join("::"), u.binding.clone()))
        .collect()
}

#[test]
fn use_trees_nest_rename_and_glob() {
    let s = scan("use crate::x::y::{Item, z::{self, Other as O}, w::*};\nuse super::q as _;");
    assert_eq!(
        uses(&s),
        [
            ("crate::x::y::Item".to_owned(), Some("Item".to_owned())),
            ("crate::x::y::z".to_owned(), Some("z".to_owned())),
            ("crate::x::y::z::Other".to_owned(), Some("O".to_owned())),
            ("crate::x::y::w::*".to_owned(), None),
            ("super::q".to_owned(), None),
        ]
    );
    assert!(s.paths.is_empty());
}

#[test]
fn inline_paths_anywhere() {
    let s = scan(
        "fn f() { crate::net::Origins::check_entry(x); let a = super::quota::Admission { n: 1 };\n\
         let v = Vec::<u8>::new(); x.y::<T>(); <T as self::t::Tr>::f(); ::std::mem::drop(v); }",
    );
    assert_eq!(
        paths(&s),
        [
            "crate::net::Origins::check_entry",
            "super::quota::Admission",
            "self::t::Tr"
        ]
    );
}

#[test]
fn mod_declarations_and_inline_modules() {
    let s = scan(
        "mod a;\npub(crate) mod b;\nmod c { mod d; fn f() { super::x::Y; } }\nfn g() { z::W; }",
    );
    let mods: Vec<_> = s
        .mods
        .iter()
        .map(|m| (m.scope.clone(), m.name.clone()))
        .collect();
    assert_eq!(
        mods,
        [
            (vec![], "a".to_owned()),
            (vec![], "b".to_owned()),
            (vec!["c".to_owned()], "d".to_owned())
        ]
    );
    assert_eq!(s.inline, [vec!["c".to_owned()]]);
    assert_eq!(s.paths[0].scope, ["c"]);
    assert!(
        s.paths[1].scope.is_empty(),
        "the scope closes with its brace"
    );
}

#[test]
fn precise_capture_is_not_a_use() {
    let s = scan("fn f() -> impl Sized + use<> { crate::a::B }");
    assert!(s.uses.is_empty());
    assert_eq!(paths(&s), ["crate::a::B"]);
}

#[test]
fn visibility_is_not_a_path() {
    let s = scan("pub(crate) fn f() {} pub(super) struct S;");
    assert!(s.paths.is_empty());
    let s = scan("pub(in crate::net) struct H; pub(in super::super) fn g() { crate::keep::A; }");
    let paths: Vec<_> = s.paths.iter().map(|p| p.segments.join("::")).collect();
    assert_eq!(paths, ["crate::keep::A"]);
}

#[test]
fn test_code_is_skipped() {
    let src = "
        use crate::keep::A;
        #[cfg(test)]
        mod tests { use crate::gone::B; }
        #[cfg(test)]
        mod more;
        #[cfg(all(test, feature = \"x\"))]
        #[allow(dead_code)]
        pub(crate) fn helper() -> Result<A, B> { crate::gone::C }
        #[cfg(any(test, feature = \"y\"))]
        fn kept() { crate::keep::D; }
        #[cfg(not(test))]
        fn also_kept() { crate::keep::E; }
        struct S { #[cfg(test)] field: HashMap<crate::gone::F, G>, other: crate::keep::H }
        #[cfg(test)]
        pub const ALL: &[&str] = &[crate::gone::I];
        #[test]
        fn t() { crate::gone::J; }
        #[tokio::test(flavor = \"multi_thread\")]
        async fn u() { crate::gone::L; }
        fn arms(x: u8) { match x { #[cfg(test)] 0 => { crate::gone::M; } 1 => crate::keep::N, _ => {} } }
        #[rustfmt::skip]
        fn tail() { crate::keep::K; }
    ";
    let s = scan(src);
    let all: Vec<String> = uses(&s)
        .into_iter()
        .map(|(p, _)| p)
        .chain(paths(&s))
        .collect();
    assert_eq!(
        all,
        [
            "crate::keep::A",
            "crate::keep::D",
            "crate::keep::E",
            "crate::keep::H",
            "crate::keep::N",
            // Other attributes are scanned like code.
            "rustfmt::skip",
            "crate::keep::K"
        ]
    );
    assert!(s.mods.is_empty(), "#[cfg(test)] mod more; is test code");
}

#[test]
fn inner_test_attribute_drops_the_rest() {
    assert!(scan("#![cfg(test)]\nuse crate::a::B;").test_only);
    let s = scan("mod m { #![cfg(test)] fn f() { crate::gone::X; } }\nfn g() { crate::keep::Y; }");
    assert!(!s.test_only);
    assert_eq!(paths(&s), ["crate::keep::Y"]);
}

#[test]
fn macro_rules_bodies_are_code() {
    let s = scan("macro_rules! m { ($x:expr) => { $crate::a::B::f($x) }; }");
    assert_eq!(paths(&s), ["crate::a::B::f"]);
}
