#!/usr/bin/env python3
"""The file-cycle check: within each layer, no two files use each other
(directly or around a longer circle) unless the circle is in ALLOWED below,
which says why it is there. layering.py keeps the layers pointing down;
this keeps the files of one layer pointing down too, so that a file can be
read, tested and moved with what it uses and nothing above it.

A file uses another when its object refers to a symbol the other's object
defines: `nm` on the objects a build left under BUILD_DIR/src/<layer>/
(every target of the folder; an object whose source is no longer in
SOURCE_DIR/src/<layer>/ is a leftover of an older tree and is skipped).
Static functions and static inlines of headers are not symbols between
files: only what one file asks of another counts. The strongly connected
components of that graph with more than one file are the cycles; each must
be an entry of ALLOWED, files and all, and each entry must still be one.

usage: file_cycles.py SOURCE_DIR BUILD_DIR
       file_cycles.py --self-test CC [CC ARGS...]"""
import os
import shutil
import subprocess
import sys
import tempfile

# (layer, files, why): the cycles there are. A genuine recursion says what
# recurses; a cycle that is not one says so, with the calls that close it,
# until its layer breaks it (then the check fails until the entry goes).
ALLOWED = [
    ('codegen', {'expr.c', 'operators.c', 'pointer.c', 'value.c', 'view_expr.c', 'builtin.c'},
     "recursion: the expression compiler. An expression's operands are expressions: cg_expr "
     "dispatches to operators, pointer arithmetic, values and builtins, each of which compiles "
     "its operands with cg_expr again; a value's place compiles its index and its cast operand "
     "(value.c), len(x) and s == \"lit\" find x's place (view_expr.c, builtin.c)"),
    ('codegen', {'capture_view.c', 'capture_walk.c'},
     "recursion: a container of containers. cg_view_expand hands a ring, deque, B-tree or "
     "red-black tree to its walker (capture_walk.c), whose elements are values with views of "
     "their own (cg_view_elements, cg_view_expand)"),
    ('dwarf', {'entry_value.c', 'locexpr.c'},
     "recursion: DW_OP_entry_value's value is a call site's DW_AT_call_value, a DWARF "
     "expression compiled (locexpr.c's lx_compile) inside the one that holds it"),
    ('dwarf', {'types.c', 'types_alias.c', 'views_attach.c', 'views_cpp.c', 'views_rust.c'},
     "recursion: a type's parts are types. An alias's target is built by the type builder "
     "(types_alias.c <-> types.c), and a C++ or Rust container's view (views_attach.c hands the "
     "type to its language's recognizer) builds its element types with dwv_type_ref again"),
    ('events', {'value.c', 'view.c', 'view_walk.c'},
     "recursion: a value's views hold values (a container's elements), rendered by "
     "ev_put_typed again"),
    ('events', {'value_json.c', 'view_json.c'},
     "recursion: a JSON value's view holds values (a container's elements), written by "
     "ev_json_typed again"),
    ('script', {'script_expr.c', 'script_value.c'},
     "recursion: an expression holding expressions. script_expr.c hands a source-level "
     "value, a builtin call and len() to script_value.c, which parses their operands, indices "
     "and arguments with sp_expr and sp_unary again"),
]


def symbols(nm, objs):
    """{object: (defined, undefined)}: the global symbols of each object,
    from one nm run (-A: each line starts with its object's path)."""
    out = subprocess.run([nm, '-P', '-A'] + objs, capture_output=True, text=True,
                         check=True).stdout
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        obj, _, rest = line.rpartition(': ')
        parts = rest.split()
        if obj not in syms or len(parts) < 2:
            continue
        if parts[1] == 'U':
            syms[obj][1].add(parts[0])
        elif parts[1] in 'TDBRCVWGS':
            syms[obj][0].add(parts[0])
    return syms


def layer_graph(nm, src_dir, build_dir, layer):
    """{file: {file it uses: [symbols]}} of one layer, from its objects."""
    obj_root = os.path.join(build_dir, 'src', layer)
    objs = []
    for target in sorted(os.listdir(obj_root)):
        tdir = os.path.join(obj_root, target)
        if not target.endswith('.p') or not os.path.isdir(tdir):
            continue
        for obj in sorted(os.listdir(tdir)):
            if obj.endswith('.c.o') and os.path.exists(
                    os.path.join(src_dir, 'src', layer, obj[:-len('.o')])):
                objs.append(os.path.join(tdir, obj))  # else generated, or an older tree's
    defs, refs = {}, {}
    for obj, (defined, undefined) in (symbols(nm, objs) if objs else {}).items():
        name = os.path.basename(obj)[:-len('.o')]
        for s in defined:
            defs[s] = name
        refs.setdefault(name, set()).update(undefined)
    graph = {f: {} for f in refs}
    for f, undefined in refs.items():
        for s in undefined:
            g = defs.get(s)
            if g and g != f:
                graph[f].setdefault(g, []).append(s)
    return graph


def cycles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(src_dir, build_dir, allowed, nm='nm'):
    """(problems, summary): what breaks the rule, one sentence each."""
    src_root = os.path.join(build_dir, 'src')
    layers = sorted(d for d in os.listdir(src_root) if os.path.isdir(os.path.join(src_root, d))) \
        if os.path.isdir(src_root) else []
    problems, files, found = [], 0, []
    for layer in layers:
        graph = layer_graph(nm, src_dir, build_dir, layer)
        files += len(graph)
        for comp in cycles(graph):
            found.append((layer, comp))
            if any(layer == al and comp == af for al, af, _ in allowed):
                continue
            edges = '; '.join('%s -> %s: %s' % (f, g, ', '.join(sorted(graph[f][g])[:4]))
                              for f in sorted(comp) for g in sorted(graph[f]) if g in comp)
            problems.append('src/%s: %s use each other (%s), a cycle file_cycles.py does not '
                            'allow: move what one side uses below both, or if it is recursion '
                            'add it to ALLOWED with why' % (layer, ', '.join(sorted(comp)), edges))
        for al, af, _ in allowed:
            if al != layer or (al, af) in [(fl, fc) for fl, fc in found]:
                continue
            if all(f in graph for f in af):
                problems.append('src/%s: %s no longer form exactly this cycle: drop or update '
                                'its entry in ALLOWED' % (layer, ', '.join(sorted(af))))
    if not files:
        problems.append('no object read under %s: build first (meson test does)' % src_root)
    return problems, '%d files of %d layers read; %d cycles, %d problems' % (
        files, len(layers), len(found), len(problems))


def self_test(cc):
    """The check on a small built tree: an allowed cycle passes, and a new
    cycle, a grown one, a stale entry and an empty build each fail."""
    low = {
        'a.c': 'int b(int); int a(int x) { return x ? b(x - 1) : 0; }\n',
        'b.c': 'int a(int); int b(int x) { return a(x); }\n',
        'c.c': 'int a(int); static int d(int x) { return x; } int c(int x) { return a(d(x)); }\n',
        'd.c': 'static int c(int x) { return x; } int d(int x) { return c(x); }\n',
    }
    allowed = [('low', {'a.c', 'b.c'}, 'recursion: a and b')]
    cases = [
        ('a clean tree', {}, allowed, None),
        ('a new cycle', {'d.c': 'int c(int); int d(int x) { return c(x); }\n',
                         'c.c': 'int d(int); int c(int x) { return d(x); }\n'},
         allowed, 'c.c, d.c use each other'),
        ('a grown cycle', {'a.c': 'int b(int); int c(int); int a(int x) { return b(c(x)); }\n'},
         allowed, 'a.c, b.c, c.c use each other'),
        ('a stale entry', {'b.c': 'int b(int x) { return x; }\n'}, allowed,
         'a.c, b.c no longer form exactly this cycle'),
        ('an empty build', None, allowed, 'no object read'),
    ]
    for name, change, table, expect in cases:
        root = tempfile.mkdtemp()
        try:
            tree = dict(low, **(change or {}))
            os.makedirs(os.path.join(root, 'src', 'low'))
            odir = os.path.join(root, 'build', 'src', 'low', 'liblow.a.p')
            os.makedirs(odir)
            for f, text in tree.items():
                path = os.path.join(root, 'src', 'low', f)
                open(path, 'w').write(text)
                if change is not None:
                    subprocess.run(cc + ['-c', path, '-o', os.path.join(odir, f + '.o')],
                                   check=True)
            problems, _ = check(root, os.path.join(root, 'build'), table)
        finally:
            shutil.rmtree(root)
        if expect is None and problems:
            sys.exit('self-test: %s fails:\n%s' % (name, '\n'.join(problems)))
        if expect is not None and not any(expect in p for p in problems):
            sys.exit('self-test: %s is not reported as %r:\n%s' % (name, expect,
                                                                  '\n'.join(problems)))
    for layer, files, why in ALLOWED:
        if len(files) < 2 or not why or not all(f.endswith('.c') for f in files):
            sys.exit('self-test: ALLOWED entry %s %s needs two or more .c files and a why'
                     % (layer, sorted(files)))
    print('self-test: a clean tree passes; each of %d breaks is reported' % (len(cases) - 1))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == '--self-test':
        return self_test(sys.argv[2:])
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    problems, summary = check(sys.argv[1], sys.argv[2], ALLOWED)
    for p in problems:
        print(p)
    print(summary)
    sys.exit(1 if problems else 0)


main()
