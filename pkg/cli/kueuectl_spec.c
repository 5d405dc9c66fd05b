/*
 * kueuectl_spec.c - `kubectl kueue create`'s flag values and objects (see
 * kueuectl_int.h): --node-labels, --node-taints and --tolerations parsed
 * with the messages of cmd/kueuectl/app/create/create_resourceflavor.go,
 * label keys and values checked as apimachinery's validation does.  Pure.
 */
#include "cli/kueuectl_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"

#define NAME_MSG                                                                                   \
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "  \
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "     \
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define VALUE_MSG                                                                                  \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is "                                       \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define PREFIX_MSG                                                                                 \
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "          \
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "         \
    "'example.com', regex used for validation is "                                                 \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/* Sets the message (longer than a struct ts_err holds: apimachinery's
 * regex messages) and returns TS_EINVAL. */
static int fail(struct ts_buf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct ts_buf *err, const char *fmt, ...)
{
    va_list ap;
    char buf[2048];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (err) {
        ts_buf_reset(err);
        ts_buf_adds(err, buf);
    }
    return TS_EINVAL;
}

/* [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])? over s[0..n). */
static int label_chars(const char *s, size_t n)
{
    if (!n || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
            return 0;
    return 1;
}

static int dns_subdomain(const char *s, size_t n)
{
    if (!n || n > 253 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' ||
              s[i] == '.'))
            return 0;
    return 1;
}

#define QUALIFIED_MSG                                                                              \
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "   \
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "  \
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "     \
    "subdomain prefix and '/' (e.g. 'example.com/MyName')"

static void problem(struct ts_buf *b, const char *msg)
{
    ts_buf_addf(b, "%s%s", b->len ? "; " : "", msg);
}

/* apimachinery's IsQualifiedName (content.IsLabelKey): every problem,
 * joined with "; ", appended to b. */
static void label_key_problems(const char *key, struct ts_buf *b)
{
    const char *slash = strchr(key, '/'), *name = slash ? slash + 1 : key;

    if (slash && strchr(name, '/')) {
        problem(b, QUALIFIED_MSG);
        return;
    }
    if (slash && slash == key)
        problem(b, "prefix part must be non-empty");
    else if (slash && (size_t)(slash - key) > 253)
        problem(b, "prefix part must be no more than 253 characters");
    else if (slash && !dns_subdomain(key, (size_t)(slash - key)))
        problem(b, PREFIX_MSG);
    if (!*name)
        problem(b, "name part must be non-empty");
    else if (strlen(name) > 63)
        problem(b, "name part must be no more than 63 characters");
    if (!label_chars(name, strlen(name)))
        problem(b, NAME_MSG);
}

/* IsValidLabelValue. */
static void label_value_problems(const char *v, struct ts_buf *b)
{
    if (strlen(v) > 63)
        problem(b, "must be no more than 63 characters");
    if (*v && !label_chars(v, strlen(v)))
        problem(b, VALUE_MSG);
}

/* splitSpecItem: KEY[=VALUE][:EFFECT]; -1 on more than one ':' or '='. */
static int split_item(const char *s, char *key, char *value, char *effect, size_t len)
{
    const char *colon = strchr(s, ':'), *end = colon ? colon : s + strlen(s);
    const char *eq = memchr(s, '=', (size_t)(end - s));

    if (colon && strchr(colon + 1, ':'))
        return -1;
    if (eq && memchr(eq + 1, '=', (size_t)(end - eq - 1)))
        return -1;
    if ((size_t)(end - s) >= len || strlen(end) >= len)
        return -1;
    snprintf(key, len, "%.*s", (int)((eq ? eq : end) - s), s);
    snprintf(value, len, "%.*s", eq ? (int)(end - eq - 1) : 0, eq ? eq + 1 : "");
    snprintf(effect, len, "%s", colon ? colon + 1 : "");
    return 0;
}

static int bad_effect(const char *e, struct ts_buf *err)
{
    if (!strcmp(e, "NoSchedule") || !strcmp(e, "PreferNoSchedule") || !strcmp(e, "NoExecute"))
        return 0;
    return fail(err, "invalid taint effect: %s, unsupported taint effect", e);
}

/* The key and value checks shared by taints and tolerations (a
 * toleration's empty key is not checked). */
static int check_kv(const char *what, const char *item, const char *key, const char *value,
                    int check_empty_key, struct ts_buf *err)
{
    struct ts_buf b = TS_BUF_INIT;
    int rc = 0;

    if (*key || check_empty_key)
        label_key_problems(key, &b);
    if (!b.len && *value)
        label_value_problems(value, &b);
    if (b.len)
        rc = fail(err, "invalid %s spec: %s, %s", what, item, b.ptr);
    ts_buf_release(&b);
    return rc;
}

static int parse_taint(const char *item, cJSON *arr, struct ts_buf *err)
{
    char key[320], value[320], effect[320];
    const cJSON *t;
    cJSON *o;
    int rc;

    if (!*item)
        return fail(err, "invalid taint spec");
    if (split_item(item, key, value, effect, sizeof(key)) || !*effect)
        return fail(err, "invalid taint spec: %s", item);
    if ((rc = bad_effect(effect, err)) || (rc = check_kv("taint", item, key, value, 1, err)))
        return rc;
    cJSON_ArrayForEach(t, arr)
    {
        if (!strcmp(cJSON_GetObjectItem(t, "key")->valuestring, key) &&
            !strcmp(cJSON_GetObjectItem(t, "effect")->valuestring, effect))
            return fail(err, "duplicated taints with the same key and effect: {%s %s %s <nil>}",
                        key, value, effect);
    }
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", key);
    if (*value)
        cJSON_AddStringToObject(o, "value", value);
    cJSON_AddStringToObject(o, "effect", effect);
    cJSON_AddItemToArray(arr, o);
    return 0;
}

int ts__kctl_parse_taints(const char *const *items, size_t n, cJSON **out, struct ts_buf *err)
{
    cJSON *arr = cJSON_CreateArray();

    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        int rc = parse_taint(items[i], arr, err);

        if (rc) {
            cJSON_Delete(arr);
            return rc;
        }
    }
    *out = arr;
    return 0;
}

static int parse_toleration(const char *item, cJSON *arr, struct ts_buf *err)
{
    char key[320], value[320], effect[320];
    cJSON *o;
    int rc;

    if (!*item)
        return fail(err, "invalid toleration spec");
    if (split_item(item, key, value, effect, sizeof(key)) || (!*key && *value))
        return fail(err, "invalid toleration spec: %s", item);
    if (*effect && (rc = bad_effect(effect, err)))
        return rc;
    if ((rc = check_kv("toleration", item, key, value, 0, err)))
        return rc;
    o = cJSON_CreateObject();
    if (*key)
        cJSON_AddStringToObject(o, "key", key);
    cJSON_AddStringToObject(o, "operator", !*key || !*value ? "Exists" : "Equal");
    if (*value)
        cJSON_AddStringToObject(o, "value", value);
    if (*effect)
        cJSON_AddStringToObject(o, "effect", effect);
    cJSON_AddItemToArray(arr, o);
    return 0;
}

int ts__kctl_parse_tolerations(const char *const *items, size_t n, cJSON **out, struct ts_buf *err)
{
    cJSON *arr = cJSON_CreateArray();

    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        int rc = parse_toleration(items[i], arr, err);

        if (rc) {
            cJSON_Delete(arr);
            return rc;
        }
    }
    *out = arr;
    return 0;
}

/* One value of a pflag stringToString flag into obj (a later key wins):
 * with one '=' the whole value (quotes trimmed) is one pair, otherwise
 * comma-separated pairs. */
static int parse_label_list(const char *const value, const char *flag, cJSON *obj,
                            struct ts_buf *err)
{
    const char *s = value, *eq = strchr(value, '=');
    int one = eq && !strchr(eq + 1, '=');

    if (!eq)
        return fail(err,
                    "invalid argument \"%s\" for \"--%s\" flag: %s must be formatted as "
                    "key=value",
                    value, flag, value);
    while (*s) {
        size_t n = one ? strlen(s) : strcspn(s, ",");
        char key[320], val[320];

        eq = memchr(s, '=', n);
        if (!eq)
            return fail(err,
                        "invalid argument \"%s\" for \"--%s\" flag: %.*s must be "
                        "formatted as key=value",
                        value, flag, (int)n, s);
        if (one && *s == '"')
            s++, n--;
        if (one && n && s[n - 1] == '"')
            n--;
        snprintf(key, sizeof(key), "%.*s", (int)(eq - s), s);
        snprintf(val, sizeof(val), "%.*s", (int)(s + n - eq - 1), eq + 1);
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
        cJSON_AddStringToObject(obj, key, val);
        s += n + (s[n] == ',' || s[n] == '"');
        if (one)
            break;
    }
    return 0;
}

int ts__kctl_parse_labels(const char *const *items, size_t n, const char *flag, cJSON **out,
                          struct ts_buf *err)
{
    cJSON *obj = cJSON_CreateObject();

    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        int rc = parse_label_list(items[i], flag, obj, err);

        if (rc) {
            cJSON_Delete(obj);
            return rc;
        }
    }
    *out = obj;
    return 0;
}

static cJSON *new_object(const char *kind, const char *name, const char *ns)
{
    cJSON *o = cJSON_CreateObject(), *meta;

    cJSON_AddStringToObject(o, "apiVersion", "kueue.x-k8s.io/v1beta2");
    cJSON_AddStringToObject(o, "kind", kind);
    meta = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(meta, "name", name);
    if (ns)
        cJSON_AddStringToObject(meta, "namespace", ns);
    return o;
}

cJSON *ts__kctl_new_localqueue(const char *name, const char *ns, const char *cq)
{
    cJSON *o = new_object("LocalQueue", name, ns), *status;

    cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "spec"), "clusterQueue", cq);
    status = cJSON_AddObjectToObject(o, "status");
    cJSON_AddNumberToObject(status, "pendingWorkloads", 0);
    cJSON_AddNumberToObject(status, "reservingWorkloads", 0);
    cJSON_AddNumberToObject(status, "admittedWorkloads", 0);
    return o;
}

cJSON *ts__kctl_new_resourceflavor(const char *name, cJSON *labels, cJSON *taints,
                                   cJSON *tolerations)
{
    cJSON *o = new_object("ResourceFlavor", name, NULL), *spec = cJSON_AddObjectToObject(o, "spec");

    if (cJSON_GetArraySize(labels))
        cJSON_AddItemToObject(spec, "nodeLabels", labels), labels = NULL;
    if (cJSON_GetArraySize(taints))
        cJSON_AddItemToObject(spec, "nodeTaints", taints), taints = NULL;
    if (cJSON_GetArraySize(tolerations))
        cJSON_AddItemToObject(spec, "tolerations", tolerations), tolerations = NULL;
    cJSON_Delete(labels);
    cJSON_Delete(taints);
    cJSON_Delete(tolerations);
    return o;
}
