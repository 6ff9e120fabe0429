/* tool/tool.h - the table of contents of the `tiledblas` command: one
 * file per subcommand plus the helpers they share (tiledblas.c). The command
 * prints its own results on stdout and its messages, prefixed "tiledblas: ",
 * on stderr; bad usage exits 2. It never changes the library's behaviour
 * except through TILEDBLAS_* variables in the environment of what it runs. */
#ifndef TB_TOOL_H
#define TB_TOOL_H

#include <stddef.h>
#include <stdio.h>

#define TB_TOOL_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- Functions in tiledblas.c ---- */
/* Prints "tiledblas: <sub>: <message>" and returns 2 (bad usage). */
int tb_tool_usage_error(const char *sub, const char *fmt, ...) TB_TOOL_PRINTF(2, 3);
/* Absolute path of libtiledblas to preload: $TILEDBLAS_LIBRARY, else next
 * to the executable (the build root), else ../lib beside it, else the copy
 * this command is linked to. NULL (message printed) when none is usable. */
const char *tb_tool_library(void);

/* One variable for the child's environment; value NULL removes it. */
typedef struct tb_env { const char *name, *value; } tb_env;

/* Runs argv with libtiledblas prepended to LD_PRELOAD and env applied; with
 * out_path, the child's stdout and stderr are appended there. Returns the
 * child's exit status, 128+signal when it was killed, 127 when it could not
 * be started; *wall_s (if not NULL) gets its wall time. */
int tb_tool_spawn(char *const *argv, const tb_env *env, int nenv, const char *out_path,
                  double *wall_s);
double tb_tool_now(void);
/* Parses a whole number in lo..hi; 0, or -1 when it is not one. */
int tb_tool_parse_int(const char *s, long lo, long hi, long *out);

/* ---- The subcommands: each gets argv from its own name on ---- */
int tb_cmd_run(int argc, char **argv);
int tb_cmd_ab(int argc, char **argv);
int tb_cmd_info(int argc, char **argv);
int tb_cmd_bench(int argc, char **argv);
int tb_cmd_calibrate(int argc, char **argv);

#endif
