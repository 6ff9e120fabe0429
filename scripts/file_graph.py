#!/usr/bin/env python3
"""scripts/file_graph.py OBJ... - which source file calls into which, read
off the object files' symbol tables (nm): a line per file with the files it
uses, then every circle (a file that reaches itself back). Exit 1 when there
is a circle. The test unit.no-circles runs it on the library's objects."""
import collections
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


def main(objs):
    name = lambda o: o.rsplit("/", 1)[-1].split(".")[0]
    tables = {name(o): symbols(o) for o in objs}
    owner = {s: n for n, (d, _) in tables.items() for s in d}
    graph = collections.defaultdict(set)
    for n, (_, used) in tables.items():
        graph[n] |= {owner[s] for s in used if s in owner and owner[s] != n}
    for n in sorted(tables):
        print(f"{n} -> {' '.join(sorted(graph[n])) or '(nothing)'}")
    circles = []
    for start in sorted(tables):
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
    sys.exit(main(sys.argv[1:]))
