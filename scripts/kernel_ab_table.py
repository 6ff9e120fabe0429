#!/usr/bin/env python3
"""scripts/kernel_ab_table.py DIR ROUNDS KERNEL - the table of scripts/kernel_ab.sh.

DIR holds bench_kernels' output of build A and of build B, round by round:
bench-A-1.txt, bench-B-1.txt, ... Prints, per shape, cuBLAS fp32's ms (A's
first round), A's and B's ms per round, the best of B over the best of A
(below 1: B is faster), and cuBLAS over the best of B; then the shapes whose
errors differ between A and B in the first round."""
import sys


def timed_rows(path, kernel):
    """label -> (ms, 'rel_err max_err') of `kernel` in the timed table
    (the wide-range table after it has errors only)."""
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("wide"):
                break
            t = line.split()
            if kernel in t[1:] and len(t) >= t.index(kernel, 1) + 6:
                i = t.index(kernel, 1)
                rows[" ".join(t[:i])] = (float(t[i + 1]), t[i + 4] + " " + t[i + 5])
    return rows


def main(d, rounds, kernel):
    runs = {v: [timed_rows(f"{d}/bench-{v}-{r}.txt", kernel) for r in range(1, rounds + 1)]
            for v in "AB"}
    cub = timed_rows(f"{d}/bench-A-1.txt", "cublas")
    w = 8 * rounds
    print(f"{'shape':<22} {'cuBLAS':>8} {'A':>{w}} {'B':>{w}} {'B/A':>6} {'B x cuBLAS':>10}")
    for label in runs["A"][0]:
        a = [run[label][0] for run in runs["A"]]
        b = [run[label][0] for run in runs["B"]]
        c = f"{cub[label][0]:8.3f}" if label in cub else f"{'-':>8}"
        x = f"{cub[label][0] / min(b):10.2f}" if label in cub else f"{'-':>10}"
        print(f"{label:<22} {c} {''.join(f'{v:8.3f}' for v in a)} "
              f"{''.join(f'{v:8.3f}' for v in b)} {min(b) / min(a):6.3f} {x}")
    first_a, first_b = runs["A"][0], runs["B"][0]
    diff = [l for l in first_a if first_a[l][1] != first_b[l][1]]
    if not diff:
        print("errors (rel, max) the same on every shape")
    for l in diff:
        print(f"errors differ: {l}: A {first_a[l][1]} | B {first_b[l][1]}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
