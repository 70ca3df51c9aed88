//! The graph of a crate's top-level modules, scanned from its sources, and its cycles.
//!
//! A crate's *top-level modules* are the `mod x;` / `mod x { ... }` items of its root file
//! (`lib.rs` or `main.rs`). Module `a` *refers to* module `b` when a file of `a` (its own file and
//! every file of its submodules, followed through their `mod` items) names `b` by a path:
//! - `crate::b::...`, `$crate::b::...`, or a `use crate::{b::..., ...}` group, nested to any depth
//!   (every item of a group is a head: `use crate::{a::{b, c}, d}` names `a` and `d`);
//! - `super::b::...` (or `super::super::b`, ...) from a scope whose `super` chain reaches the crate
//!   root, e.g. `super::b` in `a.rs` / `a/mod.rs` or `super::super::b` in `a/inner.rs`;
//! - any of these inside an attribute (`#[utoipa::path(..., body = crate::b::X)]`);
//! - `crate::Name` where the root file re-exports `Name` from `b` (`pub use b::Name;`,
//!   `pub use b::{Name, ...}`, `pub use b::Other as Name;`): the code depends on `b` through the
//!   root. Names the root defines itself, glob re-exports and extern crates are not module edges.
//!
//! Comments (doc comments included, so intra-doc links such as ``[`crate::b::X`]`` create no
//! edge: they couple the rustdoc output, not the code) and string, char and raw string literals
//! are stripped before scanning. Test code is left out of the graph: a top-level module declared
//! with `#[cfg(test)]` (or `#![cfg(test)]` inside), named `tests` or ending in `_tests` is not a
//! node, and a nested test module (`#[cfg(test)] mod tests { ... }`, a `*_tests.rs` file) adds no
//! edge to the module that holds it. The root file is not a node either. `#[path]` on a `mod`
//! item is refused outside test code (inside, the module is not followed) (the scanner would follow the wrong file); macros that expand to paths are not
//! seen.
//!
//! A *cycle* is a strongly connected component (Tarjan) of two modules or more.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

/// One token of Rust source, comments and whitespace removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword (`r#name` is `name`).
    Ident(String),
    /// `::`, or any other single punctuation character.
    Punct(String),
    /// A string, byte string, C string or raw string literal, with its contents dropped.
    Str,
    /// A char or byte literal, a lifetime, or a number.
    Other,
}

/// A token and the 1-based line it starts on.
#[derive(Debug, Clone)]
pub struct Token {
    /// What the token is.
    pub tok: Tok,
    /// Its 1-based line in the file.
    pub line: u32,
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn bump(&mut self) {
        if self.chars.get(self.i) == Some(&'\n') {
            self.line += 1;
        }
        self.i += 1;
    }

    fn bump_n(&mut self, n: usize) {
        for _ in 0..n {
            self.bump();
        }
    }

    /// After the opening `"`: up to and with the closing `"`, escapes skipped.
    fn quoted(&mut self) {
        while let Some(c) = self.peek(0) {
            self.bump();
            match c {
                '\\' => self.bump(),
                '"' => return,
                _ => {}
            }
        }
    }

    /// At `#`s or `"` after the `r`: the raw string, with its `#` fence.
    fn raw(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        self.bump(); // the opening quote
        while let Some(c) = self.peek(0) {
            self.bump();
            if c == '"' && (0..hashes).all(|k| self.peek(k) == Some('#')) {
                self.bump_n(hashes);
                return;
            }
        }
    }

    /// Is a raw string starting at `ahead` (`#`* then `"`)?
    fn raw_starts(&self, ahead: usize) -> bool {
        let mut k = ahead;
        while self.peek(k) == Some('#') {
            k += 1;
        }
        self.peek(k) == Some('"') && (k == ahead || self.peek(ahead) == Some('#'))
    }

    /// At `'`: a char literal (`'x'`, `'\n'`, `'\u{1F600}'`) or a lifetime (`'a`).
    fn quote(&mut self) {
        self.bump();
        match (self.peek(0), self.peek(1)) {
            (Some('\\'), _) => {
                self.bump_n(2);
                while let Some(c) = self.peek(0) {
                    self.bump();
                    if c == '\'' {
                        break;
                    }
                }
            }
            (Some(_), Some('\'')) => self.bump_n(2),
            _ => {
                while self.peek(0).is_some_and(is_ident_continue) {
                    self.bump();
                }
            }
        }
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_continue(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits Rust source into tokens, dropping whitespace and comments (line, nested block, doc)
/// and the contents of literals, so that only code is left to scan.
pub fn lex(src: &str) -> Vec<Token> {
    let mut lx = Lexer { chars: src.chars().collect(), i: 0, line: 1 };
    let mut out = Vec::new();
    while let Some(c) = lx.peek(0) {
        let line = lx.line;
        let tok = match c {
            c if c.is_whitespace() => {
                lx.bump();
                continue;
            }
            '/' if lx.peek(1) == Some('/') => {
                while lx.peek(0).is_some_and(|c| c != '\n') {
                    lx.bump();
                }
                continue;
            }
            '/' if lx.peek(1) == Some('*') => {
                lx.bump_n(2);
                let mut depth = 1;
                while depth > 0 && lx.peek(0).is_some() {
                    match (lx.peek(0), lx.peek(1)) {
                        (Some('/'), Some('*')) => {
                            depth += 1;
                            lx.bump_n(2);
                        }
                        (Some('*'), Some('/')) => {
                            depth -= 1;
                            lx.bump_n(2);
                        }
                        _ => lx.bump(),
                    }
                }
                continue;
            }
            '"' => {
                lx.bump();
                lx.quoted();
                Tok::Str
            }
            '\'' => {
                lx.quote();
                Tok::Other
            }
            'r' if lx.peek(1) == Some('#') && lx.peek(2).is_some_and(is_ident_start) => {
                lx.bump_n(2);
                let start = lx.i;
                while lx.peek(0).is_some_and(is_ident_continue) {
                    lx.bump();
                }
                Tok::Ident(lx.chars[start..lx.i].iter().collect())
            }
            'r' if lx.raw_starts(1) => {
                lx.bump();
                lx.raw();
                Tok::Str
            }
            'b' | 'c' if lx.peek(1) == Some('r') && lx.raw_starts(2) => {
                lx.bump_n(2);
                lx.raw();
                Tok::Str
            }
            'b' | 'c' if lx.peek(1) == Some('"') => {
                lx.bump_n(2);
                lx.quoted();
                Tok::Str
            }
            'b' if lx.peek(1) == Some('\'') => {
                lx.bump();
                lx.quote();
                Tok::Other
            }
            c if is_ident_start(c) => {
                let start = lx.i;
                while lx.peek(0).is_some_and(is_ident_continue) {
                    lx.bump();
                }
                Tok::Ident(lx.chars[start..lx.i].iter().collect())
            }
            c if c.is_ascii_digit() => {
                while let Some(c) = lx.peek(0) {
                    if is_ident_continue(c) || (c == '.' && lx.peek(1).is_some_and(|d| d.is_ascii_digit())) {
                        lx.bump();
                    } else {
                        break;
                    }
                }
                Tok::Other
            }
            ':' if lx.peek(1) == Some(':') => {
                lx.bump_n(2);
                Tok::Punct("::".into())
            }
            c => {
                lx.bump();
                Tok::Punct(c.to_string())
            }
        };
        out.push(Token { tok, line });
    }
    out
}

fn is_punct(t: Option<&Token>, p: &str) -> bool {
    matches!(t, Some(Token { tok: Tok::Punct(q), .. }) if q == p)
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token { tok: Tok::Ident(s), .. }) => Some(s),
        _ => None,
    }
}

/// The index of the bracket closing the one at `open` (`(`, `[` or `{`), or the end.
fn closing(toks: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if let Tok::Punct(p) = &t.tok {
            match p.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return k;
                    }
                }
                _ => {}
            }
        }
    }
    toks.len()
}

/// The heads of the use tree or path starting at `i` (just after `crate::` or `super::`): the
/// first segment of a path, or the first segment of every item of a `{...}` group, nested groups
/// included. `self`, `super` and `*` heads are left out.
pub fn tree_heads(toks: &[Token], i: usize) -> Vec<(String, u32)> {
    match toks.get(i) {
        Some(Token { tok: Tok::Ident(s), line }) => {
            if s == "self" || s == "super" {
                Vec::new()
            } else {
                vec![(s.clone(), *line)]
            }
        }
        Some(Token { tok: Tok::Punct(p), .. }) if p == "{" => {
            let end = closing(toks, i);
            let mut heads = Vec::new();
            let mut item = i + 1;
            while item < end {
                heads.extend(tree_heads(toks, item));
                // on to the next `,` at this group's level
                let mut k = item;
                while k < end && !is_punct(toks.get(k), ",") {
                    if matches!(&toks[k].tok, Tok::Punct(p) if p == "{" || p == "(" || p == "[") {
                        k = closing(toks, k);
                    }
                    k += 1;
                }
                item = k + 1;
            }
            heads
        }
        _ => Vec::new(),
    }
}

/// `(name, module it comes from)` for every name a root `use` tree at `i` (just after `use`)
/// brings in; `crate::`/`self::` prefixes are skipped, so the module is the first real segment.
fn use_leaves(toks: &[Token], i: &mut usize, head: Option<String>, out: &mut Vec<(String, String)>) {
    let mut head = head;
    let mut last: Option<String> = None;
    while let Some(t) = toks.get(*i) {
        match &t.tok {
            Tok::Ident(s) if s == "as" => {
                *i += 1;
                if let Some(alias) = ident(toks.get(*i)) {
                    last = Some(alias.to_string());
                    *i += 1;
                }
            }
            Tok::Ident(s) => {
                if head.is_none() && s != "crate" && s != "self" {
                    head = Some(s.clone());
                }
                last = Some(s.clone());
                *i += 1;
            }
            Tok::Punct(p) if p == "::" || p == "*" => {
                last = None;
                *i += 1;
            }
            Tok::Punct(p) if p == "{" => {
                *i += 1;
                loop {
                    let before = *i;
                    use_leaves(toks, i, head.clone(), out);
                    if is_punct(toks.get(*i), ",") {
                        *i += 1;
                    }
                    if is_punct(toks.get(*i), "}") {
                        *i += 1;
                        break;
                    }
                    if *i == before || *i >= toks.len() {
                        break;
                    }
                }
                last = None;
            }
            _ => break,
        }
    }
    if let (Some(h), Some(l)) = (head, last)
        && l != "self"
    {
        out.push((l, h));
    }
}

/// Where an edge comes from: every (file, 1-based line) of a path that creates it.
pub type Places = Vec<(PathBuf, u32)>;

/// A top-level module of a crate.
#[derive(Debug, Clone)]
pub struct TopModule {
    /// Whether it is test code (left out of the graph).
    pub test: bool,
}

/// A path in the files of top-level module `from` that may name another top-level module.
#[derive(Debug, Clone)]
struct Reference {
    from: String,
    head: String,
    file: PathBuf,
    line: u32,
}

/// What one crate's sources say about its modules.
#[derive(Debug, Default)]
pub struct CrateScan {
    /// The top-level modules by name.
    pub top: BTreeMap<String, TopModule>,
    /// Names the root file re-exports, and the top-level module each comes from.
    root_uses: HashMap<String, String>,
    refs: Vec<Reference>,
    /// Every file read, the root first.
    pub files: Vec<PathBuf>,
    /// Every identifier outside test code, with its file and line (for checks of which names a
    /// crate's code may use).
    pub idents: Vec<(PathBuf, u32, String)>,
}

struct Scope {
    file: PathBuf,
    /// Where the files of this scope's `mod x;` items are (`x.rs`, `x/mod.rs`).
    child_dir: PathBuf,
    /// The module path from the crate root (empty for the root).
    path: Vec<String>,
    test: bool,
}

fn is_cfg_test(attr: &[Token]) -> bool {
    ident(attr.first()) == Some("cfg")
        && attr.iter().any(|t| ident(Some(t)) == Some("test"))
        && !attr.iter().any(|t| ident(Some(t)) == Some("not"))
}

impl CrateScan {
    /// Scans the crate whose root file is `root`, reading files with `read` (`None`: no such file).
    ///
    /// Errors: a `mod x;` whose file is found neither as `x.rs` nor `x/mod.rs`, or one with `#[path]`.
    pub fn scan(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Result<CrateScan, String> {
        let src = read(root).ok_or_else(|| format!("cannot read {}", root.display()))?;
        let mut scan = CrateScan::default();
        scan.files.push(root.to_path_buf());
        let scope = Scope {
            file: root.to_path_buf(),
            child_dir: root.parent().unwrap_or(Path::new("")).to_path_buf(),
            path: Vec::new(),
            test: false,
        };
        scan.scope(&lex(&src), scope, read)?;
        Ok(scan)
    }

    fn scope(
        &mut self,
        toks: &[Token],
        mut scope: Scope,
        read: &dyn Fn(&Path) -> Option<String>,
    ) -> Result<(), String> {
        let mut pending_test = false;
        let mut pending_path = false;
        // the index of the `]` closing the last attribute met
        let mut attr_end: Option<usize> = None;
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            match &t.tok {
                Tok::Punct(p) if p == "#" => {
                    let inner = is_punct(toks.get(i + 1), "!");
                    let open = if inner { i + 2 } else { i + 1 };
                    if is_punct(toks.get(open), "[") {
                        let close = closing(toks, open);
                        let attr = &toks[open + 1..close.min(toks.len())];
                        if inner {
                            scope.test |= is_cfg_test(attr);
                        } else {
                            pending_test |= is_cfg_test(attr);
                            pending_path |= ident(attr.first()) == Some("path");
                        }
                        // on into the attribute: its paths (`body = crate::x::Y`) are references too
                        attr_end = Some(close);
                        i = open + 1;
                        continue;
                    }
                }
                Tok::Ident(s) if s == "pub" => {
                    i += 1;
                    if is_punct(toks.get(i), "(") {
                        i = closing(toks, i) + 1;
                    }
                    continue;
                }
                Tok::Ident(s) if s == "mod" => {
                    if let Some(name) = ident(toks.get(i + 1)) {
                        let name = name.to_string();
                        let test = scope.test || pending_test || name == "tests" || name.ends_with("_tests");
                        if pending_path && test && is_punct(toks.get(i + 2), ";") {
                            // Test code adds no edge, so a `#[path]` test module is not followed.
                            pending_test = false;
                            pending_path = false;
                            i += 3;
                            continue;
                        }
                        if pending_path {
                            return Err(format!(
                                "{}:{}: `#[path]` on `mod {name}` is not supported by the module scanner",
                                scope.file.display(),
                                t.line
                            ));
                        }
                        let mut path = scope.path.clone();
                        path.push(name.clone());
                        if scope.path.is_empty() {
                            self.top.insert(name.clone(), TopModule { test });
                        }
                        if is_punct(toks.get(i + 2), ";") {
                            let dir = scope.child_dir.join(&name);
                            let flat = scope.child_dir.join(format!("{name}.rs"));
                            let nested = dir.join("mod.rs");
                            let (file, src) = match read(&flat) {
                                Some(src) => (flat, src),
                                None => match read(&nested) {
                                    Some(src) => (nested, src),
                                    None => {
                                        return Err(format!(
                                            "{}:{}: `mod {name};` but neither {} nor {} exists",
                                            scope.file.display(),
                                            t.line,
                                            flat.display(),
                                            nested.display()
                                        ));
                                    }
                                },
                            };
                            self.files.push(file.clone());
                            self.scope(&lex(&src), Scope { file, child_dir: dir, path, test }, read)?;
                            i += 3;
                        } else if is_punct(toks.get(i + 2), "{") {
                            let close = closing(toks, i + 2);
                            let inner =
                                Scope { file: scope.file.clone(), child_dir: scope.child_dir.join(&name), path, test };
                            self.scope(&toks[i + 3..close.min(toks.len())], inner, read)?;
                            i = close + 1;
                        } else {
                            i += 1;
                        }
                        pending_test = false;
                        pending_path = false;
                        continue;
                    }
                }
                Tok::Ident(s) if s == "use" && scope.path.is_empty() => {
                    let mut k = i + 1;
                    let mut leaves = Vec::new();
                    use_leaves(toks, &mut k, None, &mut leaves);
                    self.root_uses.extend(leaves);
                }
                Tok::Ident(s) if (s == "crate" || s == "super") && !is_punct(toks.get(i.wrapping_sub(1)), "::") => {
                    self.path_at(toks, i, &scope);
                }
                Tok::Ident(s) if !scope.test && !pending_test => {
                    self.idents.push((scope.file.clone(), t.line, s.clone()));
                }
                _ => {}
            }
            if attr_end.is_none_or(|end| i > end) {
                pending_test = false;
                pending_path = false;
            }
            i += 1;
        }
        Ok(())
    }

    /// Records the references of the path starting at `crate`/`super` token `i`, if it reaches
    /// the crate root from a non-test scope inside a top-level module.
    fn path_at(&mut self, toks: &[Token], i: usize, scope: &Scope) {
        if scope.path.is_empty() || scope.test {
            return;
        }
        let mut k = i;
        let mut depth = scope.path.len();
        if ident(toks.get(k)) == Some("crate") {
            if !is_punct(toks.get(k + 1), "::") {
                return;
            }
            depth = 0;
            k += 2;
        } else {
            while ident(toks.get(k)) == Some("super") && is_punct(toks.get(k + 1), "::") {
                if depth == 0 {
                    return;
                }
                depth -= 1;
                k += 2;
            }
        }
        if depth != 0 {
            return;
        }
        for (head, line) in tree_heads(toks, k) {
            self.refs.push(Reference { from: scope.path[0].clone(), head, file: scope.file.clone(), line });
        }
    }

    /// The module graph: for every edge `(from, to)` between two non-test top-level modules, the
    /// places (file, line) that create it.
    pub fn edges(&self) -> BTreeMap<(String, String), Places> {
        let node = |m: &str| self.top.get(m).is_some_and(|t| !t.test);
        let mut edges: BTreeMap<(String, String), Places> = BTreeMap::new();
        for r in &self.refs {
            let to = if self.top.contains_key(&r.head) {
                Some(r.head.as_str())
            } else {
                self.root_uses.get(&r.head).map(String::as_str).filter(|m| self.top.contains_key(*m))
            };
            if let Some(to) = to
                && to != r.from
                && node(to)
                && node(&r.from)
            {
                edges.entry((r.from.clone(), to.to_string())).or_default().push((r.file.clone(), r.line));
            }
        }
        edges
    }

    /// The cycles of the module graph: every strongly connected component of two modules or
    /// more, with the edges inside it and one shortest cycle through its first module.
    pub fn cycles(&self) -> Vec<Cycle> {
        let edges = self.edges();
        let mut adj: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (name, m) in &self.top {
            if !m.test {
                adj.entry(name).or_default();
            }
        }
        for (from, to) in edges.keys() {
            adj.entry(from).or_default().insert(to);
        }
        strongly_connected(&adj)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|modules| {
                let inside = edges
                    .iter()
                    .filter(|((f, t), _)| modules.contains(f.as_str()) && modules.contains(t.as_str()))
                    .map(|((f, t), at)| (f.clone(), t.clone(), at.clone()))
                    .collect();
                let example = shortest_cycle(&adj, &modules);
                Cycle { modules: modules.iter().map(|m| m.to_string()).collect(), edges: inside, example }
            })
            .collect()
    }
}

/// Tarjan's algorithm: the strongly connected components of `adj`, each a set of nodes.
pub fn strongly_connected<'a>(adj: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<BTreeSet<&'a str>> {
    struct State<'a> {
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<&'a str>>,
    }
    fn visit<'a>(v: &'a str, adj: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in adj.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, adj, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let mut s = State {
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in adj.keys() {
        if !s.index.contains_key(v) {
            visit(v, adj, &mut s);
        }
    }
    s.out.sort();
    s.out
}

/// A shortest cycle through the first module of `component` (breadth first, inside it).
fn shortest_cycle(adj: &BTreeMap<&str, BTreeSet<&str>>, component: &BTreeSet<&str>) -> Vec<String> {
    let Some(&start) = component.first() else { return Vec::new() };
    let mut parent: HashMap<&str, &str> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in adj.get(v).into_iter().flatten().filter(|w| component.contains(*w)) {
            if w == start {
                let mut path = vec![v];
                while let Some(&p) = parent.get(path[path.len() - 1]) {
                    path.push(p);
                }
                path.reverse();
                path.push(start);
                return path.into_iter().map(str::to_string).collect();
            }
            if w != start && !parent.contains_key(w) {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    Vec::new()
}

/// A cycle among a crate's top-level modules.
#[derive(Debug, Clone)]
pub struct Cycle {
    /// The modules of the strongly connected component, sorted.
    pub modules: BTreeSet<String>,
    /// Every edge inside the component, `(from, to, places)`.
    pub edges: Vec<(String, String, Places)>,
    /// One shortest cycle, first module first and last.
    pub example: Vec<String>,
}

impl Cycle {
    /// The report of the cycle, file paths shown relative to `base`.
    pub fn describe(&self, base: &Path) -> String {
        struct D<'a>(&'a Cycle, &'a Path);
        impl fmt::Display for D<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let D(c, base) = self;
                let names: Vec<&str> = c.modules.iter().map(String::as_str).collect();
                writeln!(f, "  cycle {{{}}}, e.g. {}", names.join(", "), c.example.join(" -> "))?;
                for (from, to, at) in &c.edges {
                    let mut by_file: BTreeMap<&Path, Vec<String>> = BTreeMap::new();
                    for (file, line) in at {
                        by_file.entry(file.strip_prefix(base).unwrap_or(file)).or_default().push(line.to_string());
                    }
                    let places: Vec<String> =
                        by_file.iter().map(|(file, lines)| format!("{}:{}", file.display(), lines.join(","))).collect();
                    writeln!(f, "    {from} -> {to}: {}", places.join(" "))?;
                }
                Ok(())
            }
        }
        D(self, base).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(files: &[(&str, &str)]) -> CrateScan {
        let files: HashMap<PathBuf, String> = files.iter().map(|(p, s)| (PathBuf::from(p), s.to_string())).collect();
        CrateScan::scan(Path::new("src/lib.rs"), &|p| files.get(p).cloned()).expect("scan")
    }

    fn cycle_sets(scan: &CrateScan) -> Vec<Vec<String>> {
        scan.cycles().into_iter().map(|c| c.modules.into_iter().collect()).collect()
    }

    #[test]
    fn a_cycle_is_found_with_its_places() {
        let s = scan(&[
            ("src/lib.rs", "pub mod a;\nmod b;\nmod c;\n"),
            ("src/a.rs", "use crate::b::X;\n"),
            ("src/b.rs", "pub struct X;\n\npub fn f() {\n    crate::a::g();\n}\n"),
            ("src/c.rs", "use super::a;\n"),
        ]);
        let cycles = s.cycles();
        assert_eq!(cycle_sets(&s), vec![vec!["a".to_string(), "b".to_string()]]);
        assert_eq!(cycles[0].example, ["a", "b", "a"]);
        let text = cycles[0].describe(Path::new(""));
        assert!(text.contains("a -> b: src/a.rs:1"), "{text}");
        assert!(text.contains("b -> a: src/b.rs:4"), "{text}");
    }

    #[test]
    fn a_dag_passes_and_comments_and_strings_are_not_code() {
        let s = scan(&[
            ("src/lib.rs", "//! [`crate::c`]\nmod a;\nmod b;\nmod c;\n"),
            ("src/a.rs", "use crate::b;\n"),
            ("src/b.rs", "use crate::c::Y;\n"),
            (
                "src/c.rs",
                "/// See [`crate::a::X`].\n// crate::a\n/* outer /* crate::a */ crate::b */\n\
                 const S: &str = \"crate::a::X\";\nconst R: &str = r#\"use crate::a; \"#;\n\
                 const Q: char = '\"';\nfn f<'a>(x: &'a str) -> &'a str { x }\nconst B: &[u8] = b\"crate::b\";\n",
            ),
        ]);
        assert!(s.cycles().is_empty(), "{:?}", cycle_sets(&s));
        assert_eq!(s.edges().len(), 2);
    }

    #[test]
    fn use_groups_nested_at_any_depth_name_every_head() {
        let toks = lex("use crate::{a::{b, c}, d, self, e::{f::{g}}, *};");
        let heads: Vec<String> = tree_heads(&toks, 3).into_iter().map(|(h, _)| h).collect();
        assert_eq!(heads, ["a", "d", "e"]);
        let s = scan(&[
            ("src/lib.rs", "mod a;\nmod d;\nmod x;\n"),
            ("src/a.rs", ""),
            ("src/d.rs", "use crate::x;\n"),
            ("src/x.rs", "use crate::{a::{b, c}, d};\n"),
        ]);
        let edges: Vec<(String, String)> = s.edges().into_keys().collect();
        assert_eq!(edges, [("d".into(), "x".into()), ("x".into(), "a".into()), ("x".into(), "d".into())]);
        assert_eq!(cycle_sets(&s), vec![vec!["d".to_string(), "x".to_string()]]);
    }

    #[test]
    fn super_reaches_the_root_only_from_the_right_depth() {
        let s = scan(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("src/a/mod.rs", "mod inner;\nuse super::c;\n"),
            ("src/a/inner.rs", "use super::super::b::X;\nuse super::Y;\nmod deeper { use super::super::c::Z; }\n"),
            ("src/b.rs", "mod nested { use super::super::a::Y; }\nfn f() { super::c::g() }\n"),
            ("src/c.rs", "pub(super) fn g() {}\n"),
        ]);
        let edges: Vec<(String, String)> = s.edges().into_keys().collect();
        assert_eq!(
            edges,
            [("a".into(), "b".into()), ("a".into(), "c".into()), ("b".into(), "a".into()), ("b".into(), "c".into())]
        );
        assert_eq!(cycle_sets(&s), vec![vec!["a".to_string(), "b".to_string()]]);
    }

    #[test]
    fn test_modules_are_left_out_of_the_graph() {
        let s = scan(&[
            (
                "src/lib.rs",
                "mod a;\nmod b;\n#[cfg(test)]\nmod c;\nmod d_tests;\n#[cfg(test)]\nmod tests { use crate::a; }\n",
            ),
            (
                "src/a.rs",
                "use crate::b;\n#[cfg(test)]\nmod tests { use crate::b; use crate::c; }\n#[cfg(test)]\nmod more;\n",
            ),
            ("src/a/more.rs", "use crate::c;\n"),
            ("src/b.rs", "#[cfg(all(test, unix))]\nmod unix { use crate::a; }\nmod b_tests;\n"),
            ("src/b/b_tests.rs", "use crate::a;\n"),
            ("src/c.rs", "use crate::{a, b};\n"),
            ("src/d_tests.rs", "use crate::{a, b};\n"),
        ]);
        assert!(s.top["c"].test && s.top["d_tests"].test && s.top["tests"].test && !s.top["a"].test);
        let edges: Vec<(String, String)> = s.edges().into_keys().collect();
        assert_eq!(edges, [("a".into(), "b".into())]);
        assert!(s.cycles().is_empty());
    }

    #[test]
    fn a_name_the_root_reexports_points_at_its_module() {
        let s = scan(&[
            (
                "src/lib.rs",
                "mod a;\nmod b;\npub use b::{Thing, other::Other as Renamed};\npub use std::fmt::Display;\n",
            ),
            ("src/a.rs", "use crate::{Renamed, Display};\n"),
            ("src/b.rs", "pub struct Thing;\nfn f() -> crate::a::X { todo!() }\n"),
        ]);
        assert_eq!(cycle_sets(&s), vec![vec!["a".to_string(), "b".to_string()]]);
    }

    #[test]
    fn paths_inside_attributes_are_references() {
        let s = scan(&[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            (
                "src/a.rs",
                "#[doc = \"crate::b\"]\n#[utoipa::path(get, responses((status = 200, body = crate::b::X)))]\nfn f() {}\n",
            ),
            ("src/b.rs", ""),
        ]);
        let edges: Vec<((String, String), Places)> = s.edges().into_iter().collect();
        assert_eq!(edges, [(("a".into(), "b".into()), vec![(PathBuf::from("src/a.rs"), 2)])]);
    }

    #[test]
    fn a_missing_module_file_or_a_path_attribute_is_an_error() {
        let files: HashMap<PathBuf, String> = [("src/lib.rs", "mod gone;\n")].map(|(p, s)| (p.into(), s.into())).into();
        let err = CrateScan::scan(Path::new("src/lib.rs"), &|p| files.get(p).cloned()).unwrap_err();
        assert!(err.contains("src/gone.rs") && err.contains("src/gone/mod.rs"), "{err}");
        let files: HashMap<PathBuf, String> =
            [("src/lib.rs", "#[path = \"x.rs\"]\nmod y;\n")].map(|(p, s)| (p.into(), s.into())).into();
        let err = CrateScan::scan(Path::new("src/lib.rs"), &|p| files.get(p).cloned()).unwrap_err();
        assert!(err.contains("#[path]"), "{err}");
    }

    #[test]
    fn the_lexer_keeps_lines_and_drops_literals() {
        let toks = lex("a\n/* x\n y */ b \"s\ns\" c r##\"q\"#\n\"## d 'x' '\\'' 'e e\n");
        let found: Vec<(String, u32)> = toks
            .iter()
            .filter_map(|t| match &t.tok {
                Tok::Ident(s) => Some((s.clone(), t.line)),
                _ => None,
            })
            .collect();
        let expect = [("a", 1), ("b", 3), ("c", 4), ("d", 5), ("e", 5)].map(|(s, l)| (s.to_string(), l));
        assert_eq!(found, expect);
    }
}
