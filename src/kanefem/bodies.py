"""Flexible bodies in a moving frame: their matrices, motion terms and frozen-time
eigenvalues.

A body is a set of finite elements of one kind sharing one frame (origin O,
rotation R(t)).  Its equations of motion in that frame are (docs/theory.md section 1)

    M d'' + C d' + (K + K_eps + K_om) d = Q - q_a - q_eps - q_om

with C = 2 int rho N^T W N, K_eps = int rho N^T E N, K_om = int rho N^T W W N,
q_eps = int rho N^T E x, q_om = int rho N^T W W x, q_a = Mo a_O.  The C core
integrates the inertia invariants once when the body is built; every call below
only combines them.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from . import _checks, _core, _interrupt, frames
from ._results import ResultMixin
from .constraints import elimination_basis, maggi_basis

#: the storages a body's matrices can have (docs/api/contract.md): the name users give (and
#: the older spellings kept as aliases) -> the core's code; -1 lets the body type choose
STORAGES = {"auto": -1, "dense": 0, "banded": 1, "sparse": 2, "band": 1, "csr": 2}
#: the core's name of a storage -> the contract's
_STORAGE_NAMES = {"dense": "dense", "band": "banded", "csr": "sparse"}


class NotSupportedError(_core.KanefemError, NotImplementedError):
    """What a body type cannot do (docs/api/contract.md): the message names the body type
    and the method or option, and says what would do it.  A ``NotImplementedError`` too,
    so ``except NotImplementedError`` catches it."""


def _not_supported(body, what, instead):
    """The one error of the Body contract, naming the body type, what was asked and
    what would do it."""
    return NotSupportedError(f"{type(body).__name__} does not support {what}: {instead}")


#: element kinds of the core, by name: {name: {kind, dim, nodes, dofs_per_node}}
_KINDS = _core.element_kinds()
#: the line element kinds (their K_G has end loads, section 2.11)
_LINE_KINDS = ("bar2", "beam2", "bar3d", "beam3d")
#: eigen contexts kept per body (each holds a few dense n x n matrices)
_EIG_CACHE_SIZE = 8
#: the core's dense eigen solver's limit on free DOFs (KF_EIG_DENSE_MAX, csrc/kf_eig.c)
_DENSE_EIGEN_NDOF = 5000


@dataclass(frozen=True)
class MotionTerms:
    """The motion-dependent terms of a body's equations at one instant.

    ``M d'' + C d' + (K + K_eps + K_om) d = Q - q_a - q_eps - q_om``, all over the
    body's DOFs: matrices ndof x ndof in the body's storage type (ndarrays when dense, SciPy
    CSR when banded or sparse), vectors ndarrays of length ndof.

    Attributes
    ----------
    C : ndarray or CSR matrix
        Coriolis (gyroscopic) matrix, skew-symmetric [kg/s].
    K_eps : ndarray or CSR matrix
        Angular-acceleration stiffness, skew-symmetric [N/m].
    K_om : ndarray or CSR matrix
        Centrifugal softening, symmetric negative semidefinite [N/m].
    q_eps, q_om : ndarray
        Inertial loads from the angular acceleration and the angular velocity [N].
    q_a : ndarray
        Inertial load of the frame origin's acceleration, ``Mo a_O`` [N].
    """

    C: np.ndarray
    K_eps: np.ndarray
    K_om: np.ndarray
    q_eps: np.ndarray
    q_om: np.ndarray
    q_a: np.ndarray


def _band_pattern(n, kl, ku):
    """The CSR pattern (indptr, indices; int32) of an n x n band with kl sub- and ku
    super-diagonals: row i holds columns max(0, i - kl) .. min(n - 1, i + ku), the order
    in which the core returns a band matrix's values."""
    rows = np.arange(n)
    lo, hi = np.maximum(rows - kl, 0), np.minimum(rows + ku, n - 1)
    counts = hi - lo + 1
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=indptr[1:])
    indices = (np.arange(int(indptr[-1])) - np.repeat(indptr[:-1] - lo, counts)).astype(np.int32)
    return indptr, indices


def _signed_hz(lam):
    """sqrt(lambda)/2pi, negative for lambda < 0 (a statically unstable mode)."""
    return np.sign(lam) * np.sqrt(np.abs(lam)) / (2.0 * math.pi)


@dataclass(frozen=True)
class EigenResult(ResultMixin):
    """Frozen-time eigenvalues of a body (one instant, or a leading time axis).

    Attributes
    ----------
    eigenvalues : ndarray, shape (n_modes,) or (nt, n_modes)
        lambda_k [rad^2/s^2], ascending by real part at each instant (or in tracked
        order, see ``order``).
    eigenvalues_imag : ndarray
        Imaginary parts: zero except where K_eps makes a pair of modes complex.
    mode_shapes : ndarray or None, shape (ndof, n_modes) or (nt, ndof, n_modes)
        phi_k over all DOFs (zero at supports), mass-normalized (phi^T M phi = 1).
        For a complex pair, the two columns are the real and imaginary parts.
    solver : str
        ``"symmetric"`` if K_eff was symmetric at every instant (K_eps off or
        zero), ``"general"`` otherwise.
    order : str
        ``"ascending"`` or ``"tracked"``.
    stats : dict
        How the instants were solved: ``full_solves``, ``continued``,
        ``iterations``, ``reused`` (instants equal to the one before, e.g. a constant
        spin, whose solution was reused).
    model : dict
        The element model of the body (:attr:`FlexibleBody.model`): ``element`` (the
        core's kind) and for beams ``theory`` (``"euler-bernoulli"`` or
        ``"timoshenko"``), ``rotary_inertia`` and ``shear_coefficient``.
    error_bounds : ndarray or None
        Sparse solver only (docs/theory.md section 3.17): a bound on ``|lambda_k - true
        eigenvalue|`` [rad^2/s^2] per eigenvalue, the shape of ``eigenvalues``.  Symmetric
        problems: rigorous (the residual in the M^-1 norm, Kato-Temple where the
        neighbours leave a gap, every rounding bounded); with K_eps (non-normal): the
        first-order bound through the left Ritz vector.
    """

    eigenvalues: np.ndarray
    eigenvalues_imag: np.ndarray
    mode_shapes: np.ndarray | None
    solver: str
    order: str = "ascending"
    stats: dict = field(default_factory=dict)
    model: dict = field(default_factory=dict)
    error_bounds: np.ndarray | None = None

    @property
    def frequencies_hz(self) -> np.ndarray:
        """f_k = sqrt(lambda_k) / 2 pi [Hz]; negative where lambda_k < 0 (divergence)."""
        return _signed_hz(self.eigenvalues)

    @property
    def angular_frequencies(self) -> np.ndarray:
        """omega_k = sqrt(lambda_k) [rad/s]; negative where lambda_k < 0."""
        return np.sign(self.eigenvalues) * np.sqrt(np.abs(self.eigenvalues))

    def stresses(self, body, at=None):
        """Modal stresses of the mode shapes (one instant) on ``body``, the body they were
        computed for: ``body.stresses(self)`` for a mesh (strains, stresses, von Mises;
        ``at`` "gauss" or "nodes"), ``body.section_forces(self)`` for a line body (``at``
        "ends" or "gauss"); per unit modal coordinate.  A :class:`~kanefem.StressResult`."""
        from .stresses import of_result

        return of_result(self, body, at)


#: floating-point operations of a dense n x n eigen-decomposition, per n^3 (the QR
#: algorithm's 10 n^3 with vectors), for kanefem._interrupt.call's estimate
_EIG_FLOPS = 10.0


def _alias(value, name, alias_value, alias):
    """A quantity given by its contract name or by its documented alias (never both)."""
    if alias_value is None:
        return value
    if value is not None:
        raise TypeError(f"give {name} or its alias {alias}, not both ({name} = {_checks._short(value)}, "
                        f"{alias} = {_checks._short(alias_value)})")
    return alias_value


def _no_rates_with_frames(omega, eps, a_O, default):
    """frames= replaces omega, eps and a_O: any of them given too is a conflict, refused
    rather than silently ignored."""
    for name, v in (("omega", omega), ("eps", eps), ("a_O", a_O)):
        if v is not None and not (default is not None and name != "a_O" and np.ndim(v) == 0
                                  and not isinstance(v, (bool, np.bool_)) and v == default):
            raise ValueError(f"give the frame's motion either as frames= or as omega, eps and a_O, "
                             f"not both ({name} = {_checks._short(v)} was given with frames)")


#: the sections whose shear coefficient kanefem computes (Cowper 1966, docs/theory.md 2.9)
SHEAR_SECTIONS = ("rectangle", "circle", "tube")


def shear_coefficients(shear_coefficient, *, nu, A=None, Izz=None, Iyy=None):
    """Timoshenko shear coefficients (kappa_y, kappa_z) of a beam section.

    Parameters
    ----------
    shear_coefficient : float, (float, float) or {"rectangle", "circle", "tube"}
        Given (one value for both directions, or one per direction: shear along the
        section's y, which goes with Izz, and along z), or computed by Cowper's formulas
        (J. Appl. Mech. 33 (1966) 335-340) for a solid rectangle, 10 (1 + nu) / (12 + 11 nu);
        a solid circle, 6 (1 + nu) / (7 + 6 nu); a circular tube of radii ratio
        m = r_i / r_o, 6 (1 + nu) (1 + m^2)^2 / ((7 + 6 nu) (1 + m^2)^2 + (20 + 12 nu) m^2),
        whose radii follow from A and the polar moment Izz + Iyy.
    nu : float
        Poisson's ratio.
    A, Izz, Iyy : float
        The section (for ``"tube"``).

    Returns
    -------
    tuple of two floats

    Examples
    --------
    >>> shear_coefficients("rectangle", nu=0.3)
    (0.8496732026143791, 0.8496732026143791)
    """
    if shear_coefficient is None:
        raise TypeError("theory='timoshenko' needs shear_coefficient: a number, a pair (kappa_y, "
                        f"kappa_z) or one of {SHEAR_SECTIONS} (computed by Cowper's formulas)")
    if isinstance(shear_coefficient, str):
        kind = _checks.choice("shear_coefficient", shear_coefficient, SHEAR_SECTIONS)
        if kind == "rectangle":
            k = 10 * (1 + nu) / (12 + 11 * nu)
        elif kind == "circle":
            k = 6 * (1 + nu) / (7 + 6 * nu)
        else:
            # A = pi (ro^2 - ri^2), Izz + Iyy = pi (ro^4 - ri^4) / 2 = A (ro^2 + ri^2) / 2
            s2, d2 = 2 * (Izz + Iyy) / A, A / math.pi
            ro2, ri2 = (s2 + d2) / 2, (s2 - d2) / 2
            if not ri2 > 0:
                raise ValueError(f"shear_coefficient='tube': A = {A!r} with Izz + Iyy = {Izz + Iyy!r} "
                                 "is no circular tube (its inner radius would not be positive)")
            m2 = ri2 / ro2
            k = 6 * (1 + nu) * (1 + m2)**2 / ((7 + 6 * nu) * (1 + m2)**2 + (20 + 12 * nu) * m2)
        return (k, k)
    k = np.atleast_1d(_checks.array("shear_coefficient", shear_coefficient))
    if k.ndim != 1 or k.size not in (1, 2):
        raise ValueError(f"shear_coefficient = {_checks._short(shear_coefficient)} must be a number, a "
                         f"pair (kappa_y, kappa_z) or one of {SHEAR_SECTIONS}")
    if not (np.all(np.isfinite(k)) and np.all(k > 0)):
        raise ValueError(f"shear_coefficient = {_checks._short(shear_coefficient)} must be positive and finite")
    return (float(k[0]), float(k[-1]))


def _expand_shapes(proj, shapes, tracked):
    """Mode shapes over a projected body's z (nt, r, m) as d = T z over all DOFs, with the
    sign rule of section 3.9 on d (per instant; a tracked curve by its first instant's, so
    that it stays continuous)."""
    from .sparse import _sign_rule

    out = np.stack([np.asarray(proj.basis @ shapes[t]) for t in range(shapes.shape[0])])
    if tracked:
        flip = np.sign(np.einsum("ik,ik->k", out[0], _sign_rule(out[0].copy())))
        return out * np.where(flip == 0, 1.0, flip)
    for t in range(out.shape[0]):
        out[t] = _sign_rule(out[t])
    return out


def _constraint_rows(constraints, ndof):
    """Constraint rows G (k, ndof) as a CSR matrix of floats, from an array or a SciPy
    sparse matrix, checked by name (``constraints``)."""
    import scipy.sparse as sp

    if sp.issparse(constraints):
        G = sp.csr_matrix(constraints)
        if G.dtype.kind not in "iuf":
            raise TypeError(f"constraints must be real numbers, got dtype {G.dtype}")
        G = G.astype(float)
        if not np.all(np.isfinite(G.data)):
            raise ValueError("constraints must be finite")
    else:
        G = sp.csr_matrix(_checks.array("constraints", constraints, ndim=2))
    if G.shape[1] != ndof:
        raise ValueError(f"constraints must have {ndof} columns (one per DOF), got shape {G.shape}")
    G.sum_duplicates()
    G.eliminate_zeros()
    return G


class _ProjectedBody:
    """A body's equations on the motions d = T z its supports and constraints leave
    (Maggi's projection with the sparse elimination basis, docs/theory.md section 3.3):
    the core's projected body (``_core.body_project``) with what the sparse eigen path
    (:class:`kanefem.sparse.SparseEigen`) asks of a body.  The matrices come back in the
    parent's kind of storage; a mesh's keep its sparse path (nested dissection on the
    masters' nodes), a line body's the path of banded bodies."""

    def __init__(self, parent, basis, masters):
        self.parent = parent
        self.basis, self.masters = basis, masters
        self._body = _interrupt.call(_core.body_project, body=parent._body, indptr=basis.indptr.astype(np.int32),
                                     indices=basis.indices.astype(np.int32), values=basis.data,
                                     ncol=basis.shape[1])
        info = _core.body_info(self._body)
        self.ndof, self.dim = info["ndof"], info["dim"]
        self._layout = _STORAGE_NAMES[info["storage"]]
        self._sparse_as_band = parent._sparse_as_band
        # a mesh takes the sparse eigen path on its pattern; a line body the banded one
        self.storage = "sparse" if not self._sparse_as_band else ("dense" if self._layout == "dense" else "banded")
        if self._layout == "sparse":
            pat = _core.body_pattern(body=self._body)
            self._pattern = (pat["indptr"], pat["indices"])
        elif self._layout == "banded":
            self._pattern = _band_pattern(self.ndof, info["kl"], info["ku"])
        if not self._sparse_as_band:  # the mesh route of SparseEigen reads the pattern
            self._indptr, self._indices = self._pattern
        from .sparse import dof_points

        points = dof_points(parent)
        self._dof_points = None if points is None else points[masters]
        self.model = parent.model

    def _matrix(self, values):
        """A projected matrix as CSR (an ndarray when the projected body is dense)."""
        if self._layout == "dense":
            return values
        import scipy.sparse as sp

        indptr, indices = self._pattern
        return sp.csr_matrix((values, indices.copy(), indptr.copy()), shape=(self.ndof, self.ndof))

    def _values(self, name, i=0, j=0):
        return _core.body_matrix(self._body, name, i, j)

    def mass_matrix(self):
        return self._matrix(self._values("M"))

    def combination(self, coef, stiffness=0.0):
        return self._matrix(_core.body_combine(body=self._body, coef=np.asarray(coef, dtype=float),
                                               stiffness=float(stiffness)))

    def expand(self, z):
        """d = T z for z (r,) or (r, k)."""
        return self.basis @ z


class FlexibleBody:
    """A body of finite elements of one kind in a moving frame (base class).

    Subclasses set the element kind, their material and section (its ``_material``), the
    storages they offer and how support names map to DOFs; see :class:`PlanarBeam`,
    :class:`AxialBar`, :class:`Beam3D`, :class:`Bar3D` and :class:`MeshBody`.  Every
    subclass honours the Body contract (docs/api/contract.md): geometry positional,
    material keyword-only by the same names (``E``, ``nu``, ``rho``, ``A``, ``Izz``,
    ``Iyy``, ``J``, ``thickness``), matrices returned in the body's ``storage`` (an
    ndarray when ``"dense"``, SciPy CSR when ``"banded"`` or ``"sparse"``), the same
    methods, and :class:`NotSupportedError` for what a type cannot do.  DOFs are
    node-major: DOF ``node * dofs_per_node + k``, with ``k`` indexing ``dof_names``.
    """

    _kind: str  #: element kind, a key of the core's element_kinds()
    dof_names: tuple = ()
    #: support name -> DOF offsets it fixes at a node
    _support_dofs: Mapping[str, tuple] = {}
    #: preset -> (first node's support, last node's support); None = free
    _presets: Mapping[str, tuple] = {}
    _default_supports = "free-free"
    #: whether the elements bend (then the section's Izz is required)
    _bending = False
    #: the storages this body type offers (docs/api/contract.md section 2)
    _storages: tuple = ("dense", "banded", "sparse")
    #: "auto" returns a line body's matrices dense up to this many DOFs and in the core's
    #: band (or CSR) layout beyond: measured in bench/bench_scaling.py, the band's motion
    #: terms and sparse eigen path overtake the dense ones near 100 beam elements
    _AUTO_DENSE_NDOF = 300
    #: a line body asked for "sparse" storage is held in the core as a band when its
    #: numbering makes one (every core path runs on a band; the matrices come back CSR all
    #: the same); a MeshBody's "sparse" is the core's CSR
    _sparse_as_band = True
    #: the constructor's name of the connectivity (a mesh's "cells")
    _cells_name = "elements"

    @property
    def default_supports(self):
        """The supports the methods take when given none (a preset name; None: free)."""
        return self._default_supports

    def __init__(self, nodes, elements, *, storage="auto", **material):
        """A body of this type's element kind on any nodes and elements (e.g. a bent beam).

        Parameters
        ----------
        nodes : array_like, shape (n, dim)
            Node coordinates in the body frame [m].
        elements : array_like of int, shape (nel, nodes per element)
            Node indices of each element.
        storage : {"auto", "dense", "banded", "sparse"}
            How the matrices are stored and returned (docs/api/contract.md).
        **material
            The body type's material and section, by the contract's names (``E``, ``A``,
            ``rho``, ``Izz``, ...; see the class).
        """
        if not hasattr(self, "_kind"):
            raise TypeError(f"{type(self).__name__} is a base class without an element kind: "
                            "make a PlanarBeam, an AxialBar, a Beam3D, a Bar3D or a MeshBody")
        section = self._material(**material)
        self._attach(nodes, elements, section, self._storage_code(storage), cells=self._cells_name)

    def _material(self, *, E, A, rho, Izz=None, I=None):  # noqa: E741 (I: the alias users know)
        """Check the material and section by name and return the core's section fields.
        Line bodies: E, A, rho, and Izz for bending (``I`` its alias)."""
        self.E, self.A, self.rho = (_checks.real(name, v, positive=True)
                                    for name, v in (("E", E), ("A", A), ("rho", rho)))
        section = {"E": self.E, "rho": self.rho, "A": self.A}
        # a bad value is named as the user gave it; a missing one by both names
        name = "I" if I is not None else "Izz" if Izz is not None else "Izz (or its alias I)"
        Izz = _alias(Izz, "Izz", I, "I")
        if Izz is not None or self._bending:
            self.Izz = section["Izz"] = _checks.real(name, Izz, positive=True)
        return section

    def _beam_model(self, theory, rotary_inertia, shear_coefficient, nu):
        """Check and keep a beam's model (docs/theory.md section 2.9): ``theory``,
        ``rotary_inertia`` and ``shear_coefficient`` on the body; returns the core's
        section fields kappa_y, kappa_z and rotary."""
        self.theory = _checks.choice("theory", theory, ("euler-bernoulli", "timoshenko"))
        timo = self.theory == "timoshenko"
        self.rotary_inertia = timo if rotary_inertia is None else _checks.flag("rotary_inertia", rotary_inertia)
        if timo:
            self.shear_coefficient = shear_coefficients(shear_coefficient, nu=nu, A=self.A, Izz=self.Izz,
                                                        Iyy=getattr(self, "Iyy", self.Izz))
        elif shear_coefficient is not None:
            raise TypeError(f"shear_coefficient = {_checks._short(shear_coefficient)} needs "
                            "theory='timoshenko' (an Euler-Bernoulli beam has no shear deformation)")
        ky, kz = self.shear_coefficient if timo else (0.0, 0.0)
        return {"kappa_y": ky, "kappa_z": kz, "rotary": 1.0 if self.rotary_inertia else 0.0}

    @property
    def model(self) -> dict:
        """The element model, as the results state it (their ``model`` field): the core's
        element kind and, for beams, the beam theory, whether the sections carry rotary
        inertia and the shear coefficients (docs/theory.md section 2.9)."""
        out = {"element": self._kind}
        if self._kind in ("beam2", "beam2t", "beam3d"):
            out["theory"] = getattr(self, "theory", "euler-bernoulli")
            out["rotary_inertia"] = bool(getattr(self, "rotary_inertia", False))
        if hasattr(self, "shear_coefficient"):
            out["shear_coefficient"] = self.shear_coefficient
        if getattr(self, "shear_centre", (0.0, 0.0)) != (0.0, 0.0):
            out["shear_centre"] = self.shear_centre
        return out

    def _storage_code(self, storage):
        """The core's code of a storage name (-1: "auto", the core's layout), refused with the
        contract's error if the type does not offer it."""
        code = STORAGES[_checks.choice("storage", storage, tuple(STORAGES))]
        self._asked = None if code < 0 else ("dense", "banded", "sparse")[code]
        if self._asked is not None and self._asked not in self._storages:
            raise _not_supported(self, f"storage={storage!r}",
                                 f"it offers {', '.join(map(repr, self._storages))}")
        if self._asked == "sparse" and self._sparse_as_band:
            return -1  # the core's narrow band (CSR if there is none, see _attach)
        return code

    def _auto_storage(self, layout):
        """The contract's storage of ``storage="auto"`` given the core's layout: the layout
        itself, except that a small body (at most _AUTO_DENSE_NDOF DOFs) is returned dense."""
        return "dense" if self.ndof <= self._AUTO_DENSE_NDOF else layout

    def _attach(self, nodes, elements, section, storage=-1, *, cells="elements"):
        """Build the core's body of kind ``self._kind`` (section: the C field names;
        storage: -1 automatic, 0 dense, 1 band, 2 CSR) and read its sizes; ``cells``: the
        caller's name of the connectivity (a mesh's "cells")."""
        try:
            self._body = self._create_core(nodes, elements, section, storage)
            info = _core.body_info(self._body)
            if storage < 0 and info["storage"] == "dense" and getattr(self, "_asked", None) == "sparse":
                # "sparse" asked of a line body whose numbering has no narrow band: CSR
                self._body = self._create_core(nodes, elements, section, STORAGES["sparse"])
                info = _core.body_info(self._body)
        except (ValueError, TypeError) as exc:  # the core's names are coords and conn
            text = re.sub(r"\bconn\b", cells, re.sub(r"\bcoords\b", "nodes", str(exc)))
            raise type(exc)(text) from None
        self.ndof = info["ndof"]
        self.dim = info["dim"]
        self.dofs_per_node = info["ndofn"]
        # the contract's storage, "dense", "banded" or "sparse": what the matrices are returned
        # as.  The core's layout may differ under "auto": a small line body's invariants are
        # held in band form when that is smaller, and still come back dense.
        self._layout = _STORAGE_NAMES[info["storage"]]
        asked = getattr(self, "_asked", None)
        self.storage = asked if asked is not None else self._auto_storage(self._layout)
        if self._layout == "sparse":  # read-only views of the core's own arrays (no copy)
            pat = _core.body_pattern(body=self._body)
            self._indptr, self._indices = pat["indptr"], pat["indices"]
        elif self._layout == "banded":  # the band's rows as a CSR pattern (the core's order)
            self._indptr, self._indices = _band_pattern(self.ndof, info["kl"], info["ku"])
            for a in (self._indptr, self._indices):
                a.setflags(write=False)
        self.nodes = np.array(nodes, dtype=float)
        self.nodes.setflags(write=False)
        self._elements = elements  # the connectivity as given (section forces' element ends, K_G's end axes; a mesh: mesh.blocks)
        self.n_nodes = self.nodes.shape[0]
        # eigen contexts by supports / constraints, least recently used first
        self._eig_cache: OrderedDict = OrderedDict()

    def _create_core(self, nodes, elements, section, storage):
        """The core's body (MeshBody overrides this for meshes of several kinds)."""
        return _core.body_create(kind=_KINDS[self._kind]["kind"], coords=nodes, conn=elements,
                                 section=section, storage=storage)

    # ------------------------------------------------------------ matrices

    def _values(self, name, i=0, j=0):
        """The core's array of a matrix or vector as stored (CSR values when sparse)."""
        return _core.body_matrix(self._body, name, i, j)

    _vector = _values

    def _matrix(self, values):
        """A body-sized matrix of the core in the contract's type: an ndarray for dense
        storage, a SciPy CSR matrix for banded and sparse storage (docs/api/contract.md).
        ``values``: the core's dense (n, n) array, or the values on the body's CSR or band
        pattern (never an n x n array for a band or CSR layout)."""
        if self._layout == "dense":
            if self.storage == "dense":
                return values
            import scipy.sparse as sp

            return sp.csr_matrix(values)
        import scipy.sparse as sp

        if self.storage == "dense":
            return sp.csr_matrix((values, self._indices, self._indptr), shape=(self.ndof, self.ndof)).toarray()
        # the matrix owns copies of the index arrays: SciPy's in-place methods
        # (eliminate_zeros) rewrite them, and must not rewrite the body's pattern
        return sp.csr_matrix((values, self._indices.copy(), self._indptr.copy()), shape=(self.ndof, self.ndof))

    def mass_matrix(self):
        """Consistent mass matrix M = sum_i S_ii [kg], (ndof, ndof) in the body's storage
        type (an ndarray when dense, SciPy CSR when banded or sparse)."""
        return self._matrix(_core.body_matrix(self._body, "M"))

    def stiffness_matrix(self):
        """Elastic stiffness K = int B^T D B [N/m], (ndof, ndof) in the body's storage type."""
        return self._matrix(_core.body_matrix(self._body, "K"))

    def combination(self, coef, stiffness=0.0):
        """stiffness * K + sum_ij coef_ij S_ij, (ndof, ndof) in the body's storage type:
        the form of every motion term (one axpy per block on the stored pattern).  A beam
        whose sections turn to second order (``rotary_inertia=True``) forms K_eps and K_om
        with S_ij + R_ij (``inertia_invariants()["R"]``, docs/theory.md section 2.9):
        :meth:`motion_terms` does; this method combines the S_ij only.

        Parameters
        ----------
        coef : array_like, shape (dim, dim)
            Coefficients of the inertia invariants S_ij [1/s^2].
        stiffness : float
            Coefficient of K.
        """
        c = _checks.array("coef", coef, shape=(self.dim, self.dim))
        k = _checks.real("stiffness", stiffness)
        return self._matrix(_core.body_combine(body=self._body, coef=c, stiffness=k))

    def inertia_invariants(self) -> dict:
        """The inertia invariants the motion terms are built from.

        Returns
        -------
        dict
            ``S``: S_ij = int rho N_i^T N_j dV [kg], an array (dim, dim, ndof, ndof) when
            dense, else a dim x dim nested list of CSR matrices;
            ``s``: (dim, dim, ndof), s_ij = int rho N_i^T x_j dV [kg m];
            ``Mo``: (dim, ndof), Mo_i = int rho N_i^T dV [kg];
            and for a beam whose sections turn to second order (``rotary_inertia``,
            docs/theory.md section 2.9) ``R``: R_ij = int rho H_i x_j dV [kg m^2], as S,
            which K_eps and K_om add to S.
        """
        d = self.dim
        S = [[self._matrix(_core.body_matrix(self._body, "S", i, j)) for j in range(d)] for i in range(d)]
        s = np.array([[_core.body_matrix(self._body, "s", i, j) for j in range(d)] for i in range(d)])
        Mo = np.array([_core.body_matrix(self._body, "Mo", i) for i in range(d)])
        out = {"S": np.array(S) if self.storage == "dense" else S, "s": s, "Mo": Mo}
        if getattr(self, "rotary_inertia", False):
            R = [[self._matrix(_core.body_matrix(self._body, "R", i, j)) for j in range(d)] for i in range(d)]
            out["R"] = np.array(R) if self.storage == "dense" else R
        return out

    # ------------------------------------------------------------ motion

    def _frame(self, omega, eps, a_O, given=None):
        """One instant of the frame's motion (a length-1 frame array): planar rates
        (numbers, about z) or spatial ones (3-vectors), or a given frame array."""
        if given is not None:
            _no_rates_with_frames(omega, eps, a_O, 0.0)
            return frames.given(given, "frames", one=True)
        return frames.from_rates(omega, eps, a_O, dim=self.dim)

    def motion_terms(self, omega=0.0, eps=0.0, a_O=None, *, frames=None) -> MotionTerms:
        """The motion terms at one instant of the frame's rigid motion.

        Parameters
        ----------
        omega : float or array_like, shape (3,)
            Angular velocity of the frame [rad/s]: a number (about its z axis) or, for a
            spatial body, a 3-vector in body axes.
        eps : float or array_like, shape (3,)
            Angular acceleration [rad/s^2], the same way.
        a_O : array_like, shape (dim,), optional
            Acceleration of the frame origin in the body frame [m/s^2]; subtract
            gravity (a_O - g, both in the body frame) to include it.  A spatial body
            takes 2 or 3 components.
        frames : ndarray of kanefem.FRAME_DTYPE, optional
            The instant as a frame state (see :mod:`kanefem.frames`) instead of the
            rates above.

        Returns
        -------
        MotionTerms
            Matrices in the body's storage type, vectors as ndarrays.

        Raises
        ------
        ValueError
            Non-finite rates; a planar body given a rotation about x or y.
        """
        frame = self._frame(omega, eps, a_O, frames)
        r = _core.motion_terms(body=self._body, frame=frame)
        return MotionTerms(C=self._matrix(r["C"]), K_eps=self._matrix(r["K_eps"]), K_om=self._matrix(r["K_om"]),
                           q_eps=r["q_eps"], q_om=r["q_om"], q_a=r["q_a"])

    def inertia_forces(self, d, d_t, d_tt, omega=0.0, eps=0.0, a_O=None, route="invariants", *,
                       frames=None):
        """Kane's generalized inertia forces at one state of the body.

        F*_r = -int rho (R N_r)^T a dV, with the partial velocities R N_r of the
        nodal rates and the acceleration a of every point, which in the body frame is
        a_O + (E + W W)(x + N d) + 2 W N d' + N d''.  Gibbs-Appell's dS/dd'' (S =
        1/2 int rho a.a dV) has the same integrand: it is -F*.

        Parameters
        ----------
        d, d_t, d_tt : array_like, shape (ndof,)
            Nodal displacements [m, rad], their rates and accelerations.
        omega, eps : float or array_like, shape (3,)
            Angular velocity [rad/s] and acceleration [rad/s^2] of the frame (numbers:
            about z; 3-vectors: body axes, spatial bodies).
        a_O : array_like, shape (dim,), optional
            Acceleration of the frame origin in the body frame [m/s^2] (a_O - g to
            include gravity).
        route : {"invariants", "quadrature"}
            ``"invariants"``: from the motion terms, F* = -(M d'' + C d' + (K_eps +
            K_om) d + q_a + q_eps + q_om), as the equations of motion use them;
            ``"quadrature"``: the integral itself, by each element's Gauss rule in the
            C core at this state (an independent check of the invariants).
        frames : ndarray of kanefem.FRAME_DTYPE, optional
            The instant as a frame state instead of omega, eps, a_O.

        Returns
        -------
        ndarray, shape (ndof,)
            F* [N, N m]: generalized inertia forces (the negative of the equations'
            inertial left-hand side).

        Raises
        ------
        ValueError
            Wrong lengths, non-finite values, unknown route.

        Examples
        --------
        >>> import numpy as np
        >>> beam = PlanarBeam(1.0, 4, E=2.1e11, A=1e-4, I=1e-8, rho=7800)
        >>> d = np.full(beam.ndof, 1e-3)
        >>> f1 = beam.inertia_forces(d, d, d, omega=3.0, eps=20.0, a_O=(1.0, -9.81))
        >>> f2 = beam.inertia_forces(d, d, d, 3.0, 20.0, (1.0, -9.81), route="quadrature")
        >>> bool(np.allclose(f1, f2, rtol=1e-13, atol=0))
        True
        """
        _checks.choice("route", route, ("invariants", "quadrature"))
        states = [_checks.array(name, v, shape=(self.ndof,))
                  for name, v in (("d", d), ("d_t", d_t), ("d_tt", d_tt))]
        frame = self._frame(omega, eps, a_O, frames)
        if route == "quadrature":
            return _core.inertia_forces_direct(body=self._body, d=states[0], d_t=states[1],
                                               d_tt=states[2], frame=frame)
        d, d_t, d_tt = states
        t = self.motion_terms(frames=frame)
        with np.errstate(all="ignore"):
            f = -(self.mass_matrix() @ d_tt + t.C @ d_t + (t.K_eps + t.K_om) @ d
                  + t.q_a + t.q_eps + t.q_om)
        if not np.all(np.isfinite(f)):
            raise ValueError("the inertia forces of d, d_t, d_tt, omega, eps and a_O overflow "
                             f"(largest |d''| = {np.abs(d_tt).max(initial=0):g}, omega = {omega!r})")
        return f

    # ------------------------------------------------------------ supports

    def _node_index(self, node, name="supports node"):
        """A node index (negative: from the end) checked against the nodes, by ``name``."""
        return _checks.index(name, node, self.n_nodes, "nodes")

    def support_mask(self, supports) -> np.ndarray:
        """Which DOFs a support specification fixes (boolean, length ndof).

        Parameters
        ----------
        supports : str, dict or None
            A preset name (see the class's ``support_presets``), a dict
            ``{node_index: kind}`` with kind a name from ``support_kinds`` or a
            tuple of DOF names, or None for no supports.
        """
        fixed = np.zeros(self.ndof, dtype=bool)
        if supports is None:
            return fixed
        if isinstance(supports, str):
            if supports not in self._presets:
                raise ValueError(
                    f"supports = {supports!r} is not a known preset for {type(self).__name__} "
                    f"({', '.join(map(repr, self._presets))}) and not a dict {{node: kind}}"
                )
            first, last = self._presets[supports]
            supports = {}
            if first:
                supports[0] = first
            if last:
                supports[self.n_nodes - 1] = last
        if not isinstance(supports, Mapping):
            raise TypeError(f"supports must be a preset name or a dict, got {supports!r}")
        for node, kind in supports.items():
            k = self._node_index(node)
            if isinstance(kind, str):
                if kind not in self._support_dofs:
                    raise ValueError(
                        f"supports[{node!r}] = {kind!r} is not one of "
                        f"{', '.join(map(repr, self._support_dofs))} (or a tuple of DOF names "
                        f"from {self.dof_names})"
                    )
                offsets = self._support_dofs[kind]
            else:
                try:
                    offsets = tuple(self.dof_names.index(name) for name in kind)
                except (TypeError, ValueError):
                    raise ValueError(
                        f"supports[{node!r}] = {kind!r}: DOF names must come from {self.dof_names}"
                    ) from None
            for off in offsets:
                fixed[k * self.dofs_per_node + off] = True
        return fixed

    def constraint_matrix(self, supports) -> np.ndarray:
        """The supports as linear constraints G d = 0: one row of the identity per
        fixed DOF (shape (n_fixed, ndof)), to combine with other constraint rows.

        Parameters
        ----------
        supports : str, dict or None
            As in :meth:`support_mask`.
        """
        fixed = self.support_mask(supports)
        if self.storage == "dense":
            return np.eye(self.ndof)[fixed]
        import scipy.sparse as sp  # the storage rule: CSR rows, never an ndof x ndof identity

        return sp.identity(self.ndof, format="csr")[np.flatnonzero(fixed)]

    def _projected_context(self, supports, geometric, constraints):
        """The eigen context of d = B z, B an orthonormal null-space basis of the
        stacked support and constraint rows (Maggi's projection), cached."""
        G = _constraint_rows(constraints, self.ndof).toarray()  # the dense route: a small body
        if supports is not None:
            S = self.constraint_matrix(supports)
            G = np.vstack([S if isinstance(S, np.ndarray) else S.toarray(), G])
        key = ("constraints", G.shape, G.tobytes(), geometric)
        ctx = self._cache_get(key)
        if ctx is None:
            B = maggi_basis(G)
            if B.shape[1] == 0:
                raise ValueError(f"constraints (with supports={supports!r}) fix all {self.ndof} DOFs: nothing can move")
            ctx = self._cache_put(key, _interrupt.call(_core.eig_create_projected, body=self._body,
                                                                  basis=B, geometric=geometric,
                                                                  flops=_EIG_FLOPS * B.shape[1]**3))
        return ctx

    def _eig_context(self, supports, geometric=False, constraints=None):
        """The core's eigen context for these supports, made once and cached; with
        constraints, for Maggi's projection (:meth:`_projected_context`).  With K_G of a
        body that takes it from its prestress, the core's basis is made for these
        supports first (:meth:`_geometric_basis`)."""
        if geometric and not self._straight_kg():
            if constraints is not None:
                raise _not_supported(self, "constraints with geometric_stiffness",
                                     "K_G from the prestress is solved with supports only; give the supports")
            with self._kg_lock():  # the basis and the context made from it, together
                self._geometric_basis(supports)
                return self._supports_context(supports, True)
        if constraints is not None:
            return self._projected_context(supports, geometric, constraints)
        return self._supports_context(supports, geometric)

    def _supports_context(self, supports, geometric):
        """The core's eigen context for these supports, cached."""
        fixed = self.support_mask(supports)
        key = ("supports", fixed.tobytes(), geometric)
        ctx = self._cache_get(key)
        if ctx is None:
            ctx = self._cache_put(key, _interrupt.call(_core.eig_create, body=self._body, fixed=fixed,
                                                        geometric=geometric,
                                                        flops=_EIG_FLOPS * float((~fixed).sum())**3))
        return ctx

    def _cache_get(self, key):
        ctx = self._eig_cache.get(key)
        if ctx is not None:
            self._eig_cache.move_to_end(key)
        return ctx

    def _cache_put(self, key, ctx):
        """Keep ctx, dropping the least recently used contexts beyond the bound (each
        holds dense matrices of the free DOFs: an unbounded cache of constraint sets
        would grow without limit)."""
        self._eig_cache[key] = ctx
        while len(self._eig_cache) > _EIG_CACHE_SIZE:
            self._eig_cache.popitem(last=False)
        return ctx

    # ------------------------------------------------------------ banded and sparse bodies (issue 19)

    def _sparse_context(self, fixed):
        """The sparse eigen context (shift-invert on the band/CSR factor, docs/theory.md
        section 3.12) of these fixed DOFs, made once and cached."""
        from .sparse import SparseEigen

        key = ("sparse", fixed.tobytes())
        ctx = self._cache_get(key)
        if ctx is None:
            ctx = SparseEigen(self, fixed)
            if self._sparse_as_band:  # a line body (a mesh keeps the rule of section 3.12)
                self._shift_below(ctx)
            ctx = self._cache_put(key, ctx)
        return ctx

    def _constrained(self, supports, constraints, geometric=False):
        """The supports and constraints as d = T z (:func:`kanefem.elimination_basis`),
        the body projected on it and its sparse eigen context (docs/theory.md section 3.3),
        cached: a :class:`_ProjectedBody` with ``ctx``.  With ``geometric`` for a body
        whose K_G comes from its prestress, the prestress of the constrained motions is
        made first (the projection takes the basis it finds)."""
        from .sparse import SparseEigen

        fixed = self.support_mask(supports)
        G = _constraint_rows(constraints, self.ndof)
        prestress = bool(geometric) and not self._straight_kg()
        key = ("constrained", fixed.tobytes(), G.shape, G.indptr.tobytes(), G.indices.tobytes(), G.data.tobytes(),
               prestress)
        proj = self._cache_get(key)
        if proj is None:
            T, masters = elimination_basis(G, fixed=fixed)
            if T.shape[1] == 0:
                raise ValueError(f"constraints (with supports={supports!r}) fix all {self.ndof} DOFs: nothing can move")
            lock = self._kg_lock() if prestress else contextlib.nullcontext()
            with lock:  # the prestress of the constrained motions, projected with the rest
                if prestress:
                    self._geometric_basis(supports, (key, T, masters))
                proj = _ProjectedBody(self, T, masters)
            proj.prestress = (key, T, masters) if prestress else None
            proj.ctx = SparseEigen(proj, np.zeros(proj.ndof, dtype=bool))
            if self._sparse_as_band:  # a line body: the rule of section 3.16
                self._shift_below(proj.ctx)
            proj = self._cache_put(key, proj)
        return proj

    def _shift_below(self, ctx):
        """Put the context's shift delta well below the lowest eigenvalue of a long line
        body whose K is singular (rigid-body modes; a regular K is factored unshifted,
        delta = 0).  The rule delta = 1e-8 max(K_ii / M_ii) grows as h^-2 (axial) to h^-4
        (bending): at 1e4 beam elements it lies 100x above lambda_1, and shift-invert about
        -delta then sees the lowest modes bunched (ARPACK stalls).  The Rayleigh quotient q
        of the static deflection under the mass load, x = (K + delta M)^-1 M 1, is within a
        few per cent of lambda_1 (above it); delta = 1e-2 q keeps the factor regular with
        rigid-body modes (x is then mostly rigid, q small: a few rounds at most, and never
        below 1e-20 max(K_ii / M_ii))."""
        from .sparse import factor

        if ctx.red.n < 2 or ctx.delta == 0.0:
            return
        for _ in range(3):
            with np.errstate(all="ignore"):  # a nearly singular factor: x not finite, delta kept
                x = ctx.F.solve(ctx.M @ np.ones(ctx.red.n))
                kx, mx = float(x @ (ctx.K @ x)), float(x @ (ctx.M @ x))
            # (x M x underflows to 0 for a body of rho ~ 1e-150: delta kept)
            q = kx / mx if mx > 0.0 and math.isfinite(kx) else math.nan
            if not math.isfinite(q):
                return
            delta = max(min(ctx.delta, 1e-2 * q), 1e-20 * ctx.scale)
            if not delta < 0.5 * ctx.delta:
                return
            try:
                F = factor(ctx.K + delta * ctx.M, True, ctx.order)
            except RuntimeError:  # exactly singular (rigid-body modes): the last regular shift
                return
            ctx._delta, ctx.F, ctx.rest = delta, F, {}

    def _frames(self, omega, eps, a_O, given=None):
        """Instants of the frame's motion (a frame array (nt,)): planar rates ((nt,)
        numbers about z) or spatial ones ((nt, 3) vectors), or a given frame array."""
        if given is not None:
            _no_rates_with_frames(omega, eps, a_O, None)
            return frames.given(given, "frames")
        if omega is None or eps is None:
            raise TypeError("give the frame's motion as omega and eps, or as frames=")
        return frames.from_rates(omega, eps, a_O, instants=True, dim=self.dim)

    def _straight_kg(self):
        """Whether the core holds the straight line body's K_G basis (N(x) = c0 + c1 x +
        c2 x^2, docs/theory.md section 2.4); else K_G comes from the prestress (2.11)."""
        info = _core.body_geometric_info(body=self._body)
        return info["nkg"] == 3 and not info["prestress"]

    def _kg_lock(self):
        """The lock of the core's K_G basis: making it for a support set and using it
        (an eigen context, an integrator) happen together."""
        return self.__dict__.setdefault("_kg_lock_", threading.RLock())

    def _end_axes(self):
        """Unit axes (2, dim) of the end loads of a line body: at the first node along its
        element, from it; at the last node along its element, towards it (+x for a
        straight body).  Zero at an end node shared by several elements (no end load)."""
        axes = np.zeros((2, self.dim))
        if self.dim + self.dim * self.dim == self._n_prestress_cases():
            return axes
        conn = np.asarray(self._elements, dtype=np.int64)
        for end, node in enumerate((0, self.n_nodes - 1)):
            rows = np.flatnonzero((conn == node).any(axis=1))
            if rows.size == 1:
                other = conn[rows[0]][conn[rows[0]] != node][0]
                v = self.nodes[other] - self.nodes[node]
                axes[end] = (v if end == 0 else -v) / np.linalg.norm(v)
        return axes

    def _n_prestress_cases(self):
        """a_i (dim), (E + W W)_ij (dim^2), and two end loads for line bodies."""
        return self.dim + self.dim**2 + (2 if self._kind in _LINE_KINDS else 0)

    def _prestress_loads(self):
        """The unit load cases f_c (ncase, ndof) of the prestress (docs/theory.md section
        2.11: -Mo_i, -s_ij, a line body's two end loads) and the end axes."""
        d, n = self.dim, self.ndof
        F = [-np.asarray(self._vector("Mo", i)) for i in range(d)]
        F += [-np.asarray(self._vector("s", i, j)) for i in range(d) for j in range(d)]
        axes = self._end_axes()
        if len(F) < self._n_prestress_cases():
            for end, node in enumerate((0, self.n_nodes - 1)):
                f = np.zeros(n)
                f[node * self.dofs_per_node: node * self.dofs_per_node + d] = axes[end]
                F.append(f)
        return np.array(F), axes

    def _prestress_fields(self, fixed, basis=None, masters=None):
        """Static solutions K u_c = f_c (ncase, ndof) of the unit load cases on the free
        DOFs (docs/theory.md section 2.11), and the end axes.  With a constraint basis
        (d = T z, :func:`kanefem.elimination_basis`; masters the DOFs of z) on the
        constrained motions: T^T K T z = T^T f, u = T z."""
        import scipy.sparse as sp

        F, axes = self._prestress_loads()
        free = ~fixed
        if not free.any() or (basis is not None and basis.shape[1] == 0):
            raise ValueError("the supports fix every DOF: nothing can move")
        K = self.stiffness_matrix()
        from .sparse import dof_points

        points = dof_points(self)
        if basis is None:
            Kf = sp.csr_matrix(K)[free][:, free] if sp.issparse(K) else K[np.ix_(free, free)]
            rhs = F[:, free].T
            points = None if points is None else points[free]
        else:  # the constrained motions (Maggi)
            Kf = basis.T @ K @ basis
            Kf = sp.csr_matrix(Kf) if sp.issparse(Kf) else np.asarray(Kf)
            rhs = np.asarray(basis.T @ F.T)
            points = None if points is None else points[masters]
        nf = Kf.shape[0]
        U = np.zeros_like(F)
        bad = ValueError(f"geometric_stiffness of a {type(self).__name__} comes from the static prestress "
                         "K u = f of the frame's inertial loads, which needs supports that hold the body "
                         f"(K is singular on the {nf} free DOFs: a rigid-body motion is free)")
        # a free rigid-body motion leaves a pivot at round-off of the largest diagonal entry
        # (factorizations of a singular K often succeed): refused below 1e-13 of it
        if sp.issparse(Kf):
            from .sparse import Factor, nearly_singular, nested_dissection

            # a mesh: in nested-dissection order, and singular by the Rayleigh quotient
            # test rather than its pivots (SciPy would keep a copy of the factor)
            mesh = not self._sparse_as_band and points is not None
            order = nested_dissection(Kf.indptr, Kf.indices, points) if mesh else None
            try:
                fac = Factor(Kf, symmetric=True, order=order)
            except RuntimeError:
                raise bad from None
            if mesh:
                pivots = np.zeros(1) if nearly_singular(fac, Kf) else np.full(1, np.inf)
            else:
                pivots = np.abs(fac.lu.U.diagonal())
            X = fac.solve(rhs)
        else:
            import scipy.linalg as la

            try:
                cho = la.cho_factor(Kf)
            except la.LinAlgError:
                raise bad from None
            pivots = np.diag(cho[0]) ** 2
            X = la.cho_solve(cho, rhs)
        if pivots.min() < 1e-13 * Kf.diagonal().max():
            raise bad
        X = np.asarray(X).reshape(nf, -1)
        res = Kf @ X - rhs
        scale = np.abs(Kf).max() * np.abs(X).max() + np.abs(F).max()
        if not np.all(np.isfinite(X)) or np.abs(res).max() > 1e-8 * scale:
            raise bad
        if basis is None:
            U[:, free] = X.T
        else:
            U[:] = np.asarray(basis @ X).T
        return U, axes

    def _geometric_basis(self, supports, constrained=None):
        """Make the core's K_G basis the prestress of these supports (a no-op for a
        straight line body, whose basis does not depend on them); with ``constrained``
        (key, basis, masters) the prestress of the constrained motions.  Call under
        _kg_lock."""
        if self._straight_kg():
            return
        fixed = self.support_mask(supports)
        key = fixed.tobytes() if constrained is None else constrained[0]
        if getattr(self, "_prestress_key", None) == key:
            return
        if constrained is None:
            U, axes = self._prestress_fields(fixed)
        else:
            U, axes = self._prestress_fields(fixed, constrained[1], constrained[2])
        _core.body_set_prestress(body=self._body, fields=U, axes=axes)
        self._prestress_key = key

    def _line_only(self, what):
        """What only line bodies take (a MeshBody refuses it with the contract's error)."""

    def _axial_rows(self, motion, supports, end_forces, constrained=None):
        """K_G coefficients (nt, nkg) at the frame states motion: the quasi-static axial
        force (c0, c1, c2) of a straight line body, the prestress load cases' otherwise
        (with the body's basis made for the supports, or for ``constrained``, see
        :meth:`_geometric_basis`)."""
        fixed = self.support_mask(supports)
        f_first, f_last = (0.0, 0.0) if end_forces is None else _checks.array("end_forces", end_forces, shape=(2,))
        if f_first or f_last:
            self._line_only("end_forces")
        if not self._straight_kg():
            with self._kg_lock():
                self._geometric_basis(supports, constrained)
            axes = self._end_axes()
            for k, f in enumerate((f_first, f_last)):
                if f != 0.0 and not axes[k].any():
                    raise ValueError(f"end_forces[{k}] = {f!r}: the {('first', 'last')[k]} node is shared by "
                                     "several elements, so it has no end axis to load along")
        last_u = (self.n_nodes - 1) * self.dofs_per_node
        return _core.axial_force(body=self._body, frames=motion, f_first=f_first, f_last=f_last,
                                 fixed_first=bool(fixed[0]), fixed_last=bool(fixed[last_u]))

    def _n_kg(self):
        """The number of K_G coefficients per instant (3 for a straight line body)."""
        return 3 if self._straight_kg() else self._n_prestress_cases()

    def _eigen_options(self, n_modes, include_eps, mode_shapes, geometric_stiffness):
        """The eigen methods' common options, checked by name."""
        return (_checks.integer("n_modes", n_modes, minimum=1, maximum=self.ndof),
                _checks.flag("include_eps", include_eps), _checks.flag("mode_shapes", mode_shapes),
                _checks.flag("geometric_stiffness", geometric_stiffness))

    def _geometric_rows(self, motion, supports, end_forces, axial_force, constraints=None):
        """K_G coefficients (nt, nkg): given, or those of each instant's frame; with
        constraints the prestress is the constrained motions' (:meth:`_constrained`)."""
        if axial_force is not None:
            return _checks.array("axial_force", axial_force, shape=(motion.shape[0], self._n_kg()))
        pre = None if constraints is None else self._constrained(supports, constraints, True).prestress
        return self._axial_rows(motion, supports, end_forces, pre)

    def axial_force(self, omega=0.0, eps=0.0, a_O=None, supports=None, end_forces=(0.0, 0.0), *,
                    frames=None):
        """The K_G coefficients of one instant: for a straight line body on its frame's x
        axis the axial force of the quasi-static axial equilibrium, N(x) = c0 + c1 x + c2
        x^2; for any other body (a coned, swept or bent line body, a mesh) the
        coefficients of its prestress load cases (docs/theory.md section 2.11).

        A straight body carries the inertial load of its frame's motion, -rho A (a_x +
        (W W)_xx x) per unit length ((W W)_xx = -omega^2 in the plane, -(omega_y^2 +
        omega_z^2) in space), and the applied axial end forces; the supports say which
        ends are axially fixed (one fixed end: the free end sets N; both: no net
        elongation; none: the first end sets N).  Any other body takes the linear static
        prestress K u = f of the same loads with its supports, which must hold it; its
        K_G is sum_c coef_c K_G,c over the unit load cases (a_i, then (E + W W)_ij, then
        the two end loads of a line body), and the coefficients returned are those
        (a_O's components, E + W W row by row, f_first, f_last).

        Parameters
        ----------
        omega, eps : float or array_like, shape (3,)
            Frame angular velocity [rad/s] and acceleration [rad/s^2] (numbers: about z).
        a_O : array_like, shape (dim,), optional
            Acceleration of the frame origin minus gravity, in the body frame [m/s^2].
        supports : str or dict, optional
            As in :meth:`eigenvalues`.
        end_forces : (float, float)
            Applied axial forces at the first and last node, +x positive [N] (line bodies;
            a bent one: along the end element's axis, outward at the last node).
        frames : ndarray of kanefem.FRAME_DTYPE, optional
            The instant as a frame state instead of omega, eps, a_O.

        Returns
        -------
        ndarray, shape (nkg,)
            Straight line body: (c0, c1, c2) [N, N/m, N/m^2], tension positive, x the
            body-frame coordinate.  Otherwise the load-case coefficients (nkg = dim +
            dim^2 [+ 2]).

        Raises
        ------
        ValueError
            Supports that do not hold a body whose K_G comes from its prestress.
        NotSupportedError
            ``end_forces`` on a MeshBody.
        """
        motion = self._frame(omega, eps, a_O, frames)
        supports = self._default_supports if supports is None else supports
        return self._axial_rows(motion, supports, end_forces)[0]

    def geometric_stiffness(self, axial_force, supports=None):
        """Geometric stiffness K_G [N/m]: int N(x) G^T G ds for N(x) = c0 + c1 x + c2 x^2
        (a straight line body), sum_c coef_c K_G,c over the prestress load cases of the
        supports (any other body; docs/theory.md section 2.11).

        Parameters
        ----------
        axial_force : array_like, shape (nkg,)
            Coefficients from :meth:`axial_force`: (c0, c1, c2), tension positive [N, N/m,
            N/m^2], or the load-case coefficients.
        supports : str, dict or list, optional
            The supports of the prestress (bodies other than straight line bodies);
            default the type's.

        Returns
        -------
        ndarray or CSR matrix, shape (ndof, ndof)
            In the body's storage type; symmetric, positive semidefinite under tension.
            Zero for a planar bar.
        """
        supports = self._default_supports if supports is None else supports
        with self._kg_lock():
            self._geometric_basis(supports)
            c = _checks.array("axial_force", axial_force, shape=(self._n_kg(),))
            return self._matrix(_core.geometric_matrix(body=self._body, coefficients=c))

    # ------------------------------------------------------------ eigenvalues

    def eigenvalues(
        self,
        n_modes,
        omega=0.0,
        eps=0.0,
        supports=None,
        include_eps=True,
        mode_shapes=True,
        geometric_stiffness=False,
        a_O=None,
        end_forces=None,
        axial_force=None,
        constraints=None,
        *,
        frames=None,
        solver="auto",
    ) -> EigenResult:
        """Frozen-time eigenvalues at one instant of the frame's motion.

        Solves (K + K_om + K_eps) phi = lambda M phi with the supports' DOFs
        eliminated.  With K_eps off (or eps = 0) the problem is symmetric and, for
        a planar body, lambda_k = lambda_k(at rest) - omega^2 exactly.

        Parameters
        ----------
        n_modes : int
            Number of lowest modes, 1..(free DOFs).
        omega, eps : float or array_like, shape (3,)
            Angular velocity [rad/s] and acceleration [rad/s^2] of the frame: numbers
            (about z) or, for a spatial body, 3-vectors in body axes.
        supports : str or dict, optional
            See :meth:`support_mask`; default: the class's usual supports
            (``"pinned-pinned"`` for a beam, ``"fixed-free"`` for a bar).
        include_eps : bool
            Include the non-symmetric K_eps (then the general solver is used
            whenever eps != 0).
        mode_shapes : bool
            Also return the mode shapes.
        geometric_stiffness : bool
            Add K_G (stress stiffening) from the axial force: ``axial_force`` if
            given, else the quasi-static one under the frame's motion, ``a_O`` and
            ``end_forces`` (see :meth:`axial_force`).  Off by default, as in the
            seeds' model.
        a_O, end_forces, axial_force
            Only used with ``geometric_stiffness``: origin acceleration minus gravity
            in the body frame [m/s^2] (dim,), axial end forces [N] (2,), or the axial
            force coefficients (c0, c1, c2) directly.
        constraints : array_like or scipy.sparse matrix, shape (k, ndof), optional
            Linear constraints G d = 0 on the DOFs, eliminated by Maggi's projection
            onto a basis of their null space (docs/theory.md section 3.3): with
            ``solver="dense"`` an orthonormal one (:func:`kanefem.maggi_basis`, at most
            5000 DOFs; redundant rows dropped by rank), with ``"sparse"`` the sparse
            elimination basis (:func:`kanefem.elimination_basis`, any size; dependent
            rows refused by name).  Mode shapes are returned over all DOFs and satisfy
            G phi = 0.  With constraints, ``supports=None`` means no supports (give
            both to combine them), and the quasi-static axial force of
            ``geometric_stiffness`` takes its end conditions from ``supports`` only
            (a prestress K_G, section 2.11, the static solution of the constrained
            motions: sparse solver).
        frames : ndarray of kanefem.FRAME_DTYPE, optional
            The instant as a frame state instead of omega, eps, a_O.
        solver : {"auto", "dense", "sparse"}
            "dense": the core's dense solver (section 3.5); "sparse": shift-invert on a
            sparse factor, refined in double-double and certified (sections 3.12, 3.17:
            ``error_bounds`` in the result); "auto": sparse beyond
            ``SPARSE_EIGEN_FROM`` (1000) free DOFs, where the dense solve of the
            ill-conditioned problem loses digits, or for a body stored banded or sparse
            (with constraints too).

        Returns
        -------
        EigenResult
            ``eigenvalues`` [rad^2/s^2] (n_modes,), ``frequencies_hz``,
            ``mode_shapes`` (ndof, n_modes), ``solver``, ``error_bounds`` (sparse).

        Raises
        ------
        ValueError
            Bad sizes, non-finite rates, unknown supports.
        """
        if constraints is None:
            supports = self._default_supports if supports is None else supports
        n_modes, include_eps, mode_shapes, geometric = self._eigen_options(
            n_modes, include_eps, mode_shapes, geometric_stiffness)
        motion = self._frame(omega, eps, a_O, frames)
        kg = None
        route = self._eigen_solver(solver, supports, constraints)
        if geometric:
            one = None if axial_force is None else _checks.array("axial_force", axial_force,
                                                                 shape=(self._n_kg(),))
            kg = self._geometric_rows(motion, supports, end_forces, None if one is None else one[None, :],
                                      constraints if route == "sparse" else None)
        if route == "sparse":
            return self._sparse_eigen(motion, n_modes, supports, include_eps, "ascending", mode_shapes, kg,
                                      one=True, constraints=constraints)
        ctx = self._eig_context(supports, geometric, constraints)
        r = _interrupt.call(_core.eig_solve, eig=ctx, frames=motion, n_modes=n_modes,
                            include_eps=bool(include_eps), vectors=bool(mode_shapes), tracked=False,
                            axial_force=kg, polls=True, flops=_EIG_FLOPS * float(self.ndof)**3)
        shapes = r["mode_shapes"]
        return EigenResult(
            eigenvalues=r["eigenvalues"][0],
            eigenvalues_imag=r["eigenvalues_imag"][0],
            mode_shapes=None if shapes is None else shapes[0],
            solver=r["stats"].pop("solver"),
            stats=r["stats"],
            model=self.model,
        )

    def eigenvalues_vs_time(
        self,
        omega=None,
        eps=None,
        n_modes=None,
        supports=None,
        include_eps=True,
        order="ascending",
        mode_shapes=True,
        geometric_stiffness=False,
        a_O=None,
        end_forces=None,
        axial_force=None,
        constraints=None,
        *,
        frames=None,
        solver="auto",
    ) -> EigenResult:
        """Frozen-time eigenvalues over a time grid, in one call to the core.

        Parameters
        ----------
        omega, eps : array_like, shape (nt,) or (nt, 3)
            Angular velocity [rad/s] and acceleration [rad/s^2] of the frame at
            each instant: numbers (about z) or, for a spatial body, 3-vectors in body
            axes.
        n_modes : int
            Number of modes, 1..(free DOFs).
        supports, include_eps, mode_shapes, geometric_stiffness, end_forces, constraints
            As in :meth:`eigenvalues`.
        a_O : array_like, shape (nt, dim), optional
            With ``geometric_stiffness``: origin acceleration minus gravity at each
            instant, in the body frame [m/s^2].
        axial_force : array_like, shape (nt, 3), optional
            With ``geometric_stiffness``: the axial force coefficients at each instant
            (overrides the quasi-static axial force).
        order : {"ascending", "tracked"}
            ``"ascending"``: sorted by value at every instant.  ``"tracked"``: mode
            k keeps its identity from instant to instant (matched by shape), so a
            curve follows one mode through crossings.
        frames : ndarray of kanefem.FRAME_DTYPE, shape (nt,), optional
            The instants as frame states (e.g. ``Motion.evaluate(t).frames``) instead of
            omega, eps, a_O.
        solver : {"auto", "dense", "sparse"}
            As in :meth:`eigenvalues`; "sparse" continues each instant from the previous
            one's modes (a full shift-invert solve only as the safeguard).

        Returns
        -------
        EigenResult
            ``eigenvalues`` (nt, n_modes), ``mode_shapes`` (nt, ndof, n_modes) or
            None, ``solver``, ``stats`` (instants solved by continuation and by a
            full decomposition), ``error_bounds`` (sparse).
        """
        n_modes, include_eps, mode_shapes, geometric = self._eigen_options(
            n_modes, include_eps, mode_shapes, geometric_stiffness)
        motion = self._frames(omega, eps, a_O, frames)
        _checks.output_size("omega and n_modes", motion.shape[0] * n_modes * (2.0 + mode_shapes * self.ndof),
                            "eigenvalues" + " and mode shapes" * mode_shapes)
        _checks.choice("order", order, ("ascending", "tracked"))
        if constraints is None:
            supports = self._default_supports if supports is None else supports
        route = self._eigen_solver(solver, supports, constraints)
        kg = None
        if geometric:
            kg = self._geometric_rows(motion, supports, end_forces, axial_force,
                                      constraints if route == "sparse" else None)
        if route == "sparse":
            return self._sparse_eigen(motion, n_modes, supports, include_eps, order, mode_shapes, kg,
                                      constraints=constraints)
        ctx = self._eig_context(supports, geometric, constraints)
        r = _interrupt.call(_core.eig_solve, eig=ctx, frames=motion, n_modes=n_modes,
                            include_eps=bool(include_eps), vectors=bool(mode_shapes),
                            tracked=order == "tracked", axial_force=kg, polls=True,
                            flops=_EIG_FLOPS * float(self.ndof)**3)
        return EigenResult(
            eigenvalues=r["eigenvalues"],
            eigenvalues_imag=r["eigenvalues_imag"],
            mode_shapes=r["mode_shapes"],
            solver=r["stats"].pop("solver"),
            order=order,
            stats=r["stats"],
            model=self.model,
        )


    #: free DOFs beyond which solver="auto" takes the sparse eigen path (section 3.17)
    SPARSE_EIGEN_FROM = 1000

    def _eigen_solver(self, solver, supports, constraints):
        """"dense" or "sparse" for an eigen call (solver checked by name)."""
        _checks.choice("solver", solver, ("auto", "dense", "sparse"))
        if solver == "dense" and constraints is not None and self.ndof > _DENSE_EIGEN_NDOF:
            raise _not_supported(self, f"solver='dense' with constraints= and {self.ndof} DOFs",
                                 "the dense Maggi projection (an orthonormal basis by QR) takes at "
                                 f"most {_DENSE_EIGEN_NDOF} DOFs; solver='sparse' (or 'auto') eliminates "
                                 "one DOF per constraint and keeps the matrices sparse")
        if solver == "auto":
            free = int((~self.support_mask(supports)).sum())
            # a body kept banded or sparse (section 3.16), or a large one: the sparse path
            # (with constraints too: the elimination basis keeps it sparse, section 3.3)
            return "sparse" if free > self.SPARSE_EIGEN_FROM or self.storage != "dense" else "dense"
        return solver

    def _beyond_precision(self, detail):
        """The error of a sparse eigen solve that double precision cannot carry out (a factor
        that is not positive definite, a non-finite vector or bound: found with E, A, I or rho
        dozens of decades apart), naming the inputs whose scales cause it."""
        return _core.RangeError(f"the sparse eigen solve of this {type(self).__name__} failed in double precision "
                                f"({detail}): its stiffness and mass (E, A, I, rho) span more decades than "
                                "16 digits resolve")

    def _sparse_eigen(self, motion, n_modes, supports, include_eps, order, mode_shapes, kg, one=False,
                      constraints=None, progress=None):
        """EigenResult of the sparse path (sparse.eigen_solve) at the frame states motion;
        with constraints on the projected body (section 3.3), shapes expanded d = T z."""
        from .sparse import eigen_solve

        try:
            if constraints is None:
                ctx = self._sparse_context(self.support_mask(supports))
            else:
                proj = self._constrained(supports, constraints, kg is not None)
                ctx = proj.ctx
            lam, im, shapes, st = eigen_solve(ctx, motion, n_modes, bool(include_eps), bool(mode_shapes),
                                              order == "tracked", progress, kg)
        except (RuntimeError, ValueError) as e:  # the arguments were checked before: numerics
            if isinstance(e, _core.KanefemError):
                raise
            raise self._beyond_precision(str(e)) from None
        if constraints is not None and shapes is not None:
            shapes = _expand_shapes(proj, shapes, order == "tracked")
        bounds = st.pop("error_bounds")
        if not all(np.all(np.isfinite(x)) for x in (lam, im, bounds, 0.0 if shapes is None else shapes)):
            raise self._beyond_precision("a non-finite eigenvalue, bound or shape")
        solver = st.pop("solver")
        if one:
            return EigenResult(eigenvalues=lam[0], eigenvalues_imag=im[0],
                               mode_shapes=None if shapes is None else shapes[0], solver=solver, stats=st,
                               error_bounds=bounds[0], model=self.model)
        return EigenResult(eigenvalues=lam, eigenvalues_imag=im, mode_shapes=shapes, solver=solver, order=order,
                           stats=st, error_bounds=bounds, model=self.model)

    # ------------------------------------------------------------ gyroscopic eigenvalues (issue 4)

    def gyroscopic_eigenvalues(
        self,
        omega=None,
        eps=None,
        n_modes=None,
        supports=None,
        include_eps=True,
        geometric_stiffness=False,
        a_O=None,
        end_forces=None,
        axial_force=None,
        constraints=None,
        *,
        frames=None,
        rayleigh=(0.0, 0.0),
        solver="auto",
    ):
        """Complex eigenvalues s of (s^2 M + s C + K_eff) phi = 0 at each instant.

        C = 2 int rho N^T W N + alpha M + beta K is the Coriolis (gyroscopic) matrix of
        the frame's rotation plus Rayleigh damping, and K_eff = K + K_om [+ K_eps] [+ K_G].
        The dense solver (the core) takes the first-order form of size 2n by a dense
        eigen decomposition (dgeev) per instant, undamped; the sparse one (section 3.17)
        shift-inverts the first-order form through a sparse factor of the n x n
        s^2 M + s C + K at a real shift, continues each instant from the previous one's
        subspace, and bounds each eigenvalue's error.

        Parameters
        ----------
        omega, eps : array_like, shape (nt,) or (nt, 3)
            Angular velocity [rad/s] and acceleration [rad/s^2] of the frame (numbers:
            about z; 3-vectors: body axes).
        n_modes : int
            Number of eigenvalues per instant, 1..(free DOFs).
        supports, include_eps, geometric_stiffness, a_O, end_forces, axial_force, frames
            As in :meth:`eigenvalues_vs_time`.
        constraints : array_like or scipy.sparse matrix, shape (k, ndof), optional
            Linear constraints G d = 0, as in :meth:`eigenvalues` (Maggi's projection).
        rayleigh : (float, float)
            Rayleigh damping D = alpha M + beta K (alpha [1/s], beta [s]); damping ratios
            of the result's modes: ``damping_ratios``.  Needs the sparse solver.
        solver : {"auto", "dense", "sparse"}
            "auto": sparse with damping or beyond ``SPARSE_EIGEN_FROM`` free DOFs, else dense.

        Returns
        -------
        GyroscopicResult
            ``s`` (nt, n_modes), complex [rad/s]: those with Im s >= 0, ascending by ``|s|``.
            Where omega = 0, s = i sqrt(lambda) of :meth:`eigenvalues`.  ``damping_ratios``
            ``-Re s / |s|``; ``error_bounds`` (sparse).

        Examples
        --------
        >>> beam = PlanarBeam(1.0, 8, E=2.1e11, A=1e-4, I=1e-8, rho=7800)
        >>> r = beam.gyroscopic_eigenvalues([0.0], [0.0], 1)
        >>> lam = beam.eigenvalues(1).eigenvalues[0]
        >>> bool(abs(r.s[0, 0] ** 2 + lam) < 1e-9 * lam)
        True
        """
        n_modes, include_eps, _, geometric = self._eigen_options(
            n_modes, include_eps, False, geometric_stiffness)
        motion = self._frames(omega, eps, a_O, frames)
        _checks.output_size("omega and n_modes", motion.shape[0] * n_modes * 2.0, "eigenvalues")
        if constraints is None:
            supports = self._default_supports if supports is None else supports
        rayleigh = _checks.array("rayleigh", rayleigh, shape=(2,))
        damped = bool(np.any(rayleigh != 0.0))
        if damped and solver == "dense":
            raise ValueError("rayleigh damping needs solver='sparse' or 'auto' (the core's dense gyroscopic "
                             "solver is undamped)")
        sparse = damped or self._eigen_solver(solver, supports, constraints) == "sparse"
        kg = None
        if geometric:
            kg = self._geometric_rows(motion, supports, end_forces, axial_force, constraints if sparse else None)
        if sparse:
            from .sparse import gyroscopic_solve

            if constraints is None:
                ctx = self._sparse_context(self.support_mask(supports))
            else:
                ctx = self._constrained(supports, constraints, geometric).ctx
            S, B, st = gyroscopic_solve(ctx, motion, n_modes, bool(include_eps), tuple(rayleigh), kg)
            return GyroscopicResult(s=S, error_bounds=B, stats=st, model=self.model)
        ctx = self._eig_context(supports, geometric, constraints)
        r = _interrupt.call(_core.eig_gyroscopic, eig=ctx, frames=motion, n_modes=n_modes,
                            include_eps=bool(include_eps), axial_force=kg, polls=True,
                            flops=_EIG_FLOPS * (2.0 * self.ndof)**3)  # the first-order form, 2n
        return GyroscopicResult(s=r["s_re"] + 1j * r["s_im"], model=self.model)


    # ------------------------------------------------------------ output

    # ------------------------------------------------------------ stresses

    def section_forces(self, d, at="ends"):
        """Section forces and moments along the elements (docs/theory.md section 2.10).

        From each element's stiffness on its displacements, f_e = K_e d_e, in the
        element's axes (e1 along it; for Beam3D e2, e3 from ``ref``): the force and
        moment on the face whose outward normal is e1 (tension positive; the bending
        moments M = E I kappa).

        Parameters
        ----------
        d : array_like (ndof,) or (n, ndof), EigenResult or SimulationResult
            Displacements: one state, several, the mode shapes of an eigen result
            (modal section forces per unit modal coordinate) or a response in time.
        at : {"ends", "gauss"}
            The two ends of every element, or its two Gauss stations.

        Returns
        -------
        StressResult
            ``names``: ``N_N`` (bars); ``N_N, V_N, M_Nm`` (PlanarBeam); ``N_N, Vy_N,
            Vz_N, T_Nm, My_Nm, Mz_Nm`` (Beam3D), values (n_sets, n_points, names);
            ``to_dataframe()`` one row per set and point.

        Examples
        --------
        >>> import numpy as np, kanefem
        >>> beam = kanefem.PlanarBeam(1.0, 4, E=2.1e11, A=1e-4, I=1e-8, rho=7800)
        >>> K = beam.stiffness_matrix()[3:, 3:]          # clamped at node 0
        >>> Q = np.zeros(12); Q[-2] = 100.0              # 100 N across the tip
        >>> d = np.concatenate([np.zeros(3), np.linalg.solve(K, Q)])
        >>> r = beam.section_forces(d)
        >>> round(float(r["M_Nm"][0, 0]), 6)              # P L at the clamp
        100.0
        """
        from . import stresses

        return stresses.section_forces(self, d, at)

    def stresses(self, d, at="gauss"):
        """Strains, stresses and von Mises stress (meshes; see MeshBody.stresses)."""
        raise _not_supported(self, "stresses", "section_forces(d) gives a line body's N, V, M (and T) "
                             "along its elements; sigma = N / A + M y / I at a fibre")

    def write_vtu(self, path, displacement=None, point_data=None, stresses=True):
        """Write the body with a displacement field to a VTU file (ParaView): MeshBody.

        Raises
        ------
        NotSupportedError
            A line body (PlanarBeam, AxialBar, Beam3D, Bar3D).
        """
        raise _not_supported(self, "write_vtu", _LINE_OUTPUT)

    def write_modes(self, path, result, instant=0, stresses=True):
        """Write the mode shapes of an EigenResult to a VTU file: MeshBody.

        Raises
        ------
        NotSupportedError
            A line body: write ``result.to_dataframe()`` (or ``result.to_mat``) instead.
        """
        raise _not_supported(self, "write_modes", _LINE_OUTPUT)

    def write_response(self, path, result, every=1, stresses=True):
        """Write a SimulationResult as a ParaView collection (.pvd): MeshBody.

        Raises
        ------
        NotSupportedError
            A line body.
        """
        raise _not_supported(self, "write_response", _LINE_OUTPUT)


#: what a line body offers instead of VTU output
_LINE_OUTPUT = ("VTU files are written for meshes (MeshBody); a line body's results are tables: "
                "result.to_dataframe(), result.to_mat(path)")


@dataclass(frozen=True)
class GyroscopicResult(ResultMixin):
    """Complex eigenvalues s of s^2 M + s C + K_eff over a time grid (issue 4).

    Attributes
    ----------
    s : ndarray of complex, shape (nt, n_modes)
        Eigenvalues with Im s >= 0, ascending by ``|s|`` [rad/s].  Undamped: s = +-i omega_k;
        Re s > 0 means a growing mode (flutter or divergence).
    model : dict
        The element model of the body, as ``EigenResult.model``.
    error_bounds : ndarray or None
        Sparse solver only: the first-order bound on ``|s_k - true s|`` [rad/s] per
        eigenvalue (docs/theory.md section 3.17).
    stats : dict
        Sparse solver: instants ``continued``, ``full_solves``, ``iterations``, ``repeated``.
    """

    s: np.ndarray
    error_bounds: np.ndarray | None = None
    stats: dict = field(default_factory=dict)
    model: dict = field(default_factory=dict)

    @property
    def frequencies_hz(self) -> np.ndarray:
        """Im(s) / 2 pi [Hz]."""
        return self.s.imag / (2.0 * math.pi)

    @property
    def damping_ratios(self) -> np.ndarray:
        """``zeta = -Re(s) / |s|`` (0 for s = 0, a rigid mode): positive damps, negative grows;
        Rayleigh damping alpha M + beta K gives alpha / (2 omega) + beta omega / 2."""
        a = np.abs(self.s)
        return np.where(a > 0, -self.s.real / np.where(a > 0, a, 1.0), 0.0)


class _StraightBody(FlexibleBody):
    """A straight body of equal line elements on its frame's x axis."""

    #: the most elements a straight body may have: its matrices (inertia invariants in
    #: band storage) take about 4.5 kB per beam element, so 0.9 GB at the limit; a
    #: larger body is refused before the core allocates it
    MAX_ELEMENTS = 200_000

    #: how far the element lengths computed from the nodes (origin + length k / n) may
    #: differ from length / n_elements: a larger error means the doubles near origin
    #: cannot resolve elements that short
    _NODE_RTOL = 1e-6

    def _build(self, length, n_elements, origin, storage, material):
        self.length = _checks.real("length", length, positive=True)
        self.n_elements = _checks.integer("n_elements", n_elements, minimum=1, maximum=self.MAX_ELEMENTS)
        self.origin = _checks.real("origin", origin)
        n = self.n_elements
        with np.errstate(all="ignore"):
            x = self.origin + self.length * np.arange(n + 1) / n
            error = np.abs(np.diff(x) - self.length / n).max() / (self.length / n)
        if not (np.all(np.isfinite(x)) and error <= self._NODE_RTOL):
            raise ValueError(
                f"origin = {self.origin!r} and length = {self.length!r} with n_elements = {n}: the "
                f"nodes origin + length k / n_elements are not distinct finite doubles with "
                f"element lengths {self.length / n:.6g} to a relative {self._NODE_RTOL:g} (the "
                f"element length is too small for the magnitude of origin, or the end overflows)"
            )
        nodes = np.zeros((n + 1, _KINDS[self._kind]["dim"]))
        nodes[:, 0] = x
        elements = np.column_stack([np.arange(n), np.arange(1, n + 1)])
        try:
            FlexibleBody.__init__(self, nodes, elements, storage=storage, **material)
        except ValueError as exc:  # the core's scale checks: say how l_e comes from the arguments
            if "double" not in str(exc):
                raise
            raise type(exc)(f"{exc} (element length l_e = length / n_elements = {self.length!r} / {n} "
                            f"= {self.length / n:.6g} m)") from None

    def __repr__(self):
        fields = ["length", "n_elements", "E", "A", "Izz", "Iyy", "J", "nu", "rho", "origin"]
        args = ", ".join(f"{f}={getattr(self, f)!r}" for f in fields if hasattr(self, f))
        return f"{type(self).__name__}({args})"


class PlanarBeam(_StraightBody):
    """A straight planar beam of equal elements: Euler-Bernoulli (the default), or
    Timoshenko and/or with rotary inertia (docs/theory.md section 2.9).

    The beam lies on its frame's x axis from ``origin`` to ``origin + length``;
    nodes are numbered along the axis and each carries (u, v, theta): axial and
    lateral displacement [m] and rotation theta = dv/dx [rad].  Rotary inertia of
    the section is neglected (the consistent line mass of docs/theory.md section 2.1).

    Parameters
    ----------
    length : float
        Length [m].
    n_elements : int
        Number of equal elements, 1..200,000 (a beam's matrices take about 4.5 kB per
        element: 0.9 GB at the limit).
    E : float
        Young's modulus [Pa].
    A : float
        Cross-section area [m^2].
    Izz : float
        Second moment of area int y^2 dA for bending in the plane [m^4] (Beam3D's Izz).
        ``I=`` is its documented alias (the planar textbook name, kept for the wind
        pump's and the mechanism files' users); give one of them.
    rho : float
        Density [kg/m^3].
    nu : float
        Poisson's ratio, for the shear modulus E / (2 (1 + nu)) of a Timoshenko beam.
    theory : {"euler-bernoulli", "timoshenko"}
        Beam theory (docs/theory.md section 2.9): Timoshenko adds shear deformation.
    rotary_inertia : bool, optional
        The section's rotary inertia, with its second-order rotation (in a spinning frame
        a rotation about the spin axis feels no centrifugal term); default True for
        Timoshenko, False for Euler-Bernoulli.
    shear_coefficient : float or {"rectangle", "circle", "tube"}
        Timoshenko only (required there): kappa, or Cowper's value (:func:`shear_coefficients`).
    origin : float
        Position of the first node on the frame's x axis [m].
    storage : {"auto", "dense", "banded", "sparse"}
        Matrix storage (docs/api/contract.md): "auto" returns ndarrays up to 300 DOFs and
        SciPy CSR (the core's band) beyond; "banded" and "sparse" return CSR at any size
        and solve eigenvalues by shift-invert on the band factor.

    Notes
    -----
    Supports (``supports=`` of the eigen methods): presets ``"pinned-pinned"``
    (the default: u = v = 0 at both ends, as the lever BC' of the wind pump),
    ``"clamped-free"``, ``"clamped-clamped"``, ``"clamped-pinned"``,
    ``"pinned-free"``, ``"free-free"``; or ``{node: kind}`` with kind
    ``"clamped"``/``"fixed"`` (u, v, theta), ``"pinned"`` (u, v), ``"roller"`` (v),
    or a tuple of DOF names.

    Examples
    --------
    >>> beam = PlanarBeam(1.0, 20, E=2.1e11, A=1e-4, I=1e-8, rho=7800)
    >>> beam.ndof
    63
    >>> r = beam.eigenvalues(1, supports="clamped-free")
    >>> round(float(r.frequencies_hz[0]), 3)  # 1.8751^2 sqrt(EI/(rho A L^4)) / 2 pi
    29.036
    """

    _kind = "beam2"
    dof_names = ("u", "v", "theta")
    _support_dofs = {"clamped": (0, 1, 2), "fixed": (0, 1, 2), "pinned": (0, 1), "roller": (1,)}
    _presets = {
        "pinned-pinned": ("pinned", "pinned"),
        "clamped-free": ("clamped", None),
        "clamped-clamped": ("clamped", "clamped"),
        "clamped-pinned": ("clamped", "pinned"),
        "pinned-free": ("pinned", None),
        "free-free": (None, None),
    }
    _default_supports = "pinned-pinned"

    _bending = True

    @property
    def I(self):  # noqa: E743 (the planar name users know)
        """The documented alias of ``Izz``: the second moment of area for bending in the
        plane [m^4]."""
        return self.Izz

    def __init__(self, length, n_elements, *, E, A, Izz=None, rho, nu=0.3, theory="euler-bernoulli",
                 rotary_inertia=None, shear_coefficient=None, origin=0.0, storage="auto",
                 I=None):  # noqa: E741 (I: the documented alias of Izz)
        self._build(length, n_elements, origin, storage,
                    dict(E=E, A=A, rho=rho, Izz=Izz, I=I, nu=nu, theory=theory,
                         rotary_inertia=rotary_inertia, shear_coefficient=shear_coefficient))

    def _material(self, *, E, A, rho, Izz=None, I=None, nu=0.3, theory="euler-bernoulli",  # noqa: E741
                  rotary_inertia=None, shear_coefficient=None):
        """E, A, rho, Izz (or I) and the beam model: with Timoshenko shear or rotary
        inertia the element is ``beam2t`` (docs/theory.md section 2.9), else the seeds'
        ``beam2``."""
        section = FlexibleBody._material(self, E=E, A=A, rho=rho, Izz=Izz, I=I)
        nu = _checks.real("nu", nu)
        model = self._beam_model(theory, rotary_inertia, shear_coefficient, nu)
        if self.theory == "euler-bernoulli" and not self.rotary_inertia:
            self._kind = "beam2"
            return section
        self._kind, self.nu = "beam2t", nu
        return {**section, "nu": nu, "kappa_y": model["kappa_y"], "rotary": model["rotary"]}


class AxialBar(_StraightBody):
    """A straight bar with axial displacements only (the rotating bar of seed 002).

    The bar lies on its frame's x axis from ``origin`` to ``origin + length``;
    each node carries u [m].  The frame rotates about its z axis, perpendicular
    to the bar through the frame origin.

    Parameters
    ----------
    length : float
        Length [m].
    n_elements : int
        Number of equal elements, 1..200,000 (a beam's matrices take about 4.5 kB per
        element: 0.9 GB at the limit).
    E : float
        Young's modulus [Pa].
    A : float
        Cross-section area [m^2].
    rho : float
        Density [kg/m^3].
    origin : float
        Position of the first node on the frame's x axis [m].
    storage : {"auto", "dense", "banded", "sparse"}
        Matrix storage (docs/api/contract.md): "auto" returns ndarrays up to 300 DOFs and
        SciPy CSR (the core's band) beyond; "banded" and "sparse" return CSR at any size
        and solve eigenvalues by shift-invert on the band factor.

    Notes
    -----
    Supports: presets ``"fixed-free"`` (the default), ``"fixed-fixed"``,
    ``"free-free"``; or ``{node: "fixed"}`` (``"clamped"`` and ``"pinned"`` mean
    the same for a bar).

    Examples
    --------
    >>> bar = AxialBar(1.0, 10, E=210e9, A=0.2e-4, rho=5e4)
    >>> r0 = bar.eigenvalues(1)
    >>> r1 = bar.eigenvalues(1, omega=15.0)
    >>> float(r0.eigenvalues[0] - r1.eigenvalues[0])  # omega^2, exactly
    225.0
    """

    _kind = "bar2"
    dof_names = ("u",)
    _support_dofs = {"fixed": (0,), "clamped": (0,), "pinned": (0,)}
    _presets = {
        "fixed-free": ("fixed", None),
        "fixed-fixed": ("fixed", "fixed"),
        "free-fixed": (None, "fixed"),
        "free-free": (None, None),
    }
    _default_supports = "fixed-free"

    def __init__(self, length, n_elements, *, E, A, rho, origin=0.0, storage="auto"):
        self._build(length, n_elements, origin, storage, dict(E=E, A=A, rho=rho))  # a bar has no bending


# ---------------------------------------------------------------- spatial bodies (issue 9)


class Beam3D(_StraightBody):
    """A straight spatial Euler-Bernoulli beam of equal elements (docs/theory.md section 2.8).

    The beam lies on its frame's x axis from ``origin`` to ``origin + length``; each
    node carries (u, v, w, theta_x, theta_y, theta_z): displacements along the body
    axes [m] and rotations about them [rad].  Axial displacement and torsion are linear,
    the two bendings cubic Hermite (theta_z = dv/dx, theta_y = -dw/dx); by default no shear
    deformation and no rotary inertia of bending (the seeds' Euler-Bernoulli beam), so that
    in planar motion its in-plane equations are :class:`PlanarBeam`'s.  The section's mass
    turns with the torsion: its polar moment Izz + Iyy gives the torsional mass.  The frame
    may move in space: every method takes omega and eps as 3-vectors in body axes (or
    numbers, about z).  ``theory="timoshenko"`` adds shear deformation and
    ``rotary_inertia=True`` makes the section a rigid body turning with all three rotations
    to second order: rotary inertia, the full section inertia in every motion term, the
    propeller moment of a spinning blade, torsion unchanged by a spin about the beam's own
    axis (docs/theory.md section 2.9); the results state the model (``model``).

    Parameters
    ----------
    length : float
        Length [m].
    n_elements : int
        Number of equal elements (>= 1).
    E : float
        Young's modulus [Pa].
    A : float
        Cross-section area [m^2].
    Izz : float
        Second moment of area int y^2 dA, for bending in the x-y plane (v), as
        PlanarBeam's I [m^4].
    Iyy : float
        Second moment of area int z^2 dA, for bending in the x-z plane (w) [m^4].
    J : float
        Torsion constant [m^4] (Izz + Iyy for a circular section).
    rho : float
        Density [kg/m^3].
    nu : float
        Poisson's ratio; the shear modulus is E / (2 (1 + nu)).
    ref : array_like, shape (3,) or (n_elements, 3)
        Orientation vector in the body frame: the section's local y axis is the part
        of ref normal to the beam (default the body's y axis); one row per element
        orients each element's section on its own (a pre-twisted blade).
    theory : {"euler-bernoulli", "timoshenko"}
        Beam theory: Timoshenko adds shear deformation (two-node elements with the
        interdependent interpolation, free of shear locking).
    rotary_inertia : bool, optional
        Whether the section turns as a rigid body with all three rotations, to second
        order; default True for Timoshenko, False for Euler-Bernoulli.
    shear_coefficient : float, (float, float) or {"rectangle", "circle", "tube"}
        Timoshenko only (required there): kappa for shear along the section's y and z, or
        Cowper's value for a common section (:func:`shear_coefficients`).
    shear_centre : (float, float)
        Offset (e_y, e_z) of the shear centre from the centroid along the section's y and
        z [m]: the beam's nodes lie on the shear-centre axis, the twist turns about it and
        the centroid's mass lies off it (bending-torsion coupling); Euler-Bernoulli or
        Timoshenko without rotary inertia.
    origin : float
        Position of the first node on the frame's x axis [m].
    storage : {"auto", "dense", "banded", "sparse"}
        Matrix storage (docs/api/contract.md): "auto" returns ndarrays up to 300 DOFs and
        SciPy CSR (the core's band) beyond; "banded" and "sparse" return CSR at any size
        and solve eigenvalues by shift-invert on the band factor.

    Notes
    -----
    Supports: presets ``"clamped-free"`` (the default: a blade, a robot link),
    ``"clamped-clamped"``, ``"clamped-pinned"``, ``"pinned-pinned"``,
    ``"pinned-free"``, ``"free-free"``; or ``{node: kind}`` with kind
    ``"clamped"``/``"fixed"`` (all six), ``"pinned"`` (u, v, w and theta_x: a fork
    support, free to bend both ways but held against twist), ``"spherical"`` (u, v,
    w), or a tuple of DOF names.  :meth:`from_mesh` builds a beam of any node and
    element arrays.

    Examples
    --------
    >>> beam = Beam3D(1.0, 20, E=2.1e11, A=1e-4, Izz=1e-8, Iyy=1e-8, J=2e-8, rho=7800)
    >>> beam.ndof
    126
    >>> r = beam.eigenvalues(2, omega=(0.0, 0.0, 50.0))   # spin about z: lag softens
    >>> bool(r.eigenvalues[0] < r.eigenvalues[1])
    True
    """

    _kind = "beam3d"
    dof_names = ("u", "v", "w", "theta_x", "theta_y", "theta_z")
    _support_dofs = {"clamped": (0, 1, 2, 3, 4, 5), "fixed": (0, 1, 2, 3, 4, 5),
                     "pinned": (0, 1, 2, 3), "spherical": (0, 1, 2)}
    _presets = {
        "clamped-free": ("clamped", None),
        "clamped-clamped": ("clamped", "clamped"),
        "clamped-pinned": ("clamped", "pinned"),
        "pinned-pinned": ("pinned", "pinned"),
        "pinned-free": ("pinned", None),
        "free-free": (None, None),
    }
    _default_supports = "clamped-free"

    def __init__(self, length, n_elements, *, E, A, Izz, Iyy, J, rho, nu=0.3, ref=(0.0, 1.0, 0.0),
                 theory="euler-bernoulli", rotary_inertia=None, shear_coefficient=None,
                 shear_centre=(0.0, 0.0), origin=0.0, storage="auto"):
        self._build(length, n_elements, origin, storage,
                    dict(E=E, A=A, rho=rho, Izz=Izz, Iyy=Iyy, J=J, nu=nu, ref=ref, theory=theory,
                         rotary_inertia=rotary_inertia, shear_coefficient=shear_coefficient,
                         shear_centre=shear_centre))

    def _material(self, *, E, A, rho, Izz, Iyy, J, nu=0.3, ref=(0.0, 1.0, 0.0),
                  theory="euler-bernoulli", rotary_inertia=None, shear_coefficient=None,
                  shear_centre=(0.0, 0.0)):
        """The line body's E, A, rho, Izz and the spatial section: Iyy, J, nu, ref, and
        the beam model (theory, rotary inertia, shear coefficients, shear centre)."""
        section = FlexibleBody._material(self, E=E, A=A, rho=rho, Izz=Izz)
        self.Iyy = _checks.real("Iyy", Iyy, positive=True)
        self.J = _checks.real("J", J, positive=True)
        self.nu = _checks.real("nu", nu)
        if np.ndim(ref) == 2:  # one reference direction per element (a pre-twisted blade)
            self.ref = np.array(_checks.array("ref", ref, ndim=2), dtype=float)
            if self.ref.shape[1] != 3 or self.ref.shape[0] == 0:
                raise ValueError(f"ref must have shape (3,) or (n_elements, 3), got {self.ref.shape}")
            self.ref.setflags(write=False)
        else:
            self.ref = tuple(float(v) for v in _checks.array("ref", ref, shape=(3,)))
        model = self._beam_model(theory, rotary_inertia, shear_coefficient, self.nu)
        self.shear_centre = tuple(float(v) for v in _checks.array("shear_centre", shear_centre, shape=(2,)))
        if self.rotary_inertia and self.shear_centre != (0.0, 0.0):
            raise _not_supported(self, f"shear_centre = {self.shear_centre} with rotary_inertia=True",
                                 "the second-order rotation about an axis off the centroid also meets "
                                 "the frame's acceleration, which is not implemented; give "
                                 "rotary_inertia=False (the twist still turns about the shear centre)")
        return {**section, "Iyy": self.Iyy, "J": self.J, "nu": self.nu,
                "ref": tuple(np.reshape(self.ref, (-1, 3))[0]), **model,
                "ey": self.shear_centre[0], "ez": self.shear_centre[1]}

    def _create_core(self, nodes, elements, section, storage):
        """The core's body; a ref per element orients each element's section."""
        if isinstance(self.ref, tuple):
            return FlexibleBody._create_core(self, nodes, elements, section, storage)
        if self.ref.shape[0] != len(elements):
            raise ValueError(f"ref has {self.ref.shape[0]} rows: one reference direction per element "
                             f"needs {len(elements)}")
        return _core.body_create(kind=_KINDS[self._kind]["kind"], coords=nodes, conn=elements,
                                 section=section, storage=storage, refs=self.ref)

    @classmethod
    def from_mesh(cls, nodes, elements, *, E, A, Izz, Iyy, J, rho, nu=0.3, ref=(0.0, 1.0, 0.0),
                  theory="euler-bernoulli", rotary_inertia=None, shear_coefficient=None,
                  shear_centre=(0.0, 0.0), storage="auto"):
        """A spatial beam of any 2-node elements: nodes (n, 3) in the body frame,
        elements (nel, 2) of node indices.  ``ref`` orients every element's section
        (it must not be parallel to any element); ``ref`` of shape (nel, 3) gives each
        element its own (row e for element e: a pre-twisted blade, its sections turned
        along the span).  Geometric stiffness of a body of any shape comes from its
        linear prestress (docs/theory.md section 2.11).

        Examples
        --------
        >>> import numpy as np
        >>> nodes = np.array([[0, 0, 0], [0, 0.5, 0], [0.5, 0.5, 0]])  # an L-shaped frame
        >>> frame = Beam3D.from_mesh(nodes, [[0, 1], [1, 2]], E=2.1e11, A=1e-4, Izz=1e-8,
        ...                          Iyy=1e-8, J=2e-8, rho=7800, ref=(0, 0, 1))
        >>> frame.ndof
        18
        """
        body = cls.__new__(cls)
        FlexibleBody.__init__(body, nodes, elements, E=E, A=A, rho=rho, Izz=Izz, Iyy=Iyy, J=J, nu=nu,
                              ref=ref, theory=theory, rotary_inertia=rotary_inertia,
                              shear_coefficient=shear_coefficient, shear_centre=shear_centre,
                              storage=storage)
        return body


class Bar3D(_StraightBody):
    """A straight spatial bar (truss member) of equal elements (docs/theory.md section 2.8).

    The bar lies on its frame's x axis from ``origin`` to ``origin + length``; each
    node carries (u, v, w) [m].  Every displacement component is interpolated linearly
    (the consistent mass moves across the bar too), the bar resists stretching only:
    without geometric stiffness its lateral motions have no stiffness, with it (the
    tension of a spinning bar) it is a string.

    Parameters
    ----------
    length, n_elements, E, A, rho, origin, storage
        As in :class:`AxialBar`.

    Notes
    -----
    Supports: presets ``"fixed-free"`` (the default), ``"fixed-fixed"``,
    ``"free-fixed"``, ``"free-free"``; or ``{node: "fixed"}`` (u, v, w), or a tuple of
    DOF names.  :meth:`from_mesh` builds a truss of any node and element arrays.

    Examples
    --------
    >>> bar = Bar3D(1.0, 10, E=210e9, A=2e-5, rho=7800)
    >>> r = bar.eigenvalues(2, omega=(0.0, 0.0, 20.0), geometric_stiffness=True)
    >>> round(float(r.angular_frequencies[1]), 6)   # a hinged spinning string flaps at Omega
    20.0
    """

    _kind = "bar3d"
    dof_names = ("u", "v", "w")
    _support_dofs = {"fixed": (0, 1, 2), "clamped": (0, 1, 2), "pinned": (0, 1, 2)}
    _presets = AxialBar._presets
    _default_supports = "fixed-free"

    def __init__(self, length, n_elements, *, E, A, rho, origin=0.0, storage="auto"):
        self._build(length, n_elements, origin, storage, dict(E=E, A=A, rho=rho))

    @classmethod
    def from_mesh(cls, nodes, elements, *, E, A, rho, storage="auto"):
        """A truss of 2-node bars: nodes (n, 3) in the body frame, elements (nel, 2).

        Examples
        --------
        >>> import numpy as np
        >>> nodes = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
        >>> tet = Bar3D.from_mesh(nodes, [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]],
        ...                       E=210e9, A=1e-4, rho=7800)
        >>> lam = tet.eigenvalues(7, supports="free-free").eigenvalues
        >>> int((np.abs(lam) < 1e-6 * lam.max()).sum())   # six rigid-body modes
        6
        """
        body = cls.__new__(cls)
        FlexibleBody.__init__(body, nodes, elements, E=E, A=A, rho=rho, storage=storage)
        return body
