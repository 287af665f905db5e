/* test_gpu_fake.c - the tests' CUDA driver (tests/fake_cuda/) refuses
 * what the real driver refuses and defers what the real one defers, so
 * that the cuda backend's tests can fail the way a GPU would make them
 * fail. Each test drives the fake through the backend's own table of
 * entry points (cuda_open) and expects the behaviour and error numbers
 * the CUDA 13 documentation gives (cuda.h's CUresult values):
 * deferred streams, event waits, the legacy stream, late pageable
 * copies, captured events (907), events of another context (400, 201),
 * not-ready events (600), memory (2, 1, poison), peers (704, 711),
 * sticky faults until a context reset (700), races in a launch (719),
 * launch limits, versioned entry points, the module loader (222, 209),
 * and a seed that changes which ready stream runs first; and the tests'
 * NCCL (fake_nccl.c) refuses what would wait for ever on NCCL driven
 * from one thread (5). Skipped in a build without the backend (CUDA=0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLLVIZ_WITH_CUDA
#include "gpu/cuda_api.h"
#include "gpu/kern.h"

/* cuda.h's numbers */
enum {
    E_INVALID_VALUE = 1, E_OUT_OF_MEMORY = 2, E_NO_BINARY_FOR_GPU = 209,
    E_INVALID_CONTEXT = 201, E_PEER_UNSUPPORTED = 217, E_UNSUPPORTED_PTX = 222,
    E_INVALID_HANDLE = 400, E_NOT_FOUND = 500, E_NOT_READY = 600, E_UNKNOWN = 999,
    E_ILLEGAL_ADDRESS = 700, E_PEER_ALREADY = 704, E_TOO_MANY_PEERS = 711,
    E_LAUNCH_FAILED = 719,
    E_CAPTURE_UNSUPPORTED = 900, E_CAPTURE_INVALIDATED = 901,
    E_CAPTURE_UNMATCHED = 903, E_CAPTURE_UNJOINED = 904, E_CAPTURED_EVENT = 907,
};

static CudaApi A;
static CUcontext ctx[4];
static int ndevs;
static void *fake;

static const char ptx[] = ".version 8.0\n.target sm_70\n"
                          ".visible .entry collviz_step()\n{ ret; }\n";

static void unset_all(void)
{
    static const char *const vars[] = {
        "FAKE_CUDA", "FAKE_CUDA_PEER", "FAKE_CUDA_MAX_PEERS", "FAKE_CUDA_MEM",
        "FAKE_CUDA_FAULT", "FAKE_CUDA_CC", "FAKE_CUDA_OLD", "FAKE_CUDA_SMS",
        "FAKE_CUDA_BROKEN",
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("FAKE_CUDA_STRICT", "1", 1);
}

/* The fake driver opened with n devices, seed `seed`, device 0 current. */
static void start(int n, int seed)
{
    char v[16], why[300];
    snprintf(v, sizeof v, "%d", n);
    setenv("FAKE_CUDA_DEVICES", v, 1);
    snprintf(v, sizeof v, "%d", seed);
    setenv("FAKE_CUDA_SEED", v, 1);
    if (cuda_open(&A, why, sizeof why) != CUDA_OK)
        fail_msg("%s", why);
    ndevs = n;
    for (int d = 0; d < n; d++)
        assert_int_equal(A.cuDevicePrimaryCtxRetain(&ctx[d], d), 0);
    assert_int_equal(A.cuCtxSetCurrent(ctx[0]), 0);
}

/* Everything freed by resetting the contexts, nothing left over. */
static void stop(void)
{
    for (int d = 0; d < ndevs; d++)
        assert_int_equal(A.cuDevicePrimaryCtxReset(d), 0);
    A.cuCtxSetCurrent(NULL);
    cuda_close(&A);
    long (*live)(void);
    void *f = dlsym(fake, "fake_cuda_live");
    memcpy(&live, &f, sizeof f);
    assert_int_equal(live(), 0);
    unset_all();
}

static int setup(void **state)
{
    (void)state;
    setenv("COLLVIZ_LIBCUDA", FAKE_CUDA_LIB, 1);
    unset_all();
    fake = dlopen(FAKE_CUDA_LIB, RTLD_NOW); /* keeps its state between opens */
    return fake ? 0 : -1;
}

static CUstream stream(void)
{
    CUstream s;
    assert_int_equal(A.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), 0);
    return s;
}

static int *dev_ints(size_t n)
{
    CUdeviceptr p;
    assert_int_equal(A.cuMemAlloc(&p, n * sizeof(int)), 0);
    return (int *)(uintptr_t)p; /* the fake's device memory is the host's */
}

static CUdeviceptr dp(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

/* ------------------------------------------------- deferred streams */

/* Work on a stream runs at its synchronisation, not at submit; a
 * synchronous copy syncs the legacy stream only, never a non-blocking
 * one (the driver's API synchronisation rules). */
static void test_deferred(void **state)
{
    (void)state;
    start(1, 0);
    CUstream s = stream();
    int *d = dev_ints(4), src[4] = {1, 2, 3, 4}, back[4] = {0};
    assert_int_equal(A.cuMemcpyHtoDAsync(dp(d), src, sizeof src, s), 0);
    assert_int_equal((unsigned)d[0], 0xA5A5A5A5u); /* queued, not run */
    /* the legacy stream's copy does not wait for s: it sees fresh memory,
     * poisoned (0xA5 bytes), not the values queued on s */
    assert_int_equal(A.cuMemcpyDtoH(back, dp(d), sizeof back), 0);
    assert_int_equal((unsigned)back[0], 0xA5A5A5A5u);
    assert_int_equal(A.cuStreamSynchronize(s), 0);
    assert_int_equal(A.cuMemcpyDtoH(back, dp(d), sizeof back), 0);
    assert_memory_equal(back, src, sizeof src);
    stop();
}

/* A stream that waits for an event runs after the work before the
 * record on the other stream, whatever the seed. */
static void test_event_wait(void **state)
{
    (void)state;
    for (int seed = 0; seed < 8; seed++) {
        start(2, seed);
        CUstream a = stream();
        A.cuCtxSetCurrent(ctx[1]);
        CUstream b = stream();
        CUevent ev;
        A.cuCtxSetCurrent(ctx[0]);
        assert_int_equal(A.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING), 0);
        int *d = dev_ints(4), src[4] = {5, 6, 7, 8}, back[4] = {0};
        assert_int_equal(A.cuMemcpyHtoDAsync(dp(d), src, sizeof src, a), 0);
        assert_int_equal(A.cuEventRecord(ev, a), 0);
        assert_int_equal(A.cuStreamWaitEvent(b, ev, 0), 0);
        assert_int_equal(A.cuMemcpyDtoHAsync(back, dp(d), sizeof back, b), 0);
        assert_int_equal(A.cuStreamSynchronize(b), 0);
        assert_memory_equal(back, src, sizeof src);
        stop();
    }
}

/* The seed changes which of two ready streams runs first: two streams
 * writing one place end with either value, both seen over 16 seeds. */
static void test_seeded_order(void **state)
{
    (void)state;
    int seen[2] = {0, 0};
    for (int seed = 1; seed <= 16; seed++) {
        start(1, seed);
        CUstream s[2] = {stream(), stream()};
        int *d = dev_ints(1), v[2] = {1, 2};
        for (int i = 0; i < 2; i++)
            assert_int_equal(A.cuMemcpyHtoDAsync(dp(d), &v[i], sizeof(int), s[i]), 0);
        assert_int_equal(A.cuStreamSynchronize(s[0]), 0);
        assert_int_equal(A.cuStreamSynchronize(s[1]), 0);
        assert_true(*d == 1 || *d == 2);
        seen[*d - 1] = 1;
        stop();
    }
    assert_true(seen[0] && seen[1]);
}

/* A synchronous copy from pageable memory to the device returns once the
 * source is staged; the data lands at the legacy stream's next sync, so a
 * non-blocking stream's sync does not see it, another synchronous copy
 * does. From pinned memory it lands at once. */
static void test_pageable_htod(void **state)
{
    (void)state;
    start(1, 0);
    CUstream s = stream();
    int *d = dev_ints(4), src[4] = {9, 9, 9, 9}, back[4];
    assert_int_equal(A.cuMemcpyHtoD(dp(d), src, sizeof src), 0);
    src[0] = 0; /* staged: a later change of the source does not count */
    assert_int_equal(A.cuStreamSynchronize(s), 0);
    assert_int_equal((unsigned)d[0], 0xA5A5A5A5u); /* not landed yet */
    assert_int_equal(A.cuMemcpyDtoH(back, dp(d), sizeof back), 0);
    assert_int_equal(back[0], 9); /* the legacy stream's sync landed it */
    int *pinned;
    assert_int_equal(A.cuMemAllocHost((void **)&pinned, sizeof src), 0);
    pinned[0] = 4;
    assert_int_equal(A.cuMemcpyHtoD(dp(d), pinned, sizeof(int)), 0);
    assert_int_equal(d[0], 4);
    stop();
}

/* ----------------------------------------------------------- events */

/* A record inside a capture without CU_EVENT_RECORD_EXTERNAL adds no node
 * and leaves the event captured: timing it is 907
 * (CUDA_ERROR_CAPTURED_EVENT), as is waiting for it; with the flag the
 * record is a node and the graph's events time. A synchronous copy while
 * the thread captures is 900 and invalidates the capture (901). */
static void test_capture_events(void **state)
{
    (void)state;
    start(1, 1);
    CUstream s = stream();
    CUevent a, b;
    CUgraph g;
    CUgraphExec ge;
    float ms;
    assert_int_equal(A.cuEventCreate(&a, 0), 0);
    assert_int_equal(A.cuEventCreate(&b, 0), 0);
    assert_int_equal(A.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), 0);
    assert_int_equal(A.cuEventRecord(a, s), 0);
    assert_int_equal(A.cuEventRecord(b, s), 0);
    assert_int_equal(A.cuStreamEndCapture(s, &g), 0);
    assert_int_equal(A.cuGraphInstantiateWithFlags(&ge, g, 0), 0);
    assert_int_equal(A.cuGraphLaunch(ge, s), 0);
    assert_int_equal(A.cuStreamSynchronize(s), 0);
    assert_int_equal(A.cuEventElapsedTime(&ms, a, b), E_CAPTURED_EVENT);
    assert_int_equal(A.cuEventSynchronize(b), E_CAPTURED_EVENT);
    A.cuGraphExecDestroy(ge);
    A.cuGraphDestroy(g);
    assert_int_equal(A.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), 0);
    assert_int_equal(A.cuEventRecordWithFlags(a, s, CU_EVENT_RECORD_EXTERNAL), 0);
    assert_int_equal(A.cuEventRecordWithFlags(b, s, CU_EVENT_RECORD_EXTERNAL), 0);
    assert_int_equal(A.cuStreamEndCapture(s, &g), 0);
    assert_int_equal(A.cuGraphInstantiateWithFlags(&ge, g, 0), 0);
    assert_int_equal(A.cuGraphLaunch(ge, s), 0);
    assert_int_equal(A.cuStreamSynchronize(s), 0);
    assert_int_equal(A.cuEventElapsedTime(&ms, a, b), 0);
    assert_true(ms >= 0);
    /* no synchronous work while this thread captures: 900, and the
     * capture is invalidated (901 at its end, no graph) */
    int h = 0, *d = dev_ints(1);
    assert_int_equal(A.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), 0);
    assert_int_equal(A.cuMemcpyDtoH(&h, dp(d), sizeof h), E_CAPTURE_UNSUPPORTED);
    assert_int_equal(A.cuStreamEndCapture(s, &g), E_CAPTURE_INVALIDATED);
    assert_null(g);
    stop();
}

/* An event belongs to the context current at its creation: recorded on a
 * stream of another context it is 400 (CUDA_ERROR_INVALID_HANDLE);
 * created with no context current, 201 (CUDA_ERROR_INVALID_CONTEXT).
 * Timing an event not yet reached is 600 (CUDA_ERROR_NOT_READY); one
 * created with CU_EVENT_DISABLE_TIMING cannot be timed (400). */
static void test_event_contexts(void **state)
{
    (void)state;
    start(2, 0);
    CUstream s0 = stream();
    CUevent e1, e0, e2, nt;
    float ms;
    A.cuCtxSetCurrent(ctx[1]);
    assert_int_equal(A.cuEventCreate(&e1, 0), 0);
    assert_int_equal(A.cuEventRecord(e1, s0), E_INVALID_HANDLE);
    A.cuCtxSetCurrent(NULL);
    CUevent none;
    assert_int_equal(A.cuEventCreate(&none, 0), E_INVALID_CONTEXT);
    A.cuCtxSetCurrent(ctx[0]);
    assert_int_equal(A.cuEventCreate(&e0, 0), 0);
    assert_int_equal(A.cuEventCreate(&e2, 0), 0);
    assert_int_equal(A.cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING), 0);
    int *d = dev_ints(1024), src[1024] = {0};
    assert_int_equal(A.cuEventRecord(nt, s0), 0);
    assert_int_equal(A.cuEventRecord(e2, s0), 0);
    assert_int_equal(A.cuMemcpyHtoDAsync(dp(d), src, sizeof src, s0), 0);
    assert_int_equal(A.cuEventRecord(e0, s0), 0);
    assert_int_equal(A.cuEventElapsedTime(&ms, e2, e0), E_NOT_READY);
    assert_int_equal(A.cuEventSynchronize(e0), 0);
    assert_int_equal(A.cuEventElapsedTime(&ms, e2, e0), 0);
    assert_int_equal(A.cuEventElapsedTime(&ms, nt, e0), E_INVALID_HANDLE);
    assert_int_equal(A.cuEventQuery(e0), 0);
    stop();
}

/* ----------------------------------------------------------- memory */

/* A device holds FAKE_CUDA_MEM bytes: what does not fit is 2
 * (CUDA_ERROR_OUT_OF_MEMORY), free memory counts what is allocated, zero
 * bytes is 1, fresh memory is not zeros. */
static void test_memory(void **state)
{
    (void)state;
    setenv("FAKE_CUDA_MEM", "1048576", 1);
    start(1, 0);
    size_t fr, tot;
    CUdeviceptr a, b;
    assert_int_equal(A.cuMemGetInfo(&fr, &tot), 0);
    assert_int_equal(tot, 1048576);
    assert_int_equal(fr, 1048576);
    assert_int_equal(A.cuMemAlloc(&a, 1048576 - 4096), 0);
    assert_int_equal(A.cuMemGetInfo(&fr, &tot), 0);
    assert_int_equal(fr, 4096);
    assert_int_equal(A.cuMemAlloc(&b, 8192), E_OUT_OF_MEMORY);
    assert_int_equal(A.cuMemAlloc(&b, 0), E_INVALID_VALUE);
    assert_int_equal(((unsigned char *)(uintptr_t)a)[100], 0xA5);
    assert_int_equal(A.cuMemFree(a), 0);
    assert_int_equal(A.cuMemGetInfo(&fr, &tot), 0);
    assert_int_equal(fr, 1048576);
    A.cuCtxSetCurrent(NULL);
    assert_int_equal(A.cuMemGetInfo(&fr, &tot), E_INVALID_CONTEXT);
    A.cuCtxSetCurrent(ctx[0]);
    stop();
}

/* ------------------------------------------------------------ peers */

/* A peer matrix: 0 and 1 may peer, 2 with nobody; enabling twice is 704;
 * past FAKE_CUDA_MAX_PEERS a device gets 711 (CUDA_ERROR_TOO_MANY_PEERS).
 * One way only ("2>0": device 2 may reach device 0's memory): the other
 * direction is 217 (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED). */
static void test_peers(void **state)
{
    (void)state;
    setenv("FAKE_CUDA_PEER", "0-1", 1);
    start(3, 0);
    int can;
    assert_int_equal(A.cuDeviceCanAccessPeer(&can, 0, 1), 0);
    assert_int_equal(can, 1);
    assert_int_equal(A.cuDeviceCanAccessPeer(&can, 1, 0), 0);
    assert_int_equal(can, 1);
    assert_int_equal(A.cuDeviceCanAccessPeer(&can, 0, 2), 0);
    assert_int_equal(can, 0);
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[1], 0), 0);
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[1], 0), E_PEER_ALREADY);
    stop();
    setenv("FAKE_CUDA_MAX_PEERS", "1", 1);
    start(3, 0);
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[1], 0), 0);
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[2], 0), E_TOO_MANY_PEERS);
    stop();
    unsetenv("FAKE_CUDA_MAX_PEERS");
    setenv("FAKE_CUDA_PEER", "0-1,2>0", 1);
    start(3, 0);
    assert_int_equal(A.cuDeviceCanAccessPeer(&can, 2, 0), 0);
    assert_int_equal(can, 1);
    assert_int_equal(A.cuDeviceCanAccessPeer(&can, 0, 2), 0);
    assert_int_equal(can, 0);
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[2], 0), E_PEER_UNSUPPORTED);
    assert_int_equal(A.cuCtxSetCurrent(ctx[2]), 0);
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[0], 0), 0);
    stop();
}

/* ---------------------------------------------------------- kernels */

typedef struct {
    CUmodule mod;
    CUfunction fn;
    KChunk *plan;
} Kern;

static void kern_load(Kern *k, size_t nchunks)
{
    assert_int_equal(A.cuModuleLoadData(&k->mod, ptx), 0);
    assert_int_equal(A.cuModuleGetFunction(&k->fn, k->mod, KERN_NAME), 0);
    CUdeviceptr p;
    assert_int_equal(A.cuMemAlloc(&p, nchunks * sizeof(KChunk)), 0);
    k->plan = (KChunk *)(uintptr_t)p;
}

/* The kernel loaded with room for nchunks chunks, two buffers of 16
 * ints, and chunk 0 copying b's first 32 bytes to a. */
static void copy_kernel(Kern *k, size_t nchunks, int **a, int **b)
{
    kern_load(k, nchunks);
    *a = dev_ints(16), *b = dev_ints(16);
    k->plan[0] = (KChunk){.dst = dp(*a), .b = dp(*b), .n = 32, .kind = KOP_COPY};
}

static CUresult kern_launch(Kern *k, unsigned nchunks, unsigned block, CUstream s)
{
    CUdeviceptr plan = dp(k->plan);
    unsigned dt = KT_INT32, op = KR_SUM, p = 1;
    void *args[] = {&plan, &nchunks, &dt, &op, &p};
    return A.cuLaunchKernel(k->fn, 1, 1, 1, block, 1, 1, 0, s, args, NULL);
}

/* A fault in a kernel is reported at the next synchronisation, not by the
 * launch, and stays: every later call in the context returns it until
 * cuDevicePrimaryCtxReset (700, CUDA_ERROR_ILLEGAL_ADDRESS). */
static void test_sticky_fault(void **state)
{
    (void)state;
    setenv("FAKE_CUDA_FAULT", "1", 1);
    start(1, 0);
    CUstream s = stream();
    Kern k;
    int *a, *b;
    copy_kernel(&k, 1, &a, &b);
    assert_int_equal(kern_launch(&k, 1, 32, s), 0);
    assert_int_equal(A.cuStreamSynchronize(s), E_ILLEGAL_ADDRESS);
    CUdeviceptr p;
    assert_int_equal(A.cuMemAlloc(&p, 16), E_ILLEGAL_ADDRESS);
    assert_int_equal(kern_launch(&k, 1, 32, s), E_ILLEGAL_ADDRESS);
    assert_int_equal(A.cuDevicePrimaryCtxReset(0), 0);
    assert_int_equal(A.cuMemAlloc(&p, 16), 0);
    stop();
}

/* Peer access reported and enabled, but broken (FAKE_CUDA_BROKEN "1>0":
 * device 1's copies over it never complete, as on platforms whose PCIe
 * redirects peer traffic): a launch on device 1 that reads device 0's
 * memory stays not ready (600) however long it is queried, and a
 * synchronisation that needs it is 999 and a message instead of a hang;
 * the same copy within device 1, or device 0 reaching device 1's memory,
 * completes; a context reset drops the launch. */
static void test_broken_peer(void **state)
{
    (void)state;
    setenv("FAKE_CUDA_BROKEN", "1>0", 1);
    start(2, 1);
    int *far = dev_ints(16); /* device 0's */
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[1], 0), 0);
    assert_int_equal(A.cuCtxSetCurrent(ctx[1]), 0);
    assert_int_equal(A.cuCtxEnablePeerAccess(ctx[0], 0), 0);
    CUstream s = stream();
    CUevent ev;
    assert_int_equal(A.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING), 0);
    Kern k;
    int *a, *b;
    copy_kernel(&k, 1, &a, &b);
    assert_int_equal(kern_launch(&k, 1, 32, s), 0);
    assert_int_equal(A.cuStreamSynchronize(s), 0); /* within device 1 */
    k.plan[0].b = dp(far);
    assert_int_equal(kern_launch(&k, 1, 32, s), 0);
    assert_int_equal(A.cuEventRecord(ev, s), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(A.cuEventQuery(ev), E_NOT_READY);
    assert_int_equal(A.cuStreamQuery(s), E_NOT_READY);
    assert_int_equal(A.cuStreamSynchronize(s), E_UNKNOWN);
    assert_int_equal(A.cuCtxSetCurrent(ctx[0]), 0); /* 0 reaching 1: fine */
    CUstream s0 = stream();
    Kern k0;
    int *near1 = a, *a0, *b0; /* device 1's, and device 0's own */
    copy_kernel(&k0, 1, &a0, &b0);
    k0.plan[0].dst = dp(near1);
    assert_int_equal(kern_launch(&k0, 1, 32, s0), 0);
    assert_int_equal(A.cuStreamSynchronize(s0), 0);
    stop();
}

/* A capture across devices (cross-stream capture): device 1's stream
 * joins the capture begun on device 0's by waiting for an event recorded
 * there, and its launch becomes a node of the graph that runs on device
 * 1. The capture ends only on the stream that began it (903 on the
 * joined one) and only where that stream has waited for the joined
 * stream's last work (904 and no graph otherwise). Once it has ended, a
 * wait for an event recorded inside it is 907. */
static void test_cross_device_capture(void **state)
{
    (void)state;
    start(2, 1);
    Kern k[2];
    int *a[2], *b[2];
    CUstream s[2];
    CUevent ev[2];
    for (int d = 0; d < 2; d++) {
        assert_int_equal(A.cuCtxSetCurrent(ctx[d]), 0);
        s[d] = stream();
        copy_kernel(&k[d], 1, &a[d], &b[d]);
        assert_int_equal(A.cuEventCreate(&ev[d], CU_EVENT_DISABLE_TIMING), 0);
        for (int i = 0; i < 16; i++)
            a[d][i] = 0, b[d][i] = 100 * d + i;
    }
    CUgraph g;
    for (int join = 0; join < 2; join++) {
        assert_int_equal(A.cuCtxSetCurrent(ctx[0]), 0);
        assert_int_equal(A.cuStreamBeginCapture(s[0], CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), 0);
        assert_int_equal(A.cuEventRecord(ev[0], s[0]), 0);
        assert_int_equal(kern_launch(&k[0], 1, 32, s[0]), 0);
        assert_int_equal(A.cuCtxSetCurrent(ctx[1]), 0);
        assert_int_equal(A.cuStreamWaitEvent(s[1], ev[0], 0), 0); /* the fork */
        assert_int_equal(kern_launch(&k[1], 1, 32, s[1]), 0);
        if (join) {
            assert_int_equal(A.cuEventRecord(ev[1], s[1]), 0);
            assert_int_equal(A.cuStreamWaitEvent(s[0], ev[1], 0), 0);
        } else {
            assert_int_equal(A.cuStreamEndCapture(s[1], &g), E_CAPTURE_UNMATCHED);
        }
        assert_int_equal(A.cuCtxSetCurrent(ctx[0]), 0);
        assert_int_equal(A.cuStreamEndCapture(s[0], &g), join ? 0 : E_CAPTURE_UNJOINED);
        if (!join)
            assert_null(g);
    }
    assert_int_equal(A.cuCtxSetCurrent(ctx[1]), 0);
    assert_int_equal(A.cuStreamWaitEvent(s[1], ev[0], 0), E_CAPTURED_EVENT);
    assert_int_equal(A.cuCtxSetCurrent(ctx[0]), 0);
    CUgraphExec ge;
    assert_int_equal(A.cuGraphInstantiateWithFlags(&ge, g, 0), 0);
    assert_int_equal(A.cuGraphLaunch(ge, s[0]), 0);
    assert_int_equal(a[0][3] + a[1][3], 0); /* nothing ran at the launch */
    assert_int_equal(A.cuStreamSynchronize(s[0]), 0);
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 16; i++)
            assert_int_equal(a[d][i], i < 8 ? 100 * d + i : 0);
    A.cuGraphExecDestroy(ge);
    A.cuGraphDestroy(g);
    stop();
}

/* Chunks of one launch run at once: two that write one range are a race,
 * 719 (CUDA_ERROR_LAUNCH_FAILED) at the sync; disjoint ones run. */
static void test_race(void **state)
{
    (void)state;
    start(1, 0);
    CUstream s = stream();
    Kern k;
    int *a, *b;
    copy_kernel(&k, 2, &a, &b);
    k.plan[1] = (KChunk){.dst = dp(a + 8), .b = dp(b + 8), .n = 32, .kind = KOP_COPY};
    assert_int_equal(kern_launch(&k, 2, 32, s), 0);
    assert_int_equal(A.cuStreamSynchronize(s), 0);
    k.plan[1].dst = dp(a + 4); /* overlaps chunk 0's write */
    assert_int_equal(kern_launch(&k, 2, 32, s), 0);
    assert_int_equal(A.cuStreamSynchronize(s), E_LAUNCH_FAILED);
    stop();
    start(1, 0); /* a chunk reading what another writes */
    s = stream();
    copy_kernel(&k, 2, &a, &b);
    k.plan[1] = (KChunk){.dst = dp(b + 8), .b = dp(a + 6), .n = 16, .kind = KOP_COPY};
    assert_int_equal(kern_launch(&k, 2, 32, s), 0);
    assert_int_equal(A.cuStreamSynchronize(s), E_LAUNCH_FAILED);
    stop();
}

/* At most 1024 threads a block (1: CUDA_ERROR_INVALID_VALUE); a function
 * of another context on this stream: 400; the occupancy of an H100. */
static void test_launch_limits(void **state)
{
    (void)state;
    start(2, 0);
    CUstream s = stream();
    Kern k;
    int *a, *b;
    copy_kernel(&k, 1, &a, &b);
    assert_int_equal(kern_launch(&k, 1, 1025, s), E_INVALID_VALUE);
    /* an H100 holds 2048 threads a multiprocessor: 8 blocks of 256 */
    int blocks;
    assert_int_equal(A.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.fn, 256, 0), 0);
    assert_int_equal(blocks, 8);
    assert_int_equal(A.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.fn, 1025, 0),
                     E_INVALID_VALUE);
    assert_int_equal(kern_launch(&k, 1, 1024, s), 0);
    A.cuCtxSetCurrent(ctx[1]);
    CUstream s1 = stream();
    assert_int_equal(kern_launch(&k, 1, 32, s1), E_INVALID_HANDLE);
    assert_int_equal(A.cuStreamSynchronize(s), 0);
    stop();
}

/* ------------------------------------------- entry points, modules */

typedef CUresult (*GetProc)(const char *, void **, int, unsigned long long, int *);

/* cuGetProcAddress gives the prototype of the version asked for: before
 * 3.2 cuMemAlloc took 32-bit sizes (cudaTypedefs.h's PFN_cuMemAlloc_v2000),
 * which the fake does not implement, so that function fails loudly
 * rather than mis-reading its arguments; an entry point newer than the
 * version asked for is not found (500). */
static void test_proc_versions(void **state)
{
    (void)state;
    start(1, 0);
    GetProc gp;
    void *f = dlsym(fake, "cuGetProcAddress_v2");
    memcpy(&gp, &f, sizeof f);
    void *fn = NULL, *fn2 = NULL;
    assert_int_equal(gp("cuMemAlloc", &fn, 12000, 1, NULL), 0);
    assert_int_equal(gp("cuMemAlloc", &fn2, 3000, 1, NULL), 0);
    assert_ptr_not_equal(fn, fn2);
    CUresult (*old)(CUdeviceptr *, unsigned);
    memcpy(&old, &fn2, sizeof fn2);
    CUdeviceptr p = 0;
    assert_int_not_equal(old(&p, 16), 0);
    assert_int_equal(gp("cuEventRecordWithFlags", &fn, 11000, 1, NULL), E_NOT_FOUND);
    assert_int_equal(gp("cuEventRecordWithFlags", &fn, 11010, 1, NULL), 0);
    /* the backend resolves with the legacy stream's flag */
    unsigned long long (*flags)(void);
    f = dlsym(fake, "fake_cuda_proc_flags");
    memcpy(&flags, &f, sizeof f);
    cuda_close(&A);
    char why[300];
    assert_int_equal(cuda_open(&A, why, sizeof why), CUDA_OK);
    assert_int_equal(flags(), CU_GET_PROC_ADDRESS_LEGACY_STREAM);
    stop();
}

/* PTX of an ISA newer than the driver reads is 222
 * (CUDA_ERROR_UNSUPPORTED_PTX_VERSION); for a target above the device's
 * compute capability, 209 (CUDA_ERROR_NO_BINARY_FOR_GPU). */
static void test_module_checks(void **state)
{
    (void)state;
    setenv("FAKE_CUDA_CC", "80", 1);
    start(1, 0);
    CUmodule m;
    assert_int_equal(A.cuModuleLoadData(&m, ".version 9.1\n.target sm_70\n"
                                            "// collviz_step\n"), E_UNSUPPORTED_PTX);
    assert_int_equal(A.cuModuleLoadData(&m, ".version 9.0\n.target sm_90\n"
                                            "// collviz_step\n"), E_NO_BINARY_FOR_GPU);
    assert_int_equal(A.cuModuleLoadData(&m, ".version 9.0\n.target sm_80\n"
                                            "// collviz_step\n"), 0);
    stop();
}

/* The backend keeps the driver's library loaded after closing it
 * (review finding 18: unloading and loading it again re-initialises the
 * driver, and NCCL's teardown runs at every close): with the tests' own
 * reference dropped, the library is still there after cuda_close. */
static void test_stays_loaded(void **state)
{
    (void)state;
    char why[300];
    dlclose(fake);
    fake = NULL;
    assert_int_equal(cuda_open(&A, why, sizeof why), CUDA_OK);
    cuda_close(&A);
    fake = dlopen(FAKE_CUDA_LIB, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(fake);
}

/* ------------------------------------------------------ the tests' NCCL */

/* NCCL's numbers (nccl.h's ncclResult_t). */
enum { N_OK = 0, N_INVALID_ARGUMENT = 4, N_INVALID_USAGE = 5 };

typedef int (*CommFn)(void *c);
typedef int (*GroupFn)(void);
typedef int (*InitAllFn)(void **c, int n, const int *devs);
typedef int (*AllReduceFn)(const void *s, void *r, size_t n, int t, int op,
                           void *c, void *st);
typedef int (*SendFn)(const void *s, size_t n, int t, int peer, void *c, void *st);
typedef long (*CountFn)(void);

/* The tests' NCCL's entry point or counter `name`. */
static void *nccl_sym(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f)
        fail_msg("the tests' NCCL has no %s", name);
    return f;
}

/* A local `name` of type T: the tests' NCCL's entry point of that name. */
#define NCCL_FN(T, name)                                                      \
    T name;                                                                   \
    {                                                                         \
        void *f_ = nccl_sym(lib, #name);                                      \
        memcpy(&name, &f_, sizeof f_);                                        \
    }

/* One group of an allreduce on ranks [0, on) of c (2 ranks), then of
 * ncclCommFinalize on ranks [0, fin): what its ncclGroupEnd returns. */
static int nccl_group(void *lib, void **c, int on, int fin)
{
    NCCL_FN(GroupFn, ncclGroupStart)
    NCCL_FN(GroupFn, ncclGroupEnd)
    NCCL_FN(AllReduceFn, ncclAllReduce)
    NCCL_FN(CommFn, ncclCommFinalize)
    assert_int_equal(ncclGroupStart(), N_OK);
    for (int r = 0; r < on; r++)
        assert_int_equal(ncclAllReduce(NULL, NULL, 1, 7, 0, c[r], NULL), N_OK);
    for (int r = 0; r < fin; r++)
        assert_int_equal(ncclCommFinalize(c[r]), N_OK);
    return ncclGroupEnd();
}

/* One thread drives both ranks of a communicator set, so NCCL's calls
 * meet only inside one group (NCCL's "Group Calls": "every NCCL call may
 * have to block, waiting for other threads/ranks to arrive"): outside a
 * group a collective, a send or a finalize of a set of two ranks is 5
 * (ncclInvalidUsage) where NCCL would wait for ever, and so is a group
 * that leaves a rank out (a collective, a send without its receive, a
 * finalize); each is counted in fake_nccl_stuck. A set of one rank needs
 * no group. Two ranks on one device are 5; a destroyed communicator 4. */
static void test_nccl_groups(void **state)
{
    (void)state;
    /* kept loaded, as nccl.c keeps NCCL: its communicators stay reachable */
    void *lib = dlopen(FAKE_NCCL_LIB, RTLD_NOW | RTLD_NODELETE);
    assert_non_null(lib);
    NCCL_FN(InitAllFn, ncclCommInitAll)
    NCCL_FN(CommFn, ncclCommDestroy)
    NCCL_FN(CommFn, ncclCommFinalize)
    NCCL_FN(GroupFn, ncclGroupStart)
    NCCL_FN(GroupFn, ncclGroupEnd)
    NCCL_FN(AllReduceFn, ncclAllReduce)
    NCCL_FN(SendFn, ncclSend)
    NCCL_FN(CountFn, fake_nccl_stuck)
    NCCL_FN(CountFn, fake_nccl_live)
    void *c[2], *one;
    long stuck = fake_nccl_stuck(), live = fake_nccl_live();
    assert_int_equal(ncclCommInitAll(c, 2, (const int[]){0, 0}), N_INVALID_USAGE);
    assert_int_equal(ncclCommInitAll(c, 2, (const int[]){0, 1}), N_OK);
    assert_int_equal(ncclAllReduce(NULL, NULL, 1, 7, 0, c[0], NULL), N_INVALID_USAGE);
    assert_int_equal(ncclCommFinalize(c[0]), N_INVALID_USAGE);
    assert_int_equal(nccl_group(lib, c, 1, 0), N_INVALID_USAGE);
    assert_int_equal(ncclGroupStart(), N_OK);
    assert_int_equal(ncclSend(NULL, 1, 7, 1, c[0], NULL), N_OK);
    assert_int_equal(ncclGroupEnd(), N_INVALID_USAGE);
    assert_int_equal(nccl_group(lib, c, 2, 1), N_INVALID_USAGE);
    assert_int_equal(fake_nccl_stuck() - stuck, 5);
    assert_int_equal(ncclGroupEnd(), N_INVALID_USAGE); /* no group open */
    assert_int_equal(nccl_group(lib, c, 2, 0), N_OK);
    assert_int_equal(nccl_group(lib, c, 2, 2), N_OK);
    assert_int_equal(ncclAllReduce(NULL, NULL, 1, 7, 0, c[0], NULL),
                     N_INVALID_USAGE); /* finalized */
    assert_int_equal(ncclCommInitAll(&one, 1, (const int[]){0}), N_OK);
    assert_int_equal(ncclAllReduce(NULL, NULL, 1, 7, 0, one, NULL), N_OK);
    assert_int_equal(ncclCommFinalize(one), N_OK);
    assert_int_equal(fake_nccl_stuck() - stuck, 5);
    for (int r = 0; r < 2; r++)
        assert_int_equal(ncclCommDestroy(c[r]), N_OK);
    assert_int_equal(ncclCommDestroy(one), N_OK);
    assert_int_equal(ncclCommDestroy(c[0]), N_INVALID_ARGUMENT);
    assert_int_equal(fake_nccl_live(), live);
    dlclose(lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stays_loaded),
        cmocka_unit_test(test_deferred),
        cmocka_unit_test(test_event_wait),
        cmocka_unit_test(test_seeded_order),
        cmocka_unit_test(test_pageable_htod),
        cmocka_unit_test(test_capture_events),
        cmocka_unit_test(test_event_contexts),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_peers),
        cmocka_unit_test(test_broken_peer),
        cmocka_unit_test(test_sticky_fault),
        cmocka_unit_test(test_race),
        cmocka_unit_test(test_cross_device_capture),
        cmocka_unit_test(test_launch_limits),
        cmocka_unit_test(test_proc_versions),
        cmocka_unit_test(test_module_checks),
        cmocka_unit_test(test_nccl_groups),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
#else
static void test_no_backend(void **state)
{
    (void)state;
    print_message("skipped: this build has no cuda backend (CUDA=0)\n");
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_backend)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
