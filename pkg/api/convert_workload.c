/* Workload v1beta1 <-> v1beta2 conversion at the JSON level, as Kueue's
 * apis/kueue/v1beta1/workload_conversion.go does:
 *   spec.priorityClassName + priorityClassSource <-> spec.priorityClassRef
 *   status.accumulatedPastExexcutionTimeSeconds (sic) <-> ...ExecutionTimeSeconds
 *   topologyAssignment {levels, domains[{values, count}]} <-> compressed
 *     {levels, slices[{domainCount, valuesPerLevel[{universal | individual
 *     {prefix, suffix, roots}}], podCounts{universal | individual}}]}
 *   spec/status.preemptionGates (v1beta2 only) stashed in the annotation. */
#include "api/convert_int.h"

#include "api/workload.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPO_KEY "accumulatedPastExexcutionTimeSeconds"
#define EXEC_KEY "accumulatedPastExecutionTimeSeconds"

static cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* Renames o[from] to `to`, keeping its position; an existing `to` is dropped. */
static void rename_key(cJSON *o, const char *from, const char *to)
{
    cJSON *item = get(o, from);
    cJSON *tmp;
    int idx = 0;

    if (!item)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(o, to);
    for (cJSON *c = o->child; c && c != item; c = c->next)
        idx++;
    cJSON_DetachItemViaPointer(o, item);
    tmp = cJSON_CreateObject();
    cJSON_AddItemToObject(tmp, to, item); /* sets item->string */
    cJSON_DetachItemViaPointer(tmp, item);
    cJSON_Delete(tmp);
    if (!cJSON_InsertItemInArray(o, idx, item))
        cJSON_AddItemToObject(o, to, item);
}

/* --- priority class ------------------------------------------------------ */

static int source_to_ref(const char *src, const char **group, const char **kind)
{
    *group = *kind = NULL;
    if (!src || !src[0])
        return 0;
    if (strcmp(src, TS_WL_PRIO_SOURCE_WPC) == 0) {
        *group = TS_WL_PRIO_GROUP_KUEUE;
        *kind = TS_WL_PRIO_KIND_WPC;
    } else if (strcmp(src, TS_WL_PRIO_SOURCE_PC) == 0) {
        *group = TS_WL_PRIO_GROUP_SCHEDULING;
        *kind = TS_WL_PRIO_KIND_PC;
    } else {
        return -1;
    }
    return 0;
}

static int string_field(const cJSON *o, const char *key, const char *path, const char **out,
                        struct ts_err *err)
{
    const cJSON *v = get(o, key);

    *out = NULL;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v))
        return ts_err_set(err, TS_EINVAL, "%s.%s: must be a string", path, key);
    *out = v->valuestring;
    return 0;
}

static int priority_up(cJSON *spec, struct ts_err *err)
{
    const char *name, *src, *group, *kind;
    cJSON *ref;

    if (string_field(spec, "priorityClassName", "spec", &name, err) ||
        string_field(spec, "priorityClassSource", "spec", &src, err))
        return TS_EINVAL;
    if (source_to_ref(src, &group, &kind))
        return ts_err_set(err, TS_EINVAL,
                          "spec.priorityClassSource: Unsupported value: \"%s\": supported "
                          "values: \"\", \"%s\", \"%s\"",
                          src, TS_WL_PRIO_SOURCE_WPC, TS_WL_PRIO_SOURCE_PC);
    if ((name && name[0]) || group) {
        ref = cJSON_CreateObject();
        if (group) {
            cJSON_AddStringToObject(ref, "group", group);
            cJSON_AddStringToObject(ref, "kind", kind);
        }
        if (name && name[0])
            cJSON_AddStringToObject(ref, "name", name);
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "priorityClassRef");
        cJSON_AddItemToObject(spec, "priorityClassRef", ref);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "priorityClassName");
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "priorityClassSource");
    return 0;
}

static const char *ref_to_source(const char *group, const char *kind)
{
    if ((kind && strcmp(kind, TS_WL_PRIO_KIND_WPC) == 0) ||
        (!kind && group && strcmp(group, TS_WL_PRIO_GROUP_KUEUE) == 0))
        return TS_WL_PRIO_SOURCE_WPC;
    if ((kind && strcmp(kind, TS_WL_PRIO_KIND_PC) == 0) ||
        (!kind && group && strcmp(group, TS_WL_PRIO_GROUP_SCHEDULING) == 0))
        return TS_WL_PRIO_SOURCE_PC;
    return NULL;
}

static int priority_down(cJSON *spec, struct ts_err *err)
{
    cJSON *ref = get(spec, "priorityClassRef");
    const char *group, *kind, *name, *src;

    if (!ref || cJSON_IsNull(ref)) {
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "priorityClassRef");
        return 0;
    }
    if (!cJSON_IsObject(ref))
        return ts_err_set(err, TS_EINVAL, "spec.priorityClassRef: must be an object");
    if (string_field(ref, "group", "spec.priorityClassRef", &group, err) ||
        string_field(ref, "kind", "spec.priorityClassRef", &kind, err) ||
        string_field(ref, "name", "spec.priorityClassRef", &name, err))
        return TS_EINVAL;
    src = ref_to_source(group, kind);
    if (!src && (group || kind))
        return ts_err_set(err, TS_EINVAL,
                          "spec.priorityClassRef: unsupported group/kind \"%s\"/\"%s\"",
                          group ? group : "", kind ? kind : "");
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "priorityClassName");
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "priorityClassSource");
    if (name && name[0])
        cJSON_AddStringToObject(spec, "priorityClassName", name);
    if (src)
        cJSON_AddStringToObject(spec, "priorityClassSource", src);
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "priorityClassRef");
    return 0;
}

/* --- topology assignment: v1beta1 domains -> v1beta2 slices ------------- */

static const char *domain_value(const cJSON *domains, int d, int level)
{
    const cJSON *vals = get(cJSON_GetArrayItem(domains, d), "values");
    const cJSON *v = cJSON_GetArrayItem(vals, level);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Longest common prefix (from the start, or the end when `suffix`) of the
 * values of one level, skipping `skip` leading bytes of each. */
static size_t common_affix(const cJSON *domains, int n, int level, size_t skip, int suffix)
{
    const char *first = domain_value(domains, 0, level);
    size_t best = strlen(first) - skip;

    for (int d = 1; d < n && best; d++) {
        const char *v = domain_value(domains, d, level) + skip;
        size_t lv = strlen(v), lf = strlen(first + skip), k = 0;

        while (k < best && k < lv &&
               (suffix ? first[skip + lf - 1 - k] == v[lv - 1 - k] : first[skip + k] == v[k]))
            k++;
        best = k;
    }
    return best;
}

static cJSON *level_up(const cJSON *domains, int n, int level)
{
    const char *first = domain_value(domains, 0, level);
    cJSON *o = cJSON_CreateObject();
    size_t pre, suf;
    cJSON *ind, *roots;
    int same = 1;

    for (int d = 1; d < n && same; d++)
        same = strcmp(first, domain_value(domains, d, level)) == 0;
    if (same) {
        cJSON_AddStringToObject(o, "universal", first);
        return o;
    }
    pre = common_affix(domains, n, level, 0, 0);
    suf = common_affix(domains, n, level, pre, 1);
    ind = cJSON_AddObjectToObject(o, "individual");
    if (pre) {
        char *p = ts_xstrndup(first, pre);

        cJSON_AddStringToObject(ind, "prefix", p);
        free(p);
    }
    if (suf)
        cJSON_AddStringToObject(ind, "suffix", first + strlen(first) - suf);
    roots = cJSON_AddArrayToObject(ind, "roots");
    for (int d = 0; d < n; d++) {
        const char *v = domain_value(domains, d, level);
        char *r = ts_xstrndup(v + pre, strlen(v) - pre - suf);

        cJSON_AddItemToArray(roots, cJSON_CreateString(r));
        free(r);
    }
    return o;
}

static cJSON *counts_up(const cJSON *domains, int n)
{
    cJSON *o = cJSON_CreateObject();
    double first = cJSON_GetNumberValue(get(cJSON_GetArrayItem(domains, 0), "count"));
    int same = 1;
    cJSON *arr;

    for (int d = 1; d < n && same; d++)
        same = cJSON_GetNumberValue(get(cJSON_GetArrayItem(domains, d), "count")) == first;
    if (same) {
        cJSON_AddNumberToObject(o, "universal", first);
        return o;
    }
    arr = cJSON_AddArrayToObject(o, "individual");
    for (int d = 0; d < n; d++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(cJSON_GetNumberValue(
                                      get(cJSON_GetArrayItem(domains, d), "count"))));
    return o;
}

/* Checks the v1beta1 domains: each has `levels` string values and a count. */
static int domains_check(const cJSON *domains, int levels, const char *path, struct ts_err *err)
{
    int n = cJSON_GetArraySize(domains);

    for (int d = 0; d < n; d++) {
        const cJSON *dom = cJSON_GetArrayItem(domains, d);

        if (!cJSON_IsNumber(get(dom, "count")))
            return ts_err_set(err, TS_EINVAL, "%s.domains[%d].count: must be a number", path, d);
        for (int l = 0; l < levels; l++) {
            if (!domain_value(domains, d, l))
                return ts_err_set(err, TS_EINVAL, "%s.domains[%d].values: must hold %d strings",
                                  path, d, levels);
        }
    }
    return 0;
}

static int topology_up(cJSON *ta, const char *path, struct ts_err *err)
{
    cJSON *domains = get(ta, "domains");
    int levels = cJSON_GetArraySize(get(ta, "levels"));
    int n = cJSON_IsArray(domains) ? cJSON_GetArraySize(domains) : 0;
    cJSON *slices, *slice, *vpl;

    if (!cJSON_IsObject(ta) || (domains && !cJSON_IsArray(domains)))
        return ts_err_set(err, TS_EINVAL, "%s: malformed topologyAssignment", path);
    if (domains_check(domains, levels, path, err))
        return TS_EINVAL;
    slices = cJSON_CreateArray();
    if (n) {
        slice = cJSON_CreateObject();
        cJSON_AddNumberToObject(slice, "domainCount", n);
        vpl = cJSON_AddArrayToObject(slice, "valuesPerLevel");
        for (int l = 0; l < levels; l++)
            cJSON_AddItemToArray(vpl, level_up(domains, n, l));
        cJSON_AddItemToObject(slice, "podCounts", counts_up(domains, n));
        cJSON_AddItemToArray(slices, slice);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(ta, "domains");
    cJSON_AddItemToObject(ta, "slices", slices);
    return 0;
}

/* --- topology assignment: v1beta2 slices -> v1beta1 domains ------------- */

/* The value of domain d at one level of a slice, or NULL when malformed.
 * Ownership: caller frees. */
static char *slice_value(const cJSON *lv, int d)
{
    const cJSON *u = get(lv, "universal");
    const cJSON *ind = get(lv, "individual");
    const cJSON *root = cJSON_GetArrayItem(get(ind, "roots"), d);
    const char *pre = cJSON_GetStringValue(get(ind, "prefix"));
    const char *suf = cJSON_GetStringValue(get(ind, "suffix"));
    struct ts_buf b = TS_BUF_INIT;

    if (cJSON_IsString(u))
        return ts_xstrdup(u->valuestring);
    if (!cJSON_IsString(root))
        return NULL;
    ts_buf_adds(&b, pre ? pre : "");
    ts_buf_adds(&b, root->valuestring);
    ts_buf_adds(&b, suf ? suf : "");
    return ts_buf_take(&b);
}

static int slice_count(const cJSON *pc, int d, double *out)
{
    const cJSON *u = get(pc, "universal");
    const cJSON *v = cJSON_GetArrayItem(get(pc, "individual"), d);

    if (cJSON_IsNumber(u))
        v = u;
    if (!cJSON_IsNumber(v))
        return -1;
    *out = v->valuedouble;
    return 0;
}

static int slice_down(const cJSON *slice, int levels, cJSON *domains, const char *path,
                      struct ts_err *err)
{
    const cJSON *vpl = get(slice, "valuesPerLevel");
    const cJSON *dc = get(slice, "domainCount");
    int n = cJSON_IsNumber(dc) ? dc->valueint : -1;

    if (n < 0 || cJSON_GetArraySize(vpl) != levels)
        return ts_err_set(err, TS_EINVAL, "%s: malformed slice", path);
    for (int d = 0; d < n; d++) {
        cJSON *dom = cJSON_CreateObject();
        cJSON *vals = cJSON_AddArrayToObject(dom, "values");
        double count;

        cJSON_AddItemToArray(domains, dom);
        for (int l = 0; l < levels; l++) {
            char *v = slice_value(cJSON_GetArrayItem(vpl, l), d);

            if (!v)
                return ts_err_set(err, TS_EINVAL,
                                  "%s.valuesPerLevel[%d]: no value for "
                                  "domain %d",
                                  path, l, d);
            cJSON_AddItemToArray(vals, cJSON_CreateString(v));
            free(v);
        }
        if (slice_count(get(slice, "podCounts"), d, &count))
            return ts_err_set(err, TS_EINVAL, "%s.podCounts: no count for domain %d", path, d);
        cJSON_AddNumberToObject(dom, "count", count);
    }
    return 0;
}

static int topology_down(cJSON *ta, const char *path, struct ts_err *err)
{
    cJSON *slices = get(ta, "slices");
    int levels = cJSON_GetArraySize(get(ta, "levels"));
    cJSON *domains;
    char sp[TS_PATH_MAX];
    int i = 0;

    if (!cJSON_IsObject(ta) || (slices && !cJSON_IsArray(slices)))
        return ts_err_set(err, TS_EINVAL, "%s: malformed topologyAssignment", path);
    domains = cJSON_CreateArray();
    for (const cJSON *s = slices ? slices->child : NULL; s; s = s->next, i++) {
        snprintf(sp, sizeof(sp), "%s.slices[%d]", path, i);
        if (slice_down(s, levels, domains, sp, err)) {
            cJSON_Delete(domains);
            return TS_EINVAL;
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(ta, "slices");
    cJSON_AddItemToObject(ta, "domains", domains);
    return 0;
}

typedef int (*ta_fn)(cJSON *ta, const char *path, struct ts_err *err);

static int each_assignment(cJSON *obj, ta_fn fn, struct ts_err *err)
{
    cJSON *psas = get(get(get(obj, "status"), "admission"), "podSetAssignments");
    char path[TS_PATH_MAX];
    int i = 0;

    for (cJSON *p = cJSON_IsArray(psas) ? psas->child : NULL; p; p = p->next, i++) {
        cJSON *ta = get(p, "topologyAssignment");

        if (!ta || cJSON_IsNull(ta))
            continue;
        snprintf(path, sizeof(path), "status.admission.podSetAssignments[%d].topologyAssignment",
                 i);
        if (fn(ta, path, err))
            return TS_EINVAL;
    }
    return 0;
}

/* --- hooks ------------------------------------------------------------------ */

int ts__convert_workload_up(cJSON *obj, struct ts_err *err)
{
    cJSON *spec = get(obj, "spec");

    if (cJSON_IsObject(spec) && priority_up(spec, err))
        return TS_EINVAL;
    rename_key(get(obj, "status"), TYPO_KEY, EXEC_KEY);
    if (each_assignment(obj, topology_up, err))
        return TS_EINVAL;
    ts__convert_restore(obj, "spec.preemptionGates");
    ts__convert_restore(obj, "status.preemptionGates");
    return 0;
}

int ts__convert_workload_down(cJSON *obj, struct ts_err *err)
{
    cJSON *spec = get(obj, "spec");

    if (cJSON_IsObject(spec) && priority_down(spec, err))
        return TS_EINVAL;
    rename_key(get(obj, "status"), EXEC_KEY, TYPO_KEY);
    if (each_assignment(obj, topology_down, err))
        return TS_EINVAL;
    ts__convert_stash(obj, "spec.preemptionGates");
    ts__convert_stash(obj, "status.preemptionGates");
    return 0;
}
