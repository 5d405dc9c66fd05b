/* fence.c - the start fence of a controller run without leader election.
 *
 * A controller killed in the middle of a write leaves that write to the
 * API server, which may still carry it out after a successor has started.
 * With leader election the successor waits the Lease out first; without
 * it, a successor restarted at once could list the Workloads before the
 * predecessor's last admission lands and admit into the same quota.
 *
 * So, without leader election, the controller first writes an object of
 * its own (the Lease FENCE_NAME in the lease namespace) and decides nothing
 * until every informer has observed a resourceVersion at or past the one
 * that write got (ts__ctl_fence_seen()).
 *
 * Invariant: once ts__ctl_fence_seen() holds, every informer's store
 * reflects every write of a dead predecessor that the server ever carries
 * out.  Why:
 *  - kube-apiserver + etcd: a resourceVersion is etcd's revision, one
 *    counter for every resource of the etcd (so the fence must live in the
 *    etcd of the Workloads: --etcd-servers-overrides splits off Events,
 *    never Leases).  etcd applies transactions in the order of its raft log,
 *    so a transaction proposed before our fence's has a lower revision, and
 *    an informer at revision >= F (a list at or past F, or a watch, which
 *    delivers in revision order, past F) has seen it.  A read alone does
 *    not give this: a linearizable read waits for what was committed when
 *    it arrived, not for what was proposed and still committing.  A write
 *    proposed after our fence would have to come from a request whose
 *    client was gone before we started (the kernel closes a killed
 *    process's connections as it exits); kube-apiserver cancels a request's
 *    context when its client disconnects and a cancelled request never
 *    reaches etcd.  What remains is a request between that check and
 *    etcd at the moment our fence is proposed: the API server has noticed
 *    the disconnect (milliseconds) later than we have started, listed
 *    the served kinds and written the fence.
 *  - turnstile-apiserver: one store lock orders every write, and a write
 *    whose client has gone is refused under that lock (pkg/apiserver/
 *    http.c), so every write of a dead predecessor either took the lock
 *    before it died or never lands: it precedes our fence exactly.
 *
 * A server whose resourceVersions are not numbers cannot be compared: the
 * fence is then skipped with a warning, as it is when the Lease cannot be
 * written (no such namespace, forbidden): run with --leader-elect there.
 */
#include "controller/manager_int.h"
#include "json/json.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/time.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FENCE_NAME "turnstile-start-fence"
#define ROUNDS     5
/* an informer still behind the fence this long is named in the log */
#define SLOW_NS (5 * TS_TIME_SECOND)

/* A resourceVersion as a number, or -1. */
static int64_t rv_num(const char *rv)
{
    int64_t v;

    return rv && rv[0] && !ts_parse_i64_c(rv, &v) && v >= 0 ? v : -1;
}

/* The Lease to write: `old` (read back, consumed) or a new one. */
static cJSON *lease_of(struct ts_ctl *c, cJSON *old, const char *ns)
{
    cJSON *l = old ? old : cJSON_CreateObject();
    char now[TS_TIME_STR_MAX], ident[300], host[256] = "turnstile";

    gethostname(host, sizeof(host) - 1);
    snprintf(ident, sizeof(ident), "%s_%ld", host, (long)getpid());
    ts_time_format_micro(ts_loop_wall(c->loop), now, sizeof(now));
    ts_json_set_string(l, "apiVersion", "coordination.k8s.io/v1", NULL);
    ts_json_set_string(l, "kind", "Lease", NULL);
    ts_json_set_string(l, "metadata.name", FENCE_NAME, NULL);
    ts_json_set_string(l, "metadata.namespace", ns, NULL);
    ts_json_set_string(l, "spec.holderIdentity", ident, NULL);
    ts_json_set_string(l, "spec.renewTime", now, NULL);
    return l;
}

/* One write of the fence (read, then update or create).  Returns 0 with
 * *rv set, or the error code. */
static int write_once(struct ts_ctl *c, int64_t *rv, struct ts_err *err)
{
    const char *ns = c->opts.lease_ns;
    struct ts_kube_req r = {.res = &ts_kube_res_leases, .ns = ns};
    cJSON *old = NULL, *out = NULL, *body;
    int rc = ts_kube_get_sync(c->client, &ts_kube_res_leases, ns, FENCE_NAME, &old, err);

    if (rc && rc != TS_ENOTFOUND)
        return rc;
    r.verb = rc ? TS_KUBE_CREATE : TS_KUBE_UPDATE;
    r.name = rc ? NULL : FENCE_NAME;
    body = lease_of(c, rc ? NULL : old, ns);
    r.body = body;
    rc = ts_kube_do(c->client, &r, &out, err);
    cJSON_Delete(body);
    if (!rc && (*rv = rv_num(ts_json_get_string(out, "metadata.resourceVersion"))) < 0)
        rc = ts_err_set(err, TS_EUNSUPPORTED, "resourceVersion '%s' is not a number",
                        ts_json_get_string(out, "metadata.resourceVersion"));
    cJSON_Delete(out);
    return rc;
}

void ts__ctl_fence_write(struct ts_ctl *c)
{
    c->fence_rv = 0;
    if (c->opts.leader_elect)
        return;
    for (int round = 1; !c->stopping; round++) {
        struct ts_err err = {0};
        int64_t rv = 0;
        int rc = write_once(c, &rv, &err);

        if (rc == 0) {
            c->fence_rv = rv;
            c->fence_at = ts_loop_now(c->loop);
            ts_log_info("controller",
                        "start fence: lease %s/%s at resourceVersion %lld; no decision until "
                        "every informer has seen it (no leader election)",
                        c->opts.lease_ns, FENCE_NAME, (long long)rv);
            return;
        }
        if (rc == TS_ECANCELED)
            return;
        /* a missing namespace or a refusal will not change by asking again */
        if (rc == TS_ENOTFOUND || rc == TS_EFORBIDDEN || rc == TS_EUNAUTHORIZED ||
            rc == TS_EUNSUPPORTED || round == ROUNDS) {
            ts_log_warn("controller",
                        "start fence: cannot write lease %s/%s (%s); deciding on the first "
                        "lists: a predecessor's last writes may land after them (use "
                        "--leader-elect, or --lease-namespace naming a namespace that exists)",
                        c->opts.lease_ns, FENCE_NAME, err.msg);
            return;
        }
        ts_log_info("controller", "start fence: lease %s/%s not written (%s): again",
                    c->opts.lease_ns, FENCE_NAME, err.msg);
    }
}

int ts__ctl_fence_seen(struct ts_ctl *c)
{
    int64_t now = ts_loop_now(c->loop);

    if (!c->fence_rv)
        return 1;
    for (int i = 0; i < TS__CTL_N; i++) {
        int64_t rv = c->inf[i] ? rv_num(ts_informer_rv(c->inf[i])) : -1;

        if (rv < 0 || rv >= c->fence_rv)
            continue; /* none, or not comparable: nothing to wait for */
        if (!c->fence_told && now - c->fence_at > SLOW_NS) {
            c->fence_told = 1;
            ts_log_warn("controller",
                        "start fence: informer %s at resourceVersion %lld, still behind the "
                        "fence %lld (a list served from a stale cache?): waiting for its watch",
                        ts__ctl_resource((enum ts__ctl_inf)i)->resource, (long long)rv,
                        (long long)c->fence_rv);
        }
        return 0;
    }
    ts_log_info("controller", "start fence: every informer at or past resourceVersion %lld",
                (long long)c->fence_rv);
    c->fence_rv = 0;
    return 1;
}
