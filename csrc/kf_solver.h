/*
 * kf_solver.h -- linear solvers behind one small function table.
 * Part of the kanefem public C API; implementation: csrc/kf_solver.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_SOLVER_H
#define KF_SOLVER_H

#include "kf_core.h"
#include "kf_matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A linear solver for A x = b with A n x n in one kf_mat storage (after
 * SUNDIALS' SUNLinearSolver): the integrators own matrices and hand them to
 * a solver, which factors them (setup) and solves with the factors (solve)
 * as often as asked; they know nothing of how.  Three kinds:
 *
 *   - kf_linsol_lapack: dense (dgetrf) or band (dgbtrf) LU of a copy of A,
 *     chosen by A's storage;
 *   - kf_linsol_small: the core's own partial-pivoting LU for small dense
 *     systems (a mechanism's few dozen unknowns) and narrow bands (a chain of
 *     elements), where LAPACK's calls cost more than their arithmetic;
 *   - kf_linsol_callback: the caller's setup, solve and free functions, e.g.
 *     a sparse (CSR) factorization taken from outside the core (the Python
 *     binding calls SciPy's SuperLU, with the GIL re-acquired).
 *
 * setup and solve return KF_OK or an error code, with err filled; a setup
 * may be called again with a new matrix of the same storage and size, and
 * replaces the factors.  The matrix handed to setup is not kept (a solver
 * that needs it copies it).  A solver is used by one thread at a time.
 */
typedef struct kf_linsol kf_linsol;

typedef int kf_linsol_setup_fn(void *content, const kf_mat *A, kf_error *err);
typedef int kf_linsol_solve_fn(void *content, int nrhs, double *b, int ldb, kf_error *err);
typedef void kf_linsol_free_fn(void *content);

typedef struct kf_linsol_ops {
    const char *name;             /* for messages: "LAPACK dense LU", ... */
    kf_linsol_setup_fn *setup;    /* factor A */
    kf_linsol_solve_fn *solve;    /* B (n x nrhs, column-major, ldb >= n) := A^-1 B */
    kf_linsol_free_fn *free;      /* the content (may be NULL) */
} kf_linsol_ops;

/* LAPACK LU (dense or band by the storage of like; not CSR: KF_EINVAL). */
int kf_linsol_lapack(kf_linsol **out, const kf_mat *like, kf_error *err);
/* The core's LU for a small dense n x n system or a narrow band (like dense
 * or band; not CSR: KF_EINVAL). */
int kf_linsol_small(kf_linsol **out, const kf_mat *like, kf_error *err);
/* The caller's functions on content (content is freed by ops->free, if given,
 * with the solver; ops must outlive it). */
int kf_linsol_callback(kf_linsol **out, int n, const kf_linsol_ops *ops, void *content,
                       kf_error *err);
/* The default for a storage: LAPACK for dense and band; CSR needs a callback
 * solver (KF_EINVAL naming the storage). */
int kf_linsol_default(kf_linsol **out, const kf_mat *like, kf_error *err);

/* A maker of solvers for matrices like `like` (an integrator makes one for
 * M and one for its iteration matrix); NULL in options means kf_linsol_default. */
typedef int kf_linsol_factory(kf_linsol **out, const kf_mat *like, void *params,
                              kf_error *err);

int kf_linsol_setup(kf_linsol *s, const kf_mat *A, kf_error *err);
int kf_linsol_solve(kf_linsol *s, int nrhs, double *b, int ldb, kf_error *err);
const char *kf_linsol_name(const kf_linsol *s);
void kf_linsol_free(kf_linsol *s);

#ifdef __cplusplus
}
#endif
#endif /* KF_SOLVER_H */
