/*
 * yaml_encode.c - cJSON trees to YAML through libyaml's emitter (go-yaml v2,
 * which kubectl uses, is a port of the same emitter, so indentation,
 * folding and quoting fall-backs match kubectl -o yaml).  This file only
 * decides what go-yaml decides before the emitter: the scalar style, the
 * number format and the key order.
 */
#include "yaml/yaml_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/alloc.h"

#define MAX_EXACT 9007199254740992.0 /* 2^53 */

struct enc {
    yaml_emitter_t em;
    struct ts_buf *out;
    unsigned flags;
    int overflow;
    struct ts_err *err;
};

static int write_out(void *data, unsigned char *buffer, size_t size)
{
    struct enc *e = data;

    if (ts_buf_add(e->out, buffer, size)) {
        e->overflow = 1;
        return 0;
    }
    return 1;
}

/* Emits ev (libyaml frees it, also on failure). */
static int emit(struct enc *e, yaml_event_t *ev)
{
    if (yaml_emitter_emit(&e->em, ev))
        return 0;
    if (e->overflow)
        return ts_err_set(e->err, TS_EOVERFLOW, "yaml: output exceeds the buffer limit of %zu",
                          e->out->max);
    return ts_err_set(e->err, TS_EINVAL, "yaml: cannot encode: %s",
                      e->em.problem ? e->em.problem : "emitter error");
}

static int scalar(struct enc *e, const char *s, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    size_t len = strlen(s);

    if (len > INT32_MAX || !yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s,
                                                         (int)len, 1, 1, style))
        return ts_err_set(e->err, TS_EINVAL, "yaml: cannot encode string (invalid UTF-8?)");
    return emit(e, &ev);
}

/* go-yaml's choice: multi-line -> literal block; reads back as another
 * type -> double quoted; else plain (the emitter falls back to single
 * quotes when plain style cannot hold the text, and to double quotes
 * for CR, NEL, LS, PS, which no other style keeps). */
static int string(struct enc *e, const char *s, int is_key)
{
    size_t len = strlen(s);

    if (memchr(s, '\n', len))
        return scalar(e, s, YAML_LITERAL_SCALAR_STYLE);
    if (ts__yaml_needs_quotes(s, len) || (is_key && !strcmp(s, "<<")))
        return scalar(e, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    return scalar(e, s, YAML_PLAIN_SCALAR_STYLE);
}

static int number(struct enc *e, double d)
{
    char buf[40];

    if (!isfinite(d))
        return ts_err_set(e->err, TS_EINVAL, "yaml: cannot encode a non-finite number");
    if (floor(d) == d && fabs(d) <= MAX_EXACT)
        snprintf(buf, sizeof(buf), "%.0f", d == 0 ? 0.0 : d);
    else
        ts__yaml_format_float(d, 64, buf, sizeof(buf));
    return scalar(e, buf, YAML_PLAIN_SCALAR_STYLE);
}

/* Raw nodes are accepted when they hold a canonical decimal integer (the
 * decoder's form for integers beyond 2^53). */
static int raw(struct enc *e, const char *s)
{
    const char *p = s && *s == '-' ? s + 1 : s;
    size_t n = p ? strspn(p, "0123456789") : 0;

    if (!p || n == 0 || p[n] != '\0' || (p[0] == '0' && n > 1))
        return ts_err_set(e->err, TS_EINVAL, "yaml: cannot encode raw JSON '%s'", s ? s : "");
    return scalar(e, s, YAML_PLAIN_SCALAR_STYLE);
}

static int is_letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Value of the run of digits at s[i] appended to v (wrapping like go's
 * int64); *end is set past the run. */
static uint64_t digit_run(const unsigned char *s, size_t i, uint64_t v, size_t *end)
{
    for (; is_digit(s[i]); i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    *end = i;
    return v;
}

/* go-yaml's quirk: when either differing byte is '0' and the digits just
 * before it are not all zeros, both numbers start from 1. */
static uint64_t zero_quirk(const unsigned char *a, const unsigned char *b, size_t i)
{
    if (a[i] != '0' && b[i] != '0')
        return 0;
    for (size_t j = i; j > 0 && is_digit(a[j - 1]); j--)
        if (a[j - 1] != '0')
            return 1;
    return 0;
}

/* go-yaml v2 keyList.Less for two string keys (bytes instead of runes,
 * non-ASCII counted as letters): non-letters before letters, runs of
 * digits compared by value ("a9" < "a10").  go's comparison is not
 * transitive for some digit/letter mixes ("01", "0a", "1"); there the
 * order can differ from kubectl's. */
static int key_less(const unsigned char *a, const unsigned char *b)
{
    size_t i, ai, bi;
    uint64_t an, bn;

    for (i = 0; a[i] && a[i] == b[i]; i++)
        ;
    if (!a[i] || !b[i])
        return !a[i] && b[i];
    if (is_letter(a[i]) || is_letter(b[i]))
        return is_letter(a[i]) && is_letter(b[i]) ? a[i] < b[i] : is_letter(b[i]);
    an = digit_run(a, i, zero_quirk(a, b, i), &ai);
    bn = digit_run(b, i, zero_quirk(a, b, i), &bi);
    if (an != bn)
        return (int64_t)an < (int64_t)bn;
    if (ai != bi)
        return ai < bi;
    return a[i] < b[i];
}

struct member {
    const cJSON *node;
    size_t index;
};

static int member_cmp(const void *pa, const void *pb)
{
    const struct member *a = pa, *b = pb;
    const unsigned char *ka = (const unsigned char *)(a->node->string ? a->node->string : "");
    const unsigned char *kb = (const unsigned char *)(b->node->string ? b->node->string : "");

    if (key_less(ka, kb))
        return -1;
    if (key_less(kb, ka))
        return 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static int node(struct enc *e, const cJSON *v);

static int mapping(struct enc *e, const cJSON *v)
{
    struct member *m = NULL;
    size_t n = 0, cap = 0;
    yaml_event_t ev;
    int rc;

    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    rc = emit(e, &ev);
    for (const cJSON *c = v->child; c; c = c->next) {
        TS_GROW(m, cap, n + 1);
        m[n].node = c;
        m[n].index = n;
        n++;
    }
    if (e->flags & TS_YAML_SORT_KEYS && n > 1)
        qsort(m, n, sizeof(*m), member_cmp);
    for (size_t i = 0; i < n && !rc; i++) {
        rc = string(e, m[i].node->string ? m[i].node->string : "", 1);
        if (!rc)
            rc = node(e, m[i].node);
    }
    free(m);
    if (rc)
        return rc;
    yaml_mapping_end_event_initialize(&ev);
    return emit(e, &ev);
}

static int sequence(struct enc *e, const cJSON *v)
{
    yaml_event_t ev;
    int rc;

    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
    rc = emit(e, &ev);
    for (const cJSON *c = v->child; c && !rc; c = c->next)
        rc = node(e, c);
    if (rc)
        return rc;
    yaml_sequence_end_event_initialize(&ev);
    return emit(e, &ev);
}

static int node(struct enc *e, const cJSON *v)
{
    switch (v->type & 0xff) {
    case cJSON_NULL:
        return scalar(e, "null", YAML_PLAIN_SCALAR_STYLE);
    case cJSON_False:
        return scalar(e, "false", YAML_PLAIN_SCALAR_STYLE);
    case cJSON_True:
        return scalar(e, "true", YAML_PLAIN_SCALAR_STYLE);
    case cJSON_Number:
        return number(e, v->valuedouble);
    case cJSON_String:
        return string(e, v->valuestring ? v->valuestring : "", 0);
    case cJSON_Raw:
        return raw(e, v->valuestring);
    case cJSON_Array:
        return sequence(e, v);
    case cJSON_Object:
        return mapping(e, v);
    default:
        return ts_err_set(e->err, TS_EINVAL, "yaml: cannot encode an invalid cJSON node");
    }
}

static int document(struct enc *e, const cJSON *root)
{
    yaml_event_t ev;
    int rc;

    if (!root)
        return ts_err_set(e->err, TS_EINVAL, "yaml: cannot encode a missing document");
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    if ((rc = emit(e, &ev)) || (rc = node(e, root)))
        return rc;
    yaml_document_end_event_initialize(&ev, 1);
    return emit(e, &ev);
}

static int stream(struct enc *e, const cJSON *const *roots, size_t n)
{
    yaml_event_t ev;
    int rc;

    yaml_emitter_set_output(&e->em, write_out, e);
    yaml_emitter_set_encoding(&e->em, YAML_UTF8_ENCODING);
    yaml_emitter_set_unicode(&e->em, 1);
    yaml_emitter_set_indent(&e->em, 2);
    yaml_emitter_set_width(&e->em, 80);
    yaml_emitter_set_break(&e->em, YAML_LN_BREAK);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    rc = emit(e, &ev);
    for (size_t i = 0; i < n && !rc; i++)
        rc = document(e, roots[i]);
    if (rc)
        return rc;
    yaml_stream_end_event_initialize(&ev);
    if ((rc = emit(e, &ev)))
        return rc;
    if (!yaml_emitter_flush(&e->em))
        return ts_err_set(e->err, e->overflow ? TS_EOVERFLOW : TS_EINVAL, "yaml: cannot flush");
    return 0;
}

int ts_yaml_encode_stream(const cJSON *const *roots, size_t n, unsigned flags, struct ts_buf *out,
                          struct ts_err *err)
{
    struct enc e;
    size_t start = out->len;
    int rc;

    memset(&e, 0, sizeof(e));
    e.out = out;
    e.flags = flags;
    e.err = err;
    if (!yaml_emitter_initialize(&e.em))
        return ts_err_set(err, TS_ENOMEM, "yaml: cannot initialise the emitter");
    rc = stream(&e, roots, n);
    yaml_emitter_delete(&e.em);
    if (rc && out->cap) {
        out->len = start;
        out->ptr[start] = '\0';
    }
    return rc;
}

int ts_yaml_encode(const cJSON *root, unsigned flags, struct ts_buf *out, struct ts_err *err)
{
    return ts_yaml_encode_stream(&root, 1, flags, out, err);
}
