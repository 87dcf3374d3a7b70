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
 *     generalized-alpha method of Chung and Hulbert (1993), both the core's
 *     one generalized-alpha stepper (kf_ga, first in this file; the flexible
 *     mechanism of kf_flexmech.c steps on it too).  One evaluation of C, K, f
 *     per step, the effective matrix factored only where it changed; with a
 *     conservative system (C skew, K symmetric, f constant) Newmark conserves
 *     the quadratic energy exactly, which the tests use.
 *   - adaptive Dormand-Prince 5(4) on the state (d, d') (Lagrange) or (d, p)
 *     (Hamilton): the core's ODE driver (kf_ode.c, SciPy's step control,
 *     Hairer's dense output) with this file's right-hand side, outputs and
 *     divergence check as its callbacks.
 *
 * The integrator reaches the problem only through the kf_lin2 callbacks, the
 * matrices only through kf_mat and their factors only through kf_linsol
 * (kf_solver.h), so the same code runs dense, banded or sparse.
 * Everything is allocated in kf_integ_create; kf_integ_run does not
 * allocate.
 */
#include "kf_internal.h"

#include <float.h>
#include <string.h>

#define KF_DEFAULT_MAX_STEPS 100000000L
#define KF_DEFAULT_LIMIT 1e100

/* ================================================================ the generalized-alpha stepper */

void kf_ga_coefficients(double rho_inf, kf_ga_opts *o)
{
    double r = rho_inf;
    o->am = (2.0 * r - 1.0) / (r + 1.0);
    o->af = r / (r + 1.0);
    o->gamma = 0.5 - o->am + o->af;
    o->beta = 0.25 * (1.0 - o->am + o->af) * (1.0 - o->am + o->af);
}

int kf_check_ga_run(double dt, double rho_inf, double tol, int max_iter, kf_error *err)
{
    if (!(dt > 0.0 && isfinite(dt)))
        return kf_fail(err, KF_EINVAL, "dt", "dt = %g must be > 0", dt);
    if (!(rho_inf >= 0.0 && rho_inf <= 1.0))
        return kf_fail(err, KF_EINVAL, "rho_inf", "rho_inf = %g must lie in [0, 1]", rho_inf);
    if (!(tol > 0.0 && tol < 1.0) || max_iter < 1)
        return kf_fail(err, KF_EINVAL, "tol", "tol = %g must lie in (0, 1) and max_iter = %d be "
                       ">= 1", tol, max_iter);
    return KF_OK;
}

struct kf_ga {
    kf_ga_problem p;
    kf_ga_opts o;
    kf_linsol *ls;
    kf_mat J, Jf;   /* the iteration matrix; linear: the one factored (Jf) */
    double hfact;   /* nonlinear: the step J was factored for (0: none yet) */
    int factored;
    double *de, *ve, *ae, *R; /* the evaluation point and the residual / correction */
    double *buf;
};

void kf_ga_free(kf_ga *g)
{
    if (!g)
        return;
    kf_linsol_free(g->ls);
    kf_mat_free(&g->J);
    kf_mat_free(&g->Jf);
    free(g->buf);
    free(g);
}

kf_linsol *kf_ga_solver(kf_ga *g) { return g ? g->ls : NULL; }

int kf_ga_create(kf_ga **out, const kf_ga_problem *p, const kf_ga_opts *o, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (!p || !o || p->n < 1 || !p->like || p->like->n != p->n || !p->residual || !p->jacobian)
        return kf_fail(err, KF_EINVAL, "problem", "the stepper needs n >= 1, an n x n storage "
                       "template, a residual and a Jacobian");
    if (!(o->am < 1.0 && o->af >= 0.0 && o->af < 1.0 && o->beta > 0.0 && o->gamma > 0.0) ||
        (o->form != KF_GA_SHIFTED && o->form != KF_GA_ALGORITHMIC))
        return kf_fail(err, KF_EINVAL, "rho_inf", "bad generalized-alpha coefficients (am %g, "
                       "af %g, beta %g, gamma %g, form %d)", o->am, o->af, o->beta, o->gamma,
                       o->form);
    if (!o->linear && (!(o->tol > 0.0 && o->tol < 1.0) || o->max_iter < 1))
        return kf_fail(err, KF_EINVAL, "tol", "tol = %g must lie in (0, 1) and max_iter = %d be "
                       ">= 1", o->tol, o->max_iter);
    kf_ga *g = kf_calloc(1, sizeof *g);
    if (!g)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a stepper");
    g->p = *p;
    g->o = *o;
    int rc = o->linsol ? o->linsol(&g->ls, p->like, o->linsol_params, err)
                       : kf_linsol_default(&g->ls, p->like, err);
    if (!rc)
        rc = kf_mat_alloc_like(&g->J, p->like, err);
    if (!rc && o->linear)
        rc = kf_mat_alloc_like(&g->Jf, p->like, err);
    if (!rc && !(g->buf = kf_calloc(4 * (size_t)p->n, sizeof(double))))
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a stepper of %d unknowns", p->n);
    if (rc) {
        kf_ga_free(g);
        return rc;
    }
    g->de = g->buf;
    g->ve = g->de + p->n;
    g->ae = g->ve + p->n;
    g->R = g->ae + p->n;
    *out = g;
    return KF_OK;
}

/* The state of iterate a1: (d1, v1, al1) and the evaluation point (de, ve, ae). */
static void ga_state(const kf_ga *g, double h, const double *d0, const double *v0,
                     const double *a0, const double *al0, const double *a1, double *d1,
                     double *v1, double *al1, double *de, double *ve, double *ae)
{
    int n = g->p.n;
    double am = g->o.am, af = g->o.af, bet = g->o.beta, gam = g->o.gamma;
    if (g->o.form == KF_GA_SHIFTED) {
        for (int i = 0; i < n; i++) {
            double ds = d0[i] + h * v0[i] + (0.5 - bet) * h * h * a0[i];
            double vs = v0[i] + (1.0 - gam) * h * a0[i];
            d1[i] = ds + bet * h * h * a1[i];
            v1[i] = vs + gam * h * a1[i];
            al1[i] = a1[i];
            de[i] = (1.0 - af) * d1[i] + af * d0[i];
            ve[i] = (1.0 - af) * v1[i] + af * v0[i];
            ae[i] = (1.0 - am) * a1[i] + am * a0[i];
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        al1[i] = ((1.0 - af) * a1[i] + af * a0[i] - am * al0[i]) / (1.0 - am);
        d1[i] = d0[i] + h * v0[i] + h * h * ((0.5 - bet) * al0[i] + bet * al1[i]);
        v1[i] = v0[i] + h * ((1.0 - gam) * al0[i] + gam * al1[i]);
    }
}

int kf_ga_step(kf_ga *g, double t1, double h, const double *d0, const double *v0,
               const double *a0, const double *al0, double *d1, double *v1, double *a1,
               double *al1, kf_stats *st, kf_error *err)
{
    int n = g->p.n, rc, shifted = g->o.form == KF_GA_SHIFTED;
    double am = g->o.am, af = g->o.af, bet = g->o.beta, gam = g->o.gamma;
    double cm, cv, cd, te;
    if (shifted) {
        cm = 1.0 - am, cv = (1.0 - af) * gam * h, cd = (1.0 - af) * bet * h * h;
        te = t1 - af * h;
    } else {
        double kappa = (1.0 - af) / (1.0 - am);
        cm = 1.0, cv = h * gam * kappa, cd = h * h * bet * kappa;
        te = t1;
    }
    /* the evaluation point: the shifted form's own vectors, the algorithmic
     * form's new state */
    double *de = shifted ? g->de : d1, *ve = shifted ? g->ve : v1, *ae = shifted ? g->ae : a1;
    double *R = g->R;
    int linear = g->o.linear, max_iter = linear ? 1 : g->o.max_iter, conv = 0;
    if (linear)
        memset(a1, 0, (size_t)n * sizeof(double));
    else
        memcpy(a1, a0, (size_t)n * sizeof(double));
    double scale = 0.0, prev = INFINITY, rate = 0.0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, fabs(a0[i]));
    for (int it = 0; it < max_iter && !conv; it++) {
        ga_state(g, h, d0, v0, a0, al0, a1, d1, v1, al1, de, ve, ae);
        st->evaluations++;
        if ((rc = g->p.residual(te, de, ve, ae, it, R, g->p.params, err)))
            return rc;
        int fresh;
        if (linear) {
            /* J every step; factored again only where it changed */
            if ((rc = g->p.jacobian(cm, cv, cd, &g->J, g->p.params, err)))
                return rc;
            fresh = !g->factored || memcmp(g->J.a, g->Jf.a, kf_mat_nvalues(&g->J) * sizeof(double));
            if (fresh)
                kf_mat_copy(&g->Jf, &g->J);
        } else {
            fresh = !g->factored || fabs(h - g->hfact) > 1e-9 * h ||
                    (it > 0 && !(rate < g->o.refactor_rate));
            if (fresh && (rc = g->p.jacobian(cm, cv, cd, &g->J, g->p.params, err)))
                return rc;
        }
        if (fresh) {
            st->factorizations++;
            g->factored = 0;
            if ((rc = kf_linsol_setup(g->ls, &g->J, err)))
                return kf_fail(err, rc, "dt", "the iteration matrix is singular at t = %.9g s "
                               "(%.400s); try another dt", te, err->msg);
            g->factored = 1;
            g->hfact = h;
        }
        st->solves++;
        for (int i = 0; i < n; i++)
            R[i] = -R[i];
        if ((rc = kf_linsol_solve(g->ls, 1, R, n, err)))
            return rc;
        double step = 0.0;
        for (int i = 0; i < n; i++) {
            a1[i] += R[i];
            step = fmax(step, fabs(R[i]));
            scale = fmax(scale, fabs(a1[i]));
        }
        if (!isfinite(step))
            return kf_fail(err, KF_EDIVERGE, "dt", "the solution became non-finite at t = %.9g "
                           "s; try a smaller dt", t1);
        if (linear)
            break;
        /* converged: this correction, or the ones still to come at its rate of
         * convergence (rate / (1 - rate) of it, below 0.1 of it: SUNDIALS' test),
         * below tol; or at round-off: the corrections stop shrinking while already
         * far below the accelerations' own size */
        rate = it > 0 ? step / prev : 0.0;
        conv = step <= g->o.tol * scale || step == 0.0 ||
               (it > 0 && rate < 0.09 && step * rate / (1.0 - rate) <= g->o.tol * scale) ||
               (it >= 2 && step >= 0.5 * prev && step <= 1e-6 * scale);
        prev = step;
    }
    if (!linear && !conv)
        return kf_fail(err, KF_ENOCONV, "dt", "Newton's method did not converge in %d "
                       "iterations at t = %.9g s (step %.3g s); try a smaller dt", max_iter,
                       t1, h);
    /* the state of the converged acceleration */
    ga_state(g, h, d0, v0, a0, al0, a1, d1, v1, al1, g->de, g->ve, g->ae);
    return KF_OK;
}

/* ================================================================ linear second-order systems */

struct kf_integ {
    kf_lin2 p;
    kf_integ_opts o;
    int n;
    /* matrices handed to the callbacks: (C, K) or (G, K_H); the solver of M;
     * the implicit methods' stepper */
    kf_mat A, B;
    kf_linsol *Msol;
    kf_ga *ga;
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
    kf_linsol_free(w->Msol);
    kf_ga_free(w->ga);
    kf_ode_free(w->ode);
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
static kf_ga_residual_fn lin2_residual;
static kf_ga_jacobian_fn lin2_jacobian;

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
        rc = opt->linsol ? opt->linsol(&w->Msol, M, opt->linsol_params, err)
                         : kf_linsol_default(&w->Msol, M, err);
    int implicit = opt->method == KF_NEWMARK || opt->method == KF_GENALPHA;
    if (!rc && implicit) {
        kf_ga_problem gp = {n, M, lin2_residual, lin2_jacobian, w};
        kf_ga_opts go = {.am = 0.0, .af = 0.0, .beta = 0.25, .gamma = 0.5,
                         .form = KF_GA_SHIFTED, .linear = 1, .linsol = opt->linsol,
                         .linsol_params = opt->linsol_params};
        if (opt->method == KF_GENALPHA)
            kf_ga_coefficients(opt->rho_inf, &go);
        rc = kf_ga_create(&w->ga, &gp, &go, err);
    }
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
    if (!w->buf) {
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

/* C -> A, K -> B, f -> f (counted by the caller) */
static int call_second(kf_integ *w, double t, kf_error *err)
{
    err->code = 0;
    return stopped(w->p.second(t, &w->A, &w->B, w->f, w->p.params, err), t, err);
}

static int eval_second(kf_integ *w, double t, kf_stats *st, kf_error *err)
{
    st->evaluations++;
    return call_second(w, t, err);
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
    return kf_linsol_solve(w->Msol, 1, x, w->n, err) ? -1 : 0;
}

static int factor_M(kf_integ *w, kf_stats *st, kf_error *err)
{
    st->factorizations++;
    int rc = w->Msol ? KF_OK
             : w->o.linsol ? w->o.linsol(&w->Msol, w->p.M, w->o.linsol_params, err)
                           : kf_linsol_default(&w->Msol, w->p.M, err);
    if (!rc)
        rc = kf_linsol_setup(w->Msol, w->p.M, err);
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

/* The stepper's residual of M d'' + C d' + K d = f: R = M a + C v + K d - f(t),
 * one evaluation of the problem (the stepper counts it). */
static int lin2_residual(double t, const double *d, const double *v, const double *a, int iter,
                         double *R, void *params, kf_error *err)
{
    (void)iter;
    kf_integ *w = params;
    int n = w->n, rc = call_second(w, t, err);
    if (rc)
        return callback_status(rc, t, err);
    for (int i = 0; i < n; i++)
        R[i] = -w->f[i];
    kf_mat_gemv(w->p.M, 1.0, a, 1.0, R);
    kf_mat_gemv(&w->A, 1.0, v, 1.0, R);
    kf_mat_gemv(&w->B, 1.0, d, 1.0, R);
    return KF_OK;
}

/* J = cm M + cv C + cd K of the last evaluation (the effective matrix). */
static int lin2_jacobian(double cm, double cv, double cd, kf_mat *J, void *params,
                         kf_error *err)
{
    (void)err;
    kf_integ *w = params;
    kf_mat_copy(J, w->p.M);
    if (cm != 1.0)
        kf_mat_scale(J, cm);
    kf_mat_axpy(J, cv, &w->A);
    kf_mat_axpy(J, cd, &w->B);
    return KF_OK;
}

/*
 * Newmark and generalized-alpha (Chung and Hulbert's shifted balance) on the
 * stepper kf_ga: equal steps from t0 to the last output, cubic Hermite
 * outputs between steps.
 */
static int run_implicit(kf_integ *w, double t0, int nout, const double *tout, int ld,
                        const int *map, double *dout, double *vout, double *pout,
                        kf_stats *st, kf_error *err)
{
    int n = w->n;
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
    /* M's factor served a0 only: a mesh's is as large as the step's, so it goes now
     * (factor_M makes the solver again for another run) */
    kf_linsol_free(w->Msol);
    w->Msol = NULL;

    int k = 0;
    double *d = w->d, *v = w->v, *a = w->a, *d1 = w->d1, *v1 = w->v1, *a1 = w->a1;
    /* interpolated outputs in z, u; the algorithmic acceleration (= a) in h */
    double *di = w->z, *vi = w->u;
    for (long step = 0; step < nsteps; step++) {
        double tn = t0 + (double)step * h;
        double t1 = step + 1 == nsteps ? tend : t0 + (double)(step + 1) * h;
        /* outputs at t_n (only the first, t0, can fall here) */
        for (; k < nout && tout[k] <= tn; k++)
            if ((rc = emit(w, tout[k], k, d, v, NULL, ld, map, dout, vout, pout, st, err)))
                return rc;
        /* (the last step ends at tend, an ulp off tn + h at most) */
        if ((rc = kf_ga_step(w->ga, t1, h, d, v, a, a, d1, v1, a1, w->h, st, err)))
            return rc;
        if ((rc = check_state(w, t1, d1, 1, err)) || (rc = check_state(w, t1, v1, 0, err)))
            return rc;
        st->steps++;
        /* outputs in (t_n, t_{n+1}]: cubic Hermite in (d, v) and (v, a) */
        for (; k < nout && tout[k] <= t1; k++) {
            double th = (tout[k] - tn) / h, th2 = th * th, th3 = th2 * th;
            double h00 = 2 * th3 - 3 * th2 + 1, h10 = (th3 - 2 * th2 + th) * h;
            double h01 = -2 * th3 + 3 * th2, h11 = (th3 - th2) * h;
            for (int i = 0; i < n; i++) {
                di[i] = h00 * d[i] + h10 * v[i] + h01 * d1[i] + h11 * v1[i];
                vi[i] = h00 * v[i] + h10 * a[i] + h01 * v1[i] + h11 * a1[i];
            }
            if ((rc = emit(w, tout[k], k, di, vi, NULL, ld, map, dout, vout, pout, st, err)))
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
