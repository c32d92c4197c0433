/* format: the .siot file, version 1 (docs/format.md).
 *
 *   magic "\x89SIOT\r\n\x1a", u16 major, u16 minor,
 *   sections: u8 tag, varint length, payload, u32 CRC-32 of tag and payload,
 *   HEADER, then one or more blocks (FUNCS, SITES, NODES, NODES...), then END
 *   (which holds the number of sections before it). A file has one block
 *   unless a rank spilled (SIOT_MAX_MEMORY): then each rank's is a block.
 *
 * The decoder treats its input as hostile: every length, count, index, nesting
 * depth and rank is checked against hard limits and against what is left of
 * the input, and any violation is reported as one line of text.
 *
 * Written and read by parts, each with the writer beside the reader of
 * one thing (core/format_int.h lists them): core/format_file.c (the file,
 * its frame and tables), core/format_event.c (events and loops),
 * core/format_expr.c (values), core/format_hist.c (histograms),
 * core/format_ranks.c (rank lists and tables), core/format_ranktimes.c
 * (the ranks' times) and core/format_trace.c (the trace in memory). A
 * section's frame is core/section.h's, the packed form core/pack.h's.
 *
 * Locks: none of its own. The runtime encodes under the recorder lock (a
 * checkpoint) or once recording stopped; encoding allocates through
 * salloc.h only, so a partial trace can be encoded in a signal handler.
 *
 * Errors: encoders return 0, or -1 when memory ran out. siot_trace_decode
 * and siot_trace_load return -1 with a one-line reason in err and t freed
 * (load leaves t untouched, uninitialised, when the file cannot be opened or
 * read) and may change errno. siot_trace_append: 0, -1 or SIOT_E_CONFLICT,
 * src freed always, dst unchanged on failure. siot_trace_set_kv: -1 without
 * memory, though a new note whose key or value copy fails is kept as NULL
 * and returns 0. */
#ifndef SIOT_FORMAT_H
#define SIOT_FORMAT_H

#include "core/model.h"
#include "core/section.h"

#define SIOT_FORMAT_MAJOR 1
#define SIOT_FORMAT_MINOR 10
#define SIOT_MAX_RANKS (1u << 24)
#define SIOT_MAX_FUNCS 65536u
#define SIOT_MAX_EXPR_DEPTH 80u /* run tables nest once per loop level (64) */
#define SIOT_MAX_STRING (16u << 20)

void siot_trace_init(siot_trace *t);
void siot_trace_free(siot_trace *t);

/* Serialises t. Only the functions that nodes use are written. Files store
 * histogram bins as fractions of the count (SIOT_TF_QBINS), so that their
 * size does not grow with the iteration count; exact bins are kept for the
 * transfers between ranks. */
int siot_trace_encode(const siot_trace *t, siot_vbuf *out);
int siot_trace_encode_exact(const siot_trace *t, siot_vbuf *out);
/* The file form, packed (core/pack.h) when pack is not 0: a file as written
 * for users. Packing that fails for want of memory leaves it unpacked, a
 * file as valid. 0, or -1 without memory. */
int siot_trace_encode_file(const siot_trace *t, int pack, siot_vbuf *out);

/* Sizes in the file form (siot dump --sizes), measured by encoding into
 * scratch: an expression, a histogram, a node's own bytes (a loop: its
 * count and body list; nranks: the trace's, for the rank list), and the sections of t written as one block: magic
 * and version, HEADER, FUNCS, SITES, RANKTIMES, NODES, END (-1 without
 * memory). */
size_t siot_expr_size(const siot_expr *x, siot_vbuf *scratch);
/* expect: the count an event's histogram is written against (minor 8:
 * siot_hist_expect for the computation, its count for the duration), or
 * SIOT_HIST_NO_EXPECT for the count itself. */
#define SIOT_HIST_NO_EXPECT UINT64_MAX
size_t siot_hist_size(const siot_hist *h, uint64_t expect, siot_vbuf *scratch);
/* The iterations of a loop's body: outer times its count when constant
 * (iters 0 is 1); an event's expected samples: its ranks times those. */
uint64_t siot_loop_iters(uint64_t outer, const siot_expr *count);
uint64_t siot_hist_expect(const siot_ranklist *rl, uint64_t iters);
/* The bytes of a histogram's mean and M2 in the file form: exact integers
 * while they take at most 3 bytes each, else 3-byte floats (docs/format.md,
 * minors 1 and 2), so at most 6; 0 below 2 samples. */
size_t siot_hist_moments_size(const siot_hist *h);
/* A histogram's file-form bytes by part: [0] count, [1] min and max,
 * [2] the maximum's rank and occurrence, [3] mean and M2, [4] the bin mask
 * and bins; their sum is siot_hist_size's. */
#define SIOT_HIST_PARTS 5
void siot_hist_parts(const siot_hist *h, uint64_t expect, siot_vbuf *scratch, uint64_t part[SIOT_HIST_PARTS]);
/* iters: the iterations around n (siot_loop_iters), for its counts */
size_t siot_node_own_size(const siot_node *n, uint32_t nranks, uint64_t iters, siot_vbuf *scratch);
#define SIOT_NSECTION_SIZES 7
int siot_section_sizes(const siot_trace *t, uint64_t out[SIOT_NSECTION_SIZES]);
/* Writing a file piece by piece (a rank that spilled part of its trace to
 * disk, SIOT_MAX_MEMORY): start (magic and header), then one block per rank
 * or part: its tables (FUNCS, SITES, RANKTIMES) and one or more NODES sections, then the
 * end marker with the number of sections before it. A block's function ids
 * come from an siot_fmap that numbers functions as NODES sections first use
 * them, so the tables can follow the sections they describe. */
typedef struct siot_fmap {
    uint32_t nfuncs, n;
    uint32_t *id;    /* id[func] = compact id + 1, 0 when unused */
    uint32_t *order; /* order[compact id] = func */
} siot_fmap;
int siot_fmap_init(siot_fmap *m, uint32_t nfuncs);
void siot_fmap_free(siot_fmap *m);
int siot_file_start(const siot_trace *t, siot_vbuf *out);
int siot_nodes_section(siot_node *const *nodes, uint32_t n, siot_fmap *m, siot_vbuf *out);
/* A block's tables: FUNCS, SITES and RANKTIMES (SIOT_BLOCK_TABLE_SECTIONS). */
#define SIOT_BLOCK_TABLE_SECTIONS 3
/* ... and RANKSUM when the block's ranks are summarised, from minor 9 in
 * place of an empty RANKTIMES: how many. */
unsigned siot_block_table_sections(const siot_trace *t);
int siot_block_tables(const siot_trace *t, const siot_fmap *m, siot_vbuf *out);
int siot_file_end(uint32_t nsec, siot_vbuf *out);

/* A section's frame: siot_put_section, siot_rd_section (core/section.h). */

/* Parses p[0..n) into t (initialised here), unpacking a packed file first
 * (t->unpacked_bytes its size unpacked). On failure returns -1, leaves a
 * one-line reason in err and t freed. */
int siot_trace_decode(const void *p, size_t n, siot_trace *t, char *err, size_t errlen);
/* (siot_format_verify_crc, core/section.h: checksums verified unless 0) */
/* Reads and decodes a file. */
int siot_trace_load(const char *path, siot_trace *t, char *err, size_t errlen);

/* Appends src's nodes after dst's, taking over src's memory (src is left
 * empty, also on failure). Function and call-site tables are united and indices remapped.
 * The rank lists are kept as they are. Returns 0, -1 when out of memory, or
 * SIOT_E_CONFLICT when the two traces describe one function differently. */
int siot_trace_append(siot_trace *dst, siot_trace *src);
/* dst's per-rank times united with src's (rows kept sorted; a rank on both
 * sides keeps dst's row; past 2·rt_keep ranks a summary without rows,
 * core/ranksum.h);
 * -1 without memory, dst unchanged. */
int siot_rt_union(siot_trace *dst, const siot_trace *src);
/* Sorts t's rows by rank; -1 when a rank has two. */
int siot_rt_settle(siot_trace *t);
#define SIOT_E_CONFLICT (-2)

/* Table union shared by append and merge. funcs[0..*n) has room for nsrc
 * more; src function i ends up at funcs[map[i]]. Functions are united by name,
 * and a name described differently (layer, class, arguments) on the two sides
 * is refused with SIOT_E_CONFLICT: events of one side would be read with the
 * other's argument list. */
int siot_unite_funcs(siot_funcdesc *funcs, uint32_t *n, const siot_funcdesc *src, uint32_t nsrc, uint32_t *map);
/* Same for module paths (equal strings are one module). */
void siot_unite_names(const char **names, uint32_t *n, const char *const *src, uint32_t nsrc, uint32_t *map);
/* Renumbers node ids and recomputes nnodes and max_depth. */
void siot_trace_index(siot_trace *t);
/* Sets or replaces a header note. */
int siot_trace_set_kv(siot_trace *t, const char *key, const char *val);
const char *siot_trace_get_kv(const siot_trace *t, const char *key);

#endif
