/* siot: the command-line tool for siotrace traces.
 * Exit status: 0 success, 1 a negative answer, 2 bad usage or input, or
 * an answer that could not be written to stdout. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include "replay/analyze.h"
#include "siot/stats.h"

#include "compress/merge.h"
#include "compress/rankfold.h"
#include "compress/timefold.h"
#include "core/ranksum.h"
#include "core/ranklist.h"
#include "replay/compare.h"
#include "siot/dump.h"
#include "siot/sizes.h"
#include <sys/stat.h>
#include "siot/export.h"
#include "siot/otf2.h"
#include "siot/findings.h"
#include "core/format.h"
#include "siot/report.h"
#include "core/roles.h"

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
    "  stats [--json|--csv] FILE\n"
    "                        statistics computed on the compressed trace: calls,\n"
    "                        bytes and time per layer and function, rank 0 against\n"
    "                        the others, files, request sizes, call sites\n"
    "  findings [--json] FILE\n"
    "                        known I/O problems (small, misaligned requests,\n"
    "                        imbalance, reopens, syncs in loops, independent\n"
    "                        MPI-IO on shared files) with evidence and call sites\n"
    "  stats --plugin LIB.so [--plugin-arg ARG]... FILE\n"
    "                        run your own analysis handlers over the trace\n"
    "  merge [--concat] -o OUT IN...\n"
    "                        one trace from traces of disjoint sets of ranks\n"
    "                        (per-rank traces: SIOT_RANK_TRACES, partial traces)\n"
    "  report FILE -o OUT.html\n"
    "                        a self-contained HTML page with charts: layers,\n"
    "                        ranks, request sizes, timeline, call sites\n"
    "  export --chrome|--csv FILE -o OUT | --otf2 DIR FILE\n"
    "                        every event with synthesised times, as\n"
    "                        Chrome/Perfetto trace-event JSON or as CSV\n"
    "  help [COMMAND]        this text, or a command's\n"
    "  --version             the version\n"
    "\n"
    "Exit status: 0 success, 1 a negative answer (diff found a difference),\n"
    "2 bad usage, an unreadable or corrupt trace, or an answer that could not\n"
    "be written (a full disk).\n";

static const char *DUMP_HELP =
    "usage: siot dump [--jsonl|--raw|--sizes] FILE\n"
    "\n"
    "Without --jsonl: the trace header and its nodes as recorded: loops with\n"
    "their iteration counts, rank lists ([r0-7], [r<0;4x+2>] = 0,2,4,6),\n"
    "parameter expressions (constants, progressions such as 100+8*i0+800*rank,\n"
    "sequences, per-rank tables, string patterns) and timing histograms\n"
    "(comp = computation before the call, dur = the call itself). Constants\n"
    "with names are shown by name: open flags (O_WRONLY|O_CREAT), modes (0644),\n"
    "whence, MPI-IO access modes, HDF5 file flags (H5F_ACC_TRUNC), netCDF\n"
    "modes (NC_CLOBBER|NC_64BIT_DATA), errno (ENOENT), predefined MPI handles.\n"
    "A call issued by another (the pwrite of an MPI-IO call, the MPI-IO calls\n"
    "of an H5Dwrite) is indented under it; where the issuing call is not the\n"
    "same node on every rank (or is outside the loop body), parent=-N gives\n"
    "its distance back in the rank's events. --raw: no nesting, every\n"
    "distance as recorded.\n"
    "\n"
    "With --jsonl: every event of every rank, ranks ascending, each rank in\n"
    "program order, one object per line:\n"
    "  {\"rank\":0,\"seq\":7,\"layer\":\"posix\",\"func\":\"pwrite\",\"parent\":6,\n"
    "   \"args\":{\"fd\":3,\"count\":1024,\"offset\":4096},\"ret\":1024,\"bytes\":1024}\n"
    "seq counts the rank's events from 0; parent is the seq of the traced call\n"
    "that issued this one, or -1. bytes is present for data calls, errno when\n"
    "the call failed, thread when it ran on a thread other than the first.\n"
    "names, when any value has one, gives those names beside the numbers:\n"
    "  \"names\":{\"flags\":\"O_WRONLY|O_CREAT\",\"mode\":\"0644\",\"errno\":\"ENOENT\"}\n"
    "(export --csv and --chrome carry the same \"names\" in their args).\n"
    "\n"
    "With --sizes: where the trace's bytes go: its sections, events against\n"
    "loops and timing histograms, values by kind (constants, progressions, run\n"
    "tables...), and the ten largest events with the value that takes most of\n"
    "their bytes: what did not fold.\n";

static const char *DIFF_HELP =
    "usage: siot diff [--layers L,L...] [--outermost] A B\n"
    "\n"
    "Compares the events of two traces rank by rank: function, arguments,\n"
    "return value, errno, bytes and parent links, in program order. Timing is\n"
    "ignored, and so are polls that found nothing (aio_error answering\n"
    "EINPROGRESS, MPI_Test or MPI_Iprobe answering false, an aio_suspend\n"
    "that timed out): how many there are is timing, and a replay does not\n"
    "reissue them. Exit 0 when they are the same, 1 with the first\n"
    "difference printed when not, 2 when a trace cannot be read.\n"
    "  --layers L,...   compare only the events of these layers (posix, stdio,\n"
    "                   mpi, mpiio, hdf5, pnetcdf); a parent is then the\n"
    "                   nearest ancestor of these layers\n"
    "  --outermost      compare only events without such an ancestor: with\n"
    "                   --layers posix,stdio,mpi,mpiio, the calls ioreplay\n"
    "                   reissues by default\n"
    "  --sandbox-paths  compare paths the way ioreplay maps them under its\n"
    "                   root (leading / dropped, . and .. resolved)\n";

static const char *MERGE_HELP =
    "usage: siot merge [--concat] [--window N] -o OUT IN...\n"
    "\n"
    "Merges traces that hold disjoint sets of ranks of the same job (for\n"
    "example the per-rank traces written with SIOT_RANK_TRACES=dir, or partial\n"
    "traces) into one, as the tracer does at MPI_Finalize: matching events of\n"
    "different ranks become one event whose values are functions of the rank.\n"
    "--concat only puts the ranks side by side (what SIOT_COMPRESS=0 does).\n"
    "--window N bounds how far the alignment looks ahead (default 256).\n"
    "OUT is written to a temporary name and renamed; -o - writes the trace to\n"
    "standard output.\n";

static const char *STATS_HELP =
    "usage: siot stats [--json [--access] | --csv] FILE\n"
    "       siot stats --plugin LIB.so [--plugin-arg ARG]... FILE\n"
    "\n"
    "The statistics pass over the compressed trace, without expanding it:\n"
    "loops are multiplied by their counts and ranks taken as groups, so it runs\n"
    "in about the same time for 10^3 and 10^9 events.\n"
    "  - calls per layer (POSIX, stdio, MPI-IO, HDF5, PnetCDF) and MPI\n"
    "    communication (collective, blocking, non-blocking), for rank 0 and for\n"
    "    the other ranks (mean, min, max);\n"
    "  - bytes read and written per layer and per file (names as patterns:\n"
    "    ckpt-{0001..0100}-{rank}.dat), request-size histograms;\n"
    "  - time per function from the timing histograms (total, mean, max and the\n"
    "    rank where it was reached);\n"
    "  - the busiest call sites, resolved to file:line with addr2line when the\n"
    "    traced executable is still there: each at the program's line of the\n"
    "    outermost traced call its calls were made in (a pwrite ROMIO made for\n"
    "    an H5Dwrite: the H5Dwrite's line), with the chain of traced calls down\n"
    "    to it (\"via H5Dwrite > MPI_File_write_at > pwrite in\n"
    "    ADIOI_GEN_WriteContig\"); the rule for a program frame: docs/sites.md.\n"
    "--json: one object with nranks, total_events, functions{name:{calls,bytes,\n"
    "time_s,...}}, layers{layer:{calls,bytes_read,bytes_written,...}},\n"
    "communication, ranks[{rank,calls{layer or kind:n}}] (each rank's own\n"
    "counts), files (time_s: calls x mean duration of each data call),\n"
    "request_sizes, call_sites[{site,function,calls,location,program,chain}]\n"
    "(program: location is a frame of the program's own code), outermost[{\n"
    "function,outermost,calls}] (each function's calls per outermost traced\n"
    "call they were made in), calls_without_chain (calls whose enclosing\n"
    "traced call was not found: counted as outermost). --csv: section,name,metric,value rows (per\n"
    "rank too).\n"
    "--access (with --json): also walks every event in program order (time in\n"
    "proportion to the expanded trace; at most 10^7 events, shared by the\n"
    "ranks) for access[{name,layer,consecutive,sequential,random,unknown,\n"
    "aligned}] per file (per rank per file against the previous call's end,\n"
    "a rank's first against offset 0; aligned: offset and size multiples of\n"
    "4 KiB) and amplification[{upper,upper_dir,upper_bytes,lower,lower_read,\n"
    "lower_written}]: bytes of one layer's calls issued by another's reads or\n"
    "writes (siot help report).\n"
    "--plugin: LIB.so exports int siot_plugin(siot_handlers *h, int argc,\n"
    "char **argv) (replay/analyze.h); its handlers receive aggregate records\n"
    "(event, ranks, calls per rank, bytes per call, evaluation context) and do\n"
    "their own output. --plugin-arg passes arguments to it.\n";

static const char *FINDINGS_HELP =
    "usage: siot findings [--json] FILE\n"
    "\n"
    "Known I/O problems found on the compressed trace, each with its evidence\n"
    "and the call sites responsible (file:line (function) when the traced\n"
    "executable is still there; build with -g). A call is shown where the\n"
    "program made the outermost traced call it was made in: the writes MPI-IO\n"
    "makes for an H5Dwrite at the H5Dwrite's line, the calls grouped by it, the\n"
    "chain of traced calls beneath as detail (\"via H5Dwrite > MPI_File_write_at\n"
    "> pwrite in ADIOI_GEN_WriteContig\"). Frames of the I/O stack's libraries\n"
    "(MPI, ROMIO, Open MPI's plug-ins, HDF5, PnetCDF, libc, the Fortran\n"
    "runtime), linked statically or not, are never the site when the stack\n"
    "holds a frame of the program (the rule: docs/sites.md). Per-file rules\n"
    "count per file name, never per handle id (a library reuses ids):\n"
    "  small-requests      half or more of the program's own data calls (at\n"
    "                      least 100) move under 4 KiB\n"
    "  misaligned-requests half or more of the POSIX data calls (at least 100)\n"
    "                      are not aligned to 4 KiB (offset or size)\n"
    "  rank-imbalance      the busiest rank moves twice the mean bytes or more\n"
    "  reopened-file       a call site opens the same file 10 times or more per rank\n"
    "  sync-in-loop        a call site syncs 10 times or more per rank\n"
    "  independent-shared  independent MPI-IO data calls (the libraries' too)\n"
    "                      from 2 ranks or more, 8 or more, on one file (by name):\n"
    "                      collective calls could aggregate them; names the file\n"
    "  metadata-heavy      POSIX and stdio metadata calls (open, close, stat,\n"
    "                      access, lseek, fsync, mkdir..., the libraries' too; at\n"
    "                      least 100) outnumber their data calls more than 2 to 1\n"
    "  many-files-per-rank a rank uses more than 64 distinct files\n"
    "  random-access       more than half of the program's own positioned data\n"
    "                      calls (pread, pwrite, MPI_File_*_at; at least 100) on a\n"
    "                      file go backwards: the offset is below the end of the\n"
    "                      same call site's previous call on that rank (in a loop:\n"
    "                      the previous iteration, up to 1,024 evaluated)\n"
    "  read-after-write    ranks read back 4 KiB or more of the bytes they wrote\n"
    "                      (byte ranges compared in program order; a read whose\n"
    "                      offset is not known counts whole after a write)\n"
    "  rank-wait           the ranks' own times (a trace's rows or its summary,\n"
    "                      exact for the slowest ranks): the most and the least\n"
    "                      waiting ranks' MPI times differ by 20 ms and a tenth\n"
    "                      of the mean run or more, and the slowest rank computes\n"
    "                      1.5 times the mean or more; names both ranks\n"
    "  read-modify-write   POSIX reads inside MPI-IO writes: the bytes read and\n"
    "                      written beyond the MPI-IO calls' own reach 64 KiB\n"
    "                      (ROMIO's data sieving, holes filled by collective\n"
    "                      buffering; OMPIO does not sieve writes)\n"
    "  hdf5-metadata-flush writes HDF5 makes in H5Fflush, H5Fclose, H5Dclose...:\n"
    "                      16 or more and at least those in H5Dwrite\n"
    "  small-collective-buffer POSIX data calls inside collective MPI-IO calls:\n"
    "                      32 or more, 8 or more per call, under 1 MiB on average\n"
    "  collective-straggler ranks wait in collective MPI-IO (or the MPI waits that\n"
    "                      complete a non-blocking one) for the last (per site\n"
    "                      count x (mean - min) of the durations): 50 ms and a\n"
    "                      quarter of those calls' time or more; names the rank\n"
    "                      computing the longest before them, or over the run\n"
    "  open-in-loop        the program's opens in loops run more than once, 2 per\n"
    "                      rank or more\n"
    "  stdio-bulk          stdio moves 1 MiB or more and a tenth of the data\n"
    "  redundant-reads     3 ranks or more read the same bytes of the same file:\n"
    "                      1 MiB or more read again (positioned reads, and reads\n"
    "                      at a file pointer followed from lseek, fseek,\n"
    "                      MPI_File_seek and views of bytes)\n"
    "  file-per-process    4 ranks or more, half of them or more each moving\n"
    "                      data through files no other rank uses\n"
    "Each finding states its cost (the time of the calls it is about, from the\n"
    "call sites' mean durations; the bytes moved beyond the program's where that\n"
    "applies) and a remedy (the hint, the HDF5 property call, the API); they are\n"
    "listed costliest first: seconds, then bytes (docs/findings.md, with the\n"
    "triggers of Drishti each rule covers).\n"
    "Severity: high when the share is 90% or more (imbalance: 4 times the mean;\n"
    "files: more than 1,024 per rank; metadata: half the time of the file-system\n"
    "calls, metadata and data, or more; low under a tenth of it; rank-wait: the\n"
    "waits differ by three tenths of the mean run or more).\n"
    "--json: {\"nranks\",\"calls_without_chain\" (calls whose enclosing traced\n"
    "call was not found: shown at their own site),\"findings\":[{\"id\",\"severity\",\"summary\",\n"
    "\"cost\":{\"seconds\",\"extra_bytes\"},\"remedy\",\"evidence\":{...},\n"
    "\"sites\":[{\"site\",\"calls\",\"program\",\"location\",\"chain\"}]}]} (site: the\n"
    "outermost call's; program: location is the program's own frame; chain: \"\"\n"
    "for the outermost calls themselves). Exit status 0 whether or not\n"
    "anything was found.\n";

static const char *REPORT_HELP =
    "usage: siot report [--ranks N] [--events N] [--walk-events N] FILE\n"
    "                   [-o OUT.html]\n"
    "\n"
    "Writes one HTML page (no script, nothing fetched: it opens offline) with\n"
    "SVG charts computed on the compressed trace:\n"
    "  - calls, bytes read and written, and time per layer;\n"
    "  - bytes and time per rank (outermost calls; I/O against MPI time), to\n"
    "    see which ranks do the I/O and which wait; many ranks are grouped;\n"
    "  - request-size histograms per layer (reads and writes);\n"
    "  - a timeline of the outermost calls of up to N ranks (--ranks, default\n"
    "    32, spread over the job), rebuilt from each event's mean computation\n"
    "    time and duration: the trace keeps histograms, not timestamps; each\n"
    "    drawn rank's first N events (--events, default 200000) are walked;\n"
    "  - the call sites that took the most time, as file:line when the traced\n"
    "    executable is still there;\n"
    "  - per file (name and layer): time in its data calls (calls x mean\n"
    "    duration) and bandwidth (its bytes per second of that time); the top 10\n"
    "    files by bytes and by time;\n"
    "and, from one walk of every event in program order (each rank's share of\n"
    "--walk-events, default 10^7; siot stats --json --access gives the same\n"
    "numbers under that default):\n"
    "  - access patterns per file: per rank, a data call is consecutive when it\n"
    "    starts at the end of the rank's previous call on the file, sequential\n"
    "    past it, random before it (a first call against offset 0), then summed;\n"
    "    offsets are the calls' own (pread, MPI_File_write_at: past the view's\n"
    "    displacement under a view of bytes, else not known) or POSIX read/\n"
    "    write's position followed from open and lseek; other calls have no\n"
    "    known offset; aligned: offset and size multiples\n"
    "    of 4 KiB (as the misaligned-requests finding);\n"
    "  - amplification: for each pair of layers, the bytes the lower layer's\n"
    "    data calls moved under the reads or writes of the upper (their\n"
    "    recorded parent), by direction, over the upper layer's bytes (ROMIO's\n"
    "    read-modify-write: reads under writes);\n"
    "  - a heat map: ranks (groups of ranks past 64) by 50 time bins of the\n"
    "    synthesised times, each cell the share of the bin in outermost I/O\n"
    "    calls.\n"
    "With -o -, or without -o when standard output is not a terminal, the\n"
    "page goes to standard output (without -o on a terminal: refused, exit 2);\n"
    "otherwise OUT is written under a temporary name and renamed when complete.\n";

static const char *EXPORT_HELP =
    "usage: siot export --chrome|--csv [--max-events N] [--sample] FILE [-o OUT]\n"
    "       siot export --otf2 DIR [--max-events N] FILE\n"
    "\n"
    "Expands the trace into every event of every rank, with times synthesised\n"
    "from each event's mean computation time and mean duration (a call issued\n"
    "by another is placed inside its parent's span):\n"
    "  --chrome   Chrome trace-event JSON, for chrome://tracing and\n"
    "             ui.perfetto.dev: one process per rank, one thread per traced\n"
    "             thread, one complete (\"X\") event per call with its arguments,\n"
    "             return value and bytes in args; ts and dur in microseconds\n"
    "  --csv      one row per call: rank,seq,layer,func,parent,depth,start_ns,\n"
    "             dur_ns,ret,errno,bytes,thread,args (args: a JSON object)\n"    "  --otf2 DIR an OTF2 archive DIR/traces.otf2 (Vampir, Scalasca, otf2-print):\n"
    "             a location per rank and thread, a region per function, I/O\n"
    "             handles per file and layer (POSIX, ISOC, MPI-IO, HDF5,\n"
    "             PnetCDF) with their operations and bytes, MPI messages and\n"
    "             collectives; what cannot be written is counted on stderr\n"
    "  --max-events N  the most events written (default 1000000); a larger\n"
    "             trace is refused (exit 2) unless --sample is given\n"
    "  --sample   keep one event in k (in each rank's program order), k the\n"
    "             smallest that fits in --max-events\n"
    "On a terminal, progress (events done, rate, time left) is shown on\n"
    "standard error. OUT is written under a temporary name and renamed when\n"
    "complete; with -o -, or without -o when standard output is not a\n"
    "terminal, to standard output (without -o on a terminal: refused, exit 2).\n";

static const char *const COMMANDS[] = {"dump", "diff", "merge", "stats", "findings", "report", "export", "help"};

static const char *help_of(const char *cmd)
{
    return strcmp(cmd, "dump") == 0     ? DUMP_HELP
           : strcmp(cmd, "diff") == 0   ? DIFF_HELP
           : strcmp(cmd, "merge") == 0  ? MERGE_HELP
           : strcmp(cmd, "stats") == 0  ? STATS_HELP
           : strcmp(cmd, "findings") == 0 ? FINDINGS_HELP
           : strcmp(cmd, "report") == 0 ? REPORT_HELP
           : strcmp(cmd, "export") == 0 ? EXPORT_HELP
                                        : USAGE;
}

/* Edit distance between a and b (insertions, deletions, substitutions),
 * for words of up to 31 characters; longer ones are far from everything. */
static unsigned distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    unsigned row[32];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The closest of a candidate word to s so far, in *best (distance in *d). */
static void consider(const char *s, const char *word, size_t n, char *best, size_t cap, unsigned *d)
{
    char w[32];
    if (n >= sizeof w || n >= cap)
        return;
    memcpy(w, word, n);
    w[n] = 0;
    unsigned k = distance(s, w);
    if (k < *d) {
        *d = k;
        memcpy(best, w, n + 1);
    }
}

/* The option of cmd's help text ("--word") nearest to opt, in best; 0 when
 * none is within 2 edits (or a third of the word). */
static int nearest_option(const char *cmd, const char *opt, char *best, size_t cap)
{
    unsigned d = 99;
    for (const char *p = strstr(help_of(cmd), "--"); p; p = strstr(p + 2, "--")) {
        size_t n = 2;
        while (p[n] == '-' || (p[n] >= 'a' && p[n] <= 'z'))
            n++;
        if (n > 2)
            consider(opt, p, n, best, cap, &d);
    }
    return d <= 2 || d * 3 <= strlen(opt);
}

/* Whether all that was written to stdout reached it. A write that failed
 * midway (a full disk: stdout > /dev/full) empties stdio's buffer, so the
 * last fflush alone can succeed after it: the stream's error flag says. */
static int stdout_written(void)
{
    return fflush(stdout) == 0 && !ferror(stdout);
}

/* The exit status of a command that wrote its answer to stdout: 2 when it
 * failed (rc not 0, said) or stdout could not be written (said here), else 0. */
static int stdout_status(int rc)
{
    if (!stdout_written() && rc == 0) {
        fprintf(stderr, "siot: write error\n");
        return 2;
    }
    return rc ? 2 : 0;
}

/* A help text (or the version) on stdout, with stdout_status's exit status. */
static int put_help(const char *text)
{
    fputs(text, stdout);
    return stdout_status(0);
}

static int usage_error(const char *msg)
{
    fprintf(stderr, "siot: %s (try 'siot help')\n", msg);
    return 2;
}

/* An option the command does not know (with the nearest one it does), or
 * one given without its value. */
static int bad_option(const char *cmd, const char *opt)
{
    char near[32];
    if (nearest_option(cmd, opt, near, sizeof near) && strcmp(near, opt) == 0)
        fprintf(stderr, "siot: %s: option '%s' needs a value (try 'siot help %s')\n", cmd, opt, cmd);
    else if (nearest_option(cmd, opt, near, sizeof near))
        fprintf(stderr, "siot: %s: unknown option '%s': did you mean '%s'? (try 'siot help %s')\n", cmd, opt, near,
                cmd);
    else
        fprintf(stderr, "siot: %s: unknown option '%s' (try 'siot help %s')\n", cmd, opt, cmd);
    return 2;
}

/* The end of a command's option loop: an option it does not know, or its
 * one trace file (a second one is refused). 2 after saying what is wrong. */
static int take_operand(const char *cmd, const char *arg, const char **path)
{
    if (arg[0] == '-' && arg[1])
        return bad_option(cmd, arg);
    if (*path) {
        char msg[64];
        snprintf(msg, sizeof msg, "%s: one trace file at a time", cmd);
        return usage_error(msg);
    }
    *path = arg;
    return 0;
}

static int unknown_command(const char *cmd)
{
    char near[32] = "";
    unsigned d = 99;
    for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++)
        consider(cmd, COMMANDS[i], strlen(COMMANDS[i]), near, sizeof near, &d);
    if (d <= 2)
        fprintf(stderr, "siot: unknown command '%s': did you mean '%s'? (try 'siot help')\n", cmd, near);
    else
        fprintf(stderr, "siot: unknown command '%s' (try 'siot help')\n", cmd);
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

/* The command's trace file read: 2 after saying why not (none given, or
 * one that cannot be read). */
static int load_operand(const char *cmd, const char *path, siot_trace *t)
{
    if (!path) {
        char msg[64];
        snprintf(msg, sizeof msg, "%s: missing trace file", cmd);
        return usage_error(msg);
    }
    return load(path, t) != 0 ? 2 : 0;
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
    int jsonl = 0, raw = 0, sizes = 0;
    const char *path = NULL;
    if (wants_help(argc, argv)) {
        return put_help(DUMP_HELP);
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--jsonl") == 0)
            jsonl = 1;
        else if (strcmp(argv[i], "--raw") == 0)
            raw = 1;
        else if (strcmp(argv[i], "--sizes") == 0)
            sizes = 1;
        else if (take_operand("dump", argv[i], &path))
            return 2;
    }
    siot_trace t;
    if (load_operand("dump", path, &t))
        return 2;
    char err[256];
    struct stat st;
    int rc = sizes   ? siot_dump_sizes(&t, path, stat(path, &st) == 0 ? (uint64_t)st.st_size : 0, stdout)
             : jsonl ? siot_dump_jsonl(&t, stdout, err, sizeof err)
                     : siot_dump_human(&t, path, stdout, raw);
    if (rc != 0)
        fprintf(stderr, "siot: %s: %s\n", path, jsonl ? err : "write error or out of memory");
    siot_trace_free(&t);
    return stdout_status(rc);
}

static int cmd_diff(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        return put_help(DIFF_HELP);
    }
    siot_diff_filter flt = {0};
    const char *files[2];
    int nf = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--outermost") == 0) {
            flt.outermost = 1;
        } else if (strcmp(argv[i], "--sandbox-paths") == 0) {
            flt.sandbox_paths = 1;
        } else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                int l = siot_layer_from_name(tok);
                if (l < 0)
                    return usage_error("diff: unknown layer in --layers");
                flt.layers |= 1u << l;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad_option("diff", argv[i]);
        } else if (nf < 2) {
            files[nf++] = argv[i];
        } else {
            return usage_error("diff: needs two trace files");
        }
    }
    if (nf != 2)
        return usage_error("diff: needs two trace files");
    siot_trace a, b;
    if (load(files[0], &a) != 0)
        return 2;
    if (load(files[1], &b) != 0) {
        siot_trace_free(&a);
        return 2;
    }
    char err[256];
    int rc = siot_diff(&a, &b, &flt, stdout, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "siot: diff: %s\n", err);
    siot_trace_free(&a);
    siot_trace_free(&b);
    if (rc >= 0 && !stdout_written()) { /* a difference it could not show is no answer */
        fprintf(stderr, "siot: diff: write error\n");
        return 2;
    }
    return rc < 0 ? 2 : rc;
}

static int cmd_findings(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        return put_help(FINDINGS_HELP);
    }
    int json = 0;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (take_operand("findings", argv[i], &path))
            return 2;
    }
    siot_trace t;
    if (load_operand("findings", path, &t))
        return 2;
    char err[256];
    int rc = siot_findings(&t, path, json, stdout, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "siot: findings: %s: %s\n", path, err);
    siot_trace_free(&t);
    return stdout_status(rc);
}

static int cmd_stats(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        return put_help(STATS_HELP);
    }
    int format = 0, access = 0;
    const char *path = NULL, *plugin = NULL;
    char **pargs = calloc((size_t)argc + 2, sizeof *pargs);
    int npargs = 0;
    if (!pargs)
        return 2;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            format = 1;
        else if (strcmp(argv[i], "--csv") == 0)
            format = 2;
        else if (strcmp(argv[i], "--access") == 0)
            access = SIOT_STATS_ACCESS;
        else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc)
            plugin = argv[++i];
        else if (strcmp(argv[i], "--plugin-arg") == 0 && i + 1 < argc)
            pargs[npargs++] = argv[++i];
        else if (take_operand("stats", argv[i], &path)) {
            free(pargs);
            return 2;
        }
    }
    siot_trace t;
    if (load_operand("stats", path, &t)) {
        free(pargs);
        return 2;
    }
    char err[256];
    int rc = 0;
    if (plugin) {
        void *lib = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
        siot_plugin_fn init = lib ? (siot_plugin_fn)dlsym(lib, SIOT_PLUGIN_SYMBOL) : NULL;
        siot_handlers h;
        memset(&h, 0, sizeof h);
        if (!lib) {
            fprintf(stderr, "siot: stats: cannot load plug-in: %s\n", dlerror());
            rc = 2;
        } else if (!init) {
            fprintf(stderr, "siot: stats: %s has no function %s\n", plugin, SIOT_PLUGIN_SYMBOL);
            rc = 2;
        } else if (init(&h, npargs, pargs) != 0) {
            fprintf(stderr, "siot: stats: the plug-in %s refused its arguments\n", plugin);
            rc = 2;
        } else if (siot_analyze(&t, &h, err, sizeof err) != 0) {
            fprintf(stderr, "siot: stats: %s: %s\n", path, err);
            rc = 2;
        }
    } else if (access && format != 1) {
        fprintf(stderr, "siot: stats: --access goes with --json\n");
        rc = 2;
    } else if (siot_stats(&t, path, format | access, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "siot: stats: %s: %s\n", path, err);
        rc = 2;
    }
    siot_trace_free(&t);
    free(pargs);
    return stdout_status(rc);
}

/* The ranks a trace holds, as a bitmap over [0, nranks). */
static int ranks_of(const siot_trace *t, uint8_t *seen)
{
    for (uint32_t i = 0; i < t->ntop; i++) {
        const siot_ranklist *rl = &t->top[i]->ranks;
        for (uint64_t k = 0; k < siot_rl_size(rl); k++) {
            int32_t r = siot_rl_nth(rl, k);
            if (r >= 0 && (uint32_t)r < t->nranks)
                seen[r] = 1;
        }
    }
    return 0;
}

/* The merged trace on standard output (-o -): 0, or -1 (said). */
static int write_stdout(const siot_vbuf *b)
{
    if (fwrite(b->data, 1, b->len, stdout) != b->len || fflush(stdout) != 0) {
        fprintf(stderr, "siot: merge: write error on standard output: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

static int write_file(const siot_trace *t, const char *path)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int rc = -1;
    FILE *f = NULL;
    const char *pack = getenv("SIOT_PACK");
    if (siot_trace_encode_file(t, !(pack && strcmp(pack, "0") == 0), &b) != 0) {
        fprintf(stderr, "siot: merge: out of memory\n");
        goto out;
    }
    if (strcmp(path, "-") == 0) {
        rc = write_stdout(&b);
        goto out;
    }
    if (!(f = fopen(tmp, "wb")) || fwrite(b.data, 1, b.len, f) != b.len || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fprintf(stderr, "siot: merge: cannot write %s: %s\n", tmp, strerror(errno));
        goto out;
    }
    if (fclose(f) != 0) {
        f = NULL;
        fprintf(stderr, "siot: merge: cannot write %s: %s\n", tmp, strerror(errno));
        goto out;
    }
    f = NULL;
    if (rename(tmp, path) != 0) {
        fprintf(stderr, "siot: merge: cannot rename %s to %s: %s\n", tmp, path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (f)
        fclose(f);
    if (rc)
        unlink(tmp);
    siot_vbuf_free(&b);
    return rc;
}

/* A part's rows are cut as the job's merge cuts them: past 2K ranks a
 * summary with the K fastest and slowest (K as the rank recorded it: the
 * note rank_times, else the default), so that a job joined from its parts
 * is the file its MPI_Finalize would have written. */
static void part_keep(siot_trace *t)
{
    if (t->rtsum || t->rt_keep)
        return;
    const char *v = siot_trace_get_kv(t, "rank_times");
    unsigned long k = v && strcmp(v, "all") != 0 ? strtoul(v, NULL, 10) : SIOT_RT_KEEP_DEFAULT;
    t->rt_keep = v && strcmp(v, "all") == 0 ? 0 : k >= 1 && k <= SIOT_RT_KEEP_MAX ? (uint32_t)k : SIOT_RT_KEEP_DEFAULT;
}

/* siot merge's command line: the inputs in their order, OUT, --window
 * and --concat. 0, or the exit status of a usage error (said). */
typedef struct merge_args {
    const char **in;
    int nin, concat;
    unsigned window;
    const char *out;
} merge_args;

static int merge_parse(int argc, char **argv, merge_args *a)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--concat") == 0) {
            a->concat = 1;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            a->out = argv[++i];
        } else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc) {
            a->window = (unsigned)strtoul(argv[++i], NULL, 10);
            if (a->window == 0 || a->window > 65536)
                return usage_error("merge: --window must be in 1..65536");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad_option("merge", argv[i]);
        } else {
            a->in[a->nin++] = argv[i];
        }
    }
    if (!a->out || a->nin == 0)
        return usage_error("merge: needs -o OUT and at least one input");
    return 0;
}

/* The inputs are parts of one job: the same number of ranks, no rank in
 * two of them. The ranks some part holds are marked in seen. 0, or -1
 * (said, or out of memory). */
static int merge_check_parts(const merge_args *a, const siot_trace *t, uint8_t *seen)
{
    for (int i = 1; i < a->nin; i++)
        if (t[i].nranks != t[0].nranks) {
            fprintf(stderr, "siot: merge: %s has %u ranks, %s has %u: not the same job\n", a->in[0], t[0].nranks,
                    a->in[i], t[i].nranks);
            return -1;
        }
    uint8_t *mine = calloc(t[0].nranks, 1);
    if (!mine)
        return -1;
    for (int i = 0; i < a->nin; i++) {
        memset(mine, 0, t[0].nranks);
        ranks_of(&t[i], mine);
        for (uint32_t r = 0; r < t[0].nranks; r++) {
            if (mine[r] && seen[r]) {
                fprintf(stderr, "siot: merge: rank %u is in two inputs (%s and an earlier one)\n", r, a->in[i]);
                free(mine);
                return -1;
            }
            seen[r] |= mine[r];
        }
    }
    free(mine);
    return 0;
}

/* Pairs, then pairs of pairs: the reduction tree of MPI_Finalize, into
 * t[0]. 0, or -1 (said). */
static int merge_reduce(const merge_args *a, siot_trace *t)
{
    for (int step = 1; step < a->nin; step <<= 1)
        for (int i = 0; i + step < a->nin; i += 2 * step) {
            int r = a->concat ? siot_trace_append(&t[i], &t[i + step])
                              : siot_trace_merge(&t[i], &t[i + step], a->window);
            t[i + step].arena.head = NULL;
            if (r != 0) {
                fprintf(stderr, "siot: merge: %s\n",
                        r == SIOT_E_CONFLICT ? "the inputs describe a function differently (traces of different "
                                               "siotrace versions?)"
                                             : "out of memory");
                return -1;
            }
        }
    return 0;
}

/* Parts of a job that ended abnormally: the merged trace says which ranks
 * are missing (no part held them) and why the parts ended. */
static void merge_note_partial(siot_trace *t, int nin, const uint8_t *seen)
{
    char note[1024] = "", missing[512] = "";
    size_t nl = 0, ml = 0;
    for (int i = 0; i < nin; i++) {
        const char *why = siot_trace_get_kv(&t[i], "partial");
        if (why && !strstr(note, why) && nl + strlen(why) + 3 < sizeof note)
            nl += (size_t)snprintf(note + nl, sizeof note - nl, "%s%s", nl ? "; " : "", why);
    }
    uint32_t nmissing = 0;
    for (uint32_t r = 0; r < t[0].nranks; r++)
        if (!seen[r]) {
            if (ml + 16 < sizeof missing)
                ml += (size_t)snprintf(missing + ml, sizeof missing - ml, "%s%u", ml ? "," : "", r);
            nmissing++;
        }
    if (nmissing) {
        if (ml + 16 >= sizeof missing)
            snprintf(missing + ml, sizeof missing - ml, ",...");
        siot_trace_set_kv(&t[0], "missing_ranks", missing);
        t[0].flags |= SIOT_TF_PARTIAL;
    }
    if (nl)
        siot_trace_set_kv(&t[0], "partial", note);
}

static int cmd_merge(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        return put_help(MERGE_HELP);
    }
    merge_args a = {.in = calloc((size_t)argc + 1, sizeof *a.in), .window = 256};
    if (!a.in)
        return 2;
    int rc = merge_parse(argc, argv, &a);
    if (rc != 0) {
        free(a.in);
        return rc;
    }
    siot_trace *t = calloc((size_t)a.nin, sizeof *t);
    uint8_t *seen = NULL;
    int loaded = 0;
    rc = 2;
    if (!t)
        goto done;
    for (; loaded < a.nin; loaded++)
        if (load(a.in[loaded], &t[loaded]) != 0)
            goto done;
    if (!(seen = calloc(t[0].nranks, 1)) || merge_check_parts(&a, t, seen) != 0)
        goto done;
    for (int i = 0; i < a.nin; i++)
        part_keep(&t[i]);
    if (merge_reduce(&a, t) != 0)
        goto done;
    merge_note_partial(t, a.nin, seen);
    if (!a.concat && (t[0].flags & SIOT_TF_COMPRESSED))
        siot_rank_periodic(&t[0]); /* rank 0's last pass at MPI_Finalize */
    siot_timefold(&t[0]); /* as at MPI_Finalize: none without a tolerance */
    rc = write_file(&t[0], a.out) == 0 ? 0 : 2;
done:
    for (int i = 0; i < loaded; i++)
        siot_trace_free(&t[i]);
    free(t);
    free(seen);
    free(a.in);
    return rc;
}

/* Output to a temporary file beside OUT, renamed when complete: a
 * failure never leaves half a file under the name asked for. */
typedef struct outfile {
    FILE *fp;
    const char *path;
    char tmp[4200];
} outfile;

static int out_open(outfile *of, const char *path)
{
    of->path = path;
    of->tmp[0] = 0;
    if (!path || strcmp(path, "-") == 0) {
        of->fp = stdout;
        return 0;
    }
    if ((size_t)snprintf(of->tmp, sizeof of->tmp, "%s.tmp-%ld", path, (long)getpid()) >= sizeof of->tmp) {
        fprintf(stderr, "siot: %s: name too long\n", path);
        return -1;
    }
    of->fp = fopen(of->tmp, "w");
    if (!of->fp) {
        fprintf(stderr, "siot: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int out_close(outfile *of, int ok)
{
    if (of->fp == stdout)
        return stdout_written() && ok ? 0 : -1;
    int rc = fclose(of->fp) == 0 && ok ? 0 : -1;
    if (rc == 0 && rename(of->tmp, of->path) != 0) {
        fprintf(stderr, "siot: %s: %s\n", of->path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(of->tmp);
    return rc;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *v = x;
    return 0;
}

/* Loads the trace at path, runs fn with its output going to out (see
 * out_open), and reports a failure as "siot: CMD: PATH: reason". */
typedef int (*output_fn)(const siot_trace *t, const char *path, void *opts, FILE *fp, uint64_t *count, char *err,
                         size_t errlen);

static int run_to_output(const char *cmd, const char *path, const char *out, output_fn fn, void *opts,
                         uint64_t *count)
{
    /* A page of HTML or a million events is not for a terminal: -o - insists. */
    if (!out && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "siot: %s: not writing to a terminal: give -o FILE (or -o - to insist)\n", cmd);
        return 2;
    }
    siot_trace t;
    if (load(path, &t) != 0)
        return 2;
    outfile of;
    if (out_open(&of, out) != 0) {
        siot_trace_free(&t);
        return 2;
    }
    char err[512];
    uint64_t dummy;
    int rc = fn(&t, path, opts, of.fp, count ? count : &dummy, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "siot: %s: %s: %s\n", cmd, path, err);
    siot_trace_free(&t);
    if (out_close(&of, rc == 0) != 0) {
        if (rc == 0)
            fprintf(stderr, "siot: %s: write error\n", cmd);
        return 2;
    }
    return 0;
}

static int report_fn(const siot_trace *t, const char *path, void *opts, FILE *fp, uint64_t *count, char *err,
                     size_t errlen)
{
    (void)count;
    return siot_report(t, path, opts, fp, err, errlen);
}

static int export_fn(const siot_trace *t, const char *path, void *opts, FILE *fp, uint64_t *count, char *err,
                     size_t errlen)
{
    (void)path;
    return siot_export(t, opts, fp, count, err, errlen);
}

static int cmd_report(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        return put_help(REPORT_HELP);
    }
    const char *path = NULL, *out = NULL;
    siot_report_opts o = {32, 200000, 0};
    for (int i = 0; i < argc; i++) {
        uint64_t v;
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
            if (parse_u64(argv[++i], &v) != 0 || v < 1 || v > 4096)
                return usage_error("report: --ranks must be in 1..4096");
            o.timeline_ranks = (uint32_t)v;
        } else if (strcmp(argv[i], "--events") == 0 && i + 1 < argc) {
            if (parse_u64(argv[++i], &v) != 0 || v < 1)
                return usage_error("report: --events must be a positive number");
            o.timeline_events = v;
        } else if (strcmp(argv[i], "--walk-events") == 0 && i + 1 < argc) {
            if (parse_u64(argv[++i], &v) != 0 || v < 1)
                return usage_error("report: --walk-events must be a positive number");
            o.walk_events = v;
        } else if (take_operand("report", argv[i], &path))
            return 2;
    }
    if (!path)
        return usage_error("report: missing trace file");
    return run_to_output("report", path, out, report_fn, &o, NULL);
}

/* --otf2 DIR: an archive (a directory), not one output stream. */
static int export_otf2(const char *path, const char *dir, const char *out, siot_export_opts *o)
{
    if (out)
        return usage_error("export: --otf2 names its directory: no -o");
    if (o->sample)
        return usage_error("export: --otf2 keeps every event (a call without its children would not nest): no --sample");
    siot_trace t;
    if (load(path, &t) != 0)
        return 2;
    char err[512];
    uint64_t written = 0;
    int rc = siot_export_otf2(&t, o, dir, &written, err, sizeof err);
    siot_trace_free(&t);
    if (rc != 0) {
        fprintf(stderr, "siot: export: %s: %s\n", path, err);
        return 2;
    }
    fprintf(stderr, "siot: export: %" PRIu64 " events written to %s/traces.otf2\n", written, dir);
    if (o->note[0])
        fprintf(stderr, "siot: export: %s\n", o->note);
    return 0;
}

static int cmd_export(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        return put_help(EXPORT_HELP);
    }
    const char *path = NULL, *out = NULL, *dir = NULL;
    siot_export_opts o = {0, 1000000, 0, -1, ""};
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--chrome") == 0)
            o.format = SIOT_EXPORT_CHROME;
        else if (strcmp(argv[i], "--otf2") == 0 && i + 1 < argc) {
            o.format = SIOT_EXPORT_OTF2;
            dir = argv[++i];
        }
        else if (strcmp(argv[i], "--csv") == 0)
            o.format = SIOT_EXPORT_CSV;
        else if (strcmp(argv[i], "--sample") == 0)
            o.sample = 1;
        else if (strcmp(argv[i], "--max-events") == 0 && i + 1 < argc) {
            if (parse_u64(argv[++i], &o.max_events) != 0 || o.max_events == 0)
                return usage_error("export: --max-events must be a positive number");
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (take_operand("export", argv[i], &path))
            return 2;
    }
    if (!o.format)
        return usage_error("export: say --chrome, --csv or --otf2 DIR");
    if (!path)
        return usage_error("export: missing trace file");
    if (dir)
        return export_otf2(path, dir, out, &o);
    uint64_t written = 0;
    int rc = run_to_output("export", path, out, export_fn, &o, &written);
    if (rc == 0 && out && strcmp(out, "-") != 0)
        fprintf(stderr, "siot: export: %" PRIu64 " events written to %s\n", written, out);
    if (rc == 0 && o.note[0])
        fprintf(stderr, "siot: export: %s\n", o.note);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0) {
        return put_help("siot " SIOT_VERSION "\n");
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        return put_help(help_of(argc > 2 ? argv[2] : ""));
    }
    if (strcmp(cmd, "dump") == 0)
        return cmd_dump(argc - 2, argv + 2);
    if (strcmp(cmd, "diff") == 0)
        return cmd_diff(argc - 2, argv + 2);
    if (strcmp(cmd, "merge") == 0)
        return cmd_merge(argc - 2, argv + 2);
    if (strcmp(cmd, "stats") == 0)
        return cmd_stats(argc - 2, argv + 2);
    if (strcmp(cmd, "findings") == 0)
        return cmd_findings(argc - 2, argv + 2);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 2, argv + 2);
    if (strcmp(cmd, "export") == 0)
        return cmd_export(argc - 2, argv + 2);
    return unknown_command(cmd);
}
