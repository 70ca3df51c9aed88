//! What a viewer may see (R10.3, R10.8): the per-viewer view of a state, the redaction of each
//! event, and the leak checker that tests and scanners run over both. Built on
//! [`crate::model`] and [`crate::rules`] (a view carries the viewer's prompt); nothing below
//! names this module.

pub mod leaks;
pub mod position;
pub mod redact;
pub mod view;
