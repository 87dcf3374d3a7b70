"""The wind pump over one crank turn: kanefem against the same steps in NumPy + SciPy.

One turn at 140 rpm from rest, 360 instants: the rigid motion (Kane's equations,
Dormand-Prince 5(4) at rtol 1e-9), the joint forces at every instant, and the 2 lowest
eigenvalues of the 10-element lever at every instant (K_eps on: the general solver; and
off).  The alternative is what a user writes today with NumPy and SciPy: the closed-form
kinematics and A, B matrices of docs/theory.md section 5 in NumPy, Kane's projection per
right-hand side, scipy.integrate.solve_ivp (RK45 is the same Dormand-Prince pair), the
11 x 11 Newton-Euler systems in one batched numpy.linalg.solve, and scipy.linalg.eig /
eigh per instant on matrices assembled once in NumPy (bench_eigen.py's).  Times are the
best of several runs; ratio = NumPy/SciPy time / kanefem time; one BLAS thread on both
sides (OPENBLAS/OMP/MKL_NUM_THREADS default to 1).

    python bench/bench_windpump.py [--repeat 5] [--quick]
"""

import math
import os

# one thread on both sides (the core is single-threaded; a threaded BLAS on a shared
# machine measures the other processes); set these variables to override
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import scipy.linalg as sl  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

import kanefem  # noqa: E402
from _timing import best, repeat_args  # noqa: E402
from bench_eigen import A as SEC_A, E as SEC_E, I as SEC_I, L as SEC_L, N_EL, RHO, numpy_matrices  # noqa: E402

RPM, NT = 140.0, 360
PUMP = kanefem.WindPump(l2=SEC_L, E2=SEC_E, A2=SEC_A, I2=SEC_I, rho2=RHO)


# ---------------------------------------------------------------- the NumPy/SciPy route

def e(a):
    return np.array([math.cos(a), math.sin(a)])


def J(v):
    return np.array([-v[1], v[0]])


def cross(a, b):
    return a[0] * b[1] - a[1] * b[0]


def kinematics(p, q):
    """Closure, then A (12 x 2) and B (12 x 3) of the mass coordinates (docs/theory.md section 5)."""
    al, xD = q
    B = p.l1 * e(al)
    D = np.array([xD, p.e])
    d = D - B
    rho = math.hypot(*d)
    dh = d / rho
    along = (p.l2**2 - p.h**2 + rho**2) / (2 * rho)
    C = B + along * dh + p.branch * math.sqrt(p.l2**2 - along**2) * J(dh)
    th2 = math.atan2(*(C - B)[::-1])
    phi = math.atan2(*(C - D)[::-1])
    th3 = phi - p.psi
    s = math.sin(phi - th2)
    e2, ep = e(th2), e(phi)
    u2, up = J(e2), J(ep)
    rr = (np.array([p.l1 * math.sin(al), -p.l1 * math.cos(al)]), np.array([1.0, 0.0]))
    G2 = np.array([cross(r, up) / (p.l2 * s) for r in rr])
    G3 = np.array([cross(r, u2) / (p.h * s) for r in rr])
    W2 = np.array([G2[0] ** 2, 2 * G2[0] * G2[1], G2[1] ** 2])
    W3 = np.array([G3[0] ** 2, 2 * G3[0] * G3[1], G3[1] ** 2])
    ea = e(al)
    sk = [p.l1 * ea + p.l2 * W2[c] * e2 - p.h * W3[c] * ep if c == 0 else p.l2 * W2[c] * e2 - p.h * W3[c] * ep
          for c in range(3)]
    H2 = np.array([cross(x, up) / (p.l2 * s) for x in sk])
    H3 = np.array([cross(x, u2) / (p.h * s) for x in sk])

    def attach(AO, BO, G, H, W, r, ang):
        ee = e(ang)
        return AO + r * np.outer(J(ee), G), BO + r * (np.outer(J(ee), H) - np.outer(ee, W))

    A = np.zeros((12, 2))
    Bm = np.zeros((12, 3))
    z2, z3 = np.zeros((2, 2)), np.zeros((2, 3))
    G1, H0, W1 = np.array([1.0, 0.0]), np.zeros(3), np.array([1.0, 0.0, 0.0])
    A[0:2], Bm[0:2] = attach(z2, z3, G1, H0, W1, p.a1 * p.l1, al)
    AB, BB = attach(z2, z3, G1, H0, W1, p.l1, al)
    A[2] = G1
    A[3:5], Bm[3:5] = attach(AB, BB, G2, H2, W2, p.l2 / 2, th2)
    A[5], Bm[5] = G2, H2
    AD = np.array([[0.0, 1.0], [0.0, 0.0]])
    A[6:8], Bm[6:8] = attach(AD, z3, G3, H3, W3, p.hg, th3 + p.xi)
    A[8], Bm[8] = G3, H3
    A[9:11], Bm[9:11] = attach(AD, z3, G3, H3, W3, p.L, th3)
    A[11, 1] = 1.0
    r = np.array([*(p.a1 * p.l1 * ea), al, *(B + p.l2 / 2 * e2), th2, *(D + p.hg * e(th3 + p.xi)), th3,
                  *(D + p.L * e(th3)), xD])
    return A, Bm, r, (B, C, D), th2, th3


def masses(p):
    m2 = p.rho2 * p.A2 * p.l2
    return np.array([p.m1, p.m1, p.J1, m2, m2, m2 * p.l2**2 / 12, p.m3, p.m3, p.J3, p.M3, p.M3, p.m_D])


def applied(p, m, q, u):
    Q = np.zeros(12)
    Q[[1, 4, 7, 10]] = -p.g * m[[1, 4, 7, 10]]
    Q[11] = -p.k * (q[1] - p.x_D0) - p.F_r * math.tanh(u[1] / p.v_F) - p.c_D * u[1]
    return Q


def numpy_turn(p, omega, t):
    m = masses(p)

    def accel(tt, y):
        q, u = (omega * tt, y[0]), (omega, y[1])
        A, B, *_ = kinematics(p, q)
        w = np.array([omega**2, omega * y[1], y[1] ** 2])
        Mr = A.T @ (m[:, None] * A)
        f = A.T @ (applied(p, m, q, u) - m * (B @ w))
        return f[1] / Mr[1, 1], f[0] - Mr[0, 1] * f[1] / Mr[1, 1]  # xddot_D, -motor torque

    sol = solve_ivp(lambda tt, y: [y[1], accel(tt, y)[0]], (t[0], t[-1]), [p.x_D0, 0.0], method="RK45",
                    t_eval=t, rtol=1e-9, atol=1e-12)
    x, v = sol.y
    # joint forces: the 11 x 11 Newton-Euler systems, batched
    K = np.zeros((t.size, 11, 11))
    b = np.zeros((t.size, 11))
    omega2, eps2 = np.empty(t.size), np.empty(t.size)
    for i, tt in enumerate(t):
        q, u = (omega * tt, x[i]), (omega, v[i])
        xdd = accel(tt, (x[i], v[i]))[0]
        A, B, r, (Bp, Cp, Dp), th2, th3 = kinematics(p, q)
        a = A @ np.array([0.0, xdd]) + B @ np.array([omega**2, omega * v[i], v[i] ** 2])
        omega2[i], eps2[i] = A[5] @ np.array(u), a[5]
        ma = m * a
        f = [ma[0], ma[1] + m[1] * p.g, ma[3], ma[4] + m[4] * p.g, ma[6], ma[7] + m[7] * p.g, ma[9], ma[10] + m[10] * p.g]
        r1, r2, r3, rG = r[0:2], r[3:5] - Bp, r[6:8] - Dp, r[9:11] - Dp
        cB, cD = Cp - Bp, Cp - Dp
        Ki = K[i]
        Ki[0, [0, 2]] = 1, -1; b[i, 0] = f[0]
        Ki[1, [1, 3]] = 1, -1; b[i, 1] = f[1]
        Ki[2, [9, 2, 3]] = 1, Bp[1], -Bp[0]; b[i, 2] = ma[2] + cross(r1, f[0:2])
        Ki[3, [2, 4]] = 1, -1; b[i, 3] = f[2]
        Ki[4, [3, 5]] = 1, -1; b[i, 4] = f[3]
        Ki[5, [4, 5]] = cB[1], -cB[0]; b[i, 5] = ma[5] + cross(r2, f[2:4])
        Ki[6, [4, 6]] = 1, -1; b[i, 6] = f[4] + f[6]
        Ki[7, [5, 7]] = 1, -1; b[i, 7] = f[5] + f[7]
        Ki[8, [4, 5]] = -cD[1], cD[0]; b[i, 8] = ma[8] + cross(r3, f[4:6]) + cross(rG, f[6:8])
        Ki[9, [6, 10]] = 1, 1; b[i, 9] = ma[11] - applied(p, m, q, u)[11]
        Ki[10, [7, 8]] = 1, 1; b[i, 10] = m[11] * p.g
    forces = np.linalg.solve(K, b[..., None])[..., 0]
    return x, forces, omega2, eps2


def scipy_eigenvalues(omega2, eps2, include_eps):
    M, K, G = numpy_matrices()
    out = np.empty((omega2.size, 2))
    for i in range(omega2.size):
        Keff = K - omega2[i] ** 2 * M
        if include_eps:
            out[i] = np.sort(sl.eig(Keff + eps2[i] * G, M, right=False).real)[:2]
        else:
            out[i] = sl.eigh(Keff, M, subset_by_index=[0, 1], eigvals_only=True)
    return out


# ---------------------------------------------------------------- the kanefem route

def kanefem_turn(include_eps):
    pump = kanefem.WindPump(**PUMP.params.as_dict())  # a fresh pump: nothing cached
    motion = pump.solve(rpm=RPM, revolutions=1, points_per_revolution=NT)
    forces = pump.joint_forces(motion)
    eig = pump.lever_eigenvalues(motion, n_modes=2, n_elements=N_EL, include_eps=include_eps)
    return motion, forces, eig


def main():
    args = repeat_args(__doc__)
    p = PUMP.params
    omega = RPM * 2 * math.pi / 60
    t = np.arange(NT) * (2 * math.pi / omega / NT)
    print(f"kanefem {kanefem.__version__} (LAPACK: {kanefem.lapack_source()}), wind pump at {RPM:g} rpm, "
          f"one turn from rest, {NT} instants, {N_EL}-element lever, 2 modes")
    t_rigid, (x, forces, om2, ep2) = best(lambda: numpy_turn(p, omega, t), args.repeat)
    print(f"{'path':<10} {'NumPy+SciPy [ms]':>17} {'kanefem [ms]':>13} {'ratio':>7}   "
          f"{'(rigid + forces':>15} {'+ eigen [ms])':>13}   {'max rel diff: x_D, forces, lambda':>33}")
    for include_eps, path in ((True, "general"), (False, "symmetric")):
        t_eig, lam = best(lambda: scipy_eigenvalues(om2, ep2, include_eps), args.repeat)
        tk, (m, f, eig) = best(lambda: kanefem_turn(include_eps), args.repeat)
        ts = t_rigid + t_eig
        dx = np.abs(m.x_D - x).max() / np.ptp(x)
        cols = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        ref = forces[:, cols]
        mine = np.column_stack([f.F_A, f.F_B, f.F_C, f.F_D, f.N_guide, f.motor_torque])
        df = np.abs(mine - ref).max() / np.abs(ref).max()
        dl = np.abs(eig.eigenvalues - lam).max() / np.abs(lam).max()
        print(f"{path:<10} {ts * 1e3:>17.1f} {tk * 1e3:>13.2f} {ts / tk:>7.1f}   "
              f"{t_rigid * 1e3:>15.1f} {t_eig * 1e3:>13.1f}   {dx:>11.1e} {df:>9.1e} {dl:>9.1e}")


if __name__ == "__main__":
    main()
