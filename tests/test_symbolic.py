"""The five formalisms in SymPy (kanefem.symbolic): identical equations, equal to the C
core's matrices, and honestly counted derivatives.  Skipped without SymPy (the optional
extra ``symbolic``; the ``test`` extra installs it, so CI runs these)."""

import itertools
import sys

import pytest

sympy = pytest.importorskip(
    "sympy", reason="SymPy is kanefem's optional extra 'symbolic' (pip install 'kanefem[symbolic]')"
)

from kanefem import symbolic  # noqa: E402

METHODS = symbolic.METHODS
_CACHE = {}


def derived(method, n=1, route="element", constraints=None, key=None):
    """Derivations are slow-ish (0.2-1.5 s): each is made once per test session."""
    k = (method, n, route, key)
    if k not in _CACHE:
        _CACHE[k] = symbolic.derive(method, n, route, constraints=constraints)
    return _CACHE[k]


def tie_and_slope(n):
    """u_0 = u_N (the ends tied axially), v_0 = 0, and v_1 = theta_1 (constraints
    that are not supports): 3 exact rows."""
    ndof = 3 * (n + 1)
    G = sympy.zeros(3, ndof)
    G[0, 0], G[0, ndof - 3] = 1, -1
    G[1, 1] = 1
    G[2, 4], G[2, 5] = 1, -1
    return G


# ---------------------------------------------------------------- counting (first: the
# derivations it makes are reused below)


def test_every_derivative_goes_through_the_counter(monkeypatch):
    """A spy on sympy.diff counts the calls independently, and any differentiation made
    from kanefem.symbolic other than through sympy.diff is caught."""
    calls, bypass = [0], []
    real = sympy.diff

    def spy(*args, **kw):
        calls[0] += 1
        return real(*args, **kw)

    def guard(cls, name):
        orig = getattr(cls, name)

        def wrapped(self, *args, **kw):
            if sys._getframe(1).f_globals.get("__name__") == symbolic.__name__:
                bypass.append((cls.__name__, name))
            return orig(self, *args, **kw)

        monkeypatch.setattr(cls, name, wrapped)

    monkeypatch.setattr(sympy, "diff", spy)
    for cls, name in ((sympy.Expr, "diff"), (sympy.MatrixBase, "diff"), (sympy.MatrixBase, "jacobian")):
        guard(cls, name)
    for method, route in itertools.product(METHODS, ("element", "monolithic")):
        if route == "monolithic" and method in ("lagrange", "maggi"):
            continue  # the element route's code, with the body's L as the one part
        calls[0] = 0
        d = symbolic.derive(method, 1, route)
        assert calls[0] == d.cost.derivatives, (method, route)
        assert not bypass, (method, route, bypass)
        _CACHE.setdefault((method, 1, route, None), d)  # the other tests reuse them


# ---------------------------------------------------------------- identical equations


@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_the_five_methods_give_identical_equations(n):
    ref = derived("kane", n)
    # unconstrained, Maggi's projection is the identity: its n = 2 case is Lagrange's
    for method in METHODS[1:] if n == 1 else METHODS[1:-1]:
        diff = symbolic.difference(ref, derived(method, n))
        assert diff.is_zero_matrix, (method, diff)


@pytest.mark.parametrize("method, n", [("kane", 2), ("gibbs-appell", 1)])
def test_element_and_monolithic_routes_agree(method, n):
    # (Lagrange's and Maggi's routes share their code but for the parts differentiated;
    # Hamilton's routes are compared below; n = 1 still runs the monolithic code)
    a, b = derived(method, n, "element"), derived(method, n, "monolithic")
    assert symbolic.difference(a, b).is_zero_matrix


def test_hamilton_chain_rule_equals_differentiating_H():
    """Route "element" applies the chain rule to H = 1/2 w^T Y w - L0 by hand, route
    "monolithic" lets SymPy differentiate H: the canonical equations are the same
    polynomials in q, p and the entries Y of M^-1."""
    a, b = derived("hamilton", 1, "element"), derived("hamilton", 1, "monolithic")
    assert symbolic.difference(a, b).is_zero_matrix
    for key in ("qdot", "pdot"):
        diff = (a.canonical[key] - b.canonical[key]).applyfunc(sympy.expand)
        assert diff.is_zero_matrix, key
    # first order: d' = dH/dp involves the momenta, and no rate or acceleration
    q_t, q_tt = set(a.rates), set(a.accelerations)
    rhs = a.canonical["qdot"].free_symbols | a.canonical["pdot"].free_symbols
    assert not rhs & (q_t | q_tt)
    assert set(a.canonical["p"]) <= rhs


def test_equations_depend_on_the_origin_acceleration_only():
    """The origin's velocity enters T and v; after d/dt only a_O = v_O' + omega x v_O
    remains (a check that the time derivatives are honest)."""
    for method in METHODS:
        free = set().union(*(e.free_symbols for e in derived(method).equations))
        assert not free & {symbolic.v_x, symbolic.v_y}, method
        assert {symbolic.a_x, symbolic.a_y, symbolic.omega, symbolic.eps} <= free, method


# ---------------------------------------------------------------- against the C core


@pytest.mark.parametrize("method", METHODS)
def test_equal_to_the_c_core_one_element(method):
    err = symbolic.compare_with_core(derived(method), seed=11)
    # exact symbolic integrals vs Gauss quadrature (exact for these degrees) and the
    # core's sums: round-off, relative to each term's largest entry
    for term in ("M", "C", "K", "K_eps", "K_om", "q_a", "q_eps", "q_om"):
        assert err[term] < 1e-13, (term, err[term])


def test_equal_to_the_c_core_two_elements_random_values():
    for seed in (1, 2, 3):
        err = symbolic.compare_with_core(derived("kane", 2), seed=seed)
        assert max(v for k, v in err.items() if k != "values") < 1e-13


def test_matrices_have_the_spec_structure():
    mats = derived("lagrange").matrices()
    M, C, Keps, Kom = mats["M"], mats["C"], mats["K_eps"], mats["K_om"]
    assert (M - M.T).is_zero_matrix
    assert (C + C.T).applyfunc(sympy.expand).is_zero_matrix  # gyroscopic: skew
    assert (Keps + Keps.T).applyfunc(sympy.expand).is_zero_matrix
    assert (Kom + symbolic.omega**2 * M).applyfunc(sympy.expand).is_zero_matrix  # planar: -omega^2 M
    # docs/theory.md section 2: S_yx(v1, u1) = 7/20 m l, so C(v1, u1) = 2 omega (S_yx - S_xy) = 7/10 m l omega
    assert sympy.simplify(C[1, 0] - sympy.Rational(7, 10) * symbolic.m * symbolic.l * symbolic.omega) == 0


# ---------------------------------------------------------------- Maggi's projection


def test_maggi_with_supports_is_deletion_and_equals_kane_in_independent_coordinates():
    G = symbolic.support_constraints(2, "pinned-pinned")
    maggi = derived("maggi", 2, constraints=G, key="pp")
    kane = derived("kane", 2, constraints=G, key="pp")
    assert symbolic.difference(maggi, kane).is_zero_matrix
    # supports: the basis selects the free DOFs, so Maggi = the unconstrained
    # equations with the fixed DOFs set to zero and their rows deleted
    free = [k for k in range(9) if k not in (0, 1, 6, 7)]
    assert maggi.basis == sympy.eye(9)[:, free]
    full = derived("lagrange", 2)
    zero = {s: 0 for k in (0, 1, 6, 7)
            for s in (full.coordinates[k], full.rates[k], full.accelerations[k])}
    rename = {}
    for j, k in enumerate(free):
        for a, b in ((full.coordinates, maggi.coordinates), (full.rates, maggi.rates),
                     (full.accelerations, maggi.accelerations)):
            rename[a[k]] = b[j]
    deleted = full.equations.extract(free, [0]).xreplace(zero).xreplace(rename)
    assert (deleted - maggi.equations).applyfunc(sympy.expand).is_zero_matrix
    err = symbolic.compare_with_core(maggi, seed=5)
    assert max(v for k, v in err.items() if k != "values") < 1e-13


def test_maggi_with_general_constraints_equals_every_method_in_z():
    G = tie_and_slope(1)
    maggi = derived("maggi", 1, constraints=G, key="tie")
    assert maggi.basis.shape == (6, 3)
    assert (G * maggi.basis).is_zero_matrix
    # Kane in the independent coordinates z (partial velocities with respect to z'),
    # and Hamilton with the projected mass matrix B^T M B and its inverse
    for method in ("kane", "hamilton"):
        other = derived(method, 1, constraints=G, key="tie")
        assert symbolic.difference(maggi, other).is_zero_matrix, method
    # and the projection of the C core's matrices with the same basis
    err = symbolic.compare_with_core(maggi, seed=8)
    assert max(v for k, v in err.items() if k != "values") < 1e-13


# ---------------------------------------------------------------- counting


def test_counts_per_element():
    """Per element (6 coordinates, 2 velocity components), counted by hand:
    velocity d/dt(x + N d): 2; strains: du/dxi, d2v/dxi2: 3;
    Kane: partial velocities 2 x 6, acceleration 2, dV/dq 6        -> 25
    Gibbs-Appell: acceleration 2, dS/dq'' 6, dV/dq 6                -> 19
    Lagrange: dL/dq' 6, d/dt of them 6, dL/dq 6                     -> 23
    and the element route's counts grow exactly linearly."""
    want = {"kane": 25, "gibbs-appell": 19, "lagrange": 23}
    for method, per in want.items():
        assert derived(method, 1).cost.derivatives == per
        assert derived(method, 2).cost.derivatives == 2 * per
    assert derived("kane").cost.by_kind == {"d/dt": 4, "d/dq": 6, "d/dq'": 12, "d/dq''": 0,
                                            "d/dp": 0, "d/dxi": 3}
    # Maggi derives Lagrange's expressions and projects: the same derivatives
    assert derived("maggi", 1, constraints=tie_and_slope(1), key="tie").cost.derivatives == 23


def test_measure_costs_rows_and_table():
    rows = symbolic.measure_costs(n_elements=(1,), methods=("kane",), measure_sizes=False)
    assert [(r.n_elements, r.derivatives, r.status) for r in rows] == [(1, 25, "ok")]
    assert all(r.paper is None and r.seconds > 0 and r.ops > 0 for r in rows)
    # a budget of 1e-9 s: the first size runs, the rest are reported as skipped
    rows = symbolic.measure_costs(n_elements=(1, 2), methods=("kane",), max_seconds=1e-9,
                                  measure_sizes=False)
    assert rows[0].status == "ok" and rows[1].status.startswith("skipped")
    text = symbolic.format_cost_table(rows)
    assert "Lagrange" in text and "Kane" in text


def test_paper_table_is_as_printed():
    # seed 000 Table 1: 48 (n + 1), 20 (n + 1), 2 n for n = 5..40
    for n, row in symbolic.PAPER_TABLE1.items():
        assert row == {"lagrange": 48 * (n + 1), "gibbs-appell": 20 * (n + 1), "kane": 2 * n}


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(method="newton"), ValueError, "method"),
        (dict(method="kane", route="global"), ValueError, "route"),
        (dict(method="kane", n_elements=0), ValueError, "n_elements"),
        (dict(method="kane", n_elements=1.5), TypeError, "n_elements"),
        (dict(method="kane", constraints=[[1, 0, 0]]), ValueError, "constraints must have 6 columns"),
        (dict(method="maggi", constraints=sympy.eye(6)), ValueError, "constraints.*fixes every DOF"),
    ],
)
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        symbolic.derive(**kwargs)


def test_difference_needs_the_same_coordinates():
    with pytest.raises(ValueError, match="coordinates"):
        symbolic.difference(derived("kane", 2), derived("kane", 1))


# ---------------------------------------------------------------- one spatial element (issue 9)


def spatial(method):
    """~10 s each: made once per session."""
    k = ("spatial", method)
    if k not in _CACHE:
        _CACHE[k] = symbolic.derive_spatial(method)
    return _CACHE[k]


def test_spatial_element_kane_equals_gibbs_appell_exactly():
    """Seed 004's route for a 3D element in general motion: Kane's partial velocities and
    Gibbs-Appell's energy of accelerations give identical polynomials."""
    kane, ga = spatial("kane"), spatial("gibbs-appell")
    assert (kane.equations - ga.equations).applyfunc(sympy.expand).is_zero_matrix
    # Gibbs-Appell differentiates less: no partial velocities (12 x 3 derivatives)
    assert ga.cost.derivatives < kane.cost.derivatives


@pytest.mark.parametrize("method", symbolic.SPATIAL_METHODS)
def test_spatial_element_equals_the_core(method):
    """Every term of the symbolic equations at random section, position and spatial motion
    equals the C core's one-element Beam3D (section points vs exact section moments, Gauss
    vs exact line integrals): round-off, measured below 1e-15."""
    out = symbolic.compare_spatial_with_core(spatial(method), seed=3)
    for name in ("M", "C", "K", "K_eps", "K_om", "q_a", "q_eps", "q_om"):
        assert out[name] < 1e-13, (name, out[name])
