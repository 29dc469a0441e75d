//! Keeps ARCHITECTURE.md's layer list true: every `crate::` path in `layout-core/src` must point
//! at the module's own layer or one below it.
//!
//! The layers are read from the fenced `layers` block of ARCHITECTURE.md (one line per layer,
//! lowest first, listing the top-level modules of `layout-core`), so the document and the check
//! cannot drift apart. Names re-exported at the crate root (`crate::DynLayout`) are resolved
//! through the `pub use` lines of `layout-core/src/lib.rs`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Module name → layer number, from ARCHITECTURE.md.
fn layers(root: &Path) -> BTreeMap<String, usize> {
    let doc = fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = doc
        .find("```layers\n")
        .expect("ARCHITECTURE.md has a ```layers block");
    let block = &doc[start + "```layers\n".len()..];
    let block = &block[..block.find("```").expect("the layers block is closed")];
    let mut map = BTreeMap::new();
    for (layer, line) in block.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        // "<name of the layer>: module module …"
        let (_, mods) = line
            .split_once(':')
            .expect("a layer line is `name: modules`");
        for m in mods.split_whitespace() {
            assert!(
                map.insert(m.to_string(), layer).is_none(),
                "module `{m}` is listed in two layers"
            );
        }
    }
    map
}

/// Root re-exports: name → the top-level module it comes from.
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let (module, names) = rest.split_once("::").expect("`pub use module::…`");
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for n in names.split(',') {
            let n = n.trim();
            let n = n.rsplit("::").next().unwrap_or(n);
            if !n.is_empty() {
                map.insert(n.to_string(), module.to_string());
            }
        }
    }
    map
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("readable source dir") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The first path segment after every `crate::` in code (comments and the `#[cfg(test)]` part
/// dropped), with `{a, b::c}` groups expanded to their first segments.
fn crate_refs(src: &str) -> Vec<String> {
    // unit-test modules (conventionally last in a file) may reach any layer
    let src = match src.find("#[cfg(test)]") {
        Some(i) => &src[..i],
        None => src,
    };
    let code: String = src
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `layout_core::crate::` never occurs, `foocrate::` is not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            // a use group: split at top-level commas
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            if !item.trim().is_empty() {
                out.push(first_segment(&item));
            }
        } else {
            out.push(first_segment(rest));
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn first_segment(s: &str) -> String {
    s.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn layout_core_imports_point_down_the_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("layout-core/src");
    let layers = layers(root);
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let names = root_names(&lib);

    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // `#[macro_export]` macros live at the crate root: `crate::name` resolves to the module of
    // the file that defines `macro_rules! name`
    let mut names = names;
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let module = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("utf-8 path");
        let text = fs::read_to_string(f).expect("source file");
        for line in text.lines() {
            if let Some(rest) = line.trim_start().strip_prefix("macro_rules! ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names
                    .entry(name)
                    .or_insert_with(|| module.trim_end_matches(".rs").to_string());
            }
        }
    }
    let mut violations = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let module = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("utf-8 path")
            .trim_end_matches(".rs")
            .to_string();
        if module == "lib" {
            continue;
        }
        let own = *layers.get(&module).unwrap_or_else(|| {
            panic!(
                "module `{module}` ({}) is in no layer of ARCHITECTURE.md",
                rel.display()
            )
        });
        let text = fs::read_to_string(f).expect("source file");
        for seg in crate_refs(&text) {
            let target = if layers.contains_key(&seg) {
                seg.clone()
            } else if let Some(m) = names.get(&seg) {
                m.clone()
            } else if seg == "__private" {
                continue;
            } else {
                panic!(
                    "{}: `crate::{seg}` is neither a module nor a root re-export",
                    rel.display()
                );
            };
            checked += 1;
            let theirs = layers[&target];
            if theirs > own {
                violations.push(format!(
                    "{} (layer {own}, `{module}`) uses `crate::{seg}` from `{target}` (layer {theirs})",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        checked > 100,
        "the scan found only {checked} crate paths: is it broken?"
    );
    assert!(
        violations.is_empty(),
        "imports that point up the layers:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_scanner_sees_groups_and_nested_paths() {
    let refs = crate_refs(
        "use crate::{DynLayout, walk::{Plan, Axes}, LayoutError};\n// crate::tensor in a comment\nlet x = crate::scan::cap();",
    );
    assert_eq!(refs, ["DynLayout", "walk", "LayoutError", "scan"]);
}

#[test]
fn f2_layouts_sit_with_the_swizzles_above_the_algebra() {
    // F2-linear layouts use layouts and the algebra (mixed layouts' complements and inverses)
    // and the swizzles they convert; tensors and named layouts may build on them
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layers = layers(root);
    let f2 = layers.get("f2").expect("`f2` is in the layer list");
    assert_eq!(Some(f2), layers.get("swizzle"));
    assert!(layers["algebra"] < *f2 && layers["dyn_layout"] < *f2);
    assert!(*f2 < layers["tensor"] && *f2 < layers["named"]);
    // and the scan reaches its files
    let mut files = Vec::new();
    rust_files(&root.join("layout-core/src/f2"), &mut files);
    let refs: usize = files
        .iter()
        .map(|f| crate_refs(&fs::read_to_string(f).expect("source")).len())
        .sum();
    assert!(refs >= 5, "the f2 sources name only {refs} crate paths");
}
