/*
 * leader.h - leader election on a coordination.k8s.io/v1 Lease, with
 * client-go's algorithm and defaults (lease 15 s, renew deadline 10 s,
 * retry period 2 s).
 *
 * Every retry period a candidate reads the Lease.  It takes the Lease when
 * it does not exist, has no holder, or its record has not changed for a
 * whole lease duration as measured on this machine's monotonic clock
 * (never the server's timestamps, so clock skew cannot cause two leaders);
 * it writes holderIdentity, renewTime, acquireTime, leaseTransitions with
 * the Lease's resourceVersion, so of two racing candidates one gets 409.
 * The leader renews every retry period.
 *
 * Losing: the instance is leader only while its last successful renewal
 * is younger than the renew deadline.  The elector installs a write gate
 * on the client (client.h): from the moment that condition fails, every
 * write that is not the Lease itself fails with TS_EFORBIDDEN, before the
 * next tick even notices; on_stopped_leading then runs.
 *
 * ts_leader_release() (clean shutdown) closes the gate, then writes the
 * Lease with an empty holder and leaseDurationSeconds 1 so a successor
 * takes over at its next retry instead of after a lease duration.
 *
 * Thread rule: loop thread only.  Ownership: borrows the client; strings
 * in the options are copied.
 */
#ifndef TS_KUBE_LEADER_H
#define TS_KUBE_LEADER_H

#include <stdint.h>

#include "kube/client.h"

struct ts_leader;

struct ts_leader_opts {
    const char *ns, *name;  /* the Lease */
    const char *identity;   /* this instance (hostname + random suffix) */
    int64_t lease_duration; /* 0: 15 s */
    int64_t renew_deadline; /* 0: 10 s */
    int64_t retry_period;   /* 0: 2 s */
    void (*on_started_leading)(struct ts_leader *l, void *data);
    void (*on_stopped_leading)(struct ts_leader *l, void *data);
    void (*on_new_leader)(struct ts_leader *l, const char *identity, void *data);
    void *data;
};

/* Creates an elector and installs the write gate on c.  Returns NULL with
 * err set (TS_EINVAL: missing names, renew deadline not below the lease
 * duration, retry period not below the renew deadline). */
struct ts_leader *ts_leader_new(struct ts_kube_client *c, const struct ts_leader_opts *o,
                                struct ts_err *err);

/* Starts campaigning (first attempt right away). */
void ts_leader_start(struct ts_leader *l);

/* Whether this instance leads now (the same test as the write gate). */
int ts_leader_is_leader(const struct ts_leader *l);

/* The holder last observed ("" when none).  Borrowed. */
const char *ts_leader_holder(const struct ts_leader *l);

/* Gives the Lease up if held and stops campaigning; `done` (may be NULL)
 * runs when the release write finished (at once when not leader). */
void ts_leader_release(struct ts_leader *l, void (*done)(struct ts_leader *l, void *data),
                       void *data);

/* Stops (without releasing: a crash, as far as others can tell), removes
 * the gate and frees.  NULL ok. */
void ts_leader_free(struct ts_leader *l);

#endif
