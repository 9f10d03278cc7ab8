#!/usr/bin/env bash
# The ABI check (docs/api.md): libgs.so's public ABI (the functions, data
# and the types reachable from include/gs, as abigail reads them from the
# library's DWARF) against the baseline kept in abi/libgs.abi. Any change
# fails, with abidiff's report: a change to the ABI is made deliberately,
# by regenerating the baseline (GS_UPDATE_ABI=1 meson test -C build
# lib-abi), reading its diff and committing it, and raising the soname
# when the report says the change is incompatible.
# usage: check_abi.sh LIBGS_SO SOURCE_DIR
set -euo pipefail
lib=$1 src=$2
baseline=$src/abi/libgs.abi
headers=$src/include/gs

for tool in abidw abidiff; do
	command -v "$tool" >/dev/null ||
		{ echo "SKIP: $tool not installed (abigail-tools; scripts/deps installs it)"; exit 77; }
done
if [ "${GS_SANITIZE:-none}" != none ]; then
	echo "SKIP: a sanitizer build exports its instrumentation; the ABI is checked on the plain build"
	exit 77
fi
sections=$(readelf -S "$lib")
if [[ $sections != *.debug_info* ]]; then
	echo "SKIP: $lib has no DWARF (a release build): abigail reads the types from it"
	exit 77
fi
if [ "${GS_UPDATE_ABI:-}" = 1 ]; then
	mkdir -p "$(dirname "$baseline")"
	abidw --headers-dir "$headers" --drop-private-types --drop-undefined-syms \
		--no-corpus-path --no-show-locs --no-comp-dir-path --no-elf-needed \
		--type-id-style hash --out-file "$baseline" "$lib"
	echo "wrote $baseline: review its diff before committing it"
	exit 0
fi
[ -f "$baseline" ] || { echo "FAIL: no baseline $baseline (GS_UPDATE_ABI=1 makes it)"; exit 1; }
set +e
abidiff --headers-dir2 "$headers" --drop-private-types "$baseline" "$lib"
rc=$?
set -e
if [ $rc -ne 0 ]; then
	if [ $((rc & 8)) -ne 0 ]; then
		echo "FAIL: an incompatible ABI change (abidiff exit $rc): raise the soname, or undo it"
	elif [ $((rc & 4)) -ne 0 ]; then
		echo "FAIL: the ABI changed (abidiff exit $rc): if meant, add the new symbols to a new"
		echo "version node of src/libgs/libgs.map and regenerate the baseline (GS_UPDATE_ABI=1)"
	else
		echo "FAIL: abidiff could not compare (exit $rc)"
	fi
	exit 1
fi
echo "libgs.so's ABI equals $baseline ($(grep -c '<function-decl' "$baseline") functions)"
