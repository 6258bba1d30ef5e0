/*
 * commands.h - the subcommands of the collspec binary; main.c's table
 * dispatches to them.
 */
#ifndef CS_COMMANDS_H
#define CS_COMMANDS_H

/* The subcommands: argv[0] is the subcommand's name; each returns the
 * process exit status (0 ok, 1 failures, 2 usage or environment error). */
int cs_cmd_run(int argc, char **argv);
int cs_cmd_list(int argc, char **argv);
int cs_cmd_selfcheck(int argc, char **argv);
int cs_cmd_explain(int argc, char **argv);

#endif /* CS_COMMANDS_H */
