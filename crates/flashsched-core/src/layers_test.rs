//! The layers' dependency picture must stay a DAG: a module may use the
//! modules listed below it, never one above. Read from the sources (test
//! modules excluded), so a new `use` that closes a cycle fails here with
//! the edge named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules, lowest first: each may depend only on earlier ones.
const ORDER: &[&str] = &[
    "error", "rng", "divisor", "engine", "io", "registry", "flash", "ftl", "check", "device",
    "host", "config", "workload", "metrics", "memory", "sim", "run", "array",
];

/// Add the top-level modules `path` (a file, or a folder of them) uses,
/// outside its test modules, to `out[module]`.
fn uses(path: &Path, module: &str, out: &mut BTreeMap<String, BTreeSet<String>>) {
    if path.is_dir() {
        for e in std::fs::read_dir(path).into_iter().flatten().flatten() {
            uses(&e.path(), module, out);
        }
        return;
    }
    let name = path.file_name().and_then(|x| x.to_str()).unwrap_or("");
    if !name.ends_with(".rs") || name == "tests.rs" {
        return;
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let code = without_test_modules(&text);
    let used = out.entry(module.to_string()).or_default();
    for (i, _) in code.match_indices("crate::") {
        let dep: String = code[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if dep != module && !dep.is_empty() {
            used.insert(dep);
        }
    }
}

/// `text` with every `#[cfg(test)] mod tests { ... }` block cut out.
fn without_test_modules(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]\nmod tests {") {
        out.push_str(&rest[..i]);
        let body = &rest[i..];
        let mut depth = 0;
        let mut end = body.len();
        for (j, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn layers_depend_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut deps = BTreeMap::new();
    for m in ORDER {
        let dir = src.join(m);
        let path = if dir.is_dir() {
            dir
        } else {
            src.join(format!("{m}.rs"))
        };
        assert!(path.exists(), "no module {m}");
        uses(&path, m, &mut deps);
    }
    let rank = |m: &str| ORDER.iter().position(|x| *x == m);
    let mut bad = Vec::new();
    for (m, used) in &deps {
        for u in used {
            match (rank(m), rank(u)) {
                (Some(a), Some(b)) if b >= a => bad.push(format!("{m} -> {u}")),
                (_, None) => bad.push(format!("{m} -> {u} (not a listed layer)")),
                _ => {}
            }
        }
    }
    assert!(bad.is_empty(), "upward dependencies: {bad:?}");
    // The layers the controller work builds on are among those checked.
    for m in ["config", "ftl", "host", "device"] {
        assert!(deps.contains_key(m), "{m} not scanned");
    }
}
