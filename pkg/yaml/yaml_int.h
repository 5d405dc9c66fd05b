/*
 * yaml_int.h - private to pkg/yaml: scalar resolution (go-yaml v2 rules),
 * float formatting, and the per-document line map.
 */
#ifndef TS_YAML_INT_H
#define TS_YAML_INT_H

#include <stddef.h>
#include <stdint.h>

#include "yaml/yaml.h"

enum ts__yaml_kind {
    TS__YAML_STR = 0,
    TS__YAML_NULL,
    TS__YAML_BOOL,
    TS__YAML_INT,       /* fits int64: .i */
    TS__YAML_UINT,      /* above INT64_MAX: .u */
    TS__YAML_FLOAT,     /* .d, may be infinite or NaN */
    TS__YAML_TIMESTAMP, /* decodes as a string; quoted on output */
};

struct ts__yaml_scalar {
    enum ts__yaml_kind kind;
    int b;
    int64_t i;
    uint64_t u;
    double d;
};

/* Resolves the plain (unquoted, untagged) scalar s[0..len) as go-yaml v2
 * does (see yaml.h). */
void ts__yaml_resolve_plain(const char *s, size_t len, struct ts__yaml_scalar *out);

/* Whether the string s[0..len) must be quoted to read back as a string
 * (it resolves to another type, a timestamp or a base-60 number).  As a
 * map key "<<" must be quoted too (the caller checks that). */
int ts__yaml_needs_quotes(const char *s, size_t len);

/* go's strconv.FormatFloat(v, 'g', -1, bits) for finite v, bits 32 or 64,
 * into out (at least 32 bytes); a value that is not finite (after the
 * float32 rounding) gives sigs.k8s.io/yaml's ".inf", "-.inf", ".nan". */
void ts__yaml_format_float(double v, int bits, char *out, size_t size);

/* Line map node: one per tree node, children in tree order. */
struct ts__yaml_loc {
    int line;
    unsigned char is_array;
    unsigned char merged; /* member came from a "<<" merge (may be overridden) */
    char *key;            /* member name when the parent is a mapping */
    size_t n;
    size_t cap;
    struct ts__yaml_loc *kids;
};

/* Frees what l owns (not l itself) and zeroes it. */
void ts__yaml_loc_release(struct ts__yaml_loc *l);

/* Deep copy of src into dst (dst is overwritten, not released). */
void ts__yaml_loc_copy(struct ts__yaml_loc *dst, const struct ts__yaml_loc *src);

/* Appends *child to parent under `key` (NULL for sequence items).
 * Ownership: child's contents move into parent; *child is zeroed. */
void ts__yaml_loc_add(struct ts__yaml_loc *parent, struct ts__yaml_loc *child, const char *key);

/* Replaces parent->kids[i] with *child (moved), keeping the key. */
void ts__yaml_loc_replace(struct ts__yaml_loc *parent, size_t i, struct ts__yaml_loc *child);

/* Line of the deepest node on `path` that exists (json/json.h syntax). */
int ts__yaml_loc_find(const struct ts__yaml_loc *root, const char *path);

/* Frees the documents of s from index n on (s->n becomes n). */
void ts__yaml_stream_truncate(struct ts_yaml_stream *s, size_t n);

#endif
