//! What the benches share: the timing behind the ratios they print after criterion's report.

use std::time::Instant;

/// The result of timing a subject against its baseline in turns.
pub struct Paired {
    /// Median seconds of one baseline run.
    pub baseline: f64,
    /// Median seconds of one subject run.
    pub subject: f64,
    /// Median of the per-round ratios subject / baseline.
    pub ratio: f64,
}

/// Runs `baseline` then `subject`, `rounds` times, and returns medians. Taking turns and
/// taking the ratio per round means a machine whose speed drifts during the run (a shared
/// VM's does) slows both sides of a ratio alike; medians keep one disturbed round from
/// moving the result.
pub fn paired(rounds: usize, mut baseline: impl FnMut(), mut subject: impl FnMut()) -> Paired {
    let (mut base, mut subj, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let b = seconds(&mut baseline);
        let s = seconds(&mut subject);
        base.push(b);
        subj.push(s);
        ratios.push(s / b);
    }
    Paired {
        baseline: median(base),
        subject: median(subj),
        ratio: median(ratios),
    }
}

fn seconds(f: &mut impl FnMut()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}
