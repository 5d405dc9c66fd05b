/*
 * registry.h - Prometheus metric families (counter, gauge, histogram) with
 * fixed label names, series keyed by label values, rendered in the text
 * exposition format 0.0.4 exactly as Go's client_golang renders them.
 *
 * Rendering rules kept (so Kueue dashboards and recording rules see the
 * same text): families sorted by name, families without series omitted,
 * labels of a series printed sorted by label name, series sorted by their
 * label values in that order (bytewise), HELP/TYPE lines first, histograms
 * as cumulative `_bucket{...,le="..."}` lines ending with le="+Inf", then
 * `_sum` and `_count`; numbers as expfmt.h describes.
 *
 * Series are kept sorted (binary search on update, insertion only when a
 * new label combination appears), so rendering never sorts and an update
 * costs O(log n) string comparisons.
 *
 * Thread rule: the controller's loop thread updates while the metrics
 * server renders from its own thread, so every operation takes the
 * registry's one mutex, for as long as the operation itself (a render
 * formats while holding it: one pass of memcpy and number formatting).
 * Family handles stay valid until ts_metrics_registry_free().
 *
 * Ownership: the registry copies every string it is given (names, help,
 * label names and values); family handles are borrowed from the registry.
 * A NULL label value means "" (client_golang prints empty values too).
 */
#ifndef TS_METRICS_REGISTRY_H
#define TS_METRICS_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

enum ts_metrics_kind {
    TS_METRICS_COUNTER = 0,
    TS_METRICS_GAUGE,
    TS_METRICS_HISTOGRAM,
};

/* Most labels a family may have (Kueue's widest has six). */
#define TS_METRICS_MAX_LABELS 8

struct ts_metrics_registry;
struct ts_metrics_family;

/* Describes a family to register.  `buckets` are a histogram's finite
 * upper bounds, strictly increasing (a trailing +Inf is dropped, as Go
 * does; +Inf is always added); ignored for counters and gauges. */
struct ts_metrics_desc {
    enum ts_metrics_kind kind;
    const char *name;
    const char *help;
    const char *const *labels;
    size_t n_labels;
    const double *buckets;
    size_t n_buckets;
};

/* A new, empty registry.  Ownership: free with ts_metrics_registry_free(). */
struct ts_metrics_registry *ts_metrics_registry_new(void);
/* Frees the registry and every family (handles become invalid).  NULL is
 * fine.  No other thread may use it any more (stop the server first). */
void ts_metrics_registry_free(struct ts_metrics_registry *reg);

/* Registers a family.  Returns 0, TS_EINVAL (name or a label name is not a
 * valid Prometheus name, a histogram uses label "le", buckets are not
 * increasing, too many labels) or TS_EEXIST (name taken).
 * Ownership: *out is borrowed from reg; strings are copied. */
int ts_metrics_family_add(struct ts_metrics_registry *reg, const struct ts_metrics_desc *d,
                          struct ts_metrics_family **out, struct ts_err *err);

/* The family named `name`, or NULL.  Borrowed. */
struct ts_metrics_family *ts_metrics_family_find(struct ts_metrics_registry *reg, const char *name);

/* client_golang's DefBuckets (.005 ... 10, eleven bounds); *n gets the
 * count.  Ownership: static array. */
const double *ts_metrics_default_buckets(size_t *n);

/* In all updates `values` holds one value per label name, in the order the
 * labels were registered.  Using a family of another kind is a bug
 * (TS_BUG_ON).  The series is created on first use. */

/* Adds v to a counter.  Returns 0, or TS_EINVAL when v is negative or NaN
 * (a counter never goes down; the series is left unchanged). */
int ts_metrics_counter_add(struct ts_metrics_family *f, const char *const *values, double v);
/* Sets / adds to a gauge. */
void ts_metrics_gauge_set(struct ts_metrics_family *f, const char *const *values, double v);
void ts_metrics_gauge_add(struct ts_metrics_family *f, const char *const *values, double v);
/* Records one observation: the first bucket with v <= bound counts it (it
 * shows in that bucket and every larger one), _sum += v, _count += 1. */
void ts_metrics_histogram_observe(struct ts_metrics_family *f, const char *const *values, double v);

/* Removes the series with exactly these values.  Returns 1 if it existed,
 * else 0. */
int ts_metrics_delete_series(struct ts_metrics_family *f, const char *const *values);
/* Removes every series whose labels names[i] have values[i] for all i < n
 * (client_golang's DeletePartialMatch).  A name the family does not have
 * matches nothing.  Returns the number of series removed. */
size_t ts_metrics_delete_matching(struct ts_metrics_family *f, const char *const *names,
                                  const char *const *values, size_t n);

/* Reads a series: a counter's or gauge's value, a histogram's observation
 * count.  Returns 0 or TS_ENOTFOUND (no such series). */
int ts_metrics_value(struct ts_metrics_family *f, const char *const *values, double *out);
/* Number of series in the family. */
size_t ts_metrics_series_count(struct ts_metrics_family *f);

/* Appends the whole registry in text format 0.0.4 to out.  Returns 0 or
 * TS_EOVERFLOW (out's cap reached; out then holds a truncated text). */
int ts_metrics_render(struct ts_metrics_registry *reg, struct ts_buf *out);

#endif
