/*
 * kf_eigcont.c -- certified continuation of the lowest eigenpairs of a sparse symmetric
 * pencil over a time grid (issue 19; docs/theory.md section 3.17; API in kf_eig.h).
 *
 *   (K + D(t)) u = lambda M u,   D(t) = sum_q c_q(t) T_q.
 *
 * A line body's free-DOF matrices (a band, held as CSR) with the motion terms D (the
 * centrifugal sum (W W)_ij S_ij and K_G's basis): the loop that sparse.eigen_solve ran in
 * Python around the core's kernels, here with no allocation and no Python between
 * instants.  Per instant, from the previous instant's basis X (n x p):
 *
 *   1. Rayleigh-Ritz on X with products in the working precision (K X + D X, M X), the
 *      small pencil solved through the eigen-decomposition of X^T M X (directions below
 *      1e-12 of the largest dropped);
 *   2. for the ms lowest Ritz vectors U: A U = Dot2(K, U) + D U (kf_dot2_rows: K's entries
 *      reach 1e9-1e13 lambda_1 on a long beam, and K + D is never rounded into one
 *      matrix), their certificates as they are (while that served), and one step of
 *      inverse iteration in double-double, U - F^-1 (A U - M U theta), each column deflated
 *      against the lower ones (sparse.py's _eigcert.inverse_refine and _deflate, the same
 *      operations in the same order), with its own certificate; per column the smaller;
 *   3. the certificate: eps_k = ||A u - theta M u||_{M^-1} / ||u||_M with every rounding
 *      bounded and added (Bauer-Fike for a definite pencil: an eigenvalue within eps_k +
 *      delta_k, delta_k the quotient's rounding); completeness from the caller's lower
 *      bound L of the (ms+1)-th eigenvalue: when the intervals are disjoint and all below
 *      L they hold lambda_1..lambda_ms, one each, and Kato-Temple sharpens each to
 *      eps^2 / gap with the gaps to the neighbouring intervals (to L for the top one).
 *      Intervals that overlap (a double eigenvalue) form a cluster whose c members match
 *      c eigenvalues within rho = ||R||_F / sqrt(1 - g) + ||E|| + g (theta + ||E||) /
 *      (1 - g) (Kahan's theorem for the M-orthonormalized members, g = ||G - I|| their
 *      Gram matrix's departure, Weyl and Ostrowski for the Ritz values; theory 3.17);
 *   4. accepted when every wanted bound is below tol (|theta| + scale[t]); else the
 *      corrections F^-1 R expand the basis (a Davidson step) and 1-3 repeat; after
 *      KF_CONT_REFACTOR rounds F is refactored at this instant (band Cholesky of
 *      K + D(t) - sigma M, sigma below the lowest Ritz value), and after KF_CONT_MAXIT
 *      the run stops there for the caller's full solve.
 */
#include "kf_internal.h"

#include <float.h>
#include <string.h>

/* the error-free transformations (kf_two_product, kf_two_sum) stay as written */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define KF_CONT_MAXIT 6
#define KF_CONT_REFACTOR 2
#define KF_CONT_DROP 1e-12 /* Gram eigenvalues dropped, relative to the largest */

/* The kernels below work on row-major blocks of k columns, a chunk of at most KF_CHUNK
 * columns at a time: KF_CHUNKS(k, F) runs F(j0, w) for each chunk, with the chunk's width
 * w a constant for the widths the continuation meets (1 to 8, 10, 12, 16), so that the
 * loops over a row's columns unroll and keep their sums in registers (a loop of unknown
 * length spent three times the instructions on a 4-column product). */
#define KF_CHUNK 16
#define KF_CHUNKS(k, F)                                                                        \
    for (int j0 = 0; j0 < (k); j0 += KF_CHUNK) {                                               \
        const int w_ = (k) - j0 < KF_CHUNK ? (k) - j0 : KF_CHUNK;                              \
        switch (w_) {                                                                          \
        case 1: F(j0, 1); break;                                                               \
        case 2: F(j0, 2); break;                                                               \
        case 3: F(j0, 3); break;                                                               \
        case 4: F(j0, 4); break;                                                               \
        case 5: F(j0, 5); break;                                                               \
        case 6: F(j0, 6); break;                                                               \
        case 7: F(j0, 7); break;                                                               \
        case 8: F(j0, 8); break;                                                               \
        case 10: F(j0, 10); break;                                                             \
        case 12: F(j0, 12); break;                                                             \
        case 16: F(j0, 16); break;                                                             \
        default: F(j0, w_); break;                                                             \
        }                                                                                      \
    }

/* A band Cholesky factor (kf_band_cholesky's layout) with its exact zeros dropped: L by
 * rows (the forward solve) and by columns (the backward one) and the pivots' reciprocals.
 * A straight Beam3D's axial, torsion and two bending chains do not fill into each other:
 * 2.3 of its 11 band entries a row are not zero.  The solves add the same terms in the same
 * order as kf_band_forward / kf_band_backward (a zero term changes no sum): the same
 * numbers. */
typedef struct sfac {
    size_t cap;         /* entries room */
    int *rp, *ri, *cp, *ci;
    double *rv, *cv, *inv;
} sfac;

static void sfac_free(sfac *f)
{
    free(f->rp);
    free(f->ri);
    free(f->cp);
    free(f->ci);
    free(f->rv);
    free(f->cv);
    free(f->inv);
    memset(f, 0, sizeof *f);
}

static int sfac_alloc(sfac *f, int n, size_t cap)
{
    sfac_free(f);
    f->cap = cap;
    f->rp = malloc(((size_t)n + 1) * sizeof(int));
    f->cp = malloc(((size_t)n + 1) * sizeof(int));
    f->ri = malloc((cap + 1) * sizeof(int));
    f->ci = malloc((cap + 1) * sizeof(int));
    f->rv = malloc((cap + 1) * sizeof(double));
    f->cv = malloc((cap + 1) * sizeof(double));
    f->inv = malloc(((size_t)n + 1) * sizeof(double));
    return f->rp && f->cp && f->ri && f->ci && f->rv && f->cv && f->inv ? KF_OK : KF_ENOMEM;
}

/* From the band ab (order n, half-bandwidth b, b n <= f->cap). */
static void sfac_from_band(sfac *f, int n, int b, const double *ab)
{
    const size_t ld = (size_t)b + 1;
    int m = 0;
    f->rp[0] = 0;
    for (int i = 0; i < n; i++) { /* row i: L(i, j), j ascending */
        for (int d = i < b ? i : b; d >= 1; d--) {
            const double l = ab[(size_t)d + (size_t)(i - d) * ld];
            if (l != 0.0) {
                f->ri[m] = i - d;
                f->rv[m++] = l;
            }
        }
        f->rp[i + 1] = m;
        f->inv[i] = 1.0 / ab[(size_t)i * ld];
    }
    m = 0;
    f->cp[0] = 0;
    for (int j = 0; j < n; j++) { /* column j: L(i, j), i descending */
        for (int d = n - 1 - j < b ? n - 1 - j : b; d >= 1; d--) {
            const double l = ab[(size_t)d + (size_t)j * ld];
            if (l != 0.0) {
                f->ci[m] = j + d;
                f->cv[m++] = l;
            }
        }
        f->cp[j + 1] = m;
    }
}

/* B <- L^-1 B on columns j0 .. j0 + w - 1 of B (n x k, row-major). */
static inline void sfac_forward_w(const sfac *f, int n, int k, int j0, const int w,
                                  double *restrict B)
{
    for (int i = 0; i < n; i++) {
        double acc[KF_CHUNK], *restrict xi = B + (size_t)i * k + j0;
        for (int c = 0; c < w; c++)
            acc[c] = xi[c];
        for (int q = f->rp[i]; q < f->rp[i + 1]; q++) {
            const double l = f->rv[q], *restrict xj = B + (size_t)f->ri[q] * k + j0;
            for (int c = 0; c < w; c++)
                acc[c] -= l * xj[c];
        }
        const double inv = f->inv[i];
        for (int c = 0; c < w; c++)
            xi[c] = acc[c] * inv;
    }
}

/* B <- L^-T B on columns j0 .. j0 + w - 1. */
static inline void sfac_backward_w(const sfac *f, int n, int k, int j0, const int w,
                                   double *restrict B)
{
    for (int j = n - 1; j >= 0; j--) {
        double acc[KF_CHUNK], *restrict xj = B + (size_t)j * k + j0;
        for (int c = 0; c < w; c++)
            acc[c] = xj[c];
        for (int q = f->cp[j]; q < f->cp[j + 1]; q++) {
            const double l = f->cv[q], *restrict xi = B + (size_t)f->ci[q] * k + j0;
            for (int c = 0; c < w; c++)
                acc[c] -= l * xi[c];
        }
        const double inv = f->inv[j];
        for (int c = 0; c < w; c++)
            xj[c] = acc[c] * inv;
    }
}

static void sfac_forward(const sfac *f, int n, int k, double *B)
{
#define KF_CALL(J0, W) sfac_forward_w(f, n, k, J0, W, B)
    KF_CHUNKS(k, KF_CALL)
#undef KF_CALL
}

static void sfac_backward(const sfac *f, int n, int k, double *B)
{
#define KF_CALL(J0, W) sfac_backward_w(f, n, k, J0, W, B)
    KF_CHUNKS(k, KF_CALL)
#undef KF_CALL
}

struct kf_eigcont {
    int n, p, ms, q, nterm;
    int *kp, *ki;
    double *kv;
    int nstiff;    /* the last nstiff terms are stiff (compress_terms) */
    int *sp, *si;  /* the stiff part's pattern: K's and the stiff terms' */
    double *ks, *ahi, *alo, *aab; /* K on it; K + sum_stiff c_q T_q = ahi + alo; a bound */
    int *lpos;     /* where each stiff entry's low part goes in the plain part */
    int *mp, *mi;
    double *mv;
    int *dp, *di; /* D(t)'s pattern: the terms' nonzeros */
    double *dv, *dab; /* fl(sum c_q T_q), and sum |c_q| |T_q| */
    int *tp, *tpos; /* term q: positions tpos[tp[q] .. tp[q + 1] - 1] of D's values */
    double *tval;
    int lk, lm, ld; /* the most entries in a row of K, M, D */
    int bw;         /* half-bandwidth of K, M and D together */
    int bm;
    sfac mf, f;  /* M's factor, the shift-invert factor in use */
    double *fs;  /* a refactorization's band: n (bw + 1) */
    double *X;
    int have_basis, have_factor, have_prev;
    double *cprev, *thp, *bdp, *up; /* the last instant: coefficients, results */
    /* workspace: n x k row-major blocks */
    double *V, *AV, *MV, *U;
    double *Uh, *Ul, *A1, *E1, *M1, *N1; /* the refined set and its products, bounds */
    double *U0, *A0, *E0, *M0, *N0;      /* the given set */
    double *RB, *Cc, *W, *scr;
    /* small */
    double *H, *G, *Z, *T, *Y, *sv, *work;
    int *iwork, *isuppz;
    int lwork, liwork;
    double *th[2], *eps[2], *del[2], *bd[2], *den[2];
    int *cl;   /* cluster of each pair */
    int *pick; /* per pair, the set whose certificate is kept */
};

static void eigcont_free_ws(kf_eigcont *c)
{
    sfac_free(&c->mf);
    sfac_free(&c->f);
    double *d[] = {c->kv, c->ks, c->ahi, c->alo, c->aab, c->mv, c->dv, c->dab, c->tval, c->fs, c->X, c->cprev, c->thp,
                   c->bdp, c->up, c->V, c->AV, c->MV, c->U, c->Uh, c->Ul, c->A1, c->E1, c->M1,
                   c->N1, c->U0, c->A0, c->E0, c->M0, c->N0, c->RB, c->Cc, c->W, c->scr, c->H,
                   c->G, c->Z, c->T, c->Y, c->sv, c->work};
    int *i[] = {c->kp, c->ki, c->sp, c->si, c->lpos, c->mp, c->mi, c->dp, c->di, c->tp, c->tpos, c->iwork, c->isuppz,
                c->cl, c->pick};
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
        free(d[k]);
    for (size_t k = 0; k < sizeof i / sizeof i[0]; k++)
        free(i[k]);
    for (int s = 0; s < 2; s++) {
        free(c->th[s]);
        free(c->eps[s]);
        free(c->del[s]);
        free(c->bd[s]);
        free(c->den[s]);
    }
}

void kf_eigcont_free(kf_eigcont *c)
{
    if (!c)
        return;
    eigcont_free_ws(c);
    free(c);
}

void kf_eigcont_shape(const kf_eigcont *c, int *n, int *p, int *ms, int *nterm)
{
    *n = c->n;
    *p = c->p;
    *ms = c->ms;
    *nterm = c->nterm;
}

/* KF_EINVAL naming the matrix unless A is an n x n CSR matrix with finite values (n = 0:
 * any order; values may be NULL when A is only a pattern). */
static int check_csr(const kf_csr *A, int n, const char *name, int pattern, kf_error *err)
{
    if (!A || !A->indptr || (n > 0 && A->n != n) || A->n < 1)
        return kf_fail(err, KF_EINVAL, name, "%s must be a CSR matrix of order %d", name, n);
    n = A->n;
    if (A->indptr[0] != 0)
        return kf_fail(err, KF_EINVAL, name, "%s: indptr[0] = %d must be 0", name, A->indptr[0]);
    for (int i = 0; i < n; i++)
        if (A->indptr[i + 1] < A->indptr[i])
            return kf_fail(err, KF_EINVAL, name, "%s: indptr[%d] = %d < indptr[%d] = %d", name,
                           i + 1, A->indptr[i + 1], i, A->indptr[i]);
    if (A->indptr[n] > 0 && (!A->indices || (!A->values && !pattern)))
        return kf_fail(err, KF_EINVAL, name, "%s: NULL indices or values", name);
    for (int i = 0; i < n; i++)
        for (int q = A->indptr[i]; q < A->indptr[i + 1]; q++) {
            if (A->indices[q] < 0 || A->indices[q] >= n)
                return kf_fail(err, KF_EINVAL, name, "%s: indices[%d] = %d is out of 0..%d", name,
                               q, A->indices[q], n - 1);
            if (A->values && !isfinite(A->values[q]))
                return kf_fail(err, KF_EINVAL, name, "%s: value %d (row %d, column %d) = %g is "
                               "not finite", name, q, i, A->indices[q], A->values[q]);
        }
    return KF_OK;
}

/* Copy a checked CSR matrix; *rows: its longest row; bw raised to its half-bandwidth. */
static int copy_csr(const kf_csr *A, int **ptr, int **ind, double **val, int *rows, int *bw)
{
    int n = A->n, nnz = A->indptr[n];
    *ptr = malloc(((size_t)n + 1) * sizeof(int));
    *ind = malloc(((size_t)nnz + 1) * sizeof(int));
    *val = malloc(((size_t)nnz + 1) * sizeof(double));
    if (!*ptr || !*ind || !*val)
        return KF_ENOMEM;
    memcpy(*ptr, A->indptr, ((size_t)n + 1) * sizeof(int));
    if (nnz) {
        memcpy(*ind, A->indices, (size_t)nnz * sizeof(int));
        memcpy(*val, A->values, (size_t)nnz * sizeof(double));
    }
    *rows = 0;
    for (int i = 0; i < n; i++) {
        int len = A->indptr[i + 1] - A->indptr[i];
        *rows = len > *rows ? len : *rows;
        for (int q = A->indptr[i]; q < A->indptr[i + 1]; q++) {
            int d = abs(i - A->indices[q]);
            *bw = d > *bw ? d : *bw;
        }
    }
    return KF_OK;
}

/* Row i's columns of a merge: the sorted union of the first list (cols, len a) and the
 * columns of P's row i whose flag is set; mark (n ints, -1) records where each column went
 * and is reset. Returns the count written to out. */
static int merge_row(const int *cols, int a, const kf_csr *P, int i, const unsigned char *flag,
                     int *mark, int *out)
{
    int m = 0;
    for (int q = 0; q < a; q++)
        if (mark[cols[q]] < 0) {
            mark[cols[q]] = 0;
            out[m++] = cols[q];
        }
    for (int k = P->indptr[i]; k < P->indptr[i + 1]; k++)
        if (flag[k] && mark[P->indices[k]] < 0) {
            mark[P->indices[k]] = 0;
            out[m++] = P->indices[k];
        }
    for (int q = 1; q < m; q++) { /* insertion sort: a row's few columns */
        int v = out[q], j = q - 1;
        while (j >= 0 && out[j] > v) {
            out[j + 1] = out[j];
            j--;
        }
        out[j + 1] = v;
    }
    for (int q = 0; q < m; q++)
        mark[out[q]] = -1;
    return m;
}

/* The patterns of the two parts of A = K + D: the stiff one (K and the stiff terms T_q, q >=
 * nterm - nstiff, summed error-free each instant: K_G's quadratic form cancels as K's does,
 * so its products and its sum's rounding need twice the precision as K's) and the plain one
 * (the other terms' nonzeros and, with stiff terms, the stiff pattern for the low part of
 * their sum); each term's nonzeros as positions in its part, K's values on the stiff
 * pattern. */
static int compress_terms(kf_eigcont *c, const kf_csr *P, const double *terms)
{
    int n = c->n, nnz = P->indptr[n], nt = c->nterm, first = nt - c->nstiff, rc = KF_ENOMEM;
    unsigned char *mass = calloc((size_t)nnz + 1, 1), *stiff = calloc((size_t)nnz + 1, 1);
    int *mark = malloc(((size_t)n + 1) * sizeof(int)), *rs = malloc(((size_t)n + 1) * sizeof(int));
    int *rd = malloc(((size_t)n + 1) * sizeof(int)), *cur = calloc((size_t)nt + 1, sizeof(int));
    c->sp = calloc((size_t)n + 1, sizeof(int));
    c->dp = calloc((size_t)n + 1, sizeof(int));
    c->tp = calloc((size_t)nt + 1, sizeof(int));
    if (!mass || !stiff || !mark || !rs || !rd || !cur || !c->sp || !c->dp || !c->tp)
        goto done;
    for (int k = 0; k < nnz; k++)
        for (int q = 0; q < nt; q++)
            if (terms[(size_t)q * nnz + k] != 0.0) {
                (q < first ? mass : stiff)[k] = 1;
                c->tp[q + 1]++;
            }
    for (int q = 0; q < nt; q++)
        c->tp[q + 1] += c->tp[q];
    for (int i = 0; i < n; i++)
        mark[i] = -1;
    for (int pass = 0; pass < 2; pass++) { /* counts, then the patterns and positions */
        for (int i = 0; i < n; i++) {
            int a = c->kp[i + 1] - c->kp[i];
            int ns = merge_row(c->ki + c->kp[i], a, P, i, stiff, mark, rs);
            int nd = merge_row(rs, c->nstiff ? ns : 0, P, i, mass, mark, rd);
            if (!pass) {
                c->sp[i + 1] = c->sp[i] + ns;
                c->dp[i + 1] = c->dp[i] + nd;
                continue;
            }
            int s0 = c->sp[i], d0 = c->dp[i];
            memcpy(c->si + s0, rs, (size_t)ns * sizeof(int));
            memcpy(c->di + d0, rd, (size_t)nd * sizeof(int));
            for (int e = 0; e < ns; e++) /* column -> stiff position */
                mark[rs[e]] = s0 + e;
            for (int q = c->kp[i]; q < c->kp[i + 1]; q++)
                c->ks[mark[c->ki[q]]] = c->kv[q];
            for (int k = P->indptr[i]; k < P->indptr[i + 1]; k++)
                for (int q = first; q < nt; q++)
                    if (terms[(size_t)q * nnz + k] != 0.0) {
                        int m = c->tp[q] + cur[q]++;
                        c->tpos[m] = mark[P->indices[k]];
                        c->tval[m] = terms[(size_t)q * nnz + k];
                    }
            for (int e = 0; e < ns; e++)
                mark[rs[e]] = -1;
            for (int e = 0; e < nd; e++) /* column -> plain position */
                mark[rd[e]] = d0 + e;
            for (int e = 0; c->nstiff && e < ns; e++)
                c->lpos[s0 + e] = mark[rs[e]];
            for (int k = P->indptr[i]; k < P->indptr[i + 1]; k++)
                for (int q = 0; q < first; q++)
                    if (terms[(size_t)q * nnz + k] != 0.0) {
                        int m = c->tp[q] + cur[q]++;
                        c->tpos[m] = mark[P->indices[k]];
                        c->tval[m] = terms[(size_t)q * nnz + k];
                    }
            for (int e = 0; e < nd; e++)
                mark[rd[e]] = -1;
        }
        if (!pass) {
            size_t ns = (size_t)c->sp[n] + 1, nd = (size_t)c->dp[n] + 1, tot = (size_t)c->tp[nt] + 1;
            c->si = malloc(ns * sizeof(int));
            c->ks = calloc(ns, sizeof(double));
            c->ahi = calloc(ns, sizeof(double));
            c->alo = calloc(ns, sizeof(double));
            c->aab = calloc(ns, sizeof(double));
            c->lpos = calloc(ns, sizeof(int));
            c->di = malloc(nd * sizeof(int));
            c->dv = calloc(nd, sizeof(double));
            c->dab = calloc(nd, sizeof(double));
            c->tpos = malloc(tot * sizeof(int));
            c->tval = malloc(tot * sizeof(double));
            if (!c->si || !c->ks || !c->ahi || !c->alo || !c->aab || !c->lpos || !c->di || !c->dv ||
                !c->dab || !c->tpos || !c->tval)
                goto done;
        }
    }
    c->ld = 0;
    for (int i = 0; i < n; i++) {
        int len = c->dp[i + 1] - c->dp[i];
        c->ld = len > c->ld ? len : c->ld;
        for (int q = c->dp[i]; q < c->dp[i + 1]; q++)
            c->bw = abs(i - c->di[q]) > c->bw ? abs(i - c->di[q]) : c->bw;
        for (int q = c->sp[i]; q < c->sp[i + 1]; q++)
            c->bw = abs(i - c->si[q]) > c->bw ? abs(i - c->si[q]) : c->bw;
    }
    memcpy(c->ahi, c->ks, (size_t)c->sp[n] * sizeof(double));
    rc = KF_OK;
done:
    free(mass);
    free(stiff);
    free(mark);
    free(rs);
    free(rd);
    free(cur);
    return rc;
}

/* A(t)'s two parts from the coefficients ct: the stiff one K + sum_stiff c_q T_q as
 * ahi + alo with error-free products and sums (TwoProduct by Dekker's split, TwoSum), ahi
 * the matrix Dot2 runs over; the plain one fl(sum_other c_q T_q) + alo, with dab >= its
 * absolute value and its formation's rounding: sum |c_q| |T_q| + |alo| + 2 ns u
 * gamma_{2 ns} (|K| + sum_stiff |c_q| |T_q|) (alo's own sum of 2 ns error terms). */
static void form_terms(kf_eigcont *c, const double *ct)
{
    int n = c->n, nt = c->nterm, first = nt - c->nstiff;
    const double u = DBL_EPSILON / 2.0;
    memset(c->dv, 0, (size_t)c->dp[n] * sizeof(double));
    memset(c->dab, 0, (size_t)c->dp[n] * sizeof(double));
    for (int q = 0; q < first; q++) {
        const double cq = ct[q], ca = fabs(cq);
        if (cq != 0.0)
            for (int m = c->tp[q]; m < c->tp[q + 1]; m++) {
                c->dv[c->tpos[m]] += cq * c->tval[m];
                c->dab[c->tpos[m]] += ca * fabs(c->tval[m]);
            }
    }
    if (!c->nstiff)
        return;
    size_t ns = (size_t)c->sp[n];
    memcpy(c->ahi, c->ks, ns * sizeof(double));
    memset(c->alo, 0, ns * sizeof(double));
    for (size_t e = 0; e < ns; e++)
        c->aab[e] = fabs(c->ks[e]);
    for (int q = first; q < nt; q++) {
        const double a = ct[q];
        if (a == 0.0)
            continue;
        double ah, al;
        kf_split(a, &ah, &al);
        for (int m = c->tp[q]; m < c->tp[q + 1]; m++) {
            const int e = c->tpos[m];
            double p, pe, sn, f;
            kf_two_product(a, ah, al, c->tval[m], &p, &pe); /* p + pe = a b */
            kf_two_sum(c->ahi[e], p, &sn, &f);               /* ahi + p = sn + f */
            c->ahi[e] = sn;
            c->alo[e] += f + pe;
            c->aab[e] += fabs(p);
        }
    }
    const int m2 = 2 * c->nstiff;
    const double g = 2.0 * c->nstiff * u * (m2 * u / (1.0 - m2 * u));
    for (size_t e = 0; e < ns; e++) {
        c->dv[c->lpos[e]] += c->alo[e];
        c->dab[c->lpos[e]] += fabs(c->alo[e]) + g * c->aab[e];
    }
}

int kf_eigcont_create(kf_eigcont **out, const kf_csr *K, const kf_csr *M, const kf_csr *P,
                      int nterm, int nstiff, const double *terms, int bm, const double *mf, int p,
                      int ms, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "", "kf_eigcont_create: NULL argument");
    *out = NULL;
    int rc = check_csr(K, 0, "K", 0, err);
    if (rc)
        return rc;
    int n = K->n;
    if ((rc = check_csr(M, n, "M", 0, err)) || (rc = check_csr(P, n, "P", 1, err)))
        return rc;
    if (ms < 1 || p <= ms || p > n)
        return kf_fail(err, KF_EINVAL, "n_modes", "%d wanted pairs in a basis of %d columns: "
                       "needs 1 <= ms < p <= n = %d", ms, p, n);
    if (nterm < 0 || nstiff < 0 || nstiff > nterm || (nterm > 0 && P->indptr[n] > 0 && !terms))
        return kf_fail(err, KF_EINVAL, "terms", "nterm = %d terms (%d stiff) without values", nterm,
                       nstiff);
    for (size_t k = 0; k < (size_t)nterm * P->indptr[n]; k++)
        if (!isfinite(terms[k]))
            return kf_fail(err, KF_EINVAL, "terms", "term %zu, value %zu = %g is not finite",
                           k / P->indptr[n], k % P->indptr[n], terms[k]);
    if (bm < 0 || bm >= n || !mf)
        return kf_fail(err, KF_EINVAL, "mf", "M's factor: half-bandwidth %d of order %d", bm, n);
    for (size_t k = 0; k < (size_t)n * (bm + 1); k++)
        if (!isfinite(mf[k]))
            return kf_fail(err, KF_EINVAL, "mf", "M's factor: entry %zu = %g is not finite", k,
                           mf[k]);
    for (int j = 0; j < n; j++)
        if (!(mf[(size_t)j * (bm + 1)] > 0.0))
            return kf_fail(err, KF_EINVAL, "mf", "M's factor: pivot %d = %g is not positive", j,
                           mf[(size_t)j * (bm + 1)]);
    if ((rc = kf_lapack_require(err)))
        return rc;
    kf_eigcont *c = calloc(1, sizeof *c);
    if (!c)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the continuation");
    c->n = n;
    c->p = p;
    c->ms = ms;
    c->q = p + ms;
    c->nterm = nterm;
    c->nstiff = nstiff;
    c->bm = bm;
    rc = copy_csr(K, &c->kp, &c->ki, &c->kv, &c->lk, &c->bw);
    if (!rc)
        rc = copy_csr(M, &c->mp, &c->mi, &c->mv, &c->lm, &c->bw);
    if (!rc)
        rc = compress_terms(c, P, terms);
    int q = c->q, lw, liw;
    kf_la_syevr_lwork(q, &lw, &liw);
    c->lwork = lw;
    c->liwork = liw;
    size_t nq = (size_t)n * q, nm = (size_t)n * ms;
    if (!rc) {
        rc = sfac_alloc(&c->mf, n, (size_t)n * bm);
        if (!rc)
            rc = sfac_alloc(&c->f, n, (size_t)n * c->bw);
        c->fs = calloc((size_t)n * (c->bw + 1), sizeof(double));
        c->X = calloc((size_t)n * p, sizeof(double));
        c->cprev = calloc((size_t)nterm + 1, sizeof(double));
        c->thp = calloc((size_t)ms, sizeof(double));
        c->bdp = calloc((size_t)ms, sizeof(double));
        c->up = calloc(nm, sizeof(double));
        c->V = calloc(nq, sizeof(double));
        c->AV = calloc(nq, sizeof(double));
        c->MV = calloc(nq, sizeof(double));
        c->U = calloc((size_t)n * p, sizeof(double));
        double **blocks[] = {&c->Uh, &c->Ul, &c->A1, &c->E1, &c->M1, &c->N1, &c->U0, &c->A0,
                             &c->E0, &c->M0, &c->N0, &c->Cc, &c->W};
        for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
            *blocks[k] = calloc(nm, sizeof(double));
        c->RB = calloc(2 * nm, sizeof(double));
        c->scr = calloc(4 * (size_t)ms + (size_t)q, sizeof(double));
        c->H = calloc((size_t)q * q, sizeof(double));
        c->G = calloc((size_t)q * q, sizeof(double));
        c->Z = calloc((size_t)q * q, sizeof(double));
        c->T = calloc((size_t)q * q, sizeof(double));
        c->Y = calloc((size_t)q * q, sizeof(double));
        c->sv = calloc((size_t)q, sizeof(double));
        c->work = calloc((size_t)lw, sizeof(double));
        c->iwork = calloc((size_t)liw, sizeof(int));
        c->isuppz = calloc(2 * (size_t)q, sizeof(int));
        c->cl = calloc((size_t)ms, sizeof(int));
        c->pick = calloc((size_t)ms, sizeof(int));
        for (int s = 0; s < 2; s++) {
            c->th[s] = calloc((size_t)ms, sizeof(double));
            c->eps[s] = calloc((size_t)ms, sizeof(double));
            c->del[s] = calloc((size_t)ms, sizeof(double));
            c->bd[s] = calloc((size_t)ms, sizeof(double));
            c->den[s] = calloc((size_t)ms, sizeof(double));
        }
        int ok = !rc && c->fs && c->X && c->cprev && c->thp && c->bdp && c->up && c->V &&
                 c->AV && c->MV && c->U && c->RB && c->scr && c->H && c->G && c->Z && c->T &&
                 c->Y && c->sv && c->work && c->iwork && c->isuppz && c->cl && c->pick;
        for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
            ok = ok && *blocks[k];
        for (int s = 0; s < 2; s++)
            ok = ok && c->th[s] && c->eps[s] && c->del[s] && c->bd[s] && c->den[s];
        rc = ok ? KF_OK : KF_ENOMEM;
    }
    if (rc) {
        kf_eigcont_free(c);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the continuation's workspace (n = %d, "
                       "p = %d)", n, p);
    }
    sfac_from_band(&c->mf, n, bm, mf);
    *out = c;
    return KF_OK;
}

int kf_eigcont_set_factor(kf_eigcont *c, int bf, const double *f, kf_error *err)
{
    if (!c || !f || bf < 0 || bf >= c->n)
        return kf_fail(err, KF_EINVAL, "factor", "the factor: half-bandwidth %d", bf);
    size_t len = (size_t)c->n * (bf + 1);
    for (size_t k = 0; k < len; k++)
        if (!isfinite(f[k]))
            return kf_fail(err, KF_EINVAL, "factor", "the factor's entry %zu = %g is not finite",
                           k, f[k]);
    for (int j = 0; j < c->n; j++)
        if (!(f[(size_t)j * (bf + 1)] > 0.0))
            return kf_fail(err, KF_EINVAL, "factor", "the factor's pivot %d = %g is not positive",
                           j, f[(size_t)j * (bf + 1)]);
    if ((size_t)c->n * bf > c->f.cap && sfac_alloc(&c->f, c->n, (size_t)c->n * bf)) {
        c->have_factor = 0;
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the factor (%zu entries)", len);
    }
    sfac_from_band(&c->f, c->n, bf, f);
    c->have_factor = 1;
    return KF_OK;
}

int kf_eigcont_set_basis(kf_eigcont *c, const double *X, kf_error *err)
{
    if (!c || !X)
        return kf_fail(err, KF_EINVAL, "basis", "kf_eigcont_set_basis: NULL argument");
    for (size_t k = 0; k < (size_t)c->n * c->p; k++)
        if (!isfinite(X[k]))
            return kf_fail(err, KF_EINVAL, "basis", "basis entry %zu = %g is not finite", k, X[k]);
    memcpy(c->X, X, (size_t)c->n * c->p * sizeof(double));
    c->have_basis = 1;
    c->have_prev = 0;
    return KF_OK;
}

/* ---------------------------------------------------------------- products */

/* Y (+)= A X for k columns of row-major blocks with leading dimensions ldx, ldy: the
 * columns j0 .. j0 + w - 1. */
static inline void csr_mul_w(int n, const int *restrict ptr, const int *restrict ind,
                             const double *restrict val, int j0, const int w,
                             const double *restrict X, int ldx, int add, double *restrict Y,
                             int ldy)
{
    for (int i = 0; i < n; i++) {
        double acc[KF_CHUNK], *restrict y = Y + (size_t)i * ldy + j0;
        for (int j = 0; j < w; j++)
            acc[j] = add ? y[j] : 0.0;
        for (int q = ptr[i]; q < ptr[i + 1]; q++) {
            const double a = val[q], *restrict x = X + (size_t)ind[q] * ldx + j0;
            for (int j = 0; j < w; j++)
                acc[j] += a * x[j];
        }
        for (int j = 0; j < w; j++)
            y[j] = acc[j];
    }
}

static void csr_mul(int n, const int *ptr, const int *ind, const double *val, int k,
                    const double *X, int ldx, int add, double *Y, int ldy)
{
#define KF_CALL(J0, W) csr_mul_w(n, ptr, ind, val, J0, W, X, ldx, add, Y, ldy)
    KF_CHUNKS(k, KF_CALL)
#undef KF_CALL
}

/* y_i = A x_i and e_i = g |A| ax_i (M's products and their rounding bound: plus = 0), or
 * y_i <- y_i + A x_i and e_i += g |A| ax_i + u |y_i| (the motion terms after Dot2's K:
 * plus = 1), over the columns j0 .. j0 + w - 1 of n x k row-major blocks; |A| is aval
 * where given (a bound of |A| and of its formation's rounding), else |val|. */
static inline void csr_mul_bound_w(int n, const int *restrict ptr, const int *restrict ind,
                                   const double *restrict val, const double *restrict aval,
                                   int k, int j0, const int w,
                                   const double *restrict x, const double *restrict ax, double g,
                                   int plus, double *restrict y, double *restrict e)
{
    const double u = DBL_EPSILON / 2.0;
    for (int i = 0; i < n; i++) {
        double acc[KF_CHUNK], aac[KF_CHUNK];
        for (int j = 0; j < w; j++)
            acc[j] = aac[j] = 0.0;
        for (int q = ptr[i]; q < ptr[i + 1]; q++) {
            const double a = val[q], aa = aval ? aval[q] : fabs(a);
            const double *restrict xq = x + (size_t)ind[q] * k + j0;
            const double *restrict aq = ax + (size_t)ind[q] * k + j0;
            for (int j = 0; j < w; j++) {
                acc[j] += a * xq[j];
                aac[j] += aa * aq[j];
            }
        }
        double *restrict yi = y + (size_t)i * k + j0, *restrict ei = e + (size_t)i * k + j0;
        if (plus)
            for (int j = 0; j < w; j++) {
                const double yj = yi[j] + acc[j];
                yi[j] = yj;
                ei[j] += g * aac[j] + u * fabs(yj);
            }
        else
            for (int j = 0; j < w; j++) {
                yi[j] = acc[j];
                ei[j] = g * aac[j];
            }
    }
}

static void csr_mul_bound(int n, const int *ptr, const int *ind, const double *val,
                          const double *aval, int k, const double *x, const double *ax, double g,
                          int plus, double *y, double *e)
{
#define KF_CALL(J0, W) csr_mul_bound_w(n, ptr, ind, val, aval, k, J0, W, x, ax, g, plus, y, e)
    KF_CHUNKS(k, KF_CALL)
#undef KF_CALL
}

/* A (Xh + Xl) for k = ms columns, A = K + sum_q c_q T_q exactly: Dot2 over the stiff part
 * ahi (kf_dot2_rows, bound e) plus the plain part fl(D) fl(Xh + Xl) in the working
 * precision, rounded once more; e += gamma_{LD+2+nterm} dab (|Xh| + |Xl|) + u |y|, which
 * bounds the product's rounding (gamma_{LD+2} |D|, _eigcert.Compensated with plain_part)
 * and D's own (form_terms).  Leaves fl(Xh + Xl) in c->W and |Xh| + |Xl| in c->RB for
 * apply_m. */
static void apply_a(kf_eigcont *c, const double *Xh, const double *Xl, double *y, double *e)
{
    int n = c->n, k = c->ms, m = c->ld + 2 + c->nterm;
    const double u = DBL_EPSILON / 2.0, g = m * u / (1.0 - m * u);
    kf_dot2_rows(n, c->sp, c->si, c->ahi, k, Xh, Xl, y, e);
    for (size_t i = 0; i < (size_t)n * k; i++) {
        c->W[i] = Xl ? Xh[i] + Xl[i] : Xh[i];
        c->RB[i] = Xl ? fabs(Xh[i]) + fabs(Xl[i]) : fabs(Xh[i]);
    }
    csr_mul_bound(n, c->dp, c->di, c->dv, c->dab, k, c->W, c->RB, g, 1, y, e);
}

/* M fl(Xh + Xl) and the bound 2 L_M u |M| (|Xh| + |Xl|), from what apply_a left (call it
 * right after, for the same vectors). */
static void apply_m(kf_eigcont *c, double *y, double *e)
{
    csr_mul_bound(c->n, c->mp, c->mi, c->mv, NULL, c->ms, c->W, c->RB,
                  2.0 * c->lm * (DBL_EPSILON / 2.0), 0, y, e);
}

/* C (r x s, column-major, ld ldc) = A^T B for row-major n x r and n x s blocks (leading
 * dimensions lda, ldb): rows l0 .. l0 + w - 1 of C, each column summed over i in order. */
static inline void gram_w(int n, int l0, const int w, int s, const double *restrict A, int lda,
                          const double *restrict B, int ldb, double *restrict C, int ldc)
{
    for (int j = 0; j < s; j++) {
        double acc[KF_CHUNK];
        for (int l = 0; l < w; l++)
            acc[l] = 0.0;
        for (int i = 0; i < n; i++) {
            const double bj = B[(size_t)i * ldb + j], *restrict a = A + (size_t)i * lda + l0;
            for (int l = 0; l < w; l++)
                acc[l] += a[l] * bj;
        }
        for (int l = 0; l < w; l++)
            C[l0 + l + (size_t)j * ldc] = acc[l];
    }
}

static void gram(int n, int r, int s, const double *A, int lda, const double *B, int ldb,
                 double *C, int ldc)
{
#define KF_CALL(L0, W) gram_w(n, L0, W, s, A, lda, B, ldb, C, ldc)
    KF_CHUNKS(r, KF_CALL)
#undef KF_CALL
}

/* Y (n x s, row-major, ld ldy) = X (n x r, ld ldx) Z (r x s, column-major, ld ldz): the
 * columns j0 .. j0 + w - 1 of Y. */
static inline void times_small_w(int n, int r, int j0, const int w, const double *restrict X,
                                 int ldx, const double *restrict Z, int ldz, double *restrict Y,
                                 int ldy)
{
    for (int i = 0; i < n; i++) {
        const double *restrict x = X + (size_t)i * ldx;
        double acc[KF_CHUNK];
        for (int j = 0; j < w; j++)
            acc[j] = 0.0;
        for (int l = 0; l < r; l++) {
            const double xl = x[l];
            for (int j = 0; j < w; j++)
                acc[j] += xl * Z[l + (size_t)(j0 + j) * ldz];
        }
        for (int j = 0; j < w; j++)
            Y[(size_t)i * ldy + j0 + j] = acc[j];
    }
}

static void times_small(int n, int r, int s, const double *X, int ldx, const double *Z, int ldz,
                        double *Y, int ldy)
{
#define KF_CALL(J0, W) times_small_w(n, r, J0, W, X, ldx, Z, ldz, Y, ldy)
    KF_CHUNKS(s, KF_CALL)
#undef KF_CALL
}

/* ---------------------------------------------------------------- Rayleigh-Ritz */

/* The p lowest Ritz pairs of (K + D, M) on the q columns of V (row-major n x q, ld c->q):
 * c->U (n x p) and theta in c->sv.  Returns 1, 0 when V spans fewer than p directions, or
 * < 0 on a LAPACK error. */
static int rayleigh_ritz(kf_eigcont *c, int q, kf_error *err)
{
    int n = c->n, p = c->p, ld = c->q, rc;
    csr_mul(n, c->sp, c->si, c->ahi, q, c->V, ld, 0, c->AV, ld);
    csr_mul(n, c->dp, c->di, c->dv, q, c->V, ld, 1, c->AV, ld);
    csr_mul(n, c->mp, c->mi, c->mv, q, c->V, ld, 0, c->MV, ld);
    /* H = V^T A V, G = V^T M V over the first q columns (ld = c->q) */
    gram(n, q, q, c->V, ld, c->AV, ld, c->H, q);
    gram(n, q, q, c->V, ld, c->MV, ld, c->G, q);
    for (int j = 0; j < q; j++)
        for (int l = j + 1; l < q; l++) {
            size_t a = l + (size_t)j * q, b = j + (size_t)l * q;
            c->H[a] = c->H[b] = 0.5 * (c->H[a] + c->H[b]);
            c->G[a] = c->G[b] = 0.5 * (c->G[a] + c->G[b]);
        }
    /* G = W s W^T; T = W_kept s^-1/2 (the kept directions M-orthonormal) */
    if ((rc = kf_la_syevr(q, c->G, q, 1, q, c->sv, c->T, q, c->isuppz, c->work, c->lwork,
                          c->iwork, c->liwork, err)))
        return -rc;
    double top = c->sv[q - 1];
    int first = 0;
    while (first < q && !(c->sv[first] > KF_CONT_DROP * top))
        first++;
    int r = q - first;
    if (!(top > 0.0) || !isfinite(top) || r < p)
        return 0;
    for (int j = 0; j < r; j++) {
        double s = 1.0 / sqrt(c->sv[first + j]);
        for (int l = 0; l < q; l++)
            c->T[l + (size_t)j * q] = c->T[l + (size_t)(first + j) * q] * s;
    }
    /* C = T^T H T (r x r) into G's place, its p lowest pairs; Z = T Y */
    for (int j = 0; j < r; j++) /* Y = H T (q x r) */
        for (int l = 0; l < q; l++) {
            double acc = 0.0;
            for (int m = 0; m < q; m++)
                acc += c->H[l + (size_t)m * q] * c->T[m + (size_t)j * q];
            c->Y[l + (size_t)j * q] = acc;
        }
    for (int j = 0; j < r; j++)
        for (int l = 0; l < r; l++) {
            double acc = 0.0;
            for (int m = 0; m < q; m++)
                acc += c->T[m + (size_t)l * q] * c->Y[m + (size_t)j * q];
            c->G[l + (size_t)j * r] = acc;
        }
    for (int j = 0; j < r; j++)
        for (int l = j + 1; l < r; l++) {
            size_t a = l + (size_t)j * r, b = j + (size_t)l * r;
            c->G[a] = c->G[b] = 0.5 * (c->G[a] + c->G[b]);
        }
    if ((rc = kf_la_syevr(r, c->G, r, 1, p, c->sv, c->Y, r, c->isuppz, c->work, c->lwork,
                          c->iwork, c->liwork, err)))
        return -rc;
    for (int j = 0; j < p; j++) /* Z = T Y (q x p) */
        for (int l = 0; l < q; l++) {
            double acc = 0.0;
            for (int m = 0; m < r; m++)
                acc += c->T[l + (size_t)m * q] * c->Y[m + (size_t)j * r];
            c->Z[l + (size_t)j * q] = acc;
        }
    times_small(n, q, p, c->V, ld, c->Z, q, c->U, p);
    for (int k = 0; k < p; k++)
        if (!isfinite(c->sv[k]))
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- refinement and certificate */

/* (hi, lo) - C exactly to twice the precision, then Fast2Sum (_eigcert.dd_sub). */
static void dd_sub(size_t len, double *restrict h, double *restrict l, const double *restrict C)
{
    for (size_t i = 0; i < len; i++) {
        const double a = h[i], b = -C[i];
        const double s = a + b;
        const double bb = s - a;
        const double e = (a - (s - bb)) + (b - bb);
        const double t = e + l[i];
        const double s2 = s + t;
        h[i] = s2;
        l[i] = t - (s2 - s);
    }
}

/* Each column of (Uh, Ul) made M-orthogonal to the lower ones (its high parts), one after
 * the other, in double-double (_eigcert._deflate): inverse iteration amplifies the lower
 * modes' components, and deflating against the higher ones too took a lower mode out of
 * its own column.  Scratch: c->W (M Uh), c->scr. */
static void deflate(kf_eigcont *c)
{
    int n = c->n, k = c->ms;
    double *den = c->scr, *coef = c->scr + k;
    for (int j = 0; j < k; j++) {
        if (j) {
            for (int l = 0; l < j; l++)
                coef[l] = 0.0;
            for (int i = 0; i < n; i++)
                for (int l = 0; l < j; l++)
                    coef[l] += c->W[(size_t)i * k + l] * c->Uh[(size_t)i * k + j];
            for (int l = 0; l < j; l++)
                coef[l] /= den[l];
            for (int i = 0; i < n; i++) {
                double *h = c->Uh + (size_t)i * k, acc = 0.0;
                for (int l = 0; l < j; l++)
                    acc += h[l] * coef[l];
                const double a = h[j], b = -acc;
                const double s = a + b;
                const double bb = s - a;
                const double e = (a - (s - bb)) + (b - bb);
                const double t = e + c->Ul[(size_t)i * k + j];
                const double s2 = s + t;
                h[j] = s2;
                c->Ul[(size_t)i * k + j] = t - (s2 - s);
            }
        }
        /* M Uh[:, j] and its M-norm (the numerators' denominators) */
        double d = 0.0;
        for (int i = 0; i < n; i++) {
            double acc = 0.0;
            for (int q = c->mp[i]; q < c->mp[i + 1]; q++)
                acc += c->mv[q] * c->Uh[(size_t)c->mi[q] * k + j];
            c->W[(size_t)i * k + j] = acc;
        }
        for (int i = 0; i < n; i++)
            d += c->W[(size_t)i * k + j] * c->Uh[(size_t)i * k + j];
        den[j] = d;
    }
}

/* Certificates of the set s (0: the given vectors Uh = U0, Ul none; 1: the refined ones)
 * from their products: theta (Rayleigh quotients), eps (M^-1-norm residual with its
 * rounding bound, relative to ||u||_M), delta (the quotient's rounding), den (u^T M u).
 * _eigcert.certify's quantities; the bounds themselves are set by bound_set. */
static void quotients(kf_eigcont *c, int s);

static void certify_set(kf_eigcont *c, int s)
{
    int n = c->n, k = c->ms;
    const double u = DBL_EPSILON / 2.0;
    const double *Uh = s ? c->Uh : c->U0, *Ul = s ? c->Ul : NULL;
    const double *AU = s ? c->A1 : c->A0, *eA = s ? c->E1 : c->E0;
    const double *MU = s ? c->M1 : c->M0, *eM = s ? c->N1 : c->N0;
    double *den = c->den[s], *dl = c->del[s], *th = c->th[s], *de = c->scr + 3 * k;
    quotients(c, s);
    for (int j = 0; j < k; j++)
        dl[j] = de[j] = 0.0;
    /* R = A U - M U theta and its rounding bound side by side, one forward solve with M's
     * factor: ||r||_{M^-1} = ||L^-1 r|| */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) {
            size_t x = (size_t)i * k + j;
            const double ui = Ul ? Uh[x] + Ul[x] : Uh[x];
            const double mt = MU[x] * th[j];
            dl[j] += fabs(ui) * (fabs(AU[x]) + fabs(th[j]) * fabs(MU[x]));
            de[j] += fabs(ui) * (eA[x] + fabs(th[j]) * eM[x]);
            c->RB[(size_t)i * 2 * k + j] = AU[x] - mt;
            c->RB[(size_t)i * 2 * k + k + j] =
                eA[x] + fabs(th[j]) * eM[x] + 2.0 * u * (fabs(AU[x]) + fabs(mt));
        }
    sfac_forward(&c->mf, n, 2 * k, c->RB);
    double *nr = c->scr + k, *nb = c->scr + 2 * k;
    for (int j = 0; j < 2 * k; j++)
        nr[j] = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2 * k; j++)
            nr[j] += c->RB[(size_t)i * 2 * k + j] * c->RB[(size_t)i * 2 * k + j];
    for (int j = 0; j < k; j++) {
        double norm_u = sqrt(fabs(den[j]));
        /* the solve's relative error (cond(M) eps) is covered by the factor 1 + 1e-8 */
        c->eps[s][j] = (sqrt(nr[j]) + sqrt(nb[j])) * (1.0 + 1e-8) / norm_u;
        /* the quotient's rounding, and what the products' errors move it by:
         * |u^T (A u)~ - u^T A u| <= |u|^T eA (first order: K_G's formation, for one) */
        dl[j] = (2.0 * n * u * dl[j] + de[j]) / fabs(den[j]);
    }
}

/* The bounds of set s given the (ms+1)-th eigenvalue's lower bound L (theory 3.17):
 * intervals theta +- (eps + delta); overlapping ones form clusters (Kahan's radius over the
 * members, with their Gram matrix's departure from I); complete when the clusters'
 * intervals are disjoint and below L; then Kato-Temple for a single pair between its
 * neighbours' intervals (or L).  Returns 1 if complete (bounds in bd[s]), else 0. */
static int bound_set(kf_eigcont *c, int s, double L)
{
    int n = c->n, k = c->ms;
    const double u = DBL_EPSILON / 2.0;
    const double *th = c->th[s], *ep = c->eps[s], *dl = c->del[s];
    double *bd = c->bd[s];
    for (int j = 0; j < k; j++) {
        if (!isfinite(th[j]) || !isfinite(ep[j]) || (j && th[j] < th[j - 1]))
            return 0;
        bd[j] = ep[j] + dl[j];
        c->cl[j] = j;
    }
    /* clusters: merge neighbours whose intervals (radius bd) meet; a cluster's radius is
     * Kahan's, which can widen it into the next: repeat until none meets */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int j = 1; j < k; j++)
            if (c->cl[j] != c->cl[j - 1] && th[j] - bd[j] <= th[j - 1] + bd[j - 1]) {
                int old = c->cl[j], new = c->cl[j - 1];
                for (int i = j; i < k && c->cl[i] == old; i++)
                    c->cl[i] = new;
                changed = 1;
            }
        if (!changed)
            break;
        for (int a = 0; a < k;) {
            int b = a;
            while (b + 1 < k && c->cl[b + 1] == c->cl[a])
                b++;
            if (b > a) {
                /* members a..b: R_F, theta max, Gram departure g of the normalized vectors */
                const double *Uh = s ? c->Uh : c->U0, *Ul = s ? c->Ul : NULL;
                const double *MU = s ? c->M1 : c->M0;
                double rf = 0.0, tmax = 0.0, g2 = 0.0;
                for (int j = a; j <= b; j++) {
                    rf += ep[j] * ep[j];
                    tmax = fabs(th[j]) > tmax ? fabs(th[j]) : tmax;
                }
                rf = sqrt(rf);
                for (int j = a; j <= b; j++)
                    for (int l = a; l <= b; l++) {
                        double dot = 0.0, abs_dot = 0.0;
                        for (int i = 0; i < n; i++) {
                            size_t xj = (size_t)i * k + j, xl = (size_t)i * k + l;
                            const double uj = Ul ? Uh[xj] + Ul[xj] : Uh[xj];
                            dot += uj * MU[xl];
                            abs_dot += fabs(uj) * fabs(MU[xl]);
                        }
                        double nj = sqrt(fabs(c->den[s][j])), nl = sqrt(fabs(c->den[s][l]));
                        double gjl = dot / (nj * nl) - (j == l ? 1.0 : 0.0);
                        /* + its rounding: the dot product's and M U's (2 L_M u |M| |u|) */
                        double rnd = (2.0 * n * u + 2.0 * c->lm * u) * abs_dot / (nj * nl);
                        g2 += (fabs(gjl) + rnd) * (fabs(gjl) + rnd);
                    }
                double g = sqrt(g2);
                if (!(g < 0.5))
                    return 0;
                double e = g * tmax + sqrt(1.0 + g) * rf;
                double rho = rf / sqrt(1.0 - g) + e + g / (1.0 - g) * (tmax + e);
                for (int j = a; j <= b; j++)
                    bd[j] = rho + dl[j];
            }
            a = b + 1;
        }
    }
    /* complete: disjoint clusters (merged above), the top one below L */
    if (!(th[k - 1] + bd[k - 1] < L))
        return 0;
    double *rad = c->scr; /* the intervals' radii: neighbours are taken before sharpening */
    for (int j = 0; j < k; j++)
        rad[j] = bd[j];
    for (int j = 0; j < k; j++) {
        if ((j > 0 && c->cl[j - 1] == c->cl[j]) || (j + 1 < k && c->cl[j + 1] == c->cl[j]))
            continue; /* a cluster's member keeps rho */
        double lo = j > 0 ? th[j] - (th[j - 1] + rad[j - 1]) : HUGE_VAL;
        double hi = (j + 1 < k ? th[j + 1] - rad[j + 1] : L) - th[j];
        double gap = lo < hi ? lo : hi;
        /* Kato-Temple: (theta - gap, theta + gap) holds lambda_j alone */
        if (gap > ep[j] && ep[j] * ep[j] / gap < ep[j])
            bd[j] = ep[j] * ep[j] / gap + dl[j];
    }
    return 1;
}

/* theta = u^T A u / u^T M u of set s (den = u^T M u), from its products. */
static void quotients(kf_eigcont *c, int s)
{
    int n = c->n, k = c->ms;
    const double *Uh = s ? c->Uh : c->U0, *Ul = s ? c->Ul : NULL;
    const double *AU = s ? c->A1 : c->A0, *MU = s ? c->M1 : c->M0;
    double *num = c->scr, *den = c->den[s];
    for (int j = 0; j < k; j++)
        num[j] = den[j] = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) {
            size_t x = (size_t)i * k + j;
            const double ui = Ul ? Uh[x] + Ul[x] : Uh[x];
            num[j] += ui * AU[x];
            den[j] += ui * MU[x];
        }
    for (int j = 0; j < k; j++)
        c->th[s][j] = num[j] / den[j];
}

/* 1 if every wanted bound of set s is at most tol (|theta| + scale). */
static int within(const kf_eigcont *c, int s, double tol, double scale)
{
    for (int j = 0; j < c->ms; j++)
        if (!(c->bd[s][j] <= tol * (fabs(c->th[s][j]) + scale)))
            return 0;
    return 1;
}

/* The ms lowest Ritz vectors (c->U's first columns) certified as they are (try_asis) and
 * refined, per column the smaller bound of a complete set (sparse.SparseEigen.certified's
 * rule).  Returns 1 when accepted (c->thp, c->bdp, c->up: values, bounds, M-normalized
 * vectors), 0 when not (c->Cc holds F^-1 R of the given vectors: the Davidson expansion),
 * 2 when the pairs are converged but not proved complete (L too low: no step helps). */
static int certify_instant(kf_eigcont *c, double L, double scale, double tol, int try_asis,
                           int *refined)
{
    int n = c->n, k = c->ms, p = c->p;
    for (int i = 0; i < n; i++)
        memcpy(c->U0 + (size_t)i * k, c->U + (size_t)i * p, (size_t)k * sizeof(double));
    apply_a(c, c->U0, NULL, c->A0, c->E0);
    apply_m(c, c->M0, c->N0);
    int have0 = 0, full0 = 0, full1;
    if (try_asis) {
        certify_set(c, 0);
        have0 = 1;
        full0 = bound_set(c, 0, L);
        if (full0 && within(c, 0, tol, scale)) {
            *refined = 0;
            memcpy(c->thp, c->th[0], (size_t)k * sizeof(double));
            memcpy(c->bdp, c->bd[0], (size_t)k * sizeof(double));
            for (int i = 0; i < n; i++)
                for (int j = 0; j < k; j++)
                    c->up[(size_t)i * k + j] = c->U0[(size_t)i * k + j] / sqrt(fabs(c->den[0][j]));
            return 1;
        }
    } else
        quotients(c, 0);
    /* one step of inverse iteration in double-double: u - F^-1 (A u - theta M u) */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) {
            size_t x = (size_t)i * k + j;
            c->Cc[x] = c->A0[x] - c->M0[x] * c->th[0][j];
        }
    sfac_forward(&c->f, n, k, c->Cc);
    sfac_backward(&c->f, n, k, c->Cc);
    memcpy(c->Uh, c->U0, (size_t)n * k * sizeof(double));
    memset(c->Ul, 0, (size_t)n * k * sizeof(double));
    dd_sub((size_t)n * k, c->Uh, c->Ul, c->Cc);
    deflate(c);
    apply_a(c, c->Uh, c->Ul, c->A1, c->E1);
    apply_m(c, c->M1, c->N1);
    certify_set(c, 1);
    full1 = bound_set(c, 1, L);
    if (!full1 || !within(c, 1, tol, scale)) {
        /* the given pairs' own certificates: where cond(F) eps nears one (a 1e4-element
         * beam) the refinement is no refinement */
        if (!have0) {
            certify_set(c, 0);
            full0 = bound_set(c, 0, L);
        }
    }
    int ok = full0 || full1;
    for (int j = 0; j < k && ok; j++) {
        int s = full1 && (!full0 || c->bd[1][j] <= c->bd[0][j]) ? 1 : 0;
        c->thp[j] = c->th[s][j];
        c->bdp[j] = c->bd[s][j];
        if (!(c->bdp[j] <= tol * (fabs(c->thp[j]) + scale)))
            ok = 0;
        c->pick[j] = s;
    }
    if (!ok) {
        /* converged as far as the certificate goes, but not complete: L is too low */
        int conv = 1;
        for (int s = 0; s < 2; s++)
            for (int j = 0; j < k; j++)
                conv &= c->eps[s][j] + c->del[s][j] <= tol * (fabs(c->th[s][j]) + scale);
        return !full0 && !full1 && conv ? 2 : 0;
    }
    *refined = 0;
    for (int j = 0; j < k; j++)
        *refined |= c->pick[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) {
            size_t x = (size_t)i * k + j;
            c->up[x] = c->pick[j] ? (c->Uh[x] + c->Ul[x]) / sqrt(fabs(c->den[1][j]))
                                : c->U0[x] / sqrt(fabs(c->den[0][j]));
        }
    return 1;
}

/* The basis [U, C] for the next round: the corrections M-orthogonalized against U (twice;
 * U is M-orthonormal from the Rayleigh-Ritz) and M-normalized on their own scale (a
 * correction can be orders of magnitude smaller than the basis: sparse._m_extend). */
static void expand(kf_eigcont *c)
{
    int n = c->n, k = c->ms, p = c->p, q = c->q;
    double *coef = c->T; /* p x k, column-major */
    for (int pass = 0; pass < 2; pass++) {
        csr_mul(n, c->mp, c->mi, c->mv, k, c->Cc, k, 0, c->W, k);
        gram(n, p, k, c->U, p, c->W, k, coef, p);
        for (int i = 0; i < n; i++) {
            const double *ui = c->U + (size_t)i * p;
            double *ci = c->Cc + (size_t)i * k;
            for (int j = 0; j < k; j++) {
                double acc = 0.0;
                for (int l = 0; l < p; l++)
                    acc += ui[l] * coef[l + (size_t)j * p];
                ci[j] -= acc;
            }
        }
    }
    csr_mul(n, c->mp, c->mi, c->mv, k, c->Cc, k, 0, c->W, k);
    double *norm = c->scr;
    for (int j = 0; j < k; j++)
        norm[j] = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++)
            norm[j] += c->Cc[(size_t)i * k + j] * c->W[(size_t)i * k + j];
    for (int j = 0; j < k; j++)
        norm[j] = norm[j] > 0.0 && isfinite(norm[j]) ? 1.0 / sqrt(norm[j]) : 0.0;
    for (int i = 0; i < n; i++) {
        double *v = c->V + (size_t)i * q;
        memcpy(v, c->U + (size_t)i * p, (size_t)p * sizeof(double));
        for (int j = 0; j < k; j++)
            v[p + j] = c->Cc[(size_t)i * k + j] * norm[j];
    }
}

/* F = band Cholesky of K + D - sigma M (the instant's own shift-invert factor).  Returns 1,
 * or 0 if that matrix is not positive definite (sigma not below the spectrum). */
static int refactor(kf_eigcont *c, double sigma)
{
    int n = c->n, b = c->bw;
    size_t ld = (size_t)b + 1;
    memset(c->fs, 0, (size_t)n * ld * sizeof(double));
    for (int i = 0; i < n; i++) {
        for (int q = c->sp[i]; q < c->sp[i + 1]; q++)
            if (c->si[q] <= i)
                c->fs[(size_t)(i - c->si[q]) + (size_t)c->si[q] * ld] += c->ahi[q];
        for (int q = c->dp[i]; q < c->dp[i + 1]; q++)
            if (c->di[q] <= i)
                c->fs[(size_t)(i - c->di[q]) + (size_t)c->di[q] * ld] += c->dv[q];
        for (int q = c->mp[i]; q < c->mp[i + 1]; q++)
            if (c->mi[q] <= i)
                c->fs[(size_t)(i - c->mi[q]) + (size_t)c->mi[q] * ld] -= sigma * c->mv[q];
    }
    kf_error local = {0};
    int piv;
    if (kf_band_cholesky(n, b, c->fs, &piv, &local))
        return 0;
    sfac_from_band(&c->f, n, b, c->fs); /* (room: n bw, kept by set_factor) */
    return 1;
}

/* One instant (D formed): 1 certified (c->thp, c->bdp, c->up; X the next basis), 0 not,
 * < 0 a LAPACK error (its negated status). */
static int instant(kf_eigcont *c, double L, double scale, double tol, int try_asis,
                   kf_eigcont_stats *st, int *refined, kf_error *err)
{
    int n = c->n, p = c->p, k = c->ms, q = c->q, qcur = p, own = 0;
    for (int i = 0; i < n; i++)
        memcpy(c->V + (size_t)i * q, c->X + (size_t)i * p, (size_t)p * sizeof(double));
    for (int it = 1; it <= KF_CONT_MAXIT; it++) {
        st->iterations++;
        int got = rayleigh_ritz(c, qcur, err);
        if (got <= 0)
            return got;
        got = certify_instant(c, L, scale, tol, try_asis, refined);
        if (got == 1) {
            for (int i = 0; i < n; i++) {
                memcpy(c->X + (size_t)i * p, c->up + (size_t)i * k, (size_t)k * sizeof(double));
                memcpy(c->X + (size_t)i * p + k, c->U + (size_t)i * p + k,
                       (size_t)(p - k) * sizeof(double));
            }
            return 1;
        }
        if (got == 2)
            return 0;
        double lo = c->sv[0], spread = c->sv[k - 1] - c->sv[0];
        expand(c);
        qcur = q;
        if (it == KF_CONT_REFACTOR && !own) {
            /* slow here: the instant's own factor, a little below its lowest Ritz value (an
             * upper bound of lambda_1; a Cholesky that fails proves it was not below) */
            double gap = 0.1 * spread > 1e-3 * fabs(lo) ? 0.1 * spread : 1e-3 * fabs(lo);
            if (refactor(c, lo - gap - DBL_MIN)) {
                own = 1;
                st->refactored++;
            }
        }
    }
    return 0;
}

int kf_eigcont_run(kf_eigcont *c, int nt, const double *coef, const double *lower,
                   const double *scale, const kf_eigcont_opts *opt, double *theta, double *bounds,
                   double *U, int *done, kf_eigcont_stats *stats, kf_error *err)
{
    if (!c || !opt || !done || !stats ||
        (nt > 0 && ((c->nterm > 0 && !coef) || !lower || !scale || !theta || !bounds)))
        return kf_fail(err, KF_EINVAL, "", "kf_eigcont_run: NULL argument");
    *done = 0;
    if (nt < 0)
        return kf_fail(err, KF_EINVAL, "frames", "number of instants %d must be >= 0", nt);
    if (!c->have_basis || !c->have_factor)
        return kf_fail(err, KF_EINVAL, "basis", "kf_eigcont_run: set the basis and the factor "
                       "first");
    if (!(opt->tol > 0.0) || !isfinite(opt->tol))
        return kf_fail(err, KF_EINVAL, "tol", "tol = %g must be positive and finite", opt->tol);
    int n = c->n, k = c->ms, nterm = c->nterm;
    for (int t = 0; t < nt; t++) {
        for (int q = 0; q < nterm; q++)
            if (!isfinite(coef[(size_t)t * nterm + q]))
                return kf_fail(err, KF_EINVAL, "coef", "instant %d: coefficient %d = %g is not "
                               "finite", t, q, coef[(size_t)t * nterm + q]);
        if (isnan(lower[t]) || lower[t] == HUGE_VAL)
            return kf_fail(err, KF_EINVAL, "lower", "instant %d: lower bound %g must be a number "
                           "below +inf", t, lower[t]);
        if (!(scale[t] >= 0.0) || !isfinite(scale[t]))
            return kf_fail(err, KF_EINVAL, "scale", "instant %d: scale %g must be >= 0 and finite",
                           t, scale[t]);
    }
    for (int t = 0; t < nt; t++) {
        const double *ct = coef ? coef + (size_t)t * nterm : NULL;
        int same = c->have_prev;
        for (int q = 0; same && q < nterm; q++)
            same = ct[q] == c->cprev[q];
        if (same) {
            stats->repeated++;
        } else {
            form_terms(c, ct);
            int try_asis = stats->refined * 2 <= stats->continued, refined = 0;
            int rc = instant(c, lower[t], scale[t], opt->tol, try_asis, stats, &refined, err);
            if (rc < 0)
                return -rc;
            if (rc == 0) {
                c->have_prev = 0;
                return KF_OK;
            }
            stats->continued++;
            stats->refined += refined;
            if (nterm)
                memcpy(c->cprev, ct, (size_t)nterm * sizeof(double));
            c->have_prev = 1;
        }
        memcpy(theta + (size_t)t * k, c->thp, (size_t)k * sizeof(double));
        memcpy(bounds + (size_t)t * k, c->bdp, (size_t)k * sizeof(double));
        if (U)
            memcpy(U + (size_t)t * n * k, c->up, (size_t)n * k * sizeof(double));
        *done = t + 1;
        if (opt->progress && opt->progress((double)t, opt->progress_params))
            return kf_fail(err, KF_ECALLBACK, "progress", "stopped at instant %d", t);
    }
    return KF_OK;
}
