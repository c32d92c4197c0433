"""The access pattern a program's own offsets give, as siot stats --access
counts it (per rank, in call order): consecutive when a call starts at the
previous call's end, sequential past it, random before it (a rank's first
call is judged against offset 0); aligned when offset and size are both
multiples of 4 KiB. calls: one list of (offset, size) per rank."""


def expected_access(calls):
    want = {"consecutive": 0, "sequential": 0, "random": 0, "unknown": 0, "aligned": 0}
    for rank in calls:
        end = 0
        for off, n in rank:
            want["consecutive" if off == end else "sequential" if off > end else "random"] += 1
            want["aligned"] += off % 4096 == 0 and n % 4096 == 0
            end = off + n
    return want
