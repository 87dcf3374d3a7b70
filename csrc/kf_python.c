/*
 * kf_python.c -- the CPython + NumPy binding of the kanefem core: the module
 * kanefem._core.  This file holds the module (exception classes, record dtypes,
 * PyInit__core) and the helpers every binding file shares (declared in
 * kf_python.h); kf_py_<module>.c binds the functions of kf_<module>.h and
 * brings its own method table.  The binding files (kf_python.c, kf_py_*.c,
 * kf_python.h) are the only ones that include Python.h.
 *
 * Thin by design, and regular, so that a reader can check it against the
 * module headers function by function:
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

#define KF_PYTHON_INIT /* this file fills NumPy's C-API table (import_array) */
#include "kf_python.h"

PyObject *KanefemError, *LinAlgError, *DivergenceError, *GeometryError, *StepLimitError,
    *RangeError;
/* the NumPy dtype of struct kf_frame (module attribute frame_dtype) */
PyArray_Descr *frame_descr;
/* the typed boundary records: kf_joint, kf_spring, kf_coord, kf_mech_drive,
 * kf_mech_link, kf_mech_axes (make_record_descrs) */
PyArray_Descr *joint_descr, *spring_descr, *coord_descr, *drive_descr, *link_descr, *axes_descr;
PyArray_Descr *sbody_descr, *sjoint_descr, *sspring_descr, *scoord_descr, *saxes_descr;

/* ================================================================ errors */

/* Set an exception with a printf-style message (PyErr_Format has no %g);
 * returns NULL. */
PyObject *fail(PyObject *type, const char *fmt, ...)
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
PyObject *raise_status(int rc, const kf_error *err)
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



int f64_conv(PyObject *obj, void *p)
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
int f64_expect(const f64_arg *a, int k, npy_intp n, const char *what)
{
    if (a->arr && PyArray_DIM(a->arr, k) != n) {
        fail(PyExc_ValueError, "%s must have %zd entries along axis %d (%s), got %zd", a->name,
             (Py_ssize_t)n, k, what, (Py_ssize_t)PyArray_DIM(a->arr, k));
        return -1;
    }
    return 0;
}


/* A step limit for the core's long (32 bits on Windows): larger ones mean no limit in
 * practice, so they saturate instead of wrapping around to 0 ("default") or below. */
long steps_limit(long long v)
{
    return v > LONG_MAX ? LONG_MAX : (long)v;
}

int int_conv(PyObject *obj, void *p)
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


int real_conv(PyObject *obj, void *p)
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


int mask_conv(PyObject *obj, void *p)
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


int frames_conv(PyObject *obj, void *p)
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


int rec_conv(PyObject *obj, void *p)
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
PyObject *new_records(PyArray_Descr *descr, const void *src, npy_intp n)
{
    Py_INCREF(descr); /* stolen */
    PyObject *a = PyArray_NewFromDescr(&PyArray_Type, descr, 1, &n, NULL, NULL, 0, NULL);
    if (a && n > 0)
        memcpy(PyArray_DATA((PyArrayObject *)a), src,
               (size_t)n * (size_t)PyArray_ITEMSIZE((PyArrayObject *)a));
    return a;
}


int func_conv(PyObject *obj, void *p)
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
PyArrayObject *int_vector(PyObject *obj, const char *name)
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

int basis_from(PyObject *ptr, PyObject *col, PyObject *val, int ndof, basis_arg *out)
{
    memset(out, 0, sizeof *out);
    if (ptr == Py_None && col == Py_None && val == Py_None)
        return 0;
    if (!(out->ptr = int_vector(ptr, "basis_indptr")) || !(out->col = int_vector(col, "basis_indices")) ||
        !(out->val = (PyArrayObject *)PyArray_FROM_OTF(val, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY)))
        goto fail;
    if (PyArray_NDIM(out->val) != 1 || PyArray_DIM(out->ptr, 0) != (npy_intp)ndof + 1 ||
        PyArray_DIM(out->col, 0) != PyArray_DIM(out->val, 0) ||
        ((int *)PyArray_DATA(out->ptr))[ndof] != PyArray_DIM(out->col, 0)) {
        PyErr_Format(PyExc_ValueError, "the basis must be a CSR matrix of %d rows (basis_indptr "
                     "of %d entries ending at the length of basis_indices and basis_values)",
                     ndof, ndof + 1);
        goto fail;
    }
    return 0;
fail:
    basis_release(out);
    return -1;
}

void basis_release(basis_arg *b)
{
    Py_CLEAR(b->ptr);
    Py_CLEAR(b->col);
    Py_CLEAR(b->val);
}

int body_conv(PyObject *obj, void *p)
{
    if (!PyCapsule_IsValid(obj, BODY_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "body must be a body made by kanefem._core.body_create");
        return 0;
    }
    *(kf_body **)p = PyCapsule_GetPointer(obj, BODY_CAPSULE);
    return 1;
}


int eig_conv(PyObject *obj, void *p)
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


/* A body-sized matrix: a dense (n, n) array, or for CSR storage the values
 * (nnz,) on the body's pattern (body_pattern), or for band storage the values
 * of the band's rows in CSR order: row i holds columns max(0, i - kl) ..
 * min(n - 1, i + ku), the band pattern Python builds from body_info's kl, ku
 * (O(n (kl + ku + 1)): a large beam's matrix never becomes n x n). */
PyObject *new_matrix_rowmajor(const kf_mat *m)
{
    if (m->kind == KF_CSR)
        return new_vector(m->a, m->pat->nnz);
    if (m->kind == KF_BAND) {
        int n = m->n, kl = m->kl, ku = m->ku;
        npy_intp nnz = 0;
        for (int i = 0; i < n; i++)
            nnz += (i + ku < n - 1 ? i + ku : n - 1) - (i - kl > 0 ? i - kl : 0) + 1;
        PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, &nnz, NPY_DOUBLE);
        if (!out)
            return NULL;
        double *v = PyArray_DATA(out);
        for (int i = 0; i < n; i++) {
            int j1 = i + ku < n - 1 ? i + ku : n - 1;
            for (int j = i - kl > 0 ? i - kl : 0; j <= j1; j++)
                *v++ = m->a[(size_t)(kl + ku + i - j) + (size_t)j * m->ld];
        }
        return (PyObject *)out;
    }
    npy_intp dims[2] = {m->n, m->n};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (out)
        kf_mat_to_rowmajor(m, PyArray_DATA(out));
    return (PyObject *)out;
}

static void free_values(PyObject *cap)
{
    free(PyCapsule_GetPointer(cap, "kanefem._core.values"));
}

PyObject *take_matrix_rowmajor(kf_mat *m)
{
    if (m->kind != KF_CSR || !m->a)
        return new_matrix_rowmajor(m);
    /* the values of a CSR matrix are its row-major values: the array takes them over (a
     * large mesh's motion terms are three arrays of the pattern's length) */
    npy_intp nnz = m->pat->nnz;
    PyObject *arr = PyArray_SimpleNewFromData(1, &nnz, NPY_DOUBLE, m->a);
    PyObject *cap = arr ? PyCapsule_New(m->a, "kanefem._core.values", free_values) : NULL;
    if (!cap || PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) {
        Py_XDECREF(cap); /* the capsule would free the values: the matrix keeps them */
        if (cap)
            m->a = NULL;
        Py_XDECREF(arr);
        return NULL;
    }
    m->a = NULL; /* the array's now (kf_mat_free skips it) */
    return arr;
}

PyObject *new_vector(const double *v, npy_intp n)
{
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (out)
        memcpy(PyArray_DATA(out), v, (size_t)n * sizeof(double));
    return (PyObject *)out;
}

/* The outcome of a core call that fills *out: the array (the reference moves to
 * the caller), or NULL with the exception of status rc. */
PyObject *array_or_raise(int rc, const kf_error *err, PyArrayObject **out)
{
    if (rc)
        return raise_status(rc, err);
    PyObject *r = (PyObject *)*out;
    *out = NULL;
    return r;
}

/* A zeroed array of n frames. */
PyArrayObject *new_frames(npy_intp n)
{
    Py_INCREF(frame_descr); /* stolen */
    return (PyArrayObject *)PyArray_Zeros(1, &n, frame_descr, 0);
}

/* The statistics of an integration: the same keys wherever it ran. */
PyObject *stats_dict(const kf_stats *s)
{
    return Py_BuildValue("{s:l,s:l,s:l,s:l,s:l}", "steps", s->steps, "rejected", s->rejected,
                         "evaluations", s->evaluations, "factorizations", s->factorizations,
                         "solves", s->solves);
}

PyObject *eig_stats_dict(const kf_eig_stats *s)
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

static double wall_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

poll_ctx poll_start(PyObject *fn)
{
    poll_ctx c = {fn, wall_seconds()};
    return c;
}

int poll_cb(double t, void *params)
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

/* ================================================================ module */

/* The functions: one method table per binding file, added in PyInit__core. */
static PyMethodDef *const method_tables[] = {kf_py_lapack_methods, kf_py_body_methods,
                                             kf_py_eig_methods, kf_py_integrate_methods,
                                             kf_py_mechanism_methods, kf_py_spatial_methods,
                                             kf_py_stress_methods, kf_py_floating_methods};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "kanefem._core",
                                       "The C core of kanefem (internal).", -1, NULL,
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

/* The typed boundary records: kf_joint, kf_spring, kf_coord, kf_mech_drive,
 * kf_mech_link, kf_mech_axes field by field ("i": C int, "d": C double, "S<n>": a NUL-padded name). */
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
    /* drives and links: their plain fields only; the pointers (path, law, params;
     * fe, fixed) lie in the record's unnamed bytes and the binding sets them */
    static const char *const dn[] = {"mode", "speed", "force"};
    static const char *const df[] = {"i", "d", "d"};
    const size_t dof[] = {offsetof(kf_mech_drive, mode), offsetof(kf_mech_drive, speed),
                          offsetof(kf_mech_drive, force)};
    static const char *const ln[] = {"body", "rayleigh", "geometric"};
    static const char *const lf[] = {"i", "(2,)d", "i"};
    const size_t lo[] = {offsetof(kf_mech_link, body), offsetof(kf_mech_link, rayleigh),
                         offsetof(kf_mech_link, geometric)};
    joint_descr = record_descr(11, jn, jf, jo, sizeof(kf_joint));
    spring_descr = record_descr(6, sn, sf, so, sizeof(kf_spring));
    coord_descr = record_descr(3, cn, cf, co, sizeof(kf_coord));
    static const char *const an[] = {"body", "o", "phi"};
    static const char *const af[] = {"i", "(2,)d", "d"};
    const size_t ao[] = {offsetof(kf_mech_axes, body), offsetof(kf_mech_axes, o),
                         offsetof(kf_mech_axes, phi)};
    drive_descr = record_descr(3, dn, df, dof, sizeof(kf_mech_drive));
    link_descr = record_descr(3, ln, lf, lo, sizeof(kf_mech_link));
    axes_descr = record_descr(3, an, af, ao, sizeof(kf_mech_axes));
    /* the spatial mechanisms' (kf_spatial.h) */
    static const char *const bn[] = {"mass", "inertia", "r", "quat"};
    static const char *const bf[] = {"d", "(3,3)d", "(3,)d", "(4,)d"};
    const size_t bo[] = {offsetof(kf_sbody, mass), offsetof(kf_sbody, inertia),
                         offsetof(kf_sbody, r), offsetof(kf_sbody, quat)};
    static const char *const sjn[] = {"kind", "body", "p0", "p1", "f0", "f1", "offset",
                                      "k",    "s0",   "c",  "F_r", "v_F", "name"};
    char sname[16];
    snprintf(sname, sizeof sname, "S%zu", sizeof(((kf_sjoint *)0)->name));
    const char *const sjf[] = {"i",     "(2,)i", "(3,)d", "(3,)d", "(3,3)d", "(3,3)d", "(3,)d",
                               "(3,)d", "(3,)d", "(3,)d", "(3,)d", "(3,)d",  sname};
    const size_t sjo[] = {offsetof(kf_sjoint, kind), offsetof(kf_sjoint, body),
                          offsetof(kf_sjoint, p0),   offsetof(kf_sjoint, p1),
                          offsetof(kf_sjoint, f0),   offsetof(kf_sjoint, f1),
                          offsetof(kf_sjoint, offset), offsetof(kf_sjoint, k),
                          offsetof(kf_sjoint, s0),   offsetof(kf_sjoint, c),
                          offsetof(kf_sjoint, F_r),  offsetof(kf_sjoint, v_F),
                          offsetof(kf_sjoint, name)};
    static const char *const ssn[] = {"body", "p0", "p1", "k", "L0", "c"};
    static const char *const ssf[] = {"(2,)i", "(3,)d", "(3,)d", "d", "d", "d"};
    const size_t sso[] = {offsetof(kf_sspring, body), offsetof(kf_sspring, p0),
                          offsetof(kf_sspring, p1),   offsetof(kf_sspring, k),
                          offsetof(kf_sspring, L0),   offsetof(kf_sspring, c)};
    static const char *const scn[] = {"kind", "index", "component", "name"};
    const char *const scf[] = {"i", "i", "i", sname};
    const size_t sco[] = {offsetof(kf_scoord, kind), offsetof(kf_scoord, index),
                          offsetof(kf_scoord, component), offsetof(kf_scoord, name)};
    static const char *const san[] = {"body", "o", "phi"};
    static const char *const saf[] = {"i", "(3,)d", "(3,3)d"};
    const size_t sao[] = {offsetof(kf_smech_axes, body), offsetof(kf_smech_axes, o),
                          offsetof(kf_smech_axes, phi)};
    sbody_descr = record_descr(4, bn, bf, bo, sizeof(kf_sbody));
    sjoint_descr = record_descr(13, sjn, sjf, sjo, sizeof(kf_sjoint));
    sspring_descr = record_descr(6, ssn, ssf, sso, sizeof(kf_sspring));
    scoord_descr = record_descr(4, scn, scf, sco, sizeof(kf_scoord));
    saxes_descr = record_descr(3, san, saf, sao, sizeof(kf_smech_axes));
    return joint_descr && spring_descr && coord_descr && drive_descr && link_descr &&
                   axes_descr && sbody_descr && sjoint_descr && sspring_descr && scoord_descr &&
                   saxes_descr
               ? 0
               : -1;
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
    for (size_t i = 0; i < sizeof method_tables / sizeof *method_tables; i++)
        if (PyModule_AddFunctions(m, method_tables[i]) < 0)
            goto fail;
    frame_descr = make_frame_descr();
    if (!frame_descr || PyModule_AddObjectRef(m, "frame_dtype", (PyObject *)frame_descr) < 0 ||
        PyModule_AddStringConstant(m, "core_version", KF_VERSION) < 0)
        goto fail;
    if (make_record_descrs() < 0 ||
        PyModule_AddObjectRef(m, "joint_dtype", (PyObject *)joint_descr) < 0 ||
        PyModule_AddObjectRef(m, "spring_dtype", (PyObject *)spring_descr) < 0 ||
        PyModule_AddObjectRef(m, "coord_dtype", (PyObject *)coord_descr) < 0 ||
        PyModule_AddObjectRef(m, "drive_dtype", (PyObject *)drive_descr) < 0 ||
        PyModule_AddObjectRef(m, "link_dtype", (PyObject *)link_descr) < 0 ||
        PyModule_AddObjectRef(m, "axes_dtype", (PyObject *)axes_descr) < 0 ||
        PyModule_AddObjectRef(m, "sbody_dtype", (PyObject *)sbody_descr) < 0 ||
        PyModule_AddObjectRef(m, "sjoint_dtype", (PyObject *)sjoint_descr) < 0 ||
        PyModule_AddObjectRef(m, "sspring_dtype", (PyObject *)sspring_descr) < 0 ||
        PyModule_AddObjectRef(m, "scoord_dtype", (PyObject *)scoord_descr) < 0 ||
        PyModule_AddObjectRef(m, "saxes_dtype", (PyObject *)saxes_descr) < 0)
        goto fail;
    return m;
fail:
    Py_XDECREF(np_linalg_error);
    Py_DECREF(m);
    return NULL;
}
