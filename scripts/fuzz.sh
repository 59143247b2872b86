#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz [SECONDS=N] [SEED=S] [THREADS=T]: fuzz /dev/etw in the test VM.
#   1. selftests/fuzz_test --seconds N: the seeded etw fuzzer (ioctl, mmap,
#      read, poll, fork, exec, close; root and uid 1000);
#   2. Debian's trinity against /dev/etw for another N seconds, when it can
#      be installed (apt) and runs in the busybox initramfs;
#   3. a kmemleak scan, rmmod etw, and a scan of the console log.
# Before the VM boots, each libFuzzer target of userlib/fuzz/ runs on the
# host for N seconds too (scripts/fuzz-host.sh, a line per target); a crash
# there also fails the run.  HOST_SECONDS=N and TRINITY_SECONDS=N give those
# two parts their own length (default: SECONDS); 0 leaves the part out, for
# a long run of the etw fuzzer alone.
# The last line reads "fuzz: seed S, E executions in D s, K kernel reports".
# Logs go to build/fuzz/ (vm.out, console.log) and build/fuzz-host/.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
seconds=${1:-60}
seed=${SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
threads=${THREADS:-3}
host_seconds=${HOST_SECONDS:-$seconds}
trinity_seconds=${TRINITY_SECONDS:-$seconds}
for n in "$seconds" "$host_seconds" "$trinity_seconds"; do
	case "$n" in
	''|*[!0-9]*)
		echo "fuzz: $n: seconds must be a whole number" >&2
		exit 1 ;;
	esac
done
out=$top/build/fuzz
rm -rf "$out"
mkdir -p "$out"

scripts/deps.sh || exit 1
kdir=$(scripts/build-kernel.sh) || exit 1
export KDIR_TEST=$kdir
make -s -j"$(nproc)" all KDIR="$kdir" > "$out/build.out" 2>&1 || {
	cat "$out/build.out" >&2
	exit 1
}

# libetw's parsers on the host: the ETL reader, TDH, manifests.
host_rc=0
if [ "$host_seconds" != 0 ]; then
	scripts/fuzz-host.sh "$host_seconds"
	host_rc=$?
fi

# trinity: Debian's package, installed here only (make check does not need it).
adds=()
trinity_bin=
if [ "$trinity_seconds" != 0 ] && ! command -v trinity > /dev/null; then
	if [ "$(id -u)" = 0 ] && apt-cache policy trinity 2>/dev/null |
			grep -q 'Candidate: [0-9]'; then
		echo "fuzz: installing trinity" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends trinity > "$out/apt.out" 2>&1 ||
			echo "fuzz: apt-get install trinity failed (see $out/apt.out)" >&2
	else
		echo "fuzz: trinity is not installed and cannot be installed here" >&2
	fi
fi
[ "$trinity_seconds" = 0 ] || trinity_bin=$(command -v trinity || true)
[ -n "$trinity_bin" ] && adds+=(--add "$trinity_bin")

# What runs in the guest.
guest=$out/guest.sh
cat > "$guest" <<EOF
#!/bin/sh
echo "@@FUZZ-BEGIN@@"
/etw/selftests/fuzz_test --seconds $seconds --seed $seed --threads $threads
echo "@@FUZZ-END@@ \$?"
if [ -n "$trinity_bin" ]; then
	# trinity refuses root without --dangerous; its children drop to
	# nobody with -X.  Only the calls that reach /dev/etw's file operations.
	# (-X switches to "nobody", whom the initramfs lacks.)
	grep -q '^nobody:' /etc/passwd ||
		echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >> /etc/passwd
	grep -q '^nogroup:' /etc/group || echo 'nogroup:x:65534:' >> /etc/group
	mkdir -p /tmp/trinity && chmod 777 /tmp/trinity && cd /tmp/trinity
	echo "@@TRINITY-BEGIN@@"
	# It counts down 10 s and sets up for a while before the first call.
	timeout -s INT $((trinity_seconds + 30)) "$trinity_bin" --dangerous -X -q -C 2 \\
		-s $seed -V /dev/etw -c ioctl -c mmap -c read -c pread64 \\
		-c poll -c close -c openat -c munmap -c fcntl -c dup \\
		--disable-fds=sockets,pipes,perf,epoll,eventfd,timerfd,memfd,drm,testfile \\
		> /tmp/trinity.out 2>&1
	echo "@@TRINITY-END@@ \$?"
	grep -v '^\[main\] Marking syscall' /tmp/trinity.out | tail -n 30
	cd /
fi
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 2
	echo scan > /sys/kernel/debug/kmemleak
	echo "@@KMEMLEAK@@"
	cat /sys/kernel/debug/kmemleak
fi
rmmod etw
echo "@@RMMOD@@ \$?"
EOF
chmod +x "$guest"

vm_timeout=$((seconds + trinity_seconds + 960))
scripts/vm-run --log "$out/console.log" --timeout "$vm_timeout" \
	--add "$guest" ${adds[@]+"${adds[@]}"} -- sh "$guest" > "$out/vm.out" 2>&1
vm_rc=$?
grep -E '^# fuzz:|@@' "$out/vm.out" >&2

python3 - "$out" "$seed" "$vm_rc" <<'EOF'
import os, re, sys
sys.path.insert(0, 'scripts')
import testsum
d, seed, vm_rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
vm = open(os.path.join(d, 'vm.out'), errors='replace').read()
console = open(os.path.join(d, 'console.log'), errors='replace').read()
# kmemleak's boot message is not a report.
bad = [l for l in testsum.scan_console(console)
       if 'leak detector initialized' not in l]
m = re.search(r'executions=(\d+) .*seconds=([\d.]+)', vm)
execs, secs = (m.group(1), m.group(2)) if m else ('0', '0')
fuzz_rc = re.search(r'@@FUZZ-END@@ (\d+)', vm)
trinity = re.search(r'@@TRINITY-END@@ (\d+)', vm)
rmmod = re.search(r'@@RMMOD@@ (\d+)', vm)
leaks = re.search(r'@@KMEMLEAK@@\n(.*?)(@@|$)', vm, re.S)
leak_text = leaks.group(1).strip() if leaks else ''
for line in bad[:20]:
    print('fuzz: console: ' + line)
if leak_text:
    print('fuzz: kmemleak:\n' + leak_text[:4000])
ran = re.search(r'Ran (\d+) syscalls', vm)
print('fuzz: fuzz_test exit %s; trinity %s; rmmod etw %s; vm-run %d' % (
    fuzz_rc.group(1) if fuzz_rc else 'missing',
    ('exit %s, %s syscalls' % (trinity.group(1),
                               ran.group(1) if ran else 'unknown'))
    if trinity else 'not run',
    rmmod.group(1) if rmmod else 'missing', vm_rc))
reports = len(bad) + (1 if leak_text else 0)
ok = (fuzz_rc and fuzz_rc.group(1) == '0' and rmmod and
      rmmod.group(1) == '0' and reports == 0)
print('fuzz: seed %s, %s executions in %s s, %d kernel reports' % (
    seed, execs, secs, reports))
sys.exit(0 if ok else 1)
EOF
exit $(($? || host_rc))
