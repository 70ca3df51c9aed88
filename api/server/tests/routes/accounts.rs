//! Accounts: registration (organisers need the server's key), access and refresh tokens, bot
//! tokens (scopes, revocation).

use super::*;
use reqwest::StatusCode;
use serde_json::json;

/// Refresh tokens work once; bot tokens are scoped and revocable.
#[test]
fn tokens_refresh_once_and_bot_tokens_revoke() {
    let s = Server::start();
    let name = format!("u{}", &uuid()[..10]);
    let c = client();
    c.post(s.url("/api/v1/accounts")).json(&json!({"name": name, "password": "password-1"})).send().unwrap();
    let (_, pair, _) = json_of(
        c.post(s.url("/api/v1/auth/token")).json(&json!({"name": name, "password": "password-1"})).send().unwrap(),
    );
    let refresh = pair["refresh_token"].as_str().unwrap();
    let (st, new_pair, _) =
        json_of(c.post(s.url("/api/v1/auth/refresh")).json(&json!({"refresh_token": refresh})).send().unwrap());
    assert_eq!(st, StatusCode::OK, "{new_pair}");
    let (st, v, _) =
        json_of(c.post(s.url("/api/v1/auth/refresh")).json(&json!({"refresh_token": refresh})).send().unwrap());
    assert_eq!(st, StatusCode::UNAUTHORIZED, "a refresh token worked twice: {v}");
    // The reuse revoked the whole session, the refreshed pair included.
    let (st, v, _) = post(&s, new_pair["access_token"].as_str().unwrap(), "/api/v1/tables", json!({"players": 2}));
    assert_eq!(st, StatusCode::UNAUTHORIZED, "a session survived the reuse of its refresh token: {v}");
    let (_, new_pair, _) = json_of(
        c.post(s.url("/api/v1/auth/token")).json(&json!({"name": name, "password": "password-1"})).send().unwrap(),
    );
    // Wrong password.
    let (st, _, _) = json_of(
        c.post(s.url("/api/v1/auth/token")).json(&json!({"name": name, "password": "nope-nope"})).send().unwrap(),
    );
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let access = new_pair["access_token"].as_str().unwrap();
    let (st, bot, _) = post(&s, access, "/api/v1/tokens", json!({"label": "reader", "scopes": ["read"]}));
    assert_eq!(st, StatusCode::CREATED, "{bot}");
    let bot_token = bot["token"].as_str().unwrap();
    // A read-only token may not create tables.
    let (st, v, _) = post(&s, bot_token, "/api/v1/tables", json!({"players": 2}));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let id = table(&s, &[access, access], 2, json!({}));
    assert_eq!(get(&s, bot_token, &format!("/api/v1/tables/{id}")).0, StatusCode::OK);
    let r =
        c.delete(s.url(&format!("/api/v1/tokens/{}", bot["id"].as_str().unwrap()))).bearer_auth(access).send().unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (st, v, _) = get(&s, bot_token, &format!("/api/v1/tables/{id}"));
    assert_eq!(st, StatusCode::UNAUTHORIZED, "a revoked token still works: {v}");
}

/// Organisers need the server's key; a bot token cannot revoke tokens.
#[test]
fn organisers_need_the_key_and_bot_tokens_cannot_revoke() {
    let s = Server::start();
    let (_, token) = account(&s, "player");
    let c = client();
    let organiser = || json!({"name": format!("o{}", &uuid()[..8]), "password": "password-1", "role": "organiser"});
    let r = c.post(s.url("/api/v1/accounts")).json(&organiser()).send().unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = c
        .post(s.url("/api/v1/accounts"))
        .header("X-Organiser-Key", "a-wrong-organiser-key")
        .json(&organiser())
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r =
        c.post(s.url("/api/v1/accounts")).header("X-Organiser-Key", ORGANISER_KEY).json(&organiser()).send().unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let (_, bot, _) = post(&s, &token, "/api/v1/tokens", json!({"label": "b"}));
    let bt = bot["token"].as_str().unwrap();
    let r = c.delete(s.url(&format!("/api/v1/tokens/{}", bot["id"].as_str().unwrap()))).bearer_auth(bt).send().unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
}
