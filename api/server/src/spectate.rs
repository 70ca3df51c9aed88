//! R10.8 sight for a request: the platform's [`flicker_platform::spectate`] over the server's
//! state and its caller.

pub use flicker_platform::spectate::*;

use crate::auth::Caller;
use crate::problem::Problem;
use crate::state::AppState;

/// R10.8: the caller's sight of `snap` (see [`flicker_platform::spectate::sight`]), with the
/// server's store, gathering cache and clock.
pub async fn sight<G: flicker_game::Game>(
    app: &AppState,
    snap: &crate::game::GameSnapshot<G>,
    caller: Option<&Caller>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<Sight, Problem> {
    let name = caller.map(|c| c.name.as_str());
    let now = app.clock.now();
    Ok(flicker_platform::spectate::sight(app.store.as_ref(), &app.gatherings, now, snap, name, seat, commentary)
        .await?)
}
