/*
 * kf_solver.c -- the linear solvers of kf_solver.h: LAPACK LU (dense, band),
 * the core's small dense LU, and solvers made of the caller's functions.
 */
#include "kf_internal.h"
#include "kf_solver.h"

#include <string.h>

struct kf_linsol {
    const kf_linsol_ops *ops;
    void *content;
    int n;
    int ready; /* setup has succeeded since the solver was made */
};

static int make(kf_linsol **out, int n, const kf_linsol_ops *ops, void *content, kf_error *err)
{
    kf_linsol *s = kf_calloc(1, sizeof *s);
    if (!s) {
        if (ops->free)
            ops->free(content);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a linear solver");
    }
    s->ops = ops;
    s->content = content;
    s->n = n;
    *out = s;
    return KF_OK;
}

/* ---------------------------------------------------------------- LU factors held here */

typedef struct lu_content {
    kf_mat LU;
    int *ipiv;
} lu_content;

static void lu_free(void *c)
{
    lu_content *lu = c;
    if (!lu)
        return;
    kf_mat_free(&lu->LU);
    free(lu->ipiv);
    free(lu);
}

static int lu_content_new(lu_content **out, const kf_mat *like, kf_error *err)
{
    lu_content *lu = kf_calloc(1, sizeof *lu);
    if (!lu)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a linear solver");
    int rc = kf_mat_alloc_like(&lu->LU, like, err);
    if (!rc && !(lu->ipiv = kf_calloc((size_t)like->n + 1, sizeof(int))))
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a linear solver (n = %d)", like->n);
    if (rc) {
        lu_free(lu);
        return rc;
    }
    *out = lu;
    return KF_OK;
}

static int lapack_setup(void *c, const kf_mat *A, kf_error *err)
{
    lu_content *lu = c;
    kf_mat_copy(&lu->LU, A);
    return kf_mat_lu(&lu->LU, lu->ipiv, err);
}

static int lapack_solve(void *c, int nrhs, double *b, int ldb, kf_error *err)
{
    lu_content *lu = c;
    return kf_mat_lu_solve(&lu->LU, lu->ipiv, nrhs, b, ldb, err);
}

static const kf_linsol_ops lapack_ops = {"LAPACK LU", lapack_setup, lapack_solve, lu_free};

int kf_linsol_lapack(kf_linsol **out, const kf_mat *like, kf_error *err)
{
    if (!out || !like)
        return kf_fail(err, KF_EINVAL, "out", "NULL argument");
    *out = NULL;
    if (like->kind == KF_CSR)
        return kf_fail(err, KF_EINVAL, "storage", "LAPACK factors dense and band matrices; a "
                       "sparse (CSR) matrix needs a sparse solver (kf_linsol_callback)");
    lu_content *lu;
    int rc = lu_content_new(&lu, like, err);
    return rc ? rc : make(out, like->n, &lapack_ops, lu, err);
}

static int small_status(int rc, int n, kf_error *err)
{
    if (rc == KF_ESING)
        return kf_fail(err, KF_ESING, "", "the matrix is singular (zero pivot in the LU of an "
                       "%d x %d system)", n, n);
    if (rc == KF_ERANGE)
        return kf_fail(err, KF_ERANGE, "", "the matrix or right-hand side has a non-finite "
                       "entry (values beyond the double range)");
    return rc;
}

static int small_setup(void *c, const kf_mat *A, kf_error *err)
{
    lu_content *lu = c;
    kf_mat_copy(&lu->LU, A);
    int rc = lu->LU.kind == KF_BAND ? kf_small_band_lu_factor(&lu->LU, lu->ipiv)
                                    : kf_small_lu_factor(lu->LU.n, lu->LU.a, lu->LU.ld, lu->ipiv);
    return small_status(rc, lu->LU.n, err);
}

static int small_solve(void *c, int nrhs, double *b, int ldb, kf_error *err)
{
    lu_content *lu = c;
    if (nrhs < 0 || ldb < lu->LU.n)
        return kf_fail(err, KF_EINVAL, "nrhs", "bad right-hand side shape (nrhs %d, ldb %d)",
                       nrhs, ldb);
    int rc = lu->LU.kind == KF_BAND
                 ? kf_small_band_lu_solve(&lu->LU, lu->ipiv, nrhs, b, ldb)
                 : kf_small_lu_solve(lu->LU.n, lu->LU.a, lu->LU.ld, lu->ipiv, nrhs, b, ldb);
    return small_status(rc, lu->LU.n, err);
}

static const kf_linsol_ops small_ops = {"small LU", small_setup, small_solve, lu_free};

int kf_linsol_small(kf_linsol **out, const kf_mat *like, kf_error *err)
{
    if (!out || !like)
        return kf_fail(err, KF_EINVAL, "out", "NULL argument");
    *out = NULL;
    if (like->kind == KF_CSR)
        return kf_fail(err, KF_EINVAL, "storage", "the small LU takes dense or band matrices, "
                       "not sparse (CSR) ones");
    lu_content *lu;
    int rc = lu_content_new(&lu, like, err);
    return rc ? rc : make(out, like->n, &small_ops, lu, err);
}

int kf_linsol_callback(kf_linsol **out, int n, const kf_linsol_ops *ops, void *content,
                       kf_error *err)
{
    if (!out || !ops || !ops->setup || !ops->solve)
        return kf_fail(err, KF_EINVAL, "ops", "a callback solver needs setup and solve");
    *out = NULL;
    if (n < 1)
        return kf_fail(err, KF_EINVAL, "n", "n = %d must be >= 1", n);
    return make(out, n, ops, content, err);
}

int kf_linsol_default(kf_linsol **out, const kf_mat *like, kf_error *err)
{
    return kf_linsol_lapack(out, like, err);
}

/* ---------------------------------------------------------------- the table */

int kf_linsol_setup(kf_linsol *s, const kf_mat *A, kf_error *err)
{
    if (!s || !A || A->n != s->n)
        return kf_fail(err, KF_EINVAL, "A", "the matrix does not fit the solver (n = %d, "
                       "solver n = %d)", A ? A->n : -1, s ? s->n : -1);
    s->ready = 0;
    int rc = s->ops->setup(s->content, A, err);
    s->ready = rc == KF_OK;
    return rc;
}

int kf_linsol_solve(kf_linsol *s, int nrhs, double *b, int ldb, kf_error *err)
{
    if (!s || !s->ready)
        return kf_fail(err, KF_EINVAL, "solver", "solve before a successful setup");
    return s->ops->solve(s->content, nrhs, b, ldb, err);
}

const char *kf_linsol_name(const kf_linsol *s) { return s ? s->ops->name : ""; }

void kf_linsol_free(kf_linsol *s)
{
    if (!s)
        return;
    if (s->ops->free)
        s->ops->free(s->content);
    free(s);
}
