//! The organiser's day: registration cap, check-in and the start that removes no-shows, the
//! R9.2 preview, dropping and replacing players after the start, "waiting on", give-time and
//! the results export (CSV and JSON).

use super::*;
use flicker_client::routes;
use flicker_client::types::{RegisterBody, Role};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn problem(st: StatusCode, v: &Value, ct: &str, status: StatusCode, kind: &str) {
    assert_eq!(st, status, "{v}");
    assert_eq!(ct, "application/problem+json", "{v}");
    assert_eq!(v["type"], format!("/problems/{kind}"), "{v}");
}

fn preview(s: &Server, id: &str) -> Value {
    public(s, &format!("/api/v1/gatherings/{id}/preview"))
}

/// R9.2 (the preview), the registration cap and check-in: a capped gathering refuses the
/// registration and the bots past its cap; only registered players check in, before the start;
/// the start removes who did not check in (built-in bots need none).
#[test]
fn r9_2_preview_registration_cap_and_check_in() {
    let s = Server::start();
    let org = organiser(&s);
    for cap in [1, 10_001] {
        let (st, v, ct) =
            post(&s, &org, "/api/v1/gatherings", json!({"name": "bad", "settings": {"registration_cap": cap}}));
        assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "cap {cap}: {v}");
        assert!(v["detail"].as_str().unwrap().contains("registration_cap"), "{v}");
    }
    let id = create(&s, &org, "capped", json!({"registration_cap": 6, "check_in": true}));
    let p = preview(&s, &id);
    assert_eq!(p, json!({"registered": 0, "players": 0, "capacity": 6, "stages": [], "sizes": []}));
    let (alice, alice_token) = named_account(&s, "alice", "player");
    let (bob, bob_token) = named_account(&s, "bob", "player");
    let (_, carol_token) = named_account(&s, "carol", "player");
    for t in [&alice_token, &bob_token] {
        let (st, v, _) = post(&s, t, &format!("/api/v1/gatherings/{id}/registrations"), json!({}));
        assert_eq!(st, StatusCode::CREATED, "{v}");
    }
    add_bots(&s, &org, &id, 4, "heuristic");
    // Full: a seventh player and a fifth bot are refused, and nothing changes.
    let (st, v, ct) = post(&s, &carol_token, &format!("/api/v1/gatherings/{id}/registrations"), json!({}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-full");
    let (st, v, ct) = post(&s, &org, &format!("/api/v1/gatherings/{id}/bots"), json!({"count": 1, "kind": "random"}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-full");
    assert!(v["detail"].as_str().unwrap().contains("at most 6"), "{v}");
    assert_eq!(summary(&s, &id)["players"].as_array().unwrap().len(), 6);
    // Before anyone checks in, only the bots are present.
    let p = preview(&s, &id);
    assert_eq!((p["registered"].as_u64(), p["players"].as_u64()), (Some(6), Some(4)), "{p}");
    assert_eq!(p["sizes"], json!(["4"]), "R9.2.1: 4 players play one circle, the Final Ritual: {p}");
    // Check-in: the registered only; twice changes nothing.
    let path = format!("/api/v1/gatherings/{id}/check-ins");
    for _ in 0..2 {
        let (st, v, _) = post(&s, &alice_token, &path, json!({}));
        assert_eq!(st, StatusCode::OK, "{v}");
        assert_eq!(v["checked_in"], json!([alice]), "{v}");
    }
    let (st, v, ct) = post(&s, &carol_token, &path, json!({}));
    problem(st, &v, &ct, StatusCode::NOT_FOUND, "not-found");
    let (st, v, _) = post(&s, "", &path, json!({}));
    assert_eq!(st, StatusCode::UNAUTHORIZED, "{v}");
    assert_eq!(preview(&s, &id)["players"], 5);
    // A drop before the start is refused: withdraw instead (R9.10.2).
    let (st, v, ct) = post(&s, &org, &format!("/api/v1/gatherings/{id}/players/{bob}/drop"), json!({}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-not-started");
    // The start removes Bob, who never checked in.
    let g = control(&s, &org, &id, "start");
    let names = strs(&json!(g["players"].as_array().unwrap().iter().map(|p| p["name"].clone()).collect::<Vec<_>>()));
    assert_eq!(names.len(), 5, "{g}");
    assert!(names.contains(&alice) && !names.contains(&bob), "{g}");
    let (st, v, ct) = post(&s, &bob_token, &path, json!({}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-started");
    control(&s, &org, &id, "cancel");
    // Without check-in there is nothing to check in to.
    let open = create(&s, &org, "open", json!({}));
    let (st, v, ct) = post(&s, &alice_token, &format!("/api/v1/gatherings/{open}/check-ins"), json!({}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "check-in-off");
    let (st, v, ct) = get_public(&s, "/api/v1/gatherings/nope/preview");
    problem(st, &v, &ct, StatusCode::NOT_FOUND, "not-found");
}

/// The circle holding `name` in the current bracket, while it plays.
fn circle_of(s: &Server, id: &str, name: &str) -> Option<Value> {
    circles(&bracket(s, id))
        .into_iter()
        .rev()
        .map(|(_, c)| c)
        .find(|c| c["status"] == "playing" && circle_players(c).iter().any(|p| p == name))
}

/// Polls the bracket until the circle of one of `names` waits on them outside a reaction
/// window, and returns that name and circle; checks on the way that a reaction window never
/// names whom it waits for (R10.6.2).
fn waiting_on(s: &Server, id: &str, names: &[&str]) -> (String, Value) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        assert!(Instant::now() < deadline, "no circle waited on {names:?}: {}", bracket(s, id));
        for (_, c) in circles(&bracket(s, id)) {
            let w = &c["waiting"];
            if w["window"] == true {
                assert_eq!((w["seats"].clone(), w["names"].clone()), (json!([]), json!([])), "R10.6.2: {w}");
                assert!(w.get("since").is_none(), "R10.6.2: {w}");
            }
        }
        for name in names {
            if let Some(c) = circle_of(s, id, name)
                && c["waiting"]["window"] == false
                && strs(&c["waiting"]["names"]).iter().any(|n| n == name)
            {
                return (name.to_string(), c);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// R9.10.2, R10.10 and the substitutes of docs/rules-decisions.md: two absent players hold up
/// their circles until the organiser drops one (a concession) and replaces the other by a bot
/// (who plays the seat to its end but never advances); "waiting on" names the absent player on
/// their turn; give-time moves the deadline; the results export as CSV and JSON.
#[test]
fn r9_10_2_no_shows_dropped_and_replaced_give_time_and_export() {
    let s = Server::start();
    let org = organiser(&s);
    let (_, other_org) = named_account(&s, "other", "organiser");
    let (ann, ann_token) = named_account(&s, "ann", "player");
    let (ben, ben_token) = named_account(&s, "ben", "player");
    let settings = json!({"max_circle": 5, "advance": 2, "classes": false,
        "clocks": {"decision_secs": 120, "reaction_secs": 1}, "reaction_window_min_ms": 0});
    let id = create(&s, &org, "no-shows", settings);
    for t in [&ann_token, &ben_token] {
        let (st, v, _) = post(&s, t, &format!("/api/v1/gatherings/{id}/registrations"), json!({}));
        assert_eq!(st, StatusCode::CREATED, "{v}");
    }
    add_bots(&s, &org, &id, 8, "heuristic");
    assert_eq!(preview(&s, &id)["sizes"], json!(["5+5", "4"]), "R9.2: 10 players");
    control(&s, &org, &id, "start");

    // Waiting on whichever of the two absent players is asked first (Alice): her circle names
    // her seat on her turn. The other is Bob.
    let (alice, c) = waiting_on(&s, &id, &[&ann, &ben]);
    let (bob, alice_token) =
        if alice == ann { (ben.clone(), ann_token.clone()) } else { (ann.clone(), ben_token.clone()) };
    let table = c["table_id"].as_str().unwrap().to_string();
    let seat = c["players"].as_array().unwrap().iter().find(|p| p["name"] == alice.as_str()).unwrap()["seat"].clone();
    assert_eq!(c["waiting"]["seats"], json!([seat]), "{c}");
    assert!(c["waiting"]["since"].is_string(), "{c}");
    // Give-time: her deadline moves 100 s later; only the organiser gives it, 1 to 600 s, to a
    // table of this gathering.
    let deadline_of = || -> chrono::DateTime<chrono::Utc> {
        let (st, v, _) = get(&s, &alice_token, &format!("/api/v1/tables/{table}/prompt"));
        assert_eq!(st, StatusCode::OK, "{v}");
        serde_json::from_value(v["clock"]["deadline"].clone()).unwrap_or_else(|_| panic!("a deadline: {v}"))
    };
    let before = deadline_of();
    let time = format!("/api/v1/gatherings/{id}/tables/{table}/time");
    let (st, v, _) = post(&s, &org, &time, json!({"seconds": 100}));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!((v["table_id"].as_str(), v["seconds"].as_u64()), (Some(table.as_str()), Some(100)), "{v}");
    assert_eq!(v["waiting"]["names"], json!([alice]), "{v}");
    assert_eq!(deadline_of() - before, chrono::Duration::seconds(100), "R10.7.1: the deadline moved by the time given");
    for (token, body, status, kind) in [
        (&org, json!({"seconds": 0}), StatusCode::BAD_REQUEST, "invalid-request"),
        (&org, json!({"seconds": 601}), StatusCode::BAD_REQUEST, "invalid-request"),
        (&other_org, json!({"seconds": 10}), StatusCode::FORBIDDEN, "forbidden"),
    ] {
        let (st, v, ct) = post(&s, token, &time, body);
        assert_eq!((st, ct.as_str()), (status, "application/problem+json"), "{v}");
        assert!(v["type"].as_str().unwrap().starts_with("/problems/"), "{kind}: {v}");
    }
    let (st, v, ct) = post(&s, &org, &format!("/api/v1/gatherings/{id}/tables/nope/time"), json!({"seconds": 10}));
    problem(st, &v, &ct, StatusCode::NOT_FOUND, "not-found");

    // Drop Alice: she concedes at her table at once and is out.
    // Bot names hold a `#`, which a path spells `%23`.
    let drop = |name: &str| {
        let name = name.replace('#', "%23");
        post(&s, &org, &format!("/api/v1/gatherings/{id}/players/{name}/drop"), json!({}))
    };
    let (st, v, ct) = post(&s, &other_org, &format!("/api/v1/gatherings/{id}/players/{alice}/drop"), json!({}));
    problem(st, &v, &ct, StatusCode::FORBIDDEN, "forbidden");
    let (st, v, _) = drop(&alice);
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["dropped"], json!([alice]), "{v}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !all_events(&s, &org, &table).iter().any(|e| e.to_string().contains("\"conceded\"")) {
        assert!(Instant::now() < deadline, "R10.10: Alice never conceded: {}", bracket(&s, &id));
        std::thread::sleep(Duration::from_millis(100));
    }
    let (st, v, ct) = drop(&alice);
    problem(st, &v, &ct, StatusCode::CONFLICT, "player-out");
    let (st, v, ct) = drop("nobody");
    problem(st, &v, &ct, StatusCode::NOT_FOUND, "not-found");

    // Replace Bob by a bot: it takes his seat at once.
    let replace = |name: &str| {
        let name = name.replace('#', "%23");
        post(&s, &org, &format!("/api/v1/gatherings/{id}/players/{name}/replace"), json!({"bot": "heuristic"}))
    };
    let (st, v, ct) = replace("heuristic-bot#01");
    problem(st, &v, &ct, StatusCode::CONFLICT, "already-bot");
    let (st, v, ct) =
        post(&s, &org, &format!("/api/v1/gatherings/{id}/players/{bob}/replace"), json!({"bot": "genius"}));
    assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{v}");
    let (st, v, _) = replace(&bob);
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["replaced"], json!([bob]), "{v}");

    let g = wait_over(&s, &id, Duration::from_secs(300));
    assert_eq!(g["status"], "finished", "{g}");
    let winner = g["winner"].as_str().unwrap_or_else(|| panic!("a winner: {g}")).to_string();
    assert!(winner.starts_with("heuristic-bot#") && !winner.contains("for-"), "a substitute never wins: {g}");
    let b = bracket(&s, &id);
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 2, "{b}");
    let first: Vec<Value> = stages[0]["circles"].as_array().unwrap().clone();
    let bobs = first.iter().find(|c| circle_players(c).contains(&bob)).unwrap();
    let seat = bobs["players"].as_array().unwrap().iter().find(|p| p["name"] == bob.as_str()).unwrap();
    assert_eq!(seat["replaced_by"], "heuristic", "{bobs}");
    assert!(
        !strs(&bobs["last_lit"]).iter().any(|n| *n == bob || n.contains("for-")),
        "a substitute never advances: {bobs}"
    );
    let alices = first.iter().find(|c| circle_players(c).contains(&alice)).unwrap();
    assert!(alices["players"].as_array().unwrap().iter().any(|p| p["name"] == alice.as_str() && p["dropped"] == true));
    let final_players = circle_players(&stages[1]["circles"][0]);
    assert!(final_players.iter().all(|n| *n != alice && *n != bob && !n.contains("for-")), "{b}");
    let st = standings(&s, &id);
    // Alice's concession placed her in her circle (R10.10); Bob's seat went to a substitute, so
    // his place went to nobody.
    let row = |name: &str| st.iter().find(|r| r["name"] == name).unwrap().clone();
    assert_eq!(row(&alice)["status"], "out", "{:?}", row(&alice));
    assert!(row(&alice)["placing"].is_u64(), "{:?}", row(&alice));
    assert_eq!((row(&bob)["status"].as_str(), row(&bob)["rank"].as_u64()), (Some("dropped"), None), "{:?}", row(&bob));
    // After the end nothing more is dropped.
    let winner_drop = drop(&winner);
    problem(winner_drop.0, &winner_drop.1, &winner_drop.2, StatusCode::CONFLICT, "wrong-status");

    // The export: CSV, one row per player best first, and JSON.
    let r = send(client().get(s.url(&format!("/api/v1/gatherings/{id}/results.csv"))));
    assert_eq!(r.status(), StatusCode::OK);
    let ct = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/csv"), "{ct}");
    assert!(r.headers()["content-disposition"].to_str().unwrap().contains(".csv"));
    let text = r.text().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "rank,name,status,stage,circle,placing,bot,points", "{text}");
    assert_eq!(lines.len(), 11, "a header and 10 players: {text}");
    assert!(lines[1].starts_with(&format!("1,{winner},winner,")), "{text}");
    assert!(lines.iter().any(|l| l.starts_with(&format!(",{bob},dropped,"))), "{text}");
    let (st, v, _) = get_public(&s, &format!("/api/v1/gatherings/{id}/results.json"));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["winner"], winner.as_str(), "{v}");
    assert_eq!(v["standings"].as_array().unwrap().len(), 10, "{v}");
    assert_eq!(v["stages"].as_array().unwrap().len(), 2, "{v}");
    let (st, v, ct) = get_public(&s, "/api/v1/gatherings/nope/results.csv");
    problem(st, &v, &ct, StatusCode::NOT_FOUND, "not-found");
}

/// Creates the account `name` with `role` (no login).
fn make_account(s: &Server, name: &str, role: Role) {
    let body = RegisterBody { name: name.to_string(), password: "password-1".to_string(), role };
    let key = (role == Role::Organiser).then_some(ORGANISER_KEY);
    s.api().send(routes::register(&body, key)).unwrap_or_else(|e| panic!("registering {name}: {e}"));
}

/// A roster registers many existing accounts at once, all or nothing: as JSON and as CSV (a
/// `name` column under a header); every refused row is reported with its line and reason and
/// nobody is registered; only the organiser sends one, before the start, within the cap.
#[test]
fn a_roster_registers_existing_accounts_all_or_nothing() {
    let s = Server::start();
    let org = organiser(&s);
    let tag = &uuid()[..6];
    let names: Vec<String> = (0..4).map(|i| format!("r{tag}{i}")).collect();
    for n in &names[..3] {
        make_account(&s, n, Role::Player);
    }
    make_account(&s, &names[3], Role::Bot);
    let staff = format!("o{tag}");
    make_account(&s, &staff, Role::Organiser);
    let id = create(&s, &org, "rostered", json!({"registration_cap": 5}));
    let path = format!("/api/v1/gatherings/{id}/roster");
    // Refused rows, all reported; nothing registered.
    let body = json!({"names": [names[0], "nobody-here", staff, "no", names[0].to_uppercase()]});
    let (st, v, ct) = post(&s, &org, &path, body);
    problem(st, &v, &ct, StatusCode::UNPROCESSABLE_ENTITY, "roster-refused");
    let reasons: Vec<(u64, &str)> = v["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["row"].as_u64().unwrap(), r["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        vec![(2, "unknown-account"), (3, "not-a-player"), (4, "invalid-name"), (5, "duplicate")],
        "{v}"
    );
    assert_eq!(summary(&s, &id)["registered"], 0, "all or nothing");
    // Only the organiser.
    let (_, player) = account(&s, "player");
    let (st, v, ct) = post(&s, &player, &path, json!({"names": [names[0]]}));
    problem(st, &v, &ct, StatusCode::FORBIDDEN, "forbidden");
    // JSON: two rows.
    let (st, v, _) = post(&s, &org, &path, json!({"names": [names[0], names[1]]}));
    assert_eq!((st, &v["added"], &v["registered"]), (StatusCode::CREATED, &json!(2), &json!(2)), "{v}");
    // CSV with a header: line numbers count the header; a name registered already is refused.
    let csv = format!("email,name\nx@y,{}\nz@w,{}\n", names[0], names[2]);
    let r = send(client().post(s.url(&path)).bearer_auth(&org).header("Content-Type", "text/csv").body(csv));
    let (st, v, ct) = json_of(r);
    problem(st, &v, &ct, StatusCode::UNPROCESSABLE_ENTITY, "roster-refused");
    assert_eq!(v["refused"], json!([{"row": 2, "name": names[0], "reason": "already-registered"}]), "{v}");
    // CSV of bare names; the bot account registers as a program.
    let csv = format!("{}\n\n{}\n", names[2], names[3]);
    let r =
        send(client().post(s.url(&path)).bearer_auth(&org).header("Content-Type", "text/csv; charset=utf-8").body(csv));
    let (st, v, _) = json_of(r);
    assert_eq!((st, &v["registered"]), (StatusCode::CREATED, &json!(4)), "{v}");
    let page = public(&s, &format!("/api/v1/gatherings/{id}/registrations"));
    let got: Vec<(&str, bool)> = page["registrations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["program"].as_bool().unwrap_or(false)))
        .collect();
    let want: Vec<(&str, bool)> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i == 3)).collect();
    assert_eq!(got, want, "{page}");
    // A player reads their own registration; an unregistered one reads none (no 404).
    let token = login(&s, &names[1], "password-1");
    let (st, mine, _) = get(&s, &token, &format!("/api/v1/me/gatherings/{id}"));
    assert_eq!((st, &mine["registration"]["position"]), (StatusCode::OK, &json!(2)), "{mine}");
    let (st, none, _) = get(&s, &player, &format!("/api/v1/me/gatherings/{id}"));
    assert_eq!((st, &none["registration"]), (StatusCode::OK, &Value::Null), "{none}");
    // The cap: 4 registered of 5, two more are refused whole.
    let (a, b) = (format!("s{tag}a"), format!("s{tag}b"));
    make_account(&s, &a, Role::Player);
    make_account(&s, &b, Role::Player);
    let (st, v, ct) = post(&s, &org, &path, json!({"names": [a, b]}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-full");
    // Bad bodies: empty, malformed, unknown field; after the start, refused.
    let (st, v, ct) = post(&s, &org, &path, json!({"names": []}));
    problem(st, &v, &ct, StatusCode::BAD_REQUEST, "invalid-request");
    let (st, v, ct) = post(&s, &org, &path, json!({"names": [a], "extra": 1}));
    problem(st, &v, &ct, StatusCode::BAD_REQUEST, "unknown-field");
    let r = send(client().post(s.url(&path)).bearer_auth(&org).header("Content-Type", "application/json").body("{"));
    let (st, v, ct) = json_of(r);
    assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{v}");
    control(&s, &org, &id, "start");
    let (st, v, ct) = post(&s, &org, &path, json!({"names": [a]}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-started");
}

/// Invitations: the organiser issues codes (shown once); a person claims one with a name and
/// password of their own, which creates the account, registers it and signs it in. A code is
/// claimed once; an unknown code, a taken name, a started gathering create nothing.
#[test]
fn an_invitation_creates_an_account_and_registers_it() {
    let s = Server::start();
    let org = organiser(&s);
    let id = create(&s, &org, "invited", json!({}));
    let path = format!("/api/v1/gatherings/{id}/invitations");
    let (_, player) = account(&s, "player");
    let (st, v, ct) = post(&s, &player, &path, json!({"count": 2}));
    problem(st, &v, &ct, StatusCode::FORBIDDEN, "forbidden");
    let (st, v, ct) = post(&s, &org, &path, json!({"count": 0}));
    problem(st, &v, &ct, StatusCode::BAD_REQUEST, "invalid-request");
    let (st, issued, _) = post(&s, &org, &path, json!({"count": 2}));
    assert_eq!(st, StatusCode::CREATED, "{issued}");
    let codes = strs(&issued["codes"]);
    assert_eq!(codes.len(), 2);
    assert_eq!(issued["links"][0], format!("/gatherings/{id}/join#code={}", codes[0]));
    let tag = &uuid()[..6];
    let claim = |code: &str, name: &str| {
        json_of(send(client().post(s.url("/api/v1/invitations/claim")).json(&json!({
            "gathering_id": id, "code": code, "name": name, "password": "password-1"
        }))))
    };
    // An unknown code creates no account.
    let ghost = format!("g{tag}");
    let (st, v, ct) = claim("inv-00000000000000000000000000000000", &ghost);
    problem(st, &v, &ct, StatusCode::NOT_FOUND, "unknown-invitation");
    let (st, _, _) = json_of(send(
        client().post(s.url("/api/v1/auth/token")).json(&json!({"name": ghost, "password": "password-1"})),
    ));
    assert_eq!(st, StatusCode::UNAUTHORIZED, "no account was made");
    // A claim: account, registration, session.
    let dora = format!("d{tag}");
    let (st, v, _) = claim(&codes[0], &dora);
    assert_eq!((st, &v["name"], &v["registered"]), (StatusCode::CREATED, &json!(dora), &json!(1)), "{v}");
    let token = v["tokens"]["access_token"].as_str().unwrap().to_string();
    let (st, mine, _) = get(&s, &token, &format!("/api/v1/me/gatherings/{id}"));
    assert_eq!((st, &mine["registration"]["registration"]["name"]), (StatusCode::OK, &json!(dora)), "{mine}");
    // The same claim again (a retry after a fault) finishes it and registers nobody twice.
    let (st, v, _) = claim(&codes[0], &dora);
    assert_eq!((st, &v["name"], &v["registered"]), (StatusCode::CREATED, &json!(dora), &json!(1)), "{v}");
    // Once only; a taken name consumes nothing.
    let (st, v, ct) = claim(&codes[0], &format!("e{tag}"));
    problem(st, &v, &ct, StatusCode::CONFLICT, "invitation-used");
    let wrong = json_of(send(client().post(s.url("/api/v1/invitations/claim")).json(&json!({
        "gathering_id": id, "code": codes[0], "name": dora, "password": "not-her-password"
    }))));
    problem(wrong.0, &wrong.1, &wrong.2, StatusCode::CONFLICT, "invitation-used");
    let (st, v, ct) = claim(&codes[1], &dora);
    problem(st, &v, &ct, StatusCode::CONFLICT, "name-taken");
    let (st, state, _) = get(&s, &org, &path);
    assert_eq!((st, &state["issued"], &state["open"]), (StatusCode::OK, &json!(2), &json!(1)), "{state}");
    assert_eq!(state["claimed"][0]["name"], json!(dora), "{state}");
    let (st, _, _) = get(&s, &player, &path);
    assert_eq!(st, StatusCode::FORBIDDEN);
    // After the start: no claim, no new codes.
    control(&s, &org, &id, "start");
    let (st, v, ct) = claim(&codes[1], &format!("f{tag}"));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-started");
    let (st, v, ct) = post(&s, &org, &path, json!({"count": 1}));
    problem(st, &v, &ct, StatusCode::CONFLICT, "gathering-started");
}

/// R9.10.2, R10.10, rules decisions 70, 73 and 74 and the substitutes, in a gathering of *Let's
/// Call the Exorcist*: 12 players (two absent accounts and 10 heuristic bots, circles of up to
/// 6: 6+6; long decision clocks, and short reaction clocks, since a held mini-game waits out its
/// reaction clock at a table where a person sits) hold up their circles until the organiser, mid-stage, drops one (she concedes at her
/// table and stays seated, decision 70) and replaces the other by a substitute bot (it takes his
/// seat and plays it to the end). The gathering still reaches one winner at the Final table of 4
/// (decision 74), who is neither of them nor a substitute; neither advances nor fills the Final.
#[test]
fn r9_10_2_an_exorcist_gathering_drops_and_replaces_players_and_reaches_one_winner() {
    let s = Server::start();
    let org = organiser(&s);
    let (ann, ann_token) = named_account(&s, "xann", "player");
    let (ben, ben_token) = named_account(&s, "xben", "player");
    let settings = json!({"game": "lets-call-the-exorcist", "max_circle": 6, "target": 3,
        "clocks": {"decision_secs": 300, "reaction_secs": 2}});
    let id = create(&s, &org, "exorcist no-shows", settings);
    for t in [&ann_token, &ben_token] {
        let (st, v, _) = post(&s, t, &format!("/api/v1/gatherings/{id}/registrations"), json!({}));
        assert_eq!(st, StatusCode::CREATED, "{v}");
    }
    add_bots(&s, &org, &id, 10, "heuristic");
    assert_eq!(preview(&s, &id)["sizes"], json!(["6+6", "4"]), "X2.1, decision 72: 12 players");
    control(&s, &org, &id, "start");
    // Both sit at playing tables of the first stage.
    let deadline = Instant::now() + Duration::from_secs(60);
    while circle_of(&s, &id, &ann).is_none() || circle_of(&s, &id, &ben).is_none() {
        assert!(Instant::now() < deadline, "the first stage never played: {}", bracket(&s, &id));
        std::thread::sleep(Duration::from_millis(50));
    }
    let ann_table = circle_of(&s, &id, &ann).unwrap()["table_id"].as_str().unwrap().to_string();
    let ben_table = circle_of(&s, &id, &ben).unwrap()["table_id"].as_str().unwrap().to_string();
    // Drop Ann: she concedes at her table (decision 70: she stays seated, her prompts default).
    let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{id}/players/{ann}/drop"), json!({}));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["dropped"], json!([ann]), "{v}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !all_events(&s, &org, &ann_table).iter().any(|e| e["event"]["type"] == "conceded") {
        assert!(Instant::now() < deadline, "R10.10: Ann never conceded: {}", bracket(&s, &id));
        std::thread::sleep(Duration::from_millis(100));
    }
    // Replace Ben by a substitute: it takes his seat.
    let (st, v, _) =
        post(&s, &org, &format!("/api/v1/gatherings/{id}/players/{ben}/replace"), json!({"bot": "heuristic"}));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["replaced"], json!([ben]), "{v}");
    let substitute = format!("heuristic-bot#for-{ben}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, t, _) = get(&s, &org, &format!("/api/v1/tables/{ben_table}"));
        if strs(&t["table"]["seats"]).contains(&substitute) {
            assert!(!strs(&t["table"]["seats"]).contains(&ben), "{t}");
            break;
        }
        assert!(Instant::now() < deadline, "the substitute never took Ben's seat: {t}");
        std::thread::sleep(Duration::from_millis(100));
    }

    let g = wait_over(&s, &id, Duration::from_secs(300));
    assert_eq!((&g["status"], &g["end_reason"]), (&json!("finished"), &json!("final_ritual")), "{g}");
    let winner = g["winner"].as_str().unwrap_or_else(|| panic!("one winner: {g}")).to_string();
    assert!(winner != ann && winner != ben && !winner.contains("#for-"), "{g}");
    let b = bracket(&s, &id);
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 2, "{b}");
    for c in stages[0]["circles"].as_array().unwrap() {
        let last_lit = strs(&c["last_lit"]);
        // Decision 73: the best-placed goes on, unless it was dropped or replaced: then its
        // place goes to nobody (decision 74 fills the Final table).
        let players = c["players"].as_array().unwrap();
        let best = players.iter().min_by_key(|p| (p["placing"].as_u64(), p["seat"].as_u64())).unwrap();
        let gone = best["name"] == ann.as_str() || best["name"] == ben.as_str();
        assert_eq!(last_lit.len(), usize::from(!gone), "decision 73: advance 1: {c}");
        assert!(!last_lit.iter().any(|n| *n == ann || *n == ben || n.contains("#for-")), "{c}");
        for p in c["players"].as_array().unwrap() {
            if p["name"] == ann.as_str() {
                assert_eq!(p["dropped"], true, "{c}");
            }
            if p["name"] == ben.as_str() {
                assert_eq!(p["replaced_by"], "heuristic", "{c}");
            }
        }
    }
    let finalists = circle_players(&stages[1]["circles"][0]);
    assert_eq!(finalists.len(), 4, "decision 74: a Final of 4: {b}");
    assert!(finalists.iter().all(|n| *n != ann && *n != ben && !n.contains("#for-")), "{b}");
    assert_eq!(stages[1]["circles"][0]["winner"], winner.as_str(), "{b}");
    let st = standings(&s, &id);
    assert_eq!(st[0]["name"], winner.as_str(), "{st:?}");
    let row = |name: &str| st.iter().find(|r| r["name"] == name).unwrap().clone();
    assert_eq!(row(&ann)["status"], "out", "{:?}", row(&ann));
    assert_eq!(row(&ben)["status"], "dropped", "{:?}", row(&ben));
}
