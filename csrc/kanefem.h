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
    KF_HEX27 = 13  /* triquadratic (Lagrange) hexahedron */
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
 * motion of mechanisms (kf_windpump_simulate) are built on it.
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

/* ================================================================ mechanisms (issue 4)
 *
 * Rigid mechanisms by Kane's method (docs/theory.md section 5), and the wind pump.
 * Implementation: csrc/kf_mechanism.c.
 *
 * A mechanism with nu generalized speeds u (q' = u) is described, at one
 * instant, by the nr "mass coordinates" r of its rigid bodies (x, y of each
 * mass centre or point mass, and each body's angle) through
 *
 *     r' = A(q) u,     r'' = A(q) u' + B(q) w(u),
 *
 * w the nw = nu (nu + 1) / 2 products u_i u_j (i <= j, in the order
 * (0,0), (0,1), ..., (0,nu-1), (1,1), ...: for nu = 2, w = (u0^2, u0 u1, u1^2)).
 * With the diagonal rigid mass Mrig = diag(mass) (a mass on a translation row,
 * a moment of inertia about the mass centre on a rotation row) and the applied
 * forces Q along the same rows, Kane's equations are the projection
 *
 *     A^T Mrig A u' = A^T (Q - Mrig B w)          (seed 000, A44-A46).
 *
 * Any mechanism that supplies A, B, mass and Q uses the same projection.
 */

/* Doubles of workspace kf_kane_solve needs. */
size_t kf_kane_work_size(int nr, int nu);

/*
 * Solve Kane's equations for u'.  A (nr x nu) and B (nr x nw) are row-major.
 * prescribed (length nu, or NULL = none): where prescribed[i] != 0, u'[i] is
 * given on entry (a driven coordinate) and drive[i] returns the generalized
 * force along u_i that must be added to A^T Q to realize it (e.g. a motor
 * torque); elsewhere drive[i] = 0.  drive may be NULL.  KF_ESING if the
 * generalized mass A^T Mrig A of the free coordinates is not positive definite.
 */
int kf_kane_solve(int nr, int nu, const double *mass, const double *A, const double *B,
                  const double *w, const double *Q, const unsigned char *prescribed,
                  double *udot, double *drive, double *work, kf_error *err);

/*
 * The wind-pump mechanism (docs/theory.md section 5): crank AB (angle alpha), elastic
 * lever BC', rocker/pendulum pinned at D on the slider, slider D on the guide
 * y = e.  q = (alpha, x_D), u = (omega1, xdot_D).  SI units, angles in rad.
 * Every field is a double (branch = +1 or -1) so the struct can be filled
 * from an array in the order of kf_windpump_names.
 */
typedef struct kf_windpump {
    double l1, a1, m1, J1;            /* crank: length, mass centre at a1 l1, mass, J about it */
    double l2, A2, rho2;              /* lever: rigid m2 = rho2 A2 l2, a2 = 1/2, J2 = m2 l2^2/12 */
    double h, psi, hg, xi, m3, J3;    /* rocker: C' = D + h e(theta3 + psi), mass centre
                                         D + hg e(theta3 + xi), mass, J about its mass centre */
    double L, M3;                     /* adjustable weight G: point mass M3 at D + L e(theta3) */
    double e, m_D, k, x_D0, F_r, v_F; /* slider: guide height, mass, spring k (x_D - x_D0),
                                         friction F_r tanh(xdot_D / v_F) */
    double c_D;                       /* viscous load on the slider (the pumps) c_D xdot_D */
    double g;                         /* gravity along -y */
    double branch;                    /* assembly branch: +1 = C' left of B->D, -1 right */
} kf_windpump;

#define KF_WINDPUMP_NPARAM 24
/* The field names of kf_windpump in order, NULL-terminated. */
extern const char *const kf_windpump_names[];

/* Validate the parameters: KF_EINVAL naming the first bad one. */
int kf_windpump_check(const kf_windpump *p, kf_error *err);

/* Mass coordinates of the wind pump (rows of A, B, Mrig), in this order. */
enum {
    KF_WP_X1, KF_WP_Y1, KF_WP_T1,   /* crank mass centre, crank angle alpha */
    KF_WP_X2, KF_WP_Y2, KF_WP_T2,   /* lever mass centre, theta2 */
    KF_WP_X3, KF_WP_Y3, KF_WP_T3,   /* rocker mass centre, theta3 */
    KF_WP_XG, KF_WP_YG,             /* the weight G */
    KF_WP_XD,                       /* slider */
    KF_WP_NR
};

/* The wind pump's kinematics at one instant. */
typedef struct kf_windpump_kin {
    double q[2], u[2], udot[2], w[3];
    double theta[3], omega[3], eps[3]; /* crank (= alpha), lever, rocker (pendulum arm) */
    double mu;                         /* transmission angle theta3 + psi - theta2, in (-pi, pi] */
    double pts[8];                     /* A, B, C', D: (x, y) each */
    double r[KF_WP_NR], v[KF_WP_NR], a[KF_WP_NR]; /* mass coordinates and their rates */
    double A[KF_WP_NR * 2], B[KF_WP_NR * 3];      /* row-major */
    double vB[2], aB[2];               /* velocity and acceleration of B (global) */
    kf_frame lever;                    /* the lever frame (origin B, x along B->C'), gravity
                                          included: lever.a = R2^T (a_B - g) */
} kf_windpump_kin;

/*
 * Kinematics at q, u, u' (udot may be NULL: zero).  Loop closure in closed
 * form (C' is an intersection of two circles; branch picks one); KF_EGEOM,
 * naming alpha and x_D, where the loop cannot close (|BD| outside
 * [|l2 - h|, l2 + h]) or at a dead point (lever and rocker arm aligned:
 * |sin mu| < KF_WINDPUMP_DEAD).
 */
#define KF_WINDPUMP_DEAD 1e-6
int kf_windpump_kinematics(const kf_windpump *p, const double q[2], const double u[2],
                           const double udot[2], kf_windpump_kin *out, kf_error *err);

/* The rigid masses along the mass coordinates (diagonal of Mrig). */
void kf_windpump_mass(const kf_windpump *p, double mass[KF_WP_NR]);
/* Applied forces along the mass coordinates at the instant kin describes
 * (gravity, motor torque M_m, spring, friction and pump load on the slider). */
void kf_windpump_applied(const kf_windpump *p, const kf_windpump_kin *kin, double M_m,
                         double Q[KF_WP_NR]);

/*
 * Joint (liaison) forces from the ten Newton-Euler equations of the four
 * bodies plus the slider's vertical balance, at an instant whose
 * accelerations kin holds.  f (KF_WINDPUMP_NFORCE):
 *   0-1  F_A  ground on crank at A          2-3  F_B  crank on lever at B
 *   4-5  F_C  lever on rocker at C'         6-7  F_D  rocker on slider at D
 *   8    N    guide on slider (+y)          9    M_m  motor torque on the crank
 *   10   R    horizontal force the slider lacks for this motion: zero (to
 *             round-off) for a motion of this model; for a recorded motion,
 *             the load the model does not describe.
 * Solved as one 11 x 11 linear system (LU, LAPACK).
 */
#define KF_WINDPUMP_NFORCE 11
int kf_windpump_joint_forces(const kf_windpump *p, const kf_windpump_kin *kin, double *f,
                             kf_error *err);

/* Drives.  A torque law returns 0, or nonzero to stop the integration. */
typedef int kf_torque_fn(void *params, double t, double alpha, double omega1, double *torque);
enum kf_drive_mode { KF_DRIVE_SPEED = 0, KF_DRIVE_TORQUE = 1 };
typedef struct kf_windpump_drive {
    int mode;             /* KF_DRIVE_SPEED: omega1 = omega, alpha = alpha(t0) + omega (t - t0) */
    double omega;         /* [rad/s] */
    kf_torque_fn *torque; /* KF_DRIVE_TORQUE: M_m = torque(params, t, alpha, omega1) */
    void *params;
} kf_windpump_drive;

/*
 * The rigid motion from y0 = (alpha, x_D, omega1, xdot_D) at t[0] to the
 * increasing times t[0..nt-1], by kf_ode (Dormand-Prince 5(4)) landing on
 * every t[i]; opts as for kf_ode_create, except max_steps 0 = 10^7 and
 * rtol in [1e-14, 0.1], atol in (0, 1].  states: nt x KF_WINDPUMP_NSTATE, row-major, per instant
 * (alpha, x_D, omega1, xdot_D, eps1, xddot_D, M_m).  At constant speed
 * (y0[2] is then ignored) the crank rows are exact, alpha = y0[0] + omega
 * (t - t[0]), and M_m is the torque that keeps the speed.  A trial stage that
 * leaves the assembly region shrinks the step; if the motion itself leaves
 * it, KF_EGEOM says when and where.
 */
#define KF_WINDPUMP_NSTATE 7
int kf_windpump_simulate(const kf_windpump *p, const kf_windpump_drive *drive,
                         const double y0[4], int nt, const double *t, const kf_ode_opts *opts,
                         double *states, kf_stats *stats, kf_error *err);

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
