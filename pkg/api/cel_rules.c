/*
 * cel_rules.c - a CRD schema's x-kubernetes-validations compiled into a
 * tree that mirrors the schema nodes holding rules, and its walk over a
 * custom resource (see cel_rules.h).
 */
#include "api/cel_rules.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "api/cel.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/log.h"

/* kube-apiserver's bound on an evaluated messageExpression
 * (MaxEvaluatedMessageExpressionSizeBytes). */
#define MESSAGE_MAX 5120

struct rule {
    struct ts_cel_prog *prog;
    struct ts_cel_prog *message_prog; /* messageExpression, or NULL */
    char *text;                       /* the rule, trimmed */
    char *message;                    /* trimmed, or NULL */
    char *field_path;                 /* normalised ("a.b", "a[k]"), or NULL */
    enum ts_field_error_type type;    /* from reason */
};

struct prop {
    char *name;
    struct ts_cel_rules *node;
};

/* One schema node with rules at or below it. */
struct ts_cel_rules {
    const cJSON *schema;
    struct rule *rules;
    size_t n_rules;
    struct ts_cel_rules *items, *addl;
    struct prop *props;
    size_t n_props;
};

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static char *trimmed(const char *s)
{
    size_t n;

    while (isspace((unsigned char)*s))
        s++;
    n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return ts_xstrndup(s, n);
}

/* A rule's fieldPath (".a.b", ".a['k']") as a field path relative to its
 * node, or NULL when it does not parse (kube-apiserver then keeps the
 * node's path).  A ['k'] step is a field name where the schema has
 * properties and a map key (printed [k]) where it has
 * additionalProperties. */
static char *normalise_field_path(const char *fp, const cJSON *schema)
{
    struct ts_buf out = TS_BUF_INIT;
    const char *p = fp;

    while (*p) {
        const char *start;
        char *name;
        int named = 1;

        if (*p == '.') {
            start = ++p;
            while (*p && *p != '.' && *p != '[')
                p++;
            if (p == start)
                goto bad;
            name = ts_xstrndup(start, (size_t)(p - start));
        } else if (p[0] == '[' && p[1] == '\'') {
            struct ts_buf key = TS_BUF_INIT;

            for (p += 2; *p && *p != '\''; p++) {
                if (*p == '\\' && p[1])
                    p++;
                ts_buf_addc(&key, *p);
            }
            if (p[0] != '\'' || p[1] != ']') {
                ts_buf_release(&key);
                goto bad;
            }
            p += 2;
            name = ts_buf_take(&key);
            named = get(schema, "properties") != NULL;
        } else {
            goto bad;
        }
        if (named)
            ts_buf_addf(&out, "%s%s", out.len ? "." : "", name);
        else
            ts_buf_addf(&out, "[%s]", name);
        schema = named ? get(get(schema, "properties"), name) : get(schema, "additionalProperties");
        free(name);
    }
    if (!out.len)
        goto bad;
    return ts_buf_take(&out);
bad:
    ts_buf_release(&out);
    return NULL;
}

static enum ts_field_error_type reason_type(const char *reason)
{
    if (reason && !strcmp(reason, "FieldValueForbidden"))
        return TS_FIELD_FORBIDDEN;
    if (reason && !strcmp(reason, "FieldValueRequired"))
        return TS_FIELD_REQUIRED;
    if (reason && !strcmp(reason, "FieldValueDuplicate"))
        return TS_FIELD_DUPLICATE;
    return TS_FIELD_INVALID;
}

/* Compiles one rule into r; 0, or -1 (logged) when it does not compile or
 * is empty. */
static int compile_rule(const cJSON *v, const cJSON *schema, const char *what, struct rule *r)
{
    const char *src = cJSON_GetStringValue(get(v, "rule"));
    const char *msg = cJSON_GetStringValue(get(v, "message"));
    const char *mexpr = cJSON_GetStringValue(get(v, "messageExpression"));
    const char *fp = cJSON_GetStringValue(get(v, "fieldPath"));
    struct ts_buf err = TS_BUF_INIT;

    memset(r, 0, sizeof(*r));
    if (!src || !src[0])
        return -1;
    if (!(r->prog = ts_cel_compile(src, &err))) {
        ts_log_warn("cel", "crd=%s CEL rule skipped, it does not compile: %s: %s", what, src,
                    err.ptr);
        ts_buf_release(&err);
        return -1;
    }
    if (mexpr && mexpr[0]) {
        ts_buf_reset(&err);
        if (!(r->message_prog = ts_cel_compile(mexpr, &err)))
            ts_log_warn("cel", "crd=%s messageExpression ignored, it does not compile: %s: %s",
                        what, mexpr, err.ptr);
    }
    ts_buf_release(&err);
    r->text = trimmed(src);
    r->message = msg && msg[0] ? trimmed(msg) : NULL;
    r->field_path = fp && fp[0] ? normalise_field_path(fp, schema) : NULL;
    r->type = reason_type(cJSON_GetStringValue(get(v, "reason")));
    return 0;
}

static void rule_release(struct rule *r)
{
    ts_cel_free(r->prog);
    ts_cel_free(r->message_prog);
    free(r->text);
    free(r->message);
    free(r->field_path);
}

struct ts_cel_rules *ts_cel_rules_new(const cJSON *schema, const char *what)
{
    struct ts_cel_rules *n;
    const cJSON *v, *items = get(schema, "items"), *addl = get(schema, "additionalProperties");
    size_t cap = 0;

    if (!cJSON_IsObject(schema))
        return NULL;
    n = ts_xcalloc(1, sizeof(*n));
    n->schema = schema;
    cJSON_ArrayForEach(v, get(schema, "x-kubernetes-validations"))
    {
        struct rule r;

        if (compile_rule(v, schema, what, &r))
            continue;
        TS_GROW(n->rules, cap, n->n_rules + 1);
        n->rules[n->n_rules++] = r;
    }
    n->items = cJSON_IsObject(items) ? ts_cel_rules_new(items, what) : NULL;
    n->addl = cJSON_IsObject(addl) ? ts_cel_rules_new(addl, what) : NULL;
    cap = 0;
    cJSON_ArrayForEach(v, get(schema, "properties"))
    {
        struct ts_cel_rules *sub = ts_cel_rules_new(v, what);

        if (!sub)
            continue;
        TS_GROW(n->props, cap, n->n_props + 1);
        n->props[n->n_props].name = ts_xstrdup(v->string);
        n->props[n->n_props++].node = sub;
    }
    if (!n->n_rules && !n->items && !n->addl && !n->n_props) {
        ts_cel_rules_free(n);
        return NULL;
    }
    return n;
}

void ts_cel_rules_free(struct ts_cel_rules *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_rules; i++)
        rule_release(&r->rules[i]);
    free(r->rules);
    for (size_t i = 0; i < r->n_props; i++) {
        free(r->props[i].name);
        ts_cel_rules_free(r->props[i].node);
    }
    free(r->props);
    ts_cel_rules_free(r->items);
    ts_cel_rules_free(r->addl);
    free(r);
}

/* --- evaluation ----------------------------------------------------------- */

struct walk {
    struct ts_field_errors *errs;
    struct ts_strlist *warnings;
    struct ts_buf path; /* "" at the root */
};

/* The nearest correlated pair at or above a node: its failures ratchet
 * when new equals old (no old: nothing ratchets). */
struct near {
    const cJSON *now, *old;
};

static void cut(struct ts_buf *b, size_t len)
{
    if (b->cap) {
        b->len = len;
        b->ptr[len] = '\0';
    }
}

static const char *field_name(const struct walk *w)
{
    return w->path.len ? w->path.ptr : "<nil>";
}

/* The message of a failed rule: messageExpression's when it gives a
 * usable string (trimmed, non-empty, one line, bounded), else message,
 * else "failed rule: <rule>". */
static char *detail_of(const struct rule *r, const struct ts_cel_vars *vars)
{
    struct ts_buf out = TS_BUF_INIT;

    if (r->message_prog && !ts_cel_eval_string(r->message_prog, vars, &out)) {
        char *t = trimmed(out.ptr);

        ts_buf_release(&out);
        if (t[0] && !strchr(t, '\n') && strlen(t) <= MESSAGE_MAX)
            return t;
        free(t);
    }
    ts_buf_release(&out);
    if (r->message)
        return ts_xstrdup(r->message);
    ts_buf_addf(&out, "failed rule: %s", r->text);
    return ts_buf_take(&out);
}

static void add_failure(const struct rule *r, const cJSON *obj, const struct ts_cel_vars *vars,
                        int ratchet, struct walk *w)
{
    struct ts_field_errors one = TS_FIELD_ERRORS_INIT;
    struct ts_buf field = TS_BUF_INIT, val = TS_BUF_INIT;
    char *detail = detail_of(r, vars);
    const char *value = NULL;

    if (r->field_path && w->path.len)
        ts_buf_addf(&field, "%s.%s", w->path.ptr, r->field_path);
    else
        ts_buf_adds(&field, r->field_path ? r->field_path : field_name(w));
    if (!cJSON_IsObject(obj) && !cJSON_IsArray(obj)) {
        ts_json_print(obj, TS_JSON_COMPACT, &val, NULL);
        value = val.ptr;
    }
    if (r->type == TS_FIELD_FORBIDDEN || r->type == TS_FIELD_REQUIRED)
        ts_field_errors_add(&one, r->type, field.ptr, NULL, 0, "%s", detail);
    else if (r->type == TS_FIELD_DUPLICATE)
        ts_field_errors_add(&one, r->type, field.ptr, value, 0, NULL);
    else
        ts_field_errors_add(&one, r->type, field.ptr, value, 0, "%s", detail);
    if (ratchet && w->warnings) {
        ts_buf_reset(&val);
        ts_field_error_format(&one.items[0], &val);
        ts_strlist_push(w->warnings, val.ptr);
    } else if (!ratchet) {
        ts_field_errors_extend(w->errs, &one);
    }
    ts_field_errors_release(&one);
    ts_buf_release(&field);
    ts_buf_release(&val);
    free(detail);
}

static void run_rules(const struct ts_cel_rules *n, const cJSON *obj, const cJSON *old,
                      struct near near, struct walk *w)
{
    struct ts_buf err = TS_BUF_INIT;
    const char *type = cJSON_GetStringValue(get(n->schema, "type"));

    for (size_t i = 0; i < n->n_rules; i++) {
        const struct rule *r = &n->rules[i];
        int transition = ts_cel_uses_old_self(r->prog), rc;
        struct ts_cel_vars vars = {obj, n->schema, transition ? old : NULL};

        if (transition && !old)
            continue;
        ts_buf_reset(&err);
        rc = ts_cel_eval_bool(r->prog, &vars, &err);
        if (rc < 0)
            ts_field_errors_add(w->errs, TS_FIELD_INVALID, field_name(w), type ? type : "", 1,
                                "%s evaluating rule: %s", err.ptr,
                                r->message ? r->message : r->text);
        else if (!rc)
            add_failure(r, obj, &vars, !transition && near.old && ts_json_equal(near.now, near.old),
                        w);
    }
    ts_buf_release(&err);
}

/* The item of the old list with the same x-kubernetes-list-map-keys as
 * item, when the schema makes the list a map; else NULL. */
static const cJSON *correlate_item(const cJSON *schema, const cJSON *old_list, const cJSON *item)
{
    const char *lt = cJSON_GetStringValue(get(schema, "x-kubernetes-list-type"));
    const cJSON *keys = get(schema, "x-kubernetes-list-map-keys"), *o, *k;

    if (!lt || strcmp(lt, "map") || !cJSON_IsArray(old_list) || !cJSON_IsObject(item))
        return NULL;
    cJSON_ArrayForEach(o, old_list)
    {
        int same = cJSON_IsObject(o);

        cJSON_ArrayForEach(k, keys)
        {
            const cJSON *a, *b;

            if (!same || !cJSON_IsString(k))
                break;
            a = get(item, k->valuestring);
            b = get(o, k->valuestring);
            same = (!a && !b) || (a && b && ts_json_equal(a, b));
        }
        if (same)
            return o;
    }
    return NULL;
}

static void walk_node(const struct ts_cel_rules *n, const cJSON *obj, const cJSON *old,
                      struct near near, struct walk *w);

static void walk_child(const struct ts_cel_rules *n, const cJSON *obj, const cJSON *old,
                       struct near near, struct walk *w, const char *fmt, const char *key,
                       size_t index)
{
    size_t len = w->path.len;

    if (key && !strcmp(fmt, "."))
        ts_buf_addf(&w->path, "%s%s", len ? "." : "", key);
    else if (key)
        ts_buf_addf(&w->path, "[%s]", key);
    else
        ts_buf_addf(&w->path, "[%zu]", index);
    walk_node(n, obj, old, near, w);
    cut(&w->path, len);
}

static const struct ts_cel_rules *prop_node(const struct ts_cel_rules *n, const char *name)
{
    for (size_t i = 0; i < n->n_props; i++)
        if (!strcmp(n->props[i].name, name))
            return n->props[i].node;
    return NULL;
}

static void walk_node(const struct ts_cel_rules *n, const cJSON *obj, const cJSON *old,
                      struct near near, struct walk *w)
{
    const cJSON *c;
    size_t i = 0;

    if (!n || !obj || cJSON_IsNull(obj))
        return;
    if (old && cJSON_IsNull(old))
        old = NULL;
    if (old) {
        near.now = obj;
        near.old = old;
    }
    run_rules(n, obj, old, near, w);
    if (cJSON_IsArray(obj) && n->items) {
        cJSON_ArrayForEach(c, obj)
        {
            walk_child(n->items, c, correlate_item(n->schema, old, c), near, w, "[]", NULL, i++);
        }
    } else if (cJSON_IsObject(obj)) {
        cJSON_ArrayForEach(c, obj)
        {
            const cJSON *o = cJSON_IsObject(old) ? get(old, c->string) : NULL;
            const struct ts_cel_rules *sub = prop_node(n, c->string);

            if (n->addl)
                walk_child(n->addl, c, o, near, w, "[]", c->string, 0);
            if (sub)
                walk_child(sub, c, o, near, w, ".", c->string, 0);
        }
    }
}

/* Schema errors after which kube-apiserver runs no rule. */
static int blocked(const struct ts_field_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        switch (errs->items[i].type) {
        case TS_FIELD_NOT_SUPPORTED:
        case TS_FIELD_REQUIRED:
        case TS_FIELD_TOO_LONG:
        case TS_FIELD_TOO_MANY:
        case TS_FIELD_TYPE_INVALID:
            return 1;
        default:
            break;
        }
    }
    return 0;
}

void ts_cel_rules_check(const struct ts_cel_rules *r, const cJSON *obj, const cJSON *old,
                        struct ts_field_errors *errs, struct ts_strlist *warnings)
{
    struct walk w = {errs, warnings, TS_BUF_INIT};
    struct near near = {NULL, NULL};

    if (!r)
        return;
    if (blocked(errs)) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, "<nil>", "null", 0,
                            "some validation rules were not checked because the object was "
                            "invalid; correct the existing errors to complete validation");
        return;
    }
    walk_node(r, obj, old, near, &w);
    ts_buf_release(&w.path);
}
