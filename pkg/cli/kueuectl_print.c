/*
 * kueuectl_print.c - kueuectl's list tables (see kueuectl_int.h): the
 * columns of cmd/kueuectl/app/list/list_*_printer.go, kubectl's tab
 * writer layout and duration.HumanDuration ages.  Pure.
 */
#include "cli/kueuectl_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/get.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"

static const char *const cq_headers[] = {
    "Name", "Cohort", "Pending Workloads", "Admitted Workloads", "Active", "Age"};
static const char *const lq_headers[] = {"Name", "ClusterQueue", "Pending Workloads",
                                         "Admitted Workloads", "Age"};
static const char *const wl_headers[] = {
    "Name",   "Job Type",          "Job Name",  "LocalQueue", "ClusterQueue",
    "Status", "Position in Queue", "Exec Time", "Age"};
static const char *const rf_headers[] = {"Name", "Node Labels", "Age"};

#define COUNT(a)     (sizeof(a) / sizeof((a)[0]))
#define CRD_TYPE_MAX 20 /* list_workload_printer.go's crdTypeMaxLength */

const char *const *ts__kctl_headers(enum ts__kctl_kind kind, size_t *n)
{
    switch (kind) {
    case TS__KCTL_CQ:
        return *n = COUNT(cq_headers), cq_headers;
    case TS__KCTL_LQ:
        return *n = COUNT(lq_headers), lq_headers;
    case TS__KCTL_WL:
        return *n = COUNT(wl_headers), wl_headers;
    case TS__KCTL_RF:
        break;
    }
    return *n = COUNT(rf_headers), rf_headers;
}

/* Appends one cell to the row being built (row index t->nrows). */
static void put(struct ts__kctl_table *t, size_t *col, const char *s)
{
    if (*col == 0)
        TS_GROW(t->cells, t->cap, (t->nrows + 1) * t->ncols);
    t->cells[t->nrows * t->ncols + (*col)++] = ts_xstrdup(s ? s : "");
}

void ts__kctl_table_init(struct ts__kctl_table *t, const char *const *headers, size_t n,
                         int with_ns)
{
    size_t col = 0;

    memset(t, 0, sizeof(*t));
    t->with_ns = with_ns;
    t->ncols = n + (with_ns ? 1 : 0);
    if (with_ns)
        put(t, &col, "NAMESPACE");
    for (size_t i = 0; i < n; i++) {
        char h[64];
        size_t j;

        for (j = 0; headers[i][j] && j + 1 < sizeof(h); j++)
            h[j] = (char)toupper((unsigned char)headers[i][j]);
        h[j] = '\0';
        put(t, &col, h);
    }
    t->nrows = 1;
}

void ts__kctl_table_release(struct ts__kctl_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof(*t));
}

static const cJSON *condition(const cJSON *obj, const char *type)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(obj, "status.conditions"))
    {
        const char *ct = ts_json_get_string(c, "type");

        if (ct && !strcmp(ct, type))
            return c;
    }
    return NULL;
}

static int condition_true(const cJSON *obj, const char *type)
{
    const char *s = ts_json_get_string(condition(obj, type), "status");

    return s && !strcmp(s, "True");
}

const char *ts__kctl_wl_status(const cJSON *wl)
{
    if (condition_true(wl, "Finished"))
        return "finished";
    if (condition_true(wl, "Admitted"))
        return "admitted";
    if (condition_true(wl, "QuotaReserved"))
        return "quotaReserved";
    return "pending";
}

int ts__kctl_cq_active(const cJSON *cq)
{
    return condition_true(cq, "Active");
}

static const char *str(const cJSON *obj, const char *path)
{
    const char *s = ts_json_get_string(obj, path);

    return s ? s : "";
}

/* duration.HumanDuration(now - t) of an RFC 3339 time, "<unknown>" when
 * it does not parse. */
static const char *age(const char *when, ts_time now, char *buf, size_t len)
{
    ts_time t;

    if (ts_time_parse(when, &t))
        return snprintf(buf, len, "<unknown>"), buf;
    return ts_cli_human_duration((long long)((now - t) / TS_TIME_SECOND), buf, len);
}

static const char *number(const cJSON *obj, const char *path, char *buf, size_t len)
{
    int64_t v = 0;

    ts_json_get_i64(ts_json_get(obj, path), &v);
    snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

/* Appends s to b unless b's ", "-joined list already holds it (Go's
 * sets.Set, one element per owner). */
static void add_unique(struct ts_buf *b, const char *s)
{
    const char *p = b->ptr;
    size_t n = strlen(s);

    while (p && *p) {
        if (!strncmp(p, s, n) && (p[n] == '\0' || p[n] == ','))
            return;
        p = strstr(p, ", ");
        p = p ? p + 2 : NULL;
    }
    if (b->len)
        ts_buf_adds(b, ", ");
    ts_buf_adds(b, s);
}

/* JOB TYPE: the owner's singular resource and group ("job.batch"), cut to
 * 20 characters and "...".  Without discovery the singular name is the
 * lower-cased kind, which it is for every built-in kind and CRD in use. */
static void job_type(const cJSON *ref, struct ts_buf *b)
{
    const char *av = str(ref, "apiVersion"), *kind = str(ref, "kind"), *slash = strchr(av, '/');
    char t[256];
    size_t n = 0;

    for (; kind[n] && n + 1 < sizeof(t); n++)
        t[n] = (char)tolower((unsigned char)kind[n]);
    t[n] = '\0';
    if (slash)
        snprintf(t + n, sizeof(t) - n, ".%.*s", (int)(slash - av), av);
    if (strlen(t) > CRD_TYPE_MAX)
        snprintf(t + CRD_TYPE_MAX, sizeof(t) - CRD_TYPE_MAX, "...");
    if (*kind)
        add_unique(b, t);
}

static void owners(struct ts__kctl_table *t, size_t *col, const cJSON *wl)
{
    struct ts_buf types = TS_BUF_INIT, names = TS_BUF_INIT;
    const cJSON *ref;

    cJSON_ArrayForEach(ref, ts_json_get(wl, "metadata.ownerReferences"))
    {
        job_type(ref, &types);
        add_unique(&names, str(ref, "name"));
    }
    put(t, col, types.ptr);
    put(t, col, names.ptr);
    ts_buf_release(&types);
    ts_buf_release(&names);
}

static void exec_time(struct ts__kctl_table *t, size_t *col, const cJSON *wl, ts_time now)
{
    const cJSON *adm = condition(wl, "Admitted"), *fin = condition(wl, "Finished");
    ts_time a, end = now;
    char buf[32] = "";

    if (condition_true(wl, "Admitted") && !ts_time_parse(str(adm, "lastTransitionTime"), &a)) {
        if (condition_true(wl, "Finished"))
            ts_time_parse(str(fin, "lastTransitionTime"), &end);
        ts_cli_human_duration((long long)((end - a) / TS_TIME_SECOND), buf, sizeof(buf));
    }
    put(t, col, buf);
}

static void wl_row(struct ts__kctl_table *t, size_t *col, const cJSON *wl, const cJSON *lq_cq,
                   const cJSON *positions, ts_time now)
{
    const char *cq = str(wl, "status.admission.clusterQueue"), *status = ts__kctl_wl_status(wl);
    char key[512], pos[32] = "", up[32];
    const cJSON *p;
    size_t i;

    snprintf(key, sizeof(key), "%s/%s", str(wl, "metadata.namespace"), str(wl, "spec.queueName"));
    if (!*cq && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(lq_cq, key)))
        cq = cJSON_GetObjectItemCaseSensitive(lq_cq, key)->valuestring;
    snprintf(key, sizeof(key), "%s/%s", str(wl, "metadata.namespace"), str(wl, "metadata.name"));
    if (cJSON_IsNumber(p = cJSON_GetObjectItemCaseSensitive(positions, key)))
        snprintf(pos, sizeof(pos), "%.0f", p->valuedouble);
    for (i = 0; status[i] && i + 1 < sizeof(up); i++)
        up[i] = (char)toupper((unsigned char)status[i]);
    up[i] = '\0';
    put(t, col, str(wl, "metadata.name"));
    owners(t, col, wl);
    put(t, col, str(wl, "spec.queueName"));
    put(t, col, cq);
    put(t, col, up);
    put(t, col, pos);
    exec_time(t, col, wl, now);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ResourceFlavor NODE LABELS: "k=v" sorted, joined with ", ". */
static void node_labels(struct ts__kctl_table *t, size_t *col, const cJSON *rf)
{
    const cJSON *l, *labels = ts_json_get(rf, "spec.nodeLabels");
    char **kv = ts_xcalloc((size_t)cJSON_GetArraySize(labels) + 1, sizeof(*kv));
    struct ts_buf b = TS_BUF_INIT;
    size_t n = 0;

    cJSON_ArrayForEach(l, labels)
    {
        struct ts_buf one = TS_BUF_INIT;

        ts_buf_addf(&one, "%s=%s", l->string, cJSON_IsString(l) ? l->valuestring : "");
        kv[n++] = one.ptr;
    }
    qsort(kv, n, sizeof(*kv), cmp_str);
    for (size_t i = 0; i < n; i++) {
        ts_buf_addf(&b, "%s%s", i ? ", " : "", kv[i]);
        free(kv[i]);
    }
    free(kv);
    put(t, col, b.ptr);
    ts_buf_release(&b);
}

void ts__kctl_table_add(struct ts__kctl_table *t, enum ts__kctl_kind kind, const cJSON *obj,
                        const cJSON *lq_cq, const cJSON *positions, ts_time now)
{
    char buf[64];
    size_t col = 0;

    if (t->with_ns)
        put(t, &col, str(obj, "metadata.namespace"));
    switch (kind) {
    case TS__KCTL_CQ:
        put(t, &col, str(obj, "metadata.name"));
        put(t, &col, str(obj, "spec.cohortName"));
        put(t, &col, number(obj, "status.pendingWorkloads", buf, sizeof(buf)));
        put(t, &col, number(obj, "status.admittedWorkloads", buf, sizeof(buf)));
        put(t, &col, ts__kctl_cq_active(obj) ? "true" : "false");
        break;
    case TS__KCTL_LQ:
        put(t, &col, str(obj, "metadata.name"));
        put(t, &col, str(obj, "spec.clusterQueue"));
        put(t, &col, number(obj, "status.pendingWorkloads", buf, sizeof(buf)));
        put(t, &col, number(obj, "status.admittedWorkloads", buf, sizeof(buf)));
        break;
    case TS__KCTL_WL:
        wl_row(t, &col, obj, lq_cq, positions, now);
        break;
    case TS__KCTL_RF:
        put(t, &col, str(obj, "metadata.name"));
        node_labels(t, &col, obj);
        break;
    }
    put(t, &col, age(str(obj, "metadata.creationTimestamp"), now, buf, sizeof(buf)));
    t->nrows++;
}

void ts__kctl_table_add_row(struct ts__kctl_table *t, const char *ns, const char *const *cells)
{
    size_t col = 0;

    if (t->with_ns)
        put(t, &col, ns);
    while (col < t->ncols)
        put(t, &col, cells[col - (t->with_ns ? 1 : 0)]);
    t->nrows++;
}

void ts__kctl_table_print(const struct ts__kctl_table *t, FILE *out)
{
    size_t *w = ts_xcalloc(t->ncols, sizeof(*w));

    if (t->nrows < 2) {
        free(w);
        return;
    }
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++)
            if (strlen(t->cells[r * t->ncols + c]) > w[c])
                w[c] = strlen(t->cells[r * t->ncols + c]);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];

            if (c + 1 < t->ncols)
                fprintf(out, "%-*s   ", (int)w[c], s);
            else
                fprintf(out, "%s\n", s);
        }
    free(w);
}
