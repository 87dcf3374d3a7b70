/*
 * kf_py_body.c -- the binding of element kinds, bodies, motion terms, geometric
 * stiffness, direct inertia forces (kanefem._core; helpers in kf_python.h, module in kf_python.c).
 */
#include "kf_python.h"

/* ================================================================ bodies */

static PyObject *py_element_kinds(PyObject *self, PyObject *noargs)
{
    static const struct { const char *name; int kind; } kinds[] = {
        {"bar2", KF_BAR2},   {"beam2", KF_BEAM2}, {"beam2t", KF_BEAM2T},
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
                      {"kappa_y", offsetof(kf_section, kappa_y)},
                      {"kappa_z", offsetof(kf_section, kappa_z)},
                      {"rotary", offsetof(kf_section, rotary)},
                      {"ey", offsetof(kf_section, ey)},
                      {"ez", offsetof(kf_section, ez)},
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
    static char *kwlist[] = {"kind", "coords", "conn", "section", "storage", "refs", NULL};
    int_arg kind = {"kind", 0, INT32_MAX, 0}, storage = {"storage", -1, KF_CSR, -1};
    f64_arg coords = {"coords", 2, {-1, -1}};
    PyObject *conn_obj, *refs_obj = Py_None;
    kf_section sec = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&OO&|O&O", kwlist, int_conv, &kind, f64_conv,
                                     &coords, &conn_obj, section_conv, &sec, int_conv, &storage,
                                     &refs_obj))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *conn = NULL, *refs = NULL;
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
    if (refs_obj != Py_None) { /* a section orientation per element (nel, 3) */
        refs = (PyArrayObject *)PyArray_FROM_OTF(refs_obj, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
        if (!refs)
            goto done;
        if (PyArray_NDIM(refs) != 2 || PyArray_DIM(refs, 0) != nel || PyArray_DIM(refs, 1) != 3) {
            fail(PyExc_ValueError, "refs must have shape (nel, 3) = (%d, 3), one reference "
                 "direction per element", nel);
            goto done;
        }
    }
    kf_body *body = NULL;
    const double *rp = refs ? (const double *)PyArray_DATA(refs) : NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_create_refs(&body, (int)kind.v, nnode, f64_data(&coords), nel,
                             PyArray_DATA(conn), &sec, rp, (int)storage.v, &err);
    Py_END_ALLOW_THREADS
    result = body_capsule(rc, body, &err);
done:
    f64_release(&coords);
    Py_XDECREF(conn);
    Py_XDECREF(refs);
    return result;
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

/* A body from given dense invariants (kf_body_create_given): S (dim*dim, n, n), R the
 * same or None, K (n, n), s (dim*dim, n), Mo (dim, n), KG (nkg, n, n) or None. */
static PyObject *py_body_create_given(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"S", "K", "s", "Mo", "R", "KG", NULL};
    f64_arg S = {"S", 3, {-1, -1, -1}}, K = {"K", 2, {-1, -1}}, s = {"s", 2, {-1, -1}},
            Mo = {"Mo", 2, {-1, -1}}, R = {"R", 3, {-1, -1, -1}, 1}, KG = {"KG", 3, {-1, -1, -1}, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&|O&O&", kwlist, f64_conv, &S, f64_conv,
                                     &K, f64_conv, &s, f64_conv, &Mo, f64_conv, &R, f64_conv, &KG))
        return NULL;
    PyObject *result = NULL;
    npy_intp nb = f64_dim(&S, 0), n = f64_dim(&S, 1);
    int dim = nb == 4 ? 2 : nb == 9 ? 3 : 0;
    if (!dim) {
        fail(PyExc_ValueError, "S must hold dim * dim = 4 or 9 blocks, got %zd", (Py_ssize_t)nb);
        goto done;
    }
    if (n < 1 || n > INT_LIMIT) {
        fail(PyExc_ValueError, "S has %zd coordinates: need 1..%d", (Py_ssize_t)n, INT_LIMIT);
        goto done;
    }
    if (f64_expect(&S, 2, n, "square blocks") || f64_expect(&K, 0, n, "S's size") ||
        f64_expect(&K, 1, n, "S's size") || f64_expect(&s, 0, nb, "dim * dim rows") ||
        f64_expect(&s, 1, n, "S's size") || f64_expect(&Mo, 0, dim, "dim rows") ||
        f64_expect(&Mo, 1, n, "S's size"))
        goto done;
    if (R.arr && (f64_expect(&R, 0, nb, "dim * dim blocks") || f64_expect(&R, 1, n, "S's size") ||
                  f64_expect(&R, 2, n, "S's size")))
        goto done;
    if (KG.arr && (f64_expect(&KG, 1, n, "S's size") || f64_expect(&KG, 2, n, "S's size")))
        goto done;
    int nkg = KG.arr ? (int)f64_dim(&KG, 0) : 0;
    kf_body *body = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_create_given(&body, dim, (int)n, f64_data(&S), f64_data(&R), f64_data(&K),
                              f64_data(&s), f64_data(&Mo), nkg, f64_data(&KG), &err);
    Py_END_ALLOW_THREADS
    result = body_capsule(rc, body, &err);
done:
    f64_release(&S);
    f64_release(&K);
    f64_release(&s);
    f64_release(&Mo);
    f64_release(&R);
    f64_release(&KG);
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
/* A read-only int32 array over n ints of the body whose capsule is cap (kept alive by
 * the array: the body's pattern lives as long as the body, and nothing writes it). */
static PyObject *pattern_view(PyObject *cap, const int *data, npy_intp n)
{
    PyObject *arr = PyArray_SimpleNewFromData(1, &n, NPY_INT32, (void *)data);
    if (!arr)
        return NULL;
    Py_INCREF(cap);
    if (PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    PyArray_CLEARFLAGS((PyArrayObject *)arr, NPY_ARRAY_WRITEABLE);
    return arr;
}

static PyObject *py_body_pattern(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", NULL};
    PyObject *cap;
    kf_body *b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &cap) || !body_conv(cap, &b))
        return NULL;
    const kf_pattern *p = kf_body_pattern(b);
    if (!p)
        return PyErr_Format(PyExc_ValueError, "the body is not in sparse (CSR) storage");
    /* views, not copies: the pattern is as large as a matrix (docs/theory.md section 3.11) */
    PyObject *ptr = pattern_view(cap, p->ptr, (npy_intp)p->n + 1);
    PyObject *col = ptr ? pattern_view(cap, p->col, p->nnz) : NULL;
    if (!ptr || !col) {
        Py_XDECREF(ptr);
        return NULL;
    }
    return Py_BuildValue("{s:N,s:N}", "indptr", ptr, "indices", col);
}

/* body_project(body, indptr, indices, values, ncol): the body of d = T z
 * (kf_body_project), T (ndof x ncol) in CSR. */
static PyObject *py_body_project(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "indptr", "indices", "values", "ncol", NULL};
    kf_body *b;
    PyObject *ptr, *col, *val;
    int_arg ncol = {"ncol", 1, INT32_MAX, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&OOOO&", kwlist, body_conv, &b, &ptr, &col, &val,
                                     int_conv, &ncol))
        return NULL;
    basis_arg basis;
    if (basis_from(ptr, col, val, kf_body_ndof(b), &basis) < 0)
        return NULL;
    if (!basis.ptr) {
        basis_release(&basis);
        return PyErr_Format(PyExc_TypeError, "body_project needs a basis (indptr, indices, values)");
    }
    kf_body *out = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_project(b, (int)ncol.v, PyArray_DATA(basis.ptr), PyArray_DATA(basis.col),
                         PyArray_DATA(basis.val), &out, &err);
    Py_END_ALLOW_THREADS
    basis_release(&basis);
    return body_capsule(rc, out, &err);
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
        result = take_matrix_rowmajor(&out);
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
    if (!strcmp(name, "S")) {
        const kf_mat *S = kf_body_S(b, (int)i.v, (int)j.v);
        if (S)
            return new_matrix_rowmajor(S);
        /* a nodal body (docs/theory.md section 3.11): S_ij = sum c S with c = e_i e_j^T */
        double c[9] = {0};
        c[i.v * dim + j.v] = 1.0;
        kf_mat out = {0};
        kf_error err = {0};
        int rc = kf_mat_alloc_like(&out, kf_body_mass(b), &err);
        if (rc) {
            raise_status(rc, &err);
            return NULL;
        }
        kf_body_combine(b, c, 0.0, &out);
        PyObject *res = take_matrix_rowmajor(&out);
        kf_mat_free(&out);
        return res;
    }
    if (!strcmp(name, "R")) {
        if (!kf_body_has_second(b))
            return PyErr_Format(PyExc_ValueError, "name = 'R': this body's sections do not turn "
                                "to second order (no rotary inertia)");
        return new_matrix_rowmajor(kf_body_R(b, (int)i.v, (int)j.v));
    }
    if (!strcmp(name, "s"))
        return new_vector(kf_body_s(b, (int)i.v, (int)j.v), kf_body_ndof(b));
    if (!strcmp(name, "Mo"))
        return new_vector(kf_body_Mo(b, (int)i.v), kf_body_ndof(b));
    return PyErr_Format(PyExc_ValueError, "name = '%s' is not an invariant (M, K, S, R, s, Mo)",
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
        result = Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N}", "C", take_matrix_rowmajor(&C),
                               "K_eps", take_matrix_rowmajor(&Ke), "K_om",
                               take_matrix_rowmajor(&Ko), "q_eps", new_vector(q, n), "q_om",
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
    f64_arg c = {"axial_force", 1, {-1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, body_conv, &b, f64_conv, &c))
        return NULL;
    /* a body without K_G basis: kf_body_geometric says why */
    if (kf_body_nkg(b) && f64_expect(&c, 0, kf_body_nkg(b), "the body's K_G coefficients")) {
        f64_release(&c);
        return NULL;
    }
    kf_mat G = {0};
    kf_error err = {0};
    PyObject *result = NULL;
    int rc = kf_mat_alloc_like(&G, kf_body_mass(b), &err);
    if (!rc)
        rc = kf_body_geometric(b, f64_data(&c), 0.0, &G, &err);
    if (rc)
        raise_status(rc, &err);
    else
        result = take_matrix_rowmajor(&G);
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
    int nkg = kf_body_nkg(b);
    npy_intp dims[2] = {fr.n, nkg > 0 ? nkg : 3};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    PyObject *result = NULL;
    if (!out)
        goto done;
    double *c = PyArray_DATA(out);
    kf_error err = {0};
    int rc = KF_OK;
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp t = 0; t < fr.n && !rc; t++)
        rc = kf_body_geometric_coefficients(b, &fr.f[t], f0.v, f1.v, fixed_first, fixed_last,
                                            c + dims[1] * t, &err);
    Py_END_ALLOW_THREADS
    result = array_or_raise(rc, &err, &out);
done:
    Py_XDECREF(out);
    Py_XDECREF(fr.arr);
    return result;
}

static PyObject *py_body_set_prestress(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "fields", "axes", NULL};
    kf_body *b;
    f64_arg u = {"fields", 2, {-1, -1}}, ax = {"axes", 2, {2, -1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&", kwlist, body_conv, &b, f64_conv, &u,
                                     f64_conv, &ax))
        return NULL;
    PyObject *result = NULL;
    if (f64_expect(&u, 1, kf_body_ndof(b), "one column per DOF") ||
        f64_expect(&ax, 1, kf_body_dim(b), "one column per axis"))
        goto done;
    kf_error err = {0};
    /* the body is changed: with the GIL held, no other call of this process reads it
     * from Python meanwhile (the callers keep a body's K_G users behind one lock) */
    int rc = kf_body_set_prestress(b, (int)f64_dim(&u, 0), f64_data(&u), f64_data(&ax), &err);
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_NewRef(Py_None);
done:
    f64_release(&u);
    f64_release(&ax);
    return result;
}

/* K_G of one displacement field's stress (kf_body_prestress_matrix), in the body's
 * storage as geometric_matrix returns it. */
static PyObject *py_prestress_matrix(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "field", "acc", "Mc", NULL};
    kf_body *b;
    f64_arg u = {"field", 1, {-1}}, acc = {"acc", 1, {-1}, 1}, Mc = {"Mc", 2, {-1, -1}, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&O&", kwlist, body_conv, &b, f64_conv, &u,
                                     f64_conv, &acc, f64_conv, &Mc))
        return NULL;
    PyObject *result = NULL;
    int dim = kf_body_dim(b);
    kf_mat G = {0};
    if (f64_expect(&u, 0, kf_body_ndof(b), "one entry per DOF") ||
        (acc.arr && f64_expect(&acc, 0, dim, "dim entries")) ||
        (Mc.arr && (f64_expect(&Mc, 0, dim, "dim rows") || f64_expect(&Mc, 1, dim, "dim columns"))))
        goto done;
    kf_error err = {0};
    int rc = kf_mat_alloc_like(&G, kf_body_mass(b), &err);
    if (!rc) {
        Py_BEGIN_ALLOW_THREADS
        rc = kf_body_prestress_matrix(b, f64_data(&u), f64_data(&acc), f64_data(&Mc), &G, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc)
        raise_status(rc, &err);
    else
        result = take_matrix_rowmajor(&G);
done:
    kf_mat_free(&G);
    f64_release(&u);
    f64_release(&acc);
    f64_release(&Mc);
    return result;
}

/* The body as a rigid body (kf_body_rigid): {mass, centre (3,), inertia (3, 3),
 * second_moments (3, 3)}. */
static PyObject *py_body_rigid(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", NULL};
    kf_body *b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, body_conv, &b))
        return NULL;
    double m = 0.0, c[3], J[9], S[9];
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_body_rigid(b, &m, c, J, S, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        return raise_status(rc, &err);
    npy_intp n3 = 3, d33[2] = {3, 3};
    PyArrayObject *cc = (PyArrayObject *)PyArray_SimpleNew(1, &n3, NPY_DOUBLE);
    PyArrayObject *JJ = (PyArrayObject *)PyArray_SimpleNew(2, d33, NPY_DOUBLE);
    PyArrayObject *SS = (PyArrayObject *)PyArray_SimpleNew(2, d33, NPY_DOUBLE);
    if (!cc || !JJ || !SS) {
        Py_XDECREF(cc);
        Py_XDECREF(JJ);
        Py_XDECREF(SS);
        return NULL;
    }
    memcpy(PyArray_DATA(cc), c, sizeof c);
    memcpy(PyArray_DATA(JJ), J, sizeof J);
    memcpy(PyArray_DATA(SS), S, sizeof S);
    return Py_BuildValue("{s:d,s:N,s:N,s:N}", "mass", m, "centre", cc, "inertia", JJ,
                         "second_moments", SS);
}

static PyObject *py_body_geometric_info(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", NULL};
    kf_body *b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, body_conv, &b))
        return NULL;
    return Py_BuildValue("{s:i,s:O,s:i}", "nkg", kf_body_nkg(b), "prestress",
                         kf_body_prestressed(b) ? Py_True : Py_False, "nload", kf_body_nload(b));
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

/* This file's functions of kanefem._core (PyInit__core adds the table). */
PyMethodDef kf_py_body_methods[] = {
    /* bodies */
    {"element_kinds", py_element_kinds, METH_NOARGS,
     "element_kinds() -> {name: {kind, dim, nodes, dofs_per_node}} (kf_element_info)."},
    KW("body_create", py_body_create,
       "body_create(kind, coords (nnode, dim), conn (nel, nodes), section {E, rho, A, Izz, nu, "
       "thickness, plane_strain}, storage=-1, refs=None) -> body (kf_body_create_refs; storage "
       "-1 automatic, 0 dense, 1 band, 2 CSR; refs (nel, 3): a spatial beam's ref per element)."),
    KW("body_create_mixed", py_body_create_mixed,
       "body_create_mixed(kinds (nel,), coords (nnode, dim), conn (flat), ptr (nel + 1), "
       "section, storage=-1) -> body (kf_body_create_mixed: element e of kind kinds[e] on "
       "nodes conn[ptr[e]:ptr[e + 1]])"),
    KW("body_create_given", py_body_create_given,
       "body_create_given(S (dim*dim, n, n), K (n, n), s (dim*dim, n), Mo (dim, n), R=None, "
       "KG=None (nkg, n, n)) -> body from given dense invariants (kf_body_create_given: a "
       "reduced body)."),
    KW("body_info", py_body_info, "body_info(body) -> dict of sizes and storage."),
    KW("body_project", py_body_project,
       "body_project(body, indptr, indices, values, ncol) -> the body of d = T z, T (ndof x ncol) "
       "in CSR: every invariant projected (kf_body_project, docs/theory.md section 3.3)"),
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
       "geometric_matrix(body, coefficients (nkg,)) -> K_G = sum c_k KG_k (kf_body_geometric): "
       "N(x) = c0 + c1 x + c2 x^2 for a straight line body, the load-case coefficients of a "
       "prestress basis."),
    KW("axial_force", py_axial_force,
       "axial_force(body, frames (nt,), f_first, f_last, fixed_first, fixed_last) -> (nt, nkg) "
       "K_G coefficients at each instant (kf_body_geometric_coefficients)."),
    KW("body_set_prestress", py_body_set_prestress,
       "body_set_prestress(body, fields (ncase, ndof), axes (2, dim)) -> None: the K_G basis "
       "of the prestress of the unit load cases' static solutions (kf_body_set_prestress)."),
    KW("body_geometric_info", py_body_geometric_info,
       "body_geometric_info(body) -> {nkg, prestress, nload} (kf_body_nkg, kf_body_prestressed, "
       "kf_body_nload)."),
    KW("prestress_matrix", py_prestress_matrix,
       "prestress_matrix(body, field (ndof,), acc=None (dim,), Mc=None (dim, dim)) -> K_G of "
       "the field's linear stress under its case's body load (kf_body_prestress_matrix)."),
    KW("body_rigid", py_body_rigid,
       "body_rigid(body) -> {mass, centre (3,), inertia (3, 3) and second_moments (3, 3) "
       "about the mass centre} (kf_body_rigid)."),
    KW("inertia_forces_direct", py_inertia_forces_direct,
       "inertia_forces_direct(body, d, d_t, d_tt, frame (1,)) -> Kane's generalized inertia "
       "forces F* by quadrature (kf_body_inertia_forces_direct)."),
    {NULL, NULL, 0, NULL}};
