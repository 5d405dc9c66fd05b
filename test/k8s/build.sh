#!/bin/sh
# Builds the real control plane for test/k8s/cluster.sh into OUT (default
# build/k8s/bin) from the Go modules pinned in test/k8s (kube-apiserver,
# kube-controller-manager, kube-scheduler from k8s.io/kubernetes, etcd from
# go.etcd.io/etcd/server) and test/k8s/kwok (kwok).  Rebuilt only when a
# go.mod/go.sum, a Go source here or the Go version changed (OUT/.stamp);
# Go's own caches (~/.cache/go-build, ~/go/pkg/mod) are kept between runs.
#
# Go is test infrastructure only.  Without it this stops with what to install.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/k8s/bin}
# absolute: the builds below run from inside test/k8s
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SRC=$ROOT/test/k8s
# GO: the go command (default: go on PATH, else /usr/local/go/bin/go)
GO=${GO:-$(command -v go 2>/dev/null || echo /usr/local/go/bin/go)}
if ! command -v "$GO" >/dev/null 2>&1; then
    echo "test-k8s: Go 1.26 or newer is needed to build the real control plane ($GO not found):" >&2
    echo "  install it as /usr/local/go (or put go on PATH); the modules come from the Go module" >&2
    echo "  proxy.  Or skip this suite with TS_SKIP_K8S=1." >&2
    exit 1
fi

want=$(
    cd "$SRC"
    "$GO" version
    cat build.sh go.mod go.sum tools.go cmd/etcd/main.go kwok/go.mod kwok/go.sum kwok/tools.go | sha256sum
)
want=$(printf '%s\n' "$want" | sha256sum | cut -d' ' -f1)
bins="etcd kube-apiserver kube-controller-manager kube-scheduler kwok"
fresh=1
for b in $bins; do [ -x "$OUT/$b" ] || fresh=0; done
if [ "$fresh" = 1 ] && [ "$(cat "$OUT/.stamp" 2>/dev/null)" = "$want" ]; then
    echo "k8s-bins: up to date in $OUT"
    exit 0
fi

mkdir -p "$OUT"
rm -f "$OUT/.stamp"
t0=$(date +%s)
echo "k8s-bins: building $bins into $OUT (cold, empty Go caches: about 8 min on 2 cores)"
# the version the binaries report (/version, --version), as kubernetes'
# hack/lib/version.sh sets it: the pinned k8s.io/kubernetes release
kv=$(sed -n 's/^require k8s.io\/kubernetes \(v[0-9.]*\)$/\1/p; s/^[[:space:]]*k8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$SRC/go.mod" | head -1)
major=${kv#v}
minor=${major#*.}
major=${major%%.*}
minor=${minor%%.*}
ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$kv -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done
# -mod=readonly: go.sum is committed, a build never edits it
(
    cd "$SRC"
    nice -n 10 "$GO" build -mod=readonly -trimpath -ldflags "$ldflags" -o "$OUT/" \
        k8s.io/kubernetes/cmd/kube-apiserver \
        k8s.io/kubernetes/cmd/kube-controller-manager \
        k8s.io/kubernetes/cmd/kube-scheduler \
        ./cmd/etcd
)
(
    cd "$SRC/kwok"
    nice -n 10 "$GO" build -mod=readonly -trimpath -o "$OUT/" sigs.k8s.io/kwok/cmd/kwok
)
echo "$want" >"$OUT/.stamp"
echo "k8s-bins: built in $(($(date +%s) - t0)) s"
