// New migration files must trigger a rebuild: sqlx::migrate! embeds them. So must the web UI's
// files, which rust-embed embeds (a new file is not seen otherwise).
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
    println!("cargo:rerun-if-changed=../../frontend/public");
}
