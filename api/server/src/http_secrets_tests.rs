//! Secrets and accounts: in-process HTTP tests (actix test service on the real
//! SQLite store) of database file modes, secrets kept out of the event log and their rotation,
//! live-account token checks, sessions and refresh-token reuse, login throttling and the
//! dummy hash, and the organiser key and metrics token.

use crate::accounts::Role;
use crate::auth::TokenKind;
use crate::clock::Clock;
use crate::secrets::{self, EnvSecrets};
use crate::server::AppState;
use crate::store::{EventStore, Metadata, NewEvent};
use crate::tokens::Keys;
use actix_web::{App, test, web};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// A clock the test moves by hand.
#[derive(Debug)]
struct ManualClock(Mutex<DateTime<Utc>>);

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

impl ManualClock {
    fn advance(&self, secs: i64) {
        *self.0.lock().unwrap() += chrono::Duration::seconds(secs);
    }
}

fn temp_db() -> String {
    let dir = std::env::temp_dir().join(format!("flicker-secrets-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("flicker.db").display().to_string()
}

async fn store() -> Arc<dyn EventStore> {
    crate::store::open(&temp_db()).await.unwrap()
}

const ORGANISER_KEY: &str = "organiser-key-for-tests";
const METRICS_TOKEN: &str = "metrics-token-for-tests";

fn env() -> EnvSecrets {
    EnvSecrets { organiser: Some(ORGANISER_KEY.into()), metrics: Some(METRICS_TOKEN.into()), ..Default::default() }
}

/// The app state on `store` with `env`, its clock a [`ManualClock`].
async fn app_on(store: Arc<dyn EventStore>, env: &EnvSecrets) -> (web::Data<AppState>, Arc<ManualClock>) {
    let mut arc = crate::server::state_with(store, env).await.unwrap().into_inner();
    let clock = Arc::new(ManualClock(Mutex::new(Utc::now())));
    Arc::get_mut(&mut arc).expect("no other reference yet").clock = clock.clone();
    (web::Data::from(arc), clock)
}

macro_rules! service {
    ($app:expr) => {
        test::init_service(App::new().app_data($app.clone()).configure(crate::server::configure)).await
    };
}

/// Sends `req` and returns its status, body as JSON (`null` when not JSON) and headers.
macro_rules! send {
    ($svc:expr, $req:expr) => {{
        let resp = test::call_service(&$svc, $req.to_request()).await;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = test::read_body(resp).await;
        (status, serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null), headers)
    }};
}

fn post(uri: &str, body: Value) -> test::TestRequest {
    test::TestRequest::post().uri(uri).set_json(body)
}

fn bearer(req: test::TestRequest, token: &str) -> test::TestRequest {
    req.insert_header(("Authorization", format!("Bearer {token}")))
}

/// A request that needs a live access token: issuing a bot token (201, or 401).
fn needs_token(token: &str) -> test::TestRequest {
    bearer(post("/api/v1/tokens", json!({"label": "probe"})), token)
}

macro_rules! register_and_login {
    ($svc:expr, $name:expr) => {{
        let (st, v, _) = send!($svc, post("/api/v1/accounts", json!({"name": $name, "password": "password-1"})));
        assert_eq!(st, 201, "{v}");
        let (st, v, _) = send!($svc, post("/api/v1/auth/token", json!({"name": $name, "password": "password-1"})));
        assert_eq!(st, 200, "{v}");
        (v["access_token"].as_str().unwrap().to_string(), v["refresh_token"].as_str().unwrap().to_string())
    }};
}

#[cfg(unix)]
fn mode(path: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The database file, its `-wal` and `-shm` and its `.lock` are created owner-only
/// (whatever the umask), and an existing database file readable by others is tightened at open.
#[cfg(unix)]
#[actix_web::test]
async fn database_files_are_owner_only() {
    let path = temp_db();
    let s = crate::store::open(&path).await.unwrap();
    s.append("probe", crate::store::ExpectedVersion::NO_STREAM, vec![crate::store::contract::ev("x", None)])
        .await
        .unwrap();
    for suffix in ["", "-wal", "-shm", ".lock"] {
        assert_eq!(mode(&format!("{path}{suffix}")), 0o600, "{path}{suffix} is not owner-only");
    }
    drop(s);
    // A file left world-readable (by an older server, or a copy) is made owner-only.
    let old = temp_db();
    std::fs::write(&old, b"").unwrap();
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let tightened = crate::store::sqlite::owner_only(&old, true).unwrap();
    assert_eq!(tightened, vec![std::path::PathBuf::from(&old)]);
    assert_eq!(mode(&old), 0o600);
    let _s = crate::store::open(&old).await.unwrap();
    assert_eq!(mode(&old), 0o600);
}

/// A fresh store keeps its secrets in the secrets table, never in the event log: after
/// start and a login, no event names a secret and no `system-*` stream exists; the generated
/// organiser key registers an organiser.
#[actix_web::test]
async fn secrets_stay_out_of_the_event_log() {
    let store = store().await;
    let (app, _) = app_on(store.clone(), &EnvSecrets::default()).await;
    let svc = service!(app);
    register_and_login!(svc, "alice");
    let log = store.read_all(crate::store::Position::START, usize::MAX).await.unwrap();
    assert!(log.iter().all(|e| !e.stream_id.starts_with("system-")), "a secret went into the event log");
    for name in [secrets::JWT, secrets::SIGNING, secrets::ORGANISER] {
        let s = store.secrets(name).await.unwrap();
        assert_eq!(s.len(), 1, "{name}");
        assert!(log.iter().all(|e| !e.payload_text.contains(&s[0].value)), "{name} is in the event log");
    }
    let key = store.secrets(secrets::ORGANISER).await.unwrap()[0].value.clone();
    assert!(key.len() >= secrets::MIN_KEY_BYTES);
    let (st, v, _) = send!(
        svc,
        post("/api/v1/accounts", json!({"name": "org", "password": "password-1", "role": "organiser"}))
            .insert_header(("X-Organiser-Key", key))
    );
    assert_eq!(st, 201, "{v}");
}

fn legacy(stream: &str, event_type: &str, payload: Value) -> (String, NewEvent) {
    let ev = NewEvent {
        event_type: event_type.into(),
        schema_version: 1,
        payload,
        metadata: Metadata { actor: Some("system".into()), ..Default::default() },
    };
    (stream.to_string(), ev)
}

/// A store from before the secrets table (its secrets in `system-*` streams) keeps
/// working: tokens signed with its JWT secret verify, its organiser key and its replay key are
/// the same, and the secrets are copied into the table once.
#[actix_web::test]
async fn a_store_with_secrets_in_the_log_keeps_working() {
    let store = store().await;
    let jwt = "ab".repeat(32);
    let seed = "cd".repeat(32);
    let org = "0123456789abcdef0123456789abcdef";
    for (stream, ev) in [
        legacy("system-keys", "jwt_secret_generated", json!({"jwt_secret": jwt})),
        legacy("system-signing-key", "replay_signing_key_generated", json!({"algorithm": "ed25519", "seed": seed})),
        legacy("system-organiser-key", "organiser_key_generated", json!({"organiser_key": org})),
    ] {
        store.append(&stream, crate::store::ExpectedVersion::NO_STREAM, vec![ev]).await.unwrap();
    }
    let (app, _) = app_on(store.clone(), &EnvSecrets::default()).await;
    let svc = service!(app);
    // An account registered, and a token signed by the old server's secret (no `kid`).
    register_and_login!(svc, "bob");
    let old = Keys::from_secret(jwt.as_bytes());
    let claims = crate::tokens::Claims {
        sub: "bob".into(),
        role: Role::Player,
        kind: TokenKind::Access,
        jti: "old".into(),
        exp: Utc::now().timestamp() + 600,
        iat: Utc::now().timestamp(),
        scopes: vec![],
        chain: None,
    };
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(jwt.as_bytes()).unwrap(),
    )
    .unwrap();
    assert!(old.verify(&token).is_ok());
    let (st, v, _) = send!(svc, needs_token(&token));
    assert_eq!(st, 201, "{v}");
    let (_, keys, _) = send!(svc, test::TestRequest::get().uri("/api/v1/keys/replay"));
    let public = hex::encode(crate::chain::parse_signing_key(&seed).unwrap().verifying_key().as_bytes());
    assert_eq!(keys["public_key"], public.as_str());
    let (st, _, _) = send!(
        svc,
        post("/api/v1/accounts", json!({"name": "org", "password": "password-1", "role": "organiser"}))
            .insert_header(("X-Organiser-Key", org))
    );
    assert_eq!(st, 201);
    assert_eq!(store.secrets(secrets::JWT).await.unwrap()[0].value, jwt);
    assert_eq!(store.secrets(secrets::ORGANISER).await.unwrap()[0].value, org);
}

/// Rotating the JWT secret: after a restart on the rotated store, tokens signed by
/// the old secret still verify (until they expire), new tokens are signed by the new one, and a
/// token from a secret the server never had is refused.
#[actix_web::test]
async fn a_rotated_jwt_secret_keeps_old_tokens_valid() {
    let store = store().await;
    let (app, _) = app_on(store.clone(), &env()).await;
    let svc = service!(app);
    let (old_token, _) = register_and_login!(svc, "carol");
    let v = secrets::rotate(store.as_ref(), secrets::JWT).await.unwrap();
    assert_eq!(v.version, 2);
    let (app2, _) = app_on(store.clone(), &env()).await;
    let svc2 = service!(app2);
    let (st, body, _) = send!(svc2, needs_token(&old_token));
    assert_eq!(st, 201, "{body}");
    let (st, login, _) = send!(svc2, post("/api/v1/auth/token", json!({"name": "carol", "password": "password-1"})));
    assert_eq!(st, 200);
    let new_token = login["access_token"].as_str().unwrap();
    let new_only = Keys::new(v.value.as_bytes(), &[]);
    assert!(new_only.verify(new_token).is_ok(), "new tokens are signed by the new secret");
    assert!(new_only.verify(&old_token).is_err());
    let stranger = Keys::from_secret(&[7u8; 32]);
    let (forged, _) = stranger.issue("carol", Role::Player, TokenKind::Access, 600, vec![], None);
    let (st, _, _) = send!(svc2, needs_token(&forged));
    assert_eq!(st, 401);
}

/// Rotating the replay signing key: the new key signs, and the old public key is
/// still published (marked not current), so replays it signed still verify against it.
#[actix_web::test]
async fn a_rotated_signing_key_stays_published() {
    let store = store().await;
    let (app, _) = app_on(store.clone(), &env()).await;
    let svc = service!(app);
    let (_, before, _) = send!(svc, test::TestRequest::get().uri("/api/v1/keys/replay"));
    let old = before["public_key"].as_str().unwrap().to_string();
    assert_eq!(before["keys"].as_array().unwrap().len(), 1);
    // A replay signed by the old key.
    let events = crate::chain::chain_of("table-x", [("note".to_string(), 1, "{\"n\":1}".to_string())]);
    let mut signed = Vec::new();
    crate::chain::write_signed(
        &mut signed,
        "table-x",
        &final_flicker::settings::RulesetId::current(),
        &events,
        &app.signing_key,
    )
    .unwrap();
    secrets::rotate(store.as_ref(), secrets::SIGNING).await.unwrap();
    let (app2, _) = app_on(store.clone(), &env()).await;
    let svc2 = service!(app2);
    let (_, after, _) = send!(svc2, test::TestRequest::get().uri("/api/v1/keys/replay"));
    assert_ne!(after["public_key"], old.as_str(), "the new key signs");
    let keys = after["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0]["current"], true);
    assert_eq!(keys[1]["public_key"], old.as_str());
    assert_eq!(keys[1]["current"], false);
    let published = crate::chain::parse_public_key(keys[1]["public_key"].as_str().unwrap()).unwrap();
    crate::chain::verify(std::str::from_utf8(&signed).unwrap(), Some(&published))
        .expect("a replay signed before the rotation verifies against its published key");
}

/// A token signed with the real secret for a name with no account is refused with
/// 401 on every path that takes a token: bearer (required or optional) and `?access_token=`.
#[actix_web::test]
async fn a_token_for_an_unknown_account_is_refused() {
    let (app, _) = app_on(store().await, &env()).await;
    let svc = service!(app);
    let (real, _) = register_and_login!(svc, "dave");
    let (st, t, _) = send!(svc, bearer(post("/api/v1/tables", json!({"players": 2})), &real));
    assert_eq!(st, 201, "{t}");
    let table = t["table"]["table_id"].as_str().expect("a table id").to_string();
    let (ghost, _) = app.keys.issue("ghost", Role::Organiser, TokenKind::Access, 600, vec![], None);
    let (st, _, _) = send!(svc, needs_token(&ghost));
    assert_eq!(st, 401);
    let (st, _, _) = send!(svc, bearer(test::TestRequest::get().uri(&format!("/api/v1/tables/{table}")), &ghost));
    assert_eq!(st, 401);
    let stream = format!("/api/v1/tables/{table}/stream?access_token={ghost}");
    let (st, v, _) = send!(svc, test::TestRequest::get().uri(&stream));
    assert_eq!(st, 401, "{v}");
    // A real name with a role it does not have is refused too.
    let (promoted, _) = app.keys.issue("dave", Role::Organiser, TokenKind::Access, 600, vec![], None);
    let (st, _, _) = send!(svc, needs_token(&promoted));
    assert_eq!(st, 401);
}

/// Presenting a used refresh token again revokes its whole session: the pair the
/// first refresh gave (a thief's) stops working too. Logout revokes a session likewise.
#[actix_web::test]
async fn refresh_token_reuse_revokes_the_session_and_logout_ends_it() {
    let (app, _) = app_on(store().await, &env()).await;
    let svc = service!(app);
    let (_, r1) = register_and_login!(svc, "erin");
    let (st, thief, _) = send!(svc, post("/api/v1/auth/refresh", json!({"refresh_token": r1})));
    assert_eq!(st, 200);
    let (a2, r2) = (thief["access_token"].as_str().unwrap(), thief["refresh_token"].as_str().unwrap());
    let (st, _, _) = send!(svc, needs_token(a2));
    assert_eq!(st, 201);
    let (st, v, _) = send!(svc, post("/api/v1/auth/refresh", json!({"refresh_token": r1})));
    assert_eq!(st, 401, "{v}");
    let (st, _, _) = send!(svc, post("/api/v1/auth/refresh", json!({"refresh_token": r2})));
    assert_eq!(st, 401, "the thief's refresh token is revoked");
    let (st, _, _) = send!(svc, needs_token(a2));
    assert_eq!(st, 401, "the thief's access token is revoked");
    // Another session of the same account is untouched; logging out ends it.
    let (st, v, _) = send!(svc, post("/api/v1/auth/token", json!({"name": "erin", "password": "password-1"})));
    assert_eq!(st, 200);
    let (a3, r3) = (v["access_token"].as_str().unwrap(), v["refresh_token"].as_str().unwrap());
    let (st, _, _) = send!(svc, needs_token(a3));
    assert_eq!(st, 201);
    let (st, _, _) = send!(svc, bearer(test::TestRequest::post().uri("/api/v1/auth/logout"), a3));
    assert_eq!(st, 204);
    let (st, _, _) = send!(svc, needs_token(a3));
    assert_eq!(st, 401);
    let (st, _, _) = send!(svc, post("/api/v1/auth/refresh", json!({"refresh_token": r3})));
    assert_eq!(st, 401);
    // Logging out with a refresh token alone.
    let (st, v, _) = send!(svc, post("/api/v1/auth/token", json!({"name": "erin", "password": "password-1"})));
    assert_eq!(st, 200);
    let (st, _, _) = send!(svc, post("/api/v1/auth/logout", json!({"refresh_token": v["refresh_token"]})));
    assert_eq!(st, 204);
    let (st, _, _) = send!(svc, needs_token(v["access_token"].as_str().unwrap()));
    assert_eq!(st, 401);
}

/// No expiry leeway: a token 30 s past its `exp` is refused (jsonwebtoken's default
/// leeway of 60 s accepted it).
#[actix_web::test]
async fn an_expired_token_is_refused_at_once() {
    let (app, _) = app_on(store().await, &env()).await;
    let svc = service!(app);
    register_and_login!(svc, "fred");
    let (expired, _) = app.keys.issue("fred", Role::Player, TokenKind::Access, -30, vec![], None);
    let (st, v, _) = send!(svc, needs_token(&expired));
    assert_eq!(st, 401, "{v}");
    assert!(v["detail"].as_str().unwrap().contains("expired"));
}

fn login_from(addr: &str, name: &str, password: &str) -> test::TestRequest {
    post("/api/v1/auth/token", json!({"name": name, "password": password})).peer_addr(addr.parse().unwrap())
}

/// A login for an unknown name checks the password against a (dummy) hash, like a
/// known name's: the hash function is called once on each path.
#[actix_web::test]
async fn an_unknown_name_costs_a_hash_too() {
    use std::sync::atomic::Ordering::Relaxed;
    let (app, _) = app_on(store().await, &env()).await;
    let svc = service!(app);
    register_and_login!(svc, "gina");
    let before = app.password_checks.load(Relaxed);
    let (st, unknown, _) = send!(svc, login_from("10.0.0.9:1", "nobody-here", "password-1"));
    assert_eq!(st, 401);
    assert_eq!(app.password_checks.load(Relaxed), before + 1, "an unknown name is checked against a hash");
    let (st, wrong, _) = send!(svc, login_from("10.0.0.9:1", "gina", "password-2"));
    assert_eq!(st, 401);
    assert_eq!(app.password_checks.load(Relaxed), before + 2);
    assert_eq!(unknown, wrong, "both refusals read alike");
}

/// Repeated failed logins are slowed per (name, address) and per address, with 429
/// `login-throttled` and `Retry-After`, and the owner still logs in from another address; the
/// wait passes on the server clock.
#[actix_web::test]
async fn failed_logins_are_slowed_without_locking_the_owner_out() {
    use crate::login_throttle::{ADDR_FREE, PAIR_FREE};
    let (app, clock) = app_on(store().await, &env()).await;
    let svc = service!(app);
    register_and_login!(svc, "hana");
    let attacker = "10.0.0.1:4000";
    for _ in 0..=PAIR_FREE {
        let (st, _, _) = send!(svc, login_from(attacker, "hana", "not-the-password"));
        assert_eq!(st, 401);
    }
    // Refused before the password is checked, even the right one, from that address.
    let (st, v, h) = send!(svc, login_from(attacker, "hana", "password-1"));
    assert_eq!(st, 429, "{v}");
    assert_eq!(v["type"].as_str().unwrap().rsplit('/').next(), Some("login-throttled"), "{v}");
    assert_eq!(h.get("retry-after").unwrap(), "1");
    assert_eq!(h.get("content-type").unwrap(), "application/problem+json");
    // The owner, from elsewhere, is not slowed.
    let (st, _, _) = send!(svc, login_from("10.0.0.2:4000", "hana", "password-1"));
    assert_eq!(st, 200);
    // The wait passes on the server clock.
    clock.advance(1);
    let (st, _, _) = send!(svc, login_from(attacker, "hana", "password-1"));
    assert_eq!(st, 200);
    // One address failing for many names is slowed for every name, another address is not.
    let sprayer = "10.0.0.3:4000";
    for i in 0..=ADDR_FREE {
        let (st, _, _) = send!(svc, login_from(sprayer, &format!("name-{i}"), "password-1"));
        assert_eq!(st, 401);
    }
    let (st, _, h) = send!(svc, login_from(sprayer, "hana", "password-1"));
    assert_eq!(st, 429);
    assert!(h.get("retry-after").is_some());
    let (st, _, _) = send!(svc, login_from("10.0.0.4:4000", "hana", "password-1"));
    assert_eq!(st, 200);
}

/// An organiser key or a metrics token shorter than 16 bytes is a start-up error.
#[actix_web::test]
async fn short_organiser_keys_and_metrics_tokens_are_refused_at_start() {
    let store = store().await;
    let short_org = EnvSecrets { organiser: Some("k".into()), ..Default::default() };
    let e = crate::server::state_with(store.clone(), &short_org).await.err().expect("refused");
    assert!(e.to_string().contains("FLICKER_ORGANISER_KEY") && e.to_string().contains("16"), "{e}");
    let short_metrics = EnvSecrets { metrics: Some("k".into()), ..env() };
    let e = crate::server::state_with(store.clone(), &short_metrics).await.err().expect("refused");
    assert!(e.to_string().contains("FLICKER_METRICS_TOKEN"), "{e}");
}

/// The organiser key and the metrics token are checked (in constant time, by
/// `subtle`): a key of the same length differing in its last byte is refused, the key works.
#[actix_web::test]
async fn organiser_key_and_metrics_token_are_checked() {
    let (app, _) = app_on(store().await, &env()).await;
    let svc = service!(app);
    let mut near = ORGANISER_KEY.to_string();
    near.pop();
    near.push('X');
    let org = |key: &str| {
        post("/api/v1/accounts", json!({"name": "ivy", "password": "password-1", "role": "organiser"}))
            .insert_header(("X-Organiser-Key", key.to_string()))
    };
    let (st, _, _) = send!(svc, org(&near));
    assert_eq!(st, 403);
    let (st, _, _) = send!(svc, org(ORGANISER_KEY));
    assert_eq!(st, 201);
    let metrics = |t: &str| bearer(test::TestRequest::get().uri("/metrics"), t);
    let (st, _, _) = send!(svc, metrics(&METRICS_TOKEN[..METRICS_TOKEN.len() - 1]));
    assert_eq!(st, 401);
    let resp = test::call_service(&svc, metrics(METRICS_TOKEN).to_request()).await;
    assert_eq!(resp.status(), 200);
}
