//! JSON the way RocketMQ's peers speak it.
//!
//! Java RocketMQ writes bodies with fastjson, whose default output is not valid JSON: integer
//! map keys are bare (`{0:"127.0.0.1:10911"}`). [`reader`] accepts that and the other fastjson
//! leniencies in front of `serde_json`; [`writer`] produces fastjson's exact output in either
//! style (see [`JsonStyle`]).

mod ordered;
pub mod reader;
pub mod writer;

pub use ordered::OrderedMap;
pub use reader::{JsonError, from_fastjson};
pub use writer::{ArrayWriter, JsonStyle, JsonWriter, ObjectWriter, WriteJson};
