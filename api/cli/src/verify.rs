//! `flicker verify FILE [--public-key HEX]`: checks a signed replay (the API's
//! `GET /api/v1/tables/{id}/replay.jsonl`, or `flicker simulate --export`) and re-folds it.
//!
//! It recomputes every event's hash from the exact bytes of its line and its predecessor's hash,
//! checks that versions run 1, 2, 3…, that the last line is the signature over the last event's
//! version and hash and the header, by `--public-key` when given (otherwise by the key the file
//! names, and it says that this key is not pinned), then folds the game's events with every
//! check of `flicker replay` and prints the final state and the winner. Any failure exits with
//! status 1 and `error: FILE: line N (event version V (type)): ...`, naming the first failing
//! line: a changed byte anywhere, a dropped or appended event, a bad or missing signature, or an
//! event that does not fit the game.

use flicker_server::chain::{parse_public_key, to_hex, verify};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `flicker verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A signed replay file (JSON Lines, format 2; see the README's "Replay format").
    file: PathBuf,
    /// The Ed25519 public key (64 hex digits) the signature must be by, e.g. the server's from
    /// `GET /api/v1/keys/replay`. Without it the key written in the file is used: that proves the
    /// file is intact since signing, not who signed it.
    #[arg(long, value_name = "HEX")]
    public_key: Option<String>,
    /// Accept a game that has not ended (warn and print the state after its last event).
    #[arg(long)]
    partial: bool,
    /// Print the complete final view as JSON instead of a summary.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> ExitCode {
    let name = a.file.display().to_string();
    let fail = |m: &str| {
        eprintln!("error: {name}: {m}");
        ExitCode::FAILURE
    };
    let pinned = match a.public_key.as_deref().map(parse_public_key).transpose() {
        Ok(k) => k,
        Err(m) => return fail(&format!("--public-key: {m}")),
    };
    let bytes = match std::fs::read(&a.file) {
        Ok(b) => b,
        Err(e) => return fail(&format!("cannot read it: {e}")),
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            return fail(&format!("line {line}: not UTF-8 text (a byte was changed)"));
        }
    };
    let v = match verify(&text, pinned.as_ref()) {
        Ok(v) => v,
        Err(e) => return fail(&format!("verification failed: {e}")),
    };
    let key = hex::encode(v.public_key.as_bytes());
    // Progress and trust notes on stderr, so that `--json` prints the view alone.
    eprintln!(
        "verified: {name}: stream {}, {} events, head {} (event version {})",
        v.stream,
        v.events,
        to_hex(&v.head),
        v.version
    );
    if v.pinned {
        eprintln!("signature: ed25519, valid, by the pinned key {key}");
    } else {
        eprintln!(
            "signature: ed25519, valid, by the key the file names, {key}; that key is NOT pinned: this shows \
             the file is intact since it was signed, not who signed it (pass --public-key with the server's key \
             from GET /api/v1/keys/replay)"
        );
    }
    crate::replay::fold_and_print(&name, &text, a.partial, a.json)
}
