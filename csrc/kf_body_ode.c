/*
 * kf_body_ode.c -- a flexible body in a moving frame as a problem for the
 * integrators (kf_integrate.c), and the motions and loads that drive it.
 *
 * The body's equations (docs/theory.md sections 1 and 4), supports eliminated:
 *
 *   M d'' + (2 sum W_ij S_ij + C_d) d' + (K + sum (E + WW)_ij S_ij [+ K_G]) d
 *       = Q - Mo (a_L - g_L) - sum (E + WW)_ij s_ij,
 *
 * and Hamilton's canonical form with the momentum p = dT/dd':
 *
 *   p  = M d' + G d + h,     G = sum W_ij S_ij,   h = sum W_ij s_ij + Mo v_L,
 *   p' = -G d' - C_d d' - K_H d + b,     K_H = K + sum (WW)_ij S_ij [+ K_G],
 *   b  = Q - sum (WW)_ij s_ij - Mo W v_L + Mo g_L.
 *
 * Where b comes from: with u the velocity of a material point in body-frame
 * components, u = v_L + W (x + N d) + N d', the kinetic energy is
 * T = 1/2 int rho u.u and p = int rho N^T u.  dT/dd = int rho N^T W^T u
 * = -G d' - (sum WW_ij S_ij) d - sum WW_ij s_ij - Mo W v_L, using
 * int rho N^T A N = sum A_ij S_ij and W^T = -W.  Hamilton's p' = dL/dd then
 * adds -K d, Q and the gravity load Mo g_L.  Differentiating p with G' =
 * sum E_ij S_ij and v_L' = a_L - W v_L returns the Lagrange equation above
 * (C = 2 G, K_eps = G'), which the tests check numerically.
 *
 * Gravity arrives folded into the motion's a = a_L - g_L (kf_frame); the
 * canonical form is written with vdot = v_L' instead of a_L - W v_L:
 *   b = Q - sum (WW)_ij s_ij - Mo a + Mo vdot,
 * which equals the line above for a true origin velocity and stays exact
 * (b - h' = the Lagrange load) for any v with derivative vdot, v = 0 included.
 */
#include "kf_internal.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- splines */

int kf_spline_fit(int n, const double *t, int nch, const double *y, double *coef,
                  kf_error *err)
{
    if (n < 4)
        return kf_fail(err, KF_EINVAL, "t", "a cubic spline needs at least 4 samples, got %d", n);
    if (nch < 1)
        return kf_fail(err, KF_EINVAL, "nch", "nch = %d must be >= 1", nch);
    for (int i = 0; i < n; i++) {
        if (!isfinite(t[i]) || (i > 0 && !(t[i] > t[i - 1])))
            return kf_fail(err, KF_EINVAL, "t",
                           "sample times must be finite and strictly increasing (t[%d] = %g)", i,
                           t[i]);
        for (int c = 0; c < nch; c++)
            if (!isfinite(y[(size_t)i * nch + c]))
                return kf_fail(err, KF_EINVAL, "samples", "sample %d of channel %d is %g", i, c,
                               y[(size_t)i * nch + c]);
    }
    /* slopes s_i from the tridiagonal system of C2 continuity, not-a-knot at
     * both ends (as scipy.interpolate.CubicSpline), solved by the band LU */
    kf_mat A = {0};
    int *ipiv = kf_calloc((size_t)n, sizeof(int));
    double *rhs = kf_calloc((size_t)n * nch, sizeof(double));
    int rc = ipiv && rhs ? kf_mat_alloc(&A, KF_BAND, n, 1, 1, err)
                         : kf_fail(err, KF_ENOMEM, "", "cannot allocate a spline of %d samples", n);
    if (rc)
        goto done;
#define DX(i) (t[(i) + 1] - t[(i)])
#define SLOPE(i, c) ((y[(size_t)((i) + 1) * nch + (c)] - y[(size_t)(i) * nch + (c)]) / DX(i))
    double h0 = DX(0), h1 = DX(1), d = t[2] - t[0];
    kf_mat_add(&A, 0, 0, h1);
    kf_mat_add(&A, 0, 1, d);
    for (int c = 0; c < nch; c++)
        rhs[(size_t)c * n] = ((h0 + 2 * d) * h1 * SLOPE(0, c) + h0 * h0 * SLOPE(1, c)) / d;
    for (int i = 1; i < n - 1; i++) {
        kf_mat_add(&A, i, i - 1, DX(i));
        kf_mat_add(&A, i, i, 2 * (DX(i - 1) + DX(i)));
        kf_mat_add(&A, i, i + 1, DX(i - 1));
        for (int c = 0; c < nch; c++)
            rhs[(size_t)c * n + i] = 3 * (DX(i) * SLOPE(i - 1, c) + DX(i - 1) * SLOPE(i, c));
    }
    double ha = DX(n - 3), hb = DX(n - 2);
    d = t[n - 1] - t[n - 3];
    kf_mat_add(&A, n - 1, n - 2, d);
    kf_mat_add(&A, n - 1, n - 1, ha);
    for (int c = 0; c < nch; c++)
        rhs[(size_t)c * n + n - 1] =
            (hb * hb * SLOPE(n - 3, c) + (2 * d + hb) * ha * SLOPE(n - 2, c)) / d;
    rc = kf_mat_lu(&A, ipiv, err);
    if (!rc)
        rc = kf_mat_lu_solve(&A, ipiv, nch, rhs, n, err);
    if (rc)
        goto done;
    for (int i = 0; i < n - 1; i++)
        for (int c = 0; c < nch; c++) {
            double hi = DX(i), di = SLOPE(i, c);
            double s0 = rhs[(size_t)c * n + i], s1 = rhs[(size_t)c * n + i + 1];
            double *q = coef + ((size_t)i * nch + c) * 4;
            q[0] = y[(size_t)i * nch + c];
            q[1] = s0;
            q[2] = (3 * di - 2 * s0 - s1) / hi;
            q[3] = (s0 + s1 - 2 * di) / (hi * hi);
        }
#undef DX
#undef SLOPE
done:
    kf_mat_free(&A);
    free(ipiv);
    free(rhs);
    return rc;
}

int kf_spline_eval(int n, const double *t, int nch, const double *coef, double x,
                   double *out, kf_error *err)
{
    if (!(x >= t[0] && x <= t[n - 1])) /* also NaN */
        return kf_fail(err, KF_EINVAL, "t", "t = %.17g lies outside the samples' range [%g, %g]",
                       x, t[0], t[n - 1]);
    int lo = 0, hi = n - 2; /* the interval i with t[i] <= x, by bisection */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    double s = x - t[lo];
    for (int c = 0; c < nch; c++) {
        const double *q = coef + ((size_t)lo * nch + c) * 4;
        out[3 * c] = q[0] + s * (q[1] + s * (q[2] + s * q[3]));
        out[3 * c + 1] = q[1] + s * (2 * q[2] + 3 * s * q[3]);
        out[3 * c + 2] = 2 * q[2] + 6 * s * q[3];
    }
    return KF_OK;
}

/* ---------------------------------------------------------------- motions and loads */

/* The planar frame state from the angle, its rates and the origin's global
 * velocity and acceleration: body-frame components R^T (.), gravity folded
 * into a, vdot = a_L - W v_L. */
static void planar_frame(double th, double om, double ep, const double *vO, const double *aO,
                         const double *g, kf_frame *out)
{
    double c = cos(th), s = sin(th);
    memset(out, 0, sizeof *out);
    out->omega[2] = om;
    out->eps[2] = ep;
    double vL[2] = {c * vO[0] + s * vO[1], -s * vO[0] + c * vO[1]};
    double aL[2] = {c * aO[0] + s * aO[1], -s * aO[0] + c * aO[1]};
    double gL[2] = {c * g[0] + s * g[1], -s * g[0] + c * g[1]};
    for (int i = 0; i < 2; i++) {
        out->v[i] = vL[i];
        out->a[i] = aL[i] - gL[i];
    }
    /* W v = omega z x v = (-omega v_y, omega v_x) */
    out->vdot[0] = aL[0] + om * vL[1];
    out->vdot[1] = aL[1] - om * vL[0];
}

int kf_motion_constant_eval(double t, kf_frame *out, void *params, kf_error *err)
{
    const kf_motion_constant *m = params;
    const double zero[2] = {0.0, 0.0};
    planar_frame(m->theta0 + m->omega * t, m->omega, 0.0, zero, zero, m->g, out);
    return 0;
}

int kf_motion_spinup_eval(double t, kf_frame *out, void *params, kf_error *err)
{
    const kf_motion_spinup *m = params;
    const double zero[2] = {0.0, 0.0}, r = m->omega_s / m->T_s, c = m->T_s / (2 * KF_PI);
    double th, om, ep;
    if (t < m->T_s) {
        double x = 2 * KF_PI * t / m->T_s;
        om = r * (t - c * sin(x));
        ep = r * (1 - cos(x));
        th = r * (0.5 * t * t + c * c * (cos(x) - 1.0));
    } else {
        om = m->omega_s;
        ep = 0.0;
        th = m->omega_s * (0.5 * m->T_s + (t - m->T_s));
    }
    planar_frame(m->theta0 + th, om, ep, zero, zero, m->g, out);
    return 0;
}

int kf_motion_spline_eval(double t, kf_frame *out, void *params, kf_error *err)
{
    const kf_motion_spline *m = params;
    double q[9]; /* theta, x, y: value, first, second derivative */
    if (kf_spline_eval(m->n, m->t, 3, m->coef, t, q, err))
        return -1;
    const double vO[2] = {q[4], q[7]}, aO[2] = {q[5], q[8]};
    planar_frame(q[0], q[1], q[2], vO, aO, m->g, out);
    return 0;
}

/* The spatial frame state from the orientation R (row-major, global = R
 * local), omega, eps (body axes) and the origin's global velocity and
 * acceleration: body-frame components R^T (.), gravity folded into a, vdot =
 * a_L - omega x v_L. */
static void spatial_frame(const double *R, const double *om, const double *ep, const double *vO,
                          const double *aO, const double *g, kf_frame *out)
{
    memset(out, 0, sizeof *out);
    double vL[3], aL[3];
    for (int j = 0; j < 3; j++) {
        double v = 0.0, a = 0.0, gl = 0.0;
        for (int i = 0; i < 3; i++) {
            v += R[3 * i + j] * vO[i];
            a += R[3 * i + j] * aO[i];
            gl += R[3 * i + j] * g[i];
        }
        vL[j] = v, aL[j] = a;
        out->omega[j] = om[j];
        out->eps[j] = ep[j];
        out->v[j] = v;
        out->a[j] = a - gl;
    }
    out->vdot[0] = aL[0] - (om[1] * vL[2] - om[2] * vL[1]);
    out->vdot[1] = aL[1] - (om[2] * vL[0] - om[0] * vL[2]);
    out->vdot[2] = aL[2] - (om[0] * vL[1] - om[1] * vL[0]);
}

int kf_motion_spin_eval(double t, kf_frame *out, void *params, kf_error *err)
{
    const kf_motion_spin *m = params;
    const double *w = m->omega;
    double wn = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    /* R(t) = R0 E with E = exp(t [omega]x) = I + s [k]x + (1 - c) [k]x^2 (Rodrigues) */
    double E[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R[9];
    if (wn > 0.0) {
        double k[3] = {w[0] / wn, w[1] / wn, w[2] / wn}, th = wn * t;
        double c = cos(th), s = sin(th);
        double K[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                E[3 * i + j] = (i == j ? c : 0.0) + s * K[3 * i + j] + (1 - c) * k[i] * k[j];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = m->R0[3 * i] * E[j] + m->R0[3 * i + 1] * E[3 + j] +
                           m->R0[3 * i + 2] * E[6 + j];
    const double zero[3] = {0.0, 0.0, 0.0};
    spatial_frame(R, w, zero, zero, zero, m->g, out);
    return 0;
}

void kf_quat_rotation(const double *q, double *R)
{
    double w = q[0], a = q[1], b = q[2], c = q[3];
    double f = 2.0 / (w * w + a * a + b * b + c * c);
    R[0] = 1 - f * (b * b + c * c), R[1] = f * (a * b - w * c), R[2] = f * (a * c + w * b);
    R[3] = f * (a * b + w * c), R[4] = 1 - f * (a * a + c * c), R[5] = f * (b * c - w * a);
    R[6] = f * (a * c - w * b), R[7] = f * (b * c + w * a), R[8] = 1 - f * (a * a + b * b);
}

/* vec(conj(p) r) for quaternions (w, x, y, z) */
static void qconj_mul_vec(const double *p, const double *r, double *out)
{
    out[0] = p[0] * r[1] - r[0] * p[1] - (p[2] * r[3] - p[3] * r[2]);
    out[1] = p[0] * r[2] - r[0] * p[2] - (p[3] * r[1] - p[1] * r[3]);
    out[2] = p[0] * r[3] - r[0] * p[3] - (p[1] * r[2] - p[2] * r[1]);
}

int kf_motion_rotation_eval(double t, kf_frame *out, void *params, kf_error *err)
{
    const kf_motion_rotation *m = params;
    double y[3 * KF_MOTION_ROTATION_NCH]; /* channel c: value, first, second derivative */
    if (kf_spline_eval(m->n, m->t, KF_MOTION_ROTATION_NCH, m->coef, t, y, err))
        return -1;
    double q[4], q1[4], q2[4];
    for (int k = 0; k < 4; k++)
        q[k] = y[3 * k], q1[k] = y[3 * k + 1], q2[k] = y[3 * k + 2];
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(n2 > 1e-8)) {
        kf_fail(err, KF_EINVAL, "rotations", "the interpolated quaternion vanishes at t = %.17g "
                "(|q|^2 = %g): samples too far apart to interpolate the rotation", t, n2);
        return -1;
    }
    double om[3], ep[3], qq1 = q[0] * q1[0] + q[1] * q1[1] + q[2] * q1[2] + q[3] * q1[3];
    qconj_mul_vec(q, q1, om);
    qconj_mul_vec(q, q2, ep);
    for (int k = 0; k < 3; k++) {
        om[k] *= 2.0 / n2;
        ep[k] = 2.0 * ep[k] / n2 - 2.0 * qq1 / n2 * om[k];
    }
    double R[9];
    kf_quat_rotation(q, R);
    const double vO[3] = {y[13], y[16], y[19]}, aO[3] = {y[14], y[17], y[20]};
    spatial_frame(R, om, ep, vO, aO, m->g, out);
    return 0;
}

int kf_loads_harmonic_eval(double t, double *Q, void *params, kf_error *err)
{
    const kf_loads_harmonic *h = params;
    if (h->Q0)
        memcpy(Q, h->Q0, (size_t)h->ndof * sizeof(double));
    for (int k = 0; k < h->nh; k++) {
        double s = sin(h->omega[k] * t + h->phase[k]);
        const double *A = h->A + (size_t)k * h->ndof;
        for (int i = 0; i < h->ndof; i++)
            Q[i] += A[i] * s;
    }
    return 0;
}

/* ---------------------------------------------------------------- the body problem */

/* the key of an instant's matrices: omega, eps, the K_G coefficients */
#define KEYN (6 + KF_MAX_KG)

struct kf_body_ode {
    kf_body *rb;          /* the body on its free DOFs (kf_body_reduce) or its basis' (kf_body_project) */
    int ndof, n, *map;    /* map: the free DOFs; NULL with a basis */
    /* with a basis d = T z: T^T (n x ndof, CSR), to project the loads */
    int *tp, *ti;
    double *tv;
    kf_body_ode_opts o;
    kf_mat Cd;            /* constant damping, if any */
    int has_damping;
    /* blocks S_ij, vectors s_ij and Mo_i that are identically zero (a bar has
     * no lateral interpolation): their coefficients are dropped, so that
     * kf_body_combine does not add zeros */
    unsigned char S_zero[KF_MAX_DIM * KF_MAX_DIM], s_zero[KF_MAX_DIM * KF_MAX_DIM];
    unsigned char Mo_zero[KF_MAX_DIM];
    /* K_G: the axial DOFs of the end nodes and whether they are fixed */
    int u_first, u_last, fixed_first, fixed_last;
    double *Q;            /* applied loads over all DOFs (workspace) */
    /* the matrices of the last call: which form, into which matrices, for
     * which omega, eps and axial force; the integrator leaves them untouched
     * between calls (kf_lin2), so an unchanged instant (constant speed) skips
     * forming them again */
    int last_form;
    const kf_mat *last_A, *last_B;
    double last_key[KEYN];
    kf_lin2 sys;
    /* the explicit methods' accelerations (accel), for n <= ACCEL_DENSE_MAX:
     * C, K of their own, and M^-1 as a dense matrix, whose product costs one
     * vectorized mat-vec where the band LU's substitutions are a chain of
     * dependent divisions */
    kf_mat Ca, Ka, Minv;
    double *fa;
};

/* The largest n for which accel keeps a dense M^-1 (n^2 doubles; beyond, the
 * integrator's LU of M, whose band solve is O(n)). */
#define ACCEL_DENSE_MAX 128

int kf_body_ode_nfree(const kf_body_ode *o) { return o->n; }
const int *kf_body_ode_map(const kf_body_ode *o) { return o->map; }
const kf_lin2 *kf_body_ode_system(const kf_body_ode *o) { return &o->sys; }

void kf_body_ode_free(kf_body_ode *o)
{
    if (!o)
        return;
    kf_body_free(o->rb);
    free(o->tp);
    free(o->ti);
    free(o->tv);
    kf_mat_free(&o->Cd);
    kf_mat_free(&o->Ca);
    kf_mat_free(&o->Ka);
    kf_mat_free(&o->Minv);
    free(o->fa);
    free(o->map);
    free(o->Q);
    free(o);
}

/* The frame state at t, checked. */
static int frame_at(kf_body_ode *o, double t, kf_frame *F, kf_error *err)
{
    memset(F, 0, sizeof *F);
    int rc = o->o.motion(t, F, o->o.motion_params, err);
    if (rc)
        return rc;
    if ((rc = kf_frame_check(o->rb->dim, F, err))) {
        /* name the time too: the motion is the caller's function of time */
        kf_fail(err, rc, err->arg, "the motion at t = %.17g: %s", t, err->msg);
        return -1;
    }
    return 0;
}

/* Applied loads at t over all DOFs into o->Q, and their free part into f. */
static int loads_at(kf_body_ode *o, double t, double *f, kf_error *err)
{
    if (!o->o.loads) {
        memset(f, 0, (size_t)o->n * sizeof(double));
        return 0;
    }
    memset(o->Q, 0, (size_t)o->ndof * sizeof(double));
    int rc = o->o.loads(t, o->Q, o->o.loads_params, err);
    if (rc)
        return rc;
    for (int i = 0; i < o->n; i++) {
        if (o->tp) { /* f = T^T Q: the DOFs the basis moves */
            double v = 0.0;
            for (int k = o->tp[i]; k < o->tp[i + 1]; k++) {
                double q = o->Q[o->ti[k]];
                if (!isfinite(q)) {
                    kf_fail(err, KF_EINVAL, "loads", "the load on DOF %d at t = %.17g is %g",
                            o->ti[k], t, q);
                    return -1;
                }
                v += o->tv[k] * q;
            }
            f[i] = v;
            continue;
        }
        f[i] = o->Q[o->map[i]];
        if (!isfinite(f[i])) {
            kf_fail(err, KF_EINVAL, "loads", "the load on DOF %d at t = %.17g is %g", o->map[i],
                    t, f[i]);
            return -1;
        }
    }
    return 0;
}

/* The K_G coefficients of this instant (zero without K_G): the quasi-static axial
 * force of a straight body, or the prestress load cases' (section 2.11), whose end
 * loads are the applied forces at the end nodes along the end axes. */
static int axial_force(kf_body_ode *o, const kf_frame *F, double *c, kf_error *err)
{
    memset(c, 0, KF_MAX_KG * sizeof(double));
    if (!o->o.geometric)
        return 0;
    const kf_body *rb = o->rb;
    double f_first = 0.0, f_last = 0.0;
    /* a given (reduced) body has no end nodes: no end loads */
    for (int k = 0; o->o.loads && !rb->given && k < (rb->prestress ? rb->dim : 1); k++) {
        double a0 = rb->prestress ? rb->end_axis[0][k] : 1.0;
        double a1 = rb->prestress ? rb->end_axis[1][k] : 1.0;
        f_first += a0 * o->Q[o->u_first + k];
        f_last += a1 * o->Q[o->u_last + k];
    }
    return kf_body_geometric_coefficients(rb, F, f_first, f_last, o->fixed_first,
                                          o->fixed_last, c, err) ? -1 : 0;
}

/* Nonzero if (form, A, B, key) is what the matrices already hold; else
 * remember it as what they will hold. */
static int unchanged(kf_body_ode *o, int form, const kf_mat *A, const kf_mat *B,
                     const double key[KEYN])
{
    if (o->last_form == form && o->last_A == A && o->last_B == B &&
        !memcmp(o->last_key, key, sizeof o->last_key))
        return 1;
    o->last_form = form;
    o->last_A = A;
    o->last_B = B;
    memcpy(o->last_key, key, sizeof o->last_key);
    return 0;
}

/* c[k] * (block k not identically zero) */
static void drop_zero(const unsigned char *zero, int m, const double *c, double *out)
{
    for (int k = 0; k < m; k++)
        out[k] = zero[k] ? 0.0 : c[k];
}

/* f += sign sum_i a_i Mo_i */
static void add_Mo(const kf_body_ode *o, const double *a, double sign, double *f)
{
    const kf_body *rb = o->rb;
    for (int i = 0; i < rb->dim; i++)
        if (a[i] != 0.0 && !o->Mo_zero[i]) {
            const double *Mo = rb->Mo + (size_t)i * rb->ndof;
            for (int r = 0; r < rb->ndof; r++)
                f[r] += sign * a[i] * Mo[r];
        }
}

/* Everything of instant t both forms start from: the frame, its operators
 * W, E, WW (E may be NULL), the applied loads on the free DOFs in q, and the
 * key of the matrices (omega, eps, axial force). */
static int instant(kf_body_ode *o, double t, kf_frame *F, double *q, double *W, double *E,
                   double *WW, double key[KEYN], kf_error *err)
{
    int rc = frame_at(o, t, F, err);
    if (rc || (rc = loads_at(o, t, q, err)))
        return rc;
    kf_frame_operators(o->rb->dim, F, W, E, WW);
    memcpy(key, F->omega, 3 * sizeof(double));
    memcpy(key + 3, F->eps, 3 * sizeof(double));
    return axial_force(o, F, key + 6, err);
}

static int second_form(double t, kf_mat *C, kf_mat *K, double *f, void *params, kf_error *err)
{
    kf_body_ode *o = params;
    const kf_body *rb = o->rb;
    kf_frame F;
    double W[9], E[9], WW[9], c[9], key[KEYN];
    int dd = rb->dim * rb->dim, rc = instant(o, t, &F, f, W, E, WW, key, err);
    if (rc)
        return rc;
    if (!unchanged(o, 1, C, K, key)) {
        /* C = 2 sum W_ij S_ij + C_d;  K + K_eps + K_om [+ K_G] */
        for (int k = 0; k < dd; k++)
            c[k] = 2.0 * W[k];
        drop_zero(o->S_zero, dd, c, c);
        kf_body_combine(rb, c, 0.0, C);
        if (o->has_damping)
            kf_mat_axpy(C, 1.0, &o->Cd);
        for (int k = 0; k < dd; k++)
            c[k] = E[k] + WW[k];
        drop_zero(o->S_zero, dd, c, c);
        kf_mat_copy(K, &rb->K);
        kf_body_combine_stiff(rb, c, 1.0, K);
        if (o->o.geometric && kf_body_geometric(rb, key + 6, 1.0, K, err)) {
            o->last_form = 0;
            return -1;
        }
    }
    /* f = Q - Mo a - q_eps - q_om */
    for (int k = 0; k < dd; k++)
        c[k] = -(E[k] + WW[k]);
    drop_zero(o->s_zero, dd, c, c);
    kf_body_combine_vec(rb, c, 1.0, f);
    add_Mo(o, F.a, -1.0, f);
    return 0;
}

/* The dense M^-1 and accel's matrices, made at accel's first call (an
 * implicit method never pays for them). */
static int accel_setup(kf_body_ode *o, kf_error *err)
{
    const kf_mat *M = &o->rb->M;
    int n = o->n;
    kf_mat lu = {0};
    int *ipiv = kf_calloc((size_t)n, sizeof(int));
    int rc = ipiv ? kf_mat_alloc_like(&lu, M, err)
                  : kf_fail(err, KF_ENOMEM, "", "cannot allocate %d pivots", n);
    if (!rc)
        rc = kf_mat_alloc(&o->Minv, KF_DENSE, n, 0, 0, err);
    if (!rc)
        rc = kf_mat_alloc_like(&o->Ca, M, err);
    if (!rc)
        rc = kf_mat_alloc_like(&o->Ka, M, err);
    if (!rc && !(o->fa = kf_calloc((size_t)n, sizeof(double))))
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate %d doubles", n);
    if (!rc) {
        kf_mat_copy(&lu, M);
        for (int i = 0; i < n; i++)
            o->Minv.a[i + (size_t)i * o->Minv.ld] = 1.0;
        rc = kf_mat_lu(&lu, ipiv, err);
        if (!rc)
            rc = kf_mat_lu_solve(&lu, ipiv, n, o->Minv.a, o->Minv.ld, err);
        if (!rc && !kf_mat_finite(&o->Minv))
            rc = kf_fail(err, KF_ESING, "M", "the mass matrix's inverse is not finite");
    }
    kf_mat_free(&lu);
    free(ipiv);
    if (rc)
        kf_mat_free(&o->Minv); /* not ready: a later call tries again */
    return rc;
}

/* a = M^-1 (f - C d' - K d) with a dense M^-1 (kf_lin2_accel_fn), for
 * n <= ACCEL_DENSE_MAX; C and K formed only when the instant's omega, eps or
 * axial force changed (second_form). */
static int accel(double t, const double *d, const double *v, double *a, void *params,
                 kf_error *err)
{
    kf_body_ode *o = params;
    if (!o->Minv.a && accel_setup(o, err))
        return -1;
    double *f = o->fa;
    int rc = second_form(t, &o->Ca, &o->Ka, f, o, err);
    if (rc)
        return rc;
    kf_mat_gemv(&o->Ca, -1.0, v, 1.0, f);
    kf_mat_gemv(&o->Ka, -1.0, d, 1.0, f);
    kf_mat_gemv(&o->Minv, 1.0, f, 0.0, a);
    return 0;
}

static int canonical_form(double t, kf_mat *G, kf_mat *KH, double *h, double *b, void *params,
                          kf_error *err)
{
    kf_body_ode *o = params;
    const kf_body *rb = o->rb;
    kf_frame F;
    double W[9], WW[9], c[9], key[KEYN];
    int dd = rb->dim * rb->dim, rc = instant(o, t, &F, b, W, NULL, WW, key, err);
    if (rc)
        return rc;
    memset(key + 3, 0, 3 * sizeof(double)); /* eps does not enter G, K_H */
    if (!unchanged(o, 2, G, KH, key)) {
        /* G = sum W_ij S_ij;  K_H = K + K_om [+ K_G] */
        drop_zero(o->S_zero, dd, W, c);
        kf_body_combine(rb, c, 0.0, G);
        drop_zero(o->S_zero, dd, WW, c);
        kf_mat_copy(KH, &rb->K);
        kf_body_combine_stiff(rb, c, 1.0, KH);
        if (o->o.geometric && kf_body_geometric(rb, key + 6, 1.0, KH, err)) {
            o->last_form = 0;
            return -1;
        }
    }
    /* h = sum W_ij s_ij + Mo v_L;  b = Q - q_om - Mo a + Mo vdot */
    drop_zero(o->s_zero, dd, W, c);
    kf_body_combine_vec(rb, c, 0.0, h);
    add_Mo(o, F.v, 1.0, h);
    for (int k = 0; k < dd; k++)
        c[k] = -WW[k];
    drop_zero(o->s_zero, dd, c, c);
    kf_body_combine_vec(rb, c, 1.0, b);
    add_Mo(o, F.a, -1.0, b);
    add_Mo(o, F.vdot, 1.0, b);
    return 0;
}


static int vec_is_zero(int n, const double *x)
{
    for (int i = 0; i < n; i++)
        if (x[i] != 0.0)
            return 0;
    return 1;
}

int kf_body_ode_create(kf_body_ode **out, const kf_body *b, const kf_body_ode_opts *opt,
                       kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (!b || !opt || !opt->motion)
        return kf_fail(err, KF_EINVAL, "motion", "body, options and a motion are required");
    for (int k = 0; k < 2; k++)
        if (!isfinite(opt->rayleigh[k]) || opt->rayleigh[k] < 0.0)
            return kf_fail(err, KF_EINVAL, k ? "beta" : "alpha",
                           "Rayleigh damping %s = %g must be >= 0 and finite",
                           k ? "beta" : "alpha", opt->rayleigh[k]);
    if (opt->geometric && !b->has_geometric)
        return kf_fail(err, KF_EINVAL, "geometric_stiffness",
                       "geometric stiffness needs a straight line body on the frame's x axis "
                       "with its nodes in ascending x, or a prestress basis");
    kf_body_ode *o = kf_calloc(1, sizeof *o);
    if (!o)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a body problem");
    o->o = *opt;
    o->ndof = b->ndof;
    o->map = kf_calloc((size_t)b->ndof, sizeof(int));
    o->Q = kf_calloc((size_t)b->ndof, sizeof(double));
    int rc = KF_OK;
    if (!o->map || !o->Q) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a body problem of %d DOFs", b->ndof);
        goto fail;
    }
    for (int k = 0; k < b->ndof && !opt->basis_ptr; k++)
        if (!opt->fixed || !opt->fixed[k])
            o->map[o->n++] = k;
    if (opt->basis_ptr) { /* d = T z: the body projected, T^T kept for the loads */
        if (opt->damping) {
            rc = kf_fail(err, KF_EINVAL, "damping", "a dense damping matrix does not combine "
                         "with a constraint basis (use Rayleigh damping)");
            goto fail;
        }
        if ((rc = kf_body_project(b, opt->basis_ncol, opt->basis_ptr, opt->basis_col,
                                  opt->basis_val, &o->rb, err)))
            goto fail;
        free(o->map);
        o->map = NULL;
        o->n = opt->basis_ncol;
        if (kf_csr_transpose(b->ndof, o->n, opt->basis_ptr, opt->basis_col, opt->basis_val, &o->tp,
                             &o->ti, &o->tv)) {
            rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the basis' transpose");
            goto fail;
        }
    }
    if (o->n == 0) {
        rc = kf_fail(err, KF_EINVAL, "supports", "the supports fix all %d DOFs: nothing can move",
                     b->ndof);
        goto fail;
    }
    o->u_first = 0;
    o->u_last = (b->nnode - 1) * b->ndofn;
    o->fixed_first = opt->fixed && opt->fixed[o->u_first];
    o->fixed_last = opt->fixed && opt->fixed[o->u_last];
    o->o.fixed = NULL; /* not kept: the caller's array may go */
    o->o.damping = NULL;
    if (!o->rb && (rc = kf_body_reduce(b, o->n, o->map, opt->damping != NULL, &o->rb, err)))
        goto fail;
    const kf_mat *M = &o->rb->M;
    for (int k = 0; k < b->dim * b->dim; k++) {
        o->S_zero[k] = kf_body_block_zero(o->rb, k);
        o->s_zero[k] = vec_is_zero(o->n, o->rb->s + (size_t)k * o->n);
    }
    for (int k = 0; k < b->dim; k++)
        o->Mo_zero[k] = vec_is_zero(o->n, o->rb->Mo + (size_t)k * o->n);
    o->has_damping = opt->rayleigh[0] > 0.0 || opt->rayleigh[1] > 0.0 || opt->damping;
    if (o->has_damping) {
        if ((rc = kf_mat_alloc_like(&o->Cd, M, err)))
            goto fail;
        kf_mat_axpy(&o->Cd, opt->rayleigh[0], M);
        kf_mat_axpy(&o->Cd, opt->rayleigh[1], &o->rb->K);
        if (opt->damping)
            for (int j = 0; j < o->n; j++)
                for (int i = 0; i < o->n; i++) {
                    double v = opt->damping[i + (size_t)j * o->n];
                    if (!isfinite(v)) {
                        rc = kf_fail(err, KF_EINVAL, "damping",
                                     "damping matrix entry (%d, %d) is %g", i, j, v);
                        goto fail;
                    }
                    kf_mat_add(&o->Cd, i, j, v);
                }
    }
    o->sys.n = o->n;
    o->sys.M = M;
    o->sys.D = o->has_damping ? &o->Cd : NULL;
    o->sys.second = second_form;
    o->sys.canonical = canonical_form;
    o->sys.params = o;
    if (o->n <= ACCEL_DENSE_MAX && M->kind != KF_CSR)
        o->sys.accel = accel;
    *out = o;
    return KF_OK;
fail:
    kf_body_ode_free(o);
    return rc;
}
