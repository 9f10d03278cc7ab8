#!/usr/bin/env python3
"""The layering check: every #include of every file under src/ and every
dependency named in each layer's meson.build, against the table of
docs/architecture.md. A layer may use the layers its row names and,
through them, the layers those use (arrows point down); it may include its
own private headers and the public headers (include/gs) of the layers it
may use, never another layer's private header. A folder of src/ missing
from the table fails too: a new layer is declared before it is used.

usage: layering.py SOURCE_DIR"""
import os
import re
import sys


def tables(doc):
    """(layers {name: (folder, [may use])}, headers {header: layer}) read
    from the two tables of docs/architecture.md."""
    layers, headers = {}, {}
    for line in open(doc):
        cells = [c.strip().strip('`') for c in line.strip().strip('|').split('|')]
        if not line.startswith('|') or len(cells) < 2 or set(cells[0]) <= set('-: '):
            continue
        if len(cells) == 3 and cells[1].startswith('src/'):
            uses = [u.strip().strip('`') for u in cells[2].split(',')
                    if u.strip().strip('`') not in ('', '-', '—')]
            layers[cells[0]] = (cells[1].rstrip('/'), uses)
        elif len(cells) == 2 and cells[0].startswith('gs/'):
            for h in cells[0].split(','):
                headers[h.strip().strip('`')] = cells[1]
    return layers, headers


def closure(layers, name, seen=None):
    seen = set() if seen is None else seen
    for u in layers[name][1]:
        if u not in seen:
            seen.add(u)
            closure(layers, u, seen)
    return seen


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
MESON_REF = re.compile(r'\bgs_([a-z]+?)_(dep|lib|\w*inc)\b')


def self_test():
    """The check on a small tree with one violation of each kind: each
    must be reported, and the clean tree must pass."""
    import shutil
    import subprocess
    import tempfile
    doc = """| layer | folder | may use |
|---|---|---|
| base | `src/base` | — |
| low | `src/low` | base |
| high | `src/high` | low |

| header | layer |
|---|---|
| `gs/api.h` | all |
| `gs/low.h` | low |
| `gs/high.h` | high |
"""
    files = {
        'docs/architecture.md': doc,
        'src/base/base.h': '',
        'src/base/meson.build': '',
        'src/low/low_int.h': '',
        'src/low/a.c': '#include <gs/api.h>\n#include "low_int.h"\n#include "base.h"\n',
        'src/low/meson.build': 'deps = [gs_base_dep]\n',
        'src/high/b.c': '#include <gs/low.h>\n#include <gs/high.h>\n',
        'src/high/meson.build': 'deps = [gs_low_dep]\n',
    }
    bad = {
        'src/low/c.c': ('#include <gs/high.h>\n', 'includes <gs/high.h> of high'),
        'src/high/d.c': ('#include "low_int.h"\n', 'a private header of low'),
        'src/low/meson.build': ('deps = [gs_high_dep]\n', 'depends on high'),
        'src/extra/e.c': ('\n', 'does not list'),
        'src/high/meson.build': ('deps = [gs_low_dep]\ninc = gs_low_extra_inc\n',
                                 "uses low's private headers"),
    }
    def run(tree):
        root = tempfile.mkdtemp()
        try:
            for path, text in tree.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                open(os.path.join(root, path), 'w').write(text)
            r = subprocess.run([sys.executable, __file__, root], capture_output=True, text=True)
            return r.returncode, r.stdout
        finally:
            shutil.rmtree(root)
    rc, out = run(files)
    if rc != 0:
        sys.exit('self-test: the clean tree fails:\n' + out)
    for path, (text, expect) in bad.items():
        tree = dict(files)
        tree[path] = text
        rc, out = run(tree)
        if rc == 0 or expect not in out:
            sys.exit('self-test: %s with %r is not reported as %r:\n%s' % (path, text, expect, out))
    print('self-test: a clean tree passes; each of %d violations is reported' % len(bad))


def main():
    if len(sys.argv) == 2 and sys.argv[1] == '--self-test':
        return self_test()
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src_dir = sys.argv[1]
    layers, headers = tables(os.path.join(src_dir, 'docs', 'architecture.md'))
    if not layers or not headers:
        sys.exit('layering: no layer or header table read from docs/architecture.md')
    by_folder = {folder: name for name, (folder, _) in layers.items()}
    shared = {h for h, owner in headers.items() if owner == 'all'}
    bad = []
    for name, (_, uses) in layers.items():
        for u in uses:
            if u not in layers:
                bad.append('docs/architecture.md: %s may use %s, which is not a layer' % (name, u))
        if name in closure(layers, name):
            bad.append('docs/architecture.md: %s reaches itself through its uses (a cycle)' % name)
    if bad:
        print('\n'.join(bad))
        sys.exit(1)
    files = 0
    for entry in sorted(os.listdir(os.path.join(src_dir, 'src'))):
        path = os.path.join(src_dir, 'src', entry)
        folder = 'src/' + entry
        if not os.path.isdir(path):
            continue
        if folder not in by_folder:
            bad.append('%s: a folder of src/ that docs/architecture.md does not list' % folder)
            continue
        name = by_folder[folder]
        allowed = closure(layers, name) | {name}
        for f in sorted(os.listdir(path)):
            text = open(os.path.join(path, f), errors='replace').read()
            where = '%s/%s' % (folder, f)
            if f == 'meson.build':
                for layer, kind in set(MESON_REF.findall(text)):
                    if layer not in layers or layer == name:
                        continue
                    if kind.endswith('inc'):
                        bad.append("%s: uses %s's private headers (gs_%s_%s)"
                                   % (where, layer, layer, kind))
                    elif layer not in allowed:
                        bad.append('%s: depends on %s, above or beside %s (may use: %s)'
                                   % (where, layer, name, ', '.join(sorted(allowed - {name}))))
                continue
            if not f.endswith(('.c', '.h')):
                continue
            files += 1
            for kind, inc in INCLUDE.findall(text):
                if kind == '<' and inc.startswith('gs/'):
                    owner = headers.get(inc)
                    if owner is None:
                        bad.append('%s: includes <%s>, which docs/architecture.md does not '
                                   'assign to a layer' % (where, inc))
                    elif inc not in shared and owner not in allowed:
                        bad.append('%s: includes <%s> of %s, above or beside %s'
                                   % (where, inc, owner, name))
                elif kind == '"':
                    target = os.path.normpath(os.path.join(folder, inc))
                    if inc.endswith('.pb-c.h') and os.path.exists(os.path.join(
                            src_dir, folder, inc[:-len('.pb-c.h')] + '.proto')):
                        continue  # protoc-c's output of the layer's own .proto
                    if not os.path.exists(os.path.join(src_dir, target)):
                        # found through a dependency's include path: only
                        # the base library's headers are meant to be
                        homes = [fo for fo in sorted(by_folder) if
                                 os.path.exists(os.path.join(src_dir, fo, inc))]
                        if not homes:
                            bad.append('%s: includes "%s", found in no layer' % (where, inc))
                            continue
                        target = homes[0] + '/' + inc
                    home = os.path.dirname(target)
                    if home == folder:
                        continue
                    owner = by_folder.get(home)
                    if owner is None:
                        bad.append('%s: includes "%s", outside every layer' % (where, inc))
                    elif owner == 'base' and 'base' in allowed:
                        continue
                    else:
                        bad.append('%s: includes "%s", a private header of %s'
                                   % (where, inc, owner))
    for b in bad:
        print(b)
    print('%d files of %d layers read; %d reach above their layer' %
          (files, len(by_folder), len(bad)))
    sys.exit(1 if bad else 0)


main()
