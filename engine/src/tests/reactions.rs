//! Rule tests: reactions (being written).
