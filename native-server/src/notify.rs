//! Oneway notices to brokers' own addresses: the NameServer's NOTIFY_MIN_BROKER_ID_CHANGE
//! (905) and the controller's NOTIFY_BROKER_ROLE_CHANGED (1008).
//!
//! Java's NameServer sends this oneway notice with its remoting client: it connects to each
//! member broker's registered address, whose server side handles 905 (a broker's client
//! connection to the NameServer has no processor for it). The core asks for each notice with
//! [`nameserver_core::Output::NotifyBroker`]; the owner hands it here with `try_send` and never
//! waits. Each notice gets its own short connection (connect, write the frame, close): a
//! connection kept for later could have been closed by the broker's idle check in between
//! and lose the next notice silently. Failures are logged and forgotten, as in Java.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use nameserver_core::BrokerAddr;
use nameserver_core::codec;
use nameserver_core::protocol::RemotingCommand;
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, mpsc};

/// Java's `NettyClientConfig.connectTimeoutMillis`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long writing one notice may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(3);
/// Notices waiting to be sent before new ones are dropped (and logged).
const QUEUE: usize = 1024;
/// Notices in flight at once.
const IN_FLIGHT: usize = 64;

/// The owner's handle on the notice sender.
#[derive(Debug, Clone)]
pub(crate) struct Notifier {
    queue: mpsc::Sender<(BrokerAddr, RemotingCommand)>,
    /// What the notices are, in log lines (Java's method name).
    what: &'static str,
}

impl Notifier {
    /// Starts the sender task; it ends when every [`Notifier`] is dropped.
    pub(crate) fn spawn(what: &'static str) -> Self {
        let (queue, notices) = mpsc::channel(QUEUE);
        tokio::spawn(run(notices, what));
        Self { queue, what }
    }

    /// Queues one notice; never waits.
    pub(crate) fn notify(&self, broker_addr: BrokerAddr, cmd: RemotingCommand) {
        if let Err(error) = self.queue.try_send((broker_addr, cmd)) {
            let (addr, _) = error.into_inner();
            tracing::warn!("{}: {QUEUE} notices already waiting, dropping the one to {addr}", self.what);
        }
    }
}

async fn run(mut notices: mpsc::Receiver<(BrokerAddr, RemotingCommand)>, what: &'static str) {
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
    // Java numbers its requests; a oneway notice is never answered, but brokers log the opaque.
    let opaque = AtomicI32::new(0);
    while let Some((addr, mut cmd)) = notices.recv().await {
        let Ok(permit) = Arc::clone(&in_flight).acquire_owned().await else { break };
        cmd.opaque = opaque.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            match send(addr.as_str(), &cmd).await {
                Ok(()) => tracing::debug!("{what}: sent to {addr}"),
                Err(error) => tracing::warn!("{what}: cannot notify {addr}: {error}"),
            }
            drop(permit);
        });
    }
}

/// Connects to `addr`, writes `cmd` and closes the connection with a FIN.
async fn send(addr: &str, cmd: &RemotingCommand) -> std::io::Result<()> {
    let frame = codec::encode_to_vec(cmd).map_err(|error| std::io::Error::other(error.to_string()))?;
    let mut stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "connect timed out"))??;
    stream.set_nodelay(true)?;
    tokio::time::timeout(WRITE_TIMEOUT, async {
        stream.write_all(&frame).await?;
        stream.shutdown().await
    })
    .await
    .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "write timed out"))?
}
