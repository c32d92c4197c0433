#!/bin/bash
# The PnetCDF families beyond put_vara (tests/progs/ncall.c): varn, mput/mget,
# bput with its attached buffer, varm, vard, the flexible put_att and the
# whole-variable put_var, iput_var and get_var (which crashed the traced
# program: an array of PnetCDF's NC_MAX_VAR_DIMS ints, 8 GiB, on the stack) are
# recorded once each with the bytes the program moves (computed here from
# its constants), their MPI-IO beneath them (the bput's under the wait that
# completes it); the file is the one the untraced program writes. PnetCDF
# exists for Open MPI only. The replay reissues the same MPI and MPI-IO
# calls (varn and mput make PnetCDF call MPI_Get_address, whose address is
# not recorded: it would differ in any replay). The create and open modes
# are named as the program passes them (NC_CLOBBER|NC_64BIT_DATA,
# NC_NOWRITE), not as open(2) flags.
. "$(dirname "$0")/../lib.sh"
need_pnetcdf
P=2
SRC=$ROOT/tests/progs/ncall.c
def() { c_define "$1" "$SRC"; }
NX=$(def NX) NATT=$(def NATT)
[ -n "$NX" ] && [ -n "$NATT" ] || fail "cannot read NX/NATT from ncall.c"
pnetcdf_pair $P ncall "$MPICC" "$SRC" -std=c11 -O1 -g
jsonl ncall.siot > n.jsonl
python3 - n.jsonl $P "$NX" "$NATT" <<'PY' || fail "the PnetCDF families"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
P, NX, NATT = map(int, sys.argv[2:])
B = NX * 4  # NX ints


def io_kids(e, op):
    return [c for c in ev if c["rank"] == e["rank"] and c["parent"] == e["seq"] and c["layer"] == "mpiio" and op in c["func"]]


# function: (bytes, MPI-IO child op or None, expected arguments)
want = {
    "ncmpi_put_varn_int_all": (B, "write", {"num": 2}),
    "ncmpi_mput_vara_int_all": (2 * B, "write", {"num": 2, "varids": [1, 2]}),
    "ncmpi_buffer_attach": (None, None, {"bufsize": B}),
    "ncmpi_bput_vara_int": (B, None, {"varid": 3, "count": [NX]}),
    "ncmpi_buffer_detach": (None, None, {}),
    "ncmpi_put_varm_int_all": (B, "write", {"varid": 4, "count": [NX], "stride": [1], "imap": [1]}),
    "ncmpi_put_vard_all": (B, "write", {"varid": 5, "bufcount": NX}),
    "ncmpi_put_att": (None, None, {"varid": -1, "name": "version", "xtype": 4, "nelems": NATT}),  # NC_INT = 4
    "ncmpi_get_varn_int_all": (B, "read", {"num": 2}),
    "ncmpi_mget_vara_int_all": (2 * B, "read", {"num": 2, "varids": [1, 2]}),
    "ncmpi_get_varm_int_all": (B, "read", {"varid": 4, "count": [NX]}),
    "ncmpi_get_vard_all": (B, "read", {"varid": 5, "bufcount": NX}),
    "ncmpi_put_var_int_all": (P * B, "write", {"varid": 6}),  # the whole variable: P*NX ints
    "ncmpi_iput_var_int": (P * B, None, {"varid": 7}),
    "ncmpi_get_var_int_all": (P * B, "read", {"varid": 6}),
}
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    for f, (nbytes, op, args) in want.items():
        calls = [e for e in mine if e["func"] == f]
        if len(calls) != 1:
            sys.exit("rank %d: %d %s calls, the program makes 1" % (r, len(calls), f))
        e = calls[0]
        if nbytes is not None and e["bytes"] != nbytes:
            sys.exit("rank %d: %s moved %s bytes, the program asks for %d" % (r, f, e["bytes"], nbytes))
        bad = {k: e["args"].get(k) for k, v in args.items() if e["args"].get(k) != v}
        if bad:
            sys.exit("rank %d: %s recorded %s, want %s" % (r, f, bad, args))
        if op and not io_kids(e, op):
            sys.exit("rank %d: %s has no MPI-IO %s child" % (r, f, op))
    bput = next(e for e in mine if e["func"] == "ncmpi_bput_vara_int")
    if bput["args"]["start"] != [r * NX]:
        sys.exit("rank %d: bput start %s" % (r, bput["args"]["start"]))
    wait = [e for e in mine if e["func"] == "ncmpi_wait_all" and e["seq"] > bput["seq"]]
    if not wait or wait[0]["args"]["array_of_requests"] != [bput["args"]["req"]] or not io_kids(wait[0], "write"):
        sys.exit("rank %d: the bput's request is not completed by an ncmpi_wait_all with an MPI-IO write" % r)
    iput = next(e for e in mine if e["func"] == "ncmpi_iput_var_int")
    wait = [e for e in mine if e["func"] == "ncmpi_wait_all" and e["seq"] > iput["seq"]]
    if not wait or wait[0]["args"]["array_of_requests"] != [iput["args"]["req"]] or not io_kids(wait[0], "write"):
        sys.exit("rank %d: the iput's request is not completed by an ncmpi_wait_all with an MPI-IO write" % r)
print("   per rank: varn, mput/mget, bput (+ attach, wait_all, detach), varm, vard and put_att once each, "
      "%d/%d bytes, MPI-IO beneath; put_var, iput_var, get_var %d bytes" % (B, 2 * B, P * B))
PY
# vard's file type is of pairs (a derived constituent): PnetCDF decodes it
# with MPI_Type_get_contents and frees what that returned; each free names
# a datatype id the trace made (docs/handles.md, datatypes a decoding
# returns), never the unknown -1, and no handle is unknown
python3 - n.jsonl $P <<'PY' || fail "the datatypes vard decodes"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
for r in range(int(sys.argv[2])):
    mine = [e for e in ev if e["rank"] == r and e["func"].startswith("MPI_Type_")]
    got = [e for e in mine if e["func"] == "MPI_Type_get_contents"]
    derived = [t for e in got for t in e["args"]["array_of_datatypes"] if t >= 256]
    if not derived:
        sys.exit("rank %d: no MPI_Type_get_contents returned the pair type: %s" % (r, [e["args"] for e in got]))
    frees = [e["args"]["datatype"] for e in mine if e["func"] == "MPI_Type_free"]
    if -1 in frees or any(t not in frees for t in derived):
        sys.exit("rank %d: MPI_Type_free of %s, get_contents returned %s" % (r, frees, derived))
PY
dump_has ncall.siot "note unknown_handles" && fail "handles recorded as unknown"
py check_open_modes.py "$SRC" n.jsonl || fail "ncmpi_create and ncmpi_open modes by their netCDF names"
roundtrip ncall $P "$WORK/ncall"
pass "PnetCDF's varn, mput/mget, bput, varm, vard and flexible attribute calls recorded with their bytes"
