/* launch.h - how a program becomes one process of the mpi backend's job
 * (collviz-mpi's main, and the tests' sweep). Includes no MPI header, so
 * that callers need not be compiled with mpicc. */
#ifndef COLLVIZ_MPI_LAUNCH_H
#define COLLVIZ_MPI_LAUNCH_H

/* Run body(argc, argv) as the job's rank 0, with -B mpi available to it,
 * while every other process serves it (and prints nothing) until it
 * returns; its status is returned. A program not started by mpirun runs
 * body alone, and -B mpi then says how to launch it. */
int mpi_launch(int argc, char **argv, int (*body)(int argc, char **argv));

#endif
