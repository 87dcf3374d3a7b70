/*
 * kf_py_eig.c -- the binding of frozen-time, projected and gyroscopic eigenvalues, null-space bases
 * (kanefem._core; helpers in kf_python.h, module in kf_python.c).
 */
#include "kf_python.h"

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
    if (f64_expect(&c->kg, 0, c->fr.n, "one row per instant"))
        return -1;
    /* (a context without K_G refuses any coefficients in the core, naming the option) */
    if (c->kg.arr && kf_eig_nkg(c->ctx.e) && f64_dim(&c->kg, 1) != kf_eig_nkg(c->ctx.e)) {
        PyErr_Format(PyExc_ValueError, "axial_force must have %d columns (the body's K_G "
                     "coefficients), got %lld", kf_eig_nkg(c->ctx.e),
                     (long long)f64_dim(&c->kg, 1));
        return -1;
    }
    return 0;
}

static void eig_call_release(eig_call *c)
{
    Py_CLEAR(c->fr.arr);
    f64_release(&c->kg);
}

#define EIG_CALL_INIT                                                                          \
    {{NULL, NULL}, {"frames"}, {"n_modes", 1, INT32_MAX, 0}, 0, {"axial_force", 2, {-1, -1}, 1},  \
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

/* ================================================================ compensated products */

/* A 1-D int32 array (indptr, indices of a CSR matrix), C-contiguous; no unsafe cast. */
static PyArrayObject *int32_vector(PyObject *obj, const char *name)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT32, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!a) {
        PyErr_Clear();
        fail(PyExc_TypeError, "%s must be a 1-D int32 array", name);
    }
    return a;
}

static PyObject *py_csr_dot2(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"indptr", "indices", "values", "x", "xlo", "ncol", NULL};
    PyObject *ptr_obj, *ind_obj;
    f64_arg val = {"values", 1, {-1}}, X = {"x", 2, {-1, -1}}, Xl = {"xlo", 2, {-1, -1}, 1};
    int_arg ncol = {"ncol", 0, INT32_MAX, -1};
    PyArrayObject *ptr = NULL, *ind = NULL, *y = NULL, *e = NULL;
    PyObject *result = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO&O&|O&O&", kwlist, &ptr_obj, &ind_obj, f64_conv,
                                     &val, f64_conv, &X, f64_conv, &Xl, int_conv, &ncol))
        return NULL;
    if (!(ptr = int32_vector(ptr_obj, "indptr")) || !(ind = int32_vector(ind_obj, "indices")))
        goto done;
    npy_intp n = PyArray_DIM(ptr, 0) - 1, nnz = PyArray_DIM(ind, 0);
    npy_intp nc = ncol.v >= 0 ? (npy_intp)ncol.v : f64_dim(&X, 0), k = f64_dim(&X, 1);
    if (n < 0 || n > INT_LIMIT) {
        fail(PyExc_ValueError, "indptr must have 1..%zd entries", (Py_ssize_t)INT_LIMIT + 1);
        goto done;
    }
    if (f64_dim(&val, 0) != nnz) {
        fail(PyExc_ValueError, "values has %zd entries, indices %zd", (Py_ssize_t)f64_dim(&val, 0),
             (Py_ssize_t)nnz);
        goto done;
    }
    const int *p = PyArray_DATA(ptr);
    if (p[n] != nnz) {
        fail(PyExc_ValueError, "indptr[-1] = %d, but there are %zd stored entries", p[n],
             (Py_ssize_t)nnz);
        goto done;
    }
    if (f64_dim(&X, 0) != nc || (Xl.arr && (f64_dim(&Xl, 0) != nc || f64_dim(&Xl, 1) != k))) {
        fail(PyExc_ValueError, "x must have shape (ncol = %zd, k) and xlo the same, got (%zd, %zd)",
             (Py_ssize_t)nc, (Py_ssize_t)f64_dim(&X, 0), (Py_ssize_t)k);
        goto done;
    }
    npy_intp dims[2] = {n, k};
    y = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    e = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (!y || !e)
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_csr_dot2((int)n, (int)nc, p, PyArray_DATA(ind), f64_data(&val), (int)k, f64_data(&X),
                     f64_data(&Xl), PyArray_DATA(y), PyArray_DATA(e), &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = Py_BuildValue("(OO)", y, e);
done:
    Py_XDECREF(ptr);
    Py_XDECREF(ind);
    Py_XDECREF(y);
    Py_XDECREF(e);
    f64_release(&val);
    f64_release(&X);
    f64_release(&Xl);
    return result;
}

static PyObject *py_band_cholesky(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ab", NULL};
    f64_arg ab = {"ab", 2, {-1, -1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, f64_conv, &ab))
        return NULL;
    PyArrayObject *L = (PyArrayObject *)PyArray_NewCopy(ab.arr, NPY_CORDER);
    f64_release(&ab);
    if (!L)
        return NULL;
    npy_intp n = PyArray_DIM(L, 0), w = PyArray_DIM(L, 1);
    if (w < 1) {
        Py_DECREF(L);
        return fail(PyExc_ValueError, "ab must have shape (n, b + 1), b >= 0, got (%zd, %zd)",
                    (Py_ssize_t)n, (Py_ssize_t)w);
    }
    kf_error err = {0};
    int rc, pivot;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_band_cholesky((int)n, (int)w - 1, PyArray_DATA(L), &pivot, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        Py_DECREF(L);
        return raise_status(rc, &err);
    }
    return (PyObject *)L;
}

static PyObject *py_band_cholesky_solve(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"L", "b", NULL};
    f64_arg L = {"L", 2, {-1, -1}}, B = {"b", -1, {-1, -1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&", kwlist, f64_conv, &L, f64_conv, &B))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *X = NULL;
    int nd = PyArray_NDIM(B.arr);
    npy_intp n = f64_dim(&L, 0), w = f64_dim(&L, 1);
    if ((nd != 1 && nd != 2) || PyArray_DIM(B.arr, 0) != n || w < 1) {
        fail(PyExc_ValueError, "b must have shape (%zd,) or (%zd, k) for a factor of shape (%zd, %zd)",
             (Py_ssize_t)n, (Py_ssize_t)n, (Py_ssize_t)n, (Py_ssize_t)w);
        goto done;
    }
    if (!(X = (PyArrayObject *)PyArray_NewCopy(B.arr, NPY_CORDER)))
        goto done;
    npy_intp k = nd == 2 ? PyArray_DIM(X, 1) : 1;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_band_cholesky_solve((int)n, (int)w - 1, f64_data(&L), (int)k, PyArray_DATA(X), &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else {
        result = (PyObject *)X;
        X = NULL;
    }
done:
    Py_XDECREF(X);
    f64_release(&L);
    f64_release(&B);
    return result;
}

/* This file's functions of kanefem._core (PyInit__core adds the table). */
/* ================================================================ continuation over a time grid */

#define EIGCONT_CAPSULE "kanefem._core.eigcont"

static void eigcont_destructor(PyObject *cap)
{
    kf_eigcont_free(PyCapsule_GetPointer(cap, EIGCONT_CAPSULE));
}

static int eigcont_conv(PyObject *obj, void *p)
{
    if (!PyCapsule_IsValid(obj, EIGCONT_CAPSULE)) {
        fail(PyExc_TypeError, "cont must be a continuation context (eigcont_create), got %.80s",
             Py_TYPE(obj)->tp_name);
        return 0;
    }
    *(kf_eigcont **)p = PyCapsule_GetPointer(obj, EIGCONT_CAPSULE);
    return 1;
}

/* A CSR matrix given as (indptr, indices, data) (data None for a pattern). */
typedef struct csr_arg {
    const char *name;
    PyArrayObject *ptr, *ind;
    f64_arg val;
    kf_csr m;
} csr_arg;

static void csr_release(csr_arg *a)
{
    Py_CLEAR(a->ptr);
    Py_CLEAR(a->ind);
    f64_release(&a->val);
}

static int csr_conv(PyObject *obj, void *p)
{
    csr_arg *a = p;
    if (!obj) {
        csr_release(a);
        return 1;
    }
    PyObject *data = Py_None;
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) < 2 || PyTuple_GET_SIZE(obj) > 3) {
        fail(PyExc_TypeError, "%s must be a tuple (indptr, indices[, data])", a->name);
        return 0;
    }
    if (PyTuple_GET_SIZE(obj) == 3)
        data = PyTuple_GET_ITEM(obj, 2);
    if (!(a->ptr = int32_vector(PyTuple_GET_ITEM(obj, 0), "indptr")) ||
        !(a->ind = int32_vector(PyTuple_GET_ITEM(obj, 1), "indices")))
        goto bad;
    a->val.name = a->name;
    a->val.ndim = 1;
    a->val.shape[0] = -1;
    a->val.optional = 1;
    if (!f64_conv(data, &a->val))
        goto bad;
    npy_intp n = PyArray_DIM(a->ptr, 0) - 1, nnz = PyArray_DIM(a->ind, 0);
    const int *ptr = PyArray_DATA(a->ptr);
    if (n < 1 || n > INT_LIMIT || ptr[n] != nnz || (a->val.arr && f64_dim(&a->val, 0) != nnz)) {
        fail(PyExc_ValueError, "%s: indptr of %zd entries, %zd indices, %zd values do not make a "
             "CSR matrix", a->name, (Py_ssize_t)(n + 1), (Py_ssize_t)nnz,
             (Py_ssize_t)(a->val.arr ? f64_dim(&a->val, 0) : nnz));
        goto bad;
    }
    a->m.n = (int)n;
    a->m.indptr = ptr;
    a->m.indices = PyArray_DATA(a->ind);
    a->m.values = f64_data(&a->val);
    return Py_CLEANUP_SUPPORTED;
bad:
    csr_release(a);
    return 0;
}

static PyObject *py_eigcont_create(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"K", "M", "P", "terms", "mf", "p", "ms", "nstiff", NULL};
    csr_arg K = {"K"}, M = {"M"}, P = {"P"};
    f64_arg terms = {"terms", 2, {-1, -1}}, mf = {"mf", 2, {-1, -1}};
    int_arg p = {"p", 2, INT32_MAX, 0}, ms = {"ms", 1, INT32_MAX, 0}, nstiff = {"nstiff", 0,
                                                                                INT32_MAX, 0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&O&O&|O&", kwlist, csr_conv, &K,
                                     csr_conv, &M, csr_conv, &P, f64_conv, &terms, f64_conv, &mf,
                                     int_conv, &p, int_conv, &ms, int_conv, &nstiff))
        return NULL;
    PyObject *result = NULL;
    npy_intp n = K.m.n, nnz = P.m.indptr[P.m.n];
    if (!K.m.values || !M.m.values) {
        fail(PyExc_ValueError, "K and M need their values");
        goto done;
    }
    if (f64_dim(&terms, 1) != nnz || f64_dim(&mf, 0) != n || f64_dim(&mf, 1) < 1) {
        fail(PyExc_ValueError, "terms must have shape (nterm, %zd) and mf (%zd, b + 1), got (%zd, "
             "%zd) and (%zd, %zd)", (Py_ssize_t)nnz, (Py_ssize_t)n,
             (Py_ssize_t)f64_dim(&terms, 0), (Py_ssize_t)f64_dim(&terms, 1),
             (Py_ssize_t)f64_dim(&mf, 0), (Py_ssize_t)f64_dim(&mf, 1));
        goto done;
    }
    kf_eigcont *c = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eigcont_create(&c, &K.m, &M.m, &P.m, (int)f64_dim(&terms, 0), (int)nstiff.v,
                           f64_data(&terms), (int)f64_dim(&mf, 1) - 1, f64_data(&mf), (int)p.v,
                           (int)ms.v, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else if (!(result = PyCapsule_New(c, EIGCONT_CAPSULE, eigcont_destructor)))
        kf_eigcont_free(c);
done:
    csr_release(&K);
    csr_release(&M);
    csr_release(&P);
    f64_release(&terms);
    f64_release(&mf);
    return result;
}

static PyObject *py_eigcont_set(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"cont", "factor", "basis", NULL};
    kf_eigcont *c;
    f64_arg F = {"factor", 2, {-1, -1}, 1}, X = {"basis", 2, {-1, -1}, 1};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&O&", kwlist, eigcont_conv, &c, f64_conv, &F,
                                     f64_conv, &X))
        return NULL;
    int n, p, ms, nterm;
    kf_eigcont_shape(c, &n, &p, &ms, &nterm);
    if ((F.arr && (f64_dim(&F, 0) != n || f64_dim(&F, 1) < 1)) ||
        (X.arr && (f64_dim(&X, 0) != n || f64_dim(&X, 1) != p))) {
        f64_release(&F);
        f64_release(&X);
        return fail(PyExc_ValueError, "factor must have shape (%d, b + 1) and basis (%d, %d)", n, n,
                    p);
    }
    kf_error err = {0};
    int rc = KF_OK;
    Py_BEGIN_ALLOW_THREADS
    if (F.arr)
        rc = kf_eigcont_set_factor(c, (int)f64_dim(&F, 1) - 1, f64_data(&F), &err);
    if (!rc && X.arr)
        rc = kf_eigcont_set_basis(c, f64_data(&X), &err);
    Py_END_ALLOW_THREADS
    f64_release(&F);
    f64_release(&X);
    if (rc)
        return raise_status(rc, &err);
    Py_RETURN_NONE;
}

static PyObject *py_eigcont_run(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"cont", "coef", "lower", "scale", "tol", "vectors", "stats",
                             "progress", NULL};
    kf_eigcont *c;
    f64_arg coef = {"coef", 2, {-1, -1}}, lower = {"lower", 1, {-1}}, scale = {"scale", 1, {-1}};
    real_arg tol = {"tol", 0.0};
    int vectors = 0;
    kf_eigcont_stats st = {0};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&p(iiiii)|O&", kwlist, eigcont_conv, &c,
                                     f64_conv, &coef, f64_conv, &lower, f64_conv, &scale,
                                     real_conv, &tol, &vectors, &st.continued, &st.repeated,
                                     &st.iterations, &st.refined, &st.refactored, func_conv,
                                     &progress))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *th = NULL, *bd = NULL, *U = NULL;
    int nc, pc_, msc, nterm;
    kf_eigcont_shape(c, &nc, &pc_, &msc, &nterm);
    npy_intp nt = f64_dim(&coef, 0), n = nc, ms = msc;
    if (f64_dim(&coef, 1) != nterm || f64_dim(&lower, 0) != nt || f64_dim(&scale, 0) != nt) {
        fail(PyExc_ValueError, "coef must have shape (nt, %d), lower and scale (nt,)", nterm);
        goto done;
    }
    npy_intp d2[2] = {nt, ms}, d3[3] = {nt, n, ms};
    th = (PyArrayObject *)PyArray_ZEROS(2, d2, NPY_DOUBLE, 0);
    bd = (PyArrayObject *)PyArray_ZEROS(2, d2, NPY_DOUBLE, 0);
    if (vectors)
        U = (PyArrayObject *)PyArray_ZEROS(3, d3, NPY_DOUBLE, 0);
    if (!th || !bd || (vectors && !U))
        goto done;
    poll_ctx pc = poll_start(progress.fn);
    kf_eigcont_opts opt = {.tol = tol.v, .progress = poll_cb, .progress_params = &pc};
    kf_error err = {0};
    int rc, done_t = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_eigcont_run(c, (int)nt, f64_data(&coef), f64_data(&lower), f64_data(&scale), &opt,
                        PyArray_DATA(th), PyArray_DATA(bd), U ? PyArray_DATA(U) : NULL, &done_t,
                        &st, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    result = Py_BuildValue("{s:O,s:O,s:O,s:i,s:(iiiii)}", "theta", th, "bounds", bd, "vectors",
                           U ? (PyObject *)U : Py_None, "done", done_t, "stats", st.continued,
                           st.repeated, st.iterations, st.refined, st.refactored);
done:
    Py_XDECREF(th);
    Py_XDECREF(bd);
    Py_XDECREF(U);
    f64_release(&coef);
    f64_release(&lower);
    f64_release(&scale);
    return result;
}

PyMethodDef kf_py_eig_methods[] = {
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
    KW("csr_dot2", py_csr_dot2,
       "csr_dot2(indptr, indices, values, x (ncol, k), xlo=None, ncol=None) -> (y, err): "
       "A (x + xlo) with A x in twice the precision, and a bound on its error (kf_csr_dot2)."),
    KW("band_cholesky", py_band_cholesky,
       "band_cholesky(ab (n, b + 1)) -> L: Cholesky factor of a symmetric positive definite band "
       "matrix, ab[j, d] = A(j + d, j) (kf_band_cholesky; LinAlgError if not definite)."),
    KW("band_cholesky_solve", py_band_cholesky_solve,
       "band_cholesky_solve(L (n, b + 1), b (n,) or (n, k)) -> x (kf_band_cholesky_solve)."),
    KW("eigcont_create", py_eigcont_create,
       "eigcont_create(K (indptr, indices, data), M (...), P (indptr, indices), terms (nterm, "
       "nnz(P)), mf (n, bm + 1), p, ms, nstiff=0) -> continuation context (kf_eigcont_create)."),
    KW("eigcont_set", py_eigcont_set,
       "eigcont_set(cont, factor=None (n, bf + 1), basis=None (n, p)): the shift-invert factor and "
       "the basis to continue from (kf_eigcont_set_factor, kf_eigcont_set_basis)."),
    KW("eigcont_run", py_eigcont_run,
       "eigcont_run(cont, coef (nt, nterm), lower (nt,), scale (nt,), tol, vectors, stats (5 ints), "
       "progress=None) -> {theta, bounds, vectors, done, stats} (kf_eigcont_run)."),
    {NULL, NULL, 0, NULL}};
