//! The owner's loop, the same for every port: the NameServer's owner (`owner.rs`) and the
//! embedded controller's (`controller/owner.rs`) each drive their state machine, with no lock,
//! through this one loop ([`Machine`]).
//!
//! It waits for whichever comes first, in this order: a message on the owner's channel (a new
//! connection, a console request, the acceptor's stop), the next connection's turn in the
//! [`Intake`] (round robin), the machine's next deadline, anything else the machine waits for
//! ([`Machine::wake`]), the shutdown. Once the shutdown has begun, the acceptor has stopped and
//! the machine owes nothing more ([`Machine::settled`]) it ends; at the end of the grace period
//! it ends at once.
//!
//! A turn takes one item from each of up to [`BATCH`] connections with items waiting (for up to
//! [`BATCH_TIME`]), not just one item, before the machine [flushes](Machine::flush): a machine
//! may hold back what a batch's requests changed and their replies until then, and publish the
//! change once for the whole batch. One item per connection: a peer that pipelines requests
//! gets its replies one turn apart, as before, each turn leaving its connection time to write.
//! A heavy request (a large registration) joins a turn only while the turn has taken nothing
//! lighter: the light requests' replies do not wait for it, and registrations still batch.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::intake::Intake;
use crate::messages::Inbound;

/// Most intake items (connections) taken in one turn, and the longest a turn goes on taking more. Replies
/// wait for the end of their turn: at most this long plus one request (a heartbeat in a
/// registration storm), a light one unless only heavy ones came before it
/// ([`crate::intake::HEAVY_BYTES`]). When every topic's route is its own, publishing once per turn rather
/// than once per registration, and changing each topic's queue list in place rather than
/// copying it, is most of what a registration costs (issue 35).
pub(crate) const BATCH: usize = 64;
pub(crate) const BATCH_TIME: Duration = Duration::from_millis(50);

/// A state machine an owner task drives: the NameServer or the controller.
pub(crate) trait Machine: Send + 'static {
    /// What the machine waits for besides messages and its deadline.
    type Wake: Send;

    /// Whether it takes requests read by the connection tasks
    /// ([`crate::messages::Handed::read`], with the port's limits).
    const READS_REQUESTS: bool = false;

    /// Before the first message: publish what the console shows.
    fn start(&mut self);

    /// One message from the channel or from a connection's lane (never `AcceptStopped`).
    fn on_inbound(&mut self, message: Inbound);

    /// After each turn of the loop: what [`Self::on_inbound`] held back goes now.
    fn flush(&mut self) {}

    /// When [`Self::on_timer`] is due, on tokio's clock.
    fn next_deadline(&self) -> Instant;

    /// The deadline has come.
    fn on_timer(&mut self);

    /// Resolves when something else the machine waits for happens.
    fn wake(&mut self) -> impl Future<Output = Self::Wake> + Send;

    /// It happened.
    fn on_wake(&mut self, wake: Self::Wake);

    /// Whether every connection and request has been handed all it is owed.
    fn settled(&self) -> bool;

    /// After the loop, the intake closed.
    fn finish(&mut self) {}
}

/// Runs `machine` until the shutdown has handed every connection its replies (or the grace
/// period, ended by `force_close`, is over).
pub(crate) async fn run<M: Machine>(
    mut machine: M,
    mut inbound: mpsc::Receiver<Inbound>,
    intake: Arc<Intake>,
    shutdown: CancellationToken,
    force_close: CancellationToken,
) {
    machine.start();
    let timer = tokio::time::sleep_until(machine.next_deadline());
    tokio::pin!(timer);
    let (mut stopping, mut accept_stopped) = (false, false);
    // The connections the turn took an item from.
    let mut taken = Vec::with_capacity(BATCH);
    loop {
        if stopping && accept_stopped && machine.settled() {
            break;
        }
        let deadline = machine.next_deadline();
        if timer.deadline() != deadline {
            timer.as_mut().reset(deadline);
        }
        tokio::select! {
            biased;
            message = inbound.recv() => match message {
                Some(Inbound::AcceptStopped) => accept_stopped = true,
                Some(message) => machine.on_inbound(message),
                None => break,
            },
            message = intake.next() => {
                take_channel(&mut inbound, &mut machine, &mut accept_stopped);
                let began = Instant::now();
                taken.clear();
                taken.extend(message.conn());
                let mut light = Intake::light(&message);
                machine.on_inbound(message);
                while taken.len() < BATCH && began.elapsed() < BATCH_TIME {
                    take_channel(&mut inbound, &mut machine, &mut accept_stopped);
                    let Some(message) = intake.try_next_except(&taken, light) else { break };
                    taken.extend(message.conn());
                    light |= Intake::light(&message);
                    machine.on_inbound(message);
                }
            }
            () = &mut timer => machine.on_timer(),
            wake = machine.wake() => machine.on_wake(wake),
            () = shutdown.cancelled(), if !stopping => stopping = true,
            () = force_close.cancelled() => break,
        }
        machine.flush();
    }
    machine.flush();
    intake.close();
    machine.finish();
}

/// A connection's `Connected` is on the channel before it hands anything over: taken before
/// each item of the intake.
fn take_channel<M: Machine>(inbound: &mut mpsc::Receiver<Inbound>, machine: &mut M, accept_stopped: &mut bool) {
    while let Ok(message) = inbound.try_recv() {
        match message {
            Inbound::AcceptStopped => *accept_stopped = true,
            message => machine.on_inbound(message),
        }
    }
}
