/*
 * kf_stress.c -- strains at the quadrature points and element end forces, for
 * stresses of meshes and section forces of beams (docs/theory.md section 2.10).
 */
#include "kf_internal.h"
#include "kf_stress.h"

#include <stdint.h>
#include <string.h>

static const kf_element_type *type_of(const kf_body *b, int e)
{
    return b->els ? b->els[e] : b->el;
}

int kf_body_element_count(const kf_body *b) { return b->nel; }

int kf_body_point_count(const kf_body *b, int *npts, int *nstrain, int *nedof)
{
    long long n = 0;
    int ns = 0, ne = 0;
    for (int e = 0; e < b->nel; e++) {
        const kf_element_type *el = type_of(b, e);
        n += el->nquad;
        ns = el->nstrain > ns ? el->nstrain : ns;
        ne = el->nnode * el->ndofn > ne ? el->nnode * el->ndofn : ne;
    }
    if (n > INT32_MAX)
        return KF_ERANGE;
    *npts = (int)n;
    *nstrain = ns;
    *nedof = ne;
    return KF_OK;
}

int kf_body_point_strains(const kf_body *b, int ncol, const double *d, double *eps, double *sig,
                          double *x, int *elem, kf_error *err)
{
    int npts, ns, nemax;
    if (ncol < 0 || kf_body_point_count(b, &npts, &ns, &nemax))
        return kf_fail(err, KF_EINVAL, "d", "ncol = %d or the body's point count is out of range",
                       ncol);
    size_t ncell = (size_t)npts * ns, nc = ncol ? (size_t)ncol : 1;
    int nqmax = 0;
    for (int e = 0; e < b->nel; e++)
        nqmax = type_of(b, e)->nquad > nqmax ? type_of(b, e)->nquad : nqmax;
    /* the element's displacements (ncol x ne) and strains, point-major (nquad x ncol x
     * ns), before they are scattered */
    double *work = kf_calloc(nc * ((size_t)KF_MAX_EDOF + (size_t)nqmax * ns), sizeof(double));
    if (!work)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the strain work space");
    double *de = work, *ee = work + nc * KF_MAX_EDOF;
    kf_qpoint p = {0};
    int more = kf_body_next_point(b, &p), first = 0;
    while (more) {
        int e = p.e, ne = p.ne, nq = type_of(b, e)->nquad;
        const kf_element_type *el = type_of(b, e);
        for (int c = 0; c < ncol; c++)
            for (int a = 0; a < ne; a++)
                de[(size_t)c * ne + a] = d[(size_t)c * b->ndof + p.dofs[a]];
        double xe[KF_MAX_ENODE * KF_MAX_DIM];
        memcpy(xe, p.xe, sizeof xe);
        for (; more && p.e == e; more = kf_body_next_point(b, &p)) {
            int q = p.q, pt = first + q;
            for (int c = 0; c < ncol; c++)
                for (int r = 0; r < ns; r++) {
                    double v = 0.0;
                    if (r < el->nstrain)
                        for (int a = 0; a < ne; a++)
                            v += p.B[r * ne + a] * de[(size_t)c * ne + a];
                    ee[((size_t)q * ncol + c) * ns + r] = v;
                }
            if (x)
                for (int k = 0; k < b->dim; k++)
                    x[(size_t)pt * b->dim + k] = p.x[k];
            if (elem)
                elem[pt] = e;
        }
        kf_continuum_mode_strains(el, xe, &b->sec, ncol, de, ee);
        /* sig = D eps, per unit area of a plane element's section (D carries the
         * thickness) */
        double D[KF_MAX_STRAIN * KF_MAX_STRAIN];
        int nse = el->nstrain;
        el->dmat(&b->sec, D);
        double scale = b->kind >= KF_TRI3 && el->dim == 2 ? 1.0 / b->sec.thickness : 1.0;
        for (int q = 0; q < nq; q++)
            for (int c = 0; c < ncol; c++) {
                const double *ec = ee + ((size_t)q * ncol + c) * ns;
                size_t at = (size_t)c * ncell + (size_t)(first + q) * ns;
                memcpy(eps + at, ec, (size_t)ns * sizeof(double));
                for (int r = 0; sig && r < ns; r++) {
                    double v = 0.0;
                    for (int t = 0; r < nse && t < nse; t++)
                        v += D[r * nse + t] * ec[t];
                    sig[at + r] = scale * v;
                }
            }
        first += nq;
    }
    free(work);
    return KF_OK;
}

int kf_body_element_forces(const kf_body *b, int ncol, const double *d, double *f,
                           kf_error *err)
{
    int npts, ns, nemax;
    if (ncol < 0 || kf_body_point_count(b, &npts, &ns, &nemax))
        return kf_fail(err, KF_EINVAL, "d", "ncol = %d or the body's point count is out of range",
                       ncol);
    double *Ke = kf_calloc((size_t)KF_MAX_EDOF * KF_MAX_EDOF, sizeof(double));
    if (!Ke)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the element stiffness");
    memset(f, 0, (size_t)ncol * b->nel * nemax * sizeof(double));
    kf_qpoint p = {0};
    int more = kf_body_next_point(b, &p);
    while (more) {
        int e = p.e, ne = p.ne, dofs[KF_MAX_EDOF];
        const kf_element_type *el = type_of(b, e);
        double D[KF_MAX_STRAIN * KF_MAX_STRAIN];
        int nse = el->nstrain;
        el->dmat(&b->sec, D);
        memcpy(dofs, p.dofs, (size_t)ne * sizeof(int));
        memset(Ke, 0, (size_t)ne * ne * sizeof(double));
        kf_section es;
        if (el->stiffness)
            el->stiffness(p.xe, kf_body_esec(b, e, &es), Ke);
        for (; more && p.e == e; more = kf_body_next_point(b, &p)) {
            if (el->stiffness)
                continue;
            double DB[KF_MAX_STRAIN * KF_MAX_EDOF];
            for (int r = 0; r < nse; r++)
                for (int c = 0; c < ne; c++) {
                    double v = 0.0;
                    for (int t = 0; t < nse; t++)
                        v += D[r * nse + t] * p.B[t * ne + c];
                    DB[r * ne + c] = v;
                }
            for (int a = 0; a < ne; a++)
                for (int c = 0; c < ne; c++) {
                    double v = 0.0;
                    for (int r = 0; r < nse; r++)
                        v += p.B[r * ne + a] * DB[r * ne + c];
                    Ke[a * ne + c] += p.w * v;
                }
        }
        for (int c = 0; c < ncol; c++) {
            double *fe = f + ((size_t)c * b->nel + e) * nemax;
            const double *dc = d + (size_t)c * b->ndof;
            for (int a = 0; a < ne; a++) {
                double v = 0.0;
                for (int k = 0; k < ne; k++)
                    v += Ke[a * ne + k] * dc[dofs[k]];
                fe[a] = v;
            }
        }
    }
    free(Ke);
    return KF_OK;
}
