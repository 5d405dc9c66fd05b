/* bench_series.c - the per-workload series of a benchmark run (--series):
 * one line per workload, for plots of time to admission over time
 * (test/perf/plot.sh). */
#include "cli/bench_int.h"

#include <errno.h>
#include <string.h>

int ts__bench_write_series(const char *path, const struct ts_bench_plan *plan,
                           const struct ts_bench_result *r, FILE *err)
{
    FILE *f = fopen(path, "w");

    if (!f) {
        fprintf(err, "error: %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(f, "# class\tcreated_s\tadmitted_s\ttime_to_admission_s (admitted -1: never)\n");
    for (size_t i = 0; i < plan->n_wls && i < r->n_wls; i++) {
        const struct ts_bench_wl *w = &plan->wls[i];
        double created = (double)w->created / 1e9;
        double admitted = r->wls[i].admitted < 0 ? -1 : (double)r->wls[i].admitted / 1e9;

        fprintf(f, "%s\t%.3f\t%.3f\t%.3f\n", plan->classes[w->wl_class], created, admitted,
                admitted < 0 ? -1 : admitted - created);
    }
    if (fclose(f)) {
        fprintf(err, "error: %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}
