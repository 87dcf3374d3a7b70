/*
 * kf_continuum.c -- plane and solid (continuum) elements for meshes
 * (docs/theory.md section 2.7).
 *
 * Ten isoparametric kinds: triangles (tri3, tri6), quadrilaterals (quad4,
 * quad8, quad9), tetrahedra (tet4, tet10) and hexahedra (hex8, hex20, hex27),
 * with the node order of VTK (and so of meshio).  Each node carries the
 * displacement components along the body axes (2 in the plane, 3 in space),
 * so N = [phi_1 I, phi_2 I, ...]; B is the small-strain operator in Voigt
 * order (plane: xx, yy, xy; solid: xx, yy, zz, yz, xz, xy, engineering
 * shears).  Like the line elements, a kind supplies only N, B, x and w at its
 * quadrature points (kf_element_type); invariants, assembly and motion terms
 * are common (kf_body.c).
 *
 * Shape functions come from each kind's reference node coordinates: tensor
 * products of 1-D Lagrange polynomials (quad4, quad9, hex8, hex27), the
 * serendipity formulas (quad8, hex20), barycentric polynomials (simplices).
 * Quadrature integrates N^T N exactly on straight-sided cells (affine maps):
 * Gauss 2 x 2 (x 2) for the linear quadrilaterals and hexahedra, 3 x 3 (x 3)
 * for the quadratic ones; on triangles the 3-point degree-2 and Dunavant's
 * 6-point degree-4 rules, on tetrahedra the 4-point degree-2 and the 14-point
 * degree-5 rule (all weights positive).
 */
#include "kf_internal.h"
#include "kf_stress.h"

#include <string.h>

/* ---------------------------------------------------------------- reference cells */

enum shape_family { LAGRANGE, SERENDIPITY, SIMPLEX, WEDGE, PYRAMID };

typedef struct cont_kind {
    int dim, nnode, nquad, ngauss; /* ngauss: Gauss points per direction (quad/hex) */
    int family, order;             /* order 1 or 2 */
    const double *ref;             /* nnode x dim reference coordinates (quad/hex) */
    const double *qp, *qw;         /* simplex rules: nquad x dim points, nquad weights */
} cont_kind;

/* quadrilateral nodes on [-1, 1]^2: corners, mid-edges (01, 12, 23, 30), centre */
static const double quad_ref[9 * 2] = {-1, -1, 1, -1, 1, 1, -1, 1, 0, -1,
                                       1,  0,  0, 1,  -1, 0, 0, 0};
/* hexahedron nodes on [-1, 1]^3: corners, the 12 mid-edges in VTK order
 * (01, 12, 23, 30, 45, 56, 67, 74, 04, 15, 26, 37), the face centres
 * (x-, x+, y-, y+, z-, z+) and the centre */
static const double hex_ref[27 * 3] = {
    -1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1,
    0,  -1, -1, 1, 0,  -1, 0, 1, -1, -1, 0, -1, 0,  -1, 1, 1, 0,  1, 0, 1, 1, -1, 0, 1,
    -1, -1, 0,  1, -1, 0,  1, 1, 0,  -1, 1, 0,  -1, 0,  0, 1, 0,  0, 0, -1, 0, 0,  1, 0,
    0,  0,  -1, 0, 0,  1,  0, 0, 0};

/* triangle (reference (0,0), (1,0), (0,1), area 1/2): degree 2, 3 points */
static const double tri3_qp[3 * 2] = {1.0 / 6, 1.0 / 6, 2.0 / 3, 1.0 / 6, 1.0 / 6, 2.0 / 3};
static const double tri3_qw[3] = {1.0 / 6, 1.0 / 6, 1.0 / 6};
/* Dunavant's degree-4 rule: barycentric (a, a, 1 - 2a) orbits */
#define TA 0.44594849091596488632
#define TB 0.09157621350977074346
#define TWA 0.11169079483900573285
#define TWB 0.054975871827660933819
static const double tri6_qp[6 * 2] = {TA, TA, 1 - 2 * TA, TA, TA, 1 - 2 * TA,
                                      TB, TB, 1 - 2 * TB, TB, TB, 1 - 2 * TB};
static const double tri6_qw[6] = {TWA, TWA, TWA, TWB, TWB, TWB};
/* tetrahedron (reference (0,0,0), e_x, e_y, e_z, volume 1/6): degree 2, 4 points */
#define QA 0.13819660112501051518 /* (5 - sqrt 5) / 20 */
#define QB 0.58541019662496845446 /* (5 + 3 sqrt 5) / 20 */
static const double tet4_qp[4 * 3] = {QA, QA, QA, QB, QA, QA, QA, QB, QA, QA, QA, QB};
static const double tet4_qw[4] = {1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 24};
/* degree 5, 14 points: two (a, a, a, 1 - 3a) orbits and one (b, b, 1/2 - b, 1/2 - b) */
#define A1 0.092735250310891226402
#define A2 0.3108859192633006098
#define B3 0.045503704125649649492
#define W1 0.012248840519393658257
#define W2 0.0187813209530026418
#define W3 0.007091003462846911073
#define C1 (1 - 3 * A1)
#define C2 (1 - 3 * A2)
#define D3 (0.5 - B3)
static const double tet10_qp[14 * 3] = {
    A1, A1, A1, C1, A1, A1, A1, C1, A1, A1, A1, C1, /* first orbit */
    A2, A2, A2, C2, A2, A2, A2, C2, A2, A2, A2, C2, /* second orbit */
    /* barycentric pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3) carry 1/2 - b;
     * the point is (L1, L2, L3) */
    D3, B3, B3, B3, D3, B3, B3, B3, D3, D3, D3, B3, D3, B3, D3, B3, D3, D3};
static const double tet10_qw[14] = {W1, W1, W1, W1, W2, W2, W2, W2, W3, W3, W3, W3, W3, W3};

/* wedge nodes (r, s, zeta), triangle (0,0), (0,1), (1,0) (VTK: the first triangle's
 * normal points away from the second) at zeta = -1, then +1, then the mid-edges
 * 01, 12, 20 of each triangle and the vertical ones 03, 14, 25 */
static const double wedge_ref[15 * 3] = {
    0, 0, -1, 0, 1, -1, 1, 0, -1, 0, 0, 1, 0, 1, 1, 1, 0, 1,
    0, 0.5, -1, 0.5, 0.5, -1, 0.5, 0, -1, 0, 0.5, 1, 0.5, 0.5, 1, 0.5, 0, 1,
    0, 0, 0, 0, 1, 0, 1, 0, 0};
/* pyramid nodes in collapsed coordinates (u, v, w) in [-1, 1]^2 x [0, 1], the point
 * (u (1 - w), v (1 - w), w) of the reference pyramid (base [-1, 1]^2 at z = 0, apex
 * (0, 0, 1)): base corners, apex, base mid-edges 01, 12, 23, 30, then the mid-points
 * of the edges to the apex (their u, v are the corner's: w = 1/2 halves them) */
static const double pyr_ref[13 * 3] = {
    -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0, 0, 0, 1, 0, -1, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0,
    -1, -1, 0.5, 1, -1, 0.5, 1, 1, 0.5, -1, 1, 0.5};

static const cont_kind cont_kinds[] = {
    [KF_TRI3 - KF_TRI3] = {2, 3, 3, 0, SIMPLEX, 1, NULL, tri3_qp, tri3_qw},
    [KF_TRI6 - KF_TRI3] = {2, 6, 6, 0, SIMPLEX, 2, NULL, tri6_qp, tri6_qw},
    [KF_QUAD4 - KF_TRI3] = {2, 4, 4, 2, LAGRANGE, 1, quad_ref, NULL, NULL},
    [KF_QUAD8 - KF_TRI3] = {2, 8, 9, 3, SERENDIPITY, 2, quad_ref, NULL, NULL},
    [KF_QUAD9 - KF_TRI3] = {2, 9, 9, 3, LAGRANGE, 2, quad_ref, NULL, NULL},
    [KF_TET4 - KF_TRI3] = {3, 4, 4, 0, SIMPLEX, 1, NULL, tet4_qp, tet4_qw},
    [KF_TET10 - KF_TRI3] = {3, 10, 14, 0, SIMPLEX, 2, NULL, tet10_qp, tet10_qw},
    [KF_HEX8 - KF_TRI3] = {3, 8, 8, 2, LAGRANGE, 1, hex_ref, NULL, NULL},
    [KF_HEX20 - KF_TRI3] = {3, 20, 27, 3, SERENDIPITY, 2, hex_ref, NULL, NULL},
    [KF_HEX27 - KF_TRI3] = {3, 27, 27, 3, LAGRANGE, 2, hex_ref, NULL, NULL},
    /* wedges: the triangle rule times Gauss on zeta; pyramids: Gauss on u, v times
     * Gauss on w in [0, 1] (the collapsed-coordinate rule, section 2.7) */
    [KF_WEDGE6 - KF_TRI3] = {3, 6, 6, 2, WEDGE, 1, wedge_ref, tri3_qp, tri3_qw},
    [KF_WEDGE15 - KF_TRI3] = {3, 15, 18, 3, WEDGE, 2, wedge_ref, tri6_qp, tri6_qw},
    [KF_PYRAMID5 - KF_TRI3] = {3, 5, 12, 2, PYRAMID, 1, pyr_ref, NULL, NULL},
    [KF_PYRAMID13 - KF_TRI3] = {3, 13, 36, 3, PYRAMID, 2, pyr_ref, NULL, NULL},
    [KF_QUAD4I - KF_TRI3] = {2, 4, 4, 2, LAGRANGE, 1, quad_ref, NULL, NULL},
    [KF_HEX8I - KF_TRI3] = {3, 8, 8, 2, LAGRANGE, 1, hex_ref, NULL, NULL},
};

/* Quadrature point q of a kind: reference coordinates and weight.  Tensor
 * Gauss rules are formed from the 1-D points on [-1, 1]. */
static void quad_point(const cont_kind *k, int q, double *xi, double *w)
{
    if (k->family == SIMPLEX) {
        for (int d = 0; d < k->dim; d++)
            xi[d] = k->qp[q * k->dim + d];
        *w = k->qw[q];
        return;
    }
    static const double g2[2] = {-0.57735026918962576451, 0.57735026918962576451};
    static const double w2[2] = {1.0, 1.0};
    static const double g3[3] = {-0.77459666924148337704, 0.0, 0.77459666924148337704};
    static const double w3[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    static const double g4[4] = {-0.86113631159405257522, -0.33998104358485626480,
                                 0.33998104358485626480, 0.86113631159405257522};
    static const double w4[4] = {0.34785484513745385737, 0.65214515486254614263,
                                 0.65214515486254614263, 0.34785484513745385737};
    const double *g = k->ngauss == 2 ? g2 : g3, *gw = k->ngauss == 2 ? w2 : w3;
    if (k->family == WEDGE) { /* triangle point q % ntri, Gauss point q / ntri on zeta */
        int ntri = k->nquad / k->ngauss, t = q % ntri, i = q / ntri;
        xi[0] = k->qp[2 * t];
        xi[1] = k->qp[2 * t + 1];
        xi[2] = g[i];
        *w = k->qw[t] * gw[i];
        return;
    }
    if (k->family == PYRAMID) { /* n x n Gauss on (u, v), n + 1 on w in [0, 1] */
        int n = k->ngauss, iu = q % n, iv = (q / n) % n, iw = q / (n * n);
        const double *gz = n == 2 ? g3 : g4, *wz = n == 2 ? w3 : w4;
        xi[0] = g[iu];
        xi[1] = g[iv];
        xi[2] = 0.5 * (1.0 + gz[iw]);
        *w = gw[iu] * gw[iv] * 0.5 * wz[iw];
        return;
    }
    *w = 1.0;
    for (int d = 0; d < k->dim; d++) {
        int i = q % k->ngauss;
        q /= k->ngauss;
        xi[d] = g[i];
        *w *= gw[i];
    }
}

/* 1-D Lagrange polynomial of node position c (in {-1, 0, 1}) of the given
 * order at s, and its derivative. */
static void lagrange1(int order, double c, double s, double *f, double *df)
{
    if (order == 1) { /* c = -1 or 1 */
        *f = 0.5 * (1.0 + c * s);
        *df = 0.5 * c;
    } else if (c == 0.0) {
        *f = 1.0 - s * s;
        *df = -2.0 * s;
    } else { /* s (s + c) / 2 */
        *f = 0.5 * s * (s + c);
        *df = s + 0.5 * c;
    }
}

/* Wedge shape functions at (r, s, zeta): barycentric L of the node's triangle vertex
 * times the Lagrange (wedge6) or serendipity (wedge15) functions of zeta. */
static void shape_wedge(const cont_kind *k, const double *xi, double *phi, double *dphi)
{
    double r = xi[0], s = xi[1], z = xi[2];
    /* vertex t of the triangle: L and (dL/dr, dL/ds); nodes 0, 1, 2 are (0,0), (0,1), (1,0) */
    const double L[3] = {1.0 - r - s, s, r}, dL[3][2] = {{-1, -1}, {0, 1}, {1, 0}};
    for (int a = 0; a < 6; a++) {
        int t = a % 3;
        double c = a < 3 ? -1.0 : 1.0, h = 1.0 + c * z, *d = dphi + 3 * a;
        if (k->order == 1) {
            phi[a] = 0.5 * L[t] * h;
            d[0] = 0.5 * dL[t][0] * h;
            d[1] = 0.5 * dL[t][1] * h;
            d[2] = 0.5 * L[t] * c;
        } else {
            phi[a] = 0.5 * L[t] * h * (2.0 * L[t] + c * z - 2.0);
            d[0] = 0.5 * h * dL[t][0] * (4.0 * L[t] + c * z - 2.0);
            d[1] = 0.5 * h * dL[t][1] * (4.0 * L[t] + c * z - 2.0);
            d[2] = 0.5 * L[t] * c * (2.0 * L[t] + 2.0 * c * z - 1.0);
        }
    }
    if (k->order == 1)
        return;
    static const int edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    for (int a = 6; a < 12; a++) { /* triangle mid-edges: 2 L_i L_j (1 + c zeta) */
        int i = edges[(a - 6) % 3][0], j = edges[(a - 6) % 3][1];
        double c = a < 9 ? -1.0 : 1.0, h = 1.0 + c * z, *d = dphi + 3 * a;
        phi[a] = 2.0 * L[i] * L[j] * h;
        for (int e = 0; e < 2; e++)
            d[e] = 2.0 * h * (dL[i][e] * L[j] + L[i] * dL[j][e]);
        d[2] = 2.0 * L[i] * L[j] * c;
    }
    for (int a = 12; a < 15; a++) { /* vertical mid-edges: L (1 - zeta^2) */
        int t = a - 12;
        double *d = dphi + 3 * a;
        phi[a] = L[t] * (1.0 - z * z);
        d[0] = dL[t][0] * (1.0 - z * z);
        d[1] = dL[t][1] * (1.0 - z * z);
        d[2] = -2.0 * z * L[t];
    }
}

/* Pyramid shape functions in collapsed coordinates (u, v, w), where the rational
 * pyramid bases (Bedrosian 1992 for 13 nodes) are polynomials: the base corners
 * (a, b) = (+-1, +-1), the apex, the base mid-edges, the edges to the apex. */
static void shape_pyramid(const cont_kind *k, const double *xi, double *phi, double *dphi)
{
    double u = xi[0], v = xi[1], w = xi[2], m = 1.0 - w;
    for (int a = 0; a < 4; a++) {
        double cu = k->ref[3 * a], cv = k->ref[3 * a + 1], fu = 1.0 + cu * u, fv = 1.0 + cv * v;
        double *d = dphi + 3 * a;
        if (k->order == 1) { /* (1 - w) (1 + a u) (1 + b v) / 4 */
            phi[a] = 0.25 * m * fu * fv;
            d[0] = 0.25 * m * cu * fv;
            d[1] = 0.25 * m * fu * cv;
            d[2] = -0.25 * fu * fv;
        } else { /* A (1 - w) Q / 4, A = (a u + b v)(1 - w) - 1, Q = (1 + a u)(1 + b v) */
            double A = (cu * u + cv * v) * m - 1.0, Q = fu * fv;
            phi[a] = 0.25 * A * m * Q;
            d[0] = 0.25 * m * (cu * m * Q + A * cu * fv);
            d[1] = 0.25 * m * (cv * m * Q + A * cv * fu);
            d[2] = 0.25 * Q * (-(cu * u + cv * v) * m - A);
        }
    }
    double *d4 = dphi + 12;
    d4[0] = d4[1] = 0.0;
    if (k->order == 1) {
        phi[4] = w;
        d4[2] = 1.0;
        return;
    }
    phi[4] = w * (2.0 * w - 1.0);
    d4[2] = 4.0 * w - 1.0;
    for (int a = 5; a < 9; a++) { /* base mid-edges: (1 - w)^2 (1 - t^2) (1 + c s) / 2 */
        double cu = k->ref[3 * a], cv = k->ref[3 * a + 1], *d = dphi + 3 * a;
        if (cu == 0.0) { /* on v = cv */
            double fv = 1.0 + cv * v;
            phi[a] = 0.5 * m * m * (1.0 - u * u) * fv;
            d[0] = -m * m * u * fv;
            d[1] = 0.5 * m * m * (1.0 - u * u) * cv;
            d[2] = -m * (1.0 - u * u) * fv;
        } else { /* on u = cu */
            double fu = 1.0 + cu * u;
            phi[a] = 0.5 * m * m * (1.0 - v * v) * fu;
            d[0] = 0.5 * m * m * (1.0 - v * v) * cu;
            d[1] = -m * m * v * fu;
            d[2] = -m * (1.0 - v * v) * fu;
        }
    }
    for (int a = 9; a < 13; a++) { /* to the apex: w (1 - w) (1 + a u) (1 + b v) */
        double cu = k->ref[3 * a], cv = k->ref[3 * a + 1], fu = 1.0 + cu * u, fv = 1.0 + cv * v;
        double *d = dphi + 3 * a;
        phi[a] = w * m * fu * fv;
        d[0] = w * m * cu * fv;
        d[1] = w * m * fu * cv;
        d[2] = (1.0 - 2.0 * w) * fu * fv;
    }
}

/* Shape functions phi (nnode) and their reference gradients dphi (nnode x dim)
 * at the reference point xi. */
static void shape(const cont_kind *k, const double *xi, double *phi, double *dphi)
{
    int dim = k->dim, nn = k->nnode;
    if (k->family == WEDGE) {
        shape_wedge(k, xi, phi, dphi);
        return;
    }
    if (k->family == PYRAMID) {
        shape_pyramid(k, xi, phi, dphi);
        return;
    }
    if (k->family == SIMPLEX) {
        /* barycentric L_0 = 1 - sum xi, L_d = xi_{d-1}; dL_0 = -1, dL_d = e_d */
        double L[4], dL[4][3] = {{0}};
        L[0] = 1.0;
        for (int d = 0; d < dim; d++) {
            L[d + 1] = xi[d];
            L[0] -= xi[d];
            dL[0][d] = -1.0;
            dL[d + 1][d] = 1.0;
        }
        int nv = dim + 1;
        if (k->order == 1) {
            for (int a = 0; a < nv; a++) {
                phi[a] = L[a];
                for (int d = 0; d < dim; d++)
                    dphi[a * dim + d] = dL[a][d];
            }
            return;
        }
        /* quadratic: vertices L (2L - 1), then the edges 4 L_i L_j in VTK order */
        static const int tri_edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
        static const int tet_edges[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
        const int(*edges)[2] = dim == 2 ? tri_edges : tet_edges;
        for (int a = 0; a < nv; a++) {
            phi[a] = L[a] * (2.0 * L[a] - 1.0);
            for (int d = 0; d < dim; d++)
                dphi[a * dim + d] = (4.0 * L[a] - 1.0) * dL[a][d];
        }
        for (int e = 0; e < nn - nv; e++) {
            int i = edges[e][0], j = edges[e][1], a = nv + e;
            phi[a] = 4.0 * L[i] * L[j];
            for (int d = 0; d < dim; d++)
                dphi[a * dim + d] = 4.0 * (L[j] * dL[i][d] + L[i] * dL[j][d]);
        }
        return;
    }
    for (int a = 0; a < nn; a++) {
        const double *c = k->ref + a * dim;
        if (k->family == LAGRANGE) { /* tensor product of 1-D polynomials */
            double f[3], df[3];
            for (int d = 0; d < dim; d++)
                lagrange1(k->order, c[d], xi[d], &f[d], &df[d]);
            phi[a] = 1.0;
            for (int d = 0; d < dim; d++) {
                phi[a] *= f[d];
                double g = df[d];
                for (int e = 0; e < dim; e++)
                    if (e != d)
                        g *= f[e];
                dphi[a * dim + d] = g;
            }
            continue;
        }
        /* serendipity: A_d = 1 + c_d xi_d; a corner has every c_d = +-1,
         * a mid-edge node one c_m = 0 */
        double A[3];
        int m = -1;
        for (int d = 0; d < dim; d++) {
            A[d] = 1.0 + c[d] * xi[d];
            if (c[d] == 0.0)
                m = d;
        }
        if (m < 0) {
            /* corner: 2^-dim prod A (sum A - (2 dim - 1)) */
            double scale = dim == 2 ? 0.25 : 0.125, sumA = 0.0, prodA = 1.0;
            for (int d = 0; d < dim; d++) {
                sumA += A[d];
                prodA *= A[d];
            }
            double s = sumA - (2.0 * dim - 1.0);
            phi[a] = scale * prodA * s;
            for (int d = 0; d < dim; d++) {
                double others = 1.0;
                for (int e = 0; e < dim; e++)
                    if (e != d)
                        others *= A[e];
                dphi[a * dim + d] = scale * c[d] * others * (s + A[d]);
            }
        } else {
            /* mid-edge: 2^-(dim-1) (1 - xi_m^2) prod_{d != m} A_d */
            double scale = dim == 2 ? 0.5 : 0.25, q = 1.0 - xi[m] * xi[m], prod = 1.0;
            for (int d = 0; d < dim; d++)
                if (d != m)
                    prod *= A[d];
            phi[a] = scale * q * prod;
            for (int d = 0; d < dim; d++) {
                if (d == m) {
                    dphi[a * dim + d] = scale * (-2.0 * xi[m]) * prod;
                } else {
                    double others = 1.0;
                    for (int e = 0; e < dim; e++)
                        if (e != d && e != m)
                            others *= A[e];
                    dphi[a * dim + d] = scale * q * c[d] * others;
                }
            }
        }
    }
}

/* ---------------------------------------------------------------- geometry */

/* J = dx/dxi (dim x dim, row d: dx_d/dxi), its determinant and inverse. */
static double jacobian(int dim, int nn, const double *xe, const double *dphi, double *Ji)
{
    double J[9] = {0};
    for (int a = 0; a < nn; a++)
        for (int d = 0; d < dim; d++)
            for (int e = 0; e < dim; e++)
                J[d * dim + e] += xe[a * dim + d] * dphi[a * dim + e];
    double det;
    if (dim == 2) {
        det = J[0] * J[3] - J[1] * J[2];
        Ji[0] = J[3] / det;
        Ji[1] = -J[1] / det;
        Ji[2] = -J[2] / det;
        Ji[3] = J[0] / det;
        return det;
    }
    double c00 = J[4] * J[8] - J[5] * J[7], c01 = J[5] * J[6] - J[3] * J[8],
           c02 = J[3] * J[7] - J[4] * J[6];
    det = J[0] * c00 + J[1] * c01 + J[2] * c02;
    Ji[0] = c00 / det;
    Ji[1] = (J[2] * J[7] - J[1] * J[8]) / det;
    Ji[2] = (J[1] * J[5] - J[2] * J[4]) / det;
    Ji[3] = c01 / det;
    Ji[4] = (J[0] * J[8] - J[2] * J[6]) / det;
    Ji[5] = (J[2] * J[3] - J[0] * J[5]) / det;
    Ji[6] = c02 / det;
    Ji[7] = (J[1] * J[6] - J[0] * J[7]) / det;
    Ji[8] = (J[0] * J[4] - J[1] * J[3]) / det;
    return det;
}

/* ---------------------------------------------------------------- the kind interface */

static int cont_check(const cont_kind *k, const double *xe, const kf_section *sec, int el,
                      kf_error *err)
{
    if (!(sec->E > 0.0) || !isfinite(sec->E))
        return kf_fail(err, KF_EINVAL, "E", "E = %g must be positive and finite", sec->E);
    if (!(sec->rho > 0.0) || !isfinite(sec->rho))
        return kf_fail(err, KF_EINVAL, "rho", "rho = %g must be positive and finite", sec->rho);
    if (!(sec->nu > -1.0 && sec->nu < 0.5))
        return kf_fail(err, KF_EINVAL, "nu", "nu = %g must lie in (-1, 0.5)", sec->nu);
    if (k->dim == 2) {
        if (!(sec->thickness > 0.0) || !isfinite(sec->thickness))
            return kf_fail(err, KF_EINVAL, "thickness",
                           "thickness = %g must be positive and finite", sec->thickness);
        if (sec->plane_strain != 0.0 && sec->plane_strain != 1.0)
            return kf_fail(err, KF_EINVAL, "plane_strain",
                           "plane_strain = %g must be 0 (plane stress) or 1 (plane strain)",
                           sec->plane_strain);
    }
    /* size of the cell: the diagonal of its bounding box */
    int dim = k->dim, nn = k->nnode;
    double lo[3], hi[3], h2 = 0.0;
    for (int d = 0; d < dim; d++) {
        lo[d] = hi[d] = xe[d];
        for (int a = 1; a < nn; a++) {
            double v = xe[a * dim + d];
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
        h2 += (hi[d] - lo[d]) * (hi[d] - lo[d]);
    }
    /* det J > 0 at every quadrature point; a value at round-off level of the
     * cell's size is a degenerate (collapsed) cell */
    double tiny = 1e-10 * pow(h2, 0.5 * dim);
    double phi[KF_MAX_ENODE], dphi[KF_MAX_ENODE * 3], Ji[9], xi[3], w;
    for (int q = 0; q < k->nquad; q++) {
        quad_point(k, q, xi, &w);
        shape(k, xi, phi, dphi);
        double det = jacobian(dim, nn, xe, dphi, Ji);
        if (!(det > tiny))
            return kf_fail(err, KF_EINVAL, "cells",
                           "cell %d is %s: det J = %g at its quadrature point %d (cell size %g; "
                           "nodes must follow the VTK order, counter-clockwise in the plane)",
                           el, det < -tiny ? "inverted" : "degenerate", det, q, sqrt(h2));
    }
    return KF_OK;
}

/* The strain-displacement columns c.. c + dim - 1 of a field whose gradient is g
 * (B has ncol columns, Voigt order): plane xx, yy, xy; solid xx, yy, zz, yz, xz, xy. */
static void strain_columns(int dim, const double *g, double *B, int ncol, int c)
{
    if (dim == 2) {
        B[0 * ncol + c] = g[0];
        B[1 * ncol + c + 1] = g[1];
        B[2 * ncol + c] = g[1];
        B[2 * ncol + c + 1] = g[0];
        return;
    }
    B[0 * ncol + c] = g[0];
    B[1 * ncol + c + 1] = g[1];
    B[2 * ncol + c + 2] = g[2];
    B[3 * ncol + c + 1] = g[2];
    B[3 * ncol + c + 2] = g[1];
    B[4 * ncol + c] = g[2];
    B[4 * ncol + c + 2] = g[0];
    B[5 * ncol + c] = g[1];
    B[5 * ncol + c + 1] = g[0];
}

static void cont_eval(const cont_kind *k, const double *xe, int q, double *N, double *B,
                      double *x, double *w)
{
    int dim = k->dim, nn = k->nnode, ne = nn * dim, ns = dim == 2 ? 3 : 6;
    double phi[KF_MAX_ENODE], dphi[KF_MAX_ENODE * 3], Ji[9], xi[3], qw;
    quad_point(k, q, xi, &qw);
    shape(k, xi, phi, dphi);
    double det = jacobian(dim, nn, xe, dphi, Ji);
    memset(N, 0, (size_t)dim * ne * sizeof(double));
    memset(B, 0, (size_t)ns * ne * sizeof(double));
    for (int d = 0; d < dim; d++)
        x[d] = 0.0;
    for (int a = 0; a < nn; a++) {
        /* dphi/dx_d = sum_e dphi/dxi_e (J^-1)_{e d} */
        double g[3];
        for (int d = 0; d < dim; d++) {
            g[d] = 0.0;
            for (int e = 0; e < dim; e++)
                g[d] += dphi[a * dim + e] * Ji[e * dim + d];
        }
        for (int d = 0; d < dim; d++) {
            N[d * ne + a * dim + d] = phi[a];
            x[d] += phi[a] * xe[a * dim + d];
        }
        strain_columns(dim, g, B, ne, a * dim);
    }
    *w = qw * det;
}

/* plane: rho t per unit area; solid: rho per unit volume */
static double plane_mu(const kf_section *sec) { return sec->rho * sec->thickness; }
static double solid_mu(const kf_section *sec) { return sec->rho; }

/* Plane stress or plane strain, times the thickness (D per unit area). */
static void plane_dmat(const kf_section *sec, double *D)
{
    double E = sec->E, nu = sec->nu, t = sec->thickness, c, d0, d1, g;
    if (sec->plane_strain != 0.0) {
        c = E / ((1.0 + nu) * (1.0 - 2.0 * nu));
        d0 = c * (1.0 - nu);
        d1 = c * nu;
    } else {
        c = E / (1.0 - nu * nu);
        d0 = c;
        d1 = c * nu;
    }
    g = E / (2.0 * (1.0 + nu)); /* the shear modulus in both cases */
    double v[9] = {d0, d1, 0, d1, d0, 0, 0, 0, g};
    for (int i = 0; i < 9; i++)
        D[i] = t * v[i];
}

/* Isotropic elasticity, Voigt order xx, yy, zz, yz, xz, xy. */
static void solid_dmat(const kf_section *sec, double *D)
{
    double E = sec->E, nu = sec->nu;
    double lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)), g = E / (2.0 * (1.0 + nu));
    memset(D, 0, 36 * sizeof(double));
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            D[i * 6 + j] = lam;
        D[i * 6 + i] = lam + 2.0 * g;
        D[(i + 3) * 6 + i + 3] = g;
    }
}

/*
 * The stiffness of quad4 / hex8 with Wilson's incompatible modes P_m = 1 - xi_m^2
 * (one per reference direction and displacement component: 4 internal DOFs in the
 * plane, 9 in space) in Taylor's form: their strains use the Jacobian J0 at the
 * cell's centre scaled by det J0 / det J, G_m = (det J0 / det J) J0^-T dP_m/dxi, so
 * that int G dV = det J0 J0^-T int dP/dxi dxi = 0 on any cell: a constant stress does
 * no work on the modes and the patch test is passed on distorted meshes (Taylor,
 * Beresford & Wilson 1976).  The modes are condensed per element:
 * Ke = Kuu - Kua Kaa^-1 Kau (docs/theory.md section 2.7).
 */
/* The parts of a quad4i / hex8i element: the compatible stiffness Ke (ne x ne), the
 * coupling Kua (ne x ni) and Kaa (ni x ni) of the internal modes, and (if Gq is not
 * NULL) each quadrature point's mode strains G (nquad blocks of ns x ni). */
enum { INC_NE = 24, INC_NI = 9 };
static void incompatible_parts(const cont_kind *k, const double *xe, const kf_section *sec,
                               double *Ke, double *Kua, double *Kaa, double *Gq)
{
    enum { NE = INC_NE, NI = INC_NI };
    int dim = k->dim, nn = k->nnode, ne = nn * dim, ns = dim == 2 ? 3 : 6, ni = dim * dim;
    double D[36], phi[KF_MAX_ENODE], dphi[KF_MAX_ENODE * 3], Ji0[9], Ji[9], xi[3] = {0}, qw;
    if (dim == 2)
        plane_dmat(sec, D);
    else
        solid_dmat(sec, D);
    shape(k, xi, phi, dphi);
    double det0 = jacobian(dim, nn, xe, dphi, Ji0);
    double N[3 * NE], B[6 * NE], x[3], w;
    memset(Ke, 0, (size_t)ne * ne * sizeof(double));
    memset(Kua, 0, (size_t)ne * ni * sizeof(double));
    memset(Kaa, 0, (size_t)ni * ni * sizeof(double));
    for (int q = 0; q < k->nquad; q++) {
        cont_eval(k, xe, q, N, B, x, &w);
        quad_point(k, q, xi, &qw);
        shape(k, xi, phi, dphi);
        double det = jacobian(dim, nn, xe, dphi, Ji), scale = det0 / det;
        /* G (ns x ni): mode m, component c in column m dim + c */
        double G[6 * NI] = {0};
        for (int m = 0; m < dim; m++) {
            double g[3];
            for (int d = 0; d < dim; d++) /* dP_m/dxi = -2 xi_m e_m */
                g[d] = scale * (-2.0 * xi[m]) * Ji0[m * dim + d];
            strain_columns(dim, g, G, ni, m * dim);
        }
        if (Gq)
            memcpy(Gq + (size_t)q * ns * ni, G, (size_t)ns * ni * sizeof(double));
        /* DB = D B (ns x ne), DG = D G (ns x ni) */
        double DB[6 * NE], DG[6 * NI];
        for (int r = 0; r < ns; r++) {
            for (int c = 0; c < ne; c++) {
                double v = 0.0;
                for (int t = 0; t < ns; t++)
                    v += D[r * ns + t] * B[t * ne + c];
                DB[r * ne + c] = v;
            }
            for (int c = 0; c < ni; c++) {
                double v = 0.0;
                for (int t = 0; t < ns; t++)
                    v += D[r * ns + t] * G[t * ni + c];
                DG[r * ni + c] = v;
            }
        }
        for (int a = 0; a < ne; a++) {
            for (int c = 0; c < ne; c++) {
                double v = 0.0;
                for (int r = 0; r < ns; r++)
                    v += B[r * ne + a] * DB[r * ne + c];
                Ke[a * ne + c] += w * v;
            }
            for (int c = 0; c < ni; c++) {
                double v = 0.0;
                for (int r = 0; r < ns; r++)
                    v += B[r * ne + a] * DG[r * ni + c];
                Kua[a * ni + c] += w * v;
            }
        }
        for (int a = 0; a < ni; a++)
            for (int c = 0; c < ni; c++) {
                double v = 0.0;
                for (int r = 0; r < ns; r++)
                    v += G[r * ni + a] * DG[r * ni + c];
                Kaa[a * ni + c] += w * v;
            }
    }
}

static void incompatible_stiffness(const cont_kind *k, const double *xe, const kf_section *sec,
                                   double *Ke)
{
    enum { NE = INC_NE, NI = INC_NI };
    int ne = k->nnode * k->dim, ni = k->dim * k->dim;
    double Kua[NE * NI], Kaa[NI * NI];
    incompatible_parts(k, xe, sec, Ke, Kua, Kaa, NULL);
    /* X = Kaa^-1 Kau: Kaa is symmetric, so its row-major array is its column-major
     * one, and column c of Kau (ni x ne, column-major) is row c of Kua */
    int ipiv[NI];
    double X[NE * NI];
    memcpy(X, Kua, (size_t)ne * ni * sizeof(double));
    /* Kaa is positive definite on a cell with det J > 0 (checked), so the solve
     * succeeds; should it not, the compatible stiffness is kept */
    if (kf_small_lu_factor(ni, Kaa, ni, ipiv) || kf_small_lu_solve(ni, Kaa, ni, ipiv, ne, X, ni))
        return;
    for (int a = 0; a < ne; a++)
        for (int c = 0; c < ne; c++) {
            double v = 0.0;
            for (int i = 0; i < ni; i++)
                v += Kua[a * ni + i] * X[c * ni + i];
            Ke[a * ne + c] -= v;
        }
    for (int a = 0; a < ne; a++) /* exactly symmetric */
        for (int c = 0; c < a; c++)
            Ke[a * ne + c] = Ke[c * ne + a] = 0.5 * (Ke[a * ne + c] + Ke[c * ne + a]);
}

/* The cont_kind of a plane or solid element type, or NULL (a line element). */
static const cont_kind *kind_of(const kf_element_type *el);

int kf_continuum_mode_strains(const kf_element_type *el, const double *xe,
                              const kf_section *sec, int ncol, const double *de, double *eps)
{
    enum { NE = INC_NE, NI = INC_NI };
    const cont_kind *k = kind_of(el);
    if (!k || (k != &cont_kinds[KF_QUAD4I - KF_TRI3] && k != &cont_kinds[KF_HEX8I - KF_TRI3]))
        return 0;
    int ne = k->nnode * k->dim, ns = k->dim == 2 ? 3 : 6, ni = k->dim * k->dim;
    double Ke[NE * NE], Kua[NE * NI], Kaa[NI * NI], Gq[8 * 6 * NI], rhs[NI];
    int ipiv[NI];
    incompatible_parts(k, xe, sec, Ke, Kua, Kaa, Gq);
    if (kf_small_lu_factor(ni, Kaa, ni, ipiv))
        return 0; /* as the stiffness: the compatible element */
    for (int c = 0; c < ncol; c++) {
        /* alpha = -Kaa^-1 Kau d_e: the internal modes that minimise the energy */
        const double *d = de + (size_t)c * ne;
        for (int i = 0; i < ni; i++) {
            double v = 0.0;
            for (int a = 0; a < ne; a++)
                v += Kua[a * ni + i] * d[a];
            rhs[i] = -v;
        }
        if (kf_small_lu_solve(ni, Kaa, ni, ipiv, 1, rhs, ni))
            continue;
        for (int q = 0; q < k->nquad; q++)
            for (int r = 0; r < ns; r++) {
                double v = 0.0;
                for (int i = 0; i < ni; i++)
                    v += Gq[((size_t)q * ns + r) * ni + i] * rhs[i];
                eps[((size_t)q * ncol + c) * ns + r] += v;
            }
    }
    return 1;
}

static void quad4i_stiffness(const double *xe, const kf_section *sec, double *Ke)
{
    incompatible_stiffness(&cont_kinds[KF_QUAD4I - KF_TRI3], xe, sec, Ke);
}
static void hex8i_stiffness(const double *xe, const kf_section *sec, double *Ke)
{
    incompatible_stiffness(&cont_kinds[KF_HEX8I - KF_TRI3], xe, sec, Ke);
}

/* One check and one eval per kind (the interface passes no kind). */
#define CONT_FUNCS(K, name)                                                                    \
    static int name##_check(const double *xe, const kf_section *sec, int el, kf_error *err)    \
    {                                                                                          \
        return cont_check(&cont_kinds[K - KF_TRI3], xe, sec, el, err);                         \
    }                                                                                          \
    static void name##_eval(const double *xe, int q, double *N, double *B, double *G,          \
                            double *x, double *w)                                              \
    {                                                                                          \
        (void)G; /* no geometric stiffness basis for continuum elements */                     \
        cont_eval(&cont_kinds[K - KF_TRI3], xe, q, N, B, x, w);                                \
    }
CONT_FUNCS(KF_TRI3, tri3)
CONT_FUNCS(KF_TRI6, tri6)
CONT_FUNCS(KF_QUAD4, quad4)
CONT_FUNCS(KF_QUAD8, quad8)
CONT_FUNCS(KF_QUAD9, quad9)
CONT_FUNCS(KF_TET4, tet4)
CONT_FUNCS(KF_TET10, tet10)
CONT_FUNCS(KF_HEX8, hex8)
CONT_FUNCS(KF_HEX20, hex20)
CONT_FUNCS(KF_HEX27, hex27)
CONT_FUNCS(KF_WEDGE6, wedge6)
CONT_FUNCS(KF_WEDGE15, wedge15)
CONT_FUNCS(KF_PYRAMID5, pyramid5)
CONT_FUNCS(KF_PYRAMID13, pyramid13)
CONT_FUNCS(KF_QUAD4I, quad4i)
CONT_FUNCS(KF_HEX8I, hex8i)
#undef CONT_FUNCS

/* name, dim, nnode, ndofn, nstrain, ngeo, nquad, check, eval, mu, dmat, eval_section, stiffness */
#define PLANE(name, nn, nq, st)                                                                \
    {#name, 2, nn, 2, 3, 0, nq, name##_check, name##_eval, plane_mu, plane_dmat, NULL, st}
#define SOLID(name, nn, nq, st)                                                                \
    {#name, 3, nn, 3, 6, 0, nq, name##_check, name##_eval, solid_mu, solid_dmat, NULL, st}
static const kf_element_type types[] = {
    PLANE(tri3, 3, 3, NULL),      PLANE(tri6, 6, 6, NULL),       PLANE(quad4, 4, 4, NULL),
    PLANE(quad8, 8, 9, NULL),     PLANE(quad9, 9, 9, NULL),      SOLID(tet4, 4, 4, NULL),
    SOLID(tet10, 10, 14, NULL),   SOLID(hex8, 8, 8, NULL),       SOLID(hex20, 20, 27, NULL),
    SOLID(hex27, 27, 27, NULL),   SOLID(wedge6, 6, 6, NULL),     SOLID(wedge15, 15, 18, NULL),
    SOLID(pyramid5, 5, 12, NULL), SOLID(pyramid13, 13, 36, NULL),
    PLANE(quad4i, 4, 4, quad4i_stiffness), SOLID(hex8i, 8, 8, hex8i_stiffness),
};
#undef PLANE
#undef SOLID

const kf_element_type *kf_continuum_get(int kind)
{
    if (kind < KF_TRI3 || kind > KF_CONTINUUM_LAST)
        return NULL;
    return &types[kind - KF_TRI3];
}

static const cont_kind *kind_of(const kf_element_type *el)
{
    for (int k = KF_TRI3; k <= KF_CONTINUUM_LAST; k++)
        if (el == &types[k - KF_TRI3])
            return &cont_kinds[k - KF_TRI3];
    return NULL;
}

/* Reference coordinates of the simplices' nodes: vertices, then the mid-edges in
 * VTK order (as shape() numbers them). */
static const double tri_nodes[6 * 2] = {0, 0, 1, 0, 0, 1, 0.5, 0, 0.5, 0.5, 0, 0.5};
static const double tet_nodes[10 * 3] = {0,   0,   0,   1,   0,   0,   0,   1,   0,   0,
                                         0,   1,   0.5, 0,   0,   0.5, 0.5, 0,   0,   0.5,
                                         0,   0,   0,   0.5, 0.5, 0,   0.5, 0,   0.5, 0.5};

int kf_continuum_reference(int kind, int *nquad, int *nnode, double *xq, double *xn,
                           kf_error *err)
{
    if (kind < KF_TRI3 || kind > KF_CONTINUUM_LAST)
        return kf_fail(err, KF_EINVAL, "kind", "kind %d is not a plane or solid element kind",
                       kind);
    const cont_kind *k = &cont_kinds[kind - KF_TRI3];
    int dim = k->dim;
    double w;
    *nquad = k->nquad;
    *nnode = k->nnode;
    for (int q = 0; q < k->nquad; q++)
        quad_point(k, q, xq + q * dim, &w);
    for (int a = 0; a < k->nnode; a++)
        for (int d = 0; d < dim; d++)
            xn[a * dim + d] = k->family == SIMPLEX ? (dim == 2 ? tri_nodes : tet_nodes)[a * dim + d]
                                                   : k->ref[a * dim + d];
    if (k->family == PYRAMID) /* collapsed (u, v, w) -> the point (u (1 - w), v (1 - w), w) */
        for (int p = 0; p < k->nquad + k->nnode; p++) {
            double *y = p < k->nquad ? xq + 3 * p : xn + 3 * (p - k->nquad);
            y[0] *= 1.0 - y[2];
            y[1] *= 1.0 - y[2];
        }
    return KF_OK;
}
