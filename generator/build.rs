//! Links `site` as a position-dependent executable on Linux. A position-
//! independent one has the loader patch every pointer of its read-only tables
//! (2 MB of them: locale names, vtables, the syntax grammars' strings) at each
//! start, which dirties those pages in every process whether a build reads them
//! or not; linked at a fixed address, they stay in the page cache, untouched
//! until read.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
