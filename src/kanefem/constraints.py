"""Linear constraints on nodal DOFs and Maggi's projection.

Constraints G d = 0 (supports, ties between DOFs, a roller on an inclined track) leave
the motions d = B z, where the columns of B span the null space of G.  Maggi's
equations are the body's equations projected onto that null space: with d = B z,

    B^T M B z'' + B^T C B z' + B^T (K + K_eps + K_om) B z = B^T (Q - q_a - q_eps - q_om),

free of the constraint forces.  When G only fixes DOFs (supports), B is a selection of
columns of the identity and the projection is the familiar deletion of rows and
columns; for any other G it is the only way.  :func:`maggi_basis` computes an
orthonormal B by LAPACK's QR with column pivoting (dgeqp3, dorgqr) in the C core;
``FlexibleBody.eigenvalues(..., constraints=G)`` uses it.
"""

from __future__ import annotations

import numpy as np

from . import _checks, _core, _interrupt


def maggi_basis(G, rtol=None) -> np.ndarray:
    """An orthonormal basis of the null space of the constraint matrix G.

    QR with column pivoting of G^T (LAPACK dgeqp3), G^T P = Q R; the numerical rank r
    counts the diagonal entries of R with ``|R_kk| > rtol |R_11|``, and the last n - r
    columns of Q (dorgqr) span {d : G d = 0}.

    Parameters
    ----------
    G : array_like, shape (n_constraints, ndof)
        One linear constraint G[k] . d = 0 per row; rows may be redundant (the rank
        decides).  A shape (0, ndof) array means no constraint.
    rtol : float, optional
        Relative rank tolerance, in [0, 1); default (or 0) max(n_constraints, ndof)
        times the machine epsilon.  A tolerance of 1 or more would call every
        constraint redundant and drop it.

    Returns
    -------
    ndarray, shape (ndof, ndof - rank G)
        B with G B = 0 and B^T B = I (to round-off).  Zero columns when the
        constraints fix every DOF.

    Raises
    ------
    ValueError
        G not 2-D, without columns, or not finite; rtol outside [0, 1).
    TypeError
        G or rtol not real numbers (complex, bool, strings).

    Examples
    --------
    >>> import numpy as np
    >>> B = maggi_basis([[1.0, -1.0, 0.0]])      # d0 = d1
    >>> B.shape
    (3, 2)
    >>> float(np.abs(np.array([[1.0, -1.0, 0.0]]) @ B).max()) < 1e-15
    True
    """
    G = _checks.array("constraints", G, ndim=2)
    if G.shape[1] < 1:
        raise ValueError(f"constraints must have at least one column (one per DOF), got shape {G.shape}")
    _checks.output_size("constraints", float(G.shape[1]) ** 2, "a null-space basis (ndof x ndof work)")
    tol = 0.0 if rtol is None else _checks.real("rtol", rtol, nonnegative=True)
    if not tol < 1.0:
        raise ValueError(f"rtol = {tol!r} must lie in [0, 1): a relative tolerance of 1 or "
                         "more drops every constraint")
    return _interrupt.call(_core.null_basis, np.ascontiguousarray(G), tol,
                           flops=10.0 * float(max(G.shape))**3)
