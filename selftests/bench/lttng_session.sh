#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run lttng_bench (its arguments passed on) inside an LTTng session, in
# the VM: a root session daemon (user space only), a snapshot session
# with a per-UID channel in overwrite mode (a flight recorder: nothing is
# consumed while the benchmark runs, as with etw's buffering sessions and
# the tracefs instance user_events writes to), the benchmark's event
# enabled.  Then a snapshot must hold the event's data.
set -e
here=$(dirname "$0")
work=/tmp/lttng-bench
export LTTNG_HOME=$work HOME=$work
# Wait for the session daemon's answer at startup: the event is then
# enabled before main() runs.
export LTTNG_UST_REGISTER_TIMEOUT=-1
consumerd=$(ls /usr/lib/*/lttng/libexec/lttng-consumerd)

mkdir -p $work /dev/shm /run /var/run/lttng
grep -q " /dev/shm " /proc/mounts || mount -t tmpfs tmpfs /dev/shm
lttng-sessiond --daemonize --no-kernel --consumerd64-path="$consumerd" \
	> $work/sessiond.log 2>&1
lttng create etwbench --snapshot --output=$work/trace > /dev/null
lttng enable-channel --userspace --buffers-uid --overwrite \
	--subbuf-size=1M --num-subbuf=4 chan > /dev/null
lttng enable-event --userspace --channel=chan 'etw_bench:payload' > /dev/null
lttng start > /dev/null
status=0
"$here/lttng_bench" "$@" || status=$?
lttng stop > /dev/null
lttng snapshot record > /dev/null
lttng destroy > /dev/null
# The channel's stream files hold the events the ring kept.
bytes=$(find $work/trace -name 'chan_*' -type f -exec cat {} + | wc -c)
if [ "$status" = 0 ] && [ "$bytes" -lt 65536 ]; then
	echo "lttng_session: the snapshot holds $bytes bytes of events" >&2
	status=1
fi
exit $status
