/*
 * kf_python.c -- the CPython + NumPy binding of the kanefem core: the module
 * kanefem._core.  The only file that includes Python.h.
 *
 * Thin by design: convert arguments (float64, C-contiguous), check shapes
 * and finiteness, release the GIL around the core, turn status codes into
 * exceptions and results into new arrays.  No physics here; conveniences
 * live in the Python package.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kanefem.h"

_Static_assert(sizeof(kf_kin) == 12 * sizeof(double), "kf_kin must be 12 packed doubles");

static PyObject *KanefemError, *LinAlgError, *DivergenceError, *GeometryError;

#define BODY_CAPSULE "kanefem._core.body"
#define EIG_CAPSULE "kanefem._core.eig"

/* ---------------------------------------------------------------- errors */

/* Set a Python exception from a core status; returns NULL for convenience. */
static PyObject *raise_status(int rc, const kf_error *err)
{
    if (PyErr_Occurred()) /* a callback already raised: keep its exception */
        return NULL;
    const char *msg = err->msg[0] ? err->msg : kf_strstatus(rc);
    PyObject *type;
    switch (rc) {
    case KF_EINVAL: type = PyExc_ValueError; break;
    case KF_ENOMEM: type = PyExc_MemoryError; break;
    case KF_EGEOM: type = GeometryError; break;
    case KF_EDIVERGE: type = DivergenceError; break;
    case KF_ESING:
    case KF_ENOTPD:
    case KF_ENOCONV:
    case KF_ELAPACK: type = LinAlgError; break;
    default: type = KanefemError; break;
    }
    /* make sure the message names the argument */
    if (err->arg[0] && !strstr(msg, err->arg))
        PyErr_Format(type, "%s: %s", err->arg, msg);
    else
        PyErr_SetString(type, msg);
    return NULL;
}

/* A float64 C-contiguous array of ndim in [mindim, maxdim]; all finite. */
static PyArrayObject *as_double(PyObject *obj, const char *name, int mindim, int maxdim)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, mindim, maxdim,
                                                        NPY_ARRAY_IN_ARRAY);
    if (!a) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a float array with %d to %d dimensions", name,
                     mindim, maxdim);
        return NULL;
    }
    const double *p = PyArray_DATA(a);
    npy_intp size = PyArray_SIZE(a);
    for (npy_intp i = 0; i < size; i++)
        if (!isfinite(p[i])) {
            char buf[64];
            snprintf(buf, sizeof buf, "%g", p[i]);
            PyErr_Format(PyExc_ValueError, "%s contains a non-finite value (%s) at flat index %zd",
                         name, buf, (Py_ssize_t)i);
            Py_DECREF(a);
            return NULL;
        }
    return a;
}

static PyObject *new_matrix_rowmajor(const kf_mat *m)
{
    npy_intp dims[2] = {m->n, m->n};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (!out)
        return NULL;
    kf_mat_to_rowmajor(m, PyArray_DATA(out));
    return (PyObject *)out;
}

static PyObject *new_vector(const double *v, npy_intp n)
{
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (!out)
        return NULL;
    memcpy(PyArray_DATA(out), v, (size_t)n * sizeof(double));
    return (PyObject *)out;
}

/* ---------------------------------------------------------------- LAPACK */

static PyObject *py_lapack_source(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    const char *s = kf_lapack_source();
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

static PyObject *py_lapack_linked(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyBool_FromLong(kf_lapack_linked_available());
}

static PyObject *py_use_linked_lapack(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    kf_error err = {0};
    int rc = kf_lapack_use_linked(&err);
    if (rc)
        return raise_status(rc, &err);
    Py_RETURN_NONE;
}

/* Fill the table from SciPy's cython_lapack / cython_blas __pyx_capi__ dicts. */
static PyObject *py_set_lapack_capsules(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *lapack, *blas;
    const char *source;
    if (!PyArg_ParseTuple(args, "O!O!s", &PyDict_Type, &lapack, &PyDict_Type, &blas, &source))
        return NULL;
    kf_lapack_table t;
    void **entries = (void **)&t;
    size_t count = sizeof t / sizeof(void *);
    for (size_t i = 0; i < count; i++) {
        const char *name = kf_lapack_names[i];
        PyObject *cap = PyDict_GetItemString(lapack, name);
        if (!cap)
            cap = PyDict_GetItemString(blas, name);
        if (!cap || !PyCapsule_CheckExact(cap))
            return PyErr_Format(KanefemError, "no capsule for LAPACK/BLAS routine '%s'", name);
        void *fn = PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
        if (!fn)
            return NULL;
        entries[i] = fn;
    }
    kf_error err = {0};
    int rc = kf_lapack_set(&t, source, &err);
    if (rc)
        return raise_status(rc, &err);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- bodies */

static void body_destructor(PyObject *cap)
{
    kf_body_free(PyCapsule_GetPointer(cap, BODY_CAPSULE));
}

static kf_body *get_body(PyObject *cap)
{
    if (!cap || !PyCapsule_IsValid(cap, BODY_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "body must be a body made by kanefem._core.body_create");
        return NULL;
    }
    return PyCapsule_GetPointer(cap, BODY_CAPSULE);
}

static kf_eig *get_eig(PyObject *cap)
{
    if (!PyCapsule_IsValid(cap, EIG_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "eig must be a context made by kanefem._core.eig_create");
        return NULL;
    }
    return PyCapsule_GetPointer(cap, EIG_CAPSULE);
}

static PyObject *py_body_create(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"kind", "coords", "conn", "E", "rho", "A", "I", NULL};
    int kind;
    PyObject *coords_obj, *conn_obj;
    kf_section sec = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iOOdddd", kwlist, &kind, &coords_obj, &conn_obj,
                                     &sec.E, &sec.rho, &sec.A, &sec.Izz))
        return NULL;
    int dim, nnode_el, ndofn;
    kf_error err = {0};
    int rc = kf_element_info(kind, &dim, &nnode_el, &ndofn, &err);
    if (rc)
        return raise_status(rc, &err);
    PyArrayObject *coords = NULL, *conn = NULL;
    PyObject *result = NULL;
    coords = as_double(coords_obj, "coords", 2, 2);
    if (!coords)
        goto fail;
    conn = (PyArrayObject *)PyArray_FROMANY(conn_obj, NPY_INT, 2, 2,
                                            NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!conn) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "conn must be a 2-D integer array");
        goto fail;
    }
    if (PyArray_DIM(coords, 1) != dim) {
        PyErr_Format(PyExc_ValueError, "coords must have shape (nnode, %d), got (%zd, %zd)", dim,
                     (Py_ssize_t)PyArray_DIM(coords, 0), (Py_ssize_t)PyArray_DIM(coords, 1));
        goto fail;
    }
    if (PyArray_DIM(conn, 1) != nnode_el) {
        PyErr_Format(PyExc_ValueError, "conn must have shape (nel, %d), got (%zd, %zd)", nnode_el,
                     (Py_ssize_t)PyArray_DIM(conn, 0), (Py_ssize_t)PyArray_DIM(conn, 1));
        goto fail;
    }
    if (PyArray_DIM(coords, 0) > INT32_MAX / 8 || PyArray_DIM(conn, 0) > INT32_MAX / 8) {
        PyErr_SetString(PyExc_ValueError, "mesh too large");
        goto fail;
    }
    int nnode = (int)PyArray_DIM(coords, 0), nel = (int)PyArray_DIM(conn, 0);
    kf_body *body = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_create(&body, kind, nnode, PyArray_DATA(coords), nel, PyArray_DATA(conn), &sec,
                        &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto fail;
    }
    result = PyCapsule_New(body, BODY_CAPSULE, body_destructor);
    if (!result)
        kf_body_free(body);
fail:
    Py_XDECREF(coords);
    Py_XDECREF(conn);
    return result;
}

static PyObject *py_body_info(PyObject *self, PyObject *cap)
{
    (void)self;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    const kf_mat *M = kf_body_mass(b);
    return Py_BuildValue("{s:i,s:i,s:i,s:s,s:i,s:i}", "ndof", kf_body_ndof(b), "dim",
                         kf_body_dim(b), "ndofn", kf_body_ndofn(b), "storage",
                         M->kind == KF_BAND ? "band" : "dense", "kl", M->kl, "ku", M->ku);
}

static PyObject *py_body_matrix(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap;
    const char *name;
    int i = 0, j = 0;
    if (!PyArg_ParseTuple(args, "Os|ii", &cap, &name, &i, &j))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    int dim = kf_body_dim(b);
    if (!strcmp(name, "M"))
        return new_matrix_rowmajor(kf_body_mass(b));
    if (!strcmp(name, "K"))
        return new_matrix_rowmajor(kf_body_stiffness(b));
    if (i < 0 || j < 0 || i >= dim || j >= dim)
        return PyErr_Format(PyExc_ValueError, "block index (%d, %d) is out of 0..%d", i, j,
                            dim - 1);
    if (!strcmp(name, "S"))
        return new_matrix_rowmajor(kf_body_S(b, i, j));
    if (!strcmp(name, "s"))
        return new_vector(kf_body_s(b, i, j), kf_body_ndof(b));
    if (!strcmp(name, "Mo"))
        return new_vector(kf_body_Mo(b, i), kf_body_ndof(b));
    return PyErr_Format(PyExc_ValueError, "unknown invariant '%s' (M, K, S, s, Mo)", name);
}

/* kin: (nt, 12) array laid out as kf_kin (omega, eps, v, a). */
static PyArrayObject *as_kin(PyObject *obj)
{
    PyArrayObject *k = as_double(obj, "motion", 2, 2);
    if (k && PyArray_DIM(k, 1) != 12) {
        PyErr_Format(PyExc_ValueError, "motion must have shape (nt, 12), got (%zd, %zd)",
                     (Py_ssize_t)PyArray_DIM(k, 0), (Py_ssize_t)PyArray_DIM(k, 1));
        Py_DECREF(k);
        return NULL;
    }
    return k;
}

static PyObject *py_motion_terms(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *kin_obj;
    if (!PyArg_ParseTuple(args, "OO", &cap, &kin_obj))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    PyArrayObject *kin = as_kin(kin_obj);
    if (!kin)
        return NULL;
    PyObject *result = NULL;
    const kf_mat *M = kf_body_mass(b);
    int n = kf_body_ndof(b);
    kf_mat C = {0}, Ke = {0}, Ko = {0};
    double *q = calloc((size_t)3 * n + 1, sizeof(double));
    kf_error err = {0};
    int rc = q ? KF_OK : KF_ENOMEM;
    if (!rc)
        rc = kf_mat_alloc_like(&C, M, &err);
    if (!rc)
        rc = kf_mat_alloc_like(&Ke, M, &err);
    if (!rc)
        rc = kf_mat_alloc_like(&Ko, M, &err);
    if (!rc && PyArray_DIM(kin, 0) != 1) {
        rc = KF_EINVAL;
        snprintf(err.msg, sizeof err.msg, "motion_terms takes one instant, got %zd",
                 (Py_ssize_t)PyArray_DIM(kin, 0));
    }
    if (!rc) {
        Py_BEGIN_ALLOW_THREADS
        rc = kf_body_motion_terms(b, (const kf_kin *)PyArray_DATA(kin), &C, &Ke, &Ko, q, q + n,
                                  q + 2 * n, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("NNNNNN", new_matrix_rowmajor(&C), new_matrix_rowmajor(&Ke),
                               new_matrix_rowmajor(&Ko), new_vector(q, n), new_vector(q + n, n),
                               new_vector(q + 2 * n, n));
    kf_mat_free(&C);
    kf_mat_free(&Ke);
    kf_mat_free(&Ko);
    free(q);
    Py_DECREF(kin);
    return result;
}

/* ---------------------------------------------------------------- eigenvalues */

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

static PyObject *py_eig_create(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *fixed_obj;
    int geometric = 0;
    if (!PyArg_ParseTuple(args, "OO|p", &cap, &fixed_obj, &geometric))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    PyArrayObject *fixed = (PyArrayObject *)PyArray_FROMANY(
        fixed_obj, NPY_UINT8, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!fixed)
        return NULL;
    PyObject *result = NULL;
    if (PyArray_DIM(fixed, 0) != kf_body_ndof(b)) {
        PyErr_Format(PyExc_ValueError, "supports mask has %zd entries, the body %d DOFs",
                     (Py_ssize_t)PyArray_DIM(fixed, 0), kf_body_ndof(b));
        goto done;
    }
    kf_eig *e = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eig_create(&e, b, PyArray_DATA(fixed), geometric ? KF_EIG_GEOMETRIC : 0, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = eig_capsule(e, cap);
done:
    Py_DECREF(fixed);
    return result;
}

/* Axial-force coefficients (nt, 3), or NULL for None; 0, or -1 with an exception. */
static int as_axial_force(PyObject *obj, npy_intp nt, PyArrayObject **out)
{
    *out = NULL;
    if (obj == Py_None)
        return 0;
    PyArrayObject *kg = as_double(obj, "axial_force", 2, 2);
    if (!kg)
        return -1;
    if (PyArray_DIM(kg, 0) != nt || PyArray_DIM(kg, 1) != 3) {
        PyErr_Format(PyExc_ValueError, "axial_force must have shape (%zd, 3), got (%zd, %zd)",
                     (Py_ssize_t)nt, (Py_ssize_t)PyArray_DIM(kg, 0),
                     (Py_ssize_t)PyArray_DIM(kg, 1));
        Py_DECREF(kg);
        return -1;
    }
    *out = kg;
    return 0;
}

static PyObject *py_eig_solve(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"eig", "motion", "n_modes", "include_eps", "vectors", "tracked",
                             "axial_force", NULL};
    PyObject *cap, *kin_obj, *kg_obj = Py_None;
    kf_eig_opts opt = {0};
    int tracked = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOippp|O", kwlist, &cap, &kin_obj, &opt.n_modes,
                                     &opt.include_eps, &opt.vectors, &tracked, &kg_obj))
        return NULL;
    opt.order = tracked ? KF_ORDER_TRACKED : KF_ORDER_ASCENDING;
    kf_eig *e = get_eig(cap);
    if (!e)
        return NULL;
    kf_body *b = get_body(PyCapsule_GetContext(cap));
    if (!b)
        return NULL;
    int n = kf_eig_nfree(e);
    if (opt.n_modes < 1 || opt.n_modes > n)
        return PyErr_Format(PyExc_ValueError, "n_modes = %d is out of 1..%d (free DOFs)",
                            opt.n_modes, n);
    PyArrayObject *kin = as_kin(kin_obj);
    if (!kin)
        return NULL;
    npy_intp nt = PyArray_DIM(kin, 0), m = opt.n_modes, ndof = kf_body_ndof(b);
    PyObject *result = NULL;
    PyArrayObject *re = NULL, *im = NULL, *modes = NULL, *kg = NULL;
    if (as_axial_force(kg_obj, nt, &kg))
        goto done;
    npy_intp d2[2] = {nt, m}, d3[3] = {nt, ndof, m};
    if (nt > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many instants");
        goto done;
    }
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
    rc = kf_eig_solve(e, (int)nt, (const kf_kin *)PyArray_DATA(kin),
                      kg ? PyArray_DATA(kg) : NULL, &opt, PyArray_DATA(re),
                      PyArray_DATA(im), modes ? PyArray_DATA(modes) : NULL, &st, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    if (!modes) {
        modes = (PyArrayObject *)Py_None;
        Py_INCREF(Py_None);
    }
    result = Py_BuildValue("NNN{s:s,s:i,s:i,s:i}", re, im, modes, "solver",
                           st.solver == KF_SOLVER_GENERAL ? "general" : "symmetric",
                           "full_solves", st.full_solves, "continued", st.continued,
                           "iterations", st.iterations);
    re = im = modes = NULL; /* references passed on ("N") */
done:
    Py_XDECREF(re);
    Py_XDECREF(im);
    Py_XDECREF(modes);
    Py_XDECREF(kg);
    Py_DECREF(kin);
    return result;
}

/* ---------------------------------------------------------------- geometric stiffness */

static PyObject *py_geometric_matrix(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap;
    double c[3];
    if (!PyArg_ParseTuple(args, "O(ddd)", &cap, &c[0], &c[1], &c[2]))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    const kf_mat *M = kf_body_mass(b);
    kf_mat G = {0};
    kf_error err = {0};
    PyObject *result = NULL;
    int rc = kf_mat_alloc_like(&G, M, &err);
    if (!rc)
        rc = kf_body_geometric(b, c, 0.0, &G, &err);
    if (rc)
        raise_status(rc, &err);
    else
        result = new_matrix_rowmajor(&G);
    kf_mat_free(&G);
    return result;
}

static PyObject *py_axial_force(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *kin_obj;
    double f_first, f_last;
    int fixed_first, fixed_last;
    if (!PyArg_ParseTuple(args, "OOddpp", &cap, &kin_obj, &f_first, &f_last, &fixed_first,
                          &fixed_last))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    PyArrayObject *kin = as_kin(kin_obj);
    if (!kin)
        return NULL;
    npy_intp dims[2] = {PyArray_DIM(kin, 0), 3};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (!out) {
        Py_DECREF(kin);
        return NULL;
    }
    const kf_kin *k = PyArray_DATA(kin);
    double *c = PyArray_DATA(out);
    kf_error err = {0};
    int rc = KF_OK;
    for (npy_intp t = 0; t < dims[0] && !rc; t++)
        rc = kf_body_axial_force(b, &k[t], f_first, f_last, fixed_first, fixed_last, c + 3 * t,
                                 &err);
    Py_DECREF(kin);
    if (rc) {
        Py_DECREF(out);
        return raise_status(rc, &err);
    }
    return (PyObject *)out;
}

/* ================================================================ mechanisms (issue 4)
 *
 * The wind pump (kf_mechanism.c) and the gyroscopic eigenvalues (kf_eig.c).
 * Parameters cross as a float vector in the order of kf_windpump_names.
 */

_Static_assert(sizeof(kf_windpump) == KF_WINDPUMP_NPARAM * sizeof(double),
               "kf_windpump must be packed doubles");

static PyObject *py_windpump_names(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    PyObject *t = PyTuple_New(KF_WINDPUMP_NPARAM);
    for (int k = 0; t && k < KF_WINDPUMP_NPARAM; k++) {
        PyObject *s = PyUnicode_FromString(kf_windpump_names[k]);
        if (!s) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, s);
    }
    return t;
}

static int as_windpump(PyObject *obj, kf_windpump *p);

static PyObject *py_windpump_check(PyObject *self, PyObject *params)
{
    (void)self;
    kf_windpump p;
    if (as_windpump(params, &p))
        return NULL;
    Py_RETURN_NONE;
}

/* params -> struct, validated by the core; 0 or -1 with an exception set. */
static int as_windpump(PyObject *obj, kf_windpump *p)
{
    PyArrayObject *a = as_double(obj, "params", 1, 1);
    if (!a)
        return -1;
    if (PyArray_DIM(a, 0) != KF_WINDPUMP_NPARAM) {
        PyErr_Format(PyExc_ValueError, "params must have %d entries (kanefem._core."
                     "windpump_names()), got %zd", KF_WINDPUMP_NPARAM,
                     (Py_ssize_t)PyArray_DIM(a, 0));
        Py_DECREF(a);
        return -1;
    }
    memcpy(p, PyArray_DATA(a), sizeof *p);
    Py_DECREF(a);
    kf_error err = {0};
    int rc = kf_windpump_check(p, &err);
    if (rc) {
        raise_status(rc, &err);
        return -1;
    }
    return 0;
}

/* A float array (nt, cols) with cols >= mincols; NULL with an exception. */
static PyArrayObject *as_rows(PyObject *obj, const char *name, npy_intp mincols)
{
    PyArrayObject *a = as_double(obj, name, 2, 2);
    if (a && PyArray_DIM(a, 1) < mincols) {
        PyErr_Format(PyExc_ValueError, "%s must have shape (nt, %zd), got (%zd, %zd)", name,
                     (Py_ssize_t)mincols, (Py_ssize_t)PyArray_DIM(a, 0),
                     (Py_ssize_t)PyArray_DIM(a, 1));
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyObject *py_windpump_kinematics(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *p_obj, *q_obj, *u_obj, *ud_obj;
    if (!PyArg_ParseTuple(args, "OOOO", &p_obj, &q_obj, &u_obj, &ud_obj))
        return NULL;
    kf_windpump p;
    if (as_windpump(p_obj, &p))
        return NULL;
    enum { NOUT = 13 };
    static const char *names[NOUT] = {"theta", "omega", "eps", "mu", "points", "r", "v",
                                      "a", "A", "B", "vB", "aB", "lever"};
    PyArrayObject *q = NULL, *u = NULL, *ud = NULL, *o[NOUT] = {NULL};
    PyObject *result = NULL;
    q = as_rows(q_obj, "q", 2);
    u = q ? as_rows(u_obj, "u", 2) : NULL;
    ud = u ? as_rows(ud_obj, "udot", 2) : NULL;
    if (!ud)
        goto done;
    npy_intp nt = PyArray_DIM(q, 0);
    if (PyArray_DIM(u, 0) != nt || PyArray_DIM(ud, 0) != nt) {
        PyErr_SetString(PyExc_ValueError, "q, u and udot must have the same number of rows");
        goto done;
    }
    npy_intp shapes[NOUT][3] = {{nt, 3}, {nt, 3}, {nt, 3}, {nt}, {nt, 4, 2}, {nt, KF_WP_NR},
                                {nt, KF_WP_NR}, {nt, KF_WP_NR}, {nt, KF_WP_NR, 2},
                                {nt, KF_WP_NR, 3}, {nt, 2}, {nt, 2}, {nt, 12}};
    static const int ndims[NOUT] = {2, 2, 2, 1, 3, 2, 2, 2, 3, 3, 2, 2, 2};
    for (int k = 0; k < NOUT; k++)
        if (!(o[k] = (PyArrayObject *)PyArray_SimpleNew(ndims[k], shapes[k], NPY_DOUBLE)))
            goto done;
    kf_error err = {0};
    int rc = KF_OK;
    const double *qd = PyArray_DATA(q), *uu = PyArray_DATA(u), *udd = PyArray_DATA(ud);
    npy_intp sq = PyArray_DIM(q, 1), su = PyArray_DIM(u, 1), sd = PyArray_DIM(ud, 1);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp t = 0; t < nt && !rc; t++) {
        kf_windpump_kin k;
        rc = kf_windpump_kinematics(&p, qd + t * sq, uu + t * su, udd + t * sd, &k, &err);
        if (rc)
            break;
        const double *src[NOUT] = {k.theta, k.omega, k.eps, &k.mu, k.pts, k.r, k.v,
                                   k.a, k.A, k.B, k.vB, k.aB, (const double *)&k.lever};
        for (int j = 0; j < NOUT; j++) {
            npy_intp per = PyArray_SIZE(o[j]) / (nt > 0 ? nt : 1);
            memcpy((double *)PyArray_DATA(o[j]) + t * per, src[j], (size_t)per * sizeof(double));
        }
    }
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = PyDict_New();
    for (int k = 0; result && k < NOUT; k++)
        if (PyDict_SetItemString(result, names[k], (PyObject *)o[k]) < 0)
            Py_CLEAR(result);
done:
    for (int k = 0; k < NOUT; k++)
        Py_XDECREF(o[k]);
    Py_XDECREF(q);
    Py_XDECREF(u);
    Py_XDECREF(ud);
    return result;
}

/* A Python torque law called from the core (the GIL is held: see below). */
static int py_torque_law(void *params, double t, double alpha, double omega1, double *out)
{
    PyObject *r = PyObject_CallFunction((PyObject *)params, "ddd", t, alpha, omega1);
    if (!r)
        return 1;
    double v = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (v == -1.0 && PyErr_Occurred())
        return 1;
    *out = v;
    return 0;
}

static PyObject *py_windpump_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"params", "mode", "t", "y0", "omega", "torque", "rtol", "atol",
                             "max_steps", NULL};
    PyObject *p_obj, *t_obj, *y0_obj, *torque = Py_None;
    int mode;
    double omega = 0.0;
    kf_ode_opts opts = {.rtol = 1e-9, .atol = 1e-12};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiOO|dOddl", kwlist, &p_obj, &mode, &t_obj,
                                     &y0_obj, &omega, &torque, &opts.rtol, &opts.atol,
                                     &opts.max_steps))
        return NULL;
    kf_windpump p;
    if (as_windpump(p_obj, &p))
        return NULL;
    if (mode == KF_DRIVE_TORQUE && !PyCallable_Check(torque))
        return PyErr_Format(PyExc_TypeError, "torque must be callable f(t, alpha, omega1)");
    PyArrayObject *t = as_double(t_obj, "t", 1, 1), *y0 = NULL, *states = NULL;
    PyObject *result = NULL;
    if (!t || !(y0 = as_double(y0_obj, "y0", 1, 1)))
        goto done;
    if (PyArray_DIM(y0, 0) != 4) {
        PyErr_SetString(PyExc_ValueError, "y0 must be (alpha, x_D, omega1, xdot_D)");
        goto done;
    }
    npy_intp nt = PyArray_DIM(t, 0), dims[2] = {nt, KF_WINDPUMP_NSTATE};
    if (nt > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many output times");
        goto done;
    }
    if (!(states = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE)))
        goto done;
    kf_windpump_drive d = {mode, omega, NULL, NULL};
    if (mode == KF_DRIVE_TORQUE) {
        d.torque = py_torque_law;
        d.params = torque;
    }
    kf_ode_stats st = {0};
    kf_error err = {0};
    int rc;
    if (mode == KF_DRIVE_TORQUE) {
        /* the torque law is Python: keep the GIL */
        rc = kf_windpump_simulate(&p, &d, PyArray_DATA(y0), (int)nt, PyArray_DATA(t), &opts,
                                  PyArray_DATA(states), &st, &err);
    } else {
        Py_BEGIN_ALLOW_THREADS
        rc = kf_windpump_simulate(&p, &d, PyArray_DATA(y0), (int)nt, PyArray_DATA(t), &opts,
                                  PyArray_DATA(states), &st, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = Py_BuildValue("N{s:l,s:l,s:l}", states, "steps", st.steps, "rejected",
                           st.rejected, "nfev", st.nfev);
    states = NULL; /* passed on ("N") */
done:
    Py_XDECREF(t);
    Py_XDECREF(y0);
    Py_XDECREF(states);
    return result;
}

static PyObject *py_windpump_joint_forces(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *p_obj, *s_obj;
    if (!PyArg_ParseTuple(args, "OO", &p_obj, &s_obj))
        return NULL;
    kf_windpump p;
    if (as_windpump(p_obj, &p))
        return NULL;
    PyArrayObject *s = as_rows(s_obj, "states", 6), *f = NULL;
    if (!s)
        return NULL;
    npy_intp nt = PyArray_DIM(s, 0), cols = PyArray_DIM(s, 1), dims[2] = {nt, KF_WINDPUMP_NFORCE};
    if (!(f = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE))) {
        Py_DECREF(s);
        return NULL;
    }
    kf_error err = {0};
    int rc = KF_OK;
    const double *sd = PyArray_DATA(s);
    double *fd = PyArray_DATA(f);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp t = 0; t < nt && !rc; t++) {
        /* a row: alpha, x_D, omega1, xdot_D, eps1, xddot_D */
        const double *row = sd + t * cols;
        double q[2] = {row[0], row[1]}, u[2] = {row[2], row[3]}, ud[2] = {row[4], row[5]};
        kf_windpump_kin k;
        rc = kf_windpump_kinematics(&p, q, u, ud, &k, &err);
        if (!rc)
            rc = kf_windpump_joint_forces(&p, &k, fd + t * KF_WINDPUMP_NFORCE, &err);
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(s);
    if (rc) {
        Py_DECREF(f);
        return raise_status(rc, &err);
    }
    return (PyObject *)f;
}

static PyObject *py_eig_gyroscopic(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"eig", "motion", "n_modes", "include_eps", "axial_force", NULL};
    PyObject *cap, *kin_obj, *kg_obj = Py_None;
    kf_eig_opts opt = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOip|O", kwlist, &cap, &kin_obj, &opt.n_modes,
                                     &opt.include_eps, &kg_obj))
        return NULL;
    kf_eig *e = get_eig(cap);
    if (!e)
        return NULL;
    int n = kf_eig_nfree(e);
    if (opt.n_modes < 1 || opt.n_modes > n)
        return PyErr_Format(PyExc_ValueError, "n_modes = %d is out of 1..%d (free DOFs)",
                            opt.n_modes, n);
    PyArrayObject *kin = as_kin(kin_obj);
    if (!kin)
        return NULL;
    npy_intp nt = PyArray_DIM(kin, 0), d2[2] = {nt, opt.n_modes};
    PyArrayObject *re = NULL, *im = NULL, *kg = NULL;
    PyObject *result = NULL;
    if (as_axial_force(kg_obj, nt, &kg))
        goto done;
    if (nt > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many instants");
        goto done;
    }
    re = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
    im = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
    if (!re || !im)
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eig_gyroscopic(e, (int)nt, (const kf_kin *)PyArray_DATA(kin),
                           kg ? PyArray_DATA(kg) : NULL, &opt, PyArray_DATA(re),
                           PyArray_DATA(im), &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = Py_BuildValue("NN", re, im);
    re = im = NULL;
done:
    Py_XDECREF(re);
    Py_XDECREF(im);
    Py_XDECREF(kg);
    Py_DECREF(kin);
    return result;
}

/* ================================================================ time integration */

/*
 * Python callables called from the core during integration.  The core runs
 * with the GIL released; each callback takes it (PyGILState_Ensure) only
 * while it calls Python.  A Python exception stays set, the callback returns
 * -1 (stop) with a message naming the time, and the caller re-raises it.
 */
typedef struct py_motion_ctx {
    PyObject *fn;
    int dim;
} py_motion_ctx;

typedef struct py_loads_ctx {
    PyObject *fn;
    int ndof;
} py_loads_ctx;

typedef struct py_progress_ctx {
    PyObject *fn; /* may be NULL: then only Ctrl-C is checked */
    double last;  /* wall clock of the last call [s] */
} py_progress_ctx;

/* Add a note "raised by the <what> at t = ..." to the pending exception
 * (Python >= 3.11; older versions keep the exception as it is). */
static void note_exception(const char *what, double t)
{
    char buf[160];
    snprintf(buf, sizeof buf, "raised by the %s at t = %.17g", what, t);
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc && tb)
        PyException_SetTraceback(exc, tb);
#endif
    if (exc && PyObject_HasAttrString(exc, "add_note")) {
        PyObject *r = PyObject_CallMethod(exc, "add_note", "s", buf);
        if (!r)
            PyErr_Clear();
        Py_XDECREF(r);
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(type, exc, tb);
#endif
}

/* The core's record of a failed Python callback (the exception itself stays set). */
static void cb_error(kf_error *err, const char *what, double t)
{
    err->code = KF_ECALLBACK;
    snprintf(err->arg, sizeof err->arg, "%s", what);
    snprintf(err->msg, sizeof err->msg, "the %s function raised at t = %.17g", what, t);
}

static int py_motion_cb(double t, kf_frame *out, void *params, kf_error *err)
{
    py_motion_ctx *c = params;
    int rc = -1;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction(c->fn, "d", t), *seq = NULL, *a = NULL;
    if (!r)
        goto done;
    seq = PySequence_Fast(r, "the motion function must return (omega, eps, a_O)");
    if (!seq)
        goto done;
    if (PySequence_Fast_GET_SIZE(seq) != 3) {
        PyErr_Format(PyExc_ValueError,
                     "the motion function must return (omega, eps, a_O), got %zd values at t = %g",
                     (Py_ssize_t)PySequence_Fast_GET_SIZE(seq), t);
        goto done;
    }
    double om = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, 0));
    double ep = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, 1));
    if (PyErr_Occurred())
        goto done;
    a = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, 2), "a_O must be a sequence");
    if (!a)
        goto done;
    if (PySequence_Fast_GET_SIZE(a) != c->dim) {
        PyErr_Format(PyExc_ValueError, "a_O from the motion function must have %d components, "
                     "got %zd at t = %g", c->dim, (Py_ssize_t)PySequence_Fast_GET_SIZE(a), t);
        goto done;
    }
    memset(out, 0, sizeof *out);
    out->kin.omega[2] = om;
    out->kin.eps[2] = ep;
    for (int i = 0; i < c->dim; i++)
        out->kin.a[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(a, i));
    if (!PyErr_Occurred())
        rc = 0;
done:
    if (rc) {
        note_exception("motion function", t);
        cb_error(err, "motion", t);
    }
    Py_XDECREF(a);
    Py_XDECREF(seq);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return rc;
}

static int py_loads_cb(double t, double *Q, void *params, kf_error *err)
{
    py_loads_ctx *c = params;
    int rc = -1;
    PyGILState_STATE g = PyGILState_Ensure();
    PyArrayObject *q = NULL;
    PyObject *r = PyObject_CallFunction(c->fn, "d", t);
    if (!r)
        goto done;
    q = (PyArrayObject *)PyArray_FROMANY(r, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!q)
        goto done;
    if (PyArray_DIM(q, 0) != c->ndof) {
        PyErr_Format(PyExc_ValueError, "loads(t) must return a vector of %d values (all DOFs), "
                     "got %zd at t = %g", c->ndof, (Py_ssize_t)PyArray_DIM(q, 0), t);
        goto done;
    }
    const double *v = PyArray_DATA(q);
    for (int i = 0; i < c->ndof; i++)
        if (!isfinite(v[i])) {
            char buf[32];
            snprintf(buf, sizeof buf, "%g", v[i]);
            PyErr_Format(PyExc_ValueError, "loads(t) returned %s for DOF %d at t = %.17g", buf, i,
                         t);
            goto done;
        }
    memcpy(Q, v, (size_t)c->ndof * sizeof(double));
    rc = 0;
done:
    if (rc) {
        note_exception("loads function", t);
        cb_error(err, "loads", t);
    }
    Py_XDECREF(q);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return rc;
}

static double wall_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Called after every step; takes the GIL at most every 0.1 s of wall time to
 * report progress and let Ctrl-C stop a long run. */
static int py_progress_cb(double t, void *params)
{
    py_progress_ctx *c = params;
    double now = wall_seconds();
    if (now - c->last < 0.1)
        return 0;
    c->last = now;
    int stop = 0;
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyErr_CheckSignals() < 0)
        stop = 1;
    else if (c->fn) {
        PyObject *r = PyObject_CallFunction(c->fn, "d", t);
        if (!r)
            stop = 1;
        Py_XDECREF(r);
    }
    PyGILState_Release(g);
    return stop;
}

/*
 * A motion from its Python description:
 *   ("constant", omega, theta0, gx, gy) | ("spline", t, coef, gx, gy) | ("function", f).
 * The arrays of a spline are returned (new references) in *keep.
 */
typedef struct motion_spec {
    kf_motion_fn *fn;
    void *params;
    kf_motion_constant constant;
    kf_motion_spline spline;
    py_motion_ctx py;
    PyArrayObject *t, *coef;
} motion_spec;

static int parse_motion(PyObject *obj, int dim, motion_spec *m)
{
    memset(m, 0, sizeof *m);
    const char *kind;
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) < 2 ||
        !(kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(obj, 0)))) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "motion must be a (kind, ...) tuple from kanefem.Motion");
        return -1;
    }
    if (!strcmp(kind, "constant")) {
        kf_motion_constant *c = &m->constant;
        if (!PyArg_ParseTuple(obj, "sdddd", &kind, &c->omega, &c->theta0, &c->g[0], &c->g[1]))
            return -1;
        m->fn = kf_motion_constant_eval;
        m->params = c;
    } else if (!strcmp(kind, "spline")) {
        PyObject *t_obj, *c_obj;
        kf_motion_spline *sp = &m->spline;
        if (!PyArg_ParseTuple(obj, "sOOdd", &kind, &t_obj, &c_obj, &sp->g[0], &sp->g[1]))
            return -1;
        m->t = as_double(t_obj, "motion samples t", 1, 1);
        m->coef = m->t ? as_double(c_obj, "motion spline coefficients", 1, 1) : NULL;
        if (!m->coef)
            return -1;
        npy_intp n = PyArray_DIM(m->t, 0);
        if (n < 4 || n > INT32_MAX || PyArray_DIM(m->coef, 0) != (n - 1) * 12) {
            PyErr_SetString(PyExc_ValueError, "motion spline: coefficients do not match the "
                                              "samples (use kanefem.Motion.from_samples)");
            return -1;
        }
        sp->n = (int)n;
        sp->t = PyArray_DATA(m->t);
        sp->coef = PyArray_DATA(m->coef);
        m->fn = kf_motion_spline_eval;
        m->params = sp;
    } else if (!strcmp(kind, "function")) {
        PyObject *f;
        if (!PyArg_ParseTuple(obj, "sO", &kind, &f))
            return -1;
        if (!PyCallable_Check(f)) {
            PyErr_SetString(PyExc_TypeError, "the motion function must be callable");
            return -1;
        }
        m->py.fn = f; /* borrowed: obj holds it */
        m->py.dim = dim;
        m->fn = py_motion_cb;
        m->params = &m->py;
    } else {
        PyErr_Format(PyExc_ValueError, "unknown motion kind '%s'", kind);
        return -1;
    }
    return 0;
}

static void motion_spec_clear(motion_spec *m)
{
    Py_XDECREF(m->t);
    Py_XDECREF(m->coef);
    m->t = m->coef = NULL;
}

/* motion_eval(motion, times (nt,), dim) -> (nt, 15): kf_kin (12) and vdot (3). */
static PyObject *py_motion_eval(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *mobj, *tobj;
    int dim;
    if (!PyArg_ParseTuple(args, "OOi", &mobj, &tobj, &dim))
        return NULL;
    motion_spec m;
    PyArrayObject *t = NULL, *out = NULL;
    PyObject *result = NULL;
    if (parse_motion(mobj, dim, &m) < 0)
        goto done;
    if (!(t = as_double(tobj, "t", 1, 1)))
        goto done;
    npy_intp dims[2] = {PyArray_DIM(t, 0), 15};
    if (!(out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE)))
        goto done;
    _Static_assert(sizeof(kf_frame) == 15 * sizeof(double), "kf_frame must be 15 doubles");
    kf_frame *F = PyArray_DATA(out);
    const double *tt = PyArray_DATA(t);
    kf_error err = {0};
    for (npy_intp k = 0; k < dims[0]; k++)
        if (m.fn(tt[k], &F[k], m.params, &err)) {
            raise_status(err.code ? err.code : KF_ECALLBACK, &err);
            goto done;
        }
    result = (PyObject *)out;
    out = NULL;
done:
    motion_spec_clear(&m);
    Py_XDECREF(t);
    Py_XDECREF(out);
    return result;
}

/* spline_fit(t (n,), y (n, nch)) -> coefficients ((n-1) * nch * 4,) */
static PyObject *py_spline_fit(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *tobj, *yobj;
    if (!PyArg_ParseTuple(args, "OO", &tobj, &yobj))
        return NULL;
    PyArrayObject *t = as_double(tobj, "t", 1, 1), *y = t ? as_double(yobj, "samples", 2, 2) : NULL;
    PyArrayObject *c = NULL;
    PyObject *result = NULL;
    if (!y)
        goto done;
    npy_intp n = PyArray_DIM(t, 0), nch = PyArray_DIM(y, 1);
    if (PyArray_DIM(y, 0) != n || n > INT32_MAX / 16 || nch > 64) {
        PyErr_Format(PyExc_ValueError, "samples must have shape (%zd, nch), got (%zd, %zd)",
                     (Py_ssize_t)n, (Py_ssize_t)PyArray_DIM(y, 0), (Py_ssize_t)nch);
        goto done;
    }
    npy_intp len = (n > 1 ? n - 1 : 1) * nch * 4;
    if (!(c = (PyArrayObject *)PyArray_SimpleNew(1, &len, NPY_DOUBLE)))
        goto done;
    kf_error err = {0};
    int rc = kf_spline_fit((int)n, PyArray_DATA(t), (int)nch, PyArray_DATA(y), PyArray_DATA(c),
                           &err);
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = (PyObject *)c;
    c = NULL;
done:
    Py_XDECREF(t);
    Py_XDECREF(y);
    Py_XDECREF(c);
    return result;
}

/*
 * simulate(body, fixed, motion, loads, method, t_eval, d0, v0, dt, rho_inf, rtol, atol,
 *          max_step, max_steps, limit, rayleigh, damping, geometric, momentum, progress)
 *   -> (d, v, p or None, stats)
 * loads: None | callable | ("harmonic", Q0 or None, A (nh, ndof), omega (nh,), phase (nh,)).
 * d0, v0 over all DOFs; d, v, p (nt, ndof), zero at the supports.
 */
static PyObject *py_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"body", "fixed", "motion", "loads", "method", "t_eval", "d0", "v0",
                             "dt", "rho_inf", "rtol", "atol", "max_step", "max_steps", "limit",
                             "rayleigh", "damping", "geometric", "momentum", "progress", NULL};
    PyObject *cap, *fixed_obj, *mobj, *lobj, *tobj, *d0obj, *v0obj, *dobj, *pobj;
    kf_integ_opts io = {0};
    kf_body_ode_opts bo = {0};
    int geometric = 0, want_p = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOiOOOdddddld(dd)OppO", kwlist, &cap,
                                     &fixed_obj, &mobj, &lobj, &io.method, &tobj, &d0obj, &v0obj,
                                     &io.dt, &io.rho_inf, &io.rtol, &io.atol, &io.max_step,
                                     &io.max_steps, &io.limit, &bo.rayleigh[0], &bo.rayleigh[1],
                                     &dobj, &geometric, &want_p, &pobj))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    int ndof = kf_body_ndof(b);
    motion_spec m;
    memset(&m, 0, sizeof m);
    py_loads_ctx lpy = {0};
    kf_loads_harmonic lh = {0};
    py_progress_ctx prog = {pobj == Py_None ? NULL : pobj, wall_seconds()};
    PyArrayObject *fixed = NULL, *t = NULL, *d0 = NULL, *v0 = NULL, *damp = NULL;
    PyArrayObject *Q0 = NULL, *A = NULL, *om = NULL, *ph = NULL;
    PyArrayObject *dout = NULL, *vout = NULL, *pout = NULL;
    kf_body_ode *ode = NULL;
    kf_integ *integ = NULL;
    double *x0 = NULL;
    PyObject *result = NULL;

    if (pobj != Py_None && !PyCallable_Check(pobj)) {
        PyErr_SetString(PyExc_TypeError, "progress must be callable or None");
        goto done;
    }
    fixed = (PyArrayObject *)PyArray_FROMANY(fixed_obj, NPY_UINT8, 1, 1,
                                             NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!fixed)
        goto done;
    if (PyArray_DIM(fixed, 0) != ndof) {
        PyErr_Format(PyExc_ValueError, "supports mask has %zd entries, the body %d DOFs",
                     (Py_ssize_t)PyArray_DIM(fixed, 0), ndof);
        goto done;
    }
    if (parse_motion(mobj, kf_body_dim(b), &m) < 0)
        goto done;
    bo.fixed = PyArray_DATA(fixed);
    bo.motion = m.fn;
    bo.motion_params = m.params;
    bo.geometric = geometric;
    if (PyCallable_Check(lobj)) {
        lpy.fn = lobj;
        lpy.ndof = ndof;
        bo.loads = py_loads_cb;
        bo.loads_params = &lpy;
    } else if (lobj != Py_None) {
        const char *kind;
        PyObject *q0o, *ao, *omo, *pho;
        if (!PyArg_ParseTuple(lobj, "sOOOO", &kind, &q0o, &ao, &omo, &pho))
            goto done;
        if (strcmp(kind, "harmonic")) {
            PyErr_Format(PyExc_ValueError, "unknown loads kind '%s'", kind);
            goto done;
        }
        if (q0o != Py_None && !(Q0 = as_double(q0o, "loads constant", 1, 1)))
            goto done;
        if (!(A = as_double(ao, "loads amplitudes", 2, 2)) ||
            !(om = as_double(omo, "loads frequencies", 1, 1)) ||
            !(ph = as_double(pho, "loads phases", 1, 1)))
            goto done;
        npy_intp nh = PyArray_DIM(A, 0);
        if ((Q0 && PyArray_DIM(Q0, 0) != ndof) || PyArray_DIM(A, 1) != ndof ||
            PyArray_DIM(om, 0) != nh || PyArray_DIM(ph, 0) != nh || nh > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "harmonic loads must be vectors of %d values", ndof);
            goto done;
        }
        lh.ndof = ndof;
        lh.nh = (int)nh;
        lh.Q0 = Q0 ? PyArray_DATA(Q0) : NULL;
        lh.A = PyArray_DATA(A);
        lh.omega = PyArray_DATA(om);
        lh.phase = PyArray_DATA(ph);
        bo.loads = kf_loads_harmonic_eval;
        bo.loads_params = &lh;
    }
    if (!(t = as_double(tobj, "t_eval", 1, 1)) || !(d0 = as_double(d0obj, "d0", 1, 1)) ||
        !(v0 = as_double(v0obj, "v0", 1, 1)))
        goto done;
    if (PyArray_DIM(d0, 0) != ndof || PyArray_DIM(v0, 0) != ndof) {
        PyErr_Format(PyExc_ValueError, "d0 and v0 must have %d values (all DOFs)", ndof);
        goto done;
    }
    npy_intp nt = PyArray_DIM(t, 0);
    if (nt < 1 || nt > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "t_eval must hold at least one time");
        goto done;
    }
    kf_error err = {0};
    int rc;
    if (dobj != Py_None) {
        if (!(damp = as_double(dobj, "damping", 2, 2)))
            goto done;
    }
    if (damp) {
        /* the free-DOF count follows from the supports */
        npy_intp nf = 0;
        const unsigned char *fx = PyArray_DATA(fixed);
        for (int i = 0; i < ndof; i++)
            nf += fx[i] ? 0 : 1;
        if (PyArray_DIM(damp, 0) != nf || PyArray_DIM(damp, 1) != nf) {
            PyErr_Format(PyExc_ValueError, "damping matrix must be %zd x %zd (free DOFs), got "
                         "%zd x %zd", (Py_ssize_t)nf, (Py_ssize_t)nf,
                         (Py_ssize_t)PyArray_DIM(damp, 0), (Py_ssize_t)PyArray_DIM(damp, 1));
            goto done;
        }
        /* the core reads it column-major */
        PyArrayObject *fd = (PyArrayObject *)PyArray_FROM_OF((PyObject *)damp,
                                                             NPY_ARRAY_F_CONTIGUOUS);
        Py_DECREF(damp);
        damp = fd;
        if (!damp)
            goto done;
        bo.damping = PyArray_DATA(damp);
    }
    npy_intp dims[2] = {nt, ndof};
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
    io.progress = py_progress_cb;
    io.progress_params = &prog;
    kf_integ_stats st = {0};
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_ode_create(&ode, b, &bo, &err);
    if (!rc)
        rc = kf_integ_create(&integ, kf_body_ode_system(ode), &io, &err);
    if (!rc) {
        int n = kf_body_ode_nfree(ode);
        const int *map = kf_body_ode_map(ode);
        const double *dd0 = PyArray_DATA(d0), *vv0 = PyArray_DATA(v0);
        for (int i = 0; i < n; i++) {
            x0[i] = dd0[map[i]];
            x0[n + i] = vv0[map[i]];
        }
        rc = kf_integ_run(integ, 0.0, x0, x0 + n, (int)nt, PyArray_DATA(t), ndof, map,
                          PyArray_DATA(dout), PyArray_DATA(vout),
                          pout ? PyArray_DATA(pout) : NULL, &st, &err);
    }
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    if (!pout) {
        Py_INCREF(Py_None);
        pout = (PyArrayObject *)Py_None;
    }
    result = Py_BuildValue("NNN{s:l,s:l,s:l,s:l,s:l}", dout, vout, pout, "steps", st.steps,
                           "rejected", st.rejected, "factorizations", st.factorizations,
                           "solves", st.solves, "evaluations", st.evaluations);
    dout = vout = pout = NULL;
done:
    kf_integ_free(integ);
    kf_body_ode_free(ode);
    free(x0);
    motion_spec_clear(&m);
    Py_XDECREF(fixed);
    Py_XDECREF(t);
    Py_XDECREF(d0);
    Py_XDECREF(v0);
    Py_XDECREF(damp);
    Py_XDECREF(Q0);
    Py_XDECREF(A);
    Py_XDECREF(om);
    Py_XDECREF(ph);
    Py_XDECREF(dout);
    Py_XDECREF(vout);
    Py_XDECREF(pout);
    return result;
}

/* ---------------------------------------------------------------- formalisms
 * (kf_direct.c): Kane's inertia forces by quadrature, Maggi's null-space basis and
 * projected eigen contexts. */

/* A float64 vector of exactly n entries. */
static PyArrayObject *as_vector(PyObject *obj, const char *name, npy_intp n)
{
    PyArrayObject *a = as_double(obj, name, 1, 1);
    if (a && PyArray_DIM(a, 0) != n) {
        PyErr_Format(PyExc_ValueError, "%s must have %zd entries (the body's DOFs), got %zd",
                     name, (Py_ssize_t)n, (Py_ssize_t)PyArray_DIM(a, 0));
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyObject *py_inertia_forces_direct(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *d_obj, *dd_obj, *ddd_obj, *kin_obj;
    if (!PyArg_ParseTuple(args, "OOOOO", &cap, &d_obj, &dd_obj, &ddd_obj, &kin_obj))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    npy_intp n = kf_body_ndof(b);
    PyArrayObject *d = NULL, *dd = NULL, *ddd = NULL, *kin = NULL, *out = NULL;
    PyObject *result = NULL;
    if (!(d = as_vector(d_obj, "d", n)) || !(dd = as_vector(dd_obj, "d_t", n)) ||
        !(ddd = as_vector(ddd_obj, "d_tt", n)) || !(kin = as_kin(kin_obj)))
        goto done;
    if (PyArray_DIM(kin, 0) != 1) {
        PyErr_Format(PyExc_ValueError, "inertia_forces_direct takes one instant, got %zd",
                     (Py_ssize_t)PyArray_DIM(kin, 0));
        goto done;
    }
    out = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (!out)
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_inertia_forces_direct(b, PyArray_DATA(d), PyArray_DATA(dd), PyArray_DATA(ddd),
                                       (const kf_kin *)PyArray_DATA(kin), PyArray_DATA(out),
                                       &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = (PyObject *)out;
    out = NULL;
done:
    Py_XDECREF(d);
    Py_XDECREF(dd);
    Py_XDECREF(ddd);
    Py_XDECREF(kin);
    Py_XDECREF(out);
    return result;
}

static PyObject *py_null_basis(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *g_obj;
    double rtol = 0.0;
    if (!PyArg_ParseTuple(args, "Od", &g_obj, &rtol))
        return NULL;
    PyArrayObject *G = as_double(g_obj, "constraints", 2, 2);
    if (!G)
        return NULL;
    PyObject *result = NULL;
    double *B = NULL;
    npy_intp m = PyArray_DIM(G, 0), n = PyArray_DIM(G, 1);
    if (n < 1 || m > INT32_MAX / 8 || n > 46340) { /* n * n must fit an int-indexed LAPACK array */
        PyErr_Format(PyExc_ValueError, "constraints must have 1..46340 columns, got shape (%zd, %zd)",
                     (Py_ssize_t)m, (Py_ssize_t)n);
        goto done;
    }
    B = calloc((size_t)n * n, sizeof(double));
    if (!B) {
        PyErr_NoMemory();
        goto done;
    }
    kf_error err = {0};
    int rc, nfree = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_null_basis((int)m, (int)n, PyArray_DATA(G), rtol, &nfree, B, &err);
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
    Py_DECREF(G);
    return result;
}

static PyObject *py_eig_create_projected(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *b_obj;
    int geometric = 0;
    if (!PyArg_ParseTuple(args, "OO|p", &cap, &b_obj, &geometric))
        return NULL;
    kf_body *b = get_body(cap);
    if (!b)
        return NULL;
    PyArrayObject *Bm = as_double(b_obj, "basis", 2, 2);
    if (!Bm)
        return NULL;
    PyObject *result = NULL;
    double *B = NULL;
    npy_intp nd = PyArray_DIM(Bm, 0), nf = PyArray_DIM(Bm, 1);
    if (nd != kf_body_ndof(b) || nf < 1 || nf > nd) {
        PyErr_Format(PyExc_ValueError,
                     "basis must have shape (%d, nfree) with 1 <= nfree <= %d, got (%zd, %zd)",
                     kf_body_ndof(b), kf_body_ndof(b), (Py_ssize_t)nd, (Py_ssize_t)nf);
        goto done;
    }
    B = malloc((size_t)nd * nf * sizeof(double));
    if (!B) {
        PyErr_NoMemory();
        goto done;
    }
    const double *src = PyArray_DATA(Bm); /* row-major (ndof, nfree) -> column-major */
    for (npy_intp i = 0; i < nd; i++)
        for (npy_intp j = 0; j < nf; j++)
            B[i + j * nd] = src[i * nf + j];
    kf_eig *e = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eig_create_projected(&e, b, (int)nf, B, geometric ? KF_EIG_GEOMETRIC : 0, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = eig_capsule(e, cap);
done:
    free(B);
    Py_DECREF(Bm);
    return result;
}

/* ---------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"lapack_source", py_lapack_source, METH_NOARGS,
     "Where the LAPACK table came from ('linked', 'scipy'), or None."},
    {"lapack_linked", py_lapack_linked, METH_NOARGS,
     "True if the core was linked against a LAPACK at build time."},
    {"use_linked_lapack", py_use_linked_lapack, METH_NOARGS,
     "Fill the LAPACK table from the linked LAPACK."},
    {"set_lapack_capsules", py_set_lapack_capsules, METH_VARARGS,
     "set_lapack_capsules(lapack_capi, blas_capi, source): fill the LAPACK table from "
     "SciPy's cython_lapack/cython_blas __pyx_capi__ dicts."},
    {"body_create", (PyCFunction)(void (*)(void))py_body_create, METH_VARARGS | METH_KEYWORDS,
     "body_create(kind, coords, conn, E, rho, A, I) -> body capsule."},
    {"body_info", py_body_info, METH_O, "body_info(body) -> dict of sizes and storage."},
    {"body_matrix", py_body_matrix, METH_VARARGS,
     "body_matrix(body, name, i=0, j=0): 'M', 'K', 'S' (i, j) as dense arrays; 's' (i, j), "
     "'Mo' (i) as vectors."},
    {"motion_terms", py_motion_terms, METH_VARARGS,
     "motion_terms(body, motion (1, 12)) -> (C, K_eps, K_om, q_eps, q_om, q_a)."},
    {"eig_create", py_eig_create, METH_VARARGS,
     "eig_create(body, fixed_mask, geometric=False) -> eigen context capsule."},
    {"geometric_matrix", py_geometric_matrix, METH_VARARGS,
     "geometric_matrix(body, (c0, c1, c2)) -> K_G for N(x) = c0 + c1 x + c2 x^2, dense."},
    {"axial_force", py_axial_force, METH_VARARGS,
     "axial_force(body, motion (nt, 12), f_first, f_last, fixed_first, fixed_last) -> (nt, 3) "
     "coefficients of the quasi-static axial force."},
    {"eig_solve", (PyCFunction)(void (*)(void))py_eig_solve, METH_VARARGS | METH_KEYWORDS,
     "eig_solve(eig, motion (nt, 12), n_modes, include_eps, vectors, tracked, axial_force=None) -> "
     "(lam_re, lam_im, modes or None, stats)."},
    /* mechanisms (issue 4) */
    {"windpump_names", py_windpump_names, METH_NOARGS,
     "windpump_names() -> the wind-pump parameter names, in the order params vectors use."},
    {"windpump_check", py_windpump_check, METH_O,
     "windpump_check(params): ValueError naming the first invalid parameter."},
    {"windpump_kinematics", py_windpump_kinematics, METH_VARARGS,
     "windpump_kinematics(params, q (nt, 2), u (nt, 2), udot (nt, 2)) -> dict of arrays "
     "(theta, omega, eps, mu, points, r, v, a, A, B, vB, aB, lever)."},
    {"windpump_simulate", (PyCFunction)(void (*)(void))py_windpump_simulate,
     METH_VARARGS | METH_KEYWORDS,
     "windpump_simulate(params, mode, t, y0, omega=0, torque=None, rtol=1e-9, atol=1e-12, "
     "max_steps=0) -> (states (nt, 7), stats)."},
    {"windpump_joint_forces", py_windpump_joint_forces, METH_VARARGS,
     "windpump_joint_forces(params, states (nt, >= 6)) -> (nt, 11) joint forces."},
    {"eig_gyroscopic", (PyCFunction)(void (*)(void))py_eig_gyroscopic,
     METH_VARARGS | METH_KEYWORDS,
     "eig_gyroscopic(eig, motion (nt, 12), n_modes, include_eps, axial_force=None) -> "
     "(s_re, s_im)."},
    /* time integration */
    {"simulate", (PyCFunction)(void (*)(void))py_simulate, METH_VARARGS | METH_KEYWORDS,
     "simulate(body, fixed, motion, loads, method, t_eval, d0, v0, dt, rho_inf, rtol, atol, "
     "max_step, max_steps, limit, rayleigh, damping, geometric, momentum, progress) -> "
     "(d, v, p or None, stats)."},
    {"motion_eval", py_motion_eval, METH_VARARGS,
     "motion_eval(motion, t (nt,), dim) -> (nt, 15): omega, eps, v, a - g (body frame), vdot."},
    {"spline_fit", py_spline_fit, METH_VARARGS,
     "spline_fit(t (n,), y (n, nch)) -> not-a-knot cubic spline coefficients ((n-1)*nch*4,)."},
    /* formalisms (kf_direct.c) */
    {"inertia_forces_direct", py_inertia_forces_direct, METH_VARARGS,
     "inertia_forces_direct(body, d, d_t, d_tt, motion (1, 12)) -> Kane's generalized inertia "
     "forces F* by quadrature of (R N)^T a."},
    {"null_basis", py_null_basis, METH_VARARGS,
     "null_basis(G (m, n), rtol) -> orthonormal basis (n, nfree) of the null space of G "
     "(QR with column pivoting); rtol <= 0: the default."},
    {"eig_create_projected", py_eig_create_projected, METH_VARARGS,
     "eig_create_projected(body, basis (ndof, nfree), geometric=False) -> eigen context for "
     "d = basis z."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "kanefem._core",
                                       "The C core of kanefem (internal).", -1, methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    KanefemError = PyErr_NewExceptionWithDoc("kanefem.KanefemError",
                                             "Base class of kanefem's own errors.", NULL, NULL);
    LinAlgError = PyErr_NewExceptionWithDoc(
        "kanefem.LinAlgError", "A matrix was singular or an eigen solver failed.", KanefemError,
        NULL);
    PyObject *div_bases = PyTuple_Pack(2, KanefemError, PyExc_ArithmeticError);
    DivergenceError = div_bases ? PyErr_NewExceptionWithDoc(
                                      "kanefem.DivergenceError",
                                      "A time integration produced a non-finite or unbounded "
                                      "solution.",
                                      div_bases, NULL)
                                : NULL;
    Py_XDECREF(div_bases);
    GeometryError = PyErr_NewExceptionWithDoc(
        "kanefem.GeometryError", "A mechanism cannot be assembled at the given position.",
        PyExc_ValueError, NULL);
    if (!KanefemError || !LinAlgError || !DivergenceError || !GeometryError ||
        PyModule_AddObjectRef(m, "KanefemError", KanefemError) < 0 ||
        PyModule_AddObjectRef(m, "LinAlgError", LinAlgError) < 0 ||
        PyModule_AddObjectRef(m, "DivergenceError", DivergenceError) < 0 ||
        PyModule_AddObjectRef(m, "GeometryError", GeometryError) < 0 ||
        PyModule_AddStringConstant(m, "core_version", KF_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
