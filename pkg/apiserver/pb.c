/*
 * pb.c - protobuf wire format reader and the three core kinds (pb.h).
 */
#include "apiserver/pb.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "apiserver/b64.h"
#include "util/alloc.h"

struct rd {
    const unsigned char *p, *end;
};

struct field {
    uint32_t num;
    int wire;
    uint64_t v;                /* varint / fixed values */
    const unsigned char *data; /* length-delimited payload */
    size_t len;
};

static int varint(struct rd *r, uint64_t *out)
{
    uint64_t v = 0;

    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return -1;
        v |= (uint64_t)(*r->p & 0x7f) << shift;
        if (!(*r->p++ & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* Next field; 1 at the end, 0 ok, -1 malformed. */
static int next(struct rd *r, struct field *f)
{
    uint64_t key;

    if (r->p == r->end)
        return 1;
    if (varint(r, &key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff)
        return -1;
    f->num = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    switch (f->wire) {
    case 0:
        return varint(r, &f->v);
    case 1:
    case 5: {
        size_t n = f->wire == 1 ? 8 : 4;
        if ((size_t)(r->end - r->p) < n)
            return -1;
        f->v = 0;
        for (size_t i = n; i-- > 0;)
            f->v = f->v << 8 | r->p[i];
        r->p += n;
        return 0;
    }
    case 2:
        if (varint(r, &f->v) || f->v > (uint64_t)(r->end - r->p))
            return -1;
        f->data = r->p;
        f->len = (size_t)f->v;
        r->p += f->len;
        return 0;
    default:
        return -1;
    }
}

static struct rd sub(const struct field *f)
{
    struct rd r = {f->data, f->data + f->len};
    return r;
}

static char *str(const struct field *f)
{
    return ts_xstrndup((const char *)f->data, f->len);
}

static int add_str(cJSON *obj, const char *key, const struct field *f)
{
    char *s;

    if (f->wire != 2)
        return -1;
    s = str(f);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddStringToObject(obj, key, s);
    free(s);
    return 0;
}

/* map<string, string|bytes> entry {1: key, 2: value} into obj. */
static int map_entry(cJSON *obj, const struct field *f, int bytes)
{
    struct rd r = sub(f);
    struct field e;
    char *k = NULL;
    struct ts_buf v = TS_BUF_INIT;
    int rc = 1, ok = f->wire == 2;

    while (ok && (rc = next(&r, &e)) == 0) {
        if (e.wire != 2)
            continue;
        if (e.num == 1) {
            free(k);
            k = str(&e);
        } else if (e.num == 2) {
            ts_buf_reset(&v);
            if (bytes)
                ts_b64_encode(e.data, e.len, &v);
            else
                ts_buf_add(&v, e.data, e.len);
        }
    }
    ok = ok && rc == 1;
    if (ok) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, k ? k : "");
        cJSON_AddStringToObject(obj, k ? k : "", v.ptr);
    }
    free(k);
    ts_buf_release(&v);
    return ok ? 0 : -1;
}

static cJSON *member_obj(cJSON *parent, const char *key)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);

    return o ? o : cJSON_AddObjectToObject(parent, key);
}

static cJSON *member_arr(cJSON *parent, const char *key)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);

    return o ? o : cJSON_AddArrayToObject(parent, key);
}

static int meta(cJSON *obj, const struct field *mf)
{
    cJSON *md = member_obj(obj, "metadata");
    struct rd r = sub(mf);
    struct field f;
    int rc;

    while ((rc = next(&r, &f)) == 0) {
        int bad = 0;

        if (f.wire == 2 && f.len == 0 && f.num <= 3) /* Go writes empty strings too */
            continue;
        if (f.num == 1)
            bad = add_str(md, "name", &f);
        else if (f.num == 2)
            bad = add_str(md, "generateName", &f);
        else if (f.num == 3)
            bad = add_str(md, "namespace", &f);
        else if (f.num == 11)
            bad = map_entry(member_obj(md, "labels"), &f, 0);
        else if (f.num == 12)
            bad = map_entry(member_obj(md, "annotations"), &f, 0);
        else if (f.num == 14 && f.wire == 2) {
            char *s = str(&f);
            cJSON_AddItemToArray(member_arr(md, "finalizers"), cJSON_CreateString(s));
            free(s);
        }
        if (bad)
            return -1;
    }
    return rc == 1 ? 0 : -1;
}

static int kind_field(cJSON *obj, const char *kind, const struct field *f)
{
    if (f->num == 1)
        return f->wire == 2 ? meta(obj, f) : -1;
    if (!strcmp(kind, "ConfigMap")) {
        if (f->num == 2)
            return map_entry(member_obj(obj, "data"), f, 0);
        if (f->num == 3)
            return map_entry(member_obj(obj, "binaryData"), f, 1);
        if (f->num == 4 && f->wire == 0)
            cJSON_AddBoolToObject(obj, "immutable", f->v != 0);
    } else if (!strcmp(kind, "Secret")) {
        if (f->num == 2)
            return map_entry(member_obj(obj, "data"), f, 1);
        if (f->num == 3)
            return add_str(obj, "type", f);
        if (f->num == 4)
            return map_entry(member_obj(obj, "stringData"), f, 0);
        if (f->num == 5 && f->wire == 0)
            cJSON_AddBoolToObject(obj, "immutable", f->v != 0);
    } else if (f->num == 2 && f->wire == 2) { /* Namespace spec */
        struct rd r = sub(f);
        struct field g;
        int rc;

        cJSON *spec = member_obj(obj, "spec");
        while ((rc = next(&r, &g)) == 0) {
            if (g.num == 1 && g.wire == 2) {
                char *s = str(&g);
                cJSON_AddItemToArray(member_arr(spec, "finalizers"), cJSON_CreateString(s));
                free(s);
            }
        }
        return rc == 1 ? 0 : -1;
    }
    return 0;
}

/* runtime.Unknown: typeMeta {apiVersion, kind} and raw. */
static int envelope(struct rd *r, char *av, size_t avlen, char *kind, size_t klen,
                    struct field *raw)
{
    struct field f, t;
    int rc, have_raw = 0;

    av[0] = kind[0] = '\0';
    while ((rc = next(r, &f)) == 0) {
        if (f.num == 1 && f.wire == 2) {
            struct rd tr = sub(&f);
            int trc;
            while ((trc = next(&tr, &t)) == 0) {
                if (t.wire == 2 && t.num == 1)
                    snprintf(av, avlen, "%.*s", (int)t.len, (const char *)t.data);
                else if (t.wire == 2 && t.num == 2)
                    snprintf(kind, klen, "%.*s", (int)t.len, (const char *)t.data);
            }
            if (trc != 1)
                return -1;
        } else if (f.num == 2 && f.wire == 2) {
            *raw = f;
            have_raw = 1;
        }
    }
    return rc == 1 && have_raw ? 0 : -1;
}

int ts_pb_decode(const void *body, size_t len, const char *want_group, const char *want_kind,
                 cJSON **out, struct ts_err *err)
{
    struct rd r = {body, (const unsigned char *)body + len}, or ;
    struct field raw = {0}, f;
    char av[128], kind[128];
    cJSON *obj;
    int rc;

    *out = NULL;
    if (len < 4 || memcmp(body, "k8s\0", 4))
        return ts_err_set(err, TS_EPARSE, "protobuf body without the k8s envelope");
    r.p += 4;
    if (envelope(&r, av, sizeof(av), kind, sizeof(kind), &raw))
        return ts_err_set(err, TS_EPARSE, "malformed protobuf envelope");
    if (want_kind && strcmp(kind, want_kind)) {
        const char *slash = strchr(av, '/');

        return ts_err_set(err, TS_EINVAL,
                          "%s in version \"%s\" cannot be handled as a %s: converting (%s.%s) to "
                          "(%s.%s): unknown conversion",
                          kind, slash ? slash + 1 : av, want_kind, slash ? slash + 1 : av, kind,
                          *want_group ? want_group : "core", want_kind);
    }
    if (strcmp(av, "v1") ||
        (strcmp(kind, "Namespace") && strcmp(kind, "ConfigMap") && strcmp(kind, "Secret")))
        return ts_err_set(err, TS_EUNSUPPORTED, "protobuf bodies of %s %s are not supported", av,
                          kind);
    obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "apiVersion", av);
    cJSON_AddStringToObject(obj, "kind", kind);
    or = sub(&raw);
    while ((rc = next(& or, &f)) == 0)
        if (kind_field(obj, kind, &f))
            break;
    if (rc != 1) {
        cJSON_Delete(obj);
        return ts_err_set(err, TS_EPARSE, "malformed protobuf %s", kind);
    }
    *out = obj;
    return 0;
}
