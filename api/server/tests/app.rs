//! The server started in-process on port 0 ([`Application::build`]) and driven over HTTP by the
//! typed client: a practice table from registration to its first prompt.

use flicker_client::types::{CreateTable, Register, Role};
use flicker_client::{Client, routes};
use flicker_server::{Application, Config};

#[actix_web::test]
async fn the_application_serves_on_the_port_it_was_given() {
    let dir = std::env::temp_dir().join(format!("flicker-app-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("flicker.db");
    let app = Application::build(Config::for_tests(&db.display().to_string())).await.expect("the app starts");
    let port = app.port();
    assert_ne!(port, 0, "port 0 means: the system picks one, and the app reports it");
    let handle = app.handle();
    actix_web::rt::spawn(app.run_until_stopped());

    let api = Client::new(&format!("http://127.0.0.1:{port}"));
    let body = Register { name: "alice".into(), password: "correct-horse".into(), role: Role::Player };
    api.send(routes::register(&body, None)).await.expect("registered");
    let token = api.send(routes::login("alice", "correct-horse")).await.expect("logged in").access_token;
    let alice = api.with_token(&token);
    let table = alice.send(routes::create_table(&CreateTable { players: 2, ..Default::default() })).await.unwrap();
    let id = table.table.table_id;
    assert_eq!(table.table.status, "open");
    for seat in 0..2 {
        assert_eq!(alice.send(routes::take_seat(&id, None)).await.unwrap().seat, seat);
    }
    let started = alice.send(routes::start_table(&id)).await.unwrap();
    assert_eq!(started.table.status, "playing");
    let mut prompts = 0;
    for seat in 0..2 {
        if alice.send(routes::prompt(&id, Some(seat))).await.unwrap().prompt.is_some() {
            prompts += 1;
        }
    }
    assert!(prompts >= 1, "a started game waits on someone");

    let refused = api.send(routes::get_gathering("no-such-gathering")).await.expect_err("unknown");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(404));
    assert!(refused.problem().and_then(|p| p.kind.as_deref()).is_some(), "a problem document: {refused}");

    handle.stop(true).await;
    let _ = std::fs::remove_dir_all(&dir);
}
