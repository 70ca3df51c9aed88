//! Class rule tests (RULES.md section 8), one file per family; each test names its R-ids.

mod abilities;
mod passives;
mod reactions;
mod ritual;
mod selection;
mod triggers;

use super::kit::*;
use crate::model::classes::ClassId;
use crate::model::event::Event;
