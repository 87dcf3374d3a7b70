/*
 * kf_py_mechanism.c -- the binding of mechanisms, elastic links coupled both ways, the wind pump
 * (kanefem._core; helpers in kf_python.h, module in kf_python.c).
 */
#include "kf_python.h"

/* ================================================================ mechanisms
 *
 * A mechanism crosses as a capsule (kf_mech); joints, springs, coordinates,
 * drives, elastic links and axes on bodies as 1-D arrays of the typed boundary
 * records kanefem.JOINT_DTYPE, SPRING_DTYPE, COORD_DTYPE, DRIVE_DTYPE,
 * LINK_DTYPE and AXES_DTYPE, the NumPy images of kf_joint, kf_spring,
 * kf_coord, kf_mech_drive, kf_mech_link and kf_mech_axes (fields and offsets
 * from the structs, make_record_descrs), made in one Python place
 * (kanefem._records); the core validates every field (kf_mech_create,
 * kf_mech_check_drives, kf_flexmech_create; axes: kf_mech_axes_check).  What a record
 * cannot hold travels beside it: a drive's path or law (a callable), a link's
 * elements (a body) and reference conditions (a mask).  Per-instant results
 * come back as arrays with a leading time axis.
 */

static void mech_destructor(PyObject *cap)
{
    kf_mech_free(PyCapsule_GetPointer(cap, MECH_CAPSULE));
}

static int mech_conv(PyObject *obj, void *p)
{
    if (!PyCapsule_IsValid(obj, MECH_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError,
                        "mech must be a mechanism made by kanefem._core.mech_create");
        return 0;
    }
    *(kf_mech **)p = PyCapsule_GetPointer(obj, MECH_CAPSULE);
    return 1;
}

static PyObject *mech_capsule(int rc, kf_mech *m, const kf_error *err)
{
    if (rc)
        return raise_status(rc, err);
    PyObject *cap = PyCapsule_New(m, MECH_CAPSULE, mech_destructor);
    if (!cap)
        kf_mech_free(m);
    return cap;
}

static PyObject *names_tuple(const char *const *names, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) {
        PyObject *s = PyUnicode_FromString(names[k]);
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, s);
    }
    return t;
}

/*
 * mech_create(mass (nb,), inertia (nb,), q0 (3 nb,), joints (nj,) JOINT_DTYPE,
 *             springs (ns,) SPRING_DTYPE, coords (nc,) COORD_DTYPE, gravity (2,)) -> mech
 */
static PyObject *py_mech_create(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mass", "inertia", "q0", "joints", "springs", "coords", "gravity",
                             NULL};
    f64_arg mass = {"mass", 1, {-1}}, inertia = {"inertia", 1, {-1}}, q0 = {"q0", 1, {-1}},
            gravity = {"gravity", 1, {2}};
    rec_arg joints = {"joints", &joint_descr, "JOINT_DTYPE"},
            springs = {"springs", &spring_descr, "SPRING_DTYPE"},
            coords = {"coords", &coord_descr, "COORD_DTYPE"};
    PyObject *result = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&O&O&", kwlist, f64_conv, &mass,
                                     f64_conv, &inertia, f64_conv, &q0, rec_conv, &joints,
                                     rec_conv, &springs, rec_conv, &coords, f64_conv, &gravity))
        return NULL;
    npy_intp nb = f64_dim(&mass, 0);
    if (nb > 100000 || f64_expect(&inertia, 0, nb, "bodies") ||
        f64_expect(&q0, 0, 3 * nb, "3 per body")) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "mass: at most 100000 bodies");
        goto done;
    }
    const double *g = f64_data(&gravity);
    kf_mech_desc d = {.nbody = (int)nb, .mass = f64_data(&mass), .inertia = f64_data(&inertia),
                      .q0 = f64_data(&q0), .njoint = (int)joints.n, .joints = joints.data,
                      .nspring = (int)springs.n, .springs = springs.data,
                      .ncoord = (int)coords.n, .coords = coords.data, .gravity = {g[0], g[1]}};
    kf_mech *m = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_mech_create(&m, &d, &err);
    Py_END_ALLOW_THREADS
    result = mech_capsule(rc, m, &err);
done:
    f64_release(&mass);
    f64_release(&inertia);
    f64_release(&q0);
    rec_conv(NULL, &joints);
    rec_conv(NULL, &springs);
    rec_conv(NULL, &coords);
    f64_release(&gravity);
    return result;
}

/* mech_describe(mech) -> the description's arrays (as mech_create takes them). */
static PyObject *py_mech_describe(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", NULL};
    kf_mech *m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, mech_conv, &m))
        return NULL;
    kf_mech_desc d;
    kf_mech_describe(m, &d);
    npy_intp nb = d.nbody;
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:(dd)}", "mass", new_vector(d.mass, nb),
                         "inertia", new_vector(d.inertia, nb), "q0",
                         new_vector(d.q0, 3 * nb), "joints",
                         new_records(joint_descr, d.joints, d.njoint), "springs",
                         new_records(spring_descr, d.springs, d.nspring), "coords",
                         new_records(coord_descr, d.coords, d.ncoord), "gravity",
                         d.gravity[0], d.gravity[1]);
}

/* The rows of (nt, nz) arrays z, zd, zdd (the rates may be absent: zero). */
int rates_conform(int nz, f64_arg *z, f64_arg *zd, f64_arg *zdd)
{
    npy_intp nt = f64_dim(z, 0);
    if (f64_expect(z, 1, nz, "coordinates") || (zd->arr && (f64_expect(zd, 0, nt, "instants") ||
                                                            f64_expect(zd, 1, nz, "coordinates"))) ||
        (zdd->arr && (f64_expect(zdd, 0, nt, "instants") || f64_expect(zdd, 1, nz, "coordinates"))))
        return -1;
    return 0;
}

/*
 * The loops over instants, written once for every kinematics through its table
 * (kf_mech_ops): a kind names the table, the capsule's converter, the axes'
 * record and the kinematics' arrays.
 */

/* The kinematics at nt instants: {q (nt, npos), <speeds> and <rates> (nt, n), A (nt, n,
 * nz), c (nt, n), Q (nt, n): applied forces, frames (nt, nf): of the axes asked for}. */
static PyObject *kinematics_over(const mech_kind *kind, const void *m, f64_arg *z, f64_arg *zd,
                                 f64_arg *zdd, rec_arg *fr)
{
    const kf_mech_ops *ops = kind->ops;
    int nz = ops->ncoord(m);
    npy_intp nt = f64_dim(z, 0), nf = fr->arr ? fr->n : 0;
    kf_error err = {0};
    if (ops->axes_check(m, (int)nf, fr->data, "frames", &err)) /* nf <= 1e5 (rec_conv) */
        return raise_status(KF_EINVAL, &err);
    void *work = NULL;
    int rc = ops->work_alloc(m, &work, &err);
    if (rc)
        return raise_status(rc, &err);
    enum { NOUT = 6 };
    const char *names[NOUT] = {"q", kind->speeds, kind->rates, "A", "c", "Q"};
    PyArrayObject *o[NOUT] = {NULL}, *frames = NULL;
    PyObject *result = NULL;
    kf_mech_state st;
    int npos, n;
    ops->shape(m, &npos, &n);
    for (int k = 0; k < NOUT; k++) {
        npy_intp dims[3] = {nt, k == 0 ? npos : n, nz};
        if (!(o[k] = (PyArrayObject *)PyArray_SimpleNew(k == 3 ? 3 : 2, dims, NPY_DOUBLE)))
            goto done;
    }
    npy_intp fdims[2] = {nt, nf};
    Py_INCREF(frame_descr);
    if (!(frames = (PyArrayObject *)PyArray_Zeros(2, fdims, frame_descr, 0)))
        goto done;
    const double *zz = f64_data(z), *zv = f64_data(zd), *za = f64_data(zdd);
    Py_BEGIN_ALLOW_THREADS
    rc = KF_OK;
    for (npy_intp t = 0; t < nt && !rc; t++) {
        rc = ops->kinematics(m, work, zz + t * nz, zv ? zv + t * nz : NULL,
                             za ? za + t * nz : NULL, &st, &err);
        if (!rc)
            rc = ops->applied(m, work, (double *)PyArray_DATA(o[5]) + t * st.n, &err);
        if (rc)
            break;
        const double *src[NOUT - 1] = {st.q, st.u, st.ud, st.A, st.c};
        for (int j = 0; j < NOUT - 1; j++) {
            npy_intp per = j == 0 ? st.npos : j == 3 ? (npy_intp)st.n * nz : st.n;
            memcpy((double *)PyArray_DATA(o[j]) + t * per, src[j], (size_t)per * sizeof(double));
        }
        kf_frame *f = (kf_frame *)PyArray_DATA(frames) + t * nf;
        for (npy_intp i = 0; i < nf; i++)
            ops->frame(m, work, fr->data, (int)i, f + i);
    }
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = PyDict_New();
    for (int j = 0; result && j < NOUT; j++)
        if (PyDict_SetItemString(result, names[j], (PyObject *)o[j]) < 0)
            Py_CLEAR(result);
    if (result && PyDict_SetItemString(result, "frames", (PyObject *)frames) < 0)
        Py_CLEAR(result);
done:
    ops->work_free(work);
    for (int j = 0; j < NOUT; j++)
        Py_XDECREF(o[j]);
    Py_XDECREF(frames);
    return result;
}

/* <kind>_kinematics(mech, z (nt, nz), zd=None, zdd=None, frames=None (nf,) axes records)
 * -> dict */
PyObject *mech_kinematics_call(const mech_kind *kind, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "z", "zd", "zdd", "frames", NULL};
    const void *m;
    f64_arg z = {"z", 2, {-1, -1}}, zd = {"zd", 2, {-1, -1}, 1}, zdd = {"zdd", 2, {-1, -1}, 1};
    rec_arg fr = {"frames", kind->axes_descr, kind->axes_dtype};
    PyObject *frames = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&O&O", kwlist, kind->conv, &m, f64_conv,
                                     &z, f64_conv, &zd, f64_conv, &zdd, &frames))
        return NULL;
    PyObject *r = NULL;
    if ((frames == Py_None || rec_conv(frames, &fr)) &&
        !rates_conform(kind->ops->ncoord(m), &z, &zd, &zdd))
        r = kinematics_over(kind, m, &z, &zd, &zdd, &fr);
    f64_release(&z);
    f64_release(&zd);
    f64_release(&zdd);
    rec_conv(NULL, &fr);
    return r;
}

/* <kind>_joint_forces(mech, states (nt, >= 3 nz: z, z', z''), progress=None)
 *   -> {joints (nt, nj, joint_values), drive (nt, nz)} */
PyObject *mech_joint_forces_call(const mech_kind *kind, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "states", "progress", NULL};
    const void *m;
    f64_arg s = {"states", 2, {-1, -1}};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&", kwlist, kind->conv, &m, f64_conv, &s,
                                     func_conv, &progress))
        return NULL;
    const kf_mech_ops *ops = kind->ops;
    int nz = ops->ncoord(m), nj = ops->njoint(m), nv = ops->joint_values;
    npy_intp nt = f64_dim(&s, 0), cols = f64_dim(&s, 1), jd[3] = {nt, nj, nv}, dd[2] = {nt, nz};
    PyArrayObject *fj = NULL, *dr = NULL;
    PyObject *result = NULL;
    void *work = NULL;
    kf_error err = {0};
    int rc;
    if (cols < 3 * nz) {
        fail(PyExc_ValueError, "states must have at least %d columns (z, z', z'' of %d "
             "coordinates), got %zd", 3 * nz, nz, (Py_ssize_t)cols);
        goto done;
    }
    fj = (PyArrayObject *)PyArray_SimpleNew(3, jd, NPY_DOUBLE);
    dr = (PyArrayObject *)PyArray_SimpleNew(2, dd, NPY_DOUBLE);
    if (!fj || !dr)
        goto done;
    if ((rc = ops->work_alloc(m, &work, &err))) {
        raise_status(rc, &err);
        goto done;
    }
    const double *sd = f64_data(&s);
    poll_ctx pc = poll_start(progress.fn);
    Py_BEGIN_ALLOW_THREADS
    rc = KF_OK;
    for (npy_intp t = 0; t < nt && !rc; t++) {
        const double *row = sd + t * cols;
        rc = ops->kinematics(m, work, row, row + nz, row + 2 * nz, NULL, &err);
        if (!rc)
            rc = ops->reactions(m, work, (double *)PyArray_DATA(fj) + t * nv * nj,
                                (double *)PyArray_DATA(dr) + t * nz, &err);
        if (!rc && poll_cb((double)t, &pc))
            rc = KF_ECALLBACK;
    }
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O}", "joints", fj, "drive", dr);
done:
    if (work)
        ops->work_free(work);
    Py_XDECREF(fj);
    Py_XDECREF(dr);
    f64_release(&s);
    return result;
}

/* <kind>_accelerations(mech, z (nt, nz), zd (nt, nz), tau=None (nt, nz)) -> zdd (nt, nz):
 * Kane's equations at each state, every coordinate free under tau. */
PyObject *mech_accelerations_call(const mech_kind *kind, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "z", "zd", "tau", NULL};
    const void *m;
    f64_arg z = {"z", 2, {-1, -1}}, zd = {"zd", 2, {-1, -1}}, tau = {"tau", 2, {-1, -1}, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&|O&", kwlist, kind->conv, &m, f64_conv,
                                     &z, f64_conv, &zd, f64_conv, &tau))
        return NULL;
    const kf_mech_ops *ops = kind->ops;
    PyArrayObject *out = NULL;
    PyObject *result = NULL;
    void *work = NULL;
    kf_error err = {0};
    int nz = ops->ncoord(m), rc;
    if (rates_conform(nz, &z, &zd, &tau))
        goto done;
    npy_intp nt = f64_dim(&z, 0), dims[2] = {nt, nz};
    if (!(out = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0)))
        goto done;
    if ((rc = ops->work_alloc(m, &work, &err))) {
        raise_status(rc, &err);
        goto done;
    }
    const double *zz = f64_data(&z), *zv = f64_data(&zd), *tt = f64_data(&tau);
    double *a = PyArray_DATA(out);
    Py_BEGIN_ALLOW_THREADS
    rc = KF_OK;
    for (npy_intp t = 0; t < nt && !rc; t++)
        rc = ops->accelerations(m, work, zz + t * nz, zv + t * nz, tt ? tt + t * nz : NULL, NULL,
                                a + t * nz, NULL, &err);
    Py_END_ALLOW_THREADS
    result = array_or_raise(rc, &err, &out);
done:
    if (work)
        ops->work_free(work);
    Py_XDECREF(out);
    f64_release(&z);
    f64_release(&zd);
    f64_release(&tau);
    return result;
}

/* The plane's kind: kf_mech capsules, AXES_DTYPE, q' and q''. */
static int mech_any(PyObject *obj, void *p)
{
    kf_mech *m;
    if (!mech_conv(obj, &m))
        return 0;
    *(const void **)p = m;
    return 1;
}

static const mech_kind planar_kind = {&kf_mech_planar_ops, mech_any, &axes_descr, "AXES_DTYPE",
                                      "qd", "qdd"};

static PyObject *py_mech_kinematics(PyObject *self, PyObject *args, PyObject *kw)
{
    return mech_kinematics_call(&planar_kind, args, kw);
}

static PyObject *py_mech_joint_forces(PyObject *self, PyObject *args, PyObject *kw)
{
    return mech_joint_forces_call(&planar_kind, args, kw);
}

static PyObject *py_mech_accelerations(PyObject *self, PyObject *args, PyObject *kw)
{
    return mech_accelerations_call(&planar_kind, args, kw);
}

/* Python drive laws and paths (called with the GIL held: see simulate_of). */
static int py_law_cb(double t, int k, const double *z, const double *zd, double *force,
                     void *params, kf_error *err)
{
    PyObject *r = PyObject_CallFunction((PyObject *)params, "ddd", t, z[k], zd[k]);
    if (!r)
        return callback_failed(err, "torque law", t);
    double v = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (v == -1.0 && PyErr_Occurred())
        return callback_failed(err, "torque law", t);
    *force = v;
    return 0;
}

static int py_path_cb(double t, int k, double *zk, void *params, kf_error *err)
{
    PyObject *r = PyObject_CallFunction((PyObject *)params, "d", t);
    PyArrayObject *a = NULL;
    int rc = -1;
    if (!r)
        goto done;
    a = (PyArrayObject *)PyArray_FROMANY(r, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!a)
        goto done;
    if (PyArray_DIM(a, 0) != 3) {
        fail(PyExc_ValueError, "a path must return (z, z', z''), got %zd values at t = %.17g",
             (Py_ssize_t)PyArray_DIM(a, 0), t);
        goto done;
    }
    memcpy(zk, PyArray_DATA(a), 3 * sizeof(double));
    rc = 0;
done:
    Py_XDECREF(a);
    Py_XDECREF(r);
    return rc ? callback_failed(err, "path", t) : 0;
}

/* A path of polynomial pieces (kf_path_pieces) as a capsule that owns it and copies of
 * its arrays: what a recorded or sampled drive hands the core instead of a callable. */
#define PATH_CAPSULE "kanefem._core.path"

static void path_destructor(PyObject *cap)
{
    free(PyCapsule_GetPointer(cap, PATH_CAPSULE)); /* the struct and its arrays: one block */
}

/* path_pieces(t (n + 1,), coef (n, deg + 1)) -> path (kf_path_pieces_check). */
static PyObject *py_path_pieces(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"t", "coef", NULL};
    f64_arg t = {"t", 1, {-1}}, c = {"coef", 2, {-1, -1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, f64_conv, &t, f64_conv, &c))
        return NULL;
    PyObject *result = NULL;
    npy_intp n = f64_dim(&c, 0), m = f64_dim(&c, 1);
    if (f64_dim(&t, 0) != n + 1 || n < 1 || n > INT_LIMIT || m < 1 || m > 8) {
        fail(PyExc_ValueError, "a path needs t (n + 1,) and coef (n, deg + 1), n >= 1, deg < 8; "
             "got t (%zd,) and coef (%zd, %zd)", (Py_ssize_t)f64_dim(&t, 0), (Py_ssize_t)n,
             (Py_ssize_t)m);
        goto done;
    }
    size_t head = (sizeof(kf_path_pieces) + sizeof(double) - 1) / sizeof(double);
    double *block = malloc((head + (size_t)(n + 1) + (size_t)(n * m)) * sizeof(double));
    if (!block) {
        PyErr_NoMemory();
        goto done;
    }
    kf_path_pieces *p = (kf_path_pieces *)block;
    double *tt = block + head, *cc = tt + n + 1;
    memcpy(tt, f64_data(&t), (size_t)(n + 1) * sizeof(double));
    memcpy(cc, f64_data(&c), (size_t)(n * m) * sizeof(double));
    *p = (kf_path_pieces){(int)n, (int)m - 1, tt, cc};
    kf_error err = {0};
    int rc = kf_path_pieces_check(p, &err);
    if (rc) {
        free(block);
        raise_status(rc, &err);
        goto done;
    }
    if (!(result = PyCapsule_New(p, PATH_CAPSULE, path_destructor)))
        free(block);
done:
    f64_release(&t);
    f64_release(&c);
    return result;
}

/* Drives from DRIVE_DTYPE records (nz) and one callable, path capsule (path_pieces: in
 * the core, no callback) or None per coordinate beside them: the path of a mode-2 drive,
 * the force law of a free one (added to its constant force); the core validates the
 * fields (kf_mech_check_drives).  *python tells whether any callable is Python (the GIL
 * must then be held). */
int drives_of(int nz, const rec_arg *drives, PyObject *functions, kf_mech_drive *d, int *python)
{
    if (drives->n != nz) {
        fail(PyExc_ValueError, "drives holds %zd records, the mechanism has %d coordinates",
             (Py_ssize_t)drives->n, nz);
        return -1;
    }
    PyObject *fs = PySequence_Fast(functions, "functions must be a sequence");
    if (!fs)
        return -1;
    int rc = -1;
    if (PySequence_Fast_GET_SIZE(fs) != nz) {
        fail(PyExc_ValueError, "functions must have %d entries (one per coordinate), got %zd", nz,
             (Py_ssize_t)PySequence_Fast_GET_SIZE(fs));
        goto done;
    }
    memcpy(d, drives->data, (size_t)nz * sizeof *d);
    *python = 0;
    for (int k = 0; k < nz; k++) {
        d[k].path = NULL;
        d[k].law = NULL;
        d[k].params = NULL;
        PyObject *fn = PySequence_Fast_GET_ITEM(fs, k);
        if (fn == Py_None)
            continue;
        if (PyCapsule_IsValid(fn, PATH_CAPSULE)) {
            if (d[k].mode != KF_DRIVE_PATH) {
                fail(PyExc_ValueError, "functions[%d] is a path: drives[%d].mode = %d must be 2 "
                     "(path)", k, k, d[k].mode);
                goto done;
            }
            d[k].path = kf_path_pieces_eval;
            d[k].params = PyCapsule_GetPointer(fn, PATH_CAPSULE); /* the sequence keeps it */
            continue;
        }
        if (!PyCallable_Check(fn)) {
            fail(PyExc_TypeError, "functions[%d] must be callable or None, got %R", k, fn);
            goto done;
        }
        if (d[k].mode == KF_DRIVE_PATH)
            d[k].path = py_path_cb;
        else if (d[k].mode == KF_DRIVE_FREE)
            d[k].law = py_law_cb;
        else {
            fail(PyExc_ValueError, "functions[%d] must be None: drives[%d].mode = %d takes no "
                 "function", k, k, d[k].mode);
            goto done;
        }
        d[k].params = fn; /* borrowed: the caller's sequence keeps it */
        *python = 1;
    }
    rc = 0;
done:
    Py_DECREF(fs);
    return rc;
}

/* The rigid motion of any mechanism given by its table (kf_mech_integrate):
 * {states (nt, 4 nz), stats}. */
PyObject *simulate_of(const kf_mech_ops *ops, const void *m, const kf_mech_drive *d, int python,
                      const double *z0, const double *zd0, f64_arg *t, double rtol, double atol,
                      long long max_steps, PyObject *progress)
{
    int nz = ops->ncoord(m);
    npy_intp nt = f64_dim(t, 0), dims[2] = {nt, 4 * nz};
    PyArrayObject *states = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (!states)
        return NULL;
    poll_ctx pc = poll_start(progress);
    kf_ode_opts opts = {.rtol = rtol, .atol = atol, .max_steps = steps_limit(max_steps),
                        .progress = poll_cb, .progress_params = &pc};
    kf_stats st = {0};
    kf_error err = {0};
    int rc;
    if (python) {
        /* Python laws: keep the GIL (poll_cb takes it again: allowed) */
        rc = kf_mech_integrate(ops, m, d, z0, zd0, (int)nt, f64_data(t), &opts,
                               PyArray_DATA(states), &st, &err);
    } else {
        Py_BEGIN_ALLOW_THREADS
        rc = kf_mech_integrate(ops, m, d, z0, zd0, (int)nt, f64_data(t), &opts,
                               PyArray_DATA(states), &st, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc) {
        Py_DECREF(states);
        return raise_status(rc, &err);
    }
    return Py_BuildValue("{s:N,s:N}", "states", states, "stats", stats_dict(&st));
}

/*
 * mech_simulate(mech, drives (nz,) DRIVE_DTYPE, functions (nz: callable or None), z0 (nz,),
 *               zd0 (nz,), t (nt,), *, rtol, atol, max_steps, progress)
 *   -> {states (nt, 4 nz), stats}
 * functions: a path drive's f(t) -> (z, z', z''); a free one's law f(t, z_k, z_k') -> force.
 */
static PyObject *py_mech_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "drives", "functions", "z0", "zd0", "t",
                             "rtol", "atol", "max_steps", "progress", NULL};
    kf_mech *m;
    rec_arg drives = {"drives", &drive_descr, "DRIVE_DTYPE"};
    f64_arg z0 = {"z0", 1, {-1}}, zd0 = {"zd0", 1, {-1}}, t = {"t", 1, {-1}};
    PyObject *functions, *result = NULL;
    real_arg rtol = {"rtol", 1e-9}, atol = {"atol", 1e-12};
    int_arg max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&OO&O&O&|$O&O&O&O&", kwlist, mech_conv,
                                     &m, rec_conv, &drives, &functions, f64_conv, &z0, f64_conv,
                                     &zd0, f64_conv, &t, real_conv, &rtol, real_conv, &atol,
                                     int_conv, &max_steps, func_conv, &progress))
        return NULL;
    int nz = kf_mech_ncoord(m), python = 0;
    kf_mech_drive d[KF_KANE_MAX_NU];
    if (!f64_expect(&z0, 0, nz, "coordinates") && !f64_expect(&zd0, 0, nz, "coordinates") &&
        !drives_of(nz, &drives, functions, d, &python))
        result = simulate_of(&kf_mech_planar_ops, m, d, python, f64_data(&z0), f64_data(&zd0),
                             &t, rtol.v, atol.v, max_steps.v, progress.fn);
    rec_conv(NULL, &drives);
    f64_release(&z0);
    f64_release(&zd0);
    f64_release(&t);
    return result;
}

/* ---------------------------------------------------------------- elastic links, two ways */

/* Either mechanism: a planar capsule (kf_mech) or a spatial one (kf_smech); the
 * coupled system of elastic links serves both (kf_flexmech_create, _spatial). */
typedef struct any_mech {
    kf_mech *m;
    kf_smech *sm;
} any_mech;

static int any_mech_conv(PyObject *obj, void *p)
{
    any_mech *a = p;
    a->m = PyCapsule_IsValid(obj, MECH_CAPSULE) ? PyCapsule_GetPointer(obj, MECH_CAPSULE) : NULL;
    a->sm = PyCapsule_IsValid(obj, SMECH_CAPSULE) ? PyCapsule_GetPointer(obj, SMECH_CAPSULE)
                                                   : NULL;
    if (a->m || a->sm)
        return 1;
    PyErr_SetString(PyExc_TypeError, "mech must be a mechanism made by kanefem._core.mech_create "
                    "or smech_create");
    return 0;
}

static int any_ncoord(const any_mech *a)
{
    return a->sm ? kf_smech_ncoord(a->sm) : kf_mech_ncoord(a->m);
}

static int any_njoint(const any_mech *a)
{
    return a->sm ? kf_smech_njoint(a->sm) : kf_mech_njoint(a->m);
}

static int flex_create(kf_flexmech **w, const any_mech *a, int n, const kf_mech_link *L,
                       kf_error *err)
{
    return a->sm ? kf_flexmech_create_spatial(w, a->sm, n, L, err)
                 : kf_flexmech_create(w, a->m, n, L, err);
}

/* Links from LINK_DTYPE records and, beside them, one body and one
 * reference-condition mask per link; a body is a capsule, or (capsule, port_xy
 * (nport, dim), port_dof (nport, 3 planar or 6 spatial)[, mass]) with the link's
 * ports (kf_mech_link) and, for a spatial body of given invariants, its 13 mass
 * properties (or None); the masks and arrays are held until links_release.  The
 * core validates body, rayleigh and the ports' values (kf_flexmech_create);
 * geometric and the arrays' shapes here. */
typedef struct links_arg {
    int n, dim;
    kf_mech_link *L;
    PyArrayObject **masks; /* n masks, then n port positions, n port DOFs, n mass vectors */
} links_arg;

static void links_release(links_arg *a)
{
    for (int i = 0; a->masks && i < 4 * a->n; i++)
        Py_XDECREF(a->masks[i]);
    free(a->masks);
    free(a->L);
    memset(a, 0, sizeof *a);
}

/* Link i's body: a capsule, or (capsule, port_xy, port_dof[, mass]), its ports (and
 * mass) kept in a. */
static int link_body(PyObject *item, Py_ssize_t i, kf_mech_link *L, links_arg *a)
{
    if (!PyTuple_Check(item))
        return body_conv(item, &L->fe) ? 0 : -1;
    Py_ssize_t len = PyTuple_GET_SIZE(item);
    if (len != 3 && !(len == 4 && a->dim == 3)) {
        fail(PyExc_ValueError, "bodies[%zd] must be a body or (body, port_xy, port_dof%s)", i,
             a->dim == 3 ? "[, mass]" : "");
        return -1;
    }
    if (len == 4 && PyTuple_GET_ITEM(item, 3) != Py_None) {
        PyArrayObject *mp = (PyArrayObject *)PyArray_FromAny(
            PyTuple_GET_ITEM(item, 3), PyArray_DescrFromType(NPY_DOUBLE), 1, 1,
            NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST, NULL);
        a->masks[3 * a->n + i] = mp;
        if (!mp)
            return -1;
        if (PyArray_DIM(mp, 0) != 13) {
            fail(PyExc_ValueError, "bodies[%zd]: mass must hold 13 numbers (m, x_c, the second "
                 "moments about x_c), got %zd", i, (Py_ssize_t)PyArray_DIM(mp, 0));
            return -1;
        }
        L->mass = PyArray_DATA(mp);
    }
    if (!body_conv(PyTuple_GET_ITEM(item, 0), &L->fe))
        return -1;
    PyArrayObject *xy = (PyArrayObject *)PyArray_FromAny(
        PyTuple_GET_ITEM(item, 1), PyArray_DescrFromType(NPY_DOUBLE), 2, 2,
        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST, NULL);
    a->masks[a->n + i] = xy;
    if (!xy)
        return -1;
    PyArrayObject *dof = (PyArrayObject *)PyArray_FromAny(
        PyTuple_GET_ITEM(item, 2), PyArray_DescrFromType(NPY_INT), 2, 2,
        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST, NULL);
    a->masks[2 * a->n + i] = dof;
    if (!dof)
        return -1;
    npy_intp np = PyArray_DIM(xy, 0), nd = a->dim == 3 ? 6 : 3;
    if (PyArray_DIM(xy, 1) != a->dim || PyArray_DIM(dof, 0) != np || PyArray_DIM(dof, 1) != nd ||
        np < 1 || np > INT_LIMIT) {
        fail(PyExc_ValueError, "bodies[%zd]: ports need port_xy (nport, %d) and port_dof "
             "(nport, %d), nport >= 1, got (%zd, %zd) and (%zd, %zd)", i, a->dim, (int)nd,
             (Py_ssize_t)PyArray_DIM(xy, 0), (Py_ssize_t)PyArray_DIM(xy, 1),
             (Py_ssize_t)PyArray_DIM(dof, 0), (Py_ssize_t)PyArray_DIM(dof, 1));
        return -1;
    }
    L->nport = (int)np;
    L->port_xy = PyArray_DATA(xy);
    L->port_dof = PyArray_DATA(dof);
    return 0;
}

static int links_of(const rec_arg *links, PyObject *bodies, PyObject *fixed, int dim,
                    links_arg *a)
{
    memset(a, 0, sizeof *a);
    a->dim = dim;
    PyObject *bs = PySequence_Fast(bodies, "bodies must be a sequence"), *fs = NULL;
    if (!bs || !(fs = PySequence_Fast(fixed, "fixed must be a sequence")))
        goto fail;
    npy_intp n = links->n;
    if (PySequence_Fast_GET_SIZE(bs) != n || PySequence_Fast_GET_SIZE(fs) != n) {
        fail(PyExc_ValueError, "bodies and fixed must have one entry per link (%zd), got %zd "
             "and %zd", (Py_ssize_t)n, (Py_ssize_t)PySequence_Fast_GET_SIZE(bs),
             (Py_ssize_t)PySequence_Fast_GET_SIZE(fs));
        goto fail;
    }
    a->n = (int)n;
    a->L = calloc((size_t)(n ? n : 1), sizeof *a->L);
    a->masks = calloc(4 * (size_t)(n ? n : 1), sizeof *a->masks);
    if (!a->L || !a->masks) {
        PyErr_NoMemory();
        goto fail;
    }
    if (n)
        memcpy(a->L, links->data, (size_t)n * sizeof *a->L);
    for (npy_intp i = 0; i < n; i++) {
        kf_mech_link *L = a->L + i;
        L->fe = NULL;
        L->fixed = NULL;
        L->nport = 0;
        L->port_xy = NULL;
        L->port_dof = NULL;
        L->mass = NULL;
        if (L->geometric != 0 && L->geometric != 1) {
            fail(PyExc_ValueError, "links[%zd].geometric = %d must be 0 or 1", (Py_ssize_t)i,
                 L->geometric);
            goto fail;
        }
        if (link_body(PySequence_Fast_GET_ITEM(bs, i), i, L, a))
            goto fail;
        mask_arg m = {"fixed"};
        if (!mask_conv(PySequence_Fast_GET_ITEM(fs, i), &m))
            goto fail;
        a->masks[i] = m.arr;
        if (PyArray_DIM(m.arr, 0) != kf_body_ndof(L->fe)) {
            fail(PyExc_ValueError, "fixed[%zd] has %zd flags, its body %d DOFs", (Py_ssize_t)i,
                 (Py_ssize_t)PyArray_DIM(m.arr, 0), kf_body_ndof(L->fe));
            goto fail;
        }
        L->fixed = PyArray_DATA(m.arr);
    }
    Py_DECREF(bs);
    Py_DECREF(fs);
    return 0;
fail:
    Py_XDECREF(bs);
    Py_XDECREF(fs);
    links_release(a);
    return -1;
}

/*
 * mech_flex_simulate(mech, links (nl,) LINK_DTYPE, bodies (nl: body capsules), fixed (nl masks),
 *                    drives (nz,) DRIVE_DTYPE, functions (nz), z0, zd0, x0, t, *, dt, rho_inf,
 *                    tol, max_iter, max_steps, progress, refine, extrapolate, frames=None)
 *   -> {states (nt, 4 nz), elastic (nt, 2 nd), joints (nt, nj, 3), kin (nt, 3, 3 nbody):
 *       the bodies' q, q', q'', frames (nt, nf): of the AXES_DTYPE records asked for, stats}
 * A spatial mechanism (smech_create's): joints (nt, nj, 6), kin (nt, 19 nbody): the
 * bodies' q (7 nbody), u, u' (6 nbody each), frames of SAXES_DTYPE records.
 */
static PyObject *py_mech_flex_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "links", "bodies", "fixed", "drives", "functions", "z0",
                             "zd0", "x0", "t", "dt", "rho_inf", "tol", "max_iter", "max_steps",
                             "progress", "refine", "extrapolate", "frames", NULL};
    any_mech m;
    PyObject *bodies, *fixed, *functions, *result = NULL;
    rec_arg links = {"links", &link_descr, "LINK_DTYPE"},
            drives = {"drives", &drive_descr, "DRIVE_DTYPE"},
            axes = {"frames", &axes_descr, "AXES_DTYPE"};
    f64_arg z0 = {"z0", 1, {-1}}, zd0 = {"zd0", 1, {-1}}, x0 = {"x0", 1, {-1}},
            t = {"t", 1, {-1}};
    real_arg dt = {"dt", 0.0}, rho = {"rho_inf", 0.9}, tol = {"tol", 1e-10};
    int_arg max_iter = {"max_iter", 1, 1000, 25}, max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    int_arg refine = {"refine", 1, 1000000, 1}, extrapolate = {"extrapolate", 0, 1, 0};
    func_arg progress = {"progress", NULL};
    PyObject *frames_in = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&OOO&OO&O&O&O&|$O&O&O&O&O&O&O&O&O", kwlist,
                                     any_mech_conv, &m, rec_conv, &links, &bodies, &fixed,
                                     rec_conv, &drives, &functions, f64_conv, &z0, f64_conv, &zd0,
                                     f64_conv, &x0, f64_conv, &t, real_conv, &dt, real_conv, &rho,
                                     real_conv, &tol, int_conv, &max_iter, int_conv, &max_steps,
                                     func_conv, &progress, int_conv, &refine, int_conv,
                                     &extrapolate, &frames_in))
        return NULL;
    int nz = any_ncoord(&m), nj = any_njoint(&m), python = 0, njf = m.sm ? 6 : 3;
    kf_mech_drive d[KF_KANE_MAX_NU];
    links_arg la = {0};
    kf_flexmech *w = NULL;
    PyArrayObject *states = NULL, *elastic = NULL, *joints = NULL, *kin = NULL, *frames = NULL;
    if (m.sm) {
        axes.descr = &saxes_descr;
        axes.dtype = "SAXES_DTYPE";
    }
    if ((frames_in != Py_None && !rec_conv(frames_in, &axes)) ||
        f64_expect(&z0, 0, nz, "coordinates") || f64_expect(&zd0, 0, nz, "coordinates") ||
        drives_of(nz, &drives, functions, d, &python) ||
        links_of(&links, bodies, fixed, m.sm ? 3 : 2, &la))
        goto done;
    npy_intp naxes = axes.arr ? axes.n : 0; /* at most 1e5 (rec_conv) */
    kf_error err = {0};
    int rc = flex_create(&w, &m, la.n, la.L, &err);
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    int nd = kf_flexmech_nelastic(w);
    if (f64_expect(&x0, 0, 2 * (npy_intp)nd, "d and d' of the elastic DOFs"))
        goto done;
    npy_intp nt = f64_dim(&t, 0), sd[2] = {nt, 4 * nz}, ed[2] = {nt, 2 * nd},
             jd[3] = {nt, nj, njf};
    states = (PyArrayObject *)PyArray_SimpleNew(2, sd, NPY_DOUBLE);
    elastic = (PyArrayObject *)PyArray_SimpleNew(2, ed, NPY_DOUBLE);
    joints = (PyArrayObject *)PyArray_SimpleNew(3, jd, NPY_DOUBLE);
    npy_intp kd[3] = {nt, 3, m.sm ? 0 : 3 * (npy_intp)kf_mech_nbody(m.m)}, fd[2] = {nt, naxes};
    if (m.sm)
        kd[1] = kf_flexmech_kin_width(w);
    kin = (PyArrayObject *)PyArray_SimpleNew(m.sm ? 2 : 3, kd, NPY_DOUBLE);
    Py_INCREF(frame_descr);
    frames = (PyArrayObject *)PyArray_Zeros(2, fd, frame_descr, 0);
    if (!states || !elastic || !joints || !kin || !frames)
        goto done;
    poll_ctx pc = poll_start(progress.fn);
    kf_flex_opts o = {dt.v, rho.v, tol.v, (int)max_iter.v, steps_limit(max_steps.v), poll_cb, &pc,
                      (int)refine.v, (int)extrapolate.v, PyArray_DATA(kin),
                      m.sm ? NULL : axes.data, (int)naxes, naxes ? PyArray_DATA(frames) : NULL,
                      m.sm ? axes.data : NULL};
    kf_stats st = {0};
    if (python) {
        rc = kf_flexmech_run(w, d, f64_data(&z0), f64_data(&zd0), f64_data(&x0), (int)nt,
                             f64_data(&t), &o, PyArray_DATA(states), PyArray_DATA(elastic),
                             PyArray_DATA(joints), &st, &err);
    } else {
        Py_BEGIN_ALLOW_THREADS
        rc = kf_flexmech_run(w, d, f64_data(&z0), f64_data(&zd0), f64_data(&x0), (int)nt,
                             f64_data(&t), &o, PyArray_DATA(states), PyArray_DATA(elastic),
                             PyArray_DATA(joints), &st, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O,s:O,s:O,s:O,s:N}", "states", states, "elastic",
                               elastic, "joints", joints, "kin", kin, "frames", frames, "stats",
                               stats_dict(&st));
done:
    kf_flexmech_free(w);
    links_release(&la);
    Py_XDECREF(states);
    Py_XDECREF(elastic);
    Py_XDECREF(joints);
    Py_XDECREF(kin);
    Py_XDECREF(frames);
    rec_conv(NULL, &links);
    rec_conv(NULL, &axes);
    rec_conv(NULL, &drives);
    f64_release(&z0);
    f64_release(&zd0);
    f64_release(&x0);
    f64_release(&t);
    return result;
}

/*
 * mech_flex_dynamics(mech, links, bodies, fixed, drives, functions, t, z0, z, zd, d, dd)
 *   -> {zdd (nz,), ddd (nd,), force (nz,), joints (nj, 3)} at one state
 */
static PyObject *py_mech_flex_dynamics(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "links", "bodies", "fixed", "drives", "functions", "t",
                             "z0", "z", "zd", "d", "dd", NULL};
    any_mech m;
    PyObject *bodies, *fixed, *functions, *result = NULL;
    rec_arg links = {"links", &link_descr, "LINK_DTYPE"},
            drives = {"drives", &drive_descr, "DRIVE_DTYPE"};
    f64_arg z0 = {"z0", 1, {-1}}, z = {"z", 1, {-1}}, zd = {"zd", 1, {-1}}, dv = {"d", 1, {-1}},
            dd = {"dd", 1, {-1}};
    real_arg t = {"t", 0.0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&OOO&OO&O&O&O&O&O&", kwlist, any_mech_conv,
                                     &m, rec_conv, &links, &bodies, &fixed, rec_conv, &drives,
                                     &functions, real_conv, &t, f64_conv, &z0, f64_conv, &z,
                                     f64_conv, &zd, f64_conv, &dv, f64_conv, &dd))
        return NULL;
    int nz = any_ncoord(&m), nj = any_njoint(&m), python = 0, njf = m.sm ? 6 : 3;
    kf_mech_drive d[KF_KANE_MAX_NU];
    links_arg la = {0};
    kf_flexmech *w = NULL;
    PyArrayObject *zdd = NULL, *ddd = NULL, *force = NULL, *fj = NULL;
    if (f64_expect(&z0, 0, nz, "coordinates") || f64_expect(&z, 0, nz, "coordinates") ||
        f64_expect(&zd, 0, nz, "coordinates") ||
        drives_of(nz, &drives, functions, d, &python) ||
        links_of(&links, bodies, fixed, m.sm ? 3 : 2, &la))
        goto done;
    kf_error err = {0};
    int rc = flex_create(&w, &m, la.n, la.L, &err);
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    npy_intp nd = kf_flexmech_nelastic(w), nzz = nz, jd[2] = {nj, njf};
    if (f64_expect(&dv, 0, nd, "elastic DOFs") || f64_expect(&dd, 0, nd, "elastic DOFs"))
        goto done;
    zdd = (PyArrayObject *)PyArray_SimpleNew(1, &nzz, NPY_DOUBLE);
    ddd = (PyArrayObject *)PyArray_SimpleNew(1, &nd, NPY_DOUBLE);
    force = (PyArrayObject *)PyArray_SimpleNew(1, &nzz, NPY_DOUBLE);
    fj = (PyArrayObject *)PyArray_SimpleNew(2, jd, NPY_DOUBLE);
    if (!zdd || !ddd || !force || !fj)
        goto done;
    rc = kf_flexmech_dynamics(w, d, t.v, t.v, f64_data(&z0), f64_data(&z), f64_data(&zd),
                              f64_data(&dv), f64_data(&dd), PyArray_DATA(zdd), PyArray_DATA(ddd),
                              PyArray_DATA(force), PyArray_DATA(fj), &err);
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O,s:O,s:O}", "zdd", zdd, "ddd", ddd, "force", force,
                               "joints", fj);
done:
    kf_flexmech_free(w);
    links_release(&la);
    Py_XDECREF(zdd);
    Py_XDECREF(ddd);
    Py_XDECREF(force);
    Py_XDECREF(fj);
    rec_conv(NULL, &links);
    rec_conv(NULL, &drives);
    f64_release(&z0);
    f64_release(&z);
    f64_release(&zd);
    f64_release(&dv);
    f64_release(&dd);
    return result;
}

/* ---------------------------------------------------------------- the wind pump
 * Its parameters cross as a float vector in the order of kf_windpump_names;
 * the windpump_* functions are the generic ones on kf_windpump_create's
 * mechanism. */

static PyObject *py_windpump_names(PyObject *self, PyObject *noargs)
{
    return names_tuple(kf_windpump_names, KF_WINDPUMP_NPARAM);
}

/* params -> the wind pump's mechanism (validated by the core). */
static kf_mech *windpump_of(PyObject *obj)
{
    f64_arg a = {"params", 1, {KF_WINDPUMP_NPARAM}};
    if (!f64_conv(obj, &a))
        return NULL;
    kf_mech *m = NULL;
    kf_error err = {0};
    int rc = kf_windpump_create(f64_data(&a), &m, &err);
    f64_release(&a);
    if (rc)
        raise_status(rc, &err);
    return m;
}

static int windpump_conv(PyObject *obj, void *p)
{
    return (*(kf_mech **)p = windpump_of(obj)) != NULL;
}

static PyObject *py_windpump_mech(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"params", NULL};
    kf_mech *m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, windpump_conv, &m))
        return NULL;
    return mech_capsule(KF_OK, m, NULL);
}

static PyObject *py_windpump_check(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"params", NULL};
    kf_mech *m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, windpump_conv, &m))
        return NULL;
    kf_mech_free(m);
    Py_RETURN_NONE;
}

/* This file's functions of kanefem._core (PyInit__core adds the table). */
PyMethodDef kf_py_mechanism_methods[] = {
    /* mechanisms */
    KW("mech_create", py_mech_create,
       "mech_create(mass (nb,), inertia (nb,), q0 (3 nb,), joints (nj,) joint_dtype, springs "
       "(ns,) spring_dtype, coords (nc,) coord_dtype, gravity (2,)) -> mech (kf_mech_create)."),
    KW("mech_describe", py_mech_describe,
       "mech_describe(mech) -> the description's arrays, as mech_create takes them."),
    KW("mech_kinematics", py_mech_kinematics,
       "mech_kinematics(mech, z (nt, nz), zd=None, zdd=None, frames=None (nf,) axes_dtype) -> "
       "{q, qd, qdd, A, c, Q, frames} (kf_mech_kinematics, kf_mech_applied, kf_mech_frame)."),
    KW("mech_joint_forces", py_mech_joint_forces,
       "mech_joint_forces(mech, states (nt, >= 3 nz), progress=None) -> {joints (nt, nj, 3), "
       "drive (nt, nz)} (kf_mech_reactions)."),
    KW("mech_accelerations", py_mech_accelerations,
       "mech_accelerations(mech, z (nt, nz), zd (nt, nz), tau=None) -> zdd (nt, nz) "
       "(kf_mech_kinematics, kf_mech_dynamics)."),
    KW("mech_simulate", py_mech_simulate,
       "mech_simulate(mech, drives (nz,) drive_dtype, functions (nz: callable or None), z0, "
       "zd0, t, *, rtol, atol, max_steps, progress) -> {states (nt, 4 nz), stats} "
       "(kf_mech_simulate)."),
    KW("mech_flex_simulate", py_mech_flex_simulate,
       "mech_flex_simulate(mech, links (nl,) link_dtype, bodies (nl), fixed (nl), drives, "
       "functions, z0, zd0, x0, t, *, dt, rho_inf, tol, max_iter, max_steps, progress, refine, "
       "extrapolate, frames) -> {states, elastic, joints, kin, frames, stats} (kf_flexmech_run; "
       "a planar or spatial mechanism)."),
    KW("path_pieces", py_path_pieces,
       "path_pieces(t (n + 1,), coef (n, deg + 1): ascending powers of t - t_i) -> a path "
       "the core evaluates, for a mode-2 drive's function (kf_path_pieces)."),
    KW("mech_flex_dynamics", py_mech_flex_dynamics,
       "mech_flex_dynamics(mech, links, bodies, fixed, drives, functions, t, z0, z, zd, d, dd) "
       "-> {zdd, ddd, force, joints} at one state (kf_flexmech_dynamics)."),
    /* the wind pump */
    {"windpump_names", py_windpump_names, METH_NOARGS,
     "windpump_names() -> the wind-pump parameter names, in the order params vectors use."},
    KW("windpump_mech", py_windpump_mech,
       "windpump_mech(params) -> the wind pump as a mechanism (kf_windpump_create)."),
    KW("windpump_check", py_windpump_check,
       "windpump_check(params): ValueError naming the first invalid parameter."),
    {NULL, NULL, 0, NULL}};
