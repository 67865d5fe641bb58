//! What a graceful shutdown answers (Java 5.5.0's remoting server, PROTOCOL.md §4): while it
//! still serves, a request from a client newer than V5_3_1 gets GO_AWAY instead of being
//! processed, so that the client moves to another connection; older clients are served.

use super::code::ResponseCode;
use super::command::RemotingCommand;

/// The newest client version still served while shutting down: V5_3_1's ordinal. Requests
/// whose `version` is greater get GO_AWAY (5.2.0–5.3.0 compared with V5_1_4 instead).
pub const GO_AWAY_ABOVE_VERSION: i32 = 475;

/// Java's remark on GO_AWAY.
pub const GO_AWAY_REMARK: &str = "please go away";

/// What to do with one incoming command while shutting down gracefully.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WhileGoingAway {
    /// Serve it as usual: a response, or a request from a client at or below V5_3_1.
    Serve,
    /// Answer this GO_AWAY and do not process the request.
    Answer(RemotingCommand),
    /// A oneway request from a newer client: neither processed nor answered (Java writes no
    /// reply to a oneway request, GO_AWAY included).
    Drop,
}

/// The rule for `command` while shutting down gracefully.
#[must_use]
pub fn while_going_away(command: &RemotingCommand) -> WhileGoingAway {
    if command.is_response() || command.version <= GO_AWAY_ABOVE_VERSION {
        WhileGoingAway::Serve
    } else if command.is_oneway() {
        WhileGoingAway::Drop
    } else {
        WhileGoingAway::Answer(RemotingCommand::response_to(command, ResponseCode::GoAway).with_remark(GO_AWAY_REMARK))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{FLAG_ONEWAY, FLAG_RESPONSE, RequestCode, SERVER_VERSION};

    fn request(version: i32, flag: i32) -> RemotingCommand {
        let mut cmd = RemotingCommand::request(RequestCode::GetRouteInfoByTopic);
        cmd.version = version;
        cmd.flag = flag;
        cmd.opaque = 41;
        cmd
    }

    #[test]
    fn clients_above_v5_3_1_get_go_away_with_their_opaque() {
        let WhileGoingAway::Answer(reply) = while_going_away(&request(513, 0)) else { panic!("5.5.0 is served") };
        assert_eq!((reply.code, reply.flag, reply.opaque), (1500, FLAG_RESPONSE, 41));
        assert_eq!(reply.remark.as_deref(), Some("please go away"));
        assert_eq!(reply.version, SERVER_VERSION);
        assert!(matches!(while_going_away(&request(476, 0)), WhileGoingAway::Answer(r) if r.code == 1500));
    }

    #[test]
    fn older_clients_responses_and_oneway_requests() {
        // V5_3_1 itself, 4.9.7 and a client that never set a version are served.
        for version in [475, 407, 0, -1] {
            assert_eq!(while_going_away(&request(version, 0)), WhileGoingAway::Serve, "{version}");
        }
        assert_eq!(while_going_away(&request(513, FLAG_RESPONSE)), WhileGoingAway::Serve);
        assert_eq!(while_going_away(&request(513, FLAG_ONEWAY)), WhileGoingAway::Drop);
        assert_eq!(while_going_away(&request(407, FLAG_ONEWAY)), WhileGoingAway::Serve);
    }
}
