#!/usr/bin/env python3
"""The symbol check: every name `nm -D --defined-only` lists for libgs.so
must be declared with GS_API in the installed headers, and every GS_API
declaration must be exported, each with a LIBGS_ version of the linker's
version script. The documented set is read from the headers
themselves, so the check cannot drift from them.

usage: api_symbols.py INCLUDE_DIR LIBGS_SO   (INCLUDE_DIR holds gs/*.h)"""
import os
import re
import subprocess
import sys


UNMARKED = []


def documented(include_dir):
    """Names declared after GS_API in include_dir/gs/*.h."""
    names = {}
    gs = os.path.join(include_dir, 'gs')
    for h in sorted(os.listdir(gs)):
        if not h.endswith('.h'):
            continue
        text = open(os.path.join(gs, h)).read()
        text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)   # comments
        text = re.sub(r'^\s*#.*?(?<!\\)$', ' ', text, flags=re.M | re.S)  # directives
        # a function declared at file scope without GS_API cannot be linked
        # by an embedder although the header shows it
        for m in re.finditer(r'^(?!GS_API|static|typedef|extern|struct|enum|union)'
                             r'[A-Za-z_][\w \t*]*?\b(gs_\w+)\s*\(', text, re.M):
            UNMARKED.append('%s: %s' % (h, m.group(1)))
        for decl in re.findall(r'\bGS_API\b([^;{]*)', text):
            # the declarator: the identifier before the first '(' or '['
            m = re.match(r'[^(\[]*?\b([A-Za-z_]\w*)\s*[(\[]', decl)
            if not m:
                sys.exit('api_symbols: cannot read the GS_API declaration in %s: %s'
                         % (h, ' '.join(decl.split())))
            names[m.group(1)] = h
    return names


# What a sanitizer build's instrumentation defines (ASan's ODR indicators of
# exported data, say): not API, not written by us.
INSTRUMENTATION = re.compile(r'^(__odr_asan|__asan_|__ubsan_|__sanitizer_|__sancov)')


def exported(lib):
    """{name: version} of the dynamic symbols lib defines (nm prints
    name@@VERSION for a default version, name@VERSION for another)."""
    out = subprocess.run(['nm', '-D', '--defined-only', '--with-symbol-versions', lib],
                         check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        fields = line.split()
        if not fields or fields[-2] == 'A':   # the version definitions themselves
            continue
        name, _, version = fields[-1].replace('@@', '@').partition('@')
        if not INSTRUMENTATION.match(name):
            syms[name] = version
    return syms


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    api = documented(sys.argv[1])
    versions = exported(sys.argv[2])
    for where in UNMARKED:
        print('declared in an installed header without GS_API (mark it, or move it to '
              'include/gs/internal): %s' % where)
    syms = set(versions)
    bad = len(UNMARKED)
    for name in sorted(n for n, v in versions.items() if not v.startswith('LIBGS_')):
        print('exported without a LIBGS_ version (src/libgs/libgs.map): %s %s' %
              (name, versions[name] or '(unversioned)'))
        bad += 1
    for name in sorted(syms - set(api)):
        print('exported but not a GS_API declaration of the headers: %s' % name)
        bad += 1
    for name in sorted(set(api) - syms):
        print('declared GS_API in gs/%s but not exported: %s' % (api[name], name))
        bad += 1
    print('%d exported symbols, %d GS_API declarations in %s' %
          (len(syms), len(api), os.path.join(sys.argv[1], 'gs')))
    if bad:
        print('FAIL: %d mismatches (GS_API goes on documented declarations only; '
              'internal functions take their layer prefix, docs/api.md)' % bad)
        sys.exit(1)


main()
