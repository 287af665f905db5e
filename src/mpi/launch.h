/* launch.h - how a program becomes one process of the mpi backend's job
 * (collviz-mpi's main, and the tests' sweep). Includes no MPI header, so
 * that callers need not be compiled with mpicc. */
#ifndef COLLVIZ_MPI_LAUNCH_H
#define COLLVIZ_MPI_LAUNCH_H

#include <stdbool.h>

/* Run body(argc, argv) as the job's rank 0, with -B mpi available to it,
 * while every other process serves it (and prints nothing) until it
 * returns; its status is returned. A program not started by mpirun runs
 * body alone, and -B mpi then says how to launch it. one_thread: body
 * uses the backend from one thread only (perf, calibrate, the tests'
 * programs), and MPI starts with MPI_THREAD_SINGLE; else (the TUI: its
 * scene and its worker hold an executor each, in two threads) with
 * MPI_THREAD_SERIALIZED, under which Open MPI 4.1's calls each take
 * longer (an 8-byte MPI_Allgather at 2 ranks here: 0.67 us against 0.50;
 * FUNNELED's the same), and its collectives are not OSU's. */
int mpi_launch(int argc, char **argv, int (*body)(int argc, char **argv),
               bool one_thread);

#endif
