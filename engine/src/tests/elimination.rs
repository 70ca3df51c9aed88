//! Rule tests: elimination (being written).
