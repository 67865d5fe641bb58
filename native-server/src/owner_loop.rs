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

use std::future::Future;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::intake::Intake;
use crate::messages::Inbound;

/// A state machine an owner task drives: the NameServer or the controller.
pub(crate) trait Machine: Send + 'static {
    /// What the machine waits for besides messages and its deadline.
    type Wake: Send;

    /// Before the first message: publish what the console shows.
    fn start(&mut self);

    /// One message from the channel or from a connection's lane (never `AcceptStopped`).
    fn on_inbound(&mut self, message: Inbound);

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
                // A connection's `Connected` was on the channel before it handed anything
                // over: take it first.
                while let Ok(first) = inbound.try_recv() {
                    match first {
                        Inbound::AcceptStopped => accept_stopped = true,
                        first => machine.on_inbound(first),
                    }
                }
                machine.on_inbound(message);
            }
            () = &mut timer => machine.on_timer(),
            wake = machine.wake() => machine.on_wake(wake),
            () = shutdown.cancelled(), if !stopping => stopping = true,
            () = force_close.cancelled() => break,
        }
    }
    intake.close();
    machine.finish();
}
