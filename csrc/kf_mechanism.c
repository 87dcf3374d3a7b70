/*
 * kf_mechanism.c -- rigid mechanisms by Kane's method, and the wind pump of
 * docs/theory.md section 5 (seeds 000 and 001, Appendix B).
 *
 * Three layers, top to bottom:
 *
 *   1. Kane's projection for any mechanism that describes an instant by the
 *      Jacobian A and the quadratic-velocity term B of its mass coordinates
 *      (kf_kane_solve).  A later mechanism supplies its own A, B, masses and
 *      applied forces and reuses it unchanged.
 *   2. The wind pump: loop closure in closed form, A(q) and B(q) built from
 *      one rule for a point fixed on a moving body (attach), applied forces,
 *      and the joint forces from the Newton-Euler equations of the bodies.
 *   3. The rigid motion in time: Kane's equations as the right-hand side of
 *      the core's ODE driver (kf_ode.c), landing on every output time.
 *
 * Geometry (docs/theory.md section 5), e(phi) = (cos phi, sin phi), J = rotation by +90 deg:
 *   A = 0,  B = l1 e(alpha),  D = (x_D, e),
 *   C' = B + l2 e(theta2) = D + h e(phi),  phi = theta3 + psi.
 * C' is an intersection of the circles (B, l2) and (D, h).  Differentiating
 * the closure once,
 *   l2 omega2 J e(theta2) - h omega3 J e(phi) = xdot_D e_x - l1 omega1 J e(alpha) =: r(u),
 * and crossing with J e(phi) and J e(theta2) gives omega2 and omega3 with the
 * divisor l2 h sin(mu), mu = phi - theta2 the transmission angle: zero at a
 * dead point (lever and rocker arm aligned, which is also where the two
 * circles touch).  The second derivative has the same matrix and a
 * right-hand side quadratic in u.
 */
#include "kf_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* ================================================================ 1. Kane's projection */

/* Largest number of generalized speeds kf_kane_solve takes (small fixed
 * buffers on the stack: rigid mechanisms have few degrees of freedom). */
#define KF_KANE_MAX_NU 16

size_t kf_kane_work_size(int nr, int nu)
{
    (void)nu;
    return nr > 0 ? (size_t)nr : 1;
}

int kf_kane_solve(int nr, int nu, const double *mass, const double *A, const double *B,
                  const double *w, const double *Q, const unsigned char *prescribed,
                  double *udot, double *drive, double *work, kf_error *err)
{
    if (nu < 1 || nu > KF_KANE_MAX_NU || nr < nu)
        return kf_fail(err, KF_EINVAL, "nu", "nu = %d must be in 1..%d and <= nr = %d", nu,
                       KF_KANE_MAX_NU, nr);
    if (!mass || !A || !B || !w || !Q || !udot || !work)
        return kf_fail(err, KF_EINVAL, "", "kf_kane_solve: NULL argument");
    int nw = nu * (nu + 1) / 2;

    /* g = Q - Mrig B w: the applied forces less the velocity-dependent inertia */
    double *g = work;
    for (int r = 0; r < nr; r++) {
        double bw = 0.0;
        for (int k = 0; k < nw; k++)
            bw += B[(size_t)r * nw + k] * w[k];
        g[r] = Q[r] - mass[r] * bw;
    }
    /* f = A^T g, M = A^T Mrig A */
    double f[KF_KANE_MAX_NU], M[KF_KANE_MAX_NU * KF_KANE_MAX_NU];
    for (int i = 0; i < nu; i++) {
        double s = 0.0;
        for (int r = 0; r < nr; r++)
            s += A[(size_t)r * nu + i] * g[r];
        f[i] = s;
        for (int j = 0; j <= i; j++) {
            double m = 0.0;
            for (int r = 0; r < nr; r++)
                m += A[(size_t)r * nu + i] * mass[r] * A[(size_t)r * nu + j];
            M[i + j * nu] = M[j + i * nu] = m;
        }
    }
    /* the free coordinates: M_ff udot_f = f_f - M_fp udot_p */
    int free_idx[KF_KANE_MAX_NU], nf = 0;
    for (int i = 0; i < nu; i++)
        if (!(prescribed && prescribed[i]))
            free_idx[nf++] = i;
    double Mf[KF_KANE_MAX_NU * KF_KANE_MAX_NU], rhs[KF_KANE_MAX_NU];
    for (int a = 0; a < nf; a++) {
        int i = free_idx[a];
        rhs[a] = f[i];
        for (int j = 0; j < nu; j++)
            if (prescribed && prescribed[j])
                rhs[a] -= M[i + j * nu] * udot[j];
        for (int b = 0; b < nf; b++)
            Mf[a + b * nf] = M[i + free_idx[b] * nu];
    }
    if (nf > 0) {
        /* a few unknowns at every step of the ODE: plain loops, not LAPACK */
        int rc = kf_small_cholesky_solve(nf, Mf, nf, rhs);
        if (rc == KF_ERANGE)
            return kf_fail(err, KF_ERANGE, "mass",
                           "Kane's equations have a non-finite generalized mass or force "
                           "(values beyond the double range)");
        if (rc)
            return kf_fail(err, KF_ESING, "mass",
                           "the generalized mass A^T M A is not positive definite (masses "
                           "that cannot move with the free coordinates?)");
        for (int a = 0; a < nf; a++)
            udot[free_idx[a]] = rhs[a];
    }
    /* what the prescribed coordinates need: M udot - f along them */
    if (drive)
        for (int i = 0; i < nu; i++) {
            drive[i] = 0.0;
            if (prescribed && prescribed[i]) {
                double s = -f[i];
                for (int j = 0; j < nu; j++)
                    s += M[i + j * nu] * udot[j];
                drive[i] = s;
            }
        }
    return KF_OK;
}

/* ================================================================ 2. the wind pump */

const char *const kf_windpump_names[] = {
    "l1", "a1", "m1", "J1", "l2", "A2", "rho2", "h", "psi", "hg", "xi", "m3", "J3",
    "L",  "M3", "e",  "m_D", "k", "x_D0", "F_r", "v_F", "c_D", "g", "branch", NULL};

_Static_assert(sizeof(kf_windpump) == KF_WINDPUMP_NPARAM * sizeof(double),
               "kf_windpump must be KF_WINDPUMP_NPARAM packed doubles");

/* Parameter k of p by position (the order of kf_windpump_names). */
static double param(const kf_windpump *p, int k) { return ((const double *)p)[k]; }

int kf_windpump_check(const kf_windpump *p, kf_error *err)
{
    if (!p)
        return kf_fail(err, KF_EINVAL, "params", "wind-pump parameters are NULL");
    for (int k = 0; k < KF_WINDPUMP_NPARAM; k++)
        if (!isfinite(param(p, k)))
            return kf_fail(err, KF_EINVAL, kf_windpump_names[k], "%s = %g must be finite",
                           kf_windpump_names[k], param(p, k));
    /* lengths and the lever's section: > 0 (the lever's mass keeps A^T M A
     * positive definite, since it moves with both coordinates) */
    static const char *positive[] = {"l1", "l2", "h", "A2", "rho2", "v_F"};
    /* masses, inertias, distances, spring, friction, load, gravity: >= 0 */
    static const char *nonneg[] = {"m1", "J1", "hg", "m3", "J3", "L", "M3",
                                   "m_D", "k", "F_r", "c_D", "g"};
    for (int k = 0; k < KF_WINDPUMP_NPARAM; k++) {
        const char *name = kf_windpump_names[k];
        double v = param(p, k);
        for (size_t i = 0; i < sizeof positive / sizeof *positive; i++)
            if (!strcmp(name, positive[i]) && !(v > 0.0))
                return kf_fail(err, KF_EINVAL, name, "%s = %g must be positive", name, v);
        for (size_t i = 0; i < sizeof nonneg / sizeof *nonneg; i++)
            if (!strcmp(name, nonneg[i]) && !(v >= 0.0))
                return kf_fail(err, KF_EINVAL, name, "%s = %g must be >= 0", name, v);
    }
    if (p->branch != 1.0 && p->branch != -1.0)
        return kf_fail(err, KF_EINVAL, "branch", "branch = %g must be +1 or -1", p->branch);
    return KF_OK;
}

static double cross2(const double *a, const double *b) { return a[0] * b[1] - a[1] * b[0]; }

/* Rates of a point: rows x, y of A (2 speeds) and B (3 quadratic terms). */
typedef struct {
    double A[2][2], B[2][3];
} pt_rates;

/*
 * The one rule behind every row of A and B: a point P = O + rho e(ang) fixed
 * on a body whose angle has rate G.u and acceleration G.udot + H.w, with
 * omega^2 = W.w.  Then
 *   v_P = v_O + rho omega J e,   a_P = a_O + rho (eps J e - omega^2 e).
 */
static void attach(const pt_rates *O, const double G[2], const double H[3], const double W[3],
                   double rho, double ang, pt_rates *P)
{
    double e[2] = {cos(ang), sin(ang)}, je[2] = {-e[1], e[0]};
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++)
            P->A[i][j] = O->A[i][j] + rho * je[i] * G[j];
        for (int k = 0; k < 3; k++)
            P->B[i][k] = O->B[i][k] + rho * (je[i] * H[k] - e[i] * W[k]);
    }
}

static void put_point(kf_windpump_kin *k, int row, const pt_rates *P)
{
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++)
            k->A[(row + i) * 2 + j] = P->A[i][j];
        for (int c = 0; c < 3; c++)
            k->B[(row + i) * 3 + c] = P->B[i][c];
    }
}

static void put_angle(kf_windpump_kin *k, int row, const double G[2], const double H[3])
{
    for (int j = 0; j < 2; j++)
        k->A[row * 2 + j] = G[j];
    for (int c = 0; c < 3; c++)
        k->B[row * 3 + c] = H[c];
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

int kf_windpump_kinematics(const kf_windpump *p, const double q[2], const double u[2],
                           const double udot[2], kf_windpump_kin *out, kf_error *err)
{
    if (!p || !q || !u || !out)
        return kf_fail(err, KF_EINVAL, "", "kf_windpump_kinematics: NULL argument");
    double al = q[0], xD = q[1];
    if (!isfinite(al) || !isfinite(xD))
        return kf_fail(err, KF_EINVAL, isfinite(al) ? "x_D" : "alpha",
                       "alpha = %g, x_D = %g must be finite", al, xD);
    double ud[2] = {udot ? udot[0] : 0.0, udot ? udot[1] : 0.0};
    if (!isfinite(u[0]) || !isfinite(u[1]) || !isfinite(ud[0]) || !isfinite(ud[1]))
        return kf_fail(err, KF_EINVAL, "omega1",
                       "omega1 = %g, xdot_D = %g, eps1 = %g, xddot_D = %g must be finite", u[0],
                       u[1], ud[0], ud[1]);
    memset(out, 0, sizeof *out);
    kf_windpump_kin *k = out;
    k->q[0] = al;
    k->q[1] = xD;
    k->u[0] = u[0];
    k->u[1] = u[1];
    k->udot[0] = ud[0];
    k->udot[1] = ud[1];
    k->w[0] = u[0] * u[0];
    k->w[1] = u[0] * u[1];
    k->w[2] = u[1] * u[1];

    /* ---- positions: C' on the circles (B, l2) and (D, h) */
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
    double dh[2] = {d[0] / rho, d[1] / rho}, n[2] = {-dh[1], dh[0]};
    double along = (p->l2 * p->l2 - p->h * p->h + rho * rho) / (2.0 * rho);
    double perp2 = p->l2 * p->l2 - along * along;
    double perp = p->branch * sqrt(perp2 > 0.0 ? perp2 : 0.0);
    double Cp[2] = {Bp[0] + along * dh[0] + perp * n[0], Bp[1] + along * dh[1] + perp * n[1]};
    double th2 = atan2(Cp[1] - Bp[1], Cp[0] - Bp[0]);
    double phi = atan2(Cp[1] - Dp[1], Cp[0] - Dp[0]);
    double th3 = phi - p->psi;
    double mu = wrap_pi(phi - th2), smu = sin(mu);
    if (!(fabs(smu) >= KF_WINDPUMP_DEAD))
        return kf_fail(err, KF_EGEOM, "x_D",
                       "alpha = %.9g rad, x_D = %.9g m is a dead point: the lever BC' and the "
                       "rocker arm DC' are aligned (transmission angle %.3g deg)",
                       al, xD, mu * 180.0 / KF_PI);
    k->mu = mu;
    double pts[8] = {0.0, 0.0, Bp[0], Bp[1], Cp[0], Cp[1], Dp[0], Dp[1]};
    memcpy(k->pts, pts, sizeof pts);

    /* ---- angular rates: omega_i = G_i.u, eps_i = G_i.udot + H_i.w, omega_i^2 = W_i.w */
    double e2[2] = {cos(th2), sin(th2)}, ep[2] = {cos(phi), sin(phi)};
    double u2[2] = {-e2[1], e2[0]}, up[2] = {-ep[1], ep[0]};
    double rr[2][2] = {{p->l1 * ea[1], -p->l1 * ea[0]}, {1.0, 0.0}}; /* r(u) = sum u_j rr[j] */
    double G1[2] = {1.0, 0.0}, H0[3] = {0.0, 0.0, 0.0}, W1[3] = {1.0, 0.0, 0.0};
    double G2[2], G3[2], H2[3], H3[3], W2[3], W3[3];
    for (int j = 0; j < 2; j++) {
        G2[j] = cross2(rr[j], up) / (p->l2 * smu);
        G3[j] = cross2(rr[j], u2) / (p->h * smu);
    }
    W2[0] = G2[0] * G2[0];
    W2[1] = 2.0 * G2[0] * G2[1];
    W2[2] = G2[1] * G2[1];
    W3[0] = G3[0] * G3[0];
    W3[1] = 2.0 * G3[0] * G3[1];
    W3[2] = G3[1] * G3[1];
    for (int c = 0; c < 3; c++) {
        /* quadratic part of the acceleration closure: l1 omega1^2 e(alpha) +
         * l2 omega2^2 e(theta2) - h omega3^2 e(phi) */
        double s[2];
        for (int i = 0; i < 2; i++)
            s[i] = (c == 0 ? p->l1 * ea[i] : 0.0) + p->l2 * W2[c] * e2[i] - p->h * W3[c] * ep[i];
        H2[c] = cross2(s, up) / (p->l2 * smu);
        H3[c] = cross2(s, u2) / (p->h * smu);
    }

    /* ---- rows of A and B, point by point */
    pt_rates ground = {{{0.0, 0.0}, {0.0, 0.0}}, {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}};
    pt_rates slider = {{{0.0, 1.0}, {0.0, 0.0}}, {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}};
    pt_rates P1, PB, P2, P3, PG;
    attach(&ground, G1, H0, W1, p->a1 * p->l1, al, &P1);
    attach(&ground, G1, H0, W1, p->l1, al, &PB);
    attach(&PB, G2, H2, W2, 0.5 * p->l2, th2, &P2);
    attach(&slider, G3, H3, W3, p->hg, th3 + p->xi, &P3);
    attach(&slider, G3, H3, W3, p->L, th3, &PG);
    put_point(k, KF_WP_X1, &P1);
    put_angle(k, KF_WP_T1, G1, H0);
    put_point(k, KF_WP_X2, &P2);
    put_angle(k, KF_WP_T2, G2, H2);
    put_point(k, KF_WP_X3, &P3);
    put_angle(k, KF_WP_T3, G3, H3);
    put_point(k, KF_WP_XG, &PG);
    k->A[KF_WP_XD * 2 + 1] = 1.0;

    /* ---- positions of the mass coordinates, and their rates */
    double r[KF_WP_NR] = {
        p->a1 * p->l1 * ea[0],
        p->a1 * p->l1 * ea[1],
        al,
        Bp[0] + 0.5 * p->l2 * e2[0],
        Bp[1] + 0.5 * p->l2 * e2[1],
        th2,
        xD + p->hg * cos(th3 + p->xi),
        p->e + p->hg * sin(th3 + p->xi),
        th3,
        xD + p->L * cos(th3),
        p->e + p->L * sin(th3),
        xD};
    memcpy(k->r, r, sizeof r);
    for (int i = 0; i < KF_WP_NR; i++) {
        const double *Ai = k->A + i * 2, *Bi = k->B + i * 3;
        k->v[i] = Ai[0] * u[0] + Ai[1] * u[1];
        k->a[i] = Ai[0] * ud[0] + Ai[1] * ud[1] + Bi[0] * k->w[0] + Bi[1] * k->w[1] +
                  Bi[2] * k->w[2];
    }
    k->theta[0] = al;
    k->theta[1] = th2;
    k->theta[2] = th3;
    for (int b = 0; b < 3; b++) {
        int row = b == 0 ? KF_WP_T1 : b == 1 ? KF_WP_T2 : KF_WP_T3;
        k->omega[b] = k->v[row];
        k->eps[b] = k->a[row];
    }
    for (int i = 0; i < 2; i++) {
        k->vB[i] = PB.A[i][0] * u[0] + PB.A[i][1] * u[1];
        k->aB[i] = PB.A[i][0] * ud[0] + PB.A[i][1] * ud[1] + PB.B[i][0] * k->w[0] +
                   PB.B[i][1] * k->w[1] + PB.B[i][2] * k->w[2];
    }
    /* the lever's frame: origin B, x along B->C'; gravity enters as a_B - g */
    double c2 = e2[0], s2 = e2[1], ag[2] = {k->aB[0], k->aB[1] + p->g};
    k->lever.omega[2] = k->omega[1];
    k->lever.eps[2] = k->eps[1];
    k->lever.v[0] = c2 * k->vB[0] + s2 * k->vB[1];
    k->lever.v[1] = -s2 * k->vB[0] + c2 * k->vB[1];
    k->lever.a[0] = c2 * ag[0] + s2 * ag[1];
    k->lever.a[1] = -s2 * ag[0] + c2 * ag[1];
    /* vdot = a_L - W v_L with the true (gravity-free) a_L of B; W v = omega z x v */
    double aL[2] = {c2 * k->aB[0] + s2 * k->aB[1], -s2 * k->aB[0] + c2 * k->aB[1]};
    k->lever.vdot[0] = aL[0] + k->omega[1] * k->lever.v[1];
    k->lever.vdot[1] = aL[1] - k->omega[1] * k->lever.v[0];
    return KF_OK;
}

void kf_windpump_mass(const kf_windpump *p, double mass[KF_WP_NR])
{
    double m2 = p->rho2 * p->A2 * p->l2;
    double m[KF_WP_NR] = {p->m1, p->m1, p->J1, m2,    m2,    m2 * p->l2 * p->l2 / 12.0,
                          p->m3, p->m3, p->J3, p->M3, p->M3, p->m_D};
    memcpy(mass, m, sizeof m);
}

void kf_windpump_applied(const kf_windpump *p, const kf_windpump_kin *kin, double M_m,
                         double Q[KF_WP_NR])
{
    double mass[KF_WP_NR];
    kf_windpump_mass(p, mass);
    memset(Q, 0, KF_WP_NR * sizeof(double));
    static const int yrows[4] = {KF_WP_Y1, KF_WP_Y2, KF_WP_Y3, KF_WP_YG};
    for (int i = 0; i < 4; i++)
        Q[yrows[i]] = -mass[yrows[i]] * p->g;
    Q[KF_WP_T1] = M_m;
    double xd = kin->u[1];
    /* Coulomb friction, regularized: F_r tanh(xdot / v_F) is within F_r of the
     * sign law except for |xdot| < a few v_F, and keeps the ODE smooth */
    Q[KF_WP_XD] = -p->k * (kin->q[1] - p->x_D0) - p->F_r * tanh(xd / p->v_F) - p->c_D * xd;
}

int kf_windpump_joint_forces(const kf_windpump *p, const kf_windpump_kin *kin, double *f,
                             kf_error *err)
{
    if (!p || !kin || !f)
        return kf_fail(err, KF_EINVAL, "", "kf_windpump_joint_forces: NULL argument");
    enum { n = KF_WINDPUMP_NFORCE };
    enum { XA, YA, XB, YB, XC, YC, XD, YD, NG, MM, RD };
    double K[n * n], b[n];
    memset(K, 0, sizeof K);
#define KK(row, col) K[(row) + (col) * n]
    double mass[KF_WP_NR], Q[KF_WP_NR];
    kf_windpump_mass(p, mass);
    kf_windpump_applied(p, kin, 0.0, Q);
    const double *a = kin->a, *r = kin->r, g = p->g;
    const double *Bp = kin->pts + 2, *Cp = kin->pts + 4, *Dp = kin->pts + 6;
    /* m (a - g) for each mass, gravity g = (0, -g) */
    double f1[2] = {mass[KF_WP_X1] * a[KF_WP_X1], mass[KF_WP_X1] * (a[KF_WP_Y1] + g)};
    double f2[2] = {mass[KF_WP_X2] * a[KF_WP_X2], mass[KF_WP_X2] * (a[KF_WP_Y2] + g)};
    double f3[2] = {mass[KF_WP_X3] * a[KF_WP_X3], mass[KF_WP_X3] * (a[KF_WP_Y3] + g)};
    double fG[2] = {mass[KF_WP_XG] * a[KF_WP_XG], mass[KF_WP_XG] * (a[KF_WP_YG] + g)};
    double r1[2] = {r[KF_WP_X1], r[KF_WP_Y1]};
    double r2[2] = {r[KF_WP_X2] - Bp[0], r[KF_WP_Y2] - Bp[1]};
    double r3[2] = {r[KF_WP_X3] - Dp[0], r[KF_WP_Y3] - Dp[1]};
    double rG[2] = {r[KF_WP_XG] - Dp[0], r[KF_WP_YG] - Dp[1]};
    double cB[2] = {Cp[0] - Bp[0], Cp[1] - Bp[1]}, cD[2] = {Cp[0] - Dp[0], Cp[1] - Dp[1]};

    /* crank: F_A - F_B + m1 g = m1 a1; moments about A (fixed):
     * M_m + B x (-F_B) = J1 eps1 + r1 x m1 (a1 - g) */
    KK(0, XA) = 1.0, KK(0, XB) = -1.0, b[0] = f1[0];
    KK(1, YA) = 1.0, KK(1, YB) = -1.0, b[1] = f1[1];
    KK(2, MM) = 1.0, KK(2, XB) = Bp[1], KK(2, YB) = -Bp[0];
    b[2] = mass[KF_WP_T1] * a[KF_WP_T1] + cross2(r1, f1);
    /* lever: F_B - F_C + m2 g = m2 a2; about B: (C' - B) x (-F_C) = J2 eps2 + r2 x m2 (a2 - g) */
    KK(3, XB) = 1.0, KK(3, XC) = -1.0, b[3] = f2[0];
    KK(4, YB) = 1.0, KK(4, YC) = -1.0, b[4] = f2[1];
    KK(5, XC) = cB[1], KK(5, YC) = -cB[0];
    b[5] = mass[KF_WP_T2] * a[KF_WP_T2] + cross2(r2, f2);
    /* rocker with its weight: F_C - F_D + (m3 + M3) g = m3 a3 + M3 aG; about D:
     * (C' - D) x F_C = J3 eps3 + r3 x m3 (a3 - g) + rG x M3 (aG - g) */
    KK(6, XC) = 1.0, KK(6, XD) = -1.0, b[6] = f3[0] + fG[0];
    KK(7, YC) = 1.0, KK(7, YD) = -1.0, b[7] = f3[1] + fG[1];
    KK(8, XC) = -cD[1], KK(8, YC) = cD[0];
    b[8] = mass[KF_WP_T3] * a[KF_WP_T3] + cross2(r3, f3) + cross2(rG, fG);
    /* slider: F_D + N e_y + R e_x + Q_xD e_x - m_D g e_y = m_D xddot_D e_x */
    KK(9, XD) = 1.0, KK(9, RD) = 1.0, b[9] = mass[KF_WP_XD] * a[KF_WP_XD] - Q[KF_WP_XD];
    KK(10, YD) = 1.0, KK(10, NG) = 1.0, b[10] = mass[KF_WP_XD] * g;
#undef KK
    /* 11 unknowns at every output instant: plain loops, not LAPACK */
    int rc = kf_small_lu_solve(n, K, n, b);
    if (rc == KF_ERANGE)
        return kf_fail(err, KF_ERANGE, "x_D",
                       "the joint-force equations are not finite at alpha = %.9g rad, x_D = "
                       "%.9g m (values beyond the double range)",
                       kin->q[0], kin->q[1]);
    if (rc)
        return kf_fail(err, KF_EGEOM, "x_D",
                       "the joint forces are undetermined at alpha = %.9g rad, x_D = %.9g m "
                       "(a dead point)",
                       kin->q[0], kin->q[1]);
    memcpy(f, b, sizeof b);
    return KF_OK;
}

/* ================================================================ 3. the rigid motion in time */

/* What the right-hand side needs, fixed for one integration, and what it
 * last computed. */
typedef struct {
    const kf_windpump *p;
    const kf_windpump_drive *d;
    double t0, alpha0;
    double mass[KF_WP_NR];
    long nfev;
    double *states; /* the output rows */
    /* the last successful evaluation: its (t, y) and (eps1, xddot_D, M_m) */
    double last_t, last_y[4], last_aux[3];
    /* the last evaluation that left the assembly region, and its time */
    kf_error geom;
    double geom_t;
} wp_ode;

/*
 * y = (alpha, x_D, omega1, xdot_D): y' = f(t, y); aux = (eps1, xddot_D, M_m).
 * At constant speed the crank follows alpha0 + omega (t - t0) exactly and the
 * motor torque is what Kane's equation along omega1 asks for.
 */
static int wp_eval(wp_ode *o, double t, const double *y, double *yd, double *aux, kf_error *err)
{
    const kf_windpump *p = o->p;
    const kf_windpump_drive *d = o->d;
    double q[2], u[2], udot[2] = {0.0, 0.0}, drive[2], M_m = 0.0, work[KF_WP_NR];
    unsigned char presc[2] = {0, 0};
    o->nfev++;
    if (d->mode == KF_DRIVE_SPEED) {
        q[0] = o->alpha0 + d->omega * (t - o->t0);
        u[0] = d->omega;
        presc[0] = 1;
    } else {
        q[0] = y[0];
        u[0] = y[2];
        if (d->torque(d->params, t, q[0], u[0], &M_m))
            return kf_fail(err, KF_ECALLBACK, "torque",
                           "the torque law stopped the integration at t = %g s", t);
        if (!isfinite(M_m))
            return kf_fail(err, KF_EINVAL, "torque",
                           "the torque law returned %g at t = %g s (alpha = %g, omega1 = %g)",
                           M_m, t, q[0], u[0]);
    }
    q[1] = y[1];
    u[1] = y[3];
    kf_windpump_kin kin;
    double Q[KF_WP_NR];
    int rc = kf_windpump_kinematics(p, q, u, NULL, &kin, err);
    if (rc)
        return rc;
    kf_windpump_applied(p, &kin, M_m, Q);
    rc = kf_kane_solve(KF_WP_NR, 2, o->mass, kin.A, kin.B, kin.w, Q, presc, udot, drive, work,
                       err);
    if (rc)
        return rc;
    if (d->mode == KF_DRIVE_SPEED)
        M_m = drive[0]; /* the generalized force along omega1 is the torque on the crank */
    yd[0] = u[0];
    yd[1] = u[1];
    yd[2] = udot[0];
    yd[3] = udot[1];
    aux[0] = udot[0];
    aux[1] = udot[1];
    aux[2] = M_m;
    return KF_OK;
}

/* The driver's right-hand side.  Leaving the assembly region is recoverable:
 * it happens to trial stages of a step too long, and a shorter one may stay
 * inside; if the motion itself leaves, the driver gives up with this code. */
static int wp_rhs(double t, const double *y, double *yd, void *params, kf_error *err)
{
    wp_ode *o = params;
    double aux[3];
    int rc = wp_eval(o, t, y, yd, aux, err);
    if (rc == KF_EGEOM) {
        o->geom = *err;
        o->geom_t = t;
        return 1;
    }
    if (rc)
        return -1;
    o->last_t = t;
    memcpy(o->last_y, y, sizeof o->last_y);
    memcpy(o->last_aux, aux, sizeof aux);
    return 0;
}

/* The driver's output k: one row (alpha, x_D, omega1, xdot_D, eps1, xddot_D, M_m). */
static int wp_out(int k, double t, const double *y, void *params, kf_error *err)
{
    wp_ode *o = params;
    /* The driver lands on every output time and ends each step with f at the
     * new point (FSAL), so the last evaluation is this very point and its
     * accelerations and torque are the output's; only where the time of that
     * evaluation, t_n + (t - t_n), rounded off t does it take one more. */
    if (!(t == o->last_t && !memcmp(y, o->last_y, sizeof o->last_y))) {
        double yd[4];
        int rc = wp_rhs(t, y, yd, o, err);
        if (rc)
            return rc;
    }
    int speed = o->d->mode == KF_DRIVE_SPEED;
    double alpha = speed ? o->alpha0 + o->d->omega * (t - o->t0) : y[0];
    double omega1 = speed ? o->d->omega : y[2];
    double row[KF_WINDPUMP_NSTATE] = {alpha,           y[1],           omega1,         y[3],
                                      o->last_aux[0], o->last_aux[1], o->last_aux[2]};
    memcpy(o->states + (size_t)k * KF_WINDPUMP_NSTATE, row, sizeof row);
    return 0;
}

int kf_windpump_simulate(const kf_windpump *p, const kf_windpump_drive *drive,
                         const double y0[4], int nt, const double *t, const kf_ode_opts *opts,
                         double *states, kf_stats *stats, kf_error *err)
{
    if (!p || !drive || !y0 || !t || !opts || !states)
        return kf_fail(err, KF_EINVAL, "", "kf_windpump_simulate: NULL argument");
    int rc = kf_windpump_check(p, err);
    if (rc)
        return rc;
    if (drive->mode == KF_DRIVE_SPEED) {
        if (!isfinite(drive->omega))
            return kf_fail(err, KF_EINVAL, "rpm", "crank speed omega = %g rad/s must be finite",
                           drive->omega);
    } else if (drive->mode == KF_DRIVE_TORQUE) {
        if (!drive->torque)
            return kf_fail(err, KF_EINVAL, "torque", "torque drive without a torque law");
    } else {
        return kf_fail(err, KF_EINVAL, "drive", "unknown drive mode %d", drive->mode);
    }
    if (nt < 1)
        return kf_fail(err, KF_EINVAL, "t", "need at least one output time, got %d", nt);
    for (int i = 0; i < 4; i++)
        if (!isfinite(y0[i]))
            return kf_fail(err, KF_EINVAL, "y0", "initial state component %d = %g is not finite",
                           i, y0[i]);
    for (int i = 0; i < nt; i++)
        if (!isfinite(t[i]) || (i > 0 && !(t[i] > t[i - 1])))
            return kf_fail(err, KF_EINVAL, "t",
                           "output times must be finite and strictly increasing (t[%d] = %g)", i,
                           t[i]);
    double rtol = opts->rtol, atol = opts->atol;
    if (!(rtol >= 1e-14 && rtol <= 1e-1) || !(atol > 0.0 && atol <= 1.0))
        return kf_fail(err, KF_EINVAL, "rtol",
                       "rtol = %g must be in [1e-14, 0.1] and atol = %g in (0, 1]", rtol, atol);
    kf_ode_opts oo = *opts;
    if (oo.max_steps <= 0)
        oo.max_steps = 10000000L;

    wp_ode o = {.p = p, .d = drive, .t0 = t[0], .alpha0 = y0[0], .states = states};
    kf_windpump_mass(p, o.mass);
    double y[4] = {y0[0], y0[1], drive->mode == KF_DRIVE_SPEED ? drive->omega : y0[2], y0[3]};
    kf_ode_system sys = {4, wp_rhs, wp_out, NULL, &o, 1};
    kf_ode *ode = NULL;
    kf_stats st = {0};
    kf_error le = {0};
    rc = kf_ode_create(&ode, &sys, &oo, &le);
    if (!rc)
        rc = kf_ode_run(ode, t[0], y, nt, t, &st, &le);
    kf_ode_free(ode);
    if (rc == KF_EGEOM) {
        /* every step the driver could still take left the assembly region:
         * at t0 the initial state is outside it, later the motion leaves it */
        if (o.geom_t == t[0])
            kf_fail(&le, KF_EGEOM, o.geom.arg, "initial state: %.400s", o.geom.msg);
        else
            kf_fail(&le, KF_EGEOM, o.geom.arg,
                    "at t = %.9g s the motion leaves the assembly region: %.400s", o.geom_t,
                    o.geom.msg);
    }
    if (rc && err)
        *err = le;
    if (stats) {
        st.evaluations = o.nfev; /* with the evaluations for outputs */
        *stats = st;
    }
    return rc;
}
