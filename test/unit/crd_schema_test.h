/*
 * crd_schema_test.h - what test_crds.c needs to reason about a CRD's
 * openAPIV3Schema (header-only, static inline, like api_queue_test.h, so
 * no other test binary links it):
 *
 *   cs_validate()          a small structural validator, as kube-apiserver
 *                          validates a custom resource with
 *                          fieldValidation=Strict: type, enum, required,
 *                          pattern (POSIX ERE), min/maxLength (characters),
 *                          min/maxItems, minimum/maximum, maxProperties,
 *                          x-kubernetes-int-or-string, list-type set/map
 *                          uniqueness and unknown fields.  A required
 *                          property with a default counts as present (the
 *                          server defaults before it validates); JSON null
 *                          counts as absent; the root "metadata" is left to
 *                          the server's ObjectMeta handling.  CEL rules and
 *                          formats are not evaluated.
 *   cs_check_structural()  the structural-schema rules kube-apiserver puts
 *                          on a CRD, and "every default validates".
 *   cs_generate()          an instance with every property of the schema set.
 *   cs_cover()             the schema properties an instance lacks.
 *   cs_each_default()      every property that has a default, by field path.
 *   cs_apply_defaults()    the server's defaulting of a value.
 *   cs_equal()             JSON equality where int-or-string compares 1 == "1".
 *
 * Field paths use json/json.h syntax ("spec.podSets[0].name").  Problems
 * are appended to a struct ts_buf as lines "<path>: <problem>".
 * Include after <cmocka.h>.
 */
#ifndef TS_TEST_CRD_SCHEMA_TEST_H
#define TS_TEST_CRD_SCHEMA_TEST_H

#include <cJSON.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "json/json.h"

#define CS_PATH_MAX 512
/* Values cs_generate() writes. */
#define CS_GEN_STRING "a"
#define CS_GEN_TIME   "2026-01-02T03:04:05Z"
#define CS_GEN_KEY    "cpu" /* map key: valid as a label key and as a resource name */

static inline const cJSON *cs_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static inline const char *cs_str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cs_get(o, key));
}

static inline int cs_flag(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cs_get(o, key));
}

/* The first element or member of o[key], or NULL; iterate with CS_EACH
 * (cJSON_ArrayForEach would evaluate its argument twice). */
static inline const cJSON *cs_first(const cJSON *o, const char *key)
{
    const cJSON *c = cs_get(o, key);

    return c ? c->child : NULL;
}

#define CS_EACH(e, o, key) for ((e) = cs_first((o), (key)); (e); (e) = (e)->next)

/* strcmp() that treats NULL as "". */
static inline int cs_streq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static inline int cs_absent(const cJSON *v)
{
    return !v || cJSON_IsNull(v);
}

__attribute__((format(printf, 3, 4))) static inline void
cs_err(struct ts_buf *errs, const char *path, const char *fmt, ...)
{
    va_list ap;

    ts_buf_addf(errs, "%s: ", path[0] ? path : "<root>");
    va_start(ap, fmt);
    ts_buf_vaddf(errs, fmt, ap);
    va_end(ap);
    ts_buf_addc(errs, '\n');
}

/* path.key (or path[key] when key holds '.', '[' or ']'). */
static inline void cs_join(char *out, const char *path, const char *key)
{
    if (strpbrk(key, ".[]"))
        snprintf(out, CS_PATH_MAX, "%s[%s]", path, key);
    else
        snprintf(out, CS_PATH_MAX, "%s%s%s", path, path[0] ? "." : "", key);
}

static inline void cs_join_index(char *out, const char *path, int i)
{
    snprintf(out, CS_PATH_MAX, "%s[%d]", path, i);
}

/* The schema of member `key` of an object schema: a property, else
 * additionalProperties when it is a schema; NULL when the member is
 * unknown. */
static inline const cJSON *cs_member(const cJSON *s, const char *key)
{
    const cJSON *p = cs_get(cs_get(s, "properties"), key);
    const cJSON *ap = cs_get(s, "additionalProperties");

    if (p)
        return p;
    return cJSON_IsObject(ap) ? ap : NULL;
}

/* An integer as Kubernetes sees one: a number without fraction, or an
 * exact big integer the YAML decoder kept as a raw node. */
static inline int cs_is_integer(const cJSON *v)
{
    double d;

    if (cJSON_IsRaw(v))
        return 1;
    if (!cJSON_IsNumber(v))
        return 0;
    d = v->valuedouble;
    return d > -9.2e18 && d < 9.2e18 && (double)(long long)d == d;
}

static inline int cs_type_ok(const char *type, const cJSON *v)
{
    if (strcmp(type, "object") == 0)
        return cJSON_IsObject(v);
    if (strcmp(type, "array") == 0)
        return cJSON_IsArray(v);
    if (strcmp(type, "string") == 0)
        return cJSON_IsString(v);
    if (strcmp(type, "boolean") == 0)
        return cJSON_IsBool(v);
    if (strcmp(type, "integer") == 0)
        return cs_is_integer(v);
    if (strcmp(type, "number") == 0)
        return cJSON_IsNumber(v) || cJSON_IsRaw(v);
    return 0;
}

/* 1 = s matches the POSIX extended regular expression, 0 = it does not,
 * -1 = the pattern does not compile.  RE2's leading "(?i)" (after an
 * optional "^") is taken as REG_ICASE. */
static inline int cs_match(const char *pattern, const char *s)
{
    char buf[1024];
    int flags = 0;
    regex_t re;
    int rc;

    if (!strncmp(pattern, "^(?i)", 5) && strlen(pattern) < sizeof(buf)) {
        snprintf(buf, sizeof(buf), "^%s", pattern + 5);
        pattern = buf;
        flags = REG_ICASE;
    }
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | flags) != 0)
        return -1;
    rc = regexec(&re, s, 0, NULL, 0);
    regfree(&re);
    return rc == 0;
}

/* Characters (UTF-8 code points), as OpenAPI's maxLength counts. */
static inline size_t cs_chars(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The text of an int-or-string value ("1" for 1); NULL for other types.
 * Ownership: caller frees. */
static inline char *cs_int_or_string_text(const cJSON *v)
{
    char buf[64];

    if (cJSON_IsString(v))
        return ts_xstrdup(v->valuestring);
    if (cJSON_IsRaw(v))
        return ts_xstrdup(v->valuestring);
    if (!cJSON_IsNumber(v))
        return NULL;
    if (cs_is_integer(v))
        snprintf(buf, sizeof(buf), "%lld", (long long)v->valuedouble);
    else
        snprintf(buf, sizeof(buf), "%.17g", v->valuedouble);
    return ts_xstrdup(buf);
}

static inline void cs_validate(const cJSON *s, const cJSON *v, const char *path,
                               struct ts_buf *errs);

static inline void cs_validate_string(const cJSON *s, const cJSON *v, const char *path,
                                      struct ts_buf *errs)
{
    const cJSON *min = cs_get(s, "minLength");
    const cJSON *max = cs_get(s, "maxLength");
    const char *pattern = cs_str(s, "pattern");
    size_t n = cs_chars(v->valuestring);

    if (min && n < (size_t)min->valuedouble)
        cs_err(errs, path, "should be at least %d chars long", min->valueint);
    if (max && n > (size_t)max->valuedouble)
        cs_err(errs, path, "may not be more than %d bytes", max->valueint);
    if (!pattern)
        return;
    switch (cs_match(pattern, v->valuestring)) {
    case 0:
        cs_err(errs, path, "\"%s\" should match '%s'", v->valuestring, pattern);
        break;
    case -1:
        cs_err(errs, path, "pattern '%s' is not a POSIX extended regular expression", pattern);
        break;
    }
}

static inline void cs_validate_number(const cJSON *s, const cJSON *v, const char *path,
                                      struct ts_buf *errs)
{
    const cJSON *min = cs_get(s, "minimum");
    const cJSON *max = cs_get(s, "maximum");

    if (min && v->valuedouble < min->valuedouble)
        cs_err(errs, path, "should be greater than or equal to %g", min->valuedouble);
    if (max && v->valuedouble > max->valuedouble)
        cs_err(errs, path, "should be less than or equal to %g", max->valuedouble);
}

/* The identity of a list-map element: its key values (or their defaults)
 * printed one after the other.  Ownership: caller frees. */
static inline char *cs_map_key(const cJSON *items, const cJSON *keys, const cJSON *e)
{
    struct ts_buf b = TS_BUF_INIT;
    const cJSON *k;

    cJSON_ArrayForEach(k, keys)
    {
        const cJSON *v = cs_get(e, k->valuestring);
        char *t;

        if (cs_absent(v))
            v = cs_get(cs_member(items, k->valuestring), "default");
        t = v ? cJSON_PrintUnformatted(v) : ts_xstrdup("<none>");
        ts_buf_addf(&b, "%s,", t);
        free(t);
    }
    return ts_buf_take(&b);
}

static inline void cs_validate_list_type(const cJSON *s, const cJSON *v, const char *path,
                                         struct ts_buf *errs)
{
    const char *lt = cs_str(s, "x-kubernetes-list-type");
    const cJSON *items = cs_get(s, "items");
    int n = cJSON_GetArraySize(v);

    if (!lt || strcmp(lt, "atomic") == 0)
        return;
    for (int i = 0; i < n; i++) {
        const cJSON *a = cJSON_GetArrayItem(v, i);
        char *ka = strcmp(lt, "map") == 0
                       ? cs_map_key(items, cs_get(s, "x-kubernetes-list-map-keys"), a)
                       : NULL;

        for (int j = 0; j < i; j++) {
            const cJSON *b = cJSON_GetArrayItem(v, j);
            int dup;

            if (ka) {
                char *kb = cs_map_key(items, cs_get(s, "x-kubernetes-list-map-keys"), b);

                dup = strcmp(ka, kb) == 0;
                free(kb);
            } else {
                dup = ts_json_equal(a, b);
            }
            if (dup) {
                char p[CS_PATH_MAX];

                cs_join_index(p, path, i);
                cs_err(errs, p, "Duplicate value");
                break;
            }
        }
        free(ka);
    }
}

static inline void cs_validate_array(const cJSON *s, const cJSON *v, const char *path,
                                     struct ts_buf *errs)
{
    const cJSON *min = cs_get(s, "minItems");
    const cJSON *max = cs_get(s, "maxItems");
    int n = cJSON_GetArraySize(v), i = 0;
    const cJSON *e;

    if (min && n < min->valueint)
        cs_err(errs, path, "should have at least %d items", min->valueint);
    if (max && n > max->valueint)
        cs_err(errs, path, "must have at most %d items", max->valueint);
    cJSON_ArrayForEach(e, v)
    {
        char p[CS_PATH_MAX];

        cs_join_index(p, path, i++);
        if (cJSON_IsNull(e))
            cs_err(errs, p, "must not be null");
        else
            cs_validate(cs_get(s, "items"), e, p, errs);
    }
    cs_validate_list_type(s, v, path, errs);
}

static inline void cs_validate_object(const cJSON *s, const cJSON *v, const char *path,
                                      struct ts_buf *errs)
{
    const cJSON *max = cs_get(s, "maxProperties");
    const cJSON *req, *m;

    if (max && cJSON_GetArraySize(v) > max->valueint)
        cs_err(errs, path, "must have at most %d properties", max->valueint);
    cJSON_ArrayForEach(m, v)
    {
        const cJSON *ms = cs_member(s, m->string);
        char p[CS_PATH_MAX];

        if (cJSON_IsNull(m))
            continue;
        cs_join(p, path, m->string);
        if (!path[0] && strcmp(m->string, "metadata") == 0) {
            if (!cJSON_IsObject(m))
                cs_err(errs, p, "must be of type object");
        } else if (ms) {
            cs_validate(ms, m, p, errs);
        } else if (!cs_flag(s, "x-kubernetes-preserve-unknown-fields")) {
            cs_err(errs, p, "unknown field \"%s\"", m->string);
        }
    }
    CS_EACH(req, s, "required")
    {
        const cJSON *ps = cs_member(s, req->valuestring);
        char p[CS_PATH_MAX];

        if (cs_absent(cs_get(v, req->valuestring)) && !cs_get(ps, "default")) {
            cs_join(p, path, req->valuestring);
            cs_err(errs, p, "Required value");
        }
    }
}

static inline void cs_validate(const cJSON *s, const cJSON *v, const char *path,
                               struct ts_buf *errs)
{
    const char *type = cs_str(s, "type");
    const cJSON *en = cs_get(s, "enum");

    if (cs_absent(v) || !s)
        return;
    if (cs_flag(s, "x-kubernetes-int-or-string")) {
        if (!cs_is_integer(v) && !cJSON_IsString(v))
            cs_err(errs, path, "must be of type integer or string");
        else if (cJSON_IsString(v))
            cs_validate_string(s, v, path, errs);
        return;
    }
    if (!type || !cs_type_ok(type, v)) {
        cs_err(errs, path, "must be of type %s", type ? type : "<none>");
        return;
    }
    if (en) {
        const cJSON *e;
        int ok = 0;

        cJSON_ArrayForEach(e, en)
        {
            ok |= ts_json_equal(e, v);
        }
        if (!ok) {
            char *t = cJSON_PrintUnformatted(v);

            cs_err(errs, path, "Unsupported value: %s", t);
            free(t);
        }
    }
    if (cJSON_IsString(v))
        cs_validate_string(s, v, path, errs);
    else if (cJSON_IsNumber(v))
        cs_validate_number(s, v, path, errs);
    else if (cJSON_IsArray(v))
        cs_validate_array(s, v, path, errs);
    else if (cJSON_IsObject(v))
        cs_validate_object(s, v, path, errs);
}

/* --- structural-schema rules ------------------------------------------- */

static inline int cs_is_scalar_type(const char *t)
{
    return t && (strcmp(t, "string") == 0 || strcmp(t, "integer") == 0 ||
                 strcmp(t, "number") == 0 || strcmp(t, "boolean") == 0);
}

static inline void cs_check_list_map(const cJSON *s, const char *path, struct ts_buf *errs)
{
    const cJSON *items = cs_get(s, "items");
    const cJSON *keys = cs_get(s, "x-kubernetes-list-map-keys");
    const cJSON *k;

    if (!cJSON_IsArray(keys) || !cJSON_GetArraySize(keys))
        cs_err(errs, path, "list-type map needs x-kubernetes-list-map-keys");
    if (!cs_streq(cs_str(items, "type"), "object"))
        cs_err(errs, path, "list-type map needs object items");
    cJSON_ArrayForEach(k, keys)
    {
        const cJSON *ks = cs_get(cs_get(items, "properties"), k->valuestring);
        const cJSON *r;
        int required = 0;

        CS_EACH(r, items, "required")
        {
            required |= strcmp(r->valuestring, k->valuestring) == 0;
        }
        if (!cs_is_scalar_type(cs_str(ks, "type")))
            cs_err(errs, path, "list-map key \"%s\" must be a scalar property", k->valuestring);
        if (!required && !cs_get(ks, "default"))
            cs_err(errs, path, "list-map key \"%s\" must be required or defaulted", k->valuestring);
    }
}

static inline void cs_check_structural(const cJSON *s, const char *path, struct ts_buf *errs);

static inline void cs_check_children(const cJSON *s, const char *path, struct ts_buf *errs)
{
    const cJSON *props = cs_get(s, "properties");
    const cJSON *ap = cs_get(s, "additionalProperties");
    const cJSON *p, *r;
    char cp[CS_PATH_MAX];

    cJSON_ArrayForEach(p, props)
    {
        cs_join(cp, path, p->string);
        cs_check_structural(p, cp, errs);
    }
    if (cJSON_IsObject(ap)) {
        cs_join(cp, path, "*");
        cs_check_structural(ap, cp, errs);
    }
    if (cs_get(s, "items")) {
        cs_join_index(cp, path, 0);
        cs_check_structural(cs_get(s, "items"), cp, errs);
    }
    CS_EACH(r, s, "required")
    {
        if (!cs_get(props, r->valuestring))
            cs_err(errs, path, "required \"%s\" is not a property", r->valuestring);
    }
    CS_EACH(r, s, "x-kubernetes-validations")
    {
        if (!cs_str(r, "rule") || !cs_str(r, "rule")[0])
            cs_err(errs, path, "x-kubernetes-validations entry without a rule");
    }
}

static inline void cs_check_structural(const cJSON *s, const char *path, struct ts_buf *errs)
{
    const char *type = cs_str(s, "type");
    const char *lt = cs_str(s, "x-kubernetes-list-type");
    const cJSON *any = cs_get(s, "anyOf");

    if (!cJSON_IsObject(s)) {
        cs_err(errs, path, "schema must be an object");
        return;
    }
    if (cs_flag(s, "x-kubernetes-int-or-string")) {
        if (type || cJSON_GetArraySize(any) != 2 ||
            !cs_streq(cs_str(cJSON_GetArrayItem(any, 0), "type"), "integer") ||
            !cs_streq(cs_str(cJSON_GetArrayItem(any, 1), "type"), "string"))
            cs_err(errs, path, "int-or-string must be anyOf [integer, string] without a type");
    } else if (!type) {
        cs_err(errs, path, "type is required in a structural schema");
    } else if (any) {
        cs_err(errs, path, "anyOf is only used for int-or-string here");
    }
    if ((cs_get(s, "properties") || cs_get(s, "additionalProperties")) && !cs_streq(type, "object"))
        cs_err(errs, path, "properties on a non-object");
    if (cs_get(s, "properties") && cJSON_IsObject(cs_get(s, "additionalProperties")))
        cs_err(errs, path, "properties and additionalProperties are mutually exclusive");
    if (cs_streq(type, "array") && !cs_get(s, "items"))
        cs_err(errs, path, "array without items");
    if (cs_streq(lt, "map"))
        cs_check_list_map(s, path, errs);
    else if (cs_streq(lt, "set") && !cs_is_scalar_type(cs_str(cs_get(s, "items"), "type")))
        cs_err(errs, path, "list-type set needs scalar items");
    if (cs_get(s, "default"))
        cs_validate(s, cs_get(s, "default"), path, errs);
    cs_check_children(s, path, errs);
}

/* --- instances ----------------------------------------------------------- */

/* An instance with every property the schema declares: the first
 * non-empty enum value, CS_GEN_STRING / CS_GEN_TIME for strings, max(1,
 * minimum) for integers, true, "1" for int-or-string, one element per
 * array and one CS_GEN_KEY member per map.  Ownership: caller deletes. */
static inline cJSON *cs_generate(const cJSON *s)
{
    const char *type = cs_str(s, "type");
    const cJSON *e, *min = cs_get(s, "minimum");
    cJSON *o;

    if (cs_flag(s, "x-kubernetes-int-or-string"))
        return cJSON_CreateString("1");
    CS_EACH(e, s, "enum")
    {
        if (!cJSON_IsString(e) || e->valuestring[0])
            return cJSON_Duplicate(e, 1);
    }
    if (!type || strcmp(type, "string") == 0) {
        const char *f = cs_str(s, "format");

        return cJSON_CreateString(f && strcmp(f, "date-time") == 0 ? CS_GEN_TIME : CS_GEN_STRING);
    }
    if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0)
        return cJSON_CreateNumber(min && min->valuedouble > 1 ? min->valuedouble : 1);
    if (strcmp(type, "boolean") == 0)
        return cJSON_CreateTrue();
    if (strcmp(type, "array") == 0) {
        o = cJSON_CreateArray();
        cJSON_AddItemToArray(o, cs_generate(cs_get(s, "items")));
        return o;
    }
    o = cJSON_CreateObject();
    CS_EACH(e, s, "properties")
    {
        cJSON_AddItemToObject(o, e->string, cs_generate(e));
    }
    if (cJSON_IsObject(cs_get(s, "additionalProperties")))
        cJSON_AddItemToObject(o, CS_GEN_KEY, cs_generate(cs_get(s, "additionalProperties")));
    return o;
}

/* Appends one line per schema property that v lacks ("<path>"), walking
 * every array element and map value; the root "metadata" is skipped. */
static inline void cs_cover(const cJSON *s, const cJSON *v, const char *path,
                            struct ts_buf *missing)
{
    const cJSON *p, *m;
    char cp[CS_PATH_MAX];
    int i = 0;

    if (cJSON_IsArray(v)) {
        cJSON_ArrayForEach(m, v)
        {
            cs_join_index(cp, path, i++);
            cs_cover(cs_get(s, "items"), m, cp, missing);
        }
        return;
    }
    if (!cJSON_IsObject(v))
        return;
    CS_EACH(p, s, "properties")
    {
        if (!path[0] && strcmp(p->string, "metadata") == 0)
            continue;
        cs_join(cp, path, p->string);
        if (cs_absent(cs_get(v, p->string)))
            ts_buf_addf(missing, "%s\n", cp);
        else
            cs_cover(p, cs_get(v, p->string), cp, missing);
    }
    if (!cJSON_IsObject(cs_get(s, "additionalProperties")))
        return;
    cJSON_ArrayForEach(m, v)
    {
        cs_join(cp, path, m->string);
        cs_cover(cs_get(s, "additionalProperties"), m, cp, missing);
    }
}

typedef void (*cs_default_fn)(const char *path, const cJSON *prop, void *arg);

/* Calls fn for every property with a default, its path using [0] for array
 * elements and CS_GEN_KEY for map values (the shape of cs_generate()). */
static inline void cs_each_default(const cJSON *s, const char *path, cs_default_fn fn, void *arg)
{
    const cJSON *p;
    char cp[CS_PATH_MAX];

    CS_EACH(p, s, "properties")
    {
        cs_join(cp, path, p->string);
        if (cs_get(p, "default"))
            fn(cp, p, arg);
        cs_each_default(p, cp, fn, arg);
    }
    if (cs_get(s, "items")) {
        cs_join_index(cp, path, 0);
        cs_each_default(cs_get(s, "items"), cp, fn, arg);
    }
    if (cJSON_IsObject(cs_get(s, "additionalProperties"))) {
        cs_join(cp, path, CS_GEN_KEY);
        cs_each_default(cs_get(s, "additionalProperties"), cp, fn, arg);
    }
}

/* Applies the schema's defaults to v in place, top-down, as the API server
 * does to absent properties of present objects. */
static inline void cs_apply_defaults(const cJSON *s, cJSON *v)
{
    const cJSON *p;
    cJSON *m;

    if (cJSON_IsArray(v)) {
        cJSON_ArrayForEach(m, v)
        {
            cs_apply_defaults(cs_get(s, "items"), m);
        }
        return;
    }
    if (!cJSON_IsObject(v))
        return;
    CS_EACH(p, s, "properties")
    {
        if (cs_absent(cs_get(v, p->string)) && cs_get(p, "default")) {
            cJSON_DeleteItemFromObjectCaseSensitive(v, p->string);
            cJSON_AddItemToObject(v, p->string, cJSON_Duplicate(cs_get(p, "default"), 1));
        }
        if (cJSON_GetObjectItemCaseSensitive(v, p->string))
            cs_apply_defaults(p, cJSON_GetObjectItemCaseSensitive(v, p->string));
    }
    if (cJSON_IsObject(cs_get(s, "additionalProperties"))) {
        cJSON_ArrayForEach(m, v)
        {
            cs_apply_defaults(cs_get(s, "additionalProperties"), m);
        }
    }
}

/* Deep equality of a and b under schema s; int-or-string values compare by
 * text, so the schema's `weight: 1` equals the C encoder's "1". */
static inline int cs_equal(const cJSON *s, const cJSON *a, const cJSON *b)
{
    const cJSON *m;

    if (cs_flag(s, "x-kubernetes-int-or-string")) {
        char *ta = cs_int_or_string_text(a), *tb = cs_int_or_string_text(b);
        int eq = ta && tb && strcmp(ta, tb) == 0;

        free(ta);
        free(tb);
        return eq;
    }
    if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return 0;
        cJSON_ArrayForEach(m, a)
        {
            if (!cs_equal(cs_member(s, m->string), m, cs_get(b, m->string)))
                return 0;
        }
        return 1;
    }
    if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
        const cJSON *e = b ? b->child : NULL;

        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return 0;
        cJSON_ArrayForEach(m, a)
        {
            if (!cs_equal(cs_get(s, "items"), m, e))
                return 0;
            e = e->next;
        }
        return 1;
    }
    return a && b && ts_json_equal(a, b);
}

#endif
