//! Accounts as event streams (`account-<name>`): registration with an argon2 password hash,
//! single-use refresh tokens, and long-lived revocable bot tokens. Nothing is updated in place:
//! using a refresh token or revoking a bot token appends an event.

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Argon2, PasswordHash};
use chrono::{DateTime, Utc};
use flicker_store::{EventStore, Metadata, NewEvent, StoreError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Account roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Runs gatherings and tables.
    Organiser,
    /// Plays.
    Player,
    /// A program that plays over the API.
    Bot,
    /// Watches only.
    Spectator,
}

/// Events of an account stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum AccountEvent {
    /// The account was created.
    Registered {
        /// Lower-case account name (the account id).
        name: String,
        /// Role.
        role: Role,
        /// argon2 PHC string.
        password_hash: String,
    },
    /// A refresh token was used (each works once).
    RefreshUsed {
        /// Its id.
        jti: String,
        /// Its session (refresh chain); absent for tokens from before sessions.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        chain: Option<String>,
    },
    /// A session (refresh chain) was revoked: every access and refresh token in it
    /// stops working.
    SessionRevoked {
        /// The chain.
        chain: String,
        /// `logout`, or `refresh_reuse` (a used refresh token was presented again).
        reason: String,
    },
    /// A bot token was issued.
    BotTokenIssued {
        /// Its id.
        jti: String,
        /// A label for people.
        label: String,
        /// Scopes.
        scopes: Vec<String>,
        /// Expiry.
        expires_at: DateTime<Utc>,
    },
    /// A bot token was revoked.
    BotTokenRevoked {
        /// Its id.
        jti: String,
    },
    /// The player's preferences were set (private to the account).
    PreferencesSet {
        /// Auto-pass: the server passes for the player in reaction windows in which they hold
        /// no legal reaction (a Salt window without a 5), at tables that hold their windows.
        auto_pass: bool,
    },
}

impl AccountEvent {
    fn to_new(&self, actor: &str) -> NewEvent {
        crate::codec::encode(self, 1, Metadata { actor: Some(actor.to_string()), ..Default::default() })
    }
}

/// A bot token as recorded in the account stream.
#[derive(Debug, Clone)]
pub struct BotTokenRecord {
    /// Token id.
    pub jti: String,
    /// Its label for people.
    pub label: String,
    /// Scopes.
    pub scopes: Vec<String>,
    /// Expiry.
    pub expires_at: DateTime<Utc>,
    /// Revoked since.
    pub revoked: bool,
}

/// An account folded from its stream.
#[derive(Debug, Clone, Default)]
pub struct Account {
    /// Lower-case name.
    pub name: String,
    /// Role.
    pub role: Option<Role>,
    /// argon2 hash.
    pub password_hash: String,
    /// Used refresh-token ids.
    pub used_refresh: Vec<String>,
    /// Revoked sessions (refresh chains).
    pub revoked_chains: Vec<String>,
    /// Issued bot tokens.
    pub bot_tokens: Vec<BotTokenRecord>,
    /// Auto-pass is on ([`AccountEvent::PreferencesSet`]).
    pub auto_pass: bool,
    /// Stream version.
    pub version: i64,
}

/// The stream of an account.
pub fn stream_of(name: &str) -> String {
    format!("account-{}", name.to_ascii_lowercase())
}

/// Checks a name: 3-32 characters of a-z, 0-9, `_`, `-`.
pub fn valid_name(name: &str) -> bool {
    (3..=32).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Loads an account; `None` if it does not exist.
pub async fn load(store: &dyn EventStore, name: &str) -> Result<Option<Account>, StoreError> {
    let events = store.read_stream(&stream_of(name), crate::store::StreamVersion::new(1)).await?;
    if events.is_empty() {
        return Ok(None);
    }
    let mut a = Account::default();
    for e in events {
        a.version = i64::from(e.stream_version);
        let ev: AccountEvent = crate::codec::decode(&e.event_type, &e.payload)
            .map_err(|err| StoreError::Other(format!("account event: {err}")))?;
        match ev {
            AccountEvent::Registered { name, role, password_hash } => {
                a.name = name;
                a.role = Some(role);
                a.password_hash = password_hash;
            }
            AccountEvent::RefreshUsed { jti, .. } => a.used_refresh.push(jti),
            AccountEvent::SessionRevoked { chain, .. } => a.revoked_chains.push(chain),
            AccountEvent::BotTokenIssued { jti, label, scopes, expires_at } => {
                a.bot_tokens.push(BotTokenRecord { jti, label, scopes, expires_at, revoked: false })
            }
            AccountEvent::BotTokenRevoked { jti } => {
                for t in a.bot_tokens.iter_mut().filter(|t| t.jti == jti) {
                    t.revoked = true;
                }
            }
            AccountEvent::PreferencesSet { auto_pass } => a.auto_pass = auto_pass,
        }
    }
    Ok(Some(a))
}

/// Why an account operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The name is not 3 to 32 characters of letters, digits, `_` or `-` (400
    /// `invalid-request`).
    #[error("a name has 3 to 32 characters: letters, digits, '_' or '-'")]
    InvalidName,
    /// The password is shorter than 8 characters (400 `invalid-request`).
    #[error("a password has at least 8 characters")]
    ShortPassword,
    /// The name (lower-cased) is registered already (409 `name-taken`).
    #[error("the name '{name}' is taken")]
    NameTaken {
        /// The lower-cased name.
        name: String,
    },
    /// Hashing the password failed (500 `internal`).
    #[error("password hashing failed: {0}")]
    Hashing(String),
    /// The event store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Registers an account ([`AccountError::NameTaken`] when the name exists).
pub async fn register(store: &dyn EventStore, name: &str, password: &str, role: Role) -> Result<Account, AccountError> {
    if !valid_name(name) {
        return Err(AccountError::InvalidName);
    }
    if password.chars().count() < 8 {
        return Err(AccountError::ShortPassword);
    }
    // A random salt is drawn from the OS generator.
    let hash = Argon2::default()
        .hash_password(password.as_bytes())
        .map_err(|e| AccountError::Hashing(e.to_string()))?
        .to_string();
    let lower = name.to_ascii_lowercase();
    let ev = AccountEvent::Registered { name: lower.clone(), role, password_hash: hash.clone() };
    match store.append(&stream_of(&lower), crate::store::ExpectedVersion::NO_STREAM, vec![ev.to_new(&lower)]).await {
        Ok(a) => Ok(Account {
            name: lower,
            role: Some(role),
            password_hash: hash,
            version: i64::from(a.version),
            ..Default::default()
        }),
        Err(StoreError::Conflict { .. }) => Err(AccountError::NameTaken { name: lower }),
        Err(e) => Err(e.into()),
    }
}

/// Test fixtures: registers `name` with `role` and no usable password (no hash is computed)
/// unless it exists, for tests that mint tokens directly.
pub async fn ensure_unusable(store: &dyn EventStore, name: &str, role: Role) -> Result<(), StoreError> {
    let lower = name.to_ascii_lowercase();
    let ev = AccountEvent::Registered { name: lower.clone(), role, password_hash: String::new() };
    match store.append(&stream_of(&lower), crate::store::ExpectedVersion::NO_STREAM, vec![ev.to_new(&lower)]).await {
        Ok(_) | Err(StoreError::Conflict { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Checks a password against an argon2 PHC string (false when it is not one).
pub fn verify_hash(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
}

/// An argon2 hash (default parameters, like every account's) of a random password,
/// made once: a login for an unknown name is verified against it, so that it costs what a
/// known name's does and its time does not tell which names exist.
pub fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let mut pw = [0u8; 32];
        rand::fill(&mut pw);
        Argon2::default().hash_password(&pw).expect("argon2 hashing").to_string()
    });
    &DUMMY
}

/// How long [`AccountCache`] keeps an account, milliseconds: a revocation or logout made by
/// another process takes effect within it (this process forgets an account when it appends to
/// it).
pub const ACCOUNT_CACHE_MS: i64 = 2_000;

/// An account as cached, with when it was read.
type Cached = (DateTime<Utc>, std::sync::Arc<Account>);

/// Accounts read for token checks, kept [`ACCOUNT_CACHE_MS`]. Unknown names are not
/// kept (a forged token is read each time; the rate limits bound that).
#[derive(Default)]
pub struct AccountCache {
    entries: std::sync::Mutex<std::collections::HashMap<String, Cached>>,
}

impl AccountCache {
    /// The account `name` at `now` (the server clock), from the cache or the store.
    pub async fn get(
        &self,
        store: &dyn EventStore,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<std::sync::Arc<Account>>, StoreError> {
        let key = name.to_ascii_lowercase();
        if let Some((at, a)) = self.entries.lock().expect("account cache").get(&key)
            && (now - *at).num_milliseconds() < ACCOUNT_CACHE_MS
            && *at <= now
        {
            return Ok(Some(a.clone()));
        }
        let Some(a) = load(store, &key).await? else {
            return Ok(None);
        };
        let a = std::sync::Arc::new(a);
        let mut entries = self.entries.lock().expect("account cache");
        if entries.len() > 100_000 {
            entries.retain(|_, (at, _)| (now - *at).num_milliseconds() < ACCOUNT_CACHE_MS);
        }
        entries.insert(key, (now, a.clone()));
        Ok(Some(a))
    }

    /// Forgets `name` (after this process appended to its stream).
    pub fn forget(&self, name: &str) {
        self.entries.lock().expect("account cache").remove(&name.to_ascii_lowercase());
    }
}

/// Appends an account event at the account's version (optimistic concurrency).
pub async fn append(store: &dyn EventStore, account: &Account, ev: AccountEvent) -> Result<(), StoreError> {
    store
        .append(&stream_of(&account.name), account.version.try_into()?, vec![ev.to_new(&account.name)])
        .await
        .map(|_| ())
}
