/* Workload status validation (create) and the update rules: metav1
 * conditions, reclaimablePods, admission checks' podSetUpdates, clusterName,
 * and the immutability rules of Kueue's pkg/webhooks/workload_webhook.go
 * and of the Workload CRD. */
#include "api/workload.h"
#include "api/workload_int.h"

#include "api/names.h"
#include "util/buf.h"

#include <stdio.h>
#include <string.h>

#define REASON_FMT "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
#define REASON_MSG                                                                                 \
    "a condition reason must start with alphabetic character, optionally followed by a "           \
    "string of alphanumeric characters or '_,:', and must end with an alphanumeric "               \
    "character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  "      \
    "or 'ReasonA:ReasonB', regex used for validation is '" REASON_FMT "')"

static void too_many(struct ts_field_errors *errs, const char *path, size_t n, size_t max)
{
    char detail[64];

    if (n <= max)
        return;
    snprintf(detail, sizeof(detail), "must have at most %zu items", max);
    ts__workload_errf_int(errs, TS_FIELD_TOO_MANY, path, (int64_t)n, detail);
}

static int streq0(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* --- conditions (metav1validation.ValidateConditions) --------------------------- */

static int valid_reason(const char *r)
{
    size_t n = strlen(r);
    int alpha = (r[0] >= 'A' && r[0] <= 'Z') || (r[0] >= 'a' && r[0] <= 'z');

    if (!alpha)
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = r[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '_' || (i + 1 < n && (c == ',' || c == ':'));

        if (!ok)
            return 0;
    }
    return 1;
}

static void check_condition_text(const struct ts_condition *c, struct ts_path *p,
                                 struct ts_field_errors *errs)
{
    size_t mark = ts_path_push(p, "reason");

    if (!c->reason || !c->reason[0]) {
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(p), NULL, 0, "must be set");
    } else {
        if (!valid_reason(c->reason))
            ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), c->reason, 1, "%s",
                                REASON_MSG);
        if (strlen(c->reason) > 1024)
            ts_field_errors_add(errs, TS_FIELD_TOO_LONG, ts_path_str(p), NULL, 0,
                                "may not be more than 1024 bytes");
    }
    ts_path_pop(p, mark);
    ts_path_push(p, "message");
    if (c->message && strlen(c->message) > 32768)
        ts_field_errors_add(errs, TS_FIELD_TOO_LONG, ts_path_str(p), NULL, 0,
                            "may not be more than 32768 bytes");
    ts_path_pop(p, mark);
}

static void check_condition(const struct ts_conditions *cs, size_t i, struct ts_path *p,
                            struct ts_field_errors *errs)
{
    const struct ts_condition *c = &cs->items[i];
    size_t mark = ts_path_push_index(p, i);
    size_t m2 = ts_path_push(p, "type");

    ts_names_qualified(c->type ? c->type : "", ts_path_str(p), errs);
    for (size_t j = 0; j < i; j++) {
        if (streq0(cs->items[j].type, c->type)) {
            ts_field_errors_add(errs, TS_FIELD_DUPLICATE, ts_path_str(p), c->type, 1, NULL);
            break;
        }
    }
    ts_path_pop(p, m2);
    if (!c->status ||
        (strcmp(c->status, "True") && strcmp(c->status, "False") && strcmp(c->status, "Unknown"))) {
        ts_path_push(p, "status");
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, ts_path_str(p),
                            c->status ? c->status : "", 1,
                            "supported values: \"False\", \"True\", \"Unknown\"");
        ts_path_pop(p, m2);
    }
    if (c->observed_generation < 0) {
        ts_path_push(p, "observedGeneration");
        ts__workload_errf_int(errs, TS_FIELD_INVALID, ts_path_str(p), c->observed_generation,
                              "must be greater than or equal to zero");
        ts_path_pop(p, m2);
    }
    if (!c->last_transition_time) {
        ts_path_push(p, "lastTransitionTime");
        ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(p), NULL, 0, "must be set");
        ts_path_pop(p, m2);
    }
    check_condition_text(c, p, errs);
    ts_path_pop(p, mark);
}

/* --- tolerations (core/v1 ValidateTolerations) ------------------------------------ */

static void check_toleration(const struct ts_toleration *t, struct ts_path *p,
                             struct ts_field_errors *errs)
{
    size_t mark = p->len;
    const char *op = t->op ? t->op : "";

    if (t->key && t->key[0]) {
        ts_path_push(p, "key");
        ts_names_qualified(t->key, ts_path_str(p), errs);
        ts_path_pop(p, mark);
    }
    ts_path_push(p, "operator");
    if ((!t->key || !t->key[0]) && strcmp(op, "Exists"))
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), op, 1,
                            "operator must be Exists when `key` is empty, which means \"match "
                            "all values and all keys\"");
    if (!strcmp(op, "") || !strcmp(op, "Equal"))
        ts_names_label_value(t->value ? t->value : "", ts_path_str(p), errs);
    else if (!strcmp(op, "Exists") && t->value && t->value[0])
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), t->value, 1,
                            "value must be empty when `operator` is 'Exists'");
    else if (strcmp(op, "Exists"))
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, ts_path_str(p), op, 1,
                            "supported values: \"Equal\", \"Exists\"");
    ts_path_pop(p, mark);
    ts_path_push(p, "effect");
    if (t->toleration_seconds.set && !streq0(t->effect, "NoExecute"))
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), t->effect ? t->effect : "", 1,
                            "effect must be 'NoExecute' when `tolerationSeconds` is set");
    if (t->effect && t->effect[0] && strcmp(t->effect, "NoSchedule") &&
        strcmp(t->effect, "PreferNoSchedule") && strcmp(t->effect, "NoExecute"))
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, ts_path_str(p), t->effect, 1,
                            "supported values: \"NoSchedule\", \"PreferNoSchedule\", "
                            "\"NoExecute\"");
    ts_path_pop(p, mark);
}

void ts__workload_validate_tolerations(const struct ts_toleration *t, size_t n, const char *path,
                                       struct ts_field_errors *errs)
{
    struct ts_path p;

    ts_path_init(&p, path);
    too_many(errs, path, n, 8);
    for (size_t i = 0; i < n; i++) {
        size_t mark = ts_path_push_index(&p, i);

        check_toleration(&t[i], &p, errs);
        ts_path_pop(&p, mark);
    }
}

/* --- reclaimablePods, admission checks ------------------------------------------- */

static void podset_names(const struct ts_workload *w, struct ts_buf *out)
{
    ts_buf_adds(out, "supported values: ");
    for (size_t i = 0; i < w->spec.n_podsets; i++)
        ts_buf_addf(out, "%s\"%s\"", i ? ", " : "", w->spec.podsets[i].name);
}

static void check_reclaimable(const struct ts_workload *w, struct ts_field_errors *errs)
{
    struct ts_buf names = TS_BUF_INIT;
    struct ts_path p;
    char detail[64];

    podset_names(w, &names);
    ts_path_init(&p, "status.reclaimablePods");
    too_many(errs, ts_path_str(&p), w->status.n_reclaimable_pods, TS_WL_MAX_PODSETS);
    for (size_t i = 0; i < w->status.n_reclaimable_pods; i++) {
        const struct ts_reclaimable_pod *r = &w->status.reclaimable_pods[i];
        const struct ts_podset *ps = ts_workload_find_podset(w, r->name);
        size_t mark = ts_path_push_mapkey(&p, r->name ? r->name : "");

        if (!ps) {
            ts_path_push(&p, "name");
            ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, ts_path_str(&p),
                                r->name ? r->name : "", 1, "%s", names.ptr);
        } else if (r->count > ps->count) {
            ts_path_push(&p, "count");
            snprintf(detail, sizeof(detail), "should be less or equal to %d", (int)ps->count);
            ts__workload_errf_int(errs, TS_FIELD_INVALID, ts_path_str(&p), r->count, detail);
        }
        ts_path_pop(&p, mark);
    }
    ts_buf_release(&names);
}

static void check_update(const struct ts_workload *w, const struct ts_podset_update *u,
                         struct ts_path *p, struct ts_field_errors *errs)
{
    size_t mark = p->len;
    struct ts_buf names = TS_BUF_INIT;

    if (!ts_workload_find_podset(w, u->name)) {
        podset_names(w, &names);
        ts_path_push(p, "name");
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, ts_path_str(p), u->name ? u->name : "", 1,
                            "%s", names.ptr);
        ts_path_pop(p, mark);
    }
    ts_path_push(p, "tolerations");
    ts__workload_validate_tolerations(u->tolerations, u->n_tolerations, ts_path_str(p), errs);
    ts_path_pop(p, mark);
    ts_path_push(p, "annotations");
    ts__workload_validate_annotations(&u->annotations, ts_path_str(p), errs);
    ts_path_pop(p, mark);
    ts_path_push(p, "nodeSelector");
    ts__workload_validate_labels(&u->node_selector, ts_path_str(p), errs);
    ts_path_pop(p, mark);
    ts_path_push(p, "labels");
    ts__workload_validate_labels(&u->labels, ts_path_str(p), errs);
    ts_path_pop(p, mark);
    ts_buf_release(&names);
}

static void check_admission_checks(const struct ts_workload *w, struct ts_field_errors *errs)
{
    struct ts_path p;

    ts_path_init(&p, "status.admissionChecks");
    too_many(errs, ts_path_str(&p), w->status.n_admission_checks, 8);
    for (size_t i = 0; i < w->status.n_admission_checks; i++) {
        const struct ts_admission_check_state *c = &w->status.admission_checks[i];
        size_t mark = ts_path_push_index(&p, i);

        ts_path_push(&p, "podSetUpdates");
        if (c->n_podset_updates && c->n_podset_updates != w->spec.n_podsets)
            ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(&p), NULL, 0,
                                "must have the same number of podSetUpdates as the podSets");
        for (size_t j = 0; j < c->n_podset_updates; j++) {
            size_t um = ts_path_push_index(&p, j);

            check_update(w, &c->podset_updates[j], &p, errs);
            ts_path_pop(&p, um);
        }
        ts_path_pop(&p, mark);
    }
}

void ts__workload_validate_status(const struct ts_workload *w, struct ts_field_errors *errs)
{
    const struct ts_workload_status *s = &w->status;
    struct ts_path p;

    ts_path_init(&p, "status.conditions");
    for (size_t i = 0; i < s->conditions.n; i++)
        check_condition(&s->conditions, i, &p, errs);
    check_reclaimable(w, errs);
    check_admission_checks(w, errs);
    if (s->admission)
        too_many(errs, "status.admission.podSetAssignments", s->admission->n_podset_assignments,
                 TS_WL_MAX_PODSETS);
    too_many(errs, "status.resourceRequests", s->n_resource_requests, TS_WL_MAX_PODSETS);
    too_many(errs, "status.nominatedClusterNames", s->nominated_cluster_names.n, 20);
    if (s->cluster_name && s->nominated_cluster_names.n)
        ts_field_errors_add(errs, TS_FIELD_INVALID, "status", NULL, 0,
                            "clusterName and nominatedClusterNames are mutually exclusive");
}
