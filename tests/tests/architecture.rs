//! The workspace's architecture, checked: dependency arrows point one way, and no crate has a
//! cycle among its top-level modules.
//!
//! - [`dependency_arrows_point_one_way`]: from `cargo metadata`, every workspace package depends
//!   (normal and build dependencies, optional ones included) only on the workspace packages
//!   [`ARROWS`] allows it; no crate under `engine/` depends on a crate under `api/` (in any kind of
//!   dependency); nothing depends on the `flicker` binary, the bench or the tests. The
//!   normal dependency closure of each package as built on its own (`cargo tree -e normal -p`:
//!   its default features, no other package's features unified in) holds none of the crates
//!   [`FORBIDDEN`] lists for it (no actix, sqlx, tokio or reqwest under `engine/`; no actix, sqlx
//!   or reqwest in the platform), and `actix-web` is only in the closure of
//!   [`ACTIX_WEB_ONLY_IN`]. A forbidden crate is also refused as an optional dependency the
//!   package declares, whether or not its default features enable it.
//! - [`no_module_cycles_inside_a_crate`]: for the library and binary crates of every workspace
//!   package, the graph of top-level modules (see `architecture/modgraph.rs` for what counts as a
//!   reference; comments, strings and test modules are left out) has no strongly connected
//!   component of two modules or more, except those [`KNOWN_CYCLES`] lists, and every listed one
//!   must still exist exactly, so that the list only shrinks.
//!
//! - [`the_server_names_its_game_in_one_place`]: outside test code, the server's sources name
//!   a game's crate (`final_flicker`, `exorcist`) only where the hosted games are registered, and the
//!   platform's only in the files [`GAME_NAMED_ONLY_IN`] lists; everything else goes through the
//!   Game contract.
//!
//! Written in the repository in plain Rust (no tool installed at CI time). Both take a few
//! seconds: one `cargo tree --workspace` (all features unified, so a superset of every package's
//! closure) clears most packages at once, and only a package with a forbidden crate there is
//! looked at again on its own.

#[path = "architecture/modgraph.rs"]
mod modgraph;

use modgraph::CrateScan;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Packages of the target layout that may not exist yet while the move is under way; the check
/// skips them with a note. Every other package of [`ARROWS`] must exist, and a package listed
/// here that exists fails the test: remove it from the list.
const NOT_YET_THERE: &[&str] = &[];

/// For every workspace package, the workspace packages it may depend on (normal and build
/// dependencies). The arrows: `flicker-game <- final-flicker <- flicker-lab` in `engine/`;
/// `flicker-store <- flicker-platform <- flicker-wire <- flicker-server <- flicker` (the CLI
/// binary) in `api/`, the platform over the games; the client shares the server's request and
/// response types through `flicker-wire`; the client, the bench and the tests beside the server,
/// never on it. A package missing from this table fails the test: give it its arrows.
const ARROWS: &[(&str, &[&str])] = &[
    ("flicker-game", &[]),
    ("final-flicker", &["flicker-game"]),
    ("exorcist", &["flicker-game"]),
    ("flicker-lab", &["flicker-game", "final-flicker", "exorcist"]),
    ("flicker-store", &[]),
    ("flicker-platform", &["flicker-game", "final-flicker", "exorcist", "flicker-lab", "flicker-store"]),
    ("flicker-wire", &["flicker-game", "flicker-platform"]),
    (
        "flicker-client",
        &["flicker-game", "final-flicker", "exorcist", "flicker-store", "flicker-platform", "flicker-wire"],
    ),
    (
        "flicker-server",
        &[
            "flicker-game",
            "final-flicker",
            "exorcist",
            "flicker-lab",
            "flicker-store",
            "flicker-platform",
            "flicker-wire",
        ],
    ),
    (
        "flicker",
        &[
            "flicker-game",
            "final-flicker",
            "exorcist",
            "flicker-lab",
            "flicker-store",
            "flicker-platform",
            "flicker-wire",
            "flicker-server",
            "flicker-client",
        ],
    ),
    (
        "flicker-bench",
        &[
            "flicker-game",
            "final-flicker",
            "exorcist",
            "flicker-lab",
            "flicker-store",
            "flicker-platform",
            "flicker-client",
        ],
    ),
    (
        "flicker-tests",
        &[
            "flicker-game",
            "final-flicker",
            "exorcist",
            "flicker-lab",
            "flicker-store",
            "flicker-platform",
            "flicker-client",
        ],
    ),
];

/// Packages no package may depend on, in any kind of dependency (dev included): the `flicker`
/// binary and the two test harnesses.
const LEAVES: &[&str] = &["flicker", "flicker-bench", "flicker-tests"];

/// Crates that must not be in a package's normal dependency closure. The key is a package name,
/// or `engine/` for every package whose manifest is under `engine/`. A pattern `x*` is the crate
/// `x` and every `x-...` crate; any other pattern is one crate name.
const FORBIDDEN: &[(&str, &[&str])] = &[
    ("engine/", &["actix*", "sqlx*", "tokio*", "reqwest*"]),
    ("flicker-platform", &["actix*", "sqlx*", "reqwest*"]),
    ("flicker-store", &["actix*", "reqwest*"]),
    ("flicker-wire", &["actix*", "sqlx*", "reqwest*"]),
    ("flicker-client", &["actix*"]),
    ("flicker-server", &["reqwest*", "indicatif"]),
];

/// The only packages whose normal dependency closure may hold `actix-web`: the server and the
/// CLI binary.
const ACTIX_WEB_ONLY_IN: &[&str] = &["flicker-server", "flicker"];

/// The module cycles that exist today, per crate (`lib <name>` or `bin <name>`, the crate's
/// target name) and set of top-level modules; the restructuring removes them. A current cycle
/// not in this list fails the test, and so does a listed cycle that no longer exists as listed
/// (shrink or remove its entry). Never add to it.
const KNOWN_CYCLES: &[(&str, &[&str])] = &[];

/// The files (paths from the package's directory; a path ending in `/` is a directory) whose
/// non-test code may name a game's own crate, `final_flicker` or `exorcist`: in the server, where the hosted
/// game is registered; in the platform, its registration (`games.rs`), the signed replay format
/// (`chain.rs`) and the gatherings (their settings and the R9.8.4 class kept between stages are
/// still The Final Flicker's).
const GAME_NAMED_ONLY_IN: &[(&str, &[&str])] = &[
    ("flicker-server", &["src/game.rs"]),
    ("flicker-wire", &["src/game.rs"]),
    ("flicker-platform", &["src/games.rs", "src/names.rs", "src/chain.rs", "src/gatherings/"]),
];

/// A workspace package, as `cargo metadata --no-deps` describes it.
struct Package {
    name: String,
    /// The package id spec (`path+file:///...#name@version`).
    id: String,
    /// The manifest's directory relative to the workspace root, `/`-separated (`engine/flicker`).
    dir: String,
    /// Declared dependencies.
    deps: Vec<Dep>,
    /// Crate roots of the library and binary targets: `(label, src_path)`, label `lib x`/`bin x`.
    roots: Vec<(String, PathBuf)>,
}

/// A declared dependency of a workspace package.
struct Dep {
    name: String,
    /// `normal`, `dev` or `build`.
    kind: String,
    /// Whether it is a workspace package (a path dependency of that name).
    workspace: bool,
    optional: bool,
}

impl Package {
    fn is_engine(&self) -> bool {
        self.dir.starts_with("engine/")
    }

    fn is_api(&self) -> bool {
        self.dir.starts_with("api/")
    }
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// The workspace root and its packages.
fn workspace() -> (PathBuf, Vec<Package>) {
    let out = cargo().args(["metadata", "--format-version", "1", "--no-deps"]).output().expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let root = PathBuf::from(meta["workspace_root"].as_str().expect("workspace_root"));
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let packages = packages
        .iter()
        .map(|p| {
            let manifest = Path::new(p["manifest_path"].as_str().expect("manifest_path"));
            let dir =
                manifest.parent().expect("manifest dir").strip_prefix(&root).expect("package inside the workspace");
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .map(|d| {
                    let name = d["name"].as_str().expect("dependency name").to_string();
                    let workspace = d["source"].is_null() && names.contains(name.as_str());
                    let kind = d["kind"].as_str().unwrap_or("normal").to_string();
                    Dep { name, kind, workspace, optional: d["optional"].as_bool().unwrap_or(false) }
                })
                .collect();
            let roots = p["targets"]
                .as_array()
                .expect("targets")
                .iter()
                .filter_map(|t| {
                    let kinds: Vec<&str> = t["kind"].as_array()?.iter().filter_map(Value::as_str).collect();
                    let kind = if kinds.contains(&"bin") {
                        "bin"
                    } else if kinds.iter().any(|k| matches!(*k, "lib" | "rlib" | "proc-macro" | "cdylib" | "staticlib"))
                    {
                        "lib"
                    } else {
                        return None;
                    };
                    let name = t["name"].as_str()?.replace('-', "_");
                    Some((format!("{kind} {name}"), PathBuf::from(t["src_path"].as_str()?)))
                })
                .collect();
            Package {
                name: p["name"].as_str().expect("name").to_string(),
                id: p["id"].as_str().expect("id").to_string(),
                dir: dir.to_string_lossy().replace('\\', "/"),
                deps,
                roots,
            }
        })
        .collect();
    (root, packages)
}

fn pattern_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name == prefix || name.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('-')),
        None => name == pattern,
    }
}

/// The crate patterns forbidden in `p`'s normal closure.
fn forbidden_for(p: &Package) -> Vec<&'static str> {
    let mut out: Vec<&str> = FORBIDDEN
        .iter()
        .filter(|(who, _)| *who == p.name || (*who == "engine/" && p.is_engine()))
        .flat_map(|(_, patterns)| patterns.iter().copied())
        .collect();
    if !ACTIX_WEB_ONLY_IN.contains(&p.name.as_str()) {
        out.push("actix-web");
    }
    out
}

/// The normal dependency graph `cargo tree -e normal` prints: its roots and, for every package
/// (`name vX.Y.Z` plus ` (path)` for a path package), its dependencies. Packages `cargo tree`
/// shows once and then marks `(*)` have the same dependencies everywhere, so the edges of their
/// first showing stand for all.
#[derive(Default)]
struct Tree {
    roots: Vec<String>,
    deps: BTreeMap<String, BTreeSet<String>>,
}

/// Starts `cargo tree -e normal` with `args` (`--workspace`, or `-p <id>`).
fn spawn_tree(args: &[&str]) -> std::process::Child {
    cargo()
        .args(["tree", "-e", "normal", "--prefix", "depth", "-f", "{p}"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run cargo tree")
}

fn read_tree(child: std::process::Child, what: &str) -> Tree {
    let out = child.wait_with_output().expect("cargo tree finishes");
    assert!(out.status.success(), "cargo tree {what} failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut tree = Tree::default();
    let mut stack: Vec<String> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(depth) = line[..digits].parse::<usize>() else { continue };
        let node = line[digits..].trim_end().trim_end_matches(" (*)").to_string();
        stack.truncate(depth);
        match stack.last() {
            Some(parent) => {
                tree.deps.entry(parent.clone()).or_default().insert(node.clone());
            }
            None => tree.roots.push(node.clone()),
        }
        tree.deps.entry(node.clone()).or_default();
        stack.push(node);
    }
    tree
}

/// The crate name of a `cargo tree` node (`serde v1.0.229` -> `serde`).
fn crate_name(node: &str) -> &str {
    node.split_whitespace().next().unwrap_or(node)
}

impl Tree {
    /// Every crate reachable from the root of package `name`, by crate name, with a shortest path
    /// to it (crate names, the package first).
    fn closure(&self, name: &str) -> BTreeMap<String, Vec<String>> {
        let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let Some(root) = self.roots.iter().find(|r| crate_name(r) == name) else { return paths };
        let mut seen = BTreeSet::from([root.as_str()]);
        let mut queue = std::collections::VecDeque::from([(root.as_str(), vec![name.to_string()])]);
        while let Some((node, path)) = queue.pop_front() {
            paths.entry(crate_name(node).to_string()).or_insert_with(|| path.clone());
            for dep in self.deps.get(node).into_iter().flatten() {
                if seen.insert(dep) {
                    let mut longer = path.clone();
                    longer.push(crate_name(dep).to_string());
                    queue.push_back((dep, longer));
                }
            }
        }
        paths
    }
}

/// The forbidden crates in `p`'s normal closure, as messages.
fn violations(p: &Package, closure: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut out = Vec::new();
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    for pattern in forbidden_for(p) {
        let found: Vec<(&String, &Vec<String>)> = closure
            .iter()
            .filter(|(name, _)| pattern_matches(pattern, name) && !reported.contains(name.as_str()))
            .collect();
        let Some((_, shortest)) = found.iter().min_by_key(|(_, path)| path.len()) else { continue };
        let names: Vec<&str> = found.iter().map(|(name, _)| name.as_str()).collect();
        out.push(format!(
            "{} depends on {} ({pattern} is forbidden for it), e.g. {}",
            p.name,
            names.join(", "),
            shortest.join(" -> ")
        ));
        reported.extend(names);
    }
    out
}

/// Dependency arrows point one way; see the crate doc for the rules.
#[test]
fn dependency_arrows_point_one_way() {
    let (_, packages) = workspace();
    let mut errors = Vec::new();
    let by_name: BTreeMap<&str, &Package> = packages.iter().map(|p| (p.name.as_str(), p)).collect();
    let arrows: BTreeMap<&str, &[&str]> = ARROWS.iter().copied().collect();

    for pending in NOT_YET_THERE {
        if by_name.contains_key(pending) {
            errors.push(format!("package {pending} exists now: remove it from NOT_YET_THERE"));
        } else {
            println!("note: package {pending} does not exist yet; its checks are skipped");
        }
    }
    for name in arrows.keys() {
        if !by_name.contains_key(name) && !NOT_YET_THERE.contains(name) {
            errors.push(format!("package {name} of ARROWS is not in the workspace"));
        }
    }

    for p in &packages {
        let Some(allowed) = arrows.get(p.name.as_str()) else {
            errors.push(format!("workspace package {} ({}) is not in ARROWS: give it its arrows", p.name, p.dir));
            continue;
        };
        let forbidden = forbidden_for(p);
        for Dep { name: dep, kind, workspace, optional } in &p.deps {
            if *workspace && dep != &p.name {
                let target = by_name[dep.as_str()];
                if kind != "dev" && !allowed.contains(&dep.as_str()) {
                    errors.push(format!("{} ({kind}) depends on {dep}: ARROWS does not allow it", p.name));
                }
                if LEAVES.contains(&dep.as_str()) {
                    errors.push(format!("{} ({kind}) depends on {dep}: no package may depend on it", p.name));
                }
                if p.is_engine() && target.is_api() {
                    errors.push(format!("{} ({kind}) under engine/ depends on {dep} under api/", p.name));
                }
            }
            if *optional
                && kind != "dev"
                && let Some(pattern) = forbidden.iter().find(|f| pattern_matches(f, dep))
            {
                errors.push(format!(
                    "{} declares the optional dependency {dep} ({kind}), forbidden for it ({pattern})",
                    p.name
                ));
            }
        }
    }

    // One `cargo tree --workspace` unifies the features of all packages, so its closures hold
    // every package's closure as built alone: a package clean there is clean. Only a package with
    // a forbidden crate there is looked at again on its own (`cargo tree -p`).
    let unified = read_tree(spawn_tree(&["--workspace"]), "--workspace");
    let suspects: Vec<&Package> =
        packages.iter().filter(|p| !violations(p, &unified.closure(&p.name)).is_empty()).collect();
    for p in &suspects {
        println!("note: {} has a forbidden crate with the workspace's features unified; checked on its own", p.name);
    }
    let alone: Vec<_> = suspects.iter().map(|p| spawn_tree(&["-p", &p.id])).collect();
    for (p, child) in suspects.iter().zip(alone) {
        let tree = read_tree(child, &format!("-p {}", p.name));
        errors.extend(violations(p, &tree.closure(&p.name)));
    }

    assert!(errors.is_empty(), "dependency arrows point the wrong way:\n  {}", errors.join("\n  "));
}

/// No cycle among the top-level modules of any crate of the workspace beyond [`KNOWN_CYCLES`],
/// and every known cycle still exists exactly as listed.
#[test]
fn no_module_cycles_inside_a_crate() {
    let (root, packages) = workspace();
    let mut known: Vec<(&str, BTreeSet<String>, bool)> =
        KNOWN_CYCLES.iter().map(|(c, ms)| (*c, ms.iter().map(|m| m.to_string()).collect(), false)).collect();
    let mut errors = Vec::new();
    let mut current = Vec::new();
    for p in &packages {
        for (label, src) in &p.roots {
            let scan = CrateScan::scan(src, &|f| std::fs::read_to_string(f).ok())
                .unwrap_or_else(|e| panic!("scanning {label} of {}: {e}", p.name));
            for cycle in scan.cycles() {
                let text = format!("{label} ({}):\n{}", p.name, cycle.describe(&root));
                current.push(text.clone());
                match known.iter_mut().find(|(c, ms, _)| c == label && *ms == cycle.modules) {
                    Some(entry) => entry.2 = true,
                    None => errors.push(format!("a module cycle not in KNOWN_CYCLES: {text}")),
                }
            }
        }
    }
    for (label, modules, seen) in &known {
        if !seen {
            let modules: Vec<&str> = modules.iter().map(String::as_str).collect();
            errors.push(format!(
                "KNOWN_CYCLES lists {label} {{{}}}, which is no longer a cycle as listed: remove the entry, \
                 or shrink it to the cycle reported above",
                modules.join(", ")
            ));
        }
    }
    println!("current module cycles ({}):", current.len());
    for text in &current {
        print!("{text}");
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn the_server_names_its_game_in_one_place() {
    let (root, packages) = workspace();
    let mut errors = Vec::new();
    for (name, allowed) in GAME_NAMED_ONLY_IN {
        let p = packages.iter().find(|p| p.name == *name).unwrap_or_else(|| panic!("no package {name}"));
        let (label, src) = p.roots.iter().find(|(l, _)| l.contains("lib")).expect("a library");
        let dir = root.join(&p.dir);
        let scan = CrateScan::scan(src, &|f| std::fs::read_to_string(f).ok())
            .unwrap_or_else(|e| panic!("scanning {label} of {name}: {e}"));
        for (file, line, ident) in &scan.idents {
            if ident != "final_flicker" && ident != "exorcist" {
                continue;
            }
            let rel = file.strip_prefix(&dir).unwrap_or(file).to_string_lossy().replace('\\', "/");
            if !allowed.iter().any(|a| if a.ends_with('/') { rel.starts_with(a) } else { rel == *a }) {
                let shown = file.strip_prefix(&root).unwrap_or(file).display().to_string();
                errors.push(format!("{shown}:{line}: {name} names {ident} outside {allowed:?}"));
            }
        }
    }
    assert!(errors.is_empty(), "use the Game contract (or the server's game.rs aliases):\n{}", errors.join("\n"));
}
