//! Table chat (docs/rules-decisions.md 75): table talk as events of the table's own stream
//! ([`TableEvent::ChatSaid`], [`TableEvent::SeatMuted`]), for every game the platform hosts, open
//! from the table's creation until its game ends. Who may speak (a seat whose holder reads the
//! table live, so that what a speaker learns from its own entry counts nothing hidden from it),
//! what a message may hold, how fast, and who may mute an account. Who reads which entries when
//! (seats at once, spectators behind the delay) is [`crate::spectate::chat_sight`].

use super::events::TableEvent;
use super::{Snapshot, TableError};
use chrono::{DateTime, Utc};
use flicker_game::Game;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The longest message, in characters (Unicode scalar values) after trimming.
pub const MAX_CHARS: usize = 280;

/// The most entries one table's chat holds; later messages are refused (`chat-full`).
pub const MAX_ENTRIES: usize = 2_000;

/// At most [`BURST`] messages of one account within [`BURST_SECS`] seconds (`chat-too-fast`).
pub const BURST: usize = 5;

/// See [`BURST`].
pub const BURST_SECS: i64 = 10;

/// What an entry of the chat records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChatKind {
    /// A seat said `text`.
    Said,
    /// The moderator muted `seat`.
    Muted,
    /// The moderator let `seat` speak again.
    Unmuted,
}

/// One entry of a table's chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChatEntry {
    /// Its number in the table's chat, from 1 (every reader's entries are a prefix of the same
    /// list, so the numbers count nothing hidden from it).
    pub number: u32,
    /// What it records.
    pub kind: ChatKind,
    /// The seat that spoke, or was muted or unmuted.
    pub seat: u8,
    /// Who: the speaker's account name for `said`; the moderator for `muted` and `unmuted`.
    pub name: String,
    /// What was said (`said` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// When it was stored (server clock, UTC).
    pub at: DateTime<Utc>,
    /// How many of the game's events were stored before it (never sent: a delayed reader gets
    /// the entry once it sees the game up to there, counted in its own sequence).
    #[serde(skip)]
    pub after_events: usize,
    /// Its stream version (never sent: it counts the game's events too).
    #[serde(skip)]
    pub version: i64,
}

/// The entry `event` adds to `chat` (`None`: not a chat event), stored at stream version
/// `version` and time `at`, after `events` game events.
pub(super) fn entry_of<S>(
    chat: &[ChatEntry],
    events: usize,
    event: &TableEvent<S>,
    version: i64,
    at: DateTime<Utc>,
) -> Option<ChatEntry> {
    let number = chat.len() as u32 + 1;
    let (kind, seat, name, text) = match event {
        TableEvent::ChatSaid { seat, name, text } => (ChatKind::Said, *seat, name.clone(), Some(text.clone())),
        TableEvent::SeatMuted { seat, muted, by } => {
            (if *muted { ChatKind::Muted } else { ChatKind::Unmuted }, *seat, by.clone(), None)
        }
        _ => return None,
    };
    Some(ChatEntry { number, kind, seat, name, text, at, after_events: events, version })
}

/// The message `text` as stored: trimmed; refused ([`TableError::Invalid`]) when empty, longer
/// than [`MAX_CHARS`] characters, or holding a control character (a line break included).
pub fn message(text: &str) -> Result<String, TableError> {
    let text = text.trim();
    let n = text.chars().count();
    if n == 0 {
        return Err(TableError::Invalid("the message is empty".into()));
    }
    if n > MAX_CHARS {
        return Err(TableError::Invalid(format!("a message has at most {MAX_CHARS} characters; this one has {n}")));
    }
    if text.chars().any(char::is_control) {
        return Err(TableError::Invalid("a message is one line, with no control characters".into()));
    }
    Ok(text.to_string())
}

/// The seat `account` speaks from at `snap`: `seat` if given (it must hold it), else its first
/// seat not held by a built-in bot. A seat out of the game while it plays reads the table as a
/// spectator does, behind the delay (R10.8), and may not speak: the number of its own entry
/// would count entries still held back from it. Errors: [`TableError::ChatClosed`] once the
/// game has ended, [`TableError::WrongSeat`], [`TableError::NotSeated`],
/// [`TableError::OutOfGame`].
pub fn speaker<G: Game>(snap: &Snapshot<G>, account: &str, seat: Option<u8>) -> Result<u8, TableError> {
    if snap.finished() {
        return Err(TableError::ChatClosed);
    }
    let mine: Vec<u8> = snap
        .seats_of(account)
        .into_iter()
        .filter(|&s| snap.info.bots.get(s as usize).is_none_or(Option::is_none))
        .collect();
    let s = match seat {
        Some(s) if mine.contains(&s) => s,
        Some(s) => return Err(TableError::WrongSeat { seat: s }),
        None => *mine.first().ok_or(TableError::NotSeated)?,
    };
    let live = !snap.started() || G::in_game(&snap.state, s) || s >= G::players(&snap.state);
    if live { Ok(s) } else { Err(TableError::OutOfGame { seat: s }) }
}

/// Whether `account` is muted at `snap`: a mute of any seat it holds mutes the account (one
/// account holding several practice seats cannot speak from another).
pub fn muted<G: Game>(snap: &Snapshot<G>, account: &str) -> bool {
    snap.seats_of(account).iter().any(|&s| snap.muted.get(s as usize).copied().unwrap_or(false))
}

/// The event of `account` saying `text` from `seat` (see [`speaker`]) at `now` (server clock).
/// Errors: those of [`speaker`] and [`message`]; [`TableError::Muted`] for a muted account
/// ([`muted`]); [`TableError::ChatFull`] past [`MAX_ENTRIES`]; [`TableError::ChatTooFast`] past
/// [`BURST`] messages of the account in [`BURST_SECS`] seconds, with the seconds to wait.
pub fn say<G: Game>(
    snap: &Snapshot<G>,
    account: &str,
    seat: Option<u8>,
    text: &str,
    now: DateTime<Utc>,
) -> Result<TableEvent<G::Settings>, TableError> {
    let seat = speaker(snap, account, seat)?;
    let text = message(text)?;
    if muted(snap, account) {
        return Err(TableError::Muted { seat });
    }
    if snap.chat.len() >= MAX_ENTRIES {
        return Err(TableError::ChatFull);
    }
    let since = now - chrono::Duration::seconds(BURST_SECS);
    let recent: Vec<&ChatEntry> =
        snap.chat.iter().filter(|e| e.kind == ChatKind::Said && e.name == account && e.at > since).collect();
    if recent.len() >= BURST {
        let frees = recent[recent.len() - BURST].at + chrono::Duration::seconds(BURST_SECS);
        let wait = ((frees - now).num_milliseconds().max(0) as u64).div_ceil(1000).max(1);
        return Err(TableError::ChatTooFast { retry_after: u32::try_from(wait).unwrap_or(u32::MAX) });
    }
    Ok(TableEvent::ChatSaid { seat, name: account.to_string(), text })
}

/// Who moderates the chat of `snap`: the organiser of its gathering (`organiser`, as the caller
/// read it), else the table's creator.
pub fn moderator<'a, G: Game>(snap: &'a Snapshot<G>, organiser: Option<&'a str>) -> &'a str {
    organiser.unwrap_or(&snap.info.creator)
}

/// The event of `by` muting (`muted`) or unmuting `seat` at `snap`, whose moderator is
/// `moderator` (see [`moderator`]); `None` when the seat is already so. Errors:
/// [`TableError::NotModerator`], [`TableError::NoSuchSeat`], [`TableError::ChatClosed`] once the
/// game has ended.
pub fn mute<G: Game>(
    snap: &Snapshot<G>,
    by: &str,
    moderator: &str,
    seat: u8,
    muted: bool,
) -> Result<Option<TableEvent<G::Settings>>, TableError> {
    if by != moderator {
        return Err(TableError::NotModerator);
    }
    if snap.finished() {
        return Err(TableError::ChatClosed);
    }
    let Some(&now) = snap.muted.get(seat as usize) else { return Err(TableError::NoSuchSeat { seat }) };
    Ok((now != muted).then(|| TableEvent::SeatMuted { seat, muted, by: by.to_string() }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::FinalFlicker;
    use crate::store::Metadata;
    use crate::tables::{SeatHolder, table_event};
    use chrono::TimeZone;

    type Table = TableEvent<final_flicker::Settings>;

    fn created() -> Table {
        TableEvent::TableCreated {
            table_id: "t".into(),
            game: Default::default(),
            creator: "alice".into(),
            settings: final_flicker::Settings::new(3),
            practice: true,
            position: None,
            gathering: None,
            seated: vec![
                SeatHolder { name: "alice".into(), bot: None },
                SeatHolder { name: "random-bot#1".into(), bot: Some(crate::bots::BotKind::Random) },
                SeatHolder { name: "alice".into(), bot: None },
            ],
            clocks: Default::default(),
            reaction_window_min_ms: 0,
            min_window_at_start: false,
            bot_delay_ms: 0,
            abandonment: 3,
        }
    }

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 5, 12, 0, 0).unwrap()
    }

    /// The table after `created` and `events`, each stored one second after the last.
    fn table(events: &[Table]) -> Snapshot<FinalFlicker> {
        let mut snap = Snapshot::fold_new("t", &[table_event(&created(), Metadata::default())], t0()).unwrap();
        for (i, e) in events.iter().enumerate() {
            let n = table_event(e, Metadata::default());
            let at = t0() + chrono::Duration::seconds(i as i64 + 1);
            snap.apply_parts(i as i64 + 2, &n.event_type, n.schema_version, &n.payload, &n.metadata, at).unwrap();
        }
        snap
    }

    /// Every platform event of a table stream is one the games' replay readers skip
    /// (`flicker_game::replay::PLATFORM_EVENT_TYPES`), and nothing else is.
    #[test]
    fn the_replay_readers_know_every_platform_event() {
        let said = TableEvent::ChatSaid { seat: 0, name: "alice".into(), text: "hi".into() };
        let all: Vec<Table> = vec![
            created(),
            TableEvent::BotSeated { seat: 1, name: "b#1".into(), bot: crate::bots::BotKind::Random },
            TableEvent::SeatTaken { seat: 0, account: "alice".into() },
            TableEvent::SeatReplaced { seat: 0, name: "b#2".into(), bot: crate::bots::BotKind::Heuristic },
            TableEvent::TimeGiven { seconds: 5, by: "org".into() },
            said,
            TableEvent::SeatMuted { seat: 0, muted: true, by: "org".into() },
        ];
        let mut types: Vec<String> = all.iter().map(|e| table_event(e, Metadata::default()).event_type).collect();
        types.sort();
        let mut known: Vec<String> = flicker_game::replay::PLATFORM_EVENT_TYPES.iter().map(|t| t.to_string()).collect();
        known.sort();
        assert_eq!(types, known);
    }

    /// A message is trimmed, 1 to 280 characters (not bytes), one line.
    #[test]
    fn a_message_is_one_line_of_1_to_280_characters() {
        assert_eq!(message("  a bluff  ").unwrap(), "a bluff");
        assert_eq!(message(&"é".repeat(MAX_CHARS)).unwrap().chars().count(), MAX_CHARS);
        for bad in ["", " \t ", "two\nlines", "bell\u{7}", &"é".repeat(MAX_CHARS + 1)] {
            assert!(matches!(message(bad), Err(TableError::Invalid(_))), "{bad:?}");
        }
    }

    /// A seat held by a built-in bot never speaks; an account with several seats speaks from its
    /// first unless it names one; someone without a seat is refused.
    #[test]
    fn only_an_account_seat_speaks() {
        let snap = table(&[]);
        assert_eq!(speaker(&snap, "alice", None).unwrap(), 0);
        assert_eq!(speaker(&snap, "alice", Some(2)).unwrap(), 2);
        assert!(matches!(speaker(&snap, "alice", Some(1)), Err(TableError::WrongSeat { seat: 1 })));
        assert!(matches!(speaker(&snap, "random-bot#1", None), Err(TableError::NotSeated)));
        assert!(matches!(speaker(&snap, "bob", None), Err(TableError::NotSeated)));
    }

    /// Five messages of an account within 10 s, then the sixth waits until the first is 10 s
    /// old, from any seat the account holds.
    #[test]
    fn a_seat_says_at_most_five_messages_in_ten_seconds() {
        let said = |seat| TableEvent::ChatSaid { seat, name: "alice".into(), text: "hi".into() };
        let snap = table(&[said(0), said(0), said(0), said(0), said(0)]);
        // The five were stored at t0+1 s .. t0+5 s.
        let at = t0() + chrono::Duration::seconds(6);
        match say(&snap, "alice", Some(0), "six", at) {
            Err(TableError::ChatTooFast { retry_after }) => assert_eq!(retry_after, 5),
            other => panic!("{other:?}"),
        }
        assert!(matches!(say(&snap, "alice", Some(2), "from my other seat", at), Err(TableError::ChatTooFast { .. })));
        assert!(say(&snap, "alice", Some(0), "six", t0() + chrono::Duration::seconds(11)).is_ok());
    }

    /// The moderator mutes and unmutes; a muted seat's account is refused at every seat it
    /// holds; muting twice records nothing; the chat lists the mutes.
    #[test]
    fn the_moderator_mutes_a_seat() {
        let snap = table(&[]);
        assert!(matches!(mute(&snap, "bob", "alice", 0, true), Err(TableError::NotModerator)));
        assert!(matches!(mute(&snap, "alice", "alice", 9, true), Err(TableError::NoSuchSeat { seat: 9 })));
        let ev = mute(&snap, "alice", "alice", 2, true).unwrap().unwrap();
        let snap = table(&[ev]);
        assert!(mute(&snap, "alice", "alice", 2, true).unwrap().is_none());
        assert!(matches!(say(&snap, "alice", Some(2), "hi", t0()), Err(TableError::Muted { seat: 2 })));
        assert!(matches!(say(&snap, "alice", Some(0), "from seat 0", t0()), Err(TableError::Muted { seat: 0 })));
        assert!(muted(&snap, "alice"));
        let ev = mute(&snap, "alice", "alice", 2, false).unwrap().unwrap();
        let snap = table(&[TableEvent::SeatMuted { seat: 2, muted: true, by: "alice".into() }, ev]);
        assert!(say(&snap, "alice", Some(2), "hi", t0() + chrono::Duration::seconds(60)).is_ok());
        let kinds: Vec<ChatKind> = snap.chat.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [ChatKind::Muted, ChatKind::Unmuted]);
        assert_eq!(snap.chat[1].number, 2);
    }
}
