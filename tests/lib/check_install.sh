#!/usr/bin/env bash
# What an embedder gets from `meson install`: installs the build into a
# temporary DESTDIR and checks one part of the result (the MODE):
#   headers  every public header alone under C11 and C++11 (check_headers.sh)
#   symbols  libgs.so exports exactly the GS_API declarations (api_symbols.py)
#   link     a C++ program and the embedding example build with nothing but
#            `pkg-config --cflags --libs libgs`; an events-only program links
#            against libgs.a without -lbpf, codegen or the assembler
#   embed    the embedding example, so built, traces a fixture process (root)
# usage: check_install.sh MODE BUILD_DIR SOURCE_DIR [FIXTURE]
set -euo pipefail
mode=$1 build=$2 src=$3 fixture=${4:-}
here=$src/tests/lib
cc=${CC:-cc} cxx=${CXX:-c++}
# A sanitizer build's library needs the same runtime in what links it.
san=()
[ "${GS_SANITIZE:-none}" != none ] && san=("-fsanitize=$GS_SANITIZE")
if [ "$mode" = embed ] && [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: not root: the embedding example loads BPF and attaches uprobes"
	exit 77
fi
work=$(mktemp -d)
target_pid=
cleanup() {
	if [ -n "$target_pid" ]; then
		kill "$target_pid" 2>/dev/null || true
		wait "$target_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

meson install -C "$build" --destdir "$work/root" --no-rebuild --quiet >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; exit 1; }
pc=$(find "$work/root" -name libgs.pc | head -n 1)
[ -n "$pc" ] || { echo "meson install put no libgs.pc under $work/root"; exit 1; }
# The .pc file names the real prefix; the sysroot maps it into DESTDIR.
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$work/root
# pkgconf puts the sysroot before variables too; older pkg-config does not.
in_root() { case $1 in "$work/root"/*) echo "$1" ;; *) echo "$work/root$1" ;; esac; }
include=$(in_root "$(pkg-config --variable=includedir libgs)")
libdir=$(in_root "$(pkg-config --variable=libdir libgs)")

build_embed() {
	# shellcheck disable=SC2046 # pkg-config's words are separate arguments
	"$cc" -std=gnu11 -Wall -Wextra -Werror "${san[@]}" -o "$work/embed" \
		"$src/examples/embed/embed.c" $(pkg-config --cflags --libs libgs)
}

case $mode in
headers)
	"$here/check_headers.sh" "$include" "$src/include"
	;;
symbols)
	python3 "$here/api_symbols.py" "$include" "$libdir/libgs.so"
	printf 'libgs.so: %s bytes (%s)\n' "$(stat -L -c %s "$libdir/libgs.so")" \
		"$(readlink "$libdir/libgs.so")"
	;;
link)
	# Every header in one C++ file, and calls that must link: extern "C".
	for h in "$include"/gs/*.h; do echo "#include <gs/$(basename "$h")>"; done >"$work/all.cc"
	cat >>"$work/all.cc" <<'CXX'
#include <cstdio>
#include <cstring>
int main()
{
	gs_error err;
	gs_script *s = nullptr;
	const char text[] = "trace main { print \"hi\"; }";
	if (gs_script_parse(text, std::strlen(text), nullptr, &s, &err) != 0)
		return 1;
	std::printf("C++: libgs %s, %zu trace(s)\n", gs_version(), s->ntraces);
	gs_script_free(s);
	return std::strcmp(gs_version(), GS_VERSION) != 0;
}
CXX
	# shellcheck disable=SC2046
	"$cxx" -std=c++11 -Wall -Wextra -Werror "${san[@]}" -o "$work/all" "$work/all.cc" \
		$(pkg-config --cflags --libs libgs)
	LD_LIBRARY_PATH=$libdir "$work/all"
	build_embed
	echo "embedding example built with: pkg-config --cflags --libs libgs"
	# Decoding only: libgs.a without libbpf on the link line.
	# shellcheck disable=SC2046
	"$cc" -std=gnu11 "${san[@]}" -o "$work/events_only" "$here/events_only.c" \
		$(pkg-config --cflags libgs) "$libdir/libgs.a" -lelf -ldw
	"$work/events_only"
	if readelf -d "$work/events_only" | grep -q 'NEEDED.*libbpf'; then
		echo "the events-only program needs libbpf"
		exit 1
	fi
	echo "events-only program linked against libgs.a without -lbpf"
	# ... and with nothing of the code generator or the assembler in it.
	"$here/check_links.sh" "$work/events_only" "$build/src/codegen/libgs_codegen.a" \
		"$build/src/asm/libgs_asm.a"
	;;
embed)
	build_embed
	"$fixture" &
	target_pid=$!
	sleep 0.2
	LD_LIBRARY_PATH=$libdir "$work/embed" "$target_pid" embed_inner 2 | tee "$work/out"
	# Both hits unwound through the fixture's frames to main.
	for fn in embed_inner embed_outer main; do
		[ "$(grep -cE "#[0-9] $fn(\([^)]*\))? at .*embed_target\.c:" "$work/out")" -eq 2 ] ||
			{ echo "expected a frame in $fn in each of the 2 hits"; exit 1; }
	done
	;;
*)
	echo "unknown mode $mode"
	exit 2
	;;
esac
