/*
 * kf_ffrf.c -- a flexible body in a floating frame of reference, in space
 * (docs/theory.md section 1.6): its equations in the speeds (v, omega, d')
 * from the inertia invariants, and its motion, free or with the frame
 * prescribed, by the core's generalized-alpha stepper (on the rotation group)
 * or Dormand-Prince.
 *
 * A material point is at r = r_c + R rho, rho = xbar + N d, xbar = x - x_c;
 * with omega in body axes its acceleration in body axes is
 *
 *     R^T r'' = a_cL + eps x rho + omega x (omega x rho) + 2 omega x N d' + N d''.
 *
 * Kane's partial velocities along (v, omega, d') are I, -R [rho]x and R N, so
 * the generalized inertia forces need, beside the invariants S_ij, s_ij, Mo_i
 * of the body (taken about x_c: sbar_ij = s_ij - x_cj Mo_i), only the vectors
 * z_ij = sbar_ij + S_ij d of the state: with them
 *
 *     int rho_i rho_j = Ic_ij + sbar_ji.d + z_ij.d       (J = tr I - that)
 *     int rho_i (N d')_j = z_ji.d'  (B_ij)               (the relative angular momentum's terms)
 *     int [rho]x N = Hb, row k = sum eps_kij z_ji        (h_k + G_k d)
 *     int N^T (WW) rho = sum (WW)_ij z_ij                (centrifugal: q_om + K_om d)
 *
 * and the rows are (translation in body axes here, rotated by R for output)
 *
 *     m a_cL + eps x S_d + Mo^T d'' = m g_L - omega x (omega x S_d) - 2 omega x S_d'
 *     S_d x a_cL + J eps + Hb d''    = S_d x g_L - omega x J omega - 2 (tr B omega - B^T omega)
 *     Mo a_cL + Hb^T eps + M d''     = Mo g_L - sum (WW)_ij z_ij - 2 sum omega_k G_k d'
 *                                      - K d - (alpha M + beta K) d' - K_G d
 *
 * S_d = Mo^T d.  Nine products S_ij d, three G_k d' and two for K and M per
 * evaluation, on the body's band or dense storage: no quadrature at run time.
 */
#include "kf_internal.h"

#include <string.h>

#define NR KF_FFRF_NR
/* free motion needs the rigid speeds' eliminated mass above this (scaled) */
#define KF_FFRF_MARGIN 1e-10
/* K_G's load vector: a_O - g_L (3) and E + W W (9), body axes */
#define NL 12

struct kf_ffrf {
    kf_body *b;      /* the body on its elastic coordinates (kf_body_reduce), owned */
    int n, *map;
    double m, xc[3], Ic[9], J0[9], margin;
    double alpha, beta;
    /* K_G: coefficients c = Dc l + Df (f_first, f_last) for the load vector l (the
     * coefficients are affine in the loads, docs/theory.md section 2.11) */
    int geometric, nkg;
    double Dc[KF_MAX_KG][NL], Df[KF_MAX_KG][2], c[KF_MAX_KG];
    kf_mat G[3];     /* G_k = sum_ij eps_kij S_ji, skew */
    kf_mat KGs;      /* sum_c c_c KG_c, for the iteration matrix */
    double *sb;      /* sbar_ij (9 n) */
    /* the products of the last state (products()) */
    double om[3], eps[3], Sd[3], Sdd[3], J[9], B[9], Mrr[36], fr[6];
    double *z, *Hb, *Gdd, *fe, *KGd, *tmp;
    /* of the last free residual: a_cL - g_L, d' and d'', and for the iteration matrix
     * S_ij d' (9 n) and G_k d'' (3 n) */
    double y[3], R[9];
    const double *cur_ddd;
    double *cur_dd, *Sdd9, *Gddd; /* cur_dd: a copy of the state's d' */
    int have_state;                /* kf_ffrf_rows was called: kf_ffrf_tangent may follow */
    /* the iteration matrix: its elastic block built and factored in place (LU), and
     * for free motion its border: Jer (n x 6, column-major), Jre (6 x n, row-major),
     * Jrr (6 x 6, column-major), Y = Jee^-1 Jer and the Schur complement's LU */
    kf_mat LU;
    int *ipiv, sp[NR], bordered;
    double *Jer, *Jre, *Y, Jrr[NR * NR], Sch[NR * NR];
    double *buf;
};

void kf_ffrf_free(kf_ffrf *w)
{
    if (!w)
        return;
    kf_body_free(w->b);
    for (int k = 0; k < 3; k++)
        kf_mat_free(&w->G[k]);
    kf_mat_free(&w->KGs);
    kf_mat_free(&w->LU);
    free(w->map);
    free(w->ipiv);
    free(w->buf);
    free(w);
}

int kf_ffrf_nelastic(const kf_ffrf *w) { return w->n; }
const kf_body *kf_ffrf_body(const kf_ffrf *w) { return w->b; }
const int *kf_ffrf_map(const kf_ffrf *w) { return w->map; }
const kf_mat *kf_ffrf_mass(const kf_ffrf *w) { return kf_body_mass(w->b); }
double kf_ffrf_rigid_margin(const kf_ffrf *w) { return w->margin; }

void kf_ffrf_mass_properties(const kf_ffrf *w, double *m, double xc[3], double J0[9])
{
    *m = w->m;
    memcpy(xc, w->xc, sizeof w->xc);
    memcpy(J0, w->J0, sizeof w->J0);
}

/* ---------------------------------------------------------------- small vectors */

static void cross(const double *a, const double *b, double *c)
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
    c[0] = x, c[1] = y;
}

/* [a]x, row-major */
static void skew(const double *a, double *S)
{
    S[0] = 0.0, S[1] = -a[2], S[2] = a[1];
    S[3] = a[2], S[4] = 0.0, S[5] = -a[0];
    S[6] = -a[1], S[7] = a[0], S[8] = 0.0;
}

/* y = R x (T = 0) or R^T x (T = 1), R row-major 3 x 3 */
static void rot(const double *R, int T, const double *x, double *y)
{
    double o[3];
    for (int i = 0; i < 3; i++)
        o[i] = T ? R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2]
                 : R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
    memcpy(y, o, sizeof o);
}

/* q = q (x) exp(theta / 2) (a body-axes rotation vector theta), then normalized */
static void quat_step(double *q, const double *th)
{
    double a = sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2]);
    double c = cos(0.5 * a), s = a > 0.0 ? sin(0.5 * a) / a : 0.5;
    double p[4] = {c, s * th[0], s * th[1], s * th[2]}, r[4];
    r[0] = q[0] * p[0] - q[1] * p[1] - q[2] * p[2] - q[3] * p[3];
    r[1] = q[0] * p[1] + q[1] * p[0] + q[2] * p[3] - q[3] * p[2];
    r[2] = q[0] * p[2] - q[1] * p[3] + q[2] * p[0] + q[3] * p[1];
    r[3] = q[0] * p[3] + q[1] * p[2] - q[2] * p[1] + q[3] * p[0];
    double nq = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++)
        q[k] = r[k] / nq;
}

/* E + W W of a frame (row-major) and the load vector l of K_G */
static void loads_of(const kf_ffrf *w, const double *om, const double *ep, const double *aLg,
                     double *l)
{
    kf_frame f = {{om[0], om[1], om[2]}, {ep[0], ep[1], ep[2]}, {0}, {0}, {0}};
    double E[9], WW[9];
    kf_frame_operators(3, &f, NULL, E, WW);
    for (int k = 0; k < 9; k++)
        l[3 + k] = E[k] + WW[k];
    /* the origin x = 0 from the reference point x_c: a_O = a_c - (E + W W) x_c */
    for (int i = 0; i < 3; i++)
        l[i] = aLg[i] - (l[3 + 3 * i] * w->xc[0] + l[4 + 3 * i] * w->xc[1] +
                         l[5 + 3 * i] * w->xc[2]);
}

/* ---------------------------------------------------------------- create */

static int setup_geometric(kf_ffrf *w, int ff, int fl, kf_error *err)
{
    kf_body *b = w->b;
    w->nkg = kf_body_nkg(b);
    if (!w->nkg)
        return kf_fail(err, KF_EINVAL, "geometric", "the body has no K_G basis: a straight line "
                       "body, a prestress basis (kf_body_set_prestress) or a given body's KG");
    int rc = kf_mat_alloc_like(&w->KGs, kf_body_mass(b), err);
    if (rc)
        return rc;
    if (kf_body_prestressed(b)) {
        /* c = (a, E + W W) itself, then a line body's end loads (f_first, f_last); a given
         * body's coordinate load cases (kf_body_nload) have no coefficient here: a free
         * body has no loads on its coordinates (a mechanism's joints give them) */
        int ends = b->given ? 0 : 2;
        for (int k = 0; k < w->nkg; k++) {
            if (k < NL)
                w->Dc[k][k] = 1.0;
            else if (k < NL + ends)
                w->Df[k][k - NL] = 1.0;
        }
        return KF_OK;
    }
    /* a straight line body: N(x) from a_x and (W W)_xx (docs/theory.md section 2.5),
     * all that kf_body_axial_force reads of a frame; affine in them and in the end
     * loads, so four calls give the columns.  A frame through both ends takes the
     * joints' forces as its end loads: the first end's rule (the planar links',
     * section 5.11) */
    if (ff && fl)
        ff = fl = 0;
    double c[3];
    kf_frame f = {{0}, {0}, {0}, {1.0, 0.0, 0.0}, {0}};
    if ((rc = kf_body_axial_force(b, &f, 0.0, 0.0, ff, fl, c, err)))
        return rc;
    for (int k = 0; k < 3; k++)
        w->Dc[k][0] = c[k];
    f = (kf_frame){{0.0, 0.0, 1.0}, {0}, {0}, {0}, {0}}; /* (W W)_xx = -1 */
    if ((rc = kf_body_axial_force(b, &f, 0.0, 0.0, ff, fl, c, err)))
        return rc;
    for (int k = 0; k < 3; k++)
        w->Dc[k][3] = -c[k];
    f = (kf_frame){{0}, {0}, {0}, {0}, {0}};
    for (int e = 0; e < 2; e++) {
        if ((rc = kf_body_axial_force(b, &f, e == 0, e == 1, ff, fl, c, err)))
            return rc;
        for (int k = 0; k < 3; k++)
            w->Df[k][e] = c[k];
    }
    return KF_OK;
}

/* Hb, row k = sum_ij eps_kij z_ji (3 n), from the nine vectors z (or sbar) */
static void coupling(int n, const double *z, double *Hb)
{
    static const int a[3][2] = {{7, 5}, {2, 6}, {3, 1}}; /* (z_zy, z_yz), (z_xz, z_zx), (z_yx, z_xy) */
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < n; i++)
            Hb[(size_t)k * n + i] = z[(size_t)a[k][0] * n + i] - z[(size_t)a[k][1] * n + i];
}

/* The mass properties of a given body: m > 0, x_c and Ic finite, Ic symmetric. */
static int given_mass(kf_ffrf *w, const double *mp, kf_error *err)
{
    if (!mp)
        return kf_fail(err, KF_EINVAL, "mass", "a body of given invariants needs its mass "
                       "properties (m, x_c, the second moments about x_c) from its full body");
    if (!kf_vec_finite(13, mp) || !(mp[0] > 0.0))
        return kf_fail(err, KF_EINVAL, "mass", "the mass properties must be finite with m > 0 "
                       "(m = %g)", mp[0]);
    double big = 0.0;
    for (int k = 0; k < 9; k++)
        big = fmax(big, fabs(mp[4 + k]));
    for (int i = 0; i < 3; i++) {
        if (mp[4 + 4 * i] < 0.0)
            return kf_fail(err, KF_EINVAL, "mass", "the second moment int xbar_%d^2 dm = %g "
                           "must be >= 0", i, mp[4 + 4 * i]);
        for (int j = 0; j < 3; j++)
            if (fabs(mp[4 + 3 * i + j] - mp[4 + 3 * j + i]) > 1e-10 * big)
                return kf_fail(err, KF_EINVAL, "mass", "the second moments are not symmetric: "
                               "(%d, %d) = %.17g, (%d, %d) = %.17g", i, j, mp[4 + 3 * i + j], j,
                               i, mp[4 + 3 * j + i]);
    }
    w->m = mp[0];
    memcpy(w->xc, mp + 1, sizeof w->xc);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            w->Ic[3 * i + j] = 0.5 * (mp[4 + 3 * i + j] + mp[4 + 3 * j + i]);
    return KF_OK;
}

/* The smallest eigenvalue of M_rr - M_re M^-1 M_er at d = 0, scaled by the mass and
 * the largest moment of inertia: zero where a rigid motion lies among the elastic
 * coordinates (the reference conditions do not hold it) or the body has no inertia
 * about some axis. */
static int rigid_margin(kf_ffrf *w, kf_error *err)
{
    int n = w->n, rc;
    double *X = w->Jer, *Y = w->Y; /* n x 6: the columns Mo_i, h_k; M^-1 of them */
    for (int i = 0; i < 3; i++)
        memcpy(X + (size_t)i * n, kf_body_Mo(w->b, i), (size_t)n * sizeof(double));
    coupling(n, w->sb, X + 3 * (size_t)n);
    memcpy(Y, X, 6 * (size_t)n * sizeof(double));
    kf_mat_copy(&w->LU, kf_body_mass(w->b));
    if ((rc = kf_mat_lu(&w->LU, w->ipiv, err)) || (rc = kf_mat_lu_solve(&w->LU, w->ipiv, NR, Y, n, err)))
        return rc;
    double jmax = fmax(w->J0[0], fmax(w->J0[4], w->J0[8]));
    double Z[NR * NR], s[NR], ev[NR], work[26 * NR];
    int isuppz[2 * NR], iwork[10 * NR];
    for (int a = 0; a < NR; a++)
        s[a] = 1.0 / sqrt(a < 3 ? w->m : jmax > 0.0 ? jmax : 1.0);
    for (int a = 0; a < NR; a++)
        for (int c = 0; c < NR; c++) {
            double v = a < 3 ? (a == c ? w->m : 0.0) : c < 3 ? 0.0 : w->J0[3 * (a - 3) + c - 3];
            v -= kf_dot(n, X + (size_t)a * n, Y + (size_t)c * n);
            Z[a + NR * c] = s[a] * v * s[c];
        }
    for (int a = 0; a < NR; a++) /* symmetric to round-off; dsyevr reads the lower part */
        for (int c = a + 1; c < NR; c++)
            Z[a + NR * c] = Z[c + NR * a] = 0.5 * (Z[a + NR * c] + Z[c + NR * a]);
    if ((rc = kf_la_syevr(NR, Z, NR, 1, 1, ev, NULL, 1, isuppz, work, 26 * NR, iwork, 10 * NR,
                          err)))
        return rc;
    w->margin = jmax > 0.0 ? fmax(ev[0], 0.0) : 0.0;
    return KF_OK;
}

int kf_ffrf_create(kf_ffrf **out, const kf_ffrf_desc *desc, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (!desc || !desc->body)
        return kf_fail(err, KF_EINVAL, "body", "a floating body needs a body");
    const kf_body *b = desc->body;
    if (kf_body_dim(b) != 3)
        return kf_fail(err, KF_EINVAL, "body", "a floating body in space needs a body of dimension "
                       "3, got %d (a planar body moves with the planar mechanisms)", kf_body_dim(b));
    if (kf_body_has_second(b))
        return kf_fail(err, KF_EINVAL, "body", "a beam whose sections turn to second order "
                       "(rotary inertia) is not implemented in a floating frame: its kinetic "
                       "energy needs invariants beyond S_ij (use rotary_inertia=False)");
    if (kf_body_pattern(b))
        return kf_fail(err, KF_EINVAL, "body", "a body in sparse (CSR) storage: make it with dense "
                       "or band storage, or reduce it (a reduced body)");
    if (!(desc->rayleigh[0] >= 0.0 && desc->rayleigh[1] >= 0.0 && isfinite(desc->rayleigh[0]) &&
          isfinite(desc->rayleigh[1])))
        return kf_fail(err, KF_EINVAL, "rayleigh", "rayleigh = (%g, %g) must be finite and >= 0",
                       desc->rayleigh[0], desc->rayleigh[1]);
    if (desc->geometric != 0 && desc->geometric != 1)
        return kf_fail(err, KF_EINVAL, "geometric", "geometric = %d must be 0 or 1",
                       desc->geometric);
    kf_ffrf *w = kf_calloc(1, sizeof *w);
    if (!w)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a floating body");
    int ndof = kf_body_ndof(b), rc = KF_OK;
    w->alpha = desc->rayleigh[0];
    w->beta = desc->rayleigh[1];
    w->geometric = desc->geometric;
    w->map = kf_calloc((size_t)ndof, sizeof(int));
    if (!w->map) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a floating body of %d DOFs", ndof);
        goto fail;
    }
    for (int i = 0; i < ndof; i++)
        if (!desc->fixed || !desc->fixed[i])
            w->map[w->n++] = i;
    if (w->n == 0) {
        rc = kf_fail(err, KF_EINVAL, "fixed", "the reference conditions hold all %d DOFs: no "
                     "elastic coordinate is left (a rigid body)", ndof);
        goto fail;
    }
    if (b->given)
        rc = given_mass(w, desc->mass, err);
    else if (desc->mass)
        rc = kf_fail(err, KF_EINVAL, "mass", "a body of elements has its own mass properties "
                     "(kf_body_rigid): give none");
    else
        rc = kf_body_rigid(b, &w->m, w->xc, NULL, w->Ic, err);
    if (!rc)
        rc = kf_body_reduce(b, w->n, w->map, 0, &w->b, err);
    if (rc)
        goto fail;
    int n = w->n, nkg = desc->geometric ? kf_body_nkg(b) : 0;
    size_t nn = (size_t)n;
    w->buf = kf_calloc(9 * nn + 9 * nn + 3 * nn + 3 * nn + nn + (size_t)nkg * nn + nn + 18 * nn +
                           13 * nn, sizeof(double));
    w->ipiv = kf_calloc(nn, sizeof(int));
    if (!w->buf || !w->ipiv) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a floating body of %d coordinates", n);
        goto fail;
    }
    double *p = w->buf;
    w->sb = p, p += 9 * nn;
    w->z = p, p += 9 * nn;
    w->Hb = p, p += 3 * nn;
    w->Gdd = p, p += 3 * nn;
    w->fe = p, p += nn;
    w->KGd = p, p += (size_t)nkg * nn;
    w->tmp = p, p += nn;
    w->Jer = p, p += 6 * nn;
    w->Jre = p, p += 6 * nn;
    w->Sdd9 = p, p += 9 * nn;
    w->Gddd = p, p += 3 * nn;
    w->cur_dd = p, p += nn;
    w->Y = p;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double *s = kf_body_s(w->b, i, j), *mo = kf_body_Mo(w->b, i);
            for (int r = 0; r < n; r++)
                w->sb[(size_t)(3 * i + j) * nn + r] = s[r] - w->xc[j] * mo[r];
        }
    double tr = w->Ic[0] + w->Ic[4] + w->Ic[8];
    for (int k = 0; k < 9; k++)
        w->J0[k] = (k % 4 == 0 ? tr : 0.0) - w->Ic[k];
    const kf_mat *M = kf_body_mass(w->b);
    /* G_k = S_ji - S_ij for (k, i, j) cyclic, exactly skew (S_ji = S_ij^T bitwise) */
    static const int gij[3][2] = {{1, 2}, {2, 0}, {0, 1}};
    for (int k = 0; k < 3 && !rc; k++) {
        rc = kf_mat_alloc_like(&w->G[k], M, err);
        if (!rc)
            kf_mat_axpy2(&w->G[k], 1.0, kf_body_S(w->b, gij[k][1], gij[k][0]), -1.0,
                         kf_body_S(w->b, gij[k][0], gij[k][1]));
    }
    if (!rc)
        rc = kf_mat_alloc_like(&w->LU, M, err);
    if (!rc && desc->geometric) {
        /* the axial fixity at the ends of a line body (its u at the first and last node) */
        int ff = desc->fixed && desc->fixed[0];
        int fl = desc->fixed && desc->fixed[(size_t)(b->nnode - 1) * b->ndofn];
        rc = setup_geometric(w, ff, fl, err);
    }
    if (!rc)
        rc = rigid_margin(w, err);
    if (rc)
        goto fail;
    *out = w;
    return KF_OK;
fail:
    kf_ffrf_free(w);
    return rc;
}

/* ---------------------------------------------------------------- the equations at a state */

/*
 * Everything of a state but gravity, K_G and the accelerations (see the top of the
 * file): z_ij, Hb, G_k d', S_d, S_d', J, B, the rigid mass block and velocity
 * terms in body axes (Mrr, fr) and the elastic forces without K_G (fe).
 */
static void products(kf_ffrf *w, const double *om, const double *d, const double *dd)
{
    int n = w->n;
    const kf_body *b = w->b;
    for (int k = 0; k < 9; k++) {
        double *zk = w->z + (size_t)k * n;
        memcpy(zk, w->sb + (size_t)k * n, (size_t)n * sizeof(double));
        kf_mat_gemv(kf_body_S(b, k / 3, k % 3), 1.0, d, 1.0, zk);
    }
    coupling(n, w->z, w->Hb);
    for (int k = 0; k < 3; k++)
        kf_mat_gemv(&w->G[k], 1.0, dd, 0.0, w->Gdd + (size_t)k * n);
    for (int i = 0; i < 3; i++) {
        w->Sd[i] = kf_dot(n, kf_body_Mo(b, i), d);
        w->Sdd[i] = kf_dot(n, kf_body_Mo(b, i), dd);
        w->om[i] = om[i];
    }
    /* int rho_i rho_j = Ic_ij + sbar_ji.d + z_ij.d (symmetric: i <= j, mirrored) */
    double P[9];
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++)
            P[3 * i + j] = P[3 * j + i] = w->Ic[3 * i + j] +
                                          kf_dot(n, w->sb + (size_t)(3 * j + i) * n, d) +
                                          kf_dot(n, w->z + (size_t)(3 * i + j) * n, d);
    double tr = P[0] + P[4] + P[8], trB = 0.0;
    for (int k = 0; k < 9; k++) {
        w->J[k] = (k % 4 == 0 ? tr : 0.0) - P[k];
        w->B[k] = kf_dot(n, w->z + (size_t)(3 * (k % 3) + k / 3) * n, dd); /* B_ij = z_ji.d' */
    }
    trB = w->B[0] + w->B[4] + w->B[8];
    /* the rigid mass block [m I, -[S_d]x; [S_d]x, J] (body axes, row-major) */
    double Sx[9];
    skew(w->Sd, Sx);
    memset(w->Mrr, 0, sizeof w->Mrr);
    for (int i = 0; i < 3; i++) {
        w->Mrr[6 * i + i] = w->m;
        for (int j = 0; j < 3; j++) {
            w->Mrr[6 * i + 3 + j] = -Sx[3 * i + j];
            w->Mrr[6 * (3 + i) + j] = Sx[3 * i + j];
            w->Mrr[6 * (3 + i) + 3 + j] = w->J[3 * i + j];
        }
    }
    /* rigid velocity terms: -(omega x (omega x S_d) + 2 omega x S_d'),
     * -(omega x J omega) - 2 (tr B omega - B^T omega) */
    double a[3], c[3], Jw[3];
    cross(om, w->Sd, a);
    cross(om, a, c);
    cross(om, w->Sdd, a);
    for (int i = 0; i < 3; i++) {
        w->fr[i] = -(c[i] + 2.0 * a[i]);
        Jw[i] = w->J[3 * i] * om[0] + w->J[3 * i + 1] * om[1] + w->J[3 * i + 2] * om[2];
    }
    cross(om, Jw, c);
    for (int j = 0; j < 3; j++) {
        double BTw = w->B[j] * om[0] + w->B[3 + j] * om[1] + w->B[6 + j] * om[2];
        w->fr[3 + j] = -c[j] - 2.0 * (trB * om[j] - BTw);
    }
    /* elastic: -sum (W W)_ij z_ij - 2 sum omega_k G_k d' - K (d + beta d') - alpha M d' */
    kf_frame f = {{om[0], om[1], om[2]}, {0}, {0}, {0}, {0}};
    double WW[9];
    kf_frame_operators(3, &f, NULL, NULL, WW);
    double *fe = w->fe, *t = w->tmp;
    for (int i = 0; i < n; i++)
        t[i] = d[i] + w->beta * dd[i];
    kf_mat_gemv(kf_body_stiffness(b), -1.0, t, 0.0, fe);
    if (w->alpha != 0.0)
        kf_mat_gemv(kf_body_mass(b), -w->alpha, dd, 1.0, fe);
    for (int k = 0; k < 9; k++)
        if (WW[k] != 0.0) {
            const double *zk = w->z + (size_t)k * n;
            for (int i = 0; i < n; i++)
                fe[i] -= WW[k] * zk[i];
        }
    for (int k = 0; k < 3; k++)
        if (om[k] != 0.0) {
            const double *g = w->Gdd + (size_t)k * n;
            for (int i = 0; i < n; i++)
                fe[i] -= 2.0 * om[k] * g[i];
        }
}

/* Gravity g_L (body axes) into fr and fe. */
static void add_gravity(kf_ffrf *w, const double *gL)
{
    double c[3];
    cross(w->Sd, gL, c);
    for (int i = 0; i < 3; i++) {
        w->fr[i] += w->m * gL[i];
        w->fr[3 + i] += c[i];
        if (gL[i] != 0.0) {
            const double *mo = kf_body_Mo(w->b, i);
            for (int r = 0; r < w->n; r++)
                w->fe[r] += gL[i] * mo[r];
        }
    }
}

/* K_G's coefficients for the loads l and the end loads, and KG_c d of the state's d
 * (for the iteration matrix's columns); out -= K_G d.  Nothing without K_G. */
static int add_geometric(kf_ffrf *w, const double *l, double f_first, double f_last,
                         const double *d, double *out, kf_error *err)
{
    int n = w->n;
    if (!w->geometric)
        return KF_OK;
    for (int c = 0; c < w->nkg; c++) {
        double v = w->Df[c][0] * f_first + w->Df[c][1] * f_last;
        for (int k = 0; k < NL; k++)
            v += w->Dc[c][k] * l[k];
        if (!isfinite(v))
            return kf_fail(err, KF_ERANGE, "omega", "K_G's coefficient %d overflows (%g)", c, v);
        w->c[c] = v;
    }
    for (int c = 0; c < w->nkg; c++) {
        double *kd = w->KGd + (size_t)c * n;
        const kf_mat *KG = &w->b->KG[c];
        if (KG->a)
            kf_mat_gemv(KG, 1.0, d, 0.0, kd);
        else /* a bar's lateral cases: no matrix, K_G = 0 */
            memset(kd, 0, (size_t)n * sizeof(double));
        if (w->c[c] != 0.0)
            for (int i = 0; i < n; i++)
                out[i] -= w->c[c] * kd[i];
    }
    return KF_OK;
}

static int finite_or_range(const kf_ffrf *w, kf_error *err)
{
    if (kf_vec_finite(36, w->Mrr) && kf_vec_finite(6, w->fr) && kf_vec_finite((size_t)w->n, w->fe))
        return KF_OK;
    return kf_fail(err, KF_ERANGE, "omega", "the floating body's equations overflow at omega = "
                   "(%g, %g, %g)", w->om[0], w->om[1], w->om[2]);
}

/*
 * The state of the free body (products with gravity and K_G at the accelerations
 * acc = (a_c global, eps)): everything in body axes.  aLg: a_cL - g_L.
 */
static int free_state(kf_ffrf *w, const double *R, const double *om, const double *d,
                      const double *dd, const double *g, const double *acc, double f_first,
                      double f_last, kf_error *err)
{
    double gL[3], aLg[3] = {0.0, 0.0, 0.0}, eps[3] = {0.0, 0.0, 0.0}, l[NL];
    rot(R, 1, g, gL);
    products(w, om, d, dd);
    add_gravity(w, gL);
    if (acc) {
        rot(R, 1, acc, aLg);
        memcpy(eps, acc + 3, sizeof eps);
    }
    for (int i = 0; i < 3; i++)
        aLg[i] -= gL[i];
    memcpy(w->eps, eps, sizeof eps);
    memcpy(w->y, aLg, sizeof aLg);
    memcpy(w->R, R, sizeof w->R);
    memcpy(w->cur_dd, dd, (size_t)w->n * sizeof(double));
    loads_of(w, om, eps, aLg, l);
    int rc = add_geometric(w, l, f_first, f_last, d, w->fe, err);
    return rc ? rc : finite_or_range(w, err);
}

/* The free body's residual M(d) a - f at the accelerations (a_c global, eps, d''), in
 * the order (d, translation global, rotation body), after free_state. */
static void free_residual(kf_ffrf *w, const double *R, const double *ac, const double *ep,
                          const double *ddd, double *res)
{
    int n = w->n;
    double aL[3], t[3], r[3], c[3];
    rot(R, 1, ac, aL);
    kf_mat_gemv(kf_body_mass(w->b), 1.0, ddd, 0.0, res);
    for (int k = 0; k < 3; k++) {
        const double *mo = kf_body_Mo(w->b, k), *hb = w->Hb + (size_t)k * n;
        for (int i = 0; i < n; i++)
            res[i] += aL[k] * mo[i] + ep[k] * hb[i];
    }
    for (int i = 0; i < n; i++)
        res[i] -= w->fe[i];
    cross(ep, w->Sd, t);
    cross(w->Sd, aL, r);
    for (int k = 0; k < 3; k++) {
        t[k] += w->m * aL[k] + kf_dot(n, kf_body_Mo(w->b, k), ddd) - w->fr[k];
        r[k] += w->J[3 * k] * ep[0] + w->J[3 * k + 1] * ep[1] + w->J[3 * k + 2] * ep[2] +
                kf_dot(n, w->Hb + (size_t)k * n, ddd) - w->fr[3 + k];
    }
    rot(R, 0, t, c);
    memcpy(res + n, c, sizeof c);
    memcpy(res + n + 3, r, sizeof r);
    w->cur_ddd = ddd; /* for the iteration matrix */
}

/* The iteration matrix's elastic block cm M + cv (C + alpha M + beta K) + cd (K + K_G
 * + K_om + K_eps) at the state's omega and eps, into E (conforming with M). */
static int elastic_block(kf_ffrf *w, double cm, double cv, double cd, kf_mat *E, kf_error *err)
{
    const kf_body *b = w->b;
    kf_frame f = {{w->om[0], w->om[1], w->om[2]}, {w->eps[0], w->eps[1], w->eps[2]}, {0}, {0}, {0}};
    double W[9], Ee[9], WW[9], c[9];
    kf_frame_operators(3, &f, W, Ee, WW);
    for (int k = 0; k < 9; k++)
        c[k] = 2.0 * cv * W[k] + cd * (WW[k] + Ee[k]);
    kf_body_combine(b, c, 0.0, E);
    kf_mat_axpy(E, cm + cv * w->alpha, kf_body_mass(b));
    kf_mat_axpy(E, cv * w->beta + cd, kf_body_stiffness(b));
    if (w->geometric && cd != 0.0) {
        int rc = kf_body_geometric(b, w->c, 0.0, &w->KGs, err);
        if (rc)
            return rc;
        kf_mat_axpy(E, cd, &w->KGs);
    }
    return KF_OK;
}

/* dc_c / d x for K_G's load vector's derivative dl / d x (NL entries) */
static double kg_rate(const kf_ffrf *w, int c, const double *dl)
{
    double v = 0.0;
    for (int k = 0; k < NL; k++)
        v += w->Dc[c][k] * dl[k];
    return v;
}

/* out += s sum_c (dc_c / d x) KG_c d */
static void kg_column(const kf_ffrf *w, const double *dl, double s, double *out)
{
    for (int c = 0; w->geometric && c < w->nkg; c++) {
        double r = s * kg_rate(w, c, dl);
        const double *kd = w->KGd + (size_t)c * w->n;
        if (r != 0.0)
            for (int i = 0; i < w->n; i++)
                out[i] += r * kd[i];
    }
}

/*
 * cd dR/dp of the free body beyond the elastic block: the orientation's (theta, the
 * step's rotation vector, right-trivialized: R exp(theta) ~ R (I + [theta]x)), through
 * g_L and a_cL (y = a_cL - g_L) and the turning of the translation rows, and the rigid
 * rows' dependence on d (S_d, J(d), Hb(d), B(d)); at the iterate of the last residual.
 */
static void position_terms(kf_ffrf *w, const double *R, double cd)
{
    int n = w->n;
    const double *om = w->om, *ep = w->eps, *y = w->y;
    double Yx[9], Sx[9];
    skew(y, Yx);
    skew(w->Sd, Sx);
    /* elastic rows over theta_k: Mo [y]x and K_G's load a_O - g_L */
    for (int k = 0; k < 3; k++) {
        double *col = w->Jer + (size_t)(3 + k) * n, dl[NL] = {0};
        for (int i = 0; i < 3; i++) {
            const double *mo = kf_body_Mo(w->b, i);
            double c = cd * Yx[3 * i + k];
            if (c != 0.0)
                for (int r = 0; r < n; r++)
                    col[r] += c * mo[r];
            dl[i] = Yx[3 * i + k];
        }
        kg_column(w, dl, cd, col);
    }
    /* rigid rows over theta: rotation [S_d]x [y]x, translation R m [y]x (the turning of
     * the translation rows' own residual, -R [t]x, vanishes at the solution and is left
     * out: at a first iterate far from it, it spoils the matrix kept for later steps) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double sy = 0.0, tt = 0.0;
            for (int k = 0; k < 3; k++) {
                sy += Sx[3 * i + k] * Yx[3 * k + j];
                tt += R[3 * i + k] * w->m * Yx[3 * k + j];
            }
            w->Jrr[3 + i + NR * (3 + j)] += cd * sy;
            w->Jrr[i + NR * (3 + j)] += cd * tt;
        }
    /* rigid rows over d: the products S_ij d' and G_k d'' of the iterate */
    double *ztr = w->Y, *u = w->Y + n; /* scratch: factor() fills Y later */
    for (int k = 0; k < 9; k++)
        kf_mat_gemv(kf_body_S(w->b, k / 3, k % 3), 1.0, w->cur_dd, 0.0, w->Sdd9 + (size_t)k * n);
    for (int k = 0; k < 3; k++)
        kf_mat_gemv(&w->G[k], 1.0, w->cur_ddd, 0.0, w->Gddd + (size_t)k * n);
    for (int r = 0; r < n; r++)
        ztr[r] = w->z[r] + w->z[4 * (size_t)n + r] + w->z[8 * (size_t)n + r];
    /* u_d = sum_e omega_e dJ_de/dd, dJ_de/dd = 2 delta_de sum_k z_kk - (z_de + z_ed) */
    for (int dI = 0; dI < 3; dI++)
        for (int r = 0; r < n; r++) {
            double v = 2.0 * om[dI] * ztr[r];
            for (int e = 0; e < 3; e++)
                v -= om[e] * (w->z[(size_t)(3 * dI + e) * n + r] + w->z[(size_t)(3 * e + dI) * n + r]);
            u[(size_t)dI * n + r] = v;
        }
    kf_frame f = {{om[0], om[1], om[2]}, {ep[0], ep[1], ep[2]}, {0}, {0}, {0}};
    double E[9], WW[9], T[9];
    kf_frame_operators(3, &f, NULL, E, WW);
    for (int a = 0; a < 3; a++) /* translation rows, global: R (E + W W) Mo */
        for (int j = 0; j < 3; j++) {
            T[3 * a + j] = 0.0;
            for (int i = 0; i < 3; i++)
                T[3 * a + j] += R[3 * a + i] * (E[3 * i + j] + WW[3 * i + j]);
        }
    static const int nx[3][2] = {{1, 2}, {2, 0}, {0, 1}}; /* (a x b)_k = a_i b_j - a_j b_i */
    for (int a = 0; a < 3; a++) {
        double *tr = w->Jre + (size_t)a * n, *rr = w->Jre + (size_t)(3 + a) * n;
        int i1 = nx[a][0], i2 = nx[a][1];
        for (int r = 0; r < n; r++) {
            double mo[3], vt = 0.0, vr;
            for (int b = 0; b < 3; b++)
                mo[b] = kf_body_Mo(w->b, b)[r];
            for (int j = 0; j < 3; j++)
                vt += T[3 * a + j] * mo[j];
            /* S_d x y, J(d) eps, omega x J(d) omega, Hb(d) d'', 2 (tr B omega - B^T omega) */
            vr = -(Yx[3 * a] * mo[0] + Yx[3 * a + 1] * mo[1] + Yx[3 * a + 2] * mo[2]);
            vr += 2.0 * ep[a] * ztr[r];
            double trS = 0.0;
            for (int b = 0; b < 3; b++) {
                vr -= ep[b] * (w->z[(size_t)(3 * a + b) * n + r] + w->z[(size_t)(3 * b + a) * n + r]);
                trS += w->Sdd9[(size_t)(4 * b) * n + r];
                vr -= 2.0 * om[b] * w->Sdd9[(size_t)(3 * b + a) * n + r];
            }
            vr += 2.0 * om[a] * trS;
            vr += om[i1] * u[(size_t)i2 * n + r] - om[i2] * u[(size_t)i1 * n + r];
            vr -= w->Gddd[(size_t)a * n + r];
            tr[r] += cd * vt;
            rr[r] += cd * vr;
        }
    }
}

/*
 * The free body's iteration matrix cm dR/da + cv dR/dv + cd dR/dp at the last
 * free_state: the elastic block (into LU) and the border of the rigid unknowns
 * (a_c global, eps): the mass matrix, the velocity terms' tangent (gyroscopic,
 * Coriolis, centrifugal), the elastic forces' tangent, and K_G's dependence on the
 * accelerations and omega.  Left out: the rigid rows' dependence on d and every
 * row's on the orientation (of order d and of gravity's turning).
 */
static int free_matrix(kf_ffrf *w, const double *R, double cm, double cv, double cd,
                       kf_error *err)
{
    int n = w->n, rc = elastic_block(w, cm, cv, cd, &w->LU, err);
    if (rc)
        return rc;
    w->bordered = 1;
    const double *om = w->om, *xc = w->xc;
    double Wx[9];
    skew(om, Wx);
    /* Jer: columns a_c,j (global) and eps_k / omega_k */
    for (int j = 0; j < 3; j++) {
        double *col = w->Jer + (size_t)j * n, dl[NL] = {0};
        memset(col, 0, (size_t)n * sizeof(double));
        for (int i = 0; i < 3; i++) {
            const double *mo = kf_body_Mo(w->b, i);
            for (int r = 0; r < n; r++)
                col[r] += cm * R[3 * j + i] * mo[r];
            dl[i] = R[3 * j + i]; /* l_i = (R^T a_c)_i + ... */
        }
        kg_column(w, dl, cm, col);
    }
    for (int k = 0; k < 3; k++) {
        double *col = w->Jer + (size_t)(3 + k) * n, ek[3] = {0}, exc[3], dl[NL], Ek[9];
        ek[k] = 1.0;
        /* cm: Hb_k and K_G through a_O = a_c - E x_c and E */
        cross(ek, xc, exc);
        skew(ek, Ek);
        for (int i = 0; i < 3; i++)
            dl[i] = -exc[i];
        memcpy(dl + 3, Ek, sizeof Ek);
        const double *hb = w->Hb + (size_t)k * n, *gd = w->Gdd + (size_t)k * n;
        for (int r = 0; r < n; r++)
            col[r] = cm * hb[r] + 2.0 * cv * gd[r];
        kg_column(w, dl, cm, col);
        /* cv: the centrifugal term's d/d omega_k: sum_j omega_j (z_kj + z_jk) - 2 omega_k
         * sum_i z_ii, and K_G's through W W */
        for (int j = 0; j < 3; j++) {
            const double *a = w->z + (size_t)(3 * k + j) * n, *b = w->z + (size_t)(3 * j + k) * n;
            double s = cv * om[j];
            if (s != 0.0)
                for (int r = 0; r < n; r++)
                    col[r] += s * (a[r] + b[r]);
            const double *zjj = w->z + (size_t)(4 * j) * n;
            if (om[k] != 0.0)
                for (int r = 0; r < n; r++)
                    col[r] -= 2.0 * cv * om[k] * zjj[r];
        }
        double Dk[9], Dx[3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Dk[3 * i + j] = (i == k ? om[j] : 0.0) + (j == k ? om[i] : 0.0) -
                                (i == j ? 2.0 * om[k] : 0.0);
        for (int i = 0; i < 3; i++) {
            Dx[i] = Dk[3 * i] * xc[0] + Dk[3 * i + 1] * xc[1] + Dk[3 * i + 2] * xc[2];
            dl[i] = -Dx[i];
        }
        memcpy(dl + 3, Dk, sizeof Dk);
        kg_column(w, dl, cv, col);
    }
    /* Jre: the rigid rows over d'': translation (global) cm Mo + 2 cv [omega]x Mo (rotated),
     * rotation cm Hb_j + 2 cv (omega_j sum_i z_ii - sum_i omega_i z_ji) */
    for (int j = 0; j < 3; j++) {
        double *row = w->Jre + (size_t)j * n, cf[3];
        for (int l = 0; l < 3; l++) { /* row j = sum_i R_ji (cm Mo_i + 2 cv sum_l W_il Mo_l) */
            cf[l] = cm * R[3 * j + l];
            for (int i = 0; i < 3; i++)
                cf[l] += 2.0 * cv * R[3 * j + i] * Wx[3 * i + l];
        }
        memset(row, 0, (size_t)n * sizeof(double));
        for (int l = 0; l < 3; l++) {
            const double *mo = kf_body_Mo(w->b, l);
            if (cf[l] != 0.0)
                for (int r = 0; r < n; r++)
                    row[r] += cf[l] * mo[r];
        }
        double *rr = w->Jre + (size_t)(3 + j) * n;
        const double *hb = w->Hb + (size_t)j * n;
        for (int r = 0; r < n; r++)
            rr[r] = cm * hb[r];
        for (int i = 0; i < 3; i++) {
            double t = -2.0 * cv * om[i];
            const double *zii = w->z + (size_t)(4 * i) * n, *zji = w->z + (size_t)(3 * j + i) * n;
            if (om[j] != 0.0)
                for (int r = 0; r < n; r++)
                    rr[r] += 2.0 * cv * om[j] * zii[r];
            if (t != 0.0)
                for (int r = 0; r < n; r++)
                    rr[r] += t * zji[r];
        }
    }
    /* Jrr (column-major): rows (translation global, rotation), columns (a_c global, eps) */
    double Sx[9], Sdx[9], Jw[3], Jwx[9], tl[9], rl[9];
    skew(w->Sd, Sx);
    skew(w->Sdd, Sdx);
    for (int i = 0; i < 3; i++)
        Jw[i] = w->J[3 * i] * om[0] + w->J[3 * i + 1] * om[1] + w->J[3 * i + 2] * om[2];
    skew(Jw, Jwx);
    double wS = om[0] * w->Sd[0] + om[1] * w->Sd[1] + om[2] * w->Sd[2];
    double trB = w->B[0] + w->B[4] + w->B[8];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            /* translation over eps (body): cm (-[S_d]x) + cv d/d omega of the velocity terms */
            tl[3 * i + j] = -cm * Sx[3 * i + j] +
                            cv * (om[i] * w->Sd[j] + (i == j ? wS : 0.0) - 2.0 * w->Sd[i] * om[j] -
                                  2.0 * Sdx[3 * i + j]);
            double wJ = 0.0;
            for (int k = 0; k < 3; k++)
                wJ += Wx[3 * i + k] * w->J[3 * k + j];
            rl[3 * i + j] = cm * w->J[3 * i + j] +
                            cv * (wJ - Jwx[3 * i + j] + 2.0 * ((i == j ? trB : 0.0) - w->B[3 * j + i]));
        }
    memset(w->Jrr, 0, sizeof w->Jrr);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double rt = 0.0, tr = 0.0;
            for (int k = 0; k < 3; k++) {
                tr += R[3 * i + k] * tl[3 * k + j];  /* R tl */
                rt += cm * Sx[3 * i + k] * R[3 * j + k]; /* [S_d]x R^T */
            }
            w->Jrr[i + NR * j] = i == j ? cm * w->m : 0.0;
            w->Jrr[i + NR * (3 + j)] = tr;
            w->Jrr[3 + i + NR * j] = rt;
            w->Jrr[3 + i + NR * (3 + j)] = rl[3 * i + j];
        }
    if (cd != 0.0)
        position_terms(w, R, cd);
    return KF_OK;
}

/* Factor the iteration matrix built in LU (and its border). */
static int factor(kf_ffrf *w, kf_error *err)
{
    int n = w->n, rc = kf_mat_lu(&w->LU, w->ipiv, err);
    if (rc || !w->bordered)
        return rc;
    memcpy(w->Y, w->Jer, NR * (size_t)n * sizeof(double));
    if ((rc = kf_mat_lu_solve(&w->LU, w->ipiv, NR, w->Y, n, err)))
        return rc;
    for (int a = 0; a < NR; a++)
        for (int c = 0; c < NR; c++)
            w->Sch[a + NR * c] = w->Jrr[a + NR * c] - kf_dot(n, w->Jre + (size_t)a * n,
                                                             w->Y + (size_t)c * n);
    if (kf_small_lu_factor(NR, w->Sch, NR, w->sp))
        return kf_fail(err, KF_ESING, "reference", "the floating body's rigid equations are "
                       "singular (the Schur complement of its elastic block)");
    return KF_OK;
}

/* x := A^-1 x with the factors (x: n, then the 6 rigid unknowns if bordered). */
static int solve(kf_ffrf *w, double *x, kf_error *err)
{
    int n = w->n, rc = kf_mat_lu_solve(&w->LU, w->ipiv, 1, x, n, err);
    if (rc || !w->bordered)
        return rc;
    double r[NR];
    for (int a = 0; a < NR; a++)
        r[a] = x[n + a] - kf_dot(n, w->Jre + (size_t)a * n, x);
    if (kf_small_lu_solve(NR, w->Sch, NR, w->sp, 1, r, NR))
        return kf_fail(err, KF_ERANGE, "reference", "the rigid accelerations are not finite");
    for (int c = 0; c < NR; c++)
        if (r[c] != 0.0)
            for (int i = 0; i < n; i++)
                x[i] -= w->Y[i + (size_t)c * n] * r[c];
    memcpy(x + n, r, sizeof r);
    return KF_OK;
}

static int need_regular(const kf_ffrf *w, kf_error *err)
{
    if (w->margin >= KF_FFRF_MARGIN)
        return KF_OK;
    return kf_fail(err, KF_ESING, "reference", "the mass matrix in (v, omega, d') is singular "
                   "(rigid margin %.3g): the reference conditions leave a rigid motion to the "
                   "elastic coordinates, or the body has no inertia about some axis (a straight "
                   "bar about its own)", w->margin);
}

/* The free body's accelerations (a_c, eps, d'') into x (n + 6: d'' first): the residual
 * is affine in them (K_G's coefficients too), so one solve with its exact matrix. */
static int free_accel(kf_ffrf *w, const double *R, const double *om, const double *d,
                      const double *dd, const double *g, double *x, kf_error *err)
{
    int n = w->n, rc = free_state(w, R, om, d, dd, g, NULL, 0.0, 0.0, err);
    if (rc)
        return rc;
    const double zero[3] = {0.0, 0.0, 0.0};
    memset(w->tmp, 0, (size_t)n * sizeof(double));
    free_residual(w, R, zero, zero, w->tmp, x);
    for (int i = 0; i < n + NR; i++)
        x[i] = -x[i];
    if ((rc = free_matrix(w, R, 1.0, 0.0, 0.0, err)) || (rc = factor(w, err)))
        return rc;
    if ((rc = solve(w, x, err)))
        return rc;
    return kf_vec_finite((size_t)n + NR, x) ? KF_OK
           : kf_fail(err, KF_ERANGE, "omega", "the accelerations overflow");
}

static int check_state(const kf_ffrf *w, const kf_ffrf_state *s, const double *g, kf_error *err)
{
    if (!s || !s->d || !s->dd || !g)
        return kf_fail(err, KF_EINVAL, "state", "a state (with d and d') and gravity are needed");
    if (!kf_vec_finite(9, s->R) || !kf_vec_finite(3, s->v) || !kf_vec_finite(3, s->omega) ||
        !kf_vec_finite(3, g) || !kf_vec_finite((size_t)w->n, s->d) ||
        !kf_vec_finite((size_t)w->n, s->dd))
        return kf_fail(err, KF_EINVAL, "state", "the state and gravity must be finite");
    double e = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = -(i == j);
            for (int k = 0; k < 3; k++)
                v += s->R[3 * k + i] * s->R[3 * k + j];
            e = fmax(e, fabs(v));
        }
    double det = s->R[0] * (s->R[4] * s->R[8] - s->R[5] * s->R[7]) -
                 s->R[1] * (s->R[3] * s->R[8] - s->R[5] * s->R[6]) +
                 s->R[2] * (s->R[3] * s->R[7] - s->R[4] * s->R[6]);
    if (e > 1e-9 || det < 0.0)
        return kf_fail(err, KF_EINVAL, "R", "R is not a rotation (|R^T R - I| = %.3g, det %.6g)",
                       e, det);
    return KF_OK;
}

/* The rigid rows of the mass matrix at the last free_state, in global translation axes:
 * Mrr (6 x 6) and Mre (6 x n), row-major with leading dimensions ldr, lde. */
static void rigid_rows(const kf_ffrf *w, double *Mrr, size_t ldr, double *Mre, size_t lde)
{
    const double *R = w->R;
    int n = w->n;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double tw = 0.0;
            for (int k = 0; k < 3; k++)
                tw += R[3 * i + k] * w->Mrr[6 * k + 3 + j];
            Mrr[i * ldr + j] = i == j ? w->m : 0.0;
            Mrr[i * ldr + 3 + j] = tw;
            Mrr[(3 + j) * ldr + i] = tw;
            Mrr[(3 + i) * ldr + 3 + j] = w->J[3 * i + j];
        }
    for (int i = 0; i < 3; i++) {
        double *t = Mre + i * lde, *r = Mre + (3 + i) * lde;
        for (int c = 0; c < n; c++)
            t[c] = R[3 * i] * kf_body_Mo(w->b, 0)[c] + R[3 * i + 1] * kf_body_Mo(w->b, 1)[c] +
                   R[3 * i + 2] * kf_body_Mo(w->b, 2)[c];
        memcpy(r, w->Hb + (size_t)i * n, (size_t)n * sizeof(double));
    }
}

int kf_ffrf_rows(kf_ffrf *w, const kf_ffrf_state *s, const double g[3], const double *acc,
                 double f_first, double f_last, double *Mrr, double *Mre, double *f, kf_error *err)
{
    int rc = check_state(w, s, g, err), n = w->n;
    if (rc)
        return rc;
    if ((acc && !kf_vec_finite(6, acc)) || !isfinite(f_first) || !isfinite(f_last))
        return kf_fail(err, KF_EINVAL, "acc", "the accelerations and end loads must be finite");
    w->have_state = 0;
    if ((rc = free_state(w, s->R, s->omega, s->d, s->dd, g, acc, f_first, f_last, err)))
        return rc;
    w->have_state = 1;
    if (f) {
        rot(s->R, 0, w->fr, f);
        memcpy(f + 3, w->fr + 3, 3 * sizeof(double));
        memcpy(f + NR, w->fe, (size_t)n * sizeof(double));
    }
    if (Mrr && Mre)
        rigid_rows(w, Mrr, NR, Mre, (size_t)n);
    return KF_OK;
}

int kf_ffrf_equations(kf_ffrf *w, const kf_ffrf_state *s, const double g[3], const double *acc,
                      double f_first, double f_last, double *M, double *f, kf_error *err)
{
    int n = w->n, rc = kf_ffrf_rows(w, s, g, acc, f_first, f_last, NULL, NULL, f, err);
    size_t N = (size_t)n + NR;
    if (rc || !M)
        return rc;
    /* rows (v, omega, d'): the rigid rows, their transpose, the constant elastic block */
    rigid_rows(w, M, N, M + NR, N);
    const kf_mat *Mee = kf_body_mass(w->b);
    for (int r = 0; r < n; r++) {
        for (int i = 0; i < NR; i++)
            M[(NR + r) * N + i] = M[i * N + NR + r];
        for (int c = 0; c < n; c++)
            M[(NR + r) * N + NR + c] = kf_mat_get(Mee, r, c);
    }
    return KF_OK;
}

int kf_ffrf_tangent(kf_ffrf *w, const double *ddd, double cm, double cv, double cd, kf_mat *Jee,
                    double *Jer, double *Jre, double *Jrr, kf_error *err)
{
    if (!w->have_state)
        return kf_fail(err, KF_EINVAL, "state", "kf_ffrf_tangent needs the state of a kf_ffrf_rows "
                       "call before it");
    int border = Jer || Jre || Jrr;
    if (!Jee || (border && (!ddd || !Jer || !Jre || !Jrr)))
        return kf_fail(err, KF_EINVAL, "ddd", "kf_ffrf_tangent: NULL argument");
    if (!kf_mat_conform(Jee, kf_body_mass(w->b)))
        return kf_fail(err, KF_EINVAL, "Jee", "Jee does not conform with the elastic mass matrix");
    if (!isfinite(cm) || !isfinite(cv) || !isfinite(cd) ||
        (border && !kf_vec_finite((size_t)w->n, ddd)))
        return kf_fail(err, KF_EINVAL, "ddd", "the coefficients and d'' must be finite");
    if (!border) /* the elastic block alone (a mechanism whose rigid rows are projected) */
        return elastic_block(w, cm, cv, cd, Jee, err);
    int n = w->n;
    w->cur_ddd = ddd;
    int rc = free_matrix(w, w->R, cm, cv, cd, err);
    if (rc)
        return rc;
    kf_mat_copy(Jee, &w->LU);
    memcpy(Jer, w->Jer, NR * (size_t)n * sizeof(double));
    memcpy(Jre, w->Jre, NR * (size_t)n * sizeof(double));
    for (int a = 0; a < NR; a++) /* row-major, as the rows */
        for (int c = 0; c < NR; c++)
            Jrr[a * NR + c] = w->Jrr[a + NR * c];
    return KF_OK;
}

int kf_ffrf_accelerations(kf_ffrf *w, const kf_ffrf_state *s, const double g[3], double *acc,
                          double *ddd, kf_error *err)
{
    w->have_state = 0; /* the workspace moves to this call's state */
    int rc = check_state(w, s, g, err), n = w->n;
    if (!rc)
        rc = need_regular(w, err);
    if (rc)
        return rc;
    double *x = kf_calloc((size_t)n + NR, sizeof(double));
    if (!x)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate %d accelerations", n + NR);
    rc = free_accel(w, s->R, s->omega, s->d, s->dd, g, x, err);
    if (!rc) {
        memcpy(acc, x + n, NR * sizeof(double));
        memcpy(ddd, x, (size_t)n * sizeof(double));
    }
    free(x);
    return rc;
}

/* ---------------------------------------------------------------- prescribed frame motion */

/* The state under a prescribed frame: products, K_G, and aLg = a_c - g_L (body axes). */
static int prescribed_state(kf_ffrf *w, const kf_frame *F, const double *d, const double *dd,
                            double *aLg, kf_error *err)
{
    int rc = kf_frame_check(3, F, err);
    if (rc)
        return rc;
    double l[NL], E[9], WW[9];
    kf_frame_operators(3, F, NULL, E, WW);
    /* the reference point's acceleration from the origin's: a_c = a_O + (E + W W) x_c */
    for (int i = 0; i < 3; i++) {
        aLg[i] = F->a[i];
        for (int j = 0; j < 3; j++)
            aLg[i] += (E[3 * i + j] + WW[3 * i + j]) * w->xc[j];
    }
    products(w, F->omega, d, dd);
    memcpy(w->eps, F->eps, sizeof w->eps);
    loads_of(w, F->omega, F->eps, aLg, l);
    if ((rc = add_geometric(w, l, 0.0, 0.0, d, w->fe, err)))
        return rc;
    return finite_or_range(w, err);
}

/* The elastic residual M d'' + Mo aLg + Hb^T eps - f_e under a prescribed frame. */
static void prescribed_residual(const kf_ffrf *w, const double *aLg, const double *ddd,
                                double *res)
{
    int n = w->n;
    kf_mat_gemv(kf_body_mass(w->b), 1.0, ddd, 0.0, res);
    for (int k = 0; k < 3; k++) {
        const double *mo = kf_body_Mo(w->b, k), *hb = w->Hb + (size_t)k * n;
        for (int i = 0; i < n; i++)
            res[i] += aLg[k] * mo[i] + w->eps[k] * hb[i];
    }
    for (int i = 0; i < n; i++)
        res[i] -= w->fe[i];
}

/* The drive's force and torque on the body at x_c (body axes): the rigid rows'
 * residual, M_rr (aLg, eps) + M_re d'' - f_r. */
static void drive_of(const kf_ffrf *w, const double *aLg, const double *ddd, double *out)
{
    int n = w->n;
    double t[3], r[3];
    cross(w->eps, w->Sd, t);
    cross(w->Sd, aLg, r);
    for (int k = 0; k < 3; k++) {
        out[k] = t[k] + w->m * aLg[k] + kf_dot(n, kf_body_Mo(w->b, k), ddd) - w->fr[k];
        out[3 + k] = r[k] + w->J[3 * k] * w->eps[0] + w->J[3 * k + 1] * w->eps[1] +
                     w->J[3 * k + 2] * w->eps[2] + kf_dot(n, w->Hb + (size_t)k * n, ddd) -
                     w->fr[3 + k];
    }
}

/* d'' under a prescribed frame at the state prescribed_state left (one solve with M). */
static int prescribed_accel(kf_ffrf *w, const double *aLg, double *ddd, kf_error *err)
{
    int n = w->n, rc;
    memset(w->tmp, 0, (size_t)n * sizeof(double));
    prescribed_residual(w, aLg, w->tmp, ddd);
    for (int i = 0; i < n; i++)
        ddd[i] = -ddd[i];
    w->bordered = 0;
    kf_mat_copy(&w->LU, kf_body_mass(w->b));
    if ((rc = factor(w, err)) || (rc = solve(w, ddd, err)))
        return rc;
    return kf_vec_finite((size_t)n, ddd) ? KF_OK
           : kf_fail(err, KF_ERANGE, "omega", "the elastic accelerations overflow");
}

int kf_ffrf_prescribed(kf_ffrf *w, const kf_frame *frame, const double *d, const double *dd,
                       double *ddd, double *drive, kf_error *err)
{
    w->have_state = 0; /* the workspace moves to this call's state */
    if (!frame || !d || !dd || !ddd)
        return kf_fail(err, KF_EINVAL, "frame", "a frame, d, d' and an output are needed");
    if (!kf_vec_finite((size_t)w->n, d) || !kf_vec_finite((size_t)w->n, dd))
        return kf_fail(err, KF_EINVAL, "d", "d and d' must be finite");
    double aLg[3];
    int rc = prescribed_state(w, frame, d, dd, aLg, err);
    if (!rc)
        rc = prescribed_accel(w, aLg, ddd, err);
    if (!rc && drive)
        drive_of(w, aLg, ddd, drive);
    return rc;
}

/* ---------------------------------------------------------------- motion in time */

/* What the stepper's callbacks need of a run. */
typedef struct ffrf_run {
    kf_ffrf *w;
    int prescribed;
    const double *g;      /* free: gravity (global) */
    double q[4];          /* free: the orientation at t_n (unit quaternion) */
    double R1[9];         /* free: the orientation of the last residual's iterate */
    kf_motion_fn *motion; /* prescribed: the frame */
    void *mparams;
    double aLg[3];        /* prescribed: a_c - g_L of the last state */
} ffrf_run;

static int frame_at(ffrf_run *r, double t, kf_frame *F, kf_error *err)
{
    memset(F, 0, sizeof *F);
    if (r->motion(t, F, r->mparams, err)) {
        if (!err->code)
            kf_fail(err, KF_ECALLBACK, "motion", "the motion failed at t = %.9g s", t);
        return err->code;
    }
    return KF_OK;
}

/* The residual of the stepper's unknowns: free (d, r_c, theta) with theta the
 * rotation vector of the step (R = R_n exp(theta)), or prescribed (d). */
static int run_residual(double t, const double *p, const double *v, const double *a, int it,
                        double *res, void *params, kf_error *err)
{
    (void)it;
    ffrf_run *r = params;
    kf_ffrf *w = r->w;
    int n = w->n, rc;
    if (r->prescribed) {
        kf_frame F;
        if ((rc = frame_at(r, t, &F, err)) || (rc = prescribed_state(w, &F, p, v, r->aLg, err)))
            return rc;
        prescribed_residual(w, r->aLg, a, res);
        return KF_OK;
    }
    double q[4] = {r->q[0], r->q[1], r->q[2], r->q[3]};
    quat_step(q, p + n + 3);
    kf_quat_rotation(q, r->R1);
    if ((rc = free_state(w, r->R1, v + n + 3, p, v, r->g, a + n, 0.0, 0.0, err)))
        return rc;
    free_residual(w, r->R1, a + n, a + n + 3, a, res);
    return KF_OK;
}

static int run_jacobian(double cm, double cv, double cd, kf_mat *J, void *params, kf_error *err)
{
    ffrf_run *r = params;
    if (r->prescribed) /* the exact tangent: the equations are affine in (d, d', d'') */
        return elastic_block(r->w, cm, cv, cd, J, err);
    return free_matrix(r->w, r->R1, cm, cv, cd, err);
}

/* The free body's iteration matrix is bordered (a band or dense block and six rigid
 * rows and columns), which no kf_mat storage holds: it is built in the floating
 * body's workspace (run_jacobian) and factored there by block elimination; the
 * stepper's own matrix is a placeholder. */
static int bordered_setup(void *c, const kf_mat *A, kf_error *err)
{
    (void)A;
    return factor(c, err);
}

static int bordered_solve(void *c, int nrhs, double *b, int ldb, kf_error *err)
{
    for (int k = 0; k < nrhs; k++) {
        int rc = solve(c, b + (size_t)k * ldb, err);
        if (rc)
            return rc;
    }
    return KF_OK;
}

static const kf_linsol_ops bordered_ops = {"floating body: bordered LU (block elimination)",
                                           bordered_setup, bordered_solve, NULL};

static int bordered_linsol(kf_linsol **out, const kf_mat *like, void *params, kf_error *err)
{
    return kf_linsol_callback(out, like->n, &bordered_ops, params, err);
}

static int check_run(const kf_ffrf_opts *o, int nt, const double *t, kf_error *err)
{
    if (!o || !t)
        return kf_fail(err, KF_EINVAL, "opts", "options and output times are needed");
    int rc = kf_check_outputs(t[0], nt, t, "t", err);
    if (rc)
        return rc;
    if (o->method != KF_FFRF_GA && o->method != KF_FFRF_DP5)
        return kf_fail(err, KF_EINVAL, "method", "method = %d is not a kf_ffrf_method", o->method);
    if (o->method == KF_FFRF_GA) {
        if ((rc = kf_check_ga_run(o->dt, o->rho_inf, o->tol, o->max_iter, err)))
            return rc;
    } else if (!(o->rtol > 0.0 && o->atol > 0.0 && isfinite(o->rtol) && isfinite(o->atol)) ||
               !(o->dt >= 0.0 && isfinite(o->dt)))
        return kf_fail(err, KF_EINVAL, "rtol", "rtol = %g and atol = %g must be > 0, dt = %g >= 0",
                       o->rtol, o->atol, o->dt);
    if (o->max_steps < 0)
        return kf_fail(err, KF_EINVAL, "max_steps", "max_steps = %ld must be >= 0", o->max_steps);
    return KF_OK;
}

/* Write output row k: the free body's (p, v, a over (d, r_c, theta), q) or the
 * prescribed one's elastic rows and the drive. */
static int output(ffrf_run *r, int k, double t, const double *p, const double *v,
                  const double *a, double *rigid, double *elastic, double *drive, kf_error *err)
{
    kf_ffrf *w = r->w;
    int n = w->n;
    double *e = elastic + (size_t)k * 3 * n;
    memcpy(e, p, (size_t)n * sizeof(double));
    memcpy(e + n, v, (size_t)n * sizeof(double));
    memcpy(e + 2 * n, a, (size_t)n * sizeof(double));
    if (r->prescribed) {
        if (!drive)
            return KF_OK;
        kf_frame F;
        int rc = frame_at(r, t, &F, err);
        if (!rc)
            rc = prescribed_state(w, &F, p, v, r->aLg, err);
        if (!rc)
            drive_of(w, r->aLg, a, drive + (size_t)k * NR);
        return rc;
    }
    double *x = rigid + (size_t)k * KF_FFRF_RIGID_OUT;
    memcpy(x, p + n, 3 * sizeof(double));
    memcpy(x + 3, r->q, 4 * sizeof(double));
    memcpy(x + 7, v + n, 6 * sizeof(double));
    memcpy(x + 13, a + n, 6 * sizeof(double));
    return KF_OK;
}

static int run_ga(ffrf_run *r, const double *x0, const double *e0, int nt, const double *t,
                  const kf_ffrf_opts *o, double *rigid, double *elastic, double *drive,
                  kf_stats *st, kf_error *err)
{
    kf_ffrf *w = r->w;
    int n = w->n, np = r->prescribed ? n : n + NR, rc;
    long max_steps = o->max_steps > 0 ? o->max_steps : 100000000L;
    double *buf = kf_calloc(8 * (size_t)np, sizeof(double));
    if (!buf)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the integrator (%d unknowns)", np);
    double *p0 = buf, *v0 = p0 + np, *a0 = v0 + np, *al0 = a0 + np;
    double *p1 = al0 + np, *v1 = p1 + np, *a1 = v1 + np, *al1 = a1 + np;
    /* the prescribed body's matrix is its elastic block (band or dense, the default
     * LAPACK LU); the free body's bordered one lives in the workspace */
    kf_mat like = *kf_body_mass(w->b);
    like.a = NULL;
    if (!r->prescribed)
        like = (kf_mat){KF_BAND, np, 0, 0, 1, NULL, NULL};
    kf_ga_problem gp = {np, &like, run_residual, run_jacobian, r};
    kf_ga_opts go = {.form = KF_GA_ALGORITHMIC, .tol = o->tol, .max_iter = o->max_iter,
                     .refactor_rate = 0.1, .linear = r->prescribed,
                     .linsol = r->prescribed ? NULL : bordered_linsol, .linsol_params = w};
    kf_ga_coefficients(o->rho_inf, &go);
    kf_ga *ga = NULL;
    if ((rc = kf_ga_create(&ga, &gp, &go, err)))
        goto done;
    if (e0) {
        memcpy(p0, e0, (size_t)n * sizeof(double));
        memcpy(v0, e0 + n, (size_t)n * sizeof(double));
    }
    /* the initial accelerations */
    double tcur = t[0];
    st->evaluations++;
    if (r->prescribed) {
        kf_frame F;
        if (!(rc = frame_at(r, tcur, &F, err)) && !(rc = prescribed_state(w, &F, p0, v0, r->aLg, err)))
            rc = prescribed_accel(w, r->aLg, a0, err);
    } else {
        memcpy(p0 + n, x0, 3 * sizeof(double));
        memcpy(v0 + n, x0 + 7, 6 * sizeof(double));
        double R[9];
        kf_quat_rotation(r->q, R);
        rc = free_accel(w, R, v0 + n + 3, p0, v0, r->g, a0, err);
    }
    if (rc)
        goto done;
    memcpy(al0, a0, (size_t)np * sizeof(double));
    int k = 0;
    long left = 0, taken = 0;
    double tstart = tcur, hstep = 0.0;
    for (;;) {
        while (k < nt && t[k] <= tcur) {
            if ((rc = output(r, k, tcur, p0, v0, a0, rigid, elastic, drive, err)))
                goto done;
            k++;
        }
        if (k >= nt)
            break;
        /* equal steps of at most dt from the last output to the next (1e-9: intervals
         * equal to round-off take the same count) */
        if (left == 0) {
            double span = t[k] - tcur, ns = ceil(span / o->dt * (1.0 - 1e-9));
            ns = ns < 1.0 ? 1.0 : ns;
            left = ns > 1e9 ? 1000000000 : (long)ns;
            tstart = tcur;
            hstep = span / (double)left;
            taken = 0;
        }
        /* h the same for every step of the interval (the last one lands on t[k] exactly):
         * a step that differs from the one before in its last bits would refactor the
         * iteration matrix of a constant motion (the linear mode compares it bitwise) */
        double t1 = left == 1 ? t[k] : tstart + (double)(taken + 1) * hstep, h = hstep;
        if (st->steps >= max_steps) {
            rc = kf_fail(err, KF_ESTEPS, "dt", "max_steps = %ld reached at t = %.9g s", max_steps,
                         tcur);
            goto done;
        }
        if ((rc = kf_ga_step(ga, t1, h, p0, v0, a0, al0, p1, v1, a1, al1, st, err)))
            goto done;
        if (!r->prescribed) { /* R_n+1 = R_n exp(theta); the next step's increment from 0 */
            quat_step(r->q, p1 + n + 3);
            p1[n + 3] = p1[n + 4] = p1[n + 5] = 0.0;
        }
        memcpy(p0, p1, 4 * (size_t)np * sizeof(double)); /* p, v, a, alpha */
        tcur = t1;
        left--;
        taken++;
        st->steps++;
        if (o->progress && o->progress(tcur, o->progress_params)) {
            rc = kf_fail(err, KF_ECALLBACK, "progress", "stopped at t = %.9g s", tcur);
            goto done;
        }
    }
done:
    kf_ga_free(ga);
    free(buf);
    return rc;
}

/* ---------------------------------------------------------------- Dormand-Prince */

/* y = (r_c 3, q 4, d n, v 3, omega 3, d' n) */
typedef struct ffrf_ode {
    ffrf_run *r;
    double *x;      /* n + 6 accelerations */
    double *rigid, *elastic;
} ffrf_ode;

static int dp5_accel(ffrf_ode *c, const double *y, kf_error *err)
{
    kf_ffrf *w = c->r->w;
    int n = w->n;
    const double *q = y + 3, *d = y + 7, *v = y + 7 + n;
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), R[9];
    if (!(qn > 0.0) || !isfinite(qn))
        return kf_fail(err, KF_EDIVERGE, "q", "the orientation's quaternion is %g in norm", qn);
    kf_quat_rotation(q, R);
    return free_accel(w, R, v + 3, d, v + 6, c->r->g, c->x, err);
}

static int dp5_rhs(double t, const double *y, double *dy, void *params, kf_error *err)
{
    (void)t;
    ffrf_ode *c = params;
    int n = c->r->w->n, rc = dp5_accel(c, y, err);
    if (rc)
        return -1;
    const double *q = y + 3, *v = y + 7 + n, *om = v + 3;
    memcpy(dy, v, 3 * sizeof(double));
    /* q' = 1/2 q (x) (0, omega) */
    dy[3] = -0.5 * (q[1] * om[0] + q[2] * om[1] + q[3] * om[2]);
    dy[4] = 0.5 * (q[0] * om[0] + q[2] * om[2] - q[3] * om[1]);
    dy[5] = 0.5 * (q[0] * om[1] + q[3] * om[0] - q[1] * om[2]);
    dy[6] = 0.5 * (q[0] * om[2] + q[1] * om[1] - q[2] * om[0]);
    memcpy(dy + 7, v + 6, (size_t)n * sizeof(double));
    memcpy(dy + 7 + n, c->x + n, NR * sizeof(double));
    memcpy(dy + 13 + n, c->x, (size_t)n * sizeof(double));
    return 0;
}

static int dp5_out(int k, double t, const double *y, void *params, kf_error *err)
{
    (void)t;
    ffrf_ode *c = params;
    int n = c->r->w->n, rc = dp5_accel(c, y, err);
    if (rc)
        return rc;
    double *x = c->rigid + (size_t)k * KF_FFRF_RIGID_OUT, *e = c->elastic + (size_t)k * 3 * n;
    const double *q = y + 3;
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    memcpy(x, y, 3 * sizeof(double));
    for (int i = 0; i < 4; i++)
        x[3 + i] = q[i] / qn;
    memcpy(x + 7, y + 7 + n, 6 * sizeof(double));
    memcpy(x + 13, c->x + n, 6 * sizeof(double));
    memcpy(e, y + 7, (size_t)n * sizeof(double));
    memcpy(e + n, y + 13 + n, (size_t)n * sizeof(double));
    memcpy(e + 2 * n, c->x, (size_t)n * sizeof(double));
    return 0;
}

static int run_dp5(ffrf_run *r, const double *x0, const double *e0, int nt, const double *t,
                   const kf_ffrf_opts *o, double *rigid, double *elastic, kf_stats *st,
                   kf_error *err)
{
    int n = r->w->n, ny = 13 + 2 * n, rc;
    double *buf = kf_calloc((size_t)ny + (size_t)n + NR, sizeof(double));
    if (!buf)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the integrator (%d states)", ny);
    double *y = buf;
    memcpy(y, x0, 3 * sizeof(double));
    memcpy(y + 3, r->q, 4 * sizeof(double));
    memcpy(y + 7 + n, x0 + 7, 6 * sizeof(double));
    if (e0) {
        memcpy(y + 7, e0, (size_t)n * sizeof(double));
        memcpy(y + 13 + n, e0 + n, (size_t)n * sizeof(double));
    }
    ffrf_ode c = {r, buf + ny, rigid, elastic};
    kf_ode_system sys = {ny, dp5_rhs, dp5_out, NULL, &c, 1};
    kf_ode_opts oo = {o->rtol, o->atol, o->max_steps, o->dt, 0.0, o->progress, o->progress_params};
    kf_ode *ode = NULL;
    if (!(rc = kf_ode_create(&ode, &sys, &oo, err)))
        rc = kf_ode_run(ode, t[0], y, nt, t, st, err);
    kf_ode_free(ode);
    free(buf);
    return rc;
}

int kf_ffrf_run(kf_ffrf *w, const double g[3], const double *x0, const double *e0, int nt,
                const double *t, const kf_ffrf_opts *o, double *rigid, double *elastic,
                kf_stats *stats, kf_error *err)
{
    kf_stats st = {0};
    if (w)
        w->have_state = 0;
    int rc = (!w || !g || !x0 || !rigid || !elastic)
                 ? kf_fail(err, KF_EINVAL, "", "kf_ffrf_run: NULL argument")
                 : check_run(o, nt, t, err);
    if (!rc)
        rc = need_regular(w, err);
    if (rc)
        goto done;
    double qn = sqrt(x0[3] * x0[3] + x0[4] * x0[4] + x0[5] * x0[5] + x0[6] * x0[6]);
    if (!kf_vec_finite(13, x0) || !kf_vec_finite(3, g) || !(qn > 0.0) || !isfinite(qn)) {
        rc = kf_fail(err, KF_EINVAL, "x0", "the initial state must be finite with a nonzero "
                     "quaternion (|q| = %g)", qn);
        goto done;
    }
    if (e0 && !kf_vec_finite(2 * (size_t)w->n, e0)) {
        rc = kf_fail(err, KF_EINVAL, "e0", "the initial elastic state is not finite");
        goto done;
    }
    ffrf_run r = {w, 0, g, {x0[3] / qn, x0[4] / qn, x0[5] / qn, x0[6] / qn}, {0}, NULL, NULL,
                  {0}};
    rc = o->method == KF_FFRF_GA ? run_ga(&r, x0, e0, nt, t, o, rigid, elastic, NULL, &st, err)
                                 : run_dp5(&r, x0, e0, nt, t, o, rigid, elastic, &st, err);
done:
    if (stats)
        *stats = st;
    return rc;
}

int kf_ffrf_run_prescribed(kf_ffrf *w, kf_motion_fn *motion, void *motion_params,
                           const double *e0, int nt, const double *t, const kf_ffrf_opts *o,
                           double *elastic, double *drive, kf_stats *stats, kf_error *err)
{
    kf_stats st = {0};
    if (w)
        w->have_state = 0;
    int rc = (!w || !motion || !elastic)
                 ? kf_fail(err, KF_EINVAL, "", "kf_ffrf_run_prescribed: NULL argument")
                 : check_run(o, nt, t, err);
    if (!rc && o->method != KF_FFRF_GA)
        rc = kf_fail(err, KF_EINVAL, "method", "a prescribed frame moves the body by "
                     "generalized-alpha only (the one-way simulate has Dormand-Prince)");
    if (!rc && e0 && !kf_vec_finite(2 * (size_t)w->n, e0))
        rc = kf_fail(err, KF_EINVAL, "e0", "the initial elastic state is not finite");
    if (!rc) {
        ffrf_run r = {w, 1, NULL, {1.0, 0.0, 0.0, 0.0}, {0}, motion, motion_params, {0}};
        rc = run_ga(&r, NULL, e0, nt, t, o, NULL, elastic, drive, &st, err);
    }
    if (stats)
        *stats = st;
    return rc;
}
