/*
 * kueuectl_delete.c - `kubectl kueue delete workload NAME... | --all`
 * (cmd/kueuectl/app/delete/delete_workload.go): a Workload with owners is
 * deleted through them (each owner is deleted and the garbage collector
 * takes the Workload), after a confirmation unless --yes or a dry run; a
 * Workload without owners is deleted itself.
 */
#include "cli/kueuectl_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "kube/client.h"
#include "util/alloc.h"
#include "util/buf.h"

const char *ts__kctl_guess_resource(const char *kind, char *buf, size_t len)
{
    size_t n = 0;

    for (; kind[n] && n + 4 < len; n++)
        buf[n] = (char)tolower((unsigned char)kind[n]);
    buf[n] = '\0';
    if (!n)
        return buf;
    if (buf[n - 1] == 'y' && (n < 2 || !strchr("aeiou", buf[n - 2])))
        snprintf(buf + n - 1, len - n + 1, "ies");
    else if (buf[n - 1] == 's' || buf[n - 1] == 'x' ||
             (n > 1 && (buf[n - 1] == 'h') && (buf[n - 2] == 'c' || buf[n - 2] == 's')))
        snprintf(buf + n, len - n, "es");
    else
        snprintf(buf + n, len - n, "s");
    return buf;
}

/* The owners of a Workload as "resource.group/name" strings (the
 * GroupResource kubectl prints, "pods/x" for the core group). */
static cJSON *owners_of(const cJSON *wl)
{
    cJSON *arr = cJSON_CreateArray();
    const cJSON *ref;

    cJSON_ArrayForEach(ref, ts_json_get(wl, "metadata.ownerReferences"))
    {
        const char *av = ts_json_get_string(ref, "apiVersion"), *kind;
        const char *slash = av ? strchr(av, '/') : NULL;
        char res[256], s[1024];

        kind = ts_json_get_string(ref, "kind");
        ts__kctl_guess_resource(kind ? kind : "", res, sizeof(res));
        if (slash)
            snprintf(s, sizeof(s), "%s.%.*s/%s", res, (int)(slash - av), av,
                     ts_json_get_string(ref, "name"));
        else
            snprintf(s, sizeof(s), "%s/%s", res, ts_json_get_string(ref, "name"));
        cJSON_AddItemToArray(arr, cJSON_CreateString(s));
    }
    return arr;
}

char *ts__kctl_delete_prompt(const cJSON *wls, const cJSON *owners)
{
    struct ts_buf b = TS_BUF_INIT;
    const cJSON *wl, *own = owners ? owners->child : NULL;
    size_t n = 0;

    ts_buf_adds(&b, "");
    cJSON_ArrayForEach(wl, wls)
    {
        const cJSON *o;
        int first = 1;

        if (cJSON_GetArraySize(own)) {
            ts_buf_adds(&b, n++ ? "\n  - " : "This operation will also delete:\n  - ");
            cJSON_ArrayForEach(o, own)
            {
                ts_buf_addf(&b, "%s%s", first ? "" : ", ", o->valuestring);
                first = 0;
            }
            ts_buf_addf(&b, " associated with the %s/%s workload\n",
                        ts_json_get_string(wl, "metadata.namespace"),
                        ts_json_get_string(wl, "metadata.name"));
        }
        own = own ? own->next : NULL;
    }
    return ts_buf_take(&b);
}

/* The Workloads named on the command line (a missing one is reported and
 * skipped, as kueuectl does) or, --all, every one in the namespace (or all
 * namespaces).  Returns 0 or 1 (reported). */
static int collect(struct ts__kctl *k, cJSON *wls)
{
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .res = &ts_kube_res_workloads};
    char msg[512];
    cJSON *l = NULL, *it;

    if (k->o.all) {
        r.ns = k->o.all_ns ? NULL : k->ns;
        if (ts__kctl_call(k, &r, &l, msg, sizeof(msg)))
            return cJSON_Delete(l), ts__kctl_fail(k, "%s", msg);
        while ((it = ts_json_get(l, "items")) && it->child)
            cJSON_AddItemToArray(wls, cJSON_DetachItemViaPointer(it, it->child));
        cJSON_Delete(l);
        return 0;
    }
    r.verb = TS_KUBE_GET;
    r.ns = k->ns;
    for (size_t i = 2; i < k->o.n_args; i++) {
        int rc;

        r.name = k->o.args[i];
        if ((rc = ts__kctl_call(k, &r, &l, msg, sizeof(msg))) == TS_ENOTFOUND)
            fprintf(k->err, "%s\n", msg);
        else if (rc)
            return cJSON_Delete(l), ts__kctl_fail(k, "%s", msg);
        else
            cJSON_AddItemToArray(wls, l);
        l = NULL;
    }
    return 0;
}

/* confirmation(): prints the message and the question, reads one word. */
static int confirmed(struct ts__kctl *k, const char *message)
{
    char word[64];

    fprintf(k->out, "%sDo you want to proceed (y/n)? ", message);
    fflush(k->out);
    if (scanf("%63s", word) != 1)
        return 0;
    return !strcasecmp(word, "y");
}

static const char *dry_suffix(const struct ts__kctl *k)
{
    return !strcmp(k->o.dry_run, "client")   ? " (client dry run)"
           : !strcmp(k->o.dry_run, "server") ? " (server dry run)"
                                             : "";
}

/* Deletes one owner ("jobs.batch/j1") of a Workload in namespace ns; a
 * missing one counts as deleted.  Returns 0 or 1 (reported). */
static int delete_owner(struct ts__kctl *k, const cJSON *ref, const char *ns, const char *shown)
{
    const char *av = ts_json_get_string(ref, "apiVersion"), *slash;
    char group[256] = "", version[64], plural[256], msg[512];
    struct ts_kube_resource res = {group, version, plural, NULL, 1};
    struct ts_kube_req r = {.verb = TS_KUBE_DELETE, .res = &res, .ns = ns};
    int rc = 0;

    av = av ? av : "";
    slash = strchr(av, '/');
    if (slash)
        snprintf(group, sizeof(group), "%.*s", (int)(slash - av), av);
    snprintf(version, sizeof(version), "%s", slash ? slash + 1 : av);
    ts__kctl_guess_resource(ts_json_get_string(ref, "kind") ? ts_json_get_string(ref, "kind") : "",
                            plural, sizeof(plural));
    r.name = ts_json_get_string(ref, "name");
    r.dry_run = !strcmp(k->o.dry_run, "server") ? "All" : NULL;
    if (strcmp(k->o.dry_run, "client") && (rc = ts__kctl_call(k, &r, NULL, msg, sizeof(msg))) &&
        rc != TS_ENOTFOUND)
        return ts__kctl_fail(k, "%s", msg);
    fprintf(k->out, "%s deleted%s\n", shown, dry_suffix(k));
    return 0;
}

static int delete_all(struct ts__kctl *k, const cJSON *wls, const cJSON *owners)
{
    const cJSON *wl, *own = owners->child;
    char msg[512];

    cJSON_ArrayForEach(wl, wls)
    {
        const char *ns = ts_json_get_string(wl, "metadata.namespace");
        const cJSON *refs = ts_json_get(wl, "metadata.ownerReferences"), *o;
        const cJSON *ref = refs ? refs->child : NULL;
        struct ts_kube_req r = {.verb = TS_KUBE_DELETE, .res = &ts_kube_res_workloads, .ns = ns};
        int rc;

        cJSON_ArrayForEach(o, own)
        {
            if (delete_owner(k, ref, ns, o->valuestring))
                return 1;
            ref = ref->next;
        }
        if (!cJSON_GetArraySize(own)) {
            r.name = ts_json_get_string(wl, "metadata.name");
            r.dry_run = !strcmp(k->o.dry_run, "server") ? "All" : NULL;
            if (strcmp(k->o.dry_run, "client") &&
                (rc = ts__kctl_call(k, &r, NULL, msg, sizeof(msg))) && rc != TS_ENOTFOUND)
                return ts__kctl_fail(k, "%s", msg);
            fprintf(k->out, "workload.kueue.x-k8s.io/%s deleted%s\n", r.name, dry_suffix(k));
        }
        own = own->next;
    }
    return 0;
}

int ts__kctl_delete_workloads(struct ts__kctl *k)
{
    cJSON *wls = cJSON_CreateArray(), *owners = cJSON_CreateArray(), *wl;
    size_t names = k->o.n_args - 2;
    int rc = 0, have_owners = 0;

    if (!k->o.all && !names)
        rc = ts__kctl_fail(k, "requires at least 1 arg(s), only received 0");
    else if (k->o.all && names)
        rc = ts__kctl_fail(k, "name cannot be provided when a selector is specified");
    else if (k->o.all_ns && names)
        rc = ts__kctl_fail(k, "a resource cannot be retrieved by name across all namespaces");
    else
        rc = collect(k, wls);
    cJSON_ArrayForEach(wl, wls)
    {
        cJSON *own = owners_of(wl);

        have_owners |= cJSON_GetArraySize(own) > 0;
        cJSON_AddItemToArray(owners, own);
    }
    if (!rc && cJSON_GetArraySize(wls) && !strcmp(k->o.dry_run, "none") && !k->o.yes &&
        have_owners) {
        char *msg = k->o.all ? ts_xstrdup("This operation will also delete the jobs associated "
                                          "with these workloads.\n")
                             : ts__kctl_delete_prompt(wls, owners);

        if (!confirmed(k, msg)) {
            fputs("Deletion is canceled\n", k->out);
            cJSON_Delete(wls), cJSON_Delete(owners), free(msg);
            return 0;
        }
        free(msg);
    }
    if (!rc)
        rc = delete_all(k, wls, owners);
    cJSON_Delete(wls);
    cJSON_Delete(owners);
    return rc;
}
