//! One module per command.

pub mod build;
pub mod check;
pub mod serve;
