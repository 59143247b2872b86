#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak [MINUTES=N]: boot the test VM and run build/soak/etw_soak
# (selftests/soak/etw_soak.c) for N minutes (default 10): writers on every
# vCPU under enable/disable/flush/start/stop churn, with consumers.  Passes
# when
#   - every round balanced (delivered + events_lost == written, see the
#     program's header comment),
#   - the console shows no kernel report (scripts/testsum.py's patterns),
#   - unreclaimable slab after every file closed is back within
#     SLAB_TOLERANCE_KB (default 1024) of its baseline, taken after a short
#     warm-up run, and vmalloc usage too;
#   - rmmod etw succeeds and a kmemleak scan after it finds nothing.
# Prints the figures; logs in build/soak/.
#   VCPUS (default 2): the guest's CPUs; SOAK_SECONDS overrides MINUTES.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
minutes=${1:-${MINUTES:-10}}
vcpus=${VCPUS:-2}
tolerance=${SLAB_TOLERANCE_KB:-1024}
out=$top/build/soak
rm -rf "$out"
mkdir -p "$out"

kdir=$(scripts/build-kernel.sh) || exit 1
export KDIR_TEST=$kdir
make -s -j2 all KDIR="$kdir" > "$out/build.out" 2>&1 &&
	make -s build/soak/etw_soak >> "$out/build.out" 2>&1 ||
	{ cat "$out/build.out"; exit 1; }

cat > "$out/guest.sh" <<'GUEST'
# Runs in the guest: $1 = seconds.
dir=$(dirname "$0")
slab() {
	# Shrinking every cache also empties KASAN's quarantine of it, so
	# freed objects are not counted as used.
	for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f"; done 2>/dev/null
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	awk '/^(Slab|SUnreclaim|VmallocUsed):/ { printf " %s %s", $1, $2 }
	     END { print "" }' /proc/meminfo
}
echo "@@SLAB-START@@$(slab)"
"$dir"/etw_soak 2 1 > /dev/null || echo "@@WARMUP-FAILED@@"
echo "@@SLAB-BASELINE@@$(slab)"
[ -r /proc/slabinfo ] && sed 's/^/@@SLABINFO-BASELINE@@ /' /proc/slabinfo
"$dir"/etw_soak "$1" 5
echo "@@SOAK-RC@@ $?"
echo "@@SLAB-AFTER@@$(slab)"
[ -r /proc/slabinfo ] && sed 's/^/@@SLABINFO-AFTER@@ /' /proc/slabinfo
rmmod etw
echo "@@RMMOD@@ $?"
echo "@@SLAB-UNLOADED@@$(slab)"
[ -r /proc/slabinfo ] && sed 's/^/@@SLABINFO-UNLOADED@@ /' /proc/slabinfo
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	echo "@@KMEMLEAK@@ $(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)"
	cat /sys/kernel/debug/kmemleak
fi
GUEST

# vm-run --add puts a path at the same absolute path in the guest.
stage=$(mktemp -d /tmp/etw-soak.XXXXXX)
trap 'rm -rf "$stage"' EXIT
cp build/soak/etw_soak "$out/guest.sh" "$stage/"

seconds=${SOAK_SECONDS:-$((minutes * 60))}
echo "soak: $seconds s on $vcpus vCPUs; console log in $out/console.log" >&2
scripts/vm-run --smp "$vcpus" --add "$stage" --log "$out/console.log" \
	--timeout $((seconds + 600)) -- sh "$stage/guest.sh" "$seconds" \
	> "$out/vm.out" 2>&1
echo $? > "$out/vm.rc"

python3 - "$out" "$tolerance" <<'PY'
import os, re, sys
sys.path.insert(0, 'scripts')
import testsum

out, tol = sys.argv[1], int(sys.argv[2])
vm = open(os.path.join(out, 'vm.out'), errors='replace').read()
console = open(os.path.join(out, 'console.log'), errors='replace').read()
fails = []
for line in vm.splitlines():
    if line.startswith('soak:'):
        print(line)
def mark(name):
    m = re.findall(r'^@@%s@@ ?(.*)$' % name, vm, re.M)
    return m[-1] if m else None
def meminfo(name):
    v = mark(name)
    return dict(re.findall(r'(\w+): (\d+)', v or ''))
if mark('SOAK-RC') != '0':
    fails.append('etw_soak exited %s' % mark('SOAK-RC'))
if mark('WARMUP-FAILED') is not None:
    fails.append('the warm-up run failed')
start, base, after = meminfo('SLAB-START'), meminfo('SLAB-BASELINE'), meminfo('SLAB-AFTER')
unloaded = meminfo('SLAB-UNLOADED')
for key in ('SUnreclaim', 'Slab', 'VmallocUsed'):
    if key not in base or key not in after:
        fails.append('no %s figures' % key)
        continue
    d = int(after[key]) - int(base[key])
    print('soak: %-11s kB: at boot %s, baseline %s, after %s (%+d), '
          'after rmmod %s' % (key, start.get(key, '?'), base[key], after[key],
                              d, unloaded.get(key, '?')))
    if key != 'Slab' and d > tol:
        fails.append('%s grew by %d kB (tolerance %d kB)' % (key, d, tol))
def slabinfo(name):
    caches = {}
    for line in re.findall(r'^@@%s@@ (.*)$' % name, vm, re.M):
        f = line.split()
        if len(f) > 3 and f[1].isdigit():
            caches[f[0]] = int(f[1]) * int(f[3])    # active objs * size
    return caches
b, a = slabinfo('SLABINFO-BASELINE'), slabinfo('SLABINFO-AFTER')
growth = sorted(((a.get(k, 0) - b.get(k, 0), k) for k in set(a) | set(b)),
                reverse=True)
if growth:
    print('soak: caches that grew most (active objects x size, kB): ' +
          ', '.join('%s %+d' % (k, d // 1024) for d, k in growth[:5]))
u = slabinfo('SLABINFO-UNLOADED')
if u and growth:
    print('soak: the same caches after rmmod, against the baseline (kB): ' +
          ', '.join('%s %+d' % (k, (u.get(k, 0) - b.get(k, 0)) // 1024)
                    for d, k in growth[:5]))
if mark('RMMOD') != '0':
    fails.append('rmmod etw: %s' % mark('RMMOD'))
leaks = mark('KMEMLEAK')
print('soak: kmemleak after rmmod: %s unreferenced objects' % leaks)
if leaks not in (None, '0'):
    fails.append('kmemleak: %s objects' % leaks)
# kmemleak announces itself at boot: that line is no report.
bad = [l for l in testsum.scan_console(console)
       if not l.startswith('kmemleak: Kernel memory leak detector initialized')]
print('soak: kernel reports on the console: %d' % len(bad))
for line in bad[:20]:
    print('  ' + line)
if bad:
    fails.append('%d console report lines' % len(bad))
rc = open(os.path.join(out, 'vm.rc')).read().strip()
if rc != '0':
    fails.append('vm-run exited %s' % rc)
for f in fails:
    print('soak: FAIL: ' + f)
print('soak: %s' % ('FAILED' if fails else 'passed'))
print('%d passed, %d failed' % (0 if fails else 1, 1 if fails else 0))
sys.exit(1 if fails else 0)
PY
