/*
 * podgroup.h - the pod-group reconciler's decisions (Kueue's pod
 * integration for Pods labelled kueue.x-k8s.io/pod-group-name, with
 * kueue.x-k8s.io/pod-group-total-count; pkg/controller/jobs/pod), as a pure
 * function of the group's members and its Workload, like jobplan.h for one
 * job.
 *
 * Rules, in Kueue's order:
 *   - a finished Workload: every member's finalizer kueue.x-k8s.io/managed
 *     goes;
 *   - the group finished (as many members succeeded as the total count, or
 *     an unretriable group - some member annotated
 *     kueue.x-k8s.io/retriable-in-group=false - with none left running; a
 *     serving group, kueue.x-k8s.io/pod-group-serving, never finishes):
 *     the Workload is finished "Pods succeeded: n/total." and the members
 *     finalized;
 *   - failed members are finalized (they never run again; a replacement
 *     may come);
 *   - no Workload: the members that can run (not failed, not deleted
 *     before being scheduled) must agree on the queue name and the total
 *     count (else an ErrWorkloadCompose event, nothing else); fewer of them
 *     than the total: the event "'<group>' group has fewer runnable pods
 *     than expected" and wait; more: the excess (the newest, gated first,
 *     without a finalizer first) is deleted with an ExcessPodDeleted event;
 *     then the Workload (api/jobworkload.h ts_jobworkload_from_pod_group())
 *     is created;
 *   - a Workload: members it does not list as owners are added (Kueue's
 *     EnsureWorkloadOwnedByAllMembers); the workload controller's own steps
 *     (ts_jobplan_make_standalone(): deactivation, backoff, checks); evicted
 *     or not admitted: every running member is deleted (Kueue's Pod.Stop),
 *     and once none runs the quota is released; admitted: every gated
 *     member is ungated with its role's flavors injected (a replacement
 *     pod of a running group starts so too).
 * A member being deleted counts as no longer running (Kueue's
 * FastQuotaReleaseInPodIntegration) and loses its finalizer.
 */
#ifndef TS_CONTROLLER_PODGROUP_H
#define TS_CONTROLLER_PODGROUP_H

#include <cJSON.h>
#include <stddef.h>

#include "controller/jobplan.h"

struct ts_podgroup_plan {
    /* the Workload's writes (base.ops: CREATE_WORKLOAD, UPDATE_WORKLOAD,
     * WORKLOAD_STATUS), its metric and one event (on base.event_pod) */
    struct ts_jobplan base;
    const char *event_pod; /* borrowed from the members: the event's object */
    cJSON **updates;       /* owned: members to write back (ungated, finalized) */
    size_t n_updates;
    char **deletes; /* owned: names of members to delete */
    size_t n_deletes;
};

void ts_podgroup_plan_init(struct ts_podgroup_plan *p);
void ts_podgroup_plan_release(struct ts_podgroup_plan *p);

/* Plans group `group` whose members are pods[0..n) (JSON
 * as the API server returned them) and whose Workload is wl (NULL: none).
 * Returns 0 (p may plan nothing).  Ownership: p owns what it holds; pods
 * and wl stay the caller's. */
int ts_podgroup_plan_make(const char *group, cJSON *const *pods, size_t n,
                          const struct ts_workload *wl, const struct ts_jobplan_env *env,
                          ts_time now, struct ts_podgroup_plan *p);

#endif
