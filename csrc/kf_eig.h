/*
 * kf_eig.h -- frozen-time, projected and gyroscopic eigenvalues.
 * Part of the kanefem public C API; implementation: csrc/kf_eig.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_EIG_H
#define KF_EIG_H

#include "kf_core.h"
#include "kf_body.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- eigenvalues */

/*
 * Frozen-time eigenvalues lambda of (K + K_om(t) [+ K_eps(t)]) phi = lambda M phi
 * for a body with some DOFs fixed (supports).  A kf_eig holds what does not
 * change with time: the reduced matrices, the Cholesky factor L of M, the
 * standard-form matrices L^-1 K L^-T (and of the other invariant blocks) and
 * the eigen-decomposition of the constant part.  Create it once per body and
 * support set; kf_eig_solve is then cheap per instant and does not modify it.
 */
typedef struct kf_eig kf_eig;

/* flags: KF_EIG_GEOMETRIC also prepares the geometric stiffness basis (costs
 * three more n x n matrices), needed to pass kg to kf_eig_solve. */
enum { KF_EIG_GEOMETRIC = 1 };
int kf_eig_create(kf_eig **out, const kf_body *b, const unsigned char *fixed, int flags,
                  kf_error *err);
void kf_eig_free(kf_eig *e);
/* Number of free DOFs. */
int kf_eig_nfree(const kf_eig *e);

enum kf_eig_order { KF_ORDER_ASCENDING = 0, KF_ORDER_TRACKED = 1 };
enum kf_eig_solver { KF_SOLVER_SYMMETRIC = 0, KF_SOLVER_GENERAL = 1 };

typedef struct kf_eig_opts {
    int n_modes;      /* 1..nfree */
    int include_eps;  /* add K_eps (non-symmetric) */
    int vectors;      /* compute mode shapes */
    int order;        /* KF_ORDER_ASCENDING, or KF_ORDER_TRACKED (follow modes by shape) */
    kf_progress_fn *progress; /* called after each instant with its index (may be NULL) */
    void *progress_params;
} kf_eig_opts;

typedef struct kf_eig_stats {
    int solver;         /* KF_SOLVER_SYMMETRIC or KF_SOLVER_GENERAL */
    int full_solves;    /* instants solved by a full (dense) eigen decomposition */
    int continued;      /* instants solved by continuation from the previous one */
    int iterations;     /* subspace iterations spent in continuation */
    int reused;         /* instants equal to the one before (the same omega, eps where
                         * included, and axial force: a constant spin), whose solution
                         * was reused */
} kf_eig_stats;

/*
 * Solve at nt instants (frame[0..nt-1]), with K_G from the axial-force
 * coefficients kg[nkg t .. nkg t + nkg - 1] (kf_eig_nkg; see kf_body_geometric) added when kg is not
 * NULL (the context must have been made with KF_EIG_GEOMETRIC); results:
 *   lam_re, lam_im: nt x n_modes (row-major), ascending by real part (or
 *                   tracked); lam_im is zero unless K_eps makes a pair complex;
 *   modes:          nt x ndof x n_modes (row-major), all DOFs, zero at the
 *                   supports, mass-normalized (phi^T M phi = 1), or NULL.
 * Instants are solved in order, each continuing from the previous one where
 * that is certified (see kf_eig.c), with a full solve otherwise.
 */
/* The number of K_G coefficients per instant (the row length of kg; 0 without K_G). */
int kf_eig_nkg(const kf_eig *e);

int kf_eig_solve(const kf_eig *e, int nt, const kf_frame *frame, const double *kg,
                 const kf_eig_opts *opt, double *lam_re, double *lam_im, double *modes, kf_eig_stats *stats,
                 kf_error *err);

/*
 * A frozen-time eigen context for a body whose DOFs are d = B z (Maggi's
 * projection: the matrices become B^T X B), B of ndof x nfree, column-major,
 * full column rank (e.g. from kf_null_basis); flags as for kf_eig_create.
 * kf_eig_solve then works as for supports; mode shapes are returned over all
 * DOFs, phi = B z.
 */
int kf_eig_create_projected(kf_eig **out, const kf_body *b, int nfree, const double *B,
                            int flags, kf_error *err);

/* ---------------------------------------------------------------- gyroscopic eigenvalues
 * (issue 4; implemented at the end of csrc/kf_eig.c)
 *
 * The complex eigenvalues s of (s^2 M + s C(t) + K_eff(t)) phi = 0 at nt
 * instants, C = 2 sum W_ij S_ij the Coriolis matrix, K_eff = K + K_om [+ K_eps]
 * [+ K_G], by dgeev on the first-order form of size 2n in the standard
 * coordinates of the context (M = I there).  kg: as for kf_eig_solve (NULL
 * for none).  Per instant the n_modes eigenvalues with Im s >= 0 of smallest
 * |s| (a real pair, from a divergent mode, counts twice), ascending by |s|:
 * s_re, s_im are nt x n_modes, row-major.  Without C (omega = 0), s = +-i
 * sqrt(lambda) of kf_eig_solve.
 */
int kf_eig_gyroscopic(const kf_eig *e, int nt, const kf_frame *frame, const double *kg,
                      const kf_eig_opts *opt, double *s_re, double *s_im, kf_error *err);

/* ---------------------------------------------------------------- compensated products
 * (issue 19; docs/theory.md section 3.17)
 *
 * Y = A (X + Xlo) for a CSR matrix A (n rows, ncol columns: indptr[0..n], indices and
 * values[0..indptr[n]-1]) and a block of k columns, X and Xlo ncol x k row-major (the k
 * entries of a row contiguous; Xlo may be NULL: zero), with A X in twice the working
 * precision (Ogita, Rump & Oishi 2005, Dot2: error-free products by Dekker's split,
 * error-free sums) and A Xlo in the working precision.  Results, n x k row-major:
 *   y   = the product rounded once;
 *   err = an elementwise bound on |y - A (X + Xlo)|, the exact product:
 *         u |y| + gamma_L^2 (|A| |X|) + gamma_{L+2} (|A| |Xlo|) + 2u |c|, with u the unit
 *         roundoff, L the row's stored entries, gamma_j = j u / (1 - j u), c the row's
 *         compensation term (err may be NULL).
 * Indices are checked (KF_EINVAL naming the entry).  No allocation.
 */
int kf_csr_dot2(int n, int ncol, const int *indptr, const int *indices, const double *values,
                int k, const double *X, const double *Xlo, double *y, double *err,
                kf_error *errinfo);

/*
 * Band Cholesky A = L L^T of a symmetric positive definite matrix of order n and
 * half-bandwidth b, in place in LAPACK's lower band layout: ab[d + j (b + 1)] =
 * A(j + d, j) for 0 <= d <= b (column j's diagonal first), overwritten by L.  It exists
 * exactly when A is positive definite (Sylvester's inertia): a pivot <= 0 (or not
 * finite) returns KF_ENOTPD with *pivot its index (else *pivot = -1).  O(n b^2).
 */
int kf_band_cholesky(int n, int b, double *ab, int *pivot, kf_error *err);
/* Solve L L^T X = B in place for k right-hand sides, B n x k row-major (a row's k
 * entries contiguous), with kf_band_cholesky's factor.  O(n b k). */
int kf_band_cholesky_solve(int n, int b, const double *ab, int k, double *B, kf_error *err);

/* ---------------------------------------------------------------- continuation over a time grid
 * (issue 19; implemented in csrc/kf_eigcont.c; docs/theory.md section 3.17)
 *
 * The ms lowest eigenpairs of the symmetric pencil
 *
 *     (K + D(t)) u = lambda M u,   D(t) = sum_q c_q(t) T_q   (q < nterm),
 *
 * M positive definite, at a sequence of instants, each continued from the previous one's
 * basis: Rayleigh-Ritz on it, one step of inverse iteration in twice the working precision
 * (the residual by Dot2 over K, kf_csr_dot2's products, the motion terms D in the working
 * precision; K + D is never rounded into one matrix) with a band Cholesky factor F of some
 * K + D(t_F) - sigma M, and a certificate per eigenvalue: the residual in the M^-1 norm
 * (Bauer-Fike for a definite pencil), sharpened by Kato-Temple where the spectrum is known
 * to be complete.  Completeness is proved with a lower bound the caller gives for the
 * (ms+1)-th eigenvalue at each instant (from Weyl brackets): when the ms certified
 * intervals are disjoint and all lie below it, they hold lambda_1 .. lambda_ms.  Where an
 * instant is not certified in a few Davidson steps, F is refactored at that instant; where
 * it still is not, the run stops there for the caller's full solve.  All workspace is made
 * by kf_eigcont_create: a run allocates nothing.
 */
typedef struct kf_eigcont kf_eigcont;

/* A CSR matrix handed to the core (borrowed): n rows, indptr[0..n], sorted column indices
 * and values[0..indptr[n]-1]. */
typedef struct kf_csr {
    int n;
    const int *indptr;
    const int *indices;
    const double *values;
} kf_csr;

/*
 * K, M: n x n, symmetric (M positive definite); P: the terms' common pattern (n x n) and
 * terms[q nnz(P) + k] the value of T_q at P's k-th entry (sum_q c_q T_q symmetric; zeros
 * are dropped); the last nstiff terms are stiff (a geometric stiffness, whose quadratic
 * form cancels as K's does): each instant K + sum c_q T_q over them is summed error-free
 * into a double-double matrix and Dot2 runs over its high part, the other terms (mass-like)
 * stay in the working precision; mf: M's band Cholesky factor (kf_band_cholesky's layout,
 * half-bandwidth bm); p: basis columns (ms < p <= n); ms: wanted pairs.  Everything is
 * copied.
 */
int kf_eigcont_create(kf_eigcont **out, const kf_csr *K, const kf_csr *M, const kf_csr *P,
                      int nterm, int nstiff, const double *terms, int bm, const double *mf, int p,
                      int ms, kf_error *err);
void kf_eigcont_free(kf_eigcont *c);
/* Its order n, basis columns p, wanted pairs ms and number of terms. */
void kf_eigcont_shape(const kf_eigcont *c, int *n, int *p, int *ms, int *nterm);
/* The shift-invert factor F: a band Cholesky factor (half-bandwidth bf) of some
 * K + D(t) - sigma M (copied; any bf, workspace grown here).  Needed before a run. */
int kf_eigcont_set_factor(kf_eigcont *c, int bf, const double *f, kf_error *err);
/* The basis to continue from: X n x p, row-major (copied).  Needed before a run; it
 * also forgets the last instant (a following instant equal to it is solved again). */
int kf_eigcont_set_basis(kf_eigcont *c, const double *X, kf_error *err);

typedef struct kf_eigcont_opts {
    double tol;               /* relative certificate: bound_k <= tol (|theta_k| + scale[t]) */
    kf_progress_fn *progress; /* called after each instant with its index (may be NULL) */
    void *progress_params;
} kf_eigcont_opts;

typedef struct kf_eigcont_stats { /* accumulated over runs: give zeros first */
    int continued;  /* instants certified */
    int repeated;   /* instants equal to the one before (the same coefficients): a copy */
    int iterations; /* Rayleigh-Ritz rounds */
    int refined;    /* continued instants that took the refinement */
    int refactored; /* factorizations made during the runs */
} kf_eigcont_stats;

/*
 * Instants t = 0 .. nt-1: coef (nt x nterm, row-major), lower[t] a lower bound of the
 * (ms+1)-th eigenvalue (-inf: none known; the instant then fails), scale[t] >= 0.  Results
 * of the instants done: theta, bounds (nt x ms, ascending), and U (nt x n x ms, row-major,
 * M-normalized shapes; may be NULL).  *done: the instants done; a run stops (KF_OK) at the
 * first instant it cannot certify, *done < nt: solve it otherwise, set the basis (and
 * perhaps the factor) and continue after it.  KF_ECALLBACK when progress asks to stop.
 */
int kf_eigcont_run(kf_eigcont *c, int nt, const double *coef, const double *lower,
                   const double *scale, const kf_eigcont_opts *opt, double *theta, double *bounds,
                   double *U, int *done, kf_eigcont_stats *stats, kf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* KF_EIG_H */
