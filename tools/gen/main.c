/* siot-gen: see gen.h. */
#include <string.h>

#include "tools/gen/gen.h"

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--roles") == 0) {
        roles_doc(stdout);
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: siot-gen OUTDIR SPEC...\n       siot-gen --roles\n       siot-gen --list|--table SPEC...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++)
        read_spec(argv[i]);
    if (strcmp(argv[1], "--table") == 0) {
        emit_coverage_table(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--list") == 0) {
        /* the traced functions, one "LAYER NAME [CONDITION]" per line (the coverage test, docs/recording.md's table) */
        for (int i = 0; i < NF; i++)
            printf("%s %s%s%s\n", siot_layer_name((unsigned)F[i].layer), F[i].name, F[i].cond[0] ? " " : "", F[i].cond);
        return 0;
    }
    for (int i = 0; i < NF; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(F[i].name, F[j].name) == 0)
                die(F[i].file, F[i].line, "%s is already specified at %s:%d", F[i].name, F[j].file, F[j].line);
    emit_functab(argv[1]);
    int present[SIOT_NLAYERS] = {0};
    for (int i = 0; i < NF; i++)
        present[F[i].layer] = 1;
    for (int l = 0; l < SIOT_NLAYERS; l++)
        if (present[l])
            emit_layer_file(argv[1], l);
    emit_replay_file(argv[1]);
    emit_fortran_file(argv[1]);
    return 0;
}
