//! CPU time of the calling thread or of the whole process, for benches
//! that report CPU per operation on a shared machine.

use std::time::Duration;

fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock ids are constants.
    let rc = unsafe { libc::clock_gettime(id, &raw mut ts) };
    assert_eq!(rc, 0, "clock_gettime({id})");
    Duration::new(
        u64::try_from(ts.tv_sec).expect("non-negative"),
        u32::try_from(ts.tv_nsec).expect("below 10^9"),
    )
}

/// CPU time consumed so far by the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu() -> Duration {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time consumed so far by the whole process (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn process_cpu() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}
