/*
 * kf_ffrf.h -- a flexible body in a floating frame of reference, in space.
 * Part of the kanefem public C API; implementation: csrc/kf_ffrf.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 *
 * The body's frame is an unknown of the motion (docs/theory.md section 1.6): a
 * material point is at r_c + R (xbar + N d), xbar = x - x_c, with r_c the
 * position of the reference point (the mass centre x_c of the undeformed
 * body, fixed in the frame), R the frame's orientation (global = R local) and
 * d the elastic coordinates its reference conditions leave free.  The speeds
 * are u = (v, omega, d'): v = r_c' in global axes, omega in body axes (the
 * spatial mechanism's convention for a body's speeds).  Kane's equations in
 * these speeds,
 *
 *     M(d) u' = f(R, d, u),     M(d) = [ m I           -R [S_d]x     R Mo^T  ]
 *                                      [ [S_d]x R^T     J(d)          Hb(d)   ]
 *                                      [ Mo R^T         Hb(d)^T       M       ]
 *
 * (S_d = Mo^T d the first moment of the deformation, J(d) the deformed inertia
 * tensor about x_c, Hb(d) = int [rho]x N the rotation-deformation coupling),
 * are formed from the inertia invariants S_ij, s_ij, Mo_i integrated once:
 * every term is a combination of them, no quadrature at run time.
 */
#ifndef KF_FFRF_H
#define KF_FFRF_H

#include "kf_core.h"
#include "kf_matrix.h"
#include "kf_body.h"
#include "kf_body_ode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The six rigid speeds (v, omega) come first in every row and column of the
 * outputs below, then the elastic coordinates. */
#define KF_FFRF_NR 6

typedef struct kf_ffrf kf_ffrf;

/*
 * What a floating body is made of.  body: a body of dimension 3 (elements in
 * dense or band storage, or given invariants: a reduced body); not one whose
 * sections turn to second order (R_ij: their kinetic energy needs invariants
 * beyond S_ij, KF_EINVAL naming "body").  fixed: the reference conditions, one
 * flag per DOF (nonzero: held in the frame), or NULL: none (coordinates that
 * carry no rigid motion, e.g. elastic modes orthogonal to the rigid ones).
 * mass: NULL for a body of elements (integrated from its points by
 * kf_body_rigid); for a given body its 13 mass properties m, x_c (3)
 * and the second moments int xbar xbar^T dm about x_c (3 x 3, row-major), from
 * the full body it was reduced from.  geometric: add K_G of the body's basis
 * (kf_body_nkg > 0; for a prestress basis made with the reference conditions
 * as its supports, docs/theory.md section 2.11).
 */
typedef struct kf_ffrf_desc {
    const kf_body *body;
    const unsigned char *fixed;
    const double *mass;
    double rayleigh[2]; /* elastic damping alpha M + beta K [1/s, s], >= 0 */
    int geometric;      /* 0 or 1 */
} kf_ffrf_desc;

/* The floating body keeps its own copy of the body's invariants on the elastic DOFs
 * (the body may be freed after) and, in its workspace, the last state evaluated: one
 * thread uses it at a time. */
int kf_ffrf_create(kf_ffrf **out, const kf_ffrf_desc *desc, kf_error *err);
void kf_ffrf_free(kf_ffrf *w);
/* The number of elastic coordinates and their DOF indices in the body (increasing). */
int kf_ffrf_nelastic(const kf_ffrf *w);
const int *kf_ffrf_map(const kf_ffrf *w);
/* The body on the elastic coordinates the floating body keeps (its invariants, K and K_G
 * basis restricted to them; valid while w lives): a mechanism combines K_G of its joints'
 * loads on it. */
const kf_body *kf_ffrf_body(const kf_ffrf *w);
/* m, x_c (3) and the inertia tensor about x_c at d = 0 (3 x 3 row-major). */
void kf_ffrf_mass_properties(const kf_ffrf *w, double *m, double xc[3], double J0[9]);
/* The elastic block of the mass matrix (constant: the body's M on the elastic DOFs). */
const kf_mat *kf_ffrf_mass(const kf_ffrf *w);
/*
 * The smallest eigenvalue of the rigid speeds' mass matrix with the elastic
 * coordinates eliminated, M_rr - M_re M^-1 M_er at d = 0, scaled by the mass
 * and the largest moment of inertia (in [0, 1]).  Free motion needs it above
 * 1e-10: near zero, the reference conditions leave a rigid motion to the
 * elastic coordinates, or the body has no inertia about an axis (a straight
 * bar about its own).
 */
double kf_ffrf_rigid_margin(const kf_ffrf *w);

/* A state: orientation (global = R local, row-major), the reference point's
 * velocity (global axes), the angular velocity (body axes), the elastic
 * coordinates and their rates (kf_ffrf_nelastic each). */
typedef struct kf_ffrf_state {
    double R[9];
    double v[3];
    double omega[3];
    const double *d;
    const double *dd;
} kf_ffrf_state;

/*
 * The equations at a state: M(d) (6 + ne square, row-major, into M, or NULL)
 * and f = Q - (velocity terms) (6 + ne, into f, or NULL), the rows and columns
 * in the order (v, omega, d').  Q holds gravity g (global) and the elastic,
 * damping and K_G forces; K_G's coefficients come from the frame's motion with
 * the accelerations acc = (r_c'' global, omega' body axes) (NULL: zero) and
 * the end loads f_first, f_last of a line body (docs/theory.md section 2.11).
 * The translation rows are in global axes, the rotation rows in body axes
 * about x_c.  KF_ERANGE if a term overflows.
 */
int kf_ffrf_equations(kf_ffrf *w, const kf_ffrf_state *s, const double g[3], const double *acc,
                      double f_first, double f_last, double *M, double *f, kf_error *err);

/*
 * The same equations as the blocks a mechanism's projection assembles, at O(ne) cost:
 * the rigid rows M_rr (6 x 6) and M_re (6 x ne), row-major (both or neither), and f
 * (6 + ne, or NULL); M_er = M_re^T, and the elastic block is the constant
 * kf_ffrf_mass.  The state is kept for kf_ffrf_tangent.
 */
int kf_ffrf_rows(kf_ffrf *w, const kf_ffrf_state *s, const double g[3], const double *acc,
                 double f_first, double f_last, double *Mrr, double *Mre, double *f,
                 kf_error *err);

/*
 * The tangent cm dR/da + cv dR/du + cd dR/dq of the residual R = M(d) u' - f at the
 * state of the last kf_ffrf_rows (and its accelerations acc), with d'' = ddd (ne), in
 * the rows and columns (r_c, theta, d) (theta a small rotation of the frame, right-
 * trivialized: R (I + [theta]x)): Jee (conforming with kf_ffrf_mass: the elastic block,
 * band or dense), Jer (ne x 6, column-major: the elastic rows over the rigid columns),
 * Jre (6 x ne, row-major), Jrr (6 x 6, row-major).  What a generalized-alpha Newton on a
 * mechanism with this body needs (the floating body's own free run uses it).  Left out:
 * the turning of the translation rows' own residual (zero at the solution).  Jer, Jre,
 * Jrr all NULL: the elastic block alone, cm M + cv (C + alpha M + beta K) + cd (K + K_G +
 * K_om + K_eps) at the state's omega and the accelerations' eps (ddd may then be NULL).
 */
int kf_ffrf_tangent(kf_ffrf *w, const double *ddd, double cm, double cv, double cd, kf_mat *Jee,
                    double *Jer, double *Jre, double *Jrr, kf_error *err);

/*
 * The accelerations of the free body at a state (no joints, gravity g):
 * acc (6: r_c'' global, omega' body) and ddd (ne), solved with K_G's
 * dependence on the accelerations taken exactly (one bordered solve).
 * KF_ESING (naming "reference") where kf_ffrf_rigid_margin is below 1e-10.
 */
int kf_ffrf_accelerations(kf_ffrf *w, const kf_ffrf_state *s, const double g[3], double *acc,
                          double *ddd, kf_error *err);

/*
 * The elastic rows under a prescribed frame motion: frame (kf_frame: omega,
 * eps, a = a_O - g_L at the body's origin x = 0, body axes; as a motion
 * gives it), d, dd: ddd (ne) solves M d'' = f_e - M_er (a_c - g_L, eps), and
 * drive (6, or NULL) the force and torque the frame's drive applies to the
 * body, at x_c, in body axes.  Equal to the one-way equations of
 * docs/theory.md section 1.2 on the elastic DOFs.
 */
int kf_ffrf_prescribed(kf_ffrf *w, const kf_frame *frame, const double *d, const double *dd,
                       double *ddd, double *drive, kf_error *err);

enum kf_ffrf_method {
    KF_FFRF_GA = 0,  /* generalized-alpha on the rotation group (fixed steps) */
    KF_FFRF_DP5 = 1  /* Dormand-Prince 5(4) on (r_c, quaternion, d, v, omega, d') */
};

typedef struct kf_ffrf_opts {
    int method;          /* enum kf_ffrf_method (prescribed runs: KF_FFRF_GA only) */
    double dt;           /* GA: the largest step [s]; steps are equal within each
                          * output interval.  DP5: the first step (0: automatic) */
    double rho_inf;      /* GA: spectral radius at infinite step, [0, 1] (1: Newmark) */
    double tol;          /* GA: Newton's tolerance, in (0, 1) */
    int max_iter;        /* GA: Newton iterations per step, >= 1 */
    double rtol, atol;   /* DP5: error tolerances (> 0) */
    long max_steps;      /* 0: 10^8 */
    kf_progress_fn *progress; /* after every step (may be NULL) */
    void *progress_params;
} kf_ffrf_opts;

/* Output row widths: rigid (r_c 3, q 4 = (w, x, y, z), v 3, omega 3, r_c'' 3,
 * omega' 3) and, per elastic coordinate, d, d', d''. */
#define KF_FFRF_RIGID_OUT 19

/*
 * The free body (no joints; gravity g) from x0 = (r_c 3, q 4 (any norm > 0), v
 * 3, omega 3) and e0 = (d, d') (2 ne, or NULL: at rest, undeformed) at t[0]
 * to the increasing times t[0..nt-1]; rigid: nt x KF_FFRF_RIGID_OUT, elastic:
 * nt x 3 ne.  GA: the Lie-group generalized-alpha of Arnold, Bruls and
 * Cardona (R_n+1 = R_n exp(h dq)) on the core's stepper kf_ga, Newton on the
 * accelerations with the tangent of the bordered system; DP5: kf_ode, landing
 * on every output.  KF_ESING (naming "reference") for a body without a
 * regular rigid mass (kf_ffrf_rigid_margin); KF_ENOCONV, KF_EDIVERGE,
 * KF_ESTEPS, KF_ECALLBACK as the drivers give them.
 */
int kf_ffrf_run(kf_ffrf *w, const double g[3], const double *x0, const double *e0, int nt,
                const double *t, const kf_ffrf_opts *o, double *rigid, double *elastic,
                kf_stats *stats, kf_error *err);

/*
 * The elastic coordinates under a prescribed frame motion (motion: a frame
 * at every time, as for kf_body_ode), from e0 = (d, d') (or NULL) at t[0] by
 * generalized-alpha (one exact solve per step: the equations are then
 * linear); elastic: nt x 3 ne, drive: nt x 6 (as kf_ffrf_prescribed) or NULL.
 */
int kf_ffrf_run_prescribed(kf_ffrf *w, kf_motion_fn *motion, void *motion_params,
                           const double *e0, int nt, const double *t, const kf_ffrf_opts *o,
                           double *elastic, double *drive, kf_stats *stats, kf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* KF_FFRF_H */
