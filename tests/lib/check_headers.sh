#!/usr/bin/env bash
# The header check: every public header compiles alone, twice included (its
# guard), under gcc -std=c11 -pedantic -Wall -Wextra -Werror and under g++
# -std=c++11 -pedantic with the same warnings; and every header of the
# source tree's include/gs is among the installed ones.
# usage: check_headers.sh INSTALLED_INCLUDE_DIR SOURCE_INCLUDE_DIR
set -euo pipefail
inst=$1 src=$2
cc=${CC:-gcc} cxx=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

for h in "$src"/gs/*.h; do
	if [ ! -f "$inst/gs/$(basename "$h")" ]; then
		echo "not installed: gs/$(basename "$h") (add it to include/gs/meson.build)"
		fail=1
	fi
done

n=0
for h in "$inst"/gs/*.h; do
	name=gs/$(basename "$h")
	printf '#include <%s>\n#include <%s>\n' "$name" "$name" >"$work/one.c"
	cp "$work/one.c" "$work/one.cc"
	if ! "$cc" -std=c11 -pedantic -Wall -Wextra -Werror -I"$inst" -c "$work/one.c" \
		-o "$work/one.o" 2>"$work/err"; then
		echo "$name does not compile alone under $cc -std=c11 -pedantic:"
		head -n 20 "$work/err"
		fail=1
	fi
	if ! "$cxx" -std=c++11 -pedantic -Wall -Wextra -Werror -I"$inst" -c "$work/one.cc" \
		-o "$work/one.o" 2>"$work/err"; then
		echo "$name does not compile alone under $cxx -std=c++11 -pedantic:"
		head -n 20 "$work/err"
		fail=1
	fi
	if ! grep -q 'extern "C"' "$h" && grep -q '^GS_API' "$h"; then
		echo "$name declares GS_API functions without extern \"C\" guards"
		fail=1
	fi
	n=$((n + 1))
done
echo "$n public headers checked under $cc (C11) and $cxx (C++11)"
exit $fail
