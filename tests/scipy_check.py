"""tests/scipy_check.py - scipy.linalg.blas's sgemm and dgemm (scipy's wheel
calls its bundled BLAS by the scipy-openblas32 Fortran names, scipy_sgemm_
and scipy_dgemm_), with alpha, beta and transposed operands, each checked
against a reference in a wider type. Prints 'products float32: N' and
'products float64: N' for the caller."""
import numpy as np
from scipy.linalg import blas

wider = {np.float32: np.float64, np.float64: np.longdouble}
gemm = {np.float32: blas.sgemm, np.float64: blas.dgemm}
rng = np.random.default_rng(7)
bad = 0
for dtype in (np.float32, np.float64):
    products = 0
    for (m, k, n) in [(300, 200, 100), (129, 257, 65), (400, 300, 200)]:
        for ta in (0, 1):
            for tb in (0, 1):
                a = np.asfortranarray(rng.standard_normal((k, m) if ta else (m, k)).astype(dtype))
                b = np.asfortranarray(rng.standard_normal((n, k) if tb else (k, n)).astype(dtype))
                c = np.asfortranarray(rng.standard_normal((m, n)).astype(dtype))
                alpha, beta = 0.75, -0.5
                got = gemm[dtype](alpha, a, b, beta, c, trans_a=ta, trans_b=tb)
                w = wider[dtype]
                oa, ob = (a.T if ta else a).astype(w), (b.T if tb else b).astype(w)
                ref = alpha * (oa @ ob) + beta * c.astype(w)
                bound = 2.0 * (k + 2) * np.finfo(dtype).eps * (
                    abs(alpha) * (np.abs(oa) @ np.abs(ob)) + abs(beta) * np.abs(c.astype(w)))
                if not np.all(np.abs(got.astype(w) - ref) <= bound):
                    print(f"wrong: {dtype.__name__} {m}x{k}x{n} trans {ta}{tb}")
                    bad += 1
                products += 1
    print(f"products {np.dtype(dtype).name}: {products}")
raise SystemExit(1 if bad else 0)
