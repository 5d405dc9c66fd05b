/*
 * trainjob.h - Kubeflow Trainer v2's trainer.kubeflow.org/v1alpha1
 * TrainJob as Kueue's trainjob integration sees it
 * (pkg/controller/jobs/trainjob/trainjob_controller.go): the original JSON
 * (`raw`), typed metadata, spec.suspend, spec.runtimeRef (apiGroup and kind
 * defaulted as the CRD does: trainer.kubeflow.org, ClusterTrainingRuntime)
 * and the status Kueue reads (conditions Complete and Failed, jobsStatus).
 *
 * A TrainJob names no pods itself: its pod sets are those of the JobSet
 * the Trainer would create from the referenced TrainingRuntime
 * (namespaced) or ClusterTrainingRuntime, with the TrainJob's overrides.
 * ts_trainjob_resolve() builds that JobSet (trainjob_jobset.c) from the
 * runtime object the caller looked up; until then the TrainJob has no pod
 * sets.
 *
 * Ownership: struct ts_trainjob owns raw, every typed field and the child
 * JobSet; _release() frees them and re-initialises.  Pure, no shared
 * state.
 */
#ifndef TS_API_TRAINJOB_H
#define TS_API_TRAINJOB_H

#include <cJSON.h>
#include <stddef.h>

#include "api/dec.h"
#include "api/jobset.h"
#include "api/meta.h"
#include "api/opt.h"
#include "util/err.h"

#define TS_TRAINER_GROUP        "trainer.kubeflow.org"
#define TS_TRAINJOB_API_VERSION "trainer.kubeflow.org/v1alpha1"
#define TS_TRAINJOB_KIND        "TrainJob"
#define TS_TRAINER_KIND_TR      "TrainingRuntime"
#define TS_TRAINER_KIND_CTR     "ClusterTrainingRuntime"
/* the spec.runtimePatches entry Kueue owns (runtimePatchManagerName) */
#define TS_TRAINJOB_PATCH_MANAGER "kueue.x-k8s.io/manager"
/* the label that tells the runtime's replicated jobs apart */
#define TS_TRAINER_ANCESTOR_LABEL "trainer.kubeflow.org/trainjob-ancestor-step"

struct ts_trainjob {
    cJSON *raw; /* owned original object; NULL = {} */
    struct ts_object_meta meta;
    struct ts_opt_bool suspend;
    char *runtime_name, *runtime_group, *runtime_kind; /* spec.runtimeRef */
    struct ts_job_condition *conditions;
    size_t n_conditions;
    struct ts_replicated_job_status *statuses; /* status.jobsStatus */
    size_t n_statuses;
    /* ts_trainjob_resolve(): 0 and the child JobSet, or the error (its
     * message in resolve_msg); TS_ENOTFOUND before any resolve */
    int resolve_rc;
    char resolve_msg[256];
    struct ts_jobset child;
};

/* Initialises an empty TrainJob (allocates nothing). */
void ts_trainjob_init(struct ts_trainjob *t);
/* Frees everything t owns and re-initialises it. */
void ts_trainjob_release(struct ts_trainjob *t);

/* Decodes a TrainJob object into t (initialised; previous content
 * released); problems go to d's error list with field paths.
 * Ownership: t keeps a deep copy of obj. */
void ts_trainjob_decode(struct ts_dec *d, const cJSON *obj, struct ts_trainjob *t);

/* 1 when spec.runtimeRef names a ClusterTrainingRuntime (cluster-scoped),
 * 0 for a TrainingRuntime in the TrainJob's namespace, -1 for a kind or
 * group the Trainer has no runtime for. */
int ts_trainjob_runtime_is_cluster(const struct ts_trainjob *t);

/* Builds t's child JobSet from `runtime` (the referenced runtime object,
 * NULL when it does not exist) into t->child.  Returns 0, TS_ENOTFOUND
 * ("runtime 'NAME' not found", Kueue's message) or TS_EINVAL (an
 * unsupported runtime kind, a runtime whose template is not a JobSet
 * template, a patch that does not apply); the same code and message stay
 * in t->resolve_rc / resolve_msg. */
int ts_trainjob_resolve(struct ts_trainjob *t, const cJSON *runtime, struct ts_err *err);

/* The child JobSet of a TrainJob object `job` with runtime object
 * `runtime` (trainjob_jobset.c, see there for what is honoured).  Returns
 * 0 and *out, or TS_EINVAL.  Ownership: the caller cJSON_Delete()s *out. */
int ts_trainjob_jobset_build(const cJSON *job, const cJSON *runtime, cJSON **out,
                             struct ts_err *err);

/* 1 when spec.suspend is true. */
int ts_trainjob_is_suspended(const struct ts_trainjob *t);
/* 1 when the Complete or Failed condition is True (*success: Complete;
 * *message: the condition's; outputs may be NULL). */
int ts_trainjob_is_finished(const struct ts_trainjob *t, int *success, const char **message);
/* 1 when some jobsStatus entry has active > 0 (Kueue's IsActive). */
int ts_trainjob_is_active(const struct ts_trainjob *t);
/* Kueue's PodsReady: ready + succeeded over jobsStatus equals the child
 * JobSet's replicas (0 when unresolved). */
int ts_trainjob_pods_ready(const struct ts_trainjob *t);

/* The spec.runtimePatches entry of manager `manager` in a TrainJob's
 * JSON, or NULL.  Borrowed: a node of job. */
cJSON *ts_trainjob_json_patch(const cJSON *job, const char *manager);

#endif
