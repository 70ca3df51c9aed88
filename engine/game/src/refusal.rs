//! Refusals (R0.1, R10.1.2): a refused command changes nothing and its error names the rule it
//! breaks, without revealing hidden information. Game-neutral: every game refuses with these, and
//! the platform maps each [`ErrorKind`] to one problem `type`.

use serde::Serialize;

/// Kinds of refusal; stable names for the API's problem `type`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The game has not been created, or has already ended.
    NotInPlay,
    /// The seat has no open prompt (R10.1.2).
    NotYourPrompt,
    /// The answer names a prompt that is no longer open.
    StalePrompt,
    /// The answer does not fit the open prompt's kind.
    WrongAnswer,
    /// A card reference does not name a card the seat may use there.
    UnknownCard,
    /// The answer breaks a rule (see `rule`).
    Illegal,
    /// The settings are invalid.
    BadSettings,
    /// A system command (time-out, close window) that does not apply now.
    NothingToDo,
}

/// A refused command: the rule it breaks (an R-id), its kind and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{rule}: {message}")]
pub struct RuleError {
    /// The rule id, such as `R5.3.2`.
    pub rule: &'static str,
    /// The kind of refusal.
    pub kind: ErrorKind,
    /// What was wrong, naming only what the sender may see.
    pub message: String,
}

impl RuleError {
    /// A refusal for breaking `rule`.
    pub fn illegal(rule: &'static str, message: impl Into<String>) -> Self {
        RuleError { rule, kind: ErrorKind::Illegal, message: message.into() }
    }

    /// A refusal of another kind.
    pub fn new(kind: ErrorKind, rule: &'static str, message: impl Into<String>) -> Self {
        RuleError { rule, kind, message: message.into() }
    }
}
