/*
 * kf_closure.c -- the loop closure of a mechanism, written once for every
 * kinematics (docs/theory.md section 5.11): the planar mechanisms'
 * (kf_mechanism.c) and the spatial ones' (kf_spatial.c) give their rows and
 * the update of their positions through kf_closure_ops (kf_internal.h).
 *
 * Top to bottom:
 *   1. the workspace;
 *   2. the factors of the scaled Jacobian: dead points named, A = J^-1 [0; I];
 *   3. Newton's method: chord steps with the factors of the last solution,
 *      the convergence test on the rate, full steps where the chord is slow;
 *   4. continuation along the straight path in z, step control, branch-jump
 *      rejection; assembly from a given position;
 *   5. the rates and the multipliers.
 *
 * Units.  Every row is scaled to a length (an angle row times the length
 * scale L) and every angle column of J divided by L, so that J's entries are
 * of order one and a step's size is a length: the tolerances below are
 * fractions of L.
 */
#include "kf_internal.h"

#include <stdio.h>
#include <string.h>

/* Newton's thresholds, fractions of L. */
#define FRESH 1e-14  /* a step below it from a factored iterate: those factors are the
                      * solution's to round-off */
#define EXACT 1e-14  /* every scaled residual below it: a solution to round-off */
#define POLISH 1e-10 /* a full Newton step below it: the next is at round-off */
#define CHORD_RATE 0.25 /* a chord converging slower than this refactors (a Newton step) */
#define MAX_ITER 40

enum { AT_NONE = 0, AT_Q, AT_QOK }; /* where J's factors are: nowhere, at q, at qok (= q) */

struct kf_closure {
    const kf_closure_ops *ops;
    const void *mech;
    void *kin;
    int n, nq, nz, m;
    double L;
    const double *rs;
    double *q, *z, *A, *c;           /* the kinematics' own arrays */
    double *cs;                      /* n column scales: L for an angle's speed, else 1 */
    double *qok, *qpred;             /* nq: the last solution; a step's prediction */
    double *zok, *zdok, *zfrom, *zt; /* nz: its coordinates; the rates c was made for */
    double *res, *dq;                /* n */
    double *J;                       /* n x n: the scaled Jacobian, or its LU */
    double *cols;                    /* n x nz: A's columns, scaled */
    int *ipiv;
    int assembled;                   /* qok holds a solution */
    int jat;                         /* AT_*: where J's factors are */
    int cok;                         /* c holds the velocity term at qok for the rates zdok */
};

/* ================================================================ 1. the workspace */

int kf_closure_create(kf_closure **out, const kf_closure_ops *ops, const void *mech, void *kin,
                      const kf_closure_shape *s, double *q, double *z, double *A, double *c,
                      kf_error *err)
{
    *out = NULL;
    int n = s->n, nq = s->nq, nz = s->nz;
    kf_closure *cl = kf_calloc(1, sizeof *cl);
    /* cs, res, dq (n each); qok, qpred (nq each); zok, zdok, zfrom, zt (nz each); J (n n);
     * cols (n nz) */
    size_t nd = 3 * (size_t)n + 2 * (size_t)nq + 4 * (size_t)nz + (size_t)n * n +
                (size_t)n * nz;
    double *buf = cl ? kf_calloc(nd, sizeof(double)) : NULL;
    int *ipiv = buf ? kf_calloc((size_t)n, sizeof(int)) : NULL;
    if (!ipiv) {
        free(buf);
        free(cl);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a loop closure's workspace (n = %d)",
                       n);
    }
    *cl = (kf_closure){.ops = ops, .mech = mech, .kin = kin, .n = n, .nq = nq, .nz = nz,
                       .m = n - nz, .L = s->L, .rs = s->rs, .q = q, .z = z, .A = A, .c = c,
                       .ipiv = ipiv};
    double *p = buf;
    cl->cs = p, p += n;
    cl->res = p, p += n;
    cl->dq = p, p += n;
    cl->qok = p, p += nq;
    cl->qpred = p, p += nq;
    cl->zok = p, p += nz;
    cl->zdok = p, p += nz;
    cl->zfrom = p, p += nz;
    cl->zt = p, p += nz;
    cl->J = p, p += (size_t)n * n;
    cl->cols = p;
    for (int j = 0; j < n; j++)
        cl->cs[j] = j % s->per_body >= s->lengths ? s->L : 1.0;
    *out = cl;
    return KF_OK;
}

void kf_closure_free(kf_closure *cl)
{
    if (!cl)
        return;
    free(cl->cs); /* the start of the one buffer */
    free(cl->ipiv);
    free(cl);
}

const char *kf_closure_coords_text(const kf_closure_ops *ops, const void *mech, int nz,
                                   const double *z, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < nz && used + 1 < len; k++) {
        int w = snprintf(buf + used, len - used, "%s%s = %.9g %s", k ? ", " : "",
                         ops->coord_name(mech, k), z[k], ops->coord_is_angle(mech, k) ? "rad" : "m");
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

static const char *coords_text(const kf_closure *cl, const double *z, char *buf, size_t len)
{
    return kf_closure_coords_text(cl->ops, cl->mech, cl->nz, z, buf, len);
}

static int cannot_close(const kf_closure *cl, const double *z, const char *why, kf_error *err)
{
    char buf[240];
    return kf_fail(err, KF_EGEOM, cl->ops->coord_name(cl->mech, 0),
                   "the loop cannot close at %s: %s", coords_text(cl, z, buf, sizeof buf),
                   why);
}

/* ================================================================ 2. the factors of J */

/* The rows whose combination the singular J cannot reach: a left null vector y of
 * the factored J (J^T y = U_kk e_k, k the smallest pivot), and the names of the
 * parts (joints, coordinates) with weight in it; "" without row names. */
static void dependent_text(kf_closure *cl, char *buf, size_t len)
{
    int n = cl->n, kmin = 0;
    const double *U = cl->J;
    buf[0] = '\0';
    if (!cl->ops->row_name)
        return;
    double pmin = INFINITY;
    for (int i = 0; i < n; i++)
        if (fabs(U[i + (size_t)i * n]) < pmin) {
            pmin = fabs(U[i + (size_t)i * n]);
            kmin = i;
        }
    double *w = cl->dq;
    memset(w, 0, (size_t)n * sizeof(double));
    w[kmin] = 1.0;
    for (int i = kmin + 1; i < n; i++) { /* U^T w = e_k (scaled): forward */
        double s = 0.0;
        for (int j = kmin; j < i; j++)
            s += U[j + (size_t)i * n] * w[j];
        w[i] = U[i + (size_t)i * n] != 0.0 ? -s / U[i + (size_t)i * n] : 0.0;
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x = w, L unit lower: backward */
        double s = w[i];
        for (int j = i + 1; j < n; j++)
            s -= U[j + (size_t)i * n] * w[j];
        w[i] = s;
    }
    for (int j = n - 1; j >= 0; j--) { /* y = P^T x: the interchanges in reverse */
        double t = w[j];
        w[j] = w[cl->ipiv[j]];
        w[cl->ipiv[j]] = t;
    }
    double big = 0.0;
    for (int i = 0; i < n; i++)
        big = fmax(big, fabs(w[i]));
    size_t used = 0;
    int last = -1;
    for (int i = 0; i < n && used + 1 < len && big > 0.0; i++) {
        if (!(fabs(w[i]) > 0.1 * big))
            continue;
        char name[160];
        int part = cl->ops->row_name(cl->mech, i, name, sizeof name);
        if (part == last)
            continue;
        last = part;
        int wr = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
        if (wr < 0)
            break;
        used += (size_t)wr;
    }
}

/* The smallest and largest pivots of the factored J. */
static double pivot_ratio(const kf_closure *cl)
{
    double pmin = INFINITY, pmax = 0.0;
    for (int i = 0; i < cl->n; i++) {
        double p = fabs(cl->J[i + (size_t)i * cl->n]);
        pmin = fmin(pmin, p);
        pmax = fmax(pmax, p);
    }
    return pmax > 0.0 ? pmin / pmax : 0.0;
}

/* LU of the scaled J in place: KF_OK, KF_ESING or KF_ERANGE (no message). */
static int factor(kf_closure *cl)
{
    int rc = kf_small_lu_factor(cl->n, cl->J, cl->n, cl->ipiv);
    cl->jat = rc ? AT_NONE : AT_Q;
    return rc;
}

/* After the LU of J at q (status rc): the dead-point check, then (with_A) A. */
static int factored(kf_closure *cl, const double *z, int rc, int with_A, kf_error *err)
{
    int n = cl->n, nz = cl->nz;
    double ratio = rc ? 0.0 : pivot_ratio(cl);
    if (rc == KF_ESING || (!rc && !(ratio >= KF_MECH_DEAD))) {
        char buf[240], who[240] = "";
        if (!rc)
            dependent_text(cl, who, sizeof who);
        return kf_fail(err, KF_EGEOM, cl->ops->coord_name(cl->mech, 0),
                       "%s is %s: the constraint Jacobian is singular there (smallest pivot "
                       "%.2g of the largest)%s%s, so these coordinates cannot move the mechanism",
                       coords_text(cl, z, buf, sizeof buf), cl->ops->singular, ratio,
                       who[0] ? "; the rows that lose rank: " : "", who);
    }
    if (rc)
        return kf_fail(err, KF_ERANGE, "", "a mechanism system has a non-finite entry (values "
                       "beyond the double range)");
    if (!with_A)
        return KF_OK;
    /* A = J^-1 [0; I] (row-major n x nz), the nz columns solved at once */
    memset(cl->cols, 0, (size_t)n * nz * sizeof(double));
    for (int k = 0; k < nz; k++)
        cl->cols[cl->m + k + (size_t)k * n] = cl->rs[cl->m + k];
    if (kf_small_lu_solve(n, cl->J, n, cl->ipiv, nz, cl->cols, n))
        return kf_fail(err, KF_ERANGE, "", "a mechanism system has a non-finite entry");
    for (int k = 0; k < nz; k++)
        for (int i = 0; i < n; i++)
            cl->A[(size_t)i * nz + k] = cl->cols[i + (size_t)k * n] / cl->cs[i];
    return KF_OK;
}

/* J at q for z, factored; the dead-point check and (with_A) A, or the singular
 * angles' message. */
static int factor_at(kf_closure *cl, const double *z, int with_A, kf_error *err)
{
    int bad = 0;
    if (cl->ops->rows(cl->mech, cl->kin, cl->q, z, NULL, cl->J, &bad))
        return cl->ops->bad_angles(cl->mech, bad, z, err);
    return factored(cl, z, factor(cl), with_A, err);
}

/* ================================================================ 3. Newton's method */

enum { NEWTON_FAILS = -1, NEWTON_DEAD = -2, NEWTON_ANGLES = -3 };

/*
 * Newton's method on the rows from q.  With the factors of J at the last
 * solution (jat == AT_QOK, q its prediction) the first steps are chord steps
 * (the factors kept, one solve each); a chord whose rate of convergence r =
 * |dq_k| / |dq_k-1| exceeds CHORD_RATE takes a Newton step (J refactored at the
 * iterate).  Converged (SUNDIALS' test) where the corrections still to come at
 * that rate, |dq| r / (1 - r), are below FRESH L, or a step is: then J is formed
 * and factored at the iterate for the rates, whose step, below FRESH L, is the
 * last (or, at round-off above it, the one after a full step below POLISH L).
 * With exact, J is formed at the start (no chord) and a start that solves
 * every row to EXACT L is kept as it is (a closed-form rule's position, whose
 * rates are then the Jacobian's).  Returns 0 (q the solution, J's factors at
 * it to round-off: jat == AT_Q), NEWTON_FAILS, NEWTON_DEAD (J singular at a
 * solution), NEWTON_ANGLES (*bad), no message.
 */
static int newton(kf_closure *cl, const double *z, int exact, int *bad)
{
    int n = cl->n, chord = cl->jat == AT_QOK && !exact, polish = 0, grew = 0;
    double prev = INFINITY, L = cl->L, *r = cl->res;
    for (int it = 0; it < MAX_ITER; it++) {
        int fresh = !chord;
        if (cl->ops->rows(cl->mech, cl->kin, cl->q, z, r, fresh ? cl->J : NULL, bad))
            return NEWTON_ANGLES;
        double rmax = 0.0;
        for (int i = 0; i < n; i++)
            rmax = fmax(rmax, fabs(r[i]));
        if (!isfinite(rmax) || !kf_vec_finite((size_t)n, r))
            return NEWTON_FAILS;
        if (fresh) {
            int rc = factor(cl);
            if (rc == KF_ESING) /* singular: at a solution, a dead point */
                return rmax <= 1e-12 * L ? NEWTON_DEAD : NEWTON_FAILS;
            if (rc)
                return NEWTON_FAILS; /* KF_ERANGE: J not finite */
            if (exact && it == 0 && rmax <= EXACT * L)
                return 0; /* q solves the rows to round-off: kept, its factors at hand */
        }
        kf_small_lu_solve(n, cl->J, n, cl->ipiv, 1, r, n);
        double step = 0.0;
        for (int i = 0; i < n; i++)
            step = fmax(step, fabs(r[i]));
        if (!isfinite(step))
            return NEWTON_FAILS;
        for (int i = 0; i < n; i++)
            r[i] = -r[i];
        cl->ops->move(cl->mech, cl->q, r);
        if (fresh) {
            if (step <= FRESH * L || polish)
                return 0; /* the factors at the last iterate are the solution's to round-off */
            if (step <= POLISH * L)
                polish = 1;
        } else {
            double rate = it > 0 ? step / prev : INFINITY;
            if (step <= FRESH * L || (rate < 1.0 && step * rate <= FRESH * L * (1.0 - rate)))
                chord = 0; /* converged: J at the solution, for the rates */
            else if (it > 0 && rate > CHORD_RATE)
                chord = 0; /* too slow: a Newton step */
        }
        if (step >= prev && ++grew > 3)
            return NEWTON_FAILS;
        prev = step;
    }
    return NEWTON_FAILS;
}

/* ================================================================ 4. continuation, assembly */

/* The continuation stopped short of z: "the loop cannot close", and, where the last
 * position reached (qok, whose factors J is given here) is close to a singular one,
 * the rows that lose rank there (a dead point ahead). */
static int near_singular(kf_closure *cl, const double *z, kf_error *err)
{
    memcpy(cl->q, cl->qok, (size_t)cl->nq * sizeof(double));
    int bad = 0;
    double ratio = 1.0;
    cl->jat = AT_NONE;
    if (!cl->ops->rows(cl->mech, cl->kin, cl->q, cl->zok, NULL, cl->J, &bad) && !factor(cl)) {
        ratio = pivot_ratio(cl);
        cl->jat = AT_QOK;
    }
    char why[480], who[240] = "", last[240];
    if (ratio < 1e-3)
        dependent_text(cl, who, sizeof who);
    if (who[0])
        snprintf(why, sizeof why, "no position is reached along a path that keeps its branch; the "
                 "last one reached, %s, is near %s (smallest pivot %.2g of the largest) where "
                 "these rows lose rank: %s", coords_text(cl, cl->zok, last, sizeof last),
                 cl->ops->singular, ratio, who);
    else
        snprintf(why, sizeof why, "no position is reached from the last one (or the drawing) "
                 "along a path that keeps its branch");
    return cannot_close(cl, z, why, err);
}

/* The solution q at z is kept: the kinematics' check, then the last solution. */
static int keep(kf_closure *cl, const double *z, kf_error *err)
{
    int rc = cl->ops->solved ? cl->ops->solved(cl->mech, cl->kin, cl->q, z, err) : KF_OK;
    if (rc)
        return rc;
    memcpy(cl->z, z, (size_t)cl->nz * sizeof(double));
    memcpy(cl->zok, z, (size_t)cl->nz * sizeof(double));
    memcpy(cl->qok, cl->q, (size_t)cl->nq * sizeof(double));
    cl->assembled = 1;
    cl->cok = 0;
    if (cl->jat == AT_Q)
        cl->jat = AT_QOK;
    return KF_OK;
}

int kf_closure_assemble(kf_closure *cl, const double *z, int exact, const char *from,
                        kf_error *err)
{
    int bad = 0, rc = newton(cl, z, exact, &bad);
    char why[160];
    if (rc == NEWTON_FAILS) {
        snprintf(why, sizeof why, "Newton's method does not converge from %s", from);
        return cannot_close(cl, z, why, err);
    }
    if (rc == NEWTON_ANGLES)
        return cl->ops->bad_angles(cl->mech, bad, z, err);
    rc = rc == NEWTON_DEAD ? factor_at(cl, z, 0, err) : factored(cl, z, KF_OK, 1, err);
    return rc ? rc : keep(cl, z, err);
}

int kf_closure_placed(kf_closure *cl, const double *z, kf_error *err)
{
    cl->jat = AT_NONE;
    return keep(cl, z, err);
}

void kf_closure_restore(kf_closure *cl)
{
    memcpy(cl->q, cl->qok, (size_t)cl->nq * sizeof(double));
    if (cl->jat == AT_Q)
        cl->jat = AT_NONE;
}

/* The prediction at zt from the last solution: qok moved by A (zt - zok), and by
 * c s^2 / 2 where the last rates z' were along the step (zt - zok = s z' + w, s
 * the projection in the coordinates' scales; c is the second derivative of q
 * along z' at the last solution): second order in the step along a motion, as
 * q + h q' + h^2 q'' / 2 with the last instant's rates and accelerations. */
static void predict(kf_closure *cl, const double *zt)
{
    int n = cl->n, nz = cl->nz;
    double s = 0.0;
    if (cl->cok) {
        double num = 0.0, den = 0.0;
        for (int i = 0; i < nz; i++) {
            double w = cl->rs[cl->m + i] * cl->rs[cl->m + i];
            num += w * cl->zdok[i] * (zt[i] - cl->zok[i]);
            den += w * cl->zdok[i] * cl->zdok[i];
        }
        s = den > 0.0 ? num / den : 0.0;
    }
    double *x = cl->dq;
    for (int r = 0; r < n; r++) {
        double v = 0.5 * s * s * cl->c[r];
        for (int i = 0; i < nz; i++)
            v += cl->A[(size_t)r * nz + i] * (zt[i] - cl->zok[i]);
        x[r] = v * cl->cs[r];
    }
    memcpy(cl->q, cl->qok, (size_t)cl->nq * sizeof(double));
    cl->ops->move(cl->mech, cl->q, x);
    memcpy(cl->qpred, cl->q, (size_t)cl->nq * sizeof(double));
}

int kf_closure_position(kf_closure *cl, const double *z, kf_error *err)
{
    int nz = cl->nz, rc;
    for (int i = 0; i < nz; i++)
        if (!isfinite(z[i]))
            return kf_fail(err, KF_EINVAL, cl->ops->coord_name(cl->mech, i), "%s = %g must be "
                           "finite", cl->ops->coord_name(cl->mech, i), z[i]);
    if (!cl->assembled) { /* start from the drawing */
        if ((rc = cl->ops->drawing(cl->mech, cl->kin, cl->q, cl->zok, err)))
            return rc;
        memcpy(cl->qok, cl->q, (size_t)cl->nq * sizeof(double));
        if ((rc = factor_at(cl, cl->zok, 1, err)))
            return rc;
        cl->jat = AT_QOK;
        cl->cok = 0;
        cl->assembled = 1;
    }
    if (cl->jat == AT_QOK && !memcmp(z, cl->zok, (size_t)nz * sizeof(double))) {
        /* the last solution itself: J's factors and A are its */
        memcpy(cl->q, cl->qok, (size_t)cl->nq * sizeof(double));
        int cok = cl->cok;
        rc = keep(cl, z, err);
        cl->cok = cok;
        return rc;
    }
    double *zfrom = cl->zfrom, *zt = cl->zt, done = 0.0, step = 1.0;
    memcpy(zfrom, cl->zok, (size_t)nz * sizeof(double));
    kf_error last = {0};
    while (done < 1.0) {
        double to = done + step > 1.0 ? 1.0 : done + step;
        for (int i = 0; i < nz; i++)
            zt[i] = to >= 1.0 ? z[i] : zfrom[i] + to * (z[i] - zfrom[i]);
        predict(cl, zt);
        /* a step predicted to move the mechanism by more than a tenth of its size is
         * halved untried: the correction test below can then tell a neighbouring branch
         * from this one */
        double pred = cl->ops->distance(cl->mech, cl->qpred, cl->qok);
        int tried = !(pred > 0.1 * cl->L && step >= 1.0 / 4096.0), ok = 0, bad = 0;
        if (tried) {
            ok = newton(cl, zt, 0, &bad);
            if (ok == NEWTON_ANGLES)
                cl->ops->bad_angles(cl->mech, bad, zt, &last);
            else if (ok == NEWTON_DEAD) /* singular at a solution: the dead point's message */
                factor_at(cl, zt, 0, &last);
            ok = ok == 0 && cl->ops->distance(cl->mech, cl->q, cl->qpred) <=
                                0.25 * pred + 1e-9 * cl->L;
        }
        if (ok) {
            int frc = factored(cl, zt, KF_OK, 1, &last);
            if (frc && frc != KF_EGEOM) {
                *err = last;
                return frc;
            }
            ok = !frc;
        }
        if (ok) {
            done = to;
            memcpy(cl->qok, cl->q, (size_t)cl->nq * sizeof(double));
            memcpy(cl->zok, zt, (size_t)nz * sizeof(double));
            cl->jat = AT_QOK;
            cl->cok = 0;
            if (cl->ops->accepted)
                cl->ops->accepted(cl->mech, cl->kin, cl->q);
            step = fmin(2.0 * step, 1.0);
        } else {
            kf_closure_restore(cl);
            step *= 0.5;
            if (step < 1.0 / 8192.0) {
                if (last.code == KF_EGEOM) { /* a singular position, named, on the way */
                    *err = last;
                    return KF_EGEOM;
                }
                return near_singular(cl, z, err);
            }
        }
    }
    return keep(cl, z, err);
}

/* ================================================================ 5. rates and multipliers */

/* The factors of J at the solution, formed there if a rate rule placed it. */
static int factors_at_solution(kf_closure *cl, kf_error *err)
{
    if (cl->jat != AT_NONE)
        return KF_OK;
    int bad = 0, rc;
    if (cl->ops->rows(cl->mech, cl->kin, cl->q, cl->z, NULL, cl->J, &bad))
        return cl->ops->bad_angles(cl->mech, bad, cl->z, err);
    if ((rc = factor(cl)))
        return kf_fail(err, rc, "", rc == KF_ESING ? "the constraint Jacobian is singular"
                                                    : "a mechanism system has a non-finite entry "
                                                      "(values beyond the double range)");
    cl->jat = AT_QOK;
    return KF_OK;
}

int kf_closure_rates(kf_closure *cl, const double *zd, const double *zdd, double *u, double *ud,
                     kf_error *err)
{
    int n = cl->n, nz = cl->nz, bad = 0, rc = factors_at_solution(cl, err);
    cl->cok = 0;
    if (rc)
        return rc;
    for (int r = 0; r < n; r++) {
        double s = 0.0;
        for (int i = 0; zd && i < nz; i++)
            s += cl->A[(size_t)r * nz + i] * zd[i];
        u[r] = s;
    }
    /* c = J^-1 gamma (J = Dr^-1 Js Dc: c = Dc^-1 Js^-1 Dr gamma) */
    if (cl->ops->gamma(cl->mech, cl->kin, u, cl->c, &bad))
        return cl->ops->bad_angles(cl->mech, bad, cl->z, err);
    for (int i = 0; i < n; i++)
        cl->c[i] *= cl->rs[i];
    if (kf_small_lu_solve(n, cl->J, n, cl->ipiv, 1, cl->c, n))
        rc = KF_ERANGE;
    for (int r = 0; !rc && r < n; r++) {
        cl->c[r] /= cl->cs[r];
        double s = cl->c[r];
        for (int i = 0; zdd && i < nz; i++)
            s += cl->A[(size_t)r * nz + i] * zdd[i];
        ud[r] = s;
    }
    /* huge rates overflow the velocities or the quadratic velocity terms: name them */
    if (rc || !kf_vec_finite((size_t)n, u) || !kf_vec_finite((size_t)n, ud)) {
        double big_d = 0.0, big_dd = 0.0;
        for (int i = 0; i < nz; i++) {
            big_d = zd && fabs(zd[i]) > big_d ? fabs(zd[i]) : big_d;
            big_dd = zdd && fabs(zdd[i]) > big_dd ? fabs(zdd[i]) : big_dd;
        }
        return kf_fail(err, KF_ERANGE, "zd", "the rates zd and zdd (largest |zd| = %g, |zdd| = "
                       "%g) make the bodies' velocities or accelerations overflow", big_d, big_dd);
    }
    if (zd)
        memcpy(cl->zdok, zd, (size_t)nz * sizeof(double));
    else
        memset(cl->zdok, 0, (size_t)nz * sizeof(double));
    cl->cok = 1;
    return KF_OK;
}

int kf_closure_multipliers(kf_closure *cl, const double *r, double *lam, kf_error *err)
{
    int n = cl->n, rc = factors_at_solution(cl, err);
    if (rc)
        return rc;
    /* J^T lam = r with J = Dr^-1 Js Dc: Js^T (Dr^-1 lam) = Dc^-1 r */
    for (int j = 0; j < n; j++)
        lam[j] = r[j] / cl->cs[j];
    if (kf_small_lu_solve_trans(n, cl->J, n, cl->ipiv, lam)) /* KF_ERANGE: r not finite */
        return kf_fail(err, KF_ERANGE, "", "a mechanism system has a non-finite entry (values "
                       "beyond the double range)");
    for (int i = 0; i < n; i++)
        lam[i] *= cl->rs[i];
    return KF_OK;
}
