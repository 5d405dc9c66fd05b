/*
 * store.c - objects by resource and "namespace/name", the one global
 * resourceVersion counter, and the bounded event history that watches
 * replay from.  Called with the server mutex held.
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

struct ts__as_obj *ts__as_obj_new(cJSON *json)
{
    struct ts__as_obj *o = ts_xcalloc(1, sizeof(*o));

    o->refs = 1;
    o->json = json;
    return o;
}

void ts__as_obj_ref(struct ts__as_obj *o)
{
    o->refs++;
}

void ts__as_obj_unref(struct ts__as_obj *o)
{
    if (!o || --o->refs > 0)
        return;
    cJSON_Delete(o->json);
    free(o->text);
    free(o);
}

const char *ts__as_obj_text(struct ts__as_obj *o, size_t *len)
{
    if (!o->text) {
        struct ts_buf b = TS_BUF_INIT;

        ts_json_print(o->json, TS_JSON_COMPACT, &b, NULL);
        o->len = b.len;
        o->text = ts_buf_take(&b);
    }
    if (len)
        *len = o->len;
    return o->text;
}

void ts__as_key(const char *ns, const char *name, struct ts_buf *out)
{
    ts_buf_reset(out);
    ts_buf_addf(out, "%s/%s", ns ? ns : "", name);
}

struct ts__as_obj *ts__as_store_get(struct ts__as_res *res, const char *ns, const char *name)
{
    struct ts_buf k = TS_BUF_INIT;
    struct ts__as_obj *o;

    ts__as_key(res->namespaced ? ns : "", name, &k);
    o = ts_hmap_get(&res->objs, k.ptr);
    ts_buf_release(&k);
    return o;
}

static void ring_push(struct ts_apiserver *s, int type, struct ts__as_res *res,
                      struct ts__as_obj *obj, struct ts__as_obj *old)
{
    struct ts__as_event *e;

    if (s->ring_n == s->ring_cap) {
        e = &s->ring[s->ring_head];
        s->ring_floor = e->rv;
        ts__as_obj_unref(e->obj);
        ts__as_obj_unref(e->old);
        s->ring_head = (s->ring_head + 1) % s->ring_cap;
        s->ring_n--;
    }
    e = &s->ring[(s->ring_head + s->ring_n) % s->ring_cap];
    s->ring_n++;
    e->rv = s->rv;
    e->type = type;
    e->res = res;
    e->obj = obj;
    e->old = old;
    ts__as_obj_ref(obj);
    if (old)
        ts__as_obj_ref(old);
    pthread_cond_broadcast(&s->cond);
}

static void set_rv(cJSON *json, int64_t rv)
{
    char num[32];

    snprintf(num, sizeof(num), "%lld", (long long)rv);
    ts_json_set_string(json, "metadata.resourceVersion", num, NULL);
}

struct ts__as_obj *ts__as_store_put(struct ts_apiserver *s, struct ts__as_res *res, cJSON *json)
{
    struct ts_buf k = TS_BUF_INIT;
    struct ts__as_obj *o, *old;
    const char *ns = ts_json_get_string(json, "metadata.namespace");

    ts__as_key(res->namespaced ? ns : "", ts_json_get_string(json, "metadata.name"), &k);
    s->rv++;
    set_rv(json, s->rv);
    o = ts__as_obj_new(json);
    o->rv = s->rv;
    old = ts_hmap_put(&res->objs, k.ptr, o);
    ts__as_wal_put(s, res, o);
    ring_push(s, old ? TS__AS_MODIFIED : TS__AS_ADDED, res, o, old);
    ts__as_obj_unref(old);
    ts_buf_release(&k);
    return o;
}

void ts__as_store_del(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o)
{
    struct ts_buf k = TS_BUF_INIT;
    cJSON *last = cJSON_Duplicate(o->json, 1);
    struct ts__as_obj *gone;

    ts__as_key(res->namespaced ? ts_json_get_string(o->json, "metadata.namespace") : "",
               ts_json_get_string(o->json, "metadata.name"), &k);
    s->rv++;
    set_rv(last, s->rv);
    gone = ts__as_obj_new(last);
    gone->rv = s->rv;
    o = ts_hmap_del(&res->objs, k.ptr);
    ts__as_wal_del(s, res, last, s->rv);
    ring_push(s, TS__AS_DELETED, res, gone, o);
    ts__as_obj_unref(gone);
    ts__as_obj_unref(o);
    ts_buf_release(&k);
}

struct keyed {
    const char *key;
    struct ts__as_obj *obj;
};

static int cmp_keyed(const void *a, const void *b)
{
    return strcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key);
}

struct ts__as_obj **ts__as_store_list(struct ts__as_res *res, const char *ns, size_t *n)
{
    struct keyed *tmp = ts_xmalloc((res->objs.n + 1) * sizeof(*tmp));
    struct ts__as_obj **arr = ts_xmalloc((res->objs.n + 1) * sizeof(*arr));
    size_t it = 0, len = 0, nslen = ns ? strlen(ns) : 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&res->objs, &it, &k, &v))
        if (!ns || (!strncmp(k, ns, nslen) && k[nslen] == '/'))
            tmp[len].key = k, tmp[len++].obj = v;
    qsort(tmp, len, sizeof(*tmp), cmp_keyed);
    for (size_t i = 0; i < len; i++)
        arr[i] = tmp[i].obj;
    free(tmp);
    *n = len;
    return arr;
}

void ts__as_ring_init(struct ts_apiserver *s, size_t cap)
{
    s->ring_cap = cap ? cap : 1;
    s->ring = ts_xcalloc(s->ring_cap, sizeof(*s->ring));
    s->ring_head = s->ring_n = 0;
    s->ring_floor = 0;
}

void ts__as_ring_release(struct ts_apiserver *s)
{
    for (size_t i = 0; i < s->ring_n; i++) {
        struct ts__as_event *e = ts__as_ring_at(s, i);

        ts__as_obj_unref(e->obj);
        ts__as_obj_unref(e->old);
    }
    free(s->ring);
    s->ring = NULL;
    s->ring_n = 0;
}

struct ts__as_event *ts__as_ring_at(struct ts_apiserver *s, size_t i)
{
    return &s->ring[(s->ring_head + i) % s->ring_cap];
}

size_t ts__as_ring_seek(struct ts_apiserver *s, int64_t after)
{
    size_t lo = 0, hi = s->ring_n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;

        if (ts__as_ring_at(s, mid)->rv <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint64_t next_rand(struct ts_apiserver *s)
{
    /* splitmix64: names and uids need uniqueness, not secrecy */
    uint64_t z = (s->rand += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void ts__as_rand_chars(struct ts_apiserver *s, const char *alphabet, char *out, size_t n)
{
    size_t an = strlen(alphabet);

    for (size_t i = 0; i < n; i++)
        out[i] = alphabet[next_rand(s) % an];
    out[n] = '\0';
}

void ts__as_new_uid(struct ts_apiserver *s, char out[37])
{
    uint64_t a = next_rand(s), b = next_rand(s);

    snprintf(out, 37, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
             (unsigned)(0x8000 | ((b >> 48) & 0x3fff)),
             (unsigned long long)(b & UINT64_C(0xffffffffffff)));
}
