"""tests/torch_check.py - PyTorch's matrix products on the CPU, as a user
writes them: torch.mm (all four transposes), nn.Linear forward and backward,
torch.bmm, and one product large enough for auto mode's cost model to weigh,
each in float32 and float64, inputs from a fixed seed.

Before each operation it writes 'op <name> <dtype>' on stderr, so that the
caller can count the BLAS calls (decision lines, or tests/blas_count.c's
lines) that each one made. After it, one line on stdout: the operation, the
dtype and the SHA-256 of every result's bytes, so that two runs can be
compared bit for bit. Every result is also checked against a reference
computed without BLAS in extended precision (numpy longdouble), with the
usual bound 2 (k + 2) eps |A| |B|: exit 1 and a 'FAIL' line if one is off.
Last line on stdout: 'torch <version> <module path>'."""
import hashlib
import sys

import numpy as np
import torch

torch.manual_seed(26)


def mark(name, dt):
    sys.stderr.write("op %s %s\n" % (name, str(dt).replace("torch.", "")))
    sys.stderr.flush()


def ext(t):
    return t.detach().numpy().astype(np.longdouble)


failed = []


def check(what, got, a, b, k, extra=None):
    """got must be within the bound of a @ b (+ extra), a and b as given."""
    ref = ext(a) @ ext(b)
    mag = np.abs(ext(a)) @ np.abs(ext(b))
    if extra is not None:
        ref = ref + ext(extra)
        mag = mag + np.abs(ext(extra))
    eps = np.finfo(np.float32 if got.dtype == torch.float32 else np.float64).eps
    err = np.abs(ext(got) - ref)
    bound = 2.0 * (k + 2) * eps * mag
    if not np.all(err <= bound):
        failed.append("%s: max error %.3e, bound %.3e" % (what, float(err.max()), float(bound.max())))


def digest(*ts):
    h = hashlib.sha256()
    for t in ts:
        h.update(t.detach().contiguous().numpy().tobytes())
    return h.hexdigest()[:32]


for dt in (torch.float32, torch.float64):
    name = str(dt).replace("torch.", "")

    # torch.mm on (m, k) x (k, n) with transposed views: NN, TN, NT, TT.
    m, k, n = 96, 80, 72
    a = torch.randn(m, k, dtype=dt)
    b = torch.randn(k, n, dtype=dt)
    at = a.t().contiguous()
    bt = b.t().contiguous()
    mark("mm", dt)
    outs = []
    for tag, x, y in (("NN", a, b), ("TN", at.t(), b), ("NT", a, bt.t()), ("TT", at.t(), bt.t())):
        c = torch.mm(x, y)
        check("mm %s %s" % (tag, name), c, a, b, k)
        outs.append(c)
    print("mm", name, digest(*outs))

    # nn.Linear(120 -> 56) on a batch of 40: x W^T + b, then the gradients
    # of a fixed weighting of the outputs (dL/dy = g) for x, W and b.
    lin = torch.nn.Linear(120, 56).to(dt)
    x = torch.randn(40, 120, dtype=dt, requires_grad=True)
    mark("linear-forward", dt)
    y = lin(x)
    check("linear forward %s" % name, y, x, lin.weight.t(), 120, extra=lin.bias)
    print("linear-forward", name, digest(y))
    g = torch.randn(40, 56, dtype=dt)
    mark("linear-backward", dt)
    (y * g).sum().backward()
    check("linear grad x %s" % name, x.grad, g, lin.weight, 56)
    check("linear grad W %s" % name, lin.weight.grad, g.t(), x, 40)
    print("linear-backward", name, digest(x.grad, lin.weight.grad, lin.bias.grad))

    # torch.bmm: 6 products of (48, 40) x (40, 32), one BLAS call each.
    A = torch.randn(6, 48, 40, dtype=dt)
    B = torch.randn(6, 40, 32, dtype=dt)
    mark("bmm", dt)
    C = torch.bmm(A, B)
    for i in range(6):
        check("bmm [%d] %s" % (i, name), C[i], A[i], B[i], 40)
    print("bmm", name, digest(C))

    # One product above the default threshold (150^3), which auto mode weighs.
    a = torch.randn(200, 176, dtype=dt)
    b = torch.randn(176, 184, dtype=dt)
    mark("mm-large", dt)
    c = torch.mm(a, b)
    check("mm large %s" % name, c, a, b, 176)
    print("mm-large", name, digest(c))

mark("end", "-")
for f in failed:
    print("FAIL", f)
print("torch", torch.__version__, torch.__file__)
sys.exit(1 if failed else 0)
