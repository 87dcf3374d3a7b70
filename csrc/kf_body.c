/*
 * kf_body.c -- a flexible body: its inertia invariants, stiffness and motion
 * terms (docs/theory.md section 1).
 *
 * The invariants
 *     S_ij = int rho N_i^T N_j dV,   s_ij = int rho N_i^T x_j dV,   Mo_i = int rho N_i^T dV
 * are integrated once, here, element by element, and assembled into the
 * body's storage.  Every motion term is then a short linear combination of
 * them (kf_body_combine), with no quadrature at run time.
 */
#include "kf_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

int kf_body_ndof(const kf_body *b) { return b->ndof; }
int kf_body_dim(const kf_body *b) { return b->dim; }
int kf_body_kind(const kf_body *b) { return b->kind; }
int kf_body_ndofn(const kf_body *b) { return b->ndofn; }
const kf_mat *kf_body_mass(const kf_body *b) { return &b->M; }
const kf_mat *kf_body_stiffness(const kf_body *b) { return &b->K; }
const kf_mat *kf_body_S(const kf_body *b, int i, int j)
{
    return b->nodal ? NULL : &b->S[i * b->dim + j];
}
const double *kf_body_s(const kf_body *b, int i, int j)
{
    return b->s + (size_t)(i * b->dim + j) * b->ndof;
}
const double *kf_body_Mo(const kf_body *b, int i) { return b->Mo + (size_t)i * b->ndof; }
const kf_pattern *kf_body_pattern(const kf_body *b) { return b->pattern; }
int kf_body_has_second(const kf_body *b) { return b->has_second; }
const kf_mat *kf_body_R(const kf_body *b, int i, int j)
{
    return b->has_second ? &b->R[i * b->dim + j] : NULL;
}

void kf_body_free(kf_body *b)
{
    if (!b)
        return;
    for (int k = 0; k < KF_MAX_DIM * KF_MAX_DIM; k++) {
        kf_mat_free(&b->S[k]);
        kf_mat_free(&b->R[k]);
    }
    kf_mat_free(&b->M);
    kf_mat_free(&b->K);
    for (int k = 0; k < KF_MAX_KG; k++) {
        kf_mat_free(&b->KG[k]);
        free(b->kgnode[k]);
    }
    for (int k = 0; k < 3; k++)
        kf_mat_free(&b->P[k]);
    kf_pattern_free(b->pattern); /* after the matrices that borrow it */
    free(b->mnode);
    free(b->pair);
    free(b->comp);
    free(b->coords);
    free(b->conn);
    free(b->els);
    free(b->eptr);
    free(b->eref);
    free(b->s);
    free(b->Mo);
    free(b);
}

/* Element e's kind and its nodes (a mixed body's per element). */
static const kf_element_type *elem_type(const kf_body *b, int e)
{
    return b->els ? b->els[e] : b->el;
}
static const int *elem_nodes(const kf_body *b, int e)
{
    return b->conn + (b->eptr ? (size_t)b->eptr[e] : (size_t)e * b->el->nnode);
}

/* Element DOF indices in the body: node-major. */
static void element_dofs(const kf_body *b, int e, int *dofs)
{
    const int *nodes = elem_nodes(b, e);
    for (int a = 0; a < elem_type(b, e)->nnode; a++)
        for (int k = 0; k < b->ndofn; k++)
            dofs[a * b->ndofn + k] = nodes[a] * b->ndofn + k;
}

static void element_coords(const kf_body *b, int e, double *xe)
{
    const int *nodes = elem_nodes(b, e);
    for (int a = 0; a < elem_type(b, e)->nnode; a++)
        for (int k = 0; k < b->dim; k++)
            xe[a * b->dim + k] = b->coords[(size_t)nodes[a] * b->dim + k];
}

/* Validate the mesh and decide the storage: a band when the connectivity
 * gives one (half-width bw) narrow enough to pay, dense otherwise. */
static int check_mesh(const kf_body *b, int *bw, kf_error *err)
{
    for (int i = 0; i < b->nnode * b->dim; i++)
        if (!isfinite(b->coords[i]))
            return kf_fail(err, KF_EINVAL, "coords", "node %d has a non-finite coordinate (%g)",
                           i / b->dim, b->coords[i]);
    unsigned char *used = kf_calloc((size_t)b->nnode, 1);
    if (!used)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate %d node flags", b->nnode);
    int width = 0, rc = KF_OK;
    for (int e = 0; e < b->nel && !rc; e++) {
        const int *nodes = elem_nodes(b, e);
        int lo = b->nnode, hi = -1, nn = elem_type(b, e)->nnode;
        for (int a = 0; a < nn; a++) {
            int v = nodes[a];
            if (v < 0 || v >= b->nnode) {
                rc = kf_fail(err, KF_EINVAL, "conn",
                             "element %d refers to node %d, outside 0..%d", e, v, b->nnode - 1);
                break;
            }
            for (int c = 0; c < a; c++)
                if (nodes[c] == v) {
                    rc = kf_fail(err, KF_EINVAL, "conn",
                                 "element %d uses node %d twice", e, v);
                    break;
                }
            used[v] = 1;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        if (rc)
            break;
        int w = (hi - lo + 1) * b->ndofn - 1;
        width = w > width ? w : width;
        double xe[KF_MAX_ENODE * KF_MAX_DIM];
        element_coords(b, e, xe);
        kf_section es;
        rc = elem_type(b, e)->check(xe, kf_body_esec(b, e, &es), e, err);
    }
    for (int v = 0; v < b->nnode && !rc; v++)
        if (!used[v])
            rc = kf_fail(err, KF_EINVAL, "conn",
                         "node %d belongs to no element (its mass would be zero)", v);
    free(used);
    *bw = width;
    return rc;
}

int kf_body_next_point(const kf_body *b, kf_qpoint *p)
{
    if (!p->started) {
        p->started = 1;
        p->e = p->q = 0;
    } else if (++p->q >= elem_type(b, p->e)->nquad) {
        p->q = 0;
        p->e++;
    }
    if (p->e >= b->nel)
        return 0;
    const kf_element_type *el = elem_type(b, p->e);
    if (p->q == 0) { /* a new element */
        p->ne = el->nnode * el->ndofn;
        element_dofs(b, p->e, p->dofs);
        element_coords(b, p->e, p->xe);
    }
    kf_section es;
    if (el->eval_section)
        el->eval_section(p->xe, kf_body_esec(b, p->e, &es), p->q, p->N, p->B, p->G, p->x, &p->w);
    else
        el->eval(p->xe, p->q, p->N, p->B, p->G, p->x, &p->w);
    return 1;
}

/* The mass, mass centre and second moments about it of a body of elements, by its
 * quadrature (kf_body_rigid). */
static int element_moments(const kf_body *b, double *m, double xc[3], double Ic[9], kf_error *err)
{
    /* two passes: the second moments about the mass centre itself, not by the
     * difference of moments about the frame's origin, which cancels for a body
     * far from it */
    double s0 = 0.0, s1[3] = {0.0, 0.0, 0.0};
    kf_qpoint p = {0};
    while (kf_body_next_point(b, &p)) {
        double w = elem_type(b, p.e)->mu(&b->sec) * p.w;
        s0 += w;
        for (int i = 0; i < b->dim; i++)
            s1[i] += w * p.x[i];
    }
    for (int i = 0; i < 3; i++)
        xc[i] = s0 > 0.0 ? s1[i] / s0 : 0.0;
    for (int k = 0; k < 9; k++)
        Ic[k] = 0.0;
    p = (kf_qpoint){0};
    while (kf_body_next_point(b, &p)) {
        double w = elem_type(b, p.e)->mu(&b->sec) * p.w, r[3] = {0};
        for (int i = 0; i < b->dim; i++)
            r[i] = p.x[i] - xc[i];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Ic[3 * i + j] += w * r[i] * r[j];
    }
    *m = s0;
    if (!(s0 > 0.0) || !isfinite(s0) || !kf_vec_finite(9, Ic))
        return kf_fail(err, KF_ERANGE, "body", "the body's mass %g or its second moments are not "
                       "positive and finite", s0);
    return KF_OK;
}

/* ---------------------------------------------------------------- sparse pattern */

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/*
 * The CSR pattern of a mesh (docs/theory.md section 3.11): DOF (v, k) couples
 * with every DOF (w, l) of the nodes w that share an element with v, so the
 * rows of one node have the same sorted columns, in blocks of ndofn.  Built
 * from the node-element incidence with a marker array: O(nnz) work and memory.
 */
static int build_pattern(kf_body *b, kf_error *err)
{
    int nn = b->nnode, nf = b->ndofn;
    size_t nconn = b->eptr ? (size_t)b->eptr[b->nel] : (size_t)b->nel * b->el->nnode;
    int *cnt = kf_calloc((size_t)nn + 1, sizeof(int)), *inc = NULL, *mark = NULL,
        *adj = NULL, *adjptr = NULL;
    kf_pattern *p = kf_calloc(1, sizeof *p);
    int rc = KF_OK;
    if (!cnt || !p)
        goto nomem;
    /* node -> elements (incidence, CSR in cnt/inc) */
    for (size_t k = 0; k < nconn; k++)
        cnt[b->conn[k] + 1]++;
    for (int v = 0; v < nn; v++)
        cnt[v + 1] += cnt[v];
    inc = kf_calloc(nconn > 0 ? nconn : 1, sizeof(int));
    mark = kf_calloc((size_t)nn, sizeof(int));
    adjptr = kf_calloc((size_t)nn + 1, sizeof(int));
    if (!inc || !mark || !adjptr)
        goto nomem;
    {
        int *fill = mark; /* reused as the fill pointer, then reset */
        for (int v = 0; v < nn; v++)
            fill[v] = cnt[v];
        for (int e = 0; e < b->nel; e++)
            for (int a = 0; a < elem_type(b, e)->nnode; a++)
                inc[fill[elem_nodes(b, e)[a]]++] = e;
        for (int v = 0; v < nn; v++)
            mark[v] = -1;
    }
    /* node adjacency: count, then fill and sort each row */
    size_t nadj = 0;
    for (int v = 0; v < nn; v++) {
        int c = 0;
        for (int k = cnt[v]; k < cnt[v + 1]; k++)
            for (int a = 0; a < elem_type(b, inc[k])->nnode; a++) {
                int w = elem_nodes(b, inc[k])[a];
                if (mark[w] != v) {
                    mark[w] = v;
                    c++;
                }
            }
        nadj += (size_t)c;
        if (nadj * nf * nf > (size_t)0x7fffffff) {
            rc = kf_fail(err, KF_EINVAL, "cells", "the mesh couples more than 2^31 DOF pairs "
                         "(its sparse pattern would overflow 32-bit indices)");
            goto done;
        }
        adjptr[v + 1] = (int)nadj;
    }
    adj = kf_calloc(nadj > 0 ? nadj : 1, sizeof(int));
    if (!adj)
        goto nomem;
    for (int v = 0; v < nn; v++)
        mark[v] = -1;
    for (int v = 0; v < nn; v++) {
        int c = adjptr[v];
        for (int k = cnt[v]; k < cnt[v + 1]; k++)
            for (int a = 0; a < elem_type(b, inc[k])->nnode; a++) {
                int w = elem_nodes(b, inc[k])[a];
                if (mark[w] != v) {
                    mark[w] = v;
                    adj[c++] = w;
                }
            }
        qsort(adj + adjptr[v], (size_t)(adjptr[v + 1] - adjptr[v]), sizeof(int), cmp_int);
    }
    /* DOF pattern */
    p->n = b->ndof;
    p->nnz = (int)(nadj * nf * nf);
    p->ptr = kf_calloc((size_t)p->n + 1, sizeof(int));
    p->col = kf_calloc(p->nnz > 0 ? (size_t)p->nnz : 1, sizeof(int));
    if (!p->ptr || !p->col)
        goto nomem;
    if (b->nodal) { /* node pair t of entry (v k, w l) and the component k of DOF v k */
        b->npair = (int)nadj;
        b->pair = kf_calloc(p->nnz > 0 ? (size_t)p->nnz : 1, sizeof(int));
        b->comp = kf_calloc((size_t)p->n, 1);
        b->mnode = kf_calloc(nadj > 0 ? nadj : 1, sizeof(double));
        if (!b->pair || !b->comp || !b->mnode)
            goto nomem;
    }
    {
        int q = 0;
        for (int v = 0; v < nn; v++)
            for (int k = 0; k < nf; k++) {
                p->ptr[v * nf + k] = q;
                if (b->nodal)
                    b->comp[v * nf + k] = (unsigned char)k;
                for (int t = adjptr[v]; t < adjptr[v + 1]; t++)
                    for (int l = 0; l < nf; l++) {
                        if (b->nodal)
                            b->pair[q] = t;
                        p->col[q++] = adj[t] * nf + l;
                    }
            }
        p->ptr[p->n] = q;
    }
    b->pattern = p;
    p = NULL;
    goto done;
nomem:
    rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the sparse pattern of %d nodes", nn);
done:
    kf_pattern_free(p);
    free(cnt);
    free(inc);
    free(mark);
    free(adj);
    free(adjptr);
    return rc;
}

/* ---------------------------------------------------------------- assembly */

/*
 * Where each entry (a, c) of element e's matrices goes: an index into the
 * values of a CSR body (pos, ne x ne).  The rows of a node share their
 * columns, so one search per node pair suffices.
 */
static void element_positions(const kf_body *b, int e, int *pos)
{
    const kf_pattern *p = b->pattern;
    int nn = elem_type(b, e)->nnode, nf = b->ndofn, ne = nn * nf;
    const int *nodes = elem_nodes(b, e);
    for (int A = 0; A < nn; A++) {
        int r0 = nodes[A] * nf, base = p->ptr[r0];
        for (int C = 0; C < nn; C++) {
            int lo = base, hi = p->ptr[r0 + 1] - 1, want = nodes[C] * nf;
            while (lo < hi) { /* first column >= want: it is there */
                int mid = lo + (hi - lo) / 2;
                if (p->col[mid] < want)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            int off = lo - base;
            for (int k = 0; k < nf; k++)
                for (int l = 0; l < nf; l++)
                    pos[(A * nf + k) * ne + C * nf + l] = p->ptr[r0 + k] + off + l;
        }
    }
}

/* dst += the element matrix Xe (ne x ne, row-major) at the element's DOFs;
 * zero entries are skipped (they may lie outside a band). */
static void scatter(const kf_body *b, kf_mat *dst, const double *Xe, int ne, const int *dofs,
                    const int *pos)
{
    for (int a = 0; a < ne; a++)
        for (int c = 0; c < ne; c++) {
            double v = Xe[a * ne + c];
            if (v == 0.0)
                continue;
            if (pos)
                dst->a[pos[a * ne + c]] += v;
            else
                kf_mat_add(dst, dofs[a], dofs[c], v);
        }
}

/* node[pair] += the element's nodal matrix Xn (nn x nn, row-major, nn = ne / dim) of a
 * nodal body, at the node pairs of its entries (zero entries skipped, as scatter) */
static void scatter_nodal(const kf_body *b, double *node, const double *Xn, int ne,
                          const int *pos)
{
    int nf = b->ndofn, nn = ne / nf;
    for (int A = 0; A < nn; A++)
        for (int C = 0; C < nn; C++) {
            double v = Xn[A * nn + C];
            if (v != 0.0)
                node[b->pair[pos[(A * nf) * ne + C * nf]]] += v;
        }
}

/*
 * The geometric rows of a line element at a quadrature point and their weights:
 * K_G at the point is w N sum_r wt[r] g_r^T g_r for the axial force N.  The
 * element's slope rows G (the lateral slopes) with weight 1, and for the spatial
 * beam the twist rate theta_a' (its strain row 3) with weight Ip / A, Ip = Izz +
 * Iyy: the tension-torsion ("trapeze") term N Ip / A theta_a'^2 (section 2.4).
 * Returns the number of rows (at most 3).
 */
static int geo_rows(const kf_body *b, const kf_element_type *ele, const kf_qpoint *p,
                    const double **rows, double *wt)
{
    int nr = 0;
    for (int r = 0; r < ele->ngeo; r++) {
        rows[nr] = p->G + r * p->ne;
        wt[nr++] = 1.0;
    }
    if (ele == kf_element_get(KF_BEAM3D)) {
        rows[nr] = p->B + 3 * p->ne;
        wt[nr++] = (b->sec.Izz + b->sec.Iyy) / b->sec.A;
    }
    return nr;
}

/* Xe[a, c] += f sum_r wt[r] g_r[a] g_r[c] (ne x ne, row-major) */
static void add_geo(int ne, int nr, const double **rows, const double *wt, double f, double *Xe)
{
    if (f == 0.0)
        return;
    for (int a = 0; a < ne; a++)
        for (int c = 0; c < ne; c++) {
            double v = 0.0;
            for (int r = 0; r < nr; r++)
                v += wt[r] * rows[r][a] * rows[r][c];
            if (v != 0.0)
                Xe[(size_t)a * ne + c] += f * v;
        }
}

static void planar_basis(kf_body *b);

/* M = sum_i S_ii and, for a planar body, the basis of kf_body_combine (P allocated
 * like M, zero): P0 = S_xx - S_yy, P1 = S_yx - S_xy, P2 = S_xy + S_yx. */
static void mass_and_basis(kf_body *b)
{
    int dim = b->dim;
    if (b->nodal) { /* M = m (x) I: m on the entries of one component, else zero */
        const kf_pattern *p = b->M.pat;
        for (int r = 0; r < p->n; r++)
            for (int q = p->ptr[r]; q < p->ptr[r + 1]; q++)
                b->M.a[q] = b->comp[r] == b->comp[p->col[q]] ? b->mnode[b->pair[q]] : 0.0;
        return;
    }
    kf_mat_zero(&b->M);
    for (int i = 0; i < dim; i++)
        kf_mat_axpy(&b->M, 1.0, &b->S[i * dim + i]);
    planar_basis(b);
}

/* The planar basis of kf_body_combine (P allocated like M, zero) from S. */
static void planar_basis(kf_body *b)
{
    if (b->dim == 2) {
        const kf_mat *Sxx = &b->S[0], *Sxy = &b->S[1], *Syx = &b->S[2], *Syy = &b->S[3];
        kf_mat_axpy(&b->P[0], 1.0, Sxx);
        kf_mat_axpy(&b->P[0], -1.0, Syy);
        kf_mat_axpy(&b->P[1], 1.0, Syx);
        kf_mat_axpy(&b->P[1], -1.0, Sxy);
        kf_mat_axpy(&b->P[2], 1.0, Sxy);
        kf_mat_axpy(&b->P[2], 1.0, Syx);
    }
}

/*
 * Integrate and assemble the invariants and K.  Each element's matrices are
 * summed over its quadrature points first, then added to the body once: for a
 * CSR body at positions found once per element (element_positions).
 */
static int assemble(kf_body *b, kf_error *err)
{
    /* the kinds of a mixed body share dim, ndofn, nstrain, mu and dmat (one
     * dimension); the work space takes the largest element */
    const kf_element_type *el = b->el;
    int dim = b->dim, ns = el->nstrain, nemax = el->nnode * el->ndofn, dd = dim * dim;
    for (int e = 0; b->els && e < b->nel; e++)
        if (b->els[e]->nnode * b->els[e]->ndofn > nemax)
            nemax = b->els[e]->nnode * b->els[e]->ndofn;
    size_t ne2 = (size_t)nemax * nemax;
    int geo = b->has_geometric && el->ngeo > 0, sec2 = b->has_second, nodal = b->nodal;
    /* element work: S_ij (dd blocks), K, K_G basis (3), R_ij (dd), CSR positions */
    size_t nwork = (size_t)(dd + 1 + (geo ? 3 : 0) + (sec2 ? dd : 0)) * ne2;
    double *work = kf_calloc(nwork, sizeof(double));
    int *pos = b->pattern ? kf_calloc(ne2, sizeof(int)) : NULL;
    if (!work || (b->pattern && !pos)) {
        free(work);
        free(pos);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the element work space");
    }
    double *Se = work, *Ke = work + dd * ne2, *KGe = Ke + ne2;
    double *Re = KGe + (geo ? 3 : 0) * ne2;
    double mu = el->mu(&b->sec);
    double D[KF_MAX_STRAIN * KF_MAX_STRAIN];
    el->dmat(&b->sec, D);
    kf_qpoint p = {0};
    int more = kf_body_next_point(b, &p);
    while (more) {
        int e = p.e, ne = p.ne;
        const kf_element_type *ele = elem_type(b, e);
        memset(work, 0, nwork * sizeof(double));
        int dofs[KF_MAX_EDOF];
        memcpy(dofs, p.dofs, (size_t)ne * sizeof(int));
        for (; more && p.e == e; more = kf_body_next_point(b, &p)) {
            const double *N = p.N, *B = p.B, *G = p.G, *x = p.x;
            double w = p.w, mw = mu * w;
            for (int i = 0; i < dim; i++) {
                const double *Ni = N + i * ne;
                for (int a = 0; a < ne; a++) {
                    if (Ni[a] == 0.0)
                        continue;
                    b->Mo[(size_t)i * b->ndof + dofs[a]] += mw * Ni[a];
                    for (int j = 0; j < dim; j++) {
                        b->s[(size_t)(i * dim + j) * b->ndof + dofs[a]] += mw * Ni[a] * x[j];
                        if (nodal)
                            continue;
                        const double *Nj = N + j * ne;
                        double *Sij = Se + (i * dim + j) * ne2 + (size_t)a * ne;
                        for (int c = 0; c < ne; c++)
                            if (Nj[c] != 0.0)
                                /* mw (Ni Nj): bitwise S_ij = S_ji^T, so M is exactly symmetric */
                                Sij[c] += mw * (Ni[a] * Nj[c]);
                    }
                }
            }
            /* a nodal body: m_AC += mw (phi_A phi_C), phi_A = N_x at DOF A dim, the value
             * S_ii takes at (A i, C i) (Se holds the nn x nn element m) */
            for (int A = 0, nn = ne / dim; nodal && A < nn; A++) {
                double pa = N[A * dim];
                for (int C = 0; pa != 0.0 && C < nn; C++)
                    if (N[C * dim] != 0.0)
                        Se[A * nn + C] += mw * (pa * N[C * dim]);
            }
            /* geometric basis: KG[k] += w x^k (G^T G [+ Ip/A th'^T th']) */
            if (geo) {
                const double *rows[3];
                double wt[3], xpow[3] = {1.0, x[0], x[0] * x[0]};
                int nr = geo_rows(b, ele, &p, rows, wt);
                for (int k = 0; k < 3; k++)
                    add_geo(ne, nr, rows, wt, w * xpow[k], KGe + k * ne2);
            }
            (void)G;
            /* second-order rotation: R_ij += mu w H_i x_j with the Hessian
             * H_i = 1/2 (Th_i^T g + g^T Th_i) - r_i Th^T Th, g = r^T Th, of
             * u_i = 1/2 (theta x (theta x r))_i = 1/2 (theta_i (theta . r) - |theta|^2 r_i) */
            double Th[3 * KF_MAX_EDOF], rr[3];
            kf_section es;
            if (sec2 && ele->second && ele->second(p.xe, kf_body_esec(b, p.e, &es), p.q, Th, rr)) {
                double g[KF_MAX_EDOF];
                for (int a = 0; a < ne; a++)
                    g[a] = rr[0] * Th[a] + rr[1] * Th[ne + a] + rr[2] * Th[2 * ne + a];
                for (int a = 0; a < ne; a++)
                    for (int c = 0; c < ne; c++) {
                        double tt = Th[a] * Th[c] + Th[ne + a] * Th[ne + c] +
                                    Th[2 * ne + a] * Th[2 * ne + c];
                        if (tt == 0.0 && g[a] == 0.0 && g[c] == 0.0)
                            continue;
                        for (int i = 0; i < dim; i++) {
                            const double *Ti = Th + i * ne;
                            double h = 0.5 * (Ti[a] * g[c] + g[a] * Ti[c]) - rr[i] * tt;
                            for (int j = 0; j < dim; j++)
                                Re[(i * dim + j) * ne2 + (size_t)a * ne + c] += mw * h * x[j];
                        }
                    }
            }
            /* K += w B^T D B over the nonzero entries of B (a continuum element's
             * column has one to three of its six strains); a kind with its own
             * stiffness adds it once per element below */
            if (ele->stiffness)
                continue;
            double DB[KF_MAX_STRAIN * KF_MAX_EDOF];
            int nz[KF_MAX_EDOF], nnz = 0, rows[KF_MAX_EDOF][KF_MAX_STRAIN], nrow[KF_MAX_EDOF];
            for (int c = 0; c < ne; c++) {
                int k = 0;
                for (int r = 0; r < ns; r++)
                    if (B[r * ne + c] != 0.0)
                        rows[nnz][k++] = r;
                if (k) {
                    nrow[nnz] = k;
                    nz[nnz++] = c;
                }
            }
            for (int t = 0; t < nnz; t++) {
                int c = nz[t];
                for (int r = 0; r < ns; r++) {
                    double v = 0.0;
                    for (int q = 0; q < nrow[t]; q++)
                        v += D[r * ns + rows[t][q]] * B[rows[t][q] * ne + c];
                    DB[r * ne + c] = v;
                }
            }
            for (int ta = 0; ta < nnz; ta++) {
                int a = nz[ta];
                double *Ka = Ke + (size_t)a * ne;
                for (int tc = 0; tc < nnz; tc++) {
                    int c = nz[tc];
                    double v = 0.0;
                    for (int q = 0; q < nrow[ta]; q++)
                        v += B[rows[ta][q] * ne + a] * DB[rows[ta][q] * ne + c];
                    Ka[c] += w * v;
                }
            }
        }
        if (ele->stiffness) {
            double xe[KF_MAX_ENODE * KF_MAX_DIM];
            element_coords(b, e, xe);
            kf_section es;
            ele->stiffness(xe, kf_body_esec(b, e, &es), Ke);
        }
        if (pos)
            element_positions(b, e, pos);
        if (nodal)
            scatter_nodal(b, b->mnode, Se, ne, pos);
        for (int k = 0; k < dd && !nodal; k++)
            scatter(b, &b->S[k], Se + k * ne2, ne, dofs, pos);
        scatter(b, &b->K, Ke, ne, dofs, pos);
        for (int k = 0; k < 3 && geo; k++)
            scatter(b, &b->KG[k], KGe + k * ne2, ne, dofs, pos);
        for (int k = 0; k < dd && sec2; k++)
            scatter(b, &b->R[k], Re + k * ne2, ne, dofs, pos);
    }
    free(work);
    free(pos);
    mass_and_basis(b);
    return KF_OK;
}

/* The section and the mesh can be valid numbers whose products leave the
 * double range (E I / l^3 overflowing, rho A l underflowing): say which. */
static int check_scale(const kf_body *b, kf_error *err)
{
    const kf_section *c = &b->sec;
    int massive = kf_mat_finite(&b->M) && kf_vec_finite((size_t)b->dim * b->ndof, b->Mo);
    for (int k = 0; k < b->dim * b->dim && massive; k++)
        massive = kf_vec_finite((size_t)b->ndof, b->s + (size_t)k * b->ndof);
    if (!massive)
        return kf_fail(err, KF_ERANGE, "rho",
                       "the mass matrix or its first moments overflow (rho = %g, A = %g, node "
                       "coordinates up to the mesh's extent): rescale the units", c->rho, c->A);
    for (int i = 0; i < b->ndof; i++) {
        double m = kf_mat_get(&b->M, i, i);
        if (!(m >= DBL_MIN))
            return kf_fail(err, KF_ERANGE, "rho",
                           "the mass of DOF %d is %g, below the smallest normal double: rho = %g "
                           "and A = %g make the element masses underflow", i, m, c->rho, c->A);
    }
    char bend[64] = "";
    if (c->Izz > 0.0)
        snprintf(bend, sizeof bend, ", I = %g", c->Izz);
    if (!kf_mat_finite(&b->K))
        return kf_fail(err, KF_ERANGE, "E",
                       "the stiffness matrix overflows: E = %g with A = %g%s and the element "
                       "lengths give E A / l^2 or E I / l^4 (B^T D B) beyond the double range",
                       c->E, c->A, bend);
    /* Every DOF has a stiffness (K is positive semidefinite with a positive
     * diagonal for every element kind) and a frequency scale k_ii / m_ii that
     * the eigen solvers can square and factor: 16 orders inside the doubles. */
    double kmax = 0.0;
    for (int i = 0; i < b->ndof; i++) {
        double k = kf_mat_get(&b->K, i, i), m = kf_mat_get(&b->M, i, i);
        if (k > kmax)
            kmax = k;
        if (k == 0.0) /* a bar's lateral DOFs carry no stiffness */
            continue;
        if (!(k >= DBL_MIN))
            return kf_fail(err, KF_ERANGE, "E",
                           "the stiffness of DOF %d is %g, below the smallest normal double: "
                           "E = %g with A = %g%s makes the element stiffnesses underflow",
                           i, k, c->E, c->A, bend);
        if (!(k / m >= 1e16 * DBL_MIN && k / m <= DBL_MAX / 1e16))
            return kf_fail(err, KF_ERANGE, "E",
                           "DOF %d's frequency scale k/m = %g rad^2/s^2 lies within 16 orders "
                           "of the double range's ends (eigenvalues would lose every digit): "
                           "E = %g, rho = %g, A = %g%s with these element lengths",
                           i, k / m, c->E, c->rho, c->A, bend);
    }
    if (!(kmax >= DBL_MIN))
        return kf_fail(err, KF_ERANGE, "E",
                       "the stiffness matrix is zero: E = %g with A = %g%s makes the element "
                       "stiffnesses underflow", c->E, c->A, bend);
    return KF_OK;
}

int kf_body_create(kf_body **out, int kind, int nnode, const double *coords, int nel,
                   const int *conn, const kf_section *sec, kf_error *err)
{
    return kf_body_create_storage(out, kind, nnode, coords, nel, conn, sec, -1, err);
}

/* Dense storage beyond this many DOFs is refused (n^2 doubles per matrix). */
#define KF_BODY_DENSE_MAX 20000

/* A body of one kind (els, eptr NULL) or a mixed one (els, eptr: nel and nel + 1
 * entries, checked by the caller; kind is then the first element's). */
static int body_build(kf_body **out, int kind, int nnode, const double *coords, int nel,
                      const int *conn, const kf_element_type *const *els, const int *eptr,
                      const kf_section *sec, const double *refs, int storage, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    const kf_element_type *el = kf_element_get(kind);
    if (!el)
        return kf_fail(err, KF_EINVAL, "kind", "unknown element kind %d", kind);
    if (nnode < el->nnode)
        return kf_fail(err, KF_EINVAL, "nnode", "nnode = %d: a %s body needs at least %d nodes",
                       nnode, el->name, el->nnode);
    if (nel < 1)
        return kf_fail(err, KF_EINVAL, "nel", "nel = %d: a body needs at least one element",
                       nel);
    if (!coords || !conn || !sec)
        return kf_fail(err, KF_EINVAL, "coords", "coords, conn and sec must not be NULL");
    if ((size_t)nnode * el->ndofn > (size_t)1 << 28)
        return kf_fail(err, KF_EINVAL, "nnode", "nnode = %d is too large", nnode);
    if (storage < -1 || storage > KF_CSR)
        return kf_fail(err, KF_EINVAL, "storage", "storage = %d is not -1 (automatic), %d "
                       "(dense), %d (band) or %d (CSR)", storage, KF_DENSE, KF_BAND, KF_CSR);
    if (storage == KF_DENSE && (size_t)nnode * el->ndofn > KF_BODY_DENSE_MAX)
        return kf_fail(err, KF_EINVAL, "storage", "dense storage of %zu DOFs would take %zu "
                       "doubles per matrix: use sparse (CSR) storage beyond %d DOFs",
                       (size_t)nnode * el->ndofn, (size_t)nnode * el->ndofn * nnode * el->ndofn,
                       KF_BODY_DENSE_MAX);

    kf_body *b = kf_calloc(1, sizeof *b);
    if (!b)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a body");
    b->el = el;
    b->kind = kind;
    b->dim = el->dim;
    b->nnode = nnode;
    b->ndofn = el->ndofn;
    b->ndof = nnode * el->ndofn;
    b->nel = nel;
    b->sec = *sec;
    size_t nconn = eptr ? (size_t)eptr[nel] : (size_t)nel * el->nnode;
    b->coords = kf_calloc((size_t)nnode * b->dim, sizeof(double));
    b->conn = kf_calloc(nconn, sizeof(int));
    b->s = kf_calloc((size_t)b->dim * b->dim * b->ndof, sizeof(double));
    b->Mo = kf_calloc((size_t)b->dim * b->ndof, sizeof(double));
    if (eptr) {
        b->els = kf_calloc((size_t)nel, sizeof *b->els);
        b->eptr = kf_calloc((size_t)nel + 1, sizeof(int));
    }
    if (refs && (b->eref = kf_calloc((size_t)nel * 3, sizeof(double))))
        memcpy(b->eref, refs, (size_t)nel * 3 * sizeof(double));
    int rc = KF_OK;
    if (!b->coords || !b->conn || !b->s || !b->Mo || (eptr && (!b->els || !b->eptr)) ||
        (refs && !b->eref)) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a body of %d nodes", nnode);
        goto fail;
    }
    memcpy(b->coords, coords, (size_t)nnode * b->dim * sizeof(double));
    memcpy(b->conn, conn, nconn * sizeof(int));
    if (eptr) {
        memcpy(b->els, els, (size_t)nel * sizeof *b->els);
        memcpy(b->eptr, eptr, ((size_t)nel + 1) * sizeof(int));
    }

    int bw = 0;
    rc = check_mesh(b, &bw, err);
    if (rc)
        goto fail;
    /* automatic: CSR for meshes, a band for a chain of line elements when it
     * is narrow enough to pay, dense otherwise */
    kf_storage kind_st = (3 * bw + 1 < b->ndof) ? KF_BAND : KF_DENSE;
    if (storage >= 0)
        kind_st = (kf_storage)storage;
    else if (kind >= KF_TRI3 && kind <= KF_CONTINUUM_LAST)
        kind_st = KF_CSR;
    if (kind_st == KF_DENSE && b->ndof > KF_BODY_DENSE_MAX) {
        rc = kf_fail(err, KF_EINVAL, "storage", "the connectivity of these %d DOFs has no narrow "
                     "band, and dense storage is refused beyond %d DOFs: use CSR storage",
                     b->ndof, KF_BODY_DENSE_MAX);
        goto fail;
    }
    /* plane and solid elements in CSR storage: the nodal mass instead of dim^2 blocks */
    b->nodal = kind_st == KF_CSR && kind >= KF_TRI3 && kind <= KF_CONTINUUM_LAST &&
               b->ndofn == b->dim;
    if (kind_st == KF_CSR && (rc = build_pattern(b, err)))
        goto fail;
    /* a straight line body on the x axis, nodes from xa (first) to xb (last),
     * has a geometric stiffness in terms of its axial force N(x) */
    b->xa = b->coords[0];
    b->xb = b->coords[(size_t)(nnode - 1) * b->dim];
    b->has_geometric = el->nnode == 2 && b->xb > b->xa;
    for (int v = 0; v < nnode && b->has_geometric; v++) {
        const double *p = b->coords + (size_t)v * b->dim;
        b->has_geometric = p[0] >= b->xa && p[0] <= b->xb;
        for (int k = 1; k < b->dim; k++)
            b->has_geometric &= p[k] == 0.0;
    }
    /* M first; every other matrix is made like it */
    rc = kind_st == KF_CSR ? kf_mat_alloc_csr(&b->M, b->pattern, err)
                           : kf_mat_alloc(&b->M, kind_st, b->ndof, bw, bw, err);
    b->nkg = b->has_geometric ? 3 : 0;
    for (int k = 0; k < 3 && !rc && b->has_geometric && el->ngeo > 0; k++)
        rc = kf_mat_alloc_like(&b->KG[k], &b->M, err);
    for (int k = 0; k < b->dim * b->dim && !rc && !b->nodal; k++)
        rc = kf_mat_alloc_like(&b->S[k], &b->M, err);
    if (!rc)
        rc = kf_mat_alloc_like(&b->K, &b->M, err);
    for (int k = 0; k < 3 && !rc && b->dim == 2 && !b->nodal; k++)
        rc = kf_mat_alloc_like(&b->P[k], &b->M, err);
    /* sections turning to second order (docs/theory.md section 2.9) */
    b->has_second = !els && el->second && b->sec.rotary != 0.0;
    for (int k = 0; k < b->dim * b->dim && !rc && b->has_second; k++)
        rc = kf_mat_alloc_like(&b->R[k], &b->M, err);
    if (rc || (rc = assemble(b, err)))
        goto fail;
    if ((rc = check_scale(b, err)))
        goto fail;
    *out = b;
    return KF_OK;
fail:
    kf_body_free(b);
    return rc;
}

int kf_body_create_storage(kf_body **out, int kind, int nnode, const double *coords, int nel,
                           const int *conn, const kf_section *sec, int storage, kf_error *err)
{
    return body_build(out, kind, nnode, coords, nel, conn, NULL, NULL, sec, NULL, storage, err);
}

int kf_body_create_refs(kf_body **out, int kind, int nnode, const double *coords, int nel,
                        const int *conn, const kf_section *sec, const double *refs, int storage,
                        kf_error *err)
{
    if (refs && kind != KF_BEAM3D)
        return kf_fail(err, KF_EINVAL, "ref", "a reference direction per element orients "
                       "spatial beam sections only (kind %d)", kind);
    return body_build(out, kind, nnode, coords, nel, conn, NULL, NULL, sec, refs, storage, err);
}

int kf_body_create_mixed(kf_body **out, int nnode, const double *coords, int nel,
                         const int *kinds, const int *ptr, const int *conn,
                         const kf_section *sec, int storage, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (nel < 1)
        return kf_fail(err, KF_EINVAL, "nel", "nel = %d: a body needs at least one element",
                       nel);
    if (!kinds || !ptr)
        return kf_fail(err, KF_EINVAL, "kinds", "kinds and ptr must not be NULL");
    if (ptr[0] != 0)
        return kf_fail(err, KF_EINVAL, "ptr", "ptr[0] = %d must be 0", ptr[0]);
    const kf_element_type **els = kf_calloc((size_t)nel, sizeof *els);
    if (!els)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the kinds of %d elements", nel);
    int rc = KF_OK, dim = 0;
    for (int e = 0; e < nel && !rc; e++) {
        int k = kinds[e];
        if (k < KF_TRI3 || k > KF_CONTINUUM_LAST) {
            rc = kf_fail(err, KF_EINVAL, "kinds", "element %d has kind %d: a mixed mesh takes "
                         "plane and solid kinds (%d..%d)", e, k, KF_TRI3, KF_CONTINUUM_LAST);
            break;
        }
        els[e] = kf_element_get(k);
        if (e == 0)
            dim = els[0]->dim;
        long long count = (long long)ptr[e + 1] - ptr[e];
        if (els[e]->dim != dim)
            rc = kf_fail(err, KF_EINVAL, "kinds", "element %d is a %s (dimension %d) in a mesh "
                         "of dimension %d: one mesh holds plane or solid cells, not both",
                         e, els[e]->name, els[e]->dim, dim);
        else if (count != els[e]->nnode)
            rc = kf_fail(err, KF_EINVAL, "ptr", "element %d (%s) has %lld nodes in ptr, its kind "
                         "%d", e, els[e]->name, count, els[e]->nnode);
    }
    if (!rc)
        rc = body_build(out, kinds[0], nnode, coords, nel, conn, els, ptr, sec, NULL, storage, err);
    free(els);
    return rc;
}

/* ---------------------------------------------------------------- given (reduced) bodies */

/* dst (dense n x n, allocated) = the row-major src; symmetric: src must equal its
 * transpose to a relative tol of its largest entry (KF_EINVAL naming `name`), and dst is
 * made exactly symmetric (the mean of the two triangles). */
static int given_matrix(kf_mat *dst, int n, const double *src, int symmetric, const char *name,
                        int index, kf_error *err)
{
    int rc = kf_mat_alloc(dst, KF_DENSE, n, 0, 0, err);
    if (rc)
        return rc;
    double big = 0.0;
    for (size_t k = 0; k < (size_t)n * n; k++) {
        if (!isfinite(src[k]))
            return kf_fail(err, KF_EINVAL, name, "%s[%d] entry (%d, %d) is %g: must be finite",
                           name, index, (int)(k / n), (int)(k % n), src[k]);
        big = fabs(src[k]) > big ? fabs(src[k]) : big;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = src[(size_t)i * n + j];
            if (symmetric) {
                double w = src[(size_t)j * n + i];
                if (fabs(v - w) > 1e-10 * big)
                    return kf_fail(err, KF_EINVAL, name, "%s[%d] is not symmetric: entry (%d, %d) "
                                   "= %.17g, (%d, %d) = %.17g", name, index, i, j, v, j, i, w);
                v = i < j ? 0.5 * (v + w) : i > j ? 0.5 * (w + v) : v;
            }
            dst->a[i + (size_t)j * dst->ld] = v;
        }
    return KF_OK;
}

int kf_body_create_given(kf_body **out, int dim, int n, const double *S, const double *R,
                         const double *K, const double *s, const double *Mo, int nkg,
                         const double *KG, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (dim != 2 && dim != 3)
        return kf_fail(err, KF_EINVAL, "dim", "dim = %d must be 2 or 3", dim);
    if (n < 1 || n > KF_BODY_DENSE_MAX)
        return kf_fail(err, KF_EINVAL, "n", "n = %d coordinates: a given body takes 1..%d", n,
                       KF_BODY_DENSE_MAX);
    int dd = dim * dim;
    if (nkg != 0 && (nkg < dim + dd || nkg - dim - dd > n || nkg > KF_MAX_KG))
        return kf_fail(err, KF_EINVAL, "KG", "nkg = %d: a given body's K_G basis has 0 or dim + "
                       "dim^2 = %d inertial load cases and at most min(n = %d, %d) coordinate "
                       "load cases", nkg, dim + dd, n, KF_MAX_KG - dim - dd);
    if (!S || !K || !s || !Mo || (nkg && !KG))
        return kf_fail(err, KF_EINVAL, "S", "S, K, s, Mo (and KG with nkg > 0) must not be NULL");
    for (size_t k = 0; k < (size_t)(dd + dim) * n; k++) {
        double v = k < (size_t)dd * n ? s[k] : Mo[k - (size_t)dd * n];
        if (!isfinite(v))
            return kf_fail(err, KF_EINVAL, k < (size_t)dd * n ? "s" : "Mo",
                           "the first moments must be finite (entry %zu is %g)", k, v);
    }
    kf_body *b = kf_calloc(1, sizeof *b);
    if (!b)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a body");
    b->el = NULL;
    b->kind = -1;
    b->dim = dim;
    b->nnode = 1; /* no nodes: one "node" of n coordinates (kf_body_ode's end DOFs are 0) */
    b->ndofn = n;
    b->ndof = n;
    b->nel = 0;
    b->reduced = b->given = 1;
    b->has_second = R != NULL;
    b->has_geometric = b->prestress = nkg > 0;
    b->nkg = nkg;
    b->s = kf_calloc((size_t)dd * n, sizeof(double));
    b->Mo = kf_calloc((size_t)dim * n, sizeof(double));
    int rc = KF_OK;
    size_t nn = (size_t)n * n;
    if (!b->s || !b->Mo) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a body of %d coordinates", n);
        goto fail;
    }
    memcpy(b->s, s, (size_t)dd * n * sizeof(double));
    memcpy(b->Mo, Mo, (size_t)dim * n * sizeof(double));
    /* S_ij for i <= j as given (S_ii exactly symmetric), S_ji = S_ij^T exactly */
    for (int i = 0; i < dim && !rc; i++)
        for (int j = i; j < dim && !rc; j++) {
            const double *Sij = S + (size_t)(i * dim + j) * nn, *Sji = S + (size_t)(j * dim + i) * nn;
            rc = given_matrix(&b->S[i * dim + j], n, Sij, i == j, "S", i * dim + j, err);
            if (rc || i == j)
                continue;
            double big = 0.0;
            for (size_t k = 0; k < nn; k++)
                big = fabs(Sij[k]) > big ? fabs(Sij[k]) : big;
            for (int r = 0; r < n && !rc; r++)
                for (int c = 0; c < n; c++)
                    if (!(fabs(Sji[(size_t)c * n + r] - Sij[(size_t)r * n + c]) <= 1e-10 * big)) {
                        rc = kf_fail(err, KF_EINVAL, "S", "S[%d] is not the transpose of S[%d]: "
                                     "entry (%d, %d) = %.17g, transposed %.17g", j * dim + i,
                                     i * dim + j, c, r, Sji[(size_t)c * n + r],
                                     Sij[(size_t)r * n + c]);
                        break;
                    }
            if (!rc)
                rc = kf_mat_alloc(&b->S[j * dim + i], KF_DENSE, n, 0, 0, err);
            for (int r = 0; r < n && !rc; r++)
                for (int c = 0; c < n; c++)
                    b->S[j * dim + i].a[c + (size_t)r * n] = b->S[i * dim + j].a[r + (size_t)c * n];
        }
    if (!rc)
        rc = given_matrix(&b->K, n, K, 1, "K", 0, err);
    for (int k = 0; k < dd && !rc && R; k++) /* R_ij = R_ji (docs/theory.md 2.9): symmetric */
        rc = given_matrix(&b->R[k], n, R + (size_t)k * nn, 1, "R", k, err);
    for (int k = 0; k < nkg && !rc; k++)
        rc = given_matrix(&b->KG[k], n, KG + (size_t)k * nn, 1, "KG", k, err);
    if (!rc)
        rc = kf_mat_alloc(&b->M, KF_DENSE, n, 0, 0, err);
    for (int k = 0; k < 3 && !rc && dim == 2; k++)
        rc = kf_mat_alloc_like(&b->P[k], &b->M, err);
    if (rc)
        goto fail;
    mass_and_basis(b); /* as assemble makes them */
    for (int i = 0; i < n; i++)
        if (!(kf_mat_get(&b->M, i, i) > 0.0)) {
            rc = kf_fail(err, KF_EINVAL, "S", "the mass matrix sum_i S_ii has diagonal entry %d = "
                         "%g: every coordinate must carry mass", i, kf_mat_get(&b->M, i, i));
            goto fail;
        }
    *out = b;
    return KF_OK;
fail:
    kf_body_free(b);
    return rc;
}

/* ---------------------------------------------------------------- motion terms */

void kf_frame_operators(int dim, const kf_frame *f, double *W, double *E, double *WW)
{
    const double *w = f->omega, *e = f->eps;
    double Wf[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
    double Ef[9] = {0, -e[2], e[1], e[2], 0, -e[0], -e[1], e[0], 0};
    double WWf[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = 0.0;
            for (int k = 0; k < 3; k++)
                v += Wf[i * 3 + k] * Wf[k * 3 + j];
            WWf[i * 3 + j] = v;
        }
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++) {
            if (W)
                W[i * dim + j] = Wf[i * 3 + j];
            if (E)
                E[i * dim + j] = Ef[i * 3 + j];
            if (WW)
                WW[i * dim + j] = WWf[i * 3 + j];
        }
}

int kf_frame_check(int dim, const kf_frame *f, kf_error *err)
{
    static const char *const names[5] = {"omega", "eps", "v", "a", "vdot"};
    const double *v[5] = {f->omega, f->eps, f->v, f->a, f->vdot};
    for (int k = 0; k < 5; k++)
        if (!isfinite(v[k][0]) || !isfinite(v[k][1]) || !isfinite(v[k][2]))
            return kf_fail(err, KF_EINVAL, names[k], "%s = (%g, %g, %g) must be finite",
                           names[k], v[k][0], v[k][1], v[k][2]);
    if (dim == 2)
        for (int k = 0; k < 2; k++)
            if (v[k][0] != 0.0 || v[k][1] != 0.0)
                return kf_fail(err, KF_EINVAL, names[k],
                               "%s = (%g, %g, %g): a planar body turns about its frame's z axis "
                               "only (use a spatial element for rotation about x or y)",
                               names[k], v[k][0], v[k][1], v[k][2]);
    /* and its origin moves in the x-y plane: a z component was dropped without a word */
    if (dim == 2)
        for (int k = 2; k < 5; k++)
            if (v[k][2] != 0.0)
                return kf_fail(err, KF_EINVAL, k == 3 ? "a_O" : k == 2 ? "v_O" : "vdot_O",
                               "%s = (%g, %g, %g): a planar body's frame origin moves in its "
                               "x-y plane only (%s_O has a z component; use a spatial element)",
                               names[k], v[k][0], v[k][1], v[k][2], names[k]);
    /* the centrifugal terms square omega */
    double w2 = f->omega[0] * f->omega[0] + f->omega[1] * f->omega[1] + f->omega[2] * f->omega[2];
    if (!isfinite(w2))
        return kf_fail(err, KF_ERANGE, "omega",
                       "omega = (%g, %g, %g): omega^2 overflows the double range", f->omega[0],
                       f->omega[1], f->omega[2]);
    return KF_OK;
}

/* out += sum_ij c_ij X_ij over d x d blocks X: the diagonal blocks, then each pair
 * (X_ij, X_ji) in one pass, so that with X_ji = X_ij^T (S) a skew c (W, E) gives an
 * exactly skew and a symmetric c (W W) an exactly symmetric matrix */
static void add_blocks(int d, const double *c, const kf_mat *X, kf_mat *out)
{
    for (int i = 0; i < d; i++)
        if (c[i * d + i] != 0.0)
            kf_mat_axpy(out, c[i * d + i], &X[i * d + i]);
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            if (c[i * d + j] != 0.0 || c[j * d + i] != 0.0)
                kf_mat_axpy2(out, c[i * d + j], &X[i * d + j], c[j * d + i], &X[j * d + i]);
}

/* out += sum_ij c_ij S_ij of a nodal body: c_kl m_ac at entry (a k, c l), one pass over
 * the pattern (the value add_blocks and the planar basis give, section 3.11) */
static void combine_nodal(const kf_body *b, const double *c, kf_mat *out)
{
    const kf_pattern *p = out->pat;
    int d = b->dim;
    for (int r = 0; r < p->n; r++) {
        const double *cr = c + b->comp[r] * d;
        for (int q = p->ptr[r]; q < p->ptr[r + 1]; q++) {
            double cv = cr[b->comp[p->col[q]]];
            if (cv != 0.0)
                out->a[q] += cv * b->mnode[b->pair[q]];
        }
    }
}

void kf_body_combine(const kf_body *b, const double *c, double beta, kf_mat *out)
{
    if (beta == 0.0)
        kf_mat_zero(out);
    else if (beta != 1.0)
        kf_mat_scale(out, beta);
    if (b->nodal) {
        combine_nodal(b, c, out);
        return;
    }
    if (b->dim == 2) {
        double w[4] = {0.5 * (c[0] + c[3]), 0.5 * (c[0] - c[3]), 0.5 * (c[2] - c[1]),
                       0.5 * (c[1] + c[2])};
        const kf_mat *basis[4] = {&b->M, &b->P[0], &b->P[1], &b->P[2]};
        for (int k = 0; k < 4; k++)
            if (w[k] != 0.0)
                kf_mat_axpy(out, w[k], basis[k]);
        return;
    }
    add_blocks(b->dim, c, b->S, out);
}

void kf_body_combine_stiff(const kf_body *b, const double *c, double beta, kf_mat *out)
{
    kf_body_combine(b, c, beta, out);
    if (b->has_second) /* R_ij, R_ji symmetric: a symmetric c gives an exactly symmetric sum */
        add_blocks(b->dim, c, b->R, out);
}

void kf_body_combine_vec(const kf_body *b, const double *c, double beta, double *out)
{
    int n = b->ndof;
    for (int r = 0; r < n; r++)
        out[r] *= beta;
    if (beta == 0.0)
        memset(out, 0, (size_t)n * sizeof(double));
    for (int k = 0; k < b->dim * b->dim; k++)
        if (c[k] != 0.0) {
            const double *s = b->s + (size_t)k * n;
            for (int r = 0; r < n; r++)
                out[r] += c[k] * s[r];
        }
}

int kf_body_block(const kf_body *b, int family, int k, kf_mat *out, kf_error *err)
{
    int rc = kf_mat_alloc_like(out, &b->M, err);
    if (rc)
        return rc;
    const kf_mat *src = family == KF_BLOCK_S ? &b->S[k] : &b->KG[k];
    if (!b->nodal) {
        if (src->a)
            kf_mat_copy(out, src);
        return KF_OK;
    }
    const double *node = family == KF_BLOCK_S ? b->mnode : b->kgnode[k];
    int i = family == KF_BLOCK_S ? k / b->dim : -1, j = family == KF_BLOCK_S ? k % b->dim : -1;
    const kf_pattern *p = out->pat;
    for (int r = 0; node && r < p->n; r++)
        for (int q = p->ptr[r]; q < p->ptr[r + 1]; q++) {
            int cr = b->comp[r], cc = b->comp[p->col[q]];
            if (i < 0 ? cr == cc : (cr == i && cc == j))
                out->a[q] = node[b->pair[q]];
        }
    return KF_OK;
}

/* Nonzero if every stored entry of A is zero. */
static int mat_is_zero(const kf_mat *A)
{
    size_t len = kf_mat_nvalues(A);
    for (size_t k = 0; k < len; k++)
        if (A->a[k] != 0.0)
            return 0;
    return 1;
}

int kf_body_block_zero(const kf_body *b, int k)
{
    if (!b->nodal)
        return mat_is_zero(&b->S[k]) && (!b->has_second || mat_is_zero(&b->R[k]));
    const kf_pattern *p = b->M.pat;
    int i = k / b->dim, j = k % b->dim;
    for (int r = 0; r < p->n; r++) {
        if (b->comp[r] != i)
            continue;
        for (int q = p->ptr[r]; q < p->ptr[r + 1]; q++)
            if (b->comp[p->col[q]] == j && b->mnode[b->pair[q]] != 0.0)
                return 0;
    }
    return 1;
}

int kf_body_motion_terms(const kf_body *b, const kf_frame *frame, kf_mat *C, kf_mat *Keps,
                         kf_mat *Kom, double *q_eps, double *q_om, double *q_a, kf_error *err)
{
    int rc = kf_frame_check(b->dim, frame, err);
    if (rc)
        return rc;
    kf_mat *outs[3] = {C, Keps, Kom};
    for (int k = 0; k < 3; k++)
        if (outs[k] && !kf_mat_conform(outs[k], &b->M))
            return kf_fail(err, KF_EINVAL, "out", "output matrix does not conform with M");
    double W[9], E[9], WW[9];
    kf_frame_operators(b->dim, frame, W, E, WW);
    if (C) {
        double W2[9];
        for (int k = 0; k < b->dim * b->dim; k++)
            W2[k] = 2.0 * W[k];
        kf_body_combine(b, W2, 0.0, C);
    }
    if (Keps)
        kf_body_combine_stiff(b, E, 0.0, Keps);
    if (Kom)
        kf_body_combine_stiff(b, WW, 0.0, Kom);
    if (q_eps)
        kf_body_combine_vec(b, E, 0.0, q_eps);
    if (q_om)
        kf_body_combine_vec(b, WW, 0.0, q_om);
    if (q_a) {
        memset(q_a, 0, (size_t)b->ndof * sizeof(double));
        for (int i = 0; i < b->dim; i++)
            for (int r = 0; r < b->ndof; r++)
                q_a[r] += frame->a[i] * b->Mo[(size_t)i * b->ndof + r];
    }
    int finite = 1;
    for (int k = 0; k < 3; k++)
        finite &= !outs[k] || kf_mat_finite(outs[k]);
    const double *vecs[3] = {q_eps, q_om, q_a};
    for (int k = 0; k < 3; k++)
        finite &= !vecs[k] || kf_vec_finite((size_t)b->ndof, vecs[k]);
    if (!finite)
        return kf_fail(err, KF_ERANGE, "omega",
                       "the motion terms overflow for omega = (%g, %g, %g), eps = (%g, %g, %g), "
                       "a = (%g, %g, %g) on this body's masses", frame->omega[0], frame->omega[1],
                       frame->omega[2], frame->eps[0], frame->eps[1], frame->eps[2], frame->a[0],
                       frame->a[1], frame->a[2]);
    return KF_OK;
}

/* ---------------------------------------------------------------- geometric stiffness */

int kf_body_nkg(const kf_body *b) { return b->has_geometric ? b->nkg : 0; }
int kf_body_prestressed(const kf_body *b) { return b->prestress; }
int kf_body_nload(const kf_body *b)
{
    int first = b->dim + b->dim * b->dim;
    return b->given && b->has_geometric && b->nkg > first ? b->nkg - first : 0;
}

int kf_body_geometric(const kf_body *b, const double *c, double beta, kf_mat *out,
                      kf_error *err)
{
    if (!b->has_geometric)
        return kf_fail(err, KF_EINVAL, "body",
                       "geometric stiffness needs a straight line body on the frame's x axis "
                       "with its nodes in ascending x, or a prestress basis "
                       "(kf_body_set_prestress)");
    if (!kf_mat_conform(out, &b->M))
        return kf_fail(err, KF_EINVAL, "out", "output matrix does not conform with M");
    for (int k = 0; k < b->nkg; k++)
        if (!isfinite(c[k]))
            return kf_fail(err, KF_EINVAL, "axial_force",
                           "axial force coefficients must be finite (c%d = %g)", k, c[k]);
    if (beta == 0.0)
        kf_mat_zero(out);
    else if (beta != 1.0)
        kf_mat_scale(out, beta);
    if (b->nodal) { /* sum_k c_k g_k (x) I: on the entries of one component, in k order */
        const kf_pattern *p = out->pat;
        for (int r = 0; r < p->n; r++)
            for (int q = p->ptr[r]; q < p->ptr[r + 1]; q++) {
                if (b->comp[r] != b->comp[p->col[q]])
                    continue;
                double v = out->a[q];
                for (int k = 0; k < b->nkg; k++)
                    if (c[k] != 0.0 && b->kgnode[k])
                        v += c[k] * b->kgnode[k][b->pair[q]];
                out->a[q] = v;
            }
        return KF_OK;
    }
    for (int k = 0; k < b->nkg; k++) /* no lateral DOFs (a bar): no matrices, K_G = 0 */
        if (c[k] != 0.0 && b->KG[k].a)
            kf_mat_axpy(out, c[k], &b->KG[k]);
    return KF_OK;
}

/*
 * K_G of the linear stress of the displacement field u (all DOFs) under the unit
 * load case (acc, Mc) added to out (section 2.11).  Line elements: the axial force
 * N = EA u_a' (constant on the element, its mean) corrected inside the element by
 * the axial load of the case, dN/ds = mu e1.(acc + Mc x(s)), to the exact
 * quadratic N(s); K_G = sum w N(s) (G^T G [+ Ip/A th'^T th']).  Plane and solid
 * elements: the stress sigma = D B u at each point, K_G[a i, b i] += w grad(phi_a)^T
 * sigma grad(phi_b) for each direction i; for a nodal body once per node pair, into node
 * (npair values) instead of out.
 */
static int prestress_matrix(const kf_body *b, const double *u, const double *acc,
                            const double *Mc, kf_mat *out, double *node, double *work, int *pos,
                            kf_error *err)
{
    int dim = b->dim, line = b->kind < KF_TRI3;
    int nemax = KF_MAX_EDOF;
    size_t ne2 = (size_t)nemax * nemax;
    double mu = b->el->mu(&b->sec);
    double D[KF_MAX_STRAIN * KF_MAX_STRAIN];
    b->el->dmat(&b->sec, D);
    int ns = b->el->nstrain;
    kf_qpoint p = {0};
    int more = kf_body_next_point(b, &p);
    while (more) {
        int e = p.e, ne = p.ne;
        const kf_element_type *ele = elem_type(b, e);
        memset(work, 0, ne2 * sizeof(double));
        int dofs[KF_MAX_EDOF];
        memcpy(dofs, p.dofs, (size_t)ne * sizeof(int));
        double ue[KF_MAX_EDOF];
        for (int a = 0; a < ne; a++)
            ue[a] = u[dofs[a]];
        double e1[KF_MAX_DIM] = {0}, l = 0.0, g0 = 0.0, g1 = 0.0;
        if (line) { /* the element's axis, length and the case's axial load rate */
            for (int k = 0; k < dim; k++) {
                e1[k] = p.xe[dim + k] - p.xe[k];
                l += e1[k] * e1[k];
            }
            l = sqrt(l);
            for (int k = 0; k < dim; k++)
                e1[k] /= l;
            for (int i = 0; i < dim; i++) {
                double ax = acc[i], mx = 0.0;
                for (int j = 0; j < dim; j++) {
                    ax += Mc[i * dim + j] * p.xe[j];
                    mx += Mc[i * dim + j] * e1[j];
                }
                g0 += e1[i] * ax;
                g1 += e1[i] * mx;
            }
        }
        for (; more && p.e == e; more = kf_body_next_point(b, &p)) {
            double eps[KF_MAX_STRAIN] = {0}, sig[KF_MAX_STRAIN] = {0};
            for (int r = 0; r < ns; r++)
                for (int a = 0; a < ne; a++)
                    eps[r] += p.B[r * ne + a] * ue[a];
            for (int r = 0; r < ns; r++)
                for (int q = 0; q < ns; q++)
                    sig[r] += D[r * ns + q] * eps[q];
            if (line) {
                const double *rows[3];
                double wt[3], s = 0.0;
                for (int k = 0; k < dim; k++)
                    s += (p.x[k] - p.xe[k]) * e1[k];
                double N = sig[0] + mu * (g0 * (s - l / 2) + g1 / 2 * (s * s - l * l / 3));
                int nr = geo_rows(b, ele, &p, rows, wt);
                add_geo(ne, nr, rows, wt, p.w * N, work);
                continue;
            }
            /* gradients of the shape functions from B's normal-strain rows, the stress
             * tensor from Voigt order (plane: xx, yy, xy; solid: xx, yy, zz, yz, xz, xy) */
            double S[3][3];
            if (dim == 2) {
                S[0][0] = sig[0], S[1][1] = sig[1], S[0][1] = S[1][0] = sig[2];
            } else {
                S[0][0] = sig[0], S[1][1] = sig[1], S[2][2] = sig[2];
                S[1][2] = S[2][1] = sig[3], S[0][2] = S[2][0] = sig[4], S[0][1] = S[1][0] = sig[5];
            }
            int nn = ne / dim;
            double gr[KF_MAX_ENODE][KF_MAX_DIM], sg[KF_MAX_ENODE][KF_MAX_DIM];
            for (int a = 0; a < nn; a++)
                for (int k = 0; k < dim; k++)
                    gr[a][k] = p.B[k * ne + a * dim + k];
            for (int a = 0; a < nn; a++)
                for (int k = 0; k < dim; k++) {
                    sg[a][k] = 0.0;
                    for (int m = 0; m < dim; m++)
                        sg[a][k] += S[k][m] * gr[a][m];
                }
            for (int a = 0; a < nn; a++)
                for (int c = 0; c < nn; c++) {
                    double v = 0.0;
                    for (int k = 0; k < dim; k++)
                        v += gr[a][k] * sg[c][k];
                    v *= p.w;
                    if (node)
                        work[a * nn + c] += v;
                    for (int i = 0; i < dim && !node; i++)
                        work[(size_t)(a * dim + i) * ne + c * dim + i] += v;
                }
        }
        if (pos)
            element_positions(b, e, pos);
        if (node)
            scatter_nodal(b, node, work, ne, pos);
        else
            scatter(b, out, work, ne, dofs, pos);
    }
    (void)err;
    return KF_OK;
}

int kf_body_set_prestress(kf_body *b, int ncase, const double *u, const double *axes,
                          kf_error *err)
{
    int dim = b->dim, dd = dim * dim, line = b->kind < KF_TRI3;
    int want = dim + dd + (line ? 2 : 0);
    if (b->reduced)
        return kf_fail(err, KF_EINVAL, "body", "a reduced body has no mesh to take a prestress from");
    if (ncase != want)
        return kf_fail(err, KF_EINVAL, "fields", "the prestress needs %d load cases for this "
                       "body (dim + dim^2%s), got %d", want, line ? " + 2 end loads" : "", ncase);
    for (size_t i = 0; i < (size_t)ncase * b->ndof; i++)
        if (!isfinite(u[i]))
            return kf_fail(err, KF_EINVAL, "fields", "the prestress displacement of load case %d "
                           "is not finite at DOF %d", (int)(i / b->ndof), (int)(i % b->ndof));
    for (int k = 0; line && k < 2 * dim; k++)
        if (!isfinite(axes[k]))
            return kf_fail(err, KF_EINVAL, "axes", "end-load axes must be finite");
    size_t ne2 = (size_t)KF_MAX_EDOF * KF_MAX_EDOF;
    double *work = kf_calloc(ne2, sizeof(double));
    int *pos = b->pattern ? kf_calloc(ne2, sizeof(int)) : NULL;
    if (!work || (b->pattern && !pos)) {
        free(work);
        free(pos);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the element work space");
    }
    for (int k = 0; k < KF_MAX_KG; k++) {
        kf_mat_free(&b->KG[k]);
        free(b->kgnode[k]);
        b->kgnode[k] = NULL;
    }
    b->has_geometric = 0; /* until the basis is complete */
    int rc = KF_OK;
    for (int c = 0; c < ncase && !rc; c++) {
        double acc[KF_MAX_DIM] = {0}, Mc[KF_MAX_DIM * KF_MAX_DIM] = {0};
        if (c < dim)
            acc[c] = 1.0;
        else if (c < dim + dd)
            Mc[c - dim] = 1.0;
        if (b->nodal && !(b->kgnode[c] = kf_calloc(b->npair > 0 ? (size_t)b->npair : 1,
                                                   sizeof(double))))
            rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate %d node pairs", b->npair);
        else if (!b->nodal)
            rc = kf_mat_alloc_like(&b->KG[c], &b->M, err);
        if (!rc)
            rc = prestress_matrix(b, u + (size_t)c * b->ndof, acc, Mc, &b->KG[c], b->kgnode[c],
                                  work, pos, err);
    }
    free(work);
    free(pos);
    if (rc) {
        for (int k = 0; k < KF_MAX_KG; k++) {
            kf_mat_free(&b->KG[k]);
            free(b->kgnode[k]);
            b->kgnode[k] = NULL;
        }
        b->nkg = 0;
        b->prestress = 0;
        return rc;
    }
    memset(b->end_axis, 0, sizeof b->end_axis);
    for (int k = 0; line && k < dim; k++) {
        b->end_axis[0][k] = axes[k];
        b->end_axis[1][k] = axes[dim + k];
    }
    b->nkg = ncase;
    b->prestress = 1;
    b->has_geometric = 1;
    return KF_OK;
}

int kf_body_prestress_matrix(const kf_body *b, const double *u, const double *acc,
                             const double *Mc, kf_mat *out, kf_error *err)
{
    int dim = b->dim;
    if (b->reduced)
        return kf_fail(err, KF_EINVAL, "body", "a reduced body has no elements to stress");
    if (!u || !out || !kf_mat_conform(out, &b->M))
        return kf_fail(err, KF_EINVAL, "out", "the field and an output matrix that conforms "
                       "with M are needed");
    for (int i = 0; i < b->ndof; i++)
        if (!isfinite(u[i]))
            return kf_fail(err, KF_EINVAL, "field", "the displacement field is not finite at "
                           "DOF %d", i);
    double a0[KF_MAX_DIM] = {0}, M0[KF_MAX_DIM * KF_MAX_DIM] = {0};
    for (int k = 0; k < dim * dim; k++) {
        if (acc && k < dim)
            a0[k] = acc[k];
        if (Mc)
            M0[k] = Mc[k];
        if (!isfinite(a0[k < dim ? k : 0]) || !isfinite(M0[k]))
            return kf_fail(err, KF_EINVAL, "acc", "the load case's body load must be finite");
    }
    size_t ne2 = (size_t)KF_MAX_EDOF * KF_MAX_EDOF;
    double *work = kf_calloc(ne2, sizeof(double));
    int *pos = b->pattern ? kf_calloc(ne2, sizeof(int)) : NULL;
    if (!work || (b->pattern && !pos)) {
        free(work);
        free(pos);
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate the element work space");
    }
    kf_mat_zero(out);
    int rc = prestress_matrix(b, u, a0, M0, out, NULL, work, pos, err);
    free(work);
    free(pos);
    return rc;
}

/* ---------------------------------------------------------------- the rigid body */

/* int rho, int rho x and int rho x x^T of a given body from its invariants (see
 * kf_body_rigid): G = B^T M^-1 B by the Cholesky factor of M, each rigid vector's
 * strain energy checked. */
static int given_rigid(const kf_body *b, double *s0, double s1[3], double s2[9], kf_error *err)
{
    static const char *what[6] = {"translation along x", "translation along y",
                                  "translation along z", "rotation about x", "rotation about y",
                                  "rotation about z"};
    int n = b->ndof, dim = b->dim, nr = dim == 2 ? 3 : 6;
    size_t nn = (size_t)n * n;
    double *L = kf_calloc(nn + 2 * (size_t)n * nr, sizeof(double));
    if (!L)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate %d x %d", n, n);
    double *Y = L + nn, *R = Y + (size_t)n * nr;
    int mot[6]; /* the motion of each column of B */
    for (int c = 0; c < nr; c++)
        mot[c] = c < dim ? c : dim == 2 ? 5 : c;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            L[i + (size_t)j * n] = kf_mat_get(&b->M, i, j);
        for (int c = 0; c < dim; c++)
            Y[i + (size_t)c * n] = b->Mo[(size_t)c * n + i];
        /* h_k = int rho N^T (e_k x x): (k, p, q) cyclic, (e_k x x)_q = x_p, (..)_p = -x_q */
        for (int k = dim == 2 ? 2 : 0; k < 3; k++) {
            int p = (k + 1) % 3, q = (k + 2) % 3;
            const double *sqp = b->s + (size_t)(q * dim + p) * n, *spq = b->s + (size_t)(p * dim + q) * n;
            Y[i + (size_t)(dim == 2 ? 2 : 3 + k) * n] = sqp[i] - spq[i];
        }
    }
    int rc = kf_la_potrf(n, L, n, err);
    if (rc) {
        free(L);
        return kf_fail(err, KF_EINVAL, "S", "the mass matrix sum_i S_ii is not positive "
                       "definite (its Cholesky factor fails)");
    }
    memcpy(R, Y, (size_t)n * nr * sizeof(double));
    rc = kf_la_trsm('L', 'N', n, nr, L, n, Y, n, err); /* Y = L^-1 B */
    if (!rc)
        rc = kf_la_trsm('L', 'N', n, nr, L, n, R, n, err);
    if (!rc)
        rc = kf_la_trsm('L', 'T', n, nr, L, n, R, n, err); /* R = M^-1 B */
    if (rc) {
        free(L);
        return rc;
    }
    double G[36];
    for (int a = 0; a < nr; a++)
        for (int c = 0; c < nr; c++)
            G[a * nr + c] = kf_dot(n, Y + (size_t)a * n, Y + (size_t)c * n);
    /* every rigid vector strain-free, to round-off of max |K_ij| (sum |r_i|)^2 (a
     * Craig-Bampton body's condensed interface stiffness may itself be round-off along a
     * rigid motion: two pinned nodes) */
    double kmax = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            kmax = fmax(kmax, fabs(kf_mat_get(&b->K, i, j)));
    for (int c = 0; c < nr && !rc; c++) {
        const double *r = R + (size_t)c * n;
        double e = 0.0, r1 = 0.0;
        for (int i = 0; i < n; i++) {
            double ki = 0.0;
            for (int j = 0; j < n; j++)
                ki += kf_mat_get(&b->K, i, j) * r[j];
            e += r[i] * ki;
            r1 += fabs(r[i]);
        }
        double scale = kmax * r1 * r1;
        if (!(fabs(e) <= 1e-8 * scale))
            rc = kf_fail(err, KF_EINVAL, "S", "the %s is not a motion of the body's "
                         "coordinates (its best approximation M^-1 B strains: r^T K r = %.3g, "
                         "scale %.3g): a reduction basis without the rigid motions (give a "
                         "Craig-Bampton interface, or free-interface modes of the free body)",
                         what[mot[c]], e, scale);
    }
    double m = G[0];
    for (int a = 0; a < dim && !rc; a++)
        for (int c = 0; c < dim; c++)
            if (!(fabs(G[a * nr + c] - (a == c ? m : 0.0)) <= 1e-8 * fabs(m)))
                rc = kf_fail(err, KF_EINVAL, "S", "the translations of the body's coordinates "
                             "carry different masses (%.9g and %.9g kg along %c and %c): a rigid "
                             "translation is not in their span", m, G[a * nr + c], "xyz"[a],
                             "xyz"[c]);
    free(L);
    if (rc)
        return rc;
    *s0 = m;
    for (int k = 0; k < 9; k++)
        s2[k] = 0.0;
    s1[0] = s1[1] = s1[2] = 0.0;
    if (dim == 2) { /* r_x.M r_z = -int rho y, r_y.M r_z = int rho x, r_z.M r_z = int rho |x|^2 */
        s1[0] = G[1 * 3 + 2];
        s1[1] = -G[0 * 3 + 2];
        s2[8] = G[8]; /* J_O about z */
        return KF_OK;
    }
    /* r_i.M r_(3+k) = int rho (e_i x e_k).x; the rotation block is J_O */
    s1[0] = G[1 * 6 + 5];
    s1[1] = G[2 * 6 + 3];
    s1[2] = G[0 * 6 + 4];
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
            s2[k * 3 + l] = G[(3 + k) * 6 + 3 + l];
    return KF_OK;
}

int kf_body_rigid(const kf_body *b, double *m, double c[3], double J[9], double Ic[9],
                  kf_error *err)
{
    if (!b || !m || !c || (!J && !Ic))
        return kf_fail(err, KF_EINVAL, "body", "kf_body_rigid: NULL argument");
    int dim = b->dim;
    double Jc[9], S[9];
    if (b->reduced && !b->given)
        return kf_fail(err, KF_EINVAL, "body", "a body restricted to some DOFs has no elements");
    if (b->given) { /* J_O from the invariants, then parallel axes: J_c = J_O - m (|c|^2 I - c c^T) */
        double s0 = 0.0, s1[3] = {0.0, 0.0, 0.0}, s2[9] = {0.0};
        int rc = given_rigid(b, &s0, s1, s2, err);
        if (rc)
            return rc;
        if (!(s0 > 0.0 && isfinite(s0)))
            return kf_fail(err, KF_EINVAL, "body", "the body has no mass (%g kg)", s0);
        *m = s0;
        double cc = 0.0;
        for (int k = 0; k < 3; k++) {
            c[k] = k < dim ? s1[k] / s0 : 0.0;
            cc += c[k] * c[k];
        }
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                Jc[j * 3 + k] = s2[j * 3 + k] - s0 * ((j == k ? cc : 0.0) - c[j] * c[k]);
        /* the second moments S = tr(J)/2 I - J (their small entries lose digits to the
         * difference where the body is slender: the elements' route below has none) */
        double half = 0.5 * (Jc[0] + Jc[4] + Jc[8]);
        for (int k = 0; k < 9; k++)
            S[k] = (k % 4 == 0 ? half : 0.0) - Jc[k];
    } else {
        int rc = element_moments(b, m, c, S, err);
        if (rc)
            return rc;
        /* J = tr(S) I - S entry by entry, without the difference (J_xx = S_yy + S_zz) */
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                Jc[j * 3 + k] = j == k ? S[(j + 1) % 3 * 4] + S[(j + 2) % 3 * 4] : -S[j * 3 + k];
    }
    if (dim == 2) /* a planar body turns about z only */
        for (int k = 0; k < 8; k++)
            Jc[k] = 0.0;
    if (J)
        memcpy(J, Jc, sizeof Jc);
    if (Ic)
        memcpy(Ic, S, sizeof S);
    return KF_OK;
}

/* The frame and the end forces of an instant of K_G: KF_EINVAL naming the bad one. */
static int check_loads(const kf_body *b, const kf_frame *frame, double f_first, double f_last,
                       kf_error *err)
{
    int rc = kf_frame_check(b->dim, frame, err);
    if (rc)
        return rc;
    if (!isfinite(f_first) || !isfinite(f_last))
        return kf_fail(err, KF_EINVAL, "end_forces",
                       "end forces must be finite (f_first = %g, f_last = %g)", f_first, f_last);
    return KF_OK;
}

int kf_body_geometric_coefficients(const kf_body *b, const kf_frame *frame, double f_first,
                                   double f_last, int fixed_first, int fixed_last, double *c,
                                   kf_error *err)
{
    if (!b->prestress)
        return kf_body_axial_force(b, frame, f_first, f_last, fixed_first, fixed_last, c, err);
    int rc = check_loads(b, frame, f_first, f_last, err);
    if (rc)
        return rc;
    int dim = b->dim, dd = dim * dim;
    double E[9], WW[9];
    kf_frame_operators(dim, frame, NULL, E, WW);
    for (int i = 0; i < dim; i++)
        c[i] = frame->a[i];
    for (int k = 0; k < dd; k++)
        c[dim + k] = E[k] + WW[k];
    if (b->nkg > dim + dd && !b->given) { /* a line body's end loads */
        c[dim + dd] = f_first;
        c[dim + dd + 1] = f_last;
    }
    for (int k = dim + dd; b->given && k < b->nkg; k++)
        c[k] = 0.0; /* coordinate loads: the caller's (kf_body_nload) */
    for (int k = 0; k < b->nkg; k++)
        if (!isfinite(c[k]))
            return kf_fail(err, KF_ERANGE, "omega", "the prestress coefficients overflow: "
                           "omega = (%g, %g, %g)", frame->omega[0], frame->omega[1],
                           frame->omega[2]);
    return KF_OK;
}

int kf_body_axial_force(const kf_body *b, const kf_frame *frame, double f_first, double f_last,
                        int fixed_first, int fixed_last, double c[3], kf_error *err)
{
    if (!b->has_geometric || b->prestress)
        return kf_fail(err, KF_EINVAL, "body",
                       "the axial force is defined for a straight line body on the frame's x "
                       "axis with its nodes in ascending x");
    int rc = check_loads(b, frame, f_first, f_last, err);
    if (rc)
        return rc;
    double WW[9];
    kf_frame_operators(b->dim, frame, NULL, NULL, WW);
    /* N' = -p with p = -mu (a_x + WW_xx x):  N(x) = N_a + mu a_x (x - xa)
     * + mu WW_xx (x^2 - xa^2) / 2 */
    double mu = b->el->mu(&b->sec), ax = frame->a[0], wxx = WW[0];
    double xa = b->xa, xb = b->xb, L = xb - xa, Na;
    if (fixed_first && fixed_last) /* int_xa^xb N dx = 0 */
        Na = -(mu * ax * L * L / 2 + mu * wxx * ((xb * xb * xb - xa * xa * xa) / 6 - xa * xa * L / 2)) / L;
    else if (fixed_first) /* N(xb) = f_last */
        Na = f_last - mu * ax * L - mu * wxx * (xb * xb - xa * xa) / 2;
    else /* N(xa) = -f_first */
        Na = -f_first;
    c[2] = mu * wxx / 2;
    c[1] = mu * ax;
    c[0] = Na - mu * ax * xa - mu * wxx * xa * xa / 2;
    /* N(x) itself must be a double over the body, not only its coefficients */
    double Nb = c[0] + c[1] * xb + c[2] * xb * xb, N0 = c[0] + c[1] * xa + c[2] * xa * xa;
    if (!isfinite(c[0]) || !isfinite(c[1]) || !isfinite(c[2]) || !isfinite(Nb) || !isfinite(N0))
        return kf_fail(err, KF_ERANGE, "omega",
                       "the axial force overflows: omega = (%g, %g, %g), a_O = %g along x and "
                       "the mass per length rho A = %g over x from %g to %g give inertial forces "
                       "beyond the double range", frame->omega[0], frame->omega[1],
                       frame->omega[2], ax, mu, xa, xb);
    return KF_OK;
}

/* ---------------------------------------------------------------- reduced bodies */

/* dst = src restricted to the DOFs in map, in storage `kind` (src's own, which
 * keeps a band a band, or dense). */
static int reduce_mat(kf_mat *dst, const kf_mat *src, int n, const int *map, kf_storage kind,
                      kf_error *err)
{
    if (kind == src->kind)
        return kf_mat_extract(dst, src, n, map, err);
    int rc = kf_mat_alloc(dst, kind, n, 0, 0, err);
    for (int j = 0; j < n && !rc; j++)
        for (int i = 0; i < n; i++) {
            double v = kf_mat_get(src, map[i], map[j]);
            if (v != 0.0)
                kf_mat_add(dst, i, j, v);
        }
    return rc;
}

/*
 * The CSR pattern p restricted to the rows and columns map[0..n-1]
 * (increasing, checked by the caller) and, for each of its entries, the
 * position of the same entry in p (keep, nnz of the result).
 */
static int reduce_pattern(const kf_pattern *p, int n, const int *map, kf_pattern **out,
                          int **keep, kf_error *err)
{
    *out = NULL;
    *keep = NULL;
    kf_pattern *r = kf_calloc(1, sizeof *r);
    int *inv = kf_calloc((size_t)p->n + 1, sizeof(int));
    int rc = KF_OK;
    if (!r || !inv || !(r->ptr = kf_calloc((size_t)n + 1, sizeof(int)))) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a reduced pattern of %d rows", n);
        goto done;
    }
    for (int i = 0; i < p->n; i++)
        inv[i] = -1;
    for (int i = 0; i < n; i++)
        inv[map[i]] = i;
    int nnz = 0;
    for (int i = 0; i < n; i++) {
        for (int k = p->ptr[map[i]]; k < p->ptr[map[i] + 1]; k++)
            nnz += inv[p->col[k]] >= 0;
        r->ptr[i + 1] = nnz;
    }
    r->n = n;
    r->nnz = nnz;
    r->col = kf_calloc((size_t)nnz + 1, sizeof(int));
    *keep = kf_calloc((size_t)nnz + 1, sizeof(int));
    if (!r->col || !*keep) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a reduced pattern of %d entries", nnz);
        goto done;
    }
    /* map is increasing: the kept columns stay sorted */
    for (int i = 0, q = 0; i < n; i++)
        for (int k = p->ptr[map[i]]; k < p->ptr[map[i] + 1]; k++)
            if (inv[p->col[k]] >= 0) {
                r->col[q] = inv[p->col[k]];
                (*keep)[q++] = k;
            }
done:
    free(inv);
    if (rc) {
        kf_pattern_free(r);
        free(*keep);
        *keep = NULL;
        return rc;
    }
    *out = r;
    return KF_OK;
}

/* dst on the reduced pattern rp: the values of src at keep (src unset: dst unset). */
static int reduce_csr(kf_mat *dst, const kf_mat *src, const kf_pattern *rp, const int *keep,
                      kf_error *err)
{
    if (!src->a)
        return KF_OK;
    int rc = kf_mat_alloc_csr(dst, rp, err);
    for (int q = 0; !rc && q < rp->nnz; q++)
        dst->a[q] = src->a[keep[q]];
    return rc;
}

/* A body of n DOFs derived from b (reduced or projected): everything kf_body_combine(_vec),
 * kf_body_geometric and kf_body_axial_force read, no mesh (coords, conn) and no
 * matrices yet; NULL if out of memory. */
static kf_body *derived_body(const kf_body *b, int n)
{
    kf_body *r = kf_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->el = b->el;
    r->kind = b->kind;
    r->dim = b->dim;
    r->ndofn = b->ndofn;
    r->ndof = n;
    r->nel = b->nel;
    r->sec = b->sec;
    r->has_geometric = b->has_geometric;
    r->has_second = b->has_second;
    r->prestress = b->prestress;
    r->nkg = b->nkg;
    r->reduced = 1;
    r->given = b->given;
    memcpy(r->end_axis, b->end_axis, sizeof r->end_axis);
    r->xa = b->xa;
    r->xb = b->xb;
    return r;
}

/* The nodal masses and K_G cases of the reduced body r of a nodal body b, on r's pattern
 * (keep: the position in b's pattern of each of its entries, map: its DOFs). */
static int reduce_nodal(kf_body *r, const kf_body *b, int n, const int *map, const int *keep,
                        kf_error *err)
{
    size_t np = b->npair > 0 ? (size_t)b->npair : 1;
    r->nodal = 1;
    r->npair = b->npair;
    r->pair = kf_calloc(r->pattern->nnz > 0 ? (size_t)r->pattern->nnz : 1, sizeof(int));
    r->comp = kf_calloc(n > 0 ? (size_t)n : 1, 1);
    r->mnode = kf_calloc(np, sizeof(double));
    int ok = r->pair && r->comp && r->mnode;
    for (int k = 0; k < KF_MAX_KG && ok; k++)
        if (b->kgnode[k])
            ok = (r->kgnode[k] = kf_calloc(np, sizeof(double))) != NULL;
    if (!ok)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a reduced body of %d node pairs",
                       b->npair);
    for (int q = 0; q < r->pattern->nnz; q++)
        r->pair[q] = b->pair[keep[q]];
    for (int i = 0; i < n; i++)
        r->comp[i] = b->comp[map[i]];
    memcpy(r->mnode, b->mnode, (size_t)b->npair * sizeof(double));
    for (int k = 0; k < KF_MAX_KG; k++)
        if (b->kgnode[k])
            memcpy(r->kgnode[k], b->kgnode[k], (size_t)b->npair * sizeof(double));
    return KF_OK;
}

int kf_body_reduce(const kf_body *b, int n, const int *map, int dense, kf_body **out,
                   kf_error *err)
{
    *out = NULL;
    if (b->pattern && dense)
        return kf_fail(err, KF_EINVAL, "damping", "a body in sparse (CSR) storage takes no "
                       "dense damping matrix (use Rayleigh damping)");
    if (kf_check_map(n, map, b->ndof, err))
        return KF_EINVAL;
    kf_body *r = derived_body(b, n);
    if (!r)
        return kf_fail(err, KF_ENOMEM, "", "cannot allocate a reduced body");
    kf_storage kind = dense ? KF_DENSE : b->M.kind;
    int rc = KF_OK, dd = b->dim * b->dim;
    if (b->pattern) { /* sparse: every matrix on the pattern of the free DOFs */
        int *keep = NULL;
        rc = reduce_pattern(b->pattern, n, map, &r->pattern, &keep, err);
        if (!rc && b->nodal) /* the node pairs of the kept entries; m and K_G copied */
            rc = reduce_nodal(r, b, n, map, keep, err);
        for (int k = 0; k < dd && !rc; k++) {
            rc = reduce_csr(&r->S[k], &b->S[k], r->pattern, keep, err);
            if (!rc && b->has_second)
                rc = reduce_csr(&r->R[k], &b->R[k], r->pattern, keep, err);
        }
        if (!rc)
            rc = reduce_csr(&r->M, &b->M, r->pattern, keep, err);
        if (!rc)
            rc = reduce_csr(&r->K, &b->K, r->pattern, keep, err);
        for (int k = 0; k < KF_MAX_KG && !rc; k++)
            rc = reduce_csr(&r->KG[k], &b->KG[k], r->pattern, keep, err);
        for (int k = 0; k < 3 && !rc; k++)
            rc = reduce_csr(&r->P[k], &b->P[k], r->pattern, keep, err);
        free(keep);
    }
    for (int k = 0; k < dd && !rc && !b->pattern; k++)
        rc = reduce_mat(&r->S[k], &b->S[k], n, map, kind, err);
    for (int k = 0; k < dd && !rc && b->has_second && !b->pattern; k++)
        rc = reduce_mat(&r->R[k], &b->R[k], n, map, kind, err);
    if (!rc && !b->pattern)
        rc = reduce_mat(&r->M, &b->M, n, map, kind, err);
    if (!rc && !b->pattern)
        rc = reduce_mat(&r->K, &b->K, n, map, kind, err);
    for (int k = 0; k < KF_MAX_KG && !rc && !b->pattern; k++)
        if (b->KG[k].a)
            rc = reduce_mat(&r->KG[k], &b->KG[k], n, map, kind, err);
    for (int k = 0; k < 3 && !rc && !b->pattern; k++)
        if (b->P[k].a)
            rc = reduce_mat(&r->P[k], &b->P[k], n, map, kind, err);
    if (rc)
        goto fail;
    r->s = kf_calloc((size_t)dd * n, sizeof(double));
    r->Mo = kf_calloc((size_t)b->dim * n, sizeof(double));
    if (!r->s || !r->Mo) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a reduced body of %d DOFs", n);
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < dd; k++)
            r->s[(size_t)k * n + i] = b->s[(size_t)k * b->ndof + map[i]];
        for (int k = 0; k < b->dim; k++)
            r->Mo[(size_t)k * n + i] = b->Mo[(size_t)k * b->ndof + map[i]];
    }
    *out = r;
    return KF_OK;
fail:
    kf_body_free(r);
    return rc;
}

/* ---------------------------------------------------------------- projected bodies */

/* A matrix of b to project: a stored one (X), or a family of a nodal body (node values
 * on the entries of components (ci, cj), or of equal components when ci < 0). */
typedef struct proj_src {
    const kf_mat *X;
    const double *node;
    int ci, cj;
} proj_src;

/* The columns b's matrices may hold in row i: a CSR row (*cols, positions from *q0), or
 * the range lo..hi (band, dense; *cols NULL). */
static int parent_row(const kf_body *b, int i, int *lo, const int **cols, int *q0)
{
    if (b->pattern) {
        *q0 = b->pattern->ptr[i];
        *cols = b->pattern->col + *q0;
        *lo = 0;
        return b->pattern->ptr[i + 1] - *q0;
    }
    *cols = NULL;
    *q0 = -1;
    int kl = b->M.kind == KF_BAND ? b->M.kl : b->ndof, ku = b->M.kind == KF_BAND ? b->M.ku : b->ndof;
    *lo = i - kl > 0 ? i - kl : 0;
    int hi = i + ku < b->ndof - 1 ? i + ku : b->ndof - 1;
    return hi - *lo + 1;
}

static double proj_value(const kf_body *b, const proj_src *s, int i, int j, int q)
{
    if (s->node) {
        int a = b->comp[i], c = b->comp[j];
        if (s->ci >= 0 ? (a != s->ci || c != s->cj) : a != c)
            return 0.0;
        return s->node[b->pair[q]];
    }
    if (!s->X->a)
        return 0.0;
    return q >= 0 ? s->X->a[q] : kf_mat_get(s->X, i, j);
}

/* The basis T (ndof x ncol, CSR tp/tc/tv) and its transpose (ncol x ndof: up/ui/uv). */
typedef struct proj_basis {
    int ndof, ncol;
    const int *tp, *tc;
    const double *tv;
    int *up, *ui;
    double *uv;
} proj_basis;

/* vals (on the pattern pp) = T^T X T; acc: ncol zeros (left zero). */
static void project_values(const kf_body *b, const proj_basis *T, const proj_src *s,
                           const kf_pattern *pp, double *acc, double *vals)
{
    for (int p = 0; p < T->ncol; p++) {
        for (int t = T->up[p]; t < T->up[p + 1]; t++) {
            int i = T->ui[t], lo, q0;
            const int *cols;
            int len = parent_row(b, i, &lo, &cols, &q0);
            for (int k = 0; k < len; k++) {
                int j = cols ? cols[k] : lo + k;
                double x = proj_value(b, s, i, j, cols ? q0 + k : -1);
                if (x == 0.0)
                    continue;
                x *= T->uv[t];
                for (int r = T->tp[j]; r < T->tp[j + 1]; r++)
                    acc[T->tc[r]] += x * T->tv[r];
            }
        }
        for (int e = pp->ptr[p]; e < pp->ptr[p + 1]; e++) {
            vals[e] = acc[pp->col[e]];
            acc[pp->col[e]] = 0.0;
        }
    }
}

/* The pattern of T^T X T over b's stored entries (sorted rows), its half-bandwidth, and
 * for each entry the position of its transpose (tpos). */
static int project_pattern(const kf_body *b, const proj_basis *T, kf_pattern **out, int *bw,
                           int **tpos, kf_error *err)
{
    int n = T->ncol, rc = KF_OK;
    kf_pattern *pp = kf_calloc(1, sizeof *pp);
    int *mark = kf_calloc((size_t)n, sizeof(int));
    *out = NULL;
    *tpos = NULL;
    if (!pp || !mark || !(pp->ptr = kf_calloc((size_t)n + 1, sizeof(int)))) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a projected pattern of %d rows", n);
        goto done;
    }
    pp->n = n;
    for (int pass = 0; pass < 2 && !rc; pass++) { /* count, then fill */
        for (int q = 0; q < n; q++)
            mark[q] = -1;
        size_t nnz = 0;
        for (int p = 0; p < n; p++) {
            size_t start = nnz;
            for (int t = T->up[p]; t < T->up[p + 1]; t++) {
                int i = T->ui[t], lo, q0;
                const int *cols;
                int len = parent_row(b, i, &lo, &cols, &q0);
                for (int k = 0; k < len; k++) {
                    int j = cols ? cols[k] : lo + k;
                    for (int r = T->tp[j]; r < T->tp[j + 1]; r++)
                        if (mark[T->tc[r]] != p) {
                            mark[T->tc[r]] = p;
                            if (pass)
                                pp->col[nnz] = T->tc[r];
                            nnz++;
                        }
                }
            }
            if (nnz > (size_t)0x7fffffff) {
                rc = kf_fail(err, KF_EINVAL, "constraints", "the projected matrices would hold "
                             "more than 2^31 entries (the basis couples too many DOFs)");
                break;
            }
            if (pass)
                qsort(pp->col + start, nnz - start, sizeof(int), cmp_int);
            else
                pp->ptr[p + 1] = (int)nnz;
        }
        if (!pass && !rc) {
            pp->nnz = pp->ptr[n];
            if (!(pp->col = kf_calloc(pp->nnz > 0 ? (size_t)pp->nnz : 1, sizeof(int))))
                rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a projected pattern of %d "
                             "entries", pp->nnz);
        }
    }
    if (!rc && !(*tpos = kf_calloc(pp->nnz > 0 ? (size_t)pp->nnz : 1, sizeof(int))))
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate %d positions", pp->nnz);
    *bw = 0;
    for (int p = 0; p < n && !rc; p++)
        for (int e = pp->ptr[p]; e < pp->ptr[p + 1]; e++) {
            int c = pp->col[e], lo = pp->ptr[c], hi = pp->ptr[c + 1] - 1;
            while (lo < hi) { /* (c, p) is there: the pattern is symmetric */
                int mid = lo + (hi - lo) / 2;
                if (pp->col[mid] < p)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            (*tpos)[e] = lo;
            *bw = abs(p - c) > *bw ? abs(p - c) : *bw;
        }
done:
    free(mark);
    if (rc) {
        kf_pattern_free(pp);
        free(*tpos);
        *tpos = NULL;
        return rc;
    }
    *out = pp;
    return KF_OK;
}

/* dst (zero, conforming with r's M) = the values on the projected pattern pp */
static void fill_projected(const kf_pattern *pp, const double *vals, kf_mat *dst)
{
    if (dst->kind == KF_CSR) {
        memcpy(dst->a, vals, (size_t)pp->nnz * sizeof(double));
        return;
    }
    for (int p = 0; p < pp->n; p++)
        for (int e = pp->ptr[p]; e < pp->ptr[p + 1]; e++)
            if (vals[e] != 0.0)
                kf_mat_add(dst, p, pp->col[e], vals[e]);
}

/* dst allocated like r's M and filled with the values on pp */
static int store_projected(kf_body *r, const kf_pattern *pp, const double *vals, kf_mat *dst,
                           kf_error *err)
{
    int rc = kf_mat_alloc_like(dst, &r->M, err);
    if (!rc)
        fill_projected(pp, vals, dst);
    return rc;
}

/* The mean of each entry and its transpose: exactly symmetric values. */
static void symmetrize(const kf_pattern *pp, const int *tpos, double *vals)
{
    for (int p = 0; p < pp->n; p++)
        for (int e = pp->ptr[p]; e < pp->ptr[p + 1]; e++)
            if (pp->col[e] > p) {
                double v = 0.5 * (vals[e] + vals[tpos[e]]);
                vals[e] = vals[tpos[e]] = v;
            }
}

int kf_body_project(const kf_body *b, int ncol, const int *ptr, const int *col,
                    const double *val, kf_body **out, kf_error *err)
{
    if (!out)
        return kf_fail(err, KF_EINVAL, "out", "output pointer is NULL");
    *out = NULL;
    if (!b || !ptr || !col || !val)
        return kf_fail(err, KF_EINVAL, "basis", "body and basis arrays must not be NULL");
    int n = b->ndof;
    if (ncol < 1 || ncol > n)
        return kf_fail(err, KF_EINVAL, "basis", "the basis has %d columns: 1..%d (the DOFs) "
                       "independent motions", ncol, n);
    if (ptr[0] != 0)
        return kf_fail(err, KF_EINVAL, "basis", "basis indptr[0] = %d must be 0", ptr[0]);
    for (int i = 0; i < n; i++) {
        if (ptr[i + 1] < ptr[i])
            return kf_fail(err, KF_EINVAL, "basis", "basis indptr decreases at row %d", i);
        for (int r = ptr[i]; r < ptr[i + 1]; r++)
            if (col[r] < 0 || col[r] >= ncol || !isfinite(val[r]))
                return kf_fail(err, KF_EINVAL, "basis", "basis entry %d of row %d (column %d, "
                               "value %g) is outside 0..%d or not finite", r, i, col[r], val[r],
                               ncol - 1);
    }
    proj_basis T = {n, ncol, ptr, col, val, NULL, NULL, NULL};
    kf_pattern *pp = NULL;
    int *tpos = NULL, bw = 0, rc = KF_OK, dd = b->dim * b->dim;
    double *acc = NULL, *vals = NULL, *tmp = NULL;
    kf_body *r = NULL;
    acc = kf_calloc((size_t)ncol, sizeof(double));
    if (!acc || kf_csr_transpose(n, ncol, ptr, col, val, &T.up, &T.ui, &T.uv)) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate the basis' transpose");
        goto done;
    }
    if ((rc = project_pattern(b, &T, &pp, &bw, &tpos, err)))
        goto done;
    /* storage: b's dense stays dense; a band whose basis keeps it narrow stays a band
     * (the integrators' band LU), anything else is CSR */
    kf_storage kind = b->M.kind == KF_DENSE ? KF_DENSE
                      : b->M.kind == KF_BAND && bw <= 2 * b->M.kl + 1 ? KF_BAND : KF_CSR;
    if (!(r = derived_body(b, ncol))) {
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a projected body");
        goto done;
    }
    if (kind == KF_CSR) {
        r->pattern = pp;
        pp = NULL;
        rc = kf_mat_alloc_csr(&r->M, r->pattern, err);
    } else {
        rc = kf_mat_alloc(&r->M, kind, ncol, bw, bw, err);
    }
    const kf_pattern *pat = r->pattern ? r->pattern : pp;
    vals = kf_calloc(pat->nnz > 0 ? (size_t)pat->nnz : 1, sizeof(double));
    tmp = kf_calloc(pat->nnz > 0 ? (size_t)pat->nnz : 1, sizeof(double));
    if (!rc && (!vals || !tmp))
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a projected matrix of %d entries",
                     pat->nnz);
    /* M (exactly symmetric, as b's: made so) and K (symmetric to b's rounding) */
    for (int f = 0; f < 2 && !rc; f++) {
        proj_src src = {f ? &b->K : &b->M, NULL, 0, 0};
        project_values(b, &T, &src, pat, acc, vals);
        if (!f)
            symmetrize(pat, tpos, vals);
        if (f)
            rc = store_projected(r, pat, vals, &r->K, err);
        else
            fill_projected(pat, vals, &r->M);
    }
    /* S_ii symmetric, S_ji = S_ij^T exactly; R_ij symmetric */
    for (int i = 0; i < b->dim && !rc; i++)
        for (int j = i; j < b->dim && !rc; j++) {
            proj_src src = {&b->S[i * b->dim + j], b->nodal ? b->mnode : NULL, i, j};
            project_values(b, &T, &src, pat, acc, vals);
            if (i == j)
                symmetrize(pat, tpos, vals);
            rc = store_projected(r, pat, vals, &r->S[i * b->dim + j], err);
            for (int e = 0; e < pat->nnz && !rc && i != j; e++)
                tmp[e] = vals[tpos[e]];
            if (!rc && i != j)
                rc = store_projected(r, pat, tmp, &r->S[j * b->dim + i], err);
        }
    for (int k = 0; k < dd && !rc && b->has_second; k++) {
        proj_src src = {&b->R[k], NULL, 0, 0};
        project_values(b, &T, &src, pat, acc, vals);
        symmetrize(pat, tpos, vals);
        rc = store_projected(r, pat, vals, &r->R[k], err);
    }
    for (int k = 0; k < KF_MAX_KG && !rc; k++) {
        if (!b->KG[k].a && !(b->nodal && b->kgnode[k]))
            continue; /* no basis matrix there (a bar's, or none) */
        proj_src src = {&b->KG[k], b->nodal ? b->kgnode[k] : NULL, -1, -1};
        project_values(b, &T, &src, pat, acc, vals);
        rc = store_projected(r, pat, vals, &r->KG[k], err);
    }
    for (int k = 0; k < 3 && !rc && b->dim == 2; k++)
        rc = kf_mat_alloc_like(&r->P[k], &r->M, err);
    if (!rc)
        planar_basis(r);
    /* the vectors: T^T s_ij, T^T Mo_i */
    if (!rc && (!(r->s = kf_calloc((size_t)dd * ncol, sizeof(double))) ||
                !(r->Mo = kf_calloc((size_t)b->dim * ncol, sizeof(double)))))
        rc = kf_fail(err, KF_ENOMEM, "", "cannot allocate a projected body of %d DOFs", ncol);
    for (int p = 0; p < ncol && !rc; p++)
        for (int t = T.up[p]; t < T.up[p + 1]; t++) {
            for (int k = 0; k < dd; k++)
                r->s[(size_t)k * ncol + p] += T.uv[t] * b->s[(size_t)k * n + T.ui[t]];
            for (int k = 0; k < b->dim; k++)
                r->Mo[(size_t)k * ncol + p] += T.uv[t] * b->Mo[(size_t)k * n + T.ui[t]];
        }
done:
    free(T.up);
    free(T.ui);
    free(T.uv);
    free(acc);
    free(vals);
    free(tmp);
    free(tpos);
    kf_pattern_free(pp);
    if (rc) {
        kf_body_free(r);
        return rc;
    }
    *out = r;
    return KF_OK;
}
