/*
 * workload_checks.h - a Workload's admission check states and its Admitted
 * condition, as Kueue keeps them (pkg/workload/admissionchecks.go and
 * pkg/controller/core/workload_controller.go's syncAdmissionCheckConditions).
 *
 * Pure functions on a typed Workload; `now` is passed in.  Check states
 * are kept sorted by name.  Strings are copied in; nothing returned is
 * owned by the caller unless said.
 */
#ifndef TS_API_WORKLOAD_CHECKS_H
#define TS_API_WORKLOAD_CHECKS_H

#include "api/workload.h"
#include "util/strlist.h"
#include "util/time.h"

/* status.admissionChecks holds exactly the checks in `names`: missing
 * ones are added in state Pending (lastTransitionTime now), others are
 * dropped, the list is sorted by name.  Returns 1 when anything changed. */
int ts_workload_sync_checks(struct ts_workload *wl, const struct ts_strlist *names, ts_time now);

/* 1 when every check state is Ready (vacuously with none). */
int ts_workload_checks_ready(const struct ts_workload *wl);
/* 1 when some check state is `state`. */
int ts_workload_has_check_state(const struct ts_workload *wl, const char *state);
/* The names of the checks in `state`, comma-separated in list order, into
 * buf (truncated to len); returns the first such check or NULL.
 * Borrowed from wl. */
const struct ts_admission_check_state *
ts_workload_checks_in(const struct ts_workload *wl, const char *state, char *buf, size_t len);

/* The latest time a Retry check asked to be retried at
 * (lastTransitionTime + requeueAfterSeconds); 0 when none asks. */
ts_time ts_workload_checks_retry_at(const struct ts_workload *wl);

/* Kueue's SyncAdmittedCondition: Admitted is True exactly when the
 * workload has a quota reservation and every check is Ready; a change
 * writes Kueue's reasons (Admitted, NoReservation, UnsatisfiedChecks,
 * NoReservationUnsatisfiedChecks) and, when Admitted turns False, adds the
 * time it was True to status.accumulatedPastExecutionTimeSeconds
 * (saturating).  Returns 1 when the condition changed. */
int ts_workload_sync_admitted(struct ts_workload *wl, ts_time now);

/* After an eviction every check that is not Pending becomes Pending with
 * message "Reset to Pending after eviction. Previously: <state>"; a Retry
 * check's retryCount grows by one. */
void ts_workload_reset_checks(struct ts_workload *wl, ts_time now);

#endif
