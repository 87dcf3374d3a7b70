/*
 * kf_spatial.h -- spatial mechanisms of rigid bodies (docs/theory.md section 5.14).
 * Part of the kanefem public C API; implementation: csrc/kf_spatial.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_SPATIAL_H
#define KF_SPATIAL_H

#include <stddef.h>
#include "kf_core.h"
#include "kf_body.h"
#include "kf_integrate.h"
#include "kf_mechanism.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Rigid bodies in space joined by revolute, prismatic, cylindrical,
 * spherical, universal, planar and fixed joints, with force laws on the
 * joints' coordinates, point-to-point springs, gravity and the drives of
 * kf_mechanism.h; the same upper layers (drives, Kane's projection, the rigid
 * motion in time) through kf_mech_ops.
 *
 * Coordinates.  Body b has its mass centre r_b (global) and its orientation,
 * a unit quaternion (w, x, y, z) of the rotation R_b (global = R_b body): 7
 * position numbers per body.  Its speeds are u_b = (v_b, omega_b): the mass
 * centre's velocity in global axes and the angular velocity in the body's
 * axes (R_b' = R_b skew(omega_b)), so its mass is diag(m, m, m, I_b) with
 * the constant inertia tensor I_b.  Positions are updated on the manifold:
 * r += dr, R <- R exp(skew(dtheta)), dtheta in body axes (no angle
 * parametrization of an orientation, so no singularity of one).
 *
 * The joints' constraints are m scalar rows Phi(q) = 0 built from three
 * primitives: the components of P1 - P0 along a global axis or along an axis
 * fixed in body 0, and the product of an axis fixed in body 0 with one fixed
 * in body 1 (perpendicularity).  The nz independent coordinates z are joint
 * coordinates (slides along and angles about the joint frame's axes) or body
 * components.  With the row gradients G (rows x 6 nbody, per body the v and
 * omega_b columns),
 *
 *     J u = [0; z'],   J u' = [gamma; z'' + gamma_f],   J = [Phi_u; f_u]
 *     u = A z',        u' = A z'' + c,
 *
 * and Kane's equations A^T M A z'' = A^T (Q - M c - g) + tau, g the
 * gyroscopic terms (0, omega x I omega) per body.
 */

/* Joint kinds.  Each joint carries a frame on each body (f0 in body[0]'s
 * axes, f1 in body[1]'s), its axes x, y, z; they coincide in the drawing.
 * Coordinates: slides of P1 - P0 along frame 0's axes; angles of the
 * relative rotation F0^T F1 = Rx(a) Ry(b) Rz(c) (F_i = R_i f_i) about x,
 * then the new y, then the new z, each plus the joint's offset. */
enum kf_sjoint_kind {
    KF_SJ_REVOLUTE = 0,    /* 5 rows: P1 = P0, z1 _|_ x0, y0.  Coordinate: angle c about z */
    KF_SJ_PRISMATIC = 1,   /* 5: P1 - P0 _|_ x0, y0; z1 _|_ x0, y0; y1 _|_ x0.  Slide along z0 */
    KF_SJ_CYLINDRICAL = 2, /* 4: P1 - P0 _|_ x0, y0; z1 _|_ x0, y0.  Slide along z0, angle c */
    KF_SJ_SPHERICAL = 3,   /* 3: P1 = P0.  Angles a, b, c (singular at b = +-pi/2) */
    KF_SJ_UNIVERSAL = 4,   /* 4: P1 = P0, y1 _|_ x0.  Angles a (about x0), b (about y1) */
    KF_SJ_PLANAR = 5,      /* 3: P1 - P0 _|_ z0; z1 _|_ x0, y0.  Slides along x0, y0, angle c */
    KF_SJ_FIXED = 6        /* 6: P1 = P0; z1 _|_ x0, y0; y1 _|_ x0.  None */
};

#define KF_SJ_NAME 64

/* A joint between body[0] and body[1] (-1: the ground); also a typed
 * boundary record (kanefem.SJOINT_DTYPE, made by the binding from offsetof).
 * The force and moment it reports are those body[0] exerts on body[1] at
 * body[1]'s point. */
typedef struct kf_sjoint {
    int kind;
    int body[2];
    double p0[3], p1[3]; /* the joint's point in each body's axes from its mass centre
                          * (ground: global) [m] */
    double f0[9], f1[9]; /* the joint frame's axes in each body's axes (ground: global),
                          * row-major 3 x 3 with the axes as columns; orthonormal, det +1 */
    double offset[3];    /* added to each coordinate (its value where the frames and points
                          * coincide, the drawing's) [m or rad] */
    /* a force law along each coordinate s_i (as many as the kind has), on body[1]
     * and reacting on body[0]:
     *   F_i = -k_i (s_i - s0_i) - c_i s_i' - F_r_i tanh(s_i' / v_F_i)   [N or N m] */
    double k[3], s0[3], c[3], F_r[3], v_F[3];
    char name[KF_SJ_NAME]; /* in messages */
} kf_sjoint;

/* A body; also a typed boundary record (kanefem.SBODY_DTYPE). */
typedef struct kf_sbody {
    double mass;       /* [kg], >= 0 */
    double inertia[9]; /* about the mass centre in the body's axes, row-major [kg m^2]:
                        * symmetric, positive semidefinite, I1 + I2 >= I3 for its principal
                        * moments (a real mass distribution's) */
    double r[3];       /* the drawing: the mass centre [m] */
    double quat[4];    /* the drawing: the orientation, a quaternion (w, x, y, z) of any
                        * nonzero norm (normalized) */
} kf_sbody;

/* A spring-damper between point p0 of body[0] and p1 of body[1]: tension
 * F = k (L - L0) + c L' along the line joining them (kanefem.SSPRING_DTYPE). */
typedef struct kf_sspring {
    int body[2];
    double p0[3], p1[3];
    double k, L0, c;
} kf_sspring;

/* An independent coordinate (kanefem.SCOORD_DTYPE): component 0..5 of body
 * `index` (x, y, z of its mass centre [m]; a, b, c: the angles of its
 * rotation R = Rx(a) Ry(b) Rz(c) [rad]) or coordinate `component` of joint
 * `index` (in the order of enum kf_sjoint_kind's list). */
enum kf_scoord_kind { KF_SC_BODY = 0, KF_SC_JOINT = 1 };
typedef struct kf_scoord {
    int kind, index, component;
    char name[KF_SJ_NAME];
} kf_scoord;

typedef struct kf_smech_desc {
    int nbody;
    const kf_sbody *bodies;
    int njoint;
    const kf_sjoint *joints;
    int nspring;
    const kf_sspring *springs;
    int ncoord;
    const kf_scoord *coords;
    double gravity[3]; /* global [m/s^2] */
    int redundant;     /* 0: dependent constraint rows are an error (KF_EINVAL naming them and
                        * the rank found); 1: keep an independent set (rows in order, each
                        * kept unless it depends on those before), the others' multipliers 0 */
} kf_smech_desc;

typedef struct kf_smech kf_smech;

/* At most this many bodies (the constraint Jacobian is a dense 6 nbody square). */
#define KF_SMECH_MAX_BODIES 256

/*
 * Validate and copy the description, find the independent constraint rows at
 * the drawing and assemble it (Newton from the drawing).  KF_EINVAL naming
 * the bad field ("joints[2].f0"), redundant rows (naming their joints, with
 * the rank found) or a wrong count of coordinates; KF_EGEOM if the drawing does
 * not assemble, or a dependent row kept out does not hold there (inconsistent
 * constraints).
 */
int kf_smech_create(kf_smech **out, const kf_smech_desc *desc, kf_error *err);
void kf_smech_free(kf_smech *m);
int kf_smech_nbody(const kf_smech *m);
int kf_smech_njoint(const kf_smech *m);
int kf_smech_ncoord(const kf_smech *m);
/* The number of constraint rows kept (independent) and of all rows. */
int kf_smech_nrows(const kf_smech *m, int *all);
/* The description (the copy's arrays, valid while m lives; bodies' r and quat
 * are the assembled drawing's). */
void kf_smech_describe(const kf_smech *m, kf_smech_desc *desc);
/* The drawing's independent coordinates (nz): where the assembled drawing is. */
void kf_smech_drawing_coordinates(const kf_smech *m, double *z);
/* Whether coordinate k is an angle. */
int kf_smech_coord_is_angle(const kf_smech *m, int k);

/* The kinematic state at one instant, with its workspace (per thread); q
 * keeps the last solution, from which the next one is continued. */
typedef struct kf_smech_kin {
    int n, nz;            /* n = 6 nbody speeds */
    double *z;            /* nz */
    double *q;            /* 7 nbody: (r, quaternion) per body */
    double *u, *ud;       /* n: (v global, omega body) per body and their rates */
    double *A;            /* n x nz, row-major: u = A z' */
    double *c;            /* n: u' = A z'' + c */
    double *R;            /* 9 nbody: each body's rotation, row-major, at q */
    /* private */
    struct kf_closure *cl; /* the loop closure's state (csrc/kf_closure.c) */
    double *aux, *jv, *jvok;
    int *ipivt;
} kf_smech_kin;

int kf_smech_kin_alloc(const kf_smech *m, kf_smech_kin *k, kf_error *err);
void kf_smech_kin_free(kf_smech_kin *k);

/*
 * Positions, speeds and their rates for z, z' (NULL: 0), z'' (NULL: 0):
 * Newton's method on [Phi; f - z] = 0 (kept rows), continued from the last
 * solution along the straight path in z (the drawing at first), as the planar
 * mechanisms.  KF_EGEOM, naming the coordinates and the joints involved,
 * where the loop cannot close or at a singular configuration (the scaled J's
 * smallest pivot below KF_MECH_DEAD of its largest; a joint's angles at b =
 * +-pi/2).
 */
int kf_smech_kinematics(const kf_smech *m, const double *z, const double *zd, const double *zdd,
                        kf_smech_kin *k, kf_error *err);
/* Applied forces Q (n: per body the force in global axes and the moment about
 * the mass centre in body axes): gravity, the joints' force laws, the springs;
 * KF_EGEOM if a spring has zero length. */
int kf_smech_applied(const kf_smech *m, const kf_smech_kin *k, double *Q, kf_error *err);
/* Kane's equations at the state k holds, as kf_mech_dynamics. */
int kf_smech_dynamics(const kf_smech *m, kf_smech_kin *k, const double *tau,
                      const unsigned char *prescribed, double *zdd, double *drive,
                      kf_error *err);
/*
 * Joint forces from r (n: the generalized forces the constraints must supply,
 * Q - M u' - g): the multipliers of J^T [lambda; mu] = r.  fj (6 njoint): per
 * joint (F, M), the force and the moment about body[1]'s joint point that
 * body[0] exerts on body[1], global axes; drive (nz): -mu.  Either may be
 * NULL.
 */
int kf_smech_joint_forces(const kf_smech *m, kf_smech_kin *k, const double *r, double *fj,
                          double *drive, kf_error *err);
/* The rigid mechanism's joint forces at the state k holds (positions, speeds,
 * rates): kf_smech_joint_forces of r = Q - M u' - g. */
int kf_smech_reactions(const kf_smech *m, kf_smech_kin *k, double *fj, double *drive,
                       kf_error *err);
/* Axes fixed on a body (kanefem.SAXES_DTYPE): origin o in the body's axes from
 * its mass centre, orientation phi (the axes in the body's axes, row-major). */
typedef struct kf_smech_axes {
    int body; /* -1: the ground */
    double o[3];
    double phi[9];
} kf_smech_axes;

/* KF_EINVAL naming the first of naxes axes whose body is not one of m's (-1 the
 * ground) or whose origin or axes are not finite; what names them ("frames"). */
int kf_smech_axes_check(const kf_smech *m, int naxes, const kf_smech_axes *axes,
                        const char *what, kf_error *err);
/* The frame of axes fixed on a body at the state k holds, gravity included
 * (a = R^T (a_O - g)); omega, eps, v, a, vdot in the frame's axes. */
void kf_smech_frame(const kf_smech *m, const kf_smech_kin *k, const kf_smech_axes *ax,
                    kf_frame *f);

/*
 * Elastic links coupled both ways (docs/theory.md section 5.17): the coupled
 * system of kf_mechanism.h's kf_flexmech (kf_flexmech_run, kf_flexmech_dynamics)
 * for a spatial mechanism m (which must outlive it).  Each link (kf_mech_link,
 * ports and port_dof of 3 and 6 numbers) is a body of m carrying a body of
 * dimension 3 in a floating frame (kf_ffrf: its rows in the speeds (v, omega,
 * d')), whose mass, mass centre (the body's reference point) and inertia m's
 * body must have (checked to 1e-9); its reference conditions must hold its
 * rigid motion (kf_ffrf_rigid_margin above 1e-10) and the translations of the
 * ports where joints attach.  K_G: a straight line body's from its axial force
 * (the joint forces at its end nodes, its axial inertia); a body with coordinate
 * load cases (kf_body_nload) from its inertial cases and the joints' forces and
 * moments on its ports' coordinates.  KF_EINVAL naming the link.
 */
int kf_flexmech_create_spatial(kf_flexmech **out, const kf_smech *m, int nlink,
                               const kf_mech_link *links, kf_error *err);

/* The table of the upper layers (kf_mech_ops) for a kf_smech, and the rigid
 * motion in time (kf_mech_integrate with it; arguments and rows as
 * kf_mech_simulate's). */
extern const kf_mech_ops kf_smech_ops;
int kf_smech_simulate(const kf_smech *m, const kf_mech_drive *drives, const double *z0,
                      const double *zd0, int nt, const double *t, const kf_ode_opts *opts,
                      double *states, kf_stats *stats, kf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* KF_SPATIAL_H */
