//! The calling thread's CPU time (Linux `CLOCK_THREAD_CPUTIME_ID`): on a shared machine it
//! leaves out the time a thread waits descheduled. `dnn.rs` reads it by default; the GEMM
//! tables read it with `CPU_TIME=1` (else the wall clock).

/// `struct timespec` on x86-64 Linux.
#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

unsafe extern "C" {
    /// glibc's `clock_gettime` (libc is linked into every Rust program on Linux).
    fn clock_gettime(clock: std::ffi::c_int, ts: *mut Timespec) -> std::ffi::c_int;
}

/// `CLOCK_THREAD_CPUTIME_ID` (Linux).
const CLOCK_THREAD_CPUTIME_ID: std::ffi::c_int = 3;

/// This thread's CPU time in seconds.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer; the clock id exists on every Linux since 2.6.12.
    let r = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(r, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}
