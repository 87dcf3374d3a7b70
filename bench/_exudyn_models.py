"""The flexible slider-crank in Exudyn (a general multibody code, pip install exudyn), the
independent model kanefem's two-way coupling is checked against (tests/test_mechanism.py)
and timed against (bench/bench_mechanism.py).

The same mechanism as kanefem.mechanism.slider_crank(): a crank of radius r turning at a
constant speed about the origin, drawn at angle 0; a connecting rod of length l, round
section (E, rho, diameter), of n absolute-nodal-coordinate cable elements
(ObjectANCFCable2D: geometrically exact axial and bending strains, so stress stiffening is
in it); a slider of mass m_s on the x axis.  The crank is a rigid body whose rotation is
held at the speed by a velocity-level coordinate constraint (no user function, so nothing
calls back into Python); the rod starts straight and moving with the rigid mechanism.
Integration: Exudyn's generalized-alpha (index 3), fixed step.
"""

import math

import numpy as np


def slider_crank(n_elements=10, steps=2000, t_end=None, speed=150.0, r=0.15, l=0.30, E=200e9,
                 diameter=0.006, rho=7870.0, slider_mass=None, rho_inf=0.9):
    """Integrate and return (t, v_mid): the rod's midpoint deflection from its chord
    [m] (positive to the left of A -> B), at every step; t_end default: one turn."""
    import exudyn as exu
    from exudyn.itemInterface import (CoordinateConstraint, MarkerBodyPosition, MarkerNodeCoordinate,
                                      MarkerNodePosition, MassPoint2D, NodePoint2D, NodePoint2DSlope1,
                                      NodePointGround, NodeRigidBody2D, ObjectANCFCable2D,
                                      ObjectRigidBody2D, RevoluteJoint2D, SensorNode)

    if t_end is None:
        t_end = 2 * math.pi / speed
    A = math.pi * diameter**2 / 4
    I = math.pi * diameter**4 / 64  # noqa: E741
    mu = rho * A
    ms = 0.5 * mu * l if slider_mass is None else slider_mass
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0]))
    gx = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))

    # crank: pivot fixed, rotation at the speed (velocity-level constraint)
    nc = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[0, 0, 0], initialVelocities=[0, 0, speed]))
    crank = mbs.AddObject(ObjectRigidBody2D(mass=1.0, inertia=1e-3, nodeNumber=nc))
    for c in (0, 1):
        m = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nc, coordinate=c))
        mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, m]))
    mrot = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nc, coordinate=2))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mrot], offset=speed, velocityLevel=True))
    pin = mbs.AddMarker(MarkerBodyPosition(bodyNumber=crank, localPosition=[r, 0, 0]))

    # rod: straight, moving rigidly with the crank at angle 0 (omega_rod = -r speed / l)
    h = l / n_elements
    om_rod = -r * speed / l
    nodes = []
    for i in range(n_elements + 1):
        s = i * h
        nodes.append(mbs.AddNode(NodePoint2DSlope1(
            referenceCoordinates=[r + s, 0, 1, 0],
            initialVelocities=[0, r * speed + om_rod * s, 0, om_rod])))
    for i in range(n_elements):
        mbs.AddObject(ObjectANCFCable2D(length=h, massPerLength=mu, bendingStiffness=E * I,
                                        axialStiffness=E * A,
                                        nodeNumbers=[nodes[i], nodes[i + 1]]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[pin, mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[0]))]))
    # slider: the rod's end on the x axis, with the slider's mass
    end_y = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[-1], coordinate=1))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, end_y]))
    ns = mbs.AddNode(NodePoint2D(referenceCoordinates=[r + l, 0]))
    mbs.AddObject(MassPoint2D(mass=ms, nodeNumber=ns))
    for c in (0, 1):
        a = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[-1], coordinate=c))
        b = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ns, coordinate=c))
        mbs.AddObject(CoordinateConstraint(markerNumbers=[a, b]))

    pos = exu.OutputVariableType.Position
    sens = [mbs.AddSensor(SensorNode(nodeNumber=nodes[k], storeInternal=True, outputVariableType=pos,
                                     writeToFile=False))
            for k in (0, n_elements // 2, n_elements)]
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = int(steps)
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = rho_inf
    ss.timeIntegration.verboseMode = 0
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = t_end / steps
    exu.SolveDynamic(mbs, ss)
    P = [np.asarray(mbs.GetSensorStoredData(s)) for s in sens]
    t = P[0][:, 0]
    a, mid, b = (p[:, 1:3] for p in P)
    chord = b - a
    chord /= np.hypot(chord[:, 0], chord[:, 1])[:, None]
    rel = mid - 0.5 * (a + b)
    return t, chord[:, 0] * rel[:, 1] - chord[:, 1] * rel[:, 0]
