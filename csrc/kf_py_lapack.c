/*
 * kf_py_lapack.c -- the binding of the LAPACK table: its source, the linked LAPACK,
 * SciPy's capsules (kanefem._core; helpers in kf_python.h, module in kf_python.c).
 */
#include "kf_python.h"

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

/* This file's functions of kanefem._core (PyInit__core adds the table). */
PyMethodDef kf_py_lapack_methods[] = {
    {"lapack_source", py_lapack_source, METH_NOARGS,
     "Where the LAPACK table came from ('linked', 'scipy ...'), or None."},
    {"lapack_linked", py_lapack_linked, METH_NOARGS,
     "True if the core was linked against a LAPACK at build time."},
    {"use_linked_lapack", py_use_linked_lapack, METH_NOARGS,
     "Fill the LAPACK table from the linked LAPACK."},
    KW("set_lapack_capsules", py_set_lapack_capsules,
       "set_lapack_capsules(lapack, blas, source): fill the LAPACK table from SciPy's "
       "cython_lapack/cython_blas __pyx_capi__ dicts."),
    {NULL, NULL, 0, NULL}};
