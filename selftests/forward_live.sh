#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# etwctl forward from a live session into systemd-journal-remote, in the
# test VM (a live session needs /dev/etw), run by forward_live_test:
#
#   sh /etw/selftests/forward_live.sh [RUNS]
#
# scripts/vm-run puts journal-remote, systemd-socket-activate and
# journalctl in the guest when the host has them (scripts/deps.sh installs
# systemd-journal-remote).  The test kernel has no TCP/IP (CONFIG_INET),
# so journal-remote listens on a UNIX socket (socket activation,
# --listen-http=-3) and forward connects with --unix-socket.  The script
# starts it, a real-time session "fwd" and a file session "fwdfile",
# both with ctl/examples/demo_provider enabled, runs "etwctl forward fwd"
# into the collector, runs the provider RUNS times (default 20), stops the
# sessions, and checks that the journal holds as many entries as the file
# session recorded events, with the provider's name, event names and
# ETW_SESSION=fwd.  Exits non-zero on failure, after a line saying why.
set -u

# /lib is /usr/lib on the host, not in the guest: the real paths.
jr=/usr/lib/systemd/systemd-journal-remote
activate=/usr/bin/systemd-socket-activate

runs=${1:-20}
tmp=/tmp/forward_vm
mkdir -p "$tmp/journal"

fail() {
	echo "$*"
	for f in "$tmp"/*.log; do
		sed "s|^|${f##*/}: |" "$f"
	done
	exit 1
}

# journal-remote needs a machine id.
[ -s /etc/machine-id ] ||
	echo 0123456789abcdef0123456789abcdef > /etc/machine-id
sock=$tmp/jr.sock
"$activate" -l "$sock" "$jr" --listen-http=-3 --output="$tmp/journal/" \
	--split-mode=host > "$tmp/jr.log" 2>&1 &
jrpid=$!
i=0
while [ ! -S "$sock" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "journal-remote did not start"
	kill -0 $jrpid 2>/dev/null || fail "journal-remote exited"
	sleep 0.1
done

etwctl start fwd --realtime > "$tmp/etwctl.log" 2>&1 &&
	etwctl start fwdfile -f "$tmp/fwd.etl" >> "$tmp/etwctl.log" 2>&1 &&
	etwctl enable fwd '*Etw-Demo-Provider' >> "$tmp/etwctl.log" 2>&1 &&
	etwctl enable fwdfile '*Etw-Demo-Provider' >> "$tmp/etwctl.log" 2>&1 ||
	fail "cannot start the sessions"
etwctl forward fwd --to http://localhost --unix-socket "$sock" \
	--spool "$tmp/spool" \
	--flush-ms 200 --stats > "$tmp/forward.log" 2>&1 &
fwdpid=$!
sleep 1
i=0
while [ $i -lt "$runs" ]; do
	/etw/ctl/examples/demo_provider --no-wait > /dev/null ||
		fail "demo_provider failed"
	i=$((i + 1))
done
etwctl stop fwdfile >> "$tmp/etwctl.log" 2>&1
# The forwarder ends when its session stops, after sending everything.
etwctl stop fwd >> "$tmp/etwctl.log" 2>&1
wait $fwdpid
rc=$?
kill $jrpid
wait $jrpid
[ $rc = 0 ] || fail "etwctl forward exited $rc"

want=$(etwctl stats "$tmp/fwd.etl" 2>/dev/null | sed -n 's/^events: \([0-9]*\) .*/\1/p')
journalctl --directory "$tmp/journal" -o export --no-pager > "$tmp/export"
got=$(grep -c '^ETW_SESSION=fwd$' "$tmp/export")
named=$(grep -c '^ETW_PROVIDER_NAME=Etw-Demo-Provider$' "$tmp/export")
echo "file session: $want events; journal: $got entries, $named named"
cat "$tmp/forward.log"
[ -n "$want" ] && [ "$want" -gt 0 ] || fail "the file session has no events"
[ "$got" = "$want" ] && [ "$named" = "$want" ] ||
	fail "journal entries differ from the events"
for name in Starting Banner Request CacheMiss SlowQuery; do
	grep -q "^ETW_EVENT_NAME=$name$" "$tmp/export" ||
		fail "no $name event in the journal"
done
