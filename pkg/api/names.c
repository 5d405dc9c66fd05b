#include "api/names.h"

#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

#define DNS1123_LABEL_MSG                                                                          \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "       \
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "       \
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define DNS1123_SUBDOMAIN_MSG                                                                      \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "       \
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define QUALIFIED_NAME_MSG                                                                         \
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "      \
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "      \
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_MSG                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is "                                       \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

static int lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* The patterns, whatever the length (the limits are checked apart, with
 * messages of their own). */
static int label_chars(const char *s, size_t n)
{
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!lower_alnum(s[i]) && s[i] != '-')
            return 0;
    }
    return 1;
}

/* Dot-separated labels; those inside a subdomain have no 63-char limit of
 * their own. */
static int subdomain_pattern(const char *v)
{
    for (;;) {
        const char *dot = strchr(v, '.');
        size_t len = dot ? (size_t)(dot - v) : strlen(v);

        if (!label_chars(v, len))
            return 0;
        if (!dot)
            return 1;
        v = dot + 1;
    }
}

static int name_pattern(const char *s, size_t n)
{
    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    }
    return 1;
}

int ts_names_is_dns1123_label(const char *v)
{
    size_t n = strlen(v);

    return n <= 63 && label_chars(v, n);
}

int ts_names_is_dns1123_subdomain(const char *v)
{
    return strlen(v) <= 253 && subdomain_pattern(v);
}

static int name_part(const char *s, size_t n)
{
    return n <= 63 && name_pattern(s, n);
}

int ts_names_is_qualified(const char *v)
{
    const char *slash = strchr(v, '/');
    char prefix[254];
    size_t plen;

    if (!slash)
        return name_part(v, strlen(v));
    plen = (size_t)(slash - v);
    if (plen == 0 || plen >= sizeof(prefix) || strchr(slash + 1, '/'))
        return 0;
    memcpy(prefix, v, plen);
    prefix[plen] = '\0';
    return ts_names_is_dns1123_subdomain(prefix) && name_part(slash + 1, strlen(slash + 1));
}

int ts_names_is_label_value(const char *v)
{
    size_t n = strlen(v);

    return n == 0 || name_part(v, n);
}

/* The messages are apimachinery's: DNS names say "characters"
 * (pkg/util/validation), label keys and values "bytes"
 * (pkg/api/validate/content); every rule broken gives its own error. */
int ts_names_dns1123_label(const char *v, const char *path, struct ts_field_errors *errs)
{
    int n = 0;

    if (strlen(v) > 63) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1,
                            "must be no more than 63 characters");
        n++;
    }
    if (label_chars(v, strlen(v)))
        return n;
    if (subdomain_pattern(v))
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "must not contain dots");
    else
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "%s", DNS1123_LABEL_MSG);
    return n + 1;
}

/* The DNS-1123 subdomain errors of v, each message after `prefix`,
 * showing `shown` as the bad value. */
static int subdomain_errors(const char *v, const char *shown, const char *prefix, const char *unit,
                            const char *path, struct ts_field_errors *errs)
{
    int n = 0;

    if (strlen(v) > 253) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, shown, 1, "%smust be no more than 253 %s",
                            prefix, unit);
        n++;
    }
    if (!subdomain_pattern(v)) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, shown, 1, "%s%s", prefix,
                            DNS1123_SUBDOMAIN_MSG);
        n++;
    }
    return n;
}

int ts_names_dns1123_subdomain(const char *v, const char *path, struct ts_field_errors *errs)
{
    return subdomain_errors(v, v, "", "characters", path, errs);
}

int ts_names_qualified(const char *v, const char *path, struct ts_field_errors *errs)
{
    const char *slash = strchr(v, '/');
    const char *name = slash ? slash + 1 : v;
    size_t nlen = strlen(name);
    int n = 0;

    if (slash && strchr(name, '/')) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1,
                            "a valid label key %s with an optional DNS subdomain prefix and '/' "
                            "(e.g. 'example.com/MyName')",
                            QUALIFIED_NAME_MSG + strlen("name part "));
        return 1;
    }
    if (slash) {
        size_t plen = (size_t)(slash - v);
        char *prefix = ts_xstrndup(v, plen);

        if (plen == 0) {
            ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1,
                                "prefix part must be non-empty");
            n++;
        } else {
            n += subdomain_errors(prefix, v, "prefix part ", "bytes", path, errs);
        }
        free(prefix);
    }
    if (nlen == 0) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "name part must be non-empty");
        n++;
    } else if (nlen > 63) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1,
                            "name part must be no more than 63 bytes");
        n++;
    }
    if (!name_pattern(name, nlen)) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "%s", QUALIFIED_NAME_MSG);
        n++;
    }
    return n;
}

int ts_names_label_value(const char *v, const char *path, struct ts_field_errors *errs)
{
    size_t len = strlen(v);
    int n = 0;

    if (len > 63) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "must be no more than 63 bytes");
        n++;
    }
    if (len && !name_pattern(v, len)) {
        ts_field_errors_add(errs, TS_FIELD_INVALID, path, v, 1, "%s", LABEL_VALUE_MSG);
        n++;
    }
    return n;
}
