//! A typed client of the Flicker REST API.
