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

static int line_check(const double *xe, const kf_section *sec, int el, kf_error *err)
{
    double len = hypot(xe[2] - xe[0], xe[3] - xe[1]);
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

/* ---------------------------------------------------------------- table */

static const kf_element_type kinds[] = {
    [KF_BAR2] = {"bar2", 2, 2, 1, 1, 0, BAR_NQ, bar_check, bar_eval, line_mu, bar_dmat},
    [KF_BEAM2] = {"beam2", 2, 2, 3, 2, 1, BEAM_NQ, beam_check, beam_eval, line_mu, beam_dmat},
};

const kf_element_type *kf_element_get(int kind)
{
    if (kind >= KF_TRI3 && kind <= KF_HEX27) /* plane and solid: kf_continuum.c */
        return kf_continuum_get(kind);
    if (kind < 0 || kind >= (int)(sizeof kinds / sizeof kinds[0]))
        return NULL;
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
