#include "bench/range.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static int number(const cJSON *v, const char *path, const char *name, double *out,
                  struct ts_err *err)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0)
        return ts_err_set(err, TS_EINVAL, "%s%s%s: Invalid value: must be a non-negative number",
                          path, *path ? "." : "", name);
    *out = v->valuedouble;
    return 0;
}

static int bounds(const cJSON *root, const char *field, struct ts_bench_bound **out, size_t *n,
                  struct ts_err *err)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, field), *it;
    int rc;

    if (!m)
        return 0;
    if (!cJSON_IsObject(m))
        return ts_err_set(err, TS_EINVAL, "%s: Invalid value: must be a mapping", field);
    *out = ts_xcalloc((size_t)cJSON_GetArraySize(m) + 1, sizeof(**out));
    cJSON_ArrayForEach(it, m)
    {
        (*out)[*n].name = ts_xstrdup(it->string);
        if ((rc = number(it, field, it->string, &(*out)[(*n)++].value, err)))
            return rc;
    }
    return 0;
}

static int cmd_bounds(const cJSON *root, struct ts_bench_range *r, struct ts_err *err)
{
    static const char *const names[] = {"maxWallMs", "maxUserMs", "maxSysMs", "maxrss"};
    double *dst[] = {&r->max_wall_ms, &r->max_user_ms, &r->max_sys_ms, &r->max_rss_kib};
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(root, "cmd"), *it;
    int rc;

    if (!cmd)
        return 0;
    if (!cJSON_IsObject(cmd))
        return ts_err_set(err, TS_EINVAL, "cmd: Invalid value: must be a mapping");
    cJSON_ArrayForEach(it, cmd)
    {
        size_t i;

        for (i = 0; i < 4 && strcmp(names[i], it->string); i++)
            ;
        if (i == 4)
            return ts_err_set(err, TS_EINVAL, "cmd.%s: unknown field", it->string);
        if ((rc = number(it, "cmd", it->string, dst[i], err)))
            return rc;
    }
    return 0;
}

int ts_bench_range_decode(const cJSON *root, struct ts_bench_range *out, struct ts_err *err)
{
    static const char *const known[] = {"cmd", "clusterQueueClassesMinUsage",
                                        "wlClassesMaxAvgTimeToAdmissionMs", NULL};
    const cJSON *it;
    int rc;

    memset(out, 0, sizeof(*out));
    out->max_wall_ms = out->max_user_ms = out->max_sys_ms = out->max_rss_kib = -1;
    if (!cJSON_IsObject(root))
        return ts_err_set(err, TS_EINVAL, "range: must be a mapping");
    cJSON_ArrayForEach(it, root)
    {
        size_t i;

        for (i = 0; known[i] && strcmp(known[i], it->string); i++)
            ;
        if (!known[i])
            return ts_err_set(err, TS_EINVAL, "%s: unknown field", it->string);
    }
    if ((rc = cmd_bounds(root, out, err)) ||
        (rc = bounds(root, "clusterQueueClassesMinUsage", &out->min_usage, &out->n_usage, err)) ||
        (rc = bounds(root, "wlClassesMaxAvgTimeToAdmissionMs", &out->max_tta_ms, &out->n_tta, err)))
        ts_bench_range_release(out);
    return rc;
}

void ts_bench_range_release(struct ts_bench_range *r)
{
    for (size_t i = 0; i < r->n_usage; i++)
        free(r->min_usage[i].name);
    for (size_t i = 0; i < r->n_tta; i++)
        free(r->max_tta_ms[i].name);
    free(r->min_usage);
    free(r->max_tta_ms);
    memset(r, 0, sizeof(*r));
}

static size_t over(double bound, double value, const char *what, const char *field,
                   struct ts_buf *out)
{
    if (bound < 0 || value <= bound)
        return 0;
    ts_buf_addf(out, "%s %.0f > %s %.0f\n", what, value, field, bound);
    return 1;
}

static size_t check_classes(const struct ts_bench_range *r, const struct ts_bench_report *rep,
                            struct ts_buf *out)
{
    size_t bad = 0;

    for (size_t b = 0; b < r->n_tta; b++) {
        const struct ts_bench_bound *bd = &r->max_tta_ms[b];
        size_t c;

        for (c = 0; c < rep->n_classes && strcmp(rep->classes[c].name, bd->name); c++)
            ;
        if (c == rep->n_classes) {
            ts_buf_addf(out, "wlClassesMaxAvgTimeToAdmissionMs.%s: no such workload class\n",
                        bd->name);
            bad++;
        } else if (rep->classes[c].tta.mean * 1000 > bd->value) {
            ts_buf_addf(out,
                        "class %s: mean time to admission %.0f ms > "
                        "wlClassesMaxAvgTimeToAdmissionMs.%s %.0f\n",
                        bd->name, rep->classes[c].tta.mean * 1000, bd->name, bd->value);
            bad++;
        }
    }
    return bad;
}

static size_t check_usage(const struct ts_bench_range *r, const struct ts_bench_report *rep,
                          struct ts_buf *out)
{
    size_t bad = 0;

    for (size_t b = 0; b < r->n_usage; b++) {
        const struct ts_bench_bound *bd = &r->min_usage[b];
        size_t c;

        for (c = 0; c < rep->n_queue_classes && strcmp(rep->queue_classes[c].name, bd->name); c++)
            ;
        if (c == rep->n_queue_classes) {
            ts_buf_addf(out, "clusterQueueClassesMinUsage.%s: no such ClusterQueue class\n",
                        bd->name);
            bad++;
        } else if (rep->queue_classes[c].min_usage < bd->value) {
            ts_buf_addf(out,
                        "ClusterQueue class %s: minimum usage %.1f %% < "
                        "clusterQueueClassesMinUsage.%s %.0f\n",
                        bd->name, rep->queue_classes[c].min_usage, bd->name, bd->value);
            bad++;
        }
    }
    return bad;
}

size_t ts_bench_range_check(const struct ts_bench_range *r, const struct ts_bench_report *rep,
                            const struct ts_bench_proc *proc, struct ts_buf *out)
{
    size_t bad = 0;

    bad += over(r->max_wall_ms, rep->wall * 1000, "wall ms", "cmd.maxWallMs", out);
    if (proc) {
        bad += over(r->max_user_ms, proc->user_ms, "controller user ms", "cmd.maxUserMs", out);
        bad += over(r->max_sys_ms, proc->sys_ms, "controller system ms", "cmd.maxSysMs", out);
        bad +=
            over(r->max_rss_kib, proc->max_rss_kib, "controller peak RSS KiB", "cmd.maxrss", out);
    }
    if (rep->never_admitted) {
        ts_buf_addf(out, "%zu workload(s) never admitted\n", rep->never_admitted);
        bad++;
    }
    return bad + check_classes(r, rep, out) + check_usage(r, rep, out);
}
