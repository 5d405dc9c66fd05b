/*
 * kueuectl_complete.c - shell completion of `kubectl kueue`: cobra's
 * hidden __complete command (what kubectl runs as kubectl_complete-kueue
 * for a plugin's words, and what the scripts below call), answering as
 * kueuectl's command tree and cmd/kueuectl/app/completion do: commands
 * and kinds with their descriptions, flags, and the names of Workloads
 * and queues from the server (at most 100, active ones for stop and
 * delete, stopped ones for resume).  `completion bash|zsh` prints a
 * script that drives __complete for kubectl-kueue and kueuectl.
 */
#include "cli/kueuectl_int.h"

#include <string.h>

#include "json/json.h"
#include "kube/client.h"

/* cobra.ShellCompDirective */
enum {
    DIR_DEFAULT = 0,
    DIR_ERROR = 1,
    DIR_NO_FILE = 4,
};

struct item {
    const char *name, *desc;
};

static const struct item root[] = {
    {"completion", "Generate the autocompletion script for the specified shell"},
    {"create", "Create a resource"},
    {"delete", "Delete a resource"},
    {"describe", "Show details of a resource"},
    {"edit", "Edit a resource on the server"},
    {"get", "Display a resource"},
    {"help", "Help about any command"},
    {"list", "Display resources"},
    {"patch", "Update fields of a resource"},
    {"resume", "Resume the resource"},
    {"stop", "Stop the resource"},
    {"version", "Prints the client version and the kueue controller manager image, if installed"},
    {NULL, NULL},
};
static const struct item create[] = {
    {"clusterqueue", "Creates a clusterqueue"},
    {"localqueue", "Creates a localqueue"},
    {"resourceflavor", "Creates a resource flavor"},
    {NULL, NULL},
};
static const struct item list[] = {
    {"clusterqueue", "List ClusterQueues"},
    {"localqueue", "List LocalQueue"},
    {"pods", "List Pods belong to a Job Kind"},
    {"resourceflavor", "List ResourceFlavor"},
    {"workload", "List Workload"},
    {NULL, NULL},
};
static const struct item stop[] = {
    {"clusterqueue", "Stop the ClusterQueue"},
    {"localqueue", "Stop the LocalQueue"},
    {"workload", "Stop the Workload"},
    {NULL, NULL},
};
static const struct item resume[] = {
    {"clusterqueue", "Resume the ClusterQueue"},
    {"localqueue", "Resume the LocalQueue"},
    {"workload", "Resume the Workload"},
    {NULL, NULL},
};
static const struct item shells[] = {
    {"bash", "Generate the autocompletion script for bash"},
    {"fish", "Generate the autocompletion script for fish"},
    {"powershell", "Generate the autocompletion script for powershell"},
    {"zsh", "Generate the autocompletion script for zsh"},
    {NULL, NULL},
};
static const char *const pass_kinds[] = {"clusterqueue", "localqueue", "resourceflavor",
                                         "workload"};

static void emit(struct ts__kctl *k, const char *name, const char *desc, const char *prefix,
                 int descriptions)
{
    if (strncmp(name, prefix, strlen(prefix)))
        return;
    if (descriptions && desc)
        fprintf(k->out, "%s\t%s\n", name, desc);
    else
        fprintf(k->out, "%s\n", name);
}

static int items(struct ts__kctl *k, const struct item *it, const char *prefix, int desc)
{
    for (; it->name; it++)
        emit(k, it->name, it->desc, prefix, desc);
    return DIR_NO_FILE;
}

/* passthrough.go's subcommands: "Pass-through \"VERB KIND\" to kubectl"
 * (delete workload is kueuectl's own). */
static int pass_items(struct ts__kctl *k, const char *verb, const char *prefix, int desc)
{
    for (size_t i = 0; i < 4; i++) {
        char d[128];

        snprintf(d, sizeof(d), "Pass-through \"%s %s\" to kubectl", verb, pass_kinds[i]);
        emit(k, pass_kinds[i],
             !strcmp(verb, "delete") && i == 3
                 ? "Delete the given Workload and its corresponding Job"
                 : d,
             prefix, desc);
    }
    return DIR_NO_FILE;
}

/* Whether an object is in the state the command wants: Workloads by
 * spec.active (default true), queues by spec.stopPolicy (None = active). */
static int wanted(const cJSON *obj, enum ts__kctl_kind kind, int active)
{
    if (kind == TS__KCTL_WL)
        return (!cJSON_IsFalse(ts_json_get(obj, "spec.active"))) == active;
    {
        const char *p = ts_json_get_string(obj, "spec.stopPolicy");

        return (!p || !strcmp(p, "None")) == active;
    }
}

/* WorkloadNameFunc, ClusterQueueNameFunc, LocalQueueNameFunc. */
static int names(struct ts__kctl *k, enum ts__kctl_kind kind, int active, char **argv, int nargs)
{
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .limit = 100};
    char msg[512];
    cJSON *l = NULL;
    const cJSON *it;
    int rc = DIR_NO_FILE;

    r.res = kind == TS__KCTL_WL   ? &ts_kube_res_workloads
            : kind == TS__KCTL_CQ ? &ts_kube_res_clusterqueues
                                  : &ts_kube_res_localqueues;
    if (kind != TS__KCTL_WL && nargs > 0)
        return DIR_NO_FILE; /* a queue command takes one name */
    if (ts__kctl_connect(k)) {
        ts__kctl_disconnect(k);
        return DIR_ERROR;
    }
    r.ns = r.res->namespaced ? k->ns : NULL;
    if (ts_kube_do(k->c, &r, &l, NULL)) {
        rc = DIR_ERROR;
    } else {
        cJSON_ArrayForEach(it, ts_json_get(l, "items"))
        {
            const char *n = ts_json_get_string(it, "metadata.name");
            int given = 0;

            for (int i = 0; i < nargs; i++)
                given |= !strcmp(argv[i], n);
            if (n && !given && wanted(it, kind, active))
                fprintf(k->out, "%s\n", n);
        }
    }
    (void)msg;
    cJSON_Delete(l);
    ts__kctl_disconnect(k);
    return rc;
}

/* The positional words of argv (flags and their values left out) into
 * pos; returns their count. */
static int positionals(char **argv, int argc, char **pos, int cap)
{
    int n = 0;

    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            if (!strchr(argv[i], '=') && ts__kctl_flag_takes_value(argv[i]) && i + 1 < argc)
                i++;
            continue;
        }
        if (n < cap)
            pos[n++] = argv[i];
    }
    return n;
}

/* The candidates of the word after the positional words pos[0..n). */
static int candidates(struct ts__kctl *k, char **pos, int n, const char *cur, int desc)
{
    const char *verb = n ? pos[0] : NULL;
    enum ts__kctl_kind kind;

    if (!n)
        return items(k, root, cur, desc);
    if (n == 1) {
        if (!strcmp(verb, "create"))
            return items(k, create, cur, desc);
        if (!strcmp(verb, "list"))
            return items(k, list, cur, desc);
        if (!strcmp(verb, "stop"))
            return items(k, stop, cur, desc);
        if (!strcmp(verb, "resume"))
            return items(k, resume, cur, desc);
        if (!strcmp(verb, "completion"))
            return items(k, shells, cur, desc);
        if (strstr(" get describe edit patch delete ", verb) && strlen(verb) > 2)
            return pass_items(k, verb, cur, desc);
        return DIR_NO_FILE;
    }
    if (ts__kctl_kind_of(pos[1], &kind))
        return DIR_DEFAULT;
    if (!strcmp(verb, "stop") || !strcmp(verb, "resume"))
        return names(k, kind, !strcmp(verb, "stop"), pos + 2, n - 2);
    if (!strcmp(verb, "delete") && kind == TS__KCTL_WL)
        return names(k, kind, 1, pos + 2, n - 2);
    return DIR_DEFAULT;
}

int ts__kctl_complete(struct ts__kctl *k, int argc, char **argv, int descriptions)
{
    static const char *const dir_names[] = {"ShellCompDirectiveDefault", "ShellCompDirectiveError",
                                            "", "", "ShellCompDirectiveNoFileComp"};
    const char *cur = argc ? argv[argc - 1] : "";
    char *pos[64];
    int n, dir;

    memset(&k->o, 0, sizeof(k->o));
    ts__kctl_lenient_parse(argc ? argc - 1 : 0, argv, &k->o);
    n = positionals(argv, argc ? argc - 1 : 0, pos, 64);
    if (cur[0] == '-')
        dir = ts__kctl_complete_flags(n ? pos[0] : "", n > 1 ? pos[1] : "", cur, k->out);
    else if (argc > 1 && argv[argc - 2][0] == '-' && !strchr(argv[argc - 2], '=') &&
             ts__kctl_flag_takes_value(argv[argc - 2]))
        dir = DIR_DEFAULT; /* a flag's value: files, as cobra without a completion function */
    else
        dir = candidates(k, pos, n, cur, descriptions);
    fprintf(k->out, ":%d\n", dir);
    fprintf(k->err, "Completion ended with directive: %s\n", dir_names[dir]);
    return 0;
}

#define BASH_SCRIPT                                                                                \
    "# bash completion for kubectl-kueue and kueuectl (Turnstile)          -*- shell-script -*-\n" \
    "# Load it with: source <(kubectl-kueue completion bash)\n"                                    \
    "# `kubectl kueue <TAB>` itself needs kubectl_complete-kueue on PATH (make install\n"          \
    "# links it to turnstilectl), which kubectl's own completion calls.\n"                         \
    "__kueuectl_complete() {\n"                                                                    \
    "    local cur=${COMP_WORDS[COMP_CWORD]} out directive line\n"                                 \
    "    out=$(\"${COMP_WORDS[0]}\" __completeNoDesc \"${COMP_WORDS[@]:1:COMP_CWORD-1}\" "         \
    "\"$cur\" 2>/dev/null)\n"                                                                      \
    "    directive=${out##*:}\n"                                                                   \
    "    out=${out%:*}\n"                                                                          \
    "    COMPREPLY=()\n"                                                                           \
    "    [ $((directive & 1)) -ne 0 ] && return\n"                                                 \
    "    [ $((directive & 2)) -ne 0 ] && compopt -o nospace 2>/dev/null\n"                         \
    "    [ $((directive & 4)) -ne 0 ] && compopt +o default 2>/dev/null\n"                         \
    "    while IFS= read -r line; do\n"                                                            \
    "        [ -n \"$line\" ] && [[ $line == \"$cur\"* ]] && COMPREPLY+=(\"$line\")\n"             \
    "    done <<<\"$out\"\n"                                                                       \
    "}\n"                                                                                          \
    "complete -o default -F __kueuectl_complete kubectl-kueue kueuectl\n"

#define ZSH_SCRIPT                                                                                 \
    "#compdef kubectl-kueue kueuectl\n"                                                            \
    "# zsh completion for kubectl-kueue and kueuectl (Turnstile)\n"                                \
    "# Load it with: source <(kubectl-kueue completion zsh)\n"                                     \
    "_kueuectl() {\n"                                                                              \
    "    local out directive line\n"                                                               \
    "    local -a comps\n"                                                                         \
    "    out=$(\"${words[1]}\" __complete \"${(@)words[2,CURRENT-1]}\" \"${words[CURRENT]}\" "     \
    "2>/dev/null)\n"                                                                               \
    "    directive=${out##*:}\n"                                                                   \
    "    out=${out%:*}\n"                                                                          \
    "    (( directive & 1 )) && return 1\n"                                                        \
    "    for line in ${(f)out}; do\n"                                                              \
    "        comps+=(\"${line/$'\\t'/:}\")\n"                                                      \
    "    done\n"                                                                                   \
    "    if (( ${#comps} )); then\n"                                                               \
    "        _describe 'completions' comps\n"                                                      \
    "    elif (( ! (directive & 4) )); then\n"                                                     \
    "        _files\n"                                                                             \
    "    fi\n"                                                                                     \
    "}\n"                                                                                          \
    "if [ \"$funcstack[1]\" = \"_kueuectl\" ]; then\n"                                             \
    "    _kueuectl \"$@\"\n"                                                                       \
    "else\n"                                                                                       \
    "    compdef _kueuectl kubectl-kueue kueuectl\n"                                               \
    "fi\n"

int ts__kctl_completion_script(struct ts__kctl *k, const char *shell)
{
    if (!shell)
        return ts__kctl_fail(k, "accepts 1 arg(s), received 0");
    if (!strcmp(shell, "bash"))
        return fputs(BASH_SCRIPT, k->out), 0;
    if (!strcmp(shell, "zsh"))
        return fputs(ZSH_SCRIPT, k->out), 0;
    if (!strcmp(shell, "fish") || !strcmp(shell, "powershell"))
        return ts__kctl_fail(k,
                             "turnstile: `completion %s` is not implemented yet (bash and zsh "
                             "are)",
                             shell);
    return ts__kctl_fail(k, "unknown command \"%s\" for \"kueuectl completion\"", shell);
}
