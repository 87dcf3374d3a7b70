"""The core's one generalized-alpha stepper (kf_ga, csrc/kf_integrate.c) and its linear
solvers (kf_linsol, csrc/kf_solver.h): its three users give the results they gave before
they moved onto it, it converges at order 2 in both of its forms, and it factors the
iteration matrix only when that changed (docs/theory.md sections 4.7, 4.13, 5.12)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import kanefem
import kanefem.mechanism as M
from kanefem import Mesh, MeshBody, Motion, simulate
from kanefem.mechanism import ConstantSpeed

REFERENCE = json.loads((Path(__file__).parent / "data" / "stepper_main.json").read_text())["cases"]
T_SAMPLES = np.linspace(0, 0.2, 41)
SPEED_UP = Motion.from_samples(T_SAMPLES, 3.0 * T_SAMPLES + 20 * T_SAMPLES**2)
T_TURN = 2 * math.pi / 150


def clamp_x0(x):
    return np.isclose(x[:, 0], 0.0)


def close(x, ref, rtol):
    x, ref = np.asarray(x), np.asarray(ref)
    return np.max(np.abs(x - ref)) <= rtol * np.max(np.abs(ref))


# ---------------------------------------------------------------- the users, as before


@pytest.mark.parametrize("storage", ["dense", "banded"])
@pytest.mark.parametrize("method", ["newmark", "generalized-alpha"])
def test_bodies_give_the_values_recorded_before_the_stepper(storage, method):
    """A planar beam (dense) and a plane mesh (band) speeding up: the same d and v at
    t = 0.05 s as the integrator's own loop gave on main; to 1e-9 of the largest value
    (the stepper forms the balance's residual in another order of operations: measured
    differences 0 to 3e-12)."""
    if storage == "dense":
        b, sup = kanefem.PlanarBeam(1.0, 8, E=70e9, A=1e-4, Izz=1e-9, rho=2700), None
    else:
        b = MeshBody(Mesh.rectangle(0.5, 0.05, 6, 1, cell="quad4"), E=70e9, nu=0.3, rho=2700,
                     thickness=0.01, storage="banded")
        sup = {clamp_x0: "fixed"}
    r = simulate(b, SPEED_UP, 0.05, dt=2e-4, method=method, progress=False, rho_inf=0.6,
                 t_eval=np.linspace(0, 0.05, 6), supports=sup)
    ref = REFERENCE[f"body-{storage}-{method}"]
    assert close(r.d[-1], ref["d"], 1e-9) and close(r.v[-1], ref["v"], 1e-9)
    # the speed changes every step: the effective matrix is refactored every step, as before
    assert r.stats["factorizations"] == ref["factorizations"] == r.stats["steps"] + 1


def test_a_constant_speed_factors_the_effective_matrix_once():
    """At constant speed the effective matrix never changes: M and it are factored once
    each (main refactored it at every step: 251 factorizations), with the same values."""
    b = kanefem.PlanarBeam(1.0, 8, E=70e9, A=1e-4, Izz=1e-9, rho=2700)
    r = simulate(b, Motion.constant_speed(10.0), 0.05, dt=2e-4, progress=False,
                 t_eval=np.linspace(0, 0.05, 6))
    ref = REFERENCE["body-const"]
    assert ref["factorizations"] == 251 and r.stats["factorizations"] == 2
    # one evaluation and one solve per step, one of each for a0 (evaluations as on main)
    assert r.stats["solves"] == r.stats["evaluations"] == r.stats["steps"] + 1
    assert close(r.d[-1], ref["d"], 1e-9) and close(r.v[-1], ref["v"], 1e-9)


@pytest.mark.parametrize("method", ["newmark", "generalized-alpha"])
def test_sparse_meshes_give_the_values_of_the_python_integrator_they_replace(method):
    """A CSR mesh (quad9 cantilever, moving base, gravity, harmonic tip load, Rayleigh
    damping) now steps in the core with SciPy's SuperLU called back: the values main's
    Python mirror (sparse.newmark) gave, to 1e-9 (measured 6e-12: SuperLU's solves in
    another order), with one factorization per step (the speed varies) plus M's."""
    mesh = Mesh.rectangle(0.5, 0.05, 10, 1, cell="quad9")
    bs = MeshBody(mesh, E=210e9, nu=0.3, rho=7850.0, thickness=0.01)
    assert bs.storage == "sparse"
    mt = Motion.from_samples(T_SAMPLES, 3.0 * T_SAMPLES + 20 * T_SAMPLES**2,
                             np.column_stack([0.1 * np.sin(5 * T_SAMPLES), 0.02 * T_SAMPLES]))
    Q = np.zeros(bs.ndof)
    Q[-1] = 10.0
    r = simulate(bs, mt, 0.04, dt=2e-4, supports={clamp_x0: "fixed"}, method=method, progress=False,
                 loads=kanefem.HarmonicLoad(Q, 300.0), gravity=(0, -9.81),
                 t_eval=np.linspace(0, 0.04, 5), damping=kanefem.Rayleigh(1.0, 1e-5))
    ref = REFERENCE[f"mesh-{method}"]
    assert close(r.d[-1], ref["d"], 1e-9) and close(r.v[-1], ref["v"], 1e-9)
    assert r.stats["factorizations"] == ref["factorizations"] == 201


@pytest.mark.parametrize("geo", [True, False])
def test_two_way_mechanism_gives_the_values_recorded_before_the_stepper(geo):
    """The two-way slider-crank (with and without K_G) on the stepper's algorithmic form:
    the same steps, Newton iterations (evaluations, solves) and factorizations as its own
    loop on main, and the rod's midpoint deflection to 1e-10 of its peak (measured 4e-14).
    Recorded with K_G's axial force iterated (the default then; named since the default
    became the extrapolated force where every coordinate is prescribed)."""
    tt = np.linspace(0.0, T_TURN, 11)
    fm = M.slider_crank(geometric_stiffness=geo).simulate_flexible(
        tt, drives={"crank": ConstantSpeed(150.0)}, dt=T_TURN / 200, rho_inf=0.9, rtol=None,
        axial_force="iterated")
    ref = REFERENCE[f"flex-{geo}"]
    assert close(fm.deflection("rod", 0.15), ref["deflection"], 1e-10)
    assert {k: fm.stats[k] for k in ref["stats"]} == ref["stats"]


# ---------------------------------------------------------------- order of accuracy


def observed_order(errors, factor=2.0):
    """The slope of log(error) against log(step) through the first and last step."""
    return math.log(errors[0] / errors[-1]) / math.log(factor ** (len(errors) - 1))


def test_shifted_form_converges_at_order_two():
    """Generalized-alpha (rho_inf = 0.6) and Newmark on a rotating bar speeding up,
    against RK45 at rtol 1e-12, at dt = 40, 20, 10, 5 us: order 2 (measured 1.93 and 1.96;
    not each halving at 4: the error's maximum over 11 outputs samples oscillations)."""
    mot = Motion.from_samples(T_SAMPLES, 3.0 * T_SAMPLES + 200 * T_SAMPLES**2)
    b = kanefem.AxialBar(1.0, 4, E=210e9, A=2e-5, rho=5e4)
    te = np.linspace(0, 0.01, 11)
    ref = simulate(b, mot, 0.01, method="rk45-lagrange", rtol=1e-12, atol=1e-16, t_eval=te,
                   progress=False).d
    for method in ("generalized-alpha", "newmark"):
        errors = [np.abs(simulate(b, mot, 0.01, dt=dt, method=method, rho_inf=0.6, t_eval=te,
                                  progress=False).d - ref).max() / np.abs(ref).max()
                  for dt in (4e-5, 2e-5, 1e-5, 5e-6)]
        assert 1.8 < observed_order(errors) < 2.2, (method, errors)


@pytest.mark.parametrize("geo", [False, True])
def test_algorithmic_form_converges_at_order_two(geo):
    """The two-way slider-crank over half a turn at 200, 400, 800, 1600 steps per turn
    against 25600 (Newton to 1e-12): each halving divides the rod's deflection error by
    about 4 (measured 3.85-4.48) and the order is 2 (measured 2.06 and 1.99).  Newton's
    iterations: K_G's axial force iterated (the extrapolated force's order: test_mechanism)."""
    tt = np.linspace(0.0, T_TURN / 2, 11)
    kw = dict(drives={"crank": ConstantSpeed(150.0)}, rho_inf=0.9, rtol=None, tol=1e-12,
              axial_force="iterated")
    mech = M.slider_crank(geometric_stiffness=geo)
    fine = mech.simulate_flexible(tt, dt=T_TURN / 25600, **kw).deflection("rod", 0.15)
    errors = [np.abs(mech.simulate_flexible(tt, dt=T_TURN / n, **kw).deflection("rod", 0.15) - fine).max()
              / np.abs(fine).max() for n in (200, 400, 800, 1600)]
    assert all(3.5 < a / b < 4.6 for a, b in zip(errors, errors[1:])), errors
    assert 1.9 < observed_order(errors) < 2.1, errors


# ---------------------------------------------------------------- the solver interface


def test_a_failing_python_factorization_reaches_the_caller():
    """The sparse solver is a Python callable the core calls back: its exception is the
    caller's (not a crash, not a generic error), and a solver that returns a wrong-size
    solution is refused by name."""
    from kanefem import _core

    bs = MeshBody(Mesh.rectangle(0.5, 0.05, 4, 1, cell="quad4"), E=210e9, nu=0.3, rho=7850.0,
                  thickness=0.01)
    fixed = bs.support_mask({clamp_x0: "fixed"})
    args = dict(body=bs._body, fixed=fixed, motion=Motion.constant_speed(10.0)._core_motion(None),
                t_eval=np.linspace(0, 1e-3, 3), method=0, d0=np.zeros(bs.ndof), v0=np.zeros(bs.ndof),
                dt=1e-4)

    class Boom(RuntimeError):
        pass

    def bad_factor(values, indptr, indices):
        raise Boom("no factor today")

    with pytest.raises(Boom, match="no factor today"):
        _core.simulate(**args, factor=bad_factor)

    class Short:
        def solve(self, b):
            return b[:-1]

    with pytest.raises(ValueError, match="another size"):
        _core.simulate(**args, factor=lambda v, p, c: Short())
    # a CSR body without a sparse solver: refused by name
    with pytest.raises(ValueError, match="sparse solver"):
        _core.simulate(**args)
