//! What the actors share: how Java words a failed call.

use alloc::string::String;

use crate::node::Failure;

/// How Java words a failed call to `addr` in a log line.
pub(crate) fn failure_text(failure: Failure, addr: &str) -> String {
    match failure {
        Failure::ConnectFailed => alloc::format!("connect to {addr} failed"),
        Failure::Closed => alloc::format!("the channel to {addr} closed"),
        Failure::Timeout => alloc::format!("wait response on the channel <{addr}> timeout"),
    }
}
