//! `flicker organiser-key`: prints the organiser key a server on this store uses (the key that
//! registering an organiser account needs in `X-Organiser-Key`), generating it once if the
//! store has none yet, as a server's first start would.

/// Arguments of `flicker organiser-key`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The event store: `postgres://…` or a SQLite file. A SQLite file is locked by its
    /// server; its key is also in the file beside it (`flicker.db.organiser-key`), read when the
    /// store is locked.
    #[arg(long, env = "DATABASE_URL", default_value = "flicker.db")]
    database_url: String,
}

/// Prints the key on stdout (alone, for `$(flicker organiser-key)`), notes on stderr.
pub fn run(a: Args) -> std::process::ExitCode {
    if let Ok(k) = std::env::var("FLICKER_ORGANISER_KEY") {
        eprintln!("flicker: FLICKER_ORGANISER_KEY is set: a server started with it uses that key, not the stored one");
        println!("{k}");
        return std::process::ExitCode::SUCCESS;
    }
    let file = flicker_server::server::organiser_key_file(&a.database_url);
    let r = actix_web::rt::System::new().block_on(async {
        let store = flicker_server::store::open(&a.database_url).await?;
        flicker_server::secrets::organiser(store.as_ref(), &Default::default()).await
    });
    match (r, file) {
        (Ok(k), _) => {
            println!("{k}");
            std::process::ExitCode::SUCCESS
        }
        (Err(e), Some(path)) if path.exists() => match std::fs::read_to_string(&path) {
            Ok(k) => {
                eprintln!(
                    "flicker: the store is not readable now ({e}); this is the key its server wrote to {}",
                    path.display()
                );
                println!("{}", k.trim());
                std::process::ExitCode::SUCCESS
            }
            Err(re) => {
                eprintln!("error: reading the organiser key: {e}; and {}: {re}", path.display());
                std::process::ExitCode::FAILURE
            }
        },
        (Err(e), _) => {
            eprintln!("error: reading the organiser key from {}: {e}", a.database_url);
            std::process::ExitCode::FAILURE
        }
    }
}
