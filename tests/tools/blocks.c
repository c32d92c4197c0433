/* blocks: writes traces of the same job as one file with a block each (the
 * form a job takes when its ranks spilled): a fuzzing seed, and a check that
 * readers join blocks as `siot merge --concat` joins files.
 *
 *   blocks OUT IN...        (the inputs' rank counts must agree) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: blocks OUT IN...\n");
        return 2;
    }
    int n = argc - 2;
    siot_trace *t = calloc((size_t)n, sizeof *t);
    char err[256];
    for (int i = 0; i < n; i++)
        if (siot_trace_load(argv[2 + i], &t[i], err, sizeof err) != 0) {
            fprintf(stderr, "blocks: %s: %s\n", argv[2 + i], err);
            return 2;
        }
    siot_vbuf b;
    siot_vbuf_init(&b);
    uint32_t nsec = 1;
    int rc = siot_file_start(&t[0], &b);
    for (int i = 0; i < n && rc == 0; i++) {
        if (t[i].nranks != t[0].nranks) {
            fprintf(stderr, "blocks: %s is of another job\n", argv[2 + i]);
            return 2;
        }
        siot_fmap m;
        siot_vbuf nodes;
        siot_vbuf_init(&nodes);
        rc = siot_fmap_init(&m, t[i].nfuncs);
        /* two NODES sections per block: the first half, then the rest */
        uint32_t h = t[i].ntop / 2;
        if (rc == 0)
            rc = siot_nodes_section(t[i].top, h, &m, &nodes) || siot_nodes_section(t[i].top + h, t[i].ntop - h, &m, &nodes) ||
                 siot_block_tables(&t[i], &m, &b);
        siot_vbuf_put(&b, nodes.data, nodes.len);
        nsec += siot_block_table_sections(&t[i]) + 2; /* the tables and two NODES sections */
        siot_vbuf_free(&nodes);
        siot_fmap_free(&m);
    }
    if (rc == 0)
        rc = siot_file_end(nsec, &b);
    FILE *f = fopen(argv[1], "wb");
    if (rc || !f || fwrite(b.data, 1, b.len, f) != b.len) {
        fprintf(stderr, "blocks: cannot write %s\n", argv[1]);
        return 2;
    }
    fclose(f);
    siot_vbuf_free(&b);
    for (int i = 0; i < n; i++)
        siot_trace_free(&t[i]);
    free(t);
    return 0;
}
