//! Class tests.

#[allow(unused_imports)]
use super::*;
