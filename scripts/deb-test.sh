#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-test.sh [--build-only]: the Debian packages, built, installed, used
# and purged (Documentation/testing.rst, "The Debian packages").  Root;
# --build-only also runs as a user who has the build-deps.
#
#   1. build-deps (apt-get), then dpkg-buildpackage in a copy of the tree
#      (it writes to the parent directory): etw-dkms, libetw0, libetw-dev,
#      etwctl and the source package, copied to build/deb/; lintian on all
#      of them: no error, and every warning explained in debian/README.source.
#      --build-only (make deb) stops here.
#   2. apt-get install ./*.deb: DKMS builds etw.ko for the 6.1 headers
#      (linux-headers-amd64), checked by vermagic (the host loads no
#      modules); one version everywhere; group, modprobe.d and udev files;
#      a provider and a TDH consumer built with pkg-config libetw against
#      the installed files only; the consumer and etwctl dump on Windows'
#      files ($TESTDATA, default ../shared/testdata beside the tree:
#      skipped without them); bash completion.
#   3. DKMS builds etw.ko for the test kernel (6.12); the VM boots with it
#      and runs dev_test and the installed provider.
#   4. apt-get purge: nothing left of the packages, and the package list
#      and the files under the directories they touch as they were before.
#
# TAP on stdout (one result per check, "# Totals" last), for
# scripts/testsum.py; progress on stderr.  Exit status 1 when a check
# failed, 4 when none could run (not root without --build-only).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_only=0
[ "${1:-}" = --build-only ] && build_only=1
version=$(cat "$top/VERSION")
abi=$(sed -n 's/^ABI := *\([0-9][0-9]*\)$/\1/p' "$top/Makefile")
out=$top/build/deb
testdata=${TESTDATA:-$top/../shared/testdata}
etl=$testdata/etl
packages=(etw-dkms "libetw$abi" libetw-dev etwctl)
start=$(date +%s)

results=$(mktemp /tmp/etw-deb-tap.XXXXXX)
work=$(mktemp -d /tmp/etw-deb.XXXXXX)
n=0 passed=0 failed=0 skipped=0
installed=0

log() { echo "deb-test: [$(($(date +%s) - start)) s] $*" >&2; }

# ok NAME / not_ok NAME [DETAIL-FILE] / skip NAME REASON
ok() {
	n=$((n + 1)) passed=$((passed + 1))
	echo "ok $n $1" >> "$results"
	log "ok: $1"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n $1" >> "$results"
	log "FAILED: $1"
	if [ -n "${2:-}" ] && [ -s "$2" ]; then
		tail -n 25 "$2" | sed 's/^/# /' >> "$results"
		tail -n 25 "$2" | sed 's/^/deb-test:   /' >&2
	fi
}
skip() {
	n=$((n + 1)) skipped=$((skipped + 1))
	echo "ok $n $1 # SKIP $2" >> "$results"
	log "skipped: $1 ($2)"
}

# check NAME COMMAND...: one result, COMMAND's output kept for a failure.
check() {
	local name=$1 f
	shift
	f=$(mktemp "$work/check.XXXXXX")
	if "$@" > "$f" 2>&1; then ok "$name"; else not_ok "$name" "$f"; fi
}

finish() {
	local rc=0
	{
		echo "TAP version 13"
		if [ $n = 0 ]; then
			echo "1..0 # SKIP ${1:-nothing ran}"
		else
			echo "1..$n"
			cat "$results"
		fi
		echo "# deb-test took $(($(date +%s) - start)) s"
		# None: no totals, so that the summary counts one skip.
		[ $n = 0 ] ||
			echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
	}
	[ $failed = 0 ] || rc=1
	[ $n != 0 ] || rc=4
	rm -f "$results"
	rm -rf "$work"
	exit $rc
}

# Whatever stopped the run, the packages do not stay installed.
cleanup() {
	if [ $installed = 1 ]; then
		log "purging the packages after an interrupted run"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >/dev/null 2>&1
	fi
	rm -rf "$work" "$results"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

root=1
[ "$(id -u)" = 0 ] || root=0
if [ $root = 0 ] && [ $build_only = 0 ]; then
	log "needs root (apt-get install and purge, DKMS)"
	finish "not root"
fi
export DEBIAN_FRONTEND=noninteractive

# --- 1. build ---------------------------------------------------------------
# Build-Depends, and the tools that build and check the packages.
tools=(dpkg-dev debhelper dh-dkms dkms lintian bash-completion fakeroot)
need=()
for p in "${tools[@]}" $(sed -n '/^Build-Depends:/,/^[A-Za-z-]*:/p' "$top/debian/control" |
	sed -e 's/^Build-Depends://' -e '/^[A-Za-z-]*:/d' | tr ',' '\n' |
	sed -e 's/(.*)//' -e 's/ //g' | grep -v -e '^$' -e '^debhelper-compat' -e '^dh-sequence-'); do
	[ "$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || need+=("$p")
done
if [ ${#need[@]} -gt 0 ] && [ $root = 1 ]; then
	log "installing ${need[*]}"
	# apt-cache knows nothing before the first apt-get update.
	apt-cache policy "${need[0]}" 2>/dev/null | grep -q 'Candidate: [0-9]' ||
		apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends "${need[@]}" > "$work/deps.log" 2>&1
fi
check "build-deps installed" dpkg-checkbuilddeps "$top/debian/control"

rm -rf "$out"
mkdir -p "$out"
src=$work/etw-$version
mkdir -p "$src"
# The tree as it is (tracked and new files), without build output.
(cd "$top" && git ls-files -z -c -o --exclude-standard | xargs -0 -r sh -c \
	'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf -) | tar -C "$src" -xf -
log "dpkg-buildpackage in $src"
if (cd "$src" && dpkg-buildpackage -us -uc -j2) > "$out/build.log" 2>&1; then
	ok "dpkg-buildpackage: source and binary packages"
else
	not_ok "dpkg-buildpackage: source and binary packages" "$out/build.log"
	finish
fi
cp "$work"/*.deb "$work"/*.dsc "$work"/*.tar.* "$work"/*.changes "$work"/*.buildinfo "$out/"
debs=()
for p in "${packages[@]}"; do
	f=$(ls "$out/${p}_${version}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] && debs+=("$f")
done
if [ ${#debs[@]} = ${#packages[@]} ]; then
	ok "the packages: ${packages[*]} $version"
else
	ls "$out" > "$work/ls.out"
	not_ok "the packages: ${packages[*]} $version" "$work/ls.out"
	finish
fi

log "lintian"
lintian --tag-display-limit 0 --display-info "$out"/*.changes > "$out/lintian.out" 2>&1
grep '^E: ' "$out/lintian.out" > "$work/lintian-errors"
if [ -s "$work/lintian-errors" ]; then
	not_ok "lintian: no errors" "$work/lintian-errors"
else
	ok "lintian: no errors"
fi
# Each warning's tag is named in README.source, with why it stays.
: > "$work/unexplained"
sed -n 's/^W: \([^ ]*\): \([^ ]*\).*/\2/p' "$out/lintian.out" | sort -u | while read -r tag; do
	grep -q -- "^- \`$tag\`" "$top/debian/README.source" || grep "^W: [^ ]*: $tag" "$out/lintian.out"
done > "$work/unexplained"
if [ -s "$work/unexplained" ]; then
	not_ok "lintian: every warning explained in debian/README.source" "$work/unexplained"
else
	ok "lintian: every warning explained in debian/README.source ($(grep -c '^W: ' "$out/lintian.out"))"
fi
[ $build_only = 1 ] && { log "packages and lintian.out in $out"; finish; }

# --- 2. install -------------------------------------------------------------
# What purge must give back: the package list and the files below.
watched=(/usr/src /usr/include /usr/share/etw /usr/share/bash-completion /usr/share/man/man1
	/usr/share/doc /usr/bin /usr/lib/x86_64-linux-gnu /lib/modules /lib/udev /usr/lib/udev
	/etc/modprobe.d /etc/modules-load.d /var/lib/dkms)
snapshot() {
	dpkg-query -W -f '${Package}:${Architecture} ${Version} ${Status}\n' | sort > "$1.pkgs"
	find "${watched[@]}" 2>/dev/null | sort > "$1.files"
	getent group etw > "$1.group" || true
}
snapshot "$work/before"

log "apt-get install ${debs[*]}"
installed=1
if apt-get install -y --no-install-recommends "${debs[@]}" > "$out/install.log" 2>&1; then
	ok "apt-get install ./*.deb"
else
	not_ok "apt-get install ./*.deb" "$out/install.log"
fi

# The 6.1 headers DKMS built for.
k61=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)
k61=${k61#/usr/src/linux-headers-}
if [ -z "$k61" ]; then
	not_ok "DKMS: linux-headers-amd64 (6.1) installed"
else
	ko=$(ls /lib/modules/"$k61"/updates/dkms/etw.ko* 2>/dev/null | head -n 1)
	dkms status etw > "$work/dkms.status" 2>&1
	if grep -q "^etw/$version, $k61, [^:]*: installed" "$work/dkms.status" && [ -n "$ko" ]; then
		ok "DKMS: etw/$version built and installed for $k61"
	else
		ls -lR /lib/modules/"$k61" >> "$work/dkms.status" 2>&1
		not_ok "DKMS: etw/$version built and installed for $k61" "$work/dkms.status"
	fi
	# vermagic.h: the release, then SMP, preempt, mod_unload, modversions.
	conf=/usr/src/linux-headers-$k61/include/config/auto.conf
	want="$k61 "
	grep -qx CONFIG_SMP=y "$conf" && want+="SMP "
	if grep -qx CONFIG_PREEMPT_BUILD=y "$conf"; then
		want+="preempt "
	elif grep -qx CONFIG_PREEMPT_RT=y "$conf"; then
		want+="preempt_rt "
	fi
	grep -qx CONFIG_MODULE_UNLOAD=y "$conf" && want+="mod_unload "
	grep -qx CONFIG_MODVERSIONS=y "$conf" && want+="modversions "
	got=$( [ -n "$ko" ] && modinfo -F vermagic "$ko")
	if [ "$got" = "$want" ]; then
		ok "etw.ko for $k61: vermagic '$got'"
	else
		echo "vermagic '$got', the headers' '$want'" > "$work/vermagic"
		not_ok "etw.ko for $k61: vermagic matches the headers" "$work/vermagic"
	fi
fi

# One version: VERSION, the packages, etwctl, libetw.pc, dkms.conf, etw.ko.
{
	echo "VERSION $version"
	for p in "${packages[@]}"; do echo "$p $(dpkg-query -W -f '${Version}' "$p")"; done
	echo "etwctl --version: $(etwctl --version)"
	echo "libetw.pc $(pkg-config --modversion libetw)"
	echo "dkms.conf $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' /usr/src/etw-"$version"/dkms.conf)"
	echo "MODULE_VERSION $( [ -n "${ko:-}" ] && modinfo -F version "$ko")"
} > "$work/versions"
if [ "$(sed -e 's/.* //' "$work/versions" | sort -u)" = "$version" ]; then
	ok "one version, $version: packages, etwctl, libetw.pc, dkms.conf, MODULE_VERSION"
else
	not_ok "one version, $version: packages, etwctl, libetw.pc, dkms.conf, MODULE_VERSION" \
		"$work/versions"
fi

# The group, and control_gid in modprobe.d as the group's gid.
gid=$(getent group etw | cut -d: -f3)
opts=$(modprobe -c 2>/dev/null | grep '^options etw ')
if [ -n "$gid" ] && [ "$opts" = "options etw control_gid=$gid" ]; then
	ok "group etw (gid $gid); /etc/modprobe.d/etw.conf: control_gid=$gid"
else
	echo "group etw: '$gid'; modprobe -c: '$opts'" > "$work/gid"
	not_ok "group etw; /etc/modprobe.d/etw.conf gives its gid as control_gid" "$work/gid"
fi
check "udev rule: /dev/etw mode 0666, group etw" \
	grep -qx 'KERNEL=="etw", SUBSYSTEM=="misc", MODE="0666", GROUP="etw"' /lib/udev/rules.d/60-etw.rules
check "etwctl(1) installed" test -s /usr/share/man/man1/etwctl.1.gz

# A Windows-style provider and a TDH consumer: the installed headers and
# libraries only, through pkg-config (nothing of the tree on the path).
user=$work/user
mkdir -p "$user"
cp "$top/ctl/examples/demo_provider.c" "$top/ctl/examples/tdh_consumer.c" "$user/"
for p in demo_provider tdh_consumer; do
	check "$p.c built with pkg-config libetw, installed files only" \
		sh -c "cd '$user' && cc -Wall -Werror -o $p $p.c \$(pkg-config --cflags --libs libetw) &&
			{ ldd ./$p | grep -Eq 'libetw.so.$abi => (/usr)?/lib/[^ ]*/libetw.so.$abi ' ||
			  { ldd ./$p; exit 1; }; }"
done

# The CLR's manifest, where libetw.pc says TDH finds manifests.
mdir=$(pkg-config --variable=manifestdir libetw)
check "libetw0: the CLR manifest in $mdir, as in userlib/manifests" \
	sh -c "[ '$mdir' = /usr/share/etw/manifests ] &&
		dpkg -L libetw$abi | grep -qx '$mdir/clr.man' &&
		cmp '$mdir/clr.man' '$top/userlib/manifests/clr.man'"

if [ ! -r "$etl/primitive-types.etl" ] || [ ! -r "$etl/clr-gc-events.etl" ] ||
   [ ! -r "$etl/net.4.5.2.x86.etl" ]; then
	for c in "tdh_consumer: primitive-types.etl" \
		 "tdh_consumer and etwctl dump: clr-gc-events.etl, installed manifest" \
		 "etwctl dump: net.4.5.2.x86.etl, installed manifest" \
		 "etwctl dump: primitive-types.etl"; do
		skip "$c" "no Windows-written files in $etl"
	done
else
	# The file header by the kernel logger's schema, then TraceLogging: the
	# five events' own schema (userlib/tests/tdh_primitive_test.c).
	"$user/tdh_consumer" "$etl/primitive-types.etl" > "$work/prim.out" 2>&1
	cat > "$work/prim.want" <<'EOF'
MSNT_SystemTrace EventTrace BufferSize=8192 Version=0x501000A ProviderVersion=19043 NumberOfProcessors=8 EndTime=132756731820557985 TimerResolution=156250 MaxFileSize=0 LogFileMode=0x0 BuffersWritten=2 StartBuffers=1 PointerSize=8 EventsLost=0 CPUSpeed=2304 LoggerName=0xA LogFileName=0x7 TimeZoneInformation=0x88FFFFFF400074007A007200650073002E0064006C006C002C002D003300350032000000000000000000000000000000000000000000000000000000000000000000000000000A0000000500040000000000000000000000400074007A007200650073002E0064006C006C002C002D003300350031000000000000000000000000000000000000000000000000000000000000000000000000000300000005000300000000000000C4FFFFFF00000000 BootTime=132754128145000000 PerfFreq=10000000 StartTime=132756731728578510 ReservedFlags=1 BuffersLost=0 SessionNameString=solar_system LogFileNameString=C:\primitive-types_000004.etl
solar_system PrimitiveTypesTest string_type=Mercury boolean_type=false char_type=M int16_type=-51 int32_type=-102 uint16_type=51 uint32_type=102 int64_type=18446744073709551412 uint64_type=204 guid_type={0AD614C4-0EF4-4225-8013-F44F37CB0397} file_time_type=2021-09-09T14:59:35.7990000Z system_time_type=2021-09-09T14:59:35.799
solar_system PrimitiveTypesTest string_type=Venus boolean_type=true char_type=V int16_type=-95 int32_type=-190 uint16_type=95 uint32_type=190 int64_type=18446744073709551236 uint64_type=380 guid_type={E04FF801-9EA3-494F-A10E-8EF833E9099F} file_time_type=2021-09-09T14:59:36.2390000Z system_time_type=2021-09-09T14:59:36.239
solar_system PrimitiveTypesTest string_type=Earth boolean_type=false char_type=E int16_type=-65 int32_type=-130 uint16_type=65 uint32_type=130 int64_type=18446744073709551356 uint64_type=260 guid_type={C7A6C80E-F2A6-4220-AB98-D7C21A58F9FB} file_time_type=2021-09-09T14:59:36.6710000Z system_time_type=2021-09-09T14:59:36.671
solar_system PrimitiveTypesTest string_type=Mars boolean_type=false char_type=M int16_type=-29 int32_type=-58 uint16_type=29 uint32_type=58 int64_type=18446744073709551500 uint64_type=116 guid_type={0A922CEE-67C1-4108-B39D-B132E47033C4} file_time_type=2021-09-09T14:59:37.0480000Z system_time_type=2021-09-09T14:59:37.048
solar_system PrimitiveTypesTest string_type=Jupiter boolean_type=true char_type=J int16_type=-69 int32_type=-138 uint16_type=69 uint32_type=138 int64_type=18446744073709551340 uint64_type=276 guid_type={BB11B97B-1110-4EB6-BC33-FD71219D322E} file_time_type=2021-09-09T14:59:37.4840000Z system_time_type=2021-09-09T14:59:37.484
7 events, 6 decoded, 1 without a schema
EOF
	grep -v '^{68FDD900-4A3E-11D1-84F4-0000F80464E3} id=0 version=2: no schema' "$work/prim.out" |
		diff "$work/prim.want" - > "$work/prim.diff"
	if [ -s "$work/prim.diff" ]; then
		not_ok "tdh_consumer: primitive-types.etl, the five events' values" "$work/prim.diff"
	else
		ok "tdh_consumer: primitive-types.etl, the five events' values"
	fi

	# The installed manifest, which TDH reads by itself (no --manifest,
	# no ETW_MANIFEST_PATH): the CLR's 69 GC events (tdh_clr_gc_test.c)
	# decode, the file header by the kernel logger's schema.
	{
		env -u ETW_MANIFEST_PATH ETW_MANIFEST_DEBUG=1 \
			"$user/tdh_consumer" "$etl/clr-gc-events.etl" > "$work/clr.tdh" 2>&1
		grep -x "libetw: $mdir/clr.man: 3 provider(s)" "$work/clr.tdh" &&
		tail -n 1 "$work/clr.tdh" | grep -x '71 events, 70 decoded, 1 without a schema' &&
		[ "$(env -u ETW_MANIFEST_PATH etwctl dump -f csv --fields provider \
			"$etl/clr-gc-events.etl" | grep -cx Microsoft-Windows-DotNETRuntime)" = 69 ]
	} > "$work/clr.out" 2>&1
	if [ $? = 0 ]; then
		ok "tdh_consumer and etwctl dump: clr-gc-events.etl, 69 events by the manifest in $mdir"
	else
		not_ok "tdh_consumer and etwctl dump: clr-gc-events.etl, installed manifest" \
			"$work/clr.out"
	fi

	# PerfView's trace of a 32-bit .NET Framework program: each of the
	# 39,302 events of the CLR's three providers named (tdh_clr_test.c).
	env -u ETW_MANIFEST_PATH etwctl dump -f csv --fields provider,event \
		"$etl/net.4.5.2.x86.etl" 2> "$work/net.err" |
		grep '^Microsoft-Windows-DotNETRuntime' > "$work/net.out"
	awk -F, '$2 == "" { print "no name: " $0 }' "$work/net.out" > "$work/net.bad"
	grep -cx 'Microsoft-Windows-DotNETRuntimeRundown,MethodDCEndVerbose' \
		"$work/net.out" > "$work/net.dcend"
	if [ "$(wc -l < "$work/net.out")" = 39302 ] && [ ! -s "$work/net.bad" ] &&
	   [ "$(cat "$work/net.dcend")" = 13783 ]; then
		ok "etwctl dump: net.4.5.2.x86.etl, 39302 CLR events named by the manifest in $mdir"
	else
		{ wc -l < "$work/net.out"; cat "$work/net.dcend" "$work/net.bad" "$work/net.err"; } \
			> "$work/net.diff"
		not_ok "etwctl dump: net.4.5.2.x86.etl, installed manifest" "$work/net.diff"
	fi

	etwctl dump -f csv --fields provider,event,fields.string_type,fields.int32_type \
		"$etl/primitive-types.etl" > "$work/dump.out" 2>&1
	printf '%s\n' provider,event,fields.string_type,fields.int32_type \
		solar_system,PrimitiveTypesTest,Mercury,-102 solar_system,PrimitiveTypesTest,Venus,-190 \
		solar_system,PrimitiveTypesTest,Earth,-130 solar_system,PrimitiveTypesTest,Mars,-58 \
		solar_system,PrimitiveTypesTest,Jupiter,-138 | diff - "$work/dump.out" > "$work/dump.diff"
	if [ -s "$work/dump.diff" ]; then
		not_ok "etwctl dump: primitive-types.etl" "$work/dump.diff"
	else
		ok "etwctl dump: primitive-types.etl"
	fi
fi

# Bash completion as bash-completion loads it; "etwctl list" is answered
# by a wrapper in etwctl's format (no /dev/etw here).
mkdir -p "$work/bin"
cat > "$work/bin/etwctl" <<'EOF'
#!/bin/sh
if [ "$1" = list ]; then
	printf 'Session:            %s\nLogger id:          1\n\n' "NT Kernel Logger" app
	exit 0
fi
exec /usr/bin/etwctl "$@"
EOF
chmod +x "$work/bin/etwctl"
cat > "$work/complete.sh" <<'EOF'
. /usr/share/bash-completion/bash_completion
__load_completion etwctl || { echo "no completion for etwctl"; exit 1; }
t() {
	local want=$1
	shift
	COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_etwctl etwctl
	[ "${COMPREPLY[*]}" = "$want" ] || { echo "etwctl ${*:2}: '${COMPREPLY[*]}', not '$want'"; bad=1; }
}
bad=0
t "start stop stats" etwctl st
t "--max-buffers --max-file" etwctl start x --ma
t "--manifest" etwctl dump --ma
t "PROC_THREAD+LOADER" etwctl start x --on PROC_THREAD+LO
t "sequential circular newfile append" etwctl start x --mode ""
t "NT\ Kernel\ Logger" etwctl stop NT
t "NT\ Kernel\ Logger app" etwctl enable ""
t "app" etwctl dump --session a
t "on off" etwctl update s --realtime ""
t "--json --once --help" etwctl top --
exit $bad
EOF
sed -i 's/^t "--max-buffers --max-file" etwctl start x --ma$/t "--max-buffers --max-file" etwctl start x --ma/' "$work/complete.sh"
check "bash completion: commands, options, session names, kernel flags" \
	env PATH="$work/bin:$PATH" bash "$work/complete.sh"
# Its kernel flags are ctl/cmd_session.c's.
flags_c=$(sed -n '/etwctl_kernel_flag_names\[\] = {/,/^};/p' "$top/ctl/cmd_session.c" |
	grep -o '"[A-Z_]*" }' | tr -d '"} ' | sort | tr '\n' ' ')
flags_bash=$(sed -n "s/^_etwctl_kernel_flags='\(.*\)'/\1/p" \
	/usr/share/bash-completion/completions/etwctl | tr ' ' '\n' | sort | tr '\n' ' ')
check "bash completion: the kernel flags of ctl/cmd_session.c ($flags_c)" \
	test -n "$flags_c" -a "$flags_c" = "$flags_bash"

# --- 3. the test kernel, with the module DKMS built for it -------------------
kdir=${KDIR_TEST:-$("$top/scripts/build-kernel.sh" 2>/dev/null)}
if [ -z "$kdir" ] || [ ! -r "$kdir/include/config/kernel.release" ]; then
	skip "DKMS: etw.ko for the test kernel" "no test kernel"
	skip "VM: the DKMS-built etw.ko, dev_test, the installed provider" "no test kernel"
else
	k612=$(cat "$kdir/include/config/kernel.release")
	log "dkms build for $k612 ($kdir)"
	moddir=/var/lib/dkms/etw/$version/$k612/$(uname -m)/module
	if dkms build -m etw -v "$version" -k "$k612" --kernelsourcedir "$kdir" \
		> "$out/dkms-$k612.log" 2>&1 && [ -r "$moddir/etw.ko" ] &&
	   [ "$(modinfo -F vermagic "$moddir/etw.ko" | cut -d' ' -f1)" = "$k612" ]; then
		ok "DKMS: etw.ko built for the test kernel $k612"
		[ -x "$top/selftests/dev_test" ] ||
			make -C "$top" -s selftests/dev_test > "$work/dev_test.build" 2>&1
		# The installed provider, enabled by etwctl in a session with a file.
		cat > "$work/guest.sh" <<EOF
/etw/selftests/dev_test || exit 1
etwctl start deb -f /tmp/deb.etl || exit 1
etwctl enable deb '*Etw-Demo-Provider' || exit 1
$user/demo_provider --no-wait || exit 1
etwctl stop deb || exit 1
etwctl dump -f csv --fields provider,event /tmp/deb.etl 2>/dev/null | sort | uniq -c
EOF
		log "VM: dev_test and demo_provider with $moddir/etw.ko"
		KDIR_TEST=$kdir "$top/scripts/vm-run" --modules "$moddir" --log "$out/console.log" \
			--timeout 600 --add "$user/demo_provider" --add "$work/guest.sh" \
			-- sh "$work/guest.sh" > "$out/vm.out" 2>&1
		vm=$?
		bad=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import testsum
print("\n".join(testsum.scan_console(open(sys.argv[2], errors="replace").read())))' \
			"$top/scripts" "$out/console.log" 2>&1)
		if [ $vm = 0 ] && grep -q '^# Totals: pass:[1-9][0-9]* fail:0 ' "$out/vm.out" &&
		   grep -Eq '^ +1 Etw-Demo-Provider,Starting$' "$out/vm.out" && [ -z "$bad" ]; then
			ok "VM: the DKMS-built etw.ko, dev_test, the installed provider ($(grep -c Etw-Demo-Provider, "$out/vm.out") kinds of events)"
		else
			echo "$bad" >> "$out/vm.out"
			not_ok "VM: the DKMS-built etw.ko, dev_test, the installed provider (vm-run $vm)" "$out/vm.out"
		fi
	else
		not_ok "DKMS: etw.ko built for the test kernel $k612" "$out/dkms-$k612.log"
		skip "VM: the DKMS-built etw.ko, dev_test, the installed provider" "no module"
	fi
fi

# --- 4. purge ---------------------------------------------------------------
log "apt-get purge ${packages[*]}"
if apt-get purge -y "${packages[@]}" > "$out/purge.log" 2>&1; then
	installed=0
	ok "apt-get purge"
else
	not_ok "apt-get purge" "$out/purge.log"
fi
{
	for p in "${packages[@]}"; do
		[ -z "$(dpkg -L "$p" 2>/dev/null)" ] || echo "dpkg -L $p: not empty"
	done
	ls -d /usr/src/etw-* 2>/dev/null
	dkms status etw 2>&1 | grep .
	ls -d /var/lib/dkms/etw 2>/dev/null
	getent group etw && ! [ -s "$work/before.group" ]
} > "$work/left" 2>&1
if [ -s "$work/left" ]; then
	not_ok "purged: dpkg -L empty, no /usr/src/etw-*, DKMS has no etw, no group etw" "$work/left"
else
	ok "purged: dpkg -L empty, no /usr/src/etw-*, DKMS has no etw, no group etw"
fi
# depmod's indexes of a kernel that had none, and the signing key DKMS made
# for 6.1's signed modules, are DKMS's own: gone with what made them.
snapshot "$work/after"
comm -13 "$work/before.files" "$work/after.files" | while read -r f; do
	case "$f" in
	/lib/modules/*/modules.*|/var/lib/dkms/mok.key|/var/lib/dkms/mok.pub)
		rm -f "$f" && echo "removed $f" ;;
	/lib/modules/*/updates|/lib/modules/*/updates/dkms)
		echo "$f" ;;
	esac
done > "$out/cleaned"
sort -r "$out/cleaned" | sed -n 's|^\(/lib/modules/.*/updates.*\)|\1|p' | xargs -r rmdir 2>/dev/null
snapshot "$work/after"
{
	diff "$work/before.pkgs" "$work/after.pkgs"
	diff "$work/before.files" "$work/after.files"
} > "$work/changed"
if [ -s "$work/changed" ]; then
	not_ok "the machine as before: installed packages, files under ${watched[*]}" "$work/changed"
else
	ok "the machine as before: installed packages and files ($(wc -l < "$work/before.files") watched)"
fi
finish
