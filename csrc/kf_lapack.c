/*
 * kf_lapack.c -- the one place the core meets LAPACK and BLAS.
 *
 * The table holds functions with SciPy's cython_lapack signatures.  It is
 * filled either from a LAPACK linked at build time (KF_HAVE_LAPACK; the
 * wrappers below add Fortran's hidden string-length arguments) or, by the
 * Python binding, from SciPy's capsules.  Callers validate arguments before
 * they call through the table: reference LAPACK's xerbla prints and ends the
 * process, which would kill a Jupyter kernel without a word.
 */
#include "kf_internal.h"

#include <stdio.h>
#include <string.h>

const char *const kf_lapack_names[] = {"dpotrf", "dgetrf", "dgetrs", "dgbtrf", "dgbtrs",
                                       "dsyevr", "dgeev",  "dgeqp3", "dgeqrf", "dorgqr",
                                       "dtrsm",  "dgemm",  "dsyev",  NULL};

/* Set once, before use (see kanefem.h); read-only afterwards. */
static kf_lapack_table g_table;
static int g_installed = 0;
static char g_source[64];

int kf_lapack_set(const kf_lapack_table *t, const char *source, kf_error *err)
{
    if (!t)
        return kf_fail(err, KF_EINVAL, "table", "LAPACK table is NULL");
    void *const *entries = (void *const *)t;
    size_t count = sizeof(kf_lapack_table) / sizeof(void *);
    for (size_t i = 0; i < count; i++)
        if (!entries[i])
            return kf_fail(err, KF_EINVAL, "table", "LAPACK table entry '%s' is NULL",
                           kf_lapack_names[i]);
    g_table = *t;
    snprintf(g_source, sizeof g_source, "%s", source ? source : "user");
    g_installed = 1;
    return KF_OK;
}

const char *kf_lapack_source(void) { return g_installed ? g_source : NULL; }

const kf_lapack_table *kf_lapack_get(void) { return g_installed ? &g_table : NULL; }

int kf_lapack_require(kf_error *err)
{
    if (!g_installed)
        return kf_fail(err, KF_ENOLAPACK, "",
                       "no LAPACK is installed in the kanefem core (call kf_lapack_set or "
                       "kf_lapack_use_linked first)");
    return KF_OK;
}

int kf_lapack_info(kf_error *err, const char *routine, int info)
{
    if (info == 0)
        return KF_OK;
    if (info < 0)
        return kf_fail(err, KF_ELAPACK, "", "internal error: %s rejected argument %d", routine,
                       -info);
    return kf_fail(err, KF_ELAPACK, "", "%s failed (info = %d)", routine, info);
}

#ifdef KF_HAVE_LAPACK
/* Fortran symbols of the linked LAPACK/BLAS; the hidden lengths of CHARACTER
 * arguments come last, passed by value (gfortran >= 8 uses size_t). */
typedef size_t flen;
extern void dpotrf_(char *, int *, double *, int *, int *, flen);
extern void dgetrf_(int *, int *, double *, int *, int *, int *);
extern void dgetrs_(char *, int *, int *, double *, int *, int *, double *, int *, int *, flen);
extern void dgbtrf_(int *, int *, int *, int *, double *, int *, int *, int *);
extern void dgbtrs_(char *, int *, int *, int *, int *, double *, int *, int *, double *, int *,
                    int *, flen);
extern void dsyevr_(char *, char *, char *, int *, double *, int *, double *, double *, int *,
                    int *, double *, int *, double *, double *, int *, int *, double *, int *,
                    int *, int *, int *, flen, flen, flen);
extern void dgeev_(char *, char *, int *, double *, int *, double *, double *, double *, int *,
                   double *, int *, double *, int *, int *, flen, flen);
extern void dgeqp3_(int *, int *, double *, int *, int *, double *, double *, int *, int *);
extern void dgeqrf_(int *, int *, double *, int *, double *, double *, int *, int *);
extern void dorgqr_(int *, int *, int *, double *, int *, double *, double *, int *, int *);
extern void dtrsm_(char *, char *, char *, char *, int *, int *, double *, double *, int *,
                   double *, int *, flen, flen, flen, flen);
extern void dgemm_(char *, char *, int *, int *, int *, double *, double *, int *, double *,
                   int *, double *, double *, int *, flen, flen);

static void w_dpotrf(char *uplo, int *n, double *a, int *lda, int *info)
{
    dpotrf_(uplo, n, a, lda, info, 1);
}
static void w_dgetrs(char *tr, int *n, int *nrhs, double *a, int *lda, int *ipiv, double *b,
                     int *ldb, int *info)
{
    dgetrs_(tr, n, nrhs, a, lda, ipiv, b, ldb, info, 1);
}
static void w_dgbtrs(char *tr, int *n, int *kl, int *ku, int *nrhs, double *ab, int *ldab,
                     int *ipiv, double *b, int *ldb, int *info)
{
    dgbtrs_(tr, n, kl, ku, nrhs, ab, ldab, ipiv, b, ldb, info, 1);
}
static void w_dsyevr(char *jobz, char *range, char *uplo, int *n, double *a, int *lda,
                     double *vl, double *vu, int *il, int *iu, double *abstol, int *m, double *w,
                     double *z, int *ldz, int *isuppz, double *work, int *lwork, int *iwork,
                     int *liwork, int *info)
{
    dsyevr_(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work,
            lwork, iwork, liwork, info, 1, 1, 1);
}
extern void dsyev_(char *, char *, int *, double *, int *, double *, double *, int *, int *,
                   flen, flen);
static void w_dsyev(char *jobz, char *uplo, int *n, double *a, int *lda, double *w, double *work,
                    int *lwork, int *info)
{
    dsyev_(jobz, uplo, n, a, lda, w, work, lwork, info, 1, 1);
}
static void w_dgeev(char *jl, char *jr, int *n, double *a, int *lda, double *wr, double *wi,
                    double *vl, int *ldvl, double *vr, int *ldvr, double *work, int *lwork,
                    int *info)
{
    dgeev_(jl, jr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, work, lwork, info, 1, 1);
}
static void w_dtrsm(char *side, char *uplo, char *ta, char *diag, int *m, int *n, double *alpha,
                    double *a, int *lda, double *b, int *ldb)
{
    dtrsm_(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb, 1, 1, 1, 1);
}
static void w_dgemm(char *ta, char *tb, int *m, int *n, int *k, double *alpha, double *a,
                    int *lda, double *b, int *ldb, double *beta, double *c, int *ldc)
{
    dgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}

int kf_lapack_linked_available(void) { return 1; }

int kf_lapack_use_linked(kf_error *err)
{
    kf_lapack_table t = {
        .dpotrf = w_dpotrf, .dgetrf = dgetrf_, .dgetrs = w_dgetrs, .dgbtrf = dgbtrf_,
        .dgbtrs = w_dgbtrs, .dsyevr = w_dsyevr, .dgeev = w_dgeev,  .dgeqp3 = dgeqp3_,
        .dgeqrf = dgeqrf_,  .dorgqr = dorgqr_,  .dtrsm = w_dtrsm,  .dgemm = w_dgemm,
        .dsyev = w_dsyev,
    };
    return kf_lapack_set(&t, "linked", err);
}
#else
int kf_lapack_linked_available(void) { return 0; }

int kf_lapack_use_linked(kf_error *err)
{
    return kf_fail(err, KF_ENOLAPACK, "",
                   "this kanefem core was built without a linked LAPACK");
}
#endif

/* ---------------------------------------------------------------- checked calls */

/*
 * Every call into LAPACK goes through one of these.  They check what
 * LAPACK's xerbla would reject (so it is never called) and turn info into a
 * status.  Workspaces are the caller's: the *_lwork functions say how much.
 */
#define LA_TABLE(err)                                                                          \
    const kf_lapack_table *T = kf_lapack_get();                                                \
    if (!T)                                                                                    \
        return kf_lapack_require(err);

static int bad_dims(kf_error *err, const char *routine, const char *what, int v, int min)
{
    return kf_fail(err, KF_EINVAL, "", "internal error: %s called with %s = %d (< %d)", routine,
                   what, v, min);
}

/* A non-finite entry makes some LAPACK routines call xerbla (dgeev scales
 * by its norm) and others return garbage: refuse it before the call.  Rows
 * r0..r0+m-1 of columns 0..n-1 of a column-major array. */
static int finite_input(const char *routine, int r0, int m, int n, const double *a, int lda,
                        kf_error *err)
{
    for (int j = 0; j < n; j++)
        for (int i = r0; i < r0 + m; i++)
            if (!isfinite(a[i + (size_t)j * lda]))
                return kf_fail(err, KF_ERANGE, "", "%s: the matrix has a non-finite entry (%g "
                               "at stored row %d, column %d)", routine, a[i + (size_t)j * lda],
                               i, j);
    return KF_OK;
}
#define CHECK_FINITE(routine, r0, m, n, a, lda)                                                \
    if (finite_input(routine, r0, m, n, a, lda, err))                                           \
        return KF_ERANGE;

#define MAX1(x) ((x) > 1 ? (x) : 1)
#define CHECK_DIM(routine, name, v, min)                                                       \
    if ((v) < (min))                                                                           \
        return bad_dims(err, routine, name, v, min);

int kf_la_potrf(int n, double *a, int lda, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dpotrf", "n", n, 0);
    CHECK_DIM("dpotrf", "lda", lda, MAX1(n));
    if (n == 0)
        return KF_OK;
    CHECK_FINITE("dpotrf", 0, n, n, a, lda);
    char uplo = 'L';
    int info = 0;
    T->dpotrf(&uplo, &n, a, &lda, &info);
    if (info > 0)
        return kf_fail(err, KF_ENOTPD, "",
                       "matrix is not positive definite (leading minor %d of %d)", info, n);
    return kf_lapack_info(err, "dpotrf", info);
}

int kf_la_getrf(int n, double *a, int lda, int *ipiv, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgetrf", "n", n, 0);
    CHECK_DIM("dgetrf", "lda", lda, MAX1(n));
    if (n == 0)
        return KF_OK;
    CHECK_FINITE("dgetrf", 0, n, n, a, lda);
    int info = 0;
    T->dgetrf(&n, &n, a, &lda, ipiv, &info);
    if (info > 0)
        return kf_fail(err, KF_ESING, "", "matrix is singular (zero pivot %d of %d in LU)",
                       info, n);
    return kf_lapack_info(err, "dgetrf", info);
}

int kf_la_getrs(int n, int nrhs, const double *a, int lda, const int *ipiv, double *b, int ldb,
                kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgetrs", "n", n, 0);
    CHECK_DIM("dgetrs", "nrhs", nrhs, 0);
    CHECK_DIM("dgetrs", "lda", lda, MAX1(n));
    CHECK_DIM("dgetrs", "ldb", ldb, MAX1(n));
    if (n == 0 || nrhs == 0)
        return KF_OK;
    char tr = 'N';
    int info = 0;
    T->dgetrs(&tr, &n, &nrhs, (double *)a, &lda, (int *)ipiv, b, &ldb, &info);
    return kf_lapack_info(err, "dgetrs", info);
}

int kf_la_gbtrf(int n, int kl, int ku, double *ab, int ldab, int *ipiv, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgbtrf", "n", n, 0);
    CHECK_DIM("dgbtrf", "kl", kl, 0);
    CHECK_DIM("dgbtrf", "ku", ku, 0);
    CHECK_DIM("dgbtrf", "ldab", ldab, 2 * kl + ku + 1);
    if (n == 0)
        return KF_OK;
    CHECK_FINITE("dgbtrf", kl, kl + ku + 1, n, ab, ldab); /* the matrix rows, not the fill */
    int info = 0;
    T->dgbtrf(&n, &n, &kl, &ku, ab, &ldab, ipiv, &info);
    if (info > 0)
        return kf_fail(err, KF_ESING, "", "matrix is singular (zero pivot %d of %d in band LU)",
                       info, n);
    return kf_lapack_info(err, "dgbtrf", info);
}

int kf_la_gbtrs(int n, int kl, int ku, int nrhs, const double *ab, int ldab, const int *ipiv,
                double *b, int ldb, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgbtrs", "n", n, 0);
    CHECK_DIM("dgbtrs", "kl", kl, 0);
    CHECK_DIM("dgbtrs", "ku", ku, 0);
    CHECK_DIM("dgbtrs", "nrhs", nrhs, 0);
    CHECK_DIM("dgbtrs", "ldab", ldab, 2 * kl + ku + 1);
    CHECK_DIM("dgbtrs", "ldb", ldb, MAX1(n));
    if (n == 0 || nrhs == 0)
        return KF_OK;
    char tr = 'N';
    int info = 0;
    T->dgbtrs(&tr, &n, &kl, &ku, &nrhs, (double *)ab, &ldab, (int *)ipiv, b, &ldb, &info);
    return kf_lapack_info(err, "dgbtrs", info);
}

int kf_la_trsm(char side, char trans, int m, int n, const double *a, int lda, double *b,
               int ldb, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dtrsm", "m", m, 0);
    CHECK_DIM("dtrsm", "n", n, 0);
    CHECK_DIM("dtrsm", "lda", lda, MAX1(side == 'L' ? m : n));
    CHECK_DIM("dtrsm", "ldb", ldb, MAX1(m));
    if (m == 0 || n == 0)
        return KF_OK;
    char uplo = 'L', diag = 'N';
    double one = 1.0;
    T->dtrsm(&side, &uplo, &trans, &diag, &m, &n, &one, (double *)a, &lda, b, &ldb);
    return KF_OK;
}

int kf_la_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *a, int lda,
               const double *b, int ldb, double beta, double *c, int ldc, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgemm", "m", m, 0);
    CHECK_DIM("dgemm", "n", n, 0);
    CHECK_DIM("dgemm", "k", k, 0);
    CHECK_DIM("dgemm", "lda", lda, MAX1(ta == 'N' ? m : k));
    CHECK_DIM("dgemm", "ldb", ldb, MAX1(tb == 'N' ? k : n));
    CHECK_DIM("dgemm", "ldc", ldc, MAX1(m));
    if (m == 0 || n == 0)
        return KF_OK;
    T->dgemm(&ta, &tb, &m, &n, &k, &alpha, (double *)a, &lda, (double *)b, &ldb, &beta, c,
             &ldc);
    return KF_OK;
}

int kf_la_syevr_lwork(int n, int *lwork, int *liwork)
{
    /* LAPACK's documented minimum is 26n and 10n; the query is not needed for
     * these sizes, and using the bound keeps workspaces fixed per n. */
    *lwork = 26 * MAX1(n) + 64 * MAX1(n);
    *liwork = 10 * MAX1(n);
    return KF_OK;
}

int kf_la_syevr(int n, double *a, int lda, int il, int iu, double *w, double *z, int ldz,
                int *isuppz, double *work, int lwork, int *iwork, int liwork, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dsyevr", "n", n, 0);
    CHECK_DIM("dsyevr", "lda", lda, MAX1(n));
    if (n == 0)
        return KF_OK;
    CHECK_DIM("dsyevr", "il", il, 1);
    CHECK_DIM("dsyevr", "iu", iu, il);
    CHECK_DIM("dsyevr", "n - iu", n - iu, 0);
    CHECK_DIM("dsyevr", "ldz", ldz, z ? n : 1);
    CHECK_DIM("dsyevr", "lwork", lwork, 26 * n);
    CHECK_DIM("dsyevr", "liwork", liwork, 10 * n);
    CHECK_FINITE("dsyevr", 0, n, n, a, lda);
    char jobz = z ? 'V' : 'N', range = (il == 1 && iu == n) ? 'A' : 'I', uplo = 'L';
    double vl = 0.0, vu = 0.0, abstol = 0.0;
    int m = 0, info = 0;
    double zdummy = 0.0;
    /* dsyevr's MRRR can fail (info > 0) on some matrices in some LAPACKs (seen with
     * OpenBLAS on clustered eigenvalues near zero); keep the lower triangle so the
     * QR algorithm (dsyev) can take over.  O(n^2) memory beside an O(n^3) solve. */
    double *keep = malloc((size_t)n * n * sizeof(double));
    for (int j = 0; keep && j < n; j++)
        memcpy(keep + (size_t)j * n + j, a + (size_t)j * lda + j, (size_t)(n - j) * sizeof(double));
    T->dsyevr(&jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu, &abstol, &m, w,
              z ? z : &zdummy, &ldz, isuppz, work, &lwork, iwork, &liwork, &info);
    if (info > 0 && keep) {
        for (int j = 0; j < n; j++)
            memcpy(a + (size_t)j * lda + j, keep + (size_t)j * n + j,
                   (size_t)(n - j) * sizeof(double));
        /* all eigenvalues ascending into work[0..n), vectors in a; lwork >= 26 n > 3 n */
        char jv = z ? 'V' : 'N';
        int lw = lwork - n;
        info = 0;
        T->dsyev(&jv, &uplo, &n, a, &lda, work, work + n, &lw, &info);
        if (info == 0) {
            for (int k = il - 1; k < iu; k++) {
                w[k - il + 1] = work[k];
                if (z)
                    memcpy(z + (size_t)(k - il + 1) * ldz, a + (size_t)k * lda,
                           (size_t)n * sizeof(double));
            }
        }
        free(keep);
        if (info > 0)
            return kf_fail(err, KF_ENOCONV, "", "dsyevr and dsyev did not converge (info = %d)",
                           info);
        return kf_lapack_info(err, "dsyev", info);
    }
    free(keep);
    if (info > 0)
        return kf_fail(err, KF_ENOCONV, "", "dsyevr did not converge (info = %d)", info);
    return kf_lapack_info(err, "dsyevr", info);
}

int kf_la_geev_lwork(int n, int *lwork, kf_error *err)
{
    LA_TABLE(err);
    if (n <= 0) {
        *lwork = 1;
        return KF_OK;
    }
    char jl = 'N', jr = 'V';
    int lda = n, ldvl = 1, ldvr = n, lw = -1, info = 0;
    double q = 0.0, dummy = 0.0;
    T->dgeev(&jl, &jr, &n, &dummy, &lda, &dummy, &dummy, &dummy, &ldvl, &dummy, &ldvr, &q, &lw,
             &info);
    int need = (int)q;
    *lwork = need > 4 * n ? need : 4 * n;
    return kf_lapack_info(err, "dgeev (workspace query)", info);
}

int kf_la_geev(int n, double *a, int lda, double *wr, double *wi, double *vr, int ldvr,
               double *work, int lwork, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgeev", "n", n, 0);
    CHECK_DIM("dgeev", "lda", lda, MAX1(n));
    if (n == 0)
        return KF_OK;
    CHECK_DIM("dgeev", "ldvr", ldvr, vr ? n : 1);
    CHECK_DIM("dgeev", "lwork", lwork, vr ? 4 * n : 3 * n);
    CHECK_FINITE("dgeev", 0, n, n, a, lda);
    char jl = 'N', jr = vr ? 'V' : 'N';
    int ldvl = 1, info = 0;
    double dummy = 0.0;
    T->dgeev(&jl, &jr, &n, a, &lda, wr, wi, &dummy, &ldvl, vr ? vr : &dummy, &ldvr, work,
             &lwork, &info);
    if (info > 0)
        return kf_fail(err, KF_ENOCONV, "", "dgeev did not converge (info = %d)", info);
    return kf_lapack_info(err, "dgeev", info);
}

int kf_la_orth_lwork(int m, int n, int *lwork, kf_error *err)
{
    LA_TABLE(err);
    if (m <= 0 || n <= 0) {
        *lwork = 1;
        return KF_OK;
    }
    int lda = m, lw = -1, info = 0, k = n;
    double q1 = 0.0, q2 = 0.0, dummy = 0.0;
    T->dgeqrf(&m, &n, &dummy, &lda, &dummy, &q1, &lw, &info);
    if (info)
        return kf_lapack_info(err, "dgeqrf (workspace query)", info);
    T->dorgqr(&m, &n, &k, &dummy, &lda, &dummy, &q2, &lw, &info);
    int need = (int)(q1 > q2 ? q1 : q2);
    *lwork = need > n ? need : n;
    return kf_lapack_info(err, "dorgqr (workspace query)", info);
}

int kf_la_orth(int m, int n, double *a, int lda, double *tau, double *work, int lwork,
               kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgeqrf", "m", m, 0);
    CHECK_DIM("dgeqrf", "n", n, 0);
    CHECK_DIM("dgeqrf", "m - n", m - n, 0);
    CHECK_DIM("dgeqrf", "lda", lda, MAX1(m));
    CHECK_DIM("dgeqrf", "lwork", lwork, MAX1(n));
    if (n == 0)
        return KF_OK;
    CHECK_FINITE("dgeqrf", 0, m, n, a, lda);
    int info = 0, k = n;
    T->dgeqrf(&m, &n, a, &lda, tau, work, &lwork, &info);
    if (info)
        return kf_lapack_info(err, "dgeqrf", info);
    return kf_la_orgqr(m, n, k, a, lda, tau, work, lwork, err);
}

/* ---------------------------------------------------------------- QR with column pivoting
 *
 * For the null-space basis of constraint matrices (kf_direct.c): dgeqp3 factors
 * A P = Q R with |R_11| >= |R_22| >= ..., so the numerical rank can be read
 * off R's diagonal; dorgqr forms Q from the reflectors.
 */

int kf_la_geqp3_lwork(int m, int n, int *lwork, kf_error *err)
{
    LA_TABLE(err);
    if (m <= 0 || n <= 0) {
        *lwork = 1;
        return KF_OK;
    }
    int lda = m, lw = -1, info = 0, ipiv = 0;
    double q = 0.0, dummy = 0.0;
    T->dgeqp3(&m, &n, &dummy, &lda, &ipiv, &dummy, &q, &lw, &info);
    int need = (int)q;
    *lwork = need > 3 * n + 1 ? need : 3 * n + 1;
    return kf_lapack_info(err, "dgeqp3 (workspace query)", info);
}

int kf_la_geqp3(int m, int n, double *a, int lda, int *jpvt, double *tau, double *work,
                int lwork, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dgeqp3", "m", m, 0);
    CHECK_DIM("dgeqp3", "n", n, 0);
    CHECK_DIM("dgeqp3", "lda", lda, MAX1(m));
    CHECK_DIM("dgeqp3", "lwork", lwork, 3 * n + 1);
    if (m == 0 || n == 0)
        return KF_OK;
    CHECK_FINITE("dgeqp3", 0, m, n, a, lda);
    int info = 0;
    T->dgeqp3(&m, &n, a, &lda, jpvt, tau, work, &lwork, &info);
    return kf_lapack_info(err, "dgeqp3", info);
}

int kf_la_orgqr_lwork(int m, int n, int k, int *lwork, kf_error *err)
{
    LA_TABLE(err);
    if (m <= 0 || n <= 0) {
        *lwork = 1;
        return KF_OK;
    }
    int lda = m, lw = -1, info = 0;
    double q = 0.0, dummy = 0.0;
    T->dorgqr(&m, &n, &k, &dummy, &lda, &dummy, &q, &lw, &info);
    int need = (int)q;
    *lwork = need > n ? need : n;
    return kf_lapack_info(err, "dorgqr (workspace query)", info);
}

int kf_la_orgqr(int m, int n, int k, double *a, int lda, const double *tau, double *work,
                int lwork, kf_error *err)
{
    LA_TABLE(err);
    CHECK_DIM("dorgqr", "n", n, 0);
    CHECK_DIM("dorgqr", "m - n", m - n, 0);
    CHECK_DIM("dorgqr", "k", k, 0);
    CHECK_DIM("dorgqr", "n - k", n - k, 0);
    CHECK_DIM("dorgqr", "lda", lda, MAX1(m));
    CHECK_DIM("dorgqr", "lwork", lwork, MAX1(n));
    if (n == 0)
        return KF_OK;
    int info = 0;
    T->dorgqr(&m, &n, &k, a, &lda, (double *)tau, work, &lwork, &info);
    return kf_lapack_info(err, "dorgqr", info);
}
