//! What the sequence targets check of the commands their node sends: each encodes and decodes
//! back to itself, and a request that is neither oneway nor a response gets exactly one reply,
//! on its connection, echoing its opaque, and nothing else does.

use core::fmt::Debug;

use nameserver_core::ConnId;
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::RemotingCommand;

/// Panics unless `cmd` encodes and decodes back to itself.
pub(crate) fn assert_round_trips(cmd: &RemotingCommand) {
    let bytes = codec::encode_to_vec(cmd).expect("every command we send encodes");
    let (back, _) = codec::decode(&bytes, &Limits::DEFAULT).unwrap().unwrap();
    assert_eq!(&back, cmd);
}

/// A request as handed to the node: what its reply must match.
pub(crate) struct Request {
    conn: ConnId,
    opaque: i32,
    expects_reply: bool,
}

impl Request {
    pub(crate) fn new(conn: ConnId, cmd: &RemotingCommand) -> Self {
        Self { conn, opaque: cmd.opaque, expects_reply: !cmd.is_oneway() && !cmd.is_response() }
    }

    /// The one reply in `out` when the request expects one (`sent` picks the commands sent
    /// on a connection out of the outputs).
    ///
    /// # Panics
    /// When a oneway request or a response got a reply, or a request got none, several, one
    /// on another connection, with another opaque or that is no response.
    pub(crate) fn reply<'a, O: Debug>(
        &self,
        out: &'a [O],
        sent: fn(&O) -> Option<(ConnId, &RemotingCommand)>,
    ) -> Option<&'a RemotingCommand> {
        let replies: Vec<(ConnId, &RemotingCommand)> = out.iter().filter_map(sent).collect();
        if !self.expects_reply {
            assert!(replies.is_empty(), "no reply to a oneway request or a response: {replies:?}");
            return None;
        }
        assert_eq!(replies.len(), 1, "exactly one reply: {out:?}");
        let (to, reply) = replies[0];
        assert_eq!(to, self.conn);
        assert_eq!(reply.opaque, self.opaque);
        assert!(reply.is_response());
        Some(reply)
    }
}
