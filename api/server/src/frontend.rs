//! The web UI: the files of `frontend/public/`, embedded in the binary (debug builds too, so the
//! browser tests serve exactly what ships; `build.rs` rebuilds when a file changes), served at `/`
//! with their content types, ETags, a Content-Security-Policy that keeps the page on this origin,
//! and a single-page-app fallback that never answers for the API's own paths.

use crate::problem::Problem;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, http::Method};
use base64::Engine;
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The UI's files.
#[derive(RustEmbed)]
#[folder = "../../frontend/public/"]
struct Assets;

/// Paths the UI never answers for: they belong to the API and the operators' endpoints, and an
/// unknown path under them stays a problem document (404), not the UI's page.
const RESERVED: [&str; 6] = ["/api", "/docs", "/openapi.json", "/healthz", "/readyz", "/metrics"];

/// Whether `path` is one of [`RESERVED`] or lies under one.
pub fn reserved(path: &str) -> bool {
    RESERVED.iter().any(|r| path == *r || path.strip_prefix(r).is_some_and(|rest| rest.starts_with('/')))
}

/// The content type of a file, by extension.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).as_deref() {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        Some("webmanifest") => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

/// The page's Content-Security-Policy: everything from this origin only, and the page's one
/// inline script (its import map) allowed by hash.
fn csp() -> &'static str {
    static CSP: OnceLock<String> = OnceLock::new();
    CSP.get_or_init(|| {
        let index =
            Assets::get("index.html").map(|f| String::from_utf8_lossy(&f.data).into_owned()).unwrap_or_default();
        let hashes: String = inline_scripts(&index)
            .iter()
            .map(|s| format!(" 'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(s))))
            .collect();
        format!(
            "default-src 'self'; script-src 'self'{hashes}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
             connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; \
             frame-ancestors 'none'"
        )
    })
}

/// The bodies of the inline `<script …>…</script>` elements of `html` (those without `src`).
fn inline_scripts(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else { break };
        let tag = &after[..open_end];
        let body_start = open_end + 1;
        let Some(close) = after[body_start..].find("</script>") else { break };
        if !tag.contains("src=") {
            out.push(&after[body_start..body_start + close]);
        }
        rest = &after[body_start + close..];
    }
    out
}

fn file_response(req: &HttpRequest, path: &str, file: rust_embed::EmbeddedFile) -> HttpResponse {
    let etag = format!("\"{}\"", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(file.metadata.sha256_hash()));
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut res = if fresh { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    res.insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"));
    if path.ends_with(".html") {
        res.insert_header((header::CONTENT_SECURITY_POLICY, csp()));
    }
    if fresh || req.method() == Method::HEAD {
        return res.content_type(content_type(path)).finish();
    }
    res.content_type(content_type(path)).body(file.data.into_owned())
}

/// Serves the UI for any GET or HEAD request the API's routes did not take: the file at that path,
/// else (for a page path, not a file or a reserved path) `index.html`, which routes in the browser.
pub async fn serve(req: HttpRequest) -> Result<HttpResponse, Problem> {
    let path = req.path();
    if !(req.method() == Method::GET || req.method() == Method::HEAD) || reserved(path) {
        // A documented API path asked with another method: 405 with the methods it takes.
        if let Some(res) = crate::openapi::method_not_allowed(req.method(), path) {
            return Ok(res);
        }
        return Err(Problem::not_found("no such route"));
    }
    let rel = path.trim_start_matches('/');
    if !rel.is_empty()
        && !rel.split('/').any(|seg| seg == ".." || seg.starts_with('.'))
        && let Some(file) = Assets::get(rel)
    {
        return Ok(file_response(&req, rel, file));
    }
    // A missing file (a path whose last segment has an extension) is a 404, not the page.
    let last = rel.rsplit('/').next().unwrap_or_default();
    if last.contains('.') {
        return Err(Problem::not_found("no such file"));
    }
    match Assets::get("index.html") {
        Some(file) => Ok(file_response(&req, "index.html", file)),
        None => Err(Problem::not_found("the web UI is not built into this binary")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_paths_stay_with_the_api() {
        for p in ["/api", "/api/v1/tables", "/docs", "/docs/", "/openapi.json", "/healthz", "/readyz", "/metrics"] {
            assert!(reserved(p), "{p}");
        }
        for p in ["/", "/apiary", "/tables/abc", "/gatherings/x", "/docsy", "/metrics-page"] {
            assert!(!reserved(p), "{p}");
        }
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("src/main.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("app.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("favicon.svg"), "image/svg+xml");
    }

    #[test]
    fn the_ui_is_there_with_its_import_map_hashed() {
        let index = Assets::get("index.html").expect("index.html");
        let html = String::from_utf8_lossy(&index.data).into_owned();
        assert_eq!(inline_scripts(&html).len(), 1, "exactly one inline script: the import map");
        assert!(csp().contains("'sha256-"));
        for f in ["src/main.js", "app.css", "vendor/preact.module.js", "vendor/hooks.module.js", "vendor/htm.module.js"]
        {
            assert!(Assets::get(f).is_some(), "{f} is embedded");
        }
    }
}
