//! R10.11: a client's settings object, before the game reads it.

/// Why a client's settings object was refused before the game's rules were checked: a 400 to
/// the client (the server maps it to problem details), nothing stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsRefusal {
    /// A field the settings do not have (problem type `unknown-field`).
    #[error("{0}")]
    UnknownField(String),
    /// Anything else: not an object, a field the platform sets, a value of the wrong type
    /// (problem type `invalid`).
    #[error("{0}")]
    Invalid(String),
}
