/*
 * schema_validate.c - OpenAPI v3 validation of custom resources with
 * kube-apiserver's messages ("spec.x in body should be greater than or
 * equal to 1").
 */
#include "api/schema.h"

#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/hmap.h"

/* Compiled "pattern"s, by pattern text: a regex_t, or `unusable` for a
 * pattern POSIX cannot compile (not checked). */
struct ts_schema_patterns {
    struct ts_hmap rx;
};

static regex_t unusable;

struct vctx {
    const struct ts_schema_patterns *pats; /* NULL: compile on each use */
    struct ts_field_errors *errs;
};

static const cJSON *get(const cJSON *schema, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(schema, key);
}

static const char *type_of(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "object";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsRaw(v) || (cJSON_IsNumber(v) && floor(v->valuedouble) == v->valuedouble))
        return "integer";
    return "number";
}

static int type_ok(const cJSON *schema, const cJSON *v)
{
    const char *want = cJSON_GetStringValue(get(schema, "type")), *have = type_of(v);

    if (cJSON_IsTrue(get(schema, "x-kubernetes-int-or-string")))
        return !strcmp(have, "integer") || !strcmp(have, "string");
    if (!want)
        return 1;
    if (!strcmp(want, "number"))
        return !strcmp(have, "number") || !strcmp(have, "integer");
    return !strcmp(want, have);
}

static void render(const cJSON *v, struct ts_buf *out)
{
    ts_buf_reset(out);
    ts_json_print(v, TS_JSON_COMPACT, out, NULL);
}

static void check_enum(const cJSON *schema, const cJSON *v, const char *path,
                       struct ts_field_errors *errs)
{
    const cJSON *e = get(schema, "enum"), *c;
    struct ts_buf val = TS_BUF_INIT, list = TS_BUF_INIT, one = TS_BUF_INIT;

    if (!cJSON_IsArray(e))
        return;
    cJSON_ArrayForEach(c, e) if (ts_json_equal(c, v)) return;
    cJSON_ArrayForEach(c, e)
    {
        render(c, &one);
        ts_buf_addf(&list, "%s%s", list.len ? ", " : "", one.ptr);
    }
    render(v, &val);
    ts_field_errors_add(errs, TS_FIELD_NOT_SUPPORTED, path, val.ptr, 0, "supported values: %s",
                        list.ptr);
    ts_buf_release(&val);
    ts_buf_release(&list);
    ts_buf_release(&one);
}

/* Whether the number v fits an integer of `format` (int32, int64 or none:
 * int64), as kube-openapi's IsValueValidAgainstRange asks. */
static int integer_fits(const cJSON *v, const char *format)
{
    double d = v->valuedouble;

    if (floor(d) != d)
        return 0;
    if (format && !strcmp(format, "int32"))
        return d >= INT32_MIN && d <= INT32_MAX;
    return d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

/* kube-openapi's range check of an integer field's value against its
 * format: "<nil>: Invalid value: "": Checked value must be of type integer
 * with format int32 in <path>" ("(default format)" without one). */
static void check_integer_range(const cJSON *schema, const cJSON *v, const char *path,
                                struct ts_field_errors *errs)
{
    const char *type = cJSON_GetStringValue(get(schema, "type"));
    const char *format = cJSON_GetStringValue(get(schema, "format"));

    if (!type || strcmp(type, "integer") || !cJSON_IsNumber(v) || integer_fits(v, format))
        return;
    if (format && *format)
        ts_field_errors_add(errs, TS_FIELD_INVALID, "<nil>", "", 1,
                            "Checked value must be of type integer with format %s in %s", format,
                            path);
    else
        ts_field_errors_add(errs, TS_FIELD_INVALID, "<nil>", "", 1,
                            "Checked value must be of type integer (default format) in %s", path);
}

static void check_number(const cJSON *schema, const cJSON *v, const char *path,
                         struct ts_field_errors *errs)
{
    const cJSON *mn = get(schema, "minimum"), *mx = get(schema, "maximum");
    int exmin = cJSON_IsTrue(get(schema, "exclusiveMinimum"));
    int exmax = cJSON_IsTrue(get(schema, "exclusiveMaximum"));
    struct ts_buf val = TS_BUF_INIT, lim = TS_BUF_INIT;
    double d = v->valuedouble;

    check_integer_range(schema, v, path, errs);
    render(v, &val);
    if (cJSON_IsNumber(mn) && (exmin ? d <= mn->valuedouble : d < mn->valuedouble)) {
        render(mn, &lim);
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, val.ptr, 0,
                            "%s in body should be greater than %s%s", path,
                            exmin ? "" : "or equal to ", lim.ptr);
    }
    if (cJSON_IsNumber(mx) && (exmax ? d >= mx->valuedouble : d > mx->valuedouble)) {
        render(mx, &lim);
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, val.ptr, 0,
                            "%s in body should be less than %s%s", path,
                            exmax ? "" : "or equal to ", lim.ptr);
    }
    ts_buf_release(&val);
    ts_buf_release(&lim);
}

/* RE2 -> POSIX ERE for the classes POSIX lacks.  A case-insensitive flag
 * group "(?i)" at the start (after an optional "^") is dropped and
 * reported as REG_ICASE; returns the extra regcomp() flags. */
static int translate(const char *re, struct ts_buf *out)
{
    int flags = 0;

    if (re[0] == '^' && !strncmp(re + 1, "(?i)", 4)) {
        ts_buf_addc(out, '^');
        re += 5;
        flags = REG_ICASE;
    } else if (!strncmp(re, "(?i)", 4)) {
        re += 4;
        flags = REG_ICASE;
    }
    for (; *re; re++) {
        if (re[0] == '\\' && re[1]) {
            switch (re[1]) {
            case 'd':
                ts_buf_adds(out, "[0-9]");
                re++;
                continue;
            case 'w':
                ts_buf_adds(out, "[A-Za-z0-9_]");
                re++;
                continue;
            case 's':
                ts_buf_adds(out, "[[:space:]]");
                re++;
                continue;
            default:
                break;
            }
        }
        ts_buf_addc(out, *re);
    }
    return flags;
}

static void validate(const struct vctx *x, const cJSON *schema, const cJSON *obj, const char *path);

static int compile(const char *pattern, regex_t *rx)
{
    struct ts_buf re = TS_BUF_INIT;
    int rc;
    int flags = translate(pattern, &re);

    rc = regcomp(rx, re.ptr, REG_EXTENDED | REG_NOSUB | flags);
    ts_buf_release(&re);
    return rc;
}

static void check_pattern(const struct vctx *x, const char *pattern, const char *s,
                          const char *path)
{
    const regex_t *known = x->pats ? ts_hmap_get(&x->pats->rx, pattern) : NULL;
    regex_t rx;

    if (known == &unusable)
        return;
    if (!known && compile(pattern, &rx))
        return;
    if (regexec(known ? known : &rx, s, 0, NULL, 0) != 0)
        ts_field_errors_add(x->errs, TS_FIELD_INVALID, path, s, 1, "%s in body should match '%s'",
                            path, pattern);
    if (!known)
        regfree(&rx);
}

static void collect(struct ts_schema_patterns *p, const cJSON *schema)
{
    const cJSON *c;
    const char *pat = cJSON_GetStringValue(get(schema, "pattern"));

    if (pat && !ts_hmap_get(&p->rx, pat)) {
        regex_t *rx = ts_xmalloc(sizeof(*rx));

        if (compile(pat, rx)) {
            free(rx);
            rx = &unusable;
        }
        ts_hmap_put(&p->rx, pat, rx);
    }
    cJSON_ArrayForEach(c, schema)
    {
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            collect(p, c);
    }
}

struct ts_schema_patterns *ts_schema_patterns_new(const cJSON *schema)
{
    struct ts_schema_patterns *p = ts_xcalloc(1, sizeof(*p));

    ts_hmap_init(&p->rx);
    if (schema)
        collect(p, schema);
    return p;
}

void ts_schema_patterns_free(struct ts_schema_patterns *p)
{
    size_t it = 0;
    const char *k;
    void *v;

    if (!p)
        return;
    while (ts_hmap_next(&p->rx, &it, &k, &v)) {
        if (v != &unusable) {
            regfree(v);
            free(v);
        }
    }
    ts_hmap_release(&p->rx);
    free(p);
}

static void check_string(const cJSON *schema, const cJSON *v, const char *path,
                         const struct vctx *x)
{
    const cJSON *mx = get(schema, "maxLength"), *mn = get(schema, "minLength");
    const char *pat = cJSON_GetStringValue(get(schema, "pattern"));
    size_t n = strlen(v->valuestring);

    if (cJSON_IsNumber(mx) && (double)n > mx->valuedouble)
        ts_field_errors_add(x->errs, TS_FIELD_TOO_LONG, path, NULL, 0,
                            "may not be more than %d bytes", (int)mx->valuedouble);
    if (cJSON_IsNumber(mn) && (double)n < mn->valuedouble)
        ts_field_errors_add(x->errs, TS_FIELD_INVALID, path, v->valuestring, 1,
                            "%s in body should be at least %d chars long", path,
                            (int)mn->valuedouble);
    if (pat)
        check_pattern(x, pat, v->valuestring, path);
}

static void check_list_type(const cJSON *schema, const cJSON *v, const char *path,
                            struct ts_field_errors *errs)
{
    const char *lt = cJSON_GetStringValue(get(schema, "x-kubernetes-list-type"));
    const cJSON *keys = get(schema, "x-kubernetes-list-map-keys"), *a, *b, *k;
    struct ts_buf val = TS_BUF_INIT, p = TS_BUF_INIT;
    int i = 0;

    if (!lt || (strcmp(lt, "set") && strcmp(lt, "map")))
        return;
    for (a = v->child; a; a = a->next, i++) {
        for (b = v->child; b != a; b = b->next) {
            int same = 1;

            if (!strcmp(lt, "set"))
                same = ts_json_equal(a, b);
            else
                cJSON_ArrayForEach(k, keys) if (cJSON_IsString(k)) same &=
                    ts_json_equal(cJSON_GetObjectItemCaseSensitive(a, k->valuestring),
                                  cJSON_GetObjectItemCaseSensitive(b, k->valuestring));
            if (same) {
                ts_buf_reset(&p);
                ts_buf_addf(&p, "%s[%d]", path, i);
                if (!strcmp(lt, "set")) {
                    render(a, &val);
                } else { /* a map item is shown by its keys only */
                    cJSON *key = cJSON_CreateObject();

                    cJSON_ArrayForEach(k, keys)
                    {
                        const cJSON *kv = cJSON_IsString(k)
                                              ? cJSON_GetObjectItemCaseSensitive(a, k->valuestring)
                                              : NULL;

                        if (kv)
                            cJSON_AddItemToObject(key, k->valuestring, cJSON_Duplicate(kv, 1));
                    }
                    render(key, &val);
                    cJSON_Delete(key);
                }
                ts_field_errors_add(errs, TS_FIELD_DUPLICATE, p.ptr, val.ptr, 0, NULL);
                break;
            }
        }
    }
    ts_buf_release(&val);
    ts_buf_release(&p);
}

static void check_array(const cJSON *schema, const cJSON *v, const char *path, const struct vctx *x)
{
    const cJSON *mx = get(schema, "maxItems"), *mn = get(schema, "minItems"), *c;
    int n = cJSON_GetArraySize(v), i = 0;
    struct ts_buf p = TS_BUF_INIT;
    char num[32];

    snprintf(num, sizeof(num), "%d", n);
    if (cJSON_IsNumber(mx) && n > mx->valuedouble)
        ts_field_errors_add(x->errs, TS_FIELD_TOO_MANY, path, num, 0, "must have at most %d items",
                            (int)mx->valuedouble);
    if (cJSON_IsNumber(mn) && n < mn->valuedouble)
        ts_field_errors_add(x->errs, TS_FIELD_INVALID, path, num, 0,
                            "%s in body should have at least %d items", path, (int)mn->valuedouble);
    check_list_type(schema, v, path, x->errs);
    cJSON_ArrayForEach(c, v)
    {
        ts_buf_reset(&p);
        ts_buf_addf(&p, "%s[%d]", path, i++);
        validate(x, get(schema, "items"), c, p.ptr);
    }
    ts_buf_release(&p);
}

static void child_path(const char *path, const char *key, struct ts_buf *out)
{
    ts_buf_reset(out);
    if (strpbrk(key, ".[]"))
        ts_buf_addf(out, "%s[%s]", path, key);
    else
        ts_buf_addf(out, "%s%s%s", path, path[0] ? "." : "", key);
}

static void check_object(const cJSON *schema, const cJSON *v, const char *path,
                         const struct vctx *x)
{
    const cJSON *props = get(schema, "properties"), *addl = get(schema, "additionalProperties");
    const cJSON *c;
    struct ts_buf p = TS_BUF_INIT;

    cJSON_ArrayForEach(c, get(schema, "required"))
    {
        if (!cJSON_IsString(c) || cJSON_GetObjectItemCaseSensitive(v, c->valuestring))
            continue;
        child_path(path, c->valuestring, &p);
        ts_field_errors_add(x->errs, TS_FIELD_REQUIRED, p.ptr, NULL, 0, NULL);
    }
    cJSON_ArrayForEach(c, v)
    {
        const cJSON *sub = props ? get(props, c->string) : NULL;

        if (!path[0] && (!strcmp(c->string, "metadata") || !strcmp(c->string, "apiVersion") ||
                         !strcmp(c->string, "kind")))
            continue;
        if (!sub && cJSON_IsObject(addl))
            sub = addl;
        child_path(path, c->string, &p);
        if (sub)
            validate(x, sub, c, p.ptr);
    }
    ts_buf_release(&p);
}

static void validate(const struct vctx *x, const cJSON *schema, const cJSON *obj, const char *path)
{
    struct ts_field_errors *errs = x->errs;

    if (!schema || !obj)
        return;
    if (cJSON_IsNull(obj)) {
        if (!cJSON_IsTrue(get(schema, "nullable")) && get(schema, "type"))
            ts_field_errors_add(errs, TS_FIELD_INVALID, path, "null", 0,
                                "%s in body must be of type %s: \"null\"", path,
                                cJSON_GetStringValue(get(schema, "type")));
        return;
    }
    if (!type_ok(schema, obj)) {
        const char *want = cJSON_GetStringValue(get(schema, "type"));
        const char *format = cJSON_GetStringValue(get(schema, "format"));

        if (!want && cJSON_IsArray(get(schema, "anyOf"))) {
            /* an int-or-string written as anyOf [integer, string], as
             * kube-apiserver reports it: the combined type, the anyOf and
             * the first branch's type */
            ts_field_errors_add(errs, TS_FIELD_TYPE_INVALID, path, type_of(obj), 1,
                                "%s in body must be of type integer,string: \"%s\"", path,
                                type_of(obj));
            ts_field_errors_add(errs, TS_FIELD_INVALID, "<nil>", "", 1,
                                "\"%s\" must validate at least one schema (anyOf)", path);
            ts_field_errors_add(errs, TS_FIELD_TYPE_INVALID, path, type_of(obj), 1,
                                "%s in body must be of type integer: \"%s\"", path, type_of(obj));
            check_integer_range(schema, obj, path, errs);
            return;
        }
        if (want && !strcmp(want, "integer") && format && *format && !cJSON_IsString(obj) &&
            !cJSON_IsArray(obj)) {
            /* a formatted integer against a value of another kind: the
             * format is named, and the value's own format (float64 for a
             * number, none for a boolean or an object) */
            const char *own = cJSON_IsNumber(obj) ? "float64" : "";

            ts_field_errors_add(errs, TS_FIELD_TYPE_INVALID, path, own, 1,
                                "%s in body must be of type %s: \"%s\"", path, format, own);
            check_integer_range(schema, obj, path, errs);
            return;
        }
        ts_field_errors_add(errs, TS_FIELD_TYPE_INVALID, path, type_of(obj), 1,
                            "%s in body must be of type %s: \"%s\"", path,
                            want ? want : "int-or-string", type_of(obj));
        check_integer_range(schema, obj, path, errs);
        return;
    }
    check_enum(schema, obj, path, errs);
    if (cJSON_IsNumber(obj))
        check_number(schema, obj, path, errs);
    else if (cJSON_IsString(obj))
        check_string(schema, obj, path, x);
    else if (cJSON_IsArray(obj))
        check_array(schema, obj, path, x);
    else if (cJSON_IsObject(obj))
        check_object(schema, obj, path, x);
}

void ts_schema_validate(const cJSON *schema, const cJSON *obj, const char *path,
                        struct ts_field_errors *errs)
{
    struct vctx x = {NULL, errs};

    validate(&x, schema, obj, path);
}

void ts_schema_validate_with(const cJSON *schema, const struct ts_schema_patterns *pats,
                             const cJSON *obj, const char *path, struct ts_field_errors *errs)
{
    struct vctx x = {pats, errs};

    validate(&x, schema, obj, path);
}
