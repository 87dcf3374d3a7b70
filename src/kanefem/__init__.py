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

from ._core import (  # noqa: E402
    DivergenceError,
    GeometryError,
    KanefemError,
    LinAlgError,
    RangeError,
    StepLimitError,
)
from . import frames  # noqa: E402
from .frames import FRAME_DTYPE  # noqa: E402
from ._records import COORD_DTYPE, JOINT_DTYPE, SPRING_DTYPE  # noqa: E402
from .bodies import AxialBar, EigenResult, FlexibleBody, MotionTerms, PlanarBeam  # noqa: E402
from .constraints import maggi_basis  # noqa: E402

# --- time integration (issue 3): motions, simulate, studies
from .motion import Motion, MotionState  # noqa: E402
from .simulate import (  # noqa: E402
    HarmonicLoad,
    ModalDamping,
    Rayleigh,
    SimulationResult,
    simulate,
)
from . import studies  # noqa: E402
from .sweep import DamagedPointError, StoreError, SweepResult, sweep  # noqa: E402  (issue 12)


# the wind-pump mechanism (issue 4)
from .bodies import GyroscopicResult  # noqa: E402
from .windpump import (  # noqa: E402
    JointForces,
    LeverEigenvalues,
    WindPump,
    WindPumpMotion,
    WindPumpParams,
)

# plane and solid elements from meshes (issue 10)
from ._meshfiles import MeshFileError  # noqa: E402  (issue 17: untrusted mesh files)
from .meshes import Mesh, MeshBody  # noqa: E402


# planar mechanisms with elastic links (issue 11)
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


def lapack_source():
    """Where the core's LAPACK comes from: ``'linked'`` or ``'scipy <version>'``."""
    return _core.lapack_source()


__all__ = [
    "__version__",
    "AxialBar",
    "DivergenceError",
    "EigenResult",
    "FRAME_DTYPE",
    "JOINT_DTYPE",
    "SPRING_DTYPE",
    "COORD_DTYPE",
    "FlexibleBody",
    "GeometryError",
    "KanefemError",
    "LinAlgError",
    "MotionTerms",
    "PlanarBeam",
    "RangeError",
    "StepLimitError",
    "frames",
    "lapack_source",
    "maggi_basis",
    # the wind-pump mechanism (issue 4)
    "GyroscopicResult",
    "JointForces",
    "LeverEigenvalues",
    "WindPump",
    "WindPumpMotion",
    "WindPumpParams",
]
__all__ += ["Mesh", "MeshBody", "MeshFileError"]  # meshes (issue 10, 17)
__all__ += [  # time integration (issue 3)
    "HarmonicLoad",
    "ModalDamping",
    "Motion",
    "MotionState",
    "Rayleigh",
    "SimulationResult",
    "simulate",
    "studies",
]
__all__ += ["DamagedPointError", "StoreError", "SweepResult", "sweep"]  # studies at scale (issue 12)

# spatial motion (issue 9): the 3D beam and bar
from .bodies import Bar3D, Beam3D  # noqa: E402

__all__ += ["Bar3D", "Beam3D"]
__all__ += [  # planar mechanisms (issue 11)
    "ConstantSpeed",
    "Coordinate",
    "ElasticLink",
    "FlexibleMotion",
    "LinkEigenvalues",
    "Mechanism",
    "MechanismForces",
    "MechanismMotion",
    "Prismatic",
    "Revolute",
    "RigidBody",
    "Spring",
    "Torque",
    "Weld",
    "mechanism",
]
