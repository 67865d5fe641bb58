//! Protocol types: commands, codes, typed request headers and bodies.

pub mod body;
mod code;
mod command;
pub mod request;

pub use code::{LanguageCode, RequestCode, ResponseCode, SerializeType};
pub use command::{FLAG_ONEWAY, FLAG_RESPONSE, RemotingCommand, SERVER_VERSION};
pub use request::{HeaderError, Request};
