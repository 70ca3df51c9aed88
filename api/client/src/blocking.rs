//! The blocking client (feature `blocking`), for tools and tests without an async runtime. Do
//! not use it inside one (`reqwest::blocking` refuses).

use crate::{Call, Error, POSITION_HEADER, Seen, decode, retry_after};
use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use std::time::Duration;

/// A blocking client of one server; see [`crate::Client`].
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::blocking::Client,
    base: String,
    token: Option<String>,
    retries: u32,
    seen: Seen,
}

impl Client {
    /// A client of the server at `base` (`http://127.0.0.1:8080`) with a 30 s time-out.
    pub fn new(base: &str) -> Client {
        let http =
            reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().expect("an HTTP client");
        Client::with_http(http, base)
    }

    /// A client of the server at `base` over `http`.
    pub fn with_http(http: reqwest::blocking::Client, base: &str) -> Client {
        Client { http, base: base.trim_end_matches('/').to_string(), token: None, retries: 0, seen: Seen::default() }
    }

    /// The same client, sending `token` as its bearer token.
    pub fn with_token(&self, token: &str) -> Client {
        Client { token: Some(token.to_string()), ..self.clone() }
    }

    /// The same client, sending a request refused with 429 `rate-limited` again after its
    /// `Retry-After` (1-5 s), up to `tries` times.
    pub fn retry_rate_limited(mut self, tries: u32) -> Client {
        self.retries = tries;
        self
    }

    /// The server's root URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Sends `call` and decodes its answer.
    pub fn send<R: DeserializeOwned>(&self, call: Call<R>) -> Result<R, Error> {
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
            let resp = req.send().map_err(|source| Error::Transport { url: url.clone(), source })?;
            self.seen.note(resp.headers());
            let status = resp.status();
            if status == StatusCode::TOO_MANY_REQUESTS && tries < self.retries {
                tries += 1;
                std::thread::sleep(retry_after(resp.headers()));
                continue;
            }
            let body = resp.bytes().map_err(|source| Error::Transport { url: url.clone(), source })?;
            return decode(&url, status, &body);
        }
    }
}

/// The HTTP client type [`Client::with_http`] takes (`reqwest::blocking::Client`), so that
/// callers need no reqwest dependency of their own.
pub type Http = reqwest::blocking::Client;
