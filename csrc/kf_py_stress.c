/*
 * kf_py_stress.c -- the binding of strains at quadrature points, element end forces
 * and the reference points of the plane and solid kinds (kanefem._core; helpers in
 * kf_python.h, module in kf_python.c; the stresses themselves: kanefem.stresses).
 */
#include "kf_python.h"

/* The arguments (body, d (ncol, ndof)) of both functions below, checked: the body, the
 * sets (released by the caller), their count and the body's point and element sizes. */
static int sets_args(PyObject *args, PyObject *kw, kf_body **b, f64_arg *d, int *ncol,
                     int *npts, int *ns, int *nemax)
{
    static char *kwlist[] = {"body", "d", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, body_conv, b, f64_conv, d))
        return -1;
    if (f64_expect(d, 1, kf_body_ndof(*b), "the body's DOFs"))
        return -1;
    if (kf_body_point_count(*b, npts, ns, nemax) || f64_dim(d, 0) > INT_LIMIT) {
        fail(PyExc_ValueError, "d: too many quadrature points or sets");
        return -1;
    }
    *ncol = (int)f64_dim(d, 0);
    return 0;
}

static PyObject *py_point_strains(PyObject *self, PyObject *args, PyObject *kw)
{
    kf_body *b;
    f64_arg d = {"d", 2, {-1, -1}};
    int ncol, npts, ns, nemax;
    PyObject *result = NULL;
    PyArrayObject *eps = NULL, *sig = NULL, *x = NULL, *el = NULL;
    if (sets_args(args, kw, &b, &d, &ncol, &npts, &ns, &nemax))
        goto done;
    npy_intp de[3] = {ncol, npts, ns}, dx[2] = {npts, kf_body_dim(b)}, dp = npts;
    if (!(eps = (PyArrayObject *)PyArray_SimpleNew(3, de, NPY_DOUBLE)) ||
        !(sig = (PyArrayObject *)PyArray_SimpleNew(3, de, NPY_DOUBLE)) ||
        !(x = (PyArrayObject *)PyArray_SimpleNew(2, dx, NPY_DOUBLE)) ||
        !(el = (PyArrayObject *)PyArray_SimpleNew(1, &dp, NPY_INT32)))
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_point_strains(b, ncol, f64_data(&d), PyArray_DATA(eps), PyArray_DATA(sig),
                               PyArray_DATA(x), PyArray_DATA(el), &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O,s:O,s:O}", "eps", eps, "sig", sig, "x", x, "element", el);
done:
    Py_XDECREF(eps);
    Py_XDECREF(sig);
    Py_XDECREF(x);
    Py_XDECREF(el);
    f64_release(&d);
    return result;
}

static PyObject *py_element_forces(PyObject *self, PyObject *args, PyObject *kw)
{
    kf_body *b;
    f64_arg d = {"d", 2, {-1, -1}};
    int ncol, npts, ns, nemax;
    PyObject *result = NULL;
    PyArrayObject *out = NULL;
    if (sets_args(args, kw, &b, &d, &ncol, &npts, &ns, &nemax))
        goto done;
    npy_intp dims[3] = {ncol, kf_body_element_count(b), nemax};
    if (!(out = (PyArrayObject *)PyArray_SimpleNew(3, dims, NPY_DOUBLE)))
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_element_forces(b, ncol, f64_data(&d), PyArray_DATA(out), &err);
    Py_END_ALLOW_THREADS
    result = array_or_raise(rc, &err, &out);
done:
    Py_XDECREF(out);
    f64_release(&d);
    return result;
}

static PyObject *py_element_reference(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"kind", NULL};
    int_arg kind = {"kind", 0, INT32_MAX, 0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, int_conv, &kind))
        return NULL;
    int dim, nnode, ndofn;
    kf_error err = {0};
    if (kind.v < KF_TRI3 || kind.v > KF_CONTINUUM_LAST ||
        kf_element_info((int)kind.v, &dim, &nnode, &ndofn, &err))
        return fail(PyExc_ValueError, "kind = %lld is not a plane or solid element kind",
                    kind.v);
    double xq[KF_REF_MAXQ * 3], xn[KF_REF_MAXQ * 3];
    int nq, nn;
    if (kf_continuum_reference((int)kind.v, &nq, &nn, xq, xn, &err))
        return raise_status(KF_EINVAL, &err);
    npy_intp dq[2] = {nq, dim}, dn[2] = {nn, dim};
    PyArrayObject *aq = (PyArrayObject *)PyArray_SimpleNew(2, dq, NPY_DOUBLE),
                  *an = (PyArrayObject *)PyArray_SimpleNew(2, dn, NPY_DOUBLE);
    PyObject *result = NULL;
    if (aq && an) {
        memcpy(PyArray_DATA(aq), xq, (size_t)nq * dim * sizeof(double));
        memcpy(PyArray_DATA(an), xn, (size_t)nn * dim * sizeof(double));
        result = Py_BuildValue("(OO)", aq, an);
    }
    Py_XDECREF(aq);
    Py_XDECREF(an);
    return result;
}

/* This file's functions of kanefem._core (PyInit__core adds the table). */
PyMethodDef kf_py_stress_methods[] = {
    KW("point_strains", py_point_strains,
       "point_strains(body, d (ncol, ndof)) -> {eps, sig (ncol, npts, nstrain), x (npts, dim), "
       "element (npts,)}: the strains at every quadrature point (kf_body_point_strains)."),
    KW("element_forces", py_element_forces,
       "element_forces(body, d (ncol, ndof)) -> (ncol, nel, nedof): K_e d_e per element in "
       "body axes (kf_body_element_forces)."),
    KW("element_reference", py_element_reference,
       "element_reference(kind) -> (xq (nquad, dim), xn (nnode, dim)): a plane or solid "
       "kind's reference quadrature points and nodes (kf_continuum_reference)."),
    {NULL, NULL, 0, NULL}};
