"""The five formalisms side by side, in SymPy: Kane, Gibbs-Appell, Lagrange, Hamilton
and Maggi derive the equations of motion of planar beam elements in a moving frame, and
this module shows that they coincide and measures what each derivation costs.

The element is the C core's planar Euler-Bernoulli beam (``PlanarBeam``): two nodes x
(u, v, theta), u linear, v cubic Hermite, line mass m = rho A, no rotary inertia,
elements of length l on the frame's x axis from x0.  The frame turns with angular
velocity omega(t) about z; its origin moves with velocity v_O(t).  Both are SymPy
functions of time, and every vector is resolved in the moving frame, so the time
derivative of a vector is the derivative of its components plus omega x (the transport
theorem).  A point at x + N d moves with

    v = v_O + d/dt(x + N d) + omega x (x + N d),   a = dv/dt + omega x v,

where a_O = dv_O/dt + omega x v_O is the origin's acceleration in the frame.  Each
method derives, from these kinematics alone, the left-hand side of

    M d'' + C d' + (K + K_eps + K_om) d + q_a + q_eps + q_om = Q

(docs/theory.md section 1):

* ``"kane"``: partial velocities dv/dd', generalized inertia forces
  F*_r = -int m (dv/dd'_r) . a, generalized elastic forces -dV/dd_r;
* ``"gibbs-appell"``: the energy of accelerations S = 1/2 int m a . a, dS/dd''_r;
* ``"lagrange"``: L = T - V, d/dt dL/dd'_r - dL/dd_r;
* ``"hamilton"``: p = dL/dd', H = p . d' - L = 1/2 (p - g)^T M^-1 (p - g) - L0, the
  canonical equations d' = dH/dp, p' = -dH/dd (first order); eliminating p gives the
  second-order equations (:attr:`Derivation.equations`);
* ``"maggi"``: Lagrange's expressions projected onto the null space of linear
  constraints G d = 0 (d = B z): B^T (d/dt dL/dd' - dL/dd) at d = B z.

V = 1/2 int (EA u'^2 + EI v''^2) dx is the elastic energy.  Every derivative is taken by
one counting wrapper around :func:`sympy.diff` (:class:`DerivativeCount`); integrals over
an element are exact (polynomials in the element coordinate xi).

Two routes assemble n elements: ``"element"`` derives each element's equations with
respect to its own coordinates and adds them into the body's (the structure a finite
element code uses), ``"monolithic"`` builds the body's T, S, V and velocity fields and
differentiates them with respect to every coordinate of the body.

SymPy is the optional extra ``symbolic`` (``pip install "kanefem[symbolic]"``); the rest
of kanefem does not import this module.

Examples
--------
>>> from kanefem import symbolic
>>> kane = symbolic.derive("kane", n_elements=1)
>>> lagrange = symbolic.derive("lagrange", n_elements=1)
>>> symbolic.difference(kane, lagrange).is_zero_matrix
True
>>> kane.matrices()["M"][0, 0]   # m l / 3: the axial entry of the consistent mass
l*m/3
>>> kane.cost.derivatives, lagrange.cost.derivatives   # scalar derivatives taken
(25, 23)
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field
from functools import cached_property

try:
    import sympy
except ImportError as exc:  # pragma: no cover - exercised by a test that hides sympy
    raise ImportError(
        "kanefem.symbolic needs SymPy, kanefem's optional extra 'symbolic': "
        'pip install "kanefem[symbolic]" (or pip install sympy)'
    ) from exc

import numpy as np

from . import _checks

__all__ = [
    "METHODS",
    "ROUTES",
    "PAPER_TABLE1",
    "Cost",
    "CostRow",
    "DerivativeCount",
    "Derivation",
    "derive",
    "difference",
    "support_constraints",
    "null_space_basis",
    "compare_with_core",
    "measure_costs",
    "format_cost_table",
    "write_cost_csv",
    "read_cost_csv",
    "SPATIAL_METHODS",
    "SpatialDerivation",
    "derive_spatial",
    "compare_spatial_with_core",
]

METHODS = ("kane", "gibbs-appell", "lagrange", "hamilton", "maggi")
ROUTES = ("element", "monolithic")
#: the most elements one derivation takes: SymPy's time grows at least linearly (the
#: element route: 0.25 s per element by Kane, 0.8 s by Maggi; notebooks/data/
#: formalisms_costs.csv) and the monolithic route's faster (Hamilton: 50 s at 10), so
#: 1000 elements would run for hours; the papers' Table 1 goes to 40
MAX_ELEMENTS = 100

#: Seed 000 Table 1 (and seed 004 Table 1 for Lagrange and Gibbs-Appell): "number of
#: differentiations" for 5..40 finite elements, as printed.  The papers do not say what
#: was counted; the figures are 48 (n + 1), 20 (n + 1) and 2 n.
PAPER_TABLE1 = {
    5: {"lagrange": 288, "gibbs-appell": 120, "kane": 10},
    10: {"lagrange": 528, "gibbs-appell": 220, "kane": 20},
    15: {"lagrange": 768, "gibbs-appell": 320, "kane": 30},
    20: {"lagrange": 1008, "gibbs-appell": 420, "kane": 40},
    25: {"lagrange": 1248, "gibbs-appell": 520, "kane": 50},
    30: {"lagrange": 1488, "gibbs-appell": 620, "kane": 60},
    40: {"lagrange": 1968, "gibbs-appell": 820, "kane": 80},
}

# ---------------------------------------------------------------- symbols

t = sympy.Symbol("t")
xi = sympy.Symbol("xi")  # element coordinate, 0..1
m, l, EA, EI = sympy.symbols("m l EA EI")
x0 = sympy.Symbol("x0")
# plain symbols of the final equations: frame rates and origin motion (body frame)
omega, eps, a_x, a_y, v_x, v_y = sympy.symbols("omega epsilon a_x a_y v_x v_y")
# the same as functions of time, for the derivations
omega_t = sympy.Function("Omega")(t)
vx_t = sympy.Function("V_x")(t)
vy_t = sympy.Function("V_y")(t)

PARAMETERS = (m, l, x0, EA, EI)
MOTION = (omega, eps, a_x, a_y)

# the derivative kinds counted (d/dq' is with respect to a generalized velocity, ...)
KINDS = ("d/dt", "d/dq", "d/dq'", "d/dq''", "d/dp", "d/dxi")


def _cross(w, r):
    """omega e_z x r for a planar vector r."""
    return sympy.Matrix([-w * r[1], w * r[0]])


def _shape(length):
    """N(xi) (2 x 6): rows x, y; columns u1, v1, theta1, u2, v2, theta2 (the C core's)."""
    return sympy.Matrix(
        [
            [1 - xi, 0, 0, xi, 0, 0],
            [0, 1 - 3 * xi**2 + 2 * xi**3, length * (xi - 2 * xi**2 + xi**3), 0,
             3 * xi**2 - 2 * xi**3, length * (xi**3 - xi**2)],
        ]
    )


def _xi_powers(expr):
    """{k: coefficient of xi**k} of an expression polynomial in xi."""
    out = {}
    for term in sympy.Add.make_args(sympy.expand(expr)):
        c, k = term.as_coeff_exponent(xi)
        if not (k.is_Integer and k >= 0) or c.has(xi):
            raise ValueError(f"not polynomial in xi: {term}")
        out[int(k)] = out.get(int(k), 0) + c
    return out


def _integral01(pf, pg):
    """int_0^1 f g dxi from the xi-power dicts of f and g (exact)."""
    return sympy.expand(
        sympy.Add(*[ci * cj / (i + j + 1) for i, ci in pf.items() for j, cj in pg.items()])
    )


# ---------------------------------------------------------------- counting derivatives


@dataclass
class DerivativeCount:
    """The derivatives a derivation took, counted where they are taken.

    Every derivative in this module is one call of :func:`sympy.diff` on one scalar
    expression with respect to one variable, made through this object, which counts it.

    Attributes
    ----------
    by_kind : dict
        Scalar derivatives per kind: ``"d/dt"`` (time), ``"d/dq"``, ``"d/dq'"``,
        ``"d/dq''"`` (with respect to a generalized coordinate, velocity,
        acceleration), ``"d/dp"`` (a momentum), ``"d/dxi"`` (along the element, for
        strains).
    matrix_ops : int
        The same work counted the way a paper writes it: one per time derivative of a
        vector, gradient of a scalar or Jacobian of a vector.
    differentiated_ops : int
        Sum of ``sympy.count_ops`` over the distinct expressions differentiated (the
        size of what was differentiated), when sizes are measured, else 0.
    """

    by_kind: dict = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    matrix_ops: int = 0
    differentiated_ops: int = 0
    measure_sizes: bool = False
    overhead_seconds: float = 0.0
    _seen: set = field(default_factory=set, repr=False)

    @property
    def total(self) -> int:
        """All scalar derivatives."""
        return sum(self.by_kind.values())

    def _one(self, expr, var, kind):
        self.by_kind[kind] += 1
        if self.measure_sizes and id(expr) not in self._seen:
            t0 = time.perf_counter()
            self._seen.add(id(expr))
            self.differentiated_ops += int(sympy.count_ops(expr))
            self.overhead_seconds += time.perf_counter() - t0
        return sympy.diff(expr, var)

    def scalar(self, expr, var, kind):
        self.matrix_ops += 1
        return self._one(expr, var, kind)

    def dt(self, vec):
        """Time derivative of each component (function form)."""
        self.matrix_ops += 1
        return sympy.Matrix([self._one(e, t, "d/dt") for e in vec])

    def grad(self, f, variables, kind):
        self.matrix_ops += 1
        return sympy.Matrix([self._one(f, v, kind) for v in variables])

    def jacobian(self, vec, variables, kind):
        self.matrix_ops += 1
        return sympy.Matrix(
            len(vec), len(variables), lambda i, j: self._one(vec[i], variables[j], kind)
        )


@dataclass(frozen=True)
class Cost:
    """What one derivation cost.

    Attributes
    ----------
    derivatives : int
        Scalar derivatives taken (calls of sympy.diff), all kinds.
    by_kind : dict
        The same per kind (see :class:`DerivativeCount`).
    matrix_ops : int
        Vector/matrix-level differentiations (a Jacobian or a vector's time
        derivative counts once).
    ops : int
        ``sympy.count_ops`` of the equations as the method produces them (for
        Hamilton: the 2N canonical right-hand sides).
    differentiated_ops : int
        ``sympy.count_ops`` summed over the distinct expressions differentiated.
    seconds : float
        Wall time of the derivation [s] (size measurements excluded).
    """

    derivatives: int
    by_kind: dict
    matrix_ops: int
    ops: int
    differentiated_ops: int
    seconds: float


# ---------------------------------------------------------------- the body being derived


class _Model:
    """n equal beam elements, their coordinates (d, or z with d = B z) and kinematics,
    in function form (coordinates are functions of t)."""

    def __init__(self, n_elements, basis, counter):
        self.n = n_elements
        self.ndof = 3 * (n_elements + 1)
        self.basis = basis
        self.D = counter
        nq = self.ndof if basis is None else basis.shape[1]
        name = "d" if basis is None else "z"
        self.names = [f"{name}{k}" for k in range(nq)]
        self.q = [sympy.Function(s)(t) for s in self.names]
        self.qd = [sympy.Derivative(f, t) for f in self.q]
        self.qdd = [sympy.Derivative(f, (t, 2)) for f in self.q]
        if basis is None:
            self.d = list(self.q)
        else:
            self.d = list(basis * sympy.Matrix(self.q))
        self.N = _shape(l)

    def element_coords(self, e):
        """Indices of the coordinates element e depends on."""
        if self.basis is None:
            return list(range(3 * e, 3 * e + 6))
        rows = self.basis[3 * e : 3 * e + 6, :]
        return [j for j in range(rows.shape[1]) if any(rows[i, j] != 0 for i in range(6))]

    def displacement(self, e):
        return self.N * sympy.Matrix(self.d[3 * e : 3 * e + 6])

    def position(self, e):
        """x + N d of element e's points, body frame."""
        return sympy.Matrix([x0 + (e + xi) * l, 0]) + self.displacement(e)

    def velocity(self, e):
        rho = self.position(e)
        return sympy.Matrix([vx_t, vy_t]) + self.D.dt(rho) + _cross(omega_t, rho)

    def acceleration(self, v):
        return self.D.dt(v) + _cross(omega_t, v)

    def kinetic_energy(self, v):
        p = [_xi_powers(c) for c in v]
        return m * l * (_integral01(p[0], p[0]) + _integral01(p[1], p[1])) / 2

    def strain_energy(self, e):
        u = self.displacement(e)
        ux = self.D.scalar(u[0], xi, "d/dxi") / l
        vxx = self.D.scalar(self.D.scalar(u[1], xi, "d/dxi"), xi, "d/dxi") / l**2
        pu, pv = _xi_powers(ux), _xi_powers(vxx)
        return l * (EA * _integral01(pu, pu) + EI * _integral01(pv, pv)) / 2


def _select(seq, idx):
    return [seq[i] for i in idx]


# ---------------------------------------------------------------- the methods
#
# Each returns the body's equations (function form), one entry per coordinate:
# residual = Q on the right-hand side (Q = 0 here).


def _kane(model, route):
    D = model.D
    R = [sympy.S.Zero] * len(model.q)
    for e in range(model.n):
        idx = model.element_coords(e) if route == "element" else range(len(model.q))
        v = model.velocity(e)
        partial = D.jacobian(v, _select(model.qd, idx), "d/dq'")  # partial velocities
        a = model.acceleration(v)
        pa = [_xi_powers(c) for c in a]
        for col, r in enumerate(idx):
            vr = partial[:, col]
            if vr.is_zero_matrix:
                continue
            # -F*_r = int m v_r . a
            R[r] += m * l * sum(_integral01(_xi_powers(vr[c]), pa[c]) for c in range(2))
        if route == "element":
            gradV = D.grad(model.strain_energy(e), _select(model.q, idx), "d/dq")
            for col, r in enumerate(idx):
                R[r] += gradV[col]
    if route == "monolithic":
        V = sum(model.strain_energy(e) for e in range(model.n))
        R = [R[r] + g for r, g in enumerate(D.grad(V, model.q, "d/dq"))]
    return sympy.Matrix(R)


def _gibbs_appell(model, route):
    D = model.D
    R = [sympy.S.Zero] * len(model.q)
    S_body = V_body = sympy.S.Zero
    for e in range(model.n):
        a = model.acceleration(model.velocity(e))
        pa = [_xi_powers(c) for c in a]
        S = m * l * (_integral01(pa[0], pa[0]) + _integral01(pa[1], pa[1])) / 2
        V = model.strain_energy(e)
        if route == "element":
            idx = model.element_coords(e)
            dS = D.grad(S, _select(model.qdd, idx), "d/dq''")
            dV = D.grad(V, _select(model.q, idx), "d/dq")
            for col, r in enumerate(idx):
                R[r] += dS[col] + dV[col]
        else:
            S_body += S
            V_body += V
    if route == "monolithic":
        dS = D.grad(S_body, model.qdd, "d/dq''")
        dV = D.grad(V_body, model.q, "d/dq")
        R = [dS[r] + dV[r] for r in range(len(model.q))]
    return sympy.Matrix(R)


def _lagrangians(model, route):
    """Per element (route "element": list of (L_e, idx)) or the body's (one entry)."""
    parts = []
    for e in range(model.n):
        L = model.kinetic_energy(model.velocity(e)) - model.strain_energy(e)
        parts.append((L, model.element_coords(e)))
    if route == "monolithic":
        return [(sympy.Add(*[L for L, _ in parts]), list(range(len(model.q))))]
    return parts


def _lagrange(model, route):
    D = model.D
    R = [sympy.S.Zero] * len(model.q)
    for L, idx in _lagrangians(model, route):
        p = D.grad(L, _select(model.qd, idx), "d/dq'")
        dpdt = D.dt(p)
        dLdq = D.grad(L, _select(model.q, idx), "d/dq")
        for col, r in enumerate(idx):
            R[r] += dpdt[col] - dLdq[col]
    return sympy.Matrix(R)


def _hamilton(model, route):
    """Canonical equations.  H = 1/2 (p - g)^T Y (p - g) - L0 with Y = M^-1 kept as a
    symmetric matrix of symbols (as seed 002 eq. 13 keeps [m]^-1).  Route "monolithic"
    builds H and differentiates it with respect to every p and q; route "element"
    differentiates each element's L (p_e, M_e, g_e, dg_e/dq, dL0_e/dq) and applies the
    chain rule to H by hand: dH/dp = Y w, -dH/dq = (dg/dq)^T Y w + dL0/dq, w = p - g."""
    D = model.D
    nq = len(model.q)
    P = sympy.Matrix(sympy.symbols(f"p0:{nq}"))
    Y = sympy.Matrix(nq, nq, lambda i, j: sympy.Symbol(f"Y{min(i, j)}_{max(i, j)}"))
    zero_rates = {v: 0 for v in model.qd}
    p = sympy.zeros(nq, 1)
    M = sympy.zeros(nq, nq)
    A = sympy.zeros(nq, nq)  # dg/dq (element route)
    gradL0 = sympy.zeros(nq, 1)
    L0_body = sympy.S.Zero
    for L, idx in _lagrangians(model, route):
        pe = D.grad(L, _select(model.qd, idx), "d/dq'")
        Me = D.jacobian(pe, _select(model.qd, idx), "d/dq'")
        L0 = L.xreplace(zero_rates)
        ge = pe.xreplace(zero_rates)
        for a_, r in enumerate(idx):
            p[r] += pe[a_]
            for b_, s in enumerate(idx):
                M[r, s] += Me[a_, b_]
        if route == "element":
            Ae = D.jacobian(ge, _select(model.q, idx), "d/dq")
            gL0 = D.grad(L0, _select(model.q, idx), "d/dq")
            for a_, r in enumerate(idx):
                gradL0[r] += gL0[a_]
                for b_, s in enumerate(idx):
                    A[r, s] += Ae[a_, b_]
        else:
            L0_body += L0
    g = p.xreplace(zero_rates)
    w = P - g
    if route == "monolithic":
        H = (w.T * Y * w)[0, 0] / 2 - L0_body
        qdot = D.grad(H, list(P), "d/dp")
        pdot = -D.grad(H, model.q, "d/dq")
    else:
        Yw = Y * w
        qdot = Yw
        pdot = A.T * Yw + gradL0
    return {"P": P, "Y": Y, "M": M, "g": g, "qdot": qdot, "pdot": pdot}


# ---------------------------------------------------------------- function form -> symbols


def _plain_map(model, syms):
    """Function-form objects -> plain symbols; dv_O/dt = a_O - omega x v_O."""
    q, q_t, q_tt = syms
    rep = {}
    for k in range(len(model.q)):
        rep[model.qdd[k]] = q_tt[k]
        rep[model.qd[k]] = q_t[k]
        rep[model.q[k]] = q[k]
    rep[sympy.Derivative(omega_t, t)] = eps
    rep[omega_t] = omega
    rep[sympy.Derivative(vx_t, t)] = a_x + omega * v_y
    rep[sympy.Derivative(vy_t, t)] = a_y - omega * v_x
    rep[vx_t] = v_x
    rep[vy_t] = v_y
    return rep


def _state_symbols(names):
    q = sympy.Matrix(sympy.symbols(names)) if names else sympy.Matrix([])
    q_t = sympy.Matrix([sympy.Symbol(f"{s}_t") for s in names])
    q_tt = sympy.Matrix([sympy.Symbol(f"{s}_tt") for s in names])
    return q, q_t, q_tt


# ---------------------------------------------------------------- results


@dataclass
class Derivation:
    """The equations of motion of n beam elements derived by one method.

    Attributes
    ----------
    method, route : str
        See :func:`derive`.
    n_elements : int
    coordinates, rates, accelerations : sympy.Matrix
        The generalized coordinates q (``d0..`` nodal DOFs, node-major (u, v, theta);
        or ``z0..`` with d = B z under constraints) and the symbols standing for q', q''.
    basis : sympy.Matrix or None
        B with d = B z (constrained derivations), else None.
    raw : sympy.Matrix
        The equations as the method produced them, in plain symbols, not simplified
        (Hamilton: the 2N canonical right-hand sides, d' then p').
    cost : Cost
    canonical : dict or None
        Hamilton only: ``qdot``, ``pdot`` (plain symbols, with momenta ``p`` and the
        symbols ``Y`` of M^-1), ``M``, ``g`` (p = M q' + g).
    """

    method: str
    route: str
    n_elements: int
    coordinates: sympy.Matrix
    rates: sympy.Matrix
    accelerations: sympy.Matrix
    basis: object
    raw: sympy.Matrix
    cost: Cost
    canonical: dict | None = None
    _function_form: dict | None = field(default=None, repr=False)

    @cached_property
    def equations(self) -> sympy.Matrix:
        """The second-order equations, expanded: the left-hand side of
        M q'' + C q' + (K + K_eps + K_om) q + q_a + q_eps + q_om = Q (Q = 0), in the
        symbols of ``PARAMETERS``, ``MOTION`` and the state.  For Hamilton, the
        canonical equations with p eliminated (p = M q' + g, Y = M^-1)."""
        if self.method == "hamilton":
            return self._eliminate_momenta()
        return self.raw.applyfunc(sympy.expand)

    def _eliminate_momenta(self):
        f = self._function_form
        M, g, P, Y = f["M"], f["g"], f["P"], f["Y"]
        rates = sympy.Matrix(f["qd"])
        Minv = M.inv().applyfunc(sympy.factor)
        momentum = M * rates + g
        rep = {P[k]: momentum[k] for k in range(len(P))}
        rep.update({Y[i, j]: Minv[i, j] for i in range(Y.shape[0]) for j in range(i, Y.shape[0])})
        plain = f["plain"]
        # d' = dH/dp must give back the rates (the Legendre transform is consistent)
        back = (f["qdot"].xreplace(rep) - rates).applyfunc(_expand_rational)
        if not back.is_zero_matrix:
            raise AssertionError(f"dH/dp at p = M q' + g is not q': {back}")
        pdot = f["pdot"].xreplace(rep)
        # p' = -dH/dq with p = p(q, q', t): d/dt p - (-dH/dq) = 0
        counter = DerivativeCount()
        residual = counter.dt(momentum) - pdot
        return residual.xreplace(plain).applyfunc(_expand_rational)

    def matrices(self) -> dict:
        """The equations split into the terms of docs/theory.md section 1.

        Returns
        -------
        dict of sympy.Matrix
            ``M``, ``C``, ``K`` (elastic), ``K_eps``, ``K_om`` (nq x nq) and ``q_a``,
            ``q_eps``, ``q_om`` (nq x 1), so that ``equations`` =
            M q'' + C q' + (K + K_eps + K_om) q + q_a + q_eps + q_om.
        """
        R = self.equations
        state0 = {s: 0 for s in (*self.coordinates, *self.rates, *self.accelerations)}
        Mm = R.jacobian(self.accelerations)
        C = R.jacobian(self.rates)
        Kall = R.jacobian(self.coordinates)
        K = Kall.xreplace({omega: 0, eps: 0})
        Keps = Kall.diff(eps)
        Kom = (Kall - K - eps * Keps).applyfunc(sympy.expand)
        q0 = R.xreplace(state0)
        qa = (a_x * q0.diff(a_x) + a_y * q0.diff(a_y)).applyfunc(sympy.expand)
        qe = (eps * q0.diff(eps)).applyfunc(sympy.expand)
        qo = (q0 - qa - qe).applyfunc(sympy.expand)
        return {"M": Mm, "C": C, "K": K, "K_eps": eps * Keps, "K_om": Kom,
                "q_a": qa, "q_eps": qe, "q_om": qo}


def _expand_rational(e):
    """Expand; if a denominator is more than a monomial (the inverse of a projected
    mass matrix), also cancel, so that identical equations expand to identical
    polynomials."""
    e = sympy.expand(e)

    def monomial(d):
        return all(f.is_number or f.is_Symbol or (f.is_Pow and f.base.is_Symbol)
                   for f in sympy.Mul.make_args(d))

    if all(monomial(sympy.denom(term)) for term in sympy.Add.make_args(e)):
        return e
    return sympy.expand(sympy.cancel(e))


def _count_ops(mat):
    return int(sum(sympy.count_ops(e) for e in mat))


def _constraint_matrix(name, G):
    """G as a SymPy matrix of finite real numbers, else an error naming the argument:
    TypeError for symbols, strings, bools or complex values, ValueError for NaN, infinite
    values or a G that is not 2-D."""
    if isinstance(G, sympy.MatrixBase):
        rows, cols, entries = G.shape[0], G.shape[1], list(G)
    else:
        try:
            a = np.asarray(G, dtype=object)
        except ValueError as exc:  # ragged rows
            raise ValueError(f"{name} must be a 2-D array of numbers, got {G!r} ({exc})") from None
        if a.ndim != 2:
            raise ValueError(f"{name} must be a 2-D array of numbers (one row per constraint), "
                             f"got shape {a.shape}")
        rows, cols, entries = a.shape[0], a.shape[1], list(a.ravel())
    for k, e in enumerate(entries):
        where = f"{name}[{k // max(cols, 1)}, {k % max(cols, 1)}] = {e!r}"
        if isinstance(e, sympy.Basic):
            if not e.is_number or e.is_extended_real is False or e.has(sympy.I):
                raise TypeError(f"{where} is not a real number")
            if not e.is_finite:
                raise ValueError(f"{where} is not finite")
        elif isinstance(e, numbers.Real) and not isinstance(e, (bool, np.bool_)):
            if not math.isfinite(e):
                raise ValueError(f"{where} is not finite")
        else:
            raise TypeError(f"{where} is not a real number")
    return sympy.Matrix(rows, cols, entries)


def null_space_basis(G):
    """An exact basis B of the null space of a constraint matrix (G B = 0), columns as
    SymPy's ``nullspace`` gives them: a selection of columns of the identity when G
    only fixes DOFs (supports).

    Parameters
    ----------
    G : array_like or sympy.Matrix, shape (n_constraints, ndof)
        Rows of linear constraints G d = 0 on the nodal DOFs; rationals are kept exact.

    Returns
    -------
    sympy.Matrix, shape (ndof, ndof - rank G)

    Raises
    ------
    ValueError, TypeError
        G not a 2-D array of finite real numbers, or fixing every DOF.
    """
    G = _constraint_matrix("G", G).applyfunc(sympy.nsimplify)
    cols = G.nullspace()
    if not cols:
        raise ValueError(f"constraints: G (shape {G.shape}) fixes every DOF, nothing can move")
    return sympy.Matrix.hstack(*cols)


def support_constraints(n_elements, supports="pinned-pinned"):
    """Constraint rows G (one per fixed DOF) of a :class:`kanefem.PlanarBeam` support
    specification, as a SymPy matrix.

    Parameters
    ----------
    n_elements : int
    supports : str or dict
        As in :meth:`kanefem.FlexibleBody.support_mask` (e.g. ``"pinned-pinned"``).
    """
    from .bodies import PlanarBeam

    n_elements = _checks.integer("n_elements", n_elements, minimum=1, maximum=MAX_ELEMENTS)
    mask = PlanarBeam(1.0, n_elements, E=1.0, A=1.0, I=1.0, rho=1.0).support_mask(supports)
    rows = np.flatnonzero(mask)
    G = sympy.zeros(len(rows), mask.size)
    for i, k in enumerate(rows):
        G[i, k] = 1
    return G


def derive(method, n_elements=1, route="element", constraints=None, measure_sizes=False):
    """Derive the equations of motion of n planar beam elements by one method.

    Parameters
    ----------
    method : {"kane", "gibbs-appell", "lagrange", "hamilton", "maggi"}
    n_elements : int
        Equal elements of length ``l`` from ``x0`` on the frame's x axis, 1 to
        ``MAX_ELEMENTS`` (100).
    route : {"element", "monolithic"}
        ``"element"``: each element differentiated with respect to its own coordinates,
        then assembled; ``"monolithic"``: the body's energies and velocity fields
        differentiated with respect to every coordinate.
    constraints : array_like or sympy.Matrix, shape (k, ndof), optional
        Linear constraints G d = 0 on the nodal DOFs.  Maggi derives in all DOFs and
        projects with a null-space basis B (d = B z); the other methods derive directly
        in the independent coordinates z.  Without constraints Maggi's projection is the
        identity and it coincides with Lagrange.
    measure_sizes : bool
        Also sum ``count_ops`` of the expressions differentiated (slower; excluded from
        the time).

    Returns
    -------
    Derivation

    Raises
    ------
    ValueError
        Unknown method or route, n_elements < 1, constraints of the wrong width,
        fixing every DOF, or not finite.
    TypeError
        Constraints that are not real numbers (strings, symbols, bools, complex).
    """
    _checks.choice("method", method, METHODS)
    _checks.choice("route", route, ROUTES)
    n_elements = _checks.integer("n_elements", n_elements, minimum=1, maximum=MAX_ELEMENTS)
    measure_sizes = _checks.flag("measure_sizes", measure_sizes)
    ndof = 3 * (n_elements + 1)
    basis = None
    if constraints is not None:
        G = _constraint_matrix("constraints", constraints)
        if G.shape[1] != ndof:
            raise ValueError(
                f"constraints must have {ndof} columns (the DOFs of {n_elements} elements), "
                f"got shape {G.shape}"
            )
        basis = null_space_basis(G)
    counter = DerivativeCount(measure_sizes=measure_sizes)
    t0 = time.perf_counter()
    # Maggi derives Lagrange's expressions in all DOFs, then projects
    model = _Model(n_elements, None if method == "maggi" else basis, counter)
    syms = _state_symbols(model.names)
    plain = _plain_map(model, syms)
    canonical = function_form = None
    if method == "kane":
        raw = _kane(model, route).xreplace(plain)
    elif method == "gibbs-appell":
        raw = _gibbs_appell(model, route).xreplace(plain)
    elif method in ("lagrange", "maggi"):
        raw = _lagrange(model, route).xreplace(plain)
    else:
        h = _hamilton(model, route)
        raw = sympy.Matrix.vstack(h["qdot"], h["pdot"]).xreplace(plain)
        canonical = {
            "qdot": h["qdot"].xreplace(plain), "pdot": h["pdot"].xreplace(plain),
            "p": h["P"], "Y": h["Y"], "M": h["M"].xreplace(plain), "g": h["g"].xreplace(plain),
        }
        function_form = dict(h, qd=model.qd, plain=plain)
    coords, rates, accs = syms
    if method == "maggi":
        raw, coords, rates, accs = _project(raw, syms, basis)
    seconds = time.perf_counter() - t0 - counter.overhead_seconds
    cost = Cost(
        derivatives=counter.total,
        by_kind=dict(counter.by_kind),
        matrix_ops=counter.matrix_ops,
        ops=_count_ops(raw),
        differentiated_ops=counter.differentiated_ops,
        seconds=seconds,
    )
    return Derivation(method, route, n_elements, coords, rates, accs, basis, raw, cost,
                      canonical, function_form)


def _project(raw, syms, basis):
    """Maggi: B^T R(B z, B z', B z'') for the null-space basis B."""
    q, q_t, q_tt = syms
    if basis is None:
        return raw, q, q_t, q_tt
    z, z_t, z_tt = _state_symbols([f"z{k}" for k in range(basis.shape[1])])
    rep = {}
    for full, red in ((q, z), (q_t, z_t), (q_tt, z_tt)):
        image = basis * red
        rep.update({full[k]: image[k] for k in range(len(full))})
    return basis.T * raw.xreplace(rep), z, z_t, z_tt


def difference(a, b) -> sympy.Matrix:
    """``a.equations - b.equations``, expanded: the zero matrix when two derivations
    give identical equations (same coordinates required)."""
    for name, d in (("a", a), ("b", b)):
        if not isinstance(d, Derivation):
            raise TypeError(f"{name} must be a Derivation (from derive), got {type(d).__name__}")
    if list(a.coordinates) != list(b.coordinates):
        raise ValueError(
            f"the derivations use different coordinates ({list(a.coordinates)[:3]}... vs "
            f"{list(b.coordinates)[:3]}...); derive both with the same constraints"
        )
    return (a.equations - b.equations).applyfunc(sympy.expand)


# ---------------------------------------------------------------- against the C core


def compare_with_core(derivation, seed=0):
    """Evaluate a derivation's matrices at random parameters and motion and compare them
    with the C core's (``PlanarBeam.mass_matrix``, ``stiffness_matrix``,
    ``motion_terms``), projected with the derivation's basis when it has one.

    Parameters
    ----------
    derivation : Derivation
    seed : int
        Seed of the random parameters: length, section, origin, omega, eps, a_O.

    Returns
    -------
    dict
        For each term (``M``, ``C``, ``K``, ``K_eps``, ``K_om``, ``q_a``, ``q_eps``,
        ``q_om``) the largest absolute difference divided by the largest entry of the
        core's M, C, K, ... for that term (relative to its scale), and ``"values"``,
        the random values used.
    """
    from .bodies import PlanarBeam

    if not isinstance(derivation, Derivation):
        raise TypeError(f"derivation must be a Derivation (from derive), got {type(derivation).__name__}")
    rng = np.random.default_rng(_checks.integer("seed", seed, minimum=0, maximum=2**128))
    n = derivation.n_elements
    E, A, I, rho = (float(v) for v in rng.uniform([1e10, 1e-4, 1e-9, 2e3], [3e11, 1e-3, 1e-7, 9e3]))
    length = float(rng.uniform(0.3, 2.0))
    origin = float(rng.uniform(-0.5, 0.5))
    om, ep = (float(v) for v in rng.uniform(-20, 20, 2))
    aO = rng.uniform(-50, 50, 2)
    values = {m: rho * A, l: length / n, x0: origin, EA: E * A, EI: E * I,
              omega: om, eps: ep, a_x: float(aO[0]), a_y: float(aO[1])}
    body = PlanarBeam(length, n, E=E, A=A, I=I, rho=rho, origin=origin)
    t_ = body.motion_terms(om, ep, aO)
    core = {"M": body.mass_matrix(), "C": t_.C, "K": body.stiffness_matrix(),
            "K_eps": t_.K_eps, "K_om": t_.K_om, "q_a": t_.q_a, "q_eps": t_.q_eps,
            "q_om": t_.q_om}
    B = None if derivation.basis is None else np.array(derivation.basis, dtype=float)
    out = {}
    for name, sym in derivation.matrices().items():
        got = np.array(sym.xreplace(values).evalf(), dtype=float)
        want = core[name]
        if B is not None:
            want = B.T @ want @ B if want.ndim == 2 else B.T @ want
        want = want.reshape(got.shape)
        scale = np.abs(want).max()
        out[name] = float(np.abs(got - want).max() / scale) if scale > 0 else float(np.abs(got).max())
    out["values"] = {str(k): float(v) for k, v in values.items()}
    return out


# ---------------------------------------------------------------- measuring the costs


@dataclass(frozen=True)
class CostRow:
    """One measured derivation (see :func:`measure_costs`)."""

    method: str
    route: str
    n_elements: int
    derivatives: int
    matrix_ops: int
    ops: int
    differentiated_ops: int
    seconds: float
    by_kind: dict
    paper: int | None
    status: str = "ok"


def measure_costs(
    n_elements=(5, 10, 15, 20, 25, 30, 40),
    methods=METHODS,
    routes=("element",),
    max_seconds=120.0,
    monolithic_max_n=10,
    measure_sizes=True,
    maggi_supports="pinned-pinned",
    progress=None,
    done=None,
):
    """Derive the equations for each (method, route, n) and record what it cost.

    Parameters
    ----------
    n_elements : sequence of int
        Body sizes (the papers' Table 1 uses 5, 10, 15, 20, 25, 30, 40).
    methods : sequence of str
    routes : sequence of {"element", "monolithic"}
    max_seconds : float
        (> 0) Once a derivation of a (method, route) takes longer than this [s], the larger
        sizes of that (method, route) are not run (rows with status ``"skipped"``).
    monolithic_max_n : int
        The monolithic route is run only up to this size.
    measure_sizes : bool
        Record ``differentiated_ops`` (see :class:`DerivativeCount`).
    maggi_supports : str
        Maggi projects onto the null space of these supports (the lever BC' is
        pinned-pinned); the other methods are unconstrained.
    progress : callable, optional
        Called with each :class:`CostRow` as it is measured.
    done : dict, optional
        Rows measured before, {(method, route, n_elements): CostRow} (e.g. from
        :func:`read_cost_csv`): returned as they are, not measured again, so that an
        interrupted sweep resumes where it stopped.

    Returns
    -------
    list of CostRow
        ``paper`` is the seed's Table 1 figure for that method and size, or None.

    Notes
    -----
    SymPy's cache is cleared before each derivation, so that no derivation profits
    from the expressions of an earlier one and the times do not depend on the order.
    """
    max_seconds = _checks.real("max_seconds", max_seconds, positive=True)
    methods = [_checks.choice("methods", mth, METHODS) for mth in _checks.sequence("methods", methods)]
    routes = [_checks.choice("routes", r, ROUTES) for r in _checks.sequence("routes", routes)]
    sizes = [_checks.integer("n_elements", n, minimum=1, maximum=MAX_ELEMENTS)
             for n in _checks.sequence("n_elements", n_elements)]
    monolithic_max_n = _checks.integer("monolithic_max_n", monolithic_max_n, minimum=0, maximum=MAX_ELEMENTS)
    measure_sizes = _checks.flag("measure_sizes", measure_sizes)
    if progress is not None:
        _checks.callable_("progress", progress)
    if done is not None and not isinstance(done, dict):
        raise TypeError(f"done must be a dict {{(method, route, n_elements): CostRow}}, got {done!r}")
    rows = []
    for route in routes:
        for mth in methods:
            over = None
            for n in sizes:
                paper = PAPER_TABLE1.get(n, {}).get(mth)
                old = (done or {}).get((mth, route, n))
                if old is not None and old.status == "ok":
                    rows.append(old)
                    if old.seconds > max_seconds:
                        over = f"skipped: n = {n} took {old.seconds:.0f} s > max_seconds"
                    continue
                if over is not None or (route == "monolithic" and n > monolithic_max_n):
                    why = over or f"skipped: monolithic route run up to n = {monolithic_max_n}"
                    row = CostRow(mth, route, n, 0, 0, 0, 0, math.nan, {}, paper, why)
                else:
                    G = support_constraints(n, maggi_supports) if mth == "maggi" else None
                    sympy.core.cache.clear_cache()
                    d = derive(mth, n, route, constraints=G, measure_sizes=measure_sizes)
                    c = d.cost
                    row = CostRow(mth, route, n, c.derivatives, c.matrix_ops, c.ops,
                                  c.differentiated_ops, c.seconds, c.by_kind, paper)
                    if c.seconds > max_seconds:
                        over = f"skipped: n = {n} took {c.seconds:.0f} s > max_seconds"
                rows.append(row)
                if progress is not None:
                    progress(row)
    return rows


_CSV_FIELDS = ("method", "route", "n_elements", "derivatives", "matrix_ops", "ops",
               "differentiated_ops", "seconds", "paper", "status")


def write_cost_csv(rows, path):
    """Write cost rows to a CSV file (atomically: a sweep interrupted while writing
    leaves the previous file)."""
    from ._io import atomic_write

    path = _checks.path("path", path)
    rows = _checks.sequence("rows", rows)
    if not all(isinstance(r, CostRow) for r in rows):
        raise TypeError("rows must be CostRow objects (from measure_costs)")

    def write(f):
        import csv

        w = csv.writer(f)
        w.writerow(_CSV_FIELDS + KINDS)
        for r in rows:
            w.writerow([r.method, r.route, r.n_elements, r.derivatives, r.matrix_ops, r.ops,
                        r.differentiated_ops, repr(r.seconds), "" if r.paper is None else r.paper,
                        r.status] + [r.by_kind.get(k, "") for k in KINDS])

    return atomic_write(path, write, newline="")


def read_cost_csv(path):
    """Rows written by :func:`write_cost_csv`, as {(method, route, n): CostRow}."""
    import csv

    path = _checks.path("path", path)
    out = {}
    with open(path, newline="") as f:
        for line, rec in enumerate(csv.DictReader(f), start=2):
            try:
                by_kind = {k: int(rec[k]) for k in KINDS if rec.get(k, "") != ""}
                row = CostRow(rec["method"], rec["route"], int(rec["n_elements"]),
                              int(rec["derivatives"]), int(rec["matrix_ops"]), int(rec["ops"]),
                              int(rec["differentiated_ops"]), float(rec["seconds"]), by_kind,
                              int(rec["paper"]) if rec["paper"] else None, rec["status"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"path {str(path)!r}, line {line}: not a cost row of "
                                 f"write_cost_csv ({type(exc).__name__}: {exc})") from None
            out[(row.method, row.route, row.n_elements)] = row
    return out


def format_cost_table(rows, route="element"):
    """The measured derivative counts beside the papers' Table 1, as text.

    One line per size: for Lagrange, Gibbs-Appell and Kane the measured scalar
    derivatives, the matrix-level count and the paper's figure; then Hamilton and
    Maggi measured; then the time [s] of each.
    """
    rows = _checks.sequence("rows", rows)
    if not all(isinstance(r, CostRow) for r in rows):
        raise TypeError("rows must be CostRow objects (from measure_costs or read_cost_csv)")
    _checks.choice("route", route, ROUTES)
    by = {(r.method, r.n_elements): r for r in rows if r.route == route}
    sizes = sorted({r.n_elements for r in rows if r.route == route})
    head = f"{'n':>3} |" + "|".join(
        f" {name:^23} " for name in ("Lagrange", "Gibbs-Appell", "Kane")
    ) + f"| {'Hamilton':^13} | {'Maggi':^13} | {'time [s] L / GA / K / H / M':^30}"
    sub = f"{'':>3} |" + "|".join(f" {'scalar matrix paper':^23} " for _ in range(3)) + \
        f"| {'scalar matrix':^13} | {'scalar matrix':^13} |"
    lines = [f"route: {route}", head, sub, "-" * len(head)]

    def cell(mth, with_paper):
        r = by.get((mth, n))
        if r is None or r.status != "ok":
            s = f"{'-':>6} {'-':>6}"
        else:
            s = f"{r.derivatives:>6} {r.matrix_ops:>6}"
        if with_paper:
            p = PAPER_TABLE1.get(n, {}).get(mth)
            s += f" {p if p is not None else '-':>9}"
        return s

    for n in sizes:
        if not any(r.status == "ok" for (mth, k), r in by.items() if k == n):
            continue
        times = []
        for mth in ("lagrange", "gibbs-appell", "kane", "hamilton", "maggi"):
            r = by.get((mth, n))
            times.append("-" if r is None or r.status != "ok" else f"{r.seconds:.2f}")
        lines.append(
            f"{n:>3} | " + " | ".join(cell(mth, True) for mth in ("lagrange", "gibbs-appell", "kane"))
            + f" | {cell('hamilton', False):>13} | {cell('maggi', False):>13} | "
            + " / ".join(times)
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- one spatial element (issue 9)
#
# Seed 004's route for a three-dimensional element in general motion: one Beam3D element
# on the frame's x axis from (x0, y0, z0), section axes along the body's y and z, a frame
# turning with omega(t) = (Omega_x, Omega_y, Omega_z)(t) and an origin moving with v_O(t)
# (both in body axes).  The section is integrated exactly through its moments: a point
# (y, z) of the section displaces by the centroid's displacement plus the torsional
# rotation, (u, v - z theta_x, w + y theta_x), and lies at (x0 + xi l, y0 + y, z0 + z);
# int dA = A, int y^2 dA = Izz, int z^2 dA = Iyy, int y = int z = int yz = 0.  The C core
# integrates the same field with four section points (docs/theory.md section 2.8); here
# the moments are used directly, an independent route.

sy, sz = sympy.symbols("y_s z_s")  # section coordinates
A_s, Izz_s, Iyy_s, EIzz, EIyy, GJ = sympy.symbols("A I_zz I_yy EI_zz EI_yy GJ")
y0, z0 = sympy.symbols("y0 z0")
rho_s = sympy.Symbol("rho")
#: body-axes rates and origin motion of the spatial derivation (plain symbols)
omega3 = sympy.symbols("omega_x omega_y omega_z")
eps3 = sympy.symbols("epsilon_x epsilon_y epsilon_z")
a3 = sympy.symbols("a_x a_y a_z")
v3 = sympy.symbols("v_x v_y v_z")
_omega3_t = [sympy.Function(f"Omega_{c}")(t) for c in "xyz"]
_v3_t = [sympy.Function(f"V_{c}")(t) for c in "xyz"]
SPATIAL_METHODS = ("kane", "gibbs-appell")
_SECTION_MOMENTS = {(0, 0): A_s, (1, 0): 0, (0, 1): 0, (1, 1): 0, (2, 0): Izz_s, (0, 2): Iyy_s}


def _shape3(length):
    """N (3 x 12) of a Beam3D element at section point (y_s, z_s); DOFs node-major
    (u, v, w, theta_x, theta_y, theta_z), the C core's."""
    H = [1 - 3 * xi**2 + 2 * xi**3, length * (xi - 2 * xi**2 + xi**3), 3 * xi**2 - 2 * xi**3,
         length * (xi**3 - xi**2)]
    N = sympy.zeros(3, 12)
    for n, lin in enumerate((1 - xi, xi)):
        c = 6 * n
        N[0, c] = lin                                 # u
        N[1, c + 1], N[1, c + 5] = H[2 * n], H[2 * n + 1]   # v, theta_z = v'
        N[2, c + 2], N[2, c + 4] = H[2 * n], -H[2 * n + 1]  # w, theta_y = -w'
        N[1, c + 3], N[2, c + 3] = -sz * lin, sy * lin      # torsion turns the section
    return N


def _cross3(w, r):
    return sympy.Matrix([w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2], w[0] * r[1] - w[1] * r[0]])


def _integral_element(f, g):
    """int over the element (length l, section moments) of rho f g, f and g polynomial
    in xi, y_s, z_s (exact)."""
    pf = sympy.Poly(sympy.expand(f), xi, sy, sz).as_dict()
    pg = sympy.Poly(sympy.expand(g), xi, sy, sz).as_dict()
    out = []
    for (i, a, b), cf in pf.items():
        for (j, c, d), cg in pg.items():
            moment = _SECTION_MOMENTS.get((a + c, b + d))
            if moment is None:
                raise ValueError(f"section moment of degree {(a + c, b + d)} is not known")
            if moment != 0:
                out.append(cf * cg * moment / (i + j + 1))
    return rho_s * l * sympy.expand(sympy.Add(*out))


@dataclass
class SpatialDerivation:
    """The equations of one Beam3D element in general spatial motion by one method.

    Attributes
    ----------
    method : str
        ``"kane"`` or ``"gibbs-appell"``.
    coordinates, rates, accelerations : sympy.Matrix
        ``d0..d11`` (node-major (u, v, w, theta_x, theta_y, theta_z)) and the symbols of
        their rates.
    equations : sympy.Matrix
        The left-hand side of M d'' + C d' + (K + K_eps + K_om) d + q_a + q_eps + q_om = 0
        in the symbols of ``omega3``, ``eps3``, ``a3``, the state and the
        section (expanded).
    cost : Cost
    """

    method: str
    coordinates: sympy.Matrix
    rates: sympy.Matrix
    accelerations: sympy.Matrix
    equations: sympy.Matrix
    cost: Cost

    def matrices(self) -> dict:
        """The equations split into M, C, K, K_eps, K_om (12 x 12) and q_a, q_eps, q_om
        (12 x 1), as :meth:`Derivation.matrices` does for the planar element."""
        R = self.equations
        state0 = {s: 0 for s in (*self.coordinates, *self.rates, *self.accelerations)}
        Kall = R.jacobian(self.coordinates)
        rest = {s: 0 for s in (*omega3, *eps3)}
        K = Kall.xreplace(rest)
        Keps = sum((e * Kall.diff(e) for e in eps3), sympy.zeros(12, 12))
        q0 = R.xreplace(state0)
        qa = sum((a * q0.diff(a) for a in a3), sympy.zeros(12, 1))
        qe = sum((e * q0.diff(e) for e in eps3), sympy.zeros(12, 1))
        expand = lambda m: m.applyfunc(sympy.expand)  # noqa: E731
        return {"M": R.jacobian(self.accelerations), "C": R.jacobian(self.rates), "K": K,
                "K_eps": expand(Keps), "K_om": expand(Kall - K - Keps), "q_a": expand(qa),
                "q_eps": expand(qe), "q_om": expand(q0 - qa - qe)}


def derive_spatial(method):
    """Derive the equations of one Beam3D element in general spatial motion, by Kane's
    method or by Gibbs-Appell's (seed 004's route).

    Kane: partial velocities v_r = dv/dd'_r, generalized inertia forces F*_r = -int rho
    v_r . a, elastic forces -dV/dd_r.  Gibbs-Appell: the energy of accelerations S = 1/2
    int rho a . a without its part free of d'' (seed 004's E_a0, which no equation
    sees), S = 1/2 int rho (N d'').(N d'') + int rho (N d'').a_r with a = N d'' + a_r,
    and dS/dd''_r + dV/dd_r.  Here v = v_O + d/dt(r) + omega x r, a = dv/dt + omega x v in
    body axes (the transport theorem), r = x + N d, and V = 1/2 int (EA u'^2 + EI_zz v''^2
    + EI_yy w''^2 + GJ theta_x'^2) ds.

    Parameters
    ----------
    method : {"kane", "gibbs-appell"}

    Returns
    -------
    SpatialDerivation
    """
    _checks.choice("method", method, SPATIAL_METHODS)
    D = DerivativeCount()
    t0 = time.perf_counter()
    names = [f"d{k}" for k in range(12)]
    q = [sympy.Function(s)(t) for s in names]
    qd = [sympy.Derivative(f, t) for f in q]
    qdd = [sympy.Derivative(f, (t, 2)) for f in q]
    N = _shape3(l)
    r = sympy.Matrix([x0 + xi * l, y0 + sy, z0 + sz]) + N * sympy.Matrix(q)
    w = _omega3_t
    v = sympy.Matrix(_v3_t) + D.dt(r) + _cross3(w, r)
    a = D.dt(v) + _cross3(w, v)
    # elastic energy from the generalized strains
    dN = [D.scalar(N[0, k].xreplace({sy: 0, sz: 0}), xi, "d/dxi") for k in range(12)]
    u1 = sum(dN[k] * q[k] for k in range(12)) / l
    vb = sum(N[1, k].xreplace({sy: 0, sz: 0}) * q[k] for k in range(12))
    wc = sum(N[2, k].xreplace({sy: 0, sz: 0}) * q[k] for k in range(12))
    th = sum(((1 - xi) if k == 3 else xi if k == 9 else 0) * q[k] for k in range(12))
    v2 = D.scalar(D.scalar(vb, xi, "d/dxi"), xi, "d/dxi") / l**2
    w2 = D.scalar(D.scalar(wc, xi, "d/dxi"), xi, "d/dxi") / l**2
    t1 = D.scalar(th, xi, "d/dxi") / l

    def line(f):
        p = _xi_powers(f)
        return _integral01(p, p)

    V = l * (EA * line(u1) + EIzz * line(v2) + EIyy * line(w2) + GJ * line(t1)) / 2
    gradV = D.grad(V, q, "d/dq")
    if method == "kane":
        partial = D.jacobian(v, qd, "d/dq'")
        R = [sum(_integral_element(partial[c, k], a[c]) for c in range(3)) + gradV[k]
             for k in range(12)]
    else:
        Nqdd = N * sympy.Matrix(qdd)
        a_rest = (a - Nqdd).applyfunc(sympy.expand)
        S = sum(_integral_element(Nqdd[c], Nqdd[c]) / 2 + _integral_element(Nqdd[c], a_rest[c])
                for c in range(3))
        dS = D.grad(S, qdd, "d/dq''")
        R = [dS[k] + gradV[k] for k in range(12)]
    syms = _state_symbols(names)
    rep = {}
    for k in range(12):
        rep[qdd[k]], rep[qd[k]], rep[q[k]] = syms[2][k], syms[1][k], syms[0][k]
    for c in range(3):
        rep[sympy.Derivative(w[c], t)] = eps3[c]
        rep[w[c]] = omega3[c]
    # dv_O/dt = a_O - omega x v_O (body components of the origin's acceleration)
    wxv = _cross3(omega3, v3)
    for c in range(3):
        rep[sympy.Derivative(_v3_t[c], t)] = a3[c] - wxv[c]
        rep[_v3_t[c]] = v3[c]
    eqs = sympy.Matrix(R).xreplace(rep).applyfunc(sympy.expand)
    seconds = time.perf_counter() - t0
    cost = Cost(derivatives=D.total, by_kind=dict(D.by_kind), matrix_ops=D.matrix_ops,
                ops=_count_ops(eqs), differentiated_ops=0, seconds=seconds)
    return SpatialDerivation(method, *syms, eqs, cost)


def compare_spatial_with_core(derivation, seed=0):
    """Evaluate a spatial derivation's matrices at random section, position and motion
    and compare them with the C core's one-element :class:`kanefem.Beam3D`.

    Returns
    -------
    dict
        For each term (``M``, ``C``, ``K``, ``K_eps``, ``K_om``, ``q_a``, ``q_eps``,
        ``q_om``) the largest absolute difference relative to the largest entry of the
        core's term, and ``"values"``, the random values used.
    """
    from .bodies import Beam3D

    rng = np.random.default_rng(seed)
    E, A, Izz, Iyy, J, rho = (float(x) for x in rng.uniform([1e10, 1e-4, 1e-9, 1e-9, 1e-9, 2e3],
                                                            [3e11, 1e-3, 1e-7, 1e-7, 1e-7, 9e3]))
    nu = float(rng.uniform(0.0, 0.45))
    length = float(rng.uniform(0.3, 2.0))
    X0 = rng.uniform(-0.5, 0.5, 3)
    om, ep, aO = rng.uniform(-20, 20, 3), rng.uniform(-300, 300, 3), rng.uniform(-50, 50, 3)
    values = {rho_s: rho, A_s: A, Izz_s: Izz, Iyy_s: Iyy, l: length, x0: X0[0], y0: X0[1],
              z0: X0[2], EA: E * A, EIzz: E * Izz, EIyy: E * Iyy, GJ: E / (2 * (1 + nu)) * J}
    values.update(zip(omega3, om))
    values.update(zip(eps3, ep))
    values.update(zip(a3, aO))
    nodes = np.array([X0, X0 + [length, 0.0, 0.0]])
    body = Beam3D.from_mesh(nodes, [[0, 1]], E=E, A=A, Izz=Izz, Iyy=Iyy, J=J, rho=rho, nu=nu,
                            ref=(0.0, 1.0, 0.0))
    t_ = body.motion_terms(om, ep, aO)
    core = {"M": body.mass_matrix(), "C": t_.C, "K": body.stiffness_matrix(), "K_eps": t_.K_eps,
            "K_om": t_.K_om, "q_a": t_.q_a, "q_eps": t_.q_eps, "q_om": t_.q_om}
    out = {}
    for name, sym in derivation.matrices().items():
        got = np.array(sym.xreplace(values).evalf(), dtype=float).reshape(core[name].shape)
        scale = np.abs(core[name]).max()
        out[name] = float(np.abs(got - core[name]).max() / scale)
    out["values"] = {str(k): float(v) for k, v in values.items()}
    return out
