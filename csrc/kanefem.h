/*
 * kanefem.h -- the public C API of the kanefem core.
 *
 * Finite elements in a moving (floating) reference frame, with the equations of
 * motion written by Kane's method:
 *
 *   M d'' + C d' + (K + K_eps + K_om) d = Q - q_a - q_eps - q_om
 *
 * (see docs/theory.md section 1).  Every time-dependent term is a linear combination
 * of the body's inertia invariants S_ij, s_ij, Mo_i, computed once by
 * quadrature when the body is created; nothing is integrated at run time.
 *
 * Conventions (after GSL and SQLite):
 *   - every function that can fail returns an int status (KF_OK = 0) and, when
 *     given a kf_error, writes a message naming the offending argument;
 *   - results go into caller-provided buffers or into objects with an
 *     explicit _create/_free pair;
 *   - no global mutable state except the LAPACK function table, which is set
 *     once before first use (kf_lapack_set / kf_lapack_use_linked); after
 *     that, objects that are not being modified may be used from several
 *     threads at once;
 *   - the core never prints and never aborts.
 *
 * Plain C11; this header and its implementation files never include Python.h.
 */
#ifndef KANEFEM_H
#define KANEFEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KF_VERSION "0.1.0"

/* ---------------------------------------------------------------- status */

enum kf_status {
    KF_OK = 0,
    KF_EINVAL = 1,     /* an argument is out of its domain */
    KF_ENOMEM = 2,     /* allocation failed */
    KF_ESING = 3,      /* a matrix is singular (or numerically so) */
    KF_ENOTPD = 4,     /* a matrix that must be positive definite is not */
    KF_ENOCONV = 5,    /* an iteration did not converge */
    KF_EDIVERGE = 6,   /* a solution became non-finite or unbounded */
    KF_ENOLAPACK = 7,  /* the LAPACK table has not been filled */
    KF_ELAPACK = 8,    /* LAPACK returned info != 0 for a reason not above */
    KF_ECALLBACK = 9,  /* a user callback asked to stop */
    KF_EGEOM = 10,     /* a mechanism cannot be assembled at this position */
    KF_ESTEPS = 11,    /* an integrator used up its step budget (max_steps) or its step
                        * size fell below what the time's precision can resolve */
    KF_ERANGE = 12     /* a value overflowed or underflowed the double range (an input
                        * whose scale makes a matrix or a result non-finite) */
};

/* Error record: code, the name of the offending argument (may be empty) and a
 * message that names the argument and its value. */
typedef struct kf_error {
    int code;
    char arg[48];
    char msg[480];
} kf_error;

/* A short, static description of a status code. */
const char *kf_strstatus(int status);

/*
 * Long loops (time steps, instants of a time grid) call a progress function
 * after each step or instant, when one is given: it may report progress and
 * check for an interrupt (Ctrl-C in the Python binding); nonzero stops the
 * loop with KF_ECALLBACK.  It is called often: it should be cheap (e.g. look
 * at a clock and do real work every 0.1 s).
 */
typedef int kf_progress_fn(double t, void *params);

/* What an integration cost; the one statistics record of the integrators
 * (kf_ode, kf_integ) and the mechanisms built on them. */
typedef struct kf_stats {
    long steps;           /* accepted steps */
    long rejected;        /* rejected steps: error test, non-finite estimate, or a
                           * recoverable failure of a callback */
    long evaluations;     /* calls of the problem's right-hand side / callbacks */
    long factorizations;  /* LU factorizations (implicit methods: M once, one per step) */
    long solves;          /* triangular solves with those factors */
} kf_stats;

/* ---------------------------------------------------------------- LAPACK */

/*
 * The core reaches LAPACK and BLAS only through this table.  The function
 * types are those of SciPy's scipy.linalg.cython_lapack / cython_blas
 * (Fortran argument lists: everything by pointer, column-major, no hidden
 * string lengths), so the table can be filled from SciPy's capsules.  When
 * the module is linked against a system LAPACK (KF_HAVE_LAPACK), the table
 * points to small wrappers that pass the hidden string-length arguments.
 * Only the LP64 (32-bit integer) interface is supported.
 */
typedef void kf_dpotrf_t(char *uplo, int *n, double *a, int *lda, int *info);
typedef void kf_dgetrf_t(int *m, int *n, double *a, int *lda, int *ipiv, int *info);
typedef void kf_dgetrs_t(char *trans, int *n, int *nrhs, double *a, int *lda, int *ipiv,
                         double *b, int *ldb, int *info);
typedef void kf_dgbtrf_t(int *m, int *n, int *kl, int *ku, double *ab, int *ldab, int *ipiv,
                         int *info);
typedef void kf_dgbtrs_t(char *trans, int *n, int *kl, int *ku, int *nrhs, double *ab,
                         int *ldab, int *ipiv, double *b, int *ldb, int *info);
typedef void kf_dsyevr_t(char *jobz, char *range, char *uplo, int *n, double *a, int *lda,
                         double *vl, double *vu, int *il, int *iu, double *abstol, int *m,
                         double *w, double *z, int *ldz, int *isuppz, double *work, int *lwork,
                         int *iwork, int *liwork, int *info);
typedef void kf_dgeev_t(char *jobvl, char *jobvr, int *n, double *a, int *lda, double *wr,
                        double *wi, double *vl, int *ldvl, double *vr, int *ldvr, double *work,
                        int *lwork, int *info);
typedef void kf_dgeqp3_t(int *m, int *n, double *a, int *lda, int *jpvt, double *tau,
                         double *work, int *lwork, int *info);
typedef void kf_dgeqrf_t(int *m, int *n, double *a, int *lda, double *tau, double *work,
                         int *lwork, int *info);
typedef void kf_dorgqr_t(int *m, int *n, int *k, double *a, int *lda, double *tau,
                         double *work, int *lwork, int *info);
typedef void kf_dtrsm_t(char *side, char *uplo, char *transa, char *diag, int *m, int *n,
                        double *alpha, double *a, int *lda, double *b, int *ldb);
typedef void kf_dgemm_t(char *transa, char *transb, int *m, int *n, int *k, double *alpha,
                        double *a, int *lda, double *b, int *ldb, double *beta, double *c,
                        int *ldc);
typedef void kf_dsyev_t(char *jobz, char *uplo, int *n, double *a, int *lda, double *w,
                        double *work, int *lwork, int *info);

typedef struct kf_lapack_table {
    kf_dpotrf_t *dpotrf;
    kf_dgetrf_t *dgetrf;
    kf_dgetrs_t *dgetrs;
    kf_dgbtrf_t *dgbtrf;
    kf_dgbtrs_t *dgbtrs;
    kf_dsyevr_t *dsyevr;
    kf_dgeev_t *dgeev;
    kf_dgeqp3_t *dgeqp3;
    kf_dgeqrf_t *dgeqrf;
    kf_dorgqr_t *dorgqr;
    kf_dtrsm_t *dtrsm;
    kf_dgemm_t *dgemm;
    kf_dsyev_t *dsyev; /* the QR algorithm: the fallback where dsyevr's MRRR fails */
} kf_lapack_table;

/* The names of the table's entries, in order, NULL-terminated (for filling
 * the table by name from another library). */
extern const char *const kf_lapack_names[];

/* Install a table (copied).  Every entry must be non-NULL.  Call before the
 * first computation, not while other threads compute. */
int kf_lapack_set(const kf_lapack_table *table, const char *source, kf_error *err);
/* Fill the table from the LAPACK this library was linked with.  Returns
 * KF_ENOLAPACK if it was built without one. */
int kf_lapack_use_linked(kf_error *err);
/* Where the current table came from ("linked", "scipy", ...), or NULL. */
const char *kf_lapack_source(void);
/* Nonzero if this library was linked against a LAPACK at build time. */
int kf_lapack_linked_available(void);

/* ---------------------------------------------------------------- matrices */

/*
 * Square matrices in one of two storages, so that assembly, integrators and
 * eigen solvers run unchanged on either:
 *   KF_DENSE: column-major n x n, ld = n;
 *   KF_BAND:  LAPACK general band layout with room for the LU fill-in:
 *             ld = 2 kl + ku + 1, A(i,j) at a[(kl + ku + i - j) + j ld]
 *             for max(0, j - ku) <= i <= min(n - 1, j + kl).
 * Entries outside the matrix or the band are kept at zero; the kl fill-in
 * rows of a band are LU workspace, not part of the matrix (copy, axpy and
 * scale leave them alone).
 */
typedef enum kf_storage { KF_DENSE = 0, KF_BAND = 1, KF_CSR = 2 } kf_storage;

/*
 * KF_CSR (meshes, docs/theory.md section 3.11): compressed sparse rows on a
 * pattern that every matrix of a body shares, so that a combination of them
 * is an axpy over their value arrays.  The pattern lists, for row i, the
 * sorted columns col[ptr[i] .. ptr[i+1]-1] (0-based, no duplicates); a CSR
 * kf_mat holds a[nnz], the values at those positions, and borrows its
 * pattern (it must outlive the matrix).  kl = ku = n - 1, ld = 0.
 */
typedef struct kf_pattern {
    int n;
    int nnz;
    int *ptr; /* n + 1 */
    int *col; /* nnz */
} kf_pattern;

typedef struct kf_mat {
    kf_storage kind;
    int n, kl, ku, ld;
    double *a;
    const kf_pattern *pat; /* KF_CSR only (borrowed) */
} kf_mat;

int kf_mat_alloc(kf_mat *m, kf_storage kind, int n, int kl, int ku, kf_error *err);
/* A zeroed CSR matrix on the pattern pat (borrowed). */
int kf_mat_alloc_csr(kf_mat *m, const kf_pattern *pat, kf_error *err);
void kf_pattern_free(kf_pattern *p);
/* Allocate dst with the storage and shape of src (zeroed; a CSR dst borrows
 * src's pattern). */
int kf_mat_alloc_like(kf_mat *dst, const kf_mat *src, kf_error *err);
void kf_mat_free(kf_mat *m);
void kf_mat_zero(kf_mat *m);
/* Nonzero if x and y have the same storage and shape. */
int kf_mat_conform(const kf_mat *x, const kf_mat *y);
/* Nonzero if every entry of m (of the n values x) is finite. */
int kf_mat_finite(const kf_mat *m);
int kf_vec_finite(size_t n, const double *x);
double kf_mat_get(const kf_mat *m, int i, int j);
/* Add v to A(i,j); the entry must lie inside the band or the sparse pattern
 * (returns KF_EINVAL if not). */
int kf_mat_add(kf_mat *m, int i, int j, double v);
void kf_mat_copy(kf_mat *dst, const kf_mat *src);            /* conforming */
void kf_mat_axpy(kf_mat *y, double alpha, const kf_mat *x);  /* y += alpha x, conforming */
void kf_mat_scale(kf_mat *y, double alpha);
/* y = alpha A x + beta y */
void kf_mat_gemv(const kf_mat *A, double alpha, const double *x, double beta, double *y);
/* out = A as a dense row-major (C order) n x n array. */
void kf_mat_to_rowmajor(const kf_mat *A, double *out);
/* out = A as a dense column-major n x n array. */
void kf_mat_to_colmajor(const kf_mat *A, double *out);
/* dst(i,j) = src(map[i], map[j]) for i, j < dst->n; dst is allocated here with
 * the storage of src (deleting rows and columns keeps a band a band); not for
 * CSR (KF_EINVAL). */
int kf_mat_extract(kf_mat *dst, const kf_mat *src, int n, const int *map, kf_error *err);
/* LU factorization in place (dgetrf / dgbtrf), ipiv of length n; KF_EINVAL
 * for CSR (sparse matrices are factored outside the core, section 3.12). */
int kf_mat_lu(kf_mat *A, int *ipiv, kf_error *err);
/* Solve A X = B with the LU factors; B is n x nrhs column-major, ldb >= n. */
int kf_mat_lu_solve(const kf_mat *LU, const int *ipiv, int nrhs, double *b, int ldb,
                    kf_error *err);

/* ---------------------------------------------------------------- elements */

/* Element kinds: the index of the kind's entry in kf_element.c's table
 * (numbers never change; the binding exports them by name). */
enum kf_element_kind {
    KF_BAR2 = 0,   /* axial bar, 2 nodes x (u); planar frame */
    KF_BEAM2 = 1,  /* planar Euler-Bernoulli beam, 2 nodes x (u, v, theta) */
    KF_BAR3D = 2,  /* spatial bar (truss), 2 nodes x (u, v, w) */
    KF_BEAM3D = 3, /* spatial Euler-Bernoulli beam, 2 nodes x (u, v, w, theta_x, theta_y,
                    * theta_z): axial, two bendings, torsion (docs/theory.md section 2.8) */
    /* plane and solid elements (meshes, docs/theory.md section 2.7); node order
     * as VTK / meshio; plane: 2 DOFs (ux, uy) per node, solid: 3 (ux, uy, uz) */
    KF_TRI3 = 4,   /* linear triangle */
    KF_TRI6 = 5,   /* quadratic triangle */
    KF_QUAD4 = 6,  /* bilinear quadrilateral */
    KF_QUAD8 = 7,  /* serendipity quadrilateral */
    KF_QUAD9 = 8,  /* biquadratic (Lagrange) quadrilateral */
    KF_TET4 = 9,   /* linear tetrahedron */
    KF_TET10 = 10, /* quadratic tetrahedron */
    KF_HEX8 = 11,  /* trilinear hexahedron */
    KF_HEX20 = 12, /* serendipity hexahedron */
    KF_HEX27 = 13, /* triquadratic (Lagrange) hexahedron */
    KF_WEDGE6 = 14,    /* linear wedge (triangular prism) */
    KF_WEDGE15 = 15,   /* serendipity wedge */
    KF_PYRAMID5 = 16,  /* linear pyramid (rational basis, polynomial in collapsed coordinates) */
    KF_PYRAMID13 = 17, /* quadratic pyramid (rational basis, likewise) */
    /* locking-free linear elements: the nodes and N of quad4 / hex8, the stiffness with
     * Wilson's incompatible modes in Taylor's form, condensed per element (section 2.7) */
    KF_QUAD4I = 18,
    KF_HEX8I = 19,
    KF_CONTINUUM_LAST = KF_HEX8I /* the last plane or solid kind */
};

/* Section and material data shared by the elements of a body.  Fields an
 * element type does not use are ignored. */
typedef struct kf_section {
    double E;      /* Young's modulus [Pa] */
    double rho;    /* density [kg/m^3] */
    double A;      /* cross-section area [m^2] (line elements) */
    double Izz;    /* second moment of area for bending in the x-y plane [m^4] */
    double nu;     /* Poisson's ratio, in (-1, 1/2): the spatial beam's shear modulus
                    * G = E / (2 (1 + nu)); plane and solid elements */
    /* the spatial beam (KF_BEAM3D); Izz is then int y^2 dA about the section's local z */
    double Iyy;    /* second moment int z^2 dA, bending in the element's x-z plane [m^4] */
    double J;      /* torsion constant [m^4] (torsional stiffness G J) */
    double ref[3]; /* orientation vector in the body frame: with the element axis e1,
                    * e3 = e1 x ref / |e1 x ref|, e2 = e3 x e1 (the section's local y) */
    /* plane elements (meshes) */
    double thickness;    /* thickness [m] */
    double plane_strain; /* 0 = plane stress, 1 = plane strain */
} kf_section;

/* Gauss-Legendre points and weights on [0, 1], n in 1..KF_GAUSS_MAX. */
#define KF_GAUSS_MAX 16
int kf_gauss01(int n, double *x, double *w, kf_error *err);

/* Properties of an element kind: frame dimension (rows of N), nodes per
 * element, DOFs per node. */
int kf_element_info(int kind, int *dim, int *nnode, int *ndofn, kf_error *err);

/* ---------------------------------------------------------------- bodies */

typedef struct kf_body kf_body;

/*
 * A flexible body: nodes (nnode x dim, row-major, in the body frame),
 * elements (nel x nodes-per-element, 0-based node indices) of one kind, one
 * section.  DOFs are node-major: dof = node * ndofn + k.  The invariants
 * S_ij, s_ij, Mo_i and K are computed here, once.  Storage is banded when the
 * connectivity gives a narrow band, dense otherwise.
 */
int kf_body_create(kf_body **out, int kind, int nnode, const double *coords, int nel,
                   const int *conn, const kf_section *sec, kf_error *err);
/* The same with a chosen storage: KF_DENSE, KF_BAND, KF_CSR, or -1 for the
 * automatic choice (kf_body_create's: CSR for plane and solid elements, band
 * or dense for line elements).  CSR bodies build their pattern from the
 * connectivity and assemble element by element (docs/theory.md section 3.11);
 * kf_eig works on them (dense reduction, small bodies), kf_body_reduce and the
 * integrators do not (meshes are integrated by the Python sparse Newmark). */
int kf_body_create_storage(kf_body **out, int kind, int nnode, const double *coords, int nel,
                           const int *conn, const kf_section *sec, int storage, kf_error *err);
/* A mesh of several plane (or several solid) kinds: element e has kind kinds[e] and
 * its nodes at conn[ptr[e] .. ptr[e + 1] - 1] (ptr[0] = 0, nel + 1 offsets); every
 * kind must be a plane or solid kind of one dimension (KF_TRI3..KF_CONTINUUM_LAST).
 * Storage as kf_body_create_storage; kf_body_kind gives the first element's kind. */
int kf_body_create_mixed(kf_body **out, int nnode, const double *coords, int nel,
                         const int *kinds, const int *ptr, const int *conn,
                         const kf_section *sec, int storage, kf_error *err);
/* The shared sparse pattern of a CSR body, or NULL. */
const kf_pattern *kf_body_pattern(const kf_body *b);
void kf_body_free(kf_body *b);

int kf_body_ndof(const kf_body *b);
int kf_body_dim(const kf_body *b);
int kf_body_kind(const kf_body *b);
int kf_body_ndofn(const kf_body *b);
/* The body's matrices (not to be modified): M = sum_i S_ii and K. */
const kf_mat *kf_body_mass(const kf_body *b);
const kf_mat *kf_body_stiffness(const kf_body *b);
/* Invariant blocks S_ij (i, j < dim) and vectors s_ij, Mo_i (length ndof). */
const kf_mat *kf_body_S(const kf_body *b, int i, int j);
const double *kf_body_s(const kf_body *b, int i, int j);
const double *kf_body_Mo(const kf_body *b, int i);

/*
 * The rigid motion of a body frame at one instant: the one frame type of the
 * core, taken by the motion terms, the eigen solvers, the integrators and the
 * mechanisms.  Every vector is in body (local) axes:
 *   omega  angular velocity [rad/s]         eps   angular acceleration [rad/s^2]
 *   v      velocity of the origin [m/s]     a     acceleration of the origin
 *                                                 minus gravity, a_L - g_L [m/s^2]
 *   vdot   time derivative of v's body-axes components (a_L - W v_L for a true
 *          origin velocity); v and vdot enter only Hamilton's momentum.
 * A planar body (dim 2, in its frame's x-y plane) takes only rotations about
 * z: omega = (0, 0, wz), eps = (0, 0, ez) (kf_frame_check).  The Python
 * binding exports the same layout as a NumPy structured dtype.
 */
typedef struct kf_frame {
    double omega[3];
    double eps[3];
    double v[3];
    double a[3];
    double vdot[3];
} kf_frame;

/* KF_EINVAL unless every entry is finite and, for dim 2, the rotation is
 * about z only; KF_ERANGE if omega, eps or a are so large that the motion
 * terms overflow (|omega|^2 not finite).  The message names the field. */
int kf_frame_check(int dim, const kf_frame *f, kf_error *err);

/* W = skew(omega), E = skew(eps) and WW = W W as dim x dim row-major arrays. */
void kf_frame_operators(int dim, const kf_frame *f, double *W, double *E, double *WW);

/*
 * out = beta out + sum_ij c[i dim + j] S_ij  (conforming with the body's
 * matrices; c is dim x dim row-major).  With c = W this is half of C; with
 * c = E, K_eps; with c = WW, K_om.
 */
void kf_body_combine(const kf_body *b, const double *c, double beta, kf_mat *out);
/* out = beta out + sum_ij c[i dim + j] s_ij (length ndof). */
void kf_body_combine_vec(const kf_body *b, const double *c, double beta, double *out);

/*
 * The motion terms at one instant (any output may be NULL):
 *   C = 2 sum W_ij S_ij, K_eps = sum E_ij S_ij, K_om = sum (WW)_ij S_ij,
 *   q_eps = sum E_ij s_ij, q_om = sum (WW)_ij s_ij, q_a = sum_i a_i Mo_i.
 * Matrix outputs must conform with kf_body_mass(b).
 */
int kf_body_motion_terms(const kf_body *b, const kf_frame *frame, kf_mat *C, kf_mat *Keps,
                         kf_mat *Kom, double *q_eps, double *q_om, double *q_a, kf_error *err);

/* ---------------------------------------------------------------- geometric stiffness */

/*
 * Geometric (stress) stiffness of a straight line body on its frame's x axis
 * (docs/theory.md section 2): K_G = int N(x) G^T G ds, G the slope of the lateral
 * displacement, with the axial force N(x) = c[0] + c[1] x + c[2] x^2 (tension
 * positive, x the body-frame coordinate).  The three basis matrices int x^k G^T G
 * are integrated when the body is created, so this is a combination:
 * out = beta out + K_G (out conforms with kf_body_mass(b)).  Bodies without
 * lateral DOFs (bars) have K_G = 0.  KF_EINVAL if the body is not a straight
 * line on the x axis with its nodes in ascending x.
 */
int kf_body_geometric(const kf_body *b, const double c[3], double beta, kf_mat *out,
                      kf_error *err);

/*
 * The axial force N(x) = c0 + c1 x + c2 x^2 of the quasi-static axial
 * equilibrium of such a body under the inertial (d'Alembert) load of the
 * frame's motion, -rho A (a_x + (WW)_xx x) per unit length (pass a - g to
 * include gravity), applied axial end forces f_first, f_last (+x positive,
 * at the first and last node) and the axial supports: fixed_first /
 * fixed_last = 1 if u is fixed there.  One end fixed: N is set by the other,
 * free end; both fixed: by compatibility (no net elongation, uniform EA),
 * the end forces going into the reactions; both free: by the first end.
 */
int kf_body_axial_force(const kf_body *b, const kf_frame *frame, double f_first, double f_last,
                        int fixed_first, int fixed_last, double c[3], kf_error *err);

/* ---------------------------------------------------------------- eigenvalues */

/*
 * Frozen-time eigenvalues lambda of (K + K_om(t) [+ K_eps(t)]) phi = lambda M phi
 * for a body with some DOFs fixed (supports).  A kf_eig holds what does not
 * change with time: the reduced matrices, the Cholesky factor L of M, the
 * standard-form matrices L^-1 K L^-T (and of the other invariant blocks) and
 * the eigen-decomposition of the constant part.  Create it once per body and
 * support set; kf_eig_solve is then cheap per instant and does not modify it.
 */
typedef struct kf_eig kf_eig;

/* flags: KF_EIG_GEOMETRIC also prepares the geometric stiffness basis (costs
 * three more n x n matrices), needed to pass kg to kf_eig_solve. */
enum { KF_EIG_GEOMETRIC = 1 };
int kf_eig_create(kf_eig **out, const kf_body *b, const unsigned char *fixed, int flags,
                  kf_error *err);
void kf_eig_free(kf_eig *e);
/* Number of free DOFs. */
int kf_eig_nfree(const kf_eig *e);

enum kf_eig_order { KF_ORDER_ASCENDING = 0, KF_ORDER_TRACKED = 1 };
enum kf_eig_solver { KF_SOLVER_SYMMETRIC = 0, KF_SOLVER_GENERAL = 1 };

typedef struct kf_eig_opts {
    int n_modes;      /* 1..nfree */
    int include_eps;  /* add K_eps (non-symmetric) */
    int vectors;      /* compute mode shapes */
    int order;        /* KF_ORDER_ASCENDING, or KF_ORDER_TRACKED (follow modes by shape) */
    kf_progress_fn *progress; /* called after each instant with its index (may be NULL) */
    void *progress_params;
} kf_eig_opts;

typedef struct kf_eig_stats {
    int solver;         /* KF_SOLVER_SYMMETRIC or KF_SOLVER_GENERAL */
    int full_solves;    /* instants solved by a full (dense) eigen decomposition */
    int continued;      /* instants solved by continuation from the previous one */
    int iterations;     /* subspace iterations spent in continuation */
    int reused;         /* instants equal to the one before (the same omega, eps where
                         * included, and axial force: a constant spin), whose solution
                         * was reused */
} kf_eig_stats;

/*
 * Solve at nt instants (frame[0..nt-1]), with K_G from the axial-force
 * coefficients kg[3 t .. 3 t + 2] (see kf_body_geometric) added when kg is not
 * NULL (the context must have been made with KF_EIG_GEOMETRIC); results:
 *   lam_re, lam_im: nt x n_modes (row-major), ascending by real part (or
 *                   tracked); lam_im is zero unless K_eps makes a pair complex;
 *   modes:          nt x ndof x n_modes (row-major), all DOFs, zero at the
 *                   supports, mass-normalized (phi^T M phi = 1), or NULL.
 * Instants are solved in order, each continuing from the previous one where
 * that is certified (see kf_eig.c), with a full solve otherwise.
 */
int kf_eig_solve(const kf_eig *e, int nt, const kf_frame *frame, const double *kg,
                 const kf_eig_opts *opt, double *lam_re, double *lam_im, double *modes, kf_eig_stats *stats,
                 kf_error *err);

/* ---------------------------------------------------------------- formalisms
 *
 * Independent numeric routes to the same equations (docs/theory.md section 6): Kane's
 * generalized inertia forces by quadrature of the acceleration at a state,
 * and Maggi's projection onto the null space of linear constraints G d = 0.
 */

/*
 * Kane's generalized inertia forces at one state, by direct quadrature over
 * each element with its own rule (kf_element_get(kind)->eval):
 *
 *   F*_r = - int rho (R N_r)^T a dV,
 *   R^T a = a_O + (E + W W)(x + N d) + 2 W N d' + N d''   (body frame),
 *
 * for the state d, dd = d', ddd = d'' (length ndof each) and the rigid motion
 * frame (a_O = frame->a; subtract gravity to include it).  No invariant is used:
 * this is the check of the invariant route, F* = -(M d'' + C d' + (K_eps +
 * K_om) d + q_a + q_eps + q_om).  Gibbs-Appell's dS/dd'' (S = 1/2 int rho
 * a.a dV) has the same integrand: dS/dd'' = -F*.  fstar has length ndof.
 */
int kf_body_inertia_forces_direct(const kf_body *b, const double *d, const double *dd,
                                  const double *ddd, const kf_frame *frame, double *fstar,
                                  kf_error *err);

/*
 * An orthonormal basis of the null space of G (m x n, row-major): the
 * independent motions left by the linear constraints G d = 0.  QR with column
 * pivoting of G^T (dgeqp3), G^T P = Q R; the rank r counts |R_kk| > rtol
 * |R_11| (rtol <= 0: max(m, n) DBL_EPSILON), and the last n - r columns of Q
 * (dorgqr) span the null space.  B (n x n, column-major) receives Q's columns
 * r..n-1 in its first *nfree = n - r columns.  m = 0 (no constraint) gives
 * B = I.
 */
int kf_null_basis(int m, int n, const double *G, double rtol, int *nfree, double *B,
                  kf_error *err);

/*
 * A frozen-time eigen context for a body whose DOFs are d = B z (Maggi's
 * projection: the matrices become B^T X B), B of ndof x nfree, column-major,
 * full column rank (e.g. from kf_null_basis); flags as for kf_eig_create.
 * kf_eig_solve then works as for supports; mode shapes are returned over all
 * DOFs, phi = B z.
 */
int kf_eig_create_projected(kf_eig **out, const kf_body *b, int nfree, const double *B,
                            int flags, kf_error *err);
/* ================================================================ adaptive ODE driver
 *
 * The core's one Dormand-Prince 5(4) integrator for first-order systems
 * y' = f(t, y), y of length n (implementation: csrc/kf_ode.c).  The time
 * integrators of linear elastic systems (kf_integ, RK methods) and the rigid
 * motion of mechanisms (kf_mech_simulate) are built on it.
 *
 * Step control is SciPy's RK45 (scipy.integrate.solve_ivp): the RMS norm of
 * the embedded error over atol + rtol max(|y_n|, |y_n+1|), safety 0.9, step
 * factors 0.2..10 (at most 1 right after a rejection), Hairer's first step;
 * so a problem takes the same steps here as there.  Outputs at requested
 * times come from Hairer's continuous extension of order 4 (DOPRI5's), or,
 * with land_on_outputs, every output time is made a step end.
 *
 * Callbacks follow the core's convention (after SUNDIALS): f returns 0 on
 * success, > 0 for a recoverable failure (e.g. a trial stage outside the
 * problem's domain: the step is retried at a quarter of its size), < 0 to
 * stop; it may describe a failure in err (err->code set), which the driver
 * passes on.  out and step return 0 to go on, nonzero to stop (err->code, or
 * KF_ECALLBACK).  Every error message names the time.
 */
typedef int kf_ode_fn(double t, const double *y, double *dy, void *params, kf_error *err);
/* the solution y(t) at output k (t = tout[k]) */
typedef int kf_ode_out_fn(int k, double t, const double *y, void *params, kf_error *err);
/* after every accepted step, with the new time and state (divergence checks, progress) */
typedef int kf_ode_step_fn(double t, const double *y, void *params, kf_error *err);

typedef struct kf_ode_system {
    int n;                /* size of the state, >= 1 */
    kf_ode_fn *f;         /* required */
    kf_ode_out_fn *out;   /* required */
    kf_ode_step_fn *step; /* may be NULL */
    void *params;         /* handed to f, out and step */
    /* nonzero: clip steps so that every output time is a step end (the output
     * is then the step's own fifth-order solution, and the last call of f
     * before out was at (t, y): FSAL); 0: step as the tolerances allow and
     * interpolate */
    int land_on_outputs;
} kf_ode_system;

typedef struct kf_ode_opts {
    double rtol, atol; /* error per step <= atol + rtol |y| (RMS over the state); both > 0 */
    long max_steps;    /* accepted + rejected steps (0: 10^8) */
    double first_step; /* 0: automatic (Hairer's estimate, as SciPy's) */
    double max_step;   /* 0: unlimited */
    kf_progress_fn *progress; /* after every accepted step, with its time (may be NULL) */
    void *progress_params;
} kf_ode_opts;

/* A driver for one system and its options, with every workspace allocated
 * here; kf_ode_run allocates nothing.  The system is copied. */
typedef struct kf_ode kf_ode;
int kf_ode_create(kf_ode **out, const kf_ode_system *sys, const kf_ode_opts *opts,
                  kf_error *err);
void kf_ode_free(kf_ode *w);

/*
 * Integrate from y(t0) = y0 to tout[nout - 1], calling out for each of the
 * nout non-decreasing times tout >= t0 (those equal to t0 before the first
 * step).  KF_ESTEPS when max_steps is reached or the step falls below ten
 * ulps of t; KF_EDIVERGE if that happens because the error estimate stays
 * non-finite; the code of f's own error if it happens because f keeps
 * failing recoverably (also after 12 failures in a row).
 */
int kf_ode_run(kf_ode *w, double t0, const double *y0, int nout, const double *tout,
               kf_stats *stats, kf_error *err);

/* ================================================================ planar mechanisms (issue 11)
 *
 * Rigid bodies in the plane joined by revolute, prismatic and welded joints,
 * with springs, dampers, regularized Coulomb friction, gravity and drives,
 * some bodies the floating frames of elastic links (docs/theory.md section 5).
 * Implementation: csrc/kf_mechanism.c (description, loop closure, rates,
 * Kane's projection, joint forces, rigid motion in time), csrc/kf_windpump.c
 * (the wind pump as one mechanism), csrc/kf_flexmech.c (elastic links coupled
 * both ways).
 *
 * Coordinates.  Body b has q_b = (x, y, theta): the global position of its
 * reference point, which is its mass centre, and its angle.  The n = 3 nbody
 * coordinates q obey the joints' m constraint equations Phi(q) = 0.  The nz =
 * n - m independent coordinates z are chosen among the bodies' coordinates and
 * the joints' own (a revolute joint's relative angle, a prismatic joint's
 * sliding distance); with z = f(q) the augmented system [Phi(q); f(q) - z] = 0
 * is square, its Jacobian J = [Phi_q; f_q] is solved by Newton's method for q,
 * and
 *
 *     J q' = [0; z'],   J q'' = [gamma; z'' + gamma_f]
 *     q' = A z',        q'' = A z'' + c,       A = J^-1 [0; I],  c = J^-1 [gamma; gamma_f].
 *
 * With the diagonal mass M = diag(m, m, J) per body and the applied forces Q
 * along q, Kane's equations are the projection (Maggi's, on the null space of
 * Phi_q spanned by A's columns)
 *
 *     A^T M A z'' = A^T (Q - M c) + tau,
 *
 * tau the generalized forces applied along z (motor torques); the joint forces
 * are the multipliers of J^T [lambda; mu] = Q - M q'' (mu: what each
 * coordinate's drive must supply, -mu).
 */

/* Kane's projection for any mechanism described by its mass coordinates r (nr
 * of them, diagonal masses mass[r]) through r' = A u, r'' = A u' + c:
 *
 *     A^T Mrig A u' = A^T (Q - Mrig c) + tau          (seed 000, A44-A46).
 *
 * A (nr x nu, row-major), c and Q (nr), tau (nu, or NULL = 0).  prescribed
 * (nu flags, or NULL = none): where prescribed[i] != 0, u'[i] is given on
 * entry and drive[i] returns the generalized force along u_i that must be
 * added to realize it (a motor torque); elsewhere drive[i] = 0 (drive may be
 * NULL).  work: kf_kane_work_size(nr, nu) doubles.  KF_ESING if the generalized
 * mass of the free coordinates is singular. */
#define KF_KANE_MAX_NU 16
size_t kf_kane_work_size(int nr, int nu);
int kf_kane_solve(int nr, int nu, const double *mass, const double *A, const double *c,
                  const double *Q, const double *tau, const unsigned char *prescribed,
                  double *udot, double *drive, double *work, kf_error *err);

enum kf_joint_kind {
    KF_REVOLUTE = 0,  /* a common point; 2 equations */
    KF_PRISMATIC = 1, /* p1 on the line through p0 along axis, relative angle fixed; 2 */
    KF_WELD = 2       /* a common point and the relative angle fixed; 3 */
};

/* A joint between body[0] and body[1] (-1: the ground).  The force a joint
 * reports is the one body[0] exerts on body[1] at p1. */
typedef struct kf_joint {
    int kind;
    int body[2];
    double p0[2], p1[2]; /* the joint's point on each body, in the body's axes from its
                          * reference point (ground: global) [m] */
    double axis[2];      /* prismatic: sliding direction in body[0]'s axes (normalized) */
    double angle;        /* prismatic, weld: the fixed theta1 - theta0 [rad] */
    /* a force law along the joint's coordinate s (revolute: theta1 - theta0 [rad],
     * prismatic: the distance of p1 from p0 along the axis [m]; not for welds),
     * acting on body[1] and reacting on body[0]:
     *   F = -k (s - s0) - c s' - F_r tanh(s' / v_F)      [N or N m]
     * (a spring, a viscous damper and Coulomb friction regularized over v_F > 0) */
    double k, s0, c, F_r, v_F;
} kf_joint;

/* A spring-damper between point p0 of body[0] and p1 of body[1]: tension
 * F = k (L - L0) + c L' along the line joining them. */
typedef struct kf_spring {
    int body[2];
    double p0[2], p1[2];
    double k, L0, c;
} kf_spring;

enum kf_coord_kind { KF_COORD_X = 0, KF_COORD_Y = 1, KF_COORD_ANGLE = 2, KF_COORD_JOINT = 3 };

/* An independent coordinate: x, y or angle of body `index`, or the coordinate
 * of joint `index` (revolute or prismatic).  The name is used in messages. */
typedef struct kf_coord {
    int kind, index;
    char name[24];
} kf_coord;

/* An optional assembly rule: fill q (n) with the position at z, or close to it
 * (Newton starts there and keeps its branch); KF_EGEOM, naming z, where there
 * is none. */
typedef int kf_mech_guess_fn(const double *z, double *q, void *params, kf_error *err);

/* An optional closed-form rate rule, with an exact guess rule (one that places
 * q exactly and refuses dead points itself): at the position q the guess rule
 * gave for z, fill A (n x nz, row-major: q' = A z') and c (n: q'' = A z'' + c)
 * for the rates zd (nz).  With it, positions and rates take no Newton and no
 * Jacobian: the closed-form evaluation of a mechanism with a known loop
 * closure (the wind pump's). */
typedef void kf_mech_rates_fn(const double *z, const double *zd, const double *q, double *A,
                              double *c, void *params);

typedef struct kf_mech_desc {
    int nbody;
    const double *mass;    /* nbody masses [kg], >= 0 */
    const double *inertia; /* nbody moments of inertia about the reference point [kg m^2], >= 0 */
    const double *q0;      /* 3 nbody: the drawing, an assembled (or nearly) position of every
                            * body; without a guess rule, positions are continued from it */
    int njoint;
    const kf_joint *joints;
    int nspring;
    const kf_spring *springs;
    int ncoord;
    const kf_coord *coords;
    double gravity[2];                /* global [m/s^2] */
    kf_mech_guess_fn *guess;          /* optional */
    kf_mech_rates_fn *rates;          /* optional, with guess (guess_params are its too) */
    void *guess_params;
    void (*guess_free)(void *params); /* if set, called on guess_params by kf_mech_free */
} kf_mech_desc;

typedef struct kf_mech kf_mech;

/* Validate and copy the description (KF_EINVAL naming the bad field, e.g.
 * "joints[2].body"; KF_EGEOM if the drawing does not assemble, without a
 * guess rule).  On failure guess_free is called too. */
int kf_mech_create(kf_mech **out, const kf_mech_desc *desc, kf_error *err);
void kf_mech_free(kf_mech *m);
int kf_mech_nbody(const kf_mech *m);
int kf_mech_njoint(const kf_mech *m);
int kf_mech_ncoord(const kf_mech *m);
/* The description (the copy's arrays, valid while m lives; guess not included). */
void kf_mech_describe(const kf_mech *m, kf_mech_desc *desc);

/* The kinematic state of a mechanism at one instant, with its workspace
 * (kf_mech_kin_alloc / _free; per thread).  q keeps the last solution, from
 * which the next one is continued. */
typedef struct kf_mech_kin {
    int n, nz;
    double *z;                   /* nz: the independent coordinates of q */
    double *q, *qd, *qdd;        /* n */
    double *A;                   /* n x nz, row-major: q' = A z' */
    double *c;                   /* n: q'' = A z'' + c */
    int assembled;               /* q holds a solution */
    /* private */
    double *J, *res, *dq, *qok, *zok, *aux, *cs;
    int *ipiv, *ipivt;
} kf_mech_kin;

int kf_mech_kin_alloc(const kf_mech *m, kf_mech_kin *k, kf_error *err);
void kf_mech_kin_free(kf_mech_kin *k);

/*
 * Positions, velocities and accelerations for z, z' (NULL: 0), z'' (NULL: 0).
 * Positions by Newton's method on [Phi; f - z] = 0, from the guess rule or
 * continued from the last solution (the drawing at first), in smaller steps
 * of z where a full one fails or leaves the branch.  KF_EGEOM, naming the
 * coordinates and their values, where the loop cannot close or at a dead
 * point (J singular: |pivot| < KF_MECH_DEAD of the largest, J scaled to unit
 * lengths).
 */
#define KF_MECH_DEAD 1e-10
int kf_mech_kinematics(const kf_mech *m, const double *z, const double *zd, const double *zdd,
                       kf_mech_kin *k, kf_error *err);

/* Applied forces Q (n) at the state k holds: gravity, the joints' force laws
 * and the springs.  KF_EGEOM if a spring has zero length. */
int kf_mech_applied(const kf_mech *m, const kf_mech_kin *k, double *Q, kf_error *err);
/* The body masses along q: mass (n) = (m, m, J) per body. */
void kf_mech_mass(const kf_mech *m, double *mass);
/* Kane's equations at the state k holds (positions, velocities): z'' of the
 * coordinates not prescribed (prescribed: their z'' given on entry, and drive
 * the force each needs), under the applied forces and tau (nz generalized
 * forces along z, or NULL).  drive may be NULL. */
int kf_mech_dynamics(const kf_mech *m, kf_mech_kin *k, const double *tau,
                     const unsigned char *prescribed, double *zdd, double *drive, kf_error *err);

/*
 * Joint forces from r = Q - M q'' (the forces the constraints must supply,
 * n): the multipliers of J^T [lambda; mu] = r, at the position k holds.  fj
 * (3 njoint): per joint (F_x, F_y, M), the force and moment body[0] exerts on
 * body[1] at p1 (global axes); drive (nz): the generalized force each
 * coordinate needs beyond Q, -mu (a motor torque; zero for a free coordinate
 * of a motion of this model).  Either output may be NULL.
 */
int kf_mech_joint_forces(const kf_mech *m, kf_mech_kin *k, const double *r, double *fj,
                         double *drive, kf_error *err);

/* The joint forces of the rigid mechanism at the state k holds (positions,
 * velocities and accelerations): kf_mech_joint_forces of r = Q - M q''. */
int kf_mech_reactions(const kf_mech *m, kf_mech_kin *k, double *fj, double *drive,
                      kf_error *err);

/* The frame of an axis fixed on body b (-1: ground) at origin o (body axes)
 * and angle phi from the body's x axis, at the state k holds, gravity
 * included (a = R^T (a_O - g)); planar (omega, eps about z). */
void kf_mech_frame(const kf_mech *m, const kf_mech_kin *k, int b, const double o[2], double phi,
                   kf_frame *f);

/* Drives of the independent coordinates. */
enum kf_drive_mode {
    KF_DRIVE_FREE = 0,  /* integrated; an optional law applies a generalized force */
    KF_DRIVE_SPEED = 1, /* z = z(t0) + speed (t - t0) */
    KF_DRIVE_PATH = 2   /* z, z', z'' from path(t) */
};
/* A force law (a motor torque along z_k) from the coordinates and their rates. */
typedef int kf_mech_law_fn(double t, int k, const double *z, const double *zd, double *force,
                           void *params, kf_error *err);
/* A prescribed path: zk = (z_k, z_k', z_k'') at t. */
typedef int kf_mech_path_fn(double t, int k, double *zk, void *params, kf_error *err);
typedef struct kf_mech_drive {
    int mode;
    double speed;          /* KF_DRIVE_SPEED [rad/s or m/s] */
    kf_mech_path_fn *path; /* KF_DRIVE_PATH */
    kf_mech_law_fn *law;   /* KF_DRIVE_FREE: or NULL */
    void *params;          /* handed to path or law */
} kf_mech_drive;

/*
 * The rigid motion from z(t[0]) = z0, z'(t[0]) = zd0 to the increasing times
 * t[0..nt-1] by kf_ode (Dormand-Prince 5(4) on (z, z'), landing on every
 * t[i]; prescribed coordinates follow their drives exactly); opts as for
 * kf_ode_create, except max_steps 0 = 10^7 and rtol in [1e-14, 0.1], atol in
 * (0, 1].  states: nt x 4 nz, row-major, per instant (z, z', z'', F): F the
 * generalized force along each coordinate, the law's for a free one (0
 * without), the one a prescribed coordinate needs.  A trial stage that
 * leaves the assembly region shrinks the step; if the motion itself leaves
 * it, KF_EGEOM says when and where.
 */
int kf_mech_simulate(const kf_mech *m, const kf_mech_drive *drives, const double *z0,
                     const double *zd0, int nt, const double *t, const kf_ode_opts *opts,
                     double *states, kf_stats *stats, kf_error *err);

/*
 * Elastic links coupled both ways (docs/theory.md section 5.12).  A link is a
 * body of the mechanism whose axes are its elements' frame and whose
 * reference point (and mass and inertia) are its elements' mass centre (and
 * mass and inertia about it, checked); its elastic DOFs are those its
 * reference conditions leave free, and joints attach to it only at nodes
 * those conditions hold (checked).  The rigid and elastic coordinates form
 * one system, Kane's projection of the floating-frame equations on the
 * constraints' null space, M(p) p'' = f(t, p, p'), p = (free z, d).
 */
typedef struct kf_mech_link {
    int body;                   /* the mechanism's body that carries the elements */
    const kf_body *fe;          /* planar elements (dimension 2) */
    const unsigned char *fixed; /* reference conditions: ndof flags */
    double rayleigh[2];         /* damping alpha M + beta K of the elastic DOFs */
    int geometric;              /* add K_G of the link's axial force (joint forces at its
                                 * ends and axial inertia, docs/theory.md section 5.11) */
} kf_mech_link;

typedef struct kf_flexmech kf_flexmech;

/* The coupled system of m (which must outlive it) and its links, with every
 * workspace; KF_EINVAL naming the link for inconsistent links. */
int kf_flexmech_create(kf_flexmech **out, const kf_mech *m, int nlink, const kf_mech_link *links,
                       kf_error *err);
void kf_flexmech_free(kf_flexmech *w);
/* The number of elastic DOFs (every link's free DOFs, in link order). */
int kf_flexmech_nelastic(const kf_flexmech *w);

/*
 * The accelerations at one state: z, z' (nz; prescribed ones as their drives
 * at t give them, z0 and t0 for speed drives), d, d' (elastic); out: z''
 * (nz), d'' (elastic), force (nz: the generalized force along each coordinate
 * beyond the mechanism's own forces, as in kf_mech_simulate's rows), fj (3
 * njoint, or NULL).
 */
int kf_flexmech_dynamics(kf_flexmech *w, const kf_mech_drive *drives, double t, double t0,
                         const double *z0, const double *z, const double *zd, const double *d,
                         const double *dd, double *zdd, double *ddd, double *force, double *fj,
                         kf_error *err);

typedef struct kf_flex_opts {
    double dt;       /* the largest step [s]; steps land on every output time */
    double rho_inf;  /* generalized-alpha: spectral radius at infinite step, [0, 1]
                      * (1: Newmark's average acceleration) */
    double tol;      /* Newton: |correction| <= tol max |acceleration| */
    int max_iter;    /* Newton iterations per step */
    long max_steps;  /* 0: 10^8 */
    kf_progress_fn *progress;
    void *progress_params;
    int refine;      /* steps per output interval: refine x ceil(interval / dt) (0: 1), so
                      * runs at refine r and 2 r halve every step exactly (the step-doubling
                      * error estimate of Mechanism.simulate_flexible) */
} kf_flex_opts;

/*
 * Integrate from z0, zd0 and the elastic x0 = (d, d') (or NULL: at rest,
 * undeformed) at t[0] to the increasing times t[0..nt-1] by generalized-alpha
 * (Newton's method on the accelerations at each step, the effective matrix M
 * + gamma' (alpha M + beta K) + beta' (K + K_G) over the elastic DOFs).
 * states: nt x 4 nz as kf_mech_simulate's; elastic: nt x 2 nelastic (d, d');
 * joints: nt x 3 njoint or NULL.  KF_EGEOM (when and where), KF_ENOCONV
 * (Newton, naming dt), KF_EDIVERGE, KF_ESTEPS.
 */
int kf_flexmech_run(kf_flexmech *w, const kf_mech_drive *drives, const double *z0,
                    const double *zd0, const double *x0, int nt, const double *t,
                    const kf_flex_opts *o, double *states, double *elastic, double *joints,
                    kf_stats *stats, kf_error *err);

/*
 * The wind pump of docs/theory.md section 5 as a mechanism: five bodies (crank,
 * lever, rocker, the weight G welded to it, slider), six joints (A, B, C', D,
 * the weld, the guide), z = (alpha, x_D), the slider's spring, friction and
 * pump load on the guide's joint, and its closed-form assembly as the guess
 * rule (branch +1: C' left of B -> D; KF_EGEOM at |BD| outside (|l2 - h|,
 * l2 + h) and within |sin mu| < KF_WINDPUMP_DEAD of a dead point).  params:
 * KF_WINDPUMP_NPARAM values in the order of kf_windpump_names; KF_EINVAL
 * naming the first bad one.
 */
#define KF_WINDPUMP_NPARAM 24
#define KF_WINDPUMP_DEAD 1e-6
extern const char *const kf_windpump_names[];
int kf_windpump_create(const double *params, kf_mech **out, kf_error *err);

/* ---------------------------------------------------------------- gyroscopic eigenvalues
 * (issue 4; implemented at the end of csrc/kf_eig.c)
 *
 * The complex eigenvalues s of (s^2 M + s C(t) + K_eff(t)) phi = 0 at nt
 * instants, C = 2 sum W_ij S_ij the Coriolis matrix, K_eff = K + K_om [+ K_eps]
 * [+ K_G], by dgeev on the first-order form of size 2n in the standard
 * coordinates of the context (M = I there).  kg: as for kf_eig_solve (NULL
 * for none).  Per instant the n_modes eigenvalues with Im s >= 0 of smallest
 * |s| (a real pair, from a divergent mode, counts twice), ascending by |s|:
 * s_re, s_im are nt x n_modes, row-major.  Without C (omega = 0), s = +-i
 * sqrt(lambda) of kf_eig_solve.
 */
int kf_eig_gyroscopic(const kf_eig *e, int nt, const kf_frame *frame, const double *kg,
                      const kf_eig_opts *opt, double *s_re, double *s_im, kf_error *err);

/* ================================================================ time integration */

/*
 * A linear second-order system with time-dependent coefficients,
 *
 *     M d'' + C(t) d' + K(t) d = f(t),          M constant and nonsingular,
 *
 * and, optionally, its canonical (Hamilton) form in the momentum
 * p = M d' + G(t) d + h(t), G skew-symmetric (gyroscopic):
 *
 *     M d' = p - G d - h,     p' = -G d' - D d' - K_H(t) d + b(t).
 *
 * The two forms are the same equations when C = 2 G + D, K = K_H + G',
 * f = b - h' (D a constant dissipation).  The integrators see a problem only
 * through these callbacks (after SUNDIALS: the problem assembles, the
 * integrator owns the linear algebra), so they know nothing about bodies.
 * Every matrix handed to a callback conforms with M (kf_mat_conform) and is
 * to be overwritten; vectors have length n.  The integrator does not modify
 * the matrices between calls, so a callback may leave those that have not
 * changed since its previous call on the same matrices as they are.  Callbacks return 0 on success,
 * > 0 for a recoverable failure (the adaptive method retries with a smaller
 * step), < 0 to stop; they may describe the failure in err (err->code set),
 * which the integrator then passes on.
 */
typedef int kf_lin2_second_fn(double t, kf_mat *C, kf_mat *K, double *f, void *params,
                              kf_error *err);
typedef int kf_lin2_canonical_fn(double t, kf_mat *G, kf_mat *K_H, double *h, double *b,
                                 void *params, kf_error *err);

typedef struct kf_lin2 {
    int n;                          /* number of unknowns */
    const kf_mat *M;                /* constant mass matrix; storage template */
    const kf_mat *D;                /* constant dissipation of the canonical form, or NULL */
    kf_lin2_second_fn *second;      /* required */
    kf_lin2_canonical_fn *canonical; /* NULL: the Hamilton form is not available */
    void *params;
} kf_lin2;

enum kf_method {
    KF_NEWMARK = 0,        /* average acceleration (trapezoidal), fixed step */
    KF_GENALPHA = 1,       /* generalized-alpha (Chung and Hulbert 1993), fixed step */
    KF_RK45_LAGRANGE = 2,  /* Dormand-Prince 5(4) on the state (d, d') */
    KF_RK45_HAMILTON = 3   /* Dormand-Prince 5(4) on the canonical state (d, p) */
};

typedef struct kf_integ_opts {
    int method;          /* enum kf_method */
    double dt;           /* implicit methods: the step (> 0; rounded down so that whole
                          * steps reach the last output time); RK: first step, 0 = automatic */
    double rho_inf;      /* generalized-alpha: spectral radius at infinite step, in [0, 1] */
    double rtol, atol;   /* RK: error tolerances (> 0) */
    double max_step;     /* RK: largest step, 0 = unlimited */
    long max_steps;      /* steps allowed (accepted + rejected), 0 = 10^8 */
    double limit;        /* stop (KF_EDIVERGE) when max |d_i| exceeds this; 0 = 1e100 */
    kf_progress_fn *progress; /* after every accepted step (may be NULL) */
    void *progress_params;
} kf_integ_opts;

/* An integrator: the method, the options and every workspace, allocated once
 * here for the problem's size and storage; kf_integ_run allocates nothing.
 * The problem (and its M) must outlive the integrator. */
typedef struct kf_integ kf_integ;

int kf_integ_create(kf_integ **out, const kf_lin2 *prob, const kf_integ_opts *opt,
                    kf_error *err);
void kf_integ_free(kf_integ *w);

/*
 * Integrate from t0, d(t0) = d0, d'(t0) = v0, to tout[nout - 1], writing the
 * solution at the nout non-decreasing times tout (t0 <= tout[0]) into rows of
 * length ld: row k of dout, vout (and pout, the momentum of the canonical
 * form, or NULL) receives unknown i at column map[i] (map NULL: column i);
 * other columns are left as they are.  The fixed-step methods interpolate
 * between steps with cubic Hermite polynomials, RK with its own continuous
 * extension.  KF_EDIVERGE, with the time, if the solution becomes
 * non-finite or exceeds the limit; KF_ECALLBACK if a callback stops it.
 */
int kf_integ_run(kf_integ *w, double t0, const double *d0, const double *v0, int nout,
                 const double *tout, int ld, const int *map, double *dout, double *vout,
                 double *pout, kf_stats *stats, kf_error *err);

/* ---------------------------------------------------------------- splines */

/*
 * Not-a-knot cubic spline interpolation of nch channels sampled at n >= 4
 * strictly increasing times t: y is n x nch (row-major); coef receives
 * (n - 1) x nch x 4 polynomial coefficients (interval i, channel c:
 * y = c0 + c1 s + c2 s^2 + c3 s^3 with s = x - t[i]).
 */
int kf_spline_fit(int n, const double *t, int nch, const double *y, double *coef,
                  kf_error *err);
/* Value, first and second derivative of each channel at x (out: nch x 3);
 * KF_EINVAL if x lies outside [t[0], t[n - 1]]. */
int kf_spline_eval(int n, const double *t, int nch, const double *coef, double x,
                   double *out, kf_error *err);

/* ---------------------------------------------------------------- body problems */

/*
 * A motion fills the frame (kf_frame) at time t.  A motion that knows no
 * origin velocity leaves v and vdot zero: Hamilton's momentum is then the
 * one relative to the frame origin (p - Mo v_L), with the same trajectories.
 */
typedef int kf_motion_fn(double t, kf_frame *out, void *params, kf_error *err);
/* Applied nodal forces Q(t) over all DOFs of the body (Q arrives zeroed). */
typedef int kf_loads_fn(double t, double *Q, void *params, kf_error *err);

/* Built-in planar motions (rotation about z); gravity g is in the global frame. */
typedef struct kf_motion_constant {
    double omega, theta0; /* angular velocity [rad/s], angle at t = 0 [rad]; origin at rest */
    double g[2];
} kf_motion_constant;
int kf_motion_constant_eval(double t, kf_frame *out, void *params, kf_error *err);

/* Angle theta and origin position (x, y) (global) from kf_spline_fit
 * coefficients of those three channels. */
typedef struct kf_motion_spline {
    int n;
    const double *t, *coef;
    double g[2];
} kf_motion_spline;
int kf_motion_spline_eval(double t, kf_frame *out, void *params, kf_error *err);

/*
 * Built-in spatial motions (docs/theory.md section 4.6); gravity g is in the
 * global frame, R the frame's orientation (global = R local).
 *
 * A constant spin: omega constant in body axes (it is then constant in global
 * axes too, R0 omega), R(t) = R0 exp(t [omega]x) (Rodrigues), origin at rest.
 */
typedef struct kf_motion_spin {
    double omega[3]; /* angular velocity, body axes [rad/s] */
    double R0[9];    /* orientation at t = 0, row-major */
    double g[3];
} kf_motion_spin;
int kf_motion_spin_eval(double t, kf_frame *out, void *params, kf_error *err);

/*
 * A rotation given by samples: kf_spline_fit coefficients of 7 channels, the
 * quaternion q = (w, x, y, z) (samples of one sign-continuous unit quaternion)
 * and the origin position (x, y, z) (global).  Between samples R is that of
 * q / |q|; omega and eps are the exact derivatives of this interpolant in
 * body axes: omega = 2 vec(q* q') / |q|^2, eps = 2 vec(q* q'') / |q|^2 -
 * 2 (q . q') / |q|^2 omega.
 */
typedef struct kf_motion_rotation {
    int n;
    const double *t, *coef;
    double g[3];
} kf_motion_rotation;
#define KF_MOTION_ROTATION_NCH 7
int kf_motion_rotation_eval(double t, kf_frame *out, void *params, kf_error *err);

/* Q(t) = Q0 + sum_k A_k sin(omega_k t + phase_k): Q0 (ndof, or NULL), A (nh x ndof). */
typedef struct kf_loads_harmonic {
    int ndof, nh;
    const double *Q0, *A, *omega, *phase;
} kf_loads_harmonic;
int kf_loads_harmonic_eval(double t, double *Q, void *params, kf_error *err);

/*
 * A body, its supports, a frame motion and loads as a kf_lin2 over the free
 * DOFs (supports eliminated, band kept):
 *   C(t) = 2 sum W_ij S_ij + C_d,    K(t) = K + sum (E + WW)_ij S_ij [+ K_G(t)],
 *   f(t) = Q(t) - Mo (a_L - g_L) - q_eps - q_om,
 * and the canonical form G = sum W_ij S_ij, K_H = K + sum (WW)_ij S_ij [+ K_G],
 *   h = sum W_ij s_ij + Mo v_L,  b = Q - q_om - Mo (a_L - g_L) + Mo vdot,
 * every term a kf_body_combine of the invariants.  C_d = alpha M + beta K
 * (Rayleigh) plus an optional dense matrix over the free DOFs (modal damping;
 * the storage then becomes dense).  With geometric set, K_G(t) is
 * kf_body_geometric of the quasi-static axial force (kf_body_axial_force) of
 * each instant, with the axial end loads read from Q at the first and last
 * node and the axial fixity from the supports.
 */
typedef struct kf_body_ode_opts {
    const unsigned char *fixed;  /* ndof flags, nonzero = fixed (supports); NULL: none */
    kf_motion_fn *motion;        /* required */
    void *motion_params;
    kf_loads_fn *loads;          /* NULL: no applied loads */
    void *loads_params;
    double rayleigh[2];          /* alpha [1/s], beta [s] */
    const double *damping;       /* nfree x nfree column-major, or NULL */
    int geometric;               /* add K_G(t) */
} kf_body_ode_opts;

typedef struct kf_body_ode kf_body_ode;

int kf_body_ode_create(kf_body_ode **out, const kf_body *b, const kf_body_ode_opts *opt,
                       kf_error *err);
void kf_body_ode_free(kf_body_ode *o);
/* The system to integrate (owned by o). */
const kf_lin2 *kf_body_ode_system(const kf_body_ode *o);
/* Number of free DOFs and their body DOF indices (increasing). */
int kf_body_ode_nfree(const kf_body_ode *o);
const int *kf_body_ode_map(const kf_body_ode *o);

#ifdef __cplusplus
}
#endif
#endif /* KANEFEM_H */
