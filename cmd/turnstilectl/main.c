/* turnstilectl - Turnstile's command-line tool.  Thin main: dispatches to
 * the subcommands in pkg/cli. */
#include "cli/bench.h"
#include "cli/convert.h"
#include "cli/explain.h"
#include "cli/get.h"
#include "cli/kueuectl.h"
#include "cli/simulate.h"
#include "cli/validate.h"
#include "cli/whatif.h"
#include "util/alloc.h"

#include <stdio.h>
#include <string.h>

#define USAGE                                                                                      \
    "usage: turnstilectl <command> [flags]\n"                                                      \
    "\n"                                                                                           \
    "commands:\n"                                                                                  \
    "  simulate   run Turnstile's admission engine on YAML files and print the Workloads\n"        \
    "             as `kubectl get workloads` would show them\n"                                    \
    "  explain    why a workload waits, where it is in line, and what would admit it\n"            \
    "  what-if    which workloads a proposed change would admit, preempt or keep waiting\n"        \
    "  get        list a cluster's workloads, queues, ... using your kubeconfig\n"                 \
    "  bench      Kueue's scheduler performance test on a generator file, ideal or live\n"         \
    "  validate   what the cluster makes of Kueue objects: defaults, accepted or refused and "     \
    "why\n"                                                                                        \
    "             (--crds DIR adds the API server's checks from the CRDs in DIR)\n"                \
    "  convert    Kueue objects converted between kueue.x-k8s.io/v1beta1 and v1beta2\n"

int main(int argc, char **argv)
{
    struct ts_cli_simulate_opts opts;
    int rc;

    ts_alloc_init();
    if ((rc = ts_cli_kueuectl_argv0(argv[0]))) /* kubectl's plugin `kubectl kueue` */
        return rc == 2 ? ts_cli_kueuectl_complete(argc - 1, argv + 1, stdout, stderr)
                       : ts_cli_kueuectl(argc - 1, argv + 1, stdout, stderr);
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "simulate")) {
        if ((rc = ts_cli_simulate_parse(argc - 2, argv + 2, &opts, stderr)))
            return rc;
        return ts_cli_simulate(&opts, stdout, stderr);
    }
    if (!strcmp(argv[1], "what-if"))
        return ts_cli_whatif(argc - 2, argv + 2, stdout, stderr);
    if (!strcmp(argv[1], "get"))
        return ts_cli_get(argc - 2, argv + 2, stdout, stderr);
    if (!strcmp(argv[1], "bench"))
        return ts_cli_bench(argc - 2, argv + 2, stdout, stderr);
    if (!strcmp(argv[1], "validate"))
        return ts_cli_validate(argc - 2, argv + 2, stdout, stderr);
    if (!strcmp(argv[1], "convert"))
        return ts_cli_convert(argc - 2, argv + 2, stdout, stderr);
    if (!strcmp(argv[1], "explain"))
        return ts_cli_explain(argc - 2, argv + 2, stdout, stderr);
    fprintf(stderr, "turnstilectl: unknown command '%s'\n%s", argv[1], USAGE);
    return 2;
}
