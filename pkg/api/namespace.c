#include "api/namespace.h"

#include "api/resourcegroup.h"

void ts_namespace_init(struct ts_namespace *ns)
{
    ts_object_meta_init(&ns->meta);
}

void ts_namespace_release(struct ts_namespace *ns)
{
    ts_object_meta_release(&ns->meta);
}

void ts_namespace_decode(struct ts_dec *d, const cJSON *obj, struct ts_namespace *ns)
{
    ts__queue_dec_check_type(d, obj, "v1", TS_NAMESPACE_KIND);
    ts_object_meta_decode(d, obj, &ns->meta);
}

cJSON *ts_namespace_encode(const struct ts_namespace *ns)
{
    cJSON *o = ts__queue_new_object("v1", TS_NAMESPACE_KIND);

    ts_object_meta_encode(&ns->meta, o);
    return o;
}

void ts_namespace_default(struct ts_namespace *ns)
{
    if (ns->meta.name && ns->meta.name[0])
        ts_strmap_set(&ns->meta.labels, TS_NAMESPACE_NAME_LABEL, ns->meta.name);
}

void ts_namespace_validate(const struct ts_namespace *ns, struct ts_field_errors *errs)
{
    ts__queue_check_name(&ns->meta, 1, errs);
}
