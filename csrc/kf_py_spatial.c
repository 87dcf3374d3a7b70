/*
 * kf_py_spatial.c -- the binding of spatial mechanisms (kanefem._core; helpers in
 * kf_python.h, the drives and the rigid motion's driver shared with kf_py_mechanism.c).
 *
 * A spatial mechanism crosses as a capsule (kf_smech); its bodies, joints,
 * springs, coordinates and axes on bodies as 1-D arrays of the typed boundary
 * records kanefem.SBODY_DTYPE, SJOINT_DTYPE, SSPRING_DTYPE, SCOORD_DTYPE and
 * SAXES_DTYPE (kf_python.c, make_record_descrs, from the structs' offsets),
 * made in one Python place (kanefem._records); the core validates every field
 * (kf_smech_create).  Per-instant results come back with a leading time axis.
 */
#include "kf_python.h"


static void smech_destructor(PyObject *cap)
{
    kf_smech_free(PyCapsule_GetPointer(cap, SMECH_CAPSULE));
}

static int smech_conv(PyObject *obj, void *p)
{
    if (!PyCapsule_IsValid(obj, SMECH_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError,
                        "mech must be a spatial mechanism made by kanefem._core.smech_create");
        return 0;
    }
    *(kf_smech **)p = PyCapsule_GetPointer(obj, SMECH_CAPSULE);
    return 1;
}

/*
 * smech_create(bodies (nb,) SBODY_DTYPE, joints (nj,) SJOINT_DTYPE, springs (ns,)
 *              SSPRING_DTYPE, coords (nc,) SCOORD_DTYPE, gravity (3,), redundant=0) -> mech
 */
static PyObject *py_smech_create(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"bodies", "joints", "springs", "coords", "gravity", "redundant",
                             NULL};
    rec_arg bodies = {"bodies", &sbody_descr, "SBODY_DTYPE"},
            joints = {"joints", &sjoint_descr, "SJOINT_DTYPE"},
            springs = {"springs", &sspring_descr, "SSPRING_DTYPE"},
            coords = {"coords", &scoord_descr, "SCOORD_DTYPE"};
    f64_arg gravity = {"gravity", 1, {3}};
    int_arg redundant = {"redundant", 0, 1, 0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&|O&", kwlist, rec_conv, &bodies,
                                     rec_conv, &joints, rec_conv, &springs, rec_conv, &coords,
                                     f64_conv, &gravity, int_conv, &redundant))
        return NULL;
    PyObject *result = NULL;
    if (bodies.n > KF_SMECH_MAX_BODIES || joints.n > INT_LIMIT || springs.n > INT_LIMIT ||
        coords.n > INT_LIMIT) {
        fail(PyExc_ValueError, "bodies: at most %d bodies, got %zd", KF_SMECH_MAX_BODIES,
             (Py_ssize_t)bodies.n);
        goto done;
    }
    const double *g = f64_data(&gravity);
    kf_smech_desc d = {.nbody = (int)bodies.n, .bodies = bodies.data, .njoint = (int)joints.n,
                       .joints = joints.data, .nspring = (int)springs.n,
                       .springs = springs.data, .ncoord = (int)coords.n, .coords = coords.data,
                       .gravity = {g[0], g[1], g[2]}, .redundant = (int)redundant.v};
    kf_smech *m = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_smech_create(&m, &d, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    if (!(result = PyCapsule_New(m, SMECH_CAPSULE, smech_destructor)))
        kf_smech_free(m);
done:
    rec_conv(NULL, &bodies);
    rec_conv(NULL, &joints);
    rec_conv(NULL, &springs);
    rec_conv(NULL, &coords);
    f64_release(&gravity);
    return result;
}

/* smech_describe(mech) -> the description's records (the bodies' r and quat: the assembled
 * drawing), gravity, redundant, rows (kept), all_rows and z0 (the drawing's coordinates). */
static PyObject *py_smech_describe(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", NULL};
    kf_smech *m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, smech_conv, &m))
        return NULL;
    kf_smech_desc d;
    kf_smech_describe(m, &d);
    int all, kept = kf_smech_nrows(m, &all);
    double z0[KF_KANE_MAX_NU];
    kf_smech_drawing_coordinates(m, z0);
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:(ddd),s:i,s:i,s:i,s:N}", "bodies",
                         new_records(sbody_descr, d.bodies, d.nbody), "joints",
                         new_records(sjoint_descr, d.joints, d.njoint), "springs",
                         new_records(sspring_descr, d.springs, d.nspring), "coords",
                         new_records(scoord_descr, d.coords, d.ncoord), "gravity", d.gravity[0],
                         d.gravity[1], d.gravity[2], "redundant", d.redundant, "rows", kept,
                         "all_rows", all, "z0", new_vector(z0, d.ncoord));
}

/* The loops over instants: kf_py_mechanism.c's, with space's kind (SAXES_DTYPE; the
 * speeds u = (v, omega) per body and their rates ud). */
static int smech_any(PyObject *obj, void *p)
{
    kf_smech *m;
    if (!smech_conv(obj, &m))
        return 0;
    *(const void **)p = m;
    return 1;
}

static const mech_kind spatial_kind = {&kf_smech_ops, smech_any, &saxes_descr, "SAXES_DTYPE",
                                       "u", "ud"};

/* smech_kinematics(mech, z (nt, nz), zd=None, zdd=None, frames=None (nf,) SAXES_DTYPE)
 *   -> {q (nt, 7 nb), u, ud, c, Q (nt, n), A (nt, n, nz), frames (nt, nf)} */
static PyObject *py_smech_kinematics(PyObject *self, PyObject *args, PyObject *kw)
{
    return mech_kinematics_call(&spatial_kind, args, kw);
}

/* smech_joint_forces(mech, states (nt, >= 3 nz: z, z', z''), progress=None)
 *   -> {joints (nt, nj, 6), drive (nt, nz)} */
static PyObject *py_smech_joint_forces(PyObject *self, PyObject *args, PyObject *kw)
{
    return mech_joint_forces_call(&spatial_kind, args, kw);
}

/* smech_accelerations(mech, z (nt, nz), zd (nt, nz), tau=None (nt, nz)) -> zdd (nt, nz). */
static PyObject *py_smech_accelerations(PyObject *self, PyObject *args, PyObject *kw)
{
    return mech_accelerations_call(&spatial_kind, args, kw);
}

/*
 * smech_simulate(mech, drives (nz,) DRIVE_DTYPE, functions (nz), z0, zd0, t, *, rtol, atol,
 *                max_steps, progress) -> {states (nt, 4 nz), stats}  (kf_smech_simulate)
 */
static PyObject *py_smech_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "drives", "functions", "z0", "zd0", "t",
                             "rtol", "atol", "max_steps", "progress", NULL};
    kf_smech *m;
    rec_arg drives = {"drives", &drive_descr, "DRIVE_DTYPE"};
    f64_arg z0 = {"z0", 1, {-1}}, zd0 = {"zd0", 1, {-1}}, t = {"t", 1, {-1}};
    PyObject *functions, *result = NULL;
    real_arg rtol = {"rtol", 1e-9}, atol = {"atol", 1e-12};
    int_arg max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&OO&O&O&|$O&O&O&O&", kwlist, smech_conv,
                                     &m, rec_conv, &drives, &functions, f64_conv, &z0, f64_conv,
                                     &zd0, f64_conv, &t, real_conv, &rtol, real_conv, &atol,
                                     int_conv, &max_steps, func_conv, &progress))
        return NULL;
    int nz = kf_smech_ncoord(m), python = 0;
    kf_mech_drive d[KF_KANE_MAX_NU];
    if (!f64_expect(&z0, 0, nz, "coordinates") && !f64_expect(&zd0, 0, nz, "coordinates") &&
        !drives_of(nz, &drives, functions, d, &python))
        result = simulate_of(&kf_smech_ops, m, d, python, f64_data(&z0), f64_data(&zd0), &t,
                             rtol.v, atol.v, max_steps.v, progress.fn);
    rec_conv(NULL, &drives);
    f64_release(&z0);
    f64_release(&zd0);
    f64_release(&t);
    return result;
}

/* This file's functions of kanefem._core (PyInit__core adds the table). */
PyMethodDef kf_py_spatial_methods[] = {
    KW("smech_create", py_smech_create,
       "smech_create(bodies (nb,) sbody_dtype, joints (nj,) sjoint_dtype, springs (ns,) "
       "sspring_dtype, coords (nc,) scoord_dtype, gravity (3,), redundant=0) -> mech "
       "(kf_smech_create)."),
    KW("smech_describe", py_smech_describe,
       "smech_describe(mech) -> the description's records, gravity, redundant, rows, all_rows."),
    KW("smech_kinematics", py_smech_kinematics,
       "smech_kinematics(mech, z (nt, nz), zd=None, zdd=None, frames=None (nf,) saxes_dtype) "
       "-> {q, u, ud, A, c, Q, frames} (kf_smech_kinematics, kf_smech_applied, kf_smech_frame)."),
    KW("smech_joint_forces", py_smech_joint_forces,
       "smech_joint_forces(mech, states (nt, >= 3 nz), progress=None) -> {joints (nt, nj, 6), "
       "drive (nt, nz)} (kf_smech_reactions)."),
    KW("smech_accelerations", py_smech_accelerations,
       "smech_accelerations(mech, z (nt, nz), zd (nt, nz), tau=None) -> zdd (nt, nz) "
       "(kf_smech_kinematics, kf_smech_dynamics)."),
    KW("smech_simulate", py_smech_simulate,
       "smech_simulate(mech, drives (nz,) drive_dtype, functions (nz), z0, zd0, t, *, rtol, "
       "atol, max_steps, progress) -> {states (nt, 4 nz), stats} (kf_smech_simulate)."),
    {NULL, NULL, 0, NULL}};
