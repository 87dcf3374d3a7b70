/*
 * kf_direct.h -- independent formalisms: direct inertia forces, null-space basis.
 * Part of the kanefem public C API; implementation: csrc/kf_direct.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_DIRECT_H
#define KF_DIRECT_H

#include "kf_core.h"
#include "kf_body.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- formalisms
 *
 * Independent numeric routes to the same equations (docs/theory.md section 6): Kane's
 * generalized inertia forces by quadrature of the acceleration at a state,
 * and Maggi's projection onto the null space of linear constraints G d = 0.
 */

/*
 * Kane's generalized inertia forces at one state, by direct quadrature over
 * each element with its own rule (kf_element_get(kind)->eval):
 *
 *   F*_r = - int rho (R N_r)^T a dV,
 *   R^T a = a_O + (E + W W)(x + N d) + 2 W N d' + N d''   (body frame),
 *
 * for the state d, dd = d', ddd = d'' (length ndof each) and the rigid motion
 * frame (a_O = frame->a; subtract gravity to include it).  No invariant is used:
 * this is the check of the invariant route, F* = -(M d'' + C d' + (K_eps +
 * K_om) d + q_a + q_eps + q_om).  Gibbs-Appell's dS/dd'' (S = 1/2 int rho
 * a.a dV) has the same integrand: dS/dd'' = -F*.  fstar has length ndof.
 */
int kf_body_inertia_forces_direct(const kf_body *b, const double *d, const double *dd,
                                  const double *ddd, const kf_frame *frame, double *fstar,
                                  kf_error *err);

/*
 * An orthonormal basis of the null space of G (m x n, row-major): the
 * independent motions left by the linear constraints G d = 0.  QR with column
 * pivoting of G^T (dgeqp3), G^T P = Q R; the rank r counts |R_kk| > rtol
 * |R_11| (rtol <= 0: max(m, n) DBL_EPSILON), and the last n - r columns of Q
 * (dorgqr) span the null space.  B (n x n, column-major) receives Q's columns
 * r..n-1 in its first *nfree = n - r columns.  m = 0 (no constraint) gives
 * B = I.
 */
int kf_null_basis(int m, int n, const double *G, double rtol, int *nfree, double *B,
                  kf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* KF_DIRECT_H */
