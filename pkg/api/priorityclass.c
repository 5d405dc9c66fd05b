#include "api/priorityclass.h"

#include "api/enc.h"
#include "api/resourcegroup.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYSTEM_PREFIX "system-"

void ts_priority_class_init(struct ts_priority_class *pc)
{
    memset(pc, 0, sizeof(*pc));
    ts_object_meta_init(&pc->meta);
}

const char *ts_priority_class_preemption_policy(const struct ts_priority_class *pc)
{
    return pc->preemption_policy ? pc->preemption_policy : TS_PREEMPT_LOWER_PRIORITY;
}

void ts_priority_class_release(struct ts_priority_class *pc)
{
    ts_object_meta_release(&pc->meta);
    free(pc->description);
    free(pc->preemption_policy);
    ts_priority_class_init(pc);
}

void ts_priority_class_decode(struct ts_dec *d, const cJSON *obj, struct ts_priority_class *pc)
{
    ts__queue_dec_check_type(d, obj, TS_PRIORITY_CLASS_API_VERSION, TS_PRIORITY_CLASS_KIND);
    ts_object_meta_decode(d, obj, &pc->meta);
    if (ts_dec_i32(d, obj, "value", &pc->value) == 0)
        ts_dec_error(d, TS_FIELD_REQUIRED, "value", NULL, "%s", "");
    ts_dec_bool(d, obj, "globalDefault", &pc->global_default);
    ts_dec_string(d, obj, "description", &pc->description);
    if (ts_dec_string(d, obj, "preemptionPolicy", &pc->preemption_policy) == 0)
        pc->preemption_policy = ts_xstrdup(TS_PREEMPT_LOWER_PRIORITY);
}

cJSON *ts_priority_class_encode(const struct ts_priority_class *pc)
{
    cJSON *o = ts__queue_new_object(TS_PRIORITY_CLASS_API_VERSION, TS_PRIORITY_CLASS_KIND);

    ts_object_meta_encode(&pc->meta, o);
    ts_enc_int(o, "value", pc->value);
    if (pc->global_default)
        ts_enc_bool(o, "globalDefault", 1);
    ts_enc_string(o, "description", pc->description);
    ts_enc_string(o, "preemptionPolicy", ts_priority_class_preemption_policy(pc));
    return o;
}

/* schedulingapiv1.IsKnownSystemPriorityClass; NULL when known. */
static const char *system_class_error(const struct ts_priority_class *pc, char *buf, size_t len)
{
    static const struct {
        const char *name;
        int32_t value;
    } known[] = {{"system-node-critical", 2000001000}, {"system-cluster-critical", 2000000000}};

    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(known[i].name, pc->meta.name) != 0)
            continue;
        if (known[i].value != pc->value)
            snprintf(buf, len, "value of %s PriorityClass must be %d", known[i].name,
                     (int)known[i].value);
        else if (pc->global_default)
            snprintf(buf, len, "globalDefault of %s PriorityClass must be false", known[i].name);
        else
            return NULL;
        return buf;
    }
    snprintf(buf, len, "%s is not a known system priority class", pc->meta.name);
    return buf;
}

void ts_priority_class_validate(const struct ts_priority_class *pc, struct ts_field_errors *errs)
{
    const char *pp = ts_priority_class_preemption_policy(pc);
    char buf[160];

    ts__queue_check_name(&pc->meta, 0, errs);
    if (pc->meta.name && strncmp(pc->meta.name, SYSTEM_PREFIX, strlen(SYSTEM_PREFIX)) == 0) {
        const char *e = system_class_error(pc, buf, sizeof(buf));

        if (e)
            ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, "metadata.name", NULL, 0,
                                "priority class names with '" SYSTEM_PREFIX
                                "' prefix are reserved for system use only. error: %s",
                                e);
    } else if (pc->value > TS_PRIORITY_HIGHEST_USER_DEFINABLE) {
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, "value", NULL, 0,
                            "maximum allowed value of a user defined priority is %d",
                            TS_PRIORITY_HIGHEST_USER_DEFINABLE);
    }
    if (strcmp(pp, TS_PREEMPT_LOWER_PRIORITY) != 0 && strcmp(pp, "Never") != 0)
        ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, "preemptionPolicy", pp, 1,
                            "supported values: \"PreemptLowerPriority\", \"Never\"");
}

void ts_priority_class_validate_update(const struct ts_priority_class *old_pc,
                                       const struct ts_priority_class *new_pc,
                                       struct ts_field_errors *errs)
{
    const char *a = ts_priority_class_preemption_policy(old_pc);
    const char *b = ts_priority_class_preemption_policy(new_pc);

    ts_priority_class_validate(new_pc, errs);
    if (old_pc->value != new_pc->value)
        ts_field_errors_add(errs, TS_FIELD_FORBIDDEN, "value", NULL, 0,
                            "may not be changed in an update.");
    if (strcmp(a, b) != 0)
        ts_field_errors_add(errs, TS_FIELD_INVALID, "preemptionPolicy", b, 1, "field is immutable");
}
