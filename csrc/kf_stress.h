/*
 * kf_stress.h -- strains at quadrature points and element end forces (stresses,
 * section forces: docs/theory.md section 2.10).
 * Part of the kanefem public C API; implementation: csrc/kf_stress.c.
 * Self-contained; kanefem.h includes every module header (conventions there).
 */
#ifndef KF_STRESS_H
#define KF_STRESS_H

#include "kf_core.h"
#include "kf_body.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of elements. */
int kf_body_element_count(const kf_body *b);

/* The number of quadrature points of the body (all elements) and the largest
 * number of strains and of element DOFs of its kinds. */
int kf_body_point_count(const kf_body *b, int *npts, int *nstrain, int *nedof);

/*
 * The strains eps = B d_e at every quadrature point, element by element, for ncol
 * displacement sets d (ncol x ndof, row-major: set c at d + c ndof):
 * eps (ncol x npts x nstrain, row-major), x (npts x dim) the undeformed point and
 * elem (npts) its element.  The strains are the kind's (Voigt order for plane and
 * solid elements, engineering shears; a line element's generalized strains).  The
 * internal modes of KF_QUAD4I / KF_HEX8I are recovered element by element,
 * alpha = -Kaa^-1 Kau d_e, and their strains added (docs/theory.md section 2.7).
 * sig (as eps, or NULL) receives D eps: the stresses of plane (per unit volume: D
 * over the thickness) and solid elements, a line element's section forces (N, M, ...
 * in its D's order).  x and elem may be NULL.
 */
int kf_body_point_strains(const kf_body *b, int ncol, const double *d, double *eps, double *sig,
                          double *x, int *elem, kf_error *err);

/*
 * The element end forces f_e = K_e d_e (ncol x nel x nedof, row-major; nedof the
 * largest of the body's kinds, the rest zero), K_e the element's stiffness (its
 * own, or the sum of w B^T D B over its points), in body axes over the element's
 * DOFs (node-major): the forces and moments the nodes exert on the element.
 */
int kf_body_element_forces(const kf_body *b, int ncol, const double *d, double *f,
                           kf_error *err);

/* A plane or solid kind's reference coordinates: its *nquad quadrature points xq
 * (nquad x dim) and nodes xn (nnode x dim); a pyramid's in the reference pyramid (base
 * [-1, 1]^2 at z = 0, apex (0, 0, 1)). */
#define KF_REF_MAXQ 64 /* at least the largest nquad and nnode of a plane or solid kind */
int kf_continuum_reference(int kind, int *nquad, int *nnode, double *xq, double *xn,
                           kf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* KF_STRESS_H */
