#include "api/enc.h"

cJSON *ts_enc_object(cJSON *obj, const char *key)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (c && cJSON_IsObject(c))
        return c;
    if (c)
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    return cJSON_AddObjectToObject(obj, key);
}

cJSON *ts_enc_array(cJSON *obj, const char *key)
{
    return cJSON_AddArrayToObject(obj, key);
}

void ts_enc_string(cJSON *obj, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(obj, key, v);
}

void ts_enc_bool(cJSON *obj, const char *key, int v)
{
    cJSON_AddBoolToObject(obj, key, v ? 1 : 0);
}

void ts_enc_opt_bool(cJSON *obj, const char *key, const struct ts_opt_bool *v)
{
    if (v->set)
        ts_enc_bool(obj, key, v->v);
}

void ts_enc_int(cJSON *obj, const char *key, int64_t v)
{
    cJSON_AddNumberToObject(obj, key, (double)v);
}

void ts_enc_opt_i32(cJSON *obj, const char *key, const struct ts_opt_i32 *v)
{
    if (v->set)
        ts_enc_int(obj, key, v->v);
}

void ts_enc_opt_i64(cJSON *obj, const char *key, const struct ts_opt_i64 *v)
{
    if (v->set)
        ts_enc_int(obj, key, v->v);
}

void ts_enc_quantity(cJSON *obj, const char *key, const struct ts_quantity *q)
{
    char buf[TS_QUANTITY_STR_MAX];

    cJSON_AddStringToObject(obj, key, ts_quantity_format(q, buf, sizeof(buf)));
}

void ts_enc_opt_quantity(cJSON *obj, const char *key, const struct ts_opt_quantity *q)
{
    if (q->set)
        ts_enc_quantity(obj, key, &q->q);
}

void ts_enc_time(cJSON *obj, const char *key, ts_time t)
{
    char buf[TS_TIME_STR_MAX];

    if (t)
        cJSON_AddStringToObject(obj, key, ts_time_format(t, buf, sizeof(buf)));
}

void ts_enc_strmap(cJSON *obj, const char *key, const struct ts_strmap *m)
{
    cJSON *o;

    if (!m->n)
        return;
    o = cJSON_AddObjectToObject(obj, key);
    for (size_t i = 0; i < m->n; i++)
        cJSON_AddStringToObject(o, m->items[i].key, m->items[i].value);
}

void ts_enc_strlist(cJSON *obj, const char *key, const struct ts_strlist *l)
{
    cJSON *a;

    if (!l->n)
        return;
    a = cJSON_AddArrayToObject(obj, key);
    for (size_t i = 0; i < l->n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(l->items[i]));
}

void ts_enc_resource_list(cJSON *obj, const char *key, const struct ts_resource_list *l)
{
    cJSON *o;

    if (!l->n)
        return;
    o = cJSON_AddObjectToObject(obj, key);
    for (size_t i = 0; i < l->n; i++)
        ts_enc_quantity(o, l->items[i].name, &l->items[i].q);
}
