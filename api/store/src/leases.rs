//! Leases: which API process drives a live stream (a table's clocks and built-in bots, a
//! gathering's manager) when several processes share one store. A lease is an efficiency
//! device, never a correctness one: every action is still an append at an expected version, so
//! two processes that both believe they hold a lease (for a moment, around a lost connection)
//! store one action and refuse the other. Without leases both processes would compute every bot
//! answer and every time-out, and one of the two appends would always be refused.
//!
//! - [`Leases::sole`]: one process serves the store (SQLite, memory): it holds every lease.
//! - [`Leases::postgres`]: PostgreSQL session advisory locks on one dedicated connection per
//!   process (application name [`PG_APPLICATION`]). A lock is released when its process
//!   releases it, or when the process dies or loses its connection (PostgreSQL ends the session),
//!   so a dead process's streams are free at once and taken over by the next claim elsewhere.
//!   Streams are spread by rendezvous hashing over the processes' lease sessions: a process
//!   claims a stream at once when the stream prefers it, and otherwise only once the stream has
//!   gone [`Leases::GRACE`] unheld by it (its preferred process may be gone).

#[cfg(feature = "postgres")]
use crate::StoreError;
use sha2::{Digest, Sha256};
#[cfg(feature = "postgres")]
use std::collections::{HashMap, HashSet};
#[cfg(feature = "postgres")]
use std::sync::Mutex;
use std::time::Duration;
#[cfg(feature = "postgres")]
use std::time::Instant;

/// The `application_name` of every process's lease session (how processes find each other).
pub const PG_APPLICATION: &str = "flicker-leases";

/// The first key of the two-key advisory locks that leases take (`'Flkr'`): the lock space of
/// leases, apart from the one-key locks that appends take per stream.
#[cfg(feature = "postgres")]
const PG_LOCK_CLASS: i32 = 0x466c_6b72;

/// How often the list of processes is read again.
#[cfg(feature = "postgres")]
const PEERS_EVERY: Duration = Duration::from_secs(2);

/// How long the lease session may take to connect or to answer one query before it is taken
/// for lost (its leases with it).
#[cfg(feature = "postgres")]
const SESSION_TIMEOUT: Duration = Duration::from_secs(5);

/// The leases of this process.
pub struct Leases {
    kind: Kind,
}

enum Kind {
    Sole,
    #[cfg(feature = "postgres")]
    Postgres(Box<pg::PgLeases>),
}

/// What the process knows of one stream's lease.
#[cfg(feature = "postgres")]
#[derive(Default)]
struct Book {
    /// Streams whose lease this process holds.
    held: HashSet<String>,
    /// When this process first wanted each stream it does not hold.
    wanted_since: HashMap<String, Instant>,
    /// When a claim of each stream last failed (another process held it).
    refused_at: HashMap<String, Instant>,
    /// Lease sessions of every process (backend pids) and this process's own, as last read.
    peers: Vec<i32>,
    me: i32,
    /// When this process's lease session started (with `me`, it names that session even
    /// after PostgreSQL gives its pid to another).
    me_started: String,
    peers_read: Option<Instant>,
}

impl Leases {
    /// A stream not held by this process and not preferring it is claimed only after this long
    /// (long enough for its preferred process to claim it, short enough that a dead process's
    /// tables wait briefly).
    pub const GRACE: Duration = Duration::from_secs(2);
    /// A claim refused (another process holds the stream) is not tried again for this long.
    pub const RETRY: Duration = Duration::from_millis(500);

    /// One process serves the store: every lease is held, nothing is ever asked of the store.
    pub fn sole() -> Self {
        Leases { kind: Kind::Sole }
    }

    /// Leases on the PostgreSQL database at `url` (a dedicated connection, opened on first use
    /// and again after it is lost).
    #[cfg(feature = "postgres")]
    pub fn postgres(url: &str) -> Self {
        Leases { kind: Kind::Postgres(Box::new(pg::PgLeases::new(url))) }
    }

    /// The leases a store of kind `kind` at `url` needs: PostgreSQL leases for `postgres`, one
    /// process holding all otherwise.
    pub fn for_store(kind: &str, url: &str) -> Self {
        #[cfg(feature = "postgres")]
        if kind == "postgres" {
            return Self::postgres(url);
        }
        let _ = (kind, url);
        Self::sole()
    }

    /// Whether several processes may share the store (leases are taken for real).
    pub fn shared(&self) -> bool {
        !matches!(self.kind, Kind::Sole)
    }

    /// Whether this process holds `stream`'s lease, taking it first if it is free and this
    /// process may claim it now (see the module docs). A store error counts as not held (and
    /// drops every lease this process believed it held when the lease session is lost).
    pub async fn hold(&self, stream: &str) -> bool {
        let _ = stream; // read by the PostgreSQL leases only
        match &self.kind {
            Kind::Sole => true,
            #[cfg(feature = "postgres")]
            Kind::Postgres(p) => p.hold(stream).await.unwrap_or_else(|e| {
                tracing::warn!(error = %e, stream, "lease session failed; holding no lease until it is back");
                false
            }),
        }
    }

    /// Whether this process holds `stream`'s lease, from memory (no claim, no query).
    pub fn holds(&self, stream: &str) -> bool {
        let _ = stream; // read by the PostgreSQL leases only
        match &self.kind {
            Kind::Sole => true,
            #[cfg(feature = "postgres")]
            Kind::Postgres(p) => p.book.lock().expect("leases").held.contains(stream),
        }
    }

    /// Gives `stream`'s lease up (its table ended, its gathering is over). Failures are
    /// logged: the lease then ends with the session.
    pub async fn release(&self, stream: &str) {
        let _ = stream; // read by the PostgreSQL leases only
        match &self.kind {
            Kind::Sole => {}
            #[cfg(feature = "postgres")]
            Kind::Postgres(p) => {
                if let Err(e) = p.release(stream).await {
                    tracing::warn!(error = %e, stream, "releasing a lease failed");
                }
            }
        }
    }

    /// Checks that the lease session still answers (a lost one drops every lease this process
    /// believed it held, and is opened again on the next claim).
    pub async fn heartbeat(&self) {
        match &self.kind {
            Kind::Sole => {}
            #[cfg(feature = "postgres")]
            Kind::Postgres(p) => {
                if let Err(e) = p.heartbeat().await {
                    tracing::warn!(error = %e, "lease session lost; holding no lease until it is back");
                }
            }
        }
    }

    /// How many leases this process holds.
    pub fn held_count(&self) -> usize {
        match &self.kind {
            Kind::Sole => 0,
            #[cfg(feature = "postgres")]
            Kind::Postgres(p) => p.book.lock().expect("leases").held.len(),
        }
    }
}

/// The process among `peers` that `stream` prefers (rendezvous hashing: the highest hash of
/// the stream with each process wins, so a process that leaves moves only its own streams).
/// Hashes are SHA-256 (stable across builds, so processes of two versions agree).
pub fn preferred(stream: &str, peers: &[i32]) -> Option<i32> {
    peers.iter().copied().max_by_key(|&p| {
        let d = Sha256::new().chain_update(stream.as_bytes()).chain_update(p.to_be_bytes()).finalize();
        u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
    })
}

/// The advisory lock key of `stream` (the lease space's second key): the first 4 bytes of its
/// SHA-256. Two streams sharing a key share a lease, which only means one process drives both.
pub fn lock_key(stream: &str) -> i32 {
    let d = Sha256::digest(stream.as_bytes());
    i32::from_be_bytes(d[..4].try_into().expect("4 bytes"))
}

#[cfg(feature = "postgres")]
impl Book {
    /// Whether this process may try to claim `stream` now.
    /// A stream whose claim was refused is not asked for again within [`Leases::RETRY`].
    fn may_claim(&mut self, stream: &str, now: Instant) -> bool {
        if self.refused_at.get(stream).is_some_and(|&t| now - t < Leases::RETRY) {
            return false;
        }
        let since = *self.wanted_since.entry(stream.to_string()).or_insert(now);
        self.peers.len() <= 1 || preferred(stream, &self.peers) == Some(self.me) || now - since >= Leases::GRACE
    }
}

#[cfg(feature = "postgres")]
mod pg {
    use super::*;
    use sqlx::postgres::{PgConnectOptions, PgConnection};
    use sqlx::{ConnectOptions, Row};
    use std::str::FromStr;

    pub(super) struct PgLeases {
        url: String,
        pub(super) book: Mutex<Book>,
        conn: tokio::sync::Mutex<Option<PgConnection>>,
    }

    impl PgLeases {
        pub(super) fn new(url: &str) -> Self {
            PgLeases { url: url.to_string(), book: Mutex::default(), conn: tokio::sync::Mutex::new(None) }
        }

        /// Opens the lease session. The server probes it (TCP keepalives after 10 s idle, every
        /// 5 s, 3 tries), so that a process whose host or network fails without closing the
        /// socket loses its session, and its locks, in about 25 s rather than the system's two
        /// hours. A session this process had before and that PostgreSQL still keeps (its end
        /// not yet noticed) is ended, so that its locks do not outlive it.
        async fn connect(&self) -> Result<PgConnection, StoreError> {
            let opts = PgConnectOptions::from_str(&self.url)?.application_name(PG_APPLICATION).options([
                ("tcp_keepalives_idle", "10"),
                ("tcp_keepalives_interval", "5"),
                ("tcp_keepalives_count", "3"),
            ]);
            let mut c = tokio::time::timeout(SESSION_TIMEOUT, opts.connect())
                .await
                .map_err(|_| StoreError::Other("the lease session did not connect in time".into()))??;
            let (old, started) = {
                let b = self.book.lock().expect("leases");
                (b.me, b.me_started.clone())
            };
            if old != 0 {
                let ended = sqlx::query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE pid = $1 AND application_name = $2 AND backend_start::text = $3",
                )
                .bind(old)
                .bind(PG_APPLICATION)
                .bind(started)
                .fetch_optional(&mut c);
                if let Err(e) = tokio::time::timeout(SESSION_TIMEOUT, ended).await.unwrap_or(Ok(None)) {
                    tracing::warn!(error = %e, pid = old, "ending this process's earlier lease session failed");
                }
            }
            Ok(c)
        }

        pub(super) async fn heartbeat(&self) -> Result<(), StoreError> {
            self.on_session(async |c| sqlx::query("SELECT 1").execute(&mut *c).await.map(drop)).await
        }

        /// Runs `f` on the lease session, opening it if needed; a failure closes it and forgets
        /// every lease held (PostgreSQL ends them with the session).
        async fn on_session<T>(
            &self,
            f: impl AsyncFnOnce(&mut PgConnection) -> Result<T, sqlx::Error>,
        ) -> Result<T, StoreError> {
            let mut conn = self.conn.lock().await;
            if conn.is_none() {
                self.book.lock().expect("leases").held.clear();
                *conn = Some(self.connect().await?);
            }
            let c = conn.as_mut().expect("connected");
            let failed = match tokio::time::timeout(SESSION_TIMEOUT, f(c)).await {
                Ok(Ok(t)) => return Ok(t),
                Ok(Err(e)) => StoreError::from(e),
                Err(_) => StoreError::Other("the lease session did not answer in time".into()),
            };
            // Dropped, not closed: a session that does not answer would not answer the close.
            drop(conn.take());
            self.book.lock().expect("leases").held.clear();
            Err(failed)
        }

        pub(super) async fn read_peers(&self) -> Result<(), StoreError> {
            let (me, peers) = self
                .on_session(async |c| {
                    let row = sqlx::query(
                        "SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()",
                    )
                    .fetch_one(&mut *c)
                    .await?;
                    let me: (i32, String) = (row.get(0), row.get(1));
                    let peers: Vec<i32> = sqlx::query(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() \
                         ORDER BY pid",
                    )
                    .bind(PG_APPLICATION)
                    .fetch_all(&mut *c)
                    .await?
                    .iter()
                    .map(|r| r.get(0))
                    .collect();
                    Ok((me, peers))
                })
                .await?;
            let mut b = self.book.lock().expect("leases");
            (b.me, b.me_started) = me;
            b.peers = peers;
            b.peers_read = Some(Instant::now());
            Ok(())
        }

        pub(super) async fn hold(&self, stream: &str) -> Result<bool, StoreError> {
            let stale = {
                let b = self.book.lock().expect("leases");
                if b.held.contains(stream) {
                    return Ok(true);
                }
                b.peers_read.is_none_or(|t| t.elapsed() >= PEERS_EVERY)
            };
            if stale {
                self.read_peers().await?;
            }
            if !self.book.lock().expect("leases").may_claim(stream, Instant::now()) {
                return Ok(false);
            }
            let key = lock_key(stream);
            let got = self
                .on_session(async |c| {
                    // Another claim of this process may have taken it meanwhile: a session's
                    // advisory locks stack, and one release would then leave it held.
                    if self.book.lock().expect("leases").held.contains(stream) {
                        return Ok(true);
                    }
                    sqlx::query("SELECT pg_try_advisory_lock($1, $2)")
                        .bind(PG_LOCK_CLASS)
                        .bind(key)
                        .fetch_one(&mut *c)
                        .await
                        .map(|r| r.get::<bool, _>(0))
                })
                .await?;
            let mut b = self.book.lock().expect("leases");
            if got {
                b.wanted_since.remove(stream);
                b.refused_at.remove(stream);
                b.held.insert(stream.to_string());
            } else {
                b.refused_at.insert(stream.to_string(), Instant::now());
            }
            Ok(got)
        }

        pub(super) async fn release(&self, stream: &str) -> Result<(), StoreError> {
            {
                let mut b = self.book.lock().expect("leases");
                b.wanted_since.remove(stream);
                b.refused_at.remove(stream);
                if !b.held.remove(stream) {
                    return Ok(());
                }
            }
            let key = lock_key(stream);
            self.on_session(async |c| {
                sqlx::query("SELECT pg_advisory_unlock($1, $2)").bind(PG_LOCK_CLASS).bind(key).execute(&mut *c).await
            })
            .await
            .map(drop)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn rendezvous_moves_only_a_leaving_process_streams() {
        let streams: Vec<String> = (0..2000).map(|i| format!("table-{i}")).collect();
        let three = [10, 20, 30];
        let two = [10, 30];
        let mut counts = HashMap::new();
        for s in &streams {
            let p = preferred(s, &three).unwrap();
            *counts.entry(p).or_insert(0) += 1;
            if p != 20 {
                assert_eq!(preferred(s, &two), Some(p), "{s} moved although its process stayed");
            }
        }
        for p in three {
            assert!((500..=834).contains(&counts[&p]), "uneven spread: {counts:?}");
        }
    }

    #[tokio::test]
    async fn a_sole_process_holds_every_lease() {
        let l = Leases::sole();
        assert!(l.hold("table-x").await);
        assert!(l.holds("anything"));
        assert!(!l.shared());
    }

    /// Two processes' leases on one database (`FLICKER_TEST_POSTGRES_URL`, set by `./test.sh`):
    /// a stream is held by one session at a time, a released or dead session's streams are
    /// taken over, and a stream preferring the other process waits [`Leases::GRACE`].
    #[cfg(feature = "postgres")]
    #[tokio::test]
    async fn postgres_leases_exclude_and_hand_over() {
        let Ok(url) = std::env::var("FLICKER_TEST_POSTGRES_URL") else {
            panic!("FLICKER_TEST_POSTGRES_URL is not set: run ./test.sh, which starts a throwaway PostgreSQL");
        };
        let a = Leases::postgres(&url);
        let b = Leases::postgres(&url);
        let run = uuid::Uuid::new_v4();
        // Both sessions exist before either claims (the peers are read on first use).
        let warm = format!("warm-{run}");
        a.hold(&warm).await;
        b.hold(&warm).await;
        let Kind::Postgres(pa) = &a.kind else { unreachable!() };
        let Kind::Postgres(pb) = &b.kind else { unreachable!() };
        pa.read_peers().await.unwrap();
        pb.read_peers().await.unwrap();
        let peers = pa.book.lock().unwrap().peers.clone();
        let (me_a, me_b) = (pa.book.lock().unwrap().me, pb.book.lock().unwrap().me);
        assert!(peers.contains(&me_a) && peers.contains(&me_b), "{peers:?}");
        // A stream that prefers A (among these two sessions and any other test's).
        let mine = (0..).map(|i| format!("table-{run}-{i}")).find(|s| preferred(s, &peers) == Some(me_a)).unwrap();
        assert!(!b.hold(&mine).await, "B waits for A, the preferred process");
        assert!(a.hold(&mine).await, "A claims at once");
        assert!(a.holds(&mine) && !b.holds(&mine));
        tokio::time::sleep(Leases::GRACE).await;
        assert!(!b.hold(&mine).await, "after the grace B tries, but A holds it");
        tokio::time::sleep(Leases::RETRY).await;
        a.release(&mine).await;
        assert!(b.hold(&mine).await, "released, so B takes it over");
        // B's session dies: A takes its streams over.
        drop(b);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut took = false;
        for _ in 0..20 {
            if a.hold(&mine).await {
                took = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(took, "a dead session's lease is taken over");
        // A's session is ended from outside (a failover, an operator): the heartbeat notices,
        // A holds nothing any more, and its next claim opens a new session.
        let pid = pa.book.lock().unwrap().me;
        let mut admin = {
            use sqlx::ConnectOptions;
            <sqlx::postgres::PgConnectOptions as std::str::FromStr>::from_str(&url).unwrap().connect().await.unwrap()
        };
        sqlx::query("SELECT pg_terminate_backend($1)").bind(pid).execute(&mut admin).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        a.heartbeat().await;
        assert!(!a.holds(&mine), "a lost session holds no lease");
        assert!(a.hold(&mine).await, "a new session claims again");
    }
}
