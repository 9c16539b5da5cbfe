//! One module per command.

pub mod applications;
pub mod build;
pub mod check;
pub mod forms;
pub mod messages;
pub mod schema;
pub mod serve;
pub mod translations;
