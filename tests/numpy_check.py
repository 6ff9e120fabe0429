"""tests/numpy_check.py - float32 products in numpy with C-ordered,
Fortran-ordered and transposed operands, each checked against float64.
numpy hands each one to cblas_sgemm; run under the preload, every product
must be right and intercepted. Prints 'products: N' for the caller.
--big adds three sizes with m*n*k >= 1024^3 (1024^3 and two oblong ones,
one of odd sizes), large enough for auto mode's cost model to send them to
the GPU (scripts/gpu_numpy.sh); without it the run is the quick one CI makes."""
import sys
import numpy as np

args = sys.argv[1:]
if any(a != "--big" for a in args):
    sys.exit("usage: numpy_check.py [--big]")
sizes = [(64, 64, 64), (300, 200, 100), (129, 65, 257), (512, 384, 640)]   # (m, k, n)
if "--big" in args:
    sizes += [(1024, 1024, 1024), (2048, 1536, 1024), (1537, 1031, 1283)]

rng = np.random.default_rng(7)
products = 0
worst = 0.0
for (m, k, n) in sizes:
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    at = np.ascontiguousarray(a.T)        # k x m, so at.T is a transposed view of A
    bt = np.ascontiguousarray(b.T)
    cases = {
        "C @ C": (a, b),
        "F @ F": (np.asfortranarray(a), np.asfortranarray(b)),
        "C @ F": (a, np.asfortranarray(b)),
        "A^T view @ B": (at.T, b),
        "A @ B^T view": (a, bt.T),
        "A^T view @ B^T view": (at.T, bt.T),
    }
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = 2.0 * (k + 2) * np.finfo(np.float32).eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    for name, (x, y) in cases.items():
        c = x @ y
        err = np.abs(c - ref)
        products += 1
        worst = max(worst, float((err / bound).max()))
        if not np.all(err <= bound):
            print(f"FAIL {m}x{k}x{n} {name}: max error {err.max():.3e}")
            sys.exit(1)
    # alpha/beta through np.dot(out=...) is not exposed; scaled products are:
    c = np.float32(0.5) * (a @ b)
    products += 1
    if not np.all(np.abs(c - 0.5 * ref) <= 0.5 * bound):
        print(f"FAIL {m}x{k}x{n} scaled")
        sys.exit(1)
print(f"worst error / bound: {worst:.3f}")
print(f"products: {products}")
