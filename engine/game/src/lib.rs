//! The Game contract every game on the Flicker platform implements, and the generic test kit.
