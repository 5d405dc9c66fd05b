#include "bench/cqusage.h"

#include "resource/quantity.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

void ts_bench_cq_usage_init(struct ts_bench_cq_usage *u, const struct ts_bench_plan *p)
{
    u->n_queues = p->n_queues;
    u->q = ts_xcalloc(p->n_queues + 1, sizeof(*u->q));
}

void ts_bench_cq_usage_release(struct ts_bench_cq_usage *u)
{
    free(u->q);
    memset(u, 0, sizeof(*u));
}

void ts_bench_cq_usage_observe(struct ts_bench_cq_usage *u, size_t queue, double t_ms,
                               int64_t usage_milli)
{
    struct ts_bench_cq_seen *s;

    if (queue >= u->n_queues)
        return;
    s = &u->q[queue];
    if (!s->seen) {
        s->seen = 1;
        s->first_ms = t_ms;
    } else if (s->last_milli > 0 && t_ms > s->last_ms) {
        s->used += (double)s->last_milli * (t_ms - s->last_ms);
    }
    s->last_ms = t_ms;
    s->last_milli = usage_milli;
}

void ts_bench_cq_usage_observe_cq(struct ts_bench_cq_usage *u, size_t queue, double t_ms,
                                  const cJSON *cq)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(cq, "status");
    const cJSON *fu = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "flavorsUsage"), 0);
    const cJSON *res = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fu, "resources"), 0);
    const char *total = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "total"));
    struct ts_quantity q;
    int64_t milli = 0;

    if (total && (ts_quantity_parse_c(total, &q, NULL) || ts_quantity_milli_value(&q, &milli)))
        milli = 0;
    ts_bench_cq_usage_observe(u, queue, t_ms, milli);
}

double ts_bench_cq_usage_percent(const struct ts_bench_cq_usage *u, const struct ts_bench_plan *p,
                                 size_t q_class)
{
    double used = 0, nominal = 0, first = 0, last = 0;
    int any = 0;

    for (size_t i = 0; i < u->n_queues; i++) {
        const struct ts_bench_cq_seen *s = &u->q[i];

        if (!s->seen || p->queues[i].q_class != q_class)
            continue;
        used += s->used;
        nominal += (double)p->queues[i].nominal_milli;
        first = any && first < s->first_ms ? first : s->first_ms;
        last = any && last > s->last_ms ? last : s->last_ms;
        any = 1;
    }
    if (!any || last <= first || nominal <= 0)
        return -1;
    return used * 100 / (nominal * (last - first));
}
