#!/usr/bin/env python3
"""The symbol check: libgs exports exactly its documented API.

- Every name `nm -D --defined-only` lists for libgs.so is declared with
  GS_API in the installed headers, every GS_API declaration is exported,
  each with a LIBGS_ version of the linker's version script.
- Every GS_API declaration has its contract in a comment (the rule below).
- docs/api.md's "## Index" lists every export once, under the heading of
  the header that declares it (`### <gs/asm.h>`), as a list item starting
  with the name in backquotes (`` - `gs_asm_new`: ... ``), and names
  nothing else.

The comment rule. A GS_API declaration is documented when the line above
it (its `__attribute__` lines aside) is either
  - the last line of a comment that begins on a line of its own, or
  - the last line of another documented GS_API declaration: one comment
    may head a run of declarations with no blank line between them, and
    then says what they share.
So a blank line, a struct or a typedef between a comment and a
declaration leaves the declaration undocumented, and so does a comment
that trails code on its line.

usage: api_symbols.py INCLUDE_DIR LIBGS_SO [API_MD]   (INCLUDE_DIR holds
       gs/*.h; API_MD defaults to the docs/api.md of this source tree)
       api_symbols.py --self-test"""
import os
import re
import subprocess
import sys


def blank_out(text, pattern, flags=0):
    """text with every match of pattern replaced by its newlines only, so
    that line numbers stay those of the original."""
    return re.sub(pattern, lambda m: '\n' * m.group(0).count('\n'), text, flags=flags)


def ends_comment(lines, j):
    """Whether line j ends a comment that begins on a line of its own."""
    if not lines[j].rstrip().endswith('*/'):
        return False
    for k in range(j, -1, -1):
        start = lines[k].find('/*')
        if start >= 0:
            return lines[k][:start].strip() == ''
    return False


def read_header(path):
    """([(name, line, documented)], [unmarked names]) of one header: its
    GS_API declarations in order, and the functions it declares at file
    scope without GS_API."""
    raw = open(path).read()
    lines = raw.split('\n')
    text = blank_out(raw, r'/\*.*?\*/', re.S)                         # comments
    text = blank_out(text, r'^\s*#.*?(?<!\\)$', re.M | re.S)          # directives
    # a function declared at file scope without GS_API cannot be linked
    # by an embedder although the header shows it
    unmarked = [m.group(1) for m in
                re.finditer(r'^(?!GS_API|static|typedef|extern|struct|enum|union)'
                            r'[A-Za-z_][\w \t*]*?\b(gs_\w+)\s*\(', text, re.M)]
    decls = []
    documented_ends = set()
    for m in re.finditer(r'\bGS_API\b([^;{]*)', text):
        first = text.count('\n', 0, m.start())
        last = text.count('\n', 0, m.end())
        # the declarator: the identifier before the first '(' or '['
        d = re.match(r'[^(\[]*?\b([A-Za-z_]\w*)\s*[(\[]', m.group(1))
        if not d:
            sys.exit('api_symbols: cannot read the GS_API declaration in %s: %s'
                     % (path, ' '.join(m.group(1).split())))
        j = first - 1
        while j >= 0 and lines[j].lstrip().startswith('__attribute__'):
            j -= 1
        documented = j >= 0 and (j in documented_ends or ends_comment(lines, j))
        if documented:
            documented_ends.add(last)
        decls.append((d.group(1), first + 1, documented))
    return decls, unmarked


def read_index(api_md):
    """({name: [headers it is listed under]}, [problems]) of the "## Index"
    section of api_md."""
    listed, bad = {}, []
    inside, header = False, None
    for n, line in enumerate(open(api_md), 1):
        if line.startswith('## '):
            inside = line.strip() == '## Index'
            continue
        if not inside:
            continue
        if line.startswith('### '):
            m = re.search(r'\bgs/(\w+\.h)\b', line)
            header = m.group(1) if m else None
            if not header:
                bad.append('%s:%d: an index heading that names no header: %s'
                           % (api_md, n, line.strip()))
        elif line.startswith('- '):
            m = re.match(r'- `(\w+)`', line)
            if not m or not header:
                bad.append('%s:%d: an index line is "- `name`: what it does", under a '
                           '"### <gs/x.h>" heading: %s' % (api_md, n, line.strip()))
            else:
                listed.setdefault(m.group(1), []).append(header)
    if not listed and not bad:
        bad.append('%s: no "## Index" section listing the exports' % api_md)
    return listed, bad


def check(include_dir, api_md, versions):
    """([every problem found, one sentence each], {GS_API name: its
    header}); versions is {exported name: its symbol version}."""
    bad = []
    api = {}
    gs = os.path.join(include_dir, 'gs')
    for h in sorted(os.listdir(gs)):
        if not h.endswith('.h'):
            continue
        decls, unmarked = read_header(os.path.join(gs, h))
        for name in unmarked:
            bad.append('declared in an installed header without GS_API (mark it, or move it '
                       'to include/gs/internal): %s: %s' % (h, name))
        for name, line, documented in decls:
            api[name] = h
            if not documented:
                bad.append('gs/%s:%d: %s has no comment directly above it saying what it '
                           'takes, returns and owns (or above the run of declarations it '
                           'belongs to)' % (h, line, name))
    for name in sorted(n for n, v in versions.items() if not v.startswith('LIBGS_')):
        bad.append('exported without a LIBGS_ version (src/libgs/libgs.map): %s %s' %
                   (name, versions[name] or '(unversioned)'))
    syms = set(versions)
    for name in sorted(syms - set(api)):
        bad.append('exported but not a GS_API declaration of the headers: %s' % name)
    for name in sorted(set(api) - syms):
        bad.append('declared GS_API in gs/%s but not exported: %s' % (api[name], name))
    listed, index_bad = read_index(api_md)
    bad += index_bad
    for name in sorted(syms - set(listed)):
        bad.append('exported but missing from the index of %s: %s (gs/%s)'
                   % (api_md, name, api.get(name, '?')))
    for name, headers in sorted(listed.items()):
        if name not in syms:
            bad.append('the index of %s names %s, which libgs does not export' % (api_md, name))
        elif len(headers) > 1:
            bad.append('the index of %s lists %s %d times' % (api_md, name, len(headers)))
        elif name in api and headers[0] != api[name]:
            bad.append('the index of %s lists %s under gs/%s; gs/%s declares it'
                       % (api_md, name, headers[0], api[name]))
    return bad, api


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


def self_test():
    """The check on a small header and index with one violation of each
    kind: each must be reported, and the clean pair must pass."""
    import shutil
    import tempfile
    header = '''/* A header. */
#include <gs/api.h>
struct gs_t {
	int x; /* a field */
};
/* Makes one. */
GS_API struct gs_t *gs_t_new(void);
/* A run: both take t, neither fails. */
GS_API int gs_t_a(struct gs_t *t,
		  int n);
__attribute__((format(printf, 2, 3)))
GS_API int gs_t_b(struct gs_t *t, const char *fmt, ...); /* b's own */
GS_API extern const int gs_t_table[2];
'''
    index = '''# api
## Index
### <gs/t.h>
- `gs_t_new`: makes one
- `gs_t_a`: a
- `gs_t_b`: b
- `gs_t_table`: the table
## After
- `gs_elsewhere`: not the index
'''
    exports = {n: 'LIBGS_1' for n in ('gs_t_new', 'gs_t_a', 'gs_t_b', 'gs_t_table')}
    cases = [
        ('a blank line ends a run', 'header',
         ('int n);\n__attr', 'int n);\n\n__attr'), 'gs_t_b has no comment'),
        ('a comment separated by a blank line', 'header',
         ('/* Makes one. */\n', '/* Makes one. */\n\n'), 'gs_t_new has no comment'),
        ("a trailing comment is not a contract", 'header',
         ('/* Makes one. */\n', 'typedef int (*gs_t_fn)(void); /* a callback */\n'),
         'gs_t_new has no comment'),
        ('a typedef between the comment and the declaration', 'header',
         ('/* Makes one. */\n', '/* Makes one. */\ntypedef int gs_t_n;\n'),
         'gs_t_new has no comment'),
        ('a declaration without GS_API', 'header',
         ('GS_API extern', 'int gs_t_c(void);\nGS_API extern'), 'without GS_API'),
        ('an export missing from the index', 'index',
         ('- `gs_t_a`: a\n', ''), 'missing from the index of'),
        ('an index line naming no export', 'index',
         ('- `gs_t_b`: b\n', '- `gs_t_b`: b\n- `gs_t_gone`: gone\n'),
         'names gs_t_gone, which libgs does not export'),
        ('an index line under the wrong header', 'index',
         ('- `gs_t_table`', '### <gs/u.h>\n- `gs_t_table`'), 'under gs/u.h; gs/t.h declares'),
        ('an export listed twice', 'index',
         ('- `gs_t_a`: a\n', '- `gs_t_a`: a\n- `gs_t_a`: again\n'), 'lists gs_t_a 2 times'),
        ('an index without its section', 'index', ('## Index', '## Contents'),
         'no "## Index" section'),
        ('an index line without the name in backquotes', 'index',
         ('- `gs_t_a`: a', '- gs_t_a: a'), 'an index line is'),
        ('an export without GS_API', 'exports', 'gs_t_hidden', 'not a GS_API declaration'),
        ('an export without a version', 'exports', 'gs_t_new', 'without a LIBGS_ version'),
        ('a declaration not exported', 'exports', '-gs_t_a', 'but not exported: gs_t_a'),
    ]

    def run(h, md, syms):
        root = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(root, 'gs'))
            open(os.path.join(root, 'gs', 't.h'), 'w').write(h)
            open(os.path.join(root, 'api.md'), 'w').write(md)
            return check(root, os.path.join(root, 'api.md'), syms)[0]
        finally:
            shutil.rmtree(root)
    bad = run(header, index, exports)
    if bad:
        sys.exit('self-test: the clean header and index fail:\n' + '\n'.join(bad))
    for what, where, change, expect in cases:
        h, md, syms = header, index, dict(exports)
        if where == 'exports':
            if change.startswith('-'):
                del syms[change[1:]]
            elif change in syms:
                syms[change] = ''
            else:
                syms[change] = 'LIBGS_1'
        else:
            old, new = change
            text = h if where == 'header' else md
            if old not in text:
                sys.exit('self-test: case %r: %r is not in the clean %s' % (what, old, where))
            text = text.replace(old, new, 1)
            h, md = (text, md) if where == 'header' else (h, text)
        out = '\n'.join(run(h, md, syms))
        if expect not in out:
            sys.exit('self-test: %s is not reported as %r:\n%s' % (what, expect, out))
    print('self-test: a clean header and index pass; each of %d violations is reported'
          % len(cases))


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    api_md = sys.argv[3] if len(sys.argv) == 4 else os.path.join(here, '..', '..', 'docs',
                                                                   'api.md')
    versions = exported(sys.argv[2])
    bad, api = check(sys.argv[1], os.path.normpath(api_md), versions)
    for line in bad:
        print(line)
    print('%d exported symbols, %d GS_API declarations in %s' %
          (len(versions), len(api), os.path.join(sys.argv[1], 'gs')))
    if bad:
        print('FAIL: %d problem%s (GS_API goes on documented declarations only, each with '
              'its contract above it and its line in docs/api.md\'s index; internal '
              'functions take their layer prefix: docs/api.md)'
              % (len(bad), '' if len(bad) == 1 else 's'))
        sys.exit(1)


main()
