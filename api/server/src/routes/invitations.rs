//! Invitations to a gathering for people without an account: the organiser issues codes, each
//! person claims one with a name and password of their own (one password hash each, by
//! design), which creates the account, registers it and signs it in.

use super::gatherings::{get as gathering, organiser_of};
use super::*;
use crate::gatherings::invitations::{self, ClaimRefusal, InvitationEvent, Invitations, MAX_CODES};
use crate::gatherings::{GatheringEvent, Registrant, Status};
use flicker_wire::gatherings::*;

/// How many times an invitations append is tried against concurrent claims.
const ATTEMPTS: usize = 64;

fn started() -> Problem {
    Problem::conflict("gathering-started", "Gathering started", "the gathering has already started")
}

/// Issues invitation codes (organiser, before the start): each shown once, in the answer.
#[utoipa::path(tag = "gatherings", request_body = IssueInvitationsBody, security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id")),
    responses((status = 201, body = InvitationsIssued), (status = 400, body = Problem), (status = 403, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`gathering-started`", body = Problem)))]
#[post("/api/v1/gatherings/{id}/invitations")]
pub async fn issue_invitations(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    body: web::Json<IssueInvitationsBody>,
) -> Result<HttpResponse, Problem> {
    let g = gathering(&state, &id).await?;
    organiser_of(&caller, &g)?;
    if g.status != Status::Registering {
        return Err(started());
    }
    for _ in 0..ATTEMPTS {
        let inv = invitations::load(state.store.as_ref(), &id).await?;
        if body.count == 0 || inv.codes.len() + body.count > MAX_CODES {
            return Err(Problem::invalid(format!(
                "count is 1 to {}: a gathering holds at most {MAX_CODES} codes ({} issued)",
                MAX_CODES.saturating_sub(inv.codes.len()).max(1),
                inv.codes.len()
            )));
        }
        let codes: Vec<String> = (0..body.count).map(|_| invitations::new_code()).collect();
        let ev = InvitationEvent::InvitationsIssued { hashes: codes.iter().map(|c| invitations::hash_of(c)).collect() };
        match invitations::append(state.store.as_ref(), &id, &inv, &ev, &caller.name).await {
            Ok(()) => {
                let links = codes.iter().map(|c| format!("/gatherings/{id}/join#code={c}")).collect();
                return Ok(HttpResponse::Created().json(InvitationsIssued { gathering_id: id.clone(), codes, links }));
            }
            Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Problem::conflict("busy", "Busy", "the invitations kept changing meanwhile; try again"))
}

/// The invitations issued and claimed (organiser).
#[utoipa::path(tag = "gatherings", security(("bearer" = [])), params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, body = InvitationsState), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/invitations")]
pub async fn list_invitations(state: Data, caller: Caller, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    let g = gathering(&state, &id).await?;
    organiser_of(&caller, &g)?;
    let inv = invitations::load(state.store.as_ref(), &id).await?;
    Ok(HttpResponse::Ok().json(InvitationsState {
        issued: inv.codes.len(),
        open: inv.open(),
        claimed: inv
            .claimed
            .iter()
            .map(|(name, at)| ClaimedInvitation { name: name.clone(), claimed_at: *at })
            .collect(),
    }))
}

fn refused(r: ClaimRefusal) -> Problem {
    match r {
        ClaimRefusal::Unknown => Problem::new(
            StatusCode::NOT_FOUND,
            "unknown-invitation",
            "Unknown invitation",
            "no invitation of this gathering has this code",
        ),
        ClaimRefusal::Used => {
            Problem::conflict("invitation-used", "Invitation used", "this invitation was claimed already")
        }
    }
}

/// Claims an invitation (no token): creates the player account `name` with `password`,
/// registers it in the gathering and answers a session for it. Nothing is created when the
/// code is unknown (404 `unknown-invitation`) or used (409 `invitation-used`), the name taken
/// (409 `name-taken`) or the gathering started or full (409). The same claim sent again (the
/// same code, name and password, after a fault) finishes it instead of being refused.
#[utoipa::path(tag = "gatherings", request_body = ClaimBody,
    responses((status = 201, body = ClaimAnswer), (status = 400, body = Problem),
        (status = 404, description = "`not-found` (no such gathering) or `unknown-invitation`", body = Problem),
        (status = 409, description = "`invitation-used`, `name-taken`, `gathering-started` or `gathering-full`", body = Problem)))]
#[post("/api/v1/invitations/claim")]
pub async fn claim_invitation(state: Data, body: web::Json<ClaimBody>) -> Result<HttpResponse, Problem> {
    let id = body.gathering_id.clone();
    let g = gathering(&state, &id).await?;
    let full = |g: &crate::gatherings::Gathering| g.players.len() >= g.settings.capacity();
    let inv = invitations::load(state.store.as_ref(), &id).await?;
    let lower = body.name.to_ascii_lowercase();
    let resumed =
        inv.codes.get(&invitations::hash_of(&body.code)).is_some_and(|c| c.as_deref() == Some(lower.as_str()));
    let name = if resumed {
        // The same person again after a fault between the claim and the registration: their
        // password proves it, and the claim finishes.
        crate::accounts::load(state.store.as_ref(), &lower)
            .await?
            .filter(|a| crate::accounts::verify_hash(&a.password_hash, &body.password))
            .ok_or_else(|| refused(ClaimRefusal::Used))?
            .name
    } else {
        inv.check(&body.code).map_err(refused)?;
        if g.status != Status::Registering {
            return Err(started());
        }
        if full(&g) {
            return Err(crate::gatherings::GatheringRefusal::Full(g.settings.capacity()).into());
        }
        let account = crate::accounts::register(state.store.as_ref(), &body.name, &body.password, Role::Player).await?;
        claim(&state, &id, inv, &body.code, &account.name).await?;
        account.name
    };
    let r = Registrant { name: name.clone(), bot: None, program: false };
    let (g, events) = super::gatherings::append_commuting(&state, &id, &name, |g| {
        if g.registrant(&name).is_some() {
            return Ok(Vec::new());
        }
        if g.status != Status::Registering {
            return Err(started());
        }
        if full(g) {
            return Err(crate::gatherings::GatheringRefusal::Full(g.settings.capacity()).into());
        }
        Ok(vec![GatheringEvent::PlayerRegistered(r.clone())])
    })
    .await?;
    let chain = uuid::Uuid::new_v4().to_string();
    Ok(HttpResponse::Created().json(ClaimAnswer {
        gathering_id: id,
        registered: g.players.len() + events.len(),
        tokens: super::accounts::pair(&state, &name, Role::Player, &chain),
        name,
    }))
}

/// Records the claim of `code` by the account `name` just created. A claim raced by another
/// loses here, with the account made but nothing registered.
async fn claim(state: &AppState, id: &str, mut inv: Invitations, code: &str, name: &str) -> Result<(), Problem> {
    for _ in 0..ATTEMPTS {
        let hash = inv.check(code).map_err(|r| {
            let mut p = refused(r);
            p.detail = format!("{}; the account {name} was created: register it yourself", p.detail);
            p
        })?;
        let ev = InvitationEvent::InvitationClaimed { hash, name: name.to_string() };
        match invitations::append(state.store.as_ref(), id, &inv, &ev, name).await {
            Ok(()) => return Ok(()),
            Err(StoreError::Conflict { .. }) => inv = invitations::load(state.store.as_ref(), id).await?,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Problem::conflict("busy", "Busy", "the invitations kept changing meanwhile; try again"))
}

/// Registers this group's routes.
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(issue_invitations).service(list_invitations).service(claim_invitation);
}
