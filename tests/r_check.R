# tests/r_check.R - ctest client.r (tests/r_check.sh): R's products that
# reach level-3 BLAS: crossprod(X) and tcrossprod(X) (dsyrk_), X %*% Y
# (dgemm_), a complex Z %*% W (zgemm_), each against a reference made of
# element-wise sums (no BLAS call), printed as relative errors.
set.seed(3)
rel <- function(a, b) max(Mod(a - b)) / max(Mod(b))
# a %o% b without BLAS: every element one product
outer1 <- function(a, b) matrix(rep(a, times = length(b)) * rep(b, each = length(a)), length(a))
ref <- function(A, B) {
    R <- outer1(A[, 1], B[1, ])
    for (p in seq_len(ncol(A))[-1]) R <- R + outer1(A[, p], B[p, ])
    R
}
X <- matrix(rnorm(300 * 200), 300)
Y <- matrix(rnorm(200 * 250), 200)
Z <- matrix(complex(real = rnorm(300 * 200), imaginary = rnorm(300 * 200)), 300)
W <- matrix(complex(real = rnorm(200 * 150), imaginary = rnorm(200 * 150)), 200)
cat(sprintf("crossprod %.3g\n", rel(crossprod(X), ref(t(X), X))))
cat(sprintf("tcrossprod %.3g\n", rel(tcrossprod(X), ref(X, t(X)))))
cat(sprintf("dgemm %.3g\n", rel(X %*% Y, ref(X, Y))))
cat(sprintf("zgemm %.3g\n", rel(Z %*% W, ref(Z, W))))
