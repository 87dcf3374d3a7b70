/*
 * kf_py_integrate.c -- the binding of motions, loads, splines and the time integration of bodies
 * (kanefem._core; helpers in kf_python.h, module in kf_python.c).
 */
#include "kf_python.h"

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
    kf_motion_spinup spinup;
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

int motion_of(PyObject *obj, kf_motion_fn **fn, void **params)
{
    py_source *s;
    if (!motion_conv(obj, &s))
        return 0;
    *fn = s->motion;
    *params = s->params;
    return 1;
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
int callback_failed(kf_error *err, const char *what, double t)
{
    note_exception(what, t);
    err->code = KF_ECALLBACK;
    snprintf(err->arg, sizeof err->arg, "%s", what);
    snprintf(err->msg, sizeof err->msg, "the %s raised at t = %.17g", what, t);
    return -1;
}

/* A Python float or int (not a bool) as a double; 0 if obj is none (or does not fit). */
static int plain_number(PyObject *obj, double *x)
{
    if (PyBool_Check(obj) || !(PyFloat_Check(obj) || PyLong_Check(obj)))
        return 0;
    *x = PyFloat_AsDouble(obj);
    if (*x == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* Read a number (about z) or a 2- or 3-vector ((x, y) or (x, y, z)) into v[3]:
 * plain numbers and tuples or lists of them directly (a motion function in
 * plain math is called at every evaluation), anything else through NumPy. */
static int read_vector(PyObject *obj, const char *name, int scalar_is_z, double *v, double t)
{
    v[0] = v[1] = v[2] = 0.0;
    if (scalar_is_z && plain_number(obj, v + 2))
        return 0;
    if (PyTuple_Check(obj) || PyList_Check(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj), k = 0;
        while ((n == 2 || n == 3) && k < n && plain_number(PySequence_Fast_GET_ITEM(obj, k), v + k))
            k++;
        if ((n == 2 || n == 3) && k == n)
            return 0;
        v[0] = v[1] = v[2] = 0.0;
    }
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

static PyObject *py_motion_spinup(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"omega_s", "T_s", "theta0", "gravity", NULL};
    real_arg om = {"omega_s"}, ts = {"T_s"}, th = {"theta0"};
    f64_arg g = {"gravity", 1, {2}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&", kwlist, real_conv, &om, real_conv,
                                     &ts, real_conv, &th, f64_conv, &g))
        return NULL;
    py_source *s = NULL;
    if (!(ts.v > 0.0 && isfinite(om.v / ts.v) && isfinite(ts.v)))
        fail(PyExc_ValueError, "T_s = %g must be > 0 and finite, and omega_s / T_s finite "
             "(omega_s = %g)", ts.v, om.v);
    else if ((s = source_new("spinup"))) {
        s->spinup = (kf_motion_spinup){om.v, ts.v, th.v, {f64_data(&g)[0], f64_data(&g)[1]}};
        s->motion = kf_motion_spinup_eval;
        s->params = &s->spinup;
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

/* ---------------------------------------------------------------- a sparse solver from Python */

/*
 * A kf_linsol whose factorization is a Python callable factor(values, indptr,
 * indices) -> object with solve(b), handed the CSR matrix (copies of its
 * values and pattern) at every setup and called with the GIL re-acquired: the
 * core's integrators take SciPy's SuperLU this way (kanefem.sparse), and
 * Ctrl-C reaches the factorization through kanefem._interrupt there.
 */
typedef struct py_linsol {
    PyObject *factor; /* borrowed from the caller of simulate */
    PyObject *solver; /* the last factorization's object (owned) */
} py_linsol;

/* The core's record of a failure here (a Python exception, if any, stays set). */
static int py_linsol_error(kf_error *err, int code, const char *msg)
{
    err->code = code;
    snprintf(err->arg, sizeof err->arg, "factor");
    snprintf(err->msg, sizeof err->msg, "%s", msg);
    return code;
}

static int py_linsol_setup(void *content, const kf_mat *A, kf_error *err)
{
    py_linsol *c = content;
    if (A->kind != KF_CSR)
        return py_linsol_error(err, KF_EINVAL, "the Python sparse solver takes CSR matrices");
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = KF_OK, n = A->n, nnz = A->pat->nnz;
    npy_intp dv = nnz, dp = (npy_intp)n + 1;
    PyArrayObject *vals = (PyArrayObject *)PyArray_SimpleNew(1, &dv, NPY_DOUBLE);
    PyArrayObject *ptr = (PyArrayObject *)PyArray_SimpleNew(1, &dp, NPY_INT32);
    PyArrayObject *col = (PyArrayObject *)PyArray_SimpleNew(1, &dv, NPY_INT32);
    PyObject *r = NULL;
    if (!vals || !ptr || !col) {
        rc = py_linsol_error(err, KF_ENOMEM, "cannot allocate a sparse matrix");
        goto done;
    }
    memcpy(PyArray_DATA(vals), A->a, (size_t)nnz * sizeof(double));
    memcpy(PyArray_DATA(ptr), A->pat->ptr, ((size_t)n + 1) * sizeof(int));
    memcpy(PyArray_DATA(col), A->pat->col, (size_t)nnz * sizeof(int));
    r = PyObject_CallFunctionObjArgs(c->factor, (PyObject *)vals, (PyObject *)ptr,
                                     (PyObject *)col, NULL);
    if (!r) {
        rc = py_linsol_error(err, KF_ECALLBACK, "the sparse solver's factorization raised");
        goto done;
    }
    Py_XDECREF(c->solver);
    c->solver = r;
    r = NULL;
done:
    Py_XDECREF(vals);
    Py_XDECREF(ptr);
    Py_XDECREF(col);
    PyGILState_Release(g);
    return rc;
}

static int py_linsol_solve(void *content, int nrhs, double *b, int ldb, kf_error *err)
{
    py_linsol *c = content;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = KF_OK;
    npy_intp n = ldb;
    for (int k = 0; k < nrhs && !rc; k++) {
        double *x = b + (size_t)k * ldb;
        PyArrayObject *rhs = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
        PyObject *r = NULL;
        PyArrayObject *sol = NULL;
        if (!rhs) {
            rc = py_linsol_error(err, KF_ENOMEM, "cannot allocate a right-hand side");
            break;
        }
        memcpy(PyArray_DATA(rhs), x, (size_t)n * sizeof(double));
        r = PyObject_CallMethod(c->solver, "solve", "O", (PyObject *)rhs);
        if (r)
            sol = (PyArrayObject *)PyArray_FROMANY(r, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
        if (!sol)
            rc = py_linsol_error(err, KF_ECALLBACK, "the sparse solver's solve raised");
        else if (PyArray_DIM(sol, 0) != n)
            rc = py_linsol_error(err, KF_EINVAL, "the sparse solver returned a solution of "
                                 "another size");
        else
            memcpy(x, PyArray_DATA(sol), (size_t)n * sizeof(double));
        Py_XDECREF(sol);
        Py_XDECREF(r);
        Py_DECREF(rhs);
    }
    PyGILState_Release(g);
    return rc;
}

static void py_linsol_free(void *content)
{
    py_linsol *c = content;
    if (!c)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(c->solver);
    PyGILState_Release(g);
    free(c);
}

static const kf_linsol_ops py_linsol_ops = {"Python sparse solver", py_linsol_setup,
                                            py_linsol_solve, py_linsol_free};

/* kf_linsol_factory: params is the factor callable */
static int py_linsol_factory(kf_linsol **out, const kf_mat *like, void *params, kf_error *err)
{
    py_linsol *c = calloc(1, sizeof *c);
    if (!c)
        return py_linsol_error(err, KF_ENOMEM, "cannot allocate a sparse solver");
    c->factor = params;
    return kf_linsol_callback(out, like->n, &py_linsol_ops, c, err);
}

/*
 * simulate(body, fixed, motion, t_eval, *, loads=None, method, d0, v0, dt,
 *          rho_inf, rtol, atol, max_step, max_steps, limit, rayleigh,
 *          damping=None, geometric, momentum, progress=None, factor=None,
 *          basis_indptr=None, basis_indices=None, basis_values=None, basis_ncol=0)
 *   -> {"d", "v", "p" (or None), "stats"}
 * d0, v0 over all DOFs; d, v, p (nt, ndof), zero at the supports; the
 * arguments map one to one onto kf_body_ode_opts and kf_integ_opts.  With a
 * constraint basis T (ndof x basis_ncol, CSR) the unknowns are z (d = T z): d0, v0
 * and d, v, p have basis_ncol columns, and fixed only tells K_G's axial end fixity.
 */
static PyObject *py_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "fixed", "motion", "t_eval", "loads", "method", "d0", "v0",
                             "dt", "rho_inf", "rtol", "atol", "max_step", "max_steps", "limit",
                             "rayleigh_alpha", "rayleigh_beta", "damping", "geometric",
                             "momentum", "progress", "factor", "basis_indptr", "basis_indices",
                             "basis_values", "basis_ncol", NULL};
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
    func_arg progress = {"progress", NULL}, factor = {"factor", NULL};
    PyObject *bptr = Py_None, *bcol = Py_None, *bval = Py_None;
    int_arg ncol = {"basis_ncol", 0, INT32_MAX, 0};
    basis_arg basis = {0};
    if (!PyArg_ParseTupleAndKeywords(
            args, kw, "O&O&O&O&|$O&O&O&O&O&O&O&O&O&O&O&O&O&O&ppO&O&OOOO&", kwlist, body_conv, &b,
            mask_conv, &fixed, motion_conv, &motion, f64_conv, &t, loads_conv, &loads, int_conv,
            &method, f64_conv, &d0, f64_conv, &v0, real_conv, &dt, real_conv, &rho_inf,
            real_conv, &rtol, real_conv, &atol, real_conv, &max_step, int_conv, &max_steps,
            real_conv, &limit, real_conv, &ra, real_conv, &rb, f64_conv, &damp, &geometric,
            &want_p, func_conv, &progress, func_conv, &factor, &bptr, &bcol, &bval, int_conv,
            &ncol))
        return NULL;
    int ndof = kf_body_ndof(b);
    /* the unknowns: the free DOFs' values over all DOFs, or z of d = T z */
    int nz = ndof;
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
    if (basis_from(bptr, bcol, bval, ndof, &basis) < 0)
        goto done;
    if (basis.ptr) {
        bo.basis_ncol = (int)ncol.v;
        bo.basis_ptr = PyArray_DATA(basis.ptr);
        bo.basis_col = PyArray_DATA(basis.col);
        bo.basis_val = PyArray_DATA(basis.val);
        nz = (int)ncol.v;
    }
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
    if (!d0.arr || !v0.arr || f64_expect(&d0, 0, nz, basis.ptr ? "basis columns" : "all DOFs") ||
        f64_expect(&v0, 0, nz, basis.ptr ? "basis columns" : "all DOFs")) {
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
    npy_intp dims[2] = {nt, nz};
    if (nt > INT_LIMIT / (nz > 0 ? nz : 1) / 8) {
        PyErr_Format(PyExc_ValueError, "t_eval: %zd output times x %d DOFs is too large an "
                     "output", (Py_ssize_t)nt, nz);
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
    if (factor.fn) { /* the sparse factorization from Python (a CSR body) */
        io.linsol = py_linsol_factory;
        io.linsol_params = factor.fn;
    }
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
            x0[i] = dd0[map ? map[i] : i];
            x0[n + i] = vv0[map ? map[i] : i];
        }
        rc = kf_integ_run(integ, 0.0, x0, x0 + n, (int)nt, f64_data(&t), nz, map,
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
    basis_release(&basis);
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

/* This file's functions of kanefem._core (PyInit__core adds the table). */
PyMethodDef kf_py_integrate_methods[] = {
    /* motions and loads */
    KW("motion_constant", py_motion_constant,
       "motion_constant(omega, theta0, gravity (2,)) -> motion (kf_motion_constant)."),
    KW("motion_spinup", py_motion_spinup,
       "motion_spinup(omega_s, T_s, theta0, gravity (2,)) -> motion (kf_motion_spinup)."),
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
       "momentum, progress, factor) -> {d, v, p, stats} (kf_body_ode + kf_integ); factor(values, "
       "indptr, indices) -> object with solve(b): the sparse solver of a CSR body."),
    {NULL, NULL, 0, NULL}};
