//! Live streams (Server-Sent Events): a finished table's stream sends every event its viewer may
//! see, then `finished`, and closes; `Last-Event-ID` resumes after the event it names.

use super::replays::finished_game;
use super::*;
use reqwest::StatusCode;

/// The frames of an SSE body: (`id`, `event`) per frame with data.
fn frames(body: &str) -> Vec<(Option<String>, Option<String>)> {
    body.split("\n\n")
        .filter(|f| f.lines().any(|l| l.starts_with("data:")))
        .map(|f| {
            let field = |name: &str| f.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_string());
            (field("id:"), field("event:"))
        })
        .collect()
}

fn stream(s: &Server, id: &str, last: Option<&str>) -> Vec<(Option<String>, Option<String>)> {
    let mut req = client().get(s.url(&format!("/api/v1/tables/{id}/stream")));
    if let Some(l) = last {
        req = req.header("Last-Event-ID", l);
    }
    let r = send(req);
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    frames(&r.text().expect("the stream of a finished table closes"))
}

#[test]
fn a_finished_tables_stream_ends_with_finished_and_resumes_after_its_last_event_id() {
    let s = Server::start();
    let (id, _) = finished_game(&s);
    let all = stream(&s, &id, None);
    let (last, events) = all.split_last().expect("frames");
    assert_eq!(last, &(None, Some("finished".to_string())), "the stream ends with `finished`, without an id");
    assert!(events.len() > 2, "{all:?}");
    assert!(events.iter().all(|(id, kind)| id.is_some() && kind.as_deref() != Some("finished")), "{all:?}");
    let k = events.len() / 2;
    let resumed = stream(&s, &id, events[k - 1].0.as_deref());
    assert_eq!(resumed.len(), events.len() - k + 1, "resuming after event {k} sends the rest and `finished`");
    assert_eq!(&resumed[..resumed.len() - 1], &events[k..]);
    let (st, v, ct) = get_public(&s, &format!("/api/v1/tables/{id}/stream?after=not-a-cursor"));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(ct, "application/problem+json");
}
