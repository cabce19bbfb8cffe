/// `runs` timings of `f`, shortest first.
fn sorted_timings(runs: usize, f: &mut dyn FnMut()) -> Vec<std::time::Duration> {
    let mut samples: Vec<std::time::Duration> = (0..runs)
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    samples.sort();
    samples
}
