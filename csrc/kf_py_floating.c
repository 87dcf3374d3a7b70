/*
 * kf_py_floating.c -- the binding of floating bodies (csrc/kf_ffrf.h): a flexible body
 * whose frame is an unknown of its motion (kanefem._core; helpers in kf_python.h,
 * module in kf_python.c).  Thin: arrays in, the core's calls with the GIL released,
 * arrays out; kanefem.floating checks the arguments by name.
 */
#include "kf_python.h"

#define FFRF_CAPSULE "kanefem._core.ffrf"

static void ffrf_destructor(PyObject *cap)
{
    kf_ffrf_free(PyCapsule_GetPointer(cap, FFRF_CAPSULE));
}

static int ffrf_conv(PyObject *obj, void *p)
{
    if (!PyCapsule_IsValid(obj, FFRF_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "ffrf must be a floating body made by "
                        "kanefem._core.ffrf_create");
        return 0;
    }
    *(kf_ffrf **)p = PyCapsule_GetPointer(obj, FFRF_CAPSULE);
    return 1;
}

/*
 * ffrf_create(body, fixed (ndof mask), mass (13,) or None, rayleigh (2,), geometric)
 *   -> ffrf (the core keeps its own copy of the body's invariants on the elastic DOFs)
 */
static PyObject *py_ffrf_create(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"body", "fixed", "mass", "rayleigh", "geometric", NULL};
    kf_body *b;
    mask_arg fixed = {"fixed"};
    f64_arg mass = {"mass", 1, {13}, 1}, ray = {"rayleigh", 1, {2}};
    int geometric = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&p", kwlist, body_conv, &b, mask_conv,
                                     &fixed, f64_conv, &mass, f64_conv, &ray, &geometric))
        return NULL;
    PyObject *result = NULL;
    if (PyArray_DIM(fixed.arr, 0) != kf_body_ndof(b)) {
        PyErr_Format(PyExc_ValueError, "fixed has %zd flags, the body %d DOFs",
                     (Py_ssize_t)PyArray_DIM(fixed.arr, 0), kf_body_ndof(b));
        goto done;
    }
    const double *r = f64_data(&ray);
    kf_ffrf_desc d = {b, PyArray_DATA(fixed.arr), f64_data(&mass), {r[0], r[1]}, geometric};
    kf_ffrf *w = NULL;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_ffrf_create(&w, &d, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_status(rc, &err);
        goto done;
    }
    if (!(result = PyCapsule_New(w, FFRF_CAPSULE, ffrf_destructor)))
        kf_ffrf_free(w);
done:
    Py_XDECREF(fixed.arr);
    f64_release(&mass);
    f64_release(&ray);
    return result;
}

/* ffrf_info(ffrf) -> {n, map, mass, centre, inertia (3, 3), margin} */
static PyObject *py_ffrf_info(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ffrf", NULL};
    kf_ffrf *w;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, ffrf_conv, &w))
        return NULL;
    int n = kf_ffrf_nelastic(w);
    const int *map = kf_ffrf_map(w);
    double m, xc[3], J0[9];
    kf_ffrf_mass_properties(w, &m, xc, J0);
    npy_intp nn = n, three[2] = {3, 3};
    PyArrayObject *mp = (PyArrayObject *)PyArray_SimpleNew(1, &nn, NPY_INTP);
    PyArrayObject *J = (PyArrayObject *)PyArray_SimpleNew(2, three, NPY_DOUBLE);
    if (!mp || !J) {
        Py_XDECREF(mp);
        Py_XDECREF(J);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        ((npy_intp *)PyArray_DATA(mp))[i] = map[i];
    memcpy(PyArray_DATA(J), J0, sizeof J0);
    return Py_BuildValue("{s:i,s:N,s:d,s:N,s:N,s:d}", "n", n, "map", mp, "mass", m, "centre",
                         new_vector(xc, 3), "inertia", J, "margin", kf_ffrf_rigid_margin(w));
}

/* The state's arrays: R (3, 3), v (3,), omega (3,), d, dd (n,) into s. */
static int state_of(kf_ffrf *w, f64_arg *R, f64_arg *v, f64_arg *om, f64_arg *d, f64_arg *dd,
                    kf_ffrf_state *s)
{
    npy_intp n = kf_ffrf_nelastic(w);
    if (f64_expect(d, 0, n, "elastic coordinates") || f64_expect(dd, 0, n, "elastic coordinates"))
        return -1;
    memcpy(s->R, f64_data(R), sizeof s->R);
    memcpy(s->v, f64_data(v), sizeof s->v);
    memcpy(s->omega, f64_data(om), sizeof s->omega);
    s->d = f64_data(d);
    s->dd = f64_data(dd);
    return 0;
}

#define STATE_ARGS                                                                           \
    f64_arg R = {"R", 2, {3, 3}}, v = {"v", 1, {3}}, om = {"omega", 1, {3}},                 \
            d = {"d", 1, {-1}}, dd = {"dd", 1, {-1}}, g = {"gravity", 1, {3}}

static void state_release(f64_arg *R, f64_arg *v, f64_arg *om, f64_arg *d, f64_arg *dd,
                          f64_arg *g)
{
    f64_release(R);
    f64_release(v);
    f64_release(om);
    f64_release(d);
    f64_release(dd);
    f64_release(g);
}

/*
 * ffrf_equations(ffrf, R, v, omega, d, dd, gravity, acc=None, f_first=0, f_last=0)
 *   -> {M (6 + n, 6 + n), f (6 + n)}  (rows and columns (v, omega, d'))
 */
static PyObject *py_ffrf_equations(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ffrf", "R", "v", "omega", "d", "dd", "gravity", "acc", "f_first",
                             "f_last", NULL};
    kf_ffrf *w;
    STATE_ARGS;
    f64_arg acc = {"acc", 1, {6}, 1};
    real_arg f1 = {"f_first", 0.0}, f2 = {"f_last", 0.0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&O&O&|O&O&O&", kwlist, ffrf_conv, &w,
                                     f64_conv, &R, f64_conv, &v, f64_conv, &om, f64_conv, &d,
                                     f64_conv, &dd, f64_conv, &g, f64_conv, &acc, real_conv, &f1,
                                     real_conv, &f2))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *M = NULL, *f = NULL;
    kf_ffrf_state s;
    if (state_of(w, &R, &v, &om, &d, &dd, &s))
        goto done;
    npy_intp N = kf_ffrf_nelastic(w) + KF_FFRF_NR, dims[2] = {N, N};
    M = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    f = (PyArrayObject *)PyArray_SimpleNew(1, &N, NPY_DOUBLE);
    if (!M || !f)
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_ffrf_equations(w, &s, f64_data(&g), f64_data(&acc), f1.v, f2.v, PyArray_DATA(M),
                           PyArray_DATA(f), &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O}", "M", M, "f", f);
done:
    Py_XDECREF(M);
    Py_XDECREF(f);
    state_release(&R, &v, &om, &d, &dd, &g);
    f64_release(&acc);
    return result;
}

/* ffrf_accelerations(ffrf, R, v, omega, d, dd, gravity) -> {acc (6,), ddd (n,)} */
static PyObject *py_ffrf_accelerations(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ffrf", "R", "v", "omega", "d", "dd", "gravity", NULL};
    kf_ffrf *w;
    STATE_ARGS;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&O&O&", kwlist, ffrf_conv, &w, f64_conv,
                                     &R, f64_conv, &v, f64_conv, &om, f64_conv, &d, f64_conv, &dd,
                                     f64_conv, &g))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *acc = NULL, *ddd = NULL;
    kf_ffrf_state s;
    if (state_of(w, &R, &v, &om, &d, &dd, &s))
        goto done;
    npy_intp six = KF_FFRF_NR, n = kf_ffrf_nelastic(w);
    acc = (PyArrayObject *)PyArray_SimpleNew(1, &six, NPY_DOUBLE);
    ddd = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (!acc || !ddd)
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_ffrf_accelerations(w, &s, f64_data(&g), PyArray_DATA(acc), PyArray_DATA(ddd), &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O}", "acc", acc, "ddd", ddd);
done:
    Py_XDECREF(acc);
    Py_XDECREF(ddd);
    state_release(&R, &v, &om, &d, &dd, &g);
    return result;
}

/* ffrf_prescribed(ffrf, frame (0-d FRAME_DTYPE), d, dd) -> {ddd (n,), drive (6,)} */
static PyObject *py_ffrf_prescribed(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ffrf", "frame", "d", "dd", NULL};
    kf_ffrf *w;
    frames_arg fr = {"frame"};
    f64_arg d = {"d", 1, {-1}}, dd = {"dd", 1, {-1}};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&", kwlist, ffrf_conv, &w, frames_conv,
                                     &fr, f64_conv, &d, f64_conv, &dd))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *ddd = NULL, *drive = NULL;
    npy_intp n = kf_ffrf_nelastic(w), six = KF_FFRF_NR;
    if (fr.n != 1) {
        PyErr_Format(PyExc_ValueError, "frame must hold one instant, got %zd", (Py_ssize_t)fr.n);
        goto done;
    }
    if (f64_expect(&d, 0, n, "elastic coordinates") || f64_expect(&dd, 0, n, "elastic coordinates"))
        goto done;
    ddd = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    drive = (PyArrayObject *)PyArray_SimpleNew(1, &six, NPY_DOUBLE);
    if (!ddd || !drive)
        goto done;
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_ffrf_prescribed(w, fr.f, f64_data(&d), f64_data(&dd), PyArray_DATA(ddd),
                            PyArray_DATA(drive), &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O}", "ddd", ddd, "drive", drive);
done:
    Py_XDECREF(ddd);
    Py_XDECREF(drive);
    Py_XDECREF(fr.arr);
    f64_release(&d);
    f64_release(&dd);
    return result;
}

/* Output arrays (nt, width) refused beyond the core's int range. */
static PyArrayObject *outputs(npy_intp nt, npy_intp width, const char *what)
{
    if (width > 0 && nt > INT_LIMIT / width / 8) {
        PyErr_Format(PyExc_ValueError, "t: %zd output times x %zd values of %s is too large an "
                     "output", (Py_ssize_t)nt, (Py_ssize_t)width, what);
        return NULL;
    }
    npy_intp dims[2] = {nt, width};
    return (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
}

/*
 * ffrf_run(ffrf, gravity (3,), x0 (13,), e0 (2 n,), t (nt,), *, method, dt, rho_inf, tol,
 *          max_iter, rtol, atol, max_steps, progress)
 *   -> {rigid (nt, 19), elastic (nt, 3 n), stats}
 */
static PyObject *py_ffrf_run(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ffrf", "gravity", "x0", "e0", "t", "method", "dt", "rho_inf",
                             "tol", "max_iter", "rtol", "atol", "max_steps", "progress", NULL};
    kf_ffrf *w;
    f64_arg g = {"gravity", 1, {3}}, x0 = {"x0", 1, {13}}, e0 = {"e0", 1, {-1}},
            t = {"t", 1, {-1}};
    int_arg method = {"method", KF_FFRF_GA, KF_FFRF_DP5, KF_FFRF_GA},
            max_iter = {"max_iter", 1, 1000, 25},
            max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    real_arg dt = {"dt", 0.0}, rho = {"rho_inf", 1.0}, tol = {"tol", 1e-10},
             rtol = {"rtol", 1e-8}, atol = {"atol", 1e-12};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&|$O&O&O&O&O&O&O&O&O&", kwlist,
                                     ffrf_conv, &w, f64_conv, &g, f64_conv, &x0, f64_conv, &e0,
                                     f64_conv, &t, int_conv, &method, real_conv, &dt, real_conv,
                                     &rho, real_conv, &tol, int_conv, &max_iter, real_conv, &rtol,
                                     real_conv, &atol, int_conv, &max_steps, func_conv, &progress))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *rigid = NULL, *elastic = NULL;
    npy_intp n = kf_ffrf_nelastic(w), nt = f64_dim(&t, 0);
    if (f64_expect(&e0, 0, 2 * n, "d and d' of the elastic coordinates"))
        goto done;
    if (!(rigid = outputs(nt, KF_FFRF_RIGID_OUT, "the frame")) ||
        !(elastic = outputs(nt, 3 * n, "the elastic coordinates")))
        goto done;
    poll_ctx pc = poll_start(progress.fn);
    kf_ffrf_opts o = {(int)method.v, dt.v, rho.v, tol.v, (int)max_iter.v, rtol.v, atol.v,
                      steps_limit(max_steps.v), poll_cb, &pc};
    kf_stats st = {0};
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_ffrf_run(w, f64_data(&g), f64_data(&x0), f64_data(&e0), (int)nt, f64_data(&t), &o,
                     PyArray_DATA(rigid), PyArray_DATA(elastic), &st, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O,s:N}", "rigid", rigid, "elastic", elastic, "stats",
                               stats_dict(&st));
done:
    Py_XDECREF(rigid);
    Py_XDECREF(elastic);
    f64_release(&g);
    f64_release(&x0);
    f64_release(&e0);
    f64_release(&t);
    return result;
}

/*
 * ffrf_run_prescribed(ffrf, motion, e0 (2 n,), t (nt,), *, dt, rho_inf, max_steps, progress)
 *   -> {elastic (nt, 3 n), drive (nt, 6), stats}
 */
static PyObject *py_ffrf_run_prescribed(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ffrf", "motion", "e0", "t", "dt", "rho_inf", "max_steps",
                             "progress", NULL};
    kf_ffrf *w;
    PyObject *motion;
    f64_arg e0 = {"e0", 1, {-1}}, t = {"t", 1, {-1}};
    int_arg max_steps = {"max_steps", 0, (long long)1 << 62, 0};
    real_arg dt = {"dt", 0.0}, rho = {"rho_inf", 1.0};
    func_arg progress = {"progress", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&OO&O&|$O&O&O&O&", kwlist, ffrf_conv, &w,
                                     &motion, f64_conv, &e0, f64_conv, &t, real_conv, &dt,
                                     real_conv, &rho, int_conv, &max_steps, func_conv, &progress))
        return NULL;
    PyObject *result = NULL;
    PyArrayObject *elastic = NULL, *drive = NULL;
    kf_motion_fn *fn;
    void *params;
    npy_intp n = kf_ffrf_nelastic(w), nt = f64_dim(&t, 0);
    if (!motion_of(motion, &fn, &params) ||
        f64_expect(&e0, 0, 2 * n, "d and d' of the elastic coordinates"))
        goto done;
    if (!(elastic = outputs(nt, 3 * n, "the elastic coordinates")) ||
        !(drive = outputs(nt, KF_FFRF_NR, "the drive")))
        goto done;
    poll_ctx pc = poll_start(progress.fn);
    kf_ffrf_opts o = {KF_FFRF_GA, dt.v, rho.v, 0.5, 1, 0.0, 0.0, steps_limit(max_steps.v),
                      poll_cb, &pc};
    kf_stats st = {0};
    kf_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = kf_ffrf_run_prescribed(w, fn, params, f64_data(&e0), (int)nt, f64_data(&t), &o,
                                PyArray_DATA(elastic), PyArray_DATA(drive), &st, &err);
    Py_END_ALLOW_THREADS
    if (rc)
        raise_status(rc, &err);
    else
        result = Py_BuildValue("{s:O,s:O,s:N}", "elastic", elastic, "drive", drive, "stats",
                               stats_dict(&st));
done:
    Py_XDECREF(elastic);
    Py_XDECREF(drive);
    f64_release(&e0);
    f64_release(&t);
    return result;
}

/* This file's functions of kanefem._core (PyInit__core adds the table). */
PyMethodDef kf_py_floating_methods[] = {
    KW("ffrf_create", py_ffrf_create,
       "ffrf_create(body, fixed, mass, rayleigh, geometric) -> ffrf (kf_ffrf_create)."),
    KW("ffrf_info", py_ffrf_info, "ffrf_info(ffrf) -> {n, map, mass, centre, inertia, margin}."),
    KW("ffrf_equations", py_ffrf_equations,
       "ffrf_equations(ffrf, R, v, omega, d, dd, gravity, acc=None, f_first=0, f_last=0) "
       "-> {M, f} (kf_ffrf_equations)."),
    KW("ffrf_accelerations", py_ffrf_accelerations,
       "ffrf_accelerations(ffrf, R, v, omega, d, dd, gravity) -> {acc, ddd} "
       "(kf_ffrf_accelerations)."),
    KW("ffrf_prescribed", py_ffrf_prescribed,
       "ffrf_prescribed(ffrf, frame, d, dd) -> {ddd, drive} (kf_ffrf_prescribed)."),
    KW("ffrf_run", py_ffrf_run,
       "ffrf_run(ffrf, gravity, x0, e0, t, *, method, dt, rho_inf, tol, max_iter, rtol, atol, "
       "max_steps, progress) -> {rigid, elastic, stats} (kf_ffrf_run)."),
    KW("ffrf_run_prescribed", py_ffrf_run_prescribed,
       "ffrf_run_prescribed(ffrf, motion, e0, t, *, dt, rho_inf, max_steps, progress) -> "
       "{elastic, drive, stats} (kf_ffrf_run_prescribed)."),
    {NULL, NULL, 0, NULL}};
