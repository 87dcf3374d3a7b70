/*
 * test_core.c -- tests of the kanefem C core on its own (no Python), meant to
 * run under AddressSanitizer + UBSan with leak detection (see
 * tests/test_c_core.py and .ci/run).  Exit status: number of failed checks.
 */
#include "kanefem.h"
#include "kf_internal.h" /* kf_fail, kf_la_*, kf_small_*_solve */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0, checks = 0;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

#define PI 3.14159265358979323846

static kf_body *straight_body(int kind, int nel, double len, const kf_section *sec)
{
    int nn = nel + 1;
    double *xy = calloc((size_t)2 * nn, sizeof(double));
    int *conn = calloc((size_t)2 * nel, sizeof(int));
    for (int i = 0; i < nn; i++)
        xy[2 * i] = len * i / nel;
    for (int e = 0; e < nel; e++) {
        conn[2 * e] = e;
        conn[2 * e + 1] = e + 1;
    }
    kf_body *b = NULL;
    kf_error err = {0};
    int rc = kf_body_create(&b, kind, nn, xy, nel, conn, sec, &err);
    CHECK(rc == KF_OK, "kf_body_create: %s", err.msg);
    free(xy);
    free(conn);
    return b;
}

static void test_gauss(void)
{
    double x[KF_GAUSS_MAX], w[KF_GAUSS_MAX];
    for (int n = 1; n <= KF_GAUSS_MAX; n++) {
        CHECK(kf_gauss01(n, x, w, NULL) == KF_OK, "order %d", n);
        /* exact for x^k, k <= 2n - 1: int_0^1 x^k = 1 / (k + 1) */
        for (int k = 0; k <= 2 * n - 1; k++) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += w[i] * pow(x[i], k);
            CHECK(fabs(s - 1.0 / (k + 1)) < 1e-14, "n %d k %d: %g", n, k, s - 1.0 / (k + 1));
        }
    }
    kf_error err = {0};
    CHECK(kf_gauss01(0, x, w, &err) == KF_EINVAL && strstr(err.msg, "n = 0"), "%s", err.msg);
    CHECK(kf_gauss01(KF_GAUSS_MAX + 1, x, w, &err) == KF_EINVAL, "%s", err.msg);
}

static void test_no_lapack_yet(void)
{
    kf_section sec = {2e11, 7800, 1e-4, 1e-8};
    kf_body *b = straight_body(KF_BEAM2, 3, 1.0, &sec);
    unsigned char fixed[12] = {1, 1, 0};
    kf_eig *e = NULL;
    kf_error err = {0};
    CHECK(kf_eig_create(&e, b, fixed, 0, &err) == KF_ENOLAPACK && e == NULL, "%s", err.msg);
    kf_body_free(b);
}

static void test_matrices(void)
{
    /* the same tridiagonal-plus system solved in band and dense storage */
    int n = 9;
    kf_mat Ab, Ad;
    CHECK(kf_mat_alloc(&Ab, KF_BAND, n, 2, 1, NULL) == KF_OK, "band alloc");
    CHECK(kf_mat_alloc(&Ad, KF_DENSE, n, 0, 0, NULL) == KF_OK, "dense alloc");
    for (int i = 0; i < n; i++)
        for (int j = i - 2; j <= i + 1; j++)
            if (j >= 0 && j < n) {
                double v = (i == j) ? 4.0 + i : 1.0 / (1 + i + 2 * j);
                CHECK(kf_mat_add(&Ab, i, j, v) == KF_OK, "band add %d %d", i, j);
                kf_mat_add(&Ad, i, j, v);
            }
    CHECK(kf_mat_add(&Ab, 0, 3, 1.0) == KF_EINVAL, "outside the band must be refused");
    CHECK(kf_mat_add(&Ab, -1, 0, 1.0) == KF_EINVAL, "negative index must be refused");
    double x[9], yb[9], yd[9];
    for (int i = 0; i < n; i++)
        x[i] = sin(i + 1.0);
    kf_mat_gemv(&Ab, 1.0, x, 0.0, yb);
    kf_mat_gemv(&Ad, 1.0, x, 0.0, yd);
    for (int i = 0; i < n; i++)
        CHECK(fabs(yb[i] - yd[i]) < 1e-15 * (1 + fabs(yd[i])), "gemv row %d", i);
    int ipb[9], ipd[9];
    kf_error err = {0};
    CHECK(kf_mat_lu(&Ab, ipb, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_mat_lu(&Ad, ipd, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_mat_lu_solve(&Ab, ipb, 1, yb, n, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_mat_lu_solve(&Ad, ipd, 1, yd, n, &err) == KF_OK, "%s", err.msg);
    for (int i = 0; i < n; i++)
        CHECK(fabs(yb[i] - x[i]) < 1e-13 && fabs(yd[i] - x[i]) < 1e-13, "solve %d", i);
    CHECK(kf_mat_lu_solve(&Ab, ipb, 1, yb, n - 1, &err) == KF_EINVAL, "ldb < n must be refused");
    kf_mat S;
    CHECK(kf_mat_alloc(&S, KF_DENSE, 3, 0, 0, NULL) == KF_OK, "alloc");
    CHECK(kf_mat_lu(&S, ipd, &err) == KF_ESING, "a zero matrix is singular: %s", err.msg);
    kf_mat bad;
    CHECK(kf_mat_alloc(&bad, KF_DENSE, -1, 0, 0, &err) == KF_EINVAL, "negative order");
    kf_mat_free(&Ab);
    kf_mat_free(&Ad);
    kf_mat_free(&S);
}

static void test_body(void)
{
    double E = 2.1e11, rho = 7850, A = 3e-4, I = 2.5e-9, len = 0.37;
    kf_section sec = {E, rho, A, I};
    kf_body *b = straight_body(KF_BEAM2, 1, len, &sec);
    const kf_mat *M = kf_body_mass(b), *K = kf_body_stiffness(b);
    double m = rho * A;
    CHECK(fabs(kf_mat_get(M, 1, 1) - 156 * m * len / 420) < 1e-15, "M(v1, v1)");
    CHECK(fabs(kf_mat_get(M, 2, 2) - 4 * m * len * len * len / 420) < 1e-17, "M(t1, t1)");
    CHECK(fabs(kf_mat_get(K, 1, 1) - 12 * E * I / pow(len, 3)) < 1e-9 * E * I / pow(len, 3),
          "K(v1, v1)");
    CHECK(fabs(kf_mat_get(K, 0, 3) + E * A / len) < 1e-12 * E * A / len, "K(u1, u2)");
    /* S_yx(v1, u1) = 7/20 m l (docs/theory.md section 2) */
    CHECK(fabs(kf_mat_get(kf_body_S(b, 1, 0), 1, 0) - 0.35 * m * len) < 1e-15, "S_yx");
    kf_body_free(b);

    /* motion terms of a 6-element beam */
    b = straight_body(KF_BEAM2, 6, 1.0, &sec);
    int n = kf_body_ndof(b);
    M = kf_body_mass(b);
    kf_mat C, Ke, Ko;
    kf_mat_alloc(&C, M->kind, n, M->kl, M->ku, NULL);
    kf_mat_alloc(&Ke, M->kind, n, M->kl, M->ku, NULL);
    kf_mat_alloc(&Ko, M->kind, n, M->kl, M->ku, NULL);
    double *q = calloc((size_t)3 * n, sizeof(double));
    kf_frame kin = {{0, 0, 3.0}, {0, 0, -20.0}, {0, 0, 0}, {1.0, -2.0, 0}};
    kf_error err = {0};
    CHECK(kf_body_motion_terms(b, &kin, &C, &Ke, &Ko, q, q + n, q + 2 * n, &err) == KF_OK,
          "%s", err.msg);
    double big = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            big = fmax(big, fabs(kf_mat_get(M, i, j)));
            CHECK(fabs(kf_mat_get(&C, i, j) + kf_mat_get(&C, j, i)) < 1e-15, "C skew");
            CHECK(fabs(kf_mat_get(&Ke, i, j) + kf_mat_get(&Ke, j, i)) < 1e-15, "K_eps skew");
            CHECK(fabs(kf_mat_get(&Ko, i, j) + 9.0 * kf_mat_get(M, i, j)) < 1e-13, "K_om = -w^2 M");
        }
    /* total axial inertial load of the origin's acceleration: m L a_x */
    double sx = 0.0;
    for (int i = 0; i < n; i += 3)
        sx += q[2 * n + i];
    CHECK(fabs(sx - m * 1.0 * 1.0) < 1e-12, "sum q_a (u) = %g", sx);
    kf_frame bad = kin;
    bad.eps[2] = NAN;
    CHECK(kf_body_motion_terms(b, &bad, &C, NULL, NULL, NULL, NULL, NULL, &err) == KF_EINVAL &&
              strstr(err.msg, "finite"),
          "%s", err.msg);
    free(q);
    kf_mat_free(&C);
    kf_mat_free(&Ke);
    kf_mat_free(&Ko);
    kf_body_free(b);

    /* invalid bodies */
    double xy[6] = {0, 0, 1, 0, 2, 0};
    int conn_bad[2] = {0, 7}, conn_ok[4] = {0, 1, 1, 2};
    kf_body *out = (kf_body *)&err; /* must be reset to NULL on failure */
    CHECK(kf_body_create(&out, KF_BEAM2, 3, xy, 1, conn_bad, &sec, &err) == KF_EINVAL &&
              out == NULL && !strcmp(err.arg, "conn"),
          "%s", err.msg);
    CHECK(kf_body_create(&out, 42, 3, xy, 2, conn_ok, &sec, &err) == KF_EINVAL, "kind");
    CHECK(kf_body_create(&out, KF_BEAM2, 3, xy, 0, conn_ok, &sec, &err) == KF_EINVAL, "nel");
    CHECK(kf_body_create(&out, KF_BEAM2, 3, NULL, 2, conn_ok, &sec, &err) == KF_EINVAL, "NULL");
    kf_section neg = sec;
    neg.Izz = -1.0;
    CHECK(kf_body_create(&out, KF_BEAM2, 3, xy, 2, conn_ok, &neg, &err) == KF_EINVAL &&
              !strcmp(err.arg, "I"),
          "%s", err.msg);
}

static void test_eigen(void)
{
    double E = 2.1e11, rho = 7850, A = 4e-4, I = 3.3e-9, len = 1.2;
    kf_section sec = {E, rho, A, I};
    int nel = 40;
    kf_body *b = straight_body(KF_BEAM2, nel, len, &sec);
    int n = kf_body_ndof(b);
    unsigned char *fixed = calloc((size_t)n, 1);
    fixed[0] = fixed[1] = fixed[n - 3] = fixed[n - 2] = 1; /* pinned-pinned */
    kf_eig *e = NULL;
    kf_error err = {0};
    CHECK(kf_eig_create(&e, b, fixed, 0, &err) == KF_OK, "%s", err.msg);
    if (!e)
        return;
    CHECK(kf_eig_nfree(e) == n - 4, "nfree");
    int nt = 3, m = 2;
    kf_frame kin[3];
    memset(kin, 0, sizeof kin);
    kin[1].omega[2] = kin[2].omega[2] = 10.0;
    kin[2].eps[2] = 500.0;
    double re[6], im[6], *modes = calloc((size_t)nt * n * m, sizeof(double));
    kf_eig_opts opt = {m, 1, 1, KF_ORDER_ASCENDING};
    kf_eig_stats st;
    CHECK(kf_eig_solve(e, nt, kin, NULL, &opt, re, im, modes, &st, &err) == KF_OK, "%s", err.msg);
    double w1 = PI * PI / (len * len) * sqrt(E * I / (rho * A));
    CHECK(fabs(sqrt(re[0]) / w1 - 1) < 5e-6, "pinned-pinned mode 1: %g vs %g", sqrt(re[0]), w1);
    CHECK(fabs(re[2] - (re[0] - 100.0)) < 1e-12 * re[0], "shift identity");
    CHECK(st.solver == KF_SOLVER_GENERAL && st.continued == 1, "third instant by continuation");
    CHECK(fabs(re[4] - re[2]) < 1e-3 * re[0], "small eps changes lambda a little");
    CHECK(modes[0] == 0.0 && modes[1] == 0.0, "zero at supports");

    /* errors */
    opt.n_modes = n;
    CHECK(kf_eig_solve(e, nt, kin, NULL, &opt, re, im, NULL, NULL, &err) == KF_EINVAL &&
              !strcmp(err.arg, "n_modes"),
          "%s", err.msg);
    opt.n_modes = 1;
    kin[1].omega[2] = INFINITY;
    CHECK(kf_eig_solve(e, nt, kin, NULL, &opt, re, im, NULL, NULL, &err) == KF_EINVAL, "%s", err.msg);
    CHECK(kf_eig_solve(e, -1, kin, NULL, &opt, re, im, NULL, NULL, &err) == KF_EINVAL, "%s", err.msg);
    kf_eig_free(e);
    memset(fixed, 1, (size_t)n);
    CHECK(kf_eig_create(&e, b, fixed, 0, &err) == KF_EINVAL && e == NULL, "%s", err.msg);
    free(modes);
    free(fixed);
    kf_body_free(b);
}

static void test_geometric(void)
{
    double E = 2.1e11, rho = 7800, A = 1e-4, I = 1e-8, len = 2.0;
    kf_section sec = {E, rho, A, I};
    kf_body *b = straight_body(KF_BEAM2, 5, len, &sec);
    const kf_mat *M = kf_body_mass(b);
    kf_mat G;
    kf_mat_alloc(&G, M->kind, M->n, M->kl, M->ku, NULL);
    kf_error err = {0};
    /* constant tension N0 on element 0 (length 0.4): K_G(v1, v1) = 36 N0 / (30 l) */
    double c[3] = {1000.0, 0.0, 0.0};
    CHECK(kf_body_geometric(b, c, 0.0, &G, &err) == KF_OK, "%s", err.msg);
    CHECK(fabs(kf_mat_get(&G, 1, 1) - 36 * 1000.0 / (30 * 0.4)) < 1e-9, "K_G(v1, v1) = %g",
          kf_mat_get(&G, 1, 1));
    c[1] = NAN;
    CHECK(kf_body_geometric(b, c, 0.0, &G, &err) == KF_EINVAL && !strcmp(err.arg, "axial_force"),
          "%s", err.msg);
    /* spinning, clamped at x = 0: N(x) = rho A W^2 (L^2 - x^2) / 2 */
    kf_frame kin;
    memset(&kin, 0, sizeof kin);
    kin.omega[2] = 10.0;
    CHECK(kf_body_axial_force(b, &kin, 0.0, 0.0, 1, 0, c, &err) == KF_OK, "%s", err.msg);
    double m = rho * A;
    CHECK(fabs(c[0] - m * 100 * 4 / 2) < 1e-12 && fabs(c[1]) < 1e-15 && fabs(c[2] + m * 50) < 1e-12,
          "c = %g %g %g", c[0], c[1], c[2]);
    CHECK(kf_body_axial_force(b, &kin, NAN, 0.0, 1, 0, c, &err) == KF_EINVAL, "%s", err.msg);
    kf_mat_free(&G);
    kf_body_free(b);
    /* a crooked body has no N(x) */
    double xy[6] = {0, 0, 1, 0.5, 2, 0};
    int conn[4] = {0, 1, 1, 2};
    CHECK(kf_body_create(&b, KF_BEAM2, 3, xy, 2, conn, &sec, &err) == KF_OK, "%s", err.msg);
    M = kf_body_mass(b);
    kf_mat_alloc(&G, M->kind, M->n, M->kl, M->ku, NULL);
    CHECK(kf_body_geometric(b, c, 0.0, &G, &err) == KF_EINVAL, "crooked body: %s", err.msg);
    unsigned char fixed[9] = {0};
    kf_eig *e = NULL;
    CHECK(kf_eig_create(&e, b, fixed, KF_EIG_GEOMETRIC, &err) == KF_EINVAL && !e, "%s", err.msg);
    /* ... until it is given a prestress basis (docs/theory.md section 2.11): 8 load cases
     * (a: 2, E + WW: 4, two end loads); the last one a uniform stretch u = eps x, so every
     * element carries N = EA eps and K_G's form on a rigid rotation theta about z is
     * EA eps (l1 + l2) theta^2 */
    double u[8 * 9] = {0}, axes[4] = {1, 0, 1, 0}, strain = 1e-4, th = 0.3;
    for (int k = 0; k < 3; k++) {
        u[7 * 9 + 3 * k] = strain * xy[2 * k];
        u[7 * 9 + 3 * k + 1] = strain * xy[2 * k + 1];
    }
    CHECK(kf_body_set_prestress(b, 7, u, axes, &err) == KF_EINVAL && !strcmp(err.arg, "fields"),
          "%s", err.msg);
    u[0] = NAN;
    CHECK(kf_body_set_prestress(b, 8, u, axes, &err) == KF_EINVAL, "%s", err.msg);
    u[0] = 0.0;
    CHECK(kf_body_set_prestress(b, 8, u, axes, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_body_nkg(b) == 8 && kf_body_prestressed(b), "nkg %d", kf_body_nkg(b));
    double cg[8] = {0, 0, 0, 0, 0, 0, 0, 1};
    CHECK(kf_body_geometric(b, cg, 0.0, &G, &err) == KF_OK, "%s", err.msg);
    double v[9], Gv[9] = {0}, form = 0.0;
    for (int k = 0; k < 3; k++) { /* theta e_z x (x, y) = theta (-y, x) */
        v[3 * k] = -th * xy[2 * k + 1];
        v[3 * k + 1] = th * xy[2 * k];
        v[3 * k + 2] = th;
    }
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++)
            Gv[i] += kf_mat_get(&G, i, j) * v[j];
    for (int i = 0; i < 9; i++)
        form += v[i] * Gv[i];
    double expect = E * A * strain * 2 * sqrt(1.25) * th * th;
    CHECK(fabs(form - expect) < 1e-10 * expect, "v K_G v = %.15g, expected %.15g", form, expect);
    /* the coefficients of an instant: a, E + WW, f_first, f_last */
    memset(&kin, 0, sizeof kin);
    kin.omega[2] = 2.0;
    kin.eps[2] = 3.0;
    kin.a[0] = 5.0;
    CHECK(kf_body_geometric_coefficients(b, &kin, 7.0, 11.0, 1, 0, cg, &err) == KF_OK, "%s",
          err.msg);
    CHECK(cg[0] == 5.0 && cg[1] == 0.0 && cg[2] == -4.0 && cg[3] == -3.0 && cg[4] == 3.0 &&
          cg[5] == -4.0 && cg[6] == 7.0 && cg[7] == 11.0, "c = %g %g %g %g %g %g %g %g", cg[0],
          cg[1], cg[2], cg[3], cg[4], cg[5], cg[6], cg[7]);
    CHECK(kf_body_axial_force(b, &kin, 0.0, 0.0, 1, 0, c, &err) == KF_EINVAL, "%s", err.msg);
    fixed[0] = fixed[1] = fixed[2] = 1;
    CHECK(kf_eig_create(&e, b, fixed, KF_EIG_GEOMETRIC, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_eig_nkg(e) == 8, "eig nkg %d", kf_eig_nkg(e));
    kf_eig_free(e);
    kf_mat_free(&G);
    kf_body_free(b);
}

/* ---------------------------------------------------------------- mechanisms (issues 4, 11) */

/* the reference configuration of kanefem.WindPumpParams, in kf_windpump_names order */
enum { WP_L1, WP_A1, WP_M1, WP_J1, WP_L2, WP_A2, WP_RHO2, WP_H, WP_PSI, WP_HG, WP_XI, WP_M3,
       WP_J3, WP_L, WP_MG, WP_E, WP_MD, WP_K, WP_XD0, WP_FR, WP_VF, WP_CD, WP_G, WP_BRANCH };
static void ref_pump(double *p)
{
    double v[KF_WINDPUMP_NPARAM] = {0.08, 0.05, 5.6, 0.04, 0.6, 2e-4, 7850.0, 0.25, PI, 0.10,
                                    0.0, 1.65, 0.0674, 0.40, 5.0, 0.10, 2.0, 2000.0, 0.55, 5.0,
                                    1e-3, 100.0, 9.81, 1.0};
    memcpy(p, v, sizeof v);
}

static int torque_law(double t, int k, const double *z, const double *zd, double *out,
                      void *params, kf_error *err)
{
    (void)t;
    (void)z;
    (void)err;
    *out = *(const double *)params - 0.2 * zd[k];
    return 0;
}

static int stopping_law(double t, int k, const double *z, const double *zd, double *out,
                        void *params, kf_error *err)
{
    (void)k, (void)z, (void)zd, (void)params, (void)err;
    *out = 1.0;
    return t > 0.05; /* asks to stop */
}

static void test_windpump(void)
{
    double p[KF_WINDPUMP_NPARAM];
    ref_pump(p);
    kf_error err = {0};
    kf_mech *m = NULL;
    CHECK(kf_windpump_create(p, &m, &err) == KF_OK, "%s", err.msg);
    CHECK(!strcmp(kf_windpump_names[KF_WINDPUMP_NPARAM - 1], "branch") &&
              kf_windpump_names[KF_WINDPUMP_NPARAM] == NULL,
          "names table");
    CHECK(kf_mech_nbody(m) == 5 && kf_mech_njoint(m) == 6 && kf_mech_ncoord(m) == 2, "sizes");
    kf_mech_free(m);

    /* closure at round-off over a turn, both branches: C' of the lever and of the rocker */
    for (int br = -1; br <= 1; br += 2) {
        p[WP_BRANCH] = br;
        CHECK(kf_windpump_create(p, &m, &err) == KF_OK, "%s", err.msg);
        kf_mech_kin k;
        CHECK(kf_mech_kin_alloc(m, &k, &err) == KF_OK, "%s", err.msg);
        double worst = 0.0;
        for (int i = 0; i < 720; i++) {
            double z[2] = {2 * PI * i / 720.0, 0.55}, zd[2] = {14.7, 0.3};
            int rc = kf_mech_kinematics(m, z, zd, NULL, &k, &err);
            CHECK(rc == KF_OK, "%s", err.msg);
            const double *q = k.q;
            double cx = q[3] + 0.5 * p[WP_L2] * cos(q[5]) - q[12] - p[WP_H] * cos(q[8] + p[WP_PSI]);
            double cy = q[4] + 0.5 * p[WP_L2] * sin(q[5]) - q[13] - p[WP_H] * sin(q[8] + p[WP_PSI]);
            worst = fmax(worst, hypot(cx, cy));
        }
        CHECK(worst < 4e-15, "closure residual %g (branch %d)", worst, br);
        kf_mech_kin_free(&k);
        kf_mech_free(m);
    }
    p[WP_BRANCH] = 1;
    CHECK(kf_windpump_create(p, &m, &err) == KF_OK, "%s", err.msg);

    /* Kane: a prescribed crank acceleration needs a torque; that torque, applied, gives
     * the same accelerations with nothing prescribed; the joint forces' multiplier of
     * alpha is that torque, and of x_D nothing */
    enum { N = 15 };
    double z[2] = {0.7, 0.58}, zd[2] = {14.0, -0.4}, mass[N], Q[N], work[N], drive[2];
    double ud1[2] = {3.0, 0.0}, ud2[2], tau[2] = {0.0, 0.0};
    kf_mech_kin k;
    CHECK(kf_mech_kin_alloc(m, &k, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_mech_kinematics(m, z, zd, NULL, &k, &err) == KF_OK, "%s", err.msg);
    kf_mech_mass(m, mass);
    CHECK(kf_mech_applied(m, &k, Q, &err) == KF_OK, "%s", err.msg);
    unsigned char presc[2] = {1, 0};
    CHECK(kf_kane_work_size(N, 2) <= N, "work size");
    CHECK(kf_kane_solve(N, 2, mass, k.A, k.c, Q, NULL, presc, ud1, drive, work, &err) == KF_OK,
          "%s", err.msg);
    tau[0] = drive[0];
    CHECK(kf_kane_solve(N, 2, mass, k.A, k.c, Q, tau, NULL, ud2, NULL, work, &err) == KF_OK,
          "%s", err.msg);
    CHECK(fabs(ud2[0] - 3.0) < 1e-12 && fabs(ud2[1] - ud1[1]) < 1e-12 * (1 + fabs(ud1[1])),
          "prescribed vs free: %g %g / %g %g", ud2[0], ud2[1], ud1[0], ud1[1]);
    double fj[18], dr[2];
    CHECK(kf_mech_kinematics(m, z, zd, ud1, &k, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_mech_reactions(m, &k, fj, dr, &err) == KF_OK, "%s", err.msg);
    CHECK(fabs(dr[0] - drive[0]) < 1e-11 && fabs(dr[1]) < 1e-11, "M_m %g vs %g, R %g", dr[0],
          drive[0], dr[1]);
    /* the crank's balance: F_A - F_B + m1 g = m1 a1 (joint 0 ground on crank, joint 1 crank
     * on lever) */
    double ax = fj[0] - fj[3] - mass[0] * k.qdd[0];
    double ay = fj[1] - fj[4] - mass[0] * p[WP_G] - mass[0] * k.qdd[1];
    CHECK(hypot(ax, ay) < 1e-11, "crank Newton: %g %g", ax, ay);
    CHECK(kf_kane_solve(N, 0, mass, k.A, k.c, Q, NULL, NULL, ud2, NULL, work, &err) ==
              KF_EINVAL && !strcmp(err.arg, "nu"),
          "%s", err.msg);

    /* geometry errors name alpha and x_D */
    double far[2] = {0.3, 1.5};
    CHECK(kf_mech_kinematics(m, far, zd, NULL, &k, &err) == KF_EGEOM &&
              strstr(err.msg, "alpha = 0.3") && strstr(err.msg, "x_D = 1.5"),
          "%s", err.msg);
    double dead[2] = {0.0, p[WP_L1] + sqrt((p[WP_L2] + p[WP_H]) * (p[WP_L2] + p[WP_H]) *
                                               (1 - 1e-13) - p[WP_E] * p[WP_E])};
    CHECK(kf_mech_kinematics(m, dead, zd, NULL, &k, &err) == KF_EGEOM &&
              strstr(err.msg, "dead point"),
          "%s", err.msg);
    kf_mech_kin_free(&k);

    /* invalid parameters */
    kf_mech *bad = NULL;
    double q[KF_WINDPUMP_NPARAM];
    memcpy(q, p, sizeof q);
    q[WP_L2] = -0.6;
    CHECK(kf_windpump_create(q, &bad, &err) == KF_EINVAL && !strcmp(err.arg, "l2") && !bad,
          "%s", err.msg);
    memcpy(q, p, sizeof q);
    q[WP_BRANCH] = 0.0;
    CHECK(kf_windpump_create(q, &bad, &err) == KF_EINVAL && !strcmp(err.arg, "branch"), "%s",
          err.msg);
    memcpy(q, p, sizeof q);
    q[WP_MG] = NAN;
    CHECK(kf_windpump_create(q, &bad, &err) == KF_EINVAL && !strcmp(err.arg, "M3"), "%s",
          err.msg);

    /* time integration: constant speed, torque law, errors */
    enum { NT = 61 };
    double t[NT], states[NT * 8], z0[2] = {0.0, 0.55}, zd0[2] = {0.0, 0.0};
    for (int i = 0; i < NT; i++)
        t[i] = 0.005 * i;
    kf_ode_opts opts = {.rtol = 1e-9, .atol = 1e-12};
    kf_stats st;
    kf_mech_drive speed[2] = {{KF_DRIVE_SPEED, 14.660765716752367}, {KF_DRIVE_FREE}};
    CHECK(kf_mech_simulate(m, speed, z0, zd0, NT, t, &opts, states, &st, &err) == KF_OK, "%s",
          err.msg);
    CHECK(st.steps > 0 && st.evaluations >= 6 * st.steps, "stats %ld %ld", st.steps,
          st.evaluations);
    double last_alpha = states[(NT - 1) * 8];
    CHECK(fabs(last_alpha - 14.660765716752367 * 0.3) < 1e-14, "exact crank angle %g",
          last_alpha);
    double M0 = 8.0;
    kf_mech_drive law[2] = {{KF_DRIVE_FREE, 0.0, NULL, torque_law, &M0}, {KF_DRIVE_FREE}};
    zd0[0] = 12.0;
    CHECK(kf_mech_simulate(m, law, z0, zd0, NT, t, &opts, states, &st, &err) == KF_OK, "%s",
          err.msg);
    const double *row = states + 30 * 8;
    CHECK(fabs(row[6] - (8.0 - 0.2 * row[2])) < 1e-14, "torque output %g", row[6]);
    kf_mech_drive stop[2] = {{KF_DRIVE_FREE, 0.0, NULL, stopping_law, NULL}, {KF_DRIVE_FREE}};
    CHECK(kf_mech_simulate(m, stop, z0, zd0, NT, t, &opts, states, &st, &err) == KF_ECALLBACK &&
              strstr(err.msg, "torque law"),
          "%s", err.msg);
    t[5] = t[4];
    CHECK(kf_mech_simulate(m, speed, z0, zd0, NT, t, &opts, states, &st, &err) == KF_EINVAL &&
              !strcmp(err.arg, "t"),
          "%s", err.msg);
    t[5] = 0.025;
    opts.rtol = 0.0;
    CHECK(kf_mech_simulate(m, speed, z0, zd0, NT, t, &opts, states, &st, &err) == KF_EINVAL &&
              !strcmp(err.arg, "rtol"),
          "%s", err.msg);
    opts.rtol = 1e-9;
    z0[1] = 1.5;
    CHECK(kf_mech_simulate(m, speed, z0, zd0, NT, t, &opts, states, &st, &err) == KF_EGEOM &&
              strstr(err.msg, "initial state"),
          "%s", err.msg);
    kf_mech_free(m);
    /* a free slider thrown out of the assembly region: the error says when */
    memcpy(q, p, sizeof q);
    q[WP_K] = q[WP_CD] = q[WP_FR] = 0.0;
    CHECK(kf_windpump_create(q, &m, &err) == KF_OK, "%s", err.msg);
    double z1[2] = {0.0, 0.55}, zd1[2] = {0.0, 3.0};
    CHECK(kf_mech_simulate(m, speed, z1, zd1, NT, t, &opts, states, &st, &err) == KF_EGEOM &&
              strstr(err.msg, "at t = "),
          "%s", err.msg);
    kf_mech_free(m);
}

/* A slider-crank described directly (no assembly rule): continuation from the drawing,
 * rates against the closed form, and the description's errors. */
static void test_mechanism(void)
{
    const double r = 0.15, l = 0.30;
    double mass[3] = {0.2, 0.0667, 0.0333}, inertia[3] = {4e-4, 5e-4, 0.0};
    double q0[9] = {r / 2, 0.0, 0.0, r + l / 2, 0.0, 0.0, r + l, 0.0, 0.0};
    kf_joint joints[4] = {
        {KF_REVOLUTE, {-1, 0}, {0.0, 0.0}, {-r / 2, 0.0}},
        {KF_REVOLUTE, {0, 1}, {r / 2, 0.0}, {-l / 2, 0.0}},
        {KF_REVOLUTE, {1, 2}, {l / 2, 0.0}, {0.0, 0.0}},
        {KF_PRISMATIC, {-1, 2}, {r + l, 0.0}, {0.0, 0.0}, {1.0, 0.0}},
    };
    kf_coord coords[1] = {{KF_COORD_JOINT, 0, "crank"}};
    kf_mech_desc d = {.nbody = 3, .mass = mass, .inertia = inertia, .q0 = q0, .njoint = 4,
                      .joints = joints, .ncoord = 1, .coords = coords};
    kf_mech *m = NULL;
    kf_error err = {0};
    CHECK(kf_mech_create(&m, &d, &err) == KF_OK, "%s", err.msg);
    kf_mech_kin k;
    CHECK(kf_mech_kin_alloc(m, &k, &err) == KF_OK, "%s", err.msg);
    /* positions continued around two turns in steps of 0.3 rad: the slider's x in closed
     * form, x = r cos a + sqrt(l^2 - r^2 sin^2 a); velocity and acceleration too */
    double worst = 0.0, worst_v = 0.0, worst_a = 0.0, w = 3.0, e = -7.0;
    for (int i = 0; i <= 42; i++) {
        double a = 0.3 * i, s = sin(a), c = cos(a), root = sqrt(l * l - r * r * s * s);
        CHECK(kf_mech_kinematics(m, &a, &w, &e, &k, &err) == KF_OK, "%s", err.msg);
        double x = r * c + root;
        double dxda = -r * s - r * r * s * c / root;
        double d2 = -r * c - r * r * (c * c - s * s) / root - r * r * r * r * s * s * c * c /
                                                              (root * root * root);
        worst = fmax(worst, fabs(k.q[6] - x));
        worst_v = fmax(worst_v, fabs(k.qd[6] - dxda * w));
        worst_a = fmax(worst_a, fabs(k.qdd[6] - (d2 * w * w + dxda * e)));
    }
    CHECK(worst < 1e-15 && worst_v < 1e-14 && worst_a < 1e-13, "slider x %g, v %g, a %g", worst,
          worst_v, worst_a);
    kf_mech_kin_free(&k);
    kf_mech_free(m);

    /* the slider's x as the coordinate: a dead point where the crank lies along the rod */
    kf_coord by_slider[1] = {{KF_COORD_X, 2, "x_B"}};
    d.coords = by_slider;
    CHECK(kf_mech_create(&m, &d, &err) == KF_EGEOM && strstr(err.msg, "dead point") &&
              strstr(err.msg, "x_B = 0.45 m"),
          "drawing at the dead point: %s", err.msg);
    d.coords = coords;
    /* errors in the description name the field */
    joints[1].body[1] = 7;
    CHECK(kf_mech_create(&m, &d, &err) == KF_EINVAL && !strcmp(err.arg, "joints") && !m, "%s",
          err.msg);
    joints[1].body[1] = 1;
    d.njoint = 3;
    CHECK(kf_mech_create(&m, &d, &err) == KF_EINVAL && strstr(err.msg, "degrees of freedom"),
          "%s", err.msg);
    d.njoint = 4;
    q0[3] = 5.0; /* a rod far away: Newton cannot assemble the drawing? it can: it moves */
    q0[4] = NAN;
    CHECK(kf_mech_create(&m, &d, &err) == KF_EINVAL && !strcmp(err.arg, "q0"), "%s", err.msg);
    q0[3] = r + l / 2;
    q0[4] = 0.0;
    mass[1] = -1.0;
    CHECK(kf_mech_create(&m, &d, &err) == KF_EINVAL && !strcmp(err.arg, "mass"), "%s", err.msg);
    mass[1] = 0.0667;
    /* a rod shorter than the crank cannot turn through: continuation stops there */
    joints[1].p1[0] = -0.05;
    joints[2].p0[0] = 0.05;
    q0[3] = r + 0.05;
    q0[6] = r + 0.1;
    joints[3].p0[0] = r + 0.1;
    CHECK(kf_mech_create(&m, &d, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_mech_kin_alloc(m, &k, &err) == KF_OK, "%s", err.msg);
    double a = 1.2;
    CHECK(kf_mech_kinematics(m, &a, NULL, NULL, &k, &err) == KF_EGEOM &&
              strstr(err.msg, "crank = 1.2 rad"),
          "%s", err.msg);
    kf_mech_kin_free(&k);
    kf_mech_free(m);
}

/* A spatial slider-crank (issue 22): a crank about z, its rod on a spherical and a
 * universal joint to a slider guided along x at height e above the crank's plane and h
 * aside; positions and rates against x = r cos a + sqrt(l^2 - (h - r sin a)^2 - e^2),
 * a motion in time, the joint forces, and errors named. */
static void test_spatial_mechanism(void)
{
    const double r = 0.1, l = 0.35, h = 0.04, e = 0.06;
    const double xB = r + sqrt(l * l - h * h - e * e);
    double A[3] = {r, 0.0, 0.0}, B[3] = {xB, h, e};
    double dl = sqrt((B[0] - A[0]) * (B[0] - A[0]) + h * h + e * e);
    double d[3] = {(B[0] - A[0]) / dl, h / dl, e / dl};
    kf_sbody bodies[3] = {
        {0.5, {1e-4, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3}, {r / 2, 0, 0}, {1, 0, 0, 0}},
        {0.8, {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3}, {(A[0] + B[0]) / 2, h / 2, e / 2}, {1, 0, 0, 0}},
        {1.5, {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3}, {xB, h, e}, {1, 0, 0, 0}},
    };
    /* the universal's axes: y (in the slider) and a2 = d x y / |d x y| (in the rod) */
    double a2[3] = {-d[2], 0.0, d[0]}, n2 = hypot(d[0], d[2]);
    a2[0] /= n2, a2[2] /= n2;
    double zy[3] = {a2[2], 0.0, -a2[0]}; /* y x a2 */
    double FU[9] = {0, a2[0], zy[0], 1, a2[1], zy[1], 0, a2[2], zy[2]};
    double FP[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0}; /* z' = x: the guide */
    double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    kf_sjoint joints[4];
    memset(joints, 0, sizeof joints);
    joints[0] = (kf_sjoint){.kind = KF_SJ_REVOLUTE, .body = {-1, 0}, .p1 = {-r / 2, 0, 0}, .name = "O"};
    joints[1] = (kf_sjoint){.kind = KF_SJ_SPHERICAL, .body = {0, 1}, .p0 = {r / 2, 0, 0},
                            .p1 = {A[0] - bodies[1].r[0], -h / 2, -e / 2}, .name = "A"};
    joints[2] = (kf_sjoint){.kind = KF_SJ_UNIVERSAL, .body = {2, 1},
                            .p1 = {B[0] - bodies[1].r[0], h / 2, e / 2}, .name = "B"};
    joints[3] = (kf_sjoint){.kind = KF_SJ_PRISMATIC, .body = {-1, 2}, .p0 = {xB, h, e}, .name = "guide"};
    memcpy(joints[0].f0, I3, sizeof I3);
    memcpy(joints[0].f1, I3, sizeof I3);
    memcpy(joints[1].f0, I3, sizeof I3);
    memcpy(joints[1].f1, I3, sizeof I3);
    memcpy(joints[2].f0, FU, sizeof FU);
    memcpy(joints[2].f1, FU, sizeof FU);
    memcpy(joints[3].f0, FP, sizeof FP);
    memcpy(joints[3].f1, FP, sizeof FP);
    kf_scoord coords[1] = {{KF_SC_JOINT, 0, 0, "crank"}};
    kf_smech_desc desc = {.nbody = 3, .bodies = bodies, .njoint = 4, .joints = joints, .ncoord = 1,
                          .coords = coords, .gravity = {0, 0, -9.81}};
    kf_smech *m = NULL;
    kf_error err = {0};
    CHECK(kf_smech_create(&m, &desc, &err) == KF_OK, "%s", err.msg);
    int all, kept = kf_smech_nrows(m, &all);
    CHECK(kept == 17 && all == 17, "rows %d of %d", kept, all);
    kf_smech_kin k;
    CHECK(kf_smech_kin_alloc(m, &k, &err) == KF_OK, "%s", err.msg);
    double worst = 0.0, worst_v = 0.0, w = 3.0;
    for (int i = 0; i <= 42; i++) {
        double a = 0.3 * i, s = sin(a), c = cos(a), g = h - r * s;
        double root = sqrt(l * l - g * g - e * e);
        CHECK(kf_smech_kinematics(m, &a, &w, NULL, &k, &err) == KF_OK, "%s", err.msg);
        worst = fmax(worst, fabs(k.q[14] - (r * c + root)));
        worst_v = fmax(worst_v, fabs(k.u[12] - (-r * s + g * r * c / root) * w));
    }
    CHECK(worst < 1e-14 && worst_v < 1e-13, "slider x %g, v %g", worst, worst_v);
    /* the joint forces balance the slider along the guide: the rod's push along x equals
     * m a_x less the drive's nothing (the guide is frictionless) */
    double fj[24], dr[1], zz = 0.7, zd = 4.0, zdd = 0.0;
    CHECK(kf_smech_kinematics(m, &zz, &zd, &zdd, &k, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_smech_reactions(m, &k, fj, dr, &err) == KF_OK, "%s", err.msg);
    /* on the slider: joint B's force reversed (the slider is its body 0) plus the guide's */
    double fx = -fj[12] + fj[18];
    CHECK(fabs(fx - 1.5 * k.ud[12]) < 1e-10 * (1 + fabs(fx)), "slider balance %g vs %g", fx,
          1.5 * k.ud[12]);
    kf_smech_kin_free(&k);
    /* the motion at constant speed, then under no drive */
    double t[5] = {0, 0.05, 0.1, 0.15, 0.2}, states[20], z0 = 0.0, zd0 = 2.0;
    kf_mech_drive speed = {KF_DRIVE_SPEED, 2.0}, free_drive = {KF_DRIVE_FREE};
    kf_ode_opts opts = {.rtol = 1e-9, .atol = 1e-12};
    kf_stats st;
    CHECK(kf_smech_simulate(m, &speed, &z0, &zd0, 5, t, &opts, states, &st, &err) == KF_OK, "%s",
          err.msg);
    CHECK(fabs(states[16] - 0.4) < 1e-12, "crank at 0.2 s: %g", states[16]);
    CHECK(kf_smech_simulate(m, &free_drive, &z0, &zd0, 5, t, &opts, states, &st, &err) == KF_OK,
          "%s", err.msg);
    CHECK(kf_smech_simulate(m, &free_drive, NULL, &zd0, 5, t, &opts, states, &st, &err) ==
              KF_EINVAL,
          "NULL z0");
    kf_smech_free(m);
    /* errors name the field */
    joints[2].f1[0] = 2.0;
    CHECK(kf_smech_create(&m, &desc, &err) == KF_EINVAL && strstr(err.msg, "joints[2] (B).f1") &&
              !m,
          "%s", err.msg);
    joints[2].f1[0] = 0.0;
    bodies[1].quat[0] = 0.0;
    CHECK(kf_smech_create(&m, &desc, &err) == KF_EINVAL && strstr(err.msg, "zero norm"), "%s",
          err.msg);
    bodies[1].quat[0] = 1.0;
    bodies[1].inertia[8] = 5e-3;
    CHECK(kf_smech_create(&m, &desc, &err) == KF_EINVAL && strstr(err.msg, "principal moments"),
          "%s", err.msg);
    bodies[1].inertia[8] = 1e-3;
    joints[1].kind = KF_SJ_REVOLUTE; /* 2 rows more, one of them redundant here */
    CHECK(kf_smech_create(&m, &desc, &err) == KF_EINVAL &&
              strstr(err.msg, "19 rows have rank 18") && strstr(err.msg, "'guide'"),
          "%s", err.msg);
    desc.redundant = 1; /* kept out, one row too many remains: the count */
    CHECK(kf_smech_create(&m, &desc, &err) == KF_EINVAL && strstr(err.msg, "degrees of freedom"),
          "%s", err.msg);
    desc.redundant = 0;
    joints[1].kind = KF_SJ_SPHERICAL;
    coords[0].component = 1;
    CHECK(kf_smech_create(&m, &desc, &err) == KF_EINVAL && strstr(err.msg, "component"), "%s",
          err.msg);
    coords[0].component = 0;
    CHECK(kf_smech_create(&m, NULL, &err) == KF_EINVAL && kf_smech_create(NULL, &desc, &err) ==
                                                             KF_EINVAL,
          "NULL description");
    kf_smech_free(NULL);
}

/* An elastic arm welded to a hub (issue 11, two ways): the coupled equations' elastic
 * rows against the moving-frame equations of the body (one way), and the errors. */
static int stop_at_once(double t, void *params)
{
    (void)t, (void)params;
    return 1;
}

static void test_flexmech(void)
{
    const double len = 2.0, rhoA = 1.2, om = 3.0;
    kf_section sec = {7e10, 3000.0, 4e-4, 2e-7};
    kf_body *b = straight_body(KF_BEAM2, 4, len, &sec);
    int ndof = kf_body_ndof(b);
    unsigned char fixed[15] = {1, 1, 1}; /* clamped at the hub */
    double m = rhoA * len, Jc = m * len * len / 12.0;
    double mass[2] = {0.0, m}, inertia[2] = {5.0, Jc};
    double q0[6] = {0.0, 0.0, 0.0, len / 2, 0.0, 0.0};
    kf_joint joints[2] = {{KF_REVOLUTE, {-1, 0}, {0.0, 0.0}, {0.0, 0.0}},
                          {KF_WELD, {0, 1}, {0.0, 0.0}, {-len / 2, 0.0}}};
    kf_coord coords[1] = {{KF_COORD_JOINT, 0, "hub"}};
    kf_mech_desc d = {.nbody = 2, .mass = mass, .inertia = inertia, .q0 = q0, .njoint = 2,
                      .joints = joints, .ncoord = 1, .coords = coords};
    kf_mech *mech = NULL;
    kf_error err = {0};
    CHECK(kf_mech_create(&mech, &d, &err) == KF_OK, "%s", err.msg);
    kf_mech_link link = {1, b, fixed, {0.0, 0.0}, 0};
    kf_flexmech *w = NULL;
    CHECK(kf_flexmech_create(&w, mech, 1, &link, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_flexmech_nelastic(w) == ndof - 3, "elastic DOFs %d", kf_flexmech_nelastic(w));

    /* turning at a constant speed, undeformed and at rest in its frame: M d'' = -q_om
     * (the centrifugal load), the one-way equation of docs/theory.md section 1 */
    kf_mech_drive speed[1] = {{KF_DRIVE_SPEED, om}};
    double z0[1] = {0.4}, zd[1] = {om}, dz[12] = {0}, ddz[12] = {0}, zdd[1], ddd[12], force[1];
    CHECK(kf_flexmech_dynamics(w, speed, 0.0, 0.0, z0, z0, zd, dz, ddz, zdd, ddd, force, NULL,
                               &err) == KF_OK,
          "%s", err.msg);
    kf_frame f = {{0.0, 0.0, om}};
    double qom[15], Ma[15] = {0}, full[15] = {0};
    CHECK(kf_body_motion_terms(b, &f, NULL, NULL, NULL, NULL, qom, NULL, &err) == KF_OK, "%s",
          err.msg);
    for (int i = 3; i < ndof; i++)
        full[i] = ddd[i - 3];
    kf_mat_gemv(kf_body_mass(b), 1.0, full, 0.0, Ma);
    double worst = 0.0, size = 0.0;
    for (int i = 3; i < ndof; i++) {
        worst = fmax(worst, fabs(Ma[i] + qom[i]));
        size = fmax(size, fabs(qom[i]));
    }
    CHECK(worst < 1e-12 * size && size > 1.0, "M d'' + q_om = %g of %g", worst, size);
    /* its torque: nothing at constant speed and no deflection rate */
    CHECK(fabs(force[0]) < 1e-12 && zdd[0] == 0.0, "torque %g", force[0]);

    /* a run: steps, statistics, and the options' errors */
    double t[3] = {0.0, 0.01, 0.02}, states[12], elastic[3 * 24], fj[3 * 6];
    kf_flex_opts o = {.dt = 0.005, .rho_inf = 0.8, .tol = 1e-8, .max_iter = 20};
    kf_stats st;
    CHECK(kf_flexmech_run(w, speed, z0, zd, NULL, 3, t, &o, states, elastic, fj, &st, &err) ==
              KF_OK && st.steps == 4,
          "%s (%ld steps)", err.msg, st.steps);
    CHECK(fabs(states[2 * 4] - (0.4 + om * 0.02)) < 1e-14, "prescribed angle %g", states[8]);
    o.max_steps = 2;
    CHECK(kf_flexmech_run(w, speed, z0, zd, NULL, 3, t, &o, states, elastic, fj, &st, &err) ==
              KF_ESTEPS,
          "%s", err.msg);
    o.max_steps = 0;
    o.progress = stop_at_once;
    CHECK(kf_flexmech_run(w, speed, z0, zd, NULL, 3, t, &o, states, elastic, fj, &st, &err) ==
              KF_ECALLBACK,
          "%s", err.msg);
    o.progress = NULL;
    o.rho_inf = 1.5;
    CHECK(kf_flexmech_run(w, speed, z0, zd, NULL, 3, t, &o, states, elastic, fj, &st, &err) ==
              KF_EINVAL && !strcmp(err.arg, "rho_inf"),
          "%s", err.msg);
    kf_flexmech_free(w);

    /* links that do not fit: another mass; a joint at a node the frame leaves free */
    mass[1] = 1.1 * m;
    kf_mech_free(mech);
    CHECK(kf_mech_create(&mech, &d, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_flexmech_create(&w, mech, 1, &link, &err) == KF_EINVAL && strstr(err.msg, "mass") &&
              !w,
          "%s", err.msg);
    mass[1] = m;
    kf_mech_free(mech);
    CHECK(kf_mech_create(&mech, &d, &err) == KF_OK, "%s", err.msg);
    unsigned char tipfixed[15] = {0};
    tipfixed[12] = tipfixed[13] = tipfixed[14] = 1; /* held at the tip, not at the weld */
    kf_mech_link loose = {1, b, tipfixed, {0.0, 0.0}, 0};
    CHECK(kf_flexmech_create(&w, mech, 1, &loose, &err) == KF_EINVAL &&
              strstr(err.msg, "leave free"),
          "%s", err.msg);
    kf_mech_free(mech);
    kf_body_free(b);
}

static void test_gyroscopic(void)
{
    kf_section sec = {2.1e11, 7850, 2e-4, 1.67e-9};
    kf_body *b = straight_body(KF_BEAM2, 8, 0.6, &sec);
    int n = kf_body_ndof(b);
    unsigned char *fixed = calloc((size_t)n, 1);
    fixed[0] = fixed[1] = fixed[n - 3] = fixed[n - 2] = 1;
    kf_eig *e = NULL;
    kf_error err = {0};
    CHECK(kf_eig_create(&e, b, fixed, KF_EIG_GEOMETRIC, &err) == KF_OK, "%s", err.msg);
    if (e) {
        kf_frame kin[2];
        memset(kin, 0, sizeof kin);
        kin[1].omega[2] = 40.0;
        kf_eig_opts opt = {2, 0, 0, KF_ORDER_ASCENDING};
        double re[4], im[4], lam[4], lim[4];
        CHECK(kf_eig_gyroscopic(e, 2, kin, NULL, &opt, re, im, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_eig_solve(e, 2, kin, NULL, &opt, lam, lim, NULL, NULL, &err) == KF_OK, "%s",
              err.msg);
        /* at rest s = i sqrt(lambda) */
        for (int k = 0; k < 2; k++)
            CHECK(fabs(re[k]) < 1e-9 * im[k] && fabs(im[k] * im[k] - lam[k]) < 1e-9 * lam[k],
                  "mode %d: s = %g + %gi, lambda = %g", k, re[k], im[k], lam[k]);
        /* with K_G from a tension: the same identity with the stiffened lambda */
        double kg[6] = {2000.0, -300.0, 100.0, 2000.0, -300.0, 100.0};
        CHECK(kf_eig_gyroscopic(e, 1, kin, kg, &opt, re, im, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_eig_solve(e, 1, kin, kg, &opt, lam, lim, NULL, NULL, &err) == KF_OK, "%s",
              err.msg);
        CHECK(fabs(im[0] * im[0] - lam[0]) < 1e-9 * lam[0], "K_G: s = %gi, lambda = %g", im[0],
              lam[0]);
        kg[4] = NAN;
        CHECK(kf_eig_gyroscopic(e, 2, kin, kg, &opt, re, im, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "axial_force"),
              "%s", err.msg);
        CHECK(kf_eig_gyroscopic(e, 2, kin, NULL, &opt, re, im, &err) == KF_OK, "%s", err.msg);
        /* rotating: still on the imaginary axis (C skew, K_eff symmetric) */
        CHECK(fabs(re[2]) < 1e-9 * im[2] && im[2] > 0.0, "s = %g + %gi", re[2], im[2]);
        opt.n_modes = n;
        CHECK(kf_eig_gyroscopic(e, 2, kin, NULL, &opt, re, im, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "n_modes"),
              "%s", err.msg);
        kf_eig_free(e);
    }
    free(fixed);
    kf_body_free(b);
}

/* ================================================================ time integration */

/*
 * A manufactured two-DOF gyroscopic problem with time-varying coefficients
 * and the known solution d(t) = (sin 2t + cos t, 0.5 cos 3t):
 *   M = diag(2, 1), G = g(t) J, g = 0.3 sin t, D = diag(0.1, 0.2),
 *   K_H = [[40 + 5 cos t, 1], [1, 25]], h = (0.1 t, 0.2 sin t),
 * b chosen so that p' = -G d' - D d' - K_H d + b holds; the second-order
 * form is C = 2 G + D, K = K_H + G', f = b - h'.
 */
typedef struct manu {
    kf_mat D;
    int calls;
} manu;

static void manu_d(double t, double *d, double *v, double *a)
{
    d[0] = sin(2 * t) + cos(t), d[1] = 0.5 * cos(3 * t);
    v[0] = 2 * cos(2 * t) - sin(t), v[1] = -1.5 * sin(3 * t);
    a[0] = -4 * sin(2 * t) - cos(t), a[1] = -4.5 * cos(3 * t);
}

static void manu_coef(double t, double G[4], double Gd[4], double KH[4], double h[2],
                      double hd[2])
{
    double g = 0.3 * sin(t), gd = 0.3 * cos(t);
    G[0] = 0, G[1] = g, G[2] = -g, G[3] = 0; /* column-major J = [[0, -1], [1, 0]] */
    Gd[0] = 0, Gd[1] = gd, Gd[2] = -gd, Gd[3] = 0;
    KH[0] = 40 + 5 * cos(t), KH[1] = 1, KH[2] = 1, KH[3] = 25;
    h[0] = 0.1 * t, h[1] = 0.2 * sin(t);
    hd[0] = 0.1, hd[1] = 0.2 * cos(t);
}

/* b = p' + G d' + D d' + K_H d with p' = M d'' + G' d + G d' + h' */
static void manu_b(double t, double b[2])
{
    double d[2], v[2], a[2], G[4], Gd[4], KH[4], h[2], hd[2], Dg[2] = {0.1, 0.2},
                                                              Mg[2] = {2, 1};
    manu_d(t, d, v, a);
    manu_coef(t, G, Gd, KH, h, hd);
    for (int i = 0; i < 2; i++) {
        b[i] = Mg[i] * a[i] + hd[i] + Dg[i] * v[i];
        for (int j = 0; j < 2; j++)
            b[i] += Gd[i + 2 * j] * d[j] + 2 * G[i + 2 * j] * v[j] + KH[i + 2 * j] * d[j];
    }
}

static void set2(kf_mat *A, const double *x)
{
    kf_mat_zero(A);
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            kf_mat_add(A, i, j, x[i + 2 * j]);
}

static int manu_second(double t, kf_mat *C, kf_mat *K, double *f, void *params, kf_error *err)
{
    manu *m = params;
    m->calls++;
    double G[4], Gd[4], KH[4], h[2], hd[2], b[2], c[4], k[4];
    manu_coef(t, G, Gd, KH, h, hd);
    manu_b(t, b);
    double Dg[4] = {0.1, 0, 0, 0.2};
    for (int i = 0; i < 4; i++) {
        c[i] = 2 * G[i] + Dg[i];
        k[i] = KH[i] + Gd[i];
    }
    set2(C, c);
    set2(K, k);
    f[0] = b[0] - hd[0], f[1] = b[1] - hd[1];
    return 0;
}

static int manu_canonical(double t, kf_mat *G, kf_mat *KH, double *h, double *b, void *params,
                          kf_error *err)
{
    manu *m = params;
    m->calls++;
    double g[4], gd[4], kh[4], hd[2];
    manu_coef(t, g, gd, kh, h, hd);
    set2(G, g);
    set2(KH, kh);
    manu_b(t, b);
    return 0;
}

/* Max error of method over [0, 2] with step h (RK: fixed step through a huge
 * rtol and max_step = h). */
static double manu_error(kf_mat *M, manu *pm, int method, double h, kf_stats *st)
{
    kf_lin2 prob = {2, M, &pm->D, manu_second, manu_canonical, pm};
    kf_integ_opts o = {0};
    o.method = method;
    o.dt = h;
    o.rho_inf = 0.6;
    o.rtol = 1e12, o.atol = 1e12, o.max_step = h;
    kf_integ *w = NULL;
    kf_error err = {0};
    if (kf_integ_create(&w, &prob, &o, &err)) {
        CHECK(0, "create: %s", err.msg);
        return NAN;
    }
    double d0[2], v0[2], a0[2], tout[21], dout[42], vout[42], pout[42];
    manu_d(0.0, d0, v0, a0);
    for (int k = 0; k <= 20; k++)
        tout[k] = 0.1 * k;
    int rc = kf_integ_run(w, 0.0, d0, v0, 21, tout, 2, NULL, dout, vout, pout, st, &err);
    CHECK(rc == KF_OK, "run: %s", err.msg);
    double e = 0.0;
    for (int k = 0; k <= 20; k++) {
        double d[2], v[2], a[2], G[4], Gd[4], KH[4], hh[2], hd[2];
        manu_d(tout[k], d, v, a);
        manu_coef(tout[k], G, Gd, KH, hh, hd);
        for (int i = 0; i < 2; i++) {
            e = fmax(e, fabs(dout[2 * k + i] - d[i]));
            e = fmax(e, fabs(vout[2 * k + i] - v[i]) / 4); /* |v| ~ 4 |d| */
            /* p = M v + G d + h */
            double p = (i ? 1.0 : 2.0) * v[i] + G[i] * d[0] + G[i + 2] * d[1] + hh[i];
            e = fmax(e, fabs(pout[2 * k + i] - p) / 8);
        }
    }
    kf_integ_free(w);
    return e;
}

static void test_integrators(void)
{
    kf_mat M;
    manu pm = {0};
    kf_mat_alloc(&M, KF_DENSE, 2, 0, 0, NULL);
    kf_mat_alloc(&pm.D, KF_DENSE, 2, 0, 0, NULL);
    kf_mat_add(&M, 0, 0, 2.0);
    kf_mat_add(&M, 1, 1, 1.0);
    kf_mat_add(&pm.D, 0, 0, 0.1);
    kf_mat_add(&pm.D, 1, 1, 0.2);
    /* observed orders on step halving: 2, 2, 5, 5 (the RK outputs between
     * steps come from the 4th-order dense output: outputs here fall on steps) */
    const int methods[4] = {KF_NEWMARK, KF_GENALPHA, KF_RK45_LAGRANGE, KF_RK45_HAMILTON};
    const double order[4] = {2, 2, 5, 5}, h0[4] = {0.02, 0.02, 0.05, 0.05};
    for (int q = 0; q < 4; q++) {
        kf_stats st;
        double e1 = manu_error(&M, &pm, methods[q], h0[q], &st);
        double e2 = manu_error(&M, &pm, methods[q], h0[q] / 2, &st);
        double p = log2(e1 / e2);
        /* the asymptotic order within 0.3 (pre-asymptotic terms at these steps) */
        CHECK(fabs(p - order[q]) < 0.3, "method %d: errors %g, %g, order %.3f", methods[q], e1,
              e2, p);
        if (q < 2)
            CHECK(st.steps == 200 && st.factorizations == 201 && st.rejected == 0,
                  "fixed steps: %ld steps %ld factorizations", st.steps, st.factorizations);
        else
            CHECK(st.steps == 80 && st.factorizations == 1, "RK at fixed step: %ld steps",
                  st.steps);
    }

    /* adaptive RK meets its tolerance (global error ~ tolerance x a modest factor) */
    kf_lin2 prob = {2, &M, &pm.D, manu_second, manu_canonical, &pm};
    kf_integ_opts o = {KF_RK45_HAMILTON, 0.0, 0.0, 1e-9, 1e-12, 0.0, 0, 0.0, NULL, NULL};
    kf_integ *w = NULL;
    kf_error err = {0};
    CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_OK, "%s", err.msg);
    double d0[2], v0[2], a0[2], tout[3] = {0.0, 1.234, 2.0}, dout[6], vout[6];
    manu_d(0.0, d0, v0, a0);
    kf_stats st;
    CHECK(kf_integ_run(w, 0.0, d0, v0, 3, tout, 2, NULL, dout, vout, NULL, &st, &err) == KF_OK,
          "%s", err.msg);
    double d[2], v[2], a[2];
    manu_d(1.234, d, v, a); /* an output between steps: dense output */
    CHECK(fabs(dout[2] - d[0]) < 1e-7 && fabs(dout[3] - d[1]) < 1e-7, "dense output %g %g",
          dout[2] - d[0], dout[3] - d[1]);
    CHECK(st.steps > 10 && st.rejected < st.steps, "adaptive steps %ld rejected %ld", st.steps,
          st.rejected);
    kf_integ_free(w);

    /* error paths */
    o.method = KF_NEWMARK;
    o.dt = 0.0;
    CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_EINVAL && !strcmp(err.arg, "dt") &&
              w == NULL,
          "non-positive step: %s", err.msg);
    o.dt = -1e-3;
    CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_EINVAL, "negative step");
    o.dt = NAN;
    CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_EINVAL, "NaN step");
    o.method = KF_GENALPHA, o.dt = 1e-2, o.rho_inf = 1.5;
    CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_EINVAL && !strcmp(err.arg, "rho_inf"),
          "%s", err.msg);
    o.method = KF_RK45_LAGRANGE, o.rtol = 0.0;
    CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_EINVAL && !strcmp(err.arg, "rtol"), "%s",
          err.msg);
    o.rtol = 1e-6, o.method = KF_RK45_HAMILTON;
    kf_lin2 noncanon = prob;
    noncanon.canonical = NULL;
    CHECK(kf_integ_create(&w, &noncanon, &o, &err) == KF_EINVAL && !strcmp(err.arg, "method"),
          "%s", err.msg);
    o.method = KF_NEWMARK, o.dt = 1e-2;
    CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_OK, "%s", err.msg);
    d0[1] = NAN;
    CHECK(kf_integ_run(w, 0.0, d0, v0, 3, tout, 2, NULL, dout, vout, NULL, &st, &err) ==
                  KF_EINVAL &&
              strstr(err.msg, "t = 0"),
          "NaN input: %s", err.msg);
    d0[1] = 0.5;
    double back[2] = {1.0, 0.5};
    CHECK(kf_integ_run(w, 0.0, d0, v0, 2, back, 2, NULL, dout, vout, NULL, &st, &err) ==
              KF_EINVAL,
          "decreasing output times: %s", err.msg);
    kf_integ_free(w);
    kf_mat_free(&M);
    kf_mat_free(&pm.D);
}

/* A 1-DOF unstable problem: d'' - 1e4 d = 0, d0 = 1: exp(100 t) passes 1e6 at t = 0.138. */
static int unstable_second(double t, kf_mat *C, kf_mat *K, double *f, void *params,
                           kf_error *err)
{
    kf_mat_zero(C);
    kf_mat_zero(K);
    kf_mat_add(K, 0, 0, -1e4);
    f[0] = 0.0;
    return *(int *)params && t > 0.05 ? -7 : 0; /* optionally stop at t > 0.05 */
}

static void test_divergence(void)
{
    kf_mat M;
    kf_mat_alloc(&M, KF_DENSE, 1, 0, 0, NULL);
    kf_mat_add(&M, 0, 0, 1.0);
    int stop = 0;
    kf_lin2 prob = {1, &M, NULL, unstable_second, NULL, &stop};
    for (int method = 0; method < 3; method++) {
        kf_integ_opts o = {method, method < 2 ? 1e-3 : 0.0, 0.5, 1e-8, 1e-10, 0.0, 0, 1e6,
                           NULL, NULL};
        kf_integ *w = NULL;
        kf_error err = {0};
        CHECK(kf_integ_create(&w, &prob, &o, &err) == KF_OK, "%s", err.msg);
        double d0 = 1.0, v0 = 0.0, tout[2] = {0.0, 1.0}, dout[2], vout[2];
        kf_stats st;
        int rc = kf_integ_run(w, 0.0, &d0, &v0, 2, tout, 1, NULL, dout, vout, NULL, &st, &err);
        double tdiv = 0.0;
        const char *at = strstr(err.msg, "t = ");
        if (at)
            tdiv = atof(at + 4);
        /* cosh(100 t) = 1e6 at t = 0.1451; the methods' own growth rates differ a little */
        CHECK(rc == KF_EDIVERGE && fabs(tdiv - 0.1451) < 0.01, "method %d: %d %s", method, rc,
              err.msg);
        /* a callback asking to stop: KF_ECALLBACK with the time */
        stop = 1;
        rc = kf_integ_run(w, 0.0, &d0, &v0, 2, tout, 1, NULL, dout, vout, NULL, &st, &err);
        CHECK(rc == KF_ECALLBACK && strstr(err.msg, "stopped at t = "), "method %d: %d %s",
              method, rc, err.msg);
        stop = 0;
        kf_integ_free(w);
    }
    kf_mat_free(&M);
}

static void test_spline(void)
{
    /* a cubic is reproduced exactly (not-a-knot), with its derivatives */
    int n = 9;
    double t[9], y[18], coef[8 * 2 * 4], out[6];
    for (int i = 0; i < n; i++) {
        t[i] = i * 0.3 + 0.05 * i * i; /* uneven */
        y[2 * i] = 1 - 2 * t[i] + 0.5 * t[i] * t[i] * t[i];
        y[2 * i + 1] = sin(t[i]);
    }
    kf_error err = {0};
    CHECK(kf_spline_fit(n, t, 2, y, coef, &err) == KF_OK, "%s", err.msg);
    double x = 1.37;
    CHECK(kf_spline_eval(n, t, 2, coef, x, out, &err) == KF_OK, "%s", err.msg);
    CHECK(fabs(out[0] - (1 - 2 * x + 0.5 * x * x * x)) < 1e-13, "value %g", out[0]);
    CHECK(fabs(out[1] - (-2 + 1.5 * x * x)) < 1e-12, "slope %g", out[1]);
    CHECK(fabs(out[2] - 3 * x) < 1e-11, "curvature %g", out[2]);
    CHECK(fabs(out[3] - sin(x)) < 1e-3, "sin interpolated: %g", out[3] - sin(x));
    CHECK(kf_spline_eval(n, t, 2, coef, t[n - 1] + 1e-9, out, &err) == KF_EINVAL &&
              strstr(err.msg, "outside"),
          "%s", err.msg);
    CHECK(kf_spline_fit(3, t, 2, y, coef, &err) == KF_EINVAL, "3 samples: %s", err.msg);
    t[4] = t[3];
    CHECK(kf_spline_fit(n, t, 2, y, coef, &err) == KF_EINVAL && !strcmp(err.arg, "t"), "%s",
          err.msg);
}

/* The body problem's two forms are the same equations: C = 2 G + D,
 * K = K_H + G', f = b - h' (derivatives by central differences in time),
 * here for a beam whose frame turns and translates along sampled splines. */
static void test_body_ode(void)
{
    kf_section sec = {2.1e11, 7850, 4e-4, 3e-9};
    kf_body *b = straight_body(KF_BEAM2, 4, 0.8, &sec);
    int ndof = kf_body_ndof(b);
    unsigned char fixed[15] = {1, 1, 0};
    fixed[ndof - 2] = 1;
    int ns = 40;
    double ts[40], ys[120], coef[39 * 3 * 4];
    for (int i = 0; i < ns; i++) {
        ts[i] = 0.05 * i;
        ys[3 * i] = 0.8 * ts[i] + 0.6 * sin(3 * ts[i]);      /* theta */
        ys[3 * i + 1] = 0.3 * cos(2 * ts[i]);                 /* x_O */
        ys[3 * i + 2] = 0.2 * ts[i] * ts[i];                  /* y_O */
    }
    kf_error err = {0};
    CHECK(kf_spline_fit(ns, ts, 3, ys, coef, &err) == KF_OK, "%s", err.msg);
    kf_motion_spline ms = {ns, ts, coef, {0.0, -9.81}};
    double Q0[15] = {0}, A[15] = {0}, om = 7.0, ph = 0.3;
    A[ndof - 3] = 50.0;
    Q0[7] = 3.0;
    kf_loads_harmonic lh = {ndof, 1, Q0, A, &om, &ph};
    kf_body_ode_opts bo = {fixed, kf_motion_spline_eval, &ms, kf_loads_harmonic_eval, &lh,
                           {2.0, 1e-5}, NULL, 0};
    kf_body_ode *ode = NULL;
    CHECK(kf_body_ode_create(&ode, b, &bo, &err) == KF_OK, "%s", err.msg);
    const kf_lin2 *sys = kf_body_ode_system(ode);
    int n = sys->n;
    CHECK(n == ndof - 3, "free DOFs %d", n);
    kf_mat C, K, G, KH, Gp, Gm, X;
    kf_mat_alloc_like(&C, sys->M, NULL);
    kf_mat_alloc_like(&K, sys->M, NULL);
    kf_mat_alloc_like(&G, sys->M, NULL);
    kf_mat_alloc_like(&KH, sys->M, NULL);
    kf_mat_alloc_like(&Gp, sys->M, NULL);
    kf_mat_alloc_like(&Gm, sys->M, NULL);
    kf_mat_alloc_like(&X, sys->M, NULL);
    double f[15], h[15], bb[15], hp[15], hm[15], tmp[15];
    double t = 0.87, dt = 1e-5;
    CHECK(sys->second(t, &C, &K, f, sys->params, &err) == 0, "%s", err.msg);
    CHECK(sys->canonical(t, &G, &KH, h, bb, sys->params, &err) == 0, "%s", err.msg);
    sys->canonical(t + dt, &Gp, &X, hp, tmp, sys->params, &err);
    sys->canonical(t - dt, &Gm, &X, hm, tmp, sys->params, &err);
    double ec = 0, ek = 0, ef = 0, sc = 0, sk = 0, sf = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double c2 = 2 * kf_mat_get(&G, i, j) + kf_mat_get(sys->D, i, j);
            double gd = (kf_mat_get(&Gp, i, j) - kf_mat_get(&Gm, i, j)) / (2 * dt);
            ec = fmax(ec, fabs(kf_mat_get(&C, i, j) - c2));
            ek = fmax(ek, fabs(kf_mat_get(&K, i, j) - kf_mat_get(&KH, i, j) - gd));
            sc = fmax(sc, fabs(kf_mat_get(&C, i, j)));
            sk = fmax(sk, fabs(kf_mat_get(&K, i, j) - kf_mat_get(&KH, i, j)));
        }
        double hd = (hp[i] - hm[i]) / (2 * dt);
        ef = fmax(ef, fabs(f[i] - (bb[i] - hd)));
        sf = fmax(sf, fabs(f[i]));
    }
    /* central differences of a smooth spline: O(dt^2) ~ 1e-10 relative, plus
     * round-off / dt ~ 1e-11 relative */
    CHECK(ec <= 1e-14 * sc, "C = 2 G + D: %g of %g", ec, sc);
    CHECK(ek <= 1e-6 * sk && sk > 0, "K = K_H + G': %g of %g", ek, sk);
    CHECK(ef <= 1e-6 * sf, "f = b - h': %g of %g", ef, sf);
    kf_mat *all[] = {&C, &K, &G, &KH, &Gp, &Gm, &X};
    for (int i = 0; i < 7; i++)
        kf_mat_free(all[i]);

    /* a motion outside its samples stops with a message naming t */
    double tt[2] = {0.0, 5.0}, dd[30], vv[30], x0[24] = {0};
    kf_integ_opts o = {KF_NEWMARK, 1e-3, 0.0, 0, 0, 0, 0, 0, NULL, NULL};
    kf_integ *w = NULL;
    CHECK(kf_integ_create(&w, sys, &o, &err) == KF_OK, "%s", err.msg);
    int rc = kf_integ_run(w, 0.0, x0, x0 + 12, 2, tt, ndof, kf_body_ode_map(ode), dd, vv, NULL,
                          NULL, &err);
    CHECK(rc == KF_EINVAL && strstr(err.msg, "outside the samples"), "%d %s", rc, err.msg);
    kf_integ_free(w);
    kf_body_ode_free(ode);
    /* geometric stiffness needs a straight body: fine here; all DOFs fixed is refused */
    memset(fixed, 1, sizeof fixed);
    CHECK(kf_body_ode_create(&ode, b, &bo, &err) == KF_EINVAL && ode == NULL, "%s", err.msg);
    kf_body_free(b);
}

/* The projected body (kf_body_project, docs/theory.md section 3.3): for a selection
 * basis it is the reduced body (bitwise, band kept); for a general basis every
 * invariant is T^T X T (against dense products, to round-off), S_ji = S_ij^T and M
 * exactly symmetric; a wide basis makes it CSR; a bad basis is refused by name; and a
 * body problem on the basis (loads T^T Q) steps like the reduced one. */
static void test_project(void)
{
    kf_section sec = {2.1e11, 7850, 4e-4, 3e-9};
    kf_body *b = straight_body(KF_BEAM2, 6, 0.9, &sec), *r = NULL, *p = NULL;
    kf_error err = {0};
    int n = kf_body_ndof(b); /* 21 */
    /* a selection: DOFs 0, 1 and n - 2 fixed */
    int map[21], ptr[22] = {0}, col[21], m = 0;
    double val[21];
    for (int i = 0; i < n; i++) {
        int keep = i > 1 && i != n - 2;
        if (keep) {
            map[m] = i;
            col[ptr[i]] = m++;
            val[ptr[i]] = 1.0;
        }
        ptr[i + 1] = ptr[i] + keep;
    }
    CHECK(kf_body_reduce(b, m, map, 0, &r, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_body_project(b, m, ptr, col, val, &p, &err) == KF_OK, "%s", err.msg);
    if (r && p) {
        double d = 0.0;
        CHECK(p->M.kind == KF_BAND, "a selection keeps the band");
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                d = fmax(d, fabs(kf_mat_get(&p->M, i, j) - kf_mat_get(&r->M, i, j)));
                d = fmax(d, fabs(kf_mat_get(&p->K, i, j) - kf_mat_get(&r->K, i, j)));
                for (int k = 0; k < 4; k++)
                    d = fmax(d, fabs(kf_mat_get(&p->S[k], i, j) - kf_mat_get(&r->S[k], i, j)));
                for (int k = 0; k < 3; k++)
                    d = fmax(d, fabs(kf_mat_get(&p->KG[k], i, j) - kf_mat_get(&r->KG[k], i, j)));
            }
        for (int i = 0; i < m; i++)
            d = fmax(d, fabs(p->s[3 * m + i] - r->s[3 * m + i]) + fabs(p->Mo[m + i] - r->Mo[m + i]));
        CHECK(d == 0.0, "selection vs reduced: %g", d);
    }
    kf_body_free(p);
    p = NULL;
    /* a general basis (ndof x 4, dense columns): against dense T^T X T */
    int nc = 4, gp[22], gc[21 * 4];
    double gv[21 * 4], T[21 * 4];
    for (int i = 0; i <= n; i++)
        gp[i] = nc * i;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < nc; c++) {
            gc[nc * i + c] = c;
            gv[nc * i + c] = T[i * nc + c] = sin(1.0 + 0.7 * i + 1.3 * c);
        }
    CHECK(kf_body_project(b, nc, gp, gc, gv, &p, &err) == KF_OK, "%s", err.msg);
    if (p) {
        CHECK(p->M.kind == KF_BAND || p->M.kind == KF_CSR, "kind %d", p->M.kind);
        const kf_mat *src[4] = {&b->M, &b->K, &b->S[1], &b->KG[1]};
        const kf_mat *dst[4] = {&p->M, &p->K, &p->S[1], &p->KG[1]};
        double worst = 0.0;
        for (int f = 0; f < 4; f++) {
            double big = 0.0, e = 0.0;
            for (int a = 0; a < nc; a++)
                for (int c = 0; c < nc; c++) {
                    double v = 0.0;
                    for (int i = 0; i < n; i++)
                        for (int j = 0; j < n; j++)
                            v += T[i * nc + a] * kf_mat_get(src[f], i, j) * T[j * nc + c];
                    e = fmax(e, fabs(kf_mat_get(dst[f], a, c) - v));
                    big = fmax(big, fabs(v));
                }
            worst = fmax(worst, e / big);
        }
        CHECK(worst <= 1e-13, "T^T X T: %g", worst);
        double asym = 0.0;
        for (int a = 0; a < nc; a++)
            for (int c = 0; c < nc; c++)
                asym = fmax(asym, fabs(kf_mat_get(&p->M, a, c) - kf_mat_get(&p->M, c, a)) +

                                      fabs(kf_mat_get(&p->S[1], a, c) - kf_mat_get(&p->S[2], c, a)));
        CHECK(asym == 0.0, "exact symmetry: %g", asym);
        double sv = 0.0;
        for (int i = 0; i < n; i++)
            sv += T[i * nc + 2] * b->Mo[n + i];
        CHECK(fabs(p->Mo[nc + 2] - sv) <= 1e-14 * fabs(sv), "T^T Mo: %g vs %g", p->Mo[nc + 2], sv);
    }
    kf_body_free(p);
    p = NULL;
    /* a tie between the first and the last node widens the band beyond twice: CSR */
    int tp[22], tc[22];
    double tv[22];
    for (int i = 0, q = 0; i < n; i++) {
        tp[i] = q;
        tc[q] = i == n - 3 ? 0 : (i < n - 3 ? i : i - 1);
        tv[q++] = 1.0; /* u at the last node = u at the first */
        tp[i + 1] = q;
    }
    CHECK(kf_body_project(b, n - 1, tp, tc, tv, &p, &err) == KF_OK && p && p->M.kind == KF_CSR &&
              p->pattern,
          "%s", err.msg);
    kf_body_free(p);
    p = NULL;
    /* bad bases are refused naming the basis */
    tc[3] = n + 5;
    CHECK(kf_body_project(b, n - 1, tp, tc, tv, &p, &err) == KF_EINVAL && !p &&
              !strcmp(err.arg, "basis"),
          "%s", err.msg);
    tc[3] = 2;
    tv[4] = NAN;
    CHECK(kf_body_project(b, n - 1, tp, tc, tv, &p, &err) == KF_EINVAL && !p, "%s", err.msg);
    CHECK(kf_body_project(b, 0, tp, tc, tv, &p, &err) == KF_EINVAL && !p, "%s", err.msg);
    /* the body problem on the selection basis is the reduced problem: the same f */
    kf_motion_constant mc = {9.0, 0.2, {0.0, -9.81}};
    double Q0[21] = {0}, A[21] = {0}, om = 7.0, ph = 0.3;
    A[n - 3] = 50.0;
    Q0[7] = 3.0;
    kf_loads_harmonic lh = {n, 1, Q0, A, &om, &ph};
    unsigned char fixed[21] = {1, 1};
    fixed[n - 2] = 1;
    kf_body_ode_opts o1 = {fixed, kf_motion_constant_eval, &mc, kf_loads_harmonic_eval, &lh,
                           {1.0, 1e-5}, NULL, 1};
    kf_body_ode_opts o2 = o1;
    o2.basis_ncol = m;
    o2.basis_ptr = ptr;
    o2.basis_col = col;
    o2.basis_val = val;
    kf_body_ode *e1 = NULL, *e2 = NULL;
    CHECK(kf_body_ode_create(&e1, b, &o1, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_body_ode_create(&e2, b, &o2, &err) == KF_OK && !kf_body_ode_map(e2), "%s", err.msg);
    if (e1 && e2) {
        const kf_lin2 *s1 = kf_body_ode_system(e1), *s2 = kf_body_ode_system(e2);
        kf_mat C1, K1, C2, K2;
        double f1[21], f2[21], d = 0.0;
        kf_mat_alloc_like(&C1, s1->M, NULL);
        kf_mat_alloc_like(&K1, s1->M, NULL);
        kf_mat_alloc_like(&C2, s2->M, NULL);
        kf_mat_alloc_like(&K2, s2->M, NULL);
        s1->second(0.31, &C1, &K1, f1, s1->params, &err);
        s2->second(0.31, &C2, &K2, f2, s2->params, &err);
        for (int i = 0; i < m; i++) {
            d = fmax(d, fabs(f1[i] - f2[i]));
            for (int j = 0; j < m; j++)
                d = fmax(d, fabs(kf_mat_get(&C1, i, j) - kf_mat_get(&C2, i, j)) +
                                fabs(kf_mat_get(&K1, i, j) - kf_mat_get(&K2, i, j)));
        }
        CHECK(s2->n == m && d == 0.0, "basis vs supports: %g", d);
        kf_mat_free(&C1);
        kf_mat_free(&K1);
        kf_mat_free(&C2);
        kf_mat_free(&K2);
    }
    kf_body_ode_free(e1);
    kf_body_ode_free(e2);
    kf_body_free(r);
    kf_body_free(b);
}

/* ---------------------------------------------------------------- formalisms (kf_direct.c) */

/* Deterministic uniform numbers in [-1, 1) (a 64-bit LCG; the test needs no
 * statistics, only states without structure). */
static double uniform(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 4503599627370496.0 - 1.0;
}

/* Kane's inertia forces by quadrature equal the invariant route
 * -(M d'' + C d' + (K_eps + K_om) d + q_a + q_eps + q_om) at random states,
 * for every element kind. */
static void test_direct_inertia_forces(void)
{
    kf_section sec = {2.1e11, 7850, 3e-4, 2.5e-9};
    int kinds[2] = {KF_BAR2, KF_BEAM2};
    unsigned long long rs = 12345;
    for (int kk = 0; kk < 2; kk++)
        for (int trial = 0; trial < 5; trial++) {
            int nel = 1 + trial * 3;
            kf_body *b = straight_body(kinds[kk], nel, 0.9, &sec);
            int n = kf_body_ndof(b);
            const kf_mat *M = kf_body_mass(b);
            kf_mat C, Ke, Ko;
            kf_mat_alloc(&C, M->kind, n, M->kl, M->ku, NULL);
            kf_mat_alloc(&Ke, M->kind, n, M->kl, M->ku, NULL);
            kf_mat_alloc(&Ko, M->kind, n, M->kl, M->ku, NULL);
            double *v = calloc((size_t)8 * n, sizeof(double));
            double *d = v, *dd = v + n, *ddd = v + 2 * n, *q = v + 3 * n, *f = v + 6 * n,
                   *ref = v + 7 * n;
            for (int i = 0; i < 3 * n; i++)
                v[i] = 1e-2 * uniform(&rs);
            kf_frame kin = {{0, 0, 30 * uniform(&rs)}, {0, 0, 400 * uniform(&rs)}, {0, 0, 0},
                          {50 * uniform(&rs), 50 * uniform(&rs), 0}};
            kf_error err = {0};
            CHECK(kf_body_motion_terms(b, &kin, &C, &Ke, &Ko, q, q + n, q + 2 * n, &err) == KF_OK,
                  "%s", err.msg);
            /* ref = -(M d'' + C d' + (K_eps + K_om) d + q_eps + q_om + q_a) */
            kf_mat_gemv(M, -1.0, ddd, 0.0, ref);
            kf_mat_gemv(&C, -1.0, dd, 1.0, ref);
            kf_mat_gemv(&Ke, -1.0, d, 1.0, ref);
            kf_mat_gemv(&Ko, -1.0, d, 1.0, ref);
            double scale = 0.0;
            for (int i = 0; i < n; i++) {
                ref[i] -= q[i] + q[n + i] + q[2 * n + i];
                scale = fmax(scale, fabs(ref[i]));
            }
            CHECK(kf_body_inertia_forces_direct(b, d, dd, ddd, &kin, f, &err) == KF_OK, "%s",
                  err.msg);
            double diff = 0.0;
            for (int i = 0; i < n; i++)
                diff = fmax(diff, fabs(f[i] - ref[i]));
            /* both are sums of a few hundred products of O(scale) terms: round-off */
            CHECK(diff <= 1e-13 * scale, "kind %d, %d elements: |direct - invariants| = %g of %g",
                  kinds[kk], nel, diff, scale);
            if (trial == 0) { /* errors name the argument */
                d[1] = NAN;
                CHECK(kf_body_inertia_forces_direct(b, d, dd, ddd, &kin, f, &err) == KF_EINVAL &&
                          !strcmp(err.arg, "d") && strstr(err.msg, "d[1]"),
                      "%s", err.msg);
                d[1] = 0.0;
                kf_frame bad = kin;
                bad.a[0] = INFINITY;
                CHECK(kf_body_inertia_forces_direct(b, d, dd, ddd, &bad, f, &err) == KF_EINVAL &&
                          !strcmp(err.arg, "a"),
                      "%s", err.msg);
                CHECK(kf_body_inertia_forces_direct(b, d, NULL, ddd, &kin, f, &err) == KF_EINVAL,
                      "NULL");
            }
            free(v);
            kf_mat_free(&C);
            kf_mat_free(&Ke);
            kf_mat_free(&Ko);
            kf_body_free(b);
        }
}

/* Max over |G B|, |B^T B - I|. */
static void basis_errors(int m, int n, const double *G, int nf, const double *B, double *gb,
                         double *orth)
{
    *gb = *orth = 0.0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < nf; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += G[i * n + k] * B[k + j * n];
            *gb = fmax(*gb, fabs(s));
        }
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += B[k + i * n] * B[k + j * n];
            *orth = fmax(*orth, fabs(s - (i == j)));
        }
}

static void test_null_basis(void)
{
    enum { N = 7 };
    /* rank 2 with a redundant third row (row 2 = row 0 + 2 row 1) */
    double G[3 * N] = {1, -1, 0, 0, 0, 0, 0, /**/ 0, 0, 0.6, 0.8, 0, 0, 0, /**/
                       1, -1, 1.2, 1.6, 0, 0, 0};
    double B[N * N], gb, orth;
    int nf = -1;
    kf_error err = {0};
    CHECK(kf_null_basis(3, N, G, 0.0, &nf, B, &err) == KF_OK, "%s", err.msg);
    CHECK(nf == N - 2, "nfree = %d, want %d (a redundant row does not count)", nf, N - 2);
    basis_errors(3, N, G, nf, B, &gb, &orth);
    CHECK(gb < 1e-15 && orth < 1e-15, "G B = %g, B^T B - I = %g", gb, orth);
    /* no constraint, or a zero row: every DOF free */
    CHECK(kf_null_basis(0, N, NULL, 0.0, &nf, B, &err) == KF_OK && nf == N && B[0] == 1.0 &&
              B[1] == 0.0,
          "m = 0");
    double Z[N] = {0};
    CHECK(kf_null_basis(1, N, Z, 0.0, &nf, B, &err) == KF_OK && nf == N, "zero row: %d", nf);
    /* all fixed */
    double I[N * N] = {0};
    for (int i = 0; i < N; i++)
        I[i * N + i] = 1.0;
    CHECK(kf_null_basis(N, N, I, 0.0, &nf, B, &err) == KF_OK && nf == 0, "identity: %d", nf);
    /* errors */
    G[4] = NAN;
    CHECK(kf_null_basis(3, N, G, 0.0, &nf, B, &err) == KF_EINVAL &&
              !strcmp(err.arg, "constraints") && strstr(err.msg, "G[0, 4]"),
          "%s", err.msg);
    CHECK(kf_null_basis(1, 0, G, 0.0, &nf, B, &err) == KF_EINVAL, "n = 0");
    CHECK(kf_null_basis(1, N, Z, NAN, &nf, B, &err) == KF_EINVAL && !strcmp(err.arg, "rtol"),
          "%s", err.msg);
}

/* Supports eliminated by deletion (kf_eig_create) and by projection onto an
 * orthonormal null-space basis of rotated constraint rows (kf_eig_create_projected):
 * the same eigenvalues, and mode shapes that satisfy the constraints. */
static void test_eig_projected(void)
{
    kf_section sec = {2.1e11, 7850, 4e-4, 3.3e-9};
    kf_body *b = straight_body(KF_BEAM2, 8, 1.1, &sec);
    int n = kf_body_ndof(b), m = 4;
    unsigned char *fixed = calloc((size_t)n, 1);
    fixed[0] = fixed[1] = fixed[n - 3] = fixed[n - 2] = 1;
    /* pinned-pinned as constraints in a rotated basis of (u, v) at each end */
    double c = cos(0.3), s = sin(0.3);
    double *G = calloc((size_t)m * n, sizeof(double)), *B = calloc((size_t)n * n, sizeof(double));
    G[0] = c, G[1] = s, G[n + 0] = -s, G[n + 1] = c;
    G[2 * n + n - 3] = c, G[2 * n + n - 2] = -s, G[3 * n + n - 3] = s, G[3 * n + n - 2] = c;
    kf_error err = {0};
    int nf = 0;
    CHECK(kf_null_basis(m, n, G, 0.0, &nf, B, &err) == KF_OK && nf == n - 4, "%s", err.msg);
    kf_eig *e1 = NULL, *e2 = NULL;
    CHECK(kf_eig_create(&e1, b, fixed, 0, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_eig_create_projected(&e2, b, nf, B, 0, &err) == KF_OK, "%s", err.msg);
    if (e1 && e2) {
        kf_frame kin[2];
        memset(kin, 0, sizeof kin);
        kin[1].omega[2] = 7.0;
        kin[1].eps[2] = 300.0;
        double r1[6], i1[6], r2[6], i2[6], *modes = calloc((size_t)2 * n * 3, sizeof(double));
        kf_eig_opts opt = {3, 1, 1, KF_ORDER_ASCENDING};
        CHECK(kf_eig_solve(e1, 2, kin, NULL, &opt, r1, i1, NULL, NULL, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_eig_solve(e2, 2, kin, NULL, &opt, r2, i2, modes, NULL, &err) == KF_OK, "%s", err.msg);
        /* the same problem in another basis: round-off amplified by the spread of the
         * spectrum (lambda_max / lambda_1 ~ 1e7 with the axial modes), as for the
         * general solver against scipy.linalg.eig */
        for (int k = 0; k < 6; k++)
            CHECK(fabs(r1[k] - r2[k]) < 1e-9 * fabs(r1[k]) && fabs(i1[k] - i2[k]) < 1e-9 * fabs(r1[k]),
                  "lambda %d: %.17g vs %.17g", k, r1[k], r2[k]);
        double at_support = 0.0;
        for (int k = 0; k < 3; k++)
            at_support = fmax(at_support, fabs(modes[0 * 3 + k]) + fabs(modes[(n - 2) * 3 + k]));
        CHECK(at_support < 1e-12, "modes at the supports: %g", at_support);
        free(modes);
    }
    kf_eig_free(e1);
    kf_eig_free(e2);
    CHECK(kf_eig_create_projected(&e2, b, 0, B, 0, &err) == KF_EINVAL && e2 == NULL &&
              !strcmp(err.arg, "constraints"),
          "%s", err.msg);
    B[3] = NAN;
    CHECK(kf_eig_create_projected(&e2, b, nf, B, 0, &err) == KF_EINVAL && e2 == NULL, "%s", err.msg);
    /* a basis with a zero column: the projected mass matrix is singular */
    for (int i = 0; i < n; i++) {
        B[i] = 1.0;
        B[i + n] = 0.0;
    }
    CHECK(kf_eig_create_projected(&e2, b, 2, B, 0, &err) == KF_ENOTPD && e2 == NULL &&
              !strcmp(err.arg, "constraints"),
          "%s", err.msg);
    free(G);
    free(B);
    free(fixed);
    kf_body_free(b);
}


/* ---------------------------------------------------------------- the ODE driver (kf_ode.c) */

/*
 * Test systems with exact solutions: DECAY y' = -y (y = e^-t from 1) and
 * QUAD y' = (4 t^3, 5 t^4) (y = (t^4, t^5) from 0).  After t_fail the
 * right-hand side returns fail_rc (> 0 recoverable, < 0 stop), or an
 * infinite derivative if fail_rc = 0, describing the failure in err when
 * fail_code is set; with domain > 0 it also fails recoverably wherever a
 * stage strays more than domain from e^-t.  Outputs are recorded, with
 * whether each one is the point of the last evaluation (a step end).
 */
enum { ODE_DECAY, ODE_QUAD, ODE_MAXOUT = 64 };
typedef struct {
    int kind, n;
    double t_fail;
    int fail_rc, fail_code;
    double domain;
    double out_y[ODE_MAXOUT][2];
    int at_step_end;
    double last_t, last_y[2];
} ode_test;

static ode_test ode_case(int kind)
{
    ode_test c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.n = kind == ODE_DECAY ? 1 : 2;
    c.t_fail = INFINITY;
    return c;
}

static int ode_f(double t, const double *y, double *dy, void *params, kf_error *err)
{
    ode_test *c = params;
    c->last_t = t;
    memcpy(c->last_y, y, (size_t)c->n * sizeof(double));
    if (t > c->t_fail && c->fail_rc == 0) {
        dy[0] = INFINITY;
        return 0;
    }
    if (t > c->t_fail) {
        if (c->fail_code) {
            err->code = c->fail_code;
            snprintf(err->arg, sizeof err->arg, "wall");
            snprintf(err->msg, sizeof err->msg, "a wall at t = %g", c->t_fail);
        }
        return c->fail_rc;
    }
    if (c->domain > 0.0 && fabs(y[0] - exp(-t)) > c->domain)
        return 1;
    if (c->kind == ODE_DECAY) {
        dy[0] = -y[0];
    } else {
        dy[0] = 4.0 * t * t * t;
        dy[1] = 5.0 * t * t * t * t;
    }
    return 0;
}

static int ode_out(int k, double t, const double *y, void *params, kf_error *err)
{
    ode_test *c = params;
    if (k >= ODE_MAXOUT)
        return -1;
    memcpy(c->out_y[k], y, (size_t)c->n * sizeof(double));
    c->at_step_end += t == c->last_t && !memcmp(y, c->last_y, (size_t)c->n * sizeof(double));
    return 0;
}

static int ode_solve(ode_test *c, int land, kf_ode_opts o, int nout, const double *tout,
                     kf_stats *st, kf_error *err)
{
    kf_ode_system sys = {c->n, ode_f, ode_out, NULL, c, land};
    kf_ode *w = NULL;
    int rc = kf_ode_create(&w, &sys, &o, err);
    double y0[2] = {c->kind == ODE_DECAY ? 1.0 : 0.0, 0.0};
    if (!rc)
        rc = kf_ode_run(w, 0.0, y0, nout, tout, st, err);
    kf_ode_free(w);
    return rc;
}

/* the time a message names after "at t = " (or "t = "), NAN if none */
static double time_in(const char *msg)
{
    const char *at = strstr(msg, "t = ");
    return at ? atof(at + 4) : NAN;
}

static void test_ode(void)
{
    kf_stats st;
    kf_error err = {0};
    /* fixed steps: tolerances no step can miss, and max_step = first_step = h */
    kf_ode_opts fixed = {.rtol = 1e6, .atol = 1e6};

    /* order 5 at step ends on y' = -y, and the cost: 6 evaluations a step (FSAL) */
    double t01[2] = {0.0, 1.0}, e[2];
    for (int i = 0; i < 2; i++) {
        ode_test c = ode_case(ODE_DECAY);
        double h = 0.1 / (1 << i);
        fixed.first_step = fixed.max_step = h;
        CHECK(ode_solve(&c, 0, fixed, 2, t01, &st, &err) == KF_OK, "%s", err.msg);
        e[i] = fabs(c.out_y[1][0] - exp(-1.0));
        CHECK(st.steps == 10 << i && st.rejected == 0 && st.evaluations == 1 + 6 * st.steps,
              "h = %g: %ld steps, %ld rejected, %ld evaluations", h, st.steps, st.rejected,
              st.evaluations);
    }
    /* the asymptotic order within 0.3 (h = 0.1 is close to it for e^-t) */
    CHECK(fabs(log2(e[0] / e[1]) - 5.0) < 0.3, "order %.3f (errors %g, %g)", log2(e[0] / e[1]),
          e[0], e[1]);

    /* Hairer's continuous extension has order 4: between step ends it reproduces
     * t^4 (the integral of a cubic) to round-off, and t^5 only at step ends,
     * where the fifth-order solution is exact for it */
    {
        ode_test c = ode_case(ODE_QUAD);
        double tq[21];
        for (int k = 0; k <= 20; k++)
            tq[k] = 0.05 * k;
        fixed.first_step = fixed.max_step = 0.25;
        CHECK(ode_solve(&c, 0, fixed, 21, tq, &st, &err) == KF_OK, "%s", err.msg);
        double e4 = 0.0, e5_end = 0.0, e5_mid = 0.0;
        for (int k = 0; k <= 20; k++) {
            double t = tq[k], d5 = fabs(c.out_y[k][1] - pow(t, 5));
            e4 = fmax(e4, fabs(c.out_y[k][0] - pow(t, 4)));
            if (k % 5 == 0)
                e5_end = fmax(e5_end, d5);
            else
                e5_mid = fmax(e5_mid, d5);
        }
        CHECK(st.steps == 4, "steps %ld", st.steps);
        /* round-off: a few operations on numbers <= 1 */
        CHECK(e4 < 1e-15 && e5_end < 1e-15, "t^4 between steps %g, t^5 at step ends %g", e4,
              e5_end);
        /* t^5 between step ends: the extension's own error, O(h^5) = 1e-3 at most, and
         * visibly nonzero (it is not the fifth-order solution) */
        CHECK(e5_mid > 1e-6 && e5_mid < 1e-3, "t^5 between steps %g", e5_mid);
        CHECK(c.at_step_end == 5, "outputs at step ends: %d of 21", c.at_step_end);
    }

    /* adaptive, outputs between steps (dense) and on steps (land_on_outputs) */
    kf_ode_opts tol = {.rtol = 1e-9, .atol = 1e-12};
    double td[55];
    for (int k = 0; k < 55; k++)
        td[k] = 0.037 * k;
    for (int land = 0; land < 2; land++) {
        ode_test c = ode_case(ODE_DECAY);
        CHECK(ode_solve(&c, land, tol, 55, td, &st, &err) == KF_OK, "%s", err.msg);
        double emax = 0.0;
        for (int k = 0; k < 55; k++)
            emax = fmax(emax, fabs(c.out_y[k][0] - exp(-td[k])));
        /* global error of the 5(4) pair at rtol 1e-9 over two decay times: a few
         * rtol; the continuous extension adds an error of the same order */
        CHECK(emax < 1e-8, "land %d: error %g", land, emax);
        if (land)
            /* every output is a step end, the last evaluation made before it */
            CHECK(c.at_step_end == 55 && st.steps >= 54, "landed outputs %d, steps %ld",
                  c.at_step_end, st.steps);
        else
            /* steps as the tolerance allows (35), fewer than the outputs: only the
             * first and the last output fall on step ends */
            CHECK(st.steps < 54 && c.at_step_end == 2, "dense: %ld steps, %d at step ends",
                  st.steps, c.at_step_end);
        /* the same workspace twice gives the same run */
        ode_test c2 = ode_case(ODE_DECAY);
        kf_stats st2;
        ode_solve(&c2, land, tol, 55, td, &st2, &err);
        CHECK(!memcmp(c.out_y, c2.out_y, sizeof c.out_y) && st2.steps == st.steps &&
                  st2.evaluations == st.evaluations,
              "rerun differs");
    }

    /* a recoverable failure (> 0) shrinks the step: stages must stay within 1e-6
     * of e^-t, which a loose rtol alone would not respect */
    {
        ode_test c = ode_case(ODE_DECAY), free_run = ode_case(ODE_DECAY);
        kf_ode_opts loose = {.rtol = 1e-3, .atol = 1e-6, .first_step = 0.5};
        c.domain = 1e-6;
        kf_stats sf;
        CHECK(ode_solve(&free_run, 0, loose, 2, (double[]){0.0, 2.0}, &sf, &err) == KF_OK, "%s",
              err.msg);
        CHECK(ode_solve(&c, 0, loose, 2, (double[]){0.0, 2.0}, &st, &err) == KF_OK, "%s",
              err.msg);
        CHECK(st.rejected >= 4 && st.steps > 2 * sf.steps,
              "domain: %ld steps %ld rejected; free: %ld steps", st.steps, st.rejected,
              sf.steps);
        /* the last stage of a step is f at its end: every accepted state is in the domain */
        CHECK(fabs(c.out_y[1][0] - exp(-2.0)) <= 1e-6, "error %g", c.out_y[1][0] - exp(-2.0));
    }

    /* f fails recoverably for every t > 0.5 (the motion hits a wall): the
     * driver closes in on 0.5 and then reports f's own error with the time */
    {
        ode_test c = ode_case(ODE_DECAY);
        c.t_fail = 0.5, c.fail_rc = 1, c.fail_code = KF_EGEOM;
        int rc = ode_solve(&c, 0, tol, 2, t01, &st, &err);
        double tw = time_in(err.msg);
        /* steps shrink by 4 per failure, to 10 ulps of 0.5 or 12 failures in a row
         * (4^-12 of a step of at most 0.5): within 1e-7 of the wall */
        CHECK(rc == KF_EGEOM && !strcmp(err.arg, "wall") && strstr(err.msg, "a wall") &&
                  tw <= 0.5 && tw > 0.5 - 1e-7,
              "%d %s", rc, err.msg);
        /* without a description: KF_ECALLBACK, still with the time */
        c = ode_case(ODE_DECAY);
        c.t_fail = 0.5, c.fail_rc = 3;
        rc = ode_solve(&c, 0, tol, 2, t01, &st, &err);
        CHECK(rc == KF_ECALLBACK && fabs(time_in(err.msg) - 0.5) < 1e-7, "%d %s", rc, err.msg);
    }

    /* f stops (< 0) at the first t > 0.3: at once, naming that time */
    {
        ode_test c = ode_case(ODE_DECAY);
        c.t_fail = 0.3, c.fail_rc = -1;
        int rc = ode_solve(&c, 0, tol, 2, t01, &st, &err);
        double ts = time_in(err.msg);
        /* a stage time of the step that crosses 0.3; steps here are ~0.1 */
        CHECK(rc == KF_ECALLBACK && strstr(err.msg, "stopped at t = ") && ts > 0.3 && ts < 0.5,
              "%d %s", rc, err.msg);
        CHECK(ts == c.last_t, "named %.17g, stopped at %.17g", ts, c.last_t);
        /* with its own error: passed on as it is */
        c = ode_case(ODE_DECAY);
        c.t_fail = 0.3, c.fail_rc = -1, c.fail_code = KF_EINVAL;
        rc = ode_solve(&c, 0, tol, 2, t01, &st, &err);
        CHECK(rc == KF_EINVAL && !strcmp(err.arg, "wall") && !strcmp(err.msg, "a wall at t = 0.3"),
              "%d %s", rc, err.msg);
    }

    /* an infinite derivative after 0.5: non-finite estimates shrink the step
     * like a recoverable failure, then KF_EDIVERGE names the time */
    {
        ode_test c = ode_case(ODE_DECAY);
        c.t_fail = 0.5, c.fail_rc = 0;
        int rc = ode_solve(&c, 0, tol, 2, t01, &st, &err);
        CHECK(rc == KF_EDIVERGE && fabs(time_in(err.msg) - 0.5) < 1e-7, "%d %s", rc, err.msg);
    }

    /* max_steps counts accepted and rejected steps */
    {
        ode_test c = ode_case(ODE_DECAY);
        kf_ode_opts few = tol;
        few.max_steps = 5;
        int rc = ode_solve(&c, 0, few, 2, t01, &st, &err);
        CHECK(rc == KF_ESTEPS && !strcmp(err.arg, "max_steps") && st.steps + st.rejected == 5,
              "%d %s", rc, err.msg);
    }

    /* bad arguments, each named */
    {
        ode_test c = ode_case(ODE_DECAY);
        kf_ode *w = NULL;
        kf_ode_system sys = {1, NULL, ode_out, NULL, &c, 0};
        CHECK(kf_ode_create(&w, &sys, &tol, &err) == KF_EINVAL && !w &&
                  !strcmp(err.arg, "system"),
              "%s", err.msg);
        sys.f = ode_f;
        const char *names[4] = {"rtol", "atol", "max_step", "first_step"};
        for (int i = 0; i < 4; i++) {
            kf_ode_opts bad = tol;
            if (i == 0)
                bad.rtol = 0.0;
            else if (i == 1)
                bad.atol = -1.0;
            else if (i == 2)
                bad.max_step = NAN;
            else
                bad.first_step = INFINITY;
            CHECK(kf_ode_create(&w, &sys, &bad, &err) == KF_EINVAL && !w &&
                      !strcmp(err.arg, names[i]),
                  "%s: %s", names[i], err.msg);
        }
        CHECK(kf_ode_create(&w, &sys, &tol, &err) == KF_OK, "%s", err.msg);
        double y0 = 1.0, nan0 = NAN, back[2] = {1.0, 0.5}, early[2] = {-1.0, 1.0};
        CHECK(kf_ode_run(w, 0.0, &y0, 2, back, &st, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "tout"),
              "%s", err.msg);
        CHECK(kf_ode_run(w, 0.0, &y0, 2, early, &st, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "tout"),
              "%s", err.msg);
        CHECK(kf_ode_run(w, 0.0, &nan0, 2, t01, &st, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "y0"),
              "%s", err.msg);
        /* only the initial time: its output, no step */
        CHECK(kf_ode_run(w, 0.0, &y0, 1, t01, &st, &err) == KF_OK && st.steps == 0 &&
                  st.evaluations == 1 && c.out_y[0][0] == 1.0,
              "%s", err.msg);
        kf_ode_free(w);
    }
}

/* The plain-loop LU for the mechanism's small systems (kf_mech_dense_solve)
 * gives LAPACK's getrf/getrs solution to round-off, with several right-hand
 * sides from one factorization, and reports the same failures. */
static double rel_diff(int n, const double *x, const double *y)
{
    double xmax = 0.0, dmax = 0.0;
    for (int i = 0; i < n; i++) {
        xmax = fmax(xmax, fabs(x[i]));
        dmax = fmax(dmax, fabs(x[i] - y[i]));
    }
    return dmax / xmax;
}

static void test_small_solvers(void)
{
    unsigned long long seed = 12345;
    double worst = 0.0;
    int compared = 0;
    for (int trial = 0; trial < 200; trial++) {
        int n = 1 + trial % 20;
        double L1[400], L2[400], b1[40], b2[40], G[400];
        int ip1[20], ip2[20];
        for (int k = 0; k < n * n; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            G[k] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        }
        for (int i = 0; i < 2 * n; i++)
            b1[i] = b2[i] = G[i % n] + 0.25 * (i >= n ? -1.0 : 1.0);
        /* a general matrix (zeros in places, as the constraint Jacobians have) */
        for (int k = 0; k < n * n; k++)
            L1[k] = L2[k] = (k % 3 == 1) ? 0.0 : G[k];
        kf_error err = {0};
        int lapack = kf_la_getrf(n, L1, n, ip1, &err), mine = kf_small_lu_factor(n, L2, n, ip2);
        /* n a multiple of 3 zeroes row 1 of the pattern: both find it singular */
        CHECK(lapack == mine && (mine == KF_ESING) == (n % 3 == 0), "n = %d: %d vs %d", n,
              lapack, mine);
        if (lapack == KF_OK && kf_la_getrs(n, 2, L1, n, ip1, b1, n, &err) == KF_OK) {
            CHECK(kf_small_lu_solve(n, L2, n, ip2, 2, b2, n) == KF_OK, "lu n = %d", n);
            /* both backward stable with the same pivots: the difference is
             * condition x eps (observed below 1e-15 over these systems) */
            worst = fmax(worst, fmax(rel_diff(n, b1, b2), rel_diff(n, b1 + n, b2 + n)));
            compared++;
        }
    }
    CHECK(compared == 140 && worst < 1e-13, "%d systems, LU differs from getrf/getrs by %g",
          compared, worst);
    /* failures: a zero column, a NaN entry, an infinite right-hand side */
    double S[4] = {1.0, 2.0, 0.0, 0.0}, b[2] = {1.0, 1.0};
    int ip[2];
    CHECK(kf_small_lu_factor(2, S, 2, ip) == KF_ESING, "singular");
    double N[4] = {NAN, 0.0, 0.0, 1.0};
    CHECK(kf_small_lu_factor(2, N, 2, ip) == KF_ERANGE, "NaN entry");
    double Z[4] = {1.0, 0.0, 0.0, 1.0}, inf_b[2] = {INFINITY, 0.0};
    CHECK(kf_small_lu_factor(2, Z, 2, ip) == KF_OK &&
              kf_small_lu_solve(2, Z, 2, ip, 1, inf_b, 2) == KF_ERANGE,
          "infinite right-hand side");
    (void)b;
}

/* dsyevr's MRRR fails on some matrices in some LAPACKs (OpenBLAS, clustered
 * eigenvalues near zero): kf_la_syevr then takes the QR algorithm (dsyev).
 * Exercised with a table whose dsyevr always fails. */
static void failing_dsyevr(char *jobz, char *range, char *uplo, int *n, double *a, int *lda,
                           double *vl, double *vu, int *il, int *iu, double *abstol, int *m,
                           double *w, double *z, int *ldz, int *isuppz, double *work, int *lwork,
                           int *iwork, int *liwork, int *info)
{
    for (int j = 0; j < *n; j++) /* destroy the lower triangle, as a real failure may */
        for (int i = j; i < *n; i++)
            a[i + (size_t)j * *lda] = NAN;
    *info = 2;
}

static void test_syevr_fallback(void)
{
    kf_error err = {0};
    kf_lapack_table saved = *kf_lapack_get(), broken = saved;
    broken.dsyevr = failing_dsyevr;
    CHECK(kf_lapack_set(&broken, "broken", &err) == KF_OK, "%s", err.msg);
    /* the second-difference matrix: eigenvalues 2 - 2 cos(k pi / (n + 1)) */
    enum { N = 12 };
    double A[N * N] = {0}, w[3], z[N * 3], work[90 * N];
    int iwork[10 * N + 2 * N];
    for (int i = 0; i < N; i++) {
        A[i + i * N] = 2.0;
        if (i + 1 < N)
            A[i + 1 + i * N] = A[i + (i + 1) * N] = -1.0;
    }
    int rc = kf_la_syevr(N, A, N, 2, 4, w, z, N, iwork + 10 * N, work, 90 * N, iwork, 10 * N,
                         &err);
    CHECK(rc == KF_OK, "%s", err.msg);
    for (int k = 0; k < 3 && !rc; k++) {
        double want = 2.0 - 2.0 * cos((k + 2) * PI / (N + 1));
        CHECK(fabs(w[k] - want) < 1e-14, "lambda_%d %g vs %g", k + 2, w[k], want);
        /* eigenvector sin(j (k + 2) pi / (N + 1)), normalized, up to sign */
        double dot = 0.0, nrm = 0.0;
        for (int j = 0; j < N; j++) {
            double v = sin((j + 1) * (k + 2) * PI / (N + 1));
            dot += v * z[j + k * N];
            nrm += v * v;
        }
        CHECK(fabs(fabs(dot) / sqrt(nrm) - 1.0) < 1e-13, "vector %d: %g", k + 2, dot);
    }
    CHECK(kf_lapack_set(&saved, "linked", &err) == KF_OK, "%s", err.msg);
}

/* Issue 8: frames are checked by field, values that leave the double range
 * are refused before LAPACK sees them, long loops stop when asked. */
static int stop_at_two(double t, void *params)
{
    int *calls = params;
    ++*calls;
    return t >= 2.0;
}

static void test_hardening(void)
{
    kf_error err = {0};
    kf_section sec = {210e9, 7850, 2e-4, 1.67e-9};
    kf_body *b = straight_body(KF_BEAM2, 6, 0.6, &sec);
    /* a planar body turns about z only; each field is named */
    kf_frame f = {{0.5, 0, 1.0}};
    CHECK(kf_frame_check(2, &f, &err) == KF_EINVAL && !strcmp(err.arg, "omega"), "%s", err.msg);
    CHECK(kf_frame_check(3, &f, &err) == KF_OK, "%s", err.msg);
    kf_frame g = {{0, 0, 1.0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, NAN, 0}};
    CHECK(kf_frame_check(2, &g, &err) == KF_EINVAL && !strcmp(err.arg, "vdot"), "%s", err.msg);
    /* omega^2 overflows: refused, not -inf eigenvalues */
    kf_frame big = {{0, 0, 1e160}};
    CHECK(kf_frame_check(2, &big, &err) == KF_ERANGE && !strcmp(err.arg, "omega"), "%s",
          err.msg);
    unsigned char fixed[21] = {1, 1, 0};
    fixed[18] = fixed[19] = 1;
    kf_eig *e = NULL;
    CHECK(kf_eig_create(&e, b, fixed, 0, &err) == KF_OK, "%s", err.msg);
    double re[2 * 4], im[2 * 4];
    kf_eig_opts opt = {.n_modes = 2, .include_eps = 1};
    CHECK(kf_eig_solve(e, 1, &big, NULL, &opt, re, im, NULL, NULL, &err) == KF_ERANGE &&
              strstr(err.msg, "instant 0"),
          "%s", err.msg);
    /* extreme but finite rates: finite eigenvalues, or KF_ERANGE, never inf/NaN out */
    for (double ep = 1e300; ep < 1.7e308; ep *= 3.0) {
        kf_frame huge = {{0, 0, 1e150}, {0, 0, ep}};
        int rc = kf_eig_solve(e, 1, &huge, NULL, &opt, re, im, NULL, NULL, &err);
        CHECK((rc == KF_OK && isfinite(re[0] + re[1] + im[0] + im[1])) ||
                  (rc == KF_ERANGE && !strcmp(err.arg, "omega")),
              "eps %g: rc %d %s", ep, rc, err.msg);
    }
    /* the progress function stops a long loop */
    kf_frame many[4] = {{{0, 0, 1}}, {{0, 0, 2}}, {{0, 0, 3}}, {{0, 0, 4}}};
    int calls = 0;
    opt.progress = stop_at_two;
    opt.progress_params = &calls;
    CHECK(kf_eig_solve(e, 4, many, NULL, &opt, re, im, NULL, NULL, &err) == KF_ECALLBACK &&
              calls == 3,
          "calls %d: %s", calls, err.msg);
    kf_eig_free(e);
    kf_body_free(b);

    /* sections whose products leave the double range are named at creation */
    struct { kf_section sec; const char *arg; } bad[] = {
        {{210e9, 7850, 2e-4, 1e300}, "E"},   /* E I / l^3 overflows */
        {{210e9, 1e-320, 2e-4, 1e-9}, "rho"}, /* element masses underflow */
        {{210e9, 1e300, 1e10, 1e-9}, "rho"},  /* rho A overflows */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        double xy[6] = {0, 0, 0.3, 0, 0.6, 0};
        int conn[4] = {0, 1, 1, 2};
        kf_body *bb = NULL;
        CHECK(kf_body_create(&bb, KF_BEAM2, 3, xy, 2, conn, &bad[k].sec, &err) == KF_ERANGE &&
                  !strcmp(err.arg, bad[k].arg) && bb == NULL,
              "case %zu: %s", k, err.msg);
    }

    /* LAPACK never sees a non-finite matrix (reference dgeev would call xerbla) */
    double A[4] = {1.0, NAN, 0.0, 1.0}, wr[2], wi[2], work[64];
    CHECK(kf_la_geev(2, A, 2, wr, wi, NULL, 1, work, 64, &err) == KF_ERANGE &&
              strstr(err.msg, "dgeev"),
          "%s", err.msg);
    double P[4] = {INFINITY, 0.0, 0.0, 1.0};
    CHECK(kf_la_potrf(2, P, 2, &err) == KF_ERANGE, "%s", err.msg);

    /* a message may quote the one before it */
    kf_fail(&err, KF_EINVAL, "x", "first %d", 1);
    kf_fail(&err, err.code, err.arg, "second (%s)", err.msg);
    CHECK(!strcmp(err.msg, "second (first 1)") && !strcmp(err.arg, "x"), "%s", err.msg);
}

/* ---------------------------------------------------------------- plane and solid elements */

/* Reference nodes of a continuum kind (VTK order): quads/hexes on [-1, 1]^d,
 * simplices on the unit simplex (vertices, then edge midpoints), wedges on the
 * triangle (0,0) (0,1) (1,0) times [-1, 1], pyramids with the base [-1, 1]^2 at
 * z = 0 and the apex (0, 0, 1). */
static int ref_nodes(int kind, double *xi, int *dim)
{
    static const double quad[9][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {0, -1},
                                      {1, 0},   {0, 1},  {-1, 0}, {0, 0}};
    static const double hex[27][3] = {
        {-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1},
        {-1, 1, 1},   {0, -1, -1}, {1, 0, -1}, {0, 1, -1},  {-1, 0, -1}, {0, -1, 1}, {1, 0, 1},
        {0, 1, 1},    {-1, 0, 1},  {-1, -1, 0}, {1, -1, 0}, {1, 1, 0},   {-1, 1, 0}, {-1, 0, 0},
        {1, 0, 0},    {0, -1, 0},  {0, 1, 0},   {0, 0, -1}, {0, 0, 1},   {0, 0, 0}};
    /* corners of the bottom then the top triangle, mid-edges 01 12 20 of each, then
     * the vertical ones 03 14 25 */
    static const double wedge[15][3] = {
        {0, 0, -1},   {0, 1, -1},     {1, 0, -1}, {0, 0, 1},   {0, 1, 1},
        {1, 0, 1},    {0, 0.5, -1},   {0.5, 0.5, -1}, {0.5, 0, -1}, {0, 0.5, 1},
        {0.5, 0.5, 1}, {0.5, 0, 1},   {0, 0, 0},  {0, 1, 0},   {1, 0, 0}};
    /* base corners, apex, base mid-edges 01 12 23 30, mid-points of the edges to the apex */
    static const double pyramid[13][3] = {
        {-1, -1, 0},  {1, -1, 0},  {1, 1, 0},  {-1, 1, 0}, {0, 0, 1},
        {0, -1, 0},   {1, 0, 0},   {0, 1, 0},  {-1, 0, 0}, {-0.5, -0.5, 0.5},
        {0.5, -0.5, 0.5}, {0.5, 0.5, 0.5}, {-0.5, 0.5, 0.5}};
    static const int tri_e[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    static const int tet_e[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
    int nn;
    kf_element_info(kind, dim, &nn, NULL, NULL);
    int d = *dim;
    if (kind == KF_QUAD4 || kind == KF_QUAD8 || kind == KF_QUAD9 || kind == KF_HEX8 ||
        kind == KF_HEX20 || kind == KF_HEX27 || kind == KF_QUAD4I || kind == KF_HEX8I) {
        for (int a = 0; a < nn; a++)
            for (int k = 0; k < d; k++)
                xi[a * d + k] = d == 2 ? quad[a][k] : hex[a][k];
        return nn;
    }
    if (kind == KF_WEDGE6 || kind == KF_WEDGE15 || kind == KF_PYRAMID5 || kind == KF_PYRAMID13) {
        int wedge_kind = kind == KF_WEDGE6 || kind == KF_WEDGE15;
        for (int a = 0; a < nn; a++)
            for (int k = 0; k < 3; k++)
                xi[a * 3 + k] = wedge_kind ? wedge[a][k] : pyramid[a][k];
        return nn;
    }
    memset(xi, 0, (size_t)nn * d * sizeof(double));
    for (int v = 1; v <= d; v++)
        xi[v * d + v - 1] = 1.0;
    for (int e = 0; e < nn - d - 1; e++)
        for (int k = 0; k < d; k++) {
            const int *ed = d == 2 ? tri_e[e] : tet_e[e];
            xi[(d + 1 + e) * d + k] = 0.5 * (xi[ed[0] * d + k] + xi[ed[1] * d + k]);
        }
    return nn;
}

/* The reference cell's volume, first moments m1[k] = int xi_k and second moments
 * m2[k][l] = int xi_k xi_l (exact integrals of the shapes above). */
static double ref_moments(int kind, int dim, double m1[3], double m2[3][3])
{
    memset(m1, 0, 3 * sizeof(double));
    memset(m2, 0, 9 * sizeof(double));
    int simplex = kind == KF_TRI3 || kind == KF_TRI6 || kind == KF_TET4 || kind == KF_TET10;
    if (simplex) {
        double v = dim == 2 ? 0.5 : 1.0 / 6.0;
        for (int k = 0; k < dim; k++) {
            m1[k] = v / (dim + 1);
            for (int l = 0; l < dim; l++)
                m2[k][l] = (k == l ? 2.0 : 1.0) * v / ((dim + 1) * (dim + 2));
        }
        return v;
    }
    if (kind == KF_WEDGE6 || kind == KF_WEDGE15) { /* triangle (area 1/2) x [-1, 1] */
        m1[0] = m1[1] = 1.0 / 3.0;
        m2[0][0] = m2[1][1] = 1.0 / 6.0;
        m2[0][1] = m2[1][0] = 1.0 / 12.0;
        m2[2][2] = 1.0 / 3.0;
        return 1.0;
    }
    if (kind == KF_PYRAMID5 || kind == KF_PYRAMID13) { /* int over z of the square 2 (1 - z) */
        m1[2] = 1.0 / 3.0;
        m2[0][0] = m2[1][1] = 4.0 / 15.0;
        m2[2][2] = 2.0 / 15.0;
        return 4.0 / 3.0;
    }
    double v = dim == 2 ? 4.0 : 8.0; /* [-1, 1]^dim */
    for (int k = 0; k < dim; k++)
        m2[k][k] = v / 3.0;
    return v;
}

static void test_continuum(void)
{
    /* an affine (straight-sided) distortion x = A xi + c with det A > 0 */
    const double A3[9] = {0.7, 0.2, -0.1, 0.1, 0.5, 0.15, -0.05, 0.1, 0.4}, c3[3] = {0.3, -0.2, 1.1};
    const double A2[4] = {0.7, 0.25, -0.1, 0.45}, c2[2] = {0.3, -0.2};
    kf_section sec = {0};
    sec.E = 70e9;
    sec.rho = 2700;
    sec.nu = 0.33;
    sec.thickness = 0.02;
    for (int kind = KF_TRI3; kind <= KF_HEX8I; kind++) {
        double xi[27 * 3], x[27 * 3];
        int dim, nn = ref_nodes(kind, xi, &dim);
        const double *A = dim == 2 ? A2 : A3, *c = dim == 2 ? c2 : c3;
        double det = dim == 2 ? A[0] * A[3] - A[1] * A[2]
                              : A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                                    A[2] * (A[3] * A[7] - A[4] * A[6]);
        for (int a = 0; a < nn; a++)
            for (int i = 0; i < dim; i++) {
                x[a * dim + i] = c[i];
                for (int k = 0; k < dim; k++)
                    x[a * dim + i] += A[i * dim + k] * xi[a * dim + k];
            }
        int simplex = kind == KF_TRI3 || kind == KF_TRI6 || kind == KF_TET4 || kind == KF_TET10;
        int lagrange = kind == KF_QUAD4 || kind == KF_QUAD8 || kind == KF_QUAD9 || kind == KF_HEX8 ||
                       kind == KF_HEX20 || kind == KF_HEX27 || kind == KF_QUAD4I || kind == KF_HEX8I;
        /* reference volume, first and second moments of xi */
        double m1[3], m2[3][3];
        double vref = ref_moments(kind, dim, m1, m2);
        double mu = dim == 2 ? sec.rho * sec.thickness : sec.rho;
        int conn[27];
        for (int a = 0; a < nn; a++)
            conn[a] = a;
        for (int storage = KF_DENSE; storage <= KF_CSR; storage += 2) {
            kf_body *b = NULL;
            kf_error err = {0};
            int rc = kf_body_create_storage(&b, kind, nn, x, 1, conn, &sec, storage, &err);
            CHECK(rc == KF_OK, "kind %d: %s", kind, err.msg);
            if (rc)
                continue;
            int n = kf_body_ndof(b);
            const kf_mat *M = kf_body_mass(b), *K = kf_body_stiffness(b);
            /* mass, first and second moments: exact for straight-sided cells */
            double vol = det * vref, mass = 0.0;
            for (int i = 0; i < n; i += dim)
                for (int j = 0; j < n; j += dim)
                    mass += kf_mat_get(M, i, j);
            CHECK(fabs(mass - mu * vol) <= 1e-13 * mu * vol, "kind %d: mass %.17g vs rho V %.17g",
                  kind, mass, mu * vol);
            for (int j = 0; j < dim; j++) {
                double first = 0.0, exact1 = c[j] * vref, exact2 = c[j] * c[j] * vref;
                for (int k = 0; k < dim; k++) {
                    exact1 += A[j * dim + k] * m1[k];
                    exact2 += 2.0 * c[j] * A[j * dim + k] * m1[k];
                    for (int l = 0; l < dim; l++)
                        exact2 += A[j * dim + k] * A[j * dim + l] * m2[k][l];
                }
                for (int a = 0; a < nn; a++)
                    first += kf_body_s(b, 0, j)[a * dim];
                CHECK(fabs(first - mu * det * exact1) <= 1e-13 * mu * vol,
                      "kind %d: int rho x_%d = %.17g vs %.17g", kind, j, first, mu * det * exact1);
                /* u_x = x_j at the nodes: d^T S_xx d = int rho x_j^2 (degree 2) */
                double d[81] = {0}, Sd[81], q2 = 0.0;
                for (int a = 0; a < nn; a++)
                    d[a * dim] = x[a * dim + j];
                kf_mat S00 = {0}; /* a CSR body stores the nodal mass: S_xx formed */
                kf_body_block(b, KF_BLOCK_S, 0, &S00, NULL);
                kf_mat_gemv(&S00, 1.0, d, 0.0, Sd);
                kf_mat_free(&S00);
                for (int i = 0; i < n; i++)
                    q2 += d[i] * Sd[i];
                CHECK(fabs(q2 - mu * det * exact2) <= 1e-12 * mu * det * exact2,
                      "kind %d: int rho x_%d^2 = %.17g vs %.17g", kind, j, q2, mu * det * exact2);
            }
            /* patch test: a linear field gives its constant strain at every point,
             * and a rigid rotation no forces */
            const kf_element_type *el = kf_element_get(kind);
            double G[9] = {1e-3, 2e-4, -3e-4, -5e-4, 4e-4, 1e-4, 2e-4, -1e-4, -2e-4};
            double d[81], N[3 * 81], B[6 * 81], Gg[3 * 81], xq[3], w;
            for (int a = 0; a < nn; a++)
                for (int i = 0; i < dim; i++) {
                    d[a * dim + i] = 1e-4 * (i + 1);
                    for (int k = 0; k < dim; k++)
                        d[a * dim + i] += G[i * 3 + k] * x[a * dim + k];
                }
            double want[6];
            if (dim == 2) {
                want[0] = G[0];
                want[1] = G[4];
                want[2] = G[1] + G[3];
            } else {
                want[0] = G[0];
                want[1] = G[4];
                want[2] = G[8];
                want[3] = G[5] + G[7];
                want[4] = G[2] + G[6];
                want[5] = G[1] + G[3];
            }
            double worst = 0.0, wsum = 0.0;
            for (int q = 0; q < el->nquad; q++) {
                el->eval(x, q, N, B, Gg, xq, &w);
                wsum += w;
                for (int r = 0; r < el->nstrain; r++) {
                    double e = 0.0;
                    for (int k = 0; k < n; k++)
                        e += B[r * n + k] * d[k];
                    worst = fmax(worst, fabs(e - want[r]));
                }
            }
            CHECK(worst <= 1e-15, "kind %d: patch test strain error %g", kind, worst);
            CHECK(fabs(wsum - vol) <= 1e-14 * vol, "kind %d: weights sum %.17g vs %.17g", kind,
                  wsum, vol);
            double rot[81], Kr[81], kmax = 0.0, knorm = 0.0;
            for (int a = 0; a < nn; a++) { /* rotation about z (and a translation) */
                rot[a * dim] = -x[a * dim + 1] + 0.3;
                rot[a * dim + 1] = x[a * dim] - 0.1;
                if (dim == 3)
                    rot[a * dim + 2] = 0.2;
            }
            kf_mat_gemv(K, 1.0, rot, 0.0, Kr);
            for (int i = 0; i < n; i++) {
                kmax = fmax(kmax, fabs(Kr[i]));
                knorm = fmax(knorm, fabs(kf_mat_get(K, i, i)));
            }
            CHECK(kmax <= 1e-13 * knorm, "kind %d: K (rigid motion) = %g of %g", kind, kmax, knorm);
            kf_body_free(b);
        }
        /* an inverted cell (two vertices swapped, or the mirror image) and a degenerate
         * one are refused */
        double xs[27 * 3];
        memcpy(xs, x, sizeof xs);
        for (int k = 0; k < dim && (simplex || lagrange); k++) {
            double t = xs[1 * dim + k];
            xs[1 * dim + k] = xs[2 * dim + k];
            xs[2 * dim + k] = t;
        }
        if (!simplex) /* keep the mid-edge nodes consistent: reflect the whole cell */
            for (int a = 0; a < nn; a++)
                xs[a * dim] = -x[a * dim];
        kf_body *b = NULL;
        kf_error err = {0};
        int rc = kf_body_create(&b, kind, nn, xs, 1, conn, &sec, &err);
        CHECK(rc == KF_EINVAL && strstr(err.msg, "cell 0") && strstr(err.msg, "inverted"),
              "kind %d: %s", kind, err.msg);
        kf_body_free(b);
        for (int a = 0; a < nn; a++) /* flattened onto x_0 = 0 */
            xs[a * dim] = 0.0 * x[a * dim];
        memcpy(xs + dim, x + dim, 0);
        for (int a = 0; a < nn; a++)
            for (int k = 1; k < dim; k++)
                xs[a * dim + k] = x[a * dim + k];
        rc = kf_body_create(&b, kind, nn, xs, 1, conn, &sec, &err);
        CHECK(rc == KF_EINVAL && strstr(err.msg, "cell 0") && strstr(err.msg, "degenerate"),
              "kind %d: %s", kind, err.msg);
        kf_body_free(b);
        /* section checks name the field */
        kf_section bad = sec;
        bad.nu = 0.5;
        rc = kf_body_create(&b, kind, nn, x, 1, conn, &bad, &err);
        CHECK(rc == KF_EINVAL && !strcmp(err.arg, "nu"), "kind %d: %s", kind, err.msg);
        kf_body_free(b);
        if (dim == 2) {
            bad = sec;
            bad.thickness = 0.0;
            rc = kf_body_create(&b, kind, nn, x, 1, conn, &bad, &err);
            CHECK(rc == KF_EINVAL && !strcmp(err.arg, "thickness"), "kind %d: %s", kind, err.msg);
            kf_body_free(b);
        }
    }
}

/* CSR storage: the same body in dense and CSR storage has the same matrices, and
 * the motion terms and products agree. */
static void test_csr(void)
{
    /* a 3 x 2 grid of quad4 cells */
    double xy[12 * 2];
    int conn[6 * 4], k = 0;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++) {
            xy[2 * (j * 4 + i)] = 0.25 * i + 0.02 * j;
            xy[2 * (j * 4 + i) + 1] = 0.1 * j;
        }
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 3; i++) {
            int v = j * 4 + i;
            conn[k++] = v;
            conn[k++] = v + 1;
            conn[k++] = v + 5;
            conn[k++] = v + 4;
        }
    kf_section sec = {0};
    sec.E = 2e11;
    sec.rho = 7800;
    sec.nu = 0.3;
    sec.thickness = 0.01;
    kf_body *bd = NULL, *bs = NULL;
    kf_error err = {0};
    CHECK(kf_body_create_storage(&bd, KF_QUAD4, 12, xy, 6, conn, &sec, KF_DENSE, &err) == KF_OK,
          "%s", err.msg);
    CHECK(kf_body_create(&bs, KF_QUAD4, 12, xy, 6, conn, &sec, &err) == KF_OK, "%s", err.msg);
    if (!bd || !bs) {
        kf_body_free(bd);
        kf_body_free(bs);
        return;
    }
    const kf_pattern *p = kf_body_pattern(bs);
    CHECK(p && kf_body_mass(bs)->kind == KF_CSR && !kf_body_pattern(bd), "storage");
    /* node couplings (self included): 4 corners with 4, 6 edge nodes with 6, 2 interior
     * nodes with 9; 2 x 2 DOF blocks */
    CHECK(p && p->nnz == 4 * (4 * 4 + 6 * 6 + 2 * 9), "nnz = %d", p ? p->nnz : -1);
    int n = kf_body_ndof(bs);
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            worst = fmax(worst, fabs(kf_mat_get(kf_body_mass(bs), i, j) -
                                     kf_mat_get(kf_body_mass(bd), i, j)));
            worst = fmax(worst, fabs(kf_mat_get(kf_body_stiffness(bs), i, j) -
                                     kf_mat_get(kf_body_stiffness(bd), i, j)) * 1e-11);
        }
    /* the same products, summed element by element in the same order; the CSR body keeps
     * the nodal mass, from which every S_ij and combination is bitwise the dense body's
     * (docs/theory.md section 3.11) */
    CHECK(worst == 0.0, "dense vs CSR: %g", worst);
    CHECK(bs->nodal && !bd->nodal && !kf_body_S(bs, 0, 1) && kf_body_S(bd, 0, 1) &&
              bs->npair * 4 == p->nnz,
          "nodal storage");
    for (int k = 0; k < 4; k++) {
        kf_mat Sk = {0};
        double dS = 0.0;
        CHECK(kf_body_block(bs, KF_BLOCK_S, k, &Sk, &err) == KF_OK, "%s", err.msg);
        for (int i = 0; i < 24 && Sk.a; i++)
            for (int j = 0; j < 24; j++)
                dS = fmax(dS, fabs(kf_mat_get(&Sk, i, j) - kf_mat_get(&bd->S[k], i, j)));
        CHECK(dS == 0.0 && kf_body_block_zero(bs, k) == kf_body_block_zero(bd, k),
              "S block %d: %g", k, dS);
        kf_mat_free(&Sk);
    }
    {
        /* a general combination: c_kl m_ac where the planar basis sums two halves */
        double c[4] = {1.5, -0.25, 2.0, -3.0}, dc = 0.0, sc = 0.0;
        kf_mat As = {0}, Ad = {0};
        kf_mat_alloc_like(&As, kf_body_mass(bs), NULL);
        kf_mat_alloc_like(&Ad, kf_body_mass(bd), NULL);
        kf_body_combine(bs, c, 0.0, &As);
        kf_body_combine(bd, c, 0.0, &Ad);
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                dc = fmax(dc, fabs(kf_mat_get(&As, i, j) - kf_mat_get(&Ad, i, j)));
                sc = fmax(sc, fabs(kf_mat_get(&Ad, i, j)));
            }
        CHECK(dc <= 4 * DBL_EPSILON * sc, "combination: %g of %g", dc, sc);
        kf_mat_free(&As);
        kf_mat_free(&Ad);
    }
    {
        /* the prestress K_G cases of the nodal body (per node pair) are the dense body's */
        double u[6 * 24];
        for (int i = 0; i < 6 * 24; i++)
            u[i] = 1e-4 * sin(0.7 * i);
        CHECK(kf_body_set_prestress(bs, 6, u, NULL, &err) == KF_OK &&
                  kf_body_set_prestress(bd, 6, u, NULL, &err) == KF_OK,
              "%s", err.msg);
        double coef[6] = {0.5, -2.0, 1.0, 3.0, 0.25, -1.5}, dg = 0.0, sg = 0.0;
        kf_mat Gs = {0}, Gd = {0};
        kf_mat_alloc_like(&Gs, kf_body_mass(bs), NULL);
        kf_mat_alloc_like(&Gd, kf_body_mass(bd), NULL);
        CHECK(kf_body_geometric(bs, coef, 0.0, &Gs, &err) == KF_OK &&
                  kf_body_geometric(bd, coef, 0.0, &Gd, &err) == KF_OK,
              "%s", err.msg);
        for (int k = 0; k < 6; k++) {
            kf_mat Bk = {0};
            kf_body_block(bs, KF_BLOCK_KG, k, &Bk, NULL);
            for (int i = 0; i < 24; i++)
                for (int j = 0; j < 24; j++)
                    dg = fmax(dg, fabs(kf_mat_get(&Bk, i, j) - kf_mat_get(&bd->KG[k], i, j)));
            kf_mat_free(&Bk);
        }
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                dg = fmax(dg, fabs(kf_mat_get(&Gs, i, j) - kf_mat_get(&Gd, i, j)));
                sg = fmax(sg, fabs(kf_mat_get(&Gd, i, j)));
            }
        CHECK(dg == 0.0 && sg > 0.0 && bs->kgnode[5] && !bs->KG[5].a, "nodal K_G: %g of %g",
              dg, sg);
        kf_mat_free(&Gs);
        kf_mat_free(&Gd);
    }
    kf_frame f = {{0, 0, 12.0}, {0, 0, 40.0}, {0, 0, 0}, {1.0, -9.81, 0}};
    kf_mat Cs, Cd, Ks, Kd;
    double q[6 * 24], x[24], ys[24], yd[24];
    kf_mat_alloc_like(&Cs, kf_body_mass(bs), NULL);
    kf_mat_alloc_like(&Ks, kf_body_mass(bs), NULL);
    kf_mat_alloc_like(&Cd, kf_body_mass(bd), NULL);
    kf_mat_alloc_like(&Kd, kf_body_mass(bd), NULL);
    CHECK(kf_body_motion_terms(bs, &f, &Cs, &Ks, NULL, q, q + 24, q + 48, &err) == KF_OK, "%s",
          err.msg);
    CHECK(kf_body_motion_terms(bd, &f, &Cd, &Kd, NULL, q + 72, q + 96, q + 120, &err) == KF_OK,
          "%s", err.msg);
    for (int i = 0; i < n; i++)
        x[i] = sin(1.0 + i);
    kf_mat_gemv(&Cs, 1.0, x, 0.0, ys);
    kf_mat_axpy(&Cs, 0.5, &Ks);
    kf_mat_gemv(&Ks, 2.0, x, 1.0, ys);
    kf_mat_gemv(&Cd, 1.0, x, 0.0, yd);
    kf_mat_axpy(&Cd, 0.5, &Kd);
    kf_mat_gemv(&Kd, 2.0, x, 1.0, yd);
    double dy = 0.0, sy = 0.0, dq = 0.0;
    for (int i = 0; i < n; i++) {
        dy = fmax(dy, fabs(ys[i] - yd[i]));
        sy = fmax(sy, fabs(yd[i]));
    }
    for (int i = 0; i < 72; i++)
        dq = fmax(dq, fabs(q[i] - q[72 + i]));
    CHECK(dy <= 1e-14 * sy && dq == 0.0, "CSR vs dense products: %g of %g, loads %g", dy, sy, dq);
    /* an entry outside the pattern is refused; LU is not for CSR */
    CHECK(kf_mat_add(&Cs, 0, n - 1, 1.0) == KF_EINVAL, "outside the pattern");
    CHECK(kf_mat_lu(&Cs, NULL, &err) == KF_EINVAL && !strcmp(err.arg, "storage"), "%s", err.msg);
    /* a CSR body reduces onto the pattern of its kept DOFs: the entries of the dense
     * body's reduction (the integrators' sparse path, docs/theory.md section 4.13);
     * a dense damping matrix and a bad map are refused */
    kf_body *r = NULL, *rd = NULL;
    int map[5] = {0, 1, 5, 7, 20};
    CHECK(kf_body_reduce(bs, 5, map, 0, &r, &err) == KF_OK && r->M.kind == KF_CSR &&
              r->pattern && r->pattern->n == 5,
          "%s", err.msg);
    CHECK(kf_body_reduce(bd, 5, map, 0, &rd, &err) == KF_OK, "%s", err.msg);
    if (r && rd) {
        double dm = 0.0, sm = 0.0;
        kf_mat S1 = {0};
        CHECK(r->nodal && kf_body_block(r, KF_BLOCK_S, 1, &S1, &err) == KF_OK, "%s", err.msg);
        for (int i = 0; i < 5 && S1.a; i++)
            for (int j = 0; j < 5; j++) {
                dm = fmax(dm, fabs(kf_mat_get(&r->M, i, j) - kf_mat_get(&rd->M, i, j)));
                dm = fmax(dm, fabs(kf_mat_get(&r->K, i, j) - kf_mat_get(&rd->K, i, j)) * 1e-11);
                dm = fmax(dm, fabs(kf_mat_get(&S1, i, j) - kf_mat_get(&rd->S[1], i, j)));
                sm = fmax(sm, fabs(kf_mat_get(&rd->M, i, j)));
            }
        kf_mat_free(&S1);
        CHECK(dm <= 1e-14 * sm, "reduced CSR vs dense: %g of %g", dm, sm);
        CHECK(r->Mo[2] == rd->Mo[2] && r->s[3] == rd->s[3], "reduced vectors");
        /* map keeps DOFs 0, 20 (x) and 1, 5, 7 (y): S_xy has entries, and a reduced body
         * of the y DOFs alone has none in S_xx, S_xy, S_yx */
        CHECK(!kf_body_block_zero(r, 1) && !kf_body_block_zero(r, 0), "blocks of r");
        kf_body *ry = NULL;
        int ymap[3] = {1, 5, 7};
        CHECK(kf_body_reduce(bs, 3, ymap, 0, &ry, &err) == KF_OK, "%s", err.msg);
        if (ry)
            CHECK(kf_body_block_zero(ry, 0) && kf_body_block_zero(ry, 1) &&
                      kf_body_block_zero(ry, 2) && !kf_body_block_zero(ry, 3),
                  "y blocks");
        kf_body_free(ry);
    }
    kf_body_free(r);
    kf_body_free(rd);
    r = NULL;
    CHECK(kf_body_reduce(bs, 5, map, 1, &r, &err) == KF_EINVAL && !r, "%s", err.msg);
    map[2] = 0;
    CHECK(kf_body_reduce(bs, 5, map, 0, &r, &err) == KF_EINVAL && !r, "%s", err.msg);
    /* the dense eigen solver works on a CSR body (its reduction reads entries) */
    unsigned char fixed[24] = {0};
    fixed[0] = fixed[1] = fixed[8] = fixed[9] = 1; /* nodes 0 and 4 */
    kf_eig *es = NULL, *ed = NULL;
    CHECK(kf_eig_create(&es, bs, fixed, 0, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_eig_create(&ed, bd, fixed, 0, &err) == KF_OK, "%s", err.msg);
    if (es && ed) {
        kf_eig_opts o = {3, 1, 0, 0, NULL, NULL};
        double ls[3], lsi[3], ld[3], ldi[3];
        kf_eig_solve(es, 1, &f, NULL, &o, ls, lsi, NULL, NULL, &err);
        kf_eig_solve(ed, 1, &f, NULL, &o, ld, ldi, NULL, NULL, &err);
        for (int i = 0; i < 3; i++)
            CHECK(ls[i] == ld[i], "eigenvalue %d: %.17g vs %.17g", i, ls[i], ld[i]);
    }
    kf_eig_free(es);
    kf_eig_free(ed);
    kf_mat_free(&Cs);
    kf_mat_free(&Ks);
    kf_mat_free(&Cd);
    kf_mat_free(&Kd);
    kf_body_free(bs);
    kf_body_free(bd);
}

/* ---------------------------------------------------------------- spatial elements and motions (issue 9) */

static kf_body *straight3(int kind, int nel, double len, const kf_section *sec)
{
    int nn = nel + 1;
    double *xyz = calloc((size_t)3 * nn, sizeof(double));
    int *conn = calloc((size_t)2 * nel, sizeof(int));
    for (int i = 0; i < nn; i++)
        xyz[3 * i] = len * i / nel;
    for (int e = 0; e < nel; e++) {
        conn[2 * e] = e;
        conn[2 * e + 1] = e + 1;
    }
    kf_body *b = NULL;
    kf_error err = {0};
    int rc = kf_body_create(&b, kind, nn, xyz, nel, conn, sec, &err);
    CHECK(rc == KF_OK, "kf_body_create: %s", err.msg);
    free(xyz);
    free(conn);
    return b;
}

/* The largest |A(i,j) - s B(i,j)| over all entries relative to max |B|, with
 * A's DOF i taken as map[i] (NULL: i). */
static double mat_diff(const kf_mat *A, const int *map, const kf_mat *B, double s)
{
    double e = 0.0, big = 0.0;
    for (int i = 0; i < B->n; i++)
        for (int j = 0; j < B->n; j++) {
            double a = kf_mat_get(A, map ? map[i] : i, map ? map[j] : j), b = kf_mat_get(B, i, j);
            e = fmax(e, fabs(a - s * b));
            big = fmax(big, fabs(b));
        }
    return big > 0.0 ? e / big : e;
}

static void test_spatial(void)
{
    kf_section sec = {.E = 2.1e11, .rho = 7800, .A = 1e-4, .Izz = 1e-8, .Iyy = 2.5e-8, .J = 2.2e-8,
                      .nu = 0.3, .ref = {0.0, 1.0, 0.0}};
    kf_error err = {0};
    /* the 3D beam contains the planar one: its (u, v, theta_z) rows and columns */
    int nel = 5, nn = nel + 1;
    kf_body *b3 = straight3(KF_BEAM3D, nel, 1.1, &sec), *b2 = straight_body(KF_BEAM2, nel, 1.1, &sec);
    int map[18];
    for (int k = 0; k < nn; k++)
        map[3 * k] = 6 * k, map[3 * k + 1] = 6 * k + 1, map[3 * k + 2] = 6 * k + 5;
    CHECK(mat_diff(kf_body_mass(b3), map, kf_body_mass(b2), 1.0) < 2e-15, "M in-plane");
    CHECK(mat_diff(kf_body_stiffness(b3), map, kf_body_stiffness(b2), 1.0) < 2e-15, "K in-plane");
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            CHECK(mat_diff(kf_body_S(b3, i, j), map, kf_body_S(b2, i, j), 1.0) < 2e-15,
                  "S_%d%d in-plane", i, j);
    /* torsional mass: consistent linear, rho (Izz + Iyy) l / 3 and / 6 */
    double ip = sec.rho * (sec.Izz + sec.Iyy) * 1.1 / nel;
    CHECK(fabs(kf_mat_get(kf_body_mass(b3), 3, 3) - ip / 3) < 1e-15 * ip &&
              fabs(kf_mat_get(kf_body_mass(b3), 3, 9) - ip / 6) < 1e-15 * ip,
          "torsional mass %g", kf_mat_get(kf_body_mass(b3), 3, 3));
    double GJ = sec.E / (2 * 1.3) * sec.J * nel / 1.1;
    CHECK(fabs(kf_mat_get(kf_body_stiffness(b3), 3, 9) + GJ) < 1e-13 * GJ, "G J / l");
    kf_body_free(b2);

    /* a general spin: C, K_eps skew, K_om symmetric negative semidefinite, and Kane's
     * inertia forces by quadrature equal the invariant route */
    int n = kf_body_ndof(b3);
    const kf_mat *M = kf_body_mass(b3);
    kf_frame fr = {{3.0, -5.0, 7.0}, {40.0, 10.0, -20.0}, {0}, {1.0, -2.0, -9.81}, {0}};
    kf_mat C, Ke, Ko;
    kf_mat_alloc_like(&C, M, NULL);
    kf_mat_alloc_like(&Ke, M, NULL);
    kf_mat_alloc_like(&Ko, M, NULL);
    double *v = calloc((size_t)9 * n, sizeof(double));
    double *d = v, *dd = v + n, *ddd = v + 2 * n, *q = v + 3 * n, *f = v + 6 * n, *g = v + 7 * n,
           *y = v + 8 * n;
    unsigned long long rs = 99;
    for (int i = 0; i < 3 * n; i++)
        v[i] = 1e-2 * uniform(&rs);
    CHECK(kf_body_motion_terms(b3, &fr, &C, &Ke, &Ko, q, q + n, q + 2 * n, &err) == KF_OK, "%s",
          err.msg);
    double skew = 0.0, sym = 0.0, big = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            skew = fmax(skew, fabs(kf_mat_get(&C, i, j) + kf_mat_get(&C, j, i)) +
                                  fabs(kf_mat_get(&Ke, i, j) + kf_mat_get(&Ke, j, i)));
            sym = fmax(sym, fabs(kf_mat_get(&Ko, i, j) - kf_mat_get(&Ko, j, i)));
            big = fmax(big, fabs(kf_mat_get(&Ko, i, j)));
        }
    CHECK(skew == 0.0 && sym == 0.0, "C, K_eps skew and K_om symmetric bitwise: %g %g", skew, sym);
    for (int trial = 0; trial < 5; trial++) {
        for (int i = 0; i < n; i++)
            y[i] = uniform(&rs);
        kf_mat_gemv(&Ko, 1.0, y, 0.0, g);
        CHECK(kf_dot(n, y, g) <= 1e-13 * big * n, "y^T K_om y = %g > 0", kf_dot(n, y, g));
    }
    CHECK(kf_body_inertia_forces_direct(b3, d, dd, ddd, &fr, f, &err) == KF_OK, "%s", err.msg);
    kf_mat_gemv(M, 1.0, ddd, 0.0, g);
    kf_mat_gemv(&C, 1.0, dd, 1.0, g);
    kf_mat_gemv(&Ke, 1.0, d, 1.0, g);
    kf_mat_gemv(&Ko, 1.0, d, 1.0, g);
    double e = 0.0, sf = 0.0;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(f[i] + g[i] + q[i] + q[n + i] + q[2 * n + i]));
        sf = fmax(sf, fabs(f[i]));
    }
    CHECK(e < 1e-13 * sf, "direct quadrature vs invariants: %g of %g", e, sf);
    kf_mat_free(&C);
    kf_mat_free(&Ke);
    kf_mat_free(&Ko);
    free(v);

    /* eigenvalues at three equal instants (a constant spin): one solve, reused twice,
     * identical results; a planar body refuses the spin */
    unsigned char fixed[36] = {1, 1, 1, 1, 1, 1};
    kf_eig *eg = NULL;
    CHECK(kf_eig_create(&eg, b3, fixed, 0, &err) == KF_OK, "%s", err.msg);
    kf_frame three[3] = {fr, fr, fr};
    kf_eig_opts opt = {4, 1, 1, KF_ORDER_ASCENDING, NULL, NULL};
    double re[12], im[12], s_re[12], s_im[12];
    double *modes = calloc((size_t)3 * n * 4, sizeof(double));
    kf_eig_stats st;
    CHECK(kf_eig_solve(eg, 3, three, NULL, &opt, re, im, modes, &st, &err) == KF_OK, "%s", err.msg);
    CHECK(st.solver == KF_SOLVER_GENERAL && st.full_solves + st.continued == 1 && st.reused == 2,
          "stats %d %d %d", st.solver, st.full_solves, st.reused);
    CHECK(!memcmp(re, re + 8, 4 * sizeof(double)) && modes[0] == 0.0, "reused instant");
    CHECK(kf_eig_gyroscopic(eg, 3, three, NULL, &opt, s_re, s_im, &err) == KF_OK, "%s", err.msg);
    CHECK(s_im[0] > 0.0 && isfinite(s_re[0]), "gyroscopic %g %g", s_re[0], s_im[0]);
    kf_eig_free(eg);
    free(modes);
    kf_body *bp = straight_body(KF_BEAM2, 2, 1.0, &sec);
    CHECK(kf_body_motion_terms(bp, &fr, NULL, NULL, NULL, NULL, NULL, NULL, &err) == KF_EINVAL &&
              !strcmp(err.arg, "omega"), "%s", err.msg);
    kf_body_free(bp);

    /* bad sections */
    double xyz[6] = {0, 0, 0, 0, 2.0, 0};
    int conn[2] = {0, 1};
    kf_body *bad = NULL;
    kf_section s2 = sec;
    CHECK(kf_body_create(&bad, KF_BEAM3D, 2, xyz, 1, conn, &s2, &err) == KF_EINVAL &&
              !strcmp(err.arg, "ref") && strstr(err.msg, "parallel") && !bad, "%s", err.msg);
    s2.ref[0] = 1.0, s2.nu = 0.7;
    CHECK(kf_body_create(&bad, KF_BEAM3D, 2, xyz, 1, conn, &s2, &err) == KF_EINVAL &&
              !strcmp(err.arg, "nu"), "%s", err.msg);
    s2.nu = 0.3, s2.J = 0.0;
    CHECK(kf_body_create(&bad, KF_BEAM3D, 2, xyz, 1, conn, &s2, &err) == KF_EINVAL &&
              !strcmp(err.arg, "J"), "%s", err.msg);
    /* a bar in space: mass across it too, stiffness along it only */
    CHECK(kf_body_create(&bad, KF_BAR3D, 2, xyz, 1, conn, &sec, &err) == KF_OK, "%s", err.msg);
    double mb = sec.rho * sec.A * 2.0, kb = sec.E * sec.A / 2.0;
    CHECK(fabs(kf_mat_get(kf_body_mass(bad), 0, 0) - mb / 3) < 1e-15 * mb &&
              fabs(kf_mat_get(kf_body_stiffness(bad), 1, 4) + kb) < 1e-15 * kb &&
              kf_mat_get(kf_body_stiffness(bad), 0, 0) == 0.0,
          "bar3d along y: M %g K %g", kf_mat_get(kf_body_mass(bad), 0, 0),
          kf_mat_get(kf_body_stiffness(bad), 1, 4));
    kf_body_free(bad);

    /* motions: a constant spin turns gravity by R(t)^T; samples of a uniform rotation about
     * x at 2 rad/s (quaternion (cos t, sin t, 0, 0)) give omega = (2, 0, 0) */
    kf_motion_spin spin = {{0.0, 0.0, 2.0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.0, -9.81, 0.0}};
    kf_frame out;
    kf_motion_spin_eval(PI / 4, &out, &spin, &err);
    /* R = rotation by pi/2 about z: g_L = R^T g = (-9.81, 0, 0), a = -g_L */
    CHECK(fabs(out.a[0] - 9.81) < 1e-14 && fabs(out.a[1]) < 1e-14 && out.omega[2] == 2.0,
          "spin: a = (%g, %g, %g)", out.a[0], out.a[1], out.a[2]);
    int ns = 41;
    double ts[41], ys[41 * 7], coef[40 * 7 * 4];
    for (int i = 0; i < ns; i++) {
        ts[i] = 0.025 * i;
        double row[7] = {cos(ts[i]), sin(ts[i]), 0.0, 0.0, ts[i] * ts[i], 0.0, 0.0};
        memcpy(ys + 7 * i, row, sizeof row);
    }
    CHECK(kf_spline_fit(ns, ts, KF_MOTION_ROTATION_NCH, ys, coef, &err) == KF_OK, "%s", err.msg);
    kf_motion_rotation mr = {ns, ts, coef, {0.0, 0.0, 0.0}};
    CHECK(kf_motion_rotation_eval(0.5, &out, &mr, &err) == 0, "%s", err.msg);
    /* spline error O(h^3) in omega; the origin's x'' = 2 along the rotation axis */
    CHECK(fabs(out.omega[0] - 2.0) < 1e-6 && fabs(out.omega[1]) < 1e-15 &&
              fabs(out.eps[0]) < 1e-4 && fabs(out.a[0] - 2.0) < 1e-12,
          "rotation: omega (%g, %g, %g), a_x %g", out.omega[0], out.omega[1], out.omega[2],
          out.a[0]);
    CHECK(kf_motion_rotation_eval(2.0, &out, &mr, &err) != 0 && strstr(err.msg, "outside"),
          "%s", err.msg);

    /* the body problem in spatial motion: Lagrange's C = 2 G + D, K = K_H + G' and
     * f = b - h' of Hamilton's form (central differences), then Newmark steps */
    for (int i = 0; i < ns; i++) { /* a tumbling rotation and a moving origin */
        double a = 0.5 * ts[i], bq = 0.3 * sin(2 * ts[i]);
        double row[7] = {cos(a) * cos(bq), sin(a) * cos(bq), cos(a) * sin(bq), sin(a) * sin(bq),
                         0.1 * sin(ts[i]), 0.2 * ts[i] * ts[i], 0.0};
        memcpy(ys + 7 * i, row, sizeof row);
    }
    CHECK(kf_spline_fit(ns, ts, KF_MOTION_ROTATION_NCH, ys, coef, &err) == KF_OK, "%s", err.msg);
    mr.g[2] = -9.81;
    kf_body_ode_opts bo = {fixed, kf_motion_rotation_eval, &mr, NULL, NULL, {0.0, 0.0}, NULL, 1};
    kf_body_ode *ode = NULL;
    CHECK(kf_body_ode_create(&ode, b3, &bo, &err) == KF_OK, "%s", err.msg);
    const kf_lin2 *sys = kf_body_ode_system(ode);
    int m = sys->n;
    kf_mat X[7];
    for (int k = 0; k < 7; k++)
        kf_mat_alloc_like(&X[k], sys->M, NULL);
    double *w = calloc((size_t)6 * m, sizeof(double));
    double *fl = w, *h = w + m, *bb = w + 2 * m, *hp = w + 3 * m, *hm = w + 4 * m, *tmp = w + 5 * m;
    double t = 0.37, dt = 1e-5;
    CHECK(sys->second(t, &X[0], &X[1], fl, sys->params, &err) == 0, "%s", err.msg);
    CHECK(sys->canonical(t, &X[2], &X[3], h, bb, sys->params, &err) == 0, "%s", err.msg);
    sys->canonical(t + dt, &X[4], &X[6], hp, tmp, sys->params, &err);
    sys->canonical(t - dt, &X[5], &X[6], hm, tmp, sys->params, &err);
    double ec = 0, ek = 0, ef = 0, sc = 0, sk = 0, sfl = 0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
            double gd = (kf_mat_get(&X[4], i, j) - kf_mat_get(&X[5], i, j)) / (2 * dt);
            ec = fmax(ec, fabs(kf_mat_get(&X[0], i, j) - 2 * kf_mat_get(&X[2], i, j)));
            ek = fmax(ek, fabs(kf_mat_get(&X[1], i, j) - kf_mat_get(&X[3], i, j) - gd));
            sc = fmax(sc, fabs(kf_mat_get(&X[0], i, j)));
            sk = fmax(sk, fabs(kf_mat_get(&X[1], i, j) - kf_mat_get(&X[3], i, j)));
        }
        ef = fmax(ef, fabs(fl[i] - (bb[i] - (hp[i] - hm[i]) / (2 * dt))));
        sfl = fmax(sfl, fabs(fl[i]));
    }
    /* central differences of a smooth spline: O(dt^2), plus round-off / dt */
    CHECK(ec <= 1e-14 * sc && sc > 0, "C = 2 G: %g of %g", ec, sc);
    CHECK(ek <= 1e-6 * sk && sk > 0, "K = K_H + G': %g of %g", ek, sk);
    CHECK(ef <= 1e-6 * sfl, "f = b - h': %g of %g", ef, sfl);
    for (int k = 0; k < 7; k++)
        kf_mat_free(&X[k]);
    free(w);
    double tt[2] = {0.5, 1.0}, *dv = calloc((size_t)6 * n, sizeof(double));
    kf_integ_opts io = {KF_NEWMARK, 1e-3, 0.0, 0, 0, 0, 0, 0, NULL, NULL};
    kf_integ *wi = NULL;
    kf_stats ist;
    CHECK(kf_integ_create(&wi, sys, &io, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_integ_run(wi, 0.0, dv + 4 * n, dv + 5 * n, 2, tt, n, kf_body_ode_map(ode), dv,
                       dv + 2 * n, NULL, &ist, &err) == KF_OK && ist.steps == 1000,
          "%s", err.msg);
    CHECK(kf_vec_finite((size_t)2 * n, dv) && dv[n + 6] != 0.0, "a response %g", dv[n + 6]);
    kf_integ_free(wi);
    kf_body_ode_free(ode);
    free(dv);
    kf_body_free(b3);
}

/* Strains at the quadrature points and element end forces (csrc/kf_stress.c): a distorted
 * hex8 with incompatible modes under a linear field has the constant strain at every point
 * (the recovered internal modes vanish, Taylor's form) and stress D eps; its end forces are
 * K d (one element: the body's K) and in equilibrium (they sum to zero). */
static void test_stresses(void)
{
    const double x[8 * 3] = {0, 0, 0, 1.1, 0.1, 0, 1.2, 0.9, 0.1, -0.1, 1.0, 0,
                             0.1, 0, 1.0, 1.0, 0.2, 1.1, 1.1, 1.1, 0.9, 0, 0.9, 1.2};
    const double G[9] = {1e-3, 2e-4, -3e-4, 5e-4, -7e-4, 1e-4, 2e-4, 3e-4, 4e-4};
    int conn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    kf_section sec = {0};
    sec.E = 2e11;
    sec.rho = 7800;
    sec.nu = 0.3;
    kf_error err = {0};
    for (int kind = KF_HEX8; kind <= KF_HEX8I; kind += KF_HEX8I - KF_HEX8) {
        kf_body *b = NULL;
        CHECK(kf_body_create_storage(&b, kind, 8, x, 1, conn, &sec, KF_DENSE, &err) == KF_OK, "%s",
              err.msg);
        if (!b)
            continue;
        double d[2 * 24], eps[2 * 8 * 6], sig[2 * 8 * 6], xq[8 * 3], f[2 * 24], Kd[24];
        int elem[8], npts, ns, ne;
        CHECK(kf_body_point_count(b, &npts, &ns, &ne) == KF_OK && npts == 8 && ns == 6 && ne == 24,
              "counts %d %d %d", npts, ns, ne);
        for (int a = 0; a < 8; a++)
            for (int i = 0; i < 3; i++) {
                d[3 * a + i] = G[3 * i] * x[3 * a] + G[3 * i + 1] * x[3 * a + 1] + G[3 * i + 2] * x[3 * a + 2];
                d[24 + 3 * a + i] = 1e-3 * sin(1.0 + 3 * a + i); /* any state */
            }
        CHECK(kf_body_point_strains(b, 2, d, eps, sig, xq, elem, &err) == KF_OK, "%s", err.msg);
        const double e0[6] = {G[0], G[4], G[8], G[5] + G[7], G[2] + G[6], G[1] + G[3]};
        double lam = sec.E * sec.nu / ((1 + sec.nu) * (1 - 2 * sec.nu)), mu = sec.E / (2 * (1 + sec.nu));
        for (int q = 0; q < 8; q++)
            for (int r = 0; r < 6; r++) {
                double s0 = r < 3 ? lam * (e0[0] + e0[1] + e0[2]) + 2 * mu * e0[r] : mu * e0[r];
                CHECK(fabs(eps[q * 6 + r] - e0[r]) < 1e-15 && fabs(sig[q * 6 + r] - s0) < 1e-10 * mu,
                      "kind %d point %d strain %d: %g vs %g", kind, q, r, eps[q * 6 + r], e0[r]);
                CHECK(elem[q] == 0, "element of point %d", q);
            }
        CHECK(kf_body_element_forces(b, 2, d, f, &err) == KF_OK, "%s", err.msg);
        for (int c = 0; c < 2; c++) {
            kf_mat_gemv(kf_body_stiffness(b), 1.0, d + 24 * c, 0.0, Kd);
            double sum[3] = {0}, scale = 0.0;
            for (int k = 0; k < 24; k++) {
                scale = fmax(scale, fabs(Kd[k]));
                sum[k % 3] += f[24 * c + k];
            }
            for (int k = 0; k < 24; k++)
                CHECK(fabs(f[24 * c + k] - Kd[k]) < 1e-12 * scale, "kind %d K d %d", kind, k);
            for (int i = 0; i < 3; i++)
                CHECK(fabs(sum[i]) < 1e-12 * scale, "kind %d equilibrium %d: %g", kind, i, sum[i]);
        }
        kf_body_free(b);
    }
    int nq, nn;
    double rq[KF_REF_MAXQ * 3], rn[KF_REF_MAXQ * 3];
    CHECK(kf_continuum_reference(KF_PYRAMID5, &nq, &nn, rq, rn, &err) == KF_OK && nq == 12 && nn == 5 &&
              rn[3 * 4 + 2] == 1.0 && rn[3 * 4] == 0.0, "pyramid apex (0, 0, 1)");
    CHECK(kf_continuum_reference(KF_BEAM2, &nq, &nn, rq, rn, &err) == KF_EINVAL, "a line kind is refused");
}

/* ---------------------------------------------------------------- solvers and the stepper */

typedef struct counting_solver {
    int setups, solves;
    double a; /* a 1 x 1 "factor" */
} counting_solver;

static int cs_setup(void *c, const kf_mat *A, kf_error *err)
{
    (void)err;
    counting_solver *s = c;
    s->setups++;
    s->a = A->a[0];
    return KF_OK;
}

static int cs_solve(void *c, int nrhs, double *b, int ldb, kf_error *err)
{
    (void)err, (void)ldb;
    counting_solver *s = c;
    s->solves++;
    for (int k = 0; k < nrhs; k++)
        b[k] /= s->a;
    return KF_OK;
}

static const kf_linsol_ops cs_ops = {"counting", cs_setup, cs_solve, NULL};

static int cs_factory(kf_linsol **out, const kf_mat *like, void *params, kf_error *err)
{
    return kf_linsol_callback(out, like->n, &cs_ops, params, err);
}

/* the oscillator m a + k d = 0 as the stepper's residual; J = cm m + cd k */
typedef struct osc {
    double m, k;
    int calls;
} osc;

static int osc_residual(double t, const double *d, const double *v, const double *a, int iter,
                        double *R, void *params, kf_error *err)
{
    (void)t, (void)v, (void)iter, (void)err;
    osc *o = params;
    o->calls++;
    R[0] = o->m * a[0] + o->k * d[0];
    return KF_OK;
}

static int osc_jacobian(double cm, double cv, double cd, kf_mat *J, void *params, kf_error *err)
{
    (void)cv, (void)err;
    osc *o = params;
    J->a[0] = cm * o->m + cd * o->k;
    return KF_OK;
}

/* 1.25 periods of the oscillator (omega = 2) in n steps; the error of d at the end,
 * where d = 0 and its slope is largest (a phase error shows at first order there). */
static double osc_period(int form, int linear, double rho, int n, int *factors, kf_error *err)
{
    osc o = {1.0, 4.0, 0};
    kf_mat like;
    kf_mat_alloc(&like, KF_DENSE, 1, 0, 0, err);
    kf_ga_problem p = {1, &like, osc_residual, osc_jacobian, &o};
    kf_ga_opts go = {.form = form, .linear = linear, .tol = 1e-12, .max_iter = 20,
                     .refactor_rate = 0.1};
    kf_ga_coefficients(rho, &go);
    kf_ga *g = NULL;
    double d[2] = {1.0, 0.0}, v[2] = {0.0, 0.0}, a[2] = {-4.0, 0.0}, al[2] = {-4.0, 0.0};
    double T = 1.25 * acos(-1.0), h = T / n, e = NAN;
    kf_stats st = {0};
    if (kf_ga_create(&g, &p, &go, err) == KF_OK) {
        int rc = KF_OK;
        for (int i = 0; i < n && !rc; i++) {
            rc = kf_ga_step(g, (i + 1) * h, h, d, v, a, al, d + 1, v + 1, a + 1, al + 1, &st, err);
            d[0] = d[1], v[0] = v[1], a[0] = a[1], al[0] = al[1];
        }
        e = rc ? NAN : fabs(d[0] - cos(2.0 * T));
    }
    *factors = (int)st.factorizations;
    kf_ga_free(g);
    kf_mat_free(&like);
    return e;
}

/* The core's band LU against LAPACK's on a band that needs row interchanges (small
 * diagonal, kl = 3, ku = 2, n = 40): the same solution to round-off (the same
 * algorithm, dgbtf2's, so the same pivots); a zero column is singular, a NaN refused. */
static void test_small_band_lu(kf_error *err)
{
    int n = 40, kl = 3, ku = 2;
    kf_mat B;
    CHECK(kf_mat_alloc(&B, KF_BAND, n, kl, ku, err) == KF_OK, "%s", err->msg);
    unsigned s = 12345u;
    for (int j = 0; j < n; j++)
        for (int i = j - ku < 0 ? 0 : j - ku; i <= (j + kl < n ? j + kl : n - 1); i++) {
            s = s * 1103515245u + 12345u;
            double r = (double)(s >> 8) / 16777216.0 - 0.5; /* in [-0.5, 0.5) */
            kf_mat_add(&B, i, j, i == j ? 0.01 * r : r);
        }
    kf_linsol *la = NULL, *sm = NULL;
    CHECK(kf_linsol_lapack(&la, &B, err) == KF_OK && kf_linsol_small(&sm, &B, err) == KF_OK,
          "%s", err->msg);
    CHECK(kf_linsol_setup(la, &B, err) == KF_OK && kf_linsol_setup(sm, &B, err) == KF_OK,
          "%s", err->msg);
    double x1[80], x2[80], big = 0.0, diff = 0.0;
    for (int i = 0; i < 2 * n; i++)
        x1[i] = x2[i] = sin(1.0 + i);
    CHECK(kf_linsol_solve(la, 2, x1, n, err) == KF_OK && kf_linsol_solve(sm, 2, x2, n, err) == KF_OK,
          "%s", err->msg);
    for (int i = 0; i < 2 * n; i++) {
        big = fmax(big, fabs(x1[i]));
        diff = fmax(diff, fabs(x1[i] - x2[i]));
    }
    CHECK(diff <= 1e-12 * big, "band LU: core and LAPACK differ by %g of %g", diff, big);
    /* residual of the core's solution: B x = b (first right-hand side) */
    double res = 0.0;
    for (int i = 0; i < n; i++) {
        double r = -sin(1.0 + i);
        for (int j = 0; j < n; j++)
            r += kf_mat_get(&B, i, j) * x2[j];
        res = fmax(res, fabs(r));
    }
    CHECK(res <= 1e-12 * big, "band LU residual %g", res);
    kf_mat Bz;
    CHECK(kf_mat_alloc(&Bz, KF_BAND, n, kl, ku, err) == KF_OK, "%s", err->msg);
    kf_mat_copy(&Bz, &B);
    for (int i = 0; i < n; i++) /* column 7 zero: singular */
        if (kf_mat_get(&Bz, i, 7) != 0.0)
            kf_mat_add(&Bz, i, 7, -kf_mat_get(&Bz, i, 7));
    CHECK(kf_linsol_setup(sm, &Bz, err) == KF_ESING, "a singular band: %s", err->msg);
    kf_mat_add(&Bz, 5, 7, NAN);
    CHECK(kf_linsol_setup(sm, &Bz, err) == KF_ERANGE, "a NaN in the band: %s", err->msg);
    kf_linsol_free(la);
    kf_linsol_free(sm);
    kf_mat_free(&B);
    kf_mat_free(&Bz);
}

static void test_stepper(void)
{
    kf_error err = {0};
    /* the solvers: LAPACK dense and band, the small LU, the caller's functions */
    kf_mat A, Ab;
    kf_mat_alloc(&A, KF_DENSE, 3, 0, 0, &err);
    kf_mat_alloc(&Ab, KF_BAND, 3, 1, 1, &err);
    double vals[3][3] = {{4, 1, 0}, {1, 3, 1}, {0, 1, 2}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (vals[i][j] != 0.0) {
                kf_mat_add(&A, i, j, vals[i][j]);
                kf_mat_add(&Ab, i, j, vals[i][j]);
            }
    kf_linsol *ls[4] = {NULL, NULL, NULL, NULL};
    CHECK(kf_linsol_lapack(&ls[0], &A, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_linsol_lapack(&ls[1], &Ab, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_linsol_small(&ls[2], &A, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_linsol_small(&ls[3], &Ab, &err) == KF_OK, "%s", err.msg);
    for (int k = 0; k < 4; k++) {
        double b[3] = {5, 5, 3}; /* A (1, 1, 1) */
        CHECK(kf_linsol_solve(ls[k], 1, b, 3, &err) == KF_EINVAL, "solve before setup (%s)",
              kf_linsol_name(ls[k]));
        CHECK(kf_linsol_setup(ls[k], k % 2 ? &Ab : &A, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_linsol_solve(ls[k], 1, b, 3, &err) == KF_OK &&
                  fabs(b[0] - 1) + fabs(b[1] - 1) + fabs(b[2] - 1) < 1e-14,
              "%s: x = (%g, %g, %g)", kf_linsol_name(ls[k]), b[0], b[1], b[2]);
    }
    kf_mat B;
    kf_mat_alloc(&B, KF_DENSE, 2, 0, 0, &err);
    CHECK(kf_linsol_setup(ls[0], &B, &err) == KF_EINVAL, "a matrix of another size");
    kf_mat_free(&B);
    kf_mat Z;
    kf_mat_alloc(&Z, KF_DENSE, 3, 0, 0, &err);
    CHECK(kf_linsol_setup(ls[2], &Z, &err) == KF_ESING, "a singular matrix: %s", err.msg);
    kf_mat_free(&Z);
    for (int k = 0; k < 4; k++)
        kf_linsol_free(ls[k]);
    kf_mat_free(&A);
    kf_mat_free(&Ab);
    test_small_band_lu(&err);

    /* the stepper on m a + k d = 0: order 2 in both forms (error / 4 at half the step);
     * Newmark (shifted, rho_inf = 1 is not Newmark: am = af = 0 by hand) conserves
     * the energy; a linear problem factors its constant J once */
    int f1, f2;
    for (int form = 0; form < 2; form++) {
        double e1 = osc_period(form, form == 0, 0.8, 200, &f1, &err);
        double e2 = osc_period(form, form == 0, 0.8, 400, &f2, &err);
        CHECK(e1 / e2 > 3.8 && e1 / e2 < 4.2, "form %d: error ratio %g (%g, %g)", form, e1 / e2,
              e1, e2);
        CHECK(f1 == 1 && f2 == 1, "form %d: %d, %d factorizations of a constant J", form, f1, f2);
    }
    osc o = {1.0, 4.0, 0};
    kf_mat like;
    kf_mat_alloc(&like, KF_DENSE, 1, 0, 0, &err);
    kf_ga_problem p = {1, &like, osc_residual, osc_jacobian, &o};
    kf_ga_opts nm = {.am = 0.0, .af = 0.0, .beta = 0.25, .gamma = 0.5, .form = KF_GA_SHIFTED,
                     .linear = 1, .linsol = cs_factory};
    counting_solver cs = {0, 0, 0.0};
    nm.linsol_params = &cs;
    kf_ga *g = NULL;
    CHECK(kf_ga_create(&g, &p, &nm, &err) == KF_OK, "%s", err.msg);
    double d[2] = {1.0, 0.0}, v[2] = {0.0, 0.0}, a[2] = {-4.0, 0.0}, E0 = 0.5 * 4.0, Emax = 0.0;
    kf_stats st = {0};
    for (int i = 0; g && i < 1000; i++) {
        kf_ga_step(g, (i + 1) * 0.05, 0.05, d, v, a, a, d + 1, v + 1, a + 1, a + 1, &st, &err);
        d[0] = d[1], v[0] = v[1], a[0] = a[1];
        Emax = fmax(Emax, fabs(0.5 * v[0] * v[0] + 2.0 * d[0] * d[0] - E0));
    }
    CHECK(Emax <= 1e-13 * E0, "Newmark's energy drifts by %g", Emax);
    CHECK(cs.setups == 1 && cs.solves == 1000 && st.evaluations == 1000 && o.calls == 1000,
          "the caller's solver: %d setups, %d solves, %ld evaluations", cs.setups, cs.solves,
          st.evaluations);
    kf_ga_free(g);
    nm.tol = 0.0;
    nm.linear = 0;
    CHECK(kf_ga_create(&g, &p, &nm, &err) == KF_EINVAL && !g, "a nonlinear stepper needs tol");
    kf_mat_free(&like);
}

/* A body of given dense invariants (kf_body_create_given, docs/theory.md section 3.18):
 * given a spatial beam's own S_ij, K, s, Mo (the identity basis) it has the beam's motion
 * terms and eigenvalues; bad arrays are refused naming them. */
static void test_given_body(void)
{
    kf_section sec = {.E = 2.1e11, .rho = 7800, .A = 1e-4, .Izz = 1e-8, .Iyy = 2.5e-8, .J = 2.2e-8,
                      .nu = 0.3, .ref = {0.0, 1.0, 0.0}};
    kf_error err = {0};
    kf_body *b = straight3(KF_BEAM3D, 4, 1.0, &sec), *g = NULL;
    int n = kf_body_ndof(b);
    size_t nn = (size_t)n * n;
    double *S = calloc(9 * nn, sizeof(double)), *K = calloc(nn, sizeof(double));
    double *s = calloc((size_t)9 * n, sizeof(double)), *Mo = calloc((size_t)3 * n, sizeof(double));
    for (int k = 0; k < 9; k++) {
        kf_mat_to_rowmajor(kf_body_S(b, k / 3, k % 3), S + k * nn);
        memcpy(s + (size_t)k * n, kf_body_s(b, k / 3, k % 3), (size_t)n * sizeof(double));
    }
    for (int i = 0; i < 3; i++)
        memcpy(Mo + (size_t)i * n, kf_body_Mo(b, i), (size_t)n * sizeof(double));
    kf_mat_to_rowmajor(kf_body_stiffness(b), K);
    CHECK(kf_body_create_given(&g, 3, n, S, NULL, K, s, Mo, 0, NULL, &err) == KF_OK, "%s", err.msg);
    if (g) {
        kf_frame f = {{0.5, -1.0, 30.0}, {2.0, 3.0, -4.0}, {0, 0, 0}, {1.0, -9.81, 0.5}};
        kf_mat C1 = {0}, C2 = {0}, K1 = {0}, K2 = {0};
        double *q1 = calloc((size_t)3 * n, sizeof(double)), *q2 = calloc((size_t)3 * n, sizeof(double));
        kf_mat_alloc_like(&C1, kf_body_mass(b), NULL);
        kf_mat_alloc_like(&K1, kf_body_mass(b), NULL);
        kf_mat_alloc_like(&C2, kf_body_mass(g), NULL);
        kf_mat_alloc_like(&K2, kf_body_mass(g), NULL);
        CHECK(kf_body_motion_terms(b, &f, &C1, NULL, &K1, q1, q1 + n, q1 + 2 * n, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_body_motion_terms(g, &f, &C2, NULL, &K2, q2, q2 + n, q2 + 2 * n, &err) == KF_OK, "%s", err.msg);
        double d = 0.0, big = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                d = fmax(d, fabs(kf_mat_get(&C1, i, j) - kf_mat_get(&C2, i, j)));
                d = fmax(d, fabs(kf_mat_get(&K1, i, j) - kf_mat_get(&K2, i, j)));
                big = fmax(big, fabs(kf_mat_get(&K1, i, j)));
            }
        for (int i = 0; i < 3 * n; i++)
            d = fmax(d, fabs(q1[i] - q2[i]));
        CHECK(d <= 1e-14 * big, "given motion terms differ by %g (scale %g)", d, big);
        /* eigenvalues clamped at node 0, spinning */
        unsigned char *fixed = calloc((size_t)n, 1);
        for (int k = 0; k < 6; k++)
            fixed[k] = 1;
        kf_eig *e1 = NULL, *e2 = NULL;
        CHECK(kf_eig_create(&e1, b, fixed, 0, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_eig_create(&e2, g, fixed, 0, &err) == KF_OK, "%s", err.msg);
        kf_eig_opts o = {.n_modes = 3};
        double l1[3], l2[3], i1[3], i2[3];
        if (e1 && e2) {
            CHECK(kf_eig_solve(e1, 1, &f, NULL, &o, l1, i1, NULL, NULL, &err) == KF_OK, "%s", err.msg);
            CHECK(kf_eig_solve(e2, 1, &f, NULL, &o, l2, i2, NULL, NULL, &err) == KF_OK, "%s", err.msg);
            for (int k = 0; k < 3; k++)
                CHECK(fabs(l1[k] - l2[k]) <= 1e-9 * fabs(l1[k]), "mode %d: %g vs %g", k, l1[k], l2[k]);
        }
        kf_eig_free(e1);
        kf_eig_free(e2);
        free(fixed);
        free(q1);
        free(q2);
        kf_mat_free(&C1);
        kf_mat_free(&C2);
        kf_mat_free(&K1);
        kf_mat_free(&K2);
        /* no mesh: the prestress and direct quadrature refuse it */
        CHECK(kf_body_set_prestress(g, 12, s, NULL, &err) == KF_EINVAL, "prestress of a given body");
        kf_body_free(g);
    }
    /* bad arrays, each named */
    K[1] += 1.0;
    CHECK(kf_body_create_given(&g, 3, n, S, NULL, K, s, Mo, 0, NULL, &err) == KF_EINVAL &&
              !strcmp(err.arg, "K") && g == NULL, "%s", err.msg);
    K[1] -= 1.0;
    S[1 * nn + 1] += 1.0; /* S_xy no longer S_yx^T */
    CHECK(kf_body_create_given(&g, 3, n, S, NULL, K, s, Mo, 0, NULL, &err) == KF_EINVAL &&
              !strcmp(err.arg, "S"), "%s", err.msg);
    S[1 * nn + 1] -= 1.0;
    Mo[0] = NAN;
    CHECK(kf_body_create_given(&g, 3, n, S, NULL, K, s, Mo, 0, NULL, &err) == KF_EINVAL &&
              !strcmp(err.arg, "Mo"), "%s", err.msg);
    CHECK(kf_body_create_given(&g, 3, n, S, NULL, K, s, Mo, 5, K, &err) == KF_EINVAL &&
              !strcmp(err.arg, "KG"), "%s", err.msg);
    CHECK(kf_body_create_given(&g, 4, n, S, NULL, K, s, Mo, 0, NULL, &err) == KF_EINVAL &&
              !strcmp(err.arg, "dim"), "%s", err.msg);
    free(S);
    free(K);
    free(s);
    free(Mo);
    kf_body_free(b);
}

/* The residual M(q) u' - f(q, u, u') of a floating body from its rows (kf_ffrf_rows),
 * u' = (acc (6), ddd), in (translation global, rotation, elastic) order. */
static int ffrf_residual(kf_ffrf *w, const kf_ffrf_state *s, const double *g, const double *acc,
                         const double *ddd, double *res)
{
    int n = kf_ffrf_nelastic(w);
    double Mrr[36], *Mre = calloc((size_t)6 * n, sizeof(double)), *f = calloc((size_t)n + 6, sizeof(double));
    kf_error err = {0};
    int rc = kf_ffrf_rows(w, s, g, acc, 0.0, 0.0, Mrr, Mre, f, &err);
    const kf_mat *M = kf_ffrf_mass(w);
    for (int a = 0; !rc && a < 6; a++) {
        double v = -f[a];
        for (int c = 0; c < 6; c++)
            v += Mrr[6 * a + c] * acc[c];
        for (int c = 0; c < n; c++)
            v += Mre[(size_t)a * n + c] * ddd[c];
        res[a] = v;
    }
    if (!rc)
        kf_mat_gemv(M, 1.0, ddd, 0.0, res + 6);
    for (int r = 0; !rc && r < n; r++) {
        double v = -f[6 + r];
        for (int a = 0; a < 6; a++)
            v += Mre[(size_t)a * n + r] * acc[a];
        res[6 + r] += v;
    }
    free(Mre);
    free(f);
    return rc;
}

/* kf_ffrf_tangent against central differences of the rows' residual: cm d/du', cv d/du
 * and cd d/dq (the rotation by R exp(theta)), each column, K_G on: to 1e-6 (measured
 * 2.7e-8; an omitted or wrong term is of order 1e-3..1 here). */
static void test_floating_tangent(void)
{
    kf_section sec = {.E = 7e10, .rho = 2700, .A = 4e-4, .Izz = 2e-8, .Iyy = 8e-9, .J = 1e-8,
                      .nu = 0.3, .ref = {0.0, 1.0, 0.0}};
    kf_error err = {0};
    kf_body *b = straight3(KF_BEAM3D, 3, 1.0, &sec);
    int ndof = kf_body_ndof(b);
    unsigned char *fixed = calloc((size_t)ndof, 1);
    for (int k = 0; k < 6; k++)
        fixed[k] = 1;
    kf_ffrf_desc desc = {b, fixed, NULL, {0.2, 1e-5}, 1};
    kf_ffrf *w = NULL;
    CHECK(kf_ffrf_create(&w, &desc, &err) == KF_OK, "%s", err.msg);
    int n = w ? kf_ffrf_nelastic(w) : 0, N = n + 6;
    double *d = calloc((size_t)N, sizeof(double)), *dd = calloc((size_t)N, sizeof(double));
    double *ddd = calloc((size_t)N, sizeof(double)), *r1 = calloc((size_t)N, sizeof(double));
    double *r2 = calloc((size_t)N, sizeof(double)), *Jer = calloc((size_t)6 * N, sizeof(double));
    double *Jre = calloc((size_t)6 * N, sizeof(double)), Jrr[36];
    kf_mat Jee = {0};
    if (w)
        kf_mat_alloc_like(&Jee, kf_ffrf_mass(w), NULL);
    for (int i = 0; i < n; i++) {
        d[i] = 1e-4 * sin(0.7 * i + 0.3);
        dd[i] = 1e-2 * cos(1.3 * i);
        ddd[i] = 3.0 * sin(2.1 * i + 1.0);
    }
    double g[3] = {0.3, -9.81, 1.0}, acc[6] = {1.0, -2.0, 0.5, 2.0, -1.0, 3.0};
    kf_ffrf_state st = {{0.8, -0.6, 0.0, 0.6, 0.8, 0.0, 0.0, 0.0, 1.0}, {0.2, 0.1, 0.0},
                        {0.5, 3.0, 1.0}, d, dd};
    const double cs[3] = {1.0, 0.37, 0.051}; /* cm, cv, cd */
    double worst = 0.0;
    for (int part = 0; w && part < 3; part++) {
        double c[3] = {0, 0, 0};
        c[part] = cs[part];
        CHECK(kf_ffrf_rows(w, &st, g, acc, 0.0, 0.0, NULL, NULL, NULL, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_ffrf_tangent(w, ddd, c[0], c[1], c[2], &Jee, Jer, Jre, Jrr, &err) == KF_OK, "%s",
              err.msg);
        for (int j = 0; j < N; j++) { /* column j: rigid (0..5) or elastic (6..) */
            /* the residual is affine in u', quadratic in u and in d (central differences
             * exact there: steps as large as keeps round-off low); the rotation is not */
            double h = part < 2 || j >= 6 ? 1e-3 : 1e-6, col[64];
            for (int sgn = 0; sgn < 2; sgn++) {
                double e = sgn ? -h : h, a2[6], R0[9];
                kf_ffrf_state s2 = st;
                double *x = sgn ? r2 : r1;
                memcpy(a2, acc, sizeof a2);
                memcpy(R0, st.R, sizeof R0);
                if (part == 0) {
                    if (j < 6)
                        a2[j] += e;
                    else
                        ddd[j - 6] += e;
                } else if (part == 1) {
                    if (j < 3)
                        s2.v[j] += e;
                    else if (j < 6)
                        s2.omega[j - 3] += e;
                    else
                        dd[j - 6] += e;
                } else if (j >= 3 && j < 6) { /* R exp(e [e_k]x), to first order and beyond */
                    int k = j - 3;
                    double cth = cos(e), sth = sin(e), E[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
                    int p = (k + 1) % 3, q = (k + 2) % 3;
                    E[4 * p] = cth, E[4 * q] = cth, E[3 * p + q] = -sth, E[3 * q + p] = sth;
                    for (int i = 0; i < 3; i++)
                        for (int m = 0; m < 3; m++)
                            s2.R[3 * i + m] = R0[3 * i] * E[m] + R0[3 * i + 1] * E[3 + m] + R0[3 * i + 2] * E[6 + m];
                } else if (j >= 6) {
                    d[j - 6] += e;
                }
                if (!(part == 2 && j < 3)) /* the position r_c enters nothing */
                    ffrf_residual(w, &s2, g, a2, ddd, x);
                else
                    memset(x, 0, (size_t)N * sizeof(double));
                if (part == 0 && j >= 6)
                    ddd[j - 6] -= e;
                if (part == 1 && j >= 6)
                    dd[j - 6] -= e;
                if (part == 2 && j >= 6)
                    d[j - 6] -= e;
            }
            for (int i = 0; i < N; i++)
                col[i] = c[part] * (r1[i] - r2[i]) / (2 * h);
            for (int i = 0; i < N; i++) {
                double a = i < 6 ? (j < 6 ? Jrr[6 * i + j] : Jre[(size_t)i * n + j - 6])
                                 : (j < 6 ? Jer[(size_t)j * n + i - 6] : kf_mat_get(&Jee, i - 6, j - 6));
                if (part == 2 && i < 3 && j >= 3 && j < 6)
                    continue; /* the translation rows' own residual turning: left out */
                worst = fmax(worst, fabs(a - col[i]) / (1.0 + fabs(col[i])));
            }
        }
    }
    CHECK(w && worst < 1e-6, "tangent vs finite differences: %g", worst);
    /* a tangent without rows before it, and after another call, is refused */
    if (w) {
        double a[6], *q = calloc((size_t)N, sizeof(double));
        CHECK(kf_ffrf_accelerations(w, &st, g, a, q, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_ffrf_tangent(w, ddd, 1, 0, 0, &Jee, Jer, Jre, Jrr, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "state"), "%s", err.msg);
        free(q);
    }
    kf_mat_free(&Jee);
    free(d);
    free(dd);
    free(ddd);
    free(r1);
    free(r2);
    free(Jer);
    free(Jre);
    free(fixed);
    kf_ffrf_free(w);
    kf_body_free(b);
}

/* A body in a floating frame (kf_ffrf, docs/theory.md section 1.6): its mass
 * properties (closed forms), its elastic rows under a prescribed frame equal to the
 * one-way motion terms, the free accelerations solving its equations (K_G taken at
 * them), a given body of the same invariants equal to it, a few steps of either
 * integrator, and bad arguments refused by name. */
static void test_floating(void)
{
    kf_section sec = {.E = 7e10, .rho = 2700, .A = 4e-4, .Izz = 2e-8, .Iyy = 8e-9, .J = 1e-8,
                      .nu = 0.3, .ref = {0.0, 1.0, 0.0}};
    kf_error err = {0};
    double len = 1.0;
    kf_body *b = straight3(KF_BEAM3D, 4, len, &sec);
    int ndof = kf_body_ndof(b);
    unsigned char *fixed = calloc((size_t)ndof, 1);
    for (int k = 0; k < 6; k++)
        fixed[k] = 1; /* clamped at the first node: the frame follows it */
    kf_ffrf_desc desc = {b, fixed, NULL, {0.2, 1e-5}, 1};
    kf_ffrf *w = NULL;
    CHECK(kf_ffrf_create(&w, &desc, &err) == KF_OK, "%s", err.msg);
    if (!w)
        goto done;
    int n = kf_ffrf_nelastic(w);
    double m, xc[3], J0[9], mt = sec.rho * sec.A * len;
    kf_ffrf_mass_properties(w, &m, xc, J0);
    CHECK(fabs(m - mt) < 1e-14 * mt && fabs(xc[0] - 0.5) < 1e-15 && xc[1] == 0.0, "m %g, x_c %g", m, xc[0]);
    /* the section points give J_xx = rho Ip L, J_yy = m L^2/12 + rho Iyy L (Gauss: exact) */
    CHECK(fabs(J0[0] - sec.rho * (sec.Izz + sec.Iyy) * len) < 1e-12 * J0[4] &&
              fabs(J0[4] - (mt * len * len / 12 + sec.rho * sec.Iyy * len)) < 1e-14 * J0[4] &&
              fabs(J0[8] - (mt * len * len / 12 + sec.rho * sec.Izz * len)) < 1e-14 * J0[8],
          "inertia %g %g %g", J0[0], J0[4], J0[8]);
    CHECK(kf_ffrf_rigid_margin(w) > 1e-6, "margin %g", kf_ffrf_rigid_margin(w));
    double *d = calloc((size_t)n, sizeof(double)), *dd = calloc((size_t)n, sizeof(double));
    double *ddd = calloc((size_t)n, sizeof(double)), *x = calloc((size_t)ndof * 5, sizeof(double));
    for (int i = 0; i < n; i++) { /* small: K_G's loads follow the frame's accelerations */
        d[i] = 1e-6 * sin(1.0 + i);
        dd[i] = 1e-3 * cos(2.0 * i);
    }
    /* prescribed: the one-way equations M d'' = -(C d' + (K + K_eps + K_om + K_G) d + q)
     * with Rayleigh damping, on the free DOFs */
    kf_frame f = {{0.3, -1.2, 2.0}, {0.5, 0.1, -0.7}, {0}, {1.0, -2.0, 3.0}, {0}};
    double drive[6];
    CHECK(kf_ffrf_prescribed(w, &f, d, dd, ddd, drive, &err) == KF_OK, "%s", err.msg);
    kf_mat C = {0}, Ke = {0}, Ko = {0}, KG = {0};
    kf_mat_alloc_like(&C, kf_body_mass(b), NULL);
    kf_mat_alloc_like(&Ke, kf_body_mass(b), NULL);
    kf_mat_alloc_like(&Ko, kf_body_mass(b), NULL);
    kf_mat_alloc_like(&KG, kf_body_mass(b), NULL);
    double *full = x, *y = x + ndof, *q = x + 2 * ndof, c3[3];
    CHECK(kf_body_motion_terms(b, &f, &C, &Ke, &Ko, q, q + ndof, q + 2 * ndof, &err) == KF_OK,
          "%s", err.msg);
    CHECK(kf_body_axial_force(b, &f, 0.0, 0.0, 1, 0, c3, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_body_geometric(b, c3, 0.0, &KG, &err) == KF_OK, "%s", err.msg);
    const int *map = kf_ffrf_map(w);
    double *fv = calloc((size_t)ndof, sizeof(double)), *dv = calloc((size_t)ndof, sizeof(double));
    for (int i = 0; i < n; i++)
        full[map[i]] = d[i], dv[map[i]] = dd[i];
    kf_mat_gemv(&C, 1.0, dv, 0.0, fv);
    kf_mat_gemv(kf_body_mass(b), 0.2, dv, 1.0, fv);
    kf_mat_gemv(kf_body_stiffness(b), 1e-5, dv, 1.0, fv);
    kf_mat_gemv(kf_body_stiffness(b), 1.0, full, 1.0, fv);
    kf_mat_gemv(&Ke, 1.0, full, 1.0, fv);
    kf_mat_gemv(&Ko, 1.0, full, 1.0, fv);
    kf_mat_gemv(&KG, 1.0, full, 1.0, fv);
    for (int i = 0; i < ndof; i++)
        fv[i] = -(fv[i] + q[i] + q[ndof + i] + q[2 * ndof + i]);
    for (int i = 0; i < n; i++) /* M d'' over the free DOFs */
        y[i] = 0.0;
    double e = 0.0, big = 0.0;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += kf_mat_get(kf_body_mass(b), map[i], map[j]) * ddd[j];
        e = fmax(e, fabs(s - fv[map[i]]));
        big = fmax(big, fabs(fv[map[i]]));
    }
    CHECK(e <= 1e-12 * big, "prescribed rows vs one-way: %g of %g", e, big);
    /* free: the accelerations solve the equations at themselves (K_G's loads included) */
    kf_ffrf_state st = {{0.8, -0.6, 0.0, 0.6, 0.8, 0.0, 0.0, 0.0, 1.0}, {0.1, 0.0, -0.2},
                        {0.5, 3.0, 1.0}, d, dd};
    double g[3] = {0.0, 0.0, -9.81}, acc[6];
    int N = n + 6;
    double *Mf = calloc((size_t)N * N, sizeof(double)), *ff = calloc((size_t)N, sizeof(double));
    CHECK(kf_ffrf_accelerations(w, &st, g, acc, ddd, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_ffrf_equations(w, &st, g, acc, 0.0, 0.0, Mf, ff, &err) == KF_OK, "%s", err.msg);
    e = big = 0.0;
    for (int i = 0; i < N; i++) {
        double s = -ff[i];
        for (int j = 0; j < N; j++)
            s += Mf[(size_t)i * N + j] * (j < 6 ? acc[j] : ddd[j - 6]);
        e = fmax(e, fabs(s));
        big = fmax(big, fabs(ff[i]));
    }
    CHECK(e <= 1e-11 * big, "free accelerations: residual %g of %g", e, big);
    /* a given body of the same invariants and mass properties: the same accelerations */
    {
        size_t nn = (size_t)n * n;
        double *S = calloc(9 * nn, sizeof(double)), *K = calloc(nn, sizeof(double));
        double *s9 = calloc((size_t)9 * n, sizeof(double)), *Mo = calloc((size_t)3 * n, sizeof(double));
        for (int k = 0; k < 9; k++) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++)
                    S[k * nn + (size_t)i * n + j] = kf_mat_get(kf_body_S(b, k / 3, k % 3), map[i], map[j]);
                s9[(size_t)k * n + i] = kf_body_s(b, k / 3, k % 3)[map[i]];
            }
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++)
                K[(size_t)i * n + j] = kf_mat_get(kf_body_stiffness(b), map[i], map[j]);
            for (int k = 0; k < 3; k++)
                Mo[(size_t)k * n + i] = kf_body_Mo(b, k)[map[i]];
        }
        double mp[13] = {m, xc[0], xc[1], xc[2]}, Ic[9], acc2[6], tr = 0.5 * (J0[0] + J0[4] + J0[8]);
        for (int k = 0; k < 9; k++)
            Ic[k] = (k % 4 == 0 ? tr : 0.0) - J0[k];
        memcpy(mp + 4, Ic, sizeof Ic);
        kf_body *gb = NULL;
        kf_ffrf *wg = NULL;
        CHECK(kf_body_create_given(&gb, 3, n, S, NULL, K, s9, Mo, 0, NULL, &err) == KF_OK, "%s", err.msg);
        kf_ffrf_desc gd = {gb, NULL, mp, {0.2, 1e-5}, 0};
        CHECK(kf_ffrf_create(&wg, &gd, &err) == KF_OK, "%s", err.msg);
        kf_ffrf_desc gn = {gb, NULL, NULL, {0.0, 0.0}, 0};
        kf_ffrf *bad = NULL;
        CHECK(kf_ffrf_create(&bad, &gn, &err) == KF_EINVAL && !strcmp(err.arg, "mass") && !bad,
              "%s", err.msg);
        desc.geometric = 0;
        kf_ffrf *w0 = NULL;
        CHECK(kf_ffrf_create(&w0, &desc, &err) == KF_OK, "%s", err.msg);
        if (wg && w0) {
            double *d2 = calloc((size_t)n, sizeof(double));
            CHECK(kf_ffrf_accelerations(w0, &st, g, acc, ddd, &err) == KF_OK, "%s", err.msg);
            CHECK(kf_ffrf_accelerations(wg, &st, g, acc2, d2, &err) == KF_OK, "%s", err.msg);
            e = big = 0.0;
            for (int k = 0; k < 6; k++)
                e = fmax(e, fabs(acc[k] - acc2[k])), big = fmax(big, fabs(acc[k]));
            CHECK(e <= 1e-9 * big, "given vs elements: %g of %g", e, big);
            free(d2);
        }
        kf_ffrf_free(w0);
        kf_ffrf_free(wg);
        kf_body_free(gb);
        desc.geometric = 1;
        free(S);
        free(K);
        free(s9);
        free(Mo);
    }
    /* a few steps of each integrator: outputs finite, the orientation a unit quaternion */
    {
        double x0[13] = {0, 0, 0, 1, 0, 0, 0, 0.1, 0, 0, 0.5, 3.0, 1.0}, t[3] = {0.0, 1e-3, 2e-3};
        double *rig = calloc(3 * KF_FFRF_RIGID_OUT, sizeof(double));
        double *el = calloc((size_t)9 * n, sizeof(double)), *e0 = calloc((size_t)2 * n, sizeof(double));
        memcpy(e0, d, (size_t)n * sizeof(double));
        kf_ffrf_opts o = {KF_FFRF_GA, 2e-4, 0.9, 1e-8, 25, 1e-8, 1e-12, 0, NULL, NULL};
        kf_stats sts = {0};
        CHECK(kf_ffrf_run(w, g, x0, e0, 3, t, &o, rig, el, &sts, &err) == KF_OK, "%s", err.msg);
        CHECK(sts.steps == 10 && kf_vec_finite(3 * KF_FFRF_RIGID_OUT, rig) &&
                  kf_vec_finite((size_t)9 * n, el), "GA: %ld steps", sts.steps);
        double qn = 0.0;
        for (int k = 3; k < 7; k++)
            qn += rig[2 * KF_FFRF_RIGID_OUT + k] * rig[2 * KF_FFRF_RIGID_OUT + k];
        CHECK(fabs(qn - 1.0) < 1e-14, "|q|^2 - 1 = %g", qn - 1.0);
        o.method = KF_FFRF_DP5;
        o.dt = 0.0;
        CHECK(kf_ffrf_run(w, g, x0, e0, 3, t, &o, rig, el, &sts, &err) == KF_OK, "%s", err.msg);
        CHECK(kf_vec_finite((size_t)9 * n, el), "DP5 outputs");
        kf_motion_spin spin = {{0.0, 0.0, 2.0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.0, 0.0, -9.81}};
        double *drv = calloc(3 * 6, sizeof(double));
        o.method = KF_FFRF_GA;
        o.dt = 2e-4;
        CHECK(kf_ffrf_run_prescribed(w, kf_motion_spin_eval, &spin, e0, 3, t, &o, el, drv, &sts,
                                     &err) == KF_OK && sts.factorizations == 1,
              "%s (%ld factorizations: one for a constant spin)", err.msg, sts.factorizations);
        /* bad arguments, named */
        double tb[2] = {0.0, -1.0};
        CHECK(kf_ffrf_run(w, g, x0, e0, 2, tb, &o, rig, el, &sts, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "t"), "%s", err.msg);
        x0[3] = x0[4] = x0[5] = x0[6] = 0.0;
        CHECK(kf_ffrf_run(w, g, x0, e0, 3, t, &o, rig, el, &sts, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "x0"), "%s", err.msg);
        o.dt = -1.0;
        CHECK(kf_ffrf_run(w, g, x0, e0, 3, t, &o, rig, el, &sts, &err) == KF_EINVAL &&
                  !strcmp(err.arg, "dt"), "%s", err.msg);
        free(drv);
        free(rig);
        free(el);
        free(e0);
    }
    st.R[0] = 2.0; /* not a rotation */
    CHECK(kf_ffrf_accelerations(w, &st, g, acc, ddd, &err) == KF_EINVAL && !strcmp(err.arg, "R"),
          "%s", err.msg);
    free(Mf);
    free(ff);
    free(fv);
    free(dv);
    kf_mat_free(&C);
    kf_mat_free(&Ke);
    kf_mat_free(&Ko);
    kf_mat_free(&KG);
    free(d);
    free(dd);
    free(ddd);
    free(x);
    kf_ffrf_free(w);
    /* a straight bar has no inertia about its axis: free motion refused, prescribed taken */
    {
        kf_body *bar = straight3(KF_BAR3D, 3, 1.0, &sec);
        unsigned char fx[12] = {1, 1, 1};
        kf_ffrf_desc bd = {bar, fx, NULL, {0, 0}, 0};
        kf_ffrf *wb = NULL;
        CHECK(kf_ffrf_create(&wb, &bd, &err) == KF_OK, "%s", err.msg);
        if (wb) {
            double zb[9] = {0}, ab[6];
            kf_ffrf_state sb = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0}, {0}, zb, zb};
            CHECK(kf_ffrf_rigid_margin(wb) < 1e-10, "margin %g", kf_ffrf_rigid_margin(wb));
            CHECK(kf_ffrf_accelerations(wb, &sb, g, ab, zb, &err) == KF_ESING &&
                      !strcmp(err.arg, "reference"), "%s", err.msg);
            CHECK(kf_ffrf_prescribed(wb, &f, zb, zb, zb, NULL, &err) == KF_OK, "%s", err.msg);
        }
        kf_ffrf_free(wb);
        unsigned char all[12];
        memset(all, 1, sizeof all);
        bd.fixed = all;
        CHECK(kf_ffrf_create(&wb, &bd, &err) == KF_EINVAL && !strcmp(err.arg, "fixed") && !wb,
              "%s", err.msg);
        bd.fixed = fx;
        bd.rayleigh[0] = -1.0;
        CHECK(kf_ffrf_create(&wb, &bd, &err) == KF_EINVAL && !strcmp(err.arg, "rayleigh"), "%s",
              err.msg);
        kf_body_free(bar);
    }
    {
        kf_body *pb = straight_body(KF_BEAM2, 2, 1.0, &sec);
        kf_ffrf_desc pd = {pb, NULL, NULL, {0, 0}, 0};
        kf_ffrf *wp = NULL;
        CHECK(kf_ffrf_create(&wp, &pd, &err) == KF_EINVAL && !strcmp(err.arg, "body"), "%s",
              err.msg);
        kf_body_free(pb);
    }
done:
    free(fixed);
    kf_body_free(b);
}

/* A planar beam given back as a body of given invariants (the identity basis) with a K_G
 * basis of coordinate load cases (docs/theory.md section 3.18): its rigid body from the
 * invariants equals the beam's by quadrature; as a link with ports at the beam's nodes its
 * coupled equations equal the beam link's; K_G of a field's stress (kf_body_prestress_matrix)
 * is the straight basis' of its axial force; bad links and bases refused naming them. */
static void test_given_link(void)
{
    const double len = 2.0, om = 3.0;
    kf_section sec = {7e10, 3000.0, 4e-4, 2e-7};
    kf_body *b = straight_body(KF_BEAM2, 4, len, &sec), *g = NULL;
    int n = kf_body_ndof(b), nn = n * n, nkg = 6 + 3;
    kf_error err = {0};
    double *S = calloc(4 * (size_t)nn, sizeof(double)), *K = calloc((size_t)nn, sizeof(double));
    double *s = calloc(4 * (size_t)n, sizeof(double)), *Mo = calloc(2 * (size_t)n, sizeof(double));
    double *KG = calloc((size_t)nkg * nn, sizeof(double));
    for (int k = 0; k < 4; k++) {
        kf_mat_to_rowmajor(kf_body_S(b, k / 2, k % 2), S + (size_t)k * nn);
        memcpy(s + (size_t)k * n, kf_body_s(b, k / 2, k % 2), (size_t)n * sizeof(double));
    }
    for (int i = 0; i < 2; i++)
        memcpy(Mo + (size_t)i * n, kf_body_Mo(b, i), (size_t)n * sizeof(double));
    kf_mat_to_rowmajor(kf_body_stiffness(b), K);
    for (int c = 0; c < nkg; c++) /* any symmetric matrices: K scaled */
        for (int k = 0; k < nn; k++)
            KG[(size_t)c * nn + k] = (c + 1) * 1e-9 * K[k];
    CHECK(kf_body_create_given(&g, 2, n, S, NULL, K, s, Mo, nkg, KG, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_body_nload(g) == 3 && kf_body_nkg(g) == nkg && kf_body_nload(b) == 0, "nload %d",
          kf_body_nload(g));
    kf_frame f = {{0.0, 0.0, om}, {0.0, 0.0, 2.0}, {0, 0, 0}, {1.0, -9.81, 0.0}};
    double c[9];
    CHECK(kf_body_geometric_coefficients(g, &f, 5.0, 6.0, 0, 0, c, &err) == KF_OK && c[0] == 1.0 &&
              c[5] == -om * om && c[6] == 0.0 && c[7] == 0.0 && c[8] == 0.0,
          "coefficients of the load cases %g %g %g", c[6], c[7], c[8]);
    /* the rigid body: m = rho A L, centre L / 2, J = m L^2 / 12, both ways */
    double m1, m2, c1[3], c2[3], J1[9], J2[9], m = 3000.0 * 4e-4 * len;
    CHECK(kf_body_rigid(b, &m1, c1, J1, NULL, &err) == KF_OK && kf_body_rigid(g, &m2, c2, J2, NULL, &err) == KF_OK,
          "%s", err.msg);
    CHECK(fabs(m1 - m) < 1e-14 * m && fabs(m2 - m) < 1e-13 * m && fabs(c1[0] - 1.0) < 1e-14 &&
              fabs(c2[0] - 1.0) < 1e-13 && fabs(c2[1]) < 1e-13 && fabs(J1[8] - m * len * len / 12) <
              1e-13 * m && fabs(J2[8] - J1[8]) < 1e-12 * J1[8] && J2[0] == 0.0,
          "rigid: %g %g, %g %g, %g %g", m1, m2, c1[0], c2[0], J1[8], J2[8]);
    /* K_G of a uniform stretch u = eps x: N = E A eps, the straight basis' c0 matrix */
    double *u = calloc((size_t)n, sizeof(double)), eps = 1e-4;
    for (int i = 0; i < n / 3; i++)
        u[3 * i] = eps * len * i / 4;
    kf_mat P = {0}, Q = {0};
    kf_mat_alloc_like(&P, kf_body_mass(b), NULL);
    kf_mat_alloc_like(&Q, kf_body_mass(b), NULL);
    double N[3] = {7e10 * 4e-4 * eps, 0.0, 0.0};
    CHECK(kf_body_prestress_matrix(b, u, NULL, NULL, &P, &err) == KF_OK &&
              kf_body_geometric(b, N, 0.0, &Q, &err) == KF_OK, "%s", err.msg);
    double dmax = 0.0, big = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            dmax = fmax(dmax, fabs(kf_mat_get(&P, i, j) - kf_mat_get(&Q, i, j)));
            big = fmax(big, fabs(kf_mat_get(&Q, i, j)));
        }
    CHECK(dmax < 1e-12 * big && big > 0.0, "K_G of the stretch: %g of %g", dmax, big);
    CHECK(kf_body_prestress_matrix(g, u, NULL, NULL, &P, &err) == KF_EINVAL, "a given body's field");
    kf_mat_free(&P);
    kf_mat_free(&Q);
    free(u);
    /* a hub turning with the arm welded at node 0: the given link (ports at the nodes) has
     * the beam link's equations */
    double mass[2] = {0.0, m}, inertia[2] = {5.0, J1[8]};
    double q0[6] = {0.0, 0.0, 0.0, len / 2, 0.0, 0.0};
    kf_joint joints[2] = {{KF_REVOLUTE, {-1, 0}, {0.0, 0.0}, {0.0, 0.0}},
                          {KF_WELD, {0, 1}, {0.0, 0.0}, {-len / 2, 0.0}}};
    kf_coord coords[1] = {{KF_COORD_JOINT, 0, "hub"}};
    kf_mech_desc d = {.nbody = 2, .mass = mass, .inertia = inertia, .q0 = q0, .njoint = 2,
                      .joints = joints, .ncoord = 1, .coords = coords};
    kf_mech *mech = NULL;
    CHECK(kf_mech_create(&mech, &d, &err) == KF_OK, "%s", err.msg);
    unsigned char fixed[15] = {1, 1, 1};
    double xy[10];
    int dof[15];
    for (int i = 0; i < 5; i++) {
        xy[2 * i] = len * i / 4;
        xy[2 * i + 1] = 0.0;
        for (int k = 0; k < 3; k++)
            dof[3 * i + k] = 3 * i + k;
    }
    kf_mech_link lb = {1, b, fixed, {0.0, 0.0}, 0}, lg = {1, g, fixed, {0.0, 0.0}, 1, 5, xy, dof};
    kf_flexmech *wb = NULL, *wg = NULL;
    CHECK(kf_flexmech_create(&wb, mech, 1, &lb, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_flexmech_create(&wg, mech, 1, &lg, &err) == KF_OK, "%s", err.msg);
    kf_mech_drive speed[1] = {{KF_DRIVE_SPEED, om}};
    double z0[1] = {0.4}, zd[1] = {om}, dz[12], ddz[12], zdd[1], ddb[12], ddg[12], force[2];
    for (int i = 0; i < 12; i++) {
        dz[i] = 1e-3 * sin(i + 1.0);
        ddz[i] = 1e-2 * cos(i + 1.0);
    }
    lb.geometric = 0;
    if (wb && wg) {
        CHECK(kf_flexmech_dynamics(wb, speed, 0.0, 0.0, z0, z0, zd, dz, ddz, zdd, ddb, force, NULL,
                                   &err) == KF_OK, "%s", err.msg);
        CHECK(kf_flexmech_dynamics(wg, speed, 0.0, 0.0, z0, z0, zd, dz, ddz, zdd, ddg, force + 1, NULL,
                                   &err) == KF_OK, "%s", err.msg);
    }
    double worst = 0.0, size = 0.0;
    for (int i = 0; i < 12; i++) {
        worst = fmax(worst, fabs(ddb[i] - ddg[i]));
        size = fmax(size, fabs(ddb[i]));
    }
    /* the given link adds K_G of its (made-up) basis: compare without it */
    kf_flexmech_free(wg);
    wg = NULL;
    lg.geometric = 0;
    CHECK(kf_flexmech_create(&wg, mech, 1, &lg, &err) == KF_OK, "%s", err.msg);
    if (wg) {
        CHECK(kf_flexmech_dynamics(wg, speed, 0.0, 0.0, z0, z0, zd, dz, ddz, zdd, ddg, force + 1, NULL,
                                   &err) == KF_OK, "%s", err.msg);
        worst = 0.0;
        for (int i = 0; i < 12; i++)
            worst = fmax(worst, fabs(ddb[i] - ddg[i]));
        CHECK(worst <= 1e-11 * size && size > 0.0, "given link d'' off by %g of %g", worst, size);
    }
    kf_flexmech_free(wb);
    kf_flexmech_free(wg);
    /* a given link needs its ports; a port's coordinate out of range; a joint loading a
     * coordinate with no load case */
    kf_mech_link noport = {1, g, fixed, {0.0, 0.0}, 0};
    CHECK(kf_flexmech_create(&wg, mech, 1, &noport, &err) == KF_EINVAL && strstr(err.msg, "ports"),
          "%s", err.msg);
    dof[4] = n;
    CHECK(kf_flexmech_create(&wg, mech, 1, &lg, &err) == KF_EINVAL && strstr(err.msg, "port 1"),
          "%s", err.msg);
    dof[4] = 4;
    for (int k = 0; k < 3; k++) { /* the weld at node 4, whose coordinates have no load case */
        dof[3 * 4 + k] = k;
        dof[k] = 12 + k;
    }
    xy[0] = len;
    xy[8] = 0.0;
    lg.geometric = 1;
    unsigned char tip[15] = {0};
    tip[12] = tip[13] = tip[14] = 1;
    lg.fixed = tip;
    kf_mech_free(mech);
    q0[3] = -len / 2;
    joints[1].p1[0] = len / 2;
    CHECK(kf_mech_create(&mech, &d, &err) == KF_OK, "%s", err.msg);
    CHECK(kf_flexmech_create(&wg, mech, 1, &lg, &err) == KF_EINVAL && !strcmp(err.arg, "geometric"),
          "%s", err.msg);
    kf_mech_free(mech);
    /* more load cases than coordinates */
    kf_body_free(g);
    CHECK(kf_body_create_given(&g, 2, n, S, NULL, K, s, Mo, 0, NULL, &err) == KF_OK, "%s", err.msg);
    kf_body_free(g);
    g = NULL;
    free(KG);
    KG = calloc((size_t)(6 + n + 1) * nn, sizeof(double));
    CHECK(kf_body_create_given(&g, 2, n, S, NULL, K, s, Mo, 6 + n + 1, KG, &err) == KF_EINVAL &&
              !strcmp(err.arg, "KG") && !g,
          "%s", err.msg);
    free(S);
    free(K);
    free(s);
    free(Mo);
    free(KG);
    kf_body_free(b);
}

/* Issue 19's kernels: Dot2 over CSR (a row summing to a tiny value from terms of 1e16,
 * exact in twice the precision; its bound), the band Cholesky (solves A x = b to
 * round-off, refuses an indefinite matrix), and their argument checks. */
static void test_dot2_and_band(void)
{
    kf_error err = {0};
    /* row 0: 1e16 x0 + 1 x1 - 1e16 x2 with x = (1, 1, 1): exactly 1, which the working
     * precision rounds away (1e16 + 1 = 1e16) */
    int ptr[3] = {0, 3, 4}, idx[4] = {0, 1, 2, 1};
    double val[4] = {1e16, 1.0, -1e16, 3.0}, x[6] = {1, 2, 1, 2, 1, 2}, y[4], e[4];
    CHECK(kf_csr_dot2(2, 3, ptr, idx, val, 2, x, NULL, y, e, &err) == KF_OK, "%s", err.msg);
    CHECK(y[0] == 1.0 && y[1] == 2.0 && y[2] == 3.0 && y[3] == 6.0, "dot2 %g %g %g %g", y[0], y[1], y[2],
          y[3]);
    CHECK(e[0] >= 0.0 && e[0] < 1e-10, "dot2 bound %g", e[0]);
    /* x2 = 1 + 1e-16 as a pair: row 0 is then 1 - 1e16 * 1e-16 = 0 */
    double xl[6] = {0, 0, 0, 0, 1e-16, 0};
    CHECK(kf_csr_dot2(2, 3, ptr, idx, val, 2, x, xl, y, e, &err) == KF_OK, "%s", err.msg);
    CHECK(fabs(y[0]) <= e[0] && e[0] < 1e-10 && y[2] == 3.0, "dot2 xlo %g (bound %g) %g", y[0], e[0], y[2]);
    int bad[4] = {0, 1, 7, 1};
    CHECK(kf_csr_dot2(2, 3, ptr, bad, val, 2, x, NULL, y, e, &err) == KF_EINVAL &&
              strstr(err.msg, "indices[2]"), "%s", err.msg);
    int badp[3] = {0, 3, 2};
    CHECK(kf_csr_dot2(2, 3, badp, idx, val, 2, x, NULL, y, e, &err) == KF_EINVAL, "%s", err.msg);

    /* tridiagonal 2, -1 (definite), b = 1: the discrete Poisson solution x_i = (i+1)(n-i)/2 */
    enum { N = 50 };
    double ab[2 * N], rhs[2 * N];
    for (int j = 0; j < N; j++) {
        ab[2 * j] = 2.0;
        ab[2 * j + 1] = j + 1 < N ? -1.0 : 0.0;
        rhs[2 * j] = 1.0;
        rhs[2 * j + 1] = -1.0;
    }
    int piv = 0;
    CHECK(kf_band_cholesky(N, 1, ab, &piv, &err) == KF_OK && piv == -1, "%s", err.msg);
    CHECK(kf_band_cholesky_solve(N, 1, ab, 2, rhs, &err) == KF_OK, "%s", err.msg);
    double worst = 0.0;
    for (int i = 0; i < N; i++) {
        double exact = 0.5 * (i + 1) * (N - i);
        worst = fmax(worst, fabs(rhs[2 * i] - exact) / exact + fabs(rhs[2 * i + 1] + exact) / exact);
    }
    CHECK(worst < 1e-12, "band solve %g", worst);
    double ind[4] = {1.0, 2.0, 1.0, 0.0}; /* [[1, 2], [2, 1]]: eigenvalues 3 and -1 */
    CHECK(kf_band_cholesky(2, 1, ind, &piv, &err) == KF_ENOTPD && piv == 1, "%s", err.msg);
    CHECK(kf_band_cholesky(-1, 1, ind, &piv, &err) == KF_EINVAL, "%s", err.msg);
    CHECK(kf_band_cholesky_solve(2, -1, ind, 1, rhs, &err) == KF_EINVAL, "%s", err.msg);
}

/* kf_path_pieces: a cubic in two pieces (the second re-expanded about its breakpoint) gives
 * z, z', z'' of the cubic to round-off, in either piece and at the ends; outside the span
 * and bad pieces are refused naming the path. */
static void test_path_pieces(void)
{
    kf_error err = {0};
    /* z(t) = 1 - 2 t + 0.5 t^2 + 3 t^3 on [0, 2], pieces [0, 1] and [1, 2] */
    double t[3] = {0.0, 1.0, 2.0};
    double c[8] = {1.0, -2.0, 0.5, 3.0,  /* about 0 */
                   2.5, 8.0, 9.5, 3.0};  /* about 1: z(1), z'(1), z''(1) / 2, 3 */
    kf_path_pieces p = {2, 3, t, c};
    CHECK(kf_path_pieces_check(&p, &err) == KF_OK, "%s", err.msg);
    double worst = 0.0;
    for (int i = 0; i <= 20; i++) {
        double s = 0.1 * i, zk[3];
        CHECK(kf_path_pieces_eval(s, 0, zk, &p, &err) == KF_OK, "%s", err.msg);
        double z = 1.0 - 2.0 * s + 0.5 * s * s + 3.0 * s * s * s, zd = -2.0 + s + 9.0 * s * s, zdd = 1.0 + 18.0 * s;
        worst = fmax(worst, fabs(zk[0] - z) + fabs(zk[1] - zd) + fabs(zk[2] - zdd));
    }
    CHECK(worst < 1e-13, "path pieces %g", worst);
    double zk[3];
    CHECK(kf_path_pieces_eval(2.5, 0, zk, &p, &err) == KF_EINVAL && strstr(err.msg, "outside the path's span"),
          "%s", err.msg);
    double tb[3] = {0.0, 1.0, 1.0};
    kf_path_pieces bad = {2, 3, tb, c};
    CHECK(kf_path_pieces_check(&bad, &err) == KF_EINVAL && strstr(err.msg, "strictly increasing"), "%s", err.msg);
    bad = (kf_path_pieces){2, 9, t, c};
    CHECK(kf_path_pieces_check(&bad, &err) == KF_EINVAL && strstr(err.msg, "degree 9"), "%s", err.msg);
}

int main(void)
{
    test_gauss();
    test_no_lapack_yet();
    kf_error err = {0};
    if (kf_lapack_use_linked(&err) != KF_OK) {
        fprintf(stderr, "no linked LAPACK: %s\n", err.msg);
        return 1;
    }
    CHECK(!strcmp(kf_lapack_source(), "linked"), "source");
    test_matrices();
    test_small_solvers();
    test_body();
    test_eigen();
    test_geometric();
    test_windpump();
    test_mechanism();
    test_spatial_mechanism();
    test_flexmech();
    test_stepper();
    test_gyroscopic();
    test_spline();
    test_integrators();
    test_divergence();
    test_body_ode();
    test_project();
    test_direct_inertia_forces();
    test_null_basis();
    test_eig_projected();
    test_ode();
    test_hardening();
    test_syevr_fallback();
    test_continuum();
    test_csr();
    test_spatial();
    test_stresses();
    test_given_body();
    test_floating();
    test_floating_tangent();
    test_given_link();
    test_dot2_and_band();
    test_path_pieces();
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
