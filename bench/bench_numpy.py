"""bench/bench_numpy.py [N...] - times numpy's a @ b, float32 and float64,
square n^3, fresh random operands: one product first (a warm-up, not
timed), then the median of three. Run it with and without the preload and
compare the two tables (scripts/gpu_pypi.sh does). Prints one line per
size and type: 'n dtype median_ms best_ms error', the error the relative
Frobenius error of one row block of C against a float64 (float32) or
long-double (float64) reference."""
import sys
import time
import numpy as np

sizes = [int(a) for a in sys.argv[1:]] or [2048, 4096, 8192]
rng = np.random.default_rng(1)
wider = {np.float32: np.float64, np.float64: np.longdouble}
for n in sizes:
    for dtype in (np.float32, np.float64):
        a = rng.uniform(-1, 1, (n, n)).astype(dtype)
        b = rng.uniform(-1, 1, (n, n)).astype(dtype)
        c = a @ b
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            c = a @ b
            times.append(time.perf_counter() - t0)
        rows = slice(0, min(n, 64))
        w = wider[dtype]
        ref = a[rows].astype(w) @ b.astype(w)
        err = float(np.linalg.norm((c[rows] - ref).astype(np.float64)) / np.linalg.norm(ref.astype(np.float64)))
        print(f"{n} {np.dtype(dtype).name} {sorted(times)[1] * 1e3:.2f} {min(times) * 1e3:.2f} {err:.2e}", flush=True)
