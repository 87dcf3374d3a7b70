/*
 * kf_python.c -- the CPython + NumPy binding of the kanefem core: the module
 * kanefem._core.  The only file that includes Python.h.
 *
 * Thin by design, and regular, so that a reader can check it against
 * kanefem.h function by function:
 *   - every function takes keyword arguments, parsed by
 *     PyArg_ParseTupleAndKeywords with "O&" converters (below) that check
 *     types, shapes and finiteness and name the argument in every error;
 *   - the core's objects cross as capsules (bodies, eigen contexts, motions,
 *     loads), the frame state as arrays of one structured dtype laid out as
 *     struct kf_frame (exported as frame_dtype), statistics as dicts made by
 *     one helper each;
 *   - the GIL is released around the core; long loops poll for Ctrl-C;
 *   - core status codes become one family of exceptions (raise_status).
 * No physics here; conveniences live in the Python package.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kanefem.h"

static PyObject *KanefemError, *LinAlgError, *DivergenceError, *GeometryError, *StepLimitError,
    *RangeError;
/* the NumPy dtype of struct kf_frame (module attribute frame_dtype) */
static PyArray_Descr *frame_descr;
/* the typed boundary records: kf_joint, kf_spring, kf_coord (make_record_descrs) */
static PyArray_Descr *joint_descr, *spring_descr, *coord_descr;

#define BODY_CAPSULE "kanefem._core.body"
#define EIG_CAPSULE "kanefem._core.eig"
#define MOTION_CAPSULE "kanefem._core.motion"
#define LOADS_CAPSULE "kanefem._core.loads"

/* Sizes that cross into the core as int. */
#define INT_LIMIT ((npy_intp)INT32_MAX)

/* ================================================================ errors */

/* Set an exception with a printf-style message (PyErr_Format has no %g);
 * returns NULL. */
static PyObject *fail(PyObject *type, const char *fmt, ...)
{
    char buf[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    PyErr_SetString(type, buf);
    return NULL;
}

/* Set the Python exception of a core status; returns NULL. */
static PyObject *raise_status(int rc, const kf_error *err)
{
    if (PyErr_Occurred()) /* a callback raised (or Ctrl-C): keep that exception */
        return NULL;
    const char *msg = err->msg[0] ? err->msg : kf_strstatus(rc);
    PyObject *type;
    switch (rc) {
    case KF_EINVAL: type = PyExc_ValueError; break;
    case KF_ENOMEM: type = PyExc_MemoryError; break;
    case KF_EGEOM: type = GeometryError; break;
    case KF_EDIVERGE: type = DivergenceError; break;
    case KF_ESTEPS: type = StepLimitError; break;
    case KF_ERANGE: type = RangeError; break;
    case KF_ESING:
    case KF_ENOTPD:
    case KF_ENOCONV:
    case KF_ELAPACK: type = LinAlgError; break;
    default: type = KanefemError; break;
    }
    /* the message names the argument; say it first when it does not */
    if (err->arg[0] && !strstr(msg, err->arg))
        return fail(type, "%s: %s", err->arg, msg);
    PyErr_SetString(type, msg);
    return NULL;
}

/* ================================================================ converters (O&)
 *
 * Each converter fills a small struct whose name field (set by the caller)
 * is the argument's name in messages.  Those that hold references return
 * Py_CLEANUP_SUPPORTED, so the parser releases them when a later argument
 * fails; on success the function releases them (the *_release helpers).
 */

/* A float64 array, C-contiguous and finite, of a real dtype (ints and floats;
 * no bool, complex, string or object), with ndim dimensions (-1: any) and the
 * given sizes (-1: any).  optional: None leaves arr NULL. */
typedef struct f64_arg {
    const char *name;
    int ndim;
    npy_intp shape[3];
    int optional;
    PyArrayObject *arr;
} f64_arg;

static void f64_release(f64_arg *a) { Py_CLEAR(a->arr); }
static double *f64_data(const f64_arg *a) { return a->arr ? PyArray_DATA(a->arr) : NULL; }
static npy_intp f64_dim(const f64_arg *a, int k) { return PyArray_DIM(a->arr, k); }

static int f64_conv(PyObject *obj, void *p)
{
    f64_arg *a = p;
    if (!obj) { /* cleanup after a later argument failed */
        f64_release(a);
        return 1;
    }
    if (obj == Py_None && a->optional)
        return Py_CLEANUP_SUPPORTED;
    PyArrayObject *raw = (PyArrayObject *)PyArray_FROM_O(obj);
    if (!raw) {
        PyErr_Clear();
        fail(PyExc_TypeError, "%s must be an array of real numbers, got %.80s", a->name,
             Py_TYPE(obj)->tp_name);
        return 0;
    }
    int t = PyArray_TYPE(raw);
    if (!PyTypeNum_ISINTEGER(t) && !PyTypeNum_ISFLOAT(t)) {
        PyObject *r = PyObject_Repr((PyObject *)PyArray_DESCR(raw));
        fail(PyExc_TypeError, "%s must be an array of real numbers, got dtype %s", a->name,
             r ? PyUnicode_AsUTF8(r) : "?");
        Py_XDECREF(r);
        Py_DECREF(raw);
        return 0;
    }
    a->arr = (PyArrayObject *)PyArray_FromAny((PyObject *)raw, PyArray_DescrFromType(NPY_DOUBLE),
                                              0, 0, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST,
                                              NULL);
    Py_DECREF(raw);
    if (!a->arr)
        return 0;
    int nd = PyArray_NDIM(a->arr);
    if (a->ndim >= 0 && nd != a->ndim) {
        fail(PyExc_ValueError, "%s must have %d dimension(s), got %d", a->name, a->ndim, nd);
        goto bad;
    }
    for (int k = 0; a->ndim > 0 && k < a->ndim && k < 3; k++)
        if (a->shape[k] >= 0 && PyArray_DIM(a->arr, k) != a->shape[k]) {
            fail(PyExc_ValueError, "%s must have %zd entries along axis %d, got %zd", a->name,
                 (Py_ssize_t)a->shape[k], k, (Py_ssize_t)PyArray_DIM(a->arr, k));
            goto bad;
        }
    for (int k = 0; k < nd; k++)
        if (PyArray_DIM(a->arr, k) > INT_LIMIT) {
            fail(PyExc_ValueError, "%s has %zd entries along axis %d, more than the core's "
                 "limit of %zd", a->name, (Py_ssize_t)PyArray_DIM(a->arr, k), k,
                 (Py_ssize_t)INT_LIMIT);
            goto bad;
        }
    const double *x = PyArray_DATA(a->arr);
    npy_intp size = PyArray_SIZE(a->arr);
    for (npy_intp i = 0; i < size; i++)
        if (!isfinite(x[i])) {
            fail(PyExc_ValueError, "%s contains a non-finite value (%g) at flat index %zd",
                 a->name, x[i], (Py_ssize_t)i);
            goto bad;
        }
    return Py_CLEANUP_SUPPORTED;
bad:
    f64_release(a);
    return 0;
}

/* ValueError unless a's axis k has n entries (sizes known only after parsing). */
static int f64_expect(const f64_arg *a, int k, npy_intp n, const char *what)
{
    if (a->arr && PyArray_DIM(a->arr, k) != n) {
        fail(PyExc_ValueError, "%s must have %zd entries along axis %d (%s), got %zd", a->name,
             (Py_ssize_t)n, k, what, (Py_ssize_t)PyArray_DIM(a->arr, k));
        return -1;
    }
    return 0;
}

/* An integer (not a bool) in [lo, hi]. */
typedef struct int_arg {
    const char *name;
    long long lo, hi;
    long long v;
} int_arg;

/* A step limit for the core's long (32 bits on Windows): larger ones mean no limit in
 * practice, so they saturate instead of wrapping around to 0 ("default") or below. */
static long steps_limit(long long v)
{
    return v > LONG_MAX ? LONG_MAX : (long)v;
}

static int int_conv(PyObject *obj, void *p)
{
    int_arg *a = p;
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer, got %R", a->name, obj);
        return 0;
    }
    PyObject *i = PyNumber_Index(obj);
    if (!i)
        return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred())
        return 0;
    if (overflow || v < a->lo || v > a->hi) {
        PyErr_Format(PyExc_ValueError, "%s = %R is out of range %lld..%lld", a->name, obj, a->lo,
                     a->hi);
        return 0;
    }
    a->v = v;
    return 1;
}

/* A finite real number (not a bool, string or complex). */
typedef struct real_arg {
    const char *name;
    double v;
} real_arg;

static int real_conv(PyObject *obj, void *p)
{
    real_arg *a = p;
    if (PyBool_Check(obj) || PyArray_IsScalar(obj, Bool) || PyComplex_Check(obj) ||
        PyArray_IsScalar(obj, ComplexFloating) || PyUnicode_Check(obj) || PyBytes_Check(obj) ||
        (!PyFloat_Check(obj) && !PyIndex_Check(obj) && !PyArray_IsScalar(obj, Floating))) {
        PyErr_Format(PyExc_TypeError, "%s must be a real number, got %R", a->name, obj);
        return 0;
    }
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s = %R is not representable as a float", a->name, obj);
        return 0;
    }
    if (!isfinite(v)) {
        fail(PyExc_ValueError, "%s = %g must be finite", a->name, v);
        return 0;
    }
    a->v = v;
    return 1;
}

/* A support mask: one flag per DOF (bool or integer array), as uint8. */
typedef struct mask_arg {
    const char *name;
    PyArrayObject *arr;
} mask_arg;

static int mask_conv(PyObject *obj, void *p)
{
    mask_arg *a = p;
    if (!obj) {
        Py_CLEAR(a->arr);
        return 1;
    }
    PyArrayObject *raw = (PyArrayObject *)PyArray_FROM_O(obj);
    if (!raw)
        return 0;
    int t = PyArray_TYPE(raw);
    if (!PyTypeNum_ISBOOL(t) && !PyTypeNum_ISINTEGER(t)) {
        Py_DECREF(raw);
        PyErr_Format(PyExc_TypeError, "%s must be a boolean mask over the DOFs", a->name);
        return 0;
    }
    a->arr = (PyArrayObject *)PyArray_FromAny((PyObject *)raw, PyArray_DescrFromType(NPY_UINT8),
                                              1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST,
                                              NULL);
    Py_DECREF(raw);
    return a->arr ? Py_CLEANUP_SUPPORTED : 0;
}

/* frames: an array of frame_dtype (struct kf_frame), 0-d or 1-d. */
typedef struct frames_arg {
    const char *name;
    PyArrayObject *arr;
    const kf_frame *f;
    npy_intp n;
} frames_arg;

static int frames_conv(PyObject *obj, void *p)
{
    frames_arg *a = p;
    if (!obj) {
        Py_CLEAR(a->arr);
        return 1;
    }
    if (!PyArray_Check(obj) ||
        !PyArray_EquivTypes(PyArray_DESCR((PyArrayObject *)obj), frame_descr)) {
        PyErr_Format(PyExc_TypeError, "%s must be an array of frame_dtype (kanefem.FRAME_DTYPE)",
                     a->name);
        return 0;
    }
    Py_INCREF(frame_descr); /* PyArray_FromAny steals it */
    a->arr = (PyArrayObject *)PyArray_FromAny(obj, frame_descr, 0, 1,
                                              NPY_ARRAY_IN_ARRAY, NULL);
    if (!a->arr)
        return 0;
    a->n = PyArray_SIZE(a->arr);
    if (a->n > INT_LIMIT) {
        Py_CLEAR(a->arr);
        PyErr_Format(PyExc_ValueError, "%s holds %zd instants, more than %zd", a->name,
                     (Py_ssize_t)a->n, (Py_ssize_t)INT_LIMIT);
        return 0;
    }
    a->f = PyArray_DATA(a->arr);
    return Py_CLEANUP_SUPPORTED;
}

/* A 1-D array of one of the typed boundary records (kanefem._records): its
 * dtype exactly the extension's (the C struct's fields and offsets), used in
 * place where it is C-contiguous and aligned (else one copy). */
typedef struct rec_arg {
    const char *name;
    PyArray_Descr **descr;
    const char *dtype; /* its name in kanefem, for messages */
    PyArrayObject *arr;
    const void *data;
    npy_intp n;
} rec_arg;

static int rec_conv(PyObject *obj, void *p)
{
    rec_arg *a = p;
    if (!obj) {
        Py_CLEAR(a->arr);
        return 1;
    }
    if (!PyArray_Check(obj) || PyArray_NDIM((PyArrayObject *)obj) != 1 ||
        !PyArray_EquivTypes(PyArray_DESCR((PyArrayObject *)obj), *a->descr)) {
        PyErr_Format(PyExc_TypeError, "%s must be a 1-D array of kanefem.%s (made by "
                     "kanefem._records), got %R", a->name, a->dtype,
                     PyArray_Check(obj) ? (PyObject *)PyArray_DESCR((PyArrayObject *)obj)
                                        : (PyObject *)Py_TYPE(obj));
        return 0;
    }
    Py_INCREF(*a->descr); /* PyArray_FromAny steals it */
    a->arr = (PyArrayObject *)PyArray_FromAny(obj, *a->descr, 1, 1, NPY_ARRAY_IN_ARRAY, NULL);
    if (!a->arr)
        return 0;
    a->n = PyArray_SIZE(a->arr);
    if (a->n > 100000) {
        Py_CLEAR(a->arr);
        PyErr_Format(PyExc_ValueError, "%s holds %zd records, more than 100000", a->name,
                     (Py_ssize_t)a->n);
        return 0;
    }
    a->data = PyArray_DATA(a->arr);
    return Py_CLEANUP_SUPPORTED;
}

/* A new 1-D record array (descr's) holding a copy of n records at src. */
static PyObject *new_records(PyArray_Descr *descr, const void *src, npy_intp n)
{
    Py_INCREF(descr); /* stolen */
    PyObject *a = PyArray_NewFromDescr(&PyArray_Type, descr, 1, &n, NULL, NULL, 0, NULL);
    if (a && n > 0)
        memcpy(PyArray_DATA((PyArrayObject *)a), src,
               (size_t)n * (size_t)PyArray_ITEMSIZE((PyArrayObject *)a));
    return a;
}

/* A callable, or None (fn NULL). */
typedef struct func_arg {
    const char *name;
    PyObject *fn; /* borrowed */
} func_arg;

static int func_conv(PyObject *obj, void *p)
{
    func_arg *a = p;
    if (obj == Py_None) {
        a->fn = NULL;
        return 1;
    }
    if (!PyCallable_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be callable or None, got %R", a->name, obj);
        return 0;
    }
    a->fn = obj;
    return 1;
}

/* Capsules. */
static int body_conv(PyObject *obj, void *p)
{
    if (!PyCapsule_IsValid(obj, BODY_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "body must be a body made by kanefem._core.body_create");
        return 0;
    }
    *(kf_body **)p = PyCapsule_GetPointer(obj, BODY_CAPSULE);
    return 1;
}

typedef struct eig_arg {
    kf_eig *e;
    kf_body *b; /* the body it was made for (kept alive by the capsule) */
} eig_arg;

static int eig_conv(PyObject *obj, void *p)
{
    eig_arg *a = p;
    if (!PyCapsule_IsValid(obj, EIG_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError,
                        "eig must be an eigen context made by kanefem._core.eig_create");
        return 0;
    }
    a->e = PyCapsule_GetPointer(obj, EIG_CAPSULE);
    a->b = PyCapsule_GetPointer(PyCapsule_GetContext(obj), BODY_CAPSULE);
    return 1;
}

/* ================================================================ results */

static PyObject *new_vector(const double *v, npy_intp n);

/* A body-sized matrix: a dense (n, n) array, or for CSR storage the values
 * (nnz,) on the body's pattern (body_pattern). */
static PyObject *new_matrix_rowmajor(const kf_mat *m)
{
    if (m->kind == KF_CSR)
        return new_vector(m->a, m->pat->nnz);
    npy_intp dims[2] = {m->n, m->n};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (out)
        kf_mat_to_rowmajor(m, PyArray_DATA(out));
    return (PyObject *)out;
}

static PyObject *new_vector(const double *v, npy_intp n)
{
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (out)
        memcpy(PyArray_DATA(out), v, (size_t)n * sizeof(double));
    return (PyObject *)out;
}

/* The outcome of a core call that fills *out: the array (the reference moves to
 * the caller), or NULL with the exception of status rc. */
static PyObject *array_or_raise(int rc, const kf_error *err, PyArrayObject **out)
{
    if (rc)
        return raise_status(rc, err);
    PyObject *r = (PyObject *)*out;
    *out = NULL;
    return r;
}

/* A zeroed array of n frames. */
static PyArrayObject *new_frames(npy_intp n)
{
    Py_INCREF(frame_descr); /* stolen */
    return (PyArrayObject *)PyArray_Zeros(1, &n, frame_descr, 0);
}

/* The statistics of an integration: the same keys wherever it ran. */
static PyObject *stats_dict(const kf_stats *s)
{
    return Py_BuildValue("{s:l,s:l,s:l,s:l,s:l}", "steps", s->steps, "rejected", s->rejected,
                         "evaluations", s->evaluations, "factorizations", s->factorizations,
                         "solves", s->solves);
}

static PyObject *eig_stats_dict(const kf_eig_stats *s)
{
    return Py_BuildValue("{s:s,s:i,s:i,s:i,s:i}", "solver",
                         s->solver == KF_SOLVER_GENERAL ? "general" : "symmetric", "full_solves",
                         s->full_solves, "continued", s->continued, "iterations", s->iterations,
                         "reused", s->reused);
}

/* ================================================================ progress and Ctrl-C
 *
 * The core calls a kf_progress_fn after each step or instant of a long loop,
 * with the GIL released.  At most every 0.1 s of wall time it takes the GIL,
 * lets Python handle signals (Ctrl-C raises KeyboardInterrupt there) and calls
 * the user's progress function, if any; either may stop the loop.
 */
typedef struct poll_ctx {
    PyObject *fn; /* progress(t) or NULL: then only signals are checked */
    double last;  /* wall clock of the last check [s] */
} poll_ctx;

static double wall_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static poll_ctx poll_start(PyObject *fn)
{
    poll_ctx c = {fn, wall_seconds()};
    return c;
}

static int poll_cb(double t, void *params)
{
    poll_ctx *c = params;
    double now = wall_seconds();
    if (now - c->last < 0.1)
        return 0;
    c->last = now;
    int stop = 0;
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyErr_CheckSignals() < 0) {
        stop = 1;
    } else if (c->fn) {
        PyObject *r = PyObject_CallFunction(c->fn, "d", t);
        stop = r == NULL;
        Py_XDECREF(r);
    }
    PyGILState_Release(g);
    return stop;
}

/* ================================================================ LAPACK */

static PyObject *py_lapack_source(PyObject *self, PyObject *noargs)
{
    const char *s = kf_lapack_source();
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

static PyObject *py_lapack_linked(PyObject *self, PyObject *noargs)
{
    return PyBool_FromLong(kf_lapack_linked_available());
}

static PyObject *py_use_linked_lapack(PyObject *self, PyObject *noargs)
{
    kf_error err = {0};
    int rc = kf_lapack_use_linked(&err);
    if (rc)
        return raise_status(rc, &err);
    Py_RETURN_NONE;
}

/* Fill the table from SciPy's cython_lapack / cython_blas __pyx_capi__ dicts. */
static PyObject *py_set_lapack_capsules(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"lapack", "blas", "source", NULL};
    PyObject *lapack, *blas;
    const char *source;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!s", kwlist, &PyDict_Type, &lapack,
                                     &PyDict_Type, &blas, &source))
        return NULL;
    kf_lapack_table t;
    void **entries = (void **)&t;
    for (size_t i = 0; i < sizeof t / sizeof(void *); i++) {
        const char *name = kf_lapack_names[i];
        PyObject *cap = PyDict_GetItemString(lapack, name);
        if (!cap)
            cap = PyDict_GetItemString(blas, name);
        if (!cap || !PyCapsule_CheckExact(cap))
            return PyErr_Format(KanefemError, "no capsule for LAPACK/BLAS routine '%s'", name);
        if (!(entries[i] = PyCapsule_GetPointer(cap, PyCapsule_GetName(cap))))
            return NULL;
    }
    kf_error err = {0};
    int rc = kf_lapack_set(&t, source, &err);
    if (rc)
        return raise_status(rc, &err);
    Py_RETURN_NONE;
}

/* ================================================================ bodies */

static PyObject *py_element_kinds(PyObject *self, PyObject *noargs)
{
    static const struct { const char *name; int kind; } kinds[] = {
        {"bar2", KF_BAR2},   {"beam2", KF_BEAM2},
        /* spatial line elements */
        {"bar3d", KF_BAR3D}, {"beam3d", KF_BEAM3D},
        /* plane and solid elements (meshes) */
        {"tri3", KF_TRI3},   {"tri6", KF_TRI6},   {"quad4", KF_QUAD4}, {"quad8", KF_QUAD8},
        {"quad9", KF_QUAD9}, {"tet4", KF_TET4},   {"tet10", KF_TET10}, {"hex8", KF_HEX8},
        {"hex20", KF_HEX20}, {"hex27", KF_HEX27}, {"wedge6", KF_WEDGE6},
        {"wedge15", KF_WEDGE15}, {"pyramid5", KF_PYRAMID5}, {"pyramid13", KF_PYRAMID13},
        {"quad4i", KF_QUAD4I}, {"hex8i", KF_HEX8I}};
    PyObject *d = PyDict_New();
    for (size_t k = 0; d && k < sizeof kinds / sizeof kinds[0]; k++) {
        int dim, nnode, ndofn;
        kf_error err = {0};
        if (kf_element_info(kinds[k].kind, &dim, &nnode, &ndofn, &err))
            continue;
        PyObject *v = Py_BuildValue("{s:i,s:i,s:i,s:i}", "kind", kinds[k].kind, "dim", dim,
                                    "nodes", nnode, "dofs_per_node", ndofn);
        if (!v || PyDict_SetItemString(d, kinds[k].name, v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

/* The section: a dict of the fields of struct kf_section that the element
 * kind uses, by their C names; an unknown key is an error.  A field is one
 * double, or `count` of them (an array field, given as a sequence). */
static const struct {
    const char *name;
    size_t offset;
    int count; /* 0: one number */
} section_fields[] = {{"E", offsetof(kf_section, E)},
                      {"rho", offsetof(kf_section, rho)},
                      {"A", offsetof(kf_section, A)},
                      {"Izz", offsetof(kf_section, Izz)},
                      {"nu", offsetof(kf_section, nu)},
                      /* the spatial beam */
                      {"Iyy", offsetof(kf_section, Iyy)},
                      {"J", offsetof(kf_section, J)},
                      {"ref", offsetof(kf_section, ref), 3},
                      /* plane elements */
                      {"thickness", offsetof(kf_section, thickness)},
                      {"plane_strain", offsetof(kf_section, plane_strain)}};

static int section_conv(PyObject *obj, void *p)
{
    kf_section *s = p;
    if (!PyDict_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "section must be a dict of section values");
        return 0;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(obj, &pos, &key, &value)) {
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        size_t f = 0, nf = sizeof section_fields / sizeof section_fields[0];
        while (k && f < nf && strcmp(k, section_fields[f].name))
            f++;
        if (!k || f == nf) {
            PyErr_Format(PyExc_ValueError, "section has an unknown field %R", key);
            return 0;
        }
        double *dst = (double *)((char *)s + section_fields[f].offset);
        if (section_fields[f].count) {
            f64_arg a = {section_fields[f].name, 1, {section_fields[f].count}};
            if (!f64_conv(value, &a))
                return 0;
            memcpy(dst, f64_data(&a), (size_t)section_fields[f].count * sizeof(double));
            f64_release(&a);
            continue;
        }
        real_arg r = {section_fields[f].name, 0.0};
        if (!real_conv(value, &r))
            return 0;
        *dst = r.v;
    }
    return 1;
}

static void body_destructor(PyObject *cap)
{
    kf_body_free(PyCapsule_GetPointer(cap, BODY_CAPSULE));
}

/* The capsule of a body kf_body_create* made (rc KF_OK), or NULL with the error raised. */
static PyObject *body_capsule(int rc, kf_body *body, kf_error *err)
{
    if (rc) {
        raise_status(rc, err);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(body, BODY_CAPSULE, body_destructor);
    if (!cap)
        kf_body_free(body);
    return cap;
}

static PyObject *py_body_create(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"kind", "coords", "conn", "section", "storage", NULL};
    int_arg kind = {"kind", 0, INT32_MAX, 0}, storage = {"storage", -1, KF_CSR, -1};
    f64_arg coords = {"coords", 2, {-1, -1}};
    PyObject *conn_obj;
    kf_section sec = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&OO&|O&", kwlist, int_conv, &kind, f64_conv,
                                     &coords, &conn_obj, section_conv, &sec, int_conv, &storage))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *conn = NULL;
    int dim, nnode_el, ndofn;
    kf_error err = {0};
    int rc = kf_element_info((int)kind.v, &dim, &nnode_el, &ndofn, &err);
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    PyArrayObject *raw = (PyArrayObject *)PyArray_FROM_O(conn_obj);
    if (!raw || !PyTypeNum_ISINTEGER(PyArray_TYPE(raw))) {
        Py_XDECREF(raw);
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "conn must be a 2-D integer array of node indices");
        goto done;
    }
    if (PyArray_NDIM(raw) != 2) {
        fail(PyExc_ValueError, "conn must be a 2-D integer array of node indices (nel, %d), got "
             "%d dimension(s)", nnode_el, PyArray_NDIM(raw));
        Py_DECREF(raw);
        goto done;
    }
    conn = (PyArrayObject *)PyArray_FromAny((PyObject *)raw, PyArray_DescrFromType(NPY_INT), 2,
                                            2, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST, NULL);
    Py_DECREF(raw);
    if (!conn)
        goto done;
    if (f64_dim(&coords, 1) != dim) {
        fail(PyExc_ValueError, "coords must have shape (nnode, %d), got (%zd, %zd)", dim,
             (Py_ssize_t)f64_dim(&coords, 0), (Py_ssize_t)f64_dim(&coords, 1));
        goto done;
    }
    if (PyArray_DIM(conn, 1) != nnode_el || PyArray_DIM(conn, 0) > INT_LIMIT) {
        fail(PyExc_ValueError, "conn must have shape (nel, %d), got (%zd, %zd)", nnode_el,
             (Py_ssize_t)PyArray_DIM(conn, 0), (Py_ssize_t)PyArray_DIM(conn, 1));
        goto done;
    }
    int nnode = (int)f64_dim(&coords, 0), nel = (int)PyArray_DIM(conn, 0);
    kf_body *body = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_create_storage(&body, (int)kind.v, nnode, f64_data(&coords), nel,
                                PyArray_DATA(conn), &sec, (int)storage.v, &err);
    Py_END_ALLOW_THREADS
    result = body_capsule(rc, body, &err);
done:
    f64_release(&coords);
    Py_XDECREF(conn);
    return result;
}

/* A 1-D C-int array from an integer sequence (a new reference), or NULL with
 * TypeError naming it. */
static PyArrayObject *int_vector(PyObject *obj, const char *name)
{
    PyArrayObject *raw = (PyArrayObject *)PyArray_FROM_O(obj);
    if (!raw || !PyTypeNum_ISINTEGER(PyArray_TYPE(raw)) || PyArray_NDIM(raw) != 1) {
        Py_XDECREF(raw);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a 1-D integer array", name);
        return NULL;
    }
    PyArrayObject *out = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)raw, PyArray_DescrFromType(NPY_INT), 1, 1,
        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST, NULL);
    Py_DECREF(raw);
    return out;
}

static PyObject *py_body_create_mixed(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"kinds", "coords", "conn", "ptr", "section", "storage", NULL};
    int_arg storage = {"storage", -1, KF_CSR, -1};
    f64_arg coords = {"coords", 2, {-1, -1}};
    PyObject *kinds_obj, *conn_obj, *ptr_obj;
    kf_section sec = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&OOO&|O&", kwlist, &kinds_obj, f64_conv,
                                     &coords, &conn_obj, &ptr_obj, section_conv, &sec, int_conv,
                                     &storage))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *kinds = NULL, *conn = NULL, *ptr = NULL;
    if (!(kinds = int_vector(kinds_obj, "kinds")) || !(conn = int_vector(conn_obj, "conn")) ||
        !(ptr = int_vector(ptr_obj, "ptr")))
        goto done;
    npy_intp nel = PyArray_DIM(kinds, 0), nconn = PyArray_DIM(conn, 0);
    const int *pp = PyArray_DATA(ptr), *kk = PyArray_DATA(kinds);
    if (nel < 1 || nel > INT_LIMIT || nconn > INT_LIMIT) {
        fail(PyExc_ValueError, "kinds has %zd entries: a body needs 1..%d elements",
             (Py_ssize_t)nel, INT_LIMIT);
        goto done;
    }
    if (PyArray_DIM(ptr, 0) != nel + 1 || pp[0] != 0 || pp[nel] != nconn) {
        fail(PyExc_ValueError, "ptr must hold nel + 1 = %zd offsets from 0 to len(conn) = %zd",
             (Py_ssize_t)(nel + 1), (Py_ssize_t)nconn);
        goto done;
    }
    for (npy_intp e = 0; e < nel; e++)
        if (pp[e + 1] < pp[e]) {
            fail(PyExc_ValueError, "ptr must not decrease (ptr[%zd] = %d > ptr[%zd] = %d)",
                 (Py_ssize_t)e, pp[e], (Py_ssize_t)(e + 1), pp[e + 1]);
            goto done;
        }
    kf_error err = {0};
    int dim = 0, rc = kf_element_info(kk[0], &dim, NULL, NULL, &err);
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    if (f64_dim(&coords, 1) != dim) {
        fail(PyExc_ValueError, "coords must have shape (nnode, %d), got (%zd, %zd)", dim,
             (Py_ssize_t)f64_dim(&coords, 0), (Py_ssize_t)f64_dim(&coords, 1));
        goto done;
    }
    int nnode = (int)f64_dim(&coords, 0);
    kf_body *body = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_create_mixed(&body, nnode, f64_data(&coords), (int)nel, kk, pp,
                              PyArray_DATA(conn), &sec, (int)storage.v, &err);
    Py_END_ALLOW_THREADS
    result = body_capsule(rc, body, &err);
done:
    f64_release(&coords);
    Py_XDECREF(kinds);
    Py_XDECREF(conn);
    Py_XDECREF(ptr);
    return result;
}

static PyObject *py_body_info(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", NULL};
    kf_body *b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, body_conv, &b))
        return NULL;
    const kf_mat *M = kf_body_mass(b);
    const char *st = M->kind == KF_BAND ? "band" : M->kind == KF_CSR ? "csr" : "dense";
    return Py_BuildValue("{s:i,s:i,s:i,s:s,s:i,s:i,s:i}", "ndof", kf_body_ndof(b), "dim",
                         kf_body_dim(b), "ndofn", kf_body_ndofn(b), "storage", st, "kl", M->kl,
                         "ku", M->ku, "nnz", M->kind == KF_CSR ? M->pat->nnz : 0);
}

/* The shared pattern of a CSR body: {"indptr": (ndof + 1,), "indices": (nnz,)}, int32. */
static PyObject *py_body_pattern(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", NULL};
    kf_body *b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, body_conv, &b))
        return NULL;
    const kf_pattern *p = kf_body_pattern(b);
    if (!p)
        return PyErr_Format(PyExc_ValueError, "the body is not in sparse (CSR) storage");
    npy_intp np1 = (npy_intp)p->n + 1, nnz = p->nnz;
    PyArrayObject *ptr = (PyArrayObject *)PyArray_SimpleNew(1, &np1, NPY_INT32);
    PyArrayObject *col = (PyArrayObject *)PyArray_SimpleNew(1, &nnz, NPY_INT32);
    if (!ptr || !col) {
        Py_XDECREF(ptr);
        Py_XDECREF(col);
        return NULL;
    }
    memcpy(PyArray_DATA(ptr), p->ptr, (size_t)np1 * sizeof(int));
    memcpy(PyArray_DATA(col), p->col, (size_t)nnz * sizeof(int));
    return Py_BuildValue("{s:N,s:N}", "indptr", ptr, "indices", col);
}

/* stiffness K + sum_ij coef_ij S_ij, in the body's storage (kf_body_combine). */
static PyObject *py_body_combine(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "coef", "stiffness", NULL};
    kf_body *b;
    f64_arg c = {"coef", 2, {-1, -1}};
    real_arg k = {"stiffness", 0.0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&", kwlist, body_conv, &b, f64_conv, &c,
                                     real_conv, &k))
        return NULL;
    PyObject *result = NULL;
    int dim = kf_body_dim(b);
    if (f64_expect(&c, 0, dim, "the body's dimension") ||
        f64_expect(&c, 1, dim, "the body's dimension")) {
        f64_release(&c);
        return NULL;
    }
    kf_mat out = {0};
    kf_error err = {0};
    int rc = kf_mat_alloc_like(&out, kf_body_mass(b), &err);
    if (!rc) {
        Py_BEGIN_ALLOW_THREADS
        if (k.v != 0.0) {
            kf_mat_copy(&out, kf_body_stiffness(b));
            kf_mat_scale(&out, k.v);
        }
        kf_body_combine(b, f64_data(&c), 1.0, &out);
        Py_END_ALLOW_THREADS
    }
    if (rc)
        raise_status(rc, &err);
    else
        result = new_matrix_rowmajor(&out);
    kf_mat_free(&out);
    f64_release(&c);
    return result;
}

static PyObject *py_body_matrix(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "name", "i", "j", NULL};
    kf_body *b;
    const char *name;
    int_arg i = {"i", 0, 2, 0}, j = {"j", 0, 2, 0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&s|O&O&", kwlist, body_conv, &b, &name,
                                     int_conv, &i, int_conv, &j))
        return NULL;
    int dim = kf_body_dim(b);
    if (!strcmp(name, "M"))
        return new_matrix_rowmajor(kf_body_mass(b));
    if (!strcmp(name, "K"))
        return new_matrix_rowmajor(kf_body_stiffness(b));
    if (i.v >= dim || j.v >= dim)
        return PyErr_Format(PyExc_ValueError, "block index (%lld, %lld) is out of 0..%d", i.v,
                            j.v, dim - 1);
    if (!strcmp(name, "S"))
        return new_matrix_rowmajor(kf_body_S(b, (int)i.v, (int)j.v));
    if (!strcmp(name, "s"))
        return new_vector(kf_body_s(b, (int)i.v, (int)j.v), kf_body_ndof(b));
    if (!strcmp(name, "Mo"))
        return new_vector(kf_body_Mo(b, (int)i.v), kf_body_ndof(b));
    return PyErr_Format(PyExc_ValueError, "name = '%s' is not an invariant (M, K, S, s, Mo)",
                        name);
}

/* One instant of frames (motion_terms, inertia_forces_direct take one). */
static int one_frame(const frames_arg *f)
{
    if (f->n != 1) {
        PyErr_Format(PyExc_ValueError, "%s must hold one instant, got %zd", f->name,
                     (Py_ssize_t)f->n);
        return -1;
    }
    return 0;
}

static PyObject *py_motion_terms(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "frame", NULL};
    kf_body *b;
    frames_arg fr = {"frame"};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, body_conv, &b, frames_conv, &fr))
        return NULL;
    PyObject *result = NULL;
    const kf_mat *M = kf_body_mass(b);
    int n = kf_body_ndof(b);
    kf_mat C = {0}, Ke = {0}, Ko = {0};
    double *q = calloc((size_t)3 * n + 1, sizeof(double));
    kf_error err = {0};
    int rc = KF_OK;
    if (one_frame(&fr))
        goto done;
    if (!q) {
        PyErr_NoMemory();
        goto done;
    }
    if (!rc)
        rc = kf_mat_alloc_like(&C, M, &err);
    if (!rc)
        rc = kf_mat_alloc_like(&Ke, M, &err);
    if (!rc)
        rc = kf_mat_alloc_like(&Ko, M, &err);
    if (!rc) {
        Py_BEGIN_ALLOW_THREADS
        rc = kf_body_motion_terms(b, fr.f, &C, &Ke, &Ko, q, q + n, q + 2 * n, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N}", "C", new_matrix_rowmajor(&C),
                               "K_eps", new_matrix_rowmajor(&Ke), "K_om",
                               new_matrix_rowmajor(&Ko), "q_eps", new_vector(q, n), "q_om",
                               new_vector(q + n, n), "q_a", new_vector(q + 2 * n, n));
done:
    kf_mat_free(&C);
    kf_mat_free(&Ke);
    kf_mat_free(&Ko);
    free(q);
    Py_XDECREF(fr.arr);
    return result;
}

static PyObject *py_geometric_matrix(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "coefficients", NULL};
    kf_body *b;
    f64_arg c = {"axial_force", 1, {3}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, body_conv, &b, f64_conv, &c))
        return NULL;
    kf_mat G = {0};
    kf_error err = {0};
    PyObject *result = NULL;
    int rc = kf_mat_alloc_like(&G, kf_body_mass(b), &err);
    if (!rc)
        rc = kf_body_geometric(b, f64_data(&c), 0.0, &G, &err);
    if (rc)
        raise_status(rc, &err);
    else
        result = new_matrix_rowmajor(&G);
    kf_mat_free(&G);
    f64_release(&c);
    return result;
}

static PyObject *py_axial_force(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "frames", "f_first", "f_last", "fixed_first", "fixed_last",
                             NULL};
    kf_body *b;
    frames_arg fr = {"frames"};
    real_arg f0 = {"end_forces[0]"}, f1 = {"end_forces[1]"};
    int fixed_first, fixed_last;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&pp", kwlist, body_conv, &b, frames_conv,
                                     &fr, real_conv, &f0, real_conv, &f1, &fixed_first,
                                     &fixed_last))
        return NULL;
    npy_intp dims[2] = {fr.n, 3};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    PyObject *result = NULL;
    if (!out)
        goto done;
    double *c = PyArray_DATA(out);
    kf_error err = {0};
    int rc = KF_OK;
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp t = 0; t < fr.n && !rc; t++)
        rc = kf_body_axial_force(b, &fr.f[t], f0.v, f1.v, fixed_first, fixed_last, c + 3 * t,
                                 &err);
    Py_END_ALLOW_THREADS
    result = array_or_raise(rc, &err, &out);
done:
    Py_XDECREF(out);
    Py_XDECREF(fr.arr);
    return result;
}

static PyObject *py_inertia_forces_direct(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "d", "d_t", "d_tt", "frame", NULL};
    kf_body *b;
    f64_arg d = {"d", 1, {-1}}, dd = {"d_t", 1, {-1}}, ddd = {"d_tt", 1, {-1}};
    frames_arg fr = {"frame"};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&", kwlist, body_conv, &b, f64_conv,
                                     &d, f64_conv, &dd, f64_conv, &ddd, frames_conv, &fr))
        return NULL;
    npy_intp n = kf_body_ndof(b);
    PyArrayObject *out = NULL;
    PyObject *result = NULL;
    if (f64_expect(&d, 0, n, "the body's DOFs") || f64_expect(&dd, 0, n, "the body's DOFs") ||
        f64_expect(&ddd, 0, n, "the body's DOFs") || one_frame(&fr))
        goto done;
    if (!(out = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE)))
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_inertia_forces_direct(b, f64_data(&d), f64_data(&dd), f64_data(&ddd), fr.f,
                                       PyArray_DATA(out), &err);
    Py_END_ALLOW_THREADS
    result = array_or_raise(rc, &err, &out);
done:
    Py_XDECREF(out);
    f64_release(&d);
    f64_release(&dd);
    f64_release(&ddd);
    Py_XDECREF(fr.arr);
    return result;
}

/* ================================================================ eigenvalues */

static void eig_destructor(PyObject *cap)
{
    kf_eig_free(PyCapsule_GetPointer(cap, EIG_CAPSULE));
    Py_XDECREF((PyObject *)PyCapsule_GetContext(cap)); /* the body it borrows */
}

/* Wrap a new eigen context in a capsule that keeps its body alive; frees e on failure. */
static PyObject *eig_capsule(kf_eig *e, PyObject *body_cap)
{
    PyObject *result = PyCapsule_New(e, EIG_CAPSULE, eig_destructor);
    if (!result) {
        kf_eig_free(e);
        return NULL;
    }
    Py_INCREF(body_cap);
    PyCapsule_SetContext(result, body_cap);
    return result;
}

static PyObject *py_eig_create(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "fixed", "geometric", NULL};
    PyObject *cap;
    mask_arg fixed = {"supports"};
    int geometric = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|p", kwlist, &cap, mask_conv, &fixed,
                                     &geometric))
        return NULL;
    kf_body *b;
    PyObject *result = NULL;
    if (!body_conv(cap, &b))
        goto done;
    if (PyArray_DIM(fixed.arr, 0) != kf_body_ndof(b)) {
        PyErr_Format(PyExc_ValueError, "supports mask has %zd entries, the body %d DOFs",
                     (Py_ssize_t)PyArray_DIM(fixed.arr, 0), kf_body_ndof(b));
        goto done;
    }
    kf_eig *e = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eig_create(&e, b, PyArray_DATA(fixed.arr), geometric ? KF_EIG_GEOMETRIC : 0, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = eig_capsule(e, cap);
done:
    Py_XDECREF(fixed.arr);
    return result;
}

static PyObject *py_eig_create_projected(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "basis", "geometric", NULL};
    PyObject *cap;
    f64_arg B = {"basis", 2, {-1, -1}};
    int geometric = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|p", kwlist, &cap, f64_conv, &B, &geometric))
        return NULL;
    kf_body *b;
    PyObject *result = NULL;
    double *Bc = NULL;
    if (!body_conv(cap, &b))
        goto done;
    npy_intp nd = f64_dim(&B, 0), nf = f64_dim(&B, 1);
    if (nd != kf_body_ndof(b) || nf < 1 || nf > nd) {
        PyErr_Format(PyExc_ValueError,
                     "basis must have shape (%d, nfree) with 1 <= nfree <= %d, got (%zd, %zd)",
                     kf_body_ndof(b), kf_body_ndof(b), (Py_ssize_t)nd, (Py_ssize_t)nf);
        goto done;
    }
    if (!(Bc = malloc((size_t)nd * nf * sizeof(double)))) {
        PyErr_NoMemory();
        goto done;
    }
    const double *src = f64_data(&B); /* row-major (ndof, nfree) -> column-major */
    for (npy_intp i = 0; i < nd; i++)
        for (npy_intp j = 0; j < nf; j++)
            Bc[i + j * nd] = src[i * nf + j];
    kf_eig *e = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eig_create_projected(&e, b, (int)nf, Bc, geometric ? KF_EIG_GEOMETRIC : 0, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = eig_capsule(e, cap);
done:
    free(Bc);
    f64_release(&B);
    return result;
}

/* kf_eig_solve and kf_eig_gyroscopic: frames (nt,), n_modes, K_eps switch,
 * optional axial-force coefficients (nt, 3) and a progress function. */
typedef struct eig_call {
    eig_arg ctx;
    frames_arg fr;
    int_arg n_modes;
    int include_eps;
    f64_arg kg;
    func_arg progress;
} eig_call;

static int eig_call_check(eig_call *c)
{
    int n = kf_eig_nfree(c->ctx.e);
    if (c->n_modes.v > n) {
        PyErr_Format(PyExc_ValueError, "n_modes = %lld is out of 1..%d (free DOFs)",
                     c->n_modes.v, n);
        return -1;
    }
    return f64_expect(&c->kg, 0, c->fr.n, "one row per instant");
}

static void eig_call_release(eig_call *c)
{
    Py_CLEAR(c->fr.arr);
    f64_release(&c->kg);
}

#define EIG_CALL_INIT                                                                          \
    {{NULL, NULL}, {"frames"}, {"n_modes", 1, INT32_MAX, 0}, 0, {"axial_force", 2, {-1, 3}, 1},  \
     {"progress", NULL}}

static PyObject *py_eig_solve(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"eig", "frames", "n_modes", "include_eps", "vectors", "tracked",
                             "axial_force", "progress", NULL};
    eig_call c = EIG_CALL_INIT;
    kf_eig_opts opt = {0};
    int tracked = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&ppp|O&O&", kwlist, eig_conv, &c.ctx,
                                     frames_conv, &c.fr, int_conv, &c.n_modes, &c.include_eps,
                                     &opt.vectors, &tracked, f64_conv, &c.kg, func_conv,
                                     &c.progress))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *re = NULL, *im = NULL, *modes = NULL;
    if (eig_call_check(&c))
        goto done;
    opt.n_modes = (int)c.n_modes.v;
    opt.include_eps = c.include_eps;
    opt.order = tracked ? KF_ORDER_TRACKED : KF_ORDER_ASCENDING;
    poll_ctx pc = poll_start(c.progress.fn);
    opt.progress = poll_cb;
    opt.progress_params = &pc;
    npy_intp nt = c.fr.n, m = opt.n_modes, ndof = kf_body_ndof(c.ctx.b);
    npy_intp d2[2] = {nt, m}, d3[3] = {nt, ndof, m};
    re = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
    im = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
    if (opt.vectors)
        modes = (PyArrayObject *)PyArray_SimpleNew(3, d3, NPY_DOUBLE);
    if (!re || !im || (opt.vectors && !modes))
        goto done;
    kf_eig_stats st = {0};
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eig_solve(c.ctx.e, (int)nt, c.fr.f, f64_data(&c.kg), &opt, PyArray_DATA(re),
                      PyArray_DATA(im), modes ? PyArray_DATA(modes) : NULL, &st, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = Py_BuildValue("{s:N,s:N,s:N,s:N}", "eigenvalues", re, "eigenvalues_imag", im,
                           "mode_shapes", modes ? (PyObject *)modes : Py_NewRef(Py_None),
                           "stats", eig_stats_dict(&st));
    re = im = modes = NULL; /* passed on ("N") */
done:
    Py_XDECREF(re);
    Py_XDECREF(im);
    Py_XDECREF(modes);
    eig_call_release(&c);
    return result;
}

static PyObject *py_eig_gyroscopic(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"eig", "frames", "n_modes", "include_eps", "axial_force",
                             "progress", NULL};
    eig_call c = EIG_CALL_INIT;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&p|O&O&", kwlist, eig_conv, &c.ctx,
                                     frames_conv, &c.fr, int_conv, &c.n_modes, &c.include_eps,
                                     f64_conv, &c.kg, func_conv, &c.progress))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *re = NULL, *im = NULL;
    if (eig_call_check(&c))
        goto done;
    poll_ctx pc = poll_start(c.progress.fn);
    kf_eig_opts opt = {.n_modes = (int)c.n_modes.v, .include_eps = c.include_eps,
                       .progress = poll_cb, .progress_params = &pc};
    npy_intp d2[2] = {c.fr.n, opt.n_modes};
    re = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
    im = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
    if (!re || !im)
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eig_gyroscopic(c.ctx.e, (int)c.fr.n, c.fr.f, f64_data(&c.kg), &opt,
                           PyArray_DATA(re), PyArray_DATA(im), &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = Py_BuildValue("{s:N,s:N}", "s_re", re, "s_im", im);
    re = im = NULL;
done:
    Py_XDECREF(re);
    Py_XDECREF(im);
    eig_call_release(&c);
    return result;
}

static PyObject *py_null_basis(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"G", "rtol", NULL};
    f64_arg G = {"constraints", 2, {-1, -1}};
    real_arg rtol = {"rtol", 0.0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&", kwlist, f64_conv, &G, real_conv, &rtol))
        return NULL;
    PyObject *result = NULL;
    double *B = NULL;
    npy_intp m = f64_dim(&G, 0), n = f64_dim(&G, 1);
    if (n < 1 || n > 46340) { /* n * n must fit an int-indexed LAPACK array */
        PyErr_Format(PyExc_ValueError,
                     "constraints must have 1..46340 columns, got shape (%zd, %zd)",
                     (Py_ssize_t)m, (Py_ssize_t)n);
        goto done;
    }
    if (!(B = calloc((size_t)n * n, sizeof(double)))) {
        PyErr_NoMemory();
        goto done;
    }
    kf_error err = {0};
    int rc, nfree = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_null_basis((int)m, (int)n, f64_data(&G), rtol.v, &nfree, B, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    npy_intp dims[2] = {n, nfree};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (!out)
        goto done;
    double *o = PyArray_DATA(out); /* column-major B -> row-major (n, nfree) */
    for (npy_intp i = 0; i < n; i++)
        for (npy_intp j = 0; j < nfree; j++)
            o[i * nfree + j] = B[i + j * n];
    result = (PyObject *)out;
done:
    free(B);
    f64_release(&G);
    return result;
}

/* ================================================================ motions and loads
 *
 * A motion or a set of loads is made once (motion_constant, motion_spline,
 * motion_function, loads_harmonic, loads_function) into a capsule that holds
 * the core's callback, its parameters and copies of the arrays they point to;
 * it is immutable afterwards, so one can drive several runs, also at once.
 */
typedef struct py_source {
    const char *kind;
    kf_motion_fn *motion; /* one of motion, loads is set */
    kf_loads_fn *loads;
    void *params;
    int ndof;              /* loads: the body's DOFs (0: any, checked per call) */
    kf_motion_constant constant;
    kf_motion_spline spline;
    kf_motion_spin spin;
    kf_motion_rotation rotation;
    kf_loads_harmonic harmonic;
    double *data;          /* the owned arrays the parameters point into */
    PyObject *fn;          /* a Python callable (owned) */
} py_source;

static void source_destructor(PyObject *cap)
{
    py_source *s = PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
    if (!s)
        return;
    free(s->data);
    Py_XDECREF(s->fn);
    free(s);
}

static PyObject *source_capsule(py_source *s, const char *name)
{
    PyObject *cap = PyCapsule_New(s, name, source_destructor);
    if (!cap) {
        free(s->data);
        Py_XDECREF(s->fn);
        free(s);
    }
    return cap;
}

static int source_conv(PyObject *obj, py_source **out, const char *name, const char *what)
{
    if (!PyCapsule_IsValid(obj, name)) {
        PyErr_Format(PyExc_TypeError, "%s must be made by kanefem._core.%s_*", what, what);
        return 0;
    }
    *out = PyCapsule_GetPointer(obj, name);
    return 1;
}

static int motion_conv(PyObject *obj, void *p)
{
    return source_conv(obj, p, MOTION_CAPSULE, "motion");
}

static int loads_conv(PyObject *obj, void *p)
{
    if (obj == Py_None) {
        *(py_source **)p = NULL;
        return 1;
    }
    return source_conv(obj, p, LOADS_CAPSULE, "loads");
}

/* Add a note "raised by the <what> at t = ..." to the pending exception. */
static void note_exception(const char *what, double t)
{
    char buf[160];
    snprintf(buf, sizeof buf, "raised by the %s at t = %.17g", what, t);
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc && tb)
        PyException_SetTraceback(exc, tb);
    if (exc && PyObject_HasAttrString(exc, "add_note")) {
        PyObject *r = PyObject_CallMethod(exc, "add_note", "s", buf);
        if (!r)
            PyErr_Clear();
        Py_XDECREF(r);
    }
    PyErr_Restore(type, exc, tb);
}

/* The core's record of a failed Python callback (the exception itself stays set). */
static int callback_failed(kf_error *err, const char *what, double t)
{
    note_exception(what, t);
    err->code = KF_ECALLBACK;
    snprintf(err->arg, sizeof err->arg, "%s", what);
    snprintf(err->msg, sizeof err->msg, "the %s raised at t = %.17g", what, t);
    return -1;
}

/* Read a number (about z) or a 2- or 3-vector ((x, y) or (x, y, z)) into v[3]. */
static int read_vector(PyObject *obj, const char *name, int scalar_is_z, double *v, double t)
{
    v[0] = v[1] = v[2] = 0.0;
    PyArrayObject *raw = (PyArrayObject *)PyArray_FROM_O(obj), *a = NULL;
    int rc = -1;
    if (!raw || !(PyTypeNum_ISINTEGER(PyArray_TYPE(raw)) || PyTypeNum_ISFLOAT(PyArray_TYPE(raw)))) {
        PyErr_Clear();
        PyObject *r = PyObject_Repr(obj);
        const char *text = r ? PyUnicode_AsUTF8(r) : NULL;
        PyErr_Clear();
        fail(PyExc_TypeError, "%s from the motion function must be real numbers, got %.80s at "
             "t = %.17g", name, text ? text : "?", t);
        Py_XDECREF(r);
        goto done;
    }
    a = (PyArrayObject *)PyArray_FromAny((PyObject *)raw, PyArray_DescrFromType(NPY_DOUBLE), 0,
                                         1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST, NULL);
    if (!a)
        goto done;
    const double *x = PyArray_DATA(a);
    npy_intp n = PyArray_SIZE(a);
    if (PyArray_NDIM(a) == 0 && scalar_is_z) {
        v[2] = x[0];
        rc = 0;
    } else if (PyArray_NDIM(a) == 1 && (n == 2 || n == 3)) {
        memcpy(v, x, (size_t)n * sizeof(double));
        rc = 0;
    } else {
        fail(PyExc_ValueError, "%s from the motion function must be %s2 or 3 components, got "
             "%zd value(s) at t = %.17g", name, scalar_is_z ? "a number or " : "",
             (Py_ssize_t)n, t);
    }
done:
    Py_XDECREF(raw);
    Py_XDECREF(a);
    return rc;
}

/* A Python motion f(t) -> (omega, eps, a_O): omega and eps a number (about z)
 * or a 3-vector, a_O 2 or 3 components, body frame; v, vdot stay zero. */
static int py_motion_cb(double t, kf_frame *out, void *params, kf_error *err)
{
    PyObject *fn = params;
    int rc = -1;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction(fn, "d", t), *seq = NULL;
    if (!r)
        goto done;
    seq = PySequence_Fast(r, "the motion function must return (omega, eps, a_O)");
    if (!seq)
        goto done;
    if (PySequence_Fast_GET_SIZE(seq) != 3) {
        fail(PyExc_ValueError, "the motion function must return (omega, eps, a_O), got %zd "
             "values at t = %.17g", (Py_ssize_t)PySequence_Fast_GET_SIZE(seq), t);
        goto done;
    }
    memset(out, 0, sizeof *out);
    if (read_vector(PySequence_Fast_GET_ITEM(seq, 0), "omega", 1, out->omega, t) ||
        read_vector(PySequence_Fast_GET_ITEM(seq, 1), "eps", 1, out->eps, t) ||
        read_vector(PySequence_Fast_GET_ITEM(seq, 2), "a_O", 0, out->a, t))
        goto done;
    rc = 0;
done:
    Py_XDECREF(seq);
    Py_XDECREF(r);
    if (rc)
        callback_failed(err, "motion function", t);
    PyGILState_Release(g);
    return rc;
}

/* Python loads f(t) -> Q over all DOFs. */
typedef struct py_loads_run {
    PyObject *fn;
    int ndof;
} py_loads_run;

static int py_loads_cb(double t, double *Q, void *params, kf_error *err)
{
    py_loads_run *c = params;
    int rc = -1;
    PyGILState_STATE g = PyGILState_Ensure();
    PyArrayObject *q = NULL;
    PyObject *r = PyObject_CallFunction(c->fn, "d", t);
    if (!r)
        goto done;
    q = (PyArrayObject *)PyArray_FROMANY(r, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!q) {
        /* NumPy's conversion message names no argument: say whose value it was */
        if (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyObject *et, *ev, *tb;
            PyErr_Fetch(&et, &ev, &tb);
            PyObject *text = ev ? PyObject_Str(ev) : NULL;
            const char *why = text ? PyUnicode_AsUTF8(text) : NULL;
            PyErr_Clear();
            fail(PyExc_ValueError, "loads(t) must return a vector of %d floats (all DOFs); at "
                 "t = %.17g it returned a %.80s that is not one (%.200s)", c->ndof, t,
                 Py_TYPE(r)->tp_name, why ? why : "");
            Py_XDECREF(text);
            Py_XDECREF(et);
            Py_XDECREF(ev);
            Py_XDECREF(tb);
        }
        goto done;
    }
    if (PyArray_DIM(q, 0) != c->ndof) {
        fail(PyExc_ValueError, "loads(t) must return a vector of %d values (all DOFs), got %zd "
             "at t = %.17g", c->ndof, (Py_ssize_t)PyArray_DIM(q, 0), t);
        goto done;
    }
    const double *v = PyArray_DATA(q);
    for (int i = 0; i < c->ndof; i++)
        if (!isfinite(v[i])) {
            fail(PyExc_ValueError, "loads(t) returned %g for DOF %d at t = %.17g", v[i], i, t);
            goto done;
        }
    memcpy(Q, v, (size_t)c->ndof * sizeof(double));
    rc = 0;
done:
    Py_XDECREF(q);
    Py_XDECREF(r);
    if (rc)
        callback_failed(err, "loads function", t);
    PyGILState_Release(g);
    return rc;
}

static py_source *source_new(const char *kind)
{
    py_source *s = calloc(1, sizeof *s);
    if (!s)
        PyErr_NoMemory();
    else
        s->kind = kind;
    return s;
}

static PyObject *py_motion_constant(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"omega", "theta0", "gravity", NULL};
    real_arg om = {"omega"}, th = {"theta0"};
    f64_arg g = {"gravity", 1, {2}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&", kwlist, real_conv, &om, real_conv, &th,
                                     f64_conv, &g))
        return NULL;
    py_source *s = source_new("constant");
    if (s) {
        s->constant = (kf_motion_constant){om.v, th.v, {f64_data(&g)[0], f64_data(&g)[1]}};
        s->motion = kf_motion_constant_eval;
        s->params = &s->constant;
    }
    f64_release(&g);
    return s ? source_capsule(s, MOTION_CAPSULE) : NULL;
}

/* A source holding copies of the sample times t and spline coefficients of nch
 * channels (from spline_fit), or NULL with an exception; which says what to use. */
static py_source *spline_source(const f64_arg *t, const f64_arg *coef, int nch, const char *kind,
                                const char *which)
{
    npy_intp n = f64_dim(t, 0);
    if (n < 4 || f64_dim(coef, 0) != (n - 1) * nch * 4) {
        fail(PyExc_ValueError, "motion %s: coefficients do not match the samples (use %s)", kind,
             which);
        return NULL;
    }
    py_source *s = source_new(kind);
    if (!s)
        return NULL;
    size_t nc = (size_t)(n - 1) * nch * 4;
    if (!(s->data = malloc(((size_t)n + nc) * sizeof(double)))) {
        free(s);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(s->data, f64_data(t), (size_t)n * sizeof(double));
    memcpy(s->data + n, f64_data(coef), nc * sizeof(double));
    return s;
}

static PyObject *py_motion_spline(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"t", "coef", "gravity", NULL};
    f64_arg t = {"t", 1, {-1}}, coef = {"coef", 1, {-1}}, g = {"gravity", 1, {2}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&", kwlist, f64_conv, &t, f64_conv, &coef,
                                     f64_conv, &g))
        return NULL;
    py_source *s = spline_source(&t, &coef, 3, "spline", "kanefem.Motion.from_samples");
    if (s) {
        s->spline = (kf_motion_spline){(int)f64_dim(&t, 0), s->data, s->data + f64_dim(&t, 0),
                                       {f64_data(&g)[0], f64_data(&g)[1]}};
        s->motion = kf_motion_spline_eval;
        s->params = &s->spline;
    }
    f64_release(&t);
    f64_release(&coef);
    f64_release(&g);
    return s ? source_capsule(s, MOTION_CAPSULE) : NULL;
}

static PyObject *py_motion_spin(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"omega", "R0", "gravity", NULL};
    f64_arg om = {"omega", 1, {3}}, R0 = {"R0", 2, {3, 3}}, g = {"gravity", 1, {3}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&", kwlist, f64_conv, &om, f64_conv, &R0,
                                     f64_conv, &g))
        return NULL;
    py_source *s = source_new("spin");
    if (s) {
        memcpy(s->spin.omega, f64_data(&om), sizeof s->spin.omega);
        memcpy(s->spin.R0, f64_data(&R0), sizeof s->spin.R0);
        memcpy(s->spin.g, f64_data(&g), sizeof s->spin.g);
        s->motion = kf_motion_spin_eval;
        s->params = &s->spin;
    }
    f64_release(&om);
    f64_release(&R0);
    f64_release(&g);
    return s ? source_capsule(s, MOTION_CAPSULE) : NULL;
}

static PyObject *py_motion_rotation(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"t", "coef", "gravity", NULL};
    f64_arg t = {"t", 1, {-1}}, coef = {"coef", 1, {-1}}, g = {"gravity", 1, {3}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&", kwlist, f64_conv, &t, f64_conv, &coef,
                                     f64_conv, &g))
        return NULL;
    py_source *s = spline_source(&t, &coef, KF_MOTION_ROTATION_NCH, "rotation",
                                 "kanefem.Motion.from_rotations");
    if (s) {
        s->rotation = (kf_motion_rotation){(int)f64_dim(&t, 0), s->data,
                                           s->data + f64_dim(&t, 0), {0, 0, 0}};
        memcpy(s->rotation.g, f64_data(&g), sizeof s->rotation.g);
        s->motion = kf_motion_rotation_eval;
        s->params = &s->rotation;
    }
    f64_release(&t);
    f64_release(&coef);
    f64_release(&g);
    return s ? source_capsule(s, MOTION_CAPSULE) : NULL;
}

static PyObject *py_source_function(PyObject *args, PyObject *kw, int motion)
{
    static char *kwlist[] = {"f", NULL};
    func_arg f = {"f", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, func_conv, &f))
        return NULL;
    if (!f.fn)
        return PyErr_Format(PyExc_TypeError, "f must be callable, got None");
    py_source *s = source_new("function");
    if (!s)
        return NULL;
    s->fn = Py_NewRef(f.fn);
    if (motion) {
        s->motion = py_motion_cb;
        s->params = s->fn;
    } else {
        s->loads = py_loads_cb; /* params: a py_loads_run made per run */
    }
    return source_capsule(s, motion ? MOTION_CAPSULE : LOADS_CAPSULE);
}

static PyObject *py_motion_function(PyObject *self, PyObject *args, PyObject *kw)
{
    return py_source_function(args, kw, 1);
}

static PyObject *py_loads_function(PyObject *self, PyObject *args, PyObject *kw)
{
    return py_source_function(args, kw, 0);
}

static PyObject *py_loads_harmonic(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"amplitudes", "omega", "phase", "constant", NULL};
    f64_arg A = {"amplitudes", 2, {-1, -1}}, om = {"omega", 1, {-1}}, ph = {"phase", 1, {-1}},
            Q0 = {"constant", 1, {-1}, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&|O&", kwlist, f64_conv, &A, f64_conv, &om,
                                     f64_conv, &ph, f64_conv, &Q0))
        return NULL;
    py_source *s = NULL;
    npy_intp nh = f64_dim(&A, 0), nd = f64_dim(&A, 1);
    if (f64_expect(&om, 0, nh, "one per amplitude row") ||
        f64_expect(&ph, 0, nh, "one per amplitude row") || f64_expect(&Q0, 0, nd, "all DOFs"))
        goto done;
    if (!(s = source_new("harmonic")))
        goto done;
    size_t len = (size_t)nh * nd + 2 * (size_t)nh + (size_t)nd;
    if (!(s->data = calloc(len + 1, sizeof(double)))) {
        free(s);
        s = NULL;
        PyErr_NoMemory();
        goto done;
    }
    double *p = s->data;
    memcpy(p, f64_data(&A), (size_t)nh * nd * sizeof(double));
    memcpy(p + nh * nd, f64_data(&om), (size_t)nh * sizeof(double));
    memcpy(p + nh * nd + nh, f64_data(&ph), (size_t)nh * sizeof(double));
    if (Q0.arr)
        memcpy(p + nh * nd + 2 * nh, f64_data(&Q0), (size_t)nd * sizeof(double));
    s->harmonic = (kf_loads_harmonic){(int)nd, (int)nh, Q0.arr ? p + nh * nd + 2 * nh : NULL, p,
                                      p + nh * nd, p + nh * nd + nh};
    s->ndof = (int)nd;
    s->loads = kf_loads_harmonic_eval;
    s->params = &s->harmonic;
done:
    f64_release(&A);
    f64_release(&om);
    f64_release(&ph);
    f64_release(&Q0);
    return s ? source_capsule(s, LOADS_CAPSULE) : NULL;
}

/* motion_eval(motion, t (nt,)) -> frames (nt,): what the motion gives at t. */
static PyObject *py_motion_eval(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"motion", "t", NULL};
    py_source *m;
    f64_arg t = {"t", 1, {-1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, motion_conv, &m, f64_conv, &t))
        return NULL;
    PyArrayObject *out = new_frames(f64_dim(&t, 0));
    PyObject *result = NULL;
    if (!out)
        goto done;
    kf_frame *F = PyArray_DATA(out);
    const double *tt = f64_data(&t);
    kf_error err = {0};
    for (npy_intp k = 0; k < f64_dim(&t, 0); k++)
        if (m->motion(tt[k], &F[k], m->params, &err)) {
            raise_status(err.code ? err.code : KF_ECALLBACK, &err);
            goto done;
        }
    result = (PyObject *)out;
    out = NULL;
done:
    Py_XDECREF(out);
    f64_release(&t);
    return result;
}

/* spline_fit(t (n,), y (n, nch)) -> coefficients ((n-1) * nch * 4,) */
static PyObject *py_spline_fit(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"t", "y", NULL};
    f64_arg t = {"t", 1, {-1}}, y = {"samples", 2, {-1, -1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, f64_conv, &t, f64_conv, &y))
        return NULL;
    PyArrayObject *c = NULL;
    PyObject *result = NULL;
    npy_intp n = f64_dim(&t, 0), nch = f64_dim(&y, 1);
    if (f64_expect(&y, 0, n, "one row per time") || n > INT_LIMIT / 16 || nch > 64) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "samples: at most 64 channels and %zd times",
                         (Py_ssize_t)(INT_LIMIT / 16));
        goto done;
    }
    npy_intp len = (n > 1 ? n - 1 : 1) * nch * 4;
    if (!(c = (PyArrayObject *)PyArray_SimpleNew(1, &len, NPY_DOUBLE)))
        goto done;
    kf_error err = {0};
    int rc = kf_spline_fit((int)n, f64_data(&t), (int)nch, f64_data(&y), PyArray_DATA(c), &err);
    result = array_or_raise(rc, &err, &c);
done:
    f64_release(&t);
    f64_release(&y);
    Py_XDECREF(c);
    return result;
}

/* ================================================================ time integration */

/*
 * simulate(body, fixed, motion, t_eval, *, loads=None, method, d0, v0, dt,
 *          rho_inf, rtol, atol, max_step, max_steps, limit, rayleigh,
 *          damping=None, geometric, momentum, progress=None)
 *   -> {"d", "v", "p" (or None), "stats"}
 * d0, v0 over all DOFs; d, v, p (nt, ndof), zero at the supports; the
 * arguments map one to one onto kf_body_ode_opts and kf_integ_opts.
 */
static PyObject *py_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "fixed", "motion", "t_eval", "loads", "method", "d0", "v0",
                             "dt", "rho_inf", "rtol", "atol", "max_step", "max_steps", "limit",
                             "rayleigh_alpha", "rayleigh_beta", "damping", "geometric",
                             "momentum", "progress", NULL};
    kf_body *b;
    mask_arg fixed = {"supports"};
    py_source *motion, *loads = NULL;
    f64_arg t = {"t_eval", 1, {-1}}, d0 = {"d0", 1, {-1}}, v0 = {"v0", 1, {-1}},
            damp = {"damping", 2, {-1, -1}, 1};
    int_arg method = {"method", KF_NEWMARK, KF_RK45_HAMILTON, KF_NEWMARK},
            max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    real_arg dt = {"dt", 0.0}, rho_inf = {"rho_inf", 0.8}, rtol = {"rtol", 1e-8},
             atol = {"atol", 1e-12}, max_step = {"max_step", 0.0}, limit = {"limit", 0.0},
             ra = {"rayleigh alpha", 0.0}, rb = {"rayleigh beta", 0.0};
    int geometric = 0, want_p = 0;
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(
            args, kw, "O&O&O&O&|$O&O&O&O&O&O&O&O&O&O&O&O&O&O&ppO&", kwlist, body_conv, &b,
            mask_conv, &fixed, motion_conv, &motion, f64_conv, &t, loads_conv, &loads, int_conv,
            &method, f64_conv, &d0, f64_conv, &v0, real_conv, &dt, real_conv, &rho_inf,
            real_conv, &rtol, real_conv, &atol, real_conv, &max_step, int_conv, &max_steps,
            real_conv, &limit, real_conv, &ra, real_conv, &rb, f64_conv, &damp, &geometric,
            &want_p, func_conv, &progress))
        return NULL;
    int ndof = kf_body_ndof(b);
    kf_integ_opts io = {.method = (int)method.v, .dt = dt.v, .rho_inf = rho_inf.v,
                        .rtol = rtol.v, .atol = atol.v, .max_step = max_step.v,
                        .max_steps = steps_limit(max_steps.v), .limit = limit.v};
    kf_body_ode_opts bo = {.motion = motion->motion, .motion_params = motion->params,
                           .rayleigh = {ra.v, rb.v}, .geometric = geometric};
    py_loads_run lrun = {NULL, ndof};
    poll_ctx pc = poll_start(progress.fn);
    PyArrayObject *dout = NULL, *vout = NULL, *pout = NULL, *dampF = NULL;
    kf_body_ode *ode = NULL;
    kf_integ *integ = NULL;
    double *x0 = NULL;
    PyObject *result = NULL;

    if (PyArray_DIM(fixed.arr, 0) != ndof) {
        PyErr_Format(PyExc_ValueError, "supports mask has %zd entries, the body %d DOFs",
                     (Py_ssize_t)PyArray_DIM(fixed.arr, 0), ndof);
        goto done;
    }
    bo.fixed = PyArray_DATA(fixed.arr);
    if (loads) {
        if (loads->ndof && loads->ndof != ndof) {
            PyErr_Format(PyExc_ValueError, "loads are vectors of %d values, the body has %d DOFs",
                         loads->ndof, ndof);
            goto done;
        }
        bo.loads = loads->loads;
        if (loads->fn) {
            lrun.fn = loads->fn;
            bo.loads_params = &lrun;
        } else {
            bo.loads_params = loads->params;
        }
    }
    if (!d0.arr || !v0.arr || f64_expect(&d0, 0, ndof, "all DOFs") ||
        f64_expect(&v0, 0, ndof, "all DOFs")) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "d0 and v0 are required");
        goto done;
    }
    npy_intp nt = f64_dim(&t, 0);
    if (nt < 1) {
        PyErr_SetString(PyExc_ValueError, "t_eval must hold at least one time");
        goto done;
    }
    if (damp.arr) {
        npy_intp nf = 0; /* the free-DOF count follows from the supports */
        const unsigned char *fx = PyArray_DATA(fixed.arr);
        for (int i = 0; i < ndof; i++)
            nf += fx[i] ? 0 : 1;
        if (f64_expect(&damp, 0, nf, "free DOFs") || f64_expect(&damp, 1, nf, "free DOFs"))
            goto done;
        /* the core reads it column-major */
        if (!(dampF = (PyArrayObject *)PyArray_FROM_OF((PyObject *)damp.arr,
                                                       NPY_ARRAY_F_CONTIGUOUS)))
            goto done;
        bo.damping = PyArray_DATA(dampF);
    }
    npy_intp dims[2] = {nt, ndof};
    if (nt > INT_LIMIT / (ndof > 0 ? ndof : 1) / 8) {
        PyErr_Format(PyExc_ValueError, "t_eval: %zd output times x %d DOFs is too large an "
                     "output", (Py_ssize_t)nt, ndof);
        goto done;
    }
    dout = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
    vout = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
    if (want_p)
        pout = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
    x0 = calloc(2 * (size_t)ndof + 1, sizeof(double));
    if (!dout || !vout || (want_p && !pout) || !x0) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    io.progress = poll_cb;
    io.progress_params = &pc;
    kf_stats st = {0};
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_ode_create(&ode, b, &bo, &err);
    if (!rc)
        rc = kf_integ_create(&integ, kf_body_ode_system(ode), &io, &err);
    if (!rc) {
        int n = kf_body_ode_nfree(ode);
        const int *map = kf_body_ode_map(ode);
        const double *dd0 = f64_data(&d0), *vv0 = f64_data(&v0);
        for (int i = 0; i < n; i++) {
            x0[i] = dd0[map[i]];
            x0[n + i] = vv0[map[i]];
        }
        rc = kf_integ_run(integ, 0.0, x0, x0 + n, (int)nt, f64_data(&t), ndof, map,
                          PyArray_DATA(dout), PyArray_DATA(vout),
                          pout ? PyArray_DATA(pout) : NULL, &st, &err);
    }
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = Py_BuildValue("{s:N,s:N,s:N,s:N}", "d", dout, "v", vout, "p",
                           pout ? (PyObject *)pout : Py_NewRef(Py_None), "stats",
                           stats_dict(&st));
    dout = vout = pout = NULL;
done:
    kf_integ_free(integ);
    kf_body_ode_free(ode);
    free(x0);
    Py_XDECREF(fixed.arr);
    f64_release(&t);
    f64_release(&d0);
    f64_release(&v0);
    f64_release(&damp);
    Py_XDECREF(dampF);
    Py_XDECREF(dout);
    Py_XDECREF(vout);
    Py_XDECREF(pout);
    return result;
}

/* ================================================================ mechanisms
 *
 * A mechanism crosses as a capsule (kf_mech); joints, springs and coordinates
 * as 1-D arrays of the typed boundary records kanefem.JOINT_DTYPE,
 * SPRING_DTYPE and COORD_DTYPE, the NumPy images of kf_joint, kf_spring and
 * kf_coord (fields and offsets from the structs, make_record_descrs), made in
 * one Python place (kanefem._records) and handed to the core as they are; the
 * core validates every field (kf_mech_create).  Per-instant results come back
 * as arrays with a leading time axis.
 */

#define MECH_CAPSULE "kanefem._core.mech"

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

/* An index stored in a float column: an integer in [lo, hi]. */
static int index_field(double v, int lo, int hi, const char *what, npy_intp row, int *out)
{
    if (!(v == floor(v) && v >= lo && v <= hi)) {
        fail(PyExc_ValueError, "%s of row %zd = %g must be an integer in %d..%d", what,
             (Py_ssize_t)row, v, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
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
static int rates_conform(kf_mech *m, f64_arg *z, f64_arg *zd, f64_arg *zdd)
{
    npy_intp nt = f64_dim(z, 0);
    int nz = kf_mech_ncoord(m);
    if (f64_expect(z, 1, nz, "coordinates") || (zd->arr && (f64_expect(zd, 0, nt, "instants") ||
                                                            f64_expect(zd, 1, nz, "coordinates"))) ||
        (zdd->arr && (f64_expect(zdd, 0, nt, "instants") || f64_expect(zdd, 1, nz, "coordinates"))))
        return -1;
    return 0;
}

/*
 * The kinematics of m at nt instants: {q, qd, qdd (nt, n), A (nt, n, nz), c (nt, n),
 * Q (nt, n): applied forces, frames (nt, nf): of the axes (body, o_x, o_y, phi) asked for}.
 */
static PyObject *kinematics_of(kf_mech *m, f64_arg *z, f64_arg *zd, f64_arg *zdd, f64_arg *fr)
{
    int n = 3 * kf_mech_nbody(m), nz = kf_mech_ncoord(m), nb = kf_mech_nbody(m);
    npy_intp nt = f64_dim(z, 0), nf = fr->arr ? f64_dim(fr, 0) : 0;
    const double *fd = f64_data(fr);
    for (npy_intp i = 0; i < nf; i++) {
        int b;
        if (index_field(fd[4 * i], -1, nb - 1, "frames body", i, &b))
            return NULL;
    }
    enum { NOUT = 6 };
    static const char *names[NOUT] = {"q", "qd", "qdd", "A", "c", "Q"};
    PyArrayObject *o[NOUT] = {NULL}, *frames = NULL;
    PyObject *result = NULL;
    for (int k = 0; k < NOUT; k++) {
        npy_intp dims[3] = {nt, n, nz};
        if (!(o[k] = (PyArrayObject *)PyArray_SimpleNew(k == 3 ? 3 : 2, dims, NPY_DOUBLE)))
            goto done;
    }
    npy_intp fdims[2] = {nt, nf};
    Py_INCREF(frame_descr);
    if (!(frames = (PyArrayObject *)PyArray_Zeros(2, fdims, frame_descr, 0)))
        goto done;
    kf_mech_kin k;
    kf_error err = {0};
    int rc;
    const double *zz = f64_data(z), *zv = f64_data(zd), *za = f64_data(zdd);
    Py_BEGIN_ALLOW_THREADS
    rc = kf_mech_kin_alloc(m, &k, &err);
    for (npy_intp t = 0; t < nt && !rc; t++) {
        rc = kf_mech_kinematics(m, zz + t * nz, zv ? zv + t * nz : NULL, za ? za + t * nz : NULL,
                                &k, &err);
        double *Q = (double *)PyArray_DATA(o[5]) + t * n;
        if (!rc)
            rc = kf_mech_applied(m, &k, Q, &err);
        if (rc)
            break;
        const double *src[NOUT - 1] = {k.q, k.qd, k.qdd, k.A, k.c};
        for (int j = 0; j < NOUT - 1; j++) {
            npy_intp per = j == 3 ? (npy_intp)n * nz : n;
            memcpy((double *)PyArray_DATA(o[j]) + t * per, src[j], (size_t)per * sizeof(double));
        }
        kf_frame *f = (kf_frame *)PyArray_DATA(frames) + t * nf;
        for (npy_intp i = 0; i < nf; i++)
            kf_mech_frame(m, &k, (int)fd[4 * i], fd + 4 * i + 1, fd[4 * i + 3], f + i);
    }
    kf_mech_kin_free(&k);
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
    for (int j = 0; j < NOUT; j++)
        Py_XDECREF(o[j]);
    Py_XDECREF(frames);
    return result;
}

/* mech_kinematics(mech, z (nt, nz), zd=None, zdd=None, frames=None (nf, 4)) -> dict */
static PyObject *py_mech_kinematics(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "z", "zd", "zdd", "frames", NULL};
    kf_mech *m;
    f64_arg z = {"z", 2, {-1, -1}}, zd = {"zd", 2, {-1, -1}, 1}, zdd = {"zdd", 2, {-1, -1}, 1},
            fr = {"frames", 2, {-1, 4}, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&O&O&", kwlist, mech_conv, &m, f64_conv,
                                     &z, f64_conv, &zd, f64_conv, &zdd, f64_conv, &fr))
        return NULL;
    PyObject *r = rates_conform(m, &z, &zd, &zdd) ? NULL : kinematics_of(m, &z, &zd, &zdd, &fr);
    f64_release(&z);
    f64_release(&zd);
    f64_release(&zdd);
    f64_release(&fr);
    return r;
}

/* Joint forces over states (nt, >= 3 nz: z, z', z''): {joints (nt, nj, 3), drive (nt, nz)}. */
static PyObject *reactions_of(kf_mech *m, f64_arg *s, PyObject *progress)
{
    int nz = kf_mech_ncoord(m), nj = kf_mech_njoint(m);
    npy_intp nt = f64_dim(s, 0), cols = f64_dim(s, 1), jd[3] = {nt, nj, 3}, dd[2] = {nt, nz};
    if (cols < 3 * nz) {
        fail(PyExc_ValueError, "states must have at least %d columns (z, z', z'' of %d "
             "coordinates), got %zd", 3 * nz, nz, (Py_ssize_t)cols);
        return NULL;
    }
    PyArrayObject *fj = (PyArrayObject *)PyArray_SimpleNew(3, jd, NPY_DOUBLE);
    PyArrayObject *dr = (PyArrayObject *)PyArray_SimpleNew(2, dd, NPY_DOUBLE);
    PyObject *result = NULL;
    if (!fj || !dr)
        goto done;
    kf_mech_kin k;
    kf_error err = {0};
    int rc;
    const double *sd = f64_data(s);
    poll_ctx pc = poll_start(progress);
    Py_BEGIN_ALLOW_THREADS
    rc = kf_mech_kin_alloc(m, &k, &err);
    for (npy_intp t = 0; t < nt && !rc; t++) {
        const double *row = sd + t * cols;
        rc = kf_mech_kinematics(m, row, row + nz, row + 2 * nz, &k, &err);
        if (!rc)
            rc = kf_mech_reactions(m, &k, (double *)PyArray_DATA(fj) + t * 3 * nj,
                                   (double *)PyArray_DATA(dr) + t * nz, &err);
        if (!rc && poll_cb((double)t, &pc))
            rc = KF_ECALLBACK;
    }
    kf_mech_kin_free(&k);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O}", "joints", fj, "drive", dr);
done:
    Py_XDECREF(fj);
    Py_XDECREF(dr);
    return result;
}

static PyObject *py_mech_joint_forces(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "states", "progress", NULL};
    kf_mech *m;
    f64_arg s = {"states", 2, {-1, -1}};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&", kwlist, mech_conv, &m, f64_conv, &s,
                                     func_conv, &progress))
        return NULL;
    PyObject *r = reactions_of(m, &s, progress.fn);
    f64_release(&s);
    return r;
}

/* mech_accelerations(mech, z (nt, nz), zd (nt, nz), tau=None (nt, nz)) -> zdd (nt, nz):
 * Kane's equations at each state, every coordinate free under tau. */
static PyObject *py_mech_accelerations(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "z", "zd", "tau", NULL};
    kf_mech *m;
    f64_arg z = {"z", 2, {-1, -1}}, zd = {"zd", 2, {-1, -1}}, tau = {"tau", 2, {-1, -1}, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&|O&", kwlist, mech_conv, &m, f64_conv, &z,
                                     f64_conv, &zd, f64_conv, &tau))
        return NULL;
    PyArrayObject *out = NULL;
    PyObject *result = NULL;
    int nz = kf_mech_ncoord(m);
    if (rates_conform(m, &z, &zd, &tau))
        goto done;
    npy_intp nt = f64_dim(&z, 0), dims[2] = {nt, nz};
    if (!(out = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0)))
        goto done;
    kf_mech_kin k;
    kf_error err = {0};
    int rc;
    const double *zz = f64_data(&z), *zv = f64_data(&zd), *tt = f64_data(&tau);
    double *a = PyArray_DATA(out);
    Py_BEGIN_ALLOW_THREADS
    rc = kf_mech_kin_alloc(m, &k, &err);
    for (npy_intp t = 0; t < nt && !rc; t++) {
        rc = kf_mech_kinematics(m, zz + t * nz, zv + t * nz, NULL, &k, &err);
        if (!rc)
            rc = kf_mech_dynamics(m, &k, tt ? tt + t * nz : NULL, NULL, a + t * nz, NULL, &err);
    }
    kf_mech_kin_free(&k);
    Py_END_ALLOW_THREADS
    result = array_or_raise(rc, &err, &out);
done:
    Py_XDECREF(out);
    f64_release(&z);
    f64_release(&zd);
    f64_release(&tau);
    return result;
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

/* Drives from (modes, speeds, paths, laws): Python callables become callbacks;
 * *python tells whether any is Python (the GIL must then be held). */
static int drives_of(int nz, f64_arg *modes, f64_arg *speeds, PyObject *paths, PyObject *laws,
                     kf_mech_drive *d, int *python)
{
    PyObject *ps = NULL, *ls = NULL;
    int rc = -1;
    if (f64_expect(modes, 0, nz, "coordinates") || f64_expect(speeds, 0, nz, "coordinates"))
        return -1;
    if (!(ps = PySequence_Fast(paths, "paths must be a sequence")) ||
        !(ls = PySequence_Fast(laws, "laws must be a sequence")))
        goto done;
    if (PySequence_Fast_GET_SIZE(ps) != nz || PySequence_Fast_GET_SIZE(ls) != nz) {
        fail(PyExc_ValueError, "paths and laws must have %d entries (one per coordinate)", nz);
        goto done;
    }
    *python = 0;
    for (int k = 0; k < nz; k++) {
        memset(d + k, 0, sizeof *d);
        if (index_field(f64_data(modes)[k], 0, 2, "modes", k, &d[k].mode))
            goto done;
        d[k].speed = f64_data(speeds)[k];
        PyObject *p = PySequence_Fast_GET_ITEM(ps, k), *l = PySequence_Fast_GET_ITEM(ls, k);
        for (int w = 0; w < 2; w++) {
            PyObject *fn = w ? l : p;
            if (fn == Py_None)
                continue;
            if (!PyCallable_Check(fn)) {
                fail(PyExc_TypeError, "%s[%d] must be callable or None", w ? "laws" : "paths", k);
                goto done;
            }
            if (w)
                d[k].law = py_law_cb;
            else
                d[k].path = py_path_cb;
            d[k].params = fn; /* borrowed: the caller's sequences keep them */
            *python = 1;
        }
        if (d[k].path && d[k].law) {
            fail(PyExc_ValueError, "coordinate %d has both a path and a law", k);
            goto done;
        }
    }
    rc = 0;
done:
    Py_XDECREF(ps);
    Py_XDECREF(ls);
    return rc;
}

/* The rigid motion: {states (nt, 4 nz), stats}. */
static PyObject *simulate_of(kf_mech *m, const kf_mech_drive *d, int python, const double *z0,
                             const double *zd0, f64_arg *t, double rtol, double atol,
                             long long max_steps, PyObject *progress)
{
    int nz = kf_mech_ncoord(m);
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
        rc = kf_mech_simulate(m, d, z0, zd0, (int)nt, f64_data(t), &opts, PyArray_DATA(states),
                              &st, &err);
    } else {
        Py_BEGIN_ALLOW_THREADS
        rc = kf_mech_simulate(m, d, z0, zd0, (int)nt, f64_data(t), &opts, PyArray_DATA(states),
                              &st, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc) {
        Py_DECREF(states);
        return raise_status(rc, &err);
    }
    return Py_BuildValue("{s:N,s:N}", "states", states, "stats", stats_dict(&st));
}

/*
 * mech_simulate(mech, modes (nz,), speeds (nz,), paths (nz: callable or None),
 *               laws (nz: callable or None), z0 (nz,), zd0 (nz,), t (nt,), *, rtol, atol,
 *               max_steps, progress) -> {states (nt, 4 nz), stats}
 * paths: f(t) -> (z, z', z''); laws: f(t, z_k, z_k') -> generalized force.
 */
static PyObject *py_mech_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "modes", "speeds", "paths", "laws", "z0", "zd0", "t",
                             "rtol", "atol", "max_steps", "progress", NULL};
    kf_mech *m;
    f64_arg modes = {"modes", 1, {-1}}, speeds = {"speeds", 1, {-1}}, z0 = {"z0", 1, {-1}},
            zd0 = {"zd0", 1, {-1}}, t = {"t", 1, {-1}};
    PyObject *paths, *laws, *result = NULL;
    real_arg rtol = {"rtol", 1e-9}, atol = {"atol", 1e-12};
    int_arg max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&OOO&O&O&|$O&O&O&O&", kwlist, mech_conv,
                                     &m, f64_conv, &modes, f64_conv, &speeds, &paths, &laws,
                                     f64_conv, &z0, f64_conv, &zd0, f64_conv, &t, real_conv,
                                     &rtol, real_conv, &atol, int_conv, &max_steps, func_conv,
                                     &progress))
        return NULL;
    int nz = kf_mech_ncoord(m), python = 0;
    kf_mech_drive d[KF_KANE_MAX_NU];
    if (!f64_expect(&z0, 0, nz, "coordinates") && !f64_expect(&zd0, 0, nz, "coordinates") &&
        !drives_of(nz, &modes, &speeds, paths, laws, d, &python))
        result = simulate_of(m, d, python, f64_data(&z0), f64_data(&zd0), &t, rtol.v, atol.v,
                             max_steps.v, progress.fn);
    f64_release(&modes);
    f64_release(&speeds);
    f64_release(&z0);
    f64_release(&zd0);
    f64_release(&t);
    return result;
}

/* ---------------------------------------------------------------- elastic links, two ways */

/* links: a sequence of dicts {body, fe (a body capsule), fixed (mask), rayleigh (2,),
 * geometric}; the masks are held in masks[] until links_release. */
typedef struct links_arg {
    int n;
    kf_mech_link *L;
    PyArrayObject **masks;
} links_arg;

static void links_release(links_arg *a)
{
    for (int i = 0; a->masks && i < a->n; i++)
        Py_XDECREF(a->masks[i]);
    free(a->masks);
    free(a->L);
    memset(a, 0, sizeof *a);
}

static int links_of(PyObject *obj, links_arg *a)
{
    memset(a, 0, sizeof *a);
    PyObject *seq = PySequence_Fast(obj, "links must be a sequence of dicts");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    a->n = (int)n;
    a->L = calloc((size_t)(n ? n : 1), sizeof *a->L);
    a->masks = calloc((size_t)(n ? n : 1), sizeof *a->masks);
    if (!a->L || !a->masks) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PySequence_Fast_GET_ITEM(seq, i), *v;
        if (!PyDict_Check(d)) {
            fail(PyExc_TypeError, "links[%zd] must be a dict", (Py_ssize_t)i);
            goto fail;
        }
        static const char *keys[] = {"body", "fe", "fixed", "rayleigh", "geometric"};
        for (int k = 0; k < 5; k++)
            if (!PyDict_GetItemString(d, keys[k])) {
                fail(PyExc_KeyError, "links[%zd] has no %s", (Py_ssize_t)i, keys[k]);
                goto fail;
            }
        int_arg body = {"links body", 0, INT32_MAX, 0};
        if (!int_conv(PyDict_GetItemString(d, "body"), &body) ||
            !body_conv(PyDict_GetItemString(d, "fe"), &a->L[i].fe))
            goto fail;
        a->L[i].body = (int)body.v;
        mask_arg m = {"links fixed"};
        if (!mask_conv(PyDict_GetItemString(d, "fixed"), &m))
            goto fail;
        a->masks[i] = m.arr;
        if (PyArray_DIM(m.arr, 0) != kf_body_ndof(a->L[i].fe)) {
            fail(PyExc_ValueError, "links[%zd].fixed has %zd flags, its body %d DOFs",
                 (Py_ssize_t)i, (Py_ssize_t)PyArray_DIM(m.arr, 0), kf_body_ndof(a->L[i].fe));
            goto fail;
        }
        a->L[i].fixed = PyArray_DATA(m.arr);
        f64_arg r = {"links rayleigh", 1, {2}};
        if (!f64_conv(PyDict_GetItemString(d, "rayleigh"), &r))
            goto fail;
        memcpy(a->L[i].rayleigh, f64_data(&r), 2 * sizeof(double));
        f64_release(&r);
        v = PyDict_GetItemString(d, "geometric");
        int g = PyObject_IsTrue(v);
        if (g < 0)
            goto fail;
        a->L[i].geometric = g;
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    links_release(a);
    return -1;
}

/*
 * mech_flex_simulate(mech, links, modes, speeds, paths, laws, z0, zd0, x0, t, *, dt, rho_inf,
 *                    tol, max_iter, max_steps, progress, refine)
 *   -> {states (nt, 4 nz), elastic (nt, 2 nd), joints (nt, nj, 3), stats}
 */
static PyObject *py_mech_flex_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "links", "modes", "speeds", "paths", "laws", "z0", "zd0",
                             "x0", "t", "dt", "rho_inf", "tol", "max_iter", "max_steps",
                             "progress", "refine", NULL};
    kf_mech *m;
    PyObject *links, *paths, *laws, *result = NULL;
    f64_arg modes = {"modes", 1, {-1}}, speeds = {"speeds", 1, {-1}}, z0 = {"z0", 1, {-1}},
            zd0 = {"zd0", 1, {-1}}, x0 = {"x0", 1, {-1}}, t = {"t", 1, {-1}};
    real_arg dt = {"dt", 0.0}, rho = {"rho_inf", 0.9}, tol = {"tol", 1e-10};
    int_arg max_iter = {"max_iter", 1, 1000, 25}, max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    int_arg refine = {"refine", 1, 1000000, 1};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&OO&O&OOO&O&O&O&|$O&O&O&O&O&O&O&", kwlist,
                                     mech_conv, &m, &links, f64_conv, &modes, f64_conv, &speeds,
                                     &paths, &laws, f64_conv, &z0, f64_conv, &zd0, f64_conv, &x0,
                                     f64_conv, &t, real_conv, &dt, real_conv, &rho, real_conv,
                                     &tol, int_conv, &max_iter, int_conv, &max_steps, func_conv,
                                     &progress, int_conv, &refine))
        return NULL;
    int nz = kf_mech_ncoord(m), nj = kf_mech_njoint(m), python = 0;
    kf_mech_drive d[KF_KANE_MAX_NU];
    links_arg la = {0};
    kf_flexmech *w = NULL;
    PyArrayObject *states = NULL, *elastic = NULL, *joints = NULL;
    if (f64_expect(&z0, 0, nz, "coordinates") || f64_expect(&zd0, 0, nz, "coordinates") ||
        drives_of(nz, &modes, &speeds, paths, laws, d, &python) || links_of(links, &la))
        goto done;
    kf_error err = {0};
    int rc = kf_flexmech_create(&w, m, la.n, la.L, &err);
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    int nd = kf_flexmech_nelastic(w);
    if (f64_expect(&x0, 0, 2 * (npy_intp)nd, "d and d' of the elastic DOFs"))
        goto done;
    npy_intp nt = f64_dim(&t, 0), sd[2] = {nt, 4 * nz}, ed[2] = {nt, 2 * nd}, jd[3] = {nt, nj, 3};
    states = (PyArrayObject *)PyArray_SimpleNew(2, sd, NPY_DOUBLE);
    elastic = (PyArrayObject *)PyArray_SimpleNew(2, ed, NPY_DOUBLE);
    joints = (PyArrayObject *)PyArray_SimpleNew(3, jd, NPY_DOUBLE);
    if (!states || !elastic || !joints)
        goto done;
    poll_ctx pc = poll_start(progress.fn);
    kf_flex_opts o = {dt.v, rho.v, tol.v, (int)max_iter.v, steps_limit(max_steps.v), poll_cb, &pc,
                      (int)refine.v};
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
        result = Py_BuildValue("{s:O,s:O,s:O,s:N}", "states", states, "elastic", elastic,
                               "joints", joints, "stats", stats_dict(&st));
done:
    kf_flexmech_free(w);
    links_release(&la);
    Py_XDECREF(states);
    Py_XDECREF(elastic);
    Py_XDECREF(joints);
    f64_release(&modes);
    f64_release(&speeds);
    f64_release(&z0);
    f64_release(&zd0);
    f64_release(&x0);
    f64_release(&t);
    return result;
}

/*
 * mech_flex_dynamics(mech, links, modes, speeds, paths, laws, t, z0, z, zd, d, dd)
 *   -> {zdd (nz,), ddd (nd,), force (nz,), joints (nj, 3)} at one state
 */
static PyObject *py_mech_flex_dynamics(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"mech", "links", "modes", "speeds", "paths", "laws", "t", "z0",
                             "z", "zd", "d", "dd", NULL};
    kf_mech *m;
    PyObject *links, *paths, *laws, *result = NULL;
    f64_arg modes = {"modes", 1, {-1}}, speeds = {"speeds", 1, {-1}}, z0 = {"z0", 1, {-1}},
            z = {"z", 1, {-1}}, zd = {"zd", 1, {-1}}, dv = {"d", 1, {-1}}, dd = {"dd", 1, {-1}};
    real_arg t = {"t", 0.0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&OO&O&OOO&O&O&O&O&O&", kwlist, mech_conv, &m,
                                     &links, f64_conv, &modes, f64_conv, &speeds, &paths, &laws,
                                     real_conv, &t, f64_conv, &z0, f64_conv, &z, f64_conv, &zd,
                                     f64_conv, &dv, f64_conv, &dd))
        return NULL;
    int nz = kf_mech_ncoord(m), nj = kf_mech_njoint(m), python = 0;
    kf_mech_drive d[KF_KANE_MAX_NU];
    links_arg la = {0};
    kf_flexmech *w = NULL;
    PyArrayObject *zdd = NULL, *ddd = NULL, *force = NULL, *fj = NULL;
    if (f64_expect(&z0, 0, nz, "coordinates") || f64_expect(&z, 0, nz, "coordinates") ||
        f64_expect(&zd, 0, nz, "coordinates") ||
        drives_of(nz, &modes, &speeds, paths, laws, d, &python) || links_of(links, &la))
        goto done;
    kf_error err = {0};
    int rc = kf_flexmech_create(&w, m, la.n, la.L, &err);
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    npy_intp nd = kf_flexmech_nelastic(w), nzz = nz, jd[2] = {nj, 3};
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
    f64_release(&modes);
    f64_release(&speeds);
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

/* ================================================================ module */

#define KW(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef methods[] = {
    {"lapack_source", py_lapack_source, METH_NOARGS,
     "Where the LAPACK table came from ('linked', 'scipy ...'), or None."},
    {"lapack_linked", py_lapack_linked, METH_NOARGS,
     "True if the core was linked against a LAPACK at build time."},
    {"use_linked_lapack", py_use_linked_lapack, METH_NOARGS,
     "Fill the LAPACK table from the linked LAPACK."},
    KW("set_lapack_capsules", py_set_lapack_capsules,
       "set_lapack_capsules(lapack, blas, source): fill the LAPACK table from SciPy's "
       "cython_lapack/cython_blas __pyx_capi__ dicts."),
    /* bodies */
    {"element_kinds", py_element_kinds, METH_NOARGS,
     "element_kinds() -> {name: {kind, dim, nodes, dofs_per_node}} (kf_element_info)."},
    KW("body_create", py_body_create,
       "body_create(kind, coords (nnode, dim), conn (nel, nodes), section {E, rho, A, Izz, nu, "
       "thickness, plane_strain}, storage=-1) -> body (kf_body_create_storage; storage -1 "
       "automatic, 0 dense, 1 band, 2 CSR)."),
    KW("body_create_mixed", py_body_create_mixed,
       "body_create_mixed(kinds (nel,), coords (nnode, dim), conn (flat), ptr (nel + 1), "
       "section, storage=-1) -> body (kf_body_create_mixed: element e of kind kinds[e] on "
       "nodes conn[ptr[e]:ptr[e + 1]])"),
    KW("body_info", py_body_info, "body_info(body) -> dict of sizes and storage."),
    KW("body_pattern", py_body_pattern,
       "body_pattern(body) -> {indptr, indices}: the CSR pattern all matrices of a sparse body "
       "share (their values come from body_matrix, body_combine, motion_terms)."),
    KW("body_combine", py_body_combine,
       "body_combine(body, coef (dim, dim), stiffness=0) -> stiffness K + sum coef_ij S_ij "
       "(kf_body_combine); dense (n, n), or the values (nnz,) of a CSR body."),
    KW("body_matrix", py_body_matrix,
       "body_matrix(body, name, i=0, j=0): 'M', 'K', 'S' (i, j) as dense arrays (or the values "
       "(nnz,) of a CSR body); 's' (i, j), 'Mo' (i) as vectors."),
    KW("motion_terms", py_motion_terms,
       "motion_terms(body, frame (1,)) -> {C, K_eps, K_om, q_eps, q_om, q_a} "
       "(kf_body_motion_terms)."),
    KW("geometric_matrix", py_geometric_matrix,
       "geometric_matrix(body, coefficients (3,)) -> K_G for N(x) = c0 + c1 x + c2 x^2."),
    KW("axial_force", py_axial_force,
       "axial_force(body, frames (nt,), f_first, f_last, fixed_first, fixed_last) -> (nt, 3) "
       "coefficients of the quasi-static axial force (kf_body_axial_force)."),
    KW("inertia_forces_direct", py_inertia_forces_direct,
       "inertia_forces_direct(body, d, d_t, d_tt, frame (1,)) -> Kane's generalized inertia "
       "forces F* by quadrature (kf_body_inertia_forces_direct)."),
    /* eigenvalues */
    KW("eig_create", py_eig_create,
       "eig_create(body, fixed (ndof,), geometric=False) -> eigen context (kf_eig_create)."),
    KW("eig_create_projected", py_eig_create_projected,
       "eig_create_projected(body, basis (ndof, nfree), geometric=False) -> eigen context for "
       "d = basis z (kf_eig_create_projected)."),
    KW("eig_solve", py_eig_solve,
       "eig_solve(eig, frames (nt,), n_modes, include_eps, vectors, tracked, axial_force=None, "
       "progress=None) -> {eigenvalues, eigenvalues_imag, mode_shapes, stats} (kf_eig_solve)."),
    KW("eig_gyroscopic", py_eig_gyroscopic,
       "eig_gyroscopic(eig, frames (nt,), n_modes, include_eps, axial_force=None, progress=None) "
       "-> {s_re, s_im} (kf_eig_gyroscopic)."),
    KW("null_basis", py_null_basis,
       "null_basis(G (m, n), rtol=0) -> orthonormal basis (n, nfree) of the null space of G "
       "(kf_null_basis)."),
    /* motions and loads */
    KW("motion_constant", py_motion_constant,
       "motion_constant(omega, theta0, gravity (2,)) -> motion (kf_motion_constant)."),
    KW("motion_spline", py_motion_spline,
       "motion_spline(t (n,), coef, gravity (2,)) -> motion (kf_motion_spline)."),
    KW("motion_spin", py_motion_spin,
       "motion_spin(omega (3,), R0 (3, 3), gravity (3,)) -> motion (kf_motion_spin)."),
    KW("motion_rotation", py_motion_rotation,
       "motion_rotation(t (n,), coef, gravity (3,)) -> motion (kf_motion_rotation): coef from "
       "spline_fit of (quaternion w, x, y, z, origin x, y, z)."),
    KW("motion_function", py_motion_function,
       "motion_function(f) -> motion: f(t) -> (omega, eps, a_O), body frame."),
    KW("motion_eval", py_motion_eval, "motion_eval(motion, t (nt,)) -> frames (nt,)."),
    KW("spline_fit", py_spline_fit,
       "spline_fit(t (n,), y (n, nch)) -> not-a-knot cubic spline coefficients ((n-1)*nch*4,)."),
    KW("loads_harmonic", py_loads_harmonic,
       "loads_harmonic(amplitudes (nh, ndof), omega (nh,), phase (nh,), constant=None) -> loads "
       "(kf_loads_harmonic)."),
    KW("loads_function", py_loads_function, "loads_function(f) -> loads: f(t) -> Q (ndof,)."),
    /* time integration */
    KW("simulate", py_simulate,
       "simulate(body, fixed, motion, t_eval, *, loads, method, d0, v0, dt, rho_inf, rtol, atol, "
       "max_step, max_steps, limit, rayleigh_alpha, rayleigh_beta, damping, geometric, "
       "momentum, progress) -> {d, v, p, stats} (kf_body_ode + kf_integ)."),
    /* mechanisms */
    KW("mech_create", py_mech_create,
       "mech_create(mass (nb,), inertia (nb,), q0 (3 nb,), joints (nj,) joint_dtype, springs "
       "(ns,) spring_dtype, coords (nc,) coord_dtype, gravity (2,)) -> mech (kf_mech_create)."),
    KW("mech_describe", py_mech_describe,
       "mech_describe(mech) -> the description's arrays, as mech_create takes them."),
    KW("mech_kinematics", py_mech_kinematics,
       "mech_kinematics(mech, z (nt, nz), zd=None, zdd=None, frames=None (nf, 4)) -> {q, qd, "
       "qdd, A, c, Q, frames} (kf_mech_kinematics, kf_mech_applied, kf_mech_frame)."),
    KW("mech_joint_forces", py_mech_joint_forces,
       "mech_joint_forces(mech, states (nt, >= 3 nz), progress=None) -> {joints (nt, nj, 3), "
       "drive (nt, nz)} (kf_mech_reactions)."),
    KW("mech_accelerations", py_mech_accelerations,
       "mech_accelerations(mech, z (nt, nz), zd (nt, nz), tau=None) -> zdd (nt, nz) "
       "(kf_mech_kinematics, kf_mech_dynamics)."),
    KW("mech_simulate", py_mech_simulate,
       "mech_simulate(mech, modes, speeds, paths, laws, z0, zd0, t, *, rtol, atol, max_steps, "
       "progress) -> {states (nt, 4 nz), stats} (kf_mech_simulate)."),
    KW("mech_flex_simulate", py_mech_flex_simulate,
       "mech_flex_simulate(mech, links, modes, speeds, paths, laws, z0, zd0, x0, t, *, dt, "
       "rho_inf, tol, max_iter, max_steps, progress) -> {states, elastic, joints, stats} "
       "(kf_flexmech_run)."),
    KW("mech_flex_dynamics", py_mech_flex_dynamics,
       "mech_flex_dynamics(mech, links, modes, speeds, paths, laws, t, z0, z, zd, d, dd) -> "
       "{zdd, ddd, force, joints} at one state (kf_flexmech_dynamics)."),
    /* the wind pump */
    {"windpump_names", py_windpump_names, METH_NOARGS,
     "windpump_names() -> the wind-pump parameter names, in the order params vectors use."},
    KW("windpump_mech", py_windpump_mech,
       "windpump_mech(params) -> the wind pump as a mechanism (kf_windpump_create)."),
    KW("windpump_check", py_windpump_check,
       "windpump_check(params): ValueError naming the first invalid parameter."),
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "kanefem._core",
                                       "The C core of kanefem (internal).", -1, methods,
                                       NULL, NULL, NULL, NULL};

/* The structured dtype of struct kf_frame, from its offsets. */
static PyArray_Descr *make_frame_descr(void)
{
    PyObject *spec = Py_BuildValue(
        "{s:[sssss],s:[sssss],s:[nnnnn],s:n}", "names", "omega", "eps", "v", "a", "vdot",
        "formats", "(3,)f8", "(3,)f8", "(3,)f8", "(3,)f8", "(3,)f8", "offsets",
        (Py_ssize_t)offsetof(kf_frame, omega), (Py_ssize_t)offsetof(kf_frame, eps),
        (Py_ssize_t)offsetof(kf_frame, v), (Py_ssize_t)offsetof(kf_frame, a),
        (Py_ssize_t)offsetof(kf_frame, vdot), "itemsize", (Py_ssize_t)sizeof(kf_frame));
    PyArray_Descr *d = NULL;
    if (spec && !PyArray_DescrConverter(spec, &d))
        d = NULL;
    Py_XDECREF(spec);
    return d;
}

/* A structured dtype (aligned, so that NumPy checks the alignment the C
 * struct needs) from its fields' names, formats and offsets and the size. */
static PyArray_Descr *record_descr(int n, const char *const *names, const char *const *formats,
                                   const size_t *offsets, size_t size)
{
    PyObject *nm = PyList_New(n), *fm = PyList_New(n), *of = PyList_New(n), *spec = NULL;
    for (int i = 0; nm && fm && of && i < n; i++) {
        PyObject *a = PyUnicode_FromString(names[i]), *b = PyUnicode_FromString(formats[i]),
                 *c = PyLong_FromSize_t(offsets[i]);
        if (a)
            PyList_SET_ITEM(nm, i, a);
        if (b)
            PyList_SET_ITEM(fm, i, b);
        if (c)
            PyList_SET_ITEM(of, i, c);
        if (!a || !b || !c)
            goto done;
    }
    if (nm && fm && of)
        spec = Py_BuildValue("{s:O,s:O,s:O,s:n,s:O}", "names", nm, "formats", fm, "offsets", of,
                             "itemsize", (Py_ssize_t)size, "aligned", Py_True);
done:
    Py_XDECREF(nm);
    Py_XDECREF(fm);
    Py_XDECREF(of);
    PyArray_Descr *d = NULL;
    if (spec && !PyArray_DescrConverter(spec, &d))
        d = NULL;
    Py_XDECREF(spec);
    return d;
}

/* The typed boundary records: kf_joint, kf_spring, kf_coord field by field
 * ("i": C int, "d": C double, "S<n>": a NUL-padded name). */
static int make_record_descrs(void)
{
    static const char *const jn[] = {"kind", "body", "p0", "p1", "axis", "angle",
                                     "k",    "s0",   "c",  "F_r", "v_F"};
    static const char *const jf[] = {"i", "(2,)i", "(2,)d", "(2,)d", "(2,)d", "d",
                                     "d", "d",     "d",     "d",     "d"};
    const size_t jo[] = {offsetof(kf_joint, kind), offsetof(kf_joint, body),
                         offsetof(kf_joint, p0),   offsetof(kf_joint, p1),
                         offsetof(kf_joint, axis), offsetof(kf_joint, angle),
                         offsetof(kf_joint, k),    offsetof(kf_joint, s0),
                         offsetof(kf_joint, c),    offsetof(kf_joint, F_r),
                         offsetof(kf_joint, v_F)};
    static const char *const sn[] = {"body", "p0", "p1", "k", "L0", "c"};
    static const char *const sf[] = {"(2,)i", "(2,)d", "(2,)d", "d", "d", "d"};
    const size_t so[] = {offsetof(kf_spring, body), offsetof(kf_spring, p0),
                         offsetof(kf_spring, p1),   offsetof(kf_spring, k),
                         offsetof(kf_spring, L0),   offsetof(kf_spring, c)};
    static const char *const cn[] = {"kind", "index", "name"};
    char name_format[16];
    snprintf(name_format, sizeof name_format, "S%zu", sizeof(((kf_coord *)0)->name));
    const char *const cf[] = {"i", "i", name_format};
    const size_t co[] = {offsetof(kf_coord, kind), offsetof(kf_coord, index),
                         offsetof(kf_coord, name)};
    joint_descr = record_descr(11, jn, jf, jo, sizeof(kf_joint));
    spring_descr = record_descr(6, sn, sf, so, sizeof(kf_spring));
    coord_descr = record_descr(3, cn, cf, co, sizeof(kf_coord));
    return joint_descr && spring_descr && coord_descr ? 0 : -1;
}

/* A new exception class kanefem.<name>(bases...) with a docstring. */
static PyObject *new_error(PyObject *m, const char *name, const char *doc, PyObject *bases)
{
    char full[64];
    snprintf(full, sizeof full, "kanefem.%s", name);
    PyObject *cls = bases ? PyErr_NewExceptionWithDoc(full, doc, bases, NULL) : NULL;
    Py_XDECREF(bases);
    if (cls && PyModule_AddObjectRef(m, name, cls) < 0)
        Py_CLEAR(cls);
    return cls;
}

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    PyObject *linalg = PyImport_ImportModule("numpy.linalg");
    PyObject *np_linalg_error = linalg ? PyObject_GetAttrString(linalg, "LinAlgError") : NULL;
    Py_XDECREF(linalg);
    if (!np_linalg_error)
        goto fail;
    KanefemError = new_error(m, "KanefemError", "Base class of kanefem's own errors.",
                             PyTuple_Pack(1, PyExc_Exception));
    if (!KanefemError)
        goto fail;
    LinAlgError = new_error(m, "LinAlgError",
                            "A matrix was singular or not positive definite, or an eigen "
                            "solver failed (also a numpy.linalg.LinAlgError).",
                            PyTuple_Pack(2, KanefemError, np_linalg_error));
    DivergenceError = new_error(m, "DivergenceError",
                                "A time integration produced a non-finite or unbounded "
                                "solution; the message names the time.",
                                PyTuple_Pack(2, KanefemError, PyExc_ArithmeticError));
    GeometryError = new_error(m, "GeometryError",
                              "A mechanism cannot be assembled at the given position; the "
                              "message names the coordinates.",
                              PyTuple_Pack(2, KanefemError, PyExc_ValueError));
    StepLimitError = new_error(m, "StepLimitError",
                               "An integration used up its step budget (max_steps), or its step "
                               "size fell below what the time's precision resolves.",
                               PyTuple_Pack(1, KanefemError));
    RangeError = new_error(m, "RangeError",
                           "An input's scale takes a matrix or a result outside the double "
                           "range (overflow or underflow); the message names the input.",
                           PyTuple_Pack(3, KanefemError, PyExc_ValueError,
                                        PyExc_FloatingPointError));
    Py_DECREF(np_linalg_error);
    np_linalg_error = NULL;
    if (!LinAlgError || !DivergenceError || !GeometryError || !StepLimitError || !RangeError)
        goto fail;
    frame_descr = make_frame_descr();
    if (!frame_descr || PyModule_AddObjectRef(m, "frame_dtype", (PyObject *)frame_descr) < 0 ||
        PyModule_AddStringConstant(m, "core_version", KF_VERSION) < 0)
        goto fail;
    if (make_record_descrs() < 0 ||
        PyModule_AddObjectRef(m, "joint_dtype", (PyObject *)joint_descr) < 0 ||
        PyModule_AddObjectRef(m, "spring_dtype", (PyObject *)spring_descr) < 0 ||
        PyModule_AddObjectRef(m, "coord_dtype", (PyObject *)coord_descr) < 0)
        goto fail;
    return m;
fail:
    Py_XDECREF(np_linalg_error);
    Py_DECREF(m);
    return NULL;
}
