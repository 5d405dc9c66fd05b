/*
 * admissioncheck.h - what the engine needs of a kueue.x-k8s.io
 * AdmissionCheck (any served version): its name, the controller that
 * answers it (spec.controllerName) and whether that controller set its
 * status condition Active to True.
 */
#ifndef TS_API_ADMISSIONCHECK_H
#define TS_API_ADMISSIONCHECK_H

#include <cJSON.h>

/* 1 when obj's apiVersion is in group kueue.x-k8s.io and its kind is
 * AdmissionCheck. */
int ts_admission_check_is(const cJSON *obj);

/* Reads obj: *name and *controller are borrowed from obj (NULL when
 * absent), *active is 1 when condition Active has status True.  Returns
 * 0, or -1 when metadata.name is missing. */
int ts_admission_check_read(const cJSON *obj, const char **name, const char **controller,
                            int *active);

#endif
