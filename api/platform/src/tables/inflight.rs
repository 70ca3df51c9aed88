//! The commands of this process whose appends are in flight, by table: a table task woken by
//! the log follower for an append waits for the command that made it to fold its events into
//! the cached table, instead of reading the stream's tail from the database
//! ([`super::Tables::load_settled`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// The longest a load waits for a command in flight (it then reads as any load does).
const WAIT_AT_MOST: Duration = Duration::from_millis(100);

/// Commands in flight, counted by table, with what wakes their waiters.
#[derive(Default)]
pub(super) struct InFlight {
    tables: Mutex<HashMap<String, (usize, Arc<Notify>)>>,
}

/// One command in flight; dropping it (after its table is cached) ends it.
pub(super) struct Guard<'a> {
    of: &'a InFlight,
    table: String,
}

impl InFlight {
    /// A command on `table` begins (its append is about to be sent).
    pub(super) fn begin(&self, table: &str) -> Guard<'_> {
        let mut t = self.tables.lock().expect("in flight");
        t.entry(table.to_string()).or_insert_with(|| (0, Arc::new(Notify::new()))).0 += 1;
        Guard { of: self, table: table.to_string() }
    }

    /// Waits until no command on `table` is in flight, or [`WAIT_AT_MOST`].
    pub(super) async fn settled(&self, table: &str) {
        let Some(notify) = self.tables.lock().expect("in flight").get(table).map(|(_, n)| n.clone()) else { return };
        let done = notify.notified();
        tokio::pin!(done);
        // Registered before the check below, so an end in between is not missed.
        done.as_mut().enable();
        if !self.tables.lock().expect("in flight").contains_key(table) {
            return;
        }
        let _ = tokio::time::timeout(WAIT_AT_MOST, done).await;
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let mut t = self.of.tables.lock().expect("in flight");
        if let Some((n, notify)) = t.get_mut(&self.table) {
            *n -= 1;
            if *n == 0 {
                notify.notify_waiters();
                t.remove(&self.table);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_load_waits_for_the_commands_in_flight() {
        let f = Arc::new(InFlight::default());
        f.settled("t").await;
        let (a, b) = (f.begin("t"), f.begin("t"));
        let waiter = tokio::spawn({
            let f = f.clone();
            async move { f.settled("t").await }
        });
        tokio::task::yield_now().await;
        drop(a);
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "one command is still in flight");
        drop(b);
        waiter.await.unwrap();
        assert!(f.tables.lock().unwrap().is_empty());
    }
}
