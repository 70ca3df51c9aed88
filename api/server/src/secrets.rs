//! The server's secrets (the JWT secret, the replay signing key, the organiser key, the
//! metrics token), kept apart from the append-only event log (which backups, exports and replicas
//! copy): in the environment, or in the store's `secrets` table (migration 0003), one row per
//! version. Rotation (`flicker rotate NAME`) adds a version; the highest is current and older
//! ones keep verifying what they signed.
//!
//! Stores made before the table kept these secrets in the `system-keys`, `system-signing-key`
//! and `system-organiser-key` streams: [`establish`] copies such a secret into the table once
//! (the old event cannot be deleted; rotate to retire it) and never writes one to the log again.

use crate::store::{EventStore, Secret, StoreError};
use chrono::{DateTime, Duration, Utc};
use ed25519_dalek::SigningKey;

/// The longest lifetime of any token (bot tokens, 90 days), seconds: a rotated-out JWT secret
/// verifies tokens this long after its replacement.
pub const BOT_TTL_MAX_SECS: i64 = 90 * 24 * 3600;

/// The JWT secret's name in the `secrets` table.
pub const JWT: &str = "jwt-secret";
/// The replay signing seed's name.
pub const SIGNING: &str = "replay-signing-key";
/// The generated organiser key's name.
pub const ORGANISER: &str = "organiser-key";
/// The fewest bytes an organiser key or a metrics token may have.
pub const MIN_KEY_BYTES: usize = 16;

/// The secrets that `name` was kept in before the `secrets` table: (stream, payload field).
fn legacy(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        JWT => Some(("system-keys", "jwt_secret")),
        SIGNING => Some(("system-signing-key", "seed")),
        ORGANISER => Some(("system-organiser-key", "organiser_key")),
        _ => None,
    }
}

/// A fresh value for the secret `name` from the OS generator, as hex: 32 bytes for the JWT
/// secret and the signing seed, 16 for the organiser key (32 hex digits).
fn generate(name: &str) -> String {
    match name {
        SIGNING => hex::encode(crate::chain::generate_signing_key().to_bytes()),
        ORGANISER => {
            let mut b = [0u8; 16];
            rand::fill(&mut b);
            hex::encode(b)
        }
        _ => {
            let mut b = [0u8; 32];
            rand::fill(&mut b);
            hex::encode(b)
        }
    }
}

/// Every version of the secret `name`, oldest first, creating it when there is none: copied
/// from its old event-log stream if the store has one (saying so in the log), else generated.
/// Safe with several processes starting on one database (a version is added once).
pub async fn establish(store: &dyn EventStore, name: &str) -> Result<Vec<Secret>, StoreError> {
    for _ in 0..3 {
        let have = store.secrets(name).await?;
        if !have.is_empty() {
            return Ok(have);
        }
        let old = match legacy(name) {
            Some((stream, field)) => store
                .read_stream(stream, crate::store::StreamVersion::new(1))
                .await?
                .first()
                .and_then(|e| e.payload[field].as_str().map(str::to_string))
                .map(|v| (stream, v)),
            None => None,
        };
        match old {
            Some((stream, value)) => {
                if store.add_secret(name, 1, &value).await? {
                    tracing::warn!(
                        secret = name,
                        stream,
                        "moved this secret from the event log to the secrets table; the old event stays in the \
                         append-only log (and in its backups and exports): rotate it (`flicker rotate {name}`)"
                    );
                }
            }
            None => {
                store.add_secret(name, 1, &generate(name)).await?;
            }
        }
    }
    Err(StoreError::Other(format!("could not establish the secret {name}")))
}

/// Adds the next version of the secret `name` (a fresh value) and returns it. Servers read
/// secrets at start: restart them after a rotation.
pub async fn rotate(store: &dyn EventStore, name: &str) -> Result<Secret, StoreError> {
    for _ in 0..3 {
        let have = establish(store, name).await?;
        let next = have.last().map_or(1, |s| s.version + 1);
        if store.add_secret(name, next, &generate(name)).await? {
            return store
                .secrets(name)
                .await?
                .into_iter()
                .find(|s| s.version == next)
                .ok_or_else(|| StoreError::Other(format!("secret {name} version {next} vanished")));
        }
    }
    Err(StoreError::Other(format!("could not rotate the secret {name}")))
}

/// The versions of a JWT secret that still verify tokens at `now`: the current (last) one, and
/// every older one replaced less than [`BOT_TTL_MAX_SECS`] ago (a token it signed was issued
/// before its replacement, so it may be alive until then), newest first.
pub fn live_jwt_versions(all: &[Secret], now: DateTime<Utc>) -> Vec<&Secret> {
    let horizon = now - Duration::seconds(BOT_TTL_MAX_SECS);
    let mut live: Vec<&Secret> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| all.get(i + 1).is_none_or(|next| next.created_at > horizon))
        .map(|(_, s)| s)
        .collect();
    live.reverse();
    live
}

/// Secrets given in the environment, read once at start ([`EnvSecrets::from_env`]); tests build
/// them directly.
#[derive(Debug, Clone, Default)]
pub struct EnvSecrets {
    /// `FLICKER_JWT_SECRET` (at least 32 bytes, else the stored secret is used).
    pub jwt: Option<String>,
    /// `FLICKER_JWT_SECRET_PREVIOUS`: earlier secrets (comma-separated) whose tokens still verify.
    pub jwt_previous: Vec<String>,
    /// `FLICKER_SIGNING_KEY`: the replay signing seed (64 hex digits).
    pub signing: Option<String>,
    /// `FLICKER_SIGNING_KEY_PREVIOUS`: earlier public keys (64 hex digits, comma-separated),
    /// published at `GET /api/v1/keys/replay` so that old replays still verify.
    pub signing_previous: Vec<String>,
    /// `FLICKER_ORGANISER_KEY` (at least [`MIN_KEY_BYTES`] bytes).
    pub organiser: Option<String>,
    /// `FLICKER_METRICS_TOKEN` (at least [`MIN_KEY_BYTES`] bytes; unset: `/metrics` is off).
    pub metrics: Option<String>,
}

/// The environment variable `name`, `None` when unset, empty or not Unicode.
pub(crate) fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn list(name: &str) -> Vec<String> {
    var(name).map_or(vec![], |v| v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
}

impl EnvSecrets {
    /// Reads the `FLICKER_*` variables above (empty counts as unset).
    pub fn from_env() -> Self {
        EnvSecrets {
            jwt: var("FLICKER_JWT_SECRET"),
            jwt_previous: list("FLICKER_JWT_SECRET_PREVIOUS"),
            signing: var("FLICKER_SIGNING_KEY"),
            signing_previous: list("FLICKER_SIGNING_KEY_PREVIOUS"),
            organiser: var("FLICKER_ORGANISER_KEY"),
            metrics: var("FLICKER_METRICS_TOKEN"),
        }
    }
}

/// Refuses a key shorter than [`MIN_KEY_BYTES`] with a start-up error naming `var`.
pub fn check_length(var: &str, value: &str) -> Result<(), StoreError> {
    if value.len() < MIN_KEY_BYTES {
        return Err(StoreError::Other(format!(
            "{var} has {} bytes; it needs at least {MIN_KEY_BYTES} (e.g. `openssl rand -hex 16`)",
            value.len()
        )));
    }
    Ok(())
}

/// The JWT secrets: (current, older ones that still verify), as bytes.
pub async fn jwt(store: &dyn EventStore, env: &EnvSecrets) -> Result<(Vec<u8>, Vec<Vec<u8>>), StoreError> {
    if let Some(s) = &env.jwt {
        if s.len() >= 32 {
            let previous = env.jwt_previous.iter().map(|p| p.clone().into_bytes()).collect();
            return Ok((s.clone().into_bytes(), previous));
        }
        tracing::warn!("FLICKER_JWT_SECRET is shorter than 32 bytes; using the stored secret instead");
    }
    let all = establish(store, JWT).await?;
    let live = live_jwt_versions(&all, Utc::now());
    let mut it = live.into_iter().map(|s| s.value.as_bytes().to_vec());
    let current = it.next().ok_or_else(|| StoreError::Other("no JWT secret".into()))?;
    Ok((current, it.collect()))
}

/// A replay-signing public key as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedKey {
    /// 64 lowercase hex digits.
    pub public_key: String,
    /// When the key was added (stored keys only).
    pub created_at: Option<DateTime<Utc>>,
}

/// The replay signing key and every public key to publish (the current one first, then older
/// ones, newest first).
pub async fn signing(store: &dyn EventStore, env: &EnvSecrets) -> Result<(SigningKey, Vec<PublishedKey>), StoreError> {
    let stored = |s: &Secret| -> Result<PublishedKey, StoreError> {
        let k = crate::chain::parse_signing_key(&s.value)
            .map_err(|m| StoreError::Other(format!("the stored signing key, version {}: {m}", s.version)))?;
        Ok(PublishedKey { public_key: hex::encode(k.verifying_key().as_bytes()), created_at: Some(s.created_at) })
    };
    let (key, mut published) = match &env.signing {
        Some(seed) => {
            let key = crate::chain::parse_signing_key(seed)
                .map_err(|m| StoreError::Other(format!("FLICKER_SIGNING_KEY: {m}")))?;
            let mut published =
                vec![PublishedKey { public_key: hex::encode(key.verifying_key().as_bytes()), created_at: None }];
            for p in &env.signing_previous {
                let k = crate::chain::parse_public_key(p)
                    .map_err(|m| StoreError::Other(format!("FLICKER_SIGNING_KEY_PREVIOUS: {p}: {m}")))?;
                published.push(PublishedKey { public_key: hex::encode(k.as_bytes()), created_at: None });
            }
            // Keys the store generated before the variable was set signed replays too.
            for s in store.secrets(SIGNING).await?.iter().rev() {
                published.push(stored(s)?);
            }
            (key, published)
        }
        None => {
            let all = establish(store, SIGNING).await?;
            let last = all.last().ok_or_else(|| StoreError::Other("no signing key".into()))?;
            let key = crate::chain::parse_signing_key(&last.value)
                .map_err(|m| StoreError::Other(format!("the stored signing key: {m}")))?;
            (key, all.iter().rev().map(stored).collect::<Result<Vec<_>, _>>()?)
        }
    };
    let mut seen = std::collections::HashSet::new();
    published.retain(|k| seen.insert(k.public_key.clone()));
    Ok((key, published))
}

/// The organiser key: `FLICKER_ORGANISER_KEY`, else the stored one (generated once).
pub async fn organiser(store: &dyn EventStore, env: &EnvSecrets) -> Result<String, StoreError> {
    if let Some(k) = &env.organiser {
        check_length("FLICKER_ORGANISER_KEY", k)?;
        return Ok(k.clone());
    }
    let all = establish(store, ORGANISER).await?;
    let key = all.last().map(|s| s.value.clone()).ok_or_else(|| StoreError::Other("no organiser key".into()))?;
    check_length("the stored organiser key", &key)?;
    Ok(key)
}

/// Arguments of `flicker rotate`.
#[cfg(test)]
mod tests {
    use super::*;

    fn at(version: i64, days_ago: i64) -> Secret {
        Secret { version, value: format!("v{version}"), created_at: Utc::now() - Duration::days(days_ago) }
    }

    /// A JWT secret replaced long enough ago that every token it signed has expired stops
    /// verifying; the one replaced recently still does.
    #[test]
    fn jwt_versions_retire_after_the_longest_token_lifetime() {
        let all = [at(1, 200), at(2, 100), at(3, 10)];
        let live: Vec<i64> = live_jwt_versions(&all, Utc::now()).iter().map(|s| s.version).collect();
        assert_eq!(live, [3, 2]);
        assert_eq!(live_jwt_versions(&all[..1], Utc::now()).len(), 1);
    }

    #[test]
    fn short_keys_are_refused() {
        assert!(check_length("K", "k").is_err());
        assert!(check_length("K", "0123456789abcde").is_err());
        assert!(check_length("K", "0123456789abcdef").is_ok());
    }
}
