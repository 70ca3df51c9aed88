//! Notifications between processes: each process's notifier task announces its latest
//! committed position on [`CHANNEL`], and its listener task hands every notification to this
//! process's subscribers and tells the stream heads ([`super::heads`]) what the others announce.

use super::Shared;
use crate::Position;
use crate::position_of;
use sqlx::postgres::{PgConnectOptions, PgListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// What the notifier task announces to the other processes: the latest position committed by
/// this one. NOTIFY inside an append would serialise every append's commit on PostgreSQL's
/// notification-queue lock (held through the commit's WAL flush), so appends commit without
/// it and one task sends a NOTIFY for all the appends committed meanwhile.
#[derive(Default)]
pub(super) struct Announce {
    /// Wakes the notifier.
    pub(super) wake: tokio::sync::Notify,
    /// The latest position committed here.
    pub(super) latest: AtomicI64,
}

/// The channel every process LISTENs on and NOTIFYs.
pub(super) const CHANNEL: &str = "flicker_events";

/// Announces the latest committed position on [`CHANNEL`] whenever appends have committed since
/// the last announcement; appends committed while one NOTIFY runs share the next. Listeners read
/// the log after any notification, and poll anyway, so a failed NOTIFY only delays them. It
/// sends on a connection of its own, whose backend process id this process's listener knows
/// (its own announcements are not news to it). Ends when the store is dropped.
pub(super) async fn notifier(opts: PgConnectOptions, shared: std::sync::Weak<Shared>, announce: Arc<Announce>) {
    use sqlx::{ConnectOptions, Connection};
    let mut sent = 0;
    let mut conn: Option<sqlx::PgConnection> = None;
    loop {
        announce.wake.notified().await;
        let Some(shared) = shared.upgrade() else { return };
        let latest = announce.latest.load(Ordering::SeqCst);
        if latest <= sent {
            continue;
        }
        if conn.is_none() {
            let connected = async {
                let mut c = opts.connect().await?;
                let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()").fetch_one(&mut c).await?;
                Ok::<_, sqlx::Error>((c, pid))
            };
            match connected.await {
                Ok((c, pid)) => {
                    shared.notifier_pid.store(u32::try_from(pid).unwrap_or(0), Ordering::SeqCst);
                    conn = Some(c);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "NOTIFY connection failed; other processes will poll");
                    continue;
                }
            }
        }
        let Some(c) = conn.as_mut() else { continue };
        match sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(latest.to_string()).execute(&mut *c).await {
            Ok(_) => sent = latest,
            Err(e) => {
                tracing::warn!(error = %e, "NOTIFY failed; other processes will poll");
                if let Some(c) = conn.take() {
                    let _ = c.close().await;
                }
            }
        }
    }
}

/// Hands every notification on to this process's subscribers, and tells the heads what other
/// processes announce. When the connection is lost, notifications may have been missed: the
/// heads are distrusted until the listener listens again and the log's end is read (the
/// followers must reach it). Ends when the store is dropped.
pub(super) async fn listen(mut listener: PgListener, shared: std::sync::Weak<Shared>) {
    // The highest position another process has announced.
    let mut announced: i64 = 0;
    let mut lost = false;
    loop {
        let next = listener.try_recv().await;
        let Some(shared) = shared.upgrade() else { return };
        match next {
            Ok(Some(n)) => {
                let Ok(p) = n.payload().parse::<i64>() else { continue };
                if n.process_id() != shared.notifier_pid.load(Ordering::SeqCst) {
                    announced = announced.max(p);
                    if !lost {
                        shared.heads.announce(announced);
                    }
                }
                let _ = shared.notify.send(position_of(p));
            }
            // Reconnected (listening again) after a lost connection.
            Ok(None) => lost = true,
            Err(e) => {
                tracing::warn!(error = %e, "LISTEN connection lost; reconnecting");
                shared.heads.distrust();
                lost = true;
                drop(shared);
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                continue;
            }
        }
        if lost {
            // Listening now (a notification came, or the reconnection is done): whatever was
            // missed is at or before the log's end as read from here on.
            shared.heads.distrust();
            match sqlx::query_scalar::<_, i64>("SELECT COALESCE(MAX(position), 0)::BIGINT FROM events")
                .fetch_one(&shared.pool)
                .await
            {
                Ok(end) => {
                    announced = announced.max(end);
                    shared.heads.announce(announced);
                    lost = false;
                }
                Err(e) => tracing::warn!(error = %e, "reading the log's end failed; trusting no head yet"),
            }
            // Subscribers poll too, so a missed notification only delays them.
            let _ = shared.notify.send(Position::START);
        }
    }
}
