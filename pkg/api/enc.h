/*
 * enc.h - typed writes into cJSON objects, the inverse of dec.h.
 *
 * Absent optional values (NULL strings, unset ts_opt_*, empty maps and
 * lists, zero times) are omitted, matching Go's `omitempty` encoding of
 * Kueue's types, so decode(encode(x)) == x.
 *
 * Ownership: every function adds new items owned by `obj`.
 */
#ifndef TS_API_ENC_H
#define TS_API_ENC_H

#include <cJSON.h>
#include <stdint.h>

#include "api/opt.h"
#include "resource/quantity.h"
#include "resource/resource_list.h"
#include "util/strlist.h"
#include "util/strmap.h"
#include "util/time.h"

/* Returns the child object `key` of obj, creating it when missing.
 * Borrowed (owned by obj). */
cJSON *ts_enc_object(cJSON *obj, const char *key);
/* Adds a new empty array `key`.  Borrowed (owned by obj). */
cJSON *ts_enc_array(cJSON *obj, const char *key);

void ts_enc_string(cJSON *obj, const char *key, const char *v);
void ts_enc_bool(cJSON *obj, const char *key, int v);
void ts_enc_opt_bool(cJSON *obj, const char *key, const struct ts_opt_bool *v);
void ts_enc_int(cJSON *obj, const char *key, int64_t v);
void ts_enc_opt_i32(cJSON *obj, const char *key, const struct ts_opt_i32 *v);
void ts_enc_opt_i64(cJSON *obj, const char *key, const struct ts_opt_i64 *v);
/* Canonical string form ("1536Mi"). */
void ts_enc_quantity(cJSON *obj, const char *key, const struct ts_quantity *q);
void ts_enc_opt_quantity(cJSON *obj, const char *key, const struct ts_opt_quantity *q);
/* metav1.Time; 0 is omitted. */
void ts_enc_time(cJSON *obj, const char *key, ts_time t);
/* Omitted when empty. */
void ts_enc_strmap(cJSON *obj, const char *key, const struct ts_strmap *m);
void ts_enc_strlist(cJSON *obj, const char *key, const struct ts_strlist *l);
void ts_enc_resource_list(cJSON *obj, const char *key, const struct ts_resource_list *l);

#endif
