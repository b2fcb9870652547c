//! What the benches share: the timing behind the ratios they print after criterion's report.

/// The median wall time of `runs` runs of `f`, in seconds. A median, not a mean, so one run
/// slowed by the machine (another process, a page fault storm) does not move the ratio.
pub fn median_secs(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
