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


def solve(mbs, steps, t_end, rho_inf):
    """Assemble ``mbs`` and integrate it by Exudyn's generalized-alpha (index 3) in ``steps``
    fixed steps to ``t_end``, the sensors stored at every step."""
    import exudyn as exu

    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = int(steps)
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = rho_inf
    ss.timeIntegration.verboseMode = 0
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = t_end / steps
    exu.SolveDynamic(mbs, ss)


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
    solve(mbs, steps, t_end, rho_inf)
    P = [np.asarray(mbs.GetSensorStoredData(s)) for s in sens]
    t = P[0][:, 0]
    a, mid, b = (p[:, 1:3] for p in P)
    chord = b - a
    chord /= np.hypot(chord[:, 0], chord[:, 1])[:, None]
    rel = mid - 0.5 * (a + b)
    return t, chord[:, 0] * rel[:, 1] - chord[:, 1] * rel[:, 0]


def ffrf_body(nodes, mass, stiffness, modes, node_a=None):
    """Exudyn's ``ObjectFFRFreducedOrderInterface`` (its one-time preprocessing: the
    projected mass, stiffness and inertia terms) of a plane mesh fed kanefem's mesh and
    modes: node coordinates ``nodes`` (n, 2), shifted so that node ``node_a`` is the
    frame origin; the plane mesh's M and K (2n x 2n, node-major x, y: a continuum mesh's
    mass is the nodal mass on each component); ``modes`` (2n, m), fixed-interface modes
    (zero at the pins, so Exudyn's frame passes through them, as kanefem's pinned link).
    Exudyn's body is spatial: the plane mesh gets z components (the same nodal mass; no
    stiffness and no mode moves along z).  A solid mesh (nodes (n, 3), M and K 3n x 3n,
    node-major x, y, z) is taken as it is, in its own frame (node_a None), its frame's
    orientation by Euler parameters: with Tait-Bryan angles (NodeType.RotationRxyz, right
    for the plane) Exudyn's floating body left the spatial slider-crank's out-of-plane
    deflection 1.6 % off its own Euler-parameter run and kanefem's (both converged), which
    agree to 1.5e-5."""
    import scipy.sparse as sp
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface

    nodes = np.asarray(nodes, float)
    n = nodes.shape[0]
    if nodes.shape[1] == 3:
        fem = FEMinterface()
        fem.nodes = {"Position": nodes.copy()}
        fem.massMatrix = sp.csr_matrix(mass)
        fem.stiffnessMatrix = sp.csr_matrix(stiffness)
        fem.modeBasis = {"matrix": np.asarray(modes, float), "type": "HCBmodes"}
        fem.surface = [{"Name": "none", "Trigs": np.zeros((0, 3), dtype=int)}]
        return ObjectFFRFreducedOrderInterface(fem, rigidBodyNodeType="NodeType.RotationEulerParameters")
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
    solve(mbs, steps, t_end, rho_inf)
    P = [np.asarray(mbs.GetSensorStoredData(s)) for s in sens]
    t = P[0][:, 0]
    a, mid, b = (p[:, 1:3] for p in P)
    chord = b - a
    chord /= np.hypot(chord[:, 0], chord[:, 1])[:, None]
    rel = mid - a
    return t, chord[:, 0] * rel[:, 1] - chord[:, 1] * rel[:, 0] - mid_offset


def spatial_slider_crank_ffrf(cms, frame, start, ports, port_points, node_mid, x_mid, v0, w0, r=0.15, offset=0.05,
                              steps=2000, t_end=None, speed=150.0, slider_mass=0.0, rho_inf=0.9, frames=False):
    """kanefem.mechanism.spatial_slider_crank with a reduced solid rod, in Exudyn: the rod
    an ``ObjectFFRFreducedOrder`` (``cms`` of :func:`ffrf_body`: kanefem's mesh, M, K and
    the free columns of its Craig-Bampton basis; no stress stiffening), its frame at
    ``start`` with axes ``frame`` (kanefem's link frame), moving at t = 0 with the rigid
    mechanism (frame origin velocity ``v0``, angular velocity ``w0``, global: kanefem's
    kinematics at the drawing); the crank (rigid, negligible mass, its rotation held at
    ``speed`` by a velocity-level constraint) joined to the rod's frame at A (spherical);
    the slider, a point mass on a guide along x at height ``offset``, joined to the rod at B
    (spherical) and the rod's frame's z axis held perpendicular to the global y axis (a
    GenericJoint's one rotation row on the frame's node: kanefem's universal joint B).
    The rod's points at A and B are the mean positions of its end faces (``ports``: their
    mesh nodes; ``port_points``: where they are in the frame), which the modes do not move
    (kanefem's reference conditions hold the faces' translations): the joints act on the
    floating frame's points there, as kanefem's.  Generalized-alpha (index 3), fixed step.
    Returns (t, u_mid): node ``node_mid``'s elastic displacement in the rod's frame (its
    position less the frame's point ``x_mid``), (nt, 3)."""
    import exudyn as exu
    from exudyn.itemInterface import (CoordinateConstraint, GenericJoint, MarkerBodyPosition, MarkerBodyRigid,
                                      MarkerNodeCoordinate, MarkerNodePosition, MarkerNodeRigid,
                                      MarkerSuperElementPosition, MassPoint, NodePoint, NodePointGround,
                                      NodeRigidBodyRxyz, ObjectGround, ObjectRigidBody, SensorMarker, SensorNode,
                                      SphericalJoint)

    if t_end is None:
        t_end = 2 * math.pi / speed
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground_node = mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0]))
    gx = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground_node, coordinate=0))
    ground = mbs.AddObject(ObjectGround())
    # crank: pivot fixed, turning about z at the speed (velocity-level constraint on its angle)
    nc = mbs.AddNode(NodeRigidBodyRxyz(referenceCoordinates=[0] * 6, initialVelocities=[0, 0, 0, 0, 0, speed]))
    crank = mbs.AddObject(ObjectRigidBody(mass=1e-6, inertia=[1e-9, 1e-9, 1e-9, 0, 0, 0], nodeNumber=nc))
    for c in range(5):
        mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nc,
                                                                                                   coordinate=c))]))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nc, coordinate=5))],
                                       offset=speed, velocityLevel=True))
    pin = mbs.AddMarker(MarkerBodyPosition(bodyNumber=crank, localPosition=[r, 0, 0]))
    # the rod, moving with the rigid mechanism
    frame = np.asarray(frame, float)
    ffrf = cms.AddObjectFFRFreducedOrder(mbs, positionRef=list(start), initialVelocity=list(v0),
                                         rotationMatrixRef=frame, initialAngularVelocity=list(w0))
    body, nrb = ffrf["oFFRFreducedOrder"], ffrf["nRigidBody"]
    at = [mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[int(k) for k in nodes],
                                                   weightingFactors=[1.0 / len(nodes)] * len(nodes)))
          for nodes in ports]
    mbs.AddObject(SphericalJoint(markerNumbers=[pin, at[0]]))
    # the slider: a point mass on the guide (y = 0, z = offset), joined at B
    B = np.asarray(start) + frame @ np.asarray(port_points[1])
    vB = np.asarray(v0) + np.cross(w0, B - np.asarray(start))
    ns = mbs.AddNode(NodePoint(referenceCoordinates=list(B), initialVelocities=[vB[0], 0.0, 0.0]))
    mbs.AddObject(MassPoint(mass=slider_mass, nodeNumber=ns))
    for c in (1, 2):
        mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ns,
                                                                                                   coordinate=c))]))
    mbs.AddObject(SphericalJoint(markerNumbers=[mbs.AddMarker(MarkerNodePosition(nodeNumber=ns)), at[1]]))
    # the universal joint's rotation row: the joint frame's y (the global y) _|_ the rod's z
    # (Exudyn's GenericJoint with one rotation constrained: t_y0 . t_z1 = 0)
    gr = mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=list(B)))
    mbs.AddObject(GenericJoint(markerNumbers=[gr, mbs.AddMarker(MarkerNodeRigid(nodeNumber=nrb))],
                               constrainedAxes=[0, 0, 0, 1, 0, 0]))
    mid = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[int(node_mid)],
                                                   weightingFactors=[1.0]))
    sens = [mbs.AddSensor(SensorMarker(markerNumber=mid, storeInternal=True, writeToFile=False,
                                       outputVariableType=exu.OutputVariableType.Position)),
            mbs.AddSensor(SensorNode(nodeNumber=nrb, storeInternal=True, writeToFile=False,
                                     outputVariableType=exu.OutputVariableType.Position)),
            mbs.AddSensor(SensorNode(nodeNumber=nrb, storeInternal=True, writeToFile=False,
                                     outputVariableType=exu.OutputVariableType.RotationMatrix))]
    solve(mbs, steps, t_end, rho_inf)
    P, O, R = (np.asarray(mbs.GetSensorStoredData(s)) for s in sens)
    t = P[:, 0]
    Rm = R[:, 1:].reshape(-1, 3, 3)
    u = np.einsum("tki,tk->ti", Rm, P[:, 1:] - O[:, 1:]) - np.asarray(x_mid)
    if frames:
        return t, u, O[:, 1:], Rm
    return t, u


def arm_ffrf(cms, frames, starts, faces, tip, x_tip, k_elbow, c_elbow, speed, steps=2000, t_end=1.0,
             gravity=(0.0, 0.0, -9.81), rho_inf=0.9):
    """A two-link arm of reduced solid links in Exudyn (the model of bench/bench_spatial_flexible.py):
    each link an ``ObjectFFRFreducedOrder`` (``cms[i]`` of :func:`ffrf_body`, kanefem's mesh,
    matrices and the free columns of its Craig-Bampton basis; no stress stiffening), its
    frame at ``starts[i]`` with axes ``frames[i]``.  The base: a rigid hub of negligible mass
    turning about z at ``speed`` (a velocity-level constraint on its angle), link 1's frame
    locked to it at its root (a spherical joint at the root face's mean position, which the
    modes do not move, and the frames' rotations locked).  The elbow: a revolute joint about
    the global y axis of the drawing between link 1's tip face and link 2's root face
    (spherical at the faces' mean positions, two rotation rows on the frames' nodes) with a
    torsional spring-damper ``k_elbow``, ``c_elbow`` on it, its drawing angle unloaded.
    Gravity ``gravity``; at t = 0 the drawing, moving with the hub.  Generalized-alpha (index
    3), fixed step.  Returns (t, u_tip, elbow): link 2's node ``tip``'s elastic
    displacement in its frame ((nt, 3), its position less the frame's point ``x_tip``) and
    the elbow's angle (link 2's frame turned about y from link 1's)."""
    import exudyn as exu
    from exudyn.itemInterface import (CoordinateConstraint, GenericJoint, MarkerBodyPosition, MarkerBodyRigid,
                                      MarkerNodeCoordinate, MarkerNodeRigid, MarkerSuperElementPosition,
                                      NodePointGround, NodeRigidBodyRxyz, ObjectRigidBody,
                                      SensorMarker, SensorNode, SphericalJoint, TorsionalSpringDamper)

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    gx = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0])),
                                            coordinate=0))
    hub_node = mbs.AddNode(NodeRigidBodyRxyz(referenceCoordinates=[0] * 6, initialVelocities=[0, 0, 0, 0, 0, speed]))
    hub = mbs.AddObject(ObjectRigidBody(mass=1e-6, inertia=[1e-9, 1e-9, 1e-9, 0, 0, 0], nodeNumber=hub_node))
    for c in range(5):
        mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=hub_node,
                                                                                                   coordinate=c))]))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[gx, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=hub_node,
                                                                                               coordinate=5))],
                                       offset=speed, velocityLevel=True))
    w = np.array([0.0, 0.0, speed])
    body, node, ends = [], [], []
    for i in range(2):
        R, o = np.asarray(frames[i], float), np.asarray(starts[i], float)
        f = cms[i].AddObjectFFRFreducedOrder(mbs, positionRef=list(o), initialVelocity=list(np.cross(w, o)),
                                             rotationMatrixRef=R, initialAngularVelocity=list(w),
                                             gravity=list(gravity))
        body.append(f["oFFRFreducedOrder"])
        node.append(f["nRigidBody"])
        ends.append([mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=f["oFFRFreducedOrder"],
                                                              meshNodeNumbers=[int(k) for k in nodes],
                                                              weightingFactors=[1.0 / len(nodes)] * len(nodes)))
                     for nodes in faces[i]])
    rigid = [mbs.AddMarker(MarkerNodeRigid(nodeNumber=n)) for n in node]
    # the base: link 1's root on the hub, its frame's rotation the hub's
    mbs.AddObject(SphericalJoint(markerNumbers=[mbs.AddMarker(MarkerBodyPosition(bodyNumber=hub,
                                                                                 localPosition=list(starts[0]))),
                                                ends[0][0]]))
    mbs.AddObject(GenericJoint(markerNumbers=[mbs.AddMarker(MarkerBodyRigid(bodyNumber=hub, localPosition=[0, 0, 0])),
                                              rigid[0]], constrainedAxes=[0, 0, 0, 1, 1, 1],
                               rotationMarker0=np.asarray(frames[0], float)))
    # the elbow: about the drawing's y axis, as the joint frame's z in each link's axes
    J = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # columns: x, y, z = global z, x, y
    rm = [np.asarray(frames[i], float).T @ J for i in range(2)]
    mbs.AddObject(SphericalJoint(markerNumbers=[ends[0][1], ends[1][0]]))
    mbs.AddObject(GenericJoint(markerNumbers=rigid, constrainedAxes=[0, 0, 0, 1, 1, 0], rotationMarker0=rm[0],
                               rotationMarker1=rm[1]))
    import warnings

    with warnings.catch_warnings():  # rotationMarker: deprecated for markers with a local frame, which a node has not
        warnings.simplefilter("ignore", DeprecationWarning)
        mbs.AddObject(TorsionalSpringDamper(markerNumbers=rigid, stiffness=k_elbow, damping=c_elbow,
                                            rotationMarker0=rm[0], rotationMarker1=rm[1]))
    mid = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body[1], meshNodeNumbers=[int(tip)],
                                                   weightingFactors=[1.0]))
    rot = exu.OutputVariableType.RotationMatrix
    sens = [mbs.AddSensor(SensorMarker(markerNumber=mid, storeInternal=True, writeToFile=False,
                                       outputVariableType=exu.OutputVariableType.Position)),
            mbs.AddSensor(SensorNode(nodeNumber=node[1], storeInternal=True, writeToFile=False,
                                     outputVariableType=exu.OutputVariableType.Position)),
            mbs.AddSensor(SensorNode(nodeNumber=node[1], storeInternal=True, writeToFile=False, outputVariableType=rot)),
            mbs.AddSensor(SensorNode(nodeNumber=node[0], storeInternal=True, writeToFile=False, outputVariableType=rot))]
    solve(mbs, steps, t_end, rho_inf)
    P, O, R2, R1 = (np.asarray(mbs.GetSensorStoredData(s)) for s in sens)
    R2m, R1m = R2[:, 1:].reshape(-1, 3, 3), R1[:, 1:].reshape(-1, 3, 3)
    u = np.einsum("tki,tk->ti", R2m, P[:, 1:] - O[:, 1:]) - np.asarray(x_tip)
    rel = np.einsum("tki,tkj->tij", R1m @ np.asarray(frames[0]).T @ J, R2m @ np.asarray(frames[1]).T @ J)
    return P[:, 0], u, np.arctan2(rel[:, 1, 0], rel[:, 0, 0])
