//! A full disk as it happens: the SQLite file on a small tmpfs filled by a
//! ballast file, so that SQLite's own writes fail with SQLITE_FULL (`database or disk is full`)
//! where the writer commits. Before the fix one such failure wedged the writer for good
//! (`attempted to call begin_with at non-zero transaction depth`: 500 on every write even after
//! the ballast went, `/readyz` 200).
//!
//! Needs to mount a tmpfs (root with CAP_SYS_ADMIN, as `./test.sh` runs); without it the test
//! fails and says so: nothing is skipped silently.

mod common;

use common::*;
use reqwest::StatusCode;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A tmpfs of `size`, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = std::env::temp_dir().join(format!("flicker-full-{}", uuid()));
        std::fs::create_dir_all(&dir).unwrap();
        let out =
            Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(&dir).output();
        match out {
            Ok(o) if o.status.success() => Tmpfs(dir),
            Ok(o) => panic!(
                "this test mounts a small tmpfs to fill a disk for real and could not: {} (run it as root, as ./test.sh does)",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => panic!("this test mounts a small tmpfs to fill a disk for real: `mount` failed to run: {e}"),
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Writes zeros to `path` until the file system has no room left.
fn fill(path: &Path) {
    let mut f = std::fs::File::create(path).unwrap();
    let chunk = vec![0u8; 4096];
    while f.write_all(&chunk).and_then(|_| f.sync_data()).is_ok() {}
}

fn register(s: &Server, name: &str) -> reqwest::blocking::Response {
    client()
        .post(s.url("/api/v1/accounts"))
        .json(&json!({"name": name, "password": "password-1", "role": "player"}))
        .send()
        .unwrap()
}

#[test]
fn a_full_disk_answers_503_and_the_writer_recovers_by_itself() {
    let fs = Tmpfs::mount("2m");
    let db = Db::Sqlite(fs.0.join("flicker.db"));
    let s = Server::start_with(db, &[("FLICKER_RATE_PER_TOKEN", "0"), ("FLICKER_RATE_PER_ADDRESS", "0")]);
    let mut acked = Vec::new();
    for i in 0..3 {
        let name = format!("early-{i}");
        assert_eq!(register(&s, &name).status(), StatusCode::CREATED);
        acked.push(name);
    }
    let ballast = fs.0.join("ballast");
    fill(&ballast);
    // Writes fail now: 503 storage-full with Retry-After, never 500, however many are tried.
    let mut refused = 0;
    for i in 0..40 {
        let name = format!("during-{i}");
        let r = register(&s, &name);
        match r.status() {
            StatusCode::CREATED => acked.push(name),
            StatusCode::SERVICE_UNAVAILABLE => {
                assert!(r.headers().get("retry-after").is_some(), "503 without Retry-After");
                let (_, v, ct) = json_of(r);
                assert_eq!(ct, "application/problem+json");
                assert_eq!(v["type"], "/problems/storage-full", "{v}");
                refused += 1;
            }
            other => panic!("a write on a full disk answered {other}: {:?}", r.text()),
        }
    }
    assert!(refused >= 30, "the disk never filled ({refused} refused)");
    let r = client().get(s.url("/readyz")).send().unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "ready on a full disk");
    // Room again: the server writes again by itself.
    std::fs::remove_file(&ballast).unwrap();
    let mut ready = false;
    for _ in 0..100 {
        if client().get(s.url("/readyz")).send().unwrap().status() == StatusCode::OK {
            ready = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(ready, "/readyz never came back once the disk had room");
    for i in 0..3 {
        let name = format!("after-{i}");
        let r = register(&s, &name);
        assert_eq!(r.status(), StatusCode::CREATED, "{:?}", r.text());
        acked.push(name);
    }
    // Nothing acknowledged was lost, across a restart too.
    let db = s.kill();
    let s = Server::start(db);
    for name in &acked {
        login(&s, name, "password-1");
    }
    drop(s);
}
