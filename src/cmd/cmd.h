/* cmd.h - the subcommands of the collviz binary. Each takes the arguments
 * after its name (argv[0] is the subcommand's name) and returns the exit
 * status: 0 success, 1 a run found wrong results or failed, 2 bad input. */
#ifndef COLLVIZ_CMD_H
#define COLLVIZ_CMD_H

int cmd_list(int argc, char **argv);      /* cmd_list.c */
int cmd_trace(int argc, char **argv);     /* cmd_trace.c */
int cmd_model(int argc, char **argv);     /* cmd_model.c */
int cmd_perf(int argc, char **argv);      /* cmd_perf.c */
int cmd_calibrate(int argc, char **argv); /* cmd_calibrate.c */
int cmd_topo(int argc, char **argv);      /* cmd_topo.c */
int cmd_tui(int argc, char **argv);       /* ui/tui.c */
int cmd_learn(int argc, char **argv);     /* ui/learn_cmd.c */

/* Helpers the perf and calibrate commands share (cmd_calibrate.c). */
#include "measure/calib.h"
/* Ranks when none is given: the CPUs collviz may run on (exec_cpus), at
 * least 2. */
int cmd_default_ranks(void);
/* The backend when -B is not given: mpi where this process is rank 0 of
 * an MPI job (collviz-mpi under mpirun, which provides it), else threads:
 * a job's rank 0 would otherwise run every rank as a thread on its own
 * core, unnoticed. */
const char *cmd_default_backend(void);
/* Open backend `backend` (-B's NAME or NAME:PARAMS, exec_find_spec;
 * NULL: cmd_default_backend()) for nranks ranks; on failure (an unknown backend or
 * option too) the sentence is printed and NULL returned. */
Executor *cmd_exec_open(const char *backend, int nranks);
/* The same with every rank's buffers `unalign` elements past their
 * aligned start (perf -u, ExecOptions.unalign). */
Executor *cmd_exec_open_unaligned(const char *backend, int nranks,
                                  size_t unalign);
/* The saved calibration of ex's backend and rank count on this machine
 * (ExecOps.host), or a quick one measured and saved now (said on stderr,
 * with why there was none when there is more to say than that: a file
 * that could not be read, its reason, and where it was set aside; a save
 * that failed, and why). Returns an exit status; when the measurement
 * failed, its sentence is in err too. */
int cmd_calib_for(Executor *ex, Calib *cal, char *err, size_t errlen);
/* The saved calibration of backend `spec` (-B NAME[:PARAMS]) at nranks on
 * this machine into *cal, asking the backend which machine that is
 * (exec_host_of, which checks the options): CLI_EXIT_OK; CLI_EXIT_USAGE
 * when spec is bad input; CLI_EXIT_FAIL when there is no usable
 * calibration. The sentence in why unless CLI_EXIT_OK. */
int cmd_calib_saved(const char *spec, int nranks, Calib *cal, char *why,
                    size_t whylen);

#endif
