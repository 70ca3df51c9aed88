//! A typed client of the Flicker REST API (`/api/v1`, described by the committed
//! `openapi/openapi.json`).
//!
//! A route is a [`Call`]: method, path, typed JSON body and the type of its answer, built by a
//! function of [`routes`] (`routes::login(name, password)`). A [`Client`] (async) or, with the
//! `blocking` feature, a [`blocking::Client`] sends it with the client's bearer token and decodes
//! the answer, or the problem document (RFC 9457) of a refusal into [`Error::Status`]. Request
//! bodies and answers are the server's own types ([`types`], from `flicker_wire`); game types
//! (prompts, answers, views) are the hosted game's.
//!
//! The client does not depend on the server (nor on actix-web).

pub mod routes;
pub mod types;

/// The HTTP client type [`Client::with_http`] takes (`reqwest::Client`).
pub type Http = reqwest::Client;

#[cfg(feature = "blocking")]
pub mod blocking;

use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use std::marker::PhantomData;
use std::time::Duration;
pub use types::Problem;

/// One request of the API and the type `R` of its successful answer.
#[derive(Debug, Clone)]
pub struct Call<R> {
    /// HTTP method.
    pub method: reqwest::Method,
    /// Path from the server's root, with its query (`/api/v1/tables/{id}/prompt?seat=0`).
    pub path: String,
    /// The JSON body, serialized.
    pub body: Option<Vec<u8>>,
    /// Extra headers (`Idempotency-Key`, `X-Organiser-Key`).
    pub headers: Vec<(&'static str, String)>,
    answer: PhantomData<fn() -> R>,
}

impl<R> Call<R> {
    /// A call without a body.
    pub fn new(method: reqwest::Method, path: impl Into<String>) -> Call<R> {
        Call { method, path: path.into(), body: None, headers: Vec::new(), answer: PhantomData }
    }

    /// With the JSON body `body`.
    pub fn json<B: serde::Serialize + ?Sized>(mut self, body: &B) -> Call<R> {
        self.body = Some(serde_json::to_vec(body).expect("request bodies serialize"));
        self
    }

    /// The same request, its answer decoded as untyped JSON (for tools that read a few fields
    /// of a large answer, such as the load bench reading the view of an answer's response).
    pub fn into_json(self) -> Call<serde_json::Value> {
        Call { method: self.method, path: self.path, body: self.body, headers: self.headers, answer: PhantomData }
    }

    /// With the header `name: value`.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Call<R> {
        self.headers.push((name, value.into()));
        self
    }
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No answer: connection refused, time-out, ...
    #[error("{url}: {source}")]
    Transport {
        /// The URL called.
        url: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// A refusal (4xx, 5xx) with its problem document (empty fields when the body was not one).
    #[error("{url}: {status}: {}", problem.detail.as_deref().unwrap_or(""))]
    Status {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: StatusCode,
        /// The problem document.
        problem: Problem,
    },
    /// A successful answer that is not the documented JSON.
    #[error("{url}: unexpected answer: {source}")]
    Decode {
        /// The URL called.
        url: String,
        /// Why it did not decode.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// The HTTP status of a refusal.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The problem document of a refusal.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            Error::Status { problem, .. } => Some(problem),
            _ => None,
        }
    }
}

/// How long to wait before sending a request refused with 429 again: its `Retry-After` in
/// seconds, clamped to 1-5 s.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Duration {
    let secs = headers.get("retry-after").and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    Duration::from_secs(secs.unwrap_or(1).clamp(1, 5))
}

/// Decodes an answer: `R` from a successful body (an empty body reads as `null`), else the
/// problem document.
fn decode<R: DeserializeOwned>(url: &str, status: StatusCode, body: &[u8]) -> Result<R, Error> {
    if status.is_success() {
        let body = if body.is_empty() { b"null".as_slice() } else { body };
        serde_json::from_slice(body).map_err(|source| Error::Decode { url: url.to_string(), source })
    } else {
        let problem = serde_json::from_slice(body).unwrap_or_default();
        Err(Error::Status { url: url.to_string(), status, problem })
    }
}

/// The latest read-your-writes token a client got (the `Flicker-Position` header), shared by
/// its clones and sent with each request, so that a server process behind a load balancer
/// answers as of at least what another process showed this client (PostgreSQL; see the
/// server's docs/scaling.md).
#[derive(Debug, Clone, Default)]
struct Seen(std::sync::Arc<std::sync::Mutex<Option<String>>>);

/// The header [`Seen`] reads and sends.
const POSITION_HEADER: &str = "flicker-position";

impl Seen {
    fn get(&self) -> Option<String> {
        self.0.lock().expect("seen").clone()
    }

    fn note(&self, headers: &reqwest::header::HeaderMap) {
        if let Some(t) = headers.get(POSITION_HEADER).and_then(|v| v.to_str().ok()) {
            *self.0.lock().expect("seen") = Some(t.to_string());
        }
    }
}

/// An async client of one server.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
    retries: u32,
    seen: Seen,
}

impl Client {
    /// A client of the server at `base` (`http://127.0.0.1:8080`) with a 30 s time-out.
    pub fn new(base: &str) -> Client {
        let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("an HTTP client");
        Client::with_http(http, base)
    }

    /// A client of the server at `base` over `http` (its pool, time-outs and limits).
    pub fn with_http(http: reqwest::Client, base: &str) -> Client {
        Client { http, base: base.trim_end_matches('/').to_string(), token: None, retries: 0, seen: Seen::default() }
    }

    /// The same client, sending `token` as its bearer token.
    pub fn with_token(&self, token: &str) -> Client {
        Client { token: Some(token.to_string()), ..self.clone() }
    }

    /// The same client, sending a request refused with 429 `rate-limited` again after its
    /// `Retry-After` (1-5 s), up to `tries` times (a refused request did nothing).
    pub fn retry_rate_limited(mut self, tries: u32) -> Client {
        self.retries = tries;
        self
    }

    /// The server's root URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The bearer token sent, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Sends `call` and decodes its answer.
    pub async fn send<R: DeserializeOwned>(&self, call: Call<R>) -> Result<R, Error> {
        let url = format!("{}{}", self.base, call.path);
        let mut tries = 0;
        loop {
            let mut req = self.http.request(call.method.clone(), &url);
            if let Some(t) = &self.token {
                req = req.bearer_auth(t);
            }
            for (k, v) in &call.headers {
                req = req.header(*k, v);
            }
            if let Some(b) = &call.body {
                req = req.header(reqwest::header::CONTENT_TYPE, "application/json").body(b.clone());
            }
            if let Some(seen) = self.seen.get() {
                req = req.header(POSITION_HEADER, seen);
            }
            let resp = req.send().await.map_err(|source| Error::Transport { url: url.clone(), source })?;
            self.seen.note(resp.headers());
            let status = resp.status();
            if status == StatusCode::TOO_MANY_REQUESTS && tries < self.retries {
                tries += 1;
                tokio::time::sleep(retry_after(resp.headers())).await;
                continue;
            }
            let body = resp.bytes().await.map_err(|source| Error::Transport { url: url.clone(), source })?;
            return decode(&url, status, &body);
        }
    }
}
