//! The event store port and its adapters ([`flicker_store`]), where the server's modules look
//! for them.

pub use flicker_store::*;
