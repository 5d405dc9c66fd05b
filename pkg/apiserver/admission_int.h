/*
 * admission_int.h - state shared by admission.c (matching, the points in
 * the write pipeline; under the server lock) and admission_call.c (the
 * AdmissionReview calls; without the lock).  Everything in struct
 * ts__as_adm is owned by it and copied out of the store, so the calls
 * never touch shared state.
 */
#ifndef TS_APISERVER_ADMISSION_INT_H
#define TS_APISERVER_ADMISSION_INT_H

#include "apiserver/server_int.h"

struct ts__as_hook {
    cJSON *wh;     /* the webhook entry of the configuration (copy) */
    char *version; /* version the object is sent in (matchPolicy Equivalent) */
    int kueue;     /* convert with Kueue's converter (else rewrite apiVersion) */
};

struct ts__as_adm {
    int phase;
    int rounds;
    int have_old;
    int64_t old_rv;
    int mutated_done, validated_done;
    cJSON *mutated; /* object after the mutating webhooks (request version) */
    cJSON *final;   /* object the validating webhooks accepted */
    /* the pending calls */
    struct ts__as_hook *hooks;
    size_t n_hooks;
    cJSON *obj, *old; /* request-version objects (NULL when absent) */
    /* the objects while the webhooks are matched (borrowed): copied into
     * obj and old only when one matches, since most writes call none */
    const cJSON *sel_obj, *sel_old;
    char *group, *version, *resource, *sub, *kind, *ns, *name, *op;
    int dry_run;
    char uid[37]; /* AdmissionRequest uid (one per request) */
    cJSON *options;
    struct ts_strlist warnings;
};

/* metav1.LabelSelector (matchLabels, matchExpressions) against a labels
 * object; a NULL or empty selector matches everything. */
int ts__as_labelsel_match(const cJSON *sel, const cJSON *labels);

/* Frees the pending call data (hooks, objects, attributes). */
void ts__as_adm_clear_call(struct ts__as_adm *a);

#endif
