"""Kane's generalized inertia forces by direct quadrature of (R N)^T a in the C core,
against the invariant route M d'' + C d' + (K_eps + K_om) d + q_a + q_eps + q_om
(docs/theory.md sections 1 and 6)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanefem

E, A, I, RHO = 2.1e11, 3e-4, 2.5e-9, 7850.0


def term_scale(body, d, d_t, d_tt, omega, eps, a_O):
    """The largest single contribution to F*: the round-off of a sum is relative to it,
    not to the (possibly cancelling) sum."""
    t = body.motion_terms(omega, eps, a_O)
    parts = [body.mass_matrix() @ d_tt, t.C @ d_t, t.K_eps @ d, t.K_om @ d, t.q_a, t.q_eps, t.q_om]
    return max(np.abs(p).max() for p in parts)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 9),
    omega=st.floats(-40, 40),
    eps=st.floats(-800, 800),
    ax=st.floats(-100, 100),
    ay=st.floats(-100, 100),
    origin=st.floats(-1, 1),
    kind=st.sampled_from(["beam", "bar"]),
)
def test_quadrature_equals_invariants_at_random_states(seed, n, omega, eps, ax, ay, origin, kind):
    if kind == "beam":
        body = kanefem.PlanarBeam(0.8, n, E=E, A=A, I=I, rho=RHO, origin=origin)
    else:
        body = kanefem.AxialBar(0.8, n, E=E, A=A, rho=RHO, origin=origin)
    rng = np.random.default_rng(seed)
    d, d_t, d_tt = rng.uniform(-1e-2, 1e-2, (3, body.ndof)) * rng.uniform(0, 10, 3)[:, None]
    a_O = (ax, ay)
    f_inv = body.inertia_forces(d, d_t, d_tt, omega, eps, a_O)
    f_quad = body.inertia_forces(d, d_t, d_tt, omega, eps, a_O, route="quadrature")
    scale = term_scale(body, d, d_t, d_tt, omega, eps, a_O)
    # the element rules are exact for these polynomial integrands: the two routes differ
    # by the round-off of sums of a few hundred terms of size <= scale
    np.testing.assert_allclose(f_quad, f_inv, rtol=0, atol=1e-13 * scale + 1e-300)


def test_spinning_bar_inertia_force_is_the_centrifugal_force():
    """A rigid bar (d = 0) spinning at omega about O: the generalized inertia forces are
    the nodal shares of the centrifugal force, total m omega^2 x_G along +x."""
    L, omega = 1.5, 12.0
    bar = kanefem.AxialBar(L, 7, E=E, A=A, rho=RHO, origin=0.25)
    z = np.zeros(bar.ndof)
    f = bar.inertia_forces(z, z, z, omega=omega, route="quadrature")
    m = RHO * A * L
    x_G = 0.25 + L / 2
    # exact integral of a linear integrand by the 2-point rule: round-off only
    assert math.isclose(f.sum(), m * omega**2 * x_G, rel_tol=1e-14)
    assert np.all(f > 0)


def test_inertia_force_of_pure_nodal_acceleration_is_minus_mass_times_it():
    beam = kanefem.PlanarBeam(1.0, 3, E=E, A=A, I=I, rho=RHO)
    rng = np.random.default_rng(3)
    d_tt = rng.normal(size=beam.ndof)
    z = np.zeros(beam.ndof)
    f = beam.inertia_forces(z, z, d_tt, route="quadrature")
    want = -beam.mass_matrix() @ d_tt
    np.testing.assert_allclose(f, want, rtol=0, atol=1e-14 * np.abs(want).max())


@pytest.mark.parametrize("name, index", [("d", 0), ("d_t", 1), ("d_tt", 2)])
def test_state_errors_name_the_argument(name, index):
    beam = kanefem.PlanarBeam(1.0, 2, E=E, A=A, I=I, rho=RHO)
    good = [np.zeros(beam.ndof)] * 3
    for route in ("invariants", "quadrature"):
        bad = list(good)
        bad[index] = np.zeros(beam.ndof + 1)
        with pytest.raises(ValueError, match=name):
            beam.inertia_forces(*bad, route=route)
        bad[index] = np.full(beam.ndof, np.nan)
        with pytest.raises(ValueError, match=name):
            beam.inertia_forces(*bad, route=route)


def test_motion_and_route_errors():
    beam = kanefem.PlanarBeam(1.0, 2, E=E, A=A, I=I, rho=RHO)
    z = np.zeros(beam.ndof)
    with pytest.raises(ValueError, match="route"):
        beam.inertia_forces(z, z, z, route="lagrange")
    with pytest.raises(ValueError, match="omega"):
        beam.inertia_forces(z, z, z, omega=math.inf, route="quadrature")
    with pytest.raises(ValueError, match="a_O"):
        beam.inertia_forces(z, z, z, a_O=(1.0, 2.0, 3.0), route="quadrature")
    with pytest.raises(ValueError, match="d_t"):
        kanefem._core.inertia_forces_direct(body=beam._body, d=z, d_t=z[:-1], d_tt=z,
                                            frame=kanefem.frames.empty(1))
    with pytest.raises(ValueError, match="one instant"):
        kanefem._core.inertia_forces_direct(body=beam._body, d=z, d_t=z, d_tt=z,
                                            frame=kanefem.frames.empty(2))
