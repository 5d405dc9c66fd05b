/*
 * sim.h - the simulator: Kueue objects in, the engine's decisions applied,
 * Workloads with their resulting status out.  Pure (no I/O, time passed
 * in); `turnstilectl simulate` and the scenario tests drive it, and both
 * therefore see exactly what the controller's engine decides.
 *
 * Objects are added as JSON trees (any supported kind, v1beta1 or
 * v1beta2).  Jobs and Kubeflow jobs carrying a queue name become Workloads as
 * the controller would build them.  Every cycle's decisions are applied at
 * once (admissions confirmed) to the simulated Workloads.
 *
 * Ownership: the simulator copies what it is given; workloads returned by
 * ts_sim_workload() are borrowed until the simulator changes or is freed.
 */
#ifndef TS_SIM_H
#define TS_SIM_H

#include <cJSON.h>
#include <stddef.h>

#include "api/field.h"
#include "api/workload.h"
#include "engine/engine.h"
#include "util/err.h"
#include "util/time.h"

struct ts_sim;

/* Ownership: caller frees with ts_sim_free(). */
struct ts_sim *ts_sim_new(const struct ts_engine_config *config);
void ts_sim_free(struct ts_sim *s);

/* Adds (or replaces, by kind/namespace/name) one object at time `now`.
 * Returns 0, TS_EUNSUPPORTED (kind not modelled; message names apiVersion
 * and kind) or TS_EINVAL (decode errors, every field named in the message). */
int ts_sim_add(struct ts_sim *s, const cJSON *obj, ts_time now, struct ts_err *err);
/* Same, also copying the field errors (decode or validation) into errs
 * when it is not NULL, so a caller can point at the offending line. */
int ts_sim_add_errs(struct ts_sim *s, const cJSON *obj, ts_time now, struct ts_field_errors *errs,
                    struct ts_err *err);

/* Cycles ts_sim_run(..., 0, ...) runs at most: decisions that still
 * change after that many (workloads preempting each other in turn) never
 * settle, and the run stops there instead of spinning. */
#define TS_SIM_SETTLE_CAP 1000

/* Runs scheduling cycles until one changes nothing (max_cycles 0: or
 * TS_SIM_SETTLE_CAP have changed something) or max_cycles have run;
 * returns the number of cycles that changed something.  Admissions are
 * confirmed and written into the workloads; stopPolicy HoldAndDrain
 * evicts before each cycle. */
size_t ts_sim_run(struct ts_sim *s, size_t max_cycles, ts_time now);

/* Marks a workload Finished (reason Succeeded) and releases its quota, as
 * the job finishing would.  Returns TS_ENOTFOUND for unknown names. */
int ts_sim_finish(struct ts_sim *s, const char *ns, const char *name, ts_time now);
/* Deletes a workload.  Returns TS_ENOTFOUND for unknown names. */
int ts_sim_delete(struct ts_sim *s, const char *ns, const char *name);

/* The simulated workloads, in the order they were added. Borrowed. */
size_t ts_sim_n_workloads(const struct ts_sim *s);
const struct ts_workload *ts_sim_workload(const struct ts_sim *s, size_t i);
/* The workload called ns/name, or NULL. Borrowed. */
const struct ts_workload *ts_sim_find(const struct ts_sim *s, const char *ns, const char *name);

/* The ClusterQueues and Cohorts added so far, each with the status the
 * controller would write now (counts, flavor reservations and usage,
 * Active, and fairSharing.weightedShare with fair sharing), sorted by kind
 * then name.  Ownership: caller cJSON_Delete()s the array. */
cJSON *ts_sim_queues(const struct ts_sim *s, ts_time now);

/* The engine (for statistics). Borrowed. */
struct ts_engine *ts_sim_engine(struct ts_sim *s);

#endif
