//! One module per command.

pub mod build;
pub mod check;
pub mod messages;
pub mod schema;
pub mod serve;
