//! Rule tests: actions (being written).
