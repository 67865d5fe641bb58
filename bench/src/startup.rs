//! Exec → listening: how long a server takes from `spawn` to its first accepted connection,
//! and to its first answered request.

use std::io::{self, Read as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

use nameserver_testkit::frames::{Template, route_query};
use nameserver_testkit::scan::next_reply;

/// One start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartupSample {
    /// From spawn to the first connect that succeeded.
    pub listening: Duration,
    /// From spawn to the reply to one route query sent on that connection.
    pub first_reply: Duration,
}

/// A port that was free a moment ago on 127.0.0.1.
///
/// # Errors
/// No port can be bound.
pub fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port())
}

/// Starts `program args` (with every `{port}` in the arguments replaced by a free port),
/// probes 127.0.0.1:port every `poll` until it accepts, sends one route query, waits for the
/// reply, then kills the process (SIGKILL) and reaps it.
///
/// # Errors
/// The program cannot start, exits, or does not listen within `timeout`.
pub fn measure_once(
    program: &str,
    args: &[String],
    poll: Duration,
    timeout: Duration,
) -> anyhow::Result<StartupSample> {
    let port = free_port()?;
    let args: Vec<String> = args.iter().map(|a| a.replace("{port}", &port.to_string())).collect();
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut query = Vec::new();
    Template::new(&route_query("BenchStartupTopic")).append(nameserver_testkit::frames::OPAQUE_BASE, &mut query);

    let start = Instant::now();
    let mut child = Command::new(program)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {program}"))?;
    let outcome = (|| -> anyhow::Result<StartupSample> {
        let mut stream = loop {
            if let Ok(stream) = TcpStream::connect(addr) {
                break stream;
            }
            if start.elapsed() > timeout {
                bail!("{program} did not listen on {addr} within {timeout:?}");
            }
            if let Some(status) = child.try_wait()? {
                bail!("{program} exited with {status} before listening");
            }
            std::thread::sleep(poll);
        };
        let listening = start.elapsed();
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.write_all(&query)?;
        let mut buf = Vec::with_capacity(4096);
        let mut chunk = [0u8; 4096];
        loop {
            if next_reply(&buf).map_err(|e| anyhow::anyhow!("{e}"))?.is_some() {
                break;
            }
            let n = stream.read(&mut chunk)?;
            if n == 0 {
                bail!("{program} closed the connection without answering");
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        Ok(StartupSample { listening, first_reply: start.elapsed() })
    })();
    let _ = child.kill();
    let _ = child.wait();
    outcome
}
