/*
 * core.h - the small core/v1 and metav1 value types that Kueue's kinds
 * embed: LabelSelector, Taint, Toleration.
 *
 * Ownership: each struct owns its strings; _release() frees and
 * re-initialises.  Matching functions are pure.
 */
#ifndef TS_API_CORE_H
#define TS_API_CORE_H

#include <cJSON.h>
#include <stddef.h>

#include "api/dec.h"
#include "api/opt.h"
#include "util/strlist.h"
#include "util/strmap.h"

/* --- LabelSelector ---------------------------------------------------- */

enum ts_selector_op {
    TS_SELECTOR_IN = 0,
    TS_SELECTOR_NOT_IN,
    TS_SELECTOR_EXISTS,
    TS_SELECTOR_DOES_NOT_EXIST,
};

struct ts_selector_req {
    char *key;
    enum ts_selector_op op;
    struct ts_strlist values;
};

struct ts_label_selector {
    struct ts_strmap match_labels;
    struct ts_selector_req *exprs;
    size_t n_exprs;
};

void ts_label_selector_init(struct ts_label_selector *s);
void ts_label_selector_release(struct ts_label_selector *s);
void ts_label_selector_copy(struct ts_label_selector *dst, const struct ts_label_selector *src);
/* Decodes obj[key]; returns 1 when present (selector filled), 0 when
 * absent/null, -1 on error.  Operators other than In, NotIn, Exists,
 * DoesNotExist are reported as Unsupported value. */
int ts_label_selector_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                             struct ts_label_selector *s);
void ts_label_selector_encode(const struct ts_label_selector *s, cJSON *obj, const char *key);
/* 1 when labels satisfy every matchLabels pair and every expression.  An
 * empty selector matches everything (metav1.LabelSelectorAsSelector). */
int ts_label_selector_matches(const struct ts_label_selector *s, const struct ts_strmap *labels);
/* Validation as metav1validation.ValidateLabelSelector: keys and values
 * valid, In/NotIn need values, Exists/DoesNotExist forbid them. */
void ts_label_selector_validate(const struct ts_label_selector *s, const char *path,
                                struct ts_field_errors *errs);

/* --- Taint and Toleration --------------------------------------------- */

struct ts_taint {
    char *key;
    char *value;
    char *effect; /* NoSchedule, PreferNoSchedule, NoExecute */
};

struct ts_toleration {
    char *key;
    char *op; /* "Equal" (default when NULL) or "Exists" */
    char *value;
    char *effect; /* NULL = all effects */
    struct ts_opt_i64 toleration_seconds;
};

void ts_taint_release(struct ts_taint *t);
void ts_toleration_release(struct ts_toleration *t);
void ts_toleration_copy(struct ts_toleration *dst, const struct ts_toleration *src);

/* Decode an array obj[key] into a malloc'd array (*out, *n).  Ownership:
 * caller releases each element and frees the array. */
void ts_taints_decode(struct ts_dec *d, const cJSON *obj, const char *key, struct ts_taint **out,
                      size_t *n);
void ts_tolerations_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                           struct ts_toleration **out, size_t *n);
void ts_taints_encode(const struct ts_taint *t, size_t n, cJSON *obj, const char *key);
void ts_tolerations_encode(const struct ts_toleration *t, size_t n, cJSON *obj, const char *key);
/* Frees an array returned by the decoders. */
void ts_taints_free(struct ts_taint *t, size_t n);
void ts_tolerations_free(struct ts_toleration *t, size_t n);

/* v1.Toleration.ToleratesTaint. */
int ts_toleration_tolerates(const struct ts_toleration *tol, const struct ts_taint *taint);
/* 1 when some toleration in the list tolerates taint. */
int ts_tolerations_tolerate(const struct ts_toleration *tols, size_t n,
                            const struct ts_taint *taint);
/* 1 when both tolerations are the same (for de-duplication on injection). */
int ts_toleration_equal(const struct ts_toleration *a, const struct ts_toleration *b);

#endif
