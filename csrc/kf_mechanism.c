/*
 * kf_mechanism.c -- planar mechanisms of rigid bodies by Kane's method
 * (docs/theory.md section 5): the description, the loop closure, velocities
 * and accelerations through the constraint Jacobian, Kane's projection, the
 * joint forces and the rigid motion in time.
 *
 * Top to bottom:
 *   1. the small dense solve every part of the mechanism code goes through;
 *   2. Kane's projection for any mechanism given by A, c, masses and forces;
 *   3. the description (kf_mech_create) and the equations of one joint or
 *      coordinate: value, gradient and the velocity term gamma of its second
 *      derivative, all from one rule for a point fixed on a body;
 *   4. positions by Newton's method (with the branch of a guess rule, or
 *      continued from the last solution), rates, applied forces, joint forces
 *      and body frames;
 *   5. the rigid motion in time: Kane's equations as the right-hand side of
 *      the core's ODE driver (kf_ode.c), landing on every output time.
 *
 * Body b has q_b = (x, y, theta), its reference point (mass centre) and angle;
 * a point p fixed on it (body axes) is at P = r + R p, with
 *   P' = r' + omega J R p,   P'' = r'' + eps J R p - omega^2 R p,
 * J the rotation by +90 degrees.  The ground is body -1 (r = 0, theta = 0, p
 * global).
 */
#include "kf_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* ================================================================ 1. the small dense solve */

/*
 * The one dense solve of the mechanism code (Newton, rates, Kane, joint
 * forces, the coupled elastic system): LU with partial pivoting of the n x n
 * column-major a in place when factor is set, then nrhs solves of b (n x
 * nrhs, column-major).  Plain loops (kf_small_lu_*, kf_matrix.c), not
 * LAPACK: these systems are a few dozen unknowns solved at every evaluation,
 * where a LAPACK call costs more than its arithmetic and a threaded BLAS
 * serializes concurrent sweeps on a lock (docs/theory.md section 5.7).
 */
int kf_mech_dense_solve(int n, double *a, int *ipiv, int factor, int nrhs, double *b,
                        kf_error *err)
{
    int rc = factor ? kf_small_lu_factor(n, a, n, ipiv) : KF_OK;
    if (!rc && nrhs > 0)
        rc = kf_small_lu_solve(n, a, n, ipiv, nrhs, b, n);
    if (rc == KF_ESING)
        return kf_fail(err, KF_ESING, "", "a mechanism matrix is singular (zero pivot in the LU "
                       "of an %d x %d system)", n, n);
    if (rc == KF_ERANGE)
        return kf_fail(err, KF_ERANGE, "", "a mechanism system has a non-finite entry (values "
                       "beyond the double range)");
    return KF_OK;
}

/* ================================================================ 2. Kane's projection */

size_t kf_kane_work_size(int nr, int nu)
{
    (void)nu;
    return nr > 0 ? (size_t)nr : 1;
}

int kf_kane_solve(int nr, int nu, const double *mass, const double *A, const double *c,
                  const double *Q, const double *tau, const unsigned char *prescribed,
                  double *udot, double *drive, double *work, kf_error *err)
{
    if (nu < 1 || nu > KF_KANE_MAX_NU || nr < nu)
        return kf_fail(err, KF_EINVAL, "nu", "nu = %d must be in 1..%d and <= nr = %d", nu,
                       KF_KANE_MAX_NU, nr);
    if (!mass || !A || !c || !Q || !udot || !work)
        return kf_fail(err, KF_EINVAL, "", "kf_kane_solve: NULL argument");

    /* g = Q - Mrig c: the applied forces less the velocity-dependent inertia */
    double *g = work;
    for (int r = 0; r < nr; r++)
        g[r] = Q[r] - mass[r] * c[r];
    /* f = A^T g + tau, M = A^T Mrig A */
    double f[KF_KANE_MAX_NU], M[KF_KANE_MAX_NU * KF_KANE_MAX_NU];
    for (int i = 0; i < nu; i++) {
        double s = tau ? tau[i] : 0.0;
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
    return kf_kane_reduce(nu, M, f, prescribed, udot, drive, err);
}

int kf_kane_reduce(int nu, const double *M, const double *f, const unsigned char *prescribed,
                   double *udot, double *drive, kf_error *err)
{
    if (nu < 1 || nu > KF_KANE_MAX_NU)
        return kf_fail(err, KF_EINVAL, "nu", "nu = %d must be in 1..%d", nu, KF_KANE_MAX_NU);
    /* the free coordinates: M_ff udot_f = f_f - M_fp udot_p */
    int free_idx[KF_KANE_MAX_NU], ipiv[KF_KANE_MAX_NU], nf = 0;
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
        int rc = kf_mech_dense_solve(nf, Mf, ipiv, 1, 1, rhs, err);
        if (rc == KF_ESING)
            return kf_fail(err, KF_ESING, "mass",
                           "the generalized mass A^T M A is singular (masses that cannot move "
                           "with the free coordinates?)");
        if (rc)
            return rc;
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

/* ================================================================ 3. the description */

struct kf_mech {
    int nb, n, m, nz, nj, ns;
    double *mass, *inertia, *q0; /* q0: the drawing, assembled at creation (no guess rule) */
    kf_joint *joints;
    kf_spring *springs;
    kf_coord *coords;
    double g[2];
    kf_mech_guess_fn *guess;
    kf_mech_rates_fn *rates;
    void *guess_params;
    void (*guess_free)(void *);
    int *jrow;  /* first equation of each joint */
    double L;   /* length scale: the largest point offset or drawing coordinate */
    double *rs; /* n row scales of J: L for the angle rows, 1 for the length rows */
};

static int joint_rows(int kind) { return kind == KF_WELD ? 3 : 2; }

void kf_mech_free(kf_mech *m)
{
    if (!m)
        return;
    if (m->guess_free)
        m->guess_free(m->guess_params);
    free(m->mass);
    free(m->inertia);
    free(m->q0);
    free(m->joints);
    free(m->springs);
    free(m->coords);
    free(m->jrow);
    free(m->rs);
    free(m);
}

int kf_mech_nbody(const kf_mech *m) { return m->nb; }
int kf_mech_njoint(const kf_mech *m) { return m->nj; }
int kf_mech_ncoord(const kf_mech *m) { return m->nz; }

void kf_mech_describe(const kf_mech *m, kf_mech_desc *d)
{
    memset(d, 0, sizeof *d);
    d->nbody = m->nb;
    d->mass = m->mass;
    d->inertia = m->inertia;
    d->q0 = m->q0;
    d->njoint = m->nj;
    d->joints = m->joints;
    d->nspring = m->ns;
    d->springs = m->springs;
    d->ncoord = m->nz;
    d->coords = m->coords;
    d->gravity[0] = m->g[0];
    d->gravity[1] = m->g[1];
}

void kf_mech_mass(const kf_mech *m, double *mass)
{
    for (int b = 0; b < m->nb; b++) {
        mass[3 * b] = mass[3 * b + 1] = m->mass[b];
        mass[3 * b + 2] = m->inertia[b];
    }
}

static int finite2(const double *v) { return isfinite(v[0]) && isfinite(v[1]); }

static int check_body(const kf_mech_desc *d, int b, const char *what, int j, kf_error *err)
{
    if (b < -1 || b >= d->nbody)
        return kf_fail(err, KF_EINVAL, what, "%s[%d].body = %d is not a body (0..%d) or the "
                       "ground (-1)", what, j, b, d->nbody - 1);
    return KF_OK;
}

static int check_desc(const kf_mech_desc *d, kf_error *err)
{
    if (d->nbody < 1 || d->nbody > 100000)
        return kf_fail(err, KF_EINVAL, "nbody", "nbody = %d must be in 1..100000", d->nbody);
    if (!d->mass || !d->inertia)
        return kf_fail(err, KF_EINVAL, "mass", "masses and inertias are NULL");
    for (int b = 0; b < d->nbody; b++) {
        if (!(isfinite(d->mass[b]) && d->mass[b] >= 0.0))
            return kf_fail(err, KF_EINVAL, "mass", "mass[%d] = %g must be finite and >= 0", b,
                           d->mass[b]);
        if (!(isfinite(d->inertia[b]) && d->inertia[b] >= 0.0))
            return kf_fail(err, KF_EINVAL, "inertia", "inertia[%d] = %g must be finite and >= 0",
                           b, d->inertia[b]);
    }
    if (!d->q0 && !d->guess)
        return kf_fail(err, KF_EINVAL, "q0", "the drawing q0 is needed without a guess rule");
    if (d->q0)
        for (int i = 0; i < 3 * d->nbody; i++)
            if (!isfinite(d->q0[i]))
                return kf_fail(err, KF_EINVAL, "q0", "q0[%d] = %g must be finite", i, d->q0[i]);
    if (d->njoint < 0 || (d->njoint > 0 && !d->joints))
        return kf_fail(err, KF_EINVAL, "joints", "njoint = %d with joints %s", d->njoint,
                       d->joints ? "given" : "NULL");
    int m = 0;
    for (int j = 0; j < d->njoint; j++) {
        const kf_joint *J = d->joints + j;
        if (J->kind < KF_REVOLUTE || J->kind > KF_WELD)
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d].kind = %d is not revolute (0), "
                           "prismatic (1) or weld (2)", j, J->kind);
        for (int s = 0; s < 2; s++) {
            int rc = check_body(d, J->body[s], "joints", j, err);
            if (rc)
                return rc;
        }
        if (J->body[0] == J->body[1])
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d] joins body %d to itself", j,
                           J->body[0]);
        if (!finite2(J->p0) || !finite2(J->p1) || !finite2(J->axis) || !isfinite(J->angle))
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d]: points, axis and angle must "
                           "be finite", j);
        if (J->kind == KF_PRISMATIC && !(hypot(J->axis[0], J->axis[1]) > 0.0))
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d].axis = (%g, %g) must not be "
                           "zero", j, J->axis[0], J->axis[1]);
        if (!(J->k >= 0.0 && J->c >= 0.0 && J->F_r >= 0.0 && isfinite(J->k) && isfinite(J->c) &&
              isfinite(J->F_r) && isfinite(J->s0)))
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d]: k = %g, c = %g, F_r = %g must "
                           "be finite and >= 0 (s0 = %g finite)", j, J->k, J->c, J->F_r, J->s0);
        if (J->F_r > 0.0 && !(J->v_F > 0.0 && isfinite(J->v_F)))
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d].v_F = %g must be > 0 with "
                           "friction", j, J->v_F);
        if (J->kind == KF_WELD && (J->k != 0.0 || J->c != 0.0 || J->F_r != 0.0))
            return kf_fail(err, KF_EINVAL, "joints", "joints[%d] is a weld: it has no coordinate "
                           "for a spring, damper or friction", j);
        m += joint_rows(J->kind);
    }
    if (d->nspring < 0 || (d->nspring > 0 && !d->springs))
        return kf_fail(err, KF_EINVAL, "springs", "nspring = %d with springs NULL", d->nspring);
    for (int s = 0; s < d->nspring; s++) {
        const kf_spring *S = d->springs + s;
        for (int e = 0; e < 2; e++) {
            int rc = check_body(d, S->body[e], "springs", s, err);
            if (rc)
                return rc;
        }
        if (S->body[0] == S->body[1])
            return kf_fail(err, KF_EINVAL, "springs", "springs[%d] joins body %d to itself", s,
                           S->body[0]);
        if (!finite2(S->p0) || !finite2(S->p1) || !(isfinite(S->k) && S->k >= 0.0) ||
            !(isfinite(S->c) && S->c >= 0.0) || !(isfinite(S->L0) && S->L0 >= 0.0))
            return kf_fail(err, KF_EINVAL, "springs", "springs[%d]: points finite, k = %g, c = "
                           "%g, L0 = %g finite and >= 0", s, S->k, S->c, S->L0);
    }
    if (d->ncoord < 1 || d->ncoord > KF_KANE_MAX_NU || !d->coords)
        return kf_fail(err, KF_EINVAL, "coords", "ncoord = %d must be in 1..%d", d->ncoord,
                       KF_KANE_MAX_NU);
    for (int k = 0; k < d->ncoord; k++) {
        const kf_coord *C = d->coords + k;
        if (C->kind < KF_COORD_X || C->kind > KF_COORD_JOINT)
            return kf_fail(err, KF_EINVAL, "coords", "coords[%d].kind = %d is not x, y, angle "
                           "(0..2) or joint (3)", k, C->kind);
        int nmax = C->kind == KF_COORD_JOINT ? d->njoint : d->nbody;
        if (C->index < 0 || C->index >= nmax)
            return kf_fail(err, KF_EINVAL, "coords", "coords[%d].index = %d is not a %s (0..%d)",
                           k, C->index, C->kind == KF_COORD_JOINT ? "joint" : "body", nmax - 1);
        if (C->kind == KF_COORD_JOINT && d->joints[C->index].kind == KF_WELD)
            return kf_fail(err, KF_EINVAL, "coords", "coords[%d]: joint %d is a weld, which has "
                           "no coordinate", k, C->index);
        if (!memchr(C->name, '\0', sizeof C->name) || !C->name[0])
            return kf_fail(err, KF_EINVAL, "coords", "coords[%d].name must be a non-empty "
                           "string of at most %zu characters", k, sizeof C->name - 1);
    }
    if (m + d->ncoord != 3 * d->nbody)
        return kf_fail(err, KF_EINVAL, "coords", "the joints leave 3 x %d - %d = %d degrees of "
                       "freedom, but %d independent coordinates are given", d->nbody, m,
                       3 * d->nbody - m, d->ncoord);
    if (!finite2(d->gravity))
        return kf_fail(err, KF_EINVAL, "gravity", "gravity = (%g, %g) must be finite",
                       d->gravity[0], d->gravity[1]);
    return KF_OK;
}

/* Is equation row i (of the n rows: constraints, then coordinates) an angle? */
static int angle_row(const kf_mech *m, int i)
{
    if (i >= m->m) {
        const kf_coord *C = m->coords + (i - m->m);
        return C->kind == KF_COORD_ANGLE ||
               (C->kind == KF_COORD_JOINT && m->joints[C->index].kind == KF_REVOLUTE);
    }
    for (int j = m->nj - 1; j >= 0; j--)
        if (i >= m->jrow[j]) {
            int r = i - m->jrow[j];
            return (m->joints[j].kind == KF_PRISMATIC && r == 1) ||
                   (m->joints[j].kind == KF_WELD && r == 2);
        }
    return 0;
}

static void coordinates(const kf_mech *m, const double *q, double *z);

int kf_mech_create(kf_mech **out, const kf_mech_desc *d, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    int rc = d ? check_desc(d, err) : kf_fail(err, KF_EINVAL, "desc", "description is NULL");
    if (rc) {
        if (d && d->guess_free)
            d->guess_free(d->guess_params);
        return rc;
    }
    kf_mech *m = kf_calloc(1, sizeof *m);
    if (!m) {
        if (d->guess_free)
            d->guess_free(d->guess_params);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a mechanism");
    }
    m->guess = d->guess;
    m->rates = d->guess ? d->rates : NULL;
    m->guess_params = d->guess_params;
    m->guess_free = d->guess_free;
    int nb = m->nb = d->nbody, n = m->n = 3 * nb;
    m->nj = d->njoint;
    m->ns = d->nspring;
    m->nz = d->ncoord;
    m->mass = kf_calloc((size_t)nb, sizeof(double));
    m->inertia = kf_calloc((size_t)nb, sizeof(double));
    m->q0 = kf_calloc((size_t)n, sizeof(double));
    m->joints = kf_calloc((size_t)(m->nj > 0 ? m->nj : 1), sizeof(kf_joint));
    m->springs = kf_calloc((size_t)(m->ns > 0 ? m->ns : 1), sizeof(kf_spring));
    m->coords = kf_calloc((size_t)m->nz, sizeof(kf_coord));
    m->jrow = kf_calloc((size_t)(m->nj > 0 ? m->nj : 1), sizeof(int));
    m->rs = kf_calloc((size_t)n, sizeof(double));
    if (!m->mass || !m->inertia || !m->q0 || !m->joints || !m->springs || !m->coords ||
        !m->jrow || !m->rs) {
        kf_mech_free(m);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a mechanism of %d bodies", nb);
    }
    memcpy(m->mass, d->mass, (size_t)nb * sizeof(double));
    memcpy(m->inertia, d->inertia, (size_t)nb * sizeof(double));
    if (d->q0)
        memcpy(m->q0, d->q0, (size_t)n * sizeof(double));
    if (m->nj)
        memcpy(m->joints, d->joints, (size_t)m->nj * sizeof(kf_joint));
    if (m->ns)
        memcpy(m->springs, d->springs, (size_t)m->ns * sizeof(kf_spring));
    memcpy(m->coords, d->coords, (size_t)m->nz * sizeof(kf_coord));
    m->g[0] = d->gravity[0];
    m->g[1] = d->gravity[1];
    /* unit sliding axes; the equation rows; the length scale */
    double L = 0.0;
    for (int j = 0; j < m->nj; j++) {
        kf_joint *J = m->joints + j;
        if (J->kind == KF_PRISMATIC) {
            double a = hypot(J->axis[0], J->axis[1]);
            J->axis[0] /= a;
            J->axis[1] /= a;
        }
        m->jrow[j] = m->m;
        m->m += joint_rows(J->kind);
        L = fmax(L, fmax(hypot(J->p0[0], J->p0[1]), hypot(J->p1[0], J->p1[1])));
    }
    for (int s = 0; s < m->ns; s++)
        L = fmax(L, fmax(hypot(m->springs[s].p0[0], m->springs[s].p0[1]),
                         hypot(m->springs[s].p1[0], m->springs[s].p1[1])));
    for (int b = 0; d->q0 && b < nb; b++)
        L = fmax(L, hypot(m->q0[3 * b], m->q0[3 * b + 1]));
    m->L = L > 0.0 ? L : 1.0;
    for (int i = 0; i < n; i++)
        m->rs[i] = angle_row(m, i) ? m->L : 1.0;
    /* without a guess rule, the drawing must assemble: positions are continued from it */
    if (!m->guess) {
        kf_mech_kin k;
        double *z0 = kf_calloc((size_t)m->nz, sizeof(double));
        rc = z0 ? kf_mech_kin_alloc(m, &k, err)
                : kf_fail(err, KF_ENOMEM, "", "cannot allocate %d coordinates", m->nz);
        if (!rc) { /* Newton from the drawing itself */
            coordinates(m, m->q0, z0);
            memcpy(k.q, m->q0, (size_t)n * sizeof(double));
            rc = kf_closure_assemble(k.cl, z0, 0, "the drawing", err);
            if (rc == KF_EGEOM) {
                kf_error e = *err;
                rc = kf_fail(err, KF_EGEOM, "q0", "the drawing q0 does not assemble: %.400s",
                             e.msg);
            }
            if (!rc)
                memcpy(m->q0, k.q, (size_t)n * sizeof(double));
            kf_mech_kin_free(&k);
        }
        free(z0);
        if (rc) {
            kf_mech_free(m);
            return rc;
        }
    }
    *out = m;
    return KF_OK;
}

/* ---------------------------------------------------------------- one rule for every row */

/* A body's pose and rates at (q, qd): r, theta, (cos, sin), v, omega. */
typedef struct {
    double r[2], c, s, v[2], om;
} pose;

static void body_pose(const double *q, const double *qd, const double *cs, int b, pose *P)
{
    memset(P, 0, sizeof *P);
    P->c = 1.0;
    if (b < 0)
        return;
    P->r[0] = q[3 * b];
    P->r[1] = q[3 * b + 1];
    P->c = cs ? cs[2 * b] : cos(q[3 * b + 2]);
    P->s = cs ? cs[2 * b + 1] : sin(q[3 * b + 2]);
    if (qd) {
        P->v[0] = qd[3 * b];
        P->v[1] = qd[3 * b + 1];
        P->om = qd[3 * b + 2];
    }
}

/* R p for a pose */
static void rot(const pose *P, const double *p, double *Rp)
{
    Rp[0] = P->c * p[0] - P->s * p[1];
    Rp[1] = P->s * p[0] + P->c * p[1];
}

/* One equation row: its value, gradient over q (entries g[col * stride]) and
 * gamma = -(the part of its second derivative without q''). */
typedef struct {
    double *g;
    int stride;
    double val, gam;
} eqrow;

static void gadd(eqrow *e, int b, double gx, double gy, double gt)
{
    if (b < 0 || !e->g)
        return;
    e->g[(size_t)(3 * b) * e->stride] += gx;
    e->g[(size_t)(3 * b + 1) * e->stride] += gy;
    e->g[(size_t)(3 * b + 2) * e->stride] += gt;
}

/* Component `comp` (0 = x, 1 = y) of P1 - P0, P_i = point p_i of body b_i. */
static void row_point(const double *q, const double *qd, const double *cs, int b0, const double *p0, int b1,
                      const double *p1, int comp, eqrow *e)
{
    pose P0, P1;
    body_pose(q, qd, cs, b0, &P0);
    body_pose(q, qd, cs, b1, &P1);
    double R0p[2], R1p[2];
    rot(&P0, p0, R0p);
    rot(&P1, p1, R1p);
    e->val = P1.r[comp] + R1p[comp] - P0.r[comp] - R0p[comp];
    /* d(R p)/dtheta = J R p = (-Rp_y, Rp_x) */
    double j1 = comp == 0 ? -R1p[1] : R1p[0], j0 = comp == 0 ? -R0p[1] : R0p[0];
    gadd(e, b1, comp == 0, comp == 1, j1);
    gadd(e, b0, -(comp == 0), -(comp == 1), -j0);
    e->gam = P1.om * P1.om * R1p[comp] - P0.om * P0.om * R0p[comp];
}

/* theta1 - theta0 - offset */
static void row_angle(const double *q, int b0, int b1, double offset, eqrow *e)
{
    double t0 = b0 < 0 ? 0.0 : q[3 * b0 + 2], t1 = b1 < 0 ? 0.0 : q[3 * b1 + 2];
    e->val = t1 - t0 - offset;
    gadd(e, b1, 0.0, 0.0, 1.0);
    gadd(e, b0, 0.0, 0.0, -1.0);
    e->gam = 0.0;
}

/* u0 . (P1 - P0), u a direction fixed in body b0 (its axes). */
static void row_along(const double *q, const double *qd, const double *cs, int b0, const double *p0, int b1,
                      const double *p1, const double *u, eqrow *e)
{
    pose P0, P1;
    body_pose(q, qd, cs, b0, &P0);
    body_pose(q, qd, cs, b1, &P1);
    double R0p[2], R1p[2], u0[2];
    rot(&P0, p0, R0p);
    rot(&P1, p1, R1p);
    rot(&P0, u, u0);
    double Ju0[2] = {-u0[1], u0[0]};
    double d[2] = {P1.r[0] + R1p[0] - P0.r[0] - R0p[0], P1.r[1] + R1p[1] - P0.r[1] - R0p[1]};
    e->val = u0[0] * d[0] + u0[1] * d[1];
    gadd(e, b1, u0[0], u0[1], -u0[0] * R1p[1] + u0[1] * R1p[0]);
    gadd(e, b0, -u0[0], -u0[1],
         Ju0[0] * d[0] + Ju0[1] * d[1] - (-u0[0] * R0p[1] + u0[1] * R0p[0]));
    /* d' = v1 + om1 J R1p - v0 - om0 J R0p; second derivative's velocity part:
     * -om0^2 u0.d + 2 om0 (J u0).d' + u0.(-om1^2 R1p + om0^2 R0p) */
    double dd[2] = {P1.v[0] - P1.om * R1p[1] - P0.v[0] + P0.om * R0p[1],
                    P1.v[1] + P1.om * R1p[0] - P0.v[1] - P0.om * R0p[0]};
    double b = -P0.om * P0.om * e->val + 2.0 * P0.om * (Ju0[0] * dd[0] + Ju0[1] * dd[1]) +
               u0[0] * (-P1.om * P1.om * R1p[0] + P0.om * P0.om * R0p[0]) +
               u0[1] * (-P1.om * P1.om * R1p[1] + P0.om * P0.om * R0p[1]);
    e->gam = -b;
}

/* Row r of joint J's constraint. */
static void joint_row(const kf_joint *J, int r, const double *q, const double *qd,
                      const double *cs, eqrow *e)
{
    if (J->kind == KF_PRISMATIC) {
        if (r == 0) {
            double nrm[2] = {-J->axis[1], J->axis[0]};
            row_along(q, qd, cs, J->body[0], J->p0, J->body[1], J->p1, nrm, e);
        } else {
            row_angle(q, J->body[0], J->body[1], J->angle, e);
        }
    } else if (r < 2) {
        row_point(q, qd, cs, J->body[0], J->p0, J->body[1], J->p1, r, e);
    } else {
        row_angle(q, J->body[0], J->body[1], J->angle, e);
    }
}

/* A joint's coordinate s: relative angle (revolute) or sliding distance (prismatic). */
static void joint_coordinate(const kf_joint *J, const double *q, const double *qd,
                             const double *cs, eqrow *e)
{
    if (J->kind == KF_PRISMATIC)
        row_along(q, qd, cs, J->body[0], J->p0, J->body[1], J->p1, J->axis, e);
    else
        row_angle(q, J->body[0], J->body[1], 0.0, e);
}

/* Independent coordinate k as a row. */
static void coord_row(const kf_mech *m, int k, const double *q, const double *qd,
                      const double *cs, eqrow *e)
{
    const kf_coord *C = m->coords + k;
    if (C->kind == KF_COORD_JOINT) {
        joint_coordinate(m->joints + C->index, q, qd, cs, e);
        return;
    }
    int i = 3 * C->index + C->kind;
    e->val = q[i];
    if (e->g)
        e->g[(size_t)i * e->stride] += 1.0;
    e->gam = 0.0;
}

/* All n rows at (q, qd): res (values; the coordinate rows f(q)), J (n x n
 * column-major gradients, zeroed here) and gam (needs qd); any may be NULL.
 * cs: 2 nbody doubles of workspace, the bodies' (cos, sin), each evaluated
 * once here instead of once per row it enters. */
static void eval_rows(const kf_mech *m, const double *q, const double *qd, double *cs,
                      double *res, double *J, double *gam)
{
    int n = m->n;
    for (int b = 0; b < m->nb; b++) {
        cs[2 * b] = cos(q[3 * b + 2]);
        cs[2 * b + 1] = sin(q[3 * b + 2]);
    }
    if (J)
        memset(J, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++) {
        eqrow e = {J ? J + i : NULL, n, 0.0, 0.0};
        if (i < m->m) {
            int j = m->nj - 1;
            while (i < m->jrow[j])
                j--;
            joint_row(m->joints + j, i - m->jrow[j], q, qd, cs, &e);
        } else {
            coord_row(m, i - m->m, q, qd, cs, &e);
        }
        if (res)
            res[i] = e.val;
        if (gam)
            gam[i] = e.gam;
    }
}

static void coordinates(const kf_mech *m, const double *q, double *z)
{
    for (int k = 0; k < m->nz; k++) {
        eqrow e = {NULL, 0, 0.0, 0.0};
        coord_row(m, k, q, NULL, NULL, &e);
        z[k] = e.val;
    }
}

/* ================================================================ 4. positions and rates
 *
 * The loop closure is kf_closure.c's, for every kinematics; the plane gives it
 * its rows (scaled to lengths), the update q += x and the drawing.
 */

static int planar_rows(const void *mech, void *kin, const double *q, const double *z,
                       double *res, double *J, int *bad)
{
    const kf_mech *m = mech;
    kf_mech_kin *k = kin;
    int n = m->n;
    (void)bad;
    eval_rows(m, q, NULL, k->cs, res, J, NULL);
    for (int i = 0; res && i < n; i++)
        res[i] = (i < m->m ? res[i] : res[i] - z[i - m->m]) * m->rs[i];
    for (int j = 0; J && j < n; j++) { /* rows by rs, angle columns over L */
        double cs = j % 3 == 2 ? m->L : 1.0;
        for (int i = 0; i < n; i++)
            J[i + (size_t)j * n] *= m->rs[i] / cs;
    }
    return 0;
}

static int planar_gamma(const void *mech, void *kin, const double *u, double *gam, int *bad)
{
    kf_mech_kin *k = kin;
    (void)bad;
    eval_rows(mech, k->q, u, k->cs, NULL, NULL, gam);
    return 0;
}

static void planar_move(const void *mech, double *q, const double *x)
{
    const kf_mech *m = mech;
    for (int i = 0; i < m->n; i++)
        q[i] += x[i] / (i % 3 == 2 ? m->L : 1.0);
}

/* Scaled size of a change of q: lengths, angles times L. */
static double planar_distance(const void *mech, const double *a, const double *b)
{
    const kf_mech *m = mech;
    double s = 0.0;
    for (int i = 0; i < m->n; i++)
        s = fmax(s, fabs(a[i] - b[i]) * (i % 3 == 2 ? m->L : 1.0));
    return s;
}

static int planar_drawing(const void *mech, void *kin, double *q, double *z, kf_error *err)
{
    const kf_mech *m = mech;
    (void)kin;
    (void)err;
    memcpy(q, m->q0, (size_t)m->n * sizeof(double));
    coordinates(m, q, z);
    return KF_OK;
}

static const char *planar_name(const void *m, int k) { return ((const kf_mech *)m)->coords[k].name; }

static int planar_is_angle(const void *mech, int k)
{
    const kf_mech *m = mech;
    return angle_row(m, m->m + k);
}

static const kf_closure_ops planar_closure = {
    .rows = planar_rows, .gamma = planar_gamma, .move = planar_move,
    .distance = planar_distance, .drawing = planar_drawing, .coord_name = planar_name,
    .coord_is_angle = planar_is_angle, .singular = "a dead point"};

int kf_mech_kin_alloc(const kf_mech *m, kf_mech_kin *k, kf_error *err)
{
    memset(k, 0, sizeof *k);
    int n = k->n = m->n, nz = k->nz = m->nz;
    /* z (nz); q, qd, qdd, c (n each); A (n nz); cs (2 nbody) of eval_rows; aux: r (n) of
     * kf_mech_reactions, mass, Q and Kane's work (n each) of kf_mech_dynamics, two
     * gradients (n each) of kf_mech_applied */
    size_t nd = (size_t)nz + 4 * (size_t)n + (size_t)n * nz + 2 * (size_t)m->nb + 6 * (size_t)n;
    double *buf = kf_calloc(nd, sizeof(double));
    if (!buf)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a mechanism's workspace (n = %d)",
                       n);
    double *p = buf;
    k->z = p, p += nz;
    k->q = p, p += n;
    k->qd = p, p += n;
    k->qdd = p, p += n;
    k->c = p, p += n;
    k->A = p, p += (size_t)n * nz;
    k->cs = p, p += 2 * (size_t)m->nb;
    k->aux = p;
    kf_closure_shape shape = {.n = n, .nq = n, .nz = nz, .per_body = 3, .lengths = 2,
                              .L = m->L, .rs = m->rs};
    int rc = kf_closure_create(&k->cl, &planar_closure, m, k, &shape, k->q, k->z, k->A, k->c,
                               err);
    if (rc) {
        free(buf);
        memset(k, 0, sizeof *k);
    }
    return rc;
}

void kf_mech_kin_free(kf_mech_kin *k)
{
    if (!k)
        return;
    free(k->z); /* the start of the one buffer */
    kf_closure_free(k->cl);
    memset(k, 0, sizeof *k);
}

/*
 * Positions at z.  With a guess rule: its position, kept as it is where it
 * solves the rows to round-off, else Newton from it; with its rate rule too,
 * no Jacobian at all.  Without: continued from the last solution.
 */
static int position(const kf_mech *m, const double *z, kf_mech_kin *k, kf_error *err)
{
    if (!m->guess)
        return kf_closure_position(k->cl, z, err);
    for (int i = 0; i < m->nz; i++)
        if (!isfinite(z[i]))
            return kf_fail(err, KF_EINVAL, m->coords[i].name, "%s = %g must be finite",
                           m->coords[i].name, z[i]);
    int rc = m->guess(z, k->q, m->guess_params, err);
    if (rc)
        return rc;
    /* a closed-form rule with its rate rule is exact: no Jacobian (kf_mech_kinematics) */
    return m->rates ? kf_closure_placed(k->cl, z, err)
                    : kf_closure_assemble(k->cl, z, 1, "the assembly rule's position", err);
}

int kf_mech_kinematics(const kf_mech *m, const double *z, const double *zd, const double *zdd,
                       kf_mech_kin *k, kf_error *err)
{
    if (!m || !z || !k || k->n != m->n || k->nz != m->nz)
        return kf_fail(err, KF_EINVAL, "", "kf_mech_kinematics: NULL argument or a workspace "
                       "of another mechanism");
    int n = m->n, nz = m->nz;
    for (int i = 0; i < nz; i++)
        if ((zd && !isfinite(zd[i])) || (zdd && !isfinite(zdd[i])))
            return kf_fail(err, KF_EINVAL, m->coords[i].name, "the rates of %s (%g, %g) must be "
                           "finite", m->coords[i].name, zd ? zd[i] : 0.0, zdd ? zdd[i] : 0.0);
    int rc = position(m, z, k, err);
    if (rc)
        return rc;
    if (!m->rates)
        return kf_closure_rates(k->cl, zd, zdd, k->qd, k->qdd, err);
    /* closed form: A and c at once */
    m->rates(z, zd, k->q, k->A, k->c, m->guess_params);
    for (int r = 0; r < n; r++) {
        double sd = 0.0, sdd = k->c[r];
        for (int i = 0; i < nz; i++) {
            sd += zd ? k->A[(size_t)r * nz + i] * zd[i] : 0.0;
            sdd += zdd ? k->A[(size_t)r * nz + i] * zdd[i] : 0.0;
        }
        k->qd[r] = sd;
        k->qdd[r] = sdd;
    }
    if (!kf_vec_finite((size_t)n, k->qd) || !kf_vec_finite((size_t)n, k->qdd)) {
        double big_d = 0.0, big_dd = 0.0;
        for (int i = 0; i < nz; i++) {
            big_d = zd && fabs(zd[i]) > big_d ? fabs(zd[i]) : big_d;
            big_dd = zdd && fabs(zdd[i]) > big_dd ? fabs(zdd[i]) : big_dd;
        }
        return kf_fail(err, KF_ERANGE, "zd", "the rates zd and zdd (largest |zd| = %g, |zdd| = %g) make "
                       "the bodies' velocities or accelerations overflow", big_d, big_dd);
    }
    return KF_OK;
}

/* ---------------------------------------------------------------- forces */

int kf_mech_applied(const kf_mech *m, const kf_mech_kin *k, double *Q, kf_error *err)
{
    int n = m->n;
    memset(Q, 0, (size_t)n * sizeof(double));
    for (int b = 0; b < m->nb; b++) {
        Q[3 * b] += m->mass[b] * m->g[0];
        Q[3 * b + 1] += m->mass[b] * m->g[1];
    }
    /* joint laws and springs act along a scalar s with gradient g: Q += F g (g, and
     * gc below, in aux past the vectors of kf_mech_reactions and kf_mech_dynamics) */
    double *g = k->aux + 4 * (size_t)n;
    for (int j = 0; j < m->nj; j++) {
        const kf_joint *J = m->joints + j;
        if (J->kind == KF_WELD || (J->k == 0.0 && J->c == 0.0 && J->F_r == 0.0))
            continue;
        memset(g, 0, (size_t)n * sizeof(double));
        eqrow e = {g, 1, 0.0, 0.0};
        joint_coordinate(J, k->q, NULL, NULL, &e);
        double sd = kf_dot(n, g, k->qd);
        double F = -J->k * (e.val - J->s0) - J->c * sd;
        if (J->F_r > 0.0)
            F -= J->F_r * tanh(sd / J->v_F);
        for (int i = 0; i < n; i++)
            Q[i] += F * g[i];
    }
    for (int s = 0; s < m->ns; s++) {
        const kf_spring *S = m->springs + s;
        double d[2];
        for (int c = 0; c < 2; c++) {
            eqrow e = {NULL, 0, 0.0, 0.0};
            row_point(k->q, NULL, NULL, S->body[0], S->p0, S->body[1], S->p1, c, &e);
            d[c] = e.val;
        }
        double L = hypot(d[0], d[1]);
        if (!(L > 0.0))
            return kf_fail(err, KF_EGEOM, "springs", "springs[%d] has zero length at %s", s,
                           kf_closure_coords_text(&planar_closure, m, m->nz, k->z,
                                                  (char[240]){0}, 240));
        /* grad L = e . grad d */
        memset(g, 0, (size_t)n * sizeof(double));
        for (int c = 0; c < 2; c++) {
            double *gc = g + n;
            memset(gc, 0, (size_t)n * sizeof(double));
            eqrow e = {gc, 1, 0.0, 0.0};
            row_point(k->q, NULL, NULL, S->body[0], S->p0, S->body[1], S->p1, c, &e);
            for (int i = 0; i < n; i++)
                g[i] += d[c] / L * gc[i];
        }
        double F = S->k * (L - S->L0) + S->c * kf_dot(n, g, k->qd);
        for (int i = 0; i < n; i++)
            Q[i] -= F * g[i];
    }
    return KF_OK;
}

int kf_mech_joint_forces(const kf_mech *m, kf_mech_kin *k, const double *r, double *fj,
                         double *drive, kf_error *err)
{
    /* the multipliers by the factors of J the position left (a closed-form rate rule:
     * formed there), in aux past r of kf_mech_reactions and kf_mech_dynamics' vectors */
    double *x = k->aux + 4 * (size_t)m->n;
    int rc = kf_closure_multipliers(k->cl, r, x, err);
    if (rc)
        return rc;
    for (int j = 0; fj && j < m->nj; j++) {
        const kf_joint *J = m->joints + j;
        const double *l = x + m->jrow[j];
        double *f = fj + 3 * j;
        if (J->kind == KF_PRISMATIC) {
            /* row 0 is n0 . (P1 - P0), n0 the axis normal in global axes */
            pose P0;
            body_pose(k->q, NULL, NULL, J->body[0], &P0);
            double nl[2] = {-J->axis[1], J->axis[0]}, n0[2];
            rot(&P0, nl, n0);
            f[0] = -l[0] * n0[0];
            f[1] = -l[0] * n0[1];
            f[2] = -l[1];
        } else {
            f[0] = -l[0];
            f[1] = -l[1];
            f[2] = J->kind == KF_WELD ? -l[2] : 0.0;
        }
    }
    for (int i = 0; drive && i < m->nz; i++)
        drive[i] = -x[m->m + i];
    return KF_OK;
}

int kf_mech_reactions(const kf_mech *m, kf_mech_kin *k, double *fj, double *drive,
                      kf_error *err)
{
    /* r = Q - M q'' at the start of aux */
    double *r = k->aux;
    int rc = kf_mech_applied(m, k, r, err);
    if (rc)
        return rc;
    for (int b = 0; b < m->nb; b++) {
        r[3 * b] -= m->mass[b] * k->qdd[3 * b];
        r[3 * b + 1] -= m->mass[b] * k->qdd[3 * b + 1];
        r[3 * b + 2] -= m->inertia[b] * k->qdd[3 * b + 2];
    }
    return kf_mech_joint_forces(m, k, r, fj, drive, err);
}

int kf_mech_axes_check(const kf_mech *m, int naxes, const kf_mech_axes *axes, const char *what,
                       kf_error *err)
{
    if (naxes < 0 || (naxes > 0 && !axes))
        return kf_fail(err, KF_EINVAL, what, "%s: %d axes and no array", what, naxes);
    for (int i = 0; i < naxes; i++) {
        const kf_mech_axes *a = axes + i;
        if (a->body < -1 || a->body >= m->nb)
            return kf_fail(err, KF_EINVAL, what, "%s[%d].body = %d is not a body (-1 the ground, "
                           "0..%d)", what, i, a->body, m->nb - 1);
        if (!(isfinite(a->o[0]) && isfinite(a->o[1]) && isfinite(a->phi)))
            return kf_fail(err, KF_EINVAL, what, "%s[%d]: o = (%g, %g), phi = %g must be finite",
                           what, i, a->o[0], a->o[1], a->phi);
    }
    return KF_OK;
}

void kf_mech_frame(const kf_mech *m, const kf_mech_kin *k, int b, const double o[2], double phi,
                   kf_frame *f)
{
    memset(f, 0, sizeof *f);
    pose P;
    body_pose(k->q, k->qd, NULL, b, &P);
    double th = (b < 0 ? 0.0 : k->q[3 * b + 2]) + phi;
    double eps = b < 0 ? 0.0 : k->qdd[3 * b + 2];
    double a[2] = {b < 0 ? 0.0 : k->qdd[3 * b], b < 0 ? 0.0 : k->qdd[3 * b + 1]};
    double Ro[2];
    rot(&P, o, Ro);
    double vO[2] = {P.v[0] - P.om * Ro[1], P.v[1] + P.om * Ro[0]};
    double aO[2] = {a[0] - eps * Ro[1] - P.om * P.om * Ro[0],
                    a[1] + eps * Ro[0] - P.om * P.om * Ro[1]};
    double c = cos(th), s = sin(th);
    f->omega[2] = P.om;
    f->eps[2] = eps;
    f->v[0] = c * vO[0] + s * vO[1];
    f->v[1] = -s * vO[0] + c * vO[1];
    double ag[2] = {aO[0] - m->g[0], aO[1] - m->g[1]};
    f->a[0] = c * ag[0] + s * ag[1];
    f->a[1] = -s * ag[0] + c * ag[1];
    /* vdot = a_L - W v_L with the true (gravity-free) a_L of the origin */
    double aL[2] = {c * aO[0] + s * aO[1], -s * aO[0] + c * aO[1]};
    f->vdot[0] = aL[0] + P.om * f->v[1];
    f->vdot[1] = aL[1] - P.om * f->v[0];
}

/* ================================================================ 5. the rigid motion in time
 *
 * Written once for every kinematics (the planar one above, the spatial one of
 * kf_spatial.c): the drives, Kane's equations as the right-hand side of the
 * core's ODE driver, landing on every output time, through the table
 * kf_mech_ops (docs/theory.md sections 5.7 and 5.14).
 */

/* The planar mechanism's entries of the table. */
static int planar_ncoord(const void *m) { return ((const kf_mech *)m)->nz; }

static int planar_alloc(const void *m, void **work, kf_error *err)
{
    kf_mech_kin *k = kf_calloc(1, sizeof *k);
    if (!k)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a mechanism's workspace");
    int rc = kf_mech_kin_alloc(m, k, err);
    if (rc) {
        free(k);
        return rc;
    }
    *work = k;
    return KF_OK;
}

static void planar_free(void *work)
{
    kf_mech_kin_free(work);
    free(work);
}

static int planar_accelerations(const void *mech, void *work, const double *z, const double *zd,
                                const double *tau, const unsigned char *presc, double *zdd,
                                double *drive, kf_error *err)
{
    const kf_mech *m = mech;
    int rc = kf_mech_kinematics(m, z, zd, NULL, work, err);
    return rc ? rc : kf_mech_dynamics(m, work, tau, presc, zdd, drive, err);
}

static void planar_restore(void *work)
{
    kf_closure_restore(((kf_mech_kin *)work)->cl);
}

static int planar_kinematics(const void *mech, void *work, const double *z, const double *zd,
                             const double *zdd, kf_mech_state *s, kf_error *err)
{
    kf_mech_kin *k = work;
    int rc = kf_mech_kinematics(mech, z, zd, zdd, k, err);
    if (!rc && s)
        *s = (kf_mech_state){k->n, k->n, k->nz, k->q, k->qd, k->qdd, k->A, k->c};
    return rc;
}

static int planar_applied(const void *mech, void *work, double *Q, kf_error *err)
{
    return kf_mech_applied(mech, work, Q, err);
}

static int planar_reactions(const void *mech, void *work, double *fj, double *drive,
                            kf_error *err)
{
    return kf_mech_reactions(mech, work, fj, drive, err);
}

static int planar_njoint(const void *m) { return ((const kf_mech *)m)->nj; }

static void planar_shape(const void *m, int *npos, int *n) { *npos = *n = ((const kf_mech *)m)->n; }

static int planar_axes_check(const void *mech, int naxes, const void *axes, const char *what,
                             kf_error *err)
{
    return kf_mech_axes_check(mech, naxes, axes, what, err);
}

static void planar_frame(const void *mech, const void *work, const void *axes, int i,
                         kf_frame *f)
{
    const kf_mech_axes *a = (const kf_mech_axes *)axes + i;
    kf_mech_frame(mech, work, a->body, a->o, a->phi, f);
}

const kf_mech_ops kf_mech_planar_ops = {
    .ncoord = planar_ncoord, .coord_name = planar_name, .work_alloc = planar_alloc,
    .work_free = planar_free, .accelerations = planar_accelerations,
    .restore = planar_restore, .kinematics = planar_kinematics, .applied = planar_applied,
    .reactions = planar_reactions, .njoint = planar_njoint, .joint_values = 3,
    .shape = planar_shape,
    .axes_check = planar_axes_check, .frame = planar_frame};

/* What the right-hand side needs, fixed for one integration, and what it
 * last computed. */
typedef struct {
    const kf_mech_ops *ops;
    const void *m;
    const kf_mech_drive *d;
    int nz;
    double t0;
    const double *z0;
    void *work;
    double *yd, *z, *zd, *zdd, *tau, *drive;
    unsigned char presc[KF_KANE_MAX_NU];
    long nfev;
    double *states;
    /* the last successful evaluation: its (t, y) and its output row */
    double last_t, *last_y, *last_row;
    /* the last evaluation that left the assembly region, and its time */
    kf_error geom;
    double geom_t;
} mech_ode;

/* The coordinates at t from the drives (docs in kf_internal.h). */
int kf_drives_eval(const kf_mech_ops *ops, const void *m, const kf_mech_drive *drives, double t,
                   double t0, const double *z0, const double *y, double *z, double *zd,
                   double *zdd, double *tau, unsigned char *presc, kf_error *err)
{
    int nz = ops->ncoord(m);
    for (int k = 0; k < nz; k++) {
        const kf_mech_drive *d = drives + k;
        presc[k] = d->mode != KF_DRIVE_FREE;
        tau[k] = d->mode == KF_DRIVE_FREE ? d->force : 0.0;
        if (d->mode == KF_DRIVE_SPEED) {
            z[k] = z0[k] + d->speed * (t - t0);
            zd[k] = d->speed;
            zdd[k] = 0.0;
        } else if (d->mode == KF_DRIVE_PATH) {
            double zk[3];
            err->code = 0;
            if (d->path(t, k, zk, d->params, err)) {
                if (!err->code)
                    kf_fail(err, KF_ECALLBACK, ops->coord_name(m, k), "the path of %s stopped "
                            "the integration at t = %g s", ops->coord_name(m, k), t);
                return err->code;
            }
            if (!(isfinite(zk[0]) && isfinite(zk[1]) && isfinite(zk[2])))
                return kf_fail(err, KF_EINVAL, ops->coord_name(m, k), "the path of %s returned "
                               "(%g, %g, %g) at t = %g s", ops->coord_name(m, k), zk[0], zk[1],
                               zk[2], t);
            z[k] = zk[0];
            zd[k] = zk[1];
            zdd[k] = zk[2];
        } else {
            z[k] = y[k];
            zd[k] = y[nz + k];
        }
    }
    /* laws after every coordinate is known */
    for (int k = 0; k < nz; k++) {
        const kf_mech_drive *d = drives + k;
        if (d->mode != KF_DRIVE_FREE || !d->law)
            continue;
        err->code = 0;
        double law = 0.0;
        if (d->law(t, k, z, zd, &law, d->params, err)) {
            if (!err->code)
                kf_fail(err, KF_ECALLBACK, "torque", "the torque law of %s stopped the "
                        "integration at t = %g s", ops->coord_name(m, k), t);
            return err->code;
        }
        if (!isfinite(law))
            return kf_fail(err, KF_EINVAL, "torque", "the torque law returned %g for %s at "
                           "t = %g s (%s = %g, rate %g)", law, ops->coord_name(m, k), t,
                           ops->coord_name(m, k), z[k], zd[k]);
        tau[k] += law;
    }
    return KF_OK;
}

int kf_mech_drive_values(const kf_mech *m, const kf_mech_drive *drives, double t, double t0,
                         const double *z0, const double *y, double *z, double *zd, double *zdd,
                         double *tau, unsigned char *presc, kf_error *err)
{
    return kf_drives_eval(&kf_mech_planar_ops, m, drives, t, t0, z0, y, z, zd, zdd, tau, presc,
                          err);
}

static int drive_values(mech_ode *o, double t, const double *y, kf_error *err)
{
    return kf_drives_eval(o->ops, o->m, o->d, t, o->t0, o->z0, y, o->z, o->zd, o->zdd, o->tau,
                          o->presc, err);
}

int kf_mech_dynamics(const kf_mech *m, kf_mech_kin *k, const double *tau,
                     const unsigned char *prescribed, double *zdd, double *drive, kf_error *err)
{
    int n = m->n;
    double *mass = k->aux + n, *Q = mass + n, *work = Q + n; /* aux past r (n) */
    kf_mech_mass(m, mass);
    int rc = kf_mech_applied(m, k, Q, err);
    if (!rc)
        rc = kf_kane_solve(n, m->nz, mass, k->A, k->c, Q, tau, prescribed, zdd, drive, work, err);
    return rc;
}

/* y' = f(t, y) and the output row (z, z', z'', F) of this evaluation. */
static int mech_eval(mech_ode *o, double t, const double *y, double *yd, double *row,
                     kf_error *err)
{
    int nz = o->nz;
    o->nfev++;
    int rc = drive_values(o, t, y, err);
    if (!rc)
        rc = o->ops->accelerations(o->m, o->work, o->z, o->zd, o->tau, o->presc, o->zdd,
                                   o->drive, err);
    if (rc)
        return rc;
    for (int k = 0; k < nz; k++) {
        yd[k] = o->zd[k];
        yd[nz + k] = o->zdd[k];
        row[k] = o->z[k];
        row[nz + k] = o->zd[k];
        row[2 * nz + k] = o->zdd[k];
        row[3 * nz + k] = o->presc[k] ? o->drive[k] : o->tau[k];
    }
    return KF_OK;
}

/* The driver's right-hand side.  Leaving the assembly region is recoverable:
 * it happens to trial stages of a step too long, and a shorter one may stay
 * inside; if the motion itself leaves, the driver gives up with this code. */
static int mech_rhs(double t, const double *y, double *yd, void *params, kf_error *err)
{
    mech_ode *o = params;
    int rc = mech_eval(o, t, y, yd, o->last_row, err);
    if (rc == KF_EGEOM) {
        o->geom = *err;
        o->geom_t = t;
        /* the failed attempt may have left the continuation's state anywhere */
        o->ops->restore(o->work);
        return 1;
    }
    if (rc)
        return -1;
    o->last_t = t;
    memcpy(o->last_y, y, 2 * (size_t)o->nz * sizeof(double));
    return 0;
}

/* The driver's output k: the row of the evaluation at (t, y). */
static int mech_out(int k, double t, const double *y, void *params, kf_error *err)
{
    mech_ode *o = params;
    /* The driver lands on every output time and ends each step with f at the
     * new point (FSAL), so the last evaluation is this very point; only where
     * the time of that evaluation, t_n + (t - t_n), rounded off t does it
     * take one more. */
    if (!(t == o->last_t && !memcmp(y, o->last_y, 2 * (size_t)o->nz * sizeof(double)))) {
        int rc = mech_rhs(t, y, o->yd, o, err);
        if (rc > 0)
            *err = o->geom;
        if (rc)
            return err->code ? err->code : KF_ECALLBACK;
    }
    memcpy(o->states + (size_t)k * 4 * o->nz, o->last_row, 4 * (size_t)o->nz * sizeof(double));
    return 0;
}

int kf_drives_check(const kf_mech_ops *ops, const void *m, const kf_mech_drive *drives,
                    kf_error *err)
{
    for (int k = 0; k < ops->ncoord(m); k++) {
        const kf_mech_drive *d = drives + k;
        const char *name = ops->coord_name(m, k);
        if (d->mode != KF_DRIVE_FREE && d->mode != KF_DRIVE_SPEED && d->mode != KF_DRIVE_PATH)
            return kf_fail(err, KF_EINVAL, "drive", "drives[%d].mode = %d (of %s) must be 0 "
                           "(free), 1 (speed) or 2 (path)", k, d->mode, name);
        if (!isfinite(d->speed) || (d->mode != KF_DRIVE_SPEED && d->speed != 0.0))
            return kf_fail(err, KF_EINVAL, "speed", "drives[%d].speed = %g (of %s) must be "
                           "finite, and 0 unless the mode is 1 (speed)", k, d->speed, name);
        if (!isfinite(d->force) || (d->mode != KF_DRIVE_FREE && d->force != 0.0))
            return kf_fail(err, KF_EINVAL, "force", "drives[%d].force = %g (of %s) must be "
                           "finite, and 0 unless the mode is 0 (free)", k, d->force, name);
        if ((d->mode == KF_DRIVE_PATH) != (d->path != NULL))
            return kf_fail(err, KF_EINVAL, "path", "drives[%d] (%s, mode %d) %s", k, name,
                           d->mode, d->path ? "has a path but is not a path drive"
                                            : "is a path drive without a path");
        if (d->law && d->mode != KF_DRIVE_FREE)
            return kf_fail(err, KF_EINVAL, "law", "drives[%d] (%s, mode %d) has a force law "
                           "but is not free", k, name, d->mode);
    }
    return KF_OK;
}

int kf_mech_check_drives(const kf_mech *m, const kf_mech_drive *drives, kf_error *err)
{
    return kf_drives_check(&kf_mech_planar_ops, m, drives, err);
}

int kf_mech_integrate(const kf_mech_ops *ops, const void *m, const kf_mech_drive *drives,
                      const double *z0, const double *zd0, int nt, const double *t,
                      const kf_ode_opts *opts, double *states, kf_stats *stats, kf_error *err)
{
    if (!ops || !m || !drives || !z0 || !zd0 || !t || !opts || !states)
        return kf_fail(err, KF_EINVAL, "", "kf_mech_integrate: NULL argument");
    int nz = ops->ncoord(m), rc = kf_drives_check(ops, m, drives, err);
    if (rc)
        return rc;
    if (nt < 1)
        return kf_fail(err, KF_EINVAL, "t", "need at least one output time, got %d", nt);
    for (int i = 0; i < nz; i++)
        if (!isfinite(z0[i]) || !isfinite(zd0[i]))
            return kf_fail(err, KF_EINVAL, "y0", "initial %s = %g, rate %g must be finite",
                           ops->coord_name(m, i), z0[i], zd0[i]);
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

    mech_ode o = {.ops = ops, .m = m, .d = drives, .nz = nz, .t0 = t[0], .z0 = z0,
                  .states = states};
    /* yd (2 nz, an extra evaluation's), z, zd, zdd, tau, drive (nz each), y (2 nz),
     * last_y (2 nz), last_row (4 nz) */
    double *buf = kf_calloc(15 * (size_t)nz, sizeof(double));
    if (!buf)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the integration's workspace");
    rc = ops->work_alloc(m, &o.work, err);
    if (rc) {
        free(buf);
        return rc;
    }
    double *p = buf;
    o.yd = p, p += 2 * (size_t)nz;
    o.z = p, p += nz;
    o.zd = p, p += nz;
    o.zdd = p, p += nz;
    o.tau = p, p += nz;
    o.drive = p, p += nz;
    double *y = p;
    p += 2 * (size_t)nz;
    o.last_y = p, p += 2 * (size_t)nz;
    o.last_row = p;
    o.last_t = NAN;
    for (int k = 0; k < nz; k++) {
        y[k] = z0[k];
        y[nz + k] = drives[k].mode == KF_DRIVE_SPEED ? drives[k].speed : zd0[k];
    }
    kf_stats st = {0};
    kf_error le = {0};
    /* a path drive starts where its path is */
    rc = drive_values(&o, t[0], y, &le);
    for (int k = 0; !rc && k < nz; k++)
        if (drives[k].mode == KF_DRIVE_PATH) {
            y[k] = o.z[k];
            y[nz + k] = o.zd[k];
        }
    kf_ode_system sys = {2 * nz, mech_rhs, mech_out, NULL, &o, 1};
    kf_ode *ode = NULL;
    if (!rc)
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
    ops->work_free(o.work);
    free(buf);
    return rc;
}

int kf_mech_simulate(const kf_mech *m, const kf_mech_drive *drives, const double *z0,
                     const double *zd0, int nt, const double *t, const kf_ode_opts *opts,
                     double *states, kf_stats *stats, kf_error *err)
{
    if (!m)
        return kf_fail(err, KF_EINVAL, "", "kf_mech_simulate: NULL argument");
    return kf_mech_integrate(&kf_mech_planar_ops, m, drives, z0, zd0, nt, t, opts, states, stats,
                             err);
}
