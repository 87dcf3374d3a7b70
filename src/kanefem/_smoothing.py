"""Cubic smoothing splines for recorded motions: values, velocities and accelerations
from noisy samples, as the papers measured the wind pump optically.

The spline g minimizes  sum_i (y_i - g(t_i))^2 + lam int g''(t)^2 dt  (Reinsch, 1967,
in the form of Green and Silverman, "Nonparametric Regression and Generalized Linear
Models", 1994, section 2.3): with h_i = t_{i+1} - t_i, the tridiagonal Q (n x n-2) and
R (n-2 x n-2), the second derivatives gamma at the interior knots solve the symmetric
positive definite pentadiagonal system

    (R + lam Q^T Q) gamma = Q^T y,     g = y - lam Q gamma,

and the spline is the natural cubic through (t_i, g_i) with second derivatives gamma.
lam is chosen by the discrepancy principle: the mean squared residual equals the noise
variance sigma^2, given by the user or estimated from the data by the difference-based
estimator of Gasser, Sroka and Jennen-Steinmetz (Biometrika 73, 1986).  sigma = 0
interpolates.  Plain NumPy, O(n) per solve.
"""

from __future__ import annotations

import math

import numpy as np

from . import _checks


def noise_estimate(t, y):
    """Standard deviation of the noise in samples y(t) of a smooth function.

    Pseudo-residuals of three neighbouring samples, e_i = a_i y_{i-1} + b_i y_{i+1} - y_i,
    scaled to unit variance for white noise (Gasser et al. 1986).
    """
    t = np.asarray(t, float)
    y = np.asarray(y, float)
    if t.size < 3:
        return 0.0
    span = t[2:] - t[:-2]
    a = (t[2:] - t[1:-1]) / span
    b = (t[1:-1] - t[:-2]) / span
    e = a * y[:-2] + b * y[2:] - y[1:-1]
    return float(math.sqrt(np.mean(e * e / (a * a + b * b + 1.0))))


#: the fewest samples the noise is estimated from: the n - 2 pseudo-residuals of fewer
#: take the signal's own curvature for noise (3 samples of t^2 gave a straight line,
#: acceleration 0 instead of 2; 5 gave 1.39; 8 gave 2.05)
MIN_ESTIMATE_SAMPLES = 8


def _penta_solve(d, e, f, rhs):
    """Solve S x = rhs, S symmetric positive definite with diagonal d, first and second
    off-diagonals e and f, by L D L^T (O(n), plain Python floats)."""
    m = len(d)
    l1 = [0.0] * (m + 1)  # l1[i] = L[i, i-1]
    l2 = [0.0] * (m + 2)  # l2[i] = L[i, i-2]
    D = [0.0] * m
    for i in range(m):
        di = d[i]
        if i >= 1:
            di -= l1[i] * l1[i] * D[i - 1]
        if i >= 2:
            di -= l2[i] * l2[i] * D[i - 2]
        if not di > 0.0:
            raise np.linalg.LinAlgError("smoothing spline system is not positive definite")
        D[i] = di
        if i + 1 < m:
            v = e[i] - (l2[i + 1] * D[i - 1] * l1[i] if i >= 1 else 0.0)
            l1[i + 1] = v / di
        if i + 2 < m:
            l2[i + 2] = f[i] / di
    z = [0.0] * m
    for i in range(m):
        v = rhs[i]
        if i >= 1:
            v -= l1[i] * z[i - 1]
        if i >= 2:
            v -= l2[i] * z[i - 2]
        z[i] = v
    x = [0.0] * m
    for i in range(m - 1, -1, -1):
        v = z[i] / D[i]
        if i + 1 < m:
            v -= l1[i + 1] * x[i + 1]
        if i + 2 < m:
            v -= l2[i + 2] * x[i + 2]
        x[i] = v
    return np.array(x)


class SmoothingSpline:
    """A cubic smoothing spline through samples (t_i, y_i), with its derivatives.

    Parameters
    ----------
    t : array_like, shape (n,)
        Sample times, strictly increasing [s]; n >= 3.
    y : array_like, shape (n,)
        Samples.
    noise : float, optional
        Standard deviation of the measurement noise, in the unit of y; None estimates
        it from the data (from at least :data:`MIN_ESTIMATE_SAMPLES` samples); 0
        interpolates.

    Attributes
    ----------
    noise : float
        The noise level used.
    lam : float
        The smoothing parameter that makes the mean squared residual equal noise^2
        (0 when interpolating, inf when even a straight line is within the noise).

    Examples
    --------
    >>> t = np.linspace(0.0, 1.0, 201)
    >>> s = SmoothingSpline(t, np.sin(3 * t), noise=0.0)
    >>> round(float(s(0.5, 1)), 6), round(3 * math.cos(1.5), 6)
    (0.212212, 0.212212)
    """

    def __init__(self, t, y, noise=None):
        t = _checks.array("t", t, ndim=1)
        y = _checks.array("samples", y, ndim=1)
        if t.shape != y.shape:
            raise ValueError(f"t and the samples must have the same length, got {t.shape} and {y.shape}")
        if t.size < 3:
            raise ValueError(f"need at least 3 samples, got {t.size}")
        if not np.all(np.diff(t) > 0):
            k = int(np.flatnonzero(np.diff(t) <= 0)[0])
            raise ValueError(f"sample times must be strictly increasing: t[{k}] = {t[k]!r}, t[{k + 1}] = {t[k + 1]!r}")
        if noise is None and t.size < MIN_ESTIMATE_SAMPLES:
            raise ValueError(f"noise = None estimates the noise from the samples, which needs at least "
                             f"{MIN_ESTIMATE_SAMPLES} of them, got {t.size}: give noise (0 interpolates)")
        self.t, self.y = t, y
        h = np.diff(t)
        self._h = h
        # Q^T Q (pentadiagonal) and R (tridiagonal), over the n - 2 interior knots
        a, c = 1.0 / h[:-1], 1.0 / h[1:]
        b = -a - c
        self._qtq = (a * a + b * b + c * c, b[:-1] * a[1:] + c[:-1] * b[1:], c[:-2] * a[2:])
        self._r = ((h[:-1] + h[1:]) / 3.0, h[1:-1] / 6.0)
        self._qty = a * y[:-2] + b * y[1:-1] + c * y[2:]
        self.noise = noise_estimate(t, y) if noise is None else _checks.real("noise", noise, nonnegative=True)
        self.lam = self._choose_lam()
        self._fit(self.lam)

    def _fit(self, lam):
        """g and gamma (full length, zero at the ends) for one lam."""
        n = self.t.size
        gamma = np.zeros(n)
        if n > 2 and math.isfinite(lam):
            d = self._r[0] + lam * self._qtq[0]
            e = self._r[1] + lam * self._qtq[1]
            f = lam * self._qtq[2]
            gamma[1:-1] = _penta_solve(d.tolist(), e.tolist(), f.tolist(), self._qty.tolist())
            qg = np.zeros(n)  # Q gamma
            inner = gamma[1:-1]
            qg[:-2] += inner / self._h[:-1]
            qg[1:-1] -= inner * (1.0 / self._h[:-1] + 1.0 / self._h[1:])
            qg[2:] += inner / self._h[1:]
            g = self.y - lam * qg
        else:  # lam = inf: the least-squares straight line
            A = np.column_stack([np.ones(n), self.t - self.t[0]])
            g = A @ np.linalg.lstsq(A, self.y, rcond=None)[0]
        self._g, self._gamma = g, gamma
        return g

    def _choose_lam(self):
        """lam with mean squared residual = noise^2, by bisection on log lam."""
        target = self.noise * self.noise  # inf beyond 1.3e154 (** raised OverflowError): a straight line
        if target == 0.0:
            return 0.0
        msr = lambda lam: float(np.mean((self.y - self._fit(lam)) ** 2))  # noqa: E731
        if msr(math.inf) <= target:
            return math.inf
        scale = float(np.mean(self._h)) ** 3  # lam has the unit of t^3
        lo, hi = -12.0, 16.0  # log10(lam / scale)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if msr(scale * 10.0**mid) > target:
                hi = mid
            else:
                lo = mid
            if hi - lo < 1e-4:
                break
        return scale * 10.0 ** (0.5 * (lo + hi))

    def __call__(self, tq, derivative=0):
        """The spline (derivative 0, 1 or 2) at times tq inside [t_0, t_n-1]."""
        tq = np.asarray(tq, float)
        if np.any(~np.isfinite(tq)) or np.any(tq < self.t[0]) or np.any(tq > self.t[-1]):
            raise ValueError(
                f"t (times from {np.min(tq, initial=np.inf):g} to {np.max(tq, initial=-np.inf):g} s) must "
                f"lie within the samples' span [{self.t[0]!r}, {self.t[-1]!r}] s"
            )
        i = np.clip(np.searchsorted(self.t, tq, side="right") - 1, 0, self.t.size - 2)
        h = self._h[i]
        s = tq - self.t[i]
        g0, g1 = self._g[i], self._g[i + 1]
        c0, c1 = self._gamma[i], self._gamma[i + 1]
        b = (g1 - g0) / h - h * (2.0 * c0 + c1) / 6.0
        c = 0.5 * c0
        d = (c1 - c0) / (6.0 * h)
        if derivative == 0:
            return g0 + s * (b + s * (c + s * d))
        if derivative == 1:
            return b + s * (2.0 * c + 3.0 * s * d)
        if derivative == 2:
            return 2.0 * c + 6.0 * s * d
        raise ValueError(f"derivative = {derivative!r} must be 0, 1 or 2")
