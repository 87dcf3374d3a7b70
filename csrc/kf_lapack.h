/*
 * kf_lapack.h -- the LAPACK function table.
 * Part of the kanefem public C API; implementation: csrc/kf_lapack.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_LAPACK_H
#define KF_LAPACK_H

#include "kf_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- LAPACK */

/*
 * The core reaches LAPACK and BLAS only through this table.  The function
 * types are those of SciPy's scipy.linalg.cython_lapack / cython_blas
 * (Fortran argument lists: everything by pointer, column-major, no hidden
 * string lengths), so the table can be filled from SciPy's capsules.  When
 * the module is linked against a system LAPACK (KF_HAVE_LAPACK), the table
 * points to small wrappers that pass the hidden string-length arguments.
 * Only the LP64 (32-bit integer) interface is supported.
 */
typedef void kf_dpotrf_t(char *uplo, int *n, double *a, int *lda, int *info);
typedef void kf_dgetrf_t(int *m, int *n, double *a, int *lda, int *ipiv, int *info);
typedef void kf_dgetrs_t(char *trans, int *n, int *nrhs, double *a, int *lda, int *ipiv,
                         double *b, int *ldb, int *info);
typedef void kf_dgbtrf_t(int *m, int *n, int *kl, int *ku, double *ab, int *ldab, int *ipiv,
                         int *info);
typedef void kf_dgbtrs_t(char *trans, int *n, int *kl, int *ku, int *nrhs, double *ab,
                         int *ldab, int *ipiv, double *b, int *ldb, int *info);
typedef void kf_dsyevr_t(char *jobz, char *range, char *uplo, int *n, double *a, int *lda,
                         double *vl, double *vu, int *il, int *iu, double *abstol, int *m,
                         double *w, double *z, int *ldz, int *isuppz, double *work, int *lwork,
                         int *iwork, int *liwork, int *info);
typedef void kf_dgeev_t(char *jobvl, char *jobvr, int *n, double *a, int *lda, double *wr,
                        double *wi, double *vl, int *ldvl, double *vr, int *ldvr, double *work,
                        int *lwork, int *info);
typedef void kf_dgeqp3_t(int *m, int *n, double *a, int *lda, int *jpvt, double *tau,
                         double *work, int *lwork, int *info);
typedef void kf_dgeqrf_t(int *m, int *n, double *a, int *lda, double *tau, double *work,
                         int *lwork, int *info);
typedef void kf_dorgqr_t(int *m, int *n, int *k, double *a, int *lda, double *tau,
                         double *work, int *lwork, int *info);
typedef void kf_dtrsm_t(char *side, char *uplo, char *transa, char *diag, int *m, int *n,
                        double *alpha, double *a, int *lda, double *b, int *ldb);
typedef void kf_dgemm_t(char *transa, char *transb, int *m, int *n, int *k, double *alpha,
                        double *a, int *lda, double *b, int *ldb, double *beta, double *c,
                        int *ldc);
typedef void kf_dsyev_t(char *jobz, char *uplo, int *n, double *a, int *lda, double *w,
                        double *work, int *lwork, int *info);

typedef struct kf_lapack_table {
    kf_dpotrf_t *dpotrf;
    kf_dgetrf_t *dgetrf;
    kf_dgetrs_t *dgetrs;
    kf_dgbtrf_t *dgbtrf;
    kf_dgbtrs_t *dgbtrs;
    kf_dsyevr_t *dsyevr;
    kf_dgeev_t *dgeev;
    kf_dgeqp3_t *dgeqp3;
    kf_dgeqrf_t *dgeqrf;
    kf_dorgqr_t *dorgqr;
    kf_dtrsm_t *dtrsm;
    kf_dgemm_t *dgemm;
    kf_dsyev_t *dsyev; /* the QR algorithm: the fallback where dsyevr's MRRR fails */
} kf_lapack_table;

/* The names of the table's entries, in order, NULL-terminated (for filling
 * the table by name from another library). */
extern const char *const kf_lapack_names[];

/* Install a table (copied).  Every entry must be non-NULL.  Call before the
 * first computation, not while other threads compute. */
int kf_lapack_set(const kf_lapack_table *table, const char *source, kf_error *err);
/* Fill the table from the LAPACK this library was linked with.  Returns
 * KF_ENOLAPACK if it was built without one. */
int kf_lapack_use_linked(kf_error *err);
/* Where the current table came from ("linked", "scipy", ...), or NULL. */
const char *kf_lapack_source(void);
/* Nonzero if this library was linked against a LAPACK at build time. */
int kf_lapack_linked_available(void);

#ifdef __cplusplus
}
#endif
#endif /* KF_LAPACK_H */
