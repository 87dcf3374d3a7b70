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


#: threshold of the pivot choice: a row's pivot is at least this fraction of its largest
#: entry (threshold partial pivoting, as sparse LU codes choose it: growth stays bounded)
PIVOT_THRESHOLD = 0.1


def _rows(G, n):
    """G's rows as dicts {column: value} (zeros dropped), from an array or a sparse matrix."""
    import scipy.sparse as sp

    if sp.issparse(G):
        G = sp.csr_matrix(G)
        G.sum_duplicates()
        data = G.data
        if data.dtype.kind not in "iuf":
            raise TypeError(f"constraints must be real numbers, got dtype {data.dtype}")
        data = data.astype(float)
        if not np.all(np.isfinite(data)):
            k = int(np.repeat(np.arange(G.shape[0]), np.diff(G.indptr))[np.flatnonzero(~np.isfinite(data))[0]])
            raise ValueError(f"constraints row {k} is not finite")
        return [{int(j): float(v) for j, v in zip(G.indices[G.indptr[k]:G.indptr[k + 1]],
                                                  data[G.indptr[k]:G.indptr[k + 1]]) if v != 0.0}
                for k in range(G.shape[0])]
    G = _checks.array("constraints", G, ndim=2)
    return [{int(j): float(G[k, j]) for j in np.flatnonzero(G[k])} for k in range(G.shape[0])]


def elimination_basis(G, rtol=None, fixed=None):
    """A sparse basis of the null space of G by eliminating one DOF per constraint.

    Each constraint row G[k] . d = 0 expresses one DOF (its *slave*) through the others,
    as finite element codes treat multi-point constraints: the rows are taken in order,
    the slaves already chosen are substituted into the row, and its slave is the column,
    among those within ``PIVOT_THRESHOLD`` of the row's largest coefficient, that the
    fewest constraint rows share (a sparse pivot: little fill), then the larger
    coefficient.  The slaves are finally expressed through the remaining DOFs (the
    *masters*) by back-substitution in the reverse order.  Then d = T z with z =
    d[masters]: T has a unit row per master and the slave's coefficients in its row, so
    that G T = 0, and its sparsity is that of the constraints (docs/theory.md section
    3.3).  Unlike :func:`maggi_basis` (orthonormal, dense, QR of G^T), it never forms an
    ndof x ndof matrix.

    Parameters
    ----------
    G : array_like or scipy.sparse matrix, shape (n_constraints, ndof)
        One linear constraint per row.
    rtol : float, optional
        A row whose coefficients cancel, after the slaves are substituted, to below
        ``rtol`` times the largest term that entered it is dependent on the rows before
        it; default max(n_constraints, ndof) times the machine epsilon.
    fixed : array_like of bool, shape (ndof,), optional
        DOFs fixed by supports (d = 0): they are neither masters nor slaves, and a row
        that involves only them is dependent.

    Returns
    -------
    T : scipy.sparse.csr_matrix, shape (ndof, ndof - n_fixed - n_constraints)
        The basis (rows of fixed DOFs zero).
    masters : ndarray of int
        The DOFs kept as unknowns, in the order of T's columns: z = d[masters].

    Raises
    ------
    ValueError
        Dependent rows (linear combinations of the rows before them, or of the
        supports): the message names each with the rows it depends on.  G not 2-D, of
        another number of columns than fixed, or not finite.
    TypeError
        G not real numbers.

    Examples
    --------
    >>> T, masters = elimination_basis([[1.0, -1.0, 0.0]])      # d0 = d1
    >>> T.toarray(), masters
    (array([[1., 0.],
           [1., 0.],
           [0., 1.]]), array([1, 2]))
    """
    import scipy.sparse as sp

    shape = G.shape if sp.issparse(G) else np.shape(G)
    if len(shape) != 2 or shape[1] < 1:
        raise ValueError(f"constraints must be a 2-D array with a column per DOF, got shape {shape}")
    m, n = int(shape[0]), int(shape[1])
    rows = _rows(G, n)
    fixed_mask = np.zeros(n, dtype=bool) if fixed is None else np.asarray(fixed, dtype=bool)
    if fixed_mask.shape != (n,):
        raise ValueError(f"fixed must have one flag per DOF ({n}), got shape {fixed_mask.shape}")
    tol = max(m, n) * np.finfo(float).eps if rtol is None or rtol == 0 else _checks.real("rtol", rtol, nonnegative=True)
    if not tol < 1.0:
        raise ValueError(f"rtol = {tol!r} must lie in [0, 1): a relative tolerance of 1 or more "
                         "calls every constraint dependent")
    count = np.zeros(n, dtype=np.int64)  # how many rows hold each column (the pivots' sparsity)
    for r in rows:
        for j in r:
            count[j] += 1
    slave_of = {}  # column -> creation index
    exprs = []  # (slave column, {column: coefficient}, source rows)
    dependent = []
    for k, row in enumerate(rows):
        r = {j: v for j, v in row.items() if not fixed_mask[j]}
        scale = max((abs(v) for v in row.values()), default=0.0)
        sources = {k}
        pending = sorted(slave_of[j] for j in r if j in slave_of)
        while pending:  # substitute the slaves, oldest first (their expressions hold newer ones)
            idx = pending.pop(0)
            s, e, src = exprs[idx]
            a = r.pop(s, 0.0)
            if a == 0.0:
                continue
            sources |= src
            for j, c in e.items():
                term = a * c
                scale = max(scale, abs(term))
                if j in r:
                    r[j] += term
                else:
                    r[j] = term
                    if j in slave_of:
                        pending.append(slave_of[j])
                        pending.sort()
        big = max((abs(v) for v in r.values()), default=0.0)
        if big <= tol * scale:
            dependent.append((k, sorted(sources - {k})))
            continue
        cands = [j for j, v in r.items() if abs(v) >= PIVOT_THRESHOLD * big]
        p = min(cands, key=lambda j: (count[j], -abs(r[j]), j))
        a = r.pop(p)
        slave_of[p] = len(exprs)
        exprs.append((p, {j: -v / a for j, v in r.items() if v != 0.0}, sources))
    if dependent:
        said = "; ".join(f"row {k}" + (f" (of rows {', '.join(map(str, src))})" if src else
                                      " (it involves only DOFs the supports fix, or none)")
                         for k, src in dependent[:10])
        more = f" and {len(dependent) - 10} more" if len(dependent) > 10 else ""
        raise ValueError(f"constraints: {len(dependent)} row(s) depend on the others: {said}{more}; "
                         "remove them (or give a dense G to maggi_basis, which drops them by rank)")
    # back-substitution, newest first: each slave through the masters only
    final = {}
    for s, e, _ in reversed(exprs):
        out = {}
        for j, c in e.items():
            if j in final:
                for i, ci in final[j].items():
                    out[i] = out.get(i, 0.0) + c * ci
            else:
                out[j] = out.get(j, 0.0) + c
        final[s] = out
    masters = np.flatnonzero(~fixed_mask)
    masters = masters[~np.isin(masters, np.fromiter(final, dtype=np.int64, count=len(final)))]
    col = np.full(n, -1, dtype=np.int64)
    col[masters] = np.arange(masters.shape[0])
    ri, ci, vi = [masters], [np.arange(masters.shape[0])], [np.ones(masters.shape[0])]
    for s, e in final.items():
        if e:
            ri.append(np.full(len(e), s))
            ci.append(col[np.fromiter(e, dtype=np.int64, count=len(e))])
            vi.append(np.fromiter(e.values(), dtype=float, count=len(e)))
    T = sp.csr_matrix((np.concatenate(vi), (np.concatenate(ri), np.concatenate(ci))),
                      shape=(n, masters.shape[0]))
    T.sum_duplicates()
    T.eliminate_zeros()
    return T, masters
