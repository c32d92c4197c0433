/* inputs: what a simulation's start and first output look like. Every rank
 * reads an input deck to its end with fgets (a file it did not make), then
 * again word by word with fscanf (the count checked against the words of
 * the lines fgets read; exit 9 if not), writes
 * a small per-rank log at an absolute path, and the ranks write a shared
 * file collectively through a derived-datatype view: rank r's NB blocks of B
 * ints at (k*P + r)*B ints, k = 0..NB-1 (MPI_Type_vector as the filetype).
 * Rank 0 also lists a directory it made (NFILES files) to its end with
 * readdir, errno set to ERRNO_MARK before: at the end readdir returns NULL
 * and leaves errno alone (checked; exit 6 if not). It makes that directory
 * and its files through doubled slashes ("ABSDIR//listed//f0", as codes
 * that join paths with "/" do), lists it and appends to f0 through single
 * ones: one directory and one file under two spellings. And, as mdtest
 * does, it makes a directory by its absolute name inside the working
 * directory, with a trailing slash ("CWD/made/"), and asks statvfs of the
 * working directory itself (exit 10 if either fails). Then, as a checker does,
 * each rank asks for the view (MPI_File_get_view: displacement and data
 * representation checked, exit 7) and the file's group back, and reads its
 * first block with a nonblocking MPI-IO read completed by MPI_Wait (checked,
 * exit 8): objects made by MPI-IO calls, used by MPI calls.
 *
 * usage: inputs DECK ABSDIR   (ABSDIR: an absolute directory for the outputs) */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define B 64  /* ints per block */
#define NB 3  /* blocks per rank */
#define NFILES 2
#define ERRNO_MARK 1234

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || argv[2][0] != '/') {
        if (rank == 0)
            fprintf(stderr, "usage: inputs DECK ABSDIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* the deck, read line by line to its end */
    FILE *deck = fopen(argv[1], "r");
    if (!deck)
        MPI_Abort(MPI_COMM_WORLD, 3);
    char line[256];
    long lines = 0, bytes = 0, words = 0;
    while (fgets(line, sizeof line, deck)) {
        lines++;
        bytes += (long)strlen(line);
        for (char *save = NULL, *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
            words++;
    }
    rewind(deck);
    char word[256];
    long scanned = 0;
    while (fscanf(deck, "%255s", word) == 1)
        scanned++;
    if (scanned != words)
        MPI_Abort(MPI_COMM_WORLD, 9);
    fclose(deck);
    /* a per-rank log at an absolute path */
    char path[4096];
    snprintf(path, sizeof path, "%s/log-%d.txt", argv[2], rank);
    FILE *log = fopen(path, "w");
    if (!log)
        MPI_Abort(MPI_COMM_WORLD, 4);
    fprintf(log, "rank %d read %ld lines, %ld bytes\n", rank, lines, bytes);
    fclose(log);
    if (rank == 0) { /* a directory listed to its end */
        snprintf(path, sizeof path, "%s//listed", argv[2]);
        mkdir(path, 0755);
        for (int i = 0; i < NFILES; i++) {
            char f[4200];
            snprintf(f, sizeof f, "%s//f%d", path, i);
            close(open(f, O_CREAT | O_WRONLY, 0644));
        }
        snprintf(path, sizeof path, "%s/listed", argv[2]);
        DIR *d = opendir(path);
        if (!d)
            MPI_Abort(MPI_COMM_WORLD, 6);
        errno = ERRNO_MARK;
        while (readdir(d))
            ;
        if (errno != ERRNO_MARK)
            MPI_Abort(MPI_COMM_WORLD, 6);
        closedir(d);
        char f[4200];
        snprintf(f, sizeof f, "%s/f0", path);
        int fd = open(f, O_WRONLY | O_APPEND);
        if (fd < 0 || write(fd, "appended\n", 9) != 9 || close(fd) != 0)
            MPI_Abort(MPI_COMM_WORLD, 6);
        char cwd[4096];
        struct statvfs sv;
        if (!getcwd(cwd, sizeof cwd))
            MPI_Abort(MPI_COMM_WORLD, 10);
        snprintf(f, sizeof f, "%s/made/", cwd);
        if (mkdir(f, 0755) != 0 || statvfs(cwd, &sv) != 0)
            MPI_Abort(MPI_COMM_WORLD, 10);
    }
    /* the shared file through a vector view, written collectively */
    int buf[NB * B];
    for (int i = 0; i < NB * B; i++)
        buf[i] = rank * 100000 + i + 1;
    MPI_Datatype ftype;
    MPI_Type_vector(NB, B, size * B, MPI_INT, &ftype);
    MPI_Type_commit(&ftype);
    snprintf(path, sizeof path, "%s/shared.dat", argv[2]);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 5);
    MPI_File_set_view(fh, (MPI_Offset)rank * B * (MPI_Offset)sizeof(int), MPI_INT, ftype, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, buf, NB * B, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Offset disp;
    MPI_Datatype etype, viewtype;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &etype, &viewtype, rep);
    if (disp != (MPI_Offset)rank * B * (MPI_Offset)sizeof(int) || strcmp(rep, "native") != 0)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Type_free(&viewtype); /* a derived filetype comes back as a new handle */
    MPI_Group group;
    MPI_File_get_group(fh, &group);
    MPI_Group_free(&group);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    int first[B];
    MPI_Request rq;
    MPI_File_iread_at(fh, 0, first, B, MPI_INT, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (first[0] != buf[0] || first[B - 1] != buf[B - 1])
        MPI_Abort(MPI_COMM_WORLD, 8);
    MPI_File_close(&fh);
    MPI_Type_free(&ftype);
    MPI_Finalize();
    return 0;
}
