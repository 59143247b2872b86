#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM (scripts/vm-run has loaded etw.ko): the KUnit
# module, every kselftest, then the module unload and a kmemleak scan
# (nothing may be left).  Each part is framed by @@ markers that
# scripts/testsum.py reads.
#
# Environment: ETW_INJECT_FAILURE=kunit|kselftest|warn|missing-suite fails
# one part on purpose, to prove that the harness notices (scripts/check.sh
# handles the other cases).  ETW_SELFTESTS limits the kselftests to a
# space-separated list of names.

kunit_params=
[ "$ETW_INJECT_FAILURE" = kunit ] && kunit_params=inject_failure=1

# Forget what boot left in kmemleak: its later reports are this run's.
sh /etw/selftests/kmemleak_check.sh clear

echo "@@KUNIT-BEGIN@@"
if [ -e /lib/etw/etw_test.ko ]; then
	if insmod /lib/etw/etw_test.ko $kunit_params; then
		dmesg > /tmp/kunit.log
		for d in /sys/kernel/debug/kunit/etw*; do
			[ -e "$d/results" ] || continue
			echo "@@KUNIT-SUITE@@ ${d##*/}"
			sh /etw/selftests/kunit_ktap.sh "${d##*/}" < /tmp/kunit.log
		done
		rm -f /tmp/kunit.log
		rmmod etw_test || echo "@@KUNIT-RMMOD-FAILED@@"
	else
		echo "@@KUNIT-INSMOD-FAILED@@"
	fi
else
	echo "@@KUNIT-NO-MODULE@@"
fi
echo "@@KUNIT-END@@"

[ "$ETW_INJECT_FAILURE" = warn ] &&
	echo "WARNING: CPU: 0 PID: 1 at injected by ETW_INJECT_FAILURE=warn" > /dev/kmsg

tests=$ETW_SELFTESTS
[ -n "$tests" ] || tests=$(cd /etw/selftests && ls *_test 2>/dev/null)
# Leave out the first kselftest, which the summary still expects.
if [ "$ETW_INJECT_FAILURE" = missing-suite ]; then
	set -- $tests
	shift
	tests=$*
fi
for t in $tests; do
	echo "@@KSFT-BEGIN@@ $t"
	timeout 600 /etw/selftests/$t
	echo "@@KSFT-END@@ $t $?"
done

# The last module reference can go a little after the tests exit (a
# process's files close as it exits, a session's last reference with
# them): retry for up to ten seconds.  Still busy, say who holds what.
unload() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmmod etw 2>/dev/null && return 0
		echo "# rmmod etw: busy (refcnt $(cat /sys/module/etw/refcnt)), retry $i"
		sleep 1
	done
	ps -o pid,ppid,stat,args
	ls -l /proc/[0-9]*/fd 2>/dev/null | grep -B20 'etw' | grep 'proc\|etw'
	rmmod etw
}
unload
echo "@@RMMOD@@ $?"

echo "@@KSFT-BEGIN@@ kmemleak"
sh /etw/selftests/kmemleak_check.sh scan
echo "@@KSFT-END@@ kmemleak $?"
