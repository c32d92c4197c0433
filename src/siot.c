/* siot: the command-line tool for siotrace traces.
 * Exit status: 0 success, 1 a negative answer, 2 bad usage or input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "dump.h"
#include "format.h"

#ifndef SIOT_VERSION
#define SIOT_VERSION "0.1.0"
#endif

static const char *USAGE =
    "usage: siot COMMAND [OPTIONS] FILE...\n"
    "\n"
    "Commands:\n"
    "  dump [--jsonl] FILE   the trace: its compressed structure, or with --jsonl\n"
    "                        every event of every rank, one JSON object per line\n"
    "  diff A B              exit 0 when A and B hold the same events (timing\n"
    "                        aside), 1 with the first difference when not\n"
    "  help [COMMAND]        this text, or a command's\n"
    "  --version             the version\n"
    "\n"
    "Exit status: 0 success, 1 a negative answer (diff found a difference),\n"
    "2 bad usage or an unreadable or corrupt trace.\n";

static const char *DUMP_HELP =
    "usage: siot dump [--jsonl] FILE\n"
    "\n"
    "Without --jsonl: the trace header and its nodes as recorded: loops with\n"
    "their iteration counts, rank lists ([r0-7], [r<0;4x+2>] = 0,2,4,6),\n"
    "parameter expressions (constants, progressions such as 100+8*i0+800*rank,\n"
    "sequences, per-rank tables, string patterns) and timing histograms\n"
    "(comp = computation before the call, dur = the call itself).\n"
    "\n"
    "With --jsonl: every event of every rank, ranks ascending, each rank in\n"
    "program order, one object per line:\n"
    "  {\"rank\":0,\"seq\":7,\"layer\":\"posix\",\"func\":\"pwrite\",\"parent\":6,\n"
    "   \"args\":{\"fd\":3,\"count\":1024,\"offset\":4096},\"ret\":1024,\"bytes\":1024}\n"
    "seq counts the rank's events from 0; parent is the seq of the traced call\n"
    "that issued this one, or -1. bytes is present for data calls, errno when\n"
    "the call failed, thread when it ran on a thread other than the first.\n";

static const char *DIFF_HELP =
    "usage: siot diff A B\n"
    "\n"
    "Compares the events of two traces rank by rank: function, arguments,\n"
    "return value, errno, bytes and parent links, in program order. Timing is\n"
    "ignored. Exit 0 when they are the same, 1 with the first difference\n"
    "printed when not, 2 when a trace cannot be read.\n";

static int usage_error(const char *msg)
{
    fprintf(stderr, "siot: %s (try 'siot help')\n", msg);
    return 2;
}

static int load(const char *path, siot_trace *t)
{
    char err[512];
    if (siot_trace_load(path, t, err, sizeof err) != 0) {
        fprintf(stderr, "siot: %s\n", err);
        return -1;
    }
    return 0;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

static int cmd_dump(int argc, char **argv)
{
    int jsonl = 0;
    const char *path = NULL;
    if (wants_help(argc, argv)) {
        fputs(DUMP_HELP, stdout);
        return 0;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--jsonl") == 0)
            jsonl = 1;
        else if (argv[i][0] == '-' && argv[i][1])
            return usage_error("dump: unknown option");
        else if (!path)
            path = argv[i];
        else
            return usage_error("dump: one trace file at a time");
    }
    if (!path)
        return usage_error("dump: missing trace file");
    siot_trace t;
    if (load(path, &t) != 0)
        return 2;
    char err[256];
    int rc = jsonl ? siot_dump_jsonl(&t, stdout, err, sizeof err) : siot_dump_human(&t, path, stdout);
    if (rc != 0)
        fprintf(stderr, "siot: %s: %s\n", path, jsonl ? err : "write error");
    siot_trace_free(&t);
    if (fflush(stdout) != 0 && rc == 0) {
        fprintf(stderr, "siot: write error\n");
        rc = -1;
    }
    return rc ? 2 : 0;
}

static int cmd_diff(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        fputs(DIFF_HELP, stdout);
        return 0;
    }
    if (argc != 2)
        return usage_error("diff: needs two trace files");
    siot_trace a, b;
    if (load(argv[0], &a) != 0)
        return 2;
    if (load(argv[1], &b) != 0) {
        siot_trace_free(&a);
        return 2;
    }
    char err[256];
    int rc = siot_diff(&a, &b, stdout, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "siot: diff: %s\n", err);
    siot_trace_free(&a);
    siot_trace_free(&b);
    fflush(stdout);
    return rc < 0 ? 2 : rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0) {
        printf("siot %s\n", SIOT_VERSION);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        const char *which = argc > 2 ? argv[2] : "";
        fputs(strcmp(which, "dump") == 0 ? DUMP_HELP : strcmp(which, "diff") == 0 ? DIFF_HELP : USAGE, stdout);
        return 0;
    }
    if (strcmp(cmd, "dump") == 0)
        return cmd_dump(argc - 2, argv + 2);
    if (strcmp(cmd, "diff") == 0)
        return cmd_diff(argc - 2, argv + 2);
    fprintf(stderr, "siot: unknown command '%s' (try 'siot help')\n", cmd);
    return 2;
}
