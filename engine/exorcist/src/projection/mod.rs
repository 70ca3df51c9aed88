//! Per-viewer projections (R10.8, X11): the shapes hidden information may take
//! ([`shown`]), views ([`view`]), redacted events ([`redact`]) and the leak checker ([`leaks`]).

pub mod leaks;
pub mod redact;
pub mod shown;
pub mod view;
