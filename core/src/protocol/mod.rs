//! Protocol types: commands, codes, typed request headers and bodies.

pub mod body;
mod code;
mod command;
mod go_away;
pub mod request;

pub use code::{LanguageCode, RequestCode, ResponseCode, SerializeType};
pub use command::{FLAG_ONEWAY, FLAG_RESPONSE, RemotingCommand, SERVER_VERSION};
pub use go_away::{GO_AWAY_ABOVE_VERSION, GO_AWAY_REMARK, WhileGoingAway, while_going_away};
pub use request::{HeaderError, Parsed, Request, RouteQuery, RouteRequest};
