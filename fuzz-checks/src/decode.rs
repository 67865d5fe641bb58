//! The `decode` target: `codec::decode` on raw bytes never panics, never claims more bytes
//! than it was given, reports `Ok(None)` for every prefix of a frame it can decode, and a
//! decoded command re-encodes to bytes that decode to the same command (its extFields no
//! longer lossy: the re-encoding has one entry per key and no nulls). Wherever the route
//! path's reader (`codec::route_request`) answers for a frame, it answers what the full
//! decode and `Request::parse` make of it.

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{RemotingCommand, Request, RequestCode, RouteRequest};

/// Runs one input (a frame, or bytes that are not one).
///
/// # Panics
/// When a property above breaks.
pub fn run(data: &[u8]) {
    let limits = Limits { max_frame: 1 << 20, max_decompressed: 1 << 20, ..Limits::DEFAULT };
    let Ok(Some((cmd, used))) = codec::decode(data, &limits) else {
        // The route path reads frames the decoder has not checked: it must not panic on them.
        let _ = codec::route_request(data);
        return;
    };
    if let Some(RouteRequest { opaque, oneway, query }) = codec::route_request(&data[..used]) {
        assert!(!cmd.is_response() && cmd.request_code() == RequestCode::GetRouteInfoByTopic);
        assert_eq!((opaque, oneway), (cmd.opaque, cmd.is_oneway()));
        match Request::parse(&cmd, &limits) {
            Ok(Request::GetRouteInfo(full)) => assert_eq!(query, full.query()),
            other => panic!("the route reader answered {query:?}, the full parse {other:?}"),
        }
    }
    assert!(used <= data.len(), "used {used} of {}", data.len());
    assert!(used >= 8, "a frame has a length prefix and a header-length word");
    for cut in [0, 3, 4, 7, 8, used / 2, used - 1] {
        assert_eq!(codec::decode(&data[..cut.min(used - 1)], &limits), Ok(None), "prefix of {cut} bytes");
    }
    let bytes = codec::encode_to_vec(&cmd).expect("a decoded command re-encodes");
    let (again, used_again) = codec::decode(&bytes, &Limits::DEFAULT)
        .expect("a re-encoded command decodes")
        .expect("a re-encoded command is a whole frame");
    assert_eq!(used_again, bytes.len());
    assert_eq!(again, RemotingCommand { ext_fields_lossy: false, ..cmd });
}
