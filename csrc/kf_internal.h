/*
 * kf_internal.h -- declarations shared by the core's files, not part of the
 * public API.
 */
#ifndef KF_INTERNAL_H
#define KF_INTERNAL_H

#include "kanefem.h"

#include <math.h>
#include <stdlib.h>

#define KF_PI 3.14159265358979323846

/* Record an error and return its code.  fmt should name the argument and its
 * value, e.g. kf_fail(err, KF_EINVAL, "n_modes", "n_modes = %d is out of 1..%d", k, n). */
int kf_fail(kf_error *err, int code, const char *arg, const char *fmt, ...)
#if defined(__MINGW32__) /* kf_error.c uses MinGW's C99 printf (%zu), not msvcrt's */
    __attribute__((format(gnu_printf, 4, 5)))
#elif defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The installed LAPACK table, or NULL (kf_lapack.c). */
const kf_lapack_table *kf_lapack_get(void);
/* Return KF_ENOLAPACK with a message if no table is installed. */
int kf_lapack_require(kf_error *err);
/* Map a LAPACK info value to a status, with a message naming the routine. */
int kf_lapack_info(kf_error *err, const char *routine, int info);

/* Checked LAPACK/BLAS calls (kf_lapack.c): the only way the core reaches the
 * table.  Column-major; triangular factors are lower ('L'). */
int kf_la_potrf(int n, double *a, int lda, kf_error *err);
int kf_la_getrf(int n, double *a, int lda, int *ipiv, kf_error *err);
int kf_la_getrs(int n, int nrhs, const double *a, int lda, const int *ipiv, double *b, int ldb,
                kf_error *err);
int kf_la_gbtrf(int n, int kl, int ku, double *ab, int ldab, int *ipiv, kf_error *err);
int kf_la_gbtrs(int n, int kl, int ku, int nrhs, const double *ab, int ldab, const int *ipiv,
                double *b, int ldb, kf_error *err);
/* B = op(L)^-1 B (side 'L') or B op(L)^-1 (side 'R'), L lower triangular. */
int kf_la_trsm(char side, char trans, int m, int n, const double *a, int lda, double *b,
               int ldb, kf_error *err);
int kf_la_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *a, int lda,
               const double *b, int ldb, double beta, double *c, int ldc, kf_error *err);
int kf_la_syevr_lwork(int n, int *lwork, int *liwork);
/* Eigenvalues il..iu (1-based, ascending) of a symmetric matrix (lower part
 * used, destroyed); z (n x (iu-il+1)) may be NULL. */
int kf_la_syevr(int n, double *a, int lda, int il, int iu, double *w, double *z, int ldz,
                int *isuppz, double *work, int lwork, int *iwork, int liwork, kf_error *err);
int kf_la_geev_lwork(int n, int *lwork, kf_error *err);
/* All eigenvalues (wr + i wi) and, if vr != NULL, right eigenvectors. */
int kf_la_geev(int n, double *a, int lda, double *wr, double *wi, double *vr, int ldvr,
               double *work, int lwork, kf_error *err);
int kf_la_orth_lwork(int m, int n, int *lwork, kf_error *err);
/* Replace the m x n (m >= n) matrix a by an orthonormal basis of its columns (QR). */
int kf_la_orth(int m, int n, double *a, int lda, double *tau, double *work, int lwork,
               kf_error *err);

/* Small dense systems (a few unknowns, solved at every step of an ODE: the
 * mechanisms), in plain loops instead of LAPACK: for n <= ~20 a LAPACK call
 * costs more than the arithmetic, and a threaded BLAS may serialize concurrent
 * callers on a lock (kf_matrix.c).  LU with partial pivoting (dgetf2's
 * algorithm) of the column-major n x n a in place, ipiv as getrf's (0-based);
 * then nrhs solves of b (n x nrhs, leading dimension ldb).  KF_ESING (an
 * exactly zero pivot) or KF_ERANGE (a non-finite entry in a or b, as the
 * kf_la_* wrappers refuse it); no message (the caller knows what failed). */
int kf_small_lu_factor(int n, double *a, int lda, int *ipiv);
/* A^T x = b (one right-hand side) with the factors of kf_small_lu_factor. */
int kf_small_lu_solve_trans(int n, const double *a, int lda, const int *ipiv, double *b);
/* The same for a small band (KF_BAND storage, the LU in place as dgbtrf leaves it,
 * ipiv 1-based as its): dgbtf2's algorithm in plain loops. */
int kf_small_band_lu_factor(kf_mat *A, int *ipiv);
int kf_small_band_lu_solve(const kf_mat *LU, const int *ipiv, int nrhs, double *b, int ldb);
/* Nonzero if the m x n column-major block a (leading dimension lda) is finite. */
int kf_mat_block_finite(int m, int n, const double *a, int lda);
int kf_small_lu_solve(int n, const double *a, int lda, const int *ipiv, int nrhs, double *b,
                      int ldb);

/* y += a x1 + b x2 (conforming), each entry in one expression: with x2 = x1^T
 * bitwise (S_ji = S_ij^T), b = -a adds an exactly skew and b = a an exactly
 * symmetric matrix (kf_body_combine of a spatial body, kf_matrix.c). */
void kf_mat_axpy2(kf_mat *y, double a, const kf_mat *x1, double b, const kf_mat *x2);

/* The transpose (ncol x nrow, CSR) of the nrow x ncol CSR matrix ptr/col/val (columns
 * in range, checked by the caller), allocated here; KF_ENOMEM (no message) if it cannot. */
int kf_csr_transpose(int nrow, int ncol, const int *ptr, const int *col, const double *val,
                     int **tptr, int **tcol, double **tval);

/* Checked allocation: zeroed, returns NULL on overflow or failure. */
void *kf_calloc(size_t count, size_t size);

/* ---------------------------------------------------------------- elements */

/* Largest sizes over all element kinds (fixed buffers, no allocation in loops). */
#define KF_MAX_DIM 3
#define KF_MAX_EDOF 81    /* DOFs per element (hex27: 27 nodes x 3) */
#define KF_MAX_STRAIN 6
/* geometric stiffness basis matrices: 3 (a straight line body's x^k basis) or the
 * prestress load cases, dim + dim^2 + 2 (docs/theory.md section 2.11), or a given
 * body's dim + dim^2 + its coordinate load cases (section 3.18): KF_BODY_MAX_KG */
#define KF_MAX_KG KF_BODY_MAX_KG
#define KF_MAX_ENODE 27

/*
 * An element kind supplies its interpolation and its constitutive law; the
 * invariants, assembly and motion terms are common (kf_body.c).  At each
 * quadrature point q of an element with node coordinates xe (nnode x dim,
 * row-major), eval writes
 *   N  (dim x nedof, row-major): displacement interpolation, u = N d;
 *   B  (nstrain x nedof):        generalized strains, eps = B d;
 *   G  (ngeo x nedof):           the gradients whose squares make the
 *                                geometric strain (a beam: dv/ds across its
 *                                axis), so K_G = int N_ax G^T G;
 *   x  (dim):                    undeformed position of the point;
 *   w:                           quadrature weight times measure (length,
 *                                area or volume).
 * mu is the mass per unit measure, D (nstrain x nstrain) the constitutive matrix.
 * A kind whose points depend on the section (the spatial beam integrates over
 * its cross-section with section points, docs/theory.md section 2.8) sets
 * eval_section, which also receives the section, and leaves eval NULL.
 */
typedef struct kf_element_type {
    const char *name;
    int dim, nnode, ndofn, nstrain, ngeo, nquad;
    int (*check)(const double *xe, const kf_section *sec, int el, kf_error *err);
    void (*eval)(const double *xe, int q, double *N, double *B, double *G, double *x,
                 double *w);
    double (*mu)(const kf_section *sec);
    void (*dmat)(const kf_section *sec, double *D);
    void (*eval_section)(const double *xe, const kf_section *sec, int q, double *N, double *B,
                         double *G, double *x, double *w);
    /* Optional: the element stiffness Ke (nedof x nedof, row-major) computed by the
     * kind itself instead of the sum of w B^T D B over its points (elements with
     * internal, statically condensed modes: KF_QUAD4I, KF_HEX8I). */
    void (*stiffness)(const double *xe, const kf_section *sec, double *Ke);
    /* Optional: the second-order rotation of a rigid section (docs/theory.md section
     * 2.9).  At point q it writes Th (3 x nedof, row-major, body axes: the section's
     * rotation theta = Th d) and r (3: the point's offset from the axis), so that the
     * point moves by N d + 1/2 theta x (theta x r); returns 0 if the section does not
     * turn to second order (then nothing is written). */
    int (*second)(const double *xe, const kf_section *sec, int q, double *Th, double *r);
} kf_element_type;

const kf_element_type *kf_element_get(int kind);
/* The plane and solid kinds KF_TRI3..KF_CONTINUUM_LAST (kf_continuum.c), or NULL. */
const kf_element_type *kf_continuum_get(int kind);
/* Add the strains of a quad4i / hex8i element's condensed internal modes,
 * alpha = -Kaa^-1 Kau d_e, to eps (nquad x ncol x nstrain) for the ncol element
 * displacement sets de (ncol x nedof); 0 (nothing added) for any other kind. */
int kf_continuum_mode_strains(const kf_element_type *el, const double *xe,
                              const kf_section *sec, int ncol, const double *de, double *eps);

/* ---------------------------------------------------------------- bodies */

struct kf_body {
    const kf_element_type *el;
    int kind, dim, nnode, ndofn, ndof, nel;
    double *coords; /* nnode x dim */
    int *conn;      /* nel x nnode-per-element; a mixed body: element e's nodes at eptr[e] */
    /* a mixed mesh (kf_body_create_mixed): each element's kind and the offsets of its
     * nodes in conn (nel + 1); both NULL for a body of one kind, whose kind is el */
    const kf_element_type **els;
    int *eptr;
    kf_section sec;
    /* a line body's per-element section orientation (nel x 3, kf_body_create_refs), or
     * NULL: sec.ref for every element */
    double *eref;
    kf_mat S[KF_MAX_DIM * KF_MAX_DIM]; /* S[i dim + j] */
    double *s;                         /* s_ij at s + (i dim + j) ndof */
    double *Mo;                        /* Mo_i at Mo + i ndof */
    kf_mat M, K;
    /* geometric stiffness basis (has_geometric): nkg = 3 matrices KG[k] = int x^k
     * G^T G ds, k = 0..2, for a straight line body on the frame's x axis, made with
     * the body; or (prestress = 1) the K_G of the nkg unit load cases set by
     * kf_body_set_prestress for one support set (section 2.11), end_axis the unit
     * directions of the two end loads of a line body; see kf_body_geometric */
    int has_geometric, prestress, nkg;
    int reduced; /* made by kf_body_reduce or kf_body_create_given: no mesh */
    int given;   /* made by kf_body_create_given (a reduced body): no elements at all */
    double end_axis[2][KF_MAX_DIM];
    /* planar bodies: the invariants in the basis the motion terms use, so that
     * sum c_ij S_ij = (a+d)/2 M + (a-d)/2 D + (c-b)/2 G + (b+c)/2 P for
     * c = [[a, b], [c, d]] takes one or two terms (C: G only; K_eps + K_om: M
     * and G); P[0] = S_xx - S_yy, P[1] = S_yx - S_xy (skew), P[2] = S_xy + S_yx */
    kf_mat P[3];
    double xa, xb; /* x of the first and last node */
    kf_mat KG[KF_MAX_KG];
    /* second-order rotation invariants R_ij = int rho H_i x_j (H_i the Hessian of the
     * displacement component i in d), only if has_second: they join S_ij in the
     * stiffness-like terms K_eps and K_om (kf_body_combine_stiff) */
    int has_second;
    kf_mat R[KF_MAX_DIM * KF_MAX_DIM];
    kf_pattern *pattern; /* CSR bodies: the pattern every matrix borrows (owned) */
    /* A plane or solid body in CSR storage interpolates each displacement component
     * with the same shape functions, N = phi (x) I, so each inertia block is the nodal
     * mass pattern, S_ij = m (x) e_i e_j^T with m_ac = int rho phi_a phi_c, and each K_G
     * load case of its prestress is g (x) I (docs/theory.md sections 2.11, 3.11).  Such a
     * body (nodal = 1) stores m once per node pair, not dim^2 matrices: mnode (npair
     * values), for each pattern entry its node pair (pair, nnz) and for each DOF its
     * displacement component (comp, ndof); S[] and P[] stay unallocated, and its K_G
     * cases are kgnode[k] (npair values) instead of KG[k].  A body reduced from it
     * (kf_body_reduce) shares the node pairs' numbering: its own pair and comp, copies of
     * mnode and kgnode.  kf_body_block forms any S_ij or KG_k as a matrix. */
    int nodal, npair;
    double *mnode;
    int *pair;
    unsigned char *comp;
    double *kgnode[KF_MAX_KG];
};

/* Which stored family kf_body_block forms. */
enum { KF_BLOCK_S = 0, KF_BLOCK_KG = 1 };
/*
 * out (allocated here like the body's M) = S_ij (family KF_BLOCK_S, k = i dim + j) or
 * the K_G basis matrix k (KF_BLOCK_KG; zero if the body has none there): a copy of the
 * stored matrix, or formed from the nodal masses of a nodal body (bitwise the values
 * the dim^2 blocks would hold).
 */
int kf_body_block(const kf_body *b, int family, int k, kf_mat *out, kf_error *err);
/* Nonzero if the combination coefficient k = i dim + j multiplies only zeros: S_ij (and
 * R_ij) identically zero, as a bar's lateral blocks or a block whose DOFs are all fixed. */
int kf_body_block_zero(const kf_body *b, int k);

/* The section of element e: b->sec, with element e's own ref when the body has one
 * per element (then copied into *tmp). */
static inline const kf_section *kf_body_esec(const kf_body *b, int e, kf_section *tmp)
{
    if (!b->eref)
        return &b->sec;
    *tmp = b->sec;
    for (int k = 0; k < 3; k++)
        tmp->ref[k] = b->eref[3 * (size_t)e + k];
    return tmp;
}


/*
 * A body restricted to the DOFs map[0..n-1] (increasing): its invariants, M,
 * K and geometric basis with the other rows and columns deleted (band kept,
 * or dense if asked), so that kf_body_combine(_vec), kf_body_geometric and
 * kf_body_axial_force work on the free DOFs directly.  It has no mesh; free
 * it with kf_body_free.  Keep in step with struct kf_body.
 */
int kf_body_reduce(const kf_body *b, int n, const int *map, int dense, kf_body **out,
                   kf_error *err);
/* KF_EINVAL (naming "map") unless map[0..n-1] are increasing indices in 0..size-1. */
int kf_check_map(int n, const int *map, int size, kf_error *err);


/* Small dense helpers (column-major unless stated). */
double kf_dot(int n, const double *x, const double *y);
double kf_nrm2(int n, const double *x);

/* ---------------------------------------------------------------- sparse eigen kernels
 * (kf_eig.c; the compensated products and band Cholesky of issue 19, used by the
 * continuation in kf_eigcont.c) */

/* Dekker's splitter 2^27 + 1: a = ah + al, each half with at most 26 significant bits, so
 * products of halves are exact (kf_csr_dot2, the continuation's error-free sums). */
#define KF_SPLITTER 134217729.0

/* The error-free transformations of Dot2 (Ogita, Rump & Oishi 2005), each operation its own
 * statement so that no contraction into a fused multiply-add changes them (C11 contracts
 * only within an expression; kf_eig.c also sets FP_CONTRACT OFF for clang).
 * kf_split: a = *hi + *lo (Dekker).  kf_two_product: *p = fl(a b), *p + *e = a b exactly
 * (a = ah + al split).  kf_two_sum: *s = fl(a + b), *s + *e = a + b exactly (Knuth). */
static inline void kf_split(double a, double *hi, double *lo)
{
    const double ca = KF_SPLITTER * a;
    const double ca2 = ca - a;
    const double ah = ca - ca2;
    *hi = ah;
    *lo = a - ah;
}

static inline void kf_two_product(double a, double ah, double al, double b, double *p, double *e)
{
    double bh, bl;
    kf_split(b, &bh, &bl);
    const double pp = a * b;
    const double hh = ah * bh;
    const double e1 = hh - pp;
    const double hl = ah * bl;
    const double e2 = e1 + hl;
    const double lh = al * bh;
    const double e3 = e2 + lh;
    const double ll = al * bl;
    *p = pp;
    *e = e3 + ll;
}

static inline void kf_two_sum(double a, double b, double *s, double *e)
{
    const double sn = a + b;
    const double z = sn - a;
    *s = sn;
    *e = (a - (sn - z)) + (b - z);
}

/* kf_csr_dot2's loops without its checks; its sums stay in registers, so it allocates
 * nothing (the continuation's per-instant products). */
void kf_dot2_rows(int n, const int *indptr, const int *indices, const double *values, int k,
                  const double *X, const double *Xlo, double *y, double *err);
/* The two halves of kf_band_cholesky_solve: B <- L^-1 B, B <- L^-T B (B n x k row-major). */
void kf_band_forward(int n, int b, const double *ab, int k, double *B);
void kf_band_backward(int n, int b, const double *ab, int k, double *B);

/* ---------------------------------------------------------------- formalisms
 * (kf_direct.c: direct inertia forces, null-space bases for Maggi's projection) */

/* QR with column pivoting, A P = Q R (dgeqp3), and Q from its reflectors
 * (dorgqr), column-major; jpvt must be zero on entry (all columns free). */
int kf_la_geqp3_lwork(int m, int n, int *lwork, kf_error *err);
int kf_la_geqp3(int m, int n, double *a, int lda, int *jpvt, double *tau, double *work,
                int lwork, kf_error *err);
int kf_la_orgqr_lwork(int m, int n, int k, int *lwork, kf_error *err);
int kf_la_orgqr(int m, int n, int k, double *a, int lda, const double *tau, double *work,
                int lwork, kf_error *err);

/*
 * The quadrature points of a body, element by element, as the invariants are
 * assembled (kf_body.c) and as kf_direct.c integrates at a state:
 *
 *     kf_qpoint p = {0};
 *     while (kf_body_next_point(b, &p)) { ... p.dofs, p.N, p.B, p.x, p.w ... }
 *
 * At each point: the element's DOF indices in the body (node-major, ne of
 * them) and the element kind's N, B, G, x and w (see kf_element_type).
 */
typedef struct kf_qpoint {
    int e, q, started, ne;
    int dofs[KF_MAX_EDOF];
    double xe[KF_MAX_ENODE * KF_MAX_DIM];
    double N[KF_MAX_DIM * KF_MAX_EDOF], B[KF_MAX_STRAIN * KF_MAX_EDOF];
    double G[KF_MAX_DIM * KF_MAX_EDOF], x[KF_MAX_DIM], w;
} kf_qpoint;

/* Move p to the next quadrature point; 0 when there is none left. */
int kf_body_next_point(const kf_body *b, kf_qpoint *p);

/* ---------------------------------------------------------------- mechanisms (kf_mechanism.c) */

/* The one dense solve of the mechanism code: LU with partial pivoting of the n x n
 * column-major a in place (factor != 0), then nrhs solves of b (n x nrhs). */
int kf_mech_dense_solve(int n, double *a, int *ipiv, int factor, int nrhs, double *b,
                        kf_error *err);
/* The coordinates at t from the drives: prescribed ones (SPEED from z0 at t0, PATH)
 * with z'' and presc set, free ones from y = (z, z') (full length 2 nz); tau the
 * free ones' laws (0 without).  A callback's failure or a non-finite value stops. */
int kf_mech_drive_values(const kf_mech *m, const kf_mech_drive *drives, double t, double t0,
                         const double *z0, const double *y, double *z, double *zd, double *zdd,
                         double *tau, unsigned char *presc, kf_error *err);
/* KF_EINVAL unless every drive is well formed (mode, speed, path). */
int kf_mech_check_drives(const kf_mech *m, const kf_mech_drive *drives, kf_error *err);
/* The same two for any mechanism given by its table (kf_mech_ops). */
int kf_drives_eval(const kf_mech_ops *ops, const void *m, const kf_mech_drive *drives, double t,
                   double t0, const double *z0, const double *y, double *z, double *zd,
                   double *zdd, double *tau, unsigned char *presc, kf_error *err);
int kf_drives_check(const kf_mech_ops *ops, const void *m, const kf_mech_drive *drives,
                    kf_error *err);

/* ---------------------------------------------------------------- loop closure (kf_closure.c)
 *
 * The positions of a mechanism at its independent coordinates z, written once
 * for every kinematics (the planar mechanisms', kf_mechanism.c; the spatial
 * ones', kf_spatial.c; docs/theory.md section 5.11): Newton's method on the n
 * rows [Phi(q); f(q) - z] = 0 with the Jacobian J scaled to lengths, chord
 * steps with the factors of J at the last solution while they converge fast
 * enough, stopped when the rate of convergence predicts the next correction at
 * round-off; continuation along the straight path in z from the last solution
 * (the drawing at first), each step predicted from the last solution's rates,
 * halved where it fails or jumps towards another branch; dead points
 * (singular configurations) named; then A = J^-1 [0; I] and c = J^-1 gamma.
 * A kinematics supplies its rows and the update of positions on its
 * configuration space (plus in the plane, the exponential map of quaternions
 * in space) through this table.
 */
typedef struct kf_closure_ops {
    /* The n rows at positions q for z, scaled (row i times rs[i]; angle columns of J
     * over L): res (n: the constraints, then the coordinates' f(q) - z, angles wrapped)
     * and J (n x n column-major, zeroed by the callee); either may be NULL.  0, or 1
     * with *bad the coordinate whose angles are singular at q. */
    int (*rows)(const void *mech, void *kin, const double *q, const double *z, double *res,
                double *J, int *bad);
    /* gamma (n, unscaled: the rows' second derivatives without u') at the solution the
     * closure last reached (solved has run there) with speeds u; 0 or 1 as rows. */
    int (*gamma)(const void *mech, void *kin, const double *u, double *gam, int *bad);
    /* q += x, x (n) a change along the speeds, scaled (angles times L): on the
     * configuration space */
    void (*move)(const void *mech, double *q, const double *x);
    /* the scaled size of the change from b to a (lengths; rotation angles times L) */
    double (*distance)(const void *mech, const double *a, const double *b);
    /* the drawing's positions q and its coordinates z; KF_EGEOM where its angles are
     * singular */
    int (*drawing)(const void *mech, void *kin, double *q, double *z, kf_error *err);
    const char *(*coord_name)(const void *mech, int k);
    int (*coord_is_angle)(const void *mech, int k);
    /* KF_EGEOM naming coordinate k's singular angles at z (NULL: rows never fails) */
    int (*bad_angles)(const void *mech, int k, const double *z, kf_error *err);
    /* optional: the part row i belongs to, its name into buf (messages naming the rows
     * that lose rank at a singular position); its index (rows of one part: one name) */
    int (*row_name)(const void *mech, int i, char *buf, size_t len);
    /* optional: a continuation step reached q (the kinematics' own state at q) */
    void (*accepted)(const void *mech, void *kin, const double *q);
    /* optional: the final position q at z, before it is kept: KF_EGEOM to refuse it */
    int (*solved)(const void *mech, void *kin, const double *q, const double *z, kf_error *err);
    const char *singular; /* what a singular J is called: "a dead point" */
} kf_closure_ops;

typedef struct kf_closure_shape {
    int n;          /* rows = speeds (columns of J) */
    int nq;         /* position numbers */
    int nz;         /* independent coordinates: the last nz rows */
    int per_body;   /* speeds per body; */
    int lengths;    /* the first `lengths` of them lengths, the others angles (scaled by L) */
    double L;       /* the length scale */
    const double *rs; /* n row scales: L for an angle row, 1 for a length row */
} kf_closure_shape;

typedef struct kf_closure kf_closure;

/* A closure for one workspace kin of mech, working on the workspace's own q (nq), z
 * (nz), A (n x nz row-major: u = A z') and c (n: u' = A z'' + c). */
int kf_closure_create(kf_closure **out, const kf_closure_ops *ops, const void *mech, void *kin,
                      const kf_closure_shape *shape, double *q, double *z, double *A, double *c,
                      kf_error *err);
void kf_closure_free(kf_closure *cl);
/* Positions at z continued from the last solution (the drawing at first); on success
 * q the solution, the factors of J at it and A.  KF_EGEOM naming the coordinates (and
 * the rows that lose rank) where the loop cannot close or J is singular. */
int kf_closure_position(kf_closure *cl, const double *z, kf_error *err);
/* Positions at z by Newton from q as it stands, no continuation (the drawing at
 * creation, an assembly rule's position); with exact, none where q already solves
 * every row to round-off (1e-14 L); `from` names the start in messages. */
int kf_closure_assemble(kf_closure *cl, const double *z, int exact, const char *from,
                        kf_error *err);
/* q, placed by a closed-form rule, is the solution at z (no J: a rate rule gives A). */
int kf_closure_placed(kf_closure *cl, const double *z, kf_error *err);
/* The rates at the solution: u = A z' (zd NULL: 0), c = J^-1 gamma, u' = A z'' + c
 * (zdd NULL: 0); KF_ERANGE naming the rates where they overflow. */
int kf_closure_rates(kf_closure *cl, const double *zd, const double *zdd, double *u, double *ud,
                     kf_error *err);
/* The multipliers of J^T lam = r (n) at the solution, unscaled, by the factors of J
 * (formed there if a rate rule left none). */
int kf_closure_multipliers(kf_closure *cl, const double *r, double *lam, kf_error *err);
/* Back to the last solution after a failed evaluation. */
void kf_closure_restore(kf_closure *cl);
/* "crank = 0.3 rad, x = 1.5 m": the nz coordinates z of mech, named by ops */
const char *kf_closure_coords_text(const kf_closure_ops *ops, const void *mech, int nz,
                                   const double *z, char *buf, size_t len);

/* ---------------------------------------------------------------- integration (kf_ode.c) */

/* KF_EINVAL naming the bad one unless the fixed-step runs on kf_ga (the mechanisms' and
 * the floating bodies') have dt > 0, rho_inf in [0, 1], tol in (0, 1), max_iter >= 1
 * (kf_integrate.c). */
int kf_check_ga_run(double dt, double rho_inf, double tol, int max_iter, kf_error *err);

/* KF_EINVAL unless there are nout >= 1 output times, finite, >= t0 and
 * non-decreasing; the message calls them name. */
int kf_check_outputs(double t0, int nout, const double *tout, const char *name, kf_error *err);

#endif /* KF_INTERNAL_H */
