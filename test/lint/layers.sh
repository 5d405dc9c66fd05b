#!/bin/sh
# layers.sh - the layering rule of docs/architecture.md, checked.
#
# Every `#include "DIR/..."` in pkg/*/ and cmd/*/ is an edge from the
# including package to pkg/DIR.  A package may include its own headers and
# those of the packages named on its line below, nothing else.  The list
# runs from the innermost package outwards and every edge points to a
# package listed before the one that includes it, so there are no cycles
# and the core (util to bench) never includes the shell; the check refuses
# a list that breaks either.  A new edge is added here, by review, together
# with docs/architecture.md.  Prints FILE:LINE and the forbidden edge for
# each offending include and exits 1; exits 0 when every include is allowed.
#
# pkg/httpd is what the HTTP servers share: the HTTPS server the webhook
# and the visibility API serve on, its TLS material, and the file-limit
# sizing every server (metrics and local API server too) takes its
# connection limit from.  It includes only util, so the webhook, the
# controller and the API server include it without including each other.
#
# Usage: test/lint/layers.sh (from anywhere; checks the repository it is in)
set -u
cd "$(dirname "$0")/../.." || exit 2

# package        layer  allowed includes
edges='
pkg/util         core
pkg/resource     core   util
pkg/json         core   util
pkg/yaml         core   util json
pkg/api          core   util resource json
pkg/engine       core   util resource api
pkg/sim          core   util api engine
pkg/bench        core   util resource api engine
pkg/metrics      shell  util
pkg/httpd        shell  util
pkg/kube         shell  util json yaml
pkg/apiserver    shell  util resource json yaml api httpd
pkg/webhook      shell  util json api kube httpd
pkg/controller   shell  util json api engine kube metrics httpd
pkg/cli          shell  util resource json yaml api engine sim bench kube
cmd/turnstile    main   util json yaml api kube webhook controller httpd
cmd/turnstilectl main   util cli
cmd/turnstile-apiserver       main  util apiserver httpd
cmd/turnstile-apiserver-bench main  util json apiserver
'

files=$(find pkg cmd -type f -name '*.[ch]' | LC_ALL=C sort)
[ -n "$files" ] || { echo "layers: no sources under pkg/ or cmd/" >&2; exit 2; }

# shellcheck disable=SC2086 # the file list is split on purpose
grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null |
awk -v edges="$edges" '
BEGIN {
    n = split(edges, line, "\n")
    for (i = 1; i <= n; i++) {
        if (split(line[i], f, " ") < 2)
            continue
        pkg[f[1]] = ++npkg
        layer[f[1]] = f[2]
        for (j = 3; j in f; j++) {
            ok[f[1], f[j]] = 1
            # The list itself keeps the rule: edges point to packages
            # listed earlier, and the core never includes the shell.
            to = "pkg/" f[j]
            if (!(to in pkg) || (layer[f[1]] == "core" && layer[to] != "core")) {
                printf "layers.sh: edge list: %s (%s) may not include %s%s\n", f[1], layer[f[1]],
                    to, to in pkg ? " (" layer[to] ")" : " (not listed before it)"
                bad = 1
            }
        }
    }
}
{
    # FILE:LINE:#include "dir/name.h"
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2)
    lineno = rest; sub(/:.*/, "", lineno)
    inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
    split(file, part, "/")
    from = part[1] "/" part[2]
    if (!(from in pkg)) {
        printf "%s:%s: package %s is not in the edge list of test/lint/layers.sh\n", file, lineno, from
        bad = 1
        next
    }
    if (inc !~ /\//)
        next                    # a header next to the file
    to = inc; sub(/\/.*/, "", to)
    if (from == "pkg/" to || (from, to) in ok)
        next
    printf "%s:%s: forbidden include \"%s\": %s (%s) may not include pkg/%s%s\n", file, lineno,
        inc, from, layer[from], to, ("pkg/" to) in pkg ? " (" layer["pkg/" to] ")" : " (no such package)"
    bad = 1
}
END { exit bad }' || { echo "lint: layering broken (allowed edges: test/lint/layers.sh)"; exit 1; }
