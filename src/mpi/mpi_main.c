/* mpi_main.c - the collviz-mpi binary: collviz with the mpi backend, one
 * process of an mpirun job. Rank 0 runs the command line as collviz does
 * (src/main.c, built a second time as collviz_main); the other processes
 * serve its -B mpi executors and print nothing. A second binary, so that
 * collviz itself never links libmpi (docs/ARCHITECTURE.md). */
#include "mpi/launch.h"

/* src/main.c's main, under another name in this binary. */
int collviz_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return mpi_launch(argc, argv, collviz_main);
}
