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

/* One header per module, in dependency order; each compiles on its own. */
#include "kf_core.h"
#include "kf_lapack.h"
#include "kf_matrix.h"
#include "kf_solver.h"
#include "kf_element.h"
#include "kf_body.h"
#include "kf_eig.h"
#include "kf_direct.h"
#include "kf_stress.h"
#include "kf_integrate.h"
#include "kf_body_ode.h"
#include "kf_mechanism.h"
#include "kf_spatial.h"
#include "kf_ffrf.h"

#endif /* KANEFEM_H */
