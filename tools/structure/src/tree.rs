//! A crate's module tree, from each root file through its `mod x;`
//! declarations, and path resolution over it: which file a path names.
//!
//! A module declared `mod x;` in a crate root or a `mod.rs` lives in `x.rs`
//! or `x/mod.rs` beside it; declared in `a.rs` it lives under `a/`. Inline
//! modules (`mod x { … }`) belong to the file they are written in. A path's
//! file is the one reached by its longest module prefix; re-exports are not
//! followed (an item a `mod.rs` re-exports resolves to that `mod.rs`).

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use crate::scan::{self, FileScan};

/// A module path from the crate root: `["log", "partition"]`.
pub(crate) type ModPath = Vec<String>;

/// Gives the text of a crate's source files, by path relative to `src/`.
pub(crate) trait Source {
    /// The file's text, or `None` when there is no such file.
    fn read(&self, rel: &Path) -> Option<String>;
}

/// One file of the tree.
pub(crate) struct File {
    /// Path relative to `src/`.
    pub(crate) path: PathBuf,
    /// The module the file is.
    pub(crate) module: ModPath,
    /// Raw line count.
    pub(crate) lines: usize,
    /// What it declares and names (test code left out).
    pub(crate) scan: FileScan,
}

/// The files reachable from one crate root and the module → file map.
pub(crate) struct Tree {
    /// Every file, the root first.
    pub(crate) files: Vec<File>,
    /// Module path → index in `files` (inline modules map to their file).
    modules: BTreeMap<ModPath, usize>,
    /// (module, name) → the `use` leaf that binds `name` in that module,
    /// as (its module, its path).
    bindings: BTreeMap<(ModPath, String), (ModPath, Vec<String>)>,
}

/// Where a path leads: a file and the segments after its module prefix.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// Index of the file in the tree.
    pub(crate) file: usize,
    /// The segments past the module prefix (empty when the path is a module).
    pub(crate) rest: Vec<String>,
}

/// Bound on chains of `use` bindings followed (`use a::b; use b::c; …`).
const MAX_BINDING_HOPS: usize = 16;

impl Tree {
    /// Loads the tree rooted at `root` (a `lib.rs`, `main.rs` or `bin/*.rs`).
    /// `None` when the root cannot be read or is test code.
    pub(crate) fn load(source: &dyn Source, root: &Path) -> Option<Tree> {
        let mut tree = Tree {
            files: Vec::new(),
            modules: BTreeMap::new(),
            bindings: BTreeMap::new(),
        };
        let mut queue = VecDeque::from([(root.to_path_buf(), ModPath::new(), true)]);
        while let Some((path, module, is_root)) = queue.pop_front() {
            let Some(text) = source.read(&path) else {
                continue;
            };
            let scan = scan::scan(&text);
            if scan.test_only {
                continue;
            }
            let index = tree.files.len();
            let base = module_dir(&path, is_root);
            for decl in &scan.mods {
                let mut dir = base.clone();
                dir.extend(&decl.scope);
                let mut child = module.clone();
                child.extend(decl.scope.iter().cloned());
                child.push(decl.name.clone());
                let flat = dir.join(format!("{}.rs", decl.name));
                let nested = dir.join(&decl.name).join("mod.rs");
                let file = if source.read(&flat).is_some() {
                    flat
                } else {
                    nested
                };
                queue.push_back((file, child, false));
            }
            tree.modules.insert(module.clone(), index);
            for inline in &scan.inline {
                let mut m = module.clone();
                m.extend(inline.iter().cloned());
                tree.modules.insert(m, index);
            }
            for leaf in &scan.uses {
                if let Some(name) = &leaf.binding {
                    let mut scope = module.clone();
                    scope.extend(leaf.scope.iter().cloned());
                    let value = (scope.clone(), leaf.path.clone());
                    tree.bindings.entry((scope, name.clone())).or_insert(value);
                }
            }
            tree.files.push(File {
                path,
                module,
                lines: text.lines().count(),
                scan,
            });
        }
        (!tree.files.is_empty()).then_some(tree)
    }

    /// True when `path` names a module of this tree.
    pub(crate) fn is_module(&self, path: &[String]) -> bool {
        self.modules.contains_key(path)
    }

    /// The absolute path `segments` means when written in module `scope`,
    /// or `None` when it names another crate or nothing we know.
    pub(crate) fn absolute(&self, scope: &[String], segments: &[String]) -> Option<Vec<String>> {
        self.absolute_within(scope, segments, MAX_BINDING_HOPS)
    }

    fn absolute_within(
        &self,
        scope: &[String],
        segs: &[String],
        hops: usize,
    ) -> Option<Vec<String>> {
        let (first, rest) = segs.split_first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => scope.to_vec(),
            "super" => {
                let mut base = scope.to_vec();
                base.pop()?;
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                return Some(base);
            }
            name => {
                let mut child = scope.to_vec();
                child.push(name.to_owned());
                if self.is_module(&child) {
                    child
                } else {
                    let key = (scope.to_vec(), name.to_owned());
                    let (at, path) = self.bindings.get(&key)?;
                    if hops == 0 || (at.as_slice() == scope && path.as_slice() == segs) {
                        return None;
                    }
                    self.absolute_within(at, path, hops - 1)?
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file an absolute path leads to: its longest module prefix.
    pub(crate) fn target(&self, absolute: &[String]) -> Option<Target> {
        (0..=absolute.len()).rev().find_map(|k| {
            self.modules.get(&absolute[..k]).map(|&file| Target {
                file,
                rest: absolute[k..].to_vec(),
            })
        })
    }

    /// True when `name`, written in module `scope`, is bound by a `use` to
    /// something that is not a module (an item: its `use` is the edge).
    pub(crate) fn binds_item(&self, scope: &[String], name: &str) -> bool {
        let mut child = scope.to_vec();
        child.push(name.to_owned());
        if self.is_module(&child) {
            return false;
        }
        let key = (scope.to_vec(), name.to_owned());
        self.bindings.contains_key(&key)
            && self
                .absolute(scope, &[name.to_owned()])
                .is_none_or(|p| !self.is_module(&p))
    }
}

/// The directory holding the files of modules declared in `file`.
fn module_dir(file: &Path, is_root: bool) -> PathBuf {
    let parent = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let owns_dir = is_root || file.file_name().is_some_and(|n| n == "mod.rs");
    match file.file_stem() {
        Some(stem) if !owns_dir => parent.join(stem),
        _ => parent,
    }
}
