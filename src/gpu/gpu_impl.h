/* gpu_impl.h - the cuda backend's insides, shared by its files:
 * exec_cuda.c (the operations), gpu_dev.c (devices: opening, options,
 * peers, the kernels), gpu_plan.c (a schedule's plan of chunks), and
 * nccl.c (NCCL beside it). */
#ifndef COLLVIZ_GPU_IMPL_H
#define COLLVIZ_GPU_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "exec/exec.h"
#include "gpu/cuda_api.h"
#include "gpu/kern.h"

#define GPU_MAX_DEVICES CUDA_MAX_ORDINALS
#define GPU_THREADS 256 /* threads per block of the step kernel */
#define GPU_IN_FLIGHT 3 /* timed iterations issued ahead of the GPU, at most */

/* One device the backend uses. */
typedef struct {
    int ordinal;        /* the driver's number for it */
    CUdevice dev;
    CUcontext ctx;      /* its primary context */
    unsigned resets;    /* cuda_resets of its ordinal when retained */
    CUstream stream;    /* where everything for it is issued */
    CUmodule mod;
    CUfunction fn;      /* the step kernel */
    int sms;            /* multiprocessors */
    int l2;             /* bytes of L2 cache (0: not said) */
    int blocks_per_sm;  /* blocks of the step kernel a multiprocessor holds
                           at once (the driver's occupancy), at least 1 */
    CUevent phase;      /* recorded at the end of each phase, for the
                           other devices to wait on */
    CUdeviceptr plan[2];  /* the plans' chunks (GPU_STEP, GPU_RUN) */
    size_t plan_bytes[2]; /* their sizes (kept across loads) */
    CUdeviceptr stage;    /* staging area for overwritten sources */
    size_t stage_bytes;   /* its size (kept across loads) */
} GpuDev;

/* A copy between devices without peer access, into the destination's
 * staging area in the stage phase: the driver's peer copy
 * (cuMemcpyPeerAsync), which goes through host memory in pieces, its
 * copies to and from the host overlapping (review finding G5: by hand,
 * one after the other, each byte took two PCIe crossings' time, and a
 * pinned buffer the size of the step). */
typedef struct {
    int dev, src_dev;      /* the destination's device (its stream), the
                              source's */
    CUdeviceptr dst, src;
    size_t bytes;
} GpuPeerCopy;

/* Whose memory work touches: a bit per device (its index in dev[]). */
typedef struct {
    uint64_t rd, wr; /* devices whose memory it reads, writes */
} GpuTouch;

/* Where a step's work lies in a plan: per device, chunks [first, first +
 * n) of its stage phase and of its main phase, and the blocks each is
 * launched with (block b runs chunks b, b + grid, ...); its peer copies
 * (the stage phase's); whose memory each device's part of each phase
 * touches (its chunks and peer copies). */
typedef struct {
    size_t *stage_first, *stage_n; /* [ndev] */
    size_t *main_first, *main_n;   /* [ndev] */
    unsigned *stage_grid, *main_grid; /* [ndev] */
    GpuTouch *stage_touch, *main_touch; /* [ndev] */
    size_t pc_first, pc_n;         /* peer copies (the stage phase's) */
    bool staged;                   /* a stage phase is needed */
} GpuStepPlan;

/* A schedule's plan for one mode: per device, its chunks; per step (and
 * one more: the finish), where they lie. */
enum { GPU_STEP, GPU_RUN, GPU_MODES }; /* stepping; timed runs (fused) */
typedef struct {
    KChunk **chunks;      /* [ndev] host copies of the chunks */
    size_t *nchunks;      /* [ndev] */
    size_t *cap;          /* [ndev] */
    GpuStepPlan *steps;   /* [nsteps + 1] */
    size_t nsteps;
    GpuPeerCopy *pc;
    size_t npc, cap_pc;
    size_t *stage_need;   /* [ndev] bytes of staging area */
} GpuPlan;

typedef struct {
    Executor base;
    CudaApi api;
    GpuDev dev[GPU_MAX_DEVICES];
    int ndev;                  /* devices used */
    int avail;                 /* devices the driver has */
    bool peer_off;             /* option peer=0 */
    bool packed;               /* option kernels=packed: KF_PACKED (kern.h) */
    bool stride;               /* option layout=stride: a phase's bytes
                                  dealt to the blocks in pieces of about
                                  GPU_STRIDE_PIECE, in turn (gpu_plan.c) */
    bool peer[GPU_MAX_DEVICES][GPU_MAX_DEVICES]; /* [d][s]: d reads s */
    bool peer_hung[GPU_MAX_DEVICES][GPU_MAX_DEVICES]; /* [d][s]: peer access
                                  enabled, but d's probe copies with s did
                                  not finish (gpu_probe.c): through pinned
                                  host memory instead */
    bool probe_hung;           /* some probe's copies never finished: they
                                  keep what they use, and close resets the
                                  contexts instead of freeing */
    int *rank_dev;             /* [nranks] index into dev */
    CUdeviceptr *buf;          /* [rank * BUF_COUNT + b]: buf_base +
                                  unalign elements */
    CUdeviceptr *buf_base;     /* [rank * BUF_COUNT + b] their allocations */
    size_t unalign;            /* ExecOptions.unalign (nccl-tests' -u) */
    size_t *buf_bytes;         /* [rank * BUF_COUNT + b] their sizes: device
                                  memory is kept across loads and only
                                  grown, since cuMemFree synchronises the
                                  device (every executor's work on it) */
    GpuPlan plan[GPU_MODES];
    bool finish;               /* the schedule has an avg finish */
    unsigned char **mirror;    /* [rank * BUF_COUNT + b] host copies for
                                  read, valid while mirror_ok */
    bool *mirror_ok;
    CUevent ev_start, ev_end;  /* around a timed loop (device 0) */
    CUevent ev_iter[GPU_IN_FLIGHT]; /* the end of each iteration in flight
                                  (device 0, no timing) */
    CUevent *ev_step;          /* [nsteps + 2]: steps' ends in a pass */
    size_t nev_step;
    CUgraphExec graph;         /* one timed iteration, captured */
    CUgraphExec graph_stamp;   /* the same with step events */
    bool no_graph;             /* the driver refused a graph across the
                                  devices (at open, gpu_probe_graph, or in
                                  a timed run): steps issued one by one
                                  from the host from then on, which the
                                  placement line says */
    bool capturing;            /* a graph is being captured: events are
                                  recorded as external nodes */
    void *nccl;                /* nccl.c's state, or NULL */
    GpuTouch since[GPU_MAX_DEVICES][GPU_MAX_DEVICES]; /* [d][o]: what device
                                  o's work issued since d's stream last
                                  waited for o's touches (a phase of d
                                  that conflicts with it waits for o) */
} GpuExec;

static inline GpuExec *gx(Executor *ex) { return (GpuExec *)ex; }

/* gpu_dev.c */
CvError gpu_open_devices(GpuExec *x, const char *params, char *why,
                         size_t whylen);
void gpu_close_devices(GpuExec *x);
/* CV_OK, or exec_fail with what was being done and the driver's error. */
CvError gpu_check(GpuExec *x, CUresult r, const char *what);
/* Make device d's context current. */
CvError gpu_use(GpuExec *x, int d);
/* Copy n bytes from host memory at src to dptr on device d, in order
 * with d's stream, and wait for it (src may be reused at once). */
CvError gpu_upload(GpuExec *x, int d, CUdeviceptr dptr, const void *src,
                   size_t n);
/* Wait for ev by polling, so that a cancel stops the wait: CV_OK when it
 * has completed, CV_ERR_CANCELLED (the cancel flag consumed) or an error;
 * poll (may be NULL) is asked at every look that finds it not reached,
 * and an error from it ends the wait. */
CvError gpu_wait_event(GpuExec *x, CUevent ev, const char *what,
                       CvError (*poll)(GpuExec *x));
/* The embedded kernels: the image and its size (0: built without). */
const unsigned char *gpu_image(size_t *len);
/* The compiler that made the kernels: "nvcc 13.0", "clang 14.0.6". */
const char *gpu_image_by(void);

/* exec_cuda.c: issue step k (nsteps: the finish) of plan m on every
 * device, without waiting (before each phase a device waits only for
 * the devices whose earlier work touched memory the phase touches, one
 * of the two writing it); wait for every device's stream. */
CvError gpu_issue(GpuExec *x, int m, size_t k);
CvError gpu_sync_all(GpuExec *x);
/* Every device's stream waits for what the others have issued. */
CvError gpu_cross_wait(GpuExec *x);
/* Device 0's stream waits for what the others have issued (the end of a
 * captured iteration: the other devices' streams joined back). */
CvError gpu_join(GpuExec *x);
/* Every device's issued work forgotten by the waits before phases: every
 * device's stream is known to be ordered after every other one's work
 * (all synchronised, or a capture just begun). */
void gpu_deps_clear(GpuExec *x);

/* gpu_probe.c: every pair with peer access enabled tried with a small
 * copy each way that must finish within a second; a pair whose copies do
 * not loses peer access (peer_hung). An error: its sentence in why. */
CvError gpu_probe_peers(GpuExec *x, char *why, size_t whylen);

/* gpu_run.c: the timed run (ExecOps.run). */
CvError gpu_run(Executor *ex, int warmup, int iters, ExecTiming *t);
/* At open, with several devices: whether the driver captures a graph
 * across them (the other devices' fork and join, instantiated); where it
 * refuses, no_graph (review finding G13: the fallback was silent). */
CvError gpu_probe_graph(GpuExec *x);
/* The timed runs' graphs (plain and stamped) destroyed, if any. */
void gpu_drop_graphs(GpuExec *x);

/* nccl.c: NCCL's collective on the loaded buffers (ExecOps.native), and
 * its state freed. */
CvError gpu_native(Executor *ex, int warmup, int iters, ExecTiming *t,
                   char *why, size_t whylen);
void gpu_native_close(GpuExec *x);

/* gpu_plan.c: build plan p for schedule s (buffers allocated); staged[]
 * from sched_validate; fuse: the copy-in fusion of a timed run's plan
 * (GPU_RUN), NULL for stepping (GPU_STEP). */
CvError gpu_plan_build(GpuExec *x, GpuPlan *p, const Schedule *s,
                       const unsigned char *staged, const SchedFuse *fuse);
void gpu_plan_free(GpuPlan *p, int ndev);

#endif
