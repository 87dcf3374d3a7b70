/*
 * kf_python.h -- private to the binding (kf_python.c and kf_py_*.c, the only files
 * that include Python.h): the converters, result builders, polling and exception
 * classes that kf_python.c defines, and each module's method table, which
 * PyInit__core adds to kanefem._core.  Nothing here is exported from the extension.
 */
#ifndef KF_PYTHON_H
#define KF_PYTHON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
/* one NumPy C-API table for the several files; kf_python.c (KF_PYTHON_INIT) fills it */
#define PY_ARRAY_UNIQUE_SYMBOL kanefem_ARRAY_API
#ifndef KF_PYTHON_INIT
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kanefem.h"

/* shared between the binding's files only (hidden from the extension's symbol table) */
#if defined(__GNUC__) && !defined(_WIN32)
#define KF_PY_HIDDEN __attribute__((visibility("hidden")))
#else
#define KF_PY_HIDDEN
#endif

extern KF_PY_HIDDEN PyObject *KanefemError, *LinAlgError, *DivergenceError, *GeometryError,
    *StepLimitError, *RangeError;
/* the NumPy dtype of struct kf_frame (module attribute frame_dtype) */
extern KF_PY_HIDDEN PyArray_Descr *frame_descr;
/* the typed boundary records: kf_joint, kf_spring, kf_coord, kf_mech_drive, kf_mech_link,
 * kf_mech_axes (make_record_descrs) */
extern KF_PY_HIDDEN PyArray_Descr *joint_descr, *spring_descr, *coord_descr, *drive_descr,
    *link_descr, *axes_descr;
/* and the spatial ones: kf_sbody, kf_sjoint, kf_sspring, kf_scoord, kf_smech_axes */
extern KF_PY_HIDDEN PyArray_Descr *sbody_descr, *sjoint_descr, *sspring_descr, *scoord_descr,
    *saxes_descr;

#define BODY_CAPSULE "kanefem._core.body"
#define MECH_CAPSULE "kanefem._core.mech"
#define SMECH_CAPSULE "kanefem._core.smech"
#define EIG_CAPSULE "kanefem._core.eig"
#define MOTION_CAPSULE "kanefem._core.motion"
#define LOADS_CAPSULE "kanefem._core.loads"

/* Sizes that cross into the core as int. */
#define INT_LIMIT ((npy_intp)INT32_MAX)

/* ---------------------------------------------------------------- converters' arguments */

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

/* An integer (not a bool) in [lo, hi]. */
typedef struct int_arg {
    const char *name;
    long long lo, hi;
    long long v;
} int_arg;

/* A finite real number (not a bool, string or complex). */
typedef struct real_arg {
    const char *name;
    double v;
} real_arg;

/* A support mask: one flag per DOF (bool or integer array), as uint8. */
typedef struct mask_arg {
    const char *name;
    PyArrayObject *arr;
} mask_arg;

/* frames: an array of frame_dtype (struct kf_frame), 0-d or 1-d. */
typedef struct frames_arg {
    const char *name;
    PyArrayObject *arr;
    const kf_frame *f;
    npy_intp n;
} frames_arg;

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

/* A callable, or None (fn NULL). */
typedef struct func_arg {
    const char *name;
    PyObject *fn; /* borrowed */
} func_arg;

/* A constraint basis T (ndof x ncol) in CSR (basis_from): NULL arrays when not given. */
typedef struct basis_arg {
    PyArrayObject *ptr, *col, *val;
} basis_arg;

typedef struct eig_arg {
    kf_eig *e;
    kf_body *b; /* the body it was made for (kept alive by the capsule) */
} eig_arg;

typedef struct poll_ctx {
    PyObject *fn; /* progress(t) or NULL: then only signals are checked */
    double last;  /* wall clock of the last check [s] */
} poll_ctx;

static inline void f64_release(f64_arg *a) { Py_CLEAR(a->arr); }
static inline double *f64_data(const f64_arg *a) { return a->arr ? PyArray_DATA(a->arr) : NULL; }
static inline npy_intp f64_dim(const f64_arg *a, int k) { return PyArray_DIM(a->arr, k); }

/* ---------------------------------------------------------------- defined in kf_python.c */

KF_PY_HIDDEN PyObject *fail(PyObject *type, const char *fmt, ...);
KF_PY_HIDDEN PyObject *raise_status(int rc, const kf_error *err);
KF_PY_HIDDEN int f64_conv(PyObject *obj, void *p);
KF_PY_HIDDEN int f64_expect(const f64_arg *a, int k, npy_intp n, const char *what);
KF_PY_HIDDEN long steps_limit(long long v);
KF_PY_HIDDEN int int_conv(PyObject *obj, void *p);
KF_PY_HIDDEN int real_conv(PyObject *obj, void *p);
KF_PY_HIDDEN int mask_conv(PyObject *obj, void *p);
KF_PY_HIDDEN int frames_conv(PyObject *obj, void *p);
KF_PY_HIDDEN int rec_conv(PyObject *obj, void *p);
KF_PY_HIDDEN PyObject *new_records(PyArray_Descr *descr, const void *src, npy_intp n);
KF_PY_HIDDEN int func_conv(PyObject *obj, void *p);
KF_PY_HIDDEN int body_conv(PyObject *obj, void *p);
/* A 1-D C-int array from an integer sequence (a new reference), or NULL with
 * TypeError naming it. */
KF_PY_HIDDEN PyArrayObject *int_vector(PyObject *obj, const char *name);
/* The basis of the three arguments (all None: none), its shape checked against ndof
 * rows (its entries are the core's to check); -1 with the error raised. */
KF_PY_HIDDEN int basis_from(PyObject *ptr, PyObject *col, PyObject *val, int ndof, basis_arg *out);
KF_PY_HIDDEN void basis_release(basis_arg *b);
KF_PY_HIDDEN int eig_conv(PyObject *obj, void *p);
KF_PY_HIDDEN PyObject *new_matrix_rowmajor(const kf_mat *m);
/* new_matrix_rowmajor of a matrix about to be freed: a CSR matrix's values are handed to
 * the array (no copy; m->a becomes NULL), other storages copied. */
KF_PY_HIDDEN PyObject *take_matrix_rowmajor(kf_mat *m);
KF_PY_HIDDEN PyObject *new_vector(const double *v, npy_intp n);
KF_PY_HIDDEN PyObject *array_or_raise(int rc, const kf_error *err, PyArrayObject **out);
KF_PY_HIDDEN PyArrayObject *new_frames(npy_intp n);
KF_PY_HIDDEN PyObject *stats_dict(const kf_stats *s);
KF_PY_HIDDEN PyObject *eig_stats_dict(const kf_eig_stats *s);
KF_PY_HIDDEN poll_ctx poll_start(PyObject *fn);
KF_PY_HIDDEN int poll_cb(double t, void *params);

/* ---------------------------------------------------------------- defined in kf_py_integrate.c */

/* The core's record of a failed Python callback (the exception itself stays set);
 * also used by the mechanism's drive callbacks. */
KF_PY_HIDDEN int callback_failed(kf_error *err, const char *what, double t);
/* A motion capsule (kanefem._core.motion_*): its callback and parameters (a Python
 * function's take the GIL themselves); 0 with a TypeError for anything else. */
KF_PY_HIDDEN int motion_of(PyObject *obj, kf_motion_fn **fn, void **params);

/* ---------------------------------------------------------------- defined in kf_py_mechanism.c */

/* Python's ValueError unless z, zd, zdd are (nt, nz) alike (the rates may be NULL arrays). */
KF_PY_HIDDEN int rates_conform(int nz, f64_arg *z, f64_arg *zd, f64_arg *zdd);
/* Drives from DRIVE_DTYPE records (nz) and one callable or None per coordinate
 * beside them (*python: whether any is a Python callable, so the GIL must be held). */
KF_PY_HIDDEN int drives_of(int nz, const rec_arg *drives, PyObject *functions, kf_mech_drive *d,
                           int *python);
/* A kind of mechanism for the loops over instants: its table, its capsule's converter
 * (into a const void *), the record of its axes on bodies, and the names of its speeds
 * and their rates in the kinematics' dict. */
typedef struct mech_kind {
    const kf_mech_ops *ops;
    int (*conv)(PyObject *obj, void *p);
    PyArray_Descr **axes_descr;
    const char *axes_dtype;
    const char *speeds, *rates;
} mech_kind;
/* <kind>_kinematics, _joint_forces, _accelerations of kanefem._core, for any kind. */
KF_PY_HIDDEN PyObject *mech_kinematics_call(const mech_kind *kind, PyObject *args, PyObject *kw);
KF_PY_HIDDEN PyObject *mech_joint_forces_call(const mech_kind *kind, PyObject *args,
                                              PyObject *kw);
KF_PY_HIDDEN PyObject *mech_accelerations_call(const mech_kind *kind, PyObject *args,
                                               PyObject *kw);
/* The rigid motion of a mechanism given by its table: {states (nt, 4 nz), stats}. */
KF_PY_HIDDEN PyObject *simulate_of(const kf_mech_ops *ops, const void *m, const kf_mech_drive *d,
                                   int python, const double *z0, const double *zd0, f64_arg *t,
                                   double rtol, double atol, long long max_steps,
                                   PyObject *progress);

/* ---------------------------------------------------------------- method tables (kf_py_*.c) */

#define KW(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS, doc}

extern KF_PY_HIDDEN PyMethodDef kf_py_lapack_methods[];
extern KF_PY_HIDDEN PyMethodDef kf_py_body_methods[];
extern KF_PY_HIDDEN PyMethodDef kf_py_stress_methods[];
extern KF_PY_HIDDEN PyMethodDef kf_py_eig_methods[];
extern KF_PY_HIDDEN PyMethodDef kf_py_integrate_methods[];
extern KF_PY_HIDDEN PyMethodDef kf_py_mechanism_methods[];
extern KF_PY_HIDDEN PyMethodDef kf_py_spatial_methods[];
extern KF_PY_HIDDEN PyMethodDef kf_py_floating_methods[];

#endif /* KF_PYTHON_H */
