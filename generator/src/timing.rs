//! How long each stage of a build takes, by the clock and in CPU time (all the
//! build's threads): `--verbose` prints both, and the scaling test compares the
//! CPU time, which a busy machine does not inflate.

use std::time::{Duration, Instant};

/// The stages' timings, by the clock and in CPU time.
pub struct Stages {
    pub started: Instant,
    started_cpu: Option<Duration>,
    pub done: Vec<(&'static str, Duration)>,
    pub cpu_done: Vec<(&'static str, Duration)>,
}

impl Stages {
    pub fn start() -> Stages {
        Stages {
            started: Instant::now(),
            started_cpu: process_cpu_time(),
            done: Vec::new(),
            cpu_done: Vec::new(),
        }
    }

    pub fn time<T>(&mut self, name: &'static str, stage: impl FnOnce() -> T) -> T {
        let (t, cpu) = (Instant::now(), process_cpu_time());
        let result = stage();
        self.done.push((name, t.elapsed()));
        if let (Some(before), Some(after)) = (cpu, process_cpu_time()) {
            self.cpu_done.push((name, after.saturating_sub(before)));
        }
        result
    }

    pub fn cpu(&self) -> Option<Duration> {
        Some(process_cpu_time()?.saturating_sub(self.started_cpu?))
    }
}

/// The CPU time this process has used so far, all threads.
#[cfg(unix)]
pub fn process_cpu_time() -> Option<Duration> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
}

#[cfg(not(unix))]
pub fn process_cpu_time() -> Option<Duration> {
    None
}
