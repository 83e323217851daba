// zkpipe-bench-crypto: Google Benchmark's main. Useful flags: --benchmark_filter=<regex>,
// --benchmark_repetitions=9 --benchmark_report_aggregates_only=true (medians),
// --benchmark_format=json.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
