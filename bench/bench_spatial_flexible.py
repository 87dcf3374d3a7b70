"""A flexible spatial arm coupled both ways: kanefem's simulate_flexible against the same
model in Exudyn, a general multibody code, at equal accuracy.

The arm: a hub turning about the vertical z axis at 3 rad/s carries two aluminium links
(10 x 10 mm hex8 bars, 0.5 m and 0.4 m, each reduced by Craig-Bampton to its root and tip
faces, rigid interface items, and 6 fixed-interface modes; no K_G: Exudyn's floating body
has none), the upper link fixed to the hub at its root, the forearm on an elbow about the
horizontal y axis with a torsional spring-damper (20 N m/rad, 0.05 N m s, unloaded in the
drawing: both links horizontal along x), under gravity, released in the drawing moving with
the hub: the forearm drops and swings on its elbow while both links bend.  kanefem: two
SpatialLinks of ReducedBody, a driven revolute at the base, a free one at the elbow (the
iteration matrix takes the elbow's tangent by differences: a damper acts on the frames);
Exudyn (bench/_exudyn_models.py, arm_ffrf): ObjectFFRFreducedOrder bodies fed kanefem's
mesh, mass and stiffness matrices and the free columns of its Craig-Bampton basis, joints
on their frames and faces, its own generalized-alpha (index 3).  The quantities: the
forearm's midspan elastic displacement in its frame (u, v, w) and the elbow's angle over
0.1 s (the links' first bending modes, 94 and 147 Hz, undamped: 15 periods to follow in
phase).

Equal accuracy: each route's time-discretization error, measured against its own solution
at 16000 steps (--quick: 8000), below 1 % of the peak midspan deflection and of the elbow's
swing at every output instant: for each route the smallest step count of a doubling ladder
(250 .. 8000; --quick: 1000 .. 4000) that reaches it is timed.  The two routes' converged answers are printed
beside (the same model: they agree to round-off of the discretizations).

Every call builds its model inside the timing (kanefem's Mechanism and links from the
reduced bodies; Exudyn's system from its preprocessed floating bodies, as a user holding
them would).  Ratio = Exudyn's time / kanefem's: CPU time of this process
(time.process_time, best of --repeat runs), one BLAS thread on both sides.

    python bench/bench_spatial_flexible.py [--repeat 3] [--quick]
"""

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402

from _timing import best, repeat_args  # noqa: E402
import _exudyn_models  # noqa: E402

import kanefem  # noqa: E402
from kanefem import Mesh, MeshBody, ReducedBody  # noqa: E402
from kanefem.mechanism import ConstantSpeed, Coordinate, Mechanism, Revolute, SpatialLink, Torque  # noqa: E402

LENGTHS, H, SPEED, K_ELBOW, C_ELBOW, T_END = (0.5, 0.4), 0.01, 3.0, 20.0, 0.05, 0.1
T_OUT = np.linspace(0.0, T_END, 101)
ACCURACY = 0.01


def links():
    """Per link: (solid mesh body, reduced body, [root face nodes, tip face nodes], midspan
    node on an edge)."""
    out = []
    for L, nx in zip(LENGTHS, (10, 8)):
        solid = MeshBody(Mesh.box(L, H, H, nx, 1, 1, cell="hexahedron", origin=(0.0, -H / 2, -H / 2)),
                         E=70e9, nu=0.33, rho=2700.0)
        red = ReducedBody(solid, interface=[(lambda x, a=a: np.isclose(x[:, 0], a)) for a in (0.0, L)], n_modes=6,
                          geometric_stiffness=False)
        faces = [np.flatnonzero(np.isclose(solid.nodes[:, 0], a)) for a in (0.0, L)]
        mid = int(np.argmin(np.linalg.norm(solid.nodes - [L / 2, -H / 2, -H / 2], axis=1)))
        out.append((solid, red, faces, mid))
    return out


def arm(parts):
    """kanefem's arm of the reduced links."""
    l1 = SpatialLink("upper", parts[0][1], start=(0.0, 0.0, 0.0), geometric_stiffness=False)
    l2 = SpatialLink("fore", parts[1][1], start=(LENGTHS[0], 0.0, 0.0), geometric_stiffness=False)
    joints = [Revolute("base", ("ground", "upper"), (0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0)),
              Revolute("elbow", ("upper", "fore"), (LENGTHS[0], 0.0, 0.0), axis=(0.0, 1.0, 0.0), k=K_ELBOW,
                       damping=C_ELBOW)]
    return Mechanism([l1, l2], joints, [Coordinate("base", joint="base"), Coordinate("elbow", joint="elbow")],
                     gravity=(0.0, 0.0, -9.81))


def ours(parts, steps):
    """Midspan (u, v, w) of the forearm in its frame and the elbow angle at T_OUT."""
    m = arm(parts)
    fm = m.simulate_flexible(T_OUT, drives={"base": ConstantSpeed(SPEED), "elbow": Torque(0.0)},
                             zd0=[SPEED, 0.0], dt=T_END / steps, rtol=None)
    return np.column_stack([fm.displacement("fore", parts[1][3]), fm.motion.z[:, 1]])


def theirs(parts, cms, steps):
    """Exudyn's of the same model."""
    t, u, elbow = _exudyn_models.arm_ffrf(cms, [np.eye(3), np.eye(3)], [(0.0, 0.0, 0.0), (LENGTHS[0], 0.0, 0.0)],
                                          [p[2] for p in parts], parts[1][3], parts[1][0].nodes[parts[1][3]],
                                          K_ELBOW, C_ELBOW, SPEED, steps=steps, t_end=T_END)
    return np.column_stack([np.interp(T_OUT, t, c) for c in (*u.T, elbow)])


def error(x, ref):
    """The largest departure from ref as a fraction of ref's peak: the deflection's (u, v,
    w together) and the elbow angle's swing, the larger."""
    d = np.abs(x[:, :3] - ref[:, :3]).max() / np.abs(ref[:, :3]).max()
    a = np.abs(x[:, 3] - ref[:, 3]).max() / np.ptp(ref[:, 3])
    return max(d, a)


def main():
    args = repeat_args(__doc__, default_repeat=3)
    parts = links()
    m = arm(parts)
    cms = [_exudyn_models.ffrf_body(s.nodes, s.mass_matrix(), s.stiffness_matrix(),
                                    r.basis_matrix[:, ~m.link(n)._fixed]) for (s, r, _, _), n in zip(parts, ("upper", "fore"))]
    reference = 8000 if args.quick else 16000
    ladder = [1000, 2000, 4000] if args.quick else [250, 500, 1000, 2000, 4000, 8000]
    print(f"kanefem {kanefem.__version__}; load {os.getloadavg()[0]:.2f}; the arm over {T_END} s, "
          f"{len(T_OUT)} instants; reference {reference} steps each")
    refs = {"kanefem": ours(parts, reference), "Exudyn": theirs(parts, cms, reference)}
    print(f"converged answers: peak midspan deflection {np.abs(refs['kanefem'][:, :3]).max() * 1e6:.4g} um "
          f"(Exudyn {np.abs(refs['Exudyn'][:, :3]).max() * 1e6:.4g}), elbow swing "
          f"{np.ptp(refs['kanefem'][:, 3]):.4g} rad; they differ by {error(refs['kanefem'], refs['Exudyn']):.2e} "
          "of the peaks")
    times = {}
    for name, run in (("kanefem", lambda n: ours(parts, n)), ("Exudyn", lambda n: theirs(parts, cms, n))):
        for steps in ladder:
            err = error(run(steps), refs[name])
            if err < ACCURACY:
                break
        else:
            raise RuntimeError(f"{name}: no step count of {ladder} reaches {ACCURACY:.0%}")
        cpu, _ = best(lambda: run(steps), args.repeat, clock=time.process_time)
        times[name] = cpu
        print(f"{name:8s} {steps:5d} steps: error {err:.2e} of the peaks; {cpu * 1e3:8.1f} ms CPU")
    print(f"ratio Exudyn / kanefem (CPU): {times['Exudyn'] / times['kanefem']:.1f}x")


if __name__ == "__main__":
    main()
