#!/usr/bin/env bash
# Runs on the GPU machine: hand-edited copies of one emitted kernel (each a
# whole .cu file with one extern "C" kernel of the signature (in, out, batch))
# built into one harness and timed side by side against a D2D copy of the same
# bytes, each checked against the first file's output; docs/bench/h200_walk_kernels.log
# used it on R2C 11 and 17. Needs nvcc (CUDA on the device machine).
# prep.sh NAME IN_T OUT_T IN_SCALARS IN_ROW OUT_ROW ROWS_PER_BLOCK THREADS file... : builds and runs the harness
set -euo pipefail
name=$1; in_t=$2; out_t=$3; sc=$4; inr=$5; outr=$6; rpb=$7; thr=$8; shift 8
d=/tmp/kx_$name; rm -rf $d; mkdir -p $d
i=0; : > $d/variants.inc; names=""; ks=""
for f in "$@"; do
  k=$(grep -o 'void __launch_bounds__([0-9, ]*) [A-Za-z0-9_]*' $f | awk '{print $NF}')
  [ -z "$k" ] && k=$(grep -o '__global__ void [A-Za-z0-9_]*' $f | awk '{print $NF}')
  sed "s/\b$k\b/KERNEL_$i/" $f > $d/v$i.cu
  printf 'namespace V%s {\n#include "v%s.cu"\n}\n' $i $i >> $d/variants.inc
  names="$names\"$(basename $f .cu)\","; ks="$ks V$i::KERNEL_$i,"; i=$((i+1))
done
cat >> $d/variants.inc <<EOT
#define NVAR $i
#define NAME "$name"
typedef $in_t IN_T; typedef $out_t OUT_T;
#define IN_SCALARS $sc
#define IN_ROW $inr
#define OUT_ROW $outr
#define ROWS_PER_BLOCK $rpb
#define THREADS $thr
static const char* names[] = {$names};
static void (*kernels[])(const IN_T*, OUT_T*, unsigned) = {$ks};
EOT
cp "$(dirname "$0")/harness.cu" $d/
( cd $d && nvcc -O3 -arch=sm_90 -std=c++17 -w -o h harness.cu ) && $d/h
