/*
 * kf_path.c -- prescribed paths of polynomial pieces (csrc/kf_mechanism.h,
 * kf_path_pieces): a recorded or sampled trajectory evaluated in the core, so a
 * mechanism driven along it (its rigid motion, its elastic links two ways) calls
 * back into no other language at every evaluation.
 */
#include "kf_internal.h"

#define KF_PATH_MAX_DEG 7

int kf_path_pieces_check(const kf_path_pieces *p, kf_error *err)
{
    if (!p || !p->t || !p->c || p->n < 1)
        return kf_fail(err, KF_EINVAL, "path", "a path needs n >= 1 pieces, breakpoints and "
                       "coefficients");
    if (p->deg < 0 || p->deg > KF_PATH_MAX_DEG)
        return kf_fail(err, KF_EINVAL, "path", "a path's pieces are of degree %d, not in 0..%d",
                       p->deg, KF_PATH_MAX_DEG);
    for (int i = 0; i <= p->n; i++)
        if (!isfinite(p->t[i]) || (i > 0 && !(p->t[i] > p->t[i - 1])))
            return kf_fail(err, KF_EINVAL, "path", "a path's breakpoints must be finite and "
                           "strictly increasing (t[%d] = %g)", i, p->t[i]);
    if (!kf_vec_finite((size_t)p->n * (size_t)(p->deg + 1), p->c))
        return kf_fail(err, KF_EINVAL, "path", "a path's coefficients must be finite");
    return KF_OK;
}

int kf_path_pieces_eval(double t, int k, double *zk, void *params, kf_error *err)
{
    (void)k;
    const kf_path_pieces *p = params;
    int n = p->n, deg = p->deg;
    double t0 = p->t[0], t1 = p->t[n], tol = 1e-12 * (t1 - t0);
    if (!(t >= t0 - tol && t <= t1 + tol))
        return kf_fail(err, KF_EINVAL, "path", "t = %.17g s lies outside the path's span [%.17g, "
                       "%.17g] s", t, t0, t1);
    int lo = 0, hi = n - 1; /* the piece with t_i <= t (the first, the last at the ends) */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (p->t[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    const double *c = p->c + (size_t)lo * (deg + 1);
    double s = t - p->t[lo], z = 0.0, zd = 0.0, zdd = 0.0;
    for (int q = deg; q >= 0; q--) { /* Horner on z and its two derivatives */
        zdd = zdd * s + 2.0 * zd;
        zd = zd * s + z;
        z = z * s + c[q];
    }
    zk[0] = z;
    zk[1] = zd;
    zk[2] = zdd;
    return KF_OK;
}
