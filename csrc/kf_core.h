/*
 * kf_core.h -- status codes, errors, progress, statistics.
 * Part of the kanefem public C API; implementation: csrc/kf_error.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_CORE_H
#define KF_CORE_H

#ifdef __cplusplus
extern "C" {
#endif

#define KF_VERSION "0.1.0"

/* ---------------------------------------------------------------- status */

enum kf_status {
    KF_OK = 0,
    KF_EINVAL = 1,     /* an argument is out of its domain */
    KF_ENOMEM = 2,     /* allocation failed */
    KF_ESING = 3,      /* a matrix is singular (or numerically so) */
    KF_ENOTPD = 4,     /* a matrix that must be positive definite is not */
    KF_ENOCONV = 5,    /* an iteration did not converge */
    KF_EDIVERGE = 6,   /* a solution became non-finite or unbounded */
    KF_ENOLAPACK = 7,  /* the LAPACK table has not been filled */
    KF_ELAPACK = 8,    /* LAPACK returned info != 0 for a reason not above */
    KF_ECALLBACK = 9,  /* a user callback asked to stop */
    KF_EGEOM = 10,     /* a mechanism cannot be assembled at this position */
    KF_ESTEPS = 11,    /* an integrator used up its step budget (max_steps) or its step
                        * size fell below what the time's precision can resolve */
    KF_ERANGE = 12     /* a value overflowed or underflowed the double range (an input
                        * whose scale makes a matrix or a result non-finite) */
};

/* Error record: code, the name of the offending argument (may be empty) and a
 * message that names the argument and its value. */
typedef struct kf_error {
    int code;
    char arg[48];
    char msg[480];
} kf_error;

/* A short, static description of a status code. */
const char *kf_strstatus(int status);

/*
 * Long loops (time steps, instants of a time grid) call a progress function
 * after each step or instant, when one is given: it may report progress and
 * check for an interrupt (Ctrl-C in the Python binding); nonzero stops the
 * loop with KF_ECALLBACK.  It is called often: it should be cheap (e.g. look
 * at a clock and do real work every 0.1 s).
 */
typedef int kf_progress_fn(double t, void *params);

/* What an integration cost; the one statistics record of the integrators
 * (kf_ode, kf_integ) and the mechanisms built on them. */
typedef struct kf_stats {
    long steps;           /* accepted steps */
    long rejected;        /* rejected steps: error test, non-finite estimate, or a
                           * recoverable failure of a callback */
    long evaluations;     /* calls of the problem's right-hand side / callbacks */
    long factorizations;  /* LU factorizations (implicit methods: M once, one per step) */
    long solves;          /* triangular solves with those factors */
} kf_stats;

#ifdef __cplusplus
}
#endif
#endif /* KF_CORE_H */
