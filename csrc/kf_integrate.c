/*
 * kf_integrate.c -- time integration of linear second-order systems with
 * time-dependent coefficients (docs/theory.md section 4):
 *
 *     M d'' + C(t) d' + K(t) d = f(t),
 *
 * or their canonical form p = M d' + G d + h, p' = -G d' - D d' - K_H d + b.
 *
 * Two families, one workspace:
 *   - fixed-step implicit: Newmark's average acceleration and the
 *     generalized-alpha method of Chung and Hulbert (1993).  One evaluation
 *     of C, K, f and one LU of the effective matrix per step; with a
 *     conservative system (C skew, K symmetric, f constant) Newmark conserves
 *     the quadratic energy exactly, which the tests use.
 *   - adaptive Dormand-Prince 5(4) on the state (d, d') (Lagrange) or (d, p)
 *     (Hamilton): the core's ODE driver (kf_ode.c, SciPy's step control,
 *     Hairer's dense output) with this file's right-hand side, outputs and
 *     divergence check as its callbacks.
 *
 * The integrator reaches the problem only through the kf_lin2 callbacks and
 * the matrices only through kf_mat, so the same code runs banded or dense.
 * Everything is allocated in kf_integ_create; kf_integ_run does not
 * allocate.
 */
#include "kf_internal.h"

#include <float.h>
#include <string.h>

#define KF_DEFAULT_MAX_STEPS 100000000L
#define KF_DEFAULT_LIMIT 1e100

struct kf_integ {
    kf_lin2 p;
    kf_integ_opts o;
    int n;
    /* matrices handed to the callbacks: (C, K) or (G, K_H); E is the
     * effective matrix of the implicit methods; Mlu the factors of M */
    kf_mat A, B, E, Mlu;
    int *ipiv, *ipivM;
    /* vectors of length n */
    double *f, *h, *r, *s, *u, *z;
    /* implicit: d, v, a at t_n and t_{n+1} */
    double *d, *v, *a, *d1, *v1, *a1;
    /* RK: the driver, the initial state (d, d') or (d, p) of length 2n, and
     * what its callbacks need during a run */
    kf_ode *ode;
    double *y0;
    struct {
        int ld;
        const int *map;
        double *dout, *vout, *pout;
        kf_stats *st;
    } run;
    double *buf;
};

void kf_integ_free(kf_integ *w)
{
    if (!w)
        return;
    kf_mat_free(&w->A);
    kf_mat_free(&w->B);
    kf_mat_free(&w->E);
    kf_mat_free(&w->Mlu);
    kf_ode_free(w->ode);
    free(w->ipiv);
    free(w->ipivM);
    free(w->buf);
    free(w);
}

static int check_opts(const kf_lin2 *p, const kf_integ_opts *o, kf_error *err)
{
    if (!p || !o)
        return kf_fail(err, KF_EINVAL, "problem", "problem and options must not be NULL");
    if (p->n < 1 || !p->M || p->M->n != p->n || !p->second)
        return kf_fail(err, KF_EINVAL, "problem",
                       "the problem needs n >= 1 (n = %d), an n x n mass matrix and a "
                       "second-order callback",
                       p->n);
    if (p->D && !kf_mat_conform(p->D, p->M))
        return kf_fail(err, KF_EINVAL, "D", "the dissipation matrix does not conform with M");
    if (o->method < KF_NEWMARK || o->method > KF_RK45_HAMILTON)
        return kf_fail(err, KF_EINVAL, "method", "unknown method %d", o->method);
    if (o->method == KF_RK45_HAMILTON && !p->canonical)
        return kf_fail(err, KF_EINVAL, "method",
                       "the Hamilton form needs the problem's canonical callback");
    int implicit = o->method == KF_NEWMARK || o->method == KF_GENALPHA;
    if (!isfinite(o->dt) || (implicit ? !(o->dt > 0.0) : o->dt < 0.0))
        return kf_fail(err, KF_EINVAL, "dt", "dt = %g must be %s", o->dt,
                       implicit ? "> 0 (the fixed step)" : ">= 0 (0: automatic first step)");
    if (o->method == KF_GENALPHA && !(o->rho_inf >= 0.0 && o->rho_inf <= 1.0))
        return kf_fail(err, KF_EINVAL, "rho_inf", "rho_inf = %g must lie in [0, 1]",
                       o->rho_inf);
    /* RK's rtol, atol and max_step: checked by kf_ode_create */
    if (o->max_steps < 0)
        return kf_fail(err, KF_EINVAL, "max_steps", "max_steps = %ld must be >= 0",
                       o->max_steps);
    if (!(o->limit >= 0.0) || isnan(o->limit))
        return kf_fail(err, KF_EINVAL, "limit", "limit = %g must be >= 0", o->limit);
    return KF_OK;
}

static kf_ode_fn rk_rhs;
static kf_ode_out_fn rk_out;
static kf_ode_step_fn rk_step;

int kf_integ_create(kf_integ **out, const kf_lin2 *prob, const kf_integ_opts *opt,
                    kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    int rc = check_opts(prob, opt, err);
    if (rc)
        return rc;
    kf_integ *w = kf_calloc(1, sizeof *w);
    if (!w)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate an integrator");
    w->p = *prob;
    w->o = *opt;
    if (w->o.max_steps == 0)
        w->o.max_steps = KF_DEFAULT_MAX_STEPS;
    if (w->o.limit == 0.0)
        w->o.limit = KF_DEFAULT_LIMIT;
    int n = w->n = prob->n;
    const kf_mat *M = prob->M;
    rc = kf_mat_alloc_like(&w->A, M, err);
    if (!rc)
        rc = kf_mat_alloc_like(&w->B, M, err);
    if (!rc)
        rc = kf_mat_alloc_like(&w->Mlu, M, err);
    int implicit = opt->method == KF_NEWMARK || opt->method == KF_GENALPHA;
    if (!rc && implicit)
        rc = kf_mat_alloc_like(&w->E, M, err);
    if (!rc && !implicit) {
        kf_ode_system sys = {2 * n, rk_rhs, rk_out, rk_step, w, 0};
        /* progress is reported by rk_step, after the divergence check */
        kf_ode_opts oo = {.rtol = w->o.rtol, .atol = w->o.atol, .max_steps = w->o.max_steps,
                          .first_step = w->o.dt, .max_step = w->o.max_step};
        rc = kf_ode_create(&w->ode, &sys, &oo, err);
    }
    if (rc)
        goto fail;
    /* vectors: 6 of n; implicit 6 more of n; RK one of 2n */
    size_t nv = implicit ? 12 : 6 + 2;
    w->buf = kf_calloc(nv * (size_t)n, sizeof(double));
    w->ipiv = kf_calloc((size_t)n, sizeof(int));
    w->ipivM = kf_calloc((size_t)n, sizeof(int));
    if (!w->buf || !w->ipiv || !w->ipivM) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the integrator's workspace (n = %d)",
                     n);
        goto fail;
    }
    double *q = w->buf;
    double **vec[] = {&w->f, &w->h, &w->r, &w->s, &w->u, &w->z};
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++, q += n)
        *vec[i] = q;
    if (implicit) {
        double **st[] = {&w->d, &w->v, &w->a, &w->d1, &w->v1, &w->a1};
        for (size_t i = 0; i < sizeof st / sizeof st[0]; i++, q += n)
            *st[i] = q;
    } else {
        w->y0 = q;
    }
    *out = w;
    return KF_OK;
fail:
    kf_integ_free(w);
    return rc;
}

/* ---------------------------------------------------------------- helpers */

/*
 * Callback results inside the integrator: 0 = ok, > 0 = recoverable (the
 * callback's own code), < 0 = stop, with err->code set (by the callback, or
 * here with a generic message).  Internal failures (a singular solve) also
 * come back as -1 with err set.
 */
static int stopped(int rc, double t, kf_error *err)
{
    if (rc < 0 && !err->code)
        kf_fail(err, KF_ECALLBACK, "", "the problem's callback stopped at t = %.17g (status %d)",
                t, rc);
    return rc;
}

static int eval_second(kf_integ *w, double t, kf_stats *st, kf_error *err)
{
    st->evaluations++;
    err->code = 0;
    return stopped(w->p.second(t, &w->A, &w->B, w->f, w->p.params, err), t, err);
}

/* G -> A, K_H -> B, h -> h, b -> r */
static int eval_canonical(kf_integ *w, double t, kf_stats *st, kf_error *err)
{
    st->evaluations++;
    err->code = 0;
    return stopped(w->p.canonical(t, &w->A, &w->B, w->h, w->r, w->p.params, err), t, err);
}

/* The status to return for a callback result rc != 0 where no retry is
 * possible (fixed steps, output instants). */
static int callback_status(int rc, double t, kf_error *err)
{
    if (rc > 0 && !err->code)
        return kf_fail(err, KF_ECALLBACK, "",
                       "the problem's callback reported a recoverable failure (%d) at t = %.17g; "
                       "a fixed-step method cannot retry: use a smaller dt",
                       rc, t);
    return err->code ? err->code : KF_ECALLBACK;
}

/* x <- M^-1 x; -1 (err set) on failure, as a stopping callback. */
static int solve_M(kf_integ *w, double *x, kf_stats *st, kf_error *err)
{
    st->solves++;
    return kf_mat_lu_solve(&w->Mlu, w->ipivM, 1, x, w->n, err) ? -1 : 0;
}

static int factor_M(kf_integ *w, kf_stats *st, kf_error *err)
{
    kf_mat_copy(&w->Mlu, w->p.M);
    st->factorizations++;
    int rc = kf_mat_lu(&w->Mlu, w->ipivM, err);
    if (rc)
        kf_fail(err, rc, "M", "the mass matrix is singular: %s", err->msg);
    return rc;
}

/* KF_EDIVERGE if x is non-finite or (with_limit) some |x_i| exceeds the limit. */
static int check_state(const kf_integ *w, double t, const double *x, int with_limit,
                       kf_error *err)
{
    double big = 0.0;
    for (int i = 0; i < w->n; i++) {
        double a = fabs(x[i]);
        if (!isfinite(a))
            return kf_fail(err, KF_EDIVERGE, "t",
                           "the solution became non-finite at t = %.17g (unknown %d)", t, i);
        big = a > big ? a : big;
    }
    if (with_limit && big > w->o.limit)
        return kf_fail(err, KF_EDIVERGE, "t",
                       "the solution diverged at t = %.17g: max |d| = %g exceeds the limit %g", t,
                       big, w->o.limit);
    return KF_OK;
}

/* After an accepted step: the user's progress callback may stop the run. */
static int progress(const kf_integ *w, double t, kf_error *err)
{
    if (w->o.progress && w->o.progress(t, w->o.progress_params))
        return kf_fail(err, KF_ECALLBACK, "progress",
                       "stopped by the progress callback at t = %.17g", t);
    return KF_OK;
}

/* Write one output row: x[i] to row[map[i]]. */
static void put_row(double *row, const int *map, int n, const double *x)
{
    if (!row)
        return;
    for (int i = 0; i < n; i++)
        row[map ? map[i] : i] = x[i];
}

/* p = M v + G(t) d + h(t) (needs the canonical callback); p must not be
 * one of the vectors the callback writes (h, r). */
static int momentum(kf_integ *w, double t, const double *d, const double *v, double *p,
                    kf_stats *st, kf_error *err)
{
    int rc = eval_canonical(w, t, st, err);
    if (rc)
        return callback_status(rc, t, err);
    memcpy(p, w->h, (size_t)w->n * sizeof(double));
    kf_mat_gemv(w->p.M, 1.0, v, 1.0, p);
    kf_mat_gemv(&w->A, 1.0, d, 1.0, p);
    return KF_OK;
}

/* v = M^-1 (p - G(t) d - h(t)); also leaves G, K_H, h, b(t) in the workspace. */
static int velocity(kf_integ *w, double t, const double *d, const double *p, double *v,
                    kf_stats *st, kf_error *err)
{
    int rc = eval_canonical(w, t, st, err);
    if (rc)
        return rc;
    for (int i = 0; i < w->n; i++)
        v[i] = p[i] - w->h[i];
    kf_mat_gemv(&w->A, -1.0, d, 1.0, v);
    return solve_M(w, v, st, err);
}

/* Validate the output times and initial state. */
static int check_run(const kf_integ *w, double t0, const double *d0, const double *v0,
                     int nout, const double *tout, int ld, const int *map, kf_error *err)
{
    if (!isfinite(t0))
        return kf_fail(err, KF_EINVAL, "t0", "t0 = %g must be finite", t0);
    if (!d0 || !v0)
        return kf_fail(err, KF_EINVAL, "d0", "d0 and v0 must not be NULL");
    for (int i = 0; i < w->n; i++) {
        if (!isfinite(d0[i]))
            return kf_fail(err, KF_EINVAL, "d0", "d0[%d] = %g at t = %g is not finite", i, d0[i],
                           t0);
        if (!isfinite(v0[i]))
            return kf_fail(err, KF_EINVAL, "v0", "v0[%d] = %g at t = %g is not finite", i, v0[i],
                           t0);
    }
    int rc = kf_check_outputs(t0, nout, tout, "t_eval", err);
    if (rc)
        return rc;
    if (!(tout[nout - 1] > t0))
        return kf_fail(err, KF_EINVAL, "t_end", "the last output time %g must be after t0 = %g",
                       tout[nout - 1], t0);
    int width = w->n;
    if (map)
        for (int i = 0; i < w->n; i++)
            width = map[i] + 1 > width ? map[i] + 1 : width;
    if (ld < width)
        return kf_fail(err, KF_EINVAL, "ld", "output rows of %d entries cannot hold column %d",
                       ld, width - 1);
    if (map)
        for (int i = 0; i < w->n; i++)
            if (map[i] < 0)
                return kf_fail(err, KF_EINVAL, "map", "map[%d] = %d is negative", i, map[i]);
    return KF_OK;
}

/*
 * Write the outputs of instant k: d, and d' and p where asked.  Either v or p
 * may be NULL (the state holds the other); the missing one comes from the
 * canonical callback.  Uses w->s as scratch.
 */
static int emit(kf_integ *w, double tk, int k, const double *d, const double *v,
                const double *p, int ld, const int *map, double *dout, double *vout,
                double *pout, kf_stats *st, kf_error *err)
{
    int n = w->n, rc;
    size_t row = (size_t)k * ld;
    put_row(dout ? dout + row : NULL, map, n, d);
    if (vout && !v) {
        if ((rc = velocity(w, tk, d, p, w->s, st, err)))
            return callback_status(rc, tk, err);
        v = w->s;
    }
    put_row(vout ? vout + row : NULL, map, n, v);
    if (pout && !p) {
        if ((rc = momentum(w, tk, d, v, w->s, st, err)))
            return rc;
        p = w->s;
    }
    put_row(pout ? pout + row : NULL, map, n, p);
    return KF_OK;
}

/* ---------------------------------------------------------------- implicit methods */

/*
 * Generalized-alpha in the acceleration form; Newmark is am = af = 0,
 * beta = 1/4, gamma = 1/2.  Balance at t_{n+1-af}:
 *   M a_{n+1-am} + C v_{n+1-af} + K d_{n+1-af} = f(t_{n+1-af}),
 * x_{n+1-a} = (1 - a) x_{n+1} + a x_n, with C, K taken at t_{n+1-af};
 *   d_{n+1} = d* + beta h^2 a_{n+1},  v_{n+1} = v* + gamma h a_{n+1},
 *   d* = d_n + h v_n + (1/2 - beta) h^2 a_n,  v* = v_n + (1 - gamma) h a_n.
 */
static int run_implicit(kf_integ *w, double t0, int nout, const double *tout, int ld,
                        const int *map, double *dout, double *vout, double *pout,
                        kf_stats *st, kf_error *err)
{
    int n = w->n;
    double am = 0.0, af = 0.0, beta = 0.25, gamma = 0.5;
    if (w->o.method == KF_GENALPHA) {
        double r = w->o.rho_inf;
        am = (2.0 * r - 1.0) / (r + 1.0);
        af = r / (r + 1.0);
        gamma = 0.5 - am + af;
        beta = 0.25 * (1.0 - am + af) * (1.0 - am + af);
    }
    double tend = tout[nout - 1], span = tend - t0;
    double nsteps_f = ceil(span / w->o.dt * (1.0 - 4.0 * DBL_EPSILON));
    if (nsteps_f > (double)w->o.max_steps)
        return kf_fail(err, KF_ESTEPS, "dt",
                       "dt = %g needs %.0f steps to reach t = %g, more than max_steps = %ld",
                       w->o.dt, nsteps_f, tend, w->o.max_steps);
    long nsteps = nsteps_f < 1.0 ? 1 : (long)nsteps_f;
    double h = span / (double)nsteps;

    /* initial acceleration: M a0 = f - C v0 - K d0 */
    int rc = factor_M(w, st, err);
    if (rc)
        return rc;
    rc = eval_second(w, t0, st, err);
    if (rc)
        return callback_status(rc, t0, err);
    memcpy(w->a, w->f, (size_t)n * sizeof(double));
    kf_mat_gemv(&w->A, -1.0, w->v, 1.0, w->a);
    kf_mat_gemv(&w->B, -1.0, w->d, 1.0, w->a);
    if (solve_M(w, w->a, st, err))
        return err->code;
    if (check_state(w, t0, w->a, 0, err))
        return kf_fail(err, KF_EDIVERGE, "t",
                       "the initial acceleration is not finite at t = %.17g: check the loads "
                       "and the motion",
                       t0);

    int k = 0;
    double *d = w->d, *v = w->v, *a = w->a, *d1 = w->d1, *v1 = w->v1, *a1 = w->a1;
    /* predictors d*, v* (and interpolated outputs) in z, u; the balance's
     * combinations in h and (not yet computed) d1 */
    double *ds = w->z, *vs = w->u, *r = w->r;
    for (long step = 0; step < nsteps; step++) {
        double tn = t0 + (double)step * h;
        double t1 = step + 1 == nsteps ? tend : t0 + (double)(step + 1) * h;
        double ta = t1 - af * (t1 - tn);
        /* outputs at t_n (only the first, t0, can fall here) */
        for (; k < nout && tout[k] <= tn; k++)
            if ((rc = emit(w, tout[k], k, d, v, NULL, ld, map, dout, vout, pout, st, err)))
                return rc;
        rc = eval_second(w, ta, st, err);
        if (rc)
            return callback_status(rc, ta, err);
        for (int i = 0; i < n; i++) {
            ds[i] = d[i] + h * v[i] + (0.5 - beta) * h * h * a[i];
            vs[i] = v[i] + (1.0 - gamma) * h * a[i];
        }
        /* E = (1 - am) M + (1 - af) gamma h C + (1 - af) beta h^2 K */
        kf_mat_copy(&w->E, w->p.M);
        if (am != 0.0)
            kf_mat_scale(&w->E, 1.0 - am);
        kf_mat_axpy(&w->E, (1.0 - af) * gamma * h, &w->A);
        kf_mat_axpy(&w->E, (1.0 - af) * beta * h * h, &w->B);
        /* r = f - am M a - C ((1 - af) v* + af v) - K ((1 - af) d* + af d) */
        double *vm = w->h, *dm = d1;
        for (int i = 0; i < n; i++) {
            vm[i] = (1.0 - af) * vs[i] + af * v[i];
            dm[i] = (1.0 - af) * ds[i] + af * d[i];
        }
        memcpy(r, w->f, (size_t)n * sizeof(double));
        if (am != 0.0)
            kf_mat_gemv(w->p.M, -am, a, 1.0, r);
        kf_mat_gemv(&w->A, -1.0, vm, 1.0, r);
        kf_mat_gemv(&w->B, -1.0, dm, 1.0, r);
        st->factorizations++;
        rc = kf_mat_lu(&w->E, w->ipiv, err);
        if (rc)
            return kf_fail(err, rc, "dt",
                           "the effective matrix is singular at t = %.17g (%s); try another dt",
                           ta, err->msg);
        st->solves++;
        memcpy(a1, r, (size_t)n * sizeof(double));
        if ((rc = kf_mat_lu_solve(&w->E, w->ipiv, 1, a1, n, err)))
            return rc;
        for (int i = 0; i < n; i++) {
            d1[i] = ds[i] + beta * h * h * a1[i];
            v1[i] = vs[i] + gamma * h * a1[i];
        }
        if ((rc = check_state(w, t1, d1, 1, err)) || (rc = check_state(w, t1, v1, 0, err)))
            return rc;
        st->steps++;
        /* outputs in (t_n, t_{n+1}]: cubic Hermite in (d, v) and (v, a) */
        for (; k < nout && tout[k] <= t1; k++) {
            double th = (tout[k] - tn) / h, th2 = th * th, th3 = th2 * th;
            double h00 = 2 * th3 - 3 * th2 + 1, h10 = (th3 - 2 * th2 + th) * h;
            double h01 = -2 * th3 + 3 * th2, h11 = (th3 - th2) * h;
            for (int i = 0; i < n; i++) {
                ds[i] = h00 * d[i] + h10 * v[i] + h01 * d1[i] + h11 * v1[i];
                vs[i] = h00 * v[i] + h10 * a[i] + h01 * v1[i] + h11 * a1[i];
            }
            if ((rc = emit(w, tout[k], k, ds, vs, NULL, ld, map, dout, vout, pout, st, err)))
                return rc;
        }
        double *tmp;
        tmp = d, d = d1, d1 = tmp;
        tmp = v, v = v1, v1 = tmp;
        tmp = a, a = a1, a1 = tmp;
        if ((rc = progress(w, t1, err)))
            return rc;
    }
    /* keep the workspace pointers valid for the next run */
    w->d = d, w->v = v, w->a = a, w->d1 = d1, w->v1 = v1, w->a1 = a1;
    return KF_OK;
}

/* ---------------------------------------------------------------- Dormand-Prince 5(4) */

/* The driver's right-hand side: dy = F(t, y) for the chosen first-order form. */
static int rk_rhs(double t, const double *y, double *dy, void *params, kf_error *err)
{
    kf_integ *w = params;
    kf_stats *st = w->run.st;
    int n = w->n, rc;
    const double *d = y, *z = y + n; /* z = d' or p */
    double *dd = dy, *dz = dy + n;
    if (w->o.method == KF_RK45_LAGRANGE) {
        /* d'' = M^-1 (f - C d' - K d) */
        if (w->p.accel) {
            st->evaluations++;
            st->solves++; /* one application of M^-1 */
            err->code = 0;
            memcpy(dd, z, (size_t)n * sizeof(double));
            return stopped(w->p.accel(t, d, z, dz, w->p.params, err), t, err);
        }
        if ((rc = eval_second(w, t, st, err)))
            return rc;
        memcpy(dd, z, (size_t)n * sizeof(double));
        memcpy(dz, w->f, (size_t)n * sizeof(double));
        kf_mat_gemv(&w->A, -1.0, z, 1.0, dz);
        kf_mat_gemv(&w->B, -1.0, d, 1.0, dz);
        return solve_M(w, dz, st, err);
    }
    /* d' = M^-1 (p - G d - h),  p' = b - G d' - D d' - K_H d */
    if ((rc = velocity(w, t, d, z, dd, st, err)))
        return rc;
    memcpy(dz, w->r, (size_t)n * sizeof(double));
    kf_mat_gemv(&w->A, -1.0, dd, 1.0, dz);
    if (w->p.D)
        kf_mat_gemv(w->p.D, -1.0, dd, 1.0, dz);
    kf_mat_gemv(&w->B, -1.0, d, 1.0, dz);
    return KF_OK;
}

/* The driver's output k: the state's second half is d' (Lagrange) or p (Hamilton). */
static int rk_out(int k, double t, const double *y, void *params, kf_error *err)
{
    kf_integ *w = params;
    int lagrange = w->o.method == KF_RK45_LAGRANGE;
    const double *z = y + w->n;
    return emit(w, t, k, y, lagrange ? z : NULL, lagrange ? NULL : z, w->run.ld, w->run.map,
                w->run.dout, w->run.vout, w->run.pout, w->run.st, err);
}

/* After each accepted step: divergence (limit on d), then the user's progress. */
static int rk_step(double t, const double *y, void *params, kf_error *err)
{
    kf_integ *w = params;
    int rc;
    if ((rc = check_state(w, t, y, 1, err)) || (rc = check_state(w, t, y + w->n, 0, err)))
        return rc;
    return progress(w, t, err);
}

static int run_rk(kf_integ *w, double t0, int nout, const double *tout, int ld, const int *map,
                  double *dout, double *vout, double *pout, kf_stats *st, kf_error *err)
{
    int n = w->n, rc;
    rc = factor_M(w, st, err);
    if (rc)
        return rc;
    /* the state: (d, d') or (d, p); w->y0 holds d0 and v0 on entry */
    if (w->o.method == KF_RK45_HAMILTON) {
        if ((rc = momentum(w, t0, w->y0, w->y0 + n, w->s, st, err)))
            return rc;
        memcpy(w->y0 + n, w->s, (size_t)n * sizeof(double));
    }
    w->run.ld = ld, w->run.map = map;
    w->run.dout = dout, w->run.vout = vout, w->run.pout = pout;
    w->run.st = st;
    kf_stats os;
    rc = kf_ode_run(w->ode, t0, w->y0, nout, tout, &os, err);
    /* the driver counts steps; evaluations, factorizations and solves are
     * counted here, by the right-hand side */
    st->steps = os.steps;
    st->rejected = os.rejected;
    return rc;
}

int kf_integ_run(kf_integ *w, double t0, const double *d0, const double *v0, int nout,
                 const double *tout, int ld, const int *map, double *dout, double *vout,
                 double *pout, kf_stats *stats, kf_error *err)
{
    kf_error local = {0};
    if (!err)
        err = &local;
    kf_stats st = {0};
    if (stats)
        *stats = st;
    if (!w)
        return kf_fail(err, KF_EINVAL, "integrator", "integrator is NULL");
    int rc = kf_lapack_require(err);
    if (!rc)
        rc = check_run(w, t0, d0, v0, nout, tout, ld, map, err);
    if (rc)
        return rc;
    if (pout && !w->p.canonical)
        return kf_fail(err, KF_EINVAL, "p", "the momentum needs the problem's canonical callback");
    size_t bytes = (size_t)w->n * sizeof(double);
    if (w->o.method == KF_NEWMARK || w->o.method == KF_GENALPHA) {
        memcpy(w->d, d0, bytes);
        memcpy(w->v, v0, bytes);
        rc = run_implicit(w, t0, nout, tout, ld, map, dout, vout, pout, &st, err);
    } else {
        memcpy(w->y0, d0, bytes);
        memcpy(w->y0 + w->n, v0, bytes);
        rc = run_rk(w, t0, nout, tout, ld, map, dout, vout, pout, &st, err);
    }
    if (stats)
        *stats = st;
    return rc;
}
