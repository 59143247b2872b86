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
cp -r Kbuild VERSION kmod uapi "$mods/"
find "$mods" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
make -s -C "$kdir" M="$mods" modules
# lttng_bench runs inside an LTTng session, which lttng_session.sh makes.
benches=$(cd selftests/bench && ls *_bench 2>/dev/null | grep -v '^lttng_bench$')
cmd=""
for b in $benches; do
	cmd="$cmd /etw/selftests/bench/$b ${BENCH_ITERS:-};"
done
cmd="$cmd /etw/selftests/bench/lttng_session.sh ${BENCH_ITERS:-};"
# LTTng's session daemon, consumer daemon, client, session schema and the
# tracepoint library liblttng-ust loads with dlopen().
lttng=()
for f in /usr/bin/lttng /usr/bin/lttng-sessiond /usr/share/xml/lttng \
	 /usr/lib/*/lttng/libexec/lttng-consumerd \
	 /usr/lib/*/liblttng-ust-tracepoint.so.1; do
	lttng+=(--add "$f")
done
# Without ERMS/FSRM the kernel copies with rep movsq instead of rep movsb,
# which TCG emulates a byte at a time: a cost real CPUs do not have, that
# would swamp every figure that copies user memory (ours and the peer's).
cpu=max,-erms,-fsrm
scripts/vm-run --cpu $cpu --modules "$mods/kmod" "${lttng[@]}" \
	--log "$top/build/vm/bench-console.log" -- sh -c \
	"echo 1 > /sys/kernel/tracing/tracing_on; $cmd"

# The write path again, in guest instructions per operation: exact and
# steady where times move between runs.  One vCPU, so that the count holds
# only the benchmark's CPU; the plugin slows the guest, so it has a boot of
# its own.
plugin=$top/build/icount-plugin.so
counts=$top/build/vm/icount.txt
${CC:-cc} -O2 -shared -fPIC -o "$plugin" scripts/icount-plugin.c
labels=$(scripts/vm-run --smp 1 --cpu $cpu --modules "$mods/kmod" "${lttng[@]}" \
	--log "$top/build/vm/icount-console.log" \
	--qemu-arg -plugin --qemu-arg "$plugin,out=$counts" -- sh -c \
	"echo 1 > /sys/kernel/tracing/tracing_on;
	 echo '# etw write path in guest instructions per operation (kernel + user), 10000 operations';
	 /etw/selftests/bench/write_bench --insns 10000;
	 /etw/selftests/bench/lttng_session.sh --insns 10000;
	 echo '# EventWrite vs the ioctl it wraps, in guest instructions per operation';
	 /etw/selftests/bench/libetw_bench --insns 10000;
	 echo '# each filter, 64 B, for an event it passes and one it drops, in guest instructions per operation';
	 /etw/selftests/bench/filter_bench --insns 10000;
	 /etw/selftests/bench/sched_bench --insns 10000")
# One count line per label; '#' lines are headings, "(floor)" and
# "(base)" labels the baselines of the lines after them.
echo "$labels" | awk -v counts="$counts" '
/^#/ { printf "\n%s\n", $0; next }
{
	if ((getline line < counts) <= 0) { print "icount: no count for " $0; exit 1 }
	split(line, c, " "); n = (c[1] + c[2]) / 10000
	if ($0 ~ /\((floor|base)\)$/) base = n
	printf "%-46s %9.1f insns  %.2fx\n", $0, n, n / base
}'

# The inline enable check on the host CPU: under TCG every guest load costs
# a software TLB lookup, a cost no CPU has (userlib/tests/enabled_bench.c).
make -s userlib/tests/enabled_bench
echo
userlib/tests/enabled_bench

# Reading and decoding ETL files, natively (scripts/bench-host.sh).
echo
scripts/bench-host.sh
