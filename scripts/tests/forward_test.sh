#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# etwctl forward against a real systemd-journal-remote (host, root): the
# journal must hold every event of the forwarded files, field by field as
# "etwctl dump --format json" prints them (forward_compare.py), through a
# collector outage, a restart with a spool, a full spool, from two hosts
# (network namespaces) into per-host journals, over https, and a spool
# that keeps one collector's batches from another.  Every case forwards
# files etw writes (forward_gen); one also forwards a file Windows wrote,
# from the sample files (TESTDATA, default ../shared/testdata beside the
# checkout), checks its entries against the values the file holds
# (windows_values.json) too, and skips without them.
#
# Output: kselftest-style TAP, one result per behaviour, for
# scripts/check.sh (host-forward_test.out/.rc).  Run from anywhere, after
# "make lib ctl".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
etwctl=$top/ctl/etwctl
compare=$top/scripts/tests/forward_compare.py
jr=/lib/systemd/systemd-journal-remote
testdata=${TESTDATA:-$top/../shared/testdata}
primitive=$testdata/etl/primitive-types.etl
# The session name primitive-types.etl records (its LoggerName).
primitive_session=solar_system
# etl_test_params()'s logger name, which forward_gen writes.
gen_session=etw-test
# Each test's collector listens on its own port, below the kernel's
# ephemeral range (32768-60999), where a connection's local port can take it.
port=$((20000 + $$ % 12000))

echo "TAP version 13"
if [ "$(id -u)" != 0 ] || [ ! -x "$jr" ] || [ ! -x "$etwctl" ]; then
	echo "1..0 # SKIP needs root, $jr and ctl/etwctl"
	exit 4
fi
echo "1..11"

tmp=$(mktemp -d /tmp/forward_test.XXXXXX)
pids=()
netns=()
cleanup() {
	local p n
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for n in "${netns[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

cc -Iuapi -Iuserlib/include -D_GNU_SOURCE -Iuserlib -Iuserlib/tests -O2 \
	-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-o "$tmp/forward_gen" "$top/scripts/tests/forward_gen.c" \
	"$top/userlib/libetw.a" $(pkg-config --libs libxml-2.0) -lpthread \
	2> "$tmp/gen.err" || { cat "$tmp/gen.err"; exit 1; }

n=0
pass=0
fail=0
skip=0
# result STATUS NAME: one TAP line after the test's log (as comments);
# STATUS "skip" with the reason in $tmp/skip.
result() {
	n=$((n + 1))
	sed 's/^/# /' "$tmp/log"
	: > "$tmp/log"
	if [ "$1" = skip ]; then
		skip=$((skip + 1))
		echo "ok $n forward.$2 # SKIP $(cat "$tmp/skip")"
	elif [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n forward.$2"
	else
		fail=$((fail + 1))
		echo "not ok $n forward.$2"
	fi
}
: > "$tmp/log"
say() { echo "$*" >> "$tmp/log"; }

# collector DIR ADDR [NETNS]: start journal-remote, one journal per host;
# its pid in $collector_pid once it listens.  $listen is how (http unless
# set), @tls its certificate options.
listen=--listen-http
tls=()
collector() {
	local dir=$1 addr=$2 ns=${3:-} i
	local run=()
	[ -n "$ns" ] && run=(ip netns exec "$ns")
	mkdir -p "$dir"
	"${run[@]}" "$jr" "$listen=$addr" "${tls[@]}" --output="$dir/" \
		--split-mode=host >> "$dir.log" 2>&1 &
	collector_pid=$!
	pids+=("$collector_pid")
	for i in $(seq 100); do
		"${run[@]}" ss -Hltn "sport = :${addr##*:}" | grep -q . && return 0
		kill -0 "$collector_pid" 2>/dev/null || break
		sleep 0.1
	done
	say "collector on $addr did not start: $(cat "$dir.log")"
	return 1
}

stop() {
	kill "-${2:-TERM}" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# check JOURNAL_DIR_OR_FILE [compare options] DUMP:SESSION...
check() {
	local where=$1
	shift
	if [ -d "$where" ]; then
		journalctl --directory "$where" -o json --no-pager > "$tmp/j.json"
	else
		journalctl --file "$where" -o json --no-pager > "$tmp/j.json"
	fi
	python3 "$compare" "$tmp/j.json" "$@" >> "$tmp/log" 2>&1
}

dump() {
	"$etwctl" dump --format json "$1" > "$2"
}

"$tmp/forward_gen" "$tmp/small.etl" 1000
"$tmp/forward_gen" "$tmp/big.etl" 150000
"$tmp/forward_gen" "$tmp/mid.etl" 30000
"$tmp/forward_gen" "$tmp/other.etl" 300 5000
dump "$tmp/small.etl" "$tmp/small.json"
dump "$tmp/other.etl" "$tmp/other.json"
dump "$tmp/big.etl" "$tmp/big.json"
dump "$tmp/mid.etl" "$tmp/mid.json"

# 1. The Windows-written file: TraceLogging fields, one by one.
t() {
	local d=$tmp/t1
	if [ ! -r "$primitive" ]; then
		echo "no Windows sample files in $testdata (no $primitive)" > "$tmp/skip"
		return 2
	fi
	dump "$primitive" "$tmp/primitive.json" || return 1
	collector "$d" "127.0.0.1:$port" || return 1
	"$etwctl" forward --from "$primitive" --to "http://127.0.0.1:$port" \
		--spool "$d.spool" >> "$tmp/log" 2>&1 || return 1
	stop "$collector_pid"
	check "$d" "$tmp/primitive.json:$primitive_session" || return 1
	# What the file holds, not only what dump makes of it.
	python3 "$compare" "$tmp/j.json" --values primitive-types.etl \
		>> "$tmp/log" 2>&1
}
t
case $? in
0) result 0 primitive_file_fields ;;
2) result skip primitive_file_fields ;;
*) result 1 primitive_file_fields ;;
esac

# 2. Generated events: every level's PRIORITY, activity ids, hex and
# string payloads (with a newline: binary-safe), four CPUs, in order.
t() {
	local d=$tmp/t2
	collector "$d" "127.0.0.1:$port" || return 1
	"$etwctl" forward --from "$tmp/small.etl" --batch 64 \
		--to "http://127.0.0.1:$port" --spool "$d.spool" \
		>> "$tmp/log" 2>&1 || return 1
	stop "$collector_pid"
	check "$d" "$tmp/small.json:$gen_session"
}
t
result $? generated_file_fields

# 3. The collector killed (SIGKILL) mid-stream and restarted 2 s later:
# nothing lost; at most the batch in flight (200 events) twice.
t() {
	local d=$tmp/t3 fwd rc
	collector "$d" "127.0.0.1:$port" || return 1
	"$etwctl" forward --from "$tmp/big.etl" --batch 200 --backoff-max 400 \
		--to "http://127.0.0.1:$port" --spool "$d.spool" \
		> "$tmp/fwd.err" 2>&1 &
	fwd=$!
	sleep 1.5
	stop "$collector_pid" KILL
	sleep 2
	collector "$d" "127.0.0.1:$port" || return 1
	timeout 300 tail --pid="$fwd" -f /dev/null
	wait "$fwd"
	rc=$?
	cat "$tmp/fwd.err" >> "$tmp/log"
	stop "$collector_pid"
	[ "$rc" = 0 ] || { say "forward exited $rc"; return 1; }
	grep -q "spooling in" "$tmp/fwd.err" &&
		grep -q "taking events again" "$tmp/fwd.err" ||
		{ say "forward did not see the outage"; return 1; }
	check "$d" --dups 200 "$tmp/big.json:$gen_session"
}
t
result $? collector_killed_and_restarted

# 4. No collector: the batches stay in the spool (exit 1, counted); the
# next run sends them before its own events.
t() {
	local d=$tmp/t4 rc
	"$etwctl" forward --from "$tmp/small.etl" --batch 100 --give-up 1 \
		--to "http://127.0.0.1:$port" --spool "$d.spool" \
		> "$tmp/fwd.err" 2>&1
	rc=$?
	cat "$tmp/fwd.err" >> "$tmp/log"
	[ "$rc" = 1 ] || { say "forward exited $rc, not 1"; return 1; }
	grep -q "0 events sent .* 1000 left in the spool, 0 dropped" \
		"$tmp/fwd.err" || { say "no summary of 1000 spooled"; return 1; }
	[ "$(ls "$d.spool" | grep -c '\.export$')" = 10 ] ||
		{ say "not 10 batches in the spool"; return 1; }
	collector "$d" "127.0.0.1:$port" || return 1
	"$etwctl" forward --from "$tmp/other.etl" --to "http://127.0.0.1:$port" \
		--spool "$d.spool" >> "$tmp/log" 2>&1 || return 1
	stop "$collector_pid"
	[ -z "$(ls "$d.spool")" ] || { say "spool not empty"; return 1; }
	check "$d" "$tmp/small.json:$gen_session" "$tmp/other.json:$gen_session"
}
t
result $? spool_resumed_by_next_run

# 5. A file forwarded while the collector is down fills the spool (8 MiB),
# then waits for the collector instead of dropping.
t() {
	local d=$tmp/t5 fwd rc
	"$etwctl" forward --from "$tmp/mid.etl" --spool-max 8388608 \
		--backoff-max 300 --to "http://127.0.0.1:$port" \
		--spool "$d.spool" > "$tmp/fwd.err" 2>&1 &
	fwd=$!
	sleep 3
	collector "$d" "127.0.0.1:$port" || return 1
	timeout 300 tail --pid="$fwd" -f /dev/null
	wait "$fwd"
	rc=$?
	cat "$tmp/fwd.err" >> "$tmp/log"
	stop "$collector_pid"
	[ "$rc" = 0 ] || { say "forward exited $rc"; return 1; }
	grep -q "full: waiting for the collector" "$tmp/fwd.err" ||
		{ say "the spool never filled"; return 1; }
	check "$d" "$tmp/mid.json:$gen_session"
}
t
result $? full_spool_waits_for_collector

# 6. A second forwarder cannot share a spool in use.
t() {
	local d=$tmp/t6 fwd rc
	"$etwctl" forward --from "$tmp/small.etl" --give-up 3 \
		--to "http://127.0.0.1:$port" --spool "$d.spool" \
		> /dev/null 2>&1 &
	fwd=$!
	sleep 1
	"$etwctl" forward --from "$tmp/other.etl" --to "http://127.0.0.1:$port" \
		--spool "$d.spool" > "$tmp/fwd.err" 2>&1
	rc=$?
	wait "$fwd"
	cat "$tmp/fwd.err" >> "$tmp/log"
	[ "$rc" = 1 ] && grep -qx "etwctl forward: spool $d.spool: used by another forwarder" \
		"$tmp/fwd.err"
}
t
result $? spool_locked

# 7. Two hosts: namespaces A and B, each a veth to namespace C running
# the collector; each host's events land in its own journal, named by its
# address.
t() {
	local d=$tmp/t7 ns=fwdtest$$ h fa fb
	netns+=("$ns-c" "$ns-a" "$ns-b")
	ip netns add "$ns-c" && ip netns add "$ns-a" && ip netns add "$ns-b" ||
		return 1
	ip -n "$ns-c" link set lo up
	for h in a:1 b:2; do
		ip link add "v$$${h%:*}" netns "$ns-c" type veth \
			peer name eth0 netns "$ns-${h%:*}" || return 1
		ip -n "$ns-c" addr add "10.231.${h#*:}.1/24" dev "v$$${h%:*}"
		ip -n "$ns-c" link set "v$$${h%:*}" up
		ip -n "$ns-${h%:*}" addr add "10.231.${h#*:}.2/24" dev eth0
		ip -n "$ns-${h%:*}" link set eth0 up
		ip -n "$ns-${h%:*}" link set lo up
	done
	collector "$d" "0.0.0.0:$port" "$ns-c" || return 1
	ip netns exec "$ns-a" "$etwctl" forward --from "$tmp/small.etl" \
		--to "http://10.231.1.1:$port" --spool "$d.spool-a" \
		>> "$tmp/log" 2>&1 &
	fa=$!
	ip netns exec "$ns-b" "$etwctl" forward --from "$tmp/other.etl" \
		--to "http://10.231.2.1:$port" --spool "$d.spool-b" \
		>> "$tmp/log" 2>&1 &
	fb=$!
	wait "$fa" || { say "host a: forward failed"; return 1; }
	wait "$fb" || { say "host b: forward failed"; return 1; }
	stop "$collector_pid"
	ls "$d" >> "$tmp/log"
	check "$d/remote-10.231.1.2.journal" "$tmp/small.json:$gen_session" &&
		check "$d/remote-10.231.2.2.journal" "$tmp/other.json:$gen_session"
}
t
result $? two_hosts_two_journals

# 8. https: the collector's certificate is checked against --cafile, and
# the client's certificate and key are sent (Debian's journal-remote is
# built without GnuTLS client checks: it cannot verify them).  Without
# --cafile the unknown CA is refused and the batches stay in the spool.
pki() {
	local p=$tmp/pki name
	mkdir -p "$p"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=etw-test-ca \
		-keyout "$p/ca.key" -out "$p/ca.pem" || return 1
	for name in server client; do
		openssl req -newkey rsa:2048 -nodes -subj "/CN=etw-$name" \
			-keyout "$p/$name.key" -out "$p/$name.csr" || return 1
		printf 'subjectAltName=IP:127.0.0.1\n' > "$p/$name.ext"
		openssl x509 -req -in "$p/$name.csr" -CA "$p/ca.pem" \
			-CAkey "$p/ca.key" -CAcreateserial -days 1 \
			-extfile "$p/$name.ext" -out "$p/$name.pem" || return 1
	done
}
t() {
	local d=$tmp/t8 p=$tmp/pki rc
	pki > "$tmp/pki.log" 2>&1 ||
		{ cat "$tmp/pki.log" >> "$tmp/log"; say "openssl failed"; return 1; }
	listen=--listen-https
	tls=(--key="$p/server.key" --cert="$p/server.pem")
	collector "$d" "127.0.0.1:$port"
	rc=$?
	listen=--listen-http
	tls=()
	[ $rc = 0 ] || return 1
	"$etwctl" forward --from "$tmp/small.etl" --give-up 1 \
		--to "https://127.0.0.1:$port" --spool "$d.spool-nocafile" \
		> "$tmp/fwd.err" 2>&1
	rc=$?
	cat "$tmp/fwd.err" >> "$tmp/log"
	[ $rc = 1 ] && grep -q "certificate" "$tmp/fwd.err" ||
		{ say "an unknown CA was not refused"; return 1; }
	"$etwctl" forward --from "$tmp/small.etl" --cafile "$p/ca.pem" \
		--cert "$p/client.pem" --key "$p/client.key" \
		--to "https://127.0.0.1:$port" --spool "$d.spool" \
		>> "$tmp/log" 2>&1 || { say "https forward failed"; return 1; }
	stop "$collector_pid"
	check "$d" "$tmp/small.json:$gen_session"
}
t
result $? https_with_cafile_and_client_cert

# 9. Bad arguments exit 2, an unreadable file 1, each with one line.
t() {
	local u=http://127.0.0.1:$port sp=$tmp/t9.spool ok=0 line want rc
	local f=$tmp/other.etl
	while IFS='|' read -r want line; do
		eval "set -- $line"
		"$etwctl" forward "$@" > /dev/null 2> "$tmp/fwd.err"
		rc=$?
		if [ "$rc" != "$want" ] || [ "$(wc -l < "$tmp/fwd.err")" != 1 ]; then
			say "forward $line: exit $rc, want $want: $(cat "$tmp/fwd.err")"
			ok=1
		fi
	done <<-EOF
	2|--from "$f"
	2|sess --from "$f" --to $u
	2|a b --to $u
	2|--to $u
	2|--from "$f" --to $u --batch 0
	2|--from "$f" --to $u --spool-max 8388607
	2|--from "$f" --to $u --flush-ms x
	2|--from "$f" --to $u --bogus
	2|--from "$f" --to \$'http://127.0.0.1\t:$port' --spool $sp --give-up 1
	2|--from "$f" --to $u --unix-socket "" --spool $sp --give-up 1
	1|--from /nonexistent.etl --to $u --spool $sp
	EOF
	return $ok
}
t
result $? bad_arguments

# 10. Batches spooled for collector A, then a run to collector B with the
# same spool: refused (exit 3, one line) before B is sent anything; A's
# batches stay, and the next run to A delivers them before its own events.
t() {
	local d=$tmp/t10 sp=$tmp/t10.spool rc want
	local a=http://127.0.0.1:$port b=http://127.0.0.1:$((port + 1))
	"$etwctl" forward --from "$tmp/small.etl" --batch 200 --give-up 1 \
		--to "$a" --spool "$sp" > "$tmp/fwd.err" 2>&1
	rc=$?
	cat "$tmp/fwd.err" >> "$tmp/log"
	[ "$rc" = 1 ] || { say "forward to A exited $rc, not 1"; return 1; }
	ls -A "$sp" > "$tmp/t10.before"
	[ "$(grep -c '\.export$' "$tmp/t10.before")" = 5 ] ||
		{ say "not 5 batches spooled for A"; return 1; }
	collector "$d-b" "127.0.0.1:$((port + 1))" || return 1
	"$etwctl" forward --from "$tmp/other.etl" --to "$b" --spool "$sp" \
		> "$tmp/fwd.err" 2>&1
	rc=$?
	cat "$tmp/fwd.err" >> "$tmp/log"
	stop "$collector_pid"
	[ "$rc" = 3 ] || { say "forward to B exited $rc, not 3"; return 1; }
	want="etwctl forward: spool $sp holds 1000 events for $a/upload, not"
	want="$want $b/upload: forward them there, or use another --spool"
	[ "$(cat "$tmp/fwd.err")" = "$want" ] ||
		{ say "not the one line: $want"; return 1; }
	[ "$(journalctl --directory "$d-b" -o json --no-pager 2>/dev/null |
		grep -c .)" = 0 ] || { say "collector B got entries"; return 1; }
	ls -A "$sp" | cmp -s - "$tmp/t10.before" ||
		{ say "the spool changed"; return 1; }
	[ "$(cat "$sp/.destination")" = "url $a/upload" ] ||
		{ say "the record is not A's"; return 1; }
	collector "$d-a" "127.0.0.1:$port" || return 1
	"$etwctl" forward --from "$tmp/other.etl" --to "$a" --spool "$sp" \
		>> "$tmp/log" 2>&1 || { say "forward to A failed"; return 1; }
	stop "$collector_pid"
	[ -z "$(ls "$sp")" ] || { say "spool not empty"; return 1; }
	check "$d-a" "$tmp/small.json:$gen_session" \
		"$tmp/other.json:$gen_session"
}
t
result $? spool_kept_for_its_collector

# 11. Batches whose record is corrupt (no newline) or missing: refused
# even for the collector they were spooled for, the batches kept.
t() {
	local sp=$tmp/t11.spool a=http://127.0.0.1:$port rc want how
	"$etwctl" forward --from "$tmp/small.etl" --batch 500 --give-up 1 \
		--to "$a" --spool "$sp" > "$tmp/fwd.err" 2>&1
	[ $? = 1 ] || { cat "$tmp/fwd.err" >> "$tmp/log"; return 1; }
	printf 'url %s/upload' "$a" > "$sp/.destination"
	for how in "a corrupt record of their collector ($sp/.destination): rewrite it" \
		   "no record of their collector ($sp/.destination): write one"; do
		"$etwctl" forward --from "$tmp/other.etl" --give-up 1 --to "$a" \
			--spool "$sp" > "$tmp/fwd.err" 2>&1
		rc=$?
		cat "$tmp/fwd.err" >> "$tmp/log"
		[ "$rc" = 3 ] || { say "forward exited $rc, not 3"; return 1; }
		want="etwctl forward: spool $sp holds 1000 events and $how, or use another --spool"
		[ "$(cat "$tmp/fwd.err")" = "$want" ] ||
			{ say "not the one line: $want"; return 1; }
		[ "$(ls "$sp" | grep -c '\.export$')" = 2 ] ||
			{ say "not 2 batches left"; return 1; }
		rm -f "$sp/.destination"
	done
}
t
result $? spool_record_corrupt_or_missing

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" = 0 ]
