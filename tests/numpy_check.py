"""tests/numpy_check.py - float32, float64, complex64 and complex128
products in numpy with C-ordered, Fortran-ordered and transposed operands,
each checked against a reference in a wider type. numpy hands each one to
cblas_sgemm, cblas_dgemm, cblas_cgemm or cblas_zgemm; run under the
preload, every product must be right and intercepted. Prints 'products
float32: N' (and float64, complex64, complex128) for the caller. The
float32 and complex64 references are products in the double type (exact
products, themselves BLAS calls); the float64 and complex128 ones
long-double products, which numpy computes in its own loop, never in
BLAS.
--big adds three float32 sizes with m*n*k >= 1024^3 (1024^3 and two oblong
ones, one of odd sizes), large enough for auto mode's cost model to send
them to the GPU (scripts/gpu_numpy.sh); without it the run is the quick one
CI makes. (The long-double reference would take minutes there.)
--long then repeats a float32 2048^3 product for three seconds, each one
checked: a program that long is what auto mode starts the GPU for, once its
products have spent on the CPU what a start costs."""
import sys
import time
import numpy as np

args = sys.argv[1:]
if any(a not in ("--big", "--long") for a in args):
    sys.exit("usage: numpy_check.py [--big] [--long]")
sizes = [(64, 64, 64), (300, 200, 100), (129, 65, 257), (512, 384, 640)]   # (m, k, n)
big = [(1024, 1024, 1024), (2048, 1536, 1024), (1537, 1031, 1283)] if "--big" in args else []
wider = {np.float32: np.float64, np.float64: np.longdouble,
         np.complex64: np.complex128, np.complex128: np.clongdouble}


def random(rng, shape, dtype):
    """Normal random values of dtype (complex: both parts random)."""
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check(dtype, sizes, rng):
    """Runs every product of each size in dtype; returns how many there were
    and the worst error over its bound."""
    products = 0
    worst = 0.0
    for (m, k, n) in sizes:
        a = random(rng, (m, k), dtype)
        b = random(rng, (k, n), dtype)
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
        w = wider[dtype]
        wr = np.longdouble if w in (np.longdouble, np.clongdouble) else np.float64   # |a| |b| in it
        ref = a.astype(w) @ b.astype(w)
        # (k + 2) roundings of eps each way; complex products and sums round twice.
        cx = 2.0 if np.issubdtype(dtype, np.complexfloating) else 1.0
        bound = 2.0 * cx * (k + 2) * np.finfo(dtype).eps * (np.abs(a).astype(wr) @ np.abs(b).astype(wr))
        for name, (x, y) in cases.items():
            c = x @ y
            err = np.abs(c.astype(w) - ref)
            products += 1
            worst = max(worst, float((err / bound).max()))
            if c.dtype != dtype or not np.all(err <= bound):
                print(f"FAIL {np.dtype(dtype).name} {m}x{k}x{n} {name}: {c.dtype}, max error {float(err.max()):.3e}")
                sys.exit(1)
        # alpha/beta through np.dot(out=...) is not exposed; scaled products are:
        c = dtype(0.5) * (a @ b)
        products += 1
        if not np.all(np.abs(c.astype(w) - 0.5 * ref) <= 0.5 * bound):
            print(f"FAIL {np.dtype(dtype).name} {m}x{k}x{n} scaled")
            sys.exit(1)
    return products, worst




def check_long(rng, seconds=3.0, n=2048):
    """The same float32 n^3 product again and again for `seconds`; returns how
    many and the worst error over its bound."""
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = 2.0 * (n + 2) * np.finfo(np.float32).eps * (np.abs(a).astype(wr) @ np.abs(b).astype(wr))
    products, worst, t0 = 0, 0.0, time.monotonic()
    while products < 10 or time.monotonic() - t0 < seconds:
        err = np.abs((a @ b).astype(np.float64) - ref)
        products += 1
        worst = max(worst, float((err / bound).max()))
        if not np.all(err <= bound):
            print(f"FAIL float32 {n}x{n}x{n} repeated, product {products}: max error {float(err.max()):.3e}")
            sys.exit(1)
    return products, worst


rng = np.random.default_rng(7)
for dtype, its_sizes in ((np.float32, sizes + big), (np.float64, sizes), (np.complex64, sizes),
                        (np.complex128, sizes)):
    products, worst = check(dtype, its_sizes, rng)
    if dtype is np.float32 and "--long" in args:
        more, w = check_long(rng)
        products, worst = products + more, max(worst, w)
    name = np.dtype(dtype).name
    print(f"{name} worst error / bound: {worst:.3f}")
    print(f"products {name}: {products}")
