//! HTTP handlers by resource group: thin adapters from requests to the accounts, the tables and
//! the game (through the Game contract). Each group lists its routes once, in its `routes`;
//! [`register`] registers every group on an actix-web service config and, through
//! utoipa-actix-web, collects the OpenAPI paths from the same calls
//! ([`crate::openapi::document`]).
//!
//! | module | routes |
//! |---|---|
//! | `accounts` | accounts, access and refresh tokens, bot tokens |
//! | `me` | who am I, my tokens, my tables; the list of live tables |
//! | `tables` | practice tables, reading a table, seats, the start |
//! | `chat` | table chat: reading, speaking, muting, its live stream |
//! | `play` | prompts, answers, conceding, each viewer's events |
//! | `replays` | replay steps, the signed export, the replay key |
//! | `gatherings` | gatherings: registration, rosters, circles, stages, standings, organiser controls |
//! | `invitations` | invitation codes to a gathering, claimed with a new account |
//! | `streams` | live Server-Sent Event streams of tables and gatherings |
//! | `operations` | health, readiness, metrics |

mod accounts;
mod chat;
pub(crate) mod gatherings;
mod invitations;
mod me;
mod operations;
mod play;
mod replays;
pub(crate) mod streams;
mod tables;

use crate::accounts::{AccountEvent, Role};
use crate::auth::{ACCESS_TTL_SECS, Caller, MaybeCaller, REFRESH_TTL_SECS, TokenKind};
use crate::game::{GameName, GameSnapshot, with_game};
use crate::problem::Problem;
use crate::spectate;
use crate::state::AppState;
use crate::state::ServedGame;
use crate::store::{Metadata, StoreError};
use crate::tables::{TableError, table_event, viewer_for};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use chrono::{Duration, Utc};
use flicker_game::{Game, SettingsRefusal, Viewer};
use flicker_wire::accounts::*;
use flicker_wire::play::*;
use flicker_wire::replays::*;
use flicker_wire::tables::*;
use serde::Serialize;
use utoipa_actix_web::service_config::ServiceConfig;

type Data = web::Data<AppState>;

pub(crate) use accounts::*;
pub(crate) use tables::*;

/// Registers every route of the API on `cfg`, group by group (the order routes are matched in).
pub fn register(cfg: &mut ServiceConfig) {
    cfg.configure(accounts::routes)
        .configure(me::routes)
        .configure(tables::routes)
        .configure(play::routes)
        .configure(chat::routes)
        .configure(replays::routes)
        // Before `gatherings`, whose `POST …/{id}/{action}` would take `…/invitations`.
        .configure(invitations::routes)
        .configure(gatherings::routes)
        .configure(streams::routes)
        .configure(operations::routes);
}
