#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mutate-guest.sh STAGE ID...: runs in the test VM for make mutate
# (scripts/mutate.sh), which booted it with --no-load.  For each mutant
# STAGE/ID (a directory with "suites", the suites to run in order, and
# either etw.ko and etw_test.ko, a mutated module, or libetw.so, a mutated
# library used with the unmutated module):
#   - loads the module, puts the library in place;
#   - runs the suites until one fails: "kunit" is the KUnit module, any
#     other name a kselftest under /etw/selftests (with ETW_MODULE the
#     module's file, for fault_test's loads); a suite fails on a nonzero
#     exit, a timeout, or a kernel report in the log;
#   - restores the library, unloads the module;
#   - prints "@@MUT-RESULT@@ ID killed|survived WHY".
# After a kernel report or a failed unload the kernel is not trusted for
# the next mutant: it prints "@@MUT-STOP@@" and stops, and the host boots
# a fresh VM for the rest.  A hang panics the kernel (hung_task_panic,
# softlockup_panic, panic_on_rcu_stall: a KUnit case looping in its
# kthread stalls RCU without blocking a task), and so does an oops
# (panic_on_oops: an oops in rmmod can leave the machine spinning with
# interrupts off, past every watchdog): the host sees "@@MUT-BEGIN@@ ID"
# with no result.

stage=$1
shift
timeout=${MUTATE_TEST_TIMEOUT:-300}
reports='BUG:|WARNING:|Oops|UBSAN:|general protection|Call Trace:|kernel BUG|refcount_t: |list_(add|del) corruption|blocked for more than'

for knob in hung_task_panic softlockup_panic panic_on_rcu_stall panic_on_oops; do
	echo 1 > /proc/sys/kernel/$knob 2>/dev/null
done
cp /etw/userlib/libetw.so /tmp/libetw.so.orig

# A kernel report since the last call, as one line, or nothing.
new_report() {
	dmesg -c 2>/dev/null | grep -E "$reports" | head -n 1
}

# run_kunit MODULE: the name of the first failing KUnit suite, or nothing.
run_kunit() {
	if ! insmod "$1" 2>/dev/null; then
		echo "insmod-etw_test"
		return
	fi
	for d in /sys/kernel/debug/kunit/etw*; do
		[ -e "$d/results" ] || continue
		if grep -q '^not ok\|^    not ok' "$d/results"; then
			echo "kunit/${d##*/}"
			break
		fi
	done
	rmmod etw_test
}

# run_mutant ID: prints the WHY of a kill, or nothing.
run_mutant() {
	dir=$stage/$1
	mod=/lib/etw/etw.ko
	kunit=/lib/etw/etw_test.ko
	if [ -e "$dir/etw.ko" ]; then
		mod=$dir/etw.ko
		kunit=$dir/etw_test.ko
	fi
	if ! insmod "$mod" 2>/dev/null; then
		echo "insmod"
		return
	fi
	[ -e "$dir/libetw.so" ] && cp "$dir/libetw.so" /etw/userlib/libetw.so
	why=
	for s in $(cat "$dir/suites"); do
		if [ "$s" = kunit ]; then
			why=$(run_kunit "$kunit")
		elif ! ETW_MODULE=$mod timeout "$timeout" /etw/selftests/"$s" \
				> /tmp/mutant.out 2>&1; then
			why=$s
		fi
		r=$(new_report)
		[ -n "$r" ] && why="${why:-$s} + kernel report: $r"
		[ -n "$why" ] && break
	done
	cp /tmp/libetw.so.orig /etw/userlib/libetw.so
	echo "$why"
}

dmesg -c > /dev/null
for id in "$@"; do
	echo "@@MUT-BEGIN@@ $id"
	why=$(run_mutant "$id")
	stop=0
	case "$why" in *"kernel report"*) stop=1 ;; esac
	if ! rmmod etw 2>/dev/null; then
		why="${why:-rmmod etw failed}"
		stop=1
	fi
	r=$(new_report)
	if [ -n "$r" ]; then
		why="${why:-kernel report}: $r"
		stop=1
	fi
	if [ -n "$why" ]; then
		echo "@@MUT-RESULT@@ $id killed $why"
	else
		echo "@@MUT-RESULT@@ $id survived"
	fi
	if [ $stop = 1 ]; then
		echo "@@MUT-STOP@@"
		exit 0
	fi
done
