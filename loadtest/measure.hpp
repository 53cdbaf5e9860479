#pragma once
// The timing loop shared by `bench` and `peers`: warm-up, calibrated batches, five windows,
// the median window's rate and per-operation statistics of every sample.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

namespace polycodec::loadtest {

using clock_type = std::chrono::steady_clock;

// Per-row timing summary, nanoseconds per operation.
struct summary {
    double ops_per_s = 0;  ///< median window's rate
    double median = 0, mean = 0, stddev = 0, p99 = 0, min = 0, max = 0;
};

// Runs `op` in `windows` windows of `window_ms` each and summarises time per operation. Each
// sample is one batch of operations sized to take about 1 ms, so timer overhead stays small.
template <class Op>
inline
summary measure(Op&& op, int total_ms) {
    // Warm-up: 10% of the budget, at least 20 ms, and calibrate the batch size.
    auto warm_until = clock_type::now() + std::chrono::milliseconds(std::max(20, total_ms / 10));
    std::size_t warm_ops = 0;
    auto warm_start = clock_type::now();
    while (clock_type::now() < warm_until) {
        op();
        ++warm_ops;
    }
    double per_op_ns =
        std::chrono::duration<double, std::nano>(clock_type::now() - warm_start).count() /
        static_cast<double>(std::max<std::size_t>(warm_ops, 1));
    std::size_t batch = std::max<std::size_t>(1, static_cast<std::size_t>(1e6 / per_op_ns));

    const int windows = 5;
    int window_ms = std::max(1, total_ms / windows);
    std::vector<double> samples;  // ns per op of each batch
    std::vector<double> window_rates;
    for (int w = 0; w < windows; ++w) {
        auto start = clock_type::now();
        auto until = start + std::chrono::milliseconds(window_ms);
        std::size_t n = 0;
        auto now = start;
        do {
            auto t0 = clock_type::now();
            for (std::size_t i = 0; i < batch; ++i) {
                op();
            }
            now = clock_type::now();
            samples.push_back(std::chrono::duration<double, std::nano>(now - t0).count() /
                              static_cast<double>(batch));
            n += batch;
        } while (now < until);
        double secs = std::chrono::duration<double>(now - start).count();
        window_rates.push_back(static_cast<double>(n) / secs);
    }
    summary s;
    std::sort(window_rates.begin(), window_rates.end());
    s.ops_per_s = window_rates[window_rates.size() / 2];
    std::sort(samples.begin(), samples.end());
    s.min = samples.front();
    s.max = samples.back();
    s.median = samples[samples.size() / 2];
    s.p99 = samples[std::min(samples.size() - 1, samples.size() * 99 / 100)];
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) /
             static_cast<double>(samples.size());
    double var = 0;
    for (double x : samples) {
        var += (x - s.mean) * (x - s.mean);
    }
    s.stddev = std::sqrt(var / static_cast<double>(samples.size()));
    return s;
}


}  // namespace polycodec::loadtest
