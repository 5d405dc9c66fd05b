/*
 * convert_int.h - per-kind conversion hooks used by convert.c.
 *
 * Each hook rewrites obj in place between v1beta1 and v1beta2 field shapes
 * (apiVersion is set by the caller).  Hooks may stash fields the target
 * cannot express in the TS_CONVERT_ANNOTATION annotation and must restore
 * them from it when converting back.
 */
#ifndef TS_API_CONVERT_INT_H
#define TS_API_CONVERT_INT_H

#include <cJSON.h>

#include "util/err.h"

int ts__convert_cluster_queue_up(cJSON *obj, struct ts_err *err);   /* v1beta1 -> v1beta2 */
int ts__convert_cluster_queue_down(cJSON *obj, struct ts_err *err); /* v1beta2 -> v1beta1 */
int ts__convert_local_queue_up(cJSON *obj, struct ts_err *err);
int ts__convert_local_queue_down(cJSON *obj, struct ts_err *err);
int ts__convert_workload_up(cJSON *obj, struct ts_err *err);
int ts__convert_workload_down(cJSON *obj, struct ts_err *err);

/* Conversion-data annotation helpers (shared by the hooks): stash moves
 * obj's field at `path` (dotted, e.g. "spec.concurrentAdmissionPolicy")
 * into the annotation; restore moves it back. */
void ts__convert_stash(cJSON *obj, const char *path);
void ts__convert_restore(cJSON *obj, const char *path);

#endif
