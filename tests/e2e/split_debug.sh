#!/bin/sh
# split_debug.sh OBJCOPY link|buildid IN STRIPPED DEBUG: DWARF and symbols of
# IN into DEBUG (--only-keep-debug), the rest into STRIPPED; `link` adds a
# .gnu_debuglink to DEBUG's file name, `buildid` leaves only the build id to
# find it by (the test puts DEBUG in a .build-id directory).
set -e
objcopy=$1 mode=$2 in=$3 stripped=$4 debug=$5
"$objcopy" --only-keep-debug "$in" "$debug"
"$objcopy" --strip-all "$in" "$stripped"
if [ "$mode" = link ]; then
	cd "$(dirname "$stripped")"
	"$objcopy" --add-gnu-debuglink="$(basename "$debug")" "$(basename "$stripped")"
fi
