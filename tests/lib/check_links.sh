#!/usr/bin/env bash
# check_links.sh BINARY ARCHIVE...: fails when BINARY holds any function or
# object an ARCHIVE defines. A decode-only program is checked against the
# code generator's and the assembler's archives: decoding must not drag
# them in (docs/architecture.md, "What links what": events -> spec, never
# codegen).
set -euo pipefail
binary=$1
shift
# Global definitions of the archives (hidden ones included: the layers are
# built with -fvisibility=hidden, so the linker makes them local in BINARY).
nm --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u >"${TMPDIR:-/tmp}/archive.$$"
nm --defined-only "$binary" | awk 'NF == 3 { print $3 }' | sort -u >"${TMPDIR:-/tmp}/binary.$$"
both=$(comm -12 "${TMPDIR:-/tmp}/archive.$$" "${TMPDIR:-/tmp}/binary.$$")
defined=$(wc -l <"${TMPDIR:-/tmp}/archive.$$")
rm -f "${TMPDIR:-/tmp}/archive.$$" "${TMPDIR:-/tmp}/binary.$$"
if [ "$defined" -eq 0 ]; then
	echo "check_links: the archives define nothing: $*" >&2
	exit 1
fi
if [ -n "$both" ]; then
	echo "check_links: $binary links code of $*:" >&2
	echo "$both" | head -20 >&2
	exit 1
fi
echo "$binary links none of the $defined symbols of: $*"
