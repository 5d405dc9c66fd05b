#include "api/resourceflavor.h"

#include "api/convert.h"
#include "api/enc.h"
#include "api/names.h"
#include "api/resourcegroup.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

void ts_resource_flavor_init(struct ts_resource_flavor *rf)
{
    memset(rf, 0, sizeof(*rf));
    ts_object_meta_init(&rf->meta);
    ts_strmap_init(&rf->spec.node_labels);
}

void ts_resource_flavor_release(struct ts_resource_flavor *rf)
{
    ts_object_meta_release(&rf->meta);
    ts_strmap_release(&rf->spec.node_labels);
    ts_taints_free(rf->spec.node_taints, rf->spec.n_node_taints);
    ts_tolerations_free(rf->spec.tolerations, rf->spec.n_tolerations);
    free(rf->spec.topology_name);
    ts_resource_flavor_init(rf);
}

void ts_resource_flavor_decode(struct ts_dec *d, const cJSON *obj, struct ts_resource_flavor *rf)
{
    const cJSON *spec;
    size_t mark;

    ts__queue_dec_check_type(d, obj, TS_KUEUE_V1BETA2, TS_RESOURCE_FLAVOR_KIND);
    ts_object_meta_decode(d, obj, &rf->meta);
    spec = ts_dec_object(d, obj, "spec");
    if (!spec)
        return;
    mark = ts_path_push(&d->path, "spec");
    ts_dec_strmap(d, spec, "nodeLabels", &rf->spec.node_labels);
    ts_taints_decode(d, spec, "nodeTaints", &rf->spec.node_taints, &rf->spec.n_node_taints);
    ts_tolerations_decode(d, spec, "tolerations", &rf->spec.tolerations, &rf->spec.n_tolerations);
    ts_dec_string(d, spec, "topologyName", &rf->spec.topology_name);
    ts_path_pop(&d->path, mark);
}

cJSON *ts_resource_flavor_encode(const struct ts_resource_flavor *rf)
{
    const struct ts_resource_flavor_spec *s = &rf->spec;
    cJSON *o = ts__queue_new_object(TS_KUEUE_V1BETA2, TS_RESOURCE_FLAVOR_KIND);
    cJSON *spec;

    ts_object_meta_encode(&rf->meta, o);
    if (!s->node_labels.n && !s->n_node_taints && !s->n_tolerations && !s->topology_name)
        return o;
    spec = ts_enc_object(o, "spec");
    ts_enc_strmap(spec, "nodeLabels", &s->node_labels);
    ts_taints_encode(s->node_taints, s->n_node_taints, spec, "nodeTaints");
    ts_tolerations_encode(s->tolerations, s->n_tolerations, spec, "tolerations");
    ts_enc_string(spec, "topologyName", s->topology_name);
    return o;
}

/* --- CRD schema and CEL ---------------------------------------------------- */

static int effect_ok(const char *e)
{
    return e && (strcmp(e, "NoSchedule") == 0 || strcmp(e, "PreferNoSchedule") == 0 ||
                 strcmp(e, "NoExecute") == 0);
}

#define EFFECT_CEL_MSG                                                                             \
    "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"

static void taints_schema(const struct ts_resource_flavor_spec *s, struct ts_field_errors *errs)
{
    struct ts_path p;
    int bad_effect = 0;

    ts_path_init(&p, "spec.nodeTaints");
    ts__queue_check_items(s->n_node_taints, 0, TS_RF_MAX_ITEMS, "spec.nodeTaints", errs);
    for (size_t i = 0; i < s->n_node_taints; i++) {
        size_t m = ts_path_push_index(&p, i);
        size_t m2 = ts_path_push(&p, "key");

        if (!s->node_taints[i].key)
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(&p), NULL, 0, NULL);
        ts_path_pop(&p, m2);
        ts_path_push(&p, "effect");
        if (!s->node_taints[i].effect)
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, ts_path_str(&p), NULL, 0, NULL);
        bad_effect |= !effect_ok(s->node_taints[i].effect);
        ts_path_pop(&p, m);
    }
    if (bad_effect)
        ts__queue_cel(errs, "spec.nodeTaints", "array", EFFECT_CEL_MSG);
}

static int op_is(const struct ts_toleration *t, const char *op)
{
    return t->op && strcmp(t->op, op) == 0;
}

static void tolerations_schema(const struct ts_resource_flavor_spec *s,
                               struct ts_field_errors *errs)
{
    int rule[5] = {0};
    static const char *const msgs[5] = {
        "operator must be Exists when 'key' is empty, which means 'match all values and all keys'",
        "effect must be 'NoExecute' when 'tolerationSeconds' is set",
        "supported toleration values: 'Equal'(default), 'Exists'",
        "a value must be empty when 'operator' is 'Exists'",
        EFFECT_CEL_MSG,
    };

    ts__queue_check_items(s->n_tolerations, 0, TS_RF_MAX_ITEMS, "spec.tolerations", errs);
    for (size_t i = 0; i < s->n_tolerations; i++) {
        const struct ts_toleration *t = &s->tolerations[i];

        rule[0] |= !t->key && !op_is(t, "Exists");
        rule[1] |= t->toleration_seconds.set && !(t->effect && strcmp(t->effect, "NoExecute") == 0);
        rule[2] |= t->op && !op_is(t, "Equal") && !op_is(t, "Exists");
        rule[3] |= op_is(t, "Exists") && t->value;
        rule[4] |= t->effect && !effect_ok(t->effect);
    }
    for (int r = 0; r < 5; r++) {
        if (rule[r])
            ts__queue_cel(errs, "spec.tolerations", "array", msgs[r]);
    }
}

static void rf_schema(const struct ts_resource_flavor *rf, struct ts_field_errors *errs)
{
    const struct ts_resource_flavor_spec *s = &rf->spec;

    ts__queue_check_name(&rf->meta, 0, errs);
    ts__queue_check_items(s->node_labels.n, 0, TS_RF_MAX_ITEMS, "spec.nodeLabels", errs);
    taints_schema(s, errs);
    tolerations_schema(s, errs);
    if (s->topology_name)
        ts__queue_check_ref(s->topology_name, "spec.topologyName", errs);
    if (s->topology_name && s->node_labels.n < 1)
        ts__queue_cel(errs, "spec", "object",
                      "at least one nodeLabel is required when topology is set");
}

/* --- webhook ------------------------------------------------------------------ */

static void taint_effect_check(const char *effect, int allow_empty, const char *path,
                               struct ts_field_errors *errs)
{
    if (!effect || !effect[0]) {
        if (!allow_empty)
            ts_field_errors_add(errs, TS_FIELD_REQUIRED, path, NULL, 0, NULL);
        return;
    }
    if (!effect_ok(effect))
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, path, effect, 1,
                            "supported values: \"NoSchedule\", \"PreferNoSchedule\", "
                            "\"NoExecute\"");
}

static int same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static void taint_unique(const struct ts_taint *t, size_t i, const char *path,
                         struct ts_field_errors *errs)
{
    struct ts_buf v = TS_BUF_INIT;

    for (size_t j = 0; j < i; j++) {
        if (same_str(t[j].key, t[i].key) && same_str(t[j].effect, t[i].effect)) {
            /* the taint as Go marshals it: an empty value is left out */
            ts_buf_addf(&v, "{\"key\":\"%s\"", t[i].key ? t[i].key : "");
            if (t[i].value && t[i].value[0])
                ts_buf_addf(&v, ",\"value\":\"%s\"", t[i].value);
            ts_buf_addf(&v, ",\"effect\":\"%s\"}", t[i].effect ? t[i].effect : "");
            ts_field_errors_add(errs, TS_FIELD_DUPLICATE, path, v.ptr, 0,
                                "taints must be unique by key and effect pair");
            break;
        }
    }
    ts_buf_release(&v);
}

static void taints_webhook(const struct ts_resource_flavor_spec *s, struct ts_field_errors *errs)
{
    struct ts_path p;

    ts_path_init(&p, "spec.nodeTaints");
    for (size_t i = 0; i < s->n_node_taints; i++) {
        const struct ts_taint *t = &s->node_taints[i];
        size_t m = ts_path_push_index(&p, i);
        size_t m2 = ts_path_push(&p, "key");

        ts_names_qualified(t->key ? t->key : "", ts_path_str(&p), errs);
        ts_path_pop(&p, m2);
        ts_path_push(&p, "value");
        ts_names_label_value(t->value ? t->value : "", ts_path_str(&p), errs);
        ts_path_pop(&p, m2);
        ts_path_push(&p, "effect");
        taint_effect_check(t->effect, 0, ts_path_str(&p), errs);
        ts_path_pop(&p, m2);
        taint_unique(s->node_taints, i, ts_path_str(&p), errs);
        ts_path_pop(&p, m);
    }
}

/* core/v1 validateTolerations as Kueue copies it (index path in p). */
static void toleration_webhook(const struct ts_toleration *t, struct ts_path *p,
                               struct ts_field_errors *errs)
{
    size_t m = ts_path_push(p, "key");
    int has_key = t->key && t->key[0];

    if (has_key)
        ts_names_qualified(t->key, ts_path_str(p), errs);
    ts_path_pop(p, m);
    ts_path_push(p, "operator");
    if (!has_key && !op_is(t, "Exists"))
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), t->op ? t->op : "", 1,
                            "operator must be Exists when `key` is empty, which means \"match "
                            "all values and all keys\"");
    if (!t->op || !t->op[0] || op_is(t, "Equal"))
        ts_names_label_value(t->value ? t->value : "", ts_path_str(p), errs);
    else if (op_is(t, "Exists") && t->value && t->value[0])
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), t->value, 1,
                            "value must be empty when `operator` is 'Exists'");
    else if (!op_is(t, "Exists"))
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, ts_path_str(p), t->op, 1,
                            "supported values: \"Equal\", \"Exists\"");
    ts_path_pop(p, m);
    ts_path_push(p, "effect");
    if (t->toleration_seconds.set && !same_str(t->effect, "NoExecute"))
        ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(p), t->effect ? t->effect : "", 1,
                            "effect must be 'NoExecute' when `tolerationSeconds` is set");
    taint_effect_check(t->effect, 1, ts_path_str(p), errs);
    ts_path_pop(p, m);
}

static void rf_webhook(const struct ts_resource_flavor *rf, struct ts_field_errors *errs)
{
    const struct ts_resource_flavor_spec *s = &rf->spec;
    struct ts_path p;

    for (size_t i = 0; i < s->node_labels.n; i++) {
        ts_names_qualified(s->node_labels.items[i].key, "spec.nodeLabels", errs);
        ts_names_label_value(s->node_labels.items[i].value, "spec.nodeLabels", errs);
    }
    taints_webhook(s, errs);
    ts_path_init(&p, "spec.tolerations");
    for (size_t i = 0; i < s->n_tolerations; i++) {
        size_t m = ts_path_push_index(&p, i);

        toleration_webhook(&s->tolerations[i], &p, errs);
        ts_path_pop(&p, m);
    }
}

/* --- entry points -------------------------------------------------------------- */

static void validate(const struct ts_resource_flavor *old_rf, const struct ts_resource_flavor *rf,
                     struct ts_field_errors *errs)
{
    struct ts_field_errors schema = TS_FIELD_ERRORS_INIT;
    const char *was = old_rf ? old_rf->spec.topology_name : NULL;

    rf_schema(rf, &schema);
    if (was && !same_str(was, rf->spec.topology_name))
        ts__queue_cel(&schema, "spec.topologyName", "string", "field is immutable");
    if (schema.n)
        ts_field_errors_extend(errs, &schema);
    else
        rf_webhook(rf, errs);
    ts_field_errors_release(&schema);
}

void ts_resource_flavor_validate(const struct ts_resource_flavor *rf, struct ts_field_errors *errs)
{
    validate(NULL, rf, errs);
}

void ts_resource_flavor_validate_update(const struct ts_resource_flavor *old_rf,
                                        const struct ts_resource_flavor *new_rf,
                                        struct ts_field_errors *errs)
{
    validate(old_rf, new_rf, errs);
}
