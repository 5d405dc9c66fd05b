/*
 * podtemplate_int.h - raw-JSON surgery shared by the kinds that keep their
 * original object (pod templates, Job, PyTorchJob): write a modelled field
 * into a copy of the original without disturbing its neighbours.
 *
 * Rules every helper follows: a present value replaces the raw key in
 * place (key order kept); an absent value (NULL string, empty map or list)
 * deletes the raw key, except that a raw empty object / null is left alone
 * so that an unchanged document stays identical.
 *
 * Ownership: "put" helpers consume `item`; objects returned are borrowed
 * from the tree passed in.
 */
#ifndef TS_API_PODTEMPLATE_INT_H
#define TS_API_PODTEMPLATE_INT_H

#include <cJSON.h>

#include "api/meta.h"
#include "api/podtemplate.h"
#include "resource/resource_list.h"
#include "util/strmap.h"
#include "util/time.h"

/* obj[key] = item (in place when present); item NULL deletes key.
 * Ownership: consumes item. */
void ts__podtemplate_put(cJSON *obj, const char *key, cJSON *item);
/* obj[key] when it is an object; when `create`, a missing or non-object
 * value is replaced by a new empty object.  Borrowed; NULL when absent and
 * !create. */
cJSON *ts__podtemplate_child(cJSON *obj, const char *key, int create);
/* Deletes obj[key] when it is an object with no members. */
void ts__podtemplate_prune(cJSON *obj, const char *key);
/* Typed puts following the rules above. */
void ts__podtemplate_put_string(cJSON *obj, const char *key, const char *v);
void ts__podtemplate_put_strmap(cJSON *obj, const char *key, const struct ts_strmap *m);
/* A raw list holding the same names and values (in any spelling: 1 vs
 * "1", "1000m") is kept as written. */
void ts__podtemplate_put_resources(cJSON *obj, const char *key, const struct ts_resource_list *l);
/* metav1.Time; a raw value naming the same second is kept as written;
 * 0 deletes. */
void ts__podtemplate_put_time(cJSON *obj, const char *key, ts_time t);
/* obj[key] = the encoded template t, except that an empty template is not
 * added where raw had none. */
void ts__podtemplate_put_template(cJSON *obj, const char *key, const struct ts_pod_template *t);
/* Writes the modelled ObjectMeta fields into obj["metadata"] (created when
 * missing), leaving unmodelled metadata (managedFields, ...) untouched. */
void ts__podtemplate_put_meta(cJSON *obj, const struct ts_object_meta *m);

#endif
