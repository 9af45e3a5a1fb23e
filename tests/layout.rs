//! The core's layout promises (docs/DESIGN.md, "Layout"): no import cycle
//! between its top-level modules, and modules small enough to read at once.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a source file of the core may have, and the files allowed
/// more, each with its reason.
const MAX_LINES: usize = 500;
const LONGER: &[(&str, &str)] = &[];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its tests and comments (doc links are no imports).
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs" || n == "testing.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let text = text.split("#[cfg(all(test").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Top-level module → the top-level modules its code names as `crate::x`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let skip = ["wasm", "bin", "lib.rs"];
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for e in std::fs::read_dir(src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if skip.contains(&name.as_str()) {
            continue;
        }
        let module = name.trim_end_matches(".rs").to_string();
        let files = modules.entry(module).or_default();
        if p.is_dir() {
            rust_files(&p, files);
        } else if name.ends_with(".rs") {
            files.push(p);
        }
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(m, files)| {
            let mut deps = BTreeSet::new();
            for f in files {
                let c = code(f);
                for (i, _) in c.match_indices("crate::") {
                    let rest = &c[i + 7..];
                    let dep: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    if names.contains(&dep) && &dep != m {
                        deps.insert(dep);
                    }
                }
            }
            (m.clone(), deps)
        })
        .collect()
}

/// A cycle through `start`, if any (depth-first search).
fn cycle_through(g: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        g: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for d in &g[at] {
            if d == start {
                return true;
            }
            if seen.insert(d.clone()) {
                path.push(d.clone());
                if walk(g, start, d, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    walk(g, start, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn the_core_has_no_import_cycle() {
    let g = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(g.len() > 15, "modules found: {:?}", g.keys());
    for m in g.keys() {
        if let Some(c) = cycle_through(&g, m) {
            panic!("import cycle: {} -> {m}", c.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let g: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .iter()
        .map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()])))
        .collect();
    assert_eq!(cycle_through(&g, "a").unwrap(), ["a", "b", "c"]);
    assert!(cycle_through(&g, "d").is_none());
}

#[test]
fn every_core_module_is_small_enough_to_read_at_once() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let mut long = Vec::new();
    for f in files {
        let n = std::fs::read_to_string(&f).unwrap().lines().count();
        let rel = f.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().to_string_lossy().replace('\\', "/");
        let rel = rel.trim_start_matches('/').to_string();
        if n > MAX_LINES && !LONGER.iter().any(|(p, _)| *p == rel) {
            long.push(format!("{rel}: {n} lines"));
        }
    }
    assert!(long.is_empty(), "over {MAX_LINES} lines without a reason in LONGER: {long:?}");
}
