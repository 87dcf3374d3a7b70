/*
 * kf_matrix.h -- matrices (dense, band, CSR) and their operations.
 * Part of the kanefem public C API; implementation: csrc/kf_matrix.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_MATRIX_H
#define KF_MATRIX_H

#include <stddef.h>
#include "kf_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- matrices */

/*
 * Square matrices in one of two storages, so that assembly, integrators and
 * eigen solvers run unchanged on either:
 *   KF_DENSE: column-major n x n, ld = n;
 *   KF_BAND:  LAPACK general band layout with room for the LU fill-in:
 *             ld = 2 kl + ku + 1, A(i,j) at a[(kl + ku + i - j) + j ld]
 *             for max(0, j - ku) <= i <= min(n - 1, j + kl).
 * Entries outside the matrix or the band are kept at zero; the kl fill-in
 * rows of a band are LU workspace, not part of the matrix (copy, axpy and
 * scale leave them alone).
 */
typedef enum kf_storage { KF_DENSE = 0, KF_BAND = 1, KF_CSR = 2 } kf_storage;

/*
 * KF_CSR (meshes, docs/theory.md section 3.11): compressed sparse rows on a
 * pattern that every matrix of a body shares, so that a combination of them
 * is an axpy over their value arrays.  The pattern lists, for row i, the
 * sorted columns col[ptr[i] .. ptr[i+1]-1] (0-based, no duplicates); a CSR
 * kf_mat holds a[nnz], the values at those positions, and borrows its
 * pattern (it must outlive the matrix).  kl = ku = n - 1, ld = 0.
 */
typedef struct kf_pattern {
    int n;
    int nnz;
    int *ptr; /* n + 1 */
    int *col; /* nnz */
} kf_pattern;

typedef struct kf_mat {
    kf_storage kind;
    int n, kl, ku, ld;
    double *a;
    const kf_pattern *pat; /* KF_CSR only (borrowed) */
} kf_mat;

int kf_mat_alloc(kf_mat *m, kf_storage kind, int n, int kl, int ku, kf_error *err);
/* A zeroed CSR matrix on the pattern pat (borrowed). */
int kf_mat_alloc_csr(kf_mat *m, const kf_pattern *pat, kf_error *err);
void kf_pattern_free(kf_pattern *p);
/* Allocate dst with the storage and shape of src (zeroed; a CSR dst borrows
 * src's pattern). */
int kf_mat_alloc_like(kf_mat *dst, const kf_mat *src, kf_error *err);
void kf_mat_free(kf_mat *m);
/* Number of stored values of m (dense n ld, band ld n with the fill-in rows, CSR nnz). */
size_t kf_mat_nvalues(const kf_mat *m);
void kf_mat_zero(kf_mat *m);
/* Nonzero if x and y have the same storage and shape. */
int kf_mat_conform(const kf_mat *x, const kf_mat *y);
/* Nonzero if every entry of m (of the n values x) is finite. */
int kf_mat_finite(const kf_mat *m);
int kf_vec_finite(size_t n, const double *x);
double kf_mat_get(const kf_mat *m, int i, int j);
/* Add v to A(i,j); the entry must lie inside the band or the sparse pattern
 * (returns KF_EINVAL if not). */
int kf_mat_add(kf_mat *m, int i, int j, double v);
void kf_mat_copy(kf_mat *dst, const kf_mat *src);            /* conforming */
void kf_mat_axpy(kf_mat *y, double alpha, const kf_mat *x);  /* y += alpha x, conforming */
void kf_mat_scale(kf_mat *y, double alpha);
/* y = alpha A x + beta y */
void kf_mat_gemv(const kf_mat *A, double alpha, const double *x, double beta, double *y);
/* out = A as a dense row-major (C order) n x n array. */
void kf_mat_to_rowmajor(const kf_mat *A, double *out);
/* out = A as a dense column-major n x n array. */
void kf_mat_to_colmajor(const kf_mat *A, double *out);
/* dst(i,j) = src(map[i], map[j]) for i, j < dst->n; dst is allocated here with
 * the storage of src (deleting rows and columns keeps a band a band); not for
 * CSR (KF_EINVAL). */
int kf_mat_extract(kf_mat *dst, const kf_mat *src, int n, const int *map, kf_error *err);
/* LU factorization in place (dgetrf / dgbtrf), ipiv of length n; KF_EINVAL
 * for CSR (sparse matrices are factored outside the core, section 3.12). */
int kf_mat_lu(kf_mat *A, int *ipiv, kf_error *err);
/* Solve A X = B with the LU factors; B is n x nrhs column-major, ldb >= n. */
int kf_mat_lu_solve(const kf_mat *LU, const int *ipiv, int nrhs, double *b, int ldb,
                    kf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* KF_MATRIX_H */
