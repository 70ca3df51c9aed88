//! The tournament domain over the Game contract: tables, gatherings and accounts as aggregates, clocks, sight and bots; no HTTP, no SQL.
