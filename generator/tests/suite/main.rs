//! The generator's tests, in one binary: each module builds small fixture sites
//! of its own (`common`, `fixtures/`) and reads what the build made or said.
//! One binary is compiled and linked once, where a binary for each file cost a
//! fresh clone's `make test` half a minute of compiling, and its tests run side
//! by side. `memory.rs` and `scaling.rs` stay binaries of their own: they
//! measure their process (its peak memory, its CPU time), which tests running
//! beside them would disturb.

#[path = "../common/mod.rs"]
mod common;

mod build;
mod check;
mod cli;
mod collections;
mod diagnostics;
mod editor;
mod folders;
mod fuzz_cases;
mod images;
mod islands;
mod languages;
mod layers;
mod parts;
mod publishing;
mod sections;
mod session;
mod storage;
mod structured_data;
