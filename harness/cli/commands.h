/* The sub-commands of `bitbench`, one file each. Each returns the process exit status. */
#ifndef BB_COMMANDS_H
#define BB_COMMANDS_H

int bb_cmd_list(int argc, char **argv);
int bb_cmd_describe(int argc, char **argv); /* cmd_describe.c: what a kernel is, its variants here */
int bb_cmd_gemm(int argc, char **argv);
int bb_cmd_run(int argc, char **argv);
int bb_cmd_overhead(int argc, char **argv);
int bb_cmd_roofline(int argc, char **argv); /* cmd_roofline.c */
int bb_cmd_plot(int argc, char **argv);     /* cmd_plot.c */
int bb_cmd_generate(int argc, char **argv);
int bb_cmd_e2e(int argc, char **argv);
int bb_cmd_gguf(int argc, char **argv); /* cmd_gguf.c */
int bb_cmd_perplexity(int argc, char **argv); /* cmd_perplexity.c */
int bb_cmd_export(int argc, char **argv); /* cmd_export.c */
int bb_cmd_db(int argc, char **argv);      /* cmd_db.c: the results database */
int bb_cmd_compare(int argc, char **argv); /* cmd_compare.c: two runs, with statistics */
int bb_cmd_merge(int argc, char **argv);  /* cmd_merge.c: shards of a run into one */
int bb_cmd_slurm(int argc, char **argv);  /* cmd_slurm.c: a Slurm job array of shards */
int bb_cmd_report(int argc, char **argv); /* cmd_report.c: one HTML page of a run or a database */

#endif
