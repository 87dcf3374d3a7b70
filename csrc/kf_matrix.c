/*
 * kf_matrix.c -- square matrices in dense or LAPACK band storage.
 *
 * The solvers above this file (eigen, integrators) see only these
 * operations, so the same code runs on a banded beam and on a dense
 * reduced system.
 */
#include "kf_internal.h"

#include <string.h>

static size_t mat_size(const kf_mat *m) { return (size_t)m->ld * (size_t)m->n; }

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
    } else {
        return kf_fail(err, KF_EINVAL, "kind", "unknown matrix storage %d", (int)kind);
    }
    m->kind = kind;
    m->n = n;
    m->a = kf_calloc(mat_size(m), sizeof(double));
    if (!m->a)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a %d x %d matrix", n, n);
    return KF_OK;
}

int kf_mat_alloc_like(kf_mat *dst, const kf_mat *src, kf_error *err)
{
    return kf_mat_alloc(dst, src->kind, src->n, src->kl, src->ku, err);
}

void kf_mat_free(kf_mat *m)
{
    if (!m)
        return;
    free(m->a);
    m->a = NULL;
    m->n = 0;
}

void kf_mat_zero(kf_mat *m) { memset(m->a, 0, mat_size(m) * sizeof(double)); }

int kf_mat_conform(const kf_mat *x, const kf_mat *y)
{
    return x->kind == y->kind && x->n == y->n && x->kl == y->kl && x->ku == y->ku &&
           x->ld == y->ld;
}

/* Pointer to A(i,j), or NULL outside the band. */
static double *entry(const kf_mat *m, int i, int j)
{
    if (i < 0 || j < 0 || i >= m->n || j >= m->n)
        return NULL;
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
    memcpy(dst->a, src->a, mat_size(src) * sizeof(double));
}

void kf_mat_axpy(kf_mat *y, double alpha, const kf_mat *x)
{
    /* outside-band entries are zero in both, so the whole array can be summed */
    size_t len = mat_size(y);
    double *restrict ya = y->a;
    const double *restrict xa = x->a;
    for (size_t k = 0; k < len; k++)
        ya[k] += alpha * xa[k];
}

void kf_mat_scale(kf_mat *y, double alpha)
{
    size_t len = mat_size(y);
    for (size_t k = 0; k < len; k++)
        y->a[k] *= alpha;
}

void kf_mat_gemv(const kf_mat *A, double alpha, const double *x, double beta, double *y)
{
    int n = A->n;
    if (beta == 0.0)
        memset(y, 0, (size_t)n * sizeof(double));
    else if (beta != 1.0)
        for (int i = 0; i < n; i++)
            y[i] *= beta;
    for (int j = 0; j < n; j++) {
        double xj = alpha * x[j];
        if (xj == 0.0)
            continue;
        int i0 = A->kind == KF_BAND ? (j - A->ku > 0 ? j - A->ku : 0) : 0;
        int i1 = A->kind == KF_BAND ? (j + A->kl < n - 1 ? j + A->kl : n - 1) : n - 1;
        const double *col = entry(A, i0, j);
        for (int i = i0; i <= i1; i++)
            y[i] += col[i - i0] * xj;
    }
}

static void to_dense(const kf_mat *A, double *out, int rowmajor)
{
    int n = A->n;
    memset(out, 0, (size_t)n * n * sizeof(double));
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

int kf_mat_extract(kf_mat *dst, const kf_mat *src, int n, const int *map, kf_error *err)
{
    for (int i = 0; i < n; i++)
        if (map[i] < 0 || map[i] >= src->n || (i > 0 && map[i] <= map[i - 1]))
            return kf_fail(err, KF_EINVAL, "map",
                           "DOF map must be increasing indices in 0..%d (entry %d is %d)",
                           src->n - 1, i, map[i]);
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
    if (A->kind == KF_DENSE)
        return kf_la_getrf(A->n, A->a, A->ld, ipiv, err);
    return kf_la_gbtrf(A->n, A->kl, A->ku, A->a, A->ld, ipiv, err);
}

int kf_mat_lu_solve(const kf_mat *LU, const int *ipiv, int nrhs, double *b, int ldb,
                    kf_error *err)
{
    if (LU->kind == KF_DENSE)
        return kf_la_getrs(LU->n, nrhs, LU->a, LU->ld, ipiv, b, ldb, err);
    return kf_la_gbtrs(LU->n, LU->kl, LU->ku, nrhs, LU->a, LU->ld, ipiv, b, ldb, err);
}
