/*
 * kf_matrix.c -- square matrices in dense, LAPACK band or compressed sparse
 * row (CSR, on a shared pattern) storage.
 *
 * The solvers above this file (eigen, integrators) see only these
 * operations, so the same code runs on a banded beam and on a dense
 * reduced system.
 */
#include "kf_internal.h"

#include <string.h>

size_t kf_mat_nvalues(const kf_mat *m)
{
    if (m->kind == KF_CSR)
        return m->pat ? (size_t)m->pat->nnz : 0;
    return (size_t)m->ld * (size_t)m->n;
}

int kf_mat_alloc_csr(kf_mat *m, const kf_pattern *pat, kf_error *err)
{
    memset(m, 0, sizeof *m);
    if (!pat || pat->n < 0 || pat->nnz < 0 || !pat->ptr || (pat->nnz > 0 && !pat->col))
        return kf_fail(err, KF_EINVAL, "pattern", "a CSR matrix needs a valid pattern");
    m->kind = KF_CSR;
    m->n = pat->n;
    m->kl = m->ku = pat->n > 0 ? pat->n - 1 : 0;
    m->pat = pat;
    m->a = kf_calloc(pat->nnz > 0 ? (size_t)pat->nnz : 1, sizeof(double));
    if (!m->a)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a sparse matrix of %d entries",
                       pat->nnz);
    return KF_OK;
}

void kf_pattern_free(kf_pattern *p)
{
    if (!p)
        return;
    free(p->ptr);
    free(p->col);
    free(p);
}

int kf_mat_alloc(kf_mat *m, kf_storage kind, int n, int kl, int ku, kf_error *err)
{
    memset(m, 0, sizeof *m);
    if (n < 0)
        return kf_fail(err, KF_EINVAL, "n", "matrix order n = %d must be >= 0", n);
    if (kind == KF_BAND) {
        if (kl < 0 || ku < 0)
            return kf_fail(err, KF_EINVAL, "kl", "band widths kl = %d, ku = %d must be >= 0",
                           kl, ku);
        if (n > 0 && kl > n - 1)
            kl = n - 1;
        if (n > 0 && ku > n - 1)
            ku = n - 1;
        m->kl = kl;
        m->ku = ku;
        m->ld = 2 * kl + ku + 1;
    } else if (kind == KF_DENSE) {
        m->kl = m->ku = n > 0 ? n - 1 : 0;
        m->ld = n > 0 ? n : 1;
    } else if (kind == KF_CSR) {
        return kf_fail(err, KF_EINVAL, "kind", "a CSR matrix is made on a pattern "
                       "(kf_mat_alloc_csr or kf_mat_alloc_like)");
    } else {
        return kf_fail(err, KF_EINVAL, "kind", "unknown matrix storage %d", (int)kind);
    }
    m->kind = kind;
    m->n = n;
    m->a = kf_calloc(kf_mat_nvalues(m), sizeof(double));
    if (!m->a)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a %d x %d matrix", n, n);
    return KF_OK;
}

int kf_mat_alloc_like(kf_mat *dst, const kf_mat *src, kf_error *err)
{
    if (src->kind == KF_CSR)
        return kf_mat_alloc_csr(dst, src->pat, err);
    return kf_mat_alloc(dst, src->kind, src->n, src->kl, src->ku, err);
}

void kf_mat_free(kf_mat *m)
{
    if (!m)
        return;
    free(m->a);
    m->a = NULL;
    m->pat = NULL;
    m->n = 0;
}

/* The stored rows of a matrix: all of a dense one; of a band, rows kl..ld-1 of
 * each column (the first kl are LU fill-in, workspace that dgbtrf does not
 * read), so the element-wise operations below skip them. */
static void stored_rows(const kf_mat *m, int *r0, int *nr)
{
    *r0 = m->kind == KF_BAND ? m->kl : 0;
    *nr = m->ld - *r0;
}

void kf_mat_zero(kf_mat *m)
{
    if (m->kind == KF_CSR) {
        memset(m->a, 0, kf_mat_nvalues(m) * sizeof(double));
        return;
    }
    int r0, nr;
    stored_rows(m, &r0, &nr);
    if (r0 == 0) {
        memset(m->a, 0, kf_mat_nvalues(m) * sizeof(double));
        return;
    }
    for (int j = 0; j < m->n; j++)
        memset(m->a + (size_t)j * m->ld + r0, 0, (size_t)nr * sizeof(double));
}

int kf_mat_conform(const kf_mat *x, const kf_mat *y)
{
    return x->kind == y->kind && x->n == y->n && x->kl == y->kl && x->ku == y->ku &&
           x->ld == y->ld && x->pat == y->pat;
}

int kf_mat_finite(const kf_mat *m)
{
    /* the storage outside the matrix (and the band's fill rows) is kept at
     * zero, so the whole array can be scanned */
    return kf_vec_finite(kf_mat_nvalues(m), m->a);
}

int kf_vec_finite(size_t n, const double *x)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Position of column j in row i of a pattern (binary search), or -1. */
static int csr_find(const kf_pattern *p, int i, int j)
{
    int lo = p->ptr[i], hi = p->ptr[i + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = p->col[mid];
        if (c == j)
            return mid;
        if (c < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Pointer to A(i,j), or NULL outside the band (or the sparse pattern). */
static double *entry(const kf_mat *m, int i, int j)
{
    if (i < 0 || j < 0 || i >= m->n || j >= m->n)
        return NULL;
    if (m->kind == KF_CSR) {
        int k = csr_find(m->pat, i, j);
        return k < 0 ? NULL : m->a + k;
    }
    if (m->kind == KF_DENSE)
        return m->a + i + (size_t)j * m->ld;
    if (i - j > m->kl || j - i > m->ku)
        return NULL;
    return m->a + (m->kl + m->ku + i - j) + (size_t)j * m->ld;
}

double kf_mat_get(const kf_mat *m, int i, int j)
{
    const double *p = entry(m, i, j);
    return p ? *p : 0.0;
}

int kf_mat_add(kf_mat *m, int i, int j, double v)
{
    double *p = entry(m, i, j);
    if (!p)
        return KF_EINVAL;
    *p += v;
    return KF_OK;
}

void kf_mat_copy(kf_mat *dst, const kf_mat *src)
{
    if (src->kind == KF_CSR) {
        memcpy(dst->a, src->a, kf_mat_nvalues(src) * sizeof(double));
        return;
    }
    int r0, nr;
    stored_rows(src, &r0, &nr);
    for (int j = 0; j < src->n; j++)
        memcpy(dst->a + (size_t)j * dst->ld + r0, src->a + (size_t)j * src->ld + r0,
               (size_t)nr * sizeof(double));
}

void kf_mat_axpy(kf_mat *y, double alpha, const kf_mat *x)
{
    if (y->kind == KF_CSR) { /* one pattern: an axpy over the values */
        size_t nnz = kf_mat_nvalues(y);
        double *restrict yv = y->a;
        const double *restrict xv = x->a;
        for (size_t k = 0; k < nnz; k++)
            yv[k] += alpha * xv[k];
        return;
    }
    /* outside-band entries are zero in both, so whole stored columns can be summed */
    int r0, nr;
    stored_rows(y, &r0, &nr);
    for (int j = 0; j < y->n; j++) {
        double *restrict yc = y->a + (size_t)j * y->ld + r0;
        const double *restrict xc = x->a + (size_t)j * x->ld + r0;
        for (int r = 0; r < nr; r++)
            yc[r] += alpha * xc[r];
    }
}

void kf_mat_axpy2(kf_mat *y, double a, const kf_mat *x1, double b, const kf_mat *x2)
{
    if (y->kind == KF_CSR) { /* one pattern: entry by entry over the values */
        size_t nnz = kf_mat_nvalues(y);
        double *restrict yv = y->a;
        const double *restrict v1 = x1->a, *restrict v2 = x2->a;
        for (size_t k = 0; k < nnz; k++)
            yv[k] += a * v1[k] + b * v2[k];
        return;
    }
    int r0, nr;
    stored_rows(y, &r0, &nr);
    for (int j = 0; j < y->n; j++) {
        double *restrict yc = y->a + (size_t)j * y->ld + r0;
        const double *restrict c1 = x1->a + (size_t)j * x1->ld + r0;
        const double *restrict c2 = x2->a + (size_t)j * x2->ld + r0;
        for (int r = 0; r < nr; r++)
            yc[r] += a * c1[r] + b * c2[r];
    }
}

void kf_mat_scale(kf_mat *y, double alpha)
{
    if (y->kind == KF_CSR) {
        size_t nnz = kf_mat_nvalues(y);
        for (size_t k = 0; k < nnz; k++)
            y->a[k] *= alpha;
        return;
    }
    int r0, nr;
    stored_rows(y, &r0, &nr);
    for (int j = 0; j < y->n; j++) {
        double *yc = y->a + (size_t)j * y->ld + r0;
        for (int r = 0; r < nr; r++)
            yc[r] *= alpha;
    }
}

void kf_mat_gemv(const kf_mat *A, double alpha, const double *x, double beta, double *y)
{
    int n = A->n, band = A->kind == KF_BAND, kd = A->kl + A->ku;
    if (beta == 0.0)
        memset(y, 0, (size_t)n * sizeof(double));
    else if (beta != 1.0)
        for (int i = 0; i < n; i++)
            y[i] *= beta;
    if (A->kind == KF_CSR) {
        const kf_pattern *p = A->pat;
        for (int i = 0; i < n; i++) {
            double v = 0.0;
            for (int k = p->ptr[i]; k < p->ptr[i + 1]; k++)
                v += A->a[k] * x[p->col[k]];
            y[i] += alpha * v;
        }
        return;
    }
    /* The operations of column-by-column updates of y (y_i += A_ij x_j) in
     * their order, without their chain of stores and reloads of y.  Dense:
     * blocks of 8 rows at a time, so that the column's 8 entries load as
     * vectors, skipping x_j = 0 as the column form did; band: without a test
     * per entry (a zero x_j adds a zero: the same sums, up to the sign of a
     * zero, for finite entries). */
    const double *restrict a = A->a;
    const int ld = A->ld, kl = A->kl, ku = A->ku;
    if (band) {
        /* diagonal by diagonal (j = i + k, k increasing): each y_i still sums its
         * terms in increasing j, and no update waits on the one before it */
        for (int k = -kl; k <= ku; k++) {
            int i0 = k < 0 ? -k : 0, i1 = k > 0 ? n - k : n;
            const double *restrict diag = a + (kd - k) + (size_t)k * ld; /* A(i, i + k) at i ld */
            for (int i = i0; i < i1; i++)
                y[i] += diag[(size_t)i * ld] * (alpha * x[i + k]);
        }
        return;
    }
    int r0 = 0;
    for (; r0 + 8 <= n; r0 += 8) {
        double s[8];
        memcpy(s, y + r0, sizeof s);
        for (int j = 0; j < n; j++) {
            double xj = alpha * x[j];
            if (xj == 0.0)
                continue;
            const double *restrict col = a + (size_t)j * ld + r0;
            for (int k = 0; k < 8; k++)
                s[k] += col[k] * xj;
        }
        memcpy(y + r0, s, sizeof s);
    }
    for (int i = r0; i < n; i++) {
        double s = y[i];
        for (int j = 0; j < n; j++) {
            double xj = alpha * x[j];
            if (xj != 0.0)
                s += a[(size_t)j * ld + i] * xj;
        }
        y[i] = s;
    }
}

static void to_dense(const kf_mat *A, double *out, int rowmajor)
{
    int n = A->n;
    memset(out, 0, (size_t)n * n * sizeof(double));
    if (A->kind == KF_CSR) {
        const kf_pattern *p = A->pat;
        for (int i = 0; i < n; i++)
            for (int k = p->ptr[i]; k < p->ptr[i + 1]; k++) {
                int j = p->col[k];
                out[rowmajor ? (size_t)i * n + j : i + (size_t)j * n] = A->a[k];
            }
        return;
    }
    for (int j = 0; j < n; j++) {
        int i0 = A->kind == KF_BAND ? (j - A->ku > 0 ? j - A->ku : 0) : 0;
        int i1 = A->kind == KF_BAND ? (j + A->kl < n - 1 ? j + A->kl : n - 1) : n - 1;
        for (int i = i0; i <= i1; i++) {
            double v = *entry(A, i, j);
            if (rowmajor)
                out[(size_t)i * n + j] = v;
            else
                out[i + (size_t)j * n] = v;
        }
    }
}

void kf_mat_to_rowmajor(const kf_mat *A, double *out) { to_dense(A, out, 1); }
void kf_mat_to_colmajor(const kf_mat *A, double *out) { to_dense(A, out, 0); }

int kf_check_map(int n, const int *map, int size, kf_error *err)
{
    for (int i = 0; i < n; i++)
        if (map[i] < 0 || map[i] >= size || (i > 0 && map[i] <= map[i - 1]))
            return kf_fail(err, KF_EINVAL, "map",
                           "DOF map must be increasing indices in 0..%d (entry %d is %d)",
                           size - 1, i, map[i]);
    return KF_OK;
}

int kf_mat_extract(kf_mat *dst, const kf_mat *src, int n, const int *map, kf_error *err)
{
    if (src->kind == KF_CSR)
        return kf_fail(err, KF_EINVAL, "storage", "sparse (CSR) matrices are reduced with "
                       "their body (kf_body_reduce), onto a reduced pattern");
    if (kf_check_map(n, map, src->n, err))
        return KF_EINVAL;
    int rc = kf_mat_alloc(dst, src->kind, n, src->kl, src->ku, err);
    if (rc)
        return rc;
    for (int j = 0; j < n; j++) {
        int i0 = dst->kind == KF_BAND ? (j - dst->ku > 0 ? j - dst->ku : 0) : 0;
        int i1 = dst->kind == KF_BAND ? (j + dst->kl < n - 1 ? j + dst->kl : n - 1) : n - 1;
        for (int i = i0; i <= i1; i++)
            *entry(dst, i, j) = kf_mat_get(src, map[i], map[j]);
    }
    return KF_OK;
}

int kf_mat_lu(kf_mat *A, int *ipiv, kf_error *err)
{
    if (A->kind == KF_CSR)
        return kf_fail(err, KF_EINVAL, "storage", "sparse (CSR) matrices are factored outside "
                       "the core (kanefem's sparse solvers, SciPy's SuperLU)");
    if (A->kind == KF_DENSE)
        return kf_la_getrf(A->n, A->a, A->ld, ipiv, err);
    return kf_la_gbtrf(A->n, A->kl, A->ku, A->a, A->ld, ipiv, err);
}

/*
 * Solve with the band LU factors of dgbtrf, as dgbtrs does (row interchanges
 * and unit lower multipliers column by column, then the upper band), written
 * out here: a band is a few entries per column, and LAPACK's per-column BLAS
 * calls cost more than the arithmetic (half of an explicit time step).
 */
static void band_lu_solve(const kf_mat *LU, const int *ipiv, double *b)
{
    int n = LU->n, kl = LU->kl, kd = LU->kl + LU->ku, ld = LU->ld;
    const double *ab = LU->a;
    for (int j = 0; kl > 0 && j < n - 1; j++) {
        int l = ipiv[j] - 1, lm = kl < n - 1 - j ? kl : n - 1 - j;
        if (l != j) {
            double t = b[l];
            b[l] = b[j];
            b[j] = t;
        }
        const double *m = ab + (size_t)j * ld + kd + 1;
        for (int i = 0; i < lm; i++)
            b[j + 1 + i] -= m[i] * b[j];
    }
    for (int j = n - 1; j >= 0; j--) {
        const double *col = ab + (size_t)j * ld;
        b[j] /= col[kd];
        int i0 = j - kd > 0 ? j - kd : 0;
        for (int i = i0; i < j; i++)
            b[i] -= col[kd + i - j] * b[j];
    }
}

int kf_mat_lu_solve(const kf_mat *LU, const int *ipiv, int nrhs, double *b, int ldb,
                    kf_error *err)
{
    if (LU->kind == KF_CSR)
        return kf_fail(err, KF_EINVAL, "storage", "no LU factors for a sparse (CSR) matrix");
    if (LU->kind == KF_DENSE)
        return kf_la_getrs(LU->n, nrhs, LU->a, LU->ld, ipiv, b, ldb, err);
    if (nrhs < 0 || ldb < (LU->n > 1 ? LU->n : 1))
        return kf_fail(err, KF_EINVAL, "nrhs", "bad right-hand side shape (nrhs %d, ldb %d)",
                       nrhs, ldb);
    for (int c = 0; c < nrhs; c++)
        band_lu_solve(LU, ipiv, b + (size_t)c * ldb);
    return KF_OK;
}

/* ---------------------------------------------------------------- small dense systems */

int kf_small_lu_factor(int n, double *a, int lda, int *ipiv)
{
#define A_(i, j) a[(i) + (size_t)(j) * lda]
    if (!kf_mat_block_finite(n, n, a, lda))
        return KF_ERANGE; /* a NaN would pass every pivot test and spread */
    for (int j = 0; j < n; j++) {
        int p = j;
        for (int i = j + 1; i < n; i++)
            if (fabs(A_(i, j)) > fabs(A_(p, j)))
                p = i;
        ipiv[j] = p;
        if (A_(p, j) == 0.0)
            return KF_ESING;
        if (p != j)
            for (int k = 0; k < n; k++) {
                double t = A_(j, k);
                A_(j, k) = A_(p, k);
                A_(p, k) = t;
            }
        double inv = 1.0 / A_(j, j);
        for (int i = j + 1; i < n; i++)
            A_(i, j) *= inv;
        /* the rank-one update column by column (dger's order: contiguous, and the same
         * products as row by row), skipping the zeros of row j (sparse Jacobians) */
        for (int k = j + 1; k < n; k++) {
            double u = A_(j, k);
            if (u != 0.0)
                for (int i = j + 1; i < n; i++)
                    A_(i, k) -= A_(i, j) * u;
        }
    }
    return KF_OK;
#undef A_
}

int kf_small_lu_solve(int n, const double *a, int lda, const int *ipiv, int nrhs, double *b,
                      int ldb)
{
#define A_(i, j) a[(i) + (size_t)(j) * lda]
    if (!kf_mat_block_finite(n, nrhs, b, ldb))
        return KF_ERANGE;
    for (int c = 0; c < nrhs; c++) {
        double *x = b + (size_t)c * ldb;
        for (int j = 0; j < n; j++) { /* P b: the interchanges in order (dlaswp) */
            double t = x[j];
            x[j] = x[ipiv[j]];
            x[ipiv[j]] = t;
        }
        for (int j = 0; j < n; j++) /* L y = P b, L unit lower (its rows swapped whole) */
            if (x[j] != 0.0) /* sparse right-hand sides ([0; I] of a mechanism's A) */
                for (int i = j + 1; i < n; i++)
                    x[i] -= A_(i, j) * x[j];
        for (int k = n - 1; k >= 0; k--) /* U x = y by columns (contiguous), zeros skipped */
            if (x[k] != 0.0) {
                double t = x[k] /= A_(k, k);
                for (int i = 0; i < k; i++)
                    x[i] -= A_(i, k) * t;
            }
    }
    return KF_OK;
#undef A_
}

/*
 * Band LU with partial pivoting in plain loops (dgbtf2's algorithm, the factors
 * and 1-based ipiv as dgbtrf leaves them, solved by band_lu_solve): for the
 * narrow bands of a chain of elements LAPACK's per-column BLAS calls (idamax,
 * dswap, dscal, dger) cost several times the arithmetic (measured: 32k
 * instructions for a 29-unknown band of half-width 5, against 4k here).
 */
int kf_small_band_lu_factor(kf_mat *A, int *ipiv)
{
    int n = A->n, kl = A->kl, ku = A->ku, kv = kl + ku, ld = A->ld;
    double *ab = A->a;
    /* column j's entry of row i at col(j)[kv + i - j]: rows contiguous within a column */
#define COL_(j) (ab + (size_t)(j) * ld + kv - (j))
    for (int j = 0; j < n; j++) { /* the band finite, the fill-in rows zero */
        const double *c = COL_(j);
        int i0 = j - ku > 0 ? j - ku : 0, i1 = j + kl < n - 1 ? j + kl : n - 1;
        for (int i = i0; i <= i1; i++)
            if (!isfinite(c[i]))
                return KF_ERANGE; /* a NaN would pass every pivot test and spread */
        memset(ab + (size_t)j * ld, 0, (size_t)kl * sizeof(double));
    }
    int ju = 0; /* the last column the eliminations so far reach */
    for (int j = 0; j < n; j++) {
        double *cj = COL_(j);
        int km = kl < n - 1 - j ? kl : n - 1 - j, p = j;
        double big = fabs(cj[j]);
        for (int i = j + 1; i <= j + km; i++)
            if (fabs(cj[i]) > big)
                big = fabs(cj[i]), p = i;
        ipiv[j] = p + 1;
        if (big == 0.0)
            return KF_ESING;
        int last = ku + p < n - 1 ? ku + p : n - 1;
        ju = last > ju ? last : ju;
        if (p != j)
            for (int c = j; c <= ju; c++) {
                double *cc = COL_(c), t = cc[j];
                cc[j] = cc[p];
                cc[p] = t;
            }
        double inv = 1.0 / cj[j];
        double *restrict l = cj + j + 1;
        for (int i = 0; i < km; i++)
            l[i] *= inv;
        for (int c = j + 1; c <= ju; c++) {
            double *restrict cc = COL_(c) + j;
            double u = cc[0];
            if (u != 0.0)
                for (int i = 0; i < km; i++)
                    cc[1 + i] -= l[i] * u;
        }
    }
    return KF_OK;
#undef COL_
}

int kf_small_band_lu_solve(const kf_mat *LU, const int *ipiv, int nrhs, double *b, int ldb)
{
    if (!kf_mat_block_finite(LU->n, nrhs, b, ldb))
        return KF_ERANGE;
    for (int c = 0; c < nrhs; c++)
        band_lu_solve(LU, ipiv, b + (size_t)c * ldb);
    return KF_OK;
}

int kf_small_lu_solve_trans(int n, const double *a, int lda, const int *ipiv, double *b)
{
#define A_(i, j) a[(i) + (size_t)(j) * lda]
    if (!kf_mat_block_finite(n, 1, b, n))
        return KF_ERANGE;
    /* A = P^T L U (getrf's): A^T x = U^T L^T P x = b */
    for (int i = 0; i < n; i++) { /* U^T y = b */
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= A_(k, i) * b[k];
        b[i] = s / A_(i, i);
    }
    for (int j = n - 1; j >= 0; j--) { /* L^T z = y, L unit lower */
        double s = b[j];
        for (int i = j + 1; i < n; i++)
            s -= A_(i, j) * b[i];
        b[j] = s;
    }
    for (int j = n - 1; j >= 0; j--) { /* x = P^T z: the interchanges in reverse */
        double t = b[j];
        b[j] = b[ipiv[j]];
        b[ipiv[j]] = t;
    }
    return KF_OK;
#undef A_
}

int kf_mat_block_finite(int m, int n, const double *a, int lda)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            if (!isfinite(a[i + (size_t)j * lda]))
                return 0;
    return 1;
}

int kf_csr_transpose(int nrow, int ncol, const int *ptr, const int *col, const double *val,
                     int **tptr, int **tcol, double **tval)
{
    int nnz = ptr[nrow];
    int *tp = kf_calloc((size_t)ncol + 1, sizeof(int)), *tc = kf_calloc(nnz > 0 ? (size_t)nnz : 1, sizeof(int));
    double *tv = kf_calloc(nnz > 0 ? (size_t)nnz : 1, sizeof(double));
    int *fill = kf_calloc((size_t)ncol + 1, sizeof(int));
    if (!tp || !tc || !tv || !fill) {
        free(tp);
        free(tc);
        free(tv);
        free(fill);
        return KF_ENOMEM;
    }
    for (int k = 0; k < nnz; k++) /* counting sort by column: rows stay increasing */
        tp[col[k] + 1]++;
    for (int c = 0; c < ncol; c++)
        tp[c + 1] += tp[c];
    memcpy(fill, tp, (size_t)ncol * sizeof(int));
    for (int i = 0; i < nrow; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            tc[fill[col[k]]] = i;
            tv[fill[col[k]]++] = val[k];
        }
    free(fill);
    *tptr = tp;
    *tcol = tc;
    *tval = tv;
    return KF_OK;
}
