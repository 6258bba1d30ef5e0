/*
 * commands.h - the subcommands of the collspec binary, every one declared
 * here (cli/main.c's table dispatches to them; each is defined in the
 * folder of its name: run/, bench/, model/, explain/, selfcheck/, and
 * `list` in cli/main.c).
 */
#ifndef CS_COMMANDS_H
#define CS_COMMANDS_H

/* The subcommands: argv[0] is the subcommand's name; each returns the
 * process exit status (0 ok, 1 failures, 2 usage or environment error). */
int cs_cmd_run(int argc, char **argv);
int cs_cmd_list(int argc, char **argv);
int cs_cmd_selfcheck(int argc, char **argv);
int cs_cmd_explain(int argc, char **argv);
/* `collspec bench`: 0 every size passed, 1 a size failed, 2 usage or
 * environment error. */
int cs_cmd_bench(int argc, char **argv);
/* `collspec model`: 0 ok, 2 bad input. */
int cs_cmd_model(int argc, char **argv);

#endif /* CS_COMMANDS_H */
