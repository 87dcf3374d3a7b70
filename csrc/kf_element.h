/*
 * kf_element.h -- element kinds, sections, Gauss rules.
 * Part of the kanefem public C API; implementation: csrc/kf_element.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_ELEMENT_H
#define KF_ELEMENT_H

#include "kf_core.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    KF_CONTINUUM_LAST = KF_HEX8I, /* the last plane or solid kind */
    /* the planar beam with a section model (docs/theory.md section 2.9): Timoshenko
     * shear and/or rotary inertia with the second-order rotation; 2 nodes x (u, v, theta) */
    KF_BEAM2T = 24
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
    /* the spatial beam's options (docs/theory.md section 2.9); all zero: the seeds'
     * Euler-Bernoulli beam */
    double kappa_y; /* shear coefficients for shear along the section's y (bending v, Izz) */
    double kappa_z; /* and z (bending w, Iyy): 0 = no shear deformation, else Timoshenko */
    double rotary;  /* 1: the section turns rigidly with all three rotations, to second
                     * order (rotary inertia, full section inertia, propeller moment) */
    double ey, ez;  /* the shear centre's offset from the centroid in (e2, e3) [m]: the
                     * nodes lie on the shear-centre axis, the twist turns about it, the
                     * section's mass lies about the centroid; the axial DOF is the
                     * centroid's (Vlasov's choice, without warping) */
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

#ifdef __cplusplus
}
#endif
#endif /* KF_ELEMENT_H */
