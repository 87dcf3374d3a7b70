"""Planar mechanisms with elastic links (docs/theory.md section 5).

A mechanism is described by its bodies in one assembled position, the *drawing*:

* :class:`RigidBody` -- mass, moment of inertia about the mass centre, and where the
  mass centre and the body's axes are in the drawing;
* :class:`ElasticLink` -- a straight :class:`~kanefem.PlanarBeam` (or
  :class:`~kanefem.AxialBar`) whose frame starts at ``start`` along ``angle``; in
  the rigid model it is the rigid body of its elements (mass rho A L, centre at mid
  length, inertia m L^2 / 12), and its elements ride on that body's axes;
* joints at points of the drawing: :class:`Revolute`, :class:`Prismatic`,
  :class:`Weld`, each optionally carrying a spring, a viscous damper and Coulomb
  friction (regularized: ``F_r tanh(s' / v_F)``) along its own coordinate;
  :class:`Spring` -- a spring-damper between two points;
* :class:`Coordinate` -- the independent coordinates (as many as the degrees of
  freedom): a body's x, y or angle, or a joint's coordinate;
* gravity.

The C core solves the loop closure by Newton's method (continuing from the drawing,
so a mechanism keeps the drawing's branch), velocities and accelerations through the
constraint Jacobian, Kane's equations projected on the constraints' null space, the
joint forces as the constraints' multipliers, and the motion in time under drives:
:class:`ConstantSpeed`, :class:`Torque` (a law, or a constant), :class:`Path` (a
prescribed z(t)), :class:`Recorded` (samples, smoothed).

Elastic links, one way (the seeds' method): every link's frame motion and axial
force come from the rigid solution (:meth:`Mechanism.link_eigenvalues`,
:meth:`Mechanism.link_response`).  Two ways: :meth:`Mechanism.simulate_flexible`
integrates the rigid and elastic coordinates together, so the rigid motion feels the
links.

>>> from kanefem.mechanism import ConstantSpeed, slider_crank
>>> m = slider_crank(rod=None)
>>> motion = m.solve(duration=0.05, points=11, drives={"crank": ConstantSpeed(150.0)})
>>> x = motion.body("slider")[0][-1, 0]  # after 7.5 rad: r cos a + sqrt(l^2 - r^2 sin^2 a)
>>> round(float(x), 9)
0.316954749
"""

from . import results
from .drives import ConstantSpeed, Path, Recorded, Torque
from .examples import EXAMPLES, example, four_bar, slider_crank, spatial_slider_crank
from .files import file_run
from .model import Mechanism
from .parts import GROUND, Coordinate, ElasticLink, Prismatic, Revolute, RigidBody, Spring, Weld
from .results import FlexibleMotion, LinkEigenvalues, MechanismForces, MechanismMotion
from .robots import dh_chain
from .spatial import Cylindrical, Fixed, Planar, SpatialBody, SpatialLink, Spherical, Universal
from .urdf import URDFError, from_urdf

# the results' ``mechanism`` field names the Mechanism class, which from_dict resolves in the
# results' module; that module cannot import it (model imports the results: no circle)
results.Mechanism = Mechanism

__all__ = [
    "GROUND", "RigidBody", "ElasticLink", "Revolute", "Prismatic", "Weld", "Spring", "Coordinate",
    "SpatialBody", "SpatialLink", "Cylindrical", "Spherical", "Universal", "Planar", "Fixed",
    "ConstantSpeed", "Torque", "Path", "Recorded", "Mechanism",
    "MechanismMotion", "MechanismForces", "LinkEigenvalues", "FlexibleMotion",
    "slider_crank", "spatial_slider_crank", "four_bar", "example", "EXAMPLES", "file_run", "dh_chain", "from_urdf", "URDFError",
]
