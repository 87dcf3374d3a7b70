"""Time integration: kanefem against scipy.integrate.solve_ivp, in the structure of
seed 002 Table 3 (Lagrange vs Hamilton integration times, 5..25 elements, 0.1 s).

Two problems, each at 5, 10, 15, 20 and 25 elements over 0.1 s:

1. "Table 3": a pinned-pinned steel lever (0.6 m, the connecting rod of a slider-crank at
   140 rpm) whose frame motion is given as samples, as the paper's optically recorded
   markers were: angle and origin position at 2 kHz, interpolated by cubic splines; with
   gravity.  This is the paper's case b, whose times its Table 3 lists.
2. "Fig. 5": the rotating bar of section 4a (15 rad/s, 100 N end force at 200 rad/s).

For each, kanefem's four methods and solve_ivp(RK45) on the same equations at the same
tolerances (rtol 1e-8, atol 1e-12): the Lagrange state (d, d') and Hamilton's (d, p),
with the right-hand side formed from the same inertia invariants with NumPy at every
call (C(t), K(t), f(t) as kanefem forms them; the motion from scipy's CubicSpline on the
same samples).  kanefem's Dormand-Prince uses SciPy's step control, so both take the same
steps and their difference is round-off.  For the constant-speed bar a user could also
precompute the constant system matrix once: that column is the best case for SciPy.
Newmark and generalized-alpha run at a fixed dt (1e-6 s / 1e-5 s), as a different accuracy
class; their error against the RK solution is printed.

The paper's MATLAB times (seed 002 Table 3) are printed beside: another machine, another
decade, another code, so only their trend compares.

3. "Floor" (issue 19): the right-hand side at its floor, side by side with the user's best
   case, solve_ivp(RK45) with a constant M^-1 and the frame's rates in plain math: the
   rotating bar (25 elements, 0.1 s, rtol 1e-6) and the spin-up through ``kanefem.studies``
   (10 elements, K_G on, its hub in C), both sides at the same tolerances (so the same
   steps), each side's error against its own converged run (rtol 1e-11) printed; one BLAS
   thread on both sides (OPENBLAS/OMP/MKL_NUM_THREADS default to 1); times are CPU times
   (process_time), the load average is printed.

    python bench/bench_integrate.py [--repeat 3] [--quick] [--floor]

The full run takes about 20 minutes (SciPy needs 2-3 minutes per form at 25 elements of
the lever); --quick about 30 s.
"""

import argparse
import math
import os
import time

# one thread on both sides (the core is single-threaded; a threaded BLAS on a shared
# machine measures the other processes); set these variables to override
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import scipy.linalg as sl  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402
from scipy.interpolate import CubicSpline  # noqa: E402

import kanefem  # noqa: E402
from _timing import best  # noqa: E402
from kanefem import studies  # noqa: E402

SIZES = (5, 10, 15, 20, 25)
MATLAB_LAGRANGE = (31, 84, 176, 291, 460)  # seed 002 Table 3 [s]
MATLAB_HAMILTON = (28, 68, 139, 224, 322)
RTOL, ATOL = 1e-8, 1e-12


# ---------------------------------------------------------------- the problems


def lever_case(n_el):
    """The lever of a slider-crank (crank 0.1 m at 140 rpm, rod 0.6 m): the rod's angle
    and the crank pin's position sampled at 2 kHz."""
    beam = kanefem.PlanarBeam(0.6, n_el, E=210e9, A=2e-4, I=1.67e-9, rho=7850.0)
    w1, r, l = 140 * 2 * math.pi / 60, 0.1, 0.6
    ts = np.arange(0.0, 0.1205, 0.0005)
    alpha = w1 * ts
    theta = np.arcsin(-r * np.sin(alpha) / l)
    r_O = np.column_stack([r * np.cos(alpha), r * np.sin(alpha)])
    return dict(body=beam, supports="pinned-pinned", samples=(ts, theta, r_O),
                motion=kanefem.Motion.from_samples(ts, theta, r_O), loads=None, gravity=(0.0, -9.81))


def bar_case(n_el):
    cfg = studies.RotatingBar(n_elements=n_el)
    bar = cfg.body()
    return dict(body=bar, supports="fixed-free", samples=None, motion=cfg.motion(),
                loads=cfg.loads(bar), gravity=None, omega=cfg.omega)


# ---------------------------------------------------------------- the SciPy side


class NumpyModel:
    """The same equations in NumPy: reduced invariants, C(t), K(t), f(t) per call."""

    def __init__(self, case):
        body = case["body"]
        free = ~body.support_mask(case["supports"])
        inv = body.inertia_invariants()
        ix = np.ix_(free, free)
        self.n = int(free.sum())
        self.M = body.mass_matrix()[ix]
        self.K = body.stiffness_matrix()[ix]
        self.G = (inv["S"][1, 0] - inv["S"][0, 1])[ix]          # sum W_ij S_ij / omega
        self.gv = (inv["s"][1, 0] - inv["s"][0, 1])[free]      # sum W_ij s_ij / omega
        self.sv = (inv["s"][0, 0] + inv["s"][1, 1])[free]      # -q_om / omega^2
        self.Mo = inv["Mo"][:, free]
        self.chol = sl.cho_factor(self.M)
        self.free = free
        g = case["gravity"]
        self.g = np.zeros(2) if g is None else np.asarray(g, float)
        if case["loads"] is not None:
            q = case["loads"]
            self.Qa, self.Qw = q.amplitude[free], q.omega
        else:
            self.Qa, self.Qw = np.zeros(self.n), 0.0
        if case["samples"] is not None:
            ts, theta, r_O = case["samples"]
            spl = CubicSpline(ts, np.column_stack([theta, r_O]))  # not-a-knot, as kanefem
            self.spl = (spl, spl.derivative(1), spl.derivative(2))
            self.omega0 = None
        else:
            self.spl = None
            self.omega0 = case["omega"]

    def frame(self, t):
        """omega, eps, v_L, a_L - g_L, vdot in the body frame."""
        if self.spl is None:
            z = np.zeros(2)
            return self.omega0, 0.0, z, -self.g, z  # theta0 = 0 and g = 0 here
        p, v, a = (s(t) for s in self.spl)
        c, s = math.cos(p[0]), math.sin(p[0])
        RT = np.array([[c, s], [-s, c]])
        vL, aL, gL = RT @ v[1:], RT @ a[1:], RT @ self.g
        w = v[0]
        return w, a[0], vL, aL - gL, aL + w * np.array([vL[1], -vL[0]])

    def lagrange(self, t, y):
        n = self.n
        d, v = y[:n], y[n:]
        w, e, vL, aL, vdot = self.frame(t)
        C = (2 * w) * self.G
        K = self.K + e * self.G - w * w * self.M
        f = self.Qa * math.sin(self.Qw * t) - self.Mo.T @ aL - e * self.gv + w * w * self.sv
        return np.concatenate([v, sl.cho_solve(self.chol, f - C @ v - K @ d)])

    def hamilton(self, t, y):
        n = self.n
        d, p = y[:n], y[n:]
        w, e, vL, aL, vdot = self.frame(t)
        G = w * self.G
        h = w * self.gv + self.Mo.T @ vL
        dd = sl.cho_solve(self.chol, p - G @ d - h)
        KH = self.K - w * w * self.M
        b = self.Qa * math.sin(self.Qw * t) + w * w * self.sv - self.Mo.T @ aL + self.Mo.T @ vdot
        return np.concatenate([dd, b - G @ dd - KH @ d])

    def precomputed(self):
        """Constant speed: y' = A y + g0 + gq sin(Qw t), A formed once."""
        n, w = self.n, self.omega0
        Minv = np.linalg.inv(self.M)
        A = np.block([[np.zeros((n, n)), np.eye(n)],
                      [-Minv @ (self.K - w * w * self.M), -Minv @ (2 * w * self.G)]])
        g0 = np.concatenate([np.zeros(n), Minv @ (w * w * self.sv)])
        gq = np.concatenate([np.zeros(n), Minv @ self.Qa])
        Qw = self.Qw
        return lambda t, y: A @ y + g0 + gq * math.sin(Qw * t)


def scipy_run(rhs, n, y0_lag, t_eval, model=None, hamilton=False):
    y0 = y0_lag
    if hamilton:  # p0 = M v0 + G d0 + h(0)
        w, e, vL, aL, vdot = model.frame(0.0)
        y0 = np.concatenate([y0_lag[:n], model.M @ y0_lag[n:] + w * model.G @ y0_lag[:n]
                             + w * model.gv + model.Mo.T @ vL])
    s = solve_ivp(rhs, (0.0, t_eval[-1]), y0, method="RK45", rtol=RTOL, atol=ATOL, t_eval=t_eval)
    assert s.success, s.message
    return s.y[:n].T, s.nfev


# ---------------------------------------------------------------- timing




def kanefem_run(case, method, t_end, t_eval, dt=None):
    return kanefem.simulate(case["body"], case["motion"], t_end, dt=dt, method=method,
                            supports=case["supports"], loads=case["loads"], gravity=case["gravity"],
                            t_eval=t_eval, rtol=RTOL, atol=ATOL, progress=False)


def table(title, make_case, t_end, sizes, repeat, repeat_scipy, fixed_dt, precomputed):
    print(f"\n{title}")
    pre = f" {'precomp.':>9}" if precomputed else ""
    head = (f"{'el':>3} | {'kanefem L':>10} {'H':>9} | {'SciPy L':>8} {'H':>8}{pre} | "
            f"{'ratio L':>7} {'H':>5}" + (f" {'pre':>5}" if precomputed else "")
            + f" | {'Newmark':>8} {'gen-a':>8} | {'MATLAB L':>8} {'H':>5}")
    print(head)
    print("-" * len(head))
    notes, equal = [], []
    for n_el in sizes:
        case = make_case(n_el)
        t_eval = np.linspace(0.0, t_end, 101)
        tl, rl = best(lambda: kanefem_run(case, "rk45-lagrange", t_end, t_eval), repeat)
        th, rh = best(lambda: kanefem_run(case, "rk45-hamilton", t_end, t_eval), repeat)
        tn, rn = best(lambda: kanefem_run(case, "newmark", t_end, t_eval, fixed_dt), repeat)
        tg, rg = best(lambda: kanefem_run(case, "generalized-alpha", t_end, t_eval, fixed_dt), repeat)
        ref = kanefem.simulate(case["body"], case["motion"], t_end, method="rk45-lagrange",
                               supports=case["supports"], loads=case["loads"], gravity=case["gravity"],
                               t_eval=t_eval, rtol=1e-12, atol=1e-17, progress=False)
        model = NumpyModel(case)
        n = model.n
        y0 = np.zeros(2 * n)
        sL, (dL, nfev) = best(lambda: scipy_run(model.lagrange, n, y0, t_eval), repeat_scipy)
        sH, (dH, _) = best(lambda: scipy_run(model.hamilton, n, y0, t_eval, model, True), repeat_scipy)
        line = f"{n_el:>3} | {tl * 1e3:>7.1f} ms {th * 1e3:>6.1f} ms | {sL:>6.2f} s {sH:>6.2f} s"
        ratios = f" | {sL / tl:>7.0f} {sH / th:>5.0f}"
        if precomputed:
            sP, _ = best(lambda: scipy_run(model.precomputed(), n, y0, t_eval), repeat_scipy)
            line += f" {sP:>7.2f} s"
            ratios += f" {sP / tl:>5.0f}"
        k = SIZES.index(n_el)
        print(line + ratios + f" | {tn * 1e3:>5.1f} ms {tg * 1e3:>5.1f} ms | "
              f"{MATLAB_LAGRANGE[k]:>6} s {MATLAB_HAMILTON[k]:>3} s")
        scale = np.abs(ref.d).max()

        def err(d, cols=slice(None)):
            return np.abs(d - ref.d[:, cols]).max() / scale

        # Hamilton at the accuracy Lagrange reached: tighten its tolerances until its
        # error is no larger (p = M d' is smaller than d', so the same atol is looser)
        target, tight, th_eq, rh_eq = err(rl.d), 1.0, th, rh
        while err(rh_eq.d) > target and tight > 1e-4:
            tight /= 10
            th_eq, rh_eq = best(lambda: kanefem.simulate(
                case["body"], case["motion"], t_end, method="rk45-hamilton", supports=case["supports"],
                loads=case["loads"], gravity=case["gravity"], t_eval=t_eval, rtol=RTOL * tight,
                atol=ATOL * tight, progress=False), repeat)
        equal.append(f"{n_el:>3} | {tight:>9.0e} {rh_eq.stats['steps']:>7} {err(rh_eq.d):>8.1e} "
                     f"{th_eq * 1e3:>8.1f} ms | {th_eq / tl:>10.2f}")
        notes.append(
            f"{n_el:>3} | {rl.stats['steps']:>6} {rl.stats['rejected']:>5} {err(rl.d):>8.1e} |"
            f" {rh.stats['steps']:>6} {rh.stats['rejected']:>5} {err(rh.d):>8.1e} |"
            f" {nfev:>7} {err(dL, model.free):>8.1e} {err(dH, model.free):>8.1e} |"
            f" {err(rn.d):>8.1e} {err(rg.d):>8.1e} |"
            f" {tl / (rl.stats['evaluations']) * 1e6:>6.2f} {th / rh.stats['evaluations'] * 1e6:>6.2f}")
    head = (f"{'el':>3} | {'L steps':>6} {'rej.':>5} {'error':>8} | {'H steps':>6} {'rej.':>5} {'error':>8} |"
            f" {'SciPy f':>7} {'err L':>8} {'err H':>8} | {'Newmark':>8} {'gen-a':>8} | {'us/eval L':>6} {'H':>6}")
    print("\n" + head)
    print("-" * len(head))
    print("\n".join(notes))
    head = (f"{'el':>3} | {'H tol x':>9} {'steps':>7} {'error':>8} {'time':>11} | {'H / L time':>10}")
    print("\nHamilton at the accuracy of Lagrange (its rtol and atol scaled by 'H tol x'):")
    print(head)
    print("-" * len(head))
    print("\n".join(equal))


# ---------------------------------------------------------------- 3. the right-hand side's floor


def cpu_best(fn, repeat):
    """(shortest CPU time [s], its result)."""
    return best(fn, repeat, clock=time.process_time)


def spinup_scipy(s):
    """The spin-up's equations as a user writes them for solve_ivp: M^-1 times every
    constant matrix once (the best case), the hub's rates in plain math per call:
    d'' = -(M^-1 K d + omega M^-1 C_1 d' + eps M^-1 (K_eps,1 d + q_eps,1)
            + omega^2 M^-1 ((K_om,1 + K_G,1) d + q_om,1))."""
    body = s.body()
    free = ~body.support_mask("clamped-free")
    ix, n = np.ix_(free, free), int(free.sum())
    T1, Te = body.motion_terms(1.0, 0.0), body.motion_terms(0.0, 1.0)
    KG1 = body.geometric_stiffness(body.axial_force(1.0, supports="clamped-free"))[ix]
    Minv = np.linalg.inv(body.mass_matrix()[ix])
    A0, AC, AE = Minv @ body.stiffness_matrix()[ix], Minv @ T1.C[ix], Minv @ Te.K_eps[ix]
    AW, bE, bW = Minv @ (T1.K_om[ix] + KG1), Minv @ Te.q_eps[free], Minv @ T1.q_om[free]
    Ts, ws = float(s.T_s), float(s.omega_s)

    def rhs(t, y):
        d, v = y[:n], y[n:]
        if t < Ts:
            x = 2 * math.pi * t / Ts
            w, e = ws / Ts * (t - Ts / (2 * math.pi) * math.sin(x)), ws / Ts * (1 - math.cos(x))
        else:
            w, e = ws, 0.0
        return np.concatenate([v, -(A0 @ d + w * (AC @ v) + e * (AE @ d + bE) + w * w * (AW @ d + bW))])

    return rhs, n, free


def floor_table(quick, repeat):
    """Kanefem's RK45 vs solve_ivp(RK45) with a constant M^-1, same tolerances."""
    t_bar, t_spin = (0.02, 0.5) if quick else (0.1, 5.0)
    print(f"\n3. The right-hand side at its floor: RK45 both sides, same rtol/atol; CPU times; "
          f"load average {os.getloadavg()[0]:.2f} (uptime)")
    head = (f"{'case':<50} | {'kanefem':>9} {'SciPy':>9} {'ratio':>6} | {'evals':>7} {'SciPy':>7} | "
            f"{'us/eval':>7} | {'err kanefem':>11} {'err SciPy':>9}")
    print(head)
    print("-" * len(head))
    cases = []
    # the rotating bar, constant speed: solve_ivp's system matrix formed once
    case = bar_case(25)
    model = NumpyModel(case)
    tb = np.linspace(0.0, t_bar, 101)

    def bar_k(rtol, atol):
        return lambda: kanefem.simulate(case["body"], case["motion"], t_bar, method="rk45-lagrange",
                                        supports=case["supports"], loads=case["loads"], t_eval=tb,
                                        rtol=rtol, atol=atol, progress=False)

    def bar_s(rtol, atol):
        return lambda: solve_ivp(model.precomputed(), (0.0, t_bar), np.zeros(2 * model.n), method="RK45",
                                 rtol=rtol, atol=atol, t_eval=tb)

    cases.append((f"rotating bar, 25 el., {t_bar:g} s, rtol 1e-6", bar_k, bar_s, 1e-6, 1e-12, model.free))
    # the spin-up through kanefem.studies
    spin = studies.SpinUp(n_elements=10)
    rhs, n, free = spinup_scipy(spin)
    ts = np.linspace(0.0, t_spin, 101)

    def spin_k(rtol, atol):
        return lambda: spin.simulate(t_spin, True, "rk45-lagrange", t_eval=ts, rtol=rtol, atol=atol)

    def spin_s(rtol, atol):
        return lambda: solve_ivp(rhs, (0.0, t_spin), np.zeros(2 * n), method="RK45", rtol=rtol, atol=atol,
                                 t_eval=ts)

    cases.append((f"spin-up (studies), 10 el., K_G, {t_spin:g} s, rtol 1e-6", spin_k, spin_s, 1e-6, 1e-9, free))
    for name, make_k, make_s, rtol, atol, fr in cases:
        tk, rk = cpu_best(make_k(rtol, atol), repeat)
        t_s, rs = cpu_best(make_s(rtol, atol), 1)
        ref_k = make_k(1e-11, atol * 1e-3)()
        ref_s = make_s(1e-11, atol * 1e-3)()
        nf = int(fr.sum())
        scale = np.abs(ref_k.d).max()
        ek = np.abs(rk.d - ref_k.d).max() / scale
        es = np.abs(rs.y[:nf] - ref_s.y[:nf]).max() / scale
        ev = rk.stats["evaluations"]
        print(f"{name:<50} | {tk * 1e3:>6.1f} ms {t_s * 1e3:>6.0f} ms {t_s / tk:>5.1f}x | {ev:>7} {rs.nfev:>7} | "
              f"{tk / ev * 1e6:>7.2f} | {ek:>11.1e} {es:>9.1e}")
    print("errors: max |d - d_converged| / max |d_converged|, each side against its own run at rtol 1e-11")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per kanefem timing; the best is kept")
    ap.add_argument("--quick", action="store_true",
                    help="CI smoke run: 5 and 25 elements, 0.005 s of the lever and 0.02 s of the "
                    "bar, one run each")
    ap.add_argument("--floor", action="store_true",
                    help="only table 3, the right-hand side at its floor (about 1 minute; with --quick "
                    "shorter runs)")
    args = ap.parse_args()
    if args.floor:
        floor_table(args.quick, 1 if args.quick else args.repeat)
        return
    sizes, t_lever, t_bar, rep, rep_s = SIZES, 0.1, 0.1, args.repeat, 1  # SciPy runs last seconds
    if args.quick:
        sizes, t_lever, t_bar, rep, rep_s = (5, 25), 0.005, 0.02, 1, 1
    print(f"kanefem {kanefem.__version__} (LAPACK: {kanefem.lapack_source()}); rtol {RTOL:g}, "
          f"atol {ATOL:g}; times are the best of {rep} (kanefem) / {rep_s} (SciPy) runs; "
          "ratio = SciPy / kanefem (L: Lagrange form, H: Hamilton form, pre: SciPy with the "
          "constant system matrix precomputed); errors: max |d - d_ref| / max |d_ref| against "
          "kanefem's RK at rtol 1e-12; Newmark and generalized-alpha (rho_inf 0.8) at a fixed dt")
    table(f"1. Seed 002 Table 3 case: lever in general planar motion from samples, "
          f"{t_lever:g} s (Newmark dt 1e-6 s)", lever_case, t_lever, sizes, rep, rep_s, 1e-6, False)
    table(f"2. Seed 002 Fig. 5 case: the rotating bar, {t_bar:g} s (Newmark dt 1e-5 s)", bar_case,
          t_bar, sizes, rep, rep_s, 1e-5, True)
    print("\nThe paper's MATLAB times are for 0.1 s of its case b on a 2020 machine; the lever "
          "here is a stand-in with the same structure.")
    floor_table(args.quick, rep)


if __name__ == "__main__":
    main()
