/*
 * unhonoured.h - the fields of Kueue's kinds and of its Configuration that
 * Turnstile accepts but does not act upon yet ("not yet" in
 * docs/compatibility.md), and which of them an object sets.
 *
 * One table serves the webhook (a warning per field in the admission
 * response), the controller (a log line and a Warning Event), `turnstile
 * --config` (a log line per field) and the test that holds the table and
 * docs/compatibility.md to each other.  Honouring a field means deleting
 * its entry here and changing its row there.
 *
 * Paths are v1beta2 spellings; "[]" stands for every item of a list.  A
 * field is set when present with a value other than null, "", [] or {}
 * (and other than the entry's benign value, a setting that asks for what
 * Turnstile does anyway).
 *
 * Pure: no I/O, no globals.  Ownership: the table is static; paths
 * appended to a list are copies the list owns.
 */
#ifndef TS_API_UNHONOURED_H
#define TS_API_UNHONOURED_H

#include <cJSON.h>
#include <stddef.h>

#include "util/strlist.h"

/* The kind of the Configuration's entries. */
#define TS_UNHONOURED_CONFIG "Configuration"

/* What follows the path in every warning. */
#define TS_UNHONOURED_SUFFIX ": accepted but not yet honoured by Turnstile (docs/compatibility.md)"

struct ts_unhonoured_field {
    const char *kind;   /* "ClusterQueue", ..., or TS_UNHONOURED_CONFIG */
    const char *path;   /* v1beta2 path, as in docs/compatibility.md */
    const char *benign; /* a string value that is not reported, or, for an
                         * object, the comma-separated keys that are not; NULL */
};

/* The whole table, in docs/compatibility.md's order; *n gets its length.
 * Static storage. */
const struct ts_unhonoured_field *ts_unhonoured_table(size_t *n);

/* Appends to out the path of every not-yet-honoured field that obj sets.
 * obj is a kueue.x-k8s.io object of any kind, v1beta1 (converted on a copy
 * first) or v1beta2; for anything else nothing is appended.  Returns the
 * number of paths appended.  Ownership: obj borrowed; out owns the
 * copies. */
size_t ts_unhonoured_fields(const cJSON *obj, struct ts_strlist *out);

/* The same for a Configuration (config.kueue.x-k8s.io, either version);
 * nothing for another object. */
size_t ts_unhonoured_config_fields(const cJSON *cfg, struct ts_strlist *out);

#endif
