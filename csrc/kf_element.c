/*
 * kf_element.c -- quadrature and the element kinds.
 *
 * An element kind says how displacements and strains are interpolated
 * (N, B, G), where its points are (x) and how much each point weighs (w);
 * everything else (invariants, assembly, motion terms) is common and lives
 * in kf_body.c.  A new kind is a new table entry here.
 */
#include "kf_internal.h"

#include <string.h>

/* ---------------------------------------------------------------- quadrature */

/* Legendre polynomial P_n(z) and its derivative, by the three-term recurrence. */
static void legendre(int n, double z, double *p, double *dp)
{
    double p0 = 1.0, p1 = z;
    for (int k = 2; k <= n; k++) {
        double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    if (n == 1)
        p0 = 1.0;
    *p = p1;
    *dp = n * (z * p1 - p0) / (z * z - 1.0);
}

int kf_gauss01(int n, double *x, double *w, kf_error *err)
{
    if (n < 1 || n > KF_GAUSS_MAX)
        return kf_fail(err, KF_EINVAL, "n", "Gauss order n = %d is out of 1..%d", n,
                       KF_GAUSS_MAX);
    /* Newton's method on P_n from the usual cosine guesses; converges to
     * round-off in a few steps. */
    for (int i = 0; i < (n + 1) / 2; i++) {
        double z = cos(KF_PI * (i + 0.75) / (n + 0.5)), p, dp;
        for (int it = 0; it < 100; it++) {
            legendre(n, z, &p, &dp);
            double dz = p / dp;
            z -= dz;
            if (fabs(dz) < 1e-16)
                break;
        }
        legendre(n, z, &p, &dp);
        double wi = 2.0 / ((1.0 - z * z) * dp * dp);
        /* map [-1, 1] -> [0, 1], ascending */
        x[i] = 0.5 * (1.0 - z);
        x[n - 1 - i] = 0.5 * (1.0 + z);
        w[i] = w[n - 1 - i] = 0.5 * wi;
    }
    return KF_OK;
}

/* Points and weights of the fixed orders the line elements use, filled once
 * per call site: cheap enough to recompute, and keeps the core free of
 * global state. */
static void gauss_fixed(int n, double *x, double *w) { (void)kf_gauss01(n, x, w, NULL); }

/* ---------------------------------------------------------------- line geometry */

/* Length and direction cosines of a 2-node line element in the plane. */
static void line_geometry(const double *xe, double *len, double *c, double *s)
{
    double dx = xe[2] - xe[0], dy = xe[3] - xe[1];
    *len = hypot(dx, dy);
    *c = dx / *len;
    *s = dy / *len;
}

/* A line element of length len with the section's E, rho, A positive. */
static int length_check(double len, const kf_section *sec, int el, kf_error *err)
{
    if (!(len > 0.0) || !isfinite(len))
        return kf_fail(err, KF_EINVAL, "coords", "element %d has length %g (its two nodes "
                       "coincide or are not finite)", el, len);
    if (!(sec->E > 0.0) || !isfinite(sec->E))
        return kf_fail(err, KF_EINVAL, "E", "E = %g must be positive and finite", sec->E);
    if (!(sec->rho > 0.0) || !isfinite(sec->rho))
        return kf_fail(err, KF_EINVAL, "rho", "rho = %g must be positive and finite", sec->rho);
    if (!(sec->A > 0.0) || !isfinite(sec->A))
        return kf_fail(err, KF_EINVAL, "A", "A = %g must be positive and finite", sec->A);
    return KF_OK;
}

static int line_check(const double *xe, const kf_section *sec, int el, kf_error *err)
{
    return length_check(hypot(xe[2] - xe[0], xe[3] - xe[1]), sec, el, err);
}

static double line_mu(const kf_section *sec) { return sec->rho * sec->A; }

/* ---------------------------------------------------------------- axial bar */

/* 2 nodes x (u).  The bar lies along the frame's x axis (checked by the body),
 * so N = [[1 - xi, xi], [0, 0]]. */
#define BAR_NQ 2

static int bar_check(const double *xe, const kf_section *sec, int el, kf_error *err)
{
    int rc = line_check(xe, sec, el, err);
    if (rc)
        return rc;
    if (xe[1] != 0.0 || xe[3] != 0.0)
        return kf_fail(err, KF_EINVAL, "coords",
                       "axial bar element %d must lie on the body's x axis (node y = %g, %g)",
                       el, xe[1], xe[3]);
    return KF_OK;
}

static void bar_eval(const double *xe, int q, double *N, double *B, double *G, double *x,
                     double *w)
{
    double gx[BAR_NQ], gw[BAR_NQ];
    gauss_fixed(BAR_NQ, gx, gw);
    double xi = gx[q], len = xe[2] - xe[0], L = fabs(len);
    N[0] = 1.0 - xi; N[1] = xi;      /* row x */
    N[2] = 0.0;      N[3] = 0.0;     /* row y */
    B[0] = -1.0 / len; B[1] = 1.0 / len;
    (void)G; /* no geometric stiffness rows: the bar has no transverse DOFs */
    x[0] = xe[0] + xi * len;
    x[1] = 0.0;
    *w = gw[q] * L;
}

static void bar_dmat(const kf_section *sec, double *D) { D[0] = sec->E * sec->A; }

/* ---------------------------------------------------------------- planar beam */

/*
 * 2 nodes x (u, v, theta), Euler-Bernoulli: axial displacement linear, lateral
 * cubic Hermite, theta = dv/ds.  In element axes (a along the element, b
 * across it) the interpolation is the textbook one; T rotates the nodal
 * (u, v) pairs from the body frame to element axes and R_beta rotates the
 * interpolated displacement back, so N = R_beta N_loc T.  Four Gauss points
 * integrate N^T N (degree 6) exactly.
 */
#define BEAM_NQ 4

static int beam_check(const double *xe, const kf_section *sec, int el, kf_error *err)
{
    int rc = line_check(xe, sec, el, err);
    if (rc)
        return rc;
    if (!(sec->Izz > 0.0) || !isfinite(sec->Izz))
        return kf_fail(err, KF_EINVAL, "I", "I = %g must be positive and finite", sec->Izz);
    return KF_OK;
}

static void beam_eval(const double *xe, int q, double *N, double *B, double *G, double *x,
                      double *w)
{
    double gx[BEAM_NQ], gw[BEAM_NQ];
    gauss_fixed(BEAM_NQ, gx, gw);
    double L, c, s;
    line_geometry(xe, &L, &c, &s);
    double xi = gx[q], xi2 = xi * xi, xi3 = xi2 * xi;

    /* element-axis interpolation over local DOFs (ua1, vb1, th1, ua2, vb2, th2) */
    double Na[6] = {1.0 - xi, 0, 0, xi, 0, 0};
    double Nb[6] = {0, 1 - 3 * xi2 + 2 * xi3, L * (xi - 2 * xi2 + xi3), 0, 3 * xi2 - 2 * xi3,
                    L * (-xi2 + xi3)};
    double dNa[6] = {-1.0 / L, 0, 0, 1.0 / L, 0, 0};
    double dNb[6] = {0, (-6 * xi + 6 * xi2) / L, 1 - 4 * xi + 3 * xi2, 0, (6 * xi - 6 * xi2) / L,
                     -2 * xi + 3 * xi2};
    double ddNb[6] = {0, (-6 + 12 * xi) / (L * L), (-4 + 6 * xi) / L, 0, (6 - 12 * xi) / (L * L),
                      (-2 + 6 * xi) / L};

    /* T: local = T body, per node [[c, s, 0], [-s, c, 0], [0, 0, 1]].  For a row
     * vector r over local DOFs, (r T) over body DOFs per node is
     * (c r_a - s r_b, s r_a + c r_b, r_th). */
#define TO_BODY(r, out)                                                                        \
    for (int k = 0; k < 2; k++) {                                                              \
        double ra = r[3 * k], rb = r[3 * k + 1];                                               \
        out[3 * k] = c * ra - s * rb;                                                          \
        out[3 * k + 1] = s * ra + c * rb;                                                      \
        out[3 * k + 2] = r[3 * k + 2];                                                         \
    }
    double Na_b[6], Nb_b[6], dNa_b[6], ddNb_b[6], dNb_b[6];
    TO_BODY(Na, Na_b);
    TO_BODY(Nb, Nb_b);
    TO_BODY(dNa, dNa_b);
    TO_BODY(ddNb, ddNb_b);
    TO_BODY(dNb, dNb_b);
#undef TO_BODY
    /* displacement in body axes: (ux, uy) = R_beta (ua, vb) */
    for (int k = 0; k < 6; k++) {
        N[k] = c * Na_b[k] - s * Nb_b[k];
        N[6 + k] = s * Na_b[k] + c * Nb_b[k];
        B[k] = dNa_b[k];        /* axial strain du_a/ds */
        B[6 + k] = ddNb_b[k];   /* curvature d2v_b/ds2 */
        G[k] = dNb_b[k];        /* transverse slope dv_b/ds (geometric stiffness) */
    }
    x[0] = xe[0] + xi * (xe[2] - xe[0]);
    x[1] = xe[1] + xi * (xe[3] - xe[1]);
    *w = gw[q] * L;
}

static void beam_dmat(const kf_section *sec, double *D)
{
    D[0] = sec->E * sec->A;
    D[1] = D[2] = 0.0;
    D[3] = sec->E * sec->Izz;
}

/* One bending plane of a Timoshenko beam (docs/theory.md section 2.9) at line point xi
 * of an element of length L, over (v1, psi1, v2, psi2): the deflection Nv and its slope
 * dNv, the section rotation Np and its rate dNp.  phi = 12 E I / (kappa G A L^2) > 0
 * gives the interdependent functions, exact for a uniform beam under end loads (no
 * shear locking); phi = 0 the cubic Hermite ones with psi = v' (bit for bit). */
static void timo_plane(double xi, double L, double ph, double Nv[4], double dNv[4], double Np[4],
                       double dNp[4])
{
    double xi2 = xi * xi, xi3 = xi2 * xi, c = 1.0 / (1.0 + ph), h = ph * (xi - xi2) / 2;
    Nv[0] = c * (1 - 3 * xi2 + 2 * xi3 + ph * (1 - xi));
    Nv[1] = c * L * (xi - 2 * xi2 + xi3 + h);
    Nv[2] = c * (3 * xi2 - 2 * xi3 + ph * xi);
    Nv[3] = c * L * (xi3 - xi2 - h);
    dNv[0] = c * (-6 * xi + 6 * xi2 - ph) / L;
    dNv[1] = c * (1 - 4 * xi + 3 * xi2 + ph * (1 - 2 * xi) / 2);
    dNv[2] = c * (6 * xi - 6 * xi2 + ph) / L;
    dNv[3] = c * (3 * xi2 - 2 * xi - ph * (1 - 2 * xi) / 2);
    Np[0] = c * (6 * xi2 - 6 * xi) / L;
    Np[1] = c * (1 - 4 * xi + 3 * xi2 + ph * (1 - xi));
    Np[2] = c * (6 * xi - 6 * xi2) / L;
    Np[3] = c * (3 * xi2 - 2 * xi + ph * xi);
    dNp[0] = c * (12 * xi - 6) / (L * L);
    dNp[1] = c * (-4 + 6 * xi - ph) / L;
    dNp[2] = c * (6 - 12 * xi) / (L * L);
    dNp[3] = c * (6 * xi - 2 + ph) / L;
}

/* phi of a bending plane: 12 E I / (kappa G A L^2), 0 without shear deformation. */
static double timo_phi(const kf_section *sec, double I, double kappa, double L)
{
    double Gs = sec->E / (2.0 * (1.0 + sec->nu));
    return kappa > 0.0 ? 12.0 * sec->E * I / (kappa * Gs * sec->A * L * L) : 0.0;
}

/* ---------------------------------------------------------------- planar beam, section model
 *
 * beam2t (docs/theory.md section 2.9): beam2's DOFs (u, v, theta) with theta the
 * section's rotation psi; Timoshenko shear (kappa_y > 0: the interdependent
 * interpolation, strains (u_a', psi', gamma = v' - psi), D = diag(EA, EI, kappa G A))
 * and, with rotary inertia, the section's two points (0, +-a) across the element,
 * a^2 = I / A, weight A / 2 each (int y^2 dA = I), moving by psi e_z x (y e_b) to first
 * order and -psi^2 y e_b / 2 to second.  Four line points times two section points.
 */
#define BEAM2T_NS 2

static int beam2t_check(const double *xe, const kf_section *sec, int el, kf_error *err)
{
    int rc = beam_check(xe, sec, el, err);
    if (rc)
        return rc;
    if (!(sec->kappa_y >= 0.0) || !isfinite(sec->kappa_y))
        return kf_fail(err, KF_EINVAL, "shear_coefficient", "kappa = %g must be positive and "
                       "finite (or 0: no shear deformation)", sec->kappa_y);
    if (sec->kappa_y > 0.0 && !(sec->nu > -1.0 && sec->nu <= 0.5))
        return kf_fail(err, KF_EINVAL, "nu", "nu = %g must lie in (-1, 0.5]", sec->nu);
    if (sec->rotary != 0.0 && sec->rotary != 1.0)
        return kf_fail(err, KF_EINVAL, "rotary_inertia", "rotary = %g must be 0 or 1", sec->rotary);
    return KF_OK;
}

/* Point q of a beam2t element, in element axes over local DOFs (ua1, v1, th1, ua2, v2,
 * th2): displacement rows Na (along), Nb (across), the rotation Np, strains, slope;
 * the section offset y, direction cosines, line coordinate and weight. */
typedef struct {
    double Na[6], Nb[6], Np[6], B[3][6], G[6], y, c, s, xi, w;
} beam2t_point;

static void beam2t_at(const double *xe, const kf_section *sec, int q, beam2t_point *p)
{
    double gx[BEAM_NQ], gw[BEAM_NQ], L;
    gauss_fixed(BEAM_NQ, gx, gw);
    memset(p, 0, sizeof *p);
    line_geometry(xe, &L, &p->c, &p->s);
    int lq = q / BEAM2T_NS;
    p->xi = gx[lq];
    p->w = gw[lq] * L / BEAM2T_NS;
    p->y = (q % BEAM2T_NS ? -1.0 : 1.0) * sqrt(sec->Izz / sec->A);
    double Nv[4], dNv[4], Np[4], dNp[4];
    timo_plane(p->xi, L, timo_phi(sec, sec->Izz, sec->kappa_y, L), Nv, dNv, Np, dNp);
    for (int n = 0; n < 2; n++) {
        p->Na[3 * n] = n ? p->xi : 1.0 - p->xi;
        p->B[0][3 * n] = (n ? 1.0 : -1.0) / L;
        for (int k = 0; k < 2; k++) {
            p->Nb[3 * n + 1 + k] = Nv[2 * n + k];
            p->Np[3 * n + 1 + k] = Np[2 * n + k];
            p->B[1][3 * n + 1 + k] = dNp[2 * n + k];
            p->B[2][3 * n + 1 + k] = dNv[2 * n + k] - Np[2 * n + k];
            p->G[3 * n + 1 + k] = dNv[2 * n + k];
        }
    }
}

/* rows over local DOFs -> body DOFs: per node [[c, s, 0], [-s, c, 0], [0, 0, 1]] */
static void beam2t_to_body(double c, double s, const double *r, double *out)
{
    for (int k = 0; k < 2; k++) {
        double ra = r[3 * k], rb = r[3 * k + 1];
        out[3 * k] = c * ra - s * rb;
        out[3 * k + 1] = s * ra + c * rb;
        out[3 * k + 2] = r[3 * k + 2];
    }
}

static void beam2t_eval(const double *xe, const kf_section *sec, int q, double *N, double *B,
                        double *G, double *x, double *w)
{
    beam2t_point p;
    beam2t_at(xe, sec, q, &p);
    double rot = sec->rotary != 0.0 ? 1.0 : 0.0, Na[6], Na_b[6], Nb_b[6];
    for (int k = 0; k < 6; k++) /* the section point moves along the axis by -psi y */
        Na[k] = p.Na[k] - rot * p.y * p.Np[k];
    beam2t_to_body(p.c, p.s, Na, Na_b);
    beam2t_to_body(p.c, p.s, p.Nb, Nb_b);
    for (int k = 0; k < 6; k++) {
        N[k] = p.c * Na_b[k] - p.s * Nb_b[k];
        N[6 + k] = p.s * Na_b[k] + p.c * Nb_b[k];
    }
    for (int r = 0; r < 3; r++)
        beam2t_to_body(p.c, p.s, p.B[r], B + 6 * r);
    beam2t_to_body(p.c, p.s, p.G, G);
    /* the point: on the axis at xi, offset y across it (e_b = (-s, c)) */
    x[0] = xe[0] + p.xi * (xe[2] - xe[0]) - p.s * p.y;
    x[1] = xe[1] + p.xi * (xe[3] - xe[1]) + p.c * p.y;
    *w = p.w;
}

/* theta = psi e_z: Th's z row, the offset r = y e_b (section 2.9). */
static int beam2t_second(const double *xe, const kf_section *sec, int q, double *Th, double *r)
{
    if (sec->rotary == 0.0)
        return 0;
    beam2t_point p;
    beam2t_at(xe, sec, q, &p);
    memset(Th, 0, 2 * 6 * sizeof(double));
    beam2t_to_body(p.c, p.s, p.Np, Th + 12);
    r[0] = -p.s * p.y;
    r[1] = p.c * p.y;
    r[2] = 0.0;
    return 1;
}

static void beam2t_dmat(const kf_section *sec, double *D)
{
    memset(D, 0, 9 * sizeof(double));
    D[0] = sec->E * sec->A;
    D[4] = sec->E * sec->Izz;
    D[8] = sec->kappa_y * sec->E / (2.0 * (1.0 + sec->nu)) * sec->A;
}

/* ---------------------------------------------------------------- spatial line elements
 *
 * The bar3d and beam3d kinds (docs/theory.md section 2.8): two nodes anywhere in
 * the body frame.  Element axes: e1 along the element; e2, e3 across it (for the
 * beam fixed by the section's orientation vector ref, for the bar any pair).
 * Lam holds them as rows, so local = Lam body for a vector; nodal DOF rows
 * given over local DOFs go to body DOFs by r T with T = diag(Lam, Lam, ...).
 */

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static void cross3(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Length and axis e1 of a 2-node element in space. */
static double axis3(const double *xe, double *e1)
{
    double d[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]};
    double len = norm3(d);
    for (int k = 0; k < 3; k++)
        e1[k] = d[k] / len;
    return len;
}

/* Lam's rows e2 = e3 x e1 and e3 = e1 x h / |e1 x h| from e1 (row 0) and a helper h
 * not parallel to it. */
static void complete_axes(double *Lam, const double *h)
{
    double e3[3];
    cross3(Lam, h, e3);
    double n = norm3(e3);
    for (int k = 0; k < 3; k++)
        Lam[6 + k] = e3[k] / n;
    cross3(Lam + 6, Lam, Lam + 3);
}

/* r (over local DOFs, blocks of 3) -> r T over body DOFs, nb blocks. */
static void rows_to_body(const double *Lam, int nb, const double *r, double *out)
{
    for (int k = 0; k < nb; k++)
        for (int j = 0; j < 3; j++)
            out[3 * k + j] = r[3 * k] * Lam[j] + r[3 * k + 1] * Lam[3 + j] +
                             r[3 * k + 2] * Lam[6 + j];
}

static int line3_check(const double *xe, const kf_section *sec, int el, kf_error *err)
{
    double e1[3];
    return length_check(axis3(xe, e1), sec, el, err);
}

/* ------------------------------------------------ bar3d
 *
 * 2 nodes x (u, v, w): every component linear, N = [(1 - xi) I, xi I] (the
 * consistent mass moves across the bar as well as along it), the axial strain
 * B = e1^T [-I, I] / l, and the two transverse slopes as the geometric rows, G =
 * [e2; e3]^T [-I, I] / l, so G^T G = (I - e1 e1^T) / l^2 whatever the pair e2, e3.
 * Two Gauss points integrate N^T N, N^T x and x^2 G^T G exactly.
 */
#define BAR3_NQ 2

static void bar3d_eval(const double *xe, int q, double *N, double *B, double *G, double *x,
                       double *w)
{
    double gx[BAR3_NQ], gw[BAR3_NQ];
    gauss_fixed(BAR3_NQ, gx, gw);
    double Lam[9], xi = gx[q];
    double L = axis3(xe, Lam);
    /* helper: the coordinate axis least aligned with e1 (ties to the first), so a bar
     * on the body's x axis gets e2 = y, e3 = z */
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(Lam[i]) < fabs(Lam[k]))
            k = i;
    double h[3] = {0, 0, 0};
    h[k] = 1.0;
    complete_axes(Lam, h);
    memset(N, 0, 3 * 6 * sizeof(double));
    for (int i = 0; i < 3; i++) {
        N[i * 6 + i] = 1.0 - xi;
        N[i * 6 + 3 + i] = xi;
        B[i] = -Lam[i] / L;
        B[3 + i] = Lam[i] / L;
        for (int r = 0; r < 2; r++) {
            G[r * 6 + i] = -Lam[3 * (r + 1) + i] / L;
            G[r * 6 + 3 + i] = Lam[3 * (r + 1) + i] / L;
        }
        x[i] = xe[i] + xi * (xe[3 + i] - xe[i]);
    }
    *w = gw[q] * L;
}

/* ------------------------------------------------ beam3d
 *
 * 2 nodes x (u, v, w, theta_x, theta_y, theta_z) in body axes; in element axes
 * (a = e1, b = e2, c = e3) per node (u_a, u_b, u_c, th_a, th_b, th_c):
 *   u_a  linear (axial),          u_b  cubic Hermite in (u_b, th_c), th_c = du_b/ds,
 *   th_a linear (torsion),        u_c  cubic Hermite in (u_c, th_b), th_b = -du_c/ds.
 * Strains (u_a', u_b'', u_c'', th_a') with D = diag(EA, E Izz, E Iyy, G J);
 * geometric rows (u_b', u_c').  The mass is integrated over the section too: at
 * 4 section points (y, z) = (+-a, 0), (0, +-b), a^2 = 2 Izz / A, b^2 = 2 Iyy / A,
 * each of weight A / 4 (so int dA = A, int y^2 = Izz, int z^2 = Iyy, int y = int z
 * = int yz = 0), the point of the section displaces by the centroid's
 * displacement plus the torsional rotation, u_c + th_a e1 x (y e2 + z e3) =
 * (u_a, u_b - z th_a, u_c + y th_a) in element axes, and lies at x_c + y e2 + z e3.
 * This gives the torsional mass rho (Izz + Iyy) int N_th^T N_th and leaves the
 * centroid's line mass (no rotary inertia of bending) as PlanarBeam's.  Four
 * line points (Hermite N^T N is of degree 6) times 4 section points.
 */
#define BEAM3_NQ 4
#define BEAM3_NS 4

/* Element axes from the nodes and the section's ref (checked by beam3d_check); the length. */
static double beam3d_axes(const double *xe, const double *ref, double *Lam)
{
    double L = axis3(xe, Lam);
    complete_axes(Lam, ref);
    return L;
}

static int beam3d_check(const double *xe, const kf_section *sec, int el, kf_error *err)
{
    int rc = line3_check(xe, sec, el, err);
    if (rc)
        return rc;
    const struct { const char *name; double v; } pos[] = {
        {"Izz", sec->Izz}, {"Iyy", sec->Iyy}, {"J", sec->J}};
    for (int k = 0; k < 3; k++)
        if (!(pos[k].v > 0.0) || !isfinite(pos[k].v))
            return kf_fail(err, KF_EINVAL, pos[k].name, "%s = %g must be positive and finite",
                           pos[k].name, pos[k].v);
    if (!(sec->nu > -1.0 && sec->nu <= 0.5))
        return kf_fail(err, KF_EINVAL, "nu", "nu = %g must lie in (-1, 0.5]", sec->nu);
    const struct { const char *name; double v; } kap[] = {
        {"kappa_y", sec->kappa_y}, {"kappa_z", sec->kappa_z}};
    for (int k = 0; k < 2; k++)
        if (!(kap[k].v >= 0.0) || !isfinite(kap[k].v))
            return kf_fail(err, KF_EINVAL, "shear_coefficient", "%s = %g must be positive and finite "
                           "(or 0: no shear deformation)", kap[k].name, kap[k].v);
    if (sec->rotary != 0.0 && sec->rotary != 1.0)
        return kf_fail(err, KF_EINVAL, "rotary_inertia", "rotary = %g must be 0 or 1", sec->rotary);
    if (!isfinite(sec->ey) || !isfinite(sec->ez))
        return kf_fail(err, KF_EINVAL, "shear_centre", "shear_centre = (%g, %g) must be finite",
                       sec->ey, sec->ez);
    if (sec->rotary != 0.0 && (sec->ey != 0.0 || sec->ez != 0.0))
        return kf_fail(err, KF_EINVAL, "shear_centre", "shear_centre = (%g, %g) with rotary "
                       "inertia is not implemented (the second-order rotation about an axis off "
                       "the centroid meets the frame's acceleration too)", sec->ey, sec->ez);
    const double *r = sec->ref;
    double rn = norm3(r), e1[3], c[3];
    if (!(rn > 0.0) || !isfinite(rn))
        return kf_fail(err, KF_EINVAL, "ref", "ref = (%g, %g, %g) must be a finite nonzero "
                       "vector (the orientation of the section's local y axis)", r[0], r[1], r[2]);
    axis3(xe, e1);
    cross3(e1, r, c);
    /* sin of the angle between the axis and ref */
    if (!(norm3(c) > 1e-6 * rn))
        return kf_fail(err, KF_EINVAL, "ref", "ref = (%g, %g, %g) is parallel to element %d "
                       "(axis (%g, %g, %g)): it cannot orient the section", r[0], r[1], r[2], el,
                       e1[0], e1[1], e1[2]);
    return KF_OK;
}

/* The beam3d interpolation at line point xi of an element of length L
 * (docs/theory.md sections 2.8 and 2.9), rows over local DOFs (6 per node:
 * u_a, u_b, u_c, th_a, th_b, th_c):
 *   U[0..2]  the axis' displacement (u_a, u_b, u_c),
 *   T[0..2]  the section's rotation (th_a, th_b, th_c),
 *   B[0..5]  strains (u_a', kappa_z, kappa_y, th_a', gamma_b, gamma_c),
 *   G[0..1]  transverse slopes (u_b', u_c').
 * With phi = 12 E I / (kappa G A L^2) > 0 (Timoshenko) the shape functions are the
 * interdependent ones, exact for a uniform beam under end loads (no shear locking);
 * with phi = 0 they are the cubic Hermite ones and th_c = u_b', th_b = -u_c'. */
static void beam3d_interp(const kf_section *sec, double L, double xi, double U[3][12],
                          double T[3][12], double B[6][12], double G[2][12])
{
    double phis[2] = {timo_phi(sec, sec->Izz, sec->kappa_y, L), timo_phi(sec, sec->Iyy, sec->kappa_z, L)};
    memset(U, 0, 3 * 12 * sizeof(double));
    memset(T, 0, 3 * 12 * sizeof(double));
    memset(B, 0, 6 * 12 * sizeof(double));
    memset(G, 0, 2 * 12 * sizeof(double));
    for (int n = 0; n < 2; n++) {
        double lin = n ? xi : 1.0 - xi, dlin = (n ? 1.0 : -1.0) / L;
        U[0][6 * n] = lin;
        B[0][6 * n] = dlin;
        T[0][6 * n + 3] = lin;
        B[3][6 * n + 3] = dlin;
    }
    for (int plane = 0; plane < 2; plane++) {
        /* plane 0: (v, psi) = (u_b, th_c); plane 1: (w, psi) = (u_c, -th_b) */
        double Nv[4], dNv[4], Np[4], dNp[4];
        timo_plane(xi, L, phis[plane], Nv, dNv, Np, dNp);
        int du = plane ? 2 : 1, dt = plane ? 4 : 5;
        double sg = plane ? -1.0 : 1.0; /* th_b = -psi_w, and psi_w's DOF is -th_b */
        for (int n = 0; n < 2; n++) {
            int iu = 6 * n + du, it = 6 * n + dt;
            U[du][iu] = Nv[2 * n], U[du][it] = sg * Nv[2 * n + 1];
            G[plane][iu] = dNv[2 * n], G[plane][it] = sg * dNv[2 * n + 1];
            /* the rotation th_c = psi_v, th_b = -psi_w */
            T[dt - 3][iu] = sg * Np[2 * n], T[dt - 3][it] = Np[2 * n + 1];
            /* curvature psi' and shear strain u' - psi */
            B[1 + plane][iu] = dNp[2 * n], B[1 + plane][it] = sg * dNp[2 * n + 1];
            B[4 + plane][iu] = dNv[2 * n] - Np[2 * n];
            B[4 + plane][it] = sg * (dNv[2 * n + 1] - Np[2 * n + 1]);
        }
    }
}

/* The section point sp of the 4-point rule: its offset (y, z) in (e2, e3). */
static void beam3d_section_point(const kf_section *sec, int sp, double *y, double *z)
{
    double a = sqrt(2.0 * sec->Izz / sec->A), b = sqrt(2.0 * sec->Iyy / sec->A);
    const double ys[BEAM3_NS] = {a, -a, 0.0, 0.0}, zs[BEAM3_NS] = {0.0, 0.0, b, -b};
    *y = ys[sp];
    *z = zs[sp];
}

/* Point q of a beam3d element: its line point's interpolation (beam3d_interp),
 * element axes Lam, section offset (y, z), line coordinate xi and weight w. */
typedef struct {
    double U[3][12], T[3][12], B[6][12], G[2][12], Lam[9], y, z, xi, w;
} beam3d_point;

static void beam3d_at(const double *xe, const kf_section *sec, int q, beam3d_point *p)
{
    double gx[BEAM3_NQ], gw[BEAM3_NQ];
    gauss_fixed(BEAM3_NQ, gx, gw);
    double L = beam3d_axes(xe, sec->ref, p->Lam);
    int lq = q / BEAM3_NS;
    beam3d_section_point(sec, q % BEAM3_NS, &p->y, &p->z);
    /* offsets from the beam's axis, the shear-centre axis (section 2.9) */
    if (sec->ey != 0.0 || sec->ez != 0.0) {
        p->y -= sec->ey;
        p->z -= sec->ez;
    }
    p->xi = gx[lq];
    p->w = gw[lq] * L / BEAM3_NS;
    beam3d_interp(sec, L, p->xi, p->U, p->T, p->B, p->G);
}

static void beam3d_eval(const double *xe, const kf_section *sec, int q, double *N, double *B,
                        double *G, double *x, double *w)
{
    beam3d_point pt;
    beam3d_at(xe, sec, q, &pt);
    const double *Lam = pt.Lam;
    double y = pt.y, z = pt.z;
    double (*U)[12] = pt.U, (*T)[12] = pt.T, (*Bl)[12] = pt.B, (*Gl)[12] = pt.G;
    /* the section point's displacement in element axes, u + theta x (0, y, z): the
     * twist always, the bending rotations too with rotary inertia */
    double rot = sec->rotary != 0.0 ? 1.0 : 0.0;
    double Nl[3][12];
    for (int k = 0; k < 12; k++) {
        Nl[0][k] = U[0][k] + rot * (z * T[1][k] - y * T[2][k]);
        Nl[1][k] = U[1][k] - z * T[0][k];
        Nl[2][k] = U[2][k] + y * T[0][k];
    }
    /* over body DOFs (r T), then the displacement back to body axes (Lam^T) */
    double Nlb[3][12];
    for (int i = 0; i < 3; i++)
        rows_to_body(Lam, 4, Nl[i], Nlb[i]);
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 12; k++)
            N[j * 12 + k] = Lam[j] * Nlb[0][k] + Lam[3 + j] * Nlb[1][k] + Lam[6 + j] * Nlb[2][k];
    for (int r = 0; r < 6; r++)
        rows_to_body(Lam, 4, Bl[r], B + 12 * r);
    rows_to_body(Lam, 4, Gl[0], G);
    rows_to_body(Lam, 4, Gl[1], G + 12);
    for (int j = 0; j < 3; j++)
        x[j] = xe[j] + pt.xi * (xe[3 + j] - xe[j]) + y * Lam[3 + j] + z * Lam[6 + j];
    *w = pt.w;
}

/* The second-order rotation of the rigid section (docs/theory.md section 2.9):
 * theta = Th d in body axes and the point's offset r = y e2 + z e3. */
static int beam3d_second(const double *xe, const kf_section *sec, int q, double *Th, double *r)
{
    if (sec->rotary == 0.0)
        return 0;
    beam3d_point pt;
    beam3d_at(xe, sec, q, &pt);
    const double *Lam = pt.Lam;
    double Tb[3][12];
    for (int i = 0; i < 3; i++)
        rows_to_body(Lam, 4, pt.T[i], Tb[i]);
    for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 12; k++)
            Th[j * 12 + k] = Lam[j] * Tb[0][k] + Lam[3 + j] * Tb[1][k] + Lam[6 + j] * Tb[2][k];
        r[j] = pt.y * Lam[3 + j] + pt.z * Lam[6 + j];
    }
    return 1;
}

static void beam3d_dmat(const kf_section *sec, double *D)
{
    double Gs = sec->E / (2.0 * (1.0 + sec->nu));
    memset(D, 0, 36 * sizeof(double));
    D[0] = sec->E * sec->A;
    D[7] = sec->E * sec->Izz;
    D[14] = sec->E * sec->Iyy;
    D[21] = Gs * sec->J;
    D[28] = sec->kappa_y * Gs * sec->A; /* zero without shear deformation: B's rows 4, 5 are then zero too */
    D[35] = sec->kappa_z * Gs * sec->A;
}

/* ---------------------------------------------------------------- table */

static const kf_element_type kinds[] = {
    [KF_BAR2] = {"bar2", 2, 2, 1, 1, 0, BAR_NQ, bar_check, bar_eval, line_mu, bar_dmat},
    [KF_BEAM2] = {"beam2", 2, 2, 3, 2, 1, BEAM_NQ, beam_check, beam_eval, line_mu, beam_dmat},
    [KF_BAR3D] = {"bar3d", 3, 2, 3, 1, 2, BAR3_NQ, line3_check, bar3d_eval, line_mu, bar_dmat},
    [KF_BEAM3D] = {"beam3d", 3, 2, 6, 6, 2, BEAM3_NQ * BEAM3_NS, beam3d_check, NULL, line_mu,
                   beam3d_dmat, beam3d_eval, NULL, beam3d_second},
    [KF_BEAM2T] = {"beam2t", 2, 2, 3, 3, 1, BEAM_NQ * BEAM2T_NS, beam2t_check, NULL, line_mu,
                   beam2t_dmat, beam2t_eval, NULL, beam2t_second},
};

const kf_element_type *kf_element_get(int kind)
{
    if (kind >= KF_TRI3 && kind <= KF_CONTINUUM_LAST) /* plane and solid: kf_continuum.c */
        return kf_continuum_get(kind);
    if (kind < 0 || kind >= (int)(sizeof kinds / sizeof kinds[0]) || !kinds[kind].name)
        return NULL; /* outside the table, or a number not in use */
    return &kinds[kind];
}

int kf_element_info(int kind, int *dim, int *nnode, int *ndofn, kf_error *err)
{
    const kf_element_type *el = kf_element_get(kind);
    if (!el)
        return kf_fail(err, KF_EINVAL, "kind", "unknown element kind %d", kind);
    if (dim)
        *dim = el->dim;
    if (nnode)
        *nnode = el->nnode;
    if (ndofn)
        *ndofn = el->ndofn;
    return KF_OK;
}
