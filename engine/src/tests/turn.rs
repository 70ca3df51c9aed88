//! Rule tests: turn (being written).
