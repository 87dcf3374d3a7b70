"""The flexible slider-crank in Exudyn (a general multibody code, pip install exudyn), the
independent model kanefem's two-way coupling is checked against (tests/test_mechanism.py,
tests/test_reduced_link.py) and timed against (bench/bench_mechanism.py,
bench/bench_reduced_link.py): its rod of absolute-nodal-coordinate cables
(:func:`slider_crank`), or a reduced plane mesh in ObjectFFRFreducedOrder fed kanefem's
mesh and modes (:func:`ffrf_body`, :func:`slider_crank_ffrf`).

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


def ffrf_body(nodes, mass, stiffness, modes, node_a):
    """Exudyn's ``ObjectFFRFreducedOrderInterface`` (its one-time preprocessing: the
    projected mass, stiffness and inertia terms) of a plane mesh fed kanefem's mesh and
    modes: node coordinates ``nodes`` (n, 2), shifted so that node ``node_a`` is the
    frame origin; the plane mesh's M and K (2n x 2n, node-major x, y: a continuum mesh's
    mass is the nodal mass on each component); ``modes`` (2n, m), fixed-interface modes
    (zero at the pins, so Exudyn's frame passes through them, as kanefem's pinned link).
    Exudyn's body is spatial: the plane mesh gets z components (the same nodal mass; no
    stiffness and no mode moves along z)."""
    import scipy.sparse as sp
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface

    nodes = np.asarray(nodes, float)
    n = nodes.shape[0]
    m2 = sp.csr_matrix(mass)[0::2, 0::2]  # the nodal mass (the same on x and y)
    fem = FEMinterface()
    fem.nodes = {"Position": np.column_stack([nodes - nodes[node_a], np.zeros(n)])}
    fem.massMatrix = sp.csr_matrix(sp.kron(m2, sp.identity(3)))
    embed = sp.csr_matrix((np.ones(2 * n), (np.arange(2 * n) // 2 * 3 + np.arange(2 * n) % 2, np.arange(2 * n))),
                          shape=(3 * n, 2 * n))
    fem.stiffnessMatrix = sp.csr_matrix(embed @ sp.csr_matrix(stiffness) @ embed.T)
    fem.modeBasis = {"matrix": np.asarray(embed @ np.asarray(modes)), "type": "HCBmodes"}
    fem.surface = [{"Name": "none", "Trigs": np.zeros((0, 3), dtype=int)}]
    return ObjectFFRFreducedOrderInterface(fem, rigidBodyNodeType="NodeType.RotationRxyz")


def slider_crank_ffrf(cms, l, node_a, node_mid, node_b, mid_offset=0.0, steps=2000, t_end=None,
                      speed=150.0, r=0.15, slider_mass=0.0, rho_inf=0.9):
    """The slider-crank with a reduced plane mesh as its rod, in Exudyn's
    ``ObjectFFRFreducedOrder`` (its linear floating-frame body of given modes, no stress
    stiffening): ``cms`` from :func:`ffrf_body`, the rod of length ``l`` drawn along x
    from pin A (node ``node_a``) to pin B (node ``node_b``).  The frame is held in the
    plane (z and the rotations about x and y); the crank (rigid, of negligible mass:
    kanefem's is massless, and it turns at a constant speed by a velocity-level
    constraint) and the slider are 2D items; the pins are position joints at the nodes in
    x and y.  Generalized-alpha (index 3), fixed step.  Returns (t, v_mid): the deflection
    of node ``node_mid`` from the chord A -> B (less its drawing offset ``mid_offset``)."""
    import exudyn as exu
    from exudyn.itemInterface import (CoordinateConstraint, MarkerBodyPosition, MarkerNodeCoordinate,
                                      MarkerNodePosition, MarkerSuperElementPosition, MassPoint2D,
                                      NodePoint2D, NodePointGround, NodeRigidBody2D, ObjectRigidBody2D,
                                      SensorMarker, SphericalJoint)

    if t_end is None:
        t_end = 2 * math.pi / speed
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0]))
    gx = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
    # crank: pivot fixed, rotation at the speed (velocity-level constraint)
    nc = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[0, 0, 0], initialVelocities=[0, 0, speed]))
    crank = mbs.AddObject(ObjectRigidBody2D(mass=1e-6, inertia=1e-9, nodeNumber=nc))
    for c in (0, 1):
        mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nc,
                                                                                                   coordinate=c))]))
    mrot = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nc, coordinate=2))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mrot], offset=speed, velocityLevel=True))
    pin = mbs.AddMarker(MarkerBodyPosition(bodyNumber=crank, localPosition=[r, 0, 0]))
    # rod: moving rigidly with the crank at angle 0 (omega_rod = -r speed / l), frame at A
    ffrf = cms.AddObjectFFRFreducedOrder(mbs, positionRef=[r, 0, 0], initialVelocity=[0, r * speed, 0],
                                         initialAngularVelocity=[0, 0, -r * speed / l])
    nrb = ffrf["nRigidBody"]
    for c in (2, 3, 4):  # the frame stays in the plane: z, rotations about x and y held
        mc = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nrb, coordinate=c))
        mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mc]))
    body = ffrf["oFFRFreducedOrder"]
    at = {k: mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[k], weightingFactors=[1.0]))
          for k in (node_a, node_mid, node_b)}
    mbs.AddObject(SphericalJoint(markerNumbers=[pin, at[node_a]], constrainedAxes=[1, 1, 0]))
    # slider on the x axis, joined to the rod at B
    ns = mbs.AddNode(NodePoint2D(referenceCoordinates=[r + l, 0]))
    mbs.AddObject(MassPoint2D(mass=slider_mass, nodeNumber=ns))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ns,
                                                                                               coordinate=1))]))
    mbs.AddObject(SphericalJoint(markerNumbers=[mbs.AddMarker(MarkerNodePosition(nodeNumber=ns)), at[node_b]],
                                 constrainedAxes=[1, 1, 0]))
    pos = exu.OutputVariableType.Position
    sens = [mbs.AddSensor(SensorMarker(markerNumber=at[k], storeInternal=True, outputVariableType=pos,
                                       writeToFile=False)) for k in (node_a, node_mid, node_b)]
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
    rel = mid - a
    return t, chord[:, 0] * rel[:, 1] - chord[:, 1] * rel[:, 0] - mid_offset
