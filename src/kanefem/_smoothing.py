"""Cubic smoothing splines for recorded motions: values, velocities and accelerations
from noisy samples, as the papers measured the wind pump optically.

The spline g minimizes  sum_i (y_i - g(t_i))^2 + lam int g''(t)^2 dt  (Reinsch, 1967;
Green and Silverman, "Nonparametric Regression and Generalized Linear Models", 1994,
section 2.3), computed by SciPy's :func:`scipy.interpolate.make_smoothing_spline`.
kanefem only chooses lam, by the discrepancy principle: the mean squared residual equals
the noise variance sigma^2, given by the user or estimated from the data by the
difference-based estimator of Gasser, Sroka and Jennen-Steinmetz (Biometrika 73, 1986).
sigma = 0 interpolates.

SciPy's B-spline form loses accuracy when lam is very large against the sample spacing
(lam > 1e10 h^3: the fit is then within a fraction of a percent of the least-squares
straight line in mean squared residual), so lam is sought below that bound and a noise
level the bounded spline cannot reach gives the straight line (lam = inf).
"""

from __future__ import annotations

import math

import numpy as np

from . import _checks

#: lam is sought in [1e-12, 1e10] times the mean sample spacing cubed
_LOG_LAM_RANGE = (-12.0, 10.0)


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
        self.noise = noise_estimate(t, y) if noise is None else _checks.real("noise", noise, nonnegative=True)
        self.lam, self._spline = self._choose()
        self._derivatives = [self._spline, self._spline.derivative(1), self._spline.derivative(2)]

    def _fit(self, lam):
        from scipy.interpolate import CubicSpline, make_lsq_spline, make_smoothing_spline

        if lam == 0.0:  # interpolation: the natural cubic spline (SciPy's smoothing needs 5 samples)
            return CubicSpline(self.t, self.y, bc_type="natural")
        if math.isfinite(lam):
            return make_smoothing_spline(self.t, self.y, lam=lam)
        # lam = inf: the least-squares straight line, as a cubic B-spline (exactly)
        A = np.column_stack([np.ones(self.t.size), self.t - self.t[0]])
        line = A @ np.linalg.lstsq(A, self.y, rcond=None)[0]
        knots = np.r_[[self.t[0]] * 4, [self.t[-1]] * 4]
        return make_lsq_spline(self.t, line, knots, k=3)

    def _choose(self):
        """(lam, spline) with mean squared residual = noise^2: Brent's method on log lam."""
        from scipy.optimize import brentq

        target = self.noise * self.noise  # inf beyond 1.3e154 (** raised OverflowError): a straight line
        if target == 0.0:
            return 0.0, self._fit(0.0)
        if not math.isfinite(target):  # a noise beyond every residual: the straight line
            return math.inf, self._fit(math.inf)
        if self.t.size < 5:
            raise ValueError(f"noise = {self.noise!r} > 0 smooths, which needs at least 5 samples, got "
                             f"{self.t.size}: give noise = 0 (interpolation) or more samples")
        scale = float(np.mean(np.diff(self.t))) ** 3  # lam has the unit of t^3
        # log of (mean squared residual / noise^2), increasing in log10(lam / scale)
        excess = lambda x: math.log(max(float(np.mean((self.y - self._fit(scale * 10.0**x)(self.t)) ** 2)), 1e-300) / target)  # noqa: E731
        lo, hi = _LOG_LAM_RANGE
        if excess(hi) <= 0.0:  # beyond SciPy's accurate range: the straight line
            return math.inf, self._fit(math.inf)
        if excess(lo) >= 0.0:  # the noise is below what the samples' spread allows
            lam = scale * 10.0**lo
        else:
            lam = scale * 10.0 ** brentq(excess, lo, hi, xtol=1e-4)
        return lam, self._fit(lam)

    def pieces(self):
        """The spline as polynomial pieces over its samples' span: (breakpoints (n + 1,),
        coefficients (n, 4) in ascending powers of t - t_i), as the core evaluates a path
        (kf_path_pieces)."""
        return polynomial_pieces(self._spline)

    def __call__(self, tq, derivative=0):
        """The spline (derivative 0, 1 or 2) at times tq inside [t_0, t_n-1]."""
        tq = np.asarray(tq, float)
        if np.any(~np.isfinite(tq)) or np.any(tq < self.t[0]) or np.any(tq > self.t[-1]):
            raise ValueError(
                f"t (times from {np.min(tq, initial=np.inf):g} to {np.max(tq, initial=-np.inf):g} s) must "
                f"lie within the samples' span [{self.t[0]!r}, {self.t[-1]!r}] s"
            )
        if derivative not in (0, 1, 2) or isinstance(derivative, bool):
            raise ValueError(f"derivative = {derivative!r} must be 0, 1 or 2")
        return self._derivatives[derivative](tq)


def polynomial_pieces(spline):
    """(breakpoints (n + 1,), coefficients (n, k + 1), ascending powers of t - t_i) of a
    SciPy piecewise polynomial (PPoly, CubicSpline), Bernstein polynomial (BPoly) or
    B-spline, its zero-length pieces (repeated knots) left out."""
    from scipy.interpolate import BPoly, BSpline, PPoly

    if isinstance(spline, BSpline):
        spline = PPoly.from_spline(spline)
    elif isinstance(spline, BPoly):
        spline = PPoly.from_bernstein_basis(spline)
    x, c = np.asarray(spline.x, float), np.asarray(spline.c, float)
    keep = np.diff(x) > 0
    t = np.concatenate([x[:-1][keep], x[-1:]])
    return t, c[::-1, keep].T.copy()
