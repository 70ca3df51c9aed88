//! The hash encoding, the signed export and the verifier.

use super::*;
use crate::store::StoredEvent;
use final_flicker::replay::read_replay_versioned;

fn key(n: u8) -> SigningKey {
    SigningKey::from_bytes(&[n; 32])
}

/// A small signed stream: two platform events, then three others (payload shapes vary).
fn small() -> (String, Vec<ChainEvent>) {
    let stream = "table-0b7c".to_string();
    let chain = chain_of(
        &stream,
        [
            ("table_created", r#"{"creator":"alice","practice":false}"#),
            ("seat_taken", r#"{"account":"bob","seat":1}"#),
            ("game_created", r#"{"n": [1, 2.5, -3], "s": "é\"\\"}"#),
            ("turn_started", r#"{"seat":0}"#),
            ("game_ended", r#"{"winner":0}"#),
        ]
        .map(|(t, p)| (t.to_string(), 1, p.to_string())),
    );
    (stream, chain)
}

fn signed(stream: &str, chain: &[ChainEvent], k: &SigningKey) -> String {
    let mut buf = Vec::new();
    write_signed(&mut buf, stream, &RulesetId::current(), chain, k).unwrap();
    String::from_utf8(buf).unwrap()
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(String::from).collect()
}

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn fails(text: &str) -> VerifyError {
    verify(text, None).expect_err("verification must fail")
}

#[test]
fn the_event_hash_is_sha256_over_the_documented_encoding() {
    let prev = [7u8; 32];
    let mut bytes = b"flicker/event-hash/v1\0".to_vec();
    bytes.extend_from_slice(&prev);
    bytes.extend_from_slice(&9u64.to_be_bytes());
    bytes.extend_from_slice(b"table-abc");
    bytes.extend_from_slice(&3i64.to_be_bytes());
    bytes.extend_from_slice(&4u64.to_be_bytes());
    bytes.extend_from_slice(b"drew");
    bytes.extend_from_slice(&1i32.to_be_bytes());
    bytes.extend_from_slice(&10u64.to_be_bytes());
    bytes.extend_from_slice(br#"{"card":5}"#);
    let want: Hash = Sha256::digest(&bytes).into();
    let got = event_hash(&prev, "table-abc", 3, "drew", 1, br#"{"card":5}"#);
    assert_eq!(got, want);
    // Pinned: a change of the encoding breaks every stored chain, so it must be deliberate.
    assert_eq!(
        to_hex(&event_hash(&GENESIS, "table-abc", 1, "game_created", 1, b"{}")),
        "e3be555ae4b388cad3c971729771f889183ae54f57eebc5ea32f86e103bdbdda"
    );
    // Lengths are prefixed: moving a byte from one field to the next changes the hash.
    assert_ne!(event_hash(&GENESIS, "ab", 1, "c", 1, b"{}"), event_hash(&GENESIS, "a", 1, "bc", 1, b"{}"));
    assert_ne!(event_hash(&GENESIS, "s", 1, "t", 1, b"1"), event_hash(&GENESIS, "s", 1, "t", 1, b"1 "));
    assert_ne!(event_hash(&GENESIS, "s", 1, "t", 1, b"1"), event_hash(&prev, "s", 1, "t", 1, b"1"));
    assert_ne!(event_hash(&GENESIS, "s", 1, "t", 1, b"1"), event_hash(&GENESIS, "s", 2, "t", 1, b"1"));
    assert_ne!(event_hash(&GENESIS, "s", 1, "t", 1, b"1"), event_hash(&GENESIS, "s", 1, "t", 2, b"1"));
}

#[test]
fn hashes_have_one_spelling() {
    let h = event_hash(&GENESIS, "s", 1, "t", 1, b"1");
    assert_eq!(parse_hash(&to_hex(&h)), Some(h));
    assert_eq!(parse_hash(&to_hex(&h).to_uppercase()), None);
    assert_eq!(parse_hash(&to_hex(&h)[1..]), None);
    assert_eq!(to_hex(&GENESIS), "0".repeat(64));
}

#[test]
fn an_intact_replay_verifies_with_its_own_key_or_a_pinned_one() {
    let (stream, chain) = small();
    let text = signed(&stream, &chain, &key(1));
    let v = verify(&text, None).unwrap();
    assert_eq!((v.stream.as_str(), v.events, v.version, v.head), (stream.as_str(), 5, 5, chain[4].hash));
    assert!(!v.pinned);
    let v = verify(&text, Some(&key(1).verifying_key())).unwrap();
    assert!(v.pinned);
    let e = verify(&text, Some(&key(2).verifying_key())).unwrap_err();
    assert_eq!((e.line, e.at.as_str()), (7, "signature"));
    assert!(e.message.contains("not by the pinned key"), "{e}");
    // An empty stream signs the genesis hash at version 0.
    let empty = signed(&stream, &[], &key(1));
    assert_eq!(verify(&empty, None).unwrap().head, GENESIS);
}

#[test]
fn a_changed_byte_anywhere_fails() {
    let (stream, chain) = small();
    let text = signed(&stream, &chain, &key(1));
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x20] {
            let mut changed = bytes.to_vec();
            changed[i] ^= flip;
            let Ok(changed) = String::from_utf8(changed) else { continue };
            let r = verify(&changed, None);
            assert!(r.is_err(), "byte {i} ({:?}) ^ {flip:#x} went unnoticed", bytes[i] as char);
        }
    }
}

#[test]
fn a_changed_field_fails_naming_the_event() {
    let (stream, chain) = small();
    let text = signed(&stream, &chain, &key(1));
    let original = lines(&text);
    // Line 5 is event version 4 (turn_started).
    let edits: [(&str, &str, &str); 6] = [
        ("payload", r#""seat":0"#, r#""seat":1"#),
        ("payload whitespace", r#""seat":0"#, r#""seat": 0"#),
        ("type", "turn_started", "turn_startes"),
        ("schema", r#""schema":1"#, r#""schema":2"#),
        ("version", r#""version":4"#, r#""version":5"#),
        ("hash", r#""hash":""#, r#""hash":"0"#),
    ];
    for (what, from, to) in edits {
        let mut edited = original.clone();
        let line = &edited[4];
        let at = line.find(from).unwrap_or_else(|| panic!("{what}: {from} not in {line}"));
        let mut l = line.clone();
        l.replace_range(at..at + from.len(), to);
        if what == "hash" {
            l.replace_range(l.len() - 3..l.len() - 2, ""); // keep 64 digits
        }
        edited[4] = l;
        let e = fails(&joined(&edited));
        assert_eq!(e.line, 5, "{what}: {e}");
        assert!(e.at.starts_with("event version"), "{what}: {e}");
        assert!(e.at.contains("turn_start"), "{what}: {e}");
    }
    // The payload of the first event: named too.
    let mut edited = original.clone();
    edited[1] = edited[1].replace("alice", "alicf");
    let e = fails(&joined(&edited));
    assert_eq!((e.line, e.at.as_str()), (2, "event version 1 (table_created)"), "{e}");
    assert!(e.message.contains("the hash does not match"), "{e}");
    // The header (its stream or ruleset): the signature covers it.
    let mut edited = original.clone();
    edited[0] = edited[0].replace(r#""version":1}"#, r#""version":2}"#);
    let e = fails(&joined(&edited));
    assert_eq!(e.at, "signature", "{e}");
}

#[test]
fn a_recomputed_chain_fails_at_the_signature() {
    let (stream, mut chain) = small();
    let text = signed(&stream, &chain, &key(1));
    let trailer = lines(&text).pop().unwrap();
    chain[2].payload = r#"{"n": [1, 2.5, -4], "s": "é\"\\"}"#.into();
    let rechained = chain_of(&stream, chain.into_iter().map(|e| (e.event_type, e.schema, e.payload)));
    let mut forged = lines(&signed(&stream, &rechained, &key(1)));
    *forged.last_mut().unwrap() = trailer;
    let e = fails(&joined(&forged));
    assert_eq!((e.line, e.at.as_str()), (7, "signature"), "{e}");
    assert!(e.message.contains("head hash"), "{e}");
}

#[test]
fn a_dropped_event_fails_naming_it() {
    let (stream, chain) = small();
    let original = lines(&signed(&stream, &chain, &key(1)));
    // In the middle: the next line names the missing version.
    let mut cut = original.clone();
    cut.remove(3);
    let e = fails(&joined(&cut));
    assert_eq!((e.line, e.at.as_str()), (4, "event version 4 (turn_started)"), "{e}");
    assert!(e.message.contains("3 is missing"), "{e}");
    // The first.
    let mut cut = original.clone();
    cut.remove(1);
    let e = fails(&joined(&cut));
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("1 is missing"), "{e}");
    // The last: the signature names the head the file no longer has.
    let mut cut = original.clone();
    cut.remove(5);
    let e = fails(&joined(&cut));
    assert_eq!(e.at, "signature", "{e}");
    assert!(e.message.contains("event version 5") && e.message.contains("dropped"), "{e}");
    assert!(e.message.contains("event version 4 (turn_started"), "{e}");
    // The signature itself.
    let mut cut = original.clone();
    cut.pop();
    let e = fails(&joined(&cut));
    assert_eq!((e.line, e.at.as_str()), (7, "signature"), "{e}");
    assert!(e.message.contains("missing"), "{e}");
}

#[test]
fn an_appended_event_fails_naming_it() {
    let (stream, chain) = small();
    let original = lines(&signed(&stream, &chain, &key(1)));
    // With a correct hash, before the signature line.
    let mut longer = chain.clone();
    let extra = event_hash(&chain[4].hash, &stream, 6, "turn_started", 1, br#"{"seat":1}"#);
    longer.push(ChainEvent {
        version: 6,
        event_type: "turn_started".into(),
        schema: 1,
        payload: r#"{"seat":1}"#.into(),
        hash: extra,
    });
    let mut appended = original.clone();
    appended.insert(6, event_line(&longer[5]));
    let e = fails(&joined(&appended));
    assert_eq!((e.line, e.at.as_str()), (7, "event version 6 (turn_started)"), "{e}");
    assert!(e.message.contains("appended"), "{e}");
    // After the signature line.
    let mut appended = original.clone();
    appended.push(event_line(&longer[5]));
    let e = fails(&joined(&appended));
    assert_eq!((e.line, e.at.as_str()), (8, "event version 6 (turn_started)"), "{e}");
    // A repeated event.
    let mut appended = original.clone();
    appended.insert(3, original[2].clone());
    let e = fails(&joined(&appended));
    assert_eq!((e.line, e.at.as_str()), (4, "event version 2 (seat_taken)"), "{e}");
}

#[test]
fn a_tampered_signature_fails() {
    let (stream, chain) = small();
    let original = lines(&signed(&stream, &chain, &key(1)));
    let sig = original.last().unwrap().clone();
    let value_at = sig.find(r#""value":""#).unwrap() + r#""value":""#.len();
    let mut flipped = sig.clone();
    let c = if &sig[value_at + 3..value_at + 4] == "0" { "1" } else { "0" };
    flipped.replace_range(value_at + 3..value_at + 4, c);
    let mut edited = original.clone();
    *edited.last_mut().unwrap() = flipped;
    let e = fails(&joined(&edited));
    assert_eq!((e.line, e.at.as_str()), (7, "signature"), "{e}");
    assert!(e.message.contains("does not verify"), "{e}");
    // Signed by another key that the file then names: valid unless the key is pinned.
    let other = lines(&signed(&stream, &chain, &key(3)));
    assert!(verify(&joined(&other), None).is_ok());
    assert!(verify(&joined(&other), Some(&key(1).verifying_key())).is_err());
    // A key swapped in without re-signing.
    let mut swapped = original.clone();
    let pk1 = hex::encode(key(1).verifying_key().as_bytes());
    let pk3 = hex::encode(key(3).verifying_key().as_bytes());
    *swapped.last_mut().unwrap() = sig.replace(&pk1, &pk3);
    let e = fails(&joined(&swapped));
    assert_eq!(e.at, "signature", "{e}");
}

#[test]
fn a_format_1_replay_has_nothing_to_verify() {
    let mut buf = Vec::new();
    final_flicker::replay::write_replay(&mut buf, &[]).unwrap();
    let e = fails(std::str::from_utf8(&buf).unwrap());
    assert_eq!(e.line, 1);
    assert!(e.message.contains("format 1"), "{e}");
}

#[test]
fn a_simulated_game_exports_verifies_and_reads_back() {
    use rand::SeedableRng;
    let settings = final_flicker::Settings::new(3);
    let mut table = rand::rngs::ChaCha8Rng::seed_from_u64(1);
    let mut bot = rand::rngs::ChaCha8Rng::seed_from_u64(2);
    let p =
        flicker_lab::sim::play(&settings, &[flicker_lab::sim::Policy::Random], &mut table, &mut bot, false, 1_000_000)
            .unwrap();
    let chain = chain_of_engine_events::<crate::games::FinalFlicker>("simulation-1", &p.events);
    let text = signed("simulation-1", &chain, &key(4));
    verify(&text, Some(&key(4).verifying_key())).unwrap();
    let (_, events) = read_replay_versioned(text.as_bytes()).unwrap();
    assert_eq!(events.len(), p.events.len());
    assert!(events.iter().zip(&p.events).enumerate().all(|(i, ((v, a), b))| *v == i as u64 + 1 && a == b));
}

#[test]
fn platform_events_come_before_the_game_in_a_signed_replay() {
    let (stream, chain) = small();
    let mut with_game = chain[..2].to_vec();
    let game = final_flicker::create(&final_flicker::Settings::new(2), &mut {
        use rand::SeedableRng;
        rand::rngs::ChaCha8Rng::seed_from_u64(3)
    })
    .unwrap();
    let mut prev = with_game[1].hash;
    for (i, e) in game.iter().enumerate() {
        let n = crate::tables::engine_event::<crate::games::FinalFlicker>(e, Default::default());
        let version = i as i64 + 3;
        let payload = payload_text(&n.payload);
        let hash = event_hash(&prev, &stream, version, &n.event_type, n.schema_version, payload.as_bytes());
        prev = hash;
        with_game.push(ChainEvent { version, event_type: n.event_type, schema: n.schema_version, payload, hash });
    }
    let text = signed(&stream, &with_game, &key(1));
    verify(&text, None).unwrap();
    let (_, events) = read_replay_versioned(text.as_bytes()).unwrap();
    assert_eq!(events.len(), game.len());
    assert_eq!(events[0].0, 3, "game events keep their stream versions");
}

#[test]
fn rechain_refuses_a_stored_hash_that_does_not_recompute() {
    let (stream, chain) = small();
    let stored: Vec<StoredEvent> = chain
        .iter()
        .map(|c| StoredEvent {
            position: crate::store::Position::new(c.version as u64),
            stream_id: stream.clone(),
            stream_version: crate::store::StreamVersion::new(c.version as u64),
            event_type: c.event_type.clone(),
            schema_version: c.schema,
            payload: serde_json::from_str(&c.payload).unwrap(),
            payload_text: c.payload.clone(),
            hash: (c.version != 2).then(|| to_hex(&c.hash)),
            metadata: Default::default(),
            recorded_at: chrono::Utc::now(),
        })
        .collect();
    assert_eq!(rechain(&stream, &stored).unwrap(), chain, "a missing (pre-migration) hash is recomputed");
    let mut bad = stored.clone();
    bad[3].payload_text = r#"{"seat":9}"#.into();
    let e = rechain(&stream, &bad).unwrap_err();
    assert!(e.contains("event 4 (turn_started)"), "{e}");
}
