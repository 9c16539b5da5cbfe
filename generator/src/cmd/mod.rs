//! One module per command.

pub mod build;
pub mod serve;
