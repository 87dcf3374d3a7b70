/*
 * kf_flexmech.c -- elastic links coupled both ways with a mechanism, planar
 * (docs/theory.md section 5.12) or spatial (section 5.17): the floating frame
 * of reference, Kane's projection of the rigid and elastic coordinates
 * together, and its time integration by generalized-alpha.
 *
 * A link is a body of the mechanism whose axes are its elements' frame and
 * whose reference point is their mass centre x_c; its elastic displacements
 * d (the free DOFs of its reference conditions) are measured in that frame.
 * A material point is at r_c + R (xbar + N d), xbar = x - x_c, so its
 * acceleration in the link's axes is, in the plane,
 *
 *     R^T a = a_cL + eps J rho - omega^2 rho + 2 omega J N d' + N d'',   rho = xbar + N d,
 *
 * and Kane's inertia forces along (r_c, theta, d) are, with the invariants of
 * the elements (docs/theory.md section 1.4) taken about the mass centre,
 *
 *     mass block  [ m I      J S_d      Mo     ]     S_d = Mo d = int rho N d
 *                 [ .        I_rho      h + G d ]    I_rho = J_c + 2 b.d + d.M d
 *                 [ .        .          M      ]     b = int rho N^T xbar, h = int rho N^T J xbar
 *     velocity terms   c: -omega^2 S_d + 2 omega J S_d'
 *                      theta: 2 omega (b + M d).d'
 *                      d: -omega^2 (b + M d) + 2 omega G d'      (G = S_yx - S_xy)
 *
 * (the c rows in the link's axes; rotated by R into the global ones).  In
 * space the same rows in the speeds (v global, omega body axes, d') are those
 * of a floating body (csrc/kf_ffrf.c, kf_ffrf_rows: M_rr, M_re and f at O(n)).
 * With the rigid bodies' masses this is the mass matrix and velocity vector of
 * the whole mechanism in (q, d); the constraints act on q only, because joints
 * attach to links at ports (nodes, interface nodes) whose translations their
 * reference conditions hold, so Kane's projection with q' = A z' +
 * (prescribed), d free gives
 *
 *     [A_f^T M_qq A_f   A_f^T M_qd] [z_f'']   [A_f^T (F_q - M_qq a_0) + tau_f]
 *     [M_dq A_f          M_dd     ] [d''  ] = [F_d - M_dq a_0                ]
 *
 * a_0 = A_p z_p'' + c.  Dependent rigid coordinates come from the loop
 * closure at every evaluation (coordinate partitioning): the constraints hold
 * to round-off and the integrator sees an ODE in (z_f, d).
 *
 * One code for both spaces: the projection, the K_G coefficients' fixed point
 * and extrapolation, the residual, the iteration matrix and the stepper are
 * shared; what differs is thin and marked "planar" or "spatial": the
 * kinematics (kf_mech or kf_smech, the speeds per body nb = 3 or 6), each
 * link's rows (the planar band loops below, or kf_ffrf), its elastic tangent
 * and the joint forces' loads on its K_G.
 */
#include "kf_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* the most joints attached to one link */
#define MAX_ENDS 16
/* modified Newton refactors where a correction is more than this part of the last */
#define KF_FLEX_RATE 0.1
/* a spatial link's rigid speeds (v, omega) */
#define NR KF_FFRF_NR

typedef struct flink {
    int body, nf, off;          /* off: the first of its DOFs among all elastic ones */
    const kf_body *fe;
    int *map;                   /* nf free DOF indices */
    double m, xc[3], Jc;        /* the body as a rigid body (kf_body_rigid); planar: xc[2] 0 */
    double *M, *K, *G;          /* nf x nf, column-major, reduced to the free DOFs */
    /* Mp = S_xx + S_yy: the in-plane mass of the centrifugal and rotary terms; M itself for
     * a planar body, the x, y part of a spatial body's (M - S_zz) in planar motion */
    double *Mp;
    double *Mox, *Moy, *b, *h;  /* nf */
    double alpha, beta;         /* Rayleigh */
    /* K_G = sum_c kg[c] KG[c] over the body's basis (nf x nf each): straight, the x^k
     * basis of N(x) (nkg = 3) with the end forces of the joints at its end nodes; else
     * the prestress cases a_i, (E + W W)_ij and (nload) unit generalized forces on its
     * coordinates 0..nload-1, with the joints' forces on the coordinates of their ports */
    int geometric, straight, nkg, nload, fixed_first, fixed_last;
    double *KG[KF_MAX_KG];
    /* the joints attached: joint, sign of its force on the link, the port's coordinates
     * (x, y, rotation; -1: none), and for a straight body whether the port is its last
     * node (1), first (0) or an interior one (-1: no end force) */
    int nend, end_joint[MAX_ENDS], end_last[MAX_ENDS], end_dof[MAX_ENDS][6];
    double end_sign[MAX_ENDS];
    double kg[KF_MAX_KG], kg_old[KF_MAX_KG]; /* the K_G coefficients of the current state */
    double kgn[KF_MAX_KG], kgp[KF_MAX_KG];   /* ... of the converged states at t_n, t_{n-1} */
    double *KGs, kgs[KF_MAX_KG];  /* sum_c kg[c] KG[c] (nf x nf) for the kg held in kgs */
    double kgw[KF_MAX_KG];        /* each KG[c]'s largest entry (the fixed point's weights) */
    /* the half-bandwidth of M, K, G and K_G (a chain of elements: a few DOFs of a node
     * pair; a given body's are dense): every loop over their entries runs over the band
     * only, adding exactly the terms a full loop adds other than zeros, so the results
     * are the same bit for bit */
    int bw;
    /* spatial: the floating frame (its rows; made without K_G, which the mechanism's
     * joints load), its body on the free DOFs (K_G's basis), sum kg KG on it (KGm, for the
     * kg in kgs), the elastic tangent (Jt), each conforming with its mass; the rows'
     * outputs (Mrr 6 x 6, Mre 6 x nf row-major, fr 6 + nf); x_c in 3D */
    kf_ffrf *ff;
    const kf_body *rb;
    kf_mat KGm, Jt;
    double Mrr[NR * NR], *Mre, *fr;
} flink;

/* Row i's (or column i's) band of a link's matrices: j in [lo, hi). */
static inline int band_lo(const flink *L, int i) { return i - L->bw > 0 ? i - L->bw : 0; }
static inline int band_hi(const flink *L, int i) { return i + L->bw + 1 < L->nf ? i + L->bw + 1 : L->nf; }

struct kf_flexmech {
    const kf_mech *m;         /* planar, or NULL */
    const kf_smech *sm;       /* spatial, or NULL */
    const kf_mech_ops *ops;   /* the kinematics' table (drives, names) and its mechanism */
    const void *mech;
    int nb, njf;              /* speeds per body (3 or 6) and numbers per joint force (3 or 6) */
    int nl, nd, n, nz, nj;
    flink *L;
    kf_mech_kin kin;          /* planar */
    kf_smech_kin skin;        /* spatial */
    /* the kinematics of either space: speeds u (q' in the plane) and their rates, A, c */
    double *u, *ud, *A, *c;
    double g3[3];             /* spatial: gravity */
    kf_smech_desc sdesc;      /* spatial: the description (bodies, joints) */
    /* workspace (create) */
    double *Mqq, *Mqd, *Fq, *Fd, *Mbar, *S, *rhs, *a0, *Vq, *tmp;
    double *z, *zd, *zdd, *tau, *drive, *fj, *y, *pv;
    double *prod; /* absolute(): six band products over the largest link's DOFs */
    unsigned char presc[KF_KANE_MAX_NU];
    int free_idx[KF_KANE_MAX_NU], nzf;
    int *ipiv;
    double *buf;
    /* the rigid kinematics of the last evaluation, at time kin_t: with every
     * coordinate prescribed they depend on the time alone, and Newton's iterations
     * of a step reuse them (evaluate) */
    double kin_t;
    int kin_ok;
    int exact; /* effective() adds the angular acceleration's term (extrapolated runs) */
    int mbar_held; /* Mbar holds the links' M alone (no free rigid coordinate), unfactored */
};

void kf_flexmech_free(kf_flexmech *w)
{
    if (!w)
        return;
    for (int l = 0; w->L && l < w->nl; l++) {
        flink *L = w->L + l;
        free(L->map);
        free(L->M); /* the start of the link's one buffer */
        kf_ffrf_free(L->ff);
        kf_mat_free(&L->KGm);
        kf_mat_free(&L->Jt);
    }
    free(w->L);
    if (w->sm)
        kf_smech_kin_free(&w->skin);
    else
        kf_mech_kin_free(&w->kin);
    free(w->ipiv);
    free(w->buf);
    free(w);
}

int kf_flexmech_nelastic(const kf_flexmech *w) { return w->nd; }

/* Port i of a link of a mechanism of dimension dim (2 or 3): its position in the body's
 * frame (dim) and its coordinates (planar 3: translations along x, y and the rotation;
 * spatial 6: along x, y, z and about them; -1: none), given or (no ports given) node i
 * of a body of elements. */
static void link_port(const kf_mech_link *in, int dim, int i, double *x, int *dof)
{
    const kf_body *b = in->fe;
    int nd = dim == 2 ? 3 : 6;
    for (int c = 0; c < dim; c++)
        x[c] = in->port_xy ? in->port_xy[(size_t)dim * i + c] : b->coords[(size_t)i * b->dim + c];
    for (int c = 0; c < nd; c++)
        dof[c] = in->port_xy ? in->port_dof[(size_t)nd * i + c]
                 : c < b->ndofn ? i * b->ndofn + c
                                : -1;
}

static double distance(int dim, const double *a, const double *b)
{
    return dim == 2 ? hypot(a[0] - b[0], a[1] - b[1])
                    : sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                           (a[2] - b[2]) * (a[2] - b[2]));
}

/* A joint as the ports see it: its bodies, its points on them (body axes from the mass
 * centre), whether it transmits no moment (a planar revolute, a spatial spherical) and
 * its name for messages. */
typedef struct port_joint {
    const int *body;
    const double *p[2];
    int moment_free;
    char name[KF_SJ_NAME + 8];
} port_joint;

static port_joint joint_at(const kf_flexmech *w, int j)
{
    port_joint v;
    if (w->sm) {
        const kf_sjoint *J = w->sdesc.joints + j;
        v = (port_joint){J->body, {J->p0, J->p1}, J->kind == KF_SJ_SPHERICAL, ""};
        snprintf(v.name, sizeof v.name, "'%s'", J->name);
    } else {
        kf_mech_desc d;
        kf_mech_describe(w->m, &d);
        const kf_joint *J = d.joints + j;
        v = (port_joint){J->body, {J->p0, J->p1}, J->kind == KF_REVOLUTE, ""};
        snprintf(v.name, sizeof v.name, "%d", j);
    }
    return v;
}

/* The joints at a link's ports: which port, the sign of their force on the link, and
 * the reference conditions holding the port's translations (checked); for a prestress
 * basis the load cases of the coordinates their forces (and moments) load. */
static int link_joints(const kf_flexmech *w, flink *L, int l, const kf_mech_link *in,
                       kf_error *err)
{
    const kf_body *b = in->fe;
    int dim = w->sm ? 3 : 2, nd = dim == 2 ? 3 : 6, np = in->port_xy ? in->nport : b->nnode;
    /* the ports' extent: the length scale of "at a port" */
    double len = 0.0, x0[3], x[3], at[3];
    int dof[6];
    for (int i = 0; i < np; i++) {
        link_port(in, dim, i, x, dof);
        if (i == 0)
            memcpy(x0, x, sizeof x0);
        len = fmax(len, distance(dim, x, x0));
    }
    len = len > 0.0 ? len : 1.0;
    for (int j = 0; j < w->nj; j++) {
        port_joint J = joint_at(w, j);
        for (int s = 0; s < 2; s++) {
            if (J.body[s] != in->body)
                continue;
            for (int c = 0; c < dim; c++)
                at[c] = J.p[s][c] + L->xc[c];
            int port = -1, pdof[6] = {-1, -1, -1, -1, -1, -1};
            for (int i = 0; i < np; i++) {
                link_port(in, dim, i, x, dof);
                if (distance(dim, at, x) <= 1e-9 * len) {
                    port = i;
                    memcpy(pdof, dof, sizeof pdof);
                }
            }
            if (port < 0)
                return kf_fail(err, KF_EINVAL, "links", "links[%d]: joint %s attaches at (%g, %g%s) "
                               "in the body's frame, not at one of its %s", l, J.name, at[0],
                               at[1], dim == 3 ? ", ..." : "", in->port_xy ? "ports" : "nodes");
            /* the reference conditions must hold the port's translations */
            for (int c = 0; c < dim; c++)
                if (pdof[c] >= 0 && !in->fixed[pdof[c]])
                    return kf_fail(err, KF_EINVAL, "links", "links[%d]: joint %s attaches at "
                                   "%s %d, which its reference conditions leave free to move", l,
                                   J.name, in->port_xy ? "port" : "node", port);
            if (L->nend == MAX_ENDS)
                return kf_fail(err, KF_EINVAL, "links", "links[%d]: more than %d joints", l,
                               MAX_ENDS);
            int e = L->nend++;
            L->end_joint[e] = j;
            L->end_sign[e] = s ? 1.0 : -1.0;
            memcpy(L->end_dof[e], pdof, sizeof pdof);
            /* a straight body: an end force only at its first or last node */
            L->end_last[e] = in->port_xy ? -1 : port == 0 ? 0 : port == b->nnode - 1 ? 1 : -1;
            /* a prestress basis: the joint's forces (and moments) load the port's coordinates */
            for (int c = 0; L->geometric && !L->straight && c < nd; c++)
                if (pdof[c] >= L->nload && (c < dim || !J.moment_free))
                    return kf_fail(err, KF_EINVAL, "geometric", "links[%d]: joint %s loads "
                                   "coordinate %d, which has no load case in the body's K_G "
                                   "basis (its first %d coordinates have one)", l, J.name,
                                   pdof[c], L->nload);
        }
    }
    return KF_OK;
}

/* What a link of either space must be beyond its body: a body of the mechanism carrying
 * no other link, reference conditions, damping and the K_G flag, ports in range (dim 2
 * or 3: positions and nd = 3 or 6 coordinates each). */
static int check_link(const kf_flexmech *w, int l, const kf_mech_link *in, kf_error *err)
{
    int nbody = w->n / w->nb, dim = w->sm ? 3 : 2, nd = dim == 2 ? 3 : 6;
    if (in->body < 0 || in->body >= nbody)
        return kf_fail(err, KF_EINVAL, "links", "links[%d].body = %d is not a body of the "
                       "mechanism (0..%d)", l, in->body, nbody - 1);
    for (int k = 0; k < l; k++)
        if (w->L[k].body == in->body)
            return kf_fail(err, KF_EINVAL, "links", "links[%d] and links[%d] are both body %d",
                           k, l, in->body);
    if (!in->fixed)
        return kf_fail(err, KF_EINVAL, "links", "links[%d] has no reference conditions", l);
    if (!(in->rayleigh[0] >= 0.0 && in->rayleigh[1] >= 0.0 && isfinite(in->rayleigh[0]) &&
          isfinite(in->rayleigh[1])))
        return kf_fail(err, KF_EINVAL, "links", "links[%d].rayleigh = (%g, %g) must be finite "
                       "and >= 0", l, in->rayleigh[0], in->rayleigh[1]);
    if (in->geometric != 0 && in->geometric != 1)
        return kf_fail(err, KF_EINVAL, "geometric", "links[%d].geometric = %d must be 0 or 1", l,
                       in->geometric);
    if (in->port_xy && !(in->nport >= 1 && in->port_dof))
        return kf_fail(err, KF_EINVAL, "links", "links[%d]: nport = %d ports need their "
                       "coordinates", l, in->nport);
    if (!in->port_xy && in->fe->given)
        return kf_fail(err, KF_EINVAL, "links", "links[%d]: a body of given invariants has no "
                       "nodes: give its ports (port_xy, port_dof)", l);
    int ndof = in->fe->ndof;
    for (int i = 0; in->port_xy && i < in->nport; i++) {
        const double *x = in->port_xy + (size_t)dim * i;
        for (int c = 0; c < nd; c++) {
            int k = in->port_dof[(size_t)nd * i + c];
            if (k < -1 || k >= ndof || !kf_vec_finite((size_t)dim, x))
                return kf_fail(err, KF_EINVAL, "links", "links[%d]: port %d has coordinate %d "
                               "(of %d) at (%g, %g%s)", l, i, k, ndof, x[0], x[1],
                               dim == 3 ? ", ..." : "");
        }
    }
    return KF_OK;
}

/* K_G's basis: a straight line body's N(x), or the prestress cases with coordinate loads
 * (a reduced body's, for its joints' forces) */
static int geometric_basis(flink *L, int l, const kf_body *b, kf_error *err)
{
    L->nkg = kf_body_nkg(b);
    L->straight = L->nkg == 3 && !kf_body_prestressed(b);
    L->nload = kf_body_nload(b);
    if (!L->nkg || (!L->straight && !L->nload))
        return kf_fail(err, KF_EINVAL, "geometric", "links[%d]: geometric stiffness needs a "
                       "straight line body (its axial force) or a body whose K_G basis has "
                       "coordinate load cases for its joints' forces (kf_body_nload)", l);
    return KF_OK;
}

static int setup_link(kf_flexmech *w, int l, const kf_mech_link *in, kf_error *err)
{
    const kf_mech *m = w->m;
    flink *L = w->L + l;
    const kf_body *b = in->fe;
    if (!b || !(kf_body_dim(b) == 2 || (kf_body_dim(b) == 3 && b->given)))
        return kf_fail(err, KF_EINVAL, "links", "links[%d] needs a planar body (of dimension "
                       "2) or a spatial body of given invariants (a reduced one) moving in the "
                       "plane", l);
    int rc = check_link(w, l, in, err);
    if (rc)
        return rc;
    if (kf_body_has_second(b)) /* its K_om is not -omega^2 M (docs/theory.md section 2.9) */
        return kf_fail(err, KF_EINVAL, "links", "links[%d]: a beam with rotary inertia (sections "
                       "turning to second order) is not implemented as a two-way elastic link; "
                       "use rotary_inertia=False", l);
    int ndof = b->ndof;
    L->body = in->body;
    L->fe = b;
    L->alpha = in->rayleigh[0];
    L->beta = in->rayleigh[1];
    L->geometric = in->geometric;
    L->map = kf_calloc((size_t)ndof, sizeof(int));
    if (!L->map)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate links[%d]", l);
    for (int i = 0; i < ndof; i++)
        if (!in->fixed[i])
            L->map[L->nf++] = i;
    if (L->geometric && (rc = geometric_basis(L, l, b, err)))
        return rc;
    /* the rigid body of the flexible body must be the mechanism's body */
    double c3[3], J9[9];
    rc = kf_body_rigid(b, &L->m, c3, J9, NULL, err);
    if (rc)
        return rc;
    L->xc[0] = c3[0];
    L->xc[1] = c3[1];
    L->Jc = J9[8];
    kf_mech_desc d;
    kf_mech_describe(m, &d);
    double mb = d.mass[in->body], Jb = d.inertia[in->body];
    if (!(fabs(mb - L->m) <= 1e-9 * L->m && fabs(Jb - L->Jc) <= 1e-9 * (L->Jc + L->m * 1e-30)))
        return kf_fail(err, KF_EINVAL, "links", "links[%d]: body %d has mass %.9g kg and "
                       "inertia %.9g kg m^2, its flexible body %.9g kg and %.9g kg m^2 (about "
                       "its mass centre, which is the body's reference point)", l, in->body, mb,
                       Jb, L->m, L->Jc);
    if ((rc = link_joints(w, L, l, in, err)))
        return rc;
    L->fixed_first = in->fixed[0] != 0;
    L->fixed_last = b->given ? 0 : in->fixed[(size_t)(b->nnode - 1) * b->ndofn] != 0;
    /* the reduced dense matrices and vectors */
    int nf = L->nf, nkg = L->geometric ? L->nkg : 0, spatial = kf_body_dim(b) == 3;
    size_t nn = (size_t)nf * nf;
    L->M = kf_calloc((4 + (size_t)nkg + (size_t)spatial) * nn + 4 * (size_t)nf + 1, sizeof(double));
    if (!L->M)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate links[%d] (%d DOFs)", l, nf);
    L->K = L->M + nn;
    L->G = L->K + nn;
    for (int k = 0; k < nkg; k++)
        L->KG[k] = L->G + nn * (1 + (size_t)k);
    L->Mox = L->G + nn * (1 + (size_t)nkg);
    L->Moy = L->Mox + nf;
    L->b = L->Moy + nf;
    L->h = L->b + nf;
    L->KGs = L->h + nf; /* kgs = 0 matches its zeros */
    L->Mp = spatial ? L->KGs + nn : L->M;
    const kf_mat *M = kf_body_mass(b), *K = kf_body_stiffness(b);
    const kf_mat *Syx = kf_body_S(b, 1, 0), *Sxy = kf_body_S(b, 0, 1);
    for (int j = 0; j < nf; j++)
        for (int i = 0; i < nf; i++) {
            int I = L->map[i], Jj = L->map[j];
            L->M[i + (size_t)j * nf] = kf_mat_get(M, I, Jj);
            L->K[i + (size_t)j * nf] = kf_mat_get(K, I, Jj);
            L->G[i + (size_t)j * nf] = kf_mat_get(Syx, I, Jj) - kf_mat_get(Sxy, I, Jj);
            if (spatial)
                L->Mp[i + (size_t)j * nf] = kf_mat_get(kf_body_S(b, 0, 0), I, Jj) +
                                            kf_mat_get(kf_body_S(b, 1, 1), I, Jj);
        }
    const double *mox = kf_body_Mo(b, 0), *moy = kf_body_Mo(b, 1);
    const double *sxx = kf_body_s(b, 0, 0), *syy = kf_body_s(b, 1, 1);
    const double *sxy = kf_body_s(b, 0, 1), *syx = kf_body_s(b, 1, 0);
    for (int i = 0; i < nf; i++) {
        int I = L->map[i];
        L->Mox[i] = mox[I];
        L->Moy[i] = moy[I];
        /* b = int rho N^T xbar, h = int rho (N_y^T xbar_x - N_x^T xbar_y) */
        L->b[i] = sxx[I] + syy[I] - L->xc[0] * mox[I] - L->xc[1] * moy[I];
        L->h[i] = syx[I] - sxy[I] - L->xc[0] * moy[I] + L->xc[1] * mox[I];
    }
    if (nkg) {
        kf_mat G;
        double c[KF_MAX_KG];
        rc = kf_mat_alloc_like(&G, M, err);
        for (int k = 0; !rc && k < nkg; k++) {
            for (int q = 0; q < nkg; q++)
                c[q] = q == k;
            rc = kf_body_geometric(b, c, 0.0, &G, err);
            for (int j = 0; !rc && j < nf; j++)
                for (int i = 0; i < nf; i++)
                    L->KG[k][i + (size_t)j * nf] = kf_mat_get(&G, L->map[i], L->map[j]);
        }
        kf_mat_free(&G);
        if (rc)
            return rc;
        for (int k = 0; k < nkg; k++)
            for (size_t ij = 0; ij < nn; ij++)
                L->kgw[k] = fmax(L->kgw[k], fabs(L->KG[k][ij]));
    }
    for (int k = 0; k < 3 + nkg; k++) {
        const double *X = k == 0 ? L->M : k == 1 ? L->K : k == 2 ? L->G : L->KG[k - 3];
        for (int j = 0; j < nf; j++)
            for (int i = 0; i < nf; i++)
                if (X[i + (size_t)j * nf] != 0.0 && abs(i - j) > L->bw)
                    L->bw = abs(i - j);
    }
    return KF_OK;
}

/* ---------------------------------------------------------------- spatial links */

/* The half-bandwidth of a spatial link's elastic matrices (every S_ij, K and K_G's
 * basis: where any is nonzero), from its body on the free DOFs. */
static int slink_band(const kf_body *rb)
{
    const kf_mat *X[9 + 1 + KF_MAX_KG];
    int nx = 0, bw = 0, n = rb->ndof;
    for (int k = 0; k < 9; k++)
        X[nx++] = kf_body_S(rb, k / 3, k % 3);
    X[nx++] = kf_body_stiffness(rb);
    for (int k = 0; k < rb->nkg; k++)
        if (rb->KG[k].a)
            X[nx++] = &rb->KG[k];
    for (int k = 0; k < nx; k++) {
        if (X[k]->kind == KF_BAND) {
            bw = X[k]->kl > bw ? X[k]->kl : bw;
            continue;
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                if (X[k]->a[i + (size_t)j * n] != 0.0 && abs(i - j) > bw)
                    bw = abs(i - j);
    }
    return bw;
}

static int setup_slink(kf_flexmech *w, int l, const kf_mech_link *in, kf_error *err)
{
    flink *L = w->L + l;
    const kf_body *b = in->fe;
    const kf_smech_desc *d = &w->sdesc;
    if (!b || kf_body_dim(b) != 3)
        return kf_fail(err, KF_EINVAL, "links", "links[%d] needs a spatial body (of dimension 3): "
                       "elements in dense or band storage, or given invariants (a reduced body)",
                       l);
    int rc = check_link(w, l, in, err);
    if (rc)
        return rc;
    /* the floating frame: its rows, mass properties and the rigid margin; a given body's
     * mass properties from its invariants where not given (kf_body_rigid) */
    double mp[13];
    const double *mass = in->mass;
    if (b->given && !mass) {
        double Ic[9];
        if ((rc = kf_body_rigid(b, mp, mp + 1, NULL, Ic, err))) {
            kf_error e = *err;
            return kf_fail(err, rc, "links", "links[%d]: %.400s (give the mass properties of "
                           "its full body)", l, e.msg);
        }
        memcpy(mp + 4, Ic, sizeof Ic);
        mass = mp;
    }
    kf_ffrf_desc fd = {b, in->fixed, b->given ? mass : NULL,
                       {in->rayleigh[0], in->rayleigh[1]}, 0};
    if ((rc = kf_ffrf_create(&L->ff, &fd, err))) {
        kf_error e = *err;
        return kf_fail(err, rc, e.arg[0] ? e.arg : "links", "links[%d]: %.400s", l, e.msg);
    }
    if (kf_ffrf_rigid_margin(L->ff) < 1e-10)
        return kf_fail(err, KF_EINVAL, "links", "links[%d]: its mass matrix in (v, omega, d') is "
                       "singular (rigid margin %.3g): its reference conditions leave a rigid "
                       "motion to the elastic coordinates, or it has no inertia about an axis "
                       "(a straight bar about its own)", l, kf_ffrf_rigid_margin(L->ff));
    L->body = in->body;
    L->fe = b;
    L->rb = kf_ffrf_body(L->ff);
    L->alpha = in->rayleigh[0];
    L->beta = in->rayleigh[1];
    L->geometric = in->geometric;
    L->nf = kf_ffrf_nelastic(L->ff);
    L->map = kf_calloc((size_t)L->nf, sizeof(int));
    if (!L->map)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate links[%d]", l);
    memcpy(L->map, kf_ffrf_map(L->ff), (size_t)L->nf * sizeof(int));
    /* the mechanism's body must be the link's rigid body: mass, inertia about x_c */
    double J0[9];
    kf_ffrf_mass_properties(L->ff, &L->m, L->xc, J0);
    const kf_sbody *sb = d->bodies + in->body;
    double jmax = fmax(J0[0], fmax(J0[4], J0[8])), dj = 0.0;
    for (int k = 0; k < 9; k++)
        dj = fmax(dj, fabs(sb->inertia[k] - J0[k]));
    if (!(fabs(sb->mass - L->m) <= 1e-9 * L->m && dj <= 1e-9 * jmax))
        return kf_fail(err, KF_EINVAL, "links", "links[%d]: body %d has mass %.9g kg and inertia "
                       "(%.9g, %.9g, %.9g) kg m^2, its flexible body %.9g kg and (%.9g, %.9g, "
                       "%.9g) kg m^2 (about its mass centre, which is the body's reference "
                       "point)", l, in->body, sb->mass, sb->inertia[0], sb->inertia[4],
                       sb->inertia[8], L->m, J0[0], J0[4], J0[8]);
    if (L->geometric) {
        if ((rc = geometric_basis(L, l, b, err)))
            return rc;
        for (int k = 0; k < L->nkg; k++) {
            const kf_mat *X = &L->rb->KG[k];
            for (size_t q = 0; X->a && q < kf_mat_nvalues(X); q++)
                L->kgw[k] = fmax(L->kgw[k], fabs(X->a[q]));
        }
    }
    if ((rc = link_joints(w, L, l, in, err)))
        return rc;
    L->fixed_first = in->fixed[0] != 0;
    L->fixed_last = b->given ? 0 : in->fixed[(size_t)(b->nnode - 1) * b->ndofn] != 0;
    /* the elastic mass as a dense column-major copy (the projection's elastic block, as the
     * planar links'), the tangent and K_G's combination, the rows' outputs */
    int nf = L->nf;
    size_t nn = (size_t)nf * nf;
    const kf_mat *M = kf_ffrf_mass(L->ff);
    L->M = kf_calloc(nn + 7 * (size_t)nf + NR, sizeof(double));
    if (!L->M)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate links[%d] (%d DOFs)", l, nf);
    L->Mre = L->M + nn;
    L->fr = L->Mre + NR * (size_t)nf;
    for (int j = 0; j < nf; j++)
        for (int i = 0; i < nf; i++)
            L->M[i + (size_t)j * nf] = kf_mat_get(M, i, j);
    L->bw = slink_band(L->rb);
    if ((rc = kf_mat_alloc_like(&L->Jt, M, err)) || (rc = kf_mat_alloc_like(&L->KGm, M, err)))
        return rc;
    return KF_OK;
}

/* The workspace of the coupled system, once the links are set. */
static int make_system(kf_flexmech **out, kf_flexmech *w, kf_error *err)
{
    int n = w->n, nd = w->nd, nz = w->nz, np = nz + nd;
    size_t need = (size_t)n * n + (size_t)n * nd + (size_t)n + (size_t)nd + 2 * (size_t)np * np +
                  (size_t)np + 2 * (size_t)n + (size_t)(n > np ? n : np) + 6 * (size_t)nz +
                  (size_t)w->njf * w->nj + 2 * (size_t)nz + 3 * (size_t)np;
    int maxnf = 0;
    for (int l = 0; l < w->nl; l++)
        maxnf = w->L[l].nf > maxnf ? w->L[l].nf : maxnf;
    need += 6 * (size_t)maxnf;
    w->buf = kf_calloc(need, sizeof(double));
    w->ipiv = kf_calloc((size_t)(np > n ? np : n), sizeof(int));
    if (!w->buf || !w->ipiv) {
        kf_flexmech_free(w);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the coupled system (%d unknowns)",
                       np);
    }
    double *p = w->buf;
    w->Mqq = p, p += (size_t)n * n;
    w->Mqd = p, p += (size_t)n * nd;
    w->Fq = p, p += n;
    w->Fd = p, p += nd;
    w->Mbar = p, p += (size_t)np * np;
    w->S = p, p += (size_t)np * np;
    w->rhs = p, p += np;
    w->a0 = p, p += n;
    w->Vq = p, p += n;
    w->tmp = p, p += (n > np ? n : np);
    w->z = p, p += nz;
    w->zd = p, p += nz;
    w->zdd = p, p += nz;
    w->tau = p, p += nz;
    w->drive = p, p += nz;
    w->fj = p, p += (size_t)w->njf * w->nj;
    w->y = p, p += 2 * (size_t)nz;
    w->pv = p, p += 3 * (size_t)np;
    w->prod = p;
    if (w->sm) { /* the rigid bodies' constant mass blocks: m I and the inertia tensor */
        for (int b = 0; b < w->sdesc.nbody; b++) {
            const kf_sbody *B = w->sdesc.bodies + b;
            for (int i = 0; i < 3; i++) {
                w->Mqq[6 * b + i + (size_t)(6 * b + i) * n] = B->mass;
                for (int j = 0; j < 3; j++)
                    w->Mqq[6 * b + 3 + i + (size_t)(6 * b + 3 + j) * n] = B->inertia[3 * i + j];
            }
        }
    }
    *out = w;
    return KF_OK;
}

/* The coupled system of a planar mechanism m or a spatial one sm (the other NULL). */
static int create(kf_flexmech **out, const kf_mech *m, const kf_smech *sm, int nlink,
                  const kf_mech_link *links, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (!(m || sm) || nlink < 0 || (nlink > 0 && !links))
        return kf_fail(err, KF_EINVAL, "links", "a mechanism and nlink = %d links are needed",
                       nlink);
    kf_flexmech *w = kf_calloc(1, sizeof *w);
    if (!w)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a flexible mechanism");
    w->m = m;
    w->sm = sm;
    w->ops = sm ? &kf_smech_ops : &kf_mech_planar_ops;
    w->mech = sm ? (const void *)sm : (const void *)m;
    w->nb = w->njf = sm ? 6 : 3;
    w->nl = nlink;
    w->n = w->nb * (sm ? kf_smech_nbody(sm) : kf_mech_nbody(m));
    w->nz = w->ops->ncoord(w->mech);
    w->nj = sm ? kf_smech_njoint(sm) : kf_mech_njoint(m);
    if (sm) {
        kf_smech_describe(sm, &w->sdesc);
        memcpy(w->g3, w->sdesc.gravity, sizeof w->g3);
    }
    w->L = kf_calloc((size_t)(nlink > 0 ? nlink : 1), sizeof(flink));
    int rc = !w->L ? kf_fail(err, KF_ENOMEM, "", "cannot allocate %d links", nlink)
             : sm  ? kf_smech_kin_alloc(sm, &w->skin, err)
                   : kf_mech_kin_alloc(m, &w->kin, err);
    if (!rc) { /* the speeds, their rates, A and c of either kinematics */
        w->u = sm ? w->skin.u : w->kin.qd;
        w->ud = sm ? w->skin.ud : w->kin.qdd;
        w->A = sm ? w->skin.A : w->kin.A;
        w->c = sm ? w->skin.c : w->kin.c;
    }
    for (int l = 0; !rc && l < nlink; l++) {
        rc = sm ? setup_slink(w, l, links + l, err) : setup_link(w, l, links + l, err);
        w->L[l].off = w->nd;
        w->nd += w->L[l].nf;
    }
    if (rc) {
        kf_flexmech_free(w);
        return rc;
    }
    return make_system(out, w, err);
}

int kf_flexmech_create(kf_flexmech **out, const kf_mech *m, int nlink, const kf_mech_link *links,
                       kf_error *err)
{
    return create(out, m, NULL, nlink, links, err);
}

int kf_flexmech_create_spatial(kf_flexmech **out, const kf_smech *m, int nlink,
                               const kf_mech_link *links, kf_error *err)
{
    return create(out, NULL, m, nlink, links, err);
}

/* ---------------------------------------------------------------- the equations at a state */

/* ya += a x, yb += b x over n entries (a column's band of two matrices) */
static void band_axpy2(int n, const double *restrict a, const double *restrict b, double x,
                       double *restrict ya, double *restrict yb)
{
    for (int i = 0; i < n; i++) {
        ya[i] += a[i] * x;
        yb[i] += b[i] * x;
    }
}

/* y1 += a x1, y2 += a x2 over n entries (a column's band, two vectors) */
static void band_axpy_two(int n, const double *restrict a, double x1, double x2,
                          double *restrict y1, double *restrict y2)
{
    for (int i = 0; i < n; i++) {
        y1[i] += a[i] * x1;
        y2[i] += a[i] * x2;
    }
}

/*
 * The absolute mass blocks M_qq (n x n), M_qd (n x nd), the forces F_q, F_d
 * (without K_G) at the state the kinematics hold (q, q') and the elastic
 * (d, d') over every link's free DOFs.  Q: the rigid applied forces.  Planar.
 */
static void planar_absolute(kf_flexmech *w, const double *Q, const double *d, const double *dd,
                            int elastic_rows)
{
    const kf_mech *m = w->m;
    int n = w->n, nd = w->nd;
    const kf_mech_kin *k = &w->kin;
    /* M_qq: the rigid bodies' diagonal masses and each link body's 3 x 3 block; M_qd:
     * each link's DOFs in its body's three rows; every other entry zero (create), and
     * every entry written here is written at every call */
    (void)nd;
    kf_mech_mass(m, w->tmp);
    for (int i = 0; i < n; i++)
        w->Mqq[i + (size_t)i * n] = w->tmp[i];
    memcpy(w->Fq, Q, (size_t)n * sizeof(double));
    kf_mech_desc desc;
    kf_mech_describe(m, &desc);
    const double g[2] = {desc.gravity[0], desc.gravity[1]};
    for (int l = 0; l < w->nl; l++) {
        flink *L = w->L + l;
        int nf = L->nf, r0 = 3 * L->body;
        const double *dl = d + L->off, *ddl = dd + L->off;
        double th = k->q[r0 + 2], om = k->qd[r0 + 2], c = cos(th), s = sin(th);
        /* the band products in one sweep over the columns (contiguous): Mp d (the rotary
         * terms' mass, M itself for a planar body), G d and, for the elastic rows, M d', G d',
         * K d, K d' */
        int np6 = elastic_rows ? 6 : 2;
        double *Md = w->prod, *Gd = Md + nf, *Mdd = Gd + nf, *Gdd = Mdd + nf, *Kd = Gdd + nf,
               *Kdd = Kd + nf;
        memset(w->prod, 0, (size_t)np6 * nf * sizeof(double));
        for (int j = 0; j < nf; j++) {
            size_t c0 = (size_t)j * nf;
            int lo = band_lo(L, j), len = band_hi(L, j) - lo;
            band_axpy2(len, L->Mp + c0 + lo, L->G + c0 + lo, dl[j], Md + lo, Gd + lo);
            if (elastic_rows) {
                band_axpy2(len, L->M + c0 + lo, L->G + c0 + lo, ddl[j], Mdd + lo, Gdd + lo);
                band_axpy_two(len, L->K + c0 + lo, dl[j], ddl[j], Kd + lo, Kdd + lo);
            }
        }
        /* S_d = Mo d, S_d', d.Mp d, d'.Mp d (= d.Mp d'), b.d, b.d' */
        double Sd[2] = {0.0, 0.0}, Sdd[2] = {0.0, 0.0}, dMd = 0.0, dMdd = 0.0, bd = 0.0, bdd = 0.0;
        for (int i = 0; i < nf; i++) {
            Sd[0] += L->Mox[i] * dl[i];
            Sd[1] += L->Moy[i] * dl[i];
            Sdd[0] += L->Mox[i] * ddl[i];
            Sdd[1] += L->Moy[i] * ddl[i];
            dMd += dl[i] * Md[i];
            dMdd += ddl[i] * Md[i];
            bd += L->b[i] * dl[i];
            bdd += L->b[i] * ddl[i];
        }
        double Irho = L->Jc + 2.0 * bd + dMd;
        /* mass blocks: rigid part of the link body */
        double JS[2] = {-Sd[1], Sd[0]}, RJS[2] = {c * JS[0] - s * JS[1], s * JS[0] + c * JS[1]};
        double *Mq = w->Mqq;
        Mq[r0 + (size_t)r0 * n] = Mq[r0 + 1 + (size_t)(r0 + 1) * n] = L->m;
        Mq[r0 + (size_t)(r0 + 2) * n] = Mq[r0 + 2 + (size_t)r0 * n] = RJS[0];
        Mq[r0 + 1 + (size_t)(r0 + 2) * n] = Mq[r0 + 2 + (size_t)(r0 + 1) * n] = RJS[1];
        Mq[r0 + 2 + (size_t)(r0 + 2) * n] = Irho;
        /* M_qd rows of the body: R Mo and h + G d */
        for (int i = 0; i < nf; i++) {
            double *col = w->Mqd + (size_t)(L->off + i) * n + r0;
            col[0] = c * L->Mox[i] - s * L->Moy[i];
            col[1] = s * L->Mox[i] + c * L->Moy[i];
            col[2] = L->h[i] + Gd[i];
        }
        /* velocity terms and gravity (local axes for c) */
        double wc[2] = {-om * om * Sd[0] - 2.0 * om * Sdd[1], -om * om * Sd[1] + 2.0 * om * Sdd[0]};
        double wth = 2.0 * om * (bdd + dMdd);
        double gL[2] = {c * g[0] + s * g[1], -s * g[0] + c * g[1]};
        w->Fq[r0] -= c * wc[0] - s * wc[1];
        w->Fq[r0 + 1] -= s * wc[0] + c * wc[1];
        w->Fq[r0 + 2] += -wth + (Sd[0] * gL[1] - Sd[1] * gL[0]);
        /* F_d = Mo^T g_L + omega^2 (b + M d) - 2 omega G d' - K d - (alpha M + beta K) d'
         * (not needed by the joint forces alone: !elastic_rows) */
        double *Fd = w->Fd + L->off;
        for (int i = 0; elastic_rows && i < nf; i++)
            Fd[i] = L->Mox[i] * gL[0] + L->Moy[i] * gL[1] + om * om * (L->b[i] + Md[i]) -
                    2.0 * om * Gdd[i] - Kd[i] - L->alpha * Mdd[i] - L->beta * Kdd[i];
    }
}

/*
 * The same blocks in space: the rigid bodies' (m I and the inertia tensor, constant:
 * make_system) with the gyroscopic terms omega x I omega, each link's floating frame's
 * rows (kf_ffrf_rows at the link body's speeds, its accelerations a0 for the tangent's
 * K_eps; gravity there, so the body's own m g is taken out of Q).
 */
static int spatial_absolute(kf_flexmech *w, const double *Q, const double *d, const double *dd,
                            int elastic_rows, kf_error *err)
{
    int n = w->n;
    memcpy(w->Fq, Q, (size_t)n * sizeof(double));
    for (int b = 0; b < w->sdesc.nbody; b++) {
        int link = 0;
        for (int l = 0; l < w->nl; l++)
            link |= w->L[l].body == b;
        if (link)
            continue;
        const double *om = w->u + 6 * b + 3, *I = w->sdesc.bodies[b].inertia;
        double Iw[3] = {I[0] * om[0] + I[1] * om[1] + I[2] * om[2],
                        I[3] * om[0] + I[4] * om[1] + I[5] * om[2],
                        I[6] * om[0] + I[7] * om[1] + I[8] * om[2]};
        double *F = w->Fq + 6 * b + 3;
        F[0] -= om[1] * Iw[2] - om[2] * Iw[1];
        F[1] -= om[2] * Iw[0] - om[0] * Iw[2];
        F[2] -= om[0] * Iw[1] - om[1] * Iw[0];
    }
    for (int l = 0; l < w->nl; l++) {
        flink *L = w->L + l;
        int b = L->body, nf = L->nf, r0 = 6 * b;
        kf_ffrf_state st;
        memcpy(st.R, w->skin.R + 9 * b, sizeof st.R);
        memcpy(st.v, w->u + r0, sizeof st.v);
        memcpy(st.omega, w->u + r0 + 3, sizeof st.omega);
        st.d = d + L->off;
        st.dd = dd + L->off;
        int rc = kf_ffrf_rows(L->ff, &st, w->g3, w->a0 + r0, 0.0, 0.0, L->Mrr, L->Mre, L->fr, err);
        if (rc)
            return rc;
        for (int j = 0; j < NR; j++)
            for (int i = 0; i < NR; i++)
                w->Mqq[r0 + i + (size_t)(r0 + j) * n] = L->Mrr[NR * i + j];
        for (int c = 0; c < nf; c++) {
            double *col = w->Mqd + (size_t)(L->off + c) * n + r0;
            for (int i = 0; i < NR; i++)
                col[i] = L->Mre[(size_t)i * nf + c];
        }
        /* the link's rows hold its weight (the body's own m g is taken out of Q) and its
         * velocity terms */
        double mb = w->sdesc.bodies[b].mass, *F = w->Fq + r0;
        for (int i = 0; i < 3; i++) {
            F[i] = Q[r0 + i] - mb * w->g3[i] + L->fr[i];
            F[3 + i] = Q[r0 + 3 + i] + L->fr[3 + i];
        }
        if (elastic_rows)
            memcpy(w->Fd + L->off, L->fr + NR, (size_t)nf * sizeof(double));
    }
    return KF_OK;
}

/* a0 = A_p z_p'' + c: the speeds' rates with the free coordinates' accelerations zero */
static void prescribed_rates(kf_flexmech *w)
{
    int n = w->n, nz = w->nz;
    const double *A = w->A;
    double *a0 = w->a0;
    for (int r = 0; r < n; r++) {
        double s = w->c[r];
        for (int k = 0; k < nz; k++)
            if (w->presc[k])
                s += A[(size_t)r * nz + k] * w->zdd[k];
        a0[r] = s;
    }
}

/* rhs = F - M_dq a over a link's nf DOFs, M_dq's columns nb long (ld apart): nb is 3 or 6
 * at every call, so each specializes (inline) */
static inline void elastic_rhs(int nb, int nf, int ld, const double *col, const double *a,
                               const double *F, double *rhs)
{
    for (int i = 0; i < nf; i++, col += ld) {
        double s = col[0] * a[0];
        for (int r = 1; r < nb; r++)
            s += col[r] * a[r];
        rhs[i] = F[i] - s;
    }
}

/* R += M_qd d'' over a link's nf DOFs (its body's nb rows), as elastic_rhs */
static inline void body_rows(int nb, int nf, int ld, const double *col, const double *dd,
                             double *R)
{
    for (int i = 0; i < nf; i++, col += ld)
        for (int r = 0; r < nb; r++)
            R[r] += col[r] * dd[i];
}

/* The projected system: Mbar (np x np) and rhs over (free z, d), np = nzf + nd,
 * from the absolute blocks, A and a0 = A_p z_p'' + c (prescribed_rates). */
static void project(kf_flexmech *w)
{
    int n = w->n, nd = w->nd, nz = w->nz, nf = w->nzf, np = nf + nd, nb = w->nb;
    const double *A = w->A, *a0 = w->a0;
    /* F - M a0 on q and d */
    double *fq = w->tmp;
    for (int r = 0; r < n; r++) {
        double s = w->Fq[r];
        for (int c = 0; c < n; c++)
            s -= w->Mqq[r + (size_t)c * n] * a0[c];
        fq[r] = s;
    }
    if (nf == 0 && w->mbar_held)
        goto elastic_rhs; /* Mbar is the links' constant M: already there */
    memset(w->Mbar, 0, (size_t)np * np * sizeof(double));
    for (int a = 0; a < nf; a++) {
        int ka = w->free_idx[a];
        /* rhs_f = A_f^T (F_q - M_qq a0) + tau */
        double s = w->tau[ka];
        for (int r = 0; r < n; r++)
            s += A[(size_t)r * nz + ka] * fq[r];
        w->rhs[a] = s;
        /* A_f^T M_qq A_f */
        for (int b = 0; b < nf; b++) {
            int kb = w->free_idx[b];
            double v = 0.0;
            for (int r = 0; r < n; r++) {
                double ar = A[(size_t)r * nz + ka];
                if (ar == 0.0)
                    continue;
                for (int c = 0; c < n; c++)
                    v += ar * w->Mqq[r + (size_t)c * n] * A[(size_t)c * nz + kb];
            }
            w->Mbar[a + (size_t)b * np] = v;
        }
        /* A_f^T M_qd and its transpose */
        for (int j = 0; j < nd; j++) {
            double v = 0.0;
            for (int r = 0; r < n; r++)
                v += A[(size_t)r * nz + ka] * w->Mqd[r + (size_t)j * n];
            w->Mbar[a + (size_t)(nf + j) * np] = w->Mbar[nf + j + (size_t)a * np] = v;
        }
    }
    for (int l = 0; l < w->nl; l++) {
        const flink *L = w->L + l;
        for (int j = 0; j < L->nf; j++)
            for (int i = band_lo(L, j), hi = band_hi(L, j); i < hi; i++)
                w->Mbar[nf + L->off + i + (size_t)(nf + L->off + j) * np] =
                    L->M[i + (size_t)j * L->nf];
    }
    w->mbar_held = nf == 0;
elastic_rhs:
    /* F_d - M_dq a0: a link's DOFs couple with its body's nb rows only */
    for (int l = 0; l < w->nl; l++) {
        const flink *L = w->L + l;
        const double *a = a0 + nb * L->body, *col = w->Mqd + (size_t)L->off * n + nb * L->body;
        if (nb == 3)
            elastic_rhs(3, L->nf, n, col, a, w->Fd + L->off, w->rhs + nf + L->off);
        else
            elastic_rhs(6, L->nf, n, col, a, w->Fd + L->off, w->rhs + nf + L->off);
    }
}

/* The coordinates and the kinematics at t for the free part p, v (length nzf + nd);
 * then the absolute and projected equations (without K_G); !projected: the absolute
 * rigid rows alone (M_qq, M_qd, F_q: what the joint forces need). */
static int evaluate_to(kf_flexmech *w, const kf_mech_drive *drives, double t, double t0,
                       const double *z0, const double *p, const double *v, int projected,
                       kf_error *err)
{
    int nz = w->nz, nf = w->nzf;
    /* y = (z, z') full: free entries from p, v */
    for (int a = 0; a < nf; a++) {
        w->y[w->free_idx[a]] = p[a];
        w->y[nz + w->free_idx[a]] = v[a];
    }
    double *Q = w->Vq;
    if (!(w->kin_ok && nf == 0 && t == w->kin_t)) {
        unsigned char presc[KF_KANE_MAX_NU];
        int rc = kf_drives_eval(w->ops, w->mech, drives, t, t0, z0, w->y, w->z, w->zd, w->zdd,
                                w->tau, presc, err);
        if (!rc)
            rc = w->sm ? kf_smech_kinematics(w->sm, w->z, w->zd, NULL, &w->skin, err)
                       : kf_mech_kinematics(w->m, w->z, w->zd, NULL, &w->kin, err);
        if (!rc)
            rc = w->sm ? kf_smech_applied(w->sm, &w->skin, Q, err)
                       : kf_mech_applied(w->m, &w->kin, Q, err);
        w->kin_ok = !rc;
        w->kin_t = t;
        if (rc)
            return rc;
    }
    if (projected || w->sm)
        prescribed_rates(w);
    if (w->sm) {
        int rc = spatial_absolute(w, Q, p + nf, v + nf, projected, err);
        if (rc)
            return rc;
    } else {
        planar_absolute(w, Q, p + nf, v + nf, projected);
    }
    if (projected)
        project(w);
    return KF_OK;
}

static int evaluate(kf_flexmech *w, const kf_mech_drive *drives, double t, double t0,
                    const double *z0, const double *p, const double *v, kf_error *err)
{
    return evaluate_to(w, drives, t, t0, z0, p, v, 1, err);
}

/* K_G's coefficients of a planar link from the joint forces (fj) at the state the
 * kinematics hold: a straight line body's axial force N(x), or a prestress basis' inertial
 * cases and the joints' forces and moments on its ports' coordinates. */
static int planar_loads(kf_flexmech *w, flink *L, kf_error *err)
{
    int rc;
    double th = w->kin.q[3 * L->body + 2], ex[2] = {cos(th), sin(th)}, f[2] = {0.0, 0.0};
    kf_frame fr;
    double o[2] = {-L->xc[0], -L->xc[1]};
    kf_mech_frame(w->m, &w->kin, L->body, o, 0.0, &fr);
    if (!L->straight) {
        /* the inertial cases (a, E + W W) of the frame, then the joints' forces (in the
         * link's axes) and moments on the coordinates of their ports */
        if ((rc = kf_body_geometric_coefficients(L->fe, &fr, 0.0, 0.0, 0, 0, L->kg, err)))
            return rc;
        int first = L->nkg - L->nload;
        for (int e = 0; e < L->nend; e++) {
            const double *F = w->fj + 3 * L->end_joint[e];
            double sg = L->end_sign[e];
            double q[3] = {sg * (F[0] * ex[0] + F[1] * ex[1]),
                           sg * (F[1] * ex[0] - F[0] * ex[1]), sg * F[2]};
            for (int c = 0; c < 3; c++)
                if (L->end_dof[e][c] >= 0 && L->end_dof[e][c] < L->nload)
                    L->kg[first + L->end_dof[e][c]] += q[c];
        }
        return KF_OK;
    }
    for (int e = 0; e < L->nend; e++) {
        const double *F = w->fj + 3 * L->end_joint[e];
        if (L->end_last[e] >= 0)
            f[L->end_last[e]] += L->end_sign[e] * (F[0] * ex[0] + F[1] * ex[1]);
    }
    int ff = L->fixed_first, fl = L->fixed_last;
    if (ff && fl) /* a frame through both ends: the joint forces carry the axial load */
        ff = fl = 0;
    return kf_body_axial_force(L->fe, &fr, f[0], f[1], ff, fl, L->kg, err);
}

/* The same in space: the frame at the elements' origin x = 0 (kf_smech_frame); a joint's
 * force (global) and moment (about body[1]'s joint point) on the link, which is its body
 * 0 (the reactions, the moment moved to body 0's point) or its body 1. */
static int spatial_loads(kf_flexmech *w, flink *L, kf_error *err)
{
    int b = L->body;
    const double *R = w->skin.R + 9 * b;
    kf_smech_axes ax = {b, {-L->xc[0], -L->xc[1], -L->xc[2]}, {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    kf_frame fr;
    kf_smech_frame(w->sm, &w->skin, &ax, &fr);
    if (L->straight) {
        double f[2] = {0.0, 0.0};
        for (int e = 0; e < L->nend; e++) {
            const double *F = w->fj + 6 * L->end_joint[e];
            if (L->end_last[e] >= 0) /* along the link's x axis, R's first column */
                f[L->end_last[e]] += L->end_sign[e] * (F[0] * R[0] + F[1] * R[3] + F[2] * R[6]);
        }
        int ff = L->fixed_first, fl = L->fixed_last;
        if (ff && fl) /* a frame through both ends: the joint forces carry the axial load */
            ff = fl = 0;
        return kf_body_axial_force(L->fe, &fr, f[0], f[1], ff, fl, L->kg, err);
    }
    int rc = kf_body_geometric_coefficients(L->fe, &fr, 0.0, 0.0, 0, 0, L->kg, err);
    if (rc)
        return rc;
    int first = L->nkg - L->nload;
    for (int e = 0; e < L->nend; e++) {
        int j = L->end_joint[e];
        const kf_sjoint *J = w->sdesc.joints + j;
        const double *F = w->fj + 6 * j;
        double f[3], m[3];
        if (L->end_sign[e] > 0.0) {
            memcpy(f, F, sizeof f);
            memcpy(m, F + 3, sizeof m);
        } else { /* -(M + (P1 - P0) x F) about P0 */
            double P[2][3];
            for (int s = 0; s < 2; s++) {
                int bs = J->body[s];
                const double *p = s ? J->p1 : J->p0;
                for (int i = 0; i < 3; i++)
                    P[s][i] = bs < 0 ? p[i]
                                     : w->skin.q[7 * bs + i] + w->skin.R[9 * bs + 3 * i] * p[0] +
                                           w->skin.R[9 * bs + 3 * i + 1] * p[1] +
                                           w->skin.R[9 * bs + 3 * i + 2] * p[2];
            }
            double dP[3] = {P[1][0] - P[0][0], P[1][1] - P[0][1], P[1][2] - P[0][2]};
            double c[3] = {dP[1] * F[2] - dP[2] * F[1], dP[2] * F[0] - dP[0] * F[2],
                           dP[0] * F[1] - dP[1] * F[0]};
            for (int i = 0; i < 3; i++) {
                f[i] = -F[i];
                m[i] = -(F[3 + i] + c[i]);
            }
        }
        double q[6]; /* in the link's axes: R^T f, R^T m */
        for (int i = 0; i < 3; i++) {
            q[i] = R[i] * f[0] + R[3 + i] * f[1] + R[6 + i] * f[2];
            q[3 + i] = R[i] * m[0] + R[3 + i] * m[1] + R[6 + i] * m[2];
        }
        for (int c = 0; c < 6; c++)
            if (L->end_dof[e][c] >= 0 && L->end_dof[e][c] < L->nload)
                L->kg[first + L->end_dof[e][c]] += q[c];
    }
    return KF_OK;
}

/*
 * With the accelerations a = (z_f'', d'') of the state evaluate left: the
 * absolute accelerations V_q = A z'' + c (the kinematics' rates too), R_q =
 * M_qq V_q + M_qd d'' - F_q, the joint forces (fj) and each coordinate's drive
 * force of J^T [lambda; mu] = -R_q, and, for links with K_G, their loads.
 */
static int reactions(kf_flexmech *w, const double *a, kf_error *err)
{
    int n = w->n, nz = w->nz, nf = w->nzf, nb = w->nb;
    for (int a_ = 0; a_ < nf; a_++)
        w->zdd[w->free_idx[a_]] = a[a_];
    const double *A = w->A;
    for (int r = 0; r < n; r++) {
        double s = w->c[r];
        for (int k = 0; k < nz; k++)
            s += A[(size_t)r * nz + k] * w->zdd[k];
        w->ud[r] = s;
    }
    double *R = w->tmp;
    for (int r = 0; r < n; r++) {
        double s = -w->Fq[r];
        for (int c = 0; c < n; c++)
            s += w->Mqq[r + (size_t)c * n] * w->ud[c];
        R[r] = s;
    }
    for (int l = 0; l < w->nl; l++) { /* M_qd d'': a link's body rows only */
        const flink *L = w->L + l;
        const double *col = w->Mqd + (size_t)L->off * n + nb * L->body;
        if (nb == 3)
            body_rows(3, L->nf, n, col, a + nf + L->off, R + nb * L->body);
        else
            body_rows(6, L->nf, n, col, a + nf + L->off, R + nb * L->body);
    }
    for (int r = 0; r < n; r++)
        R[r] = -R[r];
    int rc = w->sm ? kf_smech_joint_forces(w->sm, &w->skin, R, w->fj, w->drive, err)
                   : kf_mech_joint_forces(w->m, &w->kin, R, w->fj, w->drive, err);
    for (int l = 0; !rc && l < w->nl; l++)
        if (w->L[l].geometric)
            rc = w->sm ? spatial_loads(w, w->L + l, err) : planar_loads(w, w->L + l, err);
    return rc;
}

/* F_d -= K_G d and rhs likewise (after reactions gave each link's axial force). */
/* K_G of a link at its current axial force (kept while that force is the same) */
static const double *geometric(flink *L)
{
    int changed = L->kg[0] != L->kgs[0] || L->kg[1] != L->kgs[1] || L->kg[2] != L->kgs[2];
    for (int c = 3; c < L->nkg && !changed; c++)
        changed = L->kg[c] != L->kgs[c];
    if (changed) {
        for (int j = 0; j < L->nf; j++)
            for (int i = band_lo(L, j), hi = band_hi(L, j); i < hi; i++) {
                size_t ij = i + (size_t)j * L->nf;
                L->KGs[ij] = L->kg[0] * L->KG[0][ij] + L->kg[1] * L->KG[1][ij] +
                             L->kg[2] * L->KG[2][ij];
            }
        for (int c = 3; c < L->nkg; c++) { /* a prestress basis' other cases */
            const double *X = L->KG[c], k = L->kg[c];
            for (int j = 0; k != 0.0 && j < L->nf; j++)
                for (int i = band_lo(L, j), hi = band_hi(L, j); i < hi; i++)
                    L->KGs[i + (size_t)j * L->nf] += k * X[i + (size_t)j * L->nf];
        }
        memcpy(L->kgs, L->kg, (size_t)L->nkg * sizeof(double));
    }
    return L->KGs;
}

/* A spatial link's K_G = sum kg KG on its body (KGm), for the kg in kgs. */
static int spatial_geometric(flink *L, kf_error *err)
{
    int changed = 0;
    for (int c = 0; c < L->nkg && !changed; c++)
        changed = L->kg[c] != L->kgs[c];
    if (changed) {
        int rc = kf_body_geometric(L->rb, L->kg, 0.0, &L->KGm, err);
        if (rc)
            return rc;
        memcpy(L->kgs, L->kg, (size_t)L->nkg * sizeof(double));
    }
    return KF_OK;
}

static int add_geometric(kf_flexmech *w, const double *d, kf_error *err)
{
    int nf = w->nzf;
    for (int l = 0; l < w->nl; l++) {
        flink *L = w->L + l;
        if (!L->geometric)
            continue;
        if (w->sm) {
            int rc = spatial_geometric(L, err);
            if (rc)
                return rc;
            kf_mat_gemv(&L->KGm, -1.0, d + L->off, 1.0, w->rhs + nf + L->off);
            continue;
        }
        const double *KG = geometric(L), *dl = d + L->off;
        double *r = w->rhs + nf + L->off;
        for (int j = 0; j < L->nf; j++) { /* by columns (contiguous) */
            const double *col = KG + (size_t)j * L->nf;
            double x = dl[j];
            for (int i = band_lo(L, j), hi = band_hi(L, j); i < hi; i++)
                r[i] -= col[i] * x;
        }
    }
    return KF_OK;
}

/* A spatial link's block of the effective matrix: its floating frame's elastic tangent
 * (kf_ffrf_tangent: M + cv (C + alpha M + beta K) + cd (K + K_om + K_eps) at the state's
 * omega and the accelerations a0 of its body, whose eps makes it exact where every rigid
 * coordinate is prescribed) and cd K_G, written over its band into J (dense, or the
 * links' band). */
static int spatial_effective(kf_flexmech *w, flink *L, double cv, double cd, kf_mat *J,
                             kf_error *err)
{
    int rc = kf_ffrf_tangent(L->ff, NULL, 1.0, cv, cd, &L->Jt, NULL, NULL, NULL, err);
    if (!rc && L->geometric && !(rc = spatial_geometric(L, err)))
        kf_mat_axpy(&L->Jt, cd, &L->KGm);
    if (rc)
        return rc;
    int nf = w->nzf, np = nf + w->nd, band = J->kind == KF_BAND;
    const kf_mat *T = &L->Jt;
    for (int j = 0; j < L->nf; j++) {
        int C = nf + L->off + j;
        double *e = band ? J->a + (size_t)C * J->ld + J->kl + J->ku : J->a + (size_t)C * np;
        int shift = band ? nf + L->off - C : nf + L->off;
        const double *t = T->kind == KF_BAND ? T->a + (size_t)j * T->ld + T->kl + T->ku - j
                                             : T->a + (size_t)j * L->nf;
        for (int i = band_lo(L, j), hi = band_hi(L, j); i < hi; i++)
            e[shift + i] = t[i];
    }
    return KF_OK;
}

/* The effective matrix J = Mbar + cv (damping + 2 omega G) + cd (K + K_G - omega^2 Mp)
 * over the elastic block: the tangent of the elastic forces (the rigid coordinates'
 * own tangent is left out: Newton converges with the rate of what it omits, of
 * order h omega and h^2 k / m).  With exact, also cd omega' G (the term -G d omega'
 * of the right-hand side, omega' the prescribed part of the angular acceleration):
 * where every rigid coordinate is prescribed, J is then the residual's exact tangent. */
static int effective(kf_flexmech *w, double cv, double cd, kf_mat *J, kf_error *err)
{
    int nf = w->nzf, np = nf + w->nd, band = J->kind == KF_BAND;
    if (!band)
        memcpy(J->a, w->Mbar, (size_t)np * np * sizeof(double));
    for (int l = 0; l < w->nl; l++) {
        flink *L = w->L + l;
        if (w->sm) {
            int rc = spatial_effective(w, L, cv, cd, J, err);
            if (rc)
                return rc;
            continue;
        }
        double om = w->kin.qd[3 * L->body + 2], al = w->exact ? w->a0[3 * L->body + 2] : 0.0;
        const double *KG = L->geometric ? geometric(L) : NULL;
        /* Mbar's elastic block is the link's M (project): (1 + cM) M + cK K + cG G + cd K_G;
         * a spatial body's centrifugal term on Mp apart (cP Mp) */
        int spatial = L->Mp != L->M;
        double cM = 1.0 + cv * L->alpha - (spatial ? 0.0 : cd * om * om), cK = cv * L->beta + cd;
        double cP = -cd * om * om;
        double cG = 2.0 * cv * om + cd * al;
        for (int j = 0; j < L->nf; j++) {
            int C = nf + L->off + j;
            /* band storage (no free rigid coordinate): A(I,C) at a[kl + ku + I - C + C ld] */
            double *e = band ? J->a + (size_t)C * J->ld + J->kl + J->ku : J->a + (size_t)C * np;
            int shift = band ? nf + L->off - C : nf + L->off; /* e[shift + i]: row I = nf + off + i */
            int lo = band_lo(L, j), hi = band_hi(L, j);
            const double *Mj = L->M + (size_t)j * L->nf, *Kj = L->K + (size_t)j * L->nf,
                         *Gj = L->G + (size_t)j * L->nf, *Pj = L->Mp + (size_t)j * L->nf,
                         *KGj = KG ? KG + (size_t)j * L->nf : NULL;
            if (spatial) /* the centrifugal term on Mp apart */
                for (int i = lo; i < hi; i++) {
                    double v = cM * Mj[i] + cK * Kj[i] + cG * Gj[i] + cP * Pj[i];
                    e[shift + i] = KGj ? v + cd * KGj[i] : v;
                }
            else
                for (int i = lo; i < hi; i++) {
                    double v = cM * Mj[i] + cK * Kj[i] + cG * Gj[i];
                    e[shift + i] = KGj ? v + cd * KGj[i] : v;
                }
        }
    }
    return KF_OK;
}

/* Solve the accelerations at the evaluated state (Mbar is factored in place);
 * with K_G, fixed-point iteration on the axial forces, which depend on the
 * accelerations through the joint forces. */
static int accelerations(kf_flexmech *w, const double *d, double *a, kf_error *err)
{
    int np = w->nzf + w->nd, geo = 0, rc;
    for (int l = 0; l < w->nl; l++) {
        geo |= w->L[l].geometric;
        memset(w->L[l].kg, 0, sizeof w->L[l].kg);
    }
    double *rhs0 = w->S; /* S is not needed here: the right-hand side without K_G */
    memcpy(rhs0, w->rhs, (size_t)np * sizeof(double));
    w->mbar_held = 0; /* factored in place below */
    if ((rc = kf_mech_dense_solve(np, w->Mbar, w->ipiv, 1, 0, NULL, err)))
        return rc;
    for (int it = 0; it < 50; it++) {
        memcpy(w->rhs, rhs0, (size_t)np * sizeof(double));
        if (it > 0 && (rc = add_geometric(w, d, err)))
            return rc;
        memcpy(a, w->rhs, (size_t)np * sizeof(double));
        if ((rc = kf_mech_dense_solve(np, w->Mbar, w->ipiv, 0, 1, a, err)))
            return rc;
        double change = 0.0, size = 0.0;
        for (int l = 0; l < w->nl; l++)
            memcpy(w->L[l].kg_old, w->L[l].kg, sizeof w->L[l].kg);
        if ((rc = reactions(w, a, err)) || !geo)
            return rc;
        /* a prestress basis mixes accelerations, forces and moments: each coefficient
         * weighed by its matrix's largest entry (K_G's units) */
        for (int l = 0; l < w->nl; l++)
            for (int c = 0; c < w->L[l].nkg; c++) {
                double wt = w->L[l].straight ? 1.0 : w->L[l].kgw[c];
                change = fmax(change, wt * fabs(w->L[l].kg[c] - w->L[l].kg_old[c]));
                size = fmax(size, wt * fabs(w->L[l].kg[c]));
            }
        /* 1e-10: N depends on the accelerations only through the joint forces; where it
         * does not (a frame fixed at one end) the change stagnates at round-off, measured
         * 1.4e-13 of N on a swinging pendulum, which a tighter test refused */
        if (it > 0 && change <= 1e-10 * size)
            return KF_OK;
    }
    return kf_fail(err, KF_ENOCONV, "geometric", "the axial forces of K_G do not settle at "
                   "this state (fixed-point iteration with the accelerations)");
}

/* ---------------------------------------------------------------- one state */

/* Which coordinates the drives prescribe; the free ones in order (free_idx). */
static void classify(kf_flexmech *w, const kf_mech_drive *drives)
{
    w->nzf = 0;
    for (int k = 0; k < w->nz; k++) {
        w->presc[k] = drives[k].mode != KF_DRIVE_FREE;
        if (!w->presc[k])
            w->free_idx[w->nzf++] = k;
    }
}

int kf_flexmech_dynamics(kf_flexmech *w, const kf_mech_drive *drives, double t, double t0,
                         const double *z0, const double *z, const double *zd, const double *d,
                         const double *dd, double *zdd, double *ddd, double *force, double *fj,
                         kf_error *err)
{
    int nz = w->nz, nd = w->nd, rc = kf_drives_check(w->ops, w->mech, drives, err);
    if (rc)
        return rc;
    classify(w, drives);
    w->kin_ok = 0;
    w->exact = 0;
    int nf = w->nzf, np = nf + nd;
    double *pp = w->pv, *v = pp + np, *a = v + np;
    for (int i = 0; i < nf; i++) {
        pp[i] = z[w->free_idx[i]];
        v[i] = zd[w->free_idx[i]];
    }
    memcpy(pp + nf, d, (size_t)nd * sizeof(double));
    memcpy(v + nf, dd, (size_t)nd * sizeof(double));
    rc = evaluate(w, drives, t, t0, z0, pp, v, err);
    if (!rc)
        rc = accelerations(w, d, a, err);
    if (!rc) {
        for (int k = 0; k < nz; k++) {
            zdd[k] = w->zdd[k];
            if (force)
                force[k] = w->drive[k];
        }
        memcpy(ddd, a + nf, (size_t)nd * sizeof(double));
        if (fj)
            memcpy(fj, w->fj, (size_t)w->njf * w->nj * sizeof(double));
    }
    return rc;
}

int kf_flexmech_kin_width(const kf_flexmech *w)
{
    return w->sm ? 7 * kf_smech_nbody(w->sm) + 2 * w->n : 3 * w->n;
}

static void output_kinematics(const kf_flexmech *w, double *kr)
{
    const double *q = w->sm ? w->skin.q : w->kin.q;
    int nq = w->sm ? 7 * kf_smech_nbody(w->sm) : w->n;
    memcpy(kr, q, (size_t)nq * sizeof(double));
    memcpy(kr + nq, w->u, (size_t)w->n * sizeof(double));
    memcpy(kr + nq + w->n, w->ud, (size_t)w->n * sizeof(double));
}

/* KF_EINVAL naming the first of naxes spatial axes whose body is not one of the
 * mechanism's (-1 the ground) or whose origin or axes are not finite. */
static int saxes_check(const kf_flexmech *w, int naxes, const kf_smech_axes *axes, kf_error *err)
{
    if (naxes < 0 || (naxes > 0 && !axes))
        return kf_fail(err, KF_EINVAL, "frames", "frames: %d axes and no array", naxes);
    for (int i = 0; i < naxes; i++) {
        const kf_smech_axes *a = axes + i;
        if (a->body < -1 || a->body >= w->sdesc.nbody)
            return kf_fail(err, KF_EINVAL, "frames", "frames[%d].body = %d is not a body (-1 "
                           "the ground, 0..%d)", i, a->body, w->sdesc.nbody - 1);
        if (!kf_vec_finite(3, a->o) || !kf_vec_finite(9, a->phi))
            return kf_fail(err, KF_EINVAL, "frames", "frames[%d]: o and phi must be finite", i);
    }
    return KF_OK;
}

/* ---------------------------------------------------------------- generalized-alpha */

/* What the stepper's callbacks need of a run. */
typedef struct flex_run {
    kf_flexmech *w;
    const kf_mech_drive *drives;
    double t0;
    const double *z0;
    int geo, extrapolate;
    /* the rigid columns of the iteration matrix by differences (rigid_fd): the last
     * residual's iterate and value, scratch (np each) and the evaluations they took */
    int rigid_fd, it;
    double t1;
    const double *p1, *v1, *a1;
    double *R0, *Rp, *pp, *vv, *D;
    long extra;
} flex_run;

/* The residual Mbar(p) a - rhs(p, v) of the projected equations at the iterate;
 * K_G at this iterate's axial forces, frozen after two iterations (the
 * accelerations then change by round-off of their effect on N), or (extrapolate)
 * at the step's axial force the run set before the step. */
static int residual_at(flex_run *fr, double t1, const double *p1, const double *v1,
                       const double *a1, int it, double *R, kf_error *err);

static int flex_residual(double t1, const double *p1, const double *v1, const double *a1,
                         int it, double *R, void *params, kf_error *err)
{
    flex_run *fr = params;
    int rc = residual_at(fr, t1, p1, v1, a1, it, R, err);
    if (!rc && fr->rigid_fd) { /* the iterate, for the iteration matrix's differences */
        fr->t1 = t1, fr->p1 = p1, fr->v1 = v1, fr->a1 = a1, fr->it = it;
        memcpy(fr->R0, R, (size_t)(fr->w->nzf + fr->w->nd) * sizeof(double));
    }
    return rc;
}

static int residual_at(flex_run *fr, double t1, const double *p1, const double *v1,
                       const double *a1, int it, double *R, kf_error *err)
{
    kf_flexmech *w = fr->w;
    int np = w->nzf + w->nd;
    int rc = evaluate(w, fr->drives, t1, fr->t0, fr->z0, p1, v1, err);
    if (!rc && fr->geo && !fr->extrapolate && it < 2)
        rc = reactions(w, a1, err);
    if (rc) {
        if (rc == KF_EGEOM) {
            kf_error e = *err;
            kf_fail(err, KF_EGEOM, e.arg, "at t = %.9g s the motion leaves the assembly "
                    "region: %.400s", t1, e.msg);
        }
        return rc;
    }
    if ((rc = add_geometric(w, p1 + w->nzf, err)))
        return rc;
    /* Mbar: dense rows and columns of the free rigid coordinates, each link's band
     * (its M) on the elastic diagonal, zeros elsewhere (skipped: the same sums) */
    int nf = w->nzf;
    for (int i = 0; i < nf; i++) {
        double s = -w->rhs[i];
        for (int j = 0; j < np; j++)
            s += w->Mbar[i + (size_t)j * np] * a1[j];
        R[i] = s;
    }
    for (int l = 0; l < w->nl; l++) {
        const flink *L = w->L + l;
        for (int il = 0; il < L->nf; il++) {
            int i = nf + L->off + il;
            double s = -w->rhs[i];
            for (int j = 0; j < nf; j++)
                s += w->Mbar[i + (size_t)j * np] * a1[j];
            for (int jl = band_lo(L, il), hi = band_hi(L, il); jl < hi; jl++)
                s += w->Mbar[i + (size_t)(nf + L->off + jl) * np] * a1[nf + L->off + jl];
            R[i] = s;
        }
    }
    return KF_OK;
}

/* The iteration matrix (cm = 1 in the algorithmic form): effective(), dense, or with
 * every rigid coordinate prescribed (Mbar then the links' M on the diagonal) in band
 * storage, for a band LU. */
static int flex_jacobian(double cm, double cv, double cd, kf_mat *J, void *params,
                         kf_error *err)
{
    (void)cm;
    flex_run *fr = params;
    kf_flexmech *w = fr->w;
    int nf = w->nzf, np = nf + w->nd, rc;
    if (!fr->rigid_fd)
        return effective(w, cv, cd, J, err);
    /* The free rigid coordinates' own tangent, cv dR/dv_j + cd dR/dp_j, by forward
     * differences of the residual (K_G held): where force laws act on the frames (a
     * joint's damper or spring, a torque law), the rigid coordinates' inertia left with
     * the elastic coordinates free can be small (a link clamped at its frame's node
     * follows a joint's rotation elastically but for its first element's), and Newton
     * without their tangent diverges at any step (measured: a damper of 0.5 N m s on an
     * elbow, at 1e-6 s).  2 nzf evaluations per factorization, then the iterate's again
     * (the workspace's state: kinematics continued, each link's rows for its tangent). */
    memcpy(fr->pp, fr->p1, (size_t)np * sizeof(double));
    memcpy(fr->vv, fr->v1, (size_t)np * sizeof(double));
    for (int j = 0; j < nf; j++) {
        for (int pass = 0; pass < 2; pass++) {
            double *x = pass ? fr->vv : fr->pp, x0 = x[j];
            double h = 1.49e-8 * fmax(1.0, fabs(x0));
            x[j] = x0 + h;
            h = x[j] - x0; /* exactly representable */
            rc = residual_at(fr, fr->t1, fr->pp, fr->vv, fr->a1, 2, fr->Rp, err);
            x[j] = x0;
            fr->extra++;
            if (rc)
                return rc;
            double c = (pass ? cv : cd) / h;
            for (int i = 0; i < np; i++)
                fr->D[i + (size_t)j * np] = (pass ? fr->D[i + (size_t)j * np] : 0.0) +
                                            c * (fr->Rp[i] - fr->R0[i]);
        }
    }
    if ((rc = residual_at(fr, fr->t1, fr->p1, fr->v1, fr->a1, 2, fr->Rp, err)))
        return rc;
    fr->extra++;
    if ((rc = effective(w, cv, cd, J, err)))
        return rc;
    for (int j = 0; j < nf; j++) /* J is dense where a rigid coordinate is free */
        for (int i = 0; i < np; i++)
            J->a[i + (size_t)j * np] += fr->D[i + (size_t)j * np];
    return KF_OK;
}

/* Whether a force law acts on the mechanism (a joint's spring, damper or friction, a
 * spring between points, a free coordinate's torque law): the iteration matrix then takes
 * the free rigid coordinates' tangent (flex_jacobian). */
static int force_laws(const kf_flexmech *w, const kf_mech_drive *drives)
{
    for (int k = 0; k < w->nz; k++)
        if (drives[k].mode == KF_DRIVE_FREE && drives[k].law)
            return 1;
    if (w->sm) {
        if (w->sdesc.nspring)
            return 1;
        for (int j = 0; j < w->sdesc.njoint; j++)
            for (int c = 0; c < 3; c++) {
                const kf_sjoint *J = w->sdesc.joints + j;
                if (J->k[c] != 0.0 || J->c[c] != 0.0 || J->F_r[c] != 0.0)
                    return 1;
            }
        return 0;
    }
    kf_mech_desc d;
    kf_mech_describe(w->m, &d);
    if (d.nspring)
        return 1;
    for (int j = 0; j < d.njoint; j++)
        if (d.joints[j].kind != KF_WELD &&
            (d.joints[j].k != 0.0 || d.joints[j].c != 0.0 || d.joints[j].F_r != 0.0))
            return 1;
    return 0;
}

/* The core's own LU: a band LU where the iteration matrix is a narrow band (no free
 * rigid coordinate), else dense (a few dozen unknowns): below LAPACK calls' own cost;
 * a wide band (above 32, where LAPACK's blocked LU pays) by LAPACK. */
static int flex_linsol(kf_linsol **out, const kf_mat *like, void *params, kf_error *err)
{
    (void)params;
    return like->kind == KF_BAND && like->kl > 32 ? kf_linsol_lapack(out, like, err)
                                                  : kf_linsol_small(out, like, err);
}

int kf_flexmech_run(kf_flexmech *w, const kf_mech_drive *drives, const double *z0,
                    const double *zd0, const double *x0, int nt, const double *t,
                    const kf_flex_opts *o, double *states, double *elastic, double *joints,
                    kf_stats *stats, kf_error *err)
{
    if (!w || !drives || !z0 || !zd0 || !t || !o || !states || !elastic)
        return kf_fail(err, KF_EINVAL, "", "kf_flexmech_run: NULL argument");
    int nz = w->nz, nd = w->nd, rc = kf_drives_check(w->ops, w->mech, drives, err);
    if (rc)
        return rc;
    if (nt < 1)
        return kf_fail(err, KF_EINVAL, "t", "need at least one output time, got %d", nt);
    for (int i = 0; i < nt; i++)
        if (!isfinite(t[i]) || (i > 0 && !(t[i] > t[i - 1])))
            return kf_fail(err, KF_EINVAL, "t", "output times must be finite and strictly "
                           "increasing (t[%d] = %g)", i, t[i]);
    if ((rc = kf_check_ga_run(o->dt, o->rho_inf, o->tol, o->max_iter, err)))
        return rc;
    for (int i = 0; i < nz; i++)
        if (!isfinite(z0[i]) || !isfinite(zd0[i]))
            return kf_fail(err, KF_EINVAL, "z0", "initial coordinate %d = %g, rate %g must be "
                           "finite", i, z0[i], zd0[i]);
    if (x0 && !kf_vec_finite(2 * (size_t)nd, x0))
        return kf_fail(err, KF_EINVAL, "d0", "the initial elastic state is not finite");
    if (o->frames && (rc = w->sm ? saxes_check(w, o->naxes, o->saxes, err)
                                 : kf_mech_axes_check(w->m, o->naxes, o->axes, "frames", err)))
        return rc;
    long max_steps = o->max_steps > 0 ? o->max_steps : 100000000L;
    if (o->refine < 0 || o->refine > 1000000)
        return kf_fail(err, KF_EINVAL, "refine", "refine = %d must lie in [0, 10^6]", o->refine);
    int refine = o->refine > 0 ? o->refine : 1;

    classify(w, drives);
    w->kin_ok = 0;
    int nf = w->nzf, np = nf + nd;
    /* p, v, a, alpha (the algorithmic acceleration) at t_n and t_{n+1}; the differences'
     * R0, Rp, pp, vv and D (np x nf) */
    double *buf = kf_calloc((12 + (size_t)nf) * (size_t)np + 1, sizeof(double));
    if (!buf)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the integrator (%d unknowns)", np);
    double *p0 = buf, *v0 = p0 + np, *a0 = v0 + np, *al0 = a0 + np;
    double *p1 = al0 + np, *v1 = p1 + np, *a1 = v1 + np, *al1 = a1 + np;
    /* generalized-alpha (Chung and Hulbert 1993) in Arnold and Bruls' form on the
     * core's stepper; modified Newton: the effective matrix's factor kept across
     * iterations and steps while the step is the same, refactored where the
     * corrections shrink slowly (it changes with the state by O(h omega) and
     * O(h^2 k / m)) */
    int geo = 0;
    for (int l = 0; l < w->nl; l++)
        geo |= w->L[l].geometric;
    int extra = o->extrapolate != 0;
    flex_run fr = {w, drives, t[0], z0, geo, extra};
    fr.rigid_fd = nf > 0 && force_laws(w, drives);
    fr.R0 = al1 + np;
    fr.Rp = fr.R0 + np;
    fr.pp = fr.Rp + np;
    fr.vv = fr.pp + np;
    fr.D = fr.vv + np;
    int bw = 0;
    for (int l = 0; l < w->nl; l++)
        bw = w->L[l].bw > bw ? w->L[l].bw : bw;
    kf_mat like = {KF_DENSE, np, np - 1, np - 1, np, NULL, NULL};
    if (nf == 0 && 3 * bw < np) /* every rigid coordinate prescribed: a band */
        like = (kf_mat){KF_BAND, np, bw, bw, 3 * bw + 1, NULL, NULL};
    kf_ga_problem gp = {np, &like, flex_residual, flex_jacobian, &fr};
    kf_ga_opts go = {.form = KF_GA_ALGORITHMIC, .tol = o->tol, .max_iter = o->max_iter,
                     .refactor_rate = KF_FLEX_RATE, .linsol = flex_linsol};
    /* every rigid coordinate prescribed: the kinematics at t_{n+1} are known, Mbar is the
     * links' constant M, and the right-hand side is affine in (d, v) (the velocity and
     * inertia terms in omega, omega' and the prescribed accelerations, K_G at the step's
     * extrapolated N): the residual is affine in a1, effective() its exact tangent, and
     * one Newton step solves it (the stepper's linear mode; J refactored when it changes) */
    go.linear = extra && nf == 0;
    w->exact = extra;
    kf_ga_coefficients(o->rho_inf, &go);
    kf_ga *ga = NULL;
    kf_stats st = {0};
    double tcur = t[0];
    if ((rc = kf_ga_create(&ga, &gp, &go, err)))
        goto done;
    /* prescribed coordinates start where their drives are */
    for (int i = 0; i < nf; i++) {
        p0[i] = z0[w->free_idx[i]];
        v0[i] = zd0[w->free_idx[i]];
    }
    if (x0) {
        memcpy(p0 + nf, x0, (size_t)nd * sizeof(double));
        memcpy(v0 + nf, x0 + nd, (size_t)nd * sizeof(double));
    }
    /* the initial accelerations */
    rc = evaluate(w, drives, tcur, t[0], z0, p0, v0, err);
    st.evaluations++;
    if (!rc)
        rc = accelerations(w, p0 + nf, a0, err);
    if (rc) {
        if (rc == KF_EGEOM) {
            kf_error e = *err;
            kf_fail(err, KF_EGEOM, e.arg, "initial state: %.400s", e.msg);
        }
        goto done;
    }
    memcpy(al0, a0, (size_t)np * sizeof(double));
    for (int l = 0; l < w->nl; l++) {
        memcpy(w->L[l].kgn, w->L[l].kg, sizeof w->L[l].kgn);
        memcpy(w->L[l].kgp, w->L[l].kg, sizeof w->L[l].kgp);
    }
    double hprev = 0.0;
    int k = 0;
    long left = 0, taken = 0;
    double tstart = tcur, hstep = 0.0;
    for (;;) {
        /* an output at tcur */
        while (k < nt && t[k] <= tcur) {
            double *row = states + (size_t)k * 4 * nz;
            for (int i = 0; i < nz; i++) {
                row[i] = w->z[i];
                row[nz + i] = w->zd[i];
                row[2 * nz + i] = w->zdd[i];
                row[3 * nz + i] = w->drive[i];
            }
            memcpy(elastic + (size_t)k * 2 * nd, p0 + nf, (size_t)nd * sizeof(double));
            memcpy(elastic + (size_t)k * 2 * nd + nd, v0 + nf, (size_t)nd * sizeof(double));
            if (joints)
                memcpy(joints + (size_t)k * w->njf * w->nj, w->fj,
                       (size_t)w->njf * w->nj * sizeof(double));
            if (o->kin) /* planar: q, q', q'' (3 n); spatial: q (7 nbody), u, u' (2 n) */
                output_kinematics(w, o->kin + (size_t)k * kf_flexmech_kin_width(w));
            for (int i = 0; o->frames && i < o->naxes; i++) {
                kf_frame *f = o->frames + (size_t)k * o->naxes + i;
                if (w->sm)
                    kf_smech_frame(w->sm, &w->skin, o->saxes + i, f);
                else
                    kf_mech_frame(w->m, &w->kin, o->axes[i].body, o->axes[i].o, o->axes[i].phi, f);
            }
            k++;
        }
        if (k >= nt)
            break;
        /* the step: equal steps of at most dt from the last output to the next */
        if (left == 0) {
            /* 1e-9: intervals equal to round-off (np.linspace) take the same count, not
             * one more step where an interval is an ulp longer than dt */
            double span = t[k] - tcur, ns = ceil(span / o->dt * (1.0 - 1e-9));
            ns = (ns < 1.0 ? 1.0 : ns) * (double)refine;
            left = ns > 1e9 ? 1000000000 : (long)ns;
            tstart = tcur;
            hstep = span / (double)left;
            taken = 0;
        }
        double t1 = left == 1 ? t[k] : tstart + (double)(taken + 1) * hstep;
        double h = t1 - tcur;
        if (st.steps >= max_steps) {
            rc = kf_fail(err, KF_ESTEPS, "dt", "max_steps = %ld reached at t = %.9g s", max_steps,
                         tcur);
            goto done;
        }
        /* K_G over the step at the axial force extrapolated linearly from the converged
         * states at t_n and t_{n-1} (constant over the first step): its error O(h^2),
         * so the scheme stays second order, and Newton's iterations see a fixed K_G */
        if (geo && extra)
            for (int l = 0; l < w->nl; l++) {
                flink *L = w->L + l;
                double r = hprev > 0.0 ? h / hprev : 0.0;
                for (int c = 0; c < L->nkg; c++)
                    L->kg[c] = L->kgn[c] + r * (L->kgn[c] - L->kgp[c]);
            }
        /* Newton on Mbar(p) a - rhs(p, v) = 0 from a1 = a0 (one step where it is affine) */
        if ((rc = kf_ga_step(ga, t1, h, p0, v0, a0, al0, p1, v1, a1, al1, &st, err)))
            goto done;
        /* at an output time the kinematics and forces of the converged state; else, with
         * K_G, its axial force for the next step's extrapolation: from the converged state
         * (one step: the residual was evaluated at a1 = 0; its absolute forces suffice),
         * or from Newton's last iterate (within its tolerance of the converged state) */
        if (t1 == t[k] || (geo && go.linear)) {
            rc = evaluate_to(w, drives, t1, t[0], z0, p1, v1, t1 == t[k], err);
            st.evaluations++;
            if (!rc)
                rc = reactions(w, a1, err);
            if (rc)
                goto done;
        } else if (geo && extra && (rc = reactions(w, a1, err)))
            goto done;
        for (int l = 0; geo && extra && l < w->nl; l++) {
            flink *L = w->L + l;
            memcpy(L->kgp, L->kgn, sizeof L->kgp);
            memcpy(L->kgn, L->kg, sizeof L->kgn);
        }
        hprev = h;
        memcpy(p0, p1, 4 * (size_t)np * sizeof(double)); /* p, v, a, alpha */
        tcur = t1;
        left--;
        taken++;
        st.steps++;
        if (o->progress && o->progress(tcur, o->progress_params)) {
            rc = kf_fail(err, KF_ECALLBACK, "progress", "stopped at t = %.9g s", tcur);
            goto done;
        }
    }
done:
    st.evaluations += fr.extra;
    if (stats)
        *stats = st;
    kf_ga_free(ga);
    free(buf);
    return rc;
}
