"""kanefem: elastic links in moving mechanisms, by finite elements and Kane's method.

The equations of motion of a flexible body whose frame moves,

    M d'' + C d' + (K + K_eps + K_om) d = Q - q_a - q_eps - q_om,

built from inertia invariants computed once by a C core, and its frozen-time natural
frequencies over a mechanism's cycle.

>>> import kanefem
>>> lever = kanefem.PlanarBeam(length=0.6, n_elements=10, E=210e9, A=2e-4, I=1.7e-9, rho=7850)
>>> modes = lever.eigenvalues(2, omega=14.66, supports="pinned-pinned")
>>> modes.solver
'symmetric'
"""

from ._version import __version__
from . import _core, _lapack

_lapack.init()

# --- errors: KanefemError and its kinds; what a body type cannot do (docs/api/contract.md)
from ._core import (  # noqa: E402
    DivergenceError,
    GeometryError,
    KanefemError,
    LinAlgError,
    RangeError,
    StepLimitError,
)
from .bodies import NotSupportedError  # noqa: E402
from ._meshfiles import MeshFileError  # noqa: E402
from .sweep import DamagedPointError, StoreError  # noqa: E402

# --- frames and motions: the frame state and the frame's prescribed motion in time
from . import frames  # noqa: E402
from .frames import FRAME_DTYPE  # noqa: E402
from .motion import Motion, MotionState  # noqa: E402

# --- bodies: the Body contract's five types, their base and their results
from .bodies import (  # noqa: E402
    AxialBar,
    Bar3D,
    Beam3D,
    EigenResult,
    FlexibleBody,
    GyroscopicResult,
    MotionTerms,
    PlanarBeam,
    shear_coefficients,
)

# --- meshes: plane and solid elements from meshes
from .meshes import Mesh, MeshBody  # noqa: E402

# --- reduced bodies: invariants projected onto a reduction basis (Craig-Bampton, free-interface)
from .reduced import ImportedModel, ReducedBody  # noqa: E402

# --- stresses: strains and stresses of meshes, section forces of beams
from .stresses import StressResult, von_mises  # noqa: E402

# --- simulate: responses in time, loads and damping
from .simulate import (  # noqa: E402
    HarmonicLoad,
    ModalDamping,
    Rayleigh,
    SimulationResult,
    simulate,
)

# --- floating bodies: a flexible body whose frame is an unknown of its motion, in space
from .floating import FloatingBody, FloatingMotion, FloatingState  # noqa: E402

# --- mechanisms: planar mechanisms with rigid and elastic links
from . import mechanism  # noqa: E402
from .mechanism import (  # noqa: E402
    ConstantSpeed,
    Coordinate,
    ElasticLink,
    FlexibleMotion,
    LinkEigenvalues,
    Mechanism,
    MechanismForces,
    MechanismMotion,
    Prismatic,
    Revolute,
    RigidBody,
    Spring,
    Torque,
    Weld,
)
# joints, springs, coordinates, drives, elastic links and axes as the core's structs
from ._records import AXES_DTYPE, COORD_DTYPE, DRIVE_DTYPE, JOINT_DTYPE, LINK_DTYPE, SPRING_DTYPE  # noqa: E402

# --- the wind pump
from .windpump import (  # noqa: E402
    JointForces,
    LeverEigenvalues,
    WindPump,
    WindPumpMotion,
    WindPumpParams,
)

# --- sweeps and studies
from . import studies  # noqa: E402
from .sweep import SweepResult, sweep  # noqa: E402

# --- utilities
from .constraints import elimination_basis, maggi_basis  # noqa: E402


def lapack_source():
    """Where the core's LAPACK comes from: ``'linked'`` or ``'scipy <version>'``."""
    return _core.lapack_source()


__all__ = [
    "__version__",
    # errors
    "KanefemError",
    "DivergenceError",
    "GeometryError",
    "LinAlgError",
    "RangeError",
    "StepLimitError",
    "NotSupportedError",
    "MeshFileError",
    "StoreError",
    "DamagedPointError",
    # frames and motions
    "frames",
    "FRAME_DTYPE",
    "Motion",
    "MotionState",
    # bodies
    "FlexibleBody",
    "PlanarBeam",
    "AxialBar",
    "Beam3D",
    "Bar3D",
    "shear_coefficients",
    "MotionTerms",
    "EigenResult",
    "GyroscopicResult",
    # meshes
    "Mesh",
    "MeshBody",
    "ReducedBody",
    "ImportedModel",
    # stresses
    "StressResult",
    "von_mises",
    # simulate
    "simulate",
    "SimulationResult",
    "HarmonicLoad",
    "Rayleigh",
    "ModalDamping",
    # floating bodies
    "FloatingBody",
    "FloatingState",
    "FloatingMotion",
    # mechanisms
    "mechanism",
    "Mechanism",
    "RigidBody",
    "ElasticLink",
    "Revolute",
    "Prismatic",
    "Weld",
    "Spring",
    "Coordinate",
    "ConstantSpeed",
    "Torque",
    "MechanismMotion",
    "MechanismForces",
    "LinkEigenvalues",
    "FlexibleMotion",
    "JOINT_DTYPE",
    "SPRING_DTYPE",
    "COORD_DTYPE",
    "DRIVE_DTYPE",
    "LINK_DTYPE",
    "AXES_DTYPE",
    # the wind pump
    "WindPump",
    "WindPumpParams",
    "WindPumpMotion",
    "JointForces",
    "LeverEigenvalues",
    # sweeps and studies
    "sweep",
    "SweepResult",
    "studies",
    # utilities
    "lapack_source",
    "maggi_basis",
    "elimination_basis",
]
