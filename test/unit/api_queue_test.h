/*
 * api_queue_test.h - helpers shared by test_api_queues*.c and
 * test_api_convert.c (header-only, static inline, so each test binary
 * stands alone): JSON written with single quotes, path edits, a table of
 * the queue kinds behind one interface, and error-list searches.
 *
 * Include after <cmocka.h>.
 */
#ifndef TS_TEST_API_QUEUE_TEST_H
#define TS_TEST_API_QUEUE_TEST_H

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/clusterqueue.h"
#include "api/cohort.h"
#include "api/field.h"
#include "api/localqueue.h"
#include "api/namespace.h"
#include "api/priorityclass.h"
#include "api/resourceflavor.h"
#include "api/workloadpriorityclass.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Parses JSON written with ' for " (so tables stay readable).
 * Ownership: caller deletes. */
static inline cJSON *tq_json(const char *text)
{
    char *s = ts_xstrdup(text);
    cJSON *j;

    for (char *p = s; *p; p++) {
        if (*p == '\'')
            *p = '"';
    }
    j = cJSON_Parse(s);
    if (!j)
        fail_msg("test JSON does not parse: %s", s);
    free(s);
    return j;
}

/* Applies "path=json" edits (json/json.h paths, ' for ") to root. */
static inline void tq_edit(cJSON *root, const char *const *edits, size_t n)
{
    for (size_t i = 0; i < n && edits[i]; i++) {
        const char *eq = strchr(edits[i], '=');
        char path[256];
        struct ts_err err = {0};

        assert_non_null(eq);
        snprintf(path, sizeof(path), "%.*s", (int)(eq - edits[i]), edits[i]);
        if (ts_json_set(root, path, tq_json(eq + 1), &err))
            fail_msg("edit %s: %s", edits[i], err.msg);
    }
}

/* Reads a whole file.  Ownership: caller frees. */
static inline char *tq_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct ts_buf b = TS_BUF_INIT;
    char chunk[4096];
    size_t n;

    if (!f)
        fail_msg("cannot open %s", path);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ts_buf_add(&b, chunk, n);
    fclose(f);
    return ts_buf_take(&b);
}

/* Parses a JSON file.  Ownership: caller deletes. */
static inline cJSON *tq_json_file(const char *path)
{
    char *text = tq_read_file(path);
    cJSON *j = cJSON_Parse(text);

    if (!j)
        fail_msg("%s: invalid JSON", path);
    free(text);
    return j;
}

/* --- the kinds behind one interface --------------------------------------- */

union tq_any {
    struct ts_cluster_queue cq;
    struct ts_cohort co;
    struct ts_local_queue lq;
    struct ts_resource_flavor rf;
    struct ts_workload_priority_class wpc;
    struct ts_priority_class pc;
    struct ts_namespace ns;
};

struct tq_kind {
    const char *kind;
    void (*init)(union tq_any *x);
    void (*release)(union tq_any *x);
    void (*decode)(struct ts_dec *d, const cJSON *obj, union tq_any *x);
    cJSON *(*encode)(const union tq_any *x);
    void (*validate)(const union tq_any *x, struct ts_field_errors *errs);
    void (*validate_update)(const union tq_any *o, const union tq_any *n,
                            struct ts_field_errors *errs);
};

#define TQ_WRAP(pfx, member)                                                                       \
    static inline void tq_##pfx##_init(union tq_any *x)                                            \
    {                                                                                              \
        ts_##pfx##_init(&x->member);                                                               \
    }                                                                                              \
    static inline void tq_##pfx##_release(union tq_any *x)                                         \
    {                                                                                              \
        ts_##pfx##_release(&x->member);                                                            \
    }                                                                                              \
    static inline void tq_##pfx##_decode(struct ts_dec *d, const cJSON *o, union tq_any *x)        \
    {                                                                                              \
        ts_##pfx##_decode(d, o, &x->member);                                                       \
    }                                                                                              \
    static inline cJSON *tq_##pfx##_encode(const union tq_any *x)                                  \
    {                                                                                              \
        return ts_##pfx##_encode(&x->member);                                                      \
    }                                                                                              \
    static inline void tq_##pfx##_validate(const union tq_any *x, struct ts_field_errors *e)       \
    {                                                                                              \
        ts_##pfx##_validate(&x->member, e);                                                        \
    }

#define TQ_WRAP_UPDATE(pfx, member)                                                                \
    static inline void tq_##pfx##_validate_update(const union tq_any *o, const union tq_any *n,    \
                                                  struct ts_field_errors *e)                       \
    {                                                                                              \
        ts_##pfx##_validate_update(&o->member, &n->member, e);                                     \
    }

TQ_WRAP(cluster_queue, cq)
TQ_WRAP_UPDATE(cluster_queue, cq)
TQ_WRAP(cohort, co)
TQ_WRAP_UPDATE(cohort, co)
TQ_WRAP(local_queue, lq)
TQ_WRAP_UPDATE(local_queue, lq)
TQ_WRAP(resource_flavor, rf)
TQ_WRAP_UPDATE(resource_flavor, rf)
TQ_WRAP(workload_priority_class, wpc)
TQ_WRAP_UPDATE(workload_priority_class, wpc)
TQ_WRAP(priority_class, pc)
TQ_WRAP_UPDATE(priority_class, pc)
TQ_WRAP(namespace, ns)

#define TQ_KIND(name, pfx, upd)                                                                    \
    {                                                                                              \
        name, tq_##pfx##_init, tq_##pfx##_release, tq_##pfx##_decode, tq_##pfx##_encode,           \
            tq_##pfx##_validate, upd                                                               \
    }

static const struct tq_kind tq_kinds[] = {
    TQ_KIND("ClusterQueue", cluster_queue, tq_cluster_queue_validate_update),
    TQ_KIND("Cohort", cohort, tq_cohort_validate_update),
    TQ_KIND("LocalQueue", local_queue, tq_local_queue_validate_update),
    TQ_KIND("ResourceFlavor", resource_flavor, tq_resource_flavor_validate_update),
    TQ_KIND("WorkloadPriorityClass", workload_priority_class,
            tq_workload_priority_class_validate_update),
    TQ_KIND("PriorityClass", priority_class, tq_priority_class_validate_update),
    TQ_KIND("Namespace", namespace, NULL),
};

/* The kind called `kind` (fails the test when there is none). */
static inline const struct tq_kind *tq_kind_of(const char *kind)
{
    for (size_t i = 0; i < N_ELEMS(tq_kinds); i++) {
        if (strcmp(tq_kinds[i].kind, kind) == 0)
            return &tq_kinds[i];
    }
    fail_msg("unknown kind %s", kind);
    return &tq_kinds[0];
}

/* --- errors ------------------------------------------------------------------ */

/* All messages, one per line.  Ownership: caller frees. */
static inline char *tq_errors_text(const struct ts_field_errors *errs)
{
    struct ts_buf b = TS_BUF_INIT;

    for (size_t i = 0; i < errs->n; i++) {
        ts_field_error_format(&errs->items[i], &b);
        ts_buf_addc(&b, '\n');
    }
    return ts_buf_take(&b);
}

/* 1 when an error has field == path and its message contains substr. */
static inline int tq_has_error(const struct ts_field_errors *errs, const char *path,
                               const char *substr)
{
    for (size_t i = 0; i < errs->n; i++) {
        struct ts_buf b = TS_BUF_INIT;
        int hit;

        ts_field_error_format(&errs->items[i], &b);
        hit = strcmp(errs->items[i].field, path) == 0 && strstr(b.ptr, substr) != NULL;
        ts_buf_release(&b);
        if (hit)
            return 1;
    }
    return 0;
}

/* Fails the test (naming the case) unless errs is empty. */
static inline void tq_assert_no_errors(const char *what, const struct ts_field_errors *errs)
{
    if (errs->n) {
        char *t = tq_errors_text(errs);

        fail_msg("%s: unexpected errors:\n%s", what, t);
        free(t);
    }
}

/* Fails the test unless errs holds (path, substr). */
static inline void tq_assert_error(const char *what, const struct ts_field_errors *errs,
                                   const char *path, const char *substr)
{
    if (!tq_has_error(errs, path, substr)) {
        char *t = tq_errors_text(errs);

        fail_msg("%s: want %s: ...%s..., got:\n%s", what, path, substr, t);
        free(t);
    }
}

/* Decodes obj as `k` into x (initialised here); decode errors go to errs. */
static inline void tq_decode(const struct tq_kind *k, const cJSON *obj, union tq_any *x,
                             struct ts_field_errors *errs)
{
    struct ts_dec d;

    ts_dec_init(&d, errs);
    k->init(x);
    k->decode(&d, obj, x);
}

#endif
