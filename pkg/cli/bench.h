/*
 * bench.h - `turnstilectl bench FILE`: Kueue's scheduler performance test
 * on a generator file (bench/gen.h), in the zero-latency ideal (--ideal,
 * optionally under a modelled write budget) or against the real binaries
 * (--live), printed per workload class with wall time and ClusterQueue
 * usage, and checked against a range file (--check, bench/range.h).
 *
 * Shell code: reads files, starts processes (live), writes to the given
 * streams.
 */
#ifndef TS_CLI_BENCH_H
#define TS_CLI_BENCH_H

#include <stdio.h>

/* Runs `turnstilectl bench` with the arguments after "bench".  Returns
 * the process exit code: 0, 1 (a range bound was violated, each named on
 * out; or the run failed), 2 (usage or input errors, on err). */
int ts_cli_bench(int argc, char **argv, FILE *out, FILE *err);

#endif
