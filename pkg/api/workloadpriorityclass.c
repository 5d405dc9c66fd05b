#include "api/workloadpriorityclass.h"

#include "api/convert.h"
#include "api/enc.h"
#include "api/resourcegroup.h"

#include <stdlib.h>
#include <string.h>

void ts_workload_priority_class_init(struct ts_workload_priority_class *w)
{
    memset(w, 0, sizeof(*w));
    ts_object_meta_init(&w->meta);
}

void ts_workload_priority_class_release(struct ts_workload_priority_class *w)
{
    ts_object_meta_release(&w->meta);
    free(w->description);
    ts_workload_priority_class_init(w);
}

void ts_workload_priority_class_decode(struct ts_dec *d, const cJSON *obj,
                                       struct ts_workload_priority_class *w)
{
    ts__queue_dec_check_type(d, obj, TS_KUEUE_V1BETA2, TS_WORKLOAD_PRIORITY_CLASS_KIND);
    ts_object_meta_decode(d, obj, &w->meta);
    if (ts_dec_i32(d, obj, "value", &w->value) == 0)
        ts_dec_error(d, TS_FIELD_REQUIRED, "value", NULL, "%s", "");
    ts_dec_string(d, obj, "description", &w->description);
}

cJSON *ts_workload_priority_class_encode(const struct ts_workload_priority_class *w)
{
    cJSON *o = ts__queue_new_object(TS_KUEUE_V1BETA2, TS_WORKLOAD_PRIORITY_CLASS_KIND);

    ts_object_meta_encode(&w->meta, o);
    ts_enc_int(o, "value", w->value);
    ts_enc_string(o, "description", w->description);
    return o;
}

void ts_workload_priority_class_validate(const struct ts_workload_priority_class *w,
                                         struct ts_field_errors *errs)
{
    ts__queue_check_name(&w->meta, 0, errs);
    /* the CRD's maxLength, counted in bytes as kube-apiserver does */
    if (w->description && strlen(w->description) > TS_WPC_DESCRIPTION_MAX)
        ts_field_errors_add(errs, TS_FIELD_TOO_LONG, "description", NULL, 0,
                            "may not be more than %d bytes", TS_WPC_DESCRIPTION_MAX);
}

void ts_workload_priority_class_validate_update(const struct ts_workload_priority_class *old_w,
                                                const struct ts_workload_priority_class *new_w,
                                                struct ts_field_errors *errs)
{
    (void)old_w;
    ts_workload_priority_class_validate(new_w, errs);
}
