//! The edges of one module tree, and the circles (strongly connected
//! components of more than one file) of a set of edges.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::model::{Circle, Edge, Name};
use crate::tree::Tree;

/// Every edge between two different files of `tree`.
pub(crate) fn edges(tree: &Tree) -> Vec<Edge> {
    // (from, to) → name → first line.
    let mut found: BTreeMap<(usize, usize), BTreeMap<String, usize>> = BTreeMap::new();
    for (from, file) in tree.files.iter().enumerate() {
        let mut take = |scope: &[String], segments: &[String], line: usize| {
            let mut at = file.module.clone();
            at.extend(scope.iter().cloned());
            let Some(absolute) = tree.absolute(&at, segments) else {
                return;
            };
            let Some(target) = tree.target(&absolute) else {
                return;
            };
            if target.file == from {
                return;
            }
            let name = if target.rest.is_empty() {
                absolute
                    .last()
                    .map_or_else(|| "crate".to_owned(), Clone::clone)
            } else {
                target.rest.join("::")
            };
            let names = found.entry((from, target.file)).or_default();
            let first = names.entry(name).or_insert(line);
            *first = (*first).min(line);
        };
        for leaf in &file.scan.uses {
            take(&leaf.scope, &leaf.path, leaf.line);
        }
        for path in &file.scan.paths {
            let mut at = file.module.clone();
            at.extend(path.scope.iter().cloned());
            // A name a `use` brought in as an item: that `use` is the edge.
            if tree.binds_item(&at, &path.segments[0]) {
                continue;
            }
            take(&path.scope, &path.segments, path.line);
        }
    }
    found
        .into_iter()
        .map(|((from, to), names)| Edge {
            from: tree.files[from].path.clone(),
            to: tree.files[to].path.clone(),
            names: names
                .into_iter()
                .map(|(text, line)| Name { text, line })
                .collect(),
        })
        .collect()
}

/// The circles among `edges` (sorted by their file lists).
pub(crate) fn circles(edges: &[Edge]) -> Vec<Circle> {
    let mut ids: BTreeMap<&PathBuf, usize> = BTreeMap::new();
    for edge in edges {
        for path in [&edge.from, &edge.to] {
            let next = ids.len();
            ids.entry(path).or_insert(next);
        }
    }
    let paths: Vec<&PathBuf> = {
        let mut v: Vec<_> = ids.iter().collect();
        v.sort_by_key(|(_, id)| **id);
        v.into_iter().map(|(p, _)| *p).collect()
    };
    let mut next = vec![Vec::new(); paths.len()];
    for edge in edges {
        next[ids[&edge.from]].push(ids[&edge.to]);
    }
    let mut circles: Vec<Circle> = components(&next)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|members| {
            let mut files: Vec<PathBuf> = members.iter().map(|&m| paths[m].clone()).collect();
            files.sort();
            let edges = edges
                .iter()
                .filter(|e| files.contains(&e.from) && files.contains(&e.to))
                .cloned()
                .collect();
            Circle { files, edges }
        })
        .collect();
    circles.sort_by(|a, b| a.files.cmp(&b.files));
    circles
}

/// Tarjan's strongly connected components of the graph `next[node]`.
fn components(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct Walk<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    impl Walk<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.counter);
            self.low[v] = self.counter;
            self.counter += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.next[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                self.out.push(component);
            }
        }
    }
    let n = next.len();
    let mut walk = Walk {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if walk.index[v].is_none() {
            walk.visit(v);
        }
    }
    walk.out
}
