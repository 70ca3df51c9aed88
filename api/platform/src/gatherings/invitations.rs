//! Invitations to a gathering, for people who have no account yet: the organiser issues codes
//! (each shown once); a person claims one with the account name and password of their own
//! choosing, which creates the account and registers it. Only a code's SHA-256 is stored, in
//! the gathering's own invitations stream (`invitations-{gathering_id}`), apart from the
//! public gathering stream.

use crate::codec;
use chrono::{DateTime, Utc};
use flicker_store::{EventStore, ExpectedVersion, Metadata, StoreError, StreamVersion};
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::collections::HashMap;

/// The most codes one request issues, and the most a gathering holds.
pub const MAX_CODES: usize = super::MAX_PLAYERS;

/// Events of an invitations stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum InvitationEvent {
    /// Codes were issued (their SHA-256, hex).
    InvitationsIssued {
        /// The codes' hashes.
        hashes: Vec<String>,
    },
    /// A code was claimed by the account `name`.
    InvitationClaimed {
        /// The code's hash.
        hash: String,
        /// The account created.
        name: String,
    },
}

/// A gathering's invitations as folded.
#[derive(Debug, Clone, Default)]
pub struct Invitations {
    /// Each code's hash, with the account that claimed it.
    pub codes: HashMap<String, Option<String>>,
    /// Claims in order: (account, when).
    pub claimed: Vec<(String, DateTime<Utc>)>,
    /// The stream's version.
    pub version: StreamVersion,
}

/// Why a claim is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimRefusal {
    /// No code of this gathering is this one.
    Unknown,
    /// The code was claimed already.
    Used,
}

/// The stream of `gathering`'s invitations.
pub fn stream_of(gathering: &str) -> String {
    format!("invitations-{gathering}")
}

/// The stored form of `code`: its SHA-256, hex.
pub fn hash_of(code: &str) -> String {
    let mut h = sha2::Sha256::new();
    h.update(b"flicker invitation\0");
    h.update(code.trim().as_bytes());
    hex::encode(h.finalize())
}

/// A fresh code: `inv-` and 32 hex digits (128 bits from the OS generator).
pub fn new_code() -> String {
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    format!("inv-{}", hex::encode(bytes))
}

impl Invitations {
    /// Whether `code` may be claimed now.
    pub fn check(&self, code: &str) -> Result<String, ClaimRefusal> {
        let hash = hash_of(code);
        match self.codes.get(&hash) {
            None => Err(ClaimRefusal::Unknown),
            Some(Some(_)) => Err(ClaimRefusal::Used),
            Some(None) => Ok(hash),
        }
    }

    /// Codes not claimed yet.
    pub fn open(&self) -> usize {
        self.codes.values().filter(|c| c.is_none()).count()
    }
}

/// Reads `gathering`'s invitations (empty when none was issued).
pub async fn load(store: &dyn EventStore, gathering: &str) -> Result<Invitations, StoreError> {
    let mut inv = Invitations::default();
    for e in store.read_stream(&stream_of(gathering), StreamVersion::new(1)).await? {
        inv.version = e.stream_version;
        match codec::decode::<InvitationEvent>(&e.event_type, &e.payload) {
            Ok(InvitationEvent::InvitationsIssued { hashes }) => {
                inv.codes.extend(hashes.into_iter().map(|h| (h, None)));
            }
            Ok(InvitationEvent::InvitationClaimed { hash, name }) => {
                inv.codes.insert(hash, Some(name.clone()));
                inv.claimed.push((name, e.recorded_at));
            }
            Err(err) => tracing::warn!(error = %err, "an invitation event that does not decode"),
        }
    }
    Ok(inv)
}

/// Appends `event` at `inv`'s version ([`StoreError::Conflict`] when another command came
/// first).
pub async fn append(
    store: &dyn EventStore,
    gathering: &str,
    inv: &Invitations,
    event: &InvitationEvent,
    actor: &str,
) -> Result<(), StoreError> {
    let expected = ExpectedVersion::from(inv.version);
    let ev = codec::encode(event, 1, Metadata { actor: Some(actor.to_string()), ..Default::default() });
    store.append(&stream_of(gathering), expected, vec![ev]).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A code is claimed once; an unknown one never; only its hash is kept.
    #[test]
    fn a_code_is_claimed_once() {
        let code = new_code();
        assert!(code.starts_with("inv-") && code.len() == 36, "{code}");
        let mut inv = Invitations::default();
        inv.codes.insert(hash_of(&code), None);
        assert_eq!(inv.check(&code), Ok(hash_of(&code)));
        assert_eq!(inv.check(&format!(" {code} ")), Ok(hash_of(&code)), "white space around a pasted code");
        assert_eq!(inv.check(&new_code()), Err(ClaimRefusal::Unknown));
        inv.codes.insert(hash_of(&code), Some("ann".into()));
        assert_eq!(inv.check(&code), Err(ClaimRefusal::Used));
        assert!(!hash_of(&code).contains(&code[4..]), "the code is not stored");
    }
}
