//! The GEMM's one thread splitter: `parts` jobs of one call, on rayon's pool with the `rayon`
//! feature (its workers keep their packing buffers between calls, and the caller sleeps, so on
//! a machine with as many workers as cores no idle thread spins beside them), else on scoped
//! threads started for the call, part 0 on the calling thread (its buffers are warm).

/// Runs `f(0) … f(parts − 1)`, each once, in parallel where `parts > 1`; returns when all are
/// done. One part runs on the calling thread without any pool.
pub(crate) fn split(parts: usize, f: &(dyn Fn(usize) + Sync)) {
    if parts <= 1 {
        return f(0);
    }
    #[cfg(feature = "rayon")]
    rayon::scope(|s| {
        for t in 0..parts {
            s.spawn(move |_| f(t));
        }
    });
    #[cfg(not(feature = "rayon"))]
    std::thread::scope(|s| {
        for t in 1..parts {
            s.spawn(move || f(t));
        }
        f(0);
    });
}
