/*
 * kf_integrate.h -- the adaptive ODE driver and the linear second-order integrators.
 * Part of the kanefem public C API; implementation: csrc/kf_ode.c, csrc/kf_integrate.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_INTEGRATE_H
#define KF_INTEGRATE_H

#include "kf_core.h"
#include "kf_matrix.h"
#include "kf_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ adaptive ODE driver
 *
 * The core's one Dormand-Prince 5(4) integrator for first-order systems
 * y' = f(t, y), y of length n (implementation: csrc/kf_ode.c).  The time
 * integrators of linear elastic systems (kf_integ, RK methods) and the rigid
 * motion of mechanisms (kf_mech_simulate) are built on it.
 *
 * Step control is SciPy's RK45 (scipy.integrate.solve_ivp): the RMS norm of
 * the embedded error over atol + rtol max(|y_n|, |y_n+1|), safety 0.9, step
 * factors 0.2..10 (at most 1 right after a rejection), Hairer's first step;
 * so a problem takes the same steps here as there.  Outputs at requested
 * times come from Hairer's continuous extension of order 4 (DOPRI5's), or,
 * with land_on_outputs, every output time is made a step end.
 *
 * Callbacks follow the core's convention (after SUNDIALS): f returns 0 on
 * success, > 0 for a recoverable failure (e.g. a trial stage outside the
 * problem's domain: the step is retried at a quarter of its size), < 0 to
 * stop; it may describe a failure in err (err->code set), which the driver
 * passes on.  out and step return 0 to go on, nonzero to stop (err->code, or
 * KF_ECALLBACK).  Every error message names the time.
 */
typedef int kf_ode_fn(double t, const double *y, double *dy, void *params, kf_error *err);
/* the solution y(t) at output k (t = tout[k]) */
typedef int kf_ode_out_fn(int k, double t, const double *y, void *params, kf_error *err);
/* after every accepted step, with the new time and state (divergence checks, progress) */
typedef int kf_ode_step_fn(double t, const double *y, void *params, kf_error *err);

typedef struct kf_ode_system {
    int n;                /* size of the state, >= 1 */
    kf_ode_fn *f;         /* required */
    kf_ode_out_fn *out;   /* required */
    kf_ode_step_fn *step; /* may be NULL */
    void *params;         /* handed to f, out and step */
    /* nonzero: clip steps so that every output time is a step end (the output
     * is then the step's own fifth-order solution, and the last call of f
     * before out was at (t, y): FSAL); 0: step as the tolerances allow and
     * interpolate */
    int land_on_outputs;
} kf_ode_system;

typedef struct kf_ode_opts {
    double rtol, atol; /* error per step <= atol + rtol |y| (RMS over the state); both > 0 */
    long max_steps;    /* accepted + rejected steps (0: 10^8) */
    double first_step; /* 0: automatic (Hairer's estimate, as SciPy's) */
    double max_step;   /* 0: unlimited */
    kf_progress_fn *progress; /* after every accepted step, with its time (may be NULL) */
    void *progress_params;
} kf_ode_opts;

/* A driver for one system and its options, with every workspace allocated
 * here; kf_ode_run allocates nothing.  The system is copied. */
typedef struct kf_ode kf_ode;
int kf_ode_create(kf_ode **out, const kf_ode_system *sys, const kf_ode_opts *opts,
                  kf_error *err);
void kf_ode_free(kf_ode *w);

/*
 * Integrate from y(t0) = y0 to tout[nout - 1], calling out for each of the
 * nout non-decreasing times tout >= t0 (those equal to t0 before the first
 * step).  KF_ESTEPS when max_steps is reached or the step falls below ten
 * ulps of t; KF_EDIVERGE if that happens because the error estimate stays
 * non-finite; the code of f's own error if it happens because f keeps
 * failing recoverably (also after 12 failures in a row).
 */
int kf_ode_run(kf_ode *w, double t0, const double *y0, int nout, const double *tout,
               kf_stats *stats, kf_error *err);

/* ================================================================ generalized-alpha stepper
 *
 * The core's one implicit second-order stepper (docs/theory.md section 4.3):
 * generalized-alpha (Chung and Hulbert 1993) for a residual
 *
 *     R(t, d, v, a) = 0      (e.g. M a + C v + K d - f(t), or a mechanism's
 *                             M(d) a - F(t, d, v)),
 *
 * with Newmark's average acceleration as the special case am = af = 0,
 * beta = 1/4, gamma = 1/2.  One step from (d, v, a, al) at t over h solves for
 * a_{n+1} by Newton's method on R with the iteration matrix
 *
 *     J = cm dR/da + cv dR/dv + cd dR/dd,
 *
 * assembled by the problem (jacobian) and factored by a kf_linsol.  Two forms:
 *
 *   KF_GA_SHIFTED (Chung and Hulbert): the balance at t_{n+1-af},
 *     R(t_{n+1-af}, (1-af) d_{n+1} + af d_n, (1-af) v_{n+1} + af v_n,
 *       (1-am) a_{n+1} + am a_n) = 0,
 *     d_{n+1} = d* + beta h^2 a_{n+1}, v_{n+1} = v* + gamma h a_{n+1},
 *     d* = d_n + h v_n + (1/2 - beta) h^2 a_n, v* = v_n + (1 - gamma) h a_n;
 *     cm = 1 - am, cv = (1 - af) gamma h, cd = (1 - af) beta h^2; al = a.
 *   KF_GA_ALGORITHMIC (Arnold and Bruls 2007): the balance at t_{n+1},
 *     R(t_{n+1}, d_{n+1}, v_{n+1}, a_{n+1}) = 0 with the algorithmic
 *     acceleration (1 - am) al_{n+1} + am al_n = (1 - af) a_{n+1} + af a_n,
 *     d_{n+1} = d_n + h v_n + h^2 ((1/2 - beta) al_n + beta al_{n+1}),
 *     v_{n+1} = v_n + h ((1 - gamma) al_n + gamma al_{n+1});
 *     cm = 1, cv = gamma h kappa, cd = beta h^2 kappa, kappa = (1-af)/(1-am).
 *
 * Linear problems (opts.linear: R affine in (d, v, a) at a given t) take one
 * exact Newton step from a_{n+1} = 0; J is formed every step and factored only
 * when it differs from the factored one (constant coefficients: one factor for
 * the whole run).  Nonlinear problems take modified Newton from a_{n+1} = a_n:
 * J is factored at the first iteration, after a change of h, and when a
 * correction is more than refactor_rate of the previous one; converged when
 * the correction (or the ones still to come at its rate, SUNDIALS' test) is
 * below tol times the accelerations' size.
 */
enum kf_ga_form { KF_GA_SHIFTED = 0, KF_GA_ALGORITHMIC = 1 };

/* R at (t, d, v, a); iter counts Newton's iterations of the step (0 first). */
typedef int kf_ga_residual_fn(double t, const double *d, const double *v, const double *a,
                              int iter, double *R, void *params, kf_error *err);
/* J = cm dR/da + cv dR/dv + cd dR/dd at the iterate of the last residual call;
 * J conforms with the problem's like and is to be overwritten. */
typedef int kf_ga_jacobian_fn(double cm, double cv, double cd, kf_mat *J, void *params,
                              kf_error *err);

typedef struct kf_ga_problem {
    int n;
    const kf_mat *like;          /* storage and shape of J */
    kf_ga_residual_fn *residual; /* required */
    kf_ga_jacobian_fn *jacobian; /* required */
    void *params;
} kf_ga_problem;

typedef struct kf_ga_opts {
    double am, af, beta, gamma; /* kf_ga_coefficients; Newmark: 0, 0, 1/4, 1/2 */
    int form;                   /* enum kf_ga_form */
    int linear;                 /* R affine: one Newton step, J refactored when it changes */
    double tol;                 /* nonlinear: Newton's tolerance (relative), in (0, 1) */
    int max_iter;               /* nonlinear: iterations per step, >= 1 */
    double refactor_rate;       /* nonlinear: refactor when corrections shrink slower (0.1) */
    kf_linsol_factory *linsol;  /* NULL: kf_linsol_default */
    void *linsol_params;
} kf_ga_opts;

/* am, af, beta, gamma of generalized-alpha with spectral radius rho_inf at
 * infinite step (in [0, 1]) into opts; Newmark's average acceleration is
 * am = af = 0, beta = 1/4, gamma = 1/2. */
void kf_ga_coefficients(double rho_inf, kf_ga_opts *opts);

typedef struct kf_ga kf_ga;
int kf_ga_create(kf_ga **out, const kf_ga_problem *prob, const kf_ga_opts *opts,
                 kf_error *err);
void kf_ga_free(kf_ga *g);
/* The solver the stepper factors J with (to solve other systems of the same
 * storage with the factors of the last step: not between steps' setups). */
kf_linsol *kf_ga_solver(kf_ga *g);
/*
 * One step of h ending at t1 from (d0, v0, a0, al0) into (d1, v1, a1, al1) (which
 * must not alias the inputs); counts evaluations (residual calls),
 * factorizations and solves into st.  KF_ENOCONV if Newton does not converge,
 * KF_EDIVERGE if a correction is not finite; a callback's own error passes on.
 */
int kf_ga_step(kf_ga *g, double t1, double h, const double *d0, const double *v0,
               const double *a0, const double *al0, double *d1, double *v1, double *a1,
               double *al1, kf_stats *st, kf_error *err);

/* ================================================================ time integration */

/*
 * A linear second-order system with time-dependent coefficients,
 *
 *     M d'' + C(t) d' + K(t) d = f(t),          M constant and nonsingular,
 *
 * and, optionally, its canonical (Hamilton) form in the momentum
 * p = M d' + G(t) d + h(t), G skew-symmetric (gyroscopic):
 *
 *     M d' = p - G d - h,     p' = -G d' - D d' - K_H(t) d + b(t).
 *
 * The two forms are the same equations when C = 2 G + D, K = K_H + G',
 * f = b - h' (D a constant dissipation).  The integrators see a problem only
 * through these callbacks (after SUNDIALS: the problem assembles, the
 * integrator owns the linear algebra), so they know nothing about bodies.
 * Every matrix handed to a callback conforms with M (kf_mat_conform) and is
 * to be overwritten; vectors have length n.  The integrator does not modify
 * the matrices between calls, so a callback may leave those that have not
 * changed since its previous call on the same matrices as they are.  Callbacks return 0 on success,
 * > 0 for a recoverable failure (the adaptive method retries with a smaller
 * step), < 0 to stop; they may describe the failure in err (err->code set),
 * which the integrator then passes on.
 */
typedef int kf_lin2_second_fn(double t, kf_mat *C, kf_mat *K, double *f, void *params,
                              kf_error *err);
typedef int kf_lin2_canonical_fn(double t, kf_mat *G, kf_mat *K_H, double *h, double *b,
                                 void *params, kf_error *err);
/* Optional, for the explicit methods: the accelerations a = M^-1 (f - C d' - K d)
 * at (t, d, d') straight from the problem, which knows what of C, K, f changed
 * since its previous call and may keep M^-1 in a form cheaper to apply than
 * the integrator's LU (kf_body_ode: a dense inverse for small n). */
typedef int kf_lin2_accel_fn(double t, const double *d, const double *v, double *a,
                             void *params, kf_error *err);

typedef struct kf_lin2 {
    int n;                          /* number of unknowns */
    const kf_mat *M;                /* constant mass matrix; storage template */
    const kf_mat *D;                /* constant dissipation of the canonical form, or NULL */
    kf_lin2_second_fn *second;      /* required */
    kf_lin2_canonical_fn *canonical; /* NULL: the Hamilton form is not available */
    void *params;
    kf_lin2_accel_fn *accel;        /* NULL: the integrator forms a from second and M */
} kf_lin2;

enum kf_method {
    KF_NEWMARK = 0,        /* average acceleration (trapezoidal), fixed step */
    KF_GENALPHA = 1,       /* generalized-alpha (Chung and Hulbert 1993), fixed step */
    KF_RK45_LAGRANGE = 2,  /* Dormand-Prince 5(4) on the state (d, d') */
    KF_RK45_HAMILTON = 3   /* Dormand-Prince 5(4) on the canonical state (d, p) */
};

typedef struct kf_integ_opts {
    int method;          /* enum kf_method */
    double dt;           /* implicit methods: the step (> 0; rounded down so that whole
                          * steps reach the last output time); RK: first step, 0 = automatic */
    double rho_inf;      /* generalized-alpha: spectral radius at infinite step, in [0, 1] */
    double rtol, atol;   /* RK: error tolerances (> 0) */
    double max_step;     /* RK: largest step, 0 = unlimited */
    long max_steps;      /* steps allowed (accepted + rejected), 0 = 10^8 */
    double limit;        /* stop (KF_EDIVERGE) when max |d_i| exceeds this; 0 = 1e100 */
    kf_progress_fn *progress; /* after every accepted step (may be NULL) */
    void *progress_params;
    /* the linear solvers for M and the implicit methods' iteration matrix (NULL:
     * kf_linsol_default, LAPACK; a CSR problem needs one, e.g. a sparse LU) */
    kf_linsol_factory *linsol;
    void *linsol_params;
} kf_integ_opts;

/* An integrator: the method, the options and every workspace, allocated once
 * here for the problem's size and storage; kf_integ_run allocates nothing inside its
 * steps.  The implicit methods drop M's solver after the initial acceleration (a mesh's
 * factor of M is as large as the step's) and make it again at the start of a later
 * run.  The problem (and its M) must outlive the integrator. */
typedef struct kf_integ kf_integ;

int kf_integ_create(kf_integ **out, const kf_lin2 *prob, const kf_integ_opts *opt,
                    kf_error *err);
void kf_integ_free(kf_integ *w);

/*
 * Integrate from t0, d(t0) = d0, d'(t0) = v0, to tout[nout - 1], writing the
 * solution at the nout non-decreasing times tout (t0 <= tout[0]) into rows of
 * length ld: row k of dout, vout (and pout, the momentum of the canonical
 * form, or NULL) receives unknown i at column map[i] (map NULL: column i);
 * other columns are left as they are.  The fixed-step methods interpolate
 * between steps with cubic Hermite polynomials, RK with its own continuous
 * extension.  KF_EDIVERGE, with the time, if the solution becomes
 * non-finite or exceeds the limit; KF_ECALLBACK if a callback stops it.
 */
int kf_integ_run(kf_integ *w, double t0, const double *d0, const double *v0, int nout,
                 const double *tout, int ld, const int *map, double *dout, double *vout,
                 double *pout, kf_stats *stats, kf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* KF_INTEGRATE_H */
