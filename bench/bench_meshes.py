"""Solid meshes at 1e3, 1e4 and 1e5 DOF: kanefem against scikit-fem + SciPy.

A steel bar (10 : 1 : 1) of trilinear hexahedra (hex8; scikit-fem's ElementHex1, the
same space), clamped at x = 0.  Two steps are timed, each in a fresh process (so the
peak resident memory of a step's process, VmHWM, is its own):

  assembly   kanefem: MeshBody(mesh) -- the C core's sparse assembly of M, K and the
             nodal mass m (the nine inertia blocks S_ij = m (x) e_i e_j^T, everything
             the moving-frame equations need, kept as m once) on one CSR pattern.
             scikit-fem: Basis + asm of linear elasticity and mass (K and M only), with
             the same 2 x 2 x 2 Gauss points.
  modes      the lowest 6 eigenvalues at rest, supports eliminated.  kanefem:
             body.eigenvalues(6, solver="sparse") (assembly included: a fresh process),
             SuperLU in nested-dissection order, symmetric mode, + ARPACK.  scikit-fem:
             condense + scipy.sparse.linalg.eigsh(K, 6, M, sigma=0) (assembly included;
             eigsh factors with splu's defaults, COLAMD and partial pivoting).
  modes/mmd  the alternative ordering, measured in the same run: kanefem's modes with
             SuperLU's own minimum degree on A + A^T (symmetric mode, as before the
             nested dissection); ratios are mmd / nested dissection.

Both sides must find the same eigenvalues (relative difference printed; the run fails
above 1e-8).  Times are CPU seconds of single-threaded processes (OPENBLAS/OMP/MKL
threads = 1; the machine may be shared: the load average is printed); memory is the
peak resident set of the step's process (VmHWM), interpreter and imports
included; ratios are scikit-fem / kanefem (time and memory).

    python bench/bench_meshes.py [--quick] [--sizes 1e3 1e4 1e5]
"""

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np

E, NU, RHO = 2.1e11, 0.3, 7850.0
E_MOD = E


def grid(ndof):
    """Cells (nx, n, n) of a 10:1:1 bar with about ndof DOFs (3 per node)."""
    n = max(1, round((ndof / 3 / 10) ** (1 / 3) - 1))
    nx = 10 * n
    while 3 * (nx + 1) * (n + 1) ** 2 < 0.8 * ndof:
        n += 1
        nx = 10 * n
    return nx, n


def mesh(ndof):
    import kanefem

    nx, n = grid(ndof)
    return kanefem.Mesh.box(1.0, 0.1, 0.1, nx, n, n, cell="hexahedron")


def clamp(x):
    return np.isclose(x[:, 0], 0.0)


#: the instant of bench_scaling's mesh rows: a spin about z (across the bar, as a rotor
#: blade) with an angular acceleration and an origin acceleration; Newmark's step
OMEGA, EPS, A_O = (0.0, 0.0, 120.0), (0.0, 0.0, 40.0), (0.0, -9.81, 0.0)
DT = 1e-5
STEPS = 40


def peak_mib():
    """This process's peak resident memory [MiB]: VmHWM, the new program's own (ru_maxrss
    keeps the forking parent's across exec, so a large parent would show in every child)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):  # not Linux: the rusage (kiB on Linux, bytes on macOS)
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def skfem_inertia(basis, c):
    """int rho v . (c u) over the mesh (scikit-fem: a bilinear form per coefficient
    matrix c, what a user assembles for C = 2 W, K_eps = E, K_om = W W)."""
    import skfem

    @skfem.BilinearForm
    def form(u, v, w):
        return RHO * np.einsum("i...,ij,j...->...", v, c, u)

    return skfem.asm(form, basis)


def skfem_loads(basis, c, a=(0.0, 0.0, 0.0)):
    """int rho v . (c x + a): q_eps (c = E), q_om (c = W W) and q_a (c = 0, the origin's
    acceleration a) by a linear form."""
    import skfem

    @skfem.LinearForm
    def form(v, w):
        return RHO * (np.einsum("i...,ij,j...->...", v, c, w.x) + np.einsum("i...,i->...", v, np.asarray(a)))

    return skfem.asm(form, basis)


def scaling_step(side, step, m):
    """bench_scaling's mesh rows (issue 19), timed here in CPU seconds: "motion" the
    motion terms of one instant (best of 3); "spin" the lowest 6 at that instant with
    shapes (K + K_om, symmetric); "step" Newmark at a constant spin: kanefem's run of
    1 step (M's and the effective matrix's factors and one solve) and of 1 + STEPS steps
    (the factor reused: solves only), scikit-fem's splu of the effective matrix with one
    solve, and a solve alone.  Returns (times dict, eigenvalues or None, a check)."""
    import kanefem

    W, E = skew(OMEGA), skew(EPS)
    c0 = time.process_time
    if side == "kanefem":
        body = kanefem.MeshBody(m, E=E_MOD, nu=NU, rho=RHO, formulation="full")
        sup = {clamp: "fixed"}
        if step == "motion":
            t, out = math.inf, None
            for _ in range(3):
                a = c0()
                out = body.motion_terms(OMEGA, EPS, A_O)
                t = min(t, c0() - a)
            return {"time": t}, None, float(abs(out.K_om).sum())
        if step == "spin":
            a = c0()
            r = body.eigenvalues(6, OMEGA, supports=sup, mode_shapes=True, solver="sparse", include_eps=False)
            return {"time": c0() - a}, r.eigenvalues.tolist(), None
        motion = kanefem.Motion.constant_spin(OMEGA)

        reps = 3 if m.n_nodes < 10**4 else 1  # 1e5 DOF: a factorization takes 10-20 s

        def run(k):  # best of reps runs of k steps (after a warm-up)
            t = math.inf
            for _ in range(reps):
                a = c0()
                r = kanefem.simulate(body, motion, k * DT, dt=DT, supports=sup, t_eval=[0.0, k * DT], progress=False)
                t = min(t, c0() - a)
            assert r.stats["factorizations"] == 2  # M and the effective matrix, once
            return t

        run(1)
        first = run(1)
        return {"time": first, "step": max(run(STEPS + 1) - first, 0.0) / STEPS}, None, None
    import skfem
    from scipy.sparse.linalg import eigsh, splu
    from skfem.io.meshio import from_meshio

    basis = skfem.Basis(from_meshio(m.to_meshio()), skfem.ElementVector(skfem.ElementHex1()), intorder=3)
    if step == "motion":  # C, K_eps, K_om and the load vectors of the instant
        t, out = math.inf, None
        for _ in range(3):
            a = c0()
            C, Ke, Ko = (skfem_inertia(basis, c) for c in (2.0 * W, E, W @ W))
            qe, qo, qa = skfem_loads(basis, E), skfem_loads(basis, W @ W), skfem_loads(basis, 0 * E, A_O)
            out = Ko
            t = min(t, c0() - a)
        del C, Ke, qe, qo, qa
        return {"time": t}, None, float(abs(out).sum())
    from skfem.models.elasticity import lame_parameters, linear_elasticity

    K = skfem.asm(linear_elasticity(*lame_parameters(E_MOD, NU)), basis)
    M = skfem_inertia(basis, np.eye(3))
    D = basis.get_dofs(lambda x: np.isclose(x[0], 0.0)).all()
    free = np.setdiff1d(np.arange(K.shape[0]), D)
    if step == "spin":
        a = c0()
        Ko = skfem_inertia(basis, W @ W)
        Kc, Mc = skfem.condense(K + Ko, M, D=D, expand=False)[:2]
        w2 = float(np.dot(OMEGA, OMEGA))
        lam = np.sort(eigsh(Kc, 6, Mc, sigma=-w2 * (1 + 1e-6), which="LM")[0])
        return {"time": c0() - a}, lam.tolist(), None
    a = c0()  # the effective matrix of Newmark (beta 1/4, gamma 1/2) at the constant spin
    C, Ko = skfem_inertia(basis, 2.0 * W), skfem_inertia(basis, W @ W)
    A = (M + 0.5 * DT * C + 0.25 * DT**2 * (K + Ko)).tocsr()[free][:, free]
    lu = splu(A.tocsc())
    x = lu.solve(np.ones(A.shape[0]))
    fs = c0() - a
    a = c0()
    for _ in range(STEPS):
        x = lu.solve(x)
    return {"time": fs, "step": (c0() - a) / STEPS}, None, None


def worker(side, step, ndof):
    """One timed step in this process; prints a JSON line."""
    import kanefem

    m = mesh(ndof)
    if step in ("motion", "spin", "step", "base"):  # bench_scaling's mesh rows
        times, lam, check = ({"time": 0.0}, None, None) if step == "base" else scaling_step(side, step, m)
        if step == "base" and side == "skfem":  # the imports a scikit-fem run makes
            import skfem  # noqa: F401
            import skfem.io.meshio  # noqa: F401
            from scipy.sparse.linalg import eigsh  # noqa: F401
        print(json.dumps(dict(times, cpu=times["time"], rss=peak_mib(), ndof=3 * m.n_nodes, lam=lam,
                              check=check)))
        return
    if side == "kanefem-mmd":  # the alternative ordering: no points, so SuperLU's minimum degree
        import kanefem.sparse

        kanefem.sparse.dof_points = lambda body: None
        side = "kanefem"
    if side == "skfem":  # imports outside the timing, as kanefem's
        import skfem
        from scipy.sparse.linalg import eigsh
        from skfem.io.meshio import from_meshio
        from skfem.models.elasticity import lame_parameters, linear_elasticity
    t0, c0 = time.perf_counter(), time.process_time()
    lam = None
    if side == "kanefem":
        body = kanefem.MeshBody(m, E=E, nu=NU, rho=RHO, formulation="full")  # as scikit-fem's ElementHex1
        if step == "modes":
            lam = body.eigenvalues(6, supports={clamp: "fixed"}, mode_shapes=True, solver="sparse").eigenvalues
        nnz = int(body.mass_matrix().nnz)
    else:
        sm = from_meshio(m.to_meshio())
        # the Gauss points kanefem's hex8 uses (2 x 2 x 2, exact for M and K on the bar's
        # cells); scikit-fem's default for ElementHex1 takes 4 x 4 x 4, 6x slower
        basis = skfem.Basis(sm, skfem.ElementVector(skfem.ElementHex1()), intorder=3)
        K = skfem.asm(linear_elasticity(*lame_parameters(E, NU)), basis)

        @skfem.BilinearForm
        def mass(u, v, w):
            return RHO * skfem.helpers.dot(u, v)

        M = skfem.asm(mass, basis)
        nnz = int(K.nnz)
        if step == "modes":
            D = basis.get_dofs(lambda x: np.isclose(x[0], 0.0)).all()
            Kc, Mc = skfem.condense(K, M, D=D, expand=False)[:2]
            lam = np.sort(eigsh(Kc, 6, Mc, sigma=0.0, which="LM")[0])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = peak_mib()
    print(json.dumps({"wall": wall, "cpu": cpu, "rss": rss, "ndof": 3 * m.n_nodes, "nnz": nnz,
                      "lam": None if lam is None else [float(x) for x in lam]}))


def run(side, step, ndof, repeat):
    best = None
    for _ in range(repeat):
        # one thread each (BLAS included): CPU time is then comparable on a shared machine
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        out = subprocess.run([sys.executable, __file__, "--worker", side, step, str(ndof)],
                             capture_output=True, text=True, check=True, env=env).stdout
        r = json.loads(out.strip().splitlines()[-1])
        if best is None or r["cpu"] < best["cpu"]:
            best = r
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1e3 DOF only, one run (CI smoke run)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per timing; the best is kept")
    ap.add_argument("--sizes", type=float, nargs="*", default=[1e3, 1e4, 1e5])
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], int(float(args.worker[2])))
        return 0
    try:
        import skfem  # noqa: F401
    except ImportError:
        print("scikit-fem is not installed (pip install scikit-fem): nothing to compare against")
        return 0
    sizes = [1e3] if args.quick else args.sizes
    repeat = 1 if args.quick else args.repeat
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores here); CPU seconds of one thread (the best of "
          "--repeat runs), peak resident memory of the step's process")
    print(f"{'DOF':>7} {'nnz':>9} {'step':9} {'kanefem s':>10} {'skfem s':>9} {'ratio':>6} "
          f"{'kanefem MiB':>11} {'skfem MiB':>9} {'ratio':>6}  max |dlambda|/lambda")
    worst = 0.0
    for size in sizes:
        for step in ("assembly", "modes"):
            a = run("kanefem", step, int(size), repeat)
            b = run("skfem", step, int(size), repeat)
            diff = ""
            if step == "modes":
                la, lb = np.array(a["lam"]), np.array(b["lam"])
                d = float(np.max(np.abs(la - lb) / np.abs(lb)))
                worst = max(worst, d)
                diff = f"{d:.1e}   f1 = {math.sqrt(la[0]) / (2 * math.pi):.2f} Hz"
            print(f"{a['ndof']:7d} {a['nnz']:9d} {step:9} {a['cpu']:10.3f} {b['cpu']:9.3f} "
                  f"{b['cpu'] / a['cpu']:6.2f} {a['rss']:11.0f} {b['rss']:9.0f} {b['rss'] / a['rss']:6.2f}  {diff}")
            if step == "modes":
                c = run("kanefem-mmd", step, int(size), repeat)
                d = float(np.max(np.abs(np.array(c["lam"]) - la) / np.abs(la)))
                worst = max(worst, d)
                print(f"{'':17} {'modes/mmd':9} {a['cpu']:10.3f} {c['cpu']:9.3f} {c['cpu'] / a['cpu']:6.2f} "
                      f"{a['rss']:11.0f} {c['rss']:9.0f} {c['rss'] / a['rss']:6.2f}  {d:.1e}   (mmd beside kanefem)")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    print("kanefem assembles M, K and the nodal mass (the nine S_ij); scikit-fem K and M.")
    if worst > 1e-8:
        print(f"eigenvalues differ by {worst:.2e} > 1e-8")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
