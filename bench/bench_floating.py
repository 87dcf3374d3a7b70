"""A free flexible body in space: kanefem's FloatingBody against Exudyn's
ObjectFFRFreducedOrder on the same mesh, matrices and modes, at equal accuracy.

The body: a hex8 strip 500 x 50 x 20 mm (E = 2 GPa, rho = 1200 kg/m^3), free, spinning at
about 6 rad/s (mostly about its intermediate axis) and vibrating in its two lowest elastic
modes, for 0.1 s.  Its lowest free-free modes (6 rigid + n elastic, kanefem's free-interface
ReducedBody) are the coordinates of both codes: kanefem on their mean axes
(FloatingBody(reduced, "mean-axes")), Exudyn given the mesh, its mass and stiffness matrices
and the same elastic modes (FEMinterface, ObjectFFRFreducedOrderInterface, the C++ object).
Two sizes: the 10 x 2 x 1 mesh with n = 6 modes, the 40 x 4 x 2 mesh with n = 24 (--quick:
the first only).  The quantity: the modal coordinates at 21 instants.

Equal accuracy: each code's time-discretization error, measured against its own solution at
16 times the finest step of the ladder, below the same fraction (0.5 %) of the modal
coordinates' peak: for each code the smallest step count of a doubling ladder (250 .. 16000
steps over the run; --quick: 1000 .. 4000) that reaches it is timed.  Both codes solve the
same equations (the nodal-based floating frame is exact for these modes: tests/test_floating.py
finds the answers within 7.8e-5 of the peak); their difference at the timed steps is printed.
kanefem: generalized-alpha on the rotation group (rho_inf = 1, Newton tol 1e-8); Exudyn: its
generalized-alpha (spectral radius 1, Newton relative tolerance 1e-8).

Every call builds its object inside the timing (kanefem's FloatingBody on the mean axes of the
reduced body; Exudyn's system and ObjectFFRFreducedOrder from its interface); the one-time
work before it is not timed on either side (the reduction, the modes, kanefem's projected
invariants, Exudyn's FEM interface and its projections onto the modes).  Ratio = Exudyn's time / kanefem's, CPU time of this process
(time.process_time, best of --repeat runs) and wall time.  One BLAS thread on both sides.

    python bench/bench_floating.py [--repeat 3] [--quick]
"""

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from _timing import best, repeat_args  # noqa: E402

import kanefem  # noqa: E402

T, NOUT, ACCURACY = 0.1, 21, 0.005
T_OUT = np.linspace(0.0, T, NOUT)
OMEGA0 = np.array([0.3, 6.0, 0.5])


def model(cells, n_modes):
    mesh = kanefem.Mesh.box(0.5, 0.05, 0.02, *cells)
    body = kanefem.MeshBody(mesh, E=2e9, nu=0.3, rho=1200.0, storage="dense")
    red = kanefem.ReducedBody(body, basis="free-interface", n_modes=6 + n_modes, geometric_stiffness=False)
    return mesh, body, red


def kanefem_run(red, steps):
    fb = kanefem.FloatingBody(red, "mean-axes", geometric_stiffness=False)
    qd0 = np.zeros(fb.n_elastic)
    qd0[:2] = 0.02, -0.01
    r = fb.simulate(T_OUT, fb.state(position=fb.centre, omega=OMEGA0, d_t=fb.modes @ qd0), dt=T / steps, tol=1e-8)
    return r.d @ red.mass_matrix() @ fb.modes


def exudyn_interface(mesh, body, red):
    """Exudyn's reduced-order interface of the same mesh, matrices and elastic modes (its
    one-time projections onto the modes, as kanefem's ReducedBody: not timed)."""
    import scipy.sparse as sp
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface

    fb = kanefem.FloatingBody(red, "mean-axes", geometric_stiffness=False)  # the same modes
    fem = FEMinterface()
    fem.nodes = {"Position": np.asarray(mesh.nodes, float)}
    fem.massMatrix, fem.stiffnessMatrix = sp.csr_matrix(body.mass_matrix()), sp.csr_matrix(body.stiffness_matrix())
    fem.modeBasis = {"matrix": red.basis_matrix @ fb.modes, "type": "NormalModes"}
    fem.surface, fem.postProcessingModes = [], {}
    return ObjectFFRFreducedOrderInterface(fem), fb.centre, fb.n_elastic


def exudyn_run(interface, steps):
    import exudyn as exu
    from exudyn.itemInterface import SensorNode

    cms, centre, n = interface
    mbs = exu.SystemContainer().AddSystem()
    obj = cms.AddObjectFFRFreducedOrder(mbs, positionRef=[0, 0, 0], initialVelocity=list(-np.cross(OMEGA0, centre)),
                                        initialAngularVelocity=list(OMEGA0))
    qd0 = np.zeros(n)
    qd0[:2] = 0.02, -0.01
    mbs.SetNodeParameter(obj["nGenericODE2"], "initialCoordinates_t", list(qd0))
    s = mbs.AddSensor(SensorNode(nodeNumber=obj["nGenericODE2"], storeInternal=True,
                                 outputVariableType=exu.OutputVariableType.Coordinates))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps, ss.timeIntegration.endTime = int(steps), T
    ss.timeIntegration.generalizedAlpha.spectralRadius = 1.0
    ss.timeIntegration.newton.relativeTolerance = 1e-8
    ss.solution.sensors.writePeriod = T / (NOUT - 1)
    ss.solution.file.write = False
    ss.timeIntegration.verboseMode = 0
    exu.SolveDynamic(mbs, ss)
    return mbs.GetSensorStoredData(s)[:, 1:]


def error(q, ref):
    return float(np.abs(q - ref).max() / np.abs(ref).max())


def main():
    args = repeat_args(__doc__, default_repeat=3)
    try:
        import exudyn  # noqa: F401
    except ImportError:
        print("Exudyn is not installed (pip install exudyn): nothing to compare")
        return
    warnings.simplefilter("ignore", DeprecationWarning)
    ladder = [1000, 2000, 4000] if args.quick else [250, 500, 1000, 2000, 4000, 8000, 16000]
    cases = [((10, 2, 1), 6)] + ([] if args.quick else [((40, 4, 2), 24)])
    print(f"free hex8 strip, {T} s, modal coordinates at {NOUT} instants; equal accuracy: {ACCURACY:.1%} of the "
          f"peak against each code's own run at {16 * ladder[-1]} steps; load {os.getloadavg()[0]:.1f}")
    for cells, n in cases:
        mesh, body, red = model(cells, n)
        interface = exudyn_interface(mesh, body, red)
        runs = {"kanefem": lambda steps: kanefem_run(red, steps),
                "Exudyn": lambda steps: exudyn_run(interface, steps)}
        print(f"\nmesh {cells[0]} x {cells[1]} x {cells[2]} hex8 ({body.ndof} DOFs), {n} elastic modes")
        chosen = {}
        for name, fn in runs.items():
            ref = fn(16 * ladder[-1])
            for steps in ladder:
                q = fn(steps)
                if error(q, ref) <= ACCURACY or steps == ladder[-1]:
                    break
            cpu, _ = best(lambda: fn(steps), args.repeat, clock=time.process_time)
            wall, _ = best(lambda: fn(steps), args.repeat)
            chosen[name] = (steps, cpu, wall, q, error(q, ref))
            print(f"  {name:8s} {steps:6d} steps  error {error(q, ref):.2e}  CPU {cpu * 1e3:8.1f} ms  "
                  f"wall {wall * 1e3:8.1f} ms")
        (sk, ck, wk, qk, _), (se, ce, we, qe, _) = chosen["kanefem"], chosen["Exudyn"]
        print(f"  ratio Exudyn / kanefem: CPU {ce / ck:.1f}x, wall {we / wk:.1f}x; the two answers differ by "
              f"{error(qk, qe):.2e} of the peak")


if __name__ == "__main__":
    main()
