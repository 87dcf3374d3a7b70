/*
 * kf_windpump.c -- the wind pump of docs/theory.md section 5 (seeds 000 and
 * 001, Appendix B) as one planar mechanism of kf_mechanism.c.
 *
 * Five bodies, each with its reference point at its mass centre:
 *   0 crank AB (angle alpha), 1 lever BC' (theta2), 2 rocker/pendulum
 *   (theta3, the pendulum arm's angle), 3 the weight G welded to the rocker,
 *   4 the slider D;
 * six joints: A (ground-crank), B (crank-lever), C' (lever-rocker), D
 * (rocker-slider), the weld rocker-G and the guide (ground-slider,
 * prismatic along x at height e, carrying the slider's spring, friction and
 * pump load as its force law); z = (alpha, x_D).
 *
 * The assembly rule is the loop closure in closed form: C' is an
 * intersection of the circles (B, l2) and (D, h), the branch parameter picks
 * one; it is exact, and its rate rule gives A and c of q' = A z', q'' = A z''
 * + c in closed form too (docs/theory.md 5.4), so the mechanism code takes
 * neither Newton's method nor a Jacobian.  The rule also keeps the wind
 * pump's dead-point criterion, |sin mu| < 1e-6 for the transmission angle mu
 * between the lever and the rocker arm DC'.
 */
#include "kf_internal.h"

#include <stdio.h>
#include <string.h>

/* The parameters, in the order of kf_windpump_names (docs/theory.md section 5.2). */
typedef struct wp_params {
    double l1, a1, m1, J1;
    double l2, A2, rho2;
    double h, psi, hg, xi, m3, J3;
    double L, M3;
    double e, m_D, k, x_D0, F_r, v_F;
    double c_D;
    double g;
    double branch;
} wp_params;

_Static_assert(sizeof(wp_params) == KF_WINDPUMP_NPARAM * sizeof(double),
               "wp_params must be KF_WINDPUMP_NPARAM packed doubles");

const char *const kf_windpump_names[] = {
    "l1", "a1", "m1", "J1", "l2", "A2", "rho2", "h", "psi", "hg", "xi", "m3", "J3",
    "L",  "M3", "e",  "m_D", "k", "x_D0", "F_r", "v_F", "c_D", "g", "branch", NULL};

static int check(const double *v, kf_error *err)
{
    for (int k = 0; k < KF_WINDPUMP_NPARAM; k++)
        if (!isfinite(v[k]))
            return kf_fail(err, KF_EINVAL, kf_windpump_names[k], "%s = %g must be finite",
                           kf_windpump_names[k], v[k]);
    /* lengths and the lever's section: > 0 (the lever's mass keeps A^T M A
     * positive definite, since it moves with both coordinates) */
    static const char *positive[] = {"l1", "l2", "h", "A2", "rho2", "v_F"};
    /* masses, inertias, distances, spring, friction, load, gravity: >= 0 */
    static const char *nonneg[] = {"m1", "J1", "hg", "m3", "J3", "L", "M3",
                                   "m_D", "k", "F_r", "c_D", "g"};
    for (int k = 0; k < KF_WINDPUMP_NPARAM; k++) {
        const char *name = kf_windpump_names[k];
        for (size_t i = 0; i < sizeof positive / sizeof *positive; i++)
            if (!strcmp(name, positive[i]) && !(v[k] > 0.0))
                return kf_fail(err, KF_EINVAL, name, "%s = %g must be positive", name, v[k]);
        for (size_t i = 0; i < sizeof nonneg / sizeof *nonneg; i++)
            if (!strcmp(name, nonneg[i]) && !(v[k] >= 0.0))
                return kf_fail(err, KF_EINVAL, name, "%s = %g must be >= 0", name, v[k]);
    }
    double br = v[KF_WINDPUMP_NPARAM - 1];
    if (br != 1.0 && br != -1.0)
        return kf_fail(err, KF_EINVAL, "branch", "branch = %g must be +1 or -1", br);
    return KF_OK;
}

static double wrap_pi(double a)
{
    a = fmod(a, 2.0 * KF_PI);
    if (a > KF_PI)
        a -= 2.0 * KF_PI;
    else if (a <= -KF_PI)
        a += 2.0 * KF_PI;
    return a;
}

/* The closed-form assembly at z = (alpha, x_D): q of the five bodies. */
static int guess(const double *z, double *q, void *params, kf_error *err)
{
    const wp_params *p = params;
    double al = z[0], xD = z[1];
    double ea[2] = {cos(al), sin(al)};
    double Bp[2] = {p->l1 * ea[0], p->l1 * ea[1]}, Dp[2] = {xD, p->e};
    double d[2] = {Dp[0] - Bp[0], Dp[1] - Bp[1]};
    double rho = hypot(d[0], d[1]);
    double lo = fabs(p->l2 - p->h), hi = p->l2 + p->h;
    if (!(rho > lo && rho < hi))
        return kf_fail(err, KF_EGEOM, "x_D",
                       "the loop cannot close at alpha = %.9g rad, x_D = %.9g m: |BD| = %.9g m "
                       "is outside (|l2 - h|, l2 + h) = (%.6g, %.6g) m",
                       al, xD, rho, lo, hi);
    double dh[2] = {d[0] / rho, d[1] / rho}, nrm[2] = {-dh[1], dh[0]};
    double along = (p->l2 * p->l2 - p->h * p->h + rho * rho) / (2.0 * rho);
    double perp2 = p->l2 * p->l2 - along * along;
    double perp = p->branch * sqrt(perp2 > 0.0 ? perp2 : 0.0);
    double Cp[2] = {Bp[0] + along * dh[0] + perp * nrm[0], Bp[1] + along * dh[1] + perp * nrm[1]};
    double th2 = atan2(Cp[1] - Bp[1], Cp[0] - Bp[0]);
    double phi = atan2(Cp[1] - Dp[1], Cp[0] - Dp[0]);
    double th3 = phi - p->psi;
    double mu = wrap_pi(phi - th2);
    if (!(fabs(sin(mu)) >= KF_WINDPUMP_DEAD))
        return kf_fail(err, KF_EGEOM, "x_D",
                       "alpha = %.9g rad, x_D = %.9g m is a dead point: the lever BC' and the "
                       "rocker arm DC' are aligned (transmission angle %.3g deg)",
                       al, xD, mu * 180.0 / KF_PI);
    double body[15] = {
        p->a1 * p->l1 * ea[0], p->a1 * p->l1 * ea[1], al,
        Bp[0] + 0.5 * p->l2 * cos(th2), Bp[1] + 0.5 * p->l2 * sin(th2), th2,
        xD + p->hg * cos(th3 + p->xi), p->e + p->hg * sin(th3 + p->xi), th3,
        xD + p->L * cos(th3), p->e + p->L * sin(th3), th3,
        xD, p->e, 0.0};
    memcpy(q, body, sizeof body);
    return KF_OK;
}

/* A point at distance r along the angle whose (cos, sin) is e, on a body turning
 * with the angle's rate om and acceleration om' = G z'' + eps, rows i, i + 1 of
 * A and c, added to the rows of its base point (already there). */
static void on_arm(double *A, double *c, int i, double r, const double *e, const double *G,
                   double om, double eps)
{
    /* d(r e)/dt = r om J e, d2/dt2 = r (om' J e - om^2 e), J e = (-e_y, e_x) */
    A[2 * i] += -r * e[1] * G[0];
    A[2 * i + 1] += -r * e[1] * G[1];
    A[2 * i + 2] += r * e[0] * G[0];
    A[2 * i + 3] += r * e[0] * G[1];
    c[i] += r * (-e[1] * eps - e[0] * om * om);
    c[i + 1] += r * (e[0] * eps - e[1] * om * om);
}

static double cross2(const double *a, const double *b) { return a[0] * b[1] - a[1] * b[0]; }

/*
 * The rate rule (kf_mech_rates_fn): the loop B + l2 e(theta2) = D + h e(phi),
 * phi = theta3 + psi, differentiated (docs/theory.md section 5.4).  With
 * r_i = d(D - B)/dz_i, s = sin(phi - theta2) (nonzero: the guess rule refuses
 * dead points) and u = J e the normals,
 *   theta2' = G2 z',  G2_i = (r_i x u_phi) / (l2 s),
 *   theta3' = G3 z',  G3_i = (r_i x u_2) / (h s),
 *   theta2'' = G2 z'' + (k x u_phi) / (l2 s),  theta3'' = G3 z'' + (k x u_2) / (h s),
 *   k = l1 alpha'^2 e(alpha) + l2 theta2'^2 e(theta2) - h theta3'^2 e(phi),
 * and every mass centre a point on an arm of these angles.
 */
static void rates(const double *z, const double *zd, const double *q, double *A, double *c,
                  void *params)
{
    (void)z;
    const wp_params *p = params;
    double al = q[2], th2 = q[5], th3 = q[8];
    double ea[2] = {cos(al), sin(al)}, e2[2] = {cos(th2), sin(th2)};
    double ep[2] = {cos(th3 + p->psi), sin(th3 + p->psi)}, e3[2] = {cos(th3), sin(th3)};
    double ex[2] = {cos(th3 + p->xi), sin(th3 + p->xi)};
    double u2[2] = {-e2[1], e2[0]}, up[2] = {-ep[1], ep[0]};
    double s = cross2(e2, ep);
    double r[2][2] = {{p->l1 * ea[1], -p->l1 * ea[0]}, {1.0, 0.0}};
    double G2[2], G3[2];
    for (int i = 0; i < 2; i++) {
        G2[i] = cross2(r[i], up) / (p->l2 * s);
        G3[i] = cross2(r[i], u2) / (p->h * s);
    }
    double w0 = zd ? zd[0] : 0.0, w1 = zd ? zd[1] : 0.0;
    double om2 = G2[0] * w0 + G2[1] * w1, om3 = G3[0] * w0 + G3[1] * w1;
    double k[2];
    for (int j = 0; j < 2; j++)
        k[j] = p->l1 * w0 * w0 * ea[j] + p->l2 * om2 * om2 * e2[j] - p->h * om3 * om3 * ep[j];
    double eps2 = cross2(k, up) / (p->l2 * s), eps3 = cross2(k, u2) / (p->h * s);
    double one[2] = {1.0, 0.0};
    memset(A, 0, 15 * 2 * sizeof(double));
    memset(c, 0, 15 * sizeof(double));
    /* crank: centre a1 l1 e(alpha), angle alpha */
    on_arm(A, c, 0, p->a1 * p->l1, ea, one, w0, 0.0);
    A[2 * 2] = 1.0;
    /* lever: centre B + l2/2 e(theta2), B = l1 e(alpha) */
    on_arm(A, c, 3, p->l1, ea, one, w0, 0.0);
    on_arm(A, c, 3, 0.5 * p->l2, e2, G2, om2, eps2);
    A[2 * 5] = G2[0], A[2 * 5 + 1] = G2[1], c[5] = eps2;
    /* rocker: centre D + hg e(theta3 + xi); the weight: D + L e(theta3); D = (x_D, e) */
    for (int b = 2; b < 4; b++) {
        int i = 3 * b;
        A[2 * i + 1] = 1.0;
        on_arm(A, c, i, b == 2 ? p->hg : p->L, b == 2 ? ex : e3, G3, om3, eps3);
        A[2 * (i + 2)] = G3[0], A[2 * (i + 2) + 1] = G3[1], c[i + 2] = eps3;
    }
    /* slider: x_D */
    A[2 * 12 + 1] = 1.0;
}

int kf_windpump_create(const double *params, kf_mech **out, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (!params)
        return kf_fail(err, KF_EINVAL, "params", "wind-pump parameters are NULL");
    int rc = check(params, err);
    if (rc)
        return rc;
    wp_params *p = kf_calloc(1, sizeof *p);
    if (!p)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the wind pump's parameters");
    memcpy(p, params, sizeof *p);

    double m2 = p->rho2 * p->A2 * p->l2;
    double mass[5] = {p->m1, m2, p->m3, p->M3, p->m_D};
    double inertia[5] = {p->J1, m2 * p->l2 * p->l2 / 12.0, p->J3, 0.0, 0.0};
    /* points in body axes, from each body's mass centre */
    double a1l1 = p->a1 * p->l1;
    double cx = p->hg * cos(p->xi), cy = p->hg * sin(p->xi); /* rocker centre from D */
    enum { CRANK, LEVER, ROCKER, WEIGHT, SLIDER };
    kf_joint joints[6] = {
        {KF_REVOLUTE, {-1, CRANK}, {0.0, 0.0}, {-a1l1, 0.0}},
        {KF_REVOLUTE, {CRANK, LEVER}, {p->l1 - a1l1, 0.0}, {-0.5 * p->l2, 0.0}},
        {KF_REVOLUTE, {LEVER, ROCKER}, {0.5 * p->l2, 0.0},
         {p->h * cos(p->psi) - cx, p->h * sin(p->psi) - cy}},
        {KF_REVOLUTE, {ROCKER, SLIDER}, {-cx, -cy}, {0.0, 0.0}},
        {KF_WELD, {ROCKER, WEIGHT}, {p->L - cx, -cy}, {0.0, 0.0}},
        {KF_PRISMATIC, {-1, SLIDER}, {0.0, p->e}, {0.0, 0.0}, {1.0, 0.0}, 0.0,
         /* spring k (x_D - x_D0), pump load c_D xdot_D, friction F_r tanh(xdot_D / v_F) */
         p->k, p->x_D0, p->c_D, p->F_r, p->v_F},
    };
    kf_coord coords[2] = {{KF_COORD_ANGLE, CRANK, "alpha"}, {KF_COORD_X, SLIDER, "x_D"}};
    /* the drawing (the guess rule places every position; the drawing describes
     * the mechanism's points): alpha = 0, x_D = x_D0 where that assembles, else
     * B level with the guide as far as the crank reaches and |BD| mid-way in its
     * range, which assembles wherever anything does */
    double q0[15] = {0}, z0[2] = {0.0, p->x_D0};
    kf_error ignore = {0};
    if (guess(z0, q0, p, &ignore)) {
        double s = p->e / p->l1;
        z0[0] = asin(s > 1.0 ? 1.0 : s < -1.0 ? -1.0 : s);
        double gap = fabs(p->e - p->l1 * sin(z0[0]));
        double lo = fmax(fabs(p->l2 - p->h), gap), hi = p->l2 + p->h, rho = 0.5 * (lo + hi);
        z0[1] = p->l1 * cos(z0[0]) + sqrt(fmax(rho * rho - gap * gap, 0.0));
        if (guess(z0, q0, p, &ignore))
            memset(q0, 0, sizeof q0); /* it assembles nowhere */
    }
    kf_mech_desc d = {.nbody = 5, .mass = mass, .inertia = inertia, .q0 = q0, .njoint = 6,
                      .joints = joints, .ncoord = 2, .coords = coords,
                      .gravity = {0.0, -p->g}, .guess = guess, .rates = rates,
                      .guess_params = p,
                      .guess_free = free};
    return kf_mech_create(out, &d, err);
}
