/*
 * registry.c - metric families, their sorted series and the text
 * exposition (see registry.h).
 */
#include "metrics/registry.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/expfmt.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/log.h"

struct series {
    char **values;  /* one per label, in registration order */
    char *labels;   /* `a="x",b="y"`: sorted by name, escaped, rendered once */
    double value;   /* counter or gauge value; a histogram's sum */
    uint64_t count; /* histogram observations */
    uint64_t *hits; /* histogram: observations per finite bucket (not cumulative) */
};

struct ts_metrics_family {
    struct ts_metrics_registry *reg;
    enum ts_metrics_kind kind;
    char *name;
    char *help;
    char **labels;
    size_t n_labels;
    size_t order[TS_METRICS_MAX_LABELS]; /* label indices sorted by name */
    double *bounds;
    char **le; /* bounds formatted once for the `le` label */
    size_t n_bounds;
    struct series **series; /* sorted by values taken in `order` */
    size_t n, cap;
    /* series_key() -> struct series *: an update finds its series in one
     * lookup, not a binary search over label strings (thousands of
     * queues' series per family) */
    struct ts_hmap index;
};

struct ts_metrics_registry {
    pthread_mutex_t mu;
    struct ts_metrics_family **fams; /* sorted by name */
    size_t n, cap;
};

static const double default_buckets[] = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};

const double *ts_metrics_default_buckets(size_t *n)
{
    *n = sizeof(default_buckets) / sizeof(default_buckets[0]);
    return default_buckets;
}

struct ts_metrics_registry *ts_metrics_registry_new(void)
{
    struct ts_metrics_registry *reg = ts_xcalloc(1, sizeof(*reg));

    pthread_mutex_init(&reg->mu, NULL);
    return reg;
}

static void series_free(struct series *s, size_t n_labels)
{
    for (size_t i = 0; i < n_labels; i++)
        free(s->values[i]);
    free(s->values);
    free(s->labels);
    free(s->hits);
    free(s);
}

static void family_free(struct ts_metrics_family *f)
{
    for (size_t i = 0; i < f->n; i++)
        series_free(f->series[i], f->n_labels);
    for (size_t i = 0; i < f->n_labels; i++)
        free(f->labels[i]);
    for (size_t i = 0; i < f->n_bounds; i++)
        free(f->le[i]);
    free(f->series);
    ts_hmap_release(&f->index);
    free(f->labels);
    free(f->bounds);
    free(f->le);
    free(f->name);
    free(f->help);
    free(f);
}

void ts_metrics_registry_free(struct ts_metrics_registry *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->n; i++)
        family_free(reg->fams[i]);
    free(reg->fams);
    pthread_mutex_destroy(&reg->mu);
    free(reg);
}

/* --- registration ----------------------------------------------------------- */

/* Prometheus names: [a-zA-Z_:][a-zA-Z0-9_:]* for metrics; labels the same
 * without ':' and not starting with the reserved "__". */
static int valid_name(const char *s, int is_label)
{
    if (!s || !*s || (is_label && strncmp(s, "__", 2) == 0))
        return 0;
    for (const char *p = s; *p; p++) {
        int alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
                    (!is_label && *p == ':');

        if (!alpha && !(p > s && *p >= '0' && *p <= '9'))
            return 0;
    }
    return 1;
}

static int check_labels(const struct ts_metrics_desc *d, struct ts_err *err)
{
    if (d->n_labels > TS_METRICS_MAX_LABELS)
        return ts_err_set(err, TS_EINVAL, "metric '%s': more than %d labels", d->name,
                          TS_METRICS_MAX_LABELS);
    for (size_t i = 0; i < d->n_labels; i++) {
        if (!valid_name(d->labels[i], 1))
            return ts_err_set(err, TS_EINVAL, "metric '%s': invalid label name '%s'", d->name,
                              d->labels[i] ? d->labels[i] : "");
        if (d->kind == TS_METRICS_HISTOGRAM && strcmp(d->labels[i], "le") == 0)
            return ts_err_set(err, TS_EINVAL, "metric '%s': label 'le' is reserved", d->name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(d->labels[i], d->labels[j]) == 0)
                return ts_err_set(err, TS_EINVAL, "metric '%s': duplicate label '%s'", d->name,
                                  d->labels[i]);
    }
    return 0;
}

/* Finite bounds in use: a trailing +Inf is implied, so it is dropped. */
static int check_buckets(const struct ts_metrics_desc *d, size_t *n, struct ts_err *err)
{
    *n = d->kind == TS_METRICS_HISTOGRAM ? d->n_buckets : 0;
    if (*n && isinf(d->buckets[*n - 1]) && d->buckets[*n - 1] > 0)
        (*n)--;
    for (size_t i = 0; i < *n; i++)
        if (!isfinite(d->buckets[i]) || (i && !(d->buckets[i] > d->buckets[i - 1])))
            return ts_err_set(err, TS_EINVAL,
                              "metric '%s': buckets must be finite and strictly increasing",
                              d->name);
    return 0;
}

static struct ts_metrics_family *family_new(const struct ts_metrics_desc *d, size_t n_bounds)
{
    struct ts_metrics_family *f = ts_xcalloc(1, sizeof(*f));
    char num[TS_METRICS_FLOAT_MAX];

    f->kind = d->kind;
    f->name = ts_xstrdup(d->name);
    f->help = ts_xstrdup(d->help ? d->help : "");
    f->n_labels = d->n_labels;
    ts_hmap_init(&f->index);
    f->labels = ts_xcalloc(d->n_labels + 1, sizeof(*f->labels));
    for (size_t i = 0; i < d->n_labels; i++) {
        size_t j = i;

        f->labels[i] = ts_xstrdup(d->labels[i]);
        /* insertion sort of the label indices by name */
        for (; j > 0 && strcmp(d->labels[f->order[j - 1]], d->labels[i]) > 0; j--)
            f->order[j] = f->order[j - 1];
        f->order[j] = i;
    }
    f->n_bounds = n_bounds;
    f->bounds = ts_xcalloc(n_bounds + 1, sizeof(*f->bounds));
    f->le = ts_xcalloc(n_bounds + 1, sizeof(*f->le));
    for (size_t i = 0; i < n_bounds; i++) {
        f->bounds[i] = d->buckets[i];
        ts_metrics_fmt_float(d->buckets[i], num);
        f->le[i] = ts_xstrdup(num);
    }
    return f;
}

/* Index of the first family whose name is >= name. */
static size_t family_pos(const struct ts_metrics_registry *reg, const char *name, int *found)
{
    size_t lo = 0, hi = reg->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (strcmp(reg->fams[mid]->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < reg->n && strcmp(reg->fams[lo]->name, name) == 0;
    return lo;
}

int ts_metrics_family_add(struct ts_metrics_registry *reg, const struct ts_metrics_desc *d,
                          struct ts_metrics_family **out, struct ts_err *err)
{
    struct ts_metrics_family *f;
    size_t n_bounds, pos;
    int rc, found;

    if (!valid_name(d->name, 0))
        return ts_err_set(err, TS_EINVAL, "invalid metric name '%s'", d->name ? d->name : "");
    if ((rc = check_labels(d, err)) || (rc = check_buckets(d, &n_bounds, err)))
        return rc;
    f = family_new(d, n_bounds);
    f->reg = reg;
    pthread_mutex_lock(&reg->mu);
    pos = family_pos(reg, d->name, &found);
    if (!found) {
        TS_GROW(reg->fams, reg->cap, reg->n + 1);
        memmove(reg->fams + pos + 1, reg->fams + pos, (reg->n - pos) * sizeof(*reg->fams));
        reg->fams[pos] = f;
        reg->n++;
    }
    pthread_mutex_unlock(&reg->mu);
    if (found) {
        family_free(f);
        return ts_err_set(err, TS_EEXIST, "metric '%s' is already registered", d->name);
    }
    if (out)
        *out = f;
    return 0;
}

struct ts_metrics_family *ts_metrics_family_find(struct ts_metrics_registry *reg, const char *name)
{
    struct ts_metrics_family *f = NULL;
    size_t pos;
    int found;

    pthread_mutex_lock(&reg->mu);
    pos = family_pos(reg, name, &found);
    if (found)
        f = reg->fams[pos];
    pthread_mutex_unlock(&reg->mu);
    return f;
}

/* --- series ----------------------------------------------------------------- */

static const char *val(const char *const *values, size_t i)
{
    return values[i] ? values[i] : "";
}

/* Orders a stored series against wanted values, label by label in name
 * order (client_golang's metricSorter). */
static int cmp_series(const struct ts_metrics_family *f, const struct series *s,
                      const char *const *values)
{
    for (size_t k = 0; k < f->n_labels; k++) {
        size_t i = f->order[k];
        int c = strcmp(s->values[i], val(values, i));

        if (c)
            return c;
    }
    return 0;
}

/* The index key of values: each value after its length, so that no two
 * sets of values share a key.  Written into buf[len] when it fits, else
 * into *heap (the caller frees it). */
static const char *series_key(const struct ts_metrics_family *f, const char *const *values,
                              char *buf, size_t len, char **heap)
{
    size_t need = 1, at = 0;
    char *out = buf;

    *heap = NULL;
    for (size_t i = 0; i < f->n_labels; i++)
        need += strlen(val(values, i)) + 21; /* a size_t in decimal and ':' */
    if (need > len)
        out = *heap = ts_xmalloc(need);
    else
        need = len;
    for (size_t i = 0; i < f->n_labels; i++) {
        const char *v = val(values, i);
        size_t vl = strlen(v);

        at += (size_t)snprintf(out + at, need - at, "%zu:", vl);
        memcpy(out + at, v, vl);
        at += vl;
    }
    out[at] = '\0';
    return out;
}

/* The series with these values, or NULL. */
static struct series *series_find(const struct ts_metrics_family *f, const char *const *values)
{
    char buf[256], *heap;
    struct series *s = ts_hmap_get(&f->index, series_key(f, values, buf, sizeof(buf), &heap));

    free(heap);
    return s;
}

static void series_index(struct ts_metrics_family *f, struct series *s, int add)
{
    char buf[256], *heap;
    const char *key = series_key(f, (const char *const *)s->values, buf, sizeof(buf), &heap);

    if (add)
        ts_hmap_put(&f->index, key, s);
    else
        ts_hmap_del(&f->index, key);
    free(heap);
}

/* Index of the series with these values, or where it would go. */
static size_t series_pos(const struct ts_metrics_family *f, const char *const *values, int *found)
{
    size_t lo = 0, hi = f->n;

    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_series(f, f->series[mid], values);

        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct series *series_new(const struct ts_metrics_family *f, const char *const *values)
{
    struct series *s = ts_xcalloc(1, sizeof(*s));
    struct ts_buf b = TS_BUF_INIT;

    s->values = ts_xcalloc(f->n_labels + 1, sizeof(*s->values));
    for (size_t k = 0; k < f->n_labels; k++) {
        size_t i = f->order[k];

        s->values[i] = ts_xstrdup(val(values, i));
        ts_buf_addf(&b, "%s%s=\"", k ? "," : "", f->labels[i]);
        ts_metrics_escape_label(&b, s->values[i]);
        ts_buf_addc(&b, '"');
    }
    s->labels = ts_buf_take(&b);
    if (f->kind == TS_METRICS_HISTOGRAM)
        s->hits = ts_xcalloc(f->n_bounds + 1, sizeof(*s->hits));
    return s;
}

/* The series for values, created if missing.  Caller holds the lock. */
static struct series *series_get(struct ts_metrics_family *f, const char *const *values)
{
    struct series *s = series_find(f, values);
    int found;
    size_t pos;

    if (s)
        return s;
    pos = series_pos(f, values, &found);
    TS_GROW(f->series, f->cap, f->n + 1);
    memmove(f->series + pos + 1, f->series + pos, (f->n - pos) * sizeof(*f->series));
    f->series[pos] = s = series_new(f, values);
    f->n++;
    series_index(f, s, 1);
    return s;
}

int ts_metrics_counter_add(struct ts_metrics_family *f, const char *const *values, double v)
{
    TS_BUG_ON(f->kind != TS_METRICS_COUNTER);
    if (!(v >= 0)) {
        ts_log_warn("metrics", "counter '%s' cannot decrease (add %g ignored)", f->name, v);
        return TS_EINVAL;
    }
    pthread_mutex_lock(&f->reg->mu);
    series_get(f, values)->value += v;
    pthread_mutex_unlock(&f->reg->mu);
    return 0;
}

static void gauge_update(struct ts_metrics_family *f, const char *const *values, double v, int add)
{
    struct series *s;

    TS_BUG_ON(f->kind != TS_METRICS_GAUGE);
    pthread_mutex_lock(&f->reg->mu);
    s = series_get(f, values);
    s->value = add ? s->value + v : v;
    pthread_mutex_unlock(&f->reg->mu);
}

void ts_metrics_gauge_set(struct ts_metrics_family *f, const char *const *values, double v)
{
    gauge_update(f, values, v, 0);
}

void ts_metrics_gauge_add(struct ts_metrics_family *f, const char *const *values, double v)
{
    gauge_update(f, values, v, 1);
}

void ts_metrics_histogram_observe(struct ts_metrics_family *f, const char *const *values, double v)
{
    size_t lo = 0, hi = f->n_bounds;
    struct series *s;

    TS_BUG_ON(f->kind != TS_METRICS_HISTOGRAM);
    while (lo < hi) { /* first bound >= v (Go's sort.SearchFloat64s) */
        size_t mid = lo + (hi - lo) / 2;

        if (f->bounds[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    pthread_mutex_lock(&f->reg->mu);
    s = series_get(f, values);
    s->hits[lo]++; /* lo == n_bounds: only the +Inf bucket */
    s->count++;
    s->value += v;
    pthread_mutex_unlock(&f->reg->mu);
}

int ts_metrics_delete_series(struct ts_metrics_family *f, const char *const *values)
{
    int found;
    size_t pos;

    pthread_mutex_lock(&f->reg->mu);
    pos = series_pos(f, values, &found);
    if (found) {
        series_index(f, f->series[pos], 0);
        series_free(f->series[pos], f->n_labels);
        memmove(f->series + pos, f->series + pos + 1, (f->n - pos - 1) * sizeof(*f->series));
        f->n--;
    }
    pthread_mutex_unlock(&f->reg->mu);
    return found;
}

static int label_index(const struct ts_metrics_family *f, const char *name, size_t *out)
{
    for (size_t i = 0; i < f->n_labels; i++)
        if (strcmp(f->labels[i], name) == 0) {
            *out = i;
            return 1;
        }
    return 0;
}

static int matches(const struct series *s, const size_t *idx, const char *const *values, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(s->values[idx[k]], val(values, k)) != 0)
            return 0;
    return 1;
}

size_t ts_metrics_delete_matching(struct ts_metrics_family *f, const char *const *names,
                                  const char *const *values, size_t n)
{
    size_t idx[TS_METRICS_MAX_LABELS], kept = 0, removed;

    if (n > f->n_labels)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (!label_index(f, names[k], &idx[k]))
            return 0;
    pthread_mutex_lock(&f->reg->mu);
    for (size_t i = 0; i < f->n; i++) {
        if (matches(f->series[i], idx, values, n)) {
            series_index(f, f->series[i], 0);
            series_free(f->series[i], f->n_labels);
        } else {
            f->series[kept++] = f->series[i]; /* order is preserved */
        }
    }
    removed = f->n - kept;
    f->n = kept;
    pthread_mutex_unlock(&f->reg->mu);
    return removed;
}

int ts_metrics_value(struct ts_metrics_family *f, const char *const *values, double *out)
{
    const struct series *s;

    pthread_mutex_lock(&f->reg->mu);
    if ((s = series_find(f, values)))
        *out = f->kind == TS_METRICS_HISTOGRAM ? (double)s->count : s->value;
    pthread_mutex_unlock(&f->reg->mu);
    return s ? 0 : TS_ENOTFOUND;
}

size_t ts_metrics_series_count(struct ts_metrics_family *f)
{
    size_t n;

    pthread_mutex_lock(&f->reg->mu);
    n = f->n;
    pthread_mutex_unlock(&f->reg->mu);
    return n;
}

/* --- rendering ---------------------------------------------------------------- */

static const char *const kind_names[] = {"counter", "gauge", "histogram"};

/* One line: name[suffix]{labels[,le="x"]} value.  Plain appends rather
 * than printf: a render is mostly this function. */
static int sample(struct ts_buf *b, const char *name, const char *suffix, const char *labels,
                  const char *le, double v)
{
    char num[TS_METRICS_FLOAT_MAX + 2];
    size_t n = ts_metrics_fmt_float(v, num + 1);
    int rc = ts_buf_adds(b, name);

    if (!rc)
        rc = ts_buf_adds(b, suffix);
    if (!rc && (*labels || le)) {
        rc = ts_buf_addc(b, '{');
        if (!rc)
            rc = ts_buf_adds(b, labels);
        if (!rc && le)
            rc = ts_buf_adds(b, *labels ? ",le=\"" : "le=\"");
        if (!rc && le)
            rc = ts_buf_adds(b, le);
        if (!rc && le)
            rc = ts_buf_addc(b, '"');
        if (!rc)
            rc = ts_buf_addc(b, '}');
    }
    num[0] = ' ';
    num[n + 1] = '\n';
    return rc ? rc : ts_buf_add(b, num, n + 2);
}

static int render_histogram(struct ts_buf *b, const struct ts_metrics_family *f,
                            const struct series *s)
{
    uint64_t cum = 0;
    int rc = 0;

    for (size_t i = 0; i < f->n_bounds && !rc; i++) {
        cum += s->hits[i];
        rc = sample(b, f->name, "_bucket", s->labels, f->le[i], (double)cum);
    }
    if (!rc)
        rc = sample(b, f->name, "_bucket", s->labels, "+Inf", (double)s->count);
    if (!rc)
        rc = sample(b, f->name, "_sum", s->labels, NULL, s->value);
    if (!rc)
        rc = sample(b, f->name, "_count", s->labels, NULL, (double)s->count);
    return rc;
}

static int render_family(struct ts_buf *b, const struct ts_metrics_family *f)
{
    int rc;

    if (f->n == 0) /* client_golang omits a vector without children */
        return 0;
    rc = ts_buf_addf(b, "# HELP %s ", f->name);
    if (!rc)
        rc = ts_metrics_escape_help(b, f->help);
    if (!rc)
        rc = ts_buf_addf(b, "\n# TYPE %s %s\n", f->name, kind_names[f->kind]);
    for (size_t i = 0; i < f->n && !rc; i++) {
        const struct series *s = f->series[i];

        rc = f->kind == TS_METRICS_HISTOGRAM ? render_histogram(b, f, s)
                                             : sample(b, f->name, "", s->labels, NULL, s->value);
    }
    return rc;
}

int ts_metrics_render(struct ts_metrics_registry *reg, struct ts_buf *out)
{
    int rc = 0;

    pthread_mutex_lock(&reg->mu);
    for (size_t i = 0; i < reg->n && !rc; i++)
        rc = render_family(out, reg->fams[i]);
    pthread_mutex_unlock(&reg->mu);
    return rc;
}
