//! RFC 9457 problem details (`application/problem+json`) with a stable `type` per error kind.
//! Every refusal of the API goes through [`Problem`]; a refused request changes nothing.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use flicker_game::{ErrorKind, RuleError};
use serde::Serialize;
use utoipa::ToSchema;

/// The `Retry-After` (seconds) of a 503 storage-full answer.
pub const STORAGE_FULL_RETRY_SECS: u64 = 5;

/// A problem document (RFC 9457).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/stale-prompt",
    "title": "Stale prompt",
    "status": 409,
    "detail": "R10.4.2: that prompt is no longer open"
}))]
pub struct Problem {
    /// Stable identifier of the kind of problem (a relative URI, see the README).
    #[serde(rename = "type")]
    pub kind: String,
    /// Short summary of the kind.
    pub title: String,
    /// HTTP status code.
    pub status: u16,
    /// What went wrong in this case (names only what the caller may see).
    pub detail: String,
    /// For a rule violation: the rule broken (an R-id of RULES.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// For a refused roster (`roster-refused`): every refused row, in row order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<flicker_platform::gatherings::roster::RefusedRow>>)]
    pub refused: Option<Box<Refused>>,
    /// Seconds to wait before trying again, sent as the `Retry-After` header (not in the body).
    #[serde(skip)]
    pub retry_after: Option<u32>,
}

/// The refused rows of a roster (boxed in [`Problem`], which most answers send without them).
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Refused(pub Vec<flicker_platform::gatherings::roster::RefusedRow>);

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.title, self.status, self.detail)
    }
}

impl Problem {
    /// A problem of `kind` (the last segment of its type URI).
    pub fn new(status: StatusCode, kind: &str, title: &str, detail: impl Into<String>) -> Self {
        Problem {
            kind: format!("/problems/{kind}"),
            title: title.into(),
            status: status.as_u16(),
            detail: detail.into(),
            rule: None,
            refused: None,
            retry_after: None,
        }
    }

    /// This problem with a `Retry-After` of `secs` seconds.
    pub fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after = Some(u32::try_from(secs).unwrap_or(u32::MAX));
        self
    }

    /// 503 storage-full with `Retry-After`: the store has no room to write; nothing
    /// was changed, and the same request may be sent again later.
    pub fn storage_full() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage-full",
            "Storage full",
            "the event store has no room to write; nothing was changed: retry later",
        )
        .retry_after(STORAGE_FULL_RETRY_SECS)
    }

    /// 400 malformed-json.
    pub fn malformed(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "malformed-json", "Malformed JSON", detail)
    }
    /// 400 unknown-field.
    pub fn unknown_field(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "unknown-field", "Unknown field", detail)
    }
    /// 400 invalid-request.
    pub fn invalid(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid-request", "Invalid request", detail)
    }
    /// 401 unauthenticated.
    pub fn unauthenticated(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthenticated", "Unauthenticated", detail)
    }
    /// 403 forbidden.
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", "Forbidden", detail)
    }
    /// 403 wrong-seat: the caller does not hold that seat.
    pub fn wrong_seat(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "wrong-seat", "Wrong seat", detail)
    }
    /// 404 not-found.
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not-found", "Not found", detail)
    }
    /// 409 conflict (of a generic kind named by `kind`).
    pub fn conflict(kind: &str, title: &str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, kind, title, detail)
    }
    /// 500 internal.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "Internal error", detail)
    }
}

impl From<RuleError> for Problem {
    fn from(e: RuleError) -> Self {
        let detail = e.to_string();
        let mut p = match e.kind {
            ErrorKind::StalePrompt => Problem::conflict("stale-prompt", "Stale prompt", detail),
            ErrorKind::NotYourPrompt => Problem::conflict("not-your-prompt", "No open prompt for this seat", detail),
            ErrorKind::NotInPlay => Problem::conflict("not-in-play", "The game is not in play", detail),
            ErrorKind::WrongAnswer => {
                Problem::new(StatusCode::UNPROCESSABLE_ENTITY, "wrong-answer", "Answer does not fit the prompt", detail)
            }
            ErrorKind::UnknownCard => {
                Problem::new(StatusCode::UNPROCESSABLE_ENTITY, "unknown-card", "Unknown card", detail)
            }
            ErrorKind::Illegal => {
                Problem::new(StatusCode::UNPROCESSABLE_ENTITY, "rule-violation", "Rule violation", detail)
            }
            ErrorKind::BadSettings => Problem::invalid(detail),
            ErrorKind::NothingToDo => Problem::conflict("nothing-to-do", "Nothing to do", detail),
        };
        p.rule = Some(e.rule.to_string());
        p
    }
}

impl ResponseError for Problem {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
    fn error_response(&self) -> HttpResponse {
        let mut r = HttpResponse::build(self.status_code());
        if self.status == 401 {
            r.insert_header((actix_web::http::header::WWW_AUTHENTICATE, "Bearer"));
        }
        if let Some(secs) = self.retry_after {
            r.insert_header((actix_web::http::header::RETRY_AFTER, secs.to_string()));
        }
        r.content_type("application/problem+json").json(self)
    }
}

impl From<crate::store::StoreError> for Problem {
    fn from(e: crate::store::StoreError) -> Self {
        if let crate::store::StoreError::Full(_) = e {
            // Logged once by the store when it fills.
            return Problem::storage_full();
        }
        tracing::error!(error = %e, "store failure");
        Problem::internal("the event store failed; nothing was changed")
    }
}

impl From<flicker_platform::tables::TableError> for Problem {
    fn from(e: flicker_platform::tables::TableError) -> Self {
        use flicker_platform::tables::TableError as E;
        let detail = e.to_string();
        match e {
            E::NotFound { .. } => Problem::not_found(detail),
            E::WrongSeat { .. } => Problem::wrong_seat(detail),
            E::NotStarted => Problem::conflict("not-started", "Not started", detail),
            E::IdempotencyKeyReused => Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "idempotency-key-reused",
                "Idempotency key reused",
                detail,
            ),
            E::Busy => Problem::conflict("busy", "Busy", detail),
            E::CommentaryOff | E::NotOrganiser | E::CreatorSeatsBots | E::CreatorStarts | E::Spectator { .. } => {
                Problem::forbidden(detail)
            }
            E::AlreadyStarted => Problem::conflict("already-started", "Already started", detail),
            E::SeatTaken { .. } => Problem::conflict("seat-taken", "Seat taken", detail),
            E::NoSuchSeat { .. } | E::Invalid(_) => Problem::invalid(detail),
            E::TableFull => Problem::conflict("table-full", "Table full", detail),
            E::NotSeated => Problem::new(StatusCode::FORBIDDEN, "chat-not-seated", "Not seated", detail),
            E::Muted { .. } => Problem::new(StatusCode::FORBIDDEN, "chat-muted", "Muted", detail),
            E::NotModerator => Problem::forbidden(detail),
            E::ChatTooFast { retry_after } => {
                Problem::new(StatusCode::TOO_MANY_REQUESTS, "chat-too-fast", "Too fast", detail)
                    .retry_after(u64::from(retry_after))
            }
            E::ChatFull => Problem::conflict("chat-full", "Chat full", detail),
            E::ChatClosed => Problem::conflict("chat-closed", "Chat closed", detail),
            E::OutOfGame { .. } => Problem::new(StatusCode::FORBIDDEN, "chat-out-of-game", "Out of the game", detail),
            E::SeatsFree => Problem::conflict("seats-free", "Seats free", detail),
            E::Rule(r) => r.into(),
            E::Store(s) => s.into(),
        }
    }
}

impl From<flicker_platform::gatherings::GatheringRefusal> for Problem {
    fn from(e: flicker_platform::gatherings::GatheringRefusal) -> Self {
        use flicker_platform::gatherings::GatheringRefusal as E;
        let detail = e.to_string();
        match e {
            E::Started => Problem::conflict("gathering-started", "Gathering started", detail),
            E::NotStarted => Problem::conflict("gathering-not-started", "Gathering not started", detail),
            E::Over => Problem::conflict("wrong-status", "Wrong status", detail),
            E::CheckInOff => Problem::conflict("check-in-off", "No check-in", detail),
            E::NotRegistered(_) => Problem::not_found(detail),
            E::NotInPlay(_) => Problem::conflict("player-out", "Player out", detail),
            E::AlreadyBot(_) => Problem::conflict("already-bot", "Already a bot", detail),
            E::Full(_) => Problem::conflict("gathering-full", "Gathering full", detail),
            E::TooFew { .. } => Problem::conflict("too-few-players", "Too few players", detail),
        }
    }
}

impl From<flicker_platform::accounts::AccountError> for Problem {
    fn from(e: flicker_platform::accounts::AccountError) -> Self {
        use flicker_platform::accounts::AccountError as E;
        let detail = e.to_string();
        match e {
            E::InvalidName | E::ShortPassword => Problem::invalid(detail),
            E::NameTaken { .. } => Problem::conflict("name-taken", "Name taken", detail),
            E::Hashing(_) => Problem::internal(detail),
            E::Store(s) => s.into(),
        }
    }
}

/// The problem for an error response of `status` that carried no problem document
/// (answered by actix itself): a stable `type` per status (`payload-too-large`, `not-found`,
/// `method-not-allowed`, `bad-request`, ..., else `http-<status>`), and `detail` when known.
pub fn for_status(status: StatusCode, detail: Option<String>) -> Problem {
    let title = status.canonical_reason().unwrap_or("Error");
    let kind = match status.as_u16() {
        400 => "bad-request".to_string(),
        404 => "not-found".to_string(),
        405 => "method-not-allowed".to_string(),
        408 => "request-timeout".to_string(),
        411 => "length-required".to_string(),
        413 => "payload-too-large".to_string(),
        414 => "uri-too-long".to_string(),
        415 => "unsupported-media-type".to_string(),
        431 => "headers-too-large".to_string(),
        500 => "internal".to_string(),
        503 => "unavailable".to_string(),
        s => format!("http-{s}"),
    };
    let detail = match (status.as_u16(), detail) {
        (413, _) => format!("the body is larger than {} KiB", BODY_LIMIT / 1024),
        (_, Some(d)) if status.is_client_error() => d,
        _ => title.to_lowercase(),
    };
    Problem::new(status, &kind, title, detail)
}

/// Maps actix's JSON body errors to problems: unknown fields and malformed JSON apart.
pub fn json_error(err: actix_web::error::JsonPayloadError, _req: &actix_web::HttpRequest) -> actix_web::Error {
    use actix_web::error::JsonPayloadError as J;
    let p = match &err {
        J::Overflow { .. } | J::OverflowKnownLength { .. } => {
            Problem::new(StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large", "Payload too large", err.to_string())
        }
        J::ContentType => Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-media-type",
            "Unsupported media type",
            "send the body as application/json",
        ),
        J::Deserialize(e) if e.to_string().contains("unknown field") => Problem::unknown_field(e.to_string()),
        J::Deserialize(e) if e.is_data() => Problem::invalid(e.to_string()),
        J::Deserialize(e) => Problem::malformed(e.to_string()),
        other => Problem::malformed(other.to_string()),
    };
    p.into()
}

/// Maps query-string errors to problems.
pub fn query_error(err: actix_web::error::QueryPayloadError, _req: &actix_web::HttpRequest) -> actix_web::Error {
    Problem::invalid(err.to_string()).into()
}

/// Parses an optional JSON body: an empty body or `null` gives the default; anything else must
/// be valid JSON of the expected shape (a malformed body is refused, never taken as absent).
pub fn optional_json<T: serde::de::DeserializeOwned + Default>(body: &[u8]) -> Result<T, Problem> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice::<Option<T>>(body).map(Option::unwrap_or_default).map_err(|e| {
        if e.to_string().contains("unknown field") {
            Problem::unknown_field(e.to_string())
        } else if e.is_data() {
            Problem::invalid(e.to_string())
        } else {
            Problem::malformed(e.to_string())
        }
    })
}

/// The largest request body taken, JSON or not (413 problem documents past it).
pub const BODY_LIMIT: usize = 64 * 1024;
