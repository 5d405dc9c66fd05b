/*
 * smp.h - strategic merge patch (application/strategic-merge-patch+json)
 * for the built-in kinds, with the patchMergeKey/patchStrategy of their
 * Go types: containers, initContainers, ephemeralContainers, env,
 * volumes, imagePullSecrets, resourceClaims, schedulingGates by name;
 * ports by containerPort; volumeMounts by mountPath; volumeDevices by
 * devicePath; hostAliases by ip; conditions by type; ownerReferences by
 * uid; topologySpreadConstraints by topologyKey; finalizers merged as a
 * set.  Other lists (tolerations, args, command) are replaced, as
 * Kubernetes does.  Directives: $patch: replace|delete|merge,
 * $retainKeys, $setElementOrder/<list>, $deleteFromPrimitiveList/<list>.
 * Pure; inputs are not modified.
 *
 * Ownership: the caller frees *out with cJSON_Delete().
 */
#ifndef TS_JSON_SMP_H
#define TS_JSON_SMP_H

#include <cJSON.h>

#include "util/err.h"

/* Applies patch to orig.  Returns 0 or TS_EINVAL (patch is not an object,
 * malformed directive).  *out is NULL on failure. */
int ts_smp_apply(const cJSON *orig, const cJSON *patch, cJSON **out, struct ts_err *err);

#endif
