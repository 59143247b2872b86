#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: build everything and run the benchmarks in the test VM.
# Figures are ratios against baselines measured in the same run; absolute
# times under TCG mean little.  BENCH_ITERS sets operations per round.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/deps.sh
# The benchmark kernel has no sanitisers or lock debugging; the module is
# built for it in a scratch copy, apart from the test kernel's build.
kdir=$(scripts/build-kernel.sh --bench)
export KDIR_TEST=$kdir
make -s -j"$(nproc)" lib ctl selftests
mods=$top/build/bench-kmod
rm -rf "$mods"
mkdir -p "$mods"
cp -r Kbuild kmod uapi "$mods/"
find "$mods" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
make -s -C "$kdir" M="$mods" modules
benches=$(cd selftests && ls *_bench 2>/dev/null)
cmd=""
for b in $benches; do
	cmd="$cmd /etw/selftests/$b ${BENCH_ITERS:-};"
done
# Without ERMS/FSRM the kernel copies with rep movsq instead of rep movsb,
# which TCG emulates a byte at a time: a cost real CPUs do not have, that
# would swamp every figure that copies user memory (ours and the peer's).
exec scripts/vm-run --cpu max,-erms,-fsrm --modules "$mods/kmod" --log "$top/build/vm/bench-console.log" -- sh -c \
	"echo 1 > /sys/kernel/tracing/tracing_on; $cmd"
