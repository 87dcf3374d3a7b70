/*
 * kf_spatial.c -- spatial mechanisms of rigid bodies by Kane's method
 * (docs/theory.md section 5.14): the description, the constraint rows from
 * three primitives, the loop closure by Newton's method on the manifold of
 * orientations, the rates, Kane's projection, the joint forces and the frames
 * of axes on bodies; the rigid motion in time is kf_mechanism.c's driver
 * through kf_smech_ops.
 *
 * Top to bottom:
 *   1. small vector and rotation helpers (quaternions, the exponential map);
 *   2. the description (kf_smech_create): checks, the independent rows, the
 *      drawing;
 *   3. one rule for every row: a joint's context (its frames, points and
 *      their rates in global axes) and the primitives -- a component of P1 - P0
 *      along an axis fixed in body 0 (or global), the product of axes fixed in
 *      body 0 and body 1, the angles of the relative rotation -- each giving
 *      its value, its gradient over (v, omega) of both bodies and gamma, the
 *      velocity part of its second derivative, negated;
 *   4. positions (Newton, continuation), rates, applied forces, Kane, joint
 *      forces, frames;
 *   5. the table kf_smech_ops of the shared upper layers.
 *
 * Body b: mass centre r (global), rotation R (global = R body) from its unit
 * quaternion, speeds v (global) and omega (body axes); a point p fixed on it
 * is at P = r + R p with P' = v + w x (R p), P'' = a + w' x (R p) + w x (w x
 * R p), w = R omega its angular velocity in global axes (and w' = R omega').
 * The ground is body -1 (r = 0, R = I, p global).
 */
#include "kf_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* ================================================================ 1. helpers */

static void cross(const double *a, const double *b, double *c)
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
           z = a[0] * b[1] - a[1] * b[0];
    c[0] = x;
    c[1] = y;
    c[2] = z;
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* y = A x, A row-major 3 x 3 */
static void mv(const double *A, const double *x, double *y)
{
    double a = A[0] * x[0] + A[1] * x[1] + A[2] * x[2], b = A[3] * x[0] + A[4] * x[1] + A[5] * x[2],
           c = A[6] * x[0] + A[7] * x[1] + A[8] * x[2];
    y[0] = a;
    y[1] = b;
    y[2] = c;
}

/* y = A^T x */
static void mtv(const double *A, const double *x, double *y)
{
    double a = A[0] * x[0] + A[3] * x[1] + A[6] * x[2], b = A[1] * x[0] + A[4] * x[1] + A[7] * x[2],
           c = A[2] * x[0] + A[5] * x[1] + A[8] * x[2];
    y[0] = a;
    y[1] = b;
    y[2] = c;
}

/* C = A B (row-major 3 x 3; C may not alias) */
static void mm(const double *A, const double *B, double *C)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* C = A^T B */
static void mtm(const double *A, const double *B, double *C)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* The rotation (row-major) of a unit quaternion (w, x, y, z). */
static void quat_rot(const double *q, double *R)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1.0 - 2.0 * (y * y + z * z);
    R[1] = 2.0 * (x * y - w * z);
    R[2] = 2.0 * (x * z + w * y);
    R[3] = 2.0 * (x * y + w * z);
    R[4] = 1.0 - 2.0 * (x * x + z * z);
    R[5] = 2.0 * (y * z - w * x);
    R[6] = 2.0 * (x * z - w * y);
    R[7] = 2.0 * (y * z + w * x);
    R[8] = 1.0 - 2.0 * (x * x + y * y);
}

/* q <- q (x) exp(theta / 2): the rotation R exp(skew(theta)), theta in body axes;
 * normalized. */
static void quat_turn(double *q, const double *th)
{
    double a = sqrt(dot3(th, th)), h = 0.5 * a;
    double c = cos(h), s = a > 1e-8 ? sin(h) / a : 0.5 - a * a / 48.0;
    double e[4] = {c, s * th[0], s * th[1], s * th[2]};
    double w = q[0] * e[0] - q[1] * e[1] - q[2] * e[2] - q[3] * e[3];
    double x = q[0] * e[1] + q[1] * e[0] + q[2] * e[3] - q[3] * e[2];
    double y = q[0] * e[2] - q[1] * e[3] + q[2] * e[0] + q[3] * e[1];
    double z = q[0] * e[3] + q[1] * e[2] - q[2] * e[1] + q[3] * e[0];
    double n = sqrt(w * w + x * x + y * y + z * z);
    q[0] = w / n;
    q[1] = x / n;
    q[2] = y / n;
    q[3] = z / n;
}

/* The rotation angle of the relative rotation between unit quaternions a and b: 2
 * atan2(|v|, |w|) of r = conj(a) b, exact to round-off at small angles (2 acos(|a.b|)
 * cannot tell angles below 3e-8 from zero or from 3e-8: a continuation step of a small
 * rotation was rejected as a jump to another branch). */
static double quat_angle(const double *a, const double *b)
{
    double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double x = a[0] * b[1] - a[1] * b[0] - a[2] * b[3] + a[3] * b[2];
    double y = a[0] * b[2] + a[1] * b[3] - a[2] * b[0] - a[3] * b[1];
    double z = a[0] * b[3] - a[1] * b[2] + a[2] * b[1] - a[3] * b[0];
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

static double wrap(double x) { return x - 2.0 * KF_PI * floor(x / (2.0 * KF_PI) + 0.5); }

static const double EYE[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* ================================================================ 2. the description */

struct kf_smech {
    int nb, n, nz, nj, ns;
    int mall, m;          /* all constraint rows; the kept (independent) ones */
    kf_sbody *bodies;     /* r, quat: the assembled drawing */
    kf_sjoint *joints;
    kf_sspring *springs;
    kf_scoord *coords;
    double g[3];
    int redundant;
    int *jrow;            /* first row (of all) of each joint; jrow[nj] = mall */
    int *kept;            /* m rows (indices into all rows), in order */
    double L;             /* length scale */
    double *rs;           /* n row scales of J: kept rows, then the coordinates */
    unsigned char *laws;  /* 3 nj: coordinate i of joint j has a force law */
    double z0[KF_KANE_MAX_NU]; /* the drawing's coordinates */
};

static const int NROWS[7] = {5, 5, 4, 3, 4, 3, 6};
static const int NCOORD[7] = {1, 1, 2, 3, 2, 3, 0};
static const char *const KIND[7] = {"revolute", "prismatic", "cylindrical", "spherical",
                                    "universal", "planar", "fixed"};

/* Joint coordinates: 1 an angle (c, or a, b, c), 0 a slide. */
static int joint_coord_angle(int kind, int i)
{
    switch (kind) {
    case KF_SJ_REVOLUTE: case KF_SJ_SPHERICAL: case KF_SJ_UNIVERSAL: return 1;
    case KF_SJ_CYLINDRICAL: return i == 1;
    case KF_SJ_PLANAR: return i == 2;
    default: return 0;
    }
}

/* Row r of a joint: 1 if it is dimensionless (a product of axes), 0 a length. */
static int joint_row_angle(int kind, int r)
{
    switch (kind) {
    case KF_SJ_REVOLUTE: case KF_SJ_FIXED: return r >= 3;
    case KF_SJ_PRISMATIC: case KF_SJ_CYLINDRICAL: return r >= 2;
    case KF_SJ_UNIVERSAL: return r == 3;
    case KF_SJ_PLANAR: return r >= 1;
    default: return 0;
    }
}

/* A row's name in messages. */
static const char *row_text(int kind, int r)
{
    static const char *pt[3] = {"x of P1 - P0", "y of P1 - P0", "z of P1 - P0"};
    switch (kind) {
    case KF_SJ_REVOLUTE: case KF_SJ_FIXED: case KF_SJ_SPHERICAL: case KF_SJ_UNIVERSAL:
        if (r < 3)
            return pt[r];
        if (kind == KF_SJ_UNIVERSAL)
            return "y1 . x0 (the cross)";
        return r == 3 ? "z1 . x0 (tilt)" : r == 4 ? "z1 . y0 (tilt)" : "y1 . x0 (twist)";
    case KF_SJ_PRISMATIC: case KF_SJ_CYLINDRICAL:
        return r == 0 ? "x0 . (P1 - P0)" : r == 1 ? "y0 . (P1 - P0)"
               : r == 2 ? "z1 . x0 (tilt)" : r == 3 ? "z1 . y0 (tilt)" : "y1 . x0 (twist)";
    case KF_SJ_PLANAR:
        return r == 0 ? "z0 . (P1 - P0)" : r == 1 ? "z1 . x0 (tilt)" : "z1 . y0 (tilt)";
    default: return "?";
    }
}

void kf_smech_free(kf_smech *m)
{
    if (!m)
        return;
    free(m->bodies);
    free(m->joints);
    free(m->springs);
    free(m->coords);
    free(m->jrow);
    free(m->kept);
    free(m->rs);
    free(m->laws);
    free(m);
}

int kf_smech_nbody(const kf_smech *m) { return m->nb; }
int kf_smech_njoint(const kf_smech *m) { return m->nj; }
int kf_smech_ncoord(const kf_smech *m) { return m->nz; }

int kf_smech_nrows(const kf_smech *m, int *all)
{
    if (all)
        *all = m->mall;
    return m->m;
}

void kf_smech_describe(const kf_smech *m, kf_smech_desc *d)
{
    memset(d, 0, sizeof *d);
    d->nbody = m->nb;
    d->bodies = m->bodies;
    d->njoint = m->nj;
    d->joints = m->joints;
    d->nspring = m->ns;
    d->springs = m->springs;
    d->ncoord = m->nz;
    d->coords = m->coords;
    for (int i = 0; i < 3; i++)
        d->gravity[i] = m->g[i];
    d->redundant = m->redundant;
}

void kf_smech_drawing_coordinates(const kf_smech *m, double *z)
{
    memcpy(z, m->z0, (size_t)m->nz * sizeof(double));
}

int kf_smech_coord_is_angle(const kf_smech *m, int k)
{
    const kf_scoord *C = m->coords + k;
    if (C->kind == KF_SC_BODY)
        return C->component >= 3;
    return joint_coord_angle(m->joints[C->index].kind, C->component);
}

static int finite_n(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* |R^T R - I| and det R of a row-major 3 x 3. */
static double orth_error(const double *R, double *det)
{
    double RtR[9], e = 0.0;
    mtm(R, R, RtR);
    for (int i = 0; i < 9; i++)
        e = fmax(e, fabs(RtR[i] - EYE[i]));
    *det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
           R[2] * (R[3] * R[7] - R[4] * R[6]);
    return e;
}

/* A real mass distribution's inertia tensor: symmetric, its principal moments
 * >= 0 and each at most the sum of the other two (to round-off). */
static int check_inertia(const double *I, int b, kf_error *err)
{
    double scale = fabs(I[0]) + fabs(I[4]) + fabs(I[8]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++)
            if (!(fabs(I[3 * i + j] - I[3 * j + i]) <= 1e-12 * scale))
                return kf_fail(err, KF_EINVAL, "bodies", "bodies[%d].inertia is not symmetric "
                               "(I[%d][%d] = %g, I[%d][%d] = %g)", b, i, j, I[3 * i + j], j, i,
                               I[3 * j + i]);
    /* principal moments by the closed form of a symmetric 3 x 3 (Smith 1961) */
    double p1 = I[1] * I[1] + I[2] * I[2] + I[5] * I[5], tr = I[0] + I[4] + I[8];
    double ev[3];
    if (p1 <= 1e-30 * scale * scale) {
        ev[0] = I[0];
        ev[1] = I[4];
        ev[2] = I[8];
    } else {
        double qq = tr / 3.0, d0 = I[0] - qq, d1 = I[4] - qq, d2 = I[8] - qq;
        double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * p1) / 6.0);
        double B[9] = {d0 / p, I[1] / p, I[2] / p, I[3] / p, d1 / p, I[5] / p,
                       I[6] / p, I[7] / p, d2 / p};
        double r = 0.5 * (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                          B[2] * (B[3] * B[7] - B[4] * B[6]));
        double phi = r <= -1.0 ? KF_PI / 3.0 : r >= 1.0 ? 0.0 : acos(r) / 3.0;
        ev[0] = qq + 2.0 * p * cos(phi);
        ev[2] = qq + 2.0 * p * cos(phi + 2.0 * KF_PI / 3.0);
        ev[1] = 3.0 * qq - ev[0] - ev[2];
    }
    double tol = 1e-10 * scale;
    for (int i = 0; i < 3; i++) {
        if (!(ev[i] >= -tol))
            return kf_fail(err, KF_EINVAL, "bodies", "bodies[%d].inertia has a negative "
                           "principal moment %g kg m^2", b, ev[i]);
        if (!(ev[i] <= ev[(i + 1) % 3] + ev[(i + 2) % 3] + tol))
            return kf_fail(err, KF_EINVAL, "bodies", "bodies[%d].inertia has principal moments "
                           "(%g, %g, %g) kg m^2, one larger than the sum of the other two: no "
                           "mass distribution has them", b, ev[0], ev[1], ev[2]);
    }
    return KF_OK;
}

static int check_body_index(const kf_smech_desc *d, int b, const char *what, int j, kf_error *err)
{
    if (b < -1 || b >= d->nbody)
        return kf_fail(err, KF_EINVAL, what, "%s[%d].body = %d is not a body (0..%d) or the "
                       "ground (-1)", what, j, b, d->nbody - 1);
    return KF_OK;
}

static int check_name(const char *name, size_t len, const char *what, int i, kf_error *err)
{
    if (!memchr(name, '\0', len) || !name[0])
        return kf_fail(err, KF_EINVAL, what, "%s[%d].name must be a non-empty string of at "
                       "most %zu characters", what, i, len - 1);
    return KF_OK;
}

static int check_desc(const kf_smech_desc *d, kf_error *err)
{
    if (d->nbody < 1 || d->nbody > KF_SMECH_MAX_BODIES)
        return kf_fail(err, KF_EINVAL, "nbody", "nbody = %d must be in 1..%d", d->nbody,
                       KF_SMECH_MAX_BODIES);
    if (!d->bodies)
        return kf_fail(err, KF_EINVAL, "bodies", "bodies is NULL");
    for (int b = 0; b < d->nbody; b++) {
        const kf_sbody *B = d->bodies + b;
        if (!(isfinite(B->mass) && B->mass >= 0.0))
            return kf_fail(err, KF_EINVAL, "bodies", "bodies[%d].mass = %g must be finite and "
                           ">= 0", b, B->mass);
        if (!finite_n(B->inertia, 9) || !finite_n(B->r, 3) || !finite_n(B->quat, 4))
            return kf_fail(err, KF_EINVAL, "bodies", "bodies[%d]: inertia, r and quat must be "
                           "finite", b);
        int rc = check_inertia(B->inertia, b, err);
        if (rc)
            return rc;
        double qn = sqrt(B->quat[0] * B->quat[0] + dot3(B->quat + 1, B->quat + 1));
        if (!(qn > 1e-150))
            return kf_fail(err, KF_EINVAL, "bodies", "bodies[%d].quat = (%g, %g, %g, %g) has "
                           "zero norm: no orientation", b, B->quat[0], B->quat[1], B->quat[2],
                           B->quat[3]);
    }
    if (d->njoint < 0 || d->njoint > 6 * KF_SMECH_MAX_BODIES || (d->njoint > 0 && !d->joints))
        return kf_fail(err, KF_EINVAL, "joints", "njoint = %d with joints %s", d->njoint,
                       d->joints ? "given" : "NULL");
    for (int j = 0; j < d->njoint; j++) {
        const kf_sjoint *J = d->joints + j;
        int rc = check_name(J->name, sizeof J->name, "joints", j, err);
        if (rc)
            return rc;
        if (J->kind < KF_SJ_REVOLUTE || J->kind > KF_SJ_FIXED)
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d] (%s).kind = %d is not 0..6 "
                           "(revolute, prismatic, cylindrical, spherical, universal, planar, "
                           "fixed)", j, J->name, J->kind);
        for (int s = 0; s < 2; s++)
            if ((rc = check_body_index(d, J->body[s], "joints", j, err)))
                return rc;
        if (J->body[0] == J->body[1])
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d] (%s) joins body %d to itself",
                           j, J->name, J->body[0]);
        if (!finite_n(J->p0, 3) || !finite_n(J->p1, 3) || !finite_n(J->f0, 9) ||
            !finite_n(J->f1, 9) || !finite_n(J->offset, 3))
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d] (%s): points, frames and "
                           "offsets must be finite", j, J->name);
        for (int s = 0; s < 2; s++) {
            double det, e = orth_error(s ? J->f1 : J->f0, &det);
            if (!(e <= 1e-9 && det > 0.0))
                return kf_fail(err, KF_EINVAL, "joints", "joints[%d] (%s).f%d is not a rotation "
                               "(|F^T F - I| = %.3g, det = %.6g): the joint frame's axes must "
                               "be orthonormal and right-handed", j, J->name, s, e, det);
        }
        int nc = NCOORD[J->kind];
        for (int i = 0; i < 3; i++) {
            int has = J->k[i] != 0.0 || J->c[i] != 0.0 || J->F_r[i] != 0.0;
            if (!(J->k[i] >= 0.0 && J->c[i] >= 0.0 && J->F_r[i] >= 0.0 && isfinite(J->k[i]) &&
                  isfinite(J->c[i]) && isfinite(J->F_r[i]) && isfinite(J->s0[i])))
                return kf_fail(err, KF_EINVAL, "joints", "joints[%d] (%s): coordinate %d's k = "
                               "%g, c = %g, F_r = %g must be finite and >= 0 (s0 = %g finite)",
                               j, J->name, i, J->k[i], J->c[i], J->F_r[i], J->s0[i]);
            if (has && i >= nc)
                return kf_fail(err, KF_EINVAL, "joints", "joints[%d] (%s) is %s, with %d "
                               "coordinate(s): it has no coordinate %d for a spring, damper or "
                               "friction", j, J->name, KIND[J->kind], nc, i);
            if (J->F_r[i] > 0.0 && !(J->v_F[i] > 0.0 && isfinite(J->v_F[i])))
                return kf_fail(err, KF_EINVAL, "joints", "joints[%d] (%s).v_F[%d] = %g must be "
                               "> 0 with friction", j, J->name, i, J->v_F[i]);
        }
    }
    if (d->nspring < 0 || d->nspring > 100000 || (d->nspring > 0 && !d->springs))
        return kf_fail(err, KF_EINVAL, "springs", "nspring = %d with springs NULL", d->nspring);
    for (int s = 0; s < d->nspring; s++) {
        const kf_sspring *S = d->springs + s;
        for (int e = 0; e < 2; e++) {
            int rc = check_body_index(d, S->body[e], "springs", s, err);
            if (rc)
                return rc;
        }
        if (S->body[0] == S->body[1])
            return kf_fail(err, KF_EINVAL, "springs", "springs[%d] joins body %d to itself", s,
                           S->body[0]);
        if (!finite_n(S->p0, 3) || !finite_n(S->p1, 3) || !(isfinite(S->k) && S->k >= 0.0) ||
            !(isfinite(S->c) && S->c >= 0.0) || !(isfinite(S->L0) && S->L0 >= 0.0))
            return kf_fail(err, KF_EINVAL, "springs", "springs[%d]: points finite, k = %g, c = "
                           "%g, L0 = %g finite and >= 0", s, S->k, S->c, S->L0);
    }
    if (d->ncoord < 1 || d->ncoord > KF_KANE_MAX_NU || !d->coords)
        return kf_fail(err, KF_EINVAL, "coords", "ncoord = %d must be in 1..%d", d->ncoord,
                       KF_KANE_MAX_NU);
    for (int k = 0; k < d->ncoord; k++) {
        const kf_scoord *C = d->coords + k;
        int rc = check_name(C->name, sizeof C->name, "coords", k, err);
        if (rc)
            return rc;
        if (C->kind != KF_SC_BODY && C->kind != KF_SC_JOINT)
            return kf_fail(err, KF_EINVAL, "coords", "coords[%d] (%s).kind = %d is not a body's "
                           "(0) or a joint's (1)", k, C->name, C->kind);
        int nmax = C->kind == KF_SC_JOINT ? d->njoint : d->nbody;
        if (C->index < 0 || C->index >= nmax)
            return kf_fail(err, KF_EINVAL, "coords", "coords[%d] (%s).index = %d is not a %s "
                           "(0..%d)", k, C->name, C->index,
                           C->kind == KF_SC_JOINT ? "joint" : "body", nmax - 1);
        int ncmp = C->kind == KF_SC_BODY ? 6 : NCOORD[d->joints[C->index].kind];
        if (C->component < 0 || C->component >= ncmp)
            return kf_fail(err, KF_EINVAL, "coords", "coords[%d] (%s).component = %d: %s has "
                           "%d coordinate(s)", k, C->name, C->component,
                           C->kind == KF_SC_BODY ? "a body" : KIND[d->joints[C->index].kind],
                           ncmp);
        for (int i = 0; i < k; i++)
            if (d->coords[i].kind == C->kind && d->coords[i].index == C->index &&
                d->coords[i].component == C->component)
                return kf_fail(err, KF_EINVAL, "coords", "coords[%d] (%s) and coords[%d] (%s) "
                               "are the same coordinate", i, d->coords[i].name, k, C->name);
    }
    if (!finite_n(d->gravity, 3))
        return kf_fail(err, KF_EINVAL, "gravity", "gravity = (%g, %g, %g) must be finite",
                       d->gravity[0], d->gravity[1], d->gravity[2]);
    if (d->redundant != 0 && d->redundant != 1)
        return kf_fail(err, KF_EINVAL, "redundant", "redundant = %d must be 0 or 1",
                       d->redundant);
    return KF_OK;
}

/* ================================================================ 3. one rule for every row */

/* The bodies' rotations at q (k->R) and, with speeds, their angular
 * velocities in global axes (wg, 3 nbody). */
static void body_rotations(const kf_smech *m, const double *q, double *R)
{
    for (int b = 0; b < m->nb; b++)
        quat_rot(q + 7 * b + 3, R + 9 * b);
}

/* What the rows of one joint (or one body component) are made of: per side
 * the body, its global frame F (row-major, axes as columns), the arm a = R p
 * from the mass centre to the point, and with speeds the body's velocity and
 * angular velocity (global). */
typedef struct {
    int b[2];
    double F[2][9], a[2][3], P[2][3], d[3];
    double v[2][3], w[2][3], dd[3];
    int vel;
} jctx;

static void make_ctx(const kf_smech *m, const double *q, const double *R, const double *u,
                     const double *wg, int b0, const double *f0, const double *p0, int b1,
                     const double *f1, const double *p1, jctx *c)
{
    const int bs[2] = {b0, b1};
    const double *fs[2] = {f0, f1}, *ps[2] = {p0, p1};
    c->vel = u != NULL;
    for (int s = 0; s < 2; s++) {
        int b = bs[s];
        c->b[s] = b;
        if (b < 0) {
            memcpy(c->F[s], fs[s], 9 * sizeof(double));
            memset(c->a[s], 0, 3 * sizeof(double));
            memcpy(c->P[s], ps[s], 3 * sizeof(double));
            memset(c->v[s], 0, 3 * sizeof(double));
            memset(c->w[s], 0, 3 * sizeof(double));
            continue;
        }
        const double *Rb = R + 9 * b;
        mm(Rb, fs[s], c->F[s]);
        mv(Rb, ps[s], c->a[s]);
        for (int i = 0; i < 3; i++)
            c->P[s][i] = q[7 * b + i] + c->a[s][i];
        if (u) {
            memcpy(c->v[s], u + 6 * b, 3 * sizeof(double));
            memcpy(c->w[s], wg + 3 * b, 3 * sizeof(double));
        } else {
            memset(c->v[s], 0, 3 * sizeof(double));
            memset(c->w[s], 0, 3 * sizeof(double));
        }
    }
    double wa0[3], wa1[3];
    cross(c->w[0], c->a[0], wa0);
    cross(c->w[1], c->a[1], wa1);
    for (int i = 0; i < 3; i++) {
        c->d[i] = c->P[1][i] - c->P[0][i];
        c->dd[i] = c->v[1][i] + wa1[i] - c->v[0][i] - wa0[i];
    }
}

static void ctx_of_joint(const kf_smech *m, const double *q, const double *R, const double *u,
                         const double *wg, const kf_sjoint *J, jctx *c)
{
    make_ctx(m, q, R, u, wg, J->body[0], J->f0, J->p0, J->body[1], J->f1, J->p1, c);
}

/* A body's own components: the ground (frame I) to the body (frame I, point its centre). */
static void ctx_of_body(const kf_smech *m, const double *q, const double *R, const double *u,
                        const double *wg, int b, jctx *c)
{
    static const double zero[3] = {0, 0, 0};
    make_ctx(m, q, R, u, wg, -1, EYE, zero, b, EYE, zero, c);
}

/* One row: value, gradient over each side's v and w (global), gamma. */
typedef struct {
    double val, gam;
    double gv[2][3], gw[2][3];
} srow;

static void axis(const double *F, int i, double *e)
{
    e[0] = F[i];
    e[1] = F[3 + i];
    e[2] = F[6 + i];
}

/* u . (P1 - P0): u axis i of frame 0 (its global image), or global axis i if
 * global; the points' rows. */
static void row_along(const jctx *c, int i, int global, srow *e)
{
    double u[3];
    if (global) {
        u[0] = i == 0;
        u[1] = i == 1;
        u[2] = i == 2;
    } else {
        axis(c->F[0], i, u);
    }
    e->val = dot3(u, c->d);
    double t[3];
    cross(c->a[1], u, e->gw[1]);
    for (int k = 0; k < 3; k++) {
        e->gv[1][k] = u[k];
        e->gv[0][k] = -u[k];
        t[k] = c->d[k] + c->a[0][k];
    }
    if (global) { /* a fixed direction: only the point on body 0 turns */
        cross(c->a[0], u, e->gw[0]);
        for (int k = 0; k < 3; k++)
            e->gw[0][k] = -e->gw[0][k];
    } else {
        cross(u, t, e->gw[0]);
    }
    if (!c->vel) {
        e->gam = 0.0;
        return;
    }
    /* second derivative's velocity part: (w0 x (w0 x u)) . d + 2 (w0 x u) . d'
     * + u . (w1 x (w1 x a1) - w0 x (w0 x a0)), the u terms only when u turns */
    double wa1[3], wwa1[3], wa0[3], wwa0[3], s = 0.0;
    cross(c->w[1], c->a[1], wa1);
    cross(c->w[1], wa1, wwa1);
    cross(c->w[0], c->a[0], wa0);
    cross(c->w[0], wa0, wwa0);
    for (int k = 0; k < 3; k++)
        s += u[k] * (wwa1[k] - wwa0[k]);
    if (!global) {
        double wu[3], wwu[3];
        cross(c->w[0], u, wu);
        cross(c->w[0], wu, wwu);
        s += dot3(wwu, c->d) + 2.0 * dot3(wu, c->dd);
    }
    e->gam = -s;
}

/* x_i of frame 0 . x_j of frame 1 */
static void row_dot(const jctx *c, int i, int j, srow *e)
{
    double u[3], w[3], uw[3];
    axis(c->F[0], i, u);
    axis(c->F[1], j, w);
    e->val = dot3(u, w);
    cross(u, w, uw);
    for (int k = 0; k < 3; k++) {
        e->gv[0][k] = e->gv[1][k] = 0.0;
        e->gw[0][k] = uw[k];
        e->gw[1][k] = -uw[k];
    }
    if (!c->vel) {
        e->gam = 0.0;
        return;
    }
    double wu[3], wwu[3], ww[3], www[3];
    cross(c->w[0], u, wu);
    cross(c->w[0], wu, wwu);
    cross(c->w[1], w, ww);
    cross(c->w[1], ww, www);
    e->gam = -(dot3(wwu, w) + 2.0 * dot3(wu, ww) + dot3(u, www));
}

/*
 * Angle k (0, 1, 2: a, b, c) of the relative rotation F0^T F1 = Rx(a) Ry(b)
 * Rz(c) as a row: its value, gradient and gamma.  The angles' rates are B^-1
 * W, W = F0^T (w1 - w0) the relative angular velocity in frame 0's axes, with
 *   B = [[1, 0, sb], [0, ca, -sa cb], [0, sa, ca cb]]   (det B = cb),
 * and their second derivatives' velocity part B^-1 (kappa - B' theta'), kappa
 * = -F0^T (w0 x w1).  The sines and cosines of a and b come from the matrix
 * itself (its entries 2, 5, 8 are sb, -sa cb, ca cb; cb = |(R_0, R_1)|), the
 * one angle asked for from one atan2.  Returns 0, or 1 where cb is too small
 * (b = +-pi/2: the angles are singular), e then untouched.
 */
static int row_angle(const jctx *c, int k, srow *e)
{
    double x0[3], y0[3], z0[3], x1[3], y1[3], z1[3];
    axis(c->F[0], 0, x0);
    axis(c->F[0], 1, y0);
    axis(c->F[0], 2, z0);
    axis(c->F[1], 0, x1);
    axis(c->F[1], 1, y1);
    axis(c->F[1], 2, z1);
    /* the entries 0, 1, 2, 5, 8 of F0^T F1 */
    double r0 = dot3(x0, x1), r1 = dot3(x0, y1), r2 = dot3(x0, z1), r5 = dot3(y0, z1),
           r8 = dot3(z0, z1);
    double sb = r2 > 1.0 ? 1.0 : r2 < -1.0 ? -1.0 : r2, cb = hypot(r0, r1);
    if (!(cb > 1e-8))
        return 1;
    e->val = k == 0 ? atan2(-r5, r8) : k == 1 ? atan2(sb, cb) : atan2(-r1, r0);
    double ra = hypot(r5, r8), rb = hypot(sb, cb);
    double sa = -r5 / ra, ca = r8 / ra;
    sb /= rb;
    cb /= rb;
    /* B^-1 rows: a' = W0 + (sb sa W1 - sb ca W2) / cb, b' = ca W1 + sa W2,
     * c' = (-sa W1 + ca W2) / cb */
    double Bi[9] = {1.0, sb * sa / cb, -sb * ca / cb, 0.0, ca, sa, 0.0, -sa / cb, ca / cb};
    /* rate_k = Bi_k . F0^T (w1 - w0) = (F0 Bi_k) . (w1 - w0) */
    double h[3];
    mv(c->F[0], Bi + 3 * k, h);
    for (int i = 0; i < 3; i++) {
        e->gv[0][i] = e->gv[1][i] = 0.0;
        e->gw[1][i] = h[i];
        e->gw[0][i] = -h[i];
    }
    e->gam = 0.0;
    if (!c->vel)
        return 0;
    double dw[3], W[3], th[3], w01[3], kap[3];
    for (int i = 0; i < 3; i++)
        dw[i] = c->w[1][i] - c->w[0][i];
    mtv(c->F[0], dw, W);
    mv(Bi, W, th);
    cross(c->w[0], c->w[1], w01);
    mtv(c->F[0], w01, kap);
    /* B' theta': column 2 of B is (0, ca, sa), column 3 (sb, -sa cb, ca cb) */
    double ad = th[0], bd = th[1], cd = th[2], Bt[3];
    Bt[0] = cd * cb * bd;
    Bt[1] = -bd * sa * ad + cd * (-ca * cb * ad + sa * sb * bd);
    Bt[2] = bd * ca * ad + cd * (-sa * cb * ad - ca * sb * bd);
    double r[3] = {-kap[0] - Bt[0], -kap[1] - Bt[1], -kap[2] - Bt[2]};
    e->gam = -dot3(Bi + 3 * k, r);
    return 0;
}

/* Row r of joint J. */
static void joint_row(const kf_sjoint *J, int r, const jctx *c, srow *e)
{
    switch (J->kind) {
    case KF_SJ_REVOLUTE: case KF_SJ_FIXED: case KF_SJ_SPHERICAL: case KF_SJ_UNIVERSAL:
        if (r < 3)
            row_along(c, r, 1, e);
        else if (J->kind == KF_SJ_UNIVERSAL)
            row_dot(c, 0, 1, e);
        else if (r < 5)
            row_dot(c, r - 3, 2, e); /* z1 . x0, z1 . y0 */
        else
            row_dot(c, 0, 1, e); /* y1 . x0 */
        return;
    case KF_SJ_PRISMATIC: case KF_SJ_CYLINDRICAL:
        if (r < 2)
            row_along(c, r, 0, e);
        else if (r < 4)
            row_dot(c, r - 2, 2, e);
        else
            row_dot(c, 0, 1, e);
        return;
    case KF_SJ_PLANAR:
        if (r == 0)
            row_along(c, 2, 0, e);
        else
            row_dot(c, r - 1, 2, e);
        return;
    default:
        memset(e, 0, sizeof *e);
    }
}

/* Coordinate i of joint J (its raw value, without the offset): 0 as a row, or
 * 1 (its angles singular). */
static int joint_coord(const kf_sjoint *J, int i, const jctx *c, srow *e)
{
    switch (J->kind) {
    case KF_SJ_PRISMATIC:
        row_along(c, 2, 0, e);
        return 0;
    case KF_SJ_CYLINDRICAL:
        if (i == 0) {
            row_along(c, 2, 0, e);
            return 0;
        }
        break;
    case KF_SJ_PLANAR:
        if (i < 2) {
            row_along(c, i, 0, e);
            return 0;
        }
        break;
    default: break;
    }
    return row_angle(c, J->kind == KF_SJ_SPHERICAL || J->kind == KF_SJ_UNIVERSAL ? i : 2, e);
}

/* Body component i: x, y, z of the centre, or the angles of its rotation. */
static int body_coord(const jctx *c, int i, srow *e)
{
    if (i < 3) {
        memset(e, 0, sizeof *e);
        e->val = c->P[1][i];
        e->gv[1][i] = 1.0;
        return 0;
    }
    return row_angle(c, i - 3, e);
}

/* The row's gradient over u (per body: v, then omega in body axes) into g
 * (entries g[col * stride]), times w, added. */
static void scatter(const srow *e, const jctx *c, const double *R, double w, double *g,
                    size_t stride)
{
    for (int s = 0; s < 2; s++) {
        int b = c->b[s];
        if (b < 0)
            continue;
        double gb[3];
        mtv(R + 9 * b, e->gw[s], gb);
        for (int i = 0; i < 3; i++) {
            g[(size_t)(6 * b + i) * stride] += w * e->gv[s][i];
            g[(size_t)(6 * b + 3 + i) * stride] += w * gb[i];
        }
    }
}

/* ================================================================ 4. kinematics
 *
 * The loop closure is kf_closure.c's, for every kinematics; space gives it its
 * rows (scaled to lengths), the update of positions on the manifold (r += dr,
 * R <- R exp(skew(dtheta))), the drawing, and the joints' own state along a
 * continuation (their angles unwrapped) and at a solution (the rows kept out).
 */

static double row_scale(const kf_smech *m, int kind, int r) { return joint_row_angle(kind, r) ? m->L : 1.0; }

static double col_scale(const kf_smech *m, int col) { return col % 6 >= 3 ? m->L : 1.0; }

/* The joint of row i (of all rows). */
static int row_joint(const kf_smech *m, int i)
{
    int lo = 0, hi = m->nj - 1;
    while (lo < hi) { /* the last joint whose first row is <= i */
        int mid = (lo + hi + 1) / 2;
        if (m->jrow[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static const kf_closure_ops spatial_closure;

/* "crank = 0.3 rad, x = 1.5 m" */
static const char *coords_text(const kf_smech *m, const double *z, char *buf, size_t len)
{
    return kf_closure_coords_text(&spatial_closure, m, m->nz, z, buf, len);
}

/* KF_EGEOM: coordinate kk's angles are singular (b = +-90 deg) at z. */
static int report_bad_coord(const kf_smech *m, int kk, const double *z, kf_error *err)
{
    char buf[240];
    const kf_scoord *C = m->coords + kk;
    if (C->kind == KF_SC_BODY)
        return kf_fail(err, KF_EGEOM, C->name, "%s: the angles of the rotation of the body of "
                       "coordinate '%s' are singular there (b = +-90 deg, where a and c turn "
                       "about one axis)", coords_text(m, z, buf, sizeof buf), C->name);
    const kf_sjoint *J = m->joints + C->index;
    return kf_fail(err, KF_EGEOM, J->name, "%s: joint '%s' (%s) is at a singular position of "
                   "its angles (b = +-90 deg, where a and c turn about one axis)",
                   coords_text(m, z, buf, sizeof buf), J->name, KIND[J->kind]);
}

/* The workspace's private arrays beyond the public ones. */
typedef struct {
    double *wg;    /* 3 nb: angular velocities, global */
    double *Ja;    /* n x n: the normal equations of redundant rows (joint forces) */
    double *x, *r, *mass6, *Q, *g, *Mz;
    double *lam;   /* mall + nz: the multipliers of every row (joint forces) */
    double *G;     /* (mall + nz) x n: every row's scaled gradient (redundant joint forces) */
} kin_private;

static kin_private priv(const kf_smech *m, const kf_smech_kin *k)
{
    kin_private p;
    int n = m->n, nz = m->nz;
    double *a = k->aux;
    p.wg = a, a += 3 * (size_t)m->nb;
    p.Ja = a, a += (size_t)n * n;
    p.x = a, a += n;
    p.r = a, a += n;
    p.mass6 = a, a += n;
    p.Q = a, a += n;
    p.g = a, a += n;
    p.Mz = a, a += (size_t)nz * nz + nz;
    p.lam = a, a += (size_t)m->mall + nz;
    p.G = a;
    return p;
}

int kf_smech_kin_alloc(const kf_smech *m, kf_smech_kin *k, kf_error *err)
{
    memset(k, 0, sizeof *k);
    int n = k->n = m->n, nz = k->nz = m->nz, nb = m->nb;
    /* public: z (nz); q (7 nb); u, ud, c (n); A (n nz); R (9 nb); jv, jvok (3 nj);
     * private (kin_private): wg (3 nb), Ja (n n), x, r, mass6, Q, g (n), Mz (nz nz +
     * nz), lam (mall + nz), G ((mall + nz) n) */
    size_t nd = (size_t)nz + 7 * (size_t)nb + 3 * (size_t)n + (size_t)n * nz + 9 * (size_t)nb +
                6 * (size_t)m->nj + 3 * (size_t)nb + (size_t)n * n + 5 * (size_t)n +
                (size_t)nz * nz + (size_t)nz + ((size_t)m->mall + nz) * (1 + (size_t)n) + 1;
    double *buf = kf_calloc(nd, sizeof(double));
    k->ipivt = kf_calloc((size_t)n, sizeof(int));
    if (!buf || !k->ipivt) {
        free(buf);
        free(k->ipivt);
        k->ipivt = NULL;
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a spatial mechanism's workspace "
                       "(n = %d)", n);
    }
    double *p = buf;
    k->z = p, p += nz;
    k->q = p, p += 7 * (size_t)nb;
    k->u = p, p += n;
    k->ud = p, p += n;
    k->c = p, p += n;
    k->A = p, p += (size_t)n * nz;
    k->R = p, p += 9 * (size_t)nb;
    k->jv = p, p += 3 * (size_t)m->nj;
    k->jvok = p, p += 3 * (size_t)m->nj;
    k->aux = p;
    kf_closure_shape shape = {.n = n, .nq = 7 * nb, .nz = nz, .per_body = 6, .lengths = 3,
                              .L = m->L, .rs = m->rs};
    int rc = kf_closure_create(&k->cl, &spatial_closure, m, k, &shape, k->q, k->z, k->A, k->c,
                               err);
    if (rc)
        kf_smech_kin_free(k);
    return rc;
}

void kf_smech_kin_free(kf_smech_kin *k)
{
    if (!k)
        return;
    free(k->z); /* the start of the one buffer */
    free(k->ipivt);
    kf_closure_free(k->cl);
    memset(k, 0, sizeof *k);
}

/* The value of coordinate k at the current rotations (ctx without speeds),
 * as a row; 1 where its angles are singular. */
static int coord_row(const kf_smech *m, int k, const double *q, const double *R, const double *u,
                     const double *wg, srow *e, jctx *c)
{
    const kf_scoord *C = m->coords + k;
    if (C->kind == KF_SC_BODY) {
        ctx_of_body(m, q, R, u, wg, C->index, c);
        return body_coord(c, C->component, e);
    }
    const kf_sjoint *J = m->joints + C->index;
    ctx_of_joint(m, q, R, u, wg, J, c);
    if (joint_coord(J, C->component, c, e))
        return 1;
    e->val += J->offset[C->component];
    return 0;
}

/* Coordinate kk's row (row m + kk) from the context c of its joint or body: its
 * value less z (angles wrapped) into res, gamma, its gradient into J, as
 * eval_rows; 1 where its angles are singular. */
static int coord_eval(const kf_smech *m, int kk, const jctx *c, const double *R,
                      const double *z, double *res, double *J, double *gam)
{
    const kf_scoord *C = m->coords + kk;
    int i = m->m + kk;
    srow e;
    if (C->kind == KF_SC_BODY) {
        if (body_coord(c, C->component, &e))
            return 1;
    } else {
        if (joint_coord(m->joints + C->index, C->component, c, &e))
            return 1;
        e.val += m->joints[C->index].offset[C->component];
    }
    double s = m->rs[i];
    if (res) {
        double d = e.val - z[kk];
        res[i] = s * (kf_smech_coord_is_angle(m, kk) ? wrap(d) : d);
    }
    if (gam)
        gam[i] = e.gam;
    if (J)
        scatter(&e, c, R, s, J + i, (size_t)m->n);
    return 0;
}

/*
 * Every row at (q, u): res (values; coordinate rows minus z, angles wrapped),
 * J (n x n column-major gradients, scaled: rows by rs, omega columns by 1/L),
 * gam (needs u); any may be NULL.  k->R must hold q's rotations.  1 (and *bad
 * the coordinate) where a coordinate's angles are singular.  Each joint's
 * context serves its kept rows and its coordinates.
 */
static int eval_rows(const kf_smech *m, kf_smech_kin *k, const double *q, const double *u,
                     const double *z, double *res, double *J, double *gam, int *bad)
{
    int n = m->n;
    kin_private p = priv(m, k);
    const double *R = k->R, *wg = u ? p.wg : NULL;
    if (u)
        for (int b = 0; b < m->nb; b++)
            mv(R + 9 * b, u + 6 * b + 3, p.wg + 3 * b);
    if (J)
        memset(J, 0, (size_t)n * n * sizeof(double));
    /* the kept rows and the joint coordinates, joint by joint */
    int row = 0;
    for (int j = 0; j < m->nj; j++) {
        const kf_sjoint *Jt = m->joints + j;
        int coords = 0;
        for (int kk = 0; kk < m->nz; kk++)
            coords |= m->coords[kk].kind == KF_SC_JOINT && m->coords[kk].index == j;
        if (!coords && !(row < m->m && m->kept[row] < m->jrow[j + 1]))
            continue;
        jctx c;
        ctx_of_joint(m, q, R, u, wg, Jt, &c);
        for (; row < m->m && m->kept[row] < m->jrow[j + 1]; row++) {
            int r = m->kept[row] - m->jrow[j];
            srow e;
            joint_row(Jt, r, &c, &e);
            double s = m->rs[row];
            if (res)
                res[row] = s * e.val;
            if (gam)
                gam[row] = e.gam;
            if (J)
                scatter(&e, &c, R, s, J + row, (size_t)n);
        }
        for (int kk = 0; coords && kk < m->nz; kk++)
            if (m->coords[kk].kind == KF_SC_JOINT && m->coords[kk].index == j &&
                coord_eval(m, kk, &c, R, z, res, J, gam)) {
                *bad = kk;
                return 1;
            }
    }
    for (int kk = 0; kk < m->nz; kk++) /* the bodies' components */
        if (m->coords[kk].kind == KF_SC_BODY) {
            jctx c;
            ctx_of_body(m, q, R, u, wg, m->coords[kk].index, &c);
            if (coord_eval(m, kk, &c, R, z, res, J, gam)) {
                *bad = kk;
                return 1;
            }
        }
    if (J) /* omega columns to unit lengths */
        for (int col = 0; col < n; col++)
            if (col % 6 >= 3)
                for (int i = 0; i < n; i++)
                    J[i + (size_t)col * n] /= m->L;
    return 0;
}

/* The joints' coordinates (jv, 3 per joint), each continued from jvok (angles
 * unwrapped: the nearest value to the last one), at the rotations k->R. */
static void track_joint_values(const kf_smech *m, kf_smech_kin *k)
{
    for (int j = 0; j < m->nj; j++) {
        const kf_sjoint *J = m->joints + j;
        if (!(m->laws[3 * j] | m->laws[3 * j + 1] | m->laws[3 * j + 2]))
            continue;
        jctx c;
        ctx_of_joint(m, k->q, k->R, NULL, NULL, J, &c);
        for (int i = 0; i < NCOORD[J->kind]; i++) {
            srow e;
            if (!m->laws[3 * j + i] || joint_coord(J, i, &c, &e))
                continue; /* a law's singular angles are refused where the forces are made */
            double v = e.val + J->offset[i];
            k->jv[3 * j + i] = joint_coord_angle(J->kind, i)
                                   ? k->jvok[3 * j + i] + wrap(v - k->jvok[3 * j + i])
                                   : v;
        }
    }
}

/* The rows kept out (dependent on the others at the drawing) must hold where the
 * kept ones do: KF_EGEOM naming the joint where one does not (a dependence that held
 * at the drawing only, or constraints that contradict each other). */
static int dropped_rows_hold(const kf_smech *m, kf_smech_kin *k, const double *z, kf_error *err)
{
    if (m->m == m->mall)
        return KF_OK;
    int row = 0;
    for (int j = 0; j < m->nj; j++) {
        const kf_sjoint *J = m->joints + j;
        int all = NROWS[J->kind], kept = 0;
        while (row < m->m && m->kept[row] < m->jrow[j + 1]) {
            row++;
            kept++;
        }
        if (kept == all)
            continue;
        jctx c;
        ctx_of_joint(m, k->q, k->R, NULL, NULL, J, &c);
        for (int r = 0; r < all; r++) {
            int i = m->jrow[j] + r, is_kept = 0;
            for (int t = row - kept; t < row; t++)
                is_kept |= m->kept[t] == i;
            if (is_kept)
                continue;
            srow e;
            joint_row(J, r, &c, &e);
            double v = e.val * row_scale(m, J->kind, r);
            if (!(fabs(v) <= 1e-8 * m->L)) {
                char buf[240];
                return kf_fail(err, KF_EGEOM, J->name, "at %s joint '%s' (%s) fails its row %s "
                               "by %.3g m: that row, redundant at the drawing and kept out, is "
                               "not implied by the others here (the drawing was a singular "
                               "position, or the joints contradict each other)",
                               coords_text(m, z, buf, sizeof buf), J->name, KIND[J->kind],
                               row_text(J->kind, r), v);
            }
        }
    }
    return KF_OK;
}

/* The joints' coordinates at the drawing's position (k->q, k->R): jvok from
 * the offsets, tracked to the position. */
static void start_joint_values(const kf_smech *m, kf_smech_kin *k)
{
    for (int j = 0; j < m->nj; j++)
        for (int i = 0; i < 3; i++)
            k->jvok[3 * j + i] = m->joints[j].offset[i];
    track_joint_values(m, k);
    memcpy(k->jvok, k->jv, 3 * (size_t)m->nj * sizeof(double));
}

/* ---------------------------------------------------------------- the closure's table */

static int sp_rows(const void *mech, void *kin, const double *q, const double *z, double *res,
                   double *J, int *bad)
{
    kf_smech_kin *k = kin;
    body_rotations(mech, q, k->R);
    return eval_rows(mech, k, q, NULL, z, res, J, NULL, bad);
}

static int sp_gamma(const void *mech, void *kin, const double *u, double *gam, int *bad)
{
    kf_smech_kin *k = kin;
    return eval_rows(mech, k, k->q, u, k->z, NULL, NULL, gam, bad);
}

/* q += x (scaled: v, then omega times L, per body): r += dr, R <- R exp(skew(dtheta)). */
static void sp_move(const void *mech, double *q, const double *x)
{
    const kf_smech *m = mech;
    for (int b = 0; b < m->nb; b++) {
        double th[3];
        for (int i = 0; i < 3; i++) {
            q[7 * b + i] += x[6 * b + i];
            th[i] = x[6 * b + 3 + i] / m->L;
        }
        quat_turn(q + 7 * b + 3, th);
    }
}

/* Scaled size of a change of q: lengths, rotation angles times L. */
static double sp_distance(const void *mech, const double *a, const double *b)
{
    const kf_smech *m = mech;
    double s = 0.0;
    for (int bb = 0; bb < m->nb; bb++) {
        for (int i = 0; i < 3; i++)
            s = fmax(s, fabs(a[7 * bb + i] - b[7 * bb + i]));
        s = fmax(s, m->L * quat_angle(a + 7 * bb + 3, b + 7 * bb + 3));
    }
    return s;
}

static int sp_drawing(const void *mech, void *kin, double *q, double *z, kf_error *err)
{
    const kf_smech *m = mech;
    kf_smech_kin *k = kin;
    for (int b = 0; b < m->nb; b++) {
        memcpy(q + 7 * b, m->bodies[b].r, 3 * sizeof(double));
        memcpy(q + 7 * b + 3, m->bodies[b].quat, 4 * sizeof(double));
    }
    body_rotations(m, q, k->R);
    start_joint_values(m, k);
    for (int kk = 0; kk < m->nz; kk++) {
        srow e;
        jctx c;
        if (coord_row(m, kk, q, k->R, NULL, NULL, &e, &c))
            return report_bad_coord(m, kk, m->z0, err);
        z[kk] = e.val;
    }
    return KF_OK;
}

static const char *sp_name(const void *m, int k) { return ((const kf_smech *)m)->coords[k].name; }

static int sp_is_angle(const void *m, int k) { return kf_smech_coord_is_angle(m, k); }

/* Row i of the kept rows: its joint's or coordinate's name. */
static int sp_row_name(const void *mech, int i, char *buf, size_t len)
{
    const kf_smech *m = mech;
    if (i < m->m) {
        int j = row_joint(m, m->kept[i]);
        snprintf(buf, len, "joint '%s'", m->joints[j].name);
        return j;
    }
    const kf_scoord *C = m->coords + (i - m->m);
    if (C->kind == KF_SC_JOINT)
        snprintf(buf, len, "coordinate '%s' (of joint '%s')", C->name, m->joints[C->index].name);
    else
        snprintf(buf, len, "coordinate '%s'", C->name);
    return m->nj + i;
}

static void sp_accepted(const void *mech, void *kin, const double *q)
{
    kf_smech_kin *k = kin;
    (void)q; /* = k->q, whose rotations k->R the rows there left */
    track_joint_values(mech, k);
    memcpy(k->jvok, k->jv, 3 * (size_t)((const kf_smech *)mech)->nj * sizeof(double));
}

static int sp_solved(const void *mech, void *kin, const double *q, const double *z,
                     kf_error *err)
{
    kf_smech_kin *k = kin;
    body_rotations(mech, q, k->R);
    return dropped_rows_hold(mech, k, z, err);
}

static int sp_bad_angles(const void *m, int k, const double *z, kf_error *err)
{
    return report_bad_coord(m, k, z, err);
}

static const kf_closure_ops spatial_closure = {
    .rows = sp_rows, .gamma = sp_gamma, .move = sp_move, .distance = sp_distance,
    .drawing = sp_drawing, .coord_name = sp_name, .coord_is_angle = sp_is_angle,
    .bad_angles = sp_bad_angles, .row_name = sp_row_name, .accepted = sp_accepted,
    .solved = sp_solved, .singular = "a singular configuration"};

int kf_smech_kinematics(const kf_smech *m, const double *z, const double *zd, const double *zdd,
                        kf_smech_kin *k, kf_error *err)
{
    if (!m || !z || !k || k->n != m->n || k->nz != m->nz)
        return kf_fail(err, KF_EINVAL, "", "kf_smech_kinematics: NULL argument or a workspace "
                       "of another mechanism");
    for (int i = 0; i < m->nz; i++)
        if ((zd && !isfinite(zd[i])) || (zdd && !isfinite(zdd[i])))
            return kf_fail(err, KF_EINVAL, m->coords[i].name, "the rates of %s (%g, %g) must be "
                           "finite", m->coords[i].name, zd ? zd[i] : 0.0, zdd ? zdd[i] : 0.0);
    int rc = kf_closure_position(k->cl, z, err);
    return rc ? rc : kf_closure_rates(k->cl, zd, zdd, k->u, k->ud, err);
}

/* ---------------------------------------------------------------- forces */

int kf_smech_applied(const kf_smech *m, const kf_smech_kin *k, double *Q, kf_error *err)
{
    int n = m->n;
    memset(Q, 0, (size_t)n * sizeof(double));
    kin_private p = priv(m, k);
    for (int b = 0; b < m->nb; b++)
        for (int i = 0; i < 3; i++)
            Q[6 * b + i] += m->bodies[b].mass * m->g[i];
    for (int j = 0; j < m->nj; j++) {
        const kf_sjoint *J = m->joints + j;
        if (!(m->laws[3 * j] | m->laws[3 * j + 1] | m->laws[3 * j + 2]))
            continue;
        jctx c;
        ctx_of_joint(m, k->q, k->R, k->u, p.wg, J, &c);
        for (int i = 0; i < NCOORD[J->kind]; i++) {
            if (!m->laws[3 * j + i])
                continue;
            srow e;
            if (joint_coord(J, i, &c, &e)) {
                char buf[240];
                return kf_fail(err, KF_EGEOM, J->name, "at %s joint '%s' is at a singular "
                               "position of its angles (b = +-90 deg), where its force law on "
                               "coordinate %d has no direction", coords_text(m, k->z, buf,
                               sizeof buf), J->name, i);
            }
            /* s' = gradient . u, from the global gradients */
            double sd = 0.0;
            for (int s = 0; s < 2; s++)
                sd += dot3(e.gv[s], c.v[s]) + dot3(e.gw[s], c.w[s]);
            double F = -J->k[i] * (k->jv[3 * j + i] - J->s0[i]) - J->c[i] * sd;
            if (J->F_r[i] > 0.0)
                F -= J->F_r[i] * tanh(sd / J->v_F[i]);
            scatter(&e, &c, k->R, F, Q, 1);
        }
    }
    for (int s = 0; s < m->ns; s++) {
        const kf_sspring *S = m->springs + s;
        jctx c;
        make_ctx(m, k->q, k->R, k->u, p.wg, S->body[0], EYE, S->p0, S->body[1], EYE, S->p1, &c);
        double L = sqrt(dot3(c.d, c.d));
        if (!(L > 0.0)) {
            char buf[240];
            return kf_fail(err, KF_EGEOM, "springs", "springs[%d] has zero length at %s", s,
                           coords_text(m, k->z, buf, sizeof buf));
        }
        /* L' = e . d'; its gradient e . grad d: the row along the unit vector e */
        double e3[3] = {c.d[0] / L, c.d[1] / L, c.d[2] / L};
        srow e;
        memset(&e, 0, sizeof e);
        for (int i = 0; i < 3; i++) {
            e.gv[1][i] = e3[i];
            e.gv[0][i] = -e3[i];
        }
        cross(c.a[1], e3, e.gw[1]);
        cross(e3, c.a[0], e.gw[0]);
        double F = S->k * (L - S->L0) + S->c * dot3(e3, c.dd);
        scatter(&e, &c, k->R, -F, Q, 1);
    }
    return KF_OK;
}

/* g = (0, omega x I omega) of every body (the gyroscopic terms of Euler's
 * equations in body axes), into g (n). */
static void gyroscopic(const kf_smech *m, const double *u, double *g)
{
    for (int b = 0; b < m->nb; b++) {
        const double *w = u + 6 * b + 3;
        double Iw[3];
        mv(m->bodies[b].inertia, w, Iw);
        memset(g + 6 * b, 0, 3 * sizeof(double));
        cross(w, Iw, g + 6 * b + 3);
    }
}

/* y = M x for the body masses (per body m I_3 and its tensor). */
static void mass_times(const kf_smech *m, const double *x, double *y)
{
    for (int b = 0; b < m->nb; b++) {
        for (int i = 0; i < 3; i++)
            y[6 * b + i] = m->bodies[b].mass * x[6 * b + i];
        mv(m->bodies[b].inertia, x + 6 * b + 3, y + 6 * b + 3);
    }
}

int kf_smech_dynamics(const kf_smech *m, kf_smech_kin *k, const double *tau,
                      const unsigned char *prescribed, double *zdd, double *drive,
                      kf_error *err)
{
    int n = m->n, nz = m->nz;
    kin_private p = priv(m, k);
    int rc = kf_smech_applied(m, k, p.Q, err);
    if (rc)
        return rc;
    /* f = A^T (Q - M c - g) + tau, M_z = A^T M A */
    gyroscopic(m, k->u, p.g);
    mass_times(m, k->c, p.r);
    for (int i = 0; i < n; i++)
        p.Q[i] -= p.r[i] + p.g[i];
    double *f = p.Mz + (size_t)nz * nz;
    for (int a = 0; a < nz; a++) {
        double s = tau ? tau[a] : 0.0;
        for (int i = 0; i < n; i++)
            s += k->A[(size_t)i * nz + a] * p.Q[i];
        f[a] = s;
    }
    for (int b = 0; b < nz; b++) {
        for (int i = 0; i < n; i++) /* column b of A, then M times it */
            p.g[i] = k->A[(size_t)i * nz + b];
        mass_times(m, p.g, p.r);
        for (int a = 0; a <= b; a++) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += k->A[(size_t)i * nz + a] * p.r[i];
            p.Mz[a + (size_t)b * nz] = p.Mz[b + (size_t)a * nz] = s;
        }
    }
    return kf_kane_reduce(nz, p.Mz, f, prescribed, zdd, drive, err);
}

/* Every row's scaled gradient (the constraint rows, all of them, then the
 * coordinates), row-major into G ((mall + nz) x n, omega columns over L); 1 (and
 * *bad) where a coordinate's angles are singular. */
static int all_rows(const kf_smech *m, kf_smech_kin *k, double *G, int *bad)
{
    int n = m->n;
    memset(G, 0, ((size_t)m->mall + m->nz) * n * sizeof(double));
    for (int j = 0; j < m->nj; j++) {
        const kf_sjoint *J = m->joints + j;
        jctx c;
        ctx_of_joint(m, k->q, k->R, NULL, NULL, J, &c);
        for (int r = 0; r < NROWS[J->kind]; r++) {
            srow e;
            joint_row(J, r, &c, &e);
            scatter(&e, &c, k->R, row_scale(m, J->kind, r), G + (size_t)(m->jrow[j] + r) * n, 1);
        }
    }
    for (int kk = 0; kk < m->nz; kk++) {
        srow e;
        jctx c;
        if (coord_row(m, kk, k->q, k->R, NULL, NULL, &e, &c)) {
            *bad = kk;
            return 1;
        }
        scatter(&e, &c, k->R, m->rs[m->m + kk], G + (size_t)(m->mall + kk) * n, 1);
    }
    for (size_t i = 0; i < (size_t)m->mall + m->nz; i++)
        for (int col = 3; col < n; col += (col % 6 == 5) ? 4 : 1)
            G[i * n + col] /= m->L;
    return 0;
}

int kf_smech_joint_forces(const kf_smech *m, kf_smech_kin *k, const double *r, double *fj,
                          double *drive, kf_error *err)
{
    int n = m->n, rc, bad;
    kin_private p = priv(m, k);
    /* lam: the multipliers of every row (all constraint rows, then the coordinates) */
    double *Jt = p.Ja, *x = p.x, *lam = p.lam;
    if (m->m == m->mall) { /* independent rows: the square system, by the position's factors */
        if ((rc = kf_closure_multipliers(k->cl, r, lam, err)))
            return rc;
    } else {
        /* redundant rows: the multipliers are not unique; the least-norm ones over every
         * row (scaled), lam = G y with G^T G y = b, spread the forces over the rows as
         * evenly as the constraints allow (the coordinates' own, the drives, are unique);
         * J^T x = r with J = Dr^-1 Js Dc: Js^T (Dr^-1 x) = Dc^-1 r, in scaled units */
        int N = m->mall + m->nz;
        for (int j = 0; j < n; j++)
            x[j] = r[j] / col_scale(m, j);
        if (all_rows(m, k, p.G, &bad))
            return report_bad_coord(m, bad, k->z, err);
        for (int a = 0; a < n; a++)
            for (int b = 0; b <= a; b++) {
                double s = 0.0;
                for (int i = 0; i < N; i++)
                    s += p.G[(size_t)i * n + a] * p.G[(size_t)i * n + b];
                Jt[a + (size_t)b * n] = Jt[b + (size_t)a * n] = s;
            }
        if ((rc = kf_mech_dense_solve(n, Jt, k->ipivt, 1, 1, x, err)))
            return rc;
        for (int i = 0; i < N; i++)
            lam[i] = kf_dot(n, p.G + (size_t)i * n, x);
        /* unscaled by the row scales (all rows in order) */
        for (int j = 0; j < m->nj; j++)
            for (int r2 = 0; r2 < NROWS[m->joints[j].kind]; r2++)
                lam[m->jrow[j] + r2] *= row_scale(m, m->joints[j].kind, r2);
        for (int i = 0; i < m->nz; i++)
            lam[m->mall + i] *= m->rs[m->m + i];
    }
    if (fj) {
        memset(fj, 0, 6 * (size_t)m->nj * sizeof(double));
        for (int j = 0; j < m->nj; j++) {
            const kf_sjoint *Jt2 = m->joints + j;
            jctx c;
            ctx_of_joint(m, k->q, k->R, NULL, NULL, Jt2, &c);
            /* the generalized force of the joint's rows on the side s: -sum lambda G */
            int s = Jt2->body[1] >= 0 ? 1 : 0;
            double F[3] = {0, 0, 0}, T[3] = {0, 0, 0};
            for (int r2 = 0; r2 < NROWS[Jt2->kind]; r2++) {
                double l = lam[m->jrow[j] + r2];
                if (l == 0.0)
                    continue;
                srow e;
                joint_row(Jt2, r2, &c, &e);
                for (int i = 0; i < 3; i++) {
                    F[i] -= l * e.gv[s][i];
                    T[i] -= l * e.gw[s][i]; /* global: the moment about the centre */
                }
            }
            /* about the side's joint point: T - a x F; on body 1 by body 0 */
            double aF[3];
            cross(c.a[s], F, aF);
            double *f = fj + 6 * j;
            for (int i = 0; i < 3; i++) {
                f[i] = s ? F[i] : -F[i];
                f[3 + i] = s ? T[i] - aF[i] : -(T[i] - aF[i]);
            }
            if (!s) { /* body 1 the ground: the moment about its point P1 */
                double dP[3] = {c.P[0][0] - c.P[1][0], c.P[0][1] - c.P[1][1],
                                c.P[0][2] - c.P[1][2]}, mF[3];
                cross(dP, f, mF);
                for (int i = 0; i < 3; i++)
                    f[3 + i] += mF[i];
            }
        }
    }
    for (int i = 0; drive && i < m->nz; i++)
        drive[i] = -lam[m->mall + i];
    return KF_OK;
}

int kf_smech_reactions(const kf_smech *m, kf_smech_kin *k, double *fj, double *drive,
                       kf_error *err)
{
    int n = m->n;
    kin_private p = priv(m, k);
    int rc = kf_smech_applied(m, k, p.Q, err);
    if (rc)
        return rc;
    gyroscopic(m, k->u, p.g);
    mass_times(m, k->ud, p.r);
    for (int i = 0; i < n; i++)
        p.Q[i] -= p.r[i] + p.g[i];
    return kf_smech_joint_forces(m, k, p.Q, fj, drive, err);
}

int kf_smech_axes_check(const kf_smech *m, int naxes, const kf_smech_axes *axes,
                        const char *what, kf_error *err)
{
    if (naxes < 0 || (naxes > 0 && !axes))
        return kf_fail(err, KF_EINVAL, what, "%s: %d axes and no array", what, naxes);
    for (int i = 0; i < naxes; i++) {
        const kf_smech_axes *a = axes + i;
        if (a->body < -1 || a->body >= m->nb)
            return kf_fail(err, KF_EINVAL, what, "%s[%d].body = %d is not a body (-1 the ground, "
                           "0..%d)", what, i, a->body, m->nb - 1);
        if (!finite_n(a->o, 3) || !finite_n(a->phi, 9))
            return kf_fail(err, KF_EINVAL, what, "%s[%d]: o = (%g, %g, %g) and phi must be "
                           "finite", what, i, a->o[0], a->o[1], a->o[2]);
    }
    return KF_OK;
}

void kf_smech_frame(const kf_smech *m, const kf_smech_kin *k, const kf_smech_axes *ax,
                    kf_frame *f)
{
    memset(f, 0, sizeof *f);
    int b = ax->body;
    double Rf[9], om[3] = {0, 0, 0}, ep[3] = {0, 0, 0}, vO[3] = {0, 0, 0}, aO[3] = {0, 0, 0};
    if (b < 0) {
        memcpy(Rf, ax->phi, 9 * sizeof(double));
    } else {
        const double *R = k->R + 9 * b;
        mm(R, ax->phi, Rf);
        double ro[3], wg[3], eg[3], wr[3], er[3], wwr[3];
        mv(R, ax->o, ro);
        mv(R, k->u + 6 * b + 3, wg);
        mv(R, k->ud + 6 * b + 3, eg);
        cross(wg, ro, wr);
        cross(eg, ro, er);
        cross(wg, wr, wwr);
        for (int i = 0; i < 3; i++) {
            vO[i] = k->u[6 * b + i] + wr[i];
            aO[i] = k->ud[6 * b + i] + er[i] + wwr[i];
        }
        mtv(ax->phi, k->u + 6 * b + 3, om);
        mtv(ax->phi, k->ud + 6 * b + 3, ep);
    }
    double ag[3] = {aO[0] - m->g[0], aO[1] - m->g[1], aO[2] - m->g[2]}, aL[3], wv[3];
    memcpy(f->omega, om, sizeof om);
    memcpy(f->eps, ep, sizeof ep);
    mtv(Rf, vO, f->v);
    mtv(Rf, ag, f->a);
    /* vdot = a_L - W v_L with the true (gravity-free) a_L of the origin */
    mtv(Rf, aO, aL);
    cross(om, f->v, wv);
    for (int i = 0; i < 3; i++)
        f->vdot[i] = aL[i] - wv[i];
}

/* ---------------------------------------------------------------- creation */

/* The independent rows at the drawing, by Gram-Schmidt in order over the
 * scaled gradients (each row kept unless within 1e-9 of its norm of the span
 * of those kept before it): m->kept, m->m.  KF_EINVAL naming the dependent
 * rows and the rank, unless m->redundant. */
static int independent_rows(kf_smech *m, kf_smech_kin *k, kf_error *err)
{
    int n = m->n, mall = m->mall;
    double *basis = kf_calloc((size_t)(mall > 0 ? mall : 1) * n, sizeof(double));
    double *g = kf_calloc((size_t)n, sizeof(double));
    int *dep = kf_calloc((size_t)(mall > 0 ? mall : 1), sizeof(int));
    if (!basis || !g || !dep) {
        free(basis);
        free(g);
        free(dep);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the rank test of %d rows", mall);
    }
    body_rotations(m, k->q, k->R);
    int nk = 0, nd = 0;
    for (int j = 0; j < m->nj; j++) {
        const kf_sjoint *J = m->joints + j;
        jctx c;
        ctx_of_joint(m, k->q, k->R, NULL, NULL, J, &c);
        for (int r = 0; r < NROWS[J->kind]; r++) {
            srow e;
            joint_row(J, r, &c, &e);
            memset(g, 0, (size_t)n * sizeof(double));
            scatter(&e, &c, k->R, row_scale(m, J->kind, r), g, 1);
            for (int col = 0; col < n; col++)
                g[col] /= col_scale(m, col);
            double norm0 = sqrt(kf_dot(n, g, g));
            for (int pass = 0; pass < 2; pass++) /* twice: modified Gram-Schmidt, refined */
                for (int i = 0; i < nk; i++) {
                    double s = kf_dot(n, g, basis + (size_t)i * n);
                    for (int col = 0; col < n; col++)
                        g[col] -= s * basis[(size_t)i * n + col];
                }
            double norm = sqrt(kf_dot(n, g, g));
            if (norm > 1e-9 * norm0 && norm0 > 0.0) {
                for (int col = 0; col < n; col++)
                    basis[(size_t)nk * n + col] = g[col] / norm;
                m->kept[nk++] = m->jrow[j] + r;
            } else {
                dep[nd++] = m->jrow[j] + r;
            }
        }
    }
    m->m = nk;
    int rc = KF_OK;
    if (nd && !m->redundant) {
        char list[400];
        size_t used = 0;
        list[0] = '\0';
        for (int i = 0; i < nd && used + 1 < sizeof list; i++) {
            int j = row_joint(m, dep[i]);
            int w = snprintf(list + used, sizeof list - used, "%s'%s' %s", i ? ", " : "",
                             m->joints[j].name, row_text(m->joints[j].kind, dep[i] - m->jrow[j]));
            if (w < 0)
                break;
            used += (size_t)w;
        }
        rc = kf_fail(err, KF_EINVAL, "joints", "redundant constraints: the joints' %d rows have "
                     "rank %d at the drawing; %d row(s) depend on those before them: %s (an "
                     "overconstrained mechanism, such as a loop of parallel revolutes in space; "
                     "or a drawing at a singular position).  Keep an independent set "
                     "(the joint forces are then the least-norm ones) or use joints that "
                     "remove fewer freedoms", mall, nk, nd, list);
    }
    free(basis);
    free(g);
    free(dep);
    return rc;
}

int kf_smech_create(kf_smech **out, const kf_smech_desc *d, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    int rc = d ? check_desc(d, err) : kf_fail(err, KF_EINVAL, "desc", "description is NULL");
    if (rc)
        return rc;
    kf_smech *m = kf_calloc(1, sizeof *m);
    if (!m)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a spatial mechanism");
    int nb = m->nb = d->nbody, n = m->n = 6 * nb;
    m->nj = d->njoint;
    m->ns = d->nspring;
    m->nz = d->ncoord;
    m->redundant = d->redundant;
    m->bodies = kf_calloc((size_t)nb, sizeof(kf_sbody));
    m->joints = kf_calloc((size_t)(m->nj > 0 ? m->nj : 1), sizeof(kf_sjoint));
    m->springs = kf_calloc((size_t)(m->ns > 0 ? m->ns : 1), sizeof(kf_sspring));
    m->coords = kf_calloc((size_t)m->nz, sizeof(kf_scoord));
    m->jrow = kf_calloc((size_t)m->nj + 1, sizeof(int));
    m->laws = kf_calloc(3 * (size_t)(m->nj > 0 ? m->nj : 1), 1);
    if (!m->bodies || !m->joints || !m->springs || !m->coords || !m->jrow || !m->laws) {
        kf_smech_free(m);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a mechanism of %d bodies", nb);
    }
    memcpy(m->bodies, d->bodies, (size_t)nb * sizeof(kf_sbody));
    if (m->nj)
        memcpy(m->joints, d->joints, (size_t)m->nj * sizeof(kf_sjoint));
    if (m->ns)
        memcpy(m->springs, d->springs, (size_t)m->ns * sizeof(kf_sspring));
    memcpy(m->coords, d->coords, (size_t)m->nz * sizeof(kf_scoord));
    for (int i = 0; i < 3; i++)
        m->g[i] = d->gravity[i];
    /* unit quaternions; the rows; the length scale */
    double L = 0.0;
    for (int b = 0; b < nb; b++) {
        double *qq = m->bodies[b].quat, qn = sqrt(qq[0] * qq[0] + dot3(qq + 1, qq + 1));
        for (int i = 0; i < 4; i++)
            qq[i] /= qn;
        L = fmax(L, sqrt(dot3(m->bodies[b].r, m->bodies[b].r)));
    }
    for (int j = 0; j < m->nj; j++) {
        kf_sjoint *J = m->joints + j;
        m->jrow[j] = m->mall;
        m->mall += NROWS[J->kind];
        L = fmax(L, fmax(sqrt(dot3(J->p0, J->p0)), sqrt(dot3(J->p1, J->p1))));
        for (int i = 0; i < NCOORD[J->kind]; i++)
            m->laws[3 * j + i] = J->k[i] != 0.0 || J->c[i] != 0.0 || J->F_r[i] != 0.0;
    }
    m->jrow[m->nj] = m->mall;
    for (int s = 0; s < m->ns; s++)
        L = fmax(L, fmax(sqrt(dot3(m->springs[s].p0, m->springs[s].p0)),
                         sqrt(dot3(m->springs[s].p1, m->springs[s].p1))));
    m->L = L > 0.0 ? L : 1.0;
    m->kept = kf_calloc((size_t)(m->mall > 0 ? m->mall : 1), sizeof(int));
    m->rs = kf_calloc((size_t)n + (size_t)m->mall, sizeof(double));
    if (!m->kept || !m->rs) {
        kf_smech_free(m);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a mechanism of %d bodies", nb);
    }
    /* the independent rows at the drawing */
    kf_smech_kin k;
    m->m = m->mall; /* the workspace's size does not depend on it */
    if ((rc = kf_smech_kin_alloc(m, &k, err))) {
        kf_smech_free(m);
        return rc;
    }
    for (int b = 0; b < nb; b++) {
        memcpy(k.q + 7 * b, m->bodies[b].r, 3 * sizeof(double));
        memcpy(k.q + 7 * b + 3, m->bodies[b].quat, 4 * sizeof(double));
    }
    rc = independent_rows(m, &k, err);
    if (!rc && m->m + m->nz != n) {
        char extra[80] = "";
        if (m->m < m->mall)
            snprintf(extra, sizeof extra, " (%d independent of their %d)", m->m, m->mall);
        rc = kf_fail(err, KF_EINVAL, "coords", "the joints' %d constraint rows%s leave 6 x %d "
                     "- %d = %d degrees of freedom, but %d independent coordinates are given",
                     m->m, extra, nb, m->m, n - m->m, m->nz);
    }
    if (!rc) {
        for (int i = 0; i < m->m; i++) {
            int j = row_joint(m, m->kept[i]);
            m->rs[i] = row_scale(m, m->joints[j].kind, m->kept[i] - m->jrow[j]);
        }
        for (int kk = 0; kk < m->nz; kk++)
            m->rs[m->m + kk] = kf_smech_coord_is_angle(m, kk) ? m->L : 1.0;
        /* the drawing's coordinates, then Newton from the drawing itself */
        double z0[KF_KANE_MAX_NU] = {0};
        body_rotations(m, k.q, k.R);
        for (int kk = 0; kk < m->nz && !rc; kk++) {
            srow e;
            jctx c;
            if (coord_row(m, kk, k.q, k.R, NULL, NULL, &e, &c))
                rc = report_bad_coord(m, kk, z0, err);
            z0[kk] = e.val;
        }
        memcpy(m->z0, z0, sizeof z0);
        if (!rc)
            rc = kf_closure_assemble(k.cl, z0, 0, "the drawing", err);
        if (rc == KF_EGEOM) {
            kf_error e = *err;
            rc = kf_fail(err, KF_EGEOM, "bodies", "the drawing does not assemble: %.400s",
                         e.msg);
        }
    }
    if (!rc)
        for (int b = 0; b < nb; b++) {
            memcpy(m->bodies[b].r, k.q + 7 * b, 3 * sizeof(double));
            memcpy(m->bodies[b].quat, k.q + 7 * b + 3, 4 * sizeof(double));
        }
    kf_smech_kin_free(&k);
    if (rc) {
        kf_smech_free(m);
        return rc;
    }
    *out = m;
    return KF_OK;
}

/* ================================================================ 5. the upper layers' table */

static int sp_ncoord(const void *m) { return ((const kf_smech *)m)->nz; }
static int sp_alloc(const void *m, void **work, kf_error *err)
{
    kf_smech_kin *k = kf_calloc(1, sizeof *k);
    if (!k)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a mechanism's workspace");
    int rc = kf_smech_kin_alloc(m, k, err);
    if (rc) {
        free(k);
        return rc;
    }
    *work = k;
    return KF_OK;
}

static void sp_free(void *work)
{
    kf_smech_kin_free(work);
    free(work);
}

static int sp_accelerations(const void *mech, void *work, const double *z, const double *zd,
                            const double *tau, const unsigned char *presc, double *zdd,
                            double *drive, kf_error *err)
{
    const kf_smech *m = mech;
    int rc = kf_smech_kinematics(m, z, zd, NULL, work, err);
    return rc ? rc : kf_smech_dynamics(m, work, tau, presc, zdd, drive, err);
}

static void sp_restore(void *work)
{
    kf_closure_restore(((kf_smech_kin *)work)->cl);
}

static int sp_kinematics(const void *mech, void *work, const double *z, const double *zd,
                         const double *zdd, kf_mech_state *s, kf_error *err)
{
    kf_smech_kin *k = work;
    int rc = kf_smech_kinematics(mech, z, zd, zdd, k, err);
    if (!rc && s)
        *s = (kf_mech_state){7 * (k->n / 6), k->n, k->nz, k->q, k->u, k->ud, k->A, k->c};
    return rc;
}

static int sp_applied(const void *mech, void *work, double *Q, kf_error *err)
{
    return kf_smech_applied(mech, work, Q, err);
}

static int sp_reactions(const void *mech, void *work, double *fj, double *drive, kf_error *err)
{
    return kf_smech_reactions(mech, work, fj, drive, err);
}

static int sp_njoint(const void *m) { return ((const kf_smech *)m)->nj; }

static void sp_shape(const void *mech, int *npos, int *n)
{
    const kf_smech *m = mech;
    *npos = 7 * m->nb;
    *n = m->n;
}

static int sp_axes_check(const void *mech, int naxes, const void *axes, const char *what,
                         kf_error *err)
{
    return kf_smech_axes_check(mech, naxes, axes, what, err);
}

static void sp_frame(const void *mech, const void *work, const void *axes, int i, kf_frame *f)
{
    kf_smech_frame(mech, work, (const kf_smech_axes *)axes + i, f);
}

const kf_mech_ops kf_smech_ops = {
    .ncoord = sp_ncoord, .coord_name = sp_name, .work_alloc = sp_alloc, .work_free = sp_free,
    .accelerations = sp_accelerations, .restore = sp_restore, .kinematics = sp_kinematics,
    .applied = sp_applied, .reactions = sp_reactions, .njoint = sp_njoint, .joint_values = 6,
    .shape = sp_shape,
    .axes_check = sp_axes_check, .frame = sp_frame};

int kf_smech_simulate(const kf_smech *m, const kf_mech_drive *drives, const double *z0,
                      const double *zd0, int nt, const double *t, const kf_ode_opts *opts,
                      double *states, kf_stats *stats, kf_error *err)
{
    if (!m)
        return kf_fail(err, KF_EINVAL, "", "kf_smech_simulate: NULL argument");
    return kf_mech_integrate(&kf_smech_ops, m, drives, z0, zd0, nt, t, opts, states, stats, err);
}
