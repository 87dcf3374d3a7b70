/*
 * kf_direct.c -- independent numeric routes to the equations of motion
 * (docs/theory.md section 6).
 *
 * The rest of the core never integrates at run time: every motion term is a
 * combination of the inertia invariants (kf_body.c).  Here, on purpose, the
 * generalized inertia forces are computed the way Kane's method states them,
 * by quadrature of (R N)^T a over each element at the given state, so that
 * the two routes can check each other; the points and weights are each element
 * kind's own (kf_body_next_point, i.e. kf_element_get(kind)->eval), so this
 * works for every kind.  And Maggi's projection: a basis of
 * the null space of arbitrary linear constraints G d = 0, by QR with column
 * pivoting, for kf_eig_create_projected.
 */
#include "kf_internal.h"

#include <float.h>
#include <string.h>

/* ---------------------------------------------------------------- inertia forces */

static int finite_vector(int n, const double *v, const char *name, kf_error *err)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return kf_fail(err, KF_EINVAL, name, "%s[%d] = %g is not finite", name, i, v[i]);
    return KF_OK;
}

int kf_body_inertia_forces_direct(const kf_body *b, const double *d, const double *dd,
                                  const double *ddd, const kf_frame *frame, double *fstar,
                                  kf_error *err)
{
    if (!b || !d || !dd || !ddd || !frame || !fstar)
        return kf_fail(err, KF_EINVAL, "d", "body, state, motion and output must not be NULL");
    int rc = kf_frame_check(b->dim, frame, err);
    if (!rc)
        rc = finite_vector(b->ndof, d, "d", err);
    if (!rc)
        rc = finite_vector(b->ndof, dd, "d_t", err);
    if (!rc)
        rc = finite_vector(b->ndof, ddd, "d_tt", err);
    if (rc)
        return rc;

    if (b->given)
        return kf_fail(err, KF_EINVAL, "body", "a given (reduced) body has no elements to "
                       "integrate over: its inertia forces come from the invariants");
    const kf_element_type *el = b->el;
    int dim = b->dim;
    double mu = el->mu(&b->sec);
    double W[9], E[9], WW[9], EW[9];
    kf_frame_operators(dim, frame, W, E, WW);
    for (int k = 0; k < dim * dim; k++)
        EW[k] = E[k] + WW[k]; /* R^T Rddot = E + W W */
    memset(fstar, 0, (size_t)b->ndof * sizeof(double));

    kf_qpoint p = {0};
    while (kf_body_next_point(b, &p)) {
        int ne = p.ne;
        const double *N = p.N;
        /* displacement, its rate and acceleration at the point: N d, N d', N d'' */
        double r[KF_MAX_DIM], u1[KF_MAX_DIM], u2[KF_MAX_DIM], acc[KF_MAX_DIM];
        for (int i = 0; i < dim; i++) {
            double s0 = 0.0, s1 = 0.0, s2 = 0.0;
            for (int a = 0; a < ne; a++) {
                double n = N[i * ne + a];
                s0 += n * d[p.dofs[a]];
                s1 += n * dd[p.dofs[a]];
                s2 += n * ddd[p.dofs[a]];
            }
            r[i] = p.x[i] + s0;
            u1[i] = s1;
            u2[i] = s2;
        }
        /* R^T a = a_O + (E + W W) r + 2 W N d' + N d'' */
        for (int i = 0; i < dim; i++) {
            double v = frame->a[i] + u2[i];
            for (int j = 0; j < dim; j++)
                v += EW[i * dim + j] * r[j] + 2.0 * W[i * dim + j] * u1[j];
            acc[i] = v;
        }
        /* F* -= rho w N^T (R^T a): the partial velocities R N_r dotted with a */
        double mw = mu * p.w;
        for (int a = 0; a < ne; a++) {
            double v = 0.0;
            for (int i = 0; i < dim; i++)
                v += N[i * ne + a] * acc[i];
            fstar[p.dofs[a]] -= mw * v;
        }
        /* a section turning to second order (docs/theory.md section 2.9): the partial
         * velocities gain H d, theta x (theta x r)'s Hessian times d, which meets the
         * rigid motion's acceleration a_O + (E + W W) x (the part linear in d) */
        double Th[3 * KF_MAX_EDOF], rs[3];
        kf_section es;
        if (b->has_second && el->second && el->second(p.xe, kf_body_esec(b, p.e, &es), p.q, Th, rs)) {
            /* theta and r have three components (a planar body's theta along z) */
            double th[3] = {0, 0, 0}, arig[3] = {0, 0, 0};
            for (int i = 0; i < 3; i++)
                for (int a = 0; a < ne; a++)
                    th[i] += Th[i * ne + a] * d[p.dofs[a]];
            for (int i = 0; i < dim; i++) {
                arig[i] = frame->a[i];
                for (int j = 0; j < dim; j++)
                    arig[i] += EW[i * dim + j] * p.x[j];
            }
            double rth = rs[0] * th[0] + rs[1] * th[1] + rs[2] * th[2];
            for (int a = 0; a < ne; a++) {
                double g = rs[0] * Th[a] + rs[1] * Th[ne + a] + rs[2] * Th[2 * ne + a];
                double tt = Th[a] * th[0] + Th[ne + a] * th[1] + Th[2 * ne + a] * th[2], v = 0.0;
                for (int i = 0; i < dim; i++)
                    v += arig[i] * (0.5 * (Th[i * ne + a] * rth + g * th[i]) - rs[i] * tt);
                fstar[p.dofs[a]] -= mw * v;
            }
        }
    }
    if (!kf_vec_finite((size_t)b->ndof, fstar))
        return kf_fail(err, KF_ERANGE, "d",
                       "the inertia forces overflow at this state and motion (omega = (%g, %g, "
                       "%g)): rescale the inputs", frame->omega[0], frame->omega[1],
                       frame->omega[2]);
    return KF_OK;
}

/* ---------------------------------------------------------------- null-space basis */

int kf_null_basis(int m, int n, const double *G, double rtol, int *nfree, double *B,
                  kf_error *err)
{
    if (!nfree || !B || (m > 0 && !G))
        return kf_fail(err, KF_EINVAL, "constraints", "G, nfree and B must not be NULL");
    if (m < 0 || n < 1)
        return kf_fail(err, KF_EINVAL, "constraints",
                       "constraints: G must be m x n with m >= 0, n >= 1 (got %d x %d)", m, n);
    if (!isfinite(rtol) || rtol >= 1.0)
        return kf_fail(err, KF_EINVAL, "rtol",
                       "rtol = %g must be finite and below 1 (at 1 every constraint would be "
                       "dropped as dependent)", rtol);
    for (size_t k = 0; k < (size_t)m * n; k++)
        if (!isfinite(G[k]))
            return kf_fail(err, KF_EINVAL, "constraints",
                           "constraints: G[%zu, %zu] = %g is not finite", k / (size_t)n,
                           k % (size_t)n, G[k]);
    int rc = kf_lapack_require(err);
    if (rc)
        return rc;
    memset(B, 0, (size_t)n * n * sizeof(double));
    if (m == 0) { /* nothing constrained: every DOF is free */
        for (int i = 0; i < n; i++)
            B[i + (size_t)i * n] = 1.0;
        *nfree = n;
        return KF_OK;
    }
    if (rtol <= 0.0)
        rtol = (m > n ? m : n) * DBL_EPSILON;

    /* A = G^T (n x m, column-major), so that range(A) = the constrained directions */
    int k = m < n ? m : n, lw1 = 0, lw2 = 0;
    double *A = kf_calloc((size_t)n * m, sizeof(double));
    double *tau = kf_calloc((size_t)k, sizeof(double));
    int *jpvt = kf_calloc((size_t)m, sizeof(int));
    double *work = NULL;
    if (!A || !tau || !jpvt) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a %d x %d QR workspace", n, m);
        goto done;
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[j + (size_t)i * n] = G[(size_t)i * n + j];
    rc = kf_la_geqp3_lwork(n, m, &lw1, err);
    if (!rc)
        rc = kf_la_orgqr_lwork(n, n, k, &lw2, err);
    if (rc)
        goto done;
    int lwork = lw1 > lw2 ? lw1 : lw2;
    work = kf_calloc((size_t)lwork, sizeof(double));
    if (!work) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a QR workspace of %d", lwork);
        goto done;
    }
    rc = kf_la_geqp3(n, m, A, n, jpvt, tau, work, lwork, err);
    if (rc)
        goto done;
    /* numerical rank: the pivoted diagonal of R decreases in magnitude */
    double r11 = fabs(A[0]);
    int rank = 0;
    while (rank < k && fabs(A[rank + (size_t)rank * n]) > rtol * r11)
        rank++;
    /* the full Q (n x n) from the k reflectors, in B */
    memcpy(B, A, (size_t)n * k * sizeof(double));
    rc = kf_la_orgqr(n, n, k, B, n, tau, work, lwork, err);
    if (rc)
        goto done;
    /* keep Q's columns rank..n-1, moved to the front */
    int nf = n - rank;
    if (rank > 0)
        memmove(B, B + (size_t)rank * n, (size_t)n * nf * sizeof(double));
    memset(B + (size_t)n * nf, 0, (size_t)n * rank * sizeof(double));
    *nfree = nf;
done:
    free(A);
    free(tau);
    free(jpvt);
    free(work);
    return rc;
}
