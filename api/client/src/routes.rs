//! The routes the client covers, one function per route, each returning the [`Call`] to send.
//! Ids are the server's own (hex digits and `-`), put into paths as they are.

use crate::Call;
use crate::types::*;
use reqwest::Method;

/// `POST /api/v1/accounts`: registers an account (organisers need the server's key, sent as
/// `X-Organiser-Key`). 201; 409 `name-taken`, 403 without the organiser key.
pub fn register(body: &RegisterBody, organiser_key: Option<&str>) -> Call<AccountView> {
    let c = Call::new(Method::POST, "/api/v1/accounts").json(body);
    match organiser_key {
        Some(k) => c.header("X-Organiser-Key", k),
        None => c,
    }
}

/// `POST /api/v1/auth/token`: logs in. 401 on a wrong name or password.
pub fn login(name: &str, password: &str) -> Call<TokenPair> {
    Call::new(Method::POST, "/api/v1/auth/token")
        .json(&LoginBody { name: name.to_string(), password: password.to_string() })
}

/// `POST /api/v1/tables`: creates a practice table (201).
pub fn create_table(body: &CreateTableBody) -> Call<TableResponse> {
    Call::new(Method::POST, "/api/v1/tables").json(body)
}

/// `GET /api/v1/tables/{table}`: the table and the caller's view.
pub fn get_table(table: &str) -> Call<TableResponse> {
    Call::new(Method::GET, format!("/api/v1/tables/{table}"))
}

/// `POST /api/v1/tables/{table}/seats`: takes a seat (`seat`, or the first free one).
pub fn take_seat(table: &str, seat: Option<u8>) -> Call<SeatTakenResponse> {
    Call::new(Method::POST, format!("/api/v1/tables/{table}/seats")).json(&SeatBody { seat, bot: None })
}

/// `POST /api/v1/tables/{table}/start`: starts a full table (its creator).
pub fn start_table(table: &str) -> Call<TableResponse> {
    Call::new(Method::POST, format!("/api/v1/tables/{table}/start")).json(&Empty {})
}

/// `GET /api/v1/tables/{table}/prompt[?seat=N]`: the open prompt of `seat` (or of the caller's
/// only seat).
pub fn prompt(table: &str, seat: Option<u8>) -> Call<PromptResponse> {
    let q = seat.map(|x| format!("?seat={x}")).unwrap_or_default();
    Call::new(Method::GET, format!("/api/v1/tables/{table}/prompt{q}"))
}

/// `POST /api/v1/tables/{table}/answers` with the `Idempotency-Key` `key` (a retry with the
/// same key acts once). 409 `stale-prompt` when the decision point moved meanwhile.
pub fn answer(table: &str, body: &AnswerBody, key: &str) -> Call<TableResponse> {
    Call::new(Method::POST, format!("/api/v1/tables/{table}/answers")).json(body).header("Idempotency-Key", key)
}

/// `POST /api/v1/gatherings`: creates a gathering (organisers; 201).
pub fn create_gathering(body: &CreateGatheringBody) -> Call<GatheringSummary> {
    Call::new(Method::POST, "/api/v1/gatherings").json(body)
}

/// `GET /api/v1/gatherings/{id}`.
pub fn get_gathering(id: &str) -> Call<GatheringSummary> {
    Call::new(Method::GET, format!("/api/v1/gatherings/{id}"))
}

/// `POST /api/v1/gatherings/{id}/bots`: registers built-in bots.
pub fn add_bots(id: &str, body: &AddBotsBody) -> Call<BotsAdded> {
    Call::new(Method::POST, format!("/api/v1/gatherings/{id}/bots")).json(body)
}

/// `POST /api/v1/gatherings/{id}/start`: draws the first stage and starts its circles.
pub fn start_gathering(id: &str) -> Call<GatheringSummary> {
    Call::new(Method::POST, format!("/api/v1/gatherings/{id}/start")).json(&Empty {})
}

/// `GET /api/v1/gatherings/{id}/bracket`.
pub fn bracket(id: &str) -> Call<Bracket> {
    Call::new(Method::GET, format!("/api/v1/gatherings/{id}/bracket"))
}

/// `GET /api/v1/gatherings/{id}/standings`: the first 100 rows.
pub fn standings(id: &str) -> Call<Vec<Standing>> {
    Call::new(Method::GET, format!("/api/v1/gatherings/{id}/standings"))
}

/// `GET /api/v1/gatherings/{id}/standings?offset&limit&player`: a page of the standings.
pub fn standings_page(id: &str, q: &StandingsQuery) -> Call<Vec<Standing>> {
    let mut query = Vec::new();
    push(&mut query, "offset", q.offset);
    push(&mut query, "limit", q.limit);
    push(&mut query, "player", q.player.as_deref());
    Call::new(Method::GET, format!("/api/v1/gatherings/{id}/standings{}", joined(&query)))
}

/// `GET /api/v1/gatherings/{id}/bracket?stage&offset&limit&player`: the bracket with a window
/// of each stage's circles.
pub fn bracket_window(id: &str, q: &BracketQuery) -> Call<Bracket> {
    let mut query = Vec::new();
    push(&mut query, "stage", q.stage);
    push(&mut query, "offset", q.offset);
    push(&mut query, "limit", q.limit);
    push(&mut query, "player", q.player.as_deref());
    Call::new(Method::GET, format!("/api/v1/gatherings/{id}/bracket{}", joined(&query)))
}

/// `POST /api/v1/gatherings/{id}/roster`: registers existing accounts, all or nothing (201;
/// 422 `roster-refused` lists the refused rows).
pub fn roster(id: &str, body: &RosterBody) -> Call<RosterAnswer> {
    Call::new(Method::POST, format!("/api/v1/gatherings/{id}/roster")).json(body)
}

/// `GET /api/v1/gatherings/{id}/registrations/{name}`: one registration (404 when `name` is
/// not registered).
pub fn registration(id: &str, name: &str) -> Call<RegistrationStatus> {
    Call::new(Method::GET, format!("/api/v1/gatherings/{id}/registrations/{name}"))
}

/// Adds `key=value` to a query when there is a value (account names and numbers need no
/// escaping).
fn push(query: &mut Vec<String>, key: &str, value: Option<impl std::fmt::Display>) {
    if let Some(v) = value {
        query.push(format!("{key}={v}"));
    }
}

fn joined(query: &[String]) -> String {
    if query.is_empty() { String::new() } else { format!("?{}", query.join("&")) }
}
