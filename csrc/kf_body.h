/*
 * kf_body.h -- bodies, inertia invariants, frames, motion terms, geometric stiffness.
 * Part of the kanefem public C API; implementation: csrc/kf_body.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_BODY_H
#define KF_BODY_H

#include "kf_core.h"
#include "kf_matrix.h"
#include "kf_element.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * connectivity and assemble element by element (docs/theory.md section 3.11); plane
 * and solid bodies in CSR storage keep their nodal mass instead of the dim^2 blocks
 * S_ij.  kf_eig works on them (dense reduction, small bodies), and so do the
 * integrators (their linear solver then comes from the caller, kf_linsol_callback). */
int kf_body_create_storage(kf_body **out, int kind, int nnode, const double *coords, int nel,
                           const int *conn, const kf_section *sec, int storage, kf_error *err);
/* The same with a section orientation per element: refs (nel x 3, row e the ref of
 * element e, replacing sec->ref; NULL: sec->ref for all) for KF_BEAM3D bodies, e.g.
 * a pre-twisted blade. */
int kf_body_create_refs(kf_body **out, int kind, int nnode, const double *coords, int nel,
                        const int *conn, const kf_section *sec, const double *refs, int storage,
                        kf_error *err);
/* A mesh of several plane (or several solid) kinds: element e has kind kinds[e] and
 * its nodes at conn[ptr[e] .. ptr[e + 1] - 1] (ptr[0] = 0, nel + 1 offsets); every
 * kind must be a plane or solid kind of one dimension (KF_TRI3..KF_CONTINUUM_LAST).
 * Storage as kf_body_create_storage; kf_body_kind gives the first element's kind. */
int kf_body_create_mixed(kf_body **out, int nnode, const double *coords, int nel,
                         const int *kinds, const int *ptr, const int *conn,
                         const kf_section *sec, int storage, kf_error *err);
/* The most K_G basis matrices a body holds (kf_body_nkg). */
#define KF_BODY_MAX_KG 48

/*
 * A body from given dense invariants, not from elements: the reduced body of
 * docs/theory.md section 3.18, whose n coordinates are the amplitudes of a
 * reduction basis V (S_ij = V^T S_ij V, ... projected once by the caller).  All
 * arrays row-major: S holds dim*dim blocks n x n (block i dim + j), R the same or
 * NULL (no second-order rotation invariants), K n x n, s dim*dim vectors of n, Mo
 * dim vectors of n, KG nkg matrices n x n with nkg 0 (no K_G) or dim + dim^2 + nload:
 * the prestress basis of the unit load cases a_i, (E + W W)_ij (kf_body_set_prestress's
 * order, without end loads), then nload >= 0 (at most n and KF_BODY_MAX_KG in all)
 * coordinate load cases: case dim + dim^2 + k is a unit generalized force on
 * coordinate k (a Craig-Bampton body's interface DOFs come first: the loads of the
 * joints at its interface, kf_body_nload).  S_ji must equal S_ij^T, K, R_ii and KG
 * symmetric, to a relative 1e-10 (then made exactly so: S_ji is set to S_ij^T);
 * M = sum S_ii must have a positive diagonal.  Dense storage; KF_EINVAL naming the
 * array otherwise.  The body has no mesh: kf_body_set_prestress, kf_body_axial_force
 * and direct quadrature refuse it; every combination, eigen context and integrator
 * takes it.
 */
int kf_body_create_given(kf_body **out, int dim, int n, const double *S, const double *R,
                         const double *K, const double *s, const double *Mo, int nkg,
                         const double *KG, kf_error *err);
/*
 * The body of the motions d = T z that linear constraints G d = 0 leave (Maggi's
 * projection, docs/theory.md section 3.3): every invariant X becomes T^T X T and every
 * vector x T^T x, for a basis T (ndof x ncol, G T = 0) given in CSR: ptr (ndof + 1
 * offsets), col, val.  Its element, section, line geometry and K_G basis (the straight
 * body's or the prestress cases, projected) are b's, so that kf_body_combine,
 * kf_body_geometric and kf_body_geometric_coefficients take it as they take b.  Storage:
 * dense if b is dense, a band if b is a band and T keeps it within twice b's width, CSR
 * otherwise; S_ji = S_ij^T, M, S_ii and R_ij exactly symmetric (K and K_G to b's
 * rounding: for a selection T the values are kf_body_reduce's, bitwise).  It has no mesh
 * (kf_body_set_prestress refuses it).  KF_EINVAL naming "basis" for a bad basis.
 */
int kf_body_project(const kf_body *b, int ncol, const int *ptr, const int *col,
                    const double *val, kf_body **out, kf_error *err);
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
/* Invariant blocks S_ij (i, j < dim) and vectors s_ij, Mo_i (length ndof).  A plane or
 * solid body in CSR storage stores its nodal mass instead of the dim^2 blocks
 * (docs/theory.md section 3.11): kf_body_S gives NULL, and kf_body_combine with
 * c = e_i e_j^T forms S_ij. */
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
/*
 * The stiffness-like combination: kf_body_combine plus sum_ij c_ij R_ij, the
 * second-order rotation invariants of a body whose sections turn to second order
 * (docs/theory.md section 2.9; for every other body exactly kf_body_combine).  K_eps
 * (c = E) and K_om (c = WW) are formed with it, C (c = 2 W) and M with kf_body_combine.
 */
void kf_body_combine_stiff(const kf_body *b, const double *c, double beta, kf_mat *out);
/* Nonzero if the body has second-order rotation invariants R_ij; kf_body_R gives them. */
int kf_body_has_second(const kf_body *b);
const kf_mat *kf_body_R(const kf_body *b, int i, int j);
/* out = beta out + sum_ij c[i dim + j] s_ij (length ndof). */
void kf_body_combine_vec(const kf_body *b, const double *c, double beta, double *out);

/*
 * The motion terms at one instant (any output may be NULL):
 *   C = 2 sum W_ij S_ij, K_eps = sum E_ij S_ij, K_om = sum (WW)_ij S_ij (each
 *   K with + R_ij, kf_body_combine_stiff),
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
int kf_body_geometric(const kf_body *b, const double *c, double beta, kf_mat *out,
                      kf_error *err);

/* The number of coefficients of kf_body_geometric: 3 (a straight line body), the
 * prestress load cases (after kf_body_set_prestress), 0 (no K_G). */
int kf_body_nkg(const kf_body *b);
/* Nonzero if the body's K_G basis is a prestress basis (kf_body_set_prestress). */
int kf_body_prestressed(const kf_body *b);
/* The coordinate load cases of a given body's K_G basis (kf_body_create_given): case
 * dim + dim^2 + k (k < nload) is a unit generalized force on coordinate k; 0 for
 * every other body.  kf_body_geometric_coefficients sets their coefficients to 0 (no
 * load): the caller adds the forces on those coordinates (a mechanism's joints). */
int kf_body_nload(const kf_body *b);

/*
 * K_G of the linear stress of one displacement field u (ndof, all DOFs) whose load
 * case carries the body load acc_i + Mc_ij x_j per unit mass (acc dim, Mc dim x dim
 * row-major, or NULL: none; a point load has none), docs/theory.md section 2.11:
 * what kf_body_set_prestress makes for each of its cases, for any field, without
 * changing the body.  out must conform with kf_body_mass(b) and is overwritten.
 * KF_EINVAL for a body without elements (a given or restricted body) or a
 * non-finite u, acc or Mc.
 */
int kf_body_prestress_matrix(const kf_body *b, const double *u, const double *acc,
                             const double *Mc, kf_mat *out, kf_error *err);

/*
 * The body as a rigid body (docs/theory.md sections 3.18, 5.12): its mass m [kg], the
 * mass centre c [m] in its frame (c[k] = 0 for k >= dim) and the inertia tensor J
 * about the mass centre [kg m^2] (3 x 3, row-major; a planar body's has only J[8],
 * about z).  A body of elements integrates rho over them (a line body's consistent
 * line mass, without rotary inertia of its sections); a given body takes them from
 * its invariants: with B = M R = (Mo_i, then h_k = int rho N^T (e_k x x): h_z = s_yx -
 * s_xy, h_x = s_zy - s_yz, h_y = s_xz - s_zx) the rigid translations and rotations R of
 * its coordinates, R^T M R = B^T M^-1 B holds m I, the first moments and J about the
 * origin.  That needs the rigid motions in the span of the coordinates (a
 * Craig-Bampton body's interface, a free body's rigid modes): KF_EINVAL naming the
 * motion where one is not (the translations' masses differ by more than 1e-8, or a
 * rigid vector strains: r^T K r > 1e-8 max|K_ij| |r|_1^2), or where M is not positive
 * definite.  KF_EINVAL also for a body without mass or a restricted body.  Ic (or
 * NULL; J may be NULL instead) receives the second moments about the mass centre,
 * int (x - c)(x - c)^T dm, J = tr(Ic) I - Ic: a body of elements integrates them
 * about c itself (two passes: no cancellation for a body far from its origin) and
 * forms J entry by entry; a given body's follow from J (Ic = tr(J)/2 I - J).
 */
int kf_body_rigid(const kf_body *b, double *m, double c[3], double J[9], double Ic[9],
                  kf_error *err);

/*
 * Stress stiffening of any body from its linear prestress (docs/theory.md section
 * 2.11): u holds ncase displacement fields (ncase x ndof, all DOFs), the static
 * solutions K u_c = f_c of the unit load cases, in this order: the origin
 * accelerations a_i (f = -Mo_i, i < dim), the entries (i, j) of E + W W (f =
 * -s_ij, i-major), and for line bodies unit forces at the first and last node
 * along axes[0..dim) and axes[dim..2 dim) (the supports are the caller's: they
 * are in u).  The basis KG[c] = K_G(stress of u_c) replaces the body's; then
 * K_G = sum_c c_c KG[c] with the coefficients of kf_body_geometric_coefficients.
 * Not thread-safe against other users of the same body.
 */
int kf_body_set_prestress(kf_body *b, int ncase, const double *u, const double *axes,
                          kf_error *err);

/*
 * The kf_body_nkg coefficients of K_G at an instant: kf_body_axial_force's for a
 * straight line body; for a prestress basis (a, E + W W, f_first, f_last).
 */
int kf_body_geometric_coefficients(const kf_body *b, const kf_frame *frame, double f_first,
                                   double f_last, int fixed_first, int fixed_last, double *c,
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

#ifdef __cplusplus
}
#endif
#endif /* KF_BODY_H */
