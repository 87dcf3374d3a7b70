/*
 * kf_eig.c -- frozen-time eigenvalues of a body in a moving frame
 * (docs/theory.md section 3).
 *
 *   (K + K_om(t) [+ K_eps(t)]) phi = lambda M phi,   supports eliminated.
 *
 * M is constant: factor it once, M = L L^T, and work with the standard form
 * A = L^-1 K_eff L^-T (y = L^T phi, so M-orthonormal shapes are orthonormal
 * y).  In these coordinates the invariant blocks become St_ij = L^-1 S_ij L^-T
 * with sum_i St_ii = I, so
 *
 *   A(t) = A0 + sum_ij (WW)_ij St_ij + sum_{i<j} E_ij Gt_ij,
 *   A0 = L^-1 K L^-T,   Gt_ij = St_ij - St_ji (skew).
 *
 * Three facts make a whole crank turn cheap:
 *   1. for planar bodies WW = -omega^2 I, so the centrifugal term is a pure
 *      shift: lambda_k(t) = lambda_k(A0) - omega^2 and the shapes do not move.
 *      A0's eigen-decomposition is computed once, in kf_eig_create;
 *   2. with K_eps the matrix is A0 + N(t) with N skew: by Bauer-Fike (A0 is
 *      normal) every eigenvalue lies within r = ||N||_2 of an eigenvalue of
 *      A0, and when the first ms discs are separated from the rest exactly
 *      ms eigenvalues lie in them and they are the ms lowest by real part.
 *      Shifted subspace iteration from the previous instant's basis then
 *      finds them in one or two steps; converged Ritz pairs in those discs
 *      are certified complete.  Where the certificate does not hold, or the
 *      iteration does not converge, a full dgeev decides;
 *   3. continuing from the previous instant keeps each mode's identity, which
 *      KF_ORDER_TRACKED uses to follow modes through crossings.
 * For spatial bodies (dim 3) W W is a multiple of I only at rest: the
 * centrifugal term D = sum (WW)_ij St_ij changes the shapes.  It is symmetric
 * with -|omega|^2 I <= D <= 0, so by Weyl each eigenvalue lies in
 * [lambda_k(A0) - |omega|^2, lambda_k(A0)] and item 2's certificate holds with
 * r = |omega|^2: a symmetric spatial instant is continued from the previous
 * one's basis, a full dsyevr only where the discs overlap or the iteration
 * fails (with K_eps, dgeev certified against the instant's symmetric part);
 * an instant equal to the one before (a constant spin about any axis) reuses
 * its solution (docs/theory.md section 3.14).
 */
#include "kf_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* Largest reduced system for the dense standard-form solver. */
#define KF_EIG_DENSE_MAX 5000
#define KF_EIG_MAXIT 10

struct kf_eig {
    const kf_body *b;
    int ndof, n, dim, npair;
    int *map;        /* free DOF k -> body DOF (supports), or NULL */
    double *B;       /* or d = B z: basis ndof x n, column-major (kf_eig_create_projected) */
    double *BW;      /* ndof x n workspace for B^T X B */
    double *L;       /* Cholesky factor of M_r, lower, n x n */
    double *A0;      /* L^-1 K_r L^-T */
    double *St[KF_MAX_DIM * KF_MAX_DIM]; /* dim 3 only: L^-1 S_ij L^-T */
    double *Gt[3];   /* skew pairs (0,1), (0,2), (1,2) */
    double *Rt[3];   /* their second-order parts L^-1 (R_ij - R_ji) L^-T, symmetric: a spatial
                      * body whose sections turn to second order (section 2.9), else NULL */
    double *KGt[KF_MAX_KG]; /* KF_EIG_GEOMETRIC: L^-1 KG_k L^-T (NULL for bodies without lateral DOFs) */
    int nkg;         /* coefficients of K_G per instant (kf_body_nkg) */
    int geometric;   /* made with KF_EIG_GEOMETRIC */
    double gnorm[3]; /* their spectral norms */
    int kd;          /* columns of D */
    double *D[3];    /* first-order change of A0's eigenvectors per unit E_ij, n x kd */
    double *lam0;    /* eigenvalues of A0, ascending */
    double *V0;      /* eigenvectors of A0, n x n */
};

static const int pair_i[3] = {0, 0, 1}, pair_j[3] = {1, 2, 2};

int kf_eig_nfree(const kf_eig *e) { return e->n; }

void kf_eig_free(kf_eig *e)
{
    if (!e)
        return;
    free(e->map);
    free(e->B);
    free(e->BW);
    free(e->L);
    free(e->A0);
    for (int k = 0; k < KF_MAX_DIM * KF_MAX_DIM; k++)
        free(e->St[k]);
    for (int k = 0; k < 3; k++) {
        free(e->Gt[k]);
        free(e->Rt[k]);
        free(e->D[k]);
    }
    for (int k = 0; k < KF_MAX_KG; k++)
        free(e->KGt[k]);
    free(e->lam0);
    free(e->V0);
    free(e);
}

/* Dense reduced copy of a body matrix (column-major n x n): the rows and
 * columns of the free DOFs, or B^T X B for a projected context. */
static int reduce(const kf_eig *e, const kf_mat *src, double *out, kf_error *err)
{
    int n = e->n;
    if (!e->B) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                out[i + (size_t)j * n] = kf_mat_get(src, e->map[i], e->map[j]);
        return KF_OK;
    }
    for (int j = 0; j < n; j++)
        kf_mat_gemv(src, 1.0, e->B + (size_t)j * e->ndof, 0.0, e->BW + (size_t)j * e->ndof);
    return kf_la_gemm('T', 'N', n, n, e->ndof, 1.0, e->B, e->ndof, e->BW, e->ndof, 0.0, out, n,
                      err);
}

/* X <- L^-1 X L^-T in place. */
static int to_standard(int n, const double *L, double *X, kf_error *err)
{
    int rc = kf_la_trsm('L', 'N', n, n, L, n, X, n, err);
    if (!rc)
        rc = kf_la_trsm('R', 'T', n, n, L, n, X, n, err);
    return rc;
}

/* Spectral norm of a skew matrix G: sqrt(lambda_max(-G G)). */
static int skew_norm(int n, const double *G, double *norm, kf_error *err)
{
    double *P = kf_calloc((size_t)n * n, sizeof(double));
    double *w = kf_calloc((size_t)n, sizeof(double));
    int lwork, liwork;
    kf_la_syevr_lwork(n, &lwork, &liwork);
    double *work = kf_calloc((size_t)lwork, sizeof(double));
    int *iwork = kf_calloc((size_t)liwork + 2 * (size_t)n, sizeof(int));
    int rc = KF_OK;
    if (!P || !w || !work || !iwork) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen workspace (n = %d)", n);
        goto done;
    }
    rc = kf_la_gemm('N', 'N', n, n, n, -1.0, G, n, G, n, 0.0, P, n, err);
    if (!rc)
        rc = kf_la_syevr(n, P, n, n, n, w, NULL, 1, iwork + liwork, work, lwork, iwork, liwork,
                         err);
    if (!rc)
        *norm = sqrt(w[0] > 0.0 ? w[0] : 0.0);
done:
    free(P);
    free(w);
    free(work);
    free(iwork);
    return rc;
}

/*
 * First-order perturbation of A0's eigenvectors by a skew term c Gt:
 * v_k(c) = v_k + c sum_{j != k} v_j (v_j^T Gt v_k) / (lam_k - lam_j) + O(c^2).
 * D[q] holds those sums for the first kd vectors, so a good starting basis
 * for any eps costs n kd flops; near-equal eigenvalues get no correction
 * (the iteration takes care of them).
 */
static int predictor(kf_eig *e, kf_error *err)
{
    int n = e->n, kd = n < 48 ? n : 48, rc = KF_OK;
    e->kd = kd;
    double *GV = kf_calloc((size_t)n * kd, sizeof(double));
    double *C = kf_calloc((size_t)n * kd, sizeof(double));
    if (!GV || !C)
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen context (n = %d)", n);
    double scale = fabs(e->lam0[0]) > fabs(e->lam0[n - 1]) ? fabs(e->lam0[0]) : fabs(e->lam0[n - 1]);
    for (int q = 0; q < e->npair && !rc; q++) {
        e->D[q] = kf_calloc((size_t)n * kd, sizeof(double));
        if (!e->D[q]) {
            rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen context (n = %d)", n);
            break;
        }
        /* C = V0^T Gt V0[:, :kd], then C_jk /= (lam_k - lam_j), C_kk = 0 */
        rc = kf_la_gemm('N', 'N', n, kd, n, 1.0, e->Gt[q], n, e->V0, n, 0.0, GV, n, err);
        if (!rc)
            rc = kf_la_gemm('T', 'N', n, kd, n, 1.0, e->V0, n, GV, n, 0.0, C, n, err);
        for (int k = 0; k < kd && !rc; k++)
            for (int j = 0; j < n; j++) {
                double gap = e->lam0[k] - e->lam0[j];
                double *c = &C[j + (size_t)k * n];
                *c = (j == k || fabs(gap) <= 1e-10 * scale) ? 0.0 : *c / gap;
            }
        if (!rc)
            rc = kf_la_gemm('N', 'N', n, kd, n, 1.0, e->V0, n, C, n, 0.0, e->D[q], n, err);
    }
    free(GV);
    free(C);
    return rc;
}

/* The context of n free coordinates: the free DOFs of fixed (supports) or
 * d = B z (B ndof x n, column-major); exactly one of fixed and B is given. */
/* out = L^-1 (X_ij - X_ji) L^-T reduced, for the pair p of blocks X (S or R); tmp n x n. */
static int reduce_pair(const kf_eig *e, const kf_mat *X, int p, double *out, double *tmp,
                       kf_error *err)
{
    int d = e->b->dim, n = e->n;
    int rc = reduce(e, &X[pair_i[p] * d + pair_j[p]], out, err);
    if (!rc)
        rc = reduce(e, &X[pair_j[p] * d + pair_i[p]], tmp, err);
    for (size_t k = 0; k < (size_t)n * n && !rc; k++)
        out[k] -= tmp[k];
    return rc ? rc : to_standard(n, e->L, out, err);
}

static int eig_build(kf_eig **out, const kf_body *b, const kf_mat *S, const kf_mat *KG, int n,
                     const unsigned char *fixed, const double *B, int flags, kf_error *err)
{
    *out = NULL;
    int rc = kf_lapack_require(err);
    if (rc)
        return rc;
    kf_eig *e = kf_calloc(1, sizeof *e);
    if (!e)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate an eigen context");
    e->b = b;
    e->ndof = b->ndof;
    e->dim = b->dim;
    e->npair = b->dim == 2 ? 1 : 3;
    e->geometric = (flags & KF_EIG_GEOMETRIC) != 0;
    if (e->geometric && !b->has_geometric) {
        rc = kf_fail(err, KF_EINVAL, "geometric_stiffness",
                     "geometric stiffness needs a straight line body on the frame's x axis "
                     "or a prestress basis (kf_body_set_prestress)");
        goto fail;
    }
    e->nkg = e->geometric ? b->nkg : 0;
    e->n = n;
    if (n == 0) {
        rc = kf_fail(err, KF_EINVAL, "supports", "the supports fix all %d DOFs: nothing can move",
                     b->ndof);
        goto fail;
    }
    if (n > KF_EIG_DENSE_MAX) {
        rc = kf_fail(err, KF_EINVAL, "n_elements",
                     "%d free DOFs exceed the dense eigen solver's limit of %d; use fewer "
                     "elements",
                     n, KF_EIG_DENSE_MAX);
        goto fail;
    }
    size_t nn = (size_t)n * n;
    if (B) {
        e->B = kf_calloc((size_t)b->ndof * n, sizeof(double));
        e->BW = kf_calloc((size_t)b->ndof * n, sizeof(double));
        if (!e->B || !e->BW) {
            rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen context (n = %d)", n);
            goto fail;
        }
        memcpy(e->B, B, (size_t)b->ndof * n * sizeof(double));
    }
    e->map = kf_calloc((size_t)n, sizeof(int));
    e->L = kf_calloc(nn, sizeof(double));
    e->A0 = kf_calloc(nn, sizeof(double));
    e->lam0 = kf_calloc((size_t)n, sizeof(double));
    e->V0 = kf_calloc(nn, sizeof(double));
    for (int p = 0; p < e->npair; p++)
        e->Gt[p] = kf_calloc(nn, sizeof(double));
    /* the blocks of the centrifugal term: spatial bodies, and planar ones whose sections
     * turn to second order (their K_om is no longer -omega^2 M, section 2.9) */
    int nst = b->dim == 3 || b->has_second ? b->dim * b->dim : 0;
    for (int k = 0; k < nst; k++)
        e->St[k] = kf_calloc(nn, sizeof(double));
    if (!e->map || !e->L || !e->A0 || !e->lam0 || !e->V0 || !e->Gt[e->npair - 1] ||
        (nst && !e->St[nst - 1])) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen context (n = %d)", n);
        goto fail;
    }
    for (int k = 0, r = 0; fixed && k < b->ndof; k++)
        if (!fixed[k])
            e->map[r++] = k;

    if ((rc = reduce(e, &b->M, e->L, err)))
        goto fail;
    rc = kf_la_potrf(n, e->L, n, err);
    if (rc) {
        kf_fail(err, rc, B ? "constraints" : "supports",
                "the reduced mass matrix is not positive definite (%s)", err ? err->msg : "");
        goto fail;
    }
    for (int j = 0; j < n; j++) /* keep only the lower triangle */
        for (int i = 0; i < j; i++)
            e->L[i + (size_t)j * n] = 0.0;

    if ((rc = reduce(e, &b->K, e->A0, err)) || (rc = to_standard(n, e->L, e->A0, err)))
        goto fail;
    if (!kf_vec_finite(nn, e->A0)) {
        rc = kf_fail(err, KF_ERANGE, "rho",
                     "the stiffness-to-mass ratio overflows (L^-1 K L^-T is not finite for "
                     "E = %g, rho = %g, A = %g, I = %g): rescale the units", b->sec.E, b->sec.rho,
                     b->sec.A, b->sec.Izz);
        goto fail;
    }
    for (int j = 0; j < n; j++) /* remove round-off asymmetry */
        for (int i = j + 1; i < n; i++) {
            double v = 0.5 * (e->A0[i + (size_t)j * n] + e->A0[j + (size_t)i * n]);
            e->A0[i + (size_t)j * n] = e->A0[j + (size_t)i * n] = v;
        }

    double *tmp = kf_calloc(nn, sizeof(double));
    if (!tmp) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen context (n = %d)", n);
        goto fail;
    }
    for (int p = 0; p < e->npair && !rc; p++) {
        rc = reduce_pair(e, S, p, e->Gt[p], tmp, err);
        if (!rc)
            rc = skew_norm(n, e->Gt[p], &e->gnorm[p], err);
    }
    for (int p = 0; p < e->npair && !rc && b->has_second && b->dim == 3; p++) {
        if (!(e->Rt[p] = kf_calloc(nn, sizeof(double))))
            rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen context (n = %d)", n);
        else
            rc = reduce_pair(e, b->R, p, e->Rt[p], tmp, err);
    }
    for (int k = 0; k < nst && !rc; k++) {
        rc = reduce(e, &S[k], e->St[k], err);
        /* the centrifugal term takes S_ij + R_ij (second-order rotation, section 2.9) */
        if (!rc && b->has_second) {
            rc = reduce(e, &b->R[k], tmp, err);
            for (size_t i = 0; i < nn && !rc; i++)
                e->St[k][i] += tmp[i];
        }
        if (!rc)
            rc = to_standard(n, e->L, e->St[k], err);
    }
    for (int k = 0; k < e->nkg && !rc; k++) {
        if (!KG[k].a) /* no lateral DOFs (a bar): K_G = 0 */
            continue;
        e->KGt[k] = kf_calloc(nn, sizeof(double));
        if (!e->KGt[k]) {
            rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen context (n = %d)", n);
            break;
        }
        rc = reduce(e, &KG[k], e->KGt[k], err);
        if (!rc)
            rc = to_standard(n, e->L, e->KGt[k], err);
    }
    if (!rc) {
        /* the full eigen-decomposition of A0, once */
        memcpy(tmp, e->A0, nn * sizeof(double));
        int lwork, liwork;
        kf_la_syevr_lwork(n, &lwork, &liwork);
        double *work = kf_calloc((size_t)lwork, sizeof(double));
        int *iwork = kf_calloc((size_t)liwork + 2 * (size_t)n, sizeof(int));
        if (!work || !iwork)
            rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen workspace (n = %d)", n);
        else
            rc = kf_la_syevr(n, tmp, n, 1, n, e->lam0, e->V0, n, iwork + liwork, work, lwork,
                             iwork, liwork, err);
        free(work);
        free(iwork);
    }
    free(tmp);
    if (!rc)
        rc = predictor(e, err);
    if (rc)
        goto fail;
    *out = e;
    return KF_OK;
fail:
    kf_eig_free(e);
    return rc;
}

/* eig_build on the body's S_ij and K_G basis, formed as matrices for the time it takes
 * where the body stores nodal masses (docs/theory.md section 3.11) */
static int eig_create(kf_eig **out, const kf_body *b, int n, const unsigned char *fixed,
                      const double *B, int flags, kf_error *err)
{
    if (!b->nodal)
        return eig_build(out, b, b->S, b->KG, n, fixed, B, flags, err);
    *out = NULL;
    kf_mat S[KF_MAX_DIM * KF_MAX_DIM], KG[KF_MAX_KG];
    memset(S, 0, sizeof S);
    memset(KG, 0, sizeof KG);
    int rc = KF_OK;
    for (int k = 0; k < b->dim * b->dim && !rc; k++)
        rc = kf_body_block(b, KF_BLOCK_S, k, &S[k], err);
    for (int k = 0; k < b->nkg && !rc; k++)
        if (b->kgnode[k])
            rc = kf_body_block(b, KF_BLOCK_KG, k, &KG[k], err);
    if (!rc)
        rc = eig_build(out, b, S, KG, n, fixed, B, flags, err);
    for (int k = 0; k < KF_MAX_DIM * KF_MAX_DIM; k++)
        kf_mat_free(&S[k]);
    for (int k = 0; k < KF_MAX_KG; k++)
        kf_mat_free(&KG[k]);
    return rc;
}

int kf_eig_create(kf_eig **out, const kf_body *b, const unsigned char *fixed, int flags,
                  kf_error *err)
{
    if (!out || !b || !fixed)
        return kf_fail(err, KF_EINVAL, "supports", "body and supports must not be NULL");
    int n = 0;
    for (int k = 0; k < b->ndof; k++)
        n += fixed[k] ? 0 : 1;
    return eig_create(out, b, n, fixed, NULL, flags, err);
}

int kf_eig_create_projected(kf_eig **out, const kf_body *b, int nfree, const double *B,
                            int flags, kf_error *err)
{
    if (!out || !b || !B)
        return kf_fail(err, KF_EINVAL, "constraints", "body and basis must not be NULL");
    *out = NULL;
    if (nfree < 1 || nfree > b->ndof)
        return kf_fail(err, KF_EINVAL, "constraints",
                       "constraints leave nfree = %d independent motions; need 1..%d", nfree,
                       b->ndof);
    for (size_t k = 0; k < (size_t)b->ndof * nfree; k++)
        if (!isfinite(B[k]))
            return kf_fail(err, KF_EINVAL, "constraints", "basis entry %zu = %g is not finite",
                           k, B[k]);
    return eig_create(out, b, nfree, NULL, B, flags, err);
}

/* ---------------------------------------------------------------- solve */

/* Everything kf_eig_solve needs, allocated once per call. */
typedef struct {
    int n, p, ms;
    double *A, *LU, *X, *AX, *H, *Z, *wr, *wi, *VR, *work, *tau, *U, *theta_re, *theta_im;
    double *Yprev, *phi, *Xp;
    double *lam_s, *Zs; /* the symmetric part's lowest p + 1 eigenpairs (section 3.14) */
    double *Hc, *Hlu; /* the Rayleigh quotient kept, and its shifted LU (inverse iteration) */
    int *hpiv;
    double *Au; /* a Ritz vector times A */
    double *Hq, *Zq, *wq; /* the Davidson step's projected matrix (q = p + ms), its vectors, values */
    int *ipiv, *iwork, *order, *sel;
    unsigned char *used;
    int lwork, liwork;
} eig_ws;

static void ws_free(eig_ws *w)
{
    free(w->A); free(w->LU); free(w->X); free(w->AX); free(w->H); free(w->Z);
    free(w->wr); free(w->wi); free(w->VR); free(w->work); free(w->tau); free(w->U);
    free(w->theta_re); free(w->theta_im); free(w->Yprev); free(w->phi); free(w->Xp);
    free(w->lam_s); free(w->Zs); free(w->Hc); free(w->Hlu); free(w->hpiv); free(w->Au);
    free(w->Hq); free(w->Zq); free(w->wq);
    free(w->ipiv); free(w->iwork); free(w->order); free(w->sel); free(w->used);
}

static int ws_alloc(eig_ws *w, int n, int p, int ms, int m, kf_error *err)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->p = p;
    w->ms = ms;
    int lg, lo, ls, lis;
    int rc = kf_la_geev_lwork(n, &lg, err);
    if (!rc)
        rc = kf_la_orth_lwork(n, p, &lo, err);
    if (rc)
        return rc;
    kf_la_syevr_lwork(n, &ls, &lis);
    w->lwork = lg > lo ? lg : lo;
    w->lwork = w->lwork > ls ? w->lwork : ls;
    w->liwork = lis + 2 * n;
    size_t nn = (size_t)n * n;
    w->A = kf_calloc(nn, sizeof(double));
    w->LU = kf_calloc(nn, sizeof(double));
    w->VR = kf_calloc(nn, sizeof(double));
    w->X = kf_calloc((size_t)n * p, sizeof(double));
    w->Xp = kf_calloc((size_t)n * p, sizeof(double));
    w->lam_s = kf_calloc((size_t)n, sizeof(double));
    w->Zs = kf_calloc((size_t)n * (p + 1), sizeof(double));
    w->AX = kf_calloc((size_t)n * p, sizeof(double));
    w->U = kf_calloc((size_t)n * ms, sizeof(double));
    w->H = kf_calloc((size_t)p * p, sizeof(double));
    w->Z = kf_calloc((size_t)p * p, sizeof(double));
    w->Hc = kf_calloc((size_t)p * p, sizeof(double));
    w->Hlu = kf_calloc((size_t)p * p, sizeof(double));
    w->hpiv = kf_calloc((size_t)p, sizeof(int));
    w->Au = kf_calloc((size_t)n, sizeof(double));
    w->Hq = kf_calloc((size_t)(p + ms) * (p + ms), sizeof(double));
    w->Zq = kf_calloc((size_t)(p + ms) * (p + ms), sizeof(double));
    w->wq = kf_calloc((size_t)(p + ms), sizeof(double));
    w->wr = kf_calloc((size_t)n, sizeof(double));
    w->wi = kf_calloc((size_t)n, sizeof(double));
    w->theta_re = kf_calloc((size_t)n, sizeof(double));
    w->theta_im = kf_calloc((size_t)n, sizeof(double));
    w->tau = kf_calloc((size_t)p, sizeof(double));
    w->work = kf_calloc((size_t)w->lwork, sizeof(double));
    w->Yprev = kf_calloc((size_t)n * m, sizeof(double));
    w->phi = kf_calloc((size_t)n * m, sizeof(double));
    w->ipiv = kf_calloc((size_t)n, sizeof(int));
    w->iwork = kf_calloc((size_t)w->liwork, sizeof(int));
    w->order = kf_calloc((size_t)n, sizeof(int));
    w->sel = kf_calloc((size_t)m, sizeof(int));
    w->used = kf_calloc((size_t)ms, 1);
    if (!w->A || !w->LU || !w->VR || !w->X || !w->Xp || !w->lam_s || !w->Zs || !w->AX || !w->U || !w->H || !w->Z || !w->Hc || !w->Hlu || !w->hpiv || !w->Au || !w->Hq || !w->Zq || !w->wq || !w->wr ||
        !w->wi || !w->theta_re || !w->theta_im || !w->tau || !w->work || !w->Yprev || !w->phi ||
        !w->ipiv || !w->iwork || !w->order || !w->sel || !w->used) {
        ws_free(w);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the eigen workspace (n = %d)", n);
    }
    return KF_OK;
}

/* order[0..count-1] = indices sorted by (re, im) ascending (insertion sort:
 * count is small or the data nearly sorted). */
static void sort_by_real(int count, const double *re, const double *im, int *order)
{
    for (int k = 0; k < count; k++)
        order[k] = k;
    for (int k = 1; k < count; k++) {
        int v = order[k], j = k - 1;
        while (j >= 0 && (re[order[j]] > re[v] || (re[order[j]] == re[v] && im[order[j]] > im[v]))) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = v;
    }
}

static void normalize(int n, double *x)
{
    double s = kf_nrm2(n, x);
    if (s > 0.0)
        for (int i = 0; i < n; i++)
            x[i] /= s;
}

/*
 * Full dense solve of A (ws->A, destroyed copy): the ms eigenpairs of lowest
 * real part into theta_re/theta_im/U, and a p-dim start basis into X; with
 * vectors 0, the eigenvalues only (U and X are left as they are).
 */
static int full_general(eig_ws *w, int vectors, kf_error *err)
{
    int n = w->n, rc;
    memcpy(w->LU, w->A, (size_t)n * n * sizeof(double));
    rc = kf_la_geev(n, w->LU, n, w->wr, w->wi, vectors ? w->VR : NULL, n, w->work, w->lwork,
                    err);
    if (rc)
        return rc;
    sort_by_real(n, w->wr, w->wi, w->order);
    if (!vectors) {
        for (int k = 0; k < w->ms; k++) {
            w->theta_re[k] = w->wr[w->order[k]];
            w->theta_im[k] = w->wi[w->order[k]];
        }
        return KF_OK;
    }
    int nkeep = w->p > w->ms ? w->p : w->ms;
    for (int k = 0; k < nkeep; k++) {
        int j = w->order[k];
        /* LAPACK stores a complex pair j, j+1 as v(j) = VR(:,j) + i VR(:,j+1) and
         * v(j+1) its conjugate: each member's own column is then the real part
         * (first member) or the imaginary part (second), which together span
         * the pair's real invariant subspace. */
        const double *src = w->VR + (size_t)j * n;
        double *dst = k < w->ms ? w->U + (size_t)k * n : NULL;
        if (dst) {
            memcpy(dst, src, (size_t)n * sizeof(double));
            normalize(n, dst);
            w->theta_re[k] = w->wr[j];
            w->theta_im[k] = w->wi[j];
        }
        if (k < w->p)
            memcpy(w->X + (size_t)k * n, src, (size_t)n * sizeof(double));
    }
    return kf_la_orth(n, w->p, w->X, n, w->tau, w->work, w->lwork, err);
}

/*
 * Shifted subspace iteration on A (ws->A) from the basis in ws->X, with the
 * certificate of the file comment: lam0 are the eigenvalues of the symmetric
 * part, r bounds the skew part.  Returns 1 if ms eigenpairs were found and
 * certified, 0 if not (then the caller solves in full), < 0 on error.
 */
/*
 * Rayleigh-Ritz on the orthonormal basis B (n x p) with the certificate of the
 * file comment: returns 1 if the ms lowest Ritz pairs converged and lie in the
 * union of the first ms discs (then in theta_re/U), 0 if not, < 0 on error.
 */
/* z (p): the eigenvector of the p x p matrix H for its real eigenvalue th, by two steps of
 * inverse iteration from (1, ..., 1) with (H - th I) = LU (partial pivoting; a zero pivot
 * becomes DBL_EPSILON |H|, the usual perturbation).  Scratch: lu (p x p), piv (p). */
static void ritz_vector(int p, const double *H, double th, double *lu, int *piv, double *z)
{
    double hnorm = 0.0;
    for (size_t i = 0; i < (size_t)p * p; i++)
        hnorm = fabs(H[i]) > hnorm ? fabs(H[i]) : hnorm;
    double tiny = DBL_EPSILON * (hnorm > 0.0 ? hnorm : 1.0);
    memcpy(lu, H, (size_t)p * p * sizeof(double));
    for (int i = 0; i < p; i++)
        lu[i + (size_t)i * p] -= th;
    for (int c = 0; c < p; c++) { /* column-major LU, L unit lower */
        int piv_r = c;
        for (int r = c + 1; r < p; r++)
            if (fabs(lu[r + (size_t)c * p]) > fabs(lu[piv_r + (size_t)c * p]))
                piv_r = r;
        piv[c] = piv_r;
        if (piv_r != c)
            for (int k = 0; k < p; k++) {
                double tmp = lu[c + (size_t)k * p];
                lu[c + (size_t)k * p] = lu[piv_r + (size_t)k * p];
                lu[piv_r + (size_t)k * p] = tmp;
            }
        double d = lu[c + (size_t)c * p];
        if (fabs(d) < tiny)
            d = lu[c + (size_t)c * p] = d < 0.0 ? -tiny : tiny;
        for (int r = c + 1; r < p; r++)
            lu[r + (size_t)c * p] /= d;
        for (int k = c + 1; k < p; k++) {
            double f = lu[c + (size_t)k * p];
            if (f != 0.0)
                for (int r = c + 1; r < p; r++)
                    lu[r + (size_t)k * p] -= lu[r + (size_t)c * p] * f;
        }
    }
    for (int i = 0; i < p; i++)
        z[i] = 1.0;
    for (int step = 0; step < 2; step++) {
        for (int c = 0; c < p; c++) { /* P, then L */
            double tmp = z[c];
            z[c] = z[piv[c]];
            z[piv[c]] = tmp;
        }
        for (int c = 0; c < p; c++)
            for (int r = c + 1; r < p; r++)
                z[r] -= lu[r + (size_t)c * p] * z[c];
        for (int c = p - 1; c >= 0; c--) { /* U */
            z[c] /= lu[c + (size_t)c * p];
            for (int r = 0; r < c; r++)
                z[r] -= lu[r + (size_t)c * p] * z[c];
        }
        double s = 0.0;
        for (int i = 0; i < p; i++)
            s = fabs(z[i]) > s ? fabs(z[i]) : s;
        if (!(s > 0.0 && s < HUGE_VAL)) /* overflow or nothing: the residual test refuses it */
            break;
        for (int i = 0; i < p; i++)
            z[i] /= s;
    }
}

/* An orthonormal basis of the n x p X's columns, in place: classical Gram-Schmidt
 * twice ("twice is enough": orthogonal to round-off while the columns are far from
 * dependent), with Householder (kf_la_orth) on the kept copy when a column loses more
 * than 1 - 1e-6 of its length (nearly dependent) or is not finite.  The thin bases of
 * the continuation (p ~ 6) cost LAPACK's QR four times as many instructions in call
 * overhead as in arithmetic.  Scratch: ws->AX (overwritten next by the Rayleigh
 * quotient). */
static int orth_thin(eig_ws *w, double *X, kf_error *err)
{
    int n = w->n, p = w->p;
    memcpy(w->AX, X, (size_t)n * p * sizeof(double));
    for (int j = 0; j < p; j++) {
        /* plain sqrt(x . x): an overflow is not finite and takes the Householder route */
        double *x = X + (size_t)j * n, before = sqrt(kf_dot(n, x, x));
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < j; k++) { /* against all earlier columns, from x as it was */
                const double *q = X + (size_t)k * n;
                w->tau[k] = kf_dot(n, q, x);
            }
            for (int k = 0; k < j; k++) {
                const double *q = X + (size_t)k * n;
                double c = w->tau[k];
                for (int i = 0; i < n; i++)
                    x[i] -= c * q[i];
            }
        }
        double after = sqrt(kf_dot(n, x, x));
        if (!(after > 1e-6 * before) || !(before < HUGE_VAL)) {
            memcpy(X, w->AX, (size_t)n * p * sizeof(double));
            return kf_la_orth(n, p, X, n, w->tau, w->work, w->lwork, err);
        }
        for (int i = 0; i < n; i++)
            x[i] /= after;
    }
    return KF_OK;
}

/* AX = A B (n x n times n x p) and H = B^T AX (p x p), column-major, each entry summed
 * over the inner index in ascending order as the reference dgemm does.  Written out
 * because these are the per-instant products of the continuation, thin (p ~ 6): a
 * reference BLAS spends about 7 instructions per multiply-add on them (callgrind), this
 * loop, which reads each column of A once for all p columns, about 2. */
/* C = A B, A m x k (lda m), B k x c (ldb k), C m x c, column-major: by columns of A,
 * each read once for all c columns (thin products: c ~ 6-18). */
static void thin_nn(int m, int k, int c, const double *restrict A, const double *restrict B,
                    double *restrict C)
{
    memset(C, 0, (size_t)m * c * sizeof(double));
    for (int l = 0; l < k; l++) {
        const double *restrict a = A + (size_t)l * m;
        int j = 0;
        for (; j + 3 < c; j += 4) { /* four columns per pass over a: a[i] loaded once */
            const double b0 = B[l + (size_t)j * k], b1 = B[l + (size_t)(j + 1) * k];
            const double b2 = B[l + (size_t)(j + 2) * k], b3 = B[l + (size_t)(j + 3) * k];
            double *restrict c0 = C + (size_t)j * m, *restrict c1 = c0 + m;
            double *restrict c2 = c1 + m, *restrict c3 = c2 + m;
            for (int i = 0; i < m; i++) {
                const double ai = a[i];
                c0[i] += ai * b0;
                c1[i] += ai * b1;
                c2[i] += ai * b2;
                c3[i] += ai * b3;
            }
        }
        for (; j < c; j++) {
            const double b = B[l + (size_t)j * k];
            double *restrict cj = C + (size_t)j * m;
            for (int i = 0; i < m; i++)
                cj[i] += a[i] * b;
        }
    }
}

/* C = A^T B, A m x r (lda m), B m x c (ldb m), C r x c: dot products of columns, in four
 * partial sums (independent chains). */
static void thin_tn(int m, int r, int c, const double *restrict A, const double *restrict B,
                    double *restrict C)
{
    for (int j = 0; j < c; j++)
        for (int i = 0; i < r; i++) {
            const double *ai = A + (size_t)i * m, *bj = B + (size_t)j * m;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            int l = 0;
            for (; l + 3 < m; l += 4) {
                s0 += ai[l] * bj[l];
                s1 += ai[l + 1] * bj[l + 1];
                s2 += ai[l + 2] * bj[l + 2];
                s3 += ai[l + 3] * bj[l + 3];
            }
            for (; l < m; l++)
                s0 += ai[l] * bj[l];
            C[i + (size_t)j * r] = (s0 + s1) + (s2 + s3);
        }
}

static void rayleigh_quotient(int n, int p, const double *A, const double *B, double *AX,
                              double *H)
{
    thin_nn(n, n, p, A, B, AX);
    thin_tn(n, p, p, B, AX, H);
}

static int ritz_certify(eig_ws *w, const double *B, const double *lam0, double r, double anorm,
                        kf_error *err)
{
    int n = w->n, p = w->p, ms = w->ms, rc;
    rayleigh_quotient(n, p, w->A, B, w->AX, w->H);
    /* the Ritz values alone by dgeev; the ms vectors wanted by inverse iteration on H
     * (dgeev's vectors of all p cost twice as much; a poor vector fails the residual
     * test below, and the full solver takes over) */
    memcpy(w->Hc, w->H, (size_t)p * p * sizeof(double));
    if ((rc = kf_la_geev(p, w->H, p, w->wr, w->wi, NULL, p, w->work, w->lwork, err)))
        return -rc;
    sort_by_real(p, w->wr, w->wi, w->order);
    double top = fabs(w->wr[w->order[ms - 1]]);
    for (int k = 0; k < ms; k++) {
        int j = w->order[k];
        if (w->wi[j] != 0.0) /* a complex Ritz pair: let the full solver handle it */
            return 0;
        double th = w->wr[j], *u = w->U + (size_t)k * n, res2 = 0.0;
        double *z = w->Z + (size_t)k * p;
        ritz_vector(p, w->Hc, th, w->Hlu, w->hpiv, z);
        double *au = w->Au;
        memset(u, 0, (size_t)n * sizeof(double));
        memset(au, 0, (size_t)n * sizeof(double));
        for (int c = 0; c < p; c++) { /* u = B z, A u = AX z, by columns */
            const double *bc = B + (size_t)c * n, *ac = w->AX + (size_t)c * n;
            for (int i = 0; i < n; i++) {
                u[i] += bc[i] * z[c];
                au[i] += ac[i] * z[c];
            }
        }
        for (int i = 0; i < n; i++)
            res2 += (au[i] - th * u[i]) * (au[i] - th * u[i]);
        double unorm = kf_nrm2(n, u), res = sqrt(res2) / unorm;
        /* For a nearly normal A the Ritz value's error is of the order of
         * res^2 / gap, so 1e-8 gives eigenvalues to round-off and shapes to
         * about 1e-8; the second term is the round-off floor of A u. */
        double tol = 1e-8 * (fabs(th) > 1e-3 * top ? fabs(th) : 1e-3 * top) +
                     64.0 * DBL_EPSILON * anorm;
        if (!(res <= tol))
            return 0;
        /* certificate: inside the union of the first ms discs */
        int inside = 0;
        for (int q = 0; q < ms && !inside; q++)
            inside = fabs(th - lam0[q]) <= r + res;
        if (!inside)
            return 0;
        for (int i = 0; i < n; i++)
            u[i] /= unorm;
        w->theta_re[k] = th;
        w->theta_im[k] = 0.0;
    }
    return 1;
}

/*
 * Certified continuation on A (ws->A).  First Rayleigh-Ritz alone on the
 * first-order predicted basis Xp (no factorization: for the small eps of a
 * mechanism this is usually enough); then shifted subspace iteration from the
 * basis in ws->X.  lam0 are the eigenvalues of the symmetric part (at least
 * the p + 1 lowest), snorm bounds its norm, r bounds the skew part.  Returns 1 if ms eigenpairs were found and certified (ws->X
 * then holds the basis to continue from), 0 if not (the caller solves in
 * full), < 0 on error.
 */
static int continuation(eig_ws *w, const double *lam0, double r, double snorm, int *iters,
                        kf_error *err)
{
    int n = w->n, p = w->p, ms = w->ms, rc, got;
    if (ms >= n || p >= n || lam0[ms] - lam0[ms - 1] <= 2.0 * r)
        return 0;
    double anorm = snorm + r;

    if ((rc = orth_thin(w, w->Xp, err)))
        return -rc;
    if ((got = ritz_certify(w, w->Xp, lam0, r, anorm, err)) != 0) {
        if (got > 0)
            memcpy(w->X, w->Xp, (size_t)n * p * sizeof(double));
        return got;
    }

    double lo = lam0[0] - r, span = lam0[ms - 1] - lam0[0];
    double scale = fabs(lam0[0]) > fabs(lam0[p]) ? fabs(lam0[0]) : fabs(lam0[p]);
    double tau = lo - 0.05 * span - 1e-4 * scale - DBL_MIN;
    memcpy(w->LU, w->A, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++)
        w->LU[i + (size_t)i * n] -= tau;
    rc = kf_la_getrf(n, w->LU, n, w->ipiv, err);
    if (rc == KF_ESING)
        return 0;
    if (rc)
        return -rc;
    for (int it = 1; it <= KF_EIG_MAXIT; it++) {
        *iters += 1;
        if ((rc = kf_la_getrs(n, p, w->LU, n, w->ipiv, w->X, n, err)) ||
            (rc = orth_thin(w, w->X, err)))
            return -rc;
        if ((got = ritz_certify(w, w->X, lam0, r, anorm, err)) != 0)
            return got;
    }
    return 0;
}

/*
 * Certified continuation of a symmetric instant by Davidson steps with the at-rest
 * operator (issue 19; docs/theory.md section 3.14): A = A0 + D with A0 = V0 Lambda0 V0^T
 * known, so (A0 - tau I)^-1 = V0 (Lambda0 - tau)^-1 V0^T costs two products and no
 * factorization.  From the orthonormal basis X (n x p, the previous instant's): Ritz
 * pairs of A on X; where the ms lowest are not certified (ritz_certify's residual and
 * Weyl disc tests), the basis [X, C] with C = (A0 - tau I)^-1 R (R the ms residuals) is
 * orthonormalized, A is applied to C only (A X is at hand), and Rayleigh-Ritz on the
 * p + ms columns (dsyevr) gives the next X and A X with no product with A.  One step
 * per instant over a spinning Beam3D's turn where a shifted LU cost 4/3 n^3 / n^2 p more.
 * Scratch: w->LU holds [X, C] and [A X, A C] (n x 2(p + ms) <= n^2, checked by the
 * caller).  Returns 1 (certified: theta_re, U, and X for the next instant), 0, or < 0.
 */
static int davidson(eig_ws *w, const kf_eig *e, const double *lam0, double r, double snorm,
                    int *iters, kf_error *err)
{
    int n = w->n, p = w->p, ms = w->ms, q = p + ms, rc;
    if (ms >= n || p >= n || lam0[ms] - lam0[ms - 1] <= 2.0 * r)
        return 0;
    double anorm = snorm + r;
    double *B = w->LU, *AB = w->LU + (size_t)n * q, *C = B + (size_t)n * p, *AC = AB + (size_t)n * p;
    double lo = lam0[0] - r, span = lam0[ms - 1] - lam0[0];
    double scale = fabs(lam0[0]) > fabs(lam0[p]) ? fabs(lam0[0]) : fabs(lam0[p]);
    double tau = lo - 0.05 * span - 1e-4 * scale - DBL_MIN;
    int lis = w->liwork - 2 * n, *isuppz = w->iwork + lis;
    /* X: the previous instant's Ritz basis, nearly this instant's: its Rayleigh quotients
     * x_k^T A x_k stand for Ritz values in the first residuals (the Rayleigh-Ritz on
     * [X, C] below rotates within X too) */
    thin_nn(n, n, p, w->A, w->X, w->AX);
    for (int k = 0; k < p; k++)
        w->wq[k] = kf_dot(n, w->X + (size_t)k * n, w->AX + (size_t)k * n);
    for (int it = 0; it <= KF_EIG_MAXIT; it++) {
        /* X, A X: the Ritz basis with values wq; certify the ms lowest */
        double top = fabs(w->wq[ms - 1]);
        int ok = it > 0; /* the first pass forms residuals only: Ritz values come next */
        for (int k = 0; k < ms; k++) {
            const double th = w->wq[k], *u = w->X + (size_t)k * n, *au = w->AX + (size_t)k * n;
            double *rk = C + (size_t)k * n, res2 = 0.0;
            for (int i = 0; i < n; i++) {
                rk[i] = au[i] - th * u[i];
                res2 += rk[i] * rk[i];
            }
            double res = sqrt(res2) / kf_nrm2(n, u);
            double tol = 1e-8 * (fabs(th) > 1e-3 * top ? fabs(th) : 1e-3 * top) +
                         64.0 * DBL_EPSILON * anorm;
            int inside = 0;
            for (int j = 0; j < ms && !inside; j++)
                inside = fabs(th - lam0[j]) <= r + res;
            ok &= res <= tol && inside;
        }
        if (ok) {
            for (int k = 0; k < ms; k++) {
                memcpy(w->U + (size_t)k * n, w->X + (size_t)k * n, (size_t)n * sizeof(double));
                normalize(n, w->U + (size_t)k * n);
                w->theta_re[k] = w->wq[k];
                w->theta_im[k] = 0.0;
            }
            return 1;
        }
        if (it == KF_EIG_MAXIT)
            break;
        *iters += 1;
        /* C = V0 (Lambda0 - tau)^-1 V0^T R, the residuals R in C's place */
        double *T = AC; /* n x ms scratch */
        thin_tn(n, n, ms, e->V0, C, T);
        for (int k = 0; k < ms; k++)
            for (int i = 0; i < n; i++)
                T[i + (size_t)k * n] /= e->lam0[i] - tau;
        thin_nn(n, n, ms, e->V0, T, C);
        /* B = [X, C] orthonormal: C against X and itself, twice (X is orthonormal) */
        memcpy(B, w->X, (size_t)n * p * sizeof(double));
        for (int k = 0; k < ms; k++) {
            double *c = C + (size_t)k * n, before = kf_nrm2(n, c);
            for (int pass = 0; pass < 2; pass++)
                for (int j = 0; j < p + k; j++) {
                    const double *b = B + (size_t)j * n;
                    double d = kf_dot(n, b, c);
                    for (int i = 0; i < n; i++)
                        c[i] -= d * b[i];
                }
            double after = kf_nrm2(n, c);
            if (!(after > 1e-10 * before) || !(before < HUGE_VAL))
                return 0; /* the correction is in the basis already: no progress */
            for (int i = 0; i < n; i++)
                c[i] /= after;
        }
        /* A B = [A X, A C]; H = B^T A B */
        memcpy(AB, w->AX, (size_t)n * p * sizeof(double));
        rayleigh_quotient(n, ms, w->A, C, AC, w->Zq); /* A C; Zq scratch */
        thin_tn(n, q, q, B, AB, w->Hq);
        for (int j = 0; j < q; j++)
            for (int i = j + 1; i < q; i++)
                w->Hq[i + (size_t)j * q] = w->Hq[j + (size_t)i * q] =
                    0.5 * (w->Hq[i + (size_t)j * q] + w->Hq[j + (size_t)i * q]);
        if ((rc = kf_la_syevr(q, w->Hq, q, 1, p, w->wq, w->Zq, q, isuppz, w->work, w->lwork,
                              w->iwork, lis, err)))
            return -rc;
        thin_nn(n, q, p, B, w->Zq, w->X);
        thin_nn(n, q, p, AB, w->Zq, w->AX);
    }
    return 0;
}

/* Symmetric dense solve of A (lower part): lowest ms eigenpairs. */
static int full_symmetric(eig_ws *w, kf_error *err)
{
    int n = w->n;
    memcpy(w->LU, w->A, (size_t)n * n * sizeof(double));
    int rc = kf_la_syevr(n, w->LU, n, 1, w->ms, w->theta_re, w->U, n, w->iwork + w->liwork - 2 * n,
                         w->work, w->lwork, w->iwork, w->liwork - 2 * n, err);
    for (int k = 0; k < w->ms; k++)
        w->theta_im[k] = 0.0;
    return rc;
}

/* A += sum_ij WW_ij St_ij.  WW is symmetric and St_ji = St_ij^T (without second-order
 * rotation invariants, section 2.9), so a pair i < j adds
 * WW_ij (St_ij + St_ij^T): read from the one matrix, 6 passes for a spatial body
 * instead of 9 (the column-major transpose stays in cache at the sizes the dense
 * solver takes). */
static void add_centrifugal(int n, int dim, const double *WW, double *const *St, int second,
                            double *A)
{
    if (second) { /* St_ij + R_ij: the second-order parts are not transposes of each other */
        for (int k = 0; k < dim * dim; k++)
            if (WW[k] != 0.0)
                for (size_t i = 0; i < (size_t)n * n; i++)
                    A[i] += WW[k] * St[k][i];
        return;
    }
    for (int a = 0; a < dim; a++)
        for (int b = a; b < dim; b++) {
            double c = WW[a * dim + b];
            const double *S = St[a * dim + b];
            if (c == 0.0)
                continue;
            if (a == b) {
                for (size_t i = 0; i < (size_t)n * n; i++)
                    A[i] += c * S[i];
                continue;
            }
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    A[i + (size_t)j * n] += c * (S[i + (size_t)j * n] + S[j + (size_t)i * n]);
        }
}

/* The arguments kf_eig_solve and kf_eig_gyroscopic share: n_modes, the instants'
 * rates and the axial-force coefficients; and a LAPACK. */
static int check_instants(const kf_eig *e, int nt, const kf_frame *frame, const double *kg,
                          int m, kf_error *err)
{
    int n = e->n;
    if (m < 1 || m > n)
        return kf_fail(err, KF_EINVAL, "n_modes", "n_modes = %d is out of 1..%d (free DOFs)", m,
                       n);
    if (nt < 0)
        return kf_fail(err, KF_EINVAL, "omega", "number of instants %d must be >= 0", nt);
    for (int t = 0; t < nt; t++) {
        int rc = kf_frame_check(e->dim, &frame[t], err);
        if (rc)
            return kf_fail(err, rc, err->arg, "instant %d: %s", t, err->msg);
    }
    if (kg && !e->geometric)
        return kf_fail(err, KF_EINVAL, "geometric_stiffness",
                       "axial forces given, but the eigen context was made without "
                       "KF_EIG_GEOMETRIC");
    for (int t = 0; kg && t < nt; t++)
        for (int k = 0; k < e->nkg; k++)
            if (!isfinite(kg[(size_t)e->nkg * t + k]))
                return kf_fail(err, KF_EINVAL, "axial_force",
                               "instant %d: axial force coefficient c%d = %g must be finite", t,
                               k, kg[(size_t)e->nkg * t + k]);
    return kf_lapack_require(err);
}

/* Nonzero when an entry of the matrix handed to LAPACK is not finite or beyond
 * sqrt(DBL_MAX) = 2^512: its eigensolvers square entries (norms, balancing), so a larger
 * matrix gives eigenvalues that are overflow noise (eps = 1e300 gave -1.7e122 where omega
 * = 1e160 was refused as an overflow; issue 17). */
static int beyond_lapack_max(size_t n, const double *a, double *amax)
{
    double mx = 0.0;
    int bad = 0;
    for (size_t i = 0; i < n; i++) { /* one branch-free pass: the largest magnitude too */
        double v = fabs(a[i]);
        bad |= !(v <= 1.3407807929942597e154); /* 2^512 */
        mx = v > mx ? v : mx;
    }
    *amax = mx;
    return bad;
}

static int beyond_lapack(size_t n, const double *a)
{
    double amax;
    return beyond_lapack_max(n, a, &amax);
}

/* KF_ERANGE naming the instant's rates when a matrix or result of it is not finite. */
static int overflow_at(int t, const kf_frame *f, const char *what, kf_error *err)
{
    return kf_fail(err, KF_ERANGE, "omega",
                   "instant %d: %s overflows the double range (omega = (%g, %g, %g), eps = (%g, "
                   "%g, %g)); the body's stiffness-to-mass scale and the rates are too large "
                   "together", t, what, f->omega[0], f->omega[1], f->omega[2], f->eps[0],
                   f->eps[1], f->eps[2]);
}

/* Nonzero if instant f makes the same matrix A as instant g: the same omega,
 * the same eps where K_eps is included, the same axial force (kf, kg rows or
 * NULL). */
static int same_instant(const kf_frame *f, const kf_frame *g, int include_eps, const double *kf,
                        const double *kg, int nkg)
{
    for (int k = 0; k < 3; k++)
        if (f->omega[k] != g->omega[k] || (include_eps && f->eps[k] != g->eps[k]))
            return 0;
    for (int k = 0; kf && k < nkg; k++)
        if (kf[k] != kg[k])
            return 0;
    return 1;
}

/* Stop a long loop when the caller's progress function says so. */
static int poll(kf_progress_fn *progress, void *params, int t, kf_error *err)
{
    if (progress && progress((double)t, params))
        return kf_fail(err, KF_ECALLBACK, "progress", "stopped at instant %d", t);
    return KF_OK;
}

int kf_eig_nkg(const kf_eig *e) { return e->nkg; }

int kf_eig_solve(const kf_eig *e, int nt, const kf_frame *frame, const double *kg,
                 const kf_eig_opts *opt, double *lam_re, double *lam_im, double *modes,
                 kf_eig_stats *stats, kf_error *err)
{
    if (!e || !opt || (nt > 0 && (!frame || !lam_re || !lam_im)))
        return kf_fail(err, KF_EINVAL, "", "kf_eig_solve: NULL argument");
    int n = e->n, m = opt->n_modes, dim = e->dim;
    int rc = check_instants(e, nt, frame, kg, m, err);
    if (rc)
        return rc;
    int tracked = opt->order == KF_ORDER_TRACKED;
    int ms = tracked ? (m + 2 < n ? m + 2 : n) : m;
    int p = 2 * ms > ms + 4 ? 2 * ms : ms + 4;
    p = p < n ? p : n;
    kf_eig_stats st = {KF_SOLVER_SYMMETRIC, 0, 0, 0, 0};
    eig_ws w;
    if ((rc = ws_alloc(&w, n, p, ms, m, err)))
        return rc;
    size_t nn = (size_t)n * n;
    int have_basis = 0, have_prev = 0;

    for (int t = 0; t < nt; t++) {
        double W[9], E[9], WW[9];
        kf_frame_operators(dim, &frame[t], W, E, WW);
        /* centrifugal part: a pure shift when WW is a multiple of I (and no R_ij) */
        int shift_only = !e->b->has_second;
        double sigma = WW[0];
        for (int i = 0; i < dim; i++)
            for (int j = 0; j < dim; j++)
                if (WW[i * dim + j] != (i == j ? sigma : 0.0))
                    shift_only = 0;
        double cpair[3] = {0, 0, 0}, r = 0.0;
        int skew = 0;
        if (opt->include_eps)
            for (int q = 0; q < e->npair; q++) {
                cpair[q] = E[pair_i[q] * dim + pair_j[q]];
                r += fabs(cpair[q]) * e->gnorm[q];
                skew |= cpair[q] != 0.0;
            }
        if (skew)
            st.solver = KF_SOLVER_GENERAL;

        /* geometric stiffness: a varying symmetric term */
        const double *cg = kg && e->nkg ? kg + (size_t)e->nkg * t : NULL;
        int geo = 0;
        for (int k = 0; cg && k < e->nkg; k++)
            geo |= cg[k] != 0.0 && e->KGt[k] != NULL;
        if (!shift_only)
            sigma = 0.0; /* the centrifugal term goes into the matrix */

        if (t > 0 && same_instant(&frame[t], &frame[t - 1], opt->include_eps, cg,
                                  cg ? cg - e->nkg : NULL, e->nkg)) {
            /* the matrix of the previous instant (a constant spin about any axis):
             * its candidates theta, U are still in the workspace */
            st.reused++;
        } else if (shift_only && !skew && !geo) {
            /* the eigen-decomposition of A0, shifted */
            for (int k = 0; k < ms; k++) {
                w.theta_re[k] = e->lam0[k];
                w.theta_im[k] = 0.0;
                memcpy(w.U + (size_t)k * n, e->V0 + (size_t)k * n, (size_t)n * sizeof(double));
            }
            have_basis = 0;
        } else {
            /* A = A0 [+ sum WW_ij St_ij] [+ sum c_k KGt_k] [+ sum E_ij Gt_ij]; a
             * centrifugal shift sigma stays outside and is added at the end */
            int q0 = 0; /* the first skew pair, added while copying A0 when nothing else is */
            while (q0 < e->npair && cpair[q0] == 0.0)
                q0++;
            if (shift_only && !geo && q0 < e->npair) {
                const double *a0 = e->A0, *g = e->Gt[q0];
                double c = cpair[q0];
                for (size_t i = 0; i < nn; i++)
                    w.A[i] = a0[i] + c * g[i];
                q0++;
            } else {
                memcpy(w.A, e->A0, nn * sizeof(double));
                q0 = 0;
            }
            if (!shift_only)
                add_centrifugal(n, dim, WW, e->St, e->b->has_second, w.A);
            for (int k = 0; geo && k < e->nkg; k++)
                if (cg[k] != 0.0 && e->KGt[k])
                    for (size_t i = 0; i < nn; i++)
                        w.A[i] += cg[k] * e->KGt[k][i];
            for (int q = 0; q < e->npair; q++) /* K_eps's symmetric second-order part */
                if (cpair[q] != 0.0 && e->Rt[q])
                    for (size_t i = 0; i < nn; i++)
                        w.A[i] += cpair[q] * e->Rt[q][i];
            if (skew && !(shift_only && !geo))
                memcpy(w.VR, w.A, nn * sizeof(double)); /* the symmetric part */
            for (int q = q0; q < e->npair; q++)
                if (cpair[q] != 0.0)
                    for (size_t i = 0; i < nn; i++)
                        w.A[i] += cpair[q] * e->Gt[q][i];
            double amax;
            if (beyond_lapack_max(nn, w.A, &amax)) {
                rc = overflow_at(t, &frame[t], "K + K_om + K_eps [+ K_G]", err);
                goto done;
            }
            /* the stiffness of the modes asked for below the rounding of the motion
             * terms (about DBL_EPSILON times their largest entry): no digit of the
             * eigenvalues' real parts is left (eps = 1e25 gave 5.4e8 = 2^29 for a beam's
             * 3.7e8, eps = 1e50 gave -1e34); the reference is the at-rest eigenvalue of
             * the highest mode asked for, at least sqrt(DBL_EPSILON) times the largest
             * (free bodies have zero ones) */
            double scale0 = fmax(fabs(e->lam0[0]), fabs(e->lam0[n - 1]));
            scale0 = fmax(fabs(e->lam0[ms - 1]), sqrt(DBL_EPSILON) * scale0);
            if (DBL_EPSILON * amax > scale0) {
                rc = kf_fail(err, KF_ERANGE, "eps",
                             "instant %d: the motion terms (omega = (%g, %g, %g), eps = (%g, %g, "
                             "%g)) reach %.3g, so large that the stiffness of the modes asked for "
                             "(eigenvalue %.3g at rest) is lost in their rounding: no digit of "
                             "the eigenvalues would be right", t, frame[t].omega[0], frame[t].omega[1],
                             frame[t].omega[2], frame[t].eps[0], frame[t].eps[1],
                             frame[t].eps[2], amax, scale0);
                goto done;
            }
            /* continuation, certified against a known spectrum; a full solve if not */
            int got = 0;
            if (!skew) {
                /* a spatial centrifugal term D = sum WW_ij St_ij is symmetric with
                 * -|omega|^2 I <= D <= 0 (-WW is positive semidefinite with eigenvalues
                 * up to |omega|^2 and sum St_ii = I), so by Weyl lambda_k(A) lies in
                 * [lambda_k(A0) - |omega|^2, lambda_k(A0)]: the certificate of item 2
                 * with r = |omega|^2 (docs/theory.md section 3.14).  Continued from the
                 * previous instant's basis (at-rest modes after a full solve). */
                if (!geo && dim == 3 && p < n) {
                    const double *om = frame[t].omega;
                    double r2 = (om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) * (1.0 + 1e-12);
                    if (!have_basis)
                        memcpy(w.X, e->V0, (size_t)n * p * sizeof(double));
                    memcpy(w.Xp, w.X, (size_t)n * p * sizeof(double));
                    double snorm = fmax(fabs(e->lam0[0]), fabs(e->lam0[n - 1]));
                    /* Davidson steps with the at-rest operator where [X, C] and their images
                     * fit the n x n scratch; else shifted subspace iteration (an LU) */
                    got = 2 * (p + ms) <= n ? davidson(&w, e, e->lam0, r2, snorm, &st.iterations, err)
                                            : continuation(&w, e->lam0, r2, snorm, &st.iterations, err);
                }
            } else if (shift_only && !geo) {
                /* the skew part certified against the spectrum of the symmetric part:
                 * A0's, known, when that is A0 itself (planar shift); A0's eigenvectors,
                 * corrected to first order in E */
                memcpy(w.Xp, e->V0, (size_t)n * p * sizeof(double));
                int kc = p < e->kd ? p : e->kd;
                for (int q = 0; q < e->npair; q++)
                    if (cpair[q] != 0.0)
                        for (size_t i = 0; i < (size_t)n * kc; i++)
                            w.Xp[i] += cpair[q] * e->D[q][i];
                if (!have_basis)
                    memcpy(w.X, w.Xp, (size_t)n * p * sizeof(double));
                double snorm = fmax(fabs(e->lam0[0]), fabs(e->lam0[n - 1]));
                got = continuation(&w, e->lam0, r, snorm, &st.iterations, err);
            } else if (p < n) {
                /* certified against this instant's own symmetric part S (a spatial
                 * centrifugal term, K_G): its p + 1 lowest eigenpairs by dsyevr,
                 * the p lowest vectors the predicted basis (section 3.14) */
                double snorm = 0.0;
                for (size_t i = 0; i < nn; i++)
                    snorm += w.VR[i] * w.VR[i];
                snorm = sqrt(snorm); /* Frobenius >= spectral */
                rc = kf_la_syevr(n, w.VR, n, 1, p + 1, w.lam_s, w.Zs, n,
                                 w.iwork + w.liwork - 2 * n, w.work, w.lwork, w.iwork,
                                 w.liwork - 2 * n, err);
                if (rc)
                    goto done;
                memcpy(w.Xp, w.Zs, (size_t)n * p * sizeof(double));
                if (!have_basis)
                    memcpy(w.X, w.Xp, (size_t)n * p * sizeof(double));
                got = continuation(&w, w.lam_s, r, snorm, &st.iterations, err);
            }
            if (got < 0) {
                rc = -got;
                goto done;
            }
            if (got) {
                st.continued++;
                have_basis = 1;
            } else if (!skew) {
                rc = full_symmetric(&w, err);
                st.full_solves++;
                have_basis = 0;
            } else {
                /* the eigenvectors serve the shapes, the tracking and, for a planar
                 * body, the next instant's continuation (a spatial body's next
                 * instant starts from its symmetric part's eigenvectors) */
                int vec = opt->vectors || tracked || dim == 2;
                rc = full_general(&w, vec, err);
                st.full_solves++;
                have_basis = vec;
            }
            if (rc)
                goto done;
        }

        /* choose m of the ms candidates: ascending, or following the previous shapes */
        int *sel = w.sel;
        for (int k = 0; k < m; k++)
            sel[k] = tracked && have_prev ? -1 : k;
        if (tracked && have_prev) {
            memset(w.used, 0, (size_t)ms);
            for (int round = 0; round < m; round++) { /* greedy: largest overlap first */
                double best = -1.0;
                int bk = 0, bc = 0;
                for (int k = 0; k < m; k++)
                    for (int c = 0; c < ms; c++) {
                        if (sel[k] >= 0 || w.used[c])
                            continue;
                        double o = fabs(kf_dot(n, w.Yprev + (size_t)k * n, w.U + (size_t)c * n));
                        if (o > best) {
                            best = o;
                            bk = k;
                            bc = c;
                        }
                    }
                sel[bk] = bc;
                w.used[bc] = 1;
            }
        }
        for (int k = 0; k < m; k++) {
            int c = sel[k];
            double *y = w.phi + (size_t)k * n;
            memcpy(y, w.U + (size_t)c * n, (size_t)n * sizeof(double));
            lam_re[(size_t)t * m + k] = w.theta_re[c] + sigma;
            lam_im[(size_t)t * m + k] = w.theta_im[c];
        }
        if (!kf_vec_finite((size_t)m, lam_re + (size_t)t * m) ||
            !kf_vec_finite((size_t)m, lam_im + (size_t)t * m)) {
            rc = overflow_at(t, &frame[t], "an eigenvalue", err);
            goto done;
        }
        /* signs: follow the previous instant when tracking, else make the
         * largest component of phi positive (below) */
        if (tracked && have_prev)
            for (int k = 0; k < m; k++) {
                double *y = w.phi + (size_t)k * n;
                if (kf_dot(n, y, w.Yprev + (size_t)k * n) < 0.0)
                    for (int i = 0; i < n; i++)
                        y[i] = -y[i];
            }
        memcpy(w.Yprev, w.phi, (size_t)n * m * sizeof(double));
        have_prev = 1;
        if (modes) {
            /* phi = L^-T y, scattered to all DOFs */
            if ((rc = kf_la_trsm('L', 'T', n, m, e->L, n, w.phi, n, err)))
                goto done;
            double *out = modes + (size_t)t * e->ndof * m;
            int nd = e->ndof;
            memset(out, 0, (size_t)nd * m * sizeof(double));
            for (int k = 0; k < m; k++) {
                /* over all DOFs: scattered to the free ones, or B z */
                const double *ph = w.phi + (size_t)k * n;
                if (e->B)
                    for (int r = 0; r < nd; r++) {
                        double v = 0.0;
                        for (int i = 0; i < n; i++)
                            v += e->B[r + (size_t)i * nd] * ph[i];
                        out[(size_t)r * m + k] = v;
                    }
                else
                    for (int i = 0; i < n; i++)
                        out[(size_t)e->map[i] * m + k] = ph[i];
                if (tracked && t > 0)
                    continue;
                /* the first component within 1e-9 of the largest magnitude is made
                 * positive (a rule that ties cannot make ambiguous) */
                double big = 0.0, sgn = 1.0;
                for (int r = 0; r < nd; r++)
                    big = fabs(out[(size_t)r * m + k]) > big ? fabs(out[(size_t)r * m + k]) : big;
                for (int r = 0; r < nd; r++)
                    if (fabs(out[(size_t)r * m + k]) >= (1.0 - 1e-9) * big) {
                        sgn = out[(size_t)r * m + k] < 0.0 ? -1.0 : 1.0;
                        break;
                    }
                if (sgn < 0.0) {
                    double *y = w.Yprev + (size_t)k * n;
                    for (int i = 0; i < n; i++)
                        y[i] = -y[i];
                    for (int r = 0; r < nd; r++)
                        out[(size_t)r * m + k] = -out[(size_t)r * m + k];
                }
            }
        }
        if ((rc = poll(opt->progress, opt->progress_params, t, err)))
            goto done;
    }
done:
    ws_free(&w);
    if (stats)
        *stats = st;
    return rc;
}

/* ================================================================ gyroscopic eigenvalues (issue 4)
 *
 * s^2 M + s C + K_eff = 0 in the standard coordinates of the context
 * (y = L^T phi, so M -> I, K_eff -> A(t) as in kf_eig_solve, and
 * C -> Ct = 2 sum_{i<j} W_ij Gt_ij, skew), as the first-order system
 *
 *     z' = [0 I; -A -Ct] z,   z = (y, y'),
 *
 * solved by dgeev at each instant (2n x 2n; no continuation: this is the
 * slow, complete route for the few instants a user asks about).
 */
int kf_eig_gyroscopic(const kf_eig *e, int nt, const kf_frame *frame, const double *kg,
                      const kf_eig_opts *opt, double *s_re, double *s_im, kf_error *err)
{
    if (!e || !opt || (nt > 0 && (!frame || !s_re || !s_im)))
        return kf_fail(err, KF_EINVAL, "", "kf_eig_gyroscopic: NULL argument");
    int n = e->n, m = opt->n_modes, dim = e->dim, n2 = 2 * e->n;
    int rc = check_instants(e, nt, frame, kg, m, err);
    if (rc)
        return rc;
    int lwork = 0;
    if ((rc = kf_la_geev_lwork(n2, &lwork, err)))
        return rc;
    size_t nn = (size_t)n * n, zz = (size_t)n2 * n2;
    double *A = kf_calloc(nn, sizeof(double));
    double *Z = kf_calloc(zz, sizeof(double));
    double *wr = kf_calloc((size_t)n2, sizeof(double));
    double *wi = kf_calloc((size_t)n2, sizeof(double));
    double *mag = kf_calloc((size_t)n2, sizeof(double));
    double *work = kf_calloc((size_t)lwork, sizeof(double));
    int *order = kf_calloc((size_t)n2, sizeof(int));
    if (!A || !Z || !wr || !wi || !mag || !work || !order) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the gyroscopic workspace (n = %d)", n);
        goto done;
    }
    for (int t = 0; t < nt && !rc; t++) {
        double W[9], E[9], WW[9];
        kf_frame_operators(dim, &frame[t], W, E, WW);
        /* A = A0 + centrifugal (+ K_eps), as kf_eig_solve builds it */
        memcpy(A, e->A0, nn * sizeof(double));
        if (dim == 3 || e->b->has_second) {
            for (int k = 0; k < dim * dim; k++)
                if (WW[k] != 0.0)
                    for (size_t i = 0; i < nn; i++)
                        A[i] += WW[k] * e->St[k][i];
        } else {
            for (int i = 0; i < n; i++) /* planar: WW = -omega^2 I */
                A[i + (size_t)i * n] += WW[0];
        }
        if (opt->include_eps)
            for (int q = 0; q < e->npair; q++) {
                double c = E[pair_i[q] * dim + pair_j[q]];
                if (c != 0.0)
                    for (size_t i = 0; i < nn; i++)
                        A[i] += c * (e->Gt[q][i] + (e->Rt[q] ? e->Rt[q][i] : 0.0));
            }
        for (int k = 0; kg && k < e->nkg; k++) /* + K_G */
            for (size_t i = 0; e->KGt[k] && i < nn; i++)
                A[i] += kg[(size_t)e->nkg * t + k] * e->KGt[k][i];
        /* Z = [0 I; -A -Ct], column-major 2n x 2n */
        memset(Z, 0, zz * sizeof(double));
        for (int j = 0; j < n; j++) {
            Z[j + (size_t)(n + j) * n2] = 1.0;
            for (int i = 0; i < n; i++)
                Z[(n + i) + (size_t)j * n2] = -A[i + (size_t)j * n];
        }
        for (int q = 0; q < e->npair; q++) {
            double c = 2.0 * W[pair_i[q] * dim + pair_j[q]];
            if (c != 0.0)
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++)
                        Z[(n + i) + (size_t)(n + j) * n2] -= c * e->Gt[q][i + (size_t)j * n];
        }
        if (beyond_lapack(zz, Z)) {
            rc = overflow_at(t, &frame[t], "the first-order matrix [0 I; -K_eff -C]", err);
            break;
        }
        if ((rc = kf_la_geev(n2, Z, n2, wr, wi, NULL, 1, work, lwork, err)))
            break;
        /* the upper half-plane (a real eigenvalue counts as its own), by |s| */
        int cnt = 0;
        for (int i = 0; i < n2; i++)
            if (wi[i] >= 0.0) {
                order[cnt] = i;
                mag[i] = hypot(wr[i], wi[i]);
                cnt++;
            }
        for (int a = 1; a < cnt; a++) { /* insertion sort by |s|, then by Re s */
            int v = order[a], b = a - 1;
            while (b >= 0 && (mag[order[b]] > mag[v] ||
                              (mag[order[b]] == mag[v] && wr[order[b]] > wr[v]))) {
                order[b + 1] = order[b];
                b--;
            }
            order[b + 1] = v;
        }
        if (cnt < m) { /* cannot happen: 2n eigenvalues, conjugate pairs */
            rc = kf_fail(err, KF_ELAPACK, "", "dgeev returned %d eigenvalues with Im >= 0 "
                         "(< n_modes = %d)", cnt, m);
            break;
        }
        for (int k = 0; k < m; k++) {
            s_re[(size_t)t * m + k] = wr[order[k]];
            s_im[(size_t)t * m + k] = wi[order[k]];
        }
        if (!kf_vec_finite((size_t)m, s_re + (size_t)t * m) ||
            !kf_vec_finite((size_t)m, s_im + (size_t)t * m))
            rc = overflow_at(t, &frame[t], "an eigenvalue", err);
        else
            rc = poll(opt->progress, opt->progress_params, t, err);
    }
done:
    free(A);
    free(Z);
    free(wr);
    free(wi);
    free(mag);
    free(work);
    free(order);
    return rc;
}

/* ================================================================ compensated products (issue 19)
 *
 * Ogita, Rump & Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26 (2005):
 * Dot2 forms a dot product as if in twice the working precision from error-free
 * transformations: TwoProduct (Dekker's split into 26-bit halves, whose products are
 * exact) and TwoSum (Knuth).  Each operation below is its own statement, and no product
 * meets a sum in one expression except where the product is exact (the split halves'),
 * so a compiler that contracts a * b + c into one fused operation (allowed within an
 * expression by C11's FP_CONTRACT) changes no result.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define KF_SPLITTER 134217729.0 /* 2^27 + 1 */

int kf_csr_dot2(int n, int ncol, const int *indptr, const int *indices, const double *values,
                int k, const double *X, const double *Xlo, double *y, double *err,
                kf_error *errinfo)
{
    if (n < 0 || ncol < 0 || k < 0)
        return kf_fail(errinfo, KF_EINVAL, "A", "kf_csr_dot2: shape (%d, %d) x %d columns", n,
                       ncol, k);
    if (!indptr || (n > 0 && k > 0 && (!y || !X)))
        return kf_fail(errinfo, KF_EINVAL, "A", "kf_csr_dot2: NULL argument");
    if (indptr[0] != 0)
        return kf_fail(errinfo, KF_EINVAL, "A", "indptr[0] = %d must be 0", indptr[0]);
    for (int i = 0; i < n; i++)
        if (indptr[i + 1] < indptr[i])
            return kf_fail(errinfo, KF_EINVAL, "A", "indptr[%d] = %d < indptr[%d] = %d", i + 1,
                           indptr[i + 1], i, indptr[i]);
    if (n > 0 && indptr[n] > 0 && (!indices || !values))
        return kf_fail(errinfo, KF_EINVAL, "A", "kf_csr_dot2: NULL argument");
    for (int q = 0; n > 0 && q < indptr[n]; q++)
        if (indices[q] < 0 || indices[q] >= ncol)
            return kf_fail(errinfo, KF_EINVAL, "A", "indices[%d] = %d is out of 0..%d", q,
                           indices[q], ncol - 1);
    if (k == 0 || n == 0)
        return KF_OK;
    /* per row: s (y), c (the compensation), |A| |X|, |A| |Xlo| and A Xlo */
    double *scr = kf_calloc((size_t)4 * k, sizeof(double));
    if (!scr)
        return kf_fail(errinfo, KF_ENOMEM, "", "kf_csr_dot2: cannot allocate %d doubles", 4 * k);
    double *restrict c = scr, *restrict absh = scr + k, *restrict absl = scr + 2 * (size_t)k;
    double *restrict t = scr + 3 * (size_t)k;
    const double u = DBL_EPSILON / 2.0;
    for (int i = 0; i < n; i++) {
        double *restrict s = y + (size_t)i * k;
        for (int j = 0; j < k; j++)
            s[j] = c[j] = absh[j] = absl[j] = t[j] = 0.0;
        for (int q = indptr[i]; q < indptr[i + 1]; q++) {
            const double a = values[q];
            const double ca = KF_SPLITTER * a;
            const double ca2 = ca - a;
            const double ah = ca - ca2;
            const double al = a - ah;
            const double aa = fabs(a);
            const double *restrict x = X + (size_t)indices[q] * k;
            for (int j = 0; j < k; j++) {
                const double b = x[j];
                const double cb = KF_SPLITTER * b;
                const double cb2 = cb - b;
                const double bh = cb - cb2;
                const double bl = b - bh;
                const double p = a * b;
                /* TwoProduct: e = a b - p exactly (each partial product is exact) */
                const double hh = ah * bh;
                const double e1 = hh - p;
                const double hl = ah * bl;
                const double e2 = e1 + hl;
                const double lh = al * bh;
                const double e3 = e2 + lh;
                const double ll = al * bl;
                const double e = e3 + ll;
                /* TwoSum: s + p = sn + f exactly */
                const double s0 = s[j];
                const double sn = s0 + p;
                const double z = sn - s0;
                const double f = (s0 - (sn - z)) + (p - z);
                s[j] = sn;
                c[j] += f + e;
                absh[j] += aa * fabs(b);
            }
            if (Xlo) {
                const double *restrict xl = Xlo + (size_t)indices[q] * k;
                for (int j = 0; j < k; j++) {
                    t[j] += a * xl[j];
                    absl[j] += aa * fabs(xl[j]);
                }
            }
        }
        const double L = (double)(indptr[i + 1] - indptr[i]);
        const double gL = L * u / (1.0 - L * u), gL2 = (L + 2.0) * u / (1.0 - (L + 2.0) * u);
        double *restrict ei = err ? err + (size_t)i * k : NULL;
        for (int j = 0; j < k; j++) {
            const double cj = c[j] + t[j];
            const double yj = s[j] + cj;
            s[j] = yj;
            if (ei)
                ei[j] = u * fabs(yj) + gL * gL * absh[j] + gL2 * absl[j] + 2.0 * u * fabs(cj);
        }
    }
    free(scr);
    return KF_OK;
}

/* ---------------------------------------------------------------- band Cholesky (issue 19)
 * The line bodies' shift-invert factor: a band of half-width b (5 planar, 11 spatial
 * beams), where a sparse direct solver's setup costs 20-50 times the O(n b^2) work and
 * LAPACK's dpbtrs spends 60 us per right-hand side on a 3000-row band of width 5 (its
 * level-2 calls on short columns); these loops run over the right-hand sides
 * innermost. */
int kf_band_cholesky(int n, int b, double *ab, int *pivot, kf_error *err)
{
    if (pivot)
        *pivot = -1;
    if (n < 0 || b < 0 || (n > 0 && !ab))
        return kf_fail(err, KF_EINVAL, "A", "kf_band_cholesky: order %d, half-bandwidth %d", n, b);
    const size_t ld = (size_t)b + 1;
    for (int j = 0; j < n; j++) {
        double *cj = ab + (size_t)j * ld; /* column j: L(j + d, j) at cj[d] */
        int k0 = j - b > 0 ? j - b : 0;
        /* left-looking: column j -= sum_k L(j.., k) L(j, k) over the previous b columns */
        for (int k = k0; k < j; k++) {
            const double *ck = ab + (size_t)k * ld;
            const double ljk = ck[j - k];
            int top = k + b < n - 1 ? k + b : n - 1; /* rows j..top of column k */
            for (int i = j; i <= top; i++)
                cj[i - j] -= ck[i - k] * ljk;
        }
        double d = cj[0];
        if (!(d > 0.0) || !isfinite(d)) {
            if (pivot)
                *pivot = j;
            return kf_fail(err, KF_ENOTPD, "A",
                           "the band matrix is not positive definite (pivot %d = %g)", j, d);
        }
        d = sqrt(d);
        cj[0] = d;
        int rows = n - 1 - j < b ? n - 1 - j : b;
        for (int i = 1; i <= rows; i++)
            cj[i] /= d;
    }
    return KF_OK;
}

int kf_band_cholesky_solve(int n, int b, const double *ab, int k, double *restrict B, kf_error *err)
{
    if (n < 0 || b < 0 || k < 0 || (n > 0 && k > 0 && (!ab || !B)))
        return kf_fail(err, KF_EINVAL, "A", "kf_band_cholesky_solve: order %d, half-bandwidth %d, "
                       "%d right-hand sides", n, b, k);
    const size_t ld = (size_t)b + 1;
    /* dot-product form, each unknown summed in registers (blocks of KF_BAND_RHS
     * right-hand sides): L Y = B row by row, then L^T X = Y from the last row.  An update
     * form's read-modify-write of the rows below chains every unknown through memory,
     * and a division in the chain costs 4 multiplications' latency: the reciprocal of
     * the pivot does not depend on the unknowns, so it is formed off the chain, and the
     * unknown found last enters last (the other b - 1 terms are summed while it is being
     * found: one multiply-add per row on the chain, not b). */
    enum { KF_BAND_RHS = 8 };
    double acc[KF_BAND_RHS];
    for (int c0 = 0; c0 < k; c0 += KF_BAND_RHS) {
        const int w = k - c0 < KF_BAND_RHS ? k - c0 : KF_BAND_RHS;
        for (int i = 0; i < n; i++) {
            const int d0 = i < b ? i : b;
            double *xi = B + (size_t)i * k + c0;
            const double inv = 1.0 / ab[(size_t)i * ld];
            for (int c = 0; c < w; c++)
                acc[c] = xi[c];
            for (int d = d0; d >= 1; d--) { /* L(i, i - d) = ab[d + (i - d) ld] */
                const double l = ab[(size_t)d + (size_t)(i - d) * ld];
                const double *xj = B + (size_t)(i - d) * k + c0;
                for (int c = 0; c < w; c++)
                    acc[c] -= l * xj[c];
            }
            for (int c = 0; c < w; c++)
                xi[c] = acc[c] * inv;
        }
        for (int j = n - 1; j >= 0; j--) {
            const double *cj = ab + (size_t)j * ld;
            const int rows = n - 1 - j < b ? n - 1 - j : b;
            double *xj = B + (size_t)j * k + c0;
            const double inv = 1.0 / cj[0];
            for (int c = 0; c < w; c++)
                acc[c] = xj[c];
            for (int d = rows; d >= 1; d--) {
                const double l = cj[d];
                const double *xi = B + (size_t)(j + d) * k + c0;
                for (int c = 0; c < w; c++)
                    acc[c] -= l * xi[c];
            }
            for (int c = 0; c < w; c++)
                xj[c] = acc[c] * inv;
        }
    }
    return KF_OK;
}
