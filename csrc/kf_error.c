/*
 * kf_error.c -- error records and small utilities shared by the core.
 */
#if defined(__MINGW32__) && !defined(__USE_MINGW_ANSI_STDIO)
/* MinGW's own C99 vsnprintf: msvcrt's, the default there, lacks %zu (MSVC's UCRT has it) */
#define __USE_MINGW_ANSI_STDIO 1
#endif
#include "kf_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *kf_strstatus(int status)
{
    switch (status) {
    case KF_OK: return "success";
    case KF_EINVAL: return "invalid argument";
    case KF_ENOMEM: return "out of memory";
    case KF_ESING: return "singular matrix";
    case KF_ENOTPD: return "matrix not positive definite";
    case KF_ENOCONV: return "iteration did not converge";
    case KF_EDIVERGE: return "solution diverged";
    case KF_ENOLAPACK: return "no LAPACK installed";
    case KF_ELAPACK: return "LAPACK error";
    case KF_ECALLBACK: return "callback stopped the computation";
    case KF_EGEOM: return "mechanism cannot be assembled";
    case KF_ESTEPS: return "step limit reached";
    case KF_ERANGE: return "value out of the double range";
    default: return "unknown status";
    }
}

int kf_fail(kf_error *err, int code, const char *arg, const char *fmt, ...)
{
    if (err) {
        /* format into a copy first: the arguments may include err->msg itself
         * (a message that adds context to the one before) */
        char msg[sizeof err->msg], name[sizeof err->arg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(name, sizeof name, "%s", arg ? arg : "");
        err->code = code;
        memcpy(err->arg, name, sizeof name);
        memcpy(err->msg, msg, sizeof msg);
    }
    return code;
}

void *kf_calloc(size_t count, size_t size)
{
    if (count == 0 || size == 0)
        count = size = 1; /* a valid, freeable pointer */
    if (count > SIZE_MAX / size)
        return NULL;
    return calloc(count, size);
}

double kf_dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

double kf_nrm2(int n, const double *x)
{
    /* scaled to avoid overflow, as BLAS dnrm2 does */
    double scale = 0.0, ssq = 1.0;
    for (int i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (a == 0.0)
            continue;
        if (scale < a) {
            ssq = 1.0 + ssq * (scale / a) * (scale / a);
            scale = a;
        } else {
            ssq += (a / scale) * (a / scale);
        }
    }
    return scale * sqrt(ssq);
}
