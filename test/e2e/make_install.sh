#!/bin/sh
# make install installs the product and nothing else: turnstile,
# turnstilectl and turnstile-apiserver into $(DESTDIR)$(PREFIX)/bin, with
# kubectl-kueue linked to turnstilectl for kubectl's plugin discovery (the
# benchmark tool stays out); the Containerfile installs through it; a
# packager's CFLAGS reach the compiler.  Dry runs only (make -n): no
# release build here.
. "$(dirname "$0")/lib/apiserver.sh"
out=$(make -n --no-print-directory install PREFIX=/opt/ts DESTDIR="$T/root" 2>&1)
line=$(echo "$out" | grep '^install -m 0755')
check "installs into DESTDIR/PREFIX/bin" contains "$line" "$T/root/opt/ts/bin/"
for b in turnstile turnstilectl turnstile-apiserver; do
    check "installs $b" contains "$line" "build/release/bin/$b "
done
check "kubectl-kueue, a relative symlink to turnstilectl, for \`kubectl kueue\`" contains "$out" \
    "ln -sf turnstilectl $T/root/opt/ts/bin/kubectl-kueue"
check "not the benchmark tool" sh -c "! echo '$line' | grep -q turnstile-apiserver-bench"
check "the Containerfile installs through make install" grep -q 'make .*install PREFIX=/usr/local DESTDIR=/out' Containerfile
out=$(make -n --no-print-directory -B build/obj/pkg/util/buf.o CFLAGS=-DTS_PACKAGER_FLAG 2>&1)
check "CFLAGS from the command line reach the compiler" contains "$out" "-DTS_PACKAGER_FLAG"
out=$(make -n --no-print-directory -B build/bin/turnstilectl LDFLAGS=-Wl,--packager-flag 2>&1)
check "LDFLAGS reach the linker" contains "$out" "-Wl,--packager-flag"
finish
