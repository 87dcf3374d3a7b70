/*
 * kf_ode.c -- the core's one adaptive Dormand-Prince 5(4) driver for
 * first-order systems y' = f(t, y) (the API is in kanefem.h, "adaptive ODE
 * driver").
 *
 * The method: Dormand and Prince's 7-stage pair (Hairer, Norsett, Wanner,
 * Solving ODEs I, Table 5.2), advancing with the fifth-order solution, its
 * last stage f(t_n+1, y_n+1) reused as the next step's first (FSAL); between
 * step ends, Hairer's continuous extension of order 4 (DOPRI5's contd5).
 *
 * The step control copies SciPy's RK45 (scipy/integrate/_ivp/rk.py) so that
 * step counts compare with solve_ivp one to one (tests/test_integrate.py
 * checks it): the error norm, the factors, the rule that a step accepted
 * after a rejection does not grow, and Hairer's starting step.  Three things
 * SciPy does not have:
 *   - a step whose stages f cannot evaluate (recoverable failure, > 0) or
 *     whose error estimate overflows is retried at a quarter of its size,
 *     the cause kept for the message if no step small enough exists;
 *   - a last step within 1 % of the end is stretched to it rather than
 *     followed by a sliver (Hairer);
 *   - land_on_outputs makes every output time a step end.
 *
 * Everything is allocated in kf_ode_create; kf_ode_run does not allocate.
 */
#include "kf_internal.h"

#include <string.h>

#define KF_ODE_DEFAULT_MAX_STEPS 100000000L
/* consecutive recoverable failures of f before the driver gives up */
#define KF_ODE_MAX_RETRIES 12

/* Dormand-Prince 5(4): nodes, stage coefficients (row 6 = the fifth-order
 * weights, so that stage 7 is f at the new point) */
static const double DP_C[7] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
static const double DP_A[7][6] = {
    {0},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
/* fifth-order weights minus the embedded fourth-order ones: the error estimate */
static const double DP_E[7] = {71.0 / 57600,      0.0, -71.0 / 16695, 71.0 / 1920,
                               -17253.0 / 339200, 22.0 / 525, -1.0 / 40};
/* Hairer's dense output (DOPRI5, contd5) */
static const double DP_D[7] = {-12715105075.0 / 11282082432.0, 0.0,
                               87487479700.0 / 32700410799.0,  -10690763975.0 / 1880347072.0,
                               701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                               69997945.0 / 29380423.0};

struct kf_ode {
    kf_ode_system sys;
    kf_ode_opts o;
    /* the state at t and at the end of the trial step, a stage argument or
     * an output; the stages; the dense-output coefficients of the step */
    double *y, *y1, *ytmp, *k[7], *rc[5];
    double *buf;
};

/* Why the last trial step was rejected: what to report if no smaller step helps. */
enum { REJ_ERROR = 0, REJ_FAILED = 1, REJ_NONFINITE = 2 };

void kf_ode_free(kf_ode *w)
{
    if (!w)
        return;
    free(w->buf);
    free(w);
}

int kf_ode_create(kf_ode **out, const kf_ode_system *sys, const kf_ode_opts *opts,
                  kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (!sys || !opts)
        return kf_fail(err, KF_EINVAL, "system", "system and options must not be NULL");
    if (sys->n < 1 || !sys->f || !sys->out)
        return kf_fail(err, KF_EINVAL, "system",
                       "the system needs n >= 1 (n = %d), a right-hand side and an output "
                       "callback",
                       sys->n);
    const kf_ode_opts *o = opts;
    if (!(o->rtol > 0.0) || !isfinite(o->rtol))
        return kf_fail(err, KF_EINVAL, "rtol", "rtol = %g must be > 0 and finite", o->rtol);
    if (!(o->atol > 0.0) || !isfinite(o->atol))
        return kf_fail(err, KF_EINVAL, "atol", "atol = %g must be > 0 and finite", o->atol);
    if (!(o->max_step >= 0.0) || isnan(o->max_step))
        return kf_fail(err, KF_EINVAL, "max_step", "max_step = %g must be >= 0", o->max_step);
    if (!(o->first_step >= 0.0) || !isfinite(o->first_step))
        return kf_fail(err, KF_EINVAL, "first_step",
                       "first_step = %g must be >= 0 (0: automatic) and finite", o->first_step);
    if (o->max_steps < 0)
        return kf_fail(err, KF_EINVAL, "max_steps", "max_steps = %ld must be >= 0",
                       o->max_steps);
    kf_ode *w = kf_calloc(1, sizeof *w);
    size_t m = (size_t)sys->n;
    /* y, y1, ytmp, 7 stages, 5 dense-output coefficients */
    double *q = w ? kf_calloc(15 * m, sizeof(double)) : NULL;
    if (!q) {
        free(w);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the ODE workspace (n = %d)",
                       sys->n);
    }
    w->sys = *sys;
    w->o = *o;
    if (w->o.max_steps == 0)
        w->o.max_steps = KF_ODE_DEFAULT_MAX_STEPS;
    w->buf = q;
    w->y = q, q += m;
    w->y1 = q, q += m;
    w->ytmp = q, q += m;
    for (int i = 0; i < 7; i++, q += m)
        w->k[i] = q;
    for (int i = 0; i < 5; i++, q += m)
        w->rc[i] = q;
    *out = w;
    return KF_OK;
}

/* ---------------------------------------------------------------- helpers */

/* dy = f(t, y).  err is cleared first, so that a failure f does not describe
 * is never reported with an older message; a stop without a message gets one
 * naming the time. */
static int call_f(kf_ode *w, double t, const double *y, double *dy, kf_stats *st,
                  kf_error *err)
{
    st->evaluations++;
    err->code = 0;
    int rc = w->sys.f(t, y, dy, w->sys.params, err);
    if (rc < 0 && !err->code)
        kf_fail(err, KF_ECALLBACK, "", "the right-hand side stopped at t = %.17g (status %d)",
                t, rc);
    if (rc > 0 && !err->code)
        kf_fail(err, KF_ECALLBACK, "",
                "the right-hand side reported a recoverable failure (%d) at t = %.17g", rc, t);
    return rc;
}

/* The status for a nonzero result of out or step: their own error, or a generic one. */
static int stopped_by(const char *what, double t, kf_error *err)
{
    if (err->code)
        return err->code;
    return kf_fail(err, KF_ECALLBACK, what, "the %s callback stopped the integration at t = %.17g",
                   what, t);
}

/* RMS norm of x / scale, scale = atol + rtol max(|y|, |y1|) (y1 may be NULL). */
static double err_norm(const kf_ode *w, const double *x, const double *y, const double *y1)
{
    int m = w->sys.n;
    double s = 0.0;
    for (int i = 0; i < m; i++) {
        double a = fabs(y[i]);
        if (y1 && fabs(y1[i]) > a)
            a = fabs(y1[i]);
        double q = x[i] / (w->o.atol + w->o.rtol * a);
        s += q * q;
    }
    return sqrt(s / m);
}

/* Hairer's starting step (SciPy's select_initial_step for order 4): a step
 * over which an explicit Euler step would change y by 1 % of its scale,
 * corrected by a second-derivative estimate from one more evaluation. */
static int first_step(kf_ode *w, double t0, double span, double *h_out, kf_stats *st,
                      kf_error *err)
{
    int m = w->sys.n;
    const double *y0 = w->y, *f0 = w->k[0];
    double d0 = err_norm(w, y0, y0, NULL), d1 = err_norm(w, f0, y0, NULL);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    if (h0 > span)
        h0 = span;
    for (int i = 0; i < m; i++)
        w->ytmp[i] = y0[i] + h0 * f0[i];
    int rc = call_f(w, t0 + h0, w->ytmp, w->k[1], st, err);
    if (rc > 0) { /* f cannot be evaluated that far out: start small, the control adapts */
        *h_out = h0 * 1e-3;
        return KF_OK;
    }
    if (rc < 0)
        return err->code;
    for (int i = 0; i < m; i++)
        w->k[1][i] -= f0[i];
    double d2 = err_norm(w, w->k[1], y0, NULL) / h0, h1;
    if (d1 <= 1e-15 && d2 <= 1e-15)
        h1 = fmax(1e-6, h0 * 1e-3);
    else
        h1 = pow(0.01 / fmax(d1, d2), 1.0 / 5.0);
    *h_out = fmin(fmin(100 * h0, h1), span);
    return KF_OK;
}

/* Stages 2..7 of a step of size h from (t, y); stage 7 is f(t + h, y1), the
 * next step's first.  Stops at the first failing stage, with f's result. */
static int stages(kf_ode *w, double t, double h, kf_stats *st, kf_error *err)
{
    int m = w->sys.n;
    for (int s = 1; s < 7; s++) {
        double *ys = s < 6 ? w->ytmp : w->y1;
        for (int i = 0; i < m; i++) {
            double acc = 0.0;
            for (int j = 0; j < s; j++)
                acc += DP_A[s][j] * w->k[j][i];
            ys[i] = w->y[i] + h * acc;
        }
        int rc = call_f(w, t + DP_C[s] * h, ys, w->k[s], st, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* The norm of the step's error estimate h sum_j E_j k_j. */
static double step_error(kf_ode *w, double h)
{
    int m = w->sys.n;
    for (int i = 0; i < m; i++) {
        double e = 0.0;
        for (int j = 0; j < 7; j++)
            e += DP_E[j] * w->k[j][i];
        w->ytmp[i] = h * e;
    }
    return err_norm(w, w->ytmp, w->y, w->y1);
}

/*
 * The outputs in (t, t1] of an accepted step of size h: at t1 the step's own
 * solution; between, Hairer's continuous extension
 *   y(t + th h) = r0 + th (r1 + (1 - th) (r2 + th (r3 + (1 - th) r4))),
 * whose coefficients are formed only for steps that need them.
 */
static int emit_step(kf_ode *w, double t, double t1, double h, int *kp, int nout,
                     const double *tout, kf_error *err)
{
    int m = w->sys.n, formed = 0;
    for (; *kp < nout && tout[*kp] <= t1; ++*kp) {
        int k = *kp;
        const double *y = w->y1;
        if (tout[k] < t1) {
            if (!formed) {
                for (int i = 0; i < m; i++) {
                    double y0 = w->y[i], dy = w->y1[i] - y0;
                    double bspl = h * w->k[0][i] - dy;
                    double e5 = 0.0;
                    for (int j = 0; j < 7; j++)
                        e5 += DP_D[j] * w->k[j][i];
                    w->rc[0][i] = y0;
                    w->rc[1][i] = dy;
                    w->rc[2][i] = bspl;
                    w->rc[3][i] = dy - h * w->k[6][i] - bspl;
                    w->rc[4][i] = h * e5;
                }
                formed = 1;
            }
            double th = (tout[k] - t) / h, th1 = 1.0 - th;
            for (int i = 0; i < m; i++)
                w->ytmp[i] = w->rc[0][i] +
                             th * (w->rc[1][i] +
                                   th1 * (w->rc[2][i] + th * (w->rc[3][i] + th1 * w->rc[4][i])));
            y = w->ytmp;
        }
        err->code = 0;
        if (w->sys.out(k, tout[k], y, w->sys.params, err))
            return stopped_by("output", tout[k], err);
    }
    return KF_OK;
}

/* No step down to ten ulps of t gets through (or f failed too often in a
 * row): report why the last trial step was rejected. */
static int give_up(int why, int failures, double t, double hmin, kf_error *err)
{
    if (why == REJ_FAILED) {
        kf_error cause = *err; /* kf_fail must not read the record it writes */
        if (failures > KF_ODE_MAX_RETRIES)
            return kf_fail(err, cause.code, cause.arg,
                           "at t = %.17g the right-hand side failed %d times in a row: %.400s", t,
                           failures, cause.msg);
        return kf_fail(err, cause.code, cause.arg,
                       "at t = %.17g the right-hand side fails for every step down to %g: %.400s",
                       t, hmin, cause.msg);
    }
    if (why == REJ_NONFINITE)
        return kf_fail(err, KF_EDIVERGE, "t", "the solution became non-finite at t = %.17g", t);
    return kf_fail(err, KF_ESTEPS, "rtol",
                   "the step size fell below %g at t = %.17g: the tolerances cannot be met "
                   "(rtol, atol too small for this problem, or the solution is singular there)",
                   hmin, t);
}

/* ---------------------------------------------------------------- the driver */

int kf_check_outputs(double t0, int nout, const double *tout, const char *name, kf_error *err)
{
    if (nout < 1 || !tout)
        return kf_fail(err, KF_EINVAL, name, "at least one output time is needed (nout = %d)",
                       nout);
    for (int k = 0; k < nout; k++)
        if (!isfinite(tout[k]) || tout[k] < t0 || (k > 0 && tout[k] < tout[k - 1]))
            return kf_fail(err, KF_EINVAL, name,
                           "output times must be finite, >= t0 = %g and non-decreasing "
                           "(%s[%d] = %g)",
                           t0, name, k, tout[k]);
    return KF_OK;
}

static int integrate(kf_ode *w, double t0, int nout, const double *tout, kf_stats *st,
                     kf_error *err)
{
    double tend = tout[nout - 1];
    int rc = call_f(w, t0, w->y, w->k[0], st, err);
    if (rc) /* no smaller step can help at t0 itself */
        return err->code;
    /* outputs at t0 before any other evaluation: an output callback then finds
     * f(t0, y0) the last one made, as at every step end */
    int k = 0;
    for (; k < nout && tout[k] <= t0; k++) {
        err->code = 0;
        if (w->sys.out(k, tout[k], w->y, w->sys.params, err))
            return stopped_by("output", tout[k], err);
    }
    if (k == nout)
        return KF_OK;
    double h = w->o.first_step;
    if (h == 0.0 && (rc = first_step(w, t0, tend - t0, &h, st, err)))
        return rc;
    if (w->o.max_step > 0.0 && h > w->o.max_step)
        h = w->o.max_step;

    double t = t0;
    int failures = 0; /* recoverable failures of f in a row */
    while (t < tend) {
        /* the end this step must not pass: the last output, or the next one */
        double target = w->sys.land_on_outputs ? tout[k] : tend;
        int rejected = 0, why = REJ_ERROR;
        for (;;) { /* until a step is accepted */
            if (st->steps + st->rejected >= w->o.max_steps)
                return kf_fail(err, KF_ESTEPS, "max_steps",
                               "max_steps = %ld reached at t = %.17g (step %g): the problem "
                               "may be too stiff for an explicit method",
                               w->o.max_steps, t, h);
            double hmin = 10.0 * (nextafter(t, INFINITY) - t);
            if (h < hmin)
                return give_up(why, failures, t, hmin, err);
            /* land on the target exactly; a remainder within 1 % of h is taken
             * in this step rather than as a tiny extra one (Hairer) */
            int clipped = t + 1.01 * h >= target;
            double t1 = clipped ? target : t + h;
            double hs = t1 - t;
            rc = stages(w, t, hs, st, err);
            if (rc < 0)
                return err->code;
            double en = rc ? NAN : step_error(w, hs);
            if (rc > 0 || !isfinite(en)) {
                /* f failed recoverably or the estimate overflowed: the error
                 * norm says nothing, retry much smaller */
                why = rc > 0 ? REJ_FAILED : REJ_NONFINITE;
                if (rc > 0 && ++failures > KF_ODE_MAX_RETRIES)
                    return give_up(why, failures, t, hmin, err);
                st->rejected++;
                rejected = 1;
                h = 0.25 * hs;
                continue;
            }
            failures = 0;
            if (en > 1.0) {
                st->rejected++;
                rejected = 1;
                why = REJ_ERROR;
                h = hs * fmax(0.2, 0.9 * pow(en, -0.2));
                continue;
            }
            /* accepted */
            double fac = en == 0.0 ? 10.0 : fmin(10.0, 0.9 * pow(en, -0.2));
            if (rejected && fac > 1.0)
                fac = 1.0;
            if ((rc = emit_step(w, t, t1, hs, &k, nout, tout, err)))
                return rc;
            err->code = 0;
            if (w->sys.step && w->sys.step(t1, w->y1, w->sys.params, err))
                return stopped_by("step", t1, err);
            if (w->o.progress && w->o.progress(t1, w->o.progress_params))
                return kf_fail(err, KF_ECALLBACK, "progress",
                               "stopped by the progress function at t = %.17g", t1);
            /* y <- y1, k0 <- k6 (FSAL) */
            double *tmp = w->y;
            w->y = w->y1, w->y1 = tmp;
            tmp = w->k[0], w->k[0] = w->k[6], w->k[6] = tmp;
            t = t1;
            st->steps++;
            double hnext = hs * fac;
            /* a step cut short to land on an output says nothing about the
             * step the solution allows: resume from the step before the cut
             * (else every output restarts the step size from a sliver) */
            if (clipped && fac >= 1.0 && h > hnext)
                hnext = h;
            h = hnext;
            if (w->o.max_step > 0.0 && h > w->o.max_step)
                h = w->o.max_step;
            break;
        }
    }
    return KF_OK;
}

int kf_ode_run(kf_ode *w, double t0, const double *y0, int nout, const double *tout,
               kf_stats *stats, kf_error *err)
{
    kf_error local = {0};
    if (!err)
        err = &local;
    kf_stats st = {0};
    if (stats)
        *stats = st;
    if (!w)
        return kf_fail(err, KF_EINVAL, "driver", "the ODE driver is NULL");
    if (!isfinite(t0))
        return kf_fail(err, KF_EINVAL, "t0", "t0 = %g must be finite", t0);
    if (!y0)
        return kf_fail(err, KF_EINVAL, "y0", "y0 must not be NULL");
    for (int i = 0; i < w->sys.n; i++)
        if (!isfinite(y0[i]))
            return kf_fail(err, KF_EINVAL, "y0", "y0[%d] = %g at t = %g is not finite", i, y0[i],
                           t0);
    int rc = kf_check_outputs(t0, nout, tout, "tout", err);
    if (rc)
        return rc;
    memcpy(w->y, y0, (size_t)w->sys.n * sizeof(double));
    rc = integrate(w, t0, nout, tout, &st, err);
    if (stats)
        *stats = st;
    return rc;
}
