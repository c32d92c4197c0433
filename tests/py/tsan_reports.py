"""tsan_reports.py LOG...: ThreadSanitizer's reports in the logs, split into
those about the tracer's code and those inside other libraries (the MPI
library's own threads and locks, which siotrace does not control). A report
is the tracer's when the first frame outside TSan's interceptors of any of
its stacks (each access, each lock acquisition) is in the tracer's sources.
Prints the tracer's reports whole and a count of the others; exit status 1
when the tracer has any."""
import re
import sys

OURS = re.compile(r"\s(?:\S*/)?(?:src|compress|wrap|pmpi|replay|build/[^/\s]+/gen)/[\w./-]+\.[ch]:\d+")
TSAN_FRAME = re.compile(r"libtsan\.so|sanitizer_common|/tsan/")


def stacks(report):
    """Each stack of a report: the frame lines after a header line."""
    cur = []
    for line in report.splitlines():
        if re.match(r"\s+#\d+ ", line):
            cur.append(line)
        elif cur:
            yield cur
            cur = []
    if cur:
        yield cur


def is_ours(report):
    for st in stacks(report):
        first = next((f for f in st if not TSAN_FRAME.search(f)), None)
        if first and OURS.search(first):
            return True
    return False


ours, others = [], 0
for path in sys.argv[1:]:
    text = open(path, errors="replace").read()
    for rep in re.findall(r"WARNING: ThreadSanitizer:.*?(?=\n={10,}|\Z)", text, re.S):
        if is_ours(rep):
            ours.append(rep)
        else:
            others += 1
for rep in ours:
    print(rep)
print(f"tsan: {len(ours)} reports about the tracer, {others} inside other libraries")
sys.exit(1 if ours else 0)
