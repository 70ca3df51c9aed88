//! `flicker rotate NAME`: adds the next version of a stored secret to the store's secrets
//! table.

use flicker_server::secrets::{JWT, ORGANISER, SIGNING, rotate};

/// Arguments of `flicker rotate`.
#[derive(clap::Args, Debug)]
pub struct RotateArgs {
    /// The secret: `jwt-secret` (tokens it signed stay valid until they expire),
    /// `replay-signing-key` (its public half stays published at `GET /api/v1/keys/replay`) or
    /// `organiser-key` (the old one stops working).
    #[arg(value_parser = [JWT, SIGNING, ORGANISER])]
    name: String,
    /// The event store. A SQLite file is locked by its server: stop it first.
    #[arg(long, env = "DATABASE_URL", default_value = "flicker.db")]
    database_url: String,
}

/// `flicker rotate NAME`: adds the next version of a stored secret and says what to do next.
pub fn run(a: RotateArgs) -> std::process::ExitCode {
    let r = actix_web::rt::System::new().block_on(async {
        let store = flicker_server::store::open(&a.database_url).await?;
        rotate(store.as_ref(), &a.name).await
    });
    match r {
        Ok(s) => {
            println!("flicker: {} is now at version {} (stored in the secrets table)", a.name, s.version);
            if a.name == SIGNING
                && let Ok(k) = flicker_server::chain::parse_signing_key(&s.value)
            {
                println!("flicker: new replay public key {}", hex::encode(k.verifying_key().as_bytes()));
            }
            if a.name == ORGANISER
                && let Some(path) = flicker_server::server::organiser_key_file(&a.database_url)
            {
                println!("flicker: the server rewrites {} when it starts", path.display());
            }
            println!("flicker: restart every server on this store to use it (servers read their secrets at start)");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: rotating {}: {e}", a.name);
            std::process::ExitCode::FAILURE
        }
    }
}
