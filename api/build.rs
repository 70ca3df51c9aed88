// New migration files must trigger a rebuild: sqlx::migrate! embeds them.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
