/*
 * jobplan_int.h - what the job reconciler's planning files share
 * (jobplan.c: the job's life; checkplan.c: admission checks).
 */
#ifndef TS_CONTROLLER_JOBPLAN_INT_H
#define TS_CONTROLLER_JOBPLAN_INT_H

#include "controller/jobplan.h"

/* Sets the plan's event (type, reason, printf message). */
void ts__jobplan_event(struct ts_jobplan *p, const char *type, const char *reason, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));

/* Kueue's workload controller on admission checks
 * (pkg/controller/core/workload_controller.go): status.admissionChecks
 * kept to env->checks; a reserved Workload whose checks are all Ready
 * becomes Admitted; a Rejected check deactivates it (DeactivationTarget
 * AdmissionCheck); a Retry check first moves requeueState.requeueAt to the
 * latest time a Retry check asked for, then evicts it (AdmissionCheck,
 * checks reset to Pending).  Returns 1 when it planned a write (nothing
 * else is planned then). */
int ts__jobplan_checks(const struct ts_workload *wl, const struct ts_jobplan_env *env, ts_time now,
                       struct ts_jobplan *p);

#endif
