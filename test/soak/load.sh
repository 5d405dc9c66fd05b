#!/bin/sh
# Keeps both cores busy while a soak runs (make soak SOAK_LOAD=1): one CPU
# hog per core, and a second, unrelated turnstile-apiserver + turnstile
# pair under a job churn of its own (test/soak/soak.py with another seed,
# no faults, no kills, its violations ignored: it is load, not a test).
#   test/soak/load.sh start DIR BIN   starts it all, PIDs in DIR/pids
#   test/soak/load.sh stop DIR        stops it all
set -eu
cmd=${1:?usage: load.sh start DIR BIN | stop DIR}
dir=${2:?usage: load.sh start DIR BIN | stop DIR}
case $cmd in
start)
    bin=${3:?usage: load.sh start DIR BIN}
    rm -rf "$dir"
    mkdir -p "$dir"
    for _ in $(seq "$(nproc)"); do
        sh -c 'while :; do :; done' &
        echo $! >>"$dir/pids"
    done
    /usr/bin/python3 "$(dirname "$0")/soak.py" --bin "$bin" --dir "$dir/pair" --seed 4242 \
        --steps 1000000 --max-seconds 7200 --faults "" --restart-every 1000000 \
        --apiserver-kill 0 --controller-kill 0 --quiesce-every 1000000 --pace 0.05 \
        >"$dir/pair.out" 2>&1 &
    echo $! >>"$dir/pids"
    echo "load: $(nproc) CPU hogs and a second apiserver + controller pair (logs in $dir)"
    ;;
stop)
    [ -f "$dir/pids" ] || exit 0
    # the pair's driver stops its own servers on SIGTERM (soak.py's finally)
    while read -r p; do kill "$p" 2>/dev/null || true; done <"$dir/pids"
    while read -r p; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$p" 2>/dev/null || true
    done <"$dir/pids"
    rm -f "$dir/pids"
    ;;
*)
    echo "usage: load.sh start DIR BIN | stop DIR" >&2
    exit 2
    ;;
esac
