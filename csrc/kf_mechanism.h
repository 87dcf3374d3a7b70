/*
 * kf_mechanism.h -- planar mechanisms, the wind pump, elastic links coupled both ways.
 * Part of the kanefem public C API; implementation: csrc/kf_mechanism.c,
 *   csrc/kf_windpump.c, csrc/kf_flexmech.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_MECHANISM_H
#define KF_MECHANISM_H

#include <stddef.h>
#include "kf_core.h"
#include "kf_body.h"
#include "kf_integrate.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kf_smech_axes; /* csrc/kf_spatial.h */

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
/* The second half of kf_kane_solve, for any generalized mass: with M (nu x nu,
 * column-major) and f (nu) of M u' = f + tau given, u' of the free coordinates
 * and drive of the prescribed ones, as there (the spatial mechanisms, whose
 * body masses are 3 x 3 blocks, form M and f themselves). */
int kf_kane_reduce(int nu, const double *M, const double *f, const unsigned char *prescribed,
                   double *udot, double *drive, kf_error *err);

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
    /* private */
    struct kf_closure *cl;       /* the loop closure's state (csrc/kf_closure.c) */
    double *aux, *cs;
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

/* Axes fixed on a body, as kf_mech_frame takes them; also a typed boundary
 * record (kanefem.AXES_DTYPE, made by the binding from offsetof). */
typedef struct kf_mech_axes {
    int body;    /* -1: the ground */
    double o[2]; /* origin, in the body's axes from its reference point [m] */
    double phi;  /* angle from the body's x axis [rad] */
} kf_mech_axes;

/* The frame of an axis fixed on body b (-1: ground) at origin o (body axes)
 * and angle phi from the body's x axis, at the state k holds, gravity
 * included (a = R^T (a_O - g)); planar (omega, eps about z). */
/* KF_EINVAL naming the first of naxes axes whose body is not one of m's (-1 the
 * ground) or whose origin or angle is not finite; what names them ("frames"). */
int kf_mech_axes_check(const kf_mech *m, int naxes, const kf_mech_axes *axes, const char *what,
                       kf_error *err);
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

/*
 * A path of polynomial pieces, evaluated in the core (no callback into the caller's
 * language at every evaluation): on [t_i, t_i+1], z = sum_p c[i (deg + 1) + p] (t -
 * t_i)^p, i < n, for a recorded trajectory (a spline's pieces, quintic Hermite pieces
 * through samples and their rates).  Implementation: csrc/kf_path.c.
 */
typedef struct kf_path_pieces {
    int n, deg;       /* n pieces of degree deg (0..7) */
    const double *t;  /* n + 1 breakpoints, strictly increasing */
    const double *c;  /* n (deg + 1) coefficients, ascending powers per piece */
} kf_path_pieces;
/* KF_EINVAL naming the bad field unless n >= 1, deg in 0..7, t increasing and finite, c
 * finite. */
int kf_path_pieces_check(const kf_path_pieces *p, kf_error *err);
/* kf_mech_path_fn of a kf_path_pieces (params): KF_EINVAL where t lies outside [t_0, t_n]
 * by more than 1e-12 of the span (round-off of the last output time is the last piece's
 * end). */
int kf_path_pieces_eval(double t, int k, double *zk, void *params, kf_error *err);
/* A drive: also a typed boundary record (kanefem.DRIVE_DTYPE, made by the
 * binding from offsetof: mode, speed, force; the function pointers are not
 * fields of the record, the binding sets them from the callables beside it). */
typedef struct kf_mech_drive {
    int mode;
    double speed;          /* KF_DRIVE_SPEED [rad/s or m/s] */
    kf_mech_path_fn *path; /* KF_DRIVE_PATH */
    kf_mech_law_fn *law;   /* KF_DRIVE_FREE: or NULL */
    void *params;          /* handed to path or law */
    double force;          /* KF_DRIVE_FREE: a constant generalized force [N m or N], the law's
                            * added; 0 for the other modes */
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
 * One upper layer for every kinematics.  The drives, the rigid motion in time
 * (kf_mech_integrate, which kf_mech_simulate is) and the binding's loops over
 * instants talk to a mechanism's kinematics only through this table, as
 * SUNDIALS' integrators talk to a problem through callbacks: the planar
 * mechanisms' (kf_mech_planar_ops, on a kf_mech) and the spatial ones'
 * (kf_smech_ops, csrc/kf_spatial.h, on a kf_smech) share one driver, one drive
 * evaluation, one Kane reduction and one binding.
 */

/* The kinematic state a workspace holds (views of its arrays, valid until the next
 * call): npos position numbers (the plane: x, y, theta per body; space: the mass
 * centre and a unit quaternion, 7 per body), n speeds u (the plane: q'; space: v
 * global and omega in body axes, 6 per body) and their rates, A (n x nz row-major: u = A
 * z') and c (n: u' = A z'' + c). */
typedef struct kf_mech_state {
    int npos, n, nz;
    const double *q, *u, *ud, *A, *c;
} kf_mech_state;

typedef struct kf_mech_ops {
    int (*ncoord)(const void *mech);
    const char *(*coord_name)(const void *mech, int k);
    /* a workspace for one thread; positions are continued from call to call in it */
    int (*work_alloc)(const void *mech, void **work, kf_error *err);
    void (*work_free)(void *work);
    /* Kane's equations at (z, z'): z'' of the coordinates not prescribed
     * (prescribed: z'' given on entry, drive the force each needs) under tau
     * (nz forces along z, or NULL); KF_EGEOM where the loop cannot close */
    int (*accelerations)(const void *mech, void *work, const double *z, const double *zd,
                         const double *tau, const unsigned char *prescribed, double *zdd,
                         double *drive, kf_error *err);
    /* back to the last accepted position after an evaluation that failed with KF_EGEOM */
    void (*restore)(void *work);
    /* positions, speeds and their rates at (z, z', z'') (zd, zdd NULL: 0), and the
     * state they leave (s may be NULL) */
    int (*kinematics)(const void *mech, void *work, const double *z, const double *zd,
                      const double *zdd, kf_mech_state *s, kf_error *err);
    /* at the state the last kinematics left: the applied forces along the speeds (n) */
    int (*applied)(const void *mech, void *work, double *Q, kf_error *err);
    /* and the joint forces (njoint x joint_values, or NULL) and the drives' (nz, or NULL) */
    int (*reactions)(const void *mech, void *work, double *fj, double *drive, kf_error *err);
    int (*njoint)(const void *mech);
    int joint_values; /* per joint: (F_x, F_y, M) in the plane, (F, M) in space */
    void (*shape)(const void *mech, int *npos, int *n); /* the state's sizes */
    /* axes fixed on bodies (an array of kf_mech_axes in the plane, kf_smech_axes in space):
     * KF_EINVAL naming the first of naxes that is not valid (what names them); the frame
     * of axes[i] at the state the last kinematics left */
    int (*axes_check)(const void *mech, int naxes, const void *axes, const char *what,
                      kf_error *err);
    void (*frame)(const void *mech, const void *work, const void *axes, int i, kf_frame *f);
} kf_mech_ops;

extern const kf_mech_ops kf_mech_planar_ops;

/* kf_mech_simulate for any mechanism given by its table (arguments and rows as there). */
int kf_mech_integrate(const kf_mech_ops *ops, const void *mech, const kf_mech_drive *drives,
                      const double *z0, const double *zd0, int nt, const double *t,
                      const kf_ode_opts *opts, double *states, kf_stats *stats, kf_error *err);

/*
 * Elastic links coupled both ways (docs/theory.md section 5.12).  A link is a
 * body of the mechanism whose axes are its flexible body's frame and whose
 * reference point (and mass and inertia) are that body's mass centre (and mass
 * and inertia about it, kf_body_rigid, checked); its elastic DOFs are those its
 * reference conditions leave free, and joints attach to it only at ports (nodes,
 * or a reduced body's interface nodes) whose translations those conditions hold
 * (checked).  The rigid and elastic coordinates form one system, Kane's
 * projection of the floating-frame equations on the constraints' null space,
 * M(p) p'' = f(t, p, p'), p = (free z, d).
 *
 * K_G (geometric): a straight line body's from its axial force N(x) (the joint
 * forces at its end nodes and its axial inertia, section 5.11); a body with a
 * prestress basis of coordinate load cases (kf_body_nload: a reduced body's,
 * section 3.18) from its inertial load cases and the joint forces and moments
 * on the coordinates of its ports.
 */
/* A link of a planar mechanism (kf_flexmech_create) or a spatial one
 * (kf_flexmech_create_spatial, csrc/kf_spatial.h).  Also a typed boundary record
 * (kanefem.LINK_DTYPE from offsetof: body, rayleigh, geometric; fe, fixed, the ports
 * and mass are not fields of the record, the binding sets them from the bodies, masks
 * and ports beside it). */
typedef struct kf_mech_link {
    int body;                   /* the mechanism's body that carries the flexible body */
    const kf_body *fe;          /* planar: a body of dimension 2 (elements or given
                                 * invariants), or a spatial body of given invariants moving
                                 * in the plane; spatial: a body of dimension 3 in dense or
                                 * band storage (elements or given invariants) */
    const unsigned char *fixed; /* reference conditions: ndof flags */
    double rayleigh[2];         /* damping alpha M + beta K of the elastic DOFs */
    int geometric;              /* 1: add K_G (above); 0 */
    /* where joints may attach: nport points of the body's frame (port_xy, nport x dim,
     * row-major: dim 2 planar, 3 spatial) and the coordinates of their translations and
     * rotations (port_dof, row-major; planar nport x 3: along x, y and the rotation;
     * spatial nport x 6: along x, y, z and about x, y, z; -1 where there is none);
     * port_xy NULL: every node of a body of elements (node i: DOFs i ndofn + 0, 1, ... as
     * far as it has them) */
    int nport;
    const double *port_xy;
    const int *port_dof;
    /* spatial, a body of given invariants: its 13 mass properties (kf_ffrf_desc.mass: m,
     * x_c, the second moments about x_c) from its full body; NULL: from its invariants
     * (kf_body_rigid: the rigid motions must lie in its span, as a Craig-Bampton body's) */
    const double *mass;
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
    int extrapolate; /* 0: K_G's axial force from Newton's iterates 0 and 1 (then held);
                      * 1: extrapolated linearly from the last two steps' converged states and
                      * held through the step, where every rigid coordinate is prescribed one
                      * solve per step (the step's equations are then affine) */
    /* optional outputs at each output time, from the kinematics the run solved there
     * (what kf_mech_kinematics and kf_mech_frame give for its states): kin (nt x 3 n:
     * the bodies' q, q', q''; NULL: not wanted) and the frames of naxes axes (nt x
     * naxes, or NULL) */
    double *kin;
    const kf_mech_axes *axes;
    int naxes;
    kf_frame *frames;
    /* spatial: the naxes axes of the frames (in place of axes); kin rows of
     * kf_flexmech_kin_width: the bodies' q (7 nbody), u, u' (6 nbody each) */
    const struct kf_smech_axes *saxes;
} kf_flex_opts;

/* The numbers per output instant of kf_flex_opts.kin: 3 n (planar: q, q', q''), 19
 * nbody (spatial: q, u, u'). */
int kf_flexmech_kin_width(const kf_flexmech *w);

/*
 * Integrate from z0, zd0 and the elastic x0 = (d, d') (or NULL: at rest,
 * undeformed) at t[0] to the increasing times t[0..nt-1] by generalized-alpha
 * (Newton's method on the accelerations at each step, the effective matrix M
 * + gamma' (alpha M + beta K) + beta' (K + K_G) over the elastic DOFs).
 * states: nt x 4 nz as kf_mech_simulate's; elastic: nt x 2 nelastic (d, d');
 * joints: nt x 3 njoint (spatial: nt x 6 njoint, as kf_smech_joint_forces) or
 * NULL.  KF_EGEOM (when and where), KF_ENOCONV (Newton, naming dt),
 * KF_EDIVERGE, KF_ESTEPS.
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

#ifdef __cplusplus
}
#endif
#endif /* KF_MECHANISM_H */
