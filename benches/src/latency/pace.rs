//! The open-loop pacer: each message of a level has an *intended send
//! time* computed from its index and the offered rate; the pacer sends a
//! message once its time has come, whatever happened to the ones before
//! (it never waits for an ack), and when it is behind it sends everything
//! already due at once. Latency is measured from the intended time, so a
//! stall anywhere (pacer, producer, broker, disk) counts against every
//! message it delayed: no coordinated omission.

use std::time::{Duration, Instant};

use hermit_client::{Delivery, Producer};

/// ns since the run's base instant (the unit of intended send times).
pub fn now_ns(base: Instant) -> u64 {
    u64::try_from(base.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

const NS_PER_S: u128 = 1_000_000_000;

/// Messages handed to the producer per step at most, so that a pacer far
/// behind still passes its deliveries to the ack task (and reads the clock)
/// every few microseconds instead of once per million messages.
pub const MAX_BURST: u64 = 1024;

/// When each message of a level is meant to be sent: message `i` at
/// `start_ns + i / rate` (in ns since the run's base instant), for
/// `count` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// The first message's intended time, ns since the run's base instant.
    pub start_ns: u64,
    /// Offered rate, messages per second (at least 1).
    pub rate: u64,
    /// Messages in the level.
    pub count: u64,
}

/// What the pacer does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Send the messages from the ones already sent up to (excluding) this index.
    Send(u64),
    /// Nothing is due: sleep until this time (ns since the base instant).
    Sleep(u64),
    /// Every message is sent.
    Done,
}

impl Schedule {
    /// A level of `secs` seconds at `rate` messages/s starting at `start_ns`.
    pub fn new(start_ns: u64, rate: u64, secs: f64) -> Schedule {
        let rate = rate.max(1);
        Schedule {
            start_ns,
            rate,
            count: (rate as f64 * secs).round() as u64,
        }
    }

    /// Message `i`'s intended send time (computed, never read from a clock).
    pub fn intended(&self, i: u64) -> u64 {
        let offset = u128::from(i) * NS_PER_S / u128::from(self.rate);
        self.start_ns
            .saturating_add(u64::try_from(offset).unwrap_or(u64::MAX))
    }

    /// How many messages are due at `now_ns`: those whose intended time is
    /// at or before it (at most `count`).
    pub fn due(&self, now_ns: u64) -> u64 {
        let Some(elapsed) = now_ns.checked_sub(self.start_ns) else {
            return 0;
        };
        // intended(i) ≤ now ⟺ ⌊i·1e9/rate⌋ ≤ elapsed ⟺ i < (elapsed+1)·rate/1e9.
        let due = (u128::from(elapsed) + 1) * u128::from(self.rate);
        let due = due.div_ceil(NS_PER_S);
        u64::try_from(due).unwrap_or(u64::MAX).min(self.count)
    }

    /// The pacer's next step with `sent` messages handed over so far, at
    /// `now_ns`: everything due (up to [`MAX_BURST`] at once), or a sleep
    /// until the next message's time.
    pub fn step(&self, sent: u64, now_ns: u64) -> Step {
        if sent >= self.count {
            return Step::Done;
        }
        let due = self.due(now_ns);
        if due > sent {
            Step::Send(due.min(sent + MAX_BURST))
        } else {
            Step::Sleep(self.intended(sent))
        }
    }
}

/// What one level's pacer did.
#[derive(Debug, Clone, Copy, Default)]
pub struct Paced {
    /// Messages handed to the producer.
    pub sent: u64,
    /// Of those, the ones handed over between the end of the warm-up and
    /// the end of the schedule (wall clock): the achieved send rate's count.
    pub sent_in_window: u64,
    /// Messages never sent: still due when the drain time ran out.
    pub unsent: u64,
    /// CPU time of the pacer's thread.
    pub cpu: Duration,
    /// Wall time of the pacer's thread.
    pub wall: Duration,
}

/// The pacer thread's inputs for one level.
pub struct Pacer {
    /// The run's base instant (intended times count from it).
    pub base: Instant,
    /// The level's schedule.
    pub schedule: Schedule,
    /// End of the warm-up, ns since `base`.
    pub window_start_ns: u64,
    /// End of the schedule, ns since `base`.
    pub window_end_ns: u64,
    /// Past this time (ns since `base`) the messages still due are given
    /// up (a saturated level's backlog).
    pub give_up_ns: u64,
    /// The record sent (its first 8 bytes are overwritten with the intended time).
    pub record: Vec<u8>,
    /// Where records go.
    pub producer: Producer,
    /// The topic.
    pub topic: String,
    /// The runtime the producer lives on.
    pub runtime: tokio::runtime::Handle,
    /// Deliveries with their intended times, handed over one burst at a time.
    pub deliveries: tokio::sync::mpsc::UnboundedSender<Vec<(u64, Delivery)>>,
}

/// Ask the kernel for 1 µs of timer slack on this thread instead of the
/// default 50 µs, so a sleep until the next intended time ends close to it.
fn tight_timer_slack() {
    // SAFETY: prctl(PR_SET_TIMERSLACK) takes integers only and changes this
    // thread's timer slack; it touches no memory of ours.
    // A failure only leaves the default slack (≤ 50 µs later wake-ups,
    // which then count as latency): nothing to stop the run for.
    let _ = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong, 0, 0, 0) };
}

impl Pacer {
    /// Run the level on the calling (dedicated, non-runtime) thread.
    pub fn run(mut self) -> anyhow::Result<Paced> {
        tight_timer_slack();
        let started = Instant::now();
        let cpu_before = crate::cpu::thread_cpu();
        let s = self.schedule;
        let mut sent = 0u64;
        let mut at_window_start: Option<u64> = None;
        let mut at_window_end: Option<u64> = None;
        loop {
            let now = now_ns(self.base);
            if at_window_start.is_none() && now >= self.window_start_ns {
                at_window_start = Some(sent);
            }
            if at_window_end.is_none() && now >= self.window_end_ns {
                at_window_end = Some(sent);
            }
            if now >= self.give_up_ns {
                break;
            }
            match s.step(sent, now) {
                Step::Done => break,
                Step::Sleep(until) => {
                    std::thread::sleep(Duration::from_nanos(until.saturating_sub(now)));
                }
                Step::Send(upto) => {
                    let burst = self.send_burst(sent, upto)?;
                    sent = upto;
                    // The ack task is gone only if it failed; it reports why.
                    if self.deliveries.send(burst).is_err() {
                        break;
                    }
                }
            }
        }
        let start = at_window_start.unwrap_or(0);
        let end = at_window_end.unwrap_or(sent);
        Ok(Paced {
            sent,
            sent_in_window: end.saturating_sub(start),
            unsent: s.count - sent,
            cpu: crate::cpu::thread_cpu().saturating_sub(cpu_before),
            wall: started.elapsed(),
        })
    }

    /// Hand messages `from..upto` to the producer, each stamped with its
    /// intended time; waits only while the producer's buffer is full.
    fn send_burst(&mut self, from: u64, upto: u64) -> anyhow::Result<Vec<(u64, Delivery)>> {
        let s = self.schedule;
        let (producer, topic, record) = (&self.producer, self.topic.as_str(), &mut self.record);
        self.runtime.block_on(async {
            let mut burst = Vec::with_capacity(usize::try_from(upto - from).unwrap_or(0));
            for i in from..upto {
                let t = s.intended(i);
                record[..8].copy_from_slice(&t.to_be_bytes());
                let delivery = producer.send(topic, b"", record).await?;
                burst.push((t, delivery));
            }
            Ok(burst)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intended_times_follow_the_rate() {
        let s = Schedule::new(5_000, 1_000, 2.0);
        assert_eq!(s.count, 2_000);
        assert_eq!(s.intended(0), 5_000);
        assert_eq!(s.intended(1), 5_000 + 1_000_000);
        assert_eq!(s.intended(1_999), 5_000 + 1_999_000_000);
        // A rate that does not divide a second: times are rounded down, never drift.
        let s = Schedule::new(0, 3, 10.0);
        assert_eq!(
            (0..4).map(|i| s.intended(i)).collect::<Vec<_>>(),
            [0, 333_333_333, 666_666_666, 1_000_000_000]
        );
    }

    #[test]
    fn a_message_is_due_exactly_from_its_intended_time() {
        for rate in [1, 3, 1_000, 7_777, 100_000, 2_000_000] {
            let s = Schedule::new(1_000_000, rate, 3.0);
            let inside = [0, 1, 2, 17, s.count / 2, s.count - 1];
            for i in inside.into_iter().filter(|&i| i < s.count) {
                let t = s.intended(i);
                assert_eq!(s.due(t), i + 1, "rate {rate}, message {i} at its time");
                assert_eq!(s.due(t - 1), i, "rate {rate}, message {i} 1 ns early");
            }
        }
        let s = Schedule::new(1_000, 10, 1.0);
        assert_eq!(s.due(0), 0, "nothing before the start");
        assert_eq!(s.due(u64::MAX), s.count, "never more than the level holds");
    }

    #[test]
    fn on_time_the_pacer_sends_one_and_sleeps_until_the_next() {
        let s = Schedule::new(0, 1_000, 1.0);
        assert_eq!(s.step(0, 0), Step::Send(1));
        assert_eq!(s.step(1, 10), Step::Sleep(1_000_000));
        assert_eq!(s.step(1, 1_000_000), Step::Send(2));
        assert_eq!(s.step(1_000, 5_000_000_000), Step::Done);
    }

    #[test]
    fn behind_the_schedule_the_pacer_sends_everything_due_at_once() {
        let s = Schedule::new(0, 10_000, 1.0);
        // 5 ms late with 3 sent: messages 3..=50 are due, sent in one step
        // (no sleep between them, no waiting for acks).
        assert_eq!(s.step(3, 5_000_000), Step::Send(51));
        // Far behind: bursts of MAX_BURST, then the rest.
        assert_eq!(s.step(0, 999_999_999), Step::Send(MAX_BURST));
        assert_eq!(s.step(9_000, 999_999_999), Step::Send(10_000));
        // Caught up again: back to sleeping until the next intended time.
        assert_eq!(s.step(51, 5_000_000), Step::Sleep(s.intended(51)));
    }
}
