#!/usr/bin/python3
"""The folder graph of libllmgate.so and its loops.

Reads the symbols each object of the library defines and uses (`nm` on the objects the Makefile builds
for the .so: build/obj/<source>.o for every source of CORE_SRC and HOOK_SRC), maps each object to the
folder of its source (src/limiter, src/hook/multi, ...), and draws an arrow A -> B when an object of A
uses a global symbol an object of B defines. A loop is a strongly connected component of more than one
folder; each is reported with the symbols that make its arrows.

The one allowed exception is what interposition forces: a symbol of src/hook/base/exports.map (libc's
read or close, libcurl's curl_easy_*, OpenSSL's SSL_*, ...) that a file of the library calls binds to our
own hook that defines it; those arrows are left out of the graph, and the summary says which they are.

Also fails when a folder under src/ holds more than 20 .c files directly.

Usage: tests/tools/folder_deps.py [--dot FILE] [--root DIR]
  --dot FILE  also writes the folder graph as Graphviz (arrows inside a loop in red)
  --root DIR  the source tree (default: the one this script is in)
Exit: 0 no loop and no crowded folder, 1 loops or a crowded folder, 2 the objects are not built.
"""
import argparse
import os
import re
import subprocess
import sys

MAX_C_PER_FOLDER = 20
EXPORTS_MAP = "src/hook/base/exports.map"


def library_sources(root):
    """The sources of the library's objects, as the Makefile lists them (CORE_SRC and HOOK_SRC)."""
    out = subprocess.run(
        ["make", "-s", "--no-print-directory", "-C", root,
         "--eval", "lg-print-lib-src: ; @echo $(CORE_SRC) $(HOOK_SRC)", "lg-print-lib-src"],
        check=True, capture_output=True, text=True).stdout
    return sorted(out.split())


def interposed_symbols(root):
    """The names the version script exports: the interposed symbols."""
    with open(os.path.join(root, EXPORTS_MAP)) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    glob = text.split("global:", 1)[1].split("local:", 1)[0]
    return {name.strip() for name in glob.split(";") if name.strip()}


def object_symbols(path):
    """(defined, used) global symbol names of one object."""
    out = subprocess.run(["nm", path], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        if kind in ("U", "w", "v"):
            used.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, used


def loops(graph):
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def crowded_folders(root):
    """(folder, count) of each folder under src/ holding more than MAX_C_PER_FOLDER .c files directly."""
    crowded = []
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        n = sum(1 for f in files if f.endswith(".c"))
        if n > MAX_C_PER_FOLDER:
            crowded.append((os.path.relpath(dirpath, root), n))
    return sorted(crowded)


def write_dot(path, folders, arrows, in_loop):
    """The folder graph as Graphviz: one node a folder, one edge an arrow labelled with its symbol count."""
    with open(path, "w") as f:
        f.write("digraph folders {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n")
        for d in sorted(folders):
            f.write(f'  "{d}";\n')
        for (a, b), syms in sorted(arrows.items()):
            red = ', color=red, fontcolor=red' if (a, b) in in_loop else ""
            f.write(f'  "{a}" -> "{b}" [label="{len(syms)}"{red}];\n')
        f.write("}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dot", metavar="FILE")
    ap.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    args = ap.parse_args()
    root = args.root

    sources = library_sources(root)
    objects = {src: os.path.join(root, "build", "obj", src[:-2] + ".o") for src in sources}
    missing = [o for o in objects.values() if not os.path.isfile(o)]
    if not sources or missing:
        print(f"folder_deps: {len(missing)} of the library's {len(sources)} objects are not built "
              f"(make PGO=0 all), e.g. {missing[:1]}", file=sys.stderr)
        return 2

    defined_in = {}          # symbol -> {(folder, file)}
    uses = []                # (folder, file, symbol)
    for src, obj in objects.items():
        folder, file = os.path.dirname(src), os.path.basename(src)
        defined, used = object_symbols(obj)
        for s in defined:
            defined_in.setdefault(s, set()).add((folder, file))
        uses.extend((folder, file, s) for s in used)

    interposed = interposed_symbols(root)
    arrows, forced = {}, {}  # (A, B) -> {symbol: {"user.c -> definer.c"}}
    for folder, file, s in uses:
        for dfolder, dfile in defined_in.get(s, ()):
            if dfolder == folder:
                continue
            into = forced if s in interposed else arrows
            into.setdefault((folder, dfolder), {}).setdefault(s, set()).add(f"{file} -> {dfile}")

    folders = {os.path.dirname(src) for src in sources}
    graph = {}
    for a, b in arrows:
        graph.setdefault(a, set()).add(b)
    found = loops(graph)
    in_loop = {(a, b) for comp in found for (a, b) in arrows if a in comp and b in comp}
    crowded = crowded_folders(root)

    print(f"folder_deps: {len(objects)} objects in {len(folders)} folders, {len(arrows)} arrows between folders")
    for (a, b), syms in sorted(forced.items()):
        print(f"ignored (interposition: exports.map): {a} -> {b}: {', '.join(sorted(syms))}")
    for i, comp in enumerate(found, 1):
        print(f"loop {i}: {' <-> '.join(comp)}")
        for (a, b), syms in sorted(arrows.items()):
            if (a, b) not in in_loop or a not in comp:
                continue
            print(f"  {a} -> {b}")
            for s in sorted(syms):
                print(f"    {s}  ({'; '.join(sorted(syms[s]))})")
    for folder, n in crowded:
        print(f"crowded: {folder} holds {n} .c files (at most {MAX_C_PER_FOLDER})")
    if not found:
        print("no loop between folders")
    if not crowded:
        print(f"no folder holds more than {MAX_C_PER_FOLDER} .c files")
    if args.dot:
        write_dot(args.dot, folders, arrows, in_loop)
    return 1 if found or crowded else 0


if __name__ == "__main__":
    sys.exit(main())
