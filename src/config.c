/* config: the SIOT_* environment (config.h). */
#include "src/config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ranksum.h"
#include "core/roles.h"

siot_config siot_cfg;

static uint32_t parse_layers(const char *s)
{
    if (!s || !*s || strcmp(s, "all") == 0)
        return (1u << SIOT_NLAYERS) - 1;
    uint32_t m = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int l = siot_layer_from_name(tok);
        if (l < 0)
            fprintf(stderr, "siotrace: SIOT_LAYERS: unknown layer '%s' ignored\n", tok);
        else
            m |= 1u << l;
    }
    return m;
}

static unsigned long env_uint(const char *name, unsigned long def, unsigned long lo, unsigned long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "siotrace: %s=%s is not a number in [%lu, %lu]; using %lu\n", name, v, lo, hi, def);
        return def;
    }
    return x;
}

/* SIOT_RANK_TIMES: 0 none, "all" every rank's row, N the N fastest and
 * slowest ranks of each quantity beside a summary (core/ranksum.h). */
static void rank_times(const char *v)
{
    siot_cfg.rank_times = 1;
    siot_cfg.rank_keep = SIOT_RT_KEEP_DEFAULT;
    if (!v || !*v)
        return;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (strcmp(v, "all") == 0)
        siot_cfg.rank_keep = 0;
    else if (strcmp(v, "0") == 0)
        siot_cfg.rank_times = 0;
    else if (*end || *v < '0' || *v > '9' || x < 1 || x > SIOT_RT_KEEP_MAX)
        fprintf(stderr, "siotrace: SIOT_RANK_TIMES=%s is neither 0, all nor a number of ranks in [1, %u]; using %u\n",
                v, SIOT_RT_KEEP_MAX, SIOT_RT_KEEP_DEFAULT);
    else
        siot_cfg.rank_keep = (uint32_t)x;
}

/* A byte count with an optional K, M or G suffix; 0 means no limit. */
static size_t parse_size(const char *v, size_t def)
{
    if (!v || !*v)
        return def;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1ull << 10;
    else if (*end == 'm' || *end == 'M')
        mul = 1ull << 20;
    else if (*end == 'g' || *end == 'G')
        mul = 1ull << 30;
    if (mul > 1)
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || end == v || (x && x > (unsigned long long)SIZE_MAX / mul) || (x && x * mul < (1u << 20))) {
        fprintf(stderr, "siotrace: SIOT_MAX_MEMORY=%s is not a size of at least 1M (like 512M or 2G); using %zuM\n", v,
                def >> 20);
        return def;
    }
    return (size_t)(x * mul);
}

/* The rank and size a launcher put in the environment under these names:
 * 1 when both are there and make sense (rank < size), else 0. Not the
 * tracer's own settings: nothing is said about odd values. */
static int launch_env(const char *rank_name, const char *size_name)
{
    const char *r = getenv(rank_name), *s = getenv(size_name);
    if (!r || !s || !*r || !*s)
        return 0;
    char *re, *se;
    unsigned long rank = strtoul(r, &re, 10), size = strtoul(s, &se, 10);
    if (*re || *se || size == 0 || rank >= size || size > INT32_MAX)
        return 0;
    siot_cfg.launch_rank = (int32_t)rank;
    siot_cfg.launch_size = (uint32_t)size;
    return 1;
}

/* SIOT_SIM_RANK and SIOT_SIM_SIZE, both or neither; a bad pair is said
 * and ignored (no simulation). */
static void sim_env(void)
{
    const char *r = getenv("SIOT_SIM_RANK"), *s = getenv("SIOT_SIM_SIZE");
    if ((!r || !*r) && (!s || !*s))
        return;
    char *re = NULL, *se = NULL;
    unsigned long rank = r ? strtoul(r, &re, 10) : 0, size = s ? strtoul(s, &se, 10) : 0;
    if (!r || !s || !*r || !*s || *re || *se || size == 0 || rank >= size || size > INT32_MAX) {
        fprintf(stderr, "siotrace: SIOT_SIM_RANK=%s SIOT_SIM_SIZE=%s is not a rank below a size; not simulating\n",
                r ? r : "(unset)", s ? s : "(unset)");
        return;
    }
    siot_cfg.sim_rank = (int32_t)rank;
    siot_cfg.sim_size = (uint32_t)size;
}

void siot_config_load(void)
{
    const char *v;
    siot_cfg.trace_path = getenv("SIOT_TRACE");
    if (siot_cfg.trace_path && !*siot_cfg.trace_path)
        siot_cfg.trace_path = NULL;
    v = getenv("SIOT_COMPRESS");
    siot_cfg.compress = !(v && strcmp(v, "0") == 0);
    v = getenv("SIOT_PACK");
    siot_cfg.pack = !(v && strcmp(v, "0") == 0);
    rank_times(getenv("SIOT_RANK_TIMES"));
    v = getenv("SIOT_VERBOSE");
    siot_cfg.verbose = v && *v && strcmp(v, "0") != 0;
    siot_cfg.layers = parse_layers(getenv("SIOT_LAYERS"));
    siot_cfg.window = (uint32_t)env_uint("SIOT_WINDOW", 256, 1, 65536);
    siot_cfg.stack_depth = (uint32_t)env_uint("SIOT_STACK_DEPTH", 8, 0, 64);
    v = getenv("SIOT_UNWIND");
    siot_cfg.unwind_always = v && strcmp(v, "always") == 0;
    if (v && *v && !siot_cfg.unwind_always && strcmp(v, "learned") != 0)
        fprintf(stderr, "siotrace: SIOT_UNWIND=%s is neither 'always' nor 'learned'; 'learned' kept\n", v);
    siot_cfg.rank_traces = getenv("SIOT_RANK_TRACES");
    if (siot_cfg.rank_traces && !*siot_cfg.rank_traces)
        siot_cfg.rank_traces = NULL;
    siot_cfg.max_memory = parse_size(getenv("SIOT_MAX_MEMORY"), (size_t)256 << 20);
    siot_cfg.spill_dir = getenv("SIOT_SPILL_DIR");
    if (!siot_cfg.spill_dir || !*siot_cfg.spill_dir)
        siot_cfg.spill_dir = getenv("TMPDIR");
    if (!siot_cfg.spill_dir || !*siot_cfg.spill_dir)
        siot_cfg.spill_dir = "/tmp";
    v = getenv("SIOT_CHECKPOINT");
    if (v && *v) {
        char *end;
        double sec = strtod(v, &end);
        if (*end || !(sec > 0 && sec <= 1e6))
            fprintf(stderr, "siotrace: SIOT_CHECKPOINT=%s is not a number of seconds in (0, 10^6]; no checkpoints\n", v);
        else
            siot_cfg.checkpoint_ns = (uint64_t)(sec * 1e9) ? (uint64_t)(sec * 1e9) : 1;
    }
    if (!launch_env("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"))
        launch_env("PMI_RANK", "PMI_SIZE");
    sim_env();
    v = getenv("SIOT_TOLERANCE");
    if (v && *v) {
        char *end;
        double t = strtod(v, &end);
        if (*end || !(t >= 0 && t <= 100))
            fprintf(stderr, "siotrace: SIOT_TOLERANCE=%s is not a percentage in [0, 100]; counts stay exact\n", v);
        else
            siot_cfg.tolerance = t;
    }
}
