//! `GET /api/events`: the event bus's lines ([`crate::observe`]) and the published view as
//! server-sent events. A reader that falls behind skips ahead, told how many it
//! missed.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::Ctx;
use crate::observe::{LiveEvent, Observer};

/// How often a reader checks whether a broker's channel was read or written (which moves its
/// idle close) without any table changing, to send the view again.
const CHANNEL_CHECK: Duration = Duration::from_secs(1);

/// Counts a reader while it lives; route queries are sampled only while someone listens.
struct Listening(Arc<Observer>);

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.events.unsubscribe();
    }
}

/// What one `/api/events` reader still has to be sent.
struct Reader {
    _listening: Listening,
    /// One of the console's event-stream slots, given back when the stream ends.
    _slot: tokio::sync::OwnedSemaphorePermit,
    ctx: Ctx,
    rx: broadcast::Receiver<Arc<LiveEvent>>,
    backlog: VecDeque<Arc<LiveEvent>>,
    last_seq: u64,
    views: watch::Receiver<u64>,
    view_due: bool,
    /// [`crate::observe::View::channel_mark`] of the last view sent.
    channel_mark: u64,
    channel_check: tokio::time::Interval,
    stop: CancellationToken,
}

impl Reader {
    async fn next(&mut self) -> Option<SseEvent> {
        // The view first: it tells a reconnecting page whether this is the daemon it knew.
        if std::mem::take(&mut self.view_due) {
            return Some(self.view());
        }
        if let Some(event) = self.backlog.pop_front() {
            self.last_seq = event.seq;
            return Some(log_event(&event));
        }
        loop {
            tokio::select! {
                biased;
                () = self.stop.cancelled() => return None,
                received = self.rx.recv() => match received {
                    Ok(event) if event.seq <= self.last_seq => {}
                    Ok(event) => {
                        self.last_seq = event.seq;
                        return Some(log_event(&event));
                    }
                    Err(RecvError::Lagged(missed)) => {
                        self.ctx.observer.metrics.events_dropped.fetch_add(missed, Relaxed);
                        return Some(SseEvent::default().event("lagged").data(format!("{{\"missed\":{missed}}}")));
                    }
                    Err(RecvError::Closed) => return None,
                },
                changed = self.views.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                    self.views.borrow_and_update();
                    return Some(self.view());
                }
                _ = self.channel_check.tick(), if self.ctx.observer.idle.is_some() => {
                    if self.ctx.observer.view.load().channel_mark() != self.channel_mark {
                        return Some(self.view());
                    }
                }
            }
        }
    }

    fn view(&mut self) -> SseEvent {
        self.channel_mark = self.ctx.observer.view.load().channel_mark();
        let body = super::api::page_view(&self.ctx);
        SseEvent::default().event("view").data(body)
    }
}

fn log_event(event: &LiveEvent) -> SseEvent {
    let body = serde_json::to_string(event).unwrap_or_default();
    SseEvent::default().event("log").id(event.seq.to_string()).data(body)
}

/// `GET /api/events`: server-sent events — `log` (one [`LiveEvent`]), `view` (the tables, on
/// every change), `lagged` (`{"missed": n}` when this reader fell behind). The current view and
/// the backlog come first.
pub(crate) async fn stream(State(ctx): State<Ctx>) -> Response {
    let Ok(slot) = Arc::clone(&ctx.event_streams).try_acquire_owned() else {
        return super::api::error(StatusCode::SERVICE_UNAVAILABLE, "too many event streams are open; try again later");
    };
    let observer = Arc::clone(&ctx.observer);
    let (rx, backlog) = observer.events.subscribe();
    let reader = Reader {
        _listening: Listening(Arc::clone(&observer)),
        _slot: slot,
        views: observer.view_version.subscribe(),
        stop: ctx.stop.clone(),
        ctx,
        rx,
        backlog,
        last_seq: 0,
        view_due: true,
        channel_mark: 0,
        channel_check: {
            let mut check = tokio::time::interval(CHANNEL_CHECK);
            check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            check
        },
    };
    let stream = futures_util::stream::unfold(reader, |mut reader| async move {
        let event = reader.next().await?;
        Some((Ok::<_, Infallible>(event), reader))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}
