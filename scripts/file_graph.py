#!/usr/bin/env python3
"""scripts/file_graph.py OBJ... - which source file calls into which, read
off the object files' symbol tables (nm): a line per file with the files it
uses, then every circle (a file that reaches itself back). Exit 1 when there
is a circle. The test unit.no-circles runs it on the library's objects.
scripts/file_graph.py --includes DIR... - the same for the project's own
#include "..." lines in the C and CUDA files under the DIRs (test
unit.no-include-circles)."""
import collections
import os
import re
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def call_graph(objs):
    name = lambda o: o.rsplit("/", 1)[-1].split(".")[0]
    tables = {name(o): symbols(o) for o in objs}
    owner = {s: n for n, (d, _) in tables.items() for s in d}
    graph = collections.defaultdict(set)
    for n, (_, used) in tables.items():
        graph[n] |= {owner[s] for s in used if s in owner and owner[s] != n}
    return sorted(tables), graph


def include_graph(dirs):
    """Each .c, .h, .cu and .cuh file under dirs -> the files of the project
    it includes ("..."): looked for beside the including file first, then
    under dirs by name (the build's include paths are those folders)."""
    files = {}
    for d in dirs:
        for top, _, names in os.walk(d):
            for f in names:
                if f.endswith((".c", ".h", ".cu", ".cuh")):
                    path = os.path.relpath(os.path.join(top, f))
                    files[path] = f
    by_name = collections.defaultdict(list)
    for path, f in files.items():
        by_name[f].append(path)
    graph = collections.defaultdict(set)
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as src:
            for line in src:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                near = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
                target = near if near in files else next(iter(by_name.get(os.path.basename(m.group(1)), [])), None)
                if target and target != path:
                    graph[path].add(target)
    return sorted(files), graph


def main(nodes, graph):
    for n in nodes:
        print(f"{n} -> {' '.join(sorted(graph[n])) or '(nothing)'}")
    circles = []
    for start in nodes:
        # A shortest path from each of start's callees back to start.
        for first in sorted(graph[start]):
            prev, todo = {first: None}, [first]
            while todo and start not in prev:
                nxt = []
                for x in todo:
                    for y in sorted(graph[x]):
                        if y not in prev:
                            prev[y] = x
                            nxt.append(y)
                todo = nxt
            if start in prev:
                path, x = [], start
                while x is not None:
                    path.append(x)
                    x = prev[x]
                circles.append([start] + path[::-1])
    seen = set()
    for c in circles:
        key = frozenset(c)
        if key not in seen:
            seen.add(key)
            print("circle: " + " -> ".join(c))
    return 1 if circles else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--includes"]:
        sys.exit(main(*include_graph(sys.argv[2:])))
    sys.exit(main(*call_graph(sys.argv[1:])))
