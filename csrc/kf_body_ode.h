/*
 * kf_body_ode.h -- splines, frame motions, loads and a body problem as a kf_lin2.
 * Part of the kanefem public C API; implementation: csrc/kf_body_ode.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_BODY_ODE_H
#define KF_BODY_ODE_H

#include "kf_core.h"
#include "kf_body.h"
#include "kf_integrate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- splines */

/*
 * Not-a-knot cubic spline interpolation of nch channels sampled at n >= 4
 * strictly increasing times t: y is n x nch (row-major); coef receives
 * (n - 1) x nch x 4 polynomial coefficients (interval i, channel c:
 * y = c0 + c1 s + c2 s^2 + c3 s^3 with s = x - t[i]).
 */
int kf_spline_fit(int n, const double *t, int nch, const double *y, double *coef,
                  kf_error *err);
/* Value, first and second derivative of each channel at x (out: nch x 3);
 * KF_EINVAL if x lies outside [t[0], t[n - 1]]. */
int kf_spline_eval(int n, const double *t, int nch, const double *coef, double x,
                   double *out, kf_error *err);

/* ---------------------------------------------------------------- body problems */

/*
 * A motion fills the frame (kf_frame) at time t.  A motion that knows no
 * origin velocity leaves v and vdot zero: Hamilton's momentum is then the
 * one relative to the frame origin (p - Mo v_L), with the same trajectories.
 */
typedef int kf_motion_fn(double t, kf_frame *out, void *params, kf_error *err);
/* Applied nodal forces Q(t) over all DOFs of the body (Q arrives zeroed). */
typedef int kf_loads_fn(double t, double *Q, void *params, kf_error *err);

/* Built-in planar motions (rotation about z); gravity g is in the global frame. */
typedef struct kf_motion_constant {
    double omega, theta0; /* angular velocity [rad/s], angle at t = 0 [rad]; origin at rest */
    double g[2];
} kf_motion_constant;
int kf_motion_constant_eval(double t, kf_frame *out, void *params, kf_error *err);

/* A hub spun up from rest (Simo and Vu-Quoc 1986): about the fixed origin,
 *   omega(t) = (omega_s / T_s) (t - T_s / (2 pi) sin(2 pi t / T_s))   for t < T_s,
 *   omega(t) = omega_s                                                 after,
 * the angle its integral from theta0 at t = 0 (T_s > 0; checked by the caller). */
typedef struct kf_motion_spinup {
    double omega_s, T_s, theta0;
    double g[2];
} kf_motion_spinup;
int kf_motion_spinup_eval(double t, kf_frame *out, void *params, kf_error *err);

/* Angle theta and origin position (x, y) (global) from kf_spline_fit
 * coefficients of those three channels. */
typedef struct kf_motion_spline {
    int n;
    const double *t, *coef;
    double g[2];
} kf_motion_spline;
int kf_motion_spline_eval(double t, kf_frame *out, void *params, kf_error *err);

/*
 * Built-in spatial motions (docs/theory.md section 4.6); gravity g is in the
 * global frame, R the frame's orientation (global = R local).
 *
 * A constant spin: omega constant in body axes (it is then constant in global
 * axes too, R0 omega), R(t) = R0 exp(t [omega]x) (Rodrigues), origin at rest.
 */
typedef struct kf_motion_spin {
    double omega[3]; /* angular velocity, body axes [rad/s] */
    double R0[9];    /* orientation at t = 0, row-major */
    double g[3];
} kf_motion_spin;
int kf_motion_spin_eval(double t, kf_frame *out, void *params, kf_error *err);

/* The rotation matrix (row-major, global = R local) of the quaternion q / |q|,
 * q = (w, x, y, z) nonzero. */
void kf_quat_rotation(const double *q, double *R);

/*
 * A rotation given by samples: kf_spline_fit coefficients of 7 channels, the
 * quaternion q = (w, x, y, z) (samples of one sign-continuous unit quaternion)
 * and the origin position (x, y, z) (global).  Between samples R is that of
 * q / |q|; omega and eps are the exact derivatives of this interpolant in
 * body axes: omega = 2 vec(q* q') / |q|^2, eps = 2 vec(q* q'') / |q|^2 -
 * 2 (q . q') / |q|^2 omega.
 */
typedef struct kf_motion_rotation {
    int n;
    const double *t, *coef;
    double g[3];
} kf_motion_rotation;
#define KF_MOTION_ROTATION_NCH 7
int kf_motion_rotation_eval(double t, kf_frame *out, void *params, kf_error *err);

/* Q(t) = Q0 + sum_k A_k sin(omega_k t + phase_k): Q0 (ndof, or NULL), A (nh x ndof). */
typedef struct kf_loads_harmonic {
    int ndof, nh;
    const double *Q0, *A, *omega, *phase;
} kf_loads_harmonic;
int kf_loads_harmonic_eval(double t, double *Q, void *params, kf_error *err);

/*
 * A body, its supports, a frame motion and loads as a kf_lin2 over the free
 * DOFs (supports eliminated, band kept):
 *   C(t) = 2 sum W_ij S_ij + C_d,    K(t) = K + sum (E + WW)_ij S_ij [+ K_G(t)],
 *   f(t) = Q(t) - Mo (a_L - g_L) - q_eps - q_om,
 * and the canonical form G = sum W_ij S_ij, K_H = K + sum (WW)_ij S_ij [+ K_G],
 *   h = sum W_ij s_ij + Mo v_L,  b = Q - q_om - Mo (a_L - g_L) + Mo vdot,
 * every term a kf_body_combine of the invariants.  C_d = alpha M + beta K
 * (Rayleigh) plus an optional dense matrix over the free DOFs (modal damping;
 * the storage then becomes dense).  With geometric set, K_G(t) is
 * kf_body_geometric of the quasi-static axial force (kf_body_axial_force) of
 * each instant, with the axial end loads read from Q at the first and last
 * node and the axial fixity from the supports.
 */
typedef struct kf_body_ode_opts {
    const unsigned char *fixed;  /* ndof flags, nonzero = fixed (supports); NULL: none */
    kf_motion_fn *motion;        /* required */
    void *motion_params;
    kf_loads_fn *loads;          /* NULL: no applied loads */
    void *loads_params;
    double rayleigh[2];          /* alpha [1/s], beta [s] */
    const double *damping;       /* nfree x nfree column-major, or NULL */
    int geometric;               /* add K_G(t) */
    /* Constraints (Maggi's projection, docs/theory.md section 3.3): d = T z with T (ndof x
     * basis_ncol) in CSR (basis_ptr: ndof + 1 offsets, basis_col, basis_val), or NULL:
     * the free DOFs of fixed.  The body is then kf_body_project's, the loads T^T Q, the
     * unknowns z (kf_body_ode_map gives NULL), and fixed only tells K_G's axial fixity
     * at the end nodes. */
    int basis_ncol;
    const int *basis_ptr, *basis_col;
    const double *basis_val;
} kf_body_ode_opts;

typedef struct kf_body_ode kf_body_ode;

int kf_body_ode_create(kf_body_ode **out, const kf_body *b, const kf_body_ode_opts *opt,
                       kf_error *err);
void kf_body_ode_free(kf_body_ode *o);
/* The system to integrate (owned by o). */
const kf_lin2 *kf_body_ode_system(const kf_body_ode *o);
/* Number of free DOFs (or basis columns) and their body DOF indices (increasing; NULL
 * with a basis: the unknowns are z). */
int kf_body_ode_nfree(const kf_body_ode *o);
const int *kf_body_ode_map(const kf_body_ode *o);

#ifdef __cplusplus
}
#endif
#endif /* KF_BODY_ODE_H */
