#!/bin/sh
# Plots time to admission over creation time per workload class, live
# against the ideal under the same budget, from two `turnstilectl bench
# --series` files (docs/benchmarks.md).  Needs gnuplot (Debian:
# gnuplot-nox); a documentation tool, not a dependency of the product.
# Usage: test/perf/plot.sh LIVE.tsv IDEAL.tsv OUT.png [TITLE]
set -eu
live=${1:?usage: plot.sh LIVE.tsv IDEAL.tsv OUT.png [TITLE]}
ideal=${2:?usage: plot.sh LIVE.tsv IDEAL.tsv OUT.png [TITLE]}
out=${3:?usage: plot.sh LIVE.tsv IDEAL.tsv OUT.png [TITLE]}
title=$(printf '%s' "${4:-time to admission}" | tr -d "'")
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot.sh: gnuplot missing; install with: sudo apt-get install -y gnuplot-nox" >&2
    exit 1
}
classes=$(grep -v '^#' "$live" | cut -f1 | sort -u | tr '\n' ' ')
plots="'$ideal' using 2:4 with points pt 7 ps 0.3 lc rgb '#c8c8c8' title 'ideal (every class)'"
color=1
for c in $classes; do
    plots="$plots, '$live' using (strcol(1) eq '$c' ? \$2 : 1/0):4 with points pt 7 ps 0.2 lc $color title '$c live'"
    color=$((color + 1))
done
gnuplot <<GP
set terminal pngcairo size 1100,650 noenhanced
set output '$out'
set title '$title'
set xlabel 'creation time (s from the start)'
set ylabel 'time to admission (s)'
set key outside right top
set datafile separator '\t'
set grid
plot $plots
GP
echo "wrote $out"
