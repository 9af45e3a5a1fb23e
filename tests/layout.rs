//! The core's layout promises (docs/DESIGN.md, "Layout"): no import cycle
//! between its top-level modules, and modules small enough to read at once.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a source file may have (the core's, the tests', the pages',
/// the scripts'), and the files allowed more, each with its reason.
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
    let skip = ["wasm", "lib.rs"];
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

/// Every source file the repository keeps, outside what tools make or fetch:
/// Rust, JS, TypeScript, Python, shell, HTML and CSS.
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    const SKIP: [&str; 9] =
        ["target", "node_modules", "pkg", ".git", "corpus", "artifacts", "work", "target-asan", "__pycache__"];
    const EXT: [&str; 9] = ["rs", "mjs", "js", "ts", "py", "pyi", "sh", "html", "css"];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap_or_default().to_string_lossy().to_string();
        if p.is_dir() {
            if !SKIP.contains(&name.as_str()) && !name.starts_with('.') && !name.contains("venv") {
                source_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| EXT.contains(&x.to_string_lossy().as_ref())) {
            out.push(p);
        }
    }
}

#[test]
fn every_source_file_is_small_enough_to_read_at_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "cli", "tests", "benches", "scripts", "www", "types", "python", "fuzz/fuzz_targets", ".ci"] {
        if root.join(dir).is_dir() {
            source_files(&root.join(dir), &mut files);
        }
    }
    assert!(files.len() > 100, "only {} source files found", files.len());
    let mut long = Vec::new();
    for f in files {
        let n = std::fs::read_to_string(&f).map(|t| t.lines().count()).unwrap_or(0);
        let rel = f.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if n > MAX_LINES && !LONGER.iter().any(|(p, _)| *p == rel) {
            long.push(format!("{rel}: {n} lines"));
        }
    }
    assert!(long.is_empty(), "over {MAX_LINES} lines without a reason in LONGER: {long:?}");
}

/// Top-level modules no product module may import: the evaluation (`eval`), the
/// lab (`research`) and the twins (`twin`), each behind its feature. The twins'
/// rehearsals may run the scenario; the lab may use everything.
const NOT_FOR_PRODUCT: [&str; 3] = ["eval", "research", "twin"];

#[test]
fn imports_point_from_the_product_to_nothing_of_the_lab() {
    let g = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let mut wrong = Vec::new();
    for (m, deps) in &g {
        for d in deps {
            let lab = d == "research" && m != "research";
            let product = !NOT_FOR_PRODUCT.contains(&m.as_str()) && NOT_FOR_PRODUCT.contains(&d.as_str());
            if lab || product || (m == "record" && d == "eval") {
                wrong.push(format!("{m} -> {d}"));
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the direction rules: {wrong:?}");
}

/// A module's path from its crate's root directory (`a/b.rs` and `a/b/mod.rs`
/// are `a::b`; the root file is the empty path).
fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().to_string()).collect();
    let last = parts.pop().unwrap();
    if !["mod.rs", "lib.rs", "main.rs"].contains(&last.as_str()) {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

/// Every path a file's code names (`crate::a::b`, `super::x`, `self::y`, `z::w`),
/// made absolute: `Some` when it names a module of the crate (`modules`), as
/// the longest such prefix, followed by its next segment (an item or nothing).
fn named_paths(code: &str, at: &[String], modules: &BTreeSet<Vec<String>>) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = ident(bytes[i]) && (i == 0 || !(ident(bytes[i - 1]) || bytes[i - 1] == b':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && (ident(bytes[j]) || (bytes[j] == b':' && bytes.get(j + 1) == Some(&b':'))) {
            j += if bytes[j] == b':' { 2 } else { 1 };
        }
        let segs: Vec<&str> = code[i..j].split("::").filter(|s| !s.is_empty()).collect();
        // `super::{A, B}` or `child::{…}`: the path before the braces names a module
        let braced = code[i..j].ends_with("::") && bytes.get(j) == Some(&b'{');
        i = j.max(i + 1);
        if segs.len() < 2 && !braced {
            continue;
        }
        let mut abs: Vec<String> = match segs[0] {
            "crate" => Vec::new(),
            "self" | "super" => at.to_vec(),
            _ => [at, &[segs[0].to_string()]].concat(),
        };
        let mut rest = match segs[0] {
            "crate" | "self" => &segs[1..],
            "super" => &segs[..],
            _ => &segs[1..],
        };
        while let Some((&"super", r)) = rest.split_first() {
            abs.pop();
            rest = r;
        }
        abs.extend(rest.iter().map(|s| s.to_string()));
        // the longest module prefix, and the item it names
        let n = (0..=abs.len()).rev().find(|&n| modules.contains(&abs[..n])).unwrap_or(0);
        if n > 0 || segs[0] == "crate" {
            out.push(abs[..(n + 1).min(abs.len())].to_vec());
        }
    }
    out
}

/// Import circles inside each folder of a crate rooted at `root`: the nodes of
/// a folder are its own file (`mod.rs` or the file beside the folder: "mod")
/// and its children (a file or a subfolder each); an edge is a name one node's
/// code takes from another's (`super::x`, `crate::…::x`, `x::…`). A circle is a
/// set of nodes that each reach every other (a strongly connected component).
fn folder_circles(root: &Path, files: &[PathBuf]) -> Vec<(String, String)> {
    let paths: Vec<(Vec<String>, String)> = files.iter().map(|f| (module_path(root, f), code(f))).collect();
    let modules: BTreeSet<Vec<String>> = paths.iter().map(|(p, _)| p.clone()).collect();
    let mut folders: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let node = |folder: &[String], m: &[String]| -> Option<String> {
        if !m.starts_with(folder) {
            return None;
        }
        let child = m.get(folder.len())?;
        let mut as_module = folder.to_vec();
        as_module.push(child.clone());
        Some(if modules.contains(&as_module) { child.clone() } else { "mod".to_string() })
    };
    for folder in modules.iter().filter(|m| modules.iter().any(|c| c.len() == m.len() + 1 && c.starts_with(m))) {
        let g = folders.entry(folder.clone()).or_default();
        for (at, code) in &paths {
            let Some(from) = (if at == folder { Some("mod".to_string()) } else { node(folder, at) }) else {
                continue;
            };
            for target in named_paths(code, at, &modules) {
                let to = if target == *folder { Some("mod".to_string()) } else { node(folder, &target) };
                if let Some(to) = to.filter(|to| *to != from) {
                    g.entry(from.clone()).or_default().insert(to);
                }
            }
            g.entry(from).or_default();
        }
    }
    let mut circles = Vec::new();
    for (folder, g) in &folders {
        let reach = |from: &String| {
            let (mut seen, mut todo) = (BTreeSet::new(), vec![from.clone()]);
            while let Some(n) = todo.pop() {
                for d in g.get(&n).into_iter().flatten() {
                    if seen.insert(d.clone()) {
                        todo.push(d.clone());
                    }
                }
            }
            seen
        };
        let reached: BTreeMap<&String, BTreeSet<String>> = g.keys().map(|m| (m, reach(m))).collect();
        let mut done = BTreeSet::new();
        for m in g.keys() {
            // the circle through m: every node m reaches that reaches m back
            let ring: Vec<String> = reached[m].iter().filter(|n| *n == m || reached[n].contains(m)).cloned().collect();
            if ring.len() > 1 && done.insert(ring.clone()) {
                let edges: Vec<String> = ring
                    .iter()
                    .flat_map(|n| g[n].iter().filter(|d| ring.contains(d)).map(move |d| format!("{n} -> {d}")))
                    .collect();
                circles.push((format!("{}: {}", folder.join("::"), ring.join(" ")), edges.join(", ")));
            }
        }
    }
    circles
}

/// The import circles inside folders still to break, each as its folder and
/// its files (`"alphabet: dropped mod"`); a new circle fails, and so does an
/// entry here once its circle is gone. None is left (issue 32): a circle that
/// must stay a while is listed here, with a reason, rather than let in.
const KNOWN_CIRCLES: &[&str] = &[];

#[test]
fn no_folder_has_an_import_circle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (lib, bin) = (dir.join("src"), dir.join("cli/src"));
    let mut files = Vec::new();
    rust_files(&lib, &mut files);
    let mut circles = folder_circles(&lib, &files);
    let mut bin_files = Vec::new();
    rust_files(&bin, &mut bin_files);
    circles.extend(folder_circles(&bin, &bin_files).into_iter().map(|(c, e)| (format!("(the CLI) {c}"), e)));
    let new: Vec<String> = circles
        .iter()
        .filter(|(c, _)| !KNOWN_CIRCLES.contains(&c.as_str()))
        .map(|(c, e)| format!("{c} ({e})"))
        .collect();
    assert!(new.is_empty(), "{} import circles inside folders:\n{}", new.len(), new.join("\n"));
    let gone: Vec<&&str> = KNOWN_CIRCLES.iter().filter(|k| !circles.iter().any(|(c, _)| c == *k)).collect();
    assert!(gone.is_empty(), "circles broken, to take out of KNOWN_CIRCLES: {gone:?}");
}

/// The circle finder sees `super::` and `crate::` edges, and an edge through the folder's own
/// file (a child taking a name back from mod.rs).
#[test]
fn the_folder_circle_finder_sees_super_edges() {
    let dir = std::env::temp_dir().join(format!("layout-circles-{}", std::process::id()));
    let write = |p: &str, text: &str| {
        std::fs::create_dir_all(dir.join(p).parent().unwrap()).unwrap();
        std::fs::write(dir.join(p), text).unwrap();
    };
    write("lib.rs", "pub mod a;\n");
    write("a/mod.rs", "mod b;\nmod c;\npub use b::f;\npub struct S;\n");
    write("a/b.rs", "pub fn f() -> super::S { super::c::g() }\n");
    write("a/c.rs", "pub fn g() -> crate::a::S { crate::a::S }\n");
    // braced imports: `pub use e::{h}` (mod -> e) and `use super::{T}` (e -> mod)
    write("lib.rs", "pub mod a;\npub mod d;\n");
    write("d/mod.rs", "mod e;\npub use e::{h};\npub struct T;\n");
    write("d/e.rs", "use super::{T};\npub fn h() -> T { T }\n");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let circles = folder_circles(&dir, &files);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(circles.len(), 2, "{circles:?}");
    assert_eq!(circles[0].0, "a: b c mod");
    assert_eq!(circles[1].0, "d: e mod");
}

/// Product modules sort through `crate::sorting` (src/sorting.rs says why: in
/// wasm each direct `sort_by` is its own copy of the standard sort, and twenty
/// of them were a fifth of the core package). Exempt: that module itself, the
/// native-only parallel helpers, tests, and the modules no product build has.
#[test]
fn product_code_sorts_through_the_shared_sort() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let exempt = ["sorting.rs", "par.rs"];
    let lab = ["eval", "research", "twin", "kuzu"];
    let direct =
        [".sort(", ".sort_by(", ".sort_by_key(", ".sort_unstable", ".sort_by_cached_key(", ".select_nth_unstable"];
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        let test_file = rel.to_string_lossy().ends_with("tests.rs");
        if test_file || exempt.iter().any(|e| rel == Path::new(e)) || lab.contains(&top.as_str()) {
            continue;
        }
        for (n, line) in code(f).lines().enumerate() {
            if direct.iter().any(|d| line.contains(d)) {
                wrong.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(wrong.is_empty(), "direct sorts in product code (use crate::sorting): {wrong:#?}");
}
