#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# abi-check.sh [LIBETW.SO]: libetw's ABI version (the Makefile's ABI) is
# the one its soname, libetw.map, the Debian package and its symbols file
# say (Documentation/libetw.rst, "ABI version"):
#   - every version node of userlib/libetw.map is LIBETW_ABI or LIBETW_ABI.N;
#   - the library's SONAME is libetw.so.ABI;
#   - each function it exports has one of those versions;
#   - debian/control has the package libetwABI, whose symbols file is for
#     libetw.so.ABI and lists exactly the exported functions.
# One line per problem on stderr; exit status 1 if there is any.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-$top/userlib/libetw.so}
abi=$(sed -n 's/^ABI := *\([0-9][0-9]*\)$/\1/p' "$top/Makefile")
map=$top/userlib/libetw.map
bad=0

fail() {
	echo "abi-check: $*" >&2
	bad=1
}

[ -n "$abi" ] || { echo "abi-check: no 'ABI := N' in the Makefile" >&2; exit 1; }
[ -r "$lib" ] || { echo "abi-check: $lib: not built" >&2; exit 1; }

nodes=$(sed -n 's/^\([A-Za-z_][A-Za-z0-9_.]*\) *{.*/\1/p' "$map")
[ -n "$nodes" ] || fail "$map: no version node"
for n in $nodes; do
	[[ $n =~ ^LIBETW_${abi}(\.[0-9]+)?$ ]] ||
		fail "$map: version node $n is not LIBETW_$abi or LIBETW_$abi.N"
done

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libetw.so.$abi" ] ||
	fail "$lib: SONAME '$soname', not libetw.so.$abi"

# Defined dynamic symbols as NAME@VERSION; a version node's own symbol
# (ABS, named for the node) as NODE@NODE, as dpkg-gensymbols lists it.
exports=$(readelf --dyn-syms -W "$lib" |
	awk '$7 != "UND" && $1 ~ /^[0-9]+:$/ && $8 != "" {
		if ($8 !~ /@/ && $7 == "ABS") $8 = $8 "@" $8
		sub("@@", "@", $8); print $8 }' |
	sort -u)
while read -r s; do
	[ -n "$s" ] || continue
	v=${s#*@}
	[ "$v" != "$s" ] || { fail "$lib: $s is exported without a version"; continue; }
	grep -qxF "$v" <<< "$nodes" || fail "$lib: $s: version $v is not in $map"
done <<< "$exports"

pkg=libetw$abi
grep -qx "Package: $pkg" "$top/debian/control" ||
	fail "debian/control: no package $pkg for libetw.so.$abi"
sym=$top/debian/$pkg.symbols
if [ -r "$sym" ]; then
	head -n 1 "$sym" | grep -q "^libetw\.so\.$abi $pkg " ||
		fail "$sym: its first line is not 'libetw.so.$abi $pkg ...'"
	listed=$(sed -n 's/^ \([^ ]*\) .*/\1/p' "$sym" | sort -u)
	diff <(echo "$exports") <(echo "$listed") | sed -n 's/^</  exported, not in the symbols file:/p;
		s/^>/  in the symbols file, not exported:/p' | while read -r l; do
		echo "abi-check: $sym: $l" >&2
	done
	[ "$exports" = "$listed" ] || bad=1
else
	fail "no $sym"
fi

[ $bad = 0 ] && echo "abi-check: ABI $abi: libetw.so.$abi, $(wc -l <<< "$exports") versioned symbols, $pkg"
exit $bad
